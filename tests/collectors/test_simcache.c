/*
 * Unit tests of simcache (collectors/simcache.h): valgrind's set-count
 * rule, --cache specs good and bad, the geometry read from a fixture
 * sysfs tree, a recorded callgrind 3.19 profile read back, and profiles
 * that are empty or not callgrind's. The e2e test (tests/e2e/
 * test_simulate) runs valgrind itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/simcache.h"
#include "test_util.h"

#define FIX SOURCE_DIR "/tests/fixtures"

static void test_simcache__set_count_made_a_power_of_two(void **state)
{
	(void)state;
	struct sim_cache c = { 32u << 20, 16, 64, 0, "sysfs" };
	assert_int_equal(sim_cache_fit(&c), 0);
	assert_int_equal(c.assoc, 16);
	assert_int_equal(c.sysfs_assoc, 0);
	/* 36 MiB 12-way: 49,152 sets. 9 ways (65,536 sets) is nearest. */
	c = (struct sim_cache){ 36u << 20, 12, 64, 0, "sysfs" };
	assert_int_equal(sim_cache_fit(&c), 0);
	assert_int_equal(c.assoc, 9);
	assert_int_equal(c.sysfs_assoc, 12);
	assert_int_equal(c.size, 36u << 20);
	/* 48 KiB 12-way: 64 sets, fine as it is */
	c = (struct sim_cache){ 48u << 10, 12, 64, 0, "sysfs" };
	assert_int_equal(sim_cache_fit(&c), 0);
	assert_int_equal(c.assoc, 12);
	/* a size that is no multiple of the line */
	c = (struct sim_cache){ 1000, 4, 64, 0, "sysfs" };
	assert_int_equal(sim_cache_fit(&c), -EINVAL);
}

static void test_simcache__geometry_from_sysfs_then_the_spec(void **state)
{
	(void)state;
	struct sim_geometry g;
	char *cause = NULL;
	assert_int_equal(sim_geometry_read(&g, FIX "/sysfs-sim", NULL, &cause), 0);
	assert_int_equal(g.c[SIM_I1].size, 32u << 10);
	assert_int_equal(g.c[SIM_D1].size, 48u << 10);
	assert_int_equal(g.c[SIM_D1].assoc, 12);
	assert_int_equal(g.c[SIM_LL].size, 36u << 20);	/* L3, not L2 */
	assert_int_equal(g.c[SIM_LL].assoc, 9);
	assert_string_equal(g.c[SIM_LL].from, "sysfs");
	char *t = sim_geometry_text(&g);
	assert_string_equal(t, "I1 32 KiB 8-way, D1 48 KiB 12-way, LL 36 MiB 9-way "
			       "(12-way asked: valgrind needs a power-of-two set count); "
			       "64 B lines");
	free(t);
	/* "LL=96M" keeps the ways and line it replaces */
	assert_int_equal(sim_geometry_read(&g, FIX "/sysfs-sim", "LL=96M,l1i=64K:16:64",
					   &cause), 0);
	assert_int_equal(g.c[SIM_LL].size, 96u << 20);
	assert_int_equal(g.c[SIM_LL].assoc, 12);
	assert_string_equal(g.c[SIM_LL].from, "--cache");
	assert_int_equal(g.c[SIM_I1].size, 64u << 10);
	assert_int_equal(g.c[SIM_I1].assoc, 16);
	/* no sysfs at all: valgrind's defaults, said */
	assert_int_equal(sim_geometry_read(&g, FIX "/no-such-tree", NULL, &cause), 0);
	assert_int_equal(g.c[SIM_LL].size, 8u << 20);
	assert_string_equal(g.c[SIM_LL].from, "default");
}

