/*
 * Tests for reports/rows: one column spec rendered as a table, Markdown,
 * CSV and JSON, with groups, nested sets, unset and null cells.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "reports/rows.h"
#include "test_util.h"

enum { C_NAME, C_TID, C_CYCLES, C_TIME, C_P50, C_P99, C_SIZE, C_NOTE, C_NCOLS };

static const struct col cols[C_NCOLS] = {
	[C_NAME] = { .key = "name", .kind = COL_TEXT },
	[C_TID] = { .key = "tid", .kind = COL_INT },
	[C_CYCLES] = { .key = "cycles", .kind = COL_COUNT, .none = "-" },
	[C_TIME] = { .key = "task_clock_ns", .title = "task-clock (ms)",
		     .kind = COL_NS, .unit = "ms", .decimals = 2 },
	[C_P50] = { .key = "p50", .kind = COL_REAL, .decimals = 1,
		    .group = "overshoot_us" },
	[C_P99] = { .key = "p99", .kind = COL_REAL, .decimals = 1,
		    .group = "overshoot_us" },
	[C_SIZE] = { .key = "size_bytes", .title = "size", .kind = COL_BYTES },
	[C_NOTE] = { .key = "note", .kind = COL_TEXT, .flags = COL_MACHINES },
};

static struct rows *fill(void)
{
	struct rows *r = rows_new("threads", cols, C_NCOLS, 0);
	size_t i = rows_add(r);
	rows_str(r, i, C_NAME, "render, \"fast\"");
	rows_int(r, i, C_TID, 4242);
	rows_num(r, i, C_CYCLES, 1234567.4);
	rows_text(r, i, C_CYCLES, "1,234,567 (50%%)");
	rows_uint(r, i, C_TIME, 4250000);
	rows_num(r, i, C_P50, 52.05);
	rows_num(r, i, C_P99, 61);
	rows_uint(r, i, C_SIZE, 32u << 20);
	rows_str(r, i, C_NOTE, "scaled");
	i = rows_add(r);
	rows_str(r, i, C_NAME, "main|x");
	rows_int(r, i, C_TID, 7);
	rows_num(r, i, C_CYCLES, NAN);	/* null */
	rows_uint(r, i, C_TIME, 0);
	rows_num(r, i, C_P50, 0.25);
	rows_num(r, i, C_P99, 1);
	rows_uint(r, i, C_SIZE, 1536);
	/* note left unset: JSON leaves the key out */
	rows_rule(r, i);
	return r;
}

static char *render(const struct rows *r, enum out_format f, int indent)
{
	struct tu_buf b;
	rows_write(r, f, tu_buf_open(&b), indent);
	tu_buf_close(&b);
	return b.data;
}

static void test_rows__table_for_people(void **state)
{
	(void)state;
	struct rows *r = fill();
	char *s = render(r, OUT_TABLE, 1);
	assert_string_equal(s,
		" name             tid           cycles  task-clock (ms)   p50   p99     size\n"
		" render, \"fast\"  4242  1,234,567 (50%)             4.25  52.0  61.0   32 MiB\n"
		" ---------------------------------------------------------------------------\n"
		" main|x             7                -             0.00   0.2   1.0  1.5 KiB\n");
	free(s);
	rows_free(r);
}

static void test_rows__markdown_for_people(void **state)
{
	(void)state;
	struct rows *r = fill();
	char *s = render(r, OUT_MARKDOWN, 0);
	assert_string_equal(s,
		"| name | tid | cycles | task-clock (ms) | p50 | p99 | size |\n"
		"|---|---:|---:|---:|---:|---:|---:|\n"
		"| render, \"fast\" | 4242 | 1,234,567 (50%) | 4.25 | 52.0 | 61.0 | 32 MiB |\n"
		"| **main\\|x** | **7** | **-** | **0.00** | **0.2** | **1.0** | **1.5 KiB** |\n");
	free(s);
	rows_free(r);
}

