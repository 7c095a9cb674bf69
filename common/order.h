/*
 * order: the comparisons prof sorts numbers with, the median of a
 * sample and the nearest rank of a percentile. One copy each: reports,
 * collectors and prof all sort.
 * Pure; thread-safe.
 */
#ifndef COMMON_ORDER_H
#define COMMON_ORDER_H

#include <stddef.h>
#include <stdint.h>

/* qsort comparisons, ascending: doubles (no NaN among them) and int64_t. */
int order_double(const void *a, const void *b);
int order_i64(const void *a, const void *b);

/*
 * The median of v[0..n-1], sorting v in place: the middle value, or the
 * mean of the middle two when n is even. NaN when n is 0.
 */
double median_sort(double *v, size_t n);

/*
 * The nearest rank of the q-th per mille of n sorted values: the
 * ceil(q * n / 1000)-th smallest, counted from 1, at least 1 (q above
 * 1000 counts as 1000, so never above n when n > 0). Exact for any n:
 * no floating point, no overflow. Index the sorted values with rank - 1.
 * Inline, so that the sleep interposer (libc only) has it too.
 */
static inline uint64_t nearest_rank(uint64_t n, unsigned q)
{
	if (q > 1000)
		q = 1000;
	/* split so that q * n cannot overflow */
	uint64_t rank = n / 1000 * q + ((n % 1000) * q + 999) / 1000;
	return rank ? rank : 1;
}

#endif
