/*
 * Tests for db/settings.h: the table of run settings. Each value type
 * stores the text prof stored before the table, the typed getters read
 * it back, and docs/schema.md's "run settings" table lists exactly the
 * table's keys with their types.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/runs.h"
#include "db/settings.h"

static const char *type_name[] = {
	[DB_SETTING_str] = "str", [DB_SETTING_flag] = "flag",
	[DB_SETTING_yesno] = "yesno", [DB_SETTING_u64] = "u64",
	[DB_SETTING_i64] = "i64", [DB_SETTING_f64g] = "f64g",
	[DB_SETTING_f64_0] = "f64_0", [DB_SETTING_f64_4] = "f64_4",
	[DB_SETTING_f64_6] = "f64_6",
};

/* What each type writes: the formats of the writers before the table. */
static void test_settings__stored_text(void **state)
{
	(void)state;
	struct db_run r = { 0 };
	assert_int_equal(db_set_str(&r, SET_EVENTS, "task-clock,cycles"), 0);
	db_set_flag(&r, SET_TIMED_OUT);
	db_set_yesno(&r, SET_COMPLETE, false);
	db_set_u64(&r, SET_T0_NS, UINT64_MAX);
	db_set_i64(&r, SET_CLEANUP_STATUS, -1);
	db_set_f64(&r, SET_TIMEOUT_S, 2.5);
	db_set_f64(&r, SET_CORUNNER_HELD_BYTES, 1048575.5);
	db_set_f64(&r, SET_CORUNNER_DUTY, 0.98);
	db_set_f64(&r, SET_WINDOW_START_S, 1.25);
	db_set_f64(&r, SET_FRAME_BUDGET_MS, 16.7);
	assert_string_equal(db_get_str(&r, SET_EVENTS), "task-clock,cycles");
	assert_string_equal(db_get_text(&r, SET_TIMED_OUT), "1");
	assert_string_equal(db_get_text(&r, SET_COMPLETE), "no");
	assert_string_equal(db_get_text(&r, SET_T0_NS), "18446744073709551615");
	assert_string_equal(db_get_text(&r, SET_CLEANUP_STATUS), "-1");
	assert_string_equal(db_get_text(&r, SET_TIMEOUT_S), "2.5");
	assert_string_equal(db_get_text(&r, SET_CORUNNER_HELD_BYTES), "1048576");
	assert_string_equal(db_get_text(&r, SET_CORUNNER_DUTY), "0.9800");
	assert_string_equal(db_get_text(&r, SET_WINDOW_START_S), "1.250000");
	assert_string_equal(db_get_text(&r, SET_FRAME_BUDGET_MS), "16.7");
	/* Under their stored names, as the dynamic path sees them. */
	assert_string_equal(db_run_get_dynamic(&r, "t0_ns"), "18446744073709551615");
	db_set_str(&r, SET_TAG, "base");
	assert_string_equal(db_run_get_dynamic(&r, DB_RUN_TAG_KEY), "base");
	/* A second set replaces the value. */
	db_set_yesno(&r, SET_COMPLETE, true);
	assert_string_equal(db_get_text(&r, SET_COMPLETE), "yes");
	assert_false(r.settings_lost);
	db_run_release(&r);
}

static void test_settings__typed_getters(void **state)
{
	(void)state;
	struct db_run r = { 0 };
	uint64_t u;
	double d;
	assert_false(db_get_flag(&r, SET_TIMED_OUT));
	assert_false(db_get_u64(&r, SET_INTERVAL_MS, &u));
	assert_false(db_get_f64(&r, SET_WINDOW_END_S, &d));
	db_set_flag(&r, SET_TIMED_OUT);
	db_set_u64(&r, SET_INTERVAL_MS, 100);
	db_set_f64(&r, SET_WINDOW_END_S, 3.5);
	assert_true(db_get_flag(&r, SET_TIMED_OUT));
	assert_true(db_get_u64(&r, SET_INTERVAL_MS, &u));
	assert_int_equal(u, 100);
	assert_true(db_get_f64(&r, SET_WINDOW_END_S, &d));
	assert_float_equal(d, 3.5, 0);
	/* Text that is no number (an old or broken database) reads as none. */
	db_set_text(&r, SET_INTERVAL_MS, "10x");
	assert_false(db_get_u64(&r, SET_INTERVAL_MS, &u));
	assert_int_equal(u, 0);
	db_set_text(&r, SET_INTERVAL_MS, "-1");
	assert_false(db_get_u64(&r, SET_INTERVAL_MS, &u));
	db_set_text(&r, SET_WINDOW_END_S, "");
	assert_false(db_get_f64(&r, SET_WINDOW_END_S, &d));
	db_run_release(&r);
}

/* Stored names are unique, and none is a name built at run time. */
static void test_settings__names_unique(void **state)
{
	(void)state;
	for (int i = 0; i < DB_NSETTINGS; i++) {
		assert_non_null(db_settings[i].name);
		assert_non_null(db_settings[i].doc);
		assert_true(strncmp(db_settings[i].name, "frames_", 7) != 0);
		for (int j = 0; j < i; j++)
			if (!strcmp(db_settings[i].name, db_settings[j].name))
				fail_msg("key '%s' twice", db_settings[i].name);
	}
}

/* The rows "| `name` | type | ... |" between docs/schema.md's markers. */
static char *read_doc(void)
{
	FILE *fp = fopen(SOURCE_DIR "/docs/schema.md", "r");
	assert_non_null(fp);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = 0;
	char *a = strstr(buf, "<!-- run settings:");
	char *b = a ? strstr(a, "<!-- end of run settings -->") : NULL;
	if (!a || !b)
		fail_msg("docs/schema.md: no run settings table between its markers");
	*b = 0;
	return a;
}

static void test_settings__doc_lists_the_table(void **state)
{
	(void)state;
	char *doc = read_doc();
	bool seen[DB_NSETTINGS] = { 0 };
	size_t rows = 0;
	for (char *line = strtok(doc, "\n"); line; line = strtok(NULL, "\n")) {
		char name[128], type[32];
		if (sscanf(line, "| `%127[^`]` | %31[^ |] |", name, type) != 2)
			continue;
		rows++;
		int k = -1;
		for (int i = 0; i < DB_NSETTINGS; i++)
			if (!strcmp(db_settings[i].name, name))
				k = i;
		if (k < 0)
			fail_msg("docs/schema.md lists '%s', which db/settings.h has not", name);
		if (strcmp(type_name[db_settings[k].type], type))
			fail_msg("docs/schema.md: '%s' is %s, db/settings.h says %s", name,
				 type, type_name[db_settings[k].type]);
		seen[k] = true;
	}
	for (int i = 0; i < DB_NSETTINGS; i++)
		if (!seen[i])
			fail_msg("docs/schema.md lacks the row: | `%s` | %s | %s |",
				 db_settings[i].name, type_name[db_settings[i].type],
				 db_settings[i].doc);
	assert_int_equal(rows, DB_NSETTINGS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings__stored_text),
		cmocka_unit_test(test_settings__typed_getters),
		cmocka_unit_test(test_settings__names_unique),
		cmocka_unit_test(test_settings__doc_lists_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
