/*
 * Tests for collectors/modules: modules from MMAP2 records, ELF sizes
 * against binutils (size -A, readelf -S), files that are gone or
 * malformed, JIT code with and without a perf map, page-fault counting
 * (the fault-around window worked out by hand from mm/memory.c, data
 * kinds, 1 GiB of fresh pages), and a replay of the ring-buffer bytes of
 * a real `prof run --working-set` checked against the /proc/PID/maps the
 * workload saved during that run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "collectors/modules.h"
#include "test_util.h"

#define FAULT_ID 4242
#define PAGE 4096

static struct modules *new_mods(bool ws)
{
	struct modules_opts o = { .working_set = ws, .page_size = PAGE };
	struct modules *m = modules_new(&o);
	assert_non_null(m);
	if (ws)
		assert_int_equal(modules_add_fault_id(m, FAULT_ID), 0);
	return m;
}

static void feed_mmap(struct modules *m, uint32_t pid, uint64_t addr, uint64_t len,
		      uint64_t pgoff, uint32_t prot, const char *path,
		      const char *build_id_hex)
{
	struct perf_rec r;
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_MMAP2;
	r.u.mmap.pid = r.u.mmap.tid = pid;
	r.u.mmap.addr = addr;
	r.u.mmap.len = len;
	r.u.mmap.pgoff = pgoff;
	r.u.mmap.prot = prot;
	r.u.mmap.flags = MAP_PRIVATE;
	r.u.mmap.filename = path;
	if (build_id_hex) {
		r.misc = PERF_RECORD_MISC_MMAP_BUILD_ID;
		r.u.mmap.has_build_id = true;
		size_t n = strlen(build_id_hex) / 2;
		for (size_t i = 0; i < n; i++)
			sscanf(build_id_hex + 2 * i, "%2hhx", &r.u.mmap.build_id[i]);
		r.u.mmap.build_id_size = (uint8_t)n;
	}
	assert_int_equal(modules_feed(m, &r), 0);
}

static void feed_fault(struct modules *m, uint32_t pid, uint64_t addr, uint64_t id)
{
	struct perf_rec r;
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_SAMPLE;
	r.sid.valid = true;
	r.sid.id = id;
	r.u.sample.pid = r.u.sample.tid = pid;
	r.u.sample.addr = addr;
	assert_int_equal(modules_feed(m, &r), 0);
}

static void feed_fork(struct modules *m, uint32_t pid, uint32_t ppid)
{
	struct perf_rec r;
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_FORK;
	r.u.task.pid = r.u.task.tid = pid;
	r.u.task.ppid = r.u.task.ptid = ppid;
	assert_int_equal(modules_feed(m, &r), 0);
}

static const struct module_info *find(const struct modules *m, const char *path)
{
	for (size_t i = 0; i < modules_count(m); i++)
		if (!strcmp(modules_at(m, i)->path, path))
			return modules_at(m, i);
	return NULL;
}

/* Run a shell command and return its stdout (malloc'd), or NULL. */
static char *capture(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	char *out = tu_slurp_fd(fileno(p));
	if (pclose(p) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* ---- modules from records ---- */

/*
 * Two processes map one library; the second maps a larger executable
 * range that overlaps the first one's. Exec bytes are the union of the
 * file ranges: [0x1000, 0x5000) and [0x3000, 0x9000) make 0x8000.
 */
static void test_modules__exec_bytes_union_and_kernel_build_id(void **state)
{
	(void)state;
	struct modules_opts o = { .no_elf = true };
	struct modules *m = modules_new(&o);
	const char *bid = "0123456789abcdef0123456789abcdef01234567";
	feed_mmap(m, 10, 0x7f0000001000, 0x4000, 0x1000, PROT_READ | PROT_EXEC,
		  "/opt/lib/libq.so", bid);
	/* A data mapping of the same file is no code. */
	feed_mmap(m, 10, 0x7f0000010000, 0x2000, 0x9000, PROT_READ | PROT_WRITE,
		  "/opt/lib/libq.so", bid);
	feed_fork(m, 11, 10);
	feed_mmap(m, 11, 0x7f1000003000, 0x6000, 0x3000, PROT_READ | PROT_EXEC,
		  "/opt/lib/libq.so", bid);
	feed_mmap(m, 11, 0x400000, 0x20000, 0x1000, PROT_READ | PROT_EXEC, "/opt/bin/q", NULL);
	assert_int_equal(modules_finish(m, NULL), 0);

	assert_int_equal(modules_count(m), 2);
	const struct module_info *big = modules_at(m, 0);	/* largest first */
	assert_string_equal(big->path, "/opt/bin/q");
	assert_int_equal(big->exec_bytes, 0x20000);
	assert_string_equal(big->build_id, "");
	const struct module_info *lib = modules_at(m, 1);
	assert_string_equal(lib->path, "/opt/lib/libq.so");
	assert_int_equal(lib->exec_bytes, 0x8000);
	assert_string_equal(lib->build_id, bid);
	assert_true(lib->build_id_from_kernel);
	assert_int_equal(lib->nprocs, 2);
	assert_int_equal(lib->kind, MODULE_FILE);
	assert_false(lib->has_text);	/* no_elf */
	assert_null(lib->error);
	assert_int_equal(modules_footprint(m), 0x28000);
	assert_false(modules_working_set(m)->enabled);
	modules_free(m);
}

/*
 * JIT code: anonymous executable memory of a process without a perf map
 * is summed as [anon:exec]; a process that wrote /tmp/perf-PID.map gets
 * a module named by it, whose text_bytes are the bytes its symbols cover
 * (three symbols: 0x100, then 0x80 of which 0x40 overlap, then 0x20: 0x160).
 */
static void test_modules__jit_code_and_perf_maps(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *map;
	assert_true(asprintf(&map, "%s/perf-31.map", dir) > 0);
	FILE *fp = fopen(map, "w");
	fputs("7f0000100000 100 jit_a\n7f00001000c0 80 jit_b\n"
	      "0x7f0000100400 0x20 jit_c\nnot a line\n", fp);
	fclose(fp);
	struct modules_opts o = { .perf_map_dir = dir, .page_size = PAGE };
	struct modules *m = modules_new(&o);
	feed_mmap(m, 30, 0x7f0000000000, 0x10000, 0, PROT_READ | PROT_EXEC, "//anon", NULL);
	feed_mmap(m, 30, 0x7f0000020000, 0x4000, 0, PROT_READ | PROT_EXEC, "[anon:jit]", NULL);
	/* The same range made executable again counts once. */
	feed_mmap(m, 30, 0x7f0000000000, 0x8000, 0, PROT_READ | PROT_EXEC, "//anon", NULL);
	feed_mmap(m, 31, 0x7f0000100000, 0x8000, 0, PROT_READ | PROT_EXEC, "//anon", NULL);
	/* Writable anonymous memory is no code. */
	feed_mmap(m, 31, 0x7f0000200000, 0x8000, 0, PROT_READ | PROT_WRITE, "//anon", NULL);
	feed_mmap(m, 31, 0x7fff00000000, 0x2000, 0, PROT_READ | PROT_EXEC, "[vdso]", NULL);
	assert_int_equal(modules_finish(m, NULL), 0);

	assert_int_equal(modules_count(m), 3);
	const struct module_info *anon = find(m, "[anon:exec]");
	assert_non_null(anon);
	assert_int_equal(anon->kind, MODULE_ANON);
	assert_int_equal(anon->exec_bytes, 0x14000);
	assert_false(anon->has_text);
	const struct module_info *pm = find(m, map);
	assert_non_null(pm);
	assert_int_equal(pm->exec_bytes, 0x8000);
	assert_true(pm->has_text);
	assert_int_equal(pm->text_bytes, 0x160);
	const struct module_info *vdso = find(m, "[vdso]");
	assert_non_null(vdso);
	assert_int_equal(vdso->kind, MODULE_ANON);
	assert_int_equal(vdso->exec_bytes, 0x2000);
	assert_null(vdso->error);
	assert_int_equal(modules_footprint(m), 0x14000 + 0x8000 + 0x2000);
	modules_free(m);
	free(map);
	tu_rmrf(dir);
	free(dir);
}

/* ---- ELF sizes ---- */

/* The path of the executable mapping holding addr, from /proc/self/maps. */
static char *mapped_path(const void *addr)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	char line[4096], *out = NULL;
	uint64_t a = (uint64_t)(uintptr_t)addr;
	while (!out && fgets(line, sizeof(line), fp)) {
		uint64_t s, e;
		int n = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %*s %*s %n", &s, &e, &n) < 2)
			continue;
		if (a >= s && a < e && n) {
			line[strcspn(line, "\n")] = '\0';
			out = strdup(line + n);
		}
	}
	fclose(fp);
	return out;
}

static bool size_text(const char *path, uint64_t *text)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "size -A '%s' 2>/dev/null", path);
	char *out = capture(cmd);
	if (!out)
		return false;
	char *p = strstr(out, "\n.text ");
	bool ok = p && sscanf(p + 7, "%" SCNu64, text) == 1;
	free(out);
	return ok;
}

