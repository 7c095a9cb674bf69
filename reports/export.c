/*
 * export (reports): a run as Perfetto's trace JSON, a speedscope file,
 * perf script's text or a pprof profile. The three share how a sample's frames are named,
 * where its call chain ends, which thread it is on and when it was
 * taken; each writer then walks the run's samples (and for Perfetto its
 * frames and intervals) once, in time order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cause.h"
#include "reports/demangle.h"
#include "reports/export.h"
#include "reports/profile.h"
#include "reports/runs.h"

/* What every writer reads, worked out once. */
struct xctx {
	const struct db_run *run;
	const struct db_profile *p;	/* NULL: not sampled */
	const struct export_opts *o;
	const char **names;	/* per symbol: its shown name; NULL: none */
	uint32_t *up;		/* per stack node: its caller, 0 where the
				 * chain ends (at a caller in no mapping) */
	uint32_t *chain;	/* chain_of's frames, leaf first */
	size_t cap;
	uint64_t t0;		/* the samples' time at the launch */
};

bool export_format(enum out_format f)
{
	return f == OUT_PERFETTO || f == OUT_SPEEDSCOPE || f == OUT_PERF_SCRIPT ||
	       f == OUT_PPROF;
}

static bool module_unmapped(const struct db_profile *p, uint32_t module)
{
	return !strcmp(p->modules[module - 1], DB_MODULE_UNMAPPED);
}

static uint32_t frame_module(const struct db_profile *p, uint32_t frame)
{
	return p->symbols[p->frames[frame - 1].symbol - 1].module;
}

/* Whether sample s is one the options keep. */
static bool kept(const struct xctx *x, const struct db_sample_row *s)
{
	return x->o->event < 0 || s->event == (uint32_t)x->o->event;
}

static void xctx_release(struct xctx *x)
{
	const struct db_profile *p = x->p;
	for (size_t i = 0; p && x->names && i < p->nsymbols; i++)
		if (x->names[i] != p->symbols[i].name)
			free((char *)x->names[i]);
	free(x->names);
	free(x->up);
	free(x->chain);
}

/* The launch on the samples' clock (the setting t0_ns), or the first
 * sample's time where the run kept none or a sample came before it. */
static uint64_t samples_t0(const struct db_run *run, const struct db_profile *p)
{
	const char *s = db_get_text(run, SET_T0_NS);
	uint64_t t0 = s ? strtoull(s, NULL, 10) : 0;
	if (p && p->nsamples && (!t0 || p->samples[0].time < t0))
		t0 = p->samples[0].time;
	return t0;
}

static int xctx_init(struct xctx *x, const struct db_run *run, const struct db_profile *p,
		     const struct export_opts *o)
{
	memset(x, 0, sizeof(*x));
	x->run = run;
	x->p = p;
	x->o = o;
	x->t0 = samples_t0(run, p);
	if (!p)
		return 0;
	x->names = calloc(p->nsymbols ? p->nsymbols : 1, sizeof(*x->names));
	x->up = malloc((p->nstacks ? p->nstacks : 1) * sizeof(*x->up));
	if (!x->names || !x->up) {
		xctx_release(x);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nsymbols; i++) {
		const char *name = p->symbols[i].name;
		char *d = name && !o->mangled ? demangle_name(name) : NULL;
		x->names[i] = d ? d : name;
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		uint32_t parent = p->stacks[i].parent;
		bool end = parent &&
			   module_unmapped(p, frame_module(p, p->stacks[parent - 1].frame));
		x->up[i] = end ? 0 : parent;
	}
	return 0;
}

/* The frames of stack node leaf, leaf first, into x->chain: their
 * number, or 0 when memory ran out. */
static size_t chain_of(struct xctx *x, uint32_t leaf)
{
	size_t n = 0;
	for (uint32_t node = leaf; node; node = x->up[node - 1]) {
		if (n == x->cap) {
			size_t cap = x->cap ? 2 * x->cap : 64;
			uint32_t *c = realloc(x->chain, cap * sizeof(*c));
			if (!c)
				return 0;
			x->chain = c;
			x->cap = cap;
		}
		x->chain[n++] = x->p->stacks[node - 1].frame;
	}
	return n;
}

/* A frame's name as the profile reports show it: its symbol, or where
 * no symbol covers it "libfoo.so+0x1a2b". Borrowed, or written in buf. */
static const char *frame_name(const struct xctx *x, uint32_t frame, char *buf, size_t n)
{
	const struct db_frame *f = &x->p->frames[frame - 1];
	const char *name = x->names[f->symbol - 1];
	if (name)
		return name;
	snprintf(buf, n, "%s+0x%" PRIx64,
		 profile_module_short(x->p->modules[frame_module(x->p, frame) - 1]),
		 f->offset);
	return buf;
}

