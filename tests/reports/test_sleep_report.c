/*
 * Tests for reports/sleep: the table, JSON, Markdown and CSV of a
 * constructed benchmark (three modes x two durations, values set by hand
 * below), the JSON keys of shared/DESIGN.md, and the cheapest line; and
 * the sleep interposer's report of a --sleep-mode run, whose condvar
 * timed waits are shown apart from its sleeps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "reports/sleep.h"
#include "test_util.h"

struct fixture {
	struct db_run run;
	struct db_sleep s;
};

static void set_cell(struct db_sleep_cell *c, const char *mode, int64_t margin_ns,
		     uint32_t target_us, int64_t p50, int64_t p99, double cpu_us,
		     bool cheapest)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->mode, sizeof(c->mode), "%s", mode);
	c->margin_ns = margin_ns;
	c->target_us = target_us;
	c->calls = 1000;
	c->p50_ns = p50;
	c->p90_ns = p50 + 1000;
	c->p99_ns = p99;
	c->p999_ns = p99 + 500;
	c->max_ns = p99 + 2000000;	/* one 2 ms preemption */
	c->min_ns = p50 - 100;
	c->mean_ns = (double)p50 + 250.0;
	/* 1000 calls: 600 + 300 + 60 + 30 + 10 */
	c->buckets[DB_SLEEP_LT3] = 600;
	c->buckets[DB_SLEEP_LT10] = 300;
	c->buckets[DB_SLEEP_LT25] = 60;
	c->buckets[DB_SLEEP_LT50] = 30;
	c->buckets[DB_SLEEP_GE50] = 10;
	c->cpu_us_per_call = cpu_us;
	c->user_us_per_call = cpu_us / 2;
	c->sys_us_per_call = cpu_us / 2;
	/* cpu % = cpu per call / (target + p50) per call, near enough */
	c->cpu_pct = cpu_us / ((double)target_us + (double)p50 / 1e3) * 100.0;
	c->vcsw_per_call = 1.0;
	c->ivcsw_per_call = 0.004;
	c->cheapest = cheapest;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	f->run.id = 42;
	f->run.kind = "sleep";
	f->run.started = "2026-12-01T08:00:00Z";
	f->run.wall_s = 3.25;
	f->run.pin.mode = "cpus:1";
	f->run.pin.status = "applied";
	f->run.pin.cpus = "1";
	f->run.host.hostname = "vm";
	struct db_sleep *s = &f->s;
	s->timer_slack_ns = 50000;
	snprintf(s->sched_policy, sizeof(s->sched_policy), "SCHED_OTHER");
	snprintf(s->clocksource, sizeof(s->clocksource), "kvm-clock");
	snprintf(s->pattern, sizeof(s->pattern), "oneshot");
	s->calls = 1000;
	s->threads = 1;
	s->load = 0;
	s->hybrid_margin_ns = 12300;
	s->hybrid_calibrated = true;
	s->calibration_p999_ns = 10300;
	s->calibration_guard_ns = 2000;
	s->cheap_p99_us = 10.0;
	s->ncells = 6;
	s->cells = calloc(6, sizeof(*s->cells));
	/* nanosleep: slack-bound, p99 far over 10 us, cheapest never. */
	set_cell(&s->cells[0], "nanosleep", -1, 10, 55000, 61000, 1.5, false);
	set_cell(&s->cells[1], "nanosleep", -1, 30, 54000, 60500, 1.5, false);
	/* timerfd: p99 under 10 us at 10 us only, so cheapest there. */
	set_cell(&s->cells[2], "timerfd", -1, 10, 4200, 9800, 2.25, true);
	set_cell(&s->cells[3], "timerfd", -1, 30, 4100, 10000, 2.0, false);
	/* hybrid: under 10 us at both; at 30 us the only one qualifying. */
	set_cell(&s->cells[4], "hybrid", 12300, 10, 150, 900, 12.0, false);
	set_cell(&s->cells[5], "hybrid", 12300, 30, -50, 800, 14.5, true);
	s->cells[5].early = 400;	/* a negative median: early wakes */
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	free(f->s.cells);
	free(f);
	return 0;
}

