/*
 * db: opening the file, the schema migrations, and the small helpers the
 * other db/ modules share.
 */
#include <ctype.h>
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/errtext.h"
#include "common/utf8.h"
#include "db/internal.h"
#include "db/schema.h"

/* What the system said, for the errors a full disk, a read-only place or
 * a file size limit give (in buf, or static); NULL when SQLite's own
 * message says it all. */
static const char *system_words(int code, int err, char *buf, size_t n)
{
	if (code != SQLITE_IOERR && code != SQLITE_CANTOPEN && code != SQLITE_FULL &&
	    code != SQLITE_READONLY && code != SQLITE_PERM)
		return NULL;
	switch (err) {
	case 0:
		return NULL;
	case EROFS:
		return "the file system is read-only";
	case EACCES:
	case EPERM:
		return "permission denied";
	case ENOSPC:
		return "no space left on the device";
	case EDQUOT:
		return "the disk quota is used up";
	case EFBIG:
		return "past the file size limit, ulimit -f";
	case ENOENT:
		return "no such file or directory";
	default:
		return err_text(err, buf, n);
	}
}

/*
 * Why a database cannot be written where it is, as the system says it:
 * the file, or its directory (SQLite makes its -journal there, or an
 * older file's -wal and -shm). 0 when both are writable. SQLite's own
 * errno is of no help here: it retries read-only and keeps the ENOENT
 * of that.
 */
static int place_errno(const char *path)
{
	if (access(path, W_OK) != 0 && errno != ENOENT)
		return errno;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path))
			  : strdup(".");
	int err = dir && access(dir, W_OK) != 0 ? errno : 0;
	free(dir);
	return err;
}

int db_fail(struct db *db, int rc, const char *what, char **cause)
{
	int last_errno = errno;
	/* A value that could not be bound went in as NULL, and a constraint
	 * refused the row: say what happened first. */
	if (db_bind_failed_take()) {
		if (cause && !*cause)
			return cause_set(cause, ENOMEM, "%s '%s': out of memory", what,
					 db && db->path ? db->path : "?");
		return -ENOMEM;
	}
	const char *msg = db && db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc);
	int code = rc & 0xff;
	int err = db && db->h ? sqlite3_system_errno(db->h) : 0;
	/* SQLite keeps no errno for a failed write (3.40 measured: 0 after
	 * EFBIG); errno read straight after the call still holds it. */
	if (!err && (rc == SQLITE_IOERR_WRITE || rc == SQLITE_IOERR_FSYNC ||
		     rc == SQLITE_IOERR_TRUNCATE || rc == SQLITE_IOERR_SHMSIZE ||
		     rc == SQLITE_FULL))
		err = last_errno;
	if ((code == SQLITE_CANTOPEN || code == SQLITE_READONLY || code == SQLITE_PERM) &&
	    db && db->path) {
		int perr = place_errno(db->path);
		if (perr)
			err = perr;
	}
	if (cause && !*cause) {
		const char *hint = "";
		char busy[128] = "";
		char eb[ERR_TEXT_MAX];
		const char *sys = system_words(code, err, eb, sizeof(eb));
		if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
			if (db && db->stopped)
				snprintf(busy, sizeof(busy), "locked by another writer; "
					 "stopped waiting after %.1f s (interrupted)", db->waited_s);
			else if (db && db->waited_s > 0)
				snprintf(busy, sizeof(busy), "locked by another writer; "
					 "gave up after %.1f s", db->waited_s);
			else
				snprintf(busy, sizeof(busy), "locked by another writer");
			msg = busy;
			hint = "\nhint: another process (a prof, an sqlite3 shell) is "
			       "writing to it; wait for it, set PROF_DB_TIMEOUT=SECONDS "
			       "to wait longer, or use --db PATH to write elsewhere";
		} else if (code == SQLITE_FULL || err == ENOSPC || err == EDQUOT) {
			hint = "\nhint: the disk (or the database's size limit) is full; "
			       "free some space, or use --db PATH on another disk";
		} else if (err == EFBIG) {
			hint = "\nhint: raise the limit (ulimit -f), or use --db PATH";
		} else if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
			hint = "\nhint: this file is not a prof database, or it is "
			       "damaged; move it aside or use --db PATH";
		} else if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN ||
			   code == SQLITE_PERM) {
			hint = "\nhint: check that the file and its directory are "
			       "writable, or use --db PATH";
		}
		if (asprintf(cause, "%s '%s': %s%s%s%s%s", what,
			     db && db->path ? db->path : "?", msg,
			     sys ? " (" : "", sys ? sys : "", sys ? ")" : "", hint) < 0)
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
		return err == ENOSPC || err == EDQUOT || err == EFBIG ? -ENOSPC : -EIO;
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
	db->waited_s = 0;	/* a BUSY without a wait must not cite an old one */
	db->stopped = false;
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