/* The thread a sample was on, or NULL when prof could not tell. */
static const struct db_thread *thread_at(const struct db_run *run, int32_t idx)
{
	return idx >= 0 && (size_t)idx < run->nthreads ? &run->threads[idx] : NULL;
}

/* The first thread of tid, or NULL. */
static const struct db_thread *thread_of_tid(const struct db_run *run, int32_t tid)
{
	for (size_t i = 0; i < run->nthreads; i++)
		if (run->threads[i].tid == tid)
			return &run->threads[i];
	return NULL;
}

/* Whether sampled event e counts nanoseconds (cpu-clock, task-clock). */
static bool sampled_is_time(const struct db_sample_event *e)
{
	return e->attr_type == 1 /* PERF_TYPE_SOFTWARE */ &&
	       (e->attr_config == 0 /* CPU_CLOCK */ || e->attr_config == 1 /* TASK_CLOCK */);
}

/* ---- perfetto ----------------------------------------------------------- */

/* The start of one trace event: its name, phase, track and time (ns
 * after the launch, written in microseconds). The caller adds the rest
 * and closes it. */
static void trace_event(struct jw *w, const char *name, const char *ph, int32_t pid,
			int32_t tid, double t_ns)
{
	jw_obj_begin_flat(w);
	jw_key(w, "name");
	jw_str(w, name);
	jw_key(w, "ph");
	jw_str(w, ph);
	jw_key(w, "pid");
	jw_int(w, pid);
	jw_key(w, "tid");
	jw_int(w, tid);
	jw_key(w, "ts");
	jw_fixed(w, t_ns / 1e3, 3);
}

/* A metadata event naming a process or a thread. */
static void trace_name(struct jw *w, const char *what, int32_t pid, int32_t tid,
		       const char *name)
{
	trace_event(w, what, "M", pid, tid, 0);
	jw_key(w, "args");
	jw_obj_begin_flat(w);
	jw_key(w, "name");
	jw_str(w, name && *name ? name : "?");
	jw_obj_end(w);
	jw_obj_end(w);
}

/* The run's header, as otherData (the format's place for it). */
static void perfetto_header(const struct xctx *x, struct jw *w)
{
	const struct db_run *run = x->run;
	jw_key(w, "otherData");
	jw_obj_begin(w);
	jw_key(w, "run_id");
	jw_int(w, run->id);
	jw_key(w, "kind");
	jw_str(w, run->kind);
	jw_key(w, "command");
	jw_str(w, run->command);
	jw_key(w, "started");
	jw_str(w, run->started);
	jw_key(w, "wall_s");
	jw_num(w, run->wall_s);
	jw_key(w, "exit_status");
	jw_int(w, run->exit_status);
	jw_key(w, "host");
	jw_str(w, run->host.hostname);
	jw_key(w, "kernel");
	jw_str(w, run->host.kernel);
	jw_key(w, "cpu_model");
	jw_str(w, run->host.cpu_model);
	char *list = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&list, &len);
	for (size_t e = 0; mem && e < run->nevents; e++)
		fprintf(mem, "%s%s", e ? "," : "", run->events[e].name);
	if (mem)
		fclose(mem);
	jw_key(w, "events");
	jw_str(w, mem ? list : NULL);
	free(list);
	list = NULL;
	len = 0;
	mem = x->p ? open_memstream(&list, &len) : NULL;
	for (size_t e = 0; mem && e < x->p->nevents; e++)
		fprintf(mem, "%s%s", e ? "," : "", x->p->events[e].name);
	if (mem)
		fclose(mem);
	jw_key(w, "sampled_events");
	jw_str(w, mem ? list : NULL);
	free(list);
	jw_key(w, "exporter");
	jw_str(w, "prof report --format perfetto");
	jw_obj_end(w);
}

/* One track per thread (a tid once), under its process. */
static void perfetto_tracks(const struct xctx *x, struct jw *w)
{
	const struct db_run *run = x->run;
	for (size_t i = 0; i < run->nthreads; i++) {
		const struct db_thread *t = &run->threads[i];
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = run->threads[j].pid == t->pid;
		if (seen)
			continue;
		const struct db_thread *lead = thread_of_tid(run, t->pid);
		trace_name(w, "process_name", t->pid, t->pid,
			   lead && lead->pid == t->pid ? lead->name : t->name);
	}
	for (size_t i = 0; i < run->nthreads; i++) {
		const struct db_thread *t = &run->threads[i];
		if (thread_of_tid(run, t->tid) == t)
			trace_name(w, "thread_name", t->pid, t->tid, t->name);
	}
	bool lost = false;
	for (size_t i = 0; x->p && i < x->p->nsamples && !lost; i++)
		lost = kept(x, &x->p->samples[i]) && !thread_at(run, x->p->samples[i].thread);
	if (lost)
		trace_name(w, "thread_name", run->pid, 0, "[unknown thread]");
}

