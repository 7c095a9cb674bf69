/*
 * Tests for collectors/mission: the map is complete (every family has all
 * six counters, each with its event, meaning and source), unambiguous (no
 * PMU in two families), and the fixture of perf's encodings covers exactly
 * the PMUs it names. What each entry encodes to is test_events' job, under
 * LIBPFM_FORCE_PMU; nothing here needs libpfm4. docs/mission.md lists
 * the families mapped and those skipped, and must agree with the map.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
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
		if (f->pmus)
			assert_null(strstr(e->event, "::"));
	}
}

static void test_mission__every_family_complete(void **state)
{
	(void)state;
	size_t n = 0;
	for (const struct mission_family *f; (f = mission_family_at(n)); n++) {
		assert_non_null(f->pmus);
		assert_non_null(f->pmus[0]);
		check_entries(f);
		for (const char *const *p = f->pmus; *p; p++)
			if (mission_family_for_pmu(*p) != f)
				fail_msg("PMU %s is in two families", *p);
	}
	assert_true(n >= 6);
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

/* The fixture has a section for each PMU of the map, and none else, each
 * with all six counters, named as the map names them in perf's tables. */
static void test_mission__fixture_covers_the_map(void **state)
{
	(void)state;
	struct mf_fixture fx;
	mf_read(&fx, FIXTURES_DIR "/mission/perf-tables.txt");
	size_t pmus = 0;
	for (size_t n = 0; mission_family_at(n); n++) {
		const struct mission_family *f = mission_family_at(n);
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
		for (const char *const *p = f->pmus; *p; p++)
			n += snprintf(row + n, sizeof(row) - (size_t)n, "%s%s", *p,
				      p[1] ? ", " : " |");
		if (!strstr(doc, row))
			fail_msg("docs/mission.md has no row '%s'", row);
	}
	static const char *const absent[] = { "adl_glc", "adl_grt",
		"amd64_fam1ah_zen5", "arm_n1", "arm_v1", "amd64_fam17h_zen1" };
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
		char cell[64];
		snprintf(cell, sizeof(cell), "| %s |", absent[i]);
		assert_non_null(strstr(skipped, cell));
		assert_null(mission_family_for_pmu(absent[i]));
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
