/*
 * sleep: the timer benchmark behind `prof sleep`. Each cell (one mode, one
 * target duration) starts N sleeping threads that each sleep `calls` times
 * and write every call's overshoot into their slice of one preallocated,
 * pre-touched array; the cell's statistics are computed over the merged
 * slices afterwards, so nothing in the timed loop allocates or faults.
 * CPU cost and context switches come from getrusage(RUSAGE_THREAD) of the
 * sleeping threads, taken just outside their loops.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "collectors/sleep.h"
#include "common/order.h"
#include "common/cause.h"
#include "common/errtext.h"

#define NS_PER_S 1000000000ll
#define DEFAULT_CALLS 20000u
#define DEFAULT_CALIBRATION_CALLS 2000u
#define CALIBRATION_SLEEP_NS 20000
/* The most overshoot samples one cell may hold (8 bytes each: 800 MB). */
#define MAX_SAMPLES 100000000ull

static const uint32_t default_durations[] = { 10, 20, 30, 40, 50, 60, 70 };

static const char *const bucket_names[SLEEP_NBUCKETS] = {
	"lt3", "lt10", "lt25", "lt50", "ge50"
};

/* Upper ends of the buckets in ns, exclusive; the last is open. */
static const int64_t bucket_limits_ns[SLEEP_NBUCKETS - 1] = {
	3000, 10000, 25000, 50000
};

static inline int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static inline struct timespec to_ts(int64_t ns)
{
	struct timespec ts = { ns / NS_PER_S, ns % NS_PER_S };
	return ts;
}

/* ------------------------------------------------------------ stats */

const char *sleep_bucket_name(enum sleep_bucket b)
{
	return (unsigned)b < SLEEP_NBUCKETS ? bucket_names[b] : "unknown";
}

void sleep_stats_compute(int64_t *ns, size_t n, struct sleep_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	qsort(ns, n, sizeof(*ns), order_i64);
	out->n = n;
	out->p50_ns = sleep_percentile(ns, n, 500);
	out->p90_ns = sleep_percentile(ns, n, 900);
	out->p99_ns = sleep_percentile(ns, n, 990);
	out->p999_ns = sleep_percentile(ns, n, 999);
	out->min_ns = ns[0];
	out->max_ns = ns[n - 1];
	double sum = 0;
	size_t b = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t v = ns[i];
		sum += (double)v;
		if (v < 0)
			out->early++;
		/* sorted, so the bucket index only moves forward */
		while (b < SLEEP_NBUCKETS - 1 && v >= bucket_limits_ns[b])
			b++;
		out->buckets[b]++;
	}
	out->mean_ns = sum / (double)n;
}

/* ------------------------------------------------------------ facts */

static const char *policy_name(int policy)
{
	switch (policy) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE: return "SCHED_IDLE";
#ifdef SCHED_DEADLINE
	case SCHED_DEADLINE: return "SCHED_DEADLINE";
#endif
	default: return "unknown";
	}
}

void sleep_bench_header_read(struct sleep_bench_header *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->hybrid_margin_ns = -1;
	int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	hdr->timer_slack_ns = slack > 0 ? (uint64_t)slack : 0;
	int policy = sched_getscheduler(0);
	if (policy >= 0) {
#ifdef SCHED_RESET_ON_FORK
		policy &= ~SCHED_RESET_ON_FORK;
#endif
		hdr->sched_policy = policy;
		snprintf(hdr->sched_policy_name, sizeof(hdr->sched_policy_name),
			 "%s", policy_name(policy));
	} else {
		hdr->sched_policy = -1;
		snprintf(hdr->sched_policy_name, sizeof(hdr->sched_policy_name),
			 "unknown");
	}
	int fd = open("/sys/devices/system/clocksource/clocksource0/"
		      "current_clocksource", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, hdr->clocksource,
				 sizeof(hdr->clocksource) - 1);
		close(fd);
		if (n < 0)
			n = 0;
		hdr->clocksource[n] = '\0';
		char *nl = strchr(hdr->clocksource, '\n');
		if (nl)
			*nl = '\0';
	}
}

/* ------------------------------------------------------------ waits */

