/*
 * walk: the pointer chase, the generated jump chains and the branch loop
 * of walk.h. Everything here is the machine's to time; nothing prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "collectors/walk.h"

uint64_t walk_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * A random single cycle over 0..n-1 (Sattolo's shuffle): next[i] is the
 * slot after i, and following next from any slot visits every slot once
 * before coming back. malloc'd; NULL when out of memory.
 */
static uint32_t *random_cycle(size_t n, uint64_t seed)
{
	uint32_t *next = malloc(n * sizeof(*next));
	if (!next)
		return NULL;
	for (size_t i = 0; i < n; i++)
		next[i] = (uint32_t)i;
	uint64_t s = seed;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(walk_rand(&s) % i);
		uint32_t t = next[i];
		next[i] = next[j];
		next[j] = t;
	}
	return next;
}

/* ---- data ----------------------------------------------------------------- */

struct walk {
	void *map;		/* the whole mapping, for munmap */
	size_t map_len;
	char *base;		/* WALK_HUGE_ALIGN-aligned start of the lines */
	size_t lines;
	void **pos;		/* where the next walk starts */
	size_t huge;
};

/* AnonHugePages of the mapping that holds addr, from /proc/self/smaps. */
static size_t huge_bytes_at(const void *addr)
{
	FILE *fp = fopen("/proc/self/smaps", "r");
	if (!fp)
		return 0;
	char line[512];
	bool inside = false;
	size_t kb = 0;
	uintptr_t a = (uintptr_t)addr;
	while (fgets(line, sizeof(line), fp)) {
		uintptr_t lo, hi;
		char dash;
		if (sscanf(line, "%" SCNxPTR "%c%" SCNxPTR " ", &lo, &dash, &hi) == 3 &&
		    dash == '-') {
			if (inside)
				break;
			inside = a >= lo && a < hi;
			continue;
		}
		if (inside && sscanf(line, "AnonHugePages: %zu kB", &kb) == 1)
			break;
	}
	fclose(fp);
	return kb * 1024;
}

struct walk *walk_new(size_t bytes, uint64_t seed)
{
	size_t lines = bytes / WALK_LINE;
	if (lines < 2 || lines > UINT32_MAX) {
		errno = EINVAL;
		return NULL;
	}
	struct walk *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->lines = lines;
	size_t len = lines * WALK_LINE;
	/* Whole huge pages, and room to align the start to one: a chase of
	 * any size, 16 KiB included, can then sit in huge pages, and a small
	 * one measures the caches, not the first-level TLB's reach. */
	size_t span = (len + WALK_HUGE_ALIGN - 1) & ~(WALK_HUGE_ALIGN - 1);
	w->map_len = span + WALK_HUGE_ALIGN;
	w->map = mmap(NULL, w->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->map == MAP_FAILED) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->base = (char *)(((uintptr_t)w->map + WALK_HUGE_ALIGN - 1) & ~(WALK_HUGE_ALIGN - 1));
#ifdef MADV_HUGEPAGE
	/* Advice only: where huge pages are off or scarce, the chase still
	 * works on small ones, and then also measures the TLB. */
	madvise(w->base, span, MADV_HUGEPAGE);
#endif
	uint32_t *next = random_cycle(lines, seed);
	if (!next) {
		walk_free(w);
		errno = ENOMEM;
		return NULL;
	}
	/* Written in address order: building a large chase costs a sweep,
	 * not one cache miss per line. */
	for (size_t i = 0; i < lines; i++)
		*(void **)(w->base + i * WALK_LINE) = w->base + (size_t)next[i] * WALK_LINE;
	free(next);
	w->pos = (void **)w->base;
	w->huge = huge_bytes_at(w->base);
	if (w->huge > len)
		w->huge = len;
	return w;
}

