/*
 * sleep (db): store and load a `prof sleep` run: its runs row, the facts
 * of sleep_runs, and the cells of sleep_cells.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"
#include "db/sleep.h"

/* Required text into a fixed buffer, which it must fit. */
static void row_copy(struct db_row *r, int col, char *buf, size_t len)
{
	char *s = db_row_text(r, col, 0);
	if (!r->rc && strlen(s) >= len)
		db_row_bad(r, col, "'%.40s' is longer than the %zu bytes prof writes",
			   s, len - 1);
	snprintf(buf, len, "%s", s);
	free(s);
}

static void bind_opt_i64(sqlite3_stmt *st, int idx, int64_t v, bool present)
{
	if (present)
		sqlite3_bind_int64(st, idx, v);
	else
		sqlite3_bind_null(st, idx);
}

static int store_body(struct db *db, struct db_run *run,
		      const struct db_sleep *s, char **cause)
{
	int rc = db_run_store_body(db, run, cause);
	if (rc)
		return rc;

	sqlite3_stmt *st;
	rc = db_prepare(db, &st,
		"INSERT INTO sleep_runs (run_id, timer_slack_ns, sched_policy,"
		" clocksource, pattern, calls, threads, load_threads,"
		" hybrid_margin_ns, hybrid_calibrated, calibration_p999_ns,"
		" calibration_guard_ns, cheap_p99_us)"
		" VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run->id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)s->timer_slack_ns);
	db_bind_text(st, 3, s->sched_policy);
	db_bind_text(st, 4, s->clocksource);
	db_bind_text(st, 5, s->pattern);
	sqlite3_bind_int64(st, 6, s->calls);
	sqlite3_bind_int64(st, 7, s->threads);
	sqlite3_bind_int64(st, 8, s->load);
	bind_opt_i64(st, 9, s->hybrid_margin_ns, s->hybrid_margin_ns >= 0);
	sqlite3_bind_int(st, 10, s->hybrid_calibrated);
	bind_opt_i64(st, 11, s->calibration_p999_ns, s->hybrid_calibrated);
	bind_opt_i64(st, 12, s->calibration_guard_ns, s->hybrid_calibrated);
	sqlite3_bind_double(st, 13, s->cheap_p99_us);
	int step = sqlite3_step(st);
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return db_fail(db, step, "cannot store the sleep benchmark in",
			       cause);

	rc = db_prepare(db, &st,
		"INSERT INTO sleep_cells (run_id, idx, mode, margin_ns, target_us,"
		" calls, p50_ns, p90_ns, p99_ns, p999_ns, max_ns, min_ns, mean_ns,"
		" early, lt3, lt10, lt25, lt50, ge50, missed, wall_s, cpu_s,"
		" cpu_pct, cpu_us_per_call, vcsw_per_call, ivcsw_per_call,"
		" cheapest) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,"
		" ?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25,?26,?27)", cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < s->ncells; i++) {
		const struct db_sleep_cell *c = &s->cells[i];
		int k = 1;
		sqlite3_bind_int64(st, k++, run->id);
		sqlite3_bind_int64(st, k++, (sqlite3_int64)i);
		db_bind_text(st, k++, c->mode);
		bind_opt_i64(st, k++, c->margin_ns, c->margin_ns >= 0);
		sqlite3_bind_int64(st, k++, c->target_us);
		sqlite3_bind_int64(st, k++, (sqlite3_int64)c->calls);
		sqlite3_bind_int64(st, k++, c->p50_ns);
		sqlite3_bind_int64(st, k++, c->p90_ns);
		sqlite3_bind_int64(st, k++, c->p99_ns);
		sqlite3_bind_int64(st, k++, c->p999_ns);
		sqlite3_bind_int64(st, k++, c->max_ns);
		sqlite3_bind_int64(st, k++, c->min_ns);
		sqlite3_bind_double(st, k++, c->mean_ns);
		sqlite3_bind_int64(st, k++, (sqlite3_int64)c->early);
		for (int b = 0; b < DB_SLEEP_NBUCKETS; b++)
			sqlite3_bind_int64(st, k++, (sqlite3_int64)c->buckets[b]);
		sqlite3_bind_int64(st, k++, (sqlite3_int64)c->missed);
		sqlite3_bind_double(st, k++, c->wall_s);
		sqlite3_bind_double(st, k++, c->cpu_s);
		sqlite3_bind_double(st, k++, c->cpu_pct);
		sqlite3_bind_double(st, k++, c->cpu_us_per_call);
		sqlite3_bind_double(st, k++, c->vcsw_per_call);
		sqlite3_bind_double(st, k++, c->ivcsw_per_call);
		sqlite3_bind_int(st, k++, c->cheapest);
		step = sqlite3_step(st);
		sqlite3_reset(st);
		if (step != SQLITE_DONE) {
			sqlite3_finalize(st);
			return db_fail(db, step, "cannot store the sleep cells in",
				       cause);
		}
	}
	sqlite3_finalize(st);
	return 0;
}

int db_sleep_store(struct db *db, struct db_run *run, const struct db_sleep *s,
		   char **cause)
{
	int rc = db_begin(db, cause);
	if (rc)
		return rc;
	rc = store_body(db, run, s, cause);
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

/* A cell of the benchmark; the buckets in enum db_sleep_bucket order. */
#define CELL_COLS(X) \
	X(CC_MODE, "mode") \
	X(CC_MARGIN, "margin_ns") \
	X(CC_TARGET, "target_us") \
	X(CC_CALLS, "calls") \
	X(CC_P50, "p50_ns") \
	X(CC_P90, "p90_ns") \
	X(CC_P99, "p99_ns") \
	X(CC_P999, "p999_ns") \
	X(CC_MAX, "max_ns") \
	X(CC_MIN, "min_ns") \
	X(CC_MEAN, "mean_ns") \
	X(CC_EARLY, "early") \
	X(CC_LT3, "lt3") \
	X(CC_LT10, "lt10") \
	X(CC_LT25, "lt25") \
	X(CC_LT50, "lt50") \
	X(CC_GE50, "ge50") \
	X(CC_MISSED, "missed") \
	X(CC_WALL, "wall_s") \
	X(CC_CPU_S, "cpu_s") \
	X(CC_CPU_PCT, "cpu_pct") \
	X(CC_CPU_US, "cpu_us_per_call") \
	X(CC_VCSW, "vcsw_per_call") \
	X(CC_IVCSW, "ivcsw_per_call") \
	X(CC_CHEAPEST, "cheapest") \
	X(CC_IDX, "idx")
enum { CELL_COLS(DB_COL_ENUM) CC_N };
static const char *const cell_cols[] = { CELL_COLS(DB_COL_SQL) };

static int load_cells(struct db *db, int64_t run_id, struct db_sleep *out,
		      char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare_select(db, &st, cell_cols, CC_N,
		"FROM sleep_cells WHERE run_id = ?1 ORDER BY idx", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	size_t cap = 0;
	int step;
	struct db_row r;
	db_row_init(&r, db, st, "sleep_cells");
	while (!r.rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (out->ncells == cap) {
			cap = cap ? cap * 2 : 64;
			struct db_sleep_cell *p = realloc(out->cells,
							  cap * sizeof(*p));
			if (!p) {
				sqlite3_finalize(st);
				return -ENOMEM;
			}
			out->cells = p;
		}
		db_row_key(&r, "(run %lld, idx %lld)", (long long)run_id,
			   (long long)sqlite3_column_int64(st, CC_IDX));
		struct db_sleep_cell *c = &out->cells[out->ncells++];
		memset(c, 0, sizeof(*c));
		row_copy(&r, CC_MODE, c->mode, sizeof(c->mode));
		c->margin_ns = db_row_int(&r, CC_MARGIN, 0, INT64_MAX, -1, DB_NULL_OK);
		c->target_us = (uint32_t)db_row_int(&r, CC_TARGET, 0, UINT32_MAX, 0, 0);
		c->calls = db_row_u64(&r, CC_CALLS, 0);
		c->p50_ns = db_row_int(&r, CC_P50, INT64_MIN, INT64_MAX, 0, 0);
		c->p90_ns = db_row_int(&r, CC_P90, INT64_MIN, INT64_MAX, 0, 0);
		c->p99_ns = db_row_int(&r, CC_P99, INT64_MIN, INT64_MAX, 0, 0);
		c->p999_ns = db_row_int(&r, CC_P999, INT64_MIN, INT64_MAX, 0, 0);
		c->max_ns = db_row_int(&r, CC_MAX, INT64_MIN, INT64_MAX, 0, 0);
		c->min_ns = db_row_int(&r, CC_MIN, INT64_MIN, INT64_MAX, 0, 0);
		c->mean_ns = db_row_real(&r, CC_MEAN, -1e300, 1e300, 0, 0);
		c->early = db_row_u64(&r, CC_EARLY, 0);
		for (int b = 0; b < DB_SLEEP_NBUCKETS; b++)
			c->buckets[b] = db_row_u64(&r, CC_LT3 + b, 0);
		c->missed = db_row_u64(&r, CC_MISSED, 0);
		c->wall_s = db_row_real(&r, CC_WALL, 0, DB_SECONDS_MAX, 0, 0);
		c->cpu_s = db_row_real(&r, CC_CPU_S, 0, DB_SECONDS_MAX, 0, 0);
		c->cpu_pct = db_row_real(&r, CC_CPU_PCT, 0, 1e300, 0, 0);
		c->cpu_us_per_call = db_row_real(&r, CC_CPU_US, 0, 1e300, 0, 0);
		c->vcsw_per_call = db_row_real(&r, CC_VCSW, 0, 1e300, 0, 0);
		c->ivcsw_per_call = db_row_real(&r, CC_IVCSW, 0, 1e300, 0, 0);
		c->cheapest = db_row_bool(&r, CC_CHEAPEST, 0);
	}
	sqlite3_finalize(st);
	if (r.rc)
		return db_row_fail(&r, cause);
	if (step != SQLITE_DONE)
		return db_fail(db, step, "cannot read the sleep cells in", cause);
	return 0;
}

#define BENCH_COLS(X) \
	X(BC_SLACK, "timer_slack_ns") \
	X(BC_POLICY, "sched_policy") \
	X(BC_CLOCKSOURCE, "clocksource") \
	X(BC_PATTERN, "pattern") \
	X(BC_CALLS, "calls") \
	X(BC_THREADS, "threads") \
	X(BC_LOAD, "load_threads") \
	X(BC_MARGIN, "hybrid_margin_ns") \
	X(BC_CALIBRATED, "hybrid_calibrated") \
	X(BC_P999, "calibration_p999_ns") \
	X(BC_GUARD, "calibration_guard_ns") \
	X(BC_CHEAP_P99, "cheap_p99_us")
enum { BENCH_COLS(DB_COL_ENUM) BC_N };
static const char *const bench_cols[] = { BENCH_COLS(DB_COL_SQL) };

int db_sleep_load(struct db *db, int64_t run_id, struct db_sleep *out,
		  char **cause)
{
	memset(out, 0, sizeof(*out));
	out->hybrid_margin_ns = -1;
	sqlite3_stmt *st;
	int rc = db_prepare_select(db, &st, bench_cols, BC_N,
		"FROM sleep_runs WHERE run_id = ?1", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	int step = sqlite3_step(st);
	if (step != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (step == SQLITE_DONE) {
			if (cause && asprintf(cause, "run %lld in '%s' holds no "
					      "sleep benchmark", (long long)run_id,
					      db_path(db)) < 0)
				*cause = NULL;
			return -ENOENT;
		}
		return db_fail(db, step, "cannot read", cause);
	}
	struct db_row r;
	db_row_init(&r, db, st, "sleep_runs");
	db_row_key(&r, "%lld", (long long)run_id);
	out->timer_slack_ns = db_row_u64(&r, BC_SLACK, 0);
	row_copy(&r, BC_POLICY, out->sched_policy, sizeof(out->sched_policy));
	row_copy(&r, BC_CLOCKSOURCE, out->clocksource, sizeof(out->clocksource));
	row_copy(&r, BC_PATTERN, out->pattern, sizeof(out->pattern));
	out->calls = (uint32_t)db_row_int(&r, BC_CALLS, 0, UINT32_MAX, 0, 0);
	out->threads = (uint32_t)db_row_int(&r, BC_THREADS, 0, UINT32_MAX, 0, 0);
	out->load = (uint32_t)db_row_int(&r, BC_LOAD, 0, UINT32_MAX, 0, 0);
	out->hybrid_margin_ns = db_row_int(&r, BC_MARGIN, 0, INT64_MAX, -1, DB_NULL_OK);
	out->hybrid_calibrated = db_row_bool(&r, BC_CALIBRATED, 0);
	out->calibration_p999_ns = db_row_int(&r, BC_P999, INT64_MIN, INT64_MAX, 0,
					      DB_NULL_OK);
	out->calibration_guard_ns = db_row_int(&r, BC_GUARD, INT64_MIN, INT64_MAX, 0,
					       DB_NULL_OK);
	out->cheap_p99_us = db_row_real(&r, BC_CHEAP_P99, 0, 1e300, 0, 0);
	sqlite3_finalize(st);
	if (r.rc)
		return db_row_fail(&r, cause);

	rc = load_cells(db, run_id, out, cause);
	if (rc)
		db_sleep_release(out);
	return rc;
}

void db_sleep_release(struct db_sleep *s)
{
	if (!s)
		return;
	free(s->cells);
	s->cells = NULL;
	s->ncells = 0;
}

/* ---- the interposer's report of a --sleep-mode run ---- */

void db_sleep_usage_free(struct db_sleep_usage *u)
{
	if (!u)
		return;
	free(u->mode);
	free(u->status);
	free(u->error);
	for (size_t i = 0; i < u->nthreads; i++) {
		free(u->threads[i].name);
		free(u->threads[i].req_hist);
	}
	free(u->threads);
	free(u);
}

int db_sleep_usage_store(struct db *db, int64_t run_id,
			 const struct db_sleep_usage *u, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st, "INSERT INTO sleep_usage (run_id, mode,"
			    " threshold_us, max_spinners, status, processes, error)"
			    " VALUES (?1,?2,?3,?4,?5,?6,?7)", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	db_bind_text(st, 2, u->mode ? u->mode : "?");
	sqlite3_bind_int64(st, 3, (sqlite3_int64)u->threshold_us);
	sqlite3_bind_int64(st, 4, u->max_spinners);
	db_bind_text(st, 5, u->status ? u->status : "?");
	sqlite3_bind_int64(st, 6, u->processes);
	db_bind_text(st, 7, u->error);
	int s = sqlite3_step(st);
	sqlite3_finalize(st);
	if (s != SQLITE_DONE)
		return db_fail(db, s, "cannot store the sleep report in", cause);
	rc = db_prepare(db, &st, "INSERT INTO sleep_threads (run_id, seq, tid, pid,"
			" name, served, passed, eintr, early, throttled, p50_ns, p90_ns,"
			" p99_ns, p999_ns, max_ns, mean_ns, req_hist) VALUES (?1,?2,?3,"
			"?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)", cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < u->nthreads && !rc; i++) {
		const struct db_sleep_thread *t = &u->threads[i];
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		sqlite3_bind_int(st, 3, t->tid);
		sqlite3_bind_int64(st, 4, t->pid);
		db_bind_text(st, 5, t->name);
		sqlite3_bind_int64(st, 6, (sqlite3_int64)t->served);
		sqlite3_bind_int64(st, 7, (sqlite3_int64)t->passed);
		sqlite3_bind_int64(st, 8, (sqlite3_int64)t->eintr);
		sqlite3_bind_int64(st, 9, (sqlite3_int64)t->early);
		sqlite3_bind_int64(st, 10, (sqlite3_int64)t->throttled);
		sqlite3_bind_int64(st, 11, (sqlite3_int64)t->p50_ns);
		sqlite3_bind_int64(st, 12, (sqlite3_int64)t->p90_ns);
		sqlite3_bind_int64(st, 13, (sqlite3_int64)t->p99_ns);
		sqlite3_bind_int64(st, 14, (sqlite3_int64)t->p999_ns);
		sqlite3_bind_int64(st, 15, (sqlite3_int64)t->max_ns);
		sqlite3_bind_double(st, 16, t->mean_ns);
		db_bind_text(st, 17, t->req_hist);
		s = sqlite3_step(st);
		sqlite3_reset(st);
		if (s != SQLITE_DONE)
			rc = db_fail(db, s, "cannot store the sleep report in", cause);
	}
	sqlite3_finalize(st);
	return rc;
}

#define USAGE_COLS(X) \
	X(UC_MODE, "mode") \
	X(UC_THRESHOLD, "threshold_us") \
	X(UC_SPINNERS, "max_spinners") \
	X(UC_STATUS, "status") \
	X(UC_PROCESSES, "processes") \
	X(UC_ERROR, "error")
enum { USAGE_COLS(DB_COL_ENUM) UC_N };
static const char *const usage_cols[] = { USAGE_COLS(DB_COL_SQL) };

#define THREAD_COLS(X) \
	X(TC_TID, "tid") \
	X(TC_PID, "pid") \
	X(TC_NAME, "name") \
	X(TC_SERVED, "served") \
	X(TC_PASSED, "passed") \
	X(TC_EINTR, "eintr") \
	X(TC_EARLY, "early") \
	X(TC_THROTTLED, "throttled") \
	X(TC_P50, "p50_ns") \
	X(TC_P90, "p90_ns") \
	X(TC_P99, "p99_ns") \
	X(TC_P999, "p999_ns") \
	X(TC_MAX, "max_ns") \
	X(TC_MEAN, "mean_ns") \
	X(TC_REQ_HIST, "req_hist") \
	X(TC_SEQ, "seq")
enum { THREAD_COLS(DB_COL_ENUM) TC_N };
static const char *const thread_cols[] = { THREAD_COLS(DB_COL_SQL) };

int db_sleep_usage_load(struct db *db, int64_t run_id,
			struct db_sleep_usage **out, char **cause)
{
	*out = NULL;
	sqlite3_stmt *st;
	int rc = db_prepare_select(db, &st, usage_cols, UC_N,
				   "FROM sleep_usage WHERE run_id = ?1", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	int s = sqlite3_step(st);
	if (s != SQLITE_ROW) {
		sqlite3_finalize(st);
		return s == SQLITE_DONE ? 0 : db_fail(db, s, "cannot read", cause);
	}
	struct db_sleep_usage *u = calloc(1, sizeof(*u));
	if (!u) {
		sqlite3_finalize(st);
		return -ENOMEM;
	}
	struct db_row r;
	db_row_init(&r, db, st, "sleep_usage");
	db_row_key(&r, "%lld", (long long)run_id);
	u->mode = db_row_text(&r, UC_MODE, 0);
	u->threshold_us = db_row_u64(&r, UC_THRESHOLD, 0);
	u->max_spinners = (uint32_t)db_row_int(&r, UC_SPINNERS, 0, UINT32_MAX, 0, 0);
	u->status = db_row_text(&r, UC_STATUS, DB_LONG);
	u->processes = (uint32_t)db_row_int(&r, UC_PROCESSES, 0, UINT32_MAX, 0, 0);
	u->error = db_row_text(&r, UC_ERROR, DB_NULL_OK | DB_LONG);
	sqlite3_finalize(st);
	if (r.rc) {
		db_sleep_usage_free(u);
		return db_row_fail(&r, cause);
	}
	rc = db_prepare_select(db, &st, thread_cols, TC_N,
			       "FROM sleep_threads WHERE run_id = ?1 ORDER BY seq", cause);
	if (rc) {
		db_sleep_usage_free(u);
		return rc;
	}
	sqlite3_bind_int64(st, 1, run_id);
	db_row_init(&r, db, st, "sleep_threads");
	while (!r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_sleep_thread *v = realloc(u->threads, (u->nthreads + 1) * sizeof(*v));
		if (!v)
			abort();
		u->threads = v;
		struct db_sleep_thread *t = &v[u->nthreads++];
		memset(t, 0, sizeof(*t));
		db_row_key(&r, "(run %lld, seq %lld)", (long long)run_id,
			   (long long)sqlite3_column_int64(st, TC_SEQ));
		t->tid = (int32_t)db_row_int(&r, TC_TID, INT32_MIN, INT32_MAX, 0, 0);
		t->pid = (uint32_t)db_row_int(&r, TC_PID, 0, UINT32_MAX, 0, 0);
		t->name = db_row_text(&r, TC_NAME, DB_NULL_OK);
		t->served = db_row_u64(&r, TC_SERVED, 0);
		t->passed = db_row_u64(&r, TC_PASSED, 0);
		t->eintr = db_row_u64(&r, TC_EINTR, 0);
		t->early = db_row_u64(&r, TC_EARLY, 0);
		t->throttled = db_row_u64(&r, TC_THROTTLED, 0);
		t->p50_ns = db_row_u64(&r, TC_P50, DB_NULL_OK);
		t->p90_ns = db_row_u64(&r, TC_P90, DB_NULL_OK);
		t->p99_ns = db_row_u64(&r, TC_P99, DB_NULL_OK);
		t->p999_ns = db_row_u64(&r, TC_P999, DB_NULL_OK);
		t->max_ns = db_row_u64(&r, TC_MAX, DB_NULL_OK);
		t->mean_ns = db_row_real(&r, TC_MEAN, -1e300, 1e300, 0, DB_NULL_OK);
		t->req_hist = db_row_text(&r, TC_REQ_HIST, DB_NULL_OK | DB_LONG);
	}
	sqlite3_finalize(st);
	if (r.rc || s != SQLITE_DONE) {
		db_sleep_usage_free(u);
		return r.rc ? db_row_fail(&r, cause)
		       : db_fail(db, s, "cannot read the sleep report in", cause);
	}
	*out = u;
	return 0;
}
