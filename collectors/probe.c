/*
 * probe: the latency curve and the counted benchmarks of `prof probe`
 * (see probe.h). The walks themselves are walk.c's; this file sizes them,
 * times them, and counts around them.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collectors/counters.h"
#include "collectors/probe.h"
#include "collectors/walk.h"
#include "common/errtext.h"
#include "common/order.h"
#include "common/xalloc.h"

/* Steps per timed batch: 16 us of L1d hits, 2.5 ms of memory misses. */
#define BATCH_STEPS 16384
/* At least this many batches per size, however short the time asked. */
#define MIN_BATCHES 3
/* A size this much slower than both its neighbours is measured again. */
#define SPIKE 1.4

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- the latency curve ------------------------------------------------------ */

size_t probe_curve_sizes(uint64_t min, uint64_t max, uint64_t *out, size_t cap)
{
	size_t n = 0;
	for (uint64_t p = 2 * WALK_LINE; p && p <= max; p *= 2) {
		const uint64_t both[2] = { p, p + p / 2 };
		for (int k = 0; k < 2; k++) {
			if (both[k] < min || both[k] > max)
				continue;
			if (n < cap)
				out[n] = both[k];
			n++;
		}
		if (p > UINT64_MAX / 4)
			break;
	}
	return n;
}

static bool stopped(const struct probe_curve_opts *o)
{
	return o->stop && o->stop(o->arg);
}

/* One repetition on a built chase: warm, time. 0, or -ECANCELED when
 * o->stop said so (*ns and *steps are then unfilled). */
static int visit(const struct probe_curve_opts *o, struct walk *w, double ms,
		 double *ns, uint64_t *steps)
{
	/* Warm: a whole pass puts every line that fits where it will stay
	 * (the sizes measured in between have pushed it out); a chase too
	 * slow for that in the time allowed is far beyond any cache, where
	 * warming changes nothing. */
	size_t lines = walk_lines(w);
	double t0 = now_ms(), budget = 2 * ms + 10;
	for (size_t done = 0; done < lines && now_ms() - t0 < budget; done += BATCH_STEPS) {
		if (stopped(o))
			return -ECANCELED;
		walk_run(w, BATCH_STEPS);
	}
	double best = 0;
	int batches = 0;
	t0 = now_ms();
	while (batches < MIN_BATCHES || now_ms() - t0 < ms) {
		if (stopped(o))
			return -ECANCELED;
		double v = walk_run(w, BATCH_STEPS);
		if (!batches || v < best)
			best = v;
		batches++;
	}
	*ns = best;
	*steps = (uint64_t)batches * BATCH_STEPS;
	return 0;
}

/* The q-th quantile of sorted v[0..n-1], interpolated between ranks (with
 * five values the quartiles are the 2nd and the 4th). */
static double quantile(const double *v, size_t n, double q)
{
	double at = q * (double)(n - 1);
	size_t lo = (size_t)at;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (at - (double)lo) * (v[lo + 1] - v[lo]);
}

/* A size under way: its chase, and the latency of each repetition so
 * far. */
struct size_run {
	struct walk *w;
	bool host;		/* w maps the memory of the chases beside it */
	double *v;
	unsigned nv;
	uint64_t steps, huge_bytes, bytes;
};

/* p from the repetitions of s. */
static void summarize(const struct size_run *s, struct probe_point *p)
{
	double *v = malloc(s->nv * sizeof(*v));
	if (!v)
		xalloc_die();
	memcpy(v, s->v, s->nv * sizeof(*v));
	qsort(v, s->nv, sizeof(*v), order_double);
	*p = (struct probe_point){
		.bytes = s->bytes, .ns = quantile(v, s->nv, 0.5),
		.ns_min = v[0], .ns_q1 = quantile(v, s->nv, 0.25),
		.ns_q3 = quantile(v, s->nv, 0.75), .ns_max = v[s->nv - 1],
		.reps = s->nv, .steps = s->steps, .huge_bytes = s->huge_bytes,
	};
	free(v);
}

/* One size measured once, alone (a disturbed size measured again). */
static int measure_once(const struct probe_curve_opts *o, uint64_t bytes,
			struct probe_point *p)
{
	struct walk *w = walk_new((size_t)bytes, o->seed);
	if (!w)
		return -errno;
	double v;
	struct size_run s = { .w = w, .v = &v, .nv = 1, .bytes = walk_bytes(w),
			      .huge_bytes = walk_huge_bytes(w) };
	int rc = visit(o, w, o->ms_per_size, &v, &s.steps);
	if (!rc)
		summarize(&s, p);
	walk_free(w);
	return rc;
}

static void cannot_map(uint64_t bytes, int rc, char **cause)
{
	if (cause && asprintf(cause, "cannot map a %llu KiB chase: %s",
			      (unsigned long long)(bytes >> 10), ERR_TEXT(-rc)) < 0)
		*cause = NULL;
}

