/*
 * Tests for collectors/procmaps: mappings replacing what they overlap,
 * lookups to file offsets, fork copying a space, exec emptying one, the
 * records that drive them, and /proc/PID/maps as a seed (checked against
 * this test's own mappings).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/mman.h>

#include "collectors/procmaps.h"
#include "test_util.h"

static struct map_entry ent(uint64_t start, uint64_t len, uint64_t pgoff,
			    uint32_t prot, const char *path)
{
	struct map_entry e = { .start = start, .len = len, .pgoff = pgoff,
			       .prot = prot, .flags = MAP_PRIVATE, .path = path };
	return e;
}

static void test_procmaps__kinds_from_paths(void **state)
{
	(void)state;
	assert_int_equal(map_kind_of("/usr/lib/libc.so.6"), MAP_KIND_FILE);
	assert_int_equal(map_kind_of("/tmp/x (deleted)"), MAP_KIND_FILE);
	assert_int_equal(map_kind_of("//anon"), MAP_KIND_ANON);
	assert_int_equal(map_kind_of("[anon:jit]"), MAP_KIND_ANON);
	assert_int_equal(map_kind_of("/memfd:wasm (deleted)"), MAP_KIND_ANON);
	assert_int_equal(map_kind_of("/dev/zero (deleted)"), MAP_KIND_ANON);
	assert_int_equal(map_kind_of(""), MAP_KIND_ANON);
	assert_int_equal(map_kind_of("[heap]"), MAP_KIND_HEAP);
	assert_int_equal(map_kind_of("[stack]"), MAP_KIND_STACK);
	assert_int_equal(map_kind_of("[vdso]"), MAP_KIND_SPECIAL);
}

/*
 * ld.so maps a library whole read-only, then its segments over it with
 * MAP_FIXED, then mprotects part of .data read-only (RELRO): the layout
 * below is what /proc/PID/maps shows after those steps.
 */
static void test_procmaps__overlaps_are_cut_away(void **state)
{
	(void)state;
	struct proc_maps *pm = proc_maps_new();
	assert_non_null(pm);
	const char *lib = "/usr/lib/libx.so";
	struct map_entry e = ent(0x10000, 0x10000, 0, PROT_READ, lib);
	assert_int_equal(proc_maps_insert(pm, 7, &e), 0);
	e = ent(0x11000, 0x4000, 0x1000, PROT_READ | PROT_EXEC, lib);	/* inside */
	assert_int_equal(proc_maps_insert(pm, 7, &e), 0);
	e = ent(0x1e000, 0x4000, 0xe000, PROT_READ | PROT_WRITE, lib);	/* over the end */
	assert_int_equal(proc_maps_insert(pm, 7, &e), 0);
	e = ent(0x1e000, 0x1000, 0xe000, PROT_READ, lib);		/* RELRO */
	assert_int_equal(proc_maps_insert(pm, 7, &e), 0);

	const struct map_entry *v;
	size_t n = proc_maps_entries(pm, 7, &v);
	/* [10000,11000) r, [11000,15000) r-x, [15000,1e000) r,
	 * [1e000,1f000) r (RELRO), [1f000,22000) rw */
	assert_int_equal(n, 5);
	uint64_t want[5][4] = {
		{ 0x10000, 0x1000, 0, PROT_READ },
		{ 0x11000, 0x4000, 0x1000, PROT_READ | PROT_EXEC },
		{ 0x15000, 0x9000, 0x5000, PROT_READ },
		{ 0x1e000, 0x1000, 0xe000, PROT_READ },
		{ 0x1f000, 0x3000, 0xf000, PROT_READ | PROT_WRITE },
	};
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(v[i].start, want[i][0]);
		assert_int_equal(v[i].len, want[i][1]);
		assert_int_equal(v[i].pgoff, want[i][2]);
		assert_int_equal(v[i].prot, want[i][3]);
		assert_ptr_equal(v[i].path, v[0].path);	/* interned once */
	}

	uint64_t off = 0;
	const struct map_entry *m = proc_maps_lookup(pm, 7, 0x12345, &off);
	assert_non_null(m);
	assert_int_equal(m->prot, PROT_READ | PROT_EXEC);
	assert_int_equal(off, 0x12345 - 0x11000 + 0x1000);
	assert_string_equal(m->path, lib);
	assert_null(proc_maps_lookup(pm, 7, 0xffff, &off));
	assert_null(proc_maps_lookup(pm, 7, 0x22000, &off));
	assert_non_null(proc_maps_lookup(pm, 7, 0x21fff, &off));
	assert_null(proc_maps_lookup(pm, 8, 0x12345, &off));	/* unknown pid */

	/* One mapping over all but the last 8 KiB leaves that alone. */
	e = ent(0x8000, 0x18000, 0, PROT_READ | PROT_WRITE, "//anon");
	assert_int_equal(proc_maps_insert(pm, 7, &e), 0);
	n = proc_maps_entries(pm, 7, &v);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].kind, MAP_KIND_ANON);
	assert_int_equal(v[1].start, 0x20000);
	assert_int_equal(v[1].len, 0x2000);
	assert_int_equal(v[1].pgoff, 0xf000 + 0x1000);
	/* Anonymous offsets are from the mapping's start. */
	m = proc_maps_lookup(pm, 7, 0x9000, &off);
	assert_int_equal(off, 0x1000);
	proc_maps_free(pm);
}

