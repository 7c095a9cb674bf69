/*
 * prof run: count events per thread for a launched command (or an attached
 * process), store the run, and print the per-thread table on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collectors/counters.h"
#include "collectors/events.h"
#include "collectors/host.h"
#include "db/runs.h"
#include "prof/cli.h"
#include "prof/commands.h"
#include "prof/launch.h"
#include "prof/pin.h"
#include "prof/runmods.h"
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
"                        LLC-load-misses, iTLB-load-misses,\n"
"                        L1-icache-load-misses, branch-misses, instructions,\n"
"                        cycles, task-clock, context-switches,\n"
"                        cpu-migrations, page-faults). Names as perf takes\n"
"                        them, the CPU's own names, and :u / :k modifiers;\n"
"                        'prof events' lists them.\n"
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
"                        PROF_CACHE_AFFINITY=1|0 in the environment\n"
"      --sysfs ROOT      read the topology below ROOT instead of /\n"
"      --mmap-pages N    ring-buffer pages per task (power of 2, default 256)\n"
"      --working-set     also measure the memory the workload touched: every\n"
"                        page fault is sampled (period 1, with its address)\n"
"                        and counted once per page, for its code module or\n"
"                        its kind of data (heap, stack, anonymous, file-backed);\n"
"                        'prof modules' lists the modules. Opt-in, as every\n"
"                        fault then writes a sample: 1.3x the wall time of a\n"
"                        plain run for a workload that faults in 1 GiB of\n"
"                        fresh memory (bench/working-set)\n"
"      --record-dump FILE  save the raw ring-buffer records (for tests)\n"
"\n"
"Events the machine cannot count are reported as not supported, never as\n"
"zero, and the run goes on with the rest. Ctrl-C and SIGTERM reach the\n"
"workload; what was counted up to then is stored, marked interrupted.\n"
"If the database cannot be written, the report is printed anyway and prof\n"
"exits 1.\n"
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

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t got_signal_from_kernel;

static void on_signal(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	got_signal = sig;
	/* A terminal's Ctrl-C reaches the whole foreground group (the
	 * workload too) with SI_KERNEL; kill(1) reaches only prof. */
	got_signal_from_kernel = si && si->si_code == SI_KERNEL;
}

static void catch_signals(struct sigaction *old)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: poll must wake */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < 4; i++)
		sigaction(sigs[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction *old)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	for (size_t i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
}

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
	       O_AFF, O_NOAFF, O_SYSFS, O_WS };
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
	while ((c = getopt_long(argc, argv, "+e:p:o:qh", opts, NULL)) != -1) {
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
		case O_DUMP:
			a->dump = optarg;
			break;
		case O_PIN:
			a->pin = optarg;
			break;
		case O_AFF:
			a->affinity = AFFINITY_ON;
			break;
		case O_NOAFF:
			a->affinity = AFFINITY_OFF;
			break;
		case O_SYSFS:
			a->sysfs = optarg;
			break;
		case 'h':
			cli_print_verb_help("run");
			return -1;
		default:
			return usage_error("run", "unknown option '%s'",
					   cli_echo(argv[optind - 1], buf, sizeof(buf)));
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
	if (a->pid && (a->pin || a->affinity == AFFINITY_ON))
		return usage_error("run", "--pin applies to a launched command; an "
				   "attached process keeps its own affinity");
	return 0;
}

/* ---- the record dump (tests replay it) ---- */

static void dump_record(const void *rec, size_t len, void *arg)
{
	FILE *fp = arg;
	fwrite(rec, 1, len, fp);
}

static FILE *dump_open(const char *path)
{
	FILE *fp = fopen(path, "wb");
	if (!fp) {
		char buf[64];
		error_msg("cannot open '%s' for writing: %s",
			  cli_echo(path, buf, sizeof(buf)), strerror(errno));
	}
	return fp;
}

