/*
 * prof run: count events per thread for a launched command (or an attached
 * process), store the run, and print the per-thread table on stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collectors/events.h"
#include "db/runs.h"
#include "prof/cli.h"
#include "prof/commands.h"
#include "prof/launch.h"
#include "prof/pin.h"
#include "prof/runner.h"
#include "prof/runutil.h"
#include "reports/runs.h"

const char cmd_run_help[] =
"usage: prof run [options] [--] COMMAND [ARGS...]\n"
"       prof run [options] -p PID [--duration SECONDS]\n"
"\n"
"Count events for every thread of COMMAND, including threads it creates\n"
"later and short-lived ones, store the run in the database, and print a\n"
"per-thread table on stderr (COMMAND's own output is left alone). prof\n"
"exits with COMMAND's status (128+N when killed by signal N).\n"
"\n"
"Options:\n"
"  -e, --events LIST     comma-separated events (default: cache, which is\n"
"                        the mission counters llc-misses, itlb-misses,\n"
"                        l1i-misses, branch-misses, instructions, cycles,\n"
"                        then task-clock, context-switches,\n"
"                        cpu-migrations, page-faults). Names as perf takes\n"
"                        them, the CPU's own names, and :u / :k modifiers;\n"
"                        'prof events' lists them, and 'prof events\n"
"                        --mission' which event stands behind each mission\n"
"                        counter on this processor\n"
"      --allow-generic   on a processor the mission map lacks, count perf's\n"
"                        generic LLC-load-misses, iTLB-load-misses and\n"
"                        L1-icache-load-misses for llc-misses, itlb-misses\n"
"                        and l1i-misses (otherwise -e refuses them and the\n"
"                        default set reports them not supported: their\n"
"                        meaning is the kernel's table's, which on some\n"
"                        processors has no such event or a wrong one)\n"
"  -p, --pid PID         attach to a running process instead of launching\n"
"      --duration SECS   with -p: stop after SECS (default: until it exits\n"
"                        or Ctrl-C)\n"
"      --by MODE         thread (default), name (sum threads sharing a\n"
"                        name), or total\n"
"      --format FMT      table (default), json, csv, markdown\n"
"  -o, --output FILE     write the report to FILE instead of stderr\n"
"  -q, --quiet           store the run but print no report (unless -o)\n"
"      --db PATH         database (default: $PROF_DB, else ./prof.db)\n"
"      --pin MODE        run on chosen CPUs: none, largest-llc (the biggest\n"
"                        shared last-level cache), llc:N, l2:N (the Nth\n"
"                        domain in CPU order, as 'prof topo' numbers them),\n"
"                        node:N, cpus:LIST (e.g. cpus:0-5,12-17)\n"
"      --cache-affinity  same as --pin largest-llc\n"
"      --no-cache-affinity  same as --pin none; both flags win over\n"
"                        PROF_CACHE_AFFINITY=1|0 in the environment; with\n"
"                        --pin, or with each other, they must agree\n"
"      --sysfs ROOT      read the topology below ROOT instead of /\n"
"      --mmap-pages N    ring-buffer pages per task (power of 2, default 256)\n"
"      --sleep-mode MODE[,threshold=US][,max-spinners=K]\n"
"                        serve the workload's short sleeps (nanosleep,\n"
"                        clock_nanosleep, usleep under US, default 1000)\n"
"                        another way, through a preloaded interposer:\n"
"                        passthrough (measure only), slack1, timerfd, yield,\n"
"                        spin, hybrid[:MARGIN_US]; max-spinners=K lets at\n"
"                        most K threads spin or yield at once. The report\n"
"                        shows, per thread, the sleeps served and passed\n"
"                        through, and the overshoot achieved\n"
"      --working-set     also measure the memory the workload touched: every\n"
"                        page fault is sampled (period 1, with its address)\n"
"                        and counted once per page, for its code module or\n"
"                        its kind of data (heap, stack, anonymous, file-backed);\n"
"                        'prof modules' lists the modules. Opt-in, as every\n"
"                        fault then writes a sample: 1.3x the wall time of a\n"
"                        plain run for a workload that faults in 1 GiB of\n"
"                        fresh memory (bench/working-set)\n"
"      --allow-incomplete  exit with COMMAND's status even when the run is\n"
"                        incomplete (see below)\n"
"      --record-dump FILE  save the raw ring-buffer records (for tests)\n"
"\n"
"Every run checks that it is complete: each task that started has its\n"
"start record and its own counts, no ring-buffer record was lost or torn,\n"
"and the main task's task-clock agrees with the scheduler's own account of\n"
"it. A run that fails the check is stored and reported as incomplete, with\n"
"the reasons (\"complete\": false and \"reasons\" in JSON), and prof exits 1\n"
"when COMMAND succeeded, unless --allow-incomplete. The totals stay whole.\n"
"\n"
"Events the machine cannot count are reported as not supported, never as\n"
"zero, and the run goes on with the rest. Ctrl-C and SIGTERM reach every\n"
"process of the workload; what was counted up to then is stored, marked\n"
"interrupted, and what the workload leaves running is ended. A second\n"
"Ctrl-C or SIGTERM kills the workload (SIGKILL). If prof itself is\n"
"killed, the kernel kills the workload's first process.\n"
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
"\n"
"The pin is applied before the command starts, so every thread it spawns\n"
"inherits it; the run records the mode, whether it was applied, the CPUs\n"
"in force (read back from the workload) and the cache domain's size.\n";

struct run_args {
	const char *events;
	long pid;
	double duration;
	const char *db;
	enum out_format fmt;
	enum report_by by;
	const char *out;
	bool quiet;
	long mmap_pages;
	bool working_set;
	bool allow_incomplete;
	bool allow_generic;
	const char *sleep_mode;
	const char *dump;
	const char *pin;
	int affinity;
	const char *sysfs;
	char **argv;
	int argc;
};

static int parse_args(int argc, char **argv, struct run_args *a)
{
	enum { O_DURATION = 256, O_BY, O_FORMAT, O_DB, O_MMAP, O_DUMP, O_PIN,
	       O_AFF, O_NOAFF, O_SYSFS, O_WS, O_SLEEP, O_INCOMPLETE, O_GENERIC };
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "by", required_argument, NULL, O_BY },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "db", required_argument, NULL, O_DB },
		{ "mmap-pages", required_argument, NULL, O_MMAP },
		{ "record-dump", required_argument, NULL, O_DUMP },
		{ "pin", required_argument, NULL, O_PIN },
		{ "cache-affinity", no_argument, NULL, O_AFF },
		{ "no-cache-affinity", no_argument, NULL, O_NOAFF },
		{ "sysfs", required_argument, NULL, O_SYSFS },
		{ "working-set", no_argument, NULL, O_WS },
		{ "sleep-mode", required_argument, NULL, O_SLEEP },
		{ "allow-incomplete", no_argument, NULL, O_INCOMPLETE },
		{ "allow-generic", no_argument, NULL, O_GENERIC },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char buf[64];
	memset(a, 0, sizeof(*a));
	a->events = "cache";
	a->fmt = OUT_TABLE;
	a->by = BY_THREAD;
	a->mmap_pages = 256;
	a->affinity = AFFINITY_UNSET;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "+:e:p:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			a->events = optarg;
			break;
		case 'p':
			if (!cli_parse_long(optarg, 1, INT_MAX, &a->pid))
				return usage_error("run", "bad pid '%s': expected a "
						   "process id", cli_echo(optarg, buf, sizeof(buf)));
			break;
		case O_DURATION:
			if (!cli_parse_double(optarg, 0.001, 31536000, &a->duration))
				return usage_error("run", "bad duration '%s': expected "
						   "seconds, e.g. 10 or 0.5",
						   cli_echo(optarg, buf, sizeof(buf)));
			break;
		case O_BY:
			if (report_by_parse(optarg, &a->by))
				return usage_error("run", "bad --by '%s': expected "
						   "thread, name or total",
						   cli_echo(optarg, buf, sizeof(buf)));
			break;
		case O_FORMAT:
			if (cli_parse_format("run", optarg, &a->fmt, OUT_ALL_TEXT))
				return EXIT_USAGE;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case O_DB:
			a->db = optarg;
			break;
		case O_MMAP:
			if (!cli_parse_long(optarg, 1, 1 << 20, &a->mmap_pages) ||
			    (a->mmap_pages & (a->mmap_pages - 1)))
				return usage_error("run", "bad --mmap-pages '%s': "
						   "expected a power of 2",
						   cli_echo(optarg, buf, sizeof(buf)));
			break;
		case O_WS:
			a->working_set = true;
			break;
		case O_INCOMPLETE:
			a->allow_incomplete = true;
			break;
		case O_GENERIC:
			a->allow_generic = true;
			break;
		case O_SLEEP:
			a->sleep_mode = optarg;
			break;
		case O_DUMP:
			a->dump = optarg;
			break;
		case O_PIN:
			a->pin = optarg;
			break;
		case O_AFF:
			a->affinity = affinity_flag_add(a->affinity, AFFINITY_ON);
			break;
		case O_NOAFF:
			a->affinity = affinity_flag_add(a->affinity, AFFINITY_OFF);
			break;
		case O_SYSFS:
			a->sysfs = optarg;
			break;
		case 'h':
			cli_print_verb_help("run");
			return -1;
		default:
			return cli_option_error("run", c, argv);
		}
	}
	a->argv = argv + optind;
	a->argc = argc - optind;
	if (a->pid && a->argc)
		return usage_error("run", "give either -p PID or a command, not both");
	if (!a->pid && !a->argc)
		return usage_error("run", "no command to run: 'prof run -- COMMAND'");
	if (a->duration > 0 && !a->pid)
		return usage_error("run", "--duration goes with -p PID; a launched "
				   "command runs until it exits");
	if (a->pid && a->sleep_mode)
		return usage_error("run", "--sleep-mode applies to a launched command: "
				   "it preloads an interposer at exec");
	if (a->pid && (a->pin || a->affinity == AFFINITY_ON ||
		       a->affinity == AFFINITY_BOTH))
		return usage_error("run", "--pin applies to a launched command; an "
				   "attached process keeps its own affinity");
	return 0;
}

int cmd_run(int argc, char **argv, struct prof_ctx *ctx)
{
	struct run_args a;
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;

	char *cause = NULL;
	struct event_desc *evs = NULL;
	size_t nev = 0;
	rc = event_list_parse(a.events, a.allow_generic ? EVENT_ALLOW_GENERIC : 0,
			      &evs, &nev, &cause);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		return rc == -EIO ? EXIT_FAIL : EXIT_USAGE;
	}

	int exit_code = EXIT_OK, late;
	struct run_state rs;
	run_state_init(&rs, ctx, a.db);
	/* Settled below; empty now, as out_early releases them. */
	struct pin_plan plan;
	memset(&plan, 0, sizeof(plan));
	struct sleep_plan sleep;
	memset(&sleep, 0, sizeof(sleep));
	sleep.fd = -1;
	bool launched = a.pid == 0;
	if (run_state_check_paths(&rs, "run", a.out)) {
		exit_code = EXIT_USAGE;
		goto out_early;
	}

	/* A command that cannot run is refused before anything is opened or
	 * stored (127, as a shell says). */
	if (launched) {
		char *path = launch_resolve(a.argv[0], &cause);
		if (!path) {
			print_cause("error: ", cause);
			free(cause);
			event_list_free(evs, nev);
			run_state_release(&rs);
			return 127;
		}
		free(path);
	} else if (kill((pid_t)a.pid, 0) != 0 && errno == ESRCH) {
		error_msg("cannot attach to process %ld: no such process", a.pid);
		event_list_free(evs, nev);
		run_state_release(&rs);
		return EXIT_FAIL;
	}

	/* The pin is settled before anything starts: a bad one is a usage
	 * error, an unreadable topology for largest-llc a warning. */
	if (launched && pin_plan_for_launch(&plan, a.pin, a.affinity, a.sysfs)) {
		pin_plan_release(&plan);
		event_list_free(evs, nev);
		run_state_release(&rs);
		return EXIT_USAGE;
	}

	/* The sleep interposer: words checked (exit 2), library found (exit
	 * 1), both before the workload starts. */
	if (a.sleep_mode) {
		rc = sleep_plan_parse(&sleep, a.sleep_mode, &cause);
		if (rc) {
			print_cause("error: ", cause);
			fprintf(stderr, "hint: run 'prof run --help' for its options\n");
			exit_code = EXIT_USAGE;
			goto out_early;
		}
		rc = sleep_plan_locate(&sleep, &cause);
		if (rc) {
			print_cause("error: ", cause);
			exit_code = EXIT_FAIL;
			goto out_early;
		}
		sleep_plan_check(&sleep, a.argv[0]);
	}

	run_state_open_db(&rs);
	FILE *dump = NULL;
	if (a.dump && !(dump = fopen(a.dump, "wb"))) {
		char buf[64];
		exit_code = error_msg("cannot open '%s' for writing: %s",
				      cli_echo(a.dump, buf, sizeof(buf)), strerror(errno));
		goto out;
	}

	struct runner_opts ro = {
		.argv = launched ? a.argv : NULL,
		.argc = launched ? a.argc : 0,
		.attach_pid = (pid_t)a.pid,
		.duration_s = a.duration,
		.evs = evs, .nev = nev,
		.plan = launched ? &plan : NULL,
		.out_fd = -1,
		.mmap_pages = (size_t)a.mmap_pages,
		.working_set = a.working_set,
		.record_dump = dump,
		.sleep = a.sleep_mode ? &sleep : NULL,
	};
	/* A signal while the run is stored or printed must not lose it: it
	 * stops a wait on a locked database, and prof exits 128+N after. */
	runner_hold_signals();
	if (rs.db)
		db_set_busy_stop(rs.db, runner_late_signal, NULL);
	struct db_run run;
	rc = runner_run(&ro, &run, &cause);
	if (rc) {
		print_cause("error: ", cause);
		exit_code = launched && (rc == -ENOENT || rc == -EACCES || rc == -ENOEXEC)
			    ? 127 : EXIT_FAIL;
		goto out;
	}
	if (launched) {
		run.topology = plan.topology;
		plan.topology = NULL;
	}
	db_run_set(&run, "events", a.events);
	if (a.working_set)
		db_run_set(&run, "working_set", "1");

	struct timespec s0, s1;
	clock_gettime(CLOCK_MONOTONIC, &s0);
	char *store_cause = NULL;
	int store_rc = run_state_store(&rs, &run, &store_cause);
	clock_gettime(CLOCK_MONOTONIC, &s1);
	if (verbose) {
		struct rusage self;
		getrusage(RUSAGE_SELF, &self);
		fprintf(stderr, "prof: workload %.3f s; stored %zu threads in %.3f s; "
			"prof itself used %.3f s user, %.3f s sys\n",
			run.wall_s, run.nthreads,
			(double)(s1.tv_sec - s0.tv_sec) + (double)(s1.tv_nsec - s0.tv_nsec) / 1e9,
			(double)self.ru_utime.tv_sec + (double)self.ru_utime.tv_usec / 1e6,
			(double)self.ru_stime.tv_sec + (double)self.ru_stime.tv_usec / 1e6);
	}
	/* Counts that could not be stored are printed even under -q, and on
	 * stderr when -o FILE failed too (a full disk takes both). */
	bool in_file = false;
	if (!a.quiet || a.out || store_rc) {
		FILE *fp = cli_open_output(a.out, stderr);
		bool ok = false;
		if (fp) {
			report_run(&run, a.by, a.fmt, fp);
			ok = cli_close_output(fp, a.out) == 0;
		}
		if (!ok)
			exit_code = EXIT_FAIL;
		in_file = ok && a.out;
		if (!ok && a.out && store_rc)
			report_run(&run, a.by, a.fmt, stderr);
	}
	/* A launched run exits as its workload did; an attach exits 0. */
	if (launched && exit_code == EXIT_OK)
		exit_code = run.exit_status;
	exit_code = run_incomplete_exit(&run, a.allow_incomplete, exit_code);
	if (store_rc) {
		run_state_not_stored(store_cause, in_file ? a.out : NULL);
		exit_code = EXIT_FAIL;
	}
	free(store_cause);
	db_run_release(&run);
out:
	late = runner_release_signals();
	if (late)
		exit_code = 128 + late;
	if (dump)
		fclose(dump);
out_early:
	sleep_plan_release(&sleep);
	pin_plan_release(&plan);
	event_list_free(evs, nev);
	run_state_release(&rs);
	free(cause);
	return exit_code;
}
