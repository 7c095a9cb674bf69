/*
 * explain: the footprint, code-generation and cache-domain rules over two
 * sides of a comparison; see explain.h for the rules.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "common/order.h"
#include "reports/explain.h"
#include "reports/rows.h"

static const char *const kind_names[] = {
	"footprint", "codegen", "cache-domain", "no-domain-effect", "cannot-tell",
	"capacity", "no-capacity-effect",
};

const char *explain_kind_name(enum explain_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0])
	       ? kind_names[k] : "?";
}

/* ---- inputs ---- */

/* The unit people read a metric's values in, where not the stored one. */
static void shown_as(struct explain_metric *em, const char *unit)
{
	double f;
	const char *shown = unit_shown(unit, &f);
	em->shown_unit = shown != unit ? shown : NULL;
	em->shown_factor = f;
}

void explain_input_from_ab(const struct ab_analysis *a, size_t arm,
			   struct explain_input *in)
{
	memset(in, 0, sizeof(*in));
	in->side[0].footprint_bytes = in->side[1].footprint_bytes = NAN;
	in->side[0].touched_code_bytes = in->side[1].touched_code_bytes = NAN;
	in->side[0].touched_data_bytes = in->side[1].touched_data_bytes = NAN;
	in->experiment_id = (long)a->exp->id;
	in->rounds = a->counted_rounds;
	in->single_runs = false;
	in->nmetrics = a->nmetrics;
	in->metrics = calloc(a->nmetrics + 1, sizeof(*in->metrics));
	for (size_t m = 0; m < a->nmetrics; m++) {
		struct explain_metric *em = &in->metrics[m];
		const struct ab_cell *ca = &a->cells[0 * a->nmetrics + m];
		const struct ab_cell *cb = &a->cells[arm * a->nmetrics + m];
		const struct ab_comparison *cp = &a->cmp[(arm - 1) * a->nmetrics + m];
		em->name = a->metrics[m].name;
		em->supported = a->metrics[m].supported;
		em->higher_is_better = a->metrics[m].higher_is_better;
		shown_as(em, a->metrics[m].unit);
		em->gate_pct = a->metrics[m].gate_pct;
		em->a = ca->n ? ca->sum.median : NAN;
		em->b = cb->n ? cb->sum.median : NAN;
		em->have_stats = cp->computable;
		em->delta_pct = cp->computable ? cp->p.delta_pct : NAN;
		em->ci_lo = cp->computable ? cp->p.ci95_lo_pct : NAN;
		em->ci_hi = cp->computable ? cp->p.ci95_hi_pct : NAN;
		em->p_value = cp->computable ? cp->p.p_value : NAN;
		em->verdict = cp->computable ? cp->j.verdict : VERDICT_INCONCLUSIVE;
	}
}

void explain_input_from_runs(const struct db_run *a, const struct db_run *b,
			     struct explain_input *in)
{
	memset(in, 0, sizeof(*in));
	in->side[0].footprint_bytes = in->side[1].footprint_bytes = NAN;
	in->side[0].touched_code_bytes = in->side[1].touched_code_bytes = NAN;
	in->side[0].touched_data_bytes = in->side[1].touched_data_bytes = NAN;
	in->single_runs = true;
	in->rounds = 1;
	struct ab_pair pr;
	ab_pair_of_runs(a, b, &pr);
	in->nmetrics = pr.n;
	in->metrics = calloc(pr.n + 1, sizeof(*in->metrics));
	for (size_t m = 0; m < pr.n; m++) {
		struct explain_metric *em = &in->metrics[m];
		em->name = strdup(pr.metrics[m].name);
		em->supported = pr.metrics[m].supported;
		em->higher_is_better = pr.metrics[m].higher_is_better;
		shown_as(em, pr.metrics[m].unit);
		em->a = pr.a[m];
		em->b = pr.b[m];
		em->delta_pct = isfinite(em->a) && isfinite(em->b) && em->a > 0
				? 100.0 * (em->b / em->a - 1) : NAN;
		em->ci_lo = em->ci_hi = em->p_value = em->gate_pct = NAN;
		em->verdict = VERDICT_INCONCLUSIVE;
	}
	ab_pair_release(&pr);
}

void explain_input_release(struct explain_input *in)
{
	if (in->single_runs)
		for (size_t m = 0; m < in->nmetrics; m++)
			free((char *)in->metrics[m].name);
	free(in->metrics);
	memset(in, 0, sizeof(*in));
}

