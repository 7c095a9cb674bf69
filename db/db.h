/*
 * db: the one SQLite file every run goes into. This header is the
 * connection: open (creating and migrating the schema), close, and the
 * transaction helpers the other db/ modules share. The data each module
 * stores is declared in its own header (db/runs.h, ...).
 *
 * The file is opened in WAL mode with a busy timeout, so two prof
 * processes can write the same file; the schema version lives in
 * PRAGMA user_version and each migration runs in its own transaction.
 *
 * Functions return 0 or a negative errno-like code and fill *cause with a
 * message for the user (caller frees). A struct db is owned by whoever
 * opened it and must not be shared between threads.
 */
#ifndef DB_DB_H
#define DB_DB_H

#include <stdbool.h>
#include <stdint.h>

struct db;

/* The schema version this build writes. */
int db_schema_version(void);

/*
 * Open or create path and bring its schema up to date. A file from a newer
 * prof, a file that is not a database, or an unwritable place fail with a
 * cause that names the path.
 */
int db_open(struct db **out, const char *path, char **cause);

/*
 * Open path for the verbs that only read. A file of this schema version
 * is never written to, not even its journal mode (SQLite's query_only
 * refuses any write on the connection); an older file is upgraded as by
 * db_open, and a missing one created empty.
 */
int db_open_read(struct db **out, const char *path, char **cause);
void db_close(struct db *db);

/* Milliseconds to wait on a locked database (default 10000). */
void db_set_busy_timeout(struct db *db, int ms);

/* The path the database was opened with (borrowed). */
const char *db_path(const struct db *db);

/*
 * Run one SQL statement with no results (for tests and maintenance, e.g.
 * a PRAGMA). 0 or a negative code with *cause.
 */
int db_exec(struct db *db, const char *sql, char **cause);

/*
 * Run a query and return the first column of its first row as text
 * (malloc'd; NULL for SQL NULL or no row). For tests and `prof` checks
 * that read one value.
 */
int db_query_text(struct db *db, const char *sql, char **out, char **cause);

/*
 * Fault injection for tests: after `after` more successful allocations,
 * every SQLite allocation fails (negative: back to normal). Applies to the
 * whole process and reinitialises SQLite, so call it with no database
 * open. The one piece of global state in db/, and only tests touch it.
 */
int db_fault_alloc_after(long after);

#endif
