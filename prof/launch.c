/*
 * launch: fork a workload that waits for the counters, then exec it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prof/launch.h"

enum { STAGE_CHDIR = 1, STAGE_PIN = 2, STAGE_EXEC = 3 };

static bool is_exec_file(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

char *launch_resolve(const char *cmd, char **cause)
{
	char shown[64];
	snprintf(shown, sizeof(shown), "%.40s%s", cmd, strlen(cmd) > 40 ? "..." : "");
	if (!*cmd) {
		if (cause && asprintf(cause, "empty command name") < 0)
			*cause = NULL;
		errno = ENOENT;
		return NULL;
	}
	if (strchr(cmd, '/')) {
		struct stat sb;
		if (stat(cmd, &sb) != 0) {
			int err = errno;
			if (cause && asprintf(cause, "cannot run '%s': %s", shown,
					      strerror(err)) < 0)
				*cause = NULL;
			errno = err;
			return NULL;
		}
		if (!S_ISREG(sb.st_mode) || access(cmd, X_OK) != 0) {
			if (cause && asprintf(cause, "cannot run '%s': %s", shown,
					      S_ISDIR(sb.st_mode) ? "it is a directory"
					      : "not executable") < 0)
				*cause = NULL;
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
	if (cause && asprintf(cause, "command not found: '%s'\n"
			      "hint: check the spelling, or give a path "
			      "(./%s for a program in this directory)", shown,
			      shown) < 0)
		*cause = NULL;
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

static void child_main(const struct launch_opts *o, const char *path,
		       int go_rd, int err_wr, pid_t prof_pid)
{
	/* If prof dies, even of SIGKILL, the workload does not run on
	 * unwatched: the kernel kills it (the signal survives exec). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != prof_pid)
		_exit(127);
	/* Default dispositions and an empty mask, as without prof. */
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
				    SIGCHLD, SIGTTOU, SIGTTIN, SIGXFSZ };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (o->out_fd >= 0) {
		dup2(o->out_fd, 1);
		dup2(o->out_fd, 2);
	}
	if (o->cwd && chdir(o->cwd) != 0)
		child_fail(err_wr, STAGE_CHDIR);
	for (size_t i = 0; o->env_set && o->env_set[i]; i++)
		putenv(o->env_set[i]);
	/* Pid 0: the whole process, so every thread spawned later inherits. */
	if (o->pin && sched_setaffinity(0, o->pin_size, o->pin) != 0)
		child_fail(err_wr, STAGE_PIN);

	char b;
	ssize_t n;
	do {
		n = read(go_rd, &b, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);	/* prof gave up before releasing us */
	close(go_rd);
	execv(path, o->argv);
	child_fail(err_wr, STAGE_EXEC);
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
	fflush(NULL);
	pid_t prof_pid = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		if (cause && asprintf(cause, "cannot fork: %s", strerror(e)) < 0)
			*cause = NULL;
		return -e;
	}
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		child_main(o, l->path, go[0], err[1], prof_pid);
	}
	close(go[0]);
	close(err[1]);
	l->pid = pid;
	l->go_fd = go[1];
	l->err_fd = err[0];
#ifdef SYS_pidfd_open
	l->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	return 0;
}

int launch_release(struct launch *l, char **cause)
{
	ssize_t n = write(l->go_fd, "g", 1);
	close(l->go_fd);
	l->go_fd = -1;
	if (n != 1) {
		int e = errno;
		if (cause && asprintf(cause, "cannot release the workload: %s",
				      strerror(e)) < 0)
			*cause = NULL;
		return -e;
	}
	int msg[2];
	do {
		n = read(l->err_fd, msg, sizeof(msg));
	} while (n < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	if (n == 0)
		return 0;	/* EOF: the close-on-exec pipe closed at exec */
	int stage = n == (ssize_t)sizeof(msg) ? msg[0] : STAGE_EXEC;
	int e = n == (ssize_t)sizeof(msg) ? msg[1] : EIO;
	const char *what = stage == STAGE_CHDIR ? "cannot change to the working directory"
			 : stage == STAGE_PIN ? "cannot pin the workload"
			 : "cannot run";
	if (cause && asprintf(cause, "%s '%s': %s", what, l->path, strerror(e)) < 0)
		*cause = NULL;
	int st;
	waitpid(l->pid, &st, 0);
	l->pid = 0;
	return -e;
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
