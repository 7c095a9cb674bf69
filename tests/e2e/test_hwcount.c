/*
 * End-to-end tests of hardware counts against a known instruction count
 * (issue 24): tests/helpers/icount runs loops of exactly 8 instructions,
 * so each thread's and each frame's instructions:u are known. They need a
 * PMU that counts instructions: the arm64 QEMU guest of scripts/kernels
 * (an emulated Cortex-A57 under -icount, where the count is exact) or a
 * real machine; everywhere else (our VMs have no PMU) they skip, saying
 * so. Run them in the guest with
 *   scripts/kernels --arch arm64 build-arm64
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define HELPER HELPERS_DIR "/icount"

/* What a thread runs besides its loop: glibc's thread start and exit,
 * prctl and the tid. Measured in the arm64 guest: see the test's output. */
#define THREAD_SLACK 100000.0

/* The number after key at or after s, or -1. */
static double json_num(const char *s, const char *key)
{
	const char *p = s ? strstr(s, key) : NULL;
	return p ? atof(p + strlen(key)) : -1;
}

/* Whether instructions:u counts here; prints why not. */
static bool counts_instructions(struct tu_db *f)
{
	if (!tu_perf_allowed(f->dbarg))
		return false;
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "instructions:u",
			 "--format", "json", "-o", "/dev/stdout", "--", HELPER,
			 "threads", "8000", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	bool ok = p.status == 0 && strstr(p.out, "\"supported\": true") &&
		  json_num(strstr(p.out, "\"totals\""), "\"instructions:u\": ") > 0;
	if (!ok)
		fprintf(stderr, "skip: instructions:u does not count here (no PMU)\n");
	tu_proc_release(&p);
	return ok;
}

/* Runs icount threads under prof run with extra options; checks each
 * worker's instructions:u against its loop and returns the JSON. */
static char *threads_run_skewed(struct tu_db *f, const char *events, const char *opt,
				const char *optval, const char *unit, const char *skew,
				double rel, double rel_first, const char *what)
{
	char *out;
	if (asprintf(&out, "%s/icount.json", f->dir) < 0)
		abort();
	char *argv[16] = { PROF_BIN, f->dbarg, "run", "-q", "-e", (char *)events,
			   "--format", "json", "-o", out };
	int n = 10;
	if (opt) {
		argv[n++] = (char *)opt;
		if (optval)
			argv[n++] = (char *)optval;
	}
	argv[n++] = "--";
	argv[n++] = HELPER;
	argv[n++] = "threads";
	if (unit)
		argv[n++] = (char *)unit;
	if (unit && skew)
		argv[n++] = (char *)skew;
	argv[n] = NULL;
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status != 0 && !(rel < 0 && p.status == 1))
		fail_msg("%s: prof run exited %d:\n%s", what, p.status, p.err);
	char *json = tu_slurp(out);
	assert_non_null(json);
	/* rel < 0: multiplexed, per thread estimates, which the run says */
	if (!strstr(json, "\"complete\": true") &&
	    !(rel < 0 && strstr(json, "took turns on the PMU")))
		fail_msg("%s: the run is incomplete:\n%.800s", what,
			 strstr(json, "\"reasons\"") ? strstr(json, "\"reasons\"") : json);
	if (rel < 0 && !strstr(json, "took turns on the PMU"))
		fail_msg("%s: multiplexed per CPU, and the run does not say its "
			 "per-thread values are estimates", what);
	int workers = 0;
	for (char *l = strtok(p.out, "\n"); l; l = strtok(NULL, "\n")) {
		long tid;
		double want;
		if (sscanf(l, "icount %ld %lf", &tid, &want) != 2)
			continue;
		char key[48];
		snprintf(key, sizeof(key), "\"tid\": %ld,", tid);
		const char *th = strstr(json, key);
		if (!th)
			fail_msg("%s: thread %ld has no row", what, tid);
		double got = json_num(th, "\"instructions:u\": ");
		double off = got - want;
		fprintf(stderr, "%s: thread %ld instructions:u %.0f, its loop %.0f "
			"(%+.0f, %+.4f%%)\n", what, tid, got, want, off, off * 100 / want);
		double bound = workers == 0 ? rel_first : rel;
		if (rel >= 0 && fabs(off) > bound * want + THREAD_SLACK)
			fail_msg("%s: thread %ld counted %.0f instructions against %.0f "
				 "(allowed %.1f%%)", what, tid, got, want, bound * 100);
		workers++;
	}
	assert_int_equal(workers, 3);
	tu_proc_release(&p);
	free(out);
	return json;
}

static char *threads_run(struct tu_db *f, const char *events, const char *opt,
			 const char *optval, const char *unit, double rel,
			 const char *what)
{
	return threads_run_skewed(f, events, opt, optval, unit, NULL, rel, rel, what);
}