/* What one sleeping thread needs; set up outside the timed loop. */
struct waiter {
	struct sleep_mode_spec mode;
	int tfd;			/* timerfd, hybrid */
	pthread_mutex_t mu;		/* condvar */
	pthread_cond_t cv;
	bool cv_ready;
	int old_slack;			/* slack1: restored afterwards */
};

static int waiter_init(struct waiter *w, const struct sleep_mode_spec *mode)
{
	memset(w, 0, sizeof(*w));
	w->mode = *mode;
	w->tfd = -1;
	w->old_slack = -1;
	switch (mode->mode) {
	case SLEEP_MODE_TIMERFD:
	case SLEEP_MODE_HYBRID:
		w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (w->tfd < 0)
			return -errno;
		break;
	case SLEEP_MODE_CONDVAR: {
		pthread_condattr_t ca;
		int err = pthread_condattr_init(&ca);
		if (!err)
			err = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		if (!err)
			err = pthread_cond_init(&w->cv, &ca);
		pthread_condattr_destroy(&ca);
		if (err)
			return -err;
		err = pthread_mutex_init(&w->mu, NULL);
		if (err) {
			pthread_cond_destroy(&w->cv);
			return -err;
		}
		w->cv_ready = true;
		break;
	}
	case SLEEP_MODE_SLACK1:
		w->old_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
		if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) < 0)
			return -errno;
		break;
	default:
		break;
	}
	return 0;
}

static void waiter_release(struct waiter *w)
{
	if (w->tfd >= 0)
		close(w->tfd);
	w->tfd = -1;
	if (w->cv_ready) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		w->cv_ready = false;
	}
	if (w->old_slack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)w->old_slack, 0, 0, 0);
	w->old_slack = -1;
}

static void timerfd_wait(int tfd, int64_t deadline)
{
	struct itimerspec its = { .it_value = to_ts(deadline) };
	uint64_t ticks;
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return;
	while (read(tfd, &ticks, sizeof(ticks)) < 0 && errno == EINTR)
		;
}

static void spin_until(int64_t deadline)
{
	while (now_ns() < deadline)
		sleep_cpu_relax();
}

/*
 * Sleep until the deadline. rel_ns is what a relative mode asks the
 * kernel for: the duration itself in oneshot, deadline - now in periodic.
 */
static void waiter_wait(struct waiter *w, int64_t deadline, int64_t rel_ns)
{
	switch (w->mode.mode) {
	case SLEEP_MODE_NANOSLEEP:
	case SLEEP_MODE_SLACK1: {
		if (rel_ns <= 0)
			return;
		struct timespec req = to_ts(rel_ns), rem;
		while (nanosleep(&req, &rem) < 0 && errno == EINTR)
			req = rem;
		break;
	}
	case SLEEP_MODE_CLOCK_ABS: {
		struct timespec ts = to_ts(deadline);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		break;
	}
	case SLEEP_MODE_TIMERFD:
		timerfd_wait(w->tfd, deadline);
		break;
	case SLEEP_MODE_CONDVAR: {
		struct timespec ts = to_ts(deadline);
		pthread_mutex_lock(&w->mu);
		/* nobody signals: a return before ETIMEDOUT is spurious */
		while (pthread_cond_timedwait(&w->cv, &w->mu, &ts) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&w->mu);
		break;
	}
	case SLEEP_MODE_YIELD:
		while (now_ns() < deadline)
			sched_yield();
		break;
	case SLEEP_MODE_SPIN:
		spin_until(deadline);
		break;
	case SLEEP_MODE_HYBRID: {
		int64_t wake = deadline - w->mode.margin_ns;
		if (wake > now_ns())
			timerfd_wait(w->tfd, wake);
		spin_until(deadline);
		break;
	}
	default:
		break;
	}
}

/* ------------------------------------------------------------ cells */

struct cell_ctx {
	struct sleep_mode_spec mode;
	int64_t target_ns;
	uint32_t calls;
	enum sleep_pattern pattern;
	/* start gate: workers set up, report ready, and wait for go (1) or
	 * abort (-1), so the cell's clock starts with everyone in place */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t ready;
	int go;
	bool (*stop)(void *arg);	/* or NULL */
	void *stop_arg;
};

static bool cell_stopped(const struct cell_ctx *cc)
{
	return cc->stop && cc->stop(cc->stop_arg);
}

