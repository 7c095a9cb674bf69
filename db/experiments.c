/* experiments: store and load `prof ab` experiments and their runs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/procstat.h"
#include "db/experiments.h"
#include "db/internal.h"

#define EXP_SETTING_INS(X) \
	X(ESI_EXPERIMENT_ID, "experiment_id") \
	X(ESI_SEQ, "seq") \
	X(ESI_KEY, "key") \
	X(ESI_VALUE, "value")
enum { EXP_SETTING_INS(DB_COL_ENUM) ESI_N };
static const char *const exp_setting_ins[] = { EXP_SETTING_INS(DB_COL_SQL) };

#define ARM_INS(X) \
	X(AI_EXPERIMENT_ID, "experiment_id") \
	X(AI_IDX, "idx") \
	X(AI_NAME, "name") \
	X(AI_COMMAND, "command") \
	X(AI_ARGV, "argv")
enum { ARM_INS(DB_COL_ENUM) AI_N };
static const char *const arm_ins[] = { ARM_INS(DB_COL_SQL) };

#define ARM_SETTING_INS(X) \
	X(ASI_EXPERIMENT_ID, "experiment_id") \
	X(ASI_ARM_IDX, "arm_idx") \
	X(ASI_KEY, "key") \
	X(ASI_VALUE, "value")
enum { ARM_SETTING_INS(DB_COL_ENUM) ASI_N };
static const char *const arm_setting_ins[] = { ARM_SETTING_INS(DB_COL_SQL) };

/*
 * Who runs an experiment: the prof that made it, stored as settings
 * (owner.host, owner.boot, owner.pid, owner.start) so a later command
 * can tell a running experiment from one whose prof was killed. The
 * process start time (/proc/PID/stat, in clock ticks since boot) tells
 * the owner from a later process of the same pid, the boot id a pid of
 * an earlier boot; the host and the pid namespace keep another machine's
 * or another container's prof from being judged by pids it cannot see.
 * Where one is unreadable it is left out, and an experiment without all
 * of them is never judged.
 */
struct exp_owner {
	char host[256], boot[64], pidns[64], pid[24], start[24];
};

/* The start time of process pid (field 22 of its stat), or false. */
static bool proc_start(const char *pid, char *out, size_t len)
{
	struct proc_stat ps;
	if (proc_stat_read(pid, NULL, &ps))
		return false;
	int k = snprintf(out, len, "%llu", ps.starttime);
	return k > 0 && (size_t)k < len;
}

/* This boot's id, or false. */
static bool boot_id(char *out, size_t len)
{
	FILE *fp = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (!fp)
		return false;
	bool ok = fgets(out, (int)len, fp) != NULL;
	fclose(fp);
	if (ok)
		out[strcspn(out, "\n")] = 0;
	return ok && *out;
}

static void owner_self(struct exp_owner *o)
{
	memset(o, 0, sizeof(*o));
	if (gethostname(o->host, sizeof(o->host) - 1))
		o->host[0] = 0;
	if (!boot_id(o->boot, sizeof(o->boot)))
		o->boot[0] = 0;
	ssize_t k = readlink("/proc/self/ns/pid", o->pidns, sizeof(o->pidns) - 1);
	o->pidns[k > 0 ? k : 0] = 0;
	snprintf(o->pid, sizeof(o->pid), "%ld", (long)getpid());
	if (!proc_start("self", o->start, sizeof(o->start)))
		o->start[0] = 0;
}

/*
 * Whether the prof that made an experiment with these settings has gone
 * (killed, or its machine restarted): false where that cannot be told
 * (no owner stored, another machine's experiment).
 */
static bool owner_gone(const struct db_kv *set, size_t n)
{
	const char *host = db_kv_get(set, n, "owner.host");
	const char *boot = db_kv_get(set, n, "owner.boot");
	const char *pidns = db_kv_get(set, n, "owner.pidns");
	const char *pid = db_kv_get(set, n, "owner.pid");
	const char *start = db_kv_get(set, n, "owner.start");
	if (!host || !boot || !pidns || !pid || !start || !*pid ||
	    strspn(pid, "0123456789") != strlen(pid) || strlen(pid) > 10)
		return false;
	struct exp_owner me;
	owner_self(&me);
	if (!*me.host || !*me.boot || strcmp(host, me.host))
		return false;
	if (strcmp(boot, me.boot))
		return true;
	if (!*me.pidns || strcmp(pidns, me.pidns))
		return false;
	char now[24];
	return !proc_start(pid, now, sizeof(now)) || strcmp(now, start);
}

