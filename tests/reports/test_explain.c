/*
 * Tests for reports/explain: each rule on its own, from inputs shaped like
 * the cases our users measured (three recompiler backends; pinning on a
 * symmetric and an asymmetric part), and the refusals: missing counters
 * and single runs claim nothing; a pressure experiment's curve is
 * capacity evidence where the counters cannot tell.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "reports/explain.h"
#include "test_util.h"

#define MiB (1024.0 * 1024.0)

static struct explain_metric M(const char *name, double a, double b,
			       enum stats_verdict v)
{
	struct explain_metric m;
	memset(&m, 0, sizeof(m));
	m.name = name;
	m.supported = true;
	m.a = a;
	m.b = b;
	m.delta_pct = 100.0 * (b / a - 1);
	m.have_stats = true;
	m.ci_lo = m.delta_pct - 3;
	m.ci_hi = m.delta_pct + 3;
	m.p_value = 0.031;
	m.gate_pct = 1;
	m.verdict = v;
	return m;
}

static struct explain_metric UNSUP(const char *name)
{
	struct explain_metric m;
	memset(&m, 0, sizeof(m));
	m.name = name;
	m.supported = false;
	m.a = m.b = m.delta_pct = NAN;
	return m;
}

static void base_input(struct explain_input *in, struct explain_metric *ms, size_t n)
{
	memset(in, 0, sizeof(*in));
	in->metrics = ms;
	in->nmetrics = n;
	in->rounds = 6;
	in->experiment_id = 1;
	for (int s = 0; s < 2; s++) {
		in->side[s].label = s ? "B" : "A";
		in->side[s].cpu_model = "AMD Ryzen 9 5900X";
		in->side[s].footprint_bytes = NAN;
		in->side[s].touched_code_bytes = NAN;
		in->side[s].touched_data_bytes = NAN;
	}
}

static size_t count_kind(const struct explain_finding *f, size_t n, enum explain_kind k)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += f[i].kind == k;
	return c;
}

static const char *text_of(const struct explain_finding *f, size_t n, enum explain_kind k)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].kind == k)
			return f[i].text;
	return NULL;
}

/* SIM against plain LLVM: the module shrinks 404 -> 166 MB; LLC -40%,
 * iTLB -50%, L1i -24%, branch misses flat: a working-set effect. */
static void test_explain__footprint_effect(void **state)
{
	(void)state;
	struct explain_metric ms[] = {
		M("wall_s", 25.27, 19.22, VERDICT_BETTER),
		M("LLC-load-misses.pki", 5.0, 3.0, VERDICT_BETTER),
		M("iTLB-load-misses.pki", 2.0, 1.0, VERDICT_BETTER),
		M("L1-icache-load-misses.pki", 25.0, 19.0, VERDICT_BETTER),
		M("branch-misses.pki", 4.0, 4.02, VERDICT_EQUIVALENT),
	};
	struct explain_input in;
	base_input(&in, ms, 5);
	in.side[0].footprint_bytes = 404 * MiB;
	in.side[1].footprint_bytes = 166 * MiB;
	struct explain_finding *f;
	size_t n = explain_findings(&in, &f);
	assert_int_equal(count_kind(f, n, FINDING_FOOTPRINT), 1);
	assert_int_equal(count_kind(f, n, FINDING_CODEGEN), 0);
	const char *t = text_of(f, n, FINDING_FOOTPRINT);
	assert_non_null(strstr(t, "code footprint moved -58.9% (404 MiB -> 166 MiB)"));
	assert_non_null(strstr(t, "LLC misses -40.0%"));
	assert_non_null(strstr(t, "iTLB misses -50.0%"));
	assert_non_null(strstr(t, "L1i misses -24.0%"));
	assert_non_null(strstr(t, "branch misses +0.5%"));
	explain_findings_free(f, n);

	/* Branch misses moving too: not a pure working-set effect. */
	ms[4] = M("branch-misses.pki", 4.0, 2.0, VERDICT_BETTER);
	n = explain_findings(&in, &f);
	assert_int_equal(count_kind(f, n, FINDING_FOOTPRINT), 0);
	explain_findings_free(f, n);

	/* A footprint change under 10% fires nothing. */
	ms[4] = M("branch-misses.pki", 4.0, 4.02, VERDICT_EQUIVALENT);
	in.side[1].footprint_bytes = 380 * MiB;
	n = explain_findings(&in, &f);
	assert_int_equal(count_kind(f, n, FINDING_FOOTPRINT), 0);
	explain_findings_free(f, n);
}

