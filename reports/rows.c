/*
 * rows: typed cells under one column spec, and the writer that renders
 * them for people (through the aligned-table and Markdown writers of
 * output.c) and for machines (CSV and JSON). See rows.h for the model.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "reports/rows.h"

enum cell_type {
	CELL_UNSET,
	CELL_NULL,
	CELL_STR,
	CELL_INT,
	CELL_UINT,
	CELL_NUM,
	CELL_BOOL,
	CELL_ROWS,
	CELL_HOOK,
};

struct cell {
	enum cell_type type;
	union {
		char *s;
		int64_t i;
		uint64_t u;
		double d;
		bool b;
		struct rows *nest;
		struct {
			rows_hook_fn fn;
			const void *arg;
		} hook;
	} v;
	char *text;	/* people's text, when the report gave one */
};

enum row_flags {
	ROW_RULE = 1 << 0,	/* a rule above it, for people */
	ROW_PEOPLE = 1 << 1,	/* people's alone (a totals line) */
	ROW_MACHINES = 1 << 2,	/* CSV's and JSON's alone */
};

struct rows {
	char *name;
	unsigned flags;
	size_t ncols;
	struct col *cols;
	size_t nrows, cap;
	struct cell *cells;	/* nrows * ncols */
	unsigned char *row_flags;	/* enum row_flags */
	size_t *origin;		/* per row: its index when added */
	size_t *people, npeople;	/* NULL: the default order */
	size_t *csv, ncsv;
	size_t more;		/* rows rows_view_apply left out */
	const char *more_what;	/* what they are ("threads"); static */
};

/* A copy of s, NULL for NULL. */
static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct rows *rows_new(const char *name, const struct col *cols, size_t ncols,
		      unsigned flags)
{
	struct rows *r = xmalloc(sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->name = dup_or_null(name ? name : "rows");
	r->flags = flags;
	r->ncols = ncols;
	r->cols = xmalloc(ncols * sizeof(*r->cols));
	for (size_t c = 0; c < ncols; c++) {
		r->cols[c] = cols[c];
		r->cols[c].key = dup_or_null(cols[c].key ? cols[c].key : "");
		r->cols[c].title = dup_or_null(cols[c].title);
		r->cols[c].unit = dup_or_null(cols[c].unit);
		r->cols[c].none = dup_or_null(cols[c].none);
		r->cols[c].group = dup_or_null(cols[c].group);
	}
	return r;
}

static void cell_clear(struct cell *c)
{
	if (c->type == CELL_STR)
		free(c->v.s);
	else if (c->type == CELL_ROWS)
		rows_free(c->v.nest);
	c->type = CELL_UNSET;
}

void rows_free(struct rows *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nrows * r->ncols; i++) {
		cell_clear(&r->cells[i]);
		free(r->cells[i].text);
	}
	for (size_t c = 0; c < r->ncols; c++) {
		free((char *)r->cols[c].key);
		free((char *)r->cols[c].title);
		free((char *)r->cols[c].unit);
		free((char *)r->cols[c].none);
		free((char *)r->cols[c].group);
	}
	free(r->cols);
	free(r->cells);
	free(r->row_flags);
	free(r->origin);
	free(r->people);
	free(r->csv);
	free(r->name);
	free(r);
}

size_t rows_add(struct rows *r)
{
	if (r->nrows == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->cells = realloc(r->cells, r->cap * (r->ncols ? r->ncols : 1) *
				   sizeof(*r->cells));
		r->row_flags = realloc(r->row_flags, r->cap * sizeof(*r->row_flags));
		r->origin = realloc(r->origin, r->cap * sizeof(*r->origin));
		if (!r->cells || !r->row_flags || !r->origin)
			xalloc_die();
	}
	memset(&r->cells[r->nrows * r->ncols], 0, r->ncols * sizeof(*r->cells));
	r->row_flags[r->nrows] = 0;
	r->origin[r->nrows] = r->nrows;
	return r->nrows++;
}

