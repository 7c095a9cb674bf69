/*
 * collect_window: --window START:END, a measurement window of seconds
 * after the launch; the run's counts, CPU time and frames are only what
 * happened inside it. A collector (prof/run/collector.h).
 *
 * Counted per CPU only: every thread's running totals arrive at its
 * switches and at a 1 ms tick of its own CPU time (counts), so each
 * thread's totals are known at both edges to within a tick; the window
 * is their difference, and the run's totals are the threads' sums. The
 * machine's account of the workload's CPU time (the run cgroup's
 * cpu.stat, user and system) is read when the runner wakes the collector
 * at each edge. Frames are those that start and end inside the window.
 * What the run stored before (the audit of its completeness, the -I
 * intervals, the code modules) stays the whole run's; the settings
 * "window", "window_start_s", "window_end_s" and the window's own CPU
 * times say which part the counts are.
 *
 * A workload that ends inside the window cuts it there ("window_end_s"
 * says where); one that ends before it starts keeps the whole run's
 * counts, and the run says so ("window" reads "not reached").
 *
 * A window of frames (frame:N:M) is the frames collector's, which knows
 * the frames (prof/run/collect_frames.c); this one checks that a frame
 * source was asked for, and gives the frames collector
 * window_keep_frame_range.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cause.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

/* One thread's totals at the last switch or tick before each edge. */
struct win_thread {
	int32_t tid;
	bool has_base, has_last;
	uint64_t *base, *last;	/* nev each */
};

struct window_state {
	double start_s, end_s;
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC */
	size_t nev;
	struct win_thread *t;
	size_t n, cap;
	uint32_t *slot;		/* tid -> index + 1, open addressing */
	size_t nslot;		/* a power of two, over twice n */
	int cgroup_fd;
	/* cpu.stat (us) at the edges; -1: not read */
	int64_t user0, sys0, user1, sys1;
	bool oom;
	const struct collect_ctx *cx;	/* from opened on: its t0_ns */
};

/* The edges in the counters' clock, once the launch's time is known. */
static bool edges(struct window_state *st)
{
	if (!st->end_ns && st->cx && st->cx->t0_ns) {
		st->start_ns = st->cx->t0_ns + (uint64_t)(st->start_s * 1e9);
		st->end_ns = st->cx->t0_ns + (uint64_t)(st->end_s * 1e9);
	}
	return st->end_ns != 0;
}

/* frame:N:M, numbers from 1 with N <= M. */
static int frames_parse(const char *s, struct window_spec *w, char **cause)
{
	const char *p = s + strlen("frame:");
	char *e1, *e2;
	errno = 0;
	unsigned long long a = isdigit((unsigned char)*p) ? strtoull(p, &e1, 10) : 0;
	if (!a || errno || *e1 != ':' || !isdigit((unsigned char)e1[1]))
		return cause_set(cause, EINVAL, "--window '%.40s': expected frame:N:M, "
				 "frames N to M counted from 1 (e.g. frame:100:400)", s);
	unsigned long long b = strtoull(e1 + 1, &e2, 10);
	if (errno || *e2 || b < a || b > UINT32_MAX)
		return cause_set(cause, EINVAL, "--window '%.40s': frame:N:M takes "
				 "frames 1 <= N <= M <= %u", s, UINT32_MAX);
	*w = (struct window_spec){ .first_frame = (uint32_t)a, .last_frame = (uint32_t)b };
	return 0;
}

int window_parse(const char *s, struct window_spec *w, char **cause)
{
	if (!strncmp(s, "frame:", 6))
		return frames_parse(s, w, cause);
	char *e1, *e2;
	double a = strtod(s, &e1);
	if (e1 == s || *e1 != ':')
		return cause_set(cause, EINVAL, "--window '%.40s': expected START:END, "
				 "seconds after the launch (e.g. 40:70), or "
				 "frame:N:M", s);
	double b = strtod(e1 + 1, &e2);
	if (e2 == e1 + 1 || *e2 || !(a >= 0) || !(b > a) || b > 1e7)
		return cause_set(cause, EINVAL, "--window '%.40s': START and END are "
				 "seconds after the launch, 0 <= START < END", s);
	*w = (struct window_spec){ .start_s = a, .end_s = b };
	return 0;
}

static void win_release(void *self)
{
	struct window_state *st = self;
	for (size_t i = 0; i < st->n; i++) {
		free(st->t[i].base);
		free(st->t[i].last);
	}
	free(st->t);
	free(st->slot);
}