/* Frames: slices on the main thread, each thread name's counts in args
 * (db/ loads the counts by frame). */
static void perfetto_frames(const struct xctx *x, struct jw *w)
{
	const struct db_run *run = x->run;
	const struct db_thread *main_t = run->nthreads ? &run->threads[0] : NULL;
	for (size_t i = 0; i < run->nthreads; i++)
		if (run->threads[i].is_main) {
			main_t = &run->threads[i];
			break;
		}
	int32_t pid = main_t ? main_t->pid : run->pid, tid = main_t ? main_t->tid : run->pid;
	size_t c = 0;
	for (size_t f = 0; f < run->nframes; f++) {
		char name[48];
		snprintf(name, sizeof(name), "frame %zu", f + 1);
		trace_event(w, name, "X", pid, tid, (double)run->frames[f].t_ns);
		jw_key(w, "dur");
		int64_t dur = run->frames[f].dur_ns;
		jw_fixed(w, dur > 0 ? (double)dur / 1e3 : 0, 3);
		jw_key(w, "cat");
		jw_str(w, "frame");
		jw_key(w, "args");
		jw_obj_begin_flat(w);
		jw_key(w, "frame");
		jw_uint(w, f + 1);
		while (c < run->nframe_counts && run->frame_counts[c].frame < f)
			c++;
		for (; c < run->nframe_counts && run->frame_counts[c].frame == f; c++) {
			const struct db_frame_count *fc = &run->frame_counts[c];
			if (fc->event >= run->nevents)
				continue;
			char key[256];
			snprintf(key, sizeof(key), "%s %s", fc->name ? fc->name : "?",
				 run->events[fc->event].name);
			jw_key(w, key);
			jw_int(w, fc->value);
		}
		jw_obj_end(w);
		jw_obj_end(w);
	}
}

/* Intervals: a counter per thread ("render 1234"), a series per event;
 * an event not read in an interval is left out of it. */
static void perfetto_intervals(const struct xctx *x, struct jw *w)
{
	const struct db_run *run = x->run;
	for (size_t i = 0; i < run->nintervals; i++) {
		const struct db_interval *iv = &run->intervals[i];
		const struct db_thread *t = thread_of_tid(run, iv->tid);
		char name[128];
		snprintf(name, sizeof(name), "%s %d", iv->name ? iv->name : "?", (int)iv->tid);
		trace_event(w, name, "C", t ? t->pid : run->pid, iv->tid,
			    (double)iv->t_ms * 1e6);
		jw_key(w, "cat");
		jw_str(w, "interval");
		jw_key(w, "args");
		jw_obj_begin_flat(w);
		for (size_t e = 0; iv->values && e < run->nevents; e++) {
			if (iv->values[e] < 0)
				continue;
			jw_key(w, run->events[e].name);
			jw_int(w, iv->values[e]);
		}
		jw_obj_end(w);
		jw_obj_end(w);
	}
}

/* Samples: an instant on their thread, named by the leaf frame. */
static void perfetto_samples(struct xctx *x, struct jw *w)
{
	const struct db_profile *p = x->p;
	for (size_t i = 0; p && i < p->nsamples; i++) {
		const struct db_sample_row *s = &p->samples[i];
		if (!kept(x, s))
			continue;
		const struct db_thread *t = thread_at(x->run, s->thread);
		uint32_t frame = p->stacks[s->stack - 1].frame;
		char buf[600];
		trace_event(w, frame_name(x, frame, buf, sizeof(buf)), "i",
			    t ? t->pid : x->run->pid, t ? t->tid : 0,
			    (double)(s->time - x->t0));
		jw_key(w, "s");
		jw_str(w, "t");
		jw_key(w, "cat");
		jw_str(w, "sample");
		jw_key(w, "args");
		jw_obj_begin_flat(w);
		jw_key(w, "event");
		jw_str(w, p->events[s->event].name);
		jw_key(w, "weight");
		jw_uint(w, s->weight);
		jw_key(w, "cpu");
		jw_uint(w, s->cpu);
		jw_key(w, "module");
		jw_str(w, p->modules[frame_module(p, frame) - 1]);
		jw_obj_end(w);
		jw_obj_end(w);
	}
}

