/*
 * Tests for reports/runs: the per-thread report of a stored run in every
 * format, against golden files under tests/fixtures/reports/<case>/. The
 * run (fixture_counted_run, shared with the golden outputs of prof's
 * verbs) has the hardware-specific cases this VM cannot produce: a
 * multiplexed group scaled by enabled/running, an event that never ran
 * ("not counted"), one the kernel refused ("not supported").
 *
 * PROF_UPDATE_GOLDEN=1 rewrites the golden files (read them before
 * committing).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "fixture_db.h"
#include "reports/runs.h"
#include "test_util.h"
#include "zerorun_fixture.h"

static char *xs(const char *s)
{
	return strdup(s);
}

static void golden(const char *casename, const char *file, const char *got)
{
	char *dir, *path;
	assert_true(asprintf(&dir, "%s/reports/%s", FIXTURES_DIR, casename) > 0);
	assert_true(asprintf(&path, "%s/%s", dir, file) > 0);
	const char *upd = getenv("PROF_UPDATE_GOLDEN");
	if (upd && *upd == '1') {
		mkdir(dir, 0755);
		FILE *fp = fopen(path, "w");
		assert_non_null(fp);
		fputs(got, fp);
		fclose(fp);
	}
	char *want = tu_slurp(path);
	if (!want)
		fail_msg("no golden file %s (run with PROF_UPDATE_GOLDEN=1)", path);
	if (strcmp(want, got))
		fail_msg("%s differs from the golden file:\n--- got ---\n%s--- want ---\n%s",
			 path, got, want);
	free(want);
	free(dir);
	free(path);
}

static void render(const struct db_run *r, enum report_by by, enum out_format f,
		   const char *casename, const char *file)
{
	struct tu_buf b;
	report_run(r, by, f, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	golden(casename, file, s);
	free(b.data);
}

static void test_runs_report__multiplexed_run_in_every_format(void **state)
{
	(void)state;
	struct db_run r;
	fixture_counted_run(&r);
	render(&r, BY_THREAD, OUT_TABLE, "multiplexed", "by-thread.txt");
	render(&r, BY_THREAD, OUT_MARKDOWN, "multiplexed", "by-thread.md");
	render(&r, BY_THREAD, OUT_CSV, "multiplexed", "by-thread.csv");
	render(&r, BY_THREAD, OUT_JSON, "multiplexed", "by-thread.json");
	render(&r, BY_TOTAL, OUT_TABLE, "multiplexed", "total.txt");
	db_run_release(&r);
}

static void test_runs_report__scaling_is_shown_and_right(void **state)
{
	(void)state;
	struct db_run r;
	fixture_counted_run(&r);
	struct tu_buf b;
	report_run(&r, BY_THREAD, OUT_TABLE, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	/* render's cycles: 2,000,000 raw, ran 50%: 4,000,000 (50%). */
	assert_non_null(strstr(s, "4,000,000 (50%)"));
	assert_non_null(strstr(s, "not counted"));
	assert_non_null(strstr(s, "counted together (group 1): cycles instructions"));
	assert_non_null(strstr(s, "LLC-load-misses: the kernel refused it"));
	assert_null(strstr(s, "LLC-load-misses (ms)"));
	free(b.data);
	report_run(&r, BY_THREAD, OUT_JSON, tu_buf_open(&b));
	s = tu_buf_close(&b);
	/* JSON: scaled values, null for not counted and not supported. */
	assert_non_null(strstr(s, "\"cycles\": 4000000"));
	assert_non_null(strstr(s, "\"branch-misses\": null"));
	assert_non_null(strstr(s, "\"LLC-load-misses\": null"));
	assert_non_null(strstr(s, "\"cycles\": 50"));	/* running_pct */
	free(b.data);
	db_run_release(&r);
}

