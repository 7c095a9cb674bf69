/*
 * convert: collector results into the stored shape; see convert.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/host.h"
#include "prof/convert.h"

/* ---- counters: host, events, threads ---- */

void convert_host(struct db_run *run)
{
	struct host_facts hf;
	host_facts_read(&hf);
	run->host.hostname = hf.hostname;
	run->host.kernel = hf.kernel;
	run->host.cpu_model = hf.cpu_model;
	run->host.online_cpus = hf.online_cpus;
	run->paranoid = hf.paranoid;
	char cwd[4096];
	if (!run->cwd && getcwd(cwd, sizeof(cwd)))
		run->cwd = strdup(cwd);
	run->prof_version = strdup(PROF_VERSION);
}

void convert_counters(struct db_run *run, const struct counters *cs,
		      const struct event_desc *evs, size_t nev)
{
	convert_host(run);
	if (!run->pin.mode) {
		run->pin.mode = strdup("none");
		run->pin.status = strdup("not requested");
	}
	const struct thread_table *tt = counters_threads(cs);
	run->lost_records = thread_table_lost(tt);

	run->nevents = nev;
	run->events = calloc(nev ? nev : 1, sizeof(*run->events));
	for (size_t i = 0; i < nev; i++) {
		struct db_event *e = &run->events[i];
		const struct counter_status *st = counters_status(cs, i);
		const struct thread_count *tot = counters_total(cs, i);
		e->name = strdup(evs[i].name);
		/* NULL where libpfm4 refused the name (no mission map). */
		e->canonical = evs[i].canonical ? strdup(evs[i].canonical) : NULL;
		if (evs[i].mission) {
			e->mission_family = strdup(evs[i].family->label);
			e->mission_event = strdup(evs[i].mission->perf_name);
			e->mission_note = strdup(evs[i].mission->summary);
		}
		e->supported = st->supported;
		e->reason = st->reason ? strdup(st->reason) : NULL;
		e->group = st->group;
		e->user_only = st->user_only;
		e->attr_type = evs[i].attr.type;
		e->attr_config = evs[i].attr.config;
		e->attr_config1 = evs[i].attr.config1;
		e->attr_config2 = evs[i].attr.config2;
		e->exclude_user = evs[i].attr.exclude_user;
		e->exclude_kernel = evs[i].attr.exclude_kernel || st->user_only;
		e->exclude_hv = evs[i].attr.exclude_hv || st->user_only;
		if (st->supported && tot && tot->present) {
			e->total.present = true;
			e->total.value = tot->value;
			e->total.enabled = tot->enabled;
			e->total.running = tot->running;
		}
	}

	size_t n = thread_table_count(tt);
	run->threads = calloc(n ? n : 1, sizeof(*run->threads));
	run->nthreads = 0;
	/* Targets (the launched process, attached threads) first. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct thread_row *r = thread_table_row(tt, i);
			if (r->is_target != (pass == 0))
				continue;
			struct db_thread *t = &run->threads[run->nthreads++];
			t->tid = r->tid;
			t->pid = r->pid;
			t->name = strdup(r->name);
			/* Attached, every thread is a target; the main one is
			 * the process's own (tid == pid). */
			t->is_main = r->is_target && r->tid == r->pid;
			t->start_ns = (int64_t)r->start_ns;
			t->end_ns = (int64_t)r->end_ns;
			t->counts = calloc(nev ? nev : 1, sizeof(*t->counts));
			for (size_t e = 0; e < nev; e++) {
				t->counts[e].present = r->counts[e].present &&
						       run->events[e].supported;
				t->counts[e].value = r->counts[e].value;
				t->counts[e].enabled = r->counts[e].enabled;
				t->counts[e].running = r->counts[e].running;
			}
		}
	}
	/* A target whose name never arrived in a COMM record (an exec that
	 * kept the old name) is named after the command. */
	for (size_t i = 0; i < run->nthreads; i++) {
		struct db_thread *t = &run->threads[i];
		if (t->name && *t->name)
			continue;
		free(t->name);
		const char *base = run->argv && run->argc ? strrchr(run->argv[0], '/') : NULL;
		base = base ? base + 1 : (run->argv && run->argc ? run->argv[0] : "?");
		t->name = strndup(base, 15);
	}
}

