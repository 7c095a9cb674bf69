/*
 * zerocount: a run's hardware counters that opened, ran on the PMU and
 * read 0 while its instructions (or cycles) counter moved. A PMU that
 * does not implement an event often accepts it anyway and never counts
 * it: QEMU's arm64 PMU opens every event and reads 0 for all but cycles
 * and instructions (shared/DESIGN.md), and a VM's virtual PMU may do the
 * same. Such a 0 says nothing about the workload, so a report must say
 * "counted 0: this PMU may not implement it", never show a plain 0.
 *
 * Decided from the run's totals alone. A hardware counter is a
 * supported event of a hardware group (group > 0) that is not a
 * software, tracepoint or breakpoint event; the reference is the first
 * hardware instructions counter whose total is above 0, else the first
 * cycles counter (perf's generic events, with or without a PMU type in
 * the config's upper bits, or the PMU's own: INST_RETIRED, CPU_CYCLES,
 * RETIRED_INSTRUCTIONS, ...). Software events that read 0 (major faults,
 * migrations) are normal and never flagged; a counter that never ran is
 * "not counted", not this. Pure functions; no state; out of memory ends
 * prof through common/xalloc.h, as in the rest of reports/.
 */
#ifndef REPORTS_ZEROCOUNT_H
#define REPORTS_ZEROCOUNT_H

#include <stdbool.h>
#include <stddef.h>

#include "db/runs.h"

struct counted_zero {
	const char *ref;	/* the reference event's name (borrowed); NULL: none */
	double ref_value;	/* what it counted, scaled */
	bool *zero;		/* per event of the run: counted 0 while ref moved */
	size_t n;		/* how many are */
};

/* Fills z for run; release with counted_zero_release. */
void run_counted_zero(const struct db_run *run, struct counted_zero *z);
void counted_zero_release(struct counted_zero *z);

/* Whether event e of run is an instructions or a cycles counter: 1 for
 * instructions, 2 for cycles, 0 for neither. */
int event_ref_kind(const struct db_event *e);

/*
 * For people: "counted 0 while instructions counted 6,000,000: this PMU
 * may not implement them: branch-misses, LLC-load-misses" ("it" for one
 * event), the names after item ("\n   " puts them on a line of their
 * own; NULL: " "). malloc'd; NULL when no event is flagged.
 */
char *counted_zero_text(const struct db_run *run, const struct counted_zero *z,
			const char *item);

/* The note a machine-readable report carries for one flagged event:
 * "counted 0 while instructions counted 6000000: this PMU may not
 * implement it". malloc'd. */
char *counted_zero_note(const struct counted_zero *z);

#endif
