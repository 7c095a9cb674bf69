/*
 * Tests for reports/pressure: the curve statistics and verdicts on
 * per-round values of the shape tests/helpers/chase gives on the 2-CPU
 * EPYC VM (CPU seconds, control and steps per round, see each case), the rules
 * of the curve's verdict one by one on judged steps, and the JSON keys
 * that are the contract (verdict; steps of taken_bytes, held_bytes,
 * delta_pct, ci, verdict); the picture's axis in KiB for a small domain.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/pressure.h"
#include "test_util.h"
#include "xml_check.h"

#define MiB (1ull << 20)
#define NSTEPS 5	/* 0 (A/A), 4, 8, 16, 24 MiB */
#define NARMS (NSTEPS + 1)

static const uint64_t taken[NARMS] = { 0, 0, 4 * MiB, 8 * MiB, 16 * MiB, 24 * MiB };

static void kv(struct db_kv **v, size_t *n, const char *k, const char *val)
{
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].key = strdup(k);
	(*v)[*n].value = strdup(val);
	(*n)++;
}

/*
 * A pressure experiment of one workload "chase" over a 32 MiB L3: arms
 * control, 0, 4, 8, 16, 24 MiB; vals[r][a] the metric of arm a in round
 * r (cpu_s, or the score "fps" when fps is true); ns[a] the co-runner's
 * time per line; ABBA order.
 */
static void build(struct db_experiment *e, size_t rounds, const double (*vals)[NARMS],
		  const double *ns, bool fps)
{
	memset(e, 0, sizeof(*e));
	e->id = 7;
	e->kind = strdup("pressure");
	e->status = strdup("complete");
	e->order = strdup("abba");
	e->rounds = (int)rounds;
	e->gate_pct = NAN;
	kv(&e->settings, &e->nsettings, "method", "pirate");
	kv(&e->settings, &e->nsettings, "metric", fps ? "fps" : "cpu_s");
	if (fps)
		/* as prof pressure stores a score declared :higher:rate */
		kv(&e->settings, &e->nsettings, "score", "fps=([0-9.]+) fps:higher:rate");
	kv(&e->settings, &e->nsettings, "domain.level", "3");
	kv(&e->settings, &e->nsettings, "domain.bytes", "33554432");
	kv(&e->settings, &e->nsettings, "domain.cpus", "0-1");
	kv(&e->settings, &e->nsettings, "workload_cpu", "0");
	kv(&e->settings, &e->nsettings, "corunner_cpu", "1");
	kv(&e->settings, &e->nsettings, "control_bytes", "524288");
	kv(&e->settings, &e->nsettings, "hit_ns", "14.4");
	e->narms = NARMS;
	e->arms = calloc(NARMS, sizeof(*e->arms));
	static const char *const names[NARMS] = {
		"chase@control", "chase@0", "chase@4MiB", "chase@8MiB", "chase@16MiB",
		"chase@24MiB",
	};
	for (size_t a = 0; a < NARMS; a++) {
		struct db_arm *d = &e->arms[a];
		d->name = strdup(names[a]);
		d->command = strdup("./chase 3072 20");
		d->argc = 1;
		d->argv = calloc(2, sizeof(char *));
		d->argv[0] = strdup("./chase");
		char b[32];
		kv(&d->settings, &d->nsettings, "pressure.workload", "chase");
		kv(&d->settings, &d->nsettings, "pressure.role", a ? "step" : "control");
		snprintf(b, sizeof(b), "%llu", (unsigned long long)taken[a]);
		kv(&d->settings, &d->nsettings, "pressure.taken_bytes", b);
		kv(&d->settings, &d->nsettings, "pressure.mem_ns", "140");
	}
	e->nruns = rounds * NARMS;
	e->runs = calloc(e->nruns, sizeof(*e->runs));
	for (size_t r = 0; r < rounds; r++) {
		for (size_t a = 0; a < NARMS; a++) {
			struct db_exp_run *x = &e->runs[r * NARMS + a];
			x->run_id = (int64_t)(r * NARMS + a + 1);
			x->arm = (int)a;
			x->round = (int)r;
			x->position = (int)(r % 2 ? NARMS - 1 - a : a);
			x->wall_s = fps ? 1.0 : vals[r][a];
			x->user_s = fps ? 1.0 : vals[r][a];
			if (fps) {
				x->nscores = 1;
				x->scores = calloc(1, sizeof(*x->scores));
				x->scores[0].name = strdup("fps");
				x->scores[0].value = vals[r][a];
				x->scores[0].found = true;
			}
			char b[32];
			snprintf(b, sizeof(b), "%.4f", ns[a]);
			kv(&x->settings, &x->nsettings, "corunner.ns_per_line", b);
			if (taken[a]) {
				double held = (double)taken[a] * (140 - ns[a]) / (140 - 14.4);
				snprintf(b, sizeof(b), "%.0f", held > 0 ? held : 0);
				kv(&x->settings, &x->nsettings, "corunner.held_bytes", b);
			}
		}
	}
}

