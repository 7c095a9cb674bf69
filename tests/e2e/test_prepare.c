/*
 * End-to-end tests of --prepare and --cleanup (issue 26): a shell command
 * before and after every measured run of prof run -r N, prof ab and prof
 * pressure, run outside what is counted and timed. Each test's commands
 * log what ran to a file in a directory of its own, so the order is
 * checked (prepare, workload, cleanup, each run), and the workload checks
 * a marker that only the prepare makes. A prepare that sleeps 0.3 s and
 * spins a shell loop leaves each run's wall time and task-clock far below
 * it. A failing prepare stops with one error line naming the command and
 * its status; what was stored before stays. prof pressure is tested on
 * the fixture resctrl tree (--method cat, any CPU model) and, where this
 * machine has a cache domain two CPUs share, with its co-runner.
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
#include <time.h>
#include <unistd.h>

#include "test_util.h"

/* The prepare each timing test uses: 0.3 s asleep, then a shell loop
 * that spins (tens of ms of CPU or more), then the marker and the log. */
#define SLOW_PREPARE \
	"sleep 0.3; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; " \
	"touch marker; echo p >> log"

struct fx {
	struct tu_db *db;
	char *dir;	/* the commands' working directory */
	char *cwd;	/* the test's own, restored after */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->db = tu_db_new("prepare.db");
	f->dir = tu_tmpdir();
	f->cwd = getcwd(NULL, 0);
	if (chdir(f->dir) != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (chdir(f->cwd) != 0)
		return -1;
	tu_rmrf(f->dir);
	free(f->dir);
	free(f->cwd);
	tu_db_free(f->db);
	free(f);
	return 0;
}

static void perf_or_skip(struct tu_proc *p)
{
	if (p->status != 0 && strstr(p->err, "cannot open perf events")) {
		tu_proc_release(p);
		skip();
	}
}

/* The log the commands wrote, one letter a line, as one string. */
static char *read_log(void)
{
	char *s = tu_slurp("log");
	if (!s)
		return strdup("");
	size_t j = 0;
	for (size_t i = 0; s[i]; i++)
		if (s[i] != '\n')
			s[j++] = s[i];
	s[j] = '\0';
	return s;
}

/* The number after `key` in the object that follows `name` in text. */
static double num_in(const char *text, const char *name, const char *key)
{
	const char *at = strstr(text, name);
	if (!at)
		fail_msg("no %s in:\n%.2000s", name, text);
	const char *k = strstr(at, key);
	if (!k)
		fail_msg("no %s after %s in:\n%.2000s", key, name, text);
	return atof(k + strlen(key));
}

/*
 * prof run -r 3: the prepare runs before each run and the cleanup after
 * it (the log reads pwc three times), the workload sees the prepare's
 * marker (it exits 1 without it) and the cleanup removed the last one.
 * The prepare's 0.3 s and its loop are in no run: each run's wall time
 * stays below 0.25 s and its task-clock below 100 ms, while prof took
 * the three prepares' 0.9 s and more.
 */
static void test_prepare__run_repeated_before_and_after_each_run(void **state)
{
	struct fx *f = *state;
	char *argv[] = { PROF_BIN, f->db->dbarg, "run", "-r", "3", "-e", "task-clock",
			 "--format", "json", "--prepare", SLOW_PREPARE,
			 "--cleanup", "rm marker; echo c >> log",
			 "--", "sh", "-c", "test -f marker && echo w >> log", NULL };
	double t0 = tu_now_s();
	struct tu_proc p = tu_run(argv, NULL);
	double took = tu_now_s() - t0;
	perf_or_skip(&p);
	if (p.status != 0)
		fail_msg("status %d:\n%s", p.status, p.err);
	char *log = read_log();
	assert_string_equal(log, "pwcpwcpwc");
	free(log);
	assert_int_not_equal(access("marker", F_OK), 0);
	assert_true(took >= 0.9);
	assert_true(num_in(p.err, "\"wall_s\"", "\"n\": ") == 3);
	assert_non_null(strstr(p.err, "\"prepare\": \"sleep 0.3;"));
	assert_non_null(strstr(p.err, "\"cleanup\": \"rm marker; echo c >> log\""));
	double wall = num_in(p.err, "\"wall_s\"", "\"max\": ");
	double tc_ns = num_in(p.err, "\"task-clock\"", "\"max\": ");
	if (wall >= 0.25 || tc_ns >= 100e6)
		fail_msg("the prepare was counted: wall max %.3f s, task-clock max "
			 "%.1f ms", wall, tc_ns / 1e6);
	tu_proc_release(&p);

	/* Stored with each run's settings. */
	char *show[] = { PROF_BIN, f->db->dbarg, "report", "1", "--format", "json", NULL };
	p = tu_run(show, NULL);
	assert_int_equal(p.status, 0);
	if (!strstr(p.out, "\"prepare\": \"sleep 0.3;") ||
	    !strstr(p.out, "\"cleanup\": \"rm marker; echo c >> log\""))
		fail_msg("no prepare and cleanup in the run's settings:\n%.3000s", p.out);
	tu_proc_release(&p);
}

/*
 * A prepare that fails on the second run: prof stops before that run
 * with one error line naming the command and its status, exits 1, and
 * the first run stays stored; the workload never ran a second time.
 */
static void test_prepare__run_failing_prepare_stops_before_the_run(void **state)
{
	struct fx *f = *state;
	char *argv[] = { PROF_BIN, f->db->dbarg, "run", "-r", "3", "-e", "task-clock",
			 "-q", "--prepare", "test ! -f once || exit 4; touch once",
			 "--", "sh", "-c", "echo w >> log", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 1);
	const char *e = strstr(p.err, "error: prepare command 'test ! -f once || "
			       "exit 4; touch once' exited with status 4; the run "
			       "was not measured\n");
	if (!e)
		fail_msg("no clear error:\n%s", p.err);
	char *log = read_log();
	assert_string_equal(log, "w");
	free(log);
	tu_proc_release(&p);

	char *runs[] = { PROF_BIN, f->db->dbarg, "runs", "--format", "json", NULL };
	p = tu_run(runs, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "\"run_id\": 1"));
	assert_null(strstr(p.out, "\"run_id\": 2"));
	tu_proc_release(&p);
}