size_t rows_add_people(struct rows *r)
{
	size_t row = rows_add(r);
	r->row_flags[row] = ROW_PEOPLE;
	return row;
}

size_t rows_add_machines(struct rows *r)
{
	size_t row = rows_add(r);
	r->row_flags[row] = ROW_MACHINES;
	return row;
}

size_t rows_add_total(struct rows *r)
{
	size_t row = rows_add_people(r);
	r->row_flags[row] |= ROW_RULE;
	return row;
}

size_t rows_count(const struct rows *r)
{
	return r->nrows;
}

void rows_rule(struct rows *r, size_t row)
{
	if (row < r->nrows)
		r->row_flags[row] |= ROW_RULE;
}

static struct cell *at(struct rows *r, size_t row, size_t col)
{
	struct cell *c = &r->cells[row * r->ncols + col];
	cell_clear(c);
	return c;
}

void rows_str(struct rows *r, size_t row, size_t col, const char *s)
{
	struct cell *c = at(r, row, col);
	if (!s) {
		c->type = CELL_NULL;
		return;
	}
	c->type = CELL_STR;
	c->v.s = dup_or_null(s);
}

void rows_int(struct rows *r, size_t row, size_t col, int64_t v)
{
	struct cell *c = at(r, row, col);
	c->type = CELL_INT;
	c->v.i = v;
}

void rows_uint(struct rows *r, size_t row, size_t col, uint64_t v)
{
	struct cell *c = at(r, row, col);
	c->type = CELL_UINT;
	c->v.u = v;
}

void rows_num(struct rows *r, size_t row, size_t col, double v)
{
	struct cell *c = at(r, row, col);
	c->type = isfinite(v) ? CELL_NUM : CELL_NULL;
	c->v.d = v;
}

void rows_bool(struct rows *r, size_t row, size_t col, bool v)
{
	struct cell *c = at(r, row, col);
	c->type = CELL_BOOL;
	c->v.b = v;
}

void rows_null(struct rows *r, size_t row, size_t col)
{
	at(r, row, col)->type = CELL_NULL;
}

void rows_nest(struct rows *r, size_t row, size_t col, struct rows *child)
{
	struct cell *c = at(r, row, col);
	c->type = child ? CELL_ROWS : CELL_NULL;
	c->v.nest = child;
}

void rows_hook(struct rows *r, size_t row, size_t col, rows_hook_fn fn,
	       const void *arg)
{
	struct cell *c = at(r, row, col);
	c->type = CELL_HOOK;
	c->v.hook.fn = fn;
	c->v.hook.arg = arg;
}

void rows_text(struct rows *r, size_t row, size_t col, const char *fmt, ...)
{
	struct cell *c = &r->cells[row * r->ncols + col];
	va_list ap;
	va_start(ap, fmt);
	free(c->text);
	if (vasprintf(&c->text, fmt, ap) < 0)
		xalloc_die();
	va_end(ap);
}

static size_t *copy_order(const size_t *cols, size_t n)
{
	size_t *v = xmalloc(n * sizeof(*v));
	memcpy(v, cols, n * sizeof(*v));
	return v;
}

void rows_people_order(struct rows *r, const size_t *cols, size_t n)
{
	free(r->people);
	r->people = copy_order(cols, n);
	r->npeople = n;
}

void rows_csv_order(struct rows *r, const size_t *cols, size_t n)
{
	free(r->csv);
	r->csv = copy_order(cols, n);
	r->ncsv = n;
}

/* ---- text for machines and for people ---- */

static void machine_text(const struct cell *c, char *buf, size_t n)
{
	switch (c->type) {
	case CELL_INT:
		snprintf(buf, n, "%lld", (long long)c->v.i);
		break;
	case CELL_UINT:
		snprintf(buf, n, "%llu", (unsigned long long)c->v.u);
		break;
	case CELL_NUM:
		fmt_raw(buf, n, c->v.d);
		break;
	case CELL_BOOL:
		snprintf(buf, n, "%s", c->v.b ? "true" : "false");
		break;
	default:
		buf[0] = '\0';
		break;
	}
}

