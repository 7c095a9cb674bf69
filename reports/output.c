/*
 * output: aligned tables, Markdown, CSV and JSON writers shared by every
 * report. See output.h for the cell model.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "common/utf8.h"
#include "reports/output.h"

static const char *const format_names[OUT_FORMAT_COUNT] = {
	"table", "json", "csv", "markdown", "folded", "svg",
	"perfetto", "speedscope", "perf-script", "pprof",
};

int output_format_parse(const char *word, enum out_format *out)
{
	if (!word)
		return -22;
	for (int f = 0; f < OUT_FORMAT_COUNT; f++) {
		if (!strcmp(word, format_names[f])) {
			*out = (enum out_format)f;
			return 0;
		}
	}
	if (!strcmp(word, "md")) {
		*out = OUT_MARKDOWN;
		return 0;
	}
	return -22;
}

const char *output_format_name(enum out_format f)
{
	return (unsigned)f < OUT_FORMAT_COUNT ? format_names[f] : "?";
}

/* A copy of s, "" for NULL. */
static char *dup_or_empty(const char *s)
{
	return xstrdup(s ? s : "");
}

void rtable_init(struct rtable *t, size_t ncols, const char *const *titles)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->titles = xrealloc(NULL, ncols * sizeof(char *));
	t->align = xrealloc(NULL, ncols * sizeof(*t->align));
	for (size_t c = 0; c < ncols; c++) {
		const char *s = titles[c];
		t->align[c] = RT_LEFT;
		if (s[0] == '>') {
			t->align[c] = RT_RIGHT;
			s++;
		}
		t->titles[c] = dup_or_empty(s);
	}
}

void rtable_init_n(struct rtable *t, size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->titles = xrealloc(NULL, ncols * sizeof(char *));
	t->align = xrealloc(NULL, ncols * sizeof(*t->align));
	for (size_t c = 0; c < ncols; c++) {
		t->titles[c] = dup_or_empty("");
		t->align[c] = RT_LEFT;
	}
}

void rtable_title(struct rtable *t, size_t col, const char *title,
		  enum rt_align align)
{
	free(t->titles[col]);
	t->titles[col] = dup_or_empty(title);
	t->align[col] = align;
}

void rtable_release(struct rtable *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows * t->ncols; i++) {
		free(t->cells[i].text);
		free(t->cells[i].raw);
	}
	for (size_t c = 0; c < t->ncols; c++)
		free(t->titles[c]);
	free(t->titles);
	free(t->align);
	free(t->cells);
	free(t->rule_before);
	memset(t, 0, sizeof(*t));
}

size_t rtable_add_row(struct rtable *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->cells = xrealloc(t->cells, t->cap * t->ncols * sizeof(struct rcell));
		t->rule_before = xrealloc(t->rule_before, t->cap * sizeof(bool));
	}
	memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof(struct rcell));
	t->rule_before[t->nrows] = false;
	return t->nrows++;
}

void rtable_set(struct rtable *t, size_t row, size_t col, const char *fmt, ...)
{
	struct rcell *c = &t->cells[row * t->ncols + col];
	va_list ap;
	va_start(ap, fmt);
	free(c->text);
	if (vasprintf(&c->text, fmt, ap) < 0)
		xalloc_die();
	va_end(ap);
}

void rtable_set2(struct rtable *t, size_t row, size_t col, const char *text,
		 const char *raw)
{
	struct rcell *c = &t->cells[row * t->ncols + col];
	free(c->text);
	free(c->raw);
	c->text = dup_or_empty(text);
	c->raw = raw ? dup_or_empty(raw) : NULL;
}

void rtable_rule(struct rtable *t, size_t row)
{
	if (row < t->nrows)
		t->rule_before[row] = true;
}

/*
 * Length of the control character at s (a C0 byte, DEL, or a UTF-8
 * encoded C1 such as U+009B, the one-byte CSI), or 0. Thread names,
 * commands and paths come from the workload: written raw, an escape
 * sequence in one could drive the reader's terminal.
 */
static size_t control_at(const unsigned char *s)
{
	if (*s < 0x20 || *s == 0x7f)
		return 1;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	return 0;
}

