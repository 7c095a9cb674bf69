/*
 * probe (reports): what a `prof probe` run says, and the judgements behind
 * it. Two are rules a test can pin on recorded values:
 *
 * - A counter's grade: "plausible" when measured / expected lies within
 *   0.8-1.25, else "implausible"; "multiplexed" when it was not counted all
 *   of the time (a scaled value says nothing about the counter itself);
 *   "not supported" when the machine cannot count it; "not run" when the
 *   counter opened but the benchmark could not be built.
 * - The knees of the latency curve: sizes past which ns per step (each
 *   size's median over its repetitions) rises over PROBE_KNEE_RISE times
 *   the plateau before (its median). A rise is followed until the curve
 *   flattens (neighbours within PROBE_KNEE_FLAT); the knee is the last
 *   size whose latency is still nearer the lower level than the higher
 *   one (in log terms). A point above the plateau with one of the next
 *   two back on it is noise, not a knee. A rise that pauses (a cache
 *   level and the TLB's reach ending close together, or an L3 that other
 *   guests share) gives a knee at each step; the comparisons below pick
 *   among them.
 * - A rise is a knee only where it is larger than the spread of the
 *   sizes on either side allows: the lower quartile of the level above
 *   (the size where the rise flattened) is at least PROBE_KNEE_CLEAR
 *   times the upper quartile of the plateau's last size. Else the report
 *   says that the curve shows no knee there beyond its noise. The 1.25
 *   is from six default probes (5 repetitions) on the loaded 2-CPU VM
 *   (L1d 48 KiB, L2 2 MiB, sysfs's L3 480 MiB; load 4-11): between
 *   neighbouring sizes of one level, that ratio reached 1.11 (the
 *   memory plateau and the page-walk climb past 256 MiB included, where
 *   the medians alone rose 1.4x and more at the last size and used to
 *   make a knee at 384-768 MiB); across the real knees the ratio of the
 *   levels was 1.6 and more. Sizes measured once (probes stored before
 *   prof repeated sizes, or --reps 1) have no spread, and their rises
 *   stand as before.
 *
 * The knees are compared with sysfs's caches of the CPU the probe ran on:
 * the L1d and L2 each agree when a knee lies within a factor of two of
 * their size; the knee into memory latency is the last level's, and
 * agrees when it lies above half of sysfs's size and within twice it. On
 * a VM or a shared host it can come long before the size sysfs reports
 * (the host's L3 is shared with other guests).
 *
 * The report renders a stored probe (db/probe.h) in every format: JSON
 * carries `latency` ({bytes, ns}) and `counters` ({name, expected,
 * measured, grade}) as shared/DESIGN.md fixes them, and more; CSV is the
 * latency curve; SVG is its picture (reports/probeplot.h). Writes to a
 * caller-owned FILE; no state.
 */
#ifndef REPORTS_PROBE_H
#define REPORTS_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "db/probe.h"
#include "db/runs.h"
#include "reports/output.h"

#define PROBE_PLAUSIBLE_LO 0.8
#define PROBE_PLAUSIBLE_HI 1.25
#define PROBE_KNEE_RISE 1.4
#define PROBE_KNEE_FLAT 1.25
/* A rise is a knee only where the level above clears the plateau's
 * spread: its lower quartile at least this many times the upper quartile
 * of the plateau's last size (see the rule above). */
#define PROBE_KNEE_CLEAR 1.25
/* A knee agrees with a size from sysfs within this factor either way. */
#define PROBE_KNEE_FACTOR 2.0

enum probe_grade {
	PROBE_GRADE_PLAUSIBLE,
	PROBE_GRADE_IMPLAUSIBLE,
	PROBE_GRADE_NOT_SUPPORTED,
	PROBE_GRADE_MULTIPLEXED,
	PROBE_GRADE_NOT_RUN,
};

/* "plausible", "implausible", "not supported", "multiplexed", "not run". */
const char *probe_grade_name(enum probe_grade g);

/* The grade of c's numbers (its own grade field is not read). */
enum probe_grade probe_grade_of(const struct db_probe_counter *c);

/* What was measured, scaled by enabled / running when multiplexed; NAN
 * when nothing was counted. */
double probe_measured(const struct db_probe_counter *c);

struct probe_knee {
	uint64_t bytes;		/* the last size nearer the lower level */
	uint64_t next_bytes;	/* the first size nearer the higher level */
	double ns_below;	/* the lower plateau's median */
	double ns_above;	/* the higher level, where the rise flattened */
	/* The spreads the rule compared: the upper quartile of the
	 * plateau's last size, the lower quartile of the level above (the
	 * medians of sizes measured once). */
	double q3_below, q1_above;
};

/* The knees of a curve in size order; returns how many (at most cap). */
size_t probe_knees(const struct db_probe_point *pts, size_t n,
		   struct probe_knee *out, size_t cap);
/* The same, and the rises that were no knee for the spread of the sizes
 * on either side of them: at most ncap in noise, *nnoise of them. */
size_t probe_knees_noise(const struct db_probe_point *pts, size_t n,
			 struct probe_knee *out, size_t cap,
			 struct probe_knee *noise, size_t ncap, size_t *nnoise);

#define PROBE_MAX_KNEES 16

/* The curve against sysfs. A NULL knee: none within the factor. */
struct probe_verdict {
	struct probe_knee knees[PROBE_MAX_KNEES];
	size_t nknees;
	/* Rises of the medians that the spread did not let stand. */
	struct probe_knee noise[PROBE_MAX_KNEES];
	size_t nnoise;
	const struct probe_knee *l1d, *l2;
	/* The curve reaches far enough (2x sysfs's last level, or sysfs
	 * gave none) for its top to be memory latency. */
	bool reaches_memory;
	/* The knee into memory latency (the last one), when it reaches it. */
	const struct probe_knee *last;
	double memory_ns;	/* at the largest size */
	/* last agrees with sysfs's last level (above half of it, within
	 * twice it): 1, 0, or -1 when either is unknown. */
	int last_agrees;
};

void probe_verdict(const struct db_probe *p, struct probe_verdict *v);

/* What knee k of v agrees with: "L1d", "L2", "memory", or NULL. */
const char *probe_knee_role(const struct probe_verdict *v,
			    const struct probe_knee *k);

void report_probe(const struct db_run *run, const struct db_probe *p,
		  enum out_format fmt, FILE *fp);

#endif
