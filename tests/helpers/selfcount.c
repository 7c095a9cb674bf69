/*
 * selfcount: a workload that reads its own performance counters, as
 * emulators, JITs and benchmark harnesses do. It opens an inherited
 * page-faults counter on itself, starts eight threads that each touch
 * argv[1] (default 4000) fresh pages, yielding to each other as they go
 * (so the kernel switches between threads of one process, where it
 * swaps their counter contexts), joins them and prints
 * "selfcount FAULTS": what its counter saw for the whole process. Under a
 * profiler that leaves the workload's counters alone the number is the
 * same as without it (the threads' faults plus the start-up's).
 * Exit 2 when the counter cannot be opened.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static long pages = 4000;

static void *touch(void *arg)
{
	(void)arg;
	long psz = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	madvise(m, (size_t)(pages * psz), MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++) {
		m[i * psz] = 1;
		if (i % 16 == 0)
			sched_yield();
	}
	munmap(m, (size_t)(pages * psz));
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		pages = atol(argv[1]);
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.inherit = 1;
	a.exclude_kernel = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("selfcount: perf_event_open");
		return 2;
	}
	pthread_t t[8];
	for (int k = 0; k < 8; k++)
		pthread_create(&t[k], NULL, touch, NULL);
	for (int k = 0; k < 8; k++)
		pthread_join(t[k], NULL);
	uint64_t v = 0;
	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 2;
	printf("selfcount %llu\n", (unsigned long long)v);
	return 0;
}
