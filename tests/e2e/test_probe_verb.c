/*
 * End-to-end tests of `prof probe` (named test_probe_verb: the collector's
 * tests are already test_probe): a short probe prints the JSON of
 * shared/DESIGN.md (a latency curve in size order, the four mission
 * counters each expected, measured and graded: "not supported" on a
 * machine without a PMU), is stored as a run of kind "probe" that `prof
 * report` prints again, the same; the table and CSV; and every bad input
 * exits 2 naming the value, before anything is measured or stored. The
 * assertions are about structure, never about timing: what the knees come
 * out as is reports/probe's tests' business, on recorded curves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

/* A fake sysfs whose last level is a 1 MiB L2: the counted chase is then
 * 64 MiB, whatever the machine running the tests has. */
#define SMALL_SYSFS FIXTURES_DIR "/sysfs/no-l3"


static void expect(const char *out, const char *needle)
{
	if (!strstr(out, needle))
		fail_msg("expected '%s' in:\n%s", needle, out);
}

/* Whether the kernel shows a core PMU (x86 cpu, hybrid cpu_core, arm). */
static bool have_pmu(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while ((e = readdir(d)))
		found = found || !strcmp(e->d_name, "cpu") ||
			!strcmp(e->d_name, "cpu_core") ||
			!strncmp(e->d_name, "armv8", 5);
	closedir(d);
	return found;
}

/* The text of the JSON list after "key": [ up to its closing bracket at
 * the same indent (two spaces, as the writer puts top-level keys). */
static char *list_of(const char *json, const char *key)
{
	char *open;
	assert_true(asprintf(&open, "\n  \"%s\": [", key) > 0);
	const char *s = strstr(json, open);
	if (!s)
		fail_msg("no %s list in:\n%s", key, json);
	const char *e = strstr(s, "\n  ]");
	assert_non_null(e);
	free(open);
	return strndup(s, (size_t)(e - s));
}

static void test_probe_verb__json_stored_and_reported(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "probe", "--max", "1M", "--ms", "2",
			 "--sysfs", SMALL_SYSFS, "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status)
		fail_msg("exit %d:\n%s", p.status, p.err);
	expect(p.out, "\"run_id\": 1,");
	expect(p.out, "\"kind\": \"probe\"");
	expect(p.out, "\"sysfs\": {\n    \"l1d_bytes\": 65536,");
	expect(p.out, "\"llc_bytes\": 1048576,");

	/* The curve: 16 KiB to 1 MiB, two sizes a doubling, in order. */
	char *lat = list_of(p.out, "latency");
	const uint64_t want[] = { 16384, 24576, 32768, 49152, 65536, 98304, 131072,
				  196608, 262144, 393216, 524288, 786432, 1048576 };
	const char *q = lat;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		q = strstr(q, "{\"bytes\": ");
		if (!q)
			fail_msg("point %zu missing in:\n%s", i, lat);
		q += strlen("{\"bytes\": ");
		assert_int_equal(strtoull(q, NULL, 10), want[i]);
		const char *ns = strstr(q, "\"ns\": ");
		assert_non_null(ns);
		assert_true(strtod(ns + 6, NULL) > 0);
	}
	assert_null(strstr(q, "{\"bytes\": "));
	free(lat);

	/* The four mission counters, in order, each with the contract's keys. */
	char *cs = list_of(p.out, "counters");
	const char *names[] = { "llc-misses", "itlb-misses", "l1i-misses",
				"branch-misses" };
	const char *c = cs;
	bool pmu = have_pmu();
	for (size_t i = 0; i < 4; i++) {
		char *name;
		assert_true(asprintf(&name, "\"name\": \"%s\",\n      \"expected\": ",
				     names[i]) > 0);
		c = strstr(c, name);
		if (!c)
			fail_msg("no %s (in order) in:\n%s", names[i], cs);
		c += strlen(name);
		assert_true(strtod(c, NULL) > 0);
		expect(c, "\"measured\": ");
		const char *g = strstr(c, "\"grade\": \"");
		assert_non_null(g);
		g += strlen("\"grade\": \"");
		if (!pmu) {
			if (strncmp(g, "not supported\"", 14))
				fail_msg("%s graded %.20s without a PMU", names[i], g);
		} else if (strncmp(g, "plausible\"", 10) && strncmp(g, "implausible\"", 12) &&
			   strncmp(g, "multiplexed\"", 12) &&
			   strncmp(g, "not supported\"", 14)) {
			fail_msg("%s graded %.20s", names[i], g);
		}
		free(name);
	}
	free(cs);
	expect(p.out, "\"knees\": [");
	expect(p.out, "\"no_knee\": [");
	expect(p.out, "\"last_level\": ");
	/* Every size measured 5 times by default, its spread kept. */
	expect(p.out, "\"reps\": 5, \"ns_min\": ");
	/* Progress and the run's id on stderr. */
	expect(p.err, "prof: probing CPU ");
	expect(p.err, "prof: stored as run 1;");
	char *json = strdup(p.out);
	tu_proc_release(&p);

	char *runs[] = { PROF_BIN, f->dbarg, "runs", NULL };
	p = tu_run(runs, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "  probe  ");
	tu_proc_release(&p);

	/* `prof report` prints the same document from the database. */
	char *rep[] = { PROF_BIN, f->dbarg, "report", "last", "--format", "json", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, json);
	tu_proc_release(&p);
	free(json);
}

