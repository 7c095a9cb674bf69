/*
 * Tests for collectors/debuginfo: separate debug files found by build id
 * under a debug root, by .gnu_debuglink in each of its three places, and
 * from a debuginfod cache, for a program built, stripped and split here
 * (objcopy --only-keep-debug, strip, objcopy --add-gnu-debuglink) in a
 * temporary tree; never the system's debug packages. Files of another
 * build are refused (build id, or CRC without one); a debuginfod lookup
 * happens only when allowed and DEBUGINFOD_URLS is set. And the
 * symbolizer naming a stripped program's static function through it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>

#include "collectors/debuginfo.h"
#include "collectors/symbolize.h"
#include "test_util.h"
#include "text_segment.h"

static char *dir;
static bool built;
static char bid[ELF_BUILD_ID_HEX_SIZE];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static uint64_t nm_addr(const char *name);

/* path's text mapped at 0x7f0000000000 + its page (text_segment.h): a
 * vaddr runs at 0x7f0000000000 + vaddr. */
static struct code_map text_map(const char *path)
{
	uint64_t page = 0, len = 0;
	assert_true(ts_text_segment(path, &page, &len));
	return (struct code_map){ 0x7f0000000000 + page, len, page, path };
}

static int sh(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	int rc = system(cmd);
	free(cmd);
	return rc;
}

/*
 * dir/prog (-g) and its split: prog.debug, prog.stripped (no link), and
 * link/prog (stripped, linked to prog.debug); the same program built
 * without a build id (nobid, nobid.debug, linked) and another one
 * (other.c: other.debug, no build id either).
 */
static int setup(void **state)
{
	(void)state;
	dir = tu_tmpdir();
	built = sh("cd '%s' && command -v objcopy >/dev/null && "
		   "printf '%%s\\n' "
		   "'static __attribute__((noinline)) int hot(int x) { return x * 3 + 1; }' "
		   "'int main(int c, char **v) { (void)v; return hot(c); }' > p.c && "
		   "printf '%%s\\n' 'int main(void) { return 7; }' > other.c && "
		   "cc -O1 -g -o prog p.c && "
		   "objcopy --only-keep-debug prog prog.debug && "
		   "strip --strip-all -o prog.stripped prog && "
		   "mkdir link && cp prog.stripped link/prog && "
		   "(cd link && objcopy --add-gnu-debuglink=../prog.debug prog) && "
		   "cc -O1 -g -Wl,--build-id=none -o nobid p.c && "
		   "objcopy --only-keep-debug nobid nobid.debug && "
		   "strip --strip-all nobid && "
		   "objcopy --add-gnu-debuglink=nobid.debug nobid && "
		   "cc -O1 -g -Wl,--build-id=none -o other other.c && "
		   "objcopy --only-keep-debug other other.debug", dir) == 0;
	if (built) {
		struct elf_file *ef;
		char path[600];
		snprintf(path, sizeof(path), "%s/prog", dir);
		built = elf_file_open(path, &ef, NULL) == 0 &&
			elf_file_build_id(ef, bid, sizeof(bid), NULL) == 0;
		elf_file_close(ef);
	}
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
		fprintf(stderr, "skip: cc, strip or objcopy missing, or the program "
			"did not build\n");
		skip();
	}
}

static struct elf_file *open_at(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static struct elf_file *open_at(const char *fmt, ...)
{
	char *path;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&path, fmt, ap) < 0)
		abort();
	va_end(ap);
	struct elf_file *ef = NULL;
	char *cause = NULL;
	if (elf_file_open(path, &ef, &cause))
		fail_msg("%s", cause);
	free(path);
	return ef;
}

/* Look ef up with root and no network; returns the result's path. */
static char *find(const char *root, struct elf_file *ef, const char *build_id,
		  enum debuginfo_via want, char **note)
{
	struct debuginfo_opts o = { root, false };
	struct debuginfo *d = debuginfo_new(&o);
	struct debuginfo_result r;
	debuginfo_find(d, ef, build_id, &r);
	assert_int_equal(r.via, want);
	assert_int_equal(debuginfo_stats(d)->debuginfod_queries, 0);
	char *path = r.path ? strdup(r.path) : NULL;
	if (note)
		*note = r.note ? strdup(r.note) : NULL;
	assert_true((r.ef != NULL) == (r.path != NULL));
	assert_true((r.note != NULL) == (r.path == NULL));
	debuginfo_result_release(&r);
	debuginfo_free(d);
	return path;
}