/*
 * A 3 MiB chase (20 M steps), CPU seconds per round: 15 ns a step beside
 * the control (0.30 s), some of the cache lost beside 4 MiB of
 * co-runner, memory latency beside 8 MiB and more (as measured on the VM
 * for the issue: 30-167 ns a step beside an 8-24 MiB co-runner).
 */
static const double sensitive[6][NARMS] = {
	{ 0.301, 0.298, 0.412, 1.214, 1.890, 2.102 },
	{ 0.296, 0.305, 0.455, 1.102, 1.795, 2.010 },
	{ 0.304, 0.299, 0.398, 1.305, 1.921, 2.150 },
	{ 0.299, 0.302, 0.431, 1.190, 1.850, 2.070 },
	{ 0.302, 0.297, 0.420, 1.260, 1.880, 2.120 },
	{ 0.298, 0.301, 0.441, 1.150, 1.830, 2.040 },
};
static const double sensitive_ns[NARMS] = { 4.1, 4.0, 60.2, 128.8, 144.7, 150.2 };

/* A 64 KiB chase (100 M steps): it never leaves L2, whatever is taken. */
static const double flat[6][NARMS] = {
	{ 0.392, 0.394, 0.391, 0.395, 0.393, 0.392 },
	{ 0.395, 0.391, 0.394, 0.392, 0.396, 0.394 },
	{ 0.391, 0.393, 0.392, 0.394, 0.391, 0.395 },
	{ 0.394, 0.392, 0.395, 0.391, 0.394, 0.393 },
	{ 0.393, 0.395, 0.393, 0.393, 0.392, 0.391 },
	{ 0.392, 0.393, 0.391, 0.396, 0.395, 0.394 },
};
/* A co-runner that held what it walked (its hit time at every size). */
static const double flat_ns[NARMS] = { 4.0, 4.0, 14.4, 14.4, 14.4, 14.4 };

static void analyze(const struct db_experiment *e, double gate, struct press_analysis *a)
{
	char *cause = NULL;
	if (press_analyze(e, gate, a, &cause))
		fail_msg("%s", cause);
}

static void test_pressure__a_chase_in_the_llc_is_sensitive(void **state)
{
	(void)state;
	struct db_experiment e;
	build(&e, 6, sensitive, sensitive_ns, false);
	struct press_analysis a;
	analyze(&e, NAN, &a);
	assert_int_equal(a.ncurves, 1);
	assert_int_equal(a.counted_rounds, 6);
	const struct press_curve *c = &a.curves[0];
	assert_string_equal(c->workload, "chase");
	assert_int_equal(c->nsteps, NSTEPS);
	assert_true(c->steps[0].aa);
	/* The A/A step sets the gate, but never below the floor. */
	assert_true(c->gate_pct >= PRESS_GATE_FLOOR_PCT);
	for (size_t i = 1; i < NSTEPS; i++) {
		assert_true(c->steps[i].cmp.computable);
		assert_int_equal(c->steps[i].cmp.j.verdict, VERDICT_WORSE);
	}
	assert_int_equal(c->verdict, PRESS_SENSITIVE);
	/* Its co-runner held 2.5 of the 4 MiB it walked, and says so. */
	assert_non_null(strstr(c->summary, "cache-sensitive: losing 4 MiB of 32 MiB "
			       "(the co-runner held 2.5 MiB of it) costs +4"));
	assert_non_null(strstr(c->summary, "CPU time, losing 24 MiB +5"));
	/* From 8 MiB the co-runner ran near its miss time: it held little. */
	assert_true(c->steps[2].held_bytes < 1 * MiB);
	assert_true(c->steps[4].held_bytes == 0);
	assert_true(c->steps[1].held_bytes > 1 * MiB);
	assert_true(fabs(c->control_median - 0.3) < 0.01);
	press_analysis_release(&a);
	db_experiment_release(&e);
}

