/*
 * samples: a sampled run's call stacks and samples, written into temp
 * tables while the run goes on and copied into the database with the run
 * in one transaction; see samples.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"
#include "db/samples.h"

/* Rows per batched transaction while recording. */
#define BATCH_ROWS 4096

enum { INS_MODULE, INS_SYMBOL, INS_FRAME, INS_STACK, INS_SAMPLE, INS_FRAME_SRC, NINS };

static const char *const temp_schema =
	"CREATE TEMP TABLE IF NOT EXISTS rec_modules ("
	"  id INTEGER PRIMARY KEY, path TEXT NOT NULL, build_id TEXT);"
	"CREATE TEMP TABLE IF NOT EXISTS rec_symbols ("
	"  id INTEGER PRIMARY KEY, module_id INTEGER NOT NULL, name TEXT);"
	"CREATE TEMP TABLE IF NOT EXISTS rec_frames ("
	"  id INTEGER PRIMARY KEY, symbol_id INTEGER NOT NULL, offset INTEGER NOT NULL,"
	"  src_file TEXT, src_line INTEGER, src_functions TEXT);"
	"CREATE TEMP TABLE IF NOT EXISTS rec_stacks ("
	"  id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL, frame_id INTEGER NOT NULL);"
	"CREATE TEMP TABLE IF NOT EXISTS rec_samples ("
	"  seq INTEGER PRIMARY KEY, tid INTEGER NOT NULL, time INTEGER NOT NULL,"
	"  cpu INTEGER, event_idx INTEGER NOT NULL, weight INTEGER NOT NULL,"
	"  stack_id INTEGER NOT NULL);"
	"CREATE TEMP TABLE IF NOT EXISTS rec_threads ("
	"  tid INTEGER NOT NULL, start_ns INTEGER, thread_id INTEGER NOT NULL);"
	"CREATE INDEX IF NOT EXISTS temp.rec_threads_by_tid ON rec_threads(tid);";

static const char *const temp_clear =
	"DELETE FROM temp.rec_modules; DELETE FROM temp.rec_symbols;"
	"DELETE FROM temp.rec_frames; DELETE FROM temp.rec_stacks;"
	"DELETE FROM temp.rec_samples; DELETE FROM temp.rec_threads;";

