/*
 * churn: create and join N threads one after another, each doing a little
 * work (the thread-churn workload of bench/overhead and the e2e tests).
 * usage: churn [N] [WORK]   (defaults 5000 threads, 20000 iterations)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long work = 20000;

static void *body(void *arg)
{
	volatile long s = 0;
	for (long i = 0; i < work; i++)
		s += i;
	return arg;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5000;
	if (argc > 2)
		work = atol(argv[2]);
	for (long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, body, NULL) != 0) {
			perror("churn: pthread_create");
			return 1;
		}
		pthread_join(t, NULL);
	}
	return 0;
}