/* Give every run CPU 0's /proc/stat deltas: its own time plus share of
 * the wall time for other work, split over user and steal time. */
static void crowd(struct db_experiment *e, double share)
{
	for (size_t i = 0; i < e->nruns; i++) {
		struct db_exp_run *x = &e->runs[i];
		double other_ms = share * x->wall_s * 1000;
		x->nsystem = 2;
		x->system = calloc(2, sizeof(*x->system));
		x->system[0].name = strdup("stat.cpu0.user_ms");
		x->system[0].delta = (int64_t)(x->user_s * 1000 + other_ms / 2);
		x->system[1].name = strdup("stat.cpu0.steal_ms");
		x->system[1].delta = (int64_t)(other_ms / 2);
	}
}

/*
 * The same curve, with other work on the workload's CPU: at 5% of the
 * wall time the verdict stands; at 40% none is given, and the sentence
 * keeps what the numbers said.
 */
static void test_pressure__other_work_on_the_cpu_withholds_the_verdict(void **state)
{
	(void)state;
	struct db_experiment e;
	struct press_analysis a;
	build(&e, 6, sensitive, sensitive_ns, false);
	crowd(&e, 0.05);
	analyze(&e, NAN, &a);
	assert_true(fabs(a.others - 0.05) < 0.01);
	assert_int_equal(a.curves[0].verdict, PRESS_SENSITIVE);
	assert_int_equal(a.nwarnings, 0);
	press_analysis_release(&a);
	db_experiment_release(&e);

	build(&e, 6, sensitive, sensitive_ns, false);
	crowd(&e, 0.4);
	analyze(&e, NAN, &a);
	assert_true(fabs(a.others - 0.4) < 0.01);
	assert_int_equal(a.curves[0].verdict, PRESS_INCONCLUSIVE);
	assert_non_null(strstr(a.curves[0].summary, "inconclusive: other work ran on the "
			       "workload's CPU 40% of the time"));
	assert_non_null(strstr(a.curves[0].summary, "(the numbers alone said: "
			       "cache-sensitive: losing 4 MiB"));
	assert_int_equal(a.nwarnings, 1);
	assert_non_null(strstr(a.warnings[0], "other work ran on the workload's CPU 40%"));
	press_analysis_release(&a);
	db_experiment_release(&e);

	/* Runs without the machine's deltas: unknown, the verdict stands. */
	build(&e, 6, sensitive, sensitive_ns, false);
	analyze(&e, NAN, &a);
	assert_true(isnan(a.others));
	assert_int_equal(a.curves[0].verdict, PRESS_SENSITIVE);
	press_analysis_release(&a);
	db_experiment_release(&e);
}