static const char *const insert_sql[NINS] = {
	"INSERT INTO temp.rec_modules (id, path, build_id) VALUES (?1, ?2, ?3)",
	"INSERT INTO temp.rec_symbols (id, module_id, name) VALUES (?1, ?2, ?3)",
	"INSERT INTO temp.rec_frames (id, symbol_id, offset) VALUES (?1, ?2, ?3)",
	"INSERT INTO temp.rec_stacks (id, parent_id, frame_id) VALUES (?1, ?2, ?3)",
	("INSERT INTO temp.rec_samples (tid, time, cpu, event_idx, weight, stack_id)"
	 " VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
	("UPDATE temp.rec_frames SET src_file = ?2, src_line = ?3, src_functions = ?4"
	 " WHERE id = ?1"),
};

struct db_sample_writer {
	struct db *db;
	sqlite3_stmt *ins[NINS];
	bool in_tx;
	size_t pending;
	uint64_t nsamples;
};

int db_sample_writer_new(struct db *db, struct db_sample_writer **out, char **cause)
{
	db_cuts_take();	/* the cuts db_sample_store_run notes are this run's */
	*out = NULL;
	struct db_sample_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->db = db;
	int rc = db_exec(db, temp_schema, cause);
	if (!rc)
		rc = db_exec(db, temp_clear, cause);
	for (int i = 0; i < NINS && !rc; i++)
		rc = db_prepare(db, &w->ins[i], insert_sql[i], cause);
	if (rc) {
		db_sample_writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

void db_sample_writer_free(struct db_sample_writer *w)
{
	if (!w)
		return;
	for (int i = 0; i < NINS; i++)
		sqlite3_finalize(w->ins[i]);
	if (w->in_tx)
		db_rollback(w->db);
	/* Leave nothing behind for a later writer on this connection. */
	sqlite3_exec(w->db->h, temp_clear, NULL, NULL, NULL);
	free(w);
}

uint64_t db_sample_count(const struct db_sample_writer *w)
{
	return w->nsamples;
}

int db_sample_flush(struct db_sample_writer *w, char **cause)
{
	if (!w->in_tx)
		return 0;
	w->in_tx = false;
	w->pending = 0;
	int rc = sqlite3_exec(w->db->h, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		int r = db_fail(w->db, rc, "cannot write the samples to", cause);
		db_rollback(w->db);
		return r;
	}
	return 0;
}

/* Step one insert, inside a batch (a deferred transaction: temp tables
 * only, so the database itself stays unlocked for other writers). */
static int put(struct db_sample_writer *w, sqlite3_stmt *st, const char *what,
	       char **cause)
{
	if (!w->in_tx) {
		int rc = sqlite3_exec(w->db->h, "BEGIN", NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			return db_fail(w->db, rc, what, cause);
		}
		w->in_tx = true;
	}
	int s = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (s != SQLITE_DONE)
		return db_fail(w->db, s, what, cause);
	if (++w->pending >= BATCH_ROWS)
		return db_sample_flush(w, cause);
	return 0;
}

int db_sample_put_module(struct db_sample_writer *w, uint32_t id, const char *path,
			 const char *build_id, char **cause)
{
	sqlite3_stmt *st = w->ins[INS_MODULE];
	sqlite3_bind_int64(st, 1, id);
	db_bind_long(st, 2, path ? path : "");
	db_bind_text(st, 3, build_id);
	return put(w, st, "cannot write a module to", cause);
}

int db_sample_put_symbol(struct db_sample_writer *w, uint32_t id, uint32_t module,
			 const char *name, char **cause)
{
	sqlite3_stmt *st = w->ins[INS_SYMBOL];
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, module);
	db_bind_long(st, 3, name);
	return put(w, st, "cannot write a symbol to", cause);
}

int db_sample_put_frame(struct db_sample_writer *w, uint32_t id, uint32_t symbol,
			uint64_t offset, char **cause)
{
	sqlite3_stmt *st = w->ins[INS_FRAME];
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, symbol);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)offset);
	return put(w, st, "cannot write a frame to", cause);
}

int db_sample_put_frame_src(struct db_sample_writer *w, uint32_t id,
			    const struct db_frame_src *src, char **cause)
{
	sqlite3_stmt *st = w->ins[INS_FRAME_SRC];
	sqlite3_bind_int64(st, 1, id);
	db_bind_long(st, 2, src->file);
	if (src->line)
		sqlite3_bind_int64(st, 3, src->line);
	/* One column: the innermost function, then the inlined ones. */
	char *fns = NULL;
	if ((src->function || src->inlines) &&
	    asprintf(&fns, "%s%s%s", src->function ? src->function : "",
		     src->inlines ? "\n" : "", src->inlines ? src->inlines : "") < 0) {
		sqlite3_clear_bindings(st);
		return db_fail(w->db, SQLITE_NOMEM, "cannot write a frame's source line to",
			       cause);
	}
	db_bind_long(st, 4, fns);
	int rc = put(w, st, "cannot write a frame's source line to", cause);
	free(fns);
	return rc;
}

int db_sample_put_stack(struct db_sample_writer *w, uint32_t id, uint32_t parent,
			uint32_t frame, char **cause)
{
	sqlite3_stmt *st = w->ins[INS_STACK];
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, parent);
	sqlite3_bind_int64(st, 3, frame);
	return put(w, st, "cannot write a call stack to", cause);
}

int db_sample_put(struct db_sample_writer *w, const struct db_sample *s, char **cause)
{
	sqlite3_stmt *st = w->ins[INS_SAMPLE];
	sqlite3_bind_int(st, 1, s->tid);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)s->time);
	sqlite3_bind_int(st, 3, (int)s->cpu);
	sqlite3_bind_int(st, 4, (int)s->event);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)s->weight);
	sqlite3_bind_int64(st, 6, s->stack);
	int rc = put(w, st, "cannot write a sample to", cause);
	if (!rc)
		w->nsamples++;
	return rc;
}

