/*
 * collect_intervals: prof run -I MS, every thread's counter deltas per
 * interval of wall time. A collector (prof/collector.h): prepare adds a
 * task-clock sampler that reads the run's software events at each tick
 * (collectors/counters.h's read_counters: inherited, so threads created
 * later are ticked too, and on Linux 6.12+ each sample carries the
 * ticked thread's own values; docs/intervals.md says what was verified);
 * drain bins the ticks (collectors/intervals); prof/convert.c closes each
 * thread with its final counts and stores the rows.
 *
 * Counted per CPU (collectors/percpu.h) there is no sampler: every switch
 * and a tick of the same period give each thread's totals (iv_counts),
 * on every kernel.
 *
 * The sampler ticks every tenth of the interval of a thread's own CPU
 * time (at least 1 ms), so a thread that runs part of the time is still
 * ticked within most intervals it runs in; no periodic step is needed,
 * and a thread that sleeps costs nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/intervals.h"
#include "common/errtext.h"
#include "prof/cli.h"
#include "prof/collector.h"
#include "prof/convert.h"
#include "prof/progress.h"
#include "prof/runner.h"

struct intervals_state {
	size_t sampler;		/* index among the counters' samplers */
	const struct counters *cs;
	struct intervals *iv;
	uint64_t *vals;		/* scratch: one per event */
	bool *have;
	size_t nev;
	bool off;		/* the sampler is not supported: say so once */
	bool percpu;		/* fed by iv_counts, no sampler of its own */
	bool full;
	int id_origin;		/* the target whose sampler id is cached */
	uint64_t id;
};

static void iv_release(void *self)
{
	struct intervals_state *st = self;
	intervals_free(st->iv);
	free(st->vals);
	free(st->have);
}

static int iv_prepare(void *self, struct collect_ctx *cx, char **cause)
{
	struct intervals_state *st = self;
	(void)cause;
	if (!cx->o->interval_ms)
		return COLLECT_SKIP;
	uint64_t period = (uint64_t)cx->o->interval_ms * 100000ull;	/* a tenth */
	if (period < 1000000ull)
		period = 1000000ull;
	st->nev = cx->o->nev;
	st->vals = calloc(st->nev ? st->nev : 1, sizeof(*st->vals));
	st->have = calloc(st->nev ? st->nev : 1, sizeof(*st->have));
	if (!st->vals || !st->have)
		abort();
	if (cx->co->flags & COUNTERS_PERCPU) {
		/* Counted per CPU: the switches and a tick of the same
		 * period give each thread's totals (iv_counts). */
		st->percpu = true;
		if (!cx->co->percpu_tick_ns || period < cx->co->percpu_tick_ns)
			cx->co->percpu_tick_ns = period;
		return 0;
	}
	struct sampler_desc sd = { .name = "interval-tick", .read_counters = true };
	sd.attr.type = PERF_TYPE_SOFTWARE;
	sd.attr.config = PERF_COUNT_SW_TASK_CLOCK;
	sd.attr.sample_period = period;
	st->sampler = collect_add_sampler(cx, &sd);
	return 0;
}

static void iv_opened(void *self, struct collect_ctx *cx)
{
	struct intervals_state *st = self;
	st->cs = cx->cs;
	st->id_origin = -1;
	if (st->percpu && counters_path(cx->cs) != COUNTERS_PATH_PERCPU) {
		warning_msg("-I: no intervals: counting per CPU was refused "
			    "(%s), and intervals came from it",
			    counters_path_note(cx->cs) ? counters_path_note(cx->cs) : "?");
		st->off = true;
		return;
	}
	const struct counter_status *s = st->percpu ? NULL :
		counters_sampler_status(cx->cs, st->sampler);
	if (!st->percpu && (!s || !s->supported)) {
		warning_msg("-I: no intervals: the kernel refused a sampler that "
			    "reads each thread's counters (inherit with "
			    "PERF_SAMPLE_READ needs Linux 6.12 or later)%s%s",
			    s && s->reason ? ": " : "", s && s->reason ? s->reason : "");
		st->off = true;
		return;
	}
	st->iv = intervals_new(st->nev, (uint64_t)cx->o->interval_ms * 1000000ull,
			       mono_now_ns());
	if (!st->iv) {
		warning_msg("-I: no intervals: %s", ERR_TEXT(errno));
		st->off = true;
	}
}

static void iv_drain(void *self, const struct perf_rec *rec, int origin)
{
	struct intervals_state *st = self;
	if (st->off || st->full || rec->type != PERF_RECORD_SAMPLE ||
	    !rec->u.sample.read_nr || !rec->u.sample.read_has_id)
		return;
	/* Ours when it comes from our sampler: not another read_counters
	 * sampler's (the frames collector's), nor any other sampler's. */
	if (origin != st->id_origin) {
		st->id = counters_sampler_id(st->cs, (size_t)origin, st->sampler);
		st->id_origin = origin;
	}
	if (rec->u.sample.identifier != st->id)
		return;
	counters_read_values(st->cs, rec, st->vals, st->have, st->nev);
	if (intervals_feed(st->iv, (int32_t)rec->u.sample.tid, rec->u.sample.time,
			   st->vals, st->have)) {
		warning_msg("-I: out of memory: the intervals stop here");
		st->full = true;
	}
}

static void iv_counts(void *self, int32_t tid, uint64_t time,
		      const uint64_t *vals, const bool *have, bool running)
{
	(void)running;	/* an interval takes each tick's values as they are */
	struct intervals_state *st = self;
	if (st->off || st->full || !st->iv)
		return;
	if (intervals_feed(st->iv, tid, time, vals, have)) {
		warning_msg("-I: out of memory: the intervals stop here");
		st->full = true;
	}
}

static void iv_fill(void *self, struct collect_ctx *cx, struct db_run *run)
{
	struct intervals_state *st = self;
	if (!st->iv)
		return;
	/* Counted per CPU, every group ticks, hardware ones too. */
	convert_intervals(run, st->iv, cx->o->interval_ms,
			  counters_path(cx->cs) == COUNTERS_PATH_PERCPU);
}

const struct collector_ops collect_intervals = {
	.name = "intervals",
	.size = sizeof(struct intervals_state),
	.prepare = iv_prepare,
	.opened = iv_opened,
	.drain = iv_drain,
	.counts = iv_counts,
	.fill = iv_fill,
	.release = iv_release,
};
