/*
 * End-to-end tests of `prof sleep`: a short benchmark (two modes, one
 * duration, 200 calls) runs, prints the JSON of shared/DESIGN.md, shows
 * progress on stderr, is stored as a run of kind "sleep" that `prof
 * report` prints again; hybrid without a margin prints the calibrated
 * one; --pin pins prof; and every bad input exits 2 naming the value,
 * before anything runs or is stored. (Named test_sleep_verb: the
 * collector's tests are already test_sleep.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "test_util.h"

static void expect(const char *out, const char *needle)
{
	if (!strstr(out, needle))
		fail_msg("expected '%s' in:\n%s", needle, out);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* The number after "key": in the text starting at p. */
static long long num_after(const char *p, const char *key)
{
	const char *q = strstr(p, key);
	if (!q)
		fail_msg("no %s in:\n%s", key, p);
	return atoll(q + strlen(key));
}

static void test_sleep_verb__short_run_json_stored_and_reported(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "sleep", "--modes", "spin,timerfd",
			 "--durations", "50", "--calls", "200", "--format", "json",
			 NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status)
		fail_msg("exit %d:\n%s", p.status, p.err);
	/* The contract's keys, per result, in its order. */
	expect(p.out, "\"run_id\": 1,");
	expect(p.out, "\"kind\": \"sleep\"");
	expect(p.out, "\"timer_slack_ns\": ");
	expect(p.out, "\"sched_policy\": \"SCHED_");
	expect(p.out, "\"clocksource\": ");
	expect(p.out, "\"pattern\": \"oneshot\"");
	expect(p.out, "\"load\": 0");
	expect(p.out, "\"hybrid\": null");
	assert_int_equal(count(p.out, "\"overshoot_us\": {"), 2);
	expect(p.out, "\"mode\": \"spin\",\n      \"margin_us\": null,\n"
	       "      \"target_us\": 50,\n      \"calls\": 200,\n"
	       "      \"overshoot_us\": {\n        \"p50\": ");
	expect(p.out, "\"mode\": \"timerfd\",\n      \"margin_us\": null,\n"
	       "      \"target_us\": 50,\n      \"calls\": 200,\n");
	const char *keys[] = { "\"p90\": ", "\"p99\": ", "\"p999\": ", "\"max\": ",
			       "\"buckets\": {\n        \"lt3\": ", "\"lt10\": ",
			       "\"lt25\": ", "\"lt50\": ", "\"ge50\": ",
			       "\"cpu_pct\": ", "\"cpu_us_per_call\": ",
			       "\"vcsw_per_call\": ", "\"ivcsw_per_call\": " };
	/* Count within `results`, not the `cheapest` list after it. */
	const char *rs = strstr(p.out, "\"results\": ["),
		   *re = strstr(p.out, "\"cheapest_p99_us\"");
	assert_non_null(rs);
	assert_non_null(re);
	char *results = strndup(rs, (size_t)(re - rs));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (count(results, keys[i]) != 2)
			fail_msg("%s %zu times in:\n%s", keys[i],
				 count(results, keys[i]), results);
	free(results);
	/* Each cell's buckets sum to its calls. */
	for (const char *r = strstr(p.out, "\"buckets\""); r;
	     r = strstr(r + 1, "\"buckets\"")) {
		long long sum = num_after(r, "\"lt3\": ") + num_after(r, "\"lt10\": ") +
				num_after(r, "\"lt25\": ") + num_after(r, "\"lt50\": ") +
				num_after(r, "\"ge50\": ");
		assert_int_equal(sum, 200);
	}
	/* Spinning to a deadline burns about the whole target in CPU:
	 * well over 10 us of a 50 us sleep even when preempted. */
	const char *spin = strstr(p.out, "\"mode\": \"spin\"");
	assert_true(num_after(spin, "\"cpu_us_per_call\": ") >= 10);
	expect(p.out, "\"cheapest\": [\n    {\n      \"target_us\": 50,");
	/* Progress on stderr, plain lines when it is not a terminal. */
	expect(p.err, "prof: 2 cells of 200 calls on 1 thread, about ");
	expect(p.err, "prof: cell 1 of 2: spin 50 us, p50 ");
	expect(p.err, "prof: cell 2 of 2: timerfd 50 us, p50 ");
	assert_null(strchr(p.err, '\r'));
	expect(p.err, "prof: stored as run 1;");
	char *json = strdup(p.out), *json_doc = strdup(p.out);
	tu_proc_release(&p);

	/* Stored as a run of kind sleep... */
	char *runs[] = { PROF_BIN, f->dbarg, "runs", NULL };
	p = tu_run(runs, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "  sleep  ");
	expect(p.out, "prof sleep --modes spin,timerfd --durations 50 --calls 200"
	       " --format json\n");
	tu_proc_release(&p);

	/* ...which `prof report` prints again, the same JSON. */
	char *rep[] = { PROF_BIN, f->dbarg, "report", "1", "--format", "json", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	const char *a = strstr(json, "\"results\""), *b = strstr(p.out, "\"results\"");
	assert_non_null(b);
	assert_string_equal(a, b);
	tu_proc_release(&p);
	free(json);

	char *tab[] = { PROF_BIN, f->dbarg, "report", "last", NULL };
	p = tu_run(tab, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, " prof sleep (run 1): 2 modes x 1 duration, 200 calls per "
	       "cell on 1 thread, oneshot, no load;");
	expect(p.out, " spin ");
	expect(p.out, " timerfd ");
	expect(p.out, " cheapest with p99 overshoot under 10 us: 50 us ");
	tu_proc_release(&p);

	/* Issue 26: the machine's settings and deltas are stored with the
	 * run, as every run's are ("none stored" a minute after it before),
	 * and JSON names the governor (null without cpufreq, as on a VM). */
	expect(json_doc, "\"governor\": ");
	free(json_doc);
	char *env[] = { PROF_BIN, f->dbarg, "report", "1", "--env", NULL };
	p = tu_run(env, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, " kernel ");
	if (strstr(p.out, "none stored"))
		fail_msg("no settings stored:\n%s", p.out);
	tu_proc_release(&p);
	/* and what the machine did: 400 sleeps switch context */
	char *sys[] = { PROF_BIN, f->dbarg, "report", "1", "--system", "--format", "json",
			NULL };
	p = tu_run(sys, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "stat.ctxt");
	tu_proc_release(&p);
}

