/*
 * End-to-end tests of `prof run --frames` / `--frame-regex` /
 * `--frame-symbol` and `prof report --frames`: the built prof against a
 * temporary database, on the real perf_event_open path (software
 * events). The workload is tests/helpers/frames: render presents a frame
 * every 5 ms (prof_frame() and a "frame N took X ms" line) and faults
 * 8 MiB every 10th frame.
 * Timing is left loose: the machine is shared (bench/frames is strict).
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

/* The number after key in s, or -1. */
static double json_num(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	return p ? atof(p + strlen(key)) : -1;
}

static void frames_json(struct tu_db *f, const char *run_id, struct tu_proc *p)
{
	char *rep[] = { PROF_BIN, f->dbarg, "report", (char *)run_id, "--frames",
			"--format", "json", NULL };
	*p = tu_run(rep, NULL);
	if (p->status)
		fprintf(stderr, "%s", p->err);
	assert_int_equal(p->status, 0);
}

static void test_frame_run__regex_and_markers_agree(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *run[] = { PROF_BIN, f->dbarg, "run", "-q", "-e",
			"task-clock,page-faults", "--frame-regex",
			"^frame [0-9]+ took", "--", HELPER, "100", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	/* The workload's output passes through whole and unchanged. */
	assert_non_null(strstr(p.out, "frame 1 took "));
	assert_non_null(strstr(p.out, "\nframe 100 took "));
	tu_proc_release(&p);

	/* 100 presents make 99 frames, whichever way they are seen. */
	frames_json(f, "last", &p);
	assert_non_null(strstr(p.out, "\"source\": \"regex\""));
	assert_true(json_num(p.out, "\"frames\": ") == 99);
	double p50 = json_num(p.out, "\"p50\": ");
	assert_true(p50 > 2.0 && p50 < 50.0);	/* 5 ms, loosely */
	assert_non_null(strstr(p.out, "\"long_frames\": "));
	assert_non_null(strstr(p.out, "{\"name\": \"render\", \"cpu_ms_per_frame\": "));
	tu_proc_release(&p);

	char *mk[] = { PROF_BIN, f->dbarg, "run", "-q", "-e",
		       "task-clock,page-faults", "--frames", "--", HELPER,
		       "100", NULL };
	p = tu_run(mk, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	frames_json(f, "last", &p);
	assert_non_null(strstr(p.out, "\"source\": \"marker\""));
	assert_true(json_num(p.out, "\"frames\": ") == 99);
	tu_proc_release(&p);

	/* Every format. */
	const char *fmts[] = { "table", "csv", "markdown" };
	for (size_t i = 0; i < 3; i++) {
		char *rep[] = { PROF_BIN, f->dbarg, "report", "last", "--frames",
				"--format", (char *)fmts[i], NULL };
		p = tu_run(rep, NULL);
		assert_int_equal(p.status, 0);
		assert_non_null(strstr(p.out, "render"));
		tu_proc_release(&p);
	}
}

/*
 * Issue 26: a workload whose stdout is buffered (stdio buffers a pipe
 * fully) delivers its lines in bursts, and its frames came out 0.00 ms
 * without a word. prof says so; and with a group in the regex, the
 * frame times are the ones the workload printed, whenever they arrive.
 */
static void test_frame_run__buffered_lines_are_said_and_a_group_times_them(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *run[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock", "--frame-regex",
			"^frame [0-9]+ took", "--", HELPER, "buffered", "100", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	if (!strstr(p.err, "frame lines reached prof together with the line before") ||
	    !strstr(p.err, "hint: flush each line"))
		fail_msg("no word of the bursts:\n%s", p.err);
	tu_proc_release(&p);
	frames_json(f, "last", &p);
	assert_non_null(strstr(p.out, "their frame times are the gaps between reads"));
	tu_proc_release(&p);

	char *grp[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock", "--frame-regex",
			"^frame [0-9]+ took ([0-9.]+) ms", "--", HELPER, "buffered", "100",
			NULL };
	p = tu_run(grp, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.err, "their frame times are the workload's own"));
	assert_null(strstr(p.err, "hint: flush each line"));
	tu_proc_release(&p);
	frames_json(f, "last", &p);
	assert_true(json_num(p.out, "\"frames\": ") == 99);
	double p50 = json_num(p.out, "\"p50\": ");
	if (!(p50 > 4.0 && p50 < 20.0))	/* 5 ms as printed, loosely */
		fail_msg("p50 %.3f ms:\n%s", p50, p.out);
	tu_proc_release(&p);
	char *tab[] = { PROF_BIN, f->dbarg, "report", "last", "--frames", NULL };
	p = tu_run(tab, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "(regex, times from its group)"));
	tu_proc_release(&p);

	/* A group that is no number (an alternation) leaves the times to
	 * when the lines arrived, and says so. */
	char *alt[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock", "--frame-regex",
			"^(frame|tick) [0-9]+ took", "--", HELPER, "20", NULL };
	p = tu_run(alt, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	frames_json(f, "last", &p);
	assert_non_null(strstr(p.out, "the regex's group was no number of milliseconds in "
			       "20 of 20 lines"));
	tu_proc_release(&p);
}

/* render's faults per frame: the slowest frames carry them (every 10th
 * frame faults 2,048 pages; the others a few). */
static void test_frame_run__faults_land_in_their_frames(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *run[] = { PROF_BIN, f->dbarg, "run", "-q", "-e",
			"task-clock,page-faults", "--frames", "--", HELPER,
			"100", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	/* Sum render's faults per frame: about 10 frames hold >= 2,000 each
	 * (frames 10, 20, ...), the rest almost none. */
	char *csv[] = { PROF_BIN, f->dbarg, "report", "last", "--frames", "--format",
			"json", NULL };
	p = tu_run(csv, NULL);
	assert_int_equal(p.status, 0);
	/* by_name: render's page faults per frame about 2048 * 10 / 99. */
	const char *r = strstr(p.out, "{\"name\": \"render\"");
	assert_non_null(r);
	double pf = json_num(r, "\"page-faults\": ");
	assert_true(pf > 150 && pf < 260);
	const char *w = strstr(p.out, "{\"name\": \"worker\"");
	assert_non_null(w);
	assert_true(json_num(w, "\"page-faults\": ") < 5);
	tu_proc_release(&p);
}

static void test_frame_run__a_regex_that_never_matches(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *run[] = { PROF_BIN, f->dbarg, "run", "-o", "/dev/null", "-e", "task-clock",
			"--frame-regex", "^no such line", "--", HELPER, "10", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);	/* the workload's status */
	assert_non_null(strstr(p.err, "warning: --frame-regex '^no such line' "
			       "matched no line of the workload's output: no "
			       "frames stored"));
	assert_non_null(strstr(p.out, "frame 10 took"));	/* still passed on */
	tu_proc_release(&p);
	/* -q prints nothing but errors: not this warning either. */
	char *quiet[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock",
			  "--frame-regex", "^no such line", "--", HELPER, "10", NULL };
	p = tu_run(quiet, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.err, "");
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "last", "--frames", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 2);	/* asked of a run that has none */
	assert_non_null(strstr(p.err, "has no frames: --frame-regex '^no such "
			       "line' matched no line of its output"));
	tu_proc_release(&p);
	/* The run itself is kept. */
	char *plain[] = { PROF_BIN, f->dbarg, "report", "last", NULL };
	p = tu_run(plain, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
}

static void test_frame_run__bad_regex_is_a_usage_error(void **state)
{
	struct tu_db *f = *state;
	char *run[] = { PROF_BIN, f->dbarg, "run", "--frame-regex", "([",
			"--", HELPER, "10", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "bad --frame-regex '(['"));
	assert_null(strstr(p.out, "frame 1 took"));	/* nothing ran */
	tu_proc_release(&p);
	/* prof record takes the same options, checked the same way. */
	char *rec[] = { PROF_BIN, f->dbarg, "record", "--frame-regex", "([",
			"--", HELPER, "10", NULL };
	p = tu_run(rec, NULL);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "error: bad --frame-regex '(['"));
	assert_non_null(strstr(p.err, "hint: run 'prof record --help'"));
	assert_null(strstr(p.out, "frame 1 took"));
	tu_proc_release(&p);
	/* An attached process's output was never prof's to read. */
	char *att[] = { PROF_BIN, f->dbarg, "record", "--frames", "-p", "1", NULL };
	p = tu_run(att, NULL);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "--frames, --frame-regex and --frame-symbol "
			       "apply to a launched command"));
	tu_proc_release(&p);
	/* Nothing was stored by any of them. */
	char *runs[] = { PROF_BIN, f->dbarg, "runs", NULL };
	p = tu_run(runs, NULL);
	assert_null(strstr(p.out, "record"));
	tu_proc_release(&p);
}

