/*
 * Tests for db/: storing and loading runs, the schema and its version,
 * and the faults a database meets: a locked file (SQLITE_BUSY), a full
 * disk, failing allocations, a file that is not a database, a place that
 * cannot be written. In every fault a run is stored whole or not at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/db.h"
#include "db/runs.h"
#include "db/tags.h"
#include "db/topology.h"
#include "storecheck.h"
#include "test_util.h"

static char *xdup(const char *s)
{
	return strdup(s);
}

/* Three modules (one with unknown ELF sizes) and a working set. */
static void add_modules(struct db_run *r)
{
	r->nmodules = 3;
	r->modules = calloc(3, sizeof(*r->modules));
	struct db_module *m = r->modules;
	m[0] = (struct db_module){
		.path = xdup("/usr/lib/x86_64-linux-gnu/libc.so.6"), .kind = xdup("file"),
		.build_id = xdup("93ac61ec5a8eb1396f9fbd350e3169a558528a40"),
		.exec_bytes = 1400832, .nprocs = 2, .has_text = true,
		.has_exec_sections = true, .has_touched = true, .text_bytes = 1392301,
		.exec_section_bytes = 1396969, .touched_bytes = 761856,
		.faulted_bytes = 49152, .faults = 12, .touched_replayed = true,
	};
	m[1] = (struct db_module){
		.path = xdup("/tmp/gone"), .kind = xdup("file"), .exec_bytes = 8192,
		.nprocs = 1, .has_touched = true,
		.error = xdup("cannot open '/tmp/gone': no such file or directory"),
	};
	m[2] = (struct db_module){
		.path = xdup("[anon:exec]"), .kind = xdup("anon"), .exec_bytes = 65536,
		.nprocs = 1, .has_touched = true, .touched_bytes = 65536,
		.faulted_bytes = 65536, .faults = 16,
	};
	static const char *const kinds[] = { "code", "heap", "stack", "anon", "file", "other" };
	r->nws = 6;
	r->ws = calloc(6, sizeof(*r->ws));
	for (size_t i = 0; i < 6; i++) {
		r->ws[i].kind = xdup(kinds[i]);
		r->ws[i].touched_bytes = (i + 1) << 20;
		r->ws[i].faulted_bytes = (i + 1) << 12;
		r->ws[i].faults = i + 1;
	}
}

/* A run with two events (one unsupported) and nthreads threads. */
static void make_run(struct db_run *r, size_t nthreads)
{
	tu_run_init(r, "run", "2026-11-30T05:37:51Z", "./demo 'a b'", "vm",
		    "AMD EPYC", 2);
	free(r->argv[0]);
	r->argv[0] = xdup("./demo");
	r->argv[1] = xdup("a b");
	r->argc = 2;
	r->cwd = xdup("/tmp");
	r->pid = 4242;
	r->exit_status = 3;
	r->wall_s = 1.25;
	r->user_s = 2.5;
	r->sys_s = 0.125;
	r->lost_records = 0;
	r->paranoid = 2;
	r->prof_version = xdup("0.1.0");
	r->pin.mode = xdup("cpus:0");
	r->pin.status = xdup("applied");
	r->pin.cpus = xdup("0");
	db_set_str(r, SET_EVENTS, "task-clock,cycles");
	r->nevents = 2;
	r->events = calloc(2, sizeof(*r->events));
	r->events[0].name = xdup("task-clock");
	r->events[0].canonical = xdup("perf::PERF_COUNT_SW_TASK_CLOCK");
	r->events[0].supported = true;
	r->events[0].attr_type = 1;
	r->events[0].attr_config = 1;
	r->events[0].total = (struct db_count){ 1000 * nthreads, 100, 100, true };
	r->events[1].name = xdup("cycles");
	r->events[1].supported = false;
	r->events[1].reason = xdup("the kernel refused it: No such file or directory");
	r->events[1].canonical = xdup("amd64_fam19h_zen4::CYCLES_NOT_IN_HALT");
	r->events[1].mission_family = xdup("AMD Zen 4");
	r->events[1].mission_event = xdup("ls_not_halted_cyc");
	r->events[1].mission_note = xdup("core cycles while the thread runs");
	r->nthreads = nthreads;
	r->threads = calloc(nthreads, sizeof(*r->threads));
	for (size_t i = 0; i < nthreads; i++) {
		struct db_thread *t = &r->threads[i];
		t->tid = (int32_t)(4242 + i);
		t->pid = i == 2 ? 4300 : 4242;	/* 4300: a child of 4242 */
		t->ppid = i == 2 ? 4242 : i == 1 ? 0 : 4000;	/* 0: not known */
		t->name = xdup(i == 0 ? "demo" : "worker");
		t->is_main = i == 0;
		t->start_ns = (int64_t)i * 10;
		t->end_ns = (int64_t)i * 10 + 5;
		t->counts = calloc(2, sizeof(*t->counts));
		t->counts[0] = (struct db_count){ 1000, 100, i == 1 ? 50 : 100, true };
	}
	add_modules(r);
}

static int count_runs(struct db *db)
{
	char *s = NULL;
	assert_int_equal(db_query_text(db, "SELECT count(*) FROM runs", &s, NULL), 0);
	int n = atoi(s);
	free(s);
	return n;
}

