/*
 * runmods: what a launching verb adds to its counters for code modules
 * (always: MMAP2 records with build ids) and, with --working-set, for the
 * touched working set (data mappings and a page-fault sampler), and how
 * the result lands in the stored run.
 *
 * Use: run_mods_init() before counters_new() (it fills the options),
 * run_mods_opened() after the events are open on every target,
 * run_mods_fill() after counters_finish(), run_mods_release() at the end.
 * Owned by the caller; not thread-safe.
 */
#ifndef PROF_RUNMODS_H
#define PROF_RUNMODS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "collectors/counters.h"
#include "collectors/modules.h"
#include "db/runs.h"

struct run_mods {
	bool working_set;
	struct sampler_desc fault_sampler;
	struct modules *mods;	/* NULL when it could not be set up */
};

/*
 * Set co up for modules (and the working set): flags, the sampler and
 * the record callback (co->on_record must be free). A failure to set up
 * is printed as a warning and the run goes on without modules.
 */
void run_mods_init(struct run_mods *rm, bool working_set, struct counters_opts *co);

/*
 * After the events are open on every target: learn the fault sampler's
 * ids; with attach_pid, read the process's existing mappings.
 */
void run_mods_opened(struct run_mods *rm, const struct counters *cs,
		     pid_t attach_pid);

/* After counters_finish(): build the modules and put them in run. */
void run_mods_fill(struct run_mods *rm, struct db_run *run);

/* Write the sampler entries of a --record-dump header (co's samplers). */
void run_mods_dump_samplers(const struct counters *cs,
			    const struct counters_opts *co, FILE *fp);

void run_mods_release(struct run_mods *rm);

#endif
