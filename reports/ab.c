/*
 * ab (reports): the tables of an A/B experiment (terminal, Markdown, CSV,
 * JSON), of two single runs and of the stored experiments. The numbers
 * come from abstat.c; this file only lays them out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/ab.h"
#include "reports/abplot.h"
#include "reports/rows.h"

/* ---- rendering ---- */

/* Four significant digits, thousands separators for big values. */
static void fmt_sig(char *buf, size_t n, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, n, "n/a");
		return;
	}
	double a = fabs(v);
	int dec = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3
		: a >= 0.1 ? 4 : a >= 0.01 ? 5 : 6;
	if (a == 0)
		dec = 0;
	fmt_count(buf, n, v, dec);
}

static const char *order_name(const char *o)
{
	if (!o)
		return "?";
	if (!strcmp(o, "abba"))
		return "ABBA";
	return o;
}

static void verdict_text(const struct ab_comparison *c, char *buf, size_t n)
{
	if (!c->computable) {
		snprintf(buf, n, "n/a");
		return;
	}
	const char *v = stats_verdict_name(c->j.verdict);
	if (c->deterministic) {
		if (c->p.n < 2)
			snprintf(buf, n, "%s (simulated; one round: two show whether "
				 "it repeats)", v);
		else if (c->spread_pct == 0)
			snprintf(buf, n, "%s (simulated: the same every round)", v);
		else
			snprintf(buf, n, "%s (simulated: rounds differ by %.2g%%)", v,
				 c->spread_pct);
		return;
	}
	char why[96] = "";
	/* The CI and the gate would have called it: say what held it. */
	if (c->j.held_by_p && !c->j.p_reachable)
		snprintf(why, sizeof(why), "%zu round%s cannot reach p < %g", c->p.n,
			 c->p.n == 1 ? "" : "s", c->j.alpha);
	else if (c->j.held_by_p)
		snprintf(why, sizeof(why), "p not below %g", c->j.alpha);
	/* Say which verdict the estimate aims at; an effect between the
	 * equivalence bound and a wider noise gate can reach neither. */
	const char *aim = c->j.aim == STATS_AIM_EQUIVALENCE ? "equivalent"
			  : (c->p.delta_pct > 0) == c->j.higher_is_better ? "better"
			  : "worse";
	if (c->busy) {
		snprintf(buf, n, "%s (machine busy%s%s)", v, c->withheld ? "; the numbers "
			 "alone: " : "", c->withheld ? stats_verdict_name(c->was_verdict)
			 : "");
		return;
	}
	if (c->j.verdict == VERDICT_INCONCLUSIVE && c->j.rounds_needed > 0)
		snprintf(buf, n, "%s (%s%s~%ld rounds to show %s)", v, why,
			 *why ? "; " : "", c->j.rounds_needed, aim);
	else if (c->j.verdict == VERDICT_INCONCLUSIVE && c->j.equiv_pct < c->j.gate_pct &&
		 fabs(c->p.delta_pct) >= c->j.equiv_pct &&
		 fabs(c->p.delta_pct) <= c->j.gate_pct)
		snprintf(buf, n, "%s (inside the ±%.1f%% noise gate, past ±%g%%: "
			 "more rounds will not settle it)", v, c->j.gate_pct,
			 c->j.equiv_pct);
	else if (*why)
		snprintf(buf, n, "%s (%s)", v, why);
	else
		snprintf(buf, n, "%s", v);
}

/* The one-line description of the design, for footers. */
static void design_line(const struct ab_analysis *a, FILE *fp)
{
	const struct db_experiment *e = a->exp;
	size_t n = a->counted_rounds;
	double tm = n >= 2 ? stats_t_quantile(0.975, (double)(n - 1)) : NAN;
	fprintf(fp, "paired log-ratio t");
	if (isfinite(tm))
		fprintf(fp, " (95%% CI, t = %.2f at n = %zu)", tm, n);
	fprintf(fp, ", %s, %zu round%s", order_name(e->order), n, n == 1 ? "" : "s");
	if (e->warmup)
		fprintf(fp, " after %d warm-up%s", e->warmup, e->warmup == 1 ? "" : "s");
	fprintf(fp, ", smallest attainable sign-flip p %.3f", stats_signflip_p_min(n));
	/* A metric a round's run did not report (a score it did not print,
	 * a count that did not arrive) is judged on fewer pairs: its t and
	 * smallest p are not the ones above. */
	size_t fewer = 0;
	for (size_t arm = 1; arm < a->narms; arm++)
		for (size_t m = 0; m < a->nmetrics; m++) {
			const struct ab_comparison *c = ab_comparison_of(a, arm, m);
			if (!c || !c->computable || c->p.n >= n)
				continue;
			fprintf(fp, "%s%s", fewer++ ? ", " : " (fewer pairs: ",
				a->metrics[m].name);
			if (a->narms > 2)
				fprintf(fp, " of %s", a->exp->arms[arm].name);
			fprintf(fp, " %zu", c->p.n);
		}
	if (fewer)
		fputc(')', fp);
	if (isfinite(a->others_median))
		fprintf(fp, ", other work %.0f%% of the CPUs (median)", 100 * a->others_median);
	if (e->aa)
		return;	/* it measures gates; none judged it */
	/* One gate for all metrics, or say they differ. */
	bool same = true;
	for (size_t m = 1; m < a->nmetrics; m++)
		same = same && a->metrics[m].gate_pct == a->metrics[0].gate_pct &&
		       !strcmp(a->metrics[m].gate_source, a->metrics[0].gate_source);
	if (a->nmetrics && same)
		fprintf(fp, ", gate ±%.1f%% (%s)", a->metrics[0].gate_pct,
			strcmp(a->metrics[0].gate_source, "default") ? a->metrics[0].gate_source
			: "default; 'prof ab --aa' measures one");
	else if (a->nmetrics)
		fprintf(fp, ", gates per metric (from %s)", a->metrics[0].gate_source);
}

/* The errors that fail the experiment, first thing under its header. */
static void errors_text(const struct ab_analysis *a, FILE *fp, bool md)
{
	for (size_t i = 0; i < a->nerrors; i++)
		fprintf(fp, md ? "> **error:** %s\n" : " error: %s\n", a->errors[i]);
	if (a->nerrors)
		fputc('\n', fp);
}

static void write_header(const struct ab_analysis *a, FILE *fp, bool md)
{
	const struct db_experiment *e = a->exp;
	if (md)
		fprintf(fp, "**prof ab experiment %lld**%s: %zu arms, %d rounds planned, "
			"%zu counted, order %s\n\n", (long long)e->id, e->aa ? " (A/A)" : "",
			e->narms, e->rounds, a->counted_rounds, order_name(e->order));
	else
		fprintf(fp, " prof ab experiment %lld%s (%s): %zu arms, %d rounds planned, "
			"%zu counted, order %s; %s (%s)\n", (long long)e->id,
			e->aa ? " (A/A)" : "", e->status ? e->status : "?", e->narms,
			e->rounds, a->counted_rounds, order_name(e->order),
			e->hostname ? e->hostname : "?", e->cpu_model ? e->cpu_model : "?");
	for (size_t i = 0; i < e->narms; i++) {
		if (md)
			fprintf(fp, "- `%s`%s: `%s`\n", e->arms[i].name,
				i == 0 ? " (baseline)" : "", e->arms[i].command);
		else
			fprintf(fp, "   %s%s: %s\n", e->arms[i].name,
				i == 0 ? " (baseline)" : "", e->arms[i].command);
		for (size_t k = 0; k < e->arms[i].nsettings; k++) {
			const struct db_kv *kv = &e->arms[i].settings[k];
			if (md)
				fprintf(fp, "  - %s = `%s`\n", kv->key, kv->value ? kv->value : "");
			else
				fprintf(fp, "     %s = %s\n", kv->key, kv->value ? kv->value : "");
		}
	}
	if (e->note)
		fprintf(fp, md ? "\n*%s*\n" : " note: %s\n", e->note);
	const char *win = db_kv_get(e->settings, e->nsettings, "window");
	unsigned f0, f1;
	char what[80];
	if (win && sscanf(win, "frame:%u:%u", &f0, &f1) == 2)
		snprintf(what, sizeof(what), "frames %u to %u of each run", f0, f1);
	else if (win)
		snprintf(what, sizeof(what), "%.40s s after each launch", win);
	if (win)
		fprintf(fp, md ? "\n*Counted inside --window: %s. Counters, CPU time, "
			"cores and frames are the window's; wall_s and the system "
			"deltas each run's whole.*\n"
			: " window: %s: counters, CPU time, cores and frames are the "
			"window's; wall_s and system.* each run's whole\n", what);
	fputc('\n', fp);
}

/* A metric's value for people: counts whole, nanoseconds as
 * milliseconds to two decimals (as the run tables show task-clock), the
 * rest to four significant digits. */
static void fmt_value(char *buf, size_t n, double v, const char *unit)
{
	double f;
	if (isfinite(v) && unit && !strcmp(unit, "count"))
		fmt_count(buf, n, v, 0);
	else if (isfinite(v) && unit && strcmp(unit_shown(unit, &f), unit))
		fmt_count(buf, n, v * f, 2);
	else
		fmt_sig(buf, n, v);
}

/* A metric's name for a table that shows no unit elsewhere: with the
 * unit its values are shown in where that is not the stored one
 * ("task-clock (ms)"). */
static void metric_cell(struct rows *r, size_t row, size_t col, const struct ab_metric *met)
{
	const char *shown = unit_shown(met->unit, NULL);
	rows_str(r, row, col, met->name);
	if (shown != met->unit)
		rows_text(r, row, col, "%s (%s)", met->name, shown);
}