/* The sum of SHF_ALLOC|SHF_EXECINSTR sections, per readelf -SW. */
static bool readelf_exec(const char *path, uint64_t *sum)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "readelf -SW '%s' 2>/dev/null", path);
	char *out = capture(cmd);
	if (!out)
		return false;
	*sum = 0;
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		char *b = strstr(l, "] ");
		char name[256], type[64], flg[32];
		uint64_t addr, off, size, es;
		if (!b || sscanf(b + 2, "%255s %63s %" SCNx64 " %" SCNx64 " %" SCNx64
				 " %" SCNx64 " %31s", name, type, &addr, &off, &size, &es,
				 flg) != 7)
			continue;
		if (strchr(flg, 'A') && strchr(flg, 'X'))
			*sum += size;
	}
	free(out);
	return true;
}

/*
 * libc and this test program, seen as modules: .text exactly what
 * `size -A` says, executable sections exactly readelf's AX sum, and the
 * build id the file carries (read from its note, as the records here
 * carry none).
 */
static void test_modules__elf_sizes_match_binutils(void **state)
{
	(void)state;
	char *self = mapped_path((const void *)&test_modules__elf_sizes_match_binutils);
	char *libc = mapped_path((const void *)&memcpy);
	assert_non_null(self);
	assert_non_null(libc);
	uint64_t t1, t2, x1, x2;
	if (!size_text(self, &t1) || !size_text(libc, &t2) ||
	    !readelf_exec(self, &x1) || !readelf_exec(libc, &x2)) {
		fprintf(stderr, "skipping: size or readelf (binutils) is missing\n");
		free(self);
		free(libc);
		skip();
	}
	struct modules_opts o = { .page_size = PAGE };
	struct modules *m = modules_new(&o);
	feed_mmap(m, 5, 0x555500001000, 0x10000, 0x1000, PROT_READ | PROT_EXEC, self, NULL);
	feed_mmap(m, 5, 0x7f0000026000, 0x156000, 0x26000, PROT_READ | PROT_EXEC, libc, NULL);
	assert_int_equal(modules_finish(m, NULL), 0);
	const struct module_info *a = find(m, self), *b = find(m, libc);
	assert_non_null(a);
	assert_non_null(b);
	assert_null(a->error);
	assert_true(a->has_text && a->has_exec_sections);
	assert_int_equal(a->text_bytes, t1);
	assert_int_equal(a->exec_section_bytes, x1);
	assert_int_equal(b->text_bytes, t2);
	assert_int_equal(b->exec_section_bytes, x2);
	assert_true(b->exec_section_bytes >= b->text_bytes);
	assert_int_equal(strlen(b->build_id), 40);	/* Debian's libc: sha1 */
	assert_false(b->build_id_from_kernel);
	modules_free(m);
	free(self);
	free(libc);
}

