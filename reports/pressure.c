/*
 * pressure (reports): the curves of a `prof pressure` experiment, their
 * verdicts and their tables. See pressure.h for what is stored and the
 * rules.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "common/order.h"
#include "reports/abstat.h"
#include "reports/pressplot.h"
#include "reports/pressure.h"
#include "reports/rows.h"

static const char *const verdict_names[] = {
	"cache-sensitive", "not-cache-sensitive", "inconclusive",
};

const char *press_verdict_name(enum press_verdict v)
{
	return (unsigned)v < 3 ? verdict_names[v] : "?";
}

const char *press_metric_label(const char *metric)
{
	if (!metric || !strcmp(metric, "cpu_s"))
		return "CPU time";
	if (!strcmp(metric, "wall_s"))
		return "wall time";
	return metric;
}

/* ---- reading the experiment ---- */

static double num_of(const char *s)
{
	if (!s || !*s)
		return NAN;
	char *end;
	double v = strtod(s, &end);
	return *end ? NAN : v;
}

static const char *exp_get(const struct db_experiment *e, const char *key)
{
	return db_kv_get(e->settings, e->nsettings, key);
}

static const char *arm_get(const struct db_experiment *e, size_t a, const char *key)
{
	return db_kv_get(e->arms[a].settings, e->arms[a].nsettings, key);
}

/* A score named `metric` declared :higher in the experiment's settings. */
static bool metric_higher(const struct db_experiment *e, const char *metric)
{
	size_t ml = strlen(metric);
	for (size_t i = 0; i < e->nsettings; i++) {
		const char *v = e->settings[i].value;
		if (strcmp(e->settings[i].key, "score") || !v)
			continue;
		if (!strncmp(v, metric, ml) && v[ml] == '=') {
			struct ab_score_flags f;
			ab_score_flags_of(v, NULL, &f);
			return f.higher_is_better;
		}
	}
	return false;
}

static double metric_of(const struct db_exp_run *r, const char *metric)
{
	if (!strcmp(metric, "cpu_s"))
		return r->user_s + r->sys_s;
	if (!strcmp(metric, "wall_s"))
		return r->wall_s;
	for (size_t i = 0; i < r->nscores; i++)
		if (!strcmp(r->scores[i].name, metric))
			return r->scores[i].found ? r->scores[i].value : NAN;
	for (size_t i = 0; i < r->nevents; i++)
		if (!strcmp(r->ev_names[i], metric))
			return r->ev_values[i];
	return NAN;
}

static const struct db_exp_run *run_at(const struct db_experiment *e, size_t arm,
				       int round)
{
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *x = &e->runs[i];
		if ((size_t)x->arm == arm && x->round == round && !x->warmup)
			return x;
	}
	return NULL;
}

static void warn(struct press_analysis *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct press_analysis *a, const char *fmt, ...)
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
		xalloc_die();
	a->warnings = v;
	v[a->nwarnings++] = s;
}

/* The median of the finite values among v[0..n-1] (sorted in place). */
static double median(double *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	return median_sort(v, k);
}

/* The median over an arm's counted runs of a metric, or of a run setting. */
static double arm_median(const struct db_experiment *e, size_t arm,
			 const char *metric, const struct db_setting_f64 *setting)
{
	double *v = calloc(e->nruns + 1, sizeof(double));
	if (!v)
		xalloc_die();
	size_t n = 0;
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *r = &e->runs[i];
		if ((size_t)r->arm != arm || !ab_run_counts(r))
			continue;
		v[n++] = setting ? num_of(db_exp_run_setting(r, *setting))
			 : metric_of(r, metric);
	}
	double m = median(v, n);
	free(v);
	return m;
}

/* The metric's finite values over an arm's counted runs (malloc'd). */
static double *arm_values(const struct db_experiment *e, size_t arm,
			  const char *metric, size_t *n)
{
	double *v = calloc(e->nruns + 1, sizeof(double));
	if (!v)
		xalloc_die();
	*n = 0;
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *r = &e->runs[i];
		double x = (size_t)r->arm == arm && ab_run_counts(r) ? metric_of(r, metric)
			   : NAN;
		if (isfinite(x))
			v[(*n)++] = x;
	}
	return v;
}

/* A run's delta of one /proc/stat time of one CPU, in seconds. */
static double stat_s(const struct db_exp_run *r, int cpu, const char *what)
{
	char name[64];
	snprintf(name, sizeof(name), "stat.cpu%d.%s", cpu, what);
	int64_t ms;
	db_sysval_get(r->system, r->nsystem, name, &ms);	/* 0 where it did not move */
	return (double)ms / 1000.0;
}

/*
 * The share of the wall time other work ran on the workload's CPU, the
 * median over the runs that count (see PRESS_OTHERS_MAX); NaN when the
 * runs carry no /proc/stat deltas or the CPU is unknown.
 */
static double others_share(const struct db_experiment *e, int cpu)
{
	static const char *const times[] = { "user_ms", "system_ms", "irq_ms",
					     "softirq_ms", "steal_ms" };
	double *v = calloc(e->nruns + 1, sizeof(double));
	if (!v)
		xalloc_die();
	size_t n = 0;
	for (size_t i = 0; cpu >= 0 && i < e->nruns; i++) {
		const struct db_exp_run *r = &e->runs[i];
		if (!ab_run_counts(r) || !r->nsystem || !(r->wall_s > 0))
			continue;
		double busy = 0;
		for (size_t t = 0; t < sizeof(times) / sizeof(times[0]); t++)
			busy += stat_s(r, cpu, times[t]);
		double other = busy - (r->user_s + r->sys_s);
		v[n++] = other > 0 ? other / r->wall_s : 0;
	}
	double m = n ? median(v, n) : NAN;
	free(v);
	return m;
}

