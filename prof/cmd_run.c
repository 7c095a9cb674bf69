/*
 * prof run: count events per thread for a launched command (or an attached
 * process), store the run, and print the per-thread table on stderr.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collectors/events.h"
#include "common/errtext.h"
#include "db/runs.h"
#include "db/tags.h"
#include "prof/run/run.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/repeat.h"
#include "reports/runs.h"
#include "reports/scaling.h"

struct run_args {
	const char *events;
	bool allow_generic;
	enum report_by by;
	const char *sleep_mode;
	bool working_set;
	bool allow_incomplete;
	bool no_multiplex;
	const char *dump;
	int interval_ms;	/* -I; 0: off */
	const char *tag;	/* --tag NAME, or NULL */
	int repeat;		/* -r N; 1: one run */
	const char *prepare;	/* --prepare CMD, or NULL */
	const char *cleanup;	/* --cleanup CMD, or NULL */
	bool simulate;		/* --simulate: counters from callgrind */
	const char *cache;	/* --cache SPEC for --simulate, or NULL */
};

/* A tag: a name that cannot be read as a list of run ids, so that
 * 'prof compare --set A=SPEC' knows which it was given. */
static int parse_tag(struct verb_ctx *vc, const char *arg, void *field)
{
	char buf[64];
	size_t n = strlen(arg), digits = strspn(arg, "0123456789,-");
	bool ok = n > 0 && n <= 64 && digits < n;
	for (size_t i = 0; ok && i < n; i++)
		ok = isalnum((unsigned char)arg[i]) || strchr("-_.+:", arg[i]);
	if (!ok)
		return usage_error(vc->name, "bad --tag '%s': use up to 64 letters, "
				   "digits, '-', '_', '.', '+' or ':', not only digits",
				   cli_echo(arg, buf, sizeof(buf)));
	*(const char **)field = arg;
	return 0;
}

static void run_init(void *args)
{
	struct run_args *a = args;
	a->events = "cache";
	a->by = BY_THREAD;
	a->repeat = 1;
}

/*
 * One run: launch, store, report. rep: a -r N series, which takes the
 * run's values and prints its own summary at the end (then a run's own
 * report is printed only when it could not be stored). Returns the exit
 * code.
 */
static int run_once(struct verb_ctx *vc, const struct runner_opts *ro,
		    struct pin_plan *plan, struct repeat_set *rep, struct run_sim *sim)
{
	const struct run_args *a = vc->args;
	const struct launch_args *l = &vc->launch;
	bool launched = l->pid == 0;
	int exit_code = EXIT_OK, rc;
	char *cause = NULL;
	struct db_run run;
	rc = runner_run(ro, &run, &cause);
	if (rc) {
		print_cause("error: ", cause);
		exit_code = launched ? exit_code_for_launch(rc) : EXIT_FAIL;
		free(cause);
		return exit_code;
	}
	/* Simulated: the counters are callgrind's, on the user's command;
	 * without its profiles the run is not stored as if counted. */
	if (sim && (rc = run_sim_fill(sim, &run, vc->argv, vc->argc, NULL, NULL, &cause))) {
		print_cause("error: ", cause);
		fprintf(stderr, "hint: the run was not stored\n");
		free(cause);
		db_run_release(&run);
		return EXIT_FAIL;
	}
	if (launched) {
		run.topology = plan->topology;
		plan->topology = NULL;
		if (!run.topology) {
			run.topology_fn = pin_plan_topology;
			run.topology_arg = plan;
		}
	}
	db_set_str(&run, SET_EVENTS, a->events);
	if (a->tag)
		db_set_str(&run, SET_TAG, a->tag);
	if (a->working_set)
		db_set_flag(&run, SET_WORKING_SET);
	if (rep) {
		char nth[48];
		snprintf(nth, sizeof(nth), "%zu/%zu", rep->nruns + 1, rep->asked);
		db_set_str(&run, SET_REPEAT, nth);
	}

