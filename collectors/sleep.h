/*
 * sleep: how well short sleeps keep time, and a way to make them keep it.
 *
 * Two halves share this header:
 *
 * 1. The timer benchmark behind `prof sleep`. sleep_bench_run() sleeps a
 *    given number of times per (mode, duration) cell on N threads at once,
 *    records every call's overshoot beyond its target in a preallocated
 *    array, and returns plain structs: percentiles, buckets, CPU cost and
 *    context switches per cell, plus the facts that explain them (timer
 *    slack, scheduling policy, clocksource). It never prints; progress goes
 *    to a callback. The percentile and bucket arithmetic are pure functions
 *    (sleep_stats_compute) so they can be tested without a clock.
 *
 * 2. The sleep interposer behind `prof run --sleep-mode`. libprof-sleep.so
 *    (collectors/sleep_preload.c) is loaded into a workload with
 *    LD_PRELOAD and serves nanosleep, clock_nanosleep and usleep calls
 *    shorter than a threshold with the chosen mode, and short condition-
 *    variable timed waits (pthread_cond_timedwait, pthread_cond_clockwait)
 *    with the closest strategy that loses no wakeup (sleep_cv_strategy),
 *    counted apart from the sleeps. It reports per thread
 *    through a memfd that prof creates (sleep_shm_create) and reads back
 *    after the workload exits (sleep_report_read). The layout of that memfd
 *    is struct sleep_shm below; both sides compile against it.
 *
 * Environment of the interposer (all optional):
 *   PROF_SLEEP_MODE=timerfd|passthrough|slack1|yield|spin|hybrid[:MARGIN_US]
 *       how short sleeps are served (default timerfd). passthrough calls the
 *       real function but still measures it. hybrid without a margin
 *       calibrates one at load (2,000 timerfd sleeps of 20 us: ~0.13 s
 *       here), once per report: processes the workload execs later reuse
 *       it. Pass an explicit margin to skip that.
 *   PROF_SLEEP_THRESHOLD_US=N   sleeps shorter than N us are served
 *       (default 1000, 1..1000000); longer ones go to the real function.
 *       A condvar timed wait counts as short when its deadline is less
 *       than N us away at the call.
 *   PROF_SLEEP_MAX_SPINNERS=K   at most K threads of the workload spin or
 *       yield at a time, all its processes together (0..4096, 0 for no
 *       cap; unset: a quarter of the CPUs in the first process's affinity
 *       mask at load, at least 1); a thread that finds no free slot waits
 *       on its timerfd to the deadline instead. Without PROF_SLEEP_SHM_FD
 *       the cap holds per process.
 *   PROF_SLEEP_SHM_FD=FD        the memfd from sleep_shm_create; without it
 *       the interposer still serves sleeps but reports nothing.
 *
 * Ownership: sleep_bench and sleep_report own their arrays; release them
 * with the matching _release. Functions return 0 or a negative errno and
 * fill *cause (malloc'd, the caller frees; cause may be NULL) where the
 * user needs to know why. Everything here is thread-safe in the sense that
 * it keeps no global state; sleep_bench_run itself starts and joins
 * threads.
 */
#ifndef COLLECTORS_SLEEP_H
#define COLLECTORS_SLEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- modes */

enum sleep_mode {
	SLEEP_MODE_NANOSLEEP,	/* nanosleep, default timer slack */
	SLEEP_MODE_SLACK1,	/* nanosleep after PR_SET_TIMERSLACK 1 ns */
	SLEEP_MODE_CLOCK_ABS,	/* clock_nanosleep TIMER_ABSTIME, MONOTONIC */
	SLEEP_MODE_TIMERFD,	/* one timerfd per thread, re-armed per call */
	SLEEP_MODE_CONDVAR,	/* pthread_cond_timedwait on CLOCK_MONOTONIC */
	SLEEP_MODE_YIELD,	/* sched_yield until the deadline */
	SLEEP_MODE_SPIN,	/* busy wait with a pause instruction */
	SLEEP_MODE_HYBRID,	/* timerfd to deadline - margin, then spin */
	SLEEP_MODE_PASSTHROUGH,	/* interposer only: real function, measured */
	SLEEP_MODE_COUNT
};

