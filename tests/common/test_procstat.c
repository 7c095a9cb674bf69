/*
 * Tests for common/procstat: the one parser of /proc/PID/stat.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <unistd.h>

#include "common/procstat.h"

static void test_procstat__parses_fields(void **state)
{
	(void)state;
	/* A name with spaces and parentheses: fields count from the last ')'. */
	const char *line = "4242 (a) b (c)) S 17 4242 4242 0 -1 4194560 100 0 0 0 "
			   "31 7 0 0 20 0 1 0 987654 1000 200\n";
	struct proc_stat ps;
	assert_int_equal(proc_stat_parse(line, &ps), 0);
	assert_int_equal(ps.state, 'S');
	assert_int_equal(ps.ppid, 17);
	assert_int_equal(ps.pgrp, 4242);
	assert_true(ps.utime == 31 && ps.stime == 7);
	assert_true(ps.starttime == 987654);
}

static void test_procstat__refuses_a_short_line(void **state)
{
	(void)state;
	struct proc_stat ps;
	assert_int_equal(proc_stat_parse("1 (init S 0 1", &ps), -EINVAL);
	assert_int_equal(proc_stat_parse("1 (init) S 0 1 1 0 -1", &ps), -EINVAL);
	assert_int_equal(proc_stat_parse("", &ps), -EINVAL);
}

static void test_procstat__reads_itself(void **state)
{
	(void)state;
	struct proc_stat ps, ts;
	assert_int_equal(proc_stat_read("self", NULL, &ps), 0);
	assert_int_equal(ps.ppid, (int)getppid());
	assert_int_equal(proc_stat_read_pid(getpid(), getpid(), &ts), 0);
	assert_int_equal(ts.ppid, ps.ppid);
	assert_true(ts.starttime == ps.starttime);
	assert_int_equal(proc_stat_read("0", NULL, &ps), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_procstat__parses_fields),
		cmocka_unit_test(test_procstat__refuses_a_short_line),
		cmocka_unit_test(test_procstat__reads_itself),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
