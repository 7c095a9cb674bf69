/*
 * timelineplot (reports): each thread name's counters over time as SVG.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/order.h"
#include "reports/svg.h"
#include "reports/timeline.h"
#include "reports/timelineplot.h"

#define WIDTH 900.0
#define PANEL_H 250.0
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
		abort();
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

/* name's sum of event e at each start time (NaN where none was read). */
static void series_of(const struct db_run *run, const struct grid *g,
		      const char *name, size_t e, double *y)
{
	for (size_t i = 0; i < g->nt; i++)
		y[i] = NAN;
	for (size_t i = 0; i < run->nintervals; i++) {
		const struct db_interval *iv = &run->intervals[i];
		if (iv->values[e] < 0 || strcmp(timeline_name(iv), name))
			continue;
		size_t k = time_index(g, iv->t_ms);
		y[k] = (isnan(y[k]) ? 0 : y[k]) + (double)iv->values[e];
	}
}

static void event_panel(struct svg *s, const struct db_run *run,
			const struct grid *g, size_t e, double top)
{
	const struct db_event *ev = &run->events[e];
	bool tm = timeline_is_time(ev);
	double *x = calloc(g->nt ? g->nt : 1, sizeof(*x));
	double *ys = calloc((g->nt ? g->nt : 1) * (g->nn ? g->nn : 1), sizeof(*ys));
	struct svg_curve *c = calloc(g->nn ? g->nn : 1, sizeof(*c));
	if (!x || !ys || !c)
		abort();
	for (size_t i = 0; i < g->nt; i++)
		x[i] = (double)g->t[i];
	size_t nc = 0;
	for (size_t k = 0; k < g->nn; k++) {
		double *y = ys + nc * g->nt;
		series_of(run, g, g->names[k], e, y);
		bool any = false;
		for (size_t i = 0; i < g->nt; i++) {
			any |= !isnan(y[i]);
			if (tm)
				y[i] /= 1e6;
		}
		if (any)
			c[nc++] = (struct svg_curve){ .name = g->names[k], .x = x,
						      .y = y, .n = g->nt };
	}
	struct svg_axis ax = { .label = "time since start", .unit = "ms" };
	struct svg_axis ay = { .label = ev->name,
			       .unit = tm ? "ms per interval" : "per interval" };
	char title[160];
	snprintf(title, sizeof(title), "%s over time, per thread name", ev->name);
	svg_curve(s, 90, top, 770, PANEL_H - 90, &ax, &ay, title, c, nc, NULL,
		  NULL, 0);
	free(c);
	free(ys);
	free(x);
}

void report_intervals_svg(const struct db_run *run, FILE *fp)
{
	struct grid g;
	grid_of(run, &g);
	size_t *ev = calloc(run->nevents ? run->nevents : 1, sizeof(*ev));
	if (!ev)
		abort();
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
	svg_text(&s, 20, 46, SVG_START, "small", "%zu intervals of %s ms, %zu "
		 "thread name%s; each point is one interval, from its start; the "
		 "threads of a name summed", g.nt, db_run_get(run, "interval_ms") ?
		 db_run_get(run, "interval_ms") : "?", g.nn, g.nn == 1 ? "" : "s");
	if (!ne)
		svg_text(&s, 20, TOP + 20, SVG_START, NULL, "no counter was read");
	for (size_t k = 0; k < ne; k++)
		event_panel(&s, run, &g, ev[k], TOP + 30 + PANEL_H * (double)k);
	free(ev);
	free(g.t);
	free(g.names);
	svg_end(&s);
}
