/*
 * runner: launch (or attach), count, drain and settle one run; see
 * runner.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collectors/cgroup.h"
#include "collectors/counters.h"
#include "collectors/cpuid.h"
#include "collectors/pmuplan.h"
#include "collectors/pmus.h"
#include "common/cause.h"
#include "common/errtext.h"
#include "common/procstat.h"
#include "common/xalloc.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t got_signal_from_tty;
static volatile sig_atomic_t ever_interrupted;
/* Set once the workload has ended: a signal after that is "late". */
static volatile sig_atomic_t workload_over;
static volatile sig_atomic_t late_signal;
static volatile sig_atomic_t first_signal;

static void on_signal(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	if (!first_signal)
		first_signal = sig;
	if (workload_over) {
		late_signal = sig;
		return;
	}
	got_signal = sig;
	ever_interrupted = 1;
	/* A terminal's Ctrl-C reaches the whole foreground group (the
	 * workload too) with SI_KERNEL; kill(1) reaches only prof. */
	got_signal_from_tty = si && si->si_code == SI_KERNEL;
}

static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NCAUGHT (sizeof(caught) / sizeof(caught[0]))

static struct sigaction held_old[NCAUGHT];
static bool holding;

static void catch_signals(struct sigaction *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: poll and sleeps must wake */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NCAUGHT; i++)
		sigaction(caught[i], &sa, &old[i]);
}

void runner_hold_signals(void)
{
	if (holding)
		return;
	late_signal = 0;
	catch_signals(held_old);
	holding = true;
}

int runner_release_signals(void)
{
	if (!holding)
		return 0;
	for (size_t i = 0; i < NCAUGHT; i++)
		sigaction(caught[i], &held_old[i], NULL);
	holding = false;
	workload_over = 0;
	return late_signal;
}

/*
 * The workload has ended: from here a signal is late (it stops a wait on
 * a locked database, and prof exits 128+N once the run is stored or
 * printed). One that came after watch()'s last look, while the workload
 * was being reaped, was taken as interrupting it: it came after its end,
 * so it is late too. Before, it was neither: prof waited out
 * PROF_DB_TIMEOUT on a locked database despite the signal (test_faults
 * caught it once in a run of the suite).
 */
static void workload_ended(void)
{
	workload_over = holding;
	if (holding && got_signal) {
		late_signal = got_signal;
		got_signal = 0;
	}
}

bool runner_late_signal(void *unused)
{
	(void)unused;
	return late_signal != 0;
}

bool runner_stop_asked(void *unused)
{
	(void)unused;
	return ever_interrupted || late_signal;
}

bool runner_interrupted(void)
{
	return ever_interrupted != 0;
}

int runner_stop_exit_code(void)
{
	return 128 + (first_signal ? first_signal : SIGINT);
}

/* ---- the record dump (tests replay it) ---- */

static void dump_record(const void *rec, size_t len, void *arg)
{
	fwrite(rec, 1, len, arg);
}

static void dump_header(FILE *fp, const struct counters *cs,
			const struct counters_opts *co)
{
	const struct perf_rec_layout *lay = counters_layout(cs);
	struct ring_dump_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, RING_DUMP_MAGIC, sizeof(h.magic));
	h.sample_type = lay->sample_type;
	h.read_format = lay->read_format;
	h.nevents = (uint32_t)co->nevents;
	h.nsamplers = (uint32_t)co->nsamplers;
	fwrite(&h, sizeof(h), 1, fp);
	for (size_t i = 0; i < co->nevents; i++) {
		struct ring_dump_event e;
		memset(&e, 0, sizeof(e));
		e.id = counters_event_id(cs, 0, i);
		snprintf(e.name, sizeof(e.name), "%s", co->events[i].name);
		fwrite(&e, sizeof(e), 1, fp);
	}
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

/* The process's CPU times (s), all its threads together (tid 0), or
 * thread tid's own. */
static bool proc_times(pid_t pid, pid_t tid, double *user, double *sys)
{
	struct proc_stat ps;
	if (proc_stat_read_pid(pid, tid, &ps))
		return false;
	long hz = sysconf(_SC_CLK_TCK);
	*user = (double)ps.utime / (double)hz;
	*sys = (double)ps.stime / (double)hz;
	return true;
}

