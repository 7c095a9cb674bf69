/*
 * frames: a run's frames (prof run --frames, --frame-regex): frame count,
 * frame time p50/p90/p99/max, long frames over the run's budget, CPU
 * time and counters per frame per thread name, and the slowest 5% of
 * frames against the rest (the counter whose per-frame ratio is the
 * largest, and the numbers behind it). Reads a loaded struct db_run;
 * writes text. Not thread-safe; no state.
 */
#ifndef REPORTS_FRAMES_H
#define REPORTS_FRAMES_H

#include <stdbool.h>
#include <stdio.h>

#include "db/runs.h"
#include "reports/output.h"

/* The slowest 5% of frames against the rest. */
struct frames_slow {
	size_t nslow;		/* frames in the slowest 5% (0: none) */
	double min_ms;		/* the shortest of them */
	const char *name;	/* thread name; NULL: no counter differs */
	size_t event;
	double slow_mean, rest_mean;	/* per frame */
};

/* Nearest-rank percentile p (0-100) of the frame lengths, in ms. */
double frames_pct_ms(const struct db_run *run, double p);
void frames_slowest(const struct db_run *run, struct frames_slow *out);

/* JSON: {"run_id", "source", "frames", "frame_ms": {p50, p90, p99, max},
 * "budget_ms", "long_frames", "by_name": [{"name", "cpu_ms_per_frame",
 * "counters": {event: per frame}}], "slow": {...}}; table and Markdown:
 * the summary lines and the by-name table; CSV: the by-name rows. */
void report_frames(const struct db_run *run, enum out_format fmt, FILE *fp);

/* What prof run prints at the end (table or Markdown; nothing for a run
 * without frames). */
void report_frames_summary(const struct db_run *run, enum out_format fmt, FILE *fp);

#endif