static void test_debuginfo__crc32_is_zlibs(void **state)
{
	(void)state;
	assert_int_equal(debuginfo_crc32(0, "123456789", 9), 0xcbf43926u);
	/* In pieces, as a continued CRC. */
	assert_int_equal(debuginfo_crc32(debuginfo_crc32(0, "1234", 4), "56789", 5),
			 0xcbf43926u);
	assert_int_equal(debuginfo_crc32(0, "", 0), 0);
}

static void test_debuginfo__debuglink_read(void **state)
{
	(void)state;
	need_build();
	struct elf_file *ef = open_at("%s/link/prog", dir);
	const char *name;
	uint32_t crc;
	assert_int_equal(elf_file_debuglink(ef, &name, &crc, NULL), 0);
	assert_string_equal(name, "prog.debug");
	struct elf_file *dbg = open_at("%s/prog.debug", dir);
	uint64_t size = elf_file_info(dbg)->file_size;
	assert_int_equal(crc, debuginfo_crc32(0, elf_file_bytes(dbg, 0, size), size));
	elf_file_close(dbg);
	elf_file_close(ef);
	ef = open_at("%s/prog.stripped", dir);
	assert_int_equal(elf_file_debuglink(ef, &name, &crc, NULL), -ENOENT);
	assert_false(elf_file_has_symtab(ef));
	elf_file_close(ef);
	ef = open_at("%s/prog", dir);
	assert_true(elf_file_has_symtab(ef));
	elf_file_close(ef);
}

/* A debug link section of junk (no NUL, or no room for the CRC) is
 * refused with a cause, and the file still opens. */
static void test_debuginfo__debuglink_malformed(void **state)
{
	(void)state;
	need_build();
	const char *bad[] = { "printf 'noterminator'", "printf 'ab\\0'", NULL };
	for (int i = 0; bad[i]; i++) {
		assert_int_equal(sh("cd '%s' && %s > junk && rm -f junkprog && "
				    "objcopy --add-section .gnu_debuglink=junk "
				    "prog.stripped junkprog", dir, bad[i]), 0);
		struct elf_file *ef = open_at("%s/junkprog", dir);
		const char *name;
		uint32_t crc;
		char *cause = NULL;
		assert_int_equal(elf_file_debuglink(ef, &name, &crc, &cause), -EINVAL);
		assert_non_null(strstr(cause, "junkprog"));
		free(cause);
		/* The search goes on without it. */
		char *note = NULL;
		assert_null(find(dir, ef, bid, DEBUGINFO_NONE, &note));
		assert_non_null(strstr(note, "no debug link"));
		free(note);
		elf_file_close(ef);
	}
}

static void test_debuginfo__by_build_id(void **state)
{
	(void)state;
	need_build();
	char root[600];
	snprintf(root, sizeof(root), "%s/root", dir);
	assert_int_equal(sh("mkdir -p '%s/.build-id/%.2s' && cp '%s/prog.debug' "
			    "'%s/.build-id/%.2s/%s.debug'", root, bid, dir, root, bid,
			    bid + 2), 0);
	struct elf_file *ef = open_at("%s/prog.stripped", dir);
	char *path = find(root, ef, bid, DEBUGINFO_BUILD_ID, NULL);
	char want[800];
	snprintf(want, sizeof(want), "%s/.build-id/%.2s/%s.debug", root, bid, bid + 2);
	assert_string_equal(path, want);
	free(path);

	/* The default root holds no such file, and the note says where it
	 * looked. */
	char *note = NULL;
	assert_null(find(NULL, ef, bid, DEBUGINFO_NONE, &note));
	char where[300];
	snprintf(where, sizeof(where), "no /usr/lib/debug/.build-id/%.2s/%s.debug", bid,
		 bid + 2);
	assert_non_null(strstr(note, where));
	assert_non_null(strstr(note, "debuginfod not asked: network lookups are off"));
	free(note);
	tu_rmrf(root);
	elf_file_close(ef);
}