enum {
	A_METRIC, A_ARM, A_BASELINE, A_N, A_MEDIAN, A_MEAN, A_SD, A_SE, A_MIN,
	A_MAX, A_DELTA_MEAN, A_DELTA_MEDIAN, A_CI_LO, A_CI_HI, A_T_MULT, A_P,
	A_P_MIN, A_VERDICT, A_GATE, A_ROUNDS, A_MEAN_SD, A_DELTA_CI, A_P_TEXT,
	A_VERDICT_TEXT, A_GATE_TEXT, A_DMEDIAN_TEXT, A_SD_TEXT, A_GROUP, A_NCOLS
};

#define AB_STAT(k) { .key = k, .kind = COL_REAL, .flags = COL_MACHINES }

/* One arm of one metric: its summary and, against the baseline, the
 * paired statistics. CSV has every number; people read them joined. */
static const struct col arm_cols[A_NCOLS] = {
	[A_METRIC] = { .key = "metric" },
	[A_ARM] = { .key = "arm" },
	[A_BASELINE] = { .key = "baseline", .flags = COL_MACHINES },
	[A_N] = { .key = "n", .kind = COL_INT },
	[A_MEDIAN] = { .key = "median", .kind = COL_REAL },
	[A_MEAN] = AB_STAT("mean"),
	[A_SD] = AB_STAT("sd"),
	[A_SE] = AB_STAT("se"),
	[A_MIN] = AB_STAT("min"),
	[A_MAX] = AB_STAT("max"),
	[A_DELTA_MEAN] = AB_STAT("delta_pct_mean"),
	[A_DELTA_MEDIAN] = AB_STAT("delta_pct_median"),
	[A_CI_LO] = AB_STAT("ci95_lo_pct"),
	[A_CI_HI] = AB_STAT("ci95_hi_pct"),
	[A_T_MULT] = AB_STAT("t_mult95"),
	[A_P] = AB_STAT("p_value"),
	[A_P_MIN] = AB_STAT("p_min"),
	[A_VERDICT] = { .key = "verdict", .flags = COL_MACHINES },
	[A_GATE] = AB_STAT("gate_pct"),
	[A_ROUNDS] = { .key = "rounds_needed", .kind = COL_INT, .flags = COL_MACHINES },
	[A_MEAN_SD] = { .key = "mean_sd", .title = "mean ± sd", .align = COL_RIGHT,
			.flags = COL_PEOPLE },
	[A_DELTA_CI] = { .key = "delta_ci", .title = "Δ% mean [95% CI]", .align = COL_RIGHT,
			 .flags = COL_PEOPLE },
	[A_P_TEXT] = { .key = "p", .align = COL_RIGHT, .flags = COL_PEOPLE },
	[A_VERDICT_TEXT] = { .key = "verdict", .flags = COL_PEOPLE },
	[A_GATE_TEXT] = { .key = "gate", .align = COL_RIGHT, .flags = COL_PEOPLE },
	[A_DMEDIAN_TEXT] = { .key = "delta_median", .title = "Δ% median", .align = COL_RIGHT,
			     .flags = COL_PEOPLE },
	/* the terminal's: the sd in percent of the mean, for 80 columns */
	[A_SD_TEXT] = { .key = "sd_pct", .title = "sd %", .align = COL_RIGHT,
			.flags = COL_PEOPLE },
	/* --by name only (ab_render_by_name turns it on) */
	[A_GROUP] = { .key = "thread", .flags = COL_NO_PEOPLE | COL_NO_CSV | COL_NO_JSON },
};

/* One comparison's numbers, paired (stats_paired) or not (stats_unpaired):
 * the two structs name these fields alike, so ARM_DELTA_OF reads either. */
struct arm_delta {
	double delta_pct, delta_pct_median, ci95_lo_pct, ci95_hi_pct;
	double t_mult95, p_value, p_min;
	bool ci_computable, signs_agree;
};

#define ARM_DELTA_OF(s) { \
	.delta_pct = (s).delta_pct, .delta_pct_median = (s).delta_pct_median, \
	.ci95_lo_pct = (s).ci95_lo_pct, .ci95_hi_pct = (s).ci95_hi_pct, \
	.t_mult95 = (s).t_mult95, .p_value = (s).p_value, .p_min = (s).p_min, \
	.ci_computable = (s).ci_computable, .signs_agree = (s).signs_agree }

/* The columns of one arm (or set) of one metric that its own runs fill:
 * names, n and the summary; the comparison is arm_delta_cols'. */
static void arm_cell_cols(struct rows *r, size_t row, const struct ab_metric *met,
			  const struct ab_cell *c, const char *arm, const char *base)
{
	char b1[64], b2[64];
	rows_str(r, row, A_METRIC, met->name);
	rows_str(r, row, A_ARM, arm);
	rows_str(r, row, A_BASELINE, base);
	rows_uint(r, row, A_N, c->n);
	const double sv[6] = { c->sum.median, c->sum.mean, c->sum.sd, c->sum.se,
			       c->sum.min, c->sum.max };
	for (size_t k = 0; k < 6; k++)
		rows_num(r, row, A_MEDIAN + k, c->n ? sv[k] : NAN);
	if (c->n) {
		fmt_value(b1, sizeof(b1), c->sum.median, met->unit);
		rows_text(r, row, A_MEDIAN, "%s", b1);
		fmt_value(b1, sizeof(b1), c->sum.mean, met->unit);
		if (c->n >= 2) {
			fmt_value(b2, sizeof(b2), c->sum.sd, met->unit);
			rows_text(r, row, A_MEAN_SD, "%s ± %s", b1, b2);
			double sdp = c->sum.mean != 0 ? 100 * c->sum.sd / fabs(c->sum.mean)
					       : NAN;
			if (isfinite(sdp))
				rows_text(r, row, A_SD_TEXT, sdp >= 100 ? "%.0f" : "%.2g", sdp);
		} else {
			rows_text(r, row, A_MEAN_SD, "%s", b1);
		}
	} else {
		rows_text(r, row, A_MEDIAN, "-");
		rows_text(r, row, A_MEAN_SD, "-");
	}
	rows_num(r, row, A_GATE, met->gate_pct);
}

/* The baseline's row (cmp false) or a comparison that could not be made. */
static void arm_no_delta_cols(struct rows *r, size_t row, bool cmp, const char *why)
{
	rows_str(r, row, A_VERDICT, cmp ? "n/a" : "baseline");
	rows_text(r, row, A_DELTA_CI, "%s", cmp ? (why ? why : "n/a") : "baseline");
}

/* The "delta% [lo, hi]" cell, the one place it is written: with_ci
 * follows it where the CI was computable, without (and no bracket)
 * where not. */
static void delta_cell(struct rows *r, size_t row, size_t col, double delta, bool ci,
		       double lo, double hi, const char *with_ci, const char *without)
{
	char b[32], l[32], h[32];
	fmt_pct(b, sizeof(b), delta);
	if (!ci) {
		rows_text(r, row, col, "%s%%%s", b, without);
		return;
	}
	fmt_pct(l, sizeof(l), lo);
	fmt_pct(h, sizeof(h), hi);
	rows_text(r, row, col, "%s%% [%s, %s]%s", b, l, h, with_ci);
}

/* The comparison's columns: no_ci stands after the delta when n is too
 * small for a CI, verdict is the verdict said in words. */
static void arm_delta_cols(struct rows *r, size_t row, const struct ab_metric *met,
			   const struct arm_delta *d, const struct stats_judgement *j,
			   const char *no_ci, const char *verdict)
{
	char b2[64];
	const double cv[7] = { d->delta_pct, d->delta_pct_median, d->ci95_lo_pct,
			       d->ci95_hi_pct, d->t_mult95, d->p_value, d->p_min };
	for (size_t k = 0; k < 7; k++)
		rows_num(r, row, A_DELTA_MEAN + k, cv[k]);
	if (j) {
		rows_str(r, row, A_VERDICT, stats_verdict_name(j->verdict));
		rows_int(r, row, A_ROUNDS, j->rounds_needed);
	} else {
		/* an A/A experiment: noise measured, nothing judged */
		rows_str(r, row, A_VERDICT, "none (A/A)");
		rows_null(r, row, A_GATE);
	}
	char none[64];
	snprintf(none, sizeof(none), " (%s)", no_ci);
	delta_cell(r, row, A_DELTA_CI, d->delta_pct, d->ci_computable, d->ci95_lo_pct,
		   d->ci95_hi_pct, "", none);
	fmt_pct(b2, sizeof(b2), d->delta_pct_median);
	/* '!': mean and median disagree in sign (a warning says more) */
	rows_text(r, row, A_DMEDIAN_TEXT, "%s%%%s", b2, d->signs_agree ? "" : " !");
	fmt_p(b2, sizeof(b2), d->p_value);
	rows_text(r, row, A_P_TEXT, "%s", b2);
	rows_text(r, row, A_GATE_TEXT, "±%.1f%%%s", met->gate_pct,
		  met->gate_pct > AB_GATE_WIDE_PCT ? " wide" : "");
	rows_text(r, row, A_VERDICT_TEXT, "%s", verdict);
}

static void arm_row(struct rows *r, size_t row, const struct ab_analysis *a,
		    size_t arm, size_t m)
{
	const struct ab_comparison *cp = ab_comparison_of(a, arm, m);
	char vt[200];
	arm_cell_cols(r, row, &a->metrics[m], ab_cell_of(a, arm, m),
		      a->exp->arms[arm].name, a->exp->arms[0].name);
	if (!cp || !cp->computable) {
		arm_no_delta_cols(r, row, cp != NULL, cp ? cp->why : NULL);
		return;
	}
	const struct arm_delta d = ARM_DELTA_OF(cp->p);
	if (a->exp->aa)
		snprintf(vt, sizeof(vt), "none (A/A)");
	else
		verdict_text(cp, vt, sizeof(vt));
	arm_delta_cols(r, row, &a->metrics[m], &d, a->exp->aa ? NULL : &cp->j,
		       "no CI at n = 1", vt);
	if (cp->p.by_difference) {
		/* A count that is sometimes 0: differences, not log-ratios,
		 * in percent of the baseline's mean (or of both arms'). */
		delta_cell(r, row, A_DELTA_CI, d.delta_pct, d.ci_computable, d.ci95_lo_pct,
			   d.ci95_hi_pct, cp->p.scale_pooled ? " diff of both" : " diff",
			   " diff");
	}
}

