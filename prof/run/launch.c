/*
 * launch: fork a workload that waits for the counters, then exec it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/errtext.h"
#include "common/procstat.h"
#include "common/utf8.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

enum { STAGE_CHDIR = 1, STAGE_PIN = 2, STAGE_EXEC = 3, STAGE_CGROUP = 4,
       STAGE_READY = 5 };

/* clone3's arguments up to the cgroup (CLONE_ARGS_SIZE_VER2, Linux 5.7),
 * spelled here as the uapi header's <linux/sched.h> clashes with
 * <sched.h>'s CLONE_ macros. */
struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif
#ifndef SYS_clone3
#define SYS_clone3 435	/* the same number on every architecture */
#endif

static bool is_exec_file(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

char *launch_resolve(const char *cmd, char **cause)
{
	char shown[64];
	snprintf(shown, sizeof(shown), "%.*s%s", (int)utf8_cut(cmd, strlen(cmd), 40), cmd,
		 strlen(cmd) > 40 ? "..." : "");
	if (!*cmd) {
		cause_set(cause, 0, "empty command name");
		errno = ENOENT;
		return NULL;
	}
	if (strchr(cmd, '/')) {
		struct stat sb;
		if (stat(cmd, &sb) != 0) {
			int err = errno;
			cause_set(cause, 0, "cannot run '%s': %s", shown,
				  ERR_TEXT(err));
			errno = err;
			return NULL;
		}
		if (!S_ISREG(sb.st_mode) || access(cmd, X_OK) != 0) {
			cause_set(cause, 0, "cannot run '%s': %s", shown,
				  S_ISDIR(sb.st_mode) ? "it is a directory"
				  : "not executable");
			errno = EACCES;
			return NULL;
		}
		return strdup(cmd);
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	const char *p = path;
	while (*p) {
		size_t len = strcspn(p, ":");
		char *cand;
		if (asprintf(&cand, "%.*s/%s", (int)(len ? len : 1),
			     len ? p : ".", cmd) < 0)
			break;
		if (is_exec_file(cand))
			return cand;
		free(cand);
		p += len;
		if (*p == ':')
			p++;
	}
	cause_set(cause, 0, "command not found: '%s'\n"
		  "hint: check the spelling, or give a path "
		  "(./%s for a program in this directory)", shown,
		  shown);
	errno = ENOENT;
	return NULL;
}

/* In the child: report a failed stage to the parent and exit 127. */
static void child_fail(int fd, int stage)
{
	int msg[2] = { stage, errno };
	ssize_t n = write(fd, msg, sizeof(msg));
	(void)n;
	_exit(127);
}

/*
 * The workload's environment: environ with each "K=V" of set in K's
 * place (or after the rest), as putenv would leave it. Built in prof,
 * since a child cloned by a raw clone3 must not allocate: glibc's fork
 * handlers (its malloc locks among them) ran only for fork. The array
 * is malloc'd; its strings are environ's and set's.
 */
static char **workload_env(char **set)
{
	extern char **environ;
	size_t ne = 0, ns = 0;
	while (environ && environ[ne])
		ne++;
	while (set && set[ns])
		ns++;
	char **env = calloc(ne + ns + 1, sizeof(*env));
	bool *used = calloc(ns + 1, sizeof(*used));
	if (!env || !used) {
		free(env);
		free(used);
		return NULL;
	}
	size_t n = 0;
	for (size_t i = 0; i < ne; i++) {
		size_t klen = strcspn(environ[i], "=");
		env[n] = environ[i];
		for (size_t k = 0; k < ns; k++)
			if (!strncmp(set[k], environ[i], klen) && set[k][klen] == '=') {
				env[n] = set[k];
				used[k] = true;	/* the last one of a key wins */
			}
		n++;
	}
	for (size_t k = 0; k < ns; k++) {
		bool later = false;	/* a key set twice: its last value */
		size_t klen = strcspn(set[k], "=");
		for (size_t j = k + 1; j < ns && !later; j++)
			later = !strncmp(set[j], set[k], klen) && set[j][klen] == '=';
		if (!used[k] && !later)
			env[n++] = set[k];
	}
	free(used);
	return env;
}

static void child_main(const struct launch_opts *o, const char *path,
		       char **env, bool born_in_cgroup, int go_rd, int err_wr,
		       pid_t prof_pid)
{
	/* If prof dies, even of SIGKILL, the workload does not run on
	 * unwatched: the kernel kills it (the signal survives exec). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != prof_pid)
		_exit(127);
	/* Default dispositions and an empty mask, as without prof. */
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
				    SIGCHLD, SIGTTOU, SIGTTIN, SIGXFSZ, SIGIO };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (o->out_fd >= 0) {
		dup2(o->out_fd, 1);
		dup2(o->stderr_fd > 0 ? o->stderr_fd : o->out_fd, 2);
	}
	if (o->stdout_fd > 0)
		dup2(o->stdout_fd, 1);
	if (o->keep_fd > 0)
		fcntl(o->keep_fd, F_SETFD, 0);
	if (o->cwd && chdir(o->cwd) != 0)
		child_fail(err_wr, STAGE_CHDIR);
	/* Pid 0: the whole process, so every thread spawned later inherits. */
	if (o->pin && sched_setaffinity(0, o->pin_size, o->pin) != 0)
		child_fail(err_wr, STAGE_PIN);
	if (born_in_cgroup) {
		/* Set up: prof may open the counters now. */
		int msg[2] = { STAGE_READY, 0 };
		if (write(err_wr, msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			_exit(127);
	}

	char b;
	ssize_t n;
	do {
		n = read(go_rd, &b, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);	/* prof gave up before releasing us */
	close(go_rd);
	if (!born_in_cgroup && o->cgroup_fd > 0 &&
	    write(o->cgroup_fd, "0\n", 2) != 2)
		child_fail(err_wr, STAGE_CGROUP);
	execve(path, o->argv, env);
	child_fail(err_wr, STAGE_EXEC);
}

/*
 * Fork, or clone3 into the cgroup dir_fd when > 0: then *born says
 * whether the kernel took it (5.7 and later, where no seccomp filter
 * refuses clone3); otherwise a plain fork.
 */
static pid_t fork_into(int dir_fd, bool *born)
{
	*born = false;
	if (dir_fd > 0) {
		struct clone3_args ca;
		memset(&ca, 0, sizeof(ca));
		ca.flags = CLONE_INTO_CGROUP;
		ca.exit_signal = SIGCHLD;
		ca.cgroup = (uint64_t)dir_fd;
		long pid = syscall(SYS_clone3, &ca, sizeof(ca));
		if (pid >= 0) {
			*born = true;
			return (pid_t)pid;
		}
		/* ENOSYS, E2BIG, EINVAL (before 5.7), EPERM (seccomp),
		 * EOPNOTSUPP (a cgroup that takes no processes): fork. */
	}
	return fork();
}

/* The child said its set-up failed at stage (it exits then): the cause,
 * the child reaped. -e. */
static int setup_failed(struct launch *l, int stage, int e, char **cause)
{
	const char *what = stage == STAGE_CHDIR ? "cannot change to the working directory"
			 : stage == STAGE_PIN ? "cannot pin the workload"
			 : stage == STAGE_CGROUP ? "cannot move into the run's cgroup"
			 : "cannot run";
	cause_set(cause, 0, "%s '%s': %s", what, l->path, ERR_TEXT(e));
	int st;
	waitpid(l->pid, &st, 0);
	l->pid = 0;
	return -e;
}

int launch_prepare(struct launch *l, const struct launch_opts *o, char **cause)
{
	memset(l, 0, sizeof(*l));
	l->go_fd = l->err_fd = l->pidfd = -1;
	l->path = launch_resolve(o->argv[0], cause);
	if (!l->path)
		return -errno;

	int go[2], err[2];
	if (pipe2(go, O_CLOEXEC) != 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) != 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		return -e;
	}
	/* What the workload leaves behind comes to prof, not init, so that
	 * prof can still end it when it is itself told to stop. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	char **env = workload_env(o->env_set);
	if (!env) {
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return -ENOMEM;
	}
	fflush(NULL);
	pid_t prof_pid = getpid();
	bool born;
	pid_t pid = fork_into(o->cgroup_fd > 0 ? o->cgroup_dir_fd : 0, &born);
	if (pid < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		free(env);
		cause_set(cause, 0, "cannot fork: %s", ERR_TEXT(e));
		return -e;
	}
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		child_main(o, l->path, env, born, go[0], err[1], prof_pid);
	}
	free(env);
	close(go[0]);
	close(err[1]);
	l->pid = pid;
	l->born_in_cgroup = born;
	l->go_fd = go[1];
	l->err_fd = err[0];
#ifdef SYS_pidfd_open
	l->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	if (born) {
		/* Its set-up done, or failed: then said now, before anything
		 * is opened on a child that is gone. */
		ssize_t n;
		int msg[2];
		do {
			n = read(l->err_fd, msg, sizeof(msg));
		} while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(msg) || msg[0] != STAGE_READY) {
			int rc = setup_failed(l, n == (ssize_t)sizeof(msg) ? msg[0] : STAGE_EXEC,
					      n == (ssize_t)sizeof(msg) ? msg[1] : EIO, cause);
			launch_release_fds(l);
			return rc;
		}
	}
	return 0;
}

/*
 * write(2) of one byte into a pipe whose reader may be gone, without the
 * SIGPIPE that would kill prof: the signal is held while writing and a
 * pending one taken back. 1, or -1 with errno (EPIPE: no reader).
 */
static ssize_t write_unless_gone(int fd, const char *b)
{
	sigset_t pipe_only, old;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
	ssize_t n = write(fd, b, 1);
	int e = errno;
	if (n < 0 && e == EPIPE && !sigismember(&old, SIGPIPE)) {
		const struct timespec now = { 0, 0 };
		while (sigtimedwait(&pipe_only, NULL, &now) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return n;
}

int launch_release(struct launch *l, char **cause)
{
	int msg[2];
	/* A child whose set-up failed (chdir, pin) has said so and exited:
	 * its pipe has no reader, and what it said is read below. */
	ssize_t n = write_unless_gone(l->go_fd, "g");
	int we = errno;
	close(l->go_fd);
	l->go_fd = -1;
	if (n != 1 && we != EPIPE) {
		cause_set(cause, 0, "cannot release the workload: %s", ERR_TEXT(we));
		return -we;
	}
	do {
		n = read(l->err_fd, msg, sizeof(msg));
	} while (n < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	if (n == 0 && we != EPIPE)
		return 0;	/* EOF: the close-on-exec pipe closed at exec */
	return setup_failed(l, n == (ssize_t)sizeof(msg) ? msg[0] : STAGE_EXEC,
			    n == (ssize_t)sizeof(msg) ? msg[1] : EIO, cause);
}

void launch_abort(struct launch *l)
{
	if (l->pid > 0) {
		kill(l->pid, SIGKILL);
		int st;
		waitpid(l->pid, &st, 0);
		l->pid = 0;
	}
	launch_release_fds(l);
}

bool launch_exited(struct launch *l)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)l->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
		return errno == ECHILD;
	return si.si_pid == l->pid;
}

int launch_reap(struct launch *l, int *status, int *signo, struct rusage *ru)
{
	int st;
	pid_t r;
	do {
		r = wait4(l->pid, &st, 0, ru);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	l->pid = 0;
	if (WIFSIGNALED(st)) {
		*signo = WTERMSIG(st);
		*status = 128 + *signo;
	} else {
		*signo = 0;
		*status = WEXITSTATUS(st);
	}
	return 0;
}

/* ---- the workload's processes ---- */

struct proc_ids {
	pid_t pid, ppid, pgid;
};

/* Every process on the machine with its parent and group, from /proc. */
static size_t scan_procs(struct proc_ids **out)
{
	size_t n = 0, cap = 256;
	*out = malloc(cap * sizeof(**out));
	DIR *d = opendir("/proc");
	if (!*out || !d) {
		if (d)
			closedir(d);
		return 0;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		struct proc_stat ps;
		if (proc_stat_read(de->d_name, NULL, &ps))
			continue;	/* it exited meanwhile */
		if (n == cap) {
			struct proc_ids *bigger = realloc(*out, 2 * cap * sizeof(**out));
			if (!bigger)
				break;
			*out = bigger;
			cap *= 2;
		}
		(*out)[n++] = (struct proc_ids){ (pid_t)atoi(de->d_name), ps.ppid,
						  ps.pgrp };
	}
	closedir(d);
	return n;
}

/*
 * root's descendants (and root itself when with_root), each once; a
 * process whose parent is on the list joins it. Returns how many.
 */
static size_t descendants(pid_t root, bool with_root, struct proc_ids **out)
{
	struct proc_ids *all;
	size_t n = scan_procs(&all), m = 0;
	*out = calloc(n + 1, sizeof(**out));
	if (!*out) {
		free(all);
		return 0;
	}
	if (with_root) {
		for (size_t i = 0; i < n; i++)
			if (all[i].pid == root)
				(*out)[m++] = all[i];
	}
	bool grew = true;
	while (grew) {
		grew = false;
		for (size_t i = 0; i < n; i++) {
			if (all[i].pid == 0)
				continue;	/* taken */
			bool child = all[i].ppid == root;
			for (size_t k = 0; k < m && !child; k++)
				child = all[i].ppid == (*out)[k].pid;
			if (child) {
				(*out)[m++] = all[i];
				all[i].pid = 0;
				grew = true;
			}
		}
	}
	free(all);
	return m;
}

void launch_signal_tree(const struct launch *l, int sig, pid_t except_pgrp)
{
	if (l->pid <= 0)
		return;
	/* Collect first, then signal: a process that dies of it hands its
	 * children to prof, no longer below the workload. */
	struct proc_ids *tree;
	size_t n = descendants(l->pid, true, &tree);
	if (n == 0)
		kill(l->pid, sig);	/* /proc unreadable: the first one at least */
	for (size_t i = 0; i < n; i++)
		if (!except_pgrp || tree[i].pgid != except_pgrp)
			kill(tree[i].pid, sig);
	free(tree);
}

void launch_kill_all(void)
{
	struct proc_ids *tree;
	size_t n = descendants(getpid(), false, &tree);
	for (size_t i = 0; i < n; i++)
		kill(tree[i].pid, SIGKILL);
	free(tree);
}

/* Reap every child of prof's that has exited; true when none is left. */
static bool reap_exited(void)
{
	for (;;) {
		pid_t r = waitpid(-1, NULL, WNOHANG);
		if (r < 0)
			return errno == ECHILD;
		if (r == 0)
			return false;
	}
}

size_t launch_end_strays(bool end, double grace_s)
{
	struct proc_ids *left;
	size_t n = 0;
	if (!end) {
		reap_exited();	/* daemons may run on; the exited go */
		return 0;
	}
	struct timespec t0, now, nap = { 0, 10000000 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bool killed = false;
	for (;;) {
		bool none = reap_exited();
		n = descendants(getpid(), false, &left);
		free(left);
		if (none || n == 0)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		double el = (double)(now.tv_sec - t0.tv_sec) +
			    (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		if (!killed && el >= grace_s) {
			launch_kill_all();
			killed = true;
		} else if (killed && el >= grace_s + 5) {
			return n;	/* unkillable (stuck in the kernel): give up */
		}
		nanosleep(&nap, NULL);
	}
}

void launch_release_fds(struct launch *l)
{
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	if (l->pidfd >= 0)
		close(l->pidfd);
	l->go_fd = l->err_fd = l->pidfd = -1;
	free(l->path);
	l->path = NULL;
}