/* Another build's debug file at this build id's path is refused. */
static void test_debuginfo__build_id_mismatch_refused(void **state)
{
	(void)state;
	need_build();
	char root[600];
	snprintf(root, sizeof(root), "%s/wrong", dir);
	assert_int_equal(sh("mkdir -p '%s/.build-id/%.2s' && cp '%s/other.debug' "
			    "'%s/.build-id/%.2s/%s.debug'", root, bid, dir, root, bid,
			    bid + 2), 0);
	struct elf_file *ef = open_at("%s/prog.stripped", dir);
	struct debuginfo_opts o = { root, false };
	struct debuginfo *d = debuginfo_new(&o);
	struct debuginfo_result r;
	debuginfo_find(d, ef, bid, &r);
	assert_int_equal(r.via, DEBUGINFO_NONE);
	assert_int_equal(debuginfo_stats(d)->mismatched, 1);
	debuginfo_result_release(&r);
	debuginfo_free(d);
	tu_rmrf(root);
	elf_file_close(ef);
}

/* The debug link's three places, in gdb's order: beside the file, in
 * .debug/ beside it, under ROOT at the file's own directory. */
static void test_debuginfo__debuglink_places(void **state)
{
	(void)state;
	need_build();
	char root[600], want[900];
	snprintf(root, sizeof(root), "%s/lroot", dir);
	struct elf_file *ef = open_at("%s/link/prog", dir);

	/* Nowhere yet: the note names the link. */
	char *note = NULL;
	assert_null(find(root, ef, bid, DEBUGINFO_NONE, &note));
	assert_non_null(strstr(note, "no debug link 'prog.debug' beside it"));
	free(note);

	assert_int_equal(sh("mkdir -p '%s%s/link' && cp '%s/prog.debug' '%s%s/link/'",
			    root, dir, dir, root, dir), 0);
	char *path = find(root, ef, bid, DEBUGINFO_DEBUGLINK, NULL);
	snprintf(want, sizeof(want), "%s%s/link/prog.debug", root, dir);
	assert_string_equal(path, want);
	free(path);

	assert_int_equal(sh("mkdir -p '%s/link/.debug' && cp '%s/prog.debug' "
			    "'%s/link/.debug/'", dir, dir, dir), 0);
	path = find(root, ef, bid, DEBUGINFO_DEBUGLINK, NULL);
	snprintf(want, sizeof(want), "%s/link/.debug/prog.debug", dir);
	assert_string_equal(path, want);
	free(path);

	assert_int_equal(sh("cp '%s/prog.debug' '%s/link/'", dir, dir), 0);
	path = find(root, ef, bid, DEBUGINFO_DEBUGLINK, NULL);
	snprintf(want, sizeof(want), "%s/link/prog.debug", dir);
	assert_string_equal(path, want);
	free(path);
	assert_int_equal(sh("rm -rf '%s/link/.debug' '%s/link/prog.debug'", dir, dir), 0);
	tu_rmrf(root);
	elf_file_close(ef);
}

/* Without build ids, the link's CRC decides: another file under the
 * linked name is refused. */
static void test_debuginfo__debuglink_crc(void **state)
{
	(void)state;
	need_build();
	struct elf_file *ef = open_at("%s/nobid", dir);
	char *path = find(NULL, ef, NULL, DEBUGINFO_DEBUGLINK, NULL);
	assert_non_null(strstr(path, "/nobid.debug"));
	free(path);
	assert_int_equal(sh("cd '%s' && mv nobid.debug keep.debug && "
			    "cp other.debug nobid.debug", dir), 0);
	struct debuginfo *d = debuginfo_new(NULL);
	struct debuginfo_result r;
	debuginfo_find(d, ef, NULL, &r);
	assert_int_equal(r.via, DEBUGINFO_NONE);
	assert_int_equal(debuginfo_stats(d)->mismatched, 1);
	assert_non_null(strstr(r.note, "no build id"));
	assert_non_null(strstr(r.note, "debuginfod not asked"));
	debuginfo_result_release(&r);
	debuginfo_free(d);
	assert_int_equal(sh("cd '%s' && mv keep.debug nobid.debug", dir), 0);
	elf_file_close(ef);
}