	/* --no-multiplex: a run holding any estimate is printed, not stored. */
	char *mux = a->no_multiplex ? run_scaled_text(&run, SCALED_ANY) : NULL;
	struct timespec s0, s1;
	clock_gettime(CLOCK_MONOTONIC, &s0);
	char *store_cause = NULL;
	int store_rc = mux ? 0 : run_state_store(vc, &run, &store_cause);
	clock_gettime(CLOCK_MONOTONIC, &s1);
	if (verbose > 0) {
		struct rusage self;
		getrusage(RUSAGE_SELF, &self);
		fprintf(cli_talk(), "prof: workload %.3f s; stored %zu threads in %.3f s; "
			"prof itself used %.3f s user, %.3f s sys\n",
			run.wall_s, run.nthreads,
			(double)(s1.tv_sec - s0.tv_sec) + (double)(s1.tv_nsec - s0.tv_nsec) / 1e9,
			(double)self.ru_utime.tv_sec + (double)self.ru_utime.tv_usec / 1e6,
			(double)self.ru_stime.tv_sec + (double)self.ru_stime.tv_usec / 1e6);
	}
	/* Counts that could not be stored are printed even under -q, and on
	 * stderr when -o FILE failed too (a full disk takes both). In a
	 * series, only a run that was not stored prints its own report. */
	bool in_file = false;
	if (rep && store_rc) {
		report_run(&run, a->by, vc->fmt, stderr);
	} else if (!rep && (!l->quiet || vc->out_path || store_rc)) {
		bool ok = run_state_print(vc, &run, a->by, vc->fmt, store_rc != 0);
		if (!ok)
			exit_code = EXIT_FAIL;
		in_file = ok && vc->out_path;
	}
	/* A launched run exits as its workload did; an attach exits 0. */
	if (launched && exit_code == EXIT_OK)
		exit_code = run.exit_status;
	if (a->interval_ms && run.wall_s * 1000.0 < a->interval_ms)
		note_msg("-I %d is longer than the run (%.0f ms): "
			"one interval holds it all", a->interval_ms,
			run.wall_s * 1000.0);
	run_frames_warn(&run, &vc->frame);
	exit_code = run_incomplete_exit(&run, a->allow_incomplete, exit_code);
	if (mux) {
		error_msg("run refused (--no-multiplex), not stored: not every "
			  "event was counted all of the time: %s", mux);
		fprintf(stderr, "hint: count fewer hardware events at once (-e), "
			"so that each group fits the PMU's counters, or drop "
			"--no-multiplex to keep the scaled estimates\n");
		free(mux);
		exit_code = EXIT_FAIL;
	}
	if (store_rc) {
		run_state_not_stored(store_cause, in_file ? vc->out_path : NULL);
		exit_code = EXIT_FAIL;
	}
	if (rep)
		repeat_set_add(rep, &run);
	free(store_cause);
	db_run_release(&run);
	return exit_code;
}

/*
 * -r N: N stored runs, one after another, then the summary of their
 * spread. A run that cannot start, or a Ctrl-C, ends the series; the
 * summary covers the runs that ran. Exits with the first run's failure
 * (its workload's status, an incomplete run, a store that failed), else 0.
 */
static int run_repeated(struct verb_ctx *vc, struct runner_opts *ro,
			struct pin_plan *plan, struct run_sim *sim)
{
	const struct run_args *a = vc->args;
	struct repeat_set rep;
	char *cmd = run_state_command_line(vc->argv, vc->argc);
	repeat_set_init(&rep, cmd, (size_t)a->repeat);
	free(cmd);
	int exit_code = EXIT_OK;
	/* No run's report follows: the first one says which events the
	 * machine refused, and the pin, and the others keep quiet. */
	ro->report_follows = false;
	for (int i = 0; i < a->repeat; i++) {
		size_t ran = rep.nruns;
		int rc = run_once(vc, ro, plan, &rep, sim);
		ro->quiet = true;
		if (exit_code == EXIT_OK)
			exit_code = rc;
		if (rep.nruns == ran || runner_interrupted())
			break;	/* it did not start, or the user said stop */
	}
	if (!vc->launch.quiet || vc->out_path) {
		FILE *fp = verb_out(vc);
		if (fp)
			report_repeat(&rep, vc->fmt, fp);
		if (!fp || verb_out_close(vc))
			exit_code = EXIT_FAIL;
	}
	repeat_set_release(&rep);
	/* Stopped before its N runs: not a success, whatever the runs that
	 * finished said; the status names the signal, as a shell does. */
	if (runner_interrupted() && exit_code == EXIT_OK)
		exit_code = runner_stop_exit_code();
	return exit_code;
}