/*
 * Files that cannot give sizes: gone, deleted while mapped, not ELF,
 * truncated, and replaced since the run (the kernel's build id differs
 * from the file's). Each keeps its exec bytes from the records and says
 * why, and nothing crashes.
 */
static void test_modules__unreadable_files_get_an_error(void **state)
{
	(void)state;
	char *dir = tu_tmpdir();
	char *junk, *trunc, *gone, *deleted, *self;
	assert_true(asprintf(&junk, "%s/junk.so", dir) > 0);
	assert_true(asprintf(&trunc, "%s/trunc.so", dir) > 0);
	assert_true(asprintf(&gone, "%s/gone.so", dir) > 0);
	assert_true(asprintf(&deleted, "%s/old.so (deleted)", dir) > 0);
	FILE *fp = fopen(junk, "w");
	fputs("\177ELF but nothing after the magic that makes sense at all", fp);
	fclose(fp);
	/* The first 100 bytes of a real ELF file: its headers point past
	 * the end. */
	self = mapped_path((const void *)&test_modules__unreadable_files_get_an_error);
	char *bytes = tu_slurp(self);
	fp = fopen(trunc, "w");
	fwrite(bytes, 1, 100, fp);
	fclose(fp);
	free(bytes);

	struct modules_opts o = { .page_size = PAGE };
	struct modules *m = modules_new(&o);
	uint64_t base = 0x7f0000000000;
	const char *paths[] = { junk, trunc, gone, deleted, self };
	for (size_t i = 0; i < 5; i++)
		feed_mmap(m, 9, base + i * 0x100000, 0x3000 + i * 0x1000, 0,
			  PROT_READ | PROT_EXEC, paths[i],
			  i == 4 ? "00112233445566778899aabbccddeeff00112233" : NULL);
	assert_int_equal(modules_finish(m, NULL), 0);
	assert_int_equal(modules_count(m), 5);
	for (size_t i = 0; i < 5; i++) {
		const struct module_info *mi = find(m, paths[i]);
		assert_non_null(mi);
		assert_int_equal(mi->exec_bytes, 0x3000 + i * 0x1000);
		assert_false(mi->has_text);
		assert_false(mi->has_exec_sections);
		assert_non_null(mi->error);
	}
	assert_non_null(strstr(find(m, gone)->error, "cannot open"));
	assert_non_null(strstr(find(m, gone)->error, "no such file"));
	assert_non_null(strstr(find(m, deleted)->error, "was deleted while the run used it"));
	assert_non_null(strstr(find(m, self)->error, "changed since the run"));
	/* The kernel's build id stays what the run saw. */
	assert_string_equal(find(m, self)->build_id,
			    "00112233445566778899aabbccddeeff00112233");
	modules_free(m);
	free(junk);
	free(trunc);
	free(gone);
	free(deleted);
	free(self);
	tu_rmrf(dir);
	free(dir);
}