/* Many mappings in random order stay sorted and findable. */
static void test_procmaps__many_mappings(void **state)
{
	(void)state;
	struct proc_maps *pm = proc_maps_new();
	uint32_t x = 12345;
	for (int i = 0; i < 2000; i++) {
		x = x * 1103515245u + 12345u;
		uint64_t slot = (x >> 8) % 4096;
		struct map_entry e = ent(slot * 0x10000, 0x8000, slot, PROT_READ, "//anon");
		assert_int_equal(proc_maps_insert(pm, 1, &e), 0);
	}
	const struct map_entry *v;
	size_t n = proc_maps_entries(pm, 1, &v);
	assert_true(n > 1000 && n <= 2000);
	for (size_t i = 1; i < n; i++)
		assert_true(v[i - 1].start + v[i - 1].len <= v[i].start);
	for (size_t i = 0; i < n; i++) {
		assert_ptr_equal(proc_maps_lookup(pm, 1, v[i].start + 0x7fff, NULL), &v[i]);
		assert_null(proc_maps_lookup(pm, 1, v[i].start + 0x8000, NULL));
	}
	proc_maps_free(pm);
}

/* Records: an exec, a mapping, a thread, a forked child, its exec. */
static void test_procmaps__records_drive_fork_and_exec(void **state)
{
	(void)state;
	struct proc_maps *pm = proc_maps_new();
	struct perf_rec r;

	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_COMM;
	r.misc = PERF_RECORD_MISC_COMM_EXEC;
	r.u.comm.pid = r.u.comm.tid = 100;
	r.u.comm.comm = "sh";
	assert_int_equal(proc_maps_feed(pm, &r), 0);
	uint32_t g0 = proc_maps_space(pm, 100);
	assert_int_not_equal(g0, 0);

	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_MMAP2;
	r.u.mmap.pid = 100;
	r.u.mmap.tid = 100;
	r.u.mmap.addr = 0x400000;
	r.u.mmap.len = 0x2000;
	r.u.mmap.pgoff = 0x1000;
	r.u.mmap.prot = PROT_READ | PROT_EXEC;
	r.u.mmap.filename = "/bin/sh";
	assert_int_equal(proc_maps_feed(pm, &r), 0);

	/* A thread (pid == ppid) changes nothing. */
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_FORK;
	r.u.task.pid = r.u.task.ppid = 100;
	r.u.task.tid = 101;
	r.u.task.ptid = 100;
	assert_int_equal(proc_maps_feed(pm, &r), 0);
	assert_int_equal(proc_maps_space(pm, 100), g0);
	assert_int_equal(proc_maps_space(pm, 101), 0);

	/* A child process inherits the parent's mappings. */
	r.u.task.pid = 200;
	r.u.task.tid = 200;
	assert_int_equal(proc_maps_feed(pm, &r), 0);
	uint32_t g1 = proc_maps_space(pm, 200);
	assert_true(g1 > g0);
	uint64_t off;
	const struct map_entry *m = proc_maps_lookup(pm, 200, 0x401000, &off);
	assert_non_null(m);
	assert_string_equal(m->path, "/bin/sh");
	assert_int_equal(off, 0x2000);
	assert_int_equal(m->space, g1);
	assert_int_equal(proc_maps_space_pid(pm, g1), 200);

	/* A plain rename keeps the space; an exec empties it. */
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_COMM;
	r.u.comm.pid = r.u.comm.tid = 200;
	r.u.comm.comm = "worker";
	assert_int_equal(proc_maps_feed(pm, &r), 0);
	assert_non_null(proc_maps_lookup(pm, 200, 0x401000, NULL));
	r.misc = PERF_RECORD_MISC_COMM_EXEC;
	r.u.comm.comm = "ls";
	assert_int_equal(proc_maps_feed(pm, &r), 0);
	assert_null(proc_maps_lookup(pm, 200, 0x401000, NULL));
	assert_true(proc_maps_space(pm, 200) > g1);
	/* The parent is untouched by its child's exec. */
	assert_non_null(proc_maps_lookup(pm, 100, 0x401000, NULL));
	assert_int_equal(proc_maps_nspaces(pm), 3);
	proc_maps_free(pm);
}

