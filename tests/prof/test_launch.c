/*
 * Tests for prof/run/launch: a child whose set-up fails (here its
 * working directory is missing) is said once, with the stage that
 * failed, and reaped: at launch_release for a child forked plainly, at
 * launch_prepare for one born in a cgroup (clone3), so that nothing is
 * opened on a child that is already gone. The cgroup case needs a cgroup
 * prof can make (root, as in CI), and skips without one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/cgroup.h"
#include "prof/run/run.h"
#include "test_util.h"

static char *argv_true[] = { "true", NULL };

static void test_launch__missing_cwd_said_at_release(void **state)
{
	(void)state;
	struct launch_opts lo = { .argv = argv_true, .cwd = "/nonexistent/prof-test",
				  .out_fd = -1 };
	struct launch l;
	char *cause = NULL;
	assert_int_equal(launch_prepare(&l, &lo, &cause), 0);
	assert_true(l.pid > 0);
	assert_int_equal(launch_release(&l, &cause), -ENOENT);
	assert_non_null(strstr(cause, "cannot change to the working directory '"));
	assert_int_equal(l.pid, 0);	/* reaped */
	free(cause);
	launch_release_fds(&l);
}

static void test_launch__missing_cwd_said_at_prepare_when_born_in_a_cgroup(void **state)
{
	(void)state;
	/* a run's cgroup, made as prof makes one */
	struct run_cgroup cg = { .fd = -1 };
	char *cause = NULL;
	int pfd = -1;
	if (run_cgroup_create(&cg, &cause) || (pfd = run_cgroup_procs(&cg, &cause)) < 0) {
		fprintf(stderr, "skip: no cgroup for the run here: %s\n", cause);
		free(cause);
		run_cgroup_remove(&cg);
		skip();
	}
	struct launch_opts lo = { .argv = argv_true, .cwd = "/nonexistent/prof-test",
				  .out_fd = -1, .cgroup_fd = pfd, .cgroup_dir_fd = cg.fd };
	struct launch l;
	int rc = launch_prepare(&l, &lo, &cause);
	if (rc == 0) {
		/* clone3 refused here: the child joins later, and its
		 * failure is said at the release as for a plain fork */
		fprintf(stderr, "clone3 into the cgroup refused: said at the release\n");
		assert_false(l.born_in_cgroup);
		assert_int_equal(launch_release(&l, &cause), -ENOENT);
		launch_release_fds(&l);
	} else {
		assert_int_equal(rc, -ENOENT);
		assert_int_equal(l.pid, 0);	/* reaped: nothing to open on */
		assert_int_equal(l.go_fd, -1);
	}
	assert_non_null(strstr(cause, "cannot change to the working directory '"));
	free(cause);
	close(pfd);
	assert_int_equal(run_cgroup_remove(&cg), 0);	/* the child left it */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch__missing_cwd_said_at_release),
		cmocka_unit_test(test_launch__missing_cwd_said_at_prepare_when_born_in_a_cgroup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