static void test_sleep_verb__table_to_stdout_or_file(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "sleep", "--modes", "clock-abs",
			 "--durations", "20,40", "--calls", "100", "--pattern",
			 "periodic", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, " periodic, no load;");
	expect(p.out, " clock-abs ");
	/* One row per duration, then the cheapest line, last. */
	assert_int_equal(count(p.out, " clock-abs "), 2);
	expect(p.out, "cheapest with p99 overshoot under 10 us: 20 us ");
	expect(p.out, ", 40 us ");
	assert_null(strstr(p.out, "prof: cell"));	/* progress is stderr's */
	tu_proc_release(&p);

	char *out;
	assert_true(asprintf(&out, "%s/sleep.txt", f->dir) > 0);
	char *argo[] = { PROF_BIN, f->dbarg, "sleep", "--modes", "yield",
			 "--durations", "20", "--calls", "50", "--no-store", "-o",
			 out, NULL };
	p = tu_run(argo, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, "");
	assert_null(strstr(p.err, "stored as run"));
	char *text = tu_slurp(out);
	assert_non_null(text);
	expect(text, " prof sleep: 1 mode x 1 duration, 50 calls per cell");
	expect(text, " yield ");
	free(text);
	free(out);
	tu_proc_release(&p);
	/* CSV: a line of keys, then one line per cell. */
	char *argc_[] = { PROF_BIN, f->dbarg, "sleep", "--modes", "yield",
			  "--durations", "20", "--calls", "50", "--no-store",
			  "--format", "csv", NULL };
	p = tu_run(argc_, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "mode,margin_us,target_us,calls,");
	expect(p.out, "\nyield,,20,50,");
	assert_int_equal(count(p.out, "\n"), 2);
	tu_proc_release(&p);
	/* --no-store stored nothing: run 1 is still the periodic one. */
	char *rep[] = { PROF_BIN, f->dbarg, "report", "last", NULL };
	p = tu_run(rep, NULL);
	expect(p.out, "(run 1)");
	expect(p.out, " clock-abs ");
	tu_proc_release(&p);
}

