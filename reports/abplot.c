/*
 * abplot (reports): an A/B experiment as SVG, one row per metric: the
 * rounds per arm on the left, the effects against the gate on the right.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/abplot.h"
#include "reports/output.h"
#include "reports/svg.h"

#define WIDTH 900.0
#define ROW_H 250.0	/* one metric: title, plot, axis */
#define TOP 70.0	/* the document's header */

/* The round a counted run ran in, or -1. */
static int round_of(const struct db_experiment *e, int64_t run_id)
{
	for (size_t i = 0; i < e->nruns; i++)
		if (e->runs[i].run_id == run_id)
			return e->runs[i].round;
	return -1;
}

static bool drawable(const struct ab_analysis *a, size_t m)
{
	if (!a->metrics[m].supported)
		return false;
	for (size_t arm = 0; arm < a->narms; arm++)
		if (ab_cell_of(a, arm, m)->n)
			return true;
	return false;
}

/* Left: every round's value per arm, rounds joined, medians. */
static void rounds_panel(struct svg *s, const struct ab_analysis *a, size_t m,
			 double y)
{
	const struct ab_metric *met = &a->metrics[m];
	/* as people read the metric elsewhere: nanoseconds in ms */
	double f;
	const char *unit = unit_shown(met->unit, &f);
	const char **cats = malloc(a->narms * sizeof(*cats));
	size_t nv = 0;
	for (size_t arm = 0; arm < a->narms; arm++)
		nv += ab_cell_of(a, arm, m)->n;
	double *all = malloc((nv ? nv : 1) * sizeof(*all));
	if (!cats || !all)
		xalloc_die();
	nv = 0;
	int max_round = -1;
	for (size_t arm = 0; arm < a->narms; arm++) {
		const struct ab_cell *c = ab_cell_of(a, arm, m);
		cats[arm] = a->exp->arms[arm].name;
		for (size_t i = 0; i < c->n; i++) {
			all[nv++] = c->values[i] * f;
			int r = round_of(a->exp, c->run_ids[i]);
			if (r > max_round)
				max_round = r;
		}
	}
	struct svg_axis ax = { .cats = cats, .ncats = a->narms, .label = "arm" };
	struct svg_axis ay = { .label = met->name,
			       .unit = strcmp(unit, "count") ? unit : NULL };
	svg_axis_fit(&ax, NULL, 0, false);
	svg_axis_fit(&ay, all, nv, false);
	char title[200];
	snprintf(title, sizeof(title), "%s: every round (%s is better)", met->name,
		 met->higher_is_better ? "higher" : "lower");
	struct svg_plot p;
	svg_plot_begin(s, &p, 90, y, 420, ROW_H - 90, &ax, &ay, title);

	/* The pairing: one grey line per round through the arms' values. */
	double *rx = malloc(a->narms * sizeof(*rx)), *ry = malloc(a->narms * sizeof(*ry));
	if (!rx || !ry)
		xalloc_die();
	fputs("<g class=\"rounds\">\n", s->fp);
	for (int r = 0; r <= max_round; r++) {
		size_t have = 0;
		for (size_t arm = 0; arm < a->narms; arm++) {
			const struct ab_cell *c = ab_cell_of(a, arm, m);
			rx[arm] = (double)arm;
			ry[arm] = NAN;
			for (size_t i = 0; i < c->n; i++)
				if (round_of(a->exp, c->run_ids[i]) == r)
					ry[arm] = c->values[i] * f;
			have += isfinite(ry[arm]);
		}
		if (have >= 2)
			svg_line(&p, rx, ry, a->narms, "#bbbbbb", 1, false);
	}
	fputs("</g>\n", s->fp);
	free(rx);
	free(ry);

	for (size_t arm = 0; arm < a->narms; arm++) {
		const struct ab_cell *c = ab_cell_of(a, arm, m);
		svg_series_begin(&p, a->exp->arms[arm].name, arm);
		double *xs = malloc((c->n ? c->n : 1) * sizeof(*xs));
		double *ys = malloc((c->n ? c->n : 1) * sizeof(*ys));
		if (!xs || !ys)
			xalloc_die();
		for (size_t i = 0; i < c->n; i++) {
			xs[i] = (double)arm;
			ys[i] = c->values[i] * f;
		}
		svg_points(&p, xs, ys, c->n, arm, (enum svg_marker)(arm % 4));
		free(xs);
		free(ys);
		if (c->n) {
			const double med = c->sum.median * f;
			const double mx[2] = { arm - 0.22, arm + 0.22 };
			const double my[2] = { med, med };
			svg_line(&p, mx, my, 2, svg_colour(arm), 3, false);
			char lab[64];
			svg_tick_label(lab, sizeof(lab), med);
			char note[96];
			snprintf(note, sizeof(note), "median %s (n=%zu)", lab, c->n);
			svg_note(&p, arm + 0.22, med, note, arm);
		}
	}
	svg_plot_end(&p);
	free(all);
	free(cats);
}

