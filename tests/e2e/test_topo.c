/*
 * End-to-end tests of `prof topo` on the fixture trees and of pinned
 * runs on this machine: the workload really runs on the chosen CPUs, and
 * the database records mode, outcome, CPUs and domain size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "test_util.h"

static struct tu_proc topo_json(const char *fixture)
{
	char *root;
	if (asprintf(&root, "%s/sysfs/%s", FIXTURES_DIR, fixture) < 0)
		abort();
	char *argv[] = { PROF_BIN, "topo", "--sysfs", root, "--format", "json", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	free(root);
	return p;
}

static void expect(const char *out, const char *needle)
{
	if (!strstr(out, needle))
		fail_msg("expected %s in:\n%s", needle, out);
}

static void test_topo__fixtures_give_the_right_domains_and_choice(void **state)
{
	(void)state;
	struct tu_proc p = topo_json("sym-2ccd");
	assert_int_equal(p.status, 0);
	expect(p.out, "\"llc_asymmetric\": false");
	expect(p.out, "\"largest_llc\": {\n    \"level\": 3,\n    \"size_bytes\": 33554432,\n"
		      "    \"cpus\": [0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17]");
	tu_proc_release(&p);

	p = topo_json("asym-x3d");
	expect(p.out, "\"llc_asymmetric\": true");
	expect(p.out, "\"size_bytes\": 100663296,\n    \"cpus\": [0, 1, 2, 3, 4, 5, 6, 7, 16");
	tu_proc_release(&p);

	p = topo_json("hybrid");
	/* The E-cores share an L2 in clusters of four. */
	expect(p.out, "[16, 17, 18, 19]");
	expect(p.out, "\"size_bytes\": 2097152,\n      \"cpus\": [20, 21, 22, 23]");
	tu_proc_release(&p);

	p = topo_json("no-l3");
	expect(p.out, "\"largest_llc\": null");
	expect(p.out, "\"largest_llc_reason\": \"no last-level cache is shared");
	tu_proc_release(&p);

	p = topo_json("two-socket");
	expect(p.out, "\"node\": 1");
	expect(p.out, "\"llc_asymmetric\": false");
	tu_proc_release(&p);

	p = topo_json("malformed");
	assert_int_equal(p.status, 0);
	expect(p.out, "\"largest_llc\": null");
	/* No L3 domain survives a malformed L3 entry. */
	assert_null(strstr(p.out, "\"level\": 3,\n      \"type\""));
	tu_proc_release(&p);

	/* Issue 15: the stale L3 and node0 lists still name offline CPU 3;
	 * prof topo leaves it out of both, and says so. */
	p = topo_json("offline-cpu");
	expect(p.out, "\"online\": [0, 1, 2]");
	expect(p.out, "\"largest_llc\": {\n    \"level\": 3,\n    \"size_bytes\": 8388608,\n"
	       "    \"cpus\": [0, 1, 2],");
	expect(p.out, "\"node\": 0,\n      \"cpus\": [0, 1, 2]\n");
	assert_null(strstr(p.out, "2, 3]"));
	expect(p.out, "offline CPU 3 left out");
	tu_proc_release(&p);

	p = topo_json("no-such-tree");
	assert_int_equal(p.status, 1);
	expect(p.err, "error: cannot read");
	tu_proc_release(&p);
}


static void test_topo__pinned_run_runs_there_and_is_recorded(void **state)
{
	struct tu_db *f = *state;
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock", "--pin",
			 "cpus:0", "--", "/bin/grep", "Cpus_allowed_list",
			 "/proc/self/status", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status != 0 && strstr(p.err, "cannot open perf events")) {
		tu_proc_release(&p);
		skip();
	}
	assert_int_equal(p.status, 0);
	/* The workload itself sees CPU 0 alone. */
	expect(p.out, "Cpus_allowed_list:\t0\n");
	expect(p.err, "prof: pinned to CPU 0 (cpus:0)");
	tu_proc_release(&p);
	char *r[] = { PROF_BIN, f->dbarg, "report", "last", "--format", "json", NULL };
	p = tu_run(r, NULL);
	expect(p.out, "\"mode\": \"cpus:0\"");
	expect(p.out, "\"status\": \"applied\"");
	expect(p.out, "\"cpus\": [0]");
	tu_proc_release(&p);
}

