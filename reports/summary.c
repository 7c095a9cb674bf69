/*
 * summary (reports): experiments read together, scene by scene and
 * across scenes (see summary.h); the analysis, then its tables.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "common/cause.h"
#include "reports/rows.h"
#include "reports/summary.h"

static long find_arm(const struct db_experiment *e, const char *name)
{
	for (size_t i = 0; i < e->narms; i++)
		if (!strcmp(e->arms[i].name, name))
			return (long)i;
	return -1;
}

static long find_metric(const struct ab_analysis *a, const char *name)
{
	for (size_t m = 0; m < a->nmetrics; m++)
		if (!strcmp(a->metrics[m].name, name))
			return (long)m;
	return -1;
}

/* Across scenes: t on the per-scene mean log-ratios, sign test for p. */
static void across(struct summary *s, struct summary_metric *sm)
{
	double *one = calloc(s->nexp + 1, sizeof(double));
	double *eff = calloc(s->nexp + 1, sizeof(double));
	if (!one || !eff)
		xalloc_die();
	size_t n = 0;
	for (size_t e = 0; e < s->nexp; e++) {
		const struct ab_comparison *cp = ab_comparison_of(&s->an[e], s->arm[e],
								  sm->midx[e]);
		if (!cp || !cp->computable)
			continue;
		one[n] = 1;
		eff[n] = exp(cp->p.mean_d);
		n++;
		sm->n_up += cp->p.mean_d > 0;
		sm->n_down += cp->p.mean_d < 0;
		switch (cp->j.verdict) {
		case VERDICT_BETTER:
			sm->n_better++;
			break;
		case VERDICT_WORSE:
			sm->n_worse++;
			break;
		case VERDICT_EQUIVALENT:
			sm->n_equivalent++;
			break;
		default:
			sm->n_inconclusive++;
			break;
		}
	}
	sm->nscenes = n;
	sm->computable = n > 0 &&
			 stats_paired_logratio(one, eff, n, &sm->across, NULL) == 0;
	if (sm->computable) {
		sm->sign_p = stats_sign_test(sm->n_up, sm->n_down, &sm->sign_p_min);
		sm->across.p_value = sm->sign_p;
		sm->across.p_min = sm->sign_p_min;
		stats_judge(&sm->across, NULL, NULL, s->gate_pct, sm->higher_is_better,
			    &sm->j);
	}
	free(one);
	free(eff);
}

int summary_build(const struct ab_analysis *an, size_t n, const char *arm,
		  double gate_pct, struct summary *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	if (cause)
		*cause = NULL;
	if (!n) {
		cause_set(cause, 0, "no experiments");
		return -EINVAL;
	}
	const struct db_experiment *e0 = an[0].exp;
	if (!arm && e0->narms < 2) {
		cause_set(cause, 0, "experiment %lld has one arm: nothing to compare",
			  (long long)e0->id);
		return -EINVAL;
	}
	out->an = an;
	out->nexp = n;
	out->arm_name = strdup(arm ? arm : e0->arms[1].name);
	out->baseline_name = strdup(e0->arms[0].name);
	out->gate_pct = isnan(gate_pct) ? 1.0 : gate_pct;
	out->gate_source = strdup(isnan(gate_pct) ? "default" : "--gate");
	out->arm = calloc(n, sizeof(size_t));
	if (!out->arm)
		xalloc_die();
	for (size_t i = 0; i < n; i++) {
		const struct db_experiment *e = an[i].exp;
		long a = find_arm(e, out->arm_name);
		if (a < 1) {
			if (a == 0)
				cause_set(cause, 0, "arm '%s' is the baseline of experiment %lld; "
					  "name another with --arm", out->arm_name,
					  (long long)e->id);
			else
				cause_set(cause, 0, "experiment %lld has no arm '%s': the "
					  "experiments must share their arms",
					  (long long)e->id, out->arm_name);
			summary_release(out);
			return -EINVAL;
		}
		if (strcmp(e->arms[0].name, out->baseline_name)) {
			cause_set(cause, 0, "experiment %lld's baseline is '%s', not '%s': "
				  "the experiments must share their arms", (long long)e->id,
				  e->arms[0].name, out->baseline_name);
			summary_release(out);
			return -EINVAL;
		}
		out->arm[i] = (size_t)a;
	}
	/* The metrics every experiment has, in the first one's order. */
	out->metrics = calloc(an[0].nmetrics + 1, sizeof(*out->metrics));
	if (!out->metrics)
		xalloc_die();
	for (size_t m = 0; m < an[0].nmetrics; m++) {
		const struct ab_metric *met = &an[0].metrics[m];
		if (!met->supported)
			continue;
		size_t *idx = calloc(n, sizeof(size_t));
		bool all = idx != NULL;
		for (size_t i = 0; all && i < n; i++) {
			long k = find_metric(&an[i], met->name);
			all = k >= 0 && an[i].metrics[k].supported;
			if (all)
				idx[i] = (size_t)k;
		}
		if (!all) {
			free(idx);
			continue;
		}
		struct summary_metric *sm = &out->metrics[out->nmetrics++];
		sm->name = strdup(met->name);
		sm->unit = strdup(met->unit);
		sm->higher_is_better = met->higher_is_better;
		sm->midx = idx;
		across(out, sm);
	}
	return 0;
}

