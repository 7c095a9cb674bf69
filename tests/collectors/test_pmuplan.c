/*
 * Tests for collectors/pmuplan: the attrs a run opens per core PMU, on
 * the fake sysfs roots of tests/fixtures/sysfs-pmu/. Machines with one
 * core PMU (or none) get exactly the attrs events.c resolves (the goldens
 * of tests/fixtures/attr/); the intel-hybrid tree gets one attr per core
 * PMU as tests/fixtures/attr/hybrid/ says; arm64-big-little splits the
 * same way, and maps each CPU to its cluster's PMU.
 *
 * The goldens with a `cpuid=` line resolve mission names for that CPU
 * identity: only in the run with LIBPFM_FORCE_PMU=perf (tests/CMakeLists),
 * where libpfm4 names no core PMU and the identity picks the family.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events.h"
#include "collectors/pmuplan.h"
#include "attr_field.h"
#include "test_util.h"

#define PMU_ROOT(c) FIXTURES_DIR "/sysfs-pmu/" c

static void read_pmus(struct pmu_list *l, const char *root)
{
	char *cause = NULL;
	if (pmus_read(l, root, &cause))
		fail_msg("pmus_read(%s): %s", root, cause ? cause : "?");
}

/* An attr golden's field; a key the goldens do not know fails the test. */
static uint64_t field_of(const struct perf_event_attr *a, const char *key)
{
	bool known;
	uint64_t v = attr_field(a, key, &known);
	if (!known)
		fail_msg("unknown key '%s'", key);
	return v;
}

static bool forced_perf(void)
{
	const char *f = getenv("LIBPFM_FORCE_PMU");
	return f && !strcmp(f, "perf");
}

/* The names of the .attr goldens in dir, from their name= lines. */
static size_t golden_names(const char *dir, char names[][128], size_t max)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < max) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".attr"))
			continue;
		char path[4096], line[256];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		FILE *fp = fopen(path, "r");
		assert_non_null(fp);
		while (fgets(line, sizeof(line), fp))
			if (!strncmp(line, "name=", 5)) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(names[n++], 128, "%.127s", line + 5);
				break;
			}
		fclose(fp);
	}
	closedir(d);
	return n;
}

/* One core PMU or none: each event is one attr, byte for byte the one
 * resolved, tied to no PMU, without a note. */
static void test_pmuplan__one_core_pmu_changes_nothing(void **state)
{
	(void)state;
	if (forced_perf())
		skip();	/* the plain run checks these */
	char names[64][128];
	size_t n = golden_names(FIXTURES_DIR "/attr", names, 64);
	assert_true(n >= 12);
	struct event_desc *evs = calloc(n, sizeof(*evs));
	assert_non_null(evs);
	for (size_t i = 0; i < n; i++) {
		char *cause = NULL;
		if (event_resolve(names[i], 0, &evs[i], &cause))
			fail_msg("%s: %s", names[i], cause);
	}
	const char *trees[] = { "x86-plain", "arm64-vm", "no-pmu" };
	for (size_t t = 0; t < 3; t++) {
		char root[4096];
		snprintf(root, sizeof(root), "%s/sysfs-pmu/%s", FIXTURES_DIR, trees[t]);
		struct pmu_list l;
		read_pmus(&l, root);
		struct pmu_plan p;
		assert_int_equal(pmu_plan_init(&p, evs, n, &l, NULL, 0, NULL), 0);
		assert_false(pmu_plan_split(&p));
		assert_int_equal(p.nattrs, n);
		assert_int_equal(p.npmus, 0);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(p.attrs[i].event, i);
			assert_int_equal(p.attrs[i].pmu, -1);
			if (memcmp(&p.attrs[i].attr, &evs[i].attr, sizeof(evs[i].attr)))
				fail_msg("%s on %s: attr differs from the resolved one",
					 names[i], trees[t]);
			assert_null(p.notes[i]);
			assert_true(pmu_plan_on_cpu(&p, i, 0));
			assert_null(pmu_plan_pmu_name(&p, i));
		}
		assert_int_equal(pmu_plan_cpu_pmu(&p, 0), -1);
		pmu_plan_release(&p);
		pmus_release(&l);
	}
	event_list_free(evs, n);
}

struct golden {
	char name[128], cpuid[64], note[128];
	bool has_note;
};