static int win_prepare(void *self, struct collect_ctx *cx, char **cause)
{
	struct window_state *st = self;
	const struct runner_opts *o = cx->o;
	if (window_by_frames(&o->window) && !frame_args_any(&o->frame))
		return cause_set(cause, EINVAL, "--window frame:%u:%u needs frames: "
				 "--frames, --frame-regex or --frame-symbol say where "
				 "each begins", o->window.first_frame,
				 o->window.last_frame);
	/* A window of frames is the frames collector's: it knows them. */
	if (!window_by_seconds(&o->window))
		return COLLECT_SKIP;
	if (!cx->launched)
		return cause_set(cause, EINVAL, "--window counts from a launch: "
				  "it cannot be used with -p");
	if (!(cx->co->flags & COUNTERS_PERCPU))
		return cause_set(cause, EPERM, "--window needs each thread's "
				  "totals at its edges, which prof reads per CPU: "
				  "here it counts per task\nhint: run as root, or with "
				  "kernel.perf_event_paranoid at 0 or below");
	st->start_s = o->window.start_s;
	st->end_s = o->window.end_s;
	st->nev = o->nev;
	st->cgroup_fd = cx->co->cgroup_fd;
	st->user0 = st->sys0 = st->user1 = st->sys1 = -1;
	if (!cx->co->percpu_tick_ns || cx->co->percpu_tick_ns > 1000000)
		cx->co->percpu_tick_ns = 1000000;
	return 0;
}

static void win_opened(void *self, struct collect_ctx *cx)
{
	struct window_state *st = self;
	if (counters_path(cx->cs) != COUNTERS_PATH_PERCPU) {
		run_warn("--window: counting per CPU was refused (%s): the run's "
			 "counts are the whole run's",
			 counters_path_note(cx->cs) ? counters_path_note(cx->cs) : "?");
		st->end_s = 0;
		return;
	}
	st->cx = cx;
	cx->wake_s = st->start_s > 0 ? st->start_s : st->end_s;
}

/* The cgroup's user and system CPU time so far (us). */
static void read_cpu_stat(int cgroup_fd, int64_t *user, int64_t *sys)
{
	int fd = openat(cgroup_fd, "cpu.stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[1024];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	long long v;
	const char *p = strstr(buf, "user_usec ");
	if (p && sscanf(p + 10, "%lld", &v) == 1)
		*user = v;
	p = strstr(buf, "system_usec ");
	if (p && sscanf(p + 12, "%lld", &v) == 1)
		*sys = v;
}

static void win_wake(void *self, struct collect_ctx *cx)
{
	struct window_state *st = self;
	if (!(st->end_s > 0) || !edges(st))
		return;
	if (st->user0 < 0 && st->start_s > 0) {
		read_cpu_stat(st->cgroup_fd, &st->user0, &st->sys0);
		cx->wake_s = st->end_s;
		return;
	}
	read_cpu_stat(st->cgroup_fd, &st->user1, &st->sys1);
}

static size_t slot_of(const struct window_state *st, int32_t tid)
{
	size_t i = ((uint32_t)tid * 2654435761u) & (st->nslot - 1);
	while (st->slot[i] && st->t[st->slot[i] - 1].tid != tid)
		i = (i + 1) & (st->nslot - 1);
	return i;
}

static struct win_thread *thread_of(struct window_state *st, int32_t tid)
{
	if (st->nslot) {
		uint32_t k = st->slot[slot_of(st, tid)];
		if (k)
			return &st->t[k - 1];
	}
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		struct win_thread *p = realloc(st->t, cap * sizeof(*p));
		if (!p)
			return NULL;
		st->t = p;
		st->cap = cap;
	}
	if (2 * (st->n + 1) > st->nslot) {
		size_t ns = st->nslot ? st->nslot * 2 : 256;
		uint32_t *sl = calloc(ns, sizeof(*sl));
		if (!sl)
			return NULL;
		free(st->slot);
		st->slot = sl;
		st->nslot = ns;
		for (size_t i = 0; i < st->n; i++)
			st->slot[slot_of(st, st->t[i].tid)] = (uint32_t)i + 1;
	}
	struct win_thread *w = &st->t[st->n];
	memset(w, 0, sizeof(*w));
	w->tid = tid;
	w->base = calloc(st->nev ? st->nev : 1, sizeof(*w->base));
	w->last = calloc(st->nev ? st->nev : 1, sizeof(*w->last));
	if (!w->base || !w->last) {
		free(w->base);
		free(w->last);
		return NULL;
	}
	st->slot[slot_of(st, tid)] = (uint32_t)st->n + 1;
	st->n++;
	return w;
}

static void win_counts(void *self, int32_t tid, uint64_t time,
		       const uint64_t *vals, const bool *have, bool running)
{
	(void)running;
	struct window_state *st = self;
	if (!(st->end_s > 0) || st->oom || !edges(st) || time > st->end_ns)
		return;
	struct win_thread *w = thread_of(st, tid);
	if (!w) {
		st->oom = true;
		return;
	}
	uint64_t *dst = time <= st->start_ns ? w->base : w->last;
	for (size_t e = 0; e < st->nev; e++)
		if (have[e])
			dst[e] = vals[e];
	if (time <= st->start_ns) {
		w->has_base = true;
		memcpy(w->last, w->base, st->nev * sizeof(*w->last));
	}
	w->has_last = true;
}

/* The workload ended inside the window: its CPU time so far is the
 * window's end. */
static void win_finish(void *self, struct collect_ctx *cx)
{
	struct window_state *st = self;
	(void)cx;
	if (st->end_s > 0 && edges(st) && st->user1 < 0 &&
	    (st->start_s == 0 || st->user0 >= 0))
		read_cpu_stat(st->cgroup_fd, &st->user1, &st->sys1);
}

