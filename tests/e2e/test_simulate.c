/*
 * End-to-end tests of prof run --simulate (issue 28): the workload runs
 * under valgrind's callgrind and each thread gets the simulated counters.
 * They are a model's, so two runs of a program that does the same work
 * give the same counts, to the last one (threads that contend do not:
 * valgrind runs them one at a time and where it switches varies, by
 * 0.01% of icount's threads here); threads alive together get their own
 * rows;
 * a chase over 1 MiB misses a 256 KiB LL far more often than a 32 MiB
 * one; threads get rows of their own under their own names; what cannot
 * be simulated (no valgrind, a bad --cache, hardware events asked
 * besides) is refused, and a program valgrind cannot run is not stored
 * as if counted; threads that shared a valgrind slot are not guessed
 * apart. Skipped where valgrind is not installed
 * (scripts/install-deps installs it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

static bool have_valgrind(void)
{
	return access("/usr/bin/valgrind", X_OK) == 0 ||
	       access("/usr/local/bin/valgrind", X_OK) == 0;
}

static void need(struct tu_db *f)
{
	if (!have_valgrind()) {
		fprintf(stderr, "skip: valgrind is not installed\n");
		skip();
	}
	if (!tu_perf_allowed(f->dbarg))
		skip();
}

/* The number of "KEY": N after the first occurrence of from in s. */
static long long json_num(const char *s, const char *from, const char *key)
{
	const char *p = from ? strstr(s, from) : s;
	if (!p)
		return -1;
	char k[64];
	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(p, k);
	return p ? atoll(p + strlen(k)) : -1;
}

/* prof run --simulate [--cache SPEC] --by total --format json -- cmd...,
 * its JSON. */
static char *sim_json(struct tu_db *f, const char *cache, char *const *cmd)
{
	char *argv[24] = { PROF_BIN, f->dbarg, "run", "--simulate", "--by", "total",
			   "--format", "json" };
	size_t k = 8;
	if (cache) {
		argv[k++] = "--cache";
		argv[k++] = (char *)cache;
	}
	argv[k++] = "--";
	for (size_t i = 0; cmd[i] && k < 23; i++)
		argv[k++] = cmd[i];
	argv[k] = NULL;
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status)
		fail_msg("prof run --simulate: exit %d\n%s", p.status, p.err);
	char *json = strdup(p.err);
	tu_proc_release(&p);
	return json;
}

/* A one-thread program that does the same work each time (2 MiB of
 * straight-line code run 20 times; its output never changes) gets the
 * same counts every run, to the last one. */
static void test_simulate__the_same_every_run(void **state)
{
	struct tu_db *f = *state;
	need(f);
	char *cmd[] = { HELPERS_DIR "/codefoot_small", NULL };
	char *a = sim_json(f, NULL, cmd), *b = sim_json(f, NULL, cmd);
	static const char *const evs[] = { "instructions", "l1i-misses", "l1d-misses",
					   "llc-misses", "branch-misses", "cycles" };
	for (size_t i = 0; i < sizeof(evs) / sizeof(*evs); i++) {
		long long va = json_num(a, "\"totals\"", evs[i]);
		long long vb = json_num(b, "\"totals\"", evs[i]);
		if (va <= 0 || va != vb)
			fail_msg("%s: %lld then %lld\n%s", evs[i], va, vb, a);
	}
	/* 2 MiB of code run 20 times: each pass misses a 32 KiB L1i on
	 * every line (32,768 lines a pass) */
	long long l1i = json_num(a, "\"totals\"", "l1i-misses");
	if (l1i < 20 * 32768 || l1i > 22 * 32768)
		fail_msg("l1i-misses %lld for 20 passes over 2 MiB of code\n%s", l1i, a);
	assert_non_null(strstr(a, "\"counter_source\": \"simulated\""));
	assert_non_null(strstr(a, "\"sim.model\": \"valgrind "));
	free(a);
	free(b);
}

/* simthreads: three threads held alive together to their end (so each
 * keeps a valgrind slot of its own), running 1, 2 and 3 units of one
 * loop: each its own row, in those proportions. (icount's threads are
 * not held: one that ends before the next starts hands its slot on, as
 * valgrind schedules them, and then only the totals have them.) */
