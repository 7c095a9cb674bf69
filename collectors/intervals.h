/*
 * intervals: each thread's counter values over time, as deltas per
 * interval of wall time (prof run -I). Fed with what a timer-driven
 * sampler reads at each tick (a thread's own running values of every
 * event, collectors/counters.h's read_counters) and, at the end, with
 * each thread's final values, so that the intervals of a thread always
 * sum to its total: what came after its last tick lands in the interval
 * it ended in.
 *
 * A thread's values are cumulative from its start (an inherited event
 * starts at 0 in every new thread), so the first tick's values are its
 * first delta. Ticks come on the thread's own CPU time, so a thread
 * that sleeps is not ticked: what it did since its last tick lands in
 * the interval of the next one (or of its end). A thread holds a row
 * only for the intervals it was ticked in, so the memory goes with the
 * ticks (its CPU time), not with how long it lived (issue 27).
 *
 * Caller-owned (intervals_new/intervals_free). Not thread-safe.
 */
#ifndef COLLECTORS_INTERVALS_H
#define COLLECTORS_INTERVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct intervals_thread {
	int32_t tid;
	uint64_t first_bin;	/* its first tick's interval: bins[0] */
	size_t nrows;		/* the intervals it was ticked in */
	uint64_t *bins;		/* nrows interval indexes, ascending */
	uint64_t *vals;		/* nrows * nevents deltas */
	size_t cap;		/* rows room was made for */
	uint64_t *last;		/* the last cumulative value per event */
	bool *seen;		/* per event: some value arrived */
};

struct intervals;

/* NULL and errno on failure; interval_ns > 0. t0_ns: interval 0 starts. */
struct intervals *intervals_new(size_t nevents, uint64_t interval_ns,
				uint64_t t0_ns);
void intervals_free(struct intervals *iv);

/*
 * Thread tid's cumulative values at time_ns (CLOCK_MONOTONIC); have[e]
 * false: event e was not read. 0 or -ENOMEM. A value below the last one
 * (a reused tid) starts the thread's count again.
 */
int intervals_feed(struct intervals *iv, int32_t tid, uint64_t time_ns,
		   const uint64_t *values, const bool *have);

/* The interval index time_ns falls in. */
uint64_t intervals_bin(const struct intervals *iv, uint64_t time_ns);

size_t intervals_count(const struct intervals *iv);
/* The thread's entry, or NULL. */
const struct intervals_thread *intervals_find(const struct intervals *iv,
					      int32_t tid);
size_t intervals_nevents(const struct intervals *iv);
/* Ticks taken (samples fed). */
uint64_t intervals_ticks(const struct intervals *iv);

#endif