static int export_perfetto(struct xctx *x, FILE *fp)
{
	struct jw w;
	jw_init(&w, fp, 1);
	jw_obj_begin(&w);
	jw_key(&w, "displayTimeUnit");
	jw_str(&w, "ms");
	perfetto_header(x, &w);
	jw_key(&w, "traceEvents");
	jw_arr_begin(&w);
	perfetto_tracks(x, &w);
	perfetto_frames(x, &w);
	perfetto_intervals(x, &w);
	perfetto_samples(x, &w);
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_end(&w);
	return 0;
}

/* ---- speedscope --------------------------------------------------------- */

/* A frame's name and module, for sorting the distinct ones. */
struct named_frame {
	const char *name;	/* borrowed from names, or owned (owned) */
	bool owned;
	uint32_t module;
	uint32_t frame;
};

static int named_frame_cmp(const void *pa, const void *pb)
{
	const struct named_frame *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	if (a->module != b->module)
		return a->module < b->module ? -1 : 1;
	return a->frame < b->frame ? -1 : a->frame > b->frame;
}

/* Mark the frames that the chains of the samples order[0..n) pass
 * through (each stack node walked once). */
static int used_frames(const struct xctx *x, const size_t *order, size_t n, bool *used)
{
	const struct db_profile *p = x->p;
	bool *seen = calloc(p->nstacks ? p->nstacks : 1, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (uint32_t node = p->samples[order[i]].stack; node && !seen[node - 1];
		     node = x->up[node - 1]) {
			seen[node - 1] = true;
			used[p->stacks[node - 1].frame - 1] = true;
		}
	free(seen);
	return 0;
}

/*
 * speedscope's shared frames: one per distinct (name, module) that a
 * sample's chain passes through, so that its views merge a function's
 * frames at different offsets. Writes the list and fills index[frame -
 * 1] with each used frame's place in it.
 */
static int speedscope_frames(const struct xctx *x, struct jw *w, const size_t *order,
			     size_t norder, size_t *index)
{
	const struct db_profile *p = x->p;
	struct named_frame *v = calloc(p->nframes ? p->nframes : 1, sizeof(*v));
	bool *used = calloc(p->nframes ? p->nframes : 1, sizeof(*used));
	int rc = v && used ? used_frames(x, order, norder, used) : -ENOMEM;
	size_t nv = 0;
	for (uint32_t f = 1; f <= p->nframes && !rc; f++) {
		if (!used[f - 1])
			continue;
		char buf[600];
		const char *name = frame_name(x, f, buf, sizeof(buf));
		v[nv] = (struct named_frame){ name, name == buf, frame_module(p, f), f };
		if (name == buf && !(v[nv].name = strdup(buf)))
			rc = -ENOMEM;
		nv++;
	}
	free(used);
	if (!rc)
		qsort(v, nv, sizeof(*v), named_frame_cmp);
	jw_key(w, "shared");
	jw_obj_begin(w);
	jw_key(w, "frames");
	jw_arr_begin(w);
	size_t n = 0;
	for (size_t i = 0; i < nv && !rc; i++) {
		if (i && !strcmp(v[i].name, v[i - 1].name) && v[i].module == v[i - 1].module) {
			index[v[i].frame - 1] = n - 1;
			continue;
		}
		index[v[i].frame - 1] = n++;
		jw_obj_begin_flat(w);
		jw_key(w, "name");
		jw_str(w, v[i].name);
		jw_key(w, "file");
		jw_str(w, p->modules[v[i].module - 1]);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
	for (size_t i = 0; i < nv; i++)
		if (v[i].owned)
			free((char *)v[i].name);
	free(v);
	return rc;
}

/* Sample indexes ordered by thread, then event, then time (their
 * order in the profile). */
static int by_thread_event(const void *pa, const void *pb, void *arg)
{
	const struct db_sample_row *rows = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct db_sample_row *x = &rows[a], *y = &rows[b];
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	return a < b ? -1 : a > b;
}

static bool same_profile(const struct db_profile *p, size_t a, size_t b)
{
	return p->samples[a].thread == p->samples[b].thread &&
	       p->samples[a].event == p->samples[b].event;
}

/* One profile: the samples order[0..n) (one thread's, of one event).
 * Returns its total weight through *total. */
static int speedscope_profile(struct xctx *x, struct jw *w, const size_t *order, size_t n,
			      const size_t *index, uint64_t *total)
{
	const struct db_profile *p = x->p;
	const struct db_sample_row *first = &p->samples[order[0]];
	const struct db_thread *t = thread_at(x->run, first->thread);
	const struct db_sample_event *e = &p->events[first->event];
	char name[300];
	if (t)
		snprintf(name, sizeof(name), "%s (tid %d): %s", t->name ? t->name : "?",
			 (int)t->tid, e->name);
	else
		snprintf(name, sizeof(name), "[unknown thread]: %s", e->name);
	jw_obj_begin(w);
	jw_key(w, "type");
	jw_str(w, "sampled");
	jw_key(w, "name");
	jw_str(w, name);
	jw_key(w, "unit");
	jw_str(w, sampled_is_time(e) ? "nanoseconds" : "none");
	jw_key(w, "startValue");
	jw_int(w, 0);
	jw_key(w, "samples");
	jw_arr_begin(w);
	int rc = 0;
	*total = 0;
	for (size_t i = 0; i < n; i++) {
		const struct db_sample_row *s = &p->samples[order[i]];
		size_t depth = chain_of(x, s->stack);
		if (!depth) {
			rc = -ENOMEM;
			break;
		}
		jw_arr_begin_flat(w);
		while (depth-- > 0)
			jw_uint(w, index[x->chain[depth] - 1]);
		jw_arr_end(w);
		*total += s->weight;
	}
	jw_arr_end(w);
	jw_key(w, "weights");
	jw_arr_begin_flat(w);
	for (size_t i = 0; i < n && !rc; i++)
		jw_uint(w, p->samples[order[i]].weight);
	jw_arr_end(w);
	jw_key(w, "endValue");
	jw_uint(w, *total);
	jw_obj_end(w);
	return rc;
}

static int export_speedscope(struct xctx *x, FILE *fp)
{
	const struct db_profile *p = x->p;
	size_t *index = malloc((p->nframes ? p->nframes : 1) * sizeof(*index));
	size_t *order = malloc((p->nsamples ? p->nsamples : 1) * sizeof(*order));
	if (!index || !order) {
		free(index);
		free(order);
		return -ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; i < p->nsamples; i++)
		if (kept(x, &p->samples[i]))
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), by_thread_event, (void *)p->samples);
	struct jw w;
	jw_init(&w, fp, 1);
	jw_obj_begin(&w);
	jw_key(&w, "$schema");
	jw_str(&w, "https://www.speedscope.app/file-format-schema.json");
	char name[300];
	snprintf(name, sizeof(name), "prof %s %lld: %s", x->run->kind ? x->run->kind : "run",
		 (long long)x->run->id, x->run->command ? x->run->command : "?");
	jw_key(&w, "name");
	jw_str(&w, name);
	jw_key(&w, "exporter");
	jw_str(&w, "prof report --format speedscope");
	int rc = speedscope_frames(x, &w, order, n, index);
	jw_key(&w, "profiles");
	jw_arr_begin(&w);
	size_t nprof = 0, heaviest = 0;
	uint64_t most = 0;
	for (size_t i = 0; i < n && !rc;) {
		size_t j = i + 1;
		while (j < n && same_profile(p, order[i], order[j]))
			j++;
		uint64_t total;
		rc = speedscope_profile(x, &w, order + i, j - i, index, &total);
		if (total > most || !nprof) {
			most = total;
			heaviest = nprof;
		}
		nprof++;
		i = j;
	}
	jw_arr_end(&w);
	jw_key(&w, "activeProfileIndex");
	jw_uint(&w, heaviest);
	jw_obj_end(&w);
	jw_end(&w);
	free(index);
	free(order);
	return rc;
}