void summary_release(struct summary *s)
{
	if (!s)
		return;
	for (size_t m = 0; m < s->nmetrics; m++) {
		free(s->metrics[m].name);
		free(s->metrics[m].unit);
		free(s->metrics[m].midx);
	}
	free(s->metrics);
	free(s->arm);
	free(s->arm_name);
	free(s->baseline_name);
	free(s->gate_source);
	memset(s, 0, sizeof(*s));
}

/* ---- rendering ---- */

/* "12 of 12 scenes better", the largest count first. */
static void count_text(const struct summary *s, const struct summary_metric *sm,
		       char *buf, size_t n)
{
	const size_t c[4] = { sm->n_better, sm->n_worse, sm->n_equivalent,
			      sm->n_inconclusive };
	static const char *const w[4] = { "better", "worse", "equivalent",
					  "inconclusive" };
	size_t best = 0;
	if (!sm->nscenes) {
		snprintf(buf, n, "no scene could be compared");
		return;
	}
	for (size_t i = 1; i < 4; i++)
		if (c[i] > c[best])
			best = i;
	bool tie = false;
	for (size_t i = 0; i < 4; i++)
		tie = tie || (i != best && c[i] == c[best]);
	size_t len;
	if (tie) {
		/* No verdict leads: none is put first. */
		len = (size_t)snprintf(buf, n, "%zu scenes:", s->nexp);
		for (size_t i = 0, k = 0; i < 4 && len < n; i++)
			if (c[i])
				len += (size_t)snprintf(buf + len, n - len, "%s %zu %s",
							k++ ? "," : "", c[i], w[i]);
	} else {
		len = (size_t)snprintf(buf, n, "%zu of %zu scenes %s", c[best], s->nexp,
				       w[best]);
		for (size_t i = 0; i < 4 && len < n; i++)
			if (i != best && c[i])
				len += (size_t)snprintf(buf + len, n - len, ", %zu %s", c[i],
							w[i]);
	}
	if (sm->nscenes < s->nexp && len < n)
		snprintf(buf + len, n - len, ", %zu not comparable", s->nexp - sm->nscenes);
}

static void verdict_across(const struct summary_metric *sm, char *buf, size_t n)
{
	if (!sm->computable) {
		snprintf(buf, n, "n/a");
		return;
	}
	const char *v = stats_verdict_name(sm->j.verdict);
	/* Too few scenes for the sign test: said wherever no verdict was
	 * reached, whatever held it first (the CI, say). */
	if (!sm->j.p_reachable && (sm->j.held_by_p ||
				   sm->j.verdict == VERDICT_INCONCLUSIVE))
		snprintf(buf, n, "%s (%zu scene%s cannot reach sign-test p < %g)", v,
			 sm->nscenes, sm->nscenes == 1 ? "" : "s", sm->j.alpha);
	else if (sm->j.held_by_p)
		snprintf(buf, n, "%s (sign test p not below %g)", v, sm->j.alpha);
	else
		snprintf(buf, n, "%s", v);
}

enum {
	S_METRIC, S_SCENES, S_BETTER, S_WORSE, S_EQUIV, S_INCONCL, S_COUNT,
	S_DELTA, S_CI_LO, S_CI_HI, S_DELTA_CI, S_SIGN_P, S_SIGN_P_MIN, S_SIGN_TEXT,
	S_VERDICT, S_VERDICT_TEXT, S_GATE, S_N
};