/* A uprobe on present_frame() sees every present, as the markers and
 * the printed lines do (all three sources in one run). */
static void test_frame_run__symbol_agrees(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *sym;
	assert_true(asprintf(&sym, "%s:present_frame", HELPER) > 0);
	char *run[] = { PROF_BIN, f->dbarg, "run", "-q", "-e",
			"task-clock,page-faults", "--frame-regex",
			"^frame [0-9]+ took", "--frame-symbol", sym, "--",
			HELPER, "100", NULL };
	struct tu_proc p = tu_run(run, NULL);
	if (p.status)
		fprintf(stderr, "%s", p.err);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "\nframe 100 took "));
	tu_proc_release(&p);
	frames_json(f, "last", &p);
	assert_non_null(strstr(p.out, "\"source\": \"symbol\""));
	assert_true(json_num(p.out, "\"frames\": ") == 99);
	tu_proc_release(&p);
	free(sym);
}

static void test_frame_run__unknown_symbol_lists_the_closest(void **state)
{
	struct tu_db *f = *state;
	char *sym;
	assert_true(asprintf(&sym, "%s:present_fram", HELPER) > 0);
	char *run[] = { PROF_BIN, f->dbarg, "run", "-q", "--frame-symbol", sym,
			"--", HELPER, "10", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_not_equal(p.status, 0);
	assert_non_null(strstr(p.err, "error: no function 'present_fram' in '"));
	assert_non_null(strstr(p.err, "hint: the closest names there: present_frame"));
	assert_null(strstr(p.out, "frame 1 took"));	/* nothing ran */
	tu_proc_release(&p);
	free(sym);
	char *bad[] = { PROF_BIN, f->dbarg, "run", "-q", "--frame-symbol",
			"no-colon", "--", HELPER, "10", NULL };
	p = tu_run(bad, NULL);
	assert_int_not_equal(p.status, 0);
	assert_non_null(strstr(p.err, "bad --frame-symbol 'no-colon'"));
	tu_proc_release(&p);
}

/* Markers prof could not store as they are are dropped as they come, and
 * the run says how many and why; what is kept reads back (issue 27: a
 * marker "F -5" after "F 1" made every report of the run refuse it). */
static void test_frame_run__bad_markers_are_dropped_and_noted(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *run[] = { PROF_BIN, f->dbarg, "run", "-o", "/dev/null", "-e",
			"task-clock", "--frames", "--", HELPER, "lines", "F 1",
			"F NOW", "F -5", "F 9223372036854775808", "F NOW-1000",
			"F NOW", "F NOW+3600000000000", "B NOW physics", "junk",
			"F NOW", NULL };
	struct tu_proc p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	const char *note = "6 frame markers dropped of 9: 1 not 'F <ns>', 2 "
			   "negative or past 2^63-1 ns, 1 before the run began, 1 "
			   "later than their arrival, 1 earlier than the marker before";
	assert_non_null(strstr(p.err, note));
	tu_proc_release(&p);
	frames_json(f, "last", &p);
	assert_true(json_num(p.out, "\"frames\": ") == 2);
	assert_true(json_num(p.out, "\"markers_dropped\": ") == 6);
	assert_non_null(strstr(p.out, note));
	/* Three markers at one time: no frame lasts an hour. */
	assert_true(json_num(p.out, "\"max\": ") == 0);
	tu_proc_release(&p);
	char *plain[] = { PROF_BIN, f->dbarg, "report", "last", "--frames", NULL };
	p = tu_run(plain, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, note));
	tu_proc_release(&p);
	char *html[] = { PROF_BIN, f->dbarg, "html", "last", "-o", "/dev/null", NULL };
	p = tu_run(html, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);

	/* Every marker dropped: no frames, and the report says why. */
	char *none[] = { PROF_BIN, f->dbarg, "run", "-o", "/dev/null", "-e",
			 "task-clock", "--frames", "--", HELPER, "lines", "F 1",
			 "F -5", NULL };
	p = tu_run(none, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.err, "warning: --frames: no marker was kept"));
	tu_proc_release(&p);
	p = tu_run(plain, NULL);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "has no frames: 2 frame markers dropped of 2"));
	tu_proc_release(&p);
	char *counts[] = { PROF_BIN, f->dbarg, "report", "last", NULL };
	p = tu_run(counts, NULL);
	assert_int_equal(p.status, 0);	/* the run's counts still read */
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_frame_run__regex_and_markers_agree,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_frame_run__buffered_lines_are_said_and_a_group_times_them,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_frame_run__faults_land_in_their_frames,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_frame_run__a_regex_that_never_matches,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_frame_run__bad_regex_is_a_usage_error,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_frame_run__symbol_agrees,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_frame_run__unknown_symbol_lists_the_closest,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_frame_run__bad_markers_are_dropped_and_noted,
						tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
