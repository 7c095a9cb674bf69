/*
 * End-to-end tests of `prof ab` and `prof compare`: real interleaved runs
 * of small commands against a temporary database.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include <sqlite3.h>

#include "test_util.h"

static int setup(void **state)
{
	*state = tu_db_new("ab.db");
	return 0;
}

static void expect(const char *out, const char *needle)
{
	if (!strstr(out, needle) && !tu_has_prose(out, needle))
		fail_msg("expected %s in:\n%s", needle, out);
}

/* The JSON comparison object for a metric, as text (NULL when absent). */
static const char *comparison(const char *json, const char *metric)
{
	char key[128];
	snprintf(key, sizeof(key), "\"metric\": \"%s\"", metric);
	const char *c = strstr(json, "\"comparisons\"");
	return c ? strstr(c, key) : NULL;
}

static double num_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	return p ? atof(p + strlen(key)) : NAN;
}

/* A comparison judged on a busy machine has no verdict by design (issue
 * 25): a test of the verdict itself cannot run there, and says so. */
static void busy_or_skip(struct tu_proc *p, const char *c)
{
	if (c && strstr(c, "\"machine_busy\": true")) {
		fprintf(stderr, "  skipped: the machine was busy, so no verdict was "
			"given (as it should be)\n");
		tu_proc_release(p);
		skip();
	}
}

static void perf_or_skip(struct tu_proc *p)
{
	if (p->status != 0 && strstr(p->err, "cannot open perf events")) {
		tu_proc_release(p);
		skip();
	}
}

static void test_ab__slower_arm_is_worse_with_a_ci_excluding_zero(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "ab", "--arm", "fast=sleep 0.2",
			 "--arm", "slow=sleep 0.4", "--rounds", "6", "-e", "task-clock",
			 "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	const char *c = comparison(p.err, "wall_s");
	assert_non_null(c);
	busy_or_skip(&p, c);
	expect(c, "\"verdict\": \"worse\"");
	double lo = num_after(c, "\"ci95_pct\": [");
	const char *comma = strstr(strstr(c, "\"ci95_pct\": ["), ", ");
	double hi = atof(comma + 2);
	assert_true(lo > 0 && hi > lo);
	double d = num_after(c, "\"delta_pct_mean\": ");
	/* Twice as long, plus the same start-up and wake-up delays on both
	 * sides (tens of ms on a loaded VM, a shell's start-up, more under
	 * ASan: up to 300 ms of them still leave +40%): well above zero,
	 * below +100%. */
	assert_true(d > 40 && d < 110);
	expect(c, "\"p_value\": 0.03125");
	expect(c, "\"signs_agree\": true");
	expect(p.err, "\"rounds_counted\": 6");
	tu_proc_release(&p);
}

/*
 * A/A: no better or worse. A statistical test can only be made unlikely to
 * fail by chance. On this 2-core VM with other jobs running, a 100 ms
 * sleep sometimes wakes tens of ms late, so 6 rounds at a 5% gate read
 * 'worse' once in a CI run and 30 ms sleeps 'better' once in 12 loops:
 * 8 rounds and a 20% gate ask for far more than that noise can make.
 */
static void test_ab__same_command_twice_is_not_better_or_worse(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "ab", "--arm", "a=sleep 0.1",
			 "--arm", "b=sleep 0.1", "--rounds", "8", "--gate", "20",
			 "-e", "task-clock", "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	/* The document alone on stderr (issue 13): no progress line, no
	 * warning before or after it. */
	assert_true(p.err[0] == '{');
	assert_string_equal(p.err + strlen(p.err) - 2, "}\n");
	assert_null(strstr(p.err, "\nprof"));
	assert_null(strstr(p.err, "\nwarning:"));
	const char *c = comparison(p.err, "wall_s");
	assert_non_null(c);
	/* wall_s's own object only: the machine's deltas that follow
	 * (system.*) count what other jobs did too, and may well differ. */
	const char *next = strstr(c + 1, "\"metric\": ");
	char *own = strndup(c, next ? (size_t)(next - c) : strlen(c));
	assert_non_null(own);
	assert_null(strstr(own, "\"verdict\": \"worse\""));
	assert_null(strstr(own, "\"verdict\": \"better\""));
	free(own);
	tu_proc_release(&p);
}

/*
 * Issue 15: with 2 rounds prof ab called "better" while printing
 * p = 0.500. Arms 20 times apart are still inconclusive at 2 rounds, and
 * the table says why and how many rounds would do.
 */
static void test_ab__two_rounds_never_call_better_or_worse(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "ab", "--arm", "fast=sleep 0.02",
			 "--arm", "slow=sleep 0.4", "--rounds", "2", "--warmup", "0",
			 "-e", "task-clock", "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.err, "\"verdict\": \"worse\""));
	assert_null(strstr(p.err, "\"verdict\": \"better\""));
	const char *c = comparison(p.err, "wall_s");
	assert_non_null(c);
	expect(c, "\"p_value\": 0.5,");
	expect(c, "\"verdict\": \"inconclusive\"");
	busy_or_skip(&p, c);
	/* At least the 6 rounds the p-value needs (more if a loaded machine
	 * made the two rounds disagree a lot). */
	assert_true(num_after(c, "\"rounds_needed\": ") >= 6);
	tu_proc_release(&p);
	char *t[] = { PROF_BIN, f->dbarg, "compare", "last", NULL };
	p = tu_run(t, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "inconclusive (");
	tu_proc_release(&p);
}