void explain_side_from_runs(const struct db_run *runs, size_t n, const char *label,
			    struct explain_side *side, struct explain_module *mods,
			    size_t maxmods)
{
	memset(side, 0, sizeof(*side));
	side->label = label;
	side->footprint_bytes = side->touched_code_bytes = NAN;
	side->touched_data_bytes = NAN;
	if (!n)
		return;
	double *fp = calloc(n, sizeof(double)), *tc = calloc(n, sizeof(double));
	double *td = calloc(n, sizeof(double));
	size_t nfp = 0, nws = 0;
	for (size_t i = 0; i < n; i++) {
		const struct db_run *r = &runs[i];
		if (r->nmodules) {
			double sum = 0;
			for (size_t k = 0; k < r->nmodules; k++)
				sum += (double)r->modules[k].exec_bytes;
			fp[nfp++] = sum;
		}
		if (r->nws) {
			double code = 0, data = 0;
			for (size_t k = 0; k < r->nws; k++) {
				if (!strcmp(r->ws[k].kind, "code"))
					code += (double)r->ws[k].touched_bytes;
				else
					data += (double)r->ws[k].touched_bytes;
			}
			tc[nws] = code;
			td[nws] = data;
			nws++;
		}
	}
	side->footprint_bytes = median_sort(fp, nfp);
	side->touched_code_bytes = median_sort(tc, nws);
	side->touched_data_bytes = median_sort(td, nws);
	free(fp);
	free(tc);
	free(td);
	const struct db_run *r0 = &runs[0];
	side->cpu_model = r0->host.cpu_model;
	side->pin_mode = r0->pin.mode;
	if (r0->pin.level > 0 && r0->pin.status && !strcmp(r0->pin.status, "applied")) {
		side->domain_level = r0->pin.level;
		side->domain_bytes = (double)r0->pin.size_bytes;
		side->domain_cpus = r0->pin.cpus;
	}
	size_t k = 0;
	for (; k < r0->nmodules && k < maxmods; k++) {
		const struct db_module *m = &r0->modules[k];
		mods[k].path = m->path;
		mods[k].bytes = (double)m->exec_bytes;
		mods[k].text_bytes = m->has_text ? (double)m->text_bytes : NAN;
		mods[k].touched = m->has_touched ? (double)m->touched_bytes : NAN;
	}
	side->modules = mods;
	side->nmodules = k;
}

void explain_side_add_profile(struct explain_side *side, const struct db_run *run,
			      const struct db_profile *p, struct explain_share *shares,
			      size_t max)
{
	if (!p->nevents || !p->nmodules)
		return;
	double *per = calloc(p->nmodules, sizeof(double));
	double total = 0;
	for (size_t i = 0; i < p->ncounts; i++) {
		const struct db_stack_count *c = &p->counts[i];
		if (c->event != 0 || !c->stack || c->stack > p->nstacks)
			continue;
		const struct db_stack_node *node = &p->stacks[c->stack - 1];
		if (!node->frame || node->frame > p->nframes)
			continue;
		const struct db_frame *fr = &p->frames[node->frame - 1];
		if (!fr->symbol || fr->symbol > p->nsymbols)
			continue;
		uint32_t mod = p->symbols[fr->symbol - 1].module;
		if (!mod || mod > p->nmodules)
			continue;
		per[mod - 1] += (double)c->samples;
		total += (double)c->samples;
	}
	size_t n = 0;
	while (n < max && total > 0) {
		size_t best = p->nmodules;
		for (size_t m = 0; m < p->nmodules; m++)
			if (per[m] > 0 && (best == p->nmodules || per[m] > per[best]))
				best = m;
		if (best == p->nmodules)
			break;
		shares[n].path = p->modules[best];
		shares[n].pct = 100.0 * per[best] / total;
		shares[n].bytes = NAN;
		for (size_t k = 0; run && k < run->nmodules; k++)
			if (!strcmp(run->modules[k].path, p->modules[best]))
				shares[n].bytes = (double)run->modules[k].exec_bytes;
		per[best] = 0;
		n++;
	}
	free(per);
	side->sampled_event = p->events[0].name;
	side->shares = shares;
	side->nshares = n;
}

/* ---- the rules ---- */

/* The counters the rules speak of, found by name in any normalised form:
 * misses per kilo-instruction first, then per CPU ms, then raw totals. */
enum family { F_LLC, F_ITLB, F_L1I, F_BRANCH, F_INS, F_TIME, F_COUNT };

static const char *const family_label[F_COUNT] = {
	"LLC misses", "iTLB misses", "L1i misses", "branch misses", "instructions",
	"wall time",
};

static bool in_family(const char *name, enum family f)
{
	switch (f) {
	case F_LLC:
		return strcasestr(name, "LLC") && strcasestr(name, "miss");
	case F_ITLB:
		return strcasestr(name, "iTLB") && strcasestr(name, "miss");
	case F_L1I:
		return (strcasestr(name, "L1-icache") || strcasestr(name, "L1i")) &&
		       strcasestr(name, "miss");
	case F_BRANCH:
		return strcasestr(name, "branch-miss") != NULL ||
		       strcasestr(name, "BRANCH_INSTRUCTIONS_MISPREDICTED") != NULL;
	case F_INS:
		return !strcmp(name, "instructions");
	case F_TIME:
		return !strcmp(name, "wall_s");
	default:
		return false;
	}
}

static const struct explain_metric *find_family(const struct explain_input *in,
						enum family f)
{
	static const char *const suffix[] = { ".pki", ".per_cpu_ms", "" };
	for (int pass = 0; pass < 3; pass++) {
		for (size_t m = 0; m < in->nmetrics; m++) {
			const char *n = in->metrics[m].name;
			if (!in_family(n, f))
				continue;
			size_t ln = strlen(n), ls = strlen(suffix[pass]);
			if (pass < 2 ? (ln > ls && !strcmp(n + ln - ls, suffix[pass]))
				     : !strchr(n, '.'))
				return &in->metrics[m];
		}
	}
	return NULL;
}