/* ---- the working set ---- */

/*
 * Code faults and the fault-around window, by hand from do_fault_around()
 * (16 pages, aligned, within one 512-entry page table; a mapping that
 * starts inside the window moves the window's start, not its length).
 * The mapping starts at page 0x7f000000a (index 10 in its page table) and
 * is 67 pages long (file pages 1..67):
 *   fault at mapping page 1:  pte 11, window [10, 26) -> pages 0..15
 *   fault at mapping page 31: pte 41, window [32, 48) -> pages 22..37
 *   fault at mapping page 63: pte 73, window [64, 77) -> pages 54..66
 *     (cut at the mapping's end, page 67)
 *   again at mapping page 3: nothing new
 * 16 + 16 + 13 = 45 pages touched, 3 distinct pages faulted.
 */
static void test_modules__fault_around_windows(void **state)
{
	(void)state;
	struct modules *m = new_mods(true);
	uint64_t start = 0x7f000000a000;
	feed_mmap(m, 1, start, 67 * PAGE, 0x1000, PROT_READ | PROT_EXEC, "/x/code", NULL);
	feed_fault(m, 1, start + 1 * PAGE + 0x350, FAULT_ID);
	feed_fault(m, 1, start + 31 * PAGE, FAULT_ID);
	feed_fault(m, 1, start + 63 * PAGE + 8, FAULT_ID);
	feed_fault(m, 1, start + 1 * PAGE + 0x10, FAULT_ID);
	/* A sample of another event is not a fault. */
	feed_fault(m, 1, start + 40 * PAGE, FAULT_ID + 1);
	/* A second process faulting the same file pages adds nothing: code
	 * is counted by file page. */
	feed_fork(m, 2, 1);
	feed_fault(m, 2, start + 31 * PAGE, FAULT_ID);

	/*
	 * A window cut by the page table's end: a mapping starting at pte
	 * 500 of its table (page 0x7f00020001f4), fault at pte 505: window
	 * [500, 512), 12 pages.
	 */
	uint64_t s2 = 0x7f0002000000 + 500 * PAGE;
	feed_mmap(m, 1, s2, 40 * PAGE, 0, PROT_READ | PROT_EXEC, "/x/edge", NULL);
	feed_fault(m, 1, s2 + 5 * PAGE, FAULT_ID);
	assert_int_equal(modules_finish(m, NULL), 0);

	const struct module_info *c = find(m, "/x/code");
	assert_non_null(c);
	assert_int_equal(c->touched_bytes, 45 * PAGE);
	assert_int_equal(c->faulted_bytes, 3 * PAGE);
	assert_int_equal(c->faults, 5);
	const struct module_info *e = find(m, "/x/edge");
	assert_int_equal(e->touched_bytes, 12 * PAGE);
	assert_int_equal(e->faulted_bytes, 1 * PAGE);
	const struct working_set *ws = modules_working_set(m);
	assert_true(ws->enabled);
	assert_int_equal(ws->window_bytes, 65536);
	assert_int_equal(ws->kind[WS_CODE].touched_bytes, 57 * PAGE);
	assert_int_equal(ws->kind[WS_CODE].faulted_bytes, 4 * PAGE);
	assert_int_equal(ws->samples, 6);
	modules_free(m);
}