/* Run one statement bound to the run id. */
int db_sample_keep_between(struct db_sample_writer *w, uint64_t a_ns, uint64_t b_ns,
			   size_t nevents, uint64_t *samples, uint64_t *weight,
			   char **cause)
{
	int rc = db_sample_flush(w, cause);
	if (rc)
		return rc;
	/* Times are CLOCK_MONOTONIC ns, well inside int64. */
	sqlite3_stmt *st;
	rc = db_prepare(w->db, &st, "SELECT event_idx, count(*), sum(weight) FROM "
			"temp.rec_samples WHERE time < ?1 OR time > ?2 GROUP BY event_idx",
			cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, (int64_t)a_ns);
	sqlite3_bind_int64(st, 2, (int64_t)b_ns);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 e = sqlite3_column_int64(st, 0);
		if (e < 0 || (uint64_t)e >= nevents)
			continue;
		samples[e] += (uint64_t)sqlite3_column_int64(st, 1);
		weight[e] += (uint64_t)sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (s != SQLITE_DONE)
		return db_fail(w->db, s, "cannot count the samples outside the window in",
			       cause);
	rc = db_prepare(w->db, &st, "DELETE FROM temp.rec_samples WHERE time < ?1 OR "
			"time > ?2", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, (int64_t)a_ns);
	sqlite3_bind_int64(st, 2, (int64_t)b_ns);
	s = sqlite3_step(st);
	sqlite3_finalize(st);
	if (s != SQLITE_DONE)
		return db_fail(w->db, s, "cannot leave out the samples outside the window in",
			       cause);
	uint64_t gone = (uint64_t)sqlite3_changes(w->db->h);
	w->nsamples = gone < w->nsamples ? w->nsamples - gone : 0;
	return 0;
}

static int exec_run(struct db *db, const char *sql, int64_t run_id, const char *what,
		    char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st, sql, cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	int s = sqlite3_step(st);
	sqlite3_finalize(st);
	if (s != SQLITE_DONE)
		return db_fail(db, s, what, cause);
	return 0;
}

#define SAMPLE_EVENT_INS(X) \
	X(SEI_RUN_ID, "run_id") \
	X(SEI_IDX, "idx") \
	X(SEI_NAME, "name") \
	X(SEI_ATTR_TYPE, "attr_type") \
	X(SEI_ATTR_CONFIG, "attr_config") \
	X(SEI_PERIOD, "period") \
	X(SEI_FREQ, "freq") \
	X(SEI_CALL_GRAPH, "call_graph") \
	X(SEI_STACK_BYTES, "stack_bytes") \
	X(SEI_SAMPLES, "samples") \
	X(SEI_WEIGHT, "weight") \
	X(SEI_LOST, "lost") \
	X(SEI_DROPPED, "dropped")
enum { SAMPLE_EVENT_INS(DB_COL_ENUM) SEI_N };
static const char *const sample_event_ins[] = { SAMPLE_EVENT_INS(DB_COL_SQL) };

static int store_events(struct db *db, int64_t run_id, const struct db_sample_event *ev,
			size_t n, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare_insert(db, &st, "sample_events", sample_event_ins, SEI_N, cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct db_sample_event *e = &ev[i];
		sqlite3_bind_int64(st, DB_PARAM(SEI_RUN_ID), run_id);
		sqlite3_bind_int(st, DB_PARAM(SEI_IDX), (int)i);
		db_bind_text(st, DB_PARAM(SEI_NAME), e->name ? e->name : "?");
		sqlite3_bind_int64(st, DB_PARAM(SEI_ATTR_TYPE), e->attr_type);
		sqlite3_bind_int64(st, DB_PARAM(SEI_ATTR_CONFIG),
				   (sqlite3_int64)e->attr_config);
		db_bind_int_or_null(st, DB_PARAM(SEI_PERIOD), e->period != 0,
				    (int64_t)e->period);
		db_bind_int_or_null(st, DB_PARAM(SEI_FREQ), e->freq != 0,
				    (int64_t)e->freq);
		db_bind_text(st, DB_PARAM(SEI_CALL_GRAPH),
			     e->call_graph ? e->call_graph : "none");
		db_bind_int_or_null(st, DB_PARAM(SEI_STACK_BYTES), e->stack_bytes != 0,
				    e->stack_bytes);
		sqlite3_bind_int64(st, DB_PARAM(SEI_SAMPLES),
				   (sqlite3_int64)e->samples);
		sqlite3_bind_int64(st, DB_PARAM(SEI_WEIGHT), (sqlite3_int64)e->weight);
		sqlite3_bind_int64(st, DB_PARAM(SEI_LOST), (sqlite3_int64)e->lost);
		sqlite3_bind_int64(st, DB_PARAM(SEI_DROPPED),
				   (sqlite3_int64)e->dropped);
		rc = db_step_done(db, st, "cannot store the sampled events in", cause);
	}
	sqlite3_finalize(st);
	return rc;
}

