/*
 * explain: findings about two runs or two arms of an experiment: is a
 * difference a working-set (footprint) effect, a code-generation effect,
 * a cache-domain effect, or can this machine not tell? Each finding states
 * the rule that fired and the numbers behind it.
 *
 * The rules (each a row of a table, tested one by one):
 *  - footprint: code footprint or touched code moved by 10% or more, the
 *    iTLB, L1i or LLC misses moved the same way beyond noise, and branch
 *    misses stayed within noise;
 *  - codegen: branch misses (or instructions) moved beyond noise while the
 *    footprint-related misses did not, or moved the other way;
 *  - cache-domain: the two sides ran in cache domains of different size,
 *    and time and LLC misses moved beyond noise in favour of the larger;
 *    when the domains are the same size, the null is stated exactly
 *    (no-domain-effect), since domain choice cannot matter there and that
 *    says nothing about capacity;
 *  - cannot-tell: a counter a rule needs is not supported on this machine:
 *    it is named, with what the supported evidence does show;
 *  - capacity: a `prof pressure` experiment of the workload (the one
 *    explained, or the newest complete one of the same command on the same
 *    host) found it cache-sensitive: taking shared cache away cost time
 *    beyond noise; no-capacity-effect when it found no cost within its
 *    gate; cannot-tell when it was inconclusive. This needs no counter, so
 *    a machine without a PMU still gets an answer about capacity.
 * "Beyond noise" is a better/worse verdict of reports/stats (95% CI
 * excludes zero and the effect clears the gate); "within noise" is its
 * absence. One run per side has no noise estimate: no effect is claimed.
 *
 * Pure: reads the structs below, writes to a FILE. Not thread-safe.
 */
#ifndef REPORTS_EXPLAIN_H
#define REPORTS_EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>

#include "db/samples.h"
#include "reports/ab.h"
#include "reports/pressure.h"
#include "reports/output.h"

struct explain_module {
	const char *path;
	double bytes;		/* executable bytes mapped */
	double text_bytes;	/* .text from the ELF file, NAN when unknown */
	double touched;		/* touched code bytes, NAN when not measured */
};

/* A module's share of a sampled run's samples (where the misses fall). */
struct explain_share {
	const char *path;
	double pct;		/* of the event's samples, by leaf frame */
	double bytes;		/* its mapped executable bytes, NAN unknown */
};

struct explain_side {
	const char *label;		/* arm name or "run 12" */
	const char *cpu_model;
	double footprint_bytes;		/* code footprint; NAN unknown */
	double touched_code_bytes;	/* NAN when not measured */
	double touched_data_bytes;
	const char *pin_mode;		/* "none", "largest-llc", ... */
	int domain_level;		/* 0: not pinned to a cache domain */
	double domain_bytes;
	const char *domain_cpus;
	const struct explain_module *modules;	/* largest first */
	size_t nmodules;
	const char *sampled_event;	/* NULL: the run was not sampled */
	const struct explain_share *shares;	/* hottest first */
	size_t nshares;
};

/* One metric, B against A. */
struct explain_metric {
	const char *name;
	bool supported;
	bool higher_is_better;
	double a, b;			/* medians (single runs: the values) */
	/* where people read a and b in another unit than stored
	 * (unit_shown: ns as ms): that unit and the factor to it; NULL
	 * where they read them as stored */
	const char *shown_unit;
	double shown_factor;
	double delta_pct;
	bool have_stats;		/* from an experiment */
	double ci_lo, ci_hi, p_value, gate_pct;
	enum stats_verdict verdict;	/* when have_stats */
};

/* What a pressure experiment said about one workload. */
struct explain_capacity {
	long experiment_id;
	const char *workload;
	enum press_verdict verdict;
	const char *summary;		/* the curve's sentence */
	bool own;			/* the experiment explained is this one */
	bool simulated;			/* --method sim: a model's last level */
};

struct explain_input {
	struct explain_side side[2];	/* [0] baseline (A), [1] B */
	struct explain_metric *metrics;
	size_t nmetrics;
	bool single_runs;		/* one run each: no noise estimate */
	size_t rounds;
	long experiment_id;		/* 0 for two runs */
	const struct explain_capacity *capacity;	/* NULL: none known */
};

enum explain_kind {
	FINDING_FOOTPRINT,
	FINDING_CODEGEN,
	FINDING_CACHE_DOMAIN,
	FINDING_NO_DOMAIN_EFFECT,
	FINDING_CANNOT_TELL,
	FINDING_CAPACITY,
	FINDING_NO_CAPACITY_EFFECT,
};

const char *explain_kind_name(enum explain_kind k);

struct explain_finding {
	enum explain_kind kind;
	char *rule;		/* which rule, short */
	char *text;		/* the finding with its numbers */
};

/*
 * Metrics of arm `arm` against the baseline from an experiment analysis
 * (borrowed pointers into a; valid while a lives). Sides are left for the
 * caller to fill (labels, footprint, domains).
 */
void explain_input_from_ab(const struct ab_analysis *a, size_t arm,
			   struct explain_input *in);
/* Metrics of two single runs. */
void explain_input_from_runs(const struct db_run *a, const struct db_run *b,
			     struct explain_input *in);
void explain_input_release(struct explain_input *in);

/*
 * One side from stored runs of it (one for a run, the counted runs of an
 * arm for an experiment): footprint, touched code and data are medians,
 * the modules and the cache domain those of the first run. mods is
 * caller storage for up to maxmods modules (borrowed pointers into runs).
 */
void explain_side_from_runs(const struct db_run *runs, size_t n, const char *label,
			    struct explain_side *side, struct explain_module *mods,
			    size_t maxmods);

/*
 * Where a sampled run's samples fall: each module's share of the first
 * sampled event, by leaf frame, hottest first, beside its mapped size
 * (from run's modules). shares is caller storage for up to max entries;
 * the side borrows strings from p and run.
 */
void explain_side_add_profile(struct explain_side *side, const struct db_run *run,
			      const struct db_profile *p, struct explain_share *shares,
			      size_t max);

/* The capacity evidence of curve `curve` of a pressure analysis (borrowed
 * pointers into a). own: a is the experiment being explained. */
void explain_capacity_from(const struct press_analysis *a, size_t curve, bool own,
			   struct explain_capacity *out);

/* Apply every rule. *out is malloc'd (free with explain_findings_free). */
size_t explain_findings(const struct explain_input *in,
			struct explain_finding **out);
void explain_findings_free(struct explain_finding *f, size_t n);

/* The side-by-side table and the findings: table, markdown or JSON. */
void explain_render(const struct explain_input *in,
		    const struct explain_finding *f, size_t n,
		    enum out_format fmt, FILE *fp);

#endif
