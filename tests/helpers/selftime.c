/*
 * selftime: three workers that burn 1, 2 and 3 units of CPU (a unit is
 * argv[1] million loop turns, default 20), each naming itself worker0..2,
 * then printing the CPU time the scheduler charged it as
 * "selftime TID NS": CLOCK_THREAD_CPUTIME_ID, Linux's sum_exec_runtime
 * brought up to date (its /proc schedstat lags by up to a tick). The main thread waits for them. The witness against
 * which per-thread task-clock counts are checked. Last, "selftime
 * process NS": the process's CPU time, the exited workers' whole.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long unit = 20;
static long long spent[3];
static long tids[3];

static void *work(void *arg)
{
	long k = (long)arg;
	char name[16];
	snprintf(name, sizeof(name), "worker%ld", k);
	prctl(PR_SET_NAME, name);
	volatile unsigned long x = 0;
	for (long i = 0; i < (k + 1) * unit * 1000000L; i++)
		x += (unsigned long)i ^ (x >> 3);
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	spent[k] = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	tids[k] = syscall(SYS_gettid);
	/* Straight to the kernel's exit: glibc's thread epilogue (it gives
	 * back the stack with madvise, a TLB shoot-down) would run after
	 * the clock was read and count in task-clock but not here: 5 ms a
	 * thread in a QEMU guest. The kernel still clears the tid and wakes
	 * pthread_join. */
	syscall(SYS_exit, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		unit = atol(argv[1]);
	pthread_t t[3];
	for (long k = 0; k < 3; k++)
		if (pthread_create(&t[k], NULL, work, (void *)k))
			return 1;
	for (int k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	for (int k = 0; k < 3; k++)
		printf("selftime %ld %lld\n", tids[k], spent[k]);
	/* The whole process's CPU time so far, exited threads included with
	 * their exit paths (which a thread's own clock, read before its
	 * exit, cannot see): the witness for the run's total. */
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	printf("selftime process %lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return 0;
}