static bool usable(const struct explain_metric *m)
{
	return m && m->supported && isfinite(m->a) && isfinite(m->b);
}

/* Beyond noise: a better/worse verdict. Within: a verdict that is not. */
static bool beyond(const struct explain_metric *m)
{
	return usable(m) && m->have_stats &&
	       (m->verdict == VERDICT_BETTER || m->verdict == VERDICT_WORSE);
}

static bool within(const struct explain_metric *m)
{
	return usable(m) && m->have_stats && !beyond(m);
}

static int sign(double x)
{
	return x > 0 ? 1 : x < 0 ? -1 : 0;
}

static double pct_change(double a, double b)
{
	return isfinite(a) && isfinite(b) && a > 0 ? 100.0 * (b / a - 1) : NAN;
}

struct out {
	struct explain_finding *v;
	size_t n;
};

static void add(struct out *o, enum explain_kind k, const char *rule,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void add(struct out *o, enum explain_kind k, const char *rule,
		const char *fmt, ...)
{
	va_list ap;
	char *text;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	struct explain_finding *p = realloc(o->v, (o->n + 1) * sizeof(*p));
	if (!p)
		xalloc_die();
	o->v = p;
	p[o->n].kind = k;
	p[o->n].rule = strdup(rule);
	p[o->n].text = text;
	o->n++;
}

/* "LLC misses -40.1% [-45.0, -35.2]" */
static void describe(const struct explain_metric *m, const char *label,
		     char *buf, size_t n)
{
	if (!usable(m)) {
		snprintf(buf, n, "%s not measured", label);
		return;
	}
	if (m->have_stats && isfinite(m->ci_lo))
		snprintf(buf, n, "%s %+.1f%% [%+.1f, %+.1f]", label, m->delta_pct,
			 m->ci_lo, m->ci_hi);
	else
		snprintf(buf, n, "%s %+.1f%%", label, m->delta_pct);
}

/* Names of the unsupported counters among fams, "" when all are there. */
static void missing(const struct explain_input *in, const enum family *fams,
		    size_t nf, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < nf; i++) {
		const struct explain_metric *m = find_family(in, fams[i]);
		if (usable(m))
			continue;
		size_t len = strlen(buf);
		/* The counter's own name, without the normalising suffix. */
		const char *name = m ? m->name : family_label[fams[i]];
		int nl = (int)strcspn(name, ".");
		snprintf(buf + len, n - len, "%s%.*s", len ? ", " : "", nl, name);
	}
}

/* What the supported evidence shows: time and footprint. */
static void evidence(const struct explain_input *in, char *buf, size_t n)
{
	const struct explain_metric *t = find_family(in, F_TIME);
	char tb[96];
	describe(t, "wall time", tb, sizeof(tb));
	if (t && t->have_stats)
		snprintf(tb + strlen(tb), sizeof(tb) - strlen(tb), " (%s)",
			 stats_verdict_name(t->verdict));
	double fp = pct_change(in->side[0].footprint_bytes, in->side[1].footprint_bytes);
	double tc = pct_change(in->side[0].touched_code_bytes,
			       in->side[1].touched_code_bytes);
	snprintf(buf, n, "%s", tb);
	if (isfinite(fp))
		snprintf(buf + strlen(buf), n - strlen(buf), "; code footprint %+.1f%%", fp);
	if (isfinite(tc))
		snprintf(buf + strlen(buf), n - strlen(buf), "; touched code %+.1f%%", tc);
}

static void rule_footprint(const struct explain_input *in, struct out *o)
{
	double fp = pct_change(in->side[0].footprint_bytes, in->side[1].footprint_bytes);
	double tc = pct_change(in->side[0].touched_code_bytes,
			       in->side[1].touched_code_bytes);
	/* The larger move of the two decides the direction. */
	double mv = fabs(fp) >= (isfinite(tc) ? fabs(tc) : 0) || !isfinite(tc) ? fp : tc;
	if (!isfinite(mv) || fabs(mv) < 10.0)
		return;
	static const enum family need[] = { F_LLC, F_ITLB, F_L1I, F_BRANCH };
	char miss[256];
	missing(in, need, 4, miss, sizeof(miss));
	const struct explain_metric *br = find_family(in, F_BRANCH);
	bool any_fp_counter = usable(find_family(in, F_LLC)) ||
			      usable(find_family(in, F_ITLB)) ||
			      usable(find_family(in, F_L1I));
	char ev[256];
	evidence(in, ev, sizeof(ev));
	if (!any_fp_counter || !usable(br)) {
		add(o, FINDING_CANNOT_TELL, "footprint",
		    "cannot tell whether the %+.1f%% change in %s is a working-set "
		    "effect: %s %s not supported on this machine; what it does show: %s",
		    mv, mv == fp ? "code footprint" : "touched code", miss,
		    strchr(miss, ',') ? "are" : "is", ev);
		return;
	}
	if (in->single_runs)
		return;	/* said once, in the single-run finding */
	char moved[512] = "";
	int nmoved = 0;
	static const enum family fams[] = { F_LLC, F_ITLB, F_L1I };
	for (int i = 0; i < 3; i++) {
		const struct explain_metric *m = find_family(in, fams[i]);
		if (!beyond(m) || sign(m->delta_pct) != sign(mv))
			continue;
		char d[128];
		describe(m, family_label[fams[i]], d, sizeof(d));
		snprintf(moved + strlen(moved), sizeof(moved) - strlen(moved), "%s%s",
			 nmoved ? ", " : "", d);
		nmoved++;
	}
	if (!nmoved || !within(br))
		return;
	char bd[128];
	describe(br, "branch misses", bd, sizeof(bd));
	add(o, FINDING_FOOTPRINT, "footprint",
	    "working-set effect: %s moved %+.1f%% (%.0f MiB -> %.0f MiB), and %s "
	    "moved the same way beyond noise, while %s stayed within noise",
	    mv == fp ? "code footprint" : "touched code", mv,
	    (mv == fp ? in->side[0].footprint_bytes : in->side[0].touched_code_bytes) / 1048576.0,
	    (mv == fp ? in->side[1].footprint_bytes : in->side[1].touched_code_bytes) / 1048576.0,
	    moved, bd);
	if (miss[0])
		add(o, FINDING_CANNOT_TELL, "footprint",
		    "part of the footprint evidence is missing: %s not supported on "
		    "this machine", miss);
}

