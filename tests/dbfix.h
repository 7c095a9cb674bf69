/*
 * dbfix: a database as prof writes it, built through the db API, for the
 * tests that change one row of it and check what the readers make of it.
 * It holds, in this order:
 *   run 1     a counted run: two events (one refused), two threads, its
 *             modules and working set, a pin, and the host's topology
 *   run 2     another counted run, with the sleep interposer's report
 *   run 3     a sampled run (prof record): a small call tree, 6 samples
 *   run 4     a `prof sleep` run with four cells
 *   runs 5-10 experiment 1: arms a and b, one warm-up and two counted
 *             rounds (ABBA), one score and its settings
 * Header-only, like test_util.h, so each test stays one executable.
 */
#ifndef TESTS_DBFIX_H
#define TESTS_DBFIX_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/experiments.h"
#include "db/runs.h"
#include "db/samples.h"
#include "db/sleep.h"
#include "test_util.h"

static void dbfix_die(const char *what, char *cause)
{
	fprintf(stderr, "dbfix: %s: %s\n", what, cause ? cause : "?");
	abort();
}

static void dbfix_run(struct db_run *r, const char *kind, const char *command)
{
	tu_run_init(r, kind, "2026-12-01T08:00:00Z", command, "vm", "AMD EPYC", 2);
	r->argv[1] = strdup("--fast");
	r->argc = 2;
	r->cwd = strdup("/tmp");
	r->pid = 4242;
	r->wall_s = 1.25;
	r->user_s = 2.5;
	r->sys_s = 0.125;
	r->paranoid = 2;
	r->prof_version = strdup("0.1.0");
	r->pin.mode = strdup("cpus:0-1");
	r->pin.status = strdup("applied");
	r->pin.cpus = strdup("0-1");
	db_set_yesno(r, SET_COMPLETE, true);
}

/* Events task-clock (counted) and cycles (refused), nthreads threads. */
static void dbfix_counts(struct db_run *r, size_t nthreads)
{
	r->nevents = 2;
	r->events = calloc(2, sizeof(*r->events));
	r->events[0].name = strdup("task-clock");
	r->events[0].canonical = strdup("perf::PERF_COUNT_SW_TASK_CLOCK");
	r->events[0].supported = true;
	r->events[0].attr_type = 1;
	r->events[0].attr_config = 1;
	r->events[0].total = (struct db_count){ 1000000 * nthreads, 100, 100, true };
	r->events[1].name = strdup("cycles");
	r->events[1].supported = false;
	r->events[1].reason = strdup("no hardware PMU\nhint: a VM without a vPMU");
	r->events[1].group = 1;
	r->nthreads = nthreads;
	r->threads = calloc(nthreads, sizeof(*r->threads));
	for (size_t t = 0; t < nthreads; t++) {
		r->threads[t].tid = 4242 + (int32_t)t;
		r->threads[t].pid = 4242;
		r->threads[t].name = strdup(t ? "worker" : "demo");
		r->threads[t].is_main = t == 0;
		r->threads[t].start_ns = 1000 * (int64_t)t;
		r->threads[t].counts = calloc(2, sizeof(struct db_count));
		r->threads[t].counts[0] = (struct db_count){ 1000000, 100, 100, true };
	}
}

static void dbfix_modules(struct db_run *r)
{
	r->nmodules = 2;
	r->modules = calloc(2, sizeof(*r->modules));
	r->modules[0] = (struct db_module){
		.path = strdup("/usr/bin/demo"), .kind = strdup("file"),
		.build_id = strdup("93ac61ec"), .exec_bytes = 1 << 20, .nprocs = 1,
		.has_text = true, .text_bytes = 900000, .has_touched = true,
		.touched_bytes = 65536, .faulted_bytes = 4096, .faults = 1,
	};
	r->modules[1] = (struct db_module){
		.path = strdup("[anon:exec]"), .kind = strdup("anon"),
		.exec_bytes = 4096, .nprocs = 1,
	};
	r->nws = 1;
	r->ws = calloc(1, sizeof(*r->ws));
	r->ws[0] = (struct db_ws){ strdup("code"), 65536, 4096, 1 };
}

static struct db_topology *dbfix_topology(void)
{
	struct db_topology *t = calloc(1, sizeof(*t));
	t->root = strdup("/");
	t->online = strdup("0-1");
	t->ncaches = 2;
	t->caches = calloc(2, sizeof(*t->caches));
	t->caches[0] = (struct db_cache){ 1, strdup("Data"), 32768, strdup("0"), 0, 0 };
	t->caches[1] = (struct db_cache){ 3, strdup("Unified"), 1 << 25, strdup("0-1"), 0, 0 };
	t->llc_level = 3;
	t->largest_llc = 1;
	t->largest_reason = strdup("the only L3");
	t->npackages = 1;
	t->packages = calloc(1, sizeof(*t->packages));
	t->packages[0] = (struct db_cpuset){ 0, strdup("0-1") };
	return t;
}

