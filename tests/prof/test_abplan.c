/*
 * Tests for prof/abplan: arms, settings, scores, plan files, the round
 * orders, and every bad input `prof ab` must refuse before running.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "db/experiments.h"
#include "prof/abplan.h"
#include "test_util.h"

/* Run a call that must be refused: call uses `cause`, declared here. */
#define REFUSED(call, needle) do { \
		char *cause = NULL; \
		int rc_ = (call); \
		refused(rc_, cause, needle); \
	} while (0)

static void refused(int rc, char *cause, const char *needle)
{
	assert_int_equal(rc, -EINVAL);
	assert_non_null(cause);
	if (!strstr(cause, needle))
		fail_msg("expected '%s' in '%s'", needle, cause);
	free(cause);
}

static void test_abplan__arms_and_settings(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	assert_int_equal(ab_plan_add_arm(&p, "c=./emu --backend c", NULL), 0);
	assert_int_equal(ab_plan_add_arm(&p, "llvm=sh -c 'exec ./emu --backend llvm'", NULL), 0);
	assert_int_equal(p.narms, 2);
	assert_int_equal(p.arms[1].argc, 3);
	assert_string_equal(p.arms[1].argv[2], "exec ./emu --backend llvm");
	assert_int_equal(ab_plan_set(&p, "pin=largest-llc", NULL), 0);
	assert_int_equal(ab_plan_set(&p, "llvm.pin=none", NULL), 0);
	assert_int_equal(ab_plan_set(&p, "env.MODE=fast", NULL), 0);
	assert_int_equal(ab_plan_set(&p, "c.env.MODE=slow", NULL), 0);
	assert_int_equal(ab_plan_set(&p, "c.cwd=/tmp", NULL), 0);
	assert_string_equal(ab_plan_get(&p, 0, "pin"), "largest-llc");
	assert_string_equal(ab_plan_get(&p, 1, "pin"), "none");
	assert_string_equal(ab_plan_get(&p, 0, "env.MODE"), "slow");
	assert_string_equal(ab_plan_get(&p, 1, "env.MODE"), "fast");
	assert_null(ab_plan_get(&p, 1, "cwd"));
	assert_int_equal(ab_plan_check(&p, NULL), 0);
	/* What runs: sh -c COMMAND, or with -N the words themselves. */
	int argc;
	char **argv = ab_plan_exec_argv(&p, 0, &argc);
	assert_int_equal(argc, 3);
	assert_string_equal(argv[0], "/bin/sh");
	assert_string_equal(argv[1], "-c");
	assert_string_equal(argv[2], "./emu --backend c");
	assert_null(argv[3]);
	p.no_shell = true;
	argv = ab_plan_exec_argv(&p, 0, &argc);
	assert_int_equal(argc, 3);
	assert_string_equal(argv[0], "./emu");
	assert_string_equal(argv[2], "c");
	assert_null(argv[3]);
	ab_plan_release(&p);
}

static void test_abplan__bad_arms_and_settings_are_refused(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	REFUSED(ab_plan_add_arm(&p, "fast=", &cause), "has no command");
	REFUSED(ab_plan_add_arm(&p, "fast", &cause), "expected NAME=COMMAND");
	REFUSED(ab_plan_add_arm(&p, "=sleep 1", &cause), "bad arm name");
	REFUSED(ab_plan_add_arm(&p, "a b=sleep 1", &cause), "bad arm name");
	assert_int_equal(ab_plan_add_arm(&p, "fast=sleep 1", NULL), 0);
	REFUSED(ab_plan_add_arm(&p, "fast=sleep 2", &cause), "given twice");
	REFUSED(ab_plan_add_arm(&p, "q=echo 'oops", &cause), "quote is not closed");
	/* One arm only. */
	REFUSED(ab_plan_check(&p, &cause), "only one arm");
	REFUSED(ab_plan_set(&p, "slow.pin=none", &cause), "not one of the arms");
	REFUSED(ab_plan_set(&p, "fast.colour=red", &cause), "unknown setting 'colour'");
	REFUSED(ab_plan_set(&p, "nokey", &cause), "expected [ARM.]KEY=VALUE");
	REFUSED(ab_plan_add_score(&p, "fps=([0-9", &cause), "does not compile");
	REFUSED(ab_plan_set_order(&p, "zigzag", &cause), "unknown order");
	assert_int_equal(ab_plan_add_arm(&p, "slow=sleep 2", NULL), 0);
	ab_plan_add_per(&p, "frames", NULL);
	REFUSED(ab_plan_check(&p, &cause), "--per frames names no score");
	ab_plan_release(&p);

	ab_plan_init(&p);
	REFUSED(ab_plan_check(&p, &cause), "no arms");
	ab_plan_release(&p);
}

/* prepare and cleanup: every arm's, an arm's own winning; from a plan
 * file too (the key before any section, and in one). */
