/*
 * Tests for reports/modules: `prof modules` in every format (the JSON
 * contract of shared/DESIGN.md: modules largest first, null where
 * unknown) and the working-set footer and JSON of a run's report. Named
 * test_modules_report because the build names a test program after its
 * file, and collectors/modules already has test_modules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "reports/modules.h"
#include "reports/runs.h"
#include "test_util.h"

/* A run with three modules, stored smallest first, and a working set. */
static void make_run(struct db_run *r, bool ws)
{
	memset(r, 0, sizeof(*r));
	r->id = 7;
	r->kind = strdup("run");
	r->command = strdup("./game --level 3");
	r->nmodules = 3;
	r->modules = calloc(3, sizeof(*r->modules));
	r->modules[0] = (struct db_module){
		.path = strdup("/tmp/gone"), .kind = strdup("file"), .exec_bytes = 8192,
		.nprocs = 1, .has_touched = ws, .touched_bytes = 4096,
		.faulted_bytes = 4096, .faults = 1,
		.error = strdup("cannot open '/tmp/gone': no such file or directory"),
	};
	r->modules[1] = (struct db_module){
		.path = strdup("/usr/lib/libc.so.6"), .kind = strdup("file"),
		.build_id = strdup("93ac61ec5a8eb1396f9fbd350e3169a558528a40"),
		.exec_bytes = 1400832, .nprocs = 2, .has_text = true,
		.has_exec_sections = true, .has_touched = ws, .text_bytes = 1392301,
		.exec_section_bytes = 1396969, .touched_bytes = 761856,
		.faulted_bytes = 49152, .faults = 12, .touched_replayed = true,
	};
	r->modules[2] = (struct db_module){
		.path = strdup("[anon:exec]"), .kind = strdup("anon"), .exec_bytes = 65536,
		.nprocs = 1, .has_touched = ws, .touched_bytes = 65536,
		.faulted_bytes = 65536, .faults = 16,
	};
	if (!ws)
		return;
	static const char *const kinds[] = { "code", "heap", "stack", "anon", "file", "other" };
	static const uint64_t touched[] = { 831488, 2 << 20, 12288, 64 << 20, 430080, 4096 };
	static const uint64_t faulted[] = { 118784, 2 << 20, 12288, 64 << 20, 90112, 4096 };
	r->nws = 6;
	r->ws = calloc(6, sizeof(*r->ws));
	for (size_t i = 0; i < 6; i++) {
		r->ws[i].kind = strdup(kinds[i]);
		r->ws[i].touched_bytes = touched[i];
		r->ws[i].faulted_bytes = faulted[i];
		r->ws[i].faults = i + 10;
	}
	db_set_u64(r, SET_WS_WINDOW_BYTES, 65536);
}

static void test_modules_report__json_contract_largest_first(void **state)
{
	(void)state;
	struct db_run r;
	make_run(&r, true);
	struct tu_buf b;
	report_modules(&r, OUT_JSON, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	/* 1400832 + 8192 + 65536 */
	assert_non_null(strstr(s, "\"code_footprint_bytes\": 1474560"));
	const char *libc = strstr(s, "\"path\": \"/usr/lib/libc.so.6\"");
	const char *anon = strstr(s, "\"path\": \"[anon:exec]\"");
	const char *gone = strstr(s, "\"path\": \"/tmp/gone\"");
	assert_non_null(libc);
	assert_non_null(anon);
	assert_non_null(gone);
	assert_true(libc < anon && anon < gone);	/* exec_bytes down */
	/* The contract's keys, in each entry, with null where unknown. */
	assert_non_null(strstr(libc, "\"exec_bytes\": 1400832,\n      \"text_bytes\": 1392301,\n"
			       "      \"touched_bytes\": 761856,"));
	assert_non_null(strstr(gone, "\"exec_bytes\": 8192,\n      \"text_bytes\": null,\n"
			       "      \"touched_bytes\": 4096,"));
	assert_non_null(strstr(gone, "\"exec_section_bytes\": null"));
	assert_non_null(strstr(gone, "\"error\": \"cannot open '/tmp/gone'"));
	assert_non_null(strstr(anon, "\"kind\": \"anon\""));
	assert_non_null(strstr(anon, "\"build_id\": null"));
	assert_non_null(strstr(libc, "\"touched_replayed\": true"));
	assert_non_null(strstr(gone, "\"touched_replayed\": false"));
	assert_non_null(strstr(s, "\"touched_code_bytes\": 831488"));
	/* heap + stack + anon + file + other */
	char want[64];
	snprintf(want, sizeof(want), "\"touched_data_bytes\": %llu",
		 (unsigned long long)((2 << 20) + 12288 + (64 << 20) + 430080 + 4096));
	assert_non_null(strstr(s, want));
	free(b.data);
	db_run_release(&r);

	/* Without a working set: touched is null, working_set is null. */
	make_run(&r, false);
	report_modules(&r, OUT_JSON, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, "\"working_set\": null"));
	assert_non_null(strstr(s, "\"touched_bytes\": null"));
	assert_non_null(strstr(s, "\"touched_replayed\": null"));
	assert_null(strstr(s, "\"touched_bytes\": 7"));
	free(b.data);
	db_run_release(&r);
}

