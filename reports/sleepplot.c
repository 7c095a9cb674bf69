/*
 * sleepplot (reports): a sleep benchmark as SVG: overshoot CDFs per mode
 * on a log axis, and the CPU each mode spends per call.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/sleep.h"
#include "reports/sleepplot.h"
#include "reports/svg.h"

#define WIDTH 900.0
/* A row: a 210 px panel, its axes and up to three rows of legend. */
#define ROW_H 330.0
#define TOP 60.0
/* Overshoots at or under this (early wakes included) sit on the axis's
 * left end: a log axis has no zero. */
#define FLOOR_US 0.01

/* The distinct durations, in the order they ran. */
static size_t durations(const struct db_sleep *s, uint32_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < s->ncells; i++) {
		size_t k = 0;
		while (k < n && out[k] != s->cells[i].target_us)
			k++;
		if (k == n)
			out[n++] = s->cells[i].target_us;
	}
	return n;
}

static double us(int64_t ns)
{
	double v = (double)ns / 1000.0;
	return v > FLOOR_US ? v : FLOOR_US;
}

/* A cell's CDF: the fraction of calls at or under each stored point. */
static void cdf_of(const struct db_sleep_cell *c, double *x, double *y)
{
	const int64_t v[6] = { c->min_ns, c->p50_ns, c->p90_ns, c->p99_ns,
			       c->p999_ns, c->max_ns };
	static const double f[6] = { 0, 0.5, 0.9, 0.99, 0.999, 1 };
	for (size_t i = 0; i < 6; i++) {
		x[i] = us(v[i]);
		y[i] = f[i];
	}
}

static void cdf_panel(struct svg *s, const struct db_sleep *sl, uint32_t dur,
		      double y)
{
	double all[2 * 64];
	size_t na = 0;
	for (size_t i = 0; i < sl->ncells && na < 2 * 64; i++) {
		if (sl->cells[i].target_us != dur)
			continue;
		all[na++] = us(sl->cells[i].min_ns);
		all[na++] = us(sl->cells[i].max_ns);
	}
	struct svg_axis ax = { .label = "overshoot beyond the target", .unit = "us",
			       .log = true };
	struct svg_axis ay = { .label = "fraction of calls", .lo = 0, .hi = 1 };
	svg_axis_fit(&ax, all, na, false);
	char title[96];
	snprintf(title, sizeof(title), "%u us sleeps: overshoot CDF", dur);
	struct svg_plot p;
	svg_plot_begin(s, &p, 90, y, 480, 210, &ax, &ay, title);
	/* the marks' labels first: the notes keep clear of them */
	svg_hmark(&p, 0.5, "p50");
	svg_hmark(&p, 0.99, "p99");
	const char *names[16];
	char namebuf[16][32];
	size_t k = 0;
	for (size_t i = 0; i < sl->ncells && k < 16; i++) {
		const struct db_sleep_cell *c = &sl->cells[i];
		if (c->target_us != dur)
			continue;
		report_sleep_mode(c, namebuf[k], sizeof(namebuf[k]));
		names[k] = namebuf[k];
		double cx[6], cy[6];
		cdf_of(c, cx, cy);
		svg_series_begin(&p, names[k], k);
		svg_line(&p, cx, cy, 6, svg_colour(k), 1.5, false);
		svg_points(&p, cx, cy, 6, k, (enum svg_marker)(k % 4));
		char lab[64];
		snprintf(lab, sizeof(lab), "p50 %.3g", us(c->p50_ns));
		svg_note(&p, cx[1], cy[1], lab, k);
		snprintf(lab, sizeof(lab), "p99 %.3g", us(c->p99_ns));
		svg_note(&p, cx[3], cy[3] - 0.06, lab, k);
		k++;
	}
	if (p.in_series)
		svg_series_end(&p);
	svg_legend(&p, names, k);
	svg_plot_end(&p);
}

static void cpu_panel(struct svg *s, const struct db_sleep *sl, uint32_t dur,
		      double y)
{
	const char *cats[16];
	char catbuf[16][32];
	double v[16];
	size_t k = 0;
	for (size_t i = 0; i < sl->ncells && k < 16; i++) {
		const struct db_sleep_cell *c = &sl->cells[i];
		if (c->target_us != dur)
			continue;
		report_sleep_mode(c, catbuf[k], sizeof(catbuf[k]));
		cats[k] = catbuf[k];
		v[k++] = c->cpu_us_per_call;
	}
	struct svg_axis ax = { .label = "CPU per call", .unit = "us" };
	struct svg_axis ay = { .cats = cats, .ncats = k };
	svg_axis_fit(&ax, v, k, true);
	/* room right of the longest bar for its value */
	ax.hi *= 1.3;
	svg_axis_fit(&ay, NULL, 0, false);
	struct svg_plot p;
	svg_plot_begin(s, &p, 680, y, 190, 210, &ax, &ay, "CPU per call");
	for (size_t i = 0; i < k; i++) {
		svg_series_begin(&p, cats[i], i);
		svg_rect(&p, 0, (double)i - 0.3, v[i], (double)i + 0.3, svg_colour(i), 1);
		char lab[32];
		snprintf(lab, sizeof(lab), "%.3g", v[i]);
		/* at the bar's end, its middle */
		svg_note(&p, v[i], (double)i - 0.3, lab, i);
	}
	svg_plot_end(&p);
}

void report_sleep_svg(const struct db_run *run, const struct db_sleep *s, FILE *fp)
{
	uint32_t durs[64];
	size_t nd = s->ncells <= 64 ? durations(s, durs) : 0;
	struct svg svg;
	svg_begin(&svg, fp, WIDTH, TOP + ROW_H * (double)(nd ? nd : 1), "prof sleep");
	if (run->id)
		svg_text(&svg, 20, 26, SVG_START, "title",
			 "prof sleep, run %lld: how well short sleeps keep time",
			 (long long)run->id);
	else
		svg_text(&svg, 20, 26, SVG_START, "title",
			 "prof sleep: how well short sleeps keep time");
	svg_text(&svg, 20, 46, SVG_START, "small", "%s, %u calls per thread, %u "
		 "thread%s, timer slack %llu ns, %s%s%s", s->pattern, s->calls, s->threads,
		 s->threads == 1 ? "" : "s", (unsigned long long)s->timer_slack_ns,
		 s->sched_policy, *s->clocksource ? ", clocksource " : "", s->clocksource);
	if (!nd)
		svg_text(&svg, 20, TOP + 20, SVG_START, NULL, "no cells measured");
	for (size_t d = 0; d < nd; d++) {
		double y = TOP + 40 + ROW_H * (double)d;
		cdf_panel(&svg, s, durs[d], y);
		cpu_panel(&svg, s, durs[d], y);
	}
	svg_end(&svg);
}
