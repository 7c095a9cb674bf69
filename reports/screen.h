/*
 * screen (reports): which candidate scenes can show a cache effect at
 * all. A scene that keeps up with its guest (the field notes' savestates
 * "at 1.0x and 59.9 fps") sleeps between frames: a change of working set
 * moves neither its speed nor its score, only how much it sleeps. Before
 * an A/B of hours, `prof screen` runs each candidate briefly, and this
 * module reads each run: every thread's busy share of the wall time
 * (task-clock / wall: 100% is one core kept busy), the CPUs the whole
 * workload kept busy, the frame time against its budget when frames
 * were timed, and one verdict:
 *
 *   paced          frames at their budget (the median frame within 3% of
 *                  it), or every thread under the paced bound (60%)
 *   cpu-limited    a thread at or over the busy bound (90%), or the
 *                  workload keeping nearly every CPU it may use busy
 *                  (90% of them)
 *   in-between     neither: the busiest thread between the bounds
 *   no-data        task-clock did not count (nothing to judge by)
 *
 * Pure: reads a stored run, writes to a FILE. Not thread-safe only in
 * that the rows writer is not.
 */
#ifndef REPORTS_SCREEN_H
#define REPORTS_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "db/runs.h"
#include "reports/output.h"

#define SCREEN_BUSY_PCT 90.0	/* a thread this busy limits the scene */
#define SCREEN_PACED_PCT 60.0	/* every thread under this: paced */
#define SCREEN_BUDGET_TOL 0.03	/* median frame within 3% of the budget */

enum screen_verdict {
	SCREEN_PACED,
	SCREEN_CPU_LIMITED,
	SCREEN_IN_BETWEEN,
	SCREEN_NO_DATA,
};

struct screen_bounds {
	double busy_pct;	/* SCREEN_BUSY_PCT */
	double paced_pct;	/* SCREEN_PACED_PCT */
	double budget_ms;	/* the frame budget; 0: frames not judged */
	unsigned ncpus;		/* CPUs the workload may use (0: unknown) */
};

struct screen_result {
	const char *scene;	/* borrowed */
	int64_t run_id;
	double wall_s;
	bool ended_early;	/* the workload exited before the window */
	int exit_status;
	size_t nthreads;
	int32_t busiest_tid;	/* 0: none */
	const char *busiest_name;	/* borrowed from the run; may be NULL */
	double busiest_pct;	/* NaN without task-clock */
	size_t over_paced;	/* threads at or over bounds.paced_pct */
	double cpus_busy;	/* sum of busy shares / 100 */
	unsigned ncpus;
	size_t nframes;
	double frame_p50_ms;	/* NaN without frames */
	double budget_ms;	/* 0: frames not judged */
	enum screen_verdict verdict;
	char why[160];		/* "render 98% busy", ... */
};

const char *screen_verdict_name(enum screen_verdict v);

/*
 * Judge one stored run: its task-clock event (by canonical name) gives
 * the busy shares. window_s is how long the scene was given; a run
 * shorter than 90% of it ended early (said, and judged over its life).
 */
void screen_judge(const struct db_run *run, const char *scene, double window_s,
		  const struct screen_bounds *b, struct screen_result *out);

/* The table of results, one row per scene, in table, markdown, CSV or
 * JSON ({"bounds": {...}, "scenes": [...]}). */
void report_screen(const struct screen_result *r, size_t n,
		   const struct screen_bounds *b, double window_s,
		   enum out_format f, FILE *fp);

#endif