static void test_simulate__threads_get_their_own_counts(void **state)
{
	struct tu_db *f = *state;
	need(f);
	char *argv[] = { PROF_BIN, f->dbarg, "run", "--simulate", "--format", "csv", "--",
			 HELPERS_DIR "/simthreads", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status)
		fail_msg("exit %d\n%s", p.status, p.err);
	long long v[3];
	for (int k = 0; k < 3; k++) {
		char key[32];
		snprintf(key, sizeof(key), ",sim%d,instructions,", k + 1);
		const char *s = strstr(p.err, key);
		if (!s)
			fail_msg("no row for sim%d:\n%s", k + 1, p.err);
		v[k] = atoll(s + strlen(key));
	}
	for (int k = 1; k < 3; k++) {
		double r = (double)v[k] / (double)v[0];
		if (v[0] <= 0 || r < (k + 1) * 0.97 || r > (k + 1) * 1.03)
			fail_msg("sim%d ran %lld instructions, sim1 %lld: %.3f, not %d", k + 1,
				 v[k], v[0], r, k + 1);
	}
	tu_proc_release(&p);
}

/* chase KIB 1 under --cache SPEC: its totals' JSON. */
static char *chase(struct tu_db *f, const char *cache, const char *kib)
{
	char *cmd[] = { HELPERS_DIR "/chase", (char *)kib, "1", NULL };
	return sim_json(f, cache, cmd);
}

/* The LL's size is the question: 1 MiB of lines misses a 256 KiB LL on
 * nearly every load, and a 32 MiB one only while it is first touched. */
static void test_simulate__the_cache_asked_is_the_cache_simulated(void **state)
{
	struct tu_db *f = *state;
	need(f);
	char *small = chase(f, "LL=256K:16:64", "1024"), *large = chase(f, "LL=32M:16:64", "1024");
	long long s = json_num(small, "\"totals\"", "llc-misses");
	long long l = json_num(large, "\"totals\"", "llc-misses");
	if (s < 800000 || l > 100000)
		fail_msg("llc-misses: %lld with 256 KiB, %lld with 32 MiB", s, l);
	assert_non_null(strstr(small, "LL 256 KiB 16-way (--cache)"));
	free(small);
	free(large);
}

/* The comparison of metric in ab's JSON: its object's text (to the next
 * '}'), malloc'd, or NULL. */
static char *comparison(const char *json, const char *metric)
{
	char k[96];
	snprintf(k, sizeof(k), "\"metric\": \"%s\"", metric);
	const char *p = strstr(json, "\"comparisons\"");
	p = p ? strstr(p, k) : NULL;
	const char *e = p ? strchr(p, '}') : NULL;
	return p && e ? strndup(p, (size_t)(e - p)) : NULL;
}

/*
 * prof ab --simulate: the simulated metrics are judged from the arms'
 * medians against their own spread between rounds, busy machine or not.
 * A chase over 1 MiB misses a 256 KiB LL on nearly every load, one over
 * 128 KiB almost never: llc-misses worse, deterministically; their code
 * is the same, so l1i-misses equivalent. wall_s keeps its statistics.
 */