static void test_abplan__prepare_and_cleanup_per_arm(void **state)
{
	(void)state;
	static const char text[] =
		"prepare = rm -rf obj\n"
		"cleanup = echo done\n"
		"[arm j8]\ncommand = make -j8\n"
		"[arm j16]\ncommand = make -j16\nprepare = rm -rf obj16\n";
	struct ab_plan p;
	ab_plan_init(&p);
	char *cause = NULL;
	FILE *fp = fmemopen((void *)text, sizeof(text) - 1, "r");
	assert_non_null(fp);
	if (ab_plan_read_file(&p, fp, "<plan>", &cause))
		fail_msg("%s", cause);
	fclose(fp);
	assert_string_equal(ab_plan_get(&p, 0, "prepare"), "rm -rf obj");
	assert_string_equal(ab_plan_get(&p, 1, "prepare"), "rm -rf obj16");
	assert_string_equal(ab_plan_get(&p, 1, "cleanup"), "echo done");
	assert_int_equal(ab_plan_set(&p, "j8.prepare=a=b; true", &cause), 0);
	assert_string_equal(ab_plan_get(&p, 0, "prepare"), "a=b; true");
	ab_plan_release(&p);
}

/* "window = START:END" in a plan is --window: checked as prof run checks
 * it; frame:N:M wants a frame source. */
static void test_abplan__window(void **state)
{
	(void)state;
	static const char text[] =
		"window = 40:70\n"
		"[arm a]\ncommand = true\n[arm b]\ncommand = false\n";
	struct ab_plan p;
	ab_plan_init(&p);
	char *cause = NULL;
	FILE *fp = fmemopen((void *)text, sizeof(text) - 1, "r");
	assert_non_null(fp);
	if (ab_plan_read_file(&p, fp, "<plan>", &cause))
		fail_msg("%s", cause);
	fclose(fp);
	assert_string_equal(p.window, "40:70");
	assert_true(p.win.start_s == 40 && p.win.end_s == 70 && !p.win.last_frame);
	assert_int_equal(ab_plan_check(&p, &cause), 0);
	assert_int_equal(ab_plan_set_window(&p, "70:40", &cause), -EINVAL);
	assert_non_null(strstr(cause, "0 <= START < END"));
	free(cause);
	cause = NULL;
	assert_string_equal(p.window, "40:70");
	/* frames N to M need a frame source */
	assert_int_equal(ab_plan_set_window(&p, "frame:10:20", &cause), 0);
	assert_true(p.win.first_frame == 10 && p.win.last_frame == 20);
	assert_int_equal(ab_plan_check(&p, &cause), -EINVAL);
	assert_non_null(strstr(cause, "counts frames: give --frames"));
	free(cause);
	cause = NULL;
	assert_int_equal(ab_plan_set_frames(&p, "frame-regex", "^frame", &cause), 0);
	assert_int_equal(ab_plan_check(&p, &cause), 0);
	ab_plan_release(&p);
}

static void order_of(struct ab_plan *p, int r, char *out)
{
	size_t o[8];
	ab_plan_order(p, r, o);
	for (size_t i = 0; i < p->narms; i++)
		out[i] = (char)('A' + o[i]);
	out[p->narms] = '\0';
}

static void test_abplan__orders(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	ab_plan_add_arm(&p, "a=true", NULL);
	ab_plan_add_arm(&p, "b=true", NULL);
	char s[8];
	const char *abba[] = { "AB", "BA", "AB", "BA" };
	for (int r = 0; r < 4; r++) {
		order_of(&p, r, s);
		assert_string_equal(s, abba[r]);
	}
	ab_plan_set_order(&p, "alternate", NULL);
	for (int r = 0; r < 4; r++) {
		order_of(&p, r, s);
		assert_string_equal(s, "AB");
	}
	ab_plan_add_arm(&p, "c=true", NULL);
	ab_plan_set_order(&p, "abba", NULL);
	order_of(&p, 0, s);
	assert_string_equal(s, "ABC");
	order_of(&p, 1, s);
	assert_string_equal(s, "CBA");
	/* random: a permutation, the same for the same seed, and not always
	 * the identity over 20 rounds. */
	ab_plan_set_order(&p, "random", NULL);
	p.seed = 7;
	int moved = 0;
	for (int r = 0; r < 20; r++) {
		order_of(&p, r, s);
		assert_non_null(strchr(s, 'A'));
		assert_non_null(strchr(s, 'B'));
		assert_non_null(strchr(s, 'C'));
		char again[8];
		order_of(&p, r, again);
		assert_string_equal(s, again);
		moved += strcmp(s, "ABC") != 0;
	}
	assert_true(moved > 5);
	ab_plan_release(&p);
}

static void test_abplan__scores_take_the_last_match(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	assert_int_equal(ab_plan_add_score(&p, "fps=([0-9.]+) fps:higher", NULL), 0);
	assert_int_equal(ab_plan_add_score(&p, "frames=frames=([0-9]+)", NULL), 0);
	assert_true(p.scores[0].higher_is_better);
	assert_false(p.scores[1].higher_is_better);
	double v;
	assert_int_equal(ab_score_find(&p.scores[0], "warming up 12.5 fps\nsteady 59.94 fps\n", &v), 0);
	assert_float_equal(v, 59.94, 1e-12);
	assert_int_equal(ab_score_find(&p.scores[1], "frames=1200 done", &v), 0);
	assert_float_equal(v, 1200, 0);
	assert_int_equal(ab_score_find(&p.scores[0], "no rate here", &v), -ENOENT);
	REFUSED(ab_plan_add_score(&p, "fps=x", &cause), "given twice");
	ab_plan_release(&p);
}