/* ---- processes: each thread's process's parent ---- */

void convert_procs(struct db_run *run, const struct procs *procs)
{
	for (size_t i = 0; i < run->nthreads; i++) {
		struct db_thread *t = &run->threads[i];
		t->ppid = procs_parent(procs, t->pid, (uint64_t)t->start_ns);
	}
}

/* ---- intervals (-I) ---- */

/* Event e is read at each tick: a supported software event, or any
 * supported event where every group ticks (counted per CPU). */
static bool ticked(const struct db_run *run, size_t e, bool all_groups)
{
	return run->events[e].supported && (all_groups || run->events[e].group == 0);
}

static void one_thread_intervals(struct db_run *run, const struct db_thread *t,
				 const struct intervals_thread *it,
				 const struct intervals *iv, unsigned interval_ms,
				 uint64_t last_bin, bool all_groups)
{
	size_t ne = run->nevents, nr = it ? it->nrows : 0;
	uint64_t first = nr ? it->bins[0] : UINT64_MAX;
	/* What came after the last tick lands where the thread ended. */
	uint64_t tail_bin = t->end_ns > 0 ? intervals_bin(iv, (uint64_t)t->end_ns)
			    : last_bin;
	if (nr && tail_bin < first)
		tail_bin = first;
	bool tail = false;
	uint64_t *rest = calloc(ne ? ne : 1, sizeof(*rest));
	if (!rest)
		return;
	for (size_t e = 0; e < ne; e++) {
		uint64_t last = it ? it->last[e] : 0;
		if (ticked(run, e, all_groups) && t->counts[e].present &&
		    t->counts[e].value > last) {
			rest[e] = t->counts[e].value - last;
			tail = true;
		}
	}
	int64_t *vals = NULL;
	/* The intervals it was ticked in, and the tail's in its place. */
	size_t r = 0;
	bool tail_left = tail;
	while (r < nr || tail_left) {
		uint64_t b;
		const uint64_t *row = NULL;
		bool with_rest = false;
		if (r < nr && (!tail_left || it->bins[r] <= tail_bin)) {
			b = it->bins[r];
			row = it->vals + r * ne;
			r++;
		} else {
			b = tail_bin;
		}
		if (tail_left && b == tail_bin) {
			with_rest = true;
			tail_left = false;
		}
		if (b > (uint64_t)INT64_MAX / interval_ms)
			break;	/* past what t_ms holds: no clock gets there */
		if (!vals && !(vals = malloc((ne ? ne : 1) * sizeof(*vals))))
			abort();	/* as the other conversions: out of memory */
		bool moved = false;
		for (size_t e = 0; e < ne; e++) {
			if (!ticked(run, e, all_groups)) {
				vals[e] = -1;
				continue;
			}
			uint64_t v = row ? row[e] : 0;
			if (with_rest)
				v += rest[e];
			vals[e] = v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
			moved |= v != 0;
		}
		/* An interval in which none of the thread's counters moved is
		 * not stored (readers take it as 0): a sleeping thread costs
		 * nothing, and the rows go with the ticks, not with threads
		 * times wall time (docs/intervals.md). */
		if (!moved)
			continue;
		struct db_interval *p = realloc(run->intervals,
						(run->nintervals + 1) * sizeof(*p));
		if (!p)
			abort();
		run->intervals = p;
		struct db_interval *d = &p[run->nintervals++];
		d->t_ms = (int64_t)(b * interval_ms);
		d->tid = t->tid;
		d->name = t->name ? strdup(t->name) : NULL;
		d->values = vals;
		vals = NULL;
	}
	free(vals);
	free(rest);
}

