/*
 * Tests for reports/ab's tables: two single runs side by side, as
 * `prof compare RUN RUN` prints them, in every format.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "fixture_db.h"
#include "reports/ab.h"
#include "test_util.h"

static void set_total(struct db_run *r, const char *event, uint64_t v)
{
	for (size_t e = 0; e < r->nevents; e++) {
		if (strcmp(r->events[e].name, event))
			continue;
		r->events[e].supported = true;
		r->events[e].total = (struct db_count){ .value = v, .enabled = 1000,
							.running = 1000, .present = true };
	}
}

static char *render(const struct db_run *a, const struct db_run *b,
		    enum out_format f)
{
	struct tu_buf buf;
	ab_render_runs(a, b, f, tu_buf_open(&buf));
	tu_buf_close(&buf);
	return buf.data;
}

/* Counts are whole numbers: 912 context switches, not "912.0". */
static void test_ab_report__two_runs_print_counts_whole(void **state)
{
	(void)state;
	struct db_run a, b;
	fixture_counted_run(&a);
	fixture_counted_run(&b);
	b.id = 8;
	set_total(&a, "cycles", 912);
	set_total(&b, "cycles", 1000);
	set_total(&a, "instructions", 10);
	set_total(&b, "instructions", 20);
	char *s = render(&a, &b, OUT_TABLE);
	assert_non_null(strstr(s, " cycles                         912          1,000    +9.6\n"));
	assert_non_null(strstr(s, " instructions                    10             20  +100.0\n"));
	/* Reals keep four significant digits. */
	assert_non_null(strstr(s, " ipc                        0.01096        0.02000   +82.4\n"));
	free(s);
	s = render(&a, &b, OUT_CSV);
	assert_true(strncmp(s, "run_a,run_b,metric,a,b,delta_pct\n", 33) == 0);
	assert_non_null(strstr(s, "\n7,8,cycles,912,1000,9.64912281\n"));
	assert_non_null(strstr(s, "\n7,8,LLC-load-misses,,,\n"));
	free(s);
	s = render(&a, &b, OUT_JSON);
	assert_non_null(strstr(s, "\"runs\": [7, 8],"));
	assert_non_null(strstr(s, "\"metric\": \"cycles\",\n      \"a\": 912,"));
	free(s);
	db_run_release(&a);
	db_run_release(&b);
}

/* Arms a and b in rounds alternating ABBA: a's wall_s 10 s, b's 10 s
 * times ratio[round]; user and system time in proportion. */
static void fill_rounds(struct db_exp_run *runs, int rounds, const double *ratio)
{
	memset(runs, 0, 2 * (size_t)rounds * sizeof(*runs));
	for (int r = 0; r < rounds; r++) {
		for (int a = 0; a < 2; a++) {
			struct db_exp_run *x = &runs[2 * r + a];
			x->run_id = 2 * r + a + 1;
			x->arm = a;
			x->round = r;
			x->position = (a + r) % 2;
			x->wall_s = a ? 10 * ratio[r] : 10;
			x->user_s = x->wall_s / 2;
			x->sys_s = x->wall_s / 4;
		}
	}
}

/*
 * An experiment of 6 rounds whose wall_s ratios are 0.99 five times and
 * 1.3 once: the mean log-ratio is positive (+3.60%), the median negative
 * (-1.0%). Issue 15: mean and median are shown together, and their
 * disagreement in sign is flagged in the table and in Markdown.
 */
static void test_ab_report__mean_and_median_disagreeing_is_flagged(void **state)
{
	(void)state;
	struct db_arm arms[2] = {
		{ .name = "a", .command = "./a" }, { .name = "b", .command = "./b" },
	};
	struct db_exp_run runs[12];
	const double ratio[6] = { 0.99, 0.99, 1.3, 0.99, 0.99, 0.99 };
	fill_rounds(runs, 6, ratio);
	struct db_experiment e = {
		.id = 3, .order = "abba", .rounds = 6, .gate_pct = NAN, .arms = arms,
		.narms = 2, .runs = runs, .nruns = 12, .status = "complete",
	};
	struct ab_gate_rule gate = { NAN, NULL, 1.0 };
	struct ab_analysis an;
	assert_int_equal(ab_analyze(&e, &gate, &an, NULL), 0);
	const struct ab_comparison *c = ab_comparison_of(&an, 1, 0);
	assert_false(c->p.signs_agree);
	assert_true(c->p.delta_pct > 0 && c->p.delta_pct_median < 0);
	for (int f = 0; f < 2; f++) {
		struct tu_buf buf;
		ab_render(&an, f ? OUT_MARKDOWN : OUT_TABLE, tu_buf_open(&buf));
		tu_buf_close(&buf);
		assert_non_null(strstr(buf.data, "Δ% median"));
		assert_non_null(strstr(buf.data, "-1.0% !"));
		assert_true(tu_has_prose(buf.data, "wall_s, b: the mean says +3.60% and the "
					 "median -1.00%: they disagree in sign"));
		free(buf.data);
	}
	ab_analysis_release(&an);
}

/*
 * Issue 29: one line per verdict before the tables, the claim a pull
 * request quotes. b takes 0.8 of a's time (+-1%) in each of 8 rounds:
 * 1.25x faster, p 2/256 (every round the same sign).
 */
static void test_ab_report__verdicts_in_one_line_each(void **state)
{
	(void)state;
	struct db_arm arms[2] = {
		{ .name = "a", .command = "./a" }, { .name = "b", .command = "./b" },
	};
	struct db_exp_run runs[16];
	double ratio[8];
	for (int r = 0; r < 8; r++)
		ratio[r] = 0.8 * (1 + 0.01 * ((r % 3) - 1));
	fill_rounds(runs, 8, ratio);
	struct db_experiment e = {
		.id = 4, .order = "abba", .rounds = 8, .gate_pct = NAN, .arms = arms,
		.narms = 2, .runs = runs, .nruns = 16, .status = "complete",
	};
	struct ab_gate_rule gate = { NAN, NULL, 1.0 };
	struct ab_analysis an;
	assert_int_equal(ab_analyze(&e, &gate, &an, NULL), 0);
	for (int f = 0; f < 2; f++) {
		struct tu_buf buf;
		ab_render(&an, f ? OUT_MARKDOWN : OUT_TABLE, tu_buf_open(&buf));
		tu_buf_close(&buf);
		const char *l = strstr(buf.data, f ? "\n- b is 1.25x faster than a [1.2"
						    : "\n b is 1.25x faster than a [1.2");
		if (!l)
			fail_msg("no headline in:\n%s", buf.data);
		assert_non_null(strstr(l, "] (wall_s, 8 rounds, p 0.0078)\n"));
		/* CPU time is no speed: a multiple of the baseline's */
		assert_non_null(strstr(l, "b: cpu_s 0.80x a's [0.79, 0.80] (better, 8 rounds, "
				       "p 0.0078)\n"));
		assert_non_null(strstr(l, "b: cores as a's, within ±1.0% (equivalent, "));
		/* before the first table */
		assert_true(l < strstr(buf.data, f ? "| metric |" : " wall_s (s;"));
		free(buf.data);
	}
	ab_analysis_release(&an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ab_report__two_runs_print_counts_whole),
		cmocka_unit_test(test_ab_report__mean_and_median_disagreeing_is_flagged),
		cmocka_unit_test(test_ab_report__verdicts_in_one_line_each),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
