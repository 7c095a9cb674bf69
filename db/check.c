/*
 * check: reading a row with its columns checked. A file that prof did not
 * write as it is (an edit in the sqlite3 shell, a damaged copy, a tool of
 * its own) may hold NULL where prof always writes text, a string of any
 * length, a number out of any range prof uses, or text where a number
 * belongs. The loaders read every column through these getters, so what
 * reaches reports/ is what prof could have written, and the first bad
 * column is reported with its table, row and value.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cause.h"
#include "db/internal.h"

void db_row_init(struct db_row *r, struct db *db, sqlite3_stmt *st, const char *table)
{
	memset(r, 0, sizeof(*r));
	r->db = db;
	r->st = st;
	r->table = table;
}

void db_row_key(struct db_row *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->key, sizeof(r->key), fmt, ap);
	va_end(ap);
}

void db_row_bad(struct db_row *r, int col, const char *fmt, ...)
{
	if (r->rc)
		return;		/* the first problem is the one reported */
	r->rc = -EIO;
	char *what = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	const char *name = col >= 0 ? sqlite3_column_name(r->st, col) : NULL;
	if (asprintf(&r->why, "%s row %s: %s%s%s", r->table, r->key,
		     name ? name : "", name ? " " : "", what ? what : "is bad") < 0)
		r->why = NULL;
	free(what);
}

int db_row_nomem(struct db_row *r)
{
	if (!r->rc)
		r->rc = -ENOMEM;
	return -ENOMEM;
}

int db_row_fail(struct db_row *r, char **cause)
{
	if (!r->rc)
		return 0;
	if (r->rc == -ENOMEM) {
		/* Not the file's fault: no hint to restore a copy. */
		if (cause && !*cause)
			cause_set(cause, ENOMEM, "cannot read database '%s': out of memory",
				  r->db->path);
		free(r->why);
		r->why = NULL;
		return r->rc;
	}
	if (cause && !*cause &&
	    asprintf(cause, "cannot read database '%s': %s\n"
		     "hint: prof never writes such a row: the file was changed after "
		     "prof wrote it, or is damaged. prof left it as it is; restore "
		     "a copy, or give --db another file",
		     r->db->path, r->why ? r->why : "(out of memory)") < 0)
		*cause = NULL;
	free(r->why);
	r->why = NULL;
	return r->rc;
}

void db_row_release(struct db_row *r)
{
	free(r->why);
	r->why = NULL;
}

static const char *type_name(int type)
{
	switch (type) {
	case SQLITE_INTEGER:
		return "an integer";
	case SQLITE_FLOAT:
		return "a real number";
	case SQLITE_TEXT:
		return "text";
	case SQLITE_BLOB:
		return "a blob";
	default:
		return "NULL";
	}
}

/* A copy of the column's text, cut and with controls shown, for errors. */
static void shown_text(sqlite3_stmt *st, int col, char *buf, size_t n)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	size_t o = 0;
	for (size_t i = 0; s && s[i] && o + 5 < n; i++) {
		if (i == 32) {
			o += (size_t)snprintf(buf + o, n - o, "...");
			break;
		}
		if (s[i] < 0x20 || s[i] == 0x7f)
			o += (size_t)snprintf(buf + o, n - o, "\\x%02x", s[i]);
		else
			buf[o++] = (char)s[i];
	}
	buf[o < n ? o : n - 1] = '\0';
}

char *db_row_text(struct db_row *r, int col, unsigned flags)
{
	int type = sqlite3_column_type(r->st, col);
	if (type == SQLITE_NULL) {
		if (!(flags & DB_NULL_OK))
			db_row_bad(r, col, "is NULL, where text is required");
		return flags & DB_NULL_OK ? NULL : strdup("");
	}
	if (type != SQLITE_TEXT) {
		db_row_bad(r, col, "is %s, where text belongs", type_name(type));
		return flags & DB_NULL_OK ? NULL : strdup("");
	}
	const char *s = (const char *)sqlite3_column_text(r->st, col);
	size_t len = (size_t)sqlite3_column_bytes(r->st, col);
	size_t max = flags & DB_LONG ? DB_TEXT_MAX : DB_NAME_MAX;
	if (!s) {
		db_row_nomem(r);	/* SQLite could not convert it */
		return NULL;
	}
	if (len > max) {
		db_row_bad(r, col, "is %zu bytes long, more than the %zu prof writes",
			   len, max);
		return flags & DB_NULL_OK ? NULL : strdup("");
	}
	if (strlen(s) != len) {
		db_row_bad(r, col, "holds a NUL byte");
		return flags & DB_NULL_OK ? NULL : strdup("");
	}
	if ((flags & DB_CPUS) && db_cpu_list_check(s) < 0) {
		char shown[64];
		shown_text(r->st, col, shown, sizeof(shown));
		db_row_bad(r, col, "'%s' is not a list of CPUs such as '0-3,8' (of "
			   "at most %d CPUs, each below %d)", shown, DB_CPUS_MAX,
			   DB_CPUS_MAX);
		return flags & DB_NULL_OK ? NULL : strdup("");
	}
	char *d = strdup(s);
	if (!d)
		db_row_nomem(r);
	return d;
}