static void test_pressure__a_chase_in_l2_is_not(void **state)
{
	(void)state;
	struct db_experiment e;
	build(&e, 6, flat, flat_ns, false);
	struct press_analysis a;
	analyze(&e, NAN, &a);
	const struct press_curve *c = &a.curves[0];
	for (size_t i = 0; i < NSTEPS; i++)
		assert_int_equal(c->steps[i].cmp.j.verdict, VERDICT_EQUIVALENT);
	assert_int_equal(c->verdict, PRESS_NOT_SENSITIVE);
	assert_string_equal(c->gate_source, "floor");	/* A/A spread below 2% */
	assert_non_null(strstr(c->summary, "not cache-sensitive within ±2.0% CPU time "
			       "down to 8 MiB left of 32 MiB"));
	assert_null(strstr(c->summary, "held"));
	press_analysis_release(&a);
	db_experiment_release(&e);
	/* The same runs beside a co-runner that missed on every line from
	 * 16 MiB on: nothing is claimed below what it really left. */
	build(&e, 6, flat, sensitive_ns, false);
	analyze(&e, NAN, &a);
	c = &a.curves[0];
	assert_int_equal(c->verdict, PRESS_NOT_SENSITIVE);
	assert_non_null(strstr(c->summary, "down to 29.5 MiB left of 32 MiB (the "
			       "co-runner walked 4 MiB but held 2.5 MiB: it could take "
			       "no more)"));
	press_analysis_release(&a);
	/* Judged against a gate far below the noise it cannot say. */
	analyze(&e, 0.01, &a);
	assert_int_equal(a.curves[0].verdict, PRESS_INCONCLUSIVE);
	assert_string_equal(a.curves[0].gate_source, "--gate");
	press_analysis_release(&a);
	db_experiment_release(&e);
}

static void test_pressure__noise_is_inconclusive_with_rounds(void **state)
{
	(void)state;
	/* Runs moved ±15% with the load on the machine: the A/A step's
	 * spread sets a gate so wide that within it nothing can be ruled
	 * out, though no step moved beyond it. */
	static const double noisy[4][NARMS] = {
		{ 0.30, 0.34, 0.33, 0.27, 0.34, 0.33 },
		{ 0.35, 0.30, 0.31, 0.39, 0.31, 0.32 },
		{ 0.29, 0.33, 0.32, 0.26, 0.33, 0.31 },
		{ 0.34, 0.31, 0.30, 0.38, 0.31, 0.33 },
	};
	struct db_experiment e;
	build(&e, 4, noisy, flat_ns, false);
	struct press_analysis a;
	analyze(&e, NAN, &a);
	const struct press_curve *c = &a.curves[0];
	assert_string_equal(c->gate_source, "A/A step");
	assert_true(c->gate_pct > PRESS_GATE_QUIET_MAX_PCT);
	for (size_t i = 0; i < NSTEPS; i++)
		assert_int_equal(c->steps[i].cmp.j.verdict, VERDICT_EQUIVALENT);
	assert_int_equal(c->verdict, PRESS_INCONCLUSIVE);
	assert_non_null(strstr(c->summary, "cannot be ruled out"));
	press_analysis_release(&a);
	/* Against a 2% gate the same runs settle nothing. */
	analyze(&e, 2.0, &a);
	c = &a.curves[0];
	assert_int_equal(c->verdict, PRESS_INCONCLUSIVE);
	assert_non_null(strstr(c->summary, "inconclusive: losing"));
	assert_non_null(strstr(c->summary, "rounds would likely settle it"));
	assert_true(c->rounds_needed > 4);
	press_analysis_release(&a);
	/* Crowded by other work, more rounds settle nothing: no estimate, in
	 * the sentence or the curve, beside "other work ran ..." */
	crowd(&e, 0.7);
	analyze(&e, 2.0, &a);
	c = &a.curves[0];
	assert_int_equal(c->verdict, PRESS_INCONCLUSIVE);
	assert_non_null(strstr(c->summary, "other work ran on the workload's CPU 70%"));
	assert_null(strstr(c->summary, "rounds"));
	assert_true(c->rounds_needed < 0);
	press_analysis_release(&a);
	db_experiment_release(&e);
}

