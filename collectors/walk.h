/*
 * walk: timed walks whose cache behaviour is known by construction, for
 * `prof probe` (a latency curve, and counts to grade the counters against)
 * and for anything that must hold a known amount of cache busy.
 *
 * A data walk is a random cyclic pointer chase over N bytes at cache-line
 * stride: each 64-byte line holds the address of the next, the order is a
 * random single cycle (Sattolo's shuffle, fixed seed), so every step is one
 * dependent load of a line the prefetchers cannot guess, and one pass
 * touches every line once. Its time per step is the load-to-use latency of
 * wherever the lines live: L1d, L2, L3 or memory. The memory is asked for
 * transparent huge pages (MADV_HUGEPAGE, best effort, so a large walk does
 * not also measure TLB misses where the kernel grants them; walk_huge_bytes
 * says how much it did); it works the same without them.
 *
 * A code walk is the same idea for instructions, generated at run time: a
 * chain of direct jumps, one per slot (a 64-byte line for the L1i, a 4 KiB
 * page for the iTLB), in random order, ending in a return. It is written
 * into read-write memory and then made read-execute (never both). A branch
 * walk is a generated loop over random bytes with one conditional branch on
 * each byte's low bit: taken half of the time, at random, so about half of
 * its executions are mispredicted on any predictor. Code is generated for
 * x86-64 only; elsewhere code_walk_new and branch_walk_new fail (ENOTSUP).
 *
 * Every object is owned by its creator (_new/_free; _free takes NULL) and
 * used by one thread at a time; different objects may run on different
 * threads at once. Functions returning a pointer return NULL with errno set.
 */
#ifndef COLLECTORS_WALK_H
#define COLLECTORS_WALK_H

#include <stddef.h>
#include <stdint.h>

/* The stride of a data walk and of an L1i code walk. */
#define WALK_LINE 64
/* The stride of an iTLB code walk: one small page. */
#define WALK_PAGE 4096

/* ---- data: a random pointer chase -------------------------------------- */

struct walk;

/*
 * A chase over bytes (rounded down to whole lines; at least two lines,
 * else EINVAL), its order drawn from seed. ENOMEM when it cannot be mapped.
 */
struct walk *walk_new(size_t bytes, uint64_t seed);
void walk_free(struct walk *w);

/*
 * Take steps steps from where the last walk stopped and return the wall
 * time per step in ns (CLOCK_MONOTONIC around the loop).
 */
double walk_run(struct walk *w, uint64_t steps);

/* How many chases one mapping can hold: one pointer each per line. */
#define WALK_SLOTS (WALK_LINE / sizeof(void *))

/*
 * A chase over the first bytes of host's lines (at most host's), through
 * pointer slot slot (1 .. WALK_SLOTS - 1; host's own chase is slot 0) of
 * each line, its order drawn from seed: one line a step as walk_new's, but
 * without memory of its own, so that chases of several sizes can all be
 * ready at once for the memory of the largest. host must outlive it.
 * EINVAL when it does not fit, ENOMEM.
 */
struct walk *walk_new_beside(struct walk *host, size_t bytes, unsigned slot,
			     uint64_t seed);

size_t walk_bytes(const struct walk *w);	/* lines * WALK_LINE */
size_t walk_lines(const struct walk *w);
/* The line the next walk starts from: 0 before the first. */
size_t walk_line_at(const struct walk *w);
/* How many of its bytes the kernel backed with huge pages (as
 * /proc/self/smaps reads after the chase was written); 0 when unknown. */
size_t walk_huge_bytes(const struct walk *w);

/* ---- code: a chain of jumps --------------------------------------------- */

struct code_walk;

/*
 * A chain of slots jumps (at least two), one every stride bytes (a power
 * of two, at least WALK_LINE), visited in an order drawn from seed. Its
 * memory is never backed by huge pages, so each WALK_PAGE slot is its own
 * page. ENOTSUP on an architecture prof generates no code for.
 */
struct code_walk *code_walk_new(size_t slots, size_t stride, uint64_t seed);
void code_walk_free(struct code_walk *cw);

/* Run the chain passes times, every slot once a pass: ns per jump. */
double code_walk_run(struct code_walk *cw, uint64_t passes);
size_t code_walk_slots(const struct code_walk *cw);

/* ---- branches: a 50/50 data-dependent branch ---------------------------- */

struct branch_walk;

/* A loop over n random bytes (at least one), drawn from seed. */
struct branch_walk *branch_walk_new(size_t n, uint64_t seed);
void branch_walk_free(struct branch_walk *bw);

/* Run the loop passes times: ns per byte. */
double branch_walk_run(struct branch_walk *bw, uint64_t passes);
size_t branch_walk_len(const struct branch_walk *bw);
/* How many times a pass takes the branch: the bytes with the low bit set
 * (the generated loop counts them; the last run's count, per pass). */
uint64_t branch_walk_taken(const struct branch_walk *bw);

/* ---- shared ------------------------------------------------------------- */

/* The generator behind every order (and the co-runner's, pirate.c):
 * splitmix64, a step of state. */
uint64_t walk_rand(uint64_t *state);

/* The size of a transparent huge page on x86-64 and most arm64 kernels
 * (4K granule): the alignment that lets the kernel back a chase with them. */
#define WALK_HUGE_ALIGN ((size_t)2 << 20)

#endif
