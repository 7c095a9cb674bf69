/*
 * sleepplot (reports): the picture of a `prof sleep` benchmark, for
 * `prof sleep --format svg` and `prof report` of a stored one. One row
 * per duration: on the left each mode's overshoot distribution as a CDF
 * over a log axis of microseconds (from the stored min, percentiles and
 * max), with p50 and p99 marked; beside it each mode's CPU per call.
 *
 * Reads the stored shape (db/sleep.h); writes to a caller-owned FILE
 * through reports/svg.h. No state.
 */
#ifndef REPORTS_SLEEPPLOT_H
#define REPORTS_SLEEPPLOT_H

#include <stdio.h>

#include "db/runs.h"
#include "db/sleep.h"

void report_sleep_svg(const struct db_run *run, const struct db_sleep *s, FILE *fp);

#endif