static void test_pressure__an_aa_step_that_moves_spoils_it(void **state)
{
	(void)state;
	/* The second control ran 10% slower every round (as a slot effect
	 * would make it): nothing can be said of the steps. */
	double v[6][NARMS];
	for (size_t r = 0; r < 6; r++)
		for (size_t a = 0; a < NARMS; a++)
			v[r][a] = sensitive[r][a] * (a == 1 ? 1.10 : 1.0);
	struct db_experiment e;
	build(&e, 6, (const double (*)[NARMS])v, sensitive_ns, false);
	struct press_analysis a;
	analyze(&e, 2.0, &a);
	assert_int_equal(a.curves[0].verdict, PRESS_INCONCLUSIVE);
	assert_non_null(strstr(a.curves[0].summary, "the A/A step"));
	press_analysis_release(&a);
	db_experiment_release(&e);
}

static void test_pressure__a_score_higher_is_better(void **state)
{
	(void)state;
	/* Frames per second fall as cache is taken: worse, so sensitive. */
	double v[6][NARMS];
	for (size_t r = 0; r < 6; r++)
		for (size_t a = 0; a < NARMS; a++)
			v[r][a] = 60.0 / sensitive[r][a] * 0.3;
	struct db_experiment e;
	build(&e, 6, (const double (*)[NARMS])v, sensitive_ns, true);
	struct press_analysis a;
	analyze(&e, NAN, &a);
	assert_true(a.higher_is_better);
	assert_string_equal(a.metric, "fps");
	assert_int_equal(a.curves[0].steps[4].cmp.j.verdict, VERDICT_WORSE);
	assert_true(a.curves[0].steps[4].cmp.p.delta_pct < -50);
	assert_int_equal(a.curves[0].verdict, PRESS_SENSITIVE);
	assert_non_null(strstr(a.curves[0].summary, "fps"));
	press_analysis_release(&a);
	db_experiment_release(&e);
}

/* A curve of judged steps, for the rules alone. */
static void judged(struct press_curve *c, struct press_step *s,
		   const enum stats_verdict *v, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->workload = "w";
	c->steps = s;
	c->nsteps = n;
	c->gate_pct = 2.0;
	for (size_t i = 0; i < n; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].taken_bytes = i * 4 * MiB;
		s[i].held_bytes = NAN;
		s[i].aa = i == 0;
		s[i].cmp.computable = true;
		s[i].cmp.j.verdict = v[i];
		s[i].cmp.j.rounds_needed = v[i] == VERDICT_INCONCLUSIVE ? 12 + (long)i : 0;
		s[i].cmp.p.delta_pct = v[i] == VERDICT_WORSE ? 10.0 * (double)i : 0.5;
		s[i].cmp.p.ci95_lo_pct = s[i].cmp.p.delta_pct - 1;
		s[i].cmp.p.ci95_hi_pct = s[i].cmp.p.delta_pct + 1;
	}
}

