/*
 * sleep (reports): a `prof sleep` run for people and for machines. The
 * table has a few header lines (what ran, the timer slack, policy,
 * clocksource, pin and load in force, the hybrid margin), one row per
 * (mode, duration) with overshoot percentiles in us, early wakes, the
 * overshoot buckets, CPU cost and context switches per call, and a last
 * line naming, for each duration, the cheapest mode whose p99 overshoot
 * is under the limit (cells flagged `cheapest` when they were stored).
 * JSON carries the keys of shared/DESIGN.md (`results`: {mode, target_us,
 * calls, overshoot_us {p50, p90, p99, p999, max}, buckets {lt3, lt10,
 * lt25, lt50, ge50}, cpu_pct}) and more. Markdown is the table's
 * Markdown; CSV one line per cell.
 *
 * Reads the stored shape (db/sleep.h, db/runs.h): the same call renders a
 * fresh benchmark and `prof report` of a stored one. run->id 0 means not
 * stored (JSON run_id null). Writes to a caller-owned FILE; no state.
 */
#ifndef REPORTS_SLEEP_H
#define REPORTS_SLEEP_H

#include <stdio.h>

#include "db/runs.h"
#include "db/sleep.h"
#include "reports/output.h"

void report_sleep(const struct db_run *run, const struct db_sleep *s,
		  enum out_format fmt, FILE *fp);

/* "timerfd", or "hybrid:12" / "hybrid:12.3" for a hybrid cell's margin. */
void report_sleep_mode(const struct db_sleep_cell *c, char *buf, size_t len);

/*
 * The sleep interposer's part of a --sleep-mode run: its settings and
 * status, then per thread the sleeps served and passed through, EINTRs,
 * and the overshoot percentiles it achieved (table or Markdown), or the
 * "sleep" object of the run's JSON. Condvar timed waits follow apart:
 * how the short ones were served, and per thread how many were served
 * and passed, woken and timed out, with the timed-out ones' overshoot
 * (a table of their own, or each thread's "condvar" object).
 */
void report_sleep_usage(const struct db_sleep_usage *u, enum out_format fmt,
			FILE *fp);
void report_sleep_usage_json(const struct db_sleep_usage *u, struct jw *w);

#endif