static void expect(const char *out, const char *needle)
{
	if (!strstr(out, needle))
		fail_msg("expected '%s' in:\n%s", needle, out);
}

static char *render(struct fixture *f, enum out_format fmt)
{
	struct tu_buf b;
	report_sleep(&f->run, &f->s, fmt, tu_buf_open(&b));
	return (char *)tu_buf_close(&b);
}

static void test_sleep_report__table(void **state)
{
	struct fixture *f = *state;
	char *out = render(f, OUT_TABLE);
	expect(out, " prof sleep (run 42): 3 modes x 2 durations, 1,000 calls per "
	       "cell on 1 thread, oneshot, no load; 3.2 s\n");
	expect(out, " timer slack 50 us, SCHED_OTHER, clocksource kvm-clock; pin "
	       "cpus:1: applied, CPUs 1\n");
	expect(out, " hybrid margin 12.3 us, calibrated: timerfd p99.9 overshoot "
	       "10.3 us + 2 us guard\n");
	/* Column titles, then one row per cell in the order they ran. */
	expect(out, "mode");
	expect(out, "p99.9");
	expect(out, "ivcsw");
	/* nanosleep at 10 us: p50 55.0, p90 56.0, p99 61.0, p99.9 61.5, max
	 * 2,061.0 (61 us + 2 ms); buckets 600 300 60 30 10; cpu 1.50 us/call;
	 * cpu % = 1.5 / (10 + 55) * 100 = 2.3. */
	const char *row = strstr(out, " nanosleep ");
	assert_non_null(row);
	char line[512];
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(row, "\n"), row);
	const char *want[] = { " 10 ", " 1,000 ", " 55.0 ", " 56.0 ", " 61.0 ",
			       " 61.5 ", " 2,061.0 ", " 600 ", " 300 ", " 60 ",
			       " 30 ", " 10 ", " 2.3 ", " 1.50 ", " 1.00 ",
			       " 0.004" };
	const char *p = line;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *q = strstr(p, want[i]);
		if (!q)
			fail_msg("expected '%s' after '%s' in row:\n%s", want[i], p, line);
		p = q + strlen(want[i]) - 1;
	}
	/* hybrid's row names its margin; an early median prints negative. */
	expect(out, " hybrid:12.3 ");
	expect(out, " -0.1 ");
	/* The last line: timerfd at 10 us, hybrid at 30 us. */
	const char *last = strrchr(out, '\n');
	assert_non_null(last);
	while (last > out && last[-1] != '\n')
		last--;
	assert_string_equal(last, " cheapest with p99 overshoot under 10 us: "
			    "10 us timerfd, 30 us hybrid:12.3\n");
	free(out);
}

static void test_sleep_report__cheapest_says_none(void **state)
{
	struct fixture *f = *state;
	f->s.cells[5].cheapest = false;
	char *out = render(f, OUT_TABLE);
	expect(out, "cheapest with p99 overshoot under 10 us: 10 us timerfd, "
	       "30 us none\n");
	free(out);
	out = render(f, OUT_JSON);
	expect(out, "{\n      \"target_us\": 30,\n      \"mode\": null,\n"
	       "      \"margin_us\": null,\n      \"p99_us\": null,\n"
	       "      \"cpu_us_per_call\": null\n    }");
	free(out);
}