static void dbfix_sleep_usage(struct db_run *r)
{
	struct db_sleep_usage *u = calloc(1, sizeof(*u));
	u->mode = strdup("hybrid:20");
	u->threshold_us = 1000;
	u->status = strdup("applied");
	u->processes = 1;
	u->nthreads = 1;
	u->threads = calloc(1, sizeof(*u->threads));
	u->threads[0] = (struct db_sleep_thread){
		.tid = 4243, .pid = 4242, .name = strdup("worker"), .served = 100,
		.passed = 2, .p50_ns = 1500, .p90_ns = 2500, .p99_ns = 9000,
		.p999_ns = 12000, .max_ns = 20000, .mean_ns = 1800.5,
		.req_hist = strdup("5:100 11:2"),
	};
	r->sleep_usage = u;
}

static void dbfix_sampled(struct db *db)
{
	struct db_sample_writer *w;
	char *cause = NULL;
	if (db_sample_writer_new(db, &w, &cause))
		dbfix_die("sample writer", cause);
	int rc = db_sample_put_module(w, 1, "/usr/bin/hot", "abcd", NULL);
	rc = rc ? rc : db_sample_put_module(w, 2, "/lib/libhot.so", NULL, NULL);
	rc = rc ? rc : db_sample_put_symbol(w, 1, 1, "main", NULL);
	rc = rc ? rc : db_sample_put_symbol(w, 2, 2, "work", NULL);
	rc = rc ? rc : db_sample_put_symbol(w, 3, 2, NULL, NULL);
	rc = rc ? rc : db_sample_put_frame(w, 1, 1, 0x10, NULL);
	rc = rc ? rc : db_sample_put_frame(w, 2, 2, 0x20, NULL);
	rc = rc ? rc : db_sample_put_frame(w, 3, 3, 0x30, NULL);
	rc = rc ? rc : db_sample_put_stack(w, 1, 0, 1, NULL);
	rc = rc ? rc : db_sample_put_stack(w, 2, 1, 2, NULL);
	rc = rc ? rc : db_sample_put_stack(w, 3, 1, 3, NULL);
	for (uint32_t i = 0; i < 6 && !rc; i++) {
		struct db_sample s = { 4242, 4242, 0, 10 + i, 0, 1000, i % 3 + 1 };
		rc = db_sample_put(w, &s, NULL);
	}
	if (rc)
		dbfix_die("samples", NULL);
	struct db_run r;
	dbfix_run(&r, "record", "./hot");
	dbfix_counts(&r, 1);
	struct db_sample_event ev = {
		.name = "cpu-clock", .attr_type = 1, .freq = 1000, .call_graph = "fp",
		.samples = 6, .weight = 6000,
	};
	if (db_sample_store_run(w, &r, &ev, 1, &cause))
		dbfix_die("sampled run", cause);
	db_run_release(&r);
	db_sample_writer_free(w);
}

static void dbfix_sleep(struct db *db)
{
	struct db_run r;
	dbfix_run(&r, "sleep", "prof sleep");
	struct db_sleep s;
	memset(&s, 0, sizeof(s));
	s.timer_slack_ns = 50000;
	snprintf(s.sched_policy, sizeof(s.sched_policy), "SCHED_OTHER");
	snprintf(s.clocksource, sizeof(s.clocksource), "kvm-clock");
	snprintf(s.pattern, sizeof(s.pattern), "oneshot");
	s.calls = 100;
	s.threads = 1;
	s.hybrid_margin_ns = -1;
	s.cheap_p99_us = 10;
	s.ncells = 4;
	s.cells = calloc(4, sizeof(*s.cells));
	for (size_t i = 0; i < 4; i++) {
		struct db_sleep_cell *c = &s.cells[i];
		snprintf(c->mode, sizeof(c->mode), "%s", i < 2 ? "nanosleep" : "spin");
		c->margin_ns = -1;
		c->target_us = i % 2 ? 50 : 30;
		c->calls = 100;
		c->p50_ns = 50000 + (int64_t)i;
		c->p90_ns = 60000;
		c->p99_ns = 70000;
		c->p999_ns = 80000;
		c->max_ns = 90000;
		c->min_ns = 100;
		c->mean_ns = 55000;
		c->buckets[DB_SLEEP_GE50] = 100;
		c->wall_s = 0.01;
		c->cpu_s = 0.001;
		c->cpu_pct = 10;
		c->cpu_us_per_call = 10;
	}
	char *cause = NULL;
	if (db_sleep_store(db, &r, &s, &cause))
		dbfix_die("sleep run", cause);
	db_sleep_release(&s);
	db_run_release(&r);
}

