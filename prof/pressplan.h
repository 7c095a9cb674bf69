/*
 * pressplan: what `prof pressure` will do, decided before its first run:
 * the steps (how much of the cache domain to take away), the domain, the
 * workload's CPU and the co-runner's, and the control co-runner's buffer.
 * Planning only: it reads a struct topo and makes no system call, so every
 * refusal comes before anything runs and the tests drive it with fixture
 * sysfs trees.
 *
 * The rules:
 *  - steps are fractions of the domain (1/8), percentages (25%) or sizes
 *    (4M, 4MiB, 512K, 1G, plain bytes), at most the domain's size: the
 *    co-runner's memory is bounded by the domain. Sorted, each once.
 *    Default: 0, 1/8, 1/4, 1/2 and 3/4 of the domain. Step 0 takes
 *    nothing: it is a second control, so the experiment measures its own
 *    A/A noise.
 *  - the workload runs on one CPU of the domain, the co-runner on another,
 *    never an SMT sibling of the workload's CPU (siblings share the core's
 *    L1 and L2, so the co-runner would take those too), and preferably one
 *    with an L2 of its own, so the control co-runner (walking half of its
 *    L2) contends for nothing the workload uses.
 *  - a domain without such a second CPU is refused, naming what is
 *    missing: a shared last-level cache, a second usable CPU, or one that
 *    is not a sibling.
 * Caller-owned structs; not thread-safe (no global state, though).
 */
#ifndef PROF_PRESSPLAN_H
#define PROF_PRESSPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/topology.h"

#define PRESS_STEPS_MAX 32

struct press_steps {
	uint64_t bytes[PRESS_STEPS_MAX];
	size_t n;
};

/*
 * Parse --steps LIST against a domain of domain_bytes. -EINVAL with a
 * cause for a word that is none of the forms, -ERANGE for a step above
 * the domain's size, more than PRESS_STEPS_MAX steps, or none but 0.
 * Sizes are rounded down to a cache line.
 */
int press_steps_parse(const char *spec, uint64_t domain_bytes,
		      struct press_steps *out, char **cause);

/* 0, 1/8, 1/4, 1/2, 3/4 of the domain, rounded down to a cache line. */
void press_steps_default(uint64_t domain_bytes, struct press_steps *out);

/* A step's name, "0", "4MiB", "1.5MiB", "640KiB", for arm names. */
void press_step_label(uint64_t bytes, char *buf, size_t len);

struct press_cpus {
	const struct cache_domain *domain;	/* borrowed from the topo */
	int workload_cpu;
	int corunner_cpu;		/* -1 when no co-runner is needed */
	uint64_t corunner_l2_bytes;	/* its L2 (0: unknown) */
	bool l2_shared;			/* the two CPUs share an L2 */
	bool smt_unknown;		/* the topology says nothing of SMT */
};

/*
 * Choose the domain and the CPUs. domain_spec: NULL for the largest
 * shared last-level domain, else "llc:N". cpus_spec: NULL to choose, else
 * "W,P" (workload CPU, co-runner CPU; with need_corunner false, "W").
 * allowed: the CPUs prof may use (its affinity), NULL for every online
 * one. Returns 0, or with a cause: -EINVAL for a malformed spec, -ERANGE
 * for an index out of range, -ENODEV when the machine has no domain with
 * the CPUs needed (the cause names what is missing), -ENODATA when the
 * topology it needs is unreadable.
 */
int press_pick(const struct topo *t, const char *domain_spec, const char *cpus_spec,
	       const struct cpumask *allowed, bool need_corunner,
	       struct press_cpus *out, char **cause);

/*
 * The control co-runner's buffer: half of its L2, so it stays there and
 * takes nothing of the shared cache; 256 KiB when the L2 is unknown; at
 * least 16 KiB; a multiple of 4 KiB.
 */
uint64_t press_control_bytes(uint64_t l2_bytes);

/*
 * The buffer the calibration treats as all hits: twice the L2, so it
 * lives in the last level, but no more than a quarter of the domain;
 * 1 MiB when the L2 is unknown.
 */
uint64_t press_hit_bytes(uint64_t l2_bytes, uint64_t domain_bytes);

#endif
