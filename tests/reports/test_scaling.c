/*
 * Tests for reports/scaling, on recorded values (no PMU here multiplexes):
 * the counted fixture run (cycles and instructions ran half of the time,
 * branch-misses never, LLC-load-misses refused, task-clock a software
 * event) lists exactly the three hardware events; a thread scaled under a
 * whole total, a group that missed a sliver, and counts with nothing
 * enabled are judged as `--no-multiplex` must judge them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "fixture_db.h"
#include "reports/scaling.h"

static void test_scaling__counted_fixture(void **state)
{
	(void)state;
	struct db_run r;
	fixture_counted_run(&r);
	struct scaled_event *s;
	assert_int_equal(run_scaled_events(&r, &s), 3);
	assert_string_equal(s[0].name, "cycles");
	assert_int_equal(s[0].idx, 1);
	assert_true(s[0].running_pct == 50.0);
	assert_string_equal(s[1].name, "instructions");
	assert_string_equal(s[2].name, "branch-misses");
	assert_true(s[2].running_pct == 0.0);
	free(s);
	char *t = run_scaled_text(&r, SCALED_ANY);
	assert_string_equal(t, "cycles (counted 50% of the time), instructions "
			    "(counted 50% of the time), branch-misses (never counted)");
	free(t);
	t = run_scaled_text(&r, SCALED_PART);
	assert_string_equal(t, "cycles (counted 50% of the time), instructions "
			    "(counted 50% of the time)");
	free(t);
	t = run_scaled_text(&r, SCALED_NEVER);
	assert_string_equal(t, "branch-misses");
	free(t);
	db_run_release(&r);
}

static void test_scaling__all_of_the_time_is_refused_nothing(void **state)
{
	(void)state;
	struct db_run r;
	fixture_counted_run(&r);
	/* Every count whole: nothing to say, nothing to refuse. */
	for (size_t e = 0; e < r.nevents; e++) {
		r.events[e].total.running = r.events[e].total.enabled;
		for (size_t t = 0; t < r.nthreads; t++)
			r.threads[t].counts[e].running = r.threads[t].counts[e].enabled;
	}
	struct scaled_event *s;
	assert_int_equal(run_scaled_events(&r, &s), 0);
	assert_null(s);
	assert_null(run_scaled_text(&r, SCALED_ANY));
	assert_null(run_scaled_text(&r, SCALED_PART));

	/* One thread scaled is enough, whatever the total says. */
	r.threads[2].counts[1].running = r.threads[2].counts[1].enabled / 4;
	char *t = run_scaled_text(&r, SCALED_ANY);
	assert_string_equal(t, "cycles (counted 25% of the time)");
	free(t);
	r.threads[2].counts[1].running = r.threads[2].counts[1].enabled;

	/* A sliver short of whole is not rounded up to 100%. */
	r.events[2].total.enabled = 1000000;
	r.events[2].total.running = 999900;
	t = run_scaled_text(&r, SCALED_ANY);
	assert_string_equal(t, "instructions (counted 99.99% of the time)");
	free(t);

	/* Nothing enabled, nothing arrived, or not supported: not scaled. */
	r.events[2].total = (struct db_count){ 0, 0, 0, true };
	r.events[3].total.present = false;
	for (size_t t2 = 0; t2 < r.nthreads; t2++)
		r.threads[t2].counts[3] = (struct db_count){ 5, 10, 1, false };
	r.events[1].supported = false;
	r.events[1].total.running = 0;
	assert_null(run_scaled_text(&r, SCALED_ANY));
	db_run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scaling__counted_fixture),
		cmocka_unit_test(test_scaling__all_of_the_time_is_refused_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