struct walk *walk_new_beside(struct walk *host, size_t bytes, unsigned slot,
			     uint64_t seed)
{
	size_t lines = bytes / WALK_LINE;
	if (!host || slot < 1 || slot >= WALK_SLOTS || lines < 2 || lines > host->lines) {
		errno = EINVAL;
		return NULL;
	}
	struct walk *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	uint32_t *next = random_cycle(lines, seed);
	if (!next) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->lines = lines;
	w->base = host->base;	/* not mapped by w: walk_free leaves it */
	size_t off = slot * sizeof(void *);
	for (size_t i = 0; i < lines; i++)
		*(void **)(w->base + i * WALK_LINE + off) =
			w->base + (size_t)next[i] * WALK_LINE + off;
	free(next);
	w->pos = (void **)(w->base + off);
	/* Its share of the host's huge pages (smaps tells a mapping's
	 * total, not where they lie). */
	w->huge = (size_t)((double)host->huge * (double)lines / (double)host->lines);
	return w;
}

void walk_free(struct walk *w)
{
	if (!w)
		return;
	if (w->map && w->map != MAP_FAILED)
		munmap(w->map, w->map_len);
	free(w);
}

/* The chase itself: each load's address is the previous load's value. */
static void **chase(void **p, uint64_t steps)
{
	for (; steps >= 8; steps -= 8) {
		p = *p; p = *p; p = *p; p = *p;
		p = *p; p = *p; p = *p; p = *p;
	}
	while (steps--)
		p = *p;
	return p;
}

double walk_run(struct walk *w, uint64_t steps)
{
	if (!steps)
		return 0;
	double t0 = now_ns();
	/* Kept in w, so the loads cannot be optimised away. */
	w->pos = chase(w->pos, steps);
	double t1 = now_ns();
	return (t1 - t0) / (double)steps;
}

size_t walk_bytes(const struct walk *w)
{
	return w->lines * WALK_LINE;
}

size_t walk_lines(const struct walk *w)
{
	return w->lines;
}

size_t walk_line_at(const struct walk *w)
{
	return (size_t)((char *)w->pos - w->base) / WALK_LINE;
}

size_t walk_huge_bytes(const struct walk *w)
{
	return w->huge;
}

/* ---- generated code ---------------------------------------------------------- */

/* Memory for code: written while read-write, then made read-execute. */
struct code_mem {
	void *p;
	size_t len;
};

static int code_mem_new(struct code_mem *m, size_t len)
{
	m->len = len;
	m->p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m->p == MAP_FAILED) {
		m->p = NULL;
		return -ENOMEM;
	}
#ifdef MADV_NOHUGEPAGE
	/* An iTLB walk needs a small page per slot. */
	madvise(m->p, len, MADV_NOHUGEPAGE);
#endif
	return 0;
}

static int code_mem_seal(struct code_mem *m)
{
	__builtin___clear_cache((char *)m->p, (char *)m->p + m->len);
	return mprotect(m->p, m->len, PROT_READ | PROT_EXEC) ? -errno : 0;
}

static void code_mem_free(struct code_mem *m)
{
	if (m->p)
		munmap(m->p, m->len);
	m->p = NULL;
}

#if defined(__x86_64__)
#define WALK_HAVE_CODEGEN 1

/* jmp rel32 from src to dst, or ret when dst is NULL. */
static void emit_jump(unsigned char *src, const unsigned char *dst)
{
	if (!dst) {
		src[0] = 0xc3;		/* ret */
		return;
	}
	int32_t rel = (int32_t)(dst - (src + 5));
	src[0] = 0xe9;			/* jmp rel32 */
	memcpy(src + 1, &rel, sizeof(rel));
}

/*
 * uint32_t loop(const uint8_t *p, uint64_t n): count the bytes with the
 * low bit set, with a conditional branch on each (n >= 1).
 */
static const unsigned char branch_loop[] = {
	0x31, 0xc0,		/* xor eax, eax */
	/* loop: */
	0xf6, 0x07, 0x01,	/* test byte [rdi], 1 */
	0x74, 0x02,		/* jz skip */
	0xff, 0xc0,		/* inc eax */
	/* skip: */
	0x48, 0xff, 0xc7,	/* inc rdi */
	0x48, 0xff, 0xce,	/* dec rsi */
	0x75, 0xf1,		/* jnz loop */
	0xc3,			/* ret */
};
#else
#define WALK_HAVE_CODEGEN 0
#endif

struct code_walk {
	struct code_mem mem;
	size_t slots, stride;
	void (*entry)(void);
};

/* Where slot i's instruction sits: staggered by a line per slot inside
 * a larger stride, so an iTLB walk's jumps spread over the L1i sets. */