static void term_field_n(FILE *fp, const unsigned char *p, size_t n)
{
	if (n == 1)
		fprintf(fp, "\\x%02x", *p);
	else
		fprintf(fp, "\\u%04x", p[1]);
}

/* The next piece of s as a terminal shows it: a control character as its
 * escape, an invalid piece as U+FFFD, else the character.
 * Its length in s; *width the columns it takes. */
static size_t term_piece(FILE *fp, const unsigned char *p, size_t *width)
{
	size_t n = control_at(p);
	if (n) {
		if (fp)
			term_field_n(fp, p, n);
		*width = n == 1 ? 4 : 6;
		return n;
	}
	uint32_t cp;
	n = utf8_next_str(p, &cp);
	if (fp) {
		if (cp == UTF8_INVALID)
			utf8_put_shown(fp, cp);
		else
			fwrite(p, 1, n, fp);
	}
	*width = 1;
	return n;
}

void term_field(FILE *fp, const char *s)
{
	size_t w;
	for (const unsigned char *p = (const unsigned char *)s; p && *p;)
		p += term_piece(fp, p, &w);
}

void folded_field(FILE *fp, const char *s)
{
	size_t w;
	for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
		if (*p == ';') {
			fputc(':', fp);
			p++;
		} else {
			p += term_piece(fp, p, &w);
		}
	}
}

/* Display width of UTF-8 text as term_field writes it: characters, with
 * control characters at the width of their escapes. */
static size_t text_width(const char *s)
{
	size_t total = 0, w;
	for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
		p += term_piece(NULL, p, &w);
		total += w;
	}
	return total;
}

static void pad(FILE *fp, size_t n)
{
	while (n--)
		fputc(' ', fp);
}

/* A table's width on a terminal, past which titles take two lines. */
#define TERM_COLUMNS 80

/*
 * Where a title splits into two lines: after a '-' or at a space, the
 * break that leaves the longer part shortest (a space where they tie,
 * keeping words whole); 0 where it has none.
 * ("context-switches" -> "context-" / "switches", "task-clock (ms)" ->
 * "task-clock" / "(ms)").
 */
static size_t title_break(const char *s)
{
	size_t len = strlen(s), best = 0, best_w = len;
	for (size_t i = 1; i + 1 < len; i++) {
		size_t a = s[i] == '-' ? i + 1 : s[i] == ' ' ? i : 0;
		if (!a)
			continue;
		size_t rest = s[i] == ' ' ? len - i - 1 : len - a;
		size_t wmax = a > rest ? a : rest;
		if (wmax < best_w || (wmax == best_w && best && s[i] == ' ' &&
					s[best] == '-')) {
			best_w = wmax;
			best = i;
		}
	}
	return best;
}

/* A title's two lines: top[c] (or NULL: one line) and bottom[c], where
 * that brings the table within TERM_COLUMNS; else every title on one. */
static void split_titles(const struct rtable *t, const size_t *cellw, size_t indent,
			 char **top, char **bottom, size_t *w)
{
	size_t total = indent, *was = malloc((t->ncols + 1) * sizeof(*was));
	if (!was)
		xalloc_die();
	for (size_t c = 0; c < t->ncols; c++) {
		total += w[c] + (c ? 2 : 0);
		was[c] = w[c];
	}
	for (size_t c = 0; c < t->ncols && total > TERM_COLUMNS; c++) {
		const char *s = t->titles[c] ? t->titles[c] : "";
		size_t b = title_break(s);
		if (!b || text_width(s) <= cellw[c])
			continue;
		bool space = s[b] == ' ';
		top[c] = strndup(s, space ? b : b + 1);
		bottom[c] = strdup(s + b + 1);
		if (!top[c] || !bottom[c])
			xalloc_die();
		size_t nw = cellw[c];
		if (text_width(top[c]) > nw)
			nw = text_width(top[c]);
		if (text_width(bottom[c]) > nw)
			nw = text_width(bottom[c]);
		total -= w[c] - nw;
		w[c] = nw;
	}
	for (size_t c = 0; c < t->ncols && total > TERM_COLUMNS; c++) {
		free(top[c]);
		free(bottom[c]);
		top[c] = bottom[c] = NULL;
		w[c] = was[c];
	}
	free(was);
}

