/*
 * Tests for collectors/mission: the map is complete (every family has all
 * six counters, each with its event, meaning and source), unambiguous (no
 * PMU in two families), and the fixture of perf's encodings covers exactly
 * the PMUs and raw families it names. What a libpfm4 family's entry
 * encodes to is test_events' job, under LIBPFM_FORCE_PMU; a raw family's
 * config is checked here against the fixture, and test_cpuid checks what
 * events.c makes of it. Nothing here needs libpfm4. docs/mission.md lists
 * the families mapped and those skipped, and must agree with the map.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "collectors/mission.h"
#include "mission_fixture.h"
#include "test_util.h"

static void test_mission__names_and_index(void **state)
{
	(void)state;
	assert_int_equal(mission_index("llc-misses"), 0);
	assert_int_equal(mission_index("instructions"), MISSION_COUNT - 1);
	assert_int_equal(mission_index("LLC-load-misses"), -1);
	assert_int_equal(mission_index("llc-misses:u"), -1);
	assert_int_equal(mission_index(NULL), -1);
	assert_null(mission_names[MISSION_COUNT]);
	assert_null(mission_family_for_pmu("amd64_fam17h_zen1"));
	assert_null(mission_family_for_pmu(NULL));
	assert_string_equal(mission_family_for_pmu("amd64_fam19h_zen4")->label,
			    "AMD Zen 4");
}

static void check_entries(const struct mission_family *f)
{
	for (int i = 0; i < MISSION_COUNT; i++) {
		const struct mission_event *e = &f->events[i];
		if (strcmp(e->name, mission_names[i]))
			fail_msg("%s: entry %d is %s, expected %s", f->label, i,
				 e->name, mission_names[i]);
		assert_ptr_equal(mission_event_of(f, e->name), e);
		assert_true(e->event && *e->event);
		assert_true(e->perf_name && *e->perf_name);
		assert_true(e->summary && *e->summary);
		assert_true(e->counts && *e->counts);
		/* every entry says where it comes from */
		if (!strstr(e->source, "tools/perf/pmu-events/") &&
		    !strstr(e->source, "include/uapi/linux/perf_event.h"))
			fail_msg("%s %s: source '%s' names no table or manual",
				 f->label, e->name, e->source);
		/* the family's PMU goes in front of it */
		if (f->pmus || f->raw)
			assert_null(strstr(e->event, "::"));
		/* a raw entry names its config in perf's raw syntax; others
		 * have none */
		if (f->raw) {
			char want[32];
			snprintf(want, sizeof(want), "r%" PRIx64, e->raw);
			if (strcmp(e->event, want))
				fail_msg("%s %s: event '%s' but config %#" PRIx64,
					 f->label, e->name, e->event, e->raw);
		} else {
			assert_true(e->raw == 0);
		}
	}
}

static void test_mission__every_family_complete(void **state)
{
	(void)state;
	size_t n = 0;
	size_t raw = 0;
	for (const struct mission_family *f; (f = mission_family_at(n)); n++) {
		check_entries(f);
		if (f->raw) {
			/* found by identity, never by a libpfm4 PMU; the raw
			 * ones come last */
			raw++;
			assert_null(f->pmus);
			assert_non_null(f->name);
			assert_true(!f->sysfs_pmu || !strcmp(f->sysfs_pmu, "cpu_core") ||
				    !strcmp(f->sysfs_pmu, "cpu_atom"));
			for (size_t m = 0; m < n; m++)
				if (mission_family_at(m)->raw &&
				    !strcmp(mission_family_at(m)->name, f->name))
					fail_msg("two raw families named %s", f->name);
			continue;
		}
		assert_int_equal(raw, 0);
		assert_non_null(f->pmus);
		assert_non_null(f->pmus[0]);
		assert_null(f->name);
		for (const char *const *p = f->pmus; *p; p++)
			if (mission_family_for_pmu(*p) != f)
				fail_msg("PMU %s is in two families", *p);
	}
	assert_true(n >= 15);
	assert_true(raw >= 9);
	assert_false(mission_generic()->raw);
	check_entries(mission_generic());
}

/* perf's generic events stand in only where they are honest everywhere:
 * the three cache counters need consent, the others do not. */
static void test_mission__generic_needs_consent_for_caches(void **state)
{
	(void)state;
	const struct mission_family *g = mission_generic();
	assert_null(g->pmus);
	for (int i = 0; i < MISSION_COUNT; i++) {
		assert_int_equal(g->events[i].needs_consent, i < 3);
		assert_true(!strncmp(g->events[i].event, "perf::", 6));
	}
	for (size_t n = 0; mission_family_at(n); n++)
		for (int i = 0; i < MISSION_COUNT; i++)
			assert_false(mission_family_at(n)->events[i].needs_consent);
}

/* A raw family's [cpuid:NAME] section: every entry's config is the one
 * perf's EventCode and UMask make, and the names are perf's. */
