/*
 * import: another database merged into this one; see import.h. The other
 * file is copied (SQLite's backup, so a file another prof is writing is
 * read as one consistent state), the copy opened as a database of its
 * own (which migrates it), then attached. Ids are mapped in temporary
 * tables (old -> new, and whether the row is new here); every other
 * table is copied by what its keys are: run_id, experiment_id, thread_id
 * or host_id, each column of those names mapped, so a table added to the
 * schema later comes across without code here, and one keyed otherwise
 * is refused rather than half copied.
 */
#include "db/import.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/errtext.h"
#include "db/db.h"
#include "db/internal.h"

/* path copied into a new temporary file (*copy, malloc'd). */
static int copy_of(const char *path, char **copy, char **cause)
{
	sqlite3 *src = NULL, *dst = NULL;
	char tmpl[] = "/tmp/prof-import-XXXXXX";
	int fd = mkstemp(tmpl);
	if (fd < 0)
		return cause_set(cause, errno, "cannot make a copy of '%s' to read: %s",
				 path, ERR_TEXT(errno));
	close(fd);
	int rc = sqlite3_open_v2(path, &src, SQLITE_OPEN_READONLY, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_open_v2(tmpl, &dst, SQLITE_OPEN_READWRITE, NULL);
	sqlite3_backup *b = rc == SQLITE_OK ? sqlite3_backup_init(dst, "main", src, "main")
					    : NULL;
	if (b) {
		rc = sqlite3_backup_step(b, -1);
		sqlite3_backup_finish(b);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	} else if (rc == SQLITE_OK) {
		rc = sqlite3_errcode(dst);
	}
	int ret = 0;
	if (rc != SQLITE_OK)
		ret = cause_set(cause, EINVAL, "cannot import '%s': %s", path,
				sqlite3_errstr(rc));
	sqlite3_close(src);
	sqlite3_close(dst);
	if (ret) {
		unlink(tmpl);
		return ret;
	}
	*copy = strdup(tmpl);
	if (!*copy) {
		unlink(tmpl);
		return -ENOMEM;
	}
	return 0;
}

static int exec(struct db *db, const char *sql, char **cause)
{
	char *err = NULL;
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, &err);
	if (rc != SQLITE_OK) {
		int r = cause_set(cause, EIO, "cannot import into '%s': %s (in: %.120s)",
				  db->path, err ? err : sqlite3_errstr(rc), sql);
		sqlite3_free(err);
		return rc == SQLITE_FULL ? -ENOSPC : rc == SQLITE_BUSY ? -EBUSY : r;
	}
	return 0;
}

