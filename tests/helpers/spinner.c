/*
 * spinner: a process with named threads that keep working for SECONDS, for
 * attaching to with -p. Prints "ready" once every thread runs under its
 * own name (spin-0, spin-1, ...).
 * usage: spinner SECONDS [NTHREADS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds;
static pthread_barrier_t named;	/* every thread has its name */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *body(void *arg)
{
	char name[16];
	snprintf(name, sizeof(name), "spin-%ld", (long)(size_t)arg);
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&named);
	double end = now() + seconds;
	volatile double x = 0;
	while (now() < end) {
		for (int i = 0; i < 100000; i++)
			x += i;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	seconds = argc > 1 ? atof(argv[1]) : 2;
	long n = argc > 2 ? atol(argv[2]) : 2;
	pthread_t th[64];
	if (n > 64)
		n = 64;
	pthread_barrier_init(&named, NULL, (unsigned)n + 1);
	for (long i = 0; i < n; i++)
		pthread_create(&th[i], NULL, body, (void *)(size_t)i);
	pthread_barrier_wait(&named);
	printf("ready\n");
	fflush(stdout);
	for (long i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