static void test_simcache__bad_specs_are_named(void **state)
{
	(void)state;
	static const struct {
		const char *spec, *says;
	} bad[] = {
		{ "", "expected LEVEL=SIZE" },
		{ "L2=1M", "with LEVEL L1I, L1D or LL" },
		{ "LL", "with LEVEL L1I, L1D or LL" },
		{ "LL=", "bad cache size ''" },
		{ "LL=3x", "bad cache size '3x'" },
		{ "LL=32M:0", "bad ways '0'" },
		{ "LL=32M:16:48", "bad line size '48'" },
		{ "LL=32M:16:64:9", "bad line size '64:9'" },
		{ "LL=1000:4:64", "must be a multiple of the line" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct sim_geometry g;
		char *cause = NULL;
		int rc = sim_geometry_read(&g, "/nonexistent", bad[i].spec, &cause);
		if (rc != -EINVAL || !cause || !strstr(cause, bad[i].says))
			fail_msg("'%s': rc %d, cause %s", bad[i].spec, rc, cause ? cause : "(none)");
		free(cause);
	}
}

/* A profile callgrind 3.19 wrote (its body cut short; the summary is
 * what is read), for thread 6 of process 4242. */
static void test_simcache__recorded_profile_read(void **state)
{
	(void)state;
	struct sim_thread t;
	char *cause = NULL;
	assert_int_equal(sim_profile_read(FIX "/callgrind/cg.4242-06", &t, &cause), 0);
	assert_int_equal(t.pid, 4242);
	assert_int_equal(t.thread, 6);
	assert_string_equal(t.comm, "prof-demo");
	assert_int_equal(t.v[SIM_INSTRUCTIONS], 10009794);
	assert_int_equal(t.v[SIM_L1I_MISSES], 8);
	assert_int_equal(t.v[SIM_L1D_MISSES], 9 + 26);
	assert_int_equal(t.v[SIM_LLC_MISSES], 7 + 5 + 26);
	assert_int_equal(t.v[SIM_BRANCH_MISSES], 158 + 5);
	/* accesses 10,013,575; L1 misses 43; LL misses 38 */
	assert_int_equal(t.v[SIM_CYCLES], (10013575 - 43) + 5 * (43 - 38) + 35 * 38);

	struct sim_thread *all = NULL;
	size_t n = 0;
	char *version = NULL;
	assert_int_equal(sim_profiles_read(FIX "/callgrind", &all, &n, &version, &cause), 0);
	assert_int_equal(n, 1);
	assert_string_equal(version, "3.19.0");
	free(all);
	free(version);
}

static void test_simcache__empty_and_foreign_profiles(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *empty, *foreign, *nocache;
	assert_true(asprintf(&empty, "%s/cg.1", dir) > 0);
	assert_true(asprintf(&foreign, "%s/cg.2-01", dir) > 0);
	assert_true(asprintf(&nocache, "%s/cg.3-01", dir) > 0);
	FILE *fp = fopen(empty, "w");
	fclose(fp);
	fp = fopen(foreign, "w");
	fputs("events: Ir\nsummary: 5\n", fp);
	fclose(fp);
	fp = fopen(nocache, "w");
	fputs("# callgrind format\npid: 3\nthread: 1\nevents: Ir\nsummary: 5\n", fp);
	fclose(fp);
	struct sim_thread t;
	char *cause = NULL;
	assert_int_equal(sim_profile_read(empty, &t, &cause), -ENODATA);
	assert_int_equal(sim_profile_read(foreign, &t, &cause), -EINVAL);
	assert_non_null(strstr(cause, "not a callgrind profile"));
	free(cause);
	cause = NULL;
	assert_int_equal(sim_profile_read(nocache, &t, &cause), -EINVAL);
	assert_non_null(strstr(cause, "--cache-sim=yes --branch-sim=yes"));
	free(cause);
	cause = NULL;
	/* the directory holding one of them: refused, nothing half read */
	struct sim_thread *all = NULL;
	size_t n = 7;
	assert_int_equal(sim_profiles_read(dir, &all, &n, NULL, &cause), -EINVAL);
	assert_null(all);
	assert_int_equal(n, 0);
	free(cause);
	tu_rmrf(dir);
	free(dir);
	free(empty);
	free(foreign);
	free(nocache);
}

/*
 * Each function's self cost: its own lines, not the inclusive cost of
 * the calls it made (the line after "calls="), with callgrind's name
 * compression (a "cfn=(2) memcpy" defines the id that a later "fn=(2)"
 * uses, "cob=" likewise for objects). A hand-written profile: main
 * calls memcpy and render calls it too; the three self costs add up to
 * the totals line.
 */
static void test_simcache__functions_and_their_self_costs(void **state)
{
	(void)state;
	struct sim_fn *f = NULL;
	size_t n = 0;
	char *cause = NULL;
	if (sim_profile_functions(FIXTURES_DIR "/callgrind/calls.4343", &f, &n, &cause))
		fail_msg("%s", cause);
	assert_int_equal(n, 3);
	assert_string_equal(f[0].object, "/opt/emu/emu");
	assert_string_equal(f[0].name, "main");
	assert_int_equal(f[0].v[SIM_INSTRUCTIONS], 150);	/* 100 + 50, not the call's 400 */
	assert_int_equal(f[0].v[SIM_LLC_MISSES], 3);
	assert_int_equal(f[0].v[SIM_BRANCH_MISSES], 4);
	assert_string_equal(f[1].name, "render");
	assert_int_equal(f[1].v[SIM_INSTRUCTIONS], 1000);
	assert_int_equal(f[1].v[SIM_LLC_MISSES], 45);
	assert_string_equal(f[2].object, "/usr/lib/libc.so.6");
	assert_string_equal(f[2].name, "memcpy");
	assert_int_equal(f[2].v[SIM_INSTRUCTIONS], 600);
	assert_int_equal(f[2].v[SIM_L1D_MISSES], 24);
	struct sim_thread t;
	assert_int_equal(sim_profile_read(FIXTURES_DIR "/callgrind/calls.4343", &t, &cause), 0);
	for (int e = 0; e < SIM_NEVENTS; e++)
		assert_int_equal(f[0].v[e] + f[1].v[e] + f[2].v[e], t.v[e]);
	sim_fns_free(f, n);
	/* Not a profile: refused with a reason, nothing handed out. */
	/* A directory, then a file of no profile. */
	assert_true(sim_profile_functions(FIXTURES_DIR "/callgrind", &f, &n, &cause) < 0);
	free(cause);
	cause = NULL;
	char path[] = "/tmp/prof-simfn-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello\n", 6), 6);
	close(fd);
	assert_int_equal(sim_profile_functions(path, &f, &n, &cause), -EINVAL);
	assert_null(f);
	assert_non_null(strstr(cause, "not a callgrind profile"));
	free(cause);
	unlink(path);
}

