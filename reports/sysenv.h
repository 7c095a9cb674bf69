/*
 * sysenv: the reports of what the whole machine did during a run (its
 * counters' deltas, `prof report --system`) and how it was set up at the
 * start (`prof report --env`), the `system` and `env` objects of a run's
 * JSON, and the differences in setup between two runs that `prof compare`
 * and `prof explain` warn about.
 *
 * Reads struct db_run as db/ loads it; writes to caller-owned FILEs.
 * Not thread-safe (no shared state).
 */
#ifndef REPORTS_SYSENV_H
#define REPORTS_SYSENV_H

#include <stddef.h>
#include <stdio.h>

#include "db/runs.h"
#include "reports/output.h"
#include "reports/rows.h"

/* The run's JSON objects: name to delta, key to value; NULL when the
 * run has none (stored before prof kept them). */
struct rows *report_system_map(const struct db_run *run);
struct rows *report_env_map(const struct db_run *run);

/* n key-value pairs as one JSON object, keys in their order; NULL when
 * n is 0. */
struct rows *report_kv_map(const struct db_kv *kv, size_t n);

/*
 * --system: the deltas people look at first, next to the workload's own
 * share where it has one: page faults (the machine's and, with a
 * page-faults event, the workload's), major faults, page migrations,
 * context switches and forks, CPU time (user, system, irq, softirq,
 * steal) of all CPUs, interrupts on the workload's CPUs (its pin's, else
 * all) and on all, and scheduler wait where the kernel keeps schedstats.
 * JSON: run_id, highlights (a list of {metric, source, delta, workload})
 * and system (every delta).
 */
void report_system(const struct db_run *run, enum out_format fmt, FILE *fp);

/* --env: one line per setting; JSON run_id and env. */
void report_env(const struct db_run *run, enum out_format fmt, FILE *fp);

/*
 * How the machine's setup differed between runs a and b: one malloc'd
 * line per setting ("thp: 'always' in run 1, 'never' in run 2"), a
 * setting one run has and the other lacks included. The load average is
 * a reading, not a setting: it counts only when one run started on an
 * idle machine (1-minute load under half the CPUs) and the other on a
 * busy one (at least one per CPU). Nothing when either run has no
 * settings stored. Returns the number of lines; *out is the caller's
 * (free each line and the array).
 */
size_t report_env_diff(const struct db_run *a, const struct db_run *b,
		       char ***out);

#endif