/* The modes `prof sleep` runs by default, in report order. */
#define SLEEP_BENCH_NMODES 8

struct sleep_mode_spec {
	enum sleep_mode mode;
	/* hybrid only: spin this long before the deadline; -1 = calibrate */
	int64_t margin_ns;
};

/* "nanosleep", "clock-abs", ... */
const char *sleep_mode_name(enum sleep_mode mode);

/* "hybrid:12" or "timerfd" into buf (always terminated). */
void sleep_mode_format(const struct sleep_mode_spec *spec, char *buf,
		       size_t len);

/*
 * Parse one mode word, "hybrid:MARGIN_US" included (MARGIN_US an integer,
 * 0..100000). Accepts every mode; the callers below narrow the set.
 * 0 or -EINVAL with *cause.
 */
int sleep_mode_parse(const char *word, struct sleep_mode_spec *out,
		     char **cause);

/* Bench modes 0..SLEEP_BENCH_NMODES-1 are benchmarkable; passthrough not. */
bool sleep_mode_is_bench(enum sleep_mode mode);
/* timerfd, passthrough, slack1, yield, spin, hybrid. */
bool sleep_mode_is_preload(enum sleep_mode mode);

/*
 * How the interposer serves a short condvar timed wait under an
 * interposer mode: "the real function" (passthrough), or "timer slack
 * 1 ns" (every other mode). A condvar waiter is woken only while it
 * waits inside the real function, so no mode can swap that wait for a
 * timerfd, a spin or a yield without losing a signal sent meanwhile;
 * what every mode can do is make the kernel's futex timeout fire on
 * time, by setting the thread's timer slack to 1 ns for the wait. See
 * docs/sleep.md.
 */
const char *sleep_cv_strategy(enum sleep_mode mode);

/* The pause instruction of a spin loop (nothing where none is known). */
static inline void sleep_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/* ------------------------------------------------------- bench: stats */

/*
 * Buckets of overshoot beyond the target, exclusive ranges in us:
 * lt3 [0,3), lt10 [3,10), lt25 [10,25), lt50 [25,50), ge50 [50,inf).
 * They count calls whose overshoot fell under 3, 10, 25, 50 us, or at
 * 50 us and beyond; they sum to the number of calls. An early wake (a
 * negative overshoot, never expected) falls in lt3 and is also counted in
 * `early`.
 */
enum sleep_bucket {
	SLEEP_BUCKET_LT3,
	SLEEP_BUCKET_LT10,
	SLEEP_BUCKET_LT25,
	SLEEP_BUCKET_LT50,
	SLEEP_BUCKET_GE50,
	SLEEP_NBUCKETS
};

/* "lt3", "lt10", "lt25", "lt50", "ge50": the JSON keys. */
const char *sleep_bucket_name(enum sleep_bucket b);

struct sleep_stats {
	uint64_t n;
	/* overshoot in ns (negative = woke early); nearest-rank percentiles */
	int64_t p50_ns, p90_ns, p99_ns, p999_ns, max_ns, min_ns;
	double mean_ns;
	uint64_t early;			/* calls with overshoot < 0 */
	uint64_t buckets[SLEEP_NBUCKETS];
};

/*
 * Nearest-rank percentile of a sorted array: the value at rank
 * ceil(q/1000 * n) (1-based), q in tenths of a percent (500 = p50,
 * 999 = p99.9, 1000 = max). Integer arithmetic, so p99.9 of 1000 values is
 * the 999th value exactly. n must be > 0.
 */
int64_t sleep_percentile(const int64_t *sorted, size_t n, unsigned q);

