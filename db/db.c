/*
 * db: opening the file, the schema migrations, and the small helpers the
 * other db/ modules share.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"
#include "db/schema.h"

int db_fail(struct db *db, int rc, const char *what, char **cause)
{
	const char *msg = db && db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc);
	int code = rc & 0xff;
	if (cause && !*cause) {
		const char *hint = "";
		if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
			hint = "\nhint: another prof is writing the same database; "
			       "wait for it, or use --db to write elsewhere";
		else if (code == SQLITE_FULL)
			hint = "\nhint: the disk (or the database's size limit) is full";
		else if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
			hint = "\nhint: this file is not a prof database, or it is "
			       "damaged; move it aside or use --db PATH";
		else if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN ||
			 code == SQLITE_PERM)
			hint = "\nhint: check that the file and its directory are "
			       "writable, or use --db PATH";
		if (asprintf(cause, "%s '%s': %s%s", what,
			     db && db->path ? db->path : "?", msg, hint) < 0)
			*cause = NULL;
	}
	switch (code) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_CANTOPEN:
		return -EACCES;
	default:
		return -EIO;
	}
}

int db_exec(struct db *db, const char *sql, char **cause)
{
	char *err = NULL;
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, &err);
	sqlite3_free(err);
	if (rc != SQLITE_OK)
		return db_fail(db, rc, "database error in", cause);
	return 0;
}

int db_begin(struct db *db, char **cause)
{
	int rc = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return db_fail(db, rc, "cannot start writing", cause);
	return 0;
}

int db_commit(struct db *db, char **cause)
{
	int rc = sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		int r = db_fail(db, rc, "cannot commit to", cause);
		db_rollback(db);
		return r;
	}
	return 0;
}

void db_rollback(struct db *db)
{
	if (!sqlite3_get_autocommit(db->h))
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

int db_prepare(struct db *db, sqlite3_stmt **st, const char *sql, char **cause)
{
	int rc = sqlite3_prepare_v2(db->h, sql, -1, st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(db, rc, "cannot query", cause);
	return 0;
}

char *db_col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	if (!s)
		return NULL;
	char *d = strdup((const char *)s);
	if (!d)
		abort();
	return d;
}

void db_bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	if (s)
		sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, idx);
}

int db_schema_version(void)
{
	return (int)schema_migration_count();
}

static int user_version(struct db *db, int *out, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st, "PRAGMA user_version", cause);
	if (rc)
		return rc;
	int s = sqlite3_step(st);
	if (s != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail(db, s, "cannot read", cause);
	}
	*out = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/*
 * The file's schema version, refused when no prof wrote it: newer than
 * this build, or negative. Read before anything is written to the file.
 */
static int check_version(struct db *db, int *have, char **cause)
{
	sqlite3_stmt *st = NULL;
	int s = sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL);
	if (s == SQLITE_OK)
		s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		*have = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (s != SQLITE_ROW)
		return db_fail(db, s == SQLITE_DONE ? SQLITE_ERROR : s,
			       "cannot open database", cause);
	int want = db_schema_version();
	if (*have > want) {
		if (cause && asprintf(cause, "database '%s' has schema version %d, "
				      "newer than this prof understands (%d)\n"
				      "hint: use a newer prof, or another --db; this "
				      "prof left the file as it is",
				      db->path, *have, want) < 0)
			*cause = NULL;
		return -EPROTO;
	}
	if (*have < 0) {
		if (cause && asprintf(cause, "database '%s' has schema version %d, "
				      "which no prof writes\n"
				      "hint: the file was changed after prof wrote it; "
				      "restore a copy, or give --db another file",
				      db->path, *have) < 0)
			*cause = NULL;
		return -EPROTO;
	}
	return 0;
}

static int migrate(struct db *db, int have, char **cause)
{
	int rc;
	int want = db_schema_version();
	for (int v = have; v < want; v++) {
		rc = db_begin(db, cause);
		if (rc)
			return rc;
		/* Another prof may have migrated while we waited for the lock. */
		int now = 0;
		rc = user_version(db, &now, cause);
		if (rc) {
			db_rollback(db);
			return rc;
		}
		if (now > v) {
			db_rollback(db);
			v = now - 1;
			continue;
		}
		rc = db_exec(db, schema_migration(v), cause);
		if (!rc) {
			char sql[64];
			snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
			rc = db_exec(db, sql, cause);
		}
		if (rc) {
			db_rollback(db);
			return rc;
		}
		rc = db_commit(db, cause);
		if (rc)
			return rc;
	}
	return 0;
}

