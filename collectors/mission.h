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
 * Everything returned is static and read-only: borrow it, never free it.
 * Thread-safe.
 */
#ifndef COLLECTORS_MISSION_H
#define COLLECTORS_MISSION_H

#include <stdbool.h>
#include <stddef.h>

/* How many mission counters there are; mission_names lists them. */
#define MISSION_COUNT 6

/* llc-misses, itlb-misses, l1i-misses, branch-misses, cycles,
 * instructions, then NULL: the order every family table follows. */
extern const char *const mission_names[MISSION_COUNT + 1];

struct mission_event {
	const char *name;	/* prof's name: "llc-misses" */
	/* The event as libpfm4 takes it, without the "pmu::" prefix (the
	 * family's own PMU name goes in front); for the generic family a
	 * fully qualified perf-style name ("perf::LLC-load-misses"). */
	const char *event;
	const char *perf_name;	/* as perf's table names it */
	const char *summary;	/* what it stands for, a few words */
	const char *counts;	/* what it counts, and what it leaves out */
	const char *source;	/* where the choice and its encoding come from */
	/* Generic family only: perf's generic event is no honest stand-in
	 * on every machine, so it is used only when asked (--allow-generic). */
	bool needs_consent;
};

struct mission_family {
	const char *label;		/* "AMD Zen 4" */
	const char *const *pmus;	/* libpfm4 PMU names, NULL-terminated;
					   NULL for the generic family */
	const struct mission_event *events;	/* MISSION_COUNT entries,
						   in mission_names order */
};

/* The index of name in mission_names, or -1 when it is no mission name.
 * Exact match: modifiers (":u") are the caller's to strip. */
int mission_index(const char *name);

/* The family whose table covers libpfm4 PMU `pmu`, or NULL. */
const struct mission_family *mission_family_for_pmu(const char *pmu);

/* perf's generic events, the stand-in on a family without a table. */
const struct mission_family *mission_generic(void);

/* The families with a table, in order; NULL past the last. */
const struct mission_family *mission_family_at(size_t i);

/* The family's entry for name, or NULL when name is no mission name. */
const struct mission_event *mission_event_of(const struct mission_family *f,
					     const char *name);

#endif