static void test_runs__store_and_load_round_trip(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	struct db_run r, back;
	char *v = NULL;
	make_run(&r, 3);
	assert_int_equal(db_run_store(db, &r, &cause), 0);
	assert_int_equal(r.id, 1);
	assert_int_equal(db_run_load(db, 0, &back, &cause), 0);	/* 0: newest */
	assert_int_equal(back.id, 1);
	assert_string_equal(back.command, "./demo 'a b'");
	assert_int_equal(back.argc, 2);
	assert_string_equal(back.argv[1], "a b");
	assert_int_equal(back.exit_status, 3);
	assert_true(back.wall_s == 1.25 && back.user_s == 2.5 && back.sys_s == 0.125);
	assert_string_equal(back.host.cpu_model, "AMD EPYC");
	assert_string_equal(back.pin.mode, "cpus:0");
	assert_string_equal(back.pin.cpus, "0");
	assert_string_equal(db_get_text(&back, SET_EVENTS), "task-clock,cycles");
	assert_int_equal(back.nevents, 2);
	assert_true(back.events[0].supported);
	assert_false(back.events[1].supported);
	assert_non_null(strstr(back.events[1].reason, "refused"));
	/* what stood behind a mission counter, and nothing for the others */
	assert_string_equal(back.events[1].canonical,
			    "amd64_fam19h_zen4::CYCLES_NOT_IN_HALT");
	assert_string_equal(back.events[1].mission_family, "AMD Zen 4");
	assert_string_equal(back.events[1].mission_event, "ls_not_halted_cyc");
	assert_string_equal(back.events[1].mission_note,
			    "core cycles while the thread runs");
	assert_null(back.events[0].mission_family);
	assert_null(back.events[0].mission_event);
	assert_true(back.events[0].total.present);
	assert_false(back.events[1].total.present);
	assert_int_equal(back.nthreads, 3);
	assert_true(back.threads[0].is_main);
	assert_string_equal(back.threads[2].name, "worker");
	assert_int_equal(back.threads[1].counts[0].running, 50);
	assert_false(back.threads[1].counts[1].present);
	assert_int_equal(back.threads[2].end_ns, 25);
	/* each thread's process and its parent; unknown stays unknown */
	assert_int_equal(back.threads[0].pid, 4242);
	assert_int_equal(back.threads[0].ppid, 4000);
	assert_int_equal(back.threads[1].ppid, 0);
	assert_int_equal(back.threads[2].pid, 4300);
	assert_int_equal(back.threads[2].ppid, 4242);
	assert_int_equal(db_query_text(db, "SELECT count(*) FROM threads"
				       " WHERE ppid IS NULL", &v, NULL), 0);
	assert_string_equal(v, "1");
	free(v);

	/* The view scales the multiplexed thread: 1000 * 100 / 50. */
	assert_int_equal(db_query_text(db, "SELECT value FROM thread_counts"
				       " WHERE tid = 4243", &v, NULL), 0);
	assert_float_equal(atof(v), 2000.0, 1e-9);
	free(v);

	/* Modules in their order, unknowns as unknowns. */
	assert_int_equal(back.nmodules, 3);
	const struct db_module *m = back.modules;
	assert_string_equal(m[0].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_string_equal(m[0].kind, "file");
	assert_string_equal(m[0].build_id, "93ac61ec5a8eb1396f9fbd350e3169a558528a40");
	assert_int_equal(m[0].exec_bytes, 1400832);
	assert_int_equal(m[0].nprocs, 2);
	assert_true(m[0].has_text && m[0].has_exec_sections && m[0].has_touched);
	assert_int_equal(m[0].text_bytes, 1392301);
	assert_int_equal(m[0].exec_section_bytes, 1396969);
	assert_int_equal(m[0].touched_bytes, 761856);
	assert_int_equal(m[0].faulted_bytes, 49152);
	assert_int_equal(m[0].faults, 12);
	assert_true(m[0].touched_replayed);
	assert_false(m[1].touched_replayed);
	assert_null(m[0].error);
	assert_false(m[1].has_text);
	assert_false(m[1].has_exec_sections);
	assert_null(m[1].build_id);
	assert_non_null(strstr(m[1].error, "no such file"));
	assert_string_equal(m[2].kind, "anon");
	assert_int_equal(back.nws, 6);
	assert_string_equal(back.ws[0].kind, "code");
	assert_string_equal(back.ws[5].kind, "other");
	assert_int_equal(back.ws[3].touched_bytes, 4 << 20);
	assert_int_equal(back.ws[3].faulted_bytes, 4 << 12);
	assert_int_equal(back.ws[3].faults, 4);
	assert_int_equal(db_query_text(db, "SELECT count(*) FROM modules WHERE"
				       " text_bytes IS NULL", &v, NULL), 0);
	assert_string_equal(v, "2");
	free(v);

	db_run_release(&back);
	db_run_release(&r);

	/* A run without modules or a working set loads with none. */
	make_run(&r, 1);
	for (size_t i = 0; i < r.nmodules; i++) {
		free(r.modules[i].path);
		free(r.modules[i].kind);
		free(r.modules[i].build_id);
		free(r.modules[i].error);
	}
	free(r.modules);
	r.modules = NULL;
	r.nmodules = 0;
	for (size_t i = 0; i < r.nws; i++)
		free(r.ws[i].kind);
	free(r.ws);
	r.ws = NULL;
	r.nws = 0;
	assert_int_equal(db_run_store(db, &r, &cause), 0);
	assert_int_equal(db_run_load(db, r.id, &back, &cause), 0);
	assert_int_equal(back.nmodules, 0);
	assert_int_equal(back.nws, 0);
	db_run_release(&back);
	db_run_release(&r);
	db_close(db);
}

/*
 * A file written by the first schema (tests/fixtures/db/v1.db) is
 * migrated on open: its run loads as it was, with no modules, and new
 * runs store theirs.
 */
/*
 * Threads and counts go in many rows to a statement (DB_INSERT_ROWS) and
 * the rest one by one: every run size around those boundaries, stored
 * one after another in one file, loads back thread for thread, each
 * count with its own thread.
 */
static void test_runs__many_threads_round_trip_across_batches(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	static const size_t sizes[] = { 1, 63, 64, 65, 130, 7 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		struct db_run r, back;
		make_run(&r, n);
		for (size_t i = 0; i < n; i++) {
			struct db_thread *t = &r.threads[i];
			t->counts[0] = (struct db_count){ 1000 * k + i, 100 + i, 100, true };
			if (i % 3 == 0)	/* the second event on some threads only */
				t->counts[1] = (struct db_count){ 7 * i + k, 9, 9, true };
		}
		assert_int_equal(db_run_store(db, &r, &cause), 0);
		assert_int_equal(db_run_load(db, r.id, &back, &cause), 0);
		assert_int_equal(back.nthreads, n);
		for (size_t i = 0; i < n; i++) {
			const struct db_thread *t = &back.threads[i];
			assert_int_equal(t->tid, 4242 + (int)i);
			assert_int_equal(t->start_ns, (int64_t)i * 10);
			assert_true(t->counts[0].present);
			assert_int_equal(t->counts[0].value, 1000 * k + i);
			assert_int_equal(t->counts[0].enabled, 100 + i);
			assert_int_equal(t->counts[1].present, i % 3 == 0);
			if (i % 3 == 0)
				assert_int_equal(t->counts[1].value, 7 * i + k);
		}
		db_run_release(&back);
		db_run_release(&r);
	}
	char *v = NULL;
	assert_int_equal(db_query_text(db, "SELECT count(*) FROM counts", &v, NULL), 0);
	/* 330 threads, each with its first count, 113 (every third) with
	 * their second */
	assert_string_equal(v, "443");
	free(v);
	db_close(db);
}

/* A thread's counts are one JSON text (schema v21): every 64-bit value
 * comes back as it went in, and the view counts shows SQLite's signed
 * form of it, as the table did. */
static void test_runs__counts_of_every_width_round_trip(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	static const uint64_t vals[] = { 0, 1, 9, 10, 4294967296ull, INT64_MAX,
					 (uint64_t)INT64_MAX + 1, UINT64_MAX - 1, UINT64_MAX };
	const size_t n = sizeof(vals) / sizeof(vals[0]);
	struct db_run r, back;
	make_run(&r, n);
	for (size_t i = 0; i < n; i++)
		r.threads[i].counts[1] = (struct db_count){ vals[i], vals[n - 1 - i],
							    vals[(i + 3) % n], true };
	free(r.threads[2].counts);	/* a thread no count arrived for */
	r.threads[2].counts = NULL;
	assert_int_equal(db_run_store(db, &r, &cause), 0);
	assert_int_equal(db_run_load(db, r.id, &back, &cause), 0);
	for (size_t i = 0; i < n; i++) {
		const struct db_count *c = &back.threads[i].counts[1];
		assert_int_equal(back.threads[i].counts[0].present, i != 2);
		assert_int_equal(c->present, i != 2);
		if (i == 2)
			continue;
		assert_true(c->value == vals[i]);
		assert_true(c->enabled == vals[n - 1 - i]);
		assert_true(c->running == vals[(i + 3) % n]);
	}
	char *v = NULL;
	assert_int_equal(db_query_text(db, "SELECT group_concat(value) FROM counts"
				       " WHERE event_idx = 1", &v, NULL), 0);
	assert_string_equal(v, "0,1,10,4294967296,9223372036854775807,"
			    "-9223372036854775808,-2,-1");
	free(v);
	assert_int_equal(db_query_text(db, "SELECT counts FROM threads WHERE seq = 2",
				       &v, NULL), 0);
	assert_string_equal(v, "[null,null]");
	free(v);
	db_run_release(&back);
	db_run_release(&r);
	db_close(db);
}

static void test_runs__v1_file_gains_modules(void **state)
{
	struct tu_db *f = *state;
	char *cmd;
	assert_true(asprintf(&cmd, "cp '%s/db/v1.db' '%s'", FIXTURES_DIR, f->path) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	struct db *db;
	struct db_run r, back;
	char *cause = NULL;
	if (db_open(&db, f->path, &cause))
		fail_msg("%s", cause);
	char *v = NULL;
	assert_int_equal(db_query_text(db, "PRAGMA user_version", &v, NULL), 0);
	assert_int_equal(atoi(v), db_schema_version());
	free(v);
	assert_int_equal(db_run_load(db, 1, &back, &cause), 0);
	assert_string_equal(back.command, "./demo");
	assert_int_equal(back.nthreads, 2);
	assert_string_equal(back.threads[1].name, "worker");
	assert_int_equal(back.threads[1].counts[0].value, 600000000);
	assert_false(back.events[1].supported);
	assert_int_equal(back.nmodules, 0);
	db_run_release(&back);
	make_run(&r, 2);
	assert_int_equal(db_run_store(db, &r, NULL), 0);
	assert_int_equal(db_run_load(db, r.id, &back, &cause), 0);
	assert_int_equal(back.nmodules, 3);
	db_run_release(&back);
	db_run_release(&r);
	db_close(db);
}

/*
 * A file written by schema v8 (tests/fixtures/db/v8.db: one run of two
 * processes, four threads), from before threads knew their process's
 * parent, is migrated on open: its rows load as they were, with no
 * parent known, and new runs store theirs beside them.
 */
static void test_runs__v8_file_gains_parents(void **state)
{
	struct tu_db *f = *state;
	char *cmd;
	assert_true(asprintf(&cmd, "cp '%s/db/v8.db' '%s'", FIXTURES_DIR, f->path) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	struct db *db;
	struct db_run r, back;
	char *cause = NULL, *v = NULL;
	if (db_open(&db, f->path, &cause))
		fail_msg("%s", cause);
	assert_int_equal(db_query_text(db, "PRAGMA user_version", &v, NULL), 0);
	assert_int_equal(atoi(v), db_schema_version());
	free(v);
	assert_int_equal(db_run_load(db, 1, &back, &cause), 0);
	assert_string_equal(back.command, "sh -c './worker & ./worker; wait'");
	assert_int_equal(back.nthreads, 4);
	static const int32_t tid[] = { 5000, 5001, 5002, 5003 };
	static const int32_t pid[] = { 5000, 5001, 5001, 5003 };
	static const uint64_t tc[] = { 250000000, 700000000, 300000000, 500000000 };
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(back.threads[i].tid, tid[i]);
		assert_int_equal(back.threads[i].pid, pid[i]);
		assert_int_equal(back.threads[i].ppid, 0);
		assert_int_equal(back.threads[i].counts[0].value, tc[i]);
	}
	assert_string_equal(back.threads[2].name, "worker");
	assert_true(back.threads[0].is_main);
	assert_int_equal(back.events[0].total.value, 1750000000);
	assert_string_equal(db_get_text(&back, SET_COMPLETE), "yes");
	db_run_release(&back);
	make_run(&r, 3);
	assert_int_equal(db_run_store(db, &r, NULL), 0);
	assert_int_equal(r.id, 2);
	assert_int_equal(db_run_load(db, r.id, &back, &cause), 0);
	assert_int_equal(back.threads[2].ppid, 4242);
	db_run_release(&back);
	db_run_release(&r);
	db_close(db);
}

static int count_rows(struct db *db, const char *sql)
{
	char *s = NULL;
	assert_int_equal(db_query_text(db, sql, &s, NULL), 0);
	int n = atoi(s);
	free(s);
	return n;
}

/*
 * A host's topology is written with the first run that carries one: one
 * row for its facts, one per cache domain and per CPU set, named by
 * column; a later run of the same host adds none.
 */
static void test_runs__topology_stored_once_per_host(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	for (int i = 0; i < 2; i++) {
		struct db_run r;
		make_run(&r, 1);
		struct db_topology *t = calloc(1, sizeof(*t));
		t->online = xdup("0-1");
		t->llc_level = 3;
		t->largest_llc = 0;
		t->ncaches = 2;
		t->caches = calloc(2, sizeof(*t->caches));
		t->caches[0] = (struct db_cache){ 3, xdup("Unified"), 32u << 20, xdup("0-1"),
						  0, -1 };
		t->caches[1] = (struct db_cache){ 2, xdup("Unified"), 512u << 10, xdup("0"),
						  0, -1 };
		t->nnodes = 1;
		t->nodes = calloc(1, sizeof(*t->nodes));
		t->nodes[0] = (struct db_cpuset){ 0, xdup("0-1") };
		r.topology = t;
		assert_int_equal(db_run_store(db, &r, NULL), 0);
		db_run_release(&r);
	}
	assert_int_equal(count_rows(db, "SELECT count(*) FROM host_topology"), 4);
	assert_int_equal(count_rows(db, "SELECT size_bytes FROM host_topology"
				    " WHERE kind = 'cache' AND idx = 1"), 512 << 10);
	assert_int_equal(count_rows(db, "SELECT number FROM host_topology"
				    " WHERE kind = 'node' AND cpus = '0-1'"), 0);
	assert_int_equal(count_rows(db, "SELECT level FROM host_topology"
				    " WHERE kind = 'info' AND idx = 0"), 3);
	db_close(db);
}

static struct db_topology *one_cache_topology(void *calls)
{
	++*(int *)calls;
	struct db_topology *t = calloc(1, sizeof(*t));
	t->online = xdup("0-3");
	t->llc_level = 2;
	t->largest_llc = 0;
	t->ncaches = 1;
	t->caches = calloc(1, sizeof(*t->caches));
	t->caches[0] = (struct db_cache){ 2, xdup("Unified"), 1u << 20, xdup("0-3"), 0, -1 };
	return t;
}

/*
 * A run that leaves its topology to be made (nothing pinned: prof does
 * not read sysfs for it) has it made only for a host with none stored:
 * once for the first run, never for the second.
 */
static void test_runs__topology_made_only_when_missing(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	int calls = 0;
	for (int i = 0; i < 2; i++) {
		struct db_run r;
		make_run(&r, 1);
		r.topology_fn = one_cache_topology;
		r.topology_arg = &calls;
		assert_int_equal(db_run_store(db, &r, NULL), 0);
		db_run_release(&r);
		assert_int_equal(calls, 1);
	}
	assert_int_equal(count_rows(db, "SELECT count(*) FROM host_topology"), 2);
	assert_int_equal(count_rows(db, "SELECT size_bytes FROM host_topology"
				    " WHERE kind = 'cache'"), 1 << 20);
	db_close(db);
}

static void test_runs__missing_and_listing(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	struct db_run back;
	assert_int_equal(db_run_load(db, 0, &back, &cause), -ENOENT);
	assert_non_null(strstr(cause, "no runs stored"));
	free(cause);
	cause = NULL;
	struct db_run r;
	for (int i = 0; i < 3; i++) {
		make_run(&r, 2);
		assert_int_equal(db_run_store(db, &r, NULL), 0);
		db_run_release(&r);
	}
	assert_int_equal(db_run_load(db, 7, &back, &cause), -ENOENT);
	assert_non_null(strstr(cause, "no run 7"));
	free(cause);
	struct db_run_summary *list;
	size_t n;
	assert_int_equal(db_runs_list(db, &list, &n, NULL), 0);
	assert_int_equal(n, 3);
	assert_int_equal(list[0].id, 1);	/* newest last */
	assert_int_equal(list[2].id, 3);
	assert_int_equal(list[2].nthreads, 2);
	db_runs_list_free(list, n);
	db_close(db);
}

static void test_runs__schema_version_and_newer_file(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	char *v = NULL;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	assert_int_equal(db_query_text(db, "PRAGMA user_version", &v, NULL), 0);
	assert_int_equal(atoi(v), db_schema_version());
	free(v);
	/* The rollback journal, each commit synced before it returns. */
	assert_int_equal(db_query_text(db, "PRAGMA journal_mode", &v, NULL), 0);
	assert_string_equal(v, "delete");
	free(v);
	assert_int_equal(db_query_text(db, "PRAGMA synchronous", &v, NULL), 0);
	assert_string_equal(v, "2");
	free(v);
	assert_int_equal(db_exec(db, "PRAGMA user_version = 999", NULL), 0);
	db_close(db);
	assert_int_equal(db_open(&db, f->path, &cause), -EPROTO);
	assert_null(db);
	assert_non_null(strstr(cause, "newer than this prof"));
	free(cause);
}

static void test_runs__not_a_database_is_a_clear_error(void **state)
{
	struct tu_db *f = *state;
	FILE *fp = fopen(f->path, "w");
	for (int i = 0; i < 200; i++)
		fputs("this is not a database, it is a text file\n", fp);
	fclose(fp);
	struct db *db;
	char *cause = NULL;
	assert_true(db_open(&db, f->path, &cause) < 0);
	assert_non_null(cause);
	assert_non_null(strstr(cause, f->path));
	assert_non_null(strstr(cause, "hint:"));
	free(cause);
	/* The file is left as it was. */
	char *text = tu_slurp(f->path);
	assert_true(strncmp(text, "this is not a database", 22) == 0);
	free(text);
}

static void test_runs__unwritable_place_is_a_clear_error(void **state)
{
	(void)state;
	struct db *db;
	char *cause = NULL;
	assert_true(db_open(&db, "/proc/no-such-dir/prof.db", &cause) < 0);
	assert_non_null(strstr(cause, "cannot open database '/proc/no-such-dir/prof.db'"));
	assert_non_null(strstr(cause, "no such directory '/proc/no-such-dir'"));
	free(cause);
}

static bool stop_now(void *arg)
{
	(*(int *)arg)++;
	return true;
}

/* A wait on a lock says how long it waited, and ends when told to. */
static void test_runs__lock_wait_is_bounded_and_can_stop(void **state)
{
	struct tu_db *f = *state;
	struct db *a, *b;
	char *cause = NULL;
	assert_int_equal(db_open_wait(&a, f->path, 200, NULL), 0);
	assert_int_equal(db_open(&b, f->path, NULL), 0);
	assert_int_equal(db_exec(b, "BEGIN IMMEDIATE", NULL), 0);
	struct db_run r;
	make_run(&r, 2);
	assert_int_equal(db_run_store(a, &r, &cause), -EBUSY);
	assert_non_null(strstr(cause, "locked by another writer; gave up after 0.2 s"));
	free(cause);
	cause = NULL;

	int asked = 0;
	db_set_busy_timeout(a, 60000);
	db_set_busy_stop(a, stop_now, &asked);
	assert_int_equal(db_run_store(a, &r, &cause), -EBUSY);
	assert_true(asked > 0);
	assert_non_null(strstr(cause, "(interrupted)"));
	free(cause);
	assert_int_equal(db_exec(b, "ROLLBACK", NULL), 0);
	assert_int_equal(count_runs(a), 0);
	db_run_release(&r);
	db_close(a);
	db_close(b);
}

static void test_runs__locked_database_stores_nothing(void **state)
{
	struct tu_db *f = *state;
	struct db *a, *b;
	char *cause = NULL;
	assert_int_equal(db_open(&a, f->path, NULL), 0);
	assert_int_equal(db_open(&b, f->path, NULL), 0);
	db_set_busy_timeout(a, 50);
	assert_int_equal(db_exec(b, "BEGIN IMMEDIATE", NULL), 0);
	struct db_run r;
	make_run(&r, 10);
	assert_int_equal(db_run_store(a, &r, &cause), -EBUSY);
	assert_non_null(strstr(cause, "locked by another writer"));
	free(cause);
	assert_int_equal(r.id, 0);
	assert_int_equal(db_exec(b, "ROLLBACK", NULL), 0);
	assert_int_equal(count_runs(a), 0);
	/* Once the lock is gone the same run stores whole. */
	assert_int_equal(db_run_store(a, &r, NULL), 0);
	struct db_run back;
	assert_int_equal(db_run_load(b, r.id, &back, NULL), 0);
	assert_int_equal(back.nthreads, 10);
	db_run_release(&back);
	db_run_release(&r);
	db_close(a);
	db_close(b);
}

static void test_runs__full_disk_leaves_no_half_run(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct db_run small, big;
	make_run(&small, 2);
	assert_int_equal(db_run_store(db, &small, NULL), 0);
	/* Cap the file just above what it holds: the big run cannot fit. */
	char *pages = NULL;
	assert_int_equal(db_query_text(db, "PRAGMA page_count", &pages, NULL), 0);
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %d", atoi(pages) + 2);
	free(pages);
	char *ignored = NULL;
	assert_int_equal(db_query_text(db, sql, &ignored, NULL), 0);
	free(ignored);
	make_run(&big, 5000);
	assert_int_equal(db_run_store(db, &big, &cause), -ENOSPC);
	assert_non_null(strstr(cause, "full"));
	free(cause);
	assert_int_equal(count_runs(db), 1);
	char *nthreads = NULL;
	assert_int_equal(db_query_text(db, "SELECT count(*) FROM threads", &nthreads, NULL), 0);
	assert_int_equal(atoi(nthreads), 2);
	free(nthreads);
	db_run_release(&small);
	db_run_release(&big);
	db_close(db);
}

/* A run of n threads, stored (storecheck's store function). */
static int store_run(struct db *db, size_t n, int64_t *id, char **cause)
{
	struct db_run r;
	make_run(&r, n);
	int rc = db_run_store(db, &r, cause);
	*id = rc ? 0 : r.id;
	db_run_release(&r);
	return rc;
}

/*
 * Fail the Nth allocation for N over a range: each attempt either stores
 * the run whole or reports an error, never a crash or a partial run.
 */
static void test_runs__failing_allocations(void **state)
{
	struct tu_db *f = *state;
	/* Every run in the file is whole: 20 threads with one count each. */
	sc_failing_allocations(f->path, store_run, 20,
		"SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM threads t"
		" WHERE t.run_id = r.id) != 20 OR (SELECT count(*) FROM counts c JOIN"
		" threads t ON t.id = c.thread_id WHERE t.run_id = r.id) != 20"
		" OR (SELECT count(*) FROM modules m WHERE m.run_id = r.id) != 3"
		" OR (SELECT count(*) FROM working_set w WHERE w.run_id = r.id) != 6",
		NULL);
}

static char *journal_mode_of(const char *path)
{
	sqlite3 *h;
	char *mode = NULL;
	assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	mode = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(h);
	return mode;
}

/*
 * A file an older prof left in WAL mode: a writer's open switches it to
 * the rollback journal, unless another connection has the file open in
 * WAL, when it keeps WAL without waiting and stores all the same.
 */
static void test_runs__wal_file_is_switched_when_alone(void **state)
{
	struct tu_db *f = *state;
	struct db *db, *other;
	struct db_run r;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	make_run(&r, 2);
	assert_int_equal(db_run_store(db, &r, NULL), 0);
	db_run_release(&r);
	assert_int_equal(db_exec(db, "PRAGMA journal_mode = WAL", NULL), 0);
	db_close(db);
	char *mode = journal_mode_of(f->path);
	assert_string_equal(mode, "wal");
	free(mode);

	/* another prof has it open in WAL (as an older one would) */
	sqlite3 *old;
	assert_int_equal(sqlite3_open_v2(f->path, &old, SQLITE_OPEN_READWRITE, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_exec(old, "SELECT count(*) FROM runs", NULL, NULL, NULL),
			 SQLITE_OK);
	double t0 = tu_now_s();
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	assert_true(tu_now_s() - t0 < 2.0);
	char *v = NULL;
	assert_int_equal(db_query_text(db, "PRAGMA journal_mode", &v, NULL), 0);
	assert_string_equal(v, "wal");
	free(v);
	make_run(&r, 2);
	assert_int_equal(db_run_store(db, &r, NULL), 0);
	db_run_release(&r);
	assert_int_equal(count_runs(db), 2);
	db_close(db);
	sqlite3_close(old);

	/* alone, the next writer switches it */
	assert_int_equal(db_open(&other, f->path, NULL), 0);
	assert_int_equal(count_runs(other), 2);
	db_close(other);
	mode = journal_mode_of(f->path);
	assert_string_equal(mode, "delete");
	free(mode);
	char *wal;
	assert_true(asprintf(&wal, "%s-wal", f->path) > 0);
	assert_int_not_equal(access(wal, F_OK), 0);
	free(wal);
}

/*
 * A writer killed inside its commit leaves a hot journal. A reader's open
 * rolls it back (through a writer's open) and reads the runs committed
 * before it, whole; the killed write is gone.
 */
static void test_runs__reader_rolls_back_a_killed_commit(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	struct db_run r;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	make_run(&r, 3);
	assert_int_equal(db_run_store(db, &r, NULL), 0);
	db_run_release(&r);
	db_close(db);
	pid_t pid = fork();
	if (pid == 0) {
		/* A small cache spills the transaction into the file before
		 * its commit: the journal is hot from then on. */
		sqlite3 *h;
		if (sqlite3_open_v2(f->path, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
		    sqlite3_exec(h, "PRAGMA cache_size = 1; BEGIN IMMEDIATE; "
				 "DELETE FROM threads; UPDATE runs SET command = 'x';"
				 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
				 "FROM n WHERE i < 5000) INSERT INTO run_settings "
				 "(run_id, key, value) SELECT 1, 'k' || i, zeroblob(200) "
				 "FROM n", NULL, NULL, NULL) != SQLITE_OK)
			_exit(2);
		raise(SIGKILL);
		_exit(3);
	}
	int st;
	waitpid(pid, &st, 0);
	assert_true(WIFSIGNALED(st));
	char *journal;
	assert_true(asprintf(&journal, "%s-journal", f->path) > 0);
	assert_int_equal(access(journal, F_OK), 0);
	char *cause = NULL;
	if (db_open_readonly(&db, f->path, &cause))
		fail_msg("%s", cause);
	struct db_run back;
	assert_int_equal(db_run_load(db, 0, &back, NULL), 0);
	assert_string_equal(back.command, "./demo 'a b'");
	assert_int_equal(back.nthreads, 3);
	db_run_release(&back);
	char *n = NULL;
	assert_int_equal(db_query_text(db, "SELECT count(*) FROM run_settings WHERE "
				       "key LIKE 'k%'", &n, NULL), 0);
	assert_string_equal(n, "0");
	free(n);
	db_close(db);
	assert_int_not_equal(access(journal, F_OK), 0);
	free(journal);
}

static void test_runs__two_writers_share_the_file(void **state)
{
	struct tu_db *f = *state;
	struct db *a, *b;
	assert_int_equal(db_open(&a, f->path, NULL), 0);
	assert_int_equal(db_open(&b, f->path, NULL), 0);
	struct db_run r;
	for (int i = 0; i < 4; i++) {
		make_run(&r, 3);
		assert_int_equal(db_run_store(i % 2 ? a : b, &r, NULL), 0);
		db_run_release(&r);
	}
	assert_int_equal(count_runs(a), 4);
	db_close(a);
	db_close(b);
}

/*
 * A reader's open creates nothing and can write nothing: no file where
 * none was, no -wal or -shm beside one that is there, and a write through
 * it is refused. An older file is brought up to date first; a run stored
 * while a writer holds the file open is seen, and the file alone holds
 * it (no -wal beside it).
 */
static void test_runs__read_only_open(void **state)
{
	struct tu_db *f = *state;
	struct db *db, *w;
	char *cause = NULL;
	assert_int_equal(db_open_readonly(&db, f->path, &cause), -ENOENT);
	assert_null(db);
	assert_non_null(strstr(cause, "no database at '"));
	free(cause);
	assert_int_not_equal(access(f->path, F_OK), 0);

	char *cmd;
	assert_true(asprintf(&cmd, "cp '%s/db/v1.db' '%s'", FIXTURES_DIR, f->path) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	cause = NULL;
	if (db_open_readonly(&db, f->path, &cause))
		fail_msg("%s", cause);
	char *v = NULL;
	assert_int_equal(db_query_text(db, "PRAGMA user_version", &v, NULL), 0);
	assert_int_equal(atoi(v), db_schema_version());
	free(v);
	cause = NULL;
	assert_true(db_exec(db, "DELETE FROM runs", &cause) < 0);
	free(cause);
	struct db_run back;
	assert_int_equal(db_run_load(db, 1, &back, NULL), 0);
	db_run_release(&back);
	db_close(db);
	char *wal, *shm;
	assert_true(asprintf(&wal, "%s-wal", f->path) > 0);
	assert_true(asprintf(&shm, "%s-shm", f->path) > 0);
	assert_int_not_equal(access(wal, F_OK), 0);
	assert_int_not_equal(access(shm, F_OK), 0);

	/* with a writer at work, the reader sees what it committed */
	assert_int_equal(db_open(&w, f->path, NULL), 0);
	struct db_run r;
	make_run(&r, 1);
	assert_int_equal(db_run_store(w, &r, NULL), 0);
	assert_int_not_equal(access(wal, F_OK), 0);
	assert_int_equal(db_open_readonly(&db, f->path, NULL), 0);
	assert_int_equal(db_run_load(db, r.id, &back, NULL), 0);
	db_run_release(&back);
	db_close(db);
	db_close(w);
	db_run_release(&r);
	free(wal);
	free(shm);
}

static void test_runs__lookups_by_name(void **state)
{
	(void)state;
	struct db_kv kv[] = { { "thp", "always" }, { "governor", "performance" } };
	assert_string_equal(db_kv_get(kv, 2, "governor"), "performance");
	assert_null(db_kv_get(kv, 2, "smt"));
	assert_null(db_kv_get(NULL, 0, "thp"));
	struct db_sysval sv[] = { { "vmstat.pgfault", 12 }, { "stat.cpu1.steal_ms", -3 } };
	int64_t d = 99;
	assert_true(db_sysval_get(sv, 2, "stat.cpu1.steal_ms", &d));
	assert_int_equal(d, -3);
	/* Not stored: it did not move. */
	assert_false(db_sysval_get(sv, 2, "vmstat.pswpin", &d));
	assert_int_equal(d, 0);
}

/*
 * Whatever the writer takes, the reader reads: a thread named in 5,000
 * bytes of euros, a command of 1.2 MB, a tag of 6,000 bytes are cut on a
 * character's boundary to the loader's limits, and the run's note says
 * so; before, `prof runs` failed for the whole database after such a run.
 */
static void test_runs__texts_past_the_limits_are_cut_and_noted(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	struct db_run r;
	make_run(&r, 1);
	free(r.threads[0].name);
	char *euros = malloc(5001);
	for (size_t i = 0; i < 5000; i += 3)
		memcpy(euros + i, "\xe2\x82\xac", 3);	/* 5001 bytes: cut below */
	euros[5000] = '\0';
	r.threads[0].name = euros;
	free(r.command);
	r.command = malloc(1200001);
	memset(r.command, 'c', 1200000);
	r.command[1200000] = '\0';
	free(r.argv[1]);
	r.argv[1] = xdup(r.command);
	char *tag = malloc(6001);
	memset(tag, 't', 6000);
	tag[6000] = '\0';
	db_set_str(&r, SET_TAG, tag);
	free(tag);
	if (db_run_store(db, &r, &cause))
		fail_msg("%s", cause);

	struct db_run back;
	if (db_run_load(db, r.id, &back, &cause))
		fail_msg("%s", cause);
	assert_non_null(back.note);
	assert_non_null(strstr(back.note, "prof cut 3 texts"));
	assert_true(strlen(back.threads[0].name) <= 4096);
	assert_true(strlen(back.threads[0].name) % 3 == 0);	/* whole euros */
	assert_int_equal(strlen(back.command), 1 << 20);
	db_run_release(&back);
	struct db_run_summary *list;
	size_t n;
	if (db_runs_list(db, &list, &n, &cause))
		fail_msg("%s", cause);
	assert_int_equal(n, 1);
	db_runs_list_free(list, n);
	db_run_release(&r);
	db_close(db);
}

/*
 * A file an older prof left half made (it committed its schema a step
 * at a time, and a full disk stopped it): a reader that cannot finish it
 * says the file is incomplete and holds no runs, not just its version.
 */
static void test_runs__half_made_file_is_named_incomplete(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	/* step 5's tables are there already: redoing it fails, as the
	 * finishing of a half-made file on a full disk does */
	assert_int_equal(db_exec(db, "PRAGMA user_version = 5", &cause), 0);
	db_close(db);
	assert_int_not_equal(db_open_readonly(&db, f->path, &cause), 0);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "is incomplete: its creation stopped at schema "
			       "step 5 of"));
	assert_non_null(strstr(cause, "holds no runs"));
	free(cause);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs__lookups_by_name),
		cmocka_unit_test_setup_teardown(test_runs__store_and_load_round_trip, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__many_threads_round_trip_across_batches, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__counts_of_every_width_round_trip, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__v1_file_gains_modules, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__v8_file_gains_parents, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__read_only_open, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__missing_and_listing, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__topology_stored_once_per_host, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__topology_made_only_when_missing, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__schema_version_and_newer_file, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__not_a_database_is_a_clear_error, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__unwritable_place_is_a_clear_error, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__locked_database_stores_nothing, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__lock_wait_is_bounded_and_can_stop, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__full_disk_leaves_no_half_run, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__failing_allocations, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__texts_past_the_limits_are_cut_and_noted, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__half_made_file_is_named_incomplete, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__two_writers_share_the_file, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__wal_file_is_switched_when_alone, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_runs__reader_rolls_back_a_killed_commit, tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