/* Plain LLVM against C: branch misses -56%, iTLB +22% the other way. */
static void test_explain__codegen_effect(void **state)
{
	(void)state;
	struct explain_metric ms[] = {
		M("wall_s", 30.3, 25.27, VERDICT_BETTER),
		M("LLC-load-misses.pki", 5.0, 5.05, VERDICT_EQUIVALENT),
		M("iTLB-load-misses.pki", 1.64, 2.0, VERDICT_WORSE),
		M("L1-icache-load-misses.pki", 25.0, 25.1, VERDICT_INCONCLUSIVE),
		M("branch-misses.pki", 9.1, 4.0, VERDICT_BETTER),
	};
	struct explain_input in;
	base_input(&in, ms, 5);
	struct explain_finding *f;
	size_t n = explain_findings(&in, &f);
	assert_int_equal(count_kind(f, n, FINDING_CODEGEN), 1);
	const char *t = text_of(f, n, FINDING_CODEGEN);
	assert_non_null(strstr(t, "branch misses -56.0%"));
	assert_non_null(strstr(t, "iTLB misses +22.0%"));
	assert_non_null(strstr(t, "the other way"));
	explain_findings_free(f, n);

	/* Every footprint counter flat: codegen, stated as such. */
	ms[2] = M("iTLB-load-misses.pki", 2.0, 2.01, VERDICT_EQUIVALENT);
	n = explain_findings(&in, &f);
	t = text_of(f, n, FINDING_CODEGEN);
	assert_non_null(t);
	assert_non_null(strstr(t, "stayed within noise"));
	explain_findings_free(f, n);

	/* Footprint misses moving with the branches: not codegen alone. */
	ms[1] = M("LLC-load-misses.pki", 5.0, 3.0, VERDICT_BETTER);
	n = explain_findings(&in, &f);
	assert_int_equal(count_kind(f, n, FINDING_CODEGEN), 0);
	explain_findings_free(f, n);
}

/* Pinning to one of two equal 32 MB L3 domains (the 5900X): the null,
 * stated exactly. */
static void test_explain__same_size_domains_state_the_null(void **state)
{
	(void)state;
	struct explain_metric ms[] = {
		M("wall_s", 1.0, 1.014, VERDICT_INCONCLUSIVE),
		M("LLC-load-misses.pki", 5.0, 5.1, VERDICT_INCONCLUSIVE),
	};
	struct explain_input in;
	base_input(&in, ms, 2);
	for (int s = 0; s < 2; s++) {
		in.side[s].domain_level = 3;
		in.side[s].domain_bytes = 32 * MiB;
		in.side[s].domain_cpus = s ? "6-11,18-23" : "0-5,12-17";
	}
	struct explain_finding *f;
	size_t n = explain_findings(&in, &f);
	assert_int_equal(count_kind(f, n, FINDING_NO_DOMAIN_EFFECT), 1);
	assert_int_equal(count_kind(f, n, FINDING_CACHE_DOMAIN), 0);
	assert_string_equal(text_of(f, n, FINDING_NO_DOMAIN_EFFECT),
		"both sides ran in 32 MiB L3 domains: domain choice cannot matter here; "
		"this says nothing about capacity (whether 32 MiB holds the working set)");
	explain_findings_free(f, n);
}

/* The 9950X3D: 32 MB against 96 MB, time and LLC misses both lower on the
 * larger die. */