/* ---- perf script -------------------------------------------------------- */

/* A header block as `perf script --header` starts with: its "# ========"
 * first line tells the Firefox Profiler what it reads, and
 * stackcollapse-perf.pl skips lines that start with '#'. */
static void perf_script_header(const struct xctx *x, FILE *fp)
{
	const struct db_run *run = x->run;
	fputs("# ========\n# captured on    : ", fp);
	term_field(fp, run->started ? run->started : "?");
	fputs("\n# hostname : ", fp);
	term_field(fp, run->host.hostname ? run->host.hostname : "?");
	fputs("\n# os release : ", fp);
	term_field(fp, run->host.kernel ? run->host.kernel : "?");
	fprintf(fp, "\n# nrcpus online : %d\n# cpudesc : ", run->host.online_cpus);
	term_field(fp, run->host.cpu_model ? run->host.cpu_model : "?");
	fprintf(fp, "\n# prof run : %lld: ", (long long)run->id);
	term_field(fp, run->command ? run->command : "?");
	fputc('\n', fp);
	for (size_t e = 0; e < x->p->nevents; e++) {
		const struct db_sample_event *ev = &x->p->events[e];
		fputs("# event : name = ", fp);
		term_field(fp, ev->name);
		if (ev->freq)
			fprintf(fp, ", sample_freq = %" PRIu64, ev->freq);
		else
			fprintf(fp, ", sample_period = %" PRIu64, ev->period);
		fputs(", call_graph = ", fp);
		term_field(fp, ev->call_graph ? ev->call_graph : "?");
		fputc('\n', fp);
	}
	fputs("# ========\n#\n", fp);
}

