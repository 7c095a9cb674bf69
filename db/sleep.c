/*
 * sleep (db): store and load a `prof sleep` run: its runs row, the facts
 * of sleep_runs, and the cells of sleep_cells.
 */
#include <errno.h>
#include <math.h>
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
	snprintf(buf, len, "%s", s ? s : "");
	free(s);
}

#define SLEEP_RUN_INS(X) \
	X(SRI_RUN_ID, "run_id") \
	X(SRI_TIMER_SLACK_NS, "timer_slack_ns") \
	X(SRI_SCHED_POLICY, "sched_policy") \
	X(SRI_CLOCKSOURCE, "clocksource") \
	X(SRI_PATTERN, "pattern") \
	X(SRI_CALLS, "calls") \
	X(SRI_THREADS, "threads") \
	X(SRI_LOAD_THREADS, "load_threads") \
	X(SRI_HYBRID_MARGIN_NS, "hybrid_margin_ns") \
	X(SRI_HYBRID_CALIBRATED, "hybrid_calibrated") \
	X(SRI_CALIBRATION_P999_NS, "calibration_p999_ns") \
	X(SRI_CALIBRATION_GUARD_NS, "calibration_guard_ns") \
	X(SRI_CHEAP_P99_US, "cheap_p99_us")
enum { SLEEP_RUN_INS(DB_COL_ENUM) SRI_N };
static const char *const sleep_run_ins[] = { SLEEP_RUN_INS(DB_COL_SQL) };

#define SLEEP_CELL_INS(X) \
	X(SCI_RUN_ID, "run_id") \
	X(SCI_IDX, "idx") \
	X(SCI_MODE, "mode") \
	X(SCI_MARGIN_NS, "margin_ns") \
	X(SCI_TARGET_US, "target_us") \
	X(SCI_CALLS, "calls") \
	X(SCI_P50_NS, "p50_ns") \
	X(SCI_P90_NS, "p90_ns") \
	X(SCI_P99_NS, "p99_ns") \
	X(SCI_P999_NS, "p999_ns") \
	X(SCI_MAX_NS, "max_ns") \
	X(SCI_MIN_NS, "min_ns") \
	X(SCI_MEAN_NS, "mean_ns") \
	X(SCI_EARLY, "early") \
	X(SCI_LT3, "lt3") \
	X(SCI_LT10, "lt10") \
	X(SCI_LT25, "lt25") \
	X(SCI_LT50, "lt50") \
	X(SCI_GE50, "ge50") \
	X(SCI_MISSED, "missed") \
	X(SCI_WALL_S, "wall_s") \
	X(SCI_CPU_S, "cpu_s") \
	X(SCI_CPU_PCT, "cpu_pct") \
	X(SCI_CPU_US_PER_CALL, "cpu_us_per_call") \
	X(SCI_VCSW_PER_CALL, "vcsw_per_call") \
	X(SCI_IVCSW_PER_CALL, "ivcsw_per_call") \
	X(SCI_CHEAPEST, "cheapest") \
	X(SCI_USER_US, "user_us_per_call") \
	X(SCI_SYS_US, "sys_us_per_call")
enum { SLEEP_CELL_INS(DB_COL_ENUM) SCI_N };
static const char *const sleep_cell_ins[] = { SLEEP_CELL_INS(DB_COL_SQL) };
_Static_assert(SCI_GE50 - SCI_LT3 + 1 == DB_SLEEP_NBUCKETS,
	       "the bucket columns follow the buckets");

