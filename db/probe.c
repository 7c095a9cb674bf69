/*
 * probe (db): store and load a `prof probe` run: its runs row, the facts
 * of probe_runs, the curve of probe_latency with the spread of its
 * repeated sizes in probe_spread, and the rows of probe_counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"
#include "db/probe.h"

/* A byte count that fits: sizes stay far below 2^63. */
static void bind_u64(sqlite3_stmt *st, int idx, uint64_t v)
{
	sqlite3_bind_int64(st, idx, (sqlite3_int64)v);
}

/* A size, NULL when unknown (0). */
static void bind_size(sqlite3_stmt *st, int idx, uint64_t v)
{
	db_bind_int_or_null(st, idx, v > 0, (int64_t)v);
}

static int store_facts(struct db *db, int64_t run_id, const struct db_probe *p,
		       char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st,
		"INSERT INTO probe_runs (run_id, cpu, l1d_bytes, l1i_bytes, l2_bytes,"
		" llc_bytes, llc_level, ms_per_size, seed, family)"
		" VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	db_bind_int_or_null(st, 2, p->cpu >= 0, p->cpu);
	bind_size(st, 3, p->l1d_bytes);
	bind_size(st, 4, p->l1i_bytes);
	bind_size(st, 5, p->l2_bytes);
	bind_size(st, 6, p->llc_bytes);
	db_bind_int_or_null(st, 7, p->llc_level > 0, p->llc_level);
	sqlite3_bind_double(st, 8, p->ms_per_size);
	bind_u64(st, 9, p->seed);
	db_bind_text(st, 10, p->family);
	int step = sqlite3_step(st);
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return db_fail(db, step, "cannot store the probe in", cause);
	return 0;
}

static int store_points(struct db *db, int64_t run_id, const struct db_probe *p,
			char **cause)
{
	sqlite3_stmt *st, *sp;
	int rc = db_prepare(db, &st,
		"INSERT INTO probe_latency (run_id, idx, bytes, ns, steps, huge_bytes)"
		" VALUES (?1,?2,?3,?4,?5,?6)", cause);
	if (rc)
		return rc;
	rc = db_prepare(db, &sp,
		"INSERT INTO probe_spread (run_id, idx, reps, ns_min, ns_q1, ns_q3,"
		" ns_max) VALUES (?1,?2,?3,?4,?5,?6,?7)", cause);
	if (rc) {
		sqlite3_finalize(st);
		return rc;
	}
	for (size_t i = 0; i < p->npoints && !rc; i++) {
		const struct db_probe_point *q = &p->points[i];
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		bind_u64(st, 3, q->bytes);
		sqlite3_bind_double(st, 4, q->ns);
		bind_u64(st, 5, q->steps);
		bind_u64(st, 6, q->huge_bytes);
		rc = db_step_done(db, st, "cannot store the latency curve in", cause);
		/* A size measured once is stored as probes were before they
		 * repeated sizes: no spread. */
		if (rc || q->reps <= 1)
			continue;
		sqlite3_bind_int64(sp, 1, run_id);
		sqlite3_bind_int64(sp, 2, (sqlite3_int64)i);
		sqlite3_bind_int64(sp, 3, q->reps);
		const double v[4] = { q->ns_min, q->ns_q1, q->ns_q3, q->ns_max };
		for (int k = 0; k < 4; k++)
			sqlite3_bind_double(sp, 4 + k, v[k]);
		rc = db_step_done(db, sp, "cannot store the latency curve in", cause);
	}
	sqlite3_finalize(sp);
	sqlite3_finalize(st);
	return rc;
}

static int store_counters(struct db *db, int64_t run_id, const struct db_probe *p,
			  char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st,
		"INSERT INTO probe_counters (run_id, idx, name, event, bench, ran,"
		" expected, value, time_enabled, time_running, grade, reason)"
		" VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)", cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < p->ncounters && !rc; i++) {
		const struct db_probe_counter *c = &p->counters[i];
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		db_bind_text(st, 3, c->name);
		db_bind_text(st, 4, c->event);
		db_bind_long(st, 5, c->bench ? c->bench : "");
		sqlite3_bind_int(st, 6, c->ran);
		sqlite3_bind_double(st, 7, c->expected);
		for (int k = 0; k < 3; k++) {
			const uint64_t v[3] = { c->value, c->enabled, c->running };
			db_bind_int_or_null(st, 8 + k, c->opened, (int64_t)v[k]);
		}
		db_bind_text(st, 11, c->grade);
		db_bind_long(st, 12, c->reason);
		rc = db_step_done(db, st, "cannot store the probe's counters in", cause);
	}
	sqlite3_finalize(st);
	return rc;
}

