/*
 * Tests for db/sleep: a `prof sleep` run stores as a runs row of kind
 * "sleep" with its facts and cells, loads back field for field, is stored
 * whole or not at all (a locked file, failing allocations), and a run
 * that holds no benchmark is a clear -ENOENT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "db/db.h"
#include "db/runs.h"
#include "db/sleep.h"
#include "storecheck.h"
#include "test_util.h"

static void make_run(struct db_run *r)
{
	tu_run_init(r, "sleep", "2026-12-01T08:00:00Z",
		    "prof sleep --modes spin,hybrid --durations 30,50", "vm",
		    "AMD EPYC", 2);
	r->wall_s = 2.5;
	r->user_s = 1.25;
	r->sys_s = 0.5;
	r->pin.mode = strdup("cpus:1");
	r->pin.status = strdup("applied");
	r->pin.cpus = strdup("1");
}

/* Two modes x two durations; values chosen so no two fields are equal. */
static void make_sleep(struct db_sleep *s, size_t ncells)
{
	memset(s, 0, sizeof(*s));
	s->timer_slack_ns = 50000;
	snprintf(s->sched_policy, sizeof(s->sched_policy), "SCHED_OTHER");
	snprintf(s->clocksource, sizeof(s->clocksource), "kvm-clock");
	snprintf(s->pattern, sizeof(s->pattern), "periodic");
	s->calls = 200;
	s->threads = 2;
	s->load = 1;
	s->hybrid_margin_ns = 12300;
	s->hybrid_calibrated = true;
	s->calibration_p999_ns = 10300;
	s->calibration_guard_ns = 2000;
	s->cheap_p99_us = 10.0;
	s->ncells = ncells;
	s->cells = calloc(ncells, sizeof(*s->cells));
	for (size_t i = 0; i < ncells; i++) {
		struct db_sleep_cell *c = &s->cells[i];
		bool hybrid = i % 4 >= 2;
		snprintf(c->mode, sizeof(c->mode), "%s", hybrid ? "hybrid" : "spin");
		c->margin_ns = hybrid ? 12300 : -1;
		c->target_us = i % 2 ? 50 : 30;
		c->calls = 400;
		c->p50_ns = -5 + (int64_t)i;	/* an early median survives */
		c->p90_ns = 900 + (int64_t)i;
		c->p99_ns = 9900 + (int64_t)i;
		c->p999_ns = 49999 + (int64_t)i;
		c->max_ns = 1234567 + (int64_t)i;
		c->min_ns = -700 - (int64_t)i;
		c->mean_ns = 1500.25 + (double)i;
		c->early = 3 + i;
		for (int b = 0; b < DB_SLEEP_NBUCKETS; b++)
			c->buckets[b] = 100 * (uint64_t)(b + 1) + i;
		c->missed = 7 + i;
		c->wall_s = 0.0125 + (double)i;
		c->cpu_s = 0.011 + (double)i;
		c->cpu_pct = 99.5 - (double)i;
		c->cpu_us_per_call = 55.125 + (double)i;
		c->vcsw_per_call = 0.0025 * (double)(i + 1);
		c->ivcsw_per_call = 0.125 * (double)(i + 1);
		c->cheapest = i == 1;
	}
}

