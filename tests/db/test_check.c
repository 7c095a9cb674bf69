/*
 * Tests for db/check and the loaders that read through it: a database as
 * prof writes it (tests/dbfix.h), one row changed as a tool other than
 * prof could change it, and each loader must refuse it naming the table,
 * the row and the column, release what it loaded, and leave the file as
 * it was. Numbers that are huge but valid load as they are. A file with
 * a schema version no prof wrote is refused before anything is written,
 * and a reader's connection cannot write.
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

enum loader { L_RUN, L_RUNS, L_EXP, L_EXPS, L_PROFILE, L_SLEEP };

/* Load what `which` names with a reader's connection; the rc, *cause. */
static int load(const char *path, enum loader which, int64_t id, char **cause)
{
	struct db *db;
	int rc = db_open_readonly(&db, path, cause);
	if (rc)
		return rc;
	struct db_run run;
	struct db_run_summary *runs = NULL;
	struct db_experiment exp;
	struct db_experiment_summary *exps = NULL;
	struct db_profile prof;
	struct db_sleep sleep;
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
	}
	db_close(db);
	return rc;
}

struct damage {
	const char *loosen;	/* tables to strip of NOT NULL and CHECK */
	const char *sql;
	enum loader loader;
	int64_t id;
	const char *expect;	/* in the cause */
};

/* A text of n bytes: hex() of a zeroblob doubles its length. */
#define LONG_TEXT(n) "hex(zeroblob(" #n " / 2))"

