/* experiments: store and load `prof ab` experiments and their runs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/experiments.h"
#include "db/internal.h"

static int step_done(struct db *db, sqlite3_stmt *st, const char *what, char **cause)
{
	int s = sqlite3_step(st);
	sqlite3_reset(st);
	if (s != SQLITE_DONE)
		return db_fail(db, s, what, cause);
	return 0;
}

static int create_body(struct db *db, struct db_experiment *e,
		       const struct db_host *host, char **cause)
{
	int64_t hid = db_host_id(db, host, cause);
	if (hid < 0)
		return (int)hid;
	e->host_id = hid;
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st,
		"INSERT INTO experiments (host_id, started, status, order_scheme, seed,"
		" rounds, warmup, settle_s, gate_pct, aa, keep_going) VALUES"
		" (?1, strftime('%Y-%m-%dT%H:%M:%SZ','now'), 'running', ?2, ?3, ?4, ?5,"
		" ?6, ?7, ?8, ?9)", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, hid);
	db_bind_text(st, 2, e->order);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)e->seed);
	sqlite3_bind_int(st, 4, e->rounds);
	sqlite3_bind_int(st, 5, e->warmup);
	sqlite3_bind_double(st, 6, e->settle_s);
	if (isnan(e->gate_pct))
		sqlite3_bind_null(st, 7);
	else
		sqlite3_bind_double(st, 7, e->gate_pct);
	sqlite3_bind_int(st, 8, e->aa);
	sqlite3_bind_int(st, 9, e->keep_going);
	rc = step_done(db, st, "cannot store the experiment in", cause);
	sqlite3_finalize(st);
	if (rc)
		return rc;
	e->id = sqlite3_last_insert_rowid(db->h);

	rc = db_prepare(db, &st, "INSERT INTO experiment_settings (experiment_id,"
			" seq, key, value) VALUES (?1, ?2, ?3, ?4)", cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < e->nsettings && !rc; i++) {
		sqlite3_bind_int64(st, 1, e->id);
		sqlite3_bind_int(st, 2, (int)i);
		db_bind_text(st, 3, e->settings[i].key);
		db_bind_text(st, 4, e->settings[i].value);
		rc = step_done(db, st, "cannot store the settings in", cause);
	}
	sqlite3_finalize(st);
	if (rc)
		return rc;

	sqlite3_stmt *as;
	rc = db_prepare(db, &st, "INSERT INTO arms (experiment_id, idx, name, command,"
			" argv) VALUES (?1, ?2, ?3, ?4, ?5)", cause);
	if (rc)
		return rc;
	rc = db_prepare(db, &as, "INSERT INTO arm_settings (experiment_id, arm_idx,"
			" key, value) VALUES (?1, ?2, ?3, ?4)", cause);
	if (rc) {
		sqlite3_finalize(st);
		return rc;
	}
	for (size_t a = 0; a < e->narms && !rc; a++) {
		const struct db_arm *arm = &e->arms[a];
		sqlite3_bind_int64(st, 1, e->id);
		sqlite3_bind_int(st, 2, (int)a);
		db_bind_text(st, 3, arm->name);
		db_bind_text(st, 4, arm->command);
		db_bind_argv(st, 5, arm->argv, arm->argc);
		rc = step_done(db, st, "cannot store the arms in", cause);
		for (size_t k = 0; k < arm->nsettings && !rc; k++) {
			sqlite3_bind_int64(as, 1, e->id);
			sqlite3_bind_int(as, 2, (int)a);
			db_bind_text(as, 3, arm->settings[k].key);
			db_bind_text(as, 4, arm->settings[k].value);
			rc = step_done(db, as, "cannot store the arm settings in", cause);
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(as);
	return rc;
}

int db_experiment_create(struct db *db, struct db_experiment *exp,
			 const struct db_host *host, char **cause)
{
	int rc = db_begin(db, cause);
	if (rc)
		return rc;
	rc = create_body(db, exp, host, cause);
	if (rc) {
		db_rollback(db);
		exp->id = 0;
		return rc;
	}
	return db_commit(db, cause);
}

int db_experiment_add_run(struct db *db, int64_t exp_id, struct db_run *run,
			  int arm, int round, int position, bool warmup,
			  const struct db_score *scores, size_t nscores,
			  char **cause)
{
	int rc = db_begin(db, cause);
	if (rc)
		return rc;
	rc = db_run_store_body(db, run, cause);
	sqlite3_stmt *st = NULL;
	if (!rc)
		rc = db_prepare(db, &st, "INSERT INTO experiment_runs (experiment_id,"
				" run_id, arm_idx, round, position, warmup) VALUES"
				" (?1, ?2, ?3, ?4, ?5, ?6)", cause);
	if (!rc) {
		sqlite3_bind_int64(st, 1, exp_id);
		sqlite3_bind_int64(st, 2, run->id);
		sqlite3_bind_int(st, 3, arm);
		sqlite3_bind_int(st, 4, round);
		sqlite3_bind_int(st, 5, position);
		sqlite3_bind_int(st, 6, warmup);
		rc = step_done(db, st, "cannot link the run in", cause);
		sqlite3_finalize(st);
		st = NULL;
	}
	if (!rc)
		rc = db_prepare(db, &st, "INSERT INTO run_scores (run_id, name, value,"
				" found) VALUES (?1, ?2, ?3, ?4)", cause);
	for (size_t i = 0; !rc && i < nscores; i++) {
		sqlite3_bind_int64(st, 1, run->id);
		db_bind_text(st, 2, scores[i].name);
		if (scores[i].found)
			sqlite3_bind_double(st, 3, scores[i].value);
		else
			sqlite3_bind_null(st, 3);
		sqlite3_bind_int(st, 4, scores[i].found);
		rc = step_done(db, st, "cannot store the scores in", cause);
	}
	sqlite3_finalize(st);
	if (rc) {
		db_rollback(db);
		run->id = 0;
		return rc;
	}
	rc = db_commit(db, cause);
	if (rc)
		run->id = 0;
	return rc;
}

int db_experiment_finish(struct db *db, int64_t exp_id, const char *status,
			 const char *note, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st, "UPDATE experiments SET status = ?2, note = ?3,"
			    " finished = strftime('%Y-%m-%dT%H:%M:%SZ','now')"
			    " WHERE id = ?1", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, exp_id);
	db_bind_text(st, 2, status);
	db_bind_text(st, 3, note);
	rc = step_done(db, st, "cannot finish the experiment in", cause);
	sqlite3_finalize(st);
	return rc;
}

static void kv_push(struct db_kv **v, size_t *n, sqlite3_stmt *st, int kcol, int vcol)
{
	struct db_kv *p = realloc(*v, (*n + 1) * sizeof(*p));
	if (!p)
		abort();
	*v = p;
	p[*n].key = db_col_text(st, kcol);
	p[*n].value = db_col_text(st, vcol);
	(*n)++;
}

static int load_runs(struct db *db, struct db_experiment *e, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st,
		"SELECT x.run_id, x.arm_idx, x.round, x.position, x.warmup, r.exit_status,"
		" r.interrupted, r.wall_s, r.user_s, r.sys_s, r.pin_mode, r.pin_status,"
		" r.pin_cpus, r.pin_level, r.pin_size_bytes FROM experiment_runs x"
		" JOIN runs r ON r.id = x.run_id WHERE x.experiment_id = ?1"
		" ORDER BY x.run_id", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, e->id);
	int s;
	size_t cap = 0;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if (e->nruns == cap) {
			cap = cap ? cap * 2 : 16;
			struct db_exp_run *p = realloc(e->runs, cap * sizeof(*p));
			if (!p) {
				sqlite3_finalize(st);
				return -ENOMEM;
			}
			e->runs = p;
		}
		struct db_exp_run *r = &e->runs[e->nruns++];
		memset(r, 0, sizeof(*r));
		r->run_id = sqlite3_column_int64(st, 0);
		r->arm = sqlite3_column_int(st, 1);
		r->round = sqlite3_column_int(st, 2);
		r->position = sqlite3_column_int(st, 3);
		r->warmup = sqlite3_column_int(st, 4);
		r->exit_status = sqlite3_column_int(st, 5);
		r->interrupted = sqlite3_column_int(st, 6);
		r->wall_s = sqlite3_column_double(st, 7);
		r->user_s = sqlite3_column_double(st, 8);
		r->sys_s = sqlite3_column_double(st, 9);
		r->pin_mode = db_col_text(st, 10);
		r->pin_status = db_col_text(st, 11);
		r->pin_cpus = db_col_text(st, 12);
		r->pin_level = sqlite3_column_int(st, 13);
		r->pin_size_bytes = (uint64_t)sqlite3_column_int64(st, 14);
	}
	sqlite3_finalize(st);
	if (s != SQLITE_DONE)
		return db_fail(db, s, "cannot read", cause);

	sqlite3_stmt *ev, *sc;
	rc = db_prepare(db, &ev, "SELECT name, supported, value, time_enabled,"
			" time_running FROM events WHERE run_id = ?1 ORDER BY idx", cause);
	if (rc)
		return rc;
	rc = db_prepare(db, &sc, "SELECT name, value, found FROM run_scores"
			" WHERE run_id = ?1 ORDER BY name", cause);
	if (rc) {
		sqlite3_finalize(ev);
		return rc;
	}
	for (size_t i = 0; i < e->nruns; i++) {
		struct db_exp_run *r = &e->runs[i];
		sqlite3_bind_int64(ev, 1, r->run_id);
		while (sqlite3_step(ev) == SQLITE_ROW) {
			size_t k = r->nevents++;
			r->ev_names = realloc(r->ev_names, r->nevents * sizeof(char *));
			r->ev_supported = realloc(r->ev_supported, r->nevents * sizeof(bool));
			r->ev_values = realloc(r->ev_values, r->nevents * sizeof(double));
			if (!r->ev_names || !r->ev_supported || !r->ev_values)
				abort();
			r->ev_names[k] = db_col_text(ev, 0);
			r->ev_supported[k] = sqlite3_column_int(ev, 1);
			struct db_count c = { 0, 0, 0, false };
			if (sqlite3_column_type(ev, 2) != SQLITE_NULL) {
				c.present = true;
				c.value = (uint64_t)sqlite3_column_int64(ev, 2);
				c.enabled = (uint64_t)sqlite3_column_int64(ev, 3);
				c.running = (uint64_t)sqlite3_column_int64(ev, 4);
			}
			double v;
			enum db_count_state cs = db_count_scaled(&c, &v);
			r->ev_values[k] = r->ev_supported[k] &&
					  (cs == COUNT_OK || cs == COUNT_SCALED) ? v : NAN;
		}
		sqlite3_reset(ev);
		sqlite3_bind_int64(sc, 1, r->run_id);
		while (sqlite3_step(sc) == SQLITE_ROW) {
			size_t k = r->nscores++;
			r->scores = realloc(r->scores, r->nscores * sizeof(*r->scores));
			if (!r->scores)
				abort();
			r->scores[k].name = db_col_text(sc, 0);
			r->scores[k].found = sqlite3_column_int(sc, 2);
			r->scores[k].value = r->scores[k].found ? sqlite3_column_double(sc, 1) : NAN;
		}
		sqlite3_reset(sc);
	}
	sqlite3_finalize(ev);
	sqlite3_finalize(sc);
	return 0;
}

int db_experiment_load(struct db *db, int64_t id, struct db_experiment *out,
		       char **cause)
{
	memset(out, 0, sizeof(*out));
	out->gate_pct = NAN;
	char *newest = NULL;
	if (id <= 0) {
		int rc = db_query_text(db, "SELECT max(id) FROM experiments", &newest, cause);
		if (rc)
			return rc;
		id = newest ? atoll(newest) : 0;
		free(newest);
		if (id <= 0) {
			if (cause && asprintf(cause, "no experiments stored in '%s' yet\n"
					      "hint: run one with 'prof ab --arm A=CMD "
					      "--arm B=CMD'", db->path) < 0)
				*cause = NULL;
			return -ENOENT;
		}
	}
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st,
		"SELECT e.id, e.host_id, h.hostname, h.cpu_model, e.started, e.finished,"
		" e.status, e.note, e.order_scheme, e.seed, e.rounds, e.warmup, e.settle_s,"
		" e.gate_pct, e.aa, e.keep_going FROM experiments e"
		" LEFT JOIN hosts h ON h.id = e.host_id WHERE e.id = ?1", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	int s = sqlite3_step(st);
	if (s != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (s == SQLITE_DONE) {
			if (cause && asprintf(cause, "no experiment %lld in '%s'\n"
					      "hint: 'prof compare' lists the stored "
					      "experiments", (long long)id, db->path) < 0)
				*cause = NULL;
			return -ENOENT;
		}
		return db_fail(db, s, "cannot read", cause);
	}
	out->id = sqlite3_column_int64(st, 0);
	out->host_id = sqlite3_column_int64(st, 1);
	out->hostname = db_col_text(st, 2);
	out->cpu_model = db_col_text(st, 3);
	out->started = db_col_text(st, 4);
	out->finished = db_col_text(st, 5);
	out->status = db_col_text(st, 6);
	out->note = db_col_text(st, 7);
	out->order = db_col_text(st, 8);
	out->seed = (uint64_t)sqlite3_column_int64(st, 9);
	out->rounds = sqlite3_column_int(st, 10);
	out->warmup = sqlite3_column_int(st, 11);
	out->settle_s = sqlite3_column_double(st, 12);
	out->gate_pct = sqlite3_column_type(st, 13) == SQLITE_NULL ? NAN
			: sqlite3_column_double(st, 13);
	out->aa = sqlite3_column_int(st, 14);
	out->keep_going = sqlite3_column_int(st, 15);
	sqlite3_finalize(st);

	rc = db_prepare(db, &st, "SELECT key, value FROM experiment_settings"
			" WHERE experiment_id = ?1 ORDER BY seq", cause);
	if (rc)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW)
		kv_push(&out->settings, &out->nsettings, st, 0, 1);
	sqlite3_finalize(st);

	rc = db_prepare(db, &st, "SELECT idx, name, command, argv FROM arms"
			" WHERE experiment_id = ?1 ORDER BY idx", cause);
	if (rc)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct db_arm *p = realloc(out->arms, (out->narms + 1) * sizeof(*p));
		if (!p)
			abort();
		out->arms = p;
		struct db_arm *a = &p[out->narms++];
		memset(a, 0, sizeof(*a));
		a->name = db_col_text(st, 1);
		a->command = db_col_text(st, 2);
		db_col_argv(st, 3, &a->argv, &a->argc);
	}
	sqlite3_finalize(st);
	rc = db_prepare(db, &st, "SELECT arm_idx, key, value FROM arm_settings"
			" WHERE experiment_id = ?1 ORDER BY arm_idx, key", cause);
	if (rc)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int a = sqlite3_column_int(st, 0);
		if (a >= 0 && (size_t)a < out->narms)
			kv_push(&out->arms[a].settings, &out->arms[a].nsettings, st, 1, 2);
	}
	sqlite3_finalize(st);
	rc = load_runs(db, out, cause);
	if (rc)
		goto fail;
	return 0;
fail:
	db_experiment_release(out);
	return rc;
}

static void kv_free(struct db_kv *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
}

void db_experiment_release(struct db_experiment *e)
{
	if (!e)
		return;
	free(e->hostname);
	free(e->cpu_model);
	free(e->started);
	free(e->finished);
	free(e->status);
	free(e->note);
	free(e->order);
	kv_free(e->settings, e->nsettings);
	for (size_t a = 0; a < e->narms; a++) {
		free(e->arms[a].name);
		free(e->arms[a].command);
		for (int i = 0; e->arms[a].argv && i < e->arms[a].argc; i++)
			free(e->arms[a].argv[i]);
		free(e->arms[a].argv);
		kv_free(e->arms[a].settings, e->arms[a].nsettings);
	}
	free(e->arms);
	for (size_t i = 0; i < e->nruns; i++) {
		struct db_exp_run *r = &e->runs[i];
		for (size_t k = 0; k < r->nevents; k++)
			free(r->ev_names[k]);
		free(r->ev_names);
		free(r->ev_supported);
		free(r->ev_values);
		for (size_t k = 0; k < r->nscores; k++)
			free(r->scores[k].name);
		free(r->scores);
		free(r->pin_mode);
		free(r->pin_status);
		free(r->pin_cpus);
	}
	free(e->runs);
	memset(e, 0, sizeof(*e));
}

int64_t db_experiment_latest_aa(struct db *db, int64_t host_id,
				const char *command, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st, "SELECT max(e.id) FROM experiments e JOIN arms a"
			    " ON a.experiment_id = e.id AND a.idx = 0 WHERE e.aa = 1"
			    " AND e.status = 'complete' AND e.host_id = ?1"
			    " AND a.command = ?2", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, host_id);
	db_bind_text(st, 2, command);
	int s = sqlite3_step(st);
	int64_t id = s == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (s != SQLITE_ROW)
		return db_fail(db, s, "cannot read", cause);
	return id;
}

int db_experiments_list(struct db *db, struct db_experiment_summary **out,
			size_t *n, char **cause)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st,
		"SELECT e.id, e.started, e.status, e.aa, e.rounds,"
		" (SELECT count(*) FROM arms a WHERE a.experiment_id = e.id),"
		" (SELECT count(*) FROM experiment_runs x WHERE x.experiment_id = e.id),"
		" (SELECT group_concat(name, ', ') FROM (SELECT name FROM arms a"
		"   WHERE a.experiment_id = e.id ORDER BY idx))"
		" FROM experiments e ORDER BY e.id", cause);
	if (rc)
		return rc;
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_experiment_summary *p = realloc(*out, (*n + 1) * sizeof(*p));
		if (!p)
			abort();
		*out = p;
		struct db_experiment_summary *x = &p[(*n)++];
		x->id = sqlite3_column_int64(st, 0);
		x->started = db_col_text(st, 1);
		x->status = db_col_text(st, 2);
		x->aa = sqlite3_column_int(st, 3);
		x->rounds = sqlite3_column_int(st, 4);
		x->narms = (size_t)sqlite3_column_int64(st, 5);
		x->nruns = (size_t)sqlite3_column_int64(st, 6);
		x->arms = db_col_text(st, 7);
	}
	sqlite3_finalize(st);
	if (s != SQLITE_DONE)
		return db_fail(db, s, "cannot list the experiments in", cause);
	return 0;
}

void db_experiments_list_free(struct db_experiment_summary *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].started);
		free(v[i].status);
		free(v[i].arms);
	}
	free(v);
}
