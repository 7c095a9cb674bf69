/*
 * frames: boundaries and per-thread values at them; see frames.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/frames.h"

struct series {
	uint64_t *t;
	size_t n, cap;
	bool sorted;
};

struct fthread {
	int32_t tid;
	struct series s;
	uint64_t *vals;		/* s.cap * nev, cumulative */
	bool *on;		/* s.cap: the thread ran on from that sample */
	bool *fresh;		/* s.cap * nev: that sample read the event */
	bool *seen;		/* per event: some sample carried it */
};

struct frames {
	size_t nev;
	bool as_called;		/* frames_totals_as_called */
	struct series marks[FRAME_NSOURCES];
	struct fthread *th;
	size_t nth;
};

/* ---- the marker lines ---- */

void frame_gate_init(struct frame_gate *g, uint64_t start_ns)
{
	memset(g, 0, sizeof(*g));
	g->start_ns = start_ns;
	g->last_ns = start_ns;
}

/* "F <digits>" to *t: 0, or the reason it is not one. */
static int parse_frame(const char *line, uint64_t *t)
{
	const char *p = line + 2;
	uint64_t v = 0;
	bool big = false;
	if (line[0] != 'F' || line[1] != ' ' || *p < '0' || *p > '9')
		return FRAME_DROP_UNREADABLE;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > ((uint64_t)INT64_MAX - d) / 10)
			big = true;
		else
			v = v * 10 + d;
	}
	if (*p)
		return FRAME_DROP_UNREADABLE;
	if (big)
		return FRAME_DROP_RANGE;
	*t = v;
	return -1;
}

bool frame_gate_line(struct frame_gate *g, const char *line, uint64_t now_ns,
		     uint64_t *t_ns)
{
	uint64_t t = 0;
	int why;
	if ((line[0] == 'B' || line[0] == 'E') && line[1] == ' ')
		return false;	/* a zone: not used yet */
	if (line[0] == 'F' && line[1] == ' ' && line[2] == '-' &&
	    line[3] >= '0' && line[3] <= '9')
		why = FRAME_DROP_RANGE;	/* strtoull would have wrapped it */
	else
		why = parse_frame(line, &t);
	if (why < 0)
		why = t < g->start_ns ? FRAME_DROP_BEFORE :
		      t > now_ns ? FRAME_DROP_FUTURE :
		      t < g->last_ns ? FRAME_DROP_BACKWARDS : -1;
	if (why >= 0) {
		g->dropped[why]++;
		return false;
	}
	g->last_ns = t;
	g->kept++;
	*t_ns = t;
	return true;
}

uint64_t frame_gate_dropped(const struct frame_gate *g)
{
	uint64_t n = 0;
	for (int i = 0; i < FRAME_NDROPS; i++)
		n += g->dropped[i];
	return n;
}

char *frame_gate_note(const struct frame_gate *g)
{
	static const char *const why[FRAME_NDROPS] = {
		[FRAME_DROP_UNREADABLE] = "not 'F <ns>'",
		[FRAME_DROP_RANGE] = "negative or past 2^63-1 ns",
		[FRAME_DROP_BEFORE] = "before the run began",
		[FRAME_DROP_FUTURE] = "later than their arrival",
		[FRAME_DROP_BACKWARDS] = "earlier than the marker before",
	};
	uint64_t n = frame_gate_dropped(g);
	if (!n)
		return NULL;
	char *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&s, &len);
	if (!fp)
		return NULL;
	fprintf(fp, "%llu frame marker%s dropped of %llu:", (unsigned long long)n,
		n == 1 ? "" : "s", (unsigned long long)(n + g->kept));
	const char *sep = " ";
	for (int i = 0; i < FRAME_NDROPS; i++)
		if (g->dropped[i]) {
			fprintf(fp, "%s%llu %s", sep, (unsigned long long)g->dropped[i],
				why[i]);
			sep = ", ";
		}
	if (fclose(fp)) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

/* ---- frames and counters ---- */

struct frames *frames_new(size_t nevents)
{
	struct frames *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->nev = nevents;
	return f;
}