static void rule_codegen(const struct explain_input *in, struct out *o)
{
	const struct explain_metric *br = find_family(in, F_BRANCH);
	const struct explain_metric *ins = find_family(in, F_INS);
	if (in->single_runs)
		return;
	const struct explain_metric *driver = beyond(br) ? br : beyond(ins) ? ins : NULL;
	if (!driver) {
		if (!usable(br) && !usable(ins)) {
			char ev[256];
			evidence(in, ev, sizeof(ev));
			const struct explain_metric *t = find_family(in, F_TIME);
			if (beyond(t))
				add(o, FINDING_CANNOT_TELL, "codegen",
				    "cannot tell whether code generation explains the "
				    "change: branch-misses and instructions are not "
				    "supported on this machine; what it does show: %s", ev);
		}
		return;
	}
	static const enum family fams[] = { F_LLC, F_ITLB, F_L1I };
	char same[384] = "", other[384] = "", flat[384] = "";
	int nsame = 0, nother = 0, nflat = 0, nusable = 0;
	for (int i = 0; i < 3; i++) {
		const struct explain_metric *m = find_family(in, fams[i]);
		if (!usable(m))
			continue;
		nusable++;
		char d[128];
		describe(m, family_label[fams[i]], d, sizeof(d));
		if (!beyond(m)) {
			snprintf(flat + strlen(flat), sizeof(flat) - strlen(flat), "%s%s",
				 nflat++ ? ", " : "", d);
		} else if (sign(m->delta_pct) == sign(driver->delta_pct)) {
			snprintf(same + strlen(same), sizeof(same) - strlen(same), "%s%s",
				 nsame++ ? ", " : "", d);
		} else {
			snprintf(other + strlen(other), sizeof(other) - strlen(other), "%s%s",
				 nother++ ? ", " : "", d);
		}
	}
	char dd[128];
	describe(driver, driver == br ? "branch misses" : "instructions", dd, sizeof(dd));
	if (nusable == 0) {
		add(o, FINDING_CANNOT_TELL, "codegen",
		    "%s moved beyond noise, but LLC, iTLB and L1i misses are not "
		    "supported here, so a footprint cause cannot be ruled out", dd);
		return;
	}
	if (nsame)
		return;	/* everything moved together: not codegen alone */
	if (nother)
		add(o, FINDING_CODEGEN, "codegen",
		    "code-generation effect: %s beyond noise, while %s moved the other "
		    "way: the new code pays in memory-system pressure%s%s", dd, other,
		    nflat ? "; flat: " : "", flat);
	else
		add(o, FINDING_CODEGEN, "codegen",
		    "code-generation effect: %s beyond noise, while the footprint-related "
		    "misses stayed within noise (%s)", dd, flat);
}

static void rule_domain(const struct explain_input *in, struct out *o)
{
	const struct explain_side *a = &in->side[0], *b = &in->side[1];
	if (a->domain_level <= 0 || b->domain_level <= 0 ||
	    !isfinite(a->domain_bytes) || !isfinite(b->domain_bytes))
		return;
	char sa[32], sb[32];
	fmt_bytes(sa, sizeof(sa), a->domain_bytes);
	fmt_bytes(sb, sizeof(sb), b->domain_bytes);
	if (a->domain_bytes == b->domain_bytes) {
		add(o, FINDING_NO_DOMAIN_EFFECT, "cache-domain",
		    "both sides ran in %s L%d domains: domain choice cannot matter "
		    "here; this says nothing about capacity (whether %s holds the "
		    "working set)", sa, a->domain_level, sa);
		return;
	}
	bool b_larger = b->domain_bytes > a->domain_bytes;
	const struct explain_metric *t = find_family(in, F_TIME);
	const struct explain_metric *llc = find_family(in, F_LLC);
	char td[128], ld[128];
	describe(t, "wall time", td, sizeof(td));
	if (!usable(llc)) {
		add(o, FINDING_CANNOT_TELL, "cache-domain",
		    "the sides ran in domains of different size (%s: %s, %s: %s), but "
		    "LLC misses are not supported on this machine; what it does show: %s%s",
		    a->label ? a->label : "A", sa, b->label ? b->label : "B", sb, td,
		    t && t->have_stats ? (beyond(t) ? " (beyond noise)" : " (within noise)")
		    : "");
		return;
	}
	describe(llc, "LLC misses", ld, sizeof(ld));
	if (in->single_runs)
		return;
	/* In favour of the larger: lower time and misses on the larger side. */
	int want = b_larger ? -1 : 1;
	if (beyond(t) && beyond(llc) && sign(t->delta_pct) == want &&
	    sign(llc->delta_pct) == want) {
		add(o, FINDING_CACHE_DOMAIN, "cache-domain",
		    "cache-domain effect: %s ran in a %s L%d domain and %s in %s; %s and "
		    "%s moved beyond noise in favour of the larger",
		    a->label ? a->label : "A", sa, a->domain_level,
		    b->label ? b->label : "B", sb, td, ld);
	} else {
		add(o, FINDING_NO_DOMAIN_EFFECT, "cache-domain",
		    "the domains differ (%s vs %s), but time and LLC misses did not both "
		    "move beyond noise in favour of the larger (%s; %s)", sa, sb, td, ld);
	}
}