int db_sample_store_run(struct db_sample_writer *w, struct db_run *run,
			const struct db_sample_event *events, size_t nevents,
			char **cause)
{
	struct db *db = w->db;
	int rc = db_sample_flush(w, cause);
	if (rc)
		return rc;
	rc = db_begin(db, cause);
	if (rc)
		return rc;
	rc = db_run_store_body(db, run, cause);
	if (!rc)
		rc = store_events(db, run->id, events, nevents, cause);
	if (!rc)
		rc = exec_run(db, "INSERT INTO temp.rec_threads (tid, start_ns, thread_id)"
			      " SELECT tid, start_ns, id FROM threads WHERE run_id = ?1",
			      run->id, "cannot match the samples' threads in", cause);
	if (!rc)
		rc = exec_run(db, "INSERT INTO sample_modules (run_id, id, path, build_id)"
			      " SELECT ?1, id, path, build_id FROM temp.rec_modules",
			      run->id, "cannot store the modules in", cause);
	if (!rc)
		rc = exec_run(db, "INSERT INTO sample_symbols (run_id, id, module_id, name)"
			      " SELECT ?1, id, module_id, name FROM temp.rec_symbols",
			      run->id, "cannot store the symbols in", cause);
	if (!rc)
		rc = exec_run(db, "INSERT INTO sample_frames (run_id, id, symbol_id, offset,"
			      " src_file, src_line, src_functions)"
			      " SELECT ?1, id, symbol_id, offset, src_file, src_line,"
			      " src_functions FROM temp.rec_frames",
			      run->id, "cannot store the frames in", cause);
	if (!rc)
		rc = exec_run(db, "INSERT INTO sample_stacks (run_id, id, parent_id, frame_id)"
			      " SELECT ?1, id, parent_id, frame_id FROM temp.rec_stacks",
			      run->id, "cannot store the call stacks in", cause);
	/* The thread of a sample: its tid's row that had started by then,
	 * the latest such (tids are reused); else any row of that tid. */
	if (!rc)
		rc = exec_run(db, "INSERT INTO samples (run_id, seq, thread_id, time, cpu,"
			      " event_idx, weight, stack_id)"
			      " SELECT ?1, s.seq,"
			      "  coalesce((SELECT t.thread_id FROM temp.rec_threads t"
			      "   WHERE t.tid = s.tid AND coalesce(t.start_ns, 0) <= s.time"
			      "   ORDER BY t.start_ns DESC LIMIT 1),"
			      "  (SELECT t.thread_id FROM temp.rec_threads t WHERE t.tid = s.tid"
			      "   ORDER BY t.start_ns LIMIT 1)),"
			      "  s.time, s.cpu, s.event_idx, s.weight, s.stack_id"
			      " FROM temp.rec_samples s ORDER BY s.seq",
			      run->id, "cannot store the samples in", cause);
	if (rc) {
		db_rollback(db);
		run->id = 0;
		return rc;
	}
	rc = db_commit(db, cause);
	if (rc) {
		run->id = 0;
		return rc;
	}
	sqlite3_exec(db->h, temp_clear, NULL, NULL, NULL);
	w->nsamples = 0;
	return 0;
}

/* ---- reading ---- */

void db_sample_event_release(struct db_sample_event *e)
{
	if (!e)
		return;
	free(e->name);
	free(e->call_graph);
	memset(e, 0, sizeof(*e));
}