/* The people's columns of the terminal (one table per metric) and of
 * Markdown (one table, the metric named on its first arm's row). */
static const size_t term_order[] = {
	A_ARM, A_N, A_MEDIAN, A_SD_TEXT, A_DELTA_CI, A_DMEDIAN_TEXT, A_P_TEXT,
	A_GATE_TEXT,
};
/* Sets taken apart (compare --set): the verdict in its column. */
static const size_t sets_term_order[] = {
	A_ARM, A_N, A_MEDIAN, A_MEAN_SD, A_DELTA_CI, A_DMEDIAN_TEXT, A_P_TEXT,
	A_GATE_TEXT, A_VERDICT_TEXT,
};
static const size_t md_order[] = {
	A_METRIC, A_ARM, A_N, A_MEDIAN, A_MEAN_SD, A_DELTA_CI, A_DMEDIAN_TEXT,
	A_P_TEXT, A_GATE_TEXT, A_VERDICT_TEXT,
};
#define NELEM(v) (sizeof(v) / sizeof((v)[0]))

/* Every (metric, arm) in one set: Markdown and CSV. */
static struct rows *arm_rows(const struct ab_analysis *a)
{
	struct rows *r = rows_new("arms", arm_cols, A_NCOLS, 0);
	rows_people_order(r, md_order, NELEM(md_order));
	for (size_t m = 0; m < a->nmetrics; m++) {
		const struct ab_metric *met = &a->metrics[m];
		if (!met->supported) {
			size_t row = rows_add_people(r);
			rows_text(r, row, A_METRIC, "%s", met->name);
			rows_text(r, row, A_ARM, "not supported on this machine");
		}
		for (size_t arm = 0; arm < a->narms; arm++) {
			size_t row = met->supported ? rows_add(r) : rows_add_machines(r);
			arm_row(r, row, a, arm, m);
			rows_text(r, row, A_METRIC, "%s%s%s", arm ? "" : met->name,
				  arm ? "" : (met->higher_is_better ? " ↑" : " ↓"),
				  arm || !ab_metric_machine(met) ? "" : " (whole machine)");
		}
	}
	return r;
}

/* ---- an A/A experiment: noise, not verdicts ---- */

enum { N_METRIC, N_N, N_MEDIAN, N_DELTA_CI, N_SD, N_GATE, N_NCOLS };

/* Per metric: what the two identical arms differed by, the spread of
 * those differences round to round, and the gate that spread sets. */
static const struct col noise_cols[N_NCOLS] = {
	[N_METRIC] = { .key = "metric" },
	[N_N] = { .key = "n", .kind = COL_INT },
	[N_MEDIAN] = { .key = "median", .align = COL_RIGHT },
	[N_DELTA_CI] = { .key = "delta_ci", .title = "Δ% [95% CI]", .align = COL_RIGHT },
	[N_SD] = { .key = "sd", .title = "round-to-round sd", .align = COL_RIGHT },
	[N_GATE] = { .key = "gate", .title = "gate it sets", .align = COL_RIGHT },
};

static struct rows *noise_rows(const struct ab_analysis *a)
{
	struct rows *r = rows_new("noise", noise_cols, N_NCOLS, 0);
	for (size_t m = 0; m < a->nmetrics; m++) {
		const struct ab_metric *met = &a->metrics[m];
		size_t row = rows_add(r);
		metric_cell(r, row, N_METRIC, met);
		if (!met->supported) {
			rows_text(r, row, N_DELTA_CI, "not supported on this machine");
			continue;
		}
		const struct ab_cell *c = ab_cell_of(a, 0, m);
		const struct ab_comparison *cp = a->narms > 1 ? ab_comparison_of(a, 1, m)
				: NULL;
		char b[64];
		rows_uint(r, row, N_N, cp && cp->computable ? cp->p.n : 0);
		fmt_value(b, sizeof(b), c->n ? c->sum.median : NAN, met->unit);
		rows_text(r, row, N_MEDIAN, "%s", b);
		if (cp && cp->computable) {
			delta_cell(r, row, N_DELTA_CI, cp->p.delta_pct, cp->p.ci_computable,
				   cp->p.ci95_lo_pct, cp->p.ci95_hi_pct, "", "");
		} else {
			rows_text(r, row, N_DELTA_CI, "%s", cp && cp->why ? cp->why : "n/a");
		}
		if (isfinite(met->aa_gate_pct)) {
			rows_text(r, row, N_SD, "%.2f%%", met->aa_sd_pct);
			rows_text(r, row, N_GATE, "±%.1f%%", met->aa_gate_pct);
		} else {
			rows_text(r, row, N_SD, "n/a");
			rows_text(r, row, N_GATE, "none");
		}
	}
	return r;
}

/* Who takes these gates: later experiments of the same command here. */
static void aa_footer(const struct ab_analysis *a, FILE *fp, bool md)
{
	const struct db_experiment *e = a->exp;
	fprintf(fp, "%sA/A: '%s' ran in both arms, so every difference above is noise; "
		"no verdicts. Later 'prof ab' experiments whose baseline is this command "
		"on %s take each metric's gate from here, unless --gate is given%s\n",
		md ? "*" : " ", e->narms ? e->arms[0].command : "?",
		e->hostname ? e->hostname : "this host", md ? "*" : "");
}

static void write_aa(const struct ab_analysis *a, FILE *fp, bool md)
{
	write_header(a, fp, md);
	errors_text(a, fp, md);
	if (!md)
		fprintf(fp, " noise per metric\n");
	struct rows *r = noise_rows(a);
	rows_write(r, md ? OUT_MARKDOWN : OUT_TABLE, fp, md ? 0 : 3);
	rows_free(r);
	fputc('\n', fp);
	aa_footer(a, fp, md);
	if (md)
		fputs("\n*", fp);
	else
		fprintf(fp, " design: ");
	design_line(a, fp);
	fputs(md ? "*\n" : "\n", fp);
	for (size_t i = 0; i < a->nwarnings; i++)
		fprintf(fp, md ? "\n> warning: %s" : " warning: %s\n", a->warnings[i]);
	if (md && a->nwarnings)
		fputc('\n', fp);
}

/*
 * The arms whose run-to-run spread differs from the baseline's, one line
 * each ("pinning cuts run-to-run spread sharply", the field notes say);
 * JSON's "spread" has every comparison's, can't tell included.
 */
static void spread_text(const struct ab_analysis *a, FILE *fp, bool md)
{
	size_t told = 0, tested = 0;
	for (size_t arm = 1; arm < a->narms; arm++)
		for (size_t m = 0; m < a->nmetrics; m++) {
			const struct ab_comparison *cp = ab_comparison_of(a, arm, m);
			if (!cp->computable || !cp->spread.computable)
				continue;
			tested++;
			if (cp->spread.verdict == SPREAD_CANT_TELL)
				continue;
			if (!told++)
				fprintf(fp, md ? "\nrun-to-run spread, sd over the baseline's "
					"(paired rounds, 95%% CI):\n\n"
					: " run-to-run spread, sd over the baseline's (paired "
					"rounds, 95%% CI):\n");
			const struct stats_spread *sp = &cp->spread;
			fprintf(fp, "%s%s, %s: x%.3g [%.3g, %.3g], p %.3g: %s\n",
				md ? "- " : "   ", a->metrics[m].name, a->exp->arms[arm].name,
				sp->ratio, sp->ci95_lo, sp->ci95_hi, sp->p_value,
				stats_spread_name(sp->verdict));
		}
	if (!told && tested)
		fprintf(fp, "%srun-to-run spread: no arm is steadier or noisier than "
			"the baseline (%zu compared)\n", md ? "\n" : " ", tested);
	if ((told || tested) && !md)
		fputc('\n', fp);
}

/* ---- one line per verdict ---- */

/* A ratio for people: 1.23, or 1.012 near 1. */
static void fmt_ratio(char *buf, size_t n, double r)
{
	snprintf(buf, n, fabs(r - 1) < 0.05 ? "%.3f" : "%.2f", r);
}

/* The time a run took: said as faster or slower (CPU time, frame times
 * and the rest as multiples of the baseline's). */
static bool is_time(const struct ab_metric *met)
{
	return !strcmp(met->name, "wall_s");
}

/* "6 rounds, p 0.031", or how a simulated metric repeated. */
static void how_judged(const struct ab_comparison *c, char *buf, size_t n)
{
	if (c->deterministic) {
		snprintf(buf, n, "simulated, %s", c->p.n < 2 ? "one round"
			 : c->spread_pct == 0 ? "the same every round" : "rounds differ");
		return;
	}
	if (c->p.p_value < 0.001)
		snprintf(buf, n, "%zu rounds, p < 0.001", c->p.n);
	else
		snprintf(buf, n, "%zu rounds, p %.2g", c->p.n, c->p.p_value);
}

/* The 95% CI of the ratio b/a (inverted: of a/b), " [lo, hi]"; "" where
 * there is none. */
static void ratio_ci(const struct ab_comparison *c, bool inverted, char *buf, size_t n)
{
	*buf = '\0';
	if (c->deterministic || !c->p.ci_computable)
		return;
	double lo = 1 + c->p.ci95_lo_pct / 100, hi = 1 + c->p.ci95_hi_pct / 100;
	if (inverted) {
		double t = lo;
		lo = 1 / hi;
		hi = 1 / t;
	}
	char l[32], h[32];
	fmt_ratio(l, sizeof(l), lo);
	fmt_ratio(h, sizeof(h), hi);
	snprintf(buf, n, " [%s, %s]", l, h);
}

