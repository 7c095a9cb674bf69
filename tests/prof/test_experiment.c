/*
 * Tests for prof/experiment: the rounds run every slot once each, warm-ups
 * first, in --order's order; a failed run stops the experiment after its
 * round unless keep_going, a run not made as well, and a hook's stop at
 * once; any number of slots is scheduled (no fixed cap); a captured
 * output's tail is its last bytes, NULs as spaces; the score and frame
 * settings keep the order both verbs store.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/cli.h"
#include "prof/experiment.h"

struct call {
	size_t slot, pos;
	int round;
	bool warm, quiet;
};

/* A fake verb: records each slot it is asked to run, and answers what
 * fail_at says for one (slot, round) of the counted rounds. */
struct fake {
	struct call *calls;
	size_t ncalls;
	size_t fail_slot;
	int fail_round;
	enum exp_slot_result fail_with;
};

static const char *fake_name(void *arg, size_t slot)
{
	(void)arg;
	(void)slot;
	return "x";
}

static enum exp_slot_result fake_run(void *arg, const struct exp_slot *s,
				     struct exp_end *end)
{
	struct fake *f = arg;
	f->calls = realloc(f->calls, (f->ncalls + 1) * sizeof(*f->calls));
	assert_non_null(f->calls);
	f->calls[f->ncalls++] = (struct call){ s->slot, s->pos, s->round, s->warm, s->quiet };
	if (!s->warm && s->slot == f->fail_slot && s->round == f->fail_round) {
		if (f->fail_with == EXP_SLOT_STOP) {
			end->status = "stopped";
			end->note = strdup("the hook stopped it");
			end->code = 42;
		}
		return f->fail_with;
	}
	return EXP_SLOT_RAN;
}

static const struct exp_hooks fake_hooks = { fake_name, fake_run };

static int run_design(struct ab_plan *p, size_t nslots, bool keep_going,
		      struct fake *f, struct exp_end *end)
{
	struct exp_design d = {
		.verb = "test", .slot_word = "", .plan = p, .nslots = nslots,
		.rounds = p->rounds, .warmup = p->warmup, .keep_going = keep_going,
	};
	*end = (struct exp_end){ .status = "complete" };
	return experiment_run(&d, &fake_hooks, f, end);
}

static void test_experiment__rounds_in_order(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	p.rounds = 2;
	p.warmup = 1;
	struct fake f = { .fail_round = -1 };
	struct exp_end end;
	assert_int_equal(run_design(&p, 2, false, &f, &end), 0);
	assert_string_equal(end.status, "complete");
	assert_null(end.note);
	/* abba: a warm-up round, then AB, BA. */
	const struct call want[] = {
		{ 0, 0, 0, true, false }, { 1, 1, 0, true, true },
		{ 0, 0, 0, false, true }, { 1, 1, 0, false, true },
		{ 1, 0, 1, false, true }, { 0, 1, 1, false, true },
	};
	assert_int_equal(f.ncalls, 6);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(f.calls[i].slot, want[i].slot);
		assert_int_equal(f.calls[i].pos, want[i].pos);
		assert_int_equal(f.calls[i].round, want[i].round);
		assert_int_equal(f.calls[i].warm, want[i].warm);
		assert_int_equal(f.calls[i].quiet, want[i].quiet);
	}
	free(f.calls);
	ab_plan_release(&p);
}

static void test_experiment__failed_run_stops_after_its_round(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	p.rounds = 3;
	p.warmup = 0;
	p.order = ORDER_ALTERNATE;
	const enum exp_slot_result kinds[] = { EXP_SLOT_FAILED, EXP_SLOT_NOT_RUN };
	for (size_t k = 0; k < 2; k++) {
		struct fake f = { .fail_slot = 0, .fail_round = 1, .fail_with = kinds[k] };
		struct exp_end end;
		assert_int_equal(run_design(&p, 3, false, &f, &end), EXIT_FAIL);
		/* The round in which it failed is finished, then no more. */
		assert_int_equal(f.ncalls, 6);
		assert_string_equal(end.status, "stopped");
		assert_string_equal(end.note, "stopped after round 2: a run failed (use "
				    "--keep-going to run on)");
		free(end.note);
		free(f.calls);
		/* With keep_going every round runs. */
		f = (struct fake){ .fail_slot = 0, .fail_round = 1, .fail_with = kinds[k] };
		assert_int_equal(run_design(&p, 3, true, &f, &end), 0);
		assert_int_equal(f.ncalls, 9);
		assert_string_equal(end.status, "complete");
		free(f.calls);
	}
	ab_plan_release(&p);
}

