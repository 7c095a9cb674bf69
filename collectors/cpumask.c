/*
 * cpumask: sets of CPU numbers as fixed bitmaps, and the kernel's cpu list
 * form ("0-5,12-17") read and written. See cpumask.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cpumask.h"
#include "collectors/topo_internal.h"

void cpumask_clear(struct cpumask *m)
{
	memset(m, 0, sizeof(*m));
}

int cpumask_set(struct cpumask *m, int cpu)
{
	if (cpu < 0 || cpu >= CPUMASK_MAX)
		return -ERANGE;
	m->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
	return 0;
}

bool cpumask_has(const struct cpumask *m, int cpu)
{
	if (cpu < 0 || cpu >= CPUMASK_MAX)
		return false;
	return (m->bits[cpu / 64] >> (cpu % 64)) & 1;
}

size_t cpumask_count(const struct cpumask *m)
{
	size_t n = 0;
	for (size_t w = 0; w < CPUMASK_MAX / 64; w++)
		n += (size_t)__builtin_popcountll(m->bits[w]);
	return n;
}

bool cpumask_empty(const struct cpumask *m)
{
	for (size_t w = 0; w < CPUMASK_MAX / 64; w++)
		if (m->bits[w])
			return false;
	return true;
}

bool cpumask_equal(const struct cpumask *a, const struct cpumask *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

bool cpumask_intersects(const struct cpumask *a, const struct cpumask *b)
{
	for (size_t w = 0; w < CPUMASK_MAX / 64; w++)
		if (a->bits[w] & b->bits[w])
			return true;
	return false;
}

void cpumask_and(struct cpumask *dst, const struct cpumask *a,
		 const struct cpumask *b)
{
	for (size_t w = 0; w < CPUMASK_MAX / 64; w++)
		dst->bits[w] = a->bits[w] & b->bits[w];
}

void cpumask_andnot(struct cpumask *dst, const struct cpumask *a,
		    const struct cpumask *b)
{
	for (size_t w = 0; w < CPUMASK_MAX / 64; w++)
		dst->bits[w] = a->bits[w] & ~b->bits[w];
}

int cpumask_next(const struct cpumask *m, int cpu)
{
	int from = cpu < 0 ? 0 : cpu + 1;
	if (from >= CPUMASK_MAX)
		return -1;
	size_t w = (size_t)from / 64;
	uint64_t word = m->bits[w] & (~UINT64_C(0) << (from % 64));
	for (;;) {
		if (word)
			return (int)(w * 64) + __builtin_ctzll(word);
		if (++w >= CPUMASK_MAX / 64)
			return -1;
		word = m->bits[w];
	}
}

int cpumask_first(const struct cpumask *m)
{
	return cpumask_next(m, -1);
}

/*
 * Reads one CPU number at *p (digits only). Returns 0, -EINVAL when there
 * is no digit, -ERANGE when it reaches CPUMASK_MAX (however many digits).
 */
static int parse_cpu_number(const char **p, const char *end, int *cpu)
{
	const char *q = *p;
	long v = 0;
	bool big = false;
	if (q >= end || *q < '0' || *q > '9')
		return -EINVAL;
	while (q < end && *q >= '0' && *q <= '9') {
		if (!big) {
			v = v * 10 + (*q - '0');
			if (v >= CPUMASK_MAX)
				big = true;
		}
		q++;
	}
	*p = q;
	*cpu = big ? CPUMASK_MAX : (int)v;
	return big ? -ERANGE : 0;
}

int cpumask_parse(struct cpumask *m, const char *s, char **cause)
{
	char eb[TOPO_ECHO_MAX + 8];
	const char *p = s, *end = s + strlen(s);
	int rc;

	cpumask_clear(m);
	if (end > s && end[-1] == '\n')
		end--;
	while (p < end) {
		const char *at = p;
		int lo, hi;
		rc = parse_cpu_number(&p, end, &lo);
		if (rc == 0 && p < end && *p == '-') {
			p++;
			at = p;
			rc = parse_cpu_number(&p, end, &hi);
			if (rc == 0 && hi < lo) {
				topo_cause_give(cause, topo_msg("invalid cpu list '%s': range %d-%d runs backwards",
							  topo_echo(s, eb, sizeof(eb)), lo, hi));
				rc = -EINVAL;
				goto out_clear;
			}
		} else {
			hi = lo;
		}
		if (rc == -ERANGE) {
			topo_cause_give(cause, topo_msg("invalid cpu list '%s': cpu numbers stop at %d",
						  topo_echo(s, eb, sizeof(eb)), CPUMASK_MAX - 1));
			goto out_clear;
		}
		if (rc < 0) {
			topo_cause_give(cause, topo_msg("invalid cpu list '%s': expected a cpu number at offset %td",
						  topo_echo(s, eb, sizeof(eb)), at - s));
			goto out_clear;
		}
		for (int cpu = lo; cpu <= hi; cpu++)
			cpumask_set(m, cpu);
		if (p == end)
			break;
		if (*p != ',' || p + 1 == end) {
			topo_cause_give(cause, topo_msg("invalid cpu list '%s': expected ',' and a cpu number at offset %td",
						  topo_echo(s, eb, sizeof(eb)), p - s));
			rc = -EINVAL;
			goto out_clear;
		}
		p++;
	}
	return 0;

out_clear:
	cpumask_clear(m);
	return rc;
}

char *cpumask_format(const struct cpumask *m)
{
	/* "NNNN-NNNN," is at most 10 bytes a run, and runs <= CPUs. */
	size_t cap = cpumask_count(m) * 10 + 1, len = 0;
	char *s = malloc(cap);
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s[0] = '\0';
	for (int lo = cpumask_first(m); lo >= 0;) {
		int hi = lo, next;
		while ((next = cpumask_next(m, hi)) == hi + 1)
			hi = next;
		int w = hi == lo ? snprintf(s + len, cap - len, "%s%d", len ? "," : "", lo)
				 : snprintf(s + len, cap - len, "%s%d-%d", len ? "," : "", lo, hi);
		len += (size_t)w;
		lo = next;
	}
	return s;
}
