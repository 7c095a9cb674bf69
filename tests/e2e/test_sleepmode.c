/*
 * End-to-end tests of `prof run --sleep-mode`: the interposer is really
 * preloaded and serves the workload's sleeps, its per-thread report is
 * stored and shown, and every bad input stops before the workload runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "test_util.h"


static void expect(const char *out, const char *needle)
{
	if (!strstr(out, needle) && !tu_has_prose(out, needle))
		fail_msg("expected %s in:\n%s", needle, out);
}

/* The last run as prof report shows it in JSON, read from the store. */
static struct tu_proc last_run_json(const struct tu_db *f)
{
	char *argv[] = { PROF_BIN, f->dbarg, "report", "last", "--format",
			 "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	return p;
}

/* The integer after "key": in the JSON at s. */
static long long json_ll(const char *s, const char *key)
{
	char *k;
	assert_true(asprintf(&k, "\"%s\": ", key) > 0);
	const char *at = strstr(s, k);
	if (!at)
		fail_msg("no %s in:\n%s", k, s);
	long long v = atoll(at + strlen(k));
	free(k);
	return v;
}

static void test_sleepmode__serves_and_reports_each_thread(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock",
			 "--sleep-mode", "timerfd,threshold=500", "--",
			 HELPERS_DIR "/sleep_workload", "threads", "3", "300", "40", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status)
		fail_msg("exit %d:\n%s", p.status, p.err);
	expect(p.err, "sleeps under 500 us served as timerfd");
	expect(p.err, ": applied (1 process)");
	tu_proc_release(&p);
	/* Stored: prof report shows it again, per thread, in JSON. */
	p = last_run_json(f);
	const char *s = strstr(p.out, "\"sleep\": {");
	assert_non_null(s);
	expect(s, "\"mode\": \"timerfd\"");
	expect(s, "\"threshold_us\": 500");
	expect(s, "\"status\": \"applied\"");
	/* Three sleeper threads, 300 sleeps of 40 us each, all served. */
	int served = 0;
	for (const char *q = s; (q = strstr(q, "\"served\": 300,")); q++)
		served++;
	assert_int_equal(served, 3);
	expect(s, "\"requested_us_log2\": \"6:300\"");	/* 40 us: [32, 64) */
	tu_proc_release(&p);
}

static void test_sleepmode__long_sleeps_pass_through(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	/* 2 ms sleeps over a 1 ms threshold: passed through, not served. */
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock",
			 "--sleep-mode", "spin", "--", HELPERS_DIR "/sleep_workload",
			 "loop", "20", "2000", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	p = last_run_json(f);
	expect(p.out, "\"served\": 0,");
	expect(p.out, "\"passed\": 20,");
	tu_proc_release(&p);
}

static void test_sleepmode__fallback_never_credited_to_the_mode(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	/* The workload holds every descriptor, so no timerfd can be made:
	 * clock_nanosleep serves its 40 sleeps, and the run must say so. */
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock",
			 "--sleep-mode", "timerfd", "--",
			 HELPERS_DIR "/sleep_workload", "nofds", "40", "40", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "exhausted=1");
	expect(p.err, "sleeps under 1000 us served as timerfd for 0 of 40 calls");
	expect(p.err, "served 40: 0 by timerfd, 40 by clock_nanosleep (no "
	       "timerfd: too many open files)");
	tu_proc_release(&p);
	p = last_run_json(f);
	expect(p.out, "\"fallback\": 40,");
	expect(p.out, "\"served_by_mode\": 0,");
	expect(p.out, "\"served_by_clock_nanosleep\": 40");
	tu_proc_release(&p);
}

static void test_sleepmode__spinner_cap_default_and_none(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	/* Unset: the default cap is stated with the CPUs it came from. */
	char *a1[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock",
		       "--sleep-mode", "spin", "--", HELPERS_DIR "/sleep_workload",
		       "loop", "5", "50", NULL };
	struct tu_proc p = tu_run(a1, NULL);
	assert_int_equal(p.status, 0);
	expect(p.err, "spinning at once (default: a quarter of the workload's ");
	expect(p.err, "at least 1; no serial-chain exemption)");
	tu_proc_release(&p);
	/* 0: no cap (it was refused as out of range). */
	char *a2[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock",
		       "--sleep-mode", "spin,max-spinners=0", "--",
		       HELPERS_DIR "/sleep_workload", "loop", "5", "50", NULL };
	p = tu_run(a2, NULL);
	assert_int_equal(p.status, 0);
	expect(p.err, "served as spin, no cap on spinning threads: applied");
	tu_proc_release(&p);
	p = last_run_json(f);
	expect(p.out, "\"max_spinners\": null,");
	expect(p.out, "\"max_spinners_default\": false,");
	tu_proc_release(&p);
}

