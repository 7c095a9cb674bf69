/*
 * pmus: the kernel's PMUs as /sys/bus/event_source/devices lists them,
 * and which of them count the CPU's own events (the core PMUs). Each
 * directory there is one PMU: `type` is the number perf_event_attr.type
 * takes for it, `cpus` (core PMUs of hybrid x86 and of arm64) or
 * `cpumask` (uncore, power) the CPUs it serves, and `caps/` what it can
 * do (caps/pmu_name "alderlake_hybrid", caps/branches "32").
 *
 * A core PMU is "cpu" (x86, one kind of core), "cpu_core", "cpu_atom"
 * and "cpu_lowpower" (Intel hybrid: one per kind of core, each with its
 * own `cpus`), "armv7_*" and "armv8_*" (arm: "armv8_pmuv3_0" in a VM or on
 * a server, one per cluster on big.LITTLE, "armv8_cortex_a53" and
 * "armv8_cortex_a72"), or any other PMU whose directory has a `cpus` file
 * and a cycles event (events/cpu_cycles, cpu-cycles or cycles). software,
 * tracepoint, breakpoint, kprobe, uprobe, msr, power and the uncore PMUs
 * are never core PMUs.
 *
 * On a machine with more than one core PMU (hybrid), a hardware or cache
 * event counts on one kind of core only: it is opened once per core PMU,
 * each time on that PMU's CPUs with attr.config carrying the PMU's type
 * in bits 63..32 (PERF_PMU_TYPE_SHIFT; pmu_hw_config()).
 *
 * Read below a root directory so that tests can point it at fixture
 * trees ("/" normally). The list is owned by its caller (pmus_release).
 * Thread-safe. This machine's PMUs (root NULL or "/") are read once a
 * process and each caller is given a copy: a run asked for them three
 * times, and a server's uncore PMUs number in the hundreds, each some
 * ten files.
 */
#ifndef COLLECTORS_PMUS_H
#define COLLECTORS_PMUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/cpumask.h"

struct pmu_cap {
	char *name, *value;	/* caps/NAME and its first line */
};

struct pmu {
	char *name;		/* the directory's name: "cpu_core" */
	uint32_t type;		/* perf_event_attr.type for it */
	bool core;		/* counts the CPU's own events */
	bool has_cpus;		/* a `cpus` or `cpumask` file was read */
	struct cpumask cpus;	/* the CPUs it serves, when has_cpus */
	struct pmu_cap *caps;	/* caps/, by name */
	size_t ncaps;
};

/* Every PMU found, core PMUs first, each part ordered by type. */
struct pmu_list {
	struct pmu *pmus;
	size_t n;
	size_t ncore;		/* pmus[0..ncore) are the core PMUs */
};

/*
 * Reads root/sys/bus/event_source/devices into l (root NULL or "" is
 * "/"). A PMU directory without a readable `type` is left out. Returns 0;
 * -ENOENT (or the error of opening it) when the directory cannot be
 * read, with l empty and *cause saying so; -ENOMEM. cause may be NULL.
 */
int pmus_read(struct pmu_list *l, const char *root, char **cause);
void pmus_release(struct pmu_list *l);	/* NULL is fine */

/* The PMU named name, or NULL. */
const struct pmu *pmus_find(const struct pmu_list *l, const char *name);
/* The value of caps/name, or NULL. */
const char *pmu_cap(const struct pmu *p, const char *name);

/*
 * Whether a PMU of this name and directory contents is a core PMU, by
 * the rules above: has_cpus_file and has_cycles say whether the
 * directory has `cpus` and a cycles event.
 */
bool pmu_is_core(const char *name, bool has_cpus_file, bool has_cycles);

/*
 * attr.config of a PERF_TYPE_HARDWARE or PERF_TYPE_HW_CACHE event aimed
 * at the core PMU of type pmu_type: the event id in bits 31..0, the type
 * above. Kernels without extended types (or a PMU without the
 * capability, such as arm64 before Linux 6.6) refuse it with ENOENT.
 */
uint64_t pmu_hw_config(uint32_t pmu_type, uint64_t config);

/*
 * Whether this kernel takes a PMU type in attr.config (pmu_hw_config) for
 * the first core PMU of l, as perf asks it: a disabled, user-only cycles
 * counter of this process, opened and closed at once. false only where
 * the kernel refuses that (ENOENT, EOPNOTSUPP, EINVAL: arm64 before Linux
 * 6.6); true when it takes it, when l has no core PMU, and when the open
 * fails for another reason (a permission refusal is the events' own to
 * report). The one function here that makes a system call.
 */
bool pmus_extended_type(const struct pmu_list *l);

/*
 * For people, one line: the core PMUs, "cpu_core (type 4, cpus 0-15),
 * cpu_atom (type 10, cpus 16-23)", or, when there is none, "no core PMU
 * in /sys/bus/event_source/devices (only breakpoint, software,
 * tracepoint)". malloc'd; NULL when memory runs out.
 */
char *pmus_describe(const struct pmu_list *l);

/*
 * The hint for a hardware event that cannot be opened, from the PMUs of
 * root ("/" normally): NULL when there is a core PMU (the refusal is
 * about the event), else "hint: no core PMU in ...: this looks like a VM
 * without counter passthrough; software events still work". malloc'd.
 */
char *pmus_open_hint(const char *root);

#endif