/* Seeding from /proc: this test's own code is found where it runs. */
static void test_procmaps__load_proc_self(void **state)
{
	(void)state;
	struct proc_maps *pm = proc_maps_new();
	char *cause = NULL;
	uint32_t me = (uint32_t)getpid();
	assert_int_equal(proc_maps_load_proc(pm, me, NULL, false, &cause), 0);
	uint64_t off;
	uint64_t here = (uint64_t)(uintptr_t)&test_procmaps__load_proc_self;
	const struct map_entry *m = proc_maps_lookup(pm, me, here, &off);
	assert_non_null(m);
	assert_true(m->prot & PROT_EXEC);
	assert_non_null(strstr(m->path, "test_procmaps"));
	assert_int_equal(m->kind, MAP_KIND_FILE);
	int stack_var;
	m = proc_maps_lookup(pm, me, (uint64_t)(uintptr_t)&stack_var, NULL);
	assert_non_null(m);
	assert_int_equal(m->kind, MAP_KIND_STACK);

	/* exec_only keeps executable mappings alone. */
	struct proc_maps *px = proc_maps_new();
	assert_int_equal(proc_maps_load_proc(px, me, NULL, true, NULL), 0);
	const struct map_entry *v;
	size_t n = proc_maps_entries(px, me, &v);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++)
		assert_true(v[i].prot & PROT_EXEC);
	proc_maps_free(px);

	/* A process that does not exist: a clear error. */
	assert_int_equal(proc_maps_load_proc(pm, 999999999u, NULL, false, &cause), -ENOENT);
	assert_non_null(strstr(cause, "cannot read '/proc/999999999/maps'"));
	free(cause);
	proc_maps_free(pm);
}

/* maps text from anywhere: good lines kept, junk lines skipped. */
static void test_procmaps__load_file_skips_junk(void **state)
{
	(void)state;
	static const char text[] =
		"55d0a0000000-55d0a0001000 r--p 00000000 08:01 42   /usr/bin/emu\n"
		"55d0a0001000-55d0a0005000 r-xp 00001000 08:01 42   /usr/bin/emu\n"
		"not a maps line\n"
		"7f0000000000-7effffffffff r-xp 00000000 00:00 0\n"	/* end < start */
		"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0    [stack]\n"
		"7ffd10000000-7ffd10002000 r-xp 00000000 00:00 0\n"
		/* permissions are four letters; "r" left three unread */
		"7ffe00000000-7ffe00001000 r 00000000 00:00 0 /short/perms\n"
		"7ffe00001000-7ffe00002000 r-xp- 00000000 00:00 0 /long/perms\n";
	FILE *fp = fmemopen((void *)text, sizeof(text) - 1, "r");
	assert_non_null(fp);
	struct proc_maps *pm = proc_maps_new();
	assert_int_equal(proc_maps_load_file(pm, 7, fp, "maps", false, NULL), 0);
	fclose(fp);
	const struct map_entry *v;
	size_t n = proc_maps_entries(pm, 7, &v);
	assert_int_equal(n, 4);
	assert_string_equal(v[1].path, "/usr/bin/emu");
	assert_int_equal(v[1].pgoff, 0x1000);
	assert_int_equal(v[1].prot, PROT_READ | PROT_EXEC);
	assert_int_equal(v[2].kind, MAP_KIND_STACK);
	assert_int_equal(v[3].kind, MAP_KIND_ANON);	/* no path: anonymous */
	proc_maps_free(pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_procmaps__kinds_from_paths),
		cmocka_unit_test(test_procmaps__overlaps_are_cut_away),
		cmocka_unit_test(test_procmaps__many_mappings),
		cmocka_unit_test(test_procmaps__records_drive_fork_and_exec),
		cmocka_unit_test(test_procmaps__load_proc_self),
		cmocka_unit_test(test_procmaps__load_file_skips_junk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
