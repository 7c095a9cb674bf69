/*
 * stall: a switch's own records far apart are a stalled CPU; a CPU that
 * ran other tasks between the workload's switch-out and its next
 * switch-in is not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "collectors/stall.h"

#define MS 1000000ull

/* A switch from task 10 to task 11 whose sample, out and in records lie
 * 30 us apart: nothing; then one whose out record came 12 ms after its
 * sample (as seen in a QEMU guest with its host busy): one stall. */
static void test_stall__sample_to_switch_out(void **state)
{
	(void)state;
	struct stall_watch w = { 0 };
	struct stall_tally s = { 0 };
	stall_sample(&w, 100 * MS);
	stall_out(&w, &s, 100 * MS + 30000, 11);
	stall_in(&w, &s, 100 * MS + 60000, 11);
	assert_int_equal(s.n, 0);
	stall_sample(&w, 200 * MS);
	stall_out(&w, &s, 212 * MS, 11);
	stall_in(&w, &s, 212 * MS + 40000, 11);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.ns, 12 * MS);
	assert_int_equal(s.max_ns, 12 * MS);
}

/* The same switch's out and in records 5 ms apart: a stall. A switch
 * out of the workload (to task 99, not the workload's) and the next
 * switch-in of one of its tasks 50 ms later: the CPU ran task 99
 * meanwhile, no stall. */
static void test_stall__out_to_in(void **state)
{
	(void)state;
	struct stall_watch w = { 0 };
	struct stall_tally s = { 0 };
	stall_sample(&w, 10 * MS);
	stall_out(&w, &s, 10 * MS + 20000, 11);
	stall_in(&w, &s, 15 * MS + 20000, 11);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.ns, 5 * MS);
	stall_sample(&w, 20 * MS);
	stall_out(&w, &s, 20 * MS + 20000, 99);
	stall_in(&w, &s, 70 * MS, 11);
	assert_int_equal(s.n, 1);
	/* Nor does a switch-in with no switch-out before it on this CPU. */
	stall_in(&w, &s, 90 * MS, 11);
	assert_int_equal(s.n, 1);
}

/* A switch-out with no sample before it (the group was off the PMU, or
 * the sample was lost) measures nothing; a reaped task (tid -1) is never
 * taken for the task an out record went to. */
static void test_stall__unknowns_count_nothing(void **state)
{
	(void)state;
	struct stall_watch w = { 0 };
	struct stall_tally s = { 0 };
	stall_out(&w, &s, 50 * MS, -1);
	stall_in(&w, &s, 60 * MS, -1);
	stall_out(&w, &s, 70 * MS, 12);
	stall_sample(&w, 80 * MS);
	stall_in(&w, &s, 81 * MS, 12);
	assert_int_equal(s.n, 0);
	/* A sample after a clock that went back: nothing either. */
	stall_out(&w, &s, 79 * MS, 12);
	assert_int_equal(s.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stall__sample_to_switch_out),
		cmocka_unit_test(test_stall__out_to_in),
		cmocka_unit_test(test_stall__unknowns_count_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
