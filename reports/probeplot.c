/*
 * probeplot (reports): a probe's latency curve as SVG, each repeated
 * size's interquartile range as a bar, sysfs's caches and the knees
 * marked on it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/output.h"
#include "reports/probe.h"
#include "reports/probeplot.h"
#include "reports/svg.h"

#define WIDTH 900.0
#define HEIGHT 480.0
/* The knees' colour: vermillion, apart from the curve's blue. */
#define KNEE_COLOUR 5

/* ns at size bytes on the curve (a knee is one of its points). */
static double ns_at(const struct db_probe *p, uint64_t bytes)
{
	for (size_t i = 0; i < p->npoints; i++)
		if (p->points[i].bytes == bytes)
			return p->points[i].ns;
	return NAN;
}

static void draw_knees(struct svg_plot *pl, const struct db_probe *p,
		       const struct probe_verdict *v)
{
	if (!v->nknees)
		return;
	svg_series_begin(pl, "knees", KNEE_COLOUR);
	for (size_t i = 0; i < v->nknees; i++) {
		const struct probe_knee *k = &v->knees[i];
		double x = (double)k->bytes, y = ns_at(p, k->bytes);
		svg_points(pl, &x, &y, 1, KNEE_COLOUR, SVG_TRIANGLE);
		char size[32], lab[64];
		fmt_bytes(size, sizeof(size), (double)k->bytes);
		const char *role = probe_knee_role(v, k);
		snprintf(lab, sizeof(lab), "knee %s%s%s%s", size, role ? " (" : "",
			 role ? role : "", role ? ")" : "");
		svg_note(pl, x, y, lab, KNEE_COLOUR);
	}
	svg_series_end(pl);
}

void report_probe_svg(const struct db_run *run, const struct db_probe *p, FILE *fp)
{
	struct probe_verdict v;
	probe_verdict(p, &v);
	struct svg s;
	svg_begin(&s, fp, WIDTH, HEIGHT, "prof probe");
	if (run->id > 0)
		svg_text(&s, 20, 26, SVG_START, "title",
			 "prof probe, run %lld: latency against working-set size",
			 (long long)run->id);
	else
		svg_text(&s, 20, 26, SVG_START, "title",
			 "prof probe: latency against working-set size");
	char cpu[32] = "";
	if (p->cpu >= 0)
		snprintf(cpu, sizeof(cpu), "CPU %d, ", p->cpu);
	unsigned reps = 1;
	for (size_t i = 0; i < p->npoints; i++)
		if (p->points[i].reps > reps)
			reps = p->points[i].reps;
	char sub[400];
	if (reps > 1)
		snprintf(sub, sizeof(sub), "%sa random pointer chase, one 64-byte line "
			 "a step: each size the median of %u repetitions (%.0f ms in "
			 "all), bars from its lower to its upper quartile; dashed: the "
			 "caches sysfs lists; triangles: knees", cpu, reps, p->ms_per_size);
	else
		snprintf(sub, sizeof(sub), "%sa random pointer chase, one 64-byte line "
			 "a step, the fastest batch of each size (%.0f ms each); dashed: "
			 "the caches sysfs lists; triangles: knees", cpu, p->ms_per_size);
	/* two lines at most in the room above the plot */
	svg_text_wrapped(&s, 20, 46, WIDTH - 40, "small", sub);

	double *x = calloc(p->npoints + 1, sizeof(*x));
	double *y = calloc(p->npoints + 1, sizeof(*y));
	double *lo = calloc(p->npoints + 1, sizeof(*lo));
	double *hi = calloc(p->npoints + 1, sizeof(*hi));
	if (!x || !y || !lo || !hi)
		xalloc_die();
	for (size_t i = 0; i < p->npoints; i++) {
		const struct db_probe_point *q = &p->points[i];
		x[i] = (double)q->bytes;
		y[i] = q->ns;
		/* A size measured once has no bar. */
		lo[i] = q->reps > 1 ? q->ns_q1 : NAN;
		hi[i] = q->reps > 1 ? q->ns_q3 : NAN;
	}
	/* sysfs's sizes; a last level that is the L2 is marked once. */
	const struct { const char *name; uint64_t bytes; } lv[3] = {
		{ "L1d", p->l1d_bytes }, { "L2", p->l2_bytes },
		{ "LLC", p->llc_bytes != p->l2_bytes ? p->llc_bytes : 0 },
	};
	double marks[3];
	char labbuf[3][48];
	const char *labels[3];
	size_t nm = 0;
	for (size_t i = 0; i < 3; i++) {
		if (!lv[i].bytes)
			continue;
		char size[32];
		fmt_bytes(size, sizeof(size), (double)lv[i].bytes);
		snprintf(labbuf[nm], sizeof(labbuf[nm]), "%s %s", lv[i].name, size);
		labels[nm] = labbuf[nm];
		marks[nm++] = (double)lv[i].bytes;
	}
	struct svg_axis ax = { .label = "working-set size", .unit = "bytes",
			       .log = true };
	struct svg_axis ay = { .label = "latency", .unit = "ns per access",
			       .log = true };
	struct svg_curve c = { .name = "ns per step", .x = x, .y = y,
			       .lo = reps > 1 ? lo : NULL, .hi = reps > 1 ? hi : NULL,
			       .n = p->npoints };
	struct svg_plot pl;
	svg_curve_open(&s, &pl, 90, 90, 770, 330, &ax, &ay, NULL, &c, 1, marks,
		       labels, nm);
	draw_knees(&pl, p, &v);
	svg_plot_end(&pl);
	if (!p->npoints)
		svg_text(&s, 100, 120, SVG_START, NULL, "no sizes measured");
	svg_end(&s);
	free(x);
	free(y);
	free(lo);
	free(hi);
}
