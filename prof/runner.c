/*
 * runner: launch, count, drain and reap one workload; see runner.h.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collectors/counters.h"
#include "prof/launch.h"
#include "prof/runner.h"
#include "prof/runutil.h"

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t got_signal_from_tty;
static volatile sig_atomic_t ever_interrupted;

static void on_signal(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	got_signal = sig;
	ever_interrupted = 1;
	/* A terminal's Ctrl-C reaches the whole foreground group (the
	 * workload too) with SI_KERNEL; kill(1) reaches only prof. */
	got_signal_from_tty = si && si->si_code == SI_KERNEL;
}

static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NCAUGHT (sizeof(caught) / sizeof(caught[0]))

bool runner_interrupted(void)
{
	return ever_interrupted != 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int runner_run(const struct runner_opts *o, struct db_run *run, char **cause)
{
	memset(run, 0, sizeof(*run));
	struct counters_opts co = {
		.events = o->evs, .nevents = o->nev, .mmap_pages = o->mmap_pages,
		.flags = COUNTERS_ENABLE_ON_EXEC,
		.samplers = o->samplers, .nsamplers = o->nsamplers,
		.on_record = o->on_record, .rec_arg = o->rec_arg,
		.record_hook = o->record_hook, .hook_arg = o->hook_arg,
	};
	struct counters *cs = counters_new(&co);
	if (!cs) {
		int e = errno;
		if (cause && asprintf(cause, "cannot set up the counters: %s",
				      strerror(e)) < 0)
			*cause = NULL;
		return -e;
	}
	struct sigaction sa, old[NCAUGHT];
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: poll must wake */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NCAUGHT; i++)
		sigaction(caught[i], &sa, &old[i]);
	got_signal = 0;

	struct launch l;
	struct launch_opts lo = {
		.argv = o->argv, .cwd = o->cwd, .env_set = o->env_set,
		.pin = o->plan && o->plan->apply ? o->plan->set : NULL,
		.pin_size = o->plan ? o->plan->setsize : 0,
		.out_fd = o->out_fd,
	};
	char started[32];
	run_state_now_iso(started, sizeof(started));
	int rc = launch_prepare(&l, &lo, cause);
	if (rc)
		goto out_signals;
	rc = counters_open_task(cs, l.pid, l.pid, NULL, cause);
	if (!rc && o->opened)
		rc = o->opened(cs, o->opened_arg, cause);
	if (rc) {
		launch_abort(&l);
		goto out_signals;
	}
	if (!o->quiet) {
		report_unsupported(cs, o->evs, o->nev);
		if (o->plan && o->plan->apply)
			fprintf(stderr, "prof: %s\n", o->plan->desc);
	}
	double t0 = now_s();
	rc = launch_release(&l, cause);
	if (rc) {
		launch_release_fds(&l);
		goto out_signals;
	}
	char *cpus_in_force = pin_read_back(l.pid);

	bool interrupted = false;
	struct pollfd pfd[2];
	for (;;) {
		size_t n = counters_pollfds(cs, pfd, 1);
		if (l.pidfd >= 0) {
			pfd[n].fd = l.pidfd;
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			n++;
		}
		poll(pfd, n, 100);
		counters_drain(cs);
		if (got_signal) {
			int sig = got_signal;
			got_signal = 0;
			interrupted = true;
			if (!got_signal_from_tty)
				kill(l.pid, sig);
		}
		if (launch_exited(&l))
			break;
	}
	double t1 = now_s();
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	int status = 0, signo = 0;
	pid_t pid = l.pid;
	launch_reap(&l, &status, &signo, &ru);
	launch_release_fds(&l);

	char *fcause = NULL;
	if (counters_finish(cs, &fcause) && fcause)
		fprintf(stderr, "warning: %s\n", fcause);
	free(fcause);

	run->kind = strdup(o->kind ? o->kind : "run");
	run->started = strdup(started);
	run->wall_s = t1 - t0;
	run->command = run_state_command_line(o->argv, o->argc);
	run->argc = o->argc;
	run->argv = calloc((size_t)o->argc + 1, sizeof(char *));
	for (int i = 0; i < o->argc; i++)
		run->argv[i] = strdup(o->argv[i]);
	run->pid = pid;
	run->exit_status = status;
	run->term_signal = signo;
	run->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	run->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	run->interrupted = interrupted;
	if (o->cwd)
		run->cwd = strdup(o->cwd);
	const struct pin_plan *p = o->plan;
	run->pin.mode = strdup(p && p->mode ? p->mode : "none");
	run->pin.status = strdup(p && p->apply ? "applied"
				 : p && p->status ? p->status : "not requested");
	run->pin.cpus = cpus_in_force;
	if (p && p->apply) {
		run->pin.level = p->level;
		run->pin.cache_type = p->cache_type ? strdup(p->cache_type) : NULL;
		run->pin.size_bytes = p->size_bytes;
		db_run_set(run, "pin_desc", p->desc);
	}
	struct run_state rs;
	memset(&rs, 0, sizeof(rs));
	run_state_fill(&rs, run, cs, o->evs, o->nev);
	rc = 0;
out_signals:
	for (size_t i = 0; i < NCAUGHT; i++)
		sigaction(caught[i], &old[i], NULL);
	counters_free(cs);
	return rc;
}
