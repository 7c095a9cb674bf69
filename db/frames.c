/*
 * frames: a run's frames and each thread name's counter deltas per
 * frame (prof run --frame-regex, prof_frame() markers), stored with the
 * run; see docs/schema.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"

#define FR_INS(X) \
	X(FI_RUN_ID, "run_id") \
	X(FI_IDX, "idx") \
	X(FI_T_NS, "t_ns") \
	X(FI_DUR_NS, "dur_ns")
enum { FR_INS(DB_COL_ENUM) FI_N };
static const char *const fr_ins[] = { FR_INS(DB_COL_SQL) };

#define FC_INS(X) \
	X(CI_RUN_ID, "run_id") \
	X(CI_FRAME, "frame_idx") \
	X(CI_NAME, "name") \
	X(CI_EVENT, "event_idx") \
	X(CI_VALUE, "value")
enum { FC_INS(DB_COL_ENUM) CI_N };
static const char *const fc_ins[] = { FC_INS(DB_COL_SQL) };

static void bind_frame(sqlite3_stmt *st, size_t r, size_t i, const void *arg)
{
	const struct db_run *run = arg;
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, FI_N, FI_RUN_ID), run->id);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, FI_N, FI_IDX), (sqlite3_int64)i);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, FI_N, FI_T_NS), run->frames[i].t_ns);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, FI_N, FI_DUR_NS), run->frames[i].dur_ns);
}

static void bind_count(sqlite3_stmt *st, size_t r, size_t i, const void *arg)
{
	const struct db_run *run = arg;
	const struct db_frame_count *c = &run->frame_counts[i];
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, CI_N, CI_RUN_ID), run->id);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, CI_N, CI_FRAME), c->frame);
	db_bind_text(st, DB_PARAM_ROW(r, CI_N, CI_NAME), c->name ? c->name : "");
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, CI_N, CI_EVENT), c->event);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, CI_N, CI_VALUE), c->value);
}

static int store_frames(struct db *db, const struct db_run *run, char **cause)
{
	return db_insert_rows(db, "frames", fr_ins, FI_N, run->nframes, bind_frame,
			      run, "cannot store the frames in", cause);
}

static int store_counts(struct db *db, const struct db_run *run, char **cause)
{
	return db_insert_rows(db, "frame_counts", fc_ins, CI_N, run->nframe_counts,
			      bind_count, run, "cannot store the frame counts in",
			      cause);
}

/*
 * What db_frames_load would refuse is refused here, before a row is
 * written: a stored run always reads back (prof/ checks what it is fed;
 * this holds whatever a caller hands in).
 */
static int check_frames(const struct db *db, const struct db_run *run,
			char **cause)
{
	char what[96] = "";
	for (size_t i = 0; i < run->nframes && !*what; i++)
		if (run->frames[i].t_ns < 0 || run->frames[i].dur_ns < 0)
			snprintf(what, sizeof(what), "frame %zu starts or lasts "
				 "less than 0 ns", i);
	for (size_t i = 0; i < run->nframe_counts && !*what; i++) {
		const struct db_frame_count *c = &run->frame_counts[i];
		if (c->frame >= run->nframes || c->event >= run->nevents)
			snprintf(what, sizeof(what), "frame count %zu names no "
				 "frame or event of the run", i);
		else if (c->value < 0)
			snprintf(what, sizeof(what), "frame count %zu is negative", i);
	}
	if (!*what)
		return 0;
	if (cause && !*cause &&
	    asprintf(cause, "cannot store run %lld in '%s': %s, which could not "
		     "be read back", (long long)run->id, db->path, what) < 0)
		*cause = NULL;
	return -EINVAL;
}

int db_frames_store(struct db *db, const struct db_run *run, char **cause)
{
	int rc = check_frames(db, run, cause);
	if (!rc)
		rc = store_frames(db, run, cause);
	return rc ? rc : store_counts(db, run, cause);
}

#define FR_COLS(X) \
	X(FC_T_NS, "t_ns") \
	X(FC_DUR_NS, "dur_ns")
enum { FR_COLS(DB_COL_ENUM) FC_N };
static const char *const fr_cols[] = { FR_COLS(DB_COL_SQL) };

#define CN_COLS(X) \
	X(CC_FRAME, "frame_idx") \
	X(CC_NAME, "name") \
	X(CC_EVENT, "event_idx") \
	X(CC_VALUE, "value")