static void test_sleep_store__round_trip(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	struct db_run r;
	struct db_sleep s;
	make_run(&r);
	make_sleep(&s, 4);
	assert_int_equal(db_sleep_store(db, &r, &s, &cause), 0);
	assert_true(r.id > 0);

	/* The run is an ordinary run of kind "sleep" with no threads. */
	struct db_run back;
	assert_int_equal(db_run_load(db, r.id, &back, &cause), 0);
	assert_string_equal(back.kind, "sleep");
	assert_string_equal(back.command, r.command);
	assert_string_equal(back.pin.cpus, "1");
	assert_int_equal(back.nthreads, 0);
	assert_true(back.wall_s == 2.5);
	db_run_release(&back);

	struct db_sleep got;
	assert_int_equal(db_sleep_load(db, r.id, &got, &cause), 0);
	assert_int_equal(got.timer_slack_ns, 50000);
	assert_string_equal(got.sched_policy, "SCHED_OTHER");
	assert_string_equal(got.clocksource, "kvm-clock");
	assert_string_equal(got.pattern, "periodic");
	assert_int_equal(got.calls, 200);
	assert_int_equal(got.threads, 2);
	assert_int_equal(got.load, 1);
	assert_int_equal(got.hybrid_margin_ns, 12300);
	assert_true(got.hybrid_calibrated);
	assert_int_equal(got.calibration_p999_ns, 10300);
	assert_int_equal(got.calibration_guard_ns, 2000);
	assert_true(got.cheap_p99_us == 10.0);
	assert_int_equal(got.ncells, 4);
	for (size_t i = 0; i < 4; i++) {
		const struct db_sleep_cell *a = &s.cells[i], *b = &got.cells[i];
		assert_string_equal(a->mode, b->mode);
		assert_int_equal(a->margin_ns, b->margin_ns);
		assert_int_equal(a->target_us, b->target_us);
		assert_int_equal(a->calls, b->calls);
		assert_int_equal(a->p50_ns, b->p50_ns);
		assert_int_equal(a->p90_ns, b->p90_ns);
		assert_int_equal(a->p99_ns, b->p99_ns);
		assert_int_equal(a->p999_ns, b->p999_ns);
		assert_int_equal(a->max_ns, b->max_ns);
		assert_int_equal(a->min_ns, b->min_ns);
		assert_true(a->mean_ns == b->mean_ns);
		assert_int_equal(a->early, b->early);
		assert_memory_equal(a->buckets, b->buckets, sizeof(a->buckets));
		assert_int_equal(a->missed, b->missed);
		assert_true(a->wall_s == b->wall_s);
		assert_true(a->cpu_s == b->cpu_s);
		assert_true(a->cpu_pct == b->cpu_pct);
		assert_true(a->cpu_us_per_call == b->cpu_us_per_call);
		assert_true(a->vcsw_per_call == b->vcsw_per_call);
		assert_true(a->ivcsw_per_call == b->ivcsw_per_call);
		assert_int_equal(a->cheapest, b->cheapest);
	}
	/* A negative median (an early wake) came back negative. */
	assert_int_equal(got.cells[0].p50_ns, -5);
	db_sleep_release(&got);
	db_sleep_release(&s);
	db_run_release(&r);
	db_close(db);
}

static void test_sleep_store__no_hybrid_stores_null_margin(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct db_run r;
	struct db_sleep s;
	make_run(&r);
	make_sleep(&s, 2);	/* two spin cells */
	s.hybrid_margin_ns = -1;
	s.hybrid_calibrated = false;
	assert_int_equal(db_sleep_store(db, &r, &s, NULL), 0);
	char *v = NULL;
	assert_int_equal(db_query_text(db, "SELECT quote(hybrid_margin_ns) || ','"
				       " || quote(calibration_p999_ns) FROM sleep_runs",
				       &v, NULL), 0);
	assert_string_equal(v, "NULL,NULL");
	free(v);
	assert_int_equal(db_query_text(db, "SELECT count(*) FROM sleep_cells"
				       " WHERE margin_ns IS NULL", &v, NULL), 0);
	assert_string_equal(v, "2");
	free(v);
	struct db_sleep got;
	assert_int_equal(db_sleep_load(db, r.id, &got, NULL), 0);
	assert_int_equal(got.hybrid_margin_ns, -1);
	assert_false(got.hybrid_calibrated);
	assert_int_equal(got.cells[1].margin_ns, -1);
	db_sleep_release(&got);
	db_sleep_release(&s);
	db_run_release(&r);
	db_close(db);
}

static void test_sleep_store__plain_run_has_no_benchmark(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct db_run r;
	make_run(&r);
	free(r.kind);
	r.kind = strdup("run");
	assert_int_equal(db_run_store(db, &r, NULL), 0);
	struct db_sleep got;
	assert_int_equal(db_sleep_load(db, r.id, &got, &cause), -ENOENT);
	assert_non_null(strstr(cause, "holds no sleep benchmark"));
	assert_int_equal(got.ncells, 0);
	free(cause);
	db_sleep_release(&got);
	db_run_release(&r);
	db_close(db);
}

/* Build a run with n child rows, store it, release it (storecheck.h). */
static int store_one(struct db *db, size_t n, int64_t *id, char **cause)
{
	struct db_run r;
	struct db_sleep x;
	make_run(&r);
	make_sleep(&x, n);
	int rc = db_sleep_store(db, &r, &x, cause);
	*id = r.id;
	db_sleep_release(&x);
	db_run_release(&r);
	return rc;
}

static void test_sleep_store__locked_file_stores_nothing(void **state)
{
	const struct tu_db *f = *state;
	sc_locked_stores_nothing(f->path, store_one,
				 "SELECT (SELECT count(*) FROM runs) || ','"
				 " || (SELECT count(*) FROM sleep_cells)");
}

/*
 * Fail the Nth allocation over a range: a run is stored whole or not
 * (its facts row and all 16 cells).
 */
static void test_sleep_store__failing_allocations(void **state)
{
	const struct tu_db *f = *state;
	sc_failing_allocations(f->path, store_one, 16,
		"SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM sleep_cells"
		" c WHERE c.run_id = r.id) != 16 OR NOT EXISTS (SELECT 1 FROM"
		" sleep_runs s WHERE s.run_id = r.id)", NULL);
}

