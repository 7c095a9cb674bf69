/*
 * convert: where what the collectors gathered becomes what db/ stores.
 * Every collector's fill step (prof/collector.h) ends here, so one file
 * says which field of a stored run comes from which collector, and
 * neither folder learns the other's structs (collectors and db know
 * nothing of each other; prof knows both).
 *
 * Each function fills caller-owned db/ structs with copies, so that a
 * collector may be freed right after (convert_sample_events says what it
 * borrows). Prints nothing. Not thread-safe.
 */
#ifndef PROF_CONVERT_H
#define PROF_CONVERT_H

#include <stdbool.h>
#include <stddef.h>

#include "collectors/counters.h"
#include "collectors/events.h"
#include "collectors/frames.h"
#include "collectors/intervals.h"
#include "collectors/modules.h"
#include "collectors/procs.h"
#include "collectors/recorder.h"
#include "collectors/runenv.h"
#include "collectors/sysdelta.h"
#include "collectors/sleep.h"
#include "db/runs.h"
#include "db/samples.h"
#include "db/sleep.h"

/*
 * What every stored run says of where it ran: the host's facts
 * (collectors/host.h), perf_event_paranoid, prof's version and the
 * current directory (unless set).
 */
void convert_host(struct db_run *run);

/*
 * The counters' results: convert_host's, the events with their totals, and one row per thread, the targets
 * first; the main thread is a target's process's own (tid == pid). A
 * target whose name never arrived (an exec that kept the old name) is
 * named after run->argv[0], so the runner sets argv first.
 */
void convert_counters(struct db_run *run, const struct counters *cs,
		      const struct event_desc *evs, size_t nev);

/*
 * Each thread's process's parent (db_thread.ppid, 0 where unknown), after
 * convert_counters: the parent at the birth of the thread's process.
 */
void convert_procs(struct db_run *run, const struct procs *procs);

/*
 * Each thread's intervals (prof run -I), after convert_counters: every
 * thread of the run gets its intervals from its first to its last, each
 * closed with its final counts (what came after its last tick lands in
 * the interval it ended in, or the run's last), and the setting
 * "interval_ms". Software events only, unless all_groups (counted per
 * CPU, where the hardware groups tick too).
 */
void convert_intervals(struct db_run *run, const struct intervals *iv,
		       unsigned interval_ms, bool all_groups);

/*
 * The machine's counters that moved between before and after
 * (collectors/sysdelta.h), as run->system. 0 or -ENOMEM.
 */
int convert_system(struct db_run *run, const struct sys_snap *before,
		   const struct sys_snap *after);

/* The machine's settings at the start, as run->env. */
void convert_env(struct db_run *run, const struct runenv *env);

/*
 * The code modules of a finished struct modules and, for a working-set
 * run, the touched memory by kind and its grain (the setting
 * "ws_window_bytes").
 */
void convert_modules(struct db_run *run, const struct modules *mods,
		     bool working_set);

/*
 * What the sleep interposer saw: rep as read after the run, or NULL when
 * it could not be read (the settings asked for then stand in for the
 * ones applied). status is taken ("applied" or "not applied: why").
 * NULL when out of memory.
 */
struct db_sleep_usage *convert_sleep(const struct sleep_report *rep,
				     const struct sleep_preload_config *asked,
				     char *status);

/*
 * prof record's stream of samples into the database: the recorder's
 * sink (fill in a struct recorder_sink with sample_sink_ops) writes each
 * module, symbol, frame, stack and sample through w, counting samples
 * and their weight per sampled event. The first error is kept in cause.
 */
struct sample_sink {
	struct db_sample_writer *w;
	char *cause;			/* the first error a write met */
	uint64_t *samples, *weight;	/* per sampled event */
	size_t nev;
};

/* 0, or -errno with *cause when the writer cannot be made. */
int sample_sink_init(struct sample_sink *s, struct db *db, size_t nev,
		     char **cause);
struct recorder_sink sample_sink_ops(struct sample_sink *s);
void sample_sink_release(struct sample_sink *s);

/*
 * The sampled events as stored (nsev entries, calloc'd; only the array
 * is the caller's to free: names are borrowed from sev, call_graph is
 * static): how each was sampled, and what the sink kept, the kernel
 * lost and the recorder dropped of it.
 */
struct db_sample_event *convert_sample_events(const struct event_desc *sev,
					      const struct sampler_desc *sds,
					      size_t nsev,
					      const struct sample_plan *plan,
					      const struct sample_sink *sink,
					      const struct recorder_stats *st);

/*
 * The frames of src (prof run --frames, --frame-regex, --frame-symbol),
 * after convert_counters: each frame's start (ns after t0_ns, the
 * launch's CLOCK_MONOTONIC time, as db/runs.h and --window read it)
 * and length, each thread name's counter deltas per frame, and the
 * settings "frame_source", "frame_budget_ms", "frame_regex",
 * "frame_symbol" and "frames_<source>" (how many frames each source
 * saw), from how the run was asked to find them. No frame rows when
 * src saw none.
 */
void convert_frames(struct db_run *run, struct frames *f, enum frame_source src,
		    const struct frame_args *how, uint64_t t0_ns);

#endif