/*
 * Percentiles, buckets, early wakes, mean, min and max of n overshoot
 * values in ns. Sorts ns in place. n == 0 gives all zeros.
 */
void sleep_stats_compute(int64_t *ns, size_t n, struct sleep_stats *out);

/* ------------------------------------------------------- bench: runs */

enum sleep_pattern {
	SLEEP_ONESHOT,	/* each call asks for the duration from now */
	SLEEP_PERIODIC,	/* absolute deadlines spaced by the duration */
};

/* "oneshot", "periodic". */
const char *sleep_pattern_name(enum sleep_pattern p);
int sleep_pattern_parse(const char *word, enum sleep_pattern *out,
			char **cause);

/* Limits the parsers and sleep_bench_run enforce. */
#define SLEEP_DURATION_MAX_US	100000u		/* 100 ms per call */
#define SLEEP_CALLS_MAX		10000000u
#define SLEEP_THREADS_MAX	1024u
#define SLEEP_LOAD_MAX		1024u
#define SLEEP_MARGIN_MAX_US	100000u

/*
 * A comma-separated list of modes ("timerfd,hybrid:5"); bench modes only.
 * *out is malloc'd. 0 or -EINVAL/-ENOMEM with *cause.
 */
int sleep_modes_parse(const char *list, struct sleep_mode_spec **out,
		      size_t *n, char **cause);
/* A comma-separated list of durations in us, each 1..SLEEP_DURATION_MAX_US. */
int sleep_durations_parse(const char *list, uint32_t **out, size_t *n,
			  char **cause);

/* Called after each cell; return nonzero to stop the run (-ECANCELED). */
struct sleep_cell;
typedef int (*sleep_progress_fn)(void *arg, size_t done, size_t total,
				 const struct sleep_cell *cell);

struct sleep_bench_opts {
	const struct sleep_mode_spec *modes;	/* NULL: the 8 bench modes */
	size_t nmodes;
	const uint32_t *durations_us;	/* NULL: 10,20,30,40,50,60,70 */
	size_t ndurations;
	uint32_t calls;		/* per thread per cell; 0: 20000 */
	uint32_t threads;	/* sleeping at once; 0: 1 */
	enum sleep_pattern pattern;
	uint32_t load;		/* background busy threads */
	uint32_t calibration_calls;	/* hybrid calibration; 0: 2000 */
	sleep_progress_fn progress;	/* may be NULL */
	void *progress_arg;
	/* Asked before each call on every sleeping thread (may be NULL):
	 * true ends the cell under way within one call, drops it (a cell
	 * can run for hours) and stops the run (-ECANCELED). Must be
	 * async-signal-safe to read and cheap: a flag a handler sets. */
	bool (*stop)(void *arg);
	void *stop_arg;
};

/* Fill opts with the defaults above (all modes, all durations). */
void sleep_bench_opts_init(struct sleep_bench_opts *opts);

struct sleep_cell {
	struct sleep_mode_spec mode;	/* hybrid: the margin actually used */
	uint32_t target_us;
	uint64_t calls;		/* all threads together */
	struct sleep_stats over;	/* overshoot beyond the target */
	uint64_t missed;	/* periodic: grid deadlines skipped when late */
	double wall_s;		/* the cell, first thread start to last end */
	double cpu_s;		/* user+sys of the sleeping threads, summed */
	double cpu_pct;		/* cpu_s / wall_s * 100 (N threads: up to N*100) */
	double cpu_us_per_call;
	/* the same split into user and system time (getrusage's utime and
	 * stime), as vmstat's us and sy columns split it */
	double user_us_per_call, sys_us_per_call;
	double vcsw_per_call;	/* voluntary context switches per call */
	double ivcsw_per_call;	/* involuntary ones */
};

