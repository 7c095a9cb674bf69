/* Tests for reports/output: table, Markdown, CSV and JSON writers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "common/utf8.h"
#include "reports/output.h"
#include "test_util.h"

static void fill(struct rtable *t)
{
	const char *titles[] = { "name", ">value" };
	rtable_init(t, 2, titles);
	size_t r = rtable_add_row(t);
	rtable_set(t, r, 0, "render");
	rtable_set2(t, r, 1, "1,234.50", "1234.5");
	r = rtable_add_row(t);
	rtable_set(t, r, 0, "a|b, \"c\"");
	rtable_set2(t, r, 1, "not supported", "");
	r = rtable_add_row(t);
	rtable_set(t, r, 0, "total");
	rtable_set(t, r, 1, "7");
	rtable_rule(t, r);
}

static void test_output__terminal_aligns_right_columns(void **state)
{
	(void)state;
	struct rtable t;
	struct tu_buf b;
	fill(&t);
	rtable_write(&t, OUT_TABLE, tu_buf_open(&b), 2);
	const char *s = tu_buf_close(&b);
	assert_string_equal(s,
		"  name              value\n"
		"  render         1,234.50\n"
		"  a|b, \"c\"  not supported\n"
		"  -----------------------\n"
		"  total                 7\n");
	free(b.data);
	rtable_release(&t);
}

static void test_output__markdown_escapes_pipes_and_bolds_totals(void **state)
{
	(void)state;
	struct rtable t;
	struct tu_buf b;
	fill(&t);
	rtable_write(&t, OUT_MARKDOWN, tu_buf_open(&b), 0);
	const char *s = tu_buf_close(&b);
	assert_string_equal(s,
		"| name | value |\n"
		"|---|---:|\n"
		"| render | 1,234.50 |\n"
		"| a\\|b, \"c\" | not supported |\n"
		"| **total** | **7** |\n");
	free(b.data);
	rtable_release(&t);
}

static void test_output__csv_uses_raw_text_and_quotes(void **state)
{
	(void)state;
	struct rtable t;
	struct tu_buf b;
	fill(&t);
	rtable_write(&t, OUT_CSV, tu_buf_open(&b), 0);
	const char *s = tu_buf_close(&b);
	assert_string_equal(s,
		"name,value\n"
		"render,1234.5\n"
		"\"a|b, \"\"c\"\"\",\n"
		"total,7\n");
	free(b.data);
	rtable_release(&t);
}

static void test_output__json_nesting_commas_and_escapes(void **state)
{
	(void)state;
	struct jw w;
	struct tu_buf b;
	jw_init(&w, tu_buf_open(&b), 0);
	jw_obj_begin(&w);
	jw_key(&w, "a");
	jw_int(&w, -3);
	jw_key(&w, "list");
	jw_arr_begin(&w);
	jw_num(&w, 1.5);
	jw_num(&w, NAN);
	jw_fixed(&w, 1e9 + 0.25, 3);
	jw_fixed(&w, INFINITY, 3);
	jw_str(&w, "q\"\n\x01");
	jw_obj_begin(&w);
	jw_obj_end(&w);
	jw_arr_end(&w);
	jw_key(&w, "n");
	jw_null(&w);
	jw_key(&w, "t");
	jw_bool(&w, true);
	jw_obj_end(&w);
	jw_end(&w);
	const char *s = tu_buf_close(&b);
	assert_string_equal(s,
		"{\"a\":-3,\"list\":[1.5,null,1000000000.250,null,\"q\\\"\\n\\u0001\",{}],\"n\":null,\"t\":true}\n");
	free(b.data);
}

static void test_output__json_indented(void **state)
{
	(void)state;
	struct jw w;
	struct tu_buf b;
	jw_init(&w, tu_buf_open(&b), 2);
	jw_obj_begin(&w);
	jw_key(&w, "x");
	jw_arr_begin(&w);
	jw_uint(&w, 18446744073709551615ull);
	jw_arr_end(&w);
	jw_key(&w, "e");
	jw_arr_begin(&w);
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_end(&w);
	const char *s = tu_buf_close(&b);
	assert_string_equal(s, "{\n  \"x\": [\n    18446744073709551615\n  ],\n  \"e\": []\n}\n");
	free(b.data);
}

static void test_output__number_formatting(void **state)
{
	(void)state;
	char buf[64];
	fmt_count(buf, sizeof(buf), 1234567.891, 2);
	assert_string_equal(buf, "1,234,567.89");
	fmt_count(buf, sizeof(buf), -1000, 0);
	assert_string_equal(buf, "-1,000");
	fmt_count(buf, sizeof(buf), -0.001, 2);
	assert_string_equal(buf, "0.00");
	fmt_count(buf, sizeof(buf), 999, 0);
	assert_string_equal(buf, "999");
	fmt_raw(buf, sizeof(buf), 42);
	assert_string_equal(buf, "42");
	fmt_raw(buf, sizeof(buf), 0.125);
	assert_string_equal(buf, "0.125");
	fmt_bytes(buf, sizeof(buf), 32.0 * 1024 * 1024);
	assert_string_equal(buf, "32 MiB");
	fmt_bytes(buf, sizeof(buf), 1536);
	assert_string_equal(buf, "1.5 KiB");
	fmt_bytes(buf, sizeof(buf), 100);
	assert_string_equal(buf, "100 B");
}

static void test_output__format_names_round_trip(void **state)
{
	(void)state;
	enum out_format f;
	assert_int_equal(output_format_parse("markdown", &f), 0);
	assert_int_equal(f, OUT_MARKDOWN);
	assert_int_equal(output_format_parse("md", &f), 0);
	assert_int_equal(f, OUT_MARKDOWN);
	assert_int_not_equal(output_format_parse("yaml", &f), 0);
	assert_string_equal(output_format_name(OUT_CSV), "csv");
	assert_int_equal(output_format_parse("perf-script", &f), 0);
	assert_int_equal(f, OUT_PERF_SCRIPT);
	for (int i = 0; i < OUT_FORMAT_COUNT; i++) {
		assert_int_equal(output_format_parse(output_format_name(i), &f), 0);
		assert_int_equal(f, i);
	}
}

/* Names from the workload never reach a terminal raw: ESC, other C0
 * bytes, DEL and the C1 CSI (U+009B) are escaped in tables and markdown,
 * and the columns stay aligned to the escaped width. */