void db_profile_release(struct db_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nevents; i++)
		db_sample_event_release(&p->events[i]);
	free(p->events);
	for (size_t i = 0; i < p->nmodules; i++) {
		free(p->modules[i]);
		free(p->build_ids[i]);
	}
	free(p->modules);
	free(p->build_ids);
	for (size_t i = 0; i < p->nsymbols; i++)
		free(p->symbols[i].name);
	free(p->symbols);
	for (size_t i = 0; i < p->nframes; i++) {
		free(p->frames[i].src_file);
		free(p->frames[i].src_function);
		free(p->frames[i].src_inlines);
	}
	free(p->frames);
	free(p->stacks);
	free(p->counts);
	free(p->samples);
	memset(p, 0, sizeof(*p));
}

/* src_functions as stored: the innermost function, then the inlined
 * ones one a line; into src_function and src_inlines. */
static void split_functions(struct db_frame *f)
{
	char *nl = f->src_function ? strchr(f->src_function, '\n') : NULL;
	if (nl) {
		f->src_inlines = nl[1] ? strdup(nl + 1) : NULL;
		*nl = '\0';
	}
	if (f->src_function && !f->src_function[0]) {
		free(f->src_function);
		f->src_function = NULL;
	}
}

static int prep_run(struct db *db, sqlite3_stmt **st, const char *sql, int64_t run_id,
		    char **cause)
{
	int rc = db_prepare(db, st, sql, cause);
	if (!rc)
		sqlite3_bind_int64(*st, 1, run_id);
	return rc;
}

/* prep_run for a loader's named columns (see db_prepare_select). */
static int prep_run_select(struct db *db, sqlite3_stmt **st, const char *const *cols,
			   size_t ncols, const char *rest, int64_t run_id,
			   char **cause)
{
	int rc = db_prepare_select(db, st, cols, ncols, rest, cause);
	if (!rc)
		sqlite3_bind_int64(*st, 1, run_id);
	return rc;
}

#define SEVENT_COLS(X) \
	X(SE_IDX, "idx") \
	X(SE_NAME, "name") \
	X(SE_TYPE, "attr_type") \
	X(SE_CONFIG, "attr_config") \
	X(SE_PERIOD, "period") \
	X(SE_FREQ, "freq") \
	X(SE_CALL_GRAPH, "call_graph") \
	X(SE_STACK_BYTES, "stack_bytes") \
	X(SE_SAMPLES, "samples") \
	X(SE_WEIGHT, "weight") \
	X(SE_LOST, "lost") \
	X(SE_DROPPED, "dropped")
enum { SEVENT_COLS(DB_COL_ENUM) SE_N };
static const char *const sevent_cols[] = { SEVENT_COLS(DB_COL_SQL) };

/* Samples summed per (event, thread, stack). */
#define SCOUNT_COLS(X) \
	X(SC_EVENT, "s.event_idx") \
	X(SC_SEQ, "t.seq") \
	X(SC_STACK, "s.stack_id") \
	X(SC_SAMPLES, "count(*)") \
	X(SC_WEIGHT, "sum(s.weight)") \
	X(SC_THREAD_ID, "s.thread_id")
enum { SCOUNT_COLS(DB_COL_ENUM) SC_N };
static const char *const scount_cols[] = { SCOUNT_COLS(DB_COL_SQL) };

