/*
 * End-to-end tests of prof import (issue 26, item 7): databases from two
 * machines (the scenes fixture, once as host "a5900" and once renamed
 * "b9950") merged into one keep every run, experiment and table row,
 * under new ids; importing again adds nothing; prof summary --by host
 * reads each machine's experiments apart; a v1 database (an older prof)
 * is migrated through a copy and left as it was; a file that is no
 * database, or the database itself, is refused with nothing added.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_db.h"
#include "test_util.h"

#define FIX SOURCE_DIR "/tests/fixtures"

struct fx {
	struct tu_db *d;
	char *a, *b, *merged, *margs;
};

static long long q(const char *path, const char *sql)
{
	struct db *db;
	char *cause = NULL, *out = NULL;
	if (db_open_readonly(&db, path, &cause))
		fail_msg("%s: %s", path, cause);
	if (db_query_text(db, sql, &out, &cause))
		fail_msg("%s: %s", sql, cause);
	db_close(db);
	long long v = out ? atoll(out) : -1;
	free(out);
	return v;
}

static void rename_host(const char *path, const char *name, const char *cpu)
{
	struct db *db;
	char *cause = NULL, *sql;
	if (db_open(&db, path, &cause))
		fail_msg("%s: %s", path, cause);
	assert_true(asprintf(&sql, "UPDATE hosts SET hostname = '%s', cpu_model = '%s'",
			     name, cpu) > 0);
	if (db_exec(db, sql, &cause))
		fail_msg("%s: %s", sql, cause);
	free(sql);
	db_close(db);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->d = tu_db_new("unused.db");
	if (asprintf(&f->a, "%s/a.db", f->d->dir) < 0 || asprintf(&f->b, "%s/b.db", f->d->dir) < 0 ||
	    asprintf(&f->merged, "%s/merged.db", f->d->dir) < 0 ||
	    asprintf(&f->margs, "--db=%s", f->merged) < 0)
		return -1;
	fixture_scenes_db_build(f->a);
	rename_host(f->a, "a5900", "AMD Ryzen 9 5900X 12-Core Processor");
	fixture_scenes_db_build(f->b);
	rename_host(f->b, "b9950", "AMD Ryzen 9 9950X3D 16-Core Processor");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	tu_db_free(f->d);
	free(f->a);
	free(f->b);
	free(f->merged);
	free(f->margs);
	free(f);
	return 0;
}

static struct tu_proc prof(struct fx *f, const char *verb, const char *a1, const char *a2,
			   const char *a3)
{
	char *argv[] = { PROF_BIN, f->margs, (char *)verb, (char *)a1, (char *)a2, (char *)a3,
			 NULL };
	return tu_run(argv, NULL);
}

static void test_import__two_machines_then_summary_by_host(void **state)
{
	struct fx *f = *state;
	long long runs = q(f->a, "SELECT count(*) FROM runs");
	long long exps = q(f->a, "SELECT count(*) FROM experiments");
	assert_true(runs > 0 && exps == 6);
	struct tu_proc p = prof(f, "import", f->a, f->b, NULL);
	if (p.status)
		fail_msg("exit %d\n%s", p.status, p.err);
	assert_non_null(strstr(p.out, "6 experiments (0 already here), 1 new host"));
	tu_proc_release(&p);
	assert_int_equal(q(f->merged, "SELECT count(*) FROM runs"), 2 * runs);
	assert_int_equal(q(f->merged, "SELECT count(*) FROM experiments"), 12);
	assert_int_equal(q(f->merged, "SELECT count(*) FROM hosts"), 2);
	/* every run's experiment is on the run's own host */
	assert_int_equal(q(f->merged, "SELECT count(*) FROM experiment_runs x JOIN runs r"
			   " ON r.id = x.run_id JOIN experiments e ON e.id = x.experiment_id"
			   " WHERE r.host_id != e.host_id"), 0);
	assert_int_equal(q(f->merged, "SELECT count(*) FROM counts"),
			 2 * q(f->a, "SELECT count(*) FROM counts"));
	assert_int_equal(q(f->merged, "SELECT count(*) FROM run_scores"),
			 2 * q(f->a, "SELECT count(*) FROM run_scores"));

	/* again: nothing added */
	p = prof(f, "import", f->b, NULL, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "0 runs ("));
	assert_non_null(strstr(p.out, "0 experiments (6 already here), 0 new hosts (1 known)"));
	tu_proc_release(&p);
	assert_int_equal(q(f->merged, "SELECT count(*) FROM runs"), 2 * runs);

	p = prof(f, "summary", "--by", "host", "1-12");
	if (p.status)
		fail_msg("summary --by host: exit %d\n%s", p.status, p.err);
	const char *ha = strstr(p.out, "== host a5900 (AMD Ryzen 9 5900X");
	const char *hb = strstr(p.out, "== host b9950 (AMD Ryzen 9 9950X3D");
	if (!ha || !hb || hb < ha)
		fail_msg("no summary per host:\n%s", p.out);
	assert_non_null(strstr(p.out, "6 experiments"));
	tu_proc_release(&p);
	char *jargv[] = { PROF_BIN, f->margs, "summary", "--by", "host", "--format", "json",
			  "1-12", NULL };
	p = tu_run(jargv, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "\"by_host\": ["));
	assert_non_null(strstr(p.out, "{\"host\": \"b9950\""));
	tu_proc_release(&p);
}

