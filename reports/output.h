/*
 * output: the writers every report shares. A report fills a `struct rtable`
 * (titled columns, rows of cells) and one call renders it as an aligned
 * terminal table, Markdown or CSV; JSON reports are written with the small
 * streaming writer `struct jw`, which keeps commas and nesting right.
 *
 * A cell holds the text a person reads ("1,234.56", "not supported") and,
 * separately, the raw text a machine reads in CSV ("1234.56", ""), so no
 * writer has to undo another's formatting. The caller owns the FILE; the
 * table owns its strings. Not thread-safe.
 */
#ifndef REPORTS_OUTPUT_H
#define REPORTS_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum out_format {
	OUT_TABLE,
	OUT_JSON,
	OUT_CSV,
	OUT_MARKDOWN,
	OUT_FOLDED,
	OUT_SVG,	/* a picture: reports/svg.h */
	OUT_PERFETTO,	/* exports other tools read: reports/export.h */
	OUT_SPEEDSCOPE,
	OUT_PERF_SCRIPT,
	OUT_PPROF,
	OUT_FORMAT_COUNT
};

#define OUT_ALL_TEXT ((1u << OUT_TABLE) | (1u << OUT_JSON) | (1u << OUT_CSV) | \
		      (1u << OUT_MARKDOWN))

/* "table", "json", "csv", "markdown" (also "md"), "folded", "svg",
 * "perfetto", "speedscope", "perf-script", "pprof". 0 or -EINVAL. */
int output_format_parse(const char *word, enum out_format *out);
const char *output_format_name(enum out_format f);

enum rt_align { RT_LEFT, RT_RIGHT };

struct rcell {
	char *text;	/* what a person reads; NULL prints as "" */
	char *raw;	/* what CSV gets; NULL means the same as text */
};

struct rtable {
	size_t ncols;
	char **titles;
	enum rt_align *align;
	size_t nrows, cap;
	struct rcell *cells;	/* nrows * ncols */
	bool *rule_before;	/* draw a rule above this row (totals) */
};

/* ncols titles; right-aligned columns are those whose title starts '>'. */
void rtable_init(struct rtable *t, size_t ncols, const char *const *titles);
/* ncols untitled left-aligned columns, for rtable_title() to name. */
void rtable_init_n(struct rtable *t, size_t ncols);
void rtable_title(struct rtable *t, size_t col, const char *title,
		  enum rt_align align);
void rtable_release(struct rtable *t);
/* Append a row and return its index; cells start empty. */
size_t rtable_add_row(struct rtable *t);
/* Set a cell's text (printf-style); raw stays "same as text". */
void rtable_set(struct rtable *t, size_t row, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Set a cell's text and its raw CSV text separately. */
void rtable_set2(struct rtable *t, size_t row, size_t col, const char *text,
		 const char *raw);
void rtable_rule(struct rtable *t, size_t row);

/* indent: spaces before every line of a terminal table. */
void rtable_write(const struct rtable *t, enum out_format f, FILE *fp,
		  int indent);

/* Number formatting for people: thousands separators, fixed decimals. */
void fmt_count(char *buf, size_t n, double v, int decimals);

/*
 * The unit a stored unit is shown in to people, and the factor from one
 * to the other: nanoseconds (task-clock, cpu-clock and the like, as
 * stored and as JSON and CSV keep them) are shown in milliseconds, as
 * the run tables show them; every other unit as it is (factor 1).
 */
const char *unit_shown(const char *unit, double *factor);

/*
 * text as lines of at most TERM_COLUMNS (80) columns: a longer line is
 * broken at spaces, its continuation indented two past the line's own
 * indent; a word longer than the line stays whole, and a line with two
 * spaces in a row past its indent (a table's) is left as it is. For the
 * notes around a table, which quote event names, kernel messages and
 * paths.
 */
void out_wrap(FILE *fp, const char *text);
/* Raw number text for machines: integers exact, else %.9g. */
void fmt_raw(char *buf, size_t n, double v);
/* Bytes as "32 MiB", "1.5 GiB", "512 KiB", "100 B". */
void fmt_bytes(char *buf, size_t n, double bytes);
/* A change in percent as "+1.2" or "-40.6"; "n/a" when not finite. */
void fmt_pct(char *buf, size_t n, double v);
/* A p value as "0.031" or "<0.001"; "n/a" when not finite. */
void fmt_p(char *buf, size_t n, double p);

/* ---- JSON ---- */
#define JW_MAX_DEPTH 32

struct jw {
	FILE *fp;
	int depth;
	bool first[JW_MAX_DEPTH];
	bool flat[JW_MAX_DEPTH];	/* written on one line */
	bool after_key;
	int indent;	/* 0: compact; else spaces per level */
};

void jw_init(struct jw *w, FILE *fp, int indent);
void jw_obj_begin(struct jw *w);
void jw_obj_end(struct jw *w);
void jw_arr_begin(struct jw *w);
void jw_arr_end(struct jw *w);
/* An array kept on one line even when indenting (lists of numbers). */
void jw_arr_begin_flat(struct jw *w);
/* An object kept on one line (small records in long lists). */
void jw_obj_begin_flat(struct jw *w);
void jw_key(struct jw *w, const char *key);
void jw_str(struct jw *w, const char *s);	/* NULL writes null */
void jw_num(struct jw *w, double v);		/* NaN/inf write null */
/* v with exactly decimals digits after the point ("12.500"), where
 * jw_num's 9 significant digits would cut a long time line's
 * microseconds; NaN/inf write null. */
void jw_fixed(struct jw *w, double v, int decimals);
void jw_int(struct jw *w, int64_t v);
void jw_uint(struct jw *w, uint64_t v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* Finish with a newline after the top-level value. */
void jw_end(struct jw *w);

/*
 * A CPU list in the kernel's compact form ("0-5,12-17") as a flat JSON
 * array of ints, and the number of CPUs in it. Stops at the first
 * malformed part (lists come from the kernel or from prof itself).
 */
void jw_cpu_list(struct jw *w, const char *list);
size_t cpu_list_count(const char *list);

/*
 * Every writer below emits valid UTF-8 whatever s holds: bytes that
 * form no character (common/utf8.h) are written as U+FFFD.
 */
/* Write s as CSV: quoted when it holds a comma, quote or line break;
 * other control characters escaped as term_field does. */
void csv_field(FILE *fp, const char *s);
/* Write s for a Markdown table cell: '|' escaped, and '<' and '&' where
 * they would open HTML markup or an entity. */
void md_field(FILE *fp, const char *s);
/* s for a terminal: control characters (C0, DEL, C1) written as \xNN or
 * \uNNNN escapes; markdown fields get the same. */
void term_field(FILE *fp, const char *s);
/* s as one frame of a folded stack: term_field's escapes (so no line
 * breaks) and ';', the frames' separator, written as ':'. */
void folded_field(FILE *fp, const char *s);

/*
 * A command line in a line of prose, quoted: 'like this' for a terminal
 * (control characters escaped, as term_field does), or as a Markdown
 * code span, its fence longer than any run of backticks inside (no
 * escaping there: a code span shows a '\|' as two characters). A new
 * line reads as a space in both.
 */
void command_field(FILE *fp, const char *s, enum out_format fmt);

#endif
