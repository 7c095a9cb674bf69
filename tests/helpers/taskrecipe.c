/*
 * taskrecipe: what per-thread counting costs the kernel alone, per task.
 *
 * usage: taskrecipe prof|stat [-v] COMMAND [ARG...]
 *
 * Runs COMMAND with task-clock, context-switches, cpu-migrations and
 * page-faults counted on it and on every thread it creates (cpu -1,
 * inherited, enabled at its exec), with one of two sets of attributes and
 * no other work, so that two runs differ in what the kernel does and in
 * nothing else:
 *
 *   prof  prof's per-task recipe (collectors/counters.c): a dummy event,
 *         not inherited, owns a 1 MiB ring buffer (prof's default) and
 *         the four events write into it; each is inherited with
 *         inherit_stat, so the kernel writes a READ record for every
 *         thread and event at the thread's exit; the first also carries
 *         the side-band (COMM, FORK and EXIT, MMAP2); every record has
 *         the sample_id trailer (TID, TIME, CPU, IDENTIFIER) on
 *         CLOCK_MONOTONIC. The buffer is emptied every 10 ms and when
 *         COMMAND ends; its records are counted by type, not decoded.
 *   stat  perf stat's: the four events inherited, read once at the end,
 *         no buffer and no record.
 *
 * It is a measuring instrument: it shares no code with prof, so that
 * bench/overhead can tell what the kernel's per-thread records cost from
 * what prof adds to them. A change to prof's recipe must be made here
 * too; with -v the prof recipe prints its records by type, and
 * bench/overhead prints how many READ records it saw beside the number
 * of threads x events it should have. Exits with COMMAND's status, or 2
 * when it cannot set up.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NEVENTS 4
#define DATA_PAGES 256
#define ID_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
		 PERF_SAMPLE_IDENTIFIER)

static const uint64_t configs[NEVENTS] = {
	PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
	PERF_COUNT_SW_CPU_MIGRATIONS, PERF_COUNT_SW_PAGE_FAULTS,
};

static int open_on(struct perf_event_attr *a, pid_t pid)
{
	return (int)syscall(SYS_perf_event_open, a, pid, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* The trailer and clock every event writing into prof's buffer shares. */
static void trailer(struct perf_event_attr *a)
{
	a->sample_id_all = 1;
	a->sample_type = ID_TYPE;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

static void counting(struct perf_event_attr *a, int i, bool prof)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = configs[i];
	a->inherit = 1;
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (!prof)
		return;
	trailer(a);
	a->inherit_stat = 1;
	a->read_format |= PERF_FORMAT_ID;
	if (i == 0) {
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->mmap = 1;
		a->mmap2 = 1;
	}
}

struct ring {
	uint8_t *base;		/* the control page, then the data */
	size_t page, size;
	uint64_t tail;
	uint64_t by_type[PERF_RECORD_MAX];
};

/* Count what the kernel published and hand the space back. */
static void drain(struct ring *r)
{
	struct perf_event_mmap_page *pg = (void *)r->base;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	while (r->tail < head) {
		/* Records are 8-byte aligned: a header never wraps. */
		struct perf_event_header *h =
			(void *)(r->base + r->page + (r->tail & (r->size - 1)));
		if (h->size < sizeof(*h))
			break;
		if (h->type < PERF_RECORD_MAX)
			r->by_type[h->type]++;
		r->tail += h->size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	r->tail = head;
}

static int usage(void)
{
	fprintf(stderr, "usage: taskrecipe prof|stat [-v] COMMAND [ARG...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	bool prof = strcmp(argv[1], "prof") == 0;
	if (!prof && strcmp(argv[1], "stat") != 0)
		return usage();
	int first = 2;
	bool verbose = strcmp(argv[2], "-v") == 0;
	if (verbose)
		first = 3;
	if (first >= argc)
		return usage();

	/* SIGCHLD is taken by sigtimedwait, so the end is seen at once. */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	/* The workload waits on a pipe until its events are open. */
	int go[2];
	if (pipe2(go, O_CLOEXEC) != 0) {
		perror("taskrecipe: pipe");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("taskrecipe: fork");
		return 2;
	}
	if (pid == 0) {
		char c;
		close(go[1]);
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[first], argv + first);
		fprintf(stderr, "taskrecipe: %s: %s\n", argv[first], strerror(errno));
		_exit(127);
	}
	close(go[0]);

	struct perf_event_attr a;
	struct ring r = { .page = (size_t)sysconf(_SC_PAGESIZE) };
	r.size = DATA_PAGES * r.page;
	int dummy = -1;
	if (prof) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_DUMMY;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)(r.size / 4);
		trailer(&a);
		dummy = open_on(&a, pid);
		if (dummy >= 0) {
			r.base = mmap(NULL, r.page + r.size, PROT_READ | PROT_WRITE,
				      MAP_SHARED, dummy, 0);
			if (r.base == MAP_FAILED)
				dummy = -1;
		}
		if (dummy < 0) {
			perror("taskrecipe: the buffer's dummy event");
			kill(pid, SIGKILL);
			return 2;
		}
	}
	int fds[NEVENTS];
	for (int i = 0; i < NEVENTS; i++) {
		counting(&a, i, prof);
		fds[i] = open_on(&a, pid);
		if (fds[i] < 0 ||
		    (prof && ioctl(fds[i], PERF_EVENT_IOC_SET_OUTPUT, dummy) != 0)) {
			perror("taskrecipe: perf_event_open");
			kill(pid, SIGKILL);
			return 2;
		}
	}
	if (write(go[1], "x", 1) != 1) {
		perror("taskrecipe: starting the workload");
		return 2;
	}
	close(go[1]);

	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, prof ? WNOHANG : 0);
		if (prof)
			drain(&r);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			perror("taskrecipe: waitpid");
			return 2;
		}
		if (prof)
			sigtimedwait(&chld, NULL,
				     &(struct timespec){ .tv_nsec = 10000000 });
	}
	for (int i = 0; i < NEVENTS; i++) {
		uint64_t v[4] = { 0 };
		if (read(fds[i], v, sizeof(v)) < 0)
			v[0] = 0;
		if (verbose)
			fprintf(stderr, "taskrecipe: event %d total %llu\n", i,
				(unsigned long long)v[0]);
	}
	if (verbose && prof)
		fprintf(stderr, "taskrecipe: records READ %llu FORK %llu EXIT %llu "
			"COMM %llu MMAP2 %llu LOST %llu\n",
			(unsigned long long)r.by_type[PERF_RECORD_READ],
			(unsigned long long)r.by_type[PERF_RECORD_FORK],
			(unsigned long long)r.by_type[PERF_RECORD_EXIT],
			(unsigned long long)r.by_type[PERF_RECORD_COMM],
			(unsigned long long)r.by_type[PERF_RECORD_MMAP2],
			(unsigned long long)r.by_type[PERF_RECORD_LOST]);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
