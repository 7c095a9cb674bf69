/*
 * pirate: the co-runner of `prof pressure`: a random cyclic pointer chase
 * and the pinned thread that walks it. See pirate.h.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "collectors/pirate.h"
#include "collectors/walk.h"
#include "common/cause.h"
#include "common/errtext.h"

/* ---- the chase ---- */

int chase_init(struct chase *c, size_t cap, uint64_t seed, char **cause)
{
	memset(c, 0, sizeof(*c));
	cap = (cap + CHASE_LINE - 1) / CHASE_LINE * CHASE_LINE;
	if (cap < 2 * CHASE_LINE)
		cap = 2 * CHASE_LINE;
	/* Aligned to a huge page, so a buffer of a few MiB is a few pages. */
	size_t map = cap + WALK_HUGE_ALIGN;
	char *m = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (m == MAP_FAILED) {
		cause_set(cause, 0, "cannot map %zu bytes for the co-runner's buffer: %s",
			  cap, ERR_TEXT(errno));
		return -ENOMEM;
	}
	char *b = (char *)(((uintptr_t)m + WALK_HUGE_ALIGN - 1) & ~(uintptr_t)(WALK_HUGE_ALIGN - 1));
	if (b > m)
		munmap(m, (size_t)(b - m));
	size_t tail = map - (size_t)(b - m) - cap;
	if (tail)
		munmap(b + cap, tail);
	/* Advice only: without THP the chase still works, with TLB misses. */
	madvise(b, cap, MADV_HUGEPAGE);
	/* Not copied into the workload prof forks: it would never use it. */
	madvise(b, cap, MADV_DONTFORK);
	c->buf = b;
	c->cap = cap;
	c->seed = seed ? seed : 0x9e3779b97f4a7c15ull;
	return 0;
}

void chase_release(struct chase *c)
{
	if (c->buf)
		munmap(c->buf, c->cap);
	memset(c, 0, sizeof(*c));
}