static void test_explain__cache_domain_effect(void **state)
{
	(void)state;
	struct explain_metric ms[] = {
		M("wall_s", 1.0, 0.8, VERDICT_BETTER),
		M("LLC-load-misses.pki", 5.0, 3.0, VERDICT_BETTER),
	};
	struct explain_input in;
	base_input(&in, ms, 2);
	in.side[0].domain_level = in.side[1].domain_level = 3;
	in.side[0].domain_bytes = 32 * MiB;
	in.side[1].domain_bytes = 96 * MiB;
	struct explain_finding *f;
	size_t n = explain_findings(&in, &f);
	assert_int_equal(count_kind(f, n, FINDING_CACHE_DOMAIN), 1);
	const char *t = text_of(f, n, FINDING_CACHE_DOMAIN);
	assert_non_null(strstr(t, "A ran in a 32 MiB L3 domain and B in 96 MiB"));
	explain_findings_free(f, n);

	/* Faster but more misses: not in favour of the larger. */
	ms[1] = M("LLC-load-misses.pki", 5.0, 6.0, VERDICT_WORSE);
	n = explain_findings(&in, &f);
	assert_int_equal(count_kind(f, n, FINDING_CACHE_DOMAIN), 0);
	assert_int_equal(count_kind(f, n, FINDING_NO_DOMAIN_EFFECT), 1);
	explain_findings_free(f, n);
}

/* This VM: no hardware counters. The footprint moved, but nothing is
 * claimed: the missing counters are named, and the evidence shown. */
static void test_explain__missing_counters_cannot_tell(void **state)
{
	(void)state;
	struct explain_metric ms[] = {
		M("wall_s", 1.0, 1.3, VERDICT_WORSE),
		UNSUP("LLC-load-misses.per_cpu_ms"),
		UNSUP("iTLB-load-misses.per_cpu_ms"),
		UNSUP("L1-icache-load-misses.per_cpu_ms"),
		UNSUP("branch-misses.per_cpu_ms"),
		UNSUP("instructions"),
	};
	struct explain_input in;
	base_input(&in, ms, 6);
	in.side[0].footprint_bytes = 3 * MiB;
	in.side[1].footprint_bytes = 40 * MiB;
	in.side[0].domain_level = 3;
	in.side[1].domain_level = 3;
	in.side[0].domain_bytes = 32 * MiB;
	in.side[1].domain_bytes = 96 * MiB;
	struct explain_finding *f;
	size_t n = explain_findings(&in, &f);
	assert_int_equal(count_kind(f, n, FINDING_FOOTPRINT), 0);
	assert_int_equal(count_kind(f, n, FINDING_CODEGEN), 0);
	assert_int_equal(count_kind(f, n, FINDING_CACHE_DOMAIN), 0);
	assert_true(count_kind(f, n, FINDING_CANNOT_TELL) >= 2);
	const char *t = text_of(f, n, FINDING_CANNOT_TELL);
	assert_non_null(strstr(t, "LLC-load-misses, iTLB-load-misses, "
			       "L1-icache-load-misses, branch-misses "
			       "are not supported on this machine"));
	assert_non_null(strstr(t, "wall time +30.0%"));
	assert_non_null(strstr(t, "code footprint +1233.3%"));
	explain_findings_free(f, n);
}

/*
 * No hardware counter at all and nothing else large enough for a rule:
 * explain says it cannot tell, naming the counters, instead of "no rule
 * fired: nothing here points at footprint, code generation or the cache
 * domain", which read as a finding. A side pinned to a CPU list shows its
 * pin, not "not pinned".
 */