/*
 * NAME=REGEX:AGG: every match of the searched output, hand-computed. The
 * values 4, 1, 9, 16 and a match that is no number ("fast"): nearest
 * rank p50 is the ceil(0.5 * 4) = 2nd smallest, 4; p99 the ceil(3.96) =
 * 4th, 16; the mean 30 / 4 = 7.5; the largest 16; five lines matched.
 * Without a suffix the last number, as before.
 */
static void test_abplan__score_aggregates_over_every_match(void **state)
{
	(void)state;
	static const char out[] = "start\ntook 4 ms\ntook 1 ms\nnoise 99\n"
				  "took fast ms\ntook 9 ms\ntook 16 ms\ndone\n";
	static const struct {
		const char *spec, *name;
		enum ab_score_agg agg;
		double want;
	} cases[] = {
		{ "t=took ([^ ]+) ms", "t", AB_AGG_LAST, 16 },
		{ "t=took ([^ ]+) ms:p99", "t:p99", AB_AGG_P99, 16 },
		{ "t=took ([^ ]+) ms:p50", "t:p50", AB_AGG_P50, 4 },
		{ "t=took ([^ ]+) ms:mean", "t:mean", AB_AGG_MEAN, 7.5 },
		{ "t=took ([^ ]+) ms:max", "t:max", AB_AGG_MAX, 16 },
		{ "t=took ([^ ]+) ms:matches", "t:matches", AB_AGG_MATCHES, 5 },
	};
	struct ab_plan p;
	ab_plan_init(&p);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *cause = NULL;
		if (ab_plan_add_score(&p, cases[i].spec, &cause))
			fail_msg("%s: %s", cases[i].spec, cause);
		const struct ab_score *sc = &p.scores[i];
		assert_string_equal(sc->name, cases[i].name);
		assert_string_equal(sc->pattern, "took ([^ ]+) ms");
		assert_int_equal(sc->agg, cases[i].agg);
		double v = -1;
		assert_int_equal(ab_score_find(sc, out, &v), 0);
		if (v != cases[i].want)
			fail_msg("%s: %g, not %g", cases[i].spec, v, cases[i].want);
		/* The stored spec reads back with its aggregator. */
		char *spec = ab_score_spec(sc);
		struct ab_score_flags f;
		ab_score_flags_of(spec, NULL, &f);
		assert_int_equal(f.agg, cases[i].agg);
		assert_int_equal(strncmp(spec, cases[i].name, strlen(cases[i].name)), 0);
		free(spec);
	}
	/* 1..200 in a shuffled order (i * 7 mod 200): p99 is the 198th. */
	char *big = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&big, &len);
	for (int i = 0; i < 200; i++)
		fprintf(fp, "took %d ms\n", i * 7 % 200 + 1);
	fclose(fp);
	double v;
	assert_int_equal(ab_score_find(&p.scores[1], big, &v), 0);
	assert_float_equal(v, 198, 0);
	assert_int_equal(ab_score_find(&p.scores[2], big, &v), 0);
	assert_float_equal(v, 100, 0);
	assert_int_equal(ab_score_find(&p.scores[3], big, &v), 0);
	assert_float_equal(v, 100.5, 1e-12);
	assert_int_equal(ab_score_find(&p.scores[0], big, &v), 0);
	assert_float_equal(v, 194, 0);	/* the last line: 199 * 7 % 200 + 1 */
	free(big);
	/* No match: -ENOENT, but as a run's score a count of none is 0;
	 * stderr is read when stdout has nothing. */
	assert_int_equal(ab_score_find(&p.scores[5], "nothing\n", &v), -ENOENT);
	struct db_run run;
	memset(&run, 0, sizeof(run));
	assert_int_equal(ab_score_measure(&p.scores[5], "nothing\n", "", &run, &v), 0);
	assert_float_equal(v, 0, 0);
	assert_int_equal(ab_score_measure(&p.scores[3], "", "took 2 ms\ntook 3 ms\n",
					  &run, &v), 0);
	assert_float_equal(v, 2.5, 1e-12);
	assert_int_equal(ab_score_measure(&p.scores[3], "", "", &run, &v), -ENOENT);
	double vals[] = { 3, 1, 2 };
	assert_float_equal(ab_score_aggregate(AB_AGG_P50, vals, 3), 2, 0);
	REFUSED(ab_plan_add_score(&p, "t=took ([^ ]+) ms:p99", &cause),
		"score 't:p99' is given twice");
	ab_plan_release(&p);
}