static const struct col across_cols[S_N] = {
	[S_METRIC] = { .key = "metric" },
	[S_SCENES] = { .key = "scenes", .kind = COL_INT },
	[S_BETTER] = { .key = "better", .kind = COL_INT, .flags = COL_MACHINES },
	[S_WORSE] = { .key = "worse", .kind = COL_INT, .flags = COL_MACHINES },
	[S_EQUIV] = { .key = "equivalent", .kind = COL_INT, .flags = COL_MACHINES },
	[S_INCONCL] = { .key = "inconclusive", .kind = COL_INT, .flags = COL_MACHINES },
	[S_COUNT] = { .key = "count", .title = "scene verdicts", .flags = COL_PEOPLE },
	[S_DELTA] = { .key = "delta_pct_geomean", .kind = COL_REAL, .flags = COL_MACHINES },
	[S_CI_LO] = { .key = "ci95_lo_pct", .kind = COL_REAL, .flags = COL_MACHINES },
	[S_CI_HI] = { .key = "ci95_hi_pct", .kind = COL_REAL, .flags = COL_MACHINES },
	[S_DELTA_CI] = { .key = "delta_ci", .title = "Δ% geomean [95% CI]",
			 .align = COL_RIGHT, .flags = COL_PEOPLE },
	[S_SIGN_P] = { .key = "sign_p", .kind = COL_REAL, .flags = COL_MACHINES },
	[S_SIGN_P_MIN] = { .key = "sign_p_min", .kind = COL_REAL, .flags = COL_MACHINES },
	[S_SIGN_TEXT] = { .key = "sign p", .align = COL_RIGHT, .flags = COL_PEOPLE },
	[S_VERDICT] = { .key = "verdict", .flags = COL_MACHINES },
	[S_VERDICT_TEXT] = { .key = "verdict", .title = "across scenes",
			     .flags = COL_PEOPLE },
	[S_GATE] = { .key = "gate_pct", .kind = COL_REAL, .flags = COL_MACHINES },
};

enum { P_ID, P_SCENE, P_DELTA, P_CI_LO, P_CI_HI, P_DELTA_CI, P_P, P_P_TEXT,
       P_VERDICT, P_N };

static const struct col scene_cols[P_N] = {
	[P_ID] = { .key = "experiment_id", .title = "experiment", .kind = COL_INT },
	[P_SCENE] = { .key = "scene" },
	[P_DELTA] = { .key = "delta_pct_mean", .kind = COL_REAL, .flags = COL_MACHINES },
	[P_CI_LO] = { .key = "ci95_lo_pct", .kind = COL_REAL, .flags = COL_MACHINES },
	[P_CI_HI] = { .key = "ci95_hi_pct", .kind = COL_REAL, .flags = COL_MACHINES },
	[P_DELTA_CI] = { .key = "delta_ci", .title = "Δ% mean [95% CI]",
			 .align = COL_RIGHT, .flags = COL_PEOPLE },
	[P_P] = { .key = "p_value", .kind = COL_REAL, .flags = COL_MACHINES },
	[P_P_TEXT] = { .key = "p", .align = COL_RIGHT, .flags = COL_PEOPLE },
	[P_VERDICT] = { .key = "verdict" },
};

/* A scene's label: its note, else its baseline's command. */
static const char *scene_of(const struct db_experiment *e)
{
	if (e->note && *e->note)
		return e->note;
	return e->narms ? e->arms[0].command : "?";
}

static struct rows *scene_rows(const struct summary *s, const struct summary_metric *sm)
{
	struct rows *r = rows_new("scenes", scene_cols, P_N, 0);
	for (size_t e = 0; e < s->nexp; e++) {
		const struct ab_analysis *a = &s->an[e];
		const struct ab_comparison *cp = ab_comparison_of(a, s->arm[e], sm->midx[e]);
		size_t row = rows_add(r);
		char b[64], lo[32], hi[32];
		rows_int(r, row, P_ID, a->exp->id);
		rows_str(r, row, P_SCENE, scene_of(a->exp));
		if (!cp || !cp->computable) {
			/* Not counted among the scenes (the headline says "not
			 * comparable"), so not called inconclusive either. */
			rows_str(r, row, P_VERDICT, "n/a");
			rows_text(r, row, P_DELTA_CI, "%s", cp && cp->why ? cp->why : "n/a");
			continue;
		}
		rows_num(r, row, P_DELTA, cp->p.delta_pct);
		rows_num(r, row, P_CI_LO, cp->p.ci_computable ? cp->p.ci95_lo_pct : NAN);
		rows_num(r, row, P_CI_HI, cp->p.ci_computable ? cp->p.ci95_hi_pct : NAN);
		rows_num(r, row, P_P, cp->p.p_value);
		fmt_pct(b, sizeof(b), cp->p.delta_pct);
		fmt_pct(lo, sizeof(lo), cp->p.ci95_lo_pct);
		fmt_pct(hi, sizeof(hi), cp->p.ci95_hi_pct);
		if (cp->p.ci_computable)
			rows_text(r, row, P_DELTA_CI, "%s%% [%s, %s]", b, lo, hi);
		else
			rows_text(r, row, P_DELTA_CI, "%s%%", b);
		fmt_p(b, sizeof(b), cp->p.p_value);
		rows_text(r, row, P_P_TEXT, "%s", b);
		rows_str(r, row, P_VERDICT, stats_verdict_name(cp->j.verdict));
	}
	return r;
}