/* Each thread's own count, within 0.1% of its loop plus a constant. */
static void test_hwcount__threads_get_their_instructions(void **state)
{
	struct tu_db *f = *state;
	if (!counts_instructions(f))
		skip();
	free(threads_run(f, "instructions:u", NULL, NULL, NULL, 0.001, "per thread"));
}

/* Thread tid's instructions:u in the last run as counted, unscaled: its
 * CSV row's value times the share of the time it ran (to 0.1%), or -1. */
static double counted_unscaled(struct tu_db *f, long tid)
{
	char *argv[] = { PROF_BIN, f->dbarg, "report", "last", "--format", "csv",
			 NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	double got = -1;
	/* run_id,tid,name,event,value,status,running_pct,... */
	for (char *l = strtok(p.out, "\n"); l; l = strtok(NULL, "\n")) {
		long id, t;
		char name[64], ev[64], status[32];
		double v, pct;
		if (sscanf(l, "%ld,%ld,%63[^,],%63[^,],%lf,%31[^,],%lf", &id, &t, name,
			   ev, &v, status, &pct) == 7 && t == tid &&
		    !strcmp(ev, "instructions:u"))
			got = v * pct / 100;
	}
	tu_proc_release(&p);
	return got;
}

/* Each thread's -I 20 intervals of instructions:u from the last run,
 * summed, against its row in json: equal (rel 0), or where the events
 * were multiplexed (the intervals carry counts, not scaled values)
 * within rel of its row unscaled. */
static void intervals_match_rows(struct tu_db *f, const char *json, double rel)
{
	char *argv[] = { PROF_BIN, f->dbarg, "report", "last", "--intervals",
			 "--format", "csv", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	const char *head = strstr(p.out, "t_ms,tid,name,");
	assert_non_null(head);
	/* which column holds instructions:u */
	int col = -1, c = 0;
	for (const char *q = head; *q && *q != '\n'; q++) {
		if (!strncmp(q, "values.instructions:u", 21))
			col = c;
		if (*q == ',')
			c++;
	}
	if (col < 3)
		fail_msg("no instructions:u column in:\n%.300s", head);
	struct { long tid; double sum; int rows; } t[16];
	int nt = 0;
	for (char *l = strtok(p.out, "\n"); l; l = strtok(NULL, "\n")) {
		long tms, tid;
		if (sscanf(l, "%ld,%ld,", &tms, &tid) != 2)
			continue;
		const char *v = l;
		for (int k = 0; k < col && v; k++) {
			v = strchr(v, ',');
			v = v ? v + 1 : NULL;
		}
		if (!v)
			continue;
		int i = 0;
		while (i < nt && t[i].tid != tid)
			i++;
		if (i == nt) {
			assert_true(nt < 16);
			t[nt].tid = tid;
			t[nt].sum = 0;
			t[nt].rows = 0;
			nt++;
		}
		t[i].sum += atof(v);
		t[i].rows++;
	}
	tu_proc_release(&p);
	assert_true(nt >= 3);
	for (int i = 0; i < nt; i++) {
		char key[48];
		snprintf(key, sizeof(key), "\"tid\": %ld,", t[i].tid);
		double own = json_num(strstr(json, key), "\"instructions:u\": ");
		fprintf(stderr, "-I 20: thread %ld, %d intervals summing to %.0f, its "
			"row %.0f\n", t[i].tid, t[i].rows, t[i].sum, own);
	}
	for (int i = 0; i < nt; i++) {
		char key[48];
		snprintf(key, sizeof(key), "\"tid\": %ld,", t[i].tid);
		double own = json_num(strstr(json, key), "\"instructions:u\": ");
		if (rel == 0) {
			assert_true(t[i].sum == own);
			continue;
		}
		own = counted_unscaled(f, t[i].tid);
		fprintf(stderr, "-I 20: thread %ld, its row unscaled %.0f (%+.3f%%)\n",
			t[i].tid, own, (t[i].sum - own) * 100 / own);
		if (fabs(t[i].sum - own) > rel * own)
			fail_msg("-I 20: thread %ld's intervals sum to %.0f, its row "
				 "unscaled %.0f", t[i].tid, t[i].sum, own);
	}
}

/* -I: each thread's intervals sum to its own count. */
static void test_hwcount__intervals_sum_to_each_thread(void **state)
{
	struct tu_db *f = *state;
	if (!counts_instructions(f))
		skip();
	char *json = threads_run(f, "instructions:u,task-clock", "-I", "20", NULL, 0.001,
				 "with -I 20");
	intervals_match_rows(f, json, 0);
	free(json);
}

/* --frames with events: instructions per frame match the frame's loop
 * within 1%. */
static void frames_check(struct tu_db *f, const char *events)
{
	char *run[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", (char *)events,
			"--frames", "--", HELPER, "frames", "40", "1000000", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "last", "--frames", "--format",
			"json", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	assert_true(json_num(p.out, "\"frames\": ") == 40);
	const char *r = strstr(p.out, "{\"name\": \"icount\"");
	if (!r)
		fail_msg("no frame row for icount:\n%.1500s", p.out);
	double per = json_num(r, "\"instructions:u\": ");
	fprintf(stderr, "--frames: %.0f instructions:u a frame, its loop 1000000 "
		"(%+.3f%%)\n", per, (per - 1e6) / 1e4);
	assert_true(fabs(per - 1e6) <= 0.01 * 1e6);
	tu_proc_release(&p);
}

/* --frames: instructions per frame match the frame's loop within 1%. */
static void test_hwcount__frames_carry_their_instructions(void **state)
{
	struct tu_db *f = *state;
	if (!counts_instructions(f))
		skip();
	frames_check(f, "instructions:u");
}

/* prof record samples on instructions:u: the loops hold the samples. */
static void test_hwcount__record_samples_the_loops(void **state)
{
	struct tu_db *f = *state;
	if (!counts_instructions(f))
		skip();
	char *rec[] = { PROF_BIN, f->dbarg, "record", "-q", "-e", "instructions:u",
			"-c", "10000000", "--", HELPER, "threads", "80000000", NULL };
	struct tu_proc p = tu_run(rec, NULL);
	if (p.status != 0)
		fail_msg("prof record exited %d:\n%s", p.status, p.err);
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "last", "--format", "csv", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	/* event,module,symbol,samples,self_pct,... */
	const char *row = strstr(p.out, "instructions:u,");
	double pct = -1;
	long samples = 0;
	for (char *l = strtok(p.out, "\n"); l; l = strtok(NULL, "\n")) {
		char mod[512], sym[128];
		long n;
		double self;
		if (sscanf(l, "instructions:u,%511[^,],%127[^,],%ld,%lf", mod, sym, &n,
			   &self) == 4 && !strcmp(sym, "work") && strstr(mod, "/icount")) {
			pct = self;
			samples = n;
		}
	}
	fprintf(stderr, "record: work() holds %ld samples, %.1f%% of instructions:u\n",
		samples, pct);
	if (!row || pct < 90)
		fail_msg("record: the loops hold %.1f%% of the samples", pct);
	tu_proc_release(&p);
}

/* Ten events where an emulated Cortex-A57 has 7 counters, from libpfm4's
 * Cortex-A57 table (elsewhere: skipped); true when they can be tried. */
static const char *const ten = "instructions:u,cycles:u,arm_ac57::INST_RETIRED:u,"
	"arm_ac57::SW_INCR:u,arm_ac57::L1I_CACHE_REFILL:u,"
	"arm_ac57::L1I_TLB_REFILL:u,arm_ac57::L1D_CACHE_REFILL:u,"
	"arm_ac57::L1D_CACHE_ACCESS:u,arm_ac57::L1D_TLB_REFILL:u,"
	"arm_ac57::L1D_CACHE_ACCESS:k";

/* Long enough for the mux timer to turn the groups about 100 times: 480
 * million instructions, half a second under -icount. */
#define MUX_UNIT "80000000"

static bool ten_here(struct tu_db *f)
{
	if (!counts_instructions(f))
		return false;
	char *probe[] = { PROF_BIN, "events", NULL };
	struct tu_proc p = tu_run(probe, NULL);
	bool a57 = strstr(p.out, "arm_ac57::L1D_TLB_REFILL") != NULL;
	tu_proc_release(&p);
	if (!a57)
		fprintf(stderr, "skip: no Cortex-A57 event table here\n");
	return a57;
}

/* More events than counters: the kernel multiplexes the groups, and the
 * run's scaled instructions:u match the unmultiplexed count within 1%. */
static void test_hwcount__multiplexed_totals_scale(void **state)
{
	struct tu_db *f = *state;
	if (!ten_here(f))
		skip();
	char *alone = threads_run(f, "instructions:u", NULL, NULL, MUX_UNIT, 0.001, "alone");
	double want = json_num(strstr(alone, "\"totals\""), "\"instructions:u\": ");
	free(alone);
	char *json = threads_run(f, ten, NULL, NULL, MUX_UNIT, -1,
				 "10 events (per thread: estimates)");
	int opened = 0, groups = 0;
	for (const char *q = json; (q = strstr(q, "\"supported\": true")); q++)
		opened++;
	for (int g = 1; g < 10; g++) {
		char key[24];
		snprintf(key, sizeof(key), "\"group\": %d", g);
		groups += strstr(json, key) != NULL;
	}
	double got = json_num(strstr(json, "\"totals\""), "\"instructions:u\": ");
	fprintf(stderr, "10 events: %d opened, in %d hardware groups; total "
		"instructions:u %.0f against %.0f alone (%+.3f%%)\n", opened, groups,
		got, want, (got - want) * 100 / want);
	/* all ten, more than the counters: at least two groups take turns */
	assert_int_equal(opened, 10);
	assert_true(groups >= 2);
	assert_true(want > 0 && fabs(got - want) <= 0.01 * want);
	free(json);
}

/* ... and per thread, within 1% (issue 24), the first thread within 2%.
 * Counted per CPU, a group the kernel has moved off the PMU takes no
 * switch samples, so its next sample covers several threads' slices;
 * percpu.c shares it by their lengths. Before, all of it went to the
 * sample's thread (icount0 +19.5% in the 6.12 guest); since, within
 * 0.16% in five boots. Sharing by length assumes the threads in a span
 * count at one rate: icount0's first spans hold the main thread's
 * pthread_create calls, mostly kernel, which instructions:u does not
 * count, so icount0 is read at a lower rate than it ran. At the phase
 * this boot happens to give it that is small; across 107 phases in four
 * boots (the case below, docs/arm64.md) icount0 came out -1.14% to
 * +0.21%, the two others -0.12% to +0.21%; once -1.22%. */
static void test_hwcount__multiplexed_threads_scale(void **state)
{
	struct tu_db *f = *state;
	if (!ten_here(f))
		skip();
	char *json = threads_run_skewed(f, ten, NULL, NULL, MUX_UNIT, NULL, 0.01, 0.02,
					"10 events");
	/* complete, and saying its per-thread values are estimates */
	if (!strstr(json, "percpu_mux_estimate"))
		fail_msg("10 events: the run does not say its per-thread values "
			 "are estimates");
	/* and it was the sharing that made them so */
	if (!strstr(json, "\"percpu_mux_split\": ") ||
	    strstr(json, "\"percpu_mux_unsplit\": "))
		fail_msg("10 events: no sample was shared over its slices, or "
			 "some could not be");
	/* the table says it too, and marks the threads' values scaled */
	char *argv[] = { PROF_BIN, f->dbarg, "report", "last", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	if (!strstr(p.out, "values of them are estimates, shared out by") ||
	    !strstr(p.out, "multiplexed"))
		fail_msg("10 events: the report does not say the per-thread values "
			 "are estimates:\n%.3000s", p.out);
	tu_proc_release(&p);
	free(json);
}

/* ... at whatever phase the mux timer meets the threads: under -icount
 * a boot runs the same instructions at the same virtual times, so the
 * case above sees one phase of the rotation against the threads' slices,
 * and a change to what prof runs before the workload moves it (issue 30's
 * libraries on demand: icount0 -0.49% to -1.45% in five boots, which
 * failed the 1% this case held everyone to then). Here the main thread
 * first runs SKEW instructions (PROF_HWCOUNT_SKEWS, comma-separated),
 * fractions of the 4 ms (4 million instructions) rotation and more, each
 * run held to the same bounds. */
static void test_hwcount__multiplexed_threads_scale_at_other_phases(void **state)
{
	struct tu_db *f = *state;
	if (!ten_here(f))
		skip();
	const char *env = getenv("PROF_HWCOUNT_SKEWS");
	char *skews = strdup(env && *env ? env : "1000000,2500000,7300000");
	assert_non_null(skews);
	char *save = NULL;
	for (char *k = strtok_r(skews, ", ", &save); k; k = strtok_r(NULL, ", ", &save)) {
		char what[64];
		snprintf(what, sizeof(what), "10 events, skew %s", k);
		free(threads_run_skewed(f, ten, NULL, NULL, MUX_UNIT, k, 0.01, 0.02, what));
	}
	free(skews);
}

/* ... and -I under multiplexing: the shares land in the intervals too,
 * each thread's summing to its row within 1% (unscaled: -I carries what
 * was counted, multiplexed or not). The rows themselves are looser with
 * -I's ticks than without: each thread within 0.85% in eight boots of the
 * 6.12 guest (without -I, 0.16%), so 2% here. */
static void test_hwcount__multiplexed_intervals(void **state)
{
	struct tu_db *f = *state;
	if (!ten_here(f))
		skip();
	char *json = threads_run(f, ten, "-I", "20", MUX_UNIT, 0.02, "10 events, -I 20");
	intervals_match_rows(f, json, 0.01);
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hwcount__threads_get_their_instructions,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_hwcount__intervals_sum_to_each_thread,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_hwcount__frames_carry_their_instructions,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_hwcount__record_samples_the_loops,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_hwcount__multiplexed_totals_scale,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_hwcount__multiplexed_threads_scale,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_hwcount__multiplexed_threads_scale_at_other_phases,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_hwcount__multiplexed_intervals,
						tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
