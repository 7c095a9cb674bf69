/*
 * Tests for collectors/pirate: the chase is one cycle through every line
 * of the size asked for, within its buffer; the co-runner walks, counts,
 * pauses (and then touches nothing) and refuses to walk more than its
 * bound; the held-bytes model clamps and refuses what it cannot tell.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/pirate.h"

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

/* A CPU this test may run a thread on. */
static int some_cpu(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &set))
			return c;
	return 0;
}

static void check_cycle(const struct chase *c)
{
	size_t n = c->bytes / CHASE_LINE;
	unsigned char *seen = calloc(n, 1);
	size_t start = (size_t)((char *)c->head - c->buf) / CHASE_LINE, i = start;
	for (size_t k = 0; k < n; k++) {
		assert_true(i < n);
		assert_int_equal(seen[i], 0);
		seen[i] = 1;
		i = chase_next_index(c, i);
	}
	/* Back at the start after exactly n steps: one cycle, every line. */
	assert_int_equal(i, start);
	free(seen);
}

static void test_pirate__chase_is_one_cycle_of_every_line(void **state)
{
	(void)state;
	struct chase c;
	assert_int_equal(chase_init(&c, 1 << 20, 7, NULL), 0);
	assert_true(c.cap >= 1 << 20);
	assert_int_equal(chase_link(&c, 64 * 1000, NULL), 0);
	assert_int_equal(c.bytes, 64 * 1000);
	check_cycle(&c);
	/* Relinked smaller: a new cycle over the prefix only. */
	assert_int_equal(chase_link(&c, 64 * 3 + 17, NULL), 0);
	assert_int_equal(c.bytes, 64 * 3);
	check_cycle(&c);
	/* The whole buffer, and a walk of n steps comes back where it began. */
	assert_int_equal(chase_link(&c, c.cap, NULL), 0);
	check_cycle(&c);
	assert_ptr_equal(chase_walk(c.head, c.cap / CHASE_LINE), c.head);
	chase_release(&c);
}

static void test_pirate__chase_refuses_what_does_not_fit(void **state)
{
	(void)state;
	struct chase c;
	char *cause = NULL;
	assert_int_equal(chase_init(&c, 4096, 1, NULL), 0);
	assert_int_equal(chase_link(&c, 8192, &cause), -EINVAL);
	assert_non_null(strstr(cause, "does not fit"));
	free(cause);
	assert_int_equal(chase_link(&c, 64, NULL), -EINVAL);	/* one line */
	chase_release(&c);
}

static void test_pirate__timed_walks(void **state)
{
	(void)state;
	struct chase c;
	assert_int_equal(chase_init(&c, 64 << 10, 3, NULL), 0);
	assert_int_equal(chase_link(&c, 16 << 10, NULL), 0);
	double ns = chase_ns_per_line(&c, 100000, false);
	assert_true(isfinite(ns) && ns > 0);
	double fl = chase_ns_per_line(&c, 10000, true);
	if (chase_can_flush())
		assert_true(isfinite(fl) && fl > 0);
	else
		assert_true(isnan(fl));
	chase_release(&c);
}

static void test_pirate__walks_counts_pauses_and_stops(void **state)
{
	(void)state;
	struct pirate p;
	char *cause = NULL;
	assert_int_equal(pirate_start(&p, some_cpu(), 256 << 10, &cause), 0);
	assert_int_equal(pirate_walk(&p, 64 << 10, 2, 5.0, &cause), 0);
	/* It returned after two passes over 1024 lines at least. */
	assert_true(atomic_load(&p.passes) >= 2);
	pirate_window_open(&p);
	nap(0.05);
	struct pirate_stats s;
	pirate_window_read(&p, &s);
	assert_int_equal(s.bytes, 64 << 10);
	assert_true(s.lines > 0);
	assert_true(isfinite(s.ns_per_line) && s.ns_per_line > 0);
	pirate_pause(&p);
	uint64_t lines = atomic_load(&p.lines);
	nap(0.05);
	/* Paused: not one more line. */
	assert_int_equal(atomic_load(&p.lines), lines);
	/* Nothing above the bound, which is the domain's size. */
	assert_int_equal(pirate_walk(&p, 512 << 10, 1, 1.0, &cause), -EINVAL);
	assert_non_null(strstr(cause, "at most"));
	free(cause);
	cause = NULL;
	double alone, mem;
	assert_int_equal(pirate_calibrate(&p, 32 << 10, 20000, &alone, &mem, &cause), 0);
	assert_true(alone > 0);
	assert_int_equal(pirate_calibrate(&p, 1 << 20, 20000, &alone, &mem, &cause),
			 -EINVAL);
	free(cause);
	pirate_stop(&p);
	pirate_stop(&p);	/* twice is harmless */
}

static void test_pirate__refuses_a_cpu_it_cannot_use(void **state)
{
	(void)state;
	struct pirate p;
	char *cause = NULL;
	assert_int_equal(pirate_start(&p, -1, 4096, &cause), -EINVAL);
	assert_non_null(strstr(cause, "cpu -1"));
	free(cause);
	pirate_stop(&p);	/* never started: harmless */
}

static void test_pirate__held_bytes(void **state)
{
	(void)state;
	/* At the hit time it holds everything, at the miss time nothing,
	 * halfway half; beyond either end it clamps. */
	assert_true(pirate_held_bytes(8e6, 15, 15, 115) == 8e6);
	assert_true(pirate_held_bytes(8e6, 115, 15, 115) == 0);
	assert_true(fabs(pirate_held_bytes(8e6, 65, 15, 115) - 4e6) < 1);
	assert_true(pirate_held_bytes(8e6, 10, 15, 115) == 8e6);
	assert_true(pirate_held_bytes(8e6, 150, 15, 115) == 0);
	/* A miss no slower than a hit, or no measurement: cannot tell. */
	assert_true(isnan(pirate_held_bytes(8e6, 50, 100, 100)));
	assert_true(isnan(pirate_held_bytes(8e6, 50, 15, NAN)));
	assert_true(isnan(pirate_held_bytes(8e6, NAN, 15, 115)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pirate__chase_is_one_cycle_of_every_line),
		cmocka_unit_test(test_pirate__chase_refuses_what_does_not_fit),
		cmocka_unit_test(test_pirate__timed_walks),
		cmocka_unit_test(test_pirate__walks_counts_pauses_and_stops),
		cmocka_unit_test(test_pirate__refuses_a_cpu_it_cannot_use),
		cmocka_unit_test(test_pirate__held_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
