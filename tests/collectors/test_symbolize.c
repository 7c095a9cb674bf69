/*
 * Tests for collectors/symbolize: ELF symbols of a program built here
 * with cc (addresses checked against nm), JIT maps that grow while a run
 * goes on, a kallsyms file, and every way an address comes back unknown
 * (no mapping, anonymous memory, a file that is gone, a stripped file).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collectors/symbolize.h"
#include "test_util.h"
#include "text_segment.h"

static char *dir;
static char prog[512], stripped[512];
static bool have_cc;

static int setup(void **state)
{
	(void)state;
	dir = tu_tmpdir();
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	snprintf(stripped, sizeof(stripped), "%s/prog.stripped", dir);
	char *cmd;
	if (asprintf(&cmd, "cd '%s' && printf '%%s\\n' "
		     "'int hot(int x) { return x * 3; }' "
		     "'int main(int c, char **v) { (void)v; return hot(c); }' > p.c && "
		     "cc -O1 -o prog p.c && cp prog prog.stripped && "
		     "strip prog.stripped 2>/dev/null", dir) < 0)
		abort();
	have_cc = system(cmd) == 0;
	free(cmd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(dir);
	free(dir);
	return 0;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The vaddr nm gives a symbol of prog. */
static uint64_t nm_addr(const char *name)
{
	char *cmd;
	if (asprintf(&cmd, "nm '%s' | awk '$3 == \"%s\" { print $1 }'", prog, name) < 0)
		abort();
	FILE *p = popen(cmd, "r");
	free(cmd);
	unsigned long long a = 0;
	assert_int_equal(fscanf(p, "%llx", &a), 1);
	pclose(p);
	return a;
}

static void test_symbolize__elf_symbols_through_the_mapping(void **state)
{
	(void)state;
	if (!have_cc)
		skip();
	struct symbolizer *s = symbolizer_new(NULL);
	uint64_t hot = nm_addr("hot");
	/* A PIE's text mapped at 0x7f0000000000 + its page from that file
	 * offset (0x1000 on x86-64, 0 on arm64): runtime = vaddr +
	 * 0x7f0000000000 (vaddr == offset for gcc's default layout). */
	uint64_t page = 0, len = 0;
	assert_true(ts_text_segment(prog, &page, &len));
	struct code_map m = { 0x7f0000000000 + page, len, page, prog };
	struct sym_frame f;
	symbolizer_lookup(s, 7, &m, 0x7f0000000000 + hot + 2, false, &f);
	assert_string_equal(f.module, prog);
	assert_string_equal(f.symbol, "hot");
	assert_int_equal(f.offset, 2);
	/* The same file again: the same strings, not new copies. */
	struct sym_frame g;
	symbolizer_lookup(s, 8, &m, 0x7f0000000000 + hot, false, &g);
	assert_ptr_equal(f.module, g.module);
	assert_ptr_equal(f.symbol, g.symbol);
	assert_non_null(symbolizer_build_id(s, prog));

	/* Stripped: unknown, at the ELF vaddr. */
	struct code_map ms = { 0x7f0000000000 + page, len, page, stripped };
	symbolizer_lookup(s, 7, &ms, 0x7f0000000000 + hot + 2, false, &f);
	assert_string_equal(f.module, stripped);
	assert_null(f.symbol);
	assert_int_equal(f.offset, hot + 2);
	symbolizer_free(s);
}

static void test_symbolize__unknown_places(void **state)
{
	(void)state;
	struct symbolizer_opts o = { .perf_map_dir = dir, .kallsyms = "" };
	struct symbolizer *s = symbolizer_new(&o);
	struct sym_frame f;
	/* No mapping and no JIT map. */
	symbolizer_lookup(s, 99999, NULL, 0x1234, false, &f);
	assert_string_equal(f.module, SYM_MODULE_UNKNOWN);
	assert_null(f.symbol);
	assert_int_equal(f.offset, 0x1234);
	/* A file that is gone: its path, and the file offset. */
	struct code_map gone = { 0x400000, 0x1000, 0x2000, "/nonexistent/lib.so" };
	symbolizer_lookup(s, 1, &gone, 0x400010, false, &f);
	assert_string_equal(f.module, "/nonexistent/lib.so");
	assert_null(f.symbol);
	assert_int_equal(f.offset, 0x2010);
	const char *err = NULL;
	assert_null(symbolizer_elf(s, "/nonexistent/lib.so", &err));
	assert_non_null(err);
	/* Anonymous and kernel-made mappings: offset from their start. */
	struct code_map vdso = { 0x7fff0000, 0x2000, 0, "[vdso]" };
	symbolizer_lookup(s, 1, &vdso, 0x7fff0100, false, &f);
	assert_string_equal(f.module, "[vdso]");
	assert_int_equal(f.offset, 0x100);
	/* Kernel addresses with no kallsyms. */
	symbolizer_lookup(s, 1, NULL, 0xffffffff81000010ull, true, &f);
	assert_string_equal(f.module, SYM_MODULE_KERNEL);
	assert_null(f.symbol);
	symbolizer_free(s);
}

