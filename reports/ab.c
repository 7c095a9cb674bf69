/*
 * ab (reports): per-metric statistics of an A/B experiment and their
 * tables; see ab.h for which runs count and how rounds pair.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "reports/ab.h"

enum msrc { M_WALL, M_CPU, M_CORES, M_EVENT, M_PKI, M_PER_CPU_MS, M_IPC, M_SCORE,
	    M_PER };

/* Where a metric's value comes from in a run. */
struct msource {
	enum msrc kind;
	char *key;		/* event or score name */
};

static double event_of(const struct db_exp_run *r, const char *name, bool *supported)
{
	for (size_t i = 0; i < r->nevents; i++) {
		if (!strcmp(r->ev_names[i], name)) {
			if (supported)
				*supported = r->ev_supported[i];
			return r->ev_values[i];
		}
	}
	if (supported)
		*supported = false;
	return NAN;
}

static double score_of(const struct db_exp_run *r, const char *name)
{
	for (size_t i = 0; i < r->nscores; i++)
		if (!strcmp(r->scores[i].name, name))
			return r->scores[i].found ? r->scores[i].value : NAN;
	return NAN;
}

static double value_of(const struct db_exp_run *r, const struct msource *m)
{
	double cpu = r->user_s + r->sys_s;
	switch (m->kind) {
	case M_WALL:
		return r->wall_s;
	case M_CPU:
		return cpu;
	case M_CORES:
		return r->wall_s > 0 ? cpu / r->wall_s : NAN;
	case M_EVENT:
		return event_of(r, m->key, NULL);
	case M_PKI: {
		double ins = event_of(r, "instructions", NULL);
		double v = event_of(r, m->key, NULL);
		return ins > 0 ? 1000.0 * v / ins : NAN;
	}
	case M_PER_CPU_MS: {
		double v = event_of(r, m->key, NULL);
		return cpu > 0 ? v / (cpu * 1000.0) : NAN;
	}
	case M_IPC: {
		double ins = event_of(r, "instructions", NULL);
		double cyc = event_of(r, "cycles", NULL);
		return cyc > 0 ? ins / cyc : NAN;
	}
	case M_SCORE:
		return score_of(r, m->key);
	case M_PER: {
		double s = score_of(r, m->key);
		return s > 0 ? 1000.0 * cpu / s : NAN;
	}
	}
	return NAN;
}

static bool run_counts(const struct db_exp_run *r)
{
	return !r->warmup && r->exit_status == 0 && !r->interrupted;
}

static void warn(struct ab_analysis *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct ab_analysis *a, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	char **v = realloc(a->warnings, (a->nwarnings + 1) * sizeof(char *));
	if (!v)
		abort();
	a->warnings = v;
	v[a->nwarnings++] = s;
}

static bool is_miss_event(const char *name)
{
	return strcasestr(name, "miss") != NULL;
}

/* The score definitions kept in the experiment's settings: "NAME=RE[:higher]". */
static void add_metric(struct ab_metric **ms, struct msource **src, size_t *n,
		       const char *name, enum msrc kind, const char *key,
		       bool higher, bool supported, const char *unit)
{
	*ms = realloc(*ms, (*n + 1) * sizeof(**ms));
	*src = realloc(*src, (*n + 1) * sizeof(**src));
	if (!*ms || !*src)
		abort();
	struct ab_metric *m = &(*ms)[*n];
	memset(m, 0, sizeof(*m));
	m->name = strdup(name);
	m->higher_is_better = higher;
	m->supported = supported;
	m->unit = strdup(unit);
	(*src)[*n].kind = kind;
	(*src)[*n].key = key ? strdup(key) : NULL;
	(*n)++;
}

