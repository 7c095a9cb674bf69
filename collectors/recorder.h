/*
 * recorder: the sampling side of prof record. It builds the sampling
 * events (struct sampler_desc for collectors/counters, which opens them
 * inherited and redirected into the run's ring buffer) and turns the
 * samples drained from there into call stacks while the run goes on.
 *
 * The pipeline: counters calls recorder_on_record() (its on_record hook)
 * on the draining thread for every decoded record; the recorder copies
 * what it needs (a sample's ip, call chain, registers and the used part
 * of its stack copy; MMAP2, FORK and COMM records for the address spaces)
 * into a bounded queue and returns. A worker thread takes records off the
 * queue in order, keeps every process's executable mappings
 * (collectors/procmaps), unwinds (the kernel's frame-pointer chain, or
 * DWARF through collectors/unwind),
 * symbolizes each distinct address once (collectors/symbolize), and
 * interns what it finds: modules, symbols, frames (symbol + offset) and
 * call-stack nodes (a tree: each node is a frame under its caller's
 * node, so a stack is one id). It hands every new item and every sample
 * to the caller's sink, on the worker thread, in an order where each id
 * is announced before it is used. No raw stack bytes outlive the worker.
 *
 * When the queue is full (the worker cannot keep up) samples are dropped
 * and counted, never side-band records, so the address spaces stay right.
 *
 * Ownership: the caller owns the recorder (recorder_new/recorder_free)
 * and the sink; strings handed to the sink are valid during the call.
 * Threads: recorder_on_record() may run on one thread while the worker
 * runs; everything else is for the owning thread. Errors: 0 or a negative
 * errno, with *cause where the user needs one.
 */
#ifndef COLLECTORS_RECORDER_H
#define COLLECTORS_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/counters.h"
#include "collectors/events.h"
#include "collectors/threads.h"
#include "collectors/unwind.h"

enum call_graph {
	CALL_GRAPH_NONE,	/* the sampled ip alone */
	CALL_GRAPH_FP,		/* the kernel's frame-pointer chain */
	CALL_GRAPH_DWARF,	/* registers + stack copy, unwound here */
};

/* "none", "fp", "dwarf". */
const char *call_graph_name(enum call_graph cg);

/* How to sample: a period or a frequency (exactly one non-zero). */
struct sample_plan {
	uint64_t period;
	uint64_t freq;		/* Hz */
	enum call_graph call_graph;
	uint32_t stack_bytes;	/* DWARF: the user stack copy per sample */
	bool no_kernel;		/* no kernel call chains */
};

/*
 * The sampling event for ev under plan: the event's attr with the period
 * or frequency, PERF_SAMPLE_IP | PERIOD, and the call-graph bits (the
 * kernel's callchain, kernel and user parts, for fp; user registers with
 * UNWIND_REGS_MASK and the stack copy for dwarf, with the kernel
 * part of the callchain alone). no_kernel leaves the kernel part out.
 * name is borrowed from ev.
 */
void recorder_sampler_desc(const struct event_desc *ev, const struct sample_plan *plan,
			   struct sampler_desc *out);

/*
 * Can this machine sample attr (for the calling process)? 0, or the
 * negative errno of perf_event_open with *cause naming the event and
 * "hint:" lines.
 */
int recorder_probe(const char *name, const struct perf_event_attr *attr,
		   bool hardware, char **cause);

/* /proc/sys/kernel/perf_event_max_sample_rate, or -1 when unreadable. */
long recorder_max_sample_rate(void);

/* A sample as the sink gets it. */
struct recorder_sample {
	uint32_t pid, tid, cpu;
	uint64_t time;		/* CLOCK_MONOTONIC ns */
	uint32_t event;		/* index into the caller's samplers */
	uint64_t weight;	/* the period the sample stands for */
	uint32_t stack;		/* stack node id (never 0) */
};

/*
 * Where results go (called on the worker thread). Ids start at 1 and are
 * dense; each item is announced once, before anything refers to it. A
 * symbol with name NULL is the module's "[unknown]". A stack node's
 * parent is its caller's node, 0 for an outermost frame. A non-zero
 * return stops the worker: the error is kept and recorder_finish()
 * returns it.
 */