static void test_symbolize__jit_map_read_again_when_it_grows(void **state)
{
	(void)state;
	struct symbolizer_opts o = { .perf_map_dir = dir, .kallsyms = "" };
	struct symbolizer *s = symbolizer_new(&o);
	char path[600];
	snprintf(path, sizeof(path), "%s/perf-4242.map", dir);
	write_text(path, "7f0000100000 40 jit_first\n");
	struct code_map anon = { 0x7f0000100000, 0x10000, 0, "//anon" };
	struct sym_frame f;
	symbolizer_lookup(s, 4242, &anon, 0x7f0000100010, false, &f);
	assert_string_equal(f.module, path);
	assert_string_equal(f.symbol, "jit_first");
	assert_int_equal(f.offset, 0x10);
	/* Not there yet: anonymous memory, offset from the mapping. */
	symbolizer_lookup(s, 4242, &anon, 0x7f0000100200, false, &f);
	assert_string_equal(f.module, "//anon");
	assert_null(f.symbol);
	assert_int_equal(f.offset, 0x200);
	/* The JIT writes more: the next miss reads the map again. */
	write_text(path, "7f0000100000 40 jit_first\n7f0000100200 80 jit_second\n");
	symbolizer_lookup(s, 4242, &anon, 0x7f0000100204, false, &f);
	assert_string_equal(f.symbol, "jit_second");
	assert_int_equal(f.offset, 4);
	/* JIT code outside any known mapping is found too. */
	symbolizer_lookup(s, 4242, NULL, 0x7f0000100001, false, &f);
	assert_string_equal(f.symbol, "jit_first");
	symbolizer_free(s);
}

static void test_symbolize__kallsyms(void **state)
{
	(void)state;
	char path[600];
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	write_text(path,
		   "ffffffff81000000 T _stext\n"
		   "ffffffff81000100 t do_one\n"
		   "ffffffff81000180 D some_data\n"
		   "ffffffff81000200 T do_two\t[ext4]\n");
	struct symbolizer_opts o = { .perf_map_dir = dir, .kallsyms = path };
	struct symbolizer *s = symbolizer_new(&o);
	struct sym_frame f;
	symbolizer_lookup(s, 1, NULL, 0xffffffff81000105ull, true, &f);
	assert_string_equal(f.module, SYM_MODULE_KERNEL);
	assert_string_equal(f.symbol, "do_one");
	assert_int_equal(f.offset, 5);
	/* Data symbols are left out: do_one reaches up to do_two. */
	symbolizer_lookup(s, 1, NULL, 0xffffffff81000190ull, true, &f);
	assert_string_equal(f.symbol, "do_one");
	symbolizer_lookup(s, 1, NULL, 0xffffffff81000200ull, true, &f);
	assert_string_equal(f.symbol, "do_two");
	assert_int_equal(symbolizer_kernel_state(s), SYM_KERNEL_NAMED);
	symbolizer_free(s);

	/* kptr_restrict shows zeros: nothing to name. */
	write_text(path, "0000000000000000 T _stext\n0000000000000000 t do_one\n");
	s = symbolizer_new(&o);
	assert_int_equal(symbolizer_kernel_state(s), SYM_KERNEL_NOT_READ);
	symbolizer_lookup(s, 1, NULL, 0xffffffff81000105ull, true, &f);
	assert_null(f.symbol);
	assert_int_equal(f.offset, 0xffffffff81000105ull);
	/* Said apart from a file that is not there (prof says why). */
	assert_int_equal(symbolizer_kernel_state(s), SYM_KERNEL_HIDDEN);
	symbolizer_free(s);
	o.kallsyms = "/nonexistent/kallsyms";
	s = symbolizer_new(&o);
	symbolizer_load_kernel(s);
	assert_int_equal(symbolizer_kernel_state(s), SYM_KERNEL_UNREADABLE);
	symbolizer_free(s);
}

static void test_symbolize__intern_and_anon_paths(void **state)
{
	(void)state;
	struct symbolizer *s = symbolizer_new(NULL);
	const char *a = symbolizer_intern(s, "x/y");
	char buf[8] = "x/y";
	assert_ptr_equal(symbolizer_intern(s, buf), a);
	assert_true(sym_path_is_anon("//anon"));
	assert_true(sym_path_is_anon("[vdso]"));
	assert_true(sym_path_is_anon("/memfd:jit (deleted)"));
	assert_false(sym_path_is_anon("/usr/lib/libc.so.6"));
	symbolizer_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbolize__elf_symbols_through_the_mapping),
		cmocka_unit_test(test_symbolize__unknown_places),
		cmocka_unit_test(test_symbolize__jit_map_read_again_when_it_grows),
		cmocka_unit_test(test_symbolize__kallsyms),
		cmocka_unit_test(test_symbolize__intern_and_anon_paths),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