/*
 * Names callgrind did not compress ("ob=/path", "fn=name", as with
 * --compress-strings=no) live in the line just read: each function must
 * keep its own, not what the next line left in the buffer. The fuzz
 * target found the reader keeping a pointer into it (a use after free:
 * tests/fuzz/regressions/callgrind/uncompressed-name-in-line-buffer).
 */
static void test_simcache__uncompressed_names_are_kept(void **state)
{
	(void)state;
	static const char text[] =
		"# callgrind format\n"
		"events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n"
		"ob=/opt/a\nfn=alpha\n0 10\nfn=beta\n0 20 0 0 1\n"
		"ob=/opt/b\nfn=gamma\n0 5\n";
	char path[] = "/tmp/prof-simfn-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	struct sim_fn *f = NULL;
	size_t n = 0;
	char *cause = NULL;
	if (sim_profile_functions(path, &f, &n, &cause))
		fail_msg("%s", cause);
	unlink(path);
	assert_int_equal(n, 3);
	assert_string_equal(f[0].object, "/opt/a");
	assert_string_equal(f[0].name, "alpha");
	assert_string_equal(f[1].object, "/opt/a");
	assert_string_equal(f[1].name, "beta");
	assert_int_equal(f[1].v[SIM_L1I_MISSES], 1);
	assert_string_equal(f[2].object, "/opt/b");
	assert_string_equal(f[2].name, "gamma");
	assert_int_equal(f[2].v[SIM_INSTRUCTIONS], 5);
	sim_fns_free(f, n);
	/* The input the fuzzer kept: read to its end, whatever it says. */
	if (sim_profile_functions(FIXTURES_DIR "/../fuzz/regressions/callgrind/"
				  "uncompressed-name-in-line-buffer", &f, &n, &cause))
		free(cause);
	else
		sim_fns_free(f, n);
}

static void test_simcache__command_line(void **state)
{
	(void)state;
	struct sim_geometry g;
	assert_int_equal(sim_geometry_read(&g, FIX "/sysfs-sim", NULL, NULL), 0);
	char *argv[] = { "./emu", "--scene", "3", NULL };
	char **v = sim_argv(&g, "/usr/bin/valgrind", "/tmp/d", argv);
	assert_non_null(v);
	size_t n = 0;
	while (v[n])
		n++;
	assert_string_equal(v[0], "/usr/bin/valgrind");
	assert_string_equal(v[1], "--tool=callgrind");
	assert_string_equal(v[n - 4], "--");
	assert_string_equal(v[n - 3], "./emu");
	assert_string_equal(v[n - 1], "3");
	bool ll = false, out = false;
	for (size_t i = 0; i < n; i++) {
		ll |= !strcmp(v[i], "--LL=37748736,9,64");
		out |= !strcmp(v[i], "--callgrind-out-file=/tmp/d/cg.%p");
	}
	assert_true(ll);
	assert_true(out);
	sim_argv_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simcache__set_count_made_a_power_of_two),
		cmocka_unit_test(test_simcache__geometry_from_sysfs_then_the_spec),
		cmocka_unit_test(test_simcache__bad_specs_are_named),
		cmocka_unit_test(test_simcache__recorded_profile_read),
		cmocka_unit_test(test_simcache__empty_and_foreign_profiles),
		cmocka_unit_test(test_simcache__command_line),
		cmocka_unit_test(test_simcache__functions_and_their_self_costs),
		cmocka_unit_test(test_simcache__uncompressed_names_are_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
