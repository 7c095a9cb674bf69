/*
 * timeline: a run's counters over time (prof run -I), stored with the
 * run: one row per (interval, thread, event read); see docs/schema.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "db/internal.h"

#define IV_INS(X) \
	X(II_RUN_ID, "run_id") \
	X(II_SEQ, "seq") \
	X(II_T_MS, "t_ms") \
	X(II_TID, "tid") \
	X(II_NAME, "name") \
	X(II_EVENT, "event_idx") \
	X(II_VALUE, "value")
enum { IV_INS(DB_COL_ENUM) II_N };
static const char *const iv_ins[] = { IV_INS(DB_COL_SQL) };

/* A run's intervals as rows, one per interval and event read: row k is
 * interval row[k].iv's event row[k].ev. */
struct iv_rows {
	const struct db_run *run;
	struct iv_cell { size_t iv, ev; } *row;
};

/* The cells of run's intervals that were read, in order, into *out (the
 * caller's to free; NULL for none): their number, or -ENOMEM. */
static ssize_t read_cells(const struct db_run *run, struct iv_cell **out)
{
	*out = NULL;
	size_t n = 0;
	for (size_t i = 0; i < run->nintervals; i++)
		for (size_t e = 0; e < run->nevents; e++)
			n += run->intervals[i].values[e] >= 0;
	if (!n)
		return 0;
	struct iv_cell *c = malloc(n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < run->nintervals; i++)
		for (size_t e = 0; e < run->nevents; e++)
			if (run->intervals[i].values[e] >= 0)
				c[n++] = (struct iv_cell){ i, e };
	*out = c;
	return (ssize_t)n;
}

static void bind_interval(sqlite3_stmt *st, size_t r, size_t k, const void *arg)
{
	const struct iv_rows *ir = arg;
	size_t i = ir->row[k].iv, e = ir->row[k].ev;
	const struct db_interval *iv = &ir->run->intervals[i];
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, II_N, II_RUN_ID), ir->run->id);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, II_N, II_SEQ), (sqlite3_int64)i);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, II_N, II_T_MS), iv->t_ms);
	sqlite3_bind_int(st, DB_PARAM_ROW(r, II_N, II_TID), iv->tid);
	db_bind_text(st, DB_PARAM_ROW(r, II_N, II_NAME), iv->name);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, II_N, II_EVENT), (sqlite3_int64)e);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, II_N, II_VALUE), iv->values[e]);
}

int db_intervals_store(struct db *db, const struct db_run *run, char **cause)
{
	/* What db_intervals_load would refuse is refused before a row is
	 * written: a stored run always reads back. */
	for (size_t i = 0; i < run->nintervals; i++)
		if (run->intervals[i].t_ms < 0) {
			if (cause && !*cause &&
			    asprintf(cause, "cannot store run %lld in '%s': interval "
				     "%zu starts before the workload, which could "
				     "not be read back", (long long)run->id,
				     db->path, i) < 0)
				*cause = NULL;
			return -EINVAL;
		}
	struct iv_rows ir = { .run = run };
	ssize_t n = read_cells(run, &ir.row);
	if (n < 0)
		return db_nomem(db, "write", cause);
	int rc = db_insert_rows(db, "intervals", iv_ins, II_N, (size_t)n, bind_interval,
				&ir, "cannot store the intervals in", cause);
	free(ir.row);
	return rc;
}

#define IV_COLS(X) \
	X(IC_SEQ, "seq") \
	X(IC_T_MS, "t_ms") \
	X(IC_TID, "tid") \
	X(IC_NAME, "name") \
	X(IC_EVENT, "event_idx") \
	X(IC_VALUE, "value")
enum { IV_COLS(DB_COL_ENUM) IC_N };
static const char *const iv_cols[] = { IV_COLS(DB_COL_SQL) };

/* A new interval of run, its values not read (-1); NULL when memory runs
 * out. */
static struct db_interval *add_interval(struct db_run *run)
{
	int64_t *values = malloc((run->nevents ? run->nevents : 1) * sizeof(int64_t));
	if (!values)
		return NULL;
	struct db_interval *p = realloc(run->intervals,
					(run->nintervals + 1) * sizeof(*p));
	if (!p) {
		free(values);
		return NULL;
	}
	run->intervals = p;
	struct db_interval *iv = &p[run->nintervals++];
	memset(iv, 0, sizeof(*iv));
	iv->values = values;
	for (size_t e = 0; e < run->nevents; e++)
		iv->values[e] = -1;
	return iv;
}

/* The interval the rows are filling, and its seq. */
struct interval_load {
	struct db_run *run;
	struct db_interval *iv;
	int64_t seq;
};

static int interval_row(struct db_row *r, struct db_load *load)
{
	struct interval_load *l = load->out;
	struct db_run *run = l->run;
	int64_t q = sqlite3_column_int64(r->st, IC_SEQ);
	db_row_key(r, "(run %lld, seq %lld)", (long long)run->id, (long long)q);
	if (!l->iv || q != l->seq) {
		l->iv = add_interval(run);
		if (!l->iv)
			return -ENOMEM;
		l->seq = q;
		l->iv->t_ms = db_row_int(r, IC_T_MS, 0, INT64_MAX, 0, 0);
		l->iv->tid = (int32_t)db_row_int(r, IC_TID, INT32_MIN, INT32_MAX, 0, 0);
		l->iv->name = db_row_text(r, IC_NAME, DB_NULL_OK);
	}
	int64_t e = db_row_int(r, IC_EVENT, 0,
			       run->nevents ? (int64_t)run->nevents - 1 : 0, 0, 0);
	int64_t v = db_row_int(r, IC_VALUE, 0, INT64_MAX, 0, 0);
	if (!r->rc && (size_t)e < run->nevents)
		l->iv->values[e] = v;
	return 0;
}

static const struct db_select interval_sel = {
	"intervals", iv_cols, IC_N,
	"FROM intervals WHERE run_id = ?1 ORDER BY seq, event_idx",
	"cannot read the intervals from",
};

int db_intervals_load(struct db *db, struct db_run *run, char **cause)
{
	struct interval_load il = { .run = run, .seq = -1 };
	struct db_load l = { .run_id = run->id, .out = &il };
	return db_select_run(db, &interval_sel, &l, interval_row, cause);
}

void db_intervals_release(struct db_run *run)
{
	for (size_t i = 0; i < run->nintervals; i++) {
		free(run->intervals[i].name);
		free(run->intervals[i].values);
	}
	free(run->intervals);
	run->intervals = NULL;
	run->nintervals = 0;
}