static const struct damage cases[] = {
	/* The four of the issue: two NULL names, and rounds that spun for
	 * minutes (2e9) or overflowed a calloc (negative). */
	{ "events", "UPDATE events SET name = NULL WHERE run_id = 1 AND idx = 1",
	  L_RUN, 1, "events row (run 1, idx 1): name is NULL, where text is required" },
	{ "events", "UPDATE events SET name = NULL WHERE run_id = 7",
	  L_EXP, 1, "events row (run 7, idx 0): name is NULL, where text is required" },
	{ "experiment_settings", "UPDATE experiment_settings SET key = NULL WHERE seq = 1",
	  L_EXP, 1, "experiment_settings row (experiment 1, seq 1): key is NULL" },
	{ NULL, "UPDATE experiments SET rounds = 2000000000", L_EXP, 1,
	  "experiments row 1: rounds 2000000000 is out of range 1..100000" },
	{ NULL, "UPDATE experiments SET rounds = -5", L_EXP, 1,
	  "experiments row 1: rounds -5 is out of range 1..100000" },
	{ NULL, "UPDATE experiments SET rounds = -5", L_EXPS, 0,
	  "experiments row 1: rounds -5 is out of range 1..100000" },
	/* Wrong types. */
	{ NULL, "UPDATE experiments SET rounds = 'many'", L_EXP, 1,
	  "experiments row 1: rounds is text ('many'), not an integer" },
	{ NULL, "UPDATE experiments SET rounds = 2.5", L_EXP, 1,
	  "rounds is a real number ('2.5'), not an integer" },
	{ NULL, "UPDATE threads SET tid = 'abc' WHERE id = 2", L_RUN, 1,
	  "threads row 2: tid is text ('abc'), not an integer" },
	{ NULL, "UPDATE runs SET started = x'00ff' WHERE id = 1", L_RUN, 1,
	  "runs row 1: started is a blob, where text belongs" },
	{ NULL, "UPDATE runs SET kind = 'ru' || char(0) || 'n' WHERE id = 1", L_RUN, 1,
	  "runs row 1: kind holds a NUL byte" },
	{ NULL, "UPDATE run_scores SET value = 'x' WHERE run_id = 5", L_EXP, 1,
	  "run_scores row (run 5, row 1): value is text ('x'), not a number" },
	{ NULL, "UPDATE runs SET wall_s = 'slow' WHERE id = 1", L_RUNS, 0,
	  "runs row 1: wall_s is text ('slow'), not a number" },
	/* Giant strings. */
	{ NULL, "UPDATE runs SET command = " LONG_TEXT(1200000) " WHERE id = 1",
	  L_RUN, 1, "runs row 1: command is 1200000 bytes long, more than the "
	  "1048576 prof writes" },
	{ NULL, "UPDATE events SET name = " LONG_TEXT(5000) " WHERE run_id = 1",
	  L_RUN, 1, "events row (run 1, idx 0): name is 5000 bytes long" },
	{ NULL, "UPDATE runs SET argv = zeroblob(1100000) WHERE id = 1", L_RUN, 1,
	  "runs row 1: argv is 1100000 bytes long" },
	/* Numbers out of the range prof writes, or that reports index with. */
	{ NULL, "UPDATE experiments SET warmup = 5000", L_EXP, 1,
	  "warmup 5000 is out of range 0..1000" },
	{ NULL, "UPDATE events SET grp = 2000000000 WHERE run_id = 1 AND idx = 1",
	  L_RUN, 1, "grp 2000000000 is out of range 0..4096" },
	{ NULL, "UPDATE events SET supported = 5 WHERE run_id = 1 AND idx = 0",
	  L_RUN, 1, "supported 5 is out of range 0..1" },
	{ NULL, "UPDATE runs SET wall_s = -1 WHERE id = 1", L_RUN, 1,
	  "runs row 1: wall_s -1 is out of range 0..1e+12" },
	{ NULL, "UPDATE events SET idx = 5 WHERE run_id = 1 AND idx = 1", L_RUN, 1,
	  "events row (run 1, idx 5): idx 5 is out of range 1..1" },
	/* A thread's counts (schema v21: a JSON array in its row): an event
	 * the run does not have, and what prof never writes there. */
	{ NULL, "UPDATE threads SET counts = '[[1,1,1],null,[5,5,5]]' WHERE id = 1",
	  L_RUN, 1, "threads row 1: counts has more elements than the run's 2 events" },
	{ NULL, "UPDATE threads SET counts = '[[1,2]]' WHERE id = 1", L_RUN, 1,
	  "threads row 1: counts is not a JSON array of null or [value, "
	  "time_enabled, time_running]" },
	{ NULL, "UPDATE threads SET counts = '[[1.5,2,2]]' WHERE id = 1", L_RUN, 1,
	  "threads row 1: counts is not a JSON array" },
	{ NULL, "UPDATE threads SET counts = '[[1,2,99999999999999999999]]' WHERE id = 1",
	  L_RUN, 1, "threads row 1: counts is not a JSON array" },
	{ NULL, "UPDATE threads SET counts = 'abc' WHERE id = 1", L_RUN, 1,
	  "threads row 1: counts is not a JSON array" },
	{ NULL, "UPDATE threads SET counts = '[null] x' WHERE id = 1", L_RUN, 1,
	  "threads row 1: counts is not a JSON array" },
	{ NULL, "UPDATE threads SET seq = 7 WHERE id = 2", L_RUN, 1,
	  "threads row 2: seq 7 is out of range 1..1" },
	{ NULL, "UPDATE experiment_runs SET arm_idx = 7 WHERE run_id = 5", L_EXP, 1,
	  "experiment_runs row (experiment 1, run 5): arm_idx 7 is out of range 0..1" },
	{ NULL, "UPDATE experiment_runs SET round = 2147483647 WHERE run_id = 7",
	  L_EXP, 1, "experiment_runs row (experiment 1, run 7): round 2147483647 is "
	  "out of range 0..1" },
	{ NULL, "UPDATE experiments SET warmup = 0", L_EXP, 1,
	  "experiment_runs row (experiment 1, run 5): warmup is 1, but the "
	  "experiment has no warm-up rounds" },
	{ NULL, "UPDATE arm_settings SET arm_idx = 9", L_EXP, 1,
	  "arm_settings row (experiment 1, arm_idx 9): arm_idx 9 is out of range 0..1" },
	{ NULL, "UPDATE sleep_runs SET calls = -1", L_SLEEP, 4,
	  "sleep_runs row 4: calls -1 is out of range 0..4294967295" },
	{ NULL, "UPDATE runs SET pin_cpus = '0-99999999' WHERE id = 1", L_RUN, 1,
	  "runs row 1: pin_cpus '0-99999999' is not a list of CPUs" },
	{ NULL, "UPDATE runs SET pin_cpus = '0-65535,0-65535' WHERE id = 1", L_RUN, 1,
	  "pin_cpus '0-65535,0-65535' is not a list of CPUs" },
	{ NULL, "UPDATE runs SET pin_cpus = 'all' WHERE id = 1", L_RUN, 1,
	  "pin_cpus 'all' is not a list of CPUs" },
	/* NULL where prof always writes text, in the other tables. */
	{ "arms", "UPDATE arms SET name = NULL WHERE idx = 0", L_EXP, 1,
	  "arms row (experiment 1, idx 0): name is NULL" },
	{ "hosts", "UPDATE hosts SET hostname = NULL", L_RUNS, 0,
	  "hosts row 1: hostname is NULL" },
	{ "modules", "UPDATE modules SET kind = 'weird' WHERE idx = 0", L_RUN, 1,
	  "modules row (run 1, idx 0): kind is 'weird', not 'file' or 'anon'" },
	{ "sleep_usage", "UPDATE sleep_usage SET mode = NULL", L_RUN, 2,
	  "sleep_usage row 2: mode is NULL" },
	{ "sleep_cells", "UPDATE sleep_cells SET mode = NULL WHERE idx = 0", L_SLEEP, 4,
	  "sleep_cells row (run 4, idx 0): mode is NULL" },
	{ NULL, "UPDATE sleep_cells SET mode = 'nanosleep-and-more' WHERE idx = 1",
	  L_SLEEP, 4, "sleep_cells row (run 4, idx 1): mode 'nanosleep-and-more' is "
	  "longer than the 15 bytes prof writes" },
	/* A sampled run: names, and references between its tables. */
	{ "sample_events", "UPDATE sample_events SET name = NULL", L_PROFILE, 3,
	  "sample_events row (run 3, idx 0): name is NULL" },
	{ NULL, "UPDATE sample_stacks SET parent_id = 3 WHERE id = 2", L_PROFILE, 3,
	  "sample_stacks row (run 3, id 2): parent_id 3 is out of range 0..1" },
	{ NULL, "UPDATE samples SET stack_id = 99 WHERE seq = 1", L_PROFILE, 3,
	  "stack_id 99 is out of range 1..3" },
	{ NULL, "UPDATE sample_frames SET symbol_id = 0 WHERE id = 1", L_PROFILE, 3,
	  "sample_frames row (run 3, id 1): symbol_id 0 is out of range 1..3" },
};

