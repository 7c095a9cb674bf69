/*
 * pressplot (reports): a pressure experiment as SVG, one panel per
 * workload: delta% with its CI against the cache taken, over the gate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/pressplot.h"
#include "reports/svg.h"

#define WIDTH 900.0
#define TOP 110.0	/* the document's header and the first panel's title */
#define PLOT_H 250.0
#define ROW_H (PLOT_H + 110.0)	/* a panel, its x axis, its sentence, a gap */
#define LINE_H 14.0	/* a line of small text */
/* A note's size in px (10 px text, about 5.5 px a character): one that
 * would cover the previous is left to the table. */
#define NOTE_CHAR_W 5.5
#define NOTE_H 12.0
#define HELD_COLOUR 1	/* orange, apart from the curve's blue */

/* The x axis's unit: MiB, or KiB for a domain under 1 MiB. */
struct xunit {
	double scale;
	const char *name;
};

static struct xunit xunit_of(const struct press_analysis *a)
{
	uint64_t most = a->domain_bytes;
	for (size_t i = 0; i < a->ncurves; i++)
		for (size_t k = 0; k < a->curves[i].nsteps; k++)
			if (a->curves[i].steps[k].taken_bytes > most)
				most = a->curves[i].steps[k].taken_bytes;
	if (most >= 1u << 20)
		return (struct xunit){ 1u << 20, "MiB" };
	return (struct xunit){ 1u << 10, "KiB" };
}

/* Where the co-runner held clearly less than it walked (as the table's
 * sentence says it: under 90%), at a step that has a delta to draw. */
static bool held_drawn(const struct press_step *s)
{
	return !s->aa && s->cmp.computable && isfinite(s->held_bytes) &&
	       s->held_bytes < 0.9 * (double)s->taken_bytes;
}

static bool curve_held(const struct press_curve *c)
{
	for (size_t i = 0; i < c->nsteps; i++)
		if (held_drawn(&c->steps[i]))
			return true;
	return false;
}

/* One point per step: x the cache taken in u, y its delta% and CI
 * (NaN where it has none). */
struct points {
	double *x, *y, *lo, *hi;
};

static void points_of(const struct press_curve *c, struct xunit u, struct points *pt)
{
	size_t n = c->nsteps + 1;
	pt->x = calloc(n, sizeof(double));
	pt->y = calloc(n, sizeof(double));
	pt->lo = calloc(n, sizeof(double));
	pt->hi = calloc(n, sizeof(double));
	if (!pt->x || !pt->y || !pt->lo || !pt->hi)
		xalloc_die();
	for (size_t i = 0; i < c->nsteps; i++) {
		const struct press_step *s = &c->steps[i];
		bool ci = s->cmp.computable && s->cmp.p.ci_computable;
		pt->x[i] = (double)s->taken_bytes / u.scale;
		pt->y[i] = s->cmp.computable ? s->cmp.p.delta_pct : NAN;
		pt->lo[i] = ci ? s->cmp.p.ci95_lo_pct : NAN;
		pt->hi[i] = ci ? s->cmp.p.ci95_hi_pct : NAN;
	}
}

static void points_free(struct points *pt)
{
	free(pt->x);
	free(pt->y);
	free(pt->lo);
	free(pt->hi);
}

/* Axes that hold the points, what was held, the domain, and the gate
 * band with its edges inside the panel. */
static void fit_axes(const struct press_analysis *a, const struct press_curve *c,
		     struct xunit u, const struct points *pt, struct svg_axis *ax,
		     struct svg_axis *ay)
{
	size_t n = c->nsteps;
	double *fx = calloc(2 * n + 1, sizeof(*fx)), *fy = calloc(3 * n + 2, sizeof(*fy));
	if (!fx || !fy)
		xalloc_die();
	size_t kx = 0, ky = 0;
	fx[kx++] = (double)a->domain_bytes / u.scale;
	fy[ky++] = -1.25 * c->gate_pct;
	fy[ky++] = 1.25 * c->gate_pct;
	for (size_t i = 0; i < n; i++) {
		fx[kx++] = pt->x[i];
		if (held_drawn(&c->steps[i]))
			fx[kx++] = c->steps[i].held_bytes / u.scale;
		fy[ky++] = pt->y[i];
		fy[ky++] = pt->lo[i];
		fy[ky++] = pt->hi[i];
	}
	svg_axis_fit(ax, fx, kx, true);
	svg_axis_fit(ay, fy, ky, true);
	free(fx);
	free(fy);
}