static void test_rows__csv_has_keys_and_raw_values(void **state)
{
	(void)state;
	struct rows *r = fill();
	char *s = render(r, OUT_CSV, 0);
	assert_string_equal(s,
		"name,tid,cycles,task_clock_ns,overshoot_us.p50,overshoot_us.p99,"
		"size_bytes,note\n"
		"\"render, \"\"fast\"\"\",4242,1234567.4,4250000,52.05,61,33554432,scaled\n"
		"main|x,7,,0,0.25,1,1536,\n");
	free(s);
	rows_free(r);
}

static void test_rows__json_groups_and_leaves_unset_out(void **state)
{
	(void)state;
	struct rows *r = fill();
	char *s = render(r, OUT_JSON, 0);
	assert_string_equal(s,
		"{\n"
		"  \"threads\": [\n"
		"    {\n"
		"      \"name\": \"render, \\\"fast\\\"\",\n"
		"      \"tid\": 4242,\n"
		"      \"cycles\": 1234567.4,\n"
		"      \"task_clock_ns\": 4250000,\n"
		"      \"overshoot_us\": {\n"
		"        \"p50\": 52.05,\n"
		"        \"p99\": 61\n"
		"      },\n"
		"      \"size_bytes\": 33554432,\n"
		"      \"note\": \"scaled\"\n"
		"    },\n"
		"    {\n"
		"      \"name\": \"main|x\",\n"
		"      \"tid\": 7,\n"
		"      \"cycles\": null,\n"
		"      \"task_clock_ns\": 0,\n"
		"      \"overshoot_us\": {\n"
		"        \"p50\": 0.25,\n"
		"        \"p99\": 1\n"
		"      },\n"
		"      \"size_bytes\": 1536\n"
		"    }\n"
		"  ]\n"
		"}\n");
	free(s);
	rows_free(r);
}

static void test_rows__orders_choose_columns(void **state)
{
	(void)state;
	struct rows *r = fill();
	rows_people_order(r, (const size_t[]){ C_SIZE, C_NAME }, 2);
	rows_csv_order(r, (const size_t[]){ C_TID, C_NOTE }, 2);
	char *s = render(r, OUT_TABLE, 0);
	assert_string_equal(s,
		"   size  name\n"
		" 32 MiB  render, \"fast\"\n"
		"-----------------------\n"
		"1.5 KiB  main|x\n");
	free(s);
	s = render(r, OUT_CSV, 0);
	assert_string_equal(s, "tid,note\n4242,scaled\n7,\n");
	free(s);
	rows_free(r);
}

static void hook_pair(struct jw *w, const void *arg)
{
	const int *v = arg;
	jw_arr_begin_flat(w);
	jw_int(w, v[0]);
	jw_int(w, v[1]);
	jw_arr_end(w);
}