static void across_row(struct rows *r, const struct summary *s,
		       const struct summary_metric *sm)
{
	size_t row = rows_add(r);
	char b[160], lo[32], hi[32];
	rows_text(r, row, S_METRIC, ab_name_machine(sm->name) ? "%s (whole machine)"
		  : "%s", sm->name);
	rows_str(r, row, S_METRIC, sm->name);
	rows_uint(r, row, S_SCENES, sm->nscenes);
	rows_uint(r, row, S_BETTER, sm->n_better);
	rows_uint(r, row, S_WORSE, sm->n_worse);
	rows_uint(r, row, S_EQUIV, sm->n_equivalent);
	rows_uint(r, row, S_INCONCL, sm->n_inconclusive);
	count_text(s, sm, b, sizeof(b));
	rows_text(r, row, S_COUNT, "%s", b);
	rows_num(r, row, S_GATE, s->gate_pct);
	if (!sm->computable) {
		rows_str(r, row, S_VERDICT, "n/a");
		rows_text(r, row, S_DELTA_CI, "n/a");
		return;
	}
	const struct stats_paired *p = &sm->across;
	rows_num(r, row, S_DELTA, p->delta_pct);
	rows_num(r, row, S_CI_LO, p->ci_computable ? p->ci95_lo_pct : NAN);
	rows_num(r, row, S_CI_HI, p->ci_computable ? p->ci95_hi_pct : NAN);
	rows_num(r, row, S_SIGN_P, sm->sign_p);
	rows_num(r, row, S_SIGN_P_MIN, sm->sign_p_min);
	fmt_pct(b, sizeof(b), p->delta_pct);
	fmt_pct(lo, sizeof(lo), p->ci95_lo_pct);
	fmt_pct(hi, sizeof(hi), p->ci95_hi_pct);
	if (p->ci_computable)
		rows_text(r, row, S_DELTA_CI, "%s%% [%s, %s]", b, lo, hi);
	else
		rows_text(r, row, S_DELTA_CI, "%s%% (one scene: no CI)", b);
	fmt_p(b, sizeof(b), sm->sign_p);
	rows_text(r, row, S_SIGN_TEXT, "%s", b);
	rows_str(r, row, S_VERDICT, stats_verdict_name(sm->j.verdict));
	verdict_across(sm, b, sizeof(b));
	rows_text(r, row, S_VERDICT_TEXT, "%s", b);
}

static bool wanted(const struct summary_metric *sm, const char *const *detail,
		   size_t ndetail)
{
	if (!detail)
		return !strcmp(sm->name, "wall_s") || !*sm->unit;	/* scores */
	for (size_t i = 0; i < ndetail; i++)
		if (!strcmp(detail[i], sm->name))
			return true;
	return false;
}

#define SUMMARY_DOC_COLS(K) \
	K(D_ARM, "arm", TEXT) K(D_BASELINE, "baseline", TEXT) \
	K(D_EXPS, "experiments", NEST) K(D_METRICS, "metrics", NEST)

static void write_json(const struct summary *s, FILE *fp)
{
	ROWS_KEYS(doc_cols, D_N, SUMMARY_DOC_COLS);
	struct rows *doc = rows_new(NULL, doc_cols, D_N, 0);
	size_t row = rows_add(doc);
	rows_str(doc, row, D_ARM, s->arm_name);
	rows_str(doc, row, D_BASELINE, s->baseline_name);
	static const struct col idc = { .key = "id", .kind = COL_INT };
	struct rows *ids = rows_new(NULL, &idc, 1, ROWS_VALUES | ROWS_FLAT);
	for (size_t e = 0; e < s->nexp; e++)
		rows_int(ids, rows_add(ids), 0, s->an[e].exp->id);
	rows_nest(doc, row, D_EXPS, ids);
	/* each metric: the across-scene keys, and its scenes */
	struct col mcols[S_N + 1];
	memcpy(mcols, across_cols, sizeof(across_cols));
	mcols[S_N] = (struct col){ .key = "scenes_detail", .kind = COL_NEST };
	struct rows *ms = rows_new(NULL, mcols, S_N + 1, 0);
	for (size_t m = 0; m < s->nmetrics; m++) {
		across_row(ms, s, &s->metrics[m]);
		rows_nest(ms, m, S_N, scene_rows(s, &s->metrics[m]));
	}
	rows_nest(doc, row, D_METRICS, ms);
	rows_write_data(doc, OUT_JSON, fp);
}