/* Checks the fields that follow each pmu= line of fp against p. */
static void check_parts(FILE *fp, const struct golden *g, const struct pmu_plan *p)
{
	char line[256];
	long part = -1;
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		char *eq = strchr(line, '=');
		assert_non_null(eq);
		*eq = '\0';
		const char *val = eq + 1;
		if (!strcmp(line, "pmu")) {
			part++;
			if ((size_t)part >= p->nattrs)
				fail_msg("%s: %zu attrs planned, the golden has more",
					 g->name, p->nattrs);
			const char *got = pmu_plan_pmu_name(p, (size_t)part);
			if (strcmp(got ? got : "any", val))
				fail_msg("%s: attr %ld on %s, golden says %s", g->name,
					 part, got ? got : "any", val);
			continue;
		}
		assert_true(part >= 0);
		uint64_t got = field_of(&p->attrs[part].attr, line);
		uint64_t want = strtoull(val, NULL, 0);
		if (got != want)
			fail_msg("%s on %s: %s is %#llx, golden says %#llx", g->name,
				 pmu_plan_pmu_name(p, (size_t)part), line,
				 (unsigned long long)got, (unsigned long long)want);
	}
	if ((size_t)(part + 1) != p->nattrs)
		fail_msg("%s: %zu attrs planned, the golden has %ld", g->name,
			 p->nattrs, part + 1);
}

/* The header lines (name=, cpuid=, note=) up to the first pmu= line. */
static void read_header(FILE *fp, struct golden *g)
{
	memset(g, 0, sizeof(*g));
	char line[256];
	long at = ftell(fp);
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "pmu=", 4)) {
			fseek(fp, at, SEEK_SET);
			return;
		}
		if (!strncmp(line, "name=", 5))
			snprintf(g->name, sizeof(g->name), "%.127s", line + 5);
		else if (!strncmp(line, "cpuid=", 6))
			snprintf(g->cpuid, sizeof(g->cpuid), "%.63s", line + 6);
		else if (!strncmp(line, "note=", 5)) {
			snprintf(g->note, sizeof(g->note), "%.127s", line + 5);
			g->has_note = true;
		}
		at = ftell(fp);
	}
}

/* One golden of attr/hybrid/: 1 when checked, 0 when not this run's. */
static int check_golden(const char *path, const struct pmu_list *l)
{
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	struct golden g;
	read_header(fp, &g);
	assert_true(g.name[0]);
	if (!!g.cpuid[0] != forced_perf()) {
		fclose(fp);
		return 0;
	}
	struct cpuid id, *idp = NULL;
	char root[4096];
	if (g.cpuid[0]) {
		snprintf(root, sizeof(root), "%s/cpuid/%s", FIXTURES_DIR, g.cpuid);
		assert_int_equal(cpuid_read(root, &id), 0);
		idp = &id;
		setenv("PROF_CPUID_ROOT", root, 1);
	}
	struct event_desc ev;
	char *cause = NULL;
	if (event_resolve(g.name, 0, &ev, &cause))
		fail_msg("%s: %s", g.name, cause);
	unsetenv("PROF_CPUID_ROOT");
	struct pmu_plan p;
	assert_int_equal(pmu_plan_init(&p, &ev, 1, l, idp, 0, NULL), 0);
	assert_true(pmu_plan_split(&p));
	if (g.has_note && (!p.notes[0] || !strstr(p.notes[0], g.note)))
		fail_msg("%s: note '%s', golden wants '%s'", g.name,
			 p.notes[0] ? p.notes[0] : "(none)", g.note);
	if (!g.has_note && p.notes[0])
		fail_msg("%s: unexpected note '%s'", g.name, p.notes[0]);
	check_parts(fp, &g, &p);
	fclose(fp);
	pmu_plan_release(&p);
	event_desc_release(&ev);
	return 1;
}

static void test_pmuplan__intel_hybrid_goldens(void **state)
{
	(void)state;
	struct pmu_list l;
	read_pmus(&l, PMU_ROOT("intel-hybrid"));
	const char *dir = FIXTURES_DIR "/attr/hybrid";
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	int checked = 0;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".attr"))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		checked += check_golden(path, &l);
	}
	closedir(d);
	pmus_release(&l);
	/* five plain goldens, three for the forced run's identity */
	assert_int_equal(checked, forced_perf() ? 3 : 5);
}

/* An event_desc as events.c makes a raw one: type RAW, config. */
static struct event_desc raw_desc(const char *name, uint64_t config)
{
	struct event_desc ev;
	memset(&ev, 0, sizeof(ev));
	ev.name = (char *)name;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_RAW;
	ev.attr.config = config;
	ev.hardware = true;
	return ev;
}

