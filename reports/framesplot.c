/*
 * framesplot (reports): frame times and counters per frame as SVG.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/frames.h"
#include "reports/framesplot.h"
#include "reports/svg.h"
#include "reports/timeline.h"

#define WIDTH 900.0
#define PANEL_H 250.0
#define TOP 60.0
/* Frames over the budget: orange triangles, apart from the blue line
 * (the legend colours its entries by their place). */
#define LONG_COLOUR 1

static double *xalloc(size_t n)
{
	double *v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		abort();
	return v;
}

/* Frame time against frame index; the budget's line is inside the axis
 * even when every frame kept it. */
static void times_panel(struct svg *s, const struct db_run *run, double y)
{
	size_t n = run->nframes;
	double *x = xalloc(n + 1), *ms = xalloc(n + 1);
	double budget = frames_budget_ms(run);
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)i;
		ms[i] = (double)run->frames[i].dur_ns / 1e6;
	}
	struct svg_axis ax = { .label = "frame", .unit = "index" };
	struct svg_axis ay = { .label = "frame time", .unit = "ms" };
	svg_axis_fit(&ax, x, n, false);
	ms[n] = budget;
	svg_axis_fit(&ay, ms, n + 1, true);
	struct svg_plot p;
	svg_plot_begin(s, &p, 90, y, 770, PANEL_H - 90, &ax, &ay,
		       "frame time per frame");
	svg_series_begin(&p, "frame time", 0);
	svg_line(&p, x, ms, n, svg_colour(0), 1.5, false);
	svg_points(&p, x, ms, n, 0, SVG_DOT);
	/* the long frames alone, NaN elsewhere */
	size_t nlong = 0;
	double *lx = xalloc(n), *ly = xalloc(n);
	for (size_t i = 0; i < n; i++) {
		bool over = ms[i] > budget;
		lx[i] = over ? x[i] : NAN;
		ly[i] = over ? ms[i] : NAN;
		nlong += over;
	}
	char lab[64];
	snprintf(lab, sizeof(lab), "over budget (%zu)", nlong);
	svg_series_begin(&p, lab, LONG_COLOUR);
	svg_points(&p, lx, ly, n, LONG_COLOUR, SVG_TRIANGLE);
	svg_series_end(&p);
	snprintf(lab, sizeof(lab), "budget %g ms", budget);
	svg_hmark(&p, budget, lab);
	const char *names[2] = { "frame time", "over budget" };
	svg_legend(&p, names, 2);
	svg_plot_end(&p);
	free(lx);
	free(ly);
	free(x);
	free(ms);
}

/* Events some thread name has a count per frame of, into ev. */
static size_t counted_events(const struct db_run *run, size_t *ev)
{
	size_t k = 0;
	for (size_t e = 0; e < run->nevents; e++)
		for (size_t i = 0; i < run->nframe_counts; i++)
			if (run->frame_counts[i].event == e) {
				ev[k++] = e;
				break;
			}
	return k;
}

/* Event e per frame, one curve per thread name. */
static void counter_panel(struct svg *s, const struct db_run *run, size_t e,
			  const char **names, size_t nn, double y)
{
	const struct db_event *ev = &run->events[e];
	bool tm = timeline_is_time(ev);
	double *x = xalloc(run->nframes);
	for (size_t i = 0; i < run->nframes; i++)
		x[i] = (double)i;
	struct svg_curve *c = calloc(nn ? nn : 1, sizeof(*c));
	double **v = calloc(nn ? nn : 1, sizeof(*v));
	if (!c || !v)
		abort();
	size_t nc = 0;
	for (size_t k = 0; k < nn; k++) {
		double *val = xalloc(run->nframes);
		if (!frames_per_frame(run, names[k], e, val)) {
			free(val);
			continue;
		}
		for (size_t i = 0; tm && i < run->nframes; i++)
			val[i] /= 1e6;
		v[nc] = val;
		c[nc++] = (struct svg_curve){ .name = names[k], .x = x, .y = val,
					      .n = run->nframes };
	}
	struct svg_axis ax = { .label = "frame", .unit = "index" };
	struct svg_axis ay = { .label = ev->name, .unit = tm ? "ms per frame"
								  : "per frame" };
	char title[160];
	snprintf(title, sizeof(title), "%s per frame, per thread name", ev->name);
	svg_curve(s, 90, y, 770, PANEL_H - 90, &ax, &ay, title, c, nc, NULL, NULL, 0);
	for (size_t k = 0; k < nc; k++)
		free(v[k]);
	free(v);
	free(c);
	free(x);
}

void report_frames_svg(const struct db_run *run, FILE *fp)
{
	size_t *ev = calloc(run->nevents ? run->nevents : 1, sizeof(*ev));
	if (!ev)
		abort();
	size_t ne = counted_events(run, ev);
	struct svg s;
	svg_begin(&s, fp, WIDTH, TOP + PANEL_H * (double)(1 + ne), "prof frames");
	svg_text(&s, 20, 26, SVG_START, "title",
		 "prof report --frames, run %lld: frame times and counters per frame",
		 (long long)run->id);
	const char *src = db_run_get(run, "frame_source");
	svg_text(&s, 20, 46, SVG_START, "small", "%zu frames (%s), p50 %.2f ms, "
		 "p99 %.2f ms, max %.2f ms; dashed: the budget per frame; "
		 "triangles: the frames over it", run->nframes, src ? src : "?",
		 frames_pct_ms(run, 50), frames_pct_ms(run, 99),
		 frames_pct_ms(run, 100));
	times_panel(&s, run, TOP + 30);
	const char **names;
	size_t nn = frames_names(run, &names);
	for (size_t k = 0; k < ne; k++)
		counter_panel(&s, run, ev[k], names, nn,
			      TOP + 30 + PANEL_H * (double)(k + 1));
	free(names);
	free(ev);
	svg_end(&s);
}