static void test_rows__nested_sets_and_hooks(void **state)
{
	(void)state;
	enum { D_ID, D_PIN, D_SETS, D_CI, D_NONE, D_N };
	static const struct col doc_cols[D_N] = {
		[D_ID] = { .key = "run_id", .kind = COL_INT },
		[D_PIN] = { .key = "pin", .kind = COL_NEST },
		[D_SETS] = { .key = "smt", .kind = COL_NEST },
		[D_CI] = { .key = "ci95_pct", .kind = COL_NEST },
		[D_NONE] = { .key = "largest", .kind = COL_NEST },
	};
	static const struct col pin_cols[] = {
		{ .key = "mode", .kind = COL_TEXT },
		{ .key = "cpus", .kind = COL_CPUS },
	};
	static const struct col set_cols[] = { { .key = "cpus", .kind = COL_CPUS } };
	static const int ci[2] = { -3, 5 };

	struct rows *doc = rows_new(NULL, doc_cols, D_N, 0);
	size_t row = rows_add(doc);
	rows_int(doc, row, D_ID, 12);
	struct rows *pin = rows_new(NULL, pin_cols, 2, ROWS_OBJECT);
	size_t p = rows_add(pin);
	rows_str(pin, p, 0, "llc:1");
	rows_str(pin, p, 1, "0-2,8");
	rows_nest(doc, row, D_PIN, pin);
	struct rows *sets = rows_new(NULL, set_cols, 1, ROWS_VALUES);
	rows_str(sets, rows_add(sets), 0, "0,4");
	rows_str(sets, rows_add(sets), 0, "1,5");
	rows_nest(doc, row, D_SETS, sets);
	rows_hook(doc, row, D_CI, hook_pair, ci);
	rows_nest(doc, row, D_NONE, rows_new(NULL, pin_cols, 2, ROWS_OBJECT));

	struct tu_buf b;
	rows_json_doc(doc, tu_buf_open(&b));
	assert_string_equal(tu_buf_close(&b),
		"{\n"
		"  \"run_id\": 12,\n"
		"  \"pin\": {\n"
		"    \"mode\": \"llc:1\",\n"
		"    \"cpus\": [0, 1, 2, 8]\n"
		"  },\n"
		"  \"smt\": [\n"
		"    [0, 4],\n"
		"    [1, 5]\n"
		"  ],\n"
		"  \"ci95_pct\": [-3, 5],\n"
		"  \"largest\": null\n"
		"}\n");
	free(b.data);
	/* Nested cells are JSON's alone. */
	char *s = render(doc, OUT_CSV, 0);
	assert_string_equal(s, "run_id\n12\n");
	free(s);
	rows_free(doc);
}

static void test_rows__flat_rows_and_booleans(void **state)
{
	(void)state;
	static const struct col c[] = {
		{ .key = "run_id", .kind = COL_INT },
		{ .key = "counted", .kind = COL_BOOL },
	};
	struct rows *r = rows_new("schedule", c, 2, ROWS_FLAT);
	size_t i = rows_add(r);
	rows_int(r, i, 0, 7);
	rows_bool(r, i, 1, true);
	i = rows_add(r);
	rows_int(r, i, 0, 8);
	rows_bool(r, i, 1, false);
	char *s = render(r, OUT_JSON, 0);
	assert_string_equal(s,
		"{\n"
		"  \"schedule\": [\n"
		"    {\"run_id\": 7, \"counted\": true},\n"
		"    {\"run_id\": 8, \"counted\": false}\n"
		"  ]\n"
		"}\n");
	free(s);
	s = render(r, OUT_TABLE, 0);
	assert_string_equal(s, "run_id  counted\n     7  yes\n     8  no\n");
	free(s);
	s = render(r, OUT_CSV, 0);
	assert_string_equal(s, "run_id,counted\n7,true\n8,false\n");
	free(s);
	rows_free(r);
}

/* Threads with a count each (one never counted), and a total for people. */
enum { V_TID, V_NAME, V_COUNT, V_N };

static const struct col view_cols[V_N] = {
	[V_TID] = { .key = "tid", .kind = COL_INT },
	[V_NAME] = { .key = "name" },
	[V_COUNT] = { .key = "cycles:u", .kind = COL_COUNT, .none = "-" },
};

static struct rows *threads(void)
{
	static const struct { int tid; const char *name; double n; } v[] = {
		{ 10, "main", 500 }, { 11, "worker", 1500 }, { 12, "io", NAN },
		{ 13, "worker", 1500 }, { 14, "render", 20 },
	};
	struct rows *r = rows_new("threads", view_cols, V_N, 0);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t row = rows_add(r);
		rows_int(r, row, V_TID, v[i].tid);
		rows_str(r, row, V_NAME, v[i].name);
		rows_num(r, row, V_COUNT, v[i].n);
	}
	size_t row = rows_add_total(r);
	rows_text(r, row, V_NAME, "total");
	rows_num(r, row, V_COUNT, 3520);
	return r;
}

/* The tids in the order the set holds them, for people. */
static char *tids(const struct rows *r)
{
	struct tu_buf b;
	FILE *fp = tu_buf_open(&b);
	for (size_t i = 0; i < rows_count(r); i++)
		fprintf(fp, "%s%zu", i ? " " : "", rows_origin(r, i));
	tu_buf_close(&b);
	return b.data;
}