static double as_double(const struct cell *c)
{
	switch (c->type) {
	case CELL_INT:
		return (double)c->v.i;
	case CELL_UINT:
		return (double)c->v.u;
	case CELL_NUM:
		return c->v.d;
	default:
		return NAN;
	}
}

/* How many nanoseconds one of the unit people read holds. */
static double ns_per(const char *unit)
{
	if (!unit)
		return 1;
	if (!strcmp(unit, "s"))
		return 1e9;
	if (!strcmp(unit, "ms"))
		return 1e6;
	if (!strcmp(unit, "us"))
		return 1e3;
	return 1;
}

/* What people read in a cell: buf, or a string the cell holds. */
static const char *people_text(const struct col *k, const struct cell *c,
			       char *buf, size_t n)
{
	if (c->text)
		return c->text;
	switch (c->type) {
	case CELL_UNSET:
	case CELL_ROWS:
	case CELL_HOOK:
		return "";
	case CELL_NULL:
		return k->none ? k->none : "";
	case CELL_STR:
		return c->v.s;
	case CELL_BOOL:
		return c->v.b ? "yes" : "no";
	default:
		break;
	}
	double v = as_double(c);
	switch (k->kind) {
	case COL_COUNT:
		fmt_count(buf, n, v, 0);
		break;
	case COL_REAL:
	case COL_PCT:
		fmt_count(buf, n, v, k->decimals);
		break;
	case COL_BYTES:
		fmt_bytes(buf, n, v);
		break;
	case COL_NS:
		fmt_count(buf, n, v / ns_per(k->unit), k->decimals);
		break;
	default:
		machine_text(c, buf, n);
		break;
	}
	return buf;
}

/* ---- table, Markdown and CSV ---- */

static bool for_people(const struct col *k)
{
	return !(k->flags & COL_NO_PEOPLE) && k->kind != COL_NEST;
}

static bool for_csv(const struct col *k)
{
	return !(k->flags & COL_NO_CSV) && k->kind != COL_NEST;
}

/* The columns of a view: the given order, or every column it shows. */
static size_t view(const struct rows *r, const size_t *order, size_t norder,
		   bool (*shows)(const struct col *), size_t *out)
{
	if (order) {
		memcpy(out, order, norder * sizeof(*out));
		return norder;
	}
	size_t n = 0;
	for (size_t c = 0; c < r->ncols; c++)
		if (shows(&r->cols[c]))
			out[n++] = c;
	return n;
}

static enum rt_align align_of(const struct col *k)
{
	if (k->align != COL_AUTO)
		return k->align == COL_RIGHT ? RT_RIGHT : RT_LEFT;
	switch (k->kind) {
	case COL_TEXT:
	case COL_BOOL:
	case COL_CPUS:
	case COL_NEST:
		return RT_LEFT;
	default:
		return RT_RIGHT;
	}
}

/* An rtable of the view, with people's or machines' text. */
static void to_rtable(const struct rows *r, bool people, struct rtable *t)
{
	size_t *cols = xmalloc((r->ncols + r->npeople + r->ncsv) * sizeof(*cols));
	size_t n = people ? view(r, r->people, r->npeople, for_people, cols)
			  : view(r, r->csv, r->ncsv, for_csv, cols);
	rtable_init_n(t, n);
	for (size_t i = 0; i < n; i++) {
		const struct col *k = &r->cols[cols[i]];
		char *dotted = NULL;
		const char *title = k->key;
		if (people && k->title) {
			title = k->title;
		} else if (!people && k->group) {
			if (asprintf(&dotted, "%s.%s", k->group, k->key) < 0)
				xalloc_die();
			title = dotted;
		}
		rtable_title(t, i, title, align_of(k));
		free(dotted);
	}
	char buf[128];
	for (size_t row = 0; row < r->nrows; row++) {
		if (r->row_flags[row] & (people ? ROW_MACHINES : ROW_PEOPLE))
			continue;
		size_t tr = rtable_add_row(t);
		if (people && (r->row_flags[row] & ROW_RULE))
			rtable_rule(t, tr);
		for (size_t i = 0; i < n; i++) {
			const struct cell *c = &r->cells[row * r->ncols + cols[i]];
			const char *s = buf;
			if (people)
				s = people_text(&r->cols[cols[i]], c, buf, sizeof(buf));
			else if (c->type == CELL_STR)
				s = c->v.s;
			else
				machine_text(c, buf, sizeof(buf));
			rtable_set2(t, tr, i, s, NULL);
		}
	}
	free(cols);
}