static void test_sleep_report__json_keys_follow_the_contract(void **state)
{
	struct fixture *f = *state;
	char *out = render(f, OUT_JSON);
	expect(out, "\"run_id\": 42,");
	expect(out, "\"timer_slack_ns\": 50000,");
	expect(out, "\"sched_policy\": \"SCHED_OTHER\",");
	expect(out, "\"clocksource\": \"kvm-clock\",");
	expect(out, "\"pattern\": \"oneshot\",");
	expect(out, "\"load\": 0,");
	expect(out, "\"pin\": {\n    \"mode\": \"cpus:1\",\n    \"status\": "
	       "\"applied\",\n    \"cpus\": [1]\n  }");
	expect(out, "\"hybrid\": {\n    \"margin_us\": 12.3,\n    \"calibrated\": "
	       "true,\n    \"calibration_p999_us\": 10.3,\n    \"guard_us\": 2\n  }");
	/* The first result, key by key, as shared/DESIGN.md names them:
	 * {mode, target_us, calls, overshoot_us {p50, p90, p99, p999, max},
	 * buckets {lt3, lt10, lt25, lt50, ge50}, cpu_pct}. */
	expect(out, "\"results\": [\n    {\n      \"mode\": \"nanosleep\",\n"
	       "      \"margin_us\": null,\n      \"target_us\": 10,\n"
	       "      \"calls\": 1000,\n      \"overshoot_us\": {\n"
	       "        \"p50\": 55,\n        \"p90\": 56,\n        \"p99\": 61,\n"
	       "        \"p999\": 61.5,\n        \"max\": 2061,\n"
	       "        \"min\": 54.9,\n        \"mean\": 55.25\n      },\n"
	       "      \"early\": 0,\n      \"buckets\": {\n        \"lt3\": 600,\n"
	       "        \"lt10\": 300,\n        \"lt25\": 60,\n        \"lt50\": 30,\n"
	       "        \"ge50\": 10\n      },\n      \"cpu_pct\": ");
	expect(out, "\"cpu_us_per_call\": 1.5,\n      \"user_us_per_call\": 0.75,\n"
	       "      \"sys_us_per_call\": 0.75,\n      \"vcsw_per_call\": 1,\n"
	       "      \"ivcsw_per_call\": 0.004,\n      \"missed\": 0,\n");
	/* hybrid: its own name, the margin apart, an early median. */
	expect(out, "\"mode\": \"hybrid\",\n      \"margin_us\": 12.3,\n"
	       "      \"target_us\": 30,");
	expect(out, "\"p50\": -0.05,");
	expect(out, "\"early\": 400,");
	expect(out, "\"cheapest_p99_us\": 10,");
	expect(out, "\"cheapest\": [\n    {\n      \"target_us\": 10,\n"
	       "      \"mode\": \"timerfd\",\n      \"margin_us\": null,\n"
	       "      \"p99_us\": 9.8,\n      \"cpu_us_per_call\": 2.25\n    },\n"
	       "    {\n      \"target_us\": 30,\n      \"mode\": \"hybrid\",\n"
	       "      \"margin_us\": 12.3,\n      \"p99_us\": 0.8,\n"
	       "      \"cpu_us_per_call\": 14.5\n    }\n  ]\n}\n");
	/* Six results, one per cell. */
	size_t n = 0;
	for (const char *p = out; (p = strstr(p, "\"overshoot_us\"")); p++)
		n++;
	assert_int_equal(n, 6);
	free(out);
}

static void test_sleep_report__json_parses(void **state)
{
	struct fixture *f = *state;
	if (access("/usr/bin/python3", X_OK) != 0)
		skip();
	char *dir = tu_tmpdir(), *path;
	assert_true(asprintf(&path, "%s/s.json", dir) > 0);
	FILE *fp = fopen(path, "w");
	report_sleep(&f->run, &f->s, OUT_JSON, fp);
	fclose(fp);
	/* Each result has the contract's keys, and no other checks needed. */
	char *argv[] = { "/usr/bin/python3", "-c",
		"import json,sys\n"
		"d=json.load(open(sys.argv[1]))\n"
		"for r in d['results']:\n"
		"  assert {'mode','target_us','calls','overshoot_us','buckets','cpu_pct'} <= set(r)\n"
		"  assert set(r['overshoot_us']) >= {'p50','p90','p99','p999','max'}\n"
		"  assert set(r['buckets']) == {'lt3','lt10','lt25','lt50','ge50'}\n"
		"  assert sum(r['buckets'].values()) == r['calls']\n"
		"print(len(d['results']))\n", path, NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status)
		fail_msg("python3 says:\n%s", p.err);
	assert_string_equal(p.out, "6\n");
	tu_proc_release(&p);
	free(path);
	tu_rmrf(dir);
	free(dir);
}

