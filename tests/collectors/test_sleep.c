/*
 * Tests for collectors/sleep: the percentile and bucket arithmetic (by
 * hand), parsing and its errors, short real benchmark cells in every mode,
 * the ELF check, and the interposer end to end: tests/helpers/
 * sleep_workload run with LD_PRELOAD of the built libprof-sleep.so and a
 * report memfd, checked both by what the workload saw and by the report.
 *
 * Timing assertions are only those that cannot flake on a busy VM: counts,
 * no early wakes, a sleep lasting at least its target, and whether a mode
 * blocks at all (voluntary context switches), never how small an
 * overshoot is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <sys/mman.h>

#include "collectors/sleep.h"
#include "test_util.h"

#define PRELOAD_LIB BUILD_DIR "/bin/" SLEEP_PRELOAD_LIB
#define WORKLOAD HELPERS_DIR "/sleep_workload"

/* ------------------------------------------------------------ arithmetic */

static void test_sleep__percentile_nearest_rank(void **state)
{
	(void)state;
	/* rank = ceil(q/1000 * n): for 1..10, p50 is the 5th value, p90 the
	 * 9th, p99 ceil(9.9) = the 10th, p0 the 1st (rank clamped to 1) */
	const int64_t ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	assert_int_equal(sleep_percentile(ten, 10, 500), 5);
	assert_int_equal(sleep_percentile(ten, 10, 900), 9);
	assert_int_equal(sleep_percentile(ten, 10, 990), 10);
	assert_int_equal(sleep_percentile(ten, 10, 999), 10);
	assert_int_equal(sleep_percentile(ten, 10, 1000), 10);
	assert_int_equal(sleep_percentile(ten, 10, 0), 1);
	/* 10, 20, 30: p50 = ceil(1.5) = 2nd, p90 = ceil(2.7) = 3rd */
	const int64_t three[] = { 10, 20, 30 };
	assert_int_equal(sleep_percentile(three, 3, 500), 20);
	assert_int_equal(sleep_percentile(three, 3, 900), 30);
	assert_int_equal(sleep_percentile(three, 1, 999), 10);
	/* 0..999: p99.9 is rank 999 exactly, the value 998; a floating
	 * ceil(0.999 * 1000) gives 1000 and would pick 999 */
	int64_t *k = malloc(1000 * sizeof(*k));
	for (int i = 0; i < 1000; i++)
		k[i] = i;
	assert_int_equal(sleep_percentile(k, 1000, 999), 998);
	assert_int_equal(sleep_percentile(k, 1000, 990), 989);
	assert_int_equal(sleep_percentile(k, 1000, 500), 499);
	free(k);
}

static void test_sleep__stats_buckets_are_exclusive_ranges(void **state)
{
	(void)state;
	/* one value each side of every bucket edge (ns), plus an early
	 * wake; unsorted on purpose */
	int64_t v[] = { 50000, 3000, -5, 1000000, 2999, 9999, 0, 10000,
			25000, 24999, 49999 };
	struct sleep_stats st;
	sleep_stats_compute(v, 11, &st);
	assert_int_equal(st.n, 11);
	/* [0,3) us holds -5, 0, 2999; [3,10) 3000, 9999; [10,25) 10000,
	 * 24999; [25,50) 25000, 49999; [50,inf) 50000, 1000000 */
	assert_int_equal(st.buckets[SLEEP_BUCKET_LT3], 3);
	assert_int_equal(st.buckets[SLEEP_BUCKET_LT10], 2);
	assert_int_equal(st.buckets[SLEEP_BUCKET_LT25], 2);
	assert_int_equal(st.buckets[SLEEP_BUCKET_LT50], 2);
	assert_int_equal(st.buckets[SLEEP_BUCKET_GE50], 2);
	assert_int_equal(st.early, 1);
	assert_int_equal(st.min_ns, -5);
	assert_int_equal(st.max_ns, 1000000);
	/* sorted: -5 0 2999 3000 9999 10000 ...; p50 rank ceil(5.5) = 6 */
	assert_int_equal(st.p50_ns, 10000);
	/* p90 rank ceil(9.9) = 10: 50000; p99 rank 11 */
	assert_int_equal(st.p90_ns, 50000);
	assert_int_equal(st.p99_ns, 1000000);
	/* sum by hand 1175991, over 11 */
	assert_true(st.mean_ns > 106908.2 && st.mean_ns < 106908.3);
	assert_string_equal(sleep_bucket_name(SLEEP_BUCKET_LT3), "lt3");
	assert_string_equal(sleep_bucket_name(SLEEP_BUCKET_GE50), "ge50");

	sleep_stats_compute(v, 0, &st);
	assert_int_equal(st.n, 0);
	assert_int_equal(st.buckets[SLEEP_BUCKET_LT3], 0);
}

static void test_sleep__hist_buckets_cover_without_gaps(void **state)
{
	(void)state;
	/* hand: 31 is the last 1-ns bucket; 32..33 share bucket 32;
	 * 100 = 0b1100100, top bit 6, shift 2, 100>>2 = 25 -> 32+25 = 57
	 * spanning [100, 104) */
	assert_int_equal(sleep_hist_bucket(0), 0);
	assert_int_equal(sleep_hist_bucket(31), 31);
	assert_int_equal(sleep_hist_bucket(32), 32);
	assert_int_equal(sleep_hist_bucket(33), 32);
	assert_int_equal(sleep_hist_bucket(34), 33);
	assert_int_equal(sleep_hist_bucket(100), 57);
	uint64_t lo, hi;
	sleep_hist_bounds(57, &lo, &hi);
	assert_int_equal(lo, 100);
	assert_int_equal(hi, 104);
	assert_int_equal(sleep_hist_bucket((1ull << 32) - 1),
			 SLEEP_OVER_BUCKETS - 2);
	assert_int_equal(sleep_hist_bucket(1ull << 32),
			 SLEEP_OVER_BUCKETS - 1);
	assert_int_equal(sleep_hist_bucket(UINT64_MAX), SLEEP_OVER_BUCKETS - 1);
	/* every bucket starts where the previous ended, and each is at most
	 * 1/16 of its lower bound wide past the linear part */
	uint64_t prev_hi = 0;
	for (unsigned b = 0; b < SLEEP_OVER_BUCKETS - 1; b++) {
		sleep_hist_bounds(b, &lo, &hi);
		assert_int_equal(lo, prev_hi);
		assert_true(hi > lo);
		if (lo >= 32)
			assert_true((hi - lo) * 16 <= lo);
		assert_int_equal(sleep_hist_bucket(lo), b);
		assert_int_equal(sleep_hist_bucket(hi - 1), b);
		prev_hi = hi;
	}
	assert_int_equal(prev_hi, 1ull << 32);
	/* requested durations: log2 buckets of whole us */
	assert_int_equal(sleep_req_bucket(999), 0);
	assert_int_equal(sleep_req_bucket(1000), 1);
	assert_int_equal(sleep_req_bucket(30000), 5);	/* 30 in [16,32) */
	assert_int_equal(sleep_req_bucket(UINT64_MAX), SLEEP_REQ_BUCKETS - 1);
}

static void test_sleep__hist_percentiles_by_hand(void **state)
{
	(void)state;
	uint64_t *h = calloc(SLEEP_OVER_BUCKETS, sizeof(*h));
	struct sleep_hist_stats st;
	/* 4 x 5 ns, 5 x 100 ns, 1 x 1000 ns */
	h[sleep_hist_bucket(5)] += 4;
	h[sleep_hist_bucket(100)] += 5;
	h[sleep_hist_bucket(1000)] += 1;
	sleep_hist_percentiles(h, 1000, 20 + 500 + 1000, &st);
	assert_int_equal(st.n, 10);
	/* p50 rank 5: in 100's bucket [100,104), midpoint 100 + 3/2 = 101 */
	assert_int_equal(st.p50_ns, 101);
	assert_int_equal(st.p90_ns, 101);
	/* p99 rank 10: 1000's bucket is [992,1024), midpoint 1007, clamped
	 * to the exact maximum 1000 */
	assert_int_equal(st.p99_ns, 1000);
	assert_int_equal(st.p999_ns, 1000);
	assert_int_equal(st.max_ns, 1000);
	assert_true(st.mean_ns == 152.0);
	memset(h, 0, SLEEP_OVER_BUCKETS * sizeof(*h));
	sleep_hist_percentiles(h, 0, 0, &st);
	assert_int_equal(st.n, 0);
	assert_int_equal(st.p50_ns, 0);
	free(h);
}