int db_nomem(struct db *db, const char *verb, char **cause)
{
	return cause_set(cause, ENOMEM, "cannot %s database '%s': out of memory", verb,
			 db->path);
}

int db_prepare_select(struct db *db, sqlite3_stmt **st, const char *const *cols,
		      size_t ncols, const char *rest, char **cause)
{
	size_t len = strlen("SELECT ") + strlen(rest) + 2;
	for (size_t i = 0; i < ncols; i++)
		len += strlen(cols[i]) + 2;
	char *sql = malloc(len);
	if (!sql)
		return db_nomem(db, "read", cause);
	char *p = sql + sprintf(sql, "SELECT ");
	for (size_t i = 0; i < ncols; i++)
		p += sprintf(p, "%s%s", i ? ", " : "", cols[i]);
	sprintf(p, " %s", rest);
	int rc = db_prepare(db, st, sql, cause);
	free(sql);
	return rc;
}

int db_prepare_insert(struct db *db, sqlite3_stmt **st, const char *table,
		      const char *const *cols, size_t ncols, char **cause)
{
	return db_prepare_insert_rows(db, st, table, cols, ncols, 1, cause);
}

int db_prepare_insert_rows(struct db *db, sqlite3_stmt **st, const char *table,
			   const char *const *cols, size_t ncols, size_t nrows,
			   char **cause)
{
	size_t len = strlen("INSERT INTO  () VALUES ") + strlen(table) + 1;
	for (size_t i = 0; i < ncols; i++)
		len += strlen(cols[i]) + 2;
	len += nrows * (3 + ncols * (2 + 16));
	char *sql = malloc(len);
	if (!sql)
		return db_nomem(db, "write", cause);
	char *p = sql + sprintf(sql, "INSERT INTO %s (", table);
	for (size_t i = 0; i < ncols; i++)
		p += sprintf(p, "%s%s", i ? ", " : "", cols[i]);
	p += sprintf(p, ") VALUES ");
	/* Plain ?: parameter k is the k-th, as DB_PARAM_ROW counts. A
	 * numbered ?NNN costs SQLite's parser a search of the ones before
	 * it: 1.7 M instructions for 64 rows of 11 columns. */
	for (size_t r = 0; r < nrows; r++) {
		p += sprintf(p, "%s(", r ? ", " : "");
		for (size_t i = 0; i < ncols; i++) {
			memcpy(p, i ? ", ?" : "?", i ? 3 : 1);
			p += i ? 3 : 1;
		}
		*p++ = ')';
	}
	*p = '\0';
	int rc = db_prepare(db, st, sql, cause);
	free(sql);
	return rc;
}

char *db_col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	if (!s)
		return NULL;
	return strdup((const char *)s);
}

/* The texts cut since db_cuts_take last ran, in this process: a
 * recording's symbols are bound on the thread that writes its samples,
 * its run on the main one. */
static _Atomic size_t cut_n, cut_longest;

void db_cut_count(size_t len)
{
	atomic_fetch_add(&cut_n, 1);
	size_t was = atomic_load(&cut_longest);
	while (len > was && !atomic_compare_exchange_weak(&cut_longest, &was, len))
		;
}

/* A text or blob SQLite could not copy when it was bound (out of memory):
 * the parameter would go in as NULL, so the next step refuses the row. Per
 * thread, as the cuts are counted for the thread that binds. */
static _Thread_local bool bind_failed;

void db_bind_failed(void)
{
	bind_failed = true;
}

bool db_bind_failed_take(void)
{
	bool was = bind_failed;
	bind_failed = false;
	return was;
}

static void bind_cut(sqlite3_stmt *st, int idx, const char *s, size_t max,
		     sqlite3_destructor_type how)
{
	if (!s) {
		sqlite3_bind_null(st, idx);
		return;
	}
	size_t len = strlen(s);
	if (len > max) {
		db_cut_count(len);
		len = utf8_cut(s, len, max);
	}
	if (sqlite3_bind_text(st, idx, s, (int)len, how) != SQLITE_OK)
		bind_failed = true;
}