static void test_sleep_verb__hybrid_calibrates_and_says_so(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "sleep", "--modes", "hybrid,hybrid:7",
			 "--durations", "20", "--calls", "100", "--format", "json",
			 NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	expect(p.err, "prof: hybrid margin ");
	expect(p.err, " us, calibrated: timerfd p99.9 overshoot ");
	expect(p.out, "\"hybrid\": {\n    \"margin_us\": ");
	expect(p.out, "\"calibrated\": true,");
	/* The calibrated margin is capped at 100 us (collectors/sleep.h). */
	const char *m = strstr(p.out, "\"margin_us\": ");
	double margin = atof(m + strlen("\"margin_us\": "));
	assert_true(margin >= 2.0 && margin <= 100.0);
	/* The given margin is kept as given, on its own cell. */
	expect(p.out, "\"mode\": \"hybrid\",\n      \"margin_us\": 7,\n");
	tu_proc_release(&p);
}

static void test_sleep_verb__pin_applies_to_prof_itself(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "sleep", "--pin", "cpus:0", "--modes",
			 "timerfd", "--durations", "30", "--calls", "50",
			 "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	expect(p.err, "prof: pinned to CPU 0 (cpus:0)\n");
	expect(p.out, "\"pin\": {\n    \"mode\": \"cpus:0\",\n    \"status\": "
	       "\"applied\",\n    \"cpus\": [0]\n  }");
	tu_proc_release(&p);
}

static void test_sleep_verb__bad_input_exits_2_naming_it(void **state)
{
	struct tu_db *f = *state;
	struct {
		const char *opt, *val, *says;
	} bad[] = {
		{ "--modes", "warp", "unknown sleep mode 'warp'" },
		{ "--modes", "spin,passthrough", "mode 'passthrough' cannot be benchmarked" },
		{ "--modes", "hybrid:lots", "bad hybrid margin 'lots'" },
		{ "--durations", "-5", "bad duration '-5'" },
		{ "--durations", "10,0", "bad duration '0': out of range" },
		{ "--durations", "5000000", "bad duration '5000000': out of range" },
		{ "--calls", "0", "bad --calls '0': expected a whole number from 1 to 10000000" },
		{ "--calls", "100000000000", "bad --calls '100000000000'" },
		{ "--threads", "0", "bad --threads '0': expected a whole number from 1 to 1024" },
		{ "--threads", "100000", "bad --threads '100000'" },
		{ "--load", "-1", "bad --load '-1'" },
		{ "--pattern", "sometimes", "unknown sleep pattern 'sometimes'" },
		{ "--format", "folded", "unknown format 'folded'" },
		{ "--pin", "warp", "unknown pin mode 'warp'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { PROF_BIN, f->dbarg, "sleep", (char *)bad[i].opt,
				 (char *)bad[i].val, "--calls", "10", NULL };
		if (!strcmp(bad[i].opt, "--calls"))
			argv[5] = NULL;
		struct tu_proc p = tu_run(argv, NULL);
		if (p.status != 2)
			fail_msg("%s %s: exit %d, expected 2:\n%s", bad[i].opt,
				 bad[i].val, p.status, p.err);
		expect(p.err, "error: ");
		expect(p.err, bad[i].says);
		assert_null(strstr(p.err, "prof: cell"));
		assert_string_equal(p.out, "");
		tu_proc_release(&p);
	}
	/* More samples in one cell than the engine holds: also a usage error,
	 * found before any cell runs. */
	char *big[] = { PROF_BIN, f->dbarg, "sleep", "--calls", "10000000",
			"--threads", "11", NULL };
	struct tu_proc p = tu_run(big, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "too many samples");
	tu_proc_release(&p);
	/* Nothing was stored by any of them. */
	char *runs[] = { PROF_BIN, f->dbarg, "runs", "--format", "json", NULL };
	p = tu_run(runs, NULL);
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.out, "\"run_id\""));
	tu_proc_release(&p);
}

static void test_sleep_verb__unwritable_database_fails_before_running(void **state)
{
	(void)state;
	char *argv[] = { PROF_BIN, "--db=/proc/no-such-dir/prof.db", "sleep",
			 "--modes", "spin", "--durations", "10", "--calls", "10", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 1);
	expect(p.err, "error: cannot open database '/proc/no-such-dir/prof.db'");
	expect(p.err, "hint: --no-store");
	assert_null(strstr(p.err, "prof: cell"));
	tu_proc_release(&p);
	/* With --no-store the same command runs. */
	char *ns[] = { PROF_BIN, "--db=/proc/no-such-dir/prof.db", "sleep",
		       "--no-store", "--modes", "spin", "--durations", "10",
		       "--calls", "10", NULL };
	p = tu_run(ns, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, " spin ");
	tu_proc_release(&p);
}