static void test_pressure__the_rules_of_the_curve(void **state)
{
	(void)state;
#define B VERDICT_BETTER
#define W VERDICT_WORSE
#define E VERDICT_EQUIVALENT
#define I VERDICT_INCONCLUSIVE
	static const struct {
		enum stats_verdict v[5];
		enum press_verdict want;
		const char *says;
	} cases[] = {
		/* Worse from 8 MiB on: sensitive, the onset named. */
		{ { E, E, W, W, W }, PRESS_SENSITIVE, "losing 8 MiB of 32 MiB costs +20.0%" },
		/* Only the largest: sensitive, at the largest. */
		{ { E, E, E, E, W }, PRESS_SENSITIVE, "losing 16 MiB of 32 MiB costs +40.0%" },
		/* A dip in the middle: the onset is after it. */
		{ { E, W, I, W, W }, PRESS_SENSITIVE, "losing 12 MiB" },
		/* Worse in the middle, not at the largest: not a capacity curve. */
		{ { E, E, W, E, I }, PRESS_INCONCLUSIVE, "about 16 rounds" },
		/* Faster or the same everywhere: not sensitive. */
		{ { E, E, B, E, E }, PRESS_NOT_SENSITIVE, "down to 16 MiB left" },
		{ { E, I, E, E, E }, PRESS_INCONCLUSIVE, "losing 4 MiB" },
		/* The A/A step beyond the gate spoils every step. */
		{ { W, W, W, W, W }, PRESS_INCONCLUSIVE, "the A/A step" },
		{ { B, E, E, E, E }, PRESS_INCONCLUSIVE, "the A/A step" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct press_curve c;
		struct press_step s[5];
		judged(&c, s, cases[k].v, 5);
		press_curve_judge(&c, "CPU time", 32 * MiB);
		if (c.verdict != cases[k].want || !strstr(c.summary, cases[k].says))
			fail_msg("case %zu: %s: %s", k, press_verdict_name(c.verdict),
				 c.summary);
		free(c.summary);
	}
#undef B
#undef W
#undef E
#undef I
	/* Quiet steps within a gate wider than a machine allows: unsaid. */
	{
		static const enum stats_verdict q[5] = {
			VERDICT_EQUIVALENT, VERDICT_EQUIVALENT, VERDICT_EQUIVALENT,
			VERDICT_EQUIVALENT, VERDICT_EQUIVALENT,
		};
		struct press_curve c;
		struct press_step s[5];
		judged(&c, s, q, 5);
		c.gate_pct = PRESS_GATE_QUIET_MAX_PCT + 5;
		press_curve_judge(&c, "CPU time", 32 * MiB);
		assert_int_equal(c.verdict, PRESS_INCONCLUSIVE);
		assert_non_null(strstr(c.summary, "±25.0%"));
		free(c.summary);
	}
	/* No step but 0: nothing was taken away. */
	struct press_curve c;
	struct press_step s[1];
	static const enum stats_verdict v0[1] = { VERDICT_EQUIVALENT };
	judged(&c, s, v0, 1);
	press_curve_judge(&c, "CPU time", 32 * MiB);
	assert_int_equal(c.verdict, PRESS_INCONCLUSIVE);
	free(c.summary);
}

static void test_pressure__json_contract_and_tables(void **state)
{
	(void)state;
	struct db_experiment e;
	build(&e, 6, sensitive, sensitive_ns, false);
	struct press_analysis a;
	analyze(&e, NAN, &a);
	struct tu_buf b;
	press_render(&a, OUT_JSON, tu_buf_open(&b));
	const char *j = tu_buf_close(&b);
	assert_non_null(strstr(j, "\"verdict\": \"cache-sensitive\""));
	assert_non_null(strstr(j, "\"steps\": ["));
	assert_non_null(strstr(j, "{\"taken_bytes\": 4194304, \"held_bytes\": "));
	assert_non_null(strstr(j, "\"delta_pct\": "));
	assert_non_null(strstr(j, "\"ci\": ["));
	assert_non_null(strstr(j, "\"verdict\": \"worse\""));
	assert_non_null(strstr(j, "\"kind\": \"pressure\""));
	assert_non_null(strstr(j, "\"cpus\": [0, 1]"));
	free(b.data);
	press_render(&a, OUT_TABLE, tu_buf_open(&b));
	j = tu_buf_close(&b);
	assert_non_null(strstr(j, "0 (A/A)"));
	assert_non_null(strstr(j, "24 MiB"));
	assert_non_null(strstr(j, "cache-sensitive: losing 4 MiB of 32 MiB"));
	free(b.data);
	press_render(&a, OUT_CSV, tu_buf_open(&b));
	j = tu_buf_close(&b);
	assert_true(!strncmp(j, "workload,curve_verdict,taken_bytes,held_bytes,left_bytes,"
			     "delta_pct,ci95_lo_pct,ci95_hi_pct,verdict,", 89));
	assert_non_null(strstr(j, "\nchase,cache-sensitive,25165824,"));
	free(b.data);
	press_render(&a, OUT_MARKDOWN, tu_buf_open(&b));
	j = tu_buf_close(&b);
	assert_non_null(strstr(j, "| taken"));
	free(b.data);
	press_analysis_release(&a);
	db_experiment_release(&e);
}

static void set_kv(struct db_kv *v, size_t n, const char *key, const char *val)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].key, key))
			continue;
		free(v[i].value);
		v[i].value = strdup(val);
		return;
	}
	fail_msg("no setting %s", key);
}

