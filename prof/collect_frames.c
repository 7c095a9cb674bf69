/*
 * collect_frames: prof run --frames / --frame-regex RE / --frame-symbol
 * MODULE:SYMBOL, frame boundaries and every thread's counters at them
 * (prof/collector.h). Three sources of boundaries: the lines
 * prof_marker.h's prof_frame() writes to the pipe prof names in
 * $PROF_MARKER_FD (timestamped by the workload), the workload's stdout
 * lines that match --frame-regex (timestamped when prof reads them; the
 * workload's stdout then goes through a pipe and prof copies every byte
 * on to where it would have gone), and the samples of a uprobe on
 * SYMBOL (period 1, one per CPU as a uprobe cannot be inherited, stamped
 * by the kernel with CLOCK_MONOTONIC like the markers: collectors/uprobe.h). A reader
 * thread of this collector's own polls both pipes, so a line is stamped
 * when it arrives, not when the runner next drains its ring buffers; it
 * touches nothing but its own lists until finish joins it.
 *
 * Counters per frame come from two read_counters samplers
 * (collectors/counters.h: each thread's own values, docs/intervals.md):
 * one on every context switch, one every millisecond of a thread's CPU
 * time; collectors/frames takes each thread's value at each boundary.
 * Counted per CPU (collectors/percpu.h), the per-CPU groups' switches and
 * a 1 ms tick give the same (fr_counts), on every kernel.
 * docs/frames.md says why and what was measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectors/frames.h"
#include "collectors/uprobe.h"
#include "common/cause.h"
#include "common/errtext.h"
#include "prof/cli.h"
#include "prof/collector.h"
#include "prof/convert.h"
#include "prof/launch.h"
#include "prof/progress.h"
#include "prof/runner.h"

#define LINE_MAX_KEPT 4096

struct marks {
	uint64_t *t;
	size_t n, cap;
};

struct frames_state {
	bool percpu;		/* fed by fr_counts, no samplers of its own */
	size_t samplers[2];
	uint64_t ids[2];	/* their kernel ids (the launched target's) */
	const struct counters *cs;
	struct frames *f;
	uint64_t *vals;
	bool *have;
	size_t nev;
	bool regex_on;
	regex_t re;
	char *probe_path;	/* --frame-symbol's module */
	struct uprobe_rings *probe;	/* its uprobe; NULL: none */
	int32_t pid;		/* the workload's, from opened on */
	int marker[2], out[2], stop[2];	/* pipes; -1 when closed */
	int pass_fd;			/* where the workload's stdout goes */
	pthread_t reader;
	bool reader_on;
	bool oom;
	char env[40];		/* PROF_MARKER_FD=N, borrowed by the launch */
	/* The reader's own until joined. */
	bool mk_oom;
	struct marks mk[FRAME_NSOURCES];
	char mline[256], oline[LINE_MAX_KEPT];
	size_t mlen, olen;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void add_mark(struct frames_state *st, enum frame_source src, uint64_t t)
{
	struct marks *m = &st->mk[src];
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint64_t *p = realloc(m->t, cap * sizeof(*p));
		if (!p) {
			st->mk_oom = true;
			return;
		}
		m->t = p;
		m->cap = cap;
	}
	m->t[m->n++] = t;
}

/* "F <ns>" is a frame; zones ("B", "E") are not used yet. */
static void marker_line(struct frames_state *st, const char *line)
{
	if (line[0] == 'F' && line[1] == ' ') {
		char *end;
		unsigned long long ns = strtoull(line + 2, &end, 10);
		if (end != line + 2)
			add_mark(st, FRAME_MARKER, ns);
	}
}

/* Split what was read into lines; a line longer than the buffer is cut. */
static void feed_lines(struct frames_state *st, const char *buf, size_t n,
		       char *line, size_t cap, size_t *len, bool marker,
		       uint64_t t)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (*len < cap - 1)
				line[(*len)++] = buf[i];
			continue;
		}
		line[*len] = '\0';
		if (marker)
			marker_line(st, line);
		else if (regexec(&st->re, line, 0, NULL, 0) == 0)
			add_mark(st, FRAME_REGEX, t);
		*len = 0;
	}
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;	/* our stdout is gone: the workload's output too */
		p += w;
		n -= (size_t)w;
	}
}