/*
 * Replaying code faults against the file: a fresh copy of libc (every
 * page of it in the page cache), mapped from offset 0 at
 * the same address as above, 8 pages longer than the file, with faults
 * at mapping pages 1, 31 and 63 and one past the end of the file. The
 * replay maps at least what the window estimate holds (fault-around maps
 * every page of the window that is in the page cache, and a large folio
 * adds to that), never more than the file, and touching past the end of
 * the file does not kill the collector (SIGBUS).
 */
static void test_modules__replayed_faults_bound_the_windows(void **state)
{
	(void)state;
	char *self = mapped_path((const void *)&memcpy);	/* libc: 470 pages */
	char *dir = tu_tmpdir();
	char *copy, *cmd;
	assert_true(asprintf(&copy, "%s/code.bin", dir) > 0);
	assert_true(asprintf(&cmd, "cp '%s' '%s'", self, copy) > 0);
	assert_int_equal(system(cmd), 0);
	struct stat st;
	assert_int_equal(stat(copy, &st), 0);
	uint64_t fpages = ((uint64_t)st.st_size + PAGE - 1) / PAGE;
	assert_true(fpages > 70);
	uint64_t start = 0x7f000000a000, len = (fpages + 8) * PAGE;
	uint64_t faults[] = { 1, 31, 63, fpages + 2 };

	struct modules *est = NULL, *rep = NULL;
	for (int pass = 0; pass < 2; pass++) {
		struct modules_opts o = { .working_set = true, .page_size = PAGE,
					  .no_elf = pass == 0 };
		struct modules *m = modules_new(&o);
		modules_add_fault_id(m, FAULT_ID);
		feed_mmap(m, 1, start, len, 0, PROT_READ | PROT_EXEC, copy, NULL);
		for (size_t i = 0; i < 4; i++)
			feed_fault(m, 1, start + faults[i] * PAGE, FAULT_ID);
		assert_int_equal(modules_finish(m, NULL), 0);
		if (pass == 0)
			est = m;
		else
			rep = m;
	}
	const struct module_info *e = find(est, copy), *r = find(rep, copy);
	assert_false(e->touched_replayed);
	assert_true(r->touched_replayed);
	/* The estimate: windows [10,26), [32,48), [64,80) of the page table
	 * (as in test_modules__fault_around_windows), and part of one more
	 * around the fault past the file, cut at the mapping's end. */
	assert_true(e->touched_bytes > 3 * 16 * PAGE);
	assert_true(e->touched_bytes <= 4 * 16 * PAGE);
	assert_true(r->touched_bytes >= 3 * 16 * PAGE);
	assert_true(r->touched_bytes <= fpages * PAGE);
	assert_int_equal(r->faulted_bytes, 4 * PAGE);
	assert_true(r->has_text);
	modules_free(est);
	modules_free(rep);
	free(cmd);
	free(copy);
	free(self);
	tu_rmrf(dir);
	free(dir);
}

/*
 * Data kinds: a page of each, a page faulted twice (read, then write)
 * counted once, an address in no mapping as other, a [vvar] page as
 * other, a file-backed data fault with its window, and a heap whose first
 * brk arrived as //anon: when the kernel names it [heap] (at its first
 * growth), its pages move from anon to heap.
 */