static size_t build_metrics(const struct db_experiment *e, struct ab_metric **ms,
			    struct msource **src)
{
	size_t n = 0;
	*ms = NULL;
	*src = NULL;
	add_metric(ms, src, &n, "wall_s", M_WALL, NULL, false, true, "s");
	add_metric(ms, src, &n, "cpu_s", M_CPU, NULL, false, true, "s");
	add_metric(ms, src, &n, "cores", M_CORES, NULL, false, true, "cores");
	/* Events, in the order of the first run that has them. */
	const struct db_exp_run *first = NULL;
	for (size_t i = 0; i < e->nruns && !first; i++)
		if (e->runs[i].nevents)
			first = &e->runs[i];
	bool have_ins = false, have_cyc = false;
	for (size_t k = 0; first && k < first->nevents; k++) {
		bool sup = false;
		for (size_t i = 0; i < e->nruns; i++) {
			bool s;
			event_of(&e->runs[i], first->ev_names[k], &s);
			sup = sup || s;
		}
		bool time = !strcmp(first->ev_names[k], "task-clock") ||
			    !strcmp(first->ev_names[k], "cpu-clock");
		add_metric(ms, src, &n, first->ev_names[k], M_EVENT, first->ev_names[k],
			   false, sup, time ? "ns" : "count");
		if (!strcmp(first->ev_names[k], "instructions") && sup)
			have_ins = true;
		if (!strcmp(first->ev_names[k], "cycles") && sup)
			have_cyc = true;
	}
	/* Misses per thousand instructions where instructions counted, else
	 * per CPU millisecond; IPC where cycles counted too. */
	for (size_t k = 0; first && k < first->nevents; k++) {
		if (!is_miss_event(first->ev_names[k]))
			continue;
		char name[128];
		snprintf(name, sizeof(name), "%s.%s", first->ev_names[k],
			 have_ins ? "pki" : "per_cpu_ms");
		bool sup;
		event_of(first, first->ev_names[k], &sup);
		add_metric(ms, src, &n, name, have_ins ? M_PKI : M_PER_CPU_MS,
			   first->ev_names[k], false, sup,
			   have_ins ? "per kinst" : "per CPU ms");
	}
	if (have_ins && have_cyc)
		add_metric(ms, src, &n, "ipc", M_IPC, NULL, true, true, "inst/cycle");
	for (size_t i = 0; i < e->nsettings; i++) {
		if (strcmp(e->settings[i].key, "score") || !e->settings[i].value)
			continue;
		const char *v = e->settings[i].value;
		const char *eq = strchr(v, '=');
		if (!eq)
			continue;
		char *name = strndup(v, (size_t)(eq - v));
		size_t len = strlen(v);
		bool higher = len > 7 && !strcmp(v + len - 7, ":higher");
		add_metric(ms, src, &n, name, M_SCORE, name, higher, true, "");
		free(name);
	}
	for (size_t i = 0; i < e->nsettings; i++) {
		if (strcmp(e->settings[i].key, "per") || !e->settings[i].value)
			continue;
		char name[128];
		snprintf(name, sizeof(name), "cpu_ms_per_%s", e->settings[i].value);
		add_metric(ms, src, &n, name, M_PER, e->settings[i].value, false, true, "ms");
	}
	return n;
}

static void free_sources(struct msource *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(src[i].key);
	free(src);
}

/* The counted run of arm a in round r, or NULL. */
static const struct db_exp_run *run_at(const struct db_experiment *e, size_t a, int r)
{
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *x = &e->runs[i];
		if ((size_t)x->arm == a && x->round == r && !x->warmup)
			return x;
	}
	return NULL;
}

/* Paired values of arm a against the baseline for metric m. */
static size_t pairs(const struct db_experiment *e, const struct msource *m,
		    size_t a, double *base, double *arm, unsigned *bs,
		    unsigned *as, double *rx)
{
	size_t n = 0;
	for (int r = 0; r < e->rounds; r++) {
		const struct db_exp_run *x = run_at(e, 0, r), *y = run_at(e, a, r);
		if (!x || !y || !run_counts(x) || !run_counts(y))
			continue;
		double vb = value_of(x, m), va = value_of(y, m);
		if (!isfinite(vb) || !isfinite(va))
			continue;
		base[n] = vb;
		arm[n] = va;
		bs[n] = (unsigned)x->position;
		as[n] = (unsigned)y->position;
		rx[n] = r;
		n++;
	}
	return n;
}

static void aa_gate(const struct db_experiment *aa, const struct msource *m,
		    double *gate)
{
	size_t cap = aa->nruns + 1;
	double *b = calloc(cap, sizeof(double)), *x = calloc(cap, sizeof(double));
	double *rx = calloc(cap, sizeof(double));
	unsigned *bs = calloc(cap, sizeof(unsigned)), *xs = calloc(cap, sizeof(unsigned));
	size_t n = aa->narms >= 2 ? pairs(aa, m, 1, b, x, bs, xs, rx) : 0;
	double g;
	if (n >= 2 && stats_aa_gate(b, x, n, &g, NULL) == 0 && isfinite(g))
		*gate = g;
	free(b);
	free(x);
	free(rx);
	free(bs);
	free(xs);
}