/* Read what one pipe holds; false at its end. */
static bool read_pipe(struct frames_state *st, int *fd, bool marker)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0) {
		close_fd(fd);
		return false;
	}
	uint64_t t = mono_now_ns();	/* the regex source's timestamp */
	if (marker) {
		feed_lines(st, buf, (size_t)n, st->mline, sizeof(st->mline),
			   &st->mlen, true, t);
	} else {
		write_all(st->pass_fd, buf, (size_t)n);
		feed_lines(st, buf, (size_t)n, st->oline, sizeof(st->oline),
			   &st->olen, false, t);
	}
	return true;
}

static void probe_hit(uint64_t t_ns, void *arg)
{
	add_mark(arg, FRAME_SYMBOL, t_ns);
}

static void *reader_main(void *arg)
{
	struct frames_state *st = arg;
	bool stopping = false;
	/* The uprobe's buffers wake us a quarter full; a 20 ms timeout
	 * drains them sooner, so a buffer is never near full. */
	int wait = st->probe ? 20 : -1;
	while (st->marker[0] >= 0 || st->out[0] >= 0 || (st->probe && !stopping)) {
		struct pollfd p[3] = {
			{ .fd = st->marker[0], .events = POLLIN },
			{ .fd = st->out[0], .events = POLLIN },
			{ .fd = stopping ? -1 : st->stop[0], .events = POLLIN },
		};
		/* Told to stop: take what the pipes hold, then go. */
		int rc = poll(p, 3, stopping ? 0 : wait);
		if (rc < 0 && errno == EINTR)
			continue;
		uprobe_rings_drain(st->probe, st->pid, probe_hit, st);
		if (rc == 0 && !stopping)
			continue;
		if (rc <= 0)
			break;
		if (p[2].revents)
			stopping = true;
		if (p[0].revents)
			read_pipe(st, &st->marker[0], true);
		if (p[1].revents)
			read_pipe(st, &st->out[0], false);
	}
	return NULL;
}

static int open_pipe(int fds[2], char **cause, const char *what)
{
	if (pipe2(fds, O_CLOEXEC) == 0) {
		fcntl(fds[0], F_SETFL, O_NONBLOCK);
		return 0;
	}
	int err = errno;
	fds[0] = fds[1] = -1;
	return cause_set(cause, err, "cannot make the %s pipe: %s", what, ERR_TEXT(err));
}

static void add_sampler(struct frames_state *st, struct collect_ctx *cx,
			int i, const char *name, uint64_t config, uint64_t period)
{
	struct sampler_desc sd = { .name = name, .read_counters = true };
	sd.attr.type = PERF_TYPE_SOFTWARE;
	sd.attr.config = config;
	sd.attr.sample_period = period;
	st->samplers[i] = collect_add_sampler(cx, &sd);
}

/*
 * --frame-symbol MODULE:SYMBOL: MODULE's real path into *path (a path,
 * or a command found in PATH) and SYMBOL's file offset there, found
 * before the workload starts.
 */
static int resolve_symbol(const char *spec, char **path, uint64_t *off,
			  char **cause)
{
	const char *colon = strrchr(spec, ':');
	*path = NULL;
	if (!colon || colon == spec || !colon[1]) {
		return cause_set(cause, EINVAL, "bad --frame-symbol '%s': want MODULE:SYMBOL",
				 spec);
	}
	char *mod = strndup(spec, (size_t)(colon - spec));
	if (!mod)
		abort();
	char *found = strchr(mod, '/') ? NULL : launch_resolve(mod, NULL);
	*path = realpath(found ? found : mod, NULL);
	free(found);
	if (!*path) {
		int err = errno;
		cause_set(cause, err, "--frame-symbol: cannot find module '%s': %s", mod,
			  ERR_TEXT(err));
		free(mod);
		return -err;
	}
	free(mod);
	int rc = uprobe_symbol_offset(*path, colon + 1, off, cause);
	return rc == -ENOENT ? -EINVAL : rc;	/* not "command not found" */
}

