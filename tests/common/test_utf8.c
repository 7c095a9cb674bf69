/*
 * Tests for common/utf8: reading workload text as UTF-8 and cutting it on
 * a character's boundary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

static void test_utf8__reads_well_formed_characters(void **state)
{
	(void)state;
	uint32_t cp;
	assert_int_equal(utf8_next((const unsigned char *)"A", 1, &cp), 1);
	assert_int_equal(cp, 'A');
	assert_int_equal(utf8_next((const unsigned char *)"\xC3\xA9", 2, &cp), 2);
	assert_int_equal(cp, 0xE9);
	assert_int_equal(utf8_next((const unsigned char *)"\xE2\x82\xAC", 3, &cp), 3);
	assert_int_equal(cp, 0x20AC);
	assert_int_equal(utf8_next((const unsigned char *)"\xF0\x9F\x98\x80", 4, &cp), 4);
	assert_int_equal(cp, 0x1F600);
	assert_true(utf8_valid("caf\xC3\xA9 \xEF\xBF\xBD", 9));
}

/* None of these is a character: each reads as one invalid piece. */
static void test_utf8__bad_bytes_are_one_replacement_each(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"\x80", "\xBF", "\xC0\x80", "\xC1\xBF",	/* continuation, overlong */
		"\xE0\x80\x80", "\xED\xA0\x80",		/* overlong, surrogate */
		"\xF4\x90\x80\x80", "\xF5\x80\x80\x80",	/* past U+10FFFF */
		"\xFF", "\xE2\x82", "\xC3",		/* cut short */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		uint32_t cp = 0;
		size_t n = strlen(bad[i]);
		size_t k = utf8_next((const unsigned char *)bad[i], n, &cp);
		assert_int_equal(cp, UTF8_INVALID);
		/* the lead byte alone, or the start of a character cut short */
		assert_int_equal(k, i >= 9 ? n : 1);
		assert_false(utf8_valid(bad[i], n));
	}
	char *c = utf8_clean("a\xFF" "b\xE2\x82");
	assert_string_equal(c, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD");
	assert_true(utf8_valid(c, strlen(c)));
	free(c);
}

static void test_utf8__cuts_on_a_boundary(void **state)
{
	(void)state;
	const char *s = "ab\xE2\x82\xAC" "cd";	/* "ab€cd", 7 bytes */
	assert_int_equal(utf8_cut(s, 7, 7), 7);
	assert_int_equal(utf8_cut(s, 7, 4), 2);	/* not inside the euro */
	assert_int_equal(utf8_cut(s, 7, 5), 5);
	assert_int_equal(utf8_cut(s, 7, 0), 0);
	/* A bad byte is a character of its own: cut after it. */
	assert_int_equal(utf8_cut("\xFF\xFF\xFF", 3, 2), 2);
	/* Whatever is cut stays well-formed when the input was. */
	const char *e = "\xC3\xA9\xC3\xA9\xC3\xA9";
	for (size_t max = 0; max <= 6; max++)
		assert_true(utf8_valid(e, utf8_cut(e, 6, max)));
}

/* The kernel cuts a thread's name at 15 bytes, wherever that falls. */
static void test_utf8__trims_a_character_cut_at_the_end(void **state)
{
	(void)state;
	const char *s = "w\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82";
	assert_int_equal(utf8_trim_cut(s, 15), 13);
	assert_int_equal(utf8_trim_cut(s, 13), 13);
	assert_int_equal(utf8_trim_cut("ab\xc3", 3), 2);
	assert_int_equal(utf8_trim_cut("ab\xff", 3), 3);	/* no character: kept */
	assert_int_equal(utf8_trim_cut("ab\xe2\x28", 4), 4);	/* broken, not cut */
}

static void test_utf8__writes_every_length(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	utf8_put(fp, 'x');
	utf8_put(fp, 0xE9);
	utf8_put(fp, 0x20AC);
	utf8_put(fp, 0x1F600);
	fclose(fp);
	assert_string_equal(buf, "x\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8__reads_well_formed_characters),
		cmocka_unit_test(test_utf8__bad_bytes_are_one_replacement_each),
		cmocka_unit_test(test_utf8__cuts_on_a_boundary),
		cmocka_unit_test(test_utf8__trims_a_character_cut_at_the_end),
		cmocka_unit_test(test_utf8__writes_every_length),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
