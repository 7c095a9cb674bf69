/*
 * frames: frame boundaries and each thread's counters at them (prof run
 * --frame-regex, --frame-symbol, prof_marker.h's prof_frame()). Fed with
 * boundary times (CLOCK_MONOTONIC ns, one series per source) and with the cumulative
 * values a read_counters sampler carries for a thread at a time (each
 * thread's own, docs/intervals.md); answers, for each frame of a source,
 * its start and length and a thread's counter deltas over it.
 *
 * A thread's value at a time is its value at its last sample at or
 * before that time (0 before its first): what it did after that sample
 * lands in the frame of its next sample. The samplers prof uses tick at
 * every context switch and every millisecond of CPU time, so a thread
 * that sleeps between frames is sampled as it goes to sleep, and a busy
 * one at least every millisecond of its work.
 *
 * Frame i of a source runs from boundary i to boundary i+1, so n
 * boundaries make n-1 frames: the time before the first boundary is the
 * program's start, not a frame. Boundaries are sorted before use (lines
 * from several threads may arrive out of order).
 *
 * Caller-owned (frames_new/frames_free). Not thread-safe.
 */
#ifndef COLLECTORS_FRAMES_H
#define COLLECTORS_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/frame_budget.h"

enum frame_source {
	FRAME_MARKER,		/* prof_frame() lines on $PROF_MARKER_FD */
	FRAME_REGEX,		/* --frame-regex on the workload's stdout */
	FRAME_SYMBOL,		/* --frame-symbol: a uprobe's samples */
	FRAME_NSOURCES,
};

/* A frame longer than FRAME_BUDGET_MS is long unless told otherwise. */

/*
 * How a run finds its frames: prof run's and prof record's options
 * (opt_frames), or an experiment plan's frame settings.
 */
struct frame_args {
	bool marker;		/* --frames: prof_frame() markers */
	const char *regex;	/* --frame-regex: a frame per matching line
				   of the workload's stdout; or NULL */
	const char *symbol;	/* --frame-symbol MODULE:SYMBOL: a frame per
				   call, through a uprobe; or NULL */
	double budget_ms;	/* --budget: a longer frame is long
				   (FRAME_BUDGET_MS) */
};

/* Some frame method was asked for. */
static inline bool frame_args_any(const struct frame_args *a)
{
	return a->marker || a->regex || a->symbol;
}

/*
 * The marker lines on $PROF_MARKER_FD, checked as they arrive, so that
 * what is stored is what the database reads back (docs/frames.md):
 * "F <ns>" with <ns> decimal digits alone, at most INT64_MAX, not before
 * the run began, not later than the moment the line arrived, and not
 * before the marker kept last. Zone lines ("B <ns> <name>", "E ...") are
 * not used and not counted. Every other line is dropped and counted by
 * why; caller-owned (frame_gate_init), no allocation, not thread-safe.
 */
enum frame_drop {
	FRAME_DROP_UNREADABLE,	/* not "F <digits>", or another kind of line */
	FRAME_DROP_RANGE,	/* past INT64_MAX (or negative) */
	FRAME_DROP_BEFORE,	/* before the run began */
	FRAME_DROP_FUTURE,	/* later than its own arrival */
	FRAME_DROP_BACKWARDS,	/* before the marker kept last */
	FRAME_NDROPS,
};

struct frame_gate {
	uint64_t start_ns;	/* the run's start, CLOCK_MONOTONIC */
	uint64_t last_ns;	/* the marker kept last (start_ns: none yet) */
	uint64_t kept;
	uint64_t dropped[FRAME_NDROPS];
};

void frame_gate_init(struct frame_gate *g, uint64_t start_ns);
/*
 * One line (without its '\n'), arrived at now_ns: true with *t_ns when
 * it is a marker to keep; false when it is a zone or dropped (counted).
 */
bool frame_gate_line(struct frame_gate *g, const char *line, uint64_t now_ns,
		     uint64_t *t_ns);
uint64_t frame_gate_dropped(const struct frame_gate *g);
/*
 * What was dropped, for the run's note: "3 frame markers dropped of 10:
 * 1 not 'F <ns>', 2 before the run began" (malloc'd); NULL when none
 * was, or with errno ENOMEM.
 */
char *frame_gate_note(const struct frame_gate *g);

struct frames;

/* NULL with errno on failure. */
struct frames *frames_new(size_t nevents);
void frames_free(struct frames *f);	/* NULL is fine */

/* 0, or -ENOMEM. */
int frames_mark(struct frames *f, enum frame_source src, uint64_t t_ns);
/* One sample of thread tid: vals[e] valid where have[e]; running: a
 * tick, after which the thread ran on, unswitched, to its next sample
 * (a frame edge between the two gets a share by time). 0 or -ENOMEM. */
int frames_tick(struct frames *f, int32_t tid, uint64_t t_ns,
		const uint64_t *vals, const bool *have, bool running);
/* The values frames_tick is given are the thread's totals as of each
 * call (the per-CPU path's), not as of t_ns (a sampler's reads): a call
 * with an earlier t_ns than one before it adds what it brought at its
 * own time. Call before the first frames_tick. */
void frames_totals_as_called(struct frames *f);

size_t frames_count(const struct frames *f, enum frame_source src);
/* Frame i of src: its start and length in ns. */
void frames_span(struct frames *f, enum frame_source src, size_t i,
		 uint64_t *start_ns, uint64_t *dur_ns);

/* The threads sampled, in order of their first sample. */
size_t frames_nthreads(const struct frames *f);
int32_t frames_thread_tid(const struct frames *f, size_t t);
/*
 * Thread t's delta of event e over frame i of src; false when the
 * thread was never sampled with that event.
 */
bool frames_delta(struct frames *f, enum frame_source src, size_t i,
		  size_t t, size_t e, uint64_t *out);
/* The same between two times (CLOCK_MONOTONIC ns), a_ns <= b_ns: over
 * frames i to j, from frame i's start to frame j's end. */
bool frames_between(struct frames *f, size_t t, size_t e, uint64_t a_ns,
		    uint64_t b_ns, uint64_t *out);

#endif