/* The options that do not go together: 0, or EXIT_USAGE said. */
static int run_check_options(struct verb_ctx *vc)
{
	const struct run_args *a = vc->args;
	const struct launch_args *l = &vc->launch;
	if (l->pid && a->repeat > 1)
		return usage_error(vc->name, "-r applies to a launched command: an "
				   "attached process runs once");
	if (a->dump && a->repeat > 1)
		return usage_error(vc->name, "--record-dump saves one run's records: "
				   "leave out -r");
	if (l->pid && a->sleep_mode)
		return usage_error(vc->name, "--sleep-mode applies to a launched "
				   "command: it preloads an interposer at exec");
	if (l->pid && a->simulate)
		return usage_error(vc->name, "--simulate applies to a launched command: "
				   "it runs under valgrind from its start");
	if (a->cache && !a->simulate)
		return usage_error(vc->name, "--cache sets the caches --simulate "
				   "simulates: give --simulate too");
	if (a->simulate && (a->working_set || a->interval_ms || frame_args_any(&vc->frame)))
		return usage_error(vc->name, "--simulate gives each thread's totals: "
				   "--working-set, -I and frames count the real "
				   "machine (and would count valgrind)");
	if (l->pid && (a->prepare || a->cleanup))
		return usage_error(vc->name, "--prepare and --cleanup go with a "
				   "launched command: an attached process runs once, "
				   "already started");
	return 0;
}

/*
 * The events to count, into *evs: 0, or the exit code said. Simulated,
 * the hardware counters are callgrind's: the software events (default
 * task-clock, context-switches, page-faults) count what valgrind itself
 * cost.
 */
