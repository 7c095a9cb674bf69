/*
 * simthreads: three threads alive at once from their start to their end
 * (a barrier before their work and one after it), named sim1..sim3, that
 * run 1, 2 and 3 units of a fixed loop, for the --simulate tests: under
 * valgrind, which runs one thread at a time, a thread that ended before
 * the next was created would hand its slot on, and one profile would
 * hold both. Holding all three to the end keeps a slot for each.
 *   simthreads [UNIT]   (default 2,000,000 turns)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

static pthread_barrier_t start, end;
static unsigned long unit = 2000000;

static void *work(void *arg)
{
	long k = (long)arg;
	char name[16];
	snprintf(name, sizeof(name), "sim%ld", k);
	prctl(PR_SET_NAME, name);
	pthread_barrier_wait(&start);
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < unit * (unsigned long)k; i++)
		x += i;
	pthread_barrier_wait(&end);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		unit = strtoul(argv[1], NULL, 10);
	pthread_barrier_init(&start, NULL, 4);
	pthread_barrier_init(&end, NULL, 4);
	pthread_t t[3];
	for (long k = 0; k < 3; k++)
		if (pthread_create(&t[k], NULL, work, (void *)(k + 1)))
			return 1;
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&end);
	for (int k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	return 0;
}
