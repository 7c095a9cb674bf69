/*
 * pirate: a co-runner that takes a known part of a shared cache away from
 * a workload (the "cache pirating" method of Eklov et al., ICPP 2011), for
 * `prof pressure`. Two halves:
 *
 * 1. The chase: one buffer whose cache lines form random cycles (one
 *    shuffle, cut into `chains` cycles that together visit every line
 *    once), each walked by dependent loads, so every step is one cache
 *    line that no prefetcher can guess. The co-runner walks
 *    PIRATE_CHAINS of them at once: a single chase at memory latency
 *    touches a line every ~140 ns, so slowly that the rest of the
 *    machine's work evicts its lines between visits (measured here: one
 *    chain over 8 MiB ran at 110-140 ns a line, eight at 2.3 ns, holding
 *    its buffer), and a co-runner must be hot to take the cache. chase_ns_per_line() times a
 *    walk in the calling thread's own CPU time (CLOCK_THREAD_CPUTIME_ID),
 *    so time the thread spent descheduled on a busy machine is not counted.
 *    A flushing walk evicts every line after reading it, so each step is a
 *    miss at that buffer's size: the memory latency the pirate compares
 *    its own time against (x86 clflush, arm64 dc civac; elsewhere NaN).
 *    A small self-contained chase on purpose: `prof probe` has its own.
 *
 * 2. The pirate thread: pinned to one CPU, it walks the first `bytes` of
 *    its buffer for as long as it is told to, counting lines, passes and
 *    its own CPU time, and sleeps (no CPU at all) when paused. The buffer
 *    is allocated once at the largest size asked for and never grows past
 *    the bound given at start (the cache domain's size), so its memory is
 *    bounded by the domain; each walk relinks its prefix into a new cycle.
 *    The thread is prof's own: it ends when prof does.
 *
 * Whether the pirate holds its lines: with uniformly random steps, the
 * fraction of steps that hit is the fraction of the buffer resident, so
 * from its time per line t, the hit time t_hit and the miss time t_mem,
 * held = bytes * (t_mem - t) / (t_mem - t_hit), clamped to [0, bytes]
 * (pirate_held_bytes).
 *
 * Errors: 0 or a negative errno with *cause set (malloc'd, lowercase; the
 * caller frees it; may be NULL). Never prints. A struct pirate is driven
 * from one thread (the caller); its counters are read atomically.
 */
#ifndef COLLECTORS_PIRATE_H
#define COLLECTORS_PIRATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The stride of a chase: one cache line. */
#define CHASE_LINE 64

/* ---- the chase ---- */

/* The most cycles one chase is cut into, and how many the co-runner walks. */
#define CHASE_CHAINS_MAX 8
#define PIRATE_CHAINS 8

struct chase {
	char *buf;		/* mmap'd, cap bytes */
	size_t cap;		/* bytes allocated */
	size_t bytes;		/* bytes linked into the current cycles */
	unsigned chains;	/* cycles linked */
	void *heads[CHASE_CHAINS_MAX];	/* where each starts (and ends a pass) */
	void *head;		/* heads[0] */
	uint64_t seed;
};

/*
 * Allocate cap bytes (rounded up to a line; transparent huge pages asked
 * for, so a large buffer costs no TLB misses to speak of) without linking
 * anything. -ENOMEM with a cause.
 */
int chase_init(struct chase *c, size_t cap, uint64_t seed, char **cause);
void chase_release(struct chase *c);

/*
 * Link the first `bytes` (rounded down to a line, at most cap) into
 * `chains` random cycles (1 to CHASE_CHAINS_MAX) that together visit
 * every line once, each of two lines at least. Touches every line.
 * -EINVAL when bytes is above cap or too small for the chains.
 */
int chase_link(struct chase *c, size_t bytes, unsigned chains, char **cause);

/* Walk `lines` steps from *pos, returning where it ended (pass it back in
 * to go on). The loads are dependent; nothing else is done per step. */
void *chase_walk(void *pos, size_t lines);

/* The same, evicting each line after reading it. NULL where this CPU
 * has no user-level flush (see chase_can_flush). */
