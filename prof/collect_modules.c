/*
 * collect_modules: the code modules every run maps (MMAP2 records with
 * build ids, from the counters' side-band) and, with --working-set, the
 * memory it touched (data mappings too, and a page-fault sampler with
 * the faults' addresses). A collector (prof/collector.h); what it finds
 * becomes the run's modules and working set in prof/convert.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/modules.h"
#include "common/errtext.h"
#include "prof/cli.h"
#include "prof/collector.h"
#include "prof/convert.h"
#include "prof/runner.h"

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
		warning_msg("cannot track code modules: %s", ERR_TEXT(errno));
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
			warning_msg("--working-set: cannot sample page faults here (%.*s); "
				    "the run goes on without a working set",
				    (int)strcspn(why, "\n"), why);
			st->working_set = false;
		}
		uint64_t id;
		for (size_t t = 0; st->working_set &&
		     (id = counters_sampler_id(cs, t, st->fault_sampler)); t++)
			if (modules_add_fault_id(st->mods, id)) {
				warning_msg("cannot track the working set: out of memory");
				st->working_set = false;
			}
	}
	if (!cx->launched) {
		char *cause = NULL;
		if (modules_seed_proc(st->mods, (uint32_t)cx->pid, &cause)) {
			print_cause("warning: ", cause);
			fprintf(cli_talk(), "hint: code modules mapped before the attach "
				"will be missing\n");
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
		print_cause("warning: ", cause);
	free(cause);
}

static void mods_fill(void *self, struct collect_ctx *cx, struct db_run *run)
{
	struct mods_state *st = self;
	(void)cx;
	convert_modules(run, st->mods, st->working_set);
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