static void test_sleep_report__not_stored_and_unpinned(void **state)
{
	struct fixture *f = *state;
	f->run.id = 0;
	f->run.pin.mode = "none";
	f->run.pin.status = "not requested";
	f->run.pin.cpus = "0-1";
	f->run.interrupted = true;
	f->s.hybrid_margin_ns = -1;
	f->s.load = 2;
	f->s.threads = 4;
	char *out = render(f, OUT_TABLE);
	expect(out, " prof sleep: 3 modes x 2 durations, 1,000 calls per thread "
	       "per cell on 4 threads, oneshot, ");
	expect(out, "oneshot, 2 busy load threads; 3.2 s, interrupted before the end\n");
	expect(out, "; not pinned, CPUs 0-1\n");
	assert_null(strstr(out, "hybrid margin"));
	free(out);
	out = render(f, OUT_JSON);
	expect(out, "\"run_id\": null,");
	expect(out, "\"interrupted\": true,");
	expect(out, "\"hybrid\": null,");
	expect(out, "\"cpus\": [0, 1]");
	free(out);
}

static void test_sleep_report__markdown_and_csv(void **state)
{
	struct fixture *f = *state;
	char *out = render(f, OUT_MARKDOWN);
	expect(out, "**prof sleep (run 42):** 3 modes x 2 durations");
	expect(out, "| mode |");
	expect(out, "| hybrid:12.3 |");
	expect(out, "\ncheapest with p99 overshoot under 10 us: 10 us timerfd, "
	       "30 us hybrid:12.3\n");
	free(out);
	out = render(f, OUT_CSV);
	/* CSV: the JSON keys (nested ones dotted) and six rows, raw numbers
	 * without separators. */
	assert_true(strncmp(out, "mode,margin_us,target_us,calls,overshoot_us.p50,", 48) == 0);
	expect(out, ",buckets.lt3,");
	expect(out, "\nnanosleep,,10,1000,55,56,61,61.5,2061,");
	expect(out, "\nhybrid,12.3,30,");
	size_t lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 7);
	free(out);
}

/* ---- the interposer's report ---- */

/* One thread that slept and waited on condvars, one that only slept. */
static struct db_sleep_usage *make_usage(const char *mode, bool with_cv)
{
	struct db_sleep_usage *u = calloc(1, sizeof(*u));
	u->mode = strdup(mode);
	u->threshold_us = 2000;
	u->status = strdup("applied");
	u->processes = 1;
	u->max_spinners = 1;
	u->spinners_default = true;
	u->ncpus = 2;
	if (with_cv)
		u->cv_served_by = strdup(!strcmp(mode, "passthrough") ?
					 "the real function" : "timer slack 1 ns");
	u->nthreads = 2;
	u->threads = calloc(2, sizeof(*u->threads));
	u->threads[0] = (struct db_sleep_thread){
		.tid = 700, .pid = 700, .name = strdup("main"), .served = 40,
		.p50_ns = 3100, .p90_ns = 4000, .p99_ns = 5200, .p999_ns = 6100,
		.max_ns = 7000, .mean_ns = 3300, .req_hist = strdup("8:40"),
		.cv_served = 30, .cv_passed = 2, .cv_woken = 5, .cv_timedout = 25,
		.cv_p50_ns = 21500, .cv_p90_ns = 24000, .cv_p99_ns = 31000,
		.cv_p999_ns = 33000, .cv_max_ns = 35500, .cv_mean_ns = 22250,
	};
	u->threads[1] = (struct db_sleep_thread){
		.tid = 701, .pid = 700, .name = strdup("io"), .served = 10,
		.req_hist = strdup("6:10"),
	};
	return u;
}

