/*
 * mission: the map from prof's six mission counters to the event that
 * means each of them on a processor family.
 *
 * The names are stable across machines: llc-misses, itlb-misses,
 * l1i-misses, branch-misses, cycles and instructions. What stands behind
 * them is not: perf's generic cache events mean different things per CPU
 * (on AMD family 17h and later the kernel has no LLC entry at all), so each
 * family that libpfm4 detects gets its own table, chosen from perf's
 * per-model event tables (tools/perf/pmu-events/arch/...) and the vendor's
 * manual, and each entry says where it came from. Where a family has no
 * exact per-thread event, the entry is the closest honest proxy and its
 * text says what it is.
 *
 * The map is data: one table per family in mission.c, nothing else here
 * knows an event code. It needs no libpfm4; events.c looks the detected PMU
 * up in it (events_mission_family) and encodes the entry.
 *
 * Families the installed libpfm4 cannot name (it is 4.13 on Debian 12:
 * no Zen 5, no Alder Lake core types, no Arm cores on x86) are "raw"
 * families: each entry carries its perf_event_attr.config for
 * PERF_TYPE_RAW, and the family is found from the CPU's identity
 * (collectors/cpuid.h, mission_family_for_cpu), not from a libpfm4 PMU.
 * events.c takes that path only when libpfm4 detects no PMU of the map.
 * A hybrid Intel part has two tables, one per core type; which one a
 * counter needs depends on the sysfs PMU it is opened on (sysfs_pmu).
 *
 * Everything returned is static and read-only: borrow it, never free it.
 * Thread-safe.
 */
#ifndef COLLECTORS_MISSION_H
#define COLLECTORS_MISSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/cpuid.h"

/* How many mission counters there are; mission_names lists them. */
#define MISSION_COUNT 6

/* llc-misses, itlb-misses, l1i-misses, branch-misses, cycles,
 * instructions, then NULL: the order every family table follows. */
extern const char *const mission_names[MISSION_COUNT + 1];

struct mission_event {
	const char *name;	/* prof's name: "llc-misses" */
	/* The event as libpfm4 takes it, without the "pmu::" prefix (the
	 * family's own PMU name goes in front); for the generic family a
	 * fully qualified perf-style name ("perf::LLC-load-misses"); for a
	 * raw family perf's raw syntax for `raw` ("r412e"). */
	const char *event;
	const char *perf_name;	/* as perf's table names it */
	const char *summary;	/* what it stands for, a few words */
	const char *counts;	/* what it counts, and what it leaves out */
	const char *source;	/* where the choice and its encoding come from */
	/* Generic family only: perf's generic event is no honest stand-in
	 * on every machine, so it is used only when asked (--allow-generic). */
	bool needs_consent;
	/* Raw families only: perf_event_attr.config with PERF_TYPE_RAW.
	 * x86 Intel: UMask << 8 | EventCode; AMD: the same with
	 * EventCode[11:8] in bits 35:32; arm64: the PMUv3 event number. */
	uint64_t raw;
};

struct mission_family {
	const char *label;		/* "AMD Zen 4" */
	const char *const *pmus;	/* libpfm4 PMU names, NULL-terminated;
					   NULL for the generic family and
					   for raw families */
	const struct mission_event *events;	/* MISSION_COUNT entries,
						   in mission_names order */
	/* Raw families: the entries' `raw` configs are what gets opened,
	 * libpfm4 does not take part. */
	bool raw;
	/* Raw families: a short name ("zen5", "adl-glc"), which
	 * tests/fixtures/mission/perf-tables.txt calls [cpuid:NAME]. */
	const char *name;
	/* Raw families: the sysfs PMU (/sys/bus/event_source/devices/) the
	 * configs are for on a hybrid part, "cpu_core" or "cpu_atom"; NULL
	 * where the CPU has one core PMU, the one PERF_TYPE_RAW reaches. */
	const char *sysfs_pmu;
};

/* The index of name in mission_names, or -1 when it is no mission name.
 * Exact match: modifiers (":u") are the caller's to strip. */
int mission_index(const char *name);

/* The family whose table covers libpfm4 PMU `pmu`, or NULL. */
const struct mission_family *mission_family_for_pmu(const char *pmu);

/*
 * The raw family of the CPU `id` describes, for counters opened on sysfs
 * PMU `pmu`, or NULL when the map has none for it. pmu NULL means the
 * PMU PERF_TYPE_RAW reaches: the only core PMU, or on a hybrid Intel part
 * cpu_core (the P-cores); "cpu_core" and "cpu_atom" name a core type of a
 * hybrid part and get NULL on a CPU that has no such PMU; "cpu" (x86) and
 * "armv8_..." (arm64) name the one core PMU of a CPU that is not hybrid;
 * any other PMU gets NULL. Matched as
 * perf's mapfile.csv matches: x86 vendor, family and model; arm64 MIDR
 * implementer and part. Families libpfm4 4.13 names are not matched here:
 * they keep the libpfm4 path.
 */
const struct mission_family *mission_family_for_cpu(const struct cpuid *id,
						    const char *pmu);

/* perf's generic events, the stand-in on a family without a table. */
const struct mission_family *mission_generic(void);

/* The families with a table, in order, those libpfm4 names first, then
 * the raw ones; NULL past the last. */
const struct mission_family *mission_family_at(size_t i);

/* The family's entry for name, or NULL when name is no mission name. */
const struct mission_event *mission_event_of(const struct mission_family *f,
					     const char *name);

#endif