/* Condvar timed waits are served, stored and shown apart from the
 * sleeps, saying what served them. */
static void test_sleepmode__condvar_waits_reported_apart(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock",
			 "--sleep-mode", "hybrid:20,threshold=2000", "--",
			 HELPERS_DIR "/sleep_workload", "cvmix", "40", "200", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "timedout=40\n");
	/* the sleeps' line and table count the 40 sleeps alone */
	expect(p.err, "sleeps under 2000 us served as hybrid:20");
	expect(p.err, " 40       0      0         0 ");
	expect(p.err, "\n condvar waits under 2000 us: ");
	expect(p.err, " served by timer slack 1 ns under mode hybrid:20, ");
	expect(p.err, "hybrid:20 in its place would lose signals");
	expect(p.err, "  woken  ");	/* beside "timed out", which may take two lines */
	expect(p.err, "  timed");
	tu_proc_release(&p);
	p = last_run_json(f);
	expect(p.out, "\"condvar_served_by\": \"timer slack 1 ns\"");
	expect(p.out, "\"served_by_mode\": 40,");
	expect(p.out, "\"condvar\": {\n");
	expect(p.out, "\"woken\": 0,\n");
	/* every served wait timed out: served equals timed_out, and the
	 * served and passed make 40 */
	const char *c = strstr(p.out, "\"condvar\": {");
	long long served = json_ll(c, "served");
	assert_int_equal(served + json_ll(c, "passed"), 40);
	assert_int_equal(json_ll(c, "timed_out"), served);
	tu_proc_release(&p);
}

