/*
 * Tests for collectors/srcline: source lines of a program built here
 * with -g, checked against addr2line at every sampled address; the
 * innermost function where the compiler inlined one (always_inline),
 * with how deep; the same through the separate debug file of a stripped
 * copy; and a file without DWARF refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "collectors/elf.h"
#include "collectors/srcline.h"
#include "test_util.h"

static char *dir;
static bool built;

static int setup(void **state)
{
	(void)state;
	dir = tu_tmpdir();
	char *cmd;
	/* Line numbers matter: leaf's body is line 3, mid's call of leaf
	 * line 6, outer's loop line 10. leaf's xor keeps an instruction of
	 * its own: gcc 12 for arm64 folds x * x + 7 into mid's code (one
	 * madd) and gives the inlined leaf an empty range. */
	if (asprintf(&cmd, "cd '%s' && command -v addr2line >/dev/null && "
		     "printf '%%s\\n' "
		     "'static inline __attribute__((always_inline)) int leaf(int x)' "
		     "'{' "
		     "'	return (x * x) ^ 7;' "
		     "'}' "
		     "'static inline __attribute__((always_inline)) int mid(int x)' "
		     "'{	return leaf(x + 1) - 1; }' "
		     "'__attribute__((noinline)) int outer(int n)' "
		     "'{' "
		     "'	int s = 0;' "
		     "'	for (int i = 0; i < n; i++) s += mid(i);' "
		     "'	return s;' "
		     "'}' "
		     "'int main(int c, char **v) { (void)v; return outer(c) & 1; }' > p.c && "
		     "cc -O1 -g -o prog p.c && objcopy --only-keep-debug prog prog.debug && "
		     "strip --strip-all -o prog.stripped prog", dir) < 0)
		abort();
	built = system(cmd) == 0;
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

static void need_build(void)
{
	if (!built) {
		fprintf(stderr, "skip: cc, addr2line, objcopy or strip missing\n");
		skip();
	}
}

/* addr2line's "file:line" of addr in path, its line number. */
static unsigned a2l_line(const char *path, uint64_t addr, char *file, size_t n)
{
	char *cmd;
	if (asprintf(&cmd, "addr2line -e '%s' %llx", path, (unsigned long long)addr) < 0)
		abort();
	FILE *p = popen(cmd, "r");
	free(cmd);
	char buf[4096] = "";
	if (!fgets(buf, sizeof(buf), p))
		buf[0] = '\0';
	pclose(p);
	buf[strcspn(buf, " \n")] = '\0';
	char *colon = strrchr(buf, ':');
	unsigned line = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
	if (colon)
		*colon = '\0';
	snprintf(file, n, "%s", buf);
	return line;
}

/* Every 2nd byte of outer() has the line addr2line gives; the loop's
 * code is mid's and leaf's, inlined. */
static void check_outer(struct srcline *sl, const char *path)
{
	struct elf_file *ef;
	struct elf_symtab *st;
	char p[600];
	snprintf(p, sizeof(p), "%s/prog", dir);
	assert_int_equal(elf_file_open(p, &ef, NULL), 0);
	assert_int_equal(elf_symtab_load(ef, &st, NULL), 0);
	const struct elf_sym *outer = NULL;
	for (size_t i = 0; i < elf_symtab_count(st); i++)
		if (!strcmp(elf_symtab_at(st, i)->name, "outer"))
			outer = elf_symtab_at(st, i);
	assert_non_null(outer);
	unsigned checked = 0, inlined = 0, in_leaf = 0;
	for (uint64_t a = outer->addr; a < outer->addr + outer->size; a += 2) {
		struct src_loc loc;
		assert_int_equal(srcline_lookup(sl, a, &loc), 0);
		char file[4096];
		unsigned line = a2l_line(path, a, file, sizeof(file));
		if (!line) {
			assert_int_equal(loc.line, 0);
			continue;
		}
		assert_non_null(loc.file);
		assert_string_equal(loc.file, file);
		assert_int_equal(loc.line, line);
		assert_non_null(loc.function);
		checked++;
		if (loc.inlined) {
			inlined++;
			/* leaf inside mid inside outer: two deep. */
			/* The chain outermost first: mid, then leaf. */
			assert_string_equal(loc.inlines[0], "mid");
			if (!strcmp(loc.function, "leaf")) {
				assert_int_equal(loc.inlined, 2);
				assert_string_equal(loc.inlines[1], "leaf");
				assert_int_equal(loc.line, 3);
				in_leaf++;
			} else {
				assert_string_equal(loc.function, "mid");
				assert_int_equal(loc.inlined, 1);
			}
		} else {
			assert_string_equal(loc.function, "outer");
		}
	}
	fprintf(stderr, "  %s: %u addresses as addr2line says, %u in inlined code "
		"(%u in leaf)\n", path, checked, inlined, in_leaf);
	assert_true(checked >= 4);
	assert_true(in_leaf >= 1);
	elf_symtab_free(st);
	elf_file_close(ef);
}

static void test_srcline__lines_and_inlines_as_addr2line(void **state)
{
	(void)state;
	need_build();
	char path[600];
	snprintf(path, sizeof(path), "%s/prog", dir);
	struct srcline *sl = srcline_open(path);
	assert_non_null(sl);
	check_outer(sl, path);
	/* Outside any unit. */
	struct src_loc loc;
	assert_int_equal(srcline_lookup(sl, 0, &loc), -ENOENT);
	assert_null(loc.file);
	srcline_free(sl);
}

static void test_srcline__through_the_debug_file(void **state)
{
	(void)state;
	need_build();
	char path[600];
	snprintf(path, sizeof(path), "%s/prog.debug", dir);
	struct srcline *sl = srcline_open(path);
	assert_non_null(sl);
	check_outer(sl, path);
	srcline_free(sl);
	/* The stripped file has no DWARF; a missing file is the file
	 * system's error. */
	snprintf(path, sizeof(path), "%s/prog.stripped", dir);
	errno = 0;
	assert_null(srcline_open(path));
	assert_int_equal(errno, ENODATA);
	errno = 0;
	assert_null(srcline_open("/nonexistent/prog"));
	assert_int_equal(errno, ENOENT);
	srcline_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_srcline__lines_and_inlines_as_addr2line),
		cmocka_unit_test(test_srcline__through_the_debug_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