/* The facts a reader needs to interpret the cells. */
struct sleep_bench_header {
	uint64_t timer_slack_ns;	/* PR_GET_TIMERSLACK of the caller */
	int sched_policy;		/* sched_getscheduler(0) */
	char sched_policy_name[16];	/* "SCHED_OTHER", ... */
	char clocksource[32];	/* current_clocksource, or "" if unreadable */
	uint32_t calls, threads, load;
	enum sleep_pattern pattern;
	/* hybrid: the margin in use (calibrated or given); -1 if no hybrid */
	int64_t hybrid_margin_ns;
	bool hybrid_calibrated;
	/* calibration: timerfd p99.9 overshoot measured, and the guard added */
	int64_t calibration_p999_ns, calibration_guard_ns;
};

struct sleep_bench {
	struct sleep_bench_header header;
	struct sleep_cell *cells;	/* mode-major: modes x durations */
	size_t ncells;
};

/*
 * A calibrated hybrid margin is timerfd's p99.9 overshoot plus this guard,
 * capped at SLEEP_HYBRID_MARGIN_CAP_NS: on a busy or virtual machine the
 * p99.9 can be milliseconds of preemption (measured here: 6.2 ms while
 * other jobs ran), which no amount of spinning avoids, and a margin that
 * long would turn every sleep into a spin.
 */
#define SLEEP_HYBRID_GUARD_NS 2000
#define SLEEP_HYBRID_MARGIN_CAP_NS 100000

/* The margin for a measured timerfd p99.9 overshoot: guard added, capped. */
int64_t sleep_hybrid_margin(int64_t p999_ns);

/*
 * Run the benchmark. Fills out (release with sleep_bench_release, also on
 * failure). Returns 0, -EINVAL for bad options, -ECANCELED when progress
 * or stop asked to stop (out holds the cells finished before), or another
 * negative errno, with *cause.
 */
int sleep_bench_run(const struct sleep_bench_opts *opts,
		    struct sleep_bench *out, char **cause);
void sleep_bench_release(struct sleep_bench *b);

/* Read the timer slack, policy and clocksource into hdr (other fields 0). */
void sleep_bench_header_read(struct sleep_bench_header *hdr);

/*
 * Measure timerfd wake latency with `calls` sleeps of 20 us on the calling
 * thread and return sleep_hybrid_margin(p99.9) in *margin_ns and the raw
 * p99.9 in *p999_ns (may be NULL); 0 calls means 2000. Used for
 * hybrid without a margin; prof may also call it and pass the margin to the
 * interposer. 0 or a negative errno with *cause.
 */
int sleep_hybrid_calibrate(uint32_t calls, int64_t *margin_ns,
			   int64_t *p999_ns, char **cause);

/* The cheapest-mode rule: p99 overshoot under this many us. */
#define SLEEP_CHEAP_P99_US 10.0

/*
 * Of the cells with this target, the one with the least CPU per call whose
 * p99 overshoot is under p99_limit_us; NULL if none qualifies.
 */
const struct sleep_cell *sleep_bench_cheapest(const struct sleep_bench *b,
					      uint32_t target_us,
					      double p99_limit_us);

/* -------------------------------------------------- interposer config */

#define SLEEP_ENV_MODE		"PROF_SLEEP_MODE"
#define SLEEP_ENV_THRESHOLD	"PROF_SLEEP_THRESHOLD_US"
#define SLEEP_ENV_MAX_SPINNERS	"PROF_SLEEP_MAX_SPINNERS"
#define SLEEP_ENV_SHM_FD	"PROF_SLEEP_SHM_FD"
/* The file name of the interposer library. */
#define SLEEP_PRELOAD_LIB	"libprof-sleep.so"

#define SLEEP_THRESHOLD_DEFAULT_US	1000u
#define SLEEP_THRESHOLD_MAX_US		1000000u
#define SLEEP_MAX_SPINNERS_MAX		4096u

struct sleep_preload_config {
	struct sleep_mode_spec mode;	/* an interposer mode */
	uint64_t threshold_ns;
	uint32_t max_spinners;		/* 0: no limit */
	/* max-spinners was not given: the interposer applies the default
	 * cap, sleep_default_spinners() of its own affinity mask */
	bool spinners_default;
};