static int64_t count_of(struct db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t n = 0;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* The id maps: which rows of the other file are new here, and their ids. */
static const char map_sql[] =
	"CREATE TEMP TABLE imp_hosts (old INTEGER PRIMARY KEY, new INTEGER, fresh INTEGER);"
	"CREATE TEMP TABLE imp_runs (old INTEGER PRIMARY KEY, new INTEGER, fresh INTEGER);"
	"CREATE TEMP TABLE imp_threads (old INTEGER PRIMARY KEY, new INTEGER);"
	"CREATE TEMP TABLE imp_exps (old INTEGER PRIMARY KEY, new INTEGER, fresh INTEGER);"
	/* a host: the same facts, the same host */
	"INSERT INTO imp_hosts SELECT s.id, (SELECT m.id FROM main.hosts m"
	"  WHERE m.hostname IS s.hostname AND m.kernel IS s.kernel"
	"  AND m.cpu_model IS s.cpu_model AND m.online_cpus IS s.online_cpus), 0"
	"  FROM src.hosts s;"
	"UPDATE imp_hosts SET fresh = 1,"
	"  new = old + (SELECT coalesce(max(id), 0) FROM main.hosts) WHERE new IS NULL;"
	/* a run: its host, kind, start, pid and command */
	"INSERT INTO imp_runs SELECT s.id, (SELECT m.id FROM main.runs m"
	"  WHERE m.host_id IS h.new AND m.kind IS s.kind AND m.started IS s.started"
	"  AND m.pid IS s.pid AND m.command IS s.command ORDER BY m.id LIMIT 1), 0"
	"  FROM src.runs s LEFT JOIN imp_hosts h ON h.old = s.host_id;"
	"UPDATE imp_runs SET fresh = 1,"
	"  new = old + (SELECT coalesce(max(id), 0) FROM main.runs) WHERE new IS NULL;"
	"INSERT INTO imp_threads SELECT s.id,"
	"  s.id + (SELECT coalesce(max(id), 0) FROM main.threads)"
	"  FROM src.threads s JOIN imp_runs r ON r.old = s.run_id AND r.fresh;"
	/* an experiment: its host, kind and start */
	"INSERT INTO imp_exps SELECT s.id, (SELECT m.id FROM main.experiments m"
	"  WHERE m.host_id IS h.new AND m.kind IS s.kind AND m.started IS s.started"
	"  ORDER BY m.id LIMIT 1), 0"
	"  FROM src.experiments s LEFT JOIN imp_hosts h ON h.old = s.host_id;"
	"UPDATE imp_exps SET fresh = 1,"
	"  new = old + (SELECT coalesce(max(id), 0) FROM main.experiments) WHERE new IS NULL;";

/* How a table's rows are chosen and its keys mapped. */
struct keyed {
	bool run, exp, thread, host;	/* the key columns it has */
};

/* The columns of src.table, as "a, b, c" and with each key mapped. */
static int table_sql(struct db *db, const char *table, char **sql, char **cause)
{
	sqlite3_stmt *st = NULL;
	char *q = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q, 'src') ORDER BY cid",
				  table);
	if (!q)
		return -ENOMEM;
	int rc = sqlite3_prepare_v2(db->h, q, -1, &st, NULL);
	sqlite3_free(q);
	if (rc != SQLITE_OK)
		return cause_set(cause, EIO, "cannot read the columns of %s: %s", table,
				 sqlite3_errmsg(db->h));
	char *cols = NULL, *exprs = NULL;
	size_t nc = 0, ne = 0;
	FILE *fc = open_memstream(&cols, &nc), *fe = open_memstream(&exprs, &ne);
	struct keyed k = { 0 };
	bool first = true;
	/* Their own ids are mapped; another table's "id" is its own
	 * numbering inside a run (sample_frames' frames), kept. */
	bool special = !strcmp(table, "hosts") || !strcmp(table, "runs") ||
		       !strcmp(table, "threads") || !strcmp(table, "experiments");
	while (fc && fe && sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		const char *e = c;
		char buf[64];
		if (!strcmp(c, "run_id")) {
			k.run = true;
			e = "r.new";
		} else if (!strcmp(c, "experiment_id")) {
			k.exp = true;
			e = "x.new";
		} else if (!strcmp(c, "thread_id")) {
			k.thread = true;
			e = "t.new";
		} else if (!strcmp(c, "host_id")) {
			k.host = true;
			e = "h.new";
		} else if (!strcmp(c, "id") && special) {
			snprintf(buf, sizeof(buf), "%s.new",
				 !strcmp(table, "hosts") ? "h" : !strcmp(table, "runs") ? "r"
				 : !strcmp(table, "threads") ? "t" : "x");
			e = buf;
		} else {
			snprintf(buf, sizeof(buf), "s.\"%s\"", c);
			e = buf;
		}
		fprintf(fc, "%s\"%s\"", first ? "" : ", ", c);
		fprintf(fe, "%s%s", first ? "" : ", ", e);
		first = false;
	}
	sqlite3_finalize(st);
	if (fc)
		fclose(fc);
	if (fe)
		fclose(fe);
	if (!cols || !exprs) {
		free(cols);
		free(exprs);
		return -ENOMEM;
	}
	/* Which rows: the new ones of the table that owns them. */
	const char *from;
	bool ok = true;
	if (!strcmp(table, "hosts"))
		from = "JOIN imp_hosts h ON h.old = s.id AND h.fresh";
	else if (!strcmp(table, "runs"))
		from = "JOIN imp_runs r ON r.old = s.id AND r.fresh"
		       " JOIN imp_hosts h ON h.old = s.host_id";
	else if (!strcmp(table, "threads"))
		from = "JOIN imp_threads t ON t.old = s.id JOIN imp_runs r ON r.old = s.run_id";
	else if (!strcmp(table, "experiments"))
		from = "JOIN imp_exps x ON x.old = s.id AND x.fresh"
		       " LEFT JOIN imp_hosts h ON h.old = s.host_id";
	else if (k.exp)
		from = k.run ? "JOIN imp_exps x ON x.old = s.experiment_id AND x.fresh"
			       " JOIN imp_runs r ON r.old = s.run_id"
			     : "JOIN imp_exps x ON x.old = s.experiment_id AND x.fresh";
	else if (k.run)
		from = k.thread ? "JOIN imp_runs r ON r.old = s.run_id AND r.fresh"
				  " LEFT JOIN imp_threads t ON t.old = s.thread_id"
				: "JOIN imp_runs r ON r.old = s.run_id AND r.fresh";
	else if (k.thread)
		from = "JOIN imp_threads t ON t.old = s.thread_id";
	else if (k.host)
		from = "JOIN imp_hosts h ON h.old = s.host_id AND h.fresh";
	else
		ok = false;
	if (!ok) {
		free(cols);
		free(exprs);
		return cause_set(cause, EINVAL, "cannot import table %s: it is keyed by "
				 "nothing prof maps (run, experiment, thread or host)", table);
	}
	rc = asprintf(sql, "INSERT INTO main.\"%s\" (%s) SELECT %s FROM src.\"%s\" s %s",
		      table, cols, exprs, table, from) < 0 ? -ENOMEM : 0;
	free(cols);
	free(exprs);
	return rc;
}

