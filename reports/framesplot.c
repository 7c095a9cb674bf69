/*
 * framesplot (reports): frame times and counters per frame as SVG.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/buckets.h"
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
		xalloc_die();
	return v;
}

/*
 * Frame time against frame index; the budget's line is inside the axis
 * even when every frame kept it. More frames than BUCKETS_MAX are drawn
 * in that many spans of frames, each its frames' mean with a bar from the
 * shortest to the longest, and a triangle at the longest where it is over
 * the budget: the picture's size does not grow with the frames (issue 27:
 * a million frames made a 329 MB SVG).
 */
static void times_panel(struct svg *s, const struct db_run *run, double y)
{
	size_t n = run->nframes;
	double *x = xalloc(n + 1), *ms = xalloc(n + 1);
	double budget = frames_budget_ms(run);
	size_t nlong = 0;
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)i;
		ms[i] = (double)run->frames[i].dur_ns / 1e6;
		nlong += ms[i] > budget;
	}
	struct buckets b = { 0 };
	bool agg = n > BUCKETS_MAX;
	if (agg) {
		buckets_fill(&b, x, ms, n, BUCKETS_MAX);
		free(x);
		free(ms);
		/* The spans' middles and means, then their ranges for the axis. */
		x = xalloc(b.n + 1);
		ms = xalloc(3 * b.n + 1);
		for (size_t k = 0; k < b.n; k++) {
			x[k] = b.x[k];
			ms[k] = b.y[k];
			ms[b.n + k] = b.lo[k];
			ms[2 * b.n + k] = b.hi[k];
		}
	}
	size_t np = agg ? b.n : n;	/* the points drawn */
	struct svg_axis ax = { .label = "frame", .unit = "index" };
	struct svg_axis ay = { .label = "frame time", .unit = "ms" };
	svg_axis_fit(&ax, x, np, false);
	size_t nv = agg ? 3 * b.n : n;
	ms[nv] = budget;
	svg_axis_fit(&ay, ms, nv + 1, true);
	struct svg_plot p;
	svg_plot_begin(s, &p, 90, y, 770, PANEL_H - 90, &ax, &ay,
		       agg ? "frame time per frame (mean, shortest to longest, per span)"
			   : "frame time per frame");
	svg_series_begin(&p, "frame time", 0);
	svg_line(&p, x, ms, np, svg_colour(0), 1.5, false);
	for (size_t k = 0; agg && k < b.n; k++)
		svg_vbar(&p, b.x[k], b.lo[k], b.hi[k], 0);
	svg_points(&p, x, ms, np, 0, SVG_DOT);
	/* the long frames alone (in spans: the longest, where over), NaN
	 * elsewhere */
	double *lx = xalloc(np), *ly = xalloc(np);
	for (size_t i = 0; i < np; i++) {
		double v = agg ? b.hi[i] : ms[i];
		bool over = v > budget;
		lx[i] = over ? x[i] : NAN;
		ly[i] = over ? v : NAN;
	}
	char lab[64];
	snprintf(lab, sizeof(lab), "over budget (%zu)", nlong);
	svg_series_begin(&p, lab, LONG_COLOUR);
	svg_points(&p, lx, ly, np, LONG_COLOUR, SVG_TRIANGLE);
	svg_series_end(&p);
	snprintf(lab, sizeof(lab), "budget %g ms", budget);
	svg_hmark(&p, budget, lab);
	const char *names[2] = { "frame time", "over budget" };
	svg_legend(&p, names, 2);
	svg_plot_end(&p);
	buckets_release(&b);
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

/* Event e per frame, one curve per thread name (past SVG_SERIES_MAX,
 * the largest and one "other"; in spans of frames, as times_panel, when
 * there are more than BUCKETS_MAX). */
static void counter_panel(struct svg *s, const struct db_run *run, size_t e,
			  const char **names, size_t nn, double y)
{
	const struct db_event *ev = &run->events[e];
	bool tm = timeline_is_time(ev);
	bool agg = run->nframes > BUCKETS_MAX;
	size_t nf = run->nframes ? run->nframes : 1, nn1 = nn ? nn : 1;
	double *x = xalloc(run->nframes), *other = xcalloc(nf, sizeof(*other));
	double *vs = xcalloc(nf * nn1, sizeof(*vs));
	double **v = xcalloc(nn1, sizeof(*v));
	size_t *keep = xcalloc(nn1, sizeof(*keep));
	struct svg_curve *c = xcalloc(SVG_SERIES_MAX, sizeof(*c));
	struct buckets *b = xcalloc(SVG_SERIES_MAX, sizeof(*b));
	for (size_t i = 0; i < run->nframes; i++)
		x[i] = (double)i;
	for (size_t k = 0; k < nn; k++) {
		v[k] = vs + k * nf;
		if (!frames_per_frame(run, names[k], e, v[k])) {
			for (size_t i = 0; i < run->nframes; i++)
				v[k][i] = NAN;
			continue;
		}
		for (size_t i = 0; tm && i < run->nframes; i++)
			v[k][i] /= 1e6;
	}
	size_t nother, nkeep = svg_series_top(v, nn, run->nframes, keep, other, &nother);
	size_t nc = nkeep + (nother > 0);
	char other_name[48];
	snprintf(other_name, sizeof(other_name), "other (%zu names)", nother);
	for (size_t k = 0; k < nc; k++) {
		const char *name = k < nkeep ? names[keep[k]] : other_name;
		double *yk = k < nkeep ? v[keep[k]] : other;
		c[k] = (struct svg_curve){ .name = name, .x = x, .y = yk, .n = run->nframes };
		if (agg) {
			buckets_fill(&b[k], x, yk, run->nframes, BUCKETS_MAX);
			c[k] = (struct svg_curve){ .name = name, .x = b[k].x, .y = b[k].y,
						   .lo = b[k].lo, .hi = b[k].hi, .n = b[k].n };
		}
	}
	struct svg_axis ax = { .label = "frame", .unit = "index" };
	struct svg_axis ay = { .label = ev->name, .unit = tm ? "ms per frame"
								  : "per frame" };
	char title[160];
	snprintf(title, sizeof(title), "%s per frame, per thread name%s", ev->name,
		 agg ? " (mean, least to largest, per span)" : "");
	svg_curve(s, 90, y, 770, PANEL_H - 90, &ax, &ay, title, c, nc, NULL, NULL, 0);
	for (size_t k = 0; k < nc; k++)
		buckets_release(&b[k]);
	free(b);
	free(c);
	free(keep);
	free(v);
	free(vs);
	free(other);
	free(x);
}

void report_frames_svg(const struct db_run *run, FILE *fp)
{
	size_t *ev = calloc(run->nevents ? run->nevents : 1, sizeof(*ev));
	if (!ev)
		xalloc_die();
	size_t ne = counted_events(run, ev);
	struct svg s;
	svg_begin(&s, fp, WIDTH, TOP + PANEL_H * (double)(1 + ne), "prof frames");
	svg_text(&s, 20, 26, SVG_START, "title",
		 "prof report --frames, run %lld: frame times and counters per frame",
		 (long long)run->id);
	const char *src = db_get_str(run, SET_FRAME_SOURCE);
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