int db_profile_load(struct db *db, int64_t run_id, struct db_profile *out,
		    char **cause)
{
	memset(out, 0, sizeof(*out));
	out->run_id = run_id;
	sqlite3_stmt *st;
	int rc = prep_run(db, &st, "SELECT (SELECT count(*) FROM runs WHERE id = ?1),"
			  " (SELECT count(*) FROM sample_events WHERE run_id = ?1)",
			  run_id, cause);
	if (rc)
		return rc;
	int s = sqlite3_step(st);
	int have_run = s == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	int have_ev = s == SQLITE_ROW ? sqlite3_column_int(st, 1) : 0;
	sqlite3_finalize(st);
	if (s != SQLITE_ROW)
		return db_fail(db, s, "cannot read", cause);
	if (!have_run) {
		if (cause && asprintf(cause, "no run %lld in '%s'\n"
				      "hint: 'prof runs' lists the stored runs",
				      (long long)run_id, db->path) < 0)
			*cause = NULL;
		return -ENOENT;
	}
	if (!have_ev) {
		if (cause && asprintf(cause, "run %lld was counted, not sampled: it has "
				      "no samples to group by module or symbol\n"
				      "hint: sample one with 'prof record -- COMMAND'; "
				      "'prof report %lld' shows its counts",
				      (long long)run_id, (long long)run_id) < 0)
			*cause = NULL;
		return -ENODATA;
	}

	size_t cap = 0;
	struct db_row r;
	rc = prep_run_select(db, &st, sevent_cols, SE_N,
			     "FROM sample_events WHERE run_id = ?1 ORDER BY idx",
			     run_id, cause);
	if (rc)
		goto fail;
	db_row_init(&r, db, st, "sample_events");
	while (!r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "(run %lld, idx %lld)", (long long)run_id,
			   (long long)sqlite3_column_int64(st, SE_IDX));
		/* Samples name their event by idx: 0, 1, 2 ... */
		db_row_int(&r, SE_IDX, (int64_t)out->nevents, (int64_t)out->nevents, 0, 0);
		if (r.rc || (rc = db_grow((void **)&out->events, &cap, out->nevents,
				          sizeof(*out->events))))
			break;
		struct db_sample_event *e = &out->events[out->nevents++];
		e->name = db_row_text(&r, SE_NAME, 0);
		e->attr_type = (uint32_t)db_row_int(&r, SE_TYPE, 0, UINT32_MAX, 0,
						    DB_NULL_OK);
		e->attr_config = db_row_u64(&r, SE_CONFIG, DB_NULL_OK);
		e->period = db_row_u64(&r, SE_PERIOD, DB_NULL_OK);
		e->freq = db_row_u64(&r, SE_FREQ, DB_NULL_OK);
		e->call_graph = db_row_text(&r, SE_CALL_GRAPH, 0);
		e->stack_bytes = (uint32_t)db_row_int(&r, SE_STACK_BYTES, 0, UINT32_MAX, 0,
						      DB_NULL_OK);
		e->samples = db_row_u64(&r, SE_SAMPLES, 0);
		e->weight = db_row_u64(&r, SE_WEIGHT, 0);
		e->lost = db_row_u64(&r, SE_LOST, 0);
		e->dropped = db_row_u64(&r, SE_DROPPED, 0);
	}
	sqlite3_finalize(st);
	if (!rc && r.rc)
		rc = db_row_fail(&r, cause);
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, s, "cannot read the samples of", cause);
	if (rc)
		goto fail;

	size_t mcap = 0, bcap = 0;
	rc = prep_run(db, &st, "SELECT id, path, build_id FROM sample_modules"
		      " WHERE run_id = ?1 ORDER BY id", run_id, cause);
	if (rc)
		goto fail;
	db_row_init(&r, db, st, "sample_modules");
	while (!r.rc && !rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "(run %lld, id %lld)", (long long)run_id,
			   (long long)sqlite3_column_int64(st, 0));
		/* Ids count 1, 2, 3 ...: the writer hands them out so. */
		db_row_int(&r, 0, (int64_t)out->nmodules + 1, (int64_t)out->nmodules + 1,
			   0, 0);
		if (!r.rc)
			rc = db_grow((void **)&out->modules, &mcap, out->nmodules,
				     sizeof(char *));
		if (!r.rc && !rc)
			rc = db_grow((void **)&out->build_ids, &bcap, out->nmodules,
				     sizeof(char *));
		if (r.rc || rc)
			break;
		out->modules[out->nmodules] = db_row_text(&r, 1, DB_LONG);
		out->build_ids[out->nmodules] = db_row_text(&r, 2, DB_NULL_OK);
		out->nmodules++;
	}
	sqlite3_finalize(st);
	if (!rc && r.rc)
		rc = db_row_fail(&r, cause);
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, s, "cannot read the samples of", cause);
	if (rc)
		goto fail;

	cap = 0;
	rc = prep_run(db, &st, "SELECT id, module_id, name FROM sample_symbols"
		      " WHERE run_id = ?1 ORDER BY id", run_id, cause);
	if (rc)
		goto fail;
	db_row_init(&r, db, st, "sample_symbols");
	while (!r.rc && !rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "(run %lld, id %lld)", (long long)run_id,
			   (long long)sqlite3_column_int64(st, 0));
		db_row_int(&r, 0, (int64_t)out->nsymbols + 1, (int64_t)out->nsymbols + 1,
			   0, 0);
		if (r.rc || (rc = db_grow((void **)&out->symbols, &cap, out->nsymbols,
				          sizeof(*out->symbols))))
			break;
		struct db_symbol *y = &out->symbols[out->nsymbols++];
		y->module = (uint32_t)db_row_int(&r, 1, 1, (int64_t)out->nmodules, 1, 0);
		y->name = db_row_text(&r, 2, DB_NULL_OK | DB_LONG);
	}
	sqlite3_finalize(st);
	if (!rc && r.rc)
		rc = db_row_fail(&r, cause);
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, s, "cannot read the samples of", cause);
	if (rc)
		goto fail;

	cap = 0;
	rc = prep_run(db, &st, "SELECT id, symbol_id, offset, src_file, src_line,"
		      " src_functions FROM sample_frames WHERE run_id = ?1"
		      " ORDER BY id",
		      run_id, cause);
	if (rc)
		goto fail;
	db_row_init(&r, db, st, "sample_frames");
	while (!r.rc && !rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "(run %lld, id %lld)", (long long)run_id,
			   (long long)sqlite3_column_int64(st, 0));
		db_row_int(&r, 0, (int64_t)out->nframes + 1, (int64_t)out->nframes + 1,
			   0, 0);
		if (r.rc || (rc = db_grow((void **)&out->frames, &cap, out->nframes,
				          sizeof(*out->frames))))
			break;
		struct db_frame *f = &out->frames[out->nframes++];
		f->symbol = (uint32_t)db_row_int(&r, 1, 1, (int64_t)out->nsymbols, 1, 0);
		f->offset = db_row_u64(&r, 2, 0);
		f->src_file = db_row_text(&r, 3, DB_NULL_OK | DB_LONG);
		f->src_line = (uint32_t)db_row_int(&r, 4, 0, UINT32_MAX, 0, DB_NULL_OK);
		f->src_function = db_row_text(&r, 5, DB_NULL_OK | DB_LONG);
		split_functions(f);
	}
	sqlite3_finalize(st);
	if (!rc && r.rc)
		rc = db_row_fail(&r, cause);
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, s, "cannot read the samples of", cause);
	if (rc)
		goto fail;

	cap = 0;
	rc = prep_run(db, &st, "SELECT id, parent_id, frame_id FROM sample_stacks"
		      " WHERE run_id = ?1 ORDER BY id", run_id, cause);
	if (rc)
		goto fail;
	db_row_init(&r, db, st, "sample_stacks");
	while (!r.rc && !rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "(run %lld, id %lld)", (long long)run_id,
			   (long long)sqlite3_column_int64(st, 0));
		db_row_int(&r, 0, (int64_t)out->nstacks + 1, (int64_t)out->nstacks + 1,
			   0, 0);
		if (r.rc || (rc = db_grow((void **)&out->stacks, &cap, out->nstacks,
				          sizeof(*out->stacks))))
			break;
		struct db_stack_node *n = &out->stacks[out->nstacks++];
		/* A parent comes before its children: walks always end. */
		n->parent = (uint32_t)db_row_int(&r, 1, 0, (int64_t)out->nstacks - 1, 0, 0);
		n->frame = (uint32_t)db_row_int(&r, 2, 1, (int64_t)out->nframes, 1, 0);
	}
	sqlite3_finalize(st);
	if (!rc && r.rc)
		rc = db_row_fail(&r, cause);
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, s, "cannot read the samples of", cause);
	if (rc)
		goto fail;

	cap = 0;
	rc = prep_run_select(db, &st, scount_cols, SC_N, "FROM samples s"
			     " LEFT JOIN threads t ON t.id = s.thread_id WHERE s.run_id = ?1"
			     " GROUP BY s.event_idx, s.thread_id, s.stack_id", run_id, cause);
	if (rc)
		goto fail;
	db_row_init(&r, db, st, "samples");
	while (!r.rc && !rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "(run %lld, event_idx %lld, thread_id %lld, stack_id %lld)",
			   (long long)run_id, (long long)sqlite3_column_int64(st, SC_EVENT),
			   (long long)sqlite3_column_int64(st, SC_THREAD_ID),
			   (long long)sqlite3_column_int64(st, SC_STACK));
		if ((rc = db_grow((void **)&out->counts, &cap, out->ncounts,
				   sizeof(*out->counts))))
			break;
		struct db_stack_count *c = &out->counts[out->ncounts++];
		c->event = (uint32_t)db_row_int(&r, SC_EVENT, 0, (int64_t)out->nevents - 1,
						0, 0);
		c->thread = db_row_null(&r, SC_SEQ) ? -1
			    : (int32_t)db_row_int(&r, SC_SEQ, 0, INT32_MAX, 0, 0);
		c->stack = (uint32_t)db_row_int(&r, SC_STACK, 1, (int64_t)out->nstacks, 1, 0);
		c->samples = (uint64_t)sqlite3_column_int64(st, SC_SAMPLES);
		c->weight = db_row_u64(&r, SC_WEIGHT, 0);
	}
	sqlite3_finalize(st);
	if (!rc && r.rc)
		rc = db_row_fail(&r, cause);
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, s, "cannot read the samples of", cause);
	if (rc)
		goto fail;
	return 0;
