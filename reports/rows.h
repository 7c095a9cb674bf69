/*
 * rows: the one row model of every report. A report describes its columns
 * once (struct col: key, title, kind, unit, alignment), fills rows of
 * typed values, and one writer renders them in every format: an aligned
 * table and Markdown for people (titles, "1,234", "32 MiB", "4.25" ms),
 * CSV and JSON for machines (keys, raw values). A new format is one more
 * case in rows.c, and every report has it.
 *
 * JSON nests without hand-written code: consecutive columns that share a
 * `group` become one object under that key, and a cell may hold another
 * rows set (a list, one object, or a list of bare values) or, for the odd
 * shape, a hook that writes the value itself. A whole JSON document is
 * then one row of a "record" set whose cells hold the lists
 * (rows_json_doc). Prose around a table (headers, footers, notes) stays
 * with the report; the table is always this writer's.
 *
 * A cell is unset, null, or a value. Unset cells are left out of a JSON
 * object (a key that only some rows have) and blank elsewhere; null is
 * JSON null, a blank CSV field and the column's `none` text for people.
 * A real that is NaN or infinite is null. rows_text() gives people other
 * text than the kind would print ("1,234 (50%)", "main (main)") while
 * machines keep the value.
 *
 * Ownership: a set copies its column spec and owns its strings and the
 * sets nested in it; a hook's argument is borrowed and must outlive the
 * writing. Running out of memory ends prof through common/xalloc.h, as in
 * the other writers. Not thread-safe; no shared state.
 */
#ifndef REPORTS_ROWS_H
#define REPORTS_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reports/output.h"

/* What a column holds: decides how people read it. */
enum col_kind {
	COL_TEXT,	/* a string as is */
	COL_INT,	/* an integer without separators: ids, tids, levels */
	COL_COUNT,	/* a count: "1,234,567"; a real is rounded */
	COL_REAL,	/* a real: `decimals` places, thousands separated */
	COL_PCT,	/* a percentage (0-100): `decimals` places */
	COL_BYTES,	/* bytes: "32 MiB", "1.5 GiB", "100 B" */
	COL_NS,		/* nanoseconds, shown to people in `unit`: s, ms, us */
	COL_BOOL,	/* "yes" or "no" */
	COL_CPUS,	/* a CPU list "0-5,12-17"; in JSON a flat list of ints */
	COL_NEST,	/* a nested set or a hook: JSON only */
};

/* COL_AUTO: text, booleans and CPU lists left, numbers right. */
enum col_align { COL_AUTO, COL_LEFT, COL_RIGHT };

enum col_flags {
	COL_NO_PEOPLE = 1 << 0,	/* not in the table or Markdown */
	COL_NO_CSV = 1 << 1,
	COL_NO_JSON = 1 << 2,
	COL_FLAT_GROUP = 1 << 3,	/* JSON: this column's group on one line */
	COL_MACHINES = COL_NO_PEOPLE,	/* CSV and JSON only */
	COL_PEOPLE = COL_NO_CSV | COL_NO_JSON,
};

struct col {
	const char *key;	/* JSON key and CSV header */
	const char *title;	/* table and Markdown header; NULL: the key */
	enum col_kind kind;
	int decimals;		/* COL_REAL, COL_PCT, COL_NS */
	const char *unit;	/* COL_NS: what people read ("ms"); else a note */
	const char *none;	/* what people read for null; NULL: "" */
	const char *group;	/* JSON: nest under this key with its neighbours */
	enum col_align align;
	unsigned flags;		/* enum col_flags */
};

/*
 * The keys of a JSON document or record, declared once. LIST(K) lists
 * the columns as K(ID, "key", KIND), KIND a col_kind without its COL_
 * (TEXT, INT, NEST...), several to a line where they belong together.
 * ROWS_KEYS(cols, N, LIST) then makes the enum of the IDs in that order,
 * ending with their count N, and the table cols[N] for rows_new(), so an
 * ID is not written once in an enum and again in a table to keep in step
 * by hand. Columns that people read need titles, units or decimals: they
 * keep designated initialisers.
 */
#define ROWS_KEY_ID(id, k, kd) id,
#define ROWS_KEY_COL(id, k, kd) [id] = { .key = (k), .kind = COL_##kd },
#define ROWS_KEYS(cols, n, LIST) \
	enum { LIST(ROWS_KEY_ID) n }; \
	static const struct col cols[n] = { LIST(ROWS_KEY_COL) }

enum rows_flags {
	ROWS_FLAT = 1 << 0,	/* JSON: each row on one line (with ROWS_VALUES,
				 * the whole list) */
	ROWS_OBJECT = 1 << 1,	/* JSON: the first row as an object, or null */
	ROWS_VALUES = 1 << 2,	/* JSON: a list of each row's first value */
};

struct rows;
struct jw;

typedef void (*rows_hook_fn)(struct jw *w, const void *arg);

/*
 * A set of rows with ncols columns (copied). name is the JSON key the
 * set is written under by rows_write (NULL: "rows"). Never NULL.
 */
struct rows *rows_new(const char *name, const struct col *cols, size_t ncols,
		      unsigned flags);
void rows_free(struct rows *r);	/* NULL is fine */

/* Append an empty row; returns its index. */
size_t rows_add(struct rows *r);
size_t rows_count(const struct rows *r);
/* Append a row for people alone: CSV and JSON leave it out. A total has
 * a rule above it. */
size_t rows_add_people(struct rows *r);
size_t rows_add_total(struct rows *r);
/* Append a row people do not see (what a people's row sums up). */
size_t rows_add_machines(struct rows *r);
/* Draw a rule above this row for people. */
void rows_rule(struct rows *r, size_t row);