static void test_topo__flag_beats_environment_in_both_directions(void **state)
{
	struct tu_db *f = *state;
	/* Environment asks, flag refuses: not pinned. */
	char *a1[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock",
		       "--no-cache-affinity", "--", "/bin/true", NULL };
	char *env1[] = { "PROF_CACHE_AFFINITY=1", NULL };
	struct tu_proc p = tu_run(a1, env1);
	if (p.status != 0 && strstr(p.err, "cannot open perf events")) {
		tu_proc_release(&p);
		skip();
	}
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.err, "pinned"));
	tu_proc_release(&p);
	char *r[] = { PROF_BIN, f->dbarg, "report", "last", "--format", "json", NULL };
	p = tu_run(r, NULL);
	expect(p.out, "\"mode\": \"none\"");
	tu_proc_release(&p);

	/* Environment refuses, flag asks: largest-llc (applied or skipped,
	 * depending on this machine's caches, but asked for). */
	char *a2[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock",
		       "--cache-affinity", "--", "/bin/true", NULL };
	char *env2[] = { "PROF_CACHE_AFFINITY=0", NULL };
	p = tu_run(a2, env2);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	p = tu_run(r, NULL);
	expect(p.out, "\"mode\": \"largest-llc\"");
	tu_proc_release(&p);
}

static void test_topo__bad_pins_stop_before_running(void **state)
{
	struct tu_db *f = *state;
	char *root;
	assert_true(asprintf(&root, "%s/sysfs/malformed", FIXTURES_DIR) > 0);
	/* A malformed topology is a failure (1), not a usage error: the
	 * pin word is fine, the machine's tree is not (it used to exit 2). */
	char *a1[] = { PROF_BIN, f->dbarg, "run", "--pin", "llc:0", "--sysfs", root,
		       "--", "/bin/true", NULL };
	struct tu_proc p = tu_run(a1, NULL);
	assert_int_equal(p.status, 1);
	expect(p.err, "error:");
	tu_proc_release(&p);
	char *s1[] = { PROF_BIN, f->dbarg, "sleep", "--no-store", "--pin", "llc:0",
		       "--sysfs", root, NULL };
	p = tu_run(s1, NULL);
	assert_int_equal(p.status, 1);
	tu_proc_release(&p);
	char *s2[] = { PROF_BIN, f->dbarg, "sleep", "--no-store", "--pin", "llc:9",
		       "--sysfs", FIXTURES_DIR "/sysfs/sym-2ccd", NULL };
	p = tu_run(s2, NULL);
	assert_int_equal(p.status, 2);	/* out of range: the word is wrong */
	expect(p.err, "out of range");
	tu_proc_release(&p);
	/* largest-llc on the same tree: a warning, and the run goes on. */
	char *a2[] = { PROF_BIN, f->dbarg, "run", "--format", "csv", "-o", "/dev/null",
		       "-e", "task-clock", "--pin", "largest-llc", "--sysfs", root, "--",
		       "/bin/true", NULL };
	p = tu_run(a2, NULL);
	if (strstr(p.err, "cannot open perf events")) {
		tu_proc_release(&p);
		free(root);
		skip();
	}
	assert_int_equal(p.status, 0);
	expect(p.err, "warning: not pinning (largest-llc)");
	tu_proc_release(&p);
	char *r[] = { PROF_BIN, f->dbarg, "report", "last", "--format", "json", NULL };
	p = tu_run(r, NULL);
	expect(p.out, "\"status\": \"skipped: ");
	tu_proc_release(&p);
	char *a3[] = { PROF_BIN, f->dbarg, "run", "--pin", "llc:x", "--", "/bin/true", NULL };
	p = tu_run(a3, NULL);
	assert_int_equal(p.status, 2);
	tu_proc_release(&p);
	char *a4[] = { PROF_BIN, f->dbarg, "run", "--pin", "warp", "--", "/bin/true", NULL };
	p = tu_run(a4, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "valid modes: none, largest-llc, llc:N, l2:N, node:N, cpus:LIST");
	tu_proc_release(&p);
	free(root);
}

/* A FIFO in the tree --sysfs names is refused at once: 'prof topo' and a
 * pinned run used to wait on it forever. */
static void test_topo__fifo_in_the_tree_is_refused(void **state)
{
	struct tu_db *f = *state;
	char *root, *cmd, *online;
	if (asprintf(&root, "%s/tree", f->dir) < 0 ||
	    asprintf(&cmd, "cp -rs '%s/sysfs/no-l3/sys' '%s/'", FIXTURES_DIR, root) < 0 ||
	    asprintf(&online, "%s/sys/devices/system/cpu/online", root) < 0)
		abort();
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(unlink(online), 0);
	assert_int_equal(mkfifo(online, 0600), 0);
	const struct tu_run_opts limit = { .timeout_s = 20 };
	char *t[] = { PROF_BIN, "topo", "--sysfs", root, NULL };
	struct tu_proc p = tu_run_ex(t, NULL, &limit);
	if (p.status != 1)
		fail_msg("status %d, stderr:\n%s", p.status, p.err);
	expect(p.err, "online': not a regular file");
	tu_proc_release(&p);
	char *r[] = { PROF_BIN, f->dbarg, "run", "--pin", "llc:0", "--sysfs", root,
		      "--", "/bin/true", NULL };
	p = tu_run_ex(r, NULL, &limit);
	if (p.status != 1)	/* as 'prof topo' above, not a usage error */
		fail_msg("status %d, stderr:\n%s", p.status, p.err);
	expect(p.err, "online': not a regular file");
	tu_proc_release(&p);
	free(root);
	free(cmd);
	free(online);
}