/* One comparison's line (without lead or newline). */
static void headline(const struct ab_analysis *a, size_t arm, size_t m, char *buf,
		     size_t n)
{
	const struct ab_metric *met = &a->metrics[m];
	const struct ab_comparison *c = &a->cmp[(arm - 1) * a->nmetrics + m];
	const char *b = a->exp->arms[arm].name, *base = a->exp->arms[0].name;
	double r = 1 + c->p.delta_pct / 100;
	char how[64], ci[80], x[32];
	how_judged(c, how, sizeof(how));
	bool faster = is_time(met) && c->j.verdict == VERDICT_BETTER;
	ratio_ci(c, faster, ci, sizeof(ci));
	fmt_ratio(x, sizeof(x), faster ? 1 / r : r);
	if (c->j.verdict == VERDICT_EQUIVALENT && is_time(met))
		snprintf(buf, n, "%s is as fast as %s, within ±%.1f%% (%s, %s)", b, base,
			 met->equiv_pct, met->name, how);
	else if (c->j.verdict == VERDICT_EQUIVALENT)
		snprintf(buf, n, "%s: %s as %s's, within ±%.1f%% (equivalent, %s)", b,
			 met->name, base, met->equiv_pct, how);
	else if (is_time(met))
		snprintf(buf, n, "%s is %sx %s than %s%s (%s, %s)", b, x,
			 faster ? "faster" : "slower", base, ci, met->name, how);
	else
		snprintf(buf, n, "%s: %s %sx %s's%s (%s, %s)", b, met->name, x, base, ci,
			 stats_verdict_name(c->j.verdict), how);
}

/*
 * The claims a pull request quotes, one line per metric with a verdict,
 * before the tables: "sim is 1.25x faster than base [1.23, 1.28]
 * (wall_s, 6 rounds, p 0.031)" for wall time; else the arm's value as a
 * multiple of the baseline's, "sim: LLC-load-misses 0.62x base's [0.61,
 * 0.63] (better, 6 rounds, p 0.031)"; equivalent, within its bound. The
 * bracket is the 95% CI of the ratio. Inconclusive metrics are counted;
 * the tables say why.
 */
static void headlines(const struct ab_analysis *a, FILE *fp, bool md)
{
	size_t open = 0, said = 0;
	for (size_t arm = 1; arm < a->narms; arm++)
		for (size_t m = 0; m < a->nmetrics; m++) {
			const struct ab_comparison *c = &a->cmp[(arm - 1) * a->nmetrics + m];
			if (!a->metrics[m].supported || !c->computable)
				continue;
			if (c->j.verdict == VERDICT_INCONCLUSIVE) {
				open++;
				continue;
			}
			char line[400];
			headline(a, arm, m, line, sizeof(line));
			fprintf(fp, "%s%s\n", md ? "- " : " ", line);
			said++;
		}
	if (open)
		fprintf(fp, "%s%s%zu comparison%s inconclusive%s (the table%s say%s why)\n",
			md ? "- " : " ", said ? "" : "no verdict: ", open, open == 1 ? "" : "s",
			a->busy ? ", the machine was busy" : "", md ? "" : "s", md ? "s" : "");
	if (said || open)
		fputc('\n', fp);
}

static void write_terminal(const struct ab_analysis *a, FILE *fp)
{
	if (a->exp->aa) {
		write_aa(a, fp, false);
		return;
	}
	write_header(a, fp, false);
	errors_text(a, fp, false);
	headlines(a, fp, false);
	bool machine_said = false;
	for (size_t m = 0; m < a->nmetrics; m++) {
		const struct ab_metric *met = &a->metrics[m];
		if (ab_metric_machine(met) && !machine_said) {
			fprintf(fp, " whole machine (every process, other tenants too), "
				"judged apart:\n\n");
			machine_said = true;
		}
		if (!met->supported) {
			fprintf(fp, " %s: not supported on this machine (not counted, not zero)\n\n",
				met->name);
			continue;
		}
		fprintf(fp, " %s (%s%s%s is better)\n", met->name,
			unit_shown(met->unit, NULL), *met->unit ? "; " : "",
			met->higher_is_better ? "higher" : "lower");
		struct rows *r = rows_new("arms", arm_cols, A_NCOLS, 0);
		rows_people_order(r, term_order, NELEM(term_order));
		for (size_t arm = 0; arm < a->narms; arm++) {
			size_t row = rows_add(r);
			arm_row(r, row, a, arm, m);
			const struct ab_comparison *cp = arm ? ab_comparison_of(a, arm, m) : NULL;
			if (cp && cp->computable && cp->p.by_difference) {
				/* said under the table, not in the column */
				delta_cell(r, row, A_DELTA_CI, cp->p.delta_pct,
					   cp->p.ci_computable, cp->p.ci95_lo_pct,
					   cp->p.ci95_hi_pct, "", "");
			}
		}
		rows_write(r, OUT_TABLE, fp, 3);
		/* each arm's verdict, said in full under the table */
		for (size_t arm = 1; arm < a->narms; arm++) {
			const struct ab_comparison *cp = ab_comparison_of(a, arm, m);
			char vt[200];
			if (cp && cp->computable)
				verdict_text(cp, vt, sizeof(vt));
			fprintf(fp, "   %s: %s%s\n", a->exp->arms[arm].name,
				!cp ? "n/a" : cp->computable ? vt : cp->why ? cp->why : "n/a",
				!cp || !cp->computable || !cp->p.by_difference ? ""
				: cp->p.scale_pooled ? "; its Δ% are differences in percent of "
				"both arms' mean (a count that is sometimes 0)"
				: "; its Δ% are differences in percent of the baseline's mean "
				"(a count that is sometimes 0)");
		}
		rows_free(r);
		fputc('\n', fp);
	}
	spread_text(a, fp, false);
	fprintf(fp, " design: ");
	design_line(a, fp);
	fputc('\n', fp);
	if (a->failed_runs || a->interrupted_runs)
		fprintf(fp, " runs left out: %zu failed, %zu interrupted (warm-ups: %zu, "
			"never counted)\n", a->failed_runs, a->interrupted_runs,
			a->warmup_runs);
	for (size_t i = 0; i < a->nwarnings; i++)
		fprintf(fp, " warning: %s\n", a->warnings[i]);
}

static void write_markdown(const struct ab_analysis *a, FILE *fp)
{
	if (a->exp->aa) {
		write_aa(a, fp, true);
		return;
	}
	write_header(a, fp, true);
	errors_text(a, fp, true);
	headlines(a, fp, true);
	struct rows *r = arm_rows(a);
	rows_write(r, OUT_MARKDOWN, fp, 0);
	rows_free(r);
	spread_text(a, fp, true);
	fputs("\n*", fp);
	design_line(a, fp);
	fputs("; ↓ lower is better, ↑ higher is better*\n", fp);
	for (size_t i = 0; i < a->nwarnings; i++)
		fprintf(fp, "\n> warning: %s", a->warnings[i]);
	if (a->nwarnings)
		fputc('\n', fp);
}

/* ---- the experiment's JSON ---- */

#define SCHEDULE_COLS(K) \
	K(SC_RUN_ID, "run_id", INT) K(SC_ARM, "arm", TEXT) K(SC_ROUND, "round", INT) \
	K(SC_POSITION, "position", INT) \
	K(SC_WARMUP, "warmup", BOOL) K(SC_EXIT, "exit_status", INT) \
	K(SC_COUNTED, "counted", BOOL)
ROWS_KEYS(schedule_cols, SC_N, SCHEDULE_COLS);

#define SUMMARY_COLS(K) \
	K(ST_N, "n", INT) K(ST_MEAN, "mean", REAL) K(ST_MEDIAN, "median", REAL) \
	K(ST_SD, "sd", REAL) K(ST_SE, "se", REAL) K(ST_MIN, "min", REAL) \
	K(ST_MAX, "max", REAL) \
	K(ST_VALUES, "values", NEST)
ROWS_KEYS(summary_cols, ST_NCOLS, SUMMARY_COLS);

/* A flat list of numbers (run ids, values). */
static struct rows *number_list(const double *v, const int64_t *ids, size_t n)
{
	static const struct col c = { .key = "value", .kind = COL_REAL };
	struct rows *r = rows_new(NULL, &c, 1, ROWS_VALUES | ROWS_FLAT);
	for (size_t i = 0; i < n; i++) {
		size_t row = rows_add(r);
		if (ids)
			rows_int(r, row, 0, ids[i]);
		else
			rows_num(r, row, 0, v[i]);
	}
	return r;
}

/* Each metric of an arm (or set): its summary, or null where not
 * supported; cells[m] is the arm's cell of metrics[m]. */
static struct rows *arm_metrics(const struct ab_metric *metrics, size_t nmetrics,
				const struct ab_cell *cells)
{
	struct col *cols = calloc(nmetrics + 1, sizeof(*cols));
	if (!cols)
		xalloc_die();
	for (size_t m = 0; m < nmetrics; m++)
		cols[m] = (struct col){ .key = metrics[m].name, .kind = COL_NEST };
	struct rows *r = rows_new(NULL, cols, nmetrics, ROWS_OBJECT);
	free(cols);
	size_t row = rows_add(r);
	for (size_t m = 0; m < nmetrics; m++) {
		const struct ab_cell *c = &cells[m];
		if (!metrics[m].supported) {
			rows_null(r, row, m);
			continue;
		}
		struct rows *s = rows_new(NULL, summary_cols, ST_NCOLS, ROWS_OBJECT);
		size_t k = rows_add(s);
		rows_uint(s, k, ST_N, c->n);
		const double sv[6] = { c->sum.mean, c->sum.median, c->sum.sd,
				       c->sum.se, c->sum.min, c->sum.max };
		for (size_t i = 0; i < 6; i++)
			rows_num(s, k, ST_MEAN + i, c->n ? sv[i] : NAN);
		rows_nest(s, k, ST_VALUES, number_list(c->values, NULL, c->n));
		rows_nest(r, row, m, s);
	}
	return r;
}

#define ARM_DOC_COLS(K) \
	K(AR_NAME, "name", TEXT) K(AR_COMMAND, "command", TEXT) \
	K(AR_RUNS, "runs", NEST) K(AR_METRICS, "metrics", NEST)