/*
 * Open the events on every thread of pid. Scan until a pass finds no
 * thread not yet opened: threads created by an opened thread are
 * inherited from then on.
 */
static int open_attached(struct counters *cs, pid_t pid, char **cause)
{
	pid_t *seen = NULL;
	size_t nseen = 0;
	int rc = 0;
	for (int pass = 0; pass < 8; pass++) {
		pid_t *tids = NULL;
		size_t n = 0;
		rc = list_tasks(pid, &tids, &n);
		if (rc) {
			if (cause && !*cause)
				cause_set(cause, 0, "cannot attach to process %d: %s",
					  (int)pid, rc == -ENOENT ? "no such process"
					  : ERR_TEXT(-rc));
			if (rc == -ENOENT)
				rc = -ESRCH;
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
			if (orc == -ESRCH) {
				/* It exited while we looked: not an error. */
				if (cause) {
					free(*cause);
					*cause = NULL;
				}
				continue;
			}
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
		if (cause && !*cause)
			cause_set(cause, 0, "process %d has no threads "
				  "left to attach to", (int)pid);
		rc = -ESRCH;
	}
	return rc;
}

/* /proc/PID/cmdline as one command line (quoted as a launched one is),
 * or NULL when it cannot be read (a kernel thread, a process gone). */
static char *proc_cmdline(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char buf[8192];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	char *argv[256];
	int argc = 0;
	for (char *p = buf; p < buf + n && argc < 255; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	return run_state_command_line(argv, argc);
}

/* Would exec'ing path change this process's user or group ids? */
static bool exec_gains_privileges(const char *path)
{
	struct stat sb;
	struct statvfs vfs;
	if (!path || stat(path, &sb) != 0 ||
	    (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)))
		return false;
	return ((sb.st_mode & S_ISUID) && sb.st_uid != geteuid()) ||
	       ((sb.st_mode & S_ISGID) && (sb.st_mode & S_IXGRP) &&
		sb.st_gid != getegid());
}

/* The CPU time the scheduler has charged task pid so far (ns, from
 * /proc/PID/schedstat: exact for a task that waits), or 0. */
static int64_t task_sched_ns(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	FILE *fp = fopen(path, "re");
	long long ns = 0;
	if (fp) {
		if (fscanf(fp, "%lld", &ns) != 1)
			ns = 0;
		fclose(fp);
	}
	return ns;
}

/* The time a VM's host has stolen from all the machine's CPUs so far
 * (/proc/stat's steal, in ns), or 0. */
static int64_t steal_ns(void)
{
	FILE *fp = fopen("/proc/stat", "re");
	unsigned long long v[8] = { 0 };
	if (fp) {
		if (fscanf(fp, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
			v[7] = 0;
		fclose(fp);
	}
	long tck = sysconf(_SC_CLK_TCK);
	return (int64_t)v[7] * (1000000000LL / (tck > 0 ? tck : 100));
}

/*
 * The CPU time the scheduler charged task pid itself (utime + stime of
 * its main thread, in ns), or -1. Read while it is a zombie.
 */
static int64_t task_own_ns(pid_t pid)
{
	double u, st;
	return proc_times(pid, pid, &u, &st) ? (int64_t)((u + st) * 1e9) : -1;
}

/*
 * The kernel refused the events (ENOENT for an event this machine cannot
 * count, EACCES for paranoid): an operational failure, which must not
 * read as "command not found" (-ENOENT/-EACCES are the launcher's).
 */
static int not_a_launch_error(int rc)
{
	return rc == -ENOENT || rc == -EACCES || rc == -ENOEXEC ? -EIO : rc;
}

/* ---- the collectors ---- */

/* What every run collects, in the order each step calls them; the
 * verb's own collector (runner_opts) comes last. */
static const struct collector_ops *const builtin[] = {
	&collect_counters,
	&collect_procs,
	&collect_modules,
	&collect_sleep,
	&collect_intervals,
	&collect_system,
	&collect_env,
	&collect_frames,
	&collect_window,
};
#define NBUILTIN (sizeof(builtin) / sizeof(builtin[0]))

struct crew {
	struct member {
		const struct collector_ops *ops;
		void *self;
		bool owned;	/* self is the runner's to free */
		bool on;	/* prepare said it takes part */
	} m[NBUILTIN + 1];
	size_t n;
	struct collect_ctx cx;
};

size_t collect_add_sampler(struct collect_ctx *cx, const struct sampler_desc *sd)
{
	struct sampler_desc *p = xrealloc(cx->samplers, (cx->nsamplers + 1) * sizeof(*p));
	p[cx->nsamplers] = *sd;
	cx->samplers = p;
	return cx->nsamplers++;
}

int fill_oom(char **cause, const char *part)
{
	return cause_set(cause, ENOMEM, "cannot keep the run's %s: out of memory; "
			 "the run was not stored", part);
}

void collect_add_env(struct collect_ctx *cx, char *const *kv)
{
	size_t m = 0;
	while (kv[m])
		m++;
	char **p = xrealloc(cx->env, (cx->nenv + m + 1) * sizeof(*p));
	memcpy(p + cx->nenv, kv, m * sizeof(*p));
	cx->nenv += m;
	p[cx->nenv] = NULL;
	cx->env = p;
}

/* Prepare every collector, in order; the first refusal stops the run. */
static int crew_prepare(struct crew *w, char **cause)
{
	const struct runner_opts *o = w->cx.o;
	size_t total = NBUILTIN + (o->collector ? 1 : 0);
	for (size_t i = 0; i < total; i++) {
		struct member *m = &w->m[w->n++];
		m->ops = i < NBUILTIN ? builtin[i] : o->collector;
		if (i < NBUILTIN) {
			m->self = xcalloc(1, m->ops->size ? m->ops->size : 1);
			m->owned = true;
		} else {
			m->self = o->collector_arg;
		}
		int rc = m->ops->prepare ? m->ops->prepare(m->self, &w->cx, cause) : 0;
		if (rc < 0)
			return rc;
		m->on = rc == 0;
	}
	return 0;
}

#define CREW_EACH(w, m, step) \
	for (struct member *m = (w)->m; m < (w)->m + (w)->n; m++) \
		if (m->on && m->ops->step)

static void crew_drain(const struct perf_rec *rec, int origin, void *arg)
{
	struct crew *w = arg;
	CREW_EACH(w, m, drain)
		m->ops->drain(m->self, rec, origin);
}

static void crew_counts(int32_t tid, uint64_t time, const uint64_t *vals,
			const bool *have, bool running, void *arg)
{
	struct crew *w = arg;
	CREW_EACH(w, m, counts)
		m->ops->counts(m->self, tid, time, vals, have, running);
}

/* Fill the run, every collector in order; the first failure stops. */
static int crew_fill(struct crew *w, struct db_run *run, char **cause)
{
	CREW_EACH(w, m, fill) {
		int rc = m->ops->fill(m->self, &w->cx, run, cause);
		if (rc)
			return rc;
	}
	return 0;
}

static void crew_release(struct crew *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct member *m = &w->m[i];
		if (m->ops->release)
			m->ops->release(m->self);
		if (m->owned)
			free(m->self);
	}
	w->n = 0;
	free(w->cx.samplers);
	free(w->cx.env);
}

/* ---- --prepare and --cleanup ---- */

/*
 * cmd through /bin/sh -c, as runner_run says (runner.h): the workload's
 * working directory and the verb's environment, not pinned, not in the
 * run's cgroup. Returns its status as a shell reports it (128+N for
 * signal N), or -errno with *cause when it could not be started.
 */
static int run_shell_step(const struct runner_opts *o, const char *cmd,
			  char **cause)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct launch_opts lo = {
		.argv = argv, .cwd = o->cwd, .env_set = o->env_set,
		.out_fd = null_fd, .stderr_fd = null_fd >= 0 ? STDERR_FILENO : 0,
	};
	struct launch l;
	int rc = launch_prepare(&l, &lo, cause);
	if (null_fd >= 0)
		close(null_fd);
	if (rc)
		return rc;
	rc = launch_release(&l, cause);
	int status = 0, signo = 0;
	if (!rc)
		rc = launch_reap(&l, &status, &signo, NULL);
	launch_release_fds(&l);
	return rc ? rc : status;
}

/* --prepare: 0 when it succeeded, else -ECANCELED or -EINTR (runner.h). */
static int run_prepare(const struct runner_opts *o, char **cause)
{
	char buf[80];
	int st = run_shell_step(o, o->prepare, cause);
	if (st < 0)
		return st;
	if (runner_stop_asked(NULL))
		return cause_set(cause, EINTR, "interrupted during the prepare "
				 "command '%s'; the run was not measured",
				 run_echo(o->prepare, buf, sizeof(buf)));
	if (st)
		return cause_set(cause, ECANCELED, "prepare command '%s' exited "
				 "with status %d; the run was not measured",
				 run_echo(o->prepare, buf, sizeof(buf)), st);
	return 0;
}

/* --cleanup, after a run that stands: a failure is said and noted. */
static void run_cleanup(const struct runner_opts *o, struct db_run *run)
{
	char buf[80], *cause = NULL;
	int st = run_shell_step(o, o->cleanup, &cause);
	if (st < 0) {
		run_warn("cannot run the cleanup command '%s': %s",
			 run_echo(o->cleanup, buf, sizeof(buf)),
			 cause ? cause : ERR_TEXT(-st));
	} else if (st) {
		run_warn("cleanup command '%s' exited with status %d",
			 run_echo(o->cleanup, buf, sizeof(buf)), st);
	}
	free(cause);
	if (st)
		db_set_i64(run, SET_CLEANUP_STATUS, st < 0 ? -1 : st);
}

/* ---- the run ---- */

/* When a launched workload's time is up, and what was done about it. */
struct deadline {
	double term_at;		/* SIGTERM then; 0: no timeout */
	double kill_at;		/* SIGKILL then, once terminated */
	bool fired;
	struct crew *crew;	/* the collectors, for their wake */
	double t0;		/* the launch or attach (mono s) */
};

/* The next moment watch must wake for, or 0. */
static double next_wake(double deadline, const struct deadline *t)
{
	double at = deadline;
	double d = !t || !t->term_at ? 0 : t->fired ? t->kill_at : t->term_at;
	if (d > 0 && (at <= 0 || d < at))
		at = d;
	double w = t && t->crew && t->crew->cx.wake_s > 0 ? t->t0 + t->crew->cx.wake_s : 0;
	if (w > 0 && (at <= 0 || w < at))
		at = w;
	return at;
}

/* A collector's wake time has come: call it (it sets the next). */
static void crew_wake(struct deadline *t)
{
	if (!t || !t->crew || t->crew->cx.wake_s <= 0 ||
	    mono_now_s() < t->t0 + t->crew->cx.wake_s)
		return;
	t->crew->cx.wake_s = 0;
	CREW_EACH(t->crew, m, wake)
		m->ops->wake(m->self, &t->crew->cx);
}

/* Past the timeout: SIGTERM the whole workload, SIGKILL after the grace. */
static void enforce_timeout(struct launch *l, struct deadline *t)
{
	if (!l || !t || !t->term_at)
		return;
	double now = mono_now_s();
	if (!t->fired && now >= t->term_at) {
		launch_signal_tree(l, SIGTERM, 0);
		t->fired = true;
		t->kill_at = now + RUNNER_TIMEOUT_GRACE_S;
	} else if (t->fired && t->kill_at > 0 && now >= t->kill_at) {
		launch_kill_all();
		t->kill_at = 0;
	}
}

/*
 * Drain until the end: the workload's exit, the duration, or a signal.
 * Returns true when a signal ended or reached it.
 */
static bool watch(struct counters *cs, struct launch *l, pid_t attach_pid,
		  int endfd, double deadline, struct deadline *tmo)
{
	struct pollfd pfd[1025];
	bool interrupted = false;
	for (;;) {
		size_t n = counters_pollfds(cs, pfd, 1024);
		if (endfd >= 0) {
			pfd[n].fd = endfd;
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			n++;
		}
		int timeout = counters_names_pending(cs) ? 10 : 100;
		double wake = next_wake(deadline, tmo);
		if (wake > 0) {
			double left = wake - mono_now_s();
			if (left <= 0 && deadline > 0 && wake == deadline)
				break;
			if (left < 0)
				left = 0;
			if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		poll(pfd, n, timeout);
		counters_drain(cs);
		enforce_timeout(l, tmo);
		crew_wake(tmo);
		if (got_signal) {
			int sig = got_signal;
			got_signal = 0;
			if (!l) {
				interrupted = true;
				break;	/* attached: stop counting, leave it be */
			}
			if (!interrupted)
				/* Every process of the workload hears it, as from
				 * a terminal (which told its own group already). */
				launch_signal_tree(l, sig, got_signal_from_tty ? getpgrp() : 0);
			else
				launch_kill_all();	/* asked twice: no more waiting */
			interrupted = true;
		}
		if (l && launch_exited(l))
			break;
		if (!l && kill(attach_pid, 0) != 0 && errno == ESRCH)
			break;
	}
	return interrupted;
}

/* One run in progress: what runner_run's steps share. */
struct session {
	const struct runner_opts *o;
	bool launched;			/* false: attached to o->attach_pid */
	struct counters_opts co;
	struct pmu_plan plan;		/* the attrs per core PMU */
	struct crew crew;
	struct counters *cs;
	struct run_cgroup cg;
	char *path_why;			/* why not counted per CPU, or NULL */
	struct launch l;
	char started[32];
	double t0, t1;			/* the launch (or attach) and the end */
	double u0, s0, u1, s1;		/* attached: its CPU times then */
	char *cpus_in_force;		/* the pin read back, or NULL */
	bool interrupted, timed_out;
	int status, signo;
	struct rusage ru;
	char *attached_cmdline;		/* the attached process's command */
	struct sigaction old[NCAUGHT];
};

/*
 * Which attrs each event opens per core PMU, from what sysfs says of the
 * PMUs, the CPU's identity (PROF_CPUID_ROOT for the tests, as events.c
 * reads it) and whether the kernel takes a PMU type in attr.config. With
 * one core PMU, or none (a VM), nothing is split; an unreadable sysfs
 * counts as none.
 */
static int plan_pmus(struct session *s, char **cause)
{
	struct pmu_list pmus;
	struct cpuid id;
	bool have_id = cpuid_read(getenv("PROF_CPUID_ROOT"), &id) == 0;
	pmus_read(&pmus, NULL, NULL);
	/* Asked only where events would be split, as perf asks. */
	unsigned flags = pmus.ncore > 1 && !pmus_extended_type(&pmus)
			 ? PMU_PLAN_NO_EXTENDED : 0;
	int rc = pmu_plan_init(&s->plan, s->o->evs, s->o->nev, &pmus,
			       have_id ? &id : NULL, flags, cause);
	pmus_release(&pmus);
	if (!rc)
		s->co.plan = &s->plan;
	return rc;
}

/*
 * The counters' options, the run's cgroup, and the collectors prepared.
 * Counted per CPU in a cgroup of the run's own; where that cannot be had,
 * per task, and the run says why. PROF_COUNT_PATH=task asks for the
 * per-task recipe. Decided before the collectors prepare: per CPU, -I and
 * --frames need no samplers of their own.
 */
static int session_prepare(struct session *s, char **cause)
{
	const struct runner_opts *o = s->o;
	struct collect_ctx *cx = &s->crew.cx;
	s->co = (struct counters_opts){
		.events = o->evs, .nevents = o->nev, .mmap_pages = o->mmap_pages,
		.flags = s->launched ? COUNTERS_ENABLE_ON_EXEC : 0,
		.record_hook = o->record_dump ? dump_record : NULL,
		.hook_arg = o->record_dump,
	};
	*cx = (struct collect_ctx){
		.o = o, .launched = s->launched, .co = &s->co, .root_own_ns = -1,
	};
	const char *want = getenv("PROF_COUNT_PATH");
	if (s->launched && !(want && !strcmp(want, "task")) &&
	    run_cgroup_create(&s->cg, &s->path_why) == 0) {
		s->co.flags |= COUNTERS_PERCPU;
		s->co.cgroup_fd = s->cg.fd;
	}
	/* The verb's environment first; the collectors add theirs after it. */
	if (s->launched && o->env_set)
		collect_add_env(cx, o->env_set);
	int rc = crew_prepare(&s->crew, cause);
	if (rc)
		return rc;
	s->co.samplers = cx->samplers;
	s->co.nsamplers = cx->nsamplers;
	s->co.on_record = crew_drain;
	s->co.rec_arg = &s->crew;
	if (s->co.percpu_tick_ns) {
		s->co.on_counts = crew_counts;
		s->co.counts_arg = &s->crew;
	}
	if ((rc = plan_pmus(s, cause)))
		return rc;
	s->cs = counters_new(&s->co);
	if (!s->cs) {
		rc = -errno;
		cause_set(cause, 0, "cannot set up the counters: %s", ERR_TEXT(-rc));
		return rc;
	}
	return 0;
}

/*
 * Launch: the child waits before its exec while the counters open on it.
 * It is born in the run's cgroup and set up before the counters open
 * (or, where clone3 cannot, joins it last thing before its exec): what it
 * runs before is prof's launch, not the workload (a page-faults sampler
 * from the exec on saw 2 to 35 fewer faults than counting from the
 * release).
 */
static int open_launched(struct session *s, char **cause)
{
	const struct runner_opts *o = s->o;
	struct collect_ctx *cx = &s->crew.cx;
	struct launch_opts lo = {
		.argv = o->argv, .cwd = o->cwd, .env_set = cx->env,
		.pin = o->plan && o->plan->apply ? o->plan->set : NULL,
		.pin_size = o->plan ? o->plan->setsize : 0,
		.out_fd = o->out_fd, .stderr_fd = o->stderr_fd,
		.stdout_fd = cx->stdout_fd,
		.keep_fd = cx->keep_fd,
	};
	int procs = -1;
	if ((s->co.flags & COUNTERS_PERCPU) &&
	    (procs = run_cgroup_procs(&s->cg, &s->path_why)) < 0)
		s->co.flags &= ~(unsigned)COUNTERS_PERCPU;
	lo.cgroup_fd = procs >= 0 ? procs : 0;
	lo.cgroup_dir_fd = procs >= 0 ? s->cg.fd : 0;
	if (s->path_why)
		counters_forgo_percpu(s->cs, s->path_why);
	int rc = launch_prepare(&s->l, &lo, cause);
	if (procs >= 0)
		close(procs);
	if (rc)
		return rc;
	rc = counters_open_task(s->cs, s->l.pid, s->l.pid, NULL, cause);
	if (rc) {
		launch_abort(&s->l);
		return not_a_launch_error(rc);
	}
	if (exec_gains_privileges(s->l.path)) {
		counters_mark_privileged(s->cs, s->l.pid);
		if (!o->quiet)
			run_warn("%s is a set-user-ID or "
				"set-group-ID program: the kernel does not count "
				"a task whose privileges change at exec, so its "
				"counts will be near zero", s->l.path);
	}
	return 0;
}

/* Attach: the counters open on every thread of the running process. */
static int open_attach(struct session *s, char **cause)
{
	pid_t pid = s->o->attach_pid;
	proc_times(pid, 0, &s->u0, &s->s0);
	s->attached_cmdline = proc_cmdline(pid);
	int rc = open_attached(s->cs, pid, cause);
	if (rc)
		return rc == -ESRCH ? rc : not_a_launch_error(rc);
	return 0;
}

/* Open: the collectors hear of it, and the user of what is not counted. */
static void opened(struct session *s)
{
	const struct runner_opts *o = s->o;
	struct collect_ctx *cx = &s->crew.cx;
	cx->cs = s->cs;
	cx->pid = s->launched ? s->l.pid : o->attach_pid;
	CREW_EACH(&s->crew, m, opened)
		m->ops->opened(m->self, cx);
	if (o->record_dump)
		dump_header(o->record_dump, s->cs, &s->co);
	if (!o->quiet) {
		if (!o->report_follows)
			report_unsupported(s->cs, o->evs, o->nev);
		if (o->plan && o->plan->apply)
			run_info("prof: %s", o->plan->desc);
	}
}

/* Release the launched workload, watch it to its end, and reap it. */
static int watch_launched(struct session *s, struct db_run *run, char **cause)
{
	const struct runner_opts *o = s->o;
	struct collect_ctx *cx = &s->crew.cx;
	/* What the child ran before anything counted it: its start, and
	 * from its release to its exec (outside the run's cgroup, or before
	 * enable_on_exec per task). The audit allows for it: 1.4 ms here, 7
	 * to 26 ms under QEMU (TCG). */
	int64_t pre_ns = task_sched_ns(s->l.pid);
	int rc = launch_release(&s->l, cause);
	if (rc) {
		launch_release_fds(&s->l);
		return rc;
	}
	pre_ns += (int64_t)((mono_now_s() - s->t0) * 1e9);
	cx->uncounted_ns = pre_ns;
	s->cpus_in_force = pin_read_back(s->l.pid);
	struct deadline tmo = { .term_at = o->timeout_s > 0 ? s->t0 + o->timeout_s : 0,
				.crew = &s->crew, .t0 = s->t0 };
	int64_t steal0 = steal_ns();
	s->interrupted = watch(s->cs, &s->l, 0, s->l.pidfd, 0, &tmo);
	s->t1 = mono_now_s();
	cx->stolen_ns = steal_ns() - steal0;
	s->timed_out = tmo.fired;
	cx->root_own_ns = task_own_ns(s->l.pid);	/* a zombie until reaped */
	run->pid = s->l.pid;
	launch_reap(&s->l, &s->status, &s->signo, &s->ru);
	launch_release_fds(&s->l);
	/* Told to stop: what the workload left running goes too (and its
	 * counts arrive before the counters close). */
	if (launch_end_strays(s->interrupted || s->timed_out, 2.0))
		run_warn("some of the workload's processes could not be ended");
	workload_ended();
	return 0;
}

/* Watch the attached process until it exits, the duration ends or a
 * signal comes; its CPU times meanwhile. */
static void watch_attached(struct session *s, struct db_run *run)
{
	const struct runner_opts *o = s->o;
	int pidfd = -1;
#ifdef SYS_pidfd_open
	pidfd = (int)syscall(SYS_pidfd_open, o->attach_pid, 0);
#endif
	if (proc_times(o->attach_pid, 0, &s->u1, &s->s1)) {
		s->u0 = s->u1;
		s->s0 = s->s1;
	}
	struct deadline none = { .crew = &s->crew, .t0 = s->t0 };
	s->interrupted = watch(s->cs, NULL, o->attach_pid, pidfd,
			       o->duration_s > 0 ? s->t0 + o->duration_s : 0, &none);
	s->t1 = mono_now_s();
	workload_ended();
	if (!proc_times(o->attach_pid, 0, &s->u1, &s->s1)) {
		s->u1 = s->u0;	/* it exited: its last times are gone */
		s->s1 = s->s0;
	}
	if (pidfd >= 0)
		close(pidfd);
	run->pid = (int32_t)o->attach_pid;
}

/* The counters are settled, and every collector finishes. */
static void settle(struct session *s)
{
	char *fcause = NULL;
	if (counters_finish(s->cs, &fcause) && fcause)
		run_warn("%s", fcause);
	free(fcause);
	CREW_EACH(&s->crew, m, finish)
		m->ops->finish(m->self, &s->crew.cx);
}

/* What the runner itself knows of the run: its command, times, status
 * and pin. */
static void fill_basics(struct session *s, struct db_run *run)
{
	const struct runner_opts *o = s->o;
	run->kind = strdup(o->kind ? o->kind : s->launched ? "run" : "attach");
	run->started = strdup(s->started);
	run->wall_s = s->t1 - s->t0;
	run->interrupted = s->interrupted;
	if (s->launched) {
		run->command = run_state_command_line(o->argv, o->argc);
		run->argc = o->argc;
		run->argv = calloc((size_t)o->argc + 1, sizeof(char *));
		for (int i = 0; i < o->argc; i++)
			run->argv[i] = strdup(o->argv[i]);
		run->exit_status = s->status;
		run->term_signal = s->signo;
		run->user_s = (double)s->ru.ru_utime.tv_sec + (double)s->ru.ru_utime.tv_usec / 1e6;
		run->sys_s = (double)s->ru.ru_stime.tv_sec + (double)s->ru.ru_stime.tv_usec / 1e6;
	} else {
		run->command = s->attached_cmdline;
		s->attached_cmdline = NULL;
		if (!run->command &&
		    asprintf(&run->command, "-p %d", (int)o->attach_pid) < 0)
			run->command = NULL;
		run->user_s = s->u1 - s->u0;
		run->sys_s = s->s1 - s->s0;
	}
	if (o->cwd)
		run->cwd = strdup(o->cwd);
	const struct pin_plan *p = o->plan;
	run->pin.mode = strdup(p && p->mode ? p->mode : "none");
	run->pin.status = strdup(p && p->apply ? "applied"
				 : p && p->status ? p->status : "not requested");
	run->pin.cpus = s->cpus_in_force;
	s->cpus_in_force = NULL;
	if (p && p->apply) {
		run->pin.level = p->level;
		run->pin.cache_type = p->cache_type ? strdup(p->cache_type) : NULL;
		run->pin.size_bytes = p->size_bytes;
		db_set_str(run, SET_PIN_DESC, p->desc);
	}
}

/* The run's own settings, and --cleanup once everything is read. */
static void fill_settings(struct session *s, struct db_run *run)
{
	const struct runner_opts *o = s->o;
	if (s->launched && o->timeout_s > 0) {
		db_set_f64(run, SET_TIMEOUT_S, o->timeout_s);
		if (s->timed_out)
			db_set_flag(run, SET_TIMED_OUT);
	}
	if (o->mmap_pages)
		db_set_u64(run, SET_MMAP_PAGES, o->mmap_pages);
	if (s->launched && o->prepare)
		db_set_str(run, SET_PREPARE, o->prepare);
	if (s->launched && o->cleanup) {
		db_set_str(run, SET_CLEANUP, o->cleanup);
		/* After everything is read (the machine's deltas too), and
		 * with the signals still caught: the run stands. */
		if (!s->interrupted)
			run_cleanup(o, run);
	}
}

int runner_run(const struct runner_opts *o, struct db_run *run, char **cause)
{
	memset(run, 0, sizeof(*run));
	struct session s = { .o = o, .launched = o->attach_pid <= 0, .cg = { .fd = -1 } };
	if (!s.launched && kill(o->attach_pid, 0) != 0 && errno == ESRCH) {
		cause_set(cause, 0, "cannot attach to process %d: no such "
			  "process", (int)o->attach_pid);
		return -ESRCH;
	}
	/* Before anything of the run exists: nothing of it is counted. */
	if (s.launched && o->prepare) {
		int prc = run_prepare(o, cause);
		if (prc)
			return prc;
	}
	int rc = session_prepare(&s, cause);
	if (rc)
		goto out_release;

	workload_over = 0;
	catch_signals(s.old);
	got_signal = 0;
	run_state_now_iso(s.started, sizeof(s.started));
	s.l.go_fd = s.l.err_fd = s.l.pidfd = -1;
	rc = s.launched ? open_launched(&s, cause) : open_attach(&s, cause);
	if (rc)
		goto out_signals;
	opened(&s);

	s.t0 = mono_now_s();
	s.crew.cx.t0_ns = (uint64_t)(s.t0 * 1e9);
	if (s.launched && (rc = watch_launched(&s, run, cause)))
		goto out_signals;
	if (!s.launched)
		watch_attached(&s, run);
	settle(&s);
	fill_basics(&s, run);
	rc = crew_fill(&s.crew, run, cause);
	if (rc) {
		db_run_release(run);
		memset(run, 0, sizeof(*run));
		goto out_signals;
	}
	fill_settings(&s, run);
out_signals:
	free(s.attached_cmdline);
	free(s.cpus_in_force);
	for (size_t i = 0; i < NCAUGHT; i++)
		sigaction(caught[i], &s.old[i], NULL);
	counters_free(s.cs);
out_release:
	if (run_cgroup_remove(&s.cg))
		run_warn("cannot remove the run's cgroup: a task of the "
			 "workload is still in it");
	free(s.path_why);
	crew_release(&s.crew);
	pmu_plan_release(&s.plan);
	return rc;
}