/* Returns the gate's verdict: 1 go, -1 abort. */
static int gate_wait(struct cell_ctx *cc)
{
	pthread_mutex_lock(&cc->mu);
	cc->ready++;
	pthread_cond_broadcast(&cc->cv);
	while (cc->go == 0)
		pthread_cond_wait(&cc->cv, &cc->mu);
	int go = cc->go;
	pthread_mutex_unlock(&cc->mu);
	return go;
}

static void gate_open(struct cell_ctx *cc, uint32_t expect, int verdict)
{
	pthread_mutex_lock(&cc->mu);
	while (verdict > 0 && cc->ready < expect)
		pthread_cond_wait(&cc->cv, &cc->mu);
	cc->go = verdict;
	pthread_cond_broadcast(&cc->cv);
	pthread_mutex_unlock(&cc->mu);
}

struct worker {
	pthread_t th;
	struct cell_ctx *cc;
	int64_t *over;		/* cc->calls slots */
	uint64_t missed;
	int64_t user_ns, sys_ns, t_begin, t_end;
	long nvcsw, nivcsw;
	int err;
	bool stopped;		/* cc->stop ended it before its last call */
};

static int64_t tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * NS_PER_S + (int64_t)tv.tv_usec * 1000;
}

static void run_loop(struct worker *wk, struct waiter *w)
{
	const struct cell_ctx *cc = wk->cc;
	const int64_t d = cc->target_ns;
	int64_t *over = wk->over;

	if (cc->pattern == SLEEP_ONESHOT) {
		for (uint32_t i = 0; i < cc->calls; i++) {
			if (cell_stopped(cc)) {
				wk->stopped = true;
				return;
			}
			int64_t t0 = now_ns();
			int64_t deadline = t0 + d;
			waiter_wait(w, deadline, d);
			over[i] = now_ns() - deadline;
		}
		return;
	}
	int64_t next = now_ns() + d;
	for (uint32_t i = 0; i < cc->calls; i++) {
		if (cell_stopped(cc)) {
			wk->stopped = true;
			return;
		}
		waiter_wait(w, next, next - now_ns());
		int64_t t1 = now_ns();
		over[i] = t1 - next;
		/* a late wake skips the grid points already past, as
		 * cyclictest does, and counts them */
		next += d;
		while (next <= t1) {
			next += d;
			wk->missed++;
		}
	}
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct waiter w;
	struct rusage r0, r1;

	wk->err = waiter_init(&w, &wk->cc->mode);
	if (gate_wait(wk->cc) < 0 || wk->err) {
		waiter_release(&w);
		return NULL;
	}
	wk->t_begin = now_ns();
	getrusage(RUSAGE_THREAD, &r0);
	run_loop(wk, &w);
	getrusage(RUSAGE_THREAD, &r1);
	wk->t_end = now_ns();
	wk->user_ns = tv_ns(r1.ru_utime) - tv_ns(r0.ru_utime);
	wk->sys_ns = tv_ns(r1.ru_stime) - tv_ns(r0.ru_stime);
	wk->nvcsw = r1.ru_nvcsw - r0.ru_nvcsw;
	wk->nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	waiter_release(&w);
	return NULL;
}

/* Run one cell on `threads` threads; samples holds threads*calls slots. */
static int run_cell(const struct sleep_mode_spec *mode, uint32_t target_us,
		    const struct sleep_bench_opts *o, int64_t *samples,
		    struct sleep_cell *cell, char **cause)
{
	struct cell_ctx cc = {
		.mode = *mode,
		.target_ns = (int64_t)target_us * 1000,
		.calls = o->calls,
		.pattern = o->pattern,
		.mu = PTHREAD_MUTEX_INITIALIZER,
		.cv = PTHREAD_COND_INITIALIZER,
		.stop = o->stop, .stop_arg = o->stop_arg,
	};
	struct worker *wk = calloc(o->threads, sizeof(*wk));
	uint32_t started = 0;
	int err = 0;
	char name[32];

