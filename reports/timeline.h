/*
 * timeline: a run's counters over time (prof run -I): every interval row
 * as stored (prof report --intervals, in every format), and the compact
 * timeline prof run prints at the end: per thread name and event, the
 * value of each interval drawn as one character, with min, median and
 * max over the intervals. Reads a loaded struct db_run; writes text.
 * Not thread-safe; no state.
 */
#ifndef REPORTS_TIMELINE_H
#define REPORTS_TIMELINE_H

#include <stdio.h>

#include "db/runs.h"
#include "reports/output.h"

/* Events whose values are nanoseconds of time, shown to people in ms. */
bool timeline_is_time(const struct db_event *e);

/* Whether some interval row carries a value of event e. */
bool timeline_read_event(const struct db_run *run, size_t e);

/* An interval row's thread name, "?" where none was stored. */
const char *timeline_name(const struct db_interval *iv);

/* The distinct thread names of the interval rows, in order of first
 * sight, in *out (malloc'd; the names are the run's or "?"); their count. */
size_t timeline_names(const struct db_run *run, const char ***out);

/* JSON: {"run_id", "interval_ms", "intervals": [{"t_ms", "tid", "name",
 * "values": {event: value}}]}; table, Markdown and CSV: one row per
 * interval and thread, one column per event read. */
void report_intervals(const struct db_run *run, enum out_format fmt, FILE *fp);

/* The compact timeline (table or Markdown; nothing for a run without
 * intervals). */
void report_timeline(const struct db_run *run, enum out_format fmt, FILE *fp);

#endif