/*
 * No verdict where other work crowded the workload's CPU; the sentence
 * keeps what the numbers alone would have said.
 */
static void judge_crowded(struct press_curve *c, double others)
{
	if (!(others > PRESS_OTHERS_MAX))
		return;
	char *was = c->summary;
	c->verdict = PRESS_INCONCLUSIVE;
	/* More rounds on a crowded machine settle nothing: no estimate, and
	 * none in what the numbers alone said. */
	c->rounds_needed = -1;
	char *need = was ? strstr(was, "; about ") : NULL;
	if (need)
		*need = '\0';
	if (asprintf(&c->summary, "inconclusive: other work ran on the workload's CPU "
		     "%.0f%% of the time (median), sharing its caches; run it when the "
		     "machine is quieter (the numbers alone said: %s)", 100 * others,
		     was ? was : "?") < 0)
		c->summary = NULL;
	free(was);
}

/* The paired rounds of arm against base, on the metric. */
struct pairs {
	double *base, *arm, *rx;
	unsigned *bs, *as;
	size_t n;
};

static void pairs_of(const struct db_experiment *e, size_t base, size_t arm,
		     const char *metric, struct pairs *p)
{
	size_t cap = (size_t)e->rounds + 1;
	p->base = calloc(cap, sizeof(double));
	p->arm = calloc(cap, sizeof(double));
	p->rx = calloc(cap, sizeof(double));
	p->bs = calloc(cap, sizeof(unsigned));
	p->as = calloc(cap, sizeof(unsigned));
	if (!p->base || !p->arm || !p->rx || !p->bs || !p->as)
		xalloc_die();
	p->n = 0;
	for (int r = 0; r < e->rounds; r++) {
		const struct db_exp_run *x = run_at(e, base, r), *y = run_at(e, arm, r);
		if (!x || !y || !ab_run_counts(x) || !ab_run_counts(y))
			continue;
		double vb = metric_of(x, metric), va = metric_of(y, metric);
		if (!isfinite(vb) || !isfinite(va))
			continue;
		p->base[p->n] = vb;
		p->arm[p->n] = va;
		p->bs[p->n] = (unsigned)x->position;
		p->as[p->n] = (unsigned)y->position;
		p->rx[p->n] = r;
		p->n++;
	}
}

static void pairs_free(struct pairs *p)
{
	free(p->base);
	free(p->arm);
	free(p->rx);
	free(p->bs);
	free(p->as);
}

static int cmp_step(const void *x, const void *y)
{
	const struct press_step *a = x, *b = y;
	return a->taken_bytes < b->taken_bytes ? -1 : a->taken_bytes > b->taken_bytes;
}

/* The arms of one workload: its control and its steps. */
static int collect_curve(const struct db_experiment *e, const char *workload,
			 struct press_curve *c, char **cause)
{
	memset(c, 0, sizeof(*c));
	c->workload = strdup(workload);
	c->control_arm = SIZE_MAX;
	c->steps = calloc(e->narms + 1, sizeof(*c->steps));
	if (!c->workload || !c->steps)
		xalloc_die();
	for (size_t a = 0; a < e->narms; a++) {
		const char *w = arm_get(e, a, "pressure.workload");
		const char *role = arm_get(e, a, "pressure.role");
		if (!w || strcmp(w, workload) || !role)
			continue;
		if (!strcmp(role, "control")) {
			c->control_arm = a;
			continue;
		}
		struct press_step *s = &c->steps[c->nsteps++];
		s->arm = a;
		double t = num_of(arm_get(e, a, "pressure.taken_bytes"));
		s->taken_bytes = isfinite(t) && t > 0 ? (uint64_t)t : 0;
		s->aa = s->taken_bytes == 0;
		s->alone_ns = num_of(arm_get(e, a, "pressure.alone_ns"));
		s->mem_ns = num_of(arm_get(e, a, "pressure.mem_ns"));
	}
	if (c->control_arm == SIZE_MAX) {
		if (cause && asprintf(cause, "experiment %lld has no control arm for "
				      "workload '%s'", (long long)e->id, workload) < 0)
			*cause = NULL;
		return -EINVAL;
	}
	qsort(c->steps, c->nsteps, sizeof(*c->steps), cmp_step);
	return 0;
}

/* The gate of one curve: given, else the A/A step's, floored. */
static void curve_gate(const struct db_experiment *e, const char *metric,
		       double given, struct press_curve *c)
{
	if (isfinite(given)) {
		c->gate_pct = given;
		c->gate_source = strdup("--gate");
		return;
	}
	c->gate_pct = PRESS_GATE_FLOOR_PCT;
	c->gate_source = strdup("floor");
	for (size_t i = 0; i < c->nsteps; i++) {
		if (!c->steps[i].aa)
			continue;
		struct pairs p;
		pairs_of(e, c->control_arm, c->steps[i].arm, metric, &p);
		double g;
		if (p.n >= 2 && stats_aa_gate(p.base, p.arm, p.n, &g, NULL) == 0 &&
		    isfinite(g) && g > c->gate_pct) {
			c->gate_pct = g;
			free(c->gate_source);
			c->gate_source = strdup("A/A step");
		}
		pairs_free(&p);
		break;
	}
}

static void fmt_size(char *buf, size_t n, double bytes)
{
	if (!isfinite(bytes))
		snprintf(buf, n, "n/a");
	else
		fmt_bytes(buf, n, bytes);
}

