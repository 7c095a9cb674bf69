/*
 * Tests for collectors/cpuid and the mission map's raw families: the
 * identity readers on the trees under tests/fixtures/cpuid/ (x86
 * /proc/cpuinfo, arm64 MIDR_EL1, the hybrid PMUs), which family each tree
 * gets per core PMU, and what events.c opens for every mission counter
 * there: PERF_TYPE_RAW with the config perf's tables give, as
 * tests/fixtures/mission/perf-tables.txt records it. libpfm4 is forced to
 * its "perf" PMU, as on a processor it does not know, and PROF_CPUID_ROOT
 * points the identity at each tree in turn.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cpuid.h"
#include "collectors/events.h"
#include "collectors/mission.h"
#include "mission_fixture.h"

#define TREE(name) FIXTURES_DIR "/cpuid/" name

static void test_cpuid__reads_x86(void **state)
{
	(void)state;
	static const struct {
		const char *tree, *vendor;
		unsigned family, model;
		bool hybrid;
		const char *key;
	} cases[] = {
		{ "adl-hybrid", "GenuineIntel", 6, 0x97, true, "GenuineIntel-6-97" },
		{ "rpl-hybrid", "GenuineIntel", 6, 0xb7, true, "GenuineIntel-6-B7" },
		{ "adl-pcores", "GenuineIntel", 6, 0x97, false, "GenuineIntel-6-97" },
		{ "adl-n", "GenuineIntel", 6, 0xbe, false, "GenuineIntel-6-BE" },
		{ "zen5", "AuthenticAMD", 26, 0x44, false, "AuthenticAMD-26-44" },
		{ "zen4", "AuthenticAMD", 25, 0x61, false, "AuthenticAMD-25-61" },
		{ "emr", "GenuineIntel", 6, 0xcf, false, "GenuineIntel-6-CF" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char root[512], key[64];
		snprintf(root, sizeof(root), TREE("%s"), cases[i].tree);
		struct cpuid id;
		assert_int_equal(cpuid_read(root, &id), 0);
		assert_int_equal(id.arch, CPUID_X86);
		assert_string_equal(id.vendor, cases[i].vendor);
		assert_int_equal(id.family, cases[i].family);
		assert_int_equal(id.model, cases[i].model);
		if (id.hybrid != cases[i].hybrid)
			fail_msg("%s: hybrid %d", cases[i].tree, id.hybrid);
		cpuid_format(&id, key, sizeof(key));
		assert_string_equal(key, cases[i].key);
	}
}

static void test_cpuid__reads_arm64(void **state)
{
	(void)state;
	static const struct {
		const char *tree;
		uint64_t midr;
		unsigned part;
		const char *key;
	} cases[] = {
		{ "neoverse-n1", 0x413fd0c1, 0xd0c, "0x00000000410fd0c0" },
		{ "neoverse-v1", 0x411fd401, 0xd40, "0x00000000410fd400" },
		{ "neoverse-v2", 0x410fd4f0, 0xd4f, "0x00000000410fd4f0" },
		{ "neoverse-n2", 0x410fd490, 0xd49, "0x00000000410fd490" },
		{ "cortex-a72", 0x410fd083, 0xd08, "0x00000000410fd080" },
		{ "cortex-a76", 0x414fd0b1, 0xd0b, "0x00000000410fd0b0" },
		{ "cortex-a55", 0x412fd050, 0xd05, "0x00000000410fd050" },
		/* cpu0 is offline and exports no registers: cpu1's MIDR */
		{ "n1-cpu0-offline", 0x413fd0c1, 0xd0c, "0x00000000410fd0c0" },
		/* no MIDR in sysfs: /proc/cpuinfo's implementer and part */
		{ "n1-cpuinfo-only", 0x410fd0c0, 0xd0c, "0x00000000410fd0c0" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char root[512], key[64];
		snprintf(root, sizeof(root), TREE("%s"), cases[i].tree);
		struct cpuid id;
		assert_int_equal(cpuid_read(root, &id), 0);
		assert_int_equal(id.arch, CPUID_ARM64);
		if (id.midr != cases[i].midr)
			fail_msg("%s: midr %#" PRIx64, cases[i].tree, id.midr);
		assert_int_equal(id.implementer, 0x41);
		assert_int_equal(id.part, cases[i].part);
		assert_false(id.hybrid);
		cpuid_format(&id, key, sizeof(key));
		assert_string_equal(key, cases[i].key);
	}
}

/* The processor's name, where /proc/cpuinfo gives one. */
static void test_cpuid__model_name(void **state)
{
	(void)state;
	struct cpuid id;
	assert_int_equal(cpuid_read(TREE("emr"), &id), 0);
	assert_string_equal(id.model_name, "Intel(R) Xeon(R) Processor");
	assert_int_equal(cpuid_read(TREE("a72-model-last"), &id), 0);
	assert_string_equal(id.model_name, "Raspberry Pi 4 Model B Rev 1.4");
	assert_int_equal(id.arch, CPUID_ARM64);
	assert_int_equal(id.part, 0xd08);	/* the first processor's */
	assert_int_equal(cpuid_read(TREE("neoverse-n1"), &id), 0);
	assert_string_equal(id.model_name, "");
}

