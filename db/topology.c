/* topology (db): store and load a host's topology. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"
#include "db/topology.h"

void db_topology_release(struct db_topology *t)
{
	if (!t)
		return;
	free(t->root);
	free(t->online);
	for (size_t i = 0; i < t->ncaches; i++) {
		free(t->caches[i].type);
		free(t->caches[i].cpus);
	}
	free(t->caches);
	free(t->largest_reason);
	free(t->notes);
	free(t->cluster_source);
	struct db_cpuset *sets[] = { t->clusters, t->smt, t->packages, t->nodes };
	size_t ns[] = { t->nclusters, t->nsmt, t->npackages, t->nnodes };
	for (int k = 0; k < 4; k++) {
		for (size_t i = 0; i < ns[k]; i++)
			free(sets[k][i].cpus);
		free(sets[k]);
	}
	memset(t, 0, sizeof(*t));
}

static int put(struct db *db, sqlite3_stmt *st, int64_t host, const char *kind,
	       int idx, int level, const char *type, int64_t size,
	       const char *cpus, int number, const char *text, char **cause)
{
	sqlite3_bind_int64(st, 1, host);
	db_bind_text(st, 2, kind);
	sqlite3_bind_int(st, 3, idx);
	sqlite3_bind_int(st, 4, level);
	db_bind_text(st, 5, type);
	sqlite3_bind_int64(st, 6, size);
	db_bind_text(st, 7, cpus);
	sqlite3_bind_int(st, 8, number);
	db_bind_text(st, 9, text);
	int s = sqlite3_step(st);
	sqlite3_reset(st);
	if (s != SQLITE_DONE)
		return db_fail(db, s, "cannot store the topology in", cause);
	return 0;
}

int db_topology_store(struct db *db, int64_t host_id,
		      const struct db_topology *t, char **cause)
{
	char *have = NULL;
	char sql[128];
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM host_topology WHERE host_id = %lld",
		 (long long)host_id);
	int rc = db_query_text(db, sql, &have, cause);
	if (rc)
		return rc;
	bool stored = have && atoi(have) > 0;
	free(have);
	if (stored)
		return 0;
	sqlite3_stmt *st;
	rc = db_prepare(db, &st, "INSERT INTO host_topology (host_id, kind, idx,"
			" level, type, size_bytes, cpus, number, text) VALUES"
			" (?1,?2,?3,?4,?5,?6,?7,?8,?9)", cause);
	if (rc)
		return rc;
	rc = put(db, st, host_id, "info", 0, t->llc_level, t->cluster_source,
		 t->largest_llc, t->online, t->llc_asymmetric, t->largest_reason, cause);
	if (!rc && t->notes)
		rc = put(db, st, host_id, "info", 1, 0, NULL, 0, t->root, 0, t->notes, cause);
	for (size_t i = 0; !rc && i < t->ncaches; i++) {
		const struct db_cache *c = &t->caches[i];
		rc = put(db, st, host_id, "cache", (int)i, c->level, c->type,
			 (int64_t)c->size_bytes, c->cpus, (int)c->index, NULL, cause);
	}
	const char *kinds[] = { "cluster", "smt", "package", "node" };
	const struct db_cpuset *sets[] = { t->clusters, t->smt, t->packages, t->nodes };
	size_t ns[] = { t->nclusters, t->nsmt, t->npackages, t->nnodes };
	for (int k = 0; k < 4 && !rc; k++)
		for (size_t i = 0; i < ns[k] && !rc; i++)
			rc = put(db, st, host_id, kinds[k], (int)i, 0, NULL, 0,
				 sets[k][i].cpus, sets[k][i].number, NULL, cause);
	sqlite3_finalize(st);
	return rc;
}

static int push_set(struct db_cpuset **v, size_t *n, int number, char *cpus)
{
	struct db_cpuset *p = realloc(*v, (*n + 1) * sizeof(*p));
	if (!p) {
		free(cpus);
		return -ENOMEM;
	}
	*v = p;
	p[*n].number = number;
	p[*n].cpus = cpus;
	(*n)++;
	return 0;
}

/* One row per part of the topology; which columns a kind fills is in
 * db_topology_store (the info row keeps cluster_source in type, and so
 * on). */
#define TOPO_COLS(X) \
	X(HT_KIND, "kind") \
	X(HT_IDX, "idx") \
	X(HT_LEVEL, "level") \
	X(HT_TYPE, "type") \
	X(HT_SIZE, "size_bytes") \
	X(HT_CPUS, "cpus") \
	X(HT_NUMBER, "number") \
	X(HT_TEXT, "text")
enum { TOPO_COLS(DB_COL_ENUM) HT_N };
static const char *const topo_cols[] = { TOPO_COLS(DB_COL_SQL) };

