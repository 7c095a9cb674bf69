/*
 * Fault tests for db/ running out of memory (docs/errors.md): one failing
 * allocation, anywhere, while a run is stored or loaded. This executable
 * interposes malloc, calloc and realloc (glibc lets a program replace
 * them), so the failure can land in db/'s own code, in libc on its behalf
 * (strdup, asprintf) or in SQLite, not only where SQLite's allocator hook
 * (db_fault_alloc_after, test_runs) reaches. Each attempt must end in a
 * negative errno with a cause that says "out of memory", or succeed; never
 * abort; and the database must still open and hold every run stored
 * before, each whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/experiments.h"
#include "db/runs.h"
#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define OOM_INTERPOSE 0	/* the sanitizer owns malloc */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OOM_INTERPOSE 0
#else
#define OOM_INTERPOSE 1
#endif
#else
#define OOM_INTERPOSE 1
#endif

/* The allocation that fails: the countdown's 0th from when it is armed
 * (-1: none). injected says whether it came. One thread only. */
static long countdown = -1;
static bool injected;

#if OOM_INTERPOSE
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static bool fail_now(void)
{
	if (countdown < 0)
		return false;
	if (countdown-- > 0)
		return false;
	injected = true;
	errno = ENOMEM;
	return true;
}

void *malloc(size_t n)
{
	return fail_now() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __libc_realloc(p, n);
}
#endif

static void arm(long n)
{
	injected = false;
	countdown = n;
}

static void disarm(void)
{
	countdown = -1;
}

static void need_interposer(void)
{
	if (!OOM_INTERPOSE)
		skip();	/* a sanitizer build: its allocator cannot be replaced */
}

#define NTHREADS 3	/* check_all_whole spells it in its SQL */

/* A run of NTHREADS threads, one event, one setting. */
static void make_run(struct db_run *r, int seq)
{
	tu_run_init(r, "run", "2026-12-06T15:30:00Z", "./work", "oomhost",
		    "Test CPU", 2);
	r->argv[1] = strdup("--round");
	r->argc = 2;
	r->exit_status = seq;
	assert_int_equal(db_set_str(r, SET_EVENTS, "task-clock"), 0);
	r->nevents = 1;
	r->events = calloc(1, sizeof(*r->events));
	r->events[0].name = strdup("task-clock");
	r->events[0].supported = true;
	r->events[0].attr_type = 1;
	r->events[0].attr_config = 1;
	r->events[0].total = (struct db_count){ 3000, 100, 100, true };
	r->nthreads = NTHREADS;
	r->threads = calloc(NTHREADS, sizeof(*r->threads));
	for (size_t i = 0; i < NTHREADS; i++) {
		struct db_thread *t = &r->threads[i];
		t->tid = (int32_t)(100 + i);
		t->pid = 100;
		t->name = strdup(i ? "worker" : "main");
		t->is_main = i == 0;
		t->counts = calloc(1, sizeof(*t->counts));
		t->counts[0] = (struct db_count){ 1000, 100, 100, true };
	}
}

/* Every run in the file loads, whole. */
static int check_all_whole(const char *path)
{
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, path, &cause), 0);
	char *v = NULL;
	assert_int_equal(db_query_text(db, "SELECT count(*) FROM runs", &v, NULL), 0);
	int n = atoi(v);
	free(v);
	assert_int_equal(db_query_text(db, "SELECT count(*) FROM runs r WHERE (SELECT"
				       " count(*) FROM threads t WHERE t.run_id = r.id)"
				       " != 3", &v, NULL), 0);
	assert_string_equal(v, "0");
	free(v);
	for (int64_t id = 1; id <= n; id++) {
		struct db_run r;
		assert_int_equal(db_run_load(db, id, &r, &cause), 0);
		assert_int_equal(r.nthreads, NTHREADS);
		assert_int_equal(r.argc, 2);
		assert_string_equal(db_get_text(&r, SET_EVENTS), "task-clock");
		db_run_release(&r);
	}
	db_close(db);
	return n;
}

/* An attempt that failed said why, in the words docs/errors.md gives. */
static void check_failure(int rc, char *cause, long n)
{
	if (!cause || !strstr(cause, "out of memory"))
		fail_msg("allocation %ld failed: rc %d, cause '%s'", n, rc,
			 cause ? cause : "(none)");
	assert_true(rc < 0);
}

/*
 * One operation tried with each of its allocations failing in turn, from
 * the first on, until an attempt in which none was failed (every one has
 * failed once): op arms allocation n around the call it tests (and only
 * that call: what it sets up before is not under test), returns 0
 * (having checked what it got) or a negative errno with *cause, which
 * must say so in the words docs/errors.md gives. Says under name how
 * many there were and how many attempts op refused.
 */
typedef int (*oom_op)(struct db *db, void *arg, long n, char **cause);

static void each_allocation_fails(struct db *db, const char *name, oom_op op,
				  void *arg)
{
	char *cause = NULL;
	int failed = 0;
	long n;
	for (n = 0; n < 100000; n++) {
		int rc = op(db, arg, n, &cause);
		bool came = injected;
		if (rc) {
			assert_true(came);
			check_failure(rc, cause, n);
			failed++;
		}
		free(cause);
		cause = NULL;
		if (!came)
			break;
	}
	print_message("%s: each of %ld allocations failed in turn, %d refused\n",
		      name, n, failed);
	assert_true(n < 100000);
	assert_true(failed > 0);
}