/*
 * debuginfod, through its client's cache (CACHE/BUILD_ID/debuginfo), so
 * no network is needed: asked only with the caller's leave and
 * DEBUGINFOD_URLS set; otherwise not even the cache is read, and the
 * note says which of the two was missing.
 */
static void test_debuginfo__debuginfod_only_when_allowed(void **state)
{
	(void)state;
	need_build();
	char cache[600];
	snprintf(cache, sizeof(cache), "%s/dcache", dir);
	assert_int_equal(sh("mkdir -p '%s/%s' && cp '%s/prog.debug' '%s/%s/debuginfo'",
			    cache, bid, dir, cache, bid), 0);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	unsetenv("DEBUGINFOD_URLS");
	struct elf_file *ef = open_at("%s/prog.stripped", dir);
	char empty[600];
	snprintf(empty, sizeof(empty), "%s/empty-root", dir);

	struct {
		bool allow;
		const char *urls;
		const char *note;
	} cases[] = {
		{ true, NULL, "debuginfod not asked: DEBUGINFOD_URLS is not set" },
		{ true, "", "debuginfod not asked: DEBUGINFOD_URLS is not set" },
		{ false, "http://127.0.0.1:9/", "debuginfod not asked: network lookups are off" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].urls)
			setenv("DEBUGINFOD_URLS", cases[i].urls, 1);
		else
			unsetenv("DEBUGINFOD_URLS");
		struct debuginfo_opts o = { empty, cases[i].allow };
		struct debuginfo *d = debuginfo_new(&o);
		struct debuginfo_result r;
		debuginfo_find(d, ef, bid, &r);
		assert_int_equal(r.via, DEBUGINFO_NONE);
		assert_non_null(strstr(r.note, cases[i].note));
		assert_int_equal(debuginfo_stats(d)->debuginfod_queries, 0);
		debuginfo_result_release(&r);
		debuginfo_free(d);
	}

	/* Allowed, with a server named (a loopback port nothing serves):
	 * the client finds the file in its cache. */
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:9/", 1);
	struct debuginfo_opts o = { empty, true };
	struct debuginfo *d = debuginfo_new(&o);
	struct debuginfo_result r;
	debuginfo_find(d, ef, bid, &r);
	assert_int_equal(r.via, DEBUGINFO_DEBUGINFOD);
	assert_int_equal(debuginfo_stats(d)->debuginfod_queries, 1);
	assert_non_null(r.ef);
	debuginfo_result_release(&r);
	debuginfo_free(d);

	/* Through the symbolizer: the symbols from that file, and its lines
	 * only when asked for all (a distribution's debug file is costly to
	 * open for lines). */
	char path[600];
	snprintf(path, sizeof(path), "%s/prog.stripped", dir);
	uint64_t hot = nm_addr("hot");
	struct code_map m = text_map(path);
	for (int all = 0; all < 2; all++) {
		struct symbolizer_opts so = { .kallsyms = "", .debug_dir = empty,
					      .debuginfod = true,
					      .lines = all ? SYM_LINES_ALL : SYM_LINES_OWN };
		struct symbolizer *s = symbolizer_new(&so);
		struct sym_frame f;
		symbolizer_lookup(s, 7, &m, 0x7f0000000000 + hot, false, &f);
		assert_string_equal(f.symbol, "hot");
		if (all)
			assert_int_equal(f.src_line, 1);
		else
			assert_null(f.src_file);
		symbolizer_free(s);
	}
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	elf_file_close(ef);
}

/* The vaddr nm gives a symbol of the unstripped prog. */
static uint64_t nm_addr(const char *name)
{
	char *cmd;
	if (asprintf(&cmd, "nm '%s/prog' | awk '$3 == \"%s\" { print $1 }'", dir, name) < 0)
		abort();
	FILE *p = popen(cmd, "r");
	free(cmd);
	unsigned long long a = 0;
	assert_int_equal(fscanf(p, "%llx", &a), 1);
	pclose(p);
	return a;
}

