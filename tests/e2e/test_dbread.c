/*
 * End-to-end tests of the verbs that read the database (report, runs,
 * compare, explain, modules) on files a tool other than prof changed:
 * each damaged file makes the verb exit 1 naming the table, row and
 * column, with nothing on stdout, no -o file, and the database as it
 * was. Huge but valid numbers are printed, and every optional column
 * NULL is read without fault in every format. prof runs here with a CPU,
 * memory and file-size limit, so a reader that still spun, allocated or
 * wrote without bound fails the test instead of the machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/resource.h>

#include "dbfix.h"
#include "test_util.h"

struct fx {
	char *dir, *base, *path, *dbarg, *out;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->dir = tu_tmpdir();
	if (asprintf(&f->base, "%s/base.db", f->dir) < 0 ||
	    asprintf(&f->path, "%s/t.db", f->dir) < 0 ||
	    asprintf(&f->dbarg, "--db=%s", f->path) < 0 ||
	    asprintf(&f->out, "%s/report.out", f->dir) < 0)
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
	free(f->dbarg);
	free(f->out);
	free(f);
	return 0;
}

static void fresh(struct fx *f)
{
	char *cmd;
	assert_true(asprintf(&cmd, "rm -f '%s' '%s-wal' '%s-shm' '%s' && cp '%s' '%s'",
			     f->path, f->path, f->path, f->out, f->base, f->path) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* 20 s of CPU, 1 GiB of address space and files of 64 MiB for prof. */
static void set_limits(void)
{
	struct rlimit rl = { 20, 21 };
	setrlimit(RLIMIT_CPU, &rl);
	rl.rlim_cur = rl.rlim_max = 0;
	setrlimit(RLIMIT_CORE, &rl);
	/* The group loop of a report wrote 4.9 GB in its 20 s. */
	rl.rlim_cur = rl.rlim_max = 64 << 20;
	setrlimit(RLIMIT_FSIZE, &rl);
#ifndef __SANITIZE_ADDRESS__
	/* Not under ASan (prof is built as this test is), which reserves
	 * terabytes of address space up front. */
	rl.rlim_cur = rl.rlim_max = (rlim_t)1 << 30;
	setrlimit(RLIMIT_AS, &rl);
#endif
}

/* tu_run under those limits. */
static struct tu_proc run_limited(char *const argv[])
{
	const struct tu_run_opts o = { .before_exec = set_limits };
	return tu_run_ex(argv, NULL, &o);
}

struct damage {
	const char *loosen;	/* tables stripped of NOT NULL and CHECK first */
	const char *sql;
	const char *args[6];	/* the verb and its arguments */
	const char *expect;	/* on stderr */
};

static const struct damage cases[] = {
	/* The four: NULL names dereferenced, rounds that spun for
	 * minutes or overflowed a calloc. */
	{ "events", "UPDATE events SET name = NULL WHERE run_id = 1 AND idx = 1",
	  { "report", "1" }, "events row (run 1, idx 1): name is NULL" },
	{ "experiment_settings", "UPDATE experiment_settings SET key = NULL",
	  { "compare", "1" }, "experiment_settings row (experiment 1, seq 0): key is NULL" },
	{ NULL, "UPDATE experiments SET rounds = 2000000000",
	  { "compare", "1" }, "experiments row 1: rounds 2000000000 is out of range 1..100000" },
	{ NULL, "UPDATE experiments SET rounds = -5",
	  { "compare", "last", "--format", "json" },
	  "experiments row 1: rounds -5 is out of range 1..100000" },
	{ NULL, "UPDATE experiments SET kind = 'weird'", { "compare", "1" },
	  "experiments row 1: kind 'weird' is not a kind prof knows (ab, pressure)" },
	{ NULL, "UPDATE experiments SET rounds = -5", { "compare" },
	  "experiments row 1: rounds -5 is out of range 1..100000" },
	{ NULL, "UPDATE experiments SET rounds = -5", { "explain", "1" },
	  "experiments row 1: rounds -5 is out of range 1..100000" },
	/* Each verb, each kind of damage. */
	{ "events", "UPDATE events SET name = NULL WHERE run_id = 1",
	  { "compare", "1", "2" }, "events row (run 1, idx 0): name is NULL" },
	{ "hosts", "UPDATE hosts SET hostname = NULL", { "runs" },
	  "hosts row 1: hostname is NULL" },
	{ "arms", "UPDATE arms SET name = NULL WHERE idx = 1", { "explain", "1" },
	  "arms row (experiment 1, idx 1): name is NULL" },
	{ NULL, "UPDATE sample_stacks SET parent_id = 3 WHERE id = 2",
	  { "explain", "3", "1" }, "sample_stacks row (run 3, id 2): parent_id 3" },
	{ "modules", "UPDATE modules SET kind = 'weird'", { "modules", "1" },
	  "modules row (run 1, idx 0): kind is 'weird'" },
	{ "sample_events", "UPDATE sample_events SET name = NULL",
	  { "report", "3", "--by", "symbol" }, "sample_events row (run 3, idx 0): name is NULL" },
	{ "sleep_cells", "UPDATE sleep_cells SET mode = NULL WHERE idx = 2",
	  { "report", "4" }, "sleep_cells row (run 4, idx 2): mode is NULL" },
	/* A supported event's group: the table loops to it. */
	{ NULL, "UPDATE events SET grp = 2000000000 WHERE run_id = 1 AND idx = 0",
	  { "report", "1" }, "grp 2000000000 is out of range 0..4096" },
	{ NULL, "UPDATE runs SET pin_cpus = trim(replace(hex(zeroblob(300)), '00',"
	  " '0-65535,'), ',') WHERE id = 1", { "report", "1", "--format", "json" },
	  "pin_cpus '0-65535,0-65535,0-65535,0-65535,...' is not a list of CPUs" },
	{ NULL, "UPDATE runs SET command = hex(zeroblob(600000)) WHERE id = 1",
	  { "report", "1" }, "runs row 1: command is 1200000 bytes long" },
	{ NULL, "UPDATE experiment_runs SET round = 2147483647 WHERE run_id = 8",
	  { "compare", "1" }, "round 2147483647 is out of range 0..1" },
	{ NULL, "UPDATE threads SET tid = 'main' WHERE id = 1", { "report", "1" },
	  "threads row 1: tid is text ('main'), not an integer" },
	{ NULL, "PRAGMA user_version = 99", { "runs" },
	  "has schema version 99, newer than this prof understands" },
	{ NULL, "PRAGMA user_version = -1", { "report", "1" },
	  "has schema version -1, which no prof writes" },
};