/*
 * The histogram comes from memory the workload can write. Found by
 * fuzz_sleepreport (tests/fuzz/regressions/sleepreport/): counts whose sum
 * overflowed gave ranks out of order or no calls at all, and a count in
 * the overflow bucket beside a smaller maximum put p99.9 above the max.
 */
static void test_sleep__hist_percentiles_of_scribbled_counts(void **state)
{
	(void)state;
	uint64_t *h = calloc(SLEEP_OVER_BUCKETS, sizeof(*h));
	struct sleep_hist_stats st;
	/* Two halves of 2^64: the total stops at UINT64_MAX, not 0. */
	h[sleep_hist_bucket(5)] = 1ull << 63;
	h[sleep_hist_bucket(100)] = 1ull << 63;
	sleep_hist_percentiles(h, 1000, 0, &st);
	assert_int_equal(st.n, UINT64_MAX);
	assert_int_equal(st.p50_ns, 5);
	assert_int_equal(st.p90_ns, 101);
	assert_int_equal(st.p999_ns, 101);
	/* A call in the overflow bucket but a maximum of 7 ns: everything
	 * is clamped to the maximum, nothing lies above it. */
	memset(h, 0, SLEEP_OVER_BUCKETS * sizeof(*h));
	h[SLEEP_OVER_BUCKETS - 1] = 3;
	sleep_hist_percentiles(h, 7, 21, &st);
	assert_int_equal(st.n, 3);
	assert_int_equal(st.p50_ns, 7);
	assert_int_equal(st.p999_ns, 7);
	assert_int_equal(st.max_ns, 7);
	free(h);
}

/* ------------------------------------------------------------ parsing */

static void expect_mode_error(const char *word, const char *needle)
{
	struct sleep_mode_spec m;
	char *cause = NULL;
	assert_int_equal(sleep_mode_parse(word, &m, &cause), -EINVAL);
	assert_non_null(cause);
	if (!strstr(cause, needle))
		fail_msg("cause '%s' lacks '%s'", cause, needle);
	free(cause);
}

static void test_sleep__mode_parse(void **state)
{
	(void)state;
	struct sleep_mode_spec m;
	char buf[32];
	for (int i = 0; i < SLEEP_MODE_COUNT; i++) {
		const char *name = sleep_mode_name((enum sleep_mode)i);
		assert_int_equal(sleep_mode_parse(name, &m, NULL), 0);
		assert_int_equal(m.mode, i);
		assert_int_equal(m.margin_ns, -1);
		sleep_mode_format(&m, buf, sizeof(buf));
		assert_string_equal(buf, name);
	}
	assert_int_equal(sleep_mode_parse("hybrid:12", &m, NULL), 0);
	assert_int_equal(m.mode, SLEEP_MODE_HYBRID);
	assert_int_equal(m.margin_ns, 12000);
	sleep_mode_format(&m, buf, sizeof(buf));
	assert_string_equal(buf, "hybrid:12");
	assert_int_equal(sleep_mode_parse("hybrid:0", &m, NULL), 0);
	assert_int_equal(m.margin_ns, 0);
	m.margin_ns = 12500;
	sleep_mode_format(&m, buf, sizeof(buf));
	assert_string_equal(buf, "hybrid:12.5");

	expect_mode_error("sleepy", "unknown sleep mode 'sleepy'");
	expect_mode_error("", "unknown sleep mode ''");
	expect_mode_error("hybrid:", "bad hybrid margin ''");
	expect_mode_error("hybrid:-3", "bad hybrid margin '-3'");
	expect_mode_error("hybrid:5us", "not a whole number");
	expect_mode_error("hybrid:100001", "too large");
	expect_mode_error("timerfd:5", "takes no argument");
	expect_mode_error("TIMERFD", "unknown sleep mode");
	assert_true(sleep_mode_is_bench(SLEEP_MODE_HYBRID));
	assert_false(sleep_mode_is_bench(SLEEP_MODE_PASSTHROUGH));
	assert_true(sleep_mode_is_preload(SLEEP_MODE_PASSTHROUGH));
	assert_false(sleep_mode_is_preload(SLEEP_MODE_CONDVAR));
}

static void test_sleep__lists_parse(void **state)
{
	(void)state;
	struct sleep_mode_spec *modes;
	uint32_t *d;
	size_t n;
	char *cause = NULL;
	enum sleep_pattern p;

	assert_int_equal(sleep_modes_parse("timerfd,hybrid:5,spin", &modes, &n,
					   NULL), 0);
	assert_int_equal(n, 3);
	assert_int_equal(modes[0].mode, SLEEP_MODE_TIMERFD);
	assert_int_equal(modes[1].mode, SLEEP_MODE_HYBRID);
	assert_int_equal(modes[1].margin_ns, 5000);
	assert_int_equal(modes[2].mode, SLEEP_MODE_SPIN);
	free(modes);
	assert_int_equal(sleep_modes_parse("timerfd,,spin", &modes, &n, &cause),
			 -EINVAL);
	assert_non_null(strstr(cause, "empty item"));
	free(cause);
	assert_int_equal(sleep_modes_parse("timerfd,passthrough", &modes, &n,
					   &cause), -EINVAL);
	assert_non_null(strstr(cause, "cannot be benchmarked"));
	assert_null(modes);
	free(cause);
	assert_int_equal(sleep_modes_parse("timerfd,bogus", &modes, &n,
					   &cause), -EINVAL);
	assert_non_null(strstr(cause, "'bogus'"));
	free(cause);

	assert_int_equal(sleep_durations_parse("10,20,100000", &d, &n, NULL), 0);
	assert_int_equal(n, 3);
	assert_int_equal(d[0], 10);
	assert_int_equal(d[2], 100000);
	free(d);
	static const char *const bad[] = { "10,-5", "0", "100001",
					   "99999999999999999999", "10,", ",10",
					   "1e3", "", "10 ,20" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cause = NULL;
		assert_int_equal(sleep_durations_parse(bad[i], &d, &n, &cause),
				 -EINVAL);
		assert_null(d);
		assert_non_null(cause);
		free(cause);
	}
	assert_int_equal(sleep_durations_parse("10,-5", &d, &n, &cause),
			 -EINVAL);
	assert_string_equal(cause, "bad duration '-5': not a whole number of "
			    "microseconds\nhint: durations are whole "
			    "microseconds from 1 to 100000, as in '10,20,30'");
	free(cause);
	assert_int_equal(sleep_durations_parse("200000", &d, &n, &cause),
			 -EINVAL);
	assert_non_null(strstr(cause, "'200000': out of range"));
	free(cause);

	assert_int_equal(sleep_pattern_parse("periodic", &p, NULL), 0);
	assert_int_equal(p, SLEEP_PERIODIC);
	assert_int_equal(sleep_pattern_parse("oneshot", &p, NULL), 0);
	assert_int_equal(p, SLEEP_ONESHOT);
	assert_int_equal(sleep_pattern_parse("cyclic", &p, &cause), -EINVAL);
	assert_non_null(strstr(cause, "'cyclic'"));
	free(cause);
}

static void test_sleep__preload_config_parse(void **state)
{
	(void)state;
	struct sleep_preload_config c;
	char *cause = NULL;

	/* defaults: timerfd, 1000 us, the default spinner cap (the
	 * interposer sizes it from its own CPUs) */
	assert_int_equal(sleep_preload_config_parse(NULL, NULL, NULL, &c, NULL),
			 0);
	assert_int_equal(c.mode.mode, SLEEP_MODE_TIMERFD);
	assert_int_equal(c.threshold_ns, 1000000);
	assert_int_equal(c.max_spinners, 0);
	assert_true(c.spinners_default);
	assert_int_equal(sleep_preload_config_parse("hybrid:7", "250", "3", &c,
						    NULL), 0);
	assert_int_equal(c.mode.mode, SLEEP_MODE_HYBRID);
	assert_int_equal(c.mode.margin_ns, 7000);
	assert_int_equal(c.threshold_ns, 250000);
	assert_int_equal(c.max_spinners, 3);
	assert_false(c.spinners_default);
	assert_int_equal(sleep_preload_config_parse(NULL, "1000000", NULL, &c,
						    NULL), 0);
	assert_int_equal(c.threshold_ns, 1000000000ull);

	assert_int_equal(sleep_preload_config_parse(NULL, "1000001", NULL, &c,
						    &cause), -EINVAL);
	assert_non_null(strstr(cause, "sleep threshold '1000001' us is out of "
			       "range"));
	assert_non_null(strstr(cause, "one second"));
	free(cause);
	assert_int_equal(sleep_preload_config_parse(NULL, "0", NULL, &c,
						    &cause), -EINVAL);
	assert_non_null(strstr(cause, "out of range"));
	free(cause);
	assert_int_equal(sleep_preload_config_parse(NULL, "-1", NULL, &c,
						    &cause), -EINVAL);
	assert_non_null(strstr(cause, "not a whole number"));
	free(cause);
	/* 0 is no cap, not an error (it was refused as out of range) */
	assert_int_equal(sleep_preload_config_parse(NULL, NULL, "0", &c,
						    &cause), 0);
	assert_int_equal(c.max_spinners, 0);
	assert_false(c.spinners_default);
	assert_int_equal(sleep_preload_config_parse(NULL, NULL, "4097", &c,
						    &cause), -EINVAL);
	assert_string_equal(cause, "bad max-spinners '4097': out of range\n"
			    "hint: give 1 to 4096 threads, 0 for no cap, or "
			    "leave it unset for a quarter of the CPUs");
	free(cause);
	assert_int_equal(sleep_preload_config_parse(NULL, NULL, "lots", &c,
						    &cause), -EINVAL);
	assert_non_null(strstr(cause, "not a whole number"));
	free(cause);
	assert_int_equal(sleep_preload_config_parse("condvar", NULL, NULL, &c,
						    &cause), -EINVAL);
	assert_non_null(strstr(cause, "mode 'condvar' cannot serve"));
	free(cause);
	assert_int_equal(sleep_preload_config_parse("nap", NULL, NULL, &c,
						    &cause), -EINVAL);
	assert_non_null(strstr(cause, "unknown sleep mode 'nap'"));
	free(cause);
}