/* What a step really took: what the co-runner held where it is known
 * (a co-runner that misses on every line holds nothing it walks), else
 * what it walked. */
static double really_taken(const struct press_step *s)
{
	return isfinite(s->held_bytes) ? s->held_bytes : (double)s->taken_bytes;
}

static double left_of(uint64_t domain_bytes, const struct press_step *s)
{
	double l = (double)domain_bytes - really_taken(s);
	return l > 0 ? l : 0;
}

/* ", the co-runner held 3.1 MiB" when it held clearly less than it walked. */
static void held_note(const struct press_step *s, const char *pre, char *buf, size_t n)
{
	char h[32];
	buf[0] = '\0';
	if (!isfinite(s->held_bytes) || s->held_bytes >= 0.9 * (double)s->taken_bytes)
		return;
	fmt_size(h, sizeof(h), s->held_bytes);
	snprintf(buf, n, "%sthe co-runner held %s of it", pre, h);
}

static bool is_worse(const struct press_step *s)
{
	return s->cmp.computable && s->cmp.j.verdict == VERDICT_WORSE;
}

static bool is_quiet(const struct press_step *s)
{
	return s->cmp.computable && (s->cmp.j.verdict == VERDICT_EQUIVALENT ||
				     s->cmp.j.verdict == VERDICT_BETTER);
}

void press_curve_judge(struct press_curve *c, const char *metric_label,
		       uint64_t domain_bytes)
{
	free(c->summary);
	c->summary = NULL;
	c->rounds_needed = -1;
	char dom[32];
	fmt_size(dom, sizeof(dom), (double)domain_bytes);
	const struct press_step *aa = NULL, *last = NULL;
	size_t first_worse = SIZE_MAX;
	bool all_quiet = true, any = false;
	for (size_t i = 0; i < c->nsteps; i++) {
		const struct press_step *s = &c->steps[i];
		if (s->aa) {
			aa = s;
			continue;
		}
		any = true;
		last = s;
		all_quiet = all_quiet && is_quiet(s);
		if (!is_worse(s))
			first_worse = SIZE_MAX;
		else if (first_worse == SIZE_MAX)
			first_worse = i;
	}
	int rc = -1;
	if (!any) {
		c->verdict = PRESS_INCONCLUSIVE;
		rc = asprintf(&c->summary, "inconclusive: no step takes any cache away");
	} else if (aa && aa->cmp.computable && (aa->cmp.j.verdict == VERDICT_WORSE ||
						aa->cmp.j.verdict == VERDICT_BETTER)) {
		c->verdict = PRESS_INCONCLUSIVE;
		rc = asprintf(&c->summary, "inconclusive: the A/A step (a second "
			      "control) moved %+.1f%% [%+.1f, %+.1f], beyond the ±%.1f%% "
			      "gate: the order or the machine moves %s, not the cache",
			      aa->cmp.p.delta_pct, aa->cmp.p.ci95_lo_pct,
			      aa->cmp.p.ci95_hi_pct, c->gate_pct, metric_label);
	} else if (last && is_worse(last)) {
		const struct press_step *s = &c->steps[first_worse];
		char take[32], most[32], held[64];
		fmt_size(take, sizeof(take), (double)s->taken_bytes);
		fmt_size(most, sizeof(most), (double)last->taken_bytes);
		held_note(s, " (", held, sizeof(held));
		c->verdict = PRESS_SENSITIVE;
		if (s == last)
			rc = asprintf(&c->summary, "cache-sensitive: losing %s of %s%s%s costs "
				      "%+.1f%% [%+.1f, %+.1f] %s", take, dom, held,
				      *held ? ")" : "", s->cmp.p.delta_pct,
				      s->cmp.p.ci95_lo_pct, s->cmp.p.ci95_hi_pct, metric_label);
		else
			rc = asprintf(&c->summary, "cache-sensitive: losing %s of %s%s%s costs "
				      "%+.1f%% [%+.1f, %+.1f] %s, losing %s %+.1f%%", take,
				      dom, held, *held ? ")" : "", s->cmp.p.delta_pct,
				      s->cmp.p.ci95_lo_pct, s->cmp.p.ci95_hi_pct, metric_label,
				      most, last->cmp.p.delta_pct);
	} else if (all_quiet && c->gate_pct > PRESS_GATE_QUIET_MAX_PCT) {
		c->verdict = PRESS_INCONCLUSIVE;
		rc = asprintf(&c->summary, "inconclusive: two identical controls (the "
			      "A/A step) differ by up to ±%.1f%% %s here, so a capacity "
			      "effect smaller than that cannot be ruled out; run it when "
			      "the machine is quieter", c->gate_pct, metric_label);
	} else if (all_quiet) {
		/* Down to what the step that took the most really left. */
		const struct press_step *m = last;
		for (size_t i = 0; i < c->nsteps; i++)
			if (!c->steps[i].aa && really_taken(&c->steps[i]) > really_taken(m))
				m = &c->steps[i];
		char left[32], walked[32], held[32];
		fmt_size(left, sizeof(left), left_of(domain_bytes, m));
		fmt_size(walked, sizeof(walked), (double)m->taken_bytes);
		fmt_size(held, sizeof(held), m->held_bytes);
		c->verdict = PRESS_NOT_SENSITIVE;
		if (isfinite(m->held_bytes) && m->held_bytes < 0.9 * (double)m->taken_bytes)
			rc = asprintf(&c->summary, "not cache-sensitive within ±%.1f%% %s "
				      "down to %s left of %s (the co-runner walked %s but "
				      "held %s: it could take no more)", c->gate_pct,
				      metric_label, left, dom, walked, held);
		else
			rc = asprintf(&c->summary, "not cache-sensitive within ±%.1f%% %s "
				      "down to %s left of %s", c->gate_pct, metric_label, left,
				      dom);
	} else {
		/* The step whose settling decides: the largest undecided one. */
		const struct press_step *u = NULL;
		for (size_t i = 0; i < c->nsteps; i++) {
			const struct press_step *s = &c->steps[i];
			if (s->aa || is_quiet(s) || (is_worse(s) && s == last))
				continue;
			u = s;
			if (s->cmp.computable && s->cmp.j.rounds_needed > c->rounds_needed)
				c->rounds_needed = s->cmp.j.rounds_needed;
		}
		if (!u)
			u = last;
		char take[32], need[64] = "", held[64];
		fmt_size(take, sizeof(take), (double)u->taken_bytes);
		held_note(u, " (", held, sizeof(held));
		if (c->rounds_needed > 0)
			snprintf(need, sizeof(need), "; about %ld rounds would likely "
				 "settle it", c->rounds_needed);
		c->verdict = PRESS_INCONCLUSIVE;
		if (u->cmp.computable)
			rc = asprintf(&c->summary, "inconclusive: losing %s of %s%s%s changes "
				      "%s %+.1f%% [%+.1f, %+.1f] against a ±%.1f%% gate%s",
				      take, dom, held, *held ? ")" : "", metric_label,
				      u->cmp.p.delta_pct,
				      u->cmp.p.ci95_lo_pct, u->cmp.p.ci95_hi_pct,
				      c->gate_pct, need);
		else
			rc = asprintf(&c->summary, "inconclusive: losing %s of %s cannot "
				      "be compared (%s)", take, dom,
				      u->cmp.why ? u->cmp.why : "no rounds");
	}
	if (rc < 0)
		c->summary = NULL;
}