int ab_analyze(const struct db_experiment *e, const struct ab_gate_rule *gate,
	       struct ab_analysis *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	out->exp = e;
	out->narms = e->narms;
	if (e->narms < 1) {
		if (cause && asprintf(cause, "experiment %lld has no arms",
				      (long long)e->id) < 0)
			*cause = NULL;
		return -EINVAL;
	}
	struct msource *src;
	out->nmetrics = build_metrics(e, &out->metrics, &src);
	out->cells = calloc(out->narms * out->nmetrics, sizeof(*out->cells));
	out->cmp = calloc((out->narms > 1 ? out->narms - 1 : 1) * out->nmetrics,
			  sizeof(*out->cmp));
	if (!out->cells || !out->cmp)
		abort();

	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *r = &e->runs[i];
		const char *arm = (size_t)r->arm < e->narms ? e->arms[r->arm].name : "?";
		if (r->warmup) {
			out->warmup_runs++;
		} else if (r->interrupted) {
			out->interrupted_runs++;
			warn(out, "run %lld (arm %s, round %d) was interrupted; left out",
			     (long long)r->run_id, arm, r->round + 1);
		} else if (r->exit_status != 0) {
			out->failed_runs++;
			warn(out, "run %lld (arm %s, round %d) exited with status %d; left "
			     "out of the statistics", (long long)r->run_id, arm,
			     r->round + 1, r->exit_status);
		} else {
			for (size_t k = 0; k < r->nscores; k++)
				if (!r->scores[k].found)
					warn(out, "run %lld (arm %s, round %d) printed no '%s'; "
					     "left out of that metric", (long long)r->run_id,
					     arm, r->round + 1, r->scores[k].name);
		}
	}
	for (int r = 0; r < e->rounds; r++) {
		bool all = true;
		for (size_t a = 0; a < e->narms; a++) {
			const struct db_exp_run *x = run_at(e, a, r);
			all = all && x && run_counts(x);
		}
		out->counted_rounds += all;
	}

	for (size_t m = 0; m < out->nmetrics; m++) {
		struct ab_metric *met = &out->metrics[m];
		met->gate_pct = gate ? gate->default_pct : 1.0;
		met->gate_source = strdup("default");
		if (gate && !isnan(gate->given_pct)) {
			met->gate_pct = gate->given_pct;
			free(met->gate_source);
			met->gate_source = strdup("--gate");
		} else if (gate && gate->aa) {
			double g = NAN;
			aa_gate(gate->aa, &src[m], &g);
			if (isfinite(g)) {
				met->gate_pct = g;
				free(met->gate_source);
				if (asprintf(&met->gate_source, "A/A experiment %lld",
					     (long long)gate->aa->id) < 0)
					met->gate_source = NULL;
			}
		}
		for (size_t a = 0; a < out->narms; a++) {
			struct ab_cell *c = &out->cells[a * out->nmetrics + m];
			c->values = calloc(e->nruns + 1, sizeof(double));
			c->run_ids = calloc(e->nruns + 1, sizeof(int64_t));
			for (size_t i = 0; i < e->nruns; i++) {
				const struct db_exp_run *r = &e->runs[i];
				if ((size_t)r->arm != a || !run_counts(r))
					continue;
				double v = value_of(r, &src[m]);
				if (!isfinite(v))
					continue;
				c->values[c->n] = v;
				c->run_ids[c->n] = r->run_id;
				c->n++;
			}
			if (c->n)
				stats_summarize(c->values, c->n, &c->sum);
		}
		for (size_t a = 1; a < out->narms; a++) {
			struct ab_comparison *cp = &out->cmp[(a - 1) * out->nmetrics + m];
			cp->arm = a;
			cp->metric = m;
			if (!met->supported) {
				cp->why = strdup("not supported on this machine");
				continue;
			}
			size_t cap = (size_t)e->rounds + 1;
			double *b = calloc(cap, sizeof(double)), *x = calloc(cap, sizeof(double));
			double *rx = calloc(cap, sizeof(double));
			unsigned *bs = calloc(cap, sizeof(unsigned)), *xs = calloc(cap, sizeof(unsigned));
			size_t n = pairs(e, &src[m], a, b, x, bs, xs, rx);
			char *why = NULL;
			if (n == 0) {
				cp->why = strdup("no round has both arms");
			} else if (stats_paired_logratio(b, x, n, &cp->p, &why) == 0) {
				cp->computable = true;
				stats_position_effect(b, x, bs, xs, n, &cp->pos, NULL);
				stats_baseline_trend(b, rx, n, &cp->trend, NULL);
				stats_judge(&cp->p, &cp->pos, &cp->trend, met->gate_pct,
					    met->higher_is_better, &cp->j);
				if (cp->j.position_large)
					warn(out, "%s, %s: the slot in the round moves it by %+.1f%%, "
					     "large next to the effect (%+.1f%%): order matters here",
					     met->name, e->arms[a].name, cp->pos.pct, cp->p.delta_pct);
				if (cp->j.trend_large)
					warn(out, "%s: the baseline drifted %+.1f%% from the first "
					     "round to the last, large next to the effect (%+.1f%%)",
					     met->name, cp->trend.pct_span, cp->p.delta_pct);
			} else {
				cp->why = why ? why : strdup("cannot compare");
				why = NULL;
			}
			free(why);
			free(b);
			free(x);
			free(rx);
			free(bs);
			free(xs);
		}
	}
	free_sources(src, out->nmetrics);
	return 0;
}