int db_topology_load(struct db *db, int64_t host_id, struct db_topology *out,
		     char **cause)
{
	memset(out, 0, sizeof(*out));
	out->largest_llc = -1;
	sqlite3_stmt *st;
	int rc = db_prepare_select(db, &st, topo_cols, HT_N, "FROM host_topology"
				   " WHERE host_id = ?1 ORDER BY kind, idx", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, host_id);
	struct db_row r;
	db_row_init(&r, db, st, "host_topology");
	int s, rows = 0;
	while (!rc && !r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		rows++;
		/* column_text only on text: it would convert anything else. */
		int type = sqlite3_column_type(st, HT_KIND);
		db_row_key(&r, "(host %lld, kind '%.20s', idx %lld)", (long long)host_id,
			   type == SQLITE_TEXT ? (const char *)sqlite3_column_text(st, HT_KIND)
			   : type == SQLITE_NULL ? "NULL" : "?",
			   (long long)sqlite3_column_int64(st, HT_IDX));
		char *kind = db_row_text(&r, HT_KIND, 0);
		int idx = (int)db_row_int(&r, HT_IDX, 0, INT32_MAX, 0, 0);
		if (r.rc) {
			free(kind);
			break;
		}
		if (!strcmp(kind, "info") && idx == 0) {
			out->llc_level = (int)db_row_int(&r, HT_LEVEL, 0, 255, 0, DB_NULL_OK);
			out->cluster_source = db_row_text(&r, HT_TYPE, DB_NULL_OK);
			out->largest_llc = (long)db_row_int(&r, HT_SIZE, -1, INT32_MAX, -1,
							    DB_NULL_OK);
			out->online = db_row_text(&r, HT_CPUS, DB_NULL_OK | DB_CPUS);
			out->llc_asymmetric = db_row_bool(&r, HT_NUMBER, DB_NULL_OK);
			out->largest_reason = db_row_text(&r, HT_TEXT, DB_NULL_OK | DB_LONG);
		} else if (!strcmp(kind, "info")) {
			out->root = db_row_text(&r, HT_CPUS, DB_NULL_OK | DB_LONG);
			out->notes = db_row_text(&r, HT_TEXT, DB_NULL_OK | DB_LONG);
		} else if (!strcmp(kind, "cache")) {
			struct db_cache *p = realloc(out->caches, (out->ncaches + 1) * sizeof(*p));
			if (!p) {
				rc = -ENOMEM;
				free(kind);
				break;
			}
			out->caches = p;
			struct db_cache *c = &p[out->ncaches++];
			c->level = (int)db_row_int(&r, HT_LEVEL, 0, 255, 0, 0);
			c->type = db_row_text(&r, HT_TYPE, 0);
			c->size_bytes = db_row_u64(&r, HT_SIZE, 0);
			c->cpus = db_row_text(&r, HT_CPUS, DB_CPUS);
			c->index = (size_t)db_row_int(&r, HT_NUMBER, 0, INT32_MAX, 0, 0);
			c->id = -1;
		} else if (!strcmp(kind, "cluster") || !strcmp(kind, "smt") ||
			   !strcmp(kind, "package") || !strcmp(kind, "node")) {
			struct db_cpuset **v = !strcmp(kind, "cluster") ? &out->clusters
					     : !strcmp(kind, "smt") ? &out->smt
					     : !strcmp(kind, "package") ? &out->packages
					     : &out->nodes;
			size_t *n = !strcmp(kind, "cluster") ? &out->nclusters
				  : !strcmp(kind, "smt") ? &out->nsmt
				  : !strcmp(kind, "package") ? &out->npackages
				  : &out->nnodes;
			int number = (int)db_row_int(&r, HT_NUMBER, INT32_MIN, INT32_MAX, 0, 0);
			rc = push_set(v, n, number, db_row_text(&r, HT_CPUS, DB_CPUS));
		} else {
			db_row_bad(&r, HT_KIND, "'%.20s' is not a kind prof writes", kind);
		}
		free(kind);
	}
	sqlite3_finalize(st);
	/* The largest domain is an index into the caches. */
	if (!rc && !r.rc && out->largest_llc >= (long)out->ncaches) {
		r.table = "host_topology";
		db_row_key(&r, "(host %lld, kind 'info', idx 0)", (long long)host_id);
		db_row_bad(&r, -1, "names cache %ld as the largest, of %zu",
			   out->largest_llc, out->ncaches);
	}
	if (!rc && r.rc)
		rc = db_row_fail(&r, cause);
	db_row_release(&r);
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, s, "cannot read the topology in", cause);
	if (rc) {
		db_topology_release(out);
		return rc;
	}
	if (rows == 0) {
		if (cause && asprintf(cause, "no topology stored for host %lld",
				      (long long)host_id) < 0)
			*cause = NULL;
		return -ENOENT;
	}
	return 0;
}
