/*
 * Tests for prof/pressplan: steps read as fractions, percentages and
 * sizes, bounded by the domain; the default curve; the co-runner's CPU is
 * never an SMT sibling of the workload's (fixture trees with siblings
 * numbered both ways), prefers an L2 of its own, and a domain without a
 * second usable CPU is refused naming what is missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/pressplan.h"

#define MiB (1ull << 20)
#define TREE(name) FIXTURES_DIR "/sysfs/" name

static void test_pressplan__steps_in_every_form(void **state)
{
	(void)state;
	struct press_steps s;
	assert_int_equal(press_steps_parse("1/8, 25%,8M,4MiB,0,512K,3/4,4194304",
					   32 * MiB, &s, NULL), 0);
	/* Sorted, each once: 4 MiB was given three ways. */
	const uint64_t want[] = { 0, 512 * 1024, 4 * MiB, 8 * MiB, 24 * MiB };
	assert_int_equal(s.n, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(s.bytes[i], want[i]);
	/* Rounded down to a cache line; the whole domain is allowed. */
	assert_int_equal(press_steps_parse("1000,100%", 32 * MiB, &s, NULL), 0);
	assert_int_equal(s.bytes[0], 960);
	assert_int_equal(s.bytes[1], 32 * MiB);
	assert_int_equal(press_steps_parse("1.5M", 32 * MiB, &s, NULL), 0);
	assert_int_equal(s.bytes[0], 3 * MiB / 2);
}

static void test_pressplan__bad_steps(void **state)
{
	(void)state;
	struct press_steps s;
	char *cause = NULL;
	/* More than the domain: the co-runner's memory is bounded by it. */
	assert_int_equal(press_steps_parse("1/2,48M", 32 * MiB, &s, &cause), -ERANGE);
	assert_non_null(strstr(cause, "'48M' is more than the 32 MiB"));
	free(cause);
	cause = NULL;
	assert_int_equal(press_steps_parse("9/8", 32 * MiB, &s, NULL), -ERANGE);
	/* "1" is a byte, not the whole domain: refused, saying so. */
	assert_int_equal(press_steps_parse("0,1/2,1", 32 * MiB, &s, &cause), -EINVAL);
	assert_non_null(strstr(cause, "less than a cache line"));
	free(cause);
	cause = NULL;
	assert_int_equal(press_steps_parse("1/1", 32 * MiB, &s, NULL), 0);
	assert_int_equal(s.bytes[0], 32 * MiB);
	assert_int_equal(press_steps_parse("0", 32 * MiB, &s, &cause), -ERANGE);
	assert_non_null(strstr(cause, "takes nothing away"));
	free(cause);
	static const char *const bad[] = {
		"", "x", "1/0", "-1M", "4Q", "1/", "/2", "4M,,8M", "1e3", " ", "%",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = press_steps_parse(bad[i], 32 * MiB, &s, NULL);
		assert_true(rc == -EINVAL || rc == -ERANGE);
	}
}

