/*
 * percpu: sharing a multiplexed hardware group's deltas over the slices
 * of the workload that ran on its CPU while it was partly off the PMU
 * (percpu_share, issue 24). The rest of the per-CPU path needs a kernel:
 * tests/e2e (test_run, test_completeness) and, with a PMU, test_hwcount.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "collectors/percpu.h"

#define MS 1000000ull

/* Three slices of 10, 20 and 30 ms; the group counted 600 over 60 ms
 * enabled, 30 ms of them on the PMU: 100, 200 and 300, each with its
 * own time enabled and half of it running, so each scales by 2 as the
 * whole does. */
static void test_percpu__share_by_length(void **state)
{
	(void)state;
	const uint64_t len[] = { 10 * MS, 20 * MS, 30 * MS };
	const struct thread_count d[2] = {
		{ .value = 600, .enabled = 60 * MS, .running = 30 * MS, .present = true },
		{ 0 },	/* another group's event */
	};
	const uint64_t want[] = { 100, 200, 300 };
	uint64_t sum = 0;
	for (size_t i = 0; i < 3; i++) {
		struct thread_count out[2];
		percpu_share(d, 2, len, 3, i, out);
		assert_true(out[0].present);
		assert_int_equal(out[0].value, want[i]);
		assert_int_equal(out[0].enabled, len[i]);
		assert_int_equal(out[0].running, len[i] / 2);
		assert_false(out[1].present);
		assert_int_equal(out[1].value, 0);
		sum += out[0].value;
	}
	assert_int_equal(sum, 600);
}

/* Shares that do not divide evenly still add up to the whole: 100 over
 * three equal slices is 33, 33, 34 (rounded on the running sums). */
static void test_percpu__shares_add_up(void **state)
{
	(void)state;
	const uint64_t len[] = { 7, 7, 7 };
	const struct thread_count d = { .value = 100, .enabled = 10, .running = 5,
					.present = true };
	uint64_t v = 0, en = 0, run = 0;
	for (size_t i = 0; i < 3; i++) {
		struct thread_count out;
		percpu_share(&d, 1, len, 3, i, &out);
		assert_true(out.value == 33 || out.value == 34);
		v += out.value;
		en += out.enabled;
		run += out.running;
	}
	assert_int_equal(v, 100);
	assert_int_equal(en, 10);
	assert_int_equal(run, 5);
}

/* Large counts over long slices do not overflow: 2^62 over an hour
 * split at one ns and the rest. */
static void test_percpu__large_values(void **state)
{
	(void)state;
	const uint64_t hour = 3600ull * 1000 * MS;
	const uint64_t len[] = { 1, hour - 1 };
	const struct thread_count d = { .value = 1ull << 62, .enabled = hour,
					.running = hour / 3, .present = true };
	struct thread_count a, b;
	percpu_share(&d, 1, len, 2, 0, &a);
	percpu_share(&d, 1, len, 2, 1, &b);
	assert_int_equal(a.value, (1ull << 62) / hour);
	assert_int_equal(a.value + b.value, 1ull << 62);
	assert_int_equal(a.enabled, 1);
	assert_int_equal(a.enabled + b.enabled, hour);
	assert_int_equal(a.running + b.running, hour / 3);
}

/* No length at all (nothing to go by): empty shares, never a division
 * by zero. */
static void test_percpu__no_length(void **state)
{
	(void)state;
	const uint64_t len[] = { 0, 0 };
	const struct thread_count d = { .value = 5, .enabled = 1, .running = 1,
					.present = true };
	struct thread_count out;
	percpu_share(&d, 1, len, 2, 1, &out);
	assert_true(out.present);
	assert_int_equal(out.value, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percpu__share_by_length),
		cmocka_unit_test(test_percpu__shares_add_up),
		cmocka_unit_test(test_percpu__large_values),
		cmocka_unit_test(test_percpu__no_length),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