void frames_free(struct frames *f)
{
	if (!f)
		return;
	for (int s = 0; s < FRAME_NSOURCES; s++)
		free(f->marks[s].t);
	for (size_t i = 0; i < f->nth; i++) {
		free(f->th[i].s.t);
		free(f->th[i].vals);
		free(f->th[i].on);
		free(f->th[i].fresh);
		free(f->th[i].seen);
	}
	free(f->th);
	free(f);
}

/* Room for one more time; 0 or -ENOMEM. */
static int series_grow(struct series *s)
{
	if (s->n < s->cap)
		return 0;
	size_t cap = s->cap ? s->cap * 2 : 64;
	uint64_t *p = realloc(s->t, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->t = p;
	s->cap = cap;
	return 0;
}

int frames_mark(struct frames *f, enum frame_source src, uint64_t t_ns)
{
	struct series *s = &f->marks[src];
	if (series_grow(s))
		return -ENOMEM;
	if (s->n && s->t[s->n - 1] > t_ns)
		s->sorted = false;
	else if (!s->n)
		s->sorted = true;
	s->t[s->n++] = t_ns;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static struct fthread *find_thread(struct frames *f, int32_t tid)
{
	for (size_t i = f->nth; i-- > 0;)
		if (f->th[i].tid == tid)
			return &f->th[i];
	struct fthread *p = realloc(f->th, (f->nth + 1) * sizeof(*p));
	if (!p)
		return NULL;
	f->th = p;
	struct fthread *t = &p[f->nth];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->seen = calloc(f->nev ? f->nev : 1, sizeof(*t->seen));
	if (!t->seen)
		return NULL;
	t->s.sorted = true;
	f->nth++;
	return t;
}

int frames_tick(struct frames *f, int32_t tid, uint64_t t_ns,
		const uint64_t *vals, const bool *have, bool running)
{
	struct fthread *t = find_thread(f, tid);
	if (!t)
		return -ENOMEM;
	size_t cap = t->s.cap;
	if (series_grow(&t->s))
		return -ENOMEM;
	if (t->s.cap != cap) {
		uint64_t *v = realloc(t->vals, t->s.cap * (f->nev ? f->nev : 1) *
				      sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->vals = v;
		bool *on = realloc(t->on, t->s.cap * sizeof(*on));
		if (!on)
			return -ENOMEM;
		t->on = on;
		bool *fr = realloc(t->fresh, t->s.cap * (f->nev ? f->nev : 1) *
				   sizeof(*fr));
		if (!fr)
			return -ENOMEM;
		t->fresh = fr;
	}
	size_t n = t->s.n;
	uint64_t *row = t->vals + n * f->nev;
	for (size_t e = 0; e < f->nev; e++) {
		/* An event a sample lacks keeps its last value. */
		row[e] = have[e] ? vals[e] : n ? t->vals[(n - 1) * f->nev + e] : 0;
		t->fresh[n * f->nev + e] = have[e];
		t->seen[e] |= have[e];
	}
	if (n && t->s.t[n - 1] > t_ns)
		t->s.sorted = false;
	t->on[n] = running;
	t->s.t[t->s.n++] = t_ns;
	return 0;
}

void frames_totals_as_called(struct frames *f)
{
	f->as_called = true;
}

size_t frames_count(const struct frames *f, enum frame_source src)
{
	return f->marks[src].n ? f->marks[src].n - 1 : 0;
}

static void sort_marks(struct series *s)
{
	if (!s->sorted) {
		qsort(s->t, s->n, sizeof(*s->t), cmp_u64);
		s->sorted = true;
	}
}

void frames_span(struct frames *f, enum frame_source src, size_t i,
		 uint64_t *start_ns, uint64_t *dur_ns)
{
	struct series *s = &f->marks[src];
	sort_marks(s);
	*start_ns = s->t[i];
	*dur_ns = s->t[i + 1] - s->t[i];
}

size_t frames_nthreads(const struct frames *f)
{
	return f->nth;
}

int32_t frames_thread_tid(const struct frames *f, size_t t)
{
	return f->th[t].tid;
}

/*
 * Samples of one thread out of order (rare): sort them with their rows.
 * as_called (frames_totals_as_called): a row holds the thread's totals
 * when it came, so a late one (a multiplexed group's share for a slice
 * that ended before calls already made: percpu.c) would put those
 * totals at its earlier time, above the rows after it; what each call
 * added to the one before goes at its time instead: the rows are made
 * differences in call order, sorted, and summed again.
 */
static void sort_thread(struct fthread *t, size_t nev, bool as_called)
{
	if (t->s.sorted)
		return;
	/* Insertion sort: the series is nearly in order. */
	uint64_t *row = malloc((nev ? nev : 1) * sizeof(*row));
	bool *frow = malloc((nev ? nev : 1) * sizeof(*frow));
	if (!row || !frow) {
		free(row);
		free(frow);
		return;
	}
	for (size_t i = t->s.n; as_called && i-- > 1;)
		for (size_t e = 0; e < nev; e++) {
			uint64_t prev = t->vals[(i - 1) * nev + e];
			uint64_t *v = &t->vals[i * nev + e];
			*v = *v > prev ? *v - prev : 0;
		}
	for (size_t i = 1; i < t->s.n; i++) {
		uint64_t key = t->s.t[i];
		bool on = t->on[i];
		memcpy(row, t->vals + i * nev, nev * sizeof(*row));
		memcpy(frow, t->fresh + i * nev, nev * sizeof(*frow));
		size_t j = i;
		while (j > 0 && t->s.t[j - 1] > key) {
			t->s.t[j] = t->s.t[j - 1];
			t->on[j] = t->on[j - 1];
			memcpy(t->vals + j * nev, t->vals + (j - 1) * nev,
			       nev * sizeof(*row));
			memcpy(t->fresh + j * nev, t->fresh + (j - 1) * nev,
			       nev * sizeof(*frow));
			j--;
		}
		t->s.t[j] = key;
		t->on[j] = on;
		memcpy(t->vals + j * nev, row, nev * sizeof(*row));
		memcpy(t->fresh + j * nev, frow, nev * sizeof(*frow));
	}
	for (size_t i = 1; as_called && i < t->s.n; i++)
		for (size_t e = 0; e < nev; e++)
			t->vals[i * nev + e] += t->vals[(i - 1) * nev + e];
	free(row);
	free(frow);
	t->s.sorted = true;
}

/*
 * The thread's value of event e at time t: its last sample at or before;
 * where the last sample that read e was a tick (the thread ran on from it
 * to the next sample that read e, with no switch between: a switch reads
 * every group), what it did in between is shared out by time, so a busy
 * thread's frame edge is not up to a tick late. Samples of another group
 * carry e's last value, not a fresh one: they are passed over.
 */
static uint64_t value_at(const struct fthread *th, size_t nev, size_t e,
			 uint64_t t)
{
	size_t lo = 0, hi = th->s.n;	/* first sample after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (th->s.t[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	uint64_t v = th->vals[(lo - 1) * nev + e];
	size_t k0 = lo - 1, k1 = lo;
	while (k0 > 0 && !th->fresh[k0 * nev + e])
		k0--;
	while (k1 < th->s.n && !th->fresh[k1 * nev + e])
		k1++;
	if (th->fresh[k0 * nev + e] && th->on[k0] && k1 < th->s.n) {
		uint64_t t0 = th->s.t[k0], t1 = th->s.t[k1];
		uint64_t v1 = th->vals[k1 * nev + e];
		if (t1 > t0 && v1 > v)
			v += (uint64_t)((double)(v1 - v) * (double)(t - t0) /
					(double)(t1 - t0));
	}
	return v;
}

bool frames_between(struct frames *f, size_t t, size_t e, uint64_t a_ns,
		    uint64_t b_ns, uint64_t *out)
{
	struct fthread *th = &f->th[t];
	if (!th->seen[e])
		return false;
	sort_thread(th, f->nev, f->as_called);
	uint64_t va = value_at(th, f->nev, e, a_ns), vb = value_at(th, f->nev, e, b_ns);
	*out = vb > va ? vb - va : 0;
	return true;
}

bool frames_delta(struct frames *f, enum frame_source src, size_t i,
		  size_t t, size_t e, uint64_t *out)
{
	uint64_t a, d;
	frames_span(f, src, i, &a, &d);
	return frames_between(f, t, e, a, a + d, out);
}
