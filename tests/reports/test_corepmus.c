/*
 * Tests for reports/corepmus and the counts per core PMU it reads: a
 * made-up run on a hybrid part (tests/fixture_db.h's fx_store_hybrid:
 * cpu_core and cpu_atom, values invented, no such CPU here) is stored,
 * loaded back with its pmu_counts, and reported: which core type ran each
 * thread and each event's raw count per PMU, in the table and in JSON. A
 * run of one core PMU has no such section, nor JSON key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "fixture_db.h"
#include "reports/corepmus.h"
#include "reports/runs.h"
#include "test_util.h"

static void load_hybrid(struct db_run *run, char **dir)
{
	*dir = tu_tmpdir();
	char *path;
	assert_true(asprintf(&path, "%s/hybrid.db", *dir) > 0);
	fixture_hybrid_db_build(path);
	struct db *db;
	char *cause = NULL;
	assert_int_equal(db_open(&db, path, &cause), 0);
	if (db_run_load(db, 1, run, &cause))
		fail_msg("load: %s", cause);
	db_close(db);
	free(path);
}

static char *render(const struct db_run *run, enum out_format fmt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	assert_non_null(fp);
	report_run(run, BY_THREAD, fmt, fp);
	fclose(fp);
	return text;
}

/* The parts come back as stored, and each thread's total is their sum. */
static void test_corepmus__stored_parts_load_back(void **state)
{
	(void)state;
	struct db_run run;
	char *dir;
	load_hybrid(&run, &dir);
	assert_int_equal(run.ncore_pmus, 2);
	assert_string_equal(run.core_pmus[0], "cpu_core");
	assert_string_equal(run.core_pmus[1], "cpu_atom");
	assert_int_equal(run.nthreads, 3);
	for (size_t t = 0; t < run.nthreads; t++) {
		const struct db_thread *th = &run.threads[t];
		assert_non_null(th->pmu_counts);
		/* task-clock is not per PMU */
		assert_false(th->pmu_counts[0].present);
		assert_false(th->pmu_counts[run.nevents].present);
		for (size_t e = 1; e < run.nevents; e++) {
			const struct db_count *core = &th->pmu_counts[e];
			const struct db_count *atom = &th->pmu_counts[run.nevents + e];
			assert_true(core->present && atom->present);
			assert_int_equal(core->value + atom->value, th->counts[e].value);
		}
	}
	/* worker (tid 501) ran on the E-cores alone: 1.2 s at 3.4 GHz */
	assert_int_equal(run.threads[1].pmu_counts[1].value, 0);
	assert_int_equal(run.threads[1].pmu_counts[run.nevents + 1].value, 4080000000u);
	assert_int_equal(run.threads[1].pmu_counts[run.nevents + 1].running, 1200000000u);
	db_run_release(&run);
	free(dir);
}

static void test_corepmus__report_says_which_core_type_ran_each(void **state)
{
	(void)state;
	struct db_run run;
	char *dir;
	load_hybrid(&run, &dir);
	char *text = render(&run, OUT_TABLE);
	assert_non_null(strstr(text, "per core type (cpu_core, cpu_atom)"));
	assert_non_null(strstr(text, "time %: the share of the thread's cycles "
				     "running time on each"));
	/* build: 3/4 of its time on the P-cores; worker none */
	assert_non_null(strstr(text, " 500  build   cpu_core    75.0  3,750,000,000"));
	assert_non_null(strstr(text, " 501  worker  cpu_core     0.0              0"));
	assert_non_null(strstr(text, " 501  worker  cpu_atom   100.0  4,080,000,000"));
	/* the main table keeps the totals */
	assert_non_null(strstr(text, "4,600,000,000"));
	free(text);

	char *json = render(&run, OUT_JSON);
	const char *cp = strstr(json, "\"core_pmus\": [");
	assert_non_null(cp);
	assert_non_null(strstr(cp, "\"pmu\": \"cpu_atom\""));
	assert_non_null(strstr(cp, "\"time_pct\": 25"));
	assert_non_null(strstr(cp, "\"cycles\": 850000000"));
	free(json);
	db_run_release(&run);
	free(dir);
}

/* A run on one core PMU: nothing of it, in any format. */
static void test_corepmus__one_pmu_run_has_none(void **state)
{
	(void)state;
	struct db_run run;
	fixture_counted_run(&run);
	assert_null(report_core_pmu_rows(&run));
	char *text = render(&run, OUT_TABLE);
	assert_null(strstr(text, "per core type"));
	free(text);
	char *json = render(&run, OUT_JSON);
	assert_null(strstr(json, "core_pmus"));
	free(json);
	db_run_release(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corepmus__stored_parts_load_back),
		cmocka_unit_test(test_corepmus__report_says_which_core_type_ran_each),
		cmocka_unit_test(test_corepmus__one_pmu_run_has_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