static void test_check__damaged_rows_are_named_and_refused(void **state)
{
	struct fx *f = *state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct damage *d = &cases[i];
		fresh(f);
		dbfix_change(f->path, d->loosen, d->sql);
		size_t len0, len1;
		char *before = dbfix_bytes(f->path, &len0);
		char *cause = NULL;
		int rc = load(f->path, d->loader, d->id, &cause);
		if (rc != -EIO || !cause || !strstr(cause, d->expect))
			fail_msg("case %zu (%s): rc %d, cause:\n%s\nexpected: %s", i,
				 d->sql, rc, cause ? cause : "(none)", d->expect);
		assert_non_null(strstr(cause, "hint: prof never writes such a row"));
		free(cause);
		/* Nothing in the file changed. */
		char *after = dbfix_bytes(f->path, &len1);
		assert_int_equal(len0, len1);
		if (memcmp(before, after, len0))
			fail_msg("case %zu changed the file", i);
		free(before);
		free(after);
	}
}

/* Every loader reads the base database whole: the cases change it. */
static void test_check__the_base_database_loads(void **state)
{
	struct fx *f = *state;
	static const struct { enum loader l; int64_t id; } all[] = {
		{ L_RUN, 1 }, { L_RUN, 2 }, { L_RUN, 3 }, { L_RUN, 4 }, { L_RUN, 10 },
		{ L_RUNS, 0 }, { L_EXP, 1 }, { L_EXPS, 0 }, { L_PROFILE, 3 },
		{ L_SLEEP, 4 },
	};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		char *cause = NULL;
		if (load(f->base, all[i].l, all[i].id, &cause))
			fail_msg("loader %d, id %lld: %s", all[i].l, (long long)all[i].id,
				 cause);
	}
}

/* Counters above INT64_MAX are stored as negatives: they load as the
 * huge numbers they are, as do the largest values prof accepts. */
