/* topology (db): store a host's topology, once. */
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

/* One row per part of the topology; which columns a kind fills is in
 * db_topology_store (the info row keeps cluster_source in type, and so
 * on). */
#define TOPO_INS(X) \
	X(HT_HOST, "host_id") \
	X(HT_KIND, "kind") \
	X(HT_IDX, "idx") \
	X(HT_LEVEL, "level") \
	X(HT_TYPE, "type") \
	X(HT_SIZE, "size_bytes") \
	X(HT_CPUS, "cpus") \
	X(HT_NUMBER, "number") \
	X(HT_TEXT, "text")
enum { TOPO_INS(DB_COL_ENUM) HT_N };
static const char *const topo_ins[] = { TOPO_INS(DB_COL_SQL) };

static int put(struct db *db, sqlite3_stmt *st, int64_t host, const char *kind,
	       int idx, int level, const char *type, int64_t size,
	       const char *cpus, int number, const char *text, char **cause)
{
	sqlite3_bind_int64(st, DB_PARAM(HT_HOST), host);
	db_bind_text(st, DB_PARAM(HT_KIND), kind);
	sqlite3_bind_int(st, DB_PARAM(HT_IDX), idx);
	sqlite3_bind_int(st, DB_PARAM(HT_LEVEL), level);
	db_bind_text(st, DB_PARAM(HT_TYPE), type);
	sqlite3_bind_int64(st, DB_PARAM(HT_SIZE), size);
	db_bind_text(st, DB_PARAM(HT_CPUS), cpus);
	sqlite3_bind_int(st, DB_PARAM(HT_NUMBER), number);
	db_bind_text(st, DB_PARAM(HT_TEXT), text);
	return db_step_done(db, st, "cannot store the topology in", cause);
}

int db_topology_stored(struct db *db, int64_t host_id, bool *have, char **cause)
{
	char *n = NULL;
	char sql[128];
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM host_topology WHERE host_id = %lld",
		 (long long)host_id);
	int rc = db_query_text(db, sql, &n, cause);
	*have = !rc && n && atoi(n) > 0;
	free(n);
	return rc;
}

int db_topology_store(struct db *db, int64_t host_id,
		      const struct db_topology *t, char **cause)
{
	bool stored = false;
	int rc = db_topology_stored(db, host_id, &stored, cause);
	if (rc || stored)
		return rc;
	sqlite3_stmt *st;
	rc = db_prepare_insert(db, &st, "host_topology", topo_ins, HT_N, cause);
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
