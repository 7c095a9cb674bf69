/*
 * runs: store and load runs, their events, threads and counts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cause.h"
#include "common/utf8.h"
#include "db/internal.h"
#include "db/runs.h"
#include "db/sleep.h"
#include "db/tags.h"

enum db_count_state db_count_scaled(const struct db_count *c, double *out)
{
	if (!c || !c->present)
		return COUNT_ABSENT;
	if (c->running == 0 && c->enabled > 0)
		return COUNT_NOT_COUNTED;
	if (c->running == 0 && c->enabled == 0) {
		/* Never enabled: a thread that did not live long enough for
		 * the clock to tick still counted what it counted. */
		*out = (double)c->value;
		return COUNT_OK;
	}
	if (c->running < c->enabled) {
		*out = (double)c->value * (double)c->enabled / (double)c->running;
		return COUNT_SCALED;
	}
	*out = (double)c->value;
	return COUNT_OK;
}

int db_run_set_dynamic(struct db_run *run, const char *key, const char *value)
{
	char *v = value ? strdup(value) : NULL;
	if (value && !v)
		goto nomem;
	for (size_t i = 0; i < run->nsettings; i++) {
		if (!strcmp(run->settings[i].key, key)) {
			free(run->settings[i].value);
			run->settings[i].value = v;
			return 0;
		}
	}
	char *k = strdup(key);
	struct db_kv *p = k ? realloc(run->settings, (run->nsettings + 1) * sizeof(*p))
			    : NULL;
	if (!p) {
		free(k);
		free(v);
		goto nomem;
	}
	run->settings = p;
	p[run->nsettings].key = k;
	p[run->nsettings].value = v;
	run->nsettings++;
	return 0;
nomem:
	run->settings_lost = true;	/* db_run_store refuses the run */
	return -ENOMEM;
}

const char *db_kv_get(const struct db_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].value;
	return NULL;
}

bool db_sysval_get(const struct db_sysval *v, size_t n, const char *name,
		   int64_t *delta)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name)) {
			*delta = v[i].delta;
			return true;
		}
	*delta = 0;
	return false;
}

long db_run_event_by_attr(const struct db_run *run, uint32_t type, uint64_t config)
{
	for (size_t e = 0; e < run->nevents; e++)
		if (run->events[e].supported && run->events[e].attr_type == type &&
		    run->events[e].attr_config == config)
			return (long)e;
	return -1;
}

const char *db_run_get_dynamic(const struct db_run *run, const char *key)
{
	return db_kv_get(run->settings, run->nsettings, key);
}

int db_run_complete(const struct db_run *run, const char **reasons)
{
	const char *c = db_get_text(run, SET_COMPLETE);
	if (reasons)
		*reasons = NULL;
	if (!c)
		return -1;
	if (!strcmp(c, "yes"))
		return 1;
	if (reasons) {
		const char *why = db_get_str(run, SET_INCOMPLETE);
		*reasons = why ? why : "no reason was stored";
	}
	return 0;
}

int64_t db_host_id(struct db *db, const struct db_host *h, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st,
		"INSERT INTO hosts (hostname, kernel, cpu_model, online_cpus, first_seen)"
		" VALUES (?1, ?2, ?3, ?4, strftime('%Y-%m-%dT%H:%M:%SZ','now'))"
		" ON CONFLICT (hostname, kernel, cpu_model, online_cpus)"
		" DO UPDATE SET hostname = excluded.hostname RETURNING id", cause);
	if (rc)
		return rc;
	db_bind_text(st, 1, h->hostname ? h->hostname : "?");
	db_bind_text(st, 2, h->kernel ? h->kernel : "?");
	db_bind_text(st, 3, h->cpu_model ? h->cpu_model : "?");
	sqlite3_bind_int(st, 4, h->online_cpus);
	int s = sqlite3_step(st);
	int64_t id = s == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (s != SQLITE_ROW)
		return db_fail(db, s, "cannot store the host in", cause);
	return id;
}

int db_bind_argv(sqlite3_stmt *st, int idx, char **argv, int argc)
{
	size_t len = 0;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	/* What the loader reads, DB_TEXT_MAX bytes: the arguments that fit
	 * whole, then as much of the next as fits, cut on a character. */
	size_t room = len < DB_TEXT_MAX ? len : DB_TEXT_MAX;
	char *blob = malloc(room ? room : 1);
	if (!blob)
		return -ENOMEM;
	size_t o = 0;
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]);
		if (o + l + 1 > room) {
			if (room - o >= 2) {
				l = utf8_cut(argv[i], l, room - o - 1);
				memcpy(blob + o, argv[i], l);
				blob[o + l] = '\0';
				o += l + 1;
			}
			db_cut_count(len);
			break;
		}
		memcpy(blob + o, argv[i], l + 1);
		o += l + 1;
	}
	if (sqlite3_bind_blob(st, idx, blob, (int)o, free) != SQLITE_OK)
		return -ENOMEM;	/* SQLite freed blob */
	return 0;
}

/* What db_run_store writes, a list per table (db/internal.h). */
#define RUN_INS(X) \
	X(RI_HOST, "host_id") \
	X(RI_KIND, "kind") \
	X(RI_STARTED, "started") \
	X(RI_COMMAND, "command") \
	X(RI_ARGV, "argv") \
	X(RI_CWD, "cwd") \
	X(RI_PID, "pid") \
	X(RI_EXIT, "exit_status") \
	X(RI_SIGNAL, "term_signal") \
	X(RI_INTERRUPTED, "interrupted") \
	X(RI_WALL, "wall_s") \
	X(RI_USER, "user_s") \
	X(RI_SYS, "sys_s") \
	X(RI_LOST, "lost_records") \
	X(RI_PARANOID, "paranoid") \
	X(RI_VERSION, "prof_version") \
	X(RI_PIN_MODE, "pin_mode") \
	X(RI_PIN_STATUS, "pin_status") \
	X(RI_PIN_CPUS, "pin_cpus") \
	X(RI_PIN_LEVEL, "pin_level") \
	X(RI_PIN_TYPE, "pin_cache_type") \
	X(RI_PIN_SIZE, "pin_size_bytes") \
	X(RI_NOTE, "note")
enum { RUN_INS(DB_COL_ENUM) RI_N };
static const char *const run_ins[] = { RUN_INS(DB_COL_SQL) };

#define SETTING_INS(X) \
	X(SI_RUN, "run_id") \
	X(SI_KEY, "key") \
	X(SI_VALUE, "value")
enum { SETTING_INS(DB_COL_ENUM) SI_N };
static const char *const setting_ins[] = { SETTING_INS(DB_COL_SQL) };

#define EVENT_INS(X) \
	X(EI_RUN, "run_id") \
	X(EI_IDX, "idx") \
	X(EI_NAME, "name") \
	X(EI_CANONICAL, "canonical") \
	X(EI_SUPPORTED, "supported") \
	X(EI_REASON, "reason") \
	X(EI_GROUP, "grp") \
	X(EI_USER_ONLY, "user_only") \
	X(EI_TYPE, "attr_type") \
	X(EI_CONFIG, "attr_config") \
	X(EI_CONFIG1, "attr_config1") \
	X(EI_CONFIG2, "attr_config2") \
	X(EI_EXCL_USER, "exclude_user") \
	X(EI_EXCL_KERNEL, "exclude_kernel") \
	X(EI_EXCL_HV, "exclude_hv") \
	X(EI_VALUE, "value") \
	X(EI_ENABLED, "time_enabled") \
	X(EI_RUNNING, "time_running") \
	X(EI_MISSION_FAMILY, "mission_family") \
	X(EI_MISSION_EVENT, "mission_event") \
	X(EI_MISSION_NOTE, "mission_note")
enum { EVENT_INS(DB_COL_ENUM) EI_N };
static const char *const event_ins[] = { EVENT_INS(DB_COL_SQL) };