static void test_check__huge_valid_numbers_load(void **state)
{
	struct fx *f = *state;
	fresh(f);
	dbfix_change(f->path, NULL,
		     "UPDATE events SET value = -1, time_enabled = -1, time_running = -1"
		     " WHERE run_id = 1 AND idx = 0;"
		     "UPDATE threads SET counts = json_set(counts, '$[0][0]', -2) WHERE id = 1;"
		     "UPDATE threads SET counts = ' [ [ 7 ,-9223372036854775808,\n8 ] , null ] '"
		     " WHERE id = 2;"
		     "UPDATE runs SET lost_records = 9223372036854775807, wall_s = 1e9,"
		     " pid = 2147483647 WHERE id = 1;"
		     "UPDATE experiments SET rounds = 100000, warmup = 1000, seed = -1;");
	struct db *db;
	assert_int_equal(db_open_readonly(&db, f->path, NULL), 0);
	struct db_run run;
	char *cause = NULL;
	if (db_run_load(db, 1, &run, &cause))
		fail_msg("%s", cause);
	assert_true(run.events[0].total.value == UINT64_MAX);
	assert_true(run.threads[0].counts[0].value == UINT64_MAX - 1);
	/* JSON as another tool writes it: spaces, the least int64. */
	assert_true(run.threads[1].counts[0].present);
	assert_true(run.threads[1].counts[0].value == 7);
	assert_true(run.threads[1].counts[0].enabled == (uint64_t)1 << 63);
	assert_true(run.threads[1].counts[0].running == 8);
	assert_false(run.threads[1].counts[1].present);
	assert_true(run.lost_records == INT64_MAX);
	assert_true(run.wall_s == 1e9);
	assert_int_equal(run.pid, 2147483647);
	db_run_release(&run);
	struct db_experiment e;
	if (db_experiment_load(db, 1, &e, &cause))
		fail_msg("%s", cause);
	assert_int_equal(e.rounds, 100000);
	assert_true(e.seed == UINT64_MAX);
	db_experiment_release(&e);
	db_close(db);
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
		/* In WAL (an older prof's), so that a switch to the rollback
		 * journal would show. */
		dbfix_change(f->path, NULL, v[i].sql);
		char *cmd;
		assert_true(asprintf(&cmd, "sqlite3 '%s' 'PRAGMA journal_mode = WAL'"
				     " >/dev/null 2>&1", f->path) > 0);
		bool have_cli = system(cmd) == 0;
		free(cmd);
		size_t len0, len1;
		char *before = dbfix_bytes(f->path, &len0);
		struct db *db;
		char *cause = NULL;
		assert_int_equal(db_open_readonly(&db, f->path, &cause), -EPROTO);
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
			print_message("note: no sqlite3 shell; the file stayed in the "
				      "rollback journal\n");
	}
}

static void test_check__a_reader_cannot_write(void **state)
{
	struct fx *f = *state;
	fresh(f);
	struct db *db;
	assert_int_equal(db_open_readonly(&db, f->path, NULL), 0);
	char *cause = NULL;
	assert_true(db_exec(db, "DELETE FROM runs", &cause) < 0);
	assert_non_null(cause);
	free(cause);
	db_close(db);
}

/* CPU lists as the kernel writes them load; anything else is refused. */
static void test_check__cpu_lists(void **state)
{
	struct fx *f = *state;
	static const char *const good[] = { "", "0", "0-3", "0-5,12-17", "65535",
					    "0-65535" };
	static const char *const bad[] = { "x", "-1", "3-1", "0-", "0,", ",0", "1 2",
					   "65536", "0-65535,0", "0-9999999999999999999" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]) + sizeof(bad) / sizeof(bad[0]); i++) {
		bool ok = i < sizeof(good) / sizeof(good[0]);
		const char *list = ok ? good[i] : bad[i - sizeof(good) / sizeof(good[0])];
		fresh(f);
		char *sql;
		assert_true(asprintf(&sql, "UPDATE runs SET pin_cpus = '%s' WHERE id = 1",
				     list) > 0);
		dbfix_change(f->path, NULL, sql);
		free(sql);
		char *cause = NULL;
		int rc = load(f->path, L_RUN, 1, &cause);
		if (ok ? rc != 0 : rc != -EIO || !strstr(cause, "is not a list of CPUs"))
			fail_msg("'%s': rc %d, %s", list, rc, cause ? cause : "");
		free(cause);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check__the_base_database_loads),
		cmocka_unit_test(test_check__damaged_rows_are_named_and_refused),
		cmocka_unit_test(test_check__huge_valid_numbers_load),
		cmocka_unit_test(test_check__versions_no_prof_wrote_are_refused_untouched),
		cmocka_unit_test(test_check__a_reader_cannot_write),
		cmocka_unit_test(test_check__cpu_lists),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
