/*
 * sleep_preload: libprof-sleep.so, loaded into a workload with LD_PRELOAD
 * by `prof run --sleep-mode`. It takes over nanosleep, clock_nanosleep
 * (MONOTONIC and REALTIME, relative and absolute) and usleep calls shorter
 * than a threshold and serves them with the chosen mode (see
 * collectors/sleep.h for the environment); longer ones, other clocks and
 * malformed requests go to the real functions untouched.
 *
 * Why: the kernel's timer slack (50 us for normal threads) stretches every
 * nanosleep; a timerfd is not subject to it, so a 30 us sleep served by a
 * timerfd overshoots by tens of microseconds less.
 *
 * What it keeps from the real functions: EINTR when a signal handler runs
 * during the wait (whatever SA_RESTART says, as signal(7) specifies for the
 * sleep calls), with the remaining time written back for relative sleeps;
 * absolute deadlines on their own clock; errno untouched on success and by
 * clock_nanosleep. Not kept: a thread spinning or yielding (spin, yield and
 * the last margin of hybrid) runs a signal handler and carries on to its
 * deadline instead of returning EINTR, which delays an interrupt by at most
 * the threshold; and spinning is not a cancellation point.
 *
 * Condvar timed waits (pthread_cond_timedwait, pthread_cond_clockwait)
 * whose deadline is under the threshold away, on CLOCK_MONOTONIC or
 * CLOCK_REALTIME, are served too, and counted apart from the sleeps. A
 * waiter is woken only while it waits inside the real function, so every
 * served wait is one call of the real function with the caller's own
 * arguments: signals, the mutex held on return and every return value
 * stay the real function's. What the modes change is when the kernel's
 * futex timeout fires: the thread's timer slack is 1 ns for the wait
 * (slack1 sets it for good, as for sleeps; the other modes only around
 * the wait, restoring it after, also when the wait is cancelled);
 * passthrough measures. A timerfd, a spin or a yield in its place would
 * lose a signal sent while the thread is not in the real wait.
 *
 * The sleep path never allocates nor takes a lock: per-thread state is
 * initial-exec TLS (the timerfds are created lazily), the report slot is
 * claimed with an atomic increment in a shared mapping made in the
 * constructor, and counters are atomic adds (the condvar path too, but
 * for a wait that comes before the constructor has run, which looks up
 * the real function with dlvsym first). Global state is unavoidable
 * here (a preloaded library has no caller to hand it a context): the real
 * functions, the configuration and the mapping, all written once in the
 * constructor, and the spinner count (in the mapping, so that the cap
 * holds across the workload's processes; in the process without one).
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "collectors/sleep.h"

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))
#define NS_PER_S 1000000000ll
#define CALIBRATION_CALLS 2000
#define CALIBRATION_SLEEP_NS 20000
/* Refresh a thread's name in its slot every this many served sleeps. */
#define NAME_REFRESH_EVERY 4096

typedef int (*nanosleep_fn)(const struct timespec *, struct timespec *);
typedef int (*clock_nanosleep_fn)(clockid_t, int, const struct timespec *,
				  struct timespec *);
typedef int (*usleep_fn)(useconds_t);
typedef int (*cond_timedwait_fn)(pthread_cond_t *, pthread_mutex_t *,
				 const struct timespec *);
typedef int (*cond_clockwait_fn)(pthread_cond_t *, pthread_mutex_t *,
				 clockid_t, const struct timespec *);

static nanosleep_fn real_nanosleep;
static clock_nanosleep_fn real_clock_nanosleep;
static usleep_fn real_usleep;
/* atomic: found in the constructor, or at the first wait before it;
 * kept as data pointers, the type dlsym gives */
static void *real_cond_timedwait;
static void *real_cond_clockwait;

/* Until the constructor runs, every call passes through (threshold 0). */
static struct sleep_preload_config cfg = {
	.mode = { SLEEP_MODE_PASSTHROUGH, -1 },
	.threshold_ns = 0,
	.max_spinners = 0,
};
static struct sleep_shm *shm;
static int spinners;			/* atomic: threads spinning now */
static pthread_key_t exit_key;
static int exit_key_ok;