int collect_frames_check_symbol(const char *spec, char **cause)
{
	char *path;
	uint64_t off;
	int rc = resolve_symbol(spec, &path, &off, cause);
	free(path);
	return rc;
}

/* A uprobe on SYMBOL's entry, a sample (and a frame boundary) per call. */
static int add_probe(struct frames_state *st, struct collect_ctx *cx,
		     char **cause)
{
	uint64_t off;
	int rc = resolve_symbol(cx->o->frame.symbol, &st->probe_path, &off, cause);
	if (rc)
		return rc;
	int type = uprobe_pmu_type(NULL, cause);
	if (type < 0)
		return type;
	struct perf_event_attr a;
	uprobe_attr(&a, type, st->probe_path, off);
	return uprobe_rings_open(&a, 64, &st->probe, cause);
}


static void fr_release(void *self)
{
	struct frames_state *st = self;
	if (st->reader_on) {
		ssize_t w = write(st->stop[1], "x", 1);
		(void)w;
		pthread_join(st->reader, NULL);
	}
	for (int i = 0; i < 2; i++) {
		close_fd(&st->marker[i]);
		close_fd(&st->out[i]);
		close_fd(&st->stop[i]);
	}
	if (st->regex_on)
		regfree(&st->re);
	for (int s = 0; s < FRAME_NSOURCES; s++)
		free(st->mk[s].t);
	frames_free(st->f);
	uprobe_rings_close(st->probe);
	free(st->probe_path);
	free(st->vals);
	free(st->have);
}

static int fr_prepare(void *self, struct collect_ctx *cx, char **cause)
{
	struct frames_state *st = self;
	st->marker[0] = st->marker[1] = st->out[0] = st->out[1] = -1;
	st->stop[0] = st->stop[1] = -1;
	if (!frame_args_any(&cx->o->frame) || !cx->launched)
		return COLLECT_SKIP;
	if (cx->o->frame.regex) {
		if (regcomp(&st->re, cx->o->frame.regex, REG_EXTENDED | REG_NOSUB)) {
			return cause_set(cause, EINVAL, "bad --frame-regex '%s'",
					 cx->o->frame.regex);
		}
		st->regex_on = true;
	}
	int rc = cx->o->frame.symbol ? add_probe(st, cx, cause) : 0;
	if (!rc)
		rc = open_pipe(st->marker, cause, "frame marker");
	if (!rc)
		rc = open_pipe(st->stop, cause, "frame reader's stop");
	if (!rc && st->regex_on)
		rc = open_pipe(st->out, cause, "workload's output");
	if (rc)
		return rc;
	snprintf(st->env, sizeof(st->env), "PROF_MARKER_FD=%d", st->marker[1]);
	char *kv[] = { st->env, NULL };
	collect_add_env(cx, kv);
	cx->keep_fd = st->marker[1];
	if (st->regex_on) {
		cx->stdout_fd = st->out[1];
		st->pass_fd = cx->o->out_fd >= 0 ? cx->o->out_fd : 1;
	}
	if (cx->co->flags & COUNTERS_PERCPU) {
		/* Counted per CPU: its switches and a 1 ms tick give each
		 * thread's totals (fr_counts), on every kernel. */
		st->percpu = true;
		if (!cx->co->percpu_tick_ns || cx->co->percpu_tick_ns > 1000000)
			cx->co->percpu_tick_ns = 1000000;
	} else {
		add_sampler(st, cx, 0, "frame-switch", PERF_COUNT_SW_CONTEXT_SWITCHES, 1);
		add_sampler(st, cx, 1, "frame-tick", PERF_COUNT_SW_TASK_CLOCK, 1000000);
	}
	st->nev = cx->o->nev;
	st->vals = calloc(st->nev ? st->nev : 1, sizeof(*st->vals));
	st->have = calloc(st->nev ? st->nev : 1, sizeof(*st->have));
	if (!st->vals || !st->have)
		abort();
	return 0;
}