/* A frame's line: "\t<address> <symbol>+0x<offset> (<module path>)". */
static void perf_script_frame(const struct xctx *x, uint32_t frame, FILE *fp)
{
	const struct db_frame *f = &x->p->frames[frame - 1];
	const char *name = x->names[f->symbol - 1];
	fprintf(fp, "\t%16" PRIx64 " ", name ? 0 : f->offset);
	if (name) {
		term_field(fp, name);
		fprintf(fp, "+0x%" PRIx64, f->offset);
	} else {
		fputs("[unknown]", fp);
	}
	fputs(" (", fp);
	term_field(fp, x->p->modules[frame_module(x->p, frame) - 1]);
	fputs(")\n", fp);
}

static int export_perf_script(struct xctx *x, FILE *fp)
{
	const struct db_profile *p = x->p;
	perf_script_header(x, fp);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct db_sample_row *s = &p->samples[i];
		if (!kept(x, s))
			continue;
		const struct db_thread *t = thread_at(x->run, s->thread);
		/* perf's layout: "%s " comm, "%5d/%-5d " pid/tid, "%5lu.%06lu: "
		 * time, "%10lu " period, "%s: " event. */
		term_field(fp, t && t->name && *t->name ? t->name : "[unknown]");
		fprintf(fp, " %5d/%-5d %5" PRIu64 ".%06" PRIu64 ": %10" PRIu64 " ",
			t ? (int)t->pid : 0, t ? (int)t->tid : 0, s->time / 1000000000u,
			s->time % 1000000000u / 1000u, s->weight);
		term_field(fp, p->events[s->event].name);
		fputs(": \n", fp);
		size_t depth = chain_of(x, s->stack);
		if (!depth)
			return -ENOMEM;
		for (size_t d = 0; d < depth; d++)
			perf_script_frame(x, x->chain[d], fp);
		fputc('\n', fp);
	}
	return 0;
}

/* ---- pprof -------------------------------------------------------------- */

/* The profile under construction: arrays that struct pprof_profile
 * points into, and the strings made for it. */
struct pp {
	struct pprof_profile prof;
	struct pprof_value_type *vt;
	struct pprof_mapping *maps;
	struct pprof_function *fns;
	struct pprof_location *locs;
	struct pprof_sample *smp;
	struct pprof_label *labels;	/* 3 a sample */
	uint32_t *chains;		/* every sample's locations */
	int64_t *values;
	char **own;			/* strings made here, to free */
	size_t nown;
	uint32_t *fn_of_frame;		/* per frame: its function, index + 1 */
	const char *comments[2];
};

static void pp_release(struct pp *pp)
{
	for (size_t i = 0; i < pp->nown; i++)
		free(pp->own[i]);
	free(pp->own);
	free(pp->vt);
	free(pp->maps);
	free(pp->fns);
	free(pp->locs);
	free(pp->smp);
	free(pp->labels);
	free(pp->chains);
	free(pp->values);
	free(pp->fn_of_frame);
}

/* s, kept until pp_release; NULL when memory ran out. */
static const char *pp_keep(struct pp *pp, char *s)
{
	if (s)
		pp->own[pp->nown++] = s;
	return s;
}

/* Value types: per event its weight, then its sample count. */
static int pp_value_types(struct pp *pp, const struct db_profile *p)
{
	for (size_t e = 0; e < p->nevents; e++) {
		const struct db_sample_event *ev = &p->events[e];
		char *n = NULL;
		if (asprintf(&n, "%s samples", ev->name) < 0 || !pp_keep(pp, n))
			return -ENOMEM;
		pp->vt[2 * e].type = ev->name;
		pp->vt[2 * e].unit = sampled_is_time(ev) ? "nanoseconds" : "count";
		pp->vt[2 * e + 1].type = n;
		pp->vt[2 * e + 1].unit = "count";
	}
	pp->prof.value_types = pp->vt;
	pp->prof.nvalue_types = 2 * p->nevents;
	return 0;
}

/* Mappings (one per module), functions (one per symbol, and one per
 * frame no symbol names) and locations (one per frame). */
