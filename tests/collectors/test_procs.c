/*
 * Tests for collectors/procs: a process's parent from its FORK record,
 * threads adding none, a reused pid told apart by time, the processes
 * added by hand, and /proc/PID/stat as the source for a live one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "collectors/procs.h"
#include "test_util.h"

/* A FORK record as perf_rec_decode leaves it: task tid of process pid,
 * created by task ptid of process ppid. */
static struct perf_rec fork_rec(uint32_t pid, uint32_t tid, uint32_t ppid,
				uint32_t ptid, uint64_t time)
{
	struct perf_rec r;
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_FORK;
	r.u.task.pid = pid;
	r.u.task.tid = tid;
	r.u.task.ppid = ppid;
	r.u.task.ptid = ptid;
	r.u.task.time = time;
	return r;
}

static void test_procs__forks_name_parents_threads_do_not(void **state)
{
	(void)state;
	struct procs *p = procs_new();
	assert_non_null(p);
	assert_int_equal(procs_add(p, 100, 99, 0), 0);	/* the launched one */
	struct perf_rec recs[] = {
		fork_rec(100, 101, 100, 100, 10),	/* a thread of 100 */
		fork_rec(200, 200, 100, 101, 20),	/* 100's thread forks 200 */
		fork_rec(200, 201, 200, 200, 30),	/* a thread of 200 */
		fork_rec(300, 300, 200, 201, 40),	/* 200's thread forks 300 */
	};
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		assert_int_equal(procs_feed(p, &recs[i]), 0);
	/* Other records add nothing. */
	struct perf_rec exit_rec = fork_rec(300, 300, 1, 1, 50);
	exit_rec.type = PERF_RECORD_EXIT;
	assert_int_equal(procs_feed(p, &exit_rec), 0);

	assert_int_equal(procs_parent(p, 100, 0), 99);
	assert_int_equal(procs_parent(p, 100, 10), 99);	/* its thread */
	assert_int_equal(procs_parent(p, 200, 20), 100);
	assert_int_equal(procs_parent(p, 200, 30), 100);	/* not 200 */
	assert_int_equal(procs_parent(p, 300, 40), 200);	/* the process, not
								   the thread 201 */
	assert_int_equal(procs_parent(p, 300, 0), 200);
	assert_int_equal(procs_parent(p, 101, 10), 0);	/* a thread is no process */
	assert_int_equal(procs_parent(p, 400, 0), 0);	/* never seen */
	procs_free(p);
	procs_free(NULL);
}

/* pid 500 is born twice: each thread gets the parent of the process it
 * belonged to, by its start time; a thread of unknown start the first. */
static void test_procs__reused_pid_told_apart_by_time(void **state)
{
	(void)state;
	struct procs *p = procs_new();
	struct perf_rec a = fork_rec(500, 500, 100, 100, 1000);
	struct perf_rec b = fork_rec(500, 500, 200, 200, 5000);
	assert_int_equal(procs_feed(p, &b), 0);	/* arrival order is not time order */
	assert_int_equal(procs_feed(p, &a), 0);
	assert_int_equal(procs_parent(p, 500, 1000), 100);
	assert_int_equal(procs_parent(p, 500, 4999), 100);
	assert_int_equal(procs_parent(p, 500, 5000), 200);
	assert_int_equal(procs_parent(p, 500, 9000), 200);
	assert_int_equal(procs_parent(p, 500, 0), 100);
	assert_int_equal(procs_parent(p, 500, 10), 100);	/* before both */
	procs_free(p);
}

/* Enough births to grow the table several times. */
static void test_procs__many_processes(void **state)
{
	(void)state;
	struct procs *p = procs_new();
	for (uint32_t i = 0; i < 5000; i++) {
		struct perf_rec r = fork_rec(10000 + i, 10000 + i, 10000 + i / 2,
					     10000 + i / 2, i + 1);
		assert_int_equal(procs_feed(p, &r), 0);
	}
	assert_int_equal(procs_parent(p, 10000 + 4999, 0), 10000 + 4999 / 2);
	assert_int_equal(procs_parent(p, 10000 + 7, 8), 10003);
	procs_free(p);
}

static void test_procs__parent_from_proc(void **state)
{
	(void)state;
	assert_int_equal(procs_read_parent(getpid()), getppid());
	assert_int_equal(procs_read_parent(1), 0);	/* init's is 0 */
	assert_int_equal(procs_read_parent(999999999), 0);	/* no such process */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_procs__forks_name_parents_threads_do_not),
		cmocka_unit_test(test_procs__reused_pid_told_apart_by_time),
		cmocka_unit_test(test_procs__many_processes),
		cmocka_unit_test(test_procs__parent_from_proc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