	sleep_mode_format(mode, name, sizeof(name));
	if (!wk) {
		cause_set(cause, 0, "cannot allocate %u sleeping threads: out of "
			  "memory", o->threads);
		return -ENOMEM;
	}
	for (; started < o->threads; started++) {
		wk[started].cc = &cc;
		wk[started].over = samples + (size_t)started * o->calls;
		err = pthread_create(&wk[started].th, NULL, worker_main,
				     &wk[started]);
		if (err)
			break;
	}
	if (err) {
		cause_set(cause, 0, "cannot start sleeping thread %u of %u: %s",
			  started + 1, o->threads, ERR_TEXT(err));
		gate_open(&cc, started, -1);
		for (uint32_t i = 0; i < started; i++)
			pthread_join(wk[i].th, NULL);
		free(wk);
		return -err;
	}
	gate_open(&cc, o->threads, 1);
	for (uint32_t i = 0; i < o->threads; i++)
		pthread_join(wk[i].th, NULL);

	memset(cell, 0, sizeof(*cell));
	cell->mode = *mode;
	cell->target_us = target_us;
	int64_t user_ns = 0, sys_ns = 0;
	int64_t t_start = INT64_MAX, t_end = 0;
	long nv = 0, niv = 0;
	bool stopped = false;
	for (uint32_t i = 0; i < o->threads; i++) {
		stopped = stopped || wk[i].stopped;
		if (wk[i].err && !err) {
			err = wk[i].err;
			cause_set(cause, 0, "cannot set up mode '%s' on a sleeping "
				  "thread: %s", name, ERR_TEXT(-err));
		}
		if (wk[i].t_begin < t_start)
			t_start = wk[i].t_begin;
		if (wk[i].t_end > t_end)
			t_end = wk[i].t_end;
		user_ns += wk[i].user_ns;
		sys_ns += wk[i].sys_ns;
		nv += wk[i].nvcsw;
		niv += wk[i].nivcsw;
		cell->missed += wk[i].missed;
	}
	int64_t cpu_ns = user_ns + sys_ns;
	free(wk);
	if (err)
		return err;
	if (stopped) {
		cause_set(cause, 0, "sleep benchmark stopped during cell '%s' "
			  "%u us", name, target_us);
		return -ECANCELED;
	}
	size_t n = (size_t)o->threads * o->calls;
	sleep_stats_compute(samples, n, &cell->over);
	cell->calls = n;
	cell->wall_s = (double)(t_end - t_start) / 1e9;
	cell->cpu_s = (double)cpu_ns / 1e9;
	cell->cpu_pct = cell->wall_s > 0 ? cell->cpu_s / cell->wall_s * 100.0
					 : 0.0;
	cell->cpu_us_per_call = (double)cpu_ns / 1e3 / (double)n;
	cell->user_us_per_call = (double)user_ns / 1e3 / (double)n;
	cell->sys_us_per_call = (double)sys_ns / 1e3 / (double)n;
	cell->vcsw_per_call = (double)nv / (double)n;
	cell->ivcsw_per_call = (double)niv / (double)n;
	return 0;
}

/* ------------------------------------------------------------ load */

struct load {
	pthread_t *th;
	uint32_t n;
	int stop;		/* atomic */
};

static void *load_main(void *arg)
{
	struct load *l = arg;
	while (!__atomic_load_n(&l->stop, __ATOMIC_RELAXED))
		sleep_cpu_relax();
	return NULL;
}

static void load_stop(struct load *l)
{
	__atomic_store_n(&l->stop, 1, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < l->n; i++)
		pthread_join(l->th[i], NULL);
	free(l->th);
	l->th = NULL;
	l->n = 0;
}