void ab_analysis_release(struct ab_analysis *a)
{
	if (!a)
		return;
	for (size_t m = 0; m < a->nmetrics; m++) {
		free(a->metrics[m].name);
		free(a->metrics[m].unit);
		free(a->metrics[m].gate_source);
	}
	free(a->metrics);
	for (size_t i = 0; i < a->narms * a->nmetrics; i++) {
		free(a->cells[i].values);
		free(a->cells[i].run_ids);
	}
	free(a->cells);
	size_t ncmp = (a->narms > 1 ? a->narms - 1 : 0) * a->nmetrics;
	for (size_t i = 0; i < ncmp; i++)
		free(a->cmp[i].why);
	free(a->cmp);
	for (size_t i = 0; i < a->nwarnings; i++)
		free(a->warnings[i]);
	free(a->warnings);
	memset(a, 0, sizeof(*a));
}

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

static void fmt_pct(char *buf, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%+.1f", v);
}

static void fmt_p(char *buf, size_t n, double p)
{
	if (!isfinite(p))
		snprintf(buf, n, "n/a");
	else if (p < 0.001)
		snprintf(buf, n, "<0.001");
	else
		snprintf(buf, n, "%.3f", p);
}

static const char *order_name(const char *o)
{
	if (!o)
		return "?";
	if (!strcmp(o, "abba"))
		return "ABBA";
	return o;
}

static const struct ab_cell *cell(const struct ab_analysis *a, size_t arm, size_t m)
{
	return &a->cells[arm * a->nmetrics + m];
}

static const struct ab_comparison *cmp_of(const struct ab_analysis *a, size_t arm,
					  size_t m)
{
	return arm ? &a->cmp[(arm - 1) * a->nmetrics + m] : NULL;
}

static void verdict_text(const struct ab_comparison *c, char *buf, size_t n)
{
	if (!c->computable) {
		snprintf(buf, n, "n/a");
		return;
	}
	const char *v = stats_verdict_name(c->j.verdict);
	if (c->j.verdict == VERDICT_INCONCLUSIVE && c->j.rounds_needed > 0)
		snprintf(buf, n, "%s (~%ld rounds)", v, c->j.rounds_needed);
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
	fputc('\n', fp);
}

static void fill_row(struct rtable *t, size_t row, const struct ab_analysis *a,
		     size_t arm, size_t m, size_t first_col)
{
	const struct ab_cell *c = cell(a, arm, m);
	char b1[64], b2[64], b3[200], b4[32];
	size_t col = first_col;
	rtable_set(t, row, col++, "%s", a->exp->arms[arm].name);
	rtable_set(t, row, col++, "%zu", c->n);
	if (c->n) {
		fmt_sig(b1, sizeof(b1), c->sum.median);
		rtable_set(t, row, col++, "%s", b1);
		fmt_sig(b1, sizeof(b1), c->sum.mean);
		if (c->n >= 2) {
			fmt_sig(b2, sizeof(b2), c->sum.sd);
			rtable_set(t, row, col++, "%s ± %s", b1, b2);
		} else {
			rtable_set(t, row, col++, "%s", b1);
		}
	} else {
		rtable_set(t, row, col++, "-");
		rtable_set(t, row, col++, "-");
	}
	const struct ab_comparison *cp = cmp_of(a, arm, m);
	if (!cp) {
		rtable_set(t, row, col++, "baseline");
		rtable_set2(t, row, col++, "", NULL);
		rtable_set2(t, row, col++, "", NULL);
		return;
	}
	if (!cp->computable) {
		rtable_set(t, row, col++, "%s", cp->why ? cp->why : "n/a");
		rtable_set2(t, row, col++, "", NULL);
		rtable_set2(t, row, col++, "", NULL);
		return;
	}
	fmt_pct(b1, sizeof(b1), cp->p.delta_pct);
	if (cp->p.ci_computable) {
		fmt_pct(b2, sizeof(b2), cp->p.ci95_lo_pct);
		char hi[32];
		fmt_pct(hi, sizeof(hi), cp->p.ci95_hi_pct);
		snprintf(b3, sizeof(b3), "%s%% [%s, %s]", b1, b2, hi);
	} else {
		snprintf(b3, sizeof(b3), "%s%% (no CI at n = 1)", b1);
	}
	rtable_set(t, row, col++, "%s", b3);
	fmt_p(b4, sizeof(b4), cp->p.p_value);
	rtable_set(t, row, col++, "%s", b4);
	verdict_text(cp, b3, sizeof(b3));
	rtable_set(t, row, col++, "%s", b3);
}

