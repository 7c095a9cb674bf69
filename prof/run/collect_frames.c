/*
 * collect_frames: prof run --frames / --frame-regex RE / --frame-symbol
 * MODULE:SYMBOL, frame boundaries and every thread's counters at them
 * (prof/run/collector.h). Three sources of boundaries: the lines
 * prof_marker.h's prof_frame() writes to the pipe prof names in
 * $PROF_MARKER_FD (timestamped by the workload), the workload's stdout
 * lines that match --frame-regex (timestamped when prof reads them; the
 * workload's stdout then goes through a pipe and prof copies every byte
 * on to where it would have gone), and the samples of a uprobe on
 * SYMBOL (period 1, one per CPU as a uprobe cannot be inherited, stamped
 * by the kernel with CLOCK_MONOTONIC like the markers: collectors/uprobe.h). A reader
 * thread of this collector's own polls both pipes, so a line is stamped
 * when it arrives, not when the runner next drains its ring buffers; it
 * touches nothing but its own lists until finish joins it. It checks
 * each marker as it comes (collectors/frames.h's gate: what is kept is
 * what the database reads back) and the run keeps a note of what it
 * dropped (settings frame_markers_dropped, frame_note).
 *
 * Its fill stores each frame's start (ns after the launch, as db/runs.h
 * and --window read it) and length, each thread name's counter deltas
 * per frame, and the settings frame_source, frame_budget_ms,
 * frame_regex, frame_symbol and frames_<source> (how many frames each
 * source saw).
 *
 * Counters per frame come from two read_counters samplers
 * (collectors/counters.h: each thread's own values, docs/intervals.md):
 * one on every context switch, one every millisecond of a thread's CPU
 * time; collectors/frames takes each thread's value at each boundary.
 * Counted per CPU (collectors/percpu.h), the per-CPU groups' switches and
 * a 1 ms tick give the same (fr_counts), on every kernel.
 * docs/frames.md says why and what was measured.
 *
 * Two parts of --window are this collector's, as it alone knows the
 * frames and the stamped lines: a window of frames N to M (each thread's
 * counts between the frames' edges, frame_window), and, for prof ab's
 * scores, the stdout lines that arrived inside any window (window_lines;
 * then stdout passes through the reader even without --frame-regex).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
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
#include "common/xalloc.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

#define LINE_MAX_KEPT 4096

struct marks {
	uint64_t *t;
	size_t n, cap;
};

struct frames_state {
	bool frames_on;		/* frames were asked for (frame_args_any) */
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
	bool rx_group;		/* the regex has a group: its number is the
				 * frame's time in ms, where every line has one */
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
	struct frame_gate gate;	/* the marker lines, checked as they come */
	bool mk_oom;
	struct marks mk[FRAME_NSOURCES];
	char mline[256], oline[LINE_MAX_KEPT];
	size_t mlen, olen;
	/* The regex's lines: those read together with the line before
	 * (their times are a read's, not their own), and group 1's time in
	 * ns for each mark (rx_dur[i], mark i; rx_unread: lines whose group
	 * was no number, which leaves them all to the read times). */
	size_t rx_in_read, rx_burst, rx_unread;
	struct marks rx_dur;
	/* --window with window_lines_fd: every stdout line, stamped
	 * ("<ns> <line>"), until fill keeps those inside the window. */
	FILE *lines;
	bool lines_err;
	uint64_t win_a, win_b;	/* a frame window's edges, once known */
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void push_mark(struct frames_state *st, struct marks *m, uint64_t t)
{
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

static void add_mark(struct frames_state *st, enum frame_source src, uint64_t t)
{
	push_mark(st, &st->mk[src], t);
}

/* Group 1 of a match as milliseconds, in ns: false where it is no
 * number (a group for alternation, say) or out of range. */
static bool group_ms(const char *line, const regmatch_t *g, uint64_t *ns)
{
	if (g->rm_so < 0 || g->rm_eo <= g->rm_so || g->rm_eo - g->rm_so > 40)
		return false;
	char num[48], *end;
	size_t len = (size_t)(g->rm_eo - g->rm_so);
	memcpy(num, line + g->rm_so, len);
	num[len] = 0;
	errno = 0;
	double ms = strtod(num, &end);
	if (end == num || *end || errno || !(ms >= 0) || ms > 1e9)
		return false;
	*ns = (uint64_t)(ms * 1e6 + 0.5);
	return true;
}

/* A line of the workload's stdout: a frame boundary when it matches. */
static void regex_line(struct frames_state *st, const char *line, uint64_t t)
{
	regmatch_t m[2];
	if (regexec(&st->re, line, st->rx_group ? 2 : 0, st->rx_group ? m : NULL, 0))
		return;
	if (st->rx_in_read++)
		st->rx_burst++;
	uint64_t ns = 0;
	if (st->rx_group && !group_ms(line, &m[1], &ns))
		st->rx_unread++;
	add_mark(st, FRAME_REGEX, t);
	if (st->rx_group)
		push_mark(st, &st->rx_dur, ns);
}

/* "F <ns>" is a frame, kept when it could be one of this run's
 * (collectors/frames.h's gate); zones ("B", "E") are not used yet. */
static void marker_line(struct frames_state *st, const char *line, uint64_t now)
{
	uint64_t ns;
	if (frame_gate_line(&st->gate, line, now, &ns))
		add_mark(st, FRAME_MARKER, ns);
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
			marker_line(st, line, t);
		else if (st->regex_on)
			regex_line(st, line, t);
		if (!marker && st->lines && !st->lines_err &&
		    fprintf(st->lines, "%llu %s\n", (unsigned long long)t, line) < 0)
			st->lines_err = true;
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
		st->rx_in_read = 0;
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
	char *mod = xstrndup(spec, (size_t)(colon - spec));
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
	free(st->rx_dur.t);
	frames_free(st->f);
	if (st->lines)
		fclose(st->lines);
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
	const struct window_spec *w = &cx->o->window;
	bool lines = cx->o->window_lines_fd > 0 &&
		     (window_by_seconds(w) || window_by_frames(w));
	st->frames_on = frame_args_any(&cx->o->frame);
	if ((!st->frames_on && !lines) || !cx->launched)
		return COLLECT_SKIP;
	/* Before the workload exists: no marker of its can be earlier. */
	frame_gate_init(&st->gate, mono_now_ns());
	if (lines && !(st->lines = tmpfile()))
		return cause_set(cause, errno, "--window: cannot keep the workload's "
				 "output lines: %s", ERR_TEXT(errno));
	if (cx->o->frame.regex) {
		if (regcomp(&st->re, cx->o->frame.regex, REG_EXTENDED)) {
			return cause_set(cause, EINVAL, "bad --frame-regex '%s'",
					 cx->o->frame.regex);
		}
		st->regex_on = true;
		st->rx_group = st->re.re_nsub > 0;
	}
	int rc = cx->o->frame.symbol ? add_probe(st, cx, cause) : 0;
	if (!rc && st->frames_on)
		rc = open_pipe(st->marker, cause, "frame marker");
	if (!rc)
		rc = open_pipe(st->stop, cause, "frame reader's stop");
	if (!rc && (st->regex_on || st->lines))
		rc = open_pipe(st->out, cause, "workload's output");
	if (rc)
		return rc;
	if (st->regex_on || st->lines) {
		cx->stdout_fd = st->out[1];
		st->pass_fd = cx->o->out_fd >= 0 ? cx->o->out_fd : 1;
	}
	st->nev = cx->o->nev;
	if (!st->frames_on)
		return 0;	/* the output's lines alone */
	snprintf(st->env, sizeof(st->env), "PROF_MARKER_FD=%d", st->marker[1]);
	char *kv[] = { st->env, NULL };
	collect_add_env(cx, kv);
	cx->keep_fd = st->marker[1];
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
	st->vals = xcalloc(st->nev ? st->nev : 1, sizeof(*st->vals));
	st->have = xcalloc(st->nev ? st->nev : 1, sizeof(*st->have));
	return 0;
}

static void fr_opened(void *self, struct collect_ctx *cx)
{
	struct frames_state *st = self;
	st->cs = cx->cs;
	/* The workload holds the write ends now: their end is its end. */
	close_fd(&st->marker[1]);
	close_fd(&st->out[1]);
	if (st->frames_on && st->percpu && counters_path(cx->cs) != COUNTERS_PATH_PERCPU)
		run_warn("frames: no counters per frame: counting per CPU was "
			 "refused (%s), and they came from it",
			 counters_path_note(cx->cs) ? counters_path_note(cx->cs) : "?");
	for (int i = 0; i < 2 && st->frames_on && !st->percpu; i++) {
		st->ids[i] = counters_sampler_id(cx->cs, 0, st->samplers[i]);
		const struct counter_status *s = counters_sampler_status(cx->cs,
									 st->samplers[i]);
		if (!s || !s->supported)
			run_warn("frames: no counters per frame: the kernel refused "
				 "a sampler that reads each thread's counters "
				 "(inherit with PERF_SAMPLE_READ needs Linux 6.12 "
				 "or later)%s%s", s && s->reason ? ": " : "",
				 s && s->reason ? s->reason : "");
	}
	st->pid = (int32_t)cx->pid;
	st->f = frames_new(st->nev);
	if (st->f && st->percpu)
		frames_totals_as_called(st->f);
	if (!st->f)	/* the workload runs: its run goes on, without frames */
		run_warn("frames: out of memory: no frames");
	else if (pthread_create(&st->reader, NULL, reader_main, st) == 0)
		st->reader_on = true;
	else
		run_warn("frames: cannot start the frame reader: no frames");
}

static bool ours(const struct frames_state *st, uint64_t id)
{
	return id && (id == st->ids[0] || id == st->ids[1]);
}

static void fr_drain(void *self, const struct perf_rec *rec, int origin)
{
	struct frames_state *st = self;
	(void)origin;
	if (!st->f || !st->frames_on || st->oom || rec->type != PERF_RECORD_SAMPLE ||
	    !rec->u.sample.read_nr || !rec->u.sample.read_has_id ||
	    !ours(st, rec->u.sample.identifier))
		return;
	counters_read_values(st->cs, rec, st->vals, st->have, st->nev);
	if (frames_tick(st->f, (int32_t)rec->u.sample.tid, rec->u.sample.time,
			st->vals, st->have, rec->u.sample.identifier == st->ids[1])) {
		run_warn("frames: out of memory: counters per frame stop here");
		st->oom = true;
	}
}

static void fr_counts(void *self, int32_t tid, uint64_t time,
		      const uint64_t *vals, const bool *have, bool running)
{
	struct frames_state *st = self;
	if (!st->f || !st->frames_on || st->oom)
		return;
	if (frames_tick(st->f, tid, time, vals, have, running)) {
		run_warn("frames: out of memory: counters per frame stop here");
		st->oom = true;
	}
}

/* Whether the regex's frames take their times from its group: every
 * matched line had a number there. */
static bool regex_timed(const struct frames_state *st)
{
	return st->rx_group && !st->rx_unread && !st->mk_oom &&
	       st->rx_dur.n == st->mk[FRAME_REGEX].n && st->rx_dur.n > 1;
}

/*
 * What the regex's lines say of the frame times (malloc'd), or NULL:
 * lines read together with the one before (a block-buffered stdout)
 * when they are more than 5% of them and at least 3, and a group that
 * was no number.
 */
static char *regex_note(const struct frames_state *st)
{
	size_t n = st->mk[FRAME_REGEX].n;
	char *a = NULL, *b = NULL, *s = NULL;
	if (st->rx_burst >= 3 && st->rx_burst * 20 > n &&
	    asprintf(&a, "%zu of %zu frame lines reached prof together with the "
		     "line before (the workload's stdout is buffered, or prof's "
		     "reader was late): %s", st->rx_burst, n, regex_timed(st)
		     ? "their frame times are the workload's own (the regex's group), "
		       "their counters by when the lines arrived"
		     : "their frame times are the gaps between reads, not between "
		       "frames") < 0)
		a = NULL;
	if (st->rx_group && st->rx_unread &&
	    asprintf(&b, "the regex's group was no number of milliseconds in %zu of "
		     "%zu lines: frame times are when the lines arrived",
		     st->rx_unread, n) < 0)
		b = NULL;
	if (a && b) {
		if (asprintf(&s, "%s; %s", a, b) < 0)
			s = NULL;
		free(a);
		free(b);
		return s;
	}
	return a ? a : b;
}

static void fr_finish(void *self, struct collect_ctx *cx)
{
	struct frames_state *st = self;
	if (!st->reader_on)
		return;
	if (write(st->stop[1], "x", 1) != 1)
		run_warn("frames: cannot stop the frame reader");
	pthread_join(st->reader, NULL);
	st->reader_on = false;
	st->oom |= st->mk_oom;
	for (int s = 0; s < FRAME_NSOURCES; s++)
		for (size_t i = 0; i < st->mk[s].n; i++)
			if (frames_mark(st->f, (enum frame_source)s, st->mk[s].t[i]))
				st->oom = true;
	if (st->oom)
		run_warn("frames: out of memory: some frames are missing");
	char *note = frame_gate_note(&st->gate);
	if (note)
		run_warn("frames: %s", note);
	free(note);
	note = regex_note(st);
	if (note) {
		run_warn("frames: %s", note);
		if (!regex_timed(st))
			run_hint("flush each line (stdbuf -oL, setvbuf(stdout, NULL, "
				 "_IOLBF, 0)), print the frame's time and capture it "
				 "('took ([0-9.]+) ms'), or mark frames with --frames");
	}
	free(note);
	if (uprobe_rings_lost(st->probe))
		run_warn("frames: %llu calls of '%s' were lost (a uprobe buffer "
			 "was full): frames from it are missing",
			 (unsigned long long)uprobe_rings_lost(st->probe),
			 cx->o->frame.symbol);
}

struct tid_at {
	int32_t tid;
	size_t t;	/* the frames module's thread index */
};

static int tid_cmp(const void *a, const void *b)
{
	int32_t x = ((const struct tid_at *)a)->tid, y = ((const struct tid_at *)b)->tid;
	return (x > y) - (x < y);
}

/*
 * --window frame:N:M (prof/run/collector.h): each thread's counts from the
 * start of frame N to the end of frame M, read as each frame's are (its
 * value at the two edges), the events' totals their sums, frames N to M
 * alone, and the edges in seconds after the launch (window_start_s,
 * window_end_s). The window's CPU time is its task-clock where that was
 * counted (window_cpu_s); the cgroup's cannot be read at edges known
 * only afterwards. A run with fewer than N frames keeps the whole run's
 * counts and says so; one with fewer than M is cut at its last frame.
 */
static void frame_window(struct frames_state *st, struct collect_ctx *cx,
			 struct db_run *run, enum frame_source src)
{
	const struct window_spec *w = &cx->o->window;
	char spec[48];
	snprintf(spec, sizeof(spec), "frame:%u:%u", w->first_frame, w->last_frame);
	size_t n = frames_count(st->f, src);
	if (n < w->first_frame) {
		db_set_str(run, SET_WINDOW, "not reached");
		db_set_str(run, SET_WINDOW_ASKED, spec);
		run_warn("--window %s: the run had %zu frame%s, fewer than %u: the "
			 "run's counts are the whole run's", spec, n, n == 1 ? "" : "s",
			 w->first_frame);
		return;
	}
	size_t i = w->first_frame - 1, j = w->last_frame - 1;
	if (j >= n) {
		j = n - 1;
		run_warn("--window %s: the run had %zu frames: the window ends "
			 "with the last", spec, n);
	}
	size_t nth = frames_nthreads(st->f);
	struct tid_at *ix = malloc((nth ? nth : 1) * sizeof(*ix));
	if (!ix) {
		db_set_str(run, SET_WINDOW, "not kept (out of memory)");
		run_warn("--window: out of memory: the run's counts are the whole run's");
		return;
	}
	for (size_t t = 0; t < nth; t++)
		ix[t] = (struct tid_at){ frames_thread_tid(st->f, t), t };
	qsort(ix, nth, sizeof(*ix), tid_cmp);
	uint64_t a, b, d;
	frames_span(st->f, src, i, &a, &d);
	frames_span(st->f, src, j, &b, &d);
	b += d;
	st->win_a = a;
	st->win_b = b;
	for (size_t e = 0; e < run->nevents; e++)
		if (run->events[e].total.present)
			run->events[e].total.value = 0;
	for (size_t k = 0; k < run->nthreads; k++) {
		struct db_thread *th = &run->threads[k];
		struct tid_at key = { th->tid, 0 };
		const struct tid_at *at = bsearch(&key, ix, nth, sizeof(*ix), tid_cmp);
		for (size_t e = 0; e < run->nevents; e++) {
			struct db_count *c = &th->counts[e];
			if (!c->present)
				continue;
			uint64_t v = 0;
			if (!at || !frames_between(st->f, at->t, e, a, b, &v))
				v = 0;
			c->value = v;
			if (run->events[e].total.present)
				run->events[e].total.value += v;
		}
	}
	free(ix);
	uint64_t t0 = cx->t0_ns;
	db_set_str(run, SET_WINDOW, spec);
	db_set_f64(run, SET_WINDOW_START_S, a > t0 ? (double)(a - t0) / 1e9 : 0);
	db_set_f64(run, SET_WINDOW_END_S, b > t0 ? (double)(b - t0) / 1e9 : 0);
	long tc = db_run_event_by_attr(run, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	if (tc >= 0 && run->events[tc].total.present)
		db_set_f64(run, SET_WINDOW_CPU_S, (double)run->events[tc].total.value / 1e9);
	window_keep_frame_range(run, i, j);
}

/*
 * The workload's stdout lines that arrived inside the window, written to
 * window_lines_fd for prof ab's scores: between the frame window's edges,
 * or START to END seconds after the launch. None when it was not reached.
 */
static void window_lines(struct frames_state *st, struct collect_ctx *cx,
			 const struct db_run *run)
{
	const struct window_spec *w = &cx->o->window;
	/* A frame window's edges are known once frame_window ran (0: not
	 * reached); one of seconds is not reached when the run ended first
	 * (collect_window, which fills after this one, says so). */
	uint64_t a = st->win_a, b = st->win_b;
	if (window_by_seconds(w)) {
		if (run->wall_s <= w->start_s)
			return;
		a = cx->t0_ns + (uint64_t)(w->start_s * 1e9);
		b = cx->t0_ns + (uint64_t)(w->end_s * 1e9);
	}
	if (!(b > a))
		return;
	if (st->lines_err || fflush(st->lines) || fseek(st->lines, 0, SEEK_SET)) {
		run_warn("--window: the workload's output lines were not kept: no "
			 "score is read from them");
		return;
	}
	FILE *out = fdopen(dup(cx->o->window_lines_fd), "w");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (out && (n = getline(&line, &cap, st->lines)) > 0) {
		char *text;
		unsigned long long t = strtoull(line, &text, 10);
		if (t >= a && t <= b && *text == ' ')
			fwrite(text + 1, 1, (size_t)(n - (text + 1 - line)), out);
	}
	free(line);
	if (!out || fclose(out))
		run_warn("--window: cannot hand on the output lines inside it: %s",
			 ERR_TEXT(errno));
}

/* ---- the stored frames ---- */

static const char *const frame_source_name[FRAME_NSOURCES] = {
	[FRAME_MARKER] = "marker", [FRAME_REGEX] = "regex",
	[FRAME_SYMBOL] = "symbol",
};

/* The run's thread of that tid's name, or NULL. */
static const char *thread_name(const struct db_run *run, int32_t tid)
{
	for (size_t i = 0; i < run->nthreads; i++)
		if (run->threads[i].tid == tid)
			return run->threads[i].name;
	return NULL;
}

/* Index of name in names (added when new), or -1 out of memory. */
static long name_index(const char ***names, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return (long)i;
	const char **p = realloc(*names, (*n + 1) * sizeof(*p));
	if (!p)
		return -1;
	p[*n] = name;
	*names = p;
	return (long)(*n)++;
}

/*
 * The distinct names of the frames' threads into run->frame_names (one
 * copy each, which every count of it borrows), and of[t] the index of
 * thread t's. 0 or -ENOMEM.
 */
static int frame_thread_names(struct db_run *run, struct frames *f, size_t *of)
{
	size_t nth = frames_nthreads(f), nnames = 0;
	const char **names = NULL;
	for (size_t t = 0; t < nth; t++) {
		const char *nm = thread_name(run, frames_thread_tid(f, t));
		long k = name_index(&names, &nnames, nm ? nm : "");
		if (k < 0)
			goto out_names;
		of[t] = (size_t)k;
	}
	run->frame_names = calloc(nnames ? nnames : 1, sizeof(*run->frame_names));
	if (!run->frame_names)
		goto out_names;
	for (size_t k = 0; k < nnames; k++, run->nframe_names++)
		if (!(run->frame_names[k] = strdup(names[k])))
			goto out_names;
	free(names);
	return 0;
out_names:
	free(names);
	return -ENOMEM;
}

/* Frame i's sums per thread name and event (-1: none) into
 * run->frame_counts. */
static void frame_sums(struct db_run *run, struct frames *f, enum frame_source src,
		       size_t i, const size_t *of, int64_t *sum)
{
	size_t nth = frames_nthreads(f), nnames = run->nframe_names, nev = run->nevents;
	for (size_t k = 0; k < nnames * nev; k++)
		sum[k] = -1;
	for (size_t t = 0; t < nth; t++)
		for (size_t e = 0; e < nev; e++) {
			uint64_t d;
			if (!frames_delta(f, src, i, t, e, &d))
				continue;
			/* Saturated: the database holds 0..INT64_MAX. */
			int64_t *s = &sum[of[t] * nev + e];
			uint64_t base = *s < 0 ? 0 : (uint64_t)*s;
			*s = d > (uint64_t)INT64_MAX - base ? INT64_MAX : (int64_t)(base + d);
		}
	for (size_t k = 0; k < nnames * nev; k++)
		if (sum[k] >= 0)
			run->frame_counts[run->nframe_counts++] = (struct db_frame_count){
				.frame = (uint32_t)i,
				.name = run->frame_names[k / nev],
				.event = (uint32_t)(k % nev),
				.value = sum[k],
			};
}

/* Each thread name's counter deltas per frame, n frames. 0 or -ENOMEM. */
static int frame_counts(struct db_run *run, struct frames *f,
			enum frame_source src, size_t n)
{
	size_t nth = frames_nthreads(f), nev = run->nevents;
	size_t *of = calloc(nth ? nth : 1, sizeof(*of));
	int64_t *sum = NULL;
	int rc = -ENOMEM;
	if (!of || frame_thread_names(run, f, of))
		goto out;
	size_t nnames = run->nframe_names;
	sum = malloc((nnames ? nnames : 1) * (nev ? nev : 1) * sizeof(*sum));
	run->frame_counts = calloc(n * (nnames ? nnames : 1) * (nev ? nev : 1),
				   sizeof(*run->frame_counts));
	if (!sum || !run->frame_counts)
		goto out;
	for (size_t i = 0; i < n; i++)
		frame_sums(run, f, src, i, of, sum);
	rc = 0;
out:
	free(sum);
	free(of);
	return rc;
}

/* How the run was asked to find its frames, and what each source saw. */
static void frame_settings(struct db_run *run, struct frames *f,
			   enum frame_source src, const struct frame_args *how)
{
	/* frames_marker, frames_regex, frames_symbol: one key a frame
	 * source, named from frame_source_name at run time, so outside
	 * db/settings.h's table. */
	for (int s = 0; s < FRAME_NSOURCES; s++) {
		char key[64], cnt[32];
		snprintf(key, sizeof(key), "frames_%s", frame_source_name[s]);
		snprintf(cnt, sizeof(cnt), "%zu", frames_count(f, (enum frame_source)s));
		db_run_set_dynamic(run, key, cnt);
	}
	db_set_str(run, SET_FRAME_SOURCE, frame_source_name[src]);
	if (how->regex)
		db_set_str(run, SET_FRAME_REGEX, how->regex);
	if (how->symbol)
		db_set_str(run, SET_FRAME_SYMBOL, how->symbol);
	db_set_f64(run, SET_FRAME_BUDGET_MS, how->budget_ms);
}

/*
 * The frames of src, after the counters' fill: each frame's start (ns
 * after t0_ns, the launch's CLOCK_MONOTONIC time) and length, and their
 * counts. No frame rows when src saw none. 0 or -ENOMEM with *cause.
 */
static int fill_frames(struct db_run *run, struct frames *f, enum frame_source src,
		       const struct frame_args *how, uint64_t t0_ns, char **cause)
{
	frame_settings(run, f, src, how);
	size_t n = frames_count(f, src);
	if (!n)
		return 0;
	run->frames = calloc(n, sizeof(*run->frames));
	if (!run->frames)
		return fill_oom(cause, "frames");
	for (size_t i = 0; i < n; i++) {
		uint64_t a, d;
		frames_span(f, src, i, &a, &d);
		/* No kept boundary is before the launch (collectors/frames.h's
		 * gate, lines and uprobe hits stamped after it). */
		run->frames[i] = (struct db_frame_span){
			.t_ns = a > t0_ns ? (int64_t)(a - t0_ns) : 0, .dur_ns = (int64_t)d,
		};
	}
	run->nframes = n;
	return frame_counts(run, f, src, n) ? fill_oom(cause, "frame counts") : 0;
}

/* What the regex and the gate left out, as the run's notes. */
static void frame_notes(struct frames_state *st, struct db_run *run)
{
	char *rnote = regex_note(st);
	if (rnote) {
		db_set_u64(run, SET_FRAME_REGEX_BURSTS, st->rx_burst);
		db_set_str(run, SET_FRAME_REGEX_NOTE, rnote);
	}
	free(rnote);
	/* What the gate dropped stays with the run (prof report --frames). */
	char *note = frame_gate_note(&st->gate);
	if (note) {
		db_set_u64(run, SET_FRAME_MARKERS_DROPPED, frame_gate_dropped(&st->gate));
		db_set_str(run, SET_FRAME_NOTE, note);
	}
	free(note);
}

static int fr_fill(void *self, struct collect_ctx *cx, struct db_run *run,
		   char **cause)
{
	struct frames_state *st = self;
	if (!st->f)
		return 0;
	if (!st->frames_on) {
		if (st->lines)
			window_lines(st, cx, run);
		return 0;
	}
	enum frame_source src = cx->o->frame.symbol ? FRAME_SYMBOL :
				st->regex_on ? FRAME_REGEX : FRAME_MARKER;
	int rc = fill_frames(run, st->f, src, &cx->o->frame, cx->t0_ns, cause);
	if (rc)
		return rc;
	if (window_by_frames(&cx->o->window))
		frame_window(st, cx, run, src);
	/* Frame i ends at line i+1, which printed its time. The marks of the
	 * one reader are in arrival order, the order frames keeps them in. */
	if (src == FRAME_REGEX && regex_timed(st) && run->nframes + 1 == st->rx_dur.n) {
		for (size_t i = 0; i < run->nframes; i++)
			run->frames[i].dur_ns = (int64_t)st->rx_dur.t[i + 1];
		db_set_str(run, SET_FRAME_TIME_FROM, "regex group");
	}
	frame_notes(st, run);
	if (st->lines)
		window_lines(st, cx, run);
	return 0;
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
