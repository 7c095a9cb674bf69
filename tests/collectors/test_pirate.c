/*
 * Tests for collectors/pirate: the chase's cycles visit every line of the
 * size asked for once, within its buffer; the co-runner walks, counts,
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

/* The chains are cycles that together visit every line exactly once. */
static void check_cycles(const struct chase *c)
{
	size_t n = c->bytes / CHASE_LINE, total = 0;
	unsigned char *seen = calloc(n, 1);
	for (unsigned k = 0; k < c->chains; k++) {
		size_t start = (size_t)((char *)c->heads[k] - c->buf) / CHASE_LINE;
		size_t i = start, len = 0;
		do {
			assert_true(i < n);
			assert_int_equal(seen[i], 0);
			seen[i] = 1;
			i = chase_next_index(c, i);
			len++;
		} while (i != start && len <= n);
		/* Back at its start: a cycle, of its share of the lines. */
		assert_int_equal(i, start);
		assert_true(len >= n / c->chains && len <= n / c->chains + 1);
		total += len;
	}
	assert_int_equal(total, n);
	free(seen);
}

static void test_pirate__chase_cycles_cover_every_line(void **state)
{
	(void)state;
	struct chase c;
	assert_int_equal(chase_init(&c, 1 << 20, 7, NULL), 0);
	assert_true(c.cap >= 1 << 20);
	assert_int_equal(chase_link(&c, 64 * 1000, 1, NULL), 0);
	assert_int_equal(c.bytes, 64 * 1000);
	check_cycles(&c);
	/* Relinked smaller: a new cycle over the prefix only. */
	assert_int_equal(chase_link(&c, 64 * 3 + 17, 1, NULL), 0);
	assert_int_equal(c.bytes, 64 * 3);
	check_cycles(&c);
	/* Eight chains over 1001 lines: cycles of 125 or 126, every line once. */
	assert_int_equal(chase_link(&c, 64 * 1001, 8, NULL), 0);
	assert_int_equal(c.chains, 8);
	check_cycles(&c);
	/* The whole buffer, and a walk of n steps comes back where it began. */
	assert_int_equal(chase_link(&c, c.cap, 1, NULL), 0);
	check_cycles(&c);
	assert_ptr_equal(chase_walk(c.head, c.cap / CHASE_LINE), c.head);
	/* Eight at once, a pass each: every chain back at its start. */
	assert_int_equal(chase_link(&c, c.cap, 8, NULL), 0);
	void *pos[CHASE_CHAINS_MAX];
	memcpy(pos, c.heads, sizeof(pos));
	chase_walk_chains(pos, 8, c.cap / CHASE_LINE / 8, false);
	for (int k = 0; k < 8; k++)
		assert_ptr_equal(pos[k], c.heads[k]);
	chase_release(&c);
}

static void test_pirate__chase_refuses_what_does_not_fit(void **state)
{
	(void)state;
	struct chase c;
	char *cause = NULL;
	assert_int_equal(chase_init(&c, 4096, 1, NULL), 0);
	assert_int_equal(chase_link(&c, 8192, 1, &cause), -EINVAL);
	assert_non_null(strstr(cause, "does not fit"));
	free(cause);
	assert_int_equal(chase_link(&c, 64, 1, NULL), -EINVAL);	/* one line */
	assert_int_equal(chase_link(&c, 64 * 15, 8, NULL), -EINVAL);	/* < 2 a chain */
	assert_int_equal(chase_link(&c, 4096, 0, NULL), -EINVAL);
	assert_int_equal(chase_link(&c, 4096, CHASE_CHAINS_MAX + 1, NULL), -EINVAL);
	chase_release(&c);
}

static void test_pirate__timed_walks(void **state)
{
	(void)state;
	struct chase c;
	assert_int_equal(chase_init(&c, 64 << 10, 3, NULL), 0);
	assert_int_equal(chase_link(&c, 16 << 10, 8, NULL), 0);
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
		cmocka_unit_test(test_pirate__chase_cycles_cover_every_line),
		cmocka_unit_test(test_pirate__chase_refuses_what_does_not_fit),
		cmocka_unit_test(test_pirate__timed_walks),
		cmocka_unit_test(test_pirate__walks_counts_pauses_and_stops),
		cmocka_unit_test(test_pirate__refuses_a_cpu_it_cannot_use),
		cmocka_unit_test(test_pirate__held_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
