/*
 * abstat (reports): the analysis of an A/B experiment, computed from what
 * the database holds, so `prof ab` and `prof compare` print the same
 * numbers. For each metric (wall_s, cpu_s, cores, user_s and sys_s from
 * wait4, every counter, misses
 * per thousand instructions when instructions were counted, every score,
 * per-unit costs, and the whole machine's deltas that `prof report
 * --system` shows first, as "system.vmstat.pgfault" and the like, lower
 * is better, where the runs have them stored and they moved), each arm's
 * summary, and against the baseline the
 * paired log-ratio statistics of reports/stats with a verdict against a
 * noise gate. Nothing here prints: reports/ab.h lays the result out.
 *
 * Which runs count: not warm-ups, exit status 0 (or ended by the
 * experiment's --timeout, run setting timed_out), not interrupted; a score
 * missing from a run's output leaves that run out of that metric only.
 * A comparison pairs the rounds where both the baseline and the arm have
 * a value.
 *
 * For a caller with its own per-round values (one control arm against
 * several step arms, say), ab_compare() is the whole comparison of one
 * arm against the control on one metric: delta%, 95% CI, p-value and
 * verdict, the same code ab_analyze() runs for each (arm, metric).
 *
 * Caller-owned structs; not thread-safe (a struct ab_analysis is not
 * shared), though nothing here keeps global state.
 */
#ifndef REPORTS_ABSTAT_H
#define REPORTS_ABSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "db/experiments.h"
#include "db/runs.h"
#include "reports/stats.h"

struct ab_metric {
	char *name;
	bool higher_is_better;
	bool supported;		/* false: an event this machine cannot count */
	char *unit;		/* "s", "cores", "count", "ms", "" */
	double gate_pct;	/* the gate used for it */
	/* The equivalence bound, <= gate_pct: the gate, or where an A/A
	 * experiment's noise set a wider gate, the smallest change that
	 * matters (the default gate): stats_judge_eq. */
	double equiv_pct;
	char *gate_source;	/* "--gate", "A/A experiment N", "default" */
	/* An A/A experiment's own measure of noise: the sd of the per-round
	 * delta% of its two arms and the gate that sets for later
	 * experiments (twice that sd, stats_aa_gate); NAN for an ordinary
	 * experiment or when fewer than 2 rounds pair. */
	double aa_sd_pct;
	double aa_gate_pct;
	/* Simulated (prof ab --simulate, experiment setting "simulated"):
	 * the same program gives the same count every run, so one round
	 * judges it (ab_comparison.deterministic). */
	bool deterministic;
};

struct ab_cell {
	size_t n;
	struct stats_summary sum;	/* values borrowed from `values` */
	double *values;			/* counted runs' values, in run order */
	int64_t *run_ids;
};

/* One arm against the baseline on one metric. */
struct ab_comparison {
	size_t arm, metric;
	bool computable;
	char *why;			/* when not computable; owned */
	struct stats_paired p;		/* delta_pct, ci95_lo_pct/hi_pct, p_value */
	struct stats_position pos;	/* zero (not computable) without slots */
	struct stats_trend trend;	/* the baseline's drift */
	struct stats_judgement j;	/* j.verdict, j.rounds_needed */
	/* The machine was busy (ab_analysis.busy): j.verdict is
	 * inconclusive whatever the numbers say; withheld when they alone
	 * would have given another verdict. */
	bool busy, withheld;
	enum stats_verdict was_verdict;	/* the numbers' own, when withheld */
	/* Leave one round out: with each paired round removed in turn, how
	 * many removals change the verdict (loo_changed), the first such
	 * round (0-based, as stored; -1: none) and the verdict without it.
	 * Checked from AB_LOO_MIN to AB_LOO_MAX paired rounds, and only where
	 * one round fewer can still reach p < STATS_ALPHA (loo_checked). */
	/* Run-to-run spread against the baseline's (stats_spread_ratio);
	 * spread.computable false where it cannot be told. */
	struct stats_spread spread;
	bool loo_checked;
	size_t loo_changed;
	int loo_round;
	enum stats_verdict loo_verdict;
	/* A deterministic metric (ab_metric.deterministic): judged from the
	 * arms' medians, however few rounds, against spread_pct, the largest
	 * (max - min) / median of either arm's runs: better or worse where
	 * the medians differ by more than twice it and by more than the
	 * equivalence bound, else equivalent. The machine's load does not
	 * withhold it. */
	bool deterministic;
	double spread_pct;
};