ROWS_KEYS(arm_doc_cols, AR_N, ARM_DOC_COLS);

/* An arm against the baseline on one metric: the keys of shared/DESIGN.md
 * and more; why where it could not be computed, the position effect and
 * the baseline's drift where it could. */
#define COMPARISON_COLS(K) \
	K(CO_ARM, "arm", TEXT) K(CO_BASELINE, "baseline", TEXT) \
	K(CO_METRIC, "metric", TEXT) K(CO_SCOPE, "scope", TEXT) \
	K(CO_HIGHER, "higher_is_better", BOOL) \
	K(CO_N, "n", INT) K(CO_DELTA_MEAN, "delta_pct_mean", PCT) \
	K(CO_DELTA_MEDIAN, "delta_pct_median", PCT) K(CO_CI, "ci95_pct", NEST) \
	K(CO_T_MULT, "t_mult95", REAL) \
	K(CO_P, "p_value", REAL) K(CO_P_MIN, "p_min", REAL) \
	K(CO_SIGNS, "signs_agree", BOOL) \
	K(CO_FAV_ARM, "rounds_favouring_arm", INT) \
	K(CO_FAV_BASE, "rounds_favouring_baseline", INT) \
	K(CO_GATE, "gate_pct", PCT) K(CO_GATE_SOURCE, "gate_source", TEXT) \
	K(CO_VERDICT, "verdict", TEXT) K(CO_ROUNDS, "rounds_needed", INT) \
	K(CO_AIM, "rounds_needed_for", TEXT) K(CO_EQUIV, "equivalence_pct", PCT) \
	K(CO_WHY, "why", TEXT) K(CO_BUSY, "machine_busy", BOOL) \
	K(CO_METHOD, "method", TEXT) \
	K(CO_POSITION, "position_effect_pct", PCT) \
	K(CO_DRIFT, "baseline_drift_pct", PCT) \
	K(CO_LOO, "leave_one_round_out", NEST) K(CO_SPREAD, "spread", NEST) \
	K(CO_DETERMINISTIC, "deterministic", BOOL) \
	K(CO_DET_SPREAD, "deterministic_spread_pct", PCT)
ROWS_KEYS(comparison_cols, CO_NCOLS, COMPARISON_COLS);

/* The arm's run-to-run spread over the baseline's (stats_spread_ratio). */
#define SPREAD_COLS(K) \
	K(SP_RATIO, "sd_ratio", REAL) K(SP_CI, "ci95", NEST) \
	K(SP_P, "p_value", REAL) K(SP_VERDICT, "verdict", TEXT) \
	K(SP_ON, "on", TEXT)
ROWS_KEYS(spread_cols, SP_N, SPREAD_COLS);

static struct rows *spread_record(const struct stats_spread *sp)
{
	struct rows *r = rows_new(NULL, spread_cols, SP_N, ROWS_OBJECT | ROWS_FLAT);
	size_t row = rows_add(r);
	rows_num(r, row, SP_RATIO, sp->ratio);
	const double ci[2] = { sp->ci95_lo, sp->ci95_hi };
	rows_nest(r, row, SP_CI, number_list(ci, NULL, 2));
	rows_num(r, row, SP_P, sp->p_value);
	rows_str(r, row, SP_VERDICT, stats_spread_name(sp->verdict));
	rows_str(r, row, SP_ON, sp->on_logs ? "log values" : "values");
	return r;
}

/* The verdict with each round left out in turn (ab_comparison.loo_*). */
#define LOO_COLS(K) \
	K(LO_CHANGES, "rounds_that_change_it", INT) \
	K(LO_ROUND, "first_such_round", INT) K(LO_VERDICT, "verdict_without_it", TEXT)
ROWS_KEYS(loo_cols, LO_N, LOO_COLS);

static struct rows *loo_record(const struct ab_comparison *cp)
{
	struct rows *r = rows_new(NULL, loo_cols, LO_N, ROWS_OBJECT | ROWS_FLAT);
	size_t row = rows_add(r);
	rows_uint(r, row, LO_CHANGES, cp->loo_changed);
	if (cp->loo_changed) {
		rows_int(r, row, LO_ROUND, cp->loo_round + 1);
		rows_str(r, row, LO_VERDICT, stats_verdict_name(cp->loo_verdict));
	} else {
		rows_null(r, row, LO_ROUND);
		rows_null(r, row, LO_VERDICT);
	}
	return r;
}

/* The comparison keys that paired and unpaired comparisons share; d and
 * j are read only when ok, why only when not. */
static void comparison_cols_fill(struct rows *r, size_t row, const struct ab_metric *met,
				 const char *arm, const char *base, bool ok, size_t n,
				 const struct arm_delta *d,
				 const struct stats_judgement *j, const char *why,
				 bool aa)
{
	rows_str(r, row, CO_ARM, arm);
	rows_str(r, row, CO_BASELINE, base);
	rows_str(r, row, CO_METRIC, met->name);
	rows_str(r, row, CO_SCOPE, ab_metric_machine(met) ? "machine" : "workload");
	rows_bool(r, row, CO_HIGHER, met->higher_is_better);
	rows_uint(r, row, CO_N, ok ? n : 0);
	rows_num(r, row, CO_DELTA_MEAN, ok ? d->delta_pct : NAN);
	rows_num(r, row, CO_DELTA_MEDIAN, ok ? d->delta_pct_median : NAN);
	if (ok && d->ci_computable) {
		const double ci[2] = { d->ci95_lo_pct, d->ci95_hi_pct };
		rows_nest(r, row, CO_CI, number_list(ci, NULL, 2));
	} else {
		rows_null(r, row, CO_CI);
	}
	rows_num(r, row, CO_T_MULT, ok ? d->t_mult95 : NAN);
	rows_num(r, row, CO_P, ok ? d->p_value : NAN);
	rows_num(r, row, CO_P_MIN, ok ? d->p_min : NAN);
	if (ok)
		rows_bool(r, row, CO_SIGNS, d->signs_agree);
	else
		rows_null(r, row, CO_SIGNS);
	if (aa) {
		/* An A/A experiment measures noise: no gate judged it and it
		 * has no verdict, in JSON as in the table ("no verdicts"). */
		rows_null(r, row, CO_GATE);
		rows_null(r, row, CO_GATE_SOURCE);
		rows_null(r, row, CO_VERDICT);
		rows_null(r, row, CO_ROUNDS);
		rows_str(r, row, CO_WHY, ok ? "an A/A experiment measures noise and "
			 "gives no verdict" : why);
		return;
	}
	rows_num(r, row, CO_GATE, met->gate_pct);
	rows_str(r, row, CO_GATE_SOURCE, met->gate_source);
	/* Nothing was computed: no verdict, as the table and CSV say, not
	 * an "inconclusive" one; why says what was missing. */
	rows_str(r, row, CO_VERDICT, ok ? stats_verdict_name(j->verdict) : "n/a");
	if (ok && j->rounds_needed > 0) {
		rows_int(r, row, CO_ROUNDS, j->rounds_needed);
		rows_str(r, row, CO_AIM, j->aim == STATS_AIM_EQUIVALENCE ? "equivalent"
			 : (d->delta_pct > 0) == met->higher_is_better ? "better" : "worse");
	} else {
		rows_null(r, row, CO_ROUNDS);
		rows_null(r, row, CO_AIM);
	}
	rows_num(r, row, CO_EQUIV, ok ? j->equiv_pct : met->equiv_pct);
	if (!ok)
		rows_str(r, row, CO_WHY, why);
}

static void comparison_row(struct rows *r, const struct ab_analysis *a,
			   size_t arm, size_t m)
{
	const struct ab_comparison *cp = ab_comparison_of(a, arm, m);
	const struct arm_delta d = ARM_DELTA_OF(cp->p);
	bool ok = cp->computable;
	size_t row = rows_add(r);
	comparison_cols_fill(r, row, &a->metrics[m], a->exp->arms[arm].name,
			     a->exp->arms[0].name, ok, cp->p.n, &d, &cp->j, cp->why,
			     a->exp->aa);
	rows_bool(r, row, CO_BUSY, cp->busy);
	rows_bool(r, row, CO_DETERMINISTIC, cp->deterministic);
	rows_num(r, row, CO_DET_SPREAD, cp->deterministic ? cp->spread_pct : NAN);
	if (ok)
		rows_str(r, row, CO_METHOD, cp->deterministic ? "simulated: the arms' "
			 "medians, against their spread between rounds"
			 : !cp->p.by_difference ? "log-ratio"
			 : cp->p.scale_pooled ? "difference over both arms' mean"
			 : "difference over the baseline's mean");
	if (cp->busy && !cp->why) {
		char *busy;
		if (asprintf(&busy, "other work took %.0f%% of the machine's CPU time "
			     "(median over the runs): no verdict%s%s", 100 * a->others_median,
			     cp->withheld ? "; the numbers alone: " : "",
			     cp->withheld ? stats_verdict_name(cp->was_verdict) : "") < 0)
			xalloc_die();
		rows_str(r, row, CO_WHY, busy);
		free(busy);
	}
	rows_uint(r, row, CO_FAV_ARM, ok ? cp->j.n_favour_arm : 0);
	rows_uint(r, row, CO_FAV_BASE, ok ? cp->j.n_favour_base : 0);
	if (ok) {
		rows_num(r, row, CO_POSITION, cp->pos.computable ? cp->pos.pct : NAN);
		rows_num(r, row, CO_DRIFT, cp->trend.computable ? cp->trend.pct_span : NAN);
	}
	/* null: not checked (fewer than AB_LOO_MIN or more than AB_LOO_MAX
	 * rounds, an A/A experiment, nothing computed) */
	if (ok && cp->loo_checked && !a->exp->aa)
		rows_nest(r, row, CO_LOO, loo_record(cp));
	else
		rows_null(r, row, CO_LOO);
	if (ok && cp->spread.computable)
		rows_nest(r, row, CO_SPREAD, spread_record(&cp->spread));
	else
		rows_null(r, row, CO_SPREAD);
}

