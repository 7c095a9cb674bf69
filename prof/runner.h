/*
 * runner: one counted run of a launched command, start to finish: fork
 * with its settings (pin, environment, working directory, where its output
 * goes), open the counters, release it, drain while it runs, reap it, and
 * fill a struct db_run ready to store. Ctrl-C and SIGTERM are forwarded to
 * the workload and reported back as "interrupted". The verbs that launch
 * workloads (run, ab, record) share it. Not thread-safe (signal handlers).
 */
#ifndef PROF_RUNNER_H
#define PROF_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "collectors/counters.h"
#include "collectors/events.h"
#include "db/runs.h"
#include "prof/pin.h"

struct runner_opts {
	char **argv;			/* NULL-terminated */
	int argc;
	const struct event_desc *evs;
	size_t nev;
	const struct pin_plan *plan;	/* may be NULL: unpinned */
	char **env_set;			/* "K=V", NULL-terminated, or NULL */
	const char *cwd;		/* or NULL */
	int out_fd;			/* -1: the workload keeps prof's stdout/stderr */
	size_t mmap_pages;		/* 0: default */
	bool quiet;			/* do not print the pin sentence or the
					   unsupported-event warning */
	/* prof record: the run's kind ("run" when NULL), sampling events
	 * opened beside the counting ones, and where decoded records go. */
	const char *kind;
	const struct sampler_desc *samplers;
	size_t nsamplers;
	void (*on_record)(const struct perf_rec *rec, int origin, void *arg);
	void *rec_arg;
	void (*record_hook)(const void *rec, size_t len, void *arg);
	void *hook_arg;
	/* Called once the counters are open on the child, before it is
	 * released; a non-zero return (a negative errno, with *cause) kills
	 * the child and runner_run returns it. May be NULL. */
	int (*opened)(struct counters *cs, void *arg, char **cause);
	void *opened_arg;
};

/*
 * Run it. 0 when the workload ran (its status is in run->exit_status;
 * run->interrupted says whether a signal ended it); -ENOENT/-EACCES with
 * *cause when the command could not be started (a shell's 127), other
 * -errno with *cause for operational failures (counters, fork). run is
 * filled on 0 and must then be released by the caller.
 */
int runner_run(const struct runner_opts *o, struct db_run *run, char **cause);

/* True once a Ctrl-C or SIGTERM arrived during any runner_run (sticky). */
bool runner_interrupted(void);

#endif