static void test_simulate__ab_judges_simulated_metrics_from_few_rounds(void **state)
{
	struct tu_db *f = *state;
	need(f);
	char *out;
	if (asprintf(&out, "%s/ab.json", f->dir) < 0)
		abort();
	char *argv[] = { PROF_BIN, f->dbarg, "ab", "-q", "--simulate",
			 "--cache", "LL=256K:16:64", "--warmup", "0", "--rounds", "2",
			 "--arm", "small=" HELPERS_DIR "/chase 128 1",
			 "--arm", "large=" HELPERS_DIR "/chase 1024 1",
			 "--format", "json", "-o", out, NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status)
		fail_msg("prof ab --simulate: exit %d\n%s", p.status, p.err);
	tu_proc_release(&p);
	char *json = tu_slurp(out);
	assert_non_null(json);
	char *llc = comparison(json, "llc-misses"), *l1i = comparison(json, "l1i-misses");
	char *wall = comparison(json, "wall_s");
	assert_non_null(llc);
	assert_non_null(l1i);
	assert_non_null(wall);
	fprintf(stderr, "%s\n%s\n", llc, l1i);
	assert_non_null(strstr(llc, "\"verdict\": \"worse\""));
	assert_non_null(strstr(llc, "\"deterministic\": true"));
	assert_true(json_num(llc, NULL, "delta_pct_mean") > 1000);
	assert_non_null(strstr(l1i, "\"verdict\": \"equivalent\""));
	/* simulated counts repeat: their spread between rounds is tiny */
	const char *sp = strstr(llc, "\"deterministic_spread_pct\": ");
	assert_non_null(sp);
	assert_true(strtod(sp + strlen("\"deterministic_spread_pct\": "), NULL) < 0.1);
	assert_non_null(strstr(wall, "\"deterministic\": false"));
	assert_non_null(strstr(json, "\"arms\""));
	free(llc);
	free(l1i);
	free(wall);
	free(json);
	char *cmp[] = { PROF_BIN, f->dbarg, "compare", "last", NULL };
	p = tu_run(cmp, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "worse (simulated: "));
	tu_proc_release(&p);
	free(out);

	/* What --simulate cannot take is refused before any run. */
	const char *bad[][3] = {
		{ "--cache", "LL=1M", "--cache sets the caches --simulate simulates" },
		{ "-e", "cycles", "-e takes software events only" },
		{ "--window", "1:2", "--simulate gives each run's totals" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool sim = i > 0;
		char *b[] = { PROF_BIN, f->dbarg, "ab", (char *)bad[i][0], (char *)bad[i][1],
			      "--arm", "a=/bin/true", "--arm", "b=/bin/true",
			      sim ? "--simulate" : NULL, NULL };
		p = tu_run(b, NULL);
		assert_int_equal(p.status, 2);
		if (!strstr(p.err, bad[i][2]))
			fail_msg("ab %s %s said:\n%s", bad[i][0], bad[i][1], p.err);
		tu_proc_release(&p);
	}
}

/*
 * prof record --simulate: each function's own costs in the model are
 * stored as weighted samples, so the by-symbol report says where the
 * misses fall. chase over 2 MiB against a 1 MiB last level misses in
 * its walk, which is main: nearly all the model's LL misses are main's,
 * and their sum over the functions is the thread's simulated count.
 */
static void test_simulate__record_puts_the_misses_on_functions(void **state)
{
	struct tu_db *f = *state;
	need(f);
	char *argv[] = { PROF_BIN, f->dbarg, "record", "-q", "--simulate", "--cache",
			 "LL=1M:16:64", "--", HELPERS_DIR "/chase", "2048", "1", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status)
		fail_msg("prof record --simulate: exit %d\n%s", p.status, p.err);
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "last", "--by", "symbol",
			"--event", "llc-misses", "--limit", "0", "--format", "json", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	const char *first = strstr(p.out, "\"rows\": [");
	assert_non_null(first);
	assert_non_null(strstr(first, "\"symbol\": \"main\""));
	assert_true(strstr(first, "\"symbol\": \"main\"") < strstr(first, "}"));
	const char *pct = strstr(first, "\"self_pct\": ");
	double self = strtod(pct + strlen("\"self_pct\": "), NULL);
	fprintf(stderr, "record --simulate: main has %.2f%% of the LL misses\n", self);
	assert_true(self > 90);
	tu_proc_release(&p);
	/* The counts of the run: the thread's simulated total, which the
	 * functions' costs add up to (callgrind's totals line). */
	char *run[] = { PROF_BIN, f->dbarg, "report", "last", "--by", "total",
			"--format", "json", NULL };
	p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	assert_true(json_num(p.out, "\"totals\"", "llc-misses") > 500000);
	assert_non_null(strstr(p.out, "a sample is one function's own cost"));
	tu_proc_release(&p);

	const char *bad[][3] = {
		{ "-e", "cycles", "--simulate does not go with -e" },
		{ "--freq", "99", "--simulate does not go with --freq" },
	};
	for (size_t i = 0; i < 2; i++) {
		char *b[] = { PROF_BIN, f->dbarg, "record", "--simulate", (char *)bad[i][0],
			      (char *)bad[i][1], "--", "/bin/true", NULL };
		p = tu_run(b, NULL);
		assert_int_equal(p.status, 2);
		assert_non_null(strstr(p.err, bad[i][2]));
		tu_proc_release(&p);
	}
	char *nocache[] = { PROF_BIN, f->dbarg, "record", "--cache", "LL=1M", "--",
			    "/bin/true", NULL };
	p = tu_run(nocache, NULL);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "give --simulate too"));
	tu_proc_release(&p);
}

/*
 * Threads that run one after another (churn 3) share one valgrind slot,
 * so one profile holds all three: their counts are in the totals, said
 * in a note, and never put on one of them as if its own. The main
 * thread's are its own.
 */