void summary_render(const struct summary *s, const char *const *detail,
		    size_t ndetail, enum out_format fmt, FILE *fp)
{
	if (fmt == OUT_JSON) {
		write_json(s, fp);
		return;
	}
	struct rows *r = rows_new("metrics", across_cols, S_N, 0);
	for (size_t m = 0; m < s->nmetrics; m++)
		across_row(r, s, &s->metrics[m]);
	if (fmt == OUT_CSV) {
		rows_write_data(r, OUT_CSV, fp);
		return;
	}
	bool md = fmt == OUT_MARKDOWN;
	if (md)
		fprintf(fp, "**prof summary**: `%s` against `%s` over %zu scenes "
			"(experiments", s->arm_name, s->baseline_name, s->nexp);
	else
		fprintf(fp, " prof summary: %s against %s over %zu scenes (experiments",
			s->arm_name, s->baseline_name, s->nexp);
	for (size_t e = 0; e < s->nexp; e++)
		fprintf(fp, "%s%lld", e ? ", " : " ", (long long)s->an[e].exp->id);
	fputs(md ? ")\n\n" : ")\n\n", fp);
	/* The headline: the verdict across scenes first, with its CI, then
	 * what the scenes said one by one (a line pasted alone must not
	 * read stronger than the table). */
	for (size_t m = 0; m < s->nmetrics; m++) {
		const struct summary_metric *sm = &s->metrics[m];
		if (!wanted(sm, detail, ndetail))
			continue;
		char b[160], v[128], d[32], lo[32], hi[32];
		count_text(s, sm, b, sizeof(b));
		verdict_across(sm, v, sizeof(v));
		/* every process's, other tenants' too: said where it is pasted */
		const char *whole = ab_name_machine(sm->name) ? " (whole machine)" : "";
		if (!sm->computable) {
			fprintf(fp, md ? "- **%s**%s across scenes: n/a; %s\n"
				: " %s%s across scenes: n/a; %s\n", sm->name, whole, b);
			continue;
		}
		fmt_pct(d, sizeof(d), sm->across.delta_pct);
		fmt_pct(lo, sizeof(lo), sm->across.ci_computable ? sm->across.ci95_lo_pct : NAN);
		fmt_pct(hi, sizeof(hi), sm->across.ci_computable ? sm->across.ci95_hi_pct : NAN);
		fprintf(fp, md ? "- **%s**%s across scenes: %s, %s%% geometric mean "
			"[95%% CI %s, %s], sign p %.3f; scene by scene: %s\n"
			: " %s%s across scenes: %s, %s%% geometric mean [95%% CI %s, %s], "
			"sign p %.3f; scene by scene: %s\n", sm->name, whole, v, d, lo, hi,
			sm->sign_p, b);
	}
	fputc('\n', fp);
	if (!md)
		fprintf(fp, " across scenes\n");
	rows_write(r, md ? OUT_MARKDOWN : OUT_TABLE, fp, md ? 0 : 3);
	rows_free(r);
	fputc('\n', fp);
	for (size_t m = 0; m < s->nmetrics; m++) {
		const struct summary_metric *sm = &s->metrics[m];
		if (!wanted(sm, detail, ndetail))
			continue;
		fprintf(fp, md ? "%s per scene (%s%s%s is better):\n\n"
			: " %s per scene (%s%s%s is better)\n", sm->name,
			unit_shown(sm->unit, NULL),
			*sm->unit ? "; " : "", sm->higher_is_better ? "higher" : "lower");
		struct rows *q = scene_rows(s, sm);
		rows_write(q, md ? OUT_MARKDOWN : OUT_TABLE, fp, md ? 0 : 3);
		rows_free(q);
		fputc('\n', fp);
	}
	fprintf(fp, "%seach scene is one unit: the geometric mean effect's 95%% CI is "
		"Student's t on the per-scene mean log-ratios, p is a two-sided sign "
		"test on their directions; scene verdicts are each experiment's own; "
		"gate across scenes ±%.1f%% (%s)%s\n", md ? "*" : " ", s->gate_pct,
		s->gate_source, md ? "*" : "");
}