static int load_start(struct load *l, uint32_t n, char **cause)
{
	memset(l, 0, sizeof(*l));
	if (!n)
		return 0;
	l->th = calloc(n, sizeof(*l->th));
	if (!l->th) {
		cause_set(cause, 0, "cannot allocate %u load threads: out of "
			  "memory", n);
		return -ENOMEM;
	}
	for (; l->n < n; l->n++) {
		int err = pthread_create(&l->th[l->n], NULL, load_main, l);
		if (err) {
			cause_set(cause, 0, "cannot start load thread %u of %u: "
				  "%s", l->n + 1, n, ERR_TEXT(err));
			load_stop(l);
			return -err;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ runs */

void sleep_bench_opts_init(struct sleep_bench_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->calls = DEFAULT_CALLS;
	opts->threads = 1;
	opts->pattern = SLEEP_ONESHOT;
}

int sleep_hybrid_calibrate(uint32_t calls, int64_t *margin_ns,
			   int64_t *p999_ns, char **cause)
{
	struct sleep_mode_spec mode = { SLEEP_MODE_TIMERFD, -1 };
	struct waiter w;
	struct sleep_stats st;
	int err;

	if (!calls)
		calls = DEFAULT_CALIBRATION_CALLS;
	int64_t *over = malloc((size_t)calls * sizeof(*over));
	if (!over) {
		cause_set(cause, 0, "cannot allocate %u calibration samples: out "
			  "of memory", calls);
		return -ENOMEM;
	}
	memset(over, 0xff, (size_t)calls * sizeof(*over));
	err = waiter_init(&w, &mode);
	if (err) {
		cause_set(cause, 0, "cannot create a timerfd to calibrate the "
			  "hybrid margin: %s", ERR_TEXT(-err));
		free(over);
		return err;
	}
	for (uint32_t i = 0; i < calls; i++) {
		int64_t deadline = now_ns() + CALIBRATION_SLEEP_NS;
		waiter_wait(&w, deadline, CALIBRATION_SLEEP_NS);
		over[i] = now_ns() - deadline;
	}
	waiter_release(&w);
	sleep_stats_compute(over, calls, &st);
	free(over);
	if (p999_ns)
		*p999_ns = st.p999_ns;
	*margin_ns = sleep_hybrid_margin(st.p999_ns);
	return 0;
}

static int check_opts(const struct sleep_bench_opts *o, char **cause)
{
	if (o->calls == 0 || o->calls > SLEEP_CALLS_MAX) {
		cause_set(cause, 0, "calls per cell %u out of range\n"
			  "hint: give 1 to %u", o->calls, SLEEP_CALLS_MAX);
		return -EINVAL;
	}
	if (o->threads == 0 || o->threads > SLEEP_THREADS_MAX) {
		cause_set(cause, 0, "sleeping threads %u out of range\n"
			  "hint: give 1 to %u", o->threads, SLEEP_THREADS_MAX);
		return -EINVAL;
	}
	if (o->load > SLEEP_LOAD_MAX) {
		cause_set(cause, 0, "load threads %u out of range\n"
			  "hint: give 0 to %u", o->load, SLEEP_LOAD_MAX);
		return -EINVAL;
	}
	if ((uint64_t)o->calls * o->threads > MAX_SAMPLES) {
		cause_set(cause, 0, "%u calls on %u threads is too many samples "
			  "for one cell\nhint: keep calls x threads under "
			  "%llu", o->calls, o->threads,
			  (unsigned long long)MAX_SAMPLES);
		return -EINVAL;
	}
	if (o->pattern != SLEEP_ONESHOT && o->pattern != SLEEP_PERIODIC) {
		cause_set(cause, 0, "unknown sleep pattern %d", (int)o->pattern);
		return -EINVAL;
	}
	for (size_t i = 0; i < o->nmodes; i++) {
		const struct sleep_mode_spec *m = &o->modes[i];
		if (!sleep_mode_is_bench(m->mode)) {
			cause_set(cause, 0, "mode '%s' cannot be benchmarked",
				  sleep_mode_name(m->mode));
			return -EINVAL;
		}
		if (m->mode == SLEEP_MODE_HYBRID &&
		    m->margin_ns > (int64_t)SLEEP_MARGIN_MAX_US * 1000) {
			cause_set(cause, 0, "hybrid margin %lld ns out of range",
				  (long long)m->margin_ns);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < o->ndurations; i++) {
		uint32_t d = o->durations_us[i];
		if (d == 0 || d > SLEEP_DURATION_MAX_US) {
			cause_set(cause, 0, "duration %u us out of range\n"
				  "hint: give 1 to %u us", d,
				  SLEEP_DURATION_MAX_US);
			return -EINVAL;
		}
	}
	return 0;
}

int sleep_bench_run(const struct sleep_bench_opts *opts,
		    struct sleep_bench *out, char **cause)
{
	struct sleep_bench_opts o = *opts;
	struct sleep_mode_spec all[SLEEP_BENCH_NMODES];
	struct load load;
	int64_t *samples = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if (!o.calls)
		o.calls = DEFAULT_CALLS;
	if (!o.threads)
		o.threads = 1;
	if (!o.modes || !o.nmodes) {
		for (int m = 0; m < SLEEP_BENCH_NMODES; m++)
			all[m] = (struct sleep_mode_spec){ (enum sleep_mode)m,
							   -1 };
		o.modes = all;
		o.nmodes = SLEEP_BENCH_NMODES;
	}
	if (!o.durations_us || !o.ndurations) {
		o.durations_us = default_durations;
		o.ndurations = sizeof(default_durations) /
			       sizeof(default_durations[0]);
	}
	err = check_opts(&o, cause);
	if (err)
		return err;

	sleep_bench_header_read(&out->header);
	out->header.calls = o.calls;
	out->header.threads = o.threads;
	out->header.load = o.load;
	out->header.pattern = o.pattern;

	size_t total = o.nmodes * o.ndurations;
	size_t nsamples = (size_t)o.calls * o.threads;
	out->cells = calloc(total, sizeof(*out->cells));
	samples = malloc(nsamples * sizeof(*samples));
	if (!out->cells || !samples) {
		cause_set(cause, 0, "cannot allocate %zu overshoot samples: out "
			  "of memory", nsamples);
		free(samples);
		return -ENOMEM;
	}
	/* touch every page now, not in the timed loop; a non-zero fill so
	 * the compiler cannot fold it into calloc */
	memset(samples, 0xff, nsamples * sizeof(*samples));

	err = load_start(&load, o.load, cause);
	if (err) {
		free(samples);
		return err;
	}

	int64_t margin = -1;
	for (size_t i = 0; i < o.nmodes; i++) {
		if (o.modes[i].mode != SLEEP_MODE_HYBRID)
			continue;
		if (o.modes[i].margin_ns >= 0) {
			if (margin < 0)
				margin = o.modes[i].margin_ns;
			continue;
		}
		if (out->header.hybrid_calibrated)
			continue;
		int64_t p999 = 0;
		err = sleep_hybrid_calibrate(o.calibration_calls, &margin,
					     &p999, cause);
		if (err)
			goto out_stop;
		out->header.hybrid_calibrated = true;
		out->header.calibration_p999_ns = p999;
		out->header.calibration_guard_ns = SLEEP_HYBRID_GUARD_NS;
		out->header.hybrid_margin_ns = margin;
	}
	if (!out->header.hybrid_calibrated)
		out->header.hybrid_margin_ns = margin;

	for (size_t mi = 0; mi < o.nmodes; mi++) {
		struct sleep_mode_spec mode = o.modes[mi];
		if (mode.mode == SLEEP_MODE_HYBRID && mode.margin_ns < 0)
			mode.margin_ns = out->header.hybrid_margin_ns;
		for (size_t di = 0; di < o.ndurations; di++) {
			struct sleep_cell *cell = &out->cells[out->ncells];
			if (o.stop && o.stop(o.stop_arg)) {
				cause_set(cause, 0, "sleep benchmark stopped "
					  "after %zu of %zu cells",
					  out->ncells, total);
				err = -ECANCELED;
				goto out_stop;
			}
			err = run_cell(&mode, o.durations_us[di], &o, samples,
				       cell, cause);
			if (err)
				goto out_stop;
			out->ncells++;
			if (o.progress && o.progress(o.progress_arg,
						     out->ncells, total, cell)) {
				cause_set(cause, 0, "sleep benchmark stopped "
					  "after %zu of %zu cells",
					  out->ncells, total);
				err = -ECANCELED;
				goto out_stop;
			}
		}
	}
out_stop:
	load_stop(&load);
	free(samples);
	return err;
}

void sleep_bench_release(struct sleep_bench *b)
{
	if (!b)
		return;
	free(b->cells);
	b->cells = NULL;
	b->ncells = 0;
}

const struct sleep_cell *sleep_bench_cheapest(const struct sleep_bench *b,
					      uint32_t target_us,
					      double p99_limit_us)
{
	const struct sleep_cell *best = NULL;
	for (size_t i = 0; i < b->ncells; i++) {
		const struct sleep_cell *c = &b->cells[i];
		if (c->target_us != target_us || c->calls == 0)
			continue;
		if ((double)c->over.p99_ns >= p99_limit_us * 1000.0)
			continue;
		if (!best || c->cpu_us_per_call < best->cpu_us_per_call)
			best = c;
	}
	return best;
}