/* The default spinner cap for a process allowed on ncpus CPUs: a quarter
 * of them, at least 1 (the Hookshot rule). */
static inline uint32_t sleep_default_spinners(unsigned ncpus)
{
	return ncpus / 4 ? ncpus / 4 : 1;
}

/*
 * Parse the interposer's settings as the environment spells them; a NULL
 * word takes the default (timerfd, 1000 us, the default spinner cap:
 * max_spinners 0 and spinners_default set; "0" is no cap). prof calls this to
 * check --sleep-mode before launching; the interposer calls it on its
 * environment. 0 or -EINVAL with *cause.
 */
int sleep_preload_config_parse(const char *mode, const char *threshold_us,
			       const char *max_spinners,
			       struct sleep_preload_config *out, char **cause);

/* ---------------------------------------------- shared-memory layout */

/*
 * Requested durations: log2 buckets in us. Bucket 0 holds [0,1) us,
 * bucket k holds [2^(k-1), 2^k) us, the last bucket everything from
 * 2^(SLEEP_REQ_BUCKETS-2) us (about 4.2 s) on.
 */
#define SLEEP_REQ_BUCKETS 24

static inline unsigned sleep_req_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned b = us ? 64u - (unsigned)__builtin_clzll(us) : 0u;
	return b < SLEEP_REQ_BUCKETS ? b : SLEEP_REQ_BUCKETS - 1;
}

/*
 * Overshoot histogram in ns, log-linear: values under 32 ns have a bucket
 * each; above that each power of two is split into 16 equal buckets, so a
 * bucket spans at most 1/16 of its lower bound. Values from 2^32 ns
 * (4.3 s) on go to the overflow bucket, the last one. Percentiles read
 * from it are bucket midpoints: within 1/32 (3%) of the true value.
 */
#define SLEEP_HIST_SUB_BITS	4
#define SLEEP_HIST_MAX_EXP	32	/* first value not tracked: 2^32 ns */
#define SLEEP_OVER_BUCKETS \
	(((SLEEP_HIST_MAX_EXP - SLEEP_HIST_SUB_BITS + 1) << SLEEP_HIST_SUB_BITS) + 1)

static inline unsigned sleep_hist_bucket(uint64_t ns)
{
	const unsigned sub = 1u << SLEEP_HIST_SUB_BITS;
	if (ns < 2 * (uint64_t)sub)
		return (unsigned)ns;
	unsigned e = 63u - (unsigned)__builtin_clzll(ns);	/* >= SUB_BITS+1 */
	if (e >= SLEEP_HIST_MAX_EXP)
		return SLEEP_OVER_BUCKETS - 1;
	unsigned shift = e - SLEEP_HIST_SUB_BITS;
	return (shift << SLEEP_HIST_SUB_BITS) + (unsigned)(ns >> shift);
}

/* The range [lo, hi) of bucket b (the overflow bucket: [2^32, UINT64_MAX)). */
void sleep_hist_bounds(unsigned b, uint64_t *lo, uint64_t *hi);

#define SLEEP_SHM_MAGIC		0x3150534c454f5250ull	/* "PROFSLP1" */
#define SLEEP_SHM_VERSION	4u
#define SLEEP_SHM_SLOTS		512u
#define SLEEP_NAME_LEN		16

/*
 * One thread's record. A thread claims a slot the first time it sleeps
 * (an atomic increment of sleep_shm.next_slot), writes its tid and name,
 * and from then on only adds to the counters, with relaxed atomic adds.
 * Threads past SLEEP_SHM_SLOTS all share sleep_shm.others (tid 0). All
 * counters are uint64_t updated with __atomic builtins.
 */
