/*
 * storecheck: the two checks every store of a run with child rows gets
 * (db_probe_store, db_sleep_store): a file locked by another writer
 * stores nothing, and allocations failing anywhere leave each run stored
 * whole or not at all.
 *
 * store(db, n, id, cause) builds a run with n child rows, stores it,
 * sets *id to the run's id (0 when not stored), releases what it built
 * and returns what the store returned. Header-only, like test_util.h.
 */
#ifndef TESTS_STORECHECK_H
#define TESTS_STORECHECK_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "test_util.h"

typedef int (*sc_store_fn)(struct db *db, size_t n, int64_t *id, char **cause);

/* count_sql: "SELECT <runs> || ',' || <child rows>", "0,0" when empty. */
static inline void sc_locked_stores_nothing(const char *path, sc_store_fn store,
					    const char *count_sql)
{
	struct db *a, *b;
	char *cause = NULL;
	assert_int_equal(db_open(&a, path, NULL), 0);
	assert_int_equal(db_open(&b, path, NULL), 0);
	db_set_busy_timeout(a, 50);
	assert_int_equal(db_exec(b, "BEGIN IMMEDIATE", NULL), 0);
	int64_t id = -1;
	assert_int_equal(store(a, 4, &id, &cause), -EBUSY);
	assert_non_null(strstr(cause, "locked by another writer"));
	free(cause);
	assert_int_equal(id, 0);
	assert_int_equal(db_exec(b, "ROLLBACK", NULL), 0);
	char *v = NULL;
	assert_int_equal(db_query_text(a, count_sql, &v, NULL), 0);
	assert_string_equal(v, "0,0");
	free(v);
	db_close(a);
	db_close(b);
}

/*
 * Fail the Nth allocation over a range until 8 runs of n rows were
 * stored; then every stored run must be whole (incomplete_sql counts the
 * runs that are not: "0"), and, unless orphans_sql is NULL, deleting the
 * runs must delete their rows (orphans_sql counts what is left: "0").
 */
static inline void sc_failing_allocations(const char *path, sc_store_fn store,
					  size_t n, const char *incomplete_sql,
					  const char *orphans_sql)
{
	int stored = 0, failed = 0;
	for (long after = 0; after < 60000 && stored < 8; after += 37) {
		struct db *db = NULL;
		char *cause = NULL;
		int64_t id;
		db_fault_alloc_after(after);
		int rc = db_open(&db, path, &cause);
		if (rc == 0)
			rc = store(db, n, &id, &cause);
		db_fault_alloc_after(-1);
		if (rc == 0)
			stored++;
		else
			failed++;
		free(cause);
		db_close(db);
	}
	db_fault_alloc_after(-1);
	assert_true(failed > 0);
	assert_true(stored > 0);
	struct db *db;
	assert_int_equal(db_open(&db, path, NULL), 0);
	char *v = NULL;
	assert_int_equal(db_query_text(db, "SELECT count(*) FROM runs", &v, NULL), 0);
	assert_int_equal(atoi(v), stored);
	free(v);
	assert_int_equal(db_query_text(db, incomplete_sql, &v, NULL), 0);
	assert_string_equal(v, "0");
	free(v);
	if (orphans_sql) {
		assert_int_equal(db_exec(db, "DELETE FROM runs", NULL), 0);
		assert_int_equal(db_query_text(db, orphans_sql, &v, NULL), 0);
		assert_string_equal(v, "0");
		free(v);
	}
	db_close(db);
}

#endif