static void test_modules__data_kinds(void **state)
{
	(void)state;
	struct modules *m = new_mods(true);
	uint64_t heap = 0x555500100000, anon = 0x7f0000000000, stack = 0x7ffd00000000;
	uint64_t file = 0x7f0000400000, vvar = 0x7f0000800000;
	feed_mmap(m, 1, heap, 0x21000, heap, PROT_READ | PROT_WRITE, "//anon", NULL);
	feed_mmap(m, 1, anon, 0x100000, anon, PROT_READ | PROT_WRITE, "//anon", NULL);
	feed_mmap(m, 1, stack, 0x21000, 0, PROT_READ | PROT_WRITE, "[stack]", NULL);
	feed_mmap(m, 1, file, 0x40000, 0, PROT_READ, "/x/data.bin", NULL);
	feed_mmap(m, 1, vvar, 0x4000, 0, PROT_READ, "[vvar]", NULL);
	for (int i = 0; i < 5; i++)
		feed_fault(m, 1, heap + (uint64_t)i * PAGE, FAULT_ID);
	feed_fault(m, 1, anon + 0x10, FAULT_ID);
	feed_fault(m, 1, anon + 0x20, FAULT_ID);	/* same page */
	feed_fault(m, 1, anon + PAGE, FAULT_ID);
	feed_fault(m, 1, stack + 0x20000, FAULT_ID);
	feed_fault(m, 1, file + 0x11000, FAULT_ID);	/* window: pages 16..31 */
	feed_fault(m, 1, vvar, FAULT_ID);
	feed_fault(m, 1, 0x1000, FAULT_ID);		/* no mapping */
	feed_fault(m, 77, anon, FAULT_ID);		/* unknown process */
	/* The heap grows and is named: its 5 pages move. */
	feed_mmap(m, 1, heap, 0x42000, heap, PROT_READ | PROT_WRITE, "[heap]", NULL);
	feed_fault(m, 1, heap + 0x30000, FAULT_ID);
	assert_int_equal(modules_finish(m, NULL), 0);

	const struct working_set *ws = modules_working_set(m);
	assert_int_equal(ws->kind[WS_HEAP].touched_bytes, 6 * PAGE);
	assert_int_equal(ws->kind[WS_HEAP].faults, 6);
	assert_int_equal(ws->kind[WS_ANON].touched_bytes, 2 * PAGE);
	assert_int_equal(ws->kind[WS_ANON].faults, 3);
	assert_int_equal(ws->kind[WS_STACK].touched_bytes, PAGE);
	assert_int_equal(ws->kind[WS_FILE].touched_bytes, 16 * PAGE);
	assert_int_equal(ws->kind[WS_FILE].faulted_bytes, PAGE);
	assert_int_equal(ws->kind[WS_OTHER].touched_bytes, 3 * PAGE);
	assert_int_equal(ws->kind[WS_OTHER].faults, 3);
	assert_int_equal(ws->kind[WS_CODE].touched_bytes, 0);
	assert_int_equal(ws->samples, 14);
	assert_int_equal(modules_count(m), 0);
	modules_free(m);
}

/*
 * JIT code is written as data first: the pages faulted while writing
 * move to the process's anonymous code when the range becomes
 * executable, since running them will not fault again.
 */
static void test_modules__jit_pages_move_to_code(void **state)
{
	(void)state;
	struct modules *m = new_mods(true);
	uint64_t jit = 0x7f0000000000;
	feed_mmap(m, 3, jit, 16 * PAGE, 0, PROT_READ | PROT_WRITE, "//anon", NULL);
	for (int i = 0; i < 16; i += 2)
		feed_fault(m, 3, jit + (uint64_t)i * PAGE, FAULT_ID);
	feed_mmap(m, 3, jit, 16 * PAGE, 0, PROT_READ | PROT_EXEC, "//anon", NULL);
	feed_fault(m, 3, jit + PAGE, FAULT_ID);	/* one more, run in place */
	assert_int_equal(modules_finish(m, NULL), 0);
	const struct module_info *a = find(m, "[anon:exec]");
	assert_non_null(a);
	assert_int_equal(a->exec_bytes, 16 * PAGE);
	assert_int_equal(a->touched_bytes, 9 * PAGE);
	assert_int_equal(a->faulted_bytes, 9 * PAGE);
	const struct working_set *ws = modules_working_set(m);
	assert_int_equal(ws->kind[WS_ANON].touched_bytes, 0);
	assert_int_equal(ws->kind[WS_CODE].touched_bytes, 9 * PAGE);
	modules_free(m);
}

/*
 * A JIT reserves a vast range and makes it executable at once: the pages
 * written in it move to code, those around it stay data, and it takes no
 * longer than the pages it holds. Found by fuzz_ringrec (tests/fuzz/
 * regressions/ringrec/): the move walked the range 64 pages at a time, and
 * a 2^43-page one would have taken hours; the alarm fails the test.
 */
static void test_modules__vast_jit_reservation(void **state)
{
	(void)state;
	struct modules *m = new_mods(true);
	uint64_t start = 0x100000000000 + 5 * PAGE, len = 1ull << 55;
	feed_mmap(m, 3, start - 8 * PAGE, len + 16 * PAGE, 0, PROT_READ | PROT_WRITE,
		  "//anon", NULL);
	uint64_t at[] = { start - PAGE, start, start + len / 2, start + len - PAGE,
			  start + len };
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		feed_fault(m, 3, at[i], FAULT_ID);
	alarm(30);
	feed_mmap(m, 3, start, len, 0, PROT_READ | PROT_EXEC, "//anon", NULL);
	alarm(0);
	assert_int_equal(modules_finish(m, NULL), 0);
	const struct working_set *ws = modules_working_set(m);
	assert_int_equal(ws->kind[WS_CODE].touched_bytes, 3 * PAGE);
	assert_int_equal(ws->kind[WS_ANON].touched_bytes, 2 * PAGE);
	modules_free(m);
}