#define EXPERIMENT_COLS(K) \
	K(X_ID, "experiment_id", INT) K(X_STATUS, "status", TEXT) K(X_AA, "aa", BOOL) \
	K(X_ORDER, "order", TEXT) K(X_SEED, "seed", INT) \
	K(X_PLANNED, "rounds_planned", INT) K(X_COUNTED, "rounds_counted", INT) \
	K(X_WARMUP, "warmup", INT) \
	K(X_HOST, "host", TEXT) K(X_CPU_MODEL, "cpu_model", TEXT) \
	K(X_SCHEDULE, "schedule", NEST) K(X_ARMS, "arms", NEST) \
	K(X_COMPARISONS, "comparisons", NEST) K(X_WARNINGS, "warnings", NEST) \
	K(X_ERRORS, "errors", NEST) K(X_NOISE, "noise", NEST) \
	K(X_WINDOW, "window", TEXT)
ROWS_KEYS(experiment_cols, X_N, EXPERIMENT_COLS);

/* An A/A experiment's noise per metric, and the gate it sets. */
#define NOISE_JSON_COLS(K) \
	K(NJ_METRIC, "metric", TEXT) K(NJ_SD, "sd_pct", PCT) \
	K(NJ_GATE, "gate_pct", PCT)
ROWS_KEYS(noise_json_cols, NJ_N, NOISE_JSON_COLS);

static void write_json(const struct ab_analysis *a, FILE *fp)
{
	const struct db_experiment *e = a->exp;
	struct rows *doc = rows_new(NULL, experiment_cols, X_N, 0);
	size_t row = rows_add(doc);
	rows_int(doc, row, X_ID, e->id);
	rows_str(doc, row, X_STATUS, e->status);
	rows_bool(doc, row, X_AA, e->aa);
	rows_str(doc, row, X_ORDER, e->order);
	rows_uint(doc, row, X_SEED, e->seed);
	rows_int(doc, row, X_PLANNED, e->rounds);
	rows_uint(doc, row, X_COUNTED, a->counted_rounds);
	rows_int(doc, row, X_WARMUP, e->warmup);
	rows_str(doc, row, X_HOST, e->hostname);
	rows_str(doc, row, X_CPU_MODEL, e->cpu_model);
	rows_str(doc, row, X_WINDOW, db_kv_get(e->settings, e->nsettings, "window"));
	/* Every run in the order it ran, warm-ups and failures included. */
	struct rows *sched = rows_new(NULL, schedule_cols, SC_N, ROWS_FLAT);
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *x = &e->runs[i];
		size_t k = rows_add(sched);
		rows_int(sched, k, SC_RUN_ID, x->run_id);
		rows_str(sched, k, SC_ARM, (size_t)x->arm < e->narms
			 ? e->arms[x->arm].name : NULL);
		rows_int(sched, k, SC_ROUND, x->round);
		rows_int(sched, k, SC_POSITION, x->position);
		rows_bool(sched, k, SC_WARMUP, x->warmup);
		rows_int(sched, k, SC_EXIT, x->exit_status);
		rows_bool(sched, k, SC_COUNTED, ab_run_counts(x));
	}
	rows_nest(doc, row, X_SCHEDULE, sched);
	struct rows *arms = rows_new(NULL, arm_doc_cols, AR_N, 0);
	for (size_t arm = 0; arm < a->narms; arm++) {
		size_t k = rows_add(arms);
		rows_str(arms, k, AR_NAME, e->arms[arm].name);
		rows_str(arms, k, AR_COMMAND, e->arms[arm].command);
		/* The counted run ids, in order (wall_s counts every good run). */
		const struct ab_cell *c0 = ab_cell_of(a, arm, 0);
		rows_nest(arms, k, AR_RUNS, number_list(NULL, c0->run_ids, c0->n));
		rows_nest(arms, k, AR_METRICS, arm_metrics(a->metrics, a->nmetrics, c0));
	}
	rows_nest(doc, row, X_ARMS, arms);
	struct rows *cmps = rows_new(NULL, comparison_cols, CO_NCOLS, 0);
	for (size_t arm = 1; arm < a->narms; arm++)
		for (size_t m = 0; m < a->nmetrics; m++)
			comparison_row(cmps, a, arm, m);
	rows_nest(doc, row, X_COMPARISONS, cmps);
	static const struct col warning_col = { .key = "warning" };
	struct rows *warn = rows_new(NULL, &warning_col, 1, ROWS_VALUES);
	for (size_t i = 0; i < a->nwarnings; i++)
		rows_str(warn, rows_add(warn), 0, a->warnings[i]);
	rows_nest(doc, row, X_WARNINGS, warn);
	static const struct col error_col = { .key = "error" };
	struct rows *errs = rows_new(NULL, &error_col, 1, ROWS_VALUES);
	for (size_t i = 0; i < a->nerrors; i++)
		rows_str(errs, rows_add(errs), 0, a->errors[i]);
	rows_nest(doc, row, X_ERRORS, errs);
	if (e->aa) {
		struct rows *nz = rows_new(NULL, noise_json_cols, NJ_N, ROWS_FLAT);
		for (size_t m = 0; m < a->nmetrics; m++) {
			size_t k = rows_add(nz);
			rows_str(nz, k, NJ_METRIC, a->metrics[m].name);
			rows_num(nz, k, NJ_SD, a->metrics[m].aa_sd_pct);
			rows_num(nz, k, NJ_GATE, a->metrics[m].aa_gate_pct);
		}
		rows_nest(doc, row, X_NOISE, nz);
	}
	rows_write_data(doc, OUT_JSON, fp);
}

void ab_render(const struct ab_analysis *a, enum out_format fmt, FILE *fp)
{
	switch (fmt) {
	case OUT_JSON:
		write_json(a, fp);
		break;
	case OUT_CSV: {
		struct rows *r = arm_rows(a);
		rows_write_data(r, OUT_CSV, fp);
		break;
	}
	case OUT_MARKDOWN:
		write_markdown(a, fp);
		break;
	case OUT_SVG:
		ab_render_svg(a, fp);
		break;
	default: {
		/* no line past 80 columns: the header, notes and verdicts wrap */
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);
		if (!mem)
			xalloc_die();
		write_terminal(a, mem);
		if (fclose(mem))
			xalloc_die();
		out_wrap(fp, text);
		free(text);
		break;
	}
	}
}

bool ab_errors_said(const struct ab_analysis *a, enum out_format fmt)
{
	if (fmt == OUT_CSV || fmt == OUT_SVG)
		for (size_t i = 0; i < a->nerrors; i++)
			fprintf(stderr, "error: experiment %lld: %s\n",
				(long long)a->exp->id, a->errors[i]);
	return a->nerrors > 0;
}

enum { TR_METRIC, TR_A, TR_B, TR_DELTA, TR_RUN_A, TR_RUN_B, TR_N };

void ab_render_runs(const struct db_run *ra, const struct db_run *rb,
		    enum out_format fmt, FILE *fp)
{
	struct ab_pair pr;
	ab_pair_of_runs(ra, rb, &pr);
	char ta[32], tb[32];
	snprintf(ta, sizeof(ta), "run %lld", (long long)ra->id);
	snprintf(tb, sizeof(tb), "run %lld", (long long)rb->id);
	const struct col cols[TR_N] = {
		[TR_METRIC] = { .key = "metric" },
		[TR_A] = { .key = "a", .title = ta, .kind = COL_REAL, .none = "n/a" },
		[TR_B] = { .key = "b", .title = tb, .kind = COL_REAL, .none = "n/a" },
		[TR_DELTA] = { .key = "delta_pct", .title = "Δ%", .kind = COL_PCT,
			       .none = "n/a" },
		/* CSV names the runs on every line, as its title can't */
		[TR_RUN_A] = { .key = "run_a", .kind = COL_INT,
			       .flags = COL_NO_PEOPLE | COL_NO_JSON },
		[TR_RUN_B] = { .key = "run_b", .kind = COL_INT,
			       .flags = COL_NO_PEOPLE | COL_NO_JSON },
	};
	static const size_t csv[] = {
		TR_RUN_A, TR_RUN_B, TR_METRIC, TR_A, TR_B, TR_DELTA,
	};
	struct rows *r = rows_new("metrics", cols, TR_N, 0);
	rows_csv_order(r, csv, NELEM(csv));
	for (size_t m = 0; m < pr.n; m++) {
		double va = pr.a[m], vb = pr.b[m];
		double d = isfinite(va) && isfinite(vb) && va > 0 ? 100.0 * (vb / va - 1)
			   : NAN;
		size_t row = rows_add(r);
		char buf[64];
		rows_int(r, row, TR_RUN_A, ra->id);
		rows_int(r, row, TR_RUN_B, rb->id);
		metric_cell(r, row, TR_METRIC, &pr.metrics[m]);
		rows_num(r, row, TR_A, va);
		rows_num(r, row, TR_B, vb);
		rows_num(r, row, TR_DELTA, d);
		if (!pr.metrics[m].supported) {
			rows_text(r, row, TR_A, "not supported");
			rows_text(r, row, TR_B, "not supported");
			rows_text(r, row, TR_DELTA, "%s", "");
			continue;
		}
		fmt_value(buf, sizeof(buf), va, pr.metrics[m].unit);
		rows_text(r, row, TR_A, "%s", buf);
		fmt_value(buf, sizeof(buf), vb, pr.metrics[m].unit);
		rows_text(r, row, TR_B, "%s", buf);
		fmt_pct(buf, sizeof(buf), d);
		rows_text(r, row, TR_DELTA, "%s", buf);
	}
	if (fmt == OUT_JSON) {
		static const struct col doc_cols[] = {
			{ .key = "runs", .kind = COL_NEST },
			{ .key = "note" },
			{ .key = "metrics", .kind = COL_NEST },
		};
		const int64_t ids[2] = { ra->id, rb->id };
		struct rows *doc = rows_new(NULL, doc_cols, 3, 0);
		size_t row = rows_add(doc);
		rows_nest(doc, row, 0, number_list(NULL, ids, 2));
		rows_str(doc, row, 1, "one run each: no noise estimate");
		rows_nest(doc, row, 2, r);
		rows_write_data(doc, OUT_JSON, fp);
	} else {
		if (fmt != OUT_CSV) {
			const struct db_run *two[2] = { ra, rb };
			for (int i = 0; i < 2; i++) {
				fprintf(fp, "%srun %lld: ", fmt == OUT_MARKDOWN ? "- " : " ",
					(long long)two[i]->id);
				command_field(fp, two[i]->command, fmt);
				fputc('\n', fp);
			}
			fputc('\n', fp);
		}
		rows_write(r, fmt, fp, 1);
		if (fmt != OUT_CSV)
			fprintf(fp, "\n%sone run each: no noise estimate, so no verdict; "
				"'prof ab' runs interleaved rounds for one\n",
				fmt == OUT_MARKDOWN ? "" : " ");
		rows_free(r);
	}
	ab_pair_release(&pr);
}

