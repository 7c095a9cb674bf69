/*
 * internal: what the db/ modules share and nothing outside db/ may use:
 * the connection struct and small statement helpers.
 */
#ifndef DB_INTERNAL_H
#define DB_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "db/db.h"
#include "db/runs.h"

struct db {
	sqlite3 *h;
	char *path;
	int busy_ms;		/* how long to wait on a lock */
	double busy_since;	/* when the current wait began (monotonic s) */
	double waited_s;	/* the last wait on a lock, for the message */
	bool stopped;		/* the last wait ended because stop() said so */
	bool (*stop)(void *arg);	/* or NULL */
	void *stop_arg;
};

/* Fill *cause with "<what>: <sqlite message>" and return a negative code
 * (-EBUSY for locks, -ENOSPC for a full disk, -EIO otherwise). */
int db_fail(struct db *db, int rc, const char *what, char **cause);

int db_begin(struct db *db, char **cause);	/* BEGIN IMMEDIATE */
int db_commit(struct db *db, char **cause);
void db_rollback(struct db *db);

/* Prepare or fail with a cause. */
int db_prepare(struct db *db, sqlite3_stmt **st, const char *sql, char **cause);

/* The body of db_run_store, for callers already inside a transaction. */
int db_run_store_body(struct db *db, struct db_run *run, char **cause);

/* The sleep interposer's report of a run, in the run's transaction. */
int db_sleep_usage_store(struct db *db, int64_t run_id,
			 const struct db_sleep_usage *u, char **cause);
/* NULL *out when the run had none. */
int db_sleep_usage_load(struct db *db, int64_t run_id,
			struct db_sleep_usage **out, char **cause);

/* argv as one blob of NUL-terminated strings, and back. */
void db_bind_argv(sqlite3_stmt *st, int idx, char **argv, int argc);
int db_col_argv(sqlite3_stmt *st, int col, char ***argv, int *argc);

/* Column helpers: NULL-safe copies. */
char *db_col_text(sqlite3_stmt *st, int col);	/* malloc'd, NULL for NULL */
void db_bind_text(sqlite3_stmt *st, int idx, const char *s);	/* NULL binds NULL */

#endif