static TLS int tfd_mono = -1;
static TLS int tfd_real = -1;
static TLS struct sleep_shm_slot *my_slot;
static TLS int slack_set;
static TLS uint32_t name_countdown;
/* How the current call was served (enum call_flags), for the report. */
static TLS unsigned call_flags;
static TLS int call_errno;

enum call_flags {
	CF_THROTTLED = 1 << 0,	/* max-spinners refused spin/yield */
	CF_FALLBACK = 1 << 1,	/* clock_nanosleep waited, not a timerfd */
};

/* ------------------------------------------------------------ real */

static int call_nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (real_nanosleep)
		return real_nanosleep(req, rem);
	return (int)syscall(SYS_nanosleep, req, rem);
}

static int call_clock_nanosleep(clockid_t clk, int flags,
				const struct timespec *req,
				struct timespec *rem)
{
	if (real_clock_nanosleep)
		return real_clock_nanosleep(clk, flags, req, rem);
	int saved = errno;
	long r = syscall(SYS_clock_nanosleep, clk, flags, req, rem);
	int ret = r < 0 ? errno : 0;
	errno = saved;
	return ret;
}

static int call_usleep(useconds_t us)
{
	if (real_usleep)
		return real_usleep(us);
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };
	return call_nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------ time */

static inline int64_t clock_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static inline struct timespec to_ts(int64_t ns)
{
	struct timespec ts = { ns / NS_PER_S, ns % NS_PER_S };
	return ts;
}

static inline int ts_valid(const struct timespec *ts)
{
	return ts && ts->tv_sec >= 0 && ts->tv_nsec >= 0 &&
	       ts->tv_nsec < NS_PER_S;
}