static void test_output__control_characters_are_escaped(void **state)
{
	(void)state;
	const char *titles[] = { "name", ">n" };
	struct rtable t;
	rtable_init(&t, 2, titles);
	size_t r = rtable_add_row(&t);
	rtable_set(&t, r, 0, "ev\x1b[31mil\x07\x7f\xc2\x9b" "2J");
	rtable_set(&t, r, 1, "1");
	r = rtable_add_row(&t);
	rtable_set(&t, r, 0, "plain");
	rtable_set(&t, r, 1, "22");
	for (int f = 0; f < 2; f++) {
		struct tu_buf b;
		rtable_write(&t, f ? OUT_MARKDOWN : OUT_TABLE, tu_buf_open(&b), 0);
		const char *s = tu_buf_close(&b);
		assert_null(strchr(s, '\x1b'));
		assert_null(strchr(s, '\x07'));
		assert_null(strchr(s, '\x7f'));
		assert_null(strstr(s, "\xc2\x9b"));
		assert_non_null(strstr(s, "ev\\x1b[31mil\\x07\\x7f\\u009b2J"));
		if (!f) {
			/* both rows end at the same column */
			const char *l1 = strchr(s, '\n') + 1;
			const char *l2 = strchr(l1, '\n') + 1;
			assert_int_equal(strchr(l1, '\n') - l1, strchr(l2, '\n') - l2);
		}
		free(b.data);
	}
	rtable_release(&t);
}

/* Names a workload chose, each broken a way it can be: a character cut
 * by the kernel's 15 bytes, bytes that are no UTF-8, an escape sequence,
 * HTML, a line break. Every format stays valid and one line a row. */
static const char *const hostile[] = {
	"worker-\xe2\x82",		/* "worker-€" cut inside the euro */
	"bad\xff\xfe\xc0\x80",	/* no UTF-8 at all */
	"esc\x1b]0;pwned\x07",		/* sets a terminal's title */
	"<img src=x onerror=alert(1)>&amp;",
	"evil;main\nevil 1999998",	/* a second folded line */
};
#define NHOSTILE (sizeof(hostile) / sizeof(*hostile))

