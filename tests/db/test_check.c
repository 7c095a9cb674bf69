/*
 * Tests of how the readers take a database: a file as prof writes it
 * (tests/dbfix.h) loads whole; a file with a schema version no prof wrote
 * is refused before anything is written, and a reader's connection
 * cannot write.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "db/db.h"
#include "db/experiments.h"
#include "db/runs.h"
#include "db/samples.h"
#include "db/sleep.h"
#include "db/topology.h"
#include "dbfix.h"
#include "test_util.h"

struct fx {
	char *dir, *base, *path;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->dir = tu_tmpdir();
	if (asprintf(&f->base, "%s/base.db", f->dir) < 0 ||
	    asprintf(&f->path, "%s/t.db", f->dir) < 0)
		return -1;
	dbfix_build(f->base);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	tu_rmrf(f->dir);
	free(f->dir);
	free(f->base);
	free(f->path);
	free(f);
	return 0;
}

/* A fresh copy of the base database at f->path. */
static void fresh(struct fx *f)
{
	char *cmd;
	assert_true(asprintf(&cmd, "rm -f '%s' '%s-wal' '%s-shm' && cp '%s' '%s'",
			     f->path, f->path, f->path, f->base, f->path) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

enum loader { L_RUN, L_RUNS, L_EXP, L_EXPS, L_PROFILE, L_SLEEP, L_TOPO };

/* Load what `which` names with a reader's connection; the rc, *cause. */
static int load(const char *path, enum loader which, int64_t id, char **cause)
{
	struct db *db;
	int rc = db_open_read(&db, path, cause);
	if (rc)
		return rc;
	struct db_run run;
	struct db_run_summary *runs = NULL;
	struct db_experiment exp;
	struct db_experiment_summary *exps = NULL;
	struct db_profile prof;
	struct db_sleep sleep;
	struct db_topology topo;
	size_t n = 0;
	switch (which) {
	case L_RUN:
		rc = db_run_load(db, id, &run, cause);
		if (!rc)
			db_run_release(&run);
		break;
	case L_RUNS:
		rc = db_runs_list(db, &runs, &n, cause);
		db_runs_list_free(runs, n);
		break;
	case L_EXP:
		rc = db_experiment_load(db, id, &exp, cause);
		if (!rc)
			db_experiment_release(&exp);
		break;
	case L_EXPS:
		rc = db_experiments_list(db, &exps, &n, cause);
		db_experiments_list_free(exps, n);
		break;
	case L_PROFILE:
		rc = db_profile_load(db, id, &prof, cause);
		if (!rc)
			db_profile_release(&prof);
		break;
	case L_SLEEP:
		rc = db_sleep_load(db, id, &sleep, cause);
		db_sleep_release(&sleep);
		break;
	case L_TOPO:
		rc = db_topology_load(db, id, &topo, cause);
		if (!rc)
			db_topology_release(&topo);
		break;
	}
	db_close(db);
	return rc;
}

/* Every loader reads the base database whole: the cases change it. */
static void test_check__the_base_database_loads(void **state)
{
	struct fx *f = *state;
	static const struct { enum loader l; int64_t id; } all[] = {
		{ L_RUN, 1 }, { L_RUN, 2 }, { L_RUN, 3 }, { L_RUN, 4 }, { L_RUN, 10 },
		{ L_RUNS, 0 }, { L_EXP, 1 }, { L_EXPS, 0 }, { L_PROFILE, 3 },
		{ L_SLEEP, 4 }, { L_TOPO, 1 },
	};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		char *cause = NULL;
		if (load(f->base, all[i].l, all[i].id, &cause))
			fail_msg("loader %d, id %lld: %s", all[i].l, (long long)all[i].id,
				 cause);
	}
}

static void test_check__versions_no_prof_wrote_are_refused_untouched(void **state)
{
	struct fx *f = *state;
	static const struct { const char *sql, *expect; } v[] = {
		{ "PRAGMA user_version = 99", "has schema version 99, newer than this "
		  "prof understands" },
		{ "PRAGMA user_version = -3", "has schema version -3, which no prof "
		  "writes" },
	};
	for (size_t i = 0; i < 2; i++) {
		fresh(f);
		/* In the rollback journal, so that a switch to WAL would show. */
		dbfix_change(f->path, NULL, v[i].sql);
		char *cmd;
		assert_true(asprintf(&cmd, "sqlite3 '%s' 'PRAGMA journal_mode = DELETE'"
				     " >/dev/null 2>&1", f->path) > 0);
		bool have_cli = system(cmd) == 0;
		free(cmd);
		size_t len0, len1;
		char *before = dbfix_bytes(f->path, &len0);
		struct db *db;
		char *cause = NULL;
		assert_int_equal(db_open_read(&db, f->path, &cause), -EPROTO);
		assert_non_null(strstr(cause, v[i].expect));
		free(cause);
		cause = NULL;
		assert_int_equal(db_open(&db, f->path, &cause), -EPROTO);
		assert_non_null(strstr(cause, v[i].expect));
		free(cause);
		char *after = dbfix_bytes(f->path, &len1);
		assert_int_equal(len0, len1);
		assert_memory_equal(before, after, len0);
		free(before);
		free(after);
		if (!have_cli)
			print_message("note: no sqlite3 shell; the file stayed in WAL mode\n");
	}
}

static void test_check__a_reader_cannot_write(void **state)
{
	struct fx *f = *state;
	fresh(f);
	struct db *db;
	assert_int_equal(db_open_read(&db, f->path, NULL), 0);
	char *cause = NULL;
	assert_true(db_exec(db, "DELETE FROM runs", &cause) < 0);
	assert_non_null(cause);
	free(cause);
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check__the_base_database_loads),
		cmocka_unit_test(test_check__versions_no_prof_wrote_are_refused_untouched),
		cmocka_unit_test(test_check__a_reader_cannot_write),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
