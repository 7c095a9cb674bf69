/*
 * buckets (reports): a long series drawn as a bounded one. A picture of a
 * million frames or of a day of intervals cannot hold a point per sample
 * (issue 27: a million frame markers made a 329 MB SVG), so its x range
 * is cut into at most BUCKETS_MAX equal spans, about one per 2 px of a
 * 770 px plot, and each span is drawn as one point with its samples'
 * mean, least and largest (svg_curve's bars). Short series pass as they
 * are. Pure; no state; thread-safe.
 */
#ifndef REPORTS_BUCKETS_H
#define REPORTS_BUCKETS_H

#include <stdbool.h>
#include <stddef.h>

/* Spans per picture; a series of at most this many points is drawn whole. */
#define BUCKETS_MAX 400

struct buckets {
	size_t n;		/* the points: n <= BUCKETS_MAX */
	double *x, *y;		/* each span's middle and its samples' mean */
	double *lo, *hi;	/* their least and largest; NaN where none */
};

/*
 * y[i] at x[i] (x ascending, finite; NaN y is no sample) into at most nb
 * spans of x (nb <= BUCKETS_MAX). Out of memory ends prof through
 * common/xalloc.h, as in the writers.
 */
void buckets_fill(struct buckets *b, const double *x, const double *y, size_t n,
		  size_t nb);
void buckets_release(struct buckets *b);

#endif