static void write_terminal(const struct ab_analysis *a, FILE *fp)
{
	write_header(a, fp, false);
	static const char *const titles[] = {
		"arm", ">n", ">median", ">mean ± sd", ">Δ% [95% CI]", ">p", "verdict",
	};
	for (size_t m = 0; m < a->nmetrics; m++) {
		const struct ab_metric *met = &a->metrics[m];
		if (!met->supported) {
			fprintf(fp, " %s: not supported on this machine (not counted, not zero)\n\n",
				met->name);
			continue;
		}
		fprintf(fp, " %s (%s%s%s is better)\n", met->name, met->unit,
			*met->unit ? "; " : "", met->higher_is_better ? "higher" : "lower");
		struct rtable t;
		rtable_init(&t, 7, titles);
		for (size_t arm = 0; arm < a->narms; arm++)
			fill_row(&t, rtable_add_row(&t), a, arm, m, 0);
		rtable_write(&t, OUT_TABLE, fp, 3);
		rtable_release(&t);
		fputc('\n', fp);
	}
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
	write_header(a, fp, true);
	static const char *const titles[] = {
		"metric", "arm", ">n", ">median", ">mean ± sd", ">Δ% [95% CI]", ">p",
		"verdict",
	};
	struct rtable t;
	rtable_init(&t, 8, titles);
	for (size_t m = 0; m < a->nmetrics; m++) {
		const struct ab_metric *met = &a->metrics[m];
		if (!met->supported) {
			size_t r = rtable_add_row(&t);
			rtable_set(&t, r, 0, "%s", met->name);
			rtable_set(&t, r, 1, "not supported on this machine");
			continue;
		}
		for (size_t arm = 0; arm < a->narms; arm++) {
			size_t r = rtable_add_row(&t);
			rtable_set(&t, r, 0, "%s%s", arm ? "" : met->name,
				   arm ? "" : (met->higher_is_better ? " ↑" : " ↓"));
			fill_row(&t, r, a, arm, m, 1);
		}
	}
	rtable_write(&t, OUT_MARKDOWN, fp, 0);
	rtable_release(&t);
	fputs("\n*", fp);
	design_line(a, fp);
	fputs("; ↓ lower is better, ↑ higher is better*\n", fp);
	for (size_t i = 0; i < a->nwarnings; i++)
		fprintf(fp, "\n> warning: %s", a->warnings[i]);
	if (a->nwarnings)
		fputc('\n', fp);
}

static void csv_num(FILE *fp, double v)
{
	char buf[64];
	fmt_raw(buf, sizeof(buf), v);
	fputs(buf, fp);
}

static void write_csv(const struct ab_analysis *a, FILE *fp)
{
	fputs("metric,arm,baseline,n,median,mean,sd,se,min,max,delta_pct_mean,"
	      "delta_pct_median,ci95_lo_pct,ci95_hi_pct,t_mult95,p_value,p_min,"
	      "verdict,gate_pct,rounds_needed\n", fp);
	for (size_t m = 0; m < a->nmetrics; m++) {
		for (size_t arm = 0; arm < a->narms; arm++) {
			const struct ab_cell *c = cell(a, arm, m);
			const struct ab_comparison *cp = cmp_of(a, arm, m);
			csv_field(fp, a->metrics[m].name);
			fputc(',', fp);
			csv_field(fp, a->exp->arms[arm].name);
			fprintf(fp, ",%s,%zu,", a->exp->arms[0].name, c->n);
			double sv[6] = { NAN, NAN, NAN, NAN, NAN, NAN };
			if (c->n)
				memcpy(sv, (double[]){ c->sum.median, c->sum.mean, c->sum.sd,
					c->sum.se, c->sum.min, c->sum.max }, sizeof(sv));
			for (int k = 0; k < 6; k++) {
				csv_num(fp, sv[k]);
				fputc(',', fp);
			}
			if (cp && cp->computable) {
				double cv[7] = { cp->p.delta_pct, cp->p.delta_pct_median,
						 cp->p.ci95_lo_pct, cp->p.ci95_hi_pct,
						 cp->p.t_mult95, cp->p.p_value, cp->p.p_min };
				for (int k = 0; k < 7; k++) {
					csv_num(fp, cv[k]);
					fputc(',', fp);
				}
				fprintf(fp, "%s,", stats_verdict_name(cp->j.verdict));
				csv_num(fp, a->metrics[m].gate_pct);
				fprintf(fp, ",%ld\n", cp->j.rounds_needed);
			} else {
				fputs(",,,,,,,", fp);
				fprintf(fp, "%s,", cp ? "n/a" : "baseline");
				csv_num(fp, a->metrics[m].gate_pct);
				fputs(",\n", fp);
			}
		}
	}
}

