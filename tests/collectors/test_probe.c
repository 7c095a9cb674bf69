/*
 * Tests for collectors/probe: the curve's sizes (two a doubling, in
 * order), a short curve measured and stopped early, repeated sizes
 * (round the sizes, a spread around each median, stopped mid-round), and
 * the counting harness: a software event whose count is known (page
 * faults of freshly touched pages, counted 100% of the time), a counter
 * this machine may lack (it either opens or says why, and the benchmark
 * runs either way), an unknown name, and the four benchmarks in mission
 * order. Nothing here depends on timing or on which CPU runs it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collectors/probe.h"

static void test_probe__curve_sizes_two_a_doubling(void **state)
{
	(void)state;
	uint64_t s[64];
	size_t n = probe_curve_sizes(PROBE_MIN_BYTES, PROBE_MAX_BYTES, s, 64);
	/* 16 KiB .. 256 MiB: 14 doublings, two sizes each, and the last. */
	assert_int_equal(n, 29);
	assert_int_equal(s[0], 16 << 10);
	assert_int_equal(s[1], 24 << 10);
	assert_int_equal(s[n - 1], (uint64_t)256 << 20);
	for (size_t i = 1; i < n; i++) {
		assert_true(s[i] > s[i - 1]);
		uint64_t p = s[i] & (s[i] - 1) ? s[i] / 3 * 2 : s[i];
		assert_int_equal(p & (p - 1), 0);
	}
	/* cap bounds what is written, not what is counted. */
	assert_int_equal(probe_curve_sizes(16 << 10, 64 << 10, s, 2), 5);
	assert_int_equal(probe_curve_sizes(1 << 20, 1 << 19, s, 64), 0);
	/* Between grid sizes: the ones inside. */
	assert_int_equal(probe_curve_sizes(20 << 10, 40 << 10, s, 64), 2);
	assert_int_equal(s[0], 24 << 10);
	assert_int_equal(s[1], 32 << 10);
}

struct stop_after {
	size_t after, calls;
};

static int stop_cb(void *arg, size_t done, size_t total, const struct probe_point *p)
{
	struct stop_after *s = arg;
	s->calls++;
	assert_int_equal(done, s->calls);
	assert_int_equal(total, 5);
	assert_true(p->ns > 0);
	return done == s->after;
}

static void test_probe__short_curve_and_stop(void **state)
{
	(void)state;
	struct probe_curve_opts o = { .min_bytes = 16 << 10, .max_bytes = 64 << 10,
				      .ms_per_size = 1, .seed = 3 };
	struct probe_point *pts;
	size_t n;
	char *cause = NULL;
	assert_int_equal(probe_curve(&o, &pts, &n, &cause), 0);
	assert_int_equal(n, 5);
	const uint64_t want[] = { 16 << 10, 24 << 10, 32 << 10, 48 << 10, 64 << 10 };
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(pts[i].bytes, want[i]);
		assert_true(pts[i].ns > 0);
		/* At least the minimum batches, each 16,384 steps. */
		assert_true(pts[i].steps >= 3 * 16384);
		assert_true(pts[i].huge_bytes <= pts[i].bytes);
	}
	free(pts);

	struct stop_after s = { .after = 2 };
	o.progress = stop_cb;
	o.arg = &s;
	assert_int_equal(probe_curve(&o, &pts, &n, &cause), -ECANCELED);
	assert_int_equal(n, 2);
	assert_int_equal(pts[1].bytes, 24 << 10);
	free(pts);
	/* Stopping after the last size stops nothing. */
	s = (struct stop_after){ .after = 5 };
	assert_int_equal(probe_curve(&o, &pts, &n, &cause), 0);
	assert_int_equal(n, 5);
	free(pts);
}

struct count_calls {
	size_t calls;
	uint64_t last_bytes;
};

static int count_cb(void *arg, size_t done, size_t total, const struct probe_point *p)
{
	struct count_calls *c = arg;
	c->calls++;
	assert_int_equal(done, c->calls);
	assert_int_equal(total, 15);
	assert_int_equal(p->reps, 1);
	/* Round the sizes in order, then round again. */
	if (c->last_bytes)
		assert_true(p->bytes > c->last_bytes || p->bytes == 16 << 10);
	c->last_bytes = p->bytes;
	return 0;
}

static int stop_in_round_two(void *arg, size_t done, size_t total,
			     const struct probe_point *p)
{
	struct stop_after *s = arg;
	(void)p;
	assert_int_equal(total, 6);
	return done == s->after;
}

/* Repeated sizes: each measured reps times, round the sizes, its median
 * within its spread; stopped in the second round, every size is kept
 * with the repetitions it had. */
static void test_probe__repetitions_and_spread(void **state)
{
	(void)state;
	struct count_calls c = { 0 };
	struct probe_curve_opts o = { .min_bytes = 16 << 10, .max_bytes = 64 << 10,
				      .ms_per_size = 3, .reps = 3, .seed = 3,
				      .progress = count_cb, .arg = &c };
	struct probe_point *pts;
	size_t n;
	char *cause = NULL;
	assert_int_equal(probe_curve(&o, &pts, &n, &cause), 0);
	assert_int_equal(c.calls, 15);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++) {
		const struct probe_point *q = &pts[i];
		assert_int_equal(q->reps, 3);
		assert_true(q->ns_min > 0);
		assert_true(q->ns_min <= q->ns_q1 && q->ns_q1 <= q->ns &&
			    q->ns <= q->ns_q3 && q->ns_q3 <= q->ns_max);
		assert_true(q->steps >= 3 * 3 * 16384);
	}
	free(pts);

	struct stop_after s = { .after = 4 };
	o.progress = stop_in_round_two;
	o.arg = &s;
	o.reps = 2;
	o.max_bytes = 32 << 10;		/* 3 sizes, 6 repetitions */
	assert_int_equal(probe_curve(&o, &pts, &n, &cause), -ECANCELED);
	assert_int_equal(n, 3);
	assert_int_equal(pts[0].reps, 2);
	assert_int_equal(pts[1].reps, 1);
	assert_true(pts[1].ns == pts[1].ns_min && pts[1].ns == pts[1].ns_max);
	free(pts);
}