fail:
	db_profile_release(out);
	out->run_id = run_id;
	return rc;
}

/* Every sample, oldest first, with its thread's place in the run. */
#define SROW_COLS(X) \
	X(SR_SEQ, "s.seq") \
	X(SR_THREAD, "t.seq") \
	X(SR_TIME, "s.time") \
	X(SR_CPU, "s.cpu") \
	X(SR_EVENT, "s.event_idx") \
	X(SR_WEIGHT, "s.weight") \
	X(SR_STACK, "s.stack_id")
enum { SROW_COLS(DB_COL_ENUM) SR_N };
static const char *const srow_cols[] = { SROW_COLS(DB_COL_SQL) };

int db_profile_load_samples(struct db *db, struct db_profile *p, char **cause)
{
	sqlite3_stmt *st;
	struct db_row r;
	size_t cap = 0, n = 0;
	struct db_sample_row *v = NULL;
	int s = SQLITE_DONE;
	int rc = prep_run_select(db, &st, srow_cols, SR_N, "FROM samples s"
				 " LEFT JOIN threads t ON t.id = s.thread_id"
				 " WHERE s.run_id = ?1 ORDER BY s.time, s.seq",
				 p->run_id, cause);
	if (rc)
		return rc;
	db_row_init(&r, db, st, "samples");
	while (!r.rc && !rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "(run %lld, seq %lld)", (long long)p->run_id,
			   (long long)sqlite3_column_int64(st, SR_SEQ));
		if ((rc = db_grow((void **)&v, &cap, n, sizeof(*v))))
			break;
		struct db_sample_row *x = &v[n++];
		x->thread = db_row_null(&r, SR_THREAD) ? -1
			    : (int32_t)db_row_int(&r, SR_THREAD, 0, INT32_MAX, 0, 0);
		x->time = db_row_u64(&r, SR_TIME, 0);
		x->cpu = (uint32_t)db_row_int(&r, SR_CPU, 0, UINT32_MAX, 0, DB_NULL_OK);
		x->event = (uint32_t)db_row_int(&r, SR_EVENT, 0, (int64_t)p->nevents - 1,
						0, 0);
		x->weight = db_row_u64(&r, SR_WEIGHT, 0);
		x->stack = (uint32_t)db_row_int(&r, SR_STACK, 1, (int64_t)p->nstacks, 1, 0);
	}
	sqlite3_finalize(st);
	if (!rc && r.rc)
		rc = db_row_fail(&r, cause);
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, s, "cannot read the samples of", cause);
	if (rc) {
		free(v);
		return rc;
	}
	free(p->samples);
	p->samples = v;
	p->nsamples = n;
	return 0;
}