/* ---- thread groups (--by name) ---- */

static struct rows *group_rows_new(void)
{
	struct col cols[A_NCOLS];
	memcpy(cols, arm_cols, sizeof(cols));
	cols[A_GROUP].flags = 0;
	return rows_new("threads", cols, A_NCOLS, 0);
}

/* Every per-thread metric's (name, arm) rows; the metric and thread
 * named on the first row of each. */
static void group_fill(struct rows *r, const struct ab_by_name *g, size_t m,
		       bool name_metric)
{
	for (size_t k = 0; k < g->ngroups; k++) {
		const struct ab_analysis *a = &g->an[k];
		for (size_t arm = 0; arm < a->narms; arm++) {
			size_t row = rows_add(r);
			arm_row(r, row, a, arm, m);
			rows_str(r, row, A_GROUP, g->names[k]);
			if (arm)
				rows_text(r, row, A_GROUP, "%s", "");
			if (name_metric)
				rows_text(r, row, A_METRIC, "%s%s", k || arm ? ""
					  : a->metrics[m].name, k || arm ? ""
					  : (a->metrics[m].higher_is_better ? " ↑" : " ↓"));
		}
	}
}

static const size_t group_term_order[] = {
	A_GROUP, A_ARM, A_N, A_MEDIAN, A_DELTA_CI, A_DMEDIAN_TEXT, A_P_TEXT,
	A_GATE_TEXT, A_VERDICT_TEXT,
};
static const size_t group_md_order[] = {
	A_METRIC, A_GROUP, A_ARM, A_N, A_MEDIAN, A_DELTA_CI, A_DMEDIAN_TEXT,
	A_P_TEXT, A_GATE_TEXT, A_VERDICT_TEXT,
};
static const size_t group_csv_order[] = {
	A_METRIC, A_GROUP, A_ARM, A_BASELINE, A_N, A_MEDIAN, A_MEAN, A_SD, A_SE,
	A_MIN, A_MAX, A_DELTA_MEAN, A_DELTA_MEDIAN, A_CI_LO, A_CI_HI, A_T_MULT,
	A_P, A_P_MIN, A_VERDICT, A_GATE, A_ROUNDS,
};

#define GROUP_DOC_COLS(K) \
	K(GD_ID, "experiment_id", INT) K(GD_BY, "by", TEXT) \
	K(GD_GROUPS, "threads", NEST) K(GD_LEFT, "names_left_out", INT)
#define GROUP_COLS(K) \
	K(GJ_THREAD, "name", TEXT) K(GJ_PER_RUN, "threads_per_run", REAL) \
	K(GJ_CMP, "comparisons", NEST)

static void group_json(const struct ab_by_name *g, FILE *fp)
{
	ROWS_KEYS(doc_cols, GD_N, GROUP_DOC_COLS);
	ROWS_KEYS(gcols, GJ_N, GROUP_COLS);
	struct rows *doc = rows_new(NULL, doc_cols, GD_N, 0);
	size_t row = rows_add(doc);
	rows_int(doc, row, GD_ID, g->exp->id);
	rows_str(doc, row, GD_BY, "name");
	struct rows *gs = rows_new(NULL, gcols, GJ_N, 0);
	for (size_t k = 0; k < g->ngroups; k++) {
		const struct ab_analysis *a = &g->an[k];
		size_t q = rows_add(gs);
		rows_str(gs, q, GJ_THREAD, g->names[k]);
		rows_num(gs, q, GJ_PER_RUN, g->threads_per_run[k]);
		struct rows *cmps = rows_new(NULL, comparison_cols, CO_NCOLS, 0);
		for (size_t arm = 1; arm < a->narms; arm++)
			for (size_t m = 0; m < a->nmetrics; m++)
				if (ab_metric_per_thread(&a->metrics[m]))
					comparison_row(cmps, a, arm, m);
		rows_nest(gs, q, GJ_CMP, cmps);
	}
	rows_nest(doc, row, GD_GROUPS, gs);
	rows_uint(doc, row, GD_LEFT, g->left_out);
	rows_write_data(doc, OUT_JSON, fp);
}

void ab_render_by_name(const struct ab_by_name *g, enum out_format fmt, FILE *fp)
{
	if (fmt == OUT_JSON) {
		group_json(g, fp);
		return;
	}
	const struct ab_analysis *a0 = &g->an[0];
	if (fmt == OUT_CSV) {
		struct rows *r = group_rows_new();
		rows_csv_order(r, group_csv_order, NELEM(group_csv_order));
		for (size_t m = 0; m < a0->nmetrics; m++)
			if (ab_metric_per_thread(&a0->metrics[m]) && a0->metrics[m].supported)
				group_fill(r, g, m, false);
		rows_write_data(r, OUT_CSV, fp);
		return;
	}
	bool md = fmt == OUT_MARKDOWN;
	write_header(a0, fp, md);
	fprintf(fp, md ? "Per thread name: each event summed over the threads of that "
		"name in a run, and compared round by round.\n\n"
		: " per thread name: each event summed over the threads of that name in "
		"a run, and compared round by round\n\n");
	struct rows *mdr = NULL;
	if (md) {
		mdr = group_rows_new();
		rows_people_order(mdr, group_md_order, NELEM(group_md_order));
	}
	for (size_t m = 0; m < a0->nmetrics; m++) {
		const struct ab_metric *met = &a0->metrics[m];
		if (!ab_metric_per_thread(met) || !met->supported)
			continue;
		if (md) {
			group_fill(mdr, g, m, true);
			continue;
		}
		fprintf(fp, " %s (%s%s%s is better)\n", met->name,
			unit_shown(met->unit, NULL), *met->unit ? "; " : "",
			met->higher_is_better ? "higher" : "lower");
		struct rows *r = group_rows_new();
		rows_people_order(r, group_term_order, NELEM(group_term_order));
		group_fill(r, g, m, false);
		rows_write(r, OUT_TABLE, fp, 3);
		rows_free(r);
		fputc('\n', fp);
	}
	if (md) {
		rows_write(mdr, OUT_MARKDOWN, fp, 0);
		rows_free(mdr);
		fputc('\n', fp);
	}
	fputs(md ? "*threads per run: " : " threads per run: ", fp);
	for (size_t k = 0; k < g->ngroups; k++)
		fprintf(fp, "%s%s %.3g", k ? ", " : "", g->names[k], g->threads_per_run[k]);
	if (g->left_out)
		fprintf(fp, "; %zu more name%s left out", g->left_out,
			g->left_out == 1 ? "" : "s");
	fputs(md ? "*\n\n*" : "\n design: ", fp);
	design_line(a0, fp);
	fputs(md ? "*\n" : "\n", fp);
	/* Design warnings per name, of the metrics shown; run failures are
	 * the experiment's and show in its own report. */
	for (size_t k = 0; k < g->ngroups; k++) {
		const struct ab_analysis *a = &g->an[k];
		for (size_t i = 0; i < a->nwarnings; i++) {
			const char *w = a->warnings[i];
			bool shown = false;
			for (size_t m = 0; m < a->nmetrics && !shown; m++) {
				size_t l = strlen(a->metrics[m].name);
				shown = ab_metric_per_thread(&a->metrics[m]) &&
					!strncmp(w, a->metrics[m].name, l) &&
					(w[l] == ':' || w[l] == ',');
			}
			if (shown)
				fprintf(fp, md ? "\n> warning: %s: %s" : " warning: %s: %s\n",
					g->names[k], w);
		}
	}
	if (md)
		fputc('\n', fp);
}

/* ---- two sets of runs, unpaired ---- */

static const char sets_note[] =
	"the runs were not interleaved: each set ran at its own time, so "
	"whatever changed between them (a reboot, drift, temperature, other "
	"load) is part of the difference; 'prof ab' interleaves arms that can "
	"run in one session";

static void sets_verdict_text(const struct ab_set_cmp *c, char *buf, size_t n)
{
	const char *v = stats_verdict_name(c->j.verdict);
	char why[96] = "";
	if (c->j.held_by_p && !c->j.p_reachable)
		snprintf(why, sizeof(why), "%zu and %zu runs cannot reach p < %g",
			 c->u.na, c->u.nb, c->j.alpha);
	else if (c->j.held_by_p)
		snprintf(why, sizeof(why), "p not below %g", c->j.alpha);
	if (c->j.verdict == VERDICT_INCONCLUSIVE && c->j.rounds_needed > 0)
		snprintf(buf, n, "%s (%s%s~%ld runs a set to show %s)", v, why,
			 *why ? "; " : "", c->j.rounds_needed,
			 c->j.aim == STATS_AIM_EQUIVALENCE ? "equivalent"
			 : (c->u.delta_pct > 0) == c->j.higher_is_better ? "better" : "worse");
	else if (*why)
		snprintf(buf, n, "%s (%s)", v, why);
	else
		snprintf(buf, n, "%s", v);
}