struct touch {
	char *mem;
	size_t pages, calls;
};

static void touch_pages(void *arg)
{
	struct touch *t = arg;
	long pg = sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < t->pages; i++)
		t->mem[i * (size_t)pg] = 1;
	t->calls++;
}

/* The harness on an event whose count is known: one fault a fresh page. */
static void test_probe__harness_counts_page_faults(void **state)
{
	(void)state;
	long pg = sysconf(_SC_PAGESIZE);
	struct touch t = { .pages = 256 };
	t.mem = mmap(NULL, t.pages * (size_t)pg, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(t.mem != MAP_FAILED);
	madvise(t.mem, t.pages * (size_t)pg, MADV_NOHUGEPAGE);
	struct probe_count c;
	probe_count_fn("page-faults", 0, touch_pages, &t, &c);
	assert_int_equal(t.calls, 1);
	if (!c.opened && c.reason && strstr(c.reason, "ermission"))
		skip();	/* perf_event_open not allowed here at all */
	if (!c.opened && c.reason && strstr(c.reason, "not implemented")) {
		fprintf(stderr, "skip: perf_event_open is not implemented here "
			"(qemu-user does not emulate it)\n");
		skip();
	}
	if (!c.opened)
		fail_msg("page-faults did not open: %s", c.reason ? c.reason : "?");
	assert_null(c.reason);
	assert_non_null(c.event);
	/* Every page once; the harness's own code adds a few, and under
	 * AddressSanitizer the shadow of the pages an eighth more. */
	if (c.value < t.pages || c.value > t.pages + t.pages / 4 + 16)
		fail_msg("%llu page faults for %zu fresh pages",
			 (unsigned long long)c.value, t.pages);
	/* A software event is counted all of the time. */
	assert_true(c.enabled > 0);
	assert_int_equal(c.running, c.enabled);
	probe_count_release(&c);
	munmap(t.mem, t.pages * (size_t)pg);
}

static void count_calls(void *arg)
{
	(*(int *)arg)++;
}

/* A counter that may be missing here: open, or a reason; fn runs once. */
static void test_probe__harness_missing_counter_says_why(void **state)
{
	(void)state;
	int calls = 0;
	struct probe_count c;
	probe_count_fn("branch-misses", 0, count_calls, &calls, &c);
	assert_int_equal(calls, 1);
	assert_true(c.opened ? c.reason == NULL : c.reason != NULL);
	probe_count_release(&c);

	calls = 0;
	probe_count_fn("no-such-event-anywhere", 0, count_calls, &calls, &c);
	assert_int_equal(calls, 1);
	assert_false(c.opened);
	assert_null(c.event);
	assert_non_null(c.reason);
	assert_non_null(strstr(c.reason, "unknown event"));
	probe_count_release(&c);
}

static void test_probe__benches_in_mission_order(void **state)
{
	(void)state;
	struct probe_bench_opts o = { .llc_bytes = 1 << 20, .l1i_bytes = 32 << 10,
				      .seed = 1 };
	struct probe_result r[PROBE_NBENCH];
	probe_benches(&o, r);
	const char *names[] = { "llc-misses", "itlb-misses", "l1i-misses",
				"branch-misses" };
	for (int i = 0; i < PROBE_NBENCH; i++) {
		assert_string_equal(r[i].name, names[i]);
		assert_non_null(r[i].bench);
#if defined(__x86_64__)
		if (!r[i].ran)
			fail_msg("%s did not run: %s", names[i],
				 r[i].error ? r[i].error : "?");
		assert_true(r[i].expected > 0);
#endif
		assert_true(r[i].count.opened ? !r[i].count.reason
					      : r[i].count.reason != NULL);
		probe_result_release(&r[i]);
	}
	/* The chase: 8x the last level, 64 MiB at least, 1 GiB at most. */
	assert_int_equal(probe_llc_chase_bytes(32 << 20), (uint64_t)256 << 20);
	assert_int_equal(probe_llc_chase_bytes(1 << 20), (uint64_t)64 << 20);
	assert_int_equal(probe_llc_chase_bytes((uint64_t)1 << 30), (uint64_t)1 << 30);
	assert_int_equal(probe_llc_chase_bytes(0), PROBE_MAX_BYTES);
	assert_int_equal(probe_l1i_walk_bytes(48 << 10), 192 << 10);
	assert_int_equal(probe_l1i_walk_bytes(0), 128 << 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe__curve_sizes_two_a_doubling),
		cmocka_unit_test(test_probe__short_curve_and_stop),
		cmocka_unit_test(test_probe__repetitions_and_spread),
		cmocka_unit_test(test_probe__harness_counts_page_faults),
		cmocka_unit_test(test_probe__harness_missing_counter_says_why),
		cmocka_unit_test(test_probe__benches_in_mission_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
