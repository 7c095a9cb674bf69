/*
 * runs: the reports of one stored run (per thread, per thread name, or
 * totals only) and the list of stored runs, in every output format.
 *
 * Reads struct db_run as db/ loads it; writes to a caller-owned FILE.
 * Not thread-safe (no shared state; each call is independent).
 */
#ifndef REPORTS_RUNS_H
#define REPORTS_RUNS_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "db/runs.h"
#include "reports/output.h"
#include "reports/rows.h"

/*
 * How a run's threads are grouped: one row each, one per thread name, the
 * run's totals, one per process (its threads summed), or the processes
 * as a tree under their parents (a process whose parent is outside the
 * run is a root). Threads whose process is unknown (pid 0, from before
 * prof stored it) are a process each.
 */
enum report_by { BY_THREAD, BY_NAME, BY_TOTAL, BY_PROCESS, BY_TREE };

/* "thread", "name", "total", "process": 0 or -EINVAL (BY_TREE is
 * --tree's, not a --by word). */
int report_by_parse(const char *word, enum report_by *out);

/*
 * The verb that made run, for headers ("prof record 5: ..."): record,
 * sleep or probe by its kind, "ab run" or "pressure run" for a run of an
 * experiment, and run for run and attach.
 */
const char *report_run_verb(const struct db_run *run);

/* The run's note, "note: ..." a line after lead, escaped for a terminal:
 * what prof did to the run's data as it stored it (texts it cut); and
 * the --window its counts come from, where one was asked. */
void report_run_notes(const struct db_run *run, const char *lead, FILE *fp);

/*
 * The per-thread report of a run. Table and Markdown carry a header line
 * (command, exit, times, pin), one column per supported event, totals,
 * and footers for unsupported events, hardware groups and scaling. JSON
 * follows the contract of shared/DESIGN.md; CSV is long form, one line
 * per (thread, event). A run with id 0 was not stored: the header says
 * "(not stored)", JSON's run_id is null and CSV's run_id empty.
 *
 * By process: pid, ppid, the main thread's name and the thread count, and
 * each event summed over the threads; JSON's `processes` list. As a tree:
 * people read each process indented under its parent ("├─ 1234 make (3
 * threads)"), JSON's `processes` holds the roots, each with a nested
 * `children` list, and CSV lists them depth first with a `depth` column.
 */
/* A run's "complete" (true, false, or null where it cannot be said) and
 * "reasons" (one line each) into row of r, at the two columns given: the
 * keys every verb that collects puts in its JSON. */
void report_complete_cells(const struct db_run *run, struct rows *r, size_t row,
			   size_t complete_col, size_t reasons_col);

void report_run(const struct db_run *run, enum report_by by,
		enum out_format fmt, FILE *fp);

/*
 * brief: the notes under a run's table say the machine's facts (its
 * mission map, the events it refused and why, the hints) in a few words
 * instead of in full. They stay the same from run to run on one machine:
 * prof asks for brevity unless -v. Default: in full. The one setting of
 * the reports that is process-wide, as the verbosity it follows is.
 */
void report_run_notes_brief(bool brief);

/*
 * The same, its threads (or names, processes) ordered and cut as view
 * says (NULL: all, as built): table and Markdown keep the run's totals
 * and say how many rows were left out; JSON's threads (names with
 * BY_NAME, processes with BY_PROCESS) and CSV's lines hold the rows
 * kept. A tree orders each process's children by view's sort and is
 * never cut (its limit is not read).
 */
void report_run_view(const struct db_run *run, enum report_by by,
		     const struct rows_view *view, enum out_format fmt, FILE *fp);

/* Whether sort names a column of that report: 0, or -EINVAL with a
 * cause listing the keys (rows_sort_check). */
int report_run_sort_check(const struct db_run *run, enum report_by by,
			  const char *sort, char **cause);

/*
 * Which stored runs `prof runs` lists. The runs of `prof ab` experiments
 * are hidden unless asked for: all, a kinds list that names ab, or a
 * tag (an ab arm's name is the one label a run carries).
 */
struct runs_filter {
	const char *kinds;	/* comma-separated kinds; NULL: every kind */
	time_t since;		/* started at or after; 0: any time */
	const char *tag;	/* the name of the ab arm it ran in; NULL: any */
	bool all;		/* ab runs too */
};

/*
 * The stored runs that filter lets through (NULL: all), ordered and cut
 * as view says (NULL: newest last). Table and Markdown end with how many
 * ab runs were hidden; JSON has `runs` and `hidden_ab_runs`. An ab run
 * carries experiment_id and arm (null for the others); people see those
 * columns when an ab run is listed.
 */
void report_runs_list(const struct db_run_summary *runs, size_t n,
		      const struct runs_filter *filter, const struct rows_view *view,
		      enum out_format fmt, FILE *fp);
int report_runs_list_sort_check(const char *sort, char **cause);
/* Whether each kind filter names is one prof stores, or one stored in
 * runs: 0, or -EINVAL with a cause naming it. */
int report_runs_filter_check(const struct db_run_summary *runs, size_t n,
			     const struct runs_filter *filter, char **cause);

/* A time as runs store it, "2026-11-30T05:37:51Z" (UTC), or shorter: a
 * date, or minutes without seconds; 'T' or ' ' between; 'Z' optional.
 * 0, or -EINVAL. */
int report_time_parse(const char *iso, time_t *out);

/* True for events the kernel counts in nanoseconds (task-clock, cpu-clock). */
bool event_is_time(const struct db_event *e);

#endif
