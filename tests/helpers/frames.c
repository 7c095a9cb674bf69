/*
 * frames: a scene for prof's frame and interval tests. Two threads named
 * render and worker: render presents a frame every 5 ms through
 * present_frame() (a uprobe target; it also calls prof_frame()), prints
 * "frame N took X ms" for each, and every 10th frame touches a fresh
 * 8 MiB buffer (page faults), which makes that frame slow; worker
 * computes meanwhile. Usage: frames [NFRAMES] (default 200).
 * `frames spin N` calls spin_present() (no marker) N times in a loop and
 * prints the nanoseconds per call: what a uprobe on it costs a call.
 * `frames burst N` calls prof_frame() N times back to back (a million
 * markers in about a second); `frames lines LINE...` writes each LINE to
 * $PROF_MARKER_FD as it is, but that "NOW" in it becomes the
 * CLOCK_MONOTONIC time in ns when the helper started (the same in every
 * line), "NOW+N" and "NOW-N" that plus or minus N ns: markers as a
 * careless or broken program writes them. `frames buffered N` is the
 * scene with its stdout fully buffered and never flushed, as stdio
 * leaves a pipe: its lines reach prof in bursts.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../../include/prof_marker.h"

#define BIG (8u << 20)

static atomic_int done;
static int buffered;
static volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The frame is on screen: what a uprobe or a marker counts. */
__attribute__((noinline, used)) void present_frame(int n)
{
	prof_frame();
	__asm__ volatile("" : : "r"(n) : "memory");
}

/* Presents nothing: the target of bench/frames' uprobe cost. */
__attribute__((noinline, used)) void spin_present(int n)
{
	__asm__ volatile("" : : "r"(n) : "memory");
}

static int spin(int n)
{
	double t0 = now_ms();
	for (int i = 0; i < n; i++)
		spin_present(i);
	printf("spin %d calls, %.1f ns per call\n", n, (now_ms() - t0) * 1e6 / n);
	return 0;
}

static void touch_big(void)
{
	char *p = mmap(NULL, BIG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	/* One fault per 4 KiB page, as the tests count them, even where
	 * transparent huge pages are "always". */
	madvise(p, BIG, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < BIG; i += 4096)
		p[i] = (char)i;
	munmap(p, BIG);
}

static void *render(void *arg)
{
	int nframes = *(int *)arg;
	pthread_setname_np(pthread_self(), "render");
	double next = now_ms(), last = next;
	for (int n = 1; n <= nframes; n++) {
		if (n % 10 == 0)
			touch_big();
		/* Wait for the 5 ms tick, then present. */
		next += 5.0;
		double t;
		while ((t = now_ms()) < next) {
			double left = next - t;
			if (left > 0.3) {
				struct timespec ts = { 0, (long)((left - 0.2) * 1e6) };
				nanosleep(&ts, NULL);
			}
		}
		present_frame(n);
		double now = now_ms();
		printf("frame %d took %.3f ms\n", n, now - last);
		if (!buffered)
			fflush(stdout);
		last = now;
		if (now > next + 5.0)
			next = now;	/* fell behind: do not rush to catch up */
	}
	atomic_store(&done, 1);
	return NULL;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker");
	unsigned long x = 1;
	while (!atomic_load(&done)) {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		sink = x;
		struct timespec ts = { 0, 500000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int burst(long n)
{
	for (long i = 0; i < n; i++)
		prof_frame();
	return 0;
}

static int lines(int n, char **line)
{
	const char *fd = getenv("PROF_MARKER_FD");
	FILE *fp = fd ? fdopen(atoi(fd), "w") : NULL;
	if (!fp)
		return 1;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	long long t = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	for (int i = 0; i < n; i++) {
		const char *now = strstr(line[i], "NOW");
		if (!now) {
			fprintf(fp, "%s\n", line[i]);
		} else {
			char *end;
			long long d = strtoll(now + 3, &end, 10);
			fprintf(fp, "%.*s%lld%s\n", (int)(now - line[i]), line[i], t + d, end);
		}
		fflush(fp);	/* one line, one write, as prof_frame() does */
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "spin"))
		return spin(atoi(argv[2]));
	if (argc > 2 && !strcmp(argv[1], "burst"))
		return burst(atol(argv[2]));
	if (argc > 1 && !strcmp(argv[1], "lines"))
		return lines(argc - 2, argv + 2);
	if (argc > 2 && !strcmp(argv[1], "buffered")) {
		buffered = 1;
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
		argv++;
	}
	int nframes = argc > 1 ? atoi(argv[1]) : 200;
	pthread_t r, w;
	pthread_create(&w, NULL, worker, NULL);
	pthread_create(&r, NULL, render, &nframes);
	pthread_join(r, NULL);
	pthread_join(w, NULL);
	return 0;
}