static inline size_t slot_offset(size_t i, size_t stride)
{
	return i * stride + (i * WALK_LINE) % stride;
}

struct code_walk *code_walk_new(size_t slots, size_t stride, uint64_t seed)
{
	if (!WALK_HAVE_CODEGEN) {
		errno = ENOTSUP;
		return NULL;
	}
	if (slots < 2 || slots > UINT32_MAX || stride < WALK_LINE ||
	    (stride & (stride - 1)) || slots > ((size_t)1 << 30) / stride) {
		errno = EINVAL;
		return NULL;
	}
	struct code_walk *cw = calloc(1, sizeof(*cw));
	if (!cw)
		return NULL;
	cw->slots = slots;
	cw->stride = stride;
	int rc = code_mem_new(&cw->mem, slots * stride);
	uint32_t *next = rc ? NULL : random_cycle(slots, seed);
	if (!next) {
		code_walk_free(cw);
		errno = ENOMEM;
		return NULL;
	}
#if WALK_HAVE_CODEGEN
	unsigned char *base = cw->mem.p;
	/* The chain starts at slot 0; the slot whose successor is 0 ends it. */
	for (size_t i = 0; i < slots; i++)
		emit_jump(base + slot_offset(i, stride),
			  next[i] ? base + slot_offset(next[i], stride) : NULL);
#endif
	free(next);
	rc = code_mem_seal(&cw->mem);
	if (rc) {
		code_walk_free(cw);
		errno = -rc;
		return NULL;
	}
	void *p = cw->mem.p;
	memcpy(&cw->entry, &p, sizeof(p));
	return cw;
}

void code_walk_free(struct code_walk *cw)
{
	if (!cw)
		return;
	code_mem_free(&cw->mem);
	free(cw);
}

double code_walk_run(struct code_walk *cw, uint64_t passes)
{
	if (!passes)
		return 0;
	double t0 = now_ns();
	for (uint64_t i = 0; i < passes; i++)
		cw->entry();
	double t1 = now_ns();
	return (t1 - t0) / ((double)passes * (double)cw->slots);
}

size_t code_walk_slots(const struct code_walk *cw)
{
	return cw->slots;
}

struct branch_walk {
	struct code_mem mem;
	uint8_t *bytes;
	size_t n;
	uint32_t (*loop)(const uint8_t *p, uint64_t n);
	uint64_t taken;
};

struct branch_walk *branch_walk_new(size_t n, uint64_t seed)
{
	if (!WALK_HAVE_CODEGEN) {
		errno = ENOTSUP;
		return NULL;
	}
	if (n < 1 || n > UINT32_MAX) {
		errno = EINVAL;
		return NULL;
	}
	struct branch_walk *bw = calloc(1, sizeof(*bw));
	if (!bw)
		return NULL;
	bw->n = n;
	bw->bytes = malloc(n);
	if (!bw->bytes || code_mem_new(&bw->mem, WALK_PAGE)) {
		branch_walk_free(bw);
		errno = ENOMEM;
		return NULL;
	}
	uint64_t s = seed;
	for (size_t i = 0; i < n; i++)
		bw->bytes[i] = (uint8_t)walk_rand(&s);
#if WALK_HAVE_CODEGEN
	memcpy(bw->mem.p, branch_loop, sizeof(branch_loop));
#endif
	int rc = code_mem_seal(&bw->mem);
	if (rc) {
		branch_walk_free(bw);
		errno = -rc;
		return NULL;
	}
	void *p = bw->mem.p;
	memcpy(&bw->loop, &p, sizeof(p));
	return bw;
}

void branch_walk_free(struct branch_walk *bw)
{
	if (!bw)
		return;
	code_mem_free(&bw->mem);
	free(bw->bytes);
	free(bw);
}

double branch_walk_run(struct branch_walk *bw, uint64_t passes)
{
	if (!passes)
		return 0;
	double t0 = now_ns();
	for (uint64_t i = 0; i < passes; i++)
		bw->taken = bw->loop(bw->bytes, bw->n);
	double t1 = now_ns();
	return (t1 - t0) / ((double)passes * (double)bw->n);
}

size_t branch_walk_len(const struct branch_walk *bw)
{
	return bw->n;
}

uint64_t branch_walk_taken(const struct branch_walk *bw)
{
	return bw->taken;
}