/* --cache-affinity means --pin largest-llc and --no-cache-affinity --pin
 * none: given with a --pin that says otherwise, or with each other, they
 * are refused before anything runs (the flag used to win silently, and
 * the pin asked for was dropped). Flags that agree are accepted. */
static void test_topo__pin_and_affinity_flags_must_agree(void **state)
{
	struct tu_db *f = *state;
	static const struct {
		const char *verb, *a, *b, *msg;
	} bad[] = {
		{ "run", "--pin=cpus:0", "--no-cache-affinity",
		  "--pin cpus:0 and --no-cache-affinity ask for different pins" },
		{ "run", "--no-cache-affinity", "--pin=llc:0",
		  "--pin llc:0 and --no-cache-affinity ask for different pins" },
		{ "run", "--cache-affinity", "--pin=none",
		  "--pin none and --cache-affinity ask for different pins" },
		{ "record", "--pin=cpus:0", "--no-cache-affinity",
		  "--pin cpus:0 and --no-cache-affinity ask for different pins" },
		{ "run", "--cache-affinity", "--no-cache-affinity",
		  "--cache-affinity and --no-cache-affinity ask for different pins" },
		{ "record", "--no-cache-affinity", "--cache-affinity",
		  "--cache-affinity and --no-cache-affinity ask for different pins" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *a[] = { PROF_BIN, f->dbarg, (char *)bad[i].verb, "-q", "-e",
			      "task-clock", (char *)bad[i].a, (char *)bad[i].b, "--",
			      "/bin/true", NULL };
		struct tu_proc p = tu_run(a, NULL);
		if (p.status != 2 || !strstr(p.err, bad[i].msg))
			fail_msg("case %zu: status %d, stderr:\n%s", i, p.status, p.err);
		expect(p.err, "hint: ");
		tu_proc_release(&p);
	}
	char *db;
	if (asprintf(&db, "%s/t.db", f->dir) < 0)
		abort();
	assert_int_not_equal(access(db, F_OK), 0);	/* nothing ran or was stored */
	free(db);

	char *ok[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock", "--pin",
		       "none", "--no-cache-affinity", "--", "/bin/true", NULL };
	struct tu_proc p = tu_run(ok, NULL);
	if (p.status != 0 && strstr(p.err, "cannot open perf events")) {
		tu_proc_release(&p);
		skip();
	}
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *ok2[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock", "--pin",
			"largest-llc", "--cache-affinity", "--", "/bin/true", NULL };
	p = tu_run(ok2, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *r[] = { PROF_BIN, f->dbarg, "report", "last", "--format", "json", NULL };
	p = tu_run(r, NULL);
	expect(p.out, "\"mode\": \"largest-llc\"");
	tu_proc_release(&p);
}

/* The pin mode of stored run `id`, from its JSON. */
static char *pin_mode_of(struct tu_db *f, const char *id)
{
	char *r[] = { PROF_BIN, f->dbarg, "report", (char *)id, "--format", "json", NULL };
	struct tu_proc p = tu_run(r, NULL);
	const char *m = strstr(p.out, "\"mode\": \"");
	char *mode = m ? strndup(m + 9, strcspn(m + 9, "\"")) : strdup("?");
	tu_proc_release(&p);
	return mode;
}

/*
 * Issue 15: prof ab and prof sleep refused --cache-affinity and
 * --no-cache-affinity and ignored PROF_CACHE_AFFINITY. They take both
 * now, with the same rule as prof run (the flags win over the
 * environment); in ab an arm's own --set ARM.pin wins over both, so a
 * harness can keep its control arm unpinned.
 */
static void test_topo__ab_and_sleep_honour_cache_affinity(void **state)
{
	struct tu_db *f = *state;
	char *on[] = { "PROF_CACHE_AFFINITY=1", NULL };
	char *ab[] = { PROF_BIN, f->dbarg, "ab", "--arm", "a=true", "--arm", "b=true",
		       "--set", "a.pin=none", "--rounds", "1", "--warmup", "0", "-e",
		       "task-clock", "--format", "json", NULL };
	struct tu_proc p = tu_run(ab, on);
	if (p.status != 0 && strstr(p.err, "cannot open perf events")) {
		tu_proc_release(&p);
		skip();
	}
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	/* round 1 runs a, then b */
	char *m1 = pin_mode_of(f, "1"), *m2 = pin_mode_of(f, "2");
	assert_string_equal(m1, "none");
	assert_string_equal(m2, "largest-llc");
	free(m1);
	free(m2);

	char *ab2[] = { PROF_BIN, f->dbarg, "ab", "--arm", "a=true", "--arm", "b=true",
			"--no-cache-affinity", "--rounds", "1", "--warmup", "0", "-e",
			"task-clock", NULL };
	p = tu_run(ab2, on);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	m1 = pin_mode_of(f, "3");
	m2 = pin_mode_of(f, "4");
	assert_string_equal(m1, "none");
	assert_string_equal(m2, "none");
	free(m1);
	free(m2);
	char *off[] = { "PROF_CACHE_AFFINITY=0", NULL };
	char *ab3[] = { PROF_BIN, f->dbarg, "ab", "--arm", "a=true", "--arm", "b=true",
			"--cache-affinity", "--rounds", "1", "--warmup", "0", "-e",
			"task-clock", NULL };
	p = tu_run(ab3, off);
	assert_int_equal(p.status, 0);
	expect(p.err, "pin = largest-llc");
	tu_proc_release(&p);
	m1 = pin_mode_of(f, "5");
	assert_string_equal(m1, "largest-llc");
	free(m1);
	/* --set pin= for every arm and a flag that says otherwise: refused. */
	char *bad[] = { PROF_BIN, f->dbarg, "ab", "--arm", "a=true", "--arm", "b=true",
			"--set", "pin=none", "--cache-affinity", NULL };
	p = tu_run(bad, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "--pin none and --cache-affinity ask for different pins");
	tu_proc_release(&p);

	/* prof sleep: the environment, and the flag over it. */
	char *sl[] = { PROF_BIN, f->dbarg, "sleep", "--modes", "nanosleep", "--durations",
		       "50", "--calls", "10", NULL };
	p = tu_run(sl, on);
	assert_int_equal(p.status, 0);
	expect(p.out, "pin largest-llc");
	tu_proc_release(&p);
	char *sl2[] = { PROF_BIN, f->dbarg, "sleep", "--modes", "nanosleep",
			"--durations", "50", "--calls", "10", "--no-cache-affinity", NULL };
	p = tu_run(sl2, on);
	assert_int_equal(p.status, 0);
	expect(p.out, "not pinned");
	assert_null(strstr(p.err, "largest-llc"));
	assert_null(strstr(p.out, "largest-llc"));
	tu_proc_release(&p);
	char *sl3[] = { PROF_BIN, f->dbarg, "sleep", "--modes", "nanosleep",
			"--durations", "50", "--calls", "10", "--cache-affinity", NULL };
	p = tu_run(sl3, off);
	assert_int_equal(p.status, 0);
	expect(p.out, "pin largest-llc");
	tu_proc_release(&p);
}

/* -p with PROF_CACHE_AFFINITY=1 says why nothing is pinned. */
static void test_topo__attach_says_why_it_does_not_pin(void **state)
{
	struct tu_db *f = *state;
	pid_t kid = fork();
	if (kid == 0) {
		execl("/bin/sleep", "sleep", "5", (char *)NULL);
		_exit(127);
	}
	char pid[32];
	snprintf(pid, sizeof(pid), "%d", (int)kid);
	char *on[] = { "PROF_CACHE_AFFINITY=1", NULL };
	char *a[] = { PROF_BIN, f->dbarg, "run", "-o", "/dev/null", "-e", "task-clock",
		      "-p", pid, "--duration", "0.2", NULL };
	struct tu_proc p = tu_run(a, on);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	if (p.status != 0 && strstr(p.err, "cannot open perf events")) {
		tu_proc_release(&p);
		skip();
	}
	expect(p.err, "note: not pinning process");
	expect(p.err, "prof pins only a command it launches, before exec");
	tu_proc_release(&p);
	char *b[] = { PROF_BIN, f->dbarg, "run", "-p", pid, "--cache-affinity", NULL };
	p = tu_run(b, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "prof pins it before exec");
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topo__fixtures_give_the_right_domains_and_choice),
		cmocka_unit_test_setup_teardown(test_topo__pinned_run_runs_there_and_is_recorded, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_topo__flag_beats_environment_in_both_directions, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_topo__bad_pins_stop_before_running, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_topo__fifo_in_the_tree_is_refused, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_topo__pin_and_affinity_flags_must_agree, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_topo__ab_and_sleep_honour_cache_affinity, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_topo__attach_says_why_it_does_not_pin, tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
