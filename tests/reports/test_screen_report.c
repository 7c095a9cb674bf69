/*
 * Unit tests of the screen verdicts (reports/screen.h), on runs built
 * here: each rule of the verdict, in its order, with a case at each
 * bound, and the task-clock event found by its attr whatever its name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/screen.h"

#define MAXT 4

struct fake {
	struct db_run run;
	struct db_event ev[2];
	struct db_thread th[MAXT];
	struct db_count counts[MAXT][2];
	struct db_frame_span frames[10];
};

/* A run of wall 1 s whose threads were busy pct[i]% of it (task-clock
 * as event 1, after a context-switches event). */
static void fake_run(struct fake *f, const double *pct, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->ev[0] = (struct db_event){ .name = "context-switches", .supported = true,
				      .attr_type = PERF_TYPE_SOFTWARE,
				      .attr_config = PERF_COUNT_SW_CONTEXT_SWITCHES };
	f->ev[1] = (struct db_event){ .name = "clock", .supported = true,
				      .attr_type = PERF_TYPE_SOFTWARE,
				      .attr_config = PERF_COUNT_SW_TASK_CLOCK };
	static char *names[MAXT] = { "main", "render", "audio", "io" };
	for (size_t i = 0; i < n; i++) {
		f->counts[i][0] = (struct db_count){ 10, 1, 1, true };
		f->counts[i][1] = (struct db_count){ (uint64_t)(pct[i] * 1e7), 1, 1, true };
		f->th[i] = (struct db_thread){ .tid = 100 + (int32_t)i, .name = names[i],
					       .counts = f->counts[i] };
	}
	f->run.id = 7;
	f->run.wall_s = 1.0;
	f->run.nevents = 2;
	f->run.events = f->ev;
	f->run.nthreads = n;
	f->run.threads = f->th;
}

static const struct screen_bounds bounds = { SCREEN_BUSY_PCT, SCREEN_PACED_PCT, 0, 8 };

static void test_screen_report__a_busy_thread_limits(void **state)
{
	(void)state;
	struct fake f;
	fake_run(&f, (double[]){ 20, 95, 10 }, 3);
	struct screen_result r;
	screen_judge(&f.run, "city", 1.0, &bounds, &r);
	assert_int_equal(r.verdict, SCREEN_CPU_LIMITED);
	assert_int_equal(r.busiest_tid, 101);
	assert_string_equal(r.busiest_name, "render");
	assert_true(fabs(r.busiest_pct - 95) < 1e-6);
	assert_true(fabs(r.cpus_busy - 1.25) < 1e-6);
	assert_int_equal(r.over_paced, 1);
	assert_non_null(strstr(r.why, "render 95% busy"));
	/* just under the bound: in between */
	fake_run(&f, (double[]){ 89.9, 10 }, 2);
	screen_judge(&f.run, "city", 1.0, &bounds, &r);
	assert_int_equal(r.verdict, SCREEN_IN_BETWEEN);
	assert_false(r.ended_early);
}

static void test_screen_report__every_thread_under_the_bound_is_paced(void **state)
{
	(void)state;
	struct fake f;
	fake_run(&f, (double[]){ 59.9, 30, 5, 1 }, 4);
	struct screen_result r;
	screen_judge(&f.run, "menu", 1.0, &bounds, &r);
	assert_int_equal(r.verdict, SCREEN_PACED);
	assert_int_equal(r.over_paced, 0);
	fake_run(&f, (double[]){ 60, 30 }, 2);
	screen_judge(&f.run, "menu", 1.0, &bounds, &r);
	assert_int_equal(r.verdict, SCREEN_IN_BETWEEN);
	assert_int_equal(r.over_paced, 1);
}

/* Four threads at 50% on two CPUs: no thread limits, the machine does. */
static void test_screen_report__all_cpus_busy_limits(void **state)
{
	(void)state;
	struct fake f;
	fake_run(&f, (double[]){ 50, 50, 50, 50 }, 4);
	struct screen_bounds two = bounds;
	two.ncpus = 2;
	struct screen_result r;
	screen_judge(&f.run, "crowd", 1.0, &two, &r);
	assert_int_equal(r.verdict, SCREEN_CPU_LIMITED);
	assert_non_null(strstr(r.why, "2.0 of 2 CPUs busy"));
	two.ncpus = 3;	/* 2.0 of 3: under 90%, and each thread half idle */
	screen_judge(&f.run, "crowd", 1.0, &two, &r);
	assert_int_equal(r.verdict, SCREEN_PACED);
}