void db_bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	bind_cut(st, idx, s, DB_NAME_MAX, SQLITE_TRANSIENT);
}

void db_bind_text_kept(sqlite3_stmt *st, int idx, const char *s)
{
	bind_cut(st, idx, s, DB_NAME_MAX, SQLITE_STATIC);
}

void db_bind_long(sqlite3_stmt *st, int idx, const char *s)
{
	bind_cut(st, idx, s, DB_TEXT_MAX, SQLITE_TRANSIENT);
}

struct db_cuts db_cuts_take(void)
{
	struct db_cuts c = { atomic_exchange(&cut_n, 0), atomic_exchange(&cut_longest, 0) };
	return c;
}

void db_bind_int_or_null(sqlite3_stmt *st, int idx, bool has, int64_t v)
{
	if (has)
		sqlite3_bind_int64(st, idx, v);
	else
		sqlite3_bind_null(st, idx);
}

void db_bind_real_or_null(sqlite3_stmt *st, int idx, bool has, double v)
{
	if (has)
		sqlite3_bind_double(st, idx, v);
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

/* The first column of the first row of sql, a query run as the file is
 * opened: its first statements also tell a file that is no database. */
static int opening_int(struct db *db, const char *sql, int *out, char **cause)
{
	sqlite3_stmt *st = NULL;
	int s = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
	if (s == SQLITE_OK)
		s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		*out = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (s != SQLITE_ROW)
		return db_fail(db, s == SQLITE_DONE ? SQLITE_ERROR : s,
			       "cannot open database", cause);
	return 0;
}

/*
 * The file's schema version, refused when no prof wrote it: newer than
 * this build, negative, or 0 (prof's first migration's "before") in a
 * file that already holds tables: another program's database, which
 * prof must not add its own tables to. Read before anything is written
 * to the file.
 */
static int check_version(struct db *db, int *have, char **cause)
{
	int rc = opening_int(db, "PRAGMA user_version", have, cause);
	if (rc)
		return rc;
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
	int objects = 0;
	if (*have == 0 &&
	    (rc = opening_int(db, "SELECT count(*) FROM sqlite_master", &objects, cause)))
		return rc;
	if (objects > 0) {
		if (cause && asprintf(cause, "'%s' is an SQLite database that prof did "
				      "not write: it holds tables of its own and no "
				      "prof schema\nhint: give --db a new file or a "
				      "database prof made; this prof left the file as "
				      "it is", db->path) < 0)
			*cause = NULL;
		return -EPROTO;
	}
	return 0;
}

/* A new file gets every step in one transaction: a creation cut short
 * (a full disk) leaves it empty, which readers name as such, never half
 * made. An older file is brought up a step a transaction. */
static int create_all(struct db *db, char **cause)
{
	int want = db_schema_version();
	int rc = db_begin(db, cause);
	if (rc)
		return rc;
	int now = 0;
	rc = user_version(db, &now, cause);
	if (!rc && now == 0) {
		for (int v = 0; v < want && !rc; v++)
			rc = db_exec(db, schema_migration(v), cause);
		if (!rc) {
			char sql[64];
			snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", want);
			rc = db_exec(db, sql, cause);
		}
	}
	if (rc) {
		db_rollback(db);
		return rc;
	}
	return db_commit(db, cause);
}

static int migrate(struct db *db, int have, char **cause)
{
	int rc;
	int want = db_schema_version();
	if (have == 0) {
		rc = create_all(db, cause);
		if (rc)
			return rc;
		rc = user_version(db, &have, cause);
		if (rc)
			return rc;
	}
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

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * SQLite calls this while another connection holds the lock: wait in
 * growing steps up to busy_ms in all, and give up early when the owner's
 * stop() says so (a signal also cuts a step short, so that is prompt).
 */
static int on_busy(void *arg, int count)
{
	static const int steps_ms[] = { 1, 2, 5, 10, 20, 50, 100 };
	struct db *db = arg;
	double now = mono_s();
	if (count == 0) {
		db->busy_since = now;
		db->stopped = false;
	}
	db->waited_s = now - db->busy_since;
	if (db->stop && db->stop(db->stop_arg)) {
		db->stopped = true;
		return 0;
	}
	double left_ms = db->busy_ms - db->waited_s * 1000;
	if (left_ms <= 0)
		return 0;
	size_t n = sizeof(steps_ms) / sizeof(steps_ms[0]);
	double ms = steps_ms[(size_t)count < n ? (size_t)count : n - 1];
	if (ms > left_ms)
		ms = left_ms;
	long ns = (long)(ms * 1e6);
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
	nanosleep(&ts, NULL);
	return 1;
}

/* The directory a database file would go in, when it does not exist. */
static char *missing_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return NULL;
	char *dir = strndup(path, (size_t)(slash - path));
	struct stat sb;
	if (dir && stat(dir, &sb) != 0 && (errno == ENOENT || errno == ENOTDIR))
		return dir;
	free(dir);
	return NULL;
}

/*
 * What both opens check before SQLite sees the path: it is not empty
 * (SQLite would open a temporary database, deleted at exit), and where it
 * exists it is a regular file (SQLite opens a device or a FIFO as if it
 * were one, then fails with "not an error" for /dev/null or "disk I/O
 * error"). 0 with *exists, or a negative code with *cause.
 */
static int check_path(const char *path, bool *exists, char **cause)
{
	*exists = false;
	if (!path || !*path) {
		if (cause && asprintf(cause, "the database path is empty\n"
				      "hint: give --db PATH, or leave it out for "
				      "./prof.db") < 0)
			*cause = NULL;
		return -EINVAL;
	}
	struct stat sb;
	if (stat(path, &sb) != 0)
		return 0;
	if (!S_ISREG(sb.st_mode)) {
		bool dir = S_ISDIR(sb.st_mode);
		if (cause && asprintf(cause, "cannot open database '%s': %s\n"
				      "hint: --db names the database file (created "
				      "when missing); give another path", path,
				      dir ? "is a directory" : "not a regular file") < 0)
			*cause = NULL;
		return dir ? -EISDIR : -EINVAL;
	}
	*exists = true;
	return 0;
}

/* A struct db for path, opened by SQLite with flags from name (the path,
 * or a URI naming it). */
static int open_handle(struct db **out, const char *path, const char *name,
		       int flags, int busy_ms, char **cause)
{
	*out = NULL;
	struct db *db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	db->path = strdup(path);
	if (!db->path) {
		free(db);
		return -ENOMEM;
	}
	/* One thread uses a connection at a time (the caller's), so SQLite
	 * need not lock it at every call: a 5,000-thread run's store makes
	 * some 60,000 of them. */
	int rc = sqlite3_open_v2(name, &db->h, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		int r = db_fail(db, rc, "cannot open database", cause);
		db_close(db);
		return r;
	}
	sqlite3_extended_result_codes(db->h, 1);
	db->busy_ms = busy_ms;
	sqlite3_busy_handler(db->h, on_busy, db);
	*out = db;
	return 0;
}

/*
 * The rollback journal, synced in full (docs/schema.md, "What is kept"):
 * a commit writes the new pages into the file once and syncs it before
 * it returns, so a committed run is in the file alone and survives a
 * power loss; WAL wrote every page twice (the log, then the checkpoint
 * on close). A file an older prof left in WAL mode is switched back when
 * no other connection has it open; while one has, this connection keeps
 * WAL, and its commits stay durable as they were (synchronous NORMAL,
 * checkpointed on close). Asking waits for no lock.
 */
static int use_rollback_journal(struct db *db, char **cause)
{
	int busy_ms = db->busy_ms;
	db->busy_ms = 0;
	char *mode = NULL, *why = NULL;
	int rc = db_query_text(db, "PRAGMA journal_mode = DELETE", &mode, &why);
	db->busy_ms = busy_ms;
	bool wal = rc == -EBUSY || (!rc && mode && strcmp(mode, "wal") == 0);
	free(mode);
	if (rc && rc != -EBUSY) {
		if (cause && !*cause)
			*cause = why;
		else
			free(why);
		return rc;
	}
	free(why);
	return db_exec(db, wal ? "PRAGMA synchronous = NORMAL"
			       : "PRAGMA synchronous = FULL", cause);
}

int db_open(struct db **out, const char *path, char **cause)
{
	return db_open_wait(out, path, DB_BUSY_MS_DEFAULT, cause);
}

int db_open_wait(struct db **out, const char *path, int busy_ms, char **cause)
{
	*out = NULL;
	bool exists;
	int rc = check_path(path, &exists, cause);
	if (rc)
		return rc;
	/* SQLite would only say "unable to open database file". */
	char *dir = exists ? NULL : missing_dir(path);
	if (dir) {
		if (cause && asprintf(cause, "cannot open database '%s': no such "
				      "directory '%s'\nhint: create it, or use --db "
				      "PATH", path, dir) < 0)
			*cause = NULL;
		free(dir);
		return -ENOENT;
	}
	struct db *db;
	rc = open_handle(&db, path, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			 busy_ms, cause);
	if (rc)
		return rc;
	/* The first real statement also tells a non-database file apart.
	 * The version is checked before anything is written: a file from a
	 * newer prof, or one no prof wrote, is left as it is. */
	int have = 0;
	rc = check_version(db, &have, cause);
	if (!rc)
		rc = use_rollback_journal(db, cause);
	if (!rc)
		rc = migrate(db, have, cause);
	if (!rc)
		rc = db_exec(db, "PRAGMA foreign_keys = ON", cause);
	if (rc) {
		db_close(db);
		return rc;
	}
	/* An experiment whose prof was killed is marked, with its runs. */
	db_experiments_reap(db);
	*out = db;
	return 0;
}

/* path as a SQLite URI with the query q ("file:/a%20b.db?immutable=1"). */
static char *path_uri(const char *path, const char *q)
{
	size_t len = 0;
	char *uri = NULL;
	FILE *fp = open_memstream(&uri, &len);
	if (!fp)
		return NULL;
	fputs("file:", fp);
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (isalnum(*c) || strchr("/._-~", *c))
			fputc(*c, fp);
		else
			fprintf(fp, "%%%02X", *c);
	}
	fprintf(fp, "?%s", q);
	if (fclose(fp) != 0) {
		free(uri);
		return NULL;
	}
	return uri;
}