/* The column as an integer, or false (with the problem noted) when it is
 * NULL, not an integer, or out of [lo, hi]. */
static bool get_int(struct db_row *r, int col, int64_t lo, int64_t hi,
		    unsigned flags, int64_t *out)
{
	int type = sqlite3_column_type(r->st, col);
	if (type == SQLITE_NULL) {
		if (!(flags & DB_NULL_OK))
			db_row_bad(r, col, "is NULL, where a number is required");
		return false;
	}
	if (type != SQLITE_INTEGER) {
		char shown[64];
		shown_text(r->st, col, shown, sizeof(shown));
		if (type == SQLITE_BLOB)
			db_row_bad(r, col, "is a blob, not an integer");
		else
			db_row_bad(r, col, "is %s ('%s'), not an integer",
				   type_name(type), shown);
		return false;
	}
	int64_t v = sqlite3_column_int64(r->st, col);
	if (v < lo || v > hi) {
		db_row_bad(r, col, "%" PRId64 " is out of range %" PRId64 "..%" PRId64,
			   v, lo, hi);
		return false;
	}
	*out = v;
	return true;
}

int64_t db_row_int(struct db_row *r, int col, int64_t lo, int64_t hi,
		   int64_t dflt, unsigned flags)
{
	int64_t v;
	return get_int(r, col, lo, hi, flags, &v) ? v : dflt;
}

uint64_t db_row_u64(struct db_row *r, int col, unsigned flags)
{
	/* Counters above INT64_MAX are stored as their two's complement:
	 * every integer is a valid one. */
	int64_t v;
	return get_int(r, col, INT64_MIN, INT64_MAX, flags, &v) ? (uint64_t)v : 0;
}

bool db_row_bool(struct db_row *r, int col, unsigned flags)
{
	int64_t v;
	return get_int(r, col, 0, 1, flags, &v) ? v != 0 : false;
}

double db_row_real(struct db_row *r, int col, double lo, double hi, double dflt,
		   unsigned flags)
{
	int type = sqlite3_column_type(r->st, col);
	if (type == SQLITE_NULL) {
		if (!(flags & DB_NULL_OK))
			db_row_bad(r, col, "is NULL, where a number is required");
		return dflt;
	}
	if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
		char shown[64];
		shown_text(r->st, col, shown, sizeof(shown));
		if (type == SQLITE_BLOB)
			db_row_bad(r, col, "is a blob, not a number");
		else
			db_row_bad(r, col, "is text ('%s'), not a number", shown);
		return dflt;
	}
	double v = sqlite3_column_double(r->st, col);
	if (!isfinite(v) || v < lo || v > hi) {
		db_row_bad(r, col, "%g is out of range %g..%g", v, lo, hi);
		return dflt;
	}
	return v;
}

bool db_row_null(struct db_row *r, int col)
{
	return sqlite3_column_type(r->st, col) == SQLITE_NULL;
}

int db_row_argv(struct db_row *r, int col, char ***argv, int *argc)
{
	*argv = NULL;
	*argc = 0;
	int type = sqlite3_column_type(r->st, col);
	if (type != SQLITE_NULL && type != SQLITE_BLOB && type != SQLITE_TEXT) {
		db_row_bad(r, col, "is %s, where a list of arguments belongs",
			   type_name(type));
	} else if (sqlite3_column_bytes(r->st, col) > DB_TEXT_MAX) {
		db_row_bad(r, col, "is %d bytes long, more than the %d prof writes",
			   sqlite3_column_bytes(r->st, col), DB_TEXT_MAX);
	} else {
		int rc = db_col_argv(r->st, col, argv, argc);
		return rc ? db_row_nomem(r) : 0;
	}
	/* Something the caller can release and print. */
	*argv = calloc(1, sizeof(char *));
	return *argv ? 0 : db_row_nomem(r);
}

int db_cpu_list_check(const char *s)
{
	long total = 0;
	const char *p = s;
	if (!*p)
		return 0;
	for (;;) {
		char *end;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		long a = strtol(p, &end, 10), b = a;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			b = strtol(p, &end, 10);
		}
		if (a >= DB_CPUS_MAX || b >= DB_CPUS_MAX || b < a)
			return -ERANGE;
		total += b - a + 1;
		if (total > DB_CPUS_MAX)
			return -ERANGE;
		if (!*end)
			return 0;
		if (*end != ',')
			return -EINVAL;
		p = end + 1;
	}
}
