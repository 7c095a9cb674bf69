/*
 * sleep (db): the stored shape of a `prof sleep` run. The run itself is an
 * ordinary row of `runs` (kind "sleep": host, start, wall and CPU time,
 * pin, command line); what the timer benchmark measured goes beside it:
 * one struct db_sleep with the facts that explain the numbers (timer
 * slack, scheduling policy, clocksource, pattern, threads, load, hybrid
 * margin) and one struct db_sleep_cell per (mode, duration), in the order
 * they ran. reports/sleep renders these structs; prof/ fills them from the
 * benchmark's own structs, so nothing here knows the collector.
 *
 * Overshoots are kept in integer nanoseconds, as measured; reports convert
 * to microseconds. db_sleep_store writes the run and its cells in one
 * transaction. A loaded struct db_sleep is caller-owned and released with
 * db_sleep_release. Not thread-safe.
 */
#ifndef DB_SLEEP_H
#define DB_SLEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "db/runs.h"

/* Overshoot buckets, in the order of shared/DESIGN.md's `buckets`:
 * under 3, 10, 25, 50 us, and 50 us or more (exclusive ranges). */
enum db_sleep_bucket {
	DB_SLEEP_LT3,
	DB_SLEEP_LT10,
	DB_SLEEP_LT25,
	DB_SLEEP_LT50,
	DB_SLEEP_GE50,
	DB_SLEEP_NBUCKETS
};

struct db_sleep_cell {
	char mode[16];		/* "nanosleep", "clock-abs", "hybrid", ... */
	int64_t margin_ns;	/* hybrid: the margin used; -1 for other modes */
	uint32_t target_us;
	uint64_t calls;		/* all sleeping threads together */
	/* overshoot beyond the target (negative: woke early) */
	int64_t p50_ns, p90_ns, p99_ns, p999_ns, max_ns, min_ns;
	double mean_ns;
	uint64_t early;		/* calls that woke before the target */
	uint64_t buckets[DB_SLEEP_NBUCKETS];
	uint64_t missed;	/* periodic: deadlines skipped when late */
	double wall_s, cpu_s;
	double cpu_pct;		/* of wall time; N threads: up to N*100 */
	double cpu_us_per_call;
	/* cpu_us_per_call split into user and system time; NaN for runs
	 * stored before v16 */
	double user_us_per_call, sys_us_per_call;
	double vcsw_per_call, ivcsw_per_call;	/* context switches per call */
	bool cheapest;		/* the least CPU per call of its duration
				 * among cells with p99 under cheap_p99_us */
};

struct db_sleep {
	uint64_t timer_slack_ns;	/* of the benchmarking process */
	char sched_policy[16];		/* "SCHED_OTHER", ... */
	char clocksource[32];		/* "" when unknown */
	char pattern[16];		/* "oneshot" or "periodic" */
	uint32_t calls;			/* per thread per cell */
	uint32_t threads;		/* sleeping at once */
	uint32_t load;			/* background busy threads */
	int64_t hybrid_margin_ns;	/* -1 when no hybrid cell ran */
	bool hybrid_calibrated;
	int64_t calibration_p999_ns;	/* timerfd p99.9 the margin came from */
	int64_t calibration_guard_ns;	/* added to it */
	double cheap_p99_us;		/* the `cheapest` rule's p99 limit */
	struct db_sleep_cell *cells;	/* mode-major, as they ran; owned */
	size_t ncells;
};

/*
 * Store run (its kind should be "sleep") and s in one transaction; sets
 * run->id. 0 or a negative code with *cause; on failure nothing is stored.
 */
int db_sleep_store(struct db *db, struct db_run *run, const struct db_sleep *s,
		   char **cause);

/*
 * Load the benchmark of run run_id into out (caller-owned; release with
 * db_sleep_release, also after a failure). -ENOENT with *cause when the
 * run holds no sleep benchmark.
 */
int db_sleep_load(struct db *db, int64_t run_id, struct db_sleep *out,
		  char **cause);
void db_sleep_release(struct db_sleep *s);

/*
 * What the sleep interposer of `prof run --sleep-mode` saw: the settings
 * it applied (or why it did not), and per thread how many sleeps it
 * served and passed through, the requested durations (log2 buckets in
 * us, "count@bucket" text), and the overshoot it achieved. Stored with the
 * run (db_run.sleep_usage) in the run's transaction.
 */
struct db_sleep_thread {
	int32_t tid;		/* 0: the threads past the interposer's table */
	uint32_t pid;
	char *name;
	uint64_t served, passed, eintr, early, throttled;
	uint64_t fallback;	/* served by clock_nanosleep, not a timerfd */
	int fallback_errno;	/* why the timerfd failed (last one) */
	uint64_t fallback_max_ns;
	double fallback_mean_ns;
	/* the mode's own overshoot: fallback calls excluded */
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
	double mean_ns;
	char *req_hist;		/* "1:12 5:2000" = bucket:count, bucket k
				   holding [2^(k-1), 2^k) us */
	/*
	 * Condvar timed waits, apart from the sleeps above (v18; 0 for runs
	 * stored before): served and passed as for sleeps; of the served,
	 * woken (returned 0) and timed out (ETIMEDOUT), early the timed out
	 * before their deadline; the overshoot of the timed-out ones.
	 */
	uint64_t cv_served, cv_passed, cv_woken, cv_timedout, cv_early;
	uint64_t cv_p50_ns, cv_p90_ns, cv_p99_ns, cv_p999_ns, cv_max_ns;
	double cv_mean_ns;
};

struct db_sleep_usage {
	char *mode;		/* as applied: "timerfd", "hybrid:20", ... */
	uint64_t threshold_us;
	uint32_t max_spinners;	/* 0: no limit */
	bool spinners_default;	/* the default cap: a quarter of ncpus */
	uint32_t ncpus;		/* CPUs the workload may use; 0 unknown */
	char *status;		/* "applied", or "not applied: why" */
	uint32_t processes;	/* that loaded the interposer */
	char *error;		/* a configuration error it reported */
	/* how short condvar waits were served ("timer slack 1 ns", "the
	 * real function"); NULL for runs stored before v18, whose
	 * interposer left condvar waits alone */
	char *cv_served_by;
	struct db_sleep_thread *threads;
	size_t nthreads;
};

void db_sleep_usage_free(struct db_sleep_usage *u);

#endif