/* The workloads, in the order their arms appear. */
static size_t workloads_of(const struct db_experiment *e, const char **names)
{
	size_t n = 0;
	for (size_t a = 0; a < e->narms; a++) {
		const char *w = arm_get(e, a, "pressure.workload");
		if (!w)
			continue;
		bool seen = false;
		for (size_t i = 0; i < n; i++)
			seen = seen || !strcmp(names[i], w);
		if (!seen)
			names[n++] = w;
	}
	return n;
}

int press_analyze(const struct db_experiment *e, double gate_pct,
		  struct press_analysis *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	out->exp = e;
	if (!e->kind || strcmp(e->kind, DB_EXP_KIND_PRESSURE)) {
		if (cause && asprintf(cause, "experiment %lld is not a pressure experiment "
				      "(it is %s)", (long long)e->id,
				      e->kind ? e->kind : "?") < 0)
			*cause = NULL;
		return -EINVAL;
	}
	out->method = exp_get(e, "method") ? exp_get(e, "method") : "pirate";
	out->metric = exp_get(e, "metric") ? exp_get(e, "metric") : "cpu_s";
	out->higher_is_better = metric_higher(e, out->metric);
	double d = num_of(exp_get(e, "domain.bytes"));
	out->domain_bytes = isfinite(d) && d > 0 ? (uint64_t)d : 0;
	double lv = num_of(exp_get(e, "domain.level"));
	out->domain_level = isfinite(lv) ? (int)lv : 0;
	out->domain_cpus = exp_get(e, "domain.cpus");
	double wc = num_of(exp_get(e, "workload_cpu")), cc = num_of(exp_get(e, "corunner_cpu"));
	out->workload_cpu = isfinite(wc) ? (int)wc : -1;
	out->corunner_cpu = isfinite(cc) ? (int)cc : -1;
	double cb = num_of(exp_get(e, "control_bytes"));
	out->control_bytes = isfinite(cb) && cb > 0 ? (uint64_t)cb : 0;
	out->hit_ns = num_of(exp_get(e, "hit_ns"));

	const char **names = calloc(e->narms + 1, sizeof(char *));
	if (!names)
		xalloc_die();
	size_t nw = workloads_of(e, names);
	if (!nw) {
		free(names);
		if (cause && asprintf(cause, "experiment %lld has no workload arms",
				      (long long)e->id) < 0)
			*cause = NULL;
		return -EINVAL;
	}
	out->curves = calloc(nw, sizeof(*out->curves));
	if (!out->curves)
		xalloc_die();
	for (int r = 0; r < e->rounds; r++) {
		bool all = true;
		for (size_t a = 0; a < e->narms; a++) {
			const struct db_exp_run *x = run_at(e, a, r);
			all = all && x && ab_run_counts(x);
		}
		out->counted_rounds += all;
	}
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *r = &e->runs[i];
		if (r->warmup || ab_run_counts(r))
			continue;
		const char *arm = e->arms[r->arm].name;
		if (r->interrupted)
			warn(out, "run %lld (arm %s, round %d) was interrupted; left out",
			     (long long)r->run_id, arm, r->round + 1);
		else
			warn(out, "run %lld (arm %s, round %d) exited with status %d; left "
			     "out", (long long)r->run_id, arm, r->round + 1, r->exit_status);
	}
	out->others = others_share(e, out->workload_cpu);
	if (out->others > PRESS_OTHERS_MAX)
		warn(out, "other work ran on the workload's CPU %.0f%% of the time "
		     "(median over the runs, from /proc/stat): it shares the "
		     "workload's caches, so no verdict is given", 100 * out->others);
	int rc = 0;
	const char *label = press_metric_label(out->metric);
	bool sim = !strcmp(out->method, "sim");
	for (size_t w = 0; w < nw && !rc; w++) {
		struct press_curve *c = &out->curves[out->ncurves];
		rc = collect_curve(e, names[w], c, cause);
		out->ncurves++;
		if (rc)
			break;
		curve_gate(e, out->metric, gate_pct, c);
		c->control_median = arm_median(e, c->control_arm, out->metric, NULL);
		c->control_corunner_ns = arm_median(e, c->control_arm, NULL,
						    &SET_CORUNNER_NS_PER_LINE);
		for (size_t i = 0; i < c->nsteps; i++) {
			struct press_step *s = &c->steps[i];
			struct pairs p;
			pairs_of(e, c->control_arm, s->arm, out->metric, &p);
			ab_compare(p.base, p.arm, p.n, p.bs, p.as, p.rx, c->gate_pct,
				   out->higher_is_better, &s->cmp);
			pairs_free(&p);
			if (sim) {
				/* The model's counts repeat: judged from the
				 * medians against their own spread. */
				size_t nb, na;
				double *vb = arm_values(e, c->control_arm, out->metric, &nb);
				double *va = arm_values(e, s->arm, out->metric, &na);
				ab_compare_deterministic(vb, nb, va, na, c->gate_pct,
							 out->higher_is_better, &s->cmp);
				free(vb);
				free(va);
			}
			s->cmp.arm = s->arm;
			s->median = arm_median(e, s->arm, out->metric, NULL);
			s->corunner_ns = arm_median(e, s->arm, NULL, &SET_CORUNNER_NS_PER_LINE);
			s->held_bytes = s->aa ? 0 : arm_median(e, s->arm, NULL,
							       &SET_CORUNNER_HELD_BYTES);
			s->duty = arm_median(e, s->arm, NULL, &SET_CORUNNER_DUTY);
			if (!s->aa && s->duty < PRESS_DUTY_MIN)
				warn(out, "%s, step %s: the co-runner ran %.0f%% of the "
				     "time (median): other work took its CPU, so it took "
				     "less cache than asked", c->workload,
				     e->arms[s->arm].name, 100 * s->duty);
			if (s->cmp.computable && s->cmp.j.position_large)
				warn(out, "%s, step %s: the slot in the round moves %s by "
				     "%+.1f%%, large next to the effect (%+.1f%%)",
				     c->workload, e->arms[s->arm].name, label, s->cmp.pos.pct,
				     s->cmp.p.delta_pct);
		}
		press_curve_judge(c, label, out->domain_bytes);
		judge_crowded(c, out->others);
	}
	free(names);
	if (rc) {
		press_analysis_release(out);
		return rc;
	}
	return 0;
}