static void dump_header(FILE *fp, const struct counters *cs,
			const struct counters_opts *co,
			const struct event_desc *evs, size_t nev)
{
	const struct perf_rec_layout *lay = counters_layout(cs);
	struct ring_dump_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, RING_DUMP_MAGIC, sizeof(h.magic));
	h.sample_type = lay->sample_type;
	h.read_format = lay->read_format;
	h.nevents = (uint32_t)nev;
	h.nsamplers = (uint32_t)co->nsamplers;
	fwrite(&h, sizeof(h), 1, fp);
	for (size_t i = 0; i < nev; i++) {
		struct ring_dump_event e;
		memset(&e, 0, sizeof(e));
		e.id = counters_event_id(cs, 0, i);
		snprintf(e.name, sizeof(e.name), "%s", evs[i].name);
		fwrite(&e, sizeof(e), 1, fp);
	}
	run_mods_dump_samplers(cs, co, fp);
}

/* ---- attach ---- */

static int list_tasks(pid_t pid, pid_t **out, size_t *n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	size_t cap = 16;
	*n = 0;
	*out = malloc(cap * sizeof(pid_t));
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (*n == cap) {
			cap *= 2;
			*out = realloc(*out, cap * sizeof(pid_t));
		}
		(*out)[(*n)++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return 0;
}

static void task_comm(pid_t pid, pid_t tid, char *buf, size_t n)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	buf[0] = '\0';
	FILE *fp = fopen(path, "r");
	if (fp) {
		if (fgets(buf, (int)n, fp))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(fp);
	}
}

