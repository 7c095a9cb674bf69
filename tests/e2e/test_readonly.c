/*
 * End-to-end tests of the verbs that only read the database (runs,
 * report, modules, compare, explain): they never create it, never change
 * it, and read one that they may not write.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pwd.h>
#include <string.h>

#include "test_util.h"

static int setup(void **state)
{
	*state = tu_db_new("p.db");
	return 0;
}

static int teardown(void **state)
{
	struct tu_db *f = *state;
	chmod(f->dir, 0700);
	tu_db_free(f);
	return 0;
}

static void expect(const char *out, const char *needle)
{
	if (!strstr(out, needle))
		fail_msg("expected %s in:\n%s", needle, out);
}

static int sh(const char *fmt, const char *a, const char *b)
{
	char *cmd;
	if (asprintf(&cmd, fmt, a, b) < 0)
		abort();
	int rc = system(cmd);
	free(cmd);
	return rc;
}

/* What each read-only verb is asked in these tests, and what it says on
 * the v1 fixture's one run ('./demo'). */
static const struct {
	const char *args[4];
	const char *says;
} verbs[] = {
	{ { "runs", NULL }, "./demo" },
	{ { "report", "1", NULL }, "prof run 1: './demo'" },
	{ { "report", "last", "--format", "json" }, "\"run_id\": 1," },
	{ { "modules", "last", NULL }, "no code modules were recorded" },
	{ { "compare", NULL }, "no experiments stored yet" },
	{ { "explain", "1", "1", NULL }, NULL },
};
#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static struct tu_proc run_verb(const struct tu_db *f, size_t i, const struct tu_run_opts *o)
{
	char *argv[8] = { PROF_BIN, f->dbarg };
	int n = 2;
	for (int k = 0; k < 4 && verbs[i].args[k]; k++)
		argv[n++] = (char *)verbs[i].args[k];
	argv[n] = NULL;
	return tu_run_ex(argv, NULL, o);
}

/* The database holds the v1 fixture, brought up to date by one opener
 * that may write it; a copy of it is kept to compare with. */
static void make_db(const struct tu_db *f)
{
	assert_int_equal(sh("cp '" FIXTURES_DIR "/db/v1.db' '%s'%s", f->path, ""), 0);
	char *a[] = { PROF_BIN, f->dbarg, "runs", NULL };
	struct tu_proc p = tu_run(a, NULL);
	if (p.status != 0)
		fail_msg("upgrading v1: status %d:\n%s", p.status, p.err);
	tu_proc_release(&p);
	assert_int_equal(sh("cp '%s' '%s.copy'", f->path, f->path), 0);
}

/* The database is byte for byte what make_db left, and alone. */
static void db_untouched(const struct tu_db *f)
{
	assert_int_equal(sh("cmp -s '%s' '%s.copy'", f->path, f->path), 0);
	assert_int_equal(sh("test ! -e '%s-wal' && test ! -e '%s-shm'", f->path, f->path), 0);
}

/* A database that is not there is not created: every read-only verb says
 * so and exits 1 (they used to create an empty one and report on it). */
static void test_readonly__missing_database_is_not_created(void **state)
{
	struct tu_db *f = *state;
	char *want;
	if (asprintf(&want, "error: no database at '%s'\n", f->path) < 0)
		abort();
	for (size_t i = 0; i < NVERBS; i++) {
		struct tu_proc p = run_verb(f, i, NULL);
		if (p.status != 1 || !strstr(p.err, want) ||
		    !strstr(p.err, "hint: 'prof run -- COMMAND' stores a first run"))
			fail_msg("%s: status %d, stderr:\n%s", verbs[i].args[0], p.status,
				 p.err);
		tu_proc_release(&p);
		assert_int_not_equal(access(f->path, F_OK), 0);
	}
	free(want);
}

/* Reading changes nothing: not the file, and no -wal or -shm beside it. */
static void test_readonly__reading_leaves_the_file_as_it_was(void **state)
{
	struct tu_db *f = *state;
	make_db(f);
	for (size_t i = 0; i < NVERBS; i++) {
		struct tu_proc p = run_verb(f, i, NULL);
		if (verbs[i].says && (p.status != 0 || !strstr(p.out, verbs[i].says)))
			fail_msg("%s: status %d, stdout:\n%s\nstderr:\n%s", verbs[i].args[0],
				 p.status, p.out, p.err);
		assert_null(strstr(p.err, "cannot open database"));
		tu_proc_release(&p);
		db_untouched(f);
	}
}

