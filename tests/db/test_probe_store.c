/*
 * Tests for db/probe: a `prof probe` run stores as a runs row of kind
 * "probe" with its facts, curve and counters, loads back field for field
 * (NULL where a size or a count is unknown), is stored whole or not at all
 * (a locked file, failing allocations), a run without a probe is a clear
 * -ENOENT, and a curve edited out of size order, or a spread that does
 * not hold its median, is refused on load. A size measured once is
 * stored as probes before v19 were (no probe_spread row) and loads as
 * one repetition.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "db/db.h"
#include "db/probe.h"
#include "db/runs.h"
#include "storecheck.h"
#include "test_util.h"

static void make_run(struct db_run *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = strdup("probe");
	r->started = strdup("2026-12-01T08:00:00Z");
	r->command = strdup("prof probe --max 1M");
	r->argv = calloc(1, sizeof(char *));
	r->wall_s = 2.5;
	r->host.hostname = strdup("vm");
	r->host.kernel = strdup("6.18");
	r->host.cpu_model = strdup("AMD EPYC");
	r->host.online_cpus = 2;
	r->pin.mode = strdup("cpus:1");
	r->pin.status = strdup("applied");
	r->pin.cpus = strdup("1");
}

/* n points, sizes doubling from 16 KiB; one counted and one refused
 * counter. */
static void make_probe(struct db_probe *p, size_t n)
{
	memset(p, 0, sizeof(*p));
	p->cpu = 1;
	p->l1d_bytes = 32768;
	p->l1i_bytes = 0;	/* unknown: stored as NULL */
	p->l2_bytes = 1 << 20;
	p->llc_bytes = 32 << 20;
	p->llc_level = 3;
	p->ms_per_size = 12.5;
	p->seed = 0xfedcba9876543210ull;	/* above INT64_MAX */
	p->family = strdup("AMD Zen 4");
	p->npoints = n;
	p->points = calloc(n, sizeof(*p->points));
	/* Odd sizes repeated (a spread around the median), even ones
	 * measured once (stored as probes before v19 were). */
	for (size_t i = 0; i < n; i++) {
		double ns = 1.25 + (double)i;
		p->points[i] = (struct db_probe_point){
			.bytes = (uint64_t)16384 << i, .ns = ns, .steps = 1000 + i,
			.huge_bytes = i % 2 ? (uint64_t)16384 << i : 0,
			.reps = i % 2 ? 5 : 1,
			.ns_min = i % 2 ? ns - 0.5 : ns, .ns_q1 = i % 2 ? ns - 0.25 : ns,
			.ns_q3 = i % 2 ? ns + 0.125 : ns, .ns_max = i % 2 ? ns + 2 : ns,
		};
	}
	p->ncounters = 2;
	p->counters = calloc(2, sizeof(*p->counters));
	struct db_probe_counter *c = &p->counters[0];
	c->name = strdup("llc-misses");
	c->event = strdup("LONGEST_LAT_CACHE.MISS");
	c->bench = strdup("chase over 256 MiB");
	c->ran = true;
	c->expected = 1048576;
	c->opened = true;
	c->value = 1000001;
	c->enabled = 200;
	c->running = 100;
	c->grade = strdup("multiplexed");
	c = &p->counters[1];
	c->name = strdup("branch-misses");
	c->bench = strdup("a branch on random bits");
	c->ran = true;
	c->expected = 1048576;
	c->grade = strdup("not supported");
	c->reason = strdup("the kernel refused it: No such file or directory\nhint: x");
}

static void test_probe_store__round_trip(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	struct db_run r;
	struct db_probe p;
	make_run(&r);
	make_probe(&p, 5);
	assert_int_equal(db_probe_store(db, &r, &p, &cause), 0);
	assert_true(r.id > 0);

	struct db_run back;
	assert_int_equal(db_run_load(db, r.id, &back, &cause), 0);
	assert_string_equal(back.kind, "probe");
	assert_int_equal(back.nthreads, 0);
	db_run_release(&back);

	struct db_probe got;
	assert_int_equal(db_probe_load(db, r.id, &got, &cause), 0);
	assert_int_equal(got.cpu, 1);
	assert_int_equal(got.l1d_bytes, 32768);
	assert_int_equal(got.l1i_bytes, 0);
	assert_int_equal(got.l2_bytes, 1 << 20);
	assert_int_equal(got.llc_bytes, 32 << 20);
	assert_int_equal(got.llc_level, 3);
	assert_true(got.ms_per_size == 12.5);
	assert_true(got.seed == 0xfedcba9876543210ull);
	assert_string_equal(got.family, "AMD Zen 4");
	assert_int_equal(got.npoints, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(got.points[i].bytes, p.points[i].bytes);
		assert_true(got.points[i].ns == p.points[i].ns);
		assert_int_equal(got.points[i].steps, p.points[i].steps);
		assert_int_equal(got.points[i].huge_bytes, p.points[i].huge_bytes);
		assert_int_equal(got.points[i].reps, p.points[i].reps);
		assert_true(got.points[i].ns_min == p.points[i].ns_min);
		assert_true(got.points[i].ns_q1 == p.points[i].ns_q1);
		assert_true(got.points[i].ns_q3 == p.points[i].ns_q3);
		assert_true(got.points[i].ns_max == p.points[i].ns_max);
	}
	assert_int_equal(got.ncounters, 2);
	const struct db_probe_counter *a = &got.counters[0], *b = &got.counters[1];
	assert_string_equal(a->name, "llc-misses");
	assert_string_equal(a->event, "LONGEST_LAT_CACHE.MISS");
	assert_string_equal(a->bench, "chase over 256 MiB");
	assert_true(a->ran && a->opened);
	assert_true(a->expected == 1048576);
	assert_int_equal(a->value, 1000001);
	assert_int_equal(a->enabled, 200);
	assert_int_equal(a->running, 100);
	assert_string_equal(a->grade, "multiplexed");
	assert_null(a->reason);
	assert_string_equal(b->name, "branch-misses");
	assert_null(b->event);
	assert_false(b->opened);
	assert_string_equal(b->grade, "not supported");
	assert_string_equal(b->reason, p.counters[1].reason);
	char *v = NULL;
	assert_int_equal(db_query_text(db, "SELECT quote(l1i_bytes) || ',' ||"
				       " (SELECT quote(value) FROM probe_counters"
				       "  WHERE idx = 1) FROM probe_runs", &v, NULL), 0);
	assert_string_equal(v, "NULL,NULL");
	free(v);
	/* A size measured once keeps the shape of a probe stored before
	 * v19, which loads as one repetition with no spread. */
	assert_int_equal(db_query_text(db, "SELECT count(*) || ',' || group_concat(idx)"
				       " || ',' || sum(reps) FROM probe_spread", &v,
				       NULL), 0);
	assert_string_equal(v, "2,1,3,10");
	free(v);
	db_probe_release(&got);
	db_probe_release(&p);
	db_run_release(&r);
	db_close(db);
}