static void expect_order(const char *sort, size_t limit, const char *want,
			 size_t want_more)
{
	struct rows *r = threads();
	const struct rows_view v = { sort, limit };
	assert_int_equal(rows_sort_check(r, sort, NULL), 0);
	assert_int_equal(rows_view_apply(r, 0, &v, "thread", "threads"), want_more);
	char *s = tids(r);
	assert_string_equal(s, want);
	free(s);
	rows_free(r);
}

/*
 * Numbers largest first, text A to Z, unless :asc or :desc says; a cell
 * without a value last either way; ties as built; the total stays last
 * and never counts against the limit.
 */
static void test_rows__view_sorts_by_a_column(void **state)
{
	(void)state;
	expect_order(NULL, 0, "0 1 2 3 4 5", 0);
	expect_order("cycles:u", 0, "1 3 0 4 2 5", 0);
	expect_order("cycles:u:asc", 0, "4 0 1 3 2 5", 0);
	expect_order("cycles:u:desc", 0, "1 3 0 4 2 5", 0);
	expect_order("name", 0, "2 0 4 1 3 5", 0);
	expect_order("name:desc", 0, "1 3 4 0 2 5", 0);
	expect_order("tid", 0, "4 3 2 1 0 5", 0);
	expect_order("tid:asc", 2, "0 1 5", 3);
	expect_order(NULL, 4, "0 1 2 3 5", 1);
	expect_order("cycles:u", 9, "1 3 0 4 2 5", 0);
}

/* Table and Markdown say how many rows the limit left out; CSV and JSON
 * simply hold the first N. */
static void test_rows__view_says_what_the_limit_left_out(void **state)
{
	(void)state;
	struct rows *r = threads();
	const struct rows_view v = { "cycles:u", 2 };
	rows_view_apply(r, 0, &v, "thread", "threads");
	char *s = render(r, OUT_TABLE, 1);
	assert_string_equal(s,
		" tid  name    cycles:u\n"
		"  11  worker     1,500\n"
		"  13  worker     1,500\n"
		" ---------------------\n"
		"      total      3,520\n"
		" … 3 more threads (--limit 0 shows all)\n");
	free(s);
	s = render(r, OUT_MARKDOWN, 0);
	assert_non_null(strstr(s, "| **total** | **3,520** |\n\n… 3 more threads "
			       "(--limit 0 shows all)\n"));
	free(s);
	s = render(r, OUT_CSV, 0);
	assert_string_equal(s, "tid,name,cycles:u\n11,worker,1500\n13,worker,1500\n");
	free(s);
	s = render(r, OUT_JSON, 0);
	assert_null(strstr(s, "more"));
	assert_non_null(strstr(s, "\"tid\": 13"));
	assert_null(strstr(s, "\"tid\": 10"));
	free(s);
	rows_free(r);

	/* One left out: the noun for one. */
	r = threads();
	const struct rows_view one = { NULL, 4 };
	rows_view_apply(r, 0, &one, "thread", "threads");
	s = render(r, OUT_TABLE, 0);
	assert_non_null(strstr(s, "\n… 1 more thread (--limit 0 shows all)\n"));
	free(s);
	rows_free(r);
}

/* An unknown key is refused with the keys that sort; a nested column is
 * not one of them. */