static void write_json(const struct ab_analysis *a, FILE *fp)
{
	const struct db_experiment *e = a->exp;
	struct jw w;
	jw_init(&w, fp, 2);
	jw_obj_begin(&w);
	jw_key(&w, "experiment_id");
	jw_int(&w, e->id);
	jw_key(&w, "status");
	jw_str(&w, e->status);
	jw_key(&w, "aa");
	jw_bool(&w, e->aa);
	jw_key(&w, "order");
	jw_str(&w, e->order);
	jw_key(&w, "seed");
	jw_uint(&w, e->seed);
	jw_key(&w, "rounds_planned");
	jw_int(&w, e->rounds);
	jw_key(&w, "rounds_counted");
	jw_uint(&w, a->counted_rounds);
	jw_key(&w, "warmup");
	jw_int(&w, e->warmup);
	jw_key(&w, "host");
	jw_str(&w, e->hostname);
	jw_key(&w, "cpu_model");
	jw_str(&w, e->cpu_model);
	/* Every run in the order it ran, warm-ups and failures included. */
	jw_key(&w, "schedule");
	jw_arr_begin(&w);
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *r = &e->runs[i];
		jw_obj_begin_flat(&w);
		jw_key(&w, "run_id");
		jw_int(&w, r->run_id);
		jw_key(&w, "arm");
		jw_str(&w, (size_t)r->arm < e->narms ? e->arms[r->arm].name : NULL);
		jw_key(&w, "round");
		jw_int(&w, r->round);
		jw_key(&w, "position");
		jw_int(&w, r->position);
		jw_key(&w, "warmup");
		jw_bool(&w, r->warmup);
		jw_key(&w, "exit_status");
		jw_int(&w, r->exit_status);
		jw_key(&w, "counted");
		jw_bool(&w, run_counts(r));
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "arms");
	jw_arr_begin(&w);
	for (size_t arm = 0; arm < a->narms; arm++) {
		jw_obj_begin(&w);
		jw_key(&w, "name");
		jw_str(&w, e->arms[arm].name);
		jw_key(&w, "command");
		jw_str(&w, e->arms[arm].command);
		jw_key(&w, "runs");
		jw_arr_begin_flat(&w);
		/* The counted run ids, in order (wall_s counts every good run). */
		const struct ab_cell *c0 = cell(a, arm, 0);
		for (size_t i = 0; i < c0->n; i++)
			jw_int(&w, c0->run_ids[i]);
		jw_arr_end(&w);
		jw_key(&w, "metrics");
		jw_obj_begin(&w);
		for (size_t m = 0; m < a->nmetrics; m++) {
			const struct ab_cell *c = cell(a, arm, m);
			jw_key(&w, a->metrics[m].name);
			if (!a->metrics[m].supported) {
				jw_null(&w);
				continue;
			}
			jw_obj_begin(&w);
			jw_key(&w, "n");
			jw_uint(&w, c->n);
			jw_key(&w, "mean");
			jw_num(&w, c->n ? c->sum.mean : NAN);
			jw_key(&w, "median");
			jw_num(&w, c->n ? c->sum.median : NAN);
			jw_key(&w, "sd");
			jw_num(&w, c->n ? c->sum.sd : NAN);
			jw_key(&w, "se");
			jw_num(&w, c->n ? c->sum.se : NAN);
			jw_key(&w, "min");
			jw_num(&w, c->n ? c->sum.min : NAN);
			jw_key(&w, "max");
			jw_num(&w, c->n ? c->sum.max : NAN);
			jw_key(&w, "values");
			jw_arr_begin_flat(&w);
			for (size_t i = 0; i < c->n; i++)
				jw_num(&w, c->values[i]);
			jw_arr_end(&w);
			jw_obj_end(&w);
		}
		jw_obj_end(&w);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "comparisons");
	jw_arr_begin(&w);
	for (size_t arm = 1; arm < a->narms; arm++) {
		for (size_t m = 0; m < a->nmetrics; m++) {
			const struct ab_comparison *cp = cmp_of(a, arm, m);
			jw_obj_begin(&w);
			jw_key(&w, "arm");
			jw_str(&w, e->arms[arm].name);
			jw_key(&w, "baseline");
			jw_str(&w, e->arms[0].name);
			jw_key(&w, "metric");
			jw_str(&w, a->metrics[m].name);
			jw_key(&w, "higher_is_better");
			jw_bool(&w, a->metrics[m].higher_is_better);
			jw_key(&w, "n");
			jw_uint(&w, cp->computable ? cp->p.n : 0);
			jw_key(&w, "delta_pct_mean");
			jw_num(&w, cp->computable ? cp->p.delta_pct : NAN);
			jw_key(&w, "delta_pct_median");
			jw_num(&w, cp->computable ? cp->p.delta_pct_median : NAN);
			jw_key(&w, "ci95_pct");
			if (cp->computable && cp->p.ci_computable) {
				jw_arr_begin_flat(&w);
				jw_num(&w, cp->p.ci95_lo_pct);
				jw_num(&w, cp->p.ci95_hi_pct);
				jw_arr_end(&w);
			} else {
				jw_null(&w);
			}
			jw_key(&w, "t_mult95");
			jw_num(&w, cp->computable ? cp->p.t_mult95 : NAN);
			jw_key(&w, "p_value");
			jw_num(&w, cp->computable ? cp->p.p_value : NAN);
			jw_key(&w, "p_min");
			jw_num(&w, cp->computable ? cp->p.p_min : NAN);
			jw_key(&w, "signs_agree");
			if (cp->computable)
				jw_bool(&w, cp->p.signs_agree);
			else
				jw_null(&w);
			jw_key(&w, "rounds_favouring_arm");
			jw_uint(&w, cp->computable ? cp->j.n_favour_arm : 0);
			jw_key(&w, "rounds_favouring_baseline");
			jw_uint(&w, cp->computable ? cp->j.n_favour_base : 0);
			jw_key(&w, "gate_pct");
			jw_num(&w, a->metrics[m].gate_pct);
			jw_key(&w, "gate_source");
			jw_str(&w, a->metrics[m].gate_source);
			jw_key(&w, "verdict");
			jw_str(&w, cp->computable ? stats_verdict_name(cp->j.verdict)
					: "inconclusive");
			jw_key(&w, "rounds_needed");
			if (cp->computable && cp->j.rounds_needed > 0)
				jw_int(&w, cp->j.rounds_needed);
			else
				jw_null(&w);
			if (!cp->computable) {
				jw_key(&w, "why");
				jw_str(&w, cp->why);
			} else {
				jw_key(&w, "position_effect_pct");
				jw_num(&w, cp->pos.computable ? cp->pos.pct : NAN);
				jw_key(&w, "baseline_drift_pct");
				jw_num(&w, cp->trend.computable ? cp->trend.pct_span : NAN);
			}
			jw_obj_end(&w);
		}
	}
	jw_arr_end(&w);
	jw_key(&w, "warnings");
	jw_arr_begin(&w);
	for (size_t i = 0; i < a->nwarnings; i++)
		jw_str(&w, a->warnings[i]);
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_end(&w);
}

