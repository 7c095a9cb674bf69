/*
 * pmuplan: which perf_event_attrs a run opens for its resolved events, per
 * core PMU, and which core PMU serves each CPU. A pure function of the
 * events (collectors/events.h), the PMUs sysfs lists (collectors/pmus.h)
 * and the CPU's identity (collectors/cpuid.h): no system call, so the
 * tests check what would reach the kernel on machines we do not have.
 *
 * On a machine with one core PMU, or none, every event is one attr, the
 * one events.c resolved, byte for byte. With more than one (Intel hybrid:
 * cpu_core and cpu_atom; arm big.LITTLE: armv8_cortex_a53 and
 * armv8_cortex_a72) an event counts only while its PMU's CPUs run the
 * task, so, as perf does:
 *   - a hardware or cache event (PERF_TYPE_HARDWARE, PERF_TYPE_HW_CACHE)
 *     is one attr per core PMU, the same event with the PMU's type in
 *     config bits 63..32 (the extended type, pmu_hw_config());
 *   - a raw event is one attr per core PMU where the mission map has a
 *     table for each (Alder Lake's cpu_core and cpu_atom), with
 *     attr.type the PMU's type and that table's config; else one attr,
 *     on the PMU it was resolved for (its family's sysfs_pmu, else the
 *     core PMU of the lowest-numbered CPU: the CPU the identity and
 *     libpfm4 describe, and on x86 the one PERF_TYPE_RAW reaches), with
 *     attr.type that PMU's type, and a note saying the other PMUs' time
 *     goes uncounted;
 *   - a software, tracepoint or other non-core event is one attr, as
 *     resolved.
 *
 * The plan is owned by its caller (pmu_plan_init/pmu_plan_release). Plain
 * data, no global state; thread-safe.
 */
#ifndef COLLECTORS_PMUPLAN_H
#define COLLECTORS_PMUPLAN_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/cpuid.h"
#include "collectors/cpumask.h"
#include "collectors/events.h"
#include "collectors/pmus.h"

/* A core PMU the plan splits events over (a copy: the plan outlives the
 * pmu_list it was made from). */
struct plan_pmu {
	char *name;		/* "cpu_core" */
	uint32_t type;
	bool has_cpus;		/* else it serves every CPU */
	struct cpumask cpus;
};

/* One attr to open: a part of event `event`. */
struct plan_attr {
	size_t event;		/* index into the events */
	/* Index into pmu_plan.pmus of the PMU it counts on, or -1: any CPU
	 * (a software event, a non-core PMU's, or a machine with at most
	 * one core PMU, where nothing is split). */
	int pmu;
	struct perf_event_attr attr;
};

struct pmu_plan {
	/* In event order; one event's parts are adjacent, in PMU order. */
	struct plan_attr *attrs;
	size_t nattrs;
	/* The core PMUs, in pmus_read's order (by type), when there are
	 * more than one; else none (npmus 0): nothing is split. */
	struct plan_pmu *pmus;
	size_t npmus;
	/* Per event: why it counts on fewer core PMUs than there are, for
	 * people ("'llc-misses' counts on cpu_core only ..."), or NULL. */
	char **notes;
	size_t nevents;
};

enum pmu_plan_flags {
	/* The kernel takes no PMU type in attr.config (arm64 before Linux
	 * 6.6; pmus_extended_type() says): a hardware or cache event is
	 * then one attr as resolved, counted on the core PMU the kernel
	 * picks, and its note says so. */
	PMU_PLAN_NO_EXTENDED = 1 << 0,
};

/*
 * The attrs for evs[0..n) on the machine pmus describes. id is the CPU's
 * identity (NULL when unknown: a raw event is then opened on one PMU);
 * flags from enum pmu_plan_flags. A refused event (event_desc.refused)
 * gets one attr, never opened. 0, or -ENOMEM with *cause set (cause may
 * be NULL) and p empty.
 */
int pmu_plan_init(struct pmu_plan *p, const struct event_desc *evs, size_t n,
		  const struct pmu_list *pmus, const struct cpuid *id,
		  unsigned flags, char **cause);
void pmu_plan_release(struct pmu_plan *p);	/* NULL is fine */

/* More than one core PMU: events are split (hybrid, big.LITTLE). */
bool pmu_plan_split(const struct pmu_plan *p);

/*
 * The index into p->pmus of the core PMU that serves CPU cpu, or -1 when
 * nothing is split or no PMU lists it (an offline CPU, a stale tree).
 */
int pmu_plan_cpu_pmu(const struct pmu_plan *p, int cpu);

/* Whether attr i is to be opened on CPU cpu (per-CPU counting): its PMU
 * serves that CPU, or it is not tied to one. */
bool pmu_plan_on_cpu(const struct pmu_plan *p, size_t i, int cpu);

/* The name of attr i's PMU, or NULL when it is not tied to one. */
const char *pmu_plan_pmu_name(const struct pmu_plan *p, size_t i);

#endif