static void test_pressplan__default_steps_and_labels(void **state)
{
	(void)state;
	struct press_steps s;
	press_steps_default(32 * MiB, &s);
	const uint64_t want[] = { 0, 4 * MiB, 8 * MiB, 16 * MiB, 24 * MiB };
	assert_int_equal(s.n, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(s.bytes[i], want[i]);
	char b[32];
	press_step_label(0, b, sizeof(b));
	assert_string_equal(b, "0");
	press_step_label(24 * MiB, b, sizeof(b));
	assert_string_equal(b, "24MiB");
	press_step_label(3 * MiB / 2, b, sizeof(b));
	assert_string_equal(b, "1.5MiB");
	press_step_label(640 * 1024, b, sizeof(b));
	assert_string_equal(b, "640KiB");
}

static void read_tree(struct topo *t, const char *root)
{
	char *cause = NULL;
	if (topo_read(t, root, &cause))
		fail_msg("%s", cause);
}

/* Ryzen 5900X: CPU i and i+12 share a core. */
static void test_pressplan__never_an_smt_sibling(void **state)
{
	(void)state;
	struct topo t;
	read_tree(&t, TREE("sym-2ccd"));
	struct press_cpus pc;
	assert_int_equal(press_pick(&t, NULL, NULL, NULL, true, &pc, NULL), 0);
	assert_int_equal(pc.domain->size_bytes, 32 * MiB);
	assert_int_equal(pc.workload_cpu, 0);
	assert_int_not_equal(pc.corunner_cpu, 12);
	assert_true(cpumask_has(&pc.domain->cpus, pc.corunner_cpu));
	assert_false(pc.l2_shared);
	assert_int_equal(pc.corunner_l2_bytes, 512 * 1024);
	/* Only siblings allowed besides the workload's CPU: refused. */
	struct cpumask allowed;
	cpumask_clear(&allowed);
	cpumask_set(&allowed, 0);
	cpumask_set(&allowed, 12);
	char *cause = NULL;
	assert_int_equal(press_pick(&t, NULL, NULL, &allowed, true, &pc, &cause), -ENODEV);
	assert_non_null(strstr(cause, "not an SMT sibling of CPU 0"));
	free(cause);
	cause = NULL;
	/* Asked for by hand: refused the same way. */
	assert_int_equal(press_pick(&t, NULL, "3,15", NULL, true, &pc, &cause), -ENODEV);
	assert_non_null(strstr(cause, "SMT sibling"));
	free(cause);
	cause = NULL;
	assert_int_equal(press_pick(&t, "llc:1", "6,7", NULL, true, &pc, NULL), 0);
	assert_int_equal(pc.corunner_cpu, 7);
	/* CPU 6 is not in the first CCD's L3. */
	assert_int_equal(press_pick(&t, "llc:0", "6,7", NULL, true, &pc, &cause), -ENODEV);
	assert_non_null(strstr(cause, "CPU 6 is not a usable CPU"));
	free(cause);
	topo_release(&t);
}

/* Intel numbering: package 0 is 0-3 and siblings 8-11; old file names. */
static void test_pressplan__siblings_numbered_intel_style(void **state)
{
	(void)state;
	struct topo t;
	read_tree(&t, TREE("two-socket"));
	struct press_cpus pc;
	assert_int_equal(press_pick(&t, NULL, NULL, NULL, true, &pc, NULL), 0);
	assert_int_equal(pc.workload_cpu, 0);
	assert_int_not_equal(pc.corunner_cpu, 8);
	assert_true(pc.corunner_cpu >= 1 && pc.corunner_cpu <= 11);
	topo_release(&t);
}

/* P-cores in SMT pairs; E-cores in clusters of four sharing an L2. */
static void test_pressplan__prefers_an_l2_of_its_own(void **state)
{
	(void)state;
	struct topo t;
	read_tree(&t, TREE("hybrid"));
	struct press_cpus pc;
	assert_int_equal(press_pick(&t, NULL, "16,17", NULL, true, &pc, NULL), 0);
	assert_true(pc.l2_shared);	/* allowed by hand, but said */
	struct cpumask allowed;
	cpumask_clear(&allowed);
	for (int c = 16; c < 24; c++)
		cpumask_set(&allowed, c);
	assert_int_equal(press_pick(&t, NULL, NULL, &allowed, true, &pc, NULL), 0);
	assert_int_equal(pc.workload_cpu, 16);
	assert_true(pc.corunner_cpu >= 20);	/* the other cluster */
	assert_false(pc.l2_shared);
	assert_int_equal(pc.corunner_l2_bytes, 2 * MiB);
	/* The workload on a P-core: its sibling 1 is never chosen. */
	assert_int_equal(press_pick(&t, NULL, NULL, NULL, true, &pc, NULL), 0);
	assert_int_equal(pc.workload_cpu, 0);
	assert_int_not_equal(pc.corunner_cpu, 1);
	topo_release(&t);
}

static void test_pressplan__refusals_name_what_is_missing(void **state)
{
	(void)state;
	struct topo t;
	struct press_cpus pc;
	char *cause = NULL;
	read_tree(&t, TREE("smt-pair"));
	assert_int_equal(press_pick(&t, NULL, NULL, NULL, true, &pc, &cause), -ENODEV);
	assert_non_null(strstr(cause, "16 MiB L3 (CPUs 0-1) has no second CPU that is "
			       "not an SMT sibling of CPU 0"));
	free(cause);
	cause = NULL;
	/* With resctrl (no co-runner), one CPU is enough. */
	assert_int_equal(press_pick(&t, NULL, NULL, NULL, false, &pc, NULL), 0);
	assert_int_equal(pc.corunner_cpu, -1);
	topo_release(&t);

	read_tree(&t, TREE("one-cpu"));
	assert_int_equal(press_pick(&t, NULL, NULL, NULL, true, &pc, &cause), -ENODEV);
	assert_non_null(strstr(cause, "no cache domain to take capacity from"));
	free(cause);
	cause = NULL;
	assert_int_equal(press_pick(&t, "llc:0", NULL, NULL, true, &pc, &cause), -ENODEV);
	assert_non_null(strstr(cause, "has no second usable CPU"));
	free(cause);
	cause = NULL;
	topo_release(&t);

	read_tree(&t, TREE("no-l3"));
	assert_int_equal(press_pick(&t, NULL, NULL, NULL, true, &pc, &cause), -ENODEV);
	assert_non_null(strstr(cause, "no cache domain"));
	free(cause);
	cause = NULL;
	topo_release(&t);

	read_tree(&t, TREE("sym-2ccd"));
	assert_int_equal(press_pick(&t, "llc:2", NULL, NULL, true, &pc, &cause), -ERANGE);
	assert_non_null(strstr(cause, "llc:0 to llc:1"));
	free(cause);
	cause = NULL;
	static const char *const bad_domain[] = { "l2:0", "llc:", "llc:x", "llc:-1" };
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(press_pick(&t, bad_domain[i], NULL, NULL, true, &pc, NULL),
				 -EINVAL);
	static const char *const bad_cpus[] = { "0", "0,0", "a,1", "0,1,2", "0,", "-1,2" };
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(press_pick(&t, NULL, bad_cpus[i], NULL, true, &pc, NULL),
				 -EINVAL);
	assert_int_equal(press_pick(&t, NULL, "0,1", NULL, false, &pc, NULL), -EINVAL);
	topo_release(&t);

	read_tree(&t, TREE("malformed"));
	assert_int_equal(press_pick(&t, NULL, NULL, NULL, true, &pc, &cause), -ENODATA);
	assert_non_null(strstr(cause, "unusable"));
	free(cause);
	topo_release(&t);
}

static void test_pressplan__buffers(void **state)
{
	(void)state;
	assert_int_equal(press_control_bytes(1 * MiB), 512 * 1024);
	assert_int_equal(press_control_bytes(1280 * 1024), 640 * 1024);
	assert_int_equal(press_control_bytes(0), 256 * 1024);
	assert_int_equal(press_control_bytes(16 * 1024), 16 * 1024);
	assert_int_equal(press_hit_bytes(1 * MiB, 32 * MiB), 2 * MiB);
	assert_int_equal(press_hit_bytes(1 * MiB, 4 * MiB), 1 * MiB);
	assert_int_equal(press_hit_bytes(0, 32 * MiB), 1 * MiB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pressplan__steps_in_every_form),
		cmocka_unit_test(test_pressplan__bad_steps),
		cmocka_unit_test(test_pressplan__default_steps_and_labels),
		cmocka_unit_test(test_pressplan__never_an_smt_sibling),
		cmocka_unit_test(test_pressplan__siblings_numbered_intel_style),
		cmocka_unit_test(test_pressplan__prefers_an_l2_of_its_own),
		cmocka_unit_test(test_pressplan__refusals_name_what_is_missing),
		cmocka_unit_test(test_pressplan__buffers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