void press_analysis_release(struct press_analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->ncurves; i++) {
		struct press_curve *c = &a->curves[i];
		for (size_t k = 0; k < c->nsteps; k++)
			ab_comparison_release(&c->steps[k].cmp);
		free(c->steps);
		free(c->workload);
		free(c->summary);
		free(c->gate_source);
	}
	free(a->curves);
	for (size_t i = 0; i < a->nwarnings; i++)
		free(a->warnings[i]);
	free(a->warnings);
	memset(a, 0, sizeof(*a));
}

/* ---- rendering ---- */

enum {
	S_TAKEN, S_HELD, S_LEFT, S_DELTA, S_CI, S_CI_LO, S_CI_HI, S_VERDICT,
	S_CI_VERDICT, S_P, S_N, S_MEDIAN, S_CORUNNER_NS, S_DUTY, S_AA, S_ARM, S_N_COLS
};

static const struct col step_cols[S_N_COLS] = {
	[S_TAKEN] = { .key = "taken_bytes", .title = "taken", .kind = COL_BYTES },
	[S_HELD] = { .key = "held_bytes", .title = "held", .kind = COL_BYTES,
		     .none = "n/a" },
	[S_LEFT] = { .key = "left_bytes", .title = "left", .kind = COL_BYTES },
	[S_DELTA] = { .key = "delta_pct", .title = "Δ%", .kind = COL_PCT,
		      .decimals = 1, .none = "n/a" },
	[S_CI] = { .key = "ci", .kind = COL_NEST },
	[S_CI_LO] = { .key = "ci95_lo_pct", .kind = COL_PCT,
		      .flags = COL_MACHINES | COL_NO_JSON },
	[S_CI_HI] = { .key = "ci95_hi_pct", .kind = COL_PCT,
		      .flags = COL_MACHINES | COL_NO_JSON },
	[S_VERDICT] = { .key = "verdict", .flags = COL_MACHINES },
	[S_CI_VERDICT] = { .key = "ci_verdict", .title = "95% CI / verdict",
			   .flags = COL_PEOPLE },
	[S_P] = { .key = "p_value", .title = "p", .kind = COL_REAL, .decimals = 3,
		  .none = "n/a" },
	[S_N] = { .key = "rounds", .title = "n", .kind = COL_INT },
	[S_MEDIAN] = { .key = "median", .title = "median", .kind = COL_REAL,
		       .decimals = 4, .none = "n/a" },
	[S_CORUNNER_NS] = { .key = "corunner_ns_per_line", .title = "co-runner ns/line",
			    .kind = COL_REAL, .decimals = 1, .none = "n/a" },
	[S_DUTY] = { .key = "corunner_duty", .title = "duty", .kind = COL_REAL,
		     .decimals = 2, .none = "n/a" },
	[S_AA] = { .key = "aa", .kind = COL_BOOL, .flags = COL_MACHINES },
	[S_ARM] = { .key = "arm", .flags = COL_MACHINES },
};

