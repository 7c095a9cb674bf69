/*
 * export: a stored run in the formats other tools read, for `prof report
 * RUN --format perfetto|speedscope|perf-script|pprof`.
 *
 * perfetto: the trace-event JSON of Chrome's tracing (its "JSON Object
 * Format": an object with `traceEvents`, `displayTimeUnit` and
 * `otherData`), which ui.perfetto.dev and chrome://tracing open. One
 * track per thread, named by process_name and thread_name metadata
 * events ("M"). Frames (--frames, --frame-regex) are complete slices
 * ("X") on the main thread, each thread name's counts over the frame
 * in its args; intervals (-I) are counter events ("C"), one counter per
 * thread with a series per event; samples (prof record) are instant
 * events ("i") on their thread, named by the leaf frame. Times are in
 * microseconds after the launch. The run's header is `otherData`.
 *
 * speedscope: speedscope's file format (file-format-schema.json):
 * `shared.frames`, and one "sampled" profile per thread and sampled
 * event, whose `samples` are stacks (indexes into the frames, outermost
 * first) in time order and `weights` their periods; `unit` nanoseconds
 * for cpu-clock and task-clock, else none.
 *
 * perf-script: the text `perf script -F comm,pid,tid,time,period,event,
 * ip,sym,symoff,dso` prints for samples with call chains, as
 * stackcollapse-perf.pl and the Firefox Profiler read it: per sample
 * "comm pid/tid secs.usecs: period event: ", then a line per frame, leaf
 * first, "\t<address> <symbol>+0x<offset> (<module path>)", then a blank
 * line; before them a "# ========" header block as `perf script --header`
 * writes one. Times are the samples' CLOCK_MONOTONIC, perf's own clock.
 * prof keeps where a frame is (its symbol and the offset into it), not
 * the address sampled: the address is 0 for a frame with a symbol, and
 * for code no symbol covers the offset reports show ("libfoo.so+0x1a2b":
 * the ELF virtual address), as perf prints a module's addresses.
 *
 * pprof: pprof's profile.proto, gzipped (reports/pprof.h), as go tool
 * pprof and the tools that read its files take it: two value types per
 * sampled event ("<event>", its periods in nanoseconds for cpu-clock and
 * task-clock, else a count of events; "<event> samples", a count), the
 * first the default; one sample per (thread, call chain, event) with the
 * labels thread (its name), tid and pid; a location per frame, a
 * function per symbol (and per frame no symbol covers), a mapping per
 * module with its build id; the run's start and wall time; its command
 * and kind as comments. prof keeps no sampled address, so locations
 * carry their function and source line, and address 0.
 *
 * Frames are named as reports/profile names them: symbols demangled
 * unless asked, code without a symbol "libfoo.so+0x1a2b"; a call chain
 * ends below its first caller in no known mapping; inlined functions are
 * not split out.
 *
 * Reads struct db_run, and struct db_profile with its samples (db/
 * samples.h: db_profile_load_samples), as db/ loads them; writes to a
 * caller-owned FILE. No shared state.
 */
#ifndef REPORTS_EXPORT_H
#define REPORTS_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "db/runs.h"
#include "db/samples.h"
#include "reports/output.h"
#include "reports/pprof.h"

/* Whether f is one of the formats here. */
bool export_format(enum out_format f);

struct export_opts {
	bool mangled;	/* symbols as stored, not demangled */
	int event;	/* index into p->events: its samples alone; -1: all */
	/* pprof: the encoder (libprof-pprof.so's, which the caller loads);
	 * NULL refuses the format with -ENOSYS */
	pprof_write_fn *pprof;
};

/*
 * Whether run holds what f exports: p is its profile with the samples
 * loaded, or NULL for a run that was not sampled. 0, or -ENODATA with
 * *cause: one line that says which runs f exports and why this is not
 * one (speedscope, perf-script and pprof need samples; perfetto needs frames,
 * intervals or samples). -ENOMEM with no cause when memory runs out.
 */
int export_check(enum out_format f, const struct db_run *run,
		 const struct db_profile *p, const struct export_opts *o,
		 char **cause);

/* Write run as f (export_check it first). 0, or -ENOMEM (fp then holds
 * part of the export); pprof also -ENOSYS (no encoder) and the
 * encoder's errors, with *cause. */
int export_write(enum out_format f, const struct db_run *run,
		 const struct db_profile *p, const struct export_opts *o, FILE *fp,
		 char **cause);

#endif
