/*
 * probe: the measurements of `prof probe`, a short calibration that says
 * whether this machine's counters can be trusted and where its caches
 * really end.
 *
 * Two parts. The latency curve times a random pointer chase (walk.h) at
 * sizes from 16 KiB up, without counters: ns per step at each size, which
 * shows the cache levels on any machine, a VM without a PMU included. The
 * counted benchmarks are microbenchmarks whose miss counts are known by
 * construction, one per mission counter, each counted alone around the
 * benchmark on prof's own thread (user space only):
 *
 *   llc-misses     a chase over 8x the last-level cache: one miss a step
 *   itlb-misses    jumps across PROBE_ITLB_PAGES small code pages, more
 *                  than any iTLB holds: one miss a page
 *   l1i-misses     jumps across 4x the L1i, one per line: one miss a line
 *   branch-misses  a branch on random bits: half of them mispredicted
 *
 * Each benchmark runs whether or not its counter opens (its expected count
 * is then still known), so the same code runs on every machine. This
 * module measures and reports raw values; judging them (grades, knees) is
 * reports/probe's.
 *
 * The caller pins its thread first if it wants one CPU's caches. Results
 * are caller-owned (probe_*_release). Not thread-safe: it times its own
 * thread, and opens counters on it.
 */
#ifndef COLLECTORS_PROBE_H
#define COLLECTORS_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/events.h"

/* ---- the latency curve -------------------------------------------------- */

/* The default range of the curve. */
#define PROBE_MIN_BYTES ((uint64_t)16 << 10)
#define PROBE_MAX_BYTES ((uint64_t)256 << 20)

/* The default repetitions of each size (see probe_curve). */
#define PROBE_REPS 5

struct probe_point {
	uint64_t bytes;		/* the chase's size */
	double ns;		/* per step: the median of the repetitions,
				   each one its fastest batch's */
	/* The repetitions' spread: the least and the greatest, and the
	 * quartiles between (interpolated: with 5, the 2nd and 4th). */
	double ns_min, ns_q1, ns_q3, ns_max;
	unsigned reps;		/* repetitions measured */
	uint64_t steps;		/* timed, all batches of all repetitions */
	uint64_t huge_bytes;	/* of bytes, backed by huge pages */
};

/*
 * The sizes of a curve from min to max: the powers of two and the sizes
 * halfway between them in log terms (1.5x), so every octave has two
 * points. min and max are included when they are such sizes; at most cap
 * are written. Returns how many there are (which may exceed cap).
 */
size_t probe_curve_sizes(uint64_t min, uint64_t max, uint64_t *out, size_t cap);

struct probe_curve_opts {
	uint64_t min_bytes, max_bytes;	/* 0: the defaults */
	double ms_per_size;		/* time the batches at least this long,
					   all repetitions together */
	unsigned reps;			/* repetitions of each size; 0: 1 */
	uint64_t seed;
	/* Called after each repetition of a size (may be NULL): done of
	 * total (sizes times repetitions), p holding that repetition
	 * alone. Non-zero stops the curve there (what was measured is
	 * kept). */
	int (*progress)(void *arg, size_t done, size_t total,
			const struct probe_point *p);
	void *arg;
	/* Asked between batches (may be NULL): true drops the size under
	 * way and stops the curve (-ECANCELED) with the sizes before it.
	 * A flag a signal handler sets; called with arg. */
	bool (*stop)(void *arg);
};

/*
 * Measure the curve: build the chase of every size; then, reps times,
 * for each size in turn, walk one pass (or as much of one as a short time
 * allows) to warm it and time batches of steps until ms_per_size / reps
 * has passed. The fastest batch is that repetition's latency, as the
 * least disturbed one on a busy machine; the size's latency is the median
 * of its repetitions, and their spread is kept beside it. The repetitions
 * are interleaved (every size is measured once before any is measured
 * again), so that a slow moment of the machine lands on several sizes,
 * not on every repetition of one. The chases share their memory,
 * WALK_SLOTS sizes to the mapping of the largest (walk_new_beside): all
 * of them take about 1.07 times the largest size. With one repetition, a
 * size far slower than both neighbours is measured again. *out (malloc'd,
 * *n points in size order) holds what was measured, also when it stopped
 * early (-ECANCELED): the sizes measured at least once. 0, -ECANCELED,
 * or -ENOMEM (*cause says at which size).
 */
int probe_curve(const struct probe_curve_opts *o, struct probe_point **out,
		size_t *n, char **cause);

/* ---- counted benchmarks -------------------------------------------------- */

/* Small code pages an iTLB walk jumps across: 4x the 2,048 entries of the
 * largest second-level TLB among the families of the mission map (Ice
 * Lake and later; Zen 4's L2 iTLB has 512). */
#define PROBE_ITLB_PAGES 8192

enum probe_bench {
	PROBE_LLC,
	PROBE_ITLB,
	PROBE_L1I,
	PROBE_BRANCH,
	PROBE_NBENCH
};

/* One counter read around one benchmark. */
struct probe_count {
	bool opened;		/* the counter opened: value, enabled and
				   running hold what it read */
	uint64_t value;		/* raw, not scaled */
	uint64_t enabled, running;	/* ns: time enabled and counting */
	char *event;		/* the event that stood for the name (libpfm4's
				   name for it), or NULL when it did not resolve */
	char *reason;		/* why it did not open, or NULL */
};

struct probe_result {
	const char *name;	/* the mission name: "llc-misses", static */
	char *bench;		/* what ran, for people */
	bool ran;		/* the benchmark ran (else error says why) */
	double expected;	/* its count by construction; 0 when not run */
	struct probe_count count;
	char *error;		/* why the benchmark could not run, or NULL */
};

struct probe_bench_opts {
	uint64_t llc_bytes;	/* sysfs's last level for this CPU; 0: unknown */
	uint64_t l1i_bytes;	/* its L1i; 0: unknown */
	enum event_flags flags;	/* EVENT_ALLOW_GENERIC, for the event names */
	uint64_t seed;
	/* Asked before each benchmark (may be NULL): true leaves the rest
	 * not run, their error saying it was stopped. */
	bool (*stop)(void *arg);
	void *stop_arg;
};

/* The sizes the benchmarks use, for what a run will take. */
uint64_t probe_llc_chase_bytes(uint64_t llc_bytes);
uint64_t probe_l1i_walk_bytes(uint64_t l1i_bytes);

/*
 * Run every benchmark with its counter. out[i] is PROBE_BENCH i, in the
 * order of mission_names; each is filled even when its counter or the
 * benchmark failed (the reason is in it). Release each with
 * probe_result_release.
 */
void probe_benches(const struct probe_bench_opts *o,
		   struct probe_result out[PROBE_NBENCH]);
void probe_result_release(struct probe_result *r);

/*
 * Count the event `name` (any name event_resolve takes) on this thread,
 * user space only, around fn(arg): the harness every benchmark uses, for
 * tests to check with an event whose count they know (page faults).
 */
void probe_count_fn(const char *name, enum event_flags flags,
		    void (*fn)(void *arg), void *arg, struct probe_count *c);
void probe_count_release(struct probe_count *c);

#endif