/*
 * Build every size's chase, WALK_SLOTS sizes to a mapping: the largest of
 * each set maps it, the others chase through its lines beside it. All are
 * ready at once for about 1.07 times the largest size's memory, so the
 * repetitions can go round every size. 0, -ECANCELED, or -ENOMEM with
 * *cause; what was built is in runs[] either way.
 */
static int build_all(const struct probe_curve_opts *o, const uint64_t *sizes,
		     size_t n, struct size_run *runs, char **cause)
{
	for (size_t end = n; end > 0;) {
		size_t host = end - 1;
		size_t first = end > WALK_SLOTS ? end - WALK_SLOTS : 0;
		for (size_t i = host + 1; i-- > first;) {
			if (stopped(o))
				return -ECANCELED;
			struct walk *w = i == host
				? walk_new((size_t)sizes[i], o->seed)
				: walk_new_beside(runs[host].w, (size_t)sizes[i],
						  (unsigned)(host - i), o->seed);
			if (!w) {
				int rc = -errno;
				cannot_map(sizes[i], rc, cause);
				return rc;
			}
			runs[i].w = w;
			runs[i].host = i == host;
			runs[i].bytes = walk_bytes(w);
			runs[i].huge_bytes = walk_huge_bytes(w);
		}
		end = first;
	}
	return 0;
}

/* Every repetition of every size, round the sizes in order, a repetition
 * of each before the next of any. 0, or -ECANCELED. */
static int measure_rounds(const struct probe_curve_opts *o, unsigned reps,
			  struct size_run *runs, size_t n)
{
	double ms = o->ms_per_size / reps;
	size_t done = 0, total = n * reps;
	for (unsigned r = 0; r < reps; r++)
		for (size_t i = 0; i < n; i++) {
			struct size_run *s = &runs[i];
			double v;
			uint64_t steps;
			int rc = visit(o, s->w, ms, &v, &steps);
			if (rc)
				return rc;
			s->v[s->nv++] = v;
			s->steps += steps;
			done++;
			if (!o->progress)
				continue;
			struct size_run one = { .v = &v, .nv = 1, .bytes = s->bytes,
						.steps = steps, .huge_bytes = s->huge_bytes };
			struct probe_point p;
			summarize(&one, &p);
			if (o->progress(o->arg, done, total, &p))
				return done < total ? -ECANCELED : 0;
		}
	return 0;
}

int probe_curve(const struct probe_curve_opts *o, struct probe_point **out,
		size_t *n, char **cause)
{
	uint64_t min = o->min_bytes ? o->min_bytes : PROBE_MIN_BYTES;
	uint64_t max = o->max_bytes ? o->max_bytes : PROBE_MAX_BYTES;
	unsigned reps = o->reps ? o->reps : 1;
	*out = NULL;
	*n = 0;
	size_t nsizes = probe_curve_sizes(min, max, NULL, 0);
	uint64_t *sizes = calloc(nsizes + 1, sizeof(*sizes));
	struct probe_point *pts = calloc(nsizes + 1, sizeof(*pts));
	struct size_run *runs = calloc(nsizes + 1, sizeof(*runs));
	double *vals = calloc(nsizes * reps + 1, sizeof(*vals));
	if (!sizes || !pts || !runs || !vals) {
		free(sizes);
		free(pts);
		free(runs);
		free(vals);
		return -ENOMEM;
	}
	probe_curve_sizes(min, max, sizes, nsizes);
	for (size_t i = 0; i < nsizes; i++)
		runs[i].v = vals + i * reps;
	int rc = build_all(o, sizes, nsizes, runs, cause);
	if (!rc)
		rc = measure_rounds(o, reps, runs, nsizes);
	/* The chases beside a host go before it. */
	for (int hosts = 0; hosts < 2; hosts++)
		for (size_t i = 0; i < nsizes; i++)
			if (runs[i].host == hosts)
				walk_free(runs[i].w);
	size_t kept = 0;
	while (kept < nsizes && runs[kept].nv) {
		summarize(&runs[kept], &pts[kept]);
		kept++;
	}
	/* Measured once, latency does not fall as a chase grows: a size
	 * slower than both neighbours by far was disturbed (on the loaded
	 * VM, one size of a curve once read 995 ns between two of 150).
	 * Measure it again, up to twice, the second pass for a pair of such
	 * sizes. Repeated sizes need none of this: their median is what
	 * most repetitions read. */
	for (int pass = 0; pass < 2 && !rc && reps == 1; pass++)
		for (size_t i = 1; i + 1 < kept; i++) {
			double nb = pts[i - 1].ns > pts[i + 1].ns ? pts[i - 1].ns
								  : pts[i + 1].ns;
			struct probe_point again;
			if (pts[i].ns > SPIKE * nb &&
			    measure_once(o, pts[i].bytes, &again) == 0)
				pts[i] = again;
		}
	free(vals);
	free(runs);
	free(sizes);
	*out = pts;
	*n = kept;
	return rc;
}