static int open_mode(struct db **out, const char *path, bool read_only,
		     char **cause)
{
	*out = NULL;
	if (!path || !*path) {
		/* SQLite would open a temporary database, deleted at exit. */
		if (cause && asprintf(cause, "the database path is empty\n"
				      "hint: give --db PATH, or leave it out for "
				      "./prof.db") < 0)
			*cause = NULL;
		return -EINVAL;
	}
	struct db *db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	db->path = strdup(path);
	if (!db->path) {
		free(db);
		return -ENOMEM;
	}
	int rc = sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE |
				 SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL);
	if (rc != SQLITE_OK) {
		int r = db_fail(db, rc, "cannot open database", cause);
		db_close(db);
		return r;
	}
	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_timeout(db->h, 10000);
	/* The first real statement also tells a non-database file apart.
	 * The version is checked before anything is written: a file from a
	 * newer prof is left as it is. */
	int have = 0;
	rc = check_version(db, &have, cause);
	if (rc) {
		db_close(db);
		return rc;
	}
	/* A reader of a file of this version writes nothing at all, not
	 * even the journal mode: query_only makes SQLite refuse writes. */
	bool upgrade = have < db_schema_version();
	if (!read_only || upgrade) {
		/* WAL lets readers and one writer share the file. */
		rc = db_exec(db, "PRAGMA journal_mode = WAL", cause);
		if (!rc)
			rc = db_exec(db, "PRAGMA synchronous = NORMAL", cause);
		if (!rc)
			rc = migrate(db, have, cause);
	}
	if (!rc)
		rc = db_exec(db, "PRAGMA foreign_keys = ON", cause);
	if (!rc && read_only)
		rc = db_exec(db, "PRAGMA query_only = 1", cause);
	if (rc) {
		db_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

int db_open(struct db **out, const char *path, char **cause)
{
	return open_mode(out, path, false, cause);
}

int db_open_read(struct db **out, const char *path, char **cause)
{
	return open_mode(out, path, true, cause);
}

void db_close(struct db *db)
{
	if (!db)
		return;
	if (db->h)
		sqlite3_close_v2(db->h);
	free(db->path);
	free(db);
}

void db_set_busy_timeout(struct db *db, int ms)
{
	sqlite3_busy_timeout(db->h, ms);
}

const char *db_path(const struct db *db)
{
	return db->path;
}

int db_query_text(struct db *db, const char *sql, char **out, char **cause)
{
	sqlite3_stmt *st;
	*out = NULL;
	int rc = db_prepare(db, &st, sql, cause);
	if (rc)
		return rc;
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		*out = db_col_text(st, 0);
	sqlite3_finalize(st);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		return db_fail(db, s, "cannot query", cause);
	return 0;
}

/* ---- fault injection (tests only) ---- */

static sqlite3_mem_methods real_mem;
static long fault_budget = -1;

static void *fault_malloc(int n)
{
	if (fault_budget == 0)
		return NULL;
	if (fault_budget > 0)
		fault_budget--;
	return real_mem.xMalloc(n);
}

static void *fault_realloc(void *p, int n)
{
	if (fault_budget == 0)
		return NULL;
	if (fault_budget > 0)
		fault_budget--;
	return real_mem.xRealloc(p, n);
}

int db_fault_alloc_after(long after)
{
	static bool installed;
	if (!installed) {
		sqlite3_shutdown();
		if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &real_mem) != SQLITE_OK)
			return -EIO;
		sqlite3_mem_methods m = real_mem;
		m.xMalloc = fault_malloc;
		m.xRealloc = fault_realloc;
		if (sqlite3_config(SQLITE_CONFIG_MALLOC, &m) != SQLITE_OK)
			return -EIO;
		if (sqlite3_initialize() != SQLITE_OK)
			return -EIO;
		installed = true;
	}
	fault_budget = after;
	return 0;
}