/* One line of the table: the texts of row (NULL: a title line of
 * lines[]), each padded to its column. */
static void term_line(const struct rtable *t, FILE *fp, int indent, const size_t *w,
		      const char *const *texts)
{
	pad(fp, (size_t)indent);
	size_t pending = 0;	/* spaces owed before the next text: never at
				   the line's end */
	for (size_t c = 0; c < t->ncols; c++) {
		const char *s = texts[c] ? texts[c] : "";
		size_t x = text_width(s);
		pending += c ? 2 : 0;
		if (!x) {
			pending += w[c];
			continue;
		}
		bool right = t->align[c] == RT_RIGHT;
		pad(fp, pending + (right ? w[c] - x : 0));
		term_field(fp, s);
		pending = right ? 0 : w[c] - x;
	}
	fputc('\n', fp);
}

/*
 * Columns padded to their widest text, two spaces apart. A table wider
 * than TERM_COLUMNS gives a title that is wider than its column's cells
 * two lines, broken after a '-' or at a space, so that long event names
 * (context-switches, cpu-migrations) cost no width of their own.
 */
static void write_terminal(const struct rtable *t, FILE *fp, int indent)
{
	size_t *w = calloc(t->ncols, sizeof(size_t));
	size_t *cellw = calloc(t->ncols, sizeof(size_t));
	char **top = calloc(t->ncols, sizeof(char *));
	char **bottom = calloc(t->ncols, sizeof(char *));
	const char **line = calloc(t->ncols + 1, sizeof(char *));
	if (!w || !cellw || !top || !bottom || !line)
		xalloc_die();
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			size_t x = text_width(t->cells[r * t->ncols + c].text);
			if (x > cellw[c])
				cellw[c] = x;
		}
	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = text_width(t->titles[c]);
		if (cellw[c] > w[c])
			w[c] = cellw[c];
	}
	split_titles(t, cellw, (size_t)indent, top, bottom, w);
	size_t total = 0;
	bool two = false;
	for (size_t c = 0; c < t->ncols; c++) {
		total += w[c] + (c ? 2 : 0);
		two = two || top[c];
	}
	if (two) {
		for (size_t c = 0; c < t->ncols; c++)
			line[c] = top[c];
		term_line(t, fp, indent, w, line);
	}
	for (size_t c = 0; c < t->ncols; c++)
		line[c] = bottom[c] ? bottom[c] : t->titles[c];
	term_line(t, fp, indent, w, line);
	for (size_t r = 0; r < t->nrows; r++) {
		if (t->rule_before[r]) {
			pad(fp, (size_t)indent);
			for (size_t i = 0; i < total; i++)
				fputc('-', fp);
			fputc('\n', fp);
		}
		for (size_t c = 0; c < t->ncols; c++)
			line[c] = t->cells[r * t->ncols + c].text;
		term_line(t, fp, indent, w, line);
	}
	for (size_t c = 0; c < t->ncols; c++) {
		free(top[c]);
		free(bottom[c]);
	}
	free(top);
	free(bottom);
	free(line);
	free(cellw);
	free(w);
}

/* s on one line: a new line as a space, control characters escaped as
 * term_field does; for a Markdown table cell also '|' as '\\|', and '<'
 * and '&' where they could open an HTML tag or an entity, backslashed so
 * a thread's name shows as text and never as markup. */
static void one_line(FILE *fp, const char *s, bool cell)
{
	size_t w;
	for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
		if (*p == '|' && cell) {
			fputs("\\|", fp);
		} else if (cell && ((*p == '<' && (isalpha(p[1]) || p[1] == '/' ||
						   p[1] == '!' || p[1] == '?')) ||
				    (*p == '&' && (isalpha(p[1]) || p[1] == '#')))) {
			fputc('\\', fp);
			fputc(*p, fp);
		} else if (*p == '\n') {
			fputc(' ', fp);
		} else {
			p += term_piece(fp, p, &w);
			continue;
		}
		p++;
	}
}