static char *render_usage(const struct db_sleep_usage *u, enum out_format fmt)
{
	struct tu_buf b;
	FILE *fp = tu_buf_open(&b);
	if (fmt == OUT_JSON) {
		struct jw w;
		jw_init(&w, fp, 2);
		report_sleep_usage_json(u, &w);
		jw_end(&w);
	} else {
		report_sleep_usage(u, fmt, fp);
	}
	return (char *)tu_buf_close(&b);
}

static void test_sleep_report__usage_condvar_waits_apart(void **state)
{
	(void)state;
	struct db_sleep_usage *u = make_usage("hybrid:20", true);
	char *out = render_usage(u, OUT_TABLE);
	/* the sleeps' table is the sleeps' alone ... */
	expect(out, " sleeps under 2000 us served as hybrid:20, at most 1 spinning");
	expect(out, "\n 700  main      40       0      0         0     3.1");
	/* ... and the condvar waits follow, with how they were served */
	expect(out, "\n condvar waits under 2000 us: 30 served by timer slack 1 ns "
	       "under mode hybrid:20, 2 passed through\n"
	       " (a condvar waiter wakes only inside the real wait: hybrid:20 in "
	       "its place would lose signals; see docs/sleep.md)\n");
	expect(out, "tid  name  served  passed  woken  timed out  p50 us  p99 us  "
	       "p99.9 us  max us\n");
	expect(out, " 700  main      30       2      5         25    21.5    31.0  "
	       "    33.0    35.5\n");
	/* the thread that made no condvar wait has no row there */
	const char *cv = strstr(out, "condvar waits");
	assert_null(strstr(cv, " io "));
	free(out);

	out = render_usage(u, OUT_JSON);
	expect(out, "\"condvar_served_by\": \"timer slack 1 ns\"");
	expect(out, "\"condvar\": {\n");
	expect(out, "\"served\": 30,\n");
	expect(out, "\"timed_out\": 25,\n");
	expect(out, "\"overshoot_us\": {\"p50\": 21.5, \"p90\": 24, \"p99\": 31, "
	       "\"p999\": 33, \"max\": 35.5, \"mean\": 22.25}");
	/* the sleeps' own counts are untouched by the waits */
	expect(out, "\"served_by_mode\": 50,");
	free(out);
	db_sleep_usage_free(u);

	/* slack1 serves them as it serves sleeps: no note */
	u = make_usage("slack1", true);
	out = render_usage(u, OUT_MARKDOWN);
	expect(out, "condvar waits under 2000 us: 30 served by timer slack 1 ns "
	       "under mode slack1, 2 passed through\n");
	assert_null(strstr(out, "would lose signals"));
	expect(out, "| tid | name | served | passed | woken | timed out |");
	free(out);
	db_sleep_usage_free(u);
}

static void test_sleep_report__usage_before_condvars(void **state)
{
	(void)state;
	/* a run stored before the interposer took condvar waits: no
	 * section, and null where machines look */
	struct db_sleep_usage *u = make_usage("timerfd", false);
	char *out = render_usage(u, OUT_TABLE);
	assert_null(strstr(out, "condvar"));
	free(out);
	out = render_usage(u, OUT_JSON);
	expect(out, "\"condvar\": null");
	expect(out, "\"condvar_served_by\": null");
	free(out);
	db_sleep_usage_free(u);
	/* a run whose workload made none: no section either */
	u = make_usage("timerfd", true);
	for (size_t i = 0; i < u->nthreads; i++)
		u->threads[i].cv_served = u->threads[i].cv_passed = 0;
	out = render_usage(u, OUT_TABLE);
	assert_null(strstr(out, "condvar"));
	free(out);
	db_sleep_usage_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sleep_report__table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_report__cheapest_says_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_report__json_keys_follow_the_contract, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_report__json_parses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_report__not_stored_and_unpinned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_report__markdown_and_csv, setup, teardown),
		cmocka_unit_test(test_sleep_report__usage_condvar_waits_apart),
		cmocka_unit_test(test_sleep_report__usage_before_condvars),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
