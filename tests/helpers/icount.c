/*
 * icount: threads and frames that retire a known number of user-space
 * instructions, the witness for hardware instruction counts (issue 24).
 * The work is a loop of exactly 8 instructions a turn (6 nops, a
 * decrement and a branch), so n turns retire 8n; what a thread runs
 * besides (its start and exit in glibc) is a small constant.
 *
 *   icount threads [UNIT [SKEW]]
 *                           three threads, named icount0..2, run 1, 2 and
 *                           3 units of UNIT instructions each (default
 *                           8,000,000), then print "icount TID INSNS";
 *                           with SKEW, the main thread first runs SKEW
 *                           instructions, which moves where the threads
 *                           start against the kernel's timers (under
 *                           QEMU's -icount, time is instructions)
 *   icount frames N [PER]   the main thread runs N frames of PER
 *                           instructions each (default 1,000,000), a
 *                           prof_frame() marker after each, then prints
 *                           "frames N PER"
 *
 * On a machine without the loop below (neither x86-64 nor arm64) it
 * exits 77.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../include/prof_marker.h"

/* n >= 1 turns of exactly 8 instructions. */
static void spin8(unsigned long n)
{
#if defined(__aarch64__)
	__asm__ volatile("1:\n\t"
			 "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"
			 "subs %0, %0, #1\n\t"
			 "b.ne 1b"
			 : "+r"(n) : : "cc");
#elif defined(__x86_64__)
	__asm__ volatile("1:\n\t"
			 "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"
			 "dec %0\n\t"
			 "jnz 1b"
			 : "+r"(n) : : "cc");
#else
	(void)n;
	exit(77);
#endif
}

static unsigned long unit = 8000000;
static long tids[3];

static void *work(void *arg)
{
	long k = (long)arg;
	char name[16];
	snprintf(name, sizeof(name), "icount%ld", k);
	prctl(PR_SET_NAME, name);
	tids[k] = syscall(SYS_gettid);
	spin8((unsigned long)(k + 1) * unit / 8);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "threads")) {
		if (argc > 2)
			unit = strtoul(argv[2], NULL, 10);
		if (unit < 8)
			return 2;
		unsigned long skew = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
		if (skew >= 8)
			spin8(skew / 8);
		pthread_t t[3];
		for (long k = 0; k < 3; k++)
			if (pthread_create(&t[k], NULL, work, (void *)k))
				return 1;
		for (int k = 0; k < 3; k++)
			pthread_join(t[k], NULL);
		for (int k = 0; k < 3; k++)
			printf("icount %ld %lu\n", tids[k], (unsigned long)(k + 1) * unit / 8 * 8);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "frames")) {
		long n = atol(argv[2]);
		unsigned long per = argc > 3 ? strtoul(argv[3], NULL, 10) : 1000000;
		if (n < 1 || per < 8)
			return 2;
		prof_frame();	/* the first boundary: what comes before is start-up */
		for (long i = 0; i < n; i++) {
			spin8(per / 8);
			prof_frame();
		}
		printf("frames %ld %lu\n", n, per / 8 * 8);
		return 0;
	}
	fprintf(stderr, "usage: icount threads [UNIT [SKEW]] | icount frames N [PER]\n");
	return 2;
}