static void step_row(struct rows *r, const struct press_analysis *a,
		     const struct press_step *s)
{
	size_t row = rows_add(r);
	rows_uint(r, row, S_TAKEN, s->taken_bytes);
	if (s->aa)
		rows_text(r, row, S_TAKEN, "0 (A/A)");
	rows_num(r, row, S_HELD, s->held_bytes);
	rows_num(r, row, S_LEFT, left_of(a->domain_bytes, s));
	const struct ab_comparison *c = &s->cmp;
	rows_num(r, row, S_DELTA, c->computable ? c->p.delta_pct : NAN);
	if (c->computable)
		rows_text(r, row, S_DELTA, "%+.1f", c->p.delta_pct);
	static const struct col ci_col = { .key = "pct", .kind = COL_PCT };
	struct rows *ci = rows_new(NULL, &ci_col, 1, ROWS_VALUES | ROWS_FLAT);
	rows_num(ci, rows_add(ci), 0, c->computable ? c->p.ci95_lo_pct : NAN);
	rows_num(ci, rows_add(ci), 0, c->computable ? c->p.ci95_hi_pct : NAN);
	rows_nest(r, row, S_CI, ci);
	rows_num(r, row, S_CI_LO, c->computable ? c->p.ci95_lo_pct : NAN);
	rows_num(r, row, S_CI_HI, c->computable ? c->p.ci95_hi_pct : NAN);
	const char *v = c->computable ? stats_verdict_name(c->j.verdict) : "inconclusive";
	rows_str(r, row, S_VERDICT, v);
	if (!c->computable)
		rows_text(r, row, S_CI_VERDICT, "n/a (%s)", c->why ? c->why : "no rounds");
	else if (!isfinite(c->p.ci95_lo_pct))
		rows_text(r, row, S_CI_VERDICT, "n/a %s", v);
	else if (c->j.verdict == VERDICT_INCONCLUSIVE && c->j.rounds_needed > 0)
		rows_text(r, row, S_CI_VERDICT, "[%+.1f, %+.1f] %s (~%ld rounds)",
			  c->p.ci95_lo_pct, c->p.ci95_hi_pct, v, c->j.rounds_needed);
	else
		rows_text(r, row, S_CI_VERDICT, "[%+.1f, %+.1f] %s", c->p.ci95_lo_pct,
			  c->p.ci95_hi_pct, v);
	rows_num(r, row, S_P, c->computable ? c->p.p_value : NAN);
	rows_int(r, row, S_N, (int64_t)(c->computable ? c->p.n : 0));
	rows_num(r, row, S_MEDIAN, s->median);
	rows_num(r, row, S_CORUNNER_NS, s->corunner_ns);
	rows_num(r, row, S_DUTY, s->duty);
	rows_bool(r, row, S_AA, s->aa);
	rows_str(r, row, S_ARM, a->exp->arms[s->arm].name);
}

static struct rows *steps_rows(const struct press_analysis *a,
			       const struct press_curve *c)
{
	struct rows *r = rows_new("steps", step_cols, S_N_COLS, ROWS_FLAT);
	for (size_t i = 0; i < c->nsteps; i++)
		step_row(r, a, &c->steps[i]);
	return r;
}

enum { C_WORKLOAD, C_VERDICT, C_SUMMARY, C_GATE, C_GATE_SOURCE, C_ROUNDS_NEEDED,
       C_CONTROL_MEDIAN, C_CONTROL_NS, C_STEPS, C_N };

static const struct col curve_cols[C_N] = {
	[C_WORKLOAD] = { .key = "workload" },
	[C_VERDICT] = { .key = "verdict" },
	[C_SUMMARY] = { .key = "summary" },
	[C_GATE] = { .key = "gate_pct", .kind = COL_PCT, .decimals = 2 },
	[C_GATE_SOURCE] = { .key = "gate_source" },
	[C_ROUNDS_NEEDED] = { .key = "rounds_needed", .kind = COL_INT },
	[C_CONTROL_MEDIAN] = { .key = "control_median", .kind = COL_REAL, .decimals = 4 },
	[C_CONTROL_NS] = { .key = "control_corunner_ns_per_line", .kind = COL_REAL,
			   .decimals = 1 },
	[C_STEPS] = { .key = "steps", .kind = COL_NEST },
};

static void curve_row(struct rows *r, const struct press_analysis *a,
		      const struct press_curve *c)
{
	size_t row = rows_add(r);
	rows_str(r, row, C_WORKLOAD, c->workload);
	rows_str(r, row, C_VERDICT, press_verdict_name(c->verdict));
	rows_str(r, row, C_SUMMARY, c->summary);
	rows_num(r, row, C_GATE, c->gate_pct);
	rows_str(r, row, C_GATE_SOURCE, c->gate_source);
	if (c->rounds_needed > 0)
		rows_int(r, row, C_ROUNDS_NEEDED, c->rounds_needed);
	else
		rows_null(r, row, C_ROUNDS_NEEDED);
	rows_num(r, row, C_CONTROL_MEDIAN, c->control_median);
	rows_num(r, row, C_CONTROL_NS, c->control_corunner_ns);
	rows_nest(r, row, C_STEPS, steps_rows(a, c));
}

enum {
	D_ID, D_KIND, D_METHOD, D_METRIC, D_HIGHER, D_STATUS, D_ROUNDS, D_DOMAIN,
	D_WCPU, D_CCPU, D_CONTROL_BYTES, D_HIT_NS, D_VERDICT, D_SUMMARY, D_GATE,
	D_STEPS, D_CURVES, D_WARNINGS, D_N
};