/* Rounds between which one left out is checked: fewer leave too little;
 * more, and the sign-flip test's draws make n analyses slow (and one
 * round of many rarely carries a verdict). */
#define AB_LOO_MIN 4
#define AB_LOO_MAX STATS_SIGNFLIP_EXACT_MAX

struct ab_analysis {
	const struct db_experiment *exp;	/* borrowed */
	size_t narms, nmetrics;
	struct ab_metric *metrics;
	struct ab_cell *cells;		/* narms * nmetrics */
	struct ab_comparison *cmp;	/* (narms - 1) * nmetrics */
	size_t counted_rounds;		/* rounds with every arm counted */
	size_t failed_runs, interrupted_runs, warmup_runs;
	char **warnings;
	size_t nwarnings;
	/* What makes the experiment fail as a whole: an arm with no counted
	 * run. Every view prints them; prof ab and compare exit 1. */
	char **errors;
	size_t nerrors;
	/* Other work's share of the machine's CPU time, the median over
	 * the counted runs (ab_run_others_share; NAN without /proc/stat
	 * deltas); busy when it passes AB_OTHERS_MAX, and then no verdict
	 * is given. busy_runs of busy_of runs passed it. */
	double others_median;
	bool busy;
	size_t busy_runs, busy_of;
};

/* Other work's share above which prof gives no verdict, as prof pressure
 * (PRESS_OTHERS_MAX is this one): 20%. */
#define AB_OTHERS_MAX 0.20
#define AB_OTHERS_MIN_WALL_S 0.25

double ab_run_others_share(const struct db_exp_run *r, int online_cpus);

/*
 * How the gate is chosen per metric: given (not NAN) wins; else the A/A
 * experiment aa (may be NULL) measures one per metric; else default_pct.
 * An A/A gate wider than AB_GATE_WIDE_PCT is used, with a warning that
 * says what it hides; equivalence is never claimed past default_pct.
 * 5%: the changes the field notes report and act on run from 3% (a
 * frame rate) to 50% (iTLB misses); a gate past 5% hides the smaller of
 * them.
 */
#define AB_GATE_WIDE_PCT 5.0

struct ab_gate_rule {
	double given_pct;
	const struct db_experiment *aa;
	double default_pct;
};

/*
 * --metric: keep only the metrics named (each as the tables name it), in
 * the analysis's order; n 0 keeps all. 0, or -EINVAL with *cause naming
 * the first name that is no metric of it (a), which is left whole.
 */
int ab_analysis_keep(struct ab_analysis *a, const char *const *names, size_t n,
		     char **cause);

/* 0, or -EINVAL with *cause set (caller frees) for an experiment with no
 * arms. Release `out` with ab_analysis_release() after a 0. */
int ab_analyze(const struct db_experiment *exp, const struct ab_gate_rule *gate,
	       struct ab_analysis *out, char **cause);
void ab_analysis_release(struct ab_analysis *a);

/* A whole machine's delta ("system.*"): every process's, not only the
 * workload's; reports show and judge these apart. */
static inline bool ab_name_machine(const char *name)
{
	return name && !strncmp(name, "system.", 7);
}

static inline bool ab_metric_machine(const struct ab_metric *m)
{
	return ab_name_machine(m->name);
}

/*
 * The machine's counters prof compares, of those a run keeps
 * (run_system): key as stored ("vmstat.pgfault"; "schedstat.|.wait_ns"
 * sums every name that starts and ends so), the metric's name
 * ("system.vmstat.pgfault") and unit. ab, compare --set, summary and
 * prof run -r show these.
 */
struct ab_machine_key {
	const char *key, *name, *unit;
	bool sum;
};
extern const struct ab_machine_key ab_machine_keys[];
extern const size_t ab_nmachine_keys;
/* Its delta among a run's v[0..n-1] (0 where it did not move); NAN for
 * a run that kept none (stored before prof kept them). */
