/*
 * collect_record: prof record's collector (prof/run/collector.h), the
 * recorder's sink into the database, and the sampled events as stored.
 * The verb owns a struct record_coll and hands it to the runner as its
 * collector (runner_opts.collector_arg). Not thread-safe, but for the
 * sink, which only the recorder's worker calls while it runs.
 */
#ifndef PROF_COLLECT_RECORD_H
#define PROF_COLLECT_RECORD_H

#ifndef PROF_RUN_H
#error "include prof/run/run.h, the run engine's one public header"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/events.h"
#include "collectors/recorder.h"
#include "db/samples.h"
#include "prof/run/collector.h"

/* The verb sets rec, sev, sds and nsev (borrowed); the rest is the
 * collector's, but for cause and finish_cause, which the verb frees after
 * the run. */
struct record_coll {
	struct recorder *rec;
	const struct event_desc *sev;
	const struct sampler_desc *sds;
	size_t nsev;
	size_t first;		/* samplers[0]'s index among the counters' */
	int err;		/* why the samples cannot be taken, or 0 */
	char *cause;
	int finish_rc;		/* what recorder_finish said */
	char *finish_cause;
	bool user_only;		/* a sampler may not see the kernel */
	const struct collect_ctx *cx;	/* from opened on: t0 for --window */
	uint64_t outside;	/* samples left out: outside --window */
	uint64_t t0_ns;		/* the launch, kept at finish (frame windows) */
};

/* Its ops: collector_arg is a struct record_coll. */
extern const struct collector_ops collect_record;

/*
 * The recorder's sink (fill in recorder_opts.sink with sample_sink_ops):
 * it writes each module, symbol, frame, stack and sample through w,
 * counting samples and their weight per sampled event. The first error
 * is kept in cause.
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
 * The sampled events as stored (oc->nsev entries, calloc'd; only the
 * array is the caller's to free: names are borrowed from oc->sev,
 * call_graph is static): how each was sampled, and what the sink kept,
 * the kernel lost and the recorder dropped of it. NULL when out of
 * memory.
 */
struct db_sample_event *record_sample_events(const struct record_coll *oc,
					     const struct sample_plan *plan,
					     const struct sample_sink *sink,
					     const struct recorder_stats *st);

#endif
