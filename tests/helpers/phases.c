/*
 * phases: work that changes halfway, for --window. Two phases of MS
 * milliseconds of wall time each (default 1000); in each, the process
 * burns the CPU for BUSY percent of every 10 ms and sleeps the rest.
 * Prints "phase N cpu NS" for each: the CPU time the scheduler charged
 * the process in that phase (CLOCK_PROCESS_CPUTIME_ID at its edges).
 * With FROM_MS and TO_MS, also "span cpu NS": the CPU time charged from
 * FROM_MS to TO_MS after its own start (within about 0.1 ms where it is
 * busy), so that a measurement window can be checked against the same
 * span of its own work, not a share of a phase that a busy machine may
 * have served unevenly.
 *
 * usage: phases BUSY1 BUSY2 [MS [FROM_MS TO_MS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long t_start, span_from = -1, span_to = -1, span_c0 = -1, span_c1 = -1;

/* The span's edges, taken as the process passes them. */
static void mark(void)
{
	if (span_from < 0 || span_c1 >= 0)
		return;
	long long t = now_ns(CLOCK_MONOTONIC) - t_start;
	if (span_c0 < 0 && t >= span_from)
		span_c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (span_c0 >= 0 && t >= span_to)
		span_c1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static void phase(int busy, long long ms)
{
	long long end = now_ns(CLOCK_MONOTONIC) + ms * 1000000LL;
	volatile unsigned long x = 0;
	while (now_ns(CLOCK_MONOTONIC) < end) {
		long long slot = now_ns(CLOCK_MONOTONIC);
		while (now_ns(CLOCK_MONOTONIC) < slot + busy * 100000LL) {
			for (int i = 0; i < 1000; i++)
				x += (unsigned long)i ^ (x >> 3);
			mark();
		}
		long long rest = slot + 10000000LL - now_ns(CLOCK_MONOTONIC);
		if (rest > 0 && busy < 100) {
			struct timespec ts = { 0, rest };
			nanosleep(&ts, NULL);
		}
		mark();
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: phases BUSY1 BUSY2 [MS]\n");
		return 2;
	}
	long long ms = argc > 3 ? atoll(argv[3]) : 1000;
	t_start = now_ns(CLOCK_MONOTONIC);
	if (argc > 5) {
		span_from = atoll(argv[4]) * 1000000LL;
		span_to = atoll(argv[5]) * 1000000LL;
	}
	long long c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	phase(atoi(argv[1]), ms);
	long long c1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	phase(atoi(argv[2]), ms);
	long long c2 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	printf("phase 1 cpu %lld\nphase 2 cpu %lld\n", c1 - c0, c2 - c1);
	if (span_c1 >= 0)
		printf("span cpu %lld\n", span_c1 - span_c0);
	return 0;
}