double ab_machine_value(const struct db_sysval *v, size_t n,
			const struct ab_machine_key *k);

/* Arm `arm`'s summary of metric m. */
static inline const struct ab_cell *ab_cell_of(const struct ab_analysis *a,
					       size_t arm, size_t m)
{
	return &a->cells[arm * a->nmetrics + m];
}

/* Arm `arm` against the baseline on metric m; NULL for the baseline. */
static inline const struct ab_comparison *
ab_comparison_of(const struct ab_analysis *a, size_t arm, size_t m)
{
	return arm ? &a->cmp[(arm - 1) * a->nmetrics + m] : NULL;
}

/*
 * How a score's regex turns a run's output into one value: the last
 * match that reads as a number (the default), or an aggregate over every
 * such match: the nearest-rank 99th or 50th percentile, the mean, the
 * largest, or the number of matches (numbers or not).
 */
enum ab_score_agg {
	AB_AGG_LAST,
	AB_AGG_P99,
	AB_AGG_P50,
	AB_AGG_MEAN,
	AB_AGG_MAX,
	AB_AGG_MATCHES,
	AB_AGG_N,
};

/* ":p99", ":p50", ":mean", ":max", ":matches"; "" for AB_AGG_LAST. */
const char *ab_score_agg_word(enum ab_score_agg agg);

/*
 * A score's flags, from the end of its stored spec "NAME=REGEX[:AGG]
 * [:higher|:lower][:rate|:count]" (any order): *end is where the regex
 * ends. Only these words, at the very end, are read as flags: a ':'
 * anywhere else belongs to the regex.
 */
struct ab_score_flags {
	bool higher_is_better;
	bool rate;		/* declared :rate (per second) */
	bool count;		/* declared :count */
	enum ab_score_agg agg;	/* the last aggregator word, if any */
	unsigned naggs;		/* how many aggregator words there were */
};
void ab_score_flags_of(const char *spec, size_t *end, struct ab_score_flags *f);

/*
 * Whether a score is a rate (units per second): declared :rate, or not
 * declared :count and named like one (fps, qps, iops, ops_per_s,
 * frames_per_sec, ..._hz). An aggregate keeps its regex's kind (the name
 * is read without its ":p99", ":mean", ...), except :matches, which is a
 * count. CPU time divided by a rate is no cost per unit, so `--per`
 * refuses one unless told the unit (see --per UNIT=RATE).
 */
bool ab_score_is_rate(const char *name, const struct ab_score_flags *f);

/*
 * A simulated (deterministic) metric compared from the values of the
 * arm's runs and the baseline's, however few: the effect is the ratio of
 * their medians (delta_pct), the interval that +- twice spread_pct, the
 * largest (max - min) / median of either; the verdict better or worse
 * past max(equiv_pct, twice the spread), else equivalent; no p-value.
 * Fills out (deterministic set) and returns 0; -EINVAL, out untouched,
 * without a value on either side or with a median of 0.
 */
int ab_compare_deterministic(const double *base, size_t nb, const double *arm,
			     size_t na, double equiv_pct, bool higher_is_better,
			     struct ab_comparison *out);

/* Whether a run counts in the statistics (see above). */
bool ab_run_counts(const struct db_exp_run *r);

/*
 * Compare arm[r] against base[r] (the control), r < n, one value per round
 * and metric, both > 0 and finite: the paired log-ratio statistics, the
 * baseline's drift over round_x (NULL: 0, 1, 2...), the position effect
 * when base_slot and arm_slot (each run's 0-based slot in its round) are
 * given, and the verdict against +-gate_pct (lower is better unless
 * higher_is_better). Fills out->computable, why, p, pos, trend and j; arm
 * and metric are left 0 for the caller. When the values cannot be compared
 * (n == 0, a value zero, negative or not finite) out->computable is false
 * and out->why says why (owned; free it, or ab_comparison_release()).
 * Verdict: out->j.verdict, or VERDICT_INCONCLUSIVE when !computable.
 */
void ab_compare(const double *base, const double *arm, size_t n,
		const unsigned *base_slot, const unsigned *arm_slot,
		const double *round_x, double gate_pct, bool higher_is_better,
		struct ab_comparison *out);

