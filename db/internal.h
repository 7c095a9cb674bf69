/*
 * internal: what the db/ modules share and nothing outside db/ may use:
 * the connection struct and small statement helpers.
 */
#ifndef DB_INTERNAL_H
#define DB_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
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

/* Fill *cause with "cannot <verb> database '<path>': out of memory" and
 * return -ENOMEM. */
int db_nomem(struct db *db, const char *verb, char **cause);

int db_begin(struct db *db, char **cause);	/* BEGIN IMMEDIATE */
int db_commit(struct db *db, char **cause);
void db_rollback(struct db *db);

/* Prepare or fail with a cause. */
int db_prepare(struct db *db, sqlite3_stmt **st, const char *sql, char **cause);

/*
 * A loader names its columns once, in one list, and reads each by the
 * name the list gives its index, so a new column is one line and no
 * index is counted by hand:
 *
 *   #define RUN_COLS(X) X(RC_ID, "r.id") X(RC_KIND, "r.kind")
 *   enum { RUN_COLS(DB_COL_ENUM) RC_N };
 *   static const char *const run_cols[] = { RUN_COLS(DB_COL_SQL) };
 *   db_prepare_select(db, &st, run_cols, RC_N, "FROM runs r ...", cause);
 *   ... db_row_text(&r, RC_KIND, 0) ...
 *
 * db_prepare_select prepares "SELECT <cols, comma-separated> <rest>".
 */
#define DB_COL_ENUM(name, sql) name,
#define DB_COL_SQL(name, sql) sql,
int db_prepare_select(struct db *db, sqlite3_stmt **st, const char *const *cols,
		      size_t ncols, const char *rest, char **cause);

/*
 * A writer names its columns the same way, and binds each by name:
 *
 *   #define THREAD_INS(X) X(TI_RUN, "run_id") X(TI_SEQ, "seq")
 *   enum { THREAD_INS(DB_COL_ENUM) TI_N };
 *   static const char *const thread_ins[] = { THREAD_INS(DB_COL_SQL) };
 *   db_prepare_insert(db, &st, "threads", thread_ins, TI_N, cause);
 *   sqlite3_bind_int(st, DB_PARAM(TI_SEQ), seq);
 *
 * db_prepare_insert prepares "INSERT INTO table (<cols>) VALUES (?1,
 * ...)"; DB_PARAM is the parameter of a column of that list.
 */
#define DB_PARAM(col) ((col) + 1)
int db_prepare_insert(struct db *db, sqlite3_stmt **st, const char *table,
		      const char *const *cols, size_t ncols, char **cause);
/* The same for nrows rows in one statement: row r's column col is
 * parameter DB_PARAM_ROW(r, ncols, col). */
#define DB_PARAM_ROW(r, ncols, col) ((int)((r) * (ncols)) + (col) + 1)
int db_prepare_insert_rows(struct db *db, sqlite3_stmt **st, const char *table,
			   const char *const *cols, size_t ncols, size_t nrows,
			   char **cause);

/*
 * Insert n rows into table, DB_INSERT_ROWS to a statement and the rest
 * one by one: bind(st, r, i, arg) binds item i as the statement's row r
 * (DB_PARAM_ROW). A step costs SQLite about as much for one row as for
 * many (the program's set-up, its cursors, its halt): the 5,000-thread
 * churn's 5,001 threads and 20,004 count rows (schema v20) took 30 ms
 * row by row, 2026-12-06.
 * 0, or what db_step_done returns for the first row that failed.
 */
#define DB_INSERT_ROWS 64
typedef void (*db_bind_row_fn)(sqlite3_stmt *st, size_t r, size_t i,
			       const void *arg);
int db_insert_rows(struct db *db, const char *table, const char *const *cols,
		   size_t ncols, size_t n, db_bind_row_fn bind, const void *arg,
		   const char *what, char **cause);


/* The body of db_run_store, for callers already inside a transaction. */
int db_run_store_body(struct db *db, struct db_run *run, char **cause);

/* The sleep interposer's report of a run, in the run's transaction. */
int db_sleep_usage_store(struct db *db, int64_t run_id,
			 const struct db_sleep_usage *u, char **cause);
/* NULL *out when the run had none. */
int db_sleep_usage_load(struct db *db, int64_t run_id,
			struct db_sleep_usage **out, char **cause);

/* A run's intervals (prof run -I), in the run's transaction; loading
 * them needs run->id and run->nevents; release frees them. */