/* ------------------------------------------------------------ bench */

static void test_sleep__cheapest_by_hand(void **state)
{
	(void)state;
	struct sleep_cell cells[5];
	memset(cells, 0, sizeof(cells));
	/* target 30: spin is precise but dear, timerfd misses the 10 us
	 * p99, hybrid is precise and cheaper than spin: hybrid wins */
	cells[0] = (struct sleep_cell){ .mode = { SLEEP_MODE_SPIN, -1 },
		.target_us = 30, .calls = 10, .cpu_us_per_call = 31.0,
		.over = { .p99_ns = 400 } };
	cells[1] = (struct sleep_cell){ .mode = { SLEEP_MODE_TIMERFD, -1 },
		.target_us = 30, .calls = 10, .cpu_us_per_call = 3.0,
		.over = { .p99_ns = 60000 } };
	cells[2] = (struct sleep_cell){ .mode = { SLEEP_MODE_HYBRID, 8000 },
		.target_us = 30, .calls = 10, .cpu_us_per_call = 12.0,
		.over = { .p99_ns = 9999 } };
	/* target 10: only a p99 of exactly 10 us, which is not under */
	cells[3] = (struct sleep_cell){ .mode = { SLEEP_MODE_YIELD, -1 },
		.target_us = 10, .calls = 10, .cpu_us_per_call = 1.0,
		.over = { .p99_ns = 10000 } };
	cells[4] = (struct sleep_cell){ .mode = { SLEEP_MODE_SPIN, -1 },
		.target_us = 50, .calls = 10, .cpu_us_per_call = 50.0,
		.over = { .p99_ns = 100 } };
	struct sleep_bench b = { .cells = cells, .ncells = 5 };
	const struct sleep_cell *c = sleep_bench_cheapest(&b, 30,
							  SLEEP_CHEAP_P99_US);
	assert_ptr_equal(c, &cells[2]);
	assert_null(sleep_bench_cheapest(&b, 10, SLEEP_CHEAP_P99_US));
	assert_ptr_equal(sleep_bench_cheapest(&b, 50, SLEEP_CHEAP_P99_US),
			 &cells[4]);
	assert_null(sleep_bench_cheapest(&b, 70, SLEEP_CHEAP_P99_US));
	/* a looser limit lets timerfd in, and it is cheapest */
	assert_ptr_equal(sleep_bench_cheapest(&b, 30, 100.0), &cells[1]);
}

static void test_sleep__bench_rejects_bad_options(void **state)
{
	(void)state;
	struct sleep_bench_opts o;
	struct sleep_bench b;
	char *cause = NULL;
	uint32_t zero = 0;
	struct sleep_mode_spec pass = { SLEEP_MODE_PASSTHROUGH, -1 };

	sleep_bench_opts_init(&o);
	o.threads = SLEEP_THREADS_MAX + 1;
	assert_int_equal(sleep_bench_run(&o, &b, &cause), -EINVAL);
	assert_string_equal(cause, "sleeping threads 1025 out of range\n"
			    "hint: give 1 to 1024");
	free(cause);
	sleep_bench_release(&b);

	sleep_bench_opts_init(&o);
	o.durations_us = &zero;
	o.ndurations = 1;
	assert_int_equal(sleep_bench_run(&o, &b, &cause), -EINVAL);
	assert_non_null(strstr(cause, "duration 0 us out of range"));
	free(cause);
	sleep_bench_release(&b);

	sleep_bench_opts_init(&o);
	o.modes = &pass;
	o.nmodes = 1;
	assert_int_equal(sleep_bench_run(&o, &b, &cause), -EINVAL);
	assert_non_null(strstr(cause, "'passthrough' cannot be benchmarked"));
	free(cause);
	sleep_bench_release(&b);

	sleep_bench_opts_init(&o);
	o.load = SLEEP_LOAD_MAX + 1;
	assert_int_equal(sleep_bench_run(&o, &b, &cause), -EINVAL);
	assert_non_null(strstr(cause, "load threads 1025 out of range"));
	free(cause);
	sleep_bench_release(&b);
}

struct progress_log {
	size_t calls, stop_after, last_done, last_total;
};

static int progress_cb(void *arg, size_t done, size_t total,
		       const struct sleep_cell *cell)
{
	struct progress_log *p = arg;
	assert_non_null(cell);
	p->calls++;
	p->last_done = done;
	p->last_total = total;
	return p->stop_after && p->calls >= p->stop_after;
}

static bool mode_blocks(enum sleep_mode m)
{
	return m == SLEEP_MODE_NANOSLEEP || m == SLEEP_MODE_SLACK1 ||
	       m == SLEEP_MODE_CLOCK_ABS || m == SLEEP_MODE_TIMERFD ||
	       m == SLEEP_MODE_CONDVAR;
}

/* Facts every cell must hold, however noisy the machine. */
static void check_cell(const struct sleep_cell *c, uint64_t calls,
		       uint32_t per_thread_calls, bool oneshot)
{
	char name[32];
	sleep_mode_format(&c->mode, name, sizeof(name));
	assert_int_equal(c->calls, calls);
	assert_int_equal(c->over.n, calls);
	if (c->over.early != 0)
		fail_msg("%s: %llu early wakes", name,
			 (unsigned long long)c->over.early);
	uint64_t sum = 0;
	for (int b = 0; b < SLEEP_NBUCKETS; b++)
		sum += c->over.buckets[b];
	assert_int_equal(sum, calls);
	assert_true(c->over.min_ns >= 0);
	assert_true(c->over.p50_ns <= c->over.p90_ns);
	assert_true(c->over.p90_ns <= c->over.p99_ns);
	assert_true(c->over.p99_ns <= c->over.p999_ns);
	assert_true(c->over.p999_ns <= c->over.max_ns);
	/* one thread sleeps its calls back to back, each at least the
	 * target: the cell cannot be shorter than their sum */
	double floor_s = per_thread_calls * c->target_us / 1e6;
	if (c->wall_s < floor_s)
		fail_msg("%s: cell took %.6f s, less than %u x %u us", name,
			 c->wall_s, per_thread_calls, c->target_us);
	assert_true(c->cpu_s >= 0);
	/* a blocking mode context-switches voluntarily about once a call
	 * (oneshot: a periodic deadline may be past before the wait); a
	 * busy one never blocks (yield's switches are involuntary) */
	if (oneshot && mode_blocks(c->mode.mode) && c->vcsw_per_call < 0.5)
		fail_msg("%s blocked on %.2f of its calls", name,
			 c->vcsw_per_call);
	if ((c->mode.mode == SLEEP_MODE_SPIN ||
	     c->mode.mode == SLEEP_MODE_YIELD) && c->vcsw_per_call >= 0.5)
		fail_msg("%s blocked on %.2f of its calls", name,
			 c->vcsw_per_call);
}

