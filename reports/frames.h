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

/* The run's budget per frame in ms (FRAME_BUDGET_MS when it stored none). */
double frames_budget_ms(const struct db_run *run);
/* The distinct thread names of the frame counts, in order of first
 * sight, into *out (the caller frees the array, not the names). */
size_t frames_names(const struct db_run *run, const char ***out);
/* Per frame, name's value of event e into v[0..nframes) (0 where no
 * row); false: name has no row of e at all. */
bool frames_per_frame(const struct db_run *run, const char *name, size_t e,
		      double *v);

/* Nearest-rank percentile p (0-100) of the frame lengths, in ms; NAN
 * for a run without frames. */
double frames_pct_ms(const struct db_run *run, double p);
/* The frames longer than the run's budget (frames_budget_ms). */
size_t frames_long(const struct db_run *run);
void frames_slowest(const struct db_run *run, struct frames_slow *out);

/* JSON: {"run_id", "source", "frames", "frame_ms": {p50, p90, p99, max},
 * "budget_ms", "long_frames", "by_name": [{"name", "cpu_ms_per_frame",
 * "counters": {event: per frame}}], "slow": {...}, "markers_dropped",
 * "note" (what was dropped and why, or null)}; table and Markdown:
 * the summary lines and the by-name table; CSV: the by-name rows. */
void report_frames(const struct db_run *run, enum out_format fmt, FILE *fp);

/* What prof run prints at the end (table or Markdown; nothing for a run
 * without frames). */
void report_frames_summary(const struct db_run *run, enum out_format fmt, FILE *fp);

#endif