static int store_body(struct db *db, struct db_run *run,
		      const struct db_sleep *s, char **cause)
{
	int rc = db_run_store_body(db, run, cause);
	if (rc)
		return rc;

	sqlite3_stmt *st;
	rc = db_prepare_insert(db, &st, "sleep_runs", sleep_run_ins, SRI_N, cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, DB_PARAM(SRI_RUN_ID), run->id);
	sqlite3_bind_int64(st, DB_PARAM(SRI_TIMER_SLACK_NS),
			   (sqlite3_int64)s->timer_slack_ns);
	db_bind_text(st, DB_PARAM(SRI_SCHED_POLICY), s->sched_policy);
	db_bind_text(st, DB_PARAM(SRI_CLOCKSOURCE), s->clocksource);
	db_bind_text(st, DB_PARAM(SRI_PATTERN), s->pattern);
	sqlite3_bind_int64(st, DB_PARAM(SRI_CALLS), s->calls);
	sqlite3_bind_int64(st, DB_PARAM(SRI_THREADS), s->threads);
	sqlite3_bind_int64(st, DB_PARAM(SRI_LOAD_THREADS), s->load);
	db_bind_int_or_null(st, DB_PARAM(SRI_HYBRID_MARGIN_NS),
			    s->hybrid_margin_ns >= 0, s->hybrid_margin_ns);
	sqlite3_bind_int(st, DB_PARAM(SRI_HYBRID_CALIBRATED), s->hybrid_calibrated);
	db_bind_int_or_null(st, DB_PARAM(SRI_CALIBRATION_P999_NS),
			    s->hybrid_calibrated, s->calibration_p999_ns);
	db_bind_int_or_null(st, DB_PARAM(SRI_CALIBRATION_GUARD_NS),
			    s->hybrid_calibrated, s->calibration_guard_ns);
	sqlite3_bind_double(st, DB_PARAM(SRI_CHEAP_P99_US), s->cheap_p99_us);
	int step = sqlite3_step(st);
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return db_fail(db, step, "cannot store the sleep benchmark in",
			       cause);

	rc = db_prepare_insert(db, &st, "sleep_cells", sleep_cell_ins, SCI_N, cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < s->ncells; i++) {
		const struct db_sleep_cell *c = &s->cells[i];
		sqlite3_bind_int64(st, DB_PARAM(SCI_RUN_ID), run->id);
		sqlite3_bind_int64(st, DB_PARAM(SCI_IDX), (sqlite3_int64)i);
		db_bind_text(st, DB_PARAM(SCI_MODE), c->mode);
		db_bind_int_or_null(st, DB_PARAM(SCI_MARGIN_NS), c->margin_ns >= 0,
				    c->margin_ns);
		sqlite3_bind_int64(st, DB_PARAM(SCI_TARGET_US), c->target_us);
		sqlite3_bind_int64(st, DB_PARAM(SCI_CALLS), (sqlite3_int64)c->calls);
		sqlite3_bind_int64(st, DB_PARAM(SCI_P50_NS), c->p50_ns);
		sqlite3_bind_int64(st, DB_PARAM(SCI_P90_NS), c->p90_ns);
		sqlite3_bind_int64(st, DB_PARAM(SCI_P99_NS), c->p99_ns);
		sqlite3_bind_int64(st, DB_PARAM(SCI_P999_NS), c->p999_ns);
		sqlite3_bind_int64(st, DB_PARAM(SCI_MAX_NS), c->max_ns);
		sqlite3_bind_int64(st, DB_PARAM(SCI_MIN_NS), c->min_ns);
		sqlite3_bind_double(st, DB_PARAM(SCI_MEAN_NS), c->mean_ns);
		sqlite3_bind_int64(st, DB_PARAM(SCI_EARLY), (sqlite3_int64)c->early);
		/* The buckets' columns are consecutive, lt3 first. */
		for (int b = 0; b < DB_SLEEP_NBUCKETS; b++)
			sqlite3_bind_int64(st, DB_PARAM(SCI_LT3 + b),
					   (sqlite3_int64)c->buckets[b]);
		sqlite3_bind_int64(st, DB_PARAM(SCI_MISSED), (sqlite3_int64)c->missed);
		sqlite3_bind_double(st, DB_PARAM(SCI_WALL_S), c->wall_s);
		sqlite3_bind_double(st, DB_PARAM(SCI_CPU_S), c->cpu_s);
		sqlite3_bind_double(st, DB_PARAM(SCI_CPU_PCT), c->cpu_pct);
		sqlite3_bind_double(st, DB_PARAM(SCI_CPU_US_PER_CALL),
				    c->cpu_us_per_call);
		db_bind_real_or_null(st, DB_PARAM(SCI_USER_US), isfinite(c->user_us_per_call),
				     c->user_us_per_call);
		db_bind_real_or_null(st, DB_PARAM(SCI_SYS_US), isfinite(c->sys_us_per_call),
				     c->sys_us_per_call);
		sqlite3_bind_double(st, DB_PARAM(SCI_VCSW_PER_CALL), c->vcsw_per_call);
		sqlite3_bind_double(st, DB_PARAM(SCI_IVCSW_PER_CALL),
				    c->ivcsw_per_call);
		sqlite3_bind_int(st, DB_PARAM(SCI_CHEAPEST), c->cheapest);
		rc = db_insert_step(db, st, "cannot store the sleep cells in", cause);
		if (rc)
			return rc;
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
	X(CC_IDX, "idx") \
	X(CC_USER_US, "user_us_per_call") \
	X(CC_SYS_US, "sys_us_per_call")
enum { CELL_COLS(DB_COL_ENUM) CC_N };
static const char *const cell_cols[] = { CELL_COLS(DB_COL_SQL) };

static int cell_row(struct db_row *r, struct db_load *l)
{
	struct db_sleep *out = l->out;
	if (db_grow((void **)&out->cells, &l->cap, out->ncells, sizeof(*out->cells)))
		return -ENOMEM;
	db_row_key(r, "(run %lld, idx %lld)", (long long)l->run_id,
		   (long long)sqlite3_column_int64(r->st, CC_IDX));
	struct db_sleep_cell *c = &out->cells[out->ncells++];
	row_copy(r, CC_MODE, c->mode, sizeof(c->mode));
	c->margin_ns = db_row_int(r, CC_MARGIN, 0, INT64_MAX, -1, DB_NULL_OK);
	c->target_us = (uint32_t)db_row_int(r, CC_TARGET, 0, UINT32_MAX, 0, 0);
	c->calls = db_row_u64(r, CC_CALLS, 0);
	c->p50_ns = db_row_int(r, CC_P50, INT64_MIN, INT64_MAX, 0, 0);
	c->p90_ns = db_row_int(r, CC_P90, INT64_MIN, INT64_MAX, 0, 0);
	c->p99_ns = db_row_int(r, CC_P99, INT64_MIN, INT64_MAX, 0, 0);
	c->p999_ns = db_row_int(r, CC_P999, INT64_MIN, INT64_MAX, 0, 0);
	c->max_ns = db_row_int(r, CC_MAX, INT64_MIN, INT64_MAX, 0, 0);
	c->min_ns = db_row_int(r, CC_MIN, INT64_MIN, INT64_MAX, 0, 0);
	c->mean_ns = db_row_real(r, CC_MEAN, -1e300, 1e300, 0, 0);
	c->early = db_row_u64(r, CC_EARLY, 0);
	for (int b = 0; b < DB_SLEEP_NBUCKETS; b++)
		c->buckets[b] = db_row_u64(r, CC_LT3 + b, 0);
	c->missed = db_row_u64(r, CC_MISSED, 0);
	c->wall_s = db_row_real(r, CC_WALL, 0, DB_SECONDS_MAX, 0, 0);
	c->cpu_s = db_row_real(r, CC_CPU_S, 0, DB_SECONDS_MAX, 0, 0);
	c->cpu_pct = db_row_real(r, CC_CPU_PCT, 0, 1e300, 0, 0);
	c->cpu_us_per_call = db_row_real(r, CC_CPU_US, 0, 1e300, 0, 0);
	c->user_us_per_call = db_row_real(r, CC_USER_US, 0, 1e300, NAN,
					  DB_NULL_OK);
	c->sys_us_per_call = db_row_real(r, CC_SYS_US, 0, 1e300, NAN,
					 DB_NULL_OK);
	c->vcsw_per_call = db_row_real(r, CC_VCSW, 0, 1e300, 0, 0);
	c->ivcsw_per_call = db_row_real(r, CC_IVCSW, 0, 1e300, 0, 0);
	c->cheapest = db_row_bool(r, CC_CHEAPEST, 0);
	return 0;
}

static const struct db_select cell_sel = {
	"sleep_cells", cell_cols, CC_N,
	"FROM sleep_cells WHERE run_id = ?1 ORDER BY idx",
	"cannot read the sleep cells in",
};

static int load_cells(struct db *db, int64_t run_id, struct db_sleep *out,
		      char **cause)
{
	struct db_load l = { .run_id = run_id, .out = out };
	return db_select_run(db, &cell_sel, &l, cell_row, cause);
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
	static const struct db_select q = {
		"sleep_runs", bench_cols, BC_N,
		"FROM sleep_runs WHERE run_id = ?1",
		"cannot read",
	};
	struct db_row r;
	int rc = db_select_one(db, &q, run_id, &r, cause);
	if (rc == 1) {
		if (cause && asprintf(cause, "run %lld in '%s' holds no "
				      "sleep benchmark", (long long)run_id,
				      db_path(db)) < 0)
			*cause = NULL;
		return -ENOENT;
	}
	if (rc)
		return rc;
	sqlite3_stmt *st = r.st;
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
	free(u->cv_served_by);
	for (size_t i = 0; i < u->nthreads; i++) {
		free(u->threads[i].name);
		free(u->threads[i].req_hist);
	}
	free(u->threads);
	free(u);
}

#define USAGE_INS(X) \
	X(SUI_RUN_ID, "run_id") \
	X(SUI_MODE, "mode") \
	X(SUI_THRESHOLD_US, "threshold_us") \
	X(SUI_MAX_SPINNERS, "max_spinners") \
	X(SUI_STATUS, "status") \
	X(SUI_PROCESSES, "processes") \
	X(SUI_ERROR, "error") \
	X(SUI_SPINNERS_DEFAULT, "spinners_default") \
	X(SUI_NCPUS, "ncpus") \
	X(SUI_CV_SERVED_BY, "cv_served_by")
enum { USAGE_INS(DB_COL_ENUM) SUI_N };
static const char *const usage_ins[] = { USAGE_INS(DB_COL_SQL) };

#define SLEEP_THREAD_INS(X) \
	X(STI_RUN_ID, "run_id") \
	X(STI_SEQ, "seq") \
	X(STI_TID, "tid") \
	X(STI_PID, "pid") \
	X(STI_NAME, "name") \
	X(STI_SERVED, "served") \
	X(STI_PASSED, "passed") \
	X(STI_EINTR, "eintr") \
	X(STI_EARLY, "early") \
	X(STI_THROTTLED, "throttled") \
	X(STI_P50_NS, "p50_ns") \
	X(STI_P90_NS, "p90_ns") \
	X(STI_P99_NS, "p99_ns") \
	X(STI_P999_NS, "p999_ns") \
	X(STI_MAX_NS, "max_ns") \
	X(STI_MEAN_NS, "mean_ns") \
	X(STI_REQ_HIST, "req_hist") \
	X(STI_FALLBACK, "fallback") \
	X(STI_FALLBACK_ERRNO, "fallback_errno") \
	X(STI_FALLBACK_MAX, "fallback_max_ns") \
	X(STI_FALLBACK_MEAN, "fallback_mean_ns") \
	X(STI_CV_SERVED, "cv_served") \
	X(STI_CV_PASSED, "cv_passed") \
	X(STI_CV_WOKEN, "cv_woken") \
	X(STI_CV_TIMEDOUT, "cv_timedout") \
	X(STI_CV_EARLY, "cv_early") \
	X(STI_CV_P50, "cv_p50_ns") \
	X(STI_CV_P90, "cv_p90_ns") \
	X(STI_CV_P99, "cv_p99_ns") \
	X(STI_CV_P999, "cv_p999_ns") \
	X(STI_CV_MAX, "cv_max_ns") \
	X(STI_CV_MEAN, "cv_mean_ns")
enum { SLEEP_THREAD_INS(DB_COL_ENUM) STI_N };
static const char *const sleep_thread_ins[] = { SLEEP_THREAD_INS(DB_COL_SQL) };

static void bind_cv(sqlite3_stmt *st, const struct db_sleep_thread *t)
{
	const uint64_t v[] = {
		[STI_CV_SERVED - STI_CV_SERVED] = t->cv_served,
		[STI_CV_PASSED - STI_CV_SERVED] = t->cv_passed,
		[STI_CV_WOKEN - STI_CV_SERVED] = t->cv_woken,
		[STI_CV_TIMEDOUT - STI_CV_SERVED] = t->cv_timedout,
		[STI_CV_EARLY - STI_CV_SERVED] = t->cv_early,
		[STI_CV_P50 - STI_CV_SERVED] = t->cv_p50_ns,
		[STI_CV_P90 - STI_CV_SERVED] = t->cv_p90_ns,
		[STI_CV_P99 - STI_CV_SERVED] = t->cv_p99_ns,
		[STI_CV_P999 - STI_CV_SERVED] = t->cv_p999_ns,
		[STI_CV_MAX - STI_CV_SERVED] = t->cv_max_ns,
	};
	for (int k = STI_CV_SERVED; k <= STI_CV_MAX; k++)
		sqlite3_bind_int64(st, DB_PARAM(k),
				   (sqlite3_int64)v[k - STI_CV_SERVED]);
	sqlite3_bind_double(st, DB_PARAM(STI_CV_MEAN), t->cv_mean_ns);
}

int db_sleep_usage_store(struct db *db, int64_t run_id,
			 const struct db_sleep_usage *u, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare_insert(db, &st, "sleep_usage", usage_ins, SUI_N, cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, DB_PARAM(SUI_RUN_ID), run_id);
	db_bind_text(st, DB_PARAM(SUI_MODE), u->mode ? u->mode : "?");
	sqlite3_bind_int64(st, DB_PARAM(SUI_THRESHOLD_US),
			   (sqlite3_int64)u->threshold_us);
	sqlite3_bind_int64(st, DB_PARAM(SUI_MAX_SPINNERS), u->max_spinners);
	db_bind_long(st, DB_PARAM(SUI_STATUS), u->status ? u->status : "?");
	sqlite3_bind_int64(st, DB_PARAM(SUI_PROCESSES), u->processes);
	db_bind_long(st, DB_PARAM(SUI_ERROR), u->error);
	sqlite3_bind_int(st, DB_PARAM(SUI_SPINNERS_DEFAULT), u->spinners_default);
	db_bind_int_or_null(st, DB_PARAM(SUI_NCPUS), u->ncpus != 0, u->ncpus);
	db_bind_text(st, DB_PARAM(SUI_CV_SERVED_BY), u->cv_served_by);
	int s = sqlite3_step(st);
	sqlite3_finalize(st);
	if (s != SQLITE_DONE)
		return db_fail(db, s, "cannot store the sleep report in", cause);
	rc = db_prepare_insert(db, &st, "sleep_threads", sleep_thread_ins, STI_N, cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < u->nthreads && !rc; i++) {
		const struct db_sleep_thread *t = &u->threads[i];
		sqlite3_bind_int64(st, DB_PARAM(STI_RUN_ID), run_id);
		sqlite3_bind_int64(st, DB_PARAM(STI_SEQ), (sqlite3_int64)i);
		sqlite3_bind_int(st, DB_PARAM(STI_TID), t->tid);
		sqlite3_bind_int64(st, DB_PARAM(STI_PID), t->pid);
		db_bind_text(st, DB_PARAM(STI_NAME), t->name);
		sqlite3_bind_int64(st, DB_PARAM(STI_SERVED), (sqlite3_int64)t->served);
		sqlite3_bind_int64(st, DB_PARAM(STI_PASSED), (sqlite3_int64)t->passed);
		sqlite3_bind_int64(st, DB_PARAM(STI_EINTR), (sqlite3_int64)t->eintr);
		sqlite3_bind_int64(st, DB_PARAM(STI_EARLY), (sqlite3_int64)t->early);
		sqlite3_bind_int64(st, DB_PARAM(STI_THROTTLED),
				   (sqlite3_int64)t->throttled);
		sqlite3_bind_int64(st, DB_PARAM(STI_P50_NS), (sqlite3_int64)t->p50_ns);
		sqlite3_bind_int64(st, DB_PARAM(STI_P90_NS), (sqlite3_int64)t->p90_ns);
		sqlite3_bind_int64(st, DB_PARAM(STI_P99_NS), (sqlite3_int64)t->p99_ns);
		sqlite3_bind_int64(st, DB_PARAM(STI_P999_NS),
				   (sqlite3_int64)t->p999_ns);
		sqlite3_bind_int64(st, DB_PARAM(STI_MAX_NS), (sqlite3_int64)t->max_ns);
		sqlite3_bind_double(st, DB_PARAM(STI_MEAN_NS), t->mean_ns);
		db_bind_long(st, DB_PARAM(STI_REQ_HIST), t->req_hist);
		sqlite3_bind_int64(st, DB_PARAM(STI_FALLBACK), (sqlite3_int64)t->fallback);
		bool fb = t->fallback != 0;
		db_bind_int_or_null(st, DB_PARAM(STI_FALLBACK_ERRNO), fb, t->fallback_errno);
		db_bind_int_or_null(st, DB_PARAM(STI_FALLBACK_MAX), fb,
				    (int64_t)t->fallback_max_ns);
		db_bind_real_or_null(st, DB_PARAM(STI_FALLBACK_MEAN), fb,
				     t->fallback_mean_ns);
		bind_cv(st, t);
		rc = db_step_done(db, st, "cannot store the sleep report in", cause);
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
	X(UC_ERROR, "error") \
	X(UC_SPINNERS_DEFAULT, "spinners_default") \
	X(UC_NCPUS, "ncpus") \
	X(UC_CV_SERVED_BY, "cv_served_by")
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
	X(TC_SEQ, "seq") \
	X(TC_FALLBACK, "fallback") \
	X(TC_FALLBACK_ERRNO, "fallback_errno") \
	X(TC_FALLBACK_MAX, "fallback_max_ns") \
	X(TC_FALLBACK_MEAN, "fallback_mean_ns") \
	X(TC_CV_SERVED, "cv_served") \
	X(TC_CV_PASSED, "cv_passed") \
	X(TC_CV_WOKEN, "cv_woken") \
	X(TC_CV_TIMEDOUT, "cv_timedout") \
	X(TC_CV_EARLY, "cv_early") \
	X(TC_CV_P50, "cv_p50_ns") \
	X(TC_CV_P90, "cv_p90_ns") \
	X(TC_CV_P99, "cv_p99_ns") \
	X(TC_CV_P999, "cv_p999_ns") \
	X(TC_CV_MAX, "cv_max_ns") \
	X(TC_CV_MEAN, "cv_mean_ns")
enum { THREAD_COLS(DB_COL_ENUM) TC_N };
static const char *const thread_cols[] = { THREAD_COLS(DB_COL_SQL) };

/* Columns before v18 read 0 (counts) and NULL (the rest). */
static void load_cv(struct db_row *r, struct db_sleep_thread *t)
{
	t->cv_served = db_row_u64(r, TC_CV_SERVED, 0);
	t->cv_passed = db_row_u64(r, TC_CV_PASSED, 0);
	t->cv_woken = db_row_u64(r, TC_CV_WOKEN, 0);
	t->cv_timedout = db_row_u64(r, TC_CV_TIMEDOUT, 0);
	t->cv_early = db_row_u64(r, TC_CV_EARLY, 0);
	t->cv_p50_ns = db_row_u64(r, TC_CV_P50, DB_NULL_OK);
	t->cv_p90_ns = db_row_u64(r, TC_CV_P90, DB_NULL_OK);
	t->cv_p99_ns = db_row_u64(r, TC_CV_P99, DB_NULL_OK);
	t->cv_p999_ns = db_row_u64(r, TC_CV_P999, DB_NULL_OK);
	t->cv_max_ns = db_row_u64(r, TC_CV_MAX, DB_NULL_OK);
	t->cv_mean_ns = db_row_real(r, TC_CV_MEAN, 0, 1e300, 0, DB_NULL_OK);
}

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
	u->spinners_default = db_row_bool(&r, UC_SPINNERS_DEFAULT, 0);
	u->ncpus = (uint32_t)db_row_int(&r, UC_NCPUS, 0, UINT32_MAX, 0, DB_NULL_OK);
	u->cv_served_by = db_row_text(&r, UC_CV_SERVED_BY, DB_NULL_OK);
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
		if (!v) {
			db_row_nomem(&r);
			break;
		}
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
		t->fallback = db_row_u64(&r, TC_FALLBACK, 0);
		t->fallback_errno = (int)db_row_int(&r, TC_FALLBACK_ERRNO, 0, 4095, 0,
						    DB_NULL_OK);
		t->fallback_max_ns = db_row_u64(&r, TC_FALLBACK_MAX, DB_NULL_OK);
		t->fallback_mean_ns = db_row_real(&r, TC_FALLBACK_MEAN, 0, 1e300, 0,
						  DB_NULL_OK);
		load_cv(&r, t);
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
