/*
 * Tests for a run's machine deltas and settings in db/ (sysenv.c): they
 * come back as stored, in order, negative deltas included; a run without
 * them loads with none; deleting the run deletes them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/runs.h"
#include "test_util.h"

static void test_sysenv__round_trip(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	struct db_run r;
	tu_run_init(&r, "run", "2026-11-30T10:00:00Z", "true", "box", "cpu", 2);
	static const struct { const char *name; int64_t d; } sys[] = {
		{ "vmstat.pgfault", 31492 }, { "vmstat.nr_free_pages", -8123 },
		{ "stat.cpu1.steal_ms", 40 }, { "interrupts.total", 12 },
	};
	r.nsystem = 4;
	r.system = calloc(4, sizeof(*r.system));
	for (size_t i = 0; i < 4; i++) {
		r.system[i].name = strdup(sys[i].name);
		r.system[i].delta = sys[i].d;
	}
	r.nenv = 2;
	r.env = calloc(2, sizeof(*r.env));
	r.env[0] = (struct db_kv){ strdup("thp"), strdup("madvise") };
	r.env[1] = (struct db_kv){ strdup("governor"), strdup("cpu0=performance cpu1=powersave") };
	assert_int_equal(db_run_store(db, &r, &cause), 0);
	int64_t id = r.id;
	db_run_release(&r);

	/* A run without them. */
	tu_run_init(&r, "run", "2026-11-30T10:01:00Z", "true", "box", "cpu", 2);
	assert_int_equal(db_run_store(db, &r, &cause), 0);
	int64_t bare = r.id;
	db_run_release(&r);

	struct db_run l;
	assert_int_equal(db_run_load(db, id, &l, &cause), 0);
	assert_int_equal(l.nsystem, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(l.system[i].name, sys[i].name);
		assert_int_equal(l.system[i].delta, sys[i].d);
	}
	assert_int_equal(l.nenv, 2);
	assert_string_equal(l.env[0].key, "thp");
	assert_string_equal(l.env[1].value, "cpu0=performance cpu1=powersave");
	db_run_release(&l);
	assert_int_equal(db_run_load(db, bare, &l, &cause), 0);
	assert_int_equal(l.nsystem, 0);
	assert_int_equal(l.nenv, 0);
	assert_null(l.system);
	db_run_release(&l);
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sysenv__round_trip, tu_db_setup,
						tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
