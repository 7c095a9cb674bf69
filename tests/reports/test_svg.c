/* Tests for reports/svg: ticks, axes, escaping and the document's shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "reports/svg.h"
#include "reports/timeline.h"
#include "reports/timelineplot.h"
#include "test_util.h"
#include "xml_check.h"

static void test_svg__linear_ticks_are_nice(void **state)
{
	(void)state;
	const double v[] = { 0.37, 9.2 };
	struct svg_axis ax = { 0 };
	svg_axis_fit(&ax, v, 2, false);
	assert_true(ax.lo == 0 && ax.hi == 10);
	double t[16];
	size_t n = svg_ticks(&ax, t, 16);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_true(fabs(t[i] - 2.0 * (double)i) < 1e-9);
	const double w[] = { -3.2, 41 };
	svg_axis_fit(&ax, w, 2, true);
	assert_true(ax.lo == -10 && ax.hi == 50);
}

static void test_svg__log_ticks_are_decades(void **state)
{
	(void)state;
	const double v[] = { 0.8, 3, 150, -1, NAN };
	struct svg_axis ax = { .log = true };
	svg_axis_fit(&ax, v, 5, false);
	assert_true(fabs(ax.lo - 0.1) < 1e-12 && fabs(ax.hi - 1000) < 1e-9);
	double t[32];
	size_t n = svg_ticks(&ax, t, 32);
	/* four decades: only the powers of ten */
	assert_int_equal(n, 5);
	assert_true(fabs(t[0] - 0.1) < 1e-12 && fabs(t[4] - 1000) < 1e-9);
	const double w[] = { 2, 30 };
	svg_axis_fit(&ax, w, 2, false);
	n = svg_ticks(&ax, t, 32);
	/* two decades: 1 2 5 10 20 50 100 */
	assert_int_equal(n, 7);
	assert_true(fabs(t[1] - 2) < 1e-12 && fabs(t[5] - 50) < 1e-9);
}

static void test_svg__tick_labels(void **state)
{
	(void)state;
	char b[32];
	svg_tick_label(b, sizeof(b), 0.5);
	assert_string_equal(b, "0.5");
	svg_tick_label(b, sizeof(b), 20000);
	assert_string_equal(b, "20k");
	svg_tick_label(b, sizeof(b), 2500000);
	assert_string_equal(b, "2.5M");
	svg_tick_label(b, sizeof(b), 1000);
	assert_string_equal(b, "1000");
}

static void test_svg__palette_is_okabe_ito(void **state)
{
	(void)state;
	assert_string_equal(svg_colour(0), "#0072B2");
	assert_string_equal(svg_colour(1), "#E69F00");
	assert_string_equal(svg_colour(8), svg_colour(0));
}

/* A panel with two series, a bar, marks and hostile text. */
static char *draw(void)
{
	struct tu_buf b;
	FILE *fp = tu_buf_open(&b);
	struct svg s;
	svg_begin(&s, fp, 400, 300, "a <title> & \"quotes\"");
	struct svg_axis ax = { .label = "size", .unit = "KiB", .log = true };
	struct svg_axis ay = { .label = "latency", .unit = "ns" };
	const double x[] = { 16, 256, 4096 }, y[] = { 1.2, 4.5, 90 };
	const double lo[] = { 1, 4, 80 }, hi[] = { 1.4, 5, 101 };
	const double y2[] = { 1.1, 3.9, NAN };
	struct svg_curve c[2] = {
		{ .name = "arm <a>", .x = x, .y = y, .lo = lo, .hi = hi, .n = 3 },
		{ .name = "arm b", .x = x, .y = y2, .n = 3 },
	};
	const double marks[] = { 32, 1024 };
	const char *const labels[] = { "L1d 32 KiB", "L2 1 MiB" };
	svg_curve(&s, 70, 40, 300, 200, &ax, &ay, "latency & size", c, 2, marks,
		  labels, 2);
	svg_text(&s, 10, 290, SVG_START, "small", "control \x01 char");
	svg_end(&s);
	return (char *)tu_buf_close(&b);
}

static void test_svg__document_is_well_formed(void **state)
{
	(void)state;
	if (!xc_have_xmllint())
		skip();	/* scripts/install-deps installs libxml2-utils */
	char *svg = draw();
	assert_int_equal(xc_lint(svg, false), 0);
	free(svg);
}

static void test_svg__document_has_its_structure(void **state)
{
	(void)state;
	char *svg = draw();
	assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\""));
	assert_int_equal(xc_count(svg, "<g class=\"plot\""), 1);
	assert_int_equal(xc_count(svg, "<g class=\"axis x\" data-scale=\"log\">"), 1);
	assert_int_equal(xc_count(svg, "<g class=\"axis y\">"), 1);
	assert_int_equal(xc_count(svg, "<g class=\"series\""), 2);
	assert_non_null(strstr(svg, "data-name=\"arm &lt;a&gt;\""));
	/* units on both axes, marks labelled, text as text */
	assert_non_null(strstr(svg, ">size (KiB)</text>"));
	assert_non_null(strstr(svg, ">latency (ns)</text>"));
	assert_non_null(strstr(svg, ">L2 1 MiB</text>"));
	assert_int_equal(xc_count(svg, "class=\"mark\""), 2);
	/* three CI bars, only on the first curve */
	assert_int_equal(xc_count(svg, "<g class=\"ci\">"), 3);
	/* the NaN point of the second curve is left out */
	assert_int_equal(xc_count(svg, "<rect x="),
			 1 + 2 + 2);	/* background, arm b's two squares, legend */
	assert_null(strstr(svg, "\x01"));
	assert_non_null(strstr(svg, "<title>a &lt;title&gt; &amp; &quot;quotes&quot;</title>"));
	free(svg);
}

