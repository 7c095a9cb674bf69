/*
 * End-to-end tests of the verbs that list rows (report, runs, modules,
 * events), on the fixture database of tests/fixture_db.h: --limit cuts
 * every list it is offered on and says how many rows it left out (table
 * and Markdown; JSON and CSV hold the first N), --sort orders by a
 * column key, and a key no column has is a usage error that lists the
 * keys and leaves an existing -o FILE alone. And prof runs' filters:
 * the runs of ab experiments hidden unless asked for, --kind, --since,
 * --tag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "fixture_db.h"
#include "test_util.h"

static char *dir, *dbarg;

static int setup(void **state)
{
	(void)state;
	dir = tu_tmpdir();
	char *db;
	if (asprintf(&db, "%s/fixture.db", dir) < 0 ||
	    asprintf(&dbarg, "--db=%s", db) < 0)
		return -1;
	fixture_db_build(db);
	free(db);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(dir);
	free(dir);
	free(dbarg);
	return 0;
}

/* prof --db=fixture.db ARGS (split on spaces), with env ("K=V" or NULL). */
static struct tu_proc prof(const char *args, char *env)
{
	char *copy = strdup(args), *argv[32], *save = NULL;
	int n = 0;
	argv[n++] = PROF_BIN;
	argv[n++] = dbarg;
	for (char *t = strtok_r(copy, " ", &save); t && n < 31;
	     t = strtok_r(NULL, " ", &save))
		argv[n++] = t;
	argv[n] = NULL;
	char *envv[] = { env, NULL };
	struct tu_proc p = tu_run(argv, env ? envv : NULL);
	free(copy);
	return p;
}

static void expect(const char *out, const char *needle)
{
	if (!strstr(out, needle))
		fail_msg("expected '%s' in:\n%s", needle, out);
}