/*
 * The picture of a --method cat curve on a 512 KiB domain: its x axis in
 * KiB and named for the ways withheld, the domain marked, one workload's
 * verdict alone in the title, and a step whose runs all failed named
 * "n/a" with no CI bar.
 */
static void test_pressure__svg_in_kib_for_a_small_domain(void **state)
{
	(void)state;
	struct db_experiment e;
	build(&e, 6, flat, flat_ns, false);
	set_kv(e.settings, e.nsettings, "method", "cat");
	set_kv(e.settings, e.nsettings, "domain.bytes", "524288");
	static const char *const kib[NARMS] = { "0", "0", "65536", "131072", "262144",
						"393216" };
	for (size_t a = 0; a < NARMS; a++)
		set_kv(e.arms[a].settings, e.arms[a].nsettings, "pressure.taken_bytes",
		       kib[a]);
	for (size_t i = 0; i < e.nruns; i++)
		if (e.runs[i].arm == NARMS - 1)
			e.runs[i].exit_status = 1;
	struct press_analysis a;
	analyze(&e, NAN, &a);
	struct tu_buf b;
	press_render(&a, OUT_SVG, tu_buf_open(&b));
	const char *svg = tu_buf_close(&b);
	if (xc_have_xmllint())
		assert_int_equal(xc_lint(svg, false), 0);
	assert_true(!strncmp(svg, "<svg ", 5));
	assert_int_equal(xc_count(svg, "<g class=\"plot\""), 1);
	assert_non_null(strstr(svg, ">prof pressure, experiment 7: inconclusive</text>"));
	assert_non_null(strstr(svg, ">cache taken (L3 ways withheld) (KiB)</text>"));
	assert_null(strstr(svg, "MiB)</text>"));
	assert_non_null(strstr(svg, ">L3 512 KiB</text>"));
	assert_non_null(strstr(svg, ">n/a ("));
	assert_int_equal(xc_count(svg, "<g class=\"ci\">"), NSTEPS - 1);
	assert_non_null(strstr(svg, "resctrl allocation (fewer L3 ways)"));
	free(b.data);
	press_analysis_release(&a);
	db_experiment_release(&e);
}

static void test_pressure__refuses_other_experiments(void **state)
{
	(void)state;
	struct db_experiment e;
	build(&e, 2, sensitive, sensitive_ns, false);
	free(e.kind);
	e.kind = strdup("ab");
	struct press_analysis a;
	char *cause = NULL;
	assert_int_equal(press_analyze(&e, NAN, &a, &cause), -EINVAL);
	assert_non_null(strstr(cause, "not a pressure experiment"));
	free(cause);
	cause = NULL;
	free(e.kind);
	e.kind = strdup("pressure");
	/* No control arm: nothing to pair the steps with. */
	free(e.arms[0].settings[1].value);
	e.arms[0].settings[1].value = strdup("step");
	assert_int_equal(press_analyze(&e, NAN, &a, &cause), -EINVAL);
	assert_non_null(strstr(cause, "no control arm"));
	free(cause);
	db_experiment_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pressure__a_chase_in_the_llc_is_sensitive),
		cmocka_unit_test(test_pressure__other_work_on_the_cpu_withholds_the_verdict),
		cmocka_unit_test(test_pressure__a_chase_in_l2_is_not),
		cmocka_unit_test(test_pressure__noise_is_inconclusive_with_rounds),
		cmocka_unit_test(test_pressure__an_aa_step_that_moves_spoils_it),
		cmocka_unit_test(test_pressure__a_score_higher_is_better),
		cmocka_unit_test(test_pressure__the_rules_of_the_curve),
		cmocka_unit_test(test_pressure__json_contract_and_tables),
		cmocka_unit_test(test_pressure__svg_in_kib_for_a_small_domain),
		cmocka_unit_test(test_pressure__refuses_other_experiments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