/* Whether the file's header says WAL (its bytes 18 and 19 are 2): a file
 * an older prof wrote and no writer of this one has opened since. */
static bool file_in_wal(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool wal = pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) && h[18] == 2 &&
		   h[19] == 2;
	close(fd);
	return wal;
}

/*
 * A connection that reads and cannot write (SQLITE_OPEN_READONLY and
 * query_only), so no database is created where none was. A file in the
 * rollback journal is read under SQLite's own locks, which create
 * nothing: a writer's commit waits for the read, and the read for the
 * commit. A file still in WAL (an older prof's) with no -wal beside it
 * has every committed run in the file itself: it is opened immutable, so
 * SQLite makes no -wal or -shm either (a reader that may not write the
 * directory could not open the file otherwise, and one that may would
 * leave both behind, owned by it and in the owner's way); immutable
 * takes no locks, a small window for prof's short reads while an older
 * writer starts. With a -wal, that writer may be at work: the reader
 * shares its -wal and -shm and sees what it has committed.
 */
static int open_reader(struct db **out, const char *path, char **cause)
{
	char *wal = NULL, *uri = NULL;
	struct stat sb;
	int flags = SQLITE_OPEN_READONLY;
	if (file_in_wal(path)) {
		if (asprintf(&wal, "%s-wal", path) < 0)
			return -ENOMEM;
		bool writer = stat(wal, &sb) == 0;
		free(wal);
		if (!writer) {
			uri = path_uri(path, "immutable=1");
			if (!uri)
				return -ENOMEM;
			flags |= SQLITE_OPEN_URI;
		}
	}
	int rc = open_handle(out, path, uri ? uri : path, flags, DB_BUSY_MS_DEFAULT,
			     cause);
	free(uri);
	if (!rc && (rc = db_exec(*out, "PRAGMA query_only = 1", cause))) {
		db_close(*out);
		*out = NULL;
	}
	return rc;
}

