/*
 * selftime: three workers that burn 1, 2 and 3 units of CPU (a unit is
 * argv[1] million loop turns, default 20), each naming itself worker0..2.
 * The witness against which per-thread task-clock counts are checked:
 * for each worker "selftime TID NS", the CPU time the scheduler charged
 * it over its whole life, its exit included, and "selftime work TID NS",
 * its own CLOCK_THREAD_CPUTIME_ID when its work was done. Last,
 * "selftime process NS": the process's CPU time, the exited workers'
 * whole.
 *
 * A thread cannot read its clock after it exits, and its exit is not
 * free: in a QEMU guest (TCG, one host thread for every vCPU) a
 * thread's exit took 2 to 8 ms now and then, which its task-clock
 * counts. So each worker, its work done, waits to be let go; the main
 * thread lets one go at a time and reads the process's clock (which
 * takes in a reaped thread's whole time) before and after its exit,
 * less its own clock over the same span: the difference is what the
 * worker ran meanwhile, nothing else of the process running then.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long unit = 20;
static long long spent[3];
static long tids[3];
static sem_t done, go[3];

static long long clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *work(void *arg)
{
	long k = (long)arg;
	char name[16];
	snprintf(name, sizeof(name), "worker%ld", k);
	prctl(PR_SET_NAME, name);
	volatile unsigned long x = 0;
	for (long i = 0; i < (k + 1) * unit * 1000000L; i++)
		x += (unsigned long)i ^ (x >> 3);
	spent[k] = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	tids[k] = syscall(SYS_gettid);
	sem_post(&done);
	while (sem_wait(&go[k]) && errno == EINTR)
		;
	/* Straight to the kernel's exit: glibc's thread epilogue gives back
	 * the stack with madvise, a TLB shoot-down, which is no part of
	 * the work. The kernel still clears the tid and wakes
	 * pthread_join. */
	syscall(SYS_exit, 0);
	return NULL;
}

/* Waits until the kernel has reaped thread tid (its time is then in the
 * process's clock): up to 2 s. */
static void reaped(long tid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%ld", tid);
	for (int i = 0; i < 20000 && access(path, F_OK) == 0; i++) {
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1)
		unit = atol(argv[1]);
	pthread_t t[3];
	long long whole[3];
	sem_init(&done, 0, 0);
	for (long k = 0; k < 3; k++) {
		sem_init(&go[k], 0, 0);
		if (pthread_create(&t[k], NULL, work, (void *)k))
			return 1;
	}
	for (int k = 0; k < 3; k++)
		while (sem_wait(&done) && errno == EINTR)
			;
	for (int k = 0; k < 3; k++) {
		clockid_t wc;
		if (pthread_getcpuclockid(t[k], &wc))
			return 1;
		long long w = clock_ns(wc);
		long long m0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		long long p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		sem_post(&go[k]);
		pthread_join(t[k], NULL);
		reaped(tids[k]);
		long long p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		long long m1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		whole[k] = w + (p1 - p0) - (m1 - m0);
	}
	for (int k = 0; k < 3; k++) {
		printf("selftime %ld %lld\n", tids[k], whole[k]);
		printf("selftime work %ld %lld\n", tids[k], spent[k]);
	}
	/* The whole process's CPU time so far: the witness for the run's
	 * total. */
	printf("selftime process %lld\n", clock_ns(CLOCK_PROCESS_CPUTIME_ID));
	return 0;
}