struct recorder_sink {
	int (*module)(void *arg, uint32_t id, const char *path, const char *build_id);
	int (*symbol)(void *arg, uint32_t id, uint32_t module, const char *name);
	int (*frame)(void *arg, uint32_t id, uint32_t symbol, uint64_t offset);
	int (*stack)(void *arg, uint32_t id, uint32_t parent, uint32_t frame);
	int (*sample)(void *arg, const struct recorder_sample *s);
	/* The queue ran empty: a good moment to commit a batch (may be NULL). */
	int (*idle)(void *arg);
	void *arg;
	/* With lines: where frame id is in the source, right after it was
	 * announced, when the debug info says (may be NULL). file, function
	 * and inlines (the inlined functions there, outermost first, one a
	 * line) may each be NULL; line 0 is unknown. */
	int (*frame_src)(void *arg, uint32_t id, const char *file, uint32_t line,
			 const char *function, const char *inlines);
};

struct recorder_opts {
	enum call_graph call_graph;
	size_t nevents;			/* samplers, for per-event counts */
	struct recorder_sink sink;
	size_t queue_bytes;		/* 0: 64 MiB */
	size_t max_frames;		/* 0: 127, as perf's default */
	const char *perf_map_dir;	/* NULL: /tmp */
	const char *kallsyms;		/* NULL: /proc/kallsyms; "": none */
	const char *debug_dir;		/* debug root before /usr/lib/debug, or NULL */
	/* Drop the kernel frames of every chain: a sample taken in the
	 * kernel lands on the user frame that entered it (on the kernel
	 * only when it has no user frame: a kernel thread). */
	bool no_kernel;
	bool debuginfod;		/* may ask DEBUGINFOD_URLS' servers */
	enum sym_lines lines;		/* source lines of frames (frame_src) */
	bool synchronous;		/* no worker: process in on_record
					 * (tests, replays) */
};

struct recorder_stats {
	uint64_t records;	/* handed to recorder_on_record */
	uint64_t samples;	/* turned into stacks */
	uint64_t dropped;	/* samples the full queue could not take */
	uint64_t unknown_id;	/* samples of no known sampler */
	uint64_t lost;		/* PERF_RECORD_LOST: samples the kernel lost */
	uint64_t max_queue_bytes;	/* the queue's high-water mark */
	uint64_t distinct_addrs;	/* symbolized (the cache's size) */
	uint64_t kernel_frames;		/* kernel frames in samples' stacks */
	uint32_t modules, symbols, frames, stacks;
	struct unwind_stats unwind;
	/* Per event: samples kept, dropped (queue) and lost (kernel). */
	uint64_t *event_samples, *event_dropped, *event_lost;
};

struct recorder;

/* NULL and errno on failure. */
struct recorder *recorder_new(const struct recorder_opts *opts);
void recorder_free(struct recorder *r);

/*
 * Samples carrying this kernel id (counters_sampler_id) belong to event.
 * Every id is mapped before the first record: a sample of an id not
 * mapped is another sampler's on the same ring buffer (prof record -I
 * or --frames), counted in unknown_id and neither queued nor dropped.
 */
int recorder_map_id(struct recorder *r, uint64_t id, uint32_t event);

/*
 * Seed pid's address space from /proc/PID/maps (its executable mappings):
 * what a process attached to with -p already had. Before recorder_start.
 * 0 or -errno with *cause.
 */
int recorder_seed_proc(struct recorder *r, uint32_t pid, char **cause);

/* Start the worker thread (not with synchronous). 0 or -errno. */
int recorder_start(struct recorder *r, char **cause);

/* counters_opts.on_record: arg is the recorder. */
void recorder_on_record(const struct perf_rec *rec, int origin, void *arg);

/*
 * Let the worker empty the queue, stop it, and call the sink's idle a
 * last time. Returns the first error a sink returned, or 0.
 */
int recorder_finish(struct recorder *r, char **cause);

/* Counts so far (complete after recorder_finish). Arrays are owned by
 * the recorder. */
void recorder_stats(const struct recorder *r, struct recorder_stats *out);

/*
 * The worker's symbolizer, for what it learnt of the modules (debug files
 * found and missing): only after recorder_finish(), when the worker no
 * longer uses it.
 */
struct symbolizer *recorder_symbolizer(struct recorder *r);

#endif