static void refute(const char *out, const char *needle)
{
	if (strstr(out, needle))
		fail_msg("did not expect '%s' in:\n%s", needle, out);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Run 1 has three threads: emu (main, 500 ms), render (250 ms) and
 * render (3,500 ms). --limit used to be ignored for them. */
static void test_lists__limit_cuts_the_threads_of_a_run(void **state)
{
	(void)state;
	struct tu_proc p = prof("report 1 --limit 1", NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, " 100  emu (main)");
	refute(p.out, " 101  ");
	expect(p.out, "\n … 2 more threads (--limit 0 shows all)\n");
	expect(p.out, "      total  ");
	expect(p.out, "  4,250.00  ");	/* still every thread's */
	tu_proc_release(&p);

	p = prof("report 1 --limit 1 --format markdown", NULL);
	expect(p.out, "|\n\n… 2 more threads (--limit 0 shows all)\n");
	tu_proc_release(&p);

	/* JSON and CSV hold the first N, and say nothing more. */
	p = prof("report 1 --limit 2 --format json", NULL);
	assert_int_equal(p.status, 0);
	assert_int_equal(count(p.out, "\"tid\": "), 2);
	refute(p.out, "more");
	tu_proc_release(&p);
	p = prof("report 1 --limit 1 --format csv", NULL);
	assert_int_equal(count(p.out, "\n1,100,emu,"), 5);	/* five events */
	refute(p.out, ",render,");
	tu_proc_release(&p);

	/* By name: two names, the cut counted in names. */
	p = prof("report 1 --by name --limit 1", NULL);
	expect(p.out, "… 1 more name (--limit 0 shows all)");
	tu_proc_release(&p);
}

/* --sort orders the rows by a column key: numbers largest first, text
 * A to Z, :asc and :desc to choose. */
static void test_lists__sort_orders_the_threads(void **state)
{
	(void)state;
	struct tu_proc p = prof("report 1 --sort task-clock --format csv", NULL);
	assert_int_equal(p.status, 0);
	const char *a = strstr(p.out, "1,101,render,task-clock,3500000000");
	const char *b = strstr(p.out, "1,100,emu,task-clock,500000000");
	const char *c = strstr(p.out, "1,102,render,task-clock,250000000");
	assert_true(a && b && c && a < b && b < c);
	tu_proc_release(&p);

	p = prof("report 1 --sort task-clock:asc --limit 1", NULL);
	expect(p.out, " 102  render ");
	refute(p.out, " 101  render ");
	tu_proc_release(&p);

	p = prof("report 1 --sort name:desc --format json", NULL);
	a = strstr(p.out, "\"name\": \"render\"");
	b = strstr(p.out, "\"name\": \"emu\"");
	assert_true(a && b && a < b);
	tu_proc_release(&p);
}

/* Every other list that offers --limit cuts it and says so. */
static void test_lists__limit_applies_wherever_it_is_offered(void **state)
{
	(void)state;
	static const struct {
		const char *args, *more;
		char *env;
	} cases[] = {
		{ "runs --all --limit 3", "… 34 more runs before these (--limit 0 shows all)",
		  NULL },
		{ "modules 4 --limit 2", "… 3 more modules (--limit 0 shows all)", NULL },
		{ "report 5 --limit 1", "… 4 more rows (--limit 0 shows all)", NULL },
		{ "report 5 --by thread --limit 1", "… 3 more rows (--limit 0 shows all)",
		  NULL },
		{ "report 5 --stacks --limit 2", "… 5 more call paths (--limit 0 shows all)",
		  NULL },
		{ "events cycles --limit 1", " more events (--limit 0 shows all)",
		  "LIBPFM_FORCE_PMU=amd64_fam19h_zen4" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tu_proc p = prof(cases[i].args, cases[i].env);
		/* A forced x86 PMU in a build whose libpfm4 lacks it (arm64). */
		if (cases[i].env && p.status == 2 &&
		    strstr(p.err, "a PMU this libpfm4 does not know")) {
			fprintf(stderr, "skipping '%s': %s is not known here\n",
				cases[i].args, cases[i].env);
			tu_proc_release(&p);
			continue;
		}
		if (p.status != 0)
			fail_msg("%s: status %d\n%s", cases[i].args, p.status, p.err);
		expect(p.out, cases[i].more);
		tu_proc_release(&p);
	}
}

/* A key no column has: exit 2, the keys listed, nothing written, and an
 * existing -o FILE left as it was. */
static void test_lists__an_unknown_key_is_a_usage_error(void **state)
{
	(void)state;
	char *out, *args;
	if (asprintf(&out, "%s/keep.txt", dir) < 0 ||
	    asprintf(&args, "report 1 --sort cylces -o %s", out) < 0)
		abort();
	FILE *fp = fopen(out, "w");
	fputs("precious\n", fp);
	fclose(fp);
	struct tu_proc p = prof(args, NULL);
	assert_int_equal(p.status, 2);
	assert_string_equal(p.out, "");
	expect(p.err, "error: bad --sort 'cylces': expected a column: tid, name, "
	       "pid, ppid, main, task-clock, cycles, instructions, branch-misses\n");
	expect(p.err, "hint: run 'prof report --help'");
	char *kept = tu_slurp(out);
	assert_string_equal(kept, "precious\n");
	free(kept);
	tu_proc_release(&p);

	static const char *const bad[] = {
		"runs --sort nosuch", "modules 4 --sort nosuch", "report 5 --sort nosuch",
		"report 5 --stacks --sort self_pct", "report 1 --sort name:up",
		"report 1 --sort",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = prof(bad[i], NULL);
		if (p.status != 2)
			fail_msg("%s: status %d\n%s", bad[i], p.status, p.err);
		expect(p.err, "error: ");
		tu_proc_release(&p);
	}
	free(out);
	free(args);
}

/* Where a list is not what is printed, --sort and --limit are refused
 * rather than ignored. */
static void test_lists__refused_where_no_list_is_printed(void **state)
{
	(void)state;
	static const char *const refused[] = {
		"report 5 --format folded --limit 3",
		"report 6 --limit 1",
		"events --mission --limit 1",
		"events --attr cycles --sort name",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct tu_proc p = prof(refused[i], "LIBPFM_FORCE_PMU=amd64_fam19h_zen4");
		if (p.status != 2)
			fail_msg("%s: status %d\n%s", refused[i], p.status, p.err);
		expect(p.err, "--");
		tu_proc_release(&p);
	}
}

/* The run ids a listing holds, from its CSV. */
static char *ids(const char *args)
{
	char *a;
	if (asprintf(&a, "%s --format csv", args) < 0)
		abort();
	struct tu_proc p = prof(a, NULL);
	free(a);
	if (p.status != 0)
		fail_msg("%s: status %d\n%s", args, p.status, p.err);
	struct tu_buf b;
	FILE *fp = tu_buf_open(&b);
	const char *line = strchr(p.out, '\n');	/* past the header */
	for (int n = 0; line && line[1]; line = strchr(line + 1, '\n'))
		fprintf(fp, "%s%ld", n++ ? " " : "", strtol(line + 1, NULL, 10));
	tu_buf_close(&b);
	tu_proc_release(&p);
	return b.data;
}

static void expect_ids(const char *args, const char *want)
{
	char *got = ids(args);
	if (strcmp(got, want))
		fail_msg("%s: runs %s, expected %s", args, got, want);
	free(got);
}

/* Runs 7-34 ran in ab experiments: hidden by default, and counted; runs
 * 35-37 (a probe, a build, a game with frames) are not. */
static void test_lists__runs_hide_the_runs_of_experiments(void **state)
{
	(void)state;
	expect_ids("runs", "1 2 3 4 5 6 35 36 37");
	/* --limit keeps the newest, newest last */
	expect_ids("runs --limit 2", "36 37");
	expect_ids("runs --all --limit 3", "35 36 37");
	struct tu_proc p = prof("runs", NULL);
	expect(p.out, "\n28 runs of experiments (ab, pressure) hidden (--all "
	       "shows them)\n");
	refute(p.out, " arm ");
	tu_proc_release(&p);
	p = prof("runs --format markdown", NULL);
	expect(p.out, "|\n\n28 runs of experiments (ab, pressure) hidden");
	tu_proc_release(&p);
	p = prof("runs --format json", NULL);
	expect(p.out, "\n  \"hidden_ab_runs\": 28\n}\n");
	refute(p.out, "\"run_id\": 7,");
	tu_proc_release(&p);

	/* --all shows them with their experiment and arm. */
	p = prof("runs --all", NULL);
	refute(p.out, "hidden");
	expect(p.out, " 2  sim    ./emu --scene 3 --backend sim\n");
	tu_proc_release(&p);
	char *all = ids("runs --all");
	assert_int_equal(count(all, " ") + 1, 37);
	free(all);
	p = prof("runs --all --format json", NULL);
	expect(p.out, "\"experiment_id\": 2,\n      \"arm\": \"sim\"");
	expect(p.out, "\"hidden_ab_runs\": 0");
	tu_proc_release(&p);
}

static void test_lists__runs_filter_by_kind_time_and_arm(void **state)
{
	(void)state;
	expect_ids("runs --kind record,attach", "3 5");
	expect_ids("runs --kind ab --since 2026-12-01T11:00", "29 30 31 32 33 34");
	expect_ids("runs --since 2026-11-30T06:30", "4 5 6 35 36 37");
	expect_ids("runs --since 2026-11-30 --kind run", "1 2 4 36 37");
	expect_ids("runs --tag sim", "15 18 19 22 23 26 27");
	expect_ids("runs --tag sim --sort wall_s:asc --limit 2", "19 22");
	expect_ids("runs --tag nosuch", "");
	struct tu_proc p = prof("runs --kind sleep --since 2026-12-01", NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "no stored run matches (37 stored)\n");
	tu_proc_release(&p);

	static const char *const bad[] = {
		"runs --kind bogus", "runs --kind run,", "runs --since yesterday",
		"runs --since 2026-13-01", "runs --since 3y", "runs --all extra",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = prof(bad[i], NULL);
		if (p.status != 2)
			fail_msg("%s: status %d\n%s", bad[i], p.status, p.err);
		assert_string_equal(p.out, "");
		expect(p.err, "error: ");
		tu_proc_release(&p);
	}
}

/* A run stored with 'prof run --tag NAME' is found by 'prof runs --tag
 * NAME' (which used to match ab arms alone), and the list shows its tag. */
static void test_lists__runs_tag_finds_tagged_runs(void **state)
{
	(void)state;
	struct tu_db *d = tu_db_new("tags.db");
	if (!tu_perf_allowed(d->dbarg)) {
		tu_db_free(d);
		skip();
	}
	const char *tags[] = { "before", NULL, "after" };
	for (int i = 0; i < 3; i++) {
		char *a[] = { PROF_BIN, d->dbarg, "run", "-q", "-e", "task-clock",
			      "--tag", (char *)tags[i], "--", "/bin/true", NULL };
		if (!tags[i])	/* untagged */
			a[6] = "--", a[7] = "/bin/true", a[8] = NULL;
		struct tu_proc p = tu_run(a, NULL);
		assert_int_equal(p.status, 0);
		tu_proc_release(&p);
	}
	char *csv[] = { PROF_BIN, d->dbarg, "runs", "--tag", "after", "--format",
			"csv", NULL };
	struct tu_proc p = tu_run(csv, NULL);
	assert_int_equal(p.status, 0);
	/* Run 1 is tu_perf_allowed's check: these are runs 2 to 4. */
	expect(p.out, ",arm,tag\n4,run,");
	expect(p.out, ",after\n");
	refute(p.out, "\n2,");
	tu_proc_release(&p);
	char *table[] = { PROF_BIN, d->dbarg, "runs", NULL };
	p = tu_run(table, NULL);
	expect(p.out, "  tag     command\n");
	expect(p.out, "  before  /bin/true\n");
	tu_proc_release(&p);
	char *json[] = { PROF_BIN, d->dbarg, "runs", "--tag", "before", "--format",
			 "json", NULL };
	p = tu_run(json, NULL);
	expect(p.out, "\"tag\": \"before\"");
	refute(p.out, "\"run_id\": 3,");
	tu_proc_release(&p);
	tu_db_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists__limit_cuts_the_threads_of_a_run),
		cmocka_unit_test(test_lists__sort_orders_the_threads),
		cmocka_unit_test(test_lists__limit_applies_wherever_it_is_offered),
		cmocka_unit_test(test_lists__an_unknown_key_is_a_usage_error),
		cmocka_unit_test(test_lists__refused_where_no_list_is_printed),
		cmocka_unit_test(test_lists__runs_hide_the_runs_of_experiments),
		cmocka_unit_test(test_lists__runs_filter_by_kind_time_and_arm),
		cmocka_unit_test(test_lists__runs_tag_finds_tagged_runs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