static void dbfix_experiment(struct db *db)
{
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	e.order = "abba";
	e.rounds = 2;
	e.warmup = 1;
	e.gate_pct = 5;
	struct db_kv settings[] = { { "score", "fps=([0-9.]+) fps:higher" },
				    { "events", "task-clock" } };
	e.settings = settings;
	e.nsettings = 2;
	char *argv_a[] = { "./emu", NULL }, *argv_b[] = { "./emu", "--fast", NULL };
	struct db_kv pin = { "pin", "none" };
	struct db_arm arms[] = { { "a", "./emu", argv_a, 1, &pin, 1 },
				 { "b", "./emu --fast", argv_b, 2, NULL, 0 } };
	e.arms = arms;
	e.narms = 2;
	struct db_host host = { 0, "vm", "6.18", "AMD EPYC", 2 };
	char *cause = NULL;
	if (db_experiment_create(db, &e, &host, &cause))
		dbfix_die("experiment", cause);
	/* warm-up round, then rounds 0 (a b) and 1 (b a) */
	static const struct { int arm, round, pos; bool warm; } plan[] = {
		{ 0, 0, 0, true }, { 1, 0, 1, true },
		{ 0, 0, 0, false }, { 1, 0, 1, false },
		{ 1, 1, 0, false }, { 0, 1, 1, false },
	};
	for (size_t i = 0; i < 6; i++) {
		struct db_run r;
		dbfix_run(&r, "run", plan[i].arm ? "./emu --fast" : "./emu");
		dbfix_counts(&r, 1);
		r.wall_s = plan[i].arm ? 1.0 + 0.01 * (double)i : 2.0 + 0.01 * (double)i;
		struct db_score sc = { "fps", plan[i].arm ? 60.0 : 30.0, true };
		if (db_experiment_add_run(db, e.id, &r, plan[i].arm, plan[i].round,
					  plan[i].pos, plan[i].warm, &sc, 1, &cause))
			dbfix_die("experiment run", cause);
		db_run_release(&r);
	}
	if (db_experiment_finish(db, e.id, "complete", NULL, &cause))
		dbfix_die("finish", cause);
}

/* Write the database described above to path (which must not exist). */
static void dbfix_build(const char *path)
{
	struct db *db;
	char *cause = NULL;
	if (db_open(&db, path, &cause))
		dbfix_die("open", cause);
	struct db_run r;
	dbfix_run(&r, "run", "./demo");
	dbfix_counts(&r, 2);
	dbfix_modules(&r);
	r.topology = dbfix_topology();
	if (db_run_store(db, &r, &cause))
		dbfix_die("run 1", cause);
	db_run_release(&r);
	dbfix_run(&r, "run", "./demo");
	dbfix_counts(&r, 2);
	dbfix_sleep_usage(&r);
	if (db_run_store(db, &r, &cause))
		dbfix_die("run 2", cause);
	db_run_release(&r);
	dbfix_sampled(db);
	dbfix_sleep(db);
	dbfix_experiment(db);
	db_close(db);
}

/*
 * Run sql on the file at path as a tool other than prof might: with
 * foreign keys off, and, first, each table named in `loosen` (a comma-
 * separated list) copied into a plain table of the same columns, without
 * NOT NULL, CHECK or keys, so sql can put anything into it.
 */
static void dbfix_change(const char *path, const char *loosen, const char *sql)
{
	struct db *db;
	char *cause = NULL;
	if (db_open(&db, path, &cause))
		dbfix_die("open", cause);
	if (db_exec(db, "PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON",
		    &cause))
		dbfix_die("pragma", cause);
	char *list = strdup(loosen ? loosen : "");
	for (char *save = NULL, *t = strtok_r(list, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		char *q;
		if (asprintf(&q, "CREATE TABLE loose AS SELECT * FROM %s; DROP TABLE %s;"
			     " ALTER TABLE loose RENAME TO %s", t, t, t) < 0)
			abort();
		if (db_exec(db, q, &cause))
			dbfix_die(q, cause);
		free(q);
	}
	free(list);
	if (sql && db_exec(db, sql, &cause))
		dbfix_die(sql, cause);
	db_close(db);
}

/* The bytes of the file at path (malloc'd; *len set), NULL if none. */
static char *dbfix_bytes(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	char *buf = NULL;
	size_t cap = 0;
	*len = 0;
	for (;;) {
		if (*len == cap) {
			cap = cap ? cap * 2 : 1 << 16;
			buf = realloc(buf, cap);
		}
		size_t n = fread(buf + *len, 1, cap - *len, fp);
		if (!n)
			break;
		*len += n;
	}
	fclose(fp);
	return buf;
}

#endif