static void test_sleep__bench_every_mode_short(void **state)
{
	(void)state;
	struct sleep_bench_opts o;
	struct sleep_bench b;
	struct progress_log log = { 0 };
	/* 100 us, not less: arming a timer 10 us out costs ~50 us of kernel
	 * time on this VM, so a shorter sleep may expire before it blocks */
	uint32_t d = 100;
	char *cause = NULL;

	sleep_bench_opts_init(&o);
	o.calls = 200;
	o.durations_us = &d;
	o.ndurations = 1;
	o.calibration_calls = 200;
	o.progress = progress_cb;
	o.progress_arg = &log;
	int err = sleep_bench_run(&o, &b, &cause);
	if (err)
		fail_msg("sleep_bench_run: %s", cause);
	assert_int_equal(b.ncells, SLEEP_BENCH_NMODES);
	assert_int_equal(log.calls, SLEEP_BENCH_NMODES);
	assert_int_equal(log.last_done, SLEEP_BENCH_NMODES);
	assert_int_equal(log.last_total, SLEEP_BENCH_NMODES);
	for (size_t i = 0; i < b.ncells; i++) {
		assert_int_equal(b.cells[i].mode.mode, i);
		assert_int_equal(b.cells[i].target_us, 100);
		check_cell(&b.cells[i], 200, 200, true);
	}
	/* spinning costs CPU; 200 x 100 us of it cannot round to nothing */
	assert_true(b.cells[SLEEP_MODE_SPIN].cpu_s > 0);
	/* CPU per call splits into user and system time, which add up */
	for (size_t i = 0; i < b.ncells; i++) {
		const struct sleep_cell *c = &b.cells[i];
		assert_true(c->user_us_per_call >= 0 && c->sys_us_per_call >= 0);
		assert_float_equal(c->user_us_per_call + c->sys_us_per_call,
				   c->cpu_us_per_call, 1e-6);
	}
	/* a spin reads the clock in the vDSO: its cost is user time */
	assert_true(b.cells[SLEEP_MODE_SPIN].user_us_per_call > 0);
	/* hybrid without a margin calibrated one and used it */
	assert_true(b.header.hybrid_calibrated);
	assert_true(b.header.hybrid_margin_ns >= SLEEP_HYBRID_GUARD_NS);
	assert_true(b.header.hybrid_margin_ns <= SLEEP_HYBRID_MARGIN_CAP_NS);
	assert_int_equal(b.cells[SLEEP_MODE_HYBRID].mode.margin_ns,
			 b.header.hybrid_margin_ns);
	/* the facts: slack of a normal thread is the 50 us default unless
	 * someone changed it; the clocksource file exists on Linux */
	assert_true(b.header.timer_slack_ns > 0);
	assert_true(b.header.clocksource[0] != '\0');
	assert_string_equal(b.header.sched_policy_name, "SCHED_OTHER");
	assert_int_equal(b.header.calls, 200);
	assert_int_equal(b.header.threads, 1);
	assert_int_equal(b.header.pattern, SLEEP_ONESHOT);
	sleep_bench_release(&b);
}

static void test_sleep__bench_periodic_threads_load(void **state)
{
	(void)state;
	struct sleep_bench_opts o;
	struct sleep_bench b;
	struct sleep_mode_spec modes[] = {
		{ SLEEP_MODE_TIMERFD, -1 }, { SLEEP_MODE_HYBRID, 5000 },
		{ SLEEP_MODE_CLOCK_ABS, -1 },
	};
	uint32_t d[] = { 50, 20 };
	char *cause = NULL;

	sleep_bench_opts_init(&o);
	o.modes = modes;
	o.nmodes = 3;
	o.durations_us = d;
	o.ndurations = 2;
	o.calls = 150;
	o.threads = 2;
	o.load = 1;
	o.pattern = SLEEP_PERIODIC;
	int err = sleep_bench_run(&o, &b, &cause);
	if (err)
		fail_msg("sleep_bench_run: %s", cause);
	assert_int_equal(b.ncells, 6);
	assert_false(b.header.hybrid_calibrated);
	assert_int_equal(b.header.hybrid_margin_ns, 5000);
	assert_int_equal(b.header.threads, 2);
	assert_int_equal(b.header.load, 1);
	assert_int_equal(b.header.pattern, SLEEP_PERIODIC);
	/* mode-major order: timerfd 50, timerfd 20, hybrid 50, ... */
	assert_int_equal(b.cells[1].mode.mode, SLEEP_MODE_TIMERFD);
	assert_int_equal(b.cells[1].target_us, 20);
	assert_int_equal(b.cells[2].mode.mode, SLEEP_MODE_HYBRID);
	assert_int_equal(b.cells[2].mode.margin_ns, 5000);
	for (size_t i = 0; i < b.ncells; i++) {
		/* periodic: a thread's calls span at least calls periods */
		check_cell(&b.cells[i], 300, 150, false);
	}
	sleep_bench_release(&b);
}

static void test_sleep__bench_stops_when_asked(void **state)
{
	(void)state;
	struct sleep_bench_opts o;
	struct sleep_bench b;
	struct progress_log log = { .stop_after = 1 };
	struct sleep_mode_spec m = { SLEEP_MODE_SPIN, -1 };
	uint32_t d[] = { 10, 20, 30 };
	char *cause = NULL;

	sleep_bench_opts_init(&o);
	o.modes = &m;
	o.nmodes = 1;
	o.durations_us = d;
	o.ndurations = 3;
	o.calls = 50;
	o.progress = progress_cb;
	o.progress_arg = &log;
	assert_int_equal(sleep_bench_run(&o, &b, &cause), -ECANCELED);
	assert_string_equal(cause, "sleep benchmark stopped after 1 of 3 cells");
	assert_int_equal(b.ncells, 1);
	free(cause);
	sleep_bench_release(&b);
}

/* ------------------------------------------------------------ ELF */

static char *write_elf(const char *dir, const char *name, const uint32_t *types,
		       int ntypes)
{
	char *path;
	Elf64_Ehdr eh;
	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (Elf64_Half)ntypes;
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(&eh, sizeof(eh), 1, f);
	for (int i = 0; i < ntypes; i++) {
		Elf64_Phdr ph;
		memset(&ph, 0, sizeof(ph));
		ph.p_type = types[i];
		fwrite(&ph, sizeof(ph), 1, f);
	}
	fclose(f);
	return path;
}

static void test_sleep__exe_kind(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	enum sleep_exe_kind k, ik;
	char *cause = NULL;
	const uint32_t dyn[] = { PT_PHDR, PT_INTERP, PT_LOAD, PT_DYNAMIC };
	const uint32_t stat[] = { PT_LOAD, PT_LOAD, PT_NOTE, PT_TLS };
	const uint32_t spie[] = { PT_LOAD, PT_DYNAMIC, PT_GNU_STACK };

	char *p = write_elf(dir, "dyn", dyn, 4);
	assert_int_equal(sleep_exe_kind(p, &k, NULL, NULL), 0);
	assert_int_equal(k, SLEEP_EXE_DYNAMIC);
	free(p);
	p = write_elf(dir, "static", stat, 4);
	assert_int_equal(sleep_exe_kind(p, &k, NULL, NULL), 0);
	assert_int_equal(k, SLEEP_EXE_STATIC);
	free(p);
	p = write_elf(dir, "static-pie", spie, 3);
	assert_int_equal(sleep_exe_kind(p, &k, NULL, NULL), 0);
	assert_int_equal(k, SLEEP_EXE_STATIC_PIE);
	free(p);

	/* program headers promised past the end of the file */
	p = write_elf(dir, "short", dyn, 4);
	assert_int_equal(truncate(p, sizeof(Elf64_Ehdr) + 10), 0);
	assert_int_equal(sleep_exe_kind(p, &k, NULL, &cause), -ENOEXEC);
	assert_non_null(strstr(cause, "truncated or malformed ELF"));
	free(cause);
	free(p);

	/* this test program and the workload helper are dynamic */
	assert_int_equal(sleep_exe_kind("/proc/self/exe", &k, NULL, NULL), 0);
	assert_int_equal(k, SLEEP_EXE_DYNAMIC);
	assert_int_equal(sleep_exe_kind(WORKLOAD, &k, NULL, NULL), 0);
	assert_int_equal(k, SLEEP_EXE_DYNAMIC);
	/* found on $PATH like execvp */
	assert_int_equal(sleep_exe_kind("sh", &k, NULL, NULL), 0);
	assert_int_equal(k, SLEEP_EXE_DYNAMIC);

	/* a script reports its interpreter's kind */
	assert_true(asprintf(&p, "%s/script", dir) > 0);
	FILE *f = fopen(p, "w");
	fprintf(f, "#!%s/static -x\necho hi\n", dir);
	fclose(f);
	assert_int_equal(sleep_exe_kind(p, &k, &ik, NULL), 0);
	assert_int_equal(k, SLEEP_EXE_SCRIPT);
	assert_int_equal(ik, SLEEP_EXE_STATIC);
	free(p);

	assert_true(asprintf(&p, "%s/text", dir) > 0);
	f = fopen(p, "w");
	fprintf(f, "just text\n");
	fclose(f);
	assert_int_equal(sleep_exe_kind(p, &k, NULL, &cause), -ENOEXEC);
	assert_non_null(strstr(cause, "is not an ELF executable"));
	free(cause);
	free(p);

	assert_int_equal(sleep_exe_kind("/nonexistent/prog", &k, NULL, &cause),
			 -ENOENT);
	assert_string_equal(cause, "cannot open '/nonexistent/prog': no such "
			    "file or directory");
	free(cause);
	assert_int_equal(sleep_exe_kind("no-such-prog-xyz", &k, NULL, &cause),
			 -ENOENT);
	assert_string_equal(cause, "cannot find 'no-such-prog-xyz' on $PATH");
	free(cause);
	tu_rmrf(dir);
	free(dir);
}