#define THREAD_INS(X) \
	X(TI_ID, "id") \
	X(TI_RUN, "run_id") \
	X(TI_SEQ, "seq") \
	X(TI_TID, "tid") \
	X(TI_PID, "pid") \
	X(TI_NAME, "name") \
	X(TI_MAIN, "is_main") \
	X(TI_START, "start_ns") \
	X(TI_END, "end_ns") \
	X(TI_PPID, "ppid") \
	X(TI_COUNTS, "counts")
enum { THREAD_INS(DB_COL_ENUM) TI_N };
static const char *const thread_ins[] = { THREAD_INS(DB_COL_SQL) };

#define PMU_COUNT_INS(X) \
	X(PI_THREAD, "thread_id") \
	X(PI_PMU, "pmu") \
	X(PI_EVENT, "event_idx") \
	X(PI_VALUE, "value") \
	X(PI_ENABLED, "time_enabled") \
	X(PI_RUNNING, "time_running")
enum { PMU_COUNT_INS(DB_COL_ENUM) PI_N };
static const char *const pmu_count_ins[] = { PMU_COUNT_INS(DB_COL_SQL) };

#define MODULE_INS(X) \
	X(MI_RUN, "run_id") \
	X(MI_IDX, "idx") \
	X(MI_PATH, "path") \
	X(MI_KIND, "kind") \
	X(MI_BUILD_ID, "build_id") \
	X(MI_EXEC, "exec_bytes") \
	X(MI_TEXT, "text_bytes") \
	X(MI_SECTIONS, "exec_section_bytes") \
	X(MI_TOUCHED, "touched_bytes") \
	X(MI_FAULTED, "faulted_bytes") \
	X(MI_FAULTS, "faults") \
	X(MI_NPROCS, "nprocs") \
	X(MI_ERROR, "error") \
	X(MI_REPLAYED, "touched_replayed")
enum { MODULE_INS(DB_COL_ENUM) MI_N };
static const char *const module_ins[] = { MODULE_INS(DB_COL_SQL) };

#define WS_INS(X) \
	X(WI_RUN, "run_id") \
	X(WI_KIND, "kind") \
	X(WI_TOUCHED, "touched_bytes") \
	X(WI_FAULTED, "faulted_bytes") \
	X(WI_FAULTS, "faults")
enum { WS_INS(DB_COL_ENUM) WI_N };
static const char *const ws_ins[] = { WS_INS(DB_COL_SQL) };

static int store_modules(struct db *db, const struct db_run *run, char **cause);

/* Thread th's counts per core PMU (row thid), where there are some. */
static int store_pmu_counts(struct db *db, sqlite3_stmt *st,
			    const struct db_run *run, const struct db_thread *th,
			    int64_t thid, char **cause)
{
	int rc = 0;
	for (size_t p = 0; th->pmu_counts && p < run->ncore_pmus && !rc; p++) {
		for (size_t e = 0; e < run->nevents && !rc; e++) {
			const struct db_count *c = &th->pmu_counts[p * run->nevents + e];
			if (!c->present)
				continue;
			sqlite3_bind_int64(st, DB_PARAM(PI_THREAD), thid);
			db_bind_text(st, DB_PARAM(PI_PMU), run->core_pmus[p]);
			sqlite3_bind_int(st, DB_PARAM(PI_EVENT), (int)e);
			sqlite3_bind_int64(st, DB_PARAM(PI_VALUE), (sqlite3_int64)c->value);
			sqlite3_bind_int64(st, DB_PARAM(PI_ENABLED),
					   (sqlite3_int64)c->enabled);
			sqlite3_bind_int64(st, DB_PARAM(PI_RUNNING),
					   (sqlite3_int64)c->running);
			rc = db_step_done(db, st, "cannot store the counts per PMU in",
					  cause);
		}
	}
	return rc;
}

/* A run's threads as rows: thread t is row id0 + t (ids chosen, not
 * given by SQLite one insert at a time, so that the rows go in many to a
 * statement); json a buffer of DB_INSERT_ROWS slots of json_max bytes,
 * one for each row of a statement's counts (count_json), which SQLite
 * reads in place when the statement is stepped. */
struct thread_rows {
	const struct db_run *run;
	int64_t id0;
	char *json;
	size_t json_max;
};

/* The longest count_json of a run of n events: "[", then per event
 * "[v,e,r]," (three signed 64-bit numbers of at most 20 characters), "]". */
static size_t count_json_max(size_t n)
{
	return 2 + n * (3 * 20 + 5) + 1;
}

/* v as decimal at p (the counter's bits as a signed 64-bit integer, as
 * SQLite keeps it); the end. snprintf took a fifth of the store. */
static char *put_i64(char *p, uint64_t bits)
{
	char tmp[20];
	int n = 0;
	uint64_t v = bits;
	if ((int64_t)bits < 0) {
		*p++ = '-';
		v = (uint64_t)0 - bits;
	}
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* Thread th's counts as threads.counts holds them (schema v21): element
 * e is [value, time_enabled, time_running], null where none arrived. */
static const char *count_json(char *buf, const struct db_thread *th, size_t nevents)
{
	char *p = buf;
	*p++ = '[';
	for (size_t e = 0; e < nevents; e++) {
		const struct db_count *c = th->counts ? &th->counts[e] : NULL;
		if (e)
			*p++ = ',';
		if (!c || !c->present) {
			memcpy(p, "null", 4);
			p += 4;
			continue;
		}
		*p++ = '[';
		p = put_i64(p, c->value);
		*p++ = ',';
		p = put_i64(p, c->enabled);
		*p++ = ',';
		p = put_i64(p, c->running);
		*p++ = ']';
	}
	*p++ = ']';
	*p = '\0';
	return buf;
}

static void bind_thread(sqlite3_stmt *st, size_t r, size_t t, const void *arg)
{
	const struct thread_rows *tr = arg;
	const struct db_thread *th = &tr->run->threads[t];
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, TI_N, TI_ID), tr->id0 + (int64_t)t);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, TI_N, TI_RUN), tr->run->id);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, TI_N, TI_SEQ), (sqlite3_int64)t);
	sqlite3_bind_int(st, DB_PARAM_ROW(r, TI_N, TI_TID), th->tid);
	sqlite3_bind_int(st, DB_PARAM_ROW(r, TI_N, TI_PID), th->pid);
	db_bind_text_kept(st, DB_PARAM_ROW(r, TI_N, TI_NAME), th->name);
	sqlite3_bind_int(st, DB_PARAM_ROW(r, TI_N, TI_MAIN), th->is_main);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, TI_N, TI_START), th->start_ns);
	sqlite3_bind_int64(st, DB_PARAM_ROW(r, TI_N, TI_END), th->end_ns);
	db_bind_int_or_null(st, DB_PARAM_ROW(r, TI_N, TI_PPID), th->ppid != 0, th->ppid);
	const char *js = count_json(tr->json + r * tr->json_max, th, tr->run->nevents);
	if (sqlite3_bind_text(st, DB_PARAM_ROW(r, TI_N, TI_COUNTS), js, -1,
			      SQLITE_STATIC) != SQLITE_OK)
		db_bind_failed();
}

/* The run's threads, each with its counts (and per core PMU, where
 * there are some). Inside the run's transaction: no other writer can
 * take the ids from max(id) + 1 on, which are the ones SQLite would give. */