void explain_capacity_from(const struct press_analysis *a, size_t curve, bool own,
			   struct explain_capacity *out)
{
	const struct press_curve *c = &a->curves[curve];
	out->experiment_id = (long)a->exp->id;
	out->workload = c->workload;
	out->verdict = c->verdict;
	out->summary = c->summary;
	out->own = own;
	out->simulated = a->method && !strcmp(a->method, "sim");
}

/* Capacity: what taking shared cache away did, from a pressure experiment. */
static void rule_capacity(const struct explain_input *in, struct out *o)
{
	const struct explain_capacity *c = in->capacity;
	if (!c)
		return;
	char from[96];
	snprintf(from, sizeof(from), "%s %ld, workload %s", c->own ? "this pressure "
		 "experiment" : "pressure experiment", c->experiment_id,
		 c->workload ? c->workload : "?");
	const char *s = c->summary ? c->summary : press_verdict_name(c->verdict);
	switch (c->verdict) {
	case PRESS_SENSITIVE:
		if (c->simulated)
			add(o, FINDING_CAPACITY, "capacity", "capacity effect (%s): %s; "
			    "in valgrind's cache model a larger last level would absorb "
			    "this working set (simulated, not measured)", from, s);
		else
			add(o, FINDING_CAPACITY, "capacity", "capacity effect (%s): %s; the "
			    "workload loses time when shared cache is taken from it, "
			    "measured without counters", from, s);
		break;
	case PRESS_NOT_SENSITIVE:
		add(o, FINDING_NO_CAPACITY_EFFECT, "capacity", "no capacity effect "
		    "(%s): %s", from, s);
		break;
	default:
		add(o, FINDING_CANNOT_TELL, "capacity", "cannot tell whether capacity "
		    "matters (%s): %s", from, s);
		break;
	}
}

size_t explain_findings(const struct explain_input *in,
			struct explain_finding **out)
{
	struct out o = { NULL, 0 };
	if (in->single_runs)
		add(&o, FINDING_CANNOT_TELL, "noise",
		    "one run each, no noise estimate: no effect is claimed; run "
		    "'prof ab' with these commands as arms for one");
	rule_footprint(in, &o);
	rule_codegen(in, &o);
	rule_domain(in, &o);
	rule_capacity(in, &o);
	/* Silence is a finding only when the counters could have spoken. */
	static const enum family hw[] = { F_LLC, F_ITLB, F_L1I, F_BRANCH };
	bool any_hw = false;
	for (size_t i = 0; i < 4; i++)
		any_hw = any_hw || usable(find_family(in, hw[i]));
	if (!o.n && !any_hw) {
		char miss[256];
		missing(in, hw, 4, miss, sizeof(miss));
		add(&o, FINDING_CANNOT_TELL, "counters",
		    "cannot tell: no cache or branch counter was counted (%s), and no "
		    "footprint, code generation or cache domain change was large "
		    "enough to judge without them; on a machine with a PMU, prof "
		    "explain can say more", miss);
	}
	*out = o.v;
	return o.n;
}

void explain_findings_free(struct explain_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].rule);
		free(f[i].text);
	}
	free(f);
}

/* ---- rendering ---- */

static void side_bytes(char *buf, size_t n, double v)
{
	if (isfinite(v))
		fmt_bytes(buf, n, v);
	else
		snprintf(buf, n, "n/a");
}

enum {
	E_METRIC, E_SUPPORTED, E_A, E_B, E_DELTA, E_CI, E_CI_LO, E_CI_HI,
	E_VERDICT, E_CI_VERDICT, E_N
};

/* One metric, B against A. JSON: {metric, supported, a, b, delta_pct,
 * and ci95_pct, verdict from an experiment}; CSV spells the interval
 * out; people read the interval and the verdict in one column. */
