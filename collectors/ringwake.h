/*
 * ringwake: being told a ring buffer filled, without sleeping on it.
 *
 * A task that sleeps in poll() on a perf event's fd is woken at every
 * exit of every inherited child of every event that writes into that
 * buffer: the kernel kicks each parent event's buffer at the child's exit
 * (perf_event_exit_event, "Kick perf_poll() for is_event_hup()"), and
 * the kick wakes every waiter on every event of the buffer, though
 * poll() then finds nothing to return and sleeps again. A 5,000-thread
 * churn with four events so woke prof about 20,000 times: 0.48 s against
 * 0.35 s for the same recipe drained on a timer (a bare prototype of
 * the per-task recipe, 2026-12-06).
 *
 * So nothing sleeps on those fds: each event that writes into a buffer
 * is set to signal SIGIO (O_ASYNC) to one thread when its buffer passes
 * its watermark, which the kernel does only then, and that thread reads
 * the signal from a signalfd it polls. SIGIO is blocked in that thread
 * and ignored in the process while a watch is on, so a signal that
 * arrives after the watch no longer looks does nothing; a launched
 * workload gets the default back (launch.c).
 */
#ifndef COLLECTORS_RINGWAKE_H
#define COLLECTORS_RINGWAKE_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct ringwake {
	int fd;			/* the signalfd, or -1: not watching */
	pid_t tid;		/* the thread told */
	sigset_t old_mask;
	struct sigaction old_act;
};

/* Start watching in the calling thread: 0, or -errno (w->fd is -1 then,
 * and the caller polls the buffers' fds as before). */
int ringwake_start(struct ringwake *w);

/* Have perf event fd signal w when its buffer passes its watermark:
 * 0, or -errno (nothing watched: the caller polls the fd instead). */
int ringwake_arm(const struct ringwake *w, int perf_fd);

/* Take the signals that arrived, so that the fd reads empty again. */
void ringwake_clear(const struct ringwake *w);

/* Stop: the mask and SIGIO's disposition as they were; a signal still
 * pending is dropped. Safe on a watch that never started. */
void ringwake_stop(struct ringwake *w);

#endif