void ab_render(const struct ab_analysis *a, enum out_format fmt, FILE *fp)
{
	switch (fmt) {
	case OUT_JSON:
		write_json(a, fp);
		break;
	case OUT_CSV:
		write_csv(a, fp);
		break;
	case OUT_MARKDOWN:
		write_markdown(a, fp);
		break;
	default:
		write_terminal(a, fp);
		break;
	}
}

/* ---- two single runs ---- */

/* A run seen as an experiment run, so the same metric code reads it. */
static void as_exp_run(const struct db_run *r, struct db_exp_run *x)
{
	memset(x, 0, sizeof(*x));
	x->run_id = r->id;
	x->exit_status = r->exit_status;
	x->wall_s = r->wall_s;
	x->user_s = r->user_s;
	x->sys_s = r->sys_s;
	x->nevents = r->nevents;
	x->ev_names = calloc(r->nevents + 1, sizeof(char *));
	x->ev_supported = calloc(r->nevents + 1, sizeof(bool));
	x->ev_values = calloc(r->nevents + 1, sizeof(double));
	for (size_t i = 0; i < r->nevents; i++) {
		x->ev_names[i] = r->events[i].name;
		x->ev_supported[i] = r->events[i].supported;
		double v;
		enum db_count_state s = db_count_scaled(&r->events[i].total, &v);
		x->ev_values[i] = r->events[i].supported &&
				  (s == COUNT_OK || s == COUNT_SCALED) ? v : NAN;
	}
}

int ab_pair_of_runs(const struct db_run *ra, const struct db_run *rb,
		    struct ab_pair *out)
{
	struct db_exp_run x[2];
	as_exp_run(ra, &x[0]);
	as_exp_run(rb, &x[1]);
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	e.runs = x;
	e.nruns = 2;
	struct msource *src;
	memset(out, 0, sizeof(*out));
	out->n = build_metrics(&e, &out->metrics, &src);
	out->a = calloc(out->n + 1, sizeof(double));
	out->b = calloc(out->n + 1, sizeof(double));
	for (size_t m = 0; m < out->n; m++) {
		out->a[m] = value_of(&x[0], &src[m]);
		out->b[m] = value_of(&x[1], &src[m]);
	}
	free_sources(src, out->n);
	for (int i = 0; i < 2; i++) {
		free(x[i].ev_names);
		free(x[i].ev_supported);
		free(x[i].ev_values);
	}
	return 0;
}

void ab_pair_release(struct ab_pair *p)
{
	for (size_t m = 0; m < p->n; m++) {
		free(p->metrics[m].name);
		free(p->metrics[m].unit);
		free(p->metrics[m].gate_source);
	}
	free(p->metrics);
	free(p->a);
	free(p->b);
	memset(p, 0, sizeof(*p));
}

