/*
 * End-to-end tests of the verbs that list rows (report, runs, modules,
 * events), on the fixture database of tests/fixture_db.h: --limit cuts
 * every list it is offered on and says how many rows it left out (table
 * and Markdown; JSON and CSV hold the first N), --sort orders by a
 * column key, and a key no column has is a usage error that lists the
 * keys and leaves an existing -o FILE alone.
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
		{ "runs --limit 3", "… 31 more runs (--limit 0 shows all)", NULL },
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
	       "main, task-clock, cycles, instructions, branch-misses\n");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists__limit_cuts_the_threads_of_a_run),
		cmocka_unit_test(test_lists__sort_orders_the_threads),
		cmocka_unit_test(test_lists__limit_applies_wherever_it_is_offered),
		cmocka_unit_test(test_lists__an_unknown_key_is_a_usage_error),
		cmocka_unit_test(test_lists__refused_where_no_list_is_printed),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
