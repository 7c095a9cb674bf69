/*
 * pressure (reports): the analysis and the tables of a `prof pressure`
 * experiment: for each workload, a curve of the metric's change against
 * the cache taken away, each step paired round by round with the control
 * co-runner of its round (reports/abstat's ab_compare: delta%, 95% CI,
 * p-value, verdict against a gate), the bytes the co-runner held, and the
 * curve's verdict and sentence. Computed from the database alone, so
 * `prof pressure`, `prof compare` and `prof explain` say the same.
 *
 * What a pressure experiment keeps (db/experiments, kind "pressure"):
 *   experiment settings  method (pirate|cat), metric (cpu_s, wall_s, a
 *                        score or an event), events, score (as prof ab),
 *                        domain.level, domain.bytes, domain.cpus,
 *                        workload_cpu, corunner_cpu, control_bytes,
 *                        hit_ns (the co-runner's time per line when it
 *                        hits: its chase over press_hit_bytes alone),
 *                        prepare and cleanup (--prepare, --cleanup: the
 *                        header names them)
 *   arm settings         pressure.workload (the workload's name),
 *                        pressure.role (control|step),
 *                        pressure.taken_bytes, pressure.corunner_bytes,
 *                        pressure.alone_ns and pressure.mem_ns (the
 *                        co-runner alone at that size, and flushing every
 *                        line: its miss time), pressure.ways and
 *                        pressure.ways_total (cat), pin
 *   run settings         corunner.ns_per_line, corunner.lines,
 *                        corunner.passes (what the co-runner did while the
 *                        run ran) and corunner.held_bytes (what it held,
 *                        by the pirate collector's
 *                        pirate_held_bytes)
 *
 * The gate, per workload: --gate when given; else twice the sd of the per-round
 * differences of step 0 (a second control: an A/A inside the experiment,
 * stats_aa_gate), but never below PRESS_GATE_FLOOR_PCT (2%); else (no step
 * 0) PRESS_GATE_FLOOR_PCT.
 *
 * What a step took is what its co-runner held where that is known (a
 * co-runner whose every line misses holds nothing of what it walks, and
 * takes nothing a hot workload keeps), else what it walked: the table's
 * `left` is the domain less that, and a curve is "not cache-sensitive"
 * only down to the least a step really left.
 *
 * The curve's verdict:
 *   cache-sensitive      the largest step is worse beyond the gate (95% CI
 *                        excludes 0 and the change clears the gate); the
 *                        sentence names the smallest step from which
 *                        every larger one is worse;
 *   not-cache-sensitive  every step is equivalent (90% CI inside the
 *                        gate) or better, and the gate is at most
 *                        PRESS_GATE_QUIET_MAX_PCT;
 *   inconclusive         otherwise, with the rounds that would likely
 *                        settle it; also when the A/A step itself moved
 *                        beyond the gate (then the design, not the cache,
 *                        moves the metric), or when other work took more
 *                        than PRESS_OTHERS_MAX of the workload's CPU.
 * Pure: reads the structs, writes to a FILE. Caller-owned; not thread-safe.
 */
#ifndef REPORTS_PRESSURE_H
#define REPORTS_PRESSURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "db/experiments.h"
#include "reports/abstat.h"
#include "reports/output.h"

/*
 * The least gate: a change below 2% is not called a capacity effect. A
 * 64 KiB chase (it never leaves L2) measured here had an A/A spread of
 * 0.1%, yet its steps' 90% CIs reached -1.4% and +1.3% at 6 rounds: the
 * co-runners of different sizes differ a little in more than the cache
 * they take (memory traffic, the host's own sharing), so a 1% gate left
 * it inconclusive where nothing happened.
 */
#define PRESS_GATE_FLOOR_PCT 2.0

/*
 * The widest gate a "not cache-sensitive" may be said within. Where two
 * identical controls differ by more than this, the machine's own noise
 * (other work sharing the cache) hides any capacity effect of that size:
 * measured here under load, a 3 MiB chase's CPU time moved 0.20-1.13 s
 * between rounds beside the control alone (an A/A gate of 51-212%).
 */