int db_intervals_store(struct db *db, const struct db_run *run, char **cause);
int db_intervals_load(struct db *db, struct db_run *run, char **cause);
void db_intervals_release(struct db_run *run);
/* A run's frames and their counts (prof run --frame-regex, markers),
 * likewise. */
int db_frames_store(struct db *db, const struct db_run *run, char **cause);
int db_frames_load(struct db *db, struct db_run *run, char **cause);
void db_frames_release(struct db_run *run);

/* A run's machine deltas and settings (sysenv.c), in the run's
 * transaction; loading adds them to out. */
/* Mark stopped every experiment still "running" whose prof has gone
 * (db/experiments.c); how many it marked. Errors are ignored: a
 * writable open does it in passing. */
int db_experiments_reap(struct db *db);

int db_sysenv_store(struct db *db, const struct db_run *run, char **cause);
int db_sysenv_load(struct db *db, int64_t run_id, struct db_run *out,
		   char **cause);
void db_sysenv_release(struct db_run *run);

/* argv as one blob of NUL-terminated strings, and back: 0 or -ENOMEM. */
int db_bind_argv(sqlite3_stmt *st, int idx, char **argv, int argc);
int db_col_argv(sqlite3_stmt *st, int col, char ***argv, int *argc);

/*
 * Checked reads of a row (db/check.c). What prof writes fits these
 * limits; a loader reads each column through a getter that checks its
 * type, that a required value is there, and its length or range. The
 * first problem is kept, naming the table, the row's key and the column;
 * a getter that finds one returns something harmless ("" for required
 * text, the default for a number) so the loader can finish the row, and
 * the loader then fails with db_row_fail. Every loaded number that a
 * report loops to, or indexes with, is range-checked here.
 */
#define DB_NAME_MAX 4096	/* names, keys, kinds, times, CPU lists */
#define DB_TEXT_MAX (1 << 20)	/* commands, argv, paths, notes, values */
#define DB_CPUS_MAX 65536	/* CPUs in a CPU list, and its largest + 1 */
#define DB_SECONDS_MAX 1e12	/* a duration in seconds (31,700 years) */

enum db_col_flags {
	DB_NULL_OK = 1 << 0,	/* NULL is allowed: NULL text, the default */
	DB_LONG = 1 << 1,	/* text up to DB_TEXT_MAX, not DB_NAME_MAX */
	DB_CPUS = 1 << 2,	/* text that is a CPU list, "0-5,12-17" */
};

struct db_row {
	struct db *db;
	sqlite3_stmt *st;
	const char *table;
	char key[96];		/* the row as errors name it: "3", "(run 3, idx 2)" */
	int rc;			/* 0, or -EIO once a problem was found (-ENOMEM) */
	char *why;		/* the first problem */
};

void db_row_init(struct db_row *r, struct db *db, sqlite3_stmt *st,
		 const char *table);