/* Only a trailing aggregator word is one: a ':' elsewhere is the
 * regex's, and "[:]max" keeps a regex that ends in ":max". */
static void test_abplan__score_regex_may_hold_colons(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	assert_int_equal(ab_plan_add_score(&p, "lat=latency: ([0-9]+) us", NULL), 0);
	assert_int_equal(ab_plan_add_score(&p, "lat=latency: ([0-9]+):max", NULL), 0);
	assert_int_equal(ab_plan_add_score(&p, "m=a:p99 ([0-9]+)[:]max", NULL), 0);
	assert_int_equal(ab_plan_add_score(&p, "h=x ([0-9]+):higher:p99", NULL), 0);
	assert_int_equal(ab_plan_add_score(&p, "fps=([0-9]+) fps:mean", NULL), 0);
	assert_string_equal(p.scores[0].name, "lat");
	assert_string_equal(p.scores[0].pattern, "latency: ([0-9]+) us");
	assert_int_equal(p.scores[0].agg, AB_AGG_LAST);
	assert_string_equal(p.scores[1].name, "lat:max");
	assert_string_equal(p.scores[1].pattern, "latency: ([0-9]+)");
	assert_string_equal(p.scores[2].name, "m");
	assert_string_equal(p.scores[2].pattern, "a:p99 ([0-9]+)[:]max");
	assert_string_equal(p.scores[3].name, "h:p99");
	assert_true(p.scores[3].higher_is_better);
	double v;
	assert_int_equal(ab_score_find(&p.scores[1], "latency: 7\nlatency: 3\n", &v), 0);
	assert_float_equal(v, 7, 0);
	assert_int_equal(ab_score_find(&p.scores[2], "a:p99 12:max\n", &v), 0);
	assert_float_equal(v, 12, 0);
	/* An average of a rate is still a rate: --per refuses it bare. */
	struct ab_score_flags f = { .agg = AB_AGG_MEAN, .naggs = 1 };
	assert_true(ab_score_is_rate("fps:mean", &f));
	f.agg = AB_AGG_MATCHES;
	assert_false(ab_score_is_rate("fps:matches", &f));
	assert_int_equal(ab_plan_add_per(&p, "fps:mean", NULL), 0);
	assert_int_equal(ab_plan_add_arm(&p, "a=true", NULL), 0);
	assert_int_equal(ab_plan_add_arm(&p, "b=true", NULL), 0);
	REFUSED(ab_plan_check(&p, &cause), "'fps:mean' is a rate");
	REFUSED(ab_plan_add_score(&p, "z=a([0-9]+):p99:max", &cause), "2 aggregators");
	ab_plan_release(&p);
}

/* frame:p99, frame:p50, frame:long: read from a run's frames (here 1 to
 * 100 ms: p99 99 ms, p50 50 ms, 50 frames over a 50 ms budget), and
 * refused without a frame method to find them. */
static void test_abplan__frame_scores(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	assert_int_equal(ab_plan_add_score(&p, "frame:p99", NULL), 0);
	assert_int_equal(ab_plan_add_score(&p, "frame:p50", NULL), 0);
	assert_int_equal(ab_plan_add_score(&p, "frame:long", NULL), 0);
	assert_string_equal(p.scores[0].name, "frame_p99_ms");
	assert_string_equal(p.scores[1].name, "frame_p50_ms");
	assert_string_equal(p.scores[2].name, "long_frames");
	assert_int_equal(p.scores[2].kind, AB_SCORE_FRAME_LONG);
	REFUSED(ab_plan_add_score(&p, "frame:p42", &cause),
		"unknown frame score 'frame:p42': expected frame:p99, frame:p50 or "
		"frame:long");
	REFUSED(ab_plan_add_score(&p, "frame:", &cause), "unknown frame score");
	REFUSED(ab_plan_add_score(&p, "frame:p99", &cause), "given twice");
	REFUSED(ab_plan_add_score(&p, "frame", &cause), "or frame:p99");
	assert_int_equal(p.nscores, 3);
	char *spec = ab_score_spec(&p.scores[0]);
	assert_string_equal(spec, "frame_p99_ms=frame:p99");
	free(spec);

	assert_int_equal(ab_plan_add_arm(&p, "a=true", NULL), 0);
	assert_int_equal(ab_plan_add_arm(&p, "b=true", NULL), 0);
	REFUSED(ab_plan_check(&p, &cause), "--score frame:p99 needs --frame-regex, "
		"--frame-symbol or --frames");
	REFUSED(ab_plan_set_frames(&p, "frame-regex", "(", &cause), "bad --frame-regex");
	REFUSED(ab_plan_set_frames(&p, "frame-symbol", "present", &cause),
		"expected MODULE:SYMBOL");
	REFUSED(ab_plan_set_frames(&p, "budget", "0", &cause), "bad --budget");
	REFUSED(ab_plan_set_frames(&p, "frames", "maybe", &cause), "bad frames");
	assert_false(ab_plan_has_frames(&p));
	assert_int_equal(ab_plan_set_frames(&p, "frame-regex", "^frame [0-9]+", NULL), 0);
	assert_int_equal(ab_plan_check(&p, NULL), 0);

	struct db_run run;
	memset(&run, 0, sizeof(run));
	double v;
	assert_int_equal(ab_score_measure(&p.scores[0], "", "", &run, &v), -ENOENT);
	struct db_frame_span fr[100];
	for (int i = 0; i < 100; i++)
		fr[i] = (struct db_frame_span){ (int64_t)i * 1000000000, (i * 37 % 100 + 1)
						* 1000000 };
	run.frames = fr;
	run.nframes = 100;
	db_set_f64(&run, SET_FRAME_BUDGET_MS, 50);
	assert_int_equal(ab_score_measure(&p.scores[0], "", "", &run, &v), 0);
	assert_float_equal(v, 99, 1e-9);
	assert_int_equal(ab_score_measure(&p.scores[1], "", "", &run, &v), 0);
	assert_float_equal(v, 50, 1e-9);
	assert_int_equal(ab_score_measure(&p.scores[2], "", "", &run, &v), 0);
	assert_float_equal(v, 50, 0);
	run.frames = NULL;
	run.nframes = 0;
	db_run_release(&run);
	ab_plan_release(&p);

	/* The same from a plan file. */
	static const char text[] = "score = frame:long\nframes = yes\nbudget = 8\n"
				   "frame-regex = ^frame\n[arm a]\ncommand = true\n"
				   "[arm b]\ncommand = true\n";
	FILE *fp = fmemopen((void *)text, sizeof(text) - 1, "r");
	ab_plan_init(&p);
	char *cause = NULL;
	if (ab_plan_read_file(&p, fp, "<plan>", &cause))
		fail_msg("%s", cause);
	fclose(fp);
	assert_true(p.frames);
	assert_float_equal(p.budget_ms, 8, 0);
	assert_string_equal(p.frame_regex, "^frame");
	assert_int_equal(ab_plan_check(&p, NULL), 0);
	ab_plan_release(&p);
}

