/*
 * End-to-end tests of `prof run -I MS` and `prof report --intervals`: the
 * built prof against a temporary database, on this machine's real
 * perf_event_open path (software events). The workload is
 * tests/helpers/frames: threads named render (faults a fresh 8 MiB buffer
 * every 10th frame) and worker (computes), and a main thread that waits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* The helper program these tests run. */
#define HELPER HELPERS_DIR "/frames"

#define MAXT 16

/* Per tid: the run's own count of each event, and the sum of its
 * intervals. */
struct tsum {
	long tid;
	char name[32];
	unsigned long long total[2], summed[2];
	int rows;
};

static struct tsum *find(struct tsum *t, int *n, long tid)
{
	for (int i = 0; i < *n; i++)
		if (t[i].tid == tid)
			return &t[i];
	if (*n == MAXT)
		return NULL;
	memset(&t[*n], 0, sizeof(t[*n]));
	t[*n].tid = tid;
	return &t[(*n)++];
}

static void test_interval_run__every_thread_sums_to_its_own_counts(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *run[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock,page-faults",
			"-I", "20", "--", HELPER, "60", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	/* The compact timeline, per thread name. */
	/* What the run said, when a name is missing: the one failure on
	 * record (CI) showed no more than the assertion. */
	if (!strstr(p.err, "  render  ") || !strstr(p.err, "  worker  "))
		fprintf(stderr, "prof run said:\n%s", p.err);
	assert_non_null(strstr(p.err, "Timeline, every 20 ms"));
	assert_non_null(strstr(p.err, "  render  "));
	assert_non_null(strstr(p.err, "  worker  "));
	tu_proc_release(&p);

	struct tsum t[MAXT];
	int n = 0;
	char *counts[] = { PROF_BIN, f->dbarg, "report", "--format", "csv", NULL };
	p = tu_run(counts, NULL);
	assert_int_equal(p.status, 0);
	for (char *line = strtok(p.out, "\n"); line; line = strtok(NULL, "\n")) {
		long run_id, tid;
		char name[32], ev[32];
		unsigned long long v;
		if (sscanf(line, "%ld,%ld,%31[^,],%31[^,],%llu", &run_id, &tid,
			   name, ev, &v) != 5)
			continue;
		struct tsum *s = find(t, &n, tid);
		assert_non_null(s);
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->total[strcmp(ev, "task-clock") ? 1 : 0] = v;
	}
	tu_proc_release(&p);
	assert_int_equal(n, 3);	/* main, render, worker */

	char *ivs[] = { PROF_BIN, f->dbarg, "report", "--intervals", "--format",
			"csv", NULL };
	p = tu_run(ivs, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "t_ms,tid,name,values.task-clock,"
			       "values.page-faults\n"));
	for (char *line = strtok(p.out, "\n"); line; line = strtok(NULL, "\n")) {
		long tms, tid;
		char name[32];
		unsigned long long clk, pf;
		if (sscanf(line, "%ld,%ld,%31[^,],%llu,%llu", &tms, &tid, name,
			   &clk, &pf) != 5)
			continue;
		assert_int_equal(tms % 20, 0);
		struct tsum *s = find(t, &n, tid);
		assert_non_null(s);
		s->summed[0] += clk;
		s->summed[1] += pf;
		s->rows++;
	}
	tu_proc_release(&p);
	assert_int_equal(n, 3);	/* no thread the run does not have */
	const struct tsum *render = NULL, *worker = NULL;
	for (int i = 0; i < n; i++) {
		/* Every thread has rows, and they sum to its own counts: a
		 * tick that read the process's values instead of the
		 * thread's would have given worker render's faults. */
		assert_true(t[i].rows > 0);
		assert_true(t[i].summed[0] == t[i].total[0]);
		assert_true(t[i].summed[1] == t[i].total[1]);
		if (!strcmp(t[i].name, "render"))
			render = &t[i];
		if (!strcmp(t[i].name, "worker"))
			worker = &t[i];
	}
	assert_non_null(render);
	assert_non_null(worker);
	/* 60 frames of 5 ms: about 15 intervals of 20 ms. */
	assert_true(render->rows >= 8);
	/* Six 8 MiB buffers: 12,288 faults at 4 KiB pages (fewer with
	 * large pages), all render's own. */
	assert_true(render->total[1] > 1000);
	assert_true(worker->total[1] * 20 < render->total[1]);
}

static void test_interval_run__json_keys(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *run[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock",
			"--interval", "50", "--", HELPER, "20", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *ivs[] = { PROF_BIN, f->dbarg, "report", "last", "--intervals",
			"--format", "json", NULL };
	p = tu_run(ivs, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "\"interval_ms\": 50,"));
	assert_non_null(strstr(p.out, "\"intervals\": ["));
	/* Which thread comes first, and from when, is the scheduler's. */
	const char *row = strstr(p.out, "{\"t_ms\": ");
	assert_non_null(row);
	row += strlen("{\"t_ms\": ");
	while (*row >= '0' && *row <= '9')
		row++;
	assert_true(strncmp(row, ", \"tid\": ", 9) == 0);
	assert_non_null(strstr(p.out, "\"name\": \"render\", \"values\": "
			       "{\"task-clock\": "));
	tu_proc_release(&p);
}