/* ---- counting ------------------------------------------------------------------ */

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			       int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

void probe_count_release(struct probe_count *c)
{
	free(c->event);
	free(c->reason);
	memset(c, 0, sizeof(*c));
}

/* Open ev on this thread, disabled, user space only: an fd or -errno. */
static int open_self(const struct event_desc *ev)
{
	struct perf_event_attr a = ev->attr;
	a.size = sizeof(a);
	a.disabled = 1;
	a.inherit = 0;
	/* The benchmarks run in user space, and paranoid 2 allows counting
	 * one's own user space. */
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	int fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

void probe_count_fn(const char *name, enum event_flags flags,
		    void (*fn)(void *arg), void *arg, struct probe_count *c)
{
	memset(c, 0, sizeof(*c));
	struct event_desc ev;
	char *cause = NULL;
	int rc = event_resolve(name, flags, &ev, &cause);
	if (rc) {
		c->reason = cause ? cause : xstrdup("the event does not resolve here");
		fn(arg);
		return;
	}
	if (ev.mission && ev.mission->perf_name)
		c->event = xstrdup(ev.mission->perf_name);
	else
		c->event = xstrdup(ev.canonical ? ev.canonical : name);
	int fd = open_self(&ev);
	if (fd < 0) {
		char *h = counters_open_hints(-fd, ev.hardware);
		if (asprintf(&c->reason, "the kernel refused it: %s%s%s",
			     ERR_TEXT(-fd), h ? "\n" : "", h ? h : "") < 0)
			c->reason = NULL;
		free(h);
		event_desc_release(&ev);
		fn(arg);
		return;
	}
	event_desc_release(&ev);
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	fn(arg);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t v[3];
	ssize_t got = read(fd, v, sizeof(v));
	int err = errno;
	close(fd);
	if (got != (ssize_t)sizeof(v)) {
		if (asprintf(&c->reason, "cannot read the counter: %s",
			     got < 0 ? ERR_TEXT(err) : "short read") < 0)
			c->reason = NULL;
		return;
	}
	c->opened = true;
	c->value = v[0];
	c->enabled = v[1];
	c->running = v[2];
}

/* ---- the benchmarks -------------------------------------------------------------- */

/* The LLC chase: steps counted, after a short warm-up. */
#define LLC_STEPS ((uint64_t)1 << 20)
#define LLC_WARM_STEPS ((uint64_t)1 << 16)
#define ITLB_PASSES 64
/* Jumps an L1i walk takes, and bytes a branch walk reads in a pass. */
#define L1I_JUMPS ((uint64_t)1 << 20)
#define BRANCH_BYTES ((size_t)1 << 20)
#define BRANCH_PASSES 2

uint64_t probe_llc_chase_bytes(uint64_t llc_bytes)
{
	if (!llc_bytes)
		return PROBE_MAX_BYTES;
	/* 8x, not just over it: a cache that keeps part of a cyclic set
	 * (adaptive replacement) can hit on at most 1/8 of the steps. */
	uint64_t b = llc_bytes * 8;
	if (b < ((uint64_t)64 << 20))
		b = (uint64_t)64 << 20;
	if (b > ((uint64_t)1 << 30))
		b = (uint64_t)1 << 30;
	return b;
}

uint64_t probe_l1i_walk_bytes(uint64_t l1i_bytes)
{
	return 4 * (l1i_bytes ? l1i_bytes : (uint64_t)32 << 10);
}

struct data_run {
	struct walk *w;
	uint64_t steps;
};

static void run_data(void *arg)
{
	struct data_run *r = arg;
	walk_run(r->w, r->steps);
}

struct code_run {
	struct code_walk *cw;
	uint64_t passes;
};

static void run_code(void *arg)
{
	struct code_run *r = arg;
	code_walk_run(r->cw, r->passes);
}

struct branch_run {
	struct branch_walk *bw;
	uint64_t passes;
};

static void run_branch(void *arg)
{
	struct branch_run *r = arg;
	branch_walk_run(r->bw, r->passes);
}

static void set_text(char **dst, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_text(char **dst, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(dst, fmt, ap) < 0)
		*dst = NULL;
	va_end(ap);
}

static void nothing(void *arg)
{
	(void)arg;
}

/*
 * The benchmark cannot be built: say why, and still open the counter
 * around nothing, so that a counter this machine lacks reads as not
 * supported rather than as not run.
 */
static void not_run(const struct probe_bench_opts *o, struct probe_result *r,
		    const char *what, int err)
{
	set_text(&r->error, "cannot build the %s: %s", what,
		 err == ENOTSUP ? "prof generates code for x86-64 only"
				: ERR_TEXT(err));
	probe_count_fn(r->name, o->flags, nothing, NULL, &r->count);
}

/* "32 MiB", "128 KiB", for the benchmarks' descriptions. */
static void fmt_size(char *buf, size_t len, uint64_t b)
{
	if (b >= ((uint64_t)1 << 20) && !(b & (((uint64_t)1 << 20) - 1)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(b >> 20));
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)(b >> 10));
}