static void test_rows__view_refuses_an_unknown_key(void **state)
{
	(void)state;
	struct rows *r = threads();
	char *cause = NULL;
	assert_int_equal(rows_sort_check(r, "cycles", &cause), -EINVAL);
	assert_string_equal(cause, "bad --sort 'cycles': expected a column: tid, "
			    "name, cycles:u\nhint: KEY:asc or KEY:desc chooses the order");
	free(cause);
	cause = NULL;
	assert_int_equal(rows_sort_check(r, "name:up", &cause), -EINVAL);
	free(cause);
	assert_int_equal(rows_sort_check(r, "name:asc", NULL), 0);
	/* Left unchecked, it leaves the order as built. */
	const struct rows_view v = { "nosuch", 0 };
	assert_int_equal(rows_view_apply(r, 0, &v, "thread", "threads"), 0);
	char *s = tids(r);
	assert_string_equal(s, "0 1 2 3 4 5");
	free(s);
	rows_free(r);

	static const struct col c[] = {
		{ .key = "name" }, { .key = "counts", .kind = COL_NEST },
		{ .key = "secret", .flags = COL_NO_PEOPLE | COL_NO_CSV },
	};
	r = rows_new(NULL, c, 3, 0);
	cause = NULL;
	assert_int_equal(rows_sort_check(r, "counts", &cause), -EINVAL);
	assert_non_null(strstr(cause, "expected a column: name\n"));
	free(cause);
	rows_free(r);
}

/* Sorting from a row on leaves the rows before it alone (one set holding
 * several events' rows, each sorted and cut on its own). */
static void test_rows__view_from_a_row_on(void **state)
{
	(void)state;
	struct rows *r = threads();
	const struct rows_view v = { "tid", 1 };
	assert_int_equal(rows_view_apply(r, 3, &v, "thread", "threads"), 1);
	char *s = tids(r);
	assert_string_equal(s, "0 1 2 4 5");
	free(s);
	rows_free(r);
}

#define DOC_KEYS(K) \
	K(D_ID, "run_id", INT) K(D_NAME, "name", TEXT) \
	K(D_WALL, "wall_s", REAL) K(D_OK, "complete", BOOL)

/* ROWS_KEYS numbers the IDs in the order listed and gives each its key
 * and kind: the JSON follows that order and writes each value as its
 * kind says. */
static void test_rows__keys_declared_once(void **state)
{
	(void)state;
	ROWS_KEYS(doc, D_N, DOC_KEYS);
	assert_int_equal(D_ID, 0);
	assert_int_equal(D_OK, 3);
	assert_int_equal(D_N, 4);
	assert_int_equal(sizeof(doc) / sizeof(doc[0]), 4);
	assert_string_equal(doc[D_WALL].key, "wall_s");
	assert_int_equal(doc[D_WALL].kind, COL_REAL);
	assert_int_equal(doc[D_NAME].kind, COL_TEXT);
	struct rows *r = rows_new(NULL, doc, D_N, ROWS_OBJECT);
	size_t i = rows_add(r);
	rows_bool(r, i, D_OK, true);
	rows_num(r, i, D_WALL, 1.5);
	rows_str(r, i, D_NAME, "a");
	rows_int(r, i, D_ID, 7);
	char *s = render(r, OUT_JSON, 0);
	const char *id = strstr(s, "\"run_id\": 7");
	const char *name = strstr(s, "\"name\": \"a\"");
	const char *wall = strstr(s, "\"wall_s\": 1.5");
	const char *ok = strstr(s, "\"complete\": true");
	assert_non_null(id);
	assert_non_null(name);
	assert_non_null(wall);
	assert_non_null(ok);
	assert_true(id < name && name < wall && wall < ok);
	free(s);
	rows_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows__table_for_people),
		cmocka_unit_test(test_rows__markdown_for_people),
		cmocka_unit_test(test_rows__csv_has_keys_and_raw_values),
		cmocka_unit_test(test_rows__json_groups_and_leaves_unset_out),
		cmocka_unit_test(test_rows__orders_choose_columns),
		cmocka_unit_test(test_rows__nested_sets_and_hooks),
		cmocka_unit_test(test_rows__flat_rows_and_booleans),
		cmocka_unit_test(test_rows__view_sorts_by_a_column),
		cmocka_unit_test(test_rows__view_says_what_the_limit_left_out),
		cmocka_unit_test(test_rows__view_refuses_an_unknown_key),
		cmocka_unit_test(test_rows__view_from_a_row_on),
		cmocka_unit_test(test_rows__keys_declared_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