/* ------------------------------------------------------------ interposer */

struct preload_env {
	const char *mode, *threshold, *max_spinners;
	bool no_report;
};

/*
 * Run the workload under the interposer with a fresh report memfd; the
 * report is read into *r (unless no_report). Returns the process result.
 */
static struct tu_proc run_preloaded(const struct preload_env *pe,
				    char *const argv[], struct sleep_report *r)
{
	char *cause = NULL;
	char *env[8];
	int n = 0, fd = -1;
	static char e_pre[PATH_MAX + 16], e_fd[64], e_mode[64], e_thr[64],
		e_max[64];

	if (access(PRELOAD_LIB, R_OK) != 0)
		fail_msg("%s is missing: build the prof-sleep target",
			 PRELOAD_LIB);
	snprintf(e_pre, sizeof(e_pre), "LD_PRELOAD=%s", PRELOAD_LIB);
	env[n++] = e_pre;
	/* a sanitizer build's workload wants its runtime first; the plain
	 * interposer in front of it is fine */
	env[n++] = "ASAN_OPTIONS=verify_asan_link_order=0";
	if (!pe->no_report) {
		fd = sleep_shm_create(&cause);
		if (fd < 0)
			fail_msg("sleep_shm_create: %s", cause);
		snprintf(e_fd, sizeof(e_fd), "%s=%d", SLEEP_ENV_SHM_FD, fd);
		env[n++] = e_fd;
	}
	snprintf(e_mode, sizeof(e_mode), "%s=%s", SLEEP_ENV_MODE,
		 pe->mode ? pe->mode : "timerfd");
	env[n++] = e_mode;
	if (pe->threshold) {
		snprintf(e_thr, sizeof(e_thr), "%s=%s", SLEEP_ENV_THRESHOLD,
			 pe->threshold);
		env[n++] = e_thr;
	}
	if (pe->max_spinners) {
		snprintf(e_max, sizeof(e_max), "%s=%s", SLEEP_ENV_MAX_SPINNERS,
			 pe->max_spinners);
		env[n++] = e_max;
	}
	env[n] = NULL;
	struct tu_proc p = tu_run(argv, env);
	if (fd >= 0) {
		if (sleep_report_read(fd, r, &cause))
			fail_msg("sleep_report_read: %s", cause);
		close(fd);
	}
	return p;
}

static const struct sleep_thread_report *find_thread(
	const struct sleep_report *r, const char *name)
{
	for (size_t i = 0; i < r->nthreads; i++)
		if (strcmp(r->threads[i].name, name) == 0)
			return &r->threads[i];
	return NULL;
}

static void assert_ok(const struct tu_proc *p)
{
	if (p->status != 0)
		fail_msg("workload exited %d\nstdout: %s\nstderr: %s",
			 p->status, p->out, p->err);
}

static void test_sleep__preload_serves_each_thread(void **state)
{
	(void)state;
	struct preload_env pe = { .mode = "timerfd" };
	struct sleep_report r;
	char *argv[] = { WORKLOAD, "threads", "3", "200", "30", NULL };
	struct tu_proc p = run_preloaded(&pe, argv, &r);
	assert_ok(&p);
	assert_int_equal(r.processes, 1);
	assert_true(r.config_set);
	assert_string_equal(r.error, "");
	assert_int_equal(r.config.mode.mode, SLEEP_MODE_TIMERFD);
	assert_int_equal(r.config.threshold_ns, 1000000);
	assert_int_equal(r.nthreads, 3);	/* main never slept */
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "sleeper-%d", i);
		const struct sleep_thread_report *t = find_thread(&r, name);
		if (!t)
			fail_msg("no report row for thread %s", name);
		assert_true(t->tid > 0);
		assert_int_equal(t->served, 200);
		assert_int_equal(t->passed, 0);
		assert_int_equal(t->early, 0);
		assert_int_equal(t->eintr, 0);
		/* 30 us sits in the [16,32) us bucket */
		assert_int_equal(t->req_hist[5], 200);
		assert_int_equal(t->over.n, 200);
		assert_true(t->over.p50_ns <= t->over.p99_ns);
		assert_true(t->over.p99_ns <= t->over.max_ns);
	}
	assert_int_equal(r.total.served, 600);
	assert_int_equal(r.total.over.n, 600);
	sleep_report_release(&r);
	tu_proc_release(&p);
}

static void test_sleep__preload_absolute_deadlines_not_early(void **state)
{
	(void)state;
	static const char *const modes[] = { "timerfd", "spin", "yield",
					     "hybrid:5", "slack1",
					     "passthrough" };
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct preload_env pe = { .mode = modes[m] };
		struct sleep_report r;
		char *argv[] = { WORKLOAD, "abs", "100", "40", NULL };
		struct tu_proc p = run_preloaded(&pe, argv, &r);
		assert_ok(&p);
		assert_string_equal(p.out, "early=0\nfails=0\n");
		/* 100 on MONOTONIC and 100 on REALTIME, served unless the
		 * workload was preempted past its own deadline before the
		 * call (then it passes, and returns at once) */
		assert_int_equal(r.total.served + r.total.passed, 200);
		assert_true(r.total.served >= 100);
		assert_int_equal(r.total.early, 0);
		if (r.config.mode.mode == SLEEP_MODE_HYBRID)
			assert_int_equal(r.config.mode.margin_ns, 5000);
		sleep_report_release(&r);
		tu_proc_release(&p);
	}
}

/* The text just after key in out, which must hold it. */
static const char *key_at(const char *out, const char *key)
{
	const char *s = strstr(out, key);
	if (!s)
		fail_msg("no '%s' in '%s'", key, out);
	return s + strlen(key);
}

static long long key_ll(const char *out, const char *key)
{
	return atoll(key_at(out, key));
}

static double key_d(const char *out, const char *key)
{
	return atof(key_at(out, key));
}

static void check_eintr(const char *mode, const char *restart,
			const char *how)
{
	/* a SIGALRM handler fires 5 ms into an 80 ms sleep that is under
	 * the 100 ms threshold, so the interposer serves it */
	struct preload_env pe = { .mode = mode, .threshold = "100000" };
	struct sleep_report r;
	char *argv[] = { WORKLOAD, "eintr", "80000", "5000", (char *)restart,
			 (char *)how, NULL };
	struct tu_proc p;
	bool preloaded = mode != NULL;

	/* A loaded machine can hold the workload off the CPU for the 5 ms
	 * between arming the timer and sleeping: the signal then lands
	 * before the sleep, which is not interrupted. That is the machine,
	 * not prof: try again (three times at most). */
	for (int attempt = 0;; attempt++) {
		if (preloaded) {
			p = run_preloaded(&pe, argv, &r);
		} else {
			/* the real functions, to show the expectations are theirs */
			char *env[] = { NULL };
			p = tu_run(argv, env);
		}
		assert_ok(&p);
		if (strstr(p.out, "err=EINTR") || attempt == 2)
			break;
		if (preloaded)
			sleep_report_release(&r);
		tu_proc_release(&p);
	}
	if (strcmp(how, "nanosleep") == 0) {
		assert_non_null(strstr(p.out, "ret=-1\nerr=EINTR\n"));
	} else {
		/* clock_nanosleep returns the error and leaves errno alone */
		assert_non_null(strstr(p.out, "ret=4\nerr=EINTR\n"
				       "errno_after=0\n"));
	}
	long long rem = key_ll(p.out, "rem_ns=");
	if (strcmp(how, "abs") == 0) {
		assert_int_equal(rem, -1);	/* untouched */
	} else if (rem <= 0 || rem >= 80000000) {
		fail_msg("%s %s %s: rem %lld ns not in (0, 80 ms)",
			 mode ? mode : "real", restart, how, rem);
	}
	assert_int_equal(key_ll(p.out, "handled="), 1);
	if (preloaded) {
		assert_int_equal(r.total.served, 1);
		assert_int_equal(r.total.eintr, 1);
		assert_int_equal(r.total.over.n, 0);
		sleep_report_release(&r);
	}
	tu_proc_release(&p);
}