static int pp_code(struct pp *pp, const struct xctx *x)
{
	const struct db_profile *p = x->p;
	for (size_t m = 0; m < p->nmodules; m++) {
		pp->maps[m].file = p->modules[m];
		pp->maps[m].build_id = p->build_ids ? p->build_ids[m] : NULL;
	}
	size_t nfn = 0;
	for (size_t i = 0; i < p->nsymbols; i++) {
		if (!x->names[i])
			continue;
		pp->fns[nfn].name = x->names[i];
		pp->fns[nfn].system_name = p->symbols[i].name;
		nfn++;
	}
	/* a symbol's function: its index among the named symbols */
	uint32_t *fn_of_sym = calloc(p->nsymbols ? p->nsymbols : 1, sizeof(*fn_of_sym));
	if (!fn_of_sym)
		return -ENOMEM;
	for (size_t i = 0, k = 0; i < p->nsymbols; i++)
		fn_of_sym[i] = x->names[i] ? (uint32_t)++k : 0;
	for (size_t f = 0; f < p->nframes; f++) {
		const struct db_frame *fr = &p->frames[f];
		uint32_t fn = fn_of_sym[fr->symbol - 1];
		if (!fn) {
			char buf[300];
			const char *name = pp_keep(pp, strdup(frame_name(x, (uint32_t)f + 1,
									buf, sizeof(buf))));
			if (!name) {
				free(fn_of_sym);
				return -ENOMEM;
			}
			pp->fns[nfn].name = name;
			fn = (uint32_t)++nfn;
		}
		if (fr->src_file && !pp->fns[fn - 1].file)
			pp->fns[fn - 1].file = fr->src_file;
		pp->locs[f].mapping = p->symbols[fr->symbol - 1].module;
		pp->locs[f].function = fn;
		pp->locs[f].line = fr->src_line;
	}
	free(fn_of_sym);
	pp->prof.mappings = pp->maps;
	pp->prof.nmappings = p->nmodules;
	pp->prof.functions = pp->fns;
	pp->prof.nfunctions = nfn;
	pp->prof.locations = pp->locs;
	pp->prof.nlocations = p->nframes;
	return 0;
}