/*
 * An interval row stored without a thread name (the column takes NULL)
 * is drawn as "?", as the compact timeline prints it; the picture used
 * to pass the NULL to strcmp.
 */
static void test_svg__interval_without_a_name(void **state)
{
	(void)state;
	char ev_name[] = "task-clock", main_name[] = "main";
	struct db_event ev = { .name = ev_name, .supported = true };
	int64_t v[4] = { 1000000, 2000000, 1500000, 500000 };
	struct db_interval iv[4] = {
		{ 0, 1, main_name, &v[0] }, { 0, 2, NULL, &v[1] },
		{ 100, 1, main_name, &v[2] }, { 100, 2, NULL, &v[3] },
	};
	struct db_run run = { .id = 1, .nevents = 1, .events = &ev,
			      .nintervals = 4, .intervals = iv };
	assert_true(timeline_read_event(&run, 0));
	assert_string_equal(timeline_name(&iv[1]), "?");
	struct tu_buf b;
	report_intervals_svg(&run, tu_buf_open(&b));
	const char *svg = tu_buf_close(&b);
	assert_non_null(strstr(svg, "data-name=\"?\""));
	assert_non_null(strstr(svg, "data-name=\"main\""));
	free(b.data);
}

/* More series than colours: the largest 7 drawn, the rest summed as one;
 * a series with no point at all is left out; NaN stays NaN in the sum
 * where no summed series has a point. */
static void test_svg__series_past_eight_are_summed(void **state)
{
	(void)state;
	double rows[11][3], *y[11], other[3];
	size_t keep[11], nother;
	for (int k = 0; k < 10; k++) {
		y[k] = rows[k];
		rows[k][0] = k + 1;	/* totals 3(k+1), but series 0 */
		rows[k][1] = k + 1;
		rows[k][2] = k ? k + 1 : NAN;
	}
	y[10] = rows[10];
	rows[10][0] = rows[10][1] = rows[10][2] = NAN;
	assert_int_equal(svg_series_top(y, 11, 3, keep, other, &nother), 7);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(keep[i], 9 - i);	/* 10, 9, ... 4 */
	assert_int_equal(nother, 3);		/* 3, 2, 1 */
	assert_true(other[0] == 6 && other[1] == 6 && other[2] == 5);
	/* eight or fewer: all, in order of size, nothing summed */
	assert_int_equal(svg_series_top(y + 2, 8, 3, keep, other, &nother), 8);
	assert_int_equal(nother, 0);
	assert_int_equal(keep[0], 7);
	/* the empty one alone: nothing to draw */
	assert_int_equal(svg_series_top(y + 10, 1, 3, keep, other, &nother), 0);
	assert_int_equal(nother, 0);
}

/* Labels keep clear of each other: ten notes on one point get the eight
 * places around it, the rest are left out and counted; no two texts
 * written share a place. */
static void test_svg__notes_never_cover_each_other(void **state)
{
	(void)state;
	struct tu_buf b;
	struct svg s;
	svg_begin(&s, tu_buf_open(&b), 600, 400, NULL);
	struct svg_axis ax = { .label = "x" }, ay = { .label = "y" };
	svg_axis_fit(&ax, NULL, 0, false);
	svg_axis_fit(&ay, NULL, 0, false);
	struct svg_plot p;
	svg_plot_begin(&s, &p, 100, 60, 400, 260, &ax, &ay, "t");
	size_t before = s.nboxes;
	for (int i = 0; i < 10; i++)
		svg_note(&p, 0.5, 0.5, "median 12.34", 0);
	svg_plot_end(&p);
	svg_end(&s);
	free((char *)tu_buf_close(&b));
	assert_int_equal(s.nboxes - before, 8);
	assert_int_equal(p.notes_left_out, 2);
	for (size_t i = before; i < s.nboxes; i++)
		for (size_t j = i + 1; j < s.nboxes; j++)
			assert_false(s.boxes[i].x0 < s.boxes[j].x1 && s.boxes[j].x0 < s.boxes[i].x1 &&
				     s.boxes[i].y0 < s.boxes[j].y1 && s.boxes[j].y0 < s.boxes[i].y1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svg__linear_ticks_are_nice),
		cmocka_unit_test(test_svg__log_ticks_are_decades),
		cmocka_unit_test(test_svg__tick_labels),
		cmocka_unit_test(test_svg__palette_is_okabe_ito),
		cmocka_unit_test(test_svg__document_is_well_formed),
		cmocka_unit_test(test_svg__document_has_its_structure),
		cmocka_unit_test(test_svg__interval_without_a_name),
		cmocka_unit_test(test_svg__series_past_eight_are_summed),
		cmocka_unit_test(test_svg__notes_never_cover_each_other),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
