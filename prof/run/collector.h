/*
 * collector: the one set of calls through which the runner drives
 * everything it collects during a run (the counters, each thread's
 * process and its parent, code modules and the working set, the sleep
 * interposer's report, a verb's own, such as prof record's samples).
 *
 * Every collector goes through the same steps, in the order of the
 * runner's table (runner.c), each step for all collectors before the
 * next step:
 *
 *   prepare  before the launch or attach: ask the counters for flags,
 *            add samplers, add to the workload's environment. Returns 0
 *            to take part, COLLECT_SKIP to sit this run out (no further
 *            calls but release), or -errno with *cause to stop the run
 *            before anything starts.
 *   opened   the events are open on every target; a launched workload
 *            waits before its exec (an attached one runs on).
 *   drain    while it runs: each ring-buffer record, as it is drained
 *            (pointers inside the record live only for the call).
 *   counts   while it runs, counted per CPU: each thread's running totals
 *            at its switches and at ticks (for per-interval and per-frame
 *            values; prepare asks for the tick in co->percpu_tick_ns).
 *   wake     while it runs, once it is cx->wake_s seconds after the
 *            launch (or attach) where a collector set it (opened or an
 *            earlier wake may set the next; 0: none).
 *   finish   the workload exited (or the attach ended) and the counters
 *            are settled: end what was started, read what is left.
 *   fill     put the results into the run to store: each collector
 *            converts its own structs into db/'s, with copies, so that
 *            it may be freed right after. Returns 0, or -ENOMEM with
 *            *cause (fill_oom) when the run cannot be kept whole: the
 *            runner then stops, releases the run and returns the error,
 *            which the verb prints. A part the run can do without is
 *            a warning and 0 instead (the machine's deltas).
 *   release  free what the collector holds; called once for every
 *            collector whose prepare was called, whatever happened.
 *
 * Any step may be NULL. A built-in collector's state is ops->size
 * zeroed bytes that the runner owns; a verb's collector (runner_opts'
 * collector) brings its own. Adding a collector is one file with its
 * ops and its conversion (prof/run/collect_<name>.c), the schema
 * migration for what it stores (db/), and one line here and in the
 * runner's table (docs/engine.md lists every file). Collectors warn
 * through the engine's print sink (prof/run/internal.h's run_warn), never
 * on a stream of their own; none may exit. Not thread-safe: every call
 * comes from the runner's thread.
 */
#ifndef PROF_COLLECTOR_H
#define PROF_COLLECTOR_H

#ifndef PROF_RUN_H
#error "include prof/run/run.h, the run engine's one public header"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "collectors/counters.h"
#include "db/runs.h"

struct intervals;
struct runenv;
struct runner_opts;
struct sys_snap;

/* The run as the collectors see it. */
struct collect_ctx {
	const struct runner_opts *o;	/* what the verb asked for */
	bool launched;			/* false: attached to o->attach_pid */
	pid_t pid;			/* the launched or attached process;
					   0 until opened */
	struct counters_opts *co;	/* prepare: flags may be added */
	const struct counters *cs;	/* from opened on */
	int64_t root_own_ns;		/* fill: the launched task's own CPU
					   time as the scheduler counts it, or -1 */
	int64_t uncounted_ns;		/* fill: what the launch ran before
					   the counters counted it */
	int64_t stolen_ns;		/* fill: the time a VM's host took
					   from all CPUs while it ran */
	uint64_t t0_ns;			/* CLOCK_MONOTONIC ns of the launch's
					   release (or the attach): from
					   opened's return on */
	double wake_s;			/* wake then (s after t0); 0: never */

	/* The runner's: through collect_add_sampler and collect_add_env. */
	struct sampler_desc *samplers;
	size_t nsamplers;
	char **env;			/* NULL-terminated once the launch comes */
	size_t nenv;

	/* prepare, launch only: > 0 sends the workload's stdout into this
	 * descriptor (the frames collector's pipe); keep_fd stays open in
	 * the workload across exec. 0: neither. */
	int stdout_fd;
	int keep_fd;
};

#define COLLECT_SKIP 1

struct collector_ops {
	const char *name;
	size_t size;		/* of the state the runner gives a built-in one */
	int (*prepare)(void *self, struct collect_ctx *cx, char **cause);
	void (*opened)(void *self, struct collect_ctx *cx);
	void (*drain)(void *self, const struct perf_rec *rec, int origin);
	/* counted per CPU (COUNTERS_PERCPU in prepare's cx->co->flags): a
	 * thread's running totals at each switch and tick (counters.h's
	 * on_counts), in place of a read_counters sampler's samples */
	void (*counts)(void *self, int32_t tid, uint64_t time,
		       const uint64_t *vals, const bool *have, bool running);
	void (*wake)(void *self, struct collect_ctx *cx);
	void (*finish)(void *self, struct collect_ctx *cx);
	int (*fill)(void *self, struct collect_ctx *cx, struct db_run *run,
		    char **cause);
	void (*release)(void *self);
};

