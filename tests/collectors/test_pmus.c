/*
 * Tests for collectors/pmus: the PMUs of the fake sysfs roots under
 * tests/fixtures/sysfs-pmu/ (x86 with one kind of core, Intel hybrid, an
 * arm64 VM, arm64 big.LITTLE, and a VM with no PMU, as this machine is),
 * which of them are core PMUs, the hint named for what was found, and
 * the extended config that aims an event at one core PMU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/pmus.h"
#include "test_util.h"

#define ROOT(c) FIXTURES_DIR "/sysfs-pmu/" c

static void read_case(struct pmu_list *l, const char *root)
{
	char *cause = NULL;
	int rc = pmus_read(l, root, &cause);
	if (rc)
		fail_msg("pmus_read(%s): %d: %s", root, rc, cause ? cause : "?");
	assert_null(cause);
}

static void expect_cpus(const struct pmu *p, const char *want)
{
	assert_true(p->has_cpus);
	char *got = cpumask_format(&p->cpus);
	assert_non_null(got);
	if (strcmp(got, want))
		fail_msg("%s: cpus '%s', expected '%s'", p->name, got, want);
	free(got);
}

static void expect_describe(const struct pmu_list *l, const char *want)
{
	char *got = pmus_describe(l);
	assert_non_null(got);
	if (strcmp(got, want))
		fail_msg("describe: '%s'\nexpected: '%s'", got, want);
	free(got);
}

static void test_pmus__x86_plain(void **state)
{
	(void)state;
	struct pmu_list l;
	read_case(&l, ROOT("x86-plain"));
	assert_int_equal(l.n, 9);
	assert_int_equal(l.ncore, 1);
	const struct pmu *cpu = &l.pmus[0];
	assert_string_equal(cpu->name, "cpu");
	assert_int_equal(cpu->type, PERF_TYPE_RAW);
	assert_true(cpu->core);
	assert_false(cpu->has_cpus);	/* serves every CPU */
	assert_string_equal(pmu_cap(cpu, "pmu_name"), "skylake");
	assert_string_equal(pmu_cap(cpu, "branches"), "32");
	assert_null(pmu_cap(cpu, "slots"));
	/* The rest by type: software 1 ... uncore_imc_0 15. */
	static const char *const rest[] = { "software", "tracepoint", "breakpoint",
		"kprobe", "uprobe", "msr", "power", "uncore_imc_0" };
	for (size_t i = 0; i < 8; i++) {
		assert_string_equal(l.pmus[1 + i].name, rest[i]);
		assert_false(l.pmus[1 + i].core);
	}
	const struct pmu *imc = pmus_find(&l, "uncore_imc_0");
	assert_non_null(imc);
	assert_int_equal(imc->type, 15);
	expect_cpus(imc, "0");	/* from its cpumask */
	assert_null(pmus_find(&l, "cpu_core"));
	expect_describe(&l, "cpu (type 4, all cpus)");
	pmus_release(&l);
}

static void test_pmus__intel_hybrid(void **state)
{
	(void)state;
	struct pmu_list l;
	read_case(&l, ROOT("intel-hybrid"));
	assert_int_equal(l.ncore, 2);
	/* P-cores first: the order of their types. */
	assert_string_equal(l.pmus[0].name, "cpu_core");
	assert_int_equal(l.pmus[0].type, 4);
	expect_cpus(&l.pmus[0], "0-15");
	assert_string_equal(l.pmus[1].name, "cpu_atom");
	assert_int_equal(l.pmus[1].type, 10);
	expect_cpus(&l.pmus[1], "16-23");
	assert_string_equal(pmu_cap(&l.pmus[1], "pmu_name"), "alderlake_hybrid");
	assert_false(cpumask_intersects(&l.pmus[0].cpus, &l.pmus[1].cpus));
	/* cstate and uncore PMUs have a cpumask but count no core events. */
	assert_false(pmus_find(&l, "cstate_core")->core);
	assert_false(pmus_find(&l, "uncore_imc_free_running_0")->core);
	expect_describe(&l, "cpu_core (type 4, cpus 0-15), cpu_atom (type 10, "
			"cpus 16-23)");
	assert_null(pmus_open_hint(ROOT("intel-hybrid")));
	pmus_release(&l);
}