static void test_sleepmode__bad_input_stops_before_running(void **state)
{
	struct tu_db *f = *state;
	struct {
		const char *mode;
		const char *msg;
	} cases[] = {
		{ "warp", "warp" },
		{ "timerfd,threshold=-5", "-5" },
		{ "timerfd,threshold=2000000", "2000000" },
		{ "spin,max-spinners=4097", "max-spinners" },
		{ "timerfd,colour=red", "colour=red" },
		{ "condvar", "condvar" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { PROF_BIN, f->dbarg, "run", "--sleep-mode",
				 (char *)cases[i].mode, "--", "/bin/true", NULL };
		struct tu_proc p = tu_run(argv, NULL);
		if (p.status != 2 || !strstr(p.err, cases[i].msg))
			fail_msg("%s: status %d:\n%s", cases[i].mode, p.status, p.err);
		tu_proc_release(&p);
	}
	char *a2[] = { PROF_BIN, f->dbarg, "run", "--sleep-mode", "timerfd", "-p", "1",
		       NULL };
	struct tu_proc p = tu_run(a2, NULL);
	assert_int_equal(p.status, 2);
	tu_proc_release(&p);

	/* The interposer missing: prof says where it looked, exits 1, and
	 * runs nothing. */
	char *a3[] = { PROF_BIN, f->dbarg, "run", "--sleep-mode", "timerfd", "--",
		       "/bin/true", NULL };
	char *env[] = { "PROF_SLEEP_LIB=/nonexistent/libprof-sleep.so", NULL };
	p = tu_run(a3, env);
	assert_int_equal(p.status, 1);
	expect(p.err, "the sleep interposer is not at PROF_SLEEP_LIB='/nonexistent/");
	tu_proc_release(&p);
	char *copy;
	assert_true(asprintf(&copy, "cp '%s' '%s/prof'", PROF_BIN, f->dir) > 0);
	assert_int_equal(system(copy), 0);
	free(copy);
	char *alone;
	assert_true(asprintf(&alone, "%s/prof", f->dir) > 0);
	char *a4[] = { alone, f->dbarg, "run", "--sleep-mode", "timerfd", "--",
		       "/bin/true", NULL };
	p = tu_run(a4, NULL);
	assert_int_equal(p.status, 1);
	expect(p.err, "libprof-sleep.so is missing: looked in ");
	expect(p.err, f->dir);
	tu_proc_release(&p);
	free(alone);

	/* nothing was stored: not even the database file was made */
	char *r[] = { PROF_BIN, f->dbarg, "runs", "--format", "csv", NULL };
	p = tu_run(r, NULL);
	assert_int_equal(p.status, 1);
	expect(p.err, "error: no database at '");
	tu_proc_release(&p);
}

static void test_sleepmode__static_workload_is_not_preloaded(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *src, *bin, *cmd;
	assert_true(asprintf(&src, "%s/s.c", f->dir) > 0);
	assert_true(asprintf(&bin, "%s/static_sleeper", f->dir) > 0);
	FILE *fp = fopen(src, "w");
	fputs("#include <time.h>\nint main(void){struct timespec t={0,30000};"
	      "for(int i=0;i<10;i++)nanosleep(&t,0);return 0;}\n", fp);
	fclose(fp);
	assert_true(asprintf(&cmd, "cc -static -o '%s' '%s' 2>/dev/null", bin, src) > 0);
	int built = system(cmd);
	free(cmd);
	if (built != 0) {
		fprintf(stderr, "skipping: this machine cannot link static programs\n");
		free(src);
		free(bin);
		skip();
	}
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock", "--sleep-mode",
			 "timerfd", "--", bin, NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	expect(p.err, "is statically linked");
	expect(p.err, "not applied");
	tu_proc_release(&p);

	/* Behind a shell, which takes the preload: the report said
	 * "applied ... no thread slept". The program that never loaded the
	 * interposer is named, and the mode was only partly applied. */
	char *line;
	assert_true(asprintf(&line, "'%s'; true", bin) > 0);
	char *sh[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock", "--sleep-mode",
		       "timerfd", "--", "/bin/sh", "-c", line, NULL };
	p = tu_run(sh, NULL);
	assert_int_equal(p.status, 0);
	expect(p.err, "warning: --sleep-mode: 'static_sleeper' (pid ");
	expect(p.err, "never loaded the interposer: statically linked");
	expect(p.err, "served as timerfd: partly applied: ");
	if (strstr(p.err, "timerfd: applied"))
		fail_msg("said applied:\n%s", p.err);
	tu_proc_release(&p);

	/* A shell running a dynamic program: every program loaded it. */
	char *dyn[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock", "--sleep-mode",
			"timerfd", "--", "/bin/sh", "-c",
			HELPERS_DIR "/sleep_workload loop 10 30; true", NULL };
	p = tu_run(dyn, NULL);
	assert_int_equal(p.status, 0);
	expect(p.err, "served as timerfd: applied (2 processes)");
	assert_null(strstr(p.err, "never loaded"));
	tu_proc_release(&p);
	free(line);
	free(src);
	free(bin);
}

/* LD_PRELOAD splits its list at spaces and colons, so prof installed in a
 * directory named with either used to preload nothing: the workload ran
 * with its own sleeps and ld.so complained. It works from there, and
 * leaves nothing behind in $TMPDIR. */
static void test_sleepmode__install_path_with_space_or_colon(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	static const char *const names[] = { "with space", "co:lon" };
	char *tmp, *tmpenv;
	if (asprintf(&tmp, "%s/tmp", f->dir) < 0 || asprintf(&tmpenv, "TMPDIR=%s", tmp) < 0)
		abort();
	assert_int_equal(mkdir(tmp, 0700), 0);
	for (size_t i = 0; i < 2; i++) {
		char *dir, *cmd, *prof;
		if (asprintf(&dir, "%s/%s", f->dir, names[i]) < 0 ||
		    asprintf(&prof, "%s/prof", dir) < 0 ||
		    asprintf(&cmd, "mkdir '%s' && cp '%s' \"$(dirname '%s')/libprof-sleep.so\" '%s/'",
			     dir, PROF_BIN, PROF_BIN, dir) < 0)
			abort();
		assert_int_equal(system(cmd), 0);
		char *argv[] = { prof, f->dbarg, "run", "-e", "task-clock", "--sleep-mode",
				 "timerfd,threshold=500", "--", HELPERS_DIR "/sleep_workload",
				 "threads", "1", "50", "40", NULL };
		char *env[] = { tmpenv, NULL };
		struct tu_proc p = tu_run(argv, env);
		if (p.status != 0 || !strstr(p.err, ": applied (1 process)") ||
		    strstr(p.err, "cannot be preloaded"))
			fail_msg("%s: status %d, stderr:\n%s", names[i], p.status, p.err);
		tu_proc_release(&p);
		/* the private link is gone with the run */
		char *ls;
		if (asprintf(&ls, "test -z \"$(ls -A '%s')\"", tmp) < 0)
			abort();
		assert_int_equal(system(ls), 0);
		free(ls);
		/* where no link can be made, prof says so and runs nothing */
		char *noenv[] = { "TMPDIR=/proc", NULL };
		p = tu_run(argv, noenv);
		if (p.status != 1 || !strstr(p.err, "cannot preload the sleep interposer") ||
		    !strstr(p.err, "hint: install prof where its path has neither"))
			fail_msg("%s, TMPDIR=/proc: status %d, stderr:\n%s", names[i],
				 p.status, p.err);
		tu_proc_release(&p);
		free(dir);
		free(cmd);
		free(prof);
	}
	free(tmp);
	free(tmpenv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sleepmode__serves_and_reports_each_thread, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleepmode__long_sleeps_pass_through, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleepmode__fallback_never_credited_to_the_mode, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleepmode__spinner_cap_default_and_none, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleepmode__condvar_waits_reported_apart, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleepmode__bad_input_stops_before_running, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleepmode__static_workload_is_not_preloaded, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleepmode__install_path_with_space_or_colon, tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
