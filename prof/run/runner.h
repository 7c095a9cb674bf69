/*
 * runner: one counted run, start to finish, for every verb that runs a
 * workload (run, ab, record). A launched command is forked with its
 * settings (pin, environment, working directory, where its output goes),
 * the counters are opened on it, it is released and drained while it
 * runs, and reaped; or an existing process is attached to (-p) until it
 * exits, a duration ends, or Ctrl-C. What it collects, it collects
 * through prof/run/collector.h's steps, one collector after another: the
 * counters, each thread's process and its parent, code modules (always;
 * the touched working set on request), the sleep interposer's report
 * (--sleep-mode), and the verb's own. The result is a struct db_run
 * ready to store.
 *
 * Ctrl-C and SIGTERM reach every process of a launched workload (a
 * terminal's Ctrl-C already did; a kill(1) of prof is forwarded) and mark
 * the run interrupted; a second one kills them (SIGKILL), and whatever
 * the workload leaves running once its first process is gone is ended
 * too. A launch with a timeout is ended the same way when it runs past
 * it: SIGTERM to every process, SIGKILL after a grace period. An attach
 * just stops counting. Not thread-safe (signal handlers).
 */
#ifndef PROF_RUNNER_H
#define PROF_RUNNER_H

#ifndef PROF_RUN_H
#error "include prof/run/run.h, the run engine's one public header"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "collectors/counters.h"
#include "collectors/frames.h"
#include "collectors/events.h"
#include "db/runs.h"
#include "prof/run/collector.h"
#include "prof/run/pin.h"
#include "prof/run/sleepmode.h"

struct runner_opts {
	char **argv;			/* NULL-terminated; NULL when attaching */
	int argc;
	pid_t attach_pid;		/* > 0: attach instead of launching */
	double duration_s;		/* attach: stop after this; 0: no limit */
	double timeout_s;		/* launch: SIGTERM the workload after
					   this, SIGKILL RUNNER_TIMEOUT_GRACE_S
					   later; 0: no limit */
	const struct event_desc *evs;
	size_t nev;
	const struct pin_plan *plan;	/* may be NULL: unpinned */
	char **env_set;			/* "K=V", NULL-terminated, or NULL */
	const char *cwd;		/* or NULL */
	/* Shell commands run before and after a launched workload
	 * (--prepare, --cleanup), outside what is counted and timed; see
	 * runner_run. NULL: none. */
	const char *prepare;
	const char *cleanup;
	int out_fd;			/* -1: the workload keeps prof's stdout/stderr */
	int stderr_fd;			/* > 0 with out_fd: its stderr apart */
	size_t mmap_pages;		/* 0: default */
	const char *sysfs_root;		/* --sysfs: sys/ of the machine's
					   settings below it; NULL: / */
	bool quiet;			/* do not print the pin sentence or the
					   unsupported-event warning */
	bool report_follows;		/* the verb prints a report on stderr
					   at the end, whose footer names the
					   unsupported events: no warning first */
	const char *kind;		/* the stored run's kind; NULL: "run"/"attach" */
	bool working_set;		/* sample page faults with their address */
	struct sleep_plan *sleep;	/* --sleep-mode (launch only), or NULL */
	FILE *record_dump;		/* save the raw records (tests replay them) */
	unsigned interval_ms;		/* -I: counters per interval; 0: off */
	/* --window: count only from START to END seconds after the launch
	 * (prof/run/collect_window.c) or over frames N to M (the frames
	 * collector); all zero: the whole run */
	struct window_spec window;
	/* With a window: the workload's stdout lines that arrived inside it
	 * are written here once the run ends (prof ab's scores; the frames
	 * collector stamps each line as it arrives); 0: none */
	int window_lines_fd;
	struct frame_args frame;	/* frames and counters per frame */

	/* The verb's own collector, driven after the built-in ones
	 * (prof/run/collector.h) with collector_arg as its state; or NULL. */
	const struct collector_ops *collector;
	void *collector_arg;
};

/* How long a timed-out workload has between SIGTERM and SIGKILL. */
#define RUNNER_TIMEOUT_GRACE_S 2.0

/*
 * Run it. 0 when the workload ran (its status is in run->exit_status,
 * run->interrupted says whether a signal ended it, and the settings
 * "timeout_s" and "timed_out" whether o->timeout_s was given and ended it); -ENOENT or -EACCES
 * with *cause when a command could not be started (a shell's 127);
 * -ESRCH when the process to attach to does not exist; other -errno with
 * *cause for operational failures, -ENOMEM among them when the workload
 * ran but its run could not be filled (a collector's fill, which says
 * what was lost; nothing is left to release then). On 0 run is filled
 * (host, events, threads, pin, modules) and the caller releases it.
 *
 * A launch with o->prepare runs it first through /bin/sh -c, with the
 * workload's working directory and the verb's environment (o->env_set;
 * not what the collectors add, such as the sleep interposer), unpinned,
 * before the run's cgroup and counters exist: nothing of it is counted
 * or timed. Its stdout is discarded; its stderr is prof's. When it exits
 * non-zero the workload is not started: -ECANCELED with *cause naming
 * the command and its status (-EINTR when a signal stopped it). Likewise
 * o->cleanup, after the counters are read and the run filled, unless a
 * signal ended the run; a failing cleanup is a warning and the setting
 * "cleanup_status" (the run stands). Both commands are the run's
 * settings "prepare" and "cleanup".
 */
int runner_run(const struct runner_opts *o, struct db_run *run, char **cause);

/* True once a Ctrl-C or SIGTERM arrived during any runner_run (sticky). */
bool runner_interrupted(void);

/* The exit status of a command stopped by a signal, as a shell reports
 * one: 128 + the first signal prof caught (130 SIGINT, 143 SIGTERM, 129
 * SIGHUP, 131 SIGQUIT); 130 when none was caught. */
int runner_stop_exit_code(void);

/*
 * Keep catching Ctrl-C, SIGTERM, SIGHUP and SIGQUIT from before
 * runner_run until runner_release_signals(), so that one arriving after
 * the workload ended (while the run is stored, or printed) cannot kill
 * prof with the counts unprinted. runner_late_signal() says whether one
 * did (a db busy-wait stop callback: give up waiting on a lock);
 * runner_release_signals() restores the dispositions and returns that
 * signal, or 0.
 */
void runner_hold_signals(void);
int runner_release_signals(void);
bool runner_late_signal(void *unused);

/* Whether a signal arrived while held or during a run: the stop flag of
 * a verb that measures in prof itself (sleep, probe), safe to poll from
 * any thread. */
bool runner_stop_asked(void *unused);

#endif