static void test_pmus__arm64_vm(void **state)
{
	(void)state;
	struct pmu_list l;
	read_case(&l, ROOT("arm64-vm"));
	assert_int_equal(l.ncore, 1);
	assert_string_equal(l.pmus[0].name, "armv8_pmuv3_0");
	assert_int_equal(l.pmus[0].type, 8);
	expect_cpus(&l.pmus[0], "0");
	assert_string_equal(pmu_cap(&l.pmus[0], "slots"), "0x00000006");
	expect_describe(&l, "armv8_pmuv3_0 (type 8, cpus 0)");
	assert_null(pmus_open_hint(ROOT("arm64-vm")));
	pmus_release(&l);
}

static void test_pmus__arm64_big_little(void **state)
{
	(void)state;
	struct pmu_list l;
	read_case(&l, ROOT("arm64-big-little"));
	assert_int_equal(l.ncore, 2);
	assert_string_equal(l.pmus[0].name, "armv8_cortex_a53");
	expect_cpus(&l.pmus[0], "0-3");
	assert_string_equal(l.pmus[1].name, "armv8_cortex_a72");
	assert_int_equal(l.pmus[1].type, 9);
	expect_cpus(&l.pmus[1], "4-5");
	/* The DynamIQ shared unit has a cycles event, but no `cpus`. */
	const struct pmu *dsu = pmus_find(&l, "arm_dsu_0");
	assert_non_null(dsu);
	assert_false(dsu->core);
	pmus_release(&l);
}

static void test_pmus__no_pmu_names_what_is_there(void **state)
{
	(void)state;
	struct pmu_list l;
	read_case(&l, ROOT("no-pmu"));
	assert_int_equal(l.n, 3);
	assert_int_equal(l.ncore, 0);
	expect_describe(&l, "no core PMU in /sys/bus/event_source/devices (only "
			"software, tracepoint, breakpoint)");
	pmus_release(&l);
	char *hint = pmus_open_hint(ROOT("no-pmu"));
	assert_non_null(hint);
	assert_string_equal(hint, "hint: no core PMU in /sys/bus/event_source/devices "
			    "(only software, tracepoint, breakpoint): this looks like "
			    "a VM without counter passthrough; software events still "
			    "work");
	free(hint);
}

/* No devices directory at all: an error that names it, an empty list. */
static void test_pmus__missing_root(void **state)
{
	(void)state;
	struct pmu_list l;
	char *cause = NULL;
	assert_int_equal(pmus_read(&l, ROOT("no-such-case"), &cause), -ENOENT);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "sysfs-pmu/no-such-case/sys/bus/event_source/devices"));
	free(cause);
	assert_int_equal(l.n, 0);
	assert_null(l.pmus);
	expect_describe(&l, "no core PMU in /sys/bus/event_source/devices");
	pmus_release(&l);
	pmus_release(NULL);
}

static void put(const char *dir, const char *name, const char *text)
{
	char *path;
	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	free(path);
}

/* A directory without a type, or with a bad one, is no PMU; a bad CPU
 * list leaves a PMU without one. The generic rule finds a core PMU no
 * name rule knows (Apple's, under Asahi Linux). */
static void test_pmus__malformed_and_unknown(void **state)
{
	(void)state;
	char *root = tu_tmpdir();
	char *dev, *cmd;
	assert_true(asprintf(&dev, "%s/sys/bus/event_source/devices", root) > 0);
	assert_true(asprintf(&cmd, "mkdir -p %s/notype %s/badtype %s/neg "
			     "%s/apple_firestorm_pmu/events %s/badcpus", dev, dev, dev,
			     dev, dev) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	put(dev, "badtype/type", "4x\n");
	put(dev, "neg/type", "-1\n");
	put(dev, "apple_firestorm_pmu/type", "11\n");
	put(dev, "apple_firestorm_pmu/cpus", "4-7\n");
	put(dev, "apple_firestorm_pmu/events/cycles", "event=0x02\n");
	put(dev, "badcpus/type", "12\n");
	put(dev, "badcpus/cpumask", "0-\n");
	free(dev);
	struct pmu_list l;
	read_case(&l, root);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.ncore, 1);
	assert_string_equal(l.pmus[0].name, "apple_firestorm_pmu");
	expect_cpus(&l.pmus[0], "4-7");
	assert_string_equal(l.pmus[1].name, "badcpus");
	assert_false(l.pmus[1].has_cpus);
	pmus_release(&l);
	tu_rmrf(root);
	free(root);
}