static void test_modules_report__table_and_csv(void **state)
{
	(void)state;
	struct db_run r;
	make_run(&r, true);
	struct tu_buf b;
	report_modules(&r, OUT_TABLE, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	assert_non_null(strstr(s, "3 code modules, code footprint 1.4 MiB"));
	const char *libc = strstr(s, "/usr/lib/libc.so.6");
	const char *gone = strstr(s, "/tmp/gone *");
	assert_non_null(libc);
	assert_non_null(gone);
	assert_true(libc < gone);
	assert_non_null(strstr(s, "93ac61ec5a8e\n"));	/* 12 digits */
	assert_non_null(strstr(s, "* sizes from the ELF file are unavailable"));
	assert_non_null(strstr(s, "64 KiB fault-around"));
	free(b.data);

	report_modules(&r, OUT_CSV, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, "run_id,path,kind,build_id,exec_bytes,text_bytes,"
			       "exec_section_bytes,touched_bytes,faulted_bytes,faults,"
			       "touched_replayed,processes,error\n"
			       "7,/usr/lib/libc.so.6,file,93ac61ec5a8eb1396f9fbd350e3169a558528a40,"
			       "1400832,1392301,1396969,761856,49152,12,true,2,\n"
			       "7,[anon:exec],anon,,65536,,,65536,65536,16,false,1,\n"
			       "7,/tmp/gone,file,,8192,,,4096,4096,1,false,1,"
			       "cannot open '/tmp/gone': no such file or directory\n"));
	free(b.data);

	report_modules(&r, OUT_MARKDOWN, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, "**prof run 7**: `./game --level 3`"));
	assert_non_null(strstr(s, "| /usr/lib/libc.so.6 |"));
	free(b.data);
	db_run_release(&r);

	/* A run stored with no modules says so. */
	struct db_run e;
	memset(&e, 0, sizeof(e));
	e.id = 3;
	e.command = strdup("true");
	report_modules(&e, OUT_TABLE, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, "no code modules were recorded"));
	free(b.data);
	db_run_release(&e);
}

static void test_modules_report__run_report_footer(void **state)
{
	(void)state;
	struct db_run r;
	make_run(&r, true);
	struct tu_buf b;
	report_run(&r, BY_THREAD, OUT_TABLE, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	assert_true(tu_has_prose(s, "working set: code footprint 1.4 MiB in 3 modules; "
				 "touched code 812 KiB; touched data 66.4 MiB "
				 "(heap 2 MiB, stack 12 KiB, anon 64 MiB, file 420 KiB, "
				 "other 4 KiB)"));
	assert_true(tu_has_prose(s, "a file-backed fault maps a 64 KiB window (fault-around)"));
	assert_non_null(strstr(s, "lower bound: code 116 KiB, file 88 KiB"));
	assert_null(strstr(s, "transparent huge pages"));	/* not known */
	free(b.data);
	report_run(&r, BY_THREAD, OUT_JSON, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, "\"working_set\": {\n    \"code_footprint_bytes\": 1474560,"));
	assert_non_null(strstr(s, "\"window_bytes\": 65536"));
	free(b.data);
	db_run_release(&r);

	/* Where huge pages back anonymous memory, its figures are a floor,
	 * and the footer says so; not where only marked memory is. */
	static const char *const modes[] = { "always", "madvise", "never" };
	for (size_t m = 0; m < 3; m++) {
		make_run(&r, true);
		r.nenv = 1;
		r.env = calloc(1, sizeof(*r.env));
		r.env[0] = (struct db_kv){ strdup("thp"), strdup(modes[m]) };
		report_run(&r, BY_THREAD, OUT_TABLE, tu_buf_open(&b));
		s = tu_buf_close(&b);
		char want[96];
		snprintf(want, sizeof(want), "note: transparent huge pages were '%s'",
			 modes[m]);
		if (m == 0)
			assert_non_null(strstr(s, want));
		else
			assert_null(strstr(s, "transparent huge pages"));
		free(b.data);
		db_run_release(&r);
	}

	make_run(&r, false);
	report_run(&r, BY_THREAD, OUT_TABLE, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_null(strstr(s, "working set"));
	free(b.data);
	report_run(&r, BY_THREAD, OUT_JSON, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, "\"working_set\": null"));
	free(b.data);
	db_run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules_report__json_contract_largest_first),
		cmocka_unit_test(test_modules_report__table_and_csv),
		cmocka_unit_test(test_modules_report__run_report_footer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
