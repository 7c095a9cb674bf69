/* order: see order.h. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/order.h"

int order_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int order_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

double median_sort(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), order_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
