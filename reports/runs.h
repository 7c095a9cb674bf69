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
#include "reports/rows.h"

enum report_by { BY_THREAD, BY_NAME, BY_TOTAL };

/* "thread", "name", "total": 0 or -EINVAL. */
int report_by_parse(const char *word, enum report_by *out);

/*
 * The per-thread report of a run. Table and Markdown carry a header line
 * (command, exit, times, pin), one column per supported event, totals,
 * and footers for unsupported events, hardware groups and scaling. JSON
 * follows the contract of shared/DESIGN.md; CSV is long form, one line
 * per (thread, event). A run with id 0 was not stored: the header says
 * "(not stored)", JSON's run_id is null and CSV's run_id empty.
 */
void report_run(const struct db_run *run, enum report_by by,
		enum out_format fmt, FILE *fp);

/*
 * The same, its threads (or names) ordered and cut as view says (NULL:
 * all, as built): table and Markdown keep the run's totals and say how
 * many rows were left out; JSON's threads (names with BY_NAME) and CSV's
 * lines hold the rows kept.
 */
void report_run_view(const struct db_run *run, enum report_by by,
		     const struct rows_view *view, enum out_format fmt, FILE *fp);

/* Whether sort names a column of that report: 0, or -EINVAL with a
 * cause listing the keys (rows_sort_check). */
int report_run_sort_check(const struct db_run *run, enum report_by by,
			  const char *sort, char **cause);

/* The stored runs, ordered and cut as view says (NULL: all, newest last). */
void report_runs_list(const struct db_run_summary *runs, size_t n,
		      const struct rows_view *view, enum out_format fmt, FILE *fp);
int report_runs_list_sort_check(const char *sort, char **cause);

/* True for events the kernel counts in nanoseconds (task-clock, cpu-clock). */
bool event_is_time(const struct db_event *e);

#endif