static const struct col metric_cols[E_N] = {
	[E_METRIC] = { .key = "metric", .title = "" },
	[E_SUPPORTED] = { .key = "supported", .kind = COL_BOOL,
			  .flags = COL_MACHINES },
	[E_A] = { .key = "a", .kind = COL_REAL, .none = "n/a" },
	[E_B] = { .key = "b", .kind = COL_REAL, .none = "n/a" },
	[E_DELTA] = { .key = "delta_pct", .title = "Δ%", .kind = COL_PCT,
		      .decimals = 1, .none = "n/a" },
	[E_CI] = { .key = "ci95_pct", .kind = COL_NEST },
	[E_CI_LO] = { .key = "ci95_lo_pct", .kind = COL_PCT,
		      .flags = COL_MACHINES | COL_NO_JSON },
	[E_CI_HI] = { .key = "ci95_hi_pct", .kind = COL_PCT,
		      .flags = COL_MACHINES | COL_NO_JSON },
	[E_VERDICT] = { .key = "verdict", .flags = COL_MACHINES },
	[E_CI_VERDICT] = { .key = "ci_verdict", .title = "95% CI / verdict",
			   .kind = COL_TEXT, .flags = COL_PEOPLE },
};

static void set_delta(struct rows *r, size_t row, double d)
{
	rows_num(r, row, E_DELTA, d);
	if (isfinite(d))
		rows_text(r, row, E_DELTA, "%+.1f", d);
}

/* A value as the side-by-side table shows it: in the unit people read
 * it in (unit_shown: ns as ms, two decimals, as the run tables show
 * task-clock), four decimals for small reals (IPC, per-kinst rates),
 * whole numbers for the rest. */
static void set_side_value(struct rows *r, size_t row, size_t col, double v,
			   const struct explain_metric *x)
{
	char buf[64];
	rows_num(r, row, col, v);
	if (!isfinite(v))
		return;
	if (x->shown_unit)
		fmt_count(buf, sizeof(buf), v * x->shown_factor, 2);
	else
		fmt_count(buf, sizeof(buf), v, fabs(v) < 100 && v != floor(v) ? 4 : 0);
	rows_text(r, row, col, "%s", buf);
}

static void metric_row(struct rows *r, const struct explain_metric *x)
{
	size_t row = rows_add(r);
	rows_str(r, row, E_METRIC, x->name);
	if (x->shown_unit)
		rows_text(r, row, E_METRIC, "%s (%s)", x->name, x->shown_unit);
	rows_bool(r, row, E_SUPPORTED, x->supported);
	if (!x->supported) {
		rows_null(r, row, E_A);
		rows_null(r, row, E_B);
		rows_null(r, row, E_DELTA);
		rows_text(r, row, E_A, "not supported");
		rows_text(r, row, E_B, "not supported");
		rows_text(r, row, E_DELTA, "%s", "");
		return;
	}
	set_side_value(r, row, E_A, x->a, x);
	set_side_value(r, row, E_B, x->b, x);
	set_delta(r, row, x->delta_pct);
	if (!x->have_stats)
		return;
	static const struct col ci_col = { .key = "pct", .kind = COL_PCT };
	struct rows *ci = rows_new(NULL, &ci_col, 1, ROWS_VALUES | ROWS_FLAT);
	rows_num(ci, rows_add(ci), 0, x->ci_lo);
	rows_num(ci, rows_add(ci), 0, x->ci_hi);
	rows_nest(r, row, E_CI, ci);
	rows_str(r, row, E_VERDICT, stats_verdict_name(x->verdict));
	rows_num(r, row, E_CI_LO, x->ci_lo);
	rows_num(r, row, E_CI_HI, x->ci_hi);
	rows_text(r, row, E_CI_VERDICT, "[%+.1f, %+.1f] %s", x->ci_lo, x->ci_hi,
		  stats_verdict_name(x->verdict));
}

/*
 * The side-by-side table: the sides' footprint, touched code and data
 * (machines read them as *_bytes metrics), the cache domains (people
 * only), then every metric; the A and B columns carry the sides'
 * labels.
 */
static struct rows *side_by_side(const struct explain_input *in)
{
	const struct explain_side *a = &in->side[0], *b = &in->side[1];
	struct col cols[E_N];
	memcpy(cols, metric_cols, sizeof(cols));
	cols[E_A].title = a->label ? a->label : "A";
	cols[E_B].title = b->label ? b->label : "B";
	struct rows *r = rows_new("metrics", cols, E_N, 0);
	const struct { const char *key, *name; double va, vb; } bytes[] = {
		{ "code_footprint_bytes", "code footprint", a->footprint_bytes,
		  b->footprint_bytes },
		{ "touched_code_bytes", "touched code", a->touched_code_bytes,
		  b->touched_code_bytes },
		{ "touched_data_bytes", "touched data", a->touched_data_bytes,
		  b->touched_data_bytes },
	};
	char sz[32];
	for (size_t i = 0; i < 3; i++) {
		if (!isfinite(bytes[i].va) && !isfinite(bytes[i].vb))
			continue;
		size_t row = rows_add(r);
		rows_str(r, row, E_METRIC, bytes[i].key);
		rows_text(r, row, E_METRIC, "%s", bytes[i].name);
		rows_bool(r, row, E_SUPPORTED, true);
		const double v[2] = { bytes[i].va, bytes[i].vb };
		for (int s = 0; s < 2; s++) {
			rows_num(r, row, E_A + (size_t)s, v[s]);
			if (isfinite(v[s])) {
				fmt_bytes(sz, sizeof(sz), v[s]);
				rows_text(r, row, E_A + (size_t)s, "%s", sz);
			}
		}
		set_delta(r, row, pct_change(bytes[i].va, bytes[i].vb));
	}
	size_t row = rows_add_people(r);
	rows_text(r, row, E_METRIC, "cache domain");
	for (int s = 0; s < 2; s++) {
		const struct explain_side *x = &in->side[s];
		if (x->domain_level > 0) {
			fmt_bytes(sz, sizeof(sz), x->domain_bytes);
			rows_text(r, row, E_A + (size_t)s, "L%d %s, CPUs %s",
				  x->domain_level, sz, x->domain_cpus ? x->domain_cpus : "?");
		} else if (x->pin_mode && strcmp(x->pin_mode, "none")) {
			/* pinned, but not to a cache domain (a CPU list) */
			rows_text(r, row, E_A + (size_t)s, "none (pinned %s)", x->pin_mode);
		} else {
			rows_text(r, row, E_A + (size_t)s, "not pinned");
		}
	}
	for (size_t m = 0; m < in->nmetrics; m++)
		metric_row(r, &in->metrics[m]);
	return r;
}

