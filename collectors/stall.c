/*
 * stall: time a CPU stood still inside a context switch (stall.h).
 */
#include "collectors/stall.h"

static void tally(struct stall_tally *s, uint64_t from, uint64_t to)
{
	if (!from || to < from || to - from < STALL_MIN_NS)
		return;
	uint64_t d = to - from;
	s->n++;
	s->ns += d;
	if (d > s->max_ns)
		s->max_ns = d;
}

void stall_sample(struct stall_watch *w, uint64_t t)
{
	/* A task of the workload ran here: whatever switch-out came
	 * before it is no longer the one a switch-in would complete. */
	w->sample_t = t;
	w->out_t = 0;
	w->out_next = 0;
}

void stall_out(struct stall_watch *w, struct stall_tally *s, uint64_t t,
	       int32_t next_tid)
{
	tally(s, w->sample_t, t);
	w->sample_t = 0;
	w->out_t = t;
	w->out_next = next_tid;
}

void stall_in(struct stall_watch *w, struct stall_tally *s, uint64_t t,
	      int32_t tid)
{
	/* Only the switch-in of the same switch: after a switch out of the
	 * workload the CPU may rightly run other tasks for as long as it
	 * likes before one of the workload's comes back. */
	if (tid > 0 && w->out_next == tid)
		tally(s, w->out_t, t);
	w->out_t = 0;
	w->out_next = 0;
}
