/*
 * Tests for collectors/runenv: every setting read from a fake machine
 * root (tests/fixtures/env/box: per-CPU governors that disagree, an
 * isolated CPU, boost, SMT, THP), and a root that has none of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "collectors/runenv.h"
#include "test_util.h"

#define BOX FIXTURES_DIR "/env/box"

static void expect(const struct runenv *e, const char *key, const char *value)
{
	const char *v = runenv_get(e, key);
	if (!v || strcmp(v, value))
		fail_msg("%s: expected '%s', got '%s'", key, value, v ? v : "(none)");
}

static void test_runenv__box(void **state)
{
	(void)state;
	struct runenv e;
	assert_int_equal(runenv_read(&e, BOX, BOX), 0);
	expect(&e, "kernel", "6.8.0-45-generic");
	expect(&e, "cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=2 nohz_full=2");
	expect(&e, "cpu_model", "Intel(R) Core(TM) i9-12900K");
	expect(&e, "microcode", "0x2c");
	expect(&e, "governor", "cpu0=performance cpu1=performance cpu2=powersave");
	expect(&e, "min_khz", "800000");
	expect(&e, "max_khz", "5200000");
	expect(&e, "boost", "on");
	expect(&e, "smt", "on");
	expect(&e, "thp", "madvise");
	expect(&e, "thp_defrag", "madvise");
	expect(&e, "perf_event_paranoid", "-1");
	expect(&e, "isolated", "2");
	expect(&e, "nohz_full", "2");
	expect(&e, "loadavg", "0.52 0.58 0.59");
	expect(&e, "numa_balancing", "1");
	expect(&e, "mitigation.meltdown", "Not affected");
	expect(&e, "mitigation.spectre_v2", "Mitigation: Enhanced IBRS");
	/* In the documented order; mitigations last, by name. */
	assert_string_equal(e.kv[0].key, "kernel");
	assert_string_equal(e.kv[e.n - 2].key, "mitigation.meltdown");
	assert_string_equal(e.kv[e.n - 1].key, "mitigation.spectre_v2");
	runenv_release(&e);
}

/* What a machine lacks is left out, not made up. */
static void test_runenv__nothing_there(void **state)
{
	(void)state;
	struct runenv e;
	assert_int_equal(runenv_read(&e, "/nonexistent", "/nonexistent"), 0);
	assert_int_equal(e.n, 0);
	runenv_release(&e);
	assert_int_equal(runenv_read(&e, FIXTURES_DIR "/env/thp-never", "/nonexistent"), 0);
	assert_int_equal(e.n, 1);
	expect(&e, "thp", "never");
	runenv_release(&e);
}

/* The core PMUs of /sys/bus/event_source/devices, "none" where it lists
 * only software PMUs (tests/fixtures/sysfs-pmu). */
static void test_runenv__core_pmus(void **state)
{
	(void)state;
	struct runenv e;
	assert_int_equal(runenv_read(&e, FIXTURES_DIR "/sysfs-pmu/intel-hybrid",
				     "/nonexistent"), 0);
	expect(&e, "core_pmus", "cpu_core (type 4, cpus 0-15), cpu_atom (type 10, "
	       "cpus 16-23)");
	runenv_release(&e);
	assert_int_equal(runenv_read(&e, FIXTURES_DIR "/sysfs-pmu/no-pmu",
				     "/nonexistent"), 0);
	expect(&e, "core_pmus", "none");
	runenv_release(&e);
	/* The box's tree has no event_source at all: left out. */
	assert_int_equal(runenv_read(&e, BOX, BOX), 0);
	assert_null(runenv_get(&e, "core_pmus"));
	runenv_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runenv__box),
		cmocka_unit_test(test_runenv__nothing_there),
		cmocka_unit_test(test_runenv__core_pmus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