static void test_sleep_store__deleting_the_run_deletes_its_cells(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct db_run r;
	struct db_sleep s;
	make_run(&r);
	make_sleep(&s, 4);
	assert_int_equal(db_sleep_store(db, &r, &s, NULL), 0);
	assert_int_equal(db_exec(db, "DELETE FROM runs", NULL), 0);
	char *v = NULL;
	assert_int_equal(db_query_text(db, "SELECT (SELECT count(*) FROM sleep_runs)"
				       " || ',' || (SELECT count(*) FROM sleep_cells)",
				       &v, NULL), 0);
	assert_string_equal(v, "0,0");
	free(v);
	db_sleep_release(&s);
	db_run_release(&r);
	db_close(db);
}

/*
 * A --sleep-mode run's interposer report keeps its condvar timed waits
 * (v18) apart from its sleeps, field for field; a report without them
 * (a run of a prof before v18) reads back NULL and 0.
 */
static void test_sleep_store__usage_condvar_round_trip(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	struct db_run r, back;
	make_run(&r);
	free(r.kind);
	r.kind = strdup("run");
	struct db_sleep_usage *u = calloc(1, sizeof(*u));
	u->mode = strdup("hybrid:20");
	u->threshold_us = 2000;
	u->status = strdup("applied");
	u->processes = 1;
	u->cv_served_by = strdup("timer slack 1 ns");
	u->nthreads = 2;
	u->threads = calloc(2, sizeof(*u->threads));
	u->threads[0] = (struct db_sleep_thread){
		.tid = 10, .pid = 10, .name = strdup("main"), .served = 7,
		.cv_served = 31, .cv_passed = 3, .cv_woken = 5, .cv_timedout = 26,
		.cv_early = 1, .cv_p50_ns = 21001, .cv_p90_ns = 22002,
		.cv_p99_ns = 23003, .cv_p999_ns = 24004, .cv_max_ns = 25005,
		.cv_mean_ns = 21500.5,
	};
	u->threads[1] = (struct db_sleep_thread){
		.tid = 11, .pid = 10, .name = strdup("io"), .passed = 2,
	};
	r.sleep_usage = u;
	assert_int_equal(db_run_store(db, &r, &cause), 0);
	assert_int_equal(db_run_load(db, r.id, &back, &cause), 0);
	const struct db_sleep_usage *g = back.sleep_usage;
	assert_non_null(g);
	assert_string_equal(g->cv_served_by, "timer slack 1 ns");
	assert_int_equal(g->nthreads, 2);
	const struct db_sleep_thread *a = &u->threads[0], *b = &g->threads[0];
	assert_int_equal(b->served, 7);
	assert_int_equal(b->cv_served, a->cv_served);
	assert_int_equal(b->cv_passed, a->cv_passed);
	assert_int_equal(b->cv_woken, a->cv_woken);
	assert_int_equal(b->cv_timedout, a->cv_timedout);
	assert_int_equal(b->cv_early, a->cv_early);
	assert_int_equal(b->cv_p50_ns, a->cv_p50_ns);
	assert_int_equal(b->cv_p90_ns, a->cv_p90_ns);
	assert_int_equal(b->cv_p99_ns, a->cv_p99_ns);
	assert_int_equal(b->cv_p999_ns, a->cv_p999_ns);
	assert_int_equal(b->cv_max_ns, a->cv_max_ns);
	assert_true(b->cv_mean_ns == a->cv_mean_ns);
	assert_int_equal(g->threads[1].cv_served, 0);
	assert_int_equal(g->threads[1].passed, 2);
	int64_t id = r.id;
	db_run_release(&back);
	db_run_release(&r);

	/* a report from before v18: the columns as an older prof left them */
	assert_int_equal(db_exec(db, "UPDATE sleep_usage SET cv_served_by = NULL;"
				 "UPDATE sleep_threads SET cv_served = 0, cv_p50_ns = NULL,"
				 " cv_mean_ns = NULL", &cause), 0);
	assert_int_equal(db_run_load(db, id, &back, &cause), 0);
	assert_null(back.sleep_usage->cv_served_by);
	assert_int_equal(back.sleep_usage->threads[0].cv_served, 0);
	assert_int_equal(back.sleep_usage->threads[0].cv_p50_ns, 0);
	db_run_release(&back);
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sleep_store__round_trip, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_store__no_hybrid_stores_null_margin, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_store__plain_run_has_no_benchmark, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_store__locked_file_stores_nothing, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_store__failing_allocations, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_store__deleting_the_run_deletes_its_cells, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_sleep_store__usage_condvar_round_trip, tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
