/*
 * Tests for collectors/cgroup: where prof's own cgroup lies in the
 * hierarchy perf_event counts by (cgroup v2, a hybrid machine's v1
 * perf_event mount, a container whose mount shows only its own part, no
 * such hierarchy at all), from fixture /proc trees; and the sweep of
 * cgroups a killed prof left behind, on plain directories.
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

#include "collectors/cgroup.h"
#include "test_util.h"

static void locate(const char *tree, const char *want)
{
	char root[512];
	snprintf(root, sizeof(root), "%s/proc/%s", FIXTURES_DIR, tree);
	char *dir = NULL, *cause = NULL;
	int rc = run_cgroup_locate(root, &dir, &cause);
	if (want) {
		if (rc)
			fail_msg("%s: %s", tree, cause ? cause : "?");
		assert_string_equal(dir, want);
	} else {
		assert_int_equal(rc, -ENOENT);
		assert_null(dir);
		assert_non_null(strstr(cause, "no cgroup hierarchy counts perf events"));
	}
	free(dir);
	free(cause);
}

static void test_cgroup__v2_beneath_prof_own(void **state)
{
	(void)state;
	locate("cgroup-v2", "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope");
}

/* v1's perf_event mount wins over v2's: the controller is bound there. */
static void test_cgroup__hybrid_takes_the_v1_perf_event_mount(void **state)
{
	(void)state;
	locate("cgroup-hybrid", "/sys/fs/cgroup/perf_event");
}

/* A container's mount starts at its own cgroup: that part is taken off. */
static void test_cgroup__container_mount_root_is_taken_off(void **state)
{
	(void)state;
	locate("cgroup-container", "/sys/fs/cgroup/sub");
}

static void test_cgroup__no_hierarchy_is_said(void **state)
{
	(void)state;
	locate("cgroup-none", NULL);
}

/* Left behind by a prof that no longer runs: removed; ours, a live
 * prof's and other names: kept. */
static void test_cgroup__sweep_removes_what_dead_profs_left(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char path[512];
	/* pid 2^22 + 1 is beyond Linux's largest pid_max: never running */
	const char *names[] = { "prof.4194305.0", "prof.4194305.7", "prof.1.0",
				"other", "prof.x.0" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	snprintf(path, sizeof(path), "%s/prof.%d.0", dir, (int)getpid());
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(run_cgroup_sweep(dir), 2);
	struct stat sb;
	snprintf(path, sizeof(path), "%s/prof.4194305.0", dir);
	assert_int_not_equal(stat(path, &sb), 0);
	const char *kept[] = { "prof.1.0", "other", "prof.x.0" };
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, kept[i]);
		assert_int_equal(stat(path, &sb), 0);
		rmdir(path);
	}
	snprintf(path, sizeof(path), "%s/prof.%d.0", dir, (int)getpid());
	assert_int_equal(stat(path, &sb), 0);
	rmdir(path);
	rmdir(dir);
	free(dir);
}

/* An unused or removed cgroup is fine to remove again. */
static void test_cgroup__remove_accepts_an_unused_one(void **state)
{
	(void)state;
	struct run_cgroup cg = { .path = NULL, .parent = NULL, .fd = -1 };
	assert_int_equal(run_cgroup_remove(&cg), 0);
	assert_int_equal(run_cgroup_remove(&cg), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup__v2_beneath_prof_own),
		cmocka_unit_test(test_cgroup__hybrid_takes_the_v1_perf_event_mount),
		cmocka_unit_test(test_cgroup__container_mount_root_is_taken_off),
		cmocka_unit_test(test_cgroup__no_hierarchy_is_said),
		cmocka_unit_test(test_cgroup__sweep_removes_what_dead_profs_left),
		cmocka_unit_test(test_cgroup__remove_accepts_an_unused_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