static void test_probe_verb__table_csv_and_no_store(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "probe", "--max", "256K", "--ms", "1",
			 "--no-counters", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status)
		fail_msg("exit %d:\n%s", p.status, p.err);
	expect(p.out, " prof probe (run 1): CPU ");
	expect(p.out, ", 9 sizes from 16 KiB to 256 KiB, 1 ms each; ");
	expect(p.out, "    size  ns/step");
	expect(p.out, "\n  16 KiB ");
	expect(p.out, "\n 256 KiB ");
	expect(p.out, " knees (where ns/step rises 1.4x over its plateau):");
	/* 256 KiB cannot reach memory on any machine with an L2 or more. */
	expect(p.out, "   last level: the curve stops at 256 KiB, short of twice ");
	expect(p.out, " no counters were graded (the latency curve only)\n");
	tu_proc_release(&p);
	/* Issue 26: the machine's settings are stored with it */
	char *env[] = { PROF_BIN, f->dbarg, "report", "1", "--env", NULL };
	p = tu_run(env, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, " kernel ");
	assert_null(strstr(p.out, "none stored"));
	tu_proc_release(&p);

	char *csv[] = { PROF_BIN, f->dbarg, "probe", "--min", "32K", "--max", "64K",
			"--ms", "1", "--no-counters", "--no-store", "--format", "csv",
			NULL };
	p = tu_run(csv, NULL);
	assert_int_equal(p.status, 0);
	if (strncmp(p.out, "bytes,ns,steps,huge_bytes,reps,ns_min,ns_q1,ns_q3,ns_max\n"
		    "32768,", 62))
		fail_msg("csv:\n%s", p.out);
	expect(p.out, "\n49152,");
	expect(p.out, "\n65536,");
	assert_null(strstr(p.err, "stored as run"));
	tu_proc_release(&p);

	char *last[] = { PROF_BIN, f->dbarg, "runs", "--format", "csv", NULL };
	p = tu_run(last, NULL);
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.out, "\n2,"));	/* --no-store stored nothing */
	tu_proc_release(&p);
}

static void test_probe_verb__bad_input_exits_2_before_measuring(void **state)
{
	struct tu_db *f = *state;
	struct {
		const char *args[4];
		const char *err;
	} cases[] = {
		{ { "--min", "2M", "--max", "1M" }, "no size of the curve lies between" },
		{ { "--max", "1X" }, "bad size '1X'" },
		{ { "--max", "64" }, "bad size '64'" },
		{ { "--cpu", "8191" }, "CPU 8191 is not one prof may run on" },
		{ { "--ms", "0" }, "--ms" },
		{ { "extra" }, "extra" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[10] = { PROF_BIN, f->dbarg, "probe" };
		size_t n = 3;
		for (size_t k = 0; k < 4 && cases[i].args[k]; k++)
			argv[n++] = (char *)cases[i].args[k];
		struct tu_proc p = tu_run(argv, NULL);
		if (p.status != 2)
			fail_msg("case %zu: exit %d:\n%s", i, p.status, p.err);
		expect(p.err, cases[i].err);
		assert_null(strstr(p.err, "prof: probing"));
		tu_proc_release(&p);
	}
	assert_int_not_equal(access(f->path, F_OK), 0);

	/* A database that cannot be opened stops the probe before it runs. */
	char *bad;
	assert_true(asprintf(&bad, "--db=%s/no/such/dir/t.db", f->dir) > 0);
	char *argv[] = { PROF_BIN, bad, "probe", "--max", "64K", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 1);
	expect(p.err, "hint: --no-store runs the probe without storing it");
	assert_null(strstr(p.err, "prof: probing"));
	tu_proc_release(&p);
	free(bad);
}

/*
 * SIGTERM in the middle of the curve (sizes of 300 ms each, 16 KiB to
 * 64 MiB: about 8 s in all) stops prof probe at once: the sizes measured
 * so far are stored, the run is marked interrupted, and prof exits 143;
 * a SIGINT right behind it does not cut the store short.
 */
static void test_probe_verb__sigterm_keeps_the_sizes_measured(void **state)
{
	struct tu_db *f = *state;
	char outp[4096], errp[4096];
	snprintf(outp, sizeof(outp), "%s/out", f->dir);
	snprintf(errp, sizeof(errp), "%s/err", f->dir);
	pid_t pid = fork();
	if (pid == 0) {
		int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(o, 1);
		dup2(e, 2);
		execl(PROF_BIN, PROF_BIN, f->dbarg, "probe", "--no-counters",
		      "--max", "64M", "--ms", "300", "--sysfs", SMALL_SYSFS,
		      (char *)NULL);
		_exit(127);
	}
	char *err = NULL;
	for (int i = 0; i < 500; i++) {
		free(err);
		err = tu_slurp(errp);
		if (err && strstr(err, "prof: probing CPU"))
			break;
		usleep(10000);
	}
	free(err);
	usleep(1000000);	/* a size or two */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(pid, SIGTERM);
	kill(pid, SIGINT);
	int st;
	waitpid(pid, &st, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) +
		      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	err = tu_slurp(errp);
	if (!WIFEXITED(st))
		fail_msg("prof probe was killed by signal %d:\n%s", WTERMSIG(st), err);
	/* Either signal may be taken first when both are pending. */
	if (WEXITSTATUS(st) != 143 && WEXITSTATUS(st) != 130)
		fail_msg("exit %d, not 128 + a signal:\n%s", WEXITSTATUS(st), err);
	if (took > 2)
		fail_msg("prof probe took %.1f s to stop", took);
	expect(err, "prof: interrupted after ");
	expect(err, "prof: stored as run 1;");
	free(err);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "1", NULL };
	struct tu_proc p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "interrupted before the end");
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_probe_verb__json_stored_and_reported, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_probe_verb__table_csv_and_no_store, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_probe_verb__bad_input_exits_2_before_measuring, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_probe_verb__sigterm_keeps_the_sizes_measured, tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