/* Stores a fresh run; *arg counts the runs stored. */
static int store_op(struct db *db, void *arg, long n, char **cause)
{
	int *stored = arg;
	struct db_run r;
	make_run(&r, 10);
	arm(n);
	int rc = db_run_store(db, &r, cause);
	disarm();
	db_run_release(&r);
	*stored += rc == 0;
	return rc;
}

static void test_oom__store_fails_whole_and_keeps_earlier_runs(void **state)
{
	need_interposer();
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	for (int i = 0; i < 2; i++) {	/* the runs that must survive */
		struct db_run r;
		make_run(&r, i);
		assert_int_equal(db_run_store(db, &r, NULL), 0);
		db_run_release(&r);
	}
	int stored = 2;
	each_allocation_fails(db, "store", store_op, &stored);
	db_close(db);
	/* Each attempt stored the whole run or nothing; the earlier ones are
	 * there, and the file still opens. */
	assert_int_equal(check_all_whole(f->path), stored);
}

static int load_op(struct db *db, void *arg, long n, char **cause)
{
	(void)arg;
	struct db_run r;
	arm(n);
	int rc = db_run_load(db, 1, &r, cause);
	disarm();
	if (!rc) {
		assert_int_equal(r.nthreads, NTHREADS);
		db_run_release(&r);
	}
	return rc;
}

static void test_oom__load_fails_cleanly(void **state)
{
	need_interposer();
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	struct db_run r;
	make_run(&r, 0);
	assert_int_equal(db_run_store(db, &r, NULL), 0);
	db_run_release(&r);
	each_allocation_fails(db, "load", load_op, NULL);
	db_close(db);
	assert_int_equal(check_all_whole(f->path), 1);
}

/* An A/B experiment of two arms, a run each, with a score. */
static int64_t store_experiment(struct db *db)
{
	static struct db_host host = { 0, "oomhost", "6.18", "Test CPU", 2 };
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	e.order = "abba";
	e.rounds = 1;
	struct db_kv settings[] = { { "score", "fps=FPS ([0-9.]+):higher" } };
	e.settings = settings;
	e.nsettings = 1;
	char *argv_a[] = { "./a", NULL }, *argv_b[] = { "./b", "--fast", NULL };
	struct db_kv pin = { "pin", "cpus:1" };
	struct db_arm arms[] = { { "a", "./a", argv_a, 1, &pin, 1 },
				 { "b", "./b --fast", argv_b, 2, NULL, 0 } };
	e.arms = arms;
	e.narms = 2;
	assert_int_equal(db_experiment_create(db, &e, &host, NULL), 0);
	for (int a = 0; a < 2; a++) {
		struct db_run r;
		make_run(&r, a);
		struct db_score sc[] = { { "fps", 30.0 + a, true } };
		assert_int_equal(db_experiment_add_run(db, e.id, &r, a, 0, a, false, sc, 1,
						       NULL), 0);
		db_run_release(&r);
	}
	return e.id;
}

static int experiment_load_op(struct db *db, void *arg, long n, char **cause)
{
	struct db_experiment x;
	arm(n);
	int rc = db_experiment_load(db, *(int64_t *)arg, &x, cause);
	disarm();
	if (!rc) {
		assert_int_equal(x.narms, 2);
		assert_int_equal(x.nruns, 2);
		db_experiment_release(&x);
	}
	return rc;
}

static void test_oom__experiment_load_fails_cleanly(void **state)
{
	need_interposer();
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	int64_t id = store_experiment(db);
	each_allocation_fails(db, "experiment load", experiment_load_op, &id);
	db_close(db);
	assert_int_equal(check_all_whole(f->path), 2);
}

/* A setting that could not be kept keeps the run out of the database,
 * saying so, rather than storing it without: through the dynamic path
 * (typed false) or a typed setter of db/settings.h. */
static void lost_setting_refuses_the_run(struct tu_db *f, bool typed)
{
	need_interposer();
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	struct db_run r;
	make_run(&r, 0);
	assert_int_equal(db_run_store(db, &r, NULL), 0);
	db_run_release(&r);
	make_run(&r, 1);
	arm(0);
	int rc = typed ? db_set_u64(&r, SET_T0_NS, 42)
		       : db_run_set_dynamic(&r, "pin", "cpus:0");
	disarm();
	assert_true(injected);
	assert_int_equal(rc, -ENOMEM);
	assert_int_equal(db_run_store(db, &r, &cause), -ENOMEM);
	assert_non_null(strstr(cause, "out of memory (a setting of the run could not "
				      "be kept)"));
	assert_int_equal(r.id, 0);
	free(cause);
	db_run_release(&r);
	db_close(db);
	assert_int_equal(check_all_whole(f->path), 1);
}

static void test_oom__lost_setting_refuses_the_run(void **state)
{
	lost_setting_refuses_the_run(*state, false);
}

static void test_oom__lost_typed_setting_refuses_the_run(void **state)
{
	lost_setting_refuses_the_run(*state, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_oom__store_fails_whole_and_keeps_earlier_runs,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_oom__load_fails_cleanly,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_oom__experiment_load_fails_cleanly,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_oom__lost_setting_refuses_the_run,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_oom__lost_typed_setting_refuses_the_run,
						tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