/* Right: each arm's delta% with its CI, over the gate band. */
static void effect_panel(struct svg *s, const struct ab_analysis *a, size_t m,
			 double y)
{
	const struct ab_metric *met = &a->metrics[m];
	size_t n = a->narms - 1;
	const char **cats = malloc(n * sizeof(*cats));
	double *v = malloc((3 * n + 2) * sizeof(*v));
	if (!cats || !v)
		xalloc_die();
	size_t k = 0;
	v[k++] = -met->gate_pct;
	v[k++] = met->gate_pct;
	for (size_t arm = 1; arm < a->narms; arm++) {
		const struct ab_comparison *c = ab_comparison_of(a, arm, m);
		cats[arm - 1] = a->exp->arms[arm].name;
		if (!c->computable)
			continue;
		v[k++] = c->p.delta_pct;
		v[k++] = c->p.ci95_lo_pct;
		v[k++] = c->p.ci95_hi_pct;
	}
	struct svg_axis ax = { .label = "delta vs baseline", .unit = "%" };
	struct svg_axis ay = { .cats = cats, .ncats = n };
	svg_axis_fit(&ax, v, k, true);
	svg_axis_fit(&ay, NULL, 0, false);
	char title[200];
	snprintf(title, sizeof(title), "effect vs %s, 95%% CI", a->exp->arms[0].name);
	struct svg_plot p;
	svg_plot_begin(s, &p, 620, y, 250, ROW_H - 90, &ax, &ay, title);
	fputs("<g class=\"gate\">\n", s->fp);
	svg_rect(&p, -met->gate_pct, ay.lo, met->gate_pct, ay.hi, "#999999", 0.18);
	char gl[64];
	snprintf(gl, sizeof(gl), "gate ±%.1f%%", met->gate_pct);
	svg_vmark(&p, 0, gl);
	fputs("</g>\n", s->fp);
	for (size_t arm = 1; arm < a->narms; arm++) {
		const struct ab_comparison *c = ab_comparison_of(a, arm, m);
		double cy = (double)(arm - 1);
		svg_series_begin(&p, a->exp->arms[arm].name, arm);
		if (!c->computable) {
			svg_note(&p, ax.lo, cy, c->why ? c->why : "n/a", arm);
			continue;
		}
		if (c->p.ci_computable)
			svg_hbar(&p, cy, c->p.ci95_lo_pct, c->p.ci95_hi_pct, arm);
		const double px = c->p.delta_pct;
		svg_points(&p, &px, &cy, 1, arm, (enum svg_marker)(arm % 4));
		char note[96];
		snprintf(note, sizeof(note), "%+.1f%% %s", c->p.delta_pct,
			 stats_verdict_name(c->j.verdict));
		svg_note(&p, c->p.delta_pct, cy, note, arm);
	}
	svg_plot_end(&p);
	free(cats);
	free(v);
}

/* The metrics not drawn, as "a, b, c" in names (n bytes); 0 when none. */
static size_t not_drawn(const struct ab_analysis *a, char *names, size_t n)
{
	size_t k = 0;
	names[0] = '\0';
	for (size_t m = 0; m < a->nmetrics; m++) {
		if (drawable(a, m))
			continue;
		size_t len = strlen(names);
		snprintf(names + len, n - len, "%s%s", *names ? ", " : "", a->metrics[m].name);
		k++;
	}
	return k;
}

void ab_render_svg(const struct ab_analysis *a, FILE *fp)
{
	const struct db_experiment *e = a->exp;
	size_t rows = 0;
	for (size_t m = 0; m < a->nmetrics; m++)
		rows += drawable(a, m);
	char arms[400] = "", names[400], skipped[480] = "";
	for (size_t i = 0; i < e->narms; i++) {
		size_t len = strlen(arms);
		snprintf(arms + len, sizeof(arms) - len, "%s%s: %s", i ? "; " : "",
			 e->arms[i].name, e->arms[i].command ? e->arms[i].command : "");
	}
	if (not_drawn(a, names, sizeof(names)))
		snprintf(skipped, sizeof(skipped), "not drawn (not counted on this machine, "
			 "or no counted run): %s", names);
	/* long commands and many metrics not drawn wrap, 13 px a line */
	double maxw = WIDTH - 40;
	double more = 13.0 * (double)(svg_wrap_lines(arms, "small", maxw) - 1);
	double tail = *skipped ? 17 + 13.0 * (double)svg_wrap_lines(skipped, "small", maxw)
			       : 10;
	double height = TOP + more + ROW_H * (double)rows + tail;
	char title[160];
	snprintf(title, sizeof(title), "prof ab experiment %lld", (long long)e->id);
	struct svg s;
	svg_begin(&s, fp, WIDTH, height, title);
	svg_text(&s, 20, 26, SVG_START, "title", "prof ab experiment %lld%s: %zu arms, "
		 "%zu rounds counted, order %s", (long long)e->id, e->aa ? " (A/A)" : "",
		 e->narms, a->counted_rounds, e->order ? e->order : "?");
	svg_text_wrapped(&s, 20, 46, maxw, "small", arms);
	double y = TOP + 30 + more;
	for (size_t m = 0; m < a->nmetrics; m++) {
		if (!drawable(a, m))
			continue;
		rounds_panel(&s, a, m, y);
		if (a->narms > 1)
			effect_panel(&s, a, m, y);
		y += ROW_H;
	}
	if (*skipped)
		svg_text_wrapped(&s, 20, height - tail + 17, maxw, "small", skipped);
	svg_end(&s);
}
