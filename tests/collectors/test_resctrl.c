/*
 * Tests for collectors/resctrl against the fixture trees under
 * tests/fixtures/resctrl/: what each tree offers is read as the kernel
 * writes it, a tree without L3 allocation or with a malformed file is
 * refused naming the path, masks are the lowest ways within the bounds,
 * and the writer (on a copy of a tree) makes a group of its own, sets its
 * ways, moves a task in and out, removes the group leaving the default
 * schemata untouched, and sweeps groups left by a prof that died.
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
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/resctrl.h"
#include "test_util.h"

#define TREE(name) FIXTURES_DIR "/resctrl/" name

static void test_resctrl__reads_intel_amd_and_cdp(void **state)
{
	(void)state;
	struct resctrl r;
	assert_int_equal(resctrl_read(&r, TREE("intel-l3"), NULL), 0);
	assert_false(r.cdp);
	assert_int_equal(r.ways, 11);
	assert_int_equal(r.cbm_mask, 0x7ff);
	assert_int_equal(r.min_bits, 1);
	assert_int_equal(r.num_closids, 16);
	assert_int_equal(r.shareable, 0x600);
	/* The L3 line only, indented as the kernel writes it beside MB. */
	assert_int_equal(r.ndomains, 2);
	assert_int_equal(r.domains[1].id, 1);
	assert_int_equal(r.domains[1].mask, 0x7ff);
	assert_non_null(resctrl_domain(&r, 0));
	assert_null(resctrl_domain(&r, 2));
	resctrl_release(&r);

	assert_int_equal(resctrl_read(&r, TREE("amd-l3"), NULL), 0);
	assert_int_equal(r.ways, 16);
	assert_int_equal(r.ndomains, 4);
	assert_int_equal(r.shareable, 0);	/* no file: none */
	resctrl_release(&r);

	assert_int_equal(resctrl_read(&r, TREE("intel-cdp"), NULL), 0);
	assert_true(r.cdp);
	assert_int_equal(r.ways, 20);
	assert_int_equal(r.min_bits, 2);
	assert_int_equal(r.ndomains, 1);
	resctrl_release(&r);
}

static void test_resctrl__refusals_name_what_is_missing(void **state)
{
	(void)state;
	struct resctrl r;
	char *cause = NULL;
	assert_int_equal(resctrl_read(&r, TREE("no-such-tree"), &cause), -ENOENT);
	assert_non_null(strstr(cause, "no resctrl file system"));
	free(cause);
	cause = NULL;
	assert_int_equal(resctrl_read(&r, TREE("mb-only"), &cause), -EOPNOTSUPP);
	assert_non_null(strstr(cause, "no L3 allocation"));
	free(cause);
	cause = NULL;
	assert_int_equal(resctrl_read(&r, TREE("bad-mask"), &cause), -EINVAL);
	assert_non_null(strstr(cause, "cbm_mask"));
	free(cause);
	cause = NULL;
	assert_int_equal(resctrl_read(&r, TREE("bad-schemata"), &cause), -EINVAL);
	assert_non_null(strstr(cause, "schemata"));
	free(cause);
}