static void test_explain__no_counters_and_no_rule_is_cannot_tell(void **state)
{
	(void)state;
	struct explain_metric ms[] = {
		M("wall_s", 1.0, 1.01, VERDICT_EQUIVALENT),
		UNSUP("LLC-load-misses.per_cpu_ms"),
		UNSUP("branch-misses.per_cpu_ms"),
	};
	struct explain_input in;
	base_input(&in, ms, 3);
	in.side[0].pin_mode = "cpus:0";
	in.side[1].pin_mode = "cpus:0";
	struct explain_finding *f;
	size_t n = explain_findings(&in, &f);
	assert_int_equal(n, 1);
	assert_int_equal(f[0].kind, FINDING_CANNOT_TELL);
	assert_non_null(strstr(f[0].text, "no cache or branch counter was counted"));
	assert_non_null(strstr(f[0].text, "LLC-load-misses"));
	struct tu_buf b;
	explain_render(&in, f, n, OUT_TABLE, tu_buf_open(&b));
	const char *t = tu_buf_close(&b);
	assert_null(strstr(t, "no rule fired"));
	assert_null(strstr(t, "not pinned"));
	assert_non_null(strstr(t, "none (pinned cpus:0)"));
	free(b.data);
	explain_findings_free(f, n);

	/* with a counter that counted, silence stays "no rule fired" */
	struct explain_metric hw[] = {
		M("wall_s", 1.0, 1.01, VERDICT_EQUIVALENT),
		M("LLC-load-misses.per_cpu_ms", 10, 10.1, VERDICT_EQUIVALENT),
	};
	base_input(&in, hw, 2);
	n = explain_findings(&in, &f);
	assert_int_equal(n, 0);
	explain_findings_free(f, n);
}