/* Frames at their budget: paced, even with a thread spinning (a busy
 * wait for the next vsync keeps a core busy and gains nothing). */
static void test_screen_report__frames_at_the_budget_are_paced(void **state)
{
	(void)state;
	struct fake f;
	fake_run(&f, (double[]){ 99, 10 }, 2);
	for (size_t i = 0; i < 10; i++)
		f.frames[i] = (struct db_frame_span){ (int64_t)i * 16700000, 16600000 + (int64_t)(i % 3) * 100000 };
	f.run.nframes = 10;
	f.run.frames = f.frames;
	struct screen_bounds fb = bounds;
	fb.budget_ms = 16.7;
	struct screen_result r;
	screen_judge(&f.run, "title", 1.0, &fb, &r);
	assert_int_equal(r.verdict, SCREEN_PACED);
	assert_true(fabs(r.frame_p50_ms - 16.7) < 1e-9);
	assert_non_null(strstr(r.why, "frames at their budget"));
	/* 5% over the budget: not keeping up, and the busy thread limits */
	for (size_t i = 0; i < 10; i++)
		f.frames[i].dur_ns = 17535000;
	screen_judge(&f.run, "title", 1.0, &fb, &r);
	assert_int_equal(r.verdict, SCREEN_CPU_LIMITED);
	/* without a budget the frames are not judged */
	screen_judge(&f.run, "title", 1.0, &bounds, &r);
	assert_int_equal(r.verdict, SCREEN_CPU_LIMITED);
}

static void test_screen_report__no_task_clock_is_no_data(void **state)
{
	(void)state;
	struct fake f;
	fake_run(&f, (double[]){ 99 }, 1);
	f.ev[1].supported = false;
	struct screen_result r;
	screen_judge(&f.run, "x", 1.0, &bounds, &r);
	assert_int_equal(r.verdict, SCREEN_NO_DATA);
	assert_true(isnan(r.busiest_pct));
	f.ev[1].supported = true;
	f.run.wall_s = 0.5;	/* ended early, judged over its life */
	screen_judge(&f.run, "x", 1.0, &bounds, &r);
	assert_true(r.ended_early);
	assert_true(fabs(r.busiest_pct - 198) < 1e-6);
	assert_int_equal(r.verdict, SCREEN_CPU_LIMITED);
}

static void test_screen_report__report_in_every_format(void **state)
{
	(void)state;
	struct fake f;
	fake_run(&f, (double[]){ 10, 95 }, 2);
	struct screen_result r[2];
	screen_judge(&f.run, "city", 2.0, &bounds, &r[0]);
	fake_run(&f, (double[]){ 5 }, 1);
	screen_judge(&f.run, "menu", 2.0, &bounds, &r[1]);
	enum out_format fs[] = { OUT_TABLE, OUT_MARKDOWN, OUT_CSV, OUT_JSON };
	for (size_t i = 0; i < 4; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		report_screen(r, 2, &bounds, 2.0, fs[i], fp);
		fclose(fp);
		assert_non_null(strstr(buf, "city"));
		assert_non_null(strstr(buf, "cpu-limited"));
		assert_non_null(strstr(buf, "paced"));
		if (fs[i] == OUT_JSON) {
			assert_non_null(strstr(buf, "\"verdict\": \"cpu-limited\""));
			assert_non_null(strstr(buf, "\"busiest\": \"render\""));
			assert_non_null(strstr(buf, "\"budget_ms\": null"));
		}
		if (fs[i] == OUT_CSV)
			assert_non_null(strstr(buf, "scene,run_id,wall_s"));
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_screen_report__a_busy_thread_limits),
		cmocka_unit_test(test_screen_report__every_thread_under_the_bound_is_paced),
		cmocka_unit_test(test_screen_report__all_cpus_busy_limits),
		cmocka_unit_test(test_screen_report__frames_at_the_budget_are_paced),
		cmocka_unit_test(test_screen_report__no_task_clock_is_no_data),
		cmocka_unit_test(test_screen_report__report_in_every_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