static int store_threads(struct db *db, const struct db_run *run, char **cause)
{
	struct thread_rows tr = { .run = run };
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st, "SELECT coalesce(max(id), 0) + 1 FROM threads", cause);
	if (rc)
		return rc;
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		tr.id0 = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (s != SQLITE_ROW)
		return db_fail(db, s, "cannot number the threads in", cause);
	tr.json_max = count_json_max(run->nevents);
	tr.json = malloc(DB_INSERT_ROWS * tr.json_max);
	if (!tr.json)
		return db_nomem(db, "write", cause);
	rc = db_insert_rows(db, "threads", thread_ins, TI_N, run->nthreads, bind_thread,
			    &tr, "cannot store the threads in", cause);
	free(tr.json);
	if (rc || run->ncore_pmus <= 1)
		return rc;
	rc = db_prepare_insert(db, &st, "pmu_counts", pmu_count_ins, PI_N, cause);
	for (size_t t = 0; !rc && t < run->nthreads; t++)
		rc = store_pmu_counts(db, st, run, &run->threads[t], tr.id0 + (int64_t)t,
				      cause);
	sqlite3_finalize(st);
	return rc;
}

static int store_body(struct db *db, struct db_run *run, char **cause)
{
	int64_t hid = db_host_id(db, &run->host, cause);
	if (hid < 0)
		return (int)hid;
	run->host.id = hid;
	if (!run->topology && run->topology_fn) {
		bool have = false;
		int src = db_topology_stored(db, hid, &have, cause);
		if (src)
			return src;
		if (!have)
			run->topology = run->topology_fn(run->topology_arg);
	}
	if (run->topology) {
		int trc = db_topology_store(db, hid, run->topology, cause);
		if (trc)
			return trc;
	}

	sqlite3_stmt *st;
	int rc = db_prepare_insert(db, &st, "runs", run_ins, RI_N, cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, DB_PARAM(RI_HOST), hid);
	db_bind_text(st, DB_PARAM(RI_KIND), run->kind ? run->kind : "run");
	db_bind_text(st, DB_PARAM(RI_STARTED), run->started ? run->started : "");
	db_bind_long(st, DB_PARAM(RI_COMMAND), run->command ? run->command : "");
	if (db_bind_argv(st, DB_PARAM(RI_ARGV), run->argv, run->argc)) {
		sqlite3_finalize(st);
		return db_nomem(db, "write", cause);
	}
	db_bind_long(st, DB_PARAM(RI_CWD), run->cwd);
	sqlite3_bind_int(st, DB_PARAM(RI_PID), run->pid);
	sqlite3_bind_int(st, DB_PARAM(RI_EXIT), run->exit_status);
	sqlite3_bind_int(st, DB_PARAM(RI_SIGNAL), run->term_signal);
	sqlite3_bind_int(st, DB_PARAM(RI_INTERRUPTED), run->interrupted);
	sqlite3_bind_double(st, DB_PARAM(RI_WALL), run->wall_s);
	sqlite3_bind_double(st, DB_PARAM(RI_USER), run->user_s);
	sqlite3_bind_double(st, DB_PARAM(RI_SYS), run->sys_s);
	sqlite3_bind_int64(st, DB_PARAM(RI_LOST), (sqlite3_int64)run->lost_records);
	sqlite3_bind_int(st, DB_PARAM(RI_PARANOID), run->paranoid);
	db_bind_text(st, DB_PARAM(RI_VERSION), run->prof_version);
	db_bind_text(st, DB_PARAM(RI_PIN_MODE), run->pin.mode);
	db_bind_long(st, DB_PARAM(RI_PIN_STATUS), run->pin.status);
	db_bind_text(st, DB_PARAM(RI_PIN_CPUS), run->pin.cpus);
	sqlite3_bind_int(st, DB_PARAM(RI_PIN_LEVEL), run->pin.level);
	db_bind_text(st, DB_PARAM(RI_PIN_TYPE), run->pin.cache_type);
	sqlite3_bind_int64(st, DB_PARAM(RI_PIN_SIZE), (sqlite3_int64)run->pin.size_bytes);
	/* Room kept for db_run_note_cuts' line. */
	size_t nlen = run->note ? strlen(run->note) : 0;
	if (nlen > DB_TEXT_MAX - 256) {
		db_cut_count(nlen);
		sqlite3_bind_text(st, DB_PARAM(RI_NOTE), run->note,
				  (int)utf8_cut(run->note, nlen, DB_TEXT_MAX - 256),
				  SQLITE_TRANSIENT);
	} else {
		db_bind_long(st, DB_PARAM(RI_NOTE), run->note);
	}
	int s = sqlite3_step(st);
	sqlite3_finalize(st);
	if (s != SQLITE_DONE)
		return db_fail(db, s, "cannot store the run in", cause);
	run->id = sqlite3_last_insert_rowid(db->h);

	rc = db_prepare_insert(db, &st, "run_settings", setting_ins, SI_N, cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < run->nsettings; i++) {
		sqlite3_bind_int64(st, DB_PARAM(SI_RUN), run->id);
		db_bind_text(st, DB_PARAM(SI_KEY), run->settings[i].key);
		db_bind_long(st, DB_PARAM(SI_VALUE), run->settings[i].value);
		rc = db_insert_step(db, st, "cannot store the settings in", cause);
		if (rc)
			return rc;
	}
	sqlite3_finalize(st);

	rc = db_prepare_insert(db, &st, "events", event_ins, EI_N, cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < run->nevents; i++) {
		const struct db_event *e = &run->events[i];
		sqlite3_bind_int64(st, DB_PARAM(EI_RUN), run->id);
		sqlite3_bind_int(st, DB_PARAM(EI_IDX), (int)i);
		db_bind_text(st, DB_PARAM(EI_NAME), e->name);
		db_bind_text(st, DB_PARAM(EI_CANONICAL), e->canonical);
		sqlite3_bind_int(st, DB_PARAM(EI_SUPPORTED), e->supported);
		db_bind_long(st, DB_PARAM(EI_REASON), e->reason);
		sqlite3_bind_int(st, DB_PARAM(EI_GROUP), e->group);
		sqlite3_bind_int(st, DB_PARAM(EI_USER_ONLY), e->user_only);
		sqlite3_bind_int64(st, DB_PARAM(EI_TYPE), e->attr_type);
		sqlite3_bind_int64(st, DB_PARAM(EI_CONFIG), (sqlite3_int64)e->attr_config);
		sqlite3_bind_int64(st, DB_PARAM(EI_CONFIG1), (sqlite3_int64)e->attr_config1);
		sqlite3_bind_int64(st, DB_PARAM(EI_CONFIG2), (sqlite3_int64)e->attr_config2);
		sqlite3_bind_int(st, DB_PARAM(EI_EXCL_USER), e->exclude_user);
		sqlite3_bind_int(st, DB_PARAM(EI_EXCL_KERNEL), e->exclude_kernel);
		sqlite3_bind_int(st, DB_PARAM(EI_EXCL_HV), e->exclude_hv);
		db_bind_text(st, DB_PARAM(EI_MISSION_FAMILY), e->mission_family);
		db_bind_text(st, DB_PARAM(EI_MISSION_EVENT), e->mission_event);
		db_bind_long(st, DB_PARAM(EI_MISSION_NOTE), e->mission_note);
		bool tot = e->total.present;
		db_bind_int_or_null(st, DB_PARAM(EI_VALUE), tot, (int64_t)e->total.value);
		db_bind_int_or_null(st, DB_PARAM(EI_ENABLED), tot, (int64_t)e->total.enabled);
		db_bind_int_or_null(st, DB_PARAM(EI_RUNNING), tot, (int64_t)e->total.running);
		rc = db_insert_step(db, st, "cannot store the events in", cause);
		if (rc)
			return rc;
	}
	sqlite3_finalize(st);

	rc = store_threads(db, run, cause);
	if (!rc)
		rc = store_modules(db, run, cause);
	if (!rc && run->sleep_usage)
		rc = db_sleep_usage_store(db, run->id, run->sleep_usage, cause);
	if (!rc && run->nintervals)
		rc = db_intervals_store(db, run, cause);
	if (!rc)
		rc = db_sysenv_store(db, run, cause);
	if (!rc && run->nframes)
		rc = db_frames_store(db, run, cause);
	return rc;
}