static const struct col doc_cols[D_N] = {
	[D_ID] = { .key = "experiment_id", .kind = COL_INT },
	[D_KIND] = { .key = "kind" },
	[D_METHOD] = { .key = "method" },
	[D_METRIC] = { .key = "metric" },
	[D_HIGHER] = { .key = "higher_is_better", .kind = COL_BOOL },
	[D_STATUS] = { .key = "status" },
	[D_ROUNDS] = { .key = "rounds", .kind = COL_INT },
	[D_DOMAIN] = { .key = "domain", .kind = COL_NEST },
	[D_WCPU] = { .key = "workload_cpu", .kind = COL_INT },
	[D_CCPU] = { .key = "corunner_cpu", .kind = COL_INT },
	[D_CONTROL_BYTES] = { .key = "control_bytes", .kind = COL_BYTES },
	[D_HIT_NS] = { .key = "hit_ns_per_line", .kind = COL_REAL, .decimals = 1 },
	[D_VERDICT] = { .key = "verdict" },
	[D_SUMMARY] = { .key = "summary" },
	[D_GATE] = { .key = "gate_pct", .kind = COL_PCT, .decimals = 2 },
	[D_STEPS] = { .key = "steps", .kind = COL_NEST },
	[D_CURVES] = { .key = "curves", .kind = COL_NEST },
	[D_WARNINGS] = { .key = "warnings", .kind = COL_NEST },
};

#define DOMAIN_COLS(K) \
	K(DO_LEVEL, "level", INT) K(DO_SIZE, "size_bytes", BYTES) \
	K(DO_CPUS, "cpus", CPUS)
ROWS_KEYS(domain_cols, DO_N, DOMAIN_COLS);

static void write_json(const struct press_analysis *a, FILE *fp)
{
	struct rows *doc = rows_new(NULL, doc_cols, D_N, 0);
	size_t row = rows_add(doc);
	const struct press_curve *c0 = &a->curves[0];
	rows_int(doc, row, D_ID, a->exp->id);
	rows_str(doc, row, D_KIND, a->exp->kind);
	rows_str(doc, row, D_METHOD, a->method);
	rows_str(doc, row, D_METRIC, a->metric);
	rows_bool(doc, row, D_HIGHER, a->higher_is_better);
	rows_str(doc, row, D_STATUS, a->exp->status);
	rows_int(doc, row, D_ROUNDS, (int64_t)a->counted_rounds);
	struct rows *d = rows_new(NULL, domain_cols, DO_N, ROWS_OBJECT);
	size_t k = rows_add(d);
	rows_int(d, k, DO_LEVEL, a->domain_level);
	rows_uint(d, k, DO_SIZE, a->domain_bytes);
	rows_str(d, k, DO_CPUS, a->domain_cpus);
	rows_nest(doc, row, D_DOMAIN, d);
	rows_int(doc, row, D_WCPU, a->workload_cpu);
	if (a->corunner_cpu >= 0)
		rows_int(doc, row, D_CCPU, a->corunner_cpu);
	else
		rows_null(doc, row, D_CCPU);
	rows_uint(doc, row, D_CONTROL_BYTES, a->control_bytes);
	rows_num(doc, row, D_HIT_NS, a->hit_ns);
	rows_str(doc, row, D_VERDICT, press_verdict_name(c0->verdict));
	rows_str(doc, row, D_SUMMARY, c0->summary);
	rows_num(doc, row, D_GATE, c0->gate_pct);
	rows_nest(doc, row, D_STEPS, steps_rows(a, c0));
	struct rows *curves = rows_new(NULL, curve_cols, C_N, 0);
	for (size_t i = 0; i < a->ncurves; i++)
		curve_row(curves, a, &a->curves[i]);
	rows_nest(doc, row, D_CURVES, curves);
	static const struct col w_col = { .key = "text" };
	struct rows *w = rows_new(NULL, &w_col, 1, ROWS_VALUES);
	for (size_t i = 0; i < a->nwarnings; i++)
		rows_str(w, rows_add(w), 0, a->warnings[i]);
	rows_nest(doc, row, D_WARNINGS, w);
	rows_write_data(doc, OUT_JSON, fp);
}

/* CSV: one row per step of every curve, the curve's columns first. */
static void write_csv(const struct press_analysis *a, FILE *fp)
{
	struct col cols[S_N_COLS + 2];
	memcpy(cols, step_cols, sizeof(step_cols));
	cols[S_N_COLS] = (struct col){ .key = "workload" };
	cols[S_N_COLS + 1] = (struct col){ .key = "curve_verdict" };
	struct rows *r = rows_new(NULL, cols, S_N_COLS + 2, 0);
	size_t order[S_N_COLS + 2], n = 0;
	order[n++] = S_N_COLS;
	order[n++] = S_N_COLS + 1;
	for (size_t i = 0; i < S_N_COLS; i++)
		if (!(step_cols[i].flags & COL_NO_CSV) && step_cols[i].kind != COL_NEST)
			order[n++] = i;
	rows_csv_order(r, order, n);
	for (size_t i = 0; i < a->ncurves; i++) {
		const struct press_curve *c = &a->curves[i];
		for (size_t k = 0; k < c->nsteps; k++) {
			step_row(r, a, &c->steps[k]);
			size_t row = rows_count(r) - 1;
			rows_str(r, row, S_N_COLS, c->workload);
			rows_str(r, row, S_N_COLS + 1, press_verdict_name(c->verdict));
		}
	}
	rows_write_data(r, OUT_CSV, fp);
}