enum { SH_MODULE, SH_PCT, SH_BYTES, SH_N };

static const struct col share_cols[SH_N] = {
	[SH_MODULE] = { .key = "module" },
	[SH_PCT] = { .key = "pct", .kind = COL_PCT, .decimals = 1 },
	[SH_BYTES] = { .key = "exec_bytes", .kind = COL_BYTES },
};

#define SIDE_MODULE_COLS(K) \
	K(MO_PATH, "path", TEXT) K(MO_EXEC, "exec_bytes", BYTES) \
	K(MO_TEXT, "text_bytes", BYTES) K(MO_TOUCHED, "touched_bytes", BYTES)
ROWS_KEYS(side_module_cols, MO_N, SIDE_MODULE_COLS);

#define DOMAIN_COLS(K) \
	K(DO_LEVEL, "level", INT) K(DO_SIZE, "size_bytes", BYTES) \
	K(DO_CPUS, "cpus", TEXT)
ROWS_KEYS(domain_cols, DO_N, DOMAIN_COLS);

#define SIDE_COLS(K) \
	K(SI_LABEL, "label", TEXT) K(SI_CPU_MODEL, "cpu_model", TEXT) \
	K(SI_FOOTPRINT, "code_footprint_bytes", BYTES) \
	K(SI_TOUCHED_CODE, "touched_code_bytes", BYTES) \
	K(SI_TOUCHED_DATA, "touched_data_bytes", BYTES) \
	K(SI_PIN, "pin", TEXT) K(SI_DOMAIN, "domain", NEST) \
	K(SI_EVENT, "sampled_event", TEXT) K(SI_SHARES, "sample_shares", NEST) \
	K(SI_MODULES, "modules", NEST)
ROWS_KEYS(side_cols, SI_N, SIDE_COLS);

static void side_row(struct rows *r, const struct explain_side *x)
{
	size_t row = rows_add(r);
	rows_str(r, row, SI_LABEL, x->label);
	rows_str(r, row, SI_CPU_MODEL, x->cpu_model);
	rows_num(r, row, SI_FOOTPRINT, x->footprint_bytes);
	rows_num(r, row, SI_TOUCHED_CODE, x->touched_code_bytes);
	rows_num(r, row, SI_TOUCHED_DATA, x->touched_data_bytes);
	rows_str(r, row, SI_PIN, x->pin_mode);
	struct rows *d = rows_new(NULL, domain_cols, DO_N, ROWS_OBJECT);
	if (x->domain_level > 0) {
		size_t k = rows_add(d);
		rows_int(d, k, DO_LEVEL, x->domain_level);
		rows_num(d, k, DO_SIZE, x->domain_bytes);
		rows_str(d, k, DO_CPUS, x->domain_cpus);
	}
	rows_nest(r, row, SI_DOMAIN, d);
	rows_str(r, row, SI_EVENT, x->sampled_event);
	struct rows *sh = rows_new(NULL, share_cols, SH_N, ROWS_FLAT);
	for (size_t i = 0; i < x->nshares; i++) {
		size_t k = rows_add(sh);
		rows_str(sh, k, SH_MODULE, x->shares[i].path);
		rows_num(sh, k, SH_PCT, x->shares[i].pct);
		rows_num(sh, k, SH_BYTES, x->shares[i].bytes);
	}
	rows_nest(r, row, SI_SHARES, sh);
	struct rows *mo = rows_new(NULL, side_module_cols, MO_N, ROWS_FLAT);
	for (size_t i = 0; i < x->nmodules; i++) {
		size_t k = rows_add(mo);
		rows_str(mo, k, MO_PATH, x->modules[i].path);
		rows_num(mo, k, MO_EXEC, x->modules[i].bytes);
		rows_num(mo, k, MO_TEXT, x->modules[i].text_bytes);
		rows_num(mo, k, MO_TOUCHED, x->modules[i].touched);
	}
	rows_nest(r, row, SI_MODULES, mo);
}

#define FINDING_COLS(K) \
	K(F_KIND, "kind", TEXT) K(F_RULE, "rule", TEXT) \
	K(F_TEXT, "text", TEXT)
ROWS_KEYS(finding_cols, F_N, FINDING_COLS);

