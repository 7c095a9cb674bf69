/*
 * collect_intervals: prof run -I MS, every thread's counter deltas per
 * interval of wall time. A collector (prof/run/collector.h): prepare adds a
 * task-clock sampler that reads the run's software events at each tick
 * (collectors/counters.h's read_counters: inherited, so threads created
 * later are ticked too, and on Linux 6.12+ each sample carries the
 * ticked thread's own values; docs/intervals.md says what was verified);
 * drain bins the ticks (collectors/intervals); fill closes each thread
 * with its final counts and stores the rows (collect_fill_intervals).
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
#include "common/xalloc.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

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
		xalloc_die();
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
		run_warn("-I: no intervals: counting per CPU was refused "
			 "(%s), and intervals came from it",
			 counters_path_note(cx->cs) ? counters_path_note(cx->cs) : "?");
		st->off = true;
		return;
	}
	const struct counter_status *s = st->percpu ? NULL :
		counters_sampler_status(cx->cs, st->sampler);
	if (!st->percpu && (!s || !s->supported)) {
		run_warn("-I: no intervals: the kernel refused a sampler that "
			 "reads each thread's counters (inherit with "
			 "PERF_SAMPLE_READ needs Linux 6.12 or later)%s%s",
			 s && s->reason ? ": " : "", s && s->reason ? s->reason : "");
		st->off = true;
		return;
	}
	st->iv = intervals_new(st->nev, (uint64_t)cx->o->interval_ms * 1000000ull,
			       mono_now_ns());
	if (!st->iv) {
		run_warn("-I: no intervals: %s", ERR_TEXT(errno));
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
		run_warn("-I: out of memory: the intervals stop here");
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
		run_warn("-I: out of memory: the intervals stop here");
		st->full = true;
	}
}

/* ---- the rows ---- */

/* Event e is read at each tick: a supported software event, or any
 * supported event where every group ticks (counted per CPU). */
static bool ticked(const struct db_run *run, size_t e, bool all_groups)
{
	return run->events[e].supported && (all_groups || run->events[e].group == 0);
}

/* One thread's binning: its ticked rows, then what came after its last
 * tick (rest), which lands in tail_bin. */
struct binning {
	struct db_run *run;
	const struct db_thread *t;
	const struct intervals_thread *it;
	unsigned interval_ms;
	bool all_groups;
	uint64_t *rest;		/* per event: final count - last tick's */
	bool tail;		/* some rest is left to land */
	uint64_t tail_bin;
};

/* What the thread counted after its last tick, per event. */
static void tail_of(struct binning *bn)
{
	const struct db_thread *t = bn->t;
	for (size_t e = 0; e < bn->run->nevents; e++) {
		uint64_t last = bn->it ? bn->it->last[e] : 0;
		if (ticked(bn->run, e, bn->all_groups) && t->counts[e].present &&
		    t->counts[e].value > last) {
			bn->rest[e] = t->counts[e].value - last;
			bn->tail = true;
		}
	}
}

/* Interval b's values into vals (row: its tick's deltas, or NULL; plus
 * the rest when with_rest); false when none of them moved. */
static bool interval_values(const struct binning *bn, const uint64_t *row,
			    bool with_rest, int64_t *vals)
{
	bool moved = false;
	for (size_t e = 0; e < bn->run->nevents; e++) {
		if (!ticked(bn->run, e, bn->all_groups)) {
			vals[e] = -1;
			continue;
		}
		uint64_t v = row ? row[e] : 0;
		if (with_rest)
			v += bn->rest[e];
		vals[e] = v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
		moved |= v != 0;
	}
	return moved;
}