/* ---- sorting and cutting: --sort and --limit ---- */

/* Whether people or CSV see column c (their orders, else the flags). */
static bool in_order(const size_t *order, size_t n, size_t c)
{
	for (size_t i = 0; i < n; i++)
		if (order[i] == c)
			return true;
	return false;
}

static bool sortable(const struct rows *r, size_t c)
{
	const struct col *k = &r->cols[c];
	if (k->kind == COL_NEST || !*k->key)
		return false;
	bool people = r->people ? in_order(r->people, r->npeople, c) : for_people(k);
	bool csv = r->csv ? in_order(r->csv, r->ncsv, c) : for_csv(k);
	return people || csv;
}

/* Numbers and booleans read largest first; text and CPU lists A to Z. */
static bool descends(const struct col *k)
{
	return k->kind != COL_TEXT && k->kind != COL_CPUS;
}

/* The column a key names, or r->ncols. */
static size_t sort_col(const struct rows *r, const char *key, size_t len)
{
	for (size_t c = 0; c < r->ncols; c++)
		if (sortable(r, c) && strlen(r->cols[c].key) == len &&
		    !strncmp(r->cols[c].key, key, len))
			return c;
	return r->ncols;
}

/*
 * The column spec sorts by, and the order asked for (0: the column's
 * own, 1 ascending, -1 descending); r->ncols when it names none. An
 * event's name may hold a ':' ("cycles:u"), so a key that matches whole
 * wins over a suffix.
 */
static size_t sort_resolve(const struct rows *r, const char *spec, int *dir)
{
	size_t len = strlen(spec), c = sort_col(r, spec, len);
	*dir = 0;
	if (c < r->ncols)
		return c;
	if (len > 4 && !strcmp(spec + len - 4, ":asc"))
		*dir = 1, len -= 4;
	else if (len > 5 && !strcmp(spec + len - 5, ":desc"))
		*dir = -1, len -= 5;
	else
		return r->ncols;
	return sort_col(r, spec, len);
}

/* "bad --sort 'x': ..." with the word cut to 40 bytes, as prof echoes. */
static int sort_error(const char *spec, char **cause, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int sort_error(const char *spec, char **cause, const char *fmt, ...)
{
	if (!cause)
		return -EINVAL;
	char *why = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		xalloc_die();
	va_end(ap);
	if (asprintf(cause, "bad --sort '%.40s%s': %s", spec,
		     strlen(spec) > 40 ? "..." : "", why) < 0)
		xalloc_die();
	free(why);
	return -EINVAL;
}

int rows_sort_check(const struct rows *r, const char *spec, char **cause)
{
	int dir;
	if (!spec || sort_resolve(r, spec, &dir) < r->ncols)
		return 0;
	char *keys = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&keys, &n);
	if (!fp)
		xalloc_die();
	const char *sep = "";
	for (size_t c = 0; c < r->ncols; c++) {
		if (!sortable(r, c))
			continue;
		fprintf(fp, "%s%s", sep, r->cols[c].key);
		sep = ", ";
	}
	fclose(fp);
	sort_error(spec, cause, "expected a column: %s\n"
		   "hint: KEY:asc or KEY:desc chooses the order", *keys ? keys : "(none)");
	free(keys);
	return -EINVAL;
}

