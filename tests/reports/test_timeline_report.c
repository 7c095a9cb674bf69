/*
 * Tests for reports/timeline.c and reports/timelineplot.c on runs no
 * workload makes but a database can hold (issue 27): an interval at a
 * huge time, one 115 days in, sums past INT64_MAX, and more intervals
 * than a picture has pixels. The work and the output go with the rows,
 * not with the time they span.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reports/timeline.h"
#include "reports/timelineplot.h"
#include "test_util.h"

/* A run of one event (page-faults) with intervals every interval_ms. */
static void make_run(struct db_run *r, const char *interval_ms)
{
	tu_run_init(r, "run", "2026-12-02T18:00:00Z", "./game", "vm", "AMD EPYC", 2);
	r->id = 9;
	r->nevents = 1;
	r->events = calloc(1, sizeof(*r->events));
	r->events[0].name = strdup("page-faults");
	r->events[0].supported = true;
	db_set_text(r, SET_INTERVAL_MS, interval_ms);
}

static void add_interval(struct db_run *r, int64_t t_ms, int32_t tid,
			 const char *name, int64_t value)
{
	r->intervals = realloc(r->intervals, (r->nintervals + 1) * sizeof(*r->intervals));
	assert_non_null(r->intervals);
	struct db_interval *iv = &r->intervals[r->nintervals++];
	*iv = (struct db_interval){ .t_ms = t_ms, .tid = tid, .name = strdup(name) };
	iv->values = malloc(sizeof(int64_t));
	iv->values[0] = value;
}

/* What the timeline and the picture print, into *text and *svg. */
static void draw(const struct db_run *r, char **text, char **svg, size_t *svg_len)
{
	size_t n;
	FILE *fp = open_memstream(text, &n);
	report_timeline(r, OUT_TABLE, fp);
	fclose(fp);
	fp = open_memstream(svg, svg_len);
	report_intervals_svg(r, fp);
	fclose(fp);
}

/* One interval near INT64_MAX ms: the timeline asked for an array of
 * 9.2e17 bins and aborted (prof html: rc 134). */
static void test_timeline_report__an_interval_at_a_huge_time(void **state)
{
	(void)state;
	struct db_run r;
	make_run(&r, "10");
	add_interval(&r, 0, 7, "render", 5);
	add_interval(&r, INT64_MAX - 5, 7, "render", 9);
	char *text, *svg;
	size_t len;
	double t0 = tu_now_s();
	draw(&r, &text, &svg, &len);
	assert_true(tu_now_s() - t0 < 1.0);
	/* Every bin between counts as an interval of 0: the median is 0. */
	assert_non_null(strstr(text, " 922,337,203,685,47"));	/* intervals */
	assert_non_null(strstr(text, "  0.00    0.00  9.00  |+ "));
	assert_non_null(strstr(text, " @|"));
	assert_non_null(strstr(svg, "</svg>"));
	free(text);
	free(svg);
	db_run_release(&r);
}

/* 115 days at 1 ms: 9.9e9 bins, past 120 s and 3.1 GB before. */
static void test_timeline_report__an_interval_115_days_in(void **state)
{
	(void)state;
	struct db_run r;
	make_run(&r, "1");
	for (int i = 0; i < 10; i++)
		add_interval(&r, i, 7, "render", 100 + i);
	add_interval(&r, 115LL * 86400 * 1000, 7, "render", 50);
	char *text, *svg;
	size_t len;
	double t0 = tu_now_s();
	draw(&r, &text, &svg, &len);
	assert_true(tu_now_s() - t0 < 1.0);
	/* the intervals spanned, min, median, max */
	assert_non_null(strstr(text, "9,936,000,001  0.00    0.00  109.00  |@ "));
	free(text);
	free(svg);
	db_run_release(&r);
}

/* Two threads of a name at INT64_MAX each: the sum overflowed (UBSan:
 * signed overflow at timeline.c:139) and printed as a negative max. */
static void test_timeline_report__sums_past_int64_are_held(void **state)
{
	(void)state;
	struct db_run r;
	make_run(&r, "10");
	add_interval(&r, 0, 7, "worker", INT64_MAX);
	add_interval(&r, 0, 8, "worker", INT64_MAX);
	add_interval(&r, 10, 7, "worker", 1);
	char *text, *svg;
	size_t len;
	draw(&r, &text, &svg, &len);
	/* INT64_MAX, as a double; the min is the other interval's */
	assert_non_null(strstr(text, "1.00  9,223,372,036,854,775,808.00  "
			       "9,223,372,036,854,775,808.00  |@.|"));
	assert_null(strstr(text, " -"));
	free(text);
	free(svg);
	db_run_release(&r);
}

/* 20,000 intervals of two names: drawn in BUCKETS_MAX spans, so the
 * picture does not grow with the run (it held a point per interval). */
static void test_timeline_report__a_long_run_is_drawn_in_spans(void **state)
{
	(void)state;
	struct db_run r;
	make_run(&r, "10");
	for (int i = 0; i < 20000; i++) {
		add_interval(&r, (int64_t)i * 10, 7, "render", i % 100);
		add_interval(&r, (int64_t)i * 10, 8, "worker", 1000 + i % 7);
	}
	char *text, *svg;
	size_t len;
	draw(&r, &text, &svg, &len);
	assert_non_null(strstr(svg, "drawn in 400 spans of time"));
	assert_true(len < 300 * 1024);
	free(text);
	free(svg);
	db_run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeline_report__an_interval_at_a_huge_time),
		cmocka_unit_test(test_timeline_report__an_interval_115_days_in),
		cmocka_unit_test(test_timeline_report__sums_past_int64_are_held),
		cmocka_unit_test(test_timeline_report__a_long_run_is_drawn_in_spans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