/*
 * A raw event without a table for each core type goes on the PMU it was
 * resolved for, with that PMU's type, and the note says the rest is not
 * counted: a libpfm4 encoding (on the lowest CPU's PMU, cpu_core), and a
 * mission name of a family made for cpu_core alone.
 */
static void test_pmuplan__raw_without_table_is_one_pmu(void **state)
{
	(void)state;
	struct pmu_list l;
	read_pmus(&l, PMU_ROOT("intel-hybrid"));
	struct event_desc ev[2] = { raw_desc("r00c0", 0xc0), raw_desc("cycles", 0x3c) };
	struct cpuid id;
	assert_int_equal(cpuid_read(FIXTURES_DIR "/cpuid/rpl-hybrid", &id), 0);
	ev[1].family = mission_family_for_cpu(&id, "cpu_core");
	assert_non_null(ev[1].family);
	ev[1].mission = mission_event_of(ev[1].family, "cycles");
	/* Without the identity there is no table per core type. */
	struct pmu_plan p;
	assert_int_equal(pmu_plan_init(&p, ev, 2, &l, NULL, 0, NULL), 0);
	assert_int_equal(p.nattrs, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(p.attrs[i].event, i);
		assert_string_equal(pmu_plan_pmu_name(&p, i), "cpu_core");
		assert_int_equal(p.attrs[i].attr.type, 4);
		assert_non_null(p.notes[i]);
		assert_non_null(strstr(p.notes[i], "counts on cpu_core only "
					  "(cpus 0-15)"));
		assert_non_null(strstr(p.notes[i], "time on cpu_atom is not counted"));
		assert_true(pmu_plan_on_cpu(&p, i, 15));
		assert_false(pmu_plan_on_cpu(&p, i, 16));
	}
	assert_int_equal(p.attrs[0].attr.config, 0xc0);
	assert_int_equal(p.attrs[1].attr.config, 0x3c);
	assert_non_null(strstr(p.notes[0], "one PMU's encoding"));
	assert_non_null(strstr(p.notes[1], "no table for each core type"));
	pmu_plan_release(&p);
	/* With it, the mission name splits; the libpfm4 encoding does not. */
	assert_int_equal(pmu_plan_init(&p, ev, 2, &l, &id, 0, NULL), 0);
	assert_int_equal(p.nattrs, 3);
	assert_int_equal(p.attrs[1].event, 1);
	assert_int_equal(p.attrs[2].event, 1);
	assert_string_equal(pmu_plan_pmu_name(&p, 2), "cpu_atom");
	assert_int_equal(p.attrs[2].attr.type, 10);
	assert_int_equal(p.attrs[2].attr.config, 0x3c);
	assert_null(p.notes[1]);
	assert_int_equal(pmu_plan_cpu_pmu(&p, 0), 0);
	assert_int_equal(pmu_plan_cpu_pmu(&p, 15), 0);
	assert_int_equal(pmu_plan_cpu_pmu(&p, 16), 1);
	assert_int_equal(pmu_plan_cpu_pmu(&p, 23), 1);
	assert_int_equal(pmu_plan_cpu_pmu(&p, 24), -1);
	pmu_plan_release(&p);
	pmus_release(&l);
}

/*
 * arm64 big.LITTLE (an RK3399): armv8_cortex_a53 (type 8, cpus 0-3) and
 * armv8_cortex_a72 (type 9, cpus 4-5), the DSU's PMU no core PMU. A
 * hardware or cache event is one attr per cluster with the extended type;
 * a software event one attr; a raw family is keyed by one MIDR, so it
 * stays on the lowest CPU's cluster and says so. Each CPU maps to its
 * cluster.
 */