static int refuse_each(void)
{
	static const struct {
		const char *spec, *needle;
	} cases[] = {
		/* The case: 12.5 GB and 44 s in regcomp before. */
		{ "x=b++++++++++++++++++++++++", "stacked repetitions" },
		{ "x=b{1,}{1,}{1,}{1,}{1,}{1,}{1,}{1,}{1,}{1,}{1,}{1,}{1,}{1,}{1,}{1,}"
		  "{1,}{1,}{1,}{1,}{1,}{1,}", "stacked repetitions" },
		/* Compiles small, then matched for minutes. */
		{ "x=b++?+?+?+?+?+?+?+?+?+", "stacked repetitions" },
		{ "x=([0-9]+)?? fps", "stacked repetitions" },
		{ "x=(b+)+", "nested repetitions" },
		{ "x=((b{1,9}c)d){2}", "nested repetitions" },
		{ "x=([0-9]+|n)* fps", "nested repetitions" },
		{ "x=[0-9]{1000}", "more than 255 times" },
		{ "x=(ab){3,300}", "more than 255 times" },
		{ "x=[0-9]{200}[0-9]{200}[0-9]{200}[0-9]{200}[0-9]{200}[0-9]{200}",
		  "more than 1000 pieces" },
		{ "x=a{2,1}", "is not a repetition" },
		{ "x=a{", "is not a repetition" },
		{ "x=*a", "repeats nothing" },
		{ "x=(+a)", "repeats nothing" },
		{ "x=^*", "repeats nothing" },
		{ "x=(a)\\1", "back-reference" },
		/* Quadratic on long output before: a match at every byte. */
		{ "x=[0-9]*", "can match the empty string" },
		{ "x=([0-9]*)", "can match the empty string" },
		{ "x=fps|", "can match the empty string" },
		{ "x=(|[0-9]+)", "can match the empty string" },
		{ "x=^", "can match the empty string" },
		{ "x=()", "can match the empty string" },
		{ "x=(a?)(b*)", "can match the empty string" },
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ab_plan p;
		ab_plan_init(&p);
		char *cause = NULL;
		int rc = ab_plan_add_score(&p, cases[i].spec, &cause);
		if (rc != -EINVAL || !cause || !strstr(cause, cases[i].needle)) {
			fprintf(stderr, "%s: rc %d, cause '%s', expected '%s'\n",
				cases[i].spec, rc, cause ? cause : "(none)", cases[i].needle);
			bad++;
		} else if (p.nscores != 0) {
			fprintf(stderr, "%s: refused but kept\n", cases[i].spec);
			bad++;
		}
		free(cause);
		ab_plan_release(&p);
	}
	/* A pattern of more than AB_SCORE_PATTERN_MAX bytes. */
	char long_spec[AB_SCORE_PATTERN_MAX + 16] = "x=";
	memset(long_spec + 2, 'a', AB_SCORE_PATTERN_MAX + 1);
	struct ab_plan p;
	ab_plan_init(&p);
	char *cause = NULL;
	if (ab_plan_add_score(&p, long_spec, &cause) != -EINVAL || !cause ||
	    !strstr(cause, "more than 256")) {
		fprintf(stderr, "long pattern: '%s'\n", cause ? cause : "(none)");
		bad++;
	}
	free(cause);
	ab_plan_release(&p);
	return bad;
}

