/*
 * buckets (reports): a long series in equal spans of x; see buckets.h.
 */
#include <math.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "reports/buckets.h"

static double *xalloc(size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		xalloc_die();
	return v;
}

void buckets_fill(struct buckets *b, const double *x, const double *y, size_t n,
		  size_t nb)
{
	if (nb > BUCKETS_MAX)
		nb = BUCKETS_MAX;
	if (!nb)
		nb = 1;
	b->n = n && x[n - 1] > x[0] ? nb : n ? 1 : 0;
	b->x = xalloc(b->n);
	b->y = xalloc(b->n);
	b->lo = xalloc(b->n);
	b->hi = xalloc(b->n);
	double x0 = n ? x[0] : 0, span = n ? x[n - 1] - x[0] : 0;
	size_t *cnt = calloc(b->n ? b->n : 1, sizeof(*cnt));
	if (!cnt)
		xalloc_die();
	for (size_t k = 0; k < b->n; k++) {
		b->x[k] = b->n > 1 ? x0 + span * ((double)k + 0.5) / (double)b->n : x0;
		b->y[k] = 0;
		b->lo[k] = INFINITY;
		b->hi[k] = -INFINITY;
	}
	for (size_t i = 0; i < n; i++) {
		if (isnan(y[i]))
			continue;
		size_t k = b->n > 1 ? (size_t)((x[i] - x0) / span * (double)b->n) : 0;
		if (k >= b->n)
			k = b->n - 1;
		b->y[k] += y[i];
		b->lo[k] = y[i] < b->lo[k] ? y[i] : b->lo[k];
		b->hi[k] = y[i] > b->hi[k] ? y[i] : b->hi[k];
		cnt[k]++;
	}
	for (size_t k = 0; k < b->n; k++) {
		if (cnt[k]) {
			b->y[k] /= (double)cnt[k];
		} else {
			b->y[k] = b->lo[k] = b->hi[k] = NAN;
		}
	}
	free(cnt);
}

void buckets_release(struct buckets *b)
{
	free(b->x);
	free(b->y);
	free(b->lo);
	free(b->hi);
	b->x = b->y = b->lo = b->hi = NULL;
	b->n = 0;
}
