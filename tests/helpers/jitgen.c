/*
 * jitgen: a tiny x86-64 JIT for prof record's JIT tests. It writes
 * machine code into one anonymous executable buffer and runs it, as a
 * recompiler does:
 *   jitgen DIR dump SECONDS  writes jit_alpha into the buffer and runs it
 *                            (called from phase_one) for SECONDS, then
 *                            writes jit_beta over it (the same address)
 *                            and runs that (from phase_two) as long,
 *                            announcing each in DIR/jit-PID.dump, perf's
 *                            jitdump format, before it runs;
 *   jitgen DIR map SECONDS   runs jit_alpha alone (from phase_one),
 *                            named in DIR/perf-PID.map.
 * JITGEN_NAME names jit_alpha in the dump instead, and JITGEN_PAD=N adds
 * N bytes of 'x' to it: names a hostile JIT gives (a line break, 2 MiB).
 * It prints its pid on stdout. The JIT code keeps a frame (push rbp) so
 * a frame-pointer walk finds its caller. Elsewhere than x86-64 it exits
 * 77 (nothing to test).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)

/* push rbp; mov rbp,rsp; mov ecx,1000000; 1: dec ecx; jnz 1b; pop rbp; ret */
static const unsigned char code_alpha[] = {
	0x55, 0x48, 0x89, 0xe5, 0xb9, 0x40, 0x42, 0x0f, 0x00,
	0xff, 0xc9, 0x75, 0xfc, 0x5d, 0xc3,
};
/* the same loop with sub ecx,1 */
static const unsigned char code_beta[] = {
	0x55, 0x48, 0x89, 0xe5, 0xb9, 0x40, 0x42, 0x0f, 0x00,
	0x83, 0xe9, 0x01, 0x75, 0xfb, 0x5d, 0xc3,
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static FILE *dump;

static void put32(uint32_t v) { fwrite(&v, 4, 1, dump); }
static void put64(uint64_t v) { fwrite(&v, 8, 1, dump); }

/* The header of perf's jitdump format, version 1. */
static void dump_header(void)
{
	put32(0x4A695444);	/* magic */
	put32(1);		/* version */
	put32(40);		/* header size */
	put32(62);		/* EM_X86_64 */
	put32(0);
	put32((uint32_t)getpid());
	put64(now_ns());
	put64(0);		/* flags: CLOCK_MONOTONIC times */
	fflush(dump);
}

/* A JIT_CODE_LOAD, written and flushed before the code runs. */
static void dump_load(const char *name, const void *addr, const void *code,
		      uint64_t size, uint64_t index)
{
	size_t nl = strlen(name) + 1;
	put32(0);		/* JIT_CODE_LOAD */
	put32((uint32_t)(56 + nl + size));
	put64(now_ns());
	put32((uint32_t)getpid());
	put32((uint32_t)getpid());
	put64((uint64_t)(uintptr_t)addr);	/* vma */
	put64((uint64_t)(uintptr_t)addr);	/* code_addr */
	put64(size);
	put64(index);
	fwrite(name, 1, nl, dump);
	fwrite(code, 1, size, dump);
	fflush(dump);
}

typedef void (*jit_fn)(void);

static __attribute__((noinline)) void phase_one(jit_fn f, double secs)
{
	uint64_t end = now_ns() + (uint64_t)(secs * 1e9);
	while (now_ns() < end)
		f();
	__asm__ volatile("" ::: "memory");
}

/* Not the same code as phase_one, or the compiler folds the two. */
static volatile unsigned long phase_two_calls;

static __attribute__((noinline)) void phase_two(jit_fn f, double secs)
{
	uint64_t end = now_ns() + (uint64_t)(secs * 1e9);
	while (now_ns() < end) {
		f();
		phase_two_calls++;
	}
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[2], "dump") && strcmp(argv[2], "map"))) {
		fprintf(stderr, "usage: jitgen DIR dump|map SECONDS\n");
		return 2;
	}
	double secs = atof(argv[3]);
	unsigned char *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("jitgen: mmap");
		return 1;
	}
	printf("%d\n", (int)getpid());
	fflush(stdout);
	char path[4096];
	if (!strcmp(argv[2], "map")) {
		snprintf(path, sizeof(path), "%s/perf-%d.map", argv[1], (int)getpid());
		FILE *m = fopen(path, "w");
		if (!m) {
			perror("jitgen: perf map");
			return 1;
		}
		memcpy(buf, code_alpha, sizeof(code_alpha));
		fprintf(m, "%lx %zx jit_alpha\n", (unsigned long)(uintptr_t)buf,
			sizeof(code_alpha));
		fclose(m);
		phase_one((jit_fn)(void *)buf, secs);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/jit-%d.dump", argv[1], (int)getpid());
	dump = fopen(path, "w+");
	if (!dump) {
		perror("jitgen: jitdump");
		return 1;
	}
	dump_header();
	/* Mapped executable, as perf's agents do, so that the profiler sees
	 * a mapping of the file and knows where the dump is. */
	void *marker = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE,
			    fileno(dump), 0);
	if (marker == MAP_FAILED) {
		perror("jitgen: mmap jitdump");
		return 1;
	}
	memcpy(buf, code_alpha, sizeof(code_alpha));
	const char *given = getenv("JITGEN_NAME");
	size_t pad = getenv("JITGEN_PAD") ? strtoul(getenv("JITGEN_PAD"), NULL, 10) : 0;
	char *alpha = malloc(strlen(given ? given : "jit_alpha") + pad + 1);
	if (!alpha)
		return 1;
	strcpy(alpha, given ? given : "jit_alpha");
	size_t base = strlen(alpha);
	memset(alpha + base, 'x', pad);
	alpha[base + pad] = '\0';
	dump_load(alpha, buf, code_alpha, sizeof(code_alpha), 1);
	free(alpha);
	phase_one((jit_fn)(void *)buf, secs);
	memcpy(buf, code_beta, sizeof(code_beta));
	dump_load("jit_beta", buf, code_beta, sizeof(code_beta), 2);
	phase_two((jit_fn)(void *)buf, secs);
	/* JIT_CODE_CLOSE */
	put32(3);
	put32(16);
	put64(now_ns());
	fclose(dump);
	munmap(marker, 4096);
	return 0;
}

#else
int main(void)
{
	fprintf(stderr, "jitgen: x86-64 only\n");
	return 77;
}
#endif