void rows_str(struct rows *r, size_t row, size_t col, const char *s); /* NULL: null */
void rows_int(struct rows *r, size_t row, size_t col, int64_t v);
void rows_uint(struct rows *r, size_t row, size_t col, uint64_t v);
void rows_num(struct rows *r, size_t row, size_t col, double v);
void rows_bool(struct rows *r, size_t row, size_t col, bool v);
void rows_null(struct rows *r, size_t row, size_t col);
/* Nest a set in the cell (takes ownership; NULL: null). */
void rows_nest(struct rows *r, size_t row, size_t col, struct rows *child);
/* Let fn write the cell's JSON value; people see "" unless rows_text. */
void rows_hook(struct rows *r, size_t row, size_t col, rows_hook_fn fn,
	       const void *arg);
/* What people read in the cell, instead of what its kind would print. */
void rows_text(struct rows *r, size_t row, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The columns people see, in this order (default: every column without
 * COL_NO_PEOPLE, in spec order); likewise for CSV. JSON always follows
 * the spec's order, which is what its contracts pin.
 */
void rows_people_order(struct rows *r, const size_t *cols, size_t n);
void rows_csv_order(struct rows *r, const size_t *cols, size_t n);

/*
 * The list as the user asked to see it (--sort, --limit). A sort key is
 * a column's key, with ":asc" or ":desc" to choose the order; without
 * one, numbers (and booleans) sort largest first, text A to Z (case
 * aside, then byte order). Cells
 * without a value (null, unset) go last either way; ties keep the order
 * the report built. Rows for people alone (totals) keep their place and
 * never count against the limit.
 */
struct rows_view {
	const char *sort;	/* KEY[:asc|:desc]; NULL: the report's order */
	size_t limit;		/* rows kept; 0: all */
};

/*
 * Whether spec ("KEY[:asc|:desc]") can sort r: 0, or -EINVAL with *cause
 * listing the keys that can ("bad --sort 'x': expected a column: tid,
 * name, ..."). A key can sort when its column holds values (not
 * COL_NEST) that people or CSV see; a key that holds a ':' itself
 * ("cycles:u") matches whole first. A NULL spec is fine. An empty set
 * built with the report's columns will do.
 */
int rows_sort_check(const struct rows *r, const char *spec, char **cause);

/*
 * Sort the rows from index first on, and keep the first v->limit of them
 * (NULL v: leave them be). Returns how many were left out; table and
 * Markdown then end with "… N more <many> (--limit 0 shows all)" (one
 * and many: the noun for one row and for several). A key that
 * rows_sort_check refuses leaves the order as built.
 */
size_t rows_view_apply(struct rows *r, size_t first, const struct rows_view *v,
		       const char *one, const char *many);

/* The index a row was added at, wherever rows_view_apply moved it. */
size_t rows_origin(const struct rows *r, size_t row);

/*
 * A view over more rows than are worth building whole (a run of 300,000
 * threads): rows_key_set gives an empty set of one column, the one spec
 * sorts r by (NULL when it names none; r may be an empty set with the
 * report's columns), and rows_key_col that column's index in r. Fill
 * the key set with each row's value of that column alone;
 * rows_view_apply on it, with the same view, orders and cuts as it would
 * r, and rows_origin names the rows kept. Build the set people read of
 * those, and rows_note_more says how many were left out (as
 * rows_view_apply would have: its "… N more" line).
 */
struct rows *rows_key_set(const struct rows *r, const char *spec);
size_t rows_key_col(const struct rows *r, const char *spec); /* (size_t)-1: none */
void rows_note_more(struct rows *r, size_t n, const char *one, const char *many);

/* The "… N more" line of a set rows_view_apply cut, for people (nothing
 * when none was left out, and for CSV and JSON). rows_write prints it
 * after the table; a report that lists the rows its own way calls it. */
void rows_write_more(const struct rows *r, enum out_format f, FILE *fp,
		     int indent);

/*
 * Render: table (each line indented by indent spaces), Markdown, CSV
 * (a header of keys, then raw values; nested cells left out) or JSON
 * ({"name": value} and a newline). Table and Markdown end with the "…
 * N more" line when rows_view_apply left rows out.
 */
void rows_write(const struct rows *r, enum out_format f, FILE *fp, int indent);

/* The set as one JSON value at the writer's position (see rows_flags). */
void rows_json(const struct rows *r, struct jw *w);
/* Only the items of a list, inside an array the caller opened: a long
 * list written a set at a time (all of one spec and flags). */
void rows_json_items(const struct rows *r, struct jw *w);
/* One row as a JSON object, or only its members inside an open object. */
void rows_json_row(const struct rows *r, size_t row, struct jw *w);
void rows_json_members(const struct rows *r, size_t row, struct jw *w);
/* CSV a set at a time, as rows_write(r, OUT_CSV) writes all the rows:
 * the header of r's columns once, then each set's rows (the same
 * columns). */
void rows_csv_header(const struct rows *r, FILE *fp);
void rows_csv_body(const struct rows *r, FILE *fp);
/* A document: row 0 as the top-level object, indented by 2, newline. */
void rows_json_doc(const struct rows *r, FILE *fp);
/*
 * For a report whose JSON is one record and whose CSV is one table, the
 * formats that are its data alone: r is the record (OUT_JSON, written as
 * a document) or the table (OUT_CSV, no indent). Frees r.
 */
void rows_write_data(struct rows *r, enum out_format f, FILE *fp);

#endif
