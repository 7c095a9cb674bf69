/*
 * hot_main: spends about 70% of its time in a function of a shared
 * library it loads with dlopen (argv[1]) and the rest in its own
 * main_spin: the same loop, 7 steps there for every 3 here. The call
 * paths are main -> drive -> lib_work -> lib_spin and main -> drive ->
 * main_spin. argv[2]: millions of steps in all (default 150, about half a
 * second). It prints its own elapsed time, so a benchmark can tell the
 * workload's slowdown from a tool's start-up and finishing costs. Built
 * by tests/e2e/test_record.c and bench/record without frame pointers.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

typedef double (*work_fn)(double, long);

__attribute__((noinline)) static double main_spin(double x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}

__attribute__((noinline)) static double drive(work_fn lib_work, long millions)
{
	double x = 1.0;
	/* Small slices, interleaved, so any stretch of the run has the
	 * same split. Their length varies (50 to 150% of 100,000 steps, the
	 * same factor for both halves) so that a sampling period cannot lock
	 * onto a fixed slice period: with fixed slices of about 130 us and
	 * 1 ms between samples, every sample fell on one of two phases and
	 * the split seen in half a second ranged from 63 to 86%. */
	uint32_t r = 2463534242u;
	for (long m = 0; m < millions * 10; m++) {
		r ^= r << 13;
		r ^= r >> 17;
		r ^= r << 5;
		long k = 50 + (long)(r % 101);	/* percent */
		x = lib_work(x, 700 * k);
		x = main_spin(x, 300 * k);
	}
	return x;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: hot_main LIB.so [MILLIONS]\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "hot_main: %s\n", dlerror());
		return 1;
	}
	work_fn lib_work = (work_fn)(uintptr_t)dlsym(h, "lib_work");
	if (!lib_work) {
		fprintf(stderr, "hot_main: no lib_work in %s\n", argv[1]);
		return 1;
	}
	long millions = argc > 2 ? atol(argv[2]) : 150;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	double x = drive(lib_work, millions);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("hot_main: %.6f in %.6f s\n", x, (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
