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

/* Copy a column's text into a fixed buffer (always terminated). */
static void col_copy(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	snprintf(buf, len, "%s", s ? (const char *)s : "");
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

static int load_cells(struct db *db, int64_t run_id, struct db_sleep *out,
		      char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st,
		"SELECT mode, margin_ns, target_us, calls, p50_ns, p90_ns, p99_ns,"
		" p999_ns, max_ns, min_ns, mean_ns, early, lt3, lt10, lt25, lt50,"
		" ge50, missed, wall_s, cpu_s, cpu_pct, cpu_us_per_call,"
		" vcsw_per_call, ivcsw_per_call, cheapest FROM sleep_cells"
		" WHERE run_id = ?1 ORDER BY idx", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	size_t cap = 0;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
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
		struct db_sleep_cell *c = &out->cells[out->ncells++];
		memset(c, 0, sizeof(*c));
		int k = 0;
		col_copy(st, k++, c->mode, sizeof(c->mode));
		c->margin_ns = sqlite3_column_type(st, k) == SQLITE_NULL ? -1
			       : sqlite3_column_int64(st, k);
		k++;
		c->target_us = (uint32_t)sqlite3_column_int64(st, k++);
		c->calls = (uint64_t)sqlite3_column_int64(st, k++);
		c->p50_ns = sqlite3_column_int64(st, k++);
		c->p90_ns = sqlite3_column_int64(st, k++);
		c->p99_ns = sqlite3_column_int64(st, k++);
		c->p999_ns = sqlite3_column_int64(st, k++);
		c->max_ns = sqlite3_column_int64(st, k++);
		c->min_ns = sqlite3_column_int64(st, k++);
		c->mean_ns = sqlite3_column_double(st, k++);
		c->early = (uint64_t)sqlite3_column_int64(st, k++);
		for (int b = 0; b < DB_SLEEP_NBUCKETS; b++)
			c->buckets[b] = (uint64_t)sqlite3_column_int64(st, k++);
		c->missed = (uint64_t)sqlite3_column_int64(st, k++);
		c->wall_s = sqlite3_column_double(st, k++);
		c->cpu_s = sqlite3_column_double(st, k++);
		c->cpu_pct = sqlite3_column_double(st, k++);
		c->cpu_us_per_call = sqlite3_column_double(st, k++);
		c->vcsw_per_call = sqlite3_column_double(st, k++);
		c->ivcsw_per_call = sqlite3_column_double(st, k++);
		c->cheapest = sqlite3_column_int(st, k++);
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return db_fail(db, step, "cannot read the sleep cells in", cause);
	return 0;
}

int db_sleep_load(struct db *db, int64_t run_id, struct db_sleep *out,
		  char **cause)
{
	memset(out, 0, sizeof(*out));
	out->hybrid_margin_ns = -1;
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st,
		"SELECT timer_slack_ns, sched_policy, clocksource, pattern, calls,"
		" threads, load_threads, hybrid_margin_ns, hybrid_calibrated,"
		" calibration_p999_ns, calibration_guard_ns, cheap_p99_us"
		" FROM sleep_runs WHERE run_id = ?1", cause);
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
	out->timer_slack_ns = (uint64_t)sqlite3_column_int64(st, 0);
	col_copy(st, 1, out->sched_policy, sizeof(out->sched_policy));
	col_copy(st, 2, out->clocksource, sizeof(out->clocksource));
	col_copy(st, 3, out->pattern, sizeof(out->pattern));
	out->calls = (uint32_t)sqlite3_column_int64(st, 4);
	out->threads = (uint32_t)sqlite3_column_int64(st, 5);
	out->load = (uint32_t)sqlite3_column_int64(st, 6);
	if (sqlite3_column_type(st, 7) != SQLITE_NULL)
		out->hybrid_margin_ns = sqlite3_column_int64(st, 7);
	out->hybrid_calibrated = sqlite3_column_int(st, 8);
	out->calibration_p999_ns = sqlite3_column_int64(st, 9);
	out->calibration_guard_ns = sqlite3_column_int64(st, 10);
	out->cheap_p99_us = sqlite3_column_double(st, 11);
	sqlite3_finalize(st);

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

int db_sleep_usage_load(struct db *db, int64_t run_id,
			struct db_sleep_usage **out, char **cause)
{
	*out = NULL;
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st, "SELECT mode, threshold_us, max_spinners, status,"
			    " processes, error FROM sleep_usage WHERE run_id = ?1", cause);
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
	u->mode = db_col_text(st, 0);
	u->threshold_us = (uint64_t)sqlite3_column_int64(st, 1);
	u->max_spinners = (uint32_t)sqlite3_column_int64(st, 2);
	u->status = db_col_text(st, 3);
	u->processes = (uint32_t)sqlite3_column_int64(st, 4);
	u->error = db_col_text(st, 5);
	sqlite3_finalize(st);
	rc = db_prepare(db, &st, "SELECT tid, pid, name, served, passed, eintr, early,"
			" throttled, p50_ns, p90_ns, p99_ns, p999_ns, max_ns, mean_ns,"
			" req_hist FROM sleep_threads WHERE run_id = ?1 ORDER BY seq", cause);
	if (rc) {
		db_sleep_usage_free(u);
		return rc;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_sleep_thread *v = realloc(u->threads, (u->nthreads + 1) * sizeof(*v));
		if (!v)
			abort();
		u->threads = v;
		struct db_sleep_thread *t = &v[u->nthreads++];
		memset(t, 0, sizeof(*t));
		t->tid = sqlite3_column_int(st, 0);
		t->pid = (uint32_t)sqlite3_column_int64(st, 1);
		t->name = db_col_text(st, 2);
		t->served = (uint64_t)sqlite3_column_int64(st, 3);
		t->passed = (uint64_t)sqlite3_column_int64(st, 4);
		t->eintr = (uint64_t)sqlite3_column_int64(st, 5);
		t->early = (uint64_t)sqlite3_column_int64(st, 6);
		t->throttled = (uint64_t)sqlite3_column_int64(st, 7);
		t->p50_ns = (uint64_t)sqlite3_column_int64(st, 8);
		t->p90_ns = (uint64_t)sqlite3_column_int64(st, 9);
		t->p99_ns = (uint64_t)sqlite3_column_int64(st, 10);
		t->p999_ns = (uint64_t)sqlite3_column_int64(st, 11);
		t->max_ns = (uint64_t)sqlite3_column_int64(st, 12);
		t->mean_ns = sqlite3_column_double(st, 13);
		t->req_hist = db_col_text(st, 14);
	}
	sqlite3_finalize(st);
	*out = u;
	return 0;
}