static void test_pmus__core_rules(void **state)
{
	(void)state;
	assert_true(pmu_is_core("cpu", false, true));
	assert_true(pmu_is_core("cpu_core", true, true));
	assert_true(pmu_is_core("cpu_atom", true, true));
	assert_true(pmu_is_core("cpu_lowpower", true, true));
	assert_true(pmu_is_core("armv8_pmuv3_0", true, true));
	assert_true(pmu_is_core("armv8_neoverse_n1", false, false));
	assert_true(pmu_is_core("riscv_pmu", true, true));
	assert_false(pmu_is_core("riscv_pmu", true, false));
	assert_false(pmu_is_core("riscv_pmu", false, true));
	static const char *const never[] = { "software", "tracepoint", "breakpoint",
		"kprobe", "uprobe", "msr", "power", "uncore_imc_0", "cstate_pkg",
		"arm_spe_0", "arm_dsu_0", "amd_df", "intel_pt" };
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (pmu_is_core(never[i], true, true))
			fail_msg("%s taken for a core PMU", never[i]);
}

/* What perf sets for `cpu_atom/cycles/`: the PMU's type above bit 32. */
/* This machine's PMUs are read once; each caller owns its own copy, so
 * releasing one leaves the next (ASan would see a shared string). */
static void test_pmus__live_copies_are_each_callers(void **state)
{
	(void)state;
	struct pmu_list a, b, c;
	int ra = pmus_read(&a, NULL, NULL);
	int rb = pmus_read(&b, "/", NULL);
	assert_int_equal(ra, rb);
	if (ra) {
		fprintf(stderr, "no /sys/bus/event_source/devices here: skipped\n");
		skip();
	}
	assert_int_equal(a.n, b.n);
	assert_int_equal(a.ncore, b.ncore);
	for (size_t i = 0; i < a.n; i++) {
		assert_string_equal(a.pmus[i].name, b.pmus[i].name);
		assert_int_equal(a.pmus[i].type, b.pmus[i].type);
		assert_int_equal(a.pmus[i].ncaps, b.pmus[i].ncaps);
		assert_ptr_not_equal(a.pmus[i].name, b.pmus[i].name);
		for (size_t k = 0; k < a.pmus[i].ncaps; k++)
			assert_string_equal(a.pmus[i].caps[k].value,
					    pmu_cap(&b.pmus[i], a.pmus[i].caps[k].name));
	}
	pmus_release(&a);
	assert_int_equal(pmus_read(&c, NULL, NULL), 0);
	assert_int_equal(c.n, b.n);
	for (size_t i = 0; i < b.n; i++)
		assert_string_equal(b.pmus[i].name, c.pmus[i].name);
	pmus_release(&b);
	pmus_release(&c);
}

static void test_pmus__hw_config(void **state)
{
	(void)state;
	assert_int_equal(pmu_hw_config(10, PERF_COUNT_HW_CPU_CYCLES), 0xa00000000ull);
	assert_int_equal(pmu_hw_config(4, PERF_COUNT_HW_INSTRUCTIONS), 0x400000001ull);
	/* An L1d read miss: cache id | op << 8 | result << 16. */
	assert_int_equal(pmu_hw_config(10, 0x10000), 0xa00010000ull);
	/* Whatever type an old config carried is replaced. */
	assert_int_equal(pmu_hw_config(4, 0xa00000001ull), 0x400000001ull);
	assert_int_equal(pmu_hw_config(0, 5), 5);
}

/* Without a core PMU there is nothing to ask the kernel: true. With
 * one, the answer is this kernel's (asked of the intel-hybrid tree's
 * cpu_core type here: no such PMU on this VM, so any answer), and the
 * call must not leave a descriptor open. */
static void test_pmus__extended_type_probe(void **state)
{
	(void)state;
	struct pmu_list l;
	read_case(&l, ROOT("no-pmu"));
	assert_true(pmus_extended_type(&l));
	assert_true(pmus_extended_type(NULL));
	pmus_release(&l);
	read_case(&l, ROOT("intel-hybrid"));
	int before = dup(0);
	assert_true(before >= 0);
	close(before);
	(void)pmus_extended_type(&l);
	int after = dup(0);
	assert_int_equal(after, before);
	close(after);
	pmus_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pmus__x86_plain),
		cmocka_unit_test(test_pmus__intel_hybrid),
		cmocka_unit_test(test_pmus__arm64_vm),
		cmocka_unit_test(test_pmus__arm64_big_little),
		cmocka_unit_test(test_pmus__no_pmu_names_what_is_there),
		cmocka_unit_test(test_pmus__missing_root),
		cmocka_unit_test(test_pmus__malformed_and_unknown),
		cmocka_unit_test(test_pmus__core_rules),
		cmocka_unit_test(test_pmus__live_copies_are_each_callers),
		cmocka_unit_test(test_pmus__hw_config),
		cmocka_unit_test(test_pmus__extended_type_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
