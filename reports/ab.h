/*
 * ab (reports): the analysis and tables of an A/B experiment, computed
 * from what the database holds, so `prof ab` and `prof compare` print the
 * same numbers. For each metric (wall_s, cpu_s, cores, every counter,
 * misses per thousand instructions when instructions were counted, every
 * score, and per-unit costs), each arm's summary, and against the
 * baseline the paired log-ratio statistics of reports/stats with a verdict
 * against a noise gate.
 *
 * Which runs count: not warm-ups, exit status 0, not interrupted; a score
 * missing from a run's output leaves that run out of that metric only.
 * A comparison pairs the rounds where both the baseline and the arm have
 * a value. Caller-owned structs; not thread-safe.
 */
#ifndef REPORTS_AB_H
#define REPORTS_AB_H

#include <stdbool.h>
#include <stdio.h>

#include "db/experiments.h"
#include "db/runs.h"
#include "reports/output.h"
#include "reports/stats.h"

struct ab_metric {
	char *name;
	bool higher_is_better;
	bool supported;		/* false: an event this machine cannot count */
	char *unit;		/* "s", "cores", "count", "ms", "" */
	double gate_pct;	/* the gate used for it */
	char *gate_source;	/* "--gate", "A/A experiment N", "default" */
};

struct ab_cell {
	size_t n;
	struct stats_summary sum;	/* values borrowed from `values` */
	double *values;			/* counted runs' values, in run order */
	int64_t *run_ids;
};

struct ab_comparison {
	size_t arm, metric;
	bool computable;
	char *why;			/* when not computable */
	struct stats_paired p;
	struct stats_position pos;
	struct stats_trend trend;
	struct stats_judgement j;
};

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
};

/*
 * How the gate is chosen per metric: given (not NAN) wins; else the A/A
 * experiment aa (may be NULL) measures one per metric; else default_pct.
 */
struct ab_gate_rule {
	double given_pct;
	const struct db_experiment *aa;
	double default_pct;
};

int ab_analyze(const struct db_experiment *exp, const struct ab_gate_rule *gate,
	       struct ab_analysis *out, char **cause);
void ab_analysis_release(struct ab_analysis *a);

/* Tables per metric (terminal), one table (Markdown), CSV, JSON. */
void ab_render(const struct ab_analysis *a, enum out_format fmt, FILE *fp);

/* The metrics of two single runs: a[m] and b[m] per metric (NAN absent). */
struct ab_pair {
	size_t n;
	struct ab_metric *metrics;
	double *a, *b;
};
int ab_pair_of_runs(const struct db_run *a, const struct db_run *b,
		    struct ab_pair *out);
void ab_pair_release(struct ab_pair *p);

/* Two single runs side by side with delta%: no statistics. */
void ab_render_runs(const struct db_run *a, const struct db_run *b,
		    enum out_format fmt, FILE *fp);

/* The experiments stored, for `prof compare` with no argument. */
void ab_render_list(const struct db_experiment_summary *v, size_t n,
		    enum out_format fmt, FILE *fp);

#endif