struct sort_by {
	const struct rows *r;
	size_t col;
	int dir;	/* 1 ascending, -1 descending */
};

static bool has_value(const struct cell *c)
{
	return c->type != CELL_UNSET && c->type != CELL_NULL &&
	       c->type != CELL_ROWS && c->type != CELL_HOOK;
}

/* A to Z as people read it: case aside first, then byte order. */
static int text_cmp(const char *a, const char *b)
{
	int c = strcasecmp(a, b);
	return c ? c : strcmp(a, b);
}

/* Ascending order of two cells that hold values: numbers (exactly, for
 * integers) before text. */
static int cell_cmp(const struct cell *a, const struct cell *b)
{
	bool sa = a->type == CELL_STR, sb = b->type == CELL_STR;
	if (sa || sb)
		return sa && sb ? text_cmp(a->v.s, b->v.s) : sa ? 1 : -1;
	if (a->type == CELL_INT && b->type == CELL_INT)
		return (a->v.i > b->v.i) - (a->v.i < b->v.i);
	if (a->type == CELL_UINT && b->type == CELL_UINT)
		return (a->v.u > b->v.u) - (a->v.u < b->v.u);
	double x = a->type == CELL_BOOL ? a->v.b : as_double(a);
	double y = b->type == CELL_BOOL ? b->v.b : as_double(b);
	return (x > y) - (x < y);
}

static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_by *s = arg;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct cell *a = &s->r->cells[ia * s->r->ncols + s->col];
	const struct cell *b = &s->r->cells[ib * s->r->ncols + s->col];
	bool va = has_value(a), vb = has_value(b);
	int c = 0;
	if (va && vb)
		c = s->dir * cell_cmp(a, b);
	else if (va != vb)
		c = va ? -1 : 1;	/* no value: last, whichever the order */
	if (c)
		return c;
	return (ia > ib) - (ia < ib);	/* ties: as the report built them */
}

/* Sorted indexes of the rows from first on that people do not own. */
static size_t sorted_data(const struct rows *r, size_t first,
			  const struct rows_view *v, size_t *out)
{
	size_t n = 0;
	for (size_t i = first; i < r->nrows; i++)
		if (!(r->row_flags[i] & ROW_PEOPLE))
			out[n++] = i;
	if (!v->sort)
		return n;
	struct sort_by s = { r, 0, 0 };
	s.col = sort_resolve(r, v->sort, &s.dir);
	if (s.col == r->ncols)
		return n;
	if (!s.dir)
		s.dir = descends(&r->cols[s.col]) ? -1 : 1;
	qsort_r(out, n, sizeof(*out), row_cmp, &s);
	return n;
}

size_t rows_view_apply(struct rows *r, size_t first, const struct rows_view *v,
		       const char *one, const char *many)
{
	if (!v || first >= r->nrows || (!v->sort && !v->limit))
		return 0;
	size_t span = r->nrows - first;
	size_t *data = xmalloc(span * sizeof(*data));
	size_t *order = xmalloc(span * sizeof(*order));
	size_t ndata = sorted_data(r, first, v, data);
	size_t keep = v->limit && v->limit < ndata ? v->limit : ndata;
	/* People's rows stay in their slots; the data rows fill the others
	 * in their new order, and the slots past the limit close up. */
	size_t n = 0, d = 0;
	for (size_t i = first; i < r->nrows; i++) {
		if (r->row_flags[i] & ROW_PEOPLE)
			order[n++] = i;
		else if (d < keep)
			order[n++] = data[d++];
	}
	for (size_t i = keep; i < ndata; i++) {
		struct cell *c = &r->cells[data[i] * r->ncols];
		for (size_t k = 0; k < r->ncols; k++) {
			cell_clear(&c[k]);
			free(c[k].text);
		}
	}
	struct cell *cells = xmalloc(n * r->ncols * sizeof(*cells) + 1);
	unsigned char *flags = xmalloc(n);
	size_t *origin = xmalloc(n * sizeof(*origin));
	for (size_t i = 0; i < n; i++) {
		memcpy(&cells[i * r->ncols], &r->cells[order[i] * r->ncols],
		       r->ncols * sizeof(*cells));
		flags[i] = r->row_flags[order[i]];
		origin[i] = r->origin[order[i]];
	}
	memcpy(&r->cells[first * r->ncols], cells, n * r->ncols * sizeof(*cells));
	memcpy(&r->row_flags[first], flags, n);
	memcpy(&r->origin[first], origin, n * sizeof(*origin));
	r->nrows = first + n;
	free(cells);
	free(flags);
	free(origin);
	free(order);
	free(data);
	size_t left = ndata - keep;
	rows_note_more(r, left, one, many);
	return left;
}

