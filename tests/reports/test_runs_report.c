/*
 * Tests for reports/runs: the per-thread report of a stored run in every
 * format, against golden files under tests/fixtures/reports/<case>/. The
 * run is built here with the hardware-specific cases this VM cannot
 * produce: a multiplexed group scaled by enabled/running, an event that
 * never ran ("not counted"), one the kernel refused ("not supported").
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

#include "reports/runs.h"
#include "test_util.h"

static char *xs(const char *s)
{
	return strdup(s);
}

static void add_event(struct db_run *r, size_t i, const char *name, bool sup,
		      int group, uint32_t type, uint64_t config)
{
	struct db_event *e = &r->events[i];
	e->name = xs(name);
	e->canonical = xs(name);
	e->supported = sup;
	e->group = group;
	e->attr_type = type;
	e->attr_config = config;
	if (!sup)
		e->reason = xs("the kernel refused it: No such file or directory\n"
			       "hint: no hardware PMU is visible");
}

/* Three threads; cycles and instructions multiplexed in group 1 (they ran
 * half the time); branch-misses in group 2 never ran; LLC refused. */
static void make_run(struct db_run *r)
{
	memset(r, 0, sizeof(*r));
	r->id = 7;
	r->kind = xs("run");
	r->started = xs("2026-11-30T05:37:51Z");
	r->command = xs("./emu --scene 3");
	r->exit_status = 0;
	r->wall_s = 2.5;
	r->user_s = 4.25;
	r->sys_s = 0.125;
	r->host.hostname = xs("box");
	r->host.cpu_model = xs("AMD Ryzen 9 5900X");
	r->host.kernel = xs("6.18");
	r->host.online_cpus = 24;
	r->pin.mode = xs("largest-llc");
	r->pin.status = xs("applied");
	r->pin.cpus = xs("0-5,12-17");
	r->pin.level = 3;
	r->pin.size_bytes = 32u << 20;
	r->nevents = 5;
	r->events = calloc(5, sizeof(*r->events));
	add_event(r, 0, "task-clock", true, 0, 1, 1);
	add_event(r, 1, "cycles", true, 1, 0, 0);
	add_event(r, 2, "instructions", true, 1, 0, 1);
	add_event(r, 3, "branch-misses", true, 2, 0, 5);
	add_event(r, 4, "LLC-load-misses", false, 0, 3, 0x10002);
	static const char *names[] = { "emu", "render", "audio" };
	static const uint64_t tc[] = { 500000000, 3500000000, 250000000 };
	r->nthreads = 3;
	r->threads = calloc(3, sizeof(*r->threads));
	for (size_t t = 0; t < 3; t++) {
		struct db_thread *th = &r->threads[t];
		th->tid = (int32_t)(100 + t);
		th->pid = 100;
		th->name = xs(names[t]);
		th->is_main = t == 0;
		th->counts = calloc(5, sizeof(*th->counts));
		th->counts[0] = (struct db_count){ tc[t], tc[t], tc[t], true };
		/* Ran half of the time enabled: scaled by 2. */
		th->counts[1] = (struct db_count){ 1000000 * (t + 1), tc[t], tc[t] / 2, true };
		th->counts[2] = (struct db_count){ 2000000 * (t + 1), tc[t], tc[t] / 2, true };
		th->counts[3] = (struct db_count){ 0, tc[t], 0, true };
		for (int e = 0; e < 4; e++) {
			struct db_count *tot = &r->events[e].total;
			tot->present = true;
			tot->value += th->counts[e].value;
			tot->enabled += th->counts[e].enabled;
			tot->running += th->counts[e].running;
		}
	}
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
	make_run(&r);
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
	make_run(&r);
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
	make_run(&r);
	free(r.threads[2].name);
	r.threads[2].name = xs("render");
	struct tu_buf b;
	report_run(&r, BY_NAME, OUT_CSV, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	/* render: 3.5e9 + 0.25e9 ns of task-clock in 2 threads. */
	assert_non_null(strstr(s, "7,2,render,task-clock,3750000000,counted,"));
	free(b.data);
	db_run_release(&r);
}

/* A run the database refused (id 0) is never shown as run 0. */
static void test_runs_report__unstored_run_says_so(void **state)
{
	(void)state;
	struct db_run r;
	make_run(&r);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_report__multiplexed_run_in_every_format),
		cmocka_unit_test(test_runs_report__scaling_is_shown_and_right),
		cmocka_unit_test(test_runs_report__by_name_sums_threads),
		cmocka_unit_test(test_runs_report__unstored_run_says_so),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