int chase_link(struct chase *c, size_t bytes, unsigned chains, char **cause)
{
	size_t n = bytes / CHASE_LINE;
	if (chains < 1 || chains > CHASE_CHAINS_MAX || bytes > c->cap ||
	    n < 2 * (size_t)chains) {
		cause_set(cause, 0, "a chase of %zu bytes in %u chains does not fit %zu "
			  "(two lines a chain at least)", bytes, chains, c->cap);
		return -EINVAL;
	}
	uint32_t *order = malloc(n * sizeof(*order));
	if (!order) {
		cause_set(cause, 0, "cannot link a chase of %zu lines: out of memory", n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	/* Fisher-Yates, then the order cut in `chains` runs: in each, a line
	 * points at the next and the last at the first, one cycle a run. */
	uint64_t s = c->seed ^ (uint64_t)bytes;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(walk_rand(&s) % (i + 1));
		uint32_t t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	memset(c->heads, 0, sizeof(c->heads));
	for (unsigned k = 0; k < chains; k++) {
		size_t lo = n * k / chains, hi = n * (k + 1) / chains;
		for (size_t i = lo; i < hi; i++) {
			char *line = c->buf + (size_t)order[i] * CHASE_LINE;
			size_t j = i + 1 < hi ? i + 1 : lo;
			*(void **)line = c->buf + (size_t)order[j] * CHASE_LINE;
		}
		c->heads[k] = c->buf + (size_t)order[lo] * CHASE_LINE;
	}
	c->chains = chains;
	c->head = c->heads[0];
	c->bytes = n * CHASE_LINE;
	free(order);
	return 0;
}

void *chase_walk(void *pos, size_t lines)
{
	void **p = pos;
	for (size_t i = 0; i < lines; i++)
		p = *p;
	return p;
}

bool chase_can_flush(void)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
	return true;
#else
	return false;
#endif
}

void *chase_walk_flush(void *pos, size_t lines)
{
	void **p = pos;
	for (size_t i = 0; i < lines; i++) {
		void **next = *p;
#if defined(__x86_64__) || defined(__i386__)
		_mm_clflush(p);
#elif defined(__aarch64__)
		__asm__ volatile("dc civac, %0" : : "r"(p) : "memory");
#else
		return NULL;
#endif
		p = next;
	}
	return p;
}

static inline void *flush_line(void **p)
{
	void *next = *p;
#if defined(__x86_64__) || defined(__i386__)
	_mm_clflush(p);
#elif defined(__aarch64__)
	__asm__ volatile("dc civac, %0" : : "r"(p) : "memory");
#endif
	return next;
}

void chase_walk_chains(void **pos, unsigned chains, size_t steps, bool flush)
{
	if (chains == 8 && !flush) {
		/* Eight chains by hand: eight independent loads in flight. */
		void **a = pos[0], **b = pos[1], **c = pos[2], **d = pos[3];
		void **e = pos[4], **f = pos[5], **g = pos[6], **h = pos[7];
		for (size_t i = 0; i < steps; i++) {
			a = *a; b = *b; c = *c; d = *d;
			e = *e; f = *f; g = *g; h = *h;
		}
		pos[0] = a; pos[1] = b; pos[2] = c; pos[3] = d;
		pos[4] = e; pos[5] = f; pos[6] = g; pos[7] = h;
		return;
	}
	for (size_t i = 0; i < steps; i++)
		for (unsigned k = 0; k < chains; k++)
			pos[k] = flush ? flush_line(pos[k]) : *(void **)pos[k];
}

static uint64_t thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Where a walk ended, kept so the compiler cannot drop the loads. */
static void *volatile chase_sink;

double chase_ns_per_line(struct chase *c, size_t lines, bool flush)
{
	if (!c->head || !lines || (flush && !chase_can_flush()))
		return NAN;
	void *pos[CHASE_CHAINS_MAX];
	memcpy(pos, c->heads, sizeof(pos));
	size_t pass = c->bytes / CHASE_LINE / c->chains;
	size_t steps = (lines + c->chains - 1) / c->chains;
	chase_walk_chains(pos, c->chains, pass, false);
	uint64_t t0 = thread_ns();
	chase_walk_chains(pos, c->chains, steps, flush);
	uint64_t t1 = thread_ns();
	chase_sink = pos[0];
	return (double)(t1 - t0) / (double)(steps * c->chains);
}

size_t chase_next_index(const struct chase *c, size_t i)
{
	if (i >= c->bytes / CHASE_LINE)
		return SIZE_MAX;
	char *next = *(void **)(c->buf + i * CHASE_LINE);
	if (next < c->buf || next >= c->buf + c->bytes ||
	    (size_t)(next - c->buf) % CHASE_LINE)
		return SIZE_MAX;
	return (size_t)(next - c->buf) / CHASE_LINE;
}

/* ---- the pirate thread ---- */

/* Steps between looks at the clock and at the next command: about 0.3 ms
 * at 4 ns a step (a buffer in L2), 10 ms at 150 ns (memory). */
#define PIRATE_CHUNK 65536u

/* Walk until the command changes, counting as we go. */
static void walk_loop(struct pirate *p, uint64_t gen)
{
	struct chase *c = &p->chase;
	size_t n = c->bytes / CHASE_LINE, in_pass = 0;
	size_t steps = PIRATE_CHUNK / c->chains, lines = steps * c->chains;
	void *pos[CHASE_CHAINS_MAX];
	memcpy(pos, c->heads, sizeof(pos));
	uint64_t t0 = thread_ns();
	while (atomic_load_explicit(&p->generation, memory_order_acquire) == gen) {
		chase_walk_chains(pos, c->chains, steps, false);
		uint64_t t1 = thread_ns();
		in_pass += lines;
		uint64_t passes = in_pass / n;
		in_pass %= n;
		atomic_fetch_add_explicit(&p->lines, lines, memory_order_relaxed);
		atomic_fetch_add_explicit(&p->ns, t1 - t0, memory_order_relaxed);
		if (passes)
			atomic_fetch_add_explicit(&p->passes, passes, memory_order_release);
		t0 = t1;
	}
	chase_sink = pos[0];
}

static void ack(struct pirate *p, uint64_t gen, int err)
{
	pthread_mutex_lock(&p->lock);
	p->seen = gen;
	p->error = err;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void *pirate_main(void *arg)
{
	struct pirate *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		while (p->seen == atomic_load(&p->generation))
			pthread_cond_wait(&p->cond, &p->lock);
		uint64_t gen = atomic_load(&p->generation);
		enum pirate_cmd cmd = p->cmd;
		size_t bytes = p->want_bytes, lines = p->want_lines;
		pthread_mutex_unlock(&p->lock);
		switch (cmd) {
		case PIRATE_QUIT:
			ack(p, gen, 0);
			return NULL;
		case PIRATE_PAUSE:
			ack(p, gen, 0);
			break;
		case PIRATE_WALK: {
			int err = chase_link(&p->chase, bytes, PIRATE_CHAINS, NULL);
			ack(p, gen, err);
			if (!err)
				walk_loop(p, gen);
			break;
		}
		case PIRATE_CALIBRATE: {
			int err = chase_link(&p->chase, bytes, PIRATE_CHAINS, NULL);
			double alone = NAN, mem = NAN;
			if (!err) {
				alone = chase_ns_per_line(&p->chase, lines, false);
				mem = chase_ns_per_line(&p->chase, lines, true);
			}
			pthread_mutex_lock(&p->lock);
			p->alone_ns = alone;
			p->mem_ns = mem;
			pthread_mutex_unlock(&p->lock);
			ack(p, gen, err);
			break;
		}
		}
	}
}

/* Send a command and wait until the pirate has acted on it. */
static int command(struct pirate *p, enum pirate_cmd cmd, size_t bytes, size_t lines)
{
	pthread_mutex_lock(&p->lock);
	p->cmd = cmd;
	p->want_bytes = bytes;
	p->want_lines = lines;
	uint64_t gen = atomic_fetch_add(&p->generation, 1) + 1;
	pthread_cond_broadcast(&p->cond);
	while (p->seen != gen)
		pthread_cond_wait(&p->cond, &p->lock);
	int err = p->error;
	pthread_mutex_unlock(&p->lock);
	return err;
}

int pirate_start(struct pirate *p, int cpu, size_t bound, char **cause)
{
	memset(p, 0, sizeof(*p));
	p->cpu = cpu;
	p->bound = bound;
	if (cpu < 0 || cpu >= CPU_SETSIZE) {
		cause_set(cause, 0, "cannot pin the co-runner to cpu %d", cpu);
		return -EINVAL;
	}
	int rc = chase_init(&p->chase, bound, 0, cause);
	if (rc)
		return rc;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* Pinned from its first instruction: it never runs elsewhere. */
	rc = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (!rc)
		rc = pthread_create(&p->thread, &attr, pirate_main, p);
	pthread_attr_destroy(&attr);
	if (rc) {
		cause_set(cause, 0, "cannot start the co-runner on cpu %d: %s", cpu,
			  ERR_TEXT(rc));
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->cond);
		chase_release(&p->chase);
		return rc == EINVAL ? -EINVAL : -rc;
	}
	pthread_setname_np(p->thread, "prof-pirate");
	p->started = true;
	return 0;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int pirate_walk(struct pirate *p, size_t bytes, unsigned warm_passes,
		double warm_max_s, char **cause)
{
	if (!p->started || bytes > p->bound) {
		cause_set(cause, 0, "the co-runner may walk at most %zu bytes, not %zu",
			  p->bound, bytes);
		return -EINVAL;
	}
	uint64_t base = atomic_load(&p->passes);
	int err = command(p, PIRATE_WALK, bytes, 0);
	if (err) {
		cause_set(cause, 0, "the co-runner cannot walk %zu bytes: %s", bytes,
			  ERR_TEXT(-err));
		return err;
	}
	p->walk_bytes = bytes;
	double end = mono_s() + warm_max_s;
	/* Polled coarsely: this thread shares the pirate's CPU. */
	while (atomic_load(&p->passes) - base < warm_passes && mono_s() < end)
		sleep_s(0.005);
	return 0;
}

void pirate_pause(struct pirate *p)
{
	if (p->started)
		command(p, PIRATE_PAUSE, 0, 0);
}

void pirate_window_open(struct pirate *p)
{
	p->base_lines = atomic_load(&p->lines);
	p->base_passes = atomic_load(&p->passes);
	p->base_ns = atomic_load(&p->ns);
}

void pirate_window_read(struct pirate *p, struct pirate_stats *s)
{
	s->lines = atomic_load(&p->lines) - p->base_lines;
	s->passes = atomic_load(&p->passes) - p->base_passes;
	s->ns = atomic_load(&p->ns) - p->base_ns;
	s->bytes = p->walk_bytes;
	s->ns_per_line = s->lines ? (double)s->ns / (double)s->lines : NAN;
}

int pirate_calibrate(struct pirate *p, size_t bytes, size_t lines,
		     double *alone_ns, double *mem_ns, char **cause)
{
	if (!p->started || bytes > p->bound) {
		cause_set(cause, 0, "the co-runner may walk at most %zu bytes, not %zu",
			  p->bound, bytes);
		return -EINVAL;
	}
	int err = command(p, PIRATE_CALIBRATE, bytes, lines);
	if (err) {
		cause_set(cause, 0, "the co-runner cannot walk %zu bytes: %s", bytes,
			  ERR_TEXT(-err));
		return err;
	}
	pthread_mutex_lock(&p->lock);
	*alone_ns = p->alone_ns;
	*mem_ns = p->mem_ns;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

void pirate_stop(struct pirate *p)
{
	if (!p->started)
		return;
	command(p, PIRATE_QUIT, 0, 0);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	chase_release(&p->chase);
	p->started = false;
}

double pirate_held_bytes(double bytes, double ns, double hit_ns, double mem_ns)
{
	if (!isfinite(bytes) || !isfinite(ns) || !isfinite(hit_ns) ||
	    !isfinite(mem_ns) || !(mem_ns > hit_ns))
		return NAN;
	double f = (mem_ns - ns) / (mem_ns - hit_ns);
	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	return bytes * f;
}
