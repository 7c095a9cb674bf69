/*
 * timelineplot (reports): each thread name's counters over time as SVG.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "common/order.h"
#include "reports/buckets.h"
#include "reports/svg.h"
#include "reports/timeline.h"
#include "reports/timelineplot.h"

#define WIDTH 900.0
/* a panel: its title, a 160 px plot, its axes, up to three legend rows */
#define PANEL_H 270.0
#define TOP 60.0

/* The run's intervals as a grid: distinct start times (ascending) by
 * distinct thread names (first sight). */
struct grid {
	int64_t *t;
	size_t nt;
	const char **names;
	size_t nn;
};

static void grid_of(const struct db_run *run, struct grid *g)
{
	g->t = calloc(run->nintervals ? run->nintervals : 1, sizeof(*g->t));
	if (!g->t)
		xalloc_die();
	g->nn = timeline_names(run, &g->names);
	g->nt = 0;
	for (size_t i = 0; i < run->nintervals; i++)
		g->t[g->nt++] = run->intervals[i].t_ms;
	qsort(g->t, g->nt, sizeof(*g->t), order_i64);
	size_t u = 0;
	for (size_t i = 0; i < g->nt; i++)
		if (!u || g->t[u - 1] != g->t[i])
			g->t[u++] = g->t[i];
	g->nt = u;
}

static size_t time_index(const struct grid *g, int64_t t)
{
	const int64_t *p = bsearch(&t, g->t, g->nt, sizeof(*g->t), order_i64);
	return (size_t)(p - g->t);
}

/*
 * name's sum of event e at each start time: NaN before its first row
 * and after its last, 0 at a time between where it has none (prof stores
 * no interval in which a thread's counters did not move).
 */
static void series_of(const struct db_run *run, const struct grid *g,
		      const char *name, size_t e, double *y)
{
	size_t lo = g->nt, hi = 0;
	for (size_t i = 0; i < g->nt; i++)
		y[i] = NAN;
	for (size_t i = 0; i < run->nintervals; i++) {
		const struct db_interval *iv = &run->intervals[i];
		if (iv->values[e] < 0 || strcmp(timeline_name(iv), name))
			continue;
		size_t k = time_index(g, iv->t_ms);
		y[k] = (isnan(y[k]) ? 0 : y[k]) + (double)iv->values[e];
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	for (size_t k = lo; k < hi; k++)
		if (isnan(y[k]))
			y[k] = 0;
}

/*
 * Event e over time, one curve per thread name (past SVG_SERIES_MAX,
 * the largest and one "other"); a run of more start times than BUCKETS_MAX
 * is drawn in that many spans of time, each its intervals' mean with a
 * bar from the least to the largest, so the picture's size and work do
 * not grow with the run's length.
 */
static void event_panel(struct svg *s, const struct db_run *run,
			const struct grid *g, size_t e, double top)
{
	const struct db_event *ev = &run->events[e];
	bool tm = timeline_is_time(ev);
	bool agg = g->nt > BUCKETS_MAX;
	size_t nt = g->nt ? g->nt : 1, nn = g->nn ? g->nn : 1;
	double *x = xcalloc(nt, sizeof(*x)), *other = xcalloc(nt, sizeof(*other));
	double *ys = xcalloc(nt * nn, sizeof(*ys));
	double **y = xcalloc(nn, sizeof(*y));
	size_t *keep = xcalloc(nn, sizeof(*keep));
	struct svg_curve *c = xcalloc(SVG_SERIES_MAX, sizeof(*c));
	struct buckets *b = xcalloc(SVG_SERIES_MAX, sizeof(*b));
	for (size_t i = 0; i < g->nt; i++)
		x[i] = (double)g->t[i];
	for (size_t k = 0; k < g->nn; k++) {
		y[k] = ys + k * nt;
		series_of(run, g, g->names[k], e, y[k]);
		for (size_t i = 0; tm && i < g->nt; i++)
			y[k][i] /= 1e6;
	}
	size_t nother, nkeep = svg_series_top(y, g->nn, g->nt, keep, other, &nother);
	size_t nc = nkeep + (nother > 0);
	char other_name[48];
	snprintf(other_name, sizeof(other_name), "other (%zu names)", nother);
	for (size_t k = 0; k < nc; k++) {
		const char *name = k < nkeep ? g->names[keep[k]] : other_name;
		double *yk = k < nkeep ? y[keep[k]] : other;
		c[k] = (struct svg_curve){ .name = name, .x = x, .y = yk, .n = g->nt };
		if (agg) {
			buckets_fill(&b[k], x, yk, g->nt, BUCKETS_MAX);
			c[k] = (struct svg_curve){ .name = name, .x = b[k].x, .y = b[k].y,
						   .lo = b[k].lo, .hi = b[k].hi, .n = b[k].n };
		}
	}
	struct svg_axis ax = { .label = "time since start", .unit = "ms" };
	struct svg_axis ay = { .label = ev->name,
			       .unit = tm ? "ms per interval" : "per interval" };
	char title[160];
	snprintf(title, sizeof(title), "%s over time, per thread name", ev->name);
	svg_curve(s, 90, top, 770, PANEL_H - 110, &ax, &ay, title, c, nc, NULL,
		  NULL, 0);
	for (size_t k = 0; k < nc; k++)
		buckets_release(&b[k]);
	free(b);
	free(c);
	free(keep);
	free(y);
	free(ys);
	free(other);
	free(x);
}

void report_intervals_svg(const struct db_run *run, FILE *fp)
{
	struct grid g;
	grid_of(run, &g);
	size_t *ev = calloc(run->nevents ? run->nevents : 1, sizeof(*ev));
	if (!ev)
		xalloc_die();
	size_t ne = 0;
	for (size_t e = 0; e < run->nevents; e++)
		if (timeline_read_event(run, e))
			ev[ne++] = e;
	struct svg s;
	svg_begin(&s, fp, WIDTH, TOP + PANEL_H * (double)(ne ? ne : 1),
		  "prof intervals");
	svg_text(&s, 20, 26, SVG_START, "title",
		 "prof report --intervals, run %lld: counters over time",
		 (long long)run->id);
	const char *ms = db_get_text(run, SET_INTERVAL_MS);
	if (g.nt > BUCKETS_MAX)
		svg_text(&s, 20, 46, SVG_START, "small", "%zu intervals of %s ms, "
			 "%zu thread name%s, the threads of a name summed; drawn in "
			 "%d spans of time: each point the mean of its intervals, "
			 "its bar the least to the largest", g.nt, ms ? ms : "?",
			 g.nn, g.nn == 1 ? "" : "s", BUCKETS_MAX);
	else
		svg_text(&s, 20, 46, SVG_START, "small", "%zu intervals of %s ms, "
			 "%zu thread name%s; each point is one interval, from its "
			 "start; the threads of a name summed", g.nt, ms ? ms : "?",
			 g.nn, g.nn == 1 ? "" : "s");
	if (!ne)
		svg_text(&s, 20, TOP + 20, SVG_START, NULL, "no counter was read");
	for (size_t k = 0; k < ne; k++)
		event_panel(&s, run, &g, ev[k], TOP + 30 + PANEL_H * (double)k);
	free(ev);
	free(g.t);
	free(g.names);
	svg_end(&s);
}
