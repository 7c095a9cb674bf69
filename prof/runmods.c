/*
 * runmods: code modules and the working set for `prof run`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errtext.h"
#include "prof/cli.h"
#include "prof/runmods.h"

void run_mods_init(struct run_mods *rm, bool working_set, struct counters_opts *co)
{
	memset(rm, 0, sizeof(*rm));
	rm->working_set = working_set;
	struct modules_opts mo = { .working_set = working_set };
	rm->mods = modules_new(&mo);
	if (!rm->mods) {
		warning_msg("cannot track code modules: %s", ERR_TEXT(errno));
		return;
	}
	co->flags |= COUNTERS_BUILD_ID;
	co->on_record = modules_on_record;
	co->rec_arg = rm->mods;
	if (!working_set)
		return;
	co->flags |= COUNTERS_MMAP_DATA;
	struct sampler_desc *sd = &rm->fault_sampler;
	sd->name = "page-faults";
	sd->attr.type = PERF_TYPE_SOFTWARE;
	sd->attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	sd->attr.sample_period = 1;
	sd->attr.sample_type = PERF_SAMPLE_ADDR;
	co->samplers = sd;
	co->nsamplers = 1;
}

void run_mods_opened(struct run_mods *rm, const struct counters *cs,
		     pid_t attach_pid)
{
	if (!rm->mods)
		return;
	if (rm->working_set) {
		const struct counter_status *st = counters_sampler_status(cs, 0);
		if (!st || !st->supported) {
			const char *why = st && st->reason ? st->reason : "refused";
			warning_msg("--working-set: cannot sample page faults here (%.*s); "
				    "the run goes on without a working set",
				    (int)strcspn(why, "\n"), why);
			rm->working_set = false;
		}
		uint64_t id;
		for (size_t t = 0; rm->working_set && (id = counters_sampler_id(cs, t, 0)); t++)
			if (modules_add_fault_id(rm->mods, id)) {
				warning_msg("cannot track the working set: out of memory");
				rm->working_set = false;
			}
	}
	if (attach_pid > 0) {
		char *cause = NULL;
		if (modules_seed_proc(rm->mods, (uint32_t)attach_pid, &cause)) {
			print_cause("warning: ", cause);
			fprintf(stderr, "hint: code modules mapped before the attach "
				"will be missing\n");
		}
		free(cause);
	}
}

static char *xstrdup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

void run_mods_fill(struct run_mods *rm, struct db_run *run)
{
	if (!rm->mods)
		return;
	char *cause = NULL;
	if (modules_finish(rm->mods, &cause)) {
		print_cause("warning: ", cause);
		free(cause);
		cause = NULL;
	}
	size_t n = modules_count(rm->mods);
	run->modules = calloc(n ? n : 1, sizeof(*run->modules));
	if (!run->modules)
		return;
	run->nmodules = n;
	for (size_t i = 0; i < n; i++) {
		const struct module_info *mi = modules_at(rm->mods, i);
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
		d->has_touched = rm->working_set;
		d->touched_bytes = mi->touched_bytes;
		d->faulted_bytes = mi->faulted_bytes;
		d->faults = mi->faults;
		d->touched_replayed = mi->touched_replayed;
		d->error = xstrdup_or_null(mi->error);
	}
	if (!rm->working_set)
		return;
	const struct working_set *ws = modules_working_set(rm->mods);
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

void run_mods_dump_samplers(const struct counters *cs,
			    const struct counters_opts *co, FILE *fp)
{
	for (size_t i = 0; i < co->nsamplers; i++) {
		const struct perf_rec_layout *l = counters_sampler_layout(cs, i);
		struct ring_dump_sampler s;
		memset(&s, 0, sizeof(s));
		s.id = counters_sampler_id(cs, 0, i);
		if (l) {
			s.sample_type = l->sample_type;
			s.read_format = l->read_format;
			s.regs_user_mask = l->regs_user_mask;
		}
		snprintf(s.name, sizeof(s.name), "%s", co->samplers[i].name);
		fwrite(&s, sizeof(s), 1, fp);
	}
}

void run_mods_release(struct run_mods *rm)
{
	modules_free(rm->mods);
	rm->mods = NULL;
}
