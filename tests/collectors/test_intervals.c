/*
 * Unit tests of collectors/intervals: cumulative ticks become deltas in
 * the interval of their time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>

#include "collectors/intervals.h"

static const bool both[2] = { true, true };

static void test_intervals__ticks_become_deltas(void **state)
{
	(void)state;
	/* 10 ms intervals from t = 1,000 ns. */
	struct intervals *iv = intervals_new(2, 10000000, 1000);
	assert_non_null(iv);
	uint64_t a[2] = { 5, 100 }, b[2] = { 7, 150 }, c[2] = { 20, 150 };
	assert_int_equal(intervals_feed(iv, 42, 1000 + 3000000, a, both), 0);
	assert_int_equal(intervals_feed(iv, 42, 1000 + 9000000, b, both), 0);
	assert_int_equal(intervals_feed(iv, 42, 1000 + 35000000, c, both), 0);
	const struct intervals_thread *t = intervals_find(iv, 42);
	assert_non_null(t);
	assert_int_equal(t->first_bin, 0);
	/* Rows for intervals 0 and 3 only: 1 and 2 had no tick. */
	assert_int_equal(t->nrows, 2);
	assert_int_equal(t->bins[0], 0);
	assert_int_equal(t->bins[1], 3);
	assert_int_equal(t->vals[0], 7);	/* 5 + 2 */
	assert_int_equal(t->vals[1], 150);
	assert_int_equal(t->vals[2], 13);	/* interval 3 */
	assert_int_equal(t->vals[3], 0);
	assert_int_equal(t->last[0], 20);
	assert_int_equal(intervals_ticks(iv), 3);
	intervals_free(iv);
}

static void test_intervals__threads_apart_and_late_start(void **state)
{
	(void)state;
	struct intervals *iv = intervals_new(2, 1000, 0);
	uint64_t a[2] = { 4, 1 }, b[2] = { 9, 2 };
	bool only0[2] = { true, false };
	assert_int_equal(intervals_feed(iv, 1, 500, a, both), 0);
	assert_int_equal(intervals_feed(iv, 2, 5500, b, only0), 0);
	assert_int_equal(intervals_count(iv), 2);
	const struct intervals_thread *t = intervals_find(iv, 2);
	assert_int_equal(t->first_bin, 5);	/* born late: starts there */
	assert_int_equal(t->nrows, 1);
	assert_int_equal(t->vals[0], 9);
	assert_int_equal(t->vals[1], 0);	/* not read */
	assert_false(t->seen[1]);
	/* A value below the last one (a reused tid) counts afresh. */
	uint64_t c[2] = { 3, 2 };
	assert_int_equal(intervals_feed(iv, 2, 6100, c, both), 0);
	assert_int_equal(t->vals[2], 3);
	assert_int_equal(t->bins[1], 6);
	assert_int_equal(intervals_bin(iv, 0), 0);
	assert_null(intervals_find(iv, 3));
	intervals_free(iv);
	assert_null(intervals_new(1, 0, 0));
}

/* A thread ticked a few times over a long life holds a few rows (issue
 * 27: the intervals from its first to its last were all held, zeros
 * included), and a late record of an early time lands in its place. */
static void test_intervals__rows_go_with_the_ticks(void **state)
{
	(void)state;
	struct intervals *iv = intervals_new(1, 10, 0);
	uint64_t v[1];
	const bool one[1] = { true };
	v[0] = 1;
	assert_int_equal(intervals_feed(iv, 7, 5, v, one), 0);
	v[0] = 3;
	assert_int_equal(intervals_feed(iv, 7, 1000000005, v, one), 0);	/* bin 1e8 */
	v[0] = 6;
	assert_int_equal(intervals_feed(iv, 7, 505, v, one), 0);	/* late: bin 50 */
	v[0] = 10;
	assert_int_equal(intervals_feed(iv, 7, 1, v, one), 0);	/* before the first */
	const struct intervals_thread *t = intervals_find(iv, 7);
	assert_int_equal(t->nrows, 3);
	assert_int_equal(t->bins[0], 0);
	assert_int_equal(t->bins[1], 50);
	assert_int_equal(t->bins[2], 100000000);
	assert_int_equal(t->vals[0], 1 + 4);
	assert_int_equal(t->vals[1], 3);
	assert_int_equal(t->vals[2], 2);
	intervals_free(iv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intervals__ticks_become_deltas),
		cmocka_unit_test(test_intervals__threads_apart_and_late_start),
		cmocka_unit_test(test_intervals__rows_go_with_the_ticks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
