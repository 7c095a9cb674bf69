/*
 * stall: time a CPU stood still inside a context switch.
 *
 * From a switch's sample (taken as the kernel starts switching the task
 * out) to its switch-out record, and from that record to the next task's
 * switch-in record of the same switch, the kernel runs a few hundred
 * instructions with interrupts off: microseconds on hardware, 34 us (the
 * median) in a QEMU TCG guest. Where two of those records lie a
 * millisecond or more apart the CPU itself stopped in between: a VM whose
 * host took the virtual CPU away. The scheduler and perf take their
 * timestamps at different points of that window, so the stalled time can
 * land in one thread's row while the scheduler gives it to another
 * (docs/kernels.md). A stall before the switch's sample cannot be seen
 * here; those that can are tallied so a run can say how far its rows may
 * be off.
 *
 * Plain data, one watch per CPU, fed that CPU's records in order.
 */
#ifndef COLLECTORS_STALL_H
#define COLLECTORS_STALL_H

#include <stdint.h>

/* What a switch's records 1 ms or more apart say: the CPU stopped. */
#define STALL_MIN_NS 1000000ull

struct stall_watch {
	uint64_t sample_t;	/* the last switch sample's time; 0: none */
	uint64_t out_t;		/* the last switch-out record's time; 0: none */
	int32_t out_next;	/* the task that switch-out went to */
};

struct stall_tally {
	uint64_t n;		/* stalls seen */
	uint64_t ns;		/* their time */
	uint64_t max_ns;	/* the longest */
};

/* A switch sample at t (a tick's sample is not one). */
void stall_sample(struct stall_watch *w, uint64_t t);
/* A switch-out record at t, to task next_tid (its record's next_prev_tid). */
void stall_out(struct stall_watch *w, struct stall_tally *s, uint64_t t,
	       int32_t next_tid);
/* A switch-in record of task tid at t. */
void stall_in(struct stall_watch *w, struct stall_tally *s, uint64_t t,
	      int32_t tid);

#endif