enum { CN_COLS(DB_COL_ENUM) CC_N };
static const char *const cn_cols[] = { CN_COLS(DB_COL_SQL) };

static int frame_row(struct db_row *r, struct db_load *l)
{
	struct db_run *run = l->out;
	db_row_key(r, "(run %lld, frame %zu)", (long long)run->id, run->nframes);
	if (db_grow((void **)&run->frames, &l->cap, run->nframes, sizeof(*run->frames)))
		return -ENOMEM;
	struct db_frame_span *fr = &run->frames[run->nframes++];
	fr->t_ns = db_row_int(r, FC_T_NS, 0, INT64_MAX, 0, 0);
	fr->dur_ns = db_row_int(r, FC_DUR_NS, 0, INT64_MAX, 0, 0);
	return 0;
}

static const struct db_select frame_sel = {
	"frames", fr_cols, FC_N,
	"FROM frames WHERE run_id = ?1 ORDER BY idx",
	"cannot read the frames from",
};

/*
 * name as one of the run's frame_names (taking it, or freeing it for an
 * equal one kept before): the previous row's name, else one of the
 * first NAMES_LOOKED kept. A file of more distinct names than that
 * keeps each new one again, so that a row costs a bounded look. NULL
 * (name freed) when memory runs out.
 */
#define NAMES_LOOKED 256
static const char *frame_name(struct db_run *run, char *name, size_t *cap)
{
	size_t n = run->nframe_names;
	if (n && !strcmp(run->frame_names[n - 1], name)) {
		free(name);
		return run->frame_names[n - 1];
	}
	for (size_t i = 0; i < n && i < NAMES_LOOKED; i++)
		if (!strcmp(run->frame_names[i], name)) {
			free(name);
			return run->frame_names[i];
		}
	if (db_grow((void **)&run->frame_names, cap, n, sizeof(*run->frame_names))) {
		free(name);
		return NULL;
	}
	run->frame_names[run->nframe_names++] = name;
	return name;
}

/* The counts' loop: the frames loaded, and the names kept. */
struct count_load {
	struct db_run *run;
	size_t names_cap;
};

static int count_row(struct db_row *r, struct db_load *l)
{
	struct count_load *cl = l->out;
	struct db_run *run = cl->run;
	db_row_key(r, "(run %lld, row %zu)", (long long)run->id, run->nframe_counts);
	int64_t f = db_row_int(r, CC_FRAME, 0,
			       run->nframes ? (int64_t)run->nframes - 1 : 0, 0, 0);
	int64_t e = db_row_int(r, CC_EVENT, 0,
			       run->nevents ? (int64_t)run->nevents - 1 : 0, 0, 0);
	int64_t v = db_row_int(r, CC_VALUE, 0, INT64_MAX, 0, 0);
	char *name = db_row_text(r, CC_NAME, 0);
	if (r->rc || (size_t)f >= run->nframes || (size_t)e >= run->nevents) {
		free(name);
		return 0;
	}
	if (db_grow((void **)&run->frame_counts, &l->cap, run->nframe_counts,
		    sizeof(*run->frame_counts))) {
		free(name);
		return -ENOMEM;
	}
	const char *kept = frame_name(run, name, &cl->names_cap);
	if (!kept)
		return -ENOMEM;
	run->frame_counts[run->nframe_counts++] = (struct db_frame_count){
		.frame = (uint32_t)f, .name = kept, .event = (uint32_t)e, .value = v,
	};
	return 0;
}

static const struct db_select count_sel = {
	"frame_counts", cn_cols, CC_N,
	"FROM frame_counts WHERE run_id = ?1 ORDER BY frame_idx, name, event_idx",
	"cannot read the frame counts from",
};

int db_frames_load(struct db *db, struct db_run *run, char **cause)
{
	struct db_load l = { .run_id = run->id, .out = run };
	int rc = db_select_run(db, &frame_sel, &l, frame_row, cause);
	if (rc)
		return rc;
	struct count_load cl = { .run = run };
	l.out = &cl;
	return db_select_run(db, &count_sel, &l, count_row, cause);
}

void db_frames_release(struct db_run *run)
{
	for (size_t i = 0; i < run->nframe_names; i++)
		free(run->frame_names[i]);
	free(run->frame_names);
	run->frame_names = NULL;
	run->nframe_names = 0;
	free(run->frame_counts);
	run->frame_counts = NULL;
	run->nframe_counts = 0;
	free(run->frames);
	run->frames = NULL;
	run->nframes = 0;
}