void convert_intervals(struct db_run *run, const struct intervals *iv,
		       unsigned interval_ms, bool all_groups)
{
	if (intervals_nevents(iv) != run->nevents)
		return;
	uint64_t last_bin = (uint64_t)(run->wall_s * 1000.0) / interval_ms;
	for (size_t i = 0; i < run->nthreads; i++) {
		const struct db_thread *t = &run->threads[i];
		one_thread_intervals(run, t, intervals_find(iv, t->tid), iv,
				     interval_ms, last_bin, all_groups);
	}
	char buf[32];
	snprintf(buf, sizeof(buf), "%u", interval_ms);
	db_run_set(run, "interval_ms", buf);
}

/* ---- the machine: its deltas and its settings ---- */

int convert_system(struct db_run *run, const struct sys_snap *before,
		   const struct sys_snap *after)
{
	struct sys_val *d;
	size_t n;
	if (sys_snap_delta(before, after, &d, &n))
		return -ENOMEM;
	run->system = calloc(n ? n : 1, sizeof(*run->system));
	if (!run->system) {
		sys_deltas_free(d, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		run->system[i].name = d[i].name;	/* taken over */
		run->system[i].delta = d[i].v;
	}
	run->nsystem = n;
	free(d);
	return 0;
}

void convert_env(struct db_run *run, const struct runenv *env)
{
	run->env = calloc(env->n ? env->n : 1, sizeof(*run->env));
	if (!run->env)
		abort();
	for (size_t i = 0; i < env->n; i++) {
		run->env[i].key = strdup(env->kv[i].key);
		run->env[i].value = strdup(env->kv[i].value);
		if (!run->env[i].key || !run->env[i].value)
			abort();
	}
	run->nenv = env->n;
}

/* ---- code modules and the working set ---- */

static char *xstrdup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

void convert_modules(struct db_run *run, const struct modules *mods,
		     bool working_set)
{
	size_t n = modules_count(mods);
	run->modules = calloc(n ? n : 1, sizeof(*run->modules));
	if (!run->modules)
		return;
	run->nmodules = n;
	for (size_t i = 0; i < n; i++) {
		const struct module_info *mi = modules_at(mods, i);
		struct db_module *d = &run->modules[i];
		d->path = strdup(mi->path);
		d->kind = strdup(mi->kind == MODULE_FILE ? "file" : "anon");
		d->build_id = xstrdup_or_null(mi->build_id);
		d->exec_bytes = mi->exec_bytes;
		d->nprocs = mi->nprocs;
		d->has_text = mi->has_text;
		d->text_bytes = mi->text_bytes;
		d->has_exec_sections = mi->has_exec_sections;
		d->exec_section_bytes = mi->exec_section_bytes;
		d->has_touched = working_set;
		d->touched_bytes = mi->touched_bytes;
		d->faulted_bytes = mi->faulted_bytes;
		d->faults = mi->faults;
		d->touched_replayed = mi->touched_replayed;
		d->error = xstrdup_or_null(mi->error);
	}
	if (!working_set)
		return;
	const struct working_set *ws = modules_working_set(mods);
	run->ws = calloc(WS_NKINDS, sizeof(*run->ws));
	if (!run->ws)
		return;
	run->nws = WS_NKINDS;
	for (int k = 0; k < WS_NKINDS; k++) {
		run->ws[k].kind = strdup(ws_kind_name((enum ws_kind)k));
		run->ws[k].touched_bytes = ws->kind[k].touched_bytes;
		run->ws[k].faulted_bytes = ws->kind[k].faulted_bytes;
		run->ws[k].faults = ws->kind[k].faults;
	}
	char grain[32];
	snprintf(grain, sizeof(grain), "%llu", (unsigned long long)ws->window_bytes);
	db_run_set(run, "ws_window_bytes", grain);
}

/* ---- the sleep interposer's report ---- */

/* "k:count" pairs of the non-empty requested-duration buckets. */
static char *req_hist_text(const uint64_t *h)
{
	size_t len = 0;
	char *s = NULL;
	FILE *fp = open_memstream(&s, &len);
	bool first = true;
	for (unsigned b = 0; b < SLEEP_REQ_BUCKETS; b++) {
		if (!h[b])
			continue;
		fprintf(fp, "%s%u:%llu", first ? "" : " ", b, (unsigned long long)h[b]);
		first = false;
	}
	fclose(fp);
	return s;
}

struct db_sleep_usage *convert_sleep(const struct sleep_report *rep,
				     const struct sleep_preload_config *asked,
				     char *status)
{
	struct db_sleep_usage *u = calloc(1, sizeof(*u));
	if (!u) {
		free(status);
		return NULL;
	}
	const struct sleep_preload_config *cfg = rep && rep->config_set ? &rep->config
						 : asked;
	char mode[48];
	sleep_mode_format(&cfg->mode, mode, sizeof(mode));
	u->mode = strdup(mode);
	u->threshold_us = cfg->threshold_ns / 1000;
	u->max_spinners = cfg->max_spinners;
	u->spinners_default = cfg->spinners_default;
	u->status = status;
	u->cv_served_by = strdup(sleep_cv_strategy(cfg->mode.mode));
	if (!rep)
		return u;
	u->ncpus = rep->ncpus;
	u->processes = rep->processes;
	if (rep->error[0])
		u->error = strdup(rep->error);
	u->threads = calloc(rep->nthreads + 1, sizeof(*u->threads));
	for (size_t i = 0; u->threads && i < rep->nthreads; i++) {
		const struct sleep_thread_report *t = &rep->threads[i];
		struct db_sleep_thread *d = &u->threads[u->nthreads++];
		d->tid = t->tid;
		d->pid = t->pid;
		d->name = strndup(t->name, SLEEP_NAME_LEN);
		d->served = t->served;
		d->passed = t->passed;
		d->eintr = t->eintr;
		d->early = t->early;
		d->throttled = t->throttled;
		d->fallback = t->fallback;
		d->fallback_errno = (int)t->fallback_errno;
		d->fallback_max_ns = t->fallback_over_max_ns;
		d->fallback_mean_ns = t->fallback ? (double)t->fallback_over_sum_ns /
				      (double)t->fallback : 0;
		d->p50_ns = t->over.p50_ns;
		d->p90_ns = t->over.p90_ns;
		d->p99_ns = t->over.p99_ns;
		d->p999_ns = t->over.p999_ns;
		d->max_ns = t->over.max_ns;
		d->mean_ns = t->over.mean_ns;
		d->req_hist = req_hist_text(t->req_hist);
		d->cv_served = t->cv_served;
		d->cv_passed = t->cv_passed;
		d->cv_woken = t->cv_woken;
		d->cv_timedout = t->cv_timedout;
		d->cv_early = t->cv_early;
		d->cv_p50_ns = t->cv_over.p50_ns;
		d->cv_p90_ns = t->cv_over.p90_ns;
		d->cv_p99_ns = t->cv_over.p99_ns;
		d->cv_p999_ns = t->cv_over.p999_ns;
		d->cv_max_ns = t->cv_over.max_ns;
		d->cv_mean_ns = t->cv_over.mean_ns;
	}
	return u;
}

/* ---- prof record's samples ---- */

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

struct db_sample_event *convert_sample_events(const struct event_desc *sev,
					      const struct sampler_desc *sds,
					      size_t nsev,
					      const struct sample_plan *plan,
					      const struct sample_sink *sink,
					      const struct recorder_stats *st)
{
	struct db_sample_event *evs = calloc(nsev ? nsev : 1, sizeof(*evs));
	if (!evs)
		abort();
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

/* ---- frames ---- */

static const char *const frame_source_name[FRAME_NSOURCES] = {
	[FRAME_MARKER] = "marker", [FRAME_REGEX] = "regex",
	[FRAME_SYMBOL] = "symbol",
};

/* The run's thread of that tid's name, or NULL. */
static const char *thread_name(const struct db_run *run, int32_t tid)
{
	for (size_t i = 0; i < run->nthreads; i++)
		if (run->threads[i].tid == tid)
			return run->threads[i].name;
	return NULL;
}

/* Index of name in names (added when new). */
static size_t name_index(const char ***names, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return i;
	const char **p = realloc(*names, (*n + 1) * sizeof(*p));
	if (!p)
		abort();
	p[*n] = name;
	*names = p;
	return (*n)++;
}

static void frame_counts(struct db_run *run, struct frames *f,
			 enum frame_source src, size_t n)
{
	size_t nth = frames_nthreads(f), nnames = 0, nev = run->nevents;
	const char **names = NULL;
	size_t *of = calloc(nth ? nth : 1, sizeof(*of));
	if (!of)
		abort();
	for (size_t t = 0; t < nth; t++) {
		const char *nm = thread_name(run, frames_thread_tid(f, t));
		of[t] = name_index(&names, &nnames, nm ? nm : "");
	}
	/* One copy of each name, which every count of it borrows. */
	run->frame_names = calloc(nnames ? nnames : 1, sizeof(*run->frame_names));
	if (!run->frame_names)
		abort();
	for (size_t k = 0; k < nnames; k++)
		if (!(run->frame_names[k] = strdup(names[k])))
			abort();
	run->nframe_names = nnames;
	int64_t *sum = malloc((nnames ? nnames : 1) * (nev ? nev : 1) * sizeof(*sum));
	run->frame_counts = calloc(n * (nnames ? nnames : 1) * (nev ? nev : 1),
				   sizeof(*run->frame_counts));
	if (!sum || !run->frame_counts)
		abort();
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < nnames * nev; k++)
			sum[k] = -1;
		for (size_t t = 0; t < nth; t++)
			for (size_t e = 0; e < nev; e++) {
				uint64_t d;
				if (!frames_delta(f, src, i, t, e, &d))
					continue;
				/* Saturated: the database holds 0..INT64_MAX. */
				int64_t *s = &sum[of[t] * nev + e];
				uint64_t base = *s < 0 ? 0 : (uint64_t)*s;
				*s = d > (uint64_t)INT64_MAX - base ? INT64_MAX :
				     (int64_t)(base + d);
			}
		for (size_t k = 0; k < nnames * nev; k++)
			if (sum[k] >= 0)
				run->frame_counts[run->nframe_counts++] =
					(struct db_frame_count){
						.frame = (uint32_t)i,
						.name = run->frame_names[k / nev],
						.event = (uint32_t)(k % nev),
						.value = sum[k],
					};
	}
	free(sum);
	free(names);
	free(of);
}