void rows_note_more(struct rows *r, size_t n, const char *one, const char *many)
{
	r->more += n;
	if (r->more)
		r->more_what = r->more == 1 ? one : many;
}

struct rows *rows_key_set(const struct rows *r, const char *spec)
{
	int dir;
	size_t c = spec ? sort_resolve(r, spec, &dir) : r->ncols;
	if (c == r->ncols)
		return NULL;
	struct col k = r->cols[c];
	k.flags = 0;	/* every reader's, so that the spec finds it */
	k.group = NULL;
	return rows_new(r->name, &k, 1, 0);
}

size_t rows_key_col(const struct rows *r, const char *spec)
{
	int dir;
	size_t c = spec ? sort_resolve(r, spec, &dir) : r->ncols;
	return c == r->ncols ? (size_t)-1 : c;
}

size_t rows_origin(const struct rows *r, size_t row)
{
	return row < r->nrows ? r->origin[row] : row;
}

void rows_write_more(const struct rows *r, enum out_format f, FILE *fp,
		     int indent)
{
	if (!r->more || (f != OUT_TABLE && f != OUT_MARKDOWN))
		return;
	char n[64];
	fmt_count(n, sizeof(n), (double)r->more, 0);
	/* Markdown: a blank line first, or the line would join the table. */
	if (f == OUT_MARKDOWN)
		fprintf(fp, "\n… %s more %s (--limit 0 shows all)\n", n, r->more_what);
	else
		fprintf(fp, "%*s… %s more %s (--limit 0 shows all)\n", indent, "", n,
			r->more_what);
}

void rows_write(const struct rows *r, enum out_format f, FILE *fp, int indent)
{
	if (f == OUT_JSON) {
		struct jw w;
		jw_init(&w, fp, 2);
		jw_obj_begin(&w);
		jw_key(&w, r->name);
		rows_json(r, &w);
		jw_obj_end(&w);
		jw_end(&w);
		return;
	}
	struct rtable t;
	to_rtable(r, f != OUT_CSV, &t);
	rtable_write(&t, f == OUT_CSV || f == OUT_MARKDOWN ? f : OUT_TABLE, fp,
		     indent);
	rtable_release(&t);
	rows_write_more(r, f, fp, indent);
}

/* CSV as rtable_write writes it (output.c), a header and then rows, in
 * parts: the rows of one set after another under one header. */
static void csv_line(const struct rtable *t, FILE *fp, size_t row, bool header)
{
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', fp);
		const struct rcell *cell = header ? NULL : &t->cells[row * t->ncols + c];
		csv_field(fp, header ? t->titles[c] : cell->raw ? cell->raw : cell->text);
	}
	fputc('\n', fp);
}

void rows_csv_header(const struct rows *r, FILE *fp)
{
	struct rows head = *r;
	head.nrows = 0;
	struct rtable t;
	to_rtable(&head, false, &t);
	csv_line(&t, fp, 0, true);
	rtable_release(&t);
}