static void test_dbread__damaged_files_are_refused_untouched(void **state)
{
	struct fx *f = *state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct damage *d = &cases[i];
		fresh(f);
		dbfix_change(f->path, d->loosen, d->sql);
		size_t len0, len1;
		char *before = dbfix_bytes(f->path, &len0);
		char *argv[16] = { PROF_BIN, f->dbarg };
		int n = 2;
		for (int k = 0; k < 6 && d->args[k]; k++)
			argv[n++] = (char *)d->args[k];
		argv[n++] = "-o";
		argv[n++] = f->out;
		argv[n] = NULL;
		struct tu_proc p = run_limited(argv);
		if (p.status != 1 || !strstr(p.err, d->expect) || *p.out)
			fail_msg("case %zu (%s, prof %s): status %d, stderr:\n%s\n"
				 "expected: %s", i, d->sql, d->args[0], p.status, p.err,
				 d->expect);
		/* Nothing written half-way, nothing changed. */
		if (access(f->out, F_OK) == 0)
			fail_msg("case %zu: prof %s wrote %s", i, d->args[0], f->out);
		char *after = dbfix_bytes(f->path, &len1);
		assert_int_equal(len0, len1);
		if (memcmp(before, after, len0))
			fail_msg("case %zu: prof %s changed the database", i, d->args[0]);
		free(before);
		free(after);
		tu_proc_release(&p);
	}
}

static void expect(const char *out, const char *needle)
{
	if (!strstr(out, needle))
		fail_msg("expected %s in:\n%s", needle, out);
}

/* A damaged A/A experiment cannot set a later one's gate: said so, and
 * the default gate is used. */
static void test_dbread__a_damaged_aa_experiment_is_named(void **state)
{
	struct fx *f = *state;
	fresh(f);
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	dbfix_experiment(db);		/* experiment 2, runs 11-16 */
	db_close(db);
	dbfix_change(f->path, "arms",
		     "UPDATE experiments SET aa = 1 WHERE id = 1;"
		     "UPDATE experiments SET gate_pct = NULL WHERE id = 2;"
		     "UPDATE arms SET name = NULL WHERE experiment_id = 1 AND idx = 1");
	char *argv[] = { PROF_BIN, f->dbarg, "compare", "2", "--format", "json", NULL };
	struct tu_proc p = run_limited(argv);
	assert_int_equal(p.status, 0);
	if (!strstr(p.err, "warning: the A/A experiment 1 cannot set the gate, so it "
		    "is the default: cannot read database") ||
	    !strstr(p.err, "arms row (experiment 1, idx 1): name is NULL"))
		fail_msg("stderr:\n%s", p.err);
	if (!strstr(p.out, "\"gate_source\": \"default\""))
		fail_msg("stdout:\n%s", p.out);
	tu_proc_release(&p);
}

