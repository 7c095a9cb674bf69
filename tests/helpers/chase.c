/*
 * chase: a fixed amount of work whose speed depends on the cache it gets,
 * or on none, for the `prof pressure` tests and bench/pressure.
 *   chase KIB MSTEPS    walk a random cycle over KIB KiB of cache lines,
 *                       MSTEPS million dependent loads
 *   chase 0 MSTEPS      a compute loop of MSTEPS million rounds, no memory
 * Prints "ns_per_step N" when done (a score to parse): the process's CPU
 * time per step, which time spent waiting for a CPU does not inflate.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: chase KIB MSTEPS\n");
		return 2;
	}
	size_t kib = strtoul(argv[1], NULL, 10);
	uint64_t steps = (uint64_t)(strtod(argv[2], NULL) * 1e6);
	double t0 = now();
	uint64_t sink = 0;
	if (kib == 0) {
		uint64_t x = 1;
		for (uint64_t i = 0; i < steps; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		sink = x;
	} else {
		size_t n = kib * 1024 / 64;
		char *buf = aligned_alloc(64, n * 64);
		uint32_t *order = malloc(n * sizeof(*order));
		if (!buf || !order)
			return 1;
		uint64_t s = 42;
		for (size_t i = 0; i < n; i++)
			order[i] = (uint32_t)i;
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = (size_t)(next(&s) % (i + 1));
			uint32_t t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		for (size_t i = 0; i < n; i++)
			*(void **)(buf + (size_t)order[i] * 64) =
				buf + (size_t)order[(i + 1) % n] * 64;
		free(order);
		void **p = (void **)buf;
		for (uint64_t i = 0; i < steps; i++)
			p = *p;
		sink = (uint64_t)(uintptr_t)p;
		free(buf);
	}
	double t = now() - t0;
	printf("ns_per_step %.3f\n", steps ? t * 1e9 / (double)steps : 0.0);
	return sink == 1;	/* never: keeps the loop */
}