#define EXPLAIN_COLS(K) \
	K(X_EXPERIMENT, "experiment_id", INT) K(X_SINGLE, "single_runs", BOOL) \
	K(X_SIDES, "sides", NEST) K(X_METRICS, "metrics", NEST) \
	K(X_FINDINGS, "findings", NEST)
ROWS_KEYS(explain_cols, X_N, EXPLAIN_COLS);

static void write_json(const struct explain_input *in,
		       const struct explain_finding *f, size_t n, FILE *fp)
{
	struct rows *doc = rows_new(NULL, explain_cols, X_N, 0);
	size_t row = rows_add(doc);
	if (in->experiment_id)
		rows_int(doc, row, X_EXPERIMENT, in->experiment_id);
	rows_bool(doc, row, X_SINGLE, in->single_runs);
	struct rows *sides = rows_new(NULL, side_cols, SI_N, 0);
	for (int s = 0; s < 2; s++)
		side_row(sides, &in->side[s]);
	rows_nest(doc, row, X_SIDES, sides);
	struct rows *metrics = rows_new(NULL, metric_cols, E_N, ROWS_FLAT);
	for (size_t m = 0; m < in->nmetrics; m++)
		metric_row(metrics, &in->metrics[m]);
	rows_nest(doc, row, X_METRICS, metrics);
	struct rows *findings = rows_new(NULL, finding_cols, F_N, 0);
	for (size_t i = 0; i < n; i++) {
		size_t k = rows_add(findings);
		rows_str(findings, k, F_KIND, explain_kind_name(f[i].kind));
		rows_str(findings, k, F_RULE, f[i].rule);
		rows_str(findings, k, F_TEXT, f[i].text);
	}
	rows_nest(doc, row, X_FINDINGS, findings);
	rows_write_data(doc, OUT_JSON, fp);
}

void explain_render(const struct explain_input *in,
		    const struct explain_finding *f, size_t n,
		    enum out_format fmt, FILE *fp)
{
	const struct explain_side *a = &in->side[0], *b = &in->side[1];
	if (fmt == OUT_JSON) {
		write_json(in, f, n, fp);
		return;
	}
	struct rows *t = side_by_side(in);
	if (fmt == OUT_CSV) {
		rows_write_data(t, OUT_CSV, fp);
		return;
	}
	bool md = fmt == OUT_MARKDOWN;
	if (a->cpu_model && b->cpu_model && strcmp(a->cpu_model, b->cpu_model))
		fprintf(fp, md ? "> **warning:** the sides ran on different machines: "
			"%s and %s\n\n" : " warning: the sides ran on different machines: "
			"%s and %s\n\n", a->cpu_model, b->cpu_model);
	if (in->experiment_id)
		fprintf(fp, md ? "**prof explain**: experiment %ld, `%s` against `%s` "
			"(%zu rounds)\n\n" : " prof explain: experiment %ld, %s against %s "
			"(%zu rounds)\n\n", in->experiment_id, b->label, a->label, in->rounds);
	else
		fprintf(fp, md ? "**prof explain**: %s against %s (one run each)\n\n"
			: " prof explain: %s against %s (one run each)\n\n", b->label, a->label);
	rows_write(t, md ? OUT_MARKDOWN : OUT_TABLE, fp, 1);
	rows_free(t);
	for (int s = 0; s < 2; s++) {
		const struct explain_side *x = &in->side[s];
		if (!x->nmodules)
			continue;
		fprintf(fp, md ? "\nlargest modules of `%s`:\n" : "\n largest modules of %s:\n",
			x->label);
		for (size_t i = 0; i < x->nmodules && i < 5; i++) {
			char sz[32], tx[32], tc[32];
			fmt_bytes(sz, sizeof(sz), x->modules[i].bytes);
			side_bytes(tx, sizeof(tx), x->modules[i].text_bytes);
			side_bytes(tc, sizeof(tc), x->modules[i].touched);
			fprintf(fp, md ? "- `%s`: %s mapped executable, .text %s, touched %s\n"
				: "   %-44s %10s mapped, .text %10s, touched %s\n",
				x->modules[i].path, sz, tx, tc);
		}
	}
	for (int s = 0; s < 2; s++) {
		const struct explain_side *x = &in->side[s];
		if (!x->nshares)
			continue;
		fprintf(fp, md ? "\nwhere the %s samples of `%s` fall:\n"
			: "\n where the %s samples of %s fall:\n", x->sampled_event, x->label);
		for (size_t i = 0; i < x->nshares; i++) {
			char sz[32];
			side_bytes(sz, sizeof(sz), x->shares[i].bytes);
			fprintf(fp, md ? "- `%s`: %.1f%% of the samples, %s mapped executable\n"
				: "   %-44s %5.1f%% of the samples, %10s mapped\n",
				x->shares[i].path, x->shares[i].pct, sz);
		}
	}
	fprintf(fp, md ? "\n**findings**\n\n" : "\n findings:\n");
	for (size_t i = 0; i < n; i++)
		fprintf(fp, md ? "- **%s**: %s\n" : "   [%s] %s\n",
			explain_kind_name(f[i].kind), f[i].text);
	if (n == 0)
		fprintf(fp, md ? "- no rule fired: nothing here points at footprint, "
			"code generation or the cache domain\n" : "   no rule fired: nothing "
			"here points at footprint, code generation or the cache domain\n");
}
