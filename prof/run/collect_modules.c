/*
 * collect_modules: the code modules every run maps (MMAP2 records with
 * build ids, from the counters' side-band) and, with --working-set, the
 * memory it touched (data mappings too, and a page-fault sampler with
 * the faults' addresses). A collector (prof/run/collector.h); its fill
 * makes what it found the run's modules and, for a working-set run, the
 * touched memory by kind and its grain (the setting "ws_window_bytes").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/modules.h"
#include "common/errtext.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

struct mods_state {
	bool working_set;
	size_t fault_sampler;	/* its index among the counters' samplers */
	struct modules *mods;
};

static void mods_release(void *self)
{
	struct mods_state *st = self;
	modules_free(st->mods);
	st->mods = NULL;
}

/* A failure to set up is a warning: the run goes on without modules. */
static int mods_prepare(void *self, struct collect_ctx *cx, char **cause)
{
	struct mods_state *st = self;
	(void)cause;
	st->working_set = cx->o->working_set;
	struct modules_opts mo = { .working_set = st->working_set };
	st->mods = modules_new(&mo);
	if (!st->mods) {
		run_warn("cannot track code modules: %s", ERR_TEXT(errno));
		return COLLECT_SKIP;
	}
	cx->co->flags |= COUNTERS_BUILD_ID;
	if (!st->working_set)
		return 0;
	cx->co->flags |= COUNTERS_MMAP_DATA;
	struct sampler_desc sd = { .name = "page-faults" };
	sd.attr.type = PERF_TYPE_SOFTWARE;
	sd.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	sd.attr.sample_period = 1;
	sd.attr.sample_type = PERF_SAMPLE_ADDR;
	st->fault_sampler = collect_add_sampler(cx, &sd);
	return 0;
}

/*
 * Learn the fault sampler's ids; for an attach, read the process's
 * existing mappings (the records only tell of new ones).
 */
static void mods_opened(void *self, struct collect_ctx *cx)
{
	struct mods_state *st = self;
	const struct counters *cs = cx->cs;
	if (st->working_set) {
		const struct counter_status *s = counters_sampler_status(cs, st->fault_sampler);
		if (!s || !s->supported) {
			const char *why = s && s->reason ? s->reason : "refused";
			run_warn("--working-set: cannot sample page faults here (%.*s); "
				 "the run goes on without a working set",
				 (int)strcspn(why, "\n"), why);
			st->working_set = false;
		}
		uint64_t id;
		for (size_t t = 0; st->working_set &&
		     (id = counters_sampler_id(cs, t, st->fault_sampler)); t++)
			if (modules_add_fault_id(st->mods, id)) {
				run_warn("cannot track the working set: out of memory");
				st->working_set = false;
			}
	}
	if (!cx->launched) {
		char *cause = NULL;
		if (modules_seed_proc(st->mods, (uint32_t)cx->pid, &cause)) {
			run_warn_cause(cause);
			run_hint("code modules mapped before the attach will be "
				 "missing");
		}
		free(cause);
	}
}

static void mods_drain(void *self, const struct perf_rec *rec, int origin)
{
	struct mods_state *st = self;
	modules_on_record(rec, origin, st->mods);
}

/* Read each module's sizes from its file (ELF), now that all are known. */
static void mods_finish(void *self, struct collect_ctx *cx)
{
	struct mods_state *st = self;
	char *cause = NULL;
	(void)cx;
	if (modules_finish(st->mods, &cause))
		run_warn_cause(cause);
	free(cause);
}

static char *strdup_or_null(const char *s, bool *oom)
{
	return s && *s ? fill_strdup(s, oom) : NULL;
}

static void fill_module(struct db_module *d, const struct module_info *mi,
			bool working_set, bool *oom)
{
	d->path = fill_strdup(mi->path, oom);
	d->kind = fill_strdup(mi->kind == MODULE_FILE ? "file" : "anon", oom);
	d->build_id = strdup_or_null(mi->build_id, oom);
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
	d->error = strdup_or_null(mi->error, oom);
}

/* The touched memory by kind, and its grain. */
static int fill_working_set(struct db_run *run, const struct working_set *ws,
			    char **cause)
{
	run->ws = calloc(WS_NKINDS, sizeof(*run->ws));
	if (!run->ws)
		return fill_oom(cause, "working set");
	run->nws = WS_NKINDS;
	bool oom = false;
	for (int k = 0; k < WS_NKINDS; k++) {
		run->ws[k].kind = fill_strdup(ws_kind_name((enum ws_kind)k), &oom);
		run->ws[k].touched_bytes = ws->kind[k].touched_bytes;
		run->ws[k].faulted_bytes = ws->kind[k].faulted_bytes;
		run->ws[k].faults = ws->kind[k].faults;
	}
	if (oom)
		return fill_oom(cause, "working set");
	db_set_u64(run, SET_WS_WINDOW_BYTES, ws->window_bytes);
	return 0;
}

static int mods_fill(void *self, struct collect_ctx *cx, struct db_run *run,
		     char **cause)
{
	struct mods_state *st = self;
	(void)cx;
	size_t n = modules_count(st->mods);
	run->modules = calloc(n ? n : 1, sizeof(*run->modules));
	if (!run->modules)
		return fill_oom(cause, "modules");
	run->nmodules = n;
	bool oom = false;
	for (size_t i = 0; i < n; i++)
		fill_module(&run->modules[i], modules_at(st->mods, i), st->working_set,
			    &oom);
	if (oom)
		return fill_oom(cause, "modules");
	return st->working_set ? fill_working_set(run, modules_working_set(st->mods),
						  cause) : 0;
}

const struct collector_ops collect_modules = {
	.name = "modules",
	.size = sizeof(struct mods_state),
	.prepare = mods_prepare,
	.opened = mods_opened,
	.drain = mods_drain,
	.finish = mods_finish,
	.fill = mods_fill,
	.release = mods_release,
};
