/*
 * runs: the reports of one stored run (per thread, per thread name, or
 * totals only) and the list of stored runs, in every output format.
 *
 * Reads struct db_run as db/ loads it; writes to a caller-owned FILE.
 * Not thread-safe (no shared state; each call is independent).
 */
#ifndef REPORTS_RUNS_H
#define REPORTS_RUNS_H

#include <stdio.h>

#include "db/runs.h"
#include "reports/output.h"

enum report_by { BY_THREAD, BY_NAME, BY_TOTAL };

/* "thread", "name", "total": 0 or -EINVAL. */
int report_by_parse(const char *word, enum report_by *out);

/*
 * The per-thread report of a run. Table and Markdown carry a header line
 * (command, exit, times, pin), one column per supported event, totals,
 * and footers for unsupported events, hardware groups and scaling. JSON
 * follows the contract of shared/DESIGN.md; CSV is long form, one line
 * per (thread, event). A run that could not be stored (id 0) says so:
 * "(not stored)" in the header, a null run_id in JSON, an empty one in
 * CSV.
 */
void report_run(const struct db_run *run, enum report_by by,
		enum out_format fmt, FILE *fp);

void report_runs_list(const struct db_run_summary *runs, size_t n,
		      enum out_format fmt, FILE *fp);

/* True for events the kernel counts in nanoseconds (task-clock, cpu-clock). */
bool event_is_time(const struct db_event *e);

#endif