static void test_sleep__preload_eintr_keeps_remaining_time(void **state)
{
	(void)state;
	static const char *const hows[] = { "nanosleep", "clock", "abs" };
	static const char *const restarts[] = { "norestart", "restart" };
	for (int h = 0; h < 3; h++) {
		for (int s = 0; s < 2; s++) {
			check_eintr(NULL, restarts[s], hows[h]);
			check_eintr("timerfd", restarts[s], hows[h]);
			check_eintr("passthrough", restarts[s], hows[h]);
		}
		check_eintr("hybrid:20", "norestart", hows[h]);
		check_eintr("slack1", "norestart", hows[h]);
	}
}

static void test_sleep__preload_passes_long_and_other_clocks(void **state)
{
	(void)state;
	struct preload_env pe = { .mode = "spin" };
	struct sleep_report r;
	/* 2000 us is over the default 1000 us threshold */
	char *argv[] = { WORKLOAD, "loop", "5", "2000", NULL };
	struct tu_proc p = run_preloaded(&pe, argv, &r);
	assert_ok(&p);
	assert_int_equal(r.nthreads, 1);
	assert_int_equal(r.total.served, 0);
	assert_int_equal(r.total.passed, 5);
	/* 2000 us in [1024, 2048) us: bucket 11 */
	assert_int_equal(r.total.req_hist[11], 5);
	assert_int_equal(r.total.over.n, 0);
	sleep_report_release(&r);
	tu_proc_release(&p);

	/* exactly the threshold passes; just under is served */
	pe.threshold = "50";
	char *argv2[] = { WORKLOAD, "loop", "4", "50", NULL };
	p = run_preloaded(&pe, argv2, &r);
	assert_ok(&p);
	assert_int_equal(r.total.passed, 4);
	assert_int_equal(r.total.served, 0);
	sleep_report_release(&r);
	tu_proc_release(&p);
	char *argv3[] = { WORKLOAD, "loop", "4", "49", NULL };
	p = run_preloaded(&pe, argv3, &r);
	assert_ok(&p);
	assert_int_equal(r.total.served, 4);
	sleep_report_release(&r);
	tu_proc_release(&p);

	pe.threshold = NULL;
	char *argv4[] = { WORKLOAD, "other", "3", "30", NULL };
	p = run_preloaded(&pe, argv4, &r);
	assert_ok(&p);
	assert_int_equal(r.total.passed, 3);
	assert_int_equal(r.total.served, 0);
	sleep_report_release(&r);
	tu_proc_release(&p);
}

static void test_sleep__preload_usleep_and_errno(void **state)
{
	(void)state;
	struct preload_env pe = { .mode = "timerfd" };
	struct sleep_report r;
	char *argv[] = { WORKLOAD, "usleep", "50", "30", NULL };
	struct tu_proc p = run_preloaded(&pe, argv, &r);
	assert_ok(&p);
	assert_int_equal(r.total.served, 50);
	assert_int_equal(r.total.over.n, 50);
	sleep_report_release(&r);
	tu_proc_release(&p);

	static const char *const modes[] = { "timerfd", "spin", "hybrid:5",
					     "slack1", "passthrough" };
	for (int m = 0; m < 5; m++) {
		pe.mode = modes[m];
		char *argv2[] = { WORKLOAD, "errno", "30", NULL };
		p = run_preloaded(&pe, argv2, &r);
		assert_ok(&p);
		assert_string_equal(p.out, "ret=0,0\nerrno_after=EDOM,EDOM\n");
		assert_int_equal(r.total.served, 2);
		sleep_report_release(&r);
		tu_proc_release(&p);
	}
}

static void test_sleep__preload_fork_exec_and_thread_churn(void **state)
{
	(void)state;
	struct preload_env pe = { .mode = "timerfd" };
	struct sleep_report r;
	char *argv[] = { WORKLOAD, "fork", "100", "30", NULL };
	struct tu_proc p = run_preloaded(&pe, argv, &r);
	assert_ok(&p);
	/* the child is a process of its own with a slot of its own */
	assert_int_equal(r.processes, 2);
	assert_int_equal(r.nthreads, 2);
	assert_true(r.threads[0].pid != r.threads[1].pid);
	assert_int_equal(r.threads[0].served, 100);
	assert_int_equal(r.threads[1].served, 100);
	assert_int_equal(r.total.early, 0);
	sleep_report_release(&r);
	tu_proc_release(&p);

	/* an exec'd program keeps reporting into the inherited memfd; hybrid
	 * calibrates once, in the first process */
	pe.mode = "hybrid";
	char *argv3[] = { WORKLOAD, "exec", "50", "30", NULL };
	p = run_preloaded(&pe, argv3, &r);
	assert_ok(&p);
	assert_int_equal(r.processes, 2);
	/* exec keeps the pid and the main thread's tid: one row */
	assert_int_equal(r.nthreads, 1);
	assert_int_equal(r.threads[0].served, 100);
	assert_true(r.hybrid_calibrated);
	assert_int_equal(r.config.mode.mode, SLEEP_MODE_HYBRID);
	assert_true(r.config.mode.margin_ns >= SLEEP_HYBRID_GUARD_NS);
	assert_true(r.config.mode.margin_ns <= SLEEP_HYBRID_MARGIN_CAP_NS);
	sleep_report_release(&r);
	tu_proc_release(&p);
	pe.mode = "timerfd";

	/* 40 threads one after another: their timerfds close as they exit,
	 * so the process ends with the fds it started with */
	char *argv2[] = { WORKLOAD, "churn", "40", "20", "30", NULL };
	p = run_preloaded(&pe, argv2, &r);
	assert_ok(&p);
	long long before = key_ll(p.out, "fds_before=");
	assert_true(before >= 3);
	assert_int_equal(key_ll(p.out, "fds_after="), before);
	assert_int_equal(r.nthreads, 40);
	assert_int_equal(r.total.served, 800);
	sleep_report_release(&r);
	tu_proc_release(&p);
}

static void test_sleep__preload_max_spinners(void **state)
{
	(void)state;
	/* four threads spin on 200 us sleeps with one spinner slot: the
	 * others must wait on timerfds, and every sleep is still served */
	struct preload_env pe = { .mode = "spin", .max_spinners = "1" };
	struct sleep_report r;
	char *argv[] = { WORKLOAD, "threads", "4", "300", "200", NULL };
	struct tu_proc p = run_preloaded(&pe, argv, &r);
	assert_ok(&p);
	assert_int_equal(r.config.max_spinners, 1);
	assert_int_equal(r.total.served, 1200);
	assert_int_equal(r.total.early, 0);
	assert_true(r.total.throttled > 0);
	assert_true(r.total.throttled < 1200);
	sleep_report_release(&r);
	tu_proc_release(&p);
}

/*
 * The cap holds across the workload's processes, as the report says ("at
 * most 1 spinning at once"): a parent and its child, one thread each,
 * spin on 200 us sleeps with one slot between them, so one of them waits
 * on its timerfd whenever the other spins. Counted per process, neither
 * was ever refused.
 */
static void test_sleep__preload_max_spinners_across_processes(void **state)
{
	(void)state;
	struct preload_env pe = { .mode = "spin", .max_spinners = "1" };
	struct sleep_report r;
	char *argv[] = { WORKLOAD, "fork", "300", "200", NULL };
	struct tu_proc p = run_preloaded(&pe, argv, &r);
	assert_ok(&p);
	assert_int_equal(r.processes, 2);
	assert_int_equal(r.config.max_spinners, 1);
	assert_int_equal(r.total.served, 600);
	assert_int_equal(r.total.early, 0);
	if (r.total.throttled == 0 || r.total.throttled >= 600)
		fail_msg("%llu of 600 sleeps throttled: the cap of 1 is not "
			 "shared by the two processes",
			 (unsigned long long)r.total.throttled);
	sleep_report_release(&r);
	tu_proc_release(&p);
}

static void test_sleep__default_spinners(void **state)
{
	(void)state;
	/* a quarter of the CPUs, at least 1 */
	assert_int_equal(sleep_default_spinners(0), 1);
	assert_int_equal(sleep_default_spinners(2), 1);
	assert_int_equal(sleep_default_spinners(7), 1);
	assert_int_equal(sleep_default_spinners(8), 2);
	assert_int_equal(sleep_default_spinners(64), 16);
}