/* A thread that sleeps costs no rows: only the intervals in which its
 * counters moved are stored (issue 27: -I 10 with 65 threads grew the
 * database 15 MB in 20 s, half of it intervals of zeros). */
static void test_interval_run__a_sleeping_thread_stores_no_zeros(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *run[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock", "-I", "10",
			"--", "sleep", "0.5", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	/* The compact timeline still spans the run, its idle intervals 0. */
	assert_non_null(strstr(p.err, "Timeline, every 10 ms"));
	assert_non_null(strstr(p.err, "  0.00  "));
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "last", "--intervals",
			"--format", "json", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	int rows = 0;
	for (const char *q = p.out; (q = strstr(q, "\"t_ms\": ")); q++)
		rows++;
	/* 50 intervals of 10 ms; the thread ran in the first and the last
	 * (a few more on a loaded machine), and was stored in each before. */
	assert_true(rows >= 1 && rows <= 10);
	assert_null(strstr(p.out, "{\"task-clock\": 0}"));
	tu_proc_release(&p);
	char *svg[] = { PROF_BIN, f->dbarg, "report", "last", "--intervals",
			"--format", "svg", NULL };
	p = tu_run(svg, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "</svg>"));
	tu_proc_release(&p);
}

/*
 * A thread that runs without a switch is still read at the tick: one
 * busy thread's task-clock per 20 ms interval is never more than the
 * interval (its time lands in the interval it ran in, not in the one of
 * its next switch). Counted per CPU, the ticks once went to no buffer
 * (a group member's samples need a SET_OUTPUT of their own), and a busy
 * interval held 44-56 ms.
 */
static void test_interval_run__a_busy_thread_is_read_at_each_tick(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *run[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock", "-I", "20",
			"--", HELPERS_DIR "/phases", "100", "100", "300", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "last", "--intervals",
			"--format", "csv", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	int rows = 0;
	double most = 0;
	for (const char *l = strchr(p.out, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
		const char *e = strchr(l + 1, '\n');
		size_t len = e ? (size_t)(e - l - 1) : strlen(l + 1);
		const char *c = memrchr(l + 1, ',', len);
		if (!c)
			continue;
		double v = strtod(c + 1, NULL);
		most = v > most ? v : most;
		rows++;
	}
	fprintf(stderr, "busy thread: %d intervals of 20 ms, the fullest %.2f ms\n",
		rows, most / 1e6);
	assert_true(rows >= 20);
	/* a tick's granularity at each edge: 1 ms here, up to 14 ms in a
	 * QEMU (TCG) guest of 6.1, whose timers run late (33.99 ms seen in
	 * CI); a dropped tick puts two intervals in one, 40 ms and more
	 * (44-56 ms seen) */
	assert_true(most < 40e6);
	tu_proc_release(&p);
}

static void test_interval_run__bad_input(void **state)
{
	struct tu_db *f = *state;
	/* Below 10 ms: a usage error, nothing run or stored. */
	char *low[] = { PROF_BIN, f->dbarg, "run", "-I", "5", "--", "/bin/true", NULL };
	struct tu_proc p = tu_run(low, NULL);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "10 or more"));
	tu_proc_release(&p);
	char *word[] = { PROF_BIN, f->dbarg, "run", "-I", "fast", "--", "/bin/true", NULL };
	p = tu_run(word, NULL);
	assert_int_equal(p.status, 2);
	tu_proc_release(&p);
	if (!tu_perf_allowed(f->dbarg))
		skip();
	/* Longer than the run: a note, and the one interval holds it all. */
	char *lng[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock",
			"-I", "60000", "--", "/bin/true", NULL };
	p = tu_run(lng, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.err, "note: -I 60000 is longer than the run"));
	tu_proc_release(&p);
	/* Not under -q, which leaves errors alone, nor in a JSON document
	 * on stderr, where a script reads nothing else. */
	char *lngq[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock",
			 "-I", "60000", "--", "/bin/true", NULL };
	p = tu_run(lngq, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.err, "");
	tu_proc_release(&p);
	char *lngj[] = { PROF_BIN, f->dbarg, "run", "--format", "json", "-e", "task-clock",
			 "-I", "60000", "--", "/bin/true", NULL };
	p = tu_run(lngj, NULL);
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.err, "note:"));
	assert_true(p.err[0] == '{');
	assert_string_equal(p.err + strlen(p.err) - 2, "}\n");
	tu_proc_release(&p);
	/* A run without -I has no intervals to report. */
	char *plain[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock",
			  "--", "/bin/true", NULL };
	p = tu_run(plain, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "--intervals", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 2);	/* asked of a run that has none */
	assert_non_null(strstr(p.err, "has no intervals: it was not run with -I MS"));
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_run__every_thread_sums_to_its_own_counts),
		cmocka_unit_test(test_interval_run__json_keys),
		cmocka_unit_test(test_interval_run__a_sleeping_thread_stores_no_zeros),
		cmocka_unit_test(test_interval_run__a_busy_thread_is_read_at_each_tick),
		cmocka_unit_test(test_interval_run__bad_input),
	};
	return cmocka_run_group_tests(tests, tu_db_setup, tu_db_teardown);
}