static void test_cpuid__errors_and_pmu_types(void **state)
{
	(void)state;
	struct cpuid id;
	assert_int_equal(cpuid_read(TREE("no-such-tree"), &id), -ENOENT);
	assert_int_equal(id.arch, CPUID_NONE);
	assert_int_equal(cpuid_read(TREE("malformed-midr"), &id), -EINVAL);
	/* the live machine has an identity of one kind or the other */
	assert_int_equal(cpuid_read(NULL, &id), 0);
	assert_true(id.arch == CPUID_X86 || id.arch == CPUID_ARM64);

	assert_int_equal(cpuid_pmu_type(TREE("adl-hybrid"), "cpu_core"), 4);
	assert_int_equal(cpuid_pmu_type(TREE("adl-hybrid"), "cpu_atom"), 10);
	assert_int_equal(cpuid_pmu_type(TREE("adl-hybrid"), "cpu"), -ENOENT);
	assert_int_equal(cpuid_pmu_type(TREE("adl-n"), "cpu"), 4);
	assert_int_equal(cpuid_pmu_type(TREE("adl-n"), "../cpu"), -ENOENT);
	assert_int_equal(cpuid_pmu_type(TREE("adl-n"), NULL), -ENOENT);
}

/* Which raw family a tree gets for the PMU PERF_TYPE_RAW reaches (NULL)
 * and for each named core PMU; NULL where the map has none. */
static const struct family_case {
	const char *tree;
	const char *dflt, *cpu, *core, *atom;	/* family names */
	const char *pmu;			/* what events.c reports */
} family_cases[] = {
	{ "adl-hybrid", "adl-glc", NULL, "adl-glc", "adl-grt", "cpu_core" },
	{ "rpl-hybrid", "adl-glc", NULL, "adl-glc", "adl-grt", "cpu_core" },
	{ "adl-pcores", "adl-glc", "adl-glc", NULL, NULL, "cpu" },
	{ "adl-n", "adln-grt", "adln-grt", NULL, NULL, "cpu" },
	{ "zen5", "zen5", "zen5", NULL, NULL, "cpu" },
	{ "neoverse-n1", "neoverse-n1", "neoverse-n1", NULL, NULL, "cpu" },
	{ "n1-cpu0-offline", "neoverse-n1", "neoverse-n1", NULL, NULL, "cpu" },
	{ "n1-cpuinfo-only", "neoverse-n1", "neoverse-n1", NULL, NULL, "cpu" },
	{ "neoverse-v1", "neoverse-v1", "neoverse-v1", NULL, NULL, "cpu" },
	{ "neoverse-v2", "neoverse-n2-v2", "neoverse-n2-v2", NULL, NULL, "cpu" },
	{ "neoverse-n2", "neoverse-n2-v2", "neoverse-n2-v2", NULL, NULL, "cpu" },
	{ "cortex-a72", "cortex-a57-a72", "cortex-a57-a72", NULL, NULL, "cpu" },
	{ "cortex-a76", "cortex-a76", "cortex-a76", NULL, NULL, "cpu" },
	/* libpfm4 4.13 names Zen 4; the map has neither of the others */
	{ "zen4", NULL, NULL, NULL, NULL, NULL },
	{ "emr", NULL, NULL, NULL, NULL, NULL },
	{ "cortex-a55", NULL, NULL, NULL, NULL, NULL },
};

static void expect_family(const char *tree, const char *pmu,
			  const struct mission_family *got, const char *want)
{
	if (!want && got)
		fail_msg("%s on %s: got %s, expected none", tree,
			 pmu ? pmu : "(default)", got->label);
	if (want && (!got || !got->raw || strcmp(got->name, want)))
		fail_msg("%s on %s: got %s, expected %s", tree,
			 pmu ? pmu : "(default)", got ? got->label : "none", want);
}