struct seen {
	const char *path;
	struct sym_module_info mi;
	bool found;
};

static int find_module(void *arg, const struct sym_module_info *mi)
{
	struct seen *s = arg;
	if (!strcmp(mi->path, s->path)) {
		s->mi = *mi;
		s->found = true;
	}
	return 0;
}

/* The symbolizer names the stripped program's static hot() from the
 * debug file under its debug root, and says where it came from. */
static void test_debuginfo__symbolizer_uses_debug_file(void **state)
{
	(void)state;
	need_build();
	char root[600], path[600];
	snprintf(root, sizeof(root), "%s/sroot", dir);
	snprintf(path, sizeof(path), "%s/prog.stripped", dir);
	assert_int_equal(sh("mkdir -p '%s/.build-id/%.2s' && cp '%s/prog.debug' "
			    "'%s/.build-id/%.2s/%s.debug'", root, bid, dir, root, bid,
			    bid + 2), 0);
	uint64_t hot = nm_addr("hot");
	struct code_map m = text_map(path);
	for (int with = 0; with < 2; with++) {
		struct symbolizer_opts o = { .kallsyms = "", .debug_dir = with ? root : dir,
					     .lines = SYM_LINES_OWN };
		struct symbolizer *s = symbolizer_new(&o);
		struct sym_frame f;
		symbolizer_lookup(s, 7, &m, 0x7f0000000000 + hot + 1, false, &f);
		struct seen sn = { .path = path };
		symbolizer_for_each_module(s, find_module, &sn);
		assert_true(sn.found);
		assert_false(sn.mi.has_symtab);
		assert_int_equal(sn.mi.lookups, 1);
		if (with) {
			assert_string_equal(f.symbol, "hot");
			assert_int_equal(f.offset, 1);
			assert_int_equal(sn.mi.via, DEBUGINFO_BUILD_ID);
			assert_non_null(strstr(sn.mi.debug_path, root));
			assert_int_equal(sn.mi.unknown, 0);
			/* Its line from the debug file's DWARF: hot() is
			 * line 1 of p.c. */
			assert_non_null(f.src_file);
			assert_non_null(strstr(f.src_file, "p.c"));
			assert_int_equal(f.src_line, 1);
			assert_string_equal(f.src_function, "hot");
		} else {
			assert_null(f.symbol);
			assert_int_equal(f.offset, hot + 1);
			assert_null(f.src_file);
			assert_int_equal(sn.mi.via, DEBUGINFO_NONE);
			assert_non_null(sn.mi.debug_note);
			assert_int_equal(sn.mi.unknown, 1);
		}
		symbolizer_free(s);
	}
	/* A file with its own .symtab needs no debug file: none is sought. */
	snprintf(path, sizeof(path), "%s/prog", dir);
	struct symbolizer_opts o = { .kallsyms = "", .debug_dir = root };
	struct symbolizer *s = symbolizer_new(&o);
	struct sym_frame f;
	symbolizer_lookup(s, 7, &m, 0x7f0000000000 + hot, false, &f);
	assert_string_equal(f.symbol, "hot");
	assert_int_equal(symbolizer_debuginfo_stats(s)->searched, 0);
	symbolizer_free(s);
	tu_rmrf(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debuginfo__crc32_is_zlibs),
		cmocka_unit_test(test_debuginfo__debuglink_read),
		cmocka_unit_test(test_debuginfo__debuglink_malformed),
		cmocka_unit_test(test_debuginfo__by_build_id),
		cmocka_unit_test(test_debuginfo__build_id_mismatch_refused),
		cmocka_unit_test(test_debuginfo__debuglink_places),
		cmocka_unit_test(test_debuginfo__debuglink_crc),
		cmocka_unit_test(test_debuginfo__debuginfod_only_when_allowed),
		cmocka_unit_test(test_debuginfo__symbolizer_uses_debug_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