/* Store the calling process as the experiment's owner. */
static int store_owner(struct db *db, sqlite3_stmt *st, int64_t id, size_t seq,
		       char **cause)
{
	struct exp_owner o;
	owner_self(&o);
	const char *kv[][2] = {
		{ "owner.host", o.host }, { "owner.boot", o.boot },
		{ "owner.pidns", o.pidns }, { "owner.pid", o.pid },
		{ "owner.start", o.start },
	};
	int rc = 0;
	for (size_t k = 0; k < sizeof(kv) / sizeof(*kv) && !rc; k++) {
		if (!*kv[k][1])
			continue;
		sqlite3_bind_int64(st, DB_PARAM(ESI_EXPERIMENT_ID), id);
		sqlite3_bind_int(st, DB_PARAM(ESI_SEQ), (int)(seq + k));
		db_bind_text(st, DB_PARAM(ESI_KEY), kv[k][0]);
		db_bind_text(st, DB_PARAM(ESI_VALUE), kv[k][1]);
		rc = db_step_done(db, st, "cannot store the settings in", cause);
	}
	return rc;
}

/* The note of an experiment whose prof has gone; NULL with errno ENOMEM
 * when memory runs out. */
static char *gone_note(size_t nruns)
{
	char *s;
	if (asprintf(&s, "prof ended without finishing it (killed, or its machine "
		     "restarted): %zu run%s stored", nruns, nruns == 1 ? "" : "s") < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

/* Whether experiment id's prof has gone (its owner settings read); false
 * when that cannot be read, memory included: nothing is reaped then. */
static bool exp_gone(struct db *db, int64_t id)
{
	sqlite3_stmt *st;
	if (db_prepare(db, &st, "SELECT key, value FROM experiment_settings WHERE"
		       " experiment_id = ?1 AND key LIKE 'owner.%'", NULL))
		return false;
	sqlite3_bind_int64(st, 1, id);
	struct db_kv kv[8];
	size_t n = 0;
	bool nomem = false;
	while (n < 8 && sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *k = sqlite3_column_text(st, 0);
		const unsigned char *v = sqlite3_column_text(st, 1);
		kv[n].key = strdup(k ? (const char *)k : "");
		kv[n].value = strdup(v ? (const char *)v : "");
		n++;
		if (!kv[n - 1].key || !kv[n - 1].value) {
			nomem = true;
			break;
		}
	}
	sqlite3_finalize(st);
	bool gone = !nomem && owner_gone(kv, n);
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	return gone;
}

int db_experiments_reap(struct db *db)
{
	sqlite3_stmt *st;
	if (db_prepare(db, &st, "SELECT e.id, (SELECT count(*) FROM experiment_runs x"
		       " WHERE x.experiment_id = e.id) FROM experiments e"
		       " WHERE e.status = 'running'", NULL))
		return 0;
	int64_t *ids = NULL;
	size_t *runs = NULL, n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		/* Out of memory: reap the ones found so far (errors are
		 * ignored here; the next writable open tries again). */
		int64_t *ni = realloc(ids, (n + 1) * sizeof(*ids));
		if (ni)
			ids = ni;
		size_t *nr = ni ? realloc(runs, (n + 1) * sizeof(*runs)) : NULL;
		if (!nr)
			break;
		runs = nr;
		ids[n] = id;
		runs[n++] = (size_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	int marked = 0;
	for (size_t i = 0; i < n; i++) {
		if (!exp_gone(db, ids[i]))
			continue;
		char *note = gone_note(runs[i]);
		if (note && !db_experiment_finish(db, ids[i], "stopped", note, NULL))
			marked++;
		free(note);
	}
	free(ids);
	free(runs);
	return marked;
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
		" rounds, warmup, settle_s, gate_pct, aa, keep_going, kind) VALUES"
		" (?1, strftime('%Y-%m-%dT%H:%M:%SZ','now'), 'running', ?2, ?3, ?4, ?5,"
		" ?6, ?7, ?8, ?9, ?10)", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, hid);
	db_bind_text(st, 2, e->order);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)e->seed);
	sqlite3_bind_int(st, 4, e->rounds);
	sqlite3_bind_int(st, 5, e->warmup);
	sqlite3_bind_double(st, 6, e->settle_s);
	db_bind_real_or_null(st, 7, !isnan(e->gate_pct), e->gate_pct);
	sqlite3_bind_int(st, 8, e->aa);
	sqlite3_bind_int(st, 9, e->keep_going);
	db_bind_text(st, 10, e->kind ? e->kind : DB_EXP_KIND_AB);
	rc = db_step_done(db, st, "cannot store the experiment in", cause);
	sqlite3_finalize(st);
	if (rc)
		return rc;
	e->id = sqlite3_last_insert_rowid(db->h);

	rc = db_prepare_insert(db, &st, "experiment_settings", exp_setting_ins, ESI_N, cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < e->nsettings && !rc; i++) {
		sqlite3_bind_int64(st, DB_PARAM(ESI_EXPERIMENT_ID), e->id);
		sqlite3_bind_int(st, DB_PARAM(ESI_SEQ), (int)i);
		db_bind_text(st, DB_PARAM(ESI_KEY), e->settings[i].key);
		db_bind_long(st, DB_PARAM(ESI_VALUE), e->settings[i].value);
		rc = db_step_done(db, st, "cannot store the settings in", cause);
	}
	if (!rc)
		rc = store_owner(db, st, e->id, e->nsettings, cause);
	sqlite3_finalize(st);
	if (rc)
		return rc;

	sqlite3_stmt *as;
	rc = db_prepare_insert(db, &st, "arms", arm_ins, AI_N, cause);
	if (rc)
		return rc;
	rc = db_prepare_insert(db, &as, "arm_settings", arm_setting_ins, ASI_N, cause);
	if (rc) {
		sqlite3_finalize(st);
		return rc;
	}
	for (size_t a = 0; a < e->narms && !rc; a++) {
		const struct db_arm *arm = &e->arms[a];
		sqlite3_bind_int64(st, DB_PARAM(AI_EXPERIMENT_ID), e->id);
		sqlite3_bind_int(st, DB_PARAM(AI_IDX), (int)a);
		db_bind_text(st, DB_PARAM(AI_NAME), arm->name);
		db_bind_long(st, DB_PARAM(AI_COMMAND), arm->command);
		if (db_bind_argv(st, DB_PARAM(AI_ARGV), arm->argv, arm->argc)) {
			rc = db_nomem(db, "write", cause);
			break;
		}
		rc = db_step_done(db, st, "cannot store the arms in", cause);
		for (size_t k = 0; k < arm->nsettings && !rc; k++) {
			sqlite3_bind_int64(as, DB_PARAM(ASI_EXPERIMENT_ID), e->id);
			sqlite3_bind_int(as, DB_PARAM(ASI_ARM_IDX), (int)a);
			db_bind_text(as, DB_PARAM(ASI_KEY), arm->settings[k].key);
			db_bind_long(as, DB_PARAM(ASI_VALUE), arm->settings[k].value);
			rc = db_step_done(db, as, "cannot store the arm settings in", cause);
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(as);
	return rc;
}

int db_experiment_create(struct db *db, struct db_experiment *exp,
			 const struct db_host *host, char **cause)
{
	/* The loader reads no more: an experiment it refuses is not stored. */
	if (exp->narms > DB_EXP_ARMS_MAX) {
		if (cause && asprintf(cause, "cannot store an experiment of %zu arms: "
				      "prof reads back at most %d", exp->narms,
				      DB_EXP_ARMS_MAX) < 0)
			*cause = NULL;
		exp->id = 0;
		return -E2BIG;
	}
	int rc = db_begin(db, cause);
	if (rc)
		return rc;
	db_cuts_take();
	rc = create_body(db, exp, host, cause);
	/* An arm's command or a setting too long to store would run as
	 * something else when read back: refused, nothing stored. */
	struct db_cuts cut = db_cuts_take();
	if (!rc && cut.n) {
		if (cause && asprintf(cause, "cannot store the experiment: %zu of its "
				      "names, commands or settings are longer than prof "
				      "stores (the longest %zu bytes; at most %d for a "
				      "name, %d for a command)\nhint: shorten them, or "
				      "put the command in a script", cut.n, cut.longest,
				      DB_NAME_MAX, DB_TEXT_MAX) < 0)
			*cause = NULL;
		rc = -E2BIG;
	}
	if (rc) {
		db_rollback(db);
		exp->id = 0;
		return rc;
	}
	return db_commit(db, cause);
}

#define EXP_RUN_INS(X) \
	X(ERI_EXPERIMENT_ID, "experiment_id") \
	X(ERI_RUN_ID, "run_id") \
	X(ERI_ARM_IDX, "arm_idx") \
	X(ERI_ROUND, "round") \
	X(ERI_POSITION, "position") \
	X(ERI_WARMUP, "warmup")
enum { EXP_RUN_INS(DB_COL_ENUM) ERI_N };
static const char *const exp_run_ins[] = { EXP_RUN_INS(DB_COL_SQL) };

#define SCORE_INS(X) \
	X(RSI_RUN_ID, "run_id") \
	X(RSI_NAME, "name") \
	X(RSI_VALUE, "value") \
	X(RSI_FOUND, "found")
enum { SCORE_INS(DB_COL_ENUM) RSI_N };
static const char *const score_ins[] = { SCORE_INS(DB_COL_SQL) };

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
		rc = db_prepare_insert(db, &st, "experiment_runs", exp_run_ins, ERI_N, cause);
	if (!rc) {
		sqlite3_bind_int64(st, DB_PARAM(ERI_EXPERIMENT_ID), exp_id);
		sqlite3_bind_int64(st, DB_PARAM(ERI_RUN_ID), run->id);
		sqlite3_bind_int(st, DB_PARAM(ERI_ARM_IDX), arm);
		sqlite3_bind_int(st, DB_PARAM(ERI_ROUND), round);
		sqlite3_bind_int(st, DB_PARAM(ERI_POSITION), position);
		sqlite3_bind_int(st, DB_PARAM(ERI_WARMUP), warmup);
		rc = db_step_done(db, st, "cannot link the run in", cause);
		sqlite3_finalize(st);
		st = NULL;
	}
	if (!rc)
		rc = db_prepare_insert(db, &st, "run_scores", score_ins, RSI_N, cause);
	for (size_t i = 0; !rc && i < nscores; i++) {
		sqlite3_bind_int64(st, DB_PARAM(RSI_RUN_ID), run->id);
		db_bind_text(st, DB_PARAM(RSI_NAME), scores[i].name);
		db_bind_real_or_null(st, DB_PARAM(RSI_VALUE), scores[i].found,
				     scores[i].value);
		sqlite3_bind_int(st, DB_PARAM(RSI_FOUND), scores[i].found);
		rc = db_step_done(db, st, "cannot store the scores in", cause);
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
	db_bind_long(st, 3, note);
	rc = db_step_done(db, st, "cannot finish the experiment in", cause);
	sqlite3_finalize(st);
	return rc;
}

/* A key (required) and value (optional) of a settings row; -ENOMEM (and
 * r->rc) when memory runs out. */
static int kv_push(struct db_kv **v, size_t *n, struct db_row *r, int kcol, int vcol)
{
	struct db_kv *p = realloc(*v, (*n + 1) * sizeof(*p));
	if (!p)
		return db_row_nomem(r);
	*v = p;
	p[*n].key = db_row_text(r, kcol, 0);
	p[*n].value = db_row_text(r, vcol, DB_NULL_OK | DB_LONG);
	(*n)++;
	return r->rc == -ENOMEM ? -ENOMEM : 0;
}

/* A run's events, as the analysis reads them. */
#define RUN_EVENT_COLS(X) \
	X(VC_NAME, "name") \
	X(VC_SUPPORTED, "supported") \
	X(VC_VALUE, "value") \
	X(VC_ENABLED, "time_enabled") \
	X(VC_RUNNING, "time_running") \
	X(VC_IDX, "idx")
enum { RUN_EVENT_COLS(DB_COL_ENUM) VC_N };
static const char *const run_event_cols[] = { RUN_EVENT_COLS(DB_COL_SQL) };

static int run_event_row(struct db_row *r, struct db_load *l)
{
	struct db_exp_run *x = l->out;
	db_row_key(r, "(run %lld, idx %lld)", (long long)x->run_id,
		   (long long)sqlite3_column_int64(r->st, VC_IDX));
	size_t k = x->nevents;
	char **names = realloc(x->ev_names, (k + 1) * sizeof(char *));
	if (names)
		x->ev_names = names;
	bool *supported = names ? realloc(x->ev_supported, (k + 1) * sizeof(bool)) : NULL;
	if (supported)
		x->ev_supported = supported;
	double *values = supported ? realloc(x->ev_values, (k + 1) * sizeof(double)) : NULL;
	if (!values)
		return -ENOMEM;
	x->ev_values = values;
	x->nevents++;
	x->ev_names[k] = db_row_text(r, VC_NAME, 0);
	x->ev_supported[k] = db_row_bool(r, VC_SUPPORTED, 0);
	struct db_count c = { 0, 0, 0, false };
	if (!db_row_null(r, VC_VALUE)) {
		c.present = true;
		c.value = db_row_u64(r, VC_VALUE, 0);
		c.enabled = db_row_u64(r, VC_ENABLED, 0);
		c.running = db_row_u64(r, VC_RUNNING, 0);
	}
	double v;
	enum db_count_state cs = db_count_scaled(&c, &v);
	x->ev_values[k] = x->ev_supported[k] &&
			  (cs == COUNT_OK || cs == COUNT_SCALED) ? v : NAN;
	return 0;
}

/* The run's machine deltas: a name that did not move has no row. */
static int run_system_row(struct db_row *r, struct db_load *l)
{
	struct db_exp_run *x = l->out;
	db_row_key(r, "(run %lld, row %zu)", (long long)x->run_id, x->nsystem + 1);
	size_t k = x->nsystem;
	struct db_sysval *sys = realloc(x->system, (k + 1) * sizeof(*x->system));
	if (!sys)
		return -ENOMEM;
	x->system = sys;
	x->nsystem++;
	x->system[k].name = db_row_text(r, 0, 0);
	x->system[k].delta = db_row_int(r, 1, INT64_MIN, INT64_MAX, 0, 0);
	return 0;
}

static int run_setting_row(struct db_row *r, struct db_load *l)
{
	struct db_exp_run *x = l->out;
	db_row_key(r, "(run %lld, row %zu)", (long long)x->run_id, x->nsettings + 1);
	return kv_push(&x->settings, &x->nsettings, r, 0, 1);
}

const char *db_exp_run_setting_id(const struct db_exp_run *r, enum db_setting_id id)
{
	return db_kv_get(r->settings, r->nsettings, db_settings[id].name);
}

static int run_score_row(struct db_row *r, struct db_load *l)
{
	struct db_exp_run *x = l->out;
	db_row_key(r, "(run %lld, row %zu)", (long long)x->run_id, x->nscores + 1);
	size_t k = x->nscores;
	void *sc = realloc(x->scores, (k + 1) * sizeof(*x->scores));
	if (!sc)
		return -ENOMEM;
	x->scores = sc;
	x->nscores++;
	x->scores[k].name = db_row_text(r, 0, 0);
	x->scores[k].found = db_row_bool(r, 2, 0);
	x->scores[k].value = x->scores[k].found
			     ? db_row_real(r, 1, -HUGE_VAL, HUGE_VAL, NAN, 0) : NAN;
	return 0;
}

/* A run of an experiment: where it ran in the schedule, then the run's
 * own columns. */
#define EXP_RUN_COLS(X) \
	X(XC_RUN_ID, "x.run_id") \
	X(XC_ARM, "x.arm_idx") \
	X(XC_ROUND, "x.round") \
	X(XC_POSITION, "x.position") \
	X(XC_WARMUP, "x.warmup") \
	X(XC_EXIT, "r.exit_status") \
	X(XC_INTERRUPTED, "r.interrupted") \
	X(XC_WALL, "r.wall_s") \
	X(XC_USER, "r.user_s") \
	X(XC_SYS, "r.sys_s") \
	X(XC_PIN_MODE, "r.pin_mode") \
	X(XC_PIN_STATUS, "r.pin_status") \
	X(XC_PIN_CPUS, "r.pin_cpus") \
	X(XC_PIN_LEVEL, "r.pin_level") \
	X(XC_PIN_SIZE, "r.pin_size_bytes")
enum { EXP_RUN_COLS(DB_COL_ENUM) XC_N };
static const char *const exp_run_cols[] = { EXP_RUN_COLS(DB_COL_SQL) };

static int load_runs(struct db *db, struct db_experiment *e, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare_select(db, &st, exp_run_cols, XC_N,
		"FROM experiment_runs x JOIN runs r ON r.id = x.run_id"
		" WHERE x.experiment_id = ?1 ORDER BY x.run_id", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, e->id);
	int s;
	size_t cap = 0;
	struct db_row r;
	db_row_init(&r, db, st, "experiment_runs");
	int64_t narms = (int64_t)e->narms;
	while (!r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		if (e->nruns == cap) {
			cap = cap ? cap * 2 : 16;
			struct db_exp_run *p = realloc(e->runs, cap * sizeof(*p));
			if (!p) {
				sqlite3_finalize(st);
				return -ENOMEM;
			}
			e->runs = p;
		}
		struct db_exp_run *x = &e->runs[e->nruns++];
		memset(x, 0, sizeof(*x));
		x->run_id = sqlite3_column_int64(st, XC_RUN_ID);
		r.table = "experiment_runs";
		db_row_key(&r, "(experiment %lld, run %lld)", (long long)e->id,
			   (long long)x->run_id);
		/* The analysis pairs runs by arm and round: both in range. */
		if (narms == 0)
			db_row_bad(&r, XC_ARM, "%lld names an arm, but the experiment "
				   "has none", (long long)sqlite3_column_int64(st, XC_ARM));
		x->arm = (int)db_row_int(&r, XC_ARM, 0, narms - 1, 0, 0);
		x->warmup = db_row_bool(&r, XC_WARMUP, 0);
		if (x->warmup && e->warmup == 0)
			db_row_bad(&r, XC_WARMUP, "is 1, but the experiment has no "
				   "warm-up rounds");
		if (x->warmup)
			x->round = (int)db_row_int(&r, XC_ROUND, 0, e->warmup - 1, 0, 0);
		else
			x->round = (int)db_row_int(&r, XC_ROUND, 0, e->rounds - 1, 0, 0);
		x->position = (int)db_row_int(&r, XC_POSITION, 0, narms - 1, 0, 0);
		if (!r.rc) {
			r.table = "runs";
			db_row_key(&r, "%lld", (long long)x->run_id);
		}
		x->exit_status = (int)db_row_int(&r, XC_EXIT, INT32_MIN, INT32_MAX, 0,
						 DB_NULL_OK);
		x->interrupted = db_row_bool(&r, XC_INTERRUPTED, 0);
		x->wall_s = db_row_real(&r, XC_WALL, 0, DB_SECONDS_MAX, 0, DB_NULL_OK);
		x->user_s = db_row_real(&r, XC_USER, 0, DB_SECONDS_MAX, 0, DB_NULL_OK);
		x->sys_s = db_row_real(&r, XC_SYS, 0, DB_SECONDS_MAX, 0, DB_NULL_OK);
		x->pin_mode = db_row_text(&r, XC_PIN_MODE, DB_NULL_OK);
		x->pin_status = db_row_text(&r, XC_PIN_STATUS, DB_NULL_OK | DB_LONG);
		x->pin_cpus = db_row_text(&r, XC_PIN_CPUS, DB_NULL_OK | DB_CPUS);
		x->pin_level = (int)db_row_int(&r, XC_PIN_LEVEL, 0, 255, 0, DB_NULL_OK);
		x->pin_size_bytes = db_row_u64(&r, XC_PIN_SIZE, DB_NULL_OK);
	}
	sqlite3_finalize(st);
	if (r.rc)
		return db_row_fail(&r, cause);
	if (s != SQLITE_DONE)
		return db_fail(db, s, "cannot read", cause);

	sqlite3_stmt *ev, *sc, *sy, *rs;
	rc = db_prepare_select(db, &ev, run_event_cols, VC_N,
			       "FROM events WHERE run_id = ?1 ORDER BY idx", cause);
	if (rc)
		return rc;
	rc = db_prepare(db, &sc, "SELECT name, value, found FROM run_scores"
			" WHERE run_id = ?1 ORDER BY name", cause);
	if (rc) {
		sqlite3_finalize(ev);
		return rc;
	}
	rc = db_prepare(db, &sy, "SELECT name, delta FROM run_system"
			" WHERE run_id = ?1 ORDER BY idx", cause);
	if (rc) {
		sqlite3_finalize(ev);
		sqlite3_finalize(sc);
		return rc;
	}
	rc = db_prepare(db, &rs, "SELECT key, value FROM run_settings"
			" WHERE run_id = ?1 ORDER BY key", cause);
	if (rc) {
		sqlite3_finalize(ev);
		sqlite3_finalize(sc);
		sqlite3_finalize(sy);
		return rc;
	}
	for (size_t i = 0; i < e->nruns && !rc; i++) {
		struct db_load l = { .run_id = e->runs[i].run_id, .out = &e->runs[i] };
		rc = db_select_each(db, ev, "events", "cannot read the events from",
				    &l, run_event_row, cause);
		if (!rc)
			rc = db_select_each(db, sc, "run_scores",
					    "cannot read the scores from", &l,
					    run_score_row, cause);
		if (!rc)
			rc = db_select_each(db, sy, "run_system",
					    "cannot read the machine's deltas from", &l,
					    run_system_row, cause);
		if (!rc)
			rc = db_select_each(db, rs, "run_settings",
					    "cannot read the run settings from", &l,
					    run_setting_row, cause);
	}
	sqlite3_finalize(ev);
	sqlite3_finalize(sc);
	sqlite3_finalize(sy);
	sqlite3_finalize(rs);
	return rc;
}

#define EXP_COLS(X) \
	X(EC_ID, "e.id") \
	X(EC_HOST_ID, "e.host_id") \
	X(EC_HOSTNAME, "h.hostname") \
	X(EC_CPU_MODEL, "h.cpu_model") \
	X(EC_ONLINE_CPUS, "h.online_cpus") \
	X(EC_STARTED, "e.started") \
	X(EC_FINISHED, "e.finished") \
	X(EC_STATUS, "e.status") \
	X(EC_NOTE, "e.note") \
	X(EC_ORDER, "e.order_scheme") \
	X(EC_SEED, "e.seed") \
	X(EC_ROUNDS, "e.rounds") \
	X(EC_WARMUP, "e.warmup") \
	X(EC_SETTLE, "e.settle_s") \
	X(EC_GATE, "e.gate_pct") \
	X(EC_AA, "e.aa") \
	X(EC_KEEP_GOING, "e.keep_going") \
	X(EC_KIND, "e.kind")
enum { EXP_COLS(DB_COL_ENUM) EC_N };
static const char *const exp_cols[] = { EXP_COLS(DB_COL_SQL) };

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
	static const struct db_select q = {
		"experiments", exp_cols, EC_N,
		"FROM experiments e"
		" LEFT JOIN hosts h ON h.id = e.host_id WHERE e.id = ?1",
		"cannot read",
	};
	struct db_row r;
	int rc = db_select_one(db, &q, id, &r, cause);
	if (rc == 1) {
		if (cause && asprintf(cause, "no experiment %lld in '%s'\n"
				      "hint: 'prof compare' lists the stored "
				      "experiments", (long long)id, db->path) < 0)
			*cause = NULL;
		return -ENOENT;
	}
	if (rc)
		return rc;
	sqlite3_stmt *st = r.st;
	int s;
	out->id = sqlite3_column_int64(st, EC_ID);
	out->host_id = sqlite3_column_int64(st, EC_HOST_ID);
	/* No host row (or none named) leaves these NULL. */
	out->hostname = db_row_null(&r, EC_HOSTNAME) ? NULL
			: db_row_text(&r, EC_HOSTNAME, 0);
	out->cpu_model = db_row_null(&r, EC_CPU_MODEL) ? NULL
			 : db_row_text(&r, EC_CPU_MODEL, 0);
	out->online_cpus = (int)db_row_int(&r, EC_ONLINE_CPUS, 0, DB_CPUS_MAX, 0,
					   DB_NULL_OK);
	out->started = db_row_text(&r, EC_STARTED, 0);
	out->finished = db_row_text(&r, EC_FINISHED, DB_NULL_OK);
	out->status = db_row_text(&r, EC_STATUS, 0);
	out->note = db_row_text(&r, EC_NOTE, DB_NULL_OK | DB_LONG);
	out->order = db_row_text(&r, EC_ORDER, 0);
	out->seed = db_row_u64(&r, EC_SEED, DB_NULL_OK);
	out->rounds = (int)db_row_int(&r, EC_ROUNDS, 1, DB_EXP_ROUNDS_MAX, 1, 0);
	out->warmup = (int)db_row_int(&r, EC_WARMUP, 0, DB_EXP_WARMUP_MAX, 0, 0);
	out->settle_s = db_row_real(&r, EC_SETTLE, 0, 3600, 0, 0);
	out->gate_pct = db_row_real(&r, EC_GATE, 0, 1000, NAN, DB_NULL_OK);
	out->aa = db_row_bool(&r, EC_AA, 0);
	out->keep_going = db_row_bool(&r, EC_KEEP_GOING, 0);
	out->kind = db_row_text(&r, EC_KIND, 0);
	if (!r.rc && strcmp(out->kind, DB_EXP_KIND_AB) &&
	    strcmp(out->kind, DB_EXP_KIND_PRESSURE))
		db_row_bad(&r, EC_KIND, "'%.40s' is not a kind prof knows (ab, "
			   "pressure)", out->kind);
	sqlite3_finalize(st);
	if (r.rc) {
		rc = db_row_fail(&r, cause);
		goto fail;
	}

	rc = db_prepare(db, &st, "SELECT key, value, seq FROM experiment_settings"
			" WHERE experiment_id = ?1 ORDER BY seq", cause);
	if (rc)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	db_row_init(&r, db, st, "experiment_settings");
	while (!r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "(experiment %lld, seq %lld)", (long long)id,
			   (long long)sqlite3_column_int64(st, 2));
		kv_push(&out->settings, &out->nsettings, &r, 0, 1);
	}
	sqlite3_finalize(st);
	if (r.rc || s != SQLITE_DONE) {
		rc = r.rc ? db_row_fail(&r, cause)
		     : db_fail(db, s, "cannot read the settings from", cause);
		goto fail;
	}

	rc = db_prepare(db, &st, "SELECT idx, name, command, argv FROM arms"
			" WHERE experiment_id = ?1 ORDER BY idx", cause);
	if (rc)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	db_row_init(&r, db, st, "arms");
	while (!r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "(experiment %lld, idx %lld)", (long long)id,
			   (long long)sqlite3_column_int64(st, 0));
		/* Runs name their arm by idx: it must count 0, 1, 2 ... */
		db_row_int(&r, 0, (int64_t)out->narms, (int64_t)out->narms, 0, 0);
		if (out->narms == DB_EXP_ARMS_MAX)
			db_row_bad(&r, -1, "is one more than the %d arms prof loads",
				   DB_EXP_ARMS_MAX);
		if (r.rc)
			break;
		struct db_arm *p = realloc(out->arms, (out->narms + 1) * sizeof(*p));
		if (!p) {
			db_row_nomem(&r);
			break;
		}
		out->arms = p;
		struct db_arm *a = &p[out->narms++];
		memset(a, 0, sizeof(*a));
		a->name = db_row_text(&r, 1, 0);
		a->command = db_row_text(&r, 2, DB_LONG);
		db_row_argv(&r, 3, &a->argv, &a->argc);	/* out of memory: r.rc */
	}
	sqlite3_finalize(st);
	if (r.rc || s != SQLITE_DONE) {
		rc = r.rc ? db_row_fail(&r, cause)
		     : db_fail(db, s, "cannot read the arms from", cause);
		goto fail;
	}
	rc = db_prepare(db, &st, "SELECT arm_idx, key, value FROM arm_settings"
			" WHERE experiment_id = ?1 ORDER BY arm_idx, key", cause);
	if (rc)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	db_row_init(&r, db, st, "arm_settings");
	while (!r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "(experiment %lld, arm_idx %lld)", (long long)id,
			   (long long)sqlite3_column_int64(st, 0));
		if (out->narms == 0)
			db_row_bad(&r, 0, "%lld names an arm, but the experiment has "
				   "none", (long long)sqlite3_column_int64(st, 0));
		int64_t a = db_row_int(&r, 0, 0, (int64_t)out->narms - 1, 0, 0);
		if (!r.rc)
			kv_push(&out->arms[a].settings, &out->arms[a].nsettings, &r, 1, 2);
	}
	sqlite3_finalize(st);
	if (r.rc || s != SQLITE_DONE) {
		rc = r.rc ? db_row_fail(&r, cause)
		     : db_fail(db, s, "cannot read the arm settings from", cause);
		goto fail;
	}
	rc = load_runs(db, out, cause);
	if (rc)
		goto fail;
	/* Read where it could not be marked (a read-only open), an experiment
	 * whose prof has gone reads as stopped all the same. */
	if (!strcmp(out->status, "running") && owner_gone(out->settings, out->nsettings)) {
		free(out->status);
		free(out->note);
		out->status = strdup("stopped");
		out->note = gone_note(out->nruns);
		if (!out->status || !out->note) {
			rc = cause_set(cause, ENOMEM, "cannot read database '%s': out of "
				       "memory", db->path);
			goto fail;
		}
	}
	return 0;
