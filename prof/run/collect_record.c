/*
 * collect_record: prof record's collector and what it stores. The
 * recorder (collectors/recorder.h) unwinds and symbolizes the samples on
 * a worker thread while the workload runs, and its sink writes each
 * module, symbol, frame, stack and sample into the database as it comes;
 * after the run the sampled events are stored with what the sink kept
 * and the kernel and the recorder lost of each. See collect_record.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cause.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

static int record_prepare(void *self, struct collect_ctx *cx, char **cause)
{
	struct record_coll *rc = self;
	(void)cause;
	for (size_t i = 0; i < rc->nsev; i++) {
		size_t idx = collect_add_sampler(cx, &rc->sds[i]);
		if (i == 0)
			rc->first = idx;
	}
	return 0;
}

/*
 * The events are open (the workload not yet released): check that every
 * sampler could be opened (probed before, so this is a race with the
 * machine), map the kernel ids of every target task to their events,
 * seed an attached process's mappings, and start the worker.
 */
static void record_opened(void *self, struct collect_ctx *cx)
{
	struct record_coll *oc = self;
	const struct counters *cs = cx->cs;
	oc->cx = cx;
	for (size_t i = 0; i < oc->nsev && !oc->err; i++) {
		const struct counter_status *st = counters_sampler_status(cs, oc->first + i);
		if (!st || !st->supported) {
			oc->err = st && st->err ? st->err : EINVAL;
			cause_set(&oc->cause, 0, "cannot sample '%s' on this machine: %s\n"
				  "hint: sample a software event instead: -e cpu-clock",
				  oc->sev[i].name,
				  st && st->reason ? st->reason : "refused");
			return;
		}
		oc->user_only |= st->user_only;
		uint64_t id;
		for (size_t t = 0; (id = counters_sampler_id(cs, t, oc->first + i)); t++)
			if ((oc->err = -recorder_map_id(oc->rec, id, (uint32_t)i)))
				return;
	}
	if (!cx->launched &&
	    recorder_seed_proc(oc->rec, (uint32_t)cx->pid, &oc->cause)) {
		/* Frames already mapped show as [unknown]: say so, go on. */
		if (oc->cause)
			run_warn("%s", oc->cause);
		free(oc->cause);
		oc->cause = NULL;
	}
	oc->err = -recorder_start(oc->rec, &oc->cause);
}

static void record_drain(void *self, const struct perf_rec *rec, int origin)
{
	struct record_coll *oc = self;
	/* --window: the samples inside it alone (the side-band all). */
	const struct runner_opts *o = oc->cx ? oc->cx->o : NULL;
	if (o && window_by_seconds(&o->window) && rec->type == PERF_RECORD_SAMPLE &&
	    oc->cx->t0_ns) {
		uint64_t t = rec->u.sample.time, t0 = oc->cx->t0_ns;
		if (t < t0 + (uint64_t)(o->window.start_s * 1e9) ||
		    t > t0 + (uint64_t)(o->window.end_s * 1e9)) {
			oc->outside++;
			return;
		}
	}
	recorder_on_record(rec, origin, oc->rec);
}

/* Let the worker empty its queue into the sink. */
static void record_finish(void *self, struct collect_ctx *cx)
{
	struct record_coll *oc = self;
	oc->t0_ns = cx->t0_ns;
	if (!oc->err)
		oc->finish_rc = recorder_finish(oc->rec, &oc->finish_cause);
}

const struct collector_ops collect_record = {
	.name = "recorder",
	.prepare = record_prepare,
	.opened = record_opened,
	.drain = record_drain,
	.finish = record_finish,
};

/* ---- the sink: the recorder's stream into the database ---- */

static int keep(struct sample_sink *s, int rc, char *cause)
{
	if (rc && !s->cause)
		s->cause = cause;
	else
		free(cause);
	return rc;
}

static int sink_module(void *arg, uint32_t id, const char *path, const char *bid)
{
	struct sample_sink *s = arg;
	char *cause = NULL;
	return keep(s, db_sample_put_module(s->w, id, path, bid, &cause), cause);
}

