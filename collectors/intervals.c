/*
 * intervals: per-thread deltas binned by wall time; see intervals.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/intervals.h"

struct intervals {
	size_t nevents;
	uint64_t interval_ns, t0_ns;
	struct intervals_thread *th;
	size_t n, cap;
	uint64_t ticks;
};

struct intervals *intervals_new(size_t nevents, uint64_t interval_ns,
				uint64_t t0_ns)
{
	if (!interval_ns) {
		errno = EINVAL;
		return NULL;
	}
	struct intervals *iv = calloc(1, sizeof(*iv));
	if (!iv)
		return NULL;
	iv->nevents = nevents;
	iv->interval_ns = interval_ns;
	iv->t0_ns = t0_ns;
	return iv;
}

void intervals_free(struct intervals *iv)
{
	if (!iv)
		return;
	for (size_t i = 0; i < iv->n; i++) {
		free(iv->th[i].bins);
		free(iv->th[i].vals);
		free(iv->th[i].last);
		free(iv->th[i].seen);
	}
	free(iv->th);
	free(iv);
}

uint64_t intervals_bin(const struct intervals *iv, uint64_t time_ns)
{
	return time_ns <= iv->t0_ns ? 0 : (time_ns - iv->t0_ns) / iv->interval_ns;
}

static struct intervals_thread *find(struct intervals *iv, int32_t tid)
{
	/* The newest first: a thread is fed many times in a row. */
	for (size_t i = iv->n; i-- > 0;)
		if (iv->th[i].tid == tid)
			return &iv->th[i];
	return NULL;
}

static struct intervals_thread *add(struct intervals *iv, int32_t tid,
				    uint64_t bin)
{
	if (iv->n == iv->cap) {
		size_t cap = iv->cap ? iv->cap * 2 : 16;
		struct intervals_thread *p = realloc(iv->th, cap * sizeof(*p));
		if (!p)
			return NULL;
		iv->th = p;
		iv->cap = cap;
	}
	struct intervals_thread *t = &iv->th[iv->n];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->first_bin = bin;
	size_t ne = iv->nevents ? iv->nevents : 1;
	t->last = calloc(ne, sizeof(*t->last));
	t->seen = calloc(ne, sizeof(*t->seen));
	if (!t->last || !t->seen) {
		free(t->last);
		free(t->seen);
		return NULL;
	}
	iv->n++;
	return t;
}

/*
 * Thread t's row of interval bin, made (zeroed) where there is none: at
 * the end as ticks come in order, else in its place (a late record of an
 * early time; before the first row it lands in the first). NULL when out
 * of memory.
 */
static uint64_t *row_of(struct intervals *iv, struct intervals_thread *t,
			uint64_t bin)
{
	size_t ne = iv->nevents;
	if (t->nrows && bin < t->bins[0])
		bin = t->bins[0];
	size_t at = t->nrows;	/* where bin is, or goes */
	if (t->nrows && bin <= t->bins[t->nrows - 1]) {
		size_t lo = 0, hi = t->nrows;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t->bins[mid] < bin)
				lo = mid + 1;
			else
				hi = mid;
		}
		at = lo;
		if (t->bins[at] == bin)
			return t->vals + at * ne;
	}
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		uint64_t *b = realloc(t->bins, cap * sizeof(*b));
		if (!b)
			return NULL;
		t->bins = b;
		uint64_t *v = realloc(t->vals, cap * (ne ? ne : 1) * sizeof(*v));
		if (!v)
			return NULL;
		t->vals = v;
		t->cap = cap;
	}
	memmove(t->bins + at + 1, t->bins + at, (t->nrows - at) * sizeof(*t->bins));
	memmove(t->vals + (at + 1) * ne, t->vals + at * ne,
		(t->nrows - at) * ne * sizeof(*t->vals));
	t->bins[at] = bin;
	memset(t->vals + at * ne, 0, ne * sizeof(*t->vals));
	t->nrows++;
	t->first_bin = t->bins[0];
	return t->vals + at * ne;
}

int intervals_feed(struct intervals *iv, int32_t tid, uint64_t time_ns,
		   const uint64_t *values, const bool *have)
{
	uint64_t bin = intervals_bin(iv, time_ns);
	struct intervals_thread *t = find(iv, tid);
	if (!t && !(t = add(iv, tid, bin)))
		return -ENOMEM;
	uint64_t *row = row_of(iv, t, bin);
	if (!row)
		return -ENOMEM;
	for (size_t e = 0; e < iv->nevents; e++) {
		if (!have[e])
			continue;
		uint64_t v = values[e];
		uint64_t d = v >= t->last[e] ? v - t->last[e] : v;
		row[e] += d;
		t->last[e] = v;
		t->seen[e] = true;
	}
	iv->ticks++;
	return 0;
}

size_t intervals_count(const struct intervals *iv)
{
	return iv->n;
}

const struct intervals_thread *intervals_find(const struct intervals *iv,
					      int32_t tid)
{
	return find((struct intervals *)iv, tid);
}

size_t intervals_nevents(const struct intervals *iv)
{
	return iv->nevents;
}

uint64_t intervals_ticks(const struct intervals *iv)
{
	return iv->ticks;
}
