/*
 * modules: the code-module report of a stored run (`prof modules`) and
 * the working-set summary a --working-set run adds to its per-thread
 * report (a footer in table and Markdown, a "working_set" object in JSON).
 *
 * Reads struct db_run as db/ loads it (modules, ws, and the run setting
 * "ws_window_bytes", the fault-around grain the run counted with); writes
 * to a caller-owned FILE. No shared state; not thread-safe.
 */
#ifndef REPORTS_MODULES_H
#define REPORTS_MODULES_H

#include <stdint.h>
#include <stdio.h>

#include "db/runs.h"
#include "reports/output.h"

/*
 * The modules of a run, largest (exec_bytes) first. JSON follows the
 * contract of shared/DESIGN.md: `modules`, a list of {path, exec_bytes,
 * text_bytes, touched_bytes} with null where unknown, plus kind,
 * build_id, exec_section_bytes, faulted_bytes, faults, touched_replayed,
 * processes and error; and `code_footprint_bytes`, `working_set` (null for a run
 * without one). CSV has one line per module with raw numbers (empty
 * where unknown).
 */
void report_modules(const struct db_run *run, enum out_format fmt, FILE *fp);

/* The same, the modules ordered and cut as view says (NULL: all, largest
 * first); the footprint and the totals line still count every module. */
struct rows_view;
void report_modules_view(const struct db_run *run, const struct rows_view *view,
			 enum out_format fmt, FILE *fp);
/* Whether sort names a column of that list (rows_sort_check). */
int report_modules_sort_check(const struct db_run *run, const char *sort,
			      char **cause);

/* The footer of a --working-set run's table (nothing for other runs). */
void report_working_set_footer(const struct db_run *run, enum out_format fmt,
			       FILE *fp);

/* Write the "working_set" key and its object (null without one). */
void report_working_set_json(const struct db_run *run, struct jw *w);
/* The same object as a row set to nest in a record (rows_free it). */
struct rows;
struct rows *report_working_set_rows(const struct db_run *run);

/* Sum of the modules' exec_bytes. */
uint64_t report_code_footprint(const struct db_run *run);

/* The fault-around grain the run counted with (bytes). */
uint64_t report_ws_window(const struct db_run *run);

#endif
