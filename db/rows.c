/*
 * rows: the two loops every per-run table repeats. A loader selects a
 * run's child rows, checks each through a struct db_row and grows an
 * array as it goes; a writer inserts each child row with one prepared
 * statement. Both fail the same way everywhere: the first bad row is
 * reported by db_row_fail, a failed step by db_fail naming what was read
 * or stored. Keeping the loops here keeps those messages one text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"

int db_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 16;
	if (ncap <= n)
		ncap = n + 1;	/* the array came filled, *cap unknown */
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	memset((char *)p + n * elem, 0, (ncap - n) * elem);
	*arr = p;
	*cap = ncap;
	return 0;
}

/* Bind l's run, then hand fn each row until one is bad, fn fails, or
 * the rows end: fn's error, or 0 with the last step in *step. */
static int each_row(struct db_row *r, struct db_load *l, db_row_fn fn, int *step)
{
	sqlite3_bind_int64(r->st, 1, l->run_id);
	l->cap = 0;
	while (!r->rc && (*step = sqlite3_step(r->st)) == SQLITE_ROW) {
		int rc = fn(r, l);
		if (rc == -ENOMEM) {
			db_row_nomem(r);	/* rows_end says so */
			return 0;
		}
		if (rc) {
			db_row_release(r);
			return rc;
		}
	}
	return 0;
}

/* After the loop, with st finalized or reset: the bad row, the failed
 * step, or 0. */
static int rows_end(struct db_row *r, int step, const char *what, char **cause)
{
	if (r->rc)
		return db_row_fail(r, cause);
	if (step != SQLITE_DONE)
		return db_fail(r->db, step, what, cause);
	return 0;
}

int db_select_run(struct db *db, const struct db_select *q, struct db_load *l,
		  db_row_fn fn, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare_select(db, &st, q->cols, q->ncols, q->rest, cause);
	if (rc)
		return rc;
	struct db_row r;
	db_row_init(&r, db, st, q->table);
	int step = SQLITE_DONE;
	rc = each_row(&r, l, fn, &step);
	sqlite3_finalize(st);
	return rc ? rc : rows_end(&r, step, q->what, cause);
}

int db_select_each(struct db *db, sqlite3_stmt *st, const char *table,
		   const char *what, struct db_load *l, db_row_fn fn, char **cause)
{
	struct db_row r;
	db_row_init(&r, db, st, table);
	int step = SQLITE_DONE;
	int rc = each_row(&r, l, fn, &step);
	sqlite3_reset(st);
	return rc ? rc : rows_end(&r, step, what, cause);
}

int db_select_one(struct db *db, const struct db_select *q, int64_t id,
		  struct db_row *r, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare_select(db, &st, q->cols, q->ncols, q->rest, cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	int step = sqlite3_step(st);
	if (step != SQLITE_ROW) {
		sqlite3_finalize(st);
		return step == SQLITE_DONE ? 1 : db_fail(db, step, q->what, cause);
	}
	db_row_init(r, db, st, q->table);
	db_row_key(r, "%lld", (long long)id);
	return 0;
}

int db_step_done(struct db *db, sqlite3_stmt *st, const char *what, char **cause)
{
	if (db_bind_failed_take()) {	/* a value would be stored as NULL */
		sqlite3_reset(st);
		return db_nomem(db, "write", cause);
	}
	int s = sqlite3_step(st);
	sqlite3_reset(st);
	return s == SQLITE_DONE ? 0 : db_fail(db, s, what, cause);
}

int db_insert_rows(struct db *db, const char *table, const char *const *cols,
		   size_t ncols, size_t n, db_bind_row_fn bind, const void *arg,
		   const char *what, char **cause)
{
	/* 999 parameters a statement: SQLite's limit before 3.32. */
	size_t per = DB_INSERT_ROWS * ncols <= 999 ? DB_INSERT_ROWS : 999 / ncols;
	sqlite3_stmt *many = NULL, *one = NULL;
	int rc = 0;
	size_t i = 0;
	if (n >= per && per > 1) {
		rc = db_prepare_insert_rows(db, &many, table, cols, ncols, per, cause);
		for (; !rc && i + per <= n; i += per) {
			for (size_t r = 0; r < per; r++)
				bind(many, r, i + r, arg);
			rc = db_step_done(db, many, what, cause);
		}
		sqlite3_finalize(many);
	}
	if (!rc && i < n)
		rc = db_prepare_insert(db, &one, table, cols, ncols, cause);
	for (; !rc && i < n; i++) {
		bind(one, 0, i, arg);
		rc = db_step_done(db, one, what, cause);
	}
	sqlite3_finalize(one);
	return rc;
}

int db_insert_step(struct db *db, sqlite3_stmt *st, const char *what,
		   char **cause)
{
	int rc = db_step_done(db, st, what, cause);
	if (rc)
		sqlite3_finalize(st);
	return rc;
}