/* Counters above INT64_MAX are stored as negatives: printed as they are. */
static void test_dbread__huge_valid_numbers_are_printed(void **state)
{
	struct fx *f = *state;
	fresh(f);
	dbfix_change(f->path, NULL,
		     "UPDATE events SET value = -1 WHERE run_id = 1 AND idx = 0;"
		     "UPDATE runs SET lost_records = 9223372036854775807, wall_s = 1e9"
		     " WHERE id = 1;"
		     "UPDATE experiments SET rounds = 100000");
	char *a1[] = { PROF_BIN, f->dbarg, "report", "1", "--by", "total", "--format",
		       "json", NULL };
	struct tu_proc p = run_limited(a1);
	assert_int_equal(p.status, 0);
	/* JSON numbers are doubles: exact to 2^53, nine digits above. */
	expect(p.out, "\"task-clock\": 1.84467441e+19");
	expect(p.out, "\"lost_records\": 9223372036854775807");
	expect(p.out, "\"wall_s\": 1000000000");
	tu_proc_release(&p);
	char *a2[] = { PROF_BIN, f->dbarg, "report", "1", "--by", "total", NULL };
	p = run_limited(a2);
	assert_int_equal(p.status, 0);
	expect(p.out, "18,446,744,073,709.55");	/* ms */
	tu_proc_release(&p);
	char *a3[] = { PROF_BIN, f->dbarg, "compare", "1", NULL };
	p = run_limited(a3);
	assert_int_equal(p.status, 0);
	expect(p.out, "100000 rounds planned");
	tu_proc_release(&p);
}

/* Every column the schema lets be NULL, NULL: each verb reads it. */
static void test_dbread__optional_columns_may_all_be_null(void **state)
{
	struct fx *f = *state;
	fresh(f);
	dbfix_change(f->path, NULL,
		"UPDATE runs SET argv = NULL, cwd = NULL, pid = NULL, exit_status = NULL,"
		" wall_s = NULL, user_s = NULL, sys_s = NULL, paranoid = NULL,"
		" prof_version = NULL, pin_mode = NULL, pin_status = NULL, pin_cpus = NULL,"
		" pin_level = NULL, pin_cache_type = NULL, pin_size_bytes = NULL, note = NULL;"
		"UPDATE events SET canonical = NULL, reason = NULL, attr_type = NULL,"
		" attr_config = NULL, attr_config1 = NULL, attr_config2 = NULL,"
		" exclude_user = NULL, exclude_kernel = NULL, exclude_hv = NULL,"
		" value = NULL, time_enabled = NULL, time_running = NULL;"
		"UPDATE threads SET pid = NULL, name = NULL, start_ns = NULL, end_ns = NULL;"
		"UPDATE modules SET build_id = NULL, text_bytes = NULL,"
		" exec_section_bytes = NULL, touched_bytes = NULL, faulted_bytes = NULL,"
		" faults = NULL, touched_replayed = NULL, error = NULL;"
		"UPDATE experiments SET host_id = NULL, finished = NULL, note = NULL,"
		" seed = NULL, gate_pct = NULL;"
		"UPDATE experiment_settings SET value = NULL;"
		"UPDATE arm_settings SET value = NULL;"
		"UPDATE arms SET argv = NULL;"
		"UPDATE run_scores SET value = NULL, found = 0;"
		"UPDATE sample_events SET attr_type = NULL, attr_config = NULL,"
		" period = NULL, freq = NULL, stack_bytes = NULL;"
		"UPDATE sample_modules SET build_id = NULL;"
		"UPDATE sample_symbols SET name = NULL;"
		"UPDATE samples SET thread_id = NULL, cpu = NULL;"
		"UPDATE sleep_runs SET hybrid_margin_ns = NULL, calibration_p999_ns = NULL,"
		" calibration_guard_ns = NULL;"
		"UPDATE sleep_cells SET margin_ns = NULL;"
		"UPDATE sleep_usage SET error = NULL;"
		"UPDATE sleep_threads SET name = NULL, p50_ns = NULL, p90_ns = NULL,"
		" p99_ns = NULL, p999_ns = NULL, max_ns = NULL, mean_ns = NULL,"
		" req_hist = NULL;");
	static const char *const verbs[][6] = {
		{ "runs" }, { "report", "1" }, { "report", "1", "--by", "name" },
		{ "report", "2" }, { "report", "3" }, { "report", "3", "--by", "module" },
		{ "report", "3", "--by", "thread" }, { "report", "3", "--stacks" },
		{ "report", "4" }, { "modules", "1" }, { "compare" }, { "compare", "1" },
		{ "compare", "1", "2" }, { "explain", "1" }, { "explain", "1", "3" },
	};
	static const char *const formats[] = { "table", "json", "csv", "markdown" };
	for (size_t v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++) {
		for (size_t k = 0; k < 4; k++) {
			bool explain = !strcmp(verbs[v][0], "explain");
			if (explain && k == 2)
				continue;	/* explain writes no csv */
			char *argv[16] = { PROF_BIN, f->dbarg };
			int n = 2;
			for (int i = 0; i < 6 && verbs[v][i]; i++)
				argv[n++] = (char *)verbs[v][i];
			argv[n++] = "--format";
			argv[n++] = (char *)formats[k];
			argv[n] = NULL;
			struct tu_proc p = run_limited(argv);
			if (p.status != 0)
				fail_msg("prof %s %s --format %s: status %d\n%s", verbs[v][0],
					 verbs[v][1] ? verbs[v][1] : "", formats[k], p.status,
					 p.err);
			tu_proc_release(&p);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dbread__damaged_files_are_refused_untouched),
		cmocka_unit_test(test_dbread__a_damaged_aa_experiment_is_named),
		cmocka_unit_test(test_dbread__huge_valid_numbers_are_printed),
		cmocka_unit_test(test_dbread__optional_columns_may_all_be_null),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
