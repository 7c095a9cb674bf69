/*
 * Tests for prof/collect_intervals' fill (collect_fill_intervals): how a
 * thread's ticks become its stored intervals, closed with its final
 * counts, without a workload.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/intervals.h"
#include "prof/run/run.h"

#define T0 1000000000ull	/* the launch, CLOCK_MONOTONIC ns */
#define MS 1000000ull
#define NEV 2			/* a software event, a hardware one */

/* A run of one thread (tid 7) with final counts c0 (software, group 0)
 * and c1 (hardware, group 1), ended end_ns (0: still running), after
 * wall_s seconds. */
static void make_run(struct db_run *run, uint64_t c0, uint64_t c1, int64_t end_ns,
		     double wall_s)
{
	memset(run, 0, sizeof(*run));
	run->wall_s = wall_s;
	run->nevents = NEV;
	run->events = calloc(NEV, sizeof(*run->events));
	run->events[0].supported = true;
	run->events[1].supported = true;
	run->events[1].group = 1;
	run->nthreads = 1;
	run->threads = calloc(1, sizeof(*run->threads));
	struct db_thread *t = &run->threads[0];
	t->tid = 7;
	t->name = strdup("worker");
	t->end_ns = end_ns;
	t->counts = calloc(NEV, sizeof(*t->counts));
	t->counts[0] = (struct db_count){ .present = true, .value = c0 };
	t->counts[1] = (struct db_count){ .present = true, .value = c1 };
}

static void tick(struct intervals *iv, uint64_t at_ms, uint64_t v0, uint64_t v1)
{
	const uint64_t v[NEV] = { v0, v1 };
	const bool have[NEV] = { true, true };
	assert_int_equal(intervals_feed(iv, 7, T0 + at_ms * MS, v, have), 0);
}

static void expect_row(const struct db_run *run, size_t i, int64_t t_ms,
		       int64_t v0, int64_t v1)
{
	assert_true(i < run->nintervals);
	const struct db_interval *d = &run->intervals[i];
	assert_int_equal(d->t_ms, t_ms);
	assert_int_equal(d->tid, 7);
	assert_string_equal(d->name, "worker");
	assert_int_equal(d->values[0], v0);
	assert_int_equal(d->values[1], v1);
}

/* Each tick's delta lands in its interval; what came after the last
 * tick lands in the interval the thread ended in. Hardware events are
 * not ticked (-1) unless every group ticks. */
static void test_collect_intervals__ticks_then_tail(void **state)
{
	(void)state;
	struct intervals *iv = intervals_new(NEV, 10 * MS, T0);
	tick(iv, 5, 10, 100);
	tick(iv, 25, 30, 300);
	struct db_run run;
	make_run(&run, 45, 450, (int64_t)(T0 + 37 * MS), 0.05);
	assert_int_equal(collect_fill_intervals(&run, iv, 10, false, NULL), 0);
	assert_int_equal(run.nintervals, 3);
	expect_row(&run, 0, 0, 10, -1);
	expect_row(&run, 1, 20, 20, -1);
	expect_row(&run, 2, 30, 15, -1);
	assert_string_equal(db_get_text(&run, SET_INTERVAL_MS), "10");
	db_run_release(&run);

	make_run(&run, 45, 450, (int64_t)(T0 + 37 * MS), 0.05);
	assert_int_equal(collect_fill_intervals(&run, iv, 10, true, NULL), 0);
	assert_int_equal(run.nintervals, 3);
	expect_row(&run, 0, 0, 10, 100);
	expect_row(&run, 1, 20, 20, 200);
	expect_row(&run, 2, 30, 15, 150);
	db_run_release(&run);
	intervals_free(iv);
}

/* The tail joins the last tick's interval when the thread ended in it,
 * and an interval where nothing moved is not stored. */
static void test_collect_intervals__tail_joins_and_still_rows_go(void **state)
{
	(void)state;
	struct intervals *iv = intervals_new(NEV, 10 * MS, T0);
	tick(iv, 5, 10, 0);
	tick(iv, 15, 10, 0);	/* nothing moved in interval 1 */
	tick(iv, 25, 12, 0);
	struct db_run run;
	make_run(&run, 20, 0, (int64_t)(T0 + 28 * MS), 0.05);
	assert_int_equal(collect_fill_intervals(&run, iv, 10, false, NULL), 0);
	assert_int_equal(run.nintervals, 2);
	expect_row(&run, 0, 0, 10, -1);
	expect_row(&run, 1, 20, 10, -1);	/* 2 ticked + 8 after */
	db_run_release(&run);

	/* Final counts equal to the last tick's: no tail at all. */
	make_run(&run, 12, 0, (int64_t)(T0 + 48 * MS), 0.05);
	assert_int_equal(collect_fill_intervals(&run, iv, 10, false, NULL), 0);
	assert_int_equal(run.nintervals, 2);
	expect_row(&run, 1, 20, 2, -1);
	db_run_release(&run);
	intervals_free(iv);
}

/* A thread never ticked has one row, where it ended, or at the run's
 * last interval when it did not end; a tail dated before the first tick
 * lands in the first tick's interval. */
static void test_collect_intervals__untimed_tails(void **state)
{
	(void)state;
	struct intervals *iv = intervals_new(NEV, 10 * MS, T0);
	struct db_run run;
	make_run(&run, 5, 0, 0, 0.042);
	assert_int_equal(collect_fill_intervals(&run, iv, 10, false, NULL), 0);
	assert_int_equal(run.nintervals, 1);
	expect_row(&run, 0, 40, 5, -1);
	db_run_release(&run);

	tick(iv, 35, 4, 0);
	make_run(&run, 9, 0, (int64_t)(T0 + 12 * MS), 0.05);
	assert_int_equal(collect_fill_intervals(&run, iv, 10, false, NULL), 0);
	assert_int_equal(run.nintervals, 1);
	expect_row(&run, 0, 30, 9, -1);
	db_run_release(&run);
	intervals_free(iv);
}

/* Intervals of other events than the run's: nothing is stored. */
static void test_collect_intervals__other_events_store_nothing(void **state)
{
	(void)state;
	struct intervals *iv = intervals_new(NEV + 1, 10 * MS, T0);
	struct db_run run;
	make_run(&run, 5, 5, 0, 0.05);
	assert_int_equal(collect_fill_intervals(&run, iv, 10, false, NULL), 0);
	assert_int_equal(run.nintervals, 0);
	assert_null(db_get_text(&run, SET_INTERVAL_MS));
	db_run_release(&run);
	intervals_free(iv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect_intervals__ticks_then_tail),
		cmocka_unit_test(test_collect_intervals__tail_joins_and_still_rows_go),
		cmocka_unit_test(test_collect_intervals__untimed_tails),
		cmocka_unit_test(test_collect_intervals__other_events_store_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