static void fr_opened(void *self, struct collect_ctx *cx)
{
	struct frames_state *st = self;
	st->cs = cx->cs;
	/* The workload holds the write ends now: their end is its end. */
	close_fd(&st->marker[1]);
	close_fd(&st->out[1]);
	if (st->percpu && counters_path(cx->cs) != COUNTERS_PATH_PERCPU)
		warning_msg("frames: no counters per frame: counting per CPU was "
			    "refused (%s), and they came from it",
			    counters_path_note(cx->cs) ? counters_path_note(cx->cs) : "?");
	for (int i = 0; i < 2 && !st->percpu; i++) {
		st->ids[i] = counters_sampler_id(cx->cs, 0, st->samplers[i]);
		const struct counter_status *s = counters_sampler_status(cx->cs,
									 st->samplers[i]);
		if (!s || !s->supported)
			warning_msg("frames: no counters per frame: the kernel refused "
				    "a sampler that reads each thread's counters "
				    "(inherit with PERF_SAMPLE_READ needs Linux 6.12 "
				    "or later)%s%s", s && s->reason ? ": " : "",
				    s && s->reason ? s->reason : "");
	}
	st->pid = (int32_t)cx->pid;
	st->f = frames_new(st->nev);
	if (!st->f)
		abort();
	if (pthread_create(&st->reader, NULL, reader_main, st) == 0)
		st->reader_on = true;
	else
		warning_msg("frames: cannot start the frame reader: no frames");
}

static bool ours(const struct frames_state *st, uint64_t id)
{
	return id && (id == st->ids[0] || id == st->ids[1]);
}

static void fr_drain(void *self, const struct perf_rec *rec, int origin)
{
	struct frames_state *st = self;
	(void)origin;
	if (!st->f || st->oom || rec->type != PERF_RECORD_SAMPLE ||
	    !rec->u.sample.read_nr || !rec->u.sample.read_has_id ||
	    !ours(st, rec->u.sample.identifier))
		return;
	counters_read_values(st->cs, rec, st->vals, st->have, st->nev);
	if (frames_tick(st->f, (int32_t)rec->u.sample.tid, rec->u.sample.time,
			st->vals, st->have, rec->u.sample.identifier == st->ids[1])) {
		warning_msg("frames: out of memory: counters per frame stop here");
		st->oom = true;
	}
}

static void fr_counts(void *self, int32_t tid, uint64_t time,
		      const uint64_t *vals, const bool *have, bool running)
{
	struct frames_state *st = self;
	if (!st->f || st->oom)
		return;
	if (frames_tick(st->f, tid, time, vals, have, running)) {
		warning_msg("frames: out of memory: counters per frame stop here");
		st->oom = true;
	}
}

static void fr_finish(void *self, struct collect_ctx *cx)
{
	struct frames_state *st = self;
	if (!st->reader_on)
		return;
	if (write(st->stop[1], "x", 1) != 1)
		warning_msg("frames: cannot stop the frame reader");
	pthread_join(st->reader, NULL);
	st->reader_on = false;
	st->oom |= st->mk_oom;
	for (int s = 0; s < FRAME_NSOURCES; s++)
		for (size_t i = 0; i < st->mk[s].n; i++)
			if (frames_mark(st->f, (enum frame_source)s, st->mk[s].t[i]))
				st->oom = true;
	if (st->oom)
		warning_msg("frames: out of memory: some frames are missing");
	if (uprobe_rings_lost(st->probe))
		warning_msg("frames: %llu calls of '%s' were lost (a uprobe buffer "
			    "was full): frames from it are missing",
			    (unsigned long long)uprobe_rings_lost(st->probe),
			    cx->o->frame.symbol);
}

static void fr_fill(void *self, struct collect_ctx *cx, struct db_run *run)
{
	struct frames_state *st = self;
	if (!st->f)
		return;
	enum frame_source src = cx->o->frame.symbol ? FRAME_SYMBOL :
				st->regex_on ? FRAME_REGEX : FRAME_MARKER;
	convert_frames(run, st->f, src, &cx->o->frame);
}

const struct collector_ops collect_frames = {
	.name = "frames",
	.size = sizeof(struct frames_state),
	.prepare = fr_prepare,
	.opened = fr_opened,
	.drain = fr_drain,
	.counts = fr_counts,
	.finish = fr_finish,
	.fill = fr_fill,
	.release = fr_release,
};