int db_probe_store(struct db *db, struct db_run *run, const struct db_probe *p,
		   char **cause)
{
	int rc = db_begin(db, cause);
	if (rc)
		return rc;
	rc = db_run_store_body(db, run, cause);
	if (!rc)
		rc = store_facts(db, run->id, p, cause);
	if (!rc)
		rc = store_points(db, run->id, p, cause);
	if (!rc)
		rc = store_counters(db, run->id, p, cause);
	if (!rc)
		rc = db_run_note_cuts(db, run->id, cause);
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

/* ---- loading ---- */

/* Sizes prof writes stay below 1 TiB; a ns per step below an hour. */
#define SIZE_MAX_STORED ((int64_t)1 << 40)
#define NS_MAX_STORED 3.6e12
/* Repetitions of a size: prof's --reps allows up to 100. */
#define REPS_MAX_STORED 1000000

#define FACT_COLS(X) \
	X(FC_CPU, "cpu") \
	X(FC_L1D, "l1d_bytes") \
	X(FC_L1I, "l1i_bytes") \
	X(FC_L2, "l2_bytes") \
	X(FC_LLC, "llc_bytes") \
	X(FC_LLC_LEVEL, "llc_level") \
	X(FC_MS, "ms_per_size") \
	X(FC_SEED, "seed") \
	X(FC_FAMILY, "family")
enum { FACT_COLS(DB_COL_ENUM) FC_N };
static const char *const fact_cols[] = { FACT_COLS(DB_COL_SQL) };

static int load_facts(struct db *db, int64_t run_id, struct db_probe *out,
		      char **cause)
{
	static const struct db_select q = {
		"probe_runs", fact_cols, FC_N,
		"FROM probe_runs WHERE run_id = ?1",
		"cannot read",
	};
	struct db_row r;
	int rc = db_select_one(db, &q, run_id, &r, cause);
	if (rc == 1) {
		if (cause && asprintf(cause, "run %lld in '%s' holds no probe",
				      (long long)run_id, db_path(db)) < 0)
			*cause = NULL;
		return -ENOENT;
	}
	if (rc)
		return rc;
	sqlite3_stmt *st = r.st;
	out->cpu = (int)db_row_int(&r, FC_CPU, 0, DB_CPUS_MAX, -1, DB_NULL_OK);
	out->l1d_bytes = (uint64_t)db_row_int(&r, FC_L1D, 1, SIZE_MAX_STORED, 0, DB_NULL_OK);
	out->l1i_bytes = (uint64_t)db_row_int(&r, FC_L1I, 1, SIZE_MAX_STORED, 0, DB_NULL_OK);
	out->l2_bytes = (uint64_t)db_row_int(&r, FC_L2, 1, SIZE_MAX_STORED, 0, DB_NULL_OK);
	out->llc_bytes = (uint64_t)db_row_int(&r, FC_LLC, 1, SIZE_MAX_STORED, 0, DB_NULL_OK);
	out->llc_level = (int)db_row_int(&r, FC_LLC_LEVEL, 1, 7, 0, DB_NULL_OK);
	out->ms_per_size = db_row_real(&r, FC_MS, 0, 1e9, 0, 0);
	out->seed = db_row_u64(&r, FC_SEED, 0);
	out->family = db_row_text(&r, FC_FAMILY, DB_NULL_OK);
	sqlite3_finalize(st);
	return r.rc ? db_row_fail(&r, cause) : 0;
}

#define POINT_COLS(X) \
	X(PC_BYTES, "bytes") \
	X(PC_NS, "ns") \
	X(PC_STEPS, "steps") \
	X(PC_HUGE, "huge_bytes") \
	X(PC_IDX, "idx") \
	X(PC_REPS, "reps") \
	X(PC_MIN, "ns_min") \
	X(PC_Q1, "ns_q1") \
	X(PC_Q3, "ns_q3") \
	X(PC_MAX, "ns_max")
enum { POINT_COLS(DB_COL_ENUM) PC_N };
static const char *const point_cols[] = { POINT_COLS(DB_COL_SQL) };

static int point_row(struct db_row *r, struct db_load *l)
{
	struct db_probe *out = l->out;
	if (db_grow((void **)&out->points, &l->cap, out->npoints, sizeof(*out->points)))
		return -ENOMEM;
	struct db_probe_point *v = out->points;
	struct db_probe_point *q = &v[out->npoints++];
	db_row_key(r, "(run %lld, idx %lld)", (long long)l->run_id,
		   (long long)sqlite3_column_int64(r->st, PC_IDX));
	q->bytes = (uint64_t)db_row_int(r, PC_BYTES, 1, SIZE_MAX_STORED, 1, 0);
	q->ns = db_row_real(r, PC_NS, 0, NS_MAX_STORED, 0, 0);
	q->steps = db_row_u64(r, PC_STEPS, 0);
	q->huge_bytes = (uint64_t)db_row_int(r, PC_HUGE, 0, SIZE_MAX_STORED, 0, 0);
	q->reps = (unsigned)db_row_int(r, PC_REPS, 1, REPS_MAX_STORED, 1, DB_NULL_OK);
	double *sp[4] = { &q->ns_min, &q->ns_q1, &q->ns_q3, &q->ns_max };
	for (int k = 0; k < 4; k++)
		*sp[k] = db_row_real(r, PC_MIN + k, 0, NS_MAX_STORED, q->ns, DB_NULL_OK);
	/* The knee finder reads a spread as an interval around the median. */
	if (!r->rc && !(q->ns_min <= q->ns_q1 && q->ns_q1 <= q->ns &&
			q->ns <= q->ns_q3 && q->ns_q3 <= q->ns_max))
		db_row_bad(r, PC_MIN, "the spread %g-%g-%g-%g does not hold the "
			   "median %g in order", q->ns_min, q->ns_q1, q->ns_q3,
			   q->ns_max, q->ns);
	/* The knee finder walks the curve in size order. */
	if (!r->rc && out->npoints > 1 && q->bytes <= v[out->npoints - 2].bytes)
		db_row_bad(r, PC_BYTES, "%llu is not above the size before it",
			   (unsigned long long)q->bytes);
	return 0;
}

static const struct db_select point_sel = {
	"probe_latency", point_cols, PC_N,
	"FROM probe_latency LEFT JOIN probe_spread USING (run_id, idx)"
	" WHERE run_id = ?1 ORDER BY idx",
	"cannot read the latency curve in",
};

#define COUNTER_COLS(X) \
	X(CC_NAME, "name") \
	X(CC_EVENT, "event") \
	X(CC_BENCH, "bench") \
	X(CC_RAN, "ran") \
	X(CC_EXPECTED, "expected") \
	X(CC_VALUE, "value") \
	X(CC_ENABLED, "time_enabled") \
	X(CC_RUNNING, "time_running") \
	X(CC_GRADE, "grade") \
	X(CC_REASON, "reason") \
	X(CC_IDX, "idx")
enum { COUNTER_COLS(DB_COL_ENUM) CC_N };
static const char *const counter_cols[] = { COUNTER_COLS(DB_COL_SQL) };

static int counter_row(struct db_row *r, struct db_load *l)
{
	struct db_probe *out = l->out;
	if (db_grow((void **)&out->counters, &l->cap, out->ncounters,
		    sizeof(*out->counters)))
		return -ENOMEM;
	struct db_probe_counter *c = &out->counters[out->ncounters++];
	db_row_key(r, "(run %lld, idx %lld)", (long long)l->run_id,
		   (long long)sqlite3_column_int64(r->st, CC_IDX));
	c->name = db_row_text(r, CC_NAME, 0);
	c->event = db_row_text(r, CC_EVENT, DB_NULL_OK);
	c->bench = db_row_text(r, CC_BENCH, DB_LONG);
	c->ran = db_row_bool(r, CC_RAN, 0);
	c->expected = db_row_real(r, CC_EXPECTED, 0, 1e300, 0, 0);
	c->opened = !db_row_null(r, CC_VALUE);
	c->value = db_row_u64(r, CC_VALUE, DB_NULL_OK);
	c->enabled = db_row_u64(r, CC_ENABLED, DB_NULL_OK);
	c->running = db_row_u64(r, CC_RUNNING, DB_NULL_OK);
	c->grade = db_row_text(r, CC_GRADE, 0);
	c->reason = db_row_text(r, CC_REASON, DB_NULL_OK | DB_LONG);
	return 0;
}

static const struct db_select counter_sel = {
	"probe_counters", counter_cols, CC_N,
	"FROM probe_counters WHERE run_id = ?1 ORDER BY idx",
	"cannot read the probe's counters in",
};

int db_probe_load(struct db *db, int64_t run_id, struct db_probe *out,
		  char **cause)
{
	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	int rc = load_facts(db, run_id, out, cause);
	struct db_load l = { .run_id = run_id, .out = out };
	if (!rc)
		rc = db_select_run(db, &point_sel, &l, point_row, cause);
	if (!rc)
		rc = db_select_run(db, &counter_sel, &l, counter_row, cause);
	if (rc)
		db_probe_release(out);
	return rc;
}

void db_probe_release(struct db_probe *p)
{
	if (!p)
		return;
	free(p->family);
	free(p->points);
	for (size_t i = 0; i < p->ncounters; i++) {
		struct db_probe_counter *c = &p->counters[i];
		free(c->name);
		free(c->event);
		free(c->bench);
		free(c->grade);
		free(c->reason);
	}
	free(p->counters);
	memset(p, 0, sizeof(*p));
	p->cpu = -1;
}