struct sleep_shm_slot {
	int32_t tid;			/* 0: free, or the shared "others" */
	uint32_t pid;			/* process of the thread */
	char name[SLEEP_NAME_LEN];	/* comm, refreshed now and then */
	uint64_t served;	/* under threshold: served by the mode */
	uint64_t passed;	/* handed to the real function untouched */
	uint64_t eintr;		/* served calls interrupted by a handler */
	uint64_t early;		/* served waits that woke before deadline */
	/*
	 * How each served call was served, disjoint: by the mode itself
	 * (served - throttled - fallback), by a timerfd because max-spinners
	 * refused spin/yield (throttled), or by clock_nanosleep because no
	 * timerfd could be made or armed (fallback: descriptors exhausted,
	 * say). A fallback's overshoot is kept apart from the mode's
	 * histogram, so the mode's percentiles are its own.
	 */
	uint64_t throttled;
	uint64_t fallback;
	uint64_t fallback_errno;	/* the last timerfd failure's errno */
	uint64_t fallback_over_sum_ns;
	uint64_t fallback_over_max_ns;
	uint64_t over_sum_ns;	/* sum of recorded overshoots */
	uint64_t over_max_ns;	/* largest recorded overshoot */
	uint64_t req_hist[SLEEP_REQ_BUCKETS];	/* served and passed */
	uint64_t over_hist[SLEEP_OVER_BUCKETS];	/* completed served calls */
	/*
	 * Condvar timed waits (pthread_cond_timedwait, pthread_cond_clockwait),
	 * apart from the sleeps above, which they never touch: served (under
	 * the threshold, with sleep_cv_strategy) or passed; of the served,
	 * woken (returned 0: signalled, or a spurious wake) and timed out
	 * (ETIMEDOUT). Only timed-out waits have an overshoot; an early one
	 * (ETIMEDOUT before the deadline, never expected) counts in cv_early
	 * and as 0 in the histogram.
	 */
	uint64_t cv_served, cv_passed, cv_woken, cv_timedout, cv_early;
	uint64_t cv_over_sum_ns, cv_over_max_ns;
	uint64_t cv_over_hist[SLEEP_OVER_BUCKETS];
} __attribute__((aligned(64)));

/*
 * The memfd's contents. prof writes magic, version, size and nslots;
 * every process the interposer runs in (loaded, or forked from one that
 * did) increments `processes`; the first one to load also writes the
 * configuration it applied (`config_set` 1) and, if its environment did
 * not parse, `error` (it then measures in passthrough mode).
 */
struct sleep_shm {
	uint64_t magic;
	uint32_t version;
	uint32_t size;			/* sizeof(struct sleep_shm) */
	uint32_t nslots;		/* SLEEP_SHM_SLOTS */
	uint32_t next_slot;		/* atomic; may run past nslots */
	uint32_t processes;		/* atomic: processes that attached */
	uint32_t config_set;		/* atomic flag: config below written */
	int32_t mode;			/* enum sleep_mode applied */
	int32_t config_claim;		/* atomic: a process is writing it */
	int64_t margin_ns;		/* hybrid margin in use */
	uint64_t threshold_ns;
	uint32_t max_spinners;		/* the cap applied; 0: none */
	uint32_t hybrid_calibrated;	/* 1: margin came from calibration */
	uint32_t spinners_default;	/* 1: max_spinners is the default cap */
	uint32_t ncpus;			/* CPUs in the first process's mask */
	char error[160];		/* a config error, "" if none */
	/*
	 * The max-spinners cap, counted across every process of the
	 * workload: a thread spins only while it holds one of the first
	 * max_spinners words here (CAS 0 -> its pid << 32 | tid, back to
	 * 0 after). A thread that died holding one (its process killed
	 * mid-spin) is found by a thread refused a slot, and its slot
	 * freed.
	 */
	uint64_t spin_slots[SLEEP_MAX_SPINNERS_MAX];
	struct sleep_shm_slot others;	/* threads past the table */
	struct sleep_shm_slot slots[SLEEP_SHM_SLOTS];
};

/* ---------------------------------------------- interposer: prof side */