static int by_thread_stack(const void *pa, const void *pb, void *arg)
{
	const struct db_sample_row *s = arg, *a = &s[*(const size_t *)pa],
				   *b = &s[*(const size_t *)pb];
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/* One sample per (thread, call chain) of the samples the options keep,
 * with each event's weight and count. */
static int pp_samples(struct pp *pp, struct xctx *x)
{
	const struct db_profile *p = x->p;
	size_t *order = malloc((p->nsamples ? p->nsamples : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	size_t n = 0, k = 0, nchain = 0, cap = 0, nv = pp->prof.nvalue_types;
	for (size_t i = 0; i < p->nsamples; i++)
		if (kept(x, &p->samples[i]))
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), by_thread_stack, (void *)p->samples);
	for (size_t i = 0; i < n; k++) {
		const struct db_sample_row *first = &p->samples[order[i]];
		size_t len = chain_of(x, first->stack);
		if (!len && first->stack)
			goto out_oom;
		if (nchain + len > cap) {
			while (nchain + len > cap)
				cap = cap ? 2 * cap : 4096;
			uint32_t *ch = realloc(pp->chains, cap * sizeof(*ch));
			if (!ch)
				goto out_oom;
			pp->chains = ch;
		}
		memcpy(pp->chains + nchain, x->chain, len * sizeof(*pp->chains));
		struct pprof_sample *s = &pp->smp[k];
		s->nlocations = len;
		/* chains moves as it grows: offsets now, pointers at the end */
		s->locations = (const uint32_t *)(uintptr_t)nchain;
		nchain += len;
		int64_t *v = pp->values + k * nv;
		for (; i < n && p->samples[order[i]].thread == first->thread &&
		       p->samples[order[i]].stack == first->stack; i++) {
			const struct db_sample_row *r = &p->samples[order[i]];
			v[2 * r->event] += (int64_t)r->weight;
			v[2 * r->event + 1]++;
		}
		s->values = v;
		const struct db_thread *t = thread_at(x->run, first->thread);
		struct pprof_label *l = pp->labels + 3 * k;
		l[0] = (struct pprof_label){ .key = "thread", .str = t && t->name ? t->name : "?" };
		l[1] = (struct pprof_label){ .key = "tid", .num = t ? t->tid : -1 };
		l[2] = (struct pprof_label){ .key = "pid", .num = t ? t->pid : -1 };
		s->labels = l;
		s->nlabels = 3;
	}
	for (size_t i = 0; i < k; i++)
		pp->smp[i].locations = pp->chains + (uintptr_t)pp->smp[i].locations;
	pp->prof.samples = pp->smp;
	pp->prof.nsamples = k;
	free(order);
	return 0;
out_oom:
	free(order);
	return -ENOMEM;
}

static int export_pprof(struct xctx *x, FILE *fp, char **cause)
{
	const struct db_profile *p = x->p;
	if (!x->o->pprof)
		return cause_set(cause, ENOSYS, "this prof has no pprof encoder (%s)",
				 PPROF_LIB);
	struct pp pp;
	memset(&pp, 0, sizeof(pp));
	size_t nv = 2 * p->nevents, nc = p->nsamples ? p->nsamples : 1;
	pp.vt = calloc(nv ? nv : 1, sizeof(*pp.vt));
	pp.maps = calloc(p->nmodules ? p->nmodules : 1, sizeof(*pp.maps));
	pp.fns = calloc(p->nsymbols + p->nframes + 1, sizeof(*pp.fns));
	pp.locs = calloc(p->nframes ? p->nframes : 1, sizeof(*pp.locs));
	pp.smp = calloc(nc, sizeof(*pp.smp));
	pp.labels = calloc(3 * nc, sizeof(*pp.labels));
	pp.values = calloc(nc * (nv ? nv : 1), sizeof(*pp.values));
	pp.own = calloc(p->nevents + p->nframes + 1, sizeof(*pp.own));
	int rc = -ENOMEM;
	if (!pp.vt || !pp.maps || !pp.fns || !pp.locs || !pp.smp || !pp.labels ||
	    !pp.values || !pp.own || pp_value_types(&pp, p) || pp_code(&pp, x) ||
	    pp_samples(&pp, x))
		goto out;
	pp.prof.abi = PPROF_ABI;
	pp.prof.default_type = 0;
	time_t start;
	if (x->run->started && !report_time_parse(x->run->started, &start))
		pp.prof.time_nanos = (int64_t)start * 1000000000;
	pp.prof.duration_nanos = (int64_t)(x->run->wall_s * 1e9);
	if (p->nevents && p->events[0].period) {
		pp.prof.period_type = pp.vt[0];
		pp.prof.period = (int64_t)p->events[0].period;
	}
	char *what = NULL;
	if (asprintf(&what, "prof %s %lld: %s", x->run->kind ? x->run->kind : "run",
		     (long long)x->run->id, x->run->command ? x->run->command : "?") < 0 ||
	    !pp_keep(&pp, what))
		goto out;
	pp.comments[0] = what;
	pp.prof.comments = pp.comments;
	pp.prof.ncomments = 1;
	rc = x->o->pprof(&pp.prof, fp, cause);
out:
	pp_release(&pp);
	return rc;
}

/* ---- the entry points --------------------------------------------------- */

int export_check(enum out_format f, const struct db_run *run,
		 const struct db_profile *p, const struct export_opts *o,
		 char **cause)
{
	const char *fname = output_format_name(f);
	size_t n = 0;
	for (size_t i = 0; p && i < p->nsamples; i++)
		n += o->event < 0 || p->samples[i].event == (uint32_t)o->event;
	if (f == OUT_PERFETTO && !run->nframes && !run->nintervals && !n)
		return cause_set(cause, ENODATA, "--format perfetto exports frames "
				 "(--frames, --frame-regex), intervals (-I MS) or "
				 "samples (prof record): run %lld has none of them",
				 (long long)run->id);
	if (f == OUT_PERFETTO)
		return 0;
	if (!p)
		return cause_set(cause, ENODATA, "--format %s exports the samples "
				 "of a sampled run (prof record): run %lld was "
				 "counted, not sampled", fname, (long long)run->id);
	if (!n)
		return cause_set(cause, ENODATA, "--format %s exports the samples "
				 "of a sampled run (prof record): run %lld holds "
				 "none%s", fname, (long long)run->id,
				 o->event >= 0 ? " of that event" : "");
	return 0;
}

int export_write(enum out_format f, const struct db_run *run,
		 const struct db_profile *p, const struct export_opts *o, FILE *fp,
		 char **cause)
{
	struct xctx x;
	int rc = xctx_init(&x, run, p, o);
	if (rc)
		return rc;
	if (f == OUT_PERFETTO)
		rc = export_perfetto(&x, fp);
	else if (f == OUT_SPEEDSCOPE && p)
		rc = export_speedscope(&x, fp);
	else if (f == OUT_PERF_SCRIPT && p)
		rc = export_perf_script(&x, fp);
	else if (f == OUT_PPROF && p)
		rc = export_pprof(&x, fp, cause);
	else
		rc = -EINVAL;
	xctx_release(&x);
	return rc;
}
