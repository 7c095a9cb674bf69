/*
 * ringwake: a buffer that passes its watermark is told on the signalfd
 * and only then (an inherited thread's exit is not), and SIGIO's mask
 * and disposition are as they were once the watch stops.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "collectors/ringwake.h"

#define PAGES 8

static bool sigio_blocked(void)
{
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, SIGIO);
}

static bool told(const struct ringwake *w, int ms)
{
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void on_sigio(int sig)
{
	(void)sig;
}

static void test_ringwake__stop_gives_back_the_mask_and_the_handler(void **state)
{
	(void)state;
	struct sigaction mine, was;
	memset(&mine, 0, sizeof(mine));
	mine.sa_handler = on_sigio;
	sigemptyset(&mine.sa_mask);
	assert_int_equal(sigaction(SIGIO, &mine, &was), 0);
	assert_false(sigio_blocked());
	struct ringwake w;
	assert_int_equal(ringwake_start(&w), 0);
	assert_true(w.fd >= 0);
	assert_true(sigio_blocked());
	struct sigaction during;
	sigaction(SIGIO, NULL, &during);
	assert_ptr_equal(during.sa_handler, SIG_IGN);
	/* One raised now is kept for the fd, then dropped at the stop. */
	raise(SIGIO);
	assert_true(told(&w, 0));
	ringwake_stop(&w);
	assert_int_equal(w.fd, -1);
	assert_false(sigio_blocked());
	struct sigaction after;
	sigaction(SIGIO, NULL, &after);
	assert_ptr_equal(after.sa_handler, on_sigio);
	sigset_t pend;
	sigpending(&pend);
	assert_false(sigismember(&pend, SIGIO));
	ringwake_stop(&w);		/* twice: nothing */
	sigaction(SIGIO, &was, NULL);
}

/* A dummy event on this thread writing into its own buffer, with the
 * wake-up at wm bytes; -1 (and skip) where perf events are refused. */
static int open_dummy(uint32_t wm, void **base)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.comm = 1;
	a.task = 1;
	a.watermark = 1;
	a.wakeup_watermark = wm;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	long page = sysconf(_SC_PAGESIZE);
	*base = mmap(NULL, (size_t)(PAGES + 1) * (size_t)page, PROT_READ | PROT_WRITE,
		     MAP_SHARED, fd, 0);
	assert_true(*base != MAP_FAILED);
	return fd;
}

/* A watch started and a dummy's buffer to watch (skip where perf events
 * are refused). */
static int watch_dummy(struct ringwake *w, uint32_t wm, void **base)
{
	assert_int_equal(ringwake_start(w), 0);
	int fd = open_dummy(wm, base);
	if (fd < 0) {
		ringwake_stop(w);
		print_message("perf events refused here (%s)\n", strerror(errno));
		skip();
	}
	return fd;
}

static void close_dummy(int fd, void *base)
{
	munmap(base, (size_t)(PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE));
	close(fd);
}

static void test_ringwake__a_full_buffer_is_told_and_cleared(void **state)
{
	(void)state;
	struct ringwake w;
	void *base;
	int fd = watch_dummy(&w, 8, &base);
	assert_int_equal(ringwake_arm(&w, fd), 0);
	assert_false(told(&w, 0));
	char name[16] = { 0 };
	prctl(PR_GET_NAME, name);
	prctl(PR_SET_NAME, "ringwake-test");	/* a COMM record: past 8 bytes */
	prctl(PR_SET_NAME, name);
	assert_true(told(&w, 2000));
	ringwake_clear(&w);
	assert_false(told(&w, 0));
	close_dummy(fd, base);
	ringwake_stop(&w);
}

static void *nothing(void *arg)
{
	return arg;
}

/*
 * Threads that inherit a counter and exit write their records into the
 * buffer and kick it (which would wake a poller every time): below the
 * watermark none of that is told.
 */
static void test_ringwake__an_inherited_exit_is_not_told(void **state)
{
	(void)state;
	struct ringwake w;
	void *base;
	long page = sysconf(_SC_PAGESIZE);
	int dfd = watch_dummy(&w, (uint32_t)(PAGES * page / 2), &base);
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.inherit = 1;
	a.inherit_stat = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	assert_true(fd >= 0);
	assert_int_equal(ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, dfd), 0);
	assert_int_equal(ringwake_arm(&w, dfd), 0);
	assert_int_equal(ringwake_arm(&w, fd), 0);
	for (int i = 0; i < 20; i++) {
		pthread_t t;
		assert_int_equal(pthread_create(&t, NULL, nothing, NULL), 0);
		pthread_join(t, NULL);
	}
	struct perf_event_mmap_page *mp = base;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	assert_true(head > 0);			/* the exits did write */
	assert_true(head < (uint64_t)(PAGES * page / 2));
	assert_false(told(&w, 50));
	close(fd);
	close_dummy(dfd, base);
	ringwake_stop(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ringwake__stop_gives_back_the_mask_and_the_handler),
		cmocka_unit_test(test_ringwake__a_full_buffer_is_told_and_cleared),
		cmocka_unit_test(test_ringwake__an_inherited_exit_is_not_told),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