/* A valid timespec in ns, saturating (a year-long sleep stays large). */
static inline int64_t ts_ns(const struct timespec *ts)
{
	if (ts->tv_sec > INT64_MAX / NS_PER_S - 1)
		return INT64_MAX;
	return (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec;
}

/* ------------------------------------------------------------ report */

static inline void add(uint64_t *p, uint64_t v)
{
	__atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static void name_refresh(struct sleep_shm_slot *s)
{
	char name[SLEEP_NAME_LEN + 1] = { 0 };
	if (!s || s == &shm->others)
		return;
	if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0)
		memcpy(s->name, name, SLEEP_NAME_LEN);
}

static struct sleep_shm_slot *slot_get(void)
{
	if (my_slot || !shm)
		return my_slot;
	uint32_t i = __atomic_fetch_add(&shm->next_slot, 1, __ATOMIC_RELAXED);
	struct sleep_shm_slot *s;
	if (i < SLEEP_SHM_SLOTS) {
		s = &shm->slots[i];
		s->pid = (uint32_t)getpid();
		name_refresh(s);
		__atomic_store_n(&s->tid, (int32_t)gettid(), __ATOMIC_RELEASE);
	} else {
		s = &shm->others;
	}
	my_slot = s;
	if (exit_key_ok)
		pthread_setspecific(exit_key, (void *)1);
	name_countdown = NAME_REFRESH_EVERY;
	return s;
}

static void record_req(struct sleep_shm_slot *s, int64_t req_ns, int served)
{
	if (!s)
		return;
	add(served ? &s->served : &s->passed, 1);
	if (req_ns >= 0)
		add(&s->req_hist[sleep_req_bucket((uint64_t)req_ns)], 1);
}

static void add_max(uint64_t *p, uint64_t v)
{
	uint64_t m = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (v > m && !__atomic_compare_exchange_n(p, &m, v, 1,
						     __ATOMIC_RELAXED,
						     __ATOMIC_RELAXED))
		;
}

/* Count how the call was served (call_flags), once per served call. */
static void record_how(struct sleep_shm_slot *s)
{
	if (!s)
		return;
	if (call_flags & CF_FALLBACK) {
		add(&s->fallback, 1);
		__atomic_store_n(&s->fallback_errno, (uint64_t)call_errno,
				 __ATOMIC_RELAXED);
	} else if (call_flags & CF_THROTTLED) {
		add(&s->throttled, 1);
	}
}

static void record_over(struct sleep_shm_slot *s, int64_t over_ns)
{
	if (!s)
		return;
	if (over_ns < 0) {
		add(&s->early, 1);
		over_ns = 0;
	}
	uint64_t v = (uint64_t)over_ns;
	if (call_flags & CF_FALLBACK) {
		/* clock_nanosleep's overshoot is not the mode's */
		add(&s->fallback_over_sum_ns, v);
		add_max(&s->fallback_over_max_ns, v);
		return;
	}
	add(&s->over_hist[sleep_hist_bucket(v)], 1);
	add(&s->over_sum_ns, v);
	add_max(&s->over_max_ns, v);
	if (--name_countdown == 0) {
		name_countdown = NAME_REFRESH_EVERY;
		name_refresh(s);
	}
}

/* ------------------------------------------------------------ waits */

static int timerfd_get(clockid_t clk)
{
	int *slot = clk == CLOCK_REALTIME ? &tfd_real : &tfd_mono;
	if (*slot >= 0)
		return *slot;
	int fd = timerfd_create(clk, TFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (*slot >= 0) {
		/* a signal handler on this thread got there first */
		close(fd);
		return *slot;
	}
	*slot = fd;
	if (exit_key_ok)
		pthread_setspecific(exit_key, (void *)1);
	return fd;
}

/*
 * The timerfd failed (err: its errno): the real call still keeps the
 * deadline, and the call is marked as not served by a timerfd, so the
 * report never credits the mode with it.
 */
static int fall_back(clockid_t clk, int64_t deadline, int err)
{
	struct timespec ts = to_ts(deadline);
	call_flags |= CF_FALLBACK;
	call_errno = err;
	return call_clock_nanosleep(clk, TIMER_ABSTIME, &ts, NULL);
}

/*
 * Block until clk reaches deadline. 0, or EINTR when a signal handler ran.
 * poll rather than read: poll is never restarted after a handler, as
 * nanosleep is not, whatever SA_RESTART says.
 */
static int block_until(clockid_t clk, int64_t deadline,
		       struct sleep_shm_slot *s)
{
	int fd = timerfd_get(clk);
	if (fd < 0)
		return fall_back(clk, deadline, errno);
	for (;;) {
		struct itimerspec its = { .it_value = to_ts(deadline) };
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
			return fall_back(clk, deadline, errno);
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				return EINTR;
			return fall_back(clk, deadline, errno);
		}
		if (clock_ns(clk) >= deadline)
			return 0;
		/* woke before the deadline (a handler on this thread
		 * re-armed the timer): count it and wait again */
		if (s)
			add(&s->early, 1);
	}
}

/*
 * The workload-wide cap (sleep_shm.spin_slots): 0 when refused, else the
 * slot's index + 1. A refused thread looks at one held slot, in turn,
 * and frees it if the thread holding it is gone: one tgkill per refusal,
 * so a process killed mid-spin costs the cap a slot only for a while.
 */
static TLS uint32_t spin_probe;
static TLS uint64_t spin_me;	/* pid << 32 | tid; 0: not yet known */

static int shared_take(void)
{
	uint64_t *sl = shm->spin_slots;
	uint32_t cap = cfg.max_spinners;
	if (!spin_me)
		spin_me = (uint64_t)(uint32_t)getpid() << 32 |
			  (uint32_t)syscall(SYS_gettid);
	uint64_t me = spin_me;
	for (uint32_t i = 0; i < cap; i++) {
		uint64_t free_word = 0;
		if (__atomic_load_n(&sl[i], __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&sl[i], &free_word, me, 0,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return (int)i + 1;
	}
	uint32_t i = spin_probe++ % cap;
	uint64_t held = __atomic_load_n(&sl[i], __ATOMIC_RELAXED);
	if (held && syscall(SYS_tgkill, (pid_t)(held >> 32),
			    (pid_t)(uint32_t)held, 0) != 0 && errno == ESRCH)
		__atomic_compare_exchange_n(&sl[i], &held, 0, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return 0;
}

static int spinner_take(void)
{
	if (!cfg.max_spinners) {
		__atomic_fetch_add(&spinners, 1, __ATOMIC_RELAXED);
		return 1;
	}
	if (shm)
		return shared_take();
	int n = __atomic_load_n(&spinners, __ATOMIC_RELAXED);
	while (n < (int)cfg.max_spinners) {
		if (__atomic_compare_exchange_n(&spinners, &n, n + 1, 1,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return 1;
	}
	return 0;
}

static void spinner_put(int taken)
{
	if (cfg.max_spinners && shm)
		__atomic_store_n(&shm->spin_slots[taken - 1], 0, __ATOMIC_RELEASE);
	else
		__atomic_fetch_sub(&spinners, 1, __ATOMIC_RELEASE);
}

/* Busy-wait to the deadline (spin or yield), or block if no slot is free. */
static int busy_until(clockid_t clk, int64_t deadline, int yield,
		      struct sleep_shm_slot *s)
{
	if (clock_ns(clk) >= deadline)
		return 0;
	int taken = spinner_take();
	if (!taken) {
		call_flags |= CF_THROTTLED;
		return block_until(clk, deadline, s);
	}
	while (clock_ns(clk) < deadline) {
		if (yield)
			sched_yield();
		else
			sleep_cpu_relax();
	}
	spinner_put(taken);
	return 0;
}

/* Wait with the configured mode; 0 or EINTR. */
static int wait_until(clockid_t clk, int64_t deadline,
		      struct sleep_shm_slot *s)
{
	switch (cfg.mode.mode) {
	case SLEEP_MODE_SPIN:
		return busy_until(clk, deadline, 0, s);
	case SLEEP_MODE_YIELD:
		return busy_until(clk, deadline, 1, s);
	case SLEEP_MODE_HYBRID: {
		int64_t wake = deadline - cfg.mode.margin_ns;
		if (wake > clock_ns(clk)) {
			int r = block_until(clk, wake, s);
			if (r)
				return r;
		}
		return busy_until(clk, deadline, 0, s);
	}
	default:
		return block_until(clk, deadline, s);
	}
}

/* ------------------------------------------------------------ serving */

enum call_kind { CALL_NANOSLEEP, CALL_CLOCK_NANOSLEEP, CALL_USLEEP };

struct call {
	enum call_kind kind;
	clockid_t clk;
	int flags;
	const struct timespec *req;
	struct timespec *rem;
	useconds_t us;
};

/* The real function with the caller's own arguments. */
static int call_real(const struct call *c)
{
	switch (c->kind) {
	case CALL_NANOSLEEP:
		return call_nanosleep(c->req, c->rem);
	case CALL_CLOCK_NANOSLEEP:
		return call_clock_nanosleep(c->clk, c->flags, c->req, c->rem);
	default:
		return call_usleep(c->us);
	}
}

/* The real function's way of saying EINTR. */
static int ret_eintr(const struct call *c, int saved_errno)
{
	if (c->kind == CALL_CLOCK_NANOSLEEP) {
		errno = saved_errno;
		return EINTR;
	}
	errno = EINTR;
	return -1;
}

static int is_eintr(const struct call *c, int ret)
{
	if (c->kind == CALL_CLOCK_NANOSLEEP)
		return ret == EINTR;
	return ret < 0 && errno == EINTR;
}

/*
 * Serve a call under the threshold: wait on clk until deadline (for a
 * relative call the deadline is on CLOCK_MONOTONIC and rel says so).
 */
static int serve(const struct call *c, clockid_t clk, int64_t deadline,
		 int64_t req_ns, int rel, int saved_errno)
{
	struct sleep_shm_slot *s = slot_get();
	int ret;

	record_req(s, req_ns, 1);
	call_flags = 0;
	if (cfg.mode.mode == SLEEP_MODE_PASSTHROUGH ||
	    cfg.mode.mode == SLEEP_MODE_SLACK1) {
		if (cfg.mode.mode == SLEEP_MODE_SLACK1 && !slack_set) {
			prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
			slack_set = 1;
		}
		errno = saved_errno;
		ret = call_real(c);
		if (ret == 0) {
			int e = errno;
			record_over(s, clock_ns(clk) - deadline);
			errno = e;
		} else if (s && is_eintr(c, ret)) {
			add(&s->eintr, 1);
		}
		return ret;
	}

	int r = wait_until(clk, deadline, s);
	int64_t now = clock_ns(clk);
	record_how(s);
	if (r == EINTR) {
		if (s)
			add(&s->eintr, 1);
		if (rel && c->rem) {
			int64_t left = deadline - now;
			*c->rem = to_ts(left > 0 ? left : 0);
		}
		return ret_eintr(c, saved_errno);
	}
	record_over(s, now - deadline);
	if (r) {
		/* the fallback real call failed in a way other than EINTR */
		if (c->kind == CALL_CLOCK_NANOSLEEP) {
			errno = saved_errno;
			return r;
		}
		errno = r;
		return -1;
	}
	errno = saved_errno;
	return 0;
}

static int pass(const struct call *c, int64_t req_ns, int saved_errno)
{
	record_req(slot_get(), req_ns, 0);
	errno = saved_errno;
	return call_real(c);
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	int saved = errno;
	struct call c = { CALL_NANOSLEEP, CLOCK_MONOTONIC, 0, req, rem, 0 };
	if (!ts_valid(req))
		return pass(&c, -1, saved);
	int64_t d = ts_ns(req);
	if ((uint64_t)d >= cfg.threshold_ns)
		return pass(&c, d, saved);
	return serve(&c, CLOCK_MONOTONIC, clock_ns(CLOCK_MONOTONIC) + d, d, 1,
		     saved);
}

EXPORT int clock_nanosleep(clockid_t clk, int flags,
			   const struct timespec *req, struct timespec *rem)
{
	int saved = errno;
	struct call c = { CALL_CLOCK_NANOSLEEP, clk, flags, req, rem, 0 };
	if ((clk != CLOCK_MONOTONIC && clk != CLOCK_REALTIME) ||
	    (flags & ~TIMER_ABSTIME) || !ts_valid(req))
		return pass(&c, -1, saved);
	int64_t t = ts_ns(req);
	if (flags & TIMER_ABSTIME) {
		int64_t left = t - clock_ns(clk);
		/* a deadline already past returns at once either way */
		if (left <= 0 || (uint64_t)left >= cfg.threshold_ns)
			return pass(&c, left > 0 ? left : 0, saved);
		return serve(&c, clk, t, left, 0, saved);
	}
	if ((uint64_t)t >= cfg.threshold_ns)
		return pass(&c, t, saved);
	/* a relative sleep measures elapsed time, whatever the clock */
	return serve(&c, CLOCK_MONOTONIC, clock_ns(CLOCK_MONOTONIC) + t, t, 1,
		     saved);
}

EXPORT int usleep(useconds_t us)
{
	int saved = errno;
	struct call c = { CALL_USLEEP, CLOCK_MONOTONIC, 0, NULL, NULL, us };
	int64_t d = (int64_t)us * 1000;
	if ((uint64_t)d >= cfg.threshold_ns)
		return pass(&c, d, saved);
	return serve(&c, CLOCK_MONOTONIC, clock_ns(CLOCK_MONOTONIC) + d, d, 1,
		     saved);
}

/* ------------------------------------------------------------ condvars */

/*
 * The real functions, by the versions a program linked today calls:
 * pthread_cond_timedwait@PROF_CONDVAR_VERSION (GLIBC_2.3.2 on x86-64,
 * where GLIBC_2.2.5 is the old condvar, which this library does not take
 * over: see sleep_preload.map.in; GLIBC_2.17 on arm64), and
 * pthread_cond_clockwait@GLIBC_2.34, the same function as @GLIBC_2.30.
 * real_symbol() tries each version in turn, then the default one, and
 * keeps what it found in *cache.
 */
static void *real_symbol(void **cache, const char *name,
			 const char *const *versions)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
	if (f)
		return f;
	for (; *versions && !f; versions++)
		f = dlvsym(RTLD_NEXT, name, *versions);
	if (!f)
		f = dlsym(RTLD_NEXT, name);
	__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	return f;
}

static cond_timedwait_fn cond_timedwait_real(void)
{
	static const char *const versions[] = { PROF_CONDVAR_VERSION, NULL };
	return (cond_timedwait_fn)real_symbol(&real_cond_timedwait,
					      "pthread_cond_timedwait",
					      versions);
}

static cond_clockwait_fn cond_clockwait_real(void)
{
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.30",
						NULL };
	return (cond_clockwait_fn)real_symbol(&real_cond_clockwait,
					      "pthread_cond_clockwait",
					      versions);
}

/*
 * The clock pthread_cond_timedwait measures cv's deadline on, set by
 * pthread_condattr_setclock: glibc keeps it in bit 1 of __wrefs since
 * its condvar of 2.25 (CLOCK_REALTIME when clear). -1 where unknown, and
 * the wait passes through.
 */
static clockid_t cond_clock(pthread_cond_t *cv)
{
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 25)
	unsigned w = __atomic_load_n(&cv->__data.__wrefs, __ATOMIC_RELAXED);
	return w & 2 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
#else
	(void)cv;
	return -1;
#endif
}

struct cv_call {
	pthread_cond_t *cv;
	pthread_mutex_t *mu;
	clockid_t clk;
	const struct timespec *abstime;
	int clockwait;		/* pthread_cond_clockwait, with clk */
};

/* The real function with the caller's own arguments. */
static int cv_real(const struct cv_call *c)
{
	if (c->clockwait) {
		cond_clockwait_fn f = cond_clockwait_real();
		return f ? f(c->cv, c->mu, c->clk, c->abstime) : ENOSYS;
	}
	cond_timedwait_fn f = cond_timedwait_real();
	return f ? f(c->cv, c->mu, c->abstime) : ENOSYS;
}

static void slack_restore(void *old)
{
	prctl(PR_SET_TIMERSLACK, *(unsigned long *)old, 0, 0, 0);
}

/*
 * The real wait with the thread's timer slack at 1 ns, put back after
 * (by the cleanup handler if the thread is cancelled in the wait). *now
 * is the clock when the wait returned, read before the slack goes back.
 */
static int cv_wait_slack1(const struct cv_call *c, int64_t *now)
{
	int old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	int ret;
	if (old <= 1) {
		/* already as fine as it goes (a realtime thread has 0) */
		ret = cv_real(c);
		*now = clock_ns(c->clk);
		return ret;
	}
	unsigned long keep = (unsigned long)old;
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	pthread_cleanup_push(slack_restore, &keep);
	ret = cv_real(c);
	*now = clock_ns(c->clk);
	pthread_cleanup_pop(1);
	return ret;
}

static void cv_record(struct sleep_shm_slot *s, int ret, int64_t over_ns)
{
	if (!s)
		return;
	if (ret == 0) {
		add(&s->cv_woken, 1);
		return;
	}
	if (ret != ETIMEDOUT)
		return;
	add(&s->cv_timedout, 1);
	if (over_ns < 0) {
		add(&s->cv_early, 1);
		over_ns = 0;
	}
	uint64_t v = (uint64_t)over_ns;
	add(&s->cv_over_hist[sleep_hist_bucket(v)], 1);
	add(&s->cv_over_sum_ns, v);
	add_max(&s->cv_over_max_ns, v);
}

/* A short wait: the real one, with sleep_cv_strategy() of the mode. */
static int cv_serve(const struct cv_call *c, int64_t deadline, int saved)
{
	struct sleep_shm_slot *s = slot_get();
	int64_t now;
	int ret;

	if (s)
		add(&s->cv_served, 1);
	if (cfg.mode.mode == SLEEP_MODE_SLACK1 && !slack_set) {
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
		slack_set = 1;
	}
	errno = saved;
	if (cfg.mode.mode == SLEEP_MODE_PASSTHROUGH ||
	    cfg.mode.mode == SLEEP_MODE_SLACK1) {
		ret = cv_real(c);
		now = clock_ns(c->clk);
	} else {
		ret = cv_wait_slack1(c, &now);
	}
	int e = errno;
	cv_record(s, ret, now - deadline);
	errno = e;
	return ret;
}

static int cv_wait(const struct cv_call *c)
{
	int saved = errno;
	if ((c->clk != CLOCK_MONOTONIC && c->clk != CLOCK_REALTIME) ||
	    !ts_valid(c->abstime))
		goto pass;
	int64_t deadline = ts_ns(c->abstime);
	int64_t left = deadline - clock_ns(c->clk);
	/* a deadline already past returns at once either way */
	if (left <= 0 || (uint64_t)left >= cfg.threshold_ns)
		goto pass;
	return cv_serve(c, deadline, saved);
pass:;
	struct sleep_shm_slot *s = slot_get();
	if (s)
		add(&s->cv_passed, 1);
	errno = saved;
	return cv_real(c);
}

/* Versioned PROF_CONDVAR_VERSION by sleep_preload.map.in. */
EXPORT int pthread_cond_timedwait(pthread_cond_t *restrict cv,
				  pthread_mutex_t *restrict mu,
				  const struct timespec *restrict abstime)
{
	struct cv_call c = { cv, mu, cond_clock(cv), abstime, 0 };
	return cv_wait(&c);
}

/*
 * pthread_cond_clockwait under both its versions; the map keeps these
 * two names local, so only the versioned aliases are exported.
 */
static int cv_clockwait(pthread_cond_t *cv, pthread_mutex_t *mu,
			clockid_t clk, const struct timespec *abstime)
{
	struct cv_call c = { cv, mu, clk, abstime, 1 };
	return cv_wait(&c);
}

EXPORT int prof_sleep_clockwait_2_34(pthread_cond_t *cv, pthread_mutex_t *mu,
				     clockid_t clk,
				     const struct timespec *abstime)
{
	return cv_clockwait(cv, mu, clk, abstime);
}

EXPORT int prof_sleep_clockwait_2_30(pthread_cond_t *cv, pthread_mutex_t *mu,
				     clockid_t clk,
				     const struct timespec *abstime)
{
	return cv_clockwait(cv, mu, clk, abstime);
}

__asm__(".symver prof_sleep_clockwait_2_34, pthread_cond_clockwait@@GLIBC_2.34");
__asm__(".symver prof_sleep_clockwait_2_30, pthread_cond_clockwait@GLIBC_2.30");

/* ------------------------------------------------------------ life */

static void thread_exit(void *unused)
{
	(void)unused;
	name_refresh(my_slot);
	if (tfd_mono >= 0)
		close(tfd_mono);
	if (tfd_real >= 0)
		close(tfd_real);
	tfd_mono = tfd_real = -1;
}

/*
 * In a forked child the timerfds are the parent's open file descriptions
 * (re-arming one would move the parent's timer), the slot is the parent
 * thread's, and any other thread's spinner slot is gone.
 */
static void after_fork_child(void)
{
	if (tfd_mono >= 0)
		close(tfd_mono);
	if (tfd_real >= 0)
		close(tfd_real);
	tfd_mono = tfd_real = -1;
	my_slot = NULL;
	spin_me = 0;
	__atomic_store_n(&spinners, 0, __ATOMIC_RELAXED);
	if (shm)
		__atomic_fetch_add(&shm->processes, 1, __ATOMIC_RELAXED);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The hybrid margin: timerfd's p99.9 wake latency, guarded and capped. */
static int64_t calibrate(void)
{
	static int64_t over[CALIBRATION_CALLS];
	int fd = timerfd_get(CLOCK_MONOTONIC);
	if (fd < 0)
		return 50000;	/* the default slack: a safe margin */
	for (int i = 0; i < CALIBRATION_CALLS; i++) {
		int64_t deadline = clock_ns(CLOCK_MONOTONIC) +
				   CALIBRATION_SLEEP_NS;
		while (block_until(CLOCK_MONOTONIC, deadline, NULL) == EINTR)
			;
		over[i] = clock_ns(CLOCK_MONOTONIC) - deadline;
	}
	qsort(over, CALIBRATION_CALLS, sizeof(over[0]), cmp_i64);
	return sleep_hybrid_margin(sleep_percentile(over, CALIBRATION_CALLS,
						    999));
}

/* Map the report memfd named by the environment, or leave shm NULL. */
static void attach(void)
{
	const char *s = getenv(SLEEP_ENV_SHM_FD);
	char *end;
	struct stat st;
	if (!s || !*s)
		return;
	long fd = strtol(s, &end, 10);
	if (*end || fd < 0 || fd > INT32_MAX)
		return;
	if (fstat((int)fd, &st) < 0 ||
	    (size_t)st.st_size < sizeof(struct sleep_shm))
		return;
	struct sleep_shm *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
				   MAP_SHARED, (int)fd, 0);
	if (m == MAP_FAILED)
		return;
	if (m->magic != SLEEP_SHM_MAGIC || m->version != SLEEP_SHM_VERSION ||
	    m->size != sizeof(struct sleep_shm) ||
	    m->nslots != SLEEP_SHM_SLOTS) {
		munmap(m, sizeof(*m));
		return;
	}
	shm = m;
}

static void publish(const struct sleep_preload_config *c, int calibrated,
		    unsigned ncpus, const char *error)
{
	if (!shm)
		return;
	__atomic_fetch_add(&shm->processes, 1, __ATOMIC_RELAXED);
	int32_t expect = 0;
	/* the first process to load writes what it applied */
	if (!__atomic_compare_exchange_n(&shm->config_claim, &expect, 1, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	shm->mode = (int32_t)c->mode.mode;
	shm->margin_ns = c->mode.margin_ns;
	shm->threshold_ns = c->threshold_ns;
	shm->max_spinners = c->max_spinners;
	shm->hybrid_calibrated = (uint32_t)calibrated;
	shm->spinners_default = c->spinners_default;
	shm->ncpus = ncpus;
	if (error) {
		size_t n = strlen(error);
		if (n > sizeof(shm->error) - 1)
			n = sizeof(shm->error) - 1;
		memcpy(shm->error, error, n);
		shm->error[n] = '\0';
	}
	__atomic_store_n(&shm->config_set, 1, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void preload_init(void)
{
	struct sleep_preload_config c;
	char *cause = NULL;
	int calibrated = 0;
	int saved = errno;

	real_nanosleep = (nanosleep_fn)dlsym(RTLD_NEXT, "nanosleep");
	real_clock_nanosleep =
		(clock_nanosleep_fn)dlsym(RTLD_NEXT, "clock_nanosleep");
	real_usleep = (usleep_fn)dlsym(RTLD_NEXT, "usleep");
	cond_timedwait_real();
	cond_clockwait_real();

	attach();
	if (pthread_key_create(&exit_key, thread_exit) == 0)
		exit_key_ok = 1;
	pthread_atfork(NULL, NULL, after_fork_child);

	if (sleep_preload_config_parse(getenv(SLEEP_ENV_MODE),
				       getenv(SLEEP_ENV_THRESHOLD),
				       getenv(SLEEP_ENV_MAX_SPINNERS), &c,
				       &cause) < 0) {
		/* measure, change nothing, and say why in the report */
		sleep_preload_config_parse(NULL, NULL, NULL, &c, NULL);
		c.mode.mode = SLEEP_MODE_PASSTHROUGH;
	}
	if (c.mode.mode == SLEEP_MODE_HYBRID && c.mode.margin_ns < 0) {
		/* a process exec'd by the workload inherits the report: take
		 * the margin its first process calibrated rather than spend
		 * another ~0.1 s at every exec */
		if (shm && __atomic_load_n(&shm->config_set, __ATOMIC_ACQUIRE) &&
		    shm->mode == SLEEP_MODE_HYBRID && shm->hybrid_calibrated &&
		    shm->margin_ns >= 0 &&
		    shm->margin_ns <= SLEEP_HYBRID_MARGIN_CAP_NS)
			c.mode.margin_ns = shm->margin_ns;
		else
			c.mode.margin_ns = calibrate();
		calibrated = 1;
	}
	/* the default cap: a quarter of the CPUs this process may use, so
	 * spinners never take every CPU from the threads they wait for */
	cpu_set_t mask;
	unsigned ncpus = 0;
	if (sched_getaffinity(0, sizeof(mask), &mask) == 0)
		ncpus = (unsigned)CPU_COUNT(&mask);
	if (c.spinners_default)
		c.max_spinners = sleep_default_spinners(ncpus);
	publish(&c, calibrated, ncpus, cause);
	/* one cap for the whole workload: the first process's (a process
	 * the workload starts on fewer CPUs would count a smaller default) */
	if (shm && __atomic_load_n(&shm->config_set, __ATOMIC_ACQUIRE) &&
	    shm->max_spinners <= SLEEP_MAX_SPINNERS_MAX)
		c.max_spinners = shm->max_spinners;
	cfg = c;
	free(cause);
	errno = saved;
}

__attribute__((destructor)) static void preload_fini(void)
{
	/* the main thread runs no key destructor: take its final name */
	if (shm)
		name_refresh(my_slot);
}
