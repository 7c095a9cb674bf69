/*
 * ws_touch: a workload with a known working set, for the code-module and
 * working-set tests.
 *
 *   --code        call 64 functions, each alone on its own 4 KiB page of
 *                 .text (4,000 bytes of nops and a ret): 256 KiB of code
 *                 executed, one page at a time
 *   --mib N       map N MiB of fresh anonymous memory and write one byte
 *                 per 4 KiB page: exactly N MiB touched
 *   --jit         map 64 KiB of anonymous memory, write a ret at the start
 *                 of each of its 16 pages, make it executable (mprotect)
 *                 and call them all: 64 KiB of JIT code, all touched
 *   --perf-map    with --jit, describe that code in /tmp/perf-PID.map
 *                 (16 symbols of 4,096 bytes), as a JIT does for perf
 *   --maps FILE   copy /proc/self/maps to FILE before exiting (the
 *                 independent reference for mapping sizes)
 * Prints "ws_touch: done" on stdout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

/* One function per page: aligned to a page, 4,000 bytes of nops. */
#define FN(n) \
	__attribute__((noinline, aligned(PAGE))) static void f##n(void) \
	{ __asm__ volatile(".fill 4000, 1, 0x90"); }
#define FN8(a) FN(a##0) FN(a##1) FN(a##2) FN(a##3) FN(a##4) FN(a##5) FN(a##6) FN(a##7)
FN8(0) FN8(1) FN8(2) FN8(3) FN8(4) FN8(5) FN8(6) FN8(7)

#define REF8(a) f##a##0, f##a##1, f##a##2, f##a##3, f##a##4, f##a##5, f##a##6, f##a##7
static void (*const fns[64])(void) = {
	REF8(0), REF8(1), REF8(2), REF8(3), REF8(4), REF8(5), REF8(6), REF8(7),
};

static int touch(long mib)
{
	size_t len = (size_t)mib << 20;
	if (!len)
		return 0;
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("ws_touch: mmap");
		return 1;
	}
	/* One fault per 4 KiB page, as the tests count them, even where
	 * transparent huge pages are "always" (one fault per 2 MiB). */
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += PAGE)
		p[off] = 1;
	return 0;
}

static int jit(int perf_map)
{
	size_t len = 16 * PAGE;
	uint8_t *code = mmap(NULL, len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("ws_touch: mmap");
		return 1;
	}
	for (size_t i = 0; i < 16; i++)
		code[i * PAGE] = 0xc3;	/* ret */
	if (mprotect(code, len, PROT_READ | PROT_EXEC)) {
		perror("ws_touch: mprotect");
		return 1;
	}
	if (perf_map) {
		char path[64];
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		FILE *fp = fopen(path, "w");
		if (!fp) {
			perror("ws_touch: perf map");
			return 1;
		}
		for (size_t i = 0; i < 16; i++)
			fprintf(fp, "%lx %x jit_fn_%zu\n",
				(unsigned long)(uintptr_t)(code + i * PAGE), PAGE, i);
		fclose(fp);
	}
	for (size_t i = 0; i < 16; i++) {
		void (*fn)(void);
		void *addr = code + i * PAGE;
		memcpy(&fn, &addr, sizeof(fn));
		fn();
	}
	return 0;
}

static int copy_maps(const char *dest)
{
	FILE *in = fopen("/proc/self/maps", "r");
	FILE *out = fopen(dest, "w");
	if (!in || !out) {
		perror("ws_touch: maps");
		return 1;
	}
	char line[4096];
	while (fgets(line, sizeof(line), in))
		fputs(line, out);
	fclose(in);
	return fclose(out) != 0;
}

int main(int argc, char **argv)
{
	const char *maps = NULL;
	int rc = 0, do_jit = 0, perf_map = 0;
	for (int i = 1; i < argc && !rc; i++) {
		if (!strcmp(argv[i], "--code")) {
			for (int k = 0; k < 64; k++)
				fns[k]();
		} else if (!strcmp(argv[i], "--mib") && i + 1 < argc) {
			rc = touch(atol(argv[++i]));
		} else if (!strcmp(argv[i], "--jit")) {
			do_jit = 1;
		} else if (!strcmp(argv[i], "--perf-map")) {
			perf_map = 1;
		} else if (!strcmp(argv[i], "--maps") && i + 1 < argc) {
			maps = argv[++i];
		} else {
			fprintf(stderr, "ws_touch: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!rc && do_jit)
		rc = jit(perf_map);
	if (!rc && maps)
		rc = copy_maps(maps);
	if (!rc)
		printf("ws_touch: done\n");
	return rc;
}