/* utime + stime of a process from /proc/PID/stat, in seconds. */
static bool proc_times(pid_t pid, double *user, double *sys)
{
	char path[64], line[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return false;
	bool ok = fgets(line, sizeof(line), fp) != NULL;
	fclose(fp);
	char *p = ok ? strrchr(line, ')') : NULL;
	unsigned long ut, st;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return false;
	long hz = sysconf(_SC_CLK_TCK);
	*user = (double)ut / (double)hz;
	*sys = (double)st / (double)hz;
	return true;
}

static int open_attached(struct counters *cs, pid_t pid, char **cause)
{
	/* Scan until a pass finds no thread we have not opened yet: threads
	 * created by an opened thread are inherited from then on. */
	pid_t *seen = NULL;
	size_t nseen = 0;
	int rc = 0;
	for (int pass = 0; pass < 8; pass++) {
		pid_t *tids = NULL;
		size_t n = 0;
		rc = list_tasks(pid, &tids, &n);
		if (rc) {
			if (cause && !*cause &&
			    asprintf(cause, "cannot attach to process %d: %s",
				     (int)pid, rc == -ENOENT ? "no such process"
				     : strerror(-rc)) < 0)
				*cause = NULL;
			break;
		}
		size_t added = 0;
		for (size_t i = 0; i < n; i++) {
			bool known = false;
			for (size_t k = 0; k < nseen && !known; k++)
				known = seen[k] == tids[i];
			if (known)
				continue;
			char name[32];
			task_comm(pid, tids[i], name, sizeof(name));
			int orc = counters_open_task(cs, pid, tids[i], name, cause);
			if (orc == -ESRCH)
				continue;	/* it exited while we looked */
			if (orc) {
				rc = orc;
				break;
			}
			seen = realloc(seen, (nseen + 1) * sizeof(pid_t));
			seen[nseen++] = tids[i];
			added++;
		}
		free(tids);
		if (rc || added == 0)
			break;
	}
	free(seen);
	if (!rc && nseen == 0) {
		if (cause && !*cause && asprintf(cause, "process %d has no threads "
						 "left to attach to", (int)pid) < 0)
			*cause = NULL;
		rc = -ESRCH;
	}
	return rc;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Wait for the end (workload exit, duration, or a signal) while draining
 * the ring buffers. Returns true when interrupted by a signal.
 */
static bool watch(struct counters *cs, struct launch *l, pid_t attach_pid,
		  int attach_pidfd, double deadline)
{
	struct pollfd pfd[1025];
	bool interrupted = false;
	for (;;) {
		size_t n = counters_pollfds(cs, pfd, 1024);
		int endfd = l ? l->pidfd : attach_pidfd;
		if (endfd >= 0) {
			pfd[n].fd = endfd;
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			n++;
		}
		int timeout = 100;
		if (deadline > 0) {
			double left = deadline - now_s();
			if (left <= 0)
				break;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		poll(pfd, n, timeout);
		counters_drain(cs);
		if (got_signal) {
			int sig = got_signal;
			got_signal = 0;
			interrupted = true;
			if (l) {
				/* The terminal already told the workload. */
				if (!got_signal_from_kernel)
					kill(l->pid, sig);
			} else {
				break;	/* attached: stop counting, leave it be */
			}
		}
		if (l && launch_exited(l))
			break;
		if (!l && kill(attach_pid, 0) != 0 && errno == ESRCH)
			break;
	}
	return interrupted;
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
	rc = event_list_parse(a.events, &evs, &nev, &cause);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		return rc == -EIO ? EXIT_FAIL : EXIT_USAGE;
	}

	int exit_code = EXIT_OK;
	struct run_state rs;
	run_state_init(&rs, ctx, a.db);

	/* A launched command that cannot run is refused before anything
	 * is opened or stored (127, as a shell says). */
	struct run_mods rm;
	memset(&rm, 0, sizeof(rm));
	struct launch l;
	memset(&l, 0, sizeof(l));
	l.pidfd = l.go_fd = l.err_fd = -1;
	bool launched = a.pid == 0;
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
	struct pin_plan plan;
	memset(&plan, 0, sizeof(plan));
	char *pin_cpus_in_force = NULL;
	if (launched) {
		char *warn = NULL;
		const char *mode = pin_choose_mode(a.pin, a.affinity,
						   getenv("PROF_CACHE_AFFINITY"), &warn);
		if (warn) {
			warning_msg("%s", warn);
			free(warn);
			warn = NULL;
		}
		rc = pin_plan_make(&plan, mode, a.sysfs, &warn, &cause);
		if (rc) {
			print_cause("error: ", cause);
			free(cause);
			pin_plan_release(&plan);
			event_list_free(evs, nev);
			run_state_release(&rs);
			return EXIT_USAGE;
		}
		if (warn) {
			warning_msg("%s", warn);
			free(warn);
		}
	}

	run_state_open_db(&rs);

	FILE *dump = NULL;
	if (a.dump && !(dump = dump_open(a.dump))) {
		event_list_free(evs, nev);
		run_state_release(&rs);
		return EXIT_FAIL;
	}
	struct counters_opts co = {
		.events = evs, .nevents = nev, .mmap_pages = (size_t)a.mmap_pages,
		.flags = launched ? COUNTERS_ENABLE_ON_EXEC : 0,
		.record_hook = dump ? dump_record : NULL, .hook_arg = dump,
	};
	run_mods_init(&rm, a.working_set, &co);
	struct counters *cs = counters_new(&co);
	if (!cs) {
		error_msg("cannot set up the counters: %s", strerror(errno));
		exit_code = EXIT_FAIL;
		goto out;
	}

	struct sigaction old[4];
	catch_signals(old);
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	int status = 0, signo = 0;
	double t0, t1;
	bool interrupted;
	char started[32];
	run_state_now_iso(started, sizeof(started));
	double u0 = 0, s0 = 0, u1 = 0, s1 = 0;

	if (launched) {
		struct launch_opts lo = {
			.argv = a.argv,
			.pin = plan.apply ? plan.set : NULL,
			.pin_size = plan.setsize,
			.out_fd = -1,
		};
		rc = launch_prepare(&l, &lo, &cause);
		if (rc) {
			print_cause("error: ", cause);
			exit_code = rc == -ENOENT || rc == -EACCES ? 127 : EXIT_FAIL;
			restore_signals(old);
			goto out;
		}
		rc = counters_open_task(cs, l.pid, l.pid, NULL, &cause);
		if (rc) {
			print_cause("error: ", cause);
			launch_abort(&l);
			exit_code = EXIT_FAIL;
			restore_signals(old);
			goto out;
		}
		run_mods_opened(&rm, cs, 0);
		if (dump)
			dump_header(dump, cs, &co, evs, nev);
		report_unsupported(cs, evs, nev);
		if (plan.apply)
			fprintf(stderr, "prof: %s\n", plan.desc);
		t0 = now_s();
		rc = launch_release(&l, &cause);
		if (rc) {
			print_cause("error: ", cause);
			launch_release_fds(&l);
			exit_code = 127;
			restore_signals(old);
			goto out;
		}
		pin_cpus_in_force = pin_read_back(l.pid);
		interrupted = watch(cs, &l, 0, -1, 0);
		t1 = now_s();
		launch_reap(&l, &status, &signo, &ru);
		launch_release_fds(&l);
	} else {
		pid_t pid = (pid_t)a.pid;
		proc_times(pid, &u0, &s0);
		rc = open_attached(cs, pid, &cause);
		if (rc) {
			print_cause("error: ", cause);
			exit_code = EXIT_FAIL;
			restore_signals(old);
			goto out;
		}
		run_mods_opened(&rm, cs, pid);
		if (dump)
			dump_header(dump, cs, &co, evs, nev);
		report_unsupported(cs, evs, nev);
		int pidfd = -1;
#ifdef SYS_pidfd_open
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
		t0 = now_s();
		if (!proc_times(pid, &u1, &s1)) {
			u1 = u0;
			s1 = s0;
		}
		interrupted = watch(cs, NULL, pid, pidfd, a.duration > 0 ? t0 + a.duration : 0);
		t1 = now_s();
		double u2, s2;
		if (proc_times(pid, &u2, &s2)) {
			u1 = u2;
			s1 = s2;
		}
		if (pidfd >= 0)
			close(pidfd);
	}
	restore_signals(old);

	free(cause);
	cause = NULL;
	if (counters_finish(cs, &cause) && cause) {
		print_cause("warning: ", cause);
		free(cause);
		cause = NULL;
	}

	struct db_run run;
	memset(&run, 0, sizeof(run));
	run.kind = strdup(launched ? "run" : "attach");
	run.started = strdup(started);
	run.wall_s = t1 - t0;
	if (launched) {
		run.command = run_state_command_line(a.argv, a.argc);
		run.argv = a.argv;
		run.argc = a.argc;
		run.pid = l.pid ? l.pid : 0;
		run.exit_status = status;
		run.term_signal = signo;
		run.user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		run.sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	} else {
		char cmd[64];
		snprintf(cmd, sizeof(cmd), "-p %ld", a.pid);
		run.command = strdup(cmd);
		run.pid = (int32_t)a.pid;
		run.user_s = u1 - u0;
		run.sys_s = s1 - s0;
	}
	run.interrupted = interrupted;
	if (launched) {
		run.pin.mode = plan.mode;
		plan.mode = NULL;
		run.pin.status = plan.apply ? strdup("applied") : plan.status;
		if (!plan.apply)
			plan.status = NULL;
		run.pin.cpus = pin_cpus_in_force;
		pin_cpus_in_force = NULL;
		run.pin.level = plan.level;
		run.pin.cache_type = plan.cache_type;
		plan.cache_type = NULL;
		run.pin.size_bytes = plan.size_bytes;
		run.topology = plan.topology;
		plan.topology = NULL;
		if (plan.desc)
			db_run_set(&run, "pin_desc", plan.desc);
	}
	run_state_fill(&rs, &run, cs, evs, nev);
	run_mods_fill(&rm, &run);
	db_run_set(&run, "events", a.events);
	char pages[32];
	snprintf(pages, sizeof(pages), "%ld", a.mmap_pages);
	db_run_set(&run, "mmap_pages", pages);

	int store_rc = run_state_store(&rs, &run);
	if (!a.quiet || a.out) {
		FILE *fp = cli_open_output(a.out, stderr);
		if (fp) {
			report_run(&run, a.by, a.fmt, fp);
			if (cli_close_output(fp, a.out))
				exit_code = EXIT_FAIL;
		} else {
			exit_code = EXIT_FAIL;
		}
	}
	if (launched && exit_code == EXIT_OK)
		exit_code = status;
	if (store_rc)
		exit_code = EXIT_FAIL;
	if (!launched && interrupted && exit_code == EXIT_OK)
		exit_code = EXIT_OK;
	/* argv is borrowed from our own argv; do not free it with the run. */
	run.argv = NULL;
	run.argc = 0;
	db_run_release(&run);
out:
	pin_plan_release(&plan);
	free(pin_cpus_in_force);
	if (dump)
		fclose(dump);
	counters_free(cs);
	run_mods_release(&rm);
	event_list_free(evs, nev);
	run_state_release(&rs);
	free(cause);
	return exit_code;
}