fail:
	/* A loader that ran out of memory may not have said so itself. */
	if (rc == -ENOMEM && cause && !*cause)
		cause_set(cause, ENOMEM, "cannot read experiment %lld from '%s': out "
			  "of memory", (long long)id, db->path);
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
	free(e->kind);
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
		for (size_t k = 0; k < r->nsystem; k++)
			free(r->system[k].name);
		free(r->system);
		kv_free(r->settings, r->nsettings);
	}
	free(e->runs);
	memset(e, 0, sizeof(*e));
}

/* Steps st, a prepared "SELECT max(e.id) ...", and finalizes it: the id,
 * 0 when none matched, or -errno with *cause. */
static int64_t newest_id(struct db *db, sqlite3_stmt *st, char **cause)
{
	int s = sqlite3_step(st);
	int64_t id = s == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (s != SQLITE_ROW)
		return db_fail(db, s, "cannot read", cause);
	return id;
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
	db_bind_long(st, 2, command);	/* cut as the stored one was */
	db_cuts_take();
	return newest_id(db, st, cause);
}

int64_t db_experiment_latest_of(struct db *db, int64_t host_id, const char *kind,
				const char *command, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st, "SELECT max(e.id) FROM experiments e"
			    " WHERE e.kind = ?2 AND e.status = 'complete'"
			    " AND e.host_id = ?1 AND EXISTS (SELECT 1 FROM arms a"
			    " WHERE a.experiment_id = e.id AND a.command = ?3)", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, host_id);
	db_bind_text(st, 2, kind);
	db_bind_long(st, 3, command);	/* cut as the stored one was */
	db_cuts_take();
	return newest_id(db, st, cause);
}