static void test_pmuplan__arm64_big_little(void **state)
{
	(void)state;
	struct pmu_list l;
	read_pmus(&l, PMU_ROOT("arm64-big-little"));
	assert_int_equal(l.ncore, 2);
	struct event_desc ev[4];
	memset(ev, 0, sizeof(ev));
	ev[0].name = "perf::cycles";
	ev[0].attr.type = PERF_TYPE_HARDWARE;
	ev[0].attr.config = PERF_COUNT_HW_CPU_CYCLES;
	ev[0].attr.exclude_kernel = 1;
	ev[0].hardware = true;
	ev[1].name = "L1-icache-load-misses";
	ev[1].attr.type = PERF_TYPE_HW_CACHE;
	ev[1].attr.config = 0x10001;
	ev[1].hardware = true;
	ev[2].name = "task-clock";
	ev[2].attr.type = PERF_TYPE_SOFTWARE;
	ev[2].attr.config = PERF_COUNT_SW_TASK_CLOCK;
	ev[3] = raw_desc("l1i-misses", 0x01);
	struct cpuid id;
	assert_int_equal(cpuid_read(FIXTURES_DIR "/cpuid/cortex-a72", &id), 0);
	ev[3].family = mission_family_for_cpu(&id, "armv8_cortex_a72");
	assert_non_null(ev[3].family);
	ev[3].mission = mission_event_of(ev[3].family, "l1i-misses");
	ev[3].attr.config = ev[3].mission->raw;
	for (size_t i = 0; i < 4; i++)
		ev[i].attr.size = sizeof(ev[i].attr);

	struct pmu_plan p;
	assert_int_equal(pmu_plan_init(&p, ev, 4, &l, &id, 0, NULL), 0);
	assert_true(pmu_plan_split(&p));
	assert_int_equal(p.npmus, 2);
	assert_int_equal(p.nattrs, 6);
	const struct { size_t event; const char *pmu; uint32_t type; uint64_t config; }
	want[6] = {
		{ 0, "armv8_cortex_a53", PERF_TYPE_HARDWARE, 8ull << 32 },
		{ 0, "armv8_cortex_a72", PERF_TYPE_HARDWARE, 9ull << 32 },
		{ 1, "armv8_cortex_a53", PERF_TYPE_HW_CACHE, 8ull << 32 | 0x10001 },
		{ 1, "armv8_cortex_a72", PERF_TYPE_HW_CACHE, 9ull << 32 | 0x10001 },
		{ 2, NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		{ 3, "armv8_cortex_a53", 8, 0x01 },
	};
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(p.attrs[i].event, want[i].event);
		const char *pmu = pmu_plan_pmu_name(&p, i);
		if (want[i].pmu)
			assert_string_equal(pmu, want[i].pmu);
		else
			assert_null(pmu);
		assert_int_equal(p.attrs[i].attr.type, want[i].type);
		assert_int_equal(p.attrs[i].attr.config, want[i].config);
	}
	assert_int_equal(p.attrs[0].attr.exclude_kernel, 1);
	assert_int_equal(p.attrs[1].attr.exclude_kernel, 1);
	assert_null(p.notes[0]);
	assert_null(p.notes[1]);
	assert_null(p.notes[2]);
	assert_non_null(p.notes[3]);
	assert_non_null(strstr(p.notes[3], "counts on armv8_cortex_a53 only (cpus 0-3)"));
	assert_non_null(strstr(p.notes[3], "time on armv8_cortex_a72 is not counted"));
	int cpu_pmu[7] = { 0, 0, 0, 0, 1, 1, -1 };
	for (int cpu = 0; cpu < 7; cpu++)
		assert_int_equal(pmu_plan_cpu_pmu(&p, cpu), cpu_pmu[cpu]);
	assert_true(pmu_plan_on_cpu(&p, 0, 3));
	assert_false(pmu_plan_on_cpu(&p, 0, 4));
	assert_true(pmu_plan_on_cpu(&p, 1, 5));
	assert_true(pmu_plan_on_cpu(&p, 4, 5));	/* task-clock: any CPU */
	pmu_plan_release(&p);

	/* A kernel without extended types (arm64 before 6.6): hardware and
	 * cache events stay as resolved, on the PMU the kernel picks, and
	 * say so; the raw one still names its PMU's type. */
	assert_int_equal(pmu_plan_init(&p, ev, 4, &l, &id, PMU_PLAN_NO_EXTENDED,
				       NULL), 0);
	assert_true(pmu_plan_split(&p));
	assert_int_equal(p.nattrs, 4);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(p.attrs[i].event, i);
		assert_null(pmu_plan_pmu_name(&p, i));
		if (memcmp(&p.attrs[i].attr, &ev[i].attr, sizeof(ev[i].attr)))
			fail_msg("%s: attr differs from the resolved one", ev[i].name);
	}
	assert_non_null(strstr(p.notes[0], "counts on one core PMU only"));
	assert_non_null(strstr(p.notes[1], "arm64 before Linux 6.6"));
	assert_null(p.notes[2]);
	assert_string_equal(pmu_plan_pmu_name(&p, 3), "armv8_cortex_a53");
	assert_int_equal(p.attrs[3].attr.type, 8);
	pmu_plan_release(&p);
	pmus_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pmuplan__one_core_pmu_changes_nothing),
		cmocka_unit_test(test_pmuplan__intel_hybrid_goldens),
		cmocka_unit_test(test_pmuplan__raw_without_table_is_one_pmu),
		cmocka_unit_test(test_pmuplan__arm64_big_little),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
