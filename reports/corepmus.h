/*
 * corepmus: what a run on more than one core PMU (Intel hybrid: cpu_core
 * and cpu_atom; arm big.LITTLE) counted on each, per thread: which core
 * type ran the thread (each PMU's share of its time running, from the
 * running time of its cycles, or of its first event counted per PMU) and
 * each hardware event's raw count per PMU. The thread's count in the
 * run's main report is these parts summed; a part is not scaled (it runs
 * only while the thread is on that PMU's CPUs, so enabled/running says
 * where the thread ran, not what multiplexing cost).
 *
 * Reads struct db_run as db/ loads it (ncore_pmus, threads' pmu_counts);
 * a run with fewer than two core PMUs has nothing here. Writes to a
 * caller-owned FILE. Not thread-safe (no shared state).
 */
#ifndef REPORTS_COREPMUS_H
#define REPORTS_COREPMUS_H

#include <stdio.h>

#include "db/runs.h"
#include "reports/output.h"
#include "reports/rows.h"

/* One row per (thread, core PMU): tid, thread, pmu, time_pct and the
 * counts by event (JSON: under "counts"). NULL when the run has fewer
 * than two core PMUs. */
struct rows *report_core_pmu_rows(const struct db_run *run);

/* For people (table, Markdown): a line saying what the section is, then
 * the rows. Nothing when the run has fewer than two core PMUs. */
void report_core_pmus(const struct db_run *run, enum out_format fmt, FILE *fp);

#endif
