/*
 * samples: the stored shape of a sampled run (prof record) and its
 * storage: the sampled events, a tree of call-stack nodes over frames
 * (module, symbol, offset), and one row per sample (thread, time, cpu,
 * event, weight, stack).
 *
 * Writing happens while the run goes on: a struct db_sample_writer puts
 * modules, symbols, frames, stack nodes and samples into TEMP tables of
 * its connection with prepared statements, in batched transactions that
 * lock nothing but the connection's own temp file. db_sample_store_run()
 * then writes the run (db/runs) and copies everything into the real
 * tables in one transaction: a prof killed before that leaves nothing in
 * the database (temp tables die with the connection), and readers never
 * see a half run. The copy costs one INSERT ... SELECT per table.
 *
 * Reading: db_profile_load() fills a caller-owned struct db_profile with
 * the tree and the sample counts grouped by (event, thread, stack), the
 * shape reports/ needs; individual samples stay in the database unless
 * db_profile_load_samples() adds them in time order (the exports that
 * other tools read need each sample's time and thread).
 *
 * Ids are dense from 1 (as collectors/recorder hands them out); arrays
 * are indexed by id - 1. Errors: 0 or a negative errno-like code with
 * *cause. A writer belongs to one thread at a time (the connection is
 * opened serialized, so handing it from the worker to the owner after the
 * worker has stopped is fine).
 */
#ifndef DB_SAMPLES_H
#define DB_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "db/runs.h"

/* One sampled event of a run. */
struct db_sample_event {
	char *name;		/* as the user wrote it */
	uint32_t attr_type;
	uint64_t attr_config;
	uint64_t period;	/* fixed period, or 0 */
	uint64_t freq;		/* Hz, or 0 */
	char *call_graph;	/* "none", "fp", "dwarf" */
	uint32_t stack_bytes;	/* dwarf: the stack copy per sample */
	uint64_t samples;	/* stored */
	uint64_t weight;	/* sum of the stored samples' periods */
	uint64_t lost;		/* the kernel lost (PERF_RECORD_LOST) */
	uint64_t dropped;	/* prof's queue could not take */
};

struct db_sample {
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t time;		/* CLOCK_MONOTONIC ns, as threads' start_ns */
	uint32_t event;		/* index into the run's sample events */
	uint64_t weight;	/* the period it stands for */
	uint32_t stack;		/* stack node id */
};

struct db_sample_writer;

/* A writer on db (borrowed for the writer's life). Clears the temp tables. */
int db_sample_writer_new(struct db *db, struct db_sample_writer **out, char **cause);
/* Discards whatever was not stored; accepts NULL. */
void db_sample_writer_free(struct db_sample_writer *w);

int db_sample_put_module(struct db_sample_writer *w, uint32_t id, const char *path,
			 const char *build_id, char **cause);
/* name NULL: the module's unknown symbol. */
int db_sample_put_symbol(struct db_sample_writer *w, uint32_t id, uint32_t module,
			 const char *name, char **cause);
/* Where a frame is in the source (fields as in struct db_frame; NULL or
 * 0 where unknown). */
struct db_frame_src {
	const char *file;
	uint32_t line;
	const char *function;
	const char *inlines;
};

/* Where frame id (already put) is in the source. */
int db_sample_put_frame_src(struct db_sample_writer *w, uint32_t id,
			    const struct db_frame_src *src, char **cause);
int db_sample_put_frame(struct db_sample_writer *w, uint32_t id, uint32_t symbol,
			uint64_t offset, char **cause);
/* parent 0: an outermost frame. */
int db_sample_put_stack(struct db_sample_writer *w, uint32_t id, uint32_t parent,
			uint32_t frame, char **cause);
int db_sample_put(struct db_sample_writer *w, const struct db_sample *s, char **cause);

/* End the current batch (the recorder calls it when it runs idle). */
int db_sample_flush(struct db_sample_writer *w, char **cause);

/*
 * Keep only the samples put so far whose time lies in [a_ns, b_ns] (a
 * window known only once the run ended: prof record --window frame:N:M);
 * for each event index below nevents, add to samples[] and weight[] what
 * was left out. 0 or -errno with *cause.
 */
int db_sample_keep_between(struct db_sample_writer *w, uint64_t a_ns, uint64_t b_ns,
			   size_t nevents, uint64_t *samples, uint64_t *weight,
			   char **cause);

/* Samples put so far. */
uint64_t db_sample_count(const struct db_sample_writer *w);

/*
 * Store run (db_run_store's work; run->id is set) with its sample events
 * and everything put so far, in one transaction; each sample gets the
 * thread row of its tid that had started by its time. On failure nothing
 * is stored and run->id is 0.
 */
int db_sample_store_run(struct db_sample_writer *w, struct db_run *run,
			const struct db_sample_event *events, size_t nevents,
			char **cause);

/* ---- reading ---- */

/* The module path of addresses that lay in no mapping prof knew of when
 * it recorded them (collectors/symbolize names it so). */
#define DB_MODULE_UNMAPPED "[unknown]"
/* The module path of kernel addresses (collectors/symbolize names it so,
 * as perf does). */
#define DB_MODULE_KERNEL "[kernel.kallsyms]"

struct db_symbol {
	uint32_t module;	/* id */
	char *name;		/* NULL: unknown */
};

struct db_frame {
	uint32_t symbol;	/* id */
	uint64_t offset;	/* into the symbol; else into the module */
	char *src_file;		/* NULL: not known */
	uint32_t src_line;	/* 0: not known */
	char *src_function;	/* innermost, maybe inlined; NULL: not known */
	char *src_inlines;	/* inlined functions there, outermost first,
				 * one a line; NULL: none */
};

struct db_stack_node {
	uint32_t parent;	/* id of the caller's node; 0 at the root */
	uint32_t frame;		/* id */
};

/* Samples of one (event, thread, stack). */
struct db_stack_count {
	uint32_t event;
	int32_t thread;		/* index into the run's threads (seq), -1 unknown */
	uint32_t stack;		/* id */
	uint64_t samples, weight;
};

/* One stored sample, as db_profile_load_samples() reads it back. */
struct db_sample_row {
	int32_t thread;		/* index into the run's threads (seq), -1 unknown */
	uint32_t cpu;
	uint32_t event;		/* index into the profile's events */
	uint32_t stack;		/* id */
	uint64_t time;		/* CLOCK_MONOTONIC ns */
	uint64_t weight;
};

struct db_profile {
	int64_t run_id;
	size_t nevents;
	struct db_sample_event *events;
	size_t nmodules;
	char **modules;		/* paths */
	char **build_ids;	/* NULL entries where unknown */
	size_t nsymbols;
	struct db_symbol *symbols;
	size_t nframes;
	struct db_frame *frames;
	size_t nstacks;
	struct db_stack_node *stacks;
	size_t ncounts;
	struct db_stack_count *counts;
	/* Every sample, oldest first: only after db_profile_load_samples(). */
	size_t nsamples;
	struct db_sample_row *samples;
};

/*
 * Load run_id's samples. -ENODATA with a cause when the run was counted,
 * not sampled; -ENOENT when there is no such run.
 */
int db_profile_load(struct db *db, int64_t run_id, struct db_profile *out,
		    char **cause);
void db_profile_release(struct db_profile *p);

/*
 * Add every sample of p's run to p (loaded by db_profile_load), in time
 * order (ties in the order they were taken). Costs 32 bytes a sample.
 * 0, or a negative errno with *cause; p keeps no samples on failure.
 */
int db_profile_load_samples(struct db *db, struct db_profile *p, char **cause);

void db_sample_event_release(struct db_sample_event *e);

#endif