static void header(const struct press_analysis *a, FILE *fp, bool md)
{
	const struct db_experiment *e = a->exp;
	char dom[32], ctl[32];
	fmt_size(dom, sizeof(dom), (double)a->domain_bytes);
	fmt_size(ctl, sizeof(ctl), (double)a->control_bytes);
	const char *pre = md ? "" : " ";
	fprintf(fp, md ? "**prof pressure**: experiment %lld" : " prof pressure: "
		"experiment %lld", (long long)e->id);
	if (!strcmp(a->method, "sim"))
		fprintf(fp, ", a simulated last level of %s at most, %s, %zu round%s\n%s",
			dom, press_metric_label(a->metric), a->counted_rounds,
			a->counted_rounds == 1 ? "" : "s", md ? "\n" : "");
	else
		fprintf(fp, ", L%d %s (CPUs %s), %s, %zu round%s\n%s", a->domain_level,
			dom, a->domain_cpus ? a->domain_cpus : "?",
			press_metric_label(a->metric), a->counted_rounds,
			a->counted_rounds == 1 ? "" : "s", md ? "\n" : "");
	if (!strcmp(a->method, "sim"))
		fprintf(fp, "%seach run under valgrind's cache model (its runs' sim.model "
			"says which); the control's last level is %s, each step's that "
			"less what it takes; judged from the medians against the runs' "
			"own spread\n", pre, dom);
	else if (!strcmp(a->method, "cat"))
		fprintf(fp, "%sworkload on CPU %d; cache taken by resctrl allocation "
			"(fewer L3 ways)\n", pre, a->workload_cpu);
	else
		fprintf(fp, "%sworkload on CPU %d, co-runner on CPU %d; control "
			"co-runner walks %s (half its L2)%s%.1f ns/line when it hits\n",
			pre, a->workload_cpu, a->corunner_cpu, ctl,
			isfinite(a->hit_ns) ? "; the co-runner takes " : "",
			isfinite(a->hit_ns) ? a->hit_ns : 0);
	const char *prep = exp_get(e, "prepare"), *clean = exp_get(e, "cleanup");
	if (prep)
		fprintf(fp, "%sprepare: '%s'\n", pre, prep);
	if (clean)
		fprintf(fp, "%scleanup: '%s'\n", pre, clean);
	if (e->status && strcmp(e->status, "complete"))
		fprintf(fp, "%sstatus: %s%s%s\n", pre, e->status, e->note ? ": " : "",
			e->note ? e->note : "");
}

static const size_t people_cols[] = {
	S_TAKEN, S_HELD, S_LEFT, S_DELTA, S_CI_VERDICT, S_P, S_N, S_MEDIAN,
	S_CORUNNER_NS, S_DUTY,
};

/* Simulated: what a step takes is exact, and there is no co-runner. */
static const size_t sim_people_cols[] = {
	S_TAKEN, S_LEFT, S_DELTA, S_CI_VERDICT, S_N, S_MEDIAN,
};

void press_render(const struct press_analysis *a, enum out_format fmt, FILE *fp)
{
	if (fmt == OUT_JSON) {
		write_json(a, fp);
		return;
	}
	if (fmt == OUT_CSV) {
		write_csv(a, fp);
		return;
	}
	if (fmt == OUT_SVG) {
		press_render_svg(a, fp);
		return;
	}
	bool md = fmt == OUT_MARKDOWN;
	bool sim = !strcmp(a->method, "sim");
	header(a, fp, md);
	for (size_t i = 0; i < a->ncurves; i++) {
		const struct press_curve *c = &a->curves[i];
		char med[64];
		fmt_count(med, sizeof(med), c->control_median, 4);
		fprintf(fp, md ? "\n`%s`: control median %s, gate ±%.1f%% (%s)\n\n"
			: "\n %s: control median %s, gate ±%.1f%% (%s)\n", c->workload,
			med, c->gate_pct, c->gate_source);
		struct rows *r = steps_rows(a, c);
		if (sim)
			rows_people_order(r, sim_people_cols, sizeof(sim_people_cols) /
					  sizeof(sim_people_cols[0]));
		else
			rows_people_order(r, people_cols, sizeof(people_cols) /
					  sizeof(people_cols[0]));
		rows_write(r, md ? OUT_MARKDOWN : OUT_TABLE, fp, 1);
		rows_free(r);
		fprintf(fp, md ? "\n**%s**\n" : "\n %s\n", c->summary ? c->summary : "?");
	}
	if (a->nwarnings)
		fputc('\n', fp);
	for (size_t i = 0; i < a->nwarnings; i++)
		fprintf(fp, md ? "> warning: %s\n" : " warning: %s\n", a->warnings[i]);
	if (sim) {
		fprintf(fp, md ? "\n_left: the last level simulated; Δ%%: the metric "
			"against the control's (the largest), medians compared, the "
			"interval twice the runs' own spread_\n" : "\n left: the last "
			"level simulated; Δ%%: the metric against the control's (the "
			"largest), medians compared, the interval twice the runs' own "
			"spread\n");
		return;
	}
	fprintf(fp, md ? "\n_held: what the co-runner kept of what it walked, from "
		"its time per line between a hit and a miss; left: the domain less "
		"what it held; Δ%%: the metric against the control co-runner of "
		"the same round; duty: the co-runner's share of the run's time on "
		"its CPU_\n" : "\n held: what the co-runner kept of what it "
		"walked (from its time per line between a hit and a miss); left: the "
		"domain less what it held;\n Δ%%: the metric against the control "
		"co-runner of the same round (paired log-ratio, 95%% CI); duty: the "
		"co-runner's share of the run's time on its CPU\n");
}