/* Valid UTF-8 with no control byte but newline and tab. */
static bool is_clean_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n = *p < 0x80 ? 1 : *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 ? 2 : 0;
		if (!n || (n == 1 && *p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			return false;
		for (size_t i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return false;
		p += n;
	}
	return true;
}

/*
 * Issue 15: --arm a='xz -1 f > /dev/null' passed '>' to xz. Arms run
 * through /bin/sh -c by default, as hyperfine does; -N execs the words.
 */
static void test_ab__arms_run_through_a_shell_unless_no_shell(void **state)
{
	struct tu_db *f = *state;
	char *arm_a, *arm_b, *out_a, *out_b;
	assert_true(asprintf(&out_a, "%s/a.txt", f->dir) > 0);
	assert_true(asprintf(&out_b, "%s/b.txt", f->dir) > 0);
	assert_true(asprintf(&arm_a, "a=echo 1 > %s", out_a) > 0);
	assert_true(asprintf(&arm_b, "b=echo 2 | tr 2 3 > %s", out_b) > 0);
	char *argv[] = { PROF_BIN, f->dbarg, "ab", "--arm", arm_a, "--arm", arm_b,
			 "--rounds", "1", "--warmup", "0", "-e", "task-clock",
			 "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *a = tu_slurp(out_a), *b = tu_slurp(out_b);
	assert_string_equal(a, "1\n");
	assert_string_equal(b, "3\n");
	free(a);
	free(b);
	unlink(out_a);
	unlink(out_b);

	/* -N: echo gets '>' and the path as words; no file is made, and the
	 * words reach the workload's output (a score sees them). */
	char *n[] = { PROF_BIN, f->dbarg, "ab", "-N", "--arm", arm_a, "--arm", arm_b,
		      "--score", "seen=^([0-9]+) [>|] ", "--rounds", "1", "--warmup", "0",
		      "-e", "task-clock", "--format", "json", NULL };
	p = tu_run(n, NULL);
	assert_int_equal(p.status, 0);
	assert_int_not_equal(access(out_a, F_OK), 0);
	assert_int_not_equal(access(out_b, F_OK), 0);
	assert_null(strstr(p.err, "printed no 'seen'"));
	tu_proc_release(&p);
	/* With the shell, an arm whose program does not exist fails its
	 * runs, and sh's own message is the tail shown. */
	char *bad[] = { PROF_BIN, f->dbarg, "ab", "--arm", "a=true", "--arm",
			"b=no-such-program-x1 --flag", "--rounds", "1", "--warmup", "0",
			"-e", "task-clock", NULL };
	p = tu_run(bad, NULL);
	assert_int_equal(p.status, 1);
	expect(p.err, "exited with status 127");
	expect(p.err, "  | ");
	expect(p.err, "no-such-program-x1");
	tu_proc_release(&p);
	free(arm_a);
	free(arm_b);
	free(out_a);
	free(out_b);
}

/* A failing arm's stderr tail is text: escapes, not raw bytes; binary is
 * measured, not shown; stdout is not the tail; an empty one says so. */
static void test_ab__failed_arm_tail_is_text(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "ab", "--arm", "ok=true", "--arm",
			 "esc=printf 'to %s\\n' std-out; printf 'bad \\033[31mred\\n' >&2; exit 3",
			 "--arm", "bin=head -c 4000 /dev/urandom >&2; exit 4",
			 "--arm", "mute=exit 5",
			 "--rounds", "1", "--warmup", "0", "--keep-going", "-e", "task-clock",
			 NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	/* every arm but the baseline failed: an error (issue 25) */
	assert_int_equal(p.status, 1);
	expect(p.err, "exited with status 3");
	expect(p.err, "  | bad \\x1b[31mred\n");
	assert_null(strstr(p.err, "to std-out"));
	expect(p.err, "exited with status 4");
	expect(p.err, "bytes on stderr, mostly binary: not shown");
	expect(p.err, "exited with status 5");
	expect(p.err, "  | (nothing on stderr)\n");
	if (!is_clean_text(p.err))
		fail_msg("raw bytes reached stderr:\n%s", p.err);
	tu_proc_release(&p);
}

static void test_ab__abba_order_is_stored(void **state)
{
	struct tu_db *f = *state;
	char *plain[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock", "--",
			  "true", NULL };
	struct tu_proc p0 = tu_run(plain, NULL);
	perf_or_skip(&p0);
	assert_int_equal(p0.status, 0);
	tu_proc_release(&p0);
	char *argv[] = { PROF_BIN, f->dbarg, "ab", "--arm", "A=true", "--arm",
			 "B=true", "--rounds", "4", "--warmup", "0", "-e", "task-clock",
			 "--metric", "task-clock", "--metric", "wall_s", "--format", "json",
			 NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	/* --metric: those two judged and shown, in the analysis's order (the
	 * document goes to stderr, as ab's report does) */
	const char *w = strstr(p.err, "\"metric\": \"wall_s\"");
	assert_non_null(w);
	assert_non_null(strstr(w, "\"metric\": \"task-clock\""));
	assert_null(strstr(p.err, "\"metric\": \"cpu_s\""));
	tu_proc_release(&p);
	/* Recomputed from the database: AB BA AB BA. */
	char *c[] = { PROF_BIN, f->dbarg, "compare", "last", "--format", "json", NULL };
	p = tu_run(c, NULL);
	assert_int_equal(p.status, 0);
	const char *want[] = { "A", "B", "B", "A", "A", "B", "B", "A" };
	const char *s = strstr(p.out, "\"schedule\"");
	assert_non_null(s);
	for (int i = 0; i < 8; i++) {
		char key[96];
		snprintf(key, sizeof(key), "\"arm\": \"%s\", \"round\": %d, \"position\": %d",
			 want[i], i / 2, i % 2);
		s = strstr(s, key);
		if (!s)
			fail_msg("run %d: expected %s in:\n%s", i, key, p.out);
	}
	tu_proc_release(&p);
	/* 'last' is the newest run 'prof runs' lists (the plain run above),
	 * not the experiment's newest. */
	char *r[] = { PROF_BIN, f->dbarg, "report", "last", "--format", "json", NULL };
	p = tu_run(r, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "\"run_id\": 1,");
	expect(p.out, "\"kind\": \"run\"");
	tu_proc_release(&p);
}

static void test_ab__scores_and_compare_reprint_the_same_numbers(void **state)
{
	struct tu_db *f = *state;
	char *out;
	assert_true(asprintf(&out, "%s/ab.json", f->dir) > 0);
	char *argv[] = { PROF_BIN, f->dbarg, "ab",
			 "--arm", "fast=sh -c 'echo rendered 60.0 fps'",
			 "--arm", "slow=sh -c 'echo rendered 30.0 fps'",
			 "--score", "fps=([0-9.]+) fps:higher", "--per", "frame=fps",
			 "--rounds", "6", "--warmup", "0", "-e", "task-clock", "--format",
			 "json", "-o", out,
			 NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *json = tu_slurp(out);
	const char *c = comparison(json, "fps");
	assert_non_null(c);
	expect(c, "\"higher_is_better\": true");
	expect(c, "\"delta_pct_mean\": -50");
	expect(c, "\"verdict\": \"worse\"");
	assert_non_null(comparison(json, "cpu_ms_per_frame"));
	assert_null(comparison(json, "cpu_ms_per_fps"));
	/* prof compare prints exactly what prof ab printed. */
	char *c2[] = { PROF_BIN, f->dbarg, "compare", "last", "--format", "json", NULL };
	p = tu_run(c2, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, json);
	tu_proc_release(&p);
	char *md[] = { PROF_BIN, f->dbarg, "compare", "last", "--format", "markdown", NULL };
	p = tu_run(md, NULL);
	expect(p.out, "| metric | arm | n | median |");
	expect(p.out, "*paired log-ratio t (95% CI, t = 2.57 at n = 6), ABBA, 6 rounds");
	expect(p.out, "smallest attainable sign-flip p 0.031");
	/* Issue 15: user and system time from wait4 are metrics of every
	 * experiment, in every format. */
	expect(p.out, "| user_s ↓ | fast |");
	expect(p.out, "| sys_s ↓ | fast |");
	tu_proc_release(&p);
	expect(json, "\"user_s\": {");
	expect(json, "\"sys_s\": {");
	assert_non_null(comparison(json, "user_s"));
	assert_non_null(comparison(json, "sys_s"));
	char *tb[] = { PROF_BIN, f->dbarg, "compare", "last", NULL };
	p = tu_run(tb, NULL);
	expect(p.out, " user_s (s; lower is better)\n");
	expect(p.out, " sys_s (s; lower is better)\n");
	tu_proc_release(&p);
	char *csv[] = { PROF_BIN, f->dbarg, "compare", "last", "--format", "csv", NULL };
	p = tu_run(csv, NULL);
	expect(p.out, "\nuser_s,fast,");
	expect(p.out, "\nsys_s,slow,");
	tu_proc_release(&p);
	free(json);
	free(out);
}

static void test_ab__missing_score_and_failed_runs_are_left_out(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "ab",
			 "--arm", "ok=sh -c 'echo score 10'",
			 "--arm", "quiet=sh -c 'echo nothing'",
			 "--score", "s=score ([0-9]+)", "--rounds", "2", "-e", "task-clock",
			 "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	expect(p.err, "printed no 's'");
	/* Never a zero: the arm has no values for s. */
	const char *c = comparison(p.err, "s");
	assert_non_null(c);
	expect(c, "\"n\": 0");
	tu_proc_release(&p);

	char *a2[] = { PROF_BIN, f->dbarg, "ab", "--arm", "good=true", "--arm",
		       "bad=false", "--rounds", "3", "-e", "task-clock", NULL };
	p = tu_run(a2, NULL);
	assert_int_equal(p.status, 1);
	expect(p.err, "exited with status 1; stored, left out of the statistics");
	expect(p.err, "stopped after warm-up 1: a run failed (use --keep-going to run on)");
	tu_proc_release(&p);
	char *a3[] = { PROF_BIN, f->dbarg, "ab", "--arm", "good=true", "--arm",
		       "bad=false", "--rounds", "3", "--keep-going", "-e", "task-clock",
		       "--format", "json", NULL };
	p = tu_run(a3, NULL);
	/* Issue 25: an arm none of whose runs counted is an error of the
	 * experiment, in its JSON and its exit status, though it ran to
	 * the end. */
	assert_int_equal(p.status, 1);
	expect(p.err, "\"status\": \"complete\"");
	expect(p.err, "left out of the statistics");
	const char *errs = strstr(p.err, "\"errors\": [");
	assert_non_null(errs);
	expect(errs, "\"arm bad has no counted run (all 3 runs failed or were "
	       "interrupted); nothing is compared for it\"");
	tu_proc_release(&p);
	/* ...and in the table, Markdown and CSV of prof compare alike. */
	const char *fmts[] = { "table", "markdown", "csv" };
	for (int i = 0; i < 3; i++) {
		char *cmp[] = { PROF_BIN, f->dbarg, "compare", "last", "--format",
				(char *)fmts[i], NULL };
		p = tu_run(cmp, NULL);
		assert_int_equal(p.status, 1);
		expect(i == 2 ? p.err : p.out, "arm bad has no counted run");
		tu_proc_release(&p);
	}
}

/* A regex the matcher handles badly costs a bounded time per run, and
 * says so. */
static void test_ab__a_slow_score_search_is_cut_short(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "ab",
			 "--arm", "a=sh -c 'yes a | head -c 1000000 | tr -d \"\\n\"'",
			 "--arm", "b=sh -c 'echo 5 fps'",
			 "--score", "far=a.*z", "--score", "fps=([0-9]+) fps",
			 "--rounds", "1", "--warmup", "0", "-e", "task-clock", NULL };
	time_t t0 = time(NULL);
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	expect(p.err, "searching its output for 'far' (regex a.*z) took more than 2 s "
	       "of CPU");
	expect(p.err, "run 2 (arm b) printed no 'far'");
	/* Two runs; the search of arm a's output cut short at 2 s. */
	assert_true(time(NULL) - t0 < 30);
	tu_proc_release(&p);
}

/* The JSON object of metric in arm's "metrics" (NULL when absent). */
static char *arm_metric(const char *json, const char *arm, const char *metric)
{
	char key[128];
	snprintf(key, sizeof(key), "\"name\": \"%s\",", arm);
	const char *a = strstr(json, key);
	if (!a)
		return NULL;
	const char *end = strstr(a + 1, "\"name\": ");
	snprintf(key, sizeof(key), "\"%s\": {", metric);
	const char *m = strstr(a, key);
	if (!m || (end && m > end))
		return NULL;
	return strndup(m, (size_t)(strchr(m, '}') - m));
}

/*
 * Scores from each run's frames (issue 14): tests/helpers/frames prints
 * "frame N took X ms" every 5 ms; 60 lines make 59 frames per run, none
 * longer than a 1000 s budget, and every arm gets its frame p99 and the
 * p99 of the times it printed itself. The stored runs keep their frames
 * and the budget.
 */
static void test_ab__frame_scores_per_arm(void **state)
{
	struct tu_db *f = *state;
	char *a, *b;
	if (asprintf(&a, "a=%s/frames 60", HELPERS_DIR) < 0 ||
	    asprintf(&b, "b=%s/frames 60", HELPERS_DIR) < 0)
		abort();
	char *argv[] = { PROF_BIN, f->dbarg, "ab", "--arm", a, "--arm", b,
			 "--rounds", "2", "--warmup", "0", "-e", "task-clock",
			 "--score", "frame:p99", "--score", "frame:long",
			 "--frame-regex", "^frame [0-9]+ took", "--budget", "1000000",
			 "--score", "took=took ([0-9.]+) ms:p99",
			 "--score", "lines=^frame [0-9]+ took:matches",
			 "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	if (p.status)
		fail_msg("prof ab exited %d:\n%s", p.status, p.err);
	assert_null(strstr(p.err, "has no frames"));
	const char *arms[] = { "a", "b" };
	for (int i = 0; i < 2; i++) {
		char *m = arm_metric(p.err, arms[i], "frame_p99_ms");
		if (!m)
			fail_msg("arm %s has no frame_p99_ms:\n%s", arms[i], p.err);
		expect(m, "\"n\": 2,");
		/* a 5 ms frame, loosely: the machine is shared */
		double v = num_after(m, "\"min\": ");
		assert_true(v > 2 && v < 1000);
		fprintf(stderr, "  arm %s: frame_p99_ms mean %.3f", arms[i],
			num_after(m, "\"mean\": "));
		free(m);
		m = arm_metric(p.err, arms[i], "took:p99");
		assert_non_null(m);
		expect(m, "\"n\": 2,");
		fprintf(stderr, ", printed p99 (took:p99) mean %.3f\n",
			num_after(m, "\"mean\": "));
		free(m);
		m = arm_metric(p.err, arms[i], "long_frames");
		assert_non_null(m);
		expect(m, "\"values\": [0, 0]");
		free(m);
		m = arm_metric(p.err, arms[i], "lines:matches");
		assert_non_null(m);
		expect(m, "\"values\": [60, 60]");
		free(m);
	}
	assert_non_null(comparison(p.err, "frame_p99_ms"));
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "last", "--frames", "--format",
			"json", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "\"source\": \"regex\"");
	expect(p.out, "\"frames\": 59,");
	expect(p.out, "\"budget_ms\": 1000000");
	tu_proc_release(&p);
	free(a);
	free(b);
}

static void test_ab__bad_input_exits_2(void **state)
{
	struct tu_db *f = *state;
	struct {
		char *args[12];
		const char *msg;
	} cases[] = {
		{ { "--arm", "a=", NULL }, "has no command" },
		{ { "--arm", "a=true", "--arm", "a=false", NULL }, "given twice" },
		{ { "--arm", "a=true", NULL }, "only one arm" },
		{ { "--arm", "a=true", "--arm", "b=true", "--set", "c.pin=none", NULL },
		  "not one of the arms" },
		{ { "--arm", "a=true", "--arm", "b=true", "--set", "a.nice=5", NULL },
		  "unknown setting" },
		{ { "--arm", "a=true", "--arm", "b=true", "--score", "x=([", NULL },
		  "does not compile" },
		{ { "--arm", "a=true", "--arm", "b=true", "--score", "x=[0-9]*", NULL },
		  "can match the empty string" },
		{ { "--arm", "a=true", "--arm", "b=true", "--score", "x=(b+)+", NULL },
		  "nested repetitions" },
		{ { "--arm", "a=true", "--arm", "b=true", "--rounds", "0", NULL },
		  "bad --rounds" },
		{ { "--arm", "a=true", "--arm", "b=true", "--set", "pin=warp", NULL },
		  "unknown pin mode" },
		/* Issue 15: CPU ms divided by fps is no CPU per frame. */
		{ { "--arm", "a=true", "--arm", "b=true", "--score", "fps=([0-9]+) fps",
		    "--per", "fps", NULL }, "'fps' is a rate (per second)" },
		{ { "--arm", "a=true", "--arm", "b=true", "--score", "speed=([0-9]+):rate",
		    "--per", "speed", NULL }, "--per UNIT=speed" },
		{ { "--arm", "a=true", "--arm", "b=true", "--score", "n=([0-9]+)",
		    "--per", "=n", NULL }, "bad --per" },
		/* Scores from frames, and aggregates. */
		{ { "--arm", "a=true", "--arm", "b=true", "--score", "frame:p42",
		    "--frame-regex", "^frame", NULL },
		  "unknown frame score 'frame:p42': expected frame:p99, frame:p50 or "
		  "frame:long" },
		{ { "--arm", "a=true", "--arm", "b=true", "--score", "frame:p99", NULL },
		  "--score frame:p99 needs --frame-regex, --frame-symbol or --frames" },
		{ { "--arm", "a=true", "--arm", "b=true", "--score", "x=([0-9]+):p99:max",
		    NULL }, "has 2 aggregators" },
		{ { "--arm", "a=true", "--arm", "b=true", "--frame-regex", "(", NULL },
		  "bad --frame-regex '('" },
		{ { "--arm", "a=true", "--arm", "b=true", "--frame-symbol", "present",
		    NULL }, "expected MODULE:SYMBOL" },
		{ { "--arm", "a=true", "--arm", "b=true", "--frame-symbol",
		    HELPERS_DIR "/frames:no_such_function", NULL }, "no_such_function" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[16] = { PROF_BIN, f->dbarg, "ab" };
		int n = 3;
		for (int k = 0; cases[i].args[k]; k++)
			argv[n++] = cases[i].args[k];
		argv[n] = NULL;
		struct tu_proc p = tu_run(argv, NULL);
		if (p.status != 2 || !strstr(p.err, cases[i].msg))
			fail_msg("case %zu: status %d, stderr:\n%s", i, p.status, p.err);
		tu_proc_release(&p);
	}
	/* Nothing was stored for any of them: not even the database file
	 * was made. */
	char *c[] = { PROF_BIN, f->dbarg, "compare", NULL };
	struct tu_proc p = tu_run(c, NULL);
	assert_int_equal(p.status, 1);
	expect(p.err, "error: no database at '");
	tu_proc_release(&p);
}

/* A plan that is no regular file (a device, a FIFO nobody writes) is
 * refused at once rather than read forever, and nothing is stored. */
static void test_ab__plan_that_is_no_file_is_refused(void **state)
{
	struct tu_db *f = *state;
	char *fifo;
	if (asprintf(&fifo, "%s/plan.fifo", f->dir) < 0 || mkfifo(fifo, 0600) != 0)
		abort();
	const char *plans[] = { "/dev/zero", fifo };
	const struct tu_run_opts limit = { .timeout_s = 20 };
	for (size_t i = 0; i < 2; i++) {
		char *a[] = { PROF_BIN, f->dbarg, "ab", "--plan", (char *)plans[i], NULL };
		struct tu_proc p = tu_run_ex(a, NULL, &limit);
		if (p.status != 2 || !strstr(p.err, "not a regular file"))
			fail_msg("%s: status %d, stderr:\n%s", plans[i], p.status, p.err);
		expect(p.err, plans[i]);
		tu_proc_release(&p);
	}
	free(fifo);
	assert_int_not_equal(access(f->path, F_OK), 0);	/* nothing was stored */
}

/*
 * Start prof ab with args (after the database), send it SIGINT after
 * delay_ms, and check it stopped as an interrupted experiment: exit 130,
 * the finished rounds kept, fewer than all 20.
 */
static void interrupt_ab(const struct tu_db *f, const char *const *args, long delay_ms,
			 int sig)
{
	char outp[] = "/tmp/prof-ab-e2e-XXXXXX";
	int ofd = mkstemp(outp);
	char *argv[24] = { PROF_BIN, f->dbarg, "ab" };
	size_t n = 3;
	for (; args[n - 3] && n < 23; n++)
		argv[n] = (char *)args[n - 3];
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(ofd, 2);
		execv(PROF_BIN, argv);
		_exit(99);
	}
	struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
	kill(pid, sig);
	int st;
	waitpid(pid, &st, 0);
	char *err = tu_slurp(outp);
	close(ofd);
	unlink(outp);
	if (strstr(err, "cannot open perf events")) {
		free(err);
		skip();
	}
	if (!WIFEXITED(st))
		fail_msg("prof ab died of signal %d; stderr:\n%s", WTERMSIG(st), err);
	/* 128 + the signal, as a shell reports it (issue 25: SIGTERM and
	 * SIGHUP exited 130) */
	assert_int_equal(WEXITSTATUS(st), 128 + sig);
	expect(err, "\"status\": \"interrupted\"");
	double counted = num_after(err, "\"rounds_counted\": ");
	assert_true(counted >= 1 && counted < 20);
	free(err);
}

static void test_ab__ctrl_c_keeps_the_finished_rounds(void **state)
{
	static const char *const args[] = { "--arm", "a=sleep 0.2", "--arm", "b=sleep 0.2",
		"--rounds", "20", "--warmup", "0", "-e", "task-clock", "--format", "json",
		NULL };
	interrupt_ab(*state, args, 1500, SIGINT);
}

static void test_ab__sigterm_and_sighup_exit_143_and_129(void **state)
{
	static const char *const args[] = { "--arm", "a=sleep 0.2", "--arm", "b=sleep 0.2",
		"--rounds", "20", "--warmup", "0", "-e", "task-clock", "--format", "json",
		NULL };
	interrupt_ab(*state, args, 1500, SIGTERM);
	interrupt_ab(*state, args, 1500, SIGHUP);
}

/*
 * A Ctrl-C between two runs (here in --settle's pause, where prof spends
 * nearly all its time) stops the experiment the same way: prof used to
 * die of it, leaving the experiment "running" and printing nothing.
 */
static void test_ab__ctrl_c_between_runs_keeps_the_rounds(void **state)
{
	static const char *const args[] = { "--arm", "a=true", "--arm", "b=true",
		"--rounds", "20", "--warmup", "0", "--settle", "1", "-e", "task-clock",
		"--format", "json", NULL };
	interrupt_ab(*state, args, 2500, SIGINT);
}

/* An A/A experiment of the baseline command sets the gate of later ones. */
static void test_ab__gate_comes_from_the_latest_aa(void **state)
{
	struct tu_db *f = *state;
	char *aa[] = { PROF_BIN, f->dbarg, "ab", "--aa", "--arm", "x=sleep 0.02",
		       "--rounds", "4", "--warmup", "0", "-e", "task-clock", "--format",
		       "json", NULL };
	struct tu_proc p = tu_run(aa, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	expect(p.err, "\"aa\": true");
	expect(p.err, "\"name\": \"x-2\"");
	tu_proc_release(&p);
	char *ab[] = { PROF_BIN, f->dbarg, "ab", "--arm", "x=sleep 0.02", "--arm",
		       "y=sleep 0.03", "--rounds", "2", "--warmup", "0", "-e", "task-clock",
		       "--format", "json", NULL };
	p = tu_run(ab, NULL);
	assert_int_equal(p.status, 0);
	expect(p.err, "\"gate_source\": \"A/A experiment 1\"");
	tu_proc_release(&p);
	/* Issue 15: the A/A experiment prints its noise and the gate it sets
	 * per metric, not verdicts with rounds that mean nothing; the later
	 * experiment prints the gate each metric was judged against. */
	const char *fmts[] = { "table", "markdown" };
	for (int i = 0; i < 2; i++) {
		char *c1[] = { PROF_BIN, f->dbarg, "compare", "1", "--format",
			       (char *)fmts[i], NULL };
		p = tu_run(c1, NULL);
		assert_int_equal(p.status, 0);
		expect(p.out, "round-to-round sd");
		expect(p.out, "gate it sets");
		expect(p.out, "take each metric's gate from here");
		assert_null(strstr(p.out, "inconclusive"));
		assert_null(strstr(p.out, "rounds)"));
		/* the wall_s gate, as it is shown in both experiments */
		const char *w = strstr(p.out, "wall_s");
		assert_non_null(w);
		const char *g = strstr(w, "±");
		assert_non_null(g);
		char gate[16];
		snprintf(gate, sizeof(gate), "%.*s", (int)strcspn(g, " |\n"), g);
		tu_proc_release(&p);
		char *c2[] = { PROF_BIN, f->dbarg, "compare", "2", "--format",
			       (char *)fmts[i], NULL };
		p = tu_run(c2, NULL);
		assert_int_equal(p.status, 0);
		expect(p.out, "gate");
		w = strstr(p.out, "wall_s");
		assert_non_null(w);
		expect(w, gate);
		tu_proc_release(&p);
	}
	/* --gate still wins over the A/A experiment. */
	char *c[] = { PROF_BIN, f->dbarg, "compare", "2", "--gate", "7", "--format",
		      "json", NULL };
	p = tu_run(c, NULL);
	expect(p.out, "\"gate_pct\": 7,");
	expect(p.out, "\"gate_source\": \"--gate\"");
	tu_proc_release(&p);
}

/*
 * Issue 25: every --score is stored and judged (45 were accepted, 40
 * kept); an A/A experiment's JSON carries no verdict ("no verdicts", the
 * table says); an A/A noise gate wider than 5% is said to be, and
 * nothing is called equivalent past the smallest change that matters.
 */
static void test_ab__every_score_counts(void **state)
{
	struct tu_db *f = *state;
	char cmd[1024] = "x=sh -c 'for i in";
	for (int i = 1; i <= 45; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %d", i);
	snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
		 "; do echo s$i $((i * 10)); done'");
	char *argv[64 + 45 * 2] = { PROF_BIN, f->dbarg, "ab", "--arm", cmd, "--arm" };
	size_t n = 6;
	char *ycmd = strdup(cmd);
	ycmd[0] = 'y';
	argv[n++] = ycmd;
	char names[45][48];
	for (int i = 0; i < 45; i++) {
		snprintf(names[i], sizeof(names[i]), "s%d=^s%d ([0-9]+)$", i + 1, i + 1);
		argv[n++] = "--score";
		argv[n++] = names[i];
	}
	const char *tail[] = { "--rounds", "2", "--warmup", "0", "-e", "task-clock",
			       "--format", "json", NULL };
	for (size_t k = 0; tail[k]; k++)
		argv[n++] = (char *)tail[k];
	argv[n] = NULL;
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	const char *c = comparison(p.err, "s45");
	assert_non_null(c);
	expect(c, "\"n\": 2");
	assert_non_null(comparison(p.err, "s41"));
	tu_proc_release(&p);
	free(ycmd);
}

/* Issue 25: "no more long frames than before" is a question: counts that
 * are 0 in a round are compared by their differences, not refused. */
static void test_ab__counts_of_zero_are_compared(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "ab", "--arm", "calm=echo long 0", "--arm",
			 "jank=echo long 3", "--arm", "same=echo long 0", "--score",
			 "long=long ([0-9]+)", "--rounds", "6", "--warmup", "0", "-e",
			 "task-clock", "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	const char *c = comparison(p.err, "long");
	assert_non_null(c);	/* jank's: the first arm against calm */
	expect(c, "\"delta_pct_mean\": 200,");
	expect(c, "\"method\": \"difference over both arms' mean\"");
	const char *v = strstr(c, "\"verdict\": ");
	assert_non_null(v);
	/* worse, unless the machine was too busy to judge */
	assert_true(!strncmp(v, "\"verdict\": \"worse\"", 18) ||
		    strstr(c, "\"machine_busy\": true"));
	/* the arm that did not change: 0 against 0 in every round */
	const char *same = strstr(strstr(p.err, "\"comparisons\""), "\"arm\": \"same\"");
	assert_non_null(same);
	const char *c2 = strstr(same, "\"metric\": \"long\"");
	assert_non_null(c2);
	expect(c2, "\"delta_pct_mean\": 0,");
	tu_proc_release(&p);
	char *t[] = { PROF_BIN, f->dbarg, "compare", "last", NULL };
	p = tu_run(t, NULL);
	assert_int_equal(p.status, 0);
	/* the terminal says under the table what the column's Δ% are */
	expect(p.out, "+200.0% [+200.0, +200.0]");
	expect(p.out, "its Δ% are differences in percent of both arms' mean");
	assert_null(strstr(p.out, "a log-ratio needs values above 0"));
	tu_proc_release(&p);
}

static void test_ab__aa_json_has_no_verdicts_and_a_wide_gate_is_said(void **state)
{
	struct tu_db *f = *state;
	/* Sleeps of 0 to 0.99 s drawn per run: wall_s noise far past 5%. */
	char *aa[] = { PROF_BIN, f->dbarg, "ab", "--aa", "--arm",
		       "x=sleep 0.$(od -An -N1 -tu1 /dev/urandom | tr -dc 0-9 | cut -c1-2)",
		       "--rounds", "5", "--warmup", "0", "-e", "task-clock", "--format",
		       "json", NULL };
	struct tu_proc p = tu_run(aa, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	const char *c = comparison(p.err, "wall_s");
	assert_non_null(c);
	const char *end = strchr(c, '}');
	char *one = strndup(c, (size_t)(end - c));
	expect(one, "\"verdict\": null");
	expect(one, "\"gate_pct\": null");
	expect(one, "gives no verdict");
	free(one);
	assert_null(strstr(p.err, "\"verdict\": \"worse\""));
	assert_null(strstr(p.err, "\"verdict\": \"better\""));
	assert_null(strstr(p.err, "\"verdict\": \"equivalent\""));
	tu_proc_release(&p);
	char *csv[] = { PROF_BIN, f->dbarg, "compare", "last", "--format", "csv", NULL };
	p = tu_run(csv, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "none (A/A)");
	assert_null(strstr(p.out, ",worse,"));
	assert_null(strstr(p.out, ",better,"));
	tu_proc_release(&p);
	/* The next experiment of the same baseline takes that gate, and
	 * says it is wide. */
	char *ab[] = { PROF_BIN, f->dbarg, "ab", "--arm", aa[5], "--arm",
		       "y=sleep 0.05", "--rounds", "3", "--warmup", "0", "-e", "task-clock",
		       "--format", "json", NULL };
	p = tu_run(ab, NULL);
	assert_int_equal(p.status, 0);
	c = comparison(p.err, "wall_s");
	assert_non_null(c);
	expect(c, "\"gate_source\": \"A/A experiment 1\"");
	double g = num_after(c, "\"gate_pct\": ");
	assert_true(g > 5);
	expect(c, "\"equivalence_pct\": 1,");
	expect(p.err, "wall_s: the noise gate from A/A experiment 1 is");
	expect(p.err, "nothing is called equivalent beyond ±1%");
	tu_proc_release(&p);
	/* One gate in every view: --by name takes the A/A gate too. */
	char *bn[] = { PROF_BIN, f->dbarg, "compare", "last", "--by", "name", "--format",
		       "json", NULL };
	p = tu_run(bn, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "\"gate_source\": \"A/A experiment 1\"");
	tu_proc_release(&p);
}

/*
 * Issue 25: at load 9.95 on 2 CPUs ab called cores "worse" without a word.
 * With a busy loop on every CPU, the numbers are shown and the verdict
 * is withheld, with the reason, in table and JSON.
 */
static void test_ab__busy_machine_gets_no_verdict(void **state)
{
	struct tu_db *f = *state;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	pid_t hog[64];
	long nh = ncpu < 64 ? ncpu : 64;
	for (long i = 0; i < nh; i++) {
		hog[i] = fork();
		if (hog[i] == 0)
			for (volatile unsigned long k = 0;; k++)
				;
	}
	char *argv[] = { PROF_BIN, f->dbarg, "ab", "--arm", "fast=sleep 0.3", "--arm",
			 "slow=sleep 0.6", "--rounds", "6", "--warmup", "0", "-e",
			 "task-clock", "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	for (long i = 0; i < nh; i++)
		kill(hog[i], SIGKILL);
	for (long i = 0; i < nh; i++)
		waitpid(hog[i], NULL, 0);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	const char *c = comparison(p.err, "wall_s");
	assert_non_null(c);
	expect(c, "\"verdict\": \"inconclusive\"");
	expect(c, "\"machine_busy\": true");
	expect(c, "the numbers alone: worse");
	expect(p.err, "of the machine's CPU time (median over the runs, from /proc/stat");
	assert_null(strstr(p.err, "\"verdict\": \"worse\""));
	assert_null(strstr(p.err, "\"verdict\": \"better\""));
	tu_proc_release(&p);
	char *t[] = { PROF_BIN, f->dbarg, "compare", "last", NULL };
	p = tu_run(t, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "inconclusive (machine busy; the numbers alone: worse)");
	/* the machine's own deltas stand apart from the workload's */
	expect(p.out, " whole machine (every process, other tenants too), judged apart:");
	tu_proc_release(&p);
}

/*
 * Issue 15: sets of runs collected apart (a reboot between them) are
 * tagged by prof run and compared unpaired by prof compare --set, which
 * says the runs were not interleaved.
 */
static void test_ab__compare_sets_of_tagged_runs(void **state)
{
	struct tu_db *f = *state;
	for (int i = 0; i < 8; i++) {
		/* CPU work, not sleeps: a loaded machine delays wake-ups far
		 * more than it changes the CPU time of a fixed job */
		char *argv[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock",
				 "--tag", i % 2 ? "slow" : "quick", "--", "dd",
				 "if=/dev/zero", "of=/dev/null", "bs=1k",
				 i % 2 ? "count=100000" : "count=20000", NULL };
		struct tu_proc p = tu_run(argv, NULL);
		perf_or_skip(&p);
		assert_int_equal(p.status, 0);
		tu_proc_release(&p);
	}
	char *js[] = { PROF_BIN, f->dbarg, "compare", "--set", "before=quick", "--set",
		       "after=slow", "--format", "json", NULL };
	struct tu_proc p = tu_run(js, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "\"interleaved\": false");
	expect(p.out, "\"note\": \"the runs were not interleaved");
	expect(p.out, "\"spec\": \"tag 'quick'\"");
	expect(p.out, "\"runs\": [1, 3, 5, 7]");
	expect(p.out, "\"runs\": [2, 4, 6, 8]");
	/* 5 times the work in each of 4 runs against 4: the permutation p is
	 * its floor, 2 of the 70 splits, and the verdict is worse. */
	const char *c = comparison(p.out, "task-clock");
	assert_non_null(c);
	expect(p.out, "\"arm\": \"after\",\n      \"baseline\": \"before\"");
	expect(c, "\"p_value\": 0.0285714286");
	expect(c, "\"verdict\": \"worse\"");
	double d = num_after(c, "\"delta_pct_mean\": ");
	assert_true(d > 100 && d < 500);
	/* Issue 26: the machine's deltas each run stored are compared too
	 * (every run switches context: stat.ctxt always moves). */
	assert_non_null(comparison(p.out, "system.stat.ctxt"));
	tu_proc_release(&p);
	/* Run lists work too, and people read that the runs were apart. */
	const char *fmts[] = { "table", "markdown" };
	for (int i = 0; i < 2; i++) {
		char *t[] = { PROF_BIN, f->dbarg, "compare", "--set", "A=1,3,5,7", "--set",
			      "B=runs:2-2,4,6,8", "--format", (char *)fmts[i], NULL };
		p = tu_run(t, NULL);
		assert_int_equal(p.status, 0);
		expect(p.out, "two sets of runs, collected apart (not interleaved)");
		expect(p.out, "the runs were not interleaved");
		expect(p.out, "Welch's t on log values");
		expect(p.out, "runs 1,3,5,7");
		expect(p.out, "worse");
		if (!i)
			expect(p.out, "system.stat.ctxt (whole machine; count; lower "
			       "is better)");
		tu_proc_release(&p);
	}
	/* Bad input: a usage error, or a tag nobody used. */
	char *one[] = { PROF_BIN, f->dbarg, "compare", "--set", "A=quick", NULL };
	p = tu_run(one, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "--set goes twice");
	tu_proc_release(&p);
	char *none[] = { PROF_BIN, f->dbarg, "compare", "--set", "A=quick", "--set",
			 "B=nobody", NULL };
	p = tu_run(none, NULL);
	assert_int_equal(p.status, 2);	/* a thing named that does not exist */
	expect(p.err, "no run is tagged 'nobody'");
	expect(p.err, "prof run --tag nobody");
	tu_proc_release(&p);
	char *badtag[] = { PROF_BIN, f->dbarg, "run", "--tag", "12", "--", "true", NULL };
	p = tu_run(badtag, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "bad --tag '12'");
	tu_proc_release(&p);
}

/*
 * Issue 15: --by name gives each counter per thread name per arm, with
 * its own CI and verdict: here dd does twice the work in arm b, while
 * the sleep beside it does the same.
 */
static void test_ab__by_name_gives_each_thread_name_its_verdict(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "ab",
			 "--arm", "a=dd if=/dev/zero of=/dev/null bs=1k count=20000 & sleep 0.05; wait",
			 "--arm", "b=dd if=/dev/zero of=/dev/null bs=1k count=60000 & sleep 0.05; wait",
			 "--rounds", "6", "--warmup", "0", "-e", "task-clock", "--by", "name",
			 "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	expect(p.err, "\"by\": \"name\"");
	const char *dd = strstr(p.err, "\"name\": \"dd\"");
	const char *sl = strstr(p.err, "\"name\": \"sleep\"");
	assert_non_null(dd);
	assert_non_null(sl);
	const char *c = comparison(dd, "task-clock");
	assert_non_null(c);
	expect(c, "\"verdict\": \"worse\"");
	assert_true(num_after(c, "\"delta_pct_mean\": ") > 100);
	/* the whole-run times are not per thread: not in this view */
	assert_null(comparison(p.err, "wall_s"));
	char *json = strdup(strstr(p.err, "{"));
	tu_proc_release(&p);
	/* compare reprints it from the database */
	char *cj[] = { PROF_BIN, f->dbarg, "compare", "last", "--by", "name", "--format",
		       "json", NULL };
	p = tu_run(cj, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, json);
	tu_proc_release(&p);
	free(json);
	const char *fmts[] = { "table", "markdown" };
	for (int i = 0; i < 2; i++) {
		char *t[] = { PROF_BIN, f->dbarg, "compare", "last", "--by", "name",
			      "--format", (char *)fmts[i], NULL };
		p = tu_run(t, NULL);
		assert_int_equal(p.status, 0);
		expect(p.out, "er thread name: each event summed");
		expect(p.out, "dd");
		expect(p.out, "sleep");
		expect(p.out, "worse");
		expect(p.out, "threads per run: dd 1");
		tu_proc_release(&p);
	}
	char *bad[] = { PROF_BIN, f->dbarg, "compare", "last", "--by", "thread", NULL };
	p = tu_run(bad, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "bad --by 'thread'");
	tu_proc_release(&p);
}

/*
 * Issue 15: prof summary reads experiments that share arms, one per
 * scene: per scene the effect and verdict, across them the count, the
 * geometric mean effect with scenes as the unit and a sign test. Six
 * scenes whose new arm prints a higher cost (a score, so no timing noise
 * decides the test): every scene worse, and six of six is the fewest a
 * sign test can call (p = 2/64).
 */
static void test_ab__summary_across_scenes(void **state)
{
	struct tu_db *f = *state;
	for (int s = 0; s < 6; s++) {
		char *base, *next;
		if (asprintf(&base, "base=echo cost %d", 100 + s) < 0 ||
		    asprintf(&next, "new=echo cost %d", 150 + 2 * s) < 0)
			abort();
		char *argv[] = { PROF_BIN, f->dbarg, "ab", "--arm", base, "--arm", next,
				 "--score", "cost=cost ([0-9]+)", "--rounds", "6", "--warmup",
				 "0", "-e", "task-clock", "--format", "json", "-o", "/dev/null",
				 NULL };
		struct tu_proc p = tu_run(argv, NULL);
		perf_or_skip(&p);
		assert_int_equal(p.status, 0);
		tu_proc_release(&p);
		free(base);
		free(next);
	}
	char *md[] = { PROF_BIN, f->dbarg, "summary", "1-6", "--format", "markdown", NULL };
	struct tu_proc p = tu_run(md, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "**prof summary**: `new` against `base` over 6 scenes");
	/* The headline leads with the verdict across scenes and its CI. */
	expect(p.out, "- **cost** across scenes: worse, +");
	expect(p.out, "sign p 0.031; scene by scene: 6 of 6 scenes worse\n");
	expect(p.out, "- **wall_s** across scenes: ");
	expect(p.out, "| cost | 6 | 6 of 6 scenes worse | +");
	expect(p.out, "| 0.031 | worse |");
	expect(p.out, "cost per scene (lower is better):");
	expect(p.out, "| 1 | echo cost 100 | +50.0% [+50.0, +50.0] | 0.031 | worse |");
	expect(p.out, "two-sided sign test");
	tu_proc_release(&p);
	/* A machine's delta says so where it is pasted: its headline and its
	 * row across scenes. */
	char *sys[] = { PROF_BIN, f->dbarg, "summary", "1-6", "--metric",
			"system.stat.ctxt", "--format", "markdown", NULL };
	p = tu_run(sys, NULL);
	assert_int_equal(p.status, 0);
	size_t nsys = 0;
	for (const char *l = strstr(p.out, "system."); l; l = strstr(l + 1, "system.")) {
		const char *bol = l;
		while (bol > p.out && bol[-1] != '\n')
			bol--;
		if (strncmp(bol, "- **", 4) && strncmp(bol, "| ", 2))
			continue;	/* a heading or a warning */
		char *line = strndup(bol, strcspn(bol, "\n"));
		if (!strstr(line, "(whole machine)"))
			fail_msg("a machine's delta not marked: %s", line);
		free(line);
		nsys++;
		l = strchr(l, '\n');
		if (!l)
			break;
	}
	assert_true(nsys >= 2);		/* the headline and the row */
	tu_proc_release(&p);
	char *js[] = { PROF_BIN, f->dbarg, "summary", "1", "2", "3-6", "--format", "json",
		       NULL };
	p = tu_run(js, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "\"experiments\": [1, 2, 3, 4, 5, 6]");
	const char *w = strstr(p.out, "\"metric\": \"cost\"");
	assert_non_null(w);
	expect(w, "\"worse\": 6,");
	expect(w, "\"sign_p\": 0.03125,");
	expect(w, "\"verdict\": \"worse\"");
	double lo = num_after(w, "\"ci95_lo_pct\": ");
	assert_true(lo > 0);
	tu_proc_release(&p);
	/* Three scenes cannot reach p < 0.05 by a sign test (2/8). */
	char *three[] = { PROF_BIN, f->dbarg, "summary", "1-3", NULL };
	p = tu_run(three, NULL);
	assert_int_equal(p.status, 0);
	/* All three worse, yet no claim across scenes: the headline says
	 * so before it counts them. */
	expect(p.out, " cost across scenes: inconclusive (3 scenes cannot reach "
	       "sign-test p < 0.05), +");
	expect(p.out, "scene by scene: 3 of 3 scenes worse\n");
	tu_proc_release(&p);
	/* Issue 25: a scene given twice is not two pieces of evidence. */
	char *dup[] = { PROF_BIN, f->dbarg, "summary", "1,1,1,1,1,1,1,1", NULL };
	p = tu_run(dup, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "experiment 1 is given more than once");
	assert_int_equal(strlen(p.out), 0);
	tu_proc_release(&p);
	char *dup2[] = { PROF_BIN, f->dbarg, "summary", "5", "6", "last", NULL };
	p = tu_run(dup2, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "experiment 6 is given more than once");
	tu_proc_release(&p);
	char *badarm[] = { PROF_BIN, f->dbarg, "summary", "1-6", "--arm", "other", NULL };
	p = tu_run(badarm, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "experiment 1 has no arm 'other'");
	tu_proc_release(&p);
	char *badm[] = { PROF_BIN, f->dbarg, "summary", "1-6", "--metric", "nope", NULL };
	p = tu_run(badm, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "--metric 'nope' is not a metric of every experiment");
	tu_proc_release(&p);
	char *none[] = { PROF_BIN, f->dbarg, "summary", "7", NULL };
	p = tu_run(none, NULL);
	assert_int_not_equal(p.status, 0);
	tu_proc_release(&p);
}

/*
 * Issue 17: the machine's deltas are metrics of an experiment (page
 * faults by the whole machine move in every run, so the comparison is
 * always there), and an arm whose runs' stored settings differ from the
 * baseline's is flagged by `prof compare EXP`, once per setting. The
 * setting is changed in the database, as no test can change this
 * machine's THP mode between arms.
 */
static void test_ab__machine_deltas_and_settings_between_arms(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "ab", "--arm", "A=true", "--arm",
			 "B=true", "--rounds", "2", "--warmup", "0", "-e", "task-clock",
			 "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	const char *c = comparison(p.err, "system.vmstat.pgfault");
	if (!c)
		fail_msg("no system.vmstat.pgfault comparison in:\n%s", p.err);
	expect(p.err, "\"system.vmstat.pgfault\": {");
	assert_null(strstr(p.err, "set up differently"));
	tu_proc_release(&p);

	/* ABBA over 2 rounds: runs 1 and 4 are A's, 2 and 3 B's. */
	sqlite3 *db;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE run_env SET value = 'fake-mode' "
				      "WHERE key = 'thp' AND run_id IN (2, 3)",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_changes(db), 2);
	sqlite3_close(db);
	char *cmp[] = { PROF_BIN, f->dbarg, "compare", "last", NULL };
	p = tu_run(cmp, NULL);
	assert_int_equal(p.status, 0);
	expect(p.err, "warning: runs 1 and 2 ran on a machine set up differently");
	expect(p.err, "'fake-mode' in run 2");
	/* once: the setting, not every pair of runs */
	const char *first = strstr(p.err, "thp: ");
	assert_non_null(first);
	assert_null(strstr(first + 1, "thp: "));
	expect(p.out, "system.vmstat.pgfault");
	tu_proc_release(&p);
}

/* One number the database holds, read as the tests' own reader. */
static long long db_int(const char *path, const char *sql)
{
	sqlite3 *h;
	long long v = -1;
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(h, 2000);
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW)
				v = sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
		}
	}
	sqlite3_close(h);
	return v;
}

/*
 * Issue 25: an experiment whose prof was SIGKILLed stayed "running" for
 * ever. Killed after its first runs, it reads as stopped with its runs
 * counted, and the next command that writes marks it so in the file.
 */
static void test_ab__killed_prof_leaves_a_stopped_experiment(void **state)
{
	struct tu_db *f = *state;
	pid_t prof = fork();
	assert_true(prof >= 0);
	if (prof == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execl(PROF_BIN, PROF_BIN, f->dbarg, "ab", "--arm", "a=sleep 0.05", "--arm",
		      "b=sleep 0.05", "--rounds", "500", "--warmup", "0", "-e",
		      "task-clock", (char *)NULL);
		_exit(127);
	}
	long long runs = 0;
	for (int i = 0; i < 500 && runs < 2; i++) {
		struct timespec ts = { 0, 20000000 };
		nanosleep(&ts, NULL);
		runs = db_int(f->path, "SELECT count(*) FROM experiment_runs");
	}
	kill(prof, SIGKILL);
	waitpid(prof, NULL, 0);
	assert_true(runs >= 2);
	runs = db_int(f->path, "SELECT count(*) FROM experiment_runs");
	assert_int_equal(db_int(f->path, "SELECT status = 'running' FROM experiments"), 1);

	char *cmp[] = { PROF_BIN, f->dbarg, "compare", "last", NULL };
	struct tu_proc p = tu_run(cmp, NULL);
	expect(p.out, "stopped");
	char want[128];
	snprintf(want, sizeof(want), "prof ended without finishing it (killed, or its "
		 "machine restarted): %lld runs stored", runs);
	expect(p.out, want);
	tu_proc_release(&p);

	char *run[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock", "--", "true",
			NULL };
	p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	assert_int_equal(db_int(f->path, "SELECT status = 'stopped' AND finished IS NOT"
				" NULL FROM experiments"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ab__slower_arm_is_worse_with_a_ci_excluding_zero, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__same_command_twice_is_not_better_or_worse, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__two_rounds_never_call_better_or_worse, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__arms_run_through_a_shell_unless_no_shell, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__failed_arm_tail_is_text, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__abba_order_is_stored, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__scores_and_compare_reprint_the_same_numbers, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__missing_score_and_failed_runs_are_left_out, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__a_slow_score_search_is_cut_short, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__frame_scores_per_arm, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__bad_input_exits_2, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__plan_that_is_no_file_is_refused, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__ctrl_c_between_runs_keeps_the_rounds,
						setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__ctrl_c_keeps_the_finished_rounds, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__sigterm_and_sighup_exit_143_and_129, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__gate_comes_from_the_latest_aa, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__every_score_counts, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__counts_of_zero_are_compared, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__aa_json_has_no_verdicts_and_a_wide_gate_is_said, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__compare_sets_of_tagged_runs, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__by_name_gives_each_thread_name_its_verdict, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__summary_across_scenes, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__machine_deltas_and_settings_between_arms, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__busy_machine_gets_no_verdict, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_ab__killed_prof_leaves_a_stopped_experiment, setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
