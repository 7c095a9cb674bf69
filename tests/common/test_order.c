/*
 * Tests for common/order: the sort orders and the median every folder
 * shares.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "common/order.h"

static void test_order__sorts_ascending(void **state)
{
	(void)state;
	double d[] = { 3.5, -1, 0, 1e300, -1e300, 2 };
	qsort(d, 6, sizeof(*d), order_double);
	for (size_t i = 1; i < 6; i++)
		assert_true(d[i - 1] <= d[i]);
	/* Far apart values must not wrap around, as a subtraction would. */
	int64_t v[] = { INT64_MAX, 0, INT64_MIN, -5, 5 };
	qsort(v, 5, sizeof(*v), order_i64);
	assert_true(v[0] == INT64_MIN && v[1] == -5 && v[2] == 0 && v[3] == 5 &&
		    v[4] == INT64_MAX);
	double a = 1, b = 1;
	assert_int_equal(order_double(&a, &b), 0);
}

static void test_order__median(void **state)
{
	(void)state;
	double odd[] = { 9, 1, 5 };
	assert_true(median_sort(odd, 3) == 5);
	assert_true(odd[0] == 1 && odd[2] == 9);	/* sorted in place */
	double even[] = { 4, 1, 3, 2 };
	assert_true(median_sort(even, 4) == 2.5);	/* the middle two's mean */
	double one[] = { -7 };
	assert_true(median_sort(one, 1) == -7);
	assert_true(isnan(median_sort(NULL, 0)));
}

static void test_order__nearest_rank(void **state)
{
	(void)state;
	/* ceil(q * n / 1000), at least 1. */
	assert_int_equal(nearest_rank(10, 500), 5);
	assert_int_equal(nearest_rank(10, 900), 9);
	assert_int_equal(nearest_rank(10, 990), 10);
	assert_int_equal(nearest_rank(10, 0), 1);
	assert_int_equal(nearest_rank(3, 500), 2);
	assert_int_equal(nearest_rank(1000, 999), 999);
	assert_int_equal(nearest_rank(0, 500), 1);
	/* q is capped at 1000: never past the last value. */
	assert_int_equal(nearest_rank(7, 1500), 7);
	/* No overflow where q * n would. */
	assert_true(nearest_rank(UINT64_MAX, 1000) == UINT64_MAX);
	assert_true(nearest_rank(UINT64_MAX, 500) == UINT64_MAX / 2 + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order__sorts_ascending),
		cmocka_unit_test(test_order__median),
		cmocka_unit_test(test_order__nearest_rank),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