static char *write_hostile(enum out_format f)
{
	const char *titles[] = { "name", ">n" };
	struct rtable t;
	rtable_init(&t, 2, titles);
	for (size_t i = 0; i < NHOSTILE; i++) {
		size_t r = rtable_add_row(&t);
		rtable_set(&t, r, 0, "%s", hostile[i]);
		rtable_set(&t, r, 1, "%zu", i);
	}
	struct tu_buf b;
	rtable_write(&t, f, tu_buf_open(&b), 0);
	rtable_release(&t);
	return (char *)tu_buf_close(&b);
}

static void test_output__hostile_names_stay_valid(void **state)
{
	(void)state;
	const enum out_format fmts[] = { OUT_TABLE, OUT_MARKDOWN, OUT_CSV };
	for (size_t f = 0; f < 3; f++) {
		char *s = write_hostile(fmts[f]);
		assert_true(utf8_valid(s, strlen(s)));
		assert_null(strchr(s, '\x1b'));
		assert_null(strchr(s, '\x07'));
		/* a title row and one line a name; CSV quotes the line break */
		size_t lines = 0;
		for (const char *c = s; *c; c++)
			lines += *c == '\n';
		assert_int_equal(lines, fmts[f] == OUT_MARKDOWN ? NHOSTILE + 2
				 : fmts[f] == OUT_CSV ? NHOSTILE + 2 : NHOSTILE + 1);
		if (fmts[f] == OUT_MARKDOWN) {
			const char *tag = strstr(s, "<img");
			assert_non_null(tag);
			assert_true(tag > s && tag[-1] == '\\');
			assert_non_null(strstr(s, "\\&amp;"));
		}
		free(s);
	}

	struct tu_buf b;
	struct jw w;
	jw_init(&w, tu_buf_open(&b), 0);
	jw_arr_begin(&w);
	for (size_t i = 0; i < NHOSTILE; i++)
		jw_str(&w, hostile[i]);
	jw_arr_end(&w);
	jw_end(&w);
	const char *j = tu_buf_close(&b);
	assert_true(utf8_valid(j, strlen(j)));
	assert_non_null(strstr(j, "\"worker-\xef\xbf\xbd\""));
	assert_null(strchr(j, '\x1b'));
	free(b.data);

	FILE *fp = tu_buf_open(&b);
	for (size_t i = 0; i < NHOSTILE; i++)
		folded_field(fp, hostile[i]);
	const char *fo = tu_buf_close(&b);
	assert_true(utf8_valid(fo, strlen(fo)));
	assert_null(strchr(fo, '\n'));
	assert_null(strchr(fo, ';'));
	assert_null(strchr(fo, '\x1b'));
	free(b.data);
}

/* A command in a header: quoted, escaped for a terminal, a code span
 * that no backtick inside can close for Markdown. */
static void test_output__command_in_prose(void **state)
{
	(void)state;
	static const struct { const char *cmd; enum out_format fmt; const char *want; } c[] = {
		{ "sh -c 'true | cat'", OUT_TABLE, "'sh -c 'true | cat''" },
		{ "sh -c 'true | cat'", OUT_MARKDOWN, "`sh -c 'true | cat'`" },
		{ "echo `date`", OUT_MARKDOWN, "`` echo `date` ``" },
		{ "`a`", OUT_MARKDOWN, "`` `a` ``" },
		{ "a\nb", OUT_TABLE, "'a b'" },
		{ "x\x1b[31mRED", OUT_TABLE, "'x\\x1b[31mRED'" },
		{ "x\x1b[31mRED", OUT_MARKDOWN, "`x\\x1b[31mRED`" },
		{ NULL, OUT_TABLE, "''" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct tu_buf b;
		command_field(tu_buf_open(&b), c[i].cmd, c[i].fmt);
		const char *s = tu_buf_close(&b);
		if (strcmp(s, c[i].want))
			fail_msg("command %zu: got %s, want %s", i, s, c[i].want);
		free(b.data);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output__terminal_aligns_right_columns),
		cmocka_unit_test(test_output__markdown_escapes_pipes_and_bolds_totals),
		cmocka_unit_test(test_output__csv_uses_raw_text_and_quotes),
		cmocka_unit_test(test_output__json_nesting_commas_and_escapes),
		cmocka_unit_test(test_output__json_indented),
		cmocka_unit_test(test_output__number_formatting),
		cmocka_unit_test(test_output__format_names_round_trip),
		cmocka_unit_test(test_output__control_characters_are_escaped),
		cmocka_unit_test(test_output__command_in_prose),
		cmocka_unit_test(test_output__hostile_names_stay_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
