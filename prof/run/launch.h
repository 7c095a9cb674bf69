/*
 * launch: start a workload the way the counters need it: fork, let the
 * child apply its settings (working directory, environment, CPU pin) and
 * wait on a pipe, so the caller can open events on it before it execs;
 * then release it and learn whether exec succeeded.
 *
 * Signals: the child restores default dispositions and an empty mask
 * before exec, so the workload's own handlers behave as without prof.
 * If prof dies, the kernel kills the workload's first process (the
 * parent-death signal, SIGKILL included); prof makes itself the
 * subreaper of the workload's processes, so those its parents leave
 * behind stay within reach (launch_signal_tree, launch_end_strays).
 * Owned by the caller; not thread-safe.
 */
#ifndef PROF_LAUNCH_H
#define PROF_LAUNCH_H

#ifndef PROF_RUN_H
#error "include prof/run/run.h, the run engine's one public header"
#endif

#include <sched.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct launch_opts {
	char **argv;		/* NULL-terminated; argv[0] searched in PATH */
	const char *cwd;	/* or NULL */
	char **env_set;		/* "K=V" entries to set, NULL-terminated, or NULL */
	const cpu_set_t *pin;	/* or NULL: leave affinity alone */
	size_t pin_size;	/* CPU_ALLOC_SIZE of pin */
	int out_fd;		/* >= 0: the workload's stdout and stderr go
				   here; -1: they stay prof's own */
	int stderr_fd;		/* > 0 (with out_fd >= 0): its stderr goes
				   here instead; 0: with its stdout */
	int stdout_fd;		/* > 0: the workload's stdout goes here
				   instead (after out_fd); 0: unchanged */
	int keep_fd;		/* > 0: left open across exec (a pipe prof
				   names in the environment); 0: none */
	int cgroup_fd;		/* > 0: a cgroup.procs (close-on-exec) the
				   child joins last thing before its exec,
				   so that what it runs before is not the
				   workload's; 0: none */
	int cgroup_dir_fd;	/* > 0 (with cgroup_fd): that cgroup's
				   directory; the child is then born in it
				   (clone3's CLONE_INTO_CGROUP, Linux 5.7),
				   which spares the migration's wait for
				   the kernel's cgroup lock (5-14 ms of a
				   run of `true`), and launch_prepare
				   returns once its set-up is done, so that
				   counters opened after it see only the
				   release and the exec. Where clone3 is
				   refused (older kernels, seccomp), the
				   child joins through cgroup_fd. */
};

struct launch {
	pid_t pid;
	bool born_in_cgroup;	/* cloned into launch_opts.cgroup_dir_fd */
	int go_fd;		/* write end: one byte releases the child */
	int err_fd;		/* read end: EOF on exec, else stage + errno */
	int pidfd;		/* -1 when pidfd_open is not available */
	char *path;		/* the resolved executable */
};

/*
 * Resolve argv[0] in PATH (or as given when it holds a '/'). Returns the
 * path (malloc'd) or NULL with *cause: "command not found" or "not
 * executable", and errno set.
 */
char *launch_resolve(const char *cmd, char **cause);

/*
 * Fork the child, which stops before exec. 0 or -errno with *cause; a
 * child born in the run's cgroup does its set-up (chdir, pin) before
 * this returns, and a set-up that failed is said here (the child reaped,
 * l's descriptors released), as launch_release says it otherwise.
 */
int launch_prepare(struct launch *l, const struct launch_opts *o, char **cause);

/*
 * Release the child and wait until it has exec'd. 0 on success; -errno
 * with *cause when the child could not pin, chdir or exec (it has then
 * exited with 127 and been reaped).
 */
int launch_release(struct launch *l, char **cause);

/* Kill and reap a child that will not be released. */
void launch_abort(struct launch *l);

/*
 * Has the child exited? Non-blocking; true once it is a zombie (not yet
 * reaped). With a pidfd the caller can also poll it for POLLIN.
 */
bool launch_exited(struct launch *l);

/* Reap: status as a shell reports it (code, or 128+signal). */
int launch_reap(struct launch *l, int *status, int *signo, struct rusage *ru);

/*
 * The workload's processes, its first one and every one below it: send
 * them sig, as a terminal's Ctrl-C reaches a whole foreground group (a
 * kill of prof alone reaches only prof). Processes in except_pgrp (the
 * group a terminal signalled already) are left out; 0: none.
 */
void launch_signal_tree(const struct launch *l, int sig, pid_t except_pgrp);

/* SIGKILL every process below prof: the workload and what it left. */
void launch_kill_all(void);

/*
 * After the workload's first process was reaped: prof is the subreaper
 * of what it leaves behind, so those processes are prof's children now.
 * end: wait up to grace_s for them to exit, then SIGKILL what is left,
 * reaping them all; returns how many could not be ended (0 normally).
 * !end (a run that ended by itself: daemons are the workload's business):
 * only reap those that have exited; returns 0.
 */
size_t launch_end_strays(bool end, double grace_s);

void launch_release_fds(struct launch *l);

#endif