static void bench_llc(const struct probe_bench_opts *o, struct probe_result *r)
{
	uint64_t bytes = probe_llc_chase_bytes(o->llc_bytes);
	char sz[32], llc[32];
	fmt_size(sz, sizeof(sz), bytes);
	fmt_size(llc, sizeof(llc), o->llc_bytes);
	if (o->llc_bytes)
		set_text(&r->bench, "chase over %s, 8x the %s last level: a miss "
			 "a step", sz, llc);
	else
		set_text(&r->bench, "chase over %s (last level unknown): a miss a "
			 "step", sz);
	struct data_run d = { walk_new((size_t)bytes, o->seed), LLC_STEPS };
	if (!d.w) {
		not_run(o, r, "chase", errno);
		return;
	}
	walk_run(d.w, LLC_WARM_STEPS);
	probe_count_fn(r->name, o->flags, run_data, &d, &r->count);
	r->ran = true;
	r->expected = (double)LLC_STEPS;
	walk_free(d.w);
}

static void bench_itlb(const struct probe_bench_opts *o, struct probe_result *r)
{
	set_text(&r->bench, "jumps across %d 4 KiB code pages: a miss a page",
		 PROBE_ITLB_PAGES);
	struct code_run c = { code_walk_new(PROBE_ITLB_PAGES, WALK_PAGE, o->seed),
			      ITLB_PASSES };
	if (!c.cw) {
		not_run(o, r, "page walk", errno);
		return;
	}
	code_walk_run(c.cw, 1);
	probe_count_fn(r->name, o->flags, run_code, &c, &r->count);
	r->ran = true;
	r->expected = (double)PROBE_ITLB_PAGES * ITLB_PASSES;
	code_walk_free(c.cw);
}

static void bench_l1i(const struct probe_bench_opts *o, struct probe_result *r)
{
	uint64_t bytes = probe_l1i_walk_bytes(o->l1i_bytes);
	size_t lines = (size_t)(bytes / WALK_LINE);
	uint64_t passes = L1I_JUMPS / lines ? L1I_JUMPS / lines : 1;
	char sz[32];
	fmt_size(sz, sizeof(sz), bytes);
	set_text(&r->bench, "jumps across %s of code, %s: a miss a 64-byte line",
		 sz, o->l1i_bytes ? "4x the L1i" : "4x 32 KiB (L1i unknown)");
	struct code_run c = { code_walk_new(lines, WALK_LINE, o->seed), passes };
	if (!c.cw) {
		not_run(o, r, "line walk", errno);
		return;
	}
	code_walk_run(c.cw, 1);
	probe_count_fn(r->name, o->flags, run_code, &c, &r->count);
	r->ran = true;
	r->expected = (double)lines * (double)passes;
	code_walk_free(c.cw);
}

static void bench_branch(const struct probe_bench_opts *o, struct probe_result *r)
{
	set_text(&r->bench, "a branch on random bits: half mispredicted");
	struct branch_run b = { branch_walk_new(BRANCH_BYTES, o->seed), BRANCH_PASSES };
	if (!b.bw) {
		not_run(o, r, "branch loop", errno);
		return;
	}
	branch_walk_run(b.bw, 1);
	probe_count_fn(r->name, o->flags, run_branch, &b, &r->count);
	r->ran = true;
	r->expected = (double)BRANCH_BYTES * BRANCH_PASSES / 2;
	branch_walk_free(b.bw);
}

void probe_benches(const struct probe_bench_opts *o,
		   struct probe_result out[PROBE_NBENCH])
{
	static void (*const run[PROBE_NBENCH])(const struct probe_bench_opts *,
					       struct probe_result *) = {
		[PROBE_LLC] = bench_llc,
		[PROBE_ITLB] = bench_itlb,
		[PROBE_L1I] = bench_l1i,
		[PROBE_BRANCH] = bench_branch,
	};
	for (int i = 0; i < PROBE_NBENCH; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].name = mission_names[i];
		if (o->stop && o->stop(o->stop_arg))
			out[i].error = strdup("stopped by a signal before it ran");
		else
			run[i](o, &out[i]);
	}
}

void probe_result_release(struct probe_result *r)
{
	free(r->bench);
	free(r->error);
	probe_count_release(&r->count);
	memset(r, 0, sizeof(*r));
}