#define EXP_LIST_COLS(X) \
	X(LS_ID, "e.id") \
	X(LS_KIND, "e.kind") \
	X(LS_STARTED, "e.started") \
	X(LS_STATUS, "e.status") \
	X(LS_AA, "e.aa") \
	X(LS_ROUNDS, "e.rounds") \
	X(LS_ARMS, "(SELECT count(*) FROM arms a WHERE a.experiment_id = e.id)") \
	X(LS_RUNS, "(SELECT count(*) FROM experiment_runs x" \
		   " WHERE x.experiment_id = e.id)") \
	X(LS_NAMES, "(SELECT group_concat(name, ', ') FROM (SELECT name FROM arms a" \
		    "   WHERE a.experiment_id = e.id ORDER BY idx))")
enum { EXP_LIST_COLS(DB_COL_ENUM) LS_N };
static const char *const exp_list_cols[] = { EXP_LIST_COLS(DB_COL_SQL) };

int db_experiments_list(struct db *db, struct db_experiment_summary **out,
			size_t *n, char **cause)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st;
	int rc = db_prepare_select(db, &st, exp_list_cols, LS_N,
				   "FROM experiments e ORDER BY e.id", cause);
	if (rc)
		return rc;
	int s;
	struct db_row r;
	db_row_init(&r, db, st, "experiments");
	while (!r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_experiment_summary *p = realloc(*out, (*n + 1) * sizeof(*p));
		if (!p) {
			db_row_nomem(&r);
			break;
		}
		*out = p;
		struct db_experiment_summary *x = &p[(*n)++];
		x->id = sqlite3_column_int64(st, LS_ID);
		db_row_key(&r, "%lld", (long long)x->id);
		x->kind = db_row_text(&r, LS_KIND, 0);
		x->started = db_row_text(&r, LS_STARTED, 0);
		x->status = db_row_text(&r, LS_STATUS, 0);
		x->aa = db_row_bool(&r, LS_AA, 0);
		x->rounds = (int)db_row_int(&r, LS_ROUNDS, 1, DB_EXP_ROUNDS_MAX, 1, 0);
		x->narms = (size_t)sqlite3_column_int64(st, LS_ARMS);
		x->nruns = (size_t)sqlite3_column_int64(st, LS_RUNS);
		/* Arm names joined: each at most a name, so DB_LONG. */
		x->arms = db_row_text(&r, LS_NAMES, DB_NULL_OK | DB_LONG);
		if (!r.rc && !strcmp(x->status, "running") && exp_gone(db, x->id)) {
			free(x->status);
			x->status = strdup("stopped");
			if (!x->status)
				db_row_nomem(&r);
		}
	}
	sqlite3_finalize(st);
	if (r.rc || s != SQLITE_DONE) {
		db_experiments_list_free(*out, *n);
		*out = NULL;
		*n = 0;
		return r.rc ? db_row_fail(&r, cause)
		       : db_fail(db, s, "cannot list the experiments in", cause);
	}
	return 0;
}

void db_experiments_list_free(struct db_experiment_summary *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].kind);
		free(v[i].started);
		free(v[i].status);
		free(v[i].arms);
	}
	free(v);
}
