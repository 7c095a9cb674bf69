/*
 * Tests for tests/fuzz/wellformed.h, the JSON and XML checks the
 * round-trip fuzz target asks of prof's outputs: each must refuse what
 * json.loads or an XML parser refuses, or the target could not fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fuzz/wellformed.h"

static const char *json(const char *s)
{
	return wf_json(s, strlen(s));
}

static const char *xml(const char *s)
{
	return wf_xml(s, strlen(s));
}

static void test_wellformed__json(void **state)
{
	(void)state;
	assert_null(json("{\"a\": [1, -2.5e3, true, false, null, \"\\u00e9\\n\"]}"));
	assert_null(json(" \"caf\xc3\xa9\" "));
	static const char *const bad[] = {
		"{\"a\": 1,}", "[1 2]", "{\"a\" 1}", "\"\x01\"", "\"\xff\"",
		"\"worker-\xe2\x82\"", "NaN", "[1e]", "01", "\"\\x41\"", "[1]]",
		"{\"a\": \"b}", "", "[" ,
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_non_null(json(bad[i]));
}

static void test_wellformed__xml(void **state)
{
	(void)state;
	assert_null(xml("<?xml version=\"1.0\"?>\n<!DOCTYPE html>\n<svg a=\"1\" b='x &amp; &#39;'>"
			"<g><title>t &lt; u</title><rect/></g><!-- c --><script><![CDATA[ < & ]]>"
			"</script></svg>\n"));
	static const char *const bad[] = {
		"<a><b></a></b>", "<a>x & y</a>", "<a>x < y</a>", "<a b=c/>",
		"<a b=\"<\"/>", "<a>\x01</a>", "<a>\xff</a>", "<a>", "<a/><b/>",
		"text<a/>", "<a>&#;</a>", "<a>\xe2\x82</a>",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_non_null(xml(bad[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wellformed__json),
		cmocka_unit_test(test_wellformed__xml),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