/*
 * Create the report memfd (sealed against shrinking and growing, so the
 * workload cannot truncate it under the reader) and return its fd, or a
 * negative errno with *cause. The fd is inheritable (no close-on-exec):
 * create it just before launching the workload and put its number in
 * PROF_SLEEP_SHM_FD.
 */
int sleep_shm_create(char **cause);

struct sleep_hist_stats {
	uint64_t n;
	/* nearest-rank percentiles, bucket midpoints, clamped to max_ns */
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
	double mean_ns;
};

/*
 * Percentiles from an overshoot histogram of SLEEP_OVER_BUCKETS buckets;
 * max_ns is the exact maximum (the histogram only knows its bucket) and
 * sum_ns the sum for the mean. n == 0 gives all zeros.
 */
void sleep_hist_percentiles(const uint64_t *hist, uint64_t max_ns,
			    uint64_t sum_ns, struct sleep_hist_stats *out);

struct sleep_thread_report {
	int32_t tid;			/* 0 for the "others" row */
	uint32_t pid;
	char name[SLEEP_NAME_LEN];	/* "others" for the shared row */
	uint64_t served, passed, eintr, early, throttled;
	uint64_t fallback, fallback_errno;
	uint64_t fallback_over_sum_ns, fallback_over_max_ns;
	uint64_t req_hist[SLEEP_REQ_BUCKETS];
	uint64_t over_hist[SLEEP_OVER_BUCKETS];
	uint64_t over_sum_ns, over_max_ns;
	struct sleep_hist_stats over;	/* computed from over_hist */
	/* condvar timed waits, as struct sleep_shm_slot counts them */
	uint64_t cv_served, cv_passed, cv_woken, cv_timedout, cv_early;
	uint64_t cv_over_sum_ns, cv_over_max_ns;
	uint64_t cv_over_hist[SLEEP_OVER_BUCKETS];
	struct sleep_hist_stats cv_over;	/* computed from cv_over_hist */
};

struct sleep_report {
	uint32_t processes;		/* processes that loaded the interposer */
	bool config_set;		/* false: nothing attached */
	struct sleep_preload_config config;	/* as applied */
	uint32_t ncpus;			/* CPUs the workload's mask allowed */
	bool hybrid_calibrated;
	char error[160];
	struct sleep_thread_report *threads;	/* by tid; "others" last */
	size_t nthreads;
	struct sleep_thread_report total;	/* every row merged */
};

/*
 * Read the memfd after the workload has exited. Slots with the same pid
 * and tid (a thread that claimed twice, or a program and the one it
 * exec'd) are merged into one row under the first one's name; nothing the workload could
 * have scribbled into the memfd is trusted without a bounds check.
 * 0, or -EINVAL (not a sleep report: bad magic/version/size) or another
 * negative errno, with *cause. Release with sleep_report_release.
 */
int sleep_report_read(int fd, struct sleep_report *out, char **cause);
void sleep_report_release(struct sleep_report *r);

enum sleep_exe_kind {
	SLEEP_EXE_DYNAMIC,	/* has PT_INTERP: LD_PRELOAD works */
	SLEEP_EXE_STATIC,	/* no PT_INTERP, no PT_DYNAMIC */
	SLEEP_EXE_STATIC_PIE,	/* PT_DYNAMIC but no PT_INTERP: no ld.so */
	SLEEP_EXE_SCRIPT,	/* "#!": depends on its interpreter */
};

/*
 * Whether an executable can take LD_PRELOAD. A path without '/' is looked
 * up in $PATH as execvp does. A "#!" script reports SLEEP_EXE_SCRIPT and
 * its interpreter's kind in *interp_kind (if not NULL). 0 or a negative
 * errno (-ENOENT, -EACCES, -ENOEXEC for a file that is not ELF) with
 * *cause.
 */
int sleep_exe_kind(const char *path, enum sleep_exe_kind *kind,
		   enum sleep_exe_kind *interp_kind, char **cause);

#endif