static int sink_symbol(void *arg, uint32_t id, uint32_t module, const char *name)
{
	struct sample_sink *s = arg;
	char *cause = NULL;
	return keep(s, db_sample_put_symbol(s->w, id, module, name, &cause), cause);
}

static int sink_frame(void *arg, uint32_t id, uint32_t symbol, uint64_t offset)
{
	struct sample_sink *s = arg;
	char *cause = NULL;
	return keep(s, db_sample_put_frame(s->w, id, symbol, offset, &cause), cause);
}

static int sink_frame_src(void *arg, uint32_t id, const char *file, uint32_t line,
			  const char *function, const char *inlines)
{
	struct sample_sink *s = arg;
	char *cause = NULL;
	struct db_frame_src src = { file, line, function, inlines };
	return keep(s, db_sample_put_frame_src(s->w, id, &src, &cause), cause);
}

static int sink_stack(void *arg, uint32_t id, uint32_t parent, uint32_t frame)
{
	struct sample_sink *s = arg;
	char *cause = NULL;
	return keep(s, db_sample_put_stack(s->w, id, parent, frame, &cause), cause);
}

static int sink_sample(void *arg, const struct recorder_sample *rs)
{
	struct sample_sink *s = arg;
	struct db_sample x = { (int32_t)rs->pid, (int32_t)rs->tid, rs->cpu, rs->time,
			       rs->event, rs->weight, rs->stack };
	char *cause = NULL;
	int rc = keep(s, db_sample_put(s->w, &x, &cause), cause);
	if (!rc && rs->event < s->nev) {
		s->samples[rs->event]++;
		s->weight[rs->event] += rs->weight;
	}
	return rc;
}

static int sink_idle(void *arg)
{
	struct sample_sink *s = arg;
	char *cause = NULL;
	return keep(s, db_sample_flush(s->w, &cause), cause);
}

int sample_sink_init(struct sample_sink *s, struct db *db, size_t nev,
		     char **cause)
{
	memset(s, 0, sizeof(*s));
	s->nev = nev;
	s->samples = calloc(nev ? nev : 1, sizeof(uint64_t));
	s->weight = calloc(nev ? nev : 1, sizeof(uint64_t));
	if (!s->samples || !s->weight) {
		sample_sink_release(s);
		return -ENOMEM;
	}
	return db_sample_writer_new(db, &s->w, cause);
}

struct recorder_sink sample_sink_ops(struct sample_sink *s)
{
	return (struct recorder_sink){ sink_module, sink_symbol, sink_frame,
				       sink_stack, sink_sample, sink_idle, s,
				       sink_frame_src };
}

void sample_sink_release(struct sample_sink *s)
{
	db_sample_writer_free(s->w);
	free(s->cause);
	free(s->samples);
	free(s->weight);
	memset(s, 0, sizeof(*s));
}

/* ---- the sampled events as stored ---- */

struct db_sample_event *record_sample_events(const struct record_coll *oc,
					     const struct sample_plan *plan,
					     const struct sample_sink *sink,
					     const struct recorder_stats *st)
{
	const struct event_desc *sev = oc->sev;
	const struct sampler_desc *sds = oc->sds;
	size_t nsev = oc->nsev;
	struct db_sample_event *evs = calloc(nsev ? nsev : 1, sizeof(*evs));
	if (!evs)
		return NULL;
	bool dwarf = plan->call_graph == CALL_GRAPH_DWARF;
	for (size_t i = 0; i < nsev; i++) {
		evs[i].name = sev[i].name;
		evs[i].attr_type = sds[i].attr.type;
		evs[i].attr_config = sds[i].attr.config;
		evs[i].period = plan->period;
		evs[i].freq = plan->freq;
		evs[i].call_graph = (char *)call_graph_name(plan->call_graph);
		evs[i].stack_bytes = dwarf ? plan->stack_bytes : 0;
		evs[i].samples = sink->samples[i];
		evs[i].weight = sink->weight[i];
		evs[i].lost = st->event_lost[i];
		evs[i].dropped = st->event_dropped[i];
	}
	return evs;
}
