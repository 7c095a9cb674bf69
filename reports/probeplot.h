/*
 * probeplot (reports): the picture of a `prof probe` run, for `prof probe
 * --format svg`, `prof report` of a stored one and its `prof html` page:
 * ns per step of the pointer chase against the working-set size, both on
 * log axes, with the cache sizes sysfs gave for the CPU as labelled
 * dashed lines (L1d, L2, LLC) and the knees reports/probe found in the
 * curve as marked points, named for the level they agree with.
 *
 * Reads the stored shape (db/probe.h); writes to a caller-owned FILE
 * through reports/svg.h. No state.
 */
#ifndef REPORTS_PROBEPLOT_H
#define REPORTS_PROBEPLOT_H

#include <stdio.h>

#include "db/probe.h"
#include "db/runs.h"

void report_probe_svg(const struct db_run *run, const struct db_probe *p, FILE *fp);

#endif
