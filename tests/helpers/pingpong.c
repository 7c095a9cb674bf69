/*
 * pingpong: two threads hand a byte back and forth over two pipes N times,
 * so each blocks in read at every turn: about 2N context switches in a
 * short run, the fastest switching a workload does (an emulator's threads
 * waking each other, a client and its server). The per-CPU buffers of
 * prof's switch records fill fastest under it.
 * usage: pingpong [N]   (default 100000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int ab[2], ba[2];
static long n = 100000;

static void *pong(void *arg)
{
	char c;
	for (long i = 0; i < n; i++)
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			return arg;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		n = atol(argv[1]);
	pthread_t t;
	if (pipe(ab) || pipe(ba) || pthread_create(&t, NULL, pong, NULL)) {
		perror("pingpong");
		return 1;
	}
	char c = 'p';
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			perror("pingpong");
			return 1;
		}
	pthread_join(t, NULL);
	printf("pingpong %ld\n", n);
	return 0;
}
