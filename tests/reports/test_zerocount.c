/*
 * Tests for reports/zerocount: which hardware counters of a stored run
 * "counted 0 while instructions counted N" (tests/zerorun_fixture.h, a
 * run as QEMU's arm64 PMU gives one), and which must never be: software
 * events that read 0, a counter that never ran, a run where nothing
 * moved. Its rendering in every format is in test_runs_report.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <string.h>

#include "reports/zerocount.h"
#include "zerorun_fixture.h"

static void test_zerocount__qemu_arm64_run(void **state)
{
	(void)state;
	struct db_run r;
	fixture_zero_run(&r);
	struct counted_zero z;
	run_counted_zero(&r, &z);
	assert_non_null(z.ref);
	assert_string_equal(z.ref, "instructions");
	/* 8 * (1e6 + 4e6) + 2 * 16 */
	assert_true(z.ref_value == 40000032.0);
	assert_int_equal(z.n, 2);
	assert_true(z.zero[ZR_BRANCH_MISSES]);
	assert_true(z.zero[ZR_L1I_MISSES]);
	assert_false(z.zero[ZR_MAJOR_FAULTS]);	/* software: a 0 is normal */
	assert_false(z.zero[ZR_LLC_MISSES]);	/* never ran: "not counted" */
	assert_false(z.zero[ZR_CYCLES]);
	assert_false(z.zero[ZR_INSTRUCTIONS]);
	assert_false(z.zero[ZR_TASK_CLOCK]);
	char *text = counted_zero_text(&r, &z, NULL);
	assert_string_equal(text, "counted 0 while instructions counted 40,000,032: "
			    "this PMU may not implement them: branch-misses, l1i-misses");
	free(text);
	char *note = counted_zero_note(&z);
	assert_string_equal(note, "counted 0 while instructions counted 40000032: "
			    "this PMU may not implement it");
	free(note);
	counted_zero_release(&z);
	db_run_release(&r);
}

/* Nothing moved (instructions and cycles 0 too): no PMU is blamed. */
static void test_zerocount__nothing_moved(void **state)
{
	(void)state;
	struct db_run r;
	fixture_zero_run(&r);
	for (size_t e = ZR_CYCLES; e <= ZR_INSTRUCTIONS; e++) {
		r.events[e].total.value = 0;
		for (size_t t = 0; t < r.nthreads; t++)
			r.threads[t].counts[e].value = 0;
	}
	struct counted_zero z;
	run_counted_zero(&r, &z);
	assert_null(z.ref);
	assert_int_equal(z.n, 0);
	for (size_t e = 0; e < r.nevents; e++)
		assert_false(z.zero[e]);
	assert_null(counted_zero_text(&r, &z, NULL));
	counted_zero_release(&z);
	db_run_release(&r);
}

/* instructions refused (QEMU without -icount): cycles is the reference,
 * and a refused event is never "counted 0". */
static void test_zerocount__cycles_when_instructions_refused(void **state)
{
	(void)state;
	struct db_run r;
	fixture_zero_run(&r);
	r.events[ZR_INSTRUCTIONS].supported = false;
	r.events[ZR_INSTRUCTIONS].total.value = 0;
	struct counted_zero z;
	run_counted_zero(&r, &z);
	assert_string_equal(z.ref, "cycles");
	assert_int_equal(z.n, 2);
	assert_false(z.zero[ZR_INSTRUCTIONS]);
	counted_zero_release(&z);
	/* Only one reads 0: "it". */
	r.events[ZR_L1I_MISSES].total.value = 12;
	run_counted_zero(&r, &z);
	char *text = counted_zero_text(&r, &z, NULL);
	assert_non_null(strstr(text, "may not implement it: branch-misses"));
	free(text);
	counted_zero_release(&z);
	db_run_release(&r);
}

/* A multiplexed 0 is still 0 (scaled 0); a counter that moved is not
 * flagged however small. */
static void test_zerocount__scaled_and_small(void **state)
{
	(void)state;
	struct db_run r;
	fixture_zero_run(&r);
	r.events[ZR_BRANCH_MISSES].total.running /= 2;
	r.events[ZR_L1I_MISSES].total.value = 1;
	struct counted_zero z;
	run_counted_zero(&r, &z);
	assert_int_equal(z.n, 1);
	assert_true(z.zero[ZR_BRANCH_MISSES]);
	assert_false(z.zero[ZR_L1I_MISSES]);
	counted_zero_release(&z);
	db_run_release(&r);
}

static void test_zerocount__reference_names(void **state)
{
	(void)state;
	struct db_event e = { 0 };
	e.attr_type = PERF_TYPE_HARDWARE;
	e.attr_config = PERF_COUNT_HW_INSTRUCTIONS;
	assert_int_equal(event_ref_kind(&e), 1);
	/* Aimed at cpu_atom (type 10) on a hybrid machine. */
	e.attr_config = (10ull << 32) | PERF_COUNT_HW_CPU_CYCLES;
	assert_int_equal(event_ref_kind(&e), 2);
	e.attr_config = PERF_COUNT_HW_BRANCH_MISSES;
	assert_int_equal(event_ref_kind(&e), 0);
	/* The PMU's own names, through libpfm4 or as the user wrote them. */
	e.attr_type = PERF_TYPE_RAW;
	e.name = "instructions";
	e.canonical = "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS";
	assert_int_equal(event_ref_kind(&e), 1);
	e.name = "ir";
	assert_int_equal(event_ref_kind(&e), 1);
	e.canonical = "arm_a57::INST_RETIRED:u";
	assert_int_equal(event_ref_kind(&e), 1);
	e.canonical = "arm_a57::CPU_CYCLES";
	assert_int_equal(event_ref_kind(&e), 2);
	e.canonical = "skl::UNHALTED_CORE_CYCLES";
	assert_int_equal(event_ref_kind(&e), 2);
	e.canonical = "arm_a57::L1I_CACHE_REFILL";
	assert_int_equal(event_ref_kind(&e), 0);
	e.canonical = NULL;
	e.name = "cycles:u";
	assert_int_equal(event_ref_kind(&e), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zerocount__qemu_arm64_run),
		cmocka_unit_test(test_zerocount__nothing_moved),
		cmocka_unit_test(test_zerocount__cycles_when_instructions_refused),
		cmocka_unit_test(test_zerocount__scaled_and_small),
		cmocka_unit_test(test_zerocount__reference_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