static void test_cpuid__family_by_identity(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(family_cases) / sizeof(family_cases[0]); i++) {
		const struct family_case *c = &family_cases[i];
		char root[512];
		snprintf(root, sizeof(root), TREE("%s"), c->tree);
		struct cpuid id;
		assert_int_equal(cpuid_read(root, &id), 0);
		expect_family(c->tree, NULL, mission_family_for_cpu(&id, NULL),
			      c->dflt);
		expect_family(c->tree, "cpu", mission_family_for_cpu(&id, "cpu"),
			      c->cpu);
		expect_family(c->tree, "cpu_core",
			      mission_family_for_cpu(&id, "cpu_core"), c->core);
		expect_family(c->tree, "cpu_atom",
			      mission_family_for_cpu(&id, "cpu_atom"), c->atom);
		if (id.arch == CPUID_ARM64)
			expect_family(c->tree, "armv8_pmuv3_0",
				      mission_family_for_cpu(&id, "armv8_pmuv3_0"),
				      c->cpu);
		expect_family(c->tree, "uncore_imc",
			      mission_family_for_cpu(&id, "uncore_imc"), NULL);
		/* a family's sysfs PMU is the one it was asked for */
		const struct mission_family *atom =
			mission_family_for_cpu(&id, "cpu_atom");
		if (atom)
			assert_string_equal(atom->sysfs_pmu, "cpu_atom");
	}
	assert_null(mission_family_for_cpu(NULL, NULL));
}

/*
 * Through events.c: with libpfm4 knowing no core PMU, each tree's family
 * is the identity's, and every mission counter opens as PERF_TYPE_RAW
 * with the config of its [cpuid:NAME] section; a modifier limits the
 * privilege level as for any name. A tree the map lacks gets perf's
 * generic events, the cache ones refused.
 */
static void test_cpuid__events_open_raw_configs(void **state)
{
	(void)state;
	struct mf_fixture fx;
	mf_read(&fx, FIXTURES_DIR "/mission/perf-tables.txt");
	for (size_t i = 0; i < sizeof(family_cases) / sizeof(family_cases[0]); i++) {
		const struct family_case *c = &family_cases[i];
		char root[512];
		snprintf(root, sizeof(root), TREE("%s"), c->tree);
		assert_int_equal(setenv("PROF_CPUID_ROOT", root, 1), 0);
		const char *pmu = NULL, *desc = NULL;
		const struct mission_family *fam = events_mission_family(&pmu, &desc);
		expect_family(c->tree, NULL, fam, c->dflt);
		struct event_desc ev;
		char *cause = NULL;
		if (!fam) {
			assert_int_equal(event_resolve("llc-misses", 0, &ev, &cause),
					 -EOPNOTSUPP);
			free(cause);
			continue;
		}
		assert_string_equal(pmu, c->pmu);
		char key[80];
		snprintf(key, sizeof(key), "cpuid:%s", fam->name);
		const struct mf_section *sec = mf_find(&fx, key);
		assert_non_null(sec);
		for (int m = 0; m < MISSION_COUNT; m++) {
			const struct mf_entry *want = mf_entry(sec, mission_names[m]);
			assert_non_null(want);
			int rc = event_resolve(mission_names[m], 0, &ev, &cause);
			if (rc)
				fail_msg("%s on %s: %s", mission_names[m], c->tree, cause);
			assert_int_equal(ev.attr.type, PERF_TYPE_RAW);
			if (ev.attr.config != mf_config(sec, want))
				fail_msg("%s on %s: config %#llx, perf's %s/%s says %s "
					 "= %#" PRIx64, mission_names[m], c->tree,
					 (unsigned long long)ev.attr.config, sec->table,
					 want->file, want->perf_name, mf_config(sec, want));
			assert_int_equal(ev.attr.config1, 0);
			assert_int_equal(ev.attr.size, sizeof(ev.attr));
			assert_int_equal(ev.attr.exclude_kernel, 0);
			assert_true(ev.hardware);
			assert_ptr_equal(ev.family, fam);
			assert_ptr_equal(ev.mission, &fam->events[m]);
			assert_string_equal(ev.mission->perf_name, want->perf_name);
			assert_true(!strncmp(ev.canonical, pmu, strlen(pmu)));
			event_desc_release(&ev);

			char user[64];
			snprintf(user, sizeof(user), "%s:u", mission_names[m]);
			assert_int_equal(event_resolve(user, 0, &ev, NULL), 0);
			assert_int_equal(ev.attr.config, mf_config(sec, want));
			assert_int_equal(ev.attr.exclude_kernel, 1);
			assert_int_equal(ev.attr.exclude_user, 0);
			event_desc_release(&ev);
		}
		/* a modifier libpfm4 does not know is refused, not dropped */
		assert_int_equal(event_resolve("cycles:zz", 0, &ev, &cause), -EINVAL);
		assert_non_null(cause);
		free(cause);
		cause = NULL;
	}
	unsetenv("PROF_CPUID_ROOT");
}

int main(void)
{
	/* Before libpfm4 starts: act as on a processor it does not know. */
	setenv("LIBPFM_FORCE_PMU", "perf", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuid__reads_x86),
		cmocka_unit_test(test_cpuid__reads_arm64),
		cmocka_unit_test(test_cpuid__model_name),
		cmocka_unit_test(test_cpuid__errors_and_pmu_types),
		cmocka_unit_test(test_cpuid__family_by_identity),
		cmocka_unit_test(test_cpuid__events_open_raw_configs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