/* Seconds on CLOCK_MONOTONIC. */
/*
 * prof sleep with stdout and stderr in f->dir/out and f->dir/err; once
 * stderr holds `after`, the signals in sigs (0-terminated), one after
 * the other.
 * Returns the wait status; *took the seconds from the first signal to
 * the exit.
 */
static int sleep_signalled(struct tu_db *f, char *const args[], const char *after,
			   const int *sigs, double *took)
{
	char outp[4096], errp[4096];
	snprintf(outp, sizeof(outp), "%s/out", f->dir);
	snprintf(errp, sizeof(errp), "%s/err", f->dir);
	char *argv[32] = { PROF_BIN, f->dbarg, "sleep" };
	int n = 3;
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(o, 1);
		dup2(e, 2);
		execv(PROF_BIN, argv);
		_exit(127);
	}
	char *err = NULL;
	for (int i = 0; i < 1000; i++) {
		free(err);
		err = tu_slurp(errp);
		if (err && strstr(err, after))
			break;
		usleep(10000);
	}
	if (!err || !strstr(err, after))
		fail_msg("no '%s' on stderr:\n%s", after, err ? err : "");
	free(err);
	double t0 = tu_now_s();
	for (int i = 0; sigs[i]; i++)
		kill(pid, sigs[i]);
	int st;
	waitpid(pid, &st, 0);
	*took = tu_now_s() - t0;
	return st;
}

/*
 * SIGTERM stops at once, not when the cell under way ends (this one
 * would run 40 s: 400 calls of 100 ms): the cell is dropped, the one
 * finished before is printed and stored, marked interrupted, and prof
 * exits 143 (128 + SIGTERM).
 */
static void test_sleep_verb__sigterm_stops_within_the_cell(void **state)
{
	struct tu_db *f = *state;
	char *args[] = { "--modes", "clock-abs", "--durations", "1,100000",
			 "--calls", "400", "--format", "json", NULL };
	const int sigs[] = { SIGTERM, 0 };
	double took;
	int st = sleep_signalled(f, args, "cell 1 of 2", sigs, &took);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 143);
	if (took > 3)
		fail_msg("prof sleep took %.1f s to stop after SIGTERM", took);
	char path[4096];
	snprintf(path, sizeof(path), "%s/err", f->dir);
	char *err = tu_slurp(path);
	snprintf(path, sizeof(path), "%s/out", f->dir);
	char *out = tu_slurp(path);
	expect(err, "prof: interrupted after 1 of 2 cells");
	expect(err, "prof: stored as run 1;");
	expect(out, "\"interrupted\": true,");
	assert_int_equal(count(out, "\"overshoot_us\""), 1);
	free(err);
	free(out);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "1", NULL };
	struct tu_proc p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "interrupted before the end");
	tu_proc_release(&p);
}

/*
 * A second signal right after the first (an impatient Ctrl-C, or kill
 * after it) does not kill prof before the finished cells are stored: the
 * exit is still 128 + the first signal.
 */
static void test_sleep_verb__second_signal_loses_nothing(void **state)
{
	struct tu_db *f = *state;
	char *args[] = { "--modes", "spin", "--durations", "1,100000",
			 "--calls", "400", "--format", "json", NULL };
	const int sigs[] = { SIGINT, SIGTERM, 0 };
	double took;
	int st = sleep_signalled(f, args, "cell 1 of 2", sigs, &took);
	if (!WIFEXITED(st))
		fail_msg("prof sleep was killed by signal %d after %.2f s",
			 WTERMSIG(st), took);
	/* Both may be pending at once, and either handled first. */
	if (WEXITSTATUS(st) != 130 && WEXITSTATUS(st) != 143)
		fail_msg("prof sleep exited %d, not 128 + a signal",
			 WEXITSTATUS(st));
	char path[4096];
	snprintf(path, sizeof(path), "%s/out", f->dir);
	char *out = tu_slurp(path);
	expect(out, "\"interrupted\": true,");
	free(out);
	char *rep[] = { PROF_BIN, f->dbarg, "runs", "--format", "json", NULL };
	struct tu_proc p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "\"run_id\": 1,");
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sleep_verb__short_run_json_stored_and_reported, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_verb__table_to_stdout_or_file, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_verb__hybrid_calibrates_and_says_so, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_verb__pin_applies_to_prof_itself, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_verb__bad_input_exits_2_naming_it, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_verb__unwritable_database_fails_before_running, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_verb__sigterm_stops_within_the_cell, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_verb__second_signal_loses_nothing, tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