void ab_render_runs(const struct db_run *ra, const struct db_run *rb,
		    enum out_format fmt, FILE *fp)
{
	struct ab_pair pr;
	ab_pair_of_runs(ra, rb, &pr);
	char ta[32], tb[32];
	snprintf(ta, sizeof(ta), ">run %lld", (long long)ra->id);
	snprintf(tb, sizeof(tb), ">run %lld", (long long)rb->id);
	const char *titles[] = { "metric", ta, tb, ">Δ%" };
	struct rtable t;
	rtable_init(&t, 4, titles);
	struct jw w;
	if (fmt == OUT_JSON) {
		jw_init(&w, fp, 2);
		jw_obj_begin(&w);
		jw_key(&w, "runs");
		jw_arr_begin_flat(&w);
		jw_int(&w, ra->id);
		jw_int(&w, rb->id);
		jw_arr_end(&w);
		jw_key(&w, "note");
		jw_str(&w, "one run each: no noise estimate");
		jw_key(&w, "metrics");
		jw_arr_begin(&w);
	}
	for (size_t m = 0; m < pr.n; m++) {
		double va = pr.a[m], vb = pr.b[m];
		double d = isfinite(va) && isfinite(vb) && va > 0 ? 100.0 * (vb / va - 1)
			   : NAN;
		if (fmt == OUT_JSON) {
			jw_obj_begin(&w);
			jw_key(&w, "metric");
			jw_str(&w, pr.metrics[m].name);
			jw_key(&w, "a");
			jw_num(&w, va);
			jw_key(&w, "b");
			jw_num(&w, vb);
			jw_key(&w, "delta_pct");
			jw_num(&w, d);
			jw_obj_end(&w);
			continue;
		}
		size_t r = rtable_add_row(&t);
		char b1[64], b2[64], b3[32], r1[64], r2[64], r3[32];
		rtable_set(&t, r, 0, "%s", pr.metrics[m].name);
		if (!pr.metrics[m].supported) {
			rtable_set(&t, r, 1, "not supported");
			rtable_set(&t, r, 2, "not supported");
			continue;
		}
		fmt_sig(b1, sizeof(b1), va);
		fmt_sig(b2, sizeof(b2), vb);
		fmt_pct(b3, sizeof(b3), d);
		fmt_raw(r1, sizeof(r1), va);
		fmt_raw(r2, sizeof(r2), vb);
		fmt_raw(r3, sizeof(r3), d);
		rtable_set2(&t, r, 1, b1, r1);
		rtable_set2(&t, r, 2, b2, r2);
		rtable_set2(&t, r, 3, b3, r3);
	}
	if (fmt == OUT_JSON) {
		jw_arr_end(&w);
		jw_obj_end(&w);
		jw_end(&w);
	} else {
		if (fmt != OUT_CSV)
			fprintf(fp, "%srun %lld: %s\n%srun %lld: %s\n\n",
				fmt == OUT_MARKDOWN ? "- " : " ", (long long)ra->id,
				ra->command, fmt == OUT_MARKDOWN ? "- " : " ",
				(long long)rb->id, rb->command);
		rtable_write(&t, fmt, fp, 1);
		if (fmt != OUT_CSV)
			fprintf(fp, "\n%sone run each: no noise estimate, so no verdict; "
				"'prof ab' runs interleaved rounds for one\n",
				fmt == OUT_MARKDOWN ? "" : " ");
	}
	rtable_release(&t);
	ab_pair_release(&pr);
}

void ab_render_list(const struct db_experiment_summary *v, size_t n,
		    enum out_format fmt, FILE *fp)
{
	if (fmt == OUT_JSON) {
		struct jw w;
		jw_init(&w, fp, 2);
		jw_obj_begin(&w);
		jw_key(&w, "experiments");
		jw_arr_begin(&w);
		for (size_t i = 0; i < n; i++) {
			jw_obj_begin(&w);
			jw_key(&w, "experiment_id");
			jw_int(&w, v[i].id);
			jw_key(&w, "started");
			jw_str(&w, v[i].started);
			jw_key(&w, "status");
			jw_str(&w, v[i].status);
			jw_key(&w, "aa");
			jw_bool(&w, v[i].aa);
			jw_key(&w, "rounds");
			jw_int(&w, v[i].rounds);
			jw_key(&w, "runs");
			jw_uint(&w, v[i].nruns);
			jw_key(&w, "arms");
			jw_str(&w, v[i].arms);
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
		jw_obj_end(&w);
		jw_end(&w);
		return;
	}
	static const char *const titles[] = {
		">experiment", "started", "status", ">rounds", ">runs", "arms",
	};
	struct rtable t;
	rtable_init(&t, 6, titles);
	for (size_t i = 0; i < n; i++) {
		size_t r = rtable_add_row(&t);
		rtable_set(&t, r, 0, "%lld", (long long)v[i].id);
		rtable_set(&t, r, 1, "%s", v[i].started ? v[i].started : "");
		rtable_set(&t, r, 2, "%s%s", v[i].status ? v[i].status : "",
			   v[i].aa ? " (A/A)" : "");
		rtable_set(&t, r, 3, "%d", v[i].rounds);
		rtable_set(&t, r, 4, "%zu", v[i].nruns);
		rtable_set(&t, r, 5, "%s", v[i].arms ? v[i].arms : "");
	}
	if (n == 0 && fmt == OUT_TABLE)
		fprintf(fp, "no experiments stored yet; run one with 'prof ab'\n");
	else
		rtable_write(&t, fmt, fp, 0);
	rtable_release(&t);
}