/* The gate as a band around 0, and the domain's size as a dashed line. */
static void draw_frame_marks(struct svg_plot *p, const struct press_analysis *a,
			     const struct press_curve *c, struct xunit u)
{
	fputs("<g class=\"gate\">\n", p->s->fp);
	svg_rect(p, p->ax.lo, -c->gate_pct, p->ax.hi, c->gate_pct, "#999999", 0.18);
	char gl[64];
	snprintf(gl, sizeof(gl), "gate ±%.1f%%", c->gate_pct);
	svg_hmark(p, 0, gl);
	fputs("</g>\n", p->s->fp);
	char dom[48], size[32];
	fmt_bytes(size, sizeof(size), (double)a->domain_bytes);
	if (!strcmp(a->method, "sim"))
		snprintf(dom, sizeof(dom), "LL %s", size);
	else
		snprintf(dom, sizeof(dom), "L%d %s", a->domain_level, size);
	svg_vmark(p, (double)a->domain_bytes / u.scale, dom);
}

/* What was held, a diamond joined by a dashed line to what was walked. */
static void draw_held(struct svg_plot *p, const struct press_curve *c,
		      const struct points *pt, struct xunit u)
{
	if (!curve_held(c))
		return;
	svg_series_begin(p, "held by the co-runner", HELD_COLOUR);
	for (size_t i = 0; i < c->nsteps; i++) {
		if (!held_drawn(&c->steps[i]))
			continue;
		const double hx[2] = { c->steps[i].held_bytes / u.scale, pt->x[i] };
		const double hy[2] = { pt->y[i], pt->y[i] };
		svg_line(p, hx, hy, 2, svg_colour(HELD_COLOUR), 1, true);
		svg_points(p, hx, hy, 1, HELD_COLOUR, SVG_DIAMOND);
	}
	svg_series_end(p);
}

/* Each step's delta% and verdict beside its point (the A/A step's
 * "A/A"), but for those that would cover the previous note. */
static void draw_notes(struct svg_plot *p, const struct press_curve *c,
		       const struct points *pt)
{
	double end = -INFINITY, at = 0;	/* the previous note: its right end, y */
	for (size_t i = 0; i < c->nsteps; i++) {
		const struct press_step *s = &c->steps[i];
		double yv = isfinite(pt->y[i]) ? pt->y[i] : 0;
		double px = svg_px(p, pt->x[i]), py = svg_py(p, yv);
		char note[96];
		if (s->aa)
			snprintf(note, sizeof(note), "A/A");
		else if (!s->cmp.computable)
			snprintf(note, sizeof(note), "n/a (%s)", s->cmp.why ? s->cmp.why
				 : "no rounds");
		else
			snprintf(note, sizeof(note), "%+.1f%% %s", s->cmp.p.delta_pct,
				 stats_verdict_name(s->cmp.j.verdict));
		if (px + 5 < end && fabs(py - at) < NOTE_H)
			continue;
		svg_note(p, pt->x[i], yv, note, 0);
		end = px + 5 + NOTE_CHAR_W * (double)strlen(note);
		at = py;
	}
}

static void curve_panel(struct svg *s, const struct press_analysis *a,
			const struct press_curve *c, double top, struct xunit u)
{
	struct points pt;
	points_of(c, u, &pt);
	char ylab[160], title[200];
	snprintf(ylab, sizeof(ylab), "%s vs the control%s", press_metric_label(a->metric),
		 a->higher_is_better ? ", higher is better" : "");
	struct svg_axis ax = {
		.label = !strcmp(a->method, "sim") ? "last level taken (simulated)"
			 : strcmp(a->method, "cat") ? "cache taken (the co-runner's buffer)"
			 : "cache taken (L3 ways withheld)",
		.unit = u.name,
	};
	struct svg_axis ay = { .label = ylab, .unit = "%" };
	fit_axes(a, c, u, &pt, &ax, &ay);
	snprintf(title, sizeof(title), "%s: %s (gate ±%.1f%%, %s)", c->workload,
		 press_verdict_name(c->verdict), c->gate_pct,
		 c->gate_source ? c->gate_source : "?");
	struct svg_plot p;
	svg_plot_begin(s, &p, 90, top, 770, PLOT_H, &ax, &ay, title);
	draw_frame_marks(&p, a, c, u);
	draw_held(&p, c, &pt, u);
	svg_series_begin(&p, "delta vs control", 0);
	svg_line(&p, pt.x, pt.y, c->nsteps, svg_colour(0), 1.5, false);
	for (size_t i = 0; i < c->nsteps; i++)
		svg_vbar(&p, pt.x[i], pt.lo[i], pt.hi[i], 0);
	svg_points(&p, pt.x, pt.y, c->nsteps, 0, SVG_DOT);
	draw_notes(&p, c, &pt);
	svg_series_end(&p);
	if (curve_held(c)) {
		static const char *const names[] = { "Δ% (95% CI)", "held" };
		svg_legend(&p, names, 2);
	}
	svg_plot_end(&p);
	svg_text(s, 90, top + PLOT_H + 56, SVG_START, "small", "%s",
		 c->summary ? c->summary : "?");
	points_free(&pt);
}