/* Frames first..last (by index) that lie inside [a, b]: a frame of no
 * length (two marks at one instant) on the end edge belongs to the time
 * after it, as one on the start edge belongs to the window. */
static void keep_frames(struct db_run *run, size_t first, size_t last,
			int64_t a, int64_t b)
{
	uint32_t *map = malloc((run->nframes ? run->nframes : 1) * sizeof(*map));
	if (!map)
		return;
	size_t k = 0, n = run->nframes;
	for (size_t i = 0; i < n; i++) {
		const struct db_frame_span *f = &run->frames[i];
		map[i] = UINT32_MAX;
		if (i >= first && i <= last && f->t_ns >= a &&
		    f->t_ns + f->dur_ns <= b && (f->dur_ns > 0 || f->t_ns < b)) {
			map[i] = (uint32_t)k;
			run->frames[k++] = *f;
		}
	}
	run->nframes = k;
	size_t c = 0;
	for (size_t i = 0; i < run->nframe_counts; i++) {
		struct db_frame_count fc = run->frame_counts[i];
		if (fc.frame >= n || map[fc.frame] == UINT32_MAX)
			continue;
		fc.frame = map[fc.frame];
		run->frame_counts[c++] = fc;
	}
	run->nframe_counts = c;
	free(map);
}

void window_keep_frames(struct db_run *run, int64_t a, int64_t b)
{
	keep_frames(run, 0, SIZE_MAX, a, b);
}

void window_keep_frame_range(struct db_run *run, size_t first, size_t last)
{
	keep_frames(run, first, last, INT64_MIN, INT64_MAX);
}

/* Out of memory before the fill, the window is not kept: a warning (the
 * run's counts are the whole run's). */
static int win_fill(void *self, struct collect_ctx *cx, struct db_run *run,
		    char **cause)
{
	struct window_state *st = self;
	(void)cx;
	(void)cause;
	if (!(st->end_s > 0))
		return 0;
	char spec[64];
	snprintf(spec, sizeof(spec), "%g:%g", st->start_s, st->end_s);
	if (run->wall_s <= st->start_s || !edges(st) ||
	    (st->start_s > 0 && st->user0 < 0 && st->n == 0)) {
		db_set_str(run, SET_WINDOW, "not reached");
		db_set_str(run, SET_WINDOW_ASKED, spec);
		run_warn("--window %s: the command ended after %.2f s, before the "
			 "window began: the run's counts are the whole run's",
			 spec, run->wall_s);
		return 0;
	}
	if (st->oom) {
		db_set_str(run, SET_WINDOW, "not kept (out of memory)");
		run_warn("--window: out of memory: the run's counts are the whole run's");
		return 0;
	}
	double end_s = st->end_s;
	if (run->wall_s < end_s) {
		end_s = run->wall_s;
		run_warn("--window %s: the command ended at %.2f s, inside the "
			 "window: it ends there", spec, run->wall_s);
	}
	db_set_str(run, SET_WINDOW, spec);
	db_set_f64(run, SET_WINDOW_START_S, st->start_s);
	db_set_f64(run, SET_WINDOW_END_S, end_s);
	for (size_t e = 0; e < run->nevents; e++)
		if (run->events[e].total.present)
			run->events[e].total.value = 0;
	for (size_t i = 0; i < run->nthreads; i++) {
		struct db_thread *t = &run->threads[i];
		const struct win_thread *w = NULL;
		if (st->nslot && st->slot[slot_of(st, t->tid)])
			w = &st->t[st->slot[slot_of(st, t->tid)] - 1];
		for (size_t e = 0; e < run->nevents && e < st->nev; e++) {
			struct db_count *c = &t->counts[e];
			if (!c->present)
				continue;
			uint64_t v = 0;
			if (w && w->has_last) {
				uint64_t b = w->has_base ? w->base[e] : 0;
				v = w->last[e] >= b ? w->last[e] - b : 0;
			}
			c->value = v;
			if (run->events[e].total.present)
				run->events[e].total.value += v;
		}
	}
	/* The CPU time the machine accounted inside the window. */
	if (st->user1 >= 0 && (st->start_s == 0 || st->user0 >= 0)) {
		int64_t u0 = st->start_s > 0 ? st->user0 : 0, s0 = st->start_s > 0 ? st->sys0 : 0;
		db_set_f64(run, SET_WINDOW_USER_S, (double)(st->user1 - u0) / 1e6);
		db_set_f64(run, SET_WINDOW_SYS_S, (double)(st->sys1 - s0) / 1e6);
	}
	window_keep_frames(run, (int64_t)(st->start_s * 1e9), (int64_t)(end_s * 1e9));
	return 0;
}

const struct collector_ops collect_window = {
	.name = "window",
	.size = sizeof(struct window_state),
	.prepare = win_prepare,
	.opened = win_opened,
	.wake = win_wake,
	.counts = win_counts,
	.finish = win_finish,
	.fill = win_fill,
	.release = win_release,
};