/* Every table, those whose ids others take first. */
static int copy_tables(struct db *db, char **cause)
{
	static const char *const first[] = { "hosts", "runs", "threads", "experiments" };
	for (size_t i = 0; i < 4; i++) {
		char *sql = NULL;
		int rc = table_sql(db, first[i], &sql, cause);
		if (!rc)
			rc = exec(db, sql, cause);
		free(sql);
		if (rc)
			return rc;
	}
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->h, "SELECT name FROM src.sqlite_master WHERE type = 'table'"
			       " AND name NOT LIKE 'sqlite_%' AND name NOT IN ('hosts', 'runs',"
			       " 'threads', 'experiments') ORDER BY name", -1, &st, NULL))
		return cause_set(cause, EIO, "cannot list the tables to import: %s",
				 sqlite3_errmsg(db->h));
	char **names = NULL;
	size_t n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		char **m = realloc(names, (n + 1) * sizeof(*m));
		if (!m)
			break;
		names = m;
		names[n++] = strdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		char *sql = NULL;
		rc = names[i] ? table_sql(db, names[i], &sql, cause) : -ENOMEM;
		if (!rc)
			rc = exec(db, sql, cause);
		free(sql);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int db_import(struct db *db, const char *path, struct db_import_stats *stats, char **cause)
{
	memset(stats, 0, sizeof(*stats));
	struct stat a, b;
	if (stat(path, &a))
		return cause_set(cause, errno == ENOENT ? ENOENT : errno, "cannot read '%s': %s",
				 path, ERR_TEXT(errno));
	if (!S_ISREG(a.st_mode))
		return cause_set(cause, EINVAL, "cannot import '%s': not a regular file", path);
	if (!stat(db->path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return cause_set(cause, EINVAL, "cannot import '%s' into itself", path);
	char *copy = NULL;
	int rc = copy_of(path, &copy, cause);
	if (rc)
		return rc;
	/* Open the copy as a database of its own: an older schema migrates,
	 * a file that is no prof database is refused, naming the original. */
	struct db *other = NULL;
	char *why = NULL;
	rc = db_open(&other, copy, &why);
	db_close(other);
	if (rc) {
		cause_set(cause, EINVAL, "cannot import '%s': %s", path,
			  why ? why : ERR_TEXT(-rc));
		free(why);
		rc = -EINVAL;
		goto out;
	}
	char *q = sqlite3_mprintf("ATTACH DATABASE %Q AS src", copy);
	rc = q ? exec(db, q, cause) : -ENOMEM;
	sqlite3_free(q);
	if (rc)
		goto out;
	rc = db_begin(db, cause);
	/* rows come table by table, a referenced one sometimes after its
	 * referrer (arm_settings before arms): keys are checked at commit */
	if (!rc)
		rc = exec(db, "PRAGMA defer_foreign_keys = ON", cause);
	if (!rc)
		rc = exec(db, map_sql, cause);
	if (!rc)
		rc = copy_tables(db, cause);
	if (!rc) {
		stats->hosts_new = (size_t)count_of(db, "SELECT count(*) FROM imp_hosts WHERE fresh");
		stats->hosts_known = (size_t)count_of(db, "SELECT count(*) FROM imp_hosts WHERE NOT fresh");
		stats->runs_new = (size_t)count_of(db, "SELECT count(*) FROM imp_runs WHERE fresh");
		stats->runs_known = (size_t)count_of(db, "SELECT count(*) FROM imp_runs WHERE NOT fresh");
		stats->experiments_new = (size_t)count_of(db, "SELECT count(*) FROM imp_exps WHERE fresh");
		stats->experiments_known =
			(size_t)count_of(db, "SELECT count(*) FROM imp_exps WHERE NOT fresh");
		rc = exec(db, "DROP TABLE imp_hosts; DROP TABLE imp_runs; DROP TABLE imp_threads;"
			  " DROP TABLE imp_exps;", cause);
	}
	if (!rc)
		rc = db_commit(db, cause);
	else
		db_rollback(db);
	/* temp tables of a rolled-back import go with it; detach either way */
	sqlite3_exec(db->h, "DETACH DATABASE src", NULL, NULL, NULL);
	if (rc)
		memset(stats, 0, sizeof(*stats));
out:
	unlink(copy);
	free(copy);
	return rc;
}
