/* Tests for reports/flame: folded stacks to a flame graph. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "reports/flame.h"
#include "test_util.h"
#include "xml_check.h"

static char *draw(const char *folded, bool icicle)
{
	struct tu_buf b;
	struct flame_opts o = { .icicle = icicle, .title = "t <&>" };
	assert_int_equal(flame_svg(folded, &o, tu_buf_open(&b)), 0);
	return (char *)tu_buf_close(&b);
}

/* Widths are shares of the samples: 1180 px for all of them. */
static void test_flame__frames_are_as_wide_as_their_samples(void **state)
{
	(void)state;
	char *s = draw("main;work;hot 3\nmain;idle 1\nnot a line\nmain;work 0\n", false);
	assert_non_null(strstr(s, "data-total=\"4\""));
	assert_int_equal(xc_count(s, "<g class=\"f\""), 4);
	assert_non_null(strstr(s, "<title>main (4 samples, 100.00%)</title>"
			       "<rect x=\"10.0\" y=\"115.0\" width=\"1180.0\""));
	/* children in name order: idle first, then work */
	assert_non_null(strstr(s, "<title>idle (1 samples, 25.00%)</title>"
			       "<rect x=\"10.0\" y=\"98.0\" width=\"295.0\""));
	assert_non_null(strstr(s, "<title>work (3 samples, 75.00%)</title>"
			       "<rect x=\"305.0\" y=\"98.0\" width=\"885.0\""));
	assert_non_null(strstr(s, "<title>hot (3 samples, 75.00%)</title>"
			       "<rect x=\"305.0\" y=\"81.0\""));
	assert_non_null(strstr(s, "<script type=\"text/ecmascript\"><![CDATA["));
	if (xc_have_xmllint())
		assert_int_equal(xc_lint(s, false), 0);
	free(s);
}

/* An icicle hangs from the top: the root at the first row. */
static void test_flame__icicle_puts_callers_on_top(void **state)
{
	(void)state;
	char *s = draw("main;work;hot 3\nmain;idle 1\n", true);
	assert_non_null(strstr(s, "<g class=\"flame icicle\""));
	assert_non_null(strstr(s, "<title>main (4 samples, 100.00%)</title>"
			       "<rect x=\"10.0\" y=\"64.0\""));
	assert_non_null(strstr(s, "<title>hot (3 samples, 75.00%)</title>"
			       "<rect x=\"305.0\" y=\"98.0\""));
	free(s);
}

/* Names are escaped, kernel frames blue, long names cut to fit. */
static void test_flame__names(void **state)
{
	(void)state;
	char *s = draw("main;a<b>&c;do_syscall_64_[k] 1\n"
		       "main;a_very_long_function_name_that_cannot_fit 1000\n", false);
	assert_non_null(strstr(s, "<title>a&lt;b&gt;&amp;c (1 samples"));
	assert_non_null(strstr(s, "fill=\"#9fd3f0\""));
	/* 1 of 1001 samples: 1.2 px wide, drawn without a label */
	assert_non_null(strstr(s, "<text x=\"13.0\" y=\"93.0\"></text>"));
	assert_non_null(strstr(s, ">a_very_long_function_name_that_cannot_fit</text>"));
	if (xc_have_xmllint())
		assert_int_equal(xc_lint(s, false), 0);
	free(s);
}

static void test_flame__no_samples(void **state)
{
	(void)state;
	char *s = draw("", false);
	assert_non_null(strstr(s, ">no samples</text>"));
	assert_int_equal(xc_count(s, "<g class=\"f\""), 0);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flame__frames_are_as_wide_as_their_samples),
		cmocka_unit_test(test_flame__icicle_puts_callers_on_top),
		cmocka_unit_test(test_flame__names),
		cmocka_unit_test(test_flame__no_samples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
