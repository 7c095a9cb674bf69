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
 * Found by fuzz_abplan (tests/fuzz/regressions/abplan/): glibc's regcomp()
 * copies what '+' and {n,m} repeat, so a score regex of stacked or nested
 * repetitions took gigabytes to compile, or minutes where the copies match
 * empty text. Such a regex is refused before regcomp() sees it; ordinary
 * ones, nesting included, still compile.
 */
static void test_abplan__scores_too_large_to_compile(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	REFUSED(ab_plan_add_score(&p, "a=x++++++++++++++++++++++++++++++++", &cause),
		"too large once expanded");
	REFUSED(ab_plan_add_score(&p, "b=((((x+)+)+)+)+((((((((((((((((((y+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+",
				  &cause), "too large once expanded");
	REFUSED(ab_plan_add_score(&p, "c=((x{1,300}){1,300}){2}", &cause),
		"too large once expanded");
	REFUSED(ab_plan_add_score(&p, "d=(x{,20000}){,20000}", &cause),
		"too large once expanded");
	/* Small trees whose copies match empty text: seconds to minutes. */
	REFUSED(ab_plan_add_score(&p, "e=x++*++++++++++", &cause),
		"too large once expanded");
	REFUSED(ab_plan_add_score(&p, "f=(x*){1,3000}", &cause),
		"too large once expanded");
	REFUSED(ab_plan_add_score(&p, "g=((x*){1,100}){1,100}", &cause),
		"too large once expanded");
	assert_int_equal(p.nscores, 0);
	assert_int_equal(ab_plan_add_score(&p, "fps=([0-9.]+) fps:higher", NULL), 0);
	assert_int_equal(ab_plan_add_score(&p, "ms=frame (([0-9]+)(\\.[0-9]{1,3})?) ms",
					   NULL), 0);
	assert_int_equal(ab_plan_add_score(&p, "ip=([0-9]{1,3}\\.){3}[0-9]{1,3}", NULL), 0);
	assert_int_equal(ab_plan_add_score(&p, "lit=[]+{(]x{,2}y{}", NULL), -EINVAL);
	assert_int_equal(ab_plan_add_score(&p, "lit=[]+{(]x{,2}", NULL), 0);
	assert_int_equal(p.nscores, 4);
	ab_plan_release(&p);
}

static void test_abplan__plan_files(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *path;
	assert_true(asprintf(&path, "%s/plan", dir) > 0);
	FILE *fp = fopen(path, "w");
	fputs("# backends\nrounds = 4\nwarmup = 0\norder = alternate\ngate = 2.5\n"
	      "score = fps=([0-9.]+) fps:higher\nper = fps\nenv.SCENE = 3\n\n"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abplan__arms_and_settings),
		cmocka_unit_test(test_abplan__bad_arms_and_settings_are_refused),
		cmocka_unit_test(test_abplan__orders),
		cmocka_unit_test(test_abplan__scores_take_the_last_match),
		cmocka_unit_test(test_abplan__scores_too_large_to_compile),
		cmocka_unit_test(test_abplan__plan_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