/* A cleanup that fails is a warning; the run stands, with its status. */
static void test_prepare__run_failing_cleanup_warns(void **state)
{
	struct fx *f = *state;
	char *argv[] = { PROF_BIN, f->db->dbarg, "run", "-e", "task-clock",
			 "--cleanup", "exit 6", "--", "true", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 0);
	if (!strstr(p.err, "warning: cleanup command 'exit 6' exited with status 6"))
		fail_msg("no warning:\n%s", p.err);
	tu_proc_release(&p);
}

/* With -p there is nothing to prepare: a usage error. */
static void test_prepare__run_attach_refuses_prepare(void **state)
{
	struct fx *f = *state;
	char pid[32];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	char *argv[] = { PROF_BIN, f->db->dbarg, "run", "-p", pid, "--prepare",
			 "true", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "--prepare and --cleanup go with a launched"));
	tu_proc_release(&p);
}

/*
 * prof ab: --prepare for every arm and --set b.prepare for b alone (it
 * wins), --cleanup after every run. ABBA over two rounds: a's runs log
 * p a c, b's q b c; b's workload fails where a's marker is left. a's runs
 * stay far below its slow prepare, and the report's header lists each
 * arm's commands.
 */
static void test_prepare__ab_per_arm_prepare_and_cleanup(void **state)
{
	struct fx *f = *state;
	char *argv[] = { PROF_BIN, f->db->dbarg, "ab", "--rounds", "2", "--warmup", "0",
			 "-e", "task-clock", "--format", "json",
			 "--prepare", SLOW_PREPARE,
			 "--cleanup", "rm -f marker mb; echo c >> log",
			 "--arm", "a=test -f marker && echo a >> log",
			 "--arm", "b=test -f mb && test ! -f marker && echo b >> log",
			 "--set", "b.prepare=touch mb; echo q >> log", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	if (p.status != 0)
		fail_msg("status %d:\n%s", p.status, p.err);
	char *log = read_log();
	assert_string_equal(log, "pacqbcqbcpac");
	free(log);
	const char *arm_a = strstr(p.err, "\"name\": \"a\"");
	assert_non_null(arm_a);
	double wall = num_in(arm_a, "\"wall_s\"", "\"max\": ");
	double tc_ns = num_in(arm_a, "\"task-clock\"", "\"max\": ");
	if (wall >= 0.25 || tc_ns >= 100e6)
		fail_msg("the prepare was counted: wall max %.3f s, task-clock max "
			 "%.1f ms", wall, tc_ns / 1e6);
	tu_proc_release(&p);

	char *show[] = { PROF_BIN, f->db->dbarg, "compare", "1", NULL };
	p = tu_run(show, NULL);
	assert_int_equal(p.status, 0);
	const char *b = strstr(p.out, "   b: ");
	if (!b || !strstr(b, "     prepare = touch mb; echo q >> log\n") ||
	    !strstr(p.out, "     prepare = sleep 0.3;") ||
	    !strstr(p.out, "     cleanup = rm -f marker mb; echo c >> log\n"))
		fail_msg("the header does not list the commands:\n%.2000s", p.out);
	tu_proc_release(&p);
}

/*
 * A prepare that fails is a failed run: one error line, b's workload
 * never runs, the experiment stops after the round (exit 1) with a's run
 * stored; with --keep-going every round runs, each b saying so.
 */
static void test_prepare__ab_failing_prepare_is_a_failed_run(void **state)
{
	struct fx *f = *state;
	char *argv[] = { PROF_BIN, f->db->dbarg, "ab", "--rounds", "2", "--warmup", "0",
			 "-e", "task-clock", "--arm", "a=echo a >> log",
			 "--arm", "b=echo b >> log", "--set", "b.prepare=exit 5", NULL, NULL };
	struct tu_proc p = tu_run(argv, NULL);
	perf_or_skip(&p);
	assert_int_equal(p.status, 1);
	const char *line = "error: arm 'b': prepare command 'exit 5' exited with "
			   "status 5; the run was not measured\n";
	const char *e = strstr(p.err, line);
	if (!e || strstr(e + 1, line))
		fail_msg("not one clear error:\n%s", p.err);
	assert_non_null(strstr(p.err, "stopped after round 1: a run failed"));
	char *log = read_log();
	assert_string_equal(log, "a");
	free(log);
	tu_proc_release(&p);

	/* Stored: a's run, and no other (the report exits 1 for b, whose
	 * arm has no run to compare). */
	char *show[] = { PROF_BIN, f->db->dbarg, "compare", "1", "--format", "json", NULL };
	p = tu_run(show, NULL);
	if (!strstr(p.out, "{\"run_id\": 1, \"arm\": \"a\"") ||
	    strstr(p.out, "\"run_id\": 2"))
		fail_msg("the schedule is not a's one run:\n%.2000s", p.out);
	tu_proc_release(&p);

	unlink("log");
	argv[sizeof(argv) / sizeof(argv[0]) - 2] = "--keep-going";
	p = tu_run(argv, NULL);
	e = strstr(p.err, line);
	if (!e || !strstr(e + 1, line))
		fail_msg("not an error for each of b's runs:\n%s", p.err);
	log = read_log();
	assert_string_equal(log, "aa");
	free(log);
	tu_proc_release(&p);
}

/* A copy of the fixture resctrl tree (an AMD L3 with 16 ways) in the
 * test's directory, for --method cat: no co-runner, any CPU model. */
static char *resctrl_copy(void)
{
	char *cmd;
	if (asprintf(&cmd, "mkdir resctrl && cp -r '%s/resctrl/amd-l3/.' resctrl",
		     FIXTURES_DIR) < 0)
		abort();
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return "resctrl";
}

/* The largest "wall_s": in text, or -1 without one. */
static double max_wall(const char *text, int *n)
{
	double max = -1;
	*n = 0;
	for (const char *at = strstr(text, "\"wall_s\": "); at;
	     at = strstr(at + 1, "\"wall_s\": ")) {
		double v = atof(at + strlen("\"wall_s\": "));
		max = v > max ? v : max;
		(*n)++;
	}
	return max;
}

/*
 * prof pressure (--method cat on the fixture): the prepare before each of
 * the three runs (the control, step 0 and half the ways) and the cleanup
 * after; no run's wall time holds the prepare's 0.3 s, and the header names both.
 */
static void test_pressure__prepare_and_cleanup_every_run(void **state)
{
	struct fx *f = *state;
	if (!tu_perf_allowed(f->db->dbarg))
		skip();
	char *argv[] = { PROF_BIN, f->db->dbarg, "pressure", "--method", "cat",
			 "--sysfs", FIXTURES_DIR "/sysfs/sym-2ccd", "--resctrl",
			 resctrl_copy(), "--rounds", "1", "--warmup", "0", "--steps", "0,1/2",
			 "-e", "task-clock", "--prepare", SLOW_PREPARE,
			 "--cleanup", "rm marker; echo c >> log",
			 "--", "sh", "-c", "test -f marker && echo w >> log", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status != 0)
		fail_msg("status %d:\n%s", p.status, p.err);
	char *log = read_log();
	assert_string_equal(log, "pwcpwcpwc");
	free(log);
	if (!strstr(p.err, " prepare: 'sleep 0.3;") ||
	    !strstr(p.err, " cleanup: 'rm marker; echo c >> log'\n"))
		fail_msg("the header does not name the commands:\n%s", p.err);
	tu_proc_release(&p);

	char *runs[] = { PROF_BIN, f->db->dbarg, "runs", "--all", "--format", "json", NULL };
	p = tu_run(runs, NULL);
	assert_int_equal(p.status, 0);
	int n;
	double wall = max_wall(p.out, &n);
	/* The three, and tu_perf_allowed's run of /bin/true. */
	if (n != 4)
		fail_msg("not 3 runs:\n%s", p.out);
	if (wall >= 0.25)
		fail_msg("the prepare was timed: wall max %.3f s", wall);
	tu_proc_release(&p);
}

/* A failing prepare stops the experiment before that run, saying so. */
static void test_pressure__failing_prepare_stops(void **state)
{
	struct fx *f = *state;
	if (!tu_perf_allowed(f->db->dbarg))
		skip();
	char *argv[] = { PROF_BIN, f->db->dbarg, "pressure", "--method", "cat",
			 "--sysfs", FIXTURES_DIR "/sysfs/sym-2ccd", "--resctrl",
			 resctrl_copy(), "--rounds", "1", "--warmup", "0", "--steps", "0,1/2",
			 "-e", "task-clock", "--prepare", "exit 7",
			 "--", "sh", "-c", "echo w >> log", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 1);
	if (!strstr(p.err, "error: workload 'sh': prepare command 'exit 7' exited "
		    "with status 7; the run was not measured\n"))
		fail_msg("no clear error:\n%s", p.err);
	char *log = read_log();
	assert_string_equal(log, "");
	free(log);
	tu_proc_release(&p);
}

/*
 * With the co-runner (--method pirate, on this machine's own cache
 * domain): its window is the run's, so its duty (its walking time over
 * the run's wall time) stays near 1 and does not take in the prepare's
 * 0.3 s (which would make it over 10). Skipped where the machine has no
 * domain that two CPUs share.
 */
static void test_pressure__corunner_window_leaves_out_the_prepare(void **state)
{
	struct fx *f = *state;
	if (!tu_perf_allowed(f->db->dbarg))
		skip();
	char *argv[] = { PROF_BIN, f->db->dbarg, "pressure", "--rounds", "1",
			 "--warmup", "0", "--steps", "0,1/8", "-e", "task-clock",
			 "--format", "json", "--prepare", SLOW_PREPARE,
			 "--", "sh", "-c", "test -f marker && echo w >> log", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status == 1 && !strstr(p.err, "prepare")) {
		fprintf(stderr, "skipped: prof pressure cannot run here:\n%s", p.err);
		tu_proc_release(&p);
		skip();
	}
	if (p.status != 0)
		fail_msg("status %d:\n%s", p.status, p.err);
	int n = 0;
	for (const char *at = strstr(p.err, "\"corunner_duty\": "); at;
	     at = strstr(at + 1, "\"corunner_duty\": ")) {
		double duty = atof(at + strlen("\"corunner_duty\": "));
		if (duty > 2)
			fail_msg("the co-runner's window took in the prepare: duty "
				 "%.2f\n%s", duty, p.err);
		n++;
	}
	assert_true(n > 0);
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_prepare__run_repeated_before_and_after_each_run, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_prepare__run_failing_prepare_stops_before_the_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prepare__run_failing_cleanup_warns,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_prepare__run_attach_refuses_prepare,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_prepare__ab_per_arm_prepare_and_cleanup,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_prepare__ab_failing_prepare_is_a_failed_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pressure__prepare_and_cleanup_every_run,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_pressure__failing_prepare_stops,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_pressure__corunner_window_leaves_out_the_prepare, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