static void test_sleep__preload_default_spinner_cap(void **state)
{
	(void)state;
	/* no max-spinners: the interposer caps spinners at a quarter of the
	 * CPUs it may use and says so; "0" lifts the cap */
	cpu_set_t mask;
	assert_int_equal(sched_getaffinity(0, sizeof(mask), &mask), 0);
	unsigned ncpus = (unsigned)CPU_COUNT(&mask);
	struct preload_env pe = { .mode = "spin" };
	struct sleep_report r;
	char *argv[] = { WORKLOAD, "threads", "2", "20", "100", NULL };
	struct tu_proc p = run_preloaded(&pe, argv, &r);
	assert_ok(&p);
	assert_true(r.config.spinners_default);
	assert_int_equal(r.ncpus, ncpus);
	assert_int_equal(r.config.max_spinners, sleep_default_spinners(ncpus));
	sleep_report_release(&r);
	tu_proc_release(&p);
	pe.max_spinners = "0";
	p = run_preloaded(&pe, argv, &r);
	assert_ok(&p);
	assert_false(r.config.spinners_default);
	assert_int_equal(r.config.max_spinners, 0);
	assert_int_equal(r.total.throttled, 0);
	assert_int_equal(r.total.served, 40);
	sleep_report_release(&r);
	tu_proc_release(&p);
}

static void test_sleep__preload_fallback_counted(void **state)
{
	(void)state;
	/* a workload holding every descriptor: no timerfd can be made, so
	 * clock_nanosleep serves its sleeps, and the report must say so
	 * rather than credit timerfd with them */
	struct preload_env pe = { .mode = "timerfd" };
	struct sleep_report r;
	char *argv[] = { WORKLOAD, "nofds", "50", "40", NULL };
	struct tu_proc p = run_preloaded(&pe, argv, &r);
	assert_ok(&p);
	assert_non_null(strstr(p.out, "exhausted=1"));
	assert_int_equal(r.total.served, 50);
	assert_int_equal(r.total.fallback, 50);
	assert_int_equal(r.total.fallback_errno, EMFILE);
	/* the mode's own histogram holds none of them */
	assert_int_equal(r.total.over.n, 0);
	assert_true(r.total.fallback_over_sum_ns > 0);
	sleep_report_release(&r);
	tu_proc_release(&p);
	/* a workload with descriptors to spare falls back never */
	char *argv2[] = { WORKLOAD, "loop", "50", "40", NULL };
	p = run_preloaded(&pe, argv2, &r);
	assert_ok(&p);
	assert_int_equal(r.total.fallback, 0);
	assert_int_equal(r.total.over.n, 50);
	sleep_report_release(&r);
	tu_proc_release(&p);
}

static void test_sleep__preload_without_report_or_with_bad_env(void **state)
{
	(void)state;
	struct preload_env pe = { .mode = "timerfd", .no_report = true };
	char *argv[] = { WORKLOAD, "abs", "20", "30", NULL };
	struct tu_proc p = run_preloaded(&pe, argv, NULL);
	assert_ok(&p);
	assert_string_equal(p.out, "early=0\nfails=0\n");
	tu_proc_release(&p);

	/* a bad setting: the interposer measures, changes nothing, and
	 * says why in the report */
	struct preload_env bad = { .mode = "turbo" };
	struct sleep_report r;
	char *argv2[] = { WORKLOAD, "loop", "10", "30", NULL };
	p = run_preloaded(&bad, argv2, &r);
	assert_ok(&p);
	assert_int_equal(r.config.mode.mode, SLEEP_MODE_PASSTHROUGH);
	assert_non_null(strstr(r.error, "unknown sleep mode 'turbo'"));
	assert_int_equal(r.total.served, 10);
	sleep_report_release(&r);
	tu_proc_release(&p);
}

/* ------------------------------------------------------------ condvars */

static const char *const cv_modes[] = { "timerfd", "passthrough", "slack1",
					"yield", "spin", "hybrid:20" };
static const char *const cv_kinds[] = { "timed", "timed-mono", "clock-mono",
					"clock-real" };
#define N_CV_MODES (sizeof(cv_modes) / sizeof(cv_modes[0]))
#define N_CV_KINDS (sizeof(cv_kinds) / sizeof(cv_kinds[0]))

/*
 * A waiter with a 50 ms timeout, signalled by another thread 5 ms in,
 * returns 0 with its mutex when signalled, well before the timeout,
 * under every mode and every way of waiting: the interposer serves the
 * wait (it is under the 100 ms threshold) and loses no wakeup.
 */
static void check_cv_signal(const char *mode, const char *kind)
{
	struct preload_env pe = { .mode = mode, .threshold = "100000" };
	char *argv[] = { WORKLOAD, "cvsignal", (char *)kind, "50000", "5000",
			 NULL };
	struct sleep_report r;
	struct tu_proc p;
	/* A loaded machine may hold the signaller off past the timeout, or
	 * the woken waiter off the CPU for tens of ms (80 ms seen under
	 * ASan): such an attempt says nothing and runs again, five times
	 * at most. A timeout after a signal in time is a lost wakeup. */
	for (int attempt = 0;; attempt++) {
		p = run_preloaded(&pe, argv, &r);
		assert_ok(&p);
		bool in_time = key_d(p.out, "signal_ms=") < 40;
		if (in_time && !strstr(p.out, "ret=0\nflag=1\nheld=1\n"))
			fail_msg("%s %s: a signal in time was lost:\n%s", mode,
				 kind, p.out);
		if ((in_time && key_d(p.out, "woke_ms=") < 45) || attempt == 4)
			break;
		sleep_report_release(&r);
		tu_proc_release(&p);
	}
	if (!strstr(p.out, "ret=0\nflag=1\nheld=1\n") ||
	    key_d(p.out, "woke_ms=") >= 45)
		fail_msg("%s %s: not woken well before the timeout in five "
			 "tries:\n%s", mode, kind, p.out);
	/* served, and every served wait returned 0 */
	if (r.total.cv_served < 1 || r.total.cv_woken != r.total.cv_served ||
	    r.total.cv_timedout || r.total.cv_passed)
		fail_msg("%s %s: served %llu, woken %llu, timed out %llu, "
			 "passed %llu", mode, kind,
			 (unsigned long long)r.total.cv_served,
			 (unsigned long long)r.total.cv_woken,
			 (unsigned long long)r.total.cv_timedout,
			 (unsigned long long)r.total.cv_passed);
	assert_int_equal(r.total.cv_over.n, 0);
	sleep_report_release(&r);
	tu_proc_release(&p);
}

static void test_sleep__preload_condvar_signal_wakes(void **state)
{
	(void)state;
	for (size_t m = 0; m < N_CV_MODES; m++)
		for (size_t k = 0; k < N_CV_KINDS; k++)
			check_cv_signal(cv_modes[m], cv_kinds[k]);
}

/*
 * Short waits on a condvar nobody signals: ETIMEDOUT, never before the
 * deadline, with the (error-checking) mutex held, under every mode and
 * every way of waiting; the thread's timer slack is as it was after
 * (slack1 sets it for good, as it does for sleeps).
 */
static void test_sleep__preload_condvar_timeout_keeps_mutex(void **state)
{
	(void)state;
	for (size_t m = 0; m < N_CV_MODES; m++) {
		for (size_t k = 0; k < N_CV_KINDS; k++) {
			struct preload_env pe = { .mode = cv_modes[m] };
			char *argv[] = { WORKLOAD, "cvwait", (char *)cv_kinds[k],
					 "20", "200", NULL };
			struct sleep_report r;
			struct tu_proc p = run_preloaded(&pe, argv, &r);
			assert_ok(&p);
			if (!strstr(p.out, "timedout=20\nwoken=0\nearly=0\nheld=20\n"))
				fail_msg("%s %s:\n%s", cv_modes[m], cv_kinds[k], p.out);
			long long before = key_ll(p.out, "slack_before=");
			long long after = key_ll(p.out, "slack_after=");
			if (strcmp(cv_modes[m], "slack1") == 0)
				assert_int_equal(after, 1);
			else
				assert_int_equal(after, before);
			/* served unless the workload was preempted past its
			 * own deadline before the call (then it passes) */
			assert_int_equal(r.total.cv_served + r.total.cv_passed, 20);
			assert_true(r.total.cv_served >= 10);
			assert_int_equal(r.total.cv_timedout, r.total.cv_served);
			assert_int_equal(r.total.cv_woken, 0);
			assert_int_equal(r.total.cv_early, 0);
			assert_int_equal(r.total.cv_over.n, r.total.cv_served);
			assert_true(r.total.cv_over.p50_ns <= r.total.cv_over.max_ns);
			/* no sleep was made, and none is counted */
			assert_int_equal(r.total.served + r.total.passed, 0);
			assert_int_equal(r.total.over.n, 0);
			sleep_report_release(&r);
			tu_proc_release(&p);
		}
	}
}

