/*
 * prof-demo: a small multi-threaded workload for trying prof. Named
 * threads do different, known amounts of work, so a per-thread table has
 * something to show: "render" computes hardest, three "worker" threads
 * share a medium load, "audio" wakes every millisecond and does little,
 * and "loader" touches fresh memory (page faults). Each prints nothing
 * while it runs; main prints one summary line at the end.
 *
 * usage: prof-demo [SCALE]   (SCALE multiplies the work, default 1.0)
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct job {
	const char *name;
	double units;		/* millions of loop iterations */
	double result;
};

static double spin(double units)
{
	double x = 0.5;
	long n = (long)(units * 1e6);
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9 * (double)(i & 7);
	return x;
}

static void *compute(void *arg)
{
	struct job *j = arg;
	pthread_setname_np(pthread_self(), j->name);
	j->result = spin(j->units);
	return NULL;
}

static void *audio(void *arg)
{
	struct job *j = arg;
	pthread_setname_np(pthread_self(), j->name);
	struct timespec ts = { 0, 1000000 };
	for (int i = 0; i < (int)j->units; i++) {
		j->result += spin(0.01);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void *loader(void *arg)
{
	struct job *j = arg;
	pthread_setname_np(pthread_self(), j->name);
	size_t bytes = (size_t)(j->units * 1024 * 1024);
	char *p = malloc(bytes);
	if (!p)
		return NULL;
	for (size_t i = 0; i < bytes; i += 4096)
		p[i] = (char)i;
	j->result = p[bytes / 2];
	free(p);
	return NULL;
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0;
	if (!(scale > 0) || scale > 1000) {
		fprintf(stderr, "usage: prof-demo [SCALE]  (0 < SCALE <= 1000)\n");
		return 2;
	}
	struct job jobs[] = {
		{ "render", 120 * scale, 0 },
		{ "worker", 40 * scale, 0 },
		{ "worker", 40 * scale, 0 },
		{ "worker", 40 * scale, 0 },
		{ "audio", 100 * scale, 0 },
		{ "loader", 64 * scale, 0 },
	};
	size_t n = sizeof(jobs) / sizeof(jobs[0]);
	pthread_t th[sizeof(jobs) / sizeof(jobs[0])];

	for (size_t i = 0; i < n; i++) {
		void *(*fn)(void *) = compute;
		if (!strcmp(jobs[i].name, "audio"))
			fn = audio;
		else if (!strcmp(jobs[i].name, "loader"))
			fn = loader;
		if (pthread_create(&th[i], NULL, fn, &jobs[i]) != 0) {
			perror("prof-demo: pthread_create");
			return 1;
		}
	}
	double sum = spin(10 * scale);	/* main's own share */
	for (size_t i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		sum += jobs[i].result;
	}
	printf("prof-demo: %zu threads done (checksum %.3f)\n", n + 1, fmod(sum, 1000.0));
	return 0;
}