static void check_raw_section(const struct mf_fixture *fx,
			      const struct mission_family *f)
{
	char key[80];
	snprintf(key, sizeof(key), "cpuid:%s", f->name);
	const struct mf_section *s = mf_find(fx, key);
	if (!s)
		fail_msg("no [%s] section in perf-tables.txt", key);
	assert_int_equal(s->n, MISSION_COUNT);
	assert_true(s->table[0] != '\0');
	for (int i = 0; i < MISSION_COUNT; i++) {
		const struct mf_entry *e = mf_entry(s, mission_names[i]);
		assert_non_null(e);
		if (strcmp(e->perf_name, f->events[i].perf_name))
			fail_msg("[%s] %s: fixture says %s, map says %s", key,
				 e->name, e->perf_name, f->events[i].perf_name);
		if (mf_config(s, e) != f->events[i].raw)
			fail_msg("[%s] %s: perf's %s/%s gives config %#" PRIx64
				 ", the map carries %#" PRIx64, key, e->name,
				 s->table, e->file, mf_config(s, e),
				 f->events[i].raw);
	}
}

/* The fixture has a section for each PMU and raw family of the map, and
 * none else, each with all six counters, named as the map names them in
 * perf's tables. */
static void test_mission__fixture_covers_the_map(void **state)
{
	(void)state;
	struct mf_fixture fx;
	mf_read(&fx, FIXTURES_DIR "/mission/perf-tables.txt");
	size_t pmus = 0;
	for (size_t n = 0; mission_family_at(n); n++) {
		const struct mission_family *f = mission_family_at(n);
		if (f->raw) {
			check_raw_section(&fx, f);
			pmus++;
			continue;
		}
		for (const char *const *p = f->pmus; *p; p++, pmus++) {
			const struct mf_section *s = mf_find(&fx, *p);
			if (!s)
				fail_msg("no [%s] section in perf-tables.txt", *p);
			assert_int_equal(s->n, MISSION_COUNT);
			assert_true(s->table[0] != '\0');
			for (int i = 0; i < MISSION_COUNT; i++) {
				const struct mf_entry *e = mf_entry(s, mission_names[i]);
				assert_non_null(e);
				if (strcmp(e->perf_name, f->events[i].perf_name))
					fail_msg("[%s] %s: fixture says %s, map says %s",
						 *p, e->name, e->perf_name,
						 f->events[i].perf_name);
			}
		}
	}
	assert_int_equal(fx.n, pmus);
}

/* docs/mission.md names every family of the map with all its PMUs, and
 * none of the PMUs it lists as skipped is in the map. */
static void test_mission__docs_agree_with_the_map(void **state)
{
	(void)state;
	char *doc = tu_slurp(FIXTURES_DIR "/../../docs/mission.md");
	assert_non_null(doc);
	char *skipped = strstr(doc, "## Not mapped");
	assert_non_null(skipped);
	*skipped++ = '\0';
	for (size_t i = 0; mission_family_at(i); i++) {
		const struct mission_family *f = mission_family_at(i);
		char row[256];
		int n = snprintf(row, sizeof(row), "| %s | ", f->label);
		if (f->raw) {
			/* its row says how the identity is matched; the table
			 * it comes from is named in it */
			char *at = strstr(doc, row);
			if (!at)
				fail_msg("docs/mission.md has no row '%s'", row);
			char *eol = strchr(at, '\n');
			assert_non_null(eol);
			*eol = '\0';
			/* the directory of the first entry's table file:
			 * ".../x86/alderlake/cache.json" gives "alderlake" */
			char dir[128];
			snprintf(dir, sizeof(dir), "%s", f->events[0].source);
			char *json = strstr(dir, ".json");
			assert_non_null(json);
			*json = '\0';
			*strrchr(dir, '/') = '\0';
			char *base = strrchr(dir, '/');
			assert_non_null(base);
			memmove(dir, base + 1, strlen(base + 1) + 1);
			if (!strstr(at, dir))
				fail_msg("docs/mission.md row '%s' names no %s table",
					 at, dir);
			*eol = '\n';
			continue;
		}
		for (const char *const *p = f->pmus; *p; p++)
			n += snprintf(row + n, sizeof(row) - (size_t)n, "%s%s", *p,
				      p[1] ? ", " : " |");
		if (!strstr(doc, row))
			fail_msg("docs/mission.md has no row '%s'", row);
	}
	static const char *const absent[] = { "amd64_fam17h_zen1" };
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
		char cell[64];
		snprintf(cell, sizeof(cell), "| %s |", absent[i]);
		assert_non_null(strstr(skipped, cell));
		assert_null(mission_family_for_pmu(absent[i]));
	}
	/* nothing the map has is listed as skipped */
	for (size_t i = 0; mission_family_at(i); i++) {
		char cell[256];
		snprintf(cell, sizeof(cell), "| %s |", mission_family_at(i)->label);
		if (strstr(skipped, cell))
			fail_msg("docs/mission.md lists %s as not mapped", cell);
	}
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mission__names_and_index),
		cmocka_unit_test(test_mission__every_family_complete),
		cmocka_unit_test(test_mission__generic_needs_consent_for_caches),
		cmocka_unit_test(test_mission__fixture_covers_the_map),
		cmocka_unit_test(test_mission__docs_agree_with_the_map),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
