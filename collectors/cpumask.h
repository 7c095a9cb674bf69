/*
 * cpumask: a set of CPU numbers as a fixed bitmap, and the kernel's cpu
 * list form ("0-5,12-17") parsed and formatted. A CPU number here is the
 * kernel's (cpuN), never an index into an array. Plain data: no
 * allocation but cpumask_format()'s result, no global state, thread-safe.
 * A `char **cause` is set to a malloc'd lowercase message on failure (the
 * caller frees it) and left untouched on success; it may be NULL.
 */
#ifndef COLLECTORS_CPUMASK_H
#define COLLECTORS_CPUMASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPU numbers run from 0 to CPUMASK_MAX - 1; larger ones are rejected. */
#define CPUMASK_MAX 8192

/* A set of CPU numbers, as a fixed bitmap: plain data, copy it freely. */
struct cpumask {
	uint64_t bits[CPUMASK_MAX / 64];
};

void cpumask_clear(struct cpumask *m);
/* Adds `cpu`; returns 0, or -ERANGE when it is outside 0..CPUMASK_MAX-1. */
int cpumask_set(struct cpumask *m, int cpu);
bool cpumask_has(const struct cpumask *m, int cpu);
size_t cpumask_count(const struct cpumask *m);
bool cpumask_empty(const struct cpumask *m);
bool cpumask_equal(const struct cpumask *a, const struct cpumask *b);
bool cpumask_intersects(const struct cpumask *a, const struct cpumask *b);
/* dst = a & b; dst may be a or b. */
void cpumask_and(struct cpumask *dst, const struct cpumask *a,
		 const struct cpumask *b);
/* dst = a & ~b; dst may be a or b. */
void cpumask_andnot(struct cpumask *dst, const struct cpumask *a,
		    const struct cpumask *b);
/* The lowest CPU number in m, or -1 when m is empty. */
int cpumask_first(const struct cpumask *m);
/* The lowest CPU number above `cpu` in m, or -1. Iterate with
 * for (int cpu = cpumask_first(m); cpu >= 0; cpu = cpumask_next(m, cpu)). */
int cpumask_next(const struct cpumask *m, int cpu);

/*
 * Parses the kernel's cpu list form ("0-5,12-17", "3", "" for none; one
 * trailing newline allowed) into m. Returns 0, -EINVAL for a malformed
 * list ("a", "1,,2", "0-", "3-1", a sign, spaces), or -ERANGE for a CPU
 * number at or above CPUMASK_MAX (overflowing numbers included). m is
 * cleared first and left empty on failure.
 */
int cpumask_parse(struct cpumask *m, const char *s, char **cause);

/*
 * The compact list form of m ("0-5,12-17"; "" when empty), malloc'd; the
 * caller frees it. Returns NULL with errno ENOMEM on allocation failure.
 */
char *cpumask_format(const struct cpumask *m);

#endif
