/*
 * Tests for reports/framesplot.c (issue 27): a run of many frames is
 * drawn in a bounded number of spans, so the SVG's size does not grow
 * with the frames (a million frame markers made a 329 MB SVG), and the
 * frames over the budget are still marked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/buckets.h"
#include "reports/framesplot.h"
#include "test_util.h"

/* n frames of 5 ms, every 1000th of 40 ms, and render's page faults. */
static void make_run(struct db_run *r, size_t n)
{
	tu_run_init(r, "run", "2026-12-02T18:00:00Z", "./game", "vm", "AMD EPYC", 2);
	r->id = 4;
	r->nevents = 1;
	r->events = calloc(1, sizeof(*r->events));
	r->events[0].name = strdup("page-faults");
	r->events[0].supported = true;
	r->nframes = n;
	r->frames = calloc(n, sizeof(*r->frames));
	r->nframe_counts = n;
	r->nframe_names = 1;
	r->frame_names = calloc(1, sizeof(*r->frame_names));
	r->frame_names[0] = strdup("render");
	r->frame_counts = calloc(n, sizeof(*r->frame_counts));
	assert_non_null(r->frames);
	assert_non_null(r->frame_counts);
	for (size_t i = 0; i < n; i++) {
		int64_t d = i % 1000 == 999 ? 40000000 : 5000000;
		r->frames[i] = (struct db_frame_span){ (int64_t)i * 5000000, d };
		r->frame_counts[i] = (struct db_frame_count){
			.frame = (uint32_t)i, .name = r->frame_names[0],
			.value = (int64_t)(i % 10),
		};
	}
	db_set_str(r, SET_FRAME_SOURCE, "marker");
}

static char *svg_of(const struct db_run *r, size_t *len)
{
	char *svg;
	FILE *fp = open_memstream(&svg, len);
	report_frames_svg(r, fp);
	fclose(fp);
	return svg;
}

static void test_frames_report__many_frames_make_a_bounded_svg(void **state)
{
	(void)state;
	struct db_run r;
	make_run(&r, 200000);
	size_t len;
	char *svg = svg_of(&r, &len);
	/* A point per frame held 200,000 of them (about 66 MB); 400 spans
	 * per panel now. */
	assert_true(len < 400 * 1024);
	assert_non_null(strstr(svg, "per span"));
	assert_non_null(strstr(svg, "over budget (200)"));
	assert_non_null(strstr(svg, "</svg>"));
	free(svg);
	db_run_release(&r);

	/* Ten times the frames, about the same picture. */
	make_run(&r, 2000);
	char *small = svg_of(&r, &len);
	size_t small_len = len;
	free(small);
	db_run_release(&r);
	make_run(&r, 20000);
	svg = svg_of(&r, &len);
	assert_true(len < small_len * 2);
	free(svg);
	db_run_release(&r);
}

/* A short run is drawn frame by frame, as before. */
static void test_frames_report__few_frames_are_drawn_whole(void **state)
{
	(void)state;
	struct db_run r;
	make_run(&r, BUCKETS_MAX);
	size_t len;
	char *svg = svg_of(&r, &len);
	assert_null(strstr(svg, "per span"));
	free(svg);
	db_run_release(&r);
}

static void test_frames_report__buckets_keep_the_extremes(void **state)
{
	(void)state;
	double x[1000], y[1000];
	for (size_t i = 0; i < 1000; i++) {
		x[i] = (double)i;
		y[i] = i == 500 ? 1e9 : i == 501 ? NAN : 1.0;
	}
	struct buckets b;
	buckets_fill(&b, x, y, 1000, 10);
	assert_int_equal(b.n, 10);
	double top = 0;
	for (size_t k = 0; k < b.n; k++) {
		assert_true(b.lo[k] == 1.0);
		top = b.hi[k] > top ? b.hi[k] : top;
	}
	assert_true(top == 1e9);	/* the spike is not averaged away */
	assert_true(b.x[0] > 0 && b.x[9] < 999);
	buckets_release(&b);
	buckets_fill(&b, x, y, 1, 10);	/* one point: one span */
	assert_int_equal(b.n, 1);
	assert_true(b.y[0] == 1.0);
	buckets_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_report__many_frames_make_a_bounded_svg),
		cmocka_unit_test(test_frames_report__few_frames_are_drawn_whole),
		cmocka_unit_test(test_frames_report__buckets_keep_the_extremes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
