/*
 * ringwake: a SIGIO per filled ring buffer, read from a signalfd, in
 * place of sleeping on the buffers' fds (ringwake.h says why).
 */
#include "collectors/ringwake.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

int ringwake_start(struct ringwake *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	sigset_t io;
	sigemptyset(&io);
	sigaddset(&io, SIGIO);
	/* Ignored, so that one arriving once the mask is back is dropped;
	 * blocked, so that it is kept for the signalfd until then (the
	 * kernel queues a blocked signal whatever its disposition). */
	struct sigaction ign;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	if (sigaction(SIGIO, &ign, &w->old_act) != 0)
		return -errno;
	int rc = pthread_sigmask(SIG_BLOCK, &io, &w->old_mask);
	if (rc) {
		sigaction(SIGIO, &w->old_act, NULL);
		return -rc;
	}
	w->fd = signalfd(-1, &io, SFD_NONBLOCK | SFD_CLOEXEC);
	if (w->fd < 0) {
		int err = errno;
		pthread_sigmask(SIG_SETMASK, &w->old_mask, NULL);
		sigaction(SIGIO, &w->old_act, NULL);
		return -err;
	}
	w->tid = gettid();
	return 0;
}

int ringwake_arm(const struct ringwake *w, int perf_fd)
{
	if (!w || w->fd < 0)
		return -EBADF;
	/* To this thread alone: another thread of prof's, its SIGIO not
	 * blocked, would take it and find it ignored. */
	struct f_owner_ex own = { .type = F_OWNER_TID, .pid = w->tid };
	if (fcntl(perf_fd, F_SETOWN_EX, &own) != 0)
		return -errno;
	/* F_SETFL changes only the status flags; a perf fd has no others. */
	if (fcntl(perf_fd, F_SETFL, O_ASYNC) != 0)
		return -errno;
	return 0;
}

void ringwake_clear(const struct ringwake *w)
{
	if (!w || w->fd < 0)
		return;
	struct signalfd_siginfo si[8];
	while (read(w->fd, si, sizeof(si)) > 0)
		;
}

void ringwake_stop(struct ringwake *w)
{
	if (!w || w->fd < 0)
		return;
	close(w->fd);
	w->fd = -1;
	/* Unblocked while ignored: a pending one is discarded. */
	pthread_sigmask(SIG_SETMASK, &w->old_mask, NULL);
	sigaction(SIGIO, &w->old_act, NULL);
}