static int run_events(struct verb_ctx *vc, struct event_desc **evs, size_t *nev)
{
	const struct run_args *a = vc->args;
	char *cause = NULL;
	const char *events = a->simulate ? run_sim_events(a->events) : a->events;
	int rc = event_list_parse(events, a->allow_generic ? EVENT_ALLOW_GENERIC : 0,
				  evs, nev, &cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	for (size_t i = 0; a->simulate && i < *nev; i++)
		if ((*evs)[i].hardware) {
			event_list_free(*evs, *nev);
			*evs = NULL;
			*nev = 0;
			return usage_error(vc->name, "with --simulate the hardware counters "
					   "are simulated: -e takes software events only");
		}
	return 0;
}

/*
 * A command that cannot run is refused before anything is opened or
 * stored (127, as a shell says), as is a process to attach to that does
 * not exist (a usage error: README). 0, or the exit code said.
 */
static int run_target_check(struct verb_ctx *vc)
{
	const struct launch_args *l = &vc->launch;
	char *cause = NULL;
	if (l->pid == 0) {
		char *path = launch_resolve(vc->argv[0], &cause);
		if (!path)
			return fail_cause(cause, EXIT_NOT_RUN);
		free(path);
	} else if (kill((pid_t)l->pid, 0) != 0 && errno == ESRCH) {
		error_msg("cannot attach to process %ld: no such process", l->pid);
		return EXIT_USAGE;
	}
	return 0;
}

/* The sleep interposer: words checked (exit 2), library found (exit 1),
 * both before the workload starts. 0, or the exit code said. */
static int run_sleep_setup(struct verb_ctx *vc, struct sleep_plan *sleep)
{
	const struct run_args *a = vc->args;
	char *cause = NULL;
	if (!a->sleep_mode)
		return 0;
	if (sleep_plan_parse(sleep, a->sleep_mode, &cause))
		return verb_usage_cause(vc, cause);
	if (sleep_plan_locate(sleep, &cause))
		return fail_cause(cause, EXIT_FAIL);
	sleep_plan_check(sleep, vc->argv[0]);
	return 0;
}

static int cmd_run(struct verb_ctx *vc)
{
	const struct run_args *a = vc->args;
	const struct launch_args *l = &vc->launch;
	char *cause = NULL;
	struct event_desc *evs = NULL;
	size_t nev = 0;
	int rc = run_check_options(vc);
	if (rc || (rc = run_events(vc, &evs, &nev)))
		return rc;

	int exit_code = EXIT_OK, late;
	/* Settled below; empty now, as out_early releases them. */
	struct pin_plan plan;
	memset(&plan, 0, sizeof(plan));
	struct sleep_plan sleep;
	memset(&sleep, 0, sizeof(sleep));
	sleep.fd = -1;
	struct run_sim sim;
	memset(&sim, 0, sizeof(sim));
	bool launched = l->pid == 0;

	if ((rc = run_target_check(vc))) {
		event_list_free(evs, nev);
		return rc;
	}

	/* The pin is settled before anything starts: a bad one is a usage
	 * error, an unreadable topology for largest-llc a warning. */
	if (launched && (rc = pin_plan_for_launch(&plan, l->pin, l->affinity, l->sysfs))) {
		pin_plan_release(&plan);
		event_list_free(evs, nev);
		return rc;
	}
	if (!launched)
		pin_note_attach(l->pid, l->affinity);

	if ((exit_code = run_sleep_setup(vc, &sleep)))
		goto out_early;

	if (a->simulate && (rc = run_sim_prepare(&sim, vc->argv, a->cache, l->sysfs, &cause))) {
		if (rc == -EINVAL) {
			exit_code = verb_usage_cause(vc, cause);
		} else {
			print_cause("error: ", cause);
			free(cause);
			exit_code = EXIT_FAIL;
		}
		cause = NULL;
		goto out_early;
	}

	struct db *db = verb_db(vc);
	if (!db)
		fprintf(stderr, "hint: the workload still runs and its counts are "
			"printed, but they will not be stored\n");
	FILE *dump = NULL;
	if (a->dump && !(dump = fopen(a->dump, "wb"))) {
		char buf[64];
		exit_code = error_msg("cannot open '%s' for writing: %s",
				      cli_echo(a->dump, buf, sizeof(buf)), ERR_TEXT(errno));
		goto out;
	}

	struct runner_opts ro = {
		.argv = !launched ? NULL : a->simulate ? sim.argv : vc->argv,
		.argc = !launched ? 0 : a->simulate ? sim.argc : vc->argc,
		.attach_pid = (pid_t)l->pid,
		.duration_s = l->duration,
		.timeout_s = l->timeout,
		.sysfs_root = l->sysfs,
		.evs = evs, .nev = nev,
		.quiet = l->quiet,
		.report_follows = !vc->out_path,
		.plan = launched ? &plan : NULL,
		.out_fd = -1,
		.mmap_pages = (size_t)l->mmap_pages,	/* 0: the collectors size them */
		.working_set = a->working_set,
		.record_dump = dump,
		.sleep = a->sleep_mode ? &sleep : NULL,
		.interval_ms = (unsigned)a->interval_ms,
		.window = l->win,
		.frame = vc->frame,
		.prepare = a->prepare,
		.cleanup = a->cleanup,
	};
	/* A signal while the run is stored or printed must not lose it: it
	 * stops a wait on a locked database, and prof exits 128+N after. */
	runner_hold_signals();
	if (db)
		db_set_busy_stop(db, runner_late_signal, NULL);
	if (a->repeat > 1) {
		exit_code = run_repeated(vc, &ro, &plan, a->simulate ? &sim : NULL);
		goto out;
	}
	exit_code = run_once(vc, &ro, &plan, NULL, a->simulate ? &sim : NULL);
out:
	late = runner_release_signals();
	if (late)
		exit_code = EXIT_SIGNAL + late;
	if (dump)
		fclose(dump);
out_early:
	run_sim_release(&sim);
	sleep_plan_release(&sleep);
	pin_plan_release(&plan);
	event_list_free(evs, nev);
	free(cause);
	return exit_code;
}

static int parse_by(struct verb_ctx *vc, const char *arg, void *field)
{
	char buf[64];
	if (report_by_parse(arg, field))
		return usage_error(vc->name, "bad --by '%s': expected thread, name, "
				   "process or total", cli_echo(arg, buf, sizeof(buf)));
	return 0;
}

static const struct opt run_opts[] = {
	OPT_STRING('e', "events", struct run_args, events, "LIST",
		   "comma-separated events (default: cache, which is\n"
		   "the mission counters llc-misses, itlb-misses,\n"
		   "l1i-misses, branch-misses, instructions, cycles,\n"
		   "then task-clock, context-switches,\n"
		   "cpu-migrations, page-faults). Names as perf takes\n"
		   "them, the CPU's own names, and :u / :k modifiers;\n"
		   "'prof events' lists them, and 'prof events\n"
		   "--mission' which event stands behind each mission\n"
		   "counter on this processor"),
	OPT_BOOL(0, "allow-generic", struct run_args, allow_generic,
		 "on a processor the mission map lacks, count perf's\n"
		 "generic LLC-load-misses, iTLB-load-misses and\n"
		 "L1-icache-load-misses for llc-misses, itlb-misses\n"
		 "and l1i-misses (otherwise -e refuses them and the\n"
		 "default set reports them not supported: their\n"
		 "meaning is the kernel's table's, which on some\n"
		 "processors has no such event or a wrong one)"),
	OPT_INCLUDE(opt_launch),
	OPT_CALLBACK(0, "by", struct run_args, by, "MODE", parse_by,
		     "thread (default), name (sum threads sharing a\n"
		     "name), process (sum each process's threads), or\n"
		     "total"),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_INT('r', "repeat", struct run_args, repeat, "N", 1, 100000, "a count of runs",
		"run COMMAND N times, storing each run, and print\n"
		"the spread of each metric over them (mean, sd,\n"
		"min, max) instead of each run's table"),
	OPT_STRING(0, "prepare", struct run_args, prepare, "CMD",
		   "run CMD (/bin/sh -c) before each run, not counted\n"
		   "nor timed: a failure stops before that run"),
	OPT_STRING(0, "cleanup", struct run_args, cleanup, "CMD",
		   "run CMD after each run, not counted nor timed"),
	OPT_STRING(0, "sleep-mode", struct run_args, sleep_mode,
		   "MODE[,threshold=US][,max-spinners=K]",
		   "serve the workload's short sleeps (nanosleep,\n"
		   "clock_nanosleep, usleep under US, default 1000)\n"
		   "another way, through a preloaded interposer:\n"
		   "passthrough (measure only), slack1, timerfd, yield,\n"
		   "spin, hybrid[:MARGIN_US]; max-spinners=K lets at\n"
		   "most K threads spin or yield at once (0: no cap;\n"
		   "unset: a quarter of the CPUs, at least 1). Short\n"
		   "condvar timed waits are served too, by timer slack\n"
		   "1 ns in every mode but passthrough (no other way\n"
		   "keeps their wakeups). The report shows, per thread,\n"
		   "the sleeps and the condvar waits served and passed\n"
		   "through, and the overshoot achieved"),
	OPT_BOOL(0, "working-set", struct run_args, working_set,
		 "also measure the memory the workload touched: every\n"
		 "page fault is sampled (period 1, with its address)\n"
		 "and counted once per page, for its code module or\n"
		 "its kind of data (heap, stack, anonymous, file-backed);\n"
		 "'prof modules' lists the modules. Opt-in, as every\n"
		 "fault then writes a sample: 1.3x the wall time of a\n"
		 "plain run for a workload that faults in 1 GiB of\n"
		 "fresh memory (bench/working-set)"),
	OPT_BOOL(0, "allow-incomplete", struct run_args, allow_incomplete,
		 "exit with COMMAND's status even when the run is\n"
		 "incomplete (see below)"),
	OPT_BOOL(0, "no-multiplex", struct run_args, no_multiplex,
		 "refuse a run whose events were not all counted all\n"
		 "of the time (a multiplexed group's value is scaled\n"
		 "by time enabled / time running: an estimate): it is\n"
		 "printed, with what was scaled, not stored, and prof\n"
		 "exits 1"),
	OPT_INT('I', "interval", struct run_args, interval_ms, "MS", 10, 3600000,
		"a number of milliseconds, 10 or more",
		"also store every thread's counter deltas per\n"
		"interval of MS milliseconds (10 or more), and print a\n"
		"compact timeline per thread name at the end; 'prof\n"
		"report --intervals' lists them. Software events only;\n"
		"needs Linux 6.12 or later (docs/intervals.md)"),
	OPT_CALLBACK(0, "tag", struct run_args, tag, "NAME", parse_tag,
		     "store the run with this tag: 'prof compare --set\n"
		     "A=NAME --set B=OTHER' compares sets of runs taken\n"
		     "apart (before and after a reboot, a BIOS setting)"),
	OPT_INCLUDE(opt_frames),
	OPT_BOOL(0, "simulate", struct run_args, simulate,
		 "no PMU? simulate the hardware counters: the command\n"
		 "runs under valgrind's callgrind, and each thread\n"
		 "gets instructions, l1i-misses, l1d-misses,\n"
		 "llc-misses, branch-misses and estimated cycles from\n"
		 "its cache and branch model, the same every run\n"
		 "(30x to 100x slower; see below)"),
	OPT_STRING(0, "cache", struct run_args, cache, "SPEC",
		   "with --simulate, the caches to simulate, e.g.\n"
		   "L1I=32K:8:64,L1D=48K:12:64,LL=96M:16:64 (size,\n"
		   "ways, line; default: this machine's, from sysfs)"),
	OPT_STRING(0, "record-dump", struct run_args, dump, "FILE",
		   "save the raw ring-buffer records (for tests)"),
	OPT_END(),
};

static const char run_help[] =
"usage: prof run [options] [--] COMMAND [ARGS...]\n"
"       prof run [options] -p PID [--duration SECONDS]\n"
"\n"
"Count events for every thread of COMMAND, including threads it creates\n"
"later and short-lived ones, store the run in the database, and print a\n"
"per-thread table on stderr (COMMAND's own output is left alone). prof\n"
"exits with COMMAND's status (128+N when killed by signal N).\n"
"\n";

static const char run_tail[] =
"Every run checks that it is complete: each task that started has its\n"
"start record and its own counts, no ring-buffer record was lost or torn,\n"
"and the main task's task-clock agrees with the scheduler's own account of\n"
"it. A run that fails the check is stored and reported as incomplete, with\n"
"the reasons (\"complete\": false and \"reasons\" in JSON), and prof exits 1\n"
"when COMMAND succeeded, unless --allow-incomplete. The totals stay whole.\n"
"\n"
"A tracepoint is an event too: -e sched:sched_switch,syscalls:sys_enter_futex\n"
"counts its hits per thread by its tracefs id (/sys/kernel/tracing, which\n"
"must be mounted; no PMU needed).\n"
"\n"
"Events the machine cannot count are reported as not supported, never as\n"
"zero, and the run goes on with the rest. Ctrl-C and SIGTERM reach every\n"
"process of the workload; what was counted up to then is stored, marked\n"
"interrupted, and what the workload leaves running is ended. A second\n"
"Ctrl-C or SIGTERM kills the workload (SIGKILL). If prof itself is\n"
"killed, the kernel kills the workload's first process. --timeout ends\n"
"the workload the same way when it runs too long: the run is stored and\n"
"marked timed out (\"timed_out\": true in JSON), and prof exits with the\n"
"workload's status (143 after SIGTERM, 137 after SIGKILL).\n"
"\n"
"With -r N the runs are stored one by one (each with the setting repeat,\n"
"\"2/5\"), and the report is the spread of each metric over them, as\n"
"perf stat -r gives it; JSON has command, repeat, ran, timed_out,\n"
"interrupted, runs (the run ids) and metrics (name to {n, mean, sd,\n"
"sd_pct, min, max}; time events in nanoseconds). A Ctrl-C ends the series.\n"
"prof exits with the first failing run's status, else 0.\n"
"\n"
"--prepare CMD runs before every run (each of -r N) and --cleanup CMD\n"
"after it, as hyperfine's do: through /bin/sh -c, in the workload's\n"
"working directory and environment, but unpinned and before the counters\n"
"open (after they are read): neither is counted or timed. Their stdout is\n"
"discarded, their stderr is prof's. A prepare that exits non-zero stops\n"
"prof before that run, saying so, with exit 1; the runs already stored\n"
"are kept. A cleanup that fails is a warning; none runs after a Ctrl-C.\n"
"Both are stored as the run's settings prepare and cleanup (\"settings\"\n"
"in JSON) and shown in the -r report.\n"
"\n"
"--simulate runs COMMAND under valgrind --tool=callgrind --cache-sim=yes\n"
"--branch-sim=yes, one profile per thread and process. The counts are a\n"
"model (an inclusive last level, LRU, no prefetchers, no TLB, threads run\n"
"one at a time): compare them with each other, not with a PMU's. cycles is\n"
"an estimate: L1 hits + 5 x LL hits + 35 x LL misses. The run is stored\n"
"with counter_source simulated and sim.model (valgrind's version and the\n"
"geometry); its task-clock and other software events count valgrind.\n"
"\n"
"If the database cannot be written (a missing or read-only directory, a\n"
"full disk, another writer holding the lock for longer than\n"
"$PROF_DB_TIMEOUT seconds, default 10), the report is printed anyway,\n"
"even with -q, prof says why it was not stored, and exits 1.\n"
"\n"
"Examples:\n"
"  prof run -- ./build/bin/prof-demo\n"
"  prof run -e task-clock,page-faults --by name --format json -- make -j8\n"
"  prof run --pin largest-llc -- ./emulator --scene 3\n"
"  prof run -p 1234 --duration 10\n"
"  prof run -r 10 --timeout 60 -e task-clock -- ./bench\n"
"  prof run -r 5 --prepare 'rm -rf obj' -e task-clock -- make -j8\n"
"  prof run --simulate --cache LL=96M -- ./emulator --scene 3\n"
"\n"
"The pin is applied before the command starts, so every thread it spawns\n"
"inherits it; the run records the mode, whether it was applied, the CPUs\n"
"in force (read back from the workload) and the cache domain's size.\n";

VERB(run, run_args, .init = run_init, .max_operands = VERB_ANY_OPERANDS);