static void test_runs_report__by_name_sums_threads(void **state)
{
	(void)state;
	struct db_run r;
	fixture_counted_run(&r);
	free(r.threads[2].name);
	r.threads[2].name = xs("render");
	struct tu_buf b;
	report_run(&r, BY_NAME, OUT_CSV, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	/* render: 3.5e9 + 0.25e9 ns of task-clock in 2 threads. */
	assert_non_null(strstr(s, "7,2,render,task-clock,3750000000,counted,"));
	/* The share of time it ran is the JSON's: 100 where not multiplexed,
	 * 0 where it was enabled but never ran (before, CSV left that empty
	 * where JSON said 0). */
	assert_non_null(strstr(s, "7,2,render,task-clock,3750000000,counted,100\n"));
	assert_non_null(strstr(s, "7,2,render,cycles,10000000,scaled,50\n"));
	assert_non_null(strstr(s, "7,2,render,branch-misses,,not counted,0\n"));
	free(b.data);
	db_run_release(&r);
}

/* A run the database refused (id 0) is never shown as run 0. */
static void test_runs_report__unstored_run_says_so(void **state)
{
	(void)state;
	struct db_run r;
	fixture_counted_run(&r);
	r.id = 0;
	struct tu_buf b;
	report_run(&r, BY_THREAD, OUT_TABLE, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	assert_non_null(strstr(s, " prof run (not stored): '"));
	free(b.data);
	report_run(&r, BY_THREAD, OUT_MARKDOWN, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, "**prof run (not stored)**"));
	free(b.data);
	report_run(&r, BY_THREAD, OUT_JSON, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, "\"run_id\": null"));
	free(b.data);
	report_run(&r, BY_TOTAL, OUT_CSV, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, "\n,,total,task-clock,"));
	assert_null(strstr(s, "\n0,"));
	free(b.data);
	db_run_release(&r);
}

/*
 * A hardware counter that opened, ran and read 0 while instructions
 * moved (QEMU's arm64 PMU) reads "counted 0", never a plain 0, in every
 * format; a software event's 0 (major faults) stays a plain 0.
 */
static void test_runs_report__counted_zero_is_not_a_plain_zero(void **state)
{
	(void)state;
	struct db_run r;
	fixture_zero_run(&r);
	render(&r, BY_THREAD, OUT_TABLE, "counted-zero", "by-thread.txt");
	render(&r, BY_THREAD, OUT_MARKDOWN, "counted-zero", "by-thread.md");
	render(&r, BY_THREAD, OUT_CSV, "counted-zero", "by-thread.csv");
	render(&r, BY_THREAD, OUT_JSON, "counted-zero", "by-thread.json");
	render(&r, BY_TOTAL, OUT_TABLE, "counted-zero", "total.txt");

	struct tu_buf b;
	report_run(&r, BY_TOTAL, OUT_TABLE, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	assert_non_null(strstr(s, "\n counted 0 while instructions counted 40,000,032: "
			       "this PMU may not implement them:\n   branch-misses, "
			       "l1i-misses\n"));
	/* The total row: major-faults 0, branch-misses and l1i-misses not. */
	const char *total = strstr(s, " total ");
	assert_non_null(total);
	char line[512];
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(total, "\n"), total);
	assert_non_null(strstr(line, " 0 "));
	char *first = strstr(line, "counted 0");
	assert_non_null(first);
	assert_non_null(strstr(first + 1, "counted 0"));
	assert_non_null(strstr(line, "not counted"));	/* llc-misses */
	free(b.data);

	report_run(&r, BY_THREAD, OUT_JSON, tu_buf_open(&b));
	s = tu_buf_close(&b);
	/* The events say so; the totals keep the count the kernel gave. */
	const char *bm = strstr(s, "\"name\": \"branch-misses\"");
	assert_non_null(bm);
	const char *end = strchr(bm, '}');
	const char *impl = strstr(bm, "\"implemented\": false");
	assert_true(impl && impl < end);
	const char *mf = strstr(s, "\"name\": \"major-faults\"");
	end = strchr(mf, '}');
	impl = strstr(mf, "\"implemented\"");
	assert_true(!impl || impl > end);
	assert_non_null(strstr(s, "\"branch-misses\": 0"));
	free(b.data);

	report_run(&r, BY_TOTAL, OUT_CSV, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, "9,,total,branch-misses,0,counted 0: may not be "
			       "implemented,100\n"));
	assert_non_null(strstr(s, "9,,total,major-faults,0,counted,100\n"));
	assert_non_null(strstr(s, "9,,total,llc-misses,,not counted,0\n"));
	free(b.data);
	db_run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_report__multiplexed_run_in_every_format),
		cmocka_unit_test(test_runs_report__scaling_is_shown_and_right),
		cmocka_unit_test(test_runs_report__by_name_sums_threads),
		cmocka_unit_test(test_runs_report__unstored_run_says_so),
		cmocka_unit_test(test_runs_report__counted_zero_is_not_a_plain_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