static void test_experiment__hook_stops_at_once(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	p.rounds = 4;
	p.warmup = 1;
	p.order = ORDER_ALTERNATE;
	struct fake f = { .fail_slot = 0, .fail_round = 1, .fail_with = EXP_SLOT_STOP };
	struct exp_end end;
	assert_int_equal(run_design(&p, 2, true, &f, &end), 42);
	/* Warm-up 2, round 1 2, round 2's first. */
	assert_int_equal(f.ncalls, 5);
	assert_string_equal(end.status, "stopped");
	assert_string_equal(end.note, "the hook stopped it");
	free(end.note);
	free(f.calls);
	ab_plan_release(&p);
}

/* More slots than any array the loop could have fixed: each runs once a
 * round, in a permutation of them all. */
static void test_experiment__many_slots(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	p.rounds = 2;
	p.warmup = 0;
	p.order = ORDER_RANDOM;
	const size_t n = 3000;
	struct fake f = { .fail_round = -1 };
	struct exp_end end;
	assert_int_equal(run_design(&p, n, false, &f, &end), 0);
	assert_int_equal(f.ncalls, 2 * n);
	bool *seen = calloc(n, sizeof(*seen));
	assert_non_null(seen);
	for (int r = 0; r < 2; r++) {
		memset(seen, 0, n * sizeof(*seen));
		for (size_t i = 0; i < n; i++) {
			const struct call *c = &f.calls[(size_t)r * n + i];
			assert_int_equal(c->round, r);
			assert_int_equal(c->pos, i);
			assert_true(c->slot < n);
			assert_false(seen[c->slot]);
			seen[c->slot] = true;
		}
	}
	free(seen);
	free(f.calls);
	ab_plan_release(&p);
}

static void test_experiment__slurp_tail(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/prof-test-exp-XXXXXX";
	int fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	unlink(tmpl);
	const char text[] = "head\nab\0cd\nend\n";
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	size_t len = 99;
	char *s = experiment_slurp(fd, 10, &len);
	assert_int_equal(len, 10);
	assert_string_equal(s, "ab cd\nend\n");
	free(s);
	s = experiment_slurp(fd, 1 << 20, NULL);
	assert_string_equal(s, "head\nab cd\nend\n");
	free(s);
	close(fd);
}

static void test_experiment__score_settings_in_order(void **state)
{
	(void)state;
	struct ab_plan p;
	ab_plan_init(&p);
	assert_int_equal(ab_plan_add_score(&p, "fps=([0-9.]+) fps:higher", NULL), 0);
	assert_int_equal(ab_plan_add_score(&p, "frame:p99", NULL), 0);
	assert_int_equal(ab_plan_set_frames(&p, "frame-regex", "^frame", NULL), 0);
	struct db_kv *v = NULL;
	size_t n = 0;
	experiment_kv_add(&v, &n, "events", strdup("cache"));
	experiment_kv_scores(&v, &n, &p, strdup("16.7"));
	const char *want[][2] = {
		{ "events", "cache" }, { "score", "fps=([0-9.]+) fps:higher" },
		{ "score", "frame_p99_ms=frame:p99" }, { "frame-regex", "^frame" },
		{ "budget_ms", "16.7" },
	};
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(v[i].key, want[i][0]);
		assert_string_equal(v[i].value, want[i][1]);
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
	assert_string_equal(experiment_order_word(ORDER_ABBA), "abba");
	assert_string_equal(experiment_order_word(ORDER_RANDOM), "random");
	ab_plan_release(&p);
}

int main(void)
{
	verbose = -1;	/* no progress lines in the test's log */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_experiment__rounds_in_order),
		cmocka_unit_test(test_experiment__failed_run_stops_after_its_round),
		cmocka_unit_test(test_experiment__hook_stops_at_once),
		cmocka_unit_test(test_experiment__many_slots),
		cmocka_unit_test(test_experiment__slurp_tail),
		cmocka_unit_test(test_experiment__score_settings_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