/* Sleeps and condvar waits of one thread are counted apart. */
static void test_sleep__preload_condvar_counted_apart(void **state)
{
	(void)state;
	struct preload_env pe = { .mode = "timerfd" };
	struct sleep_report r;
	char *argv[] = { WORKLOAD, "cvmix", "30", "100", NULL };
	struct tu_proc p = run_preloaded(&pe, argv, &r);
	assert_ok(&p);
	assert_int_equal(r.nthreads, 1);
	const struct sleep_thread_report *t = &r.threads[0];
	assert_int_equal(t->served, 30);
	assert_int_equal(t->passed, 0);
	assert_int_equal(t->over.n, 30);	/* the sleeps' own histogram */
	assert_int_equal(t->req_hist[7], 30);	/* 100 us: [64, 128) */
	assert_int_equal(t->cv_served + t->cv_passed, 30);
	assert_int_equal(t->cv_over.n, t->cv_timedout);
	assert_int_equal(t->cv_timedout, t->cv_served);
	assert_int_equal(r.total.cv_served, t->cv_served);
	sleep_report_release(&r);
	tu_proc_release(&p);
}

/*
 * What the interposer leaves alone: waits at or over the threshold, a
 * clock it does not serve and malformed deadlines (the real function's
 * EINVAL, as without the interposer), and the old condvar's
 * pthread_cond_timedwait@GLIBC_2.2.5.
 */
static void test_sleep__preload_condvar_passes_long_and_bad(void **state)
{
	(void)state;
	struct preload_env pe = { .mode = "spin" };
	struct sleep_report r;
	/* 2000 us is over the default 1000 us threshold */
	char *argv[] = { WORKLOAD, "cvwait", "timed-mono", "5", "2000", NULL };
	struct tu_proc p = run_preloaded(&pe, argv, &r);
	assert_ok(&p);
	if (!strstr(p.out, "timedout=5\nwoken=0\nearly=0\nheld=5\n"))
		fail_msg("%s", p.out);
	assert_int_equal(key_ll(p.out, "slack_after="),
			 key_ll(p.out, "slack_before="));
	assert_int_equal(r.total.cv_passed, 5);
	assert_int_equal(r.total.cv_served, 0);
	assert_int_equal(r.total.cv_over.n, 0);
	sleep_report_release(&r);
	tu_proc_release(&p);

	char *bad[] = { WORKLOAD, "cvbad", NULL };
	char *env[] = { NULL };
	struct tu_proc real = tu_run(bad, env);
	assert_ok(&real);
	assert_string_equal(real.out, "boottime=EINVAL\nnsec_1e9=EINVAL\n"
			    "nsec_neg=EINVAL\nheld=1\n");
	p = run_preloaded(&pe, bad, &r);
	assert_ok(&p);
	assert_string_equal(p.out, real.out);
	assert_int_equal(r.total.cv_passed, 3);
	assert_int_equal(r.total.cv_served, 0);
	sleep_report_release(&r);
	tu_proc_release(&p);
	tu_proc_release(&real);

	char *old[] = { WORKLOAD, "cvold", "5", "100", NULL };
	p = run_preloaded(&pe, old, &r);
	assert_ok(&p);
	if (strcmp(p.out, "skipped=1\n") != 0) {
		assert_string_equal(p.out, "timedout=5\n");
		/* not taken over at all: no thread ever reached the
		 * interposer */
		assert_int_equal(r.nthreads, 0);
	}
	sleep_report_release(&r);
	tu_proc_release(&p);
}

/* A thread cancelled in a served wait gets its timer slack back before
 * its own cleanup handlers run. */
static void test_sleep__preload_condvar_cancel_restores_slack(void **state)
{
	(void)state;
	static const char *const modes[] = { "timerfd", "hybrid:20", "slack1" };
	for (size_t m = 0; m < 3; m++) {
		struct preload_env pe = { .mode = modes[m], .threshold = "100000" };
		struct sleep_report r;
		char *argv[] = { WORKLOAD, "cvcancel", "50000", NULL };
		struct tu_proc p = run_preloaded(&pe, argv, &r);
		assert_ok(&p);
		assert_int_equal(key_ll(p.out, "canceled="), 1);
		long long want = strcmp(modes[m], "slack1") == 0 ? 1 :
				 key_ll(p.out, "slack_before=");
		if (key_ll(p.out, "slack_in_cleanup=") != want)
			fail_msg("%s: %s", modes[m], p.out);
		assert_true(r.total.cv_served >= 1);
		sleep_report_release(&r);
		tu_proc_release(&p);
	}
}

static void test_sleep__report_rejects_foreign_memfd(void **state)
{
	(void)state;
	struct sleep_report r;
	char *cause = NULL;
	int fd = memfd_create("not-a-report", 0);
	assert_true(fd >= 0);
	assert_int_equal(sleep_report_read(fd, &r, &cause), -EINVAL);
	assert_non_null(strstr(cause, "bytes, not the"));
	free(cause);
	assert_int_equal(ftruncate(fd, sizeof(struct sleep_shm)), 0);
	assert_int_equal(sleep_report_read(fd, &r, &cause), -EINVAL);
	assert_non_null(strstr(cause, "does not hold a version 4 report"));
	free(cause);
	close(fd);

	/* a fresh report reads as empty, and the seals hold */
	fd = sleep_shm_create(&cause);
	assert_true(fd >= 0);
	assert_int_equal(sleep_report_read(fd, &r, &cause), 0);
	assert_false(r.config_set);
	assert_int_equal(r.processes, 0);
	assert_int_equal(r.nthreads, 0);
	sleep_report_release(&r);
	assert_int_equal(ftruncate(fd, 16), -1);
	assert_int_equal(errno, EPERM);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sleep__percentile_nearest_rank),
		cmocka_unit_test(test_sleep__stats_buckets_are_exclusive_ranges),
		cmocka_unit_test(test_sleep__hist_buckets_cover_without_gaps),
		cmocka_unit_test(test_sleep__hist_percentiles_by_hand),
		cmocka_unit_test(test_sleep__hist_percentiles_of_scribbled_counts),
		cmocka_unit_test(test_sleep__mode_parse),
		cmocka_unit_test(test_sleep__lists_parse),
		cmocka_unit_test(test_sleep__preload_config_parse),
		cmocka_unit_test(test_sleep__cheapest_by_hand),
		cmocka_unit_test(test_sleep__bench_rejects_bad_options),
		cmocka_unit_test(test_sleep__bench_every_mode_short),
		cmocka_unit_test(test_sleep__bench_periodic_threads_load),
		cmocka_unit_test(test_sleep__bench_stops_when_asked),
		cmocka_unit_test(test_sleep__exe_kind),
		cmocka_unit_test(test_sleep__preload_serves_each_thread),
		cmocka_unit_test(test_sleep__preload_absolute_deadlines_not_early),
		cmocka_unit_test(test_sleep__preload_eintr_keeps_remaining_time),
		cmocka_unit_test(test_sleep__preload_passes_long_and_other_clocks),
		cmocka_unit_test(test_sleep__preload_usleep_and_errno),
		cmocka_unit_test(test_sleep__preload_fork_exec_and_thread_churn),
		cmocka_unit_test(test_sleep__preload_max_spinners),
		cmocka_unit_test(test_sleep__preload_max_spinners_across_processes),
		cmocka_unit_test(test_sleep__default_spinners),
		cmocka_unit_test(test_sleep__preload_default_spinner_cap),
		cmocka_unit_test(test_sleep__preload_fallback_counted),
		cmocka_unit_test(test_sleep__preload_without_report_or_with_bad_env),
		cmocka_unit_test(test_sleep__preload_condvar_signal_wakes),
		cmocka_unit_test(test_sleep__preload_condvar_timeout_keeps_mutex),
		cmocka_unit_test(test_sleep__preload_condvar_counted_apart),
		cmocka_unit_test(test_sleep__preload_condvar_passes_long_and_bad),
		cmocka_unit_test(test_sleep__preload_condvar_cancel_restores_slack),
		cmocka_unit_test(test_sleep__report_rejects_foreign_memfd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