/* Append interval b's row, taking vals. 0 or -ENOMEM. */
static int add_interval(struct binning *bn, uint64_t b, int64_t *vals)
{
	struct db_run *run = bn->run;
	struct db_interval *p = realloc(run->intervals, (run->nintervals + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	run->intervals = p;
	char *name = bn->t->name ? strdup(bn->t->name) : NULL;
	if (bn->t->name && !name)
		return -ENOMEM;
	p[run->nintervals++] = (struct db_interval){
		.t_ms = (int64_t)(b * bn->interval_ms), .tid = bn->t->tid,
		.name = name, .values = vals,
	};
	return 0;
}

/* The intervals it was ticked in, and the tail's in its place. */
static int bin_rows(struct binning *bn)
{
	const struct intervals_thread *it = bn->it;
	size_t ne = bn->run->nevents, nr = it ? it->nrows : 0, r = 0;
	bool tail_left = bn->tail;
	int64_t *vals = NULL;
	int rc = 0;
	while (!rc && (r < nr || tail_left)) {
		uint64_t b;
		const uint64_t *row = NULL;
		bool with_rest = false;
		if (r < nr && (!tail_left || it->bins[r] <= bn->tail_bin)) {
			b = it->bins[r];
			row = it->vals + r * ne;
			r++;
		} else {
			b = bn->tail_bin;
		}
		if (tail_left && b == bn->tail_bin) {
			with_rest = true;
			tail_left = false;
		}
		if (b > (uint64_t)INT64_MAX / bn->interval_ms)
			break;	/* past what t_ms holds: no clock gets there */
		if (!vals && !(vals = malloc((ne ? ne : 1) * sizeof(*vals))))
			return -ENOMEM;
		/* An interval in which none of the thread's counters moved is
		 * not stored (readers take it as 0): a sleeping thread costs
		 * nothing, and the rows go with the ticks, not with threads
		 * times wall time (docs/intervals.md). */
		if (!interval_values(bn, row, with_rest, vals))
			continue;
		if (!(rc = add_interval(bn, b, vals)))
			vals = NULL;
	}
	free(vals);
	return rc;
}

static int one_thread_intervals(struct db_run *run, const struct db_thread *t,
				const struct intervals *iv, unsigned interval_ms,
				uint64_t last_bin, bool all_groups)
{
	const struct intervals_thread *it = intervals_find(iv, t->tid);
	struct binning bn = {
		.run = run, .t = t, .it = it, .interval_ms = interval_ms,
		.all_groups = all_groups,
	};
	uint64_t first = it && it->nrows ? it->bins[0] : UINT64_MAX;
	/* What came after the last tick lands where the thread ended. */
	bn.tail_bin = t->end_ns > 0 ? intervals_bin(iv, (uint64_t)t->end_ns) : last_bin;
	if (it && it->nrows && bn.tail_bin < first)
		bn.tail_bin = first;
	bn.rest = calloc(run->nevents ? run->nevents : 1, sizeof(*bn.rest));
	if (!bn.rest)
		return -ENOMEM;
	tail_of(&bn);
	int rc = bin_rows(&bn);
	free(bn.rest);
	return rc;
}

int collect_fill_intervals(struct db_run *run, const struct intervals *iv,
			   unsigned interval_ms, bool all_groups, char **cause)
{
	if (intervals_nevents(iv) != run->nevents)
		return 0;
	uint64_t last_bin = (uint64_t)(run->wall_s * 1000.0) / interval_ms;
	for (size_t i = 0; i < run->nthreads; i++)
		if (one_thread_intervals(run, &run->threads[i], iv, interval_ms,
					 last_bin, all_groups))
			return fill_oom(cause, "intervals");
	db_set_u64(run, SET_INTERVAL_MS, interval_ms);
	return 0;
}

static int iv_fill(void *self, struct collect_ctx *cx, struct db_run *run,
		   char **cause)
{
	struct intervals_state *st = self;
	if (!st->iv)
		return 0;
	/* Counted per CPU, every group ticks, hardware ones too. */
	return collect_fill_intervals(run, st->iv, cx->o->interval_ms,
				      counters_path(cx->cs) == COUNTERS_PATH_PERCPU,
				      cause);
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