void db_row_key(struct db_row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A problem the loader found itself (col -1: not about one column). */
void db_row_bad(struct db_row *r, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Memory ran out reading the row: r->rc becomes -ENOMEM (unless a problem
 * came first) and db_row_fail says "out of memory", with no hint that the
 * file is damaged. Returns -ENOMEM, for a loader's `return`. */
int db_row_nomem(struct db_row *r);
/* 0 when the rows read were good; else r->rc with *cause filled. */
int db_row_fail(struct db_row *r, char **cause);
void db_row_release(struct db_row *r);

/* malloc'd; NULL (r->rc -ENOMEM) when memory runs out, so a loader that
 * reads a required text checks r->rc before it uses the text. */
char *db_row_text(struct db_row *r, int col, unsigned flags);
int64_t db_row_int(struct db_row *r, int col, int64_t lo, int64_t hi,
		   int64_t dflt, unsigned flags);
uint64_t db_row_u64(struct db_row *r, int col, unsigned flags);	/* any integer */
bool db_row_bool(struct db_row *r, int col, unsigned flags);	/* 0 or 1 */
double db_row_real(struct db_row *r, int col, double lo, double hi, double dflt,
		   unsigned flags);
bool db_row_null(struct db_row *r, int col);
/* A blob of NUL-terminated strings, at most DB_TEXT_MAX bytes; -ENOMEM
 * (and r->rc) when memory runs out. */
int db_row_argv(struct db_row *r, int col, char ***argv, int *argc);

/*
 * The loops of db/rows.c. A per-run loader describes its query once:
 *
 *   static const struct db_select event_sel = {
 *	"events", event_cols, EC_N,
 *	"FROM events WHERE run_id = ?1 ORDER BY idx",
 *	"cannot read the events from",
 *   };
 *
 * db_select_run binds l->run_id to ?1, sets l->cap to 0 and hands each
 * row to fn, which reads it through r (naming it with db_row_key first),
 * files it in l->out (growing an array with db_grow and l->cap) and
 * returns 0, or a negative errno that stops the loop and is returned
 * (-ENOMEM). A row found bad stops it too: db_row_fail's -EIO and cause.
 * A failed step is db_fail(what).
 */
struct db_select {
	const char *table;		/* as errors name it */
	const char *const *cols;
	size_t ncols;
	const char *rest;		/* "FROM ... WHERE run_id = ?1 ..." */
	const char *what;		/* "cannot read the events from" */
};
struct db_load {
	int64_t run_id;
	void *out;			/* what the rows fill: a struct db_run ... */
	size_t cap;			/* room in the array being filled */
};
typedef int (*db_row_fn)(struct db_row *r, struct db_load *l);
int db_select_run(struct db *db, const struct db_select *q, struct db_load *l,
		  db_row_fn fn, char **cause);
/* The same loop on a statement the caller prepared once and runs for
 * many runs ("... WHERE run_id = ?1"): it is reset, not finalized. */
int db_select_each(struct db *db, sqlite3_stmt *st, const char *table,
		   const char *what, struct db_load *l, db_row_fn fn, char **cause);

/*
 * The one row of q whose ?1 is id: 0 with r on it (db_row_key set to the
 * id; finalize r->st when read), 1 when there is none (nothing left open,
 * no cause: the caller says what is missing), else db_fail(q->what) or
 * the failure to prepare.
 */
int db_select_one(struct db *db, const struct db_select *q, int64_t id,
		  struct db_row *r, char **cause);

/* Grow *arr (of elem bytes each, *cap of them) to hold n + 1, zeroing
 * what it adds: 0 or -ENOMEM, *arr untouched then. */
int db_grow(void **arr, size_t *cap, size_t n, size_t elem);

/* Step an INSERT or UPDATE whose parameters are bound, and reset it for
 * the next row: 0, or db_fail(what). st stays the caller's to finalize. */
int db_step_done(struct db *db, sqlite3_stmt *st, const char *what, char **cause);

/* db_step_done(), and on failure finalize st too (the caller's loop ends
 * there). */
int db_insert_step(struct db *db, sqlite3_stmt *st, const char *what,
		   char **cause);

/* 0 when s is a CPU list of at most DB_CPUS_MAX CPUs below DB_CPUS_MAX. */
int db_cpu_list_check(const char *s);

/* Column helpers: NULL-safe copies. */
/* malloc'd, NULL for NULL, and NULL (errno ENOMEM) when memory runs out. */
char *db_col_text(sqlite3_stmt *st, int col);
/*
 * Text bound for a row: what the writer binds, the reader reads. A name
 * (a column the loader reads without DB_LONG) is cut at DB_NAME_MAX
 * bytes, a long text (DB_LONG: commands, paths, notes, values, symbols)
 * at DB_TEXT_MAX, each on a character's boundary; NULL binds NULL. Each
 * cut is counted, and db_cuts_take hands the count over (and clears it)
 * for the run's note: a workload may name a thread, a symbol or an
 * argument as it likes, and its run must still read back.
 */
void db_bind_text(sqlite3_stmt *st, int idx, const char *s);
/* The same for a text that stays as it is until the statement has been
 * stepped: SQLite keeps the pointer, not a copy. */
void db_bind_text_kept(sqlite3_stmt *st, int idx, const char *s);
/* A bind that SQLite refused for want of memory marks this thread
 * (db_bind_failed); db_step_done, and db_run_store_body at its end, take
 * the mark and fail with -ENOMEM rather than store a row without it. */
void db_bind_failed(void);
bool db_bind_failed_take(void);
void db_bind_long(sqlite3_stmt *st, int idx, const char *s);
struct db_cuts {
	size_t n;		/* texts cut */
	size_t longest;		/* bytes, the longest of them before its cut */
};
/* A cut made by the caller itself (an argument list cut to fit). */
void db_cut_count(size_t len);
struct db_cuts db_cuts_take(void);
/* The cuts taken, as a line added to run_id's note: 0 when there were
 * none. db_run_store_body calls it after its rows; a store that binds
 * more rows of the run after that calls it again. */
int db_run_note_cuts(struct db *db, int64_t run_id, char **cause);
/* v where has, else NULL (a value not known or not measured). */
void db_bind_int_or_null(sqlite3_stmt *st, int idx, bool has, int64_t v);
void db_bind_real_or_null(sqlite3_stmt *st, int idx, bool has, double v);

#endif