static void test_probe_store__plain_run_has_no_probe(void **state)
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
	struct db_probe got;
	assert_int_equal(db_probe_load(db, r.id, &got, &cause), -ENOENT);
	assert_non_null(strstr(cause, "holds no probe"));
	assert_int_equal(got.npoints, 0);
	free(cause);
	db_probe_release(&got);
	db_run_release(&r);
	db_close(db);
}

static void test_probe_store__curve_out_of_order_is_refused(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct db_run r;
	struct db_probe p;
	make_run(&r);
	make_probe(&p, 4);
	assert_int_equal(db_probe_store(db, &r, &p, NULL), 0);
	assert_int_equal(db_exec(db, "UPDATE probe_latency SET bytes = 16384"
				 " WHERE idx = 2", NULL), 0);
	struct db_probe got;
	assert_int_equal(db_probe_load(db, r.id, &got, &cause), -EIO);
	assert_non_null(strstr(cause, "probe_latency row (run 1, idx 2): bytes 16384 "
			       "is not above the size before it"));
	free(cause);
	cause = NULL;
	db_probe_release(&got);
	assert_int_equal(db_exec(db, "UPDATE probe_latency SET bytes = 2 * 16384 *"
				 " (1 << idx); UPDATE probe_counters SET grade = NULL",
				 NULL), -EIO);
	assert_int_equal(db_exec(db, "UPDATE probe_counters SET expected = -1", NULL), 0);
	assert_int_equal(db_probe_load(db, r.id, &got, &cause), -EIO);
	assert_non_null(strstr(cause, "probe_counters row (run 1, idx 0): expected"));
	free(cause);
	cause = NULL;
	db_probe_release(&got);
	/* A spread that does not hold its median is refused too. */
	assert_int_equal(db_exec(db, "UPDATE probe_counters SET expected = 1;"
				 " UPDATE probe_spread SET ns_q3 = 1.25"
				 " WHERE idx = 1", NULL), 0);
	assert_int_equal(db_probe_load(db, r.id, &got, &cause), -EIO);
	assert_non_null(strstr(cause, "probe_latency row (run 1, idx 1): ns_min"));
	free(cause);
	db_probe_release(&got);
	db_probe_release(&p);
	db_run_release(&r);
	db_close(db);
}

/* Build a run with n child rows, store it, release it (storecheck.h). */
static int store_one(struct db *db, size_t n, int64_t *id, char **cause)
{
	struct db_run r;
	struct db_probe x;
	make_run(&r);
	make_probe(&x, n);
	int rc = db_probe_store(db, &r, &x, cause);
	*id = r.id;
	db_probe_release(&x);
	db_run_release(&r);
	return rc;
}

static void test_probe_store__locked_file_stores_nothing(void **state)
{
	const struct tu_db *f = *state;
	sc_locked_stores_nothing(f->path, store_one,
				 "SELECT (SELECT count(*) FROM runs) || ','"
				 " || (SELECT count(*) FROM probe_latency)");
}

/*
 * Fail the Nth allocation over a range: a probe is stored whole or not
 * (its facts, all 12 points and both counters), and deleting the runs
 * deletes what they measured.
 */
static void test_probe_store__failing_allocations(void **state)
{
	const struct tu_db *f = *state;
	sc_failing_allocations(f->path, store_one, 12,
		"SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM probe_latency"
		" l WHERE l.run_id = r.id) != 12 OR (SELECT count(*) FROM"
		" probe_counters c WHERE c.run_id = r.id) != 2 OR NOT EXISTS"
		" (SELECT 1 FROM probe_runs s WHERE s.run_id = r.id)",
		"SELECT (SELECT count(*) FROM probe_runs)"
		" + (SELECT count(*) FROM probe_latency)"
		" + (SELECT count(*) FROM probe_counters)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_probe_store__round_trip, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_probe_store__plain_run_has_no_probe, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_probe_store__curve_out_of_order_is_refused, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_probe_store__locked_file_stores_nothing, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_probe_store__failing_allocations, tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