void *chase_walk_flush(void *pos, size_t lines);
bool chase_can_flush(void);

/*
 * Walk every chain of pos[0..chains-1] `steps` steps at once (chains *
 * steps lines), the loads of different chains in flight together;
 * flushing each line after reading it when flush. pos is updated.
 */
void chase_walk_chains(void **pos, unsigned chains, size_t steps, bool flush);

/*
 * Time about `lines` lines over all the chains (after a warm pass) in the
 * thread's own CPU time: ns per line. flush: the flushing walk (NaN
 * where it is not available).
 */
double chase_ns_per_line(struct chase *c, size_t lines, bool flush);

/* Which line of the cycle follows line i (tests): an index, or SIZE_MAX. */
size_t chase_next_index(const struct chase *c, size_t i);

/* ---- the pirate thread ---- */

enum pirate_cmd { PIRATE_PAUSE, PIRATE_WALK, PIRATE_CALIBRATE, PIRATE_QUIT };

/* What the pirate did since the last pirate_window(): lines walked, full
 * passes over the buffer, and the CPU time it took. */
struct pirate_stats {
	uint64_t lines;
	uint64_t passes;
	uint64_t ns;
	size_t bytes;		/* the buffer it walked */
	double ns_per_line;	/* ns / lines; NaN when no line */
};

struct pirate {
	pthread_t thread;
	bool started;
	int cpu;
	size_t bound;			/* the most it may ever walk */
	struct chase chase;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum pirate_cmd cmd;		/* under lock */
	size_t want_bytes;		/* under lock: for WALK and CALIBRATE */
	size_t want_lines;		/* under lock: for CALIBRATE */
	_Atomic uint64_t generation;	/* bumps with each command */
	uint64_t seen;			/* under lock: the generation acted on */
	int error;			/* under lock: a command that failed */
	double alone_ns, mem_ns;	/* under lock: CALIBRATE's results */
	/* Written by the pirate, read by the caller. */
	_Atomic uint64_t lines, passes, ns;
	/* The caller's: where the window opened. */
	uint64_t base_lines, base_passes, base_ns;
	size_t walk_bytes;
};

/*
 * Start the thread pinned to `cpu`, paused, with a buffer of `bound`
 * bytes (the cache domain's size: nothing it walks may be larger). -EINVAL
 * for a CPU it cannot be pinned to, -ENOMEM, or the errno of
 * pthread_create, each with a cause.
 */
int pirate_start(struct pirate *p, int cpu, size_t bound, char **cause);

/*
 * Walk the first `bytes` of the buffer from now on, and return once the
 * pirate has made `warm_passes` passes over it (it has then taken what it
 * can of the cache) or `warm_max_s` seconds passed. -EINVAL above the
 * bound, with a cause.
 */
int pirate_walk(struct pirate *p, size_t bytes, unsigned warm_passes,
		double warm_max_s, char **cause);

/* Stop walking; the thread sleeps until the next pirate_walk. Returns
 * once it has stopped touching the buffer. */
void pirate_pause(struct pirate *p);

/* Start a measuring window now (what pirate_window_read counts). */
void pirate_window_open(struct pirate *p);
/* What the pirate did since pirate_window_open(). */
void pirate_window_read(struct pirate *p, struct pirate_stats *s);

/*
 * Measure, in the pirate's thread on its CPU, the chase over `bytes`
 * alone for at least `lines` steps: *alone_ns its time per line, *mem_ns
 * the flushing walk's (NaN where there is none). The pirate is paused
 * after. -EINVAL above the bound.
 */
int pirate_calibrate(struct pirate *p, size_t bytes, size_t lines,
		     double *alone_ns, double *mem_ns, char **cause);

/* End the thread and free the buffer; accepts a pirate never started. */
void pirate_stop(struct pirate *p);

/*
 * The bytes the pirate held of `bytes`: bytes * (mem_ns - ns) / (mem_ns -
 * hit_ns), clamped to [0, bytes]. NaN when any input is not finite or
 * mem_ns is not above hit_ns (then the time cannot tell).
 */
double pirate_held_bytes(double bytes, double ns, double hit_ns, double mem_ns);

#endif