/*
 * prepare: open a sampling event beside the counting ones (copied; its
 * name is borrowed for the run). Returns its index among the counters'
 * samplers, for counters_sampler_status() and counters_sampler_id().
 */
size_t collect_add_sampler(struct collect_ctx *cx, const struct sampler_desc *sd);

/*
 * prepare, launch only: add "K=V" entries to the workload's environment,
 * after the verb's own. The strings are borrowed until the launch.
 */
void collect_add_env(struct collect_ctx *cx, char *const *kv);

/*
 * fill: a copy of s, NULL for NULL; sets *oom when memory ran out, so
 * that a fill can copy many strings and check once.
 */
static inline char *fill_strdup(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
		*oom = true;
	return d;
}

/* fill: -ENOMEM, with *cause saying which part of the run it lost. */
int fill_oom(char **cause, const char *part);

/*
 * The fills that a verb measuring in prof itself (sleep, probe) shares
 * with the collectors (prof/runutil.c's run_state_self and
 * run_machine_end). 0 or -ENOMEM with *cause.
 *
 * collect_fill_host: where every stored run ran, the host's facts
 * (collectors/host.h), perf_event_paranoid, prof's version and the
 * current directory (unless set).
 * collect_fill_env: the machine's settings (collectors/runenv.h), as
 * run->env.
 * collect_fill_system: the machine's counters that moved between before
 * and after (collectors/sysdelta.h), as run->system; out of memory, a
 * warning (the run does without them), so it cannot fail.
 */
int collect_fill_host(struct db_run *run, char **cause);
int collect_fill_env(struct db_run *run, const struct runenv *env, char **cause);
void collect_fill_system(struct db_run *run, const struct sys_snap *before,
			 const struct sys_snap *after);

/*
 * The intervals of iv (prof run -I), after the counters' fill: every
 * thread of the run gets its intervals from its first to its last, each
 * closed with its final counts (what came after its last tick lands in
 * the interval it ended in, or the run's last: run->wall_s), and the
 * setting "interval_ms". An interval in which none of a thread's counters
 * moved has no row. Software events only, unless all_groups (counted per
 * CPU, where the hardware groups tick too); -1 for an event not ticked.
 * Nothing when iv counts other events than the run. 0 or -ENOMEM with
 * *cause.
 */
int collect_fill_intervals(struct db_run *run, const struct intervals *iv,
			   unsigned interval_ms, bool all_groups, char **cause);

/* The counters: the run's own collector, first in the runner's table. */
extern const struct collector_ops collect_counters;	/* events, threads */
/* The built-in collectors beside the counters (runner.c's own). */
extern const struct collector_ops collect_procs;	/* pid, ppid */
extern const struct collector_ops collect_modules;	/* code, working set */
extern const struct collector_ops collect_sleep;	/* --sleep-mode */
extern const struct collector_ops collect_intervals;	/* -I MS */
extern const struct collector_ops collect_system;	/* the machine's deltas */
extern const struct collector_ops collect_env;	/* the machine's settings */
extern const struct collector_ops collect_frames;	/* frames */
extern const struct collector_ops collect_window;	/* --window */

/*
 * --frame-symbol MODULE:SYMBOL, checked as the frames collector's prepare
 * checks it (MODULE found, SYMBOL in it), for a verb that runs many
 * times (ab, pressure) to refuse before its first run: 0, or -errno with
 * *cause (malloc'd).
 */
int collect_frames_check_symbol(const char *spec, char **cause);

/*
 * --window: START:END, seconds after the launch (0 <= START < END), or
 * frame:N:M, the run's frames N to M (counted from 1, N <= M), from the
 * start of frame N to the end of frame M. All zero: no window.
 */
struct window_spec {
	double start_s, end_s;		/* by seconds: end_s > 0 */
	uint32_t first_frame, last_frame;	/* by frames: last_frame > 0 */
};

static inline bool window_by_seconds(const struct window_spec *w)
{
	return w->end_s > 0;
}

static inline bool window_by_frames(const struct window_spec *w)
{
	return w->last_frame > 0;
}

/* 0, or -EINVAL with *cause (malloc'd); *w is left as it was then. */
int window_parse(const char *s, struct window_spec *w, char **cause);

/*
 * Keep the run's frames that lie inside [a_ns, b_ns] after the launch,
 * and their counts (prof/run/collect_window.c). A frame of no length (two
 * marks at one instant, as lines read together get) at b_ns is left out.
 */
void window_keep_frames(struct db_run *run, int64_t a_ns, int64_t b_ns);

/*
 * Keep frames first to last (indexes from 0, both kept) and their counts:
 * the frames collector's frame:N:M. By index, not by time: a frame of no
 * length next to either edge lies inside [start of N, end of M] too.
 */
void window_keep_frame_range(struct db_run *run, size_t first, size_t last);

#endif