/*
 * 1 GiB of fresh memory, one fault per page (262,144), plus every page
 * once more: exactly 1 GiB touched, in well under a second.
 */
static void test_modules__one_gib_of_faults(void **state)
{
	(void)state;
	struct modules *m = new_mods(true);
	uint64_t base = 0x7f0000000000, len = 1ull << 30;
	feed_mmap(m, 1, base, len, 0, PROT_READ | PROT_WRITE, "//anon", NULL);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t off = 0; off < len; off += PAGE)
			feed_fault(m, 1, base + off + (uint64_t)pass * 8, FAULT_ID);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(modules_finish(m, NULL), 0);
	const struct working_set *ws = modules_working_set(m);
	assert_int_equal(ws->kind[WS_ANON].touched_bytes, len);
	assert_int_equal(ws->kind[WS_ANON].faults, 2 * (len / PAGE));
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	/* Measured here: this whole test program runs in 0.10 s with a
	 * 3 MB peak RSS (/usr/bin/time), the 1 GiB page set included. */
	assert_true(s < 2.0);
	modules_free(m);
}

/* ---- a recorded run ---- */

struct replay {
	uint64_t sampler_id;
	struct perf_rec_layout slay;
};

static const struct perf_rec_layout *replay_layout(uint64_t id, void *arg)
{
	const struct replay *r = arg;
	return id == r->sampler_id ? &r->slay : NULL;
}

/* Sum of the sizes of the executable lines of maps for path ("" for
 * anonymous ones). */
static uint64_t maps_exec_bytes(const char *maps, const char *path)
{
	uint64_t total = 0;
	char *copy = strdup(maps);
	for (char *l = strtok(copy, "\n"); l; l = strtok(NULL, "\n")) {
		uint64_t s, e;
		char perms[8];
		int n = 0;
		if (sscanf(l, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s %n", &s, &e, perms,
			   &n) < 3 || perms[2] != 'x')
			continue;
		const char *p = n ? l + n : "";
		if (!strcmp(p, path))
			total += e - s;
	}
	free(copy);
	return total;
}

/*
 * The ring-buffer bytes of
 *   prof run -e task-clock,page-faults --working-set --record-dump ... --
 *       ws_touch --code --mib 4 --jit --maps ws-touch.maps
 * (tests/fixtures/ring/ws-touch.*), replayed through a fresh collector.
 * The reference is the workload's own /proc/self/maps, saved by it during
 * that run, and the run's page-faults count (ws-touch.json): every module
 * the maps file shows executable, with the same bytes (its [vsyscall]
 * page is the kernel's and has no record); 4 MiB of anonymous memory
 * touched; ws_touch's 64 pages of code and its 16 pages of JIT code.
 */