void rows_csv_body(const struct rows *r, FILE *fp)
{
	struct rtable t;
	to_rtable(r, false, &t);
	for (size_t row = 0; row < t.nrows; row++)
		csv_line(&t, fp, row, false);
	rtable_release(&t);
}

/* ---- JSON ---- */

static void json_value(const struct col *k, const struct cell *c, struct jw *w)
{
	switch (c->type) {
	case CELL_STR:
		if (k->kind == COL_CPUS)
			jw_cpu_list(w, c->v.s);
		else
			jw_str(w, c->v.s);
		break;
	case CELL_INT:
		jw_int(w, c->v.i);
		break;
	case CELL_UINT:
		jw_uint(w, c->v.u);
		break;
	case CELL_NUM:
		jw_num(w, c->v.d);
		break;
	case CELL_BOOL:
		jw_bool(w, c->v.b);
		break;
	case CELL_ROWS:
		rows_json(c->v.nest, w);
		break;
	case CELL_HOOK:
		c->v.hook.fn(w, c->v.hook.arg);
		break;
	default:
		jw_null(w);
		break;
	}
}

static bool same_group(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

void rows_json_members(const struct rows *r, size_t row, struct jw *w)
{
	const char *open = NULL;	/* the group whose object is open */
	for (size_t col = 0; col < r->ncols; col++) {
		const struct col *k = &r->cols[col];
		if (k->flags & COL_NO_JSON)
			continue;
		if (open && !same_group(open, k->group)) {
			jw_obj_end(w);
			open = NULL;
		}
		if (k->group && !open) {
			jw_key(w, k->group);
			if (k->flags & COL_FLAT_GROUP)
				jw_obj_begin_flat(w);
			else
				jw_obj_begin(w);
			open = k->group;
		}
		const struct cell *c = &r->cells[row * r->ncols + col];
		if (c->type == CELL_UNSET)
			continue;
		jw_key(w, k->key);
		json_value(k, c, w);
	}
	if (open)
		jw_obj_end(w);
}

void rows_json_row(const struct rows *r, size_t row, struct jw *w)
{
	if (r->flags & ROWS_FLAT)
		jw_obj_begin_flat(w);
	else
		jw_obj_begin(w);
	rows_json_members(r, row, w);
	jw_obj_end(w);
}

/* The first column JSON shows, for ROWS_VALUES. */
static size_t first_json_col(const struct rows *r)
{
	for (size_t c = 0; c < r->ncols; c++)
		if (!(r->cols[c].flags & COL_NO_JSON))
			return c;
	return r->ncols;
}

void rows_json(const struct rows *r, struct jw *w)
{
	if (r->flags & ROWS_OBJECT) {
		if (r->nrows && !(r->row_flags[0] & ROW_PEOPLE))
			rows_json_row(r, 0, w);
		else
			jw_null(w);
		return;
	}
	if ((r->flags & ROWS_FLAT) && (r->flags & ROWS_VALUES))
		jw_arr_begin_flat(w);
	else
		jw_arr_begin(w);
	rows_json_items(r, w);
	jw_arr_end(w);
}

void rows_json_items(const struct rows *r, struct jw *w)
{
	size_t vc = first_json_col(r);
	for (size_t row = 0; row < r->nrows; row++) {
		if (r->row_flags[row] & ROW_PEOPLE)
			continue;
		if (!(r->flags & ROWS_VALUES))
			rows_json_row(r, row, w);
		else if (vc < r->ncols)
			json_value(&r->cols[vc], &r->cells[row * r->ncols + vc], w);
	}
}

void rows_json_doc(const struct rows *r, FILE *fp)
{
	struct jw w;
	jw_init(&w, fp, 2);
	if (r->nrows)
		rows_json_row(r, 0, &w);
	else
		jw_null(&w);
	jw_end(&w);
}

void rows_write_data(struct rows *r, enum out_format f, FILE *fp)
{
	if (f == OUT_JSON)
		rows_json_doc(r, fp);
	else
		rows_write(r, f, fp, 0);
	rows_free(r);
}
