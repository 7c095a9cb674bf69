/*
 * repeat: the spread of `prof run -r N`, as perf stat -r shows it. Each
 * stored run adds its values (wall, user and system time, each supported
 * event's total, and the machine's deltas that prof compares: the
 * system.* metrics of prof ab); the report gives, per metric, each run's
 * value, the mean, its sample standard deviation (absolute and as a
 * share of the mean), the minimum and the maximum, over the runs that
 * ran. A machine's delta that moved in no run is left out.
 *
 * The set owns copies of what it keeps; a run may be released right after
 * it is added. Not thread-safe (no shared state; each set is its own).
 */
#ifndef REPORTS_REPEAT_H
#define REPORTS_REPEAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "db/runs.h"
#include "reports/output.h"

struct repeat_metric {
	char *name;		/* wall_s, user_s, sys_s, the event's name, or
				 * system.* (the machine's, ab_machine_keys) */
	bool ns;		/* a time event, counted in nanoseconds */
	bool machine;		/* a whole machine's delta */
	double *values;		/* one per run, in order; NAN where it had none */
	size_t len;		/* values[] kept so far */
	size_t n;		/* how many runs had it */
};

struct repeat_set {
	char *command;
	char *prepare, *cleanup;	/* the runs' --prepare, --cleanup, or NULL */
	size_t asked;		/* N of -r N */
	size_t nruns;
	int64_t *run_ids;	/* 0 for a run that was not stored */
	size_t ntimed_out, ninterrupted;
	struct repeat_metric *m;
	size_t nm;
};

/* An empty set for N runs of command (copied). */
void repeat_set_init(struct repeat_set *s, const char *command, size_t asked);
/* Add one finished run's values (after it was stored: its id is kept). */
void repeat_set_add(struct repeat_set *s, const struct db_run *run);
void repeat_set_release(struct repeat_set *s);

/*
 * The summary: for people a header (command, runs, how many timed out or
 * were interrupted, the prepare and cleanup commands) and one line per
 * metric, each run's value in a column of its own up to REPEAT_TABLE_RUNS
 * runs (more: CSV and JSON have them); CSV one line per metric, then
 * run_1 ... run_N; JSON `command`, `prepare` and `cleanup` (where
 * given), `repeat`, `runs` (the run ids, null where not stored) and
 * `metrics`, a map of metric name to {n, mean, sd, sd_pct, min, max,
 * values} (values: one per run, null where it had none; time events in
 * nanoseconds, as the kernel counts them). A machine's delta reads
 * "(whole machine)" in the table.
 */
#define REPEAT_TABLE_RUNS 8
void report_repeat(const struct repeat_set *s, enum out_format fmt, FILE *fp);

#endif