static void test_simulate__threads_in_one_slot_are_not_guessed(void **state)
{
	struct tu_db *f = *state;
	need(f);
	char *argv[] = { PROF_BIN, f->dbarg, "run", "--simulate", "--format", "csv", "--",
			 HELPERS_DIR "/churn", "3", "200000", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status)
		fail_msg("exit %d\n%s", p.status, p.err);
	/* rows of the long CSV: run_id,tid,name,event,value,status,... */
	size_t counted = 0, absent = 0;
	for (const char *s = p.err; (s = strstr(s, ",instructions,")); s++) {
		const char *v = s + strlen(",instructions,");
		if (*v == ',')
			absent++;
		else
			counted++;
	}
	if (counted != 1 || absent != 3)
		fail_msg("%zu threads with instructions, %zu without:\n%s", counted, absent,
			 p.err);
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "last", "--by", "total", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "are in the totals only"));
	tu_proc_release(&p);
}

static void test_simulate__what_cannot_be_simulated_is_refused(void **state)
{
	struct tu_db *f = *state;
	char *bad_cache[] = { PROF_BIN, f->dbarg, "run", "--simulate", "--cache", "LL=7", "--",
			      "true", NULL };
	struct tu_proc p = tu_run(bad_cache, NULL);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "must be a multiple of the line"));
	tu_proc_release(&p);
	char *hw[] = { PROF_BIN, f->dbarg, "run", "--simulate", "-e", "instructions", "--",
		       "true", NULL };
	p = tu_run(hw, NULL);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "-e takes software events only"));
	tu_proc_release(&p);
	char *cache_alone[] = { PROF_BIN, f->dbarg, "run", "--cache", "LL=32M", "--", "true",
				NULL };
	p = tu_run(cache_alone, NULL);
	assert_int_equal(p.status, 2);
	tu_proc_release(&p);
	/* no valgrind in $PATH: how to get it */
	char *none[] = { PROF_BIN, f->dbarg, "run", "--simulate", "--", "/bin/true", NULL };
	char *env[] = { "PATH=/nonexistent", NULL };
	p = tu_run(none, env);
	assert_int_equal(p.status, 1);
	assert_non_null(strstr(p.err, "apt-get install valgrind"));
	tu_proc_release(&p);
	assert_null(tu_slurp(f->path));	/* nothing stored: no file */
}

/* A program valgrind refuses to run: its reason, and no run stored. */
static void test_simulate__unrunnable_program_is_not_stored(void **state)
{
	struct tu_db *f = *state;
	need(f);
	char *dir = tu_tmpdir(), *prog;
	assert_true(asprintf(&prog, "%s/otherarch", dir) > 0);
	/* an ELF header for another machine than this one's (no tool of
	 * valgrind's runs it): EM_AARCH64 on x86-64, EM_X86_64 on arm64 */
	unsigned char h[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	h[16] = 2;	/* ET_EXEC */
#if defined(__aarch64__)
	h[18] = 62;
#else
	h[18] = 183;
#endif
	h[20] = 1;	/* EV_CURRENT */
	h[52] = 64;	/* e_ehsize */
	h[54] = 56;	/* e_phentsize */
	FILE *fp = fopen(prog, "wb");
	fwrite(h, 1, sizeof(h), fp);
	fclose(fp);
	chmod(prog, 0755);
	char *argv[] = { PROF_BIN, f->dbarg, "run", "--simulate", "--", prog, NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status == 0 || !strstr(p.err, "valgrind did not simulate the workload"))
		fail_msg("exit %d\n%s", p.status, p.err);
	tu_proc_release(&p);
	char *runs[] = { PROF_BIN, f->dbarg, "runs", "--format", "csv", NULL };
	p = tu_run(runs, NULL);
	assert_null(strstr(p.out, "otherarch"));
	tu_proc_release(&p);
	tu_rmrf(dir);
	free(dir);
	free(prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_simulate__the_same_every_run,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_simulate__threads_get_their_own_counts,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_simulate__the_cache_asked_is_the_cache_simulated,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_simulate__ab_judges_simulated_metrics_from_few_rounds,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_simulate__record_puts_the_misses_on_functions,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_simulate__threads_in_one_slot_are_not_guessed,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_simulate__what_cannot_be_simulated_is_refused,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_simulate__unrunnable_program_is_not_stored,
						tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
