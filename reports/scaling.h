/*
 * scaling: which of a run's values are estimates. A hardware group that
 * shared the PMU with others was counted only part of the time it was
 * enabled (multiplexed); its value is the count scaled up by time enabled
 * / time running, and a group that never got the PMU was not counted at
 * all. These functions find such events in a stored run, so that a report
 * can say so in words and `--no-multiplex` can refuse the run.
 *
 * An event is "counted all of the time" when its total and every thread's
 * count have time_running equal to time_enabled; an event the machine
 * does not support, or with nothing counted (no time enabled), is neither.
 * Software events are never multiplexed. Pure functions; no state.
 */
#ifndef REPORTS_SCALING_H
#define REPORTS_SCALING_H

#include <stddef.h>

#include "db/runs.h"

struct scaled_event {
	const char *name;	/* borrowed from the run */
	size_t idx;		/* into run->events */
	/* The least share of its enabled time it was counted, over the
	 * total and every thread, in percent: below 100; 0 when a count of
	 * it never ran at all. */
	double running_pct;
};

/*
 * The run's events not counted all of the time, in event order: *out is
 * malloc'd (NULL when none); returns how many.
 */
size_t run_scaled_events(const struct db_run *run, struct scaled_event **out);

enum scaled_which {
	SCALED_PART = 1 << 0,	/* counted part of the time: scaled */
	SCALED_NEVER = 1 << 1,	/* never counted */
	SCALED_ANY = SCALED_PART | SCALED_NEVER,
};

/*
 * The same for people, one line: "cycles (counted 50% of the time),
 * branch-misses (never counted)", of the kinds asked for; with only
 * SCALED_NEVER, the bare names. malloc'd; NULL when there is none.
 */
char *run_scaled_text(const struct db_run *run, enum scaled_which which);

#endif