void convert_frames(struct db_run *run, struct frames *f, enum frame_source src,
		    const struct frame_args *how, uint64_t t0_ns)
{
	char buf[64];
	for (int s = 0; s < FRAME_NSOURCES; s++) {
		snprintf(buf, sizeof(buf), "frames_%s", frame_source_name[s]);
		char cnt[32];
		snprintf(cnt, sizeof(cnt), "%zu", frames_count(f, (enum frame_source)s));
		db_run_set(run, buf, cnt);
	}
	db_run_set(run, "frame_source", frame_source_name[src]);
	if (how->regex)
		db_run_set(run, "frame_regex", how->regex);
	if (how->symbol)
		db_run_set(run, "frame_symbol", how->symbol);
	snprintf(buf, sizeof(buf), "%g", how->budget_ms);
	db_run_set(run, "frame_budget_ms", buf);
	size_t n = frames_count(f, src);
	if (!n)
		return;
	run->frames = calloc(n, sizeof(*run->frames));
	if (!run->frames)
		abort();
	for (size_t i = 0; i < n; i++) {
		uint64_t a, d;
		frames_span(f, src, i, &a, &d);
		/* No kept boundary is before the launch (collectors/frames.h's
		 * gate, lines and uprobe hits stamped after it). */
		run->frames[i] = (struct db_frame_span){
			.t_ns = a > t0_ns ? (int64_t)(a - t0_ns) : 0, .dur_ns = (int64_t)d,
		};
	}
	run->nframes = n;
	frame_counts(run, f, src, n);
}