void md_field(FILE *fp, const char *s)
{
	one_line(fp, s, true);
}

void command_field(FILE *fp, const char *s, enum out_format fmt)
{
	if (!s)
		s = "";
	if (fmt != OUT_MARKDOWN) {
		fputc('\'', fp);
		one_line(fp, s, false);
		fputc('\'', fp);
		return;
	}
	size_t run = 0, longest = 0;
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	/* A span that starts or ends with a backtick needs a space inside
	 * its fence. */
	size_t len = strlen(s);
	bool pad = len && (s[0] == '`' || s[len - 1] == '`');
	for (size_t i = 0; i <= longest; i++)
		fputc('`', fp);
	if (pad)
		fputc(' ', fp);
	one_line(fp, s, false);
	if (pad)
		fputc(' ', fp);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', fp);
}

static void write_markdown(const struct rtable *t, FILE *fp)
{
	fputc('|', fp);
	for (size_t c = 0; c < t->ncols; c++) {
		fputc(' ', fp);
		md_field(fp, t->titles[c]);
		fputs(" |", fp);
	}
	fputs("\n|", fp);
	for (size_t c = 0; c < t->ncols; c++)
		fputs(t->align[c] == RT_RIGHT ? "---:|" : "---|", fp);
	fputc('\n', fp);
	for (size_t r = 0; r < t->nrows; r++) {
		fputc('|', fp);
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c].text;
			/* Rows under a rule are totals: bold them. */
			bool bold = t->rule_before[r] && s && *s;
			fputc(' ', fp);
			if (bold)
				fputs("**", fp);
			md_field(fp, s ? s : "");
			if (bold)
				fputs("**", fp);
			fputs(" |", fp);
		}
		fputc('\n', fp);
	}
}

/* A CSV field, quoted when it holds a separator, a quote or a line break.
 * Other control characters are escaped as term_field does (a CSV file is
 * read on a terminal too, and an escape sequence in a thread's name would
 * drive it), and bytes that start no character are U+FFFD. */
void csv_field(FILE *fp, const char *s)
{
	if (!s)
		return;
	bool quote = strpbrk(s, ",\"\n\r") != NULL;
	if (quote)
		fputc('"', fp);
	size_t w;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		if (*p == '"' || *p == '\n' || *p == '\r' || *p == '\t') {
			if (*p == '"')
				fputc('"', fp);
			fputc(*p++, fp);
			continue;
		}
		p += term_piece(fp, p, &w);
	}
	if (quote)
		fputc('"', fp);
}

static void write_csv(const struct rtable *t, FILE *fp)
{
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', fp);
		csv_field(fp, t->titles[c]);
	}
	fputc('\n', fp);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const struct rcell *cell = &t->cells[r * t->ncols + c];
			if (c)
				fputc(',', fp);
			csv_field(fp, cell->raw ? cell->raw : cell->text);
		}
		fputc('\n', fp);
	}
}

void rtable_write(const struct rtable *t, enum out_format f, FILE *fp,
		  int indent)
{
	switch (f) {
	case OUT_MARKDOWN:
		write_markdown(t, fp);
		break;
	case OUT_CSV:
		write_csv(t, fp);
		break;
	default:
		write_terminal(t, fp, indent);
		break;
	}
}

/* The length of the word at p, a number and its unit ("32 MiB", "3.8
 * ns") taken as one: a line is not broken between them. */
static size_t word_len(const char *p)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB",
					     "ns", "us", "ms", "s" };
	size_t n = strcspn(p, " ");
	if (!n || p[n] != ' ' || !isdigit((unsigned char)p[n - 1]))
		return n;
	const char *u = p + n + 1;
	size_t un = strcspn(u, " ),;:.");
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i]) == un && !strncmp(u, units[i], un))
			return n + 1 + strcspn(u, " ");
	return n;
}