/*
 * A prof killed inside a commit leaves a hot journal, which only a
 * connection that may write rolls back: a reader finds the file so
 * (SQLITE_READONLY_ROLLBACK), has a writer's open roll it back, and
 * reads again. 0, or a negative code with *cause.
 */
static int roll_back_hot_journal(const char *path, char **cause)
{
	struct db *w;
	char *why = NULL;
	int rc = db_open(&w, path, &why);
	if (!rc) {
		db_close(w);
		return 0;
	}
	size_t n = why ? strcspn(why, "\n") : 0;
	if (cause && asprintf(cause, "database '%s' holds a write that a killed prof "
			      "left unfinished, and rolling it back failed: %.*s\n"
			      "hint: any prof verb run by a user who may write the "
			      "file and its directory rolls it back (the runs "
			      "committed before it are intact)", path, (int)n,
			      why ? why : "") < 0)
		*cause = NULL;
	free(why);
	return rc;
}

int db_open_readonly(struct db **out, const char *path, char **cause)
{
	*out = NULL;
	bool exists;
	int rc = check_path(path, &exists, cause);
	if (rc)
		return rc;
	if (!exists) {
		if (cause && asprintf(cause, "no database at '%s'\nhint: 'prof run -- "
				      "COMMAND' stores a first run there; or give "
				      "--db PATH of another database", path) < 0)
			*cause = NULL;
		return -ENOENT;
	}
	bool rolled_back = false, upgraded = false;
	for (;;) {
		struct db *db;
		int have;
		rc = open_reader(&db, path, cause);
		if (rc)
			return rc;
		char *why = NULL;
		rc = check_version(db, &have, &why);
		if (rc && !rolled_back &&
		    sqlite3_extended_errcode(db->h) == SQLITE_READONLY_ROLLBACK) {
			db_close(db);
			free(why);
			rc = roll_back_hot_journal(path, cause);
			if (rc)
				return rc;
			rolled_back = true;
			continue;
		}
		if (rc) {
			if (cause && !*cause)
				*cause = why;
			else
				free(why);
			db_close(db);
			return rc;
		}
		int want = db_schema_version();
		if (have == want) {
			*out = db;
			return 0;
		}
		/* A file whose creation stopped part way (a full disk, under an
		 * older prof that committed each step): it holds no runs. */
		int has_runs = 0, nruns = 0;
		if (have > 0 && have < want &&
		    !opening_int(db, "SELECT count(*) FROM sqlite_master WHERE"
				 " type = 'table' AND name = 'runs'", &has_runs, NULL) &&
		    has_runs)
			opening_int(db, "SELECT count(*) FROM runs LIMIT 1", &nruns, NULL);
		db_close(db);
		/* An empty file (check_version refused one holding another
		 * program's tables): nothing stored yet, and a reader leaves
		 * it empty. */
		if (have == 0) {
			if (cause && asprintf(cause, "no prof database in '%s' (an empty "
					      "SQLite file)\nhint: 'prof run -- COMMAND' "
					      "stores a first run there; or give --db PATH "
					      "of another database", path) < 0)
				*cause = NULL;
			return -ENOENT;
		}
		if (have > want || upgraded) {
			if (cause && asprintf(cause, "database '%s' has schema version %d, "
					      "%s (%d)\nhint: use a newer prof, or another "
					      "--db", path, have, have > want ? "newer than "
					      "this prof understands" : "still, after an "
					      "upgrade to this prof's", want) < 0)
				*cause = NULL;
			return -EPROTO;
		}
		/* This prof's queries read the current schema only: an older
		 * file is brought up to date in place, once, by an opener
		 * that may write it. */
		why = NULL;
		rc = db_open(&db, path, &why);
		if (rc && !nruns) {
			size_t n = why ? strcspn(why, "\n") : 0;
			if (cause && asprintf(cause, "database '%s' is incomplete: its "
					      "creation stopped at schema step %d of %d, and "
					      "it holds no runs; finishing it failed: %.*s\n"
					      "hint: remove the file, or free space and run any "
					      "prof verb that writes to it", path, have, want,
					      (int)n, why ? why : "") < 0)
				*cause = NULL;
			free(why);
			return rc;
		}
		if (rc) {
			size_t n = why ? strcspn(why, "\n") : 0;
			if (cause && asprintf(cause, "database '%s' has schema version %d, "
					      "older than this prof's %d, and could not be "
					      "upgraded: %.*s\nhint: any prof verb run by a "
					      "user who may write the file and its directory "
					      "upgrades it", path, have, want, (int)n,
					      why ? why : "") < 0)
				*cause = NULL;
			free(why);
			return rc;
		}
		db_close(db);
		upgraded = true;
	}
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
	db->busy_ms = ms;
}

void db_set_busy_stop(struct db *db, bool (*stop)(void *arg), void *arg)
{
	db->stop = stop;
	db->stop_arg = arg;
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
	bool nomem = false;
	if (s == SQLITE_ROW) {
		*out = db_col_text(st, 0);
		nomem = !*out && sqlite3_column_type(st, 0) != SQLITE_NULL;
	}
	sqlite3_finalize(st);
	if (nomem)
		return cause_set(cause, ENOMEM, "cannot query '%s': out of memory",
				 db->path);
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
