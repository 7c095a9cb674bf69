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
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture_db.h"
#include "fuzz/wellformed.h"
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
	assert_true(tu_has_prose(s, "\n counted 0 while instructions counted 40,000,032: "
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

/* A run of n threads (tid 1000 + i, three names) and six software
 * events; thread i's first event counted (i * 7919) % n, so that a sort
 * by it is no thread order. */
static void many_threads(struct db_run *r, size_t n)
{
	static const char *const ev[] = { "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults" };
	static const char *const names[] = { "main", "worker", "io" };
	tu_run_init(r, "run", "2026-12-02T08:00:00Z", "./churn", "vm", "AMD EPYC", 2);
	r->id = 5;
	r->nevents = 6;
	r->events = calloc(6, sizeof(*r->events));
	r->threads = calloc(n, sizeof(*r->threads));
	assert_non_null(r->events);
	assert_non_null(r->threads);
	for (size_t e = 0; e < 6; e++) {
		r->events[e].name = xs(ev[e]);
		r->events[e].supported = true;
		r->events[e].total = (struct db_count){ 1000000, 100, 100, true };
	}
	r->nthreads = n;
	for (size_t i = 0; i < n; i++) {
		struct db_thread *t = &r->threads[i];
		t->tid = (int32_t)(1000 + i);
		t->pid = 1000;
		t->name = xs(names[i % 3]);
		t->is_main = i == 0;
		t->counts = calloc(6, sizeof(*t->counts));
		assert_non_null(t->counts);
		for (size_t e = 0; e < 6; e++)
			t->counts[e] = (struct db_count){ e ? i : (i * 7919) % n, 100, 100, true };
	}
}

static int devnull_reports(void)
{
	struct db_run r;
	many_threads(&r, 40000);
	FILE *fp = fopen("/dev/null", "w");
	if (!fp)
		return 1;
	struct rows_view five = { "task-clock", 5 };
	report_run_view(&r, BY_THREAD, NULL, OUT_JSON, fp);
	report_run_view(&r, BY_THREAD, &five, OUT_JSON, fp);
	report_run_view(&r, BY_THREAD, &five, OUT_TABLE, fp);
	report_run_view(&r, BY_THREAD, NULL, OUT_CSV, fp);
	report_run_view(&r, BY_NAME, NULL, OUT_JSON, fp);
	fclose(fp);
	db_run_release(&r);
	return 0;
}

/*
 * 40,000 threads' reports in a child held to 64 MiB more address space:
 * every row of the JSON was built before a byte was written (3 GB for
 * 300,000 threads), and --limit 5 still built all of them (1 GB). A row
 * is built as it is written now, and a cut one never.
 */
static void test_runs_report__many_threads_in_bounded_memory(void **state)
{
	(void)state;
	tu_assert_in_child(devnull_reports, 64, 30);
}

/* 100,000 threads of as many names, each its own process. */
static int devnull_groups(void)
{
	struct db_run r;
	many_threads(&r, 100000);
	for (size_t i = 0; i < r.nthreads; i++) {
		char name[32];
		snprintf(name, sizeof(name), "w%zu", i);
		free(r.threads[i].name);
		r.threads[i].name = xs(name);
		r.threads[i].pid = r.threads[i].tid;
	}
	FILE *fp = fopen("/dev/null", "w");
	if (!fp)
		return 1;
	struct rows_view three = { NULL, 3 };
	report_run_view(&r, BY_NAME, &three, OUT_TABLE, fp);
	report_run_view(&r, BY_NAME, NULL, OUT_JSON, fp);
	report_run_view(&r, BY_PROCESS, &three, OUT_TABLE, fp);
	fclose(fp);
	db_run_release(&r);
	return 0;
}

/* 60,000 processes of a thread each, ten to a parent. */
static int devnull_tree(void)
{
	struct db_run r;
	many_threads(&r, 60000);
	for (size_t i = 0; i < r.nthreads; i++) {
		r.threads[i].pid = r.threads[i].tid;
		r.threads[i].ppid = (int32_t)(1000 + i / 10);
	}
	FILE *fp = fopen("/dev/null", "w");
	if (!fp)
		return 1;
	report_run_view(&r, BY_TREE, NULL, OUT_TABLE, fp);
	report_run_view(&r, BY_TREE, NULL, OUT_JSON, fp);
	fclose(fp);
	db_run_release(&r);
	return 0;
}

/* A tree looked for each process's parent, and each one's children,
 * among every process: 60,000 took minutes. Looked up, it takes a
 * second. */
static void test_runs_report__wide_tree_in_bounded_time(void **state)
{
	(void)state;
	tu_assert_in_child(devnull_tree, 128, 10);
}

/*
 * Grouped by name or process, each thread was looked for among the rows
 * so far: 100,000 names took minutes (killed here after 10 s of CPU),
 * and JSON's names list was held whole. Sorted into their rows, they
 * take a fraction of a second.
 */
static void test_runs_report__many_names_in_bounded_time(void **state)
{
	(void)state;
	tu_assert_in_child(devnull_groups, 96, 10);
}

/* One pass: strstr() from each hit is quadratic under AddressSanitizer,
 * whose strstr measures the whole rest of the text every call. */
static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0, len = strlen(needle);
	for (const char *p = s; *p; p++)
		if (*p == *needle && !strncmp(p, needle, len)) {
			n++;
			p += len - 1;
		}
	return n;
}

/*
 * Written a part at a time, the lists are what they were whole: CSV has
 * one header and a line per thread and event, JSON a thread per entry,
 * across the parts' seams (2,500 threads: three parts); a sort with a
 * limit keeps the largest, in order, and people read how many more.
 */
static void test_runs_report__parts_and_limits_keep_the_rows(void **state)
{
	(void)state;
	struct db_run r;
	many_threads(&r, 2500);
	struct tu_buf b;
	report_run_view(&r, BY_THREAD, NULL, OUT_CSV, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	assert_int_equal(count_of(s, "run_id,"), 1);
	assert_int_equal(count_of(s, "\n"), 1 + 2500 * 6);
	assert_non_null(strstr(s, "\n5,3023,worker,major-faults,2023,counted,100,1000,\n"));
	free(b.data);

	report_run_view(&r, BY_THREAD, NULL, OUT_JSON, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_int_equal(count_of(s, "\"tid\": "), 2500);
	assert_non_null(strstr(s, "\"tid\": 3499"));
	free(b.data);

	/* (i * 7919) % 2500 is largest, 2499, at i = 2321 (tid 3321), then
	 * 2498 at i = 2142 (7919 * 2142 = 6784 * 2500 + 2498). */
	struct rows_view top = { "task-clock", 2 };
	report_run_view(&r, BY_THREAD, &top, OUT_JSON, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_int_equal(count_of(s, "\"tid\": "), 2);
	const char *first = strstr(s, "\"tid\": 3321"), *second = strstr(s, "\"tid\": 3142");
	assert_non_null(first);
	assert_non_null(second);
	assert_true(first < second);
	free(b.data);
	report_run_view(&r, BY_THREAD, &top, OUT_TABLE, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, " 3321 "));
	assert_non_null(strstr(s, "… 2,498 more threads (--limit 0 shows all)"));
	free(b.data);
	db_run_release(&r);
}

/* A chain of 20,000 processes, each the parent of the next: drawn, it
 * was 1.2 GB of leads, and its JSON nested past the writer's depth and
 * came out invalid; a chain of 300,000 overflowed the C stack. The
 * tree draws and nests twelve levels, then says "… " before each
 * process deeper, and its JSON parses. */
static int deep_chain(void)
{
	struct db_run r;
	many_threads(&r, 20000);
	for (size_t i = 0; i < r.nthreads; i++) {
		r.threads[i].pid = r.threads[i].tid;
		r.threads[i].ppid = (int32_t)(i ? 1000 + i - 1 : 1);
	}
	struct tu_buf b;
	report_run_view(&r, BY_TREE, NULL, OUT_TABLE, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	int bad = 0;
	if (strlen(s) > (size_t)20000 * 200 || !strstr(s, "… ") || !strstr(s, "20999"))
		bad = 1;
	free(b.data);
	report_run_view(&r, BY_TREE, NULL, OUT_JSON, tu_buf_open(&b));
	s = tu_buf_close(&b);
	const char *why = wf_json(s, strlen(s));
	if (why) {
		fprintf(stderr, "the deep tree's JSON is invalid: %s\n", why);
		bad = 1;
	}
	if (count_of(s, "\"tid\": ") != 20000)
		bad = 1;
	free(b.data);
	db_run_release(&r);
	return bad;
}

static void test_runs_report__deep_chain_bounded_and_valid(void **state)
{
	(void)state;
	tu_assert_in_child(deep_chain, 256, 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_report__multiplexed_run_in_every_format),
		cmocka_unit_test(test_runs_report__scaling_is_shown_and_right),
		cmocka_unit_test(test_runs_report__by_name_sums_threads),
		cmocka_unit_test(test_runs_report__unstored_run_says_so),
		cmocka_unit_test(test_runs_report__counted_zero_is_not_a_plain_zero),
		cmocka_unit_test(test_runs_report__many_threads_in_bounded_memory),
		cmocka_unit_test(test_runs_report__many_names_in_bounded_time),
		cmocka_unit_test(test_runs_report__wide_tree_in_bounded_time),
		cmocka_unit_test(test_runs_report__parts_and_limits_keep_the_rows),
		cmocka_unit_test(test_runs_report__deep_chain_bounded_and_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