static void test_resctrl__parses_lines(void **state)
{
	(void)state;
	char name[16];
	struct resctrl_domain *d;
	size_t n;
	assert_int_equal(resctrl_parse_line("  L3:0=ffff;1=00ff", name, sizeof(name),
					    &d, &n, NULL), 0);
	assert_string_equal(name, "L3");
	assert_int_equal(n, 2);
	assert_int_equal(d[1].mask, 0xff);
	free(d);
	static const char *const bad[] = {
		"L3", "L3:", "L3:0", "L3:0=", "L3:x=ff", "L3:0=fg", ":0=ff",
		"L3:0=ff;;1=ff", "L3:0=11111111111111111",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(resctrl_parse_line(bad[i], name, sizeof(name), &d, &n,
						    NULL), -EINVAL);
}

static void test_resctrl__masks(void **state)
{
	(void)state;
	struct resctrl r;
	assert_int_equal(resctrl_read(&r, TREE("intel-cdp"), NULL), 0);
	uint64_t m;
	assert_int_equal(resctrl_mask(&r, 20, &m, NULL), 0);
	assert_int_equal(m, 0xfffff);
	assert_int_equal(resctrl_mask(&r, 5, &m, NULL), 0);
	assert_int_equal(m, 0x1f);
	char *cause = NULL;
	assert_int_equal(resctrl_mask(&r, 1, &m, &cause), -ERANGE);	/* min 2 */
	assert_non_null(strstr(cause, "2 to 20"));
	free(cause);
	assert_int_equal(resctrl_mask(&r, 21, &m, NULL), -ERANGE);
	resctrl_release(&r);
}

/* A copy of a fixture tree to write into. */
static char *copy_tree(const char *name)
{
	char *dir = tu_tmpdir(), *cmd;
	if (asprintf(&cmd, "cp -r '%s/resctrl/%s/.' '%s'", FIXTURES_DIR, name, dir) < 0)
		abort();
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return dir;
}

static char *slurp_in(const char *dir, const char *rel)
{
	char *p;
	if (asprintf(&p, "%s/%s", dir, rel) < 0)
		abort();
	char *s = tu_slurp(p);
	free(p);
	return s;
}

static void test_resctrl__group_lifecycle(void **state)
{
	(void)state;
	char *dir = copy_tree("intel-l3");
	char *before = slurp_in(dir, "schemata");
	struct resctrl r;
	assert_int_equal(resctrl_read(&r, dir, NULL), 0);
	struct resctrl_group g;
	assert_int_equal(resctrl_group_make(&r, 4242, &g, NULL), 0);
	assert_non_null(strstr(g.path, "/prof-pressure-4242"));
	uint64_t mask;
	assert_int_equal(resctrl_mask(&r, 3, &mask, NULL), 0);
	assert_int_equal(resctrl_group_set(&r, &g, 1, mask, NULL), 0);
	char *s = slurp_in(dir, "prof-pressure-4242/schemata");
	assert_string_equal(s, "L3:1=7\n");
	free(s);
	assert_int_equal(resctrl_group_add(&g, 4243, NULL), 0);
	s = slurp_in(dir, "prof-pressure-4242/tasks");
	assert_string_equal(s, "4243\n");
	free(s);
	assert_int_equal(resctrl_group_leave(&r, 4243, NULL), 0);
	assert_int_equal(resctrl_group_remove(&g, NULL), 0);
	assert_int_equal(resctrl_group_remove(&g, NULL), 0);	/* twice: nothing */
	struct stat st;
	char *gp;
	if (asprintf(&gp, "%s/prof-pressure-4242", dir) < 0)
		abort();
	assert_int_not_equal(stat(gp, &st), 0);
	free(gp);
	/* The default group's ways were never written. */
	s = slurp_in(dir, "schemata");
	assert_string_equal(s, before);
	free(s);
	free(before);
	resctrl_release(&r);
	tu_rmrf(dir);
	free(dir);
}

static void test_resctrl__cdp_writes_both_lines(void **state)
{
	(void)state;
	char *dir = copy_tree("intel-cdp");
	struct resctrl r;
	assert_int_equal(resctrl_read(&r, dir, NULL), 0);
	struct resctrl_group g;
	assert_int_equal(resctrl_group_make(&r, 99, &g, NULL), 0);
	assert_int_equal(resctrl_group_set(&r, &g, 0, 0x3, NULL), 0);
	char *s = slurp_in(dir, "prof-pressure-99/schemata");
	assert_string_equal(s, "L3CODE:0=3\nL3DATA:0=3\n");
	free(s);
	assert_int_equal(resctrl_group_remove(&g, NULL), 0);
	resctrl_release(&r);
	tu_rmrf(dir);
	free(dir);
}

static void test_resctrl__sweeps_groups_of_dead_profs(void **state)
{
	(void)state;
	char *dir = copy_tree("amd-l3");
	/* A pid that ran and ended, one that runs (ours), and a stranger. */
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	int st;
	waitpid(dead, &st, 0);
	char *a, *b, *c;
	if (asprintf(&a, "%s/prof-pressure-%d", dir, (int)dead) < 0 ||
	    asprintf(&b, "%s/prof-pressure-%d", dir, (int)getpid()) < 0 ||
	    asprintf(&c, "%s/someone-else", dir) < 0)
		abort();
	assert_int_equal(mkdir(a, 0755), 0);
	assert_int_equal(mkdir(b, 0755), 0);
	assert_int_equal(mkdir(c, 0755), 0);
	assert_int_equal(resctrl_sweep_stale(dir), 1);
	struct stat sb;
	assert_int_not_equal(stat(a, &sb), 0);
	assert_int_equal(stat(b, &sb), 0);
	assert_int_equal(stat(c, &sb), 0);
	free(a);
	free(b);
	free(c);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resctrl__reads_intel_amd_and_cdp),
		cmocka_unit_test(test_resctrl__refusals_name_what_is_missing),
		cmocka_unit_test(test_resctrl__parses_lines),
		cmocka_unit_test(test_resctrl__masks),
		cmocka_unit_test(test_resctrl__group_lifecycle),
		cmocka_unit_test(test_resctrl__cdp_writes_both_lines),
		cmocka_unit_test(test_resctrl__sweeps_groups_of_dead_profs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