static void test_abplan__score_regexes_that_blow_up_are_refused(void **state)
{
	(void)state;
	/* bounded: a pattern that still blew up (as `b` and 24 `+` did:
	 * 12.5 GB) fails here instead of taking the machine down */
	tu_assert_in_child(refuse_each, 512, 20);
}

static void test_abplan__score_regexes_within_bounds_are_kept(void **state)
{
	(void)state;
	static const char *const ok[] = {
		"a=([0-9.]+) fps", "b=^fps: ([0-9]+)$", "c=(x[0-9]+)? ([0-9]+) ms",
		"d=([0-9]{1,3}(,[0-9]{3})?) items", "e=[[:digit:]]+\\.[0-9]*",
		"f=(frames|ticks)=([0-9]+)", "g=a{,3}b", "h=[]x]+", "i=\\(([0-9]+)\\)",
		"j=(a?)+b", "k=took [0-9]{255}",
	};
	struct ab_plan p;
	ab_plan_init(&p);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char *cause = NULL;
		if (ab_plan_add_score(&p, ok[i], &cause))
			fail_msg("%s: %s", ok[i], cause);
	}
	ab_plan_release(&p);
}

/*
 * CPU seconds used by this process and its reaped children since t0 (a
 * cpu_now() value): a bound on work done, which a loaded machine (CI, or
 * a parallel ctest) does not stretch the way it stretches wall time.
 */
static double cpu_now(void)
{
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec +
			kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) +
	       (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec +
			kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
}

static double elapsed_since(const double *t0)
{
	return cpu_now() - *t0;
}

/* A text of n bytes repeating unit, then tail. */
static char *repeat(const char *unit, size_t n, const char *tail)
{
	size_t u = strlen(unit), t = strlen(tail);
	char *s = malloc(n + t + 1);
	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		s[i] = unit[i % u];
	memcpy(s + n, tail, t + 1);
	return s;
}

static int search_each(void)
{
	int bad = 0;
	struct ab_plan p;
	ab_plan_init(&p);
	if (ab_plan_add_score(&p, "fps=([0-9.]+) fps", NULL) ||
	    ab_plan_add_score(&p, "line=^fps: ([0-9]+)$", NULL) ||
	    ab_plan_add_score(&p, "far=a.*z", NULL) ||
	    ab_plan_add_score(&p, "dfa=[ab]*a[ab]{20}c", NULL)) {
		fprintf(stderr, "a pattern was refused\n");
		return 1;
	}
	double t0;
	double v = 0;

	/* 4 MB of matches: each regexec measured the rest of the text
	 * before (about a second per MiB); now only the last line is read. */
	char *t = repeat("12 fps\n", 7 * 600000, "59.94 fps\n");
	t0 = cpu_now();
	int rc = ab_score_find(&p.scores[0], t, &v);
	if (rc || v != 59.94 || elapsed_since(&t0) > 2) {
		fprintf(stderr, "many matches: rc %d v %g in %.2f s\n", rc, v,
			elapsed_since(&t0));
		bad++;
	}
	free(t);

	/* ^ and $ are line ends: the last line that starts so. */
	rc = ab_score_find(&p.scores[1], "fps: 10\nfps: 20\nmean fps: 15\n", &v);
	if (rc || v != 20) {
		fprintf(stderr, "anchors: rc %d v %g\n", rc, v);
		bad++;
	}
	/* A match does not span lines. */
	rc = ab_score_find(&p.scores[0], "12\n fps\n", &v);
	if (rc != -ENOENT) {
		fprintf(stderr, "across lines: rc %d\n", rc);
		bad++;
	}

	/* Only the last AB_SCORE_TEXT_MAX bytes are searched. */
	char *head = repeat("-", 2 * AB_SCORE_TEXT_MAX, "\nend\n");
	memcpy(head, "1 fps\n", 6);
	rc = ab_score_find(&p.scores[0], head, &v);
	if (rc != -ENOENT) {
		fprintf(stderr, "budget: rc %d v %g\n", rc, v);
		bad++;
	}
	free(head);

	/* One 1 MiB line where every attempt reads to its end: about 30
	 * minutes of matching before; now the CPU limit ends it. */
	t = repeat("a", 1 << 20, "");
	t0 = cpu_now();
	rc = ab_score_find(&p.scores[2], t, &v);
	if (rc != -ETIME || elapsed_since(&t0) > 3 * AB_SCORE_CPU_S + 5) {
		fprintf(stderr, "quadratic: rc %d in %.2f s\n", rc, elapsed_since(&t0));
		bad++;
	}
	free(t);

	/* An automaton that grows exponentially with the text: 1 GB and
	 * minutes before; now held to the limits. */
	t = malloc((1 << 20) + 1);
	unsigned x = 1;
	for (size_t i = 0; i < 1 << 20; i++) {
		x = x * 1103515245u + 12345u;
		t[i] = i % 80 == 79 ? '\n' : (x >> 16) & 1 ? 'a' : 'b';
	}
	t[1 << 20] = '\0';
	t0 = cpu_now();
	rc = ab_score_find(&p.scores[3], t, &v);
	if ((rc != -ETIME && rc != -ENOMEM) || elapsed_since(&t0) > 3 * AB_SCORE_CPU_S + 5) {
		fprintf(stderr, "automaton: rc %d in %.2f s\n", rc, elapsed_since(&t0));
		bad++;
	}
	free(t);
	ab_plan_release(&p);
	return bad;
}

