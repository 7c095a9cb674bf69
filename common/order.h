/*
 * order: the comparisons prof sorts numbers with, and the median of a
 * sample. One copy each: reports, collectors and prof all sort.
 * Pure; thread-safe.
 */
#ifndef COMMON_ORDER_H
#define COMMON_ORDER_H

#include <stddef.h>

/* qsort comparisons, ascending: doubles (no NaN among them) and int64_t. */
int order_double(const void *a, const void *b);
int order_i64(const void *a, const void *b);

/*
 * The median of v[0..n-1], sorting v in place: the middle value, or the
 * mean of the middle two when n is even. NaN when n is 0.
 */
double median_sort(double *v, size_t n);

#endif