static void test_modules__replays_recorded_working_set(void **state)
{
	(void)state;
	char *bin, *mapsp, *jsonp;
	assert_true(asprintf(&bin, "%s/ring/ws-touch.bin", FIXTURES_DIR) > 0);
	assert_true(asprintf(&mapsp, "%s/ring/ws-touch.maps", FIXTURES_DIR) > 0);
	assert_true(asprintf(&jsonp, "%s/ring/ws-touch.json", FIXTURES_DIR) > 0);
	char *maps = tu_slurp(mapsp), *json = tu_slurp(jsonp);
	assert_non_null(maps);
	assert_non_null(json);
	FILE *fp = fopen(bin, "rb");
	assert_non_null(fp);
	struct ring_dump_header h;
	assert_int_equal(fread(&h, sizeof(h), 1, fp), 1);
	assert_memory_equal(h.magic, RING_DUMP_MAGIC, 8);
	assert_int_equal(h.nsamplers, 1);
	for (uint32_t i = 0; i < h.nevents; i++) {
		struct ring_dump_event e;
		assert_int_equal(fread(&e, sizeof(e), 1, fp), 1);
	}
	struct ring_dump_sampler sd;
	assert_int_equal(fread(&sd, sizeof(sd), 1, fp), 1);
	assert_string_equal(sd.name, "page-faults");
	assert_true(sd.sample_type & PERF_SAMPLE_ADDR);
	struct replay rp = { sd.id, { sd.sample_type, sd.read_format, sd.regs_user_mask, 0 } };
	struct perf_rec_layout lay = { h.sample_type, h.read_format, 0, 0 };

	/* ELF sizes would come from this machine's files, not the run's. */
	struct modules_opts o = { .working_set = true, .no_elf = true, .page_size = PAGE };
	struct modules *m = modules_new(&o);
	assert_int_equal(modules_add_fault_id(m, sd.id), 0);
	uint8_t buf[65536];
	struct perf_event_header hdr;
	size_t nmmap2 = 0;
	while (fread(&hdr, sizeof(hdr), 1, fp) == 1) {
		memcpy(buf, &hdr, sizeof(hdr));
		assert_true(hdr.size >= sizeof(hdr));
		assert_int_equal(fread(buf + sizeof(hdr), hdr.size - sizeof(hdr), 1, fp), 1);
		struct perf_rec rec;
		assert_int_equal(perf_rec_decode(buf, hdr.size, &lay, replay_layout, &rp, &rec), 0);
		nmmap2 += rec.type == PERF_RECORD_MMAP2;
		assert_int_equal(modules_feed(m, &rec), 0);
	}
	fclose(fp);
	assert_true(nmmap2 > 10);
	assert_int_equal(modules_finish(m, NULL), 0);

	/* The helper's path, as the maps file names it. */
	const char *hp = strstr(maps, "/ws_touch\n");
	assert_non_null(hp);
	const char *hs = hp;
	while (hs > maps && hs[-1] != ' ')
		hs--;
	char helper[1024];
	snprintf(helper, sizeof(helper), "%.*s", (int)(hp + 9 - hs), hs);

	const char *files[] = { helper, "/usr/lib/x86_64-linux-gnu/libc.so.6",
				"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "[vdso]" };
	for (size_t i = 0; i < 4; i++) {
		const struct module_info *mi = find(m, files[i]);
		assert_non_null(mi);
		uint64_t want = maps_exec_bytes(maps, files[i]);
		assert_true(want > 0);
		assert_int_equal(mi->exec_bytes, want);
		assert_true(mi->faulted_bytes <= mi->touched_bytes);
		assert_true(mi->touched_bytes <= mi->exec_bytes);
		assert_true(mi->build_id_from_kernel == (i < 3));
	}
	const struct module_info *jit = find(m, "[anon:exec]");
	assert_non_null(jit);
	assert_int_equal(jit->exec_bytes, maps_exec_bytes(maps, ""));
	assert_int_equal(jit->exec_bytes, 16 * PAGE);
	assert_int_equal(jit->touched_bytes, 16 * PAGE);
	assert_int_equal(modules_count(m), 5);

	/* ws_touch ran its 64 pages of code. In this recording the window
	 * estimate (no_elf: no replay) covers them, as checked when it was
	 * recorded. (It need not: a fault can map a larger folio and leave
	 * pages to no window.) */
	assert_true(find(m, helper)->touched_bytes >= 64 * PAGE);
	assert_true(find(m, helper)->faulted_bytes >= PAGE);

	const struct working_set *ws = modules_working_set(m);
	uint64_t mib4 = 4ull << 20;
	assert_true(ws->kind[WS_ANON].touched_bytes >= mib4);
	assert_true(ws->kind[WS_ANON].touched_bytes < mib4 + (512u << 10));
	/* Every fault the page-faults counter saw was sampled. */
	const char *tot = strstr(json, "\"totals\"");
	assert_non_null(tot);
	const char *pf = strstr(tot, "\"page-faults\": ");
	assert_non_null(pf);
	assert_int_equal(ws->samples, strtoull(pf + 15, NULL, 10));
	uint64_t sum = 0;
	for (int k = 0; k < WS_NKINDS; k++)
		sum += ws->kind[k].faults;
	assert_int_equal(sum, ws->samples);
	modules_free(m);
	free(maps);
	free(json);
	free(bin);
	free(mapsp);
	free(jsonp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules__exec_bytes_union_and_kernel_build_id),
		cmocka_unit_test(test_modules__jit_code_and_perf_maps),
		cmocka_unit_test(test_modules__elf_sizes_match_binutils),
		cmocka_unit_test(test_modules__unreadable_files_get_an_error),
		cmocka_unit_test(test_modules__fault_around_windows),
		cmocka_unit_test(test_modules__replayed_faults_bound_the_windows),
		cmocka_unit_test(test_modules__data_kinds),
		cmocka_unit_test(test_modules__jit_pages_move_to_code),
		cmocka_unit_test(test_modules__vast_jit_reservation),
		cmocka_unit_test(test_modules__one_gib_of_faults),
		cmocka_unit_test(test_modules__replays_recorded_working_set),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