/* Every table of the one-run-of-each-kind fixture comes across whole. */
static void test_import__every_table_whole(void **state)
{
	struct fx *f = *state;
	char *all;
	assert_true(asprintf(&all, "%s/all.db", f->d->dir) > 0);
	fixture_db_build(all);
	struct tu_proc p = prof(f, "import", f->a, all, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	static const char *const tables[] = {
		"threads", "counts", "events", "run_settings", "modules", "samples",
		"sample_stacks", "sample_symbols", "sleep_cells", "sleep_threads",
		"probe_latency", "frames", "frame_counts", "intervals", "run_env",
		"run_system", "host_topology",
	};
	for (size_t i = 0; i < sizeof(tables) / sizeof(*tables); i++) {
		char sql[96];
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", tables[i]);
		long long want = q(f->a, sql) + q(all, sql), got = q(f->merged, sql);
		if (got != want)
			fail_msg("%s: %lld rows, %lld in the two files", tables[i], got, want);
	}
	/* the samples' threads are the imported threads */
	assert_int_equal(q(f->merged, "SELECT count(*) FROM samples s LEFT JOIN threads t"
			   " ON t.id = s.thread_id WHERE s.thread_id IS NOT NULL"
			   " AND t.run_id IS NOT s.run_id"), 0);
	/* and a run from the second file reads back, here */
	char *rep[] = { PROF_BIN, f->margs, "runs", "--all", "--format", "csv", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, ",record,"));
	tu_proc_release(&p);
	free(all);
}

static void test_import__older_schema_through_a_copy(void **state)
{
	struct fx *f = *state;
	char *v1 = tu_slurp(FIX "/db/v1.db");
	assert_non_null(v1);
	struct tu_proc p = prof(f, "import", FIX "/db/v1.db", NULL, NULL);
	if (p.status)
		fail_msg("exit %d\n%s", p.status, p.err);
	tu_proc_release(&p);
	char *after = tu_slurp(FIX "/db/v1.db");
	assert_non_null(after);
	assert_true(!strcmp(v1, after));	/* untouched (its text prefix at least) */
	assert_true(q(f->merged, "SELECT count(*) FROM runs") > 0);
	free(v1);
	free(after);
}

static void test_import__bad_files_add_nothing(void **state)
{
	struct fx *f = *state;
	struct tu_proc p = prof(f, "import", f->a, NULL, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	long long runs = q(f->merged, "SELECT count(*) FROM runs");
	char *junk;
	assert_true(asprintf(&junk, "%s/junk.db", f->d->dir) > 0);
	FILE *fp = fopen(junk, "w");
	fputs("not a database at all, but long enough to be read as one.......\n", fp);
	fclose(fp);
	static const char *const says[] = { "cannot read", "not a database", "into itself" };
	const char *files[] = { "/nonexistent/x.db", junk, f->merged };
	for (size_t i = 0; i < 3; i++) {
		p = prof(f, "import", files[i], NULL, NULL);
		if (p.status != 1 || !strstr(p.err, says[i]) || !strstr(p.err, "nothing of it"))
			fail_msg("%s: exit %d\n%s", files[i], p.status, p.err);
		tu_proc_release(&p);
	}
	assert_int_equal(q(f->merged, "SELECT count(*) FROM runs"), runs);
	p = prof(f, "import", NULL, NULL, NULL);
	assert_int_equal(p.status, 2);
	tu_proc_release(&p);
	free(junk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_import__two_machines_then_summary_by_host,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_import__every_table_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_import__older_schema_through_a_copy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_import__bad_files_add_nothing, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