/* One run per side: whatever the numbers, no effect is claimed. */
static void test_explain__single_runs_claim_nothing(void **state)
{
	(void)state;
	struct explain_metric ms[] = {
		M("wall_s", 25.27, 19.22, VERDICT_BETTER),
		M("LLC-load-misses.pki", 5.0, 3.0, VERDICT_BETTER),
		M("iTLB-load-misses.pki", 2.0, 1.0, VERDICT_BETTER),
		M("L1-icache-load-misses.pki", 25.0, 19.0, VERDICT_BETTER),
		M("branch-misses.pki", 4.0, 4.02, VERDICT_EQUIVALENT),
	};
	for (size_t i = 0; i < 5; i++)
		ms[i].have_stats = false;
	struct explain_input in;
	base_input(&in, ms, 5);
	in.single_runs = true;
	in.experiment_id = 0;
	in.side[0].footprint_bytes = 404 * MiB;
	in.side[1].footprint_bytes = 166 * MiB;
	struct explain_finding *f;
	size_t n = explain_findings(&in, &f);
	assert_int_equal(count_kind(f, n, FINDING_FOOTPRINT), 0);
	assert_int_equal(count_kind(f, n, FINDING_CODEGEN), 0);
	assert_int_equal(count_kind(f, n, FINDING_CACHE_DOMAIN), 0);
	assert_non_null(strstr(text_of(f, n, FINDING_CANNOT_TELL),
			       "one run each, no noise estimate"));
	/* And the rendering says so too, in JSON with the contract keys. */
	struct tu_buf b;
	explain_render(&in, f, n, OUT_JSON, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	assert_non_null(strstr(s, "\"findings\": ["));
	assert_non_null(strstr(s, "\"kind\": \"cannot-tell\""));
	free(b.data);
	explain_findings_free(f, n);
}

/* CSV: one line per row of the side-by-side table, raw numbers, the
 * interval spelled out, and an unsupported metric blank. */
static void test_explain__csv_is_the_side_by_side_table(void **state)
{
	(void)state;
	struct explain_metric ms[] = {
		M("wall_s", 25.0, 20.0, VERDICT_BETTER),
		UNSUP("L1-icache-load-misses.pki"),
	};
	struct explain_input in;
	base_input(&in, ms, 2);
	in.side[0].footprint_bytes = 4 * MiB;
	in.side[1].footprint_bytes = 2 * MiB;
	struct tu_buf b;
	explain_render(&in, NULL, 0, OUT_CSV, tu_buf_open(&b));
	assert_string_equal(tu_buf_close(&b),
		"metric,supported,a,b,delta_pct,ci95_lo_pct,ci95_hi_pct,verdict\n"
		"code_footprint_bytes,true,4194304,2097152,-50,,,\n"
		"wall_s,true,25,20,-20,-23,-17,better\n"
		"L1-icache-load-misses.pki,false,,,,,,\n");
	free(b.data);
}

/* A VM without a PMU: the domain rule cannot tell, the pressure curve can. */
static void test_explain__capacity_from_a_pressure_curve(void **state)
{
	(void)state;
	struct explain_metric ms[] = {
		M("wall_s", 0.30, 2.10, VERDICT_WORSE),
		UNSUP("llc-misses.per_cpu_ms"),
		UNSUP("branch-misses.per_cpu_ms"),
	};
	struct explain_input in;
	base_input(&in, ms, 3);
	for (int s = 0; s < 2; s++) {
		in.side[s].domain_level = 3;
		in.side[s].domain_cpus = "0-1";
	}
	in.side[0].domain_bytes = 32 * MiB;
	in.side[1].domain_bytes = 16 * MiB;
	static const struct {
		enum press_verdict v;
		enum explain_kind kind;
		const char *says;
	} cases[] = {
		{ PRESS_SENSITIVE, FINDING_CAPACITY, "capacity effect (pressure experiment "
		  "9, workload emu): cache-sensitive: losing 4 MiB" },
		{ PRESS_NOT_SENSITIVE, FINDING_NO_CAPACITY_EFFECT, "no capacity effect" },
		{ PRESS_INCONCLUSIVE, FINDING_CANNOT_TELL, "cannot tell whether capacity "
		  "matters" },
	};
	struct explain_finding *f;
	size_t n = explain_findings(&in, &f);
	size_t base_cannot = count_kind(f, n, FINDING_CANNOT_TELL);
	assert_true(base_cannot >= 1);
	for (size_t i = 0; i < n; i++)
		assert_string_not_equal(f[i].rule, "capacity");
	explain_findings_free(f, n);
	for (size_t k = 0; k < 3; k++) {
		struct explain_capacity cap = { 9, "emu", cases[k].v,
			"cache-sensitive: losing 4 MiB of 32 MiB costs +40.0% [+35.0, +45.0] "
			"CPU time", false, false };
		in.capacity = &cap;
		n = explain_findings(&in, &f);
		/* The counters still cannot tell what they could not. */
		assert_int_equal(count_kind(f, n, FINDING_CANNOT_TELL),
				 base_cannot + (cases[k].kind == FINDING_CANNOT_TELL));
		bool found = false;
		for (size_t i = 0; i < n; i++)
			found = found || (f[i].kind == cases[k].kind &&
					  !strcmp(f[i].rule, "capacity") &&
					  strstr(f[i].text, cases[k].says));
		if (!found)
			fail_msg("case %zu: no %s finding", k, explain_kind_name(cases[k].kind));
		struct tu_buf b;
		explain_render(&in, f, n, OUT_JSON, tu_buf_open(&b));
		const char *j = tu_buf_close(&b);
		char want[64];
		snprintf(want, sizeof(want), "\"kind\": \"%s\"",
			 explain_kind_name(cases[k].kind));
		assert_non_null(strstr(j, want));
		free(b.data);
		explain_findings_free(f, n);
	}
	/* A simulated curve says it is a model's, not a measurement. */
	struct explain_capacity sim = { 10, "chase", PRESS_SENSITIVE,
		"cache-sensitive: losing 6 MiB of 8 MiB costs +2142.7% [+2142.7, "
		"+2142.7] llc-misses", false, true };
	in.capacity = &sim;
	n = explain_findings(&in, &f);
	bool said = false;
	for (size_t i = 0; i < n; i++)
		said = said || (f[i].kind == FINDING_CAPACITY &&
				strstr(f[i].text, "in valgrind's cache model") &&
				strstr(f[i].text, "simulated, not measured") &&
				!strstr(f[i].text, "measured without counters"));
	assert_true(said);
	explain_findings_free(f, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_explain__footprint_effect),
		cmocka_unit_test(test_explain__codegen_effect),
		cmocka_unit_test(test_explain__same_size_domains_state_the_null),
		cmocka_unit_test(test_explain__cache_domain_effect),
		cmocka_unit_test(test_explain__missing_counters_cannot_tell),
		cmocka_unit_test(test_explain__no_counters_and_no_rule_is_cannot_tell),
		cmocka_unit_test(test_explain__single_runs_claim_nothing),
		cmocka_unit_test(test_explain__csv_is_the_side_by_side_table),
		cmocka_unit_test(test_explain__capacity_from_a_pressure_curve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