static int store_modules(struct db *db, const struct db_run *run, char **cause)
{
	sqlite3_stmt *st;
	int rc;
	if (run->nmodules) {
		rc = db_prepare_insert(db, &st, "modules", module_ins, MI_N, cause);
		if (rc)
			return rc;
		for (size_t i = 0; i < run->nmodules; i++) {
			const struct db_module *m = &run->modules[i];
			sqlite3_bind_int64(st, DB_PARAM(MI_RUN), run->id);
			sqlite3_bind_int(st, DB_PARAM(MI_IDX), (int)i);
			db_bind_long(st, DB_PARAM(MI_PATH), m->path ? m->path : "?");
			db_bind_text(st, DB_PARAM(MI_KIND),
				     m->kind && !strcmp(m->kind, "anon") ? "anon" : "file");
			db_bind_text(st, DB_PARAM(MI_BUILD_ID), m->build_id);
			sqlite3_bind_int64(st, DB_PARAM(MI_EXEC),
					   (sqlite3_int64)m->exec_bytes);
			db_bind_int_or_null(st, DB_PARAM(MI_TEXT), m->has_text, m->text_bytes);
			db_bind_int_or_null(st, DB_PARAM(MI_SECTIONS),
					    m->has_exec_sections, m->exec_section_bytes);
			db_bind_int_or_null(st, DB_PARAM(MI_TOUCHED), m->has_touched, m->touched_bytes);
			db_bind_int_or_null(st, DB_PARAM(MI_FAULTED), m->has_touched, m->faulted_bytes);
			db_bind_int_or_null(st, DB_PARAM(MI_FAULTS), m->has_touched, m->faults);
			sqlite3_bind_int64(st, DB_PARAM(MI_NPROCS), m->nprocs);
			db_bind_long(st, DB_PARAM(MI_ERROR), m->error);
			db_bind_int_or_null(st, DB_PARAM(MI_REPLAYED),
					    m->has_touched, m->touched_replayed);
			rc = db_insert_step(db, st, "cannot store the modules in", cause);
			if (rc)
				return rc;
		}
		sqlite3_finalize(st);
	}
	if (!run->nws)
		return 0;
	rc = db_prepare_insert(db, &st, "working_set", ws_ins, WI_N, cause);
	if (rc)
		return rc;
	for (size_t i = 0; i < run->nws; i++) {
		const struct db_ws *w = &run->ws[i];
		sqlite3_bind_int64(st, DB_PARAM(WI_RUN), run->id);
		db_bind_text(st, DB_PARAM(WI_KIND), w->kind ? w->kind : "?");
		sqlite3_bind_int64(st, DB_PARAM(WI_TOUCHED), (sqlite3_int64)w->touched_bytes);
		sqlite3_bind_int64(st, DB_PARAM(WI_FAULTED), (sqlite3_int64)w->faulted_bytes);
		sqlite3_bind_int64(st, DB_PARAM(WI_FAULTS), (sqlite3_int64)w->faults);
		rc = db_insert_step(db, st, "cannot store the working set in", cause);
		if (rc)
			return rc;
	}
	sqlite3_finalize(st);
	return 0;
}

int db_run_note_cuts(struct db *db, int64_t run_id, char **cause)
{
	struct db_cuts c = db_cuts_take();
	if (!c.n)
		return 0;
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st, "UPDATE runs SET note = coalesce(note || char(10), '')"
			    " || ?2 WHERE id = ?1", cause);
	if (rc)
		return rc;
	char line[256];
	snprintf(line, sizeof(line), "prof cut %zu text%s the workload gave (a name, "
		 "command, path or symbol; the longest %zu bytes) to what it "
		 "stores: %d bytes for a name, %d for the others", c.n,
		 c.n == 1 ? "" : "s", c.longest, DB_NAME_MAX, DB_TEXT_MAX);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, line, -1, SQLITE_TRANSIENT);
	rc = db_step_done(db, st, "cannot note the cut texts in", cause);
	sqlite3_finalize(st);
	return rc;
}

int db_run_store_body(struct db *db, struct db_run *run, char **cause)
{
	if (run->settings_lost)
		return cause_set(cause, ENOMEM, "cannot store the run in '%s': out of "
				 "memory (a setting of the run could not be kept)",
				 db->path);
	db_bind_failed_take();
	int rc = store_body(db, run, cause);
	if (!rc && db_bind_failed_take())	/* a row went in without a value */
		rc = -ENOMEM;
	if (rc == -ENOMEM && cause && !*cause)
		cause_set(cause, ENOMEM, "cannot store the run in '%s': out of memory",
			  db->path);
	return rc ? rc : db_run_note_cuts(db, run->id, cause);
}