#define PRESS_GATE_QUIET_MAX_PCT 20.0

/*
 * The co-runner's share of the run's wall time below which it is said to
 * have been crowded off its CPU (and so to have taken less than asked).
 */
#define PRESS_DUTY_MIN 0.5

/*
 * The share of a run's wall time other work may take on the workload's
 * own CPU (that CPU's user, system, interrupt and steal time in
 * /proc/stat, less the workload's CPU time; the median over the
 * experiment's runs) above which no verdict is given: it shares the
 * workload's L1 and L2 and evicts its lines between slices, moving the
 * metric in either direction. Measured here: at load 7 on 2 CPUs a
 * compute loop was once called cache-sensitive.
 */
#define PRESS_OTHERS_MAX AB_OTHERS_MAX	/* one bound for pressure and ab */

enum press_verdict {
	PRESS_SENSITIVE,
	PRESS_NOT_SENSITIVE,
	PRESS_INCONCLUSIVE,
};

/* "cache-sensitive", "not-cache-sensitive", "inconclusive". */
const char *press_verdict_name(enum press_verdict v);

struct press_step {
	size_t arm;			/* the experiment's arm */
	uint64_t taken_bytes;
	bool aa;			/* step 0: a second control */
	double held_bytes;		/* NaN: unknown */
	double corunner_ns;		/* median ns per line; NaN: none */
	double duty;			/* median co-runner duty; NaN: unknown */
	double alone_ns, mem_ns;	/* the co-runner alone, and missing */
	double median;			/* the metric's median over the step's runs */
	struct ab_comparison cmp;	/* against the control, per round */
};

struct press_curve {
	char *workload;
	size_t control_arm;
	double control_median;
	double control_corunner_ns;
	struct press_step *steps;	/* ascending taken_bytes, step 0 first */
	size_t nsteps;
	double gate_pct;
	char *gate_source;		/* "--gate", "A/A step", "floor" */
	enum press_verdict verdict;
	long rounds_needed;		/* inconclusive: likely to settle; -1 */
	char *summary;			/* the sentence */
};

struct press_analysis {
	const struct db_experiment *exp;	/* borrowed */
	const char *method;		/* "pirate", "cat" (borrowed) */
	const char *metric;		/* (borrowed) */
	bool higher_is_better;
	uint64_t domain_bytes;
	int domain_level;
	const char *domain_cpus;	/* borrowed */
	int workload_cpu, corunner_cpu;
	uint64_t control_bytes;
	double hit_ns;
	struct press_curve *curves;	/* one per workload, in arm order */
	size_t ncurves;
	size_t counted_rounds;
	double others;			/* PRESS_OTHERS_MAX's share; NaN: unknown */
	char **warnings;
	size_t nwarnings;
};

/*
 * Analyse a stored pressure experiment. gate_pct: NAN to choose as above.
 * -EINVAL with a cause for an experiment that is not of kind pressure or
 * lacks a control. Release with press_analysis_release after a 0.
 */
int press_analyze(const struct db_experiment *e, double gate_pct,
		  struct press_analysis *out, char **cause);
void press_analysis_release(struct press_analysis *a);

/*
 * The curve's verdict from its judged steps (cmp filled, steps ascending,
 * step 0 flagged aa): sets verdict, rounds_needed and summary. Exposed
 * for the tests of the rules on recorded values.
 */
void press_curve_judge(struct press_curve *c, const char *metric_label,
		       uint64_t domain_bytes);

/* What people read for a metric: "CPU time", "wall time", or its name. */
const char *press_metric_label(const char *metric);

/* Table (terminal), Markdown, CSV (one row per step), JSON and SVG
 * (reports/pressplot.h). */
void press_render(const struct press_analysis *a, enum out_format fmt, FILE *fp);

#endif
