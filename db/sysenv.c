/*
 * sysenv: a run's machine deltas (run_system) and the machine's settings
 * at its start (run_env); stored and loaded with the run (runs.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"
#include "db/runs.h"

#define SYS_INS(X) \
	X(YI_RUN, "run_id") \
	X(YI_IDX, "idx") \
	X(YI_NAME, "name") \
	X(YI_DELTA, "delta")
enum { SYS_INS(DB_COL_ENUM) YI_N };
static const char *const sys_ins[] = { SYS_INS(DB_COL_SQL) };

#define ENV_INS(X) \
	X(NI_RUN, "run_id") \
	X(NI_IDX, "idx") \
	X(NI_KEY, "key") \
	X(NI_VALUE, "value")
enum { ENV_INS(DB_COL_ENUM) NI_N };
static const char *const env_ins[] = { ENV_INS(DB_COL_SQL) };

int db_sysenv_store(struct db *db, const struct db_run *run, char **cause)
{
	sqlite3_stmt *st;
	int rc;
	if (run->nsystem) {
		rc = db_prepare_insert(db, &st, "run_system", sys_ins, YI_N, cause);
		if (rc)
			return rc;
		for (size_t i = 0; i < run->nsystem; i++) {
			sqlite3_bind_int64(st, DB_PARAM(YI_RUN), run->id);
			sqlite3_bind_int(st, DB_PARAM(YI_IDX), (int)i);
			db_bind_text(st, DB_PARAM(YI_NAME), run->system[i].name);
			sqlite3_bind_int64(st, DB_PARAM(YI_DELTA), run->system[i].delta);
			rc = db_insert_step(db, st, "cannot store the machine's deltas in",
					    cause);
			if (rc)
				return rc;
		}
		sqlite3_finalize(st);
	}
	if (!run->nenv)
		return 0;
	rc = db_prepare_insert(db, &st, "run_env", env_ins, NI_N, cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < run->nenv; i++) {
		sqlite3_bind_int64(st, DB_PARAM(NI_RUN), run->id);
		sqlite3_bind_int(st, DB_PARAM(NI_IDX), (int)i);
		db_bind_text(st, DB_PARAM(NI_KEY), run->env[i].key);
		db_bind_long(st, DB_PARAM(NI_VALUE), run->env[i].value);
		rc = db_insert_step(db, st, "cannot store the machine's settings in",
				    cause);
		if (rc)
			return rc;
	}
	sqlite3_finalize(st);
	return 0;
}

#define SYS_COLS(X) \
	X(YC_NAME, "name") \
	X(YC_DELTA, "delta")
enum { SYS_COLS(DB_COL_ENUM) YC_N };
static const char *const sys_cols[] = { SYS_COLS(DB_COL_SQL) };

#define ENV_COLS(X) \
	X(NC_KEY, "key") \
	X(NC_VALUE, "value")
enum { ENV_COLS(DB_COL_ENUM) NC_N };
static const char *const env_cols[] = { ENV_COLS(DB_COL_SQL) };

static int system_row(struct db_row *r, struct db_load *l)
{
	struct db_run *out = l->out;
	db_row_key(r, "(run %lld, row %zu)", (long long)l->run_id, out->nsystem + 1);
	if (db_grow((void **)&out->system, &l->cap, out->nsystem, sizeof(*out->system)))
		return -ENOMEM;
	struct db_sysval *v = &out->system[out->nsystem++];
	v->name = db_row_text(r, YC_NAME, 0);
	v->delta = db_row_int(r, YC_DELTA, INT64_MIN, INT64_MAX, 0, 0);
	return 0;
}

static const struct db_select system_sel = {
	"run_system", sys_cols, YC_N,
	"FROM run_system WHERE run_id = ?1 ORDER BY idx",
	"cannot read the machine's deltas from",
};

static int env_row(struct db_row *r, struct db_load *l)
{
	struct db_run *out = l->out;
	db_row_key(r, "(run %lld, row %zu)", (long long)l->run_id, out->nenv + 1);
	if (db_grow((void **)&out->env, &l->cap, out->nenv, sizeof(*out->env)))
		return -ENOMEM;
	struct db_kv *kv = &out->env[out->nenv++];
	kv->key = db_row_text(r, NC_KEY, 0);
	kv->value = db_row_text(r, NC_VALUE, DB_LONG);
	return 0;
}

static const struct db_select env_sel = {
	"run_env", env_cols, NC_N,
	"FROM run_env WHERE run_id = ?1 ORDER BY idx",
	"cannot read the machine's settings from",
};

int db_sysenv_load(struct db *db, int64_t run_id, struct db_run *out, char **cause)
{
	struct db_load l = { .run_id = run_id, .out = out };
	int rc = db_select_run(db, &system_sel, &l, system_row, cause);
	if (rc)
		return rc;
	return db_select_run(db, &env_sel, &l, env_row, cause);
}

void db_sysenv_release(struct db_run *run)
{
	for (size_t i = 0; i < run->nsystem; i++)
		free(run->system[i].name);
	free(run->system);
	for (size_t i = 0; i < run->nenv; i++) {
		free(run->env[i].key);
		free(run->env[i].value);
	}
	free(run->env);
	run->system = NULL;
	run->env = NULL;
	run->nsystem = run->nenv = 0;
}