int db_run_store(struct db *db, struct db_run *run, char **cause)
{
	int rc = db_begin(db, cause);
	if (rc)
		return rc;
	rc = db_run_store_body(db, run, cause);
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

/*
 * What 'last' names: the newest run 'prof runs' lists, leaving out those
 * of experiments (ab, pressure: reports/runs.c is_ab); where every run
 * is one of them, the newest of all.
 */
static int64_t newest_run(struct db *db, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare(db, &st, "SELECT coalesce((SELECT max(id) FROM runs WHERE"
			    " kind <> 'ab' AND id NOT IN (SELECT run_id FROM"
			    " experiment_runs)), (SELECT max(id) FROM runs))", cause);
	if (rc)
		return rc;
	int s = sqlite3_step(st);
	int64_t id = (s == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		     ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (s != SQLITE_ROW)
		return db_fail(db, s, "cannot read", cause);
	return id;
}

/* An optional counter: false when NULL. */
static bool row_opt(struct db_row *r, int col, uint64_t *v)
{
	if (db_row_null(r, col))
		return false;
	*v = db_row_u64(r, col, 0);
	return true;
}

#define MODULE_COLS(X) \
	X(MC_IDX, "idx") \
	X(MC_PATH, "path") \
	X(MC_KIND, "kind") \
	X(MC_BUILD_ID, "build_id") \
	X(MC_EXEC, "exec_bytes") \
	X(MC_TEXT, "text_bytes") \
	X(MC_SECTIONS, "exec_section_bytes") \
	X(MC_TOUCHED, "touched_bytes") \
	X(MC_FAULTED, "faulted_bytes") \
	X(MC_FAULTS, "faults") \
	X(MC_NPROCS, "nprocs") \
	X(MC_ERROR, "error") \
	X(MC_REPLAYED, "touched_replayed")
enum { MODULE_COLS(DB_COL_ENUM) MC_N };
static const char *const module_cols[] = { MODULE_COLS(DB_COL_SQL) };

#define WS_COLS(X) \
	X(WC_KIND, "kind") \
	X(WC_TOUCHED, "touched_bytes") \
	X(WC_FAULTED, "faulted_bytes") \
	X(WC_FAULTS, "faults")
enum { WS_COLS(DB_COL_ENUM) WC_N };
static const char *const ws_cols[] = { WS_COLS(DB_COL_SQL) };

static int module_row(struct db_row *r, struct db_load *l)
{
	struct db_run *out = l->out;
	db_row_key(r, "(run %lld, idx %lld)", (long long)l->run_id,
		   (long long)sqlite3_column_int64(r->st, MC_IDX));
	if (db_grow((void **)&out->modules, &l->cap, out->nmodules,
		    sizeof(*out->modules)))
		return -ENOMEM;
	struct db_module *m = &out->modules[out->nmodules++];
	m->path = db_row_text(r, MC_PATH, DB_LONG);
	m->kind = db_row_text(r, MC_KIND, 0);
	if (!r->rc && strcmp(m->kind, "file") && strcmp(m->kind, "anon"))
		db_row_bad(r, MC_KIND, "is '%.40s', not 'file' or 'anon'", m->kind);
	m->build_id = db_row_text(r, MC_BUILD_ID, DB_NULL_OK);
	m->exec_bytes = db_row_u64(r, MC_EXEC, 0);
	m->has_text = row_opt(r, MC_TEXT, &m->text_bytes);
	m->has_exec_sections = row_opt(r, MC_SECTIONS, &m->exec_section_bytes);
	m->has_touched = row_opt(r, MC_TOUCHED, &m->touched_bytes);
	row_opt(r, MC_FAULTED, &m->faulted_bytes);
	row_opt(r, MC_FAULTS, &m->faults);
	m->nprocs = (uint32_t)db_row_int(r, MC_NPROCS, 0, UINT32_MAX, 0, 0);
	m->error = db_row_text(r, MC_ERROR, DB_NULL_OK | DB_LONG);
	m->touched_replayed = db_row_bool(r, MC_REPLAYED, DB_NULL_OK);
	return 0;
}

static const struct db_select module_sel = {
	"modules", module_cols, MC_N,
	"FROM modules WHERE run_id = ?1 ORDER BY idx",
	"cannot read the modules from",
};

static int ws_row(struct db_row *r, struct db_load *l)
{
	struct db_run *out = l->out;
	db_row_key(r, "(run %lld, row %zu)", (long long)l->run_id, out->nws + 1);
	if (db_grow((void **)&out->ws, &l->cap, out->nws, sizeof(*out->ws)))
		return -ENOMEM;
	struct db_ws *w = &out->ws[out->nws++];
	w->kind = db_row_text(r, WC_KIND, 0);
	w->touched_bytes = db_row_u64(r, WC_TOUCHED, 0);
	w->faulted_bytes = db_row_u64(r, WC_FAULTED, 0);
	w->faults = db_row_u64(r, WC_FAULTS, 0);
	return 0;
}

/* In the order collectors/modules.h lists the kinds. */
static const struct db_select ws_sel = {
	"working_set", ws_cols, WC_N,
	"FROM working_set WHERE run_id = ?1 ORDER BY CASE kind"
	" WHEN 'code' THEN 0 WHEN 'heap' THEN 1 WHEN 'stack' THEN 2"
	" WHEN 'anon' THEN 3 WHEN 'file' THEN 4 WHEN 'other' THEN 5"
	" ELSE 6 END, kind",
	"cannot read the working set from",
};

static int load_modules(struct db *db, int64_t id, struct db_run *out, char **cause)
{
	struct db_load l = { .run_id = id, .out = out };
	int rc = db_select_run(db, &module_sel, &l, module_row, cause);
	if (rc)
		return rc;
	return db_select_run(db, &ws_sel, &l, ws_row, cause);
}

int db_col_argv(sqlite3_stmt *st, int col, char ***argvp, int *argcp)
{
	const char *blob = sqlite3_column_blob(st, col);
	int len = sqlite3_column_bytes(st, col);
	int n = 0;
	for (int i = 0; i < len; i++)
		if (blob[i] == '\0')
			n++;
	char **argv = calloc((size_t)n + 1, sizeof(char *));
	if (!argv)
		return -ENOMEM;
	int k = 0;
	for (int i = 0; i < len && k < n;) {
		argv[k] = strdup(blob + i);
		if (!argv[k]) {
			while (k > 0)
				free(argv[--k]);
			free(argv);
			return -ENOMEM;
		}
		i += (int)strlen(blob + i) + 1;
		k++;
	}
	*argvp = argv;
	*argcp = n;
	return 0;
}

/* Events and threads of a run above which prof refuses to load it: far
 * above what it records (a 5,000-thread churn, tens of events), and a
 * bound on the counts table it allocates (threads x events). */
#define RUN_EVENTS_MAX 4096
#define RUN_CELLS_MAX (1u << 24)

#define EVENT_COLS(X) \
	X(EC_IDX, "idx") \
	X(EC_NAME, "name") \
	X(EC_CANONICAL, "canonical") \
	X(EC_SUPPORTED, "supported") \
	X(EC_REASON, "reason") \
	X(EC_GROUP, "grp") \
	X(EC_USER_ONLY, "user_only") \
	X(EC_TYPE, "attr_type") \
	X(EC_CONFIG, "attr_config") \
	X(EC_CONFIG1, "attr_config1") \
	X(EC_CONFIG2, "attr_config2") \
	X(EC_EXCL_USER, "exclude_user") \
	X(EC_EXCL_KERNEL, "exclude_kernel") \
	X(EC_EXCL_HV, "exclude_hv") \
	X(EC_VALUE, "value") \
	X(EC_ENABLED, "time_enabled") \
	X(EC_RUNNING, "time_running") \
	X(EC_MISSION_FAMILY, "mission_family") \
	X(EC_MISSION_EVENT, "mission_event") \
	X(EC_MISSION_NOTE, "mission_note")
enum { EVENT_COLS(DB_COL_ENUM) EC_N };
static const char *const event_cols[] = { EVENT_COLS(DB_COL_SQL) };

static int event_row(struct db_row *r, struct db_load *l)
{
	struct db_run *out = l->out;
	db_row_key(r, "(run %lld, idx %lld)", (long long)l->run_id,
		   (long long)sqlite3_column_int64(r->st, EC_IDX));
	/* Counts name their event by idx: it must count 0, 1, 2 ... */
	db_row_int(r, EC_IDX, (int64_t)out->nevents, (int64_t)out->nevents, 0, 0);
	if (out->nevents == RUN_EVENTS_MAX)
		db_row_bad(r, -1, "is one more than the %d events prof loads "
			   "for a run", RUN_EVENTS_MAX);
	if (r->rc)
		return 0;
	if (db_grow((void **)&out->events, &l->cap, out->nevents,
		    sizeof(*out->events)))
		return -ENOMEM;
	struct db_event *e = &out->events[out->nevents++];
	e->name = db_row_text(r, EC_NAME, 0);
	e->canonical = db_row_text(r, EC_CANONICAL, DB_NULL_OK);
	e->supported = db_row_bool(r, EC_SUPPORTED, 0);
	e->reason = db_row_text(r, EC_REASON, DB_NULL_OK | DB_LONG);
	/* Groups are numbered from 1, at most one per event. */
	e->group = (int)db_row_int(r, EC_GROUP, 0, RUN_EVENTS_MAX, 0, 0);
	e->user_only = db_row_bool(r, EC_USER_ONLY, 0);
	e->attr_type = (uint32_t)db_row_int(r, EC_TYPE, 0, UINT32_MAX, 0,
					    DB_NULL_OK);
	e->attr_config = db_row_u64(r, EC_CONFIG, DB_NULL_OK);
	e->attr_config1 = db_row_u64(r, EC_CONFIG1, DB_NULL_OK);
	e->attr_config2 = db_row_u64(r, EC_CONFIG2, DB_NULL_OK);
	e->exclude_user = db_row_bool(r, EC_EXCL_USER, DB_NULL_OK);
	e->exclude_kernel = db_row_bool(r, EC_EXCL_KERNEL, DB_NULL_OK);
	e->exclude_hv = db_row_bool(r, EC_EXCL_HV, DB_NULL_OK);
	e->mission_family = db_row_text(r, EC_MISSION_FAMILY, DB_NULL_OK);
	e->mission_event = db_row_text(r, EC_MISSION_EVENT, DB_NULL_OK);
	e->mission_note = db_row_text(r, EC_MISSION_NOTE, DB_NULL_OK | DB_LONG);
	if (!db_row_null(r, EC_VALUE)) {
		e->total.present = true;
		e->total.value = db_row_u64(r, EC_VALUE, 0);
		e->total.enabled = db_row_u64(r, EC_ENABLED, 0);
		e->total.running = db_row_u64(r, EC_RUNNING, 0);
	}
	return 0;
}

static const struct db_select event_sel = {
	"events", event_cols, EC_N,
	"FROM events WHERE run_id = ?1 ORDER BY idx",
	"cannot read the events from",
};

static int load_events(struct db *db, int64_t id, struct db_run *out, char **cause)
{
	struct db_load l = { .run_id = id, .out = out };
	return db_select_run(db, &event_sel, &l, event_row, cause);
}

#define THREAD_COLS(X) \
	X(TC_ID, "id") \
	X(TC_SEQ, "seq") \
	X(TC_TID, "tid") \
	X(TC_PID, "pid") \
	X(TC_NAME, "name") \
	X(TC_MAIN, "is_main") \
	X(TC_START, "start_ns") \
	X(TC_END, "end_ns") \
	X(TC_PPID, "ppid") \
	X(TC_COUNTS, "counts")
enum { THREAD_COLS(DB_COL_ENUM) TC_N };
static const char *const thread_cols[] = { THREAD_COLS(DB_COL_SQL) };

/* The number at *pp (JSON: an optional '-', then digits) as the 64 bits
 * SQLite keeps a counter in; false where it is not one or leaves int64. */
static bool json_i64(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	bool neg = *p == '-';
	if (neg)
		p++;
	if (*p < '0' || *p > '9')
		return false;
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (lim - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (*p == '.' || *p == 'e' || *p == 'E')
		return false;
	*out = neg ? (uint64_t)0 - v : v;
	*pp = p;
	return true;
}

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/*
 * threads.counts (schema v21) into c[0..n): a JSON array whose element e
 * is null or [value, time_enabled, time_running], integers. NULL text:
 * no counts. -1 where the text is not that, -2 where it holds more
 * elements than the run's n events.
 */
static int parse_counts(const char *js, struct db_count *c, size_t n)
{
	if (!js)
		return 0;
	const char *p = json_ws(js);
	if (*p++ != '[')
		return -1;
	p = json_ws(p);
	if (*p == ']')
		return *json_ws(p + 1) ? -1 : 0;
	for (size_t e = 0;; e++) {
		if (e >= n)
			return -2;
		if (!strncmp(p, "null", 4)) {
			p += 4;
		} else {
			uint64_t v[3];
			if (*p++ != '[')
				return -1;
			for (int k = 0; k < 3; k++) {
				p = json_ws(p);
				if (!json_i64(&p, &v[k]))
					return -1;
				p = json_ws(p);
				if (*p++ != (k < 2 ? ',' : ']'))
					return -1;
			}
			c[e] = (struct db_count){ .value = v[0], .enabled = v[1],
						  .running = v[2], .present = true };
		}
		p = json_ws(p);
		if (*p == ']')
			return *json_ws(p + 1) ? -1 : 0;
		if (*p++ != ',')
			return -1;
		p = json_ws(p);
	}
}

static int load_threads(struct db *db, int64_t id, struct db_run *out, char **cause)
{
	sqlite3_stmt *st;
	int rc = db_prepare_select(db, &st, thread_cols, TC_N,
		"FROM threads WHERE run_id = ?1 ORDER BY seq", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	struct db_row r;
	db_row_init(&r, db, st, "threads");
	size_t cap = 0;
	int s;
	size_t per = out->nevents ? out->nevents : 1;
	while (!r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "%lld", (long long)sqlite3_column_int64(st, TC_ID));
		/* Reports index threads by seq: it must count 0, 1, 2 ... */
		db_row_int(&r, TC_SEQ, (int64_t)out->nthreads, (int64_t)out->nthreads, 0, 0);
		if ((out->nthreads + 1) * per > RUN_CELLS_MAX)
			db_row_bad(&r, -1, "makes %zu threads of %zu events, more "
				   "counts than the %u prof loads for a run",
				   out->nthreads + 1, out->nevents, RUN_CELLS_MAX);
		if (r.rc)
			break;
		if (out->nthreads == cap) {
			cap = cap ? cap * 2 : 64;
			struct db_thread *p = realloc(out->threads, cap * sizeof(*p));
			if (!p) {
				rc = -ENOMEM;
				break;
			}
			out->threads = p;
		}
		struct db_thread *t = &out->threads[out->nthreads];
		memset(t, 0, sizeof(*t));
		t->counts = calloc(per, sizeof(*t->counts));
		if (!t->counts) {
			rc = -ENOMEM;
			break;
		}
		out->nthreads++;
		t->tid = (int32_t)db_row_int(&r, TC_TID, INT32_MIN, INT32_MAX, 0, 0);
		t->pid = (int32_t)db_row_int(&r, TC_PID, INT32_MIN, INT32_MAX, 0,
					     DB_NULL_OK);
		t->name = db_row_text(&r, TC_NAME, DB_NULL_OK);
		t->is_main = db_row_bool(&r, TC_MAIN, 0);
		t->start_ns = db_row_int(&r, TC_START, INT64_MIN, INT64_MAX, 0, DB_NULL_OK);
		t->end_ns = db_row_int(&r, TC_END, INT64_MIN, INT64_MAX, 0, DB_NULL_OK);
		t->ppid = (int32_t)db_row_int(&r, TC_PPID, 0, INT32_MAX, 0, DB_NULL_OK);
		int bad = parse_counts((const char *)sqlite3_column_text(st, TC_COUNTS),
				       t->counts, out->nevents);
		if (bad == -2)
			db_row_bad(&r, TC_COUNTS, "has more elements than the run's %zu "
				   "events", out->nevents);
		else if (bad)
			db_row_bad(&r, TC_COUNTS, "is not a JSON array of null or "
				   "[value, time_enabled, time_running]");
	}
	sqlite3_finalize(st);
	if (!rc && r.rc)
		rc = db_row_fail(&r, cause);
	db_row_release(&r);
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, s, "cannot read the threads from", cause);
	return rc;
}

/*
 * The core PMUs the setting counted_per_pmu names (comma-separated),
 * where more than one: the run was counted per core PMU. 0 or -ENOMEM.
 */
static int core_pmus_of(struct db_run *out)
{
	const char *list = db_get_str(out, SET_COUNTED_PER_PMU);
	if (!list || !strchr(list, ','))
		return 0;
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return -ENOMEM;
	int rc = 0;
	for (char *w = strtok_r(copy, ",", &save); w && !rc;
	     w = strtok_r(NULL, ",", &save)) {
		char **p = realloc(out->core_pmus, (out->ncore_pmus + 1) * sizeof(*p));
		if (p)
			out->core_pmus = p;
		if (!p || !(out->core_pmus[out->ncore_pmus] = strdup(w)))
			rc = -ENOMEM;
		else
			out->ncore_pmus++;
	}
	free(copy);
	return rc;
}

#define PMU_COUNT_COLS(X) \
	X(PC_SEQ, "t.seq") \
	X(PC_PMU, "p.pmu") \
	X(PC_EVENT, "p.event_idx") \
	X(PC_VALUE, "p.value") \
	X(PC_ENABLED, "p.time_enabled") \
	X(PC_RUNNING, "p.time_running")
enum { PMU_COUNT_COLS(DB_COL_ENUM) PC_N };
static const char *const pmu_count_cols[] = { PMU_COUNT_COLS(DB_COL_SQL) };

/* Each thread's counts per core PMU (pmu_counts, v20), on a run that
 * names its core PMUs. */
static int load_pmu_counts(struct db *db, int64_t id, struct db_run *out,
			   char **cause)
{
	int rc = core_pmus_of(out);
	if (rc || out->ncore_pmus < 2)
		return rc;
	size_t per = out->ncore_pmus * (out->nevents ? out->nevents : 1);
	for (size_t t = 0; t < out->nthreads; t++)
		if (!(out->threads[t].pmu_counts = calloc(per, sizeof(struct db_count))))
			return -ENOMEM;
	sqlite3_stmt *st;
	rc = db_prepare_select(db, &st, pmu_count_cols, PC_N,
		"FROM pmu_counts p JOIN threads t ON t.id = p.thread_id"
		" WHERE t.run_id = ?1 ORDER BY t.seq, p.pmu, p.event_idx", cause);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	struct db_row r;
	db_row_init(&r, db, st, "pmu_counts");
	int s;
	while (!r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, PC_SEQ);
		db_row_key(&r, "(thread %lld, event_idx %lld)", (long long)seq,
			   (long long)sqlite3_column_int64(st, PC_EVENT));
		int64_t t = db_row_int(&r, PC_SEQ, 0, (int64_t)out->nthreads - 1, 0, 0);
		int64_t e = db_row_int(&r, PC_EVENT, 0, (int64_t)out->nevents - 1, 0, 0);
		char *pmu = db_row_text(&r, PC_PMU, 0);
		size_t p = 0;
		while (pmu && p < out->ncore_pmus && strcmp(out->core_pmus[p], pmu))
			p++;
		if (!r.rc && p == out->ncore_pmus)
			db_row_bad(&r, PC_PMU, "'%.40s' is none of the run's core PMUs",
				   pmu ? pmu : "");
		free(pmu);
		if (r.rc)
			break;
		struct db_count *c = &out->threads[t].pmu_counts[p * out->nevents + (size_t)e];
		c->present = true;
		c->value = db_row_u64(&r, PC_VALUE, 0);
		c->enabled = db_row_u64(&r, PC_ENABLED, 0);
		c->running = db_row_u64(&r, PC_RUNNING, 0);
	}
	sqlite3_finalize(st);
	rc = r.rc ? db_row_fail(&r, cause) : 0;
	db_row_release(&r);
	if (!rc && s != SQLITE_DONE)
		rc = db_fail(db, s, "cannot read the counts per PMU from", cause);
	return rc;
}

/* A run and its host, as db_run_load reads them. */
#define RUN_COLS(X) \
	X(RC_ID, "r.id") \
	X(RC_KIND, "r.kind") \
	X(RC_STARTED, "r.started") \
	X(RC_COMMAND, "r.command") \
	X(RC_ARGV, "r.argv") \
	X(RC_CWD, "r.cwd") \
	X(RC_PID, "r.pid") \
	X(RC_EXIT, "r.exit_status") \
	X(RC_SIGNAL, "r.term_signal") \
	X(RC_INTERRUPTED, "r.interrupted") \
	X(RC_WALL, "r.wall_s") \
	X(RC_USER, "r.user_s") \
	X(RC_SYS, "r.sys_s") \
	X(RC_LOST, "r.lost_records") \
	X(RC_PARANOID, "r.paranoid") \
	X(RC_VERSION, "r.prof_version") \
	X(RC_PIN_MODE, "r.pin_mode") \
	X(RC_PIN_STATUS, "r.pin_status") \
	X(RC_PIN_CPUS, "r.pin_cpus") \
	X(RC_PIN_LEVEL, "r.pin_level") \
	X(RC_PIN_TYPE, "r.pin_cache_type") \
	X(RC_PIN_SIZE, "r.pin_size_bytes") \
	X(RC_NOTE, "r.note") \
	X(RC_HOST_ID, "h.id") \
	X(RC_HOSTNAME, "h.hostname") \
	X(RC_KERNEL, "h.kernel") \
	X(RC_CPU_MODEL, "h.cpu_model") \
	X(RC_ONLINE_CPUS, "h.online_cpus")
enum { RUN_COLS(DB_COL_ENUM) RC_N };
static const char *const run_cols[] = { RUN_COLS(DB_COL_SQL) };

int db_run_load(struct db *db, int64_t id, struct db_run *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	if (id <= 0) {
		id = newest_run(db, cause);
		if (id < 0)
			return (int)id;
		if (id == 0) {
			if (cause && asprintf(cause, "no runs stored in '%s' yet\n"
					      "hint: record one with 'prof run -- CMD'",
					      db->path) < 0)
				*cause = NULL;
			return -ENOENT;
		}
	}
	static const struct db_select q = {
		"runs", run_cols, RC_N,
		"FROM runs r JOIN hosts h ON h.id = r.host_id WHERE r.id = ?1",
		"cannot read",
	};
	struct db_row r;
	int rc = db_select_one(db, &q, id, &r, cause);
	if (rc == 1) {
		if (cause && asprintf(cause, "no run %lld in '%s'\n"
				      "hint: 'prof runs' lists the stored runs",
				      (long long)id, db->path) < 0)
			*cause = NULL;
		return -ENOENT;
	}
	if (rc)
		return rc;
	sqlite3_stmt *st = r.st;
	int s;
	out->id = sqlite3_column_int64(st, RC_ID);
	out->kind = db_row_text(&r, RC_KIND, 0);
	out->started = db_row_text(&r, RC_STARTED, 0);
	out->command = db_row_text(&r, RC_COMMAND, DB_LONG);
	rc = db_row_argv(&r, RC_ARGV, &out->argv, &out->argc);
	out->cwd = db_row_text(&r, RC_CWD, DB_NULL_OK | DB_LONG);
	out->pid = (int32_t)db_row_int(&r, RC_PID, INT32_MIN, INT32_MAX, 0, DB_NULL_OK);
	out->exit_status = (int)db_row_int(&r, RC_EXIT, INT32_MIN, INT32_MAX, 0,
					   DB_NULL_OK);
	out->term_signal = (int)db_row_int(&r, RC_SIGNAL, 0, INT32_MAX, 0, 0);
	out->interrupted = db_row_bool(&r, RC_INTERRUPTED, 0);
	out->wall_s = db_row_real(&r, RC_WALL, 0, DB_SECONDS_MAX, 0, DB_NULL_OK);
	out->user_s = db_row_real(&r, RC_USER, 0, DB_SECONDS_MAX, 0, DB_NULL_OK);
	out->sys_s = db_row_real(&r, RC_SYS, 0, DB_SECONDS_MAX, 0, DB_NULL_OK);
	out->lost_records = db_row_u64(&r, RC_LOST, 0);
	out->paranoid = (int)db_row_int(&r, RC_PARANOID, INT32_MIN, INT32_MAX, 0,
					DB_NULL_OK);
	out->prof_version = db_row_text(&r, RC_VERSION, DB_NULL_OK);
	out->pin.mode = db_row_text(&r, RC_PIN_MODE, DB_NULL_OK);
	out->pin.status = db_row_text(&r, RC_PIN_STATUS, DB_NULL_OK | DB_LONG);
	out->pin.cpus = db_row_text(&r, RC_PIN_CPUS, DB_NULL_OK | DB_CPUS);
	out->pin.level = (int)db_row_int(&r, RC_PIN_LEVEL, 0, 255, 0, DB_NULL_OK);
	out->pin.cache_type = db_row_text(&r, RC_PIN_TYPE, DB_NULL_OK);
	out->pin.size_bytes = db_row_u64(&r, RC_PIN_SIZE, DB_NULL_OK);
	out->note = db_row_text(&r, RC_NOTE, DB_NULL_OK | DB_LONG);
	/* The host's columns are its own table's. */
	out->host.id = sqlite3_column_int64(st, RC_HOST_ID);
	if (!r.rc) {
		r.table = "hosts";
		db_row_key(&r, "%lld", (long long)out->host.id);
	}
	out->host.hostname = db_row_text(&r, RC_HOSTNAME, 0);
	out->host.kernel = db_row_text(&r, RC_KERNEL, 0);
	out->host.cpu_model = db_row_text(&r, RC_CPU_MODEL, 0);
	out->host.online_cpus = (int)db_row_int(&r, RC_ONLINE_CPUS, 0, DB_CPUS_MAX, 0, 0);
	sqlite3_finalize(st);
	if (r.rc)	/* a bad column, or db_row_argv out of memory */
		rc = db_row_fail(&r, cause);
	db_row_release(&r);
	if (rc)
		goto fail;

	rc = db_prepare(db, &st, "SELECT key, value FROM run_settings WHERE run_id = ?1"
			" ORDER BY key", cause);
	if (rc)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	db_row_init(&r, db, st, "run_settings");
	while (!r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		db_row_key(&r, "(run %lld, row %zu)", (long long)id, out->nsettings + 1);
		char *k = db_row_text(&r, 0, 0), *v = db_row_text(&r, 1, DB_NULL_OK | DB_LONG);
		if (!r.rc && db_run_set_dynamic(out, k, v))
			db_row_nomem(&r);
		free(k);
		free(v);
	}
	sqlite3_finalize(st);
	if (r.rc) {
		rc = db_row_fail(&r, cause);
		goto fail;
	}
	if (s != SQLITE_DONE) {
		rc = db_fail(db, s, "cannot read the settings from", cause);
		goto fail;
	}

	rc = load_events(db, id, out, cause);
	if (!rc)
		rc = load_threads(db, id, out, cause);
	if (!rc)
		rc = load_pmu_counts(db, id, out, cause);
	if (!rc)
		rc = load_modules(db, id, out, cause);
	if (!rc)
		rc = db_sleep_usage_load(db, id, &out->sleep_usage, cause);
	if (!rc)
		rc = db_intervals_load(db, out, cause);
	if (!rc)
		rc = db_sysenv_load(db, id, out, cause);
	if (!rc)
		rc = db_frames_load(db, out, cause);
	if (rc)
		goto fail;
	return 0;
fail:
	/* A loader that ran out of memory may not have said so itself. */
	if (rc == -ENOMEM && cause && !*cause)
		cause_set(cause, ENOMEM, "cannot read run %lld from '%s': out of memory",
			  (long long)id, db->path);
	db_run_release(out);
	return rc;
}

void db_run_release(struct db_run *run)
{
	if (!run)
		return;
	free(run->kind);
	free(run->started);
	free(run->command);
	for (int i = 0; run->argv && i < run->argc; i++)
		free(run->argv[i]);
	free(run->argv);
	free(run->cwd);
	free(run->prof_version);
	free(run->note);
	free(run->host.hostname);
	free(run->host.kernel);
	free(run->host.cpu_model);
	free(run->pin.mode);
	free(run->pin.status);
	free(run->pin.cpus);
	free(run->pin.cache_type);
	for (size_t i = 0; i < run->nsettings; i++) {
		free(run->settings[i].key);
		free(run->settings[i].value);
	}
	free(run->settings);
	for (size_t i = 0; i < run->nevents; i++) {
		free(run->events[i].name);
		free(run->events[i].canonical);
		free(run->events[i].reason);
		free(run->events[i].mission_family);
		free(run->events[i].mission_event);
		free(run->events[i].mission_note);
	}
	free(run->events);
	for (size_t i = 0; i < run->nthreads; i++) {
		free(run->threads[i].name);
		free(run->threads[i].counts);
		free(run->threads[i].pmu_counts);
	}
	free(run->threads);
	for (size_t i = 0; i < run->ncore_pmus; i++)
		free(run->core_pmus[i]);
	free(run->core_pmus);
	if (run->topology) {
		db_topology_release(run->topology);
		free(run->topology);
	}
	db_sleep_usage_free(run->sleep_usage);
	db_intervals_release(run);
	db_frames_release(run);
	for (size_t i = 0; i < run->nmodules; i++) {
		free(run->modules[i].path);
		free(run->modules[i].kind);
		free(run->modules[i].build_id);
		free(run->modules[i].error);
	}
	free(run->modules);
	for (size_t i = 0; i < run->nws; i++)
		free(run->ws[i].kind);
	free(run->ws);
	db_sysenv_release(run);
	memset(run, 0, sizeof(*run));
}

#define LIST_COLS(X) \
	X(LC_ID, "r.id") \
	X(LC_KIND, "r.kind") \
	X(LC_STARTED, "r.started") \
	X(LC_COMMAND, "r.command") \
	X(LC_EXIT, "r.exit_status") \
	X(LC_INTERRUPTED, "r.interrupted") \
	X(LC_WALL, "r.wall_s") \
	X(LC_THREADS, "(SELECT count(*) FROM threads t WHERE t.run_id = r.id)") \
	X(LC_HOSTNAME, "h.hostname") \
	X(LC_HOST_ID, "h.id") \
	X(LC_EXPERIMENT, "x.experiment_id") \
	X(LC_ARM, "a.name") \
	X(LC_TAG, "(SELECT value FROM run_settings s WHERE s.run_id = r.id" \
		  " AND s.key = '" DB_RUN_TAG_KEY "')")
enum { LIST_COLS(DB_COL_ENUM) LC_N };
static const char *const list_cols[] = { LIST_COLS(DB_COL_SQL) };

int db_runs_list(struct db *db, struct db_run_summary **out, size_t *n,
		 char **cause)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st;
	int rc = db_prepare_select(db, &st, list_cols, LC_N,
		"FROM runs r JOIN hosts h ON h.id = r.host_id"
		" LEFT JOIN experiment_runs x ON x.run_id = r.id"
		" LEFT JOIN arms a ON a.experiment_id = x.experiment_id"
		" AND a.idx = x.arm_idx ORDER BY r.id", cause);
	if (rc)
		return rc;
	size_t cap = 0;
	int s;
	struct db_row r;
	db_row_init(&r, db, st, "runs");
	while (!r.rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			struct db_run_summary *p = realloc(*out, cap * sizeof(*p));
			if (!p) {
				sqlite3_finalize(st);
				db_runs_list_free(*out, *n);
				*out = NULL;
				*n = 0;
				return -ENOMEM;
			}
			*out = p;
		}
		struct db_run_summary *x = &(*out)[(*n)++];
		x->id = sqlite3_column_int64(st, LC_ID);
		db_row_key(&r, "%lld", (long long)x->id);
		r.table = "runs";
		x->kind = db_row_text(&r, LC_KIND, 0);
		x->started = db_row_text(&r, LC_STARTED, 0);
		x->command = db_row_text(&r, LC_COMMAND, DB_LONG);
		x->exit_status = (int)db_row_int(&r, LC_EXIT, INT32_MIN, INT32_MAX, 0,
						 DB_NULL_OK);
		x->interrupted = db_row_bool(&r, LC_INTERRUPTED, 0);
		x->wall_s = db_row_real(&r, LC_WALL, 0, DB_SECONDS_MAX, 0, DB_NULL_OK);
		x->nthreads = (size_t)sqlite3_column_int64(st, LC_THREADS);
		if (!r.rc) {
			r.table = "hosts";
			db_row_key(&r, "%lld", (long long)sqlite3_column_int64(st, LC_HOST_ID));
		}
		x->hostname = db_row_text(&r, LC_HOSTNAME, 0);
		if (!r.rc) {
			r.table = "experiment_runs";
			db_row_key(&r, "%lld", (long long)x->id);
		}
		x->experiment_id = db_row_int(&r, LC_EXPERIMENT, 1, INT64_MAX, 0,
					      DB_NULL_OK);
		x->arm = db_row_text(&r, LC_ARM, DB_NULL_OK);
		if (!r.rc) {
			r.table = "run_settings";
			db_row_key(&r, "%lld", (long long)x->id);
		}
		x->tag = db_row_text(&r, LC_TAG, DB_NULL_OK | DB_LONG);	/* a setting's value */
	}
	sqlite3_finalize(st);
	if (r.rc || s != SQLITE_DONE) {
		db_runs_list_free(*out, *n);
		*out = NULL;
		*n = 0;
		return r.rc ? db_row_fail(&r, cause)
		       : db_fail(db, s, "cannot list the runs in", cause);
	}
	return 0;
}

void db_runs_list_free(struct db_run_summary *list, size_t n)
{
	for (size_t i = 0; list && i < n; i++) {
		free(list[i].kind);
		free(list[i].started);
		free(list[i].command);
		free(list[i].hostname);
		free(list[i].arm);
		free(list[i].tag);
	}
	free(list);
}