/* One set of one metric, in the columns of an experiment's arms. */
static void sets_row(struct rows *r, size_t row, const struct ab_sets *s, int k,
		     size_t m)
{
	const struct ab_set_cmp *cp = k ? &s->cmp[m] : NULL;
	char vt[200];
	arm_cell_cols(r, row, &s->metrics[m], &s->cells[(size_t)k * s->nmetrics + m],
		      s->set[k].name, s->set[0].name);
	if (!cp || !cp->computable) {
		arm_no_delta_cols(r, row, cp != NULL, cp ? cp->why : NULL);
		return;
	}
	const struct arm_delta d = ARM_DELTA_OF(cp->u);
	sets_verdict_text(cp, vt, sizeof(vt));
	arm_delta_cols(r, row, &s->metrics[m], &d, &cp->j, "no CI with 1 run", vt);
}

static void sets_design(const struct ab_sets *s, FILE *fp)
{
	double pmin = NAN;
	for (size_t m = 0; m < s->nmetrics && isnan(pmin); m++)
		if (s->cmp[m].computable)
			pmin = s->cmp[m].u.p_min;
	fprintf(fp, "unpaired: Welch's t on log values (95%% CI), permutation p");
	if (isfinite(pmin))
		fprintf(fp, " (smallest attainable %.3f with %zu and %zu runs)", pmin,
			s->counted[0], s->counted[1]);
	if (s->nmetrics)
		fprintf(fp, ", gate ±%.1f%% (%s)", s->metrics[0].gate_pct,
			s->metrics[0].gate_source);
}

static void sets_header(const struct ab_sets *s, FILE *fp, bool md)
{
	if (md)
		fprintf(fp, "**prof compare: two sets of runs, collected apart (not "
			"interleaved)**\n\n");
	else
		fprintf(fp, " prof compare: two sets of runs, collected apart (not "
			"interleaved)\n");
	for (int k = 0; k < 2; k++) {
		const struct ab_set *t = &s->set[k];
		fprintf(fp, md ? "- `%s`%s: %s, %zu run%s" : "   %s%s: %s, %zu run%s",
			t->name, k ? "" : " (baseline)", t->spec, t->nruns,
			t->nruns == 1 ? "" : "s");
		if (t->nruns && t->runs[0].command)
			fprintf(fp, md ? " of `%s`" : " of %s", t->runs[0].command);
		fputc('\n', fp);
	}
	fputc('\n', fp);
}

/* The arms' columns, the arm named a set. */
static struct rows *sets_rows_new(void)
{
	struct col cols[A_NCOLS];
	memcpy(cols, arm_cols, sizeof(cols));
	cols[A_ARM].key = "set";
	return rows_new("sets", cols, A_NCOLS, 0);
}

static struct rows *sets_rows(const struct ab_sets *s)
{
	struct rows *r = sets_rows_new();
	rows_people_order(r, md_order, NELEM(md_order));
	for (size_t m = 0; m < s->nmetrics; m++) {
		const struct ab_metric *met = &s->metrics[m];
		if (!met->supported) {
			size_t row = rows_add_people(r);
			rows_text(r, row, A_METRIC, "%s", met->name);
			rows_text(r, row, A_ARM, "not supported on this machine");
		}
		for (int k = 0; k < 2; k++) {
			size_t row = met->supported ? rows_add(r) : rows_add_machines(r);
			sets_row(r, row, s, k, m);
			rows_text(r, row, A_METRIC, "%s%s", k ? "" : met->name,
				  k ? "" : (met->higher_is_better ? " ↑" : " ↓"));
		}
	}
	return r;
}

#define SETS_DOC_COLS(K) \
	K(SD_INTERLEAVED, "interleaved", BOOL) K(SD_NOTE, "note", TEXT) \
	K(SD_SETS, "sets", NEST) K(SD_CMP, "comparisons", NEST) \
	K(SD_WARN, "warnings", NEST)
#define SET_COLS(K) \
	K(SJ_NAME, "name", TEXT) K(SJ_SPEC, "spec", TEXT) \
	K(SJ_RUNS, "runs", NEST) K(SJ_METRICS, "metrics", NEST)

static void sets_json(const struct ab_sets *s, FILE *fp)
{
	ROWS_KEYS(doc_cols, SD_N, SETS_DOC_COLS);
	ROWS_KEYS(set_cols, SJ_N, SET_COLS);
	struct rows *doc = rows_new(NULL, doc_cols, SD_N, 0);
	size_t row = rows_add(doc);
	rows_bool(doc, row, SD_INTERLEAVED, false);
	rows_str(doc, row, SD_NOTE, sets_note);
	struct rows *sets = rows_new(NULL, set_cols, SJ_N, 0);
	for (int k = 0; k < 2; k++) {
		size_t q = rows_add(sets);
		rows_str(sets, q, SJ_NAME, s->set[k].name);
		rows_str(sets, q, SJ_SPEC, s->set[k].spec);
		const struct ab_cell *c0 = &s->cells[(size_t)k * s->nmetrics];
		rows_nest(sets, q, SJ_RUNS, number_list(NULL, c0->run_ids, c0->n));
		rows_nest(sets, q, SJ_METRICS, arm_metrics(s->metrics, s->nmetrics, c0));
	}
	rows_nest(doc, row, SD_SETS, sets);
	struct rows *cmps = rows_new(NULL, comparison_cols, CO_NCOLS, 0);
	for (size_t m = 0; m < s->nmetrics; m++) {
		const struct ab_set_cmp *cp = &s->cmp[m];
		const struct arm_delta d = ARM_DELTA_OF(cp->u);
		comparison_cols_fill(cmps, rows_add(cmps), &s->metrics[m], s->set[1].name,
				     s->set[0].name, cp->computable, cp->u.na + cp->u.nb,
				     &d, &cp->j, cp->why, false);
	}
	rows_nest(doc, row, SD_CMP, cmps);
	static const struct col warning_col = { .key = "warning" };
	struct rows *warn = rows_new(NULL, &warning_col, 1, ROWS_VALUES);
	for (size_t i = 0; i < s->nwarnings; i++)
		rows_str(warn, rows_add(warn), 0, s->warnings[i]);
	rows_nest(doc, row, SD_WARN, warn);
	rows_write_data(doc, OUT_JSON, fp);
}

void ab_render_sets(const struct ab_sets *s, enum out_format fmt, FILE *fp)
{
	if (fmt == OUT_JSON) {
		sets_json(s, fp);
		return;
	}
	if (fmt == OUT_CSV) {
		struct rows *r = sets_rows(s);
		rows_write_data(r, OUT_CSV, fp);
		return;
	}
	bool md = fmt == OUT_MARKDOWN;
	sets_header(s, fp, md);
	if (md) {
		struct rows *r = sets_rows(s);
		rows_write(r, OUT_MARKDOWN, fp, 0);
		rows_free(r);
		fputc('\n', fp);
	} else {
		for (size_t m = 0; m < s->nmetrics; m++) {
			const struct ab_metric *met = &s->metrics[m];
			if (!met->supported) {
				fprintf(fp, " %s: not supported on this machine (not counted, "
					"not zero)\n\n", met->name);
				continue;
			}
			fprintf(fp, " %s (%s%s%s%s is better)\n", met->name,
				ab_metric_machine(met) ? "whole machine; " : "",
				unit_shown(met->unit, NULL),
				*met->unit ? "; " : "", met->higher_is_better ? "higher"
				: "lower");
			struct rows *r = sets_rows_new();
			rows_people_order(r, sets_term_order, NELEM(sets_term_order));
			for (int k = 0; k < 2; k++)
				sets_row(r, rows_add(r), s, k, m);
			rows_write(r, OUT_TABLE, fp, 3);
			rows_free(r);
			fputc('\n', fp);
		}
	}
	fputs(md ? "*" : " design: ", fp);
	sets_design(s, fp);
	fputs(md ? "*\n\n" : "\n", fp);
	fprintf(fp, md ? "> note: %s\n" : " note: %s\n", sets_note);
	for (size_t i = 0; i < s->nwarnings; i++)
		fprintf(fp, md ? "> warning: %s\n" : " warning: %s\n", s->warnings[i]);
}

enum { EX_ID, EX_STARTED, EX_STATUS, EX_AA, EX_ROUNDS, EX_RUNS, EX_ARMS, EX_N };

/* A stored experiment; people read "(A/A)" after its status. */
static const struct col experiment_list_cols[EX_N] = {
	[EX_ID] = { .key = "experiment_id", .title = "experiment", .kind = COL_INT },
	[EX_STARTED] = { .key = "started" },
	[EX_STATUS] = { .key = "status" },
	[EX_AA] = { .key = "aa", .kind = COL_BOOL, .flags = COL_MACHINES },
	[EX_ROUNDS] = { .key = "rounds", .kind = COL_INT },
	[EX_RUNS] = { .key = "runs", .kind = COL_INT },
	[EX_ARMS] = { .key = "arms" },
};

void ab_render_list(const struct db_experiment_summary *v, size_t n,
		    enum out_format fmt, FILE *fp)
{
	struct rows *r = rows_new("experiments", experiment_list_cols, EX_N, 0);
	for (size_t i = 0; i < n; i++) {
		size_t row = rows_add(r);
		rows_int(r, row, EX_ID, v[i].id);
		rows_str(r, row, EX_STARTED, v[i].started);
		rows_str(r, row, EX_STATUS, v[i].status);
		if (v[i].aa)
			rows_text(r, row, EX_STATUS, "%s (A/A)",
				  v[i].status ? v[i].status : "");
		rows_bool(r, row, EX_AA, v[i].aa);
		rows_int(r, row, EX_ROUNDS, v[i].rounds);
		rows_uint(r, row, EX_RUNS, v[i].nruns);
		rows_str(r, row, EX_ARMS, v[i].arms);
	}
	if (n == 0 && fmt == OUT_TABLE)
		fprintf(fp, "no experiments stored yet; run one with 'prof ab'\n");
	else
		rows_write(r, fmt, fp, 0);
	rows_free(r);
}