static void test_abplan__score_search_is_bounded(void **state)
{
	(void)state;
	tu_assert_in_child(search_each, 1024, 60);
}

static void test_abplan__plan_files(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *path;
	assert_true(asprintf(&path, "%s/plan", dir) > 0);
	FILE *fp = fopen(path, "w");
	fputs("# backends\nrounds = 4\nwarmup = 0\norder = alternate\ngate = 2.5\n"
	      "score = fps=([0-9.]+) fps:higher\nper = frame=fps\nenv.SCENE = 3\n\n"
	      "[arm c]\ncommand = ./emu --backend c\npin = cpus:0\n"
	      "[arm llvm]\ncommand = ./emu --backend llvm\nenv.SCENE = 4\n", fp);
	fclose(fp);
	struct ab_plan p;
	ab_plan_init(&p);
	char *cause = NULL;
	if (ab_plan_read(&p, path, &cause))
		fail_msg("%s", cause);
	assert_int_equal(ab_plan_check(&p, NULL), 0);
	assert_int_equal(p.rounds, 4);
	assert_int_equal(p.warmup, 0);
	assert_int_equal(p.order, ORDER_ALTERNATE);
	assert_float_equal(p.gate_pct, 2.5, 0);
	assert_int_equal(p.narms, 2);
	assert_string_equal(p.arms[1].argv[2], "llvm");
	assert_string_equal(ab_plan_get(&p, 0, "pin"), "cpus:0");
	assert_string_equal(ab_plan_get(&p, 0, "env.SCENE"), "3");
	assert_string_equal(ab_plan_get(&p, 1, "env.SCENE"), "4");
	ab_plan_release(&p);

	fp = fopen(path, "w");
	fputs("rounds = 4\n[arm c]\ncommand = ./emu\nwhat ever\n", fp);
	fclose(fp);
	ab_plan_init(&p);
	cause = NULL;
	assert_int_equal(ab_plan_read(&p, path, &cause), -EINVAL);
	assert_non_null(strstr(cause, ":4: expected 'key = value'"));
	free(cause);
	ab_plan_release(&p);

	fp = fopen(path, "w");
	fputs("rounds = lots\n", fp);
	fclose(fp);
	ab_plan_init(&p);
	cause = NULL;
	assert_int_equal(ab_plan_read(&p, path, &cause), -EINVAL);
	assert_non_null(strstr(cause, ":1: bad rounds 'lots'"));
	free(cause);
	ab_plan_release(&p);

	/* The same reader over a stream: the name given stands in causes. */
	static const char text[] = "[arm c]\ncommand = ./emu\nrounds = 0\n";
	fp = fmemopen((void *)text, sizeof(text) - 1, "r");
	assert_non_null(fp);
	ab_plan_init(&p);
	cause = NULL;
	assert_int_equal(ab_plan_read_file(&p, fp, "<plan>", &cause), -EINVAL);
	fclose(fp);
	assert_non_null(strstr(cause, "<plan>:3: unknown"));
	free(cause);
	ab_plan_release(&p);

	ab_plan_init(&p);
	cause = NULL;
	assert_true(ab_plan_read(&p, "/no/such/plan", &cause) < 0);
	assert_non_null(strstr(cause, "cannot read plan"));
	free(cause);
	ab_plan_release(&p);
	tu_rmrf(dir);
	free(dir);
	free(path);
}

/* A line longer than the reader's limit is refused whole: before, its
 * tail was read as a line of its own, so a long comment could carry a
 * setting. */