/* "cache-sensitive", or per workload "big: cache-sensitive; small: ...". */
static void verdicts(const struct press_analysis *a, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < a->ncurves; i++) {
		const struct press_curve *c = &a->curves[i];
		size_t len = strlen(buf);
		if (a->ncurves == 1)
			snprintf(buf, n, "%s", press_verdict_name(c->verdict));
		else
			snprintf(buf + len, n - len, "%s%s: %s", i ? "; " : "", c->workload,
				 press_verdict_name(c->verdict));
	}
}

static void header(struct svg *s, const struct press_analysis *a, bool held)
{
	const struct db_experiment *e = a->exp;
	char v[400], dom[32];
	verdicts(a, v, sizeof(v));
	svg_text(s, 20, 26, SVG_START, "title", "prof pressure, experiment %lld: %s",
		 (long long)e->id, v);
	fmt_bytes(dom, sizeof(dom), (double)a->domain_bytes);
	char how[160];
	if (!strcmp(a->method, "sim"))
		snprintf(how, sizeof(how), "each run under valgrind's cache model, its "
			 "last level the control's less each step");
	else if (!strcmp(a->method, "cat"))
		snprintf(how, sizeof(how), "workload on CPU %d; cache taken by resctrl "
			 "allocation (fewer L3 ways)", a->workload_cpu);
	else
		snprintf(how, sizeof(how), "workload on CPU %d, co-runner on CPU %d "
			 "walking a random cycle of each step's size", a->workload_cpu,
			 a->corunner_cpu);
	char where[96];
	if (!strcmp(a->method, "sim"))
		snprintf(where, sizeof(where), "a simulated LL of %s at most", dom);
	else
		snprintf(where, sizeof(where), "L%d %s (CPUs %s)", a->domain_level, dom,
			 a->domain_cpus ? a->domain_cpus : "?");
	svg_text(s, 20, 46, SVG_START, "small", "%s, %s, %zu round%s; "
		 "%s%s%s", where,
		 press_metric_label(a->metric), a->counted_rounds,
		 a->counted_rounds == 1 ? "" : "s", how,
		 e->status && strcmp(e->status, "complete") ? "; status: " : "",
		 e->status && strcmp(e->status, "complete") ? e->status : "");
	if (!strcmp(a->method, "sim"))
		svg_text(s, 20, 46 + LINE_H, SVG_START, "small", "dots: the change "
			 "against the control (the largest last level), bars: twice the "
			 "runs' own spread; grey band: the gate; dashed: that size");
	else
		svg_text(s, 20, 46 + LINE_H, SVG_START, "small", "dots: the change against "
			 "the control co-runner of the same round, bars: its 95%% CI; grey "
			 "band: the gate; dashed: the domain's size");
	if (held)
		svg_text(s, 20, 46 + 2 * LINE_H, SVG_START, "small", "diamonds: what "
			 "the co-runner held of what it walked (less, once its own "
			 "lines miss), joined to the step");
}

void press_render_svg(const struct press_analysis *a, FILE *fp)
{
	bool held = false;
	for (size_t i = 0; i < a->ncurves; i++)
		held = held || curve_held(&a->curves[i]);
	double height = TOP + ROW_H * (double)a->ncurves + LINE_H *
			(double)a->nwarnings;
	char title[64];
	snprintf(title, sizeof(title), "prof pressure experiment %lld",
		 (long long)a->exp->id);
	struct svg s;
	svg_begin(&s, fp, WIDTH, height, title);
	header(&s, a, held);
	struct xunit u = xunit_of(a);
	for (size_t i = 0; i < a->ncurves; i++)
		curve_panel(&s, a, &a->curves[i], TOP + ROW_H * (double)i, u);
	double y = TOP + ROW_H * (double)a->ncurves - 20;
	for (size_t i = 0; i < a->nwarnings; i++, y += LINE_H)
		svg_text(&s, 20, y, SVG_START, "small", "warning: %s", a->warnings[i]);
	svg_end(&s);
}