/*
 * Another program's SQLite file given as --db: every verb refuses it,
 * readers and writers alike, and leaves it byte for byte as it was (prof
 * used to take user_version 0 for its own first schema and add its 39
 * tables beside the file's own). An empty file stays empty under a
 * reader, which says nothing is stored there.
 */
static void test_readonly__a_database_prof_did_not_write_is_left_alone(void **state)
{
	struct tu_db *f = *state;
	assert_int_equal(sh("sqlite3 '%s' 'CREATE TABLE mine (x); INSERT INTO mine "
			    "VALUES (42);'%s", f->path, ""), 0);
	assert_int_equal(sh("cp '%s' '%s.copy'", f->path, f->path), 0);
	for (size_t i = 0; i < NVERBS; i++) {
		struct tu_proc p = run_verb(f, i, NULL);
		if (p.status != 1 || !strstr(p.err, "is an SQLite database that prof "
					     "did not write"))
			fail_msg("%s: status %d, stderr:\n%s", verbs[i].args[0], p.status,
				 p.err);
		tu_proc_release(&p);
		db_untouched(f);
	}
	/* A verb that stores refuses too; the counts are printed, not lost. */
	char *run[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock", "--",
			"/bin/true", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_not_equal(p.status, 0);
	expect(p.err, "is an SQLite database that prof did not write");
	expect(p.err, "not stored");
	tu_proc_release(&p);
	db_untouched(f);

	assert_int_equal(sh(": > '%s'; rm -f '%s.copy'", f->path, f->path), 0);
	assert_int_equal(sh("cp '%s' '%s.copy'", f->path, f->path), 0);
	for (size_t i = 0; i < NVERBS; i++) {
		p = run_verb(f, i, NULL);
		if (p.status != 1 || !strstr(p.err, "no prof database in"))
			fail_msg("%s on an empty file: status %d, stderr:\n%s",
				 verbs[i].args[0], p.status, p.err);
		tu_proc_release(&p);
		db_untouched(f);
	}
}

/*
 * A database its reader may not write: mode 0444 in a directory the
 * reader cannot write either, so SQLite can make no -wal or -shm. root
 * is not held back by file modes, so as root the verbs run as nobody;
 * anyone else runs them as themselves.
 */
static void test_readonly__read_only_database_is_read(void **state)
{
	struct tu_db *f = *state;
	make_db(f);
	struct tu_run_opts as = { 0 };
	if (geteuid() == 0) {
		struct passwd *pw = getpwnam("nobody");
		if (!pw) {
			fprintf(stderr, "skipping: no user 'nobody' to read as\n");
			skip();
		}
		as.as_uid = pw->pw_uid;
		as.as_gid = pw->pw_gid;
	}
	assert_int_equal(chmod(f->path, 0444), 0);
	assert_int_equal(chmod(f->dir, 0555), 0);
	for (size_t i = 0; i < NVERBS; i++) {
		struct tu_proc p = run_verb(f, i, &as);
		/* A checkout nobody may enter (under /root, say): prof
		 * cannot start as that user, which is no finding. */
		if (as.as_uid && (p.status == 126 || p.status == 127)) {
			fprintf(stderr, "skipping: prof cannot run as 'nobody' "
				"here (%d)\n", p.status);
			tu_proc_release(&p);
			skip();
		}
		if (verbs[i].says && (p.status != 0 || !strstr(p.out, verbs[i].says)))
			fail_msg("%s: status %d, stdout:\n%s\nstderr:\n%s", verbs[i].args[0],
				 p.status, p.out, p.err);
		assert_null(strstr(p.err, "cannot open database"));
		tu_proc_release(&p);
		db_untouched(f);
	}

	/* An older schema cannot be brought up to date without writing:
	 * said, and the file is left alone. */
	assert_int_equal(chmod(f->dir, 0755), 0);
	assert_int_equal(sh("cp '" FIXTURES_DIR "/db/v1.db' '%s'%s", f->path, ""), 0);
	assert_int_equal(sh("cp '%s' '%s.copy'", f->path, f->path), 0);
	assert_int_equal(chmod(f->path, 0444), 0);
	assert_int_equal(chmod(f->dir, 0555), 0);
	struct tu_proc p = run_verb(f, 0, &as);
	if (p.status != 1 || !strstr(p.err, "has schema version 1, older than this prof's"))
		fail_msg("status %d, stderr:\n%s", p.status, p.err);
	expect(p.err, "hint: ");
	tu_proc_release(&p);
	db_untouched(f);
	chmod(f->dir, 0755);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_readonly__missing_database_is_not_created, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly__reading_leaves_the_file_as_it_was, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly__read_only_database_is_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly__a_database_prof_did_not_write_is_left_alone,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