static void test_abplan__long_plan_lines_are_refused(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *path;
	assert_true(asprintf(&path, "%s/plan", dir) > 0);
	static const char tail[] = "env.INJECTED=1";
	char line[8192];
	/* 4,095 bytes of comment, then the setting, on one line */
	memset(line, 'x', sizeof(line));
	line[0] = '#';
	memcpy(line + 4095, tail, sizeof(tail));
	FILE *fp = fopen(path, "w");
	fprintf(fp, "rounds = 3\n%s\n[arm a]\ncommand = true\n[arm b]\ncommand = true\n",
		line);
	fclose(fp);
	struct ab_plan p;
	ab_plan_init(&p);
	char *cause = NULL;
	assert_int_equal(ab_plan_read(&p, path, &cause), -EINVAL);
	assert_non_null(cause);
	if (!strstr(cause, "/plan:2: the line is longer than 4095 bytes"))
		fail_msg("cause: %s", cause);
	assert_null(ab_plan_get(&p, 0, "env.INJECTED"));
	free(cause);
	ab_plan_release(&p);

	/* 4,095 bytes exactly is still one line, and read */
	memset(line, ' ', 4095);
	memcpy(line, "events = task-clock", 19);
	line[4095] = '\0';
	fp = fopen(path, "w");
	fprintf(fp, "%s\n%s", line, line);	/* the last line without its newline */
	fclose(fp);
	ab_plan_init(&p);
	cause = NULL;
	if (ab_plan_read(&p, path, &cause))
		fail_msg("%s", cause);
	assert_string_equal(p.events, "task-clock");
	ab_plan_release(&p);

	/* a NUL byte would cut the line short, and the rest unread */
	fp = fopen(path, "w");
	fwrite("rounds = 3\0 junk\n", 1, 17, fp);
	fclose(fp);
	ab_plan_init(&p);
	cause = NULL;
	assert_int_equal(ab_plan_read(&p, path, &cause), -EINVAL);
	if (!cause || !strstr(cause, "/plan:1: the line holds a NUL byte"))
		fail_msg("cause: %s", cause ? cause : "(none)");
	free(cause);
	ab_plan_release(&p);
	tu_rmrf(dir);
	free(dir);
	free(path);
}

/* A plan must be a regular file of a plausible size: a device or a FIFO
 * nobody writes would be read forever. */
static void test_abplan__plan_must_be_a_small_regular_file(void **state)
{
	(void)state;
	alarm(20);	/* a hang fails the test instead of stalling it */
	char *dir = tu_tmpdir();
	char *fifo, *big;
	assert_true(asprintf(&fifo, "%s/fifo", dir) > 0);
	assert_true(asprintf(&big, "%s/big", dir) > 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	const char *special[] = { "/dev/zero", fifo, dir };
	for (size_t i = 0; i < 3; i++) {
		struct ab_plan p;
		ab_plan_init(&p);
		char *cause = NULL;
		assert_int_equal(ab_plan_read(&p, special[i], &cause), -EINVAL);
		if (!cause || !strstr(cause, "not a regular file"))
			fail_msg("%s: %s", special[i], cause ? cause : "(no cause)");
		free(cause);
		ab_plan_release(&p);
	}
	/* 1 MiB and one byte of comments: too large to be a plan */
	FILE *fp = fopen(big, "w");
	for (int i = 0; i < 1024 * 1024 / 64; i++)
		fprintf(fp, "# %61s\n", "padding");
	fputs("\n", fp);
	fclose(fp);
	struct ab_plan p;
	ab_plan_init(&p);
	char *cause = NULL;
	assert_int_equal(ab_plan_read(&p, big, &cause), -EFBIG);
	if (!cause || !strstr(cause, "larger than 1 MiB"))
		fail_msg("%s", cause ? cause : "(no cause)");
	free(cause);
	ab_plan_release(&p);
	alarm(0);
	tu_rmrf(dir);
	free(dir);
	free(fifo);
	free(big);
}

/* As many arms as an experiment stores and reads back, and no more: prof
 * ab took any number, and the loader refused past 4,096 (issue 27). */
static void test_abplan__arms_stop_where_the_loader_does(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	char spec[32];
	for (size_t a = 0; a < DB_EXP_ARMS_MAX; a++) {
		snprintf(spec, sizeof(spec), "a%zu=true", a);
		assert_int_equal(ab_plan_add_arm(&p, spec, NULL), 0);
	}
	assert_int_equal(p.narms, DB_EXP_ARMS_MAX);
	REFUSED(ab_plan_add_arm(&p, "one-more=true", &cause), "at most 4096 arms");
	assert_int_equal(p.narms, DB_EXP_ARMS_MAX);
	ab_plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abplan__arms_and_settings),
		cmocka_unit_test(test_abplan__bad_arms_and_settings_are_refused),
		cmocka_unit_test(test_abplan__prepare_and_cleanup_per_arm),
		cmocka_unit_test(test_abplan__window),
		cmocka_unit_test(test_abplan__orders),
		cmocka_unit_test(test_abplan__scores_take_the_last_match),
		cmocka_unit_test(test_abplan__score_aggregates_over_every_match),
		cmocka_unit_test(test_abplan__score_regex_may_hold_colons),
		cmocka_unit_test(test_abplan__frame_scores),
		cmocka_unit_test(test_abplan__score_regexes_that_blow_up_are_refused),
		cmocka_unit_test(test_abplan__score_regexes_within_bounds_are_kept),
		cmocka_unit_test(test_abplan__score_search_is_bounded),
		cmocka_unit_test(test_abplan__plan_files),
		cmocka_unit_test(test_abplan__long_plan_lines_are_refused),
		cmocka_unit_test(test_abplan__plan_must_be_a_small_regular_file),
		cmocka_unit_test(test_abplan__arms_stop_where_the_loader_does),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