/* One line (without its newline) of out_wrap's. */
static void wrap_line(FILE *fp, const char *l, size_t len)
{
	char *line = strndup(l, len);
	if (!line)
		xalloc_die();
	size_t indent = strspn(line, " "), col = 0;
	/* Columns (two spaces apart) are a table's: left as they are. */
	if (text_width(line) <= TERM_COLUMNS || strstr(line + indent, "  ")) {
		fprintf(fp, "%s\n", line);
		free(line);
		return;
	}
	const char *p = line;
	pad(fp, indent);
	col = indent;
	p += indent;
	bool first = true;
	while (*p) {
		size_t n = word_len(p);
		char *word = strndup(p, n);
		if (!word)
			xalloc_die();
		size_t ww = text_width(word);
		if (!first && col + 1 + ww > TERM_COLUMNS) {
			fputc('\n', fp);
			pad(fp, indent + 2);
			col = indent + 2;
		} else if (!first) {
			fputc(' ', fp);
			col++;
		}
		fputs(word, fp);
		col += ww;
		free(word);
		first = false;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', fp);
	free(line);
}

void out_wrap(FILE *fp, const char *text)
{
	for (const char *l = text; l && *l;) {
		size_t n = strcspn(l, "\n");
		wrap_line(fp, l, n);
		l += n + (l[n] == '\n');
	}
}

const char *unit_shown(const char *unit, double *factor)
{
	bool ns = unit && !strcmp(unit, "ns");
	if (factor)
		*factor = ns ? 1e-6 : 1;
	return ns ? "ms" : unit;
}

void fmt_count(char *buf, size_t n, double v, int decimals)
{
	char tmp[64];
	if (!isfinite(v)) {
		snprintf(buf, n, "%s", isnan(v) ? "n/a" : (v > 0 ? "inf" : "-inf"));
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.*f", decimals, fabs(v));
	char *dot = strchr(tmp, '.');
	size_t intlen = dot ? (size_t)(dot - tmp) : strlen(tmp);
	size_t o = 0;
	if (v < 0 && o + 1 < n)
		buf[o++] = '-';
	for (size_t i = 0; i < intlen && o + 1 < n; i++) {
		if (i && (intlen - i) % 3 == 0 && o + 1 < n)
			buf[o++] = ',';
		if (o + 1 < n)
			buf[o++] = tmp[i];
	}
	for (const char *p = dot; p && *p && o + 1 < n; p++)
		buf[o++] = *p;
	buf[o] = '\0';
	/* "-0" and "-0.00" read as noise; print them as zero. */
	if (v < 0 && strspn(buf + 1, "0.,") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));
}

void fmt_pct(char *buf, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%+.1f", v);
}

void fmt_p(char *buf, size_t n, double p)
{
	if (!isfinite(p))
		snprintf(buf, n, "n/a");
	else if (p < 0.001)
		snprintf(buf, n, "<0.001");
	else
		snprintf(buf, n, "%.3f", p);
}

void fmt_raw(char *buf, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "%s", "");
	else if (v == floor(v) && fabs(v) < 9.007199254740992e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.9g", v);
}

void fmt_bytes(char *buf, size_t n, double bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	double v = bytes;
	while (fabs(v) >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%.0f B", v);
	else if (v == floor(v))
		snprintf(buf, n, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, n, "%.1f %s", v, unit[u]);
}

/* ---- JSON ---- */

void jw_init(struct jw *w, FILE *fp, int indent)
{
	memset(w, 0, sizeof(*w));
	w->fp = fp;
	w->indent = indent;
	w->first[0] = true;
}

static void jw_newline(struct jw *w)
{
	if (!w->indent || w->flat[w->depth])
		return;
	fputc('\n', w->fp);
	for (int i = 0; i < w->depth * w->indent; i++)
		fputc(' ', w->fp);
}

/* Before a value: a comma unless first, or nothing right after a key. */
static void jw_pre(struct jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (!w->first[w->depth])
			fputs(w->flat[w->depth] && w->indent ? ", " : ",", w->fp);
		jw_newline(w);
	}
	w->first[w->depth] = false;
}

static void jw_open(struct jw *w, char c, bool flat)
{
	jw_pre(w);
	fputc(c, w->fp);
	bool parent_flat = w->flat[w->depth];
	if (w->depth + 1 < JW_MAX_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
	w->flat[w->depth] = flat || parent_flat;
}

static void jw_close(struct jw *w, char c)
{
	bool empty = w->first[w->depth];
	bool was_flat = w->flat[w->depth];
	w->flat[w->depth] = false;
	if (w->depth > 0)
		w->depth--;
	if (!empty && !was_flat)
		jw_newline(w);
	fputc(c, w->fp);
}

void jw_obj_begin(struct jw *w) { jw_open(w, '{', false); }
void jw_obj_end(struct jw *w) { jw_close(w, '}'); }
void jw_arr_begin(struct jw *w) { jw_open(w, '[', false); }
void jw_arr_begin_flat(struct jw *w) { jw_open(w, '[', true); }
void jw_obj_begin_flat(struct jw *w) { jw_open(w, '{', true); }
void jw_arr_end(struct jw *w) { jw_close(w, ']'); }

/* A JSON string: valid UTF-8 whatever s holds (an invalid piece is
 * U+FFFD), control characters escaped. */
static void jw_string(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		switch (*p) {
		case '"': fputs("\\\"", fp); break;
		case '\\': fputs("\\\\", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\r': fputs("\\r", fp); break;
		case '\t': fputs("\\t", fp); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(fp, "\\u%04x", *p);
			} else if (*p >= 0x80) {
				uint32_t cp;
				size_t n = utf8_next_str(p, &cp);
				if (cp == UTF8_INVALID)
					utf8_put_shown(fp, cp);
				else
					fwrite(p, 1, n, fp);
				p += n;
				continue;
			} else {
				fputc(*p, fp);
			}
		}
		p++;
	}
	fputc('"', fp);
}

void jw_key(struct jw *w, const char *key)
{
	jw_pre(w);
	jw_string(w->fp, key);
	fputs(w->indent ? ": " : ":", w->fp);
	w->after_key = true;
}

void jw_str(struct jw *w, const char *s)
{
	jw_pre(w);
	if (s)
		jw_string(w->fp, s);
	else
		fputs("null", w->fp);
}

void jw_num(struct jw *w, double v)
{
	jw_pre(w);
	if (!isfinite(v)) {
		fputs("null", w->fp);
		return;
	}
	char buf[64];
	fmt_raw(buf, sizeof(buf), v);
	fputs(buf, w->fp);
}

void jw_fixed(struct jw *w, double v, int decimals)
{
	jw_pre(w);
	if (!isfinite(v))
		fputs("null", w->fp);
	else
		fprintf(w->fp, "%.*f", decimals, v);
}

void jw_int(struct jw *w, int64_t v)
{
	jw_pre(w);
	fprintf(w->fp, "%lld", (long long)v);
}

void jw_uint(struct jw *w, uint64_t v)
{
	jw_pre(w);
	fprintf(w->fp, "%llu", (unsigned long long)v);
}

void jw_bool(struct jw *w, bool v)
{
	jw_pre(w);
	fputs(v ? "true" : "false", w->fp);
}

void jw_null(struct jw *w)
{
	jw_pre(w);
	fputs("null", w->fp);
}

void jw_end(struct jw *w)
{
	fputc('\n', w->fp);
}

/* Call fn for each range a-b of a compact CPU list. */
static void cpu_list_ranges(const char *list, void (*fn)(long a, long b, void *arg),
			    void *arg)
{
	const char *p = list;
	while (p && *p) {
		char *end;
		long a = strtol(p, &end, 10);
		if (end == p)
			break;
		long b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
		}
		if (b >= a && b - a < 65536)
			fn(a, b, arg);
		if (*end != ',')
			break;
		p = end + 1;
	}
}

static void emit_range(long a, long b, void *arg)
{
	for (long c = a; c <= b; c++)
		jw_int(arg, c);
}

void jw_cpu_list(struct jw *w, const char *list)
{
	jw_arr_begin_flat(w);
	cpu_list_ranges(list, emit_range, w);
	jw_arr_end(w);
}

static void count_range(long a, long b, void *arg)
{
	*(size_t *)arg += (size_t)(b - a + 1);
}

size_t cpu_list_count(const char *list)
{
	size_t n = 0;
	cpu_list_ranges(list, count_range, &n);
	return n;
}