/* ab_compare with an equivalence bound apart from the gate
 * (stats_judge_eq); ab_compare is this with equiv_pct = gate_pct. */
void ab_compare_eq(const double *base, const double *arm, size_t n,
		   const unsigned *base_slot, const unsigned *arm_slot,
		   const double *round_x, double gate_pct, double equiv_pct,
		   bool higher_is_better, struct ab_comparison *out);
void ab_comparison_release(struct ab_comparison *c);

/* The metrics of two single runs: a[m] and b[m] per metric (NAN absent). */
struct ab_pair {
	size_t n;
	struct ab_metric *metrics;
	double *a, *b;
};
int ab_pair_of_runs(const struct db_run *a, const struct db_run *b,
		    struct ab_pair *out);
void ab_pair_release(struct ab_pair *p);

/*
 * Thread groups (`--by name`): the experiment seen once per thread name,
 * each run's value of an event being the sum over its threads of that
 * name, so each name gets its own paired comparison and verdict per
 * event ("the render thread got faster, the audio thread did not"). A
 * run with no thread of a name has no value for it (that round pairs
 * nothing). Only the counters and what derives from them are per
 * thread: wall, CPU and user/system times stay whole-run metrics, left
 * out here (ab_metric_per_thread says which are kept).
 */
struct ab_by_name {
	const struct db_experiment *exp;	/* borrowed */
	size_t ngroups;
	char **names;			/* by the baseline's first event, largest first */
	double *threads_per_run;	/* mean threads of that name in a counted run */
	struct db_experiment *exps;	/* owned: the experiment per name */
	struct ab_analysis *an;		/* one per name */
	size_t left_out;		/* names beyond AB_BY_NAME_MAX */
};

#define AB_BY_NAME_MAX 16

/*
 * runs[i] is exp->runs[i] as db_run_load gives it (its threads); gate as
 * for ab_analyze. 0, or -EINVAL with *cause (no thread names at all).
 */
int ab_by_name_analyze(const struct db_experiment *exp, const struct db_run *runs,
		       const struct ab_gate_rule *gate, struct ab_by_name *out,
		       char **cause);
void ab_by_name_release(struct ab_by_name *g);

/* Whether metric m of a by-name analysis is one per thread (a counter or
 * a ratio of counters), not a whole-run time or the machine's delta. */
bool ab_metric_per_thread(const struct ab_metric *m);

/*
 * Two sets of runs collected apart (`prof compare --set A=... --set
 * B=...`): results that need a reboot between arms (a kernel, a BIOS
 * setting) cannot be interleaved. Per metric, each set's summary and set
 * B against set A by the unpaired statistics of stats_unpaired_log
 * (Welch's t on log values, a permutation p) and stats_judge_unpaired.
 * Runs that failed or were interrupted are left out, with a warning.
 */
struct ab_set {
	char *name;		/* as given: "A", "before" */
	char *spec;		/* "tag 'x'" or "runs 3-6" */
	const struct db_run *runs;	/* borrowed */
	size_t nruns;
};

struct ab_set_cmp {
	bool computable;
	char *why;		/* when not computable; owned */
	struct stats_unpaired u;
	struct stats_judgement j;
};

struct ab_sets {
	struct ab_set set[2];		/* [0] the baseline */
	size_t nmetrics;
	struct ab_metric *metrics;
	struct ab_cell *cells;		/* 2 * nmetrics: set s, metric m at
					   s * nmetrics + m */
	struct ab_set_cmp *cmp;		/* nmetrics: set 1 against set 0 */
	size_t counted[2];		/* runs of each set that count */
	char **warnings;
	size_t nwarnings;
};

/* Analyse; the sets' names, specs and runs are copied or borrowed as
 * ab_set says (the runs must outlive out). 0, or -EINVAL with *cause
 * for an empty set. Release with ab_sets_release(). */
int ab_sets_analyze(const struct ab_set *a, const struct ab_set *b,
		    double gate_pct, struct ab_sets *out, char **cause);
void ab_sets_release(struct ab_sets *s);

#endif
