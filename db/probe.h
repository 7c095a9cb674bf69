/*
 * probe (db): the stored shape of a `prof probe` run. The run itself is an
 * ordinary row of `runs` (kind "probe": host, start, wall and CPU time, the
 * CPU it was pinned to, the command line); what it measured goes beside
 * it: the cache sizes sysfs gave for that CPU (what the curve is compared
 * with), one point per size of the latency curve (with the spread of its
 * repetitions), and one row per counted benchmark. Knees are not
 * stored: reports/probe finds them in the curve, the same way for a fresh
 * run and a stored one.
 *
 * db_probe_store writes the run and its rows in one transaction. A loaded
 * struct db_probe is caller-owned and released with db_probe_release.
 * Not thread-safe.
 */
#ifndef DB_PROBE_H
#define DB_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "db/runs.h"

struct db_probe_point {
	uint64_t bytes;
	double ns;		/* per step: the repetitions' median */
	uint64_t steps;		/* timed */
	uint64_t huge_bytes;	/* of bytes, on huge pages */
	/* The repetitions' spread (least, quartiles, greatest) and how many
	 * there were. A probe stored before prof repeated sizes loads with
	 * reps 1 and all four equal to ns; so does a point stored with
	 * reps 0 (stored without a spread, as a size measured once). */
	double ns_min, ns_q1, ns_q3, ns_max;
	unsigned reps;
};

struct db_probe_counter {
	char *name;		/* the mission name: "llc-misses" */
	char *event;		/* what stood for it, or NULL (did not resolve) */
	char *bench;		/* what ran, for people */
	bool ran;		/* the benchmark ran */
	double expected;	/* by construction; 0 when it did not run */
	bool opened;		/* the counter opened: the three below are read */
	uint64_t value, enabled, running;
	char *grade;		/* "plausible", "implausible", "not supported",
				   "multiplexed", "not run" */
	char *reason;		/* why not supported or not run, or NULL */
};

struct db_probe {
	int cpu;			/* the CPU it ran on; -1 unknown */
	/* sysfs's caches of that CPU, 0 where unknown. */
	uint64_t l1d_bytes, l1i_bytes, l2_bytes, llc_bytes;
	int llc_level;			/* 0 unknown */
	double ms_per_size;
	uint64_t seed;
	char *family;			/* the mission map's family, or NULL */
	struct db_probe_point *points;	/* by size; owned */
	size_t npoints;
	struct db_probe_counter *counters;	/* mission order; owned */
	size_t ncounters;
};

/*
 * Store run (its kind should be "probe") and p in one transaction; sets
 * run->id. 0 or a negative code with *cause; on failure nothing is stored.
 */
int db_probe_store(struct db *db, struct db_run *run, const struct db_probe *p,
		   char **cause);

/*
 * Load the probe of run run_id into out (caller-owned; release with
 * db_probe_release, also after a failure). -ENOENT with *cause when the
 * run holds no probe.
 */
int db_probe_load(struct db *db, int64_t run_id, struct db_probe *out,
		  char **cause);
void db_probe_release(struct db_probe *p);

#endif
