/*
 * timelineplot (reports): the picture of a run's intervals (prof run -I),
 * for `prof report --intervals --format svg` and its `prof html` page:
 * one panel per event read, its value per interval against the time
 * since the workload started, one curve per thread name (the threads of
 * a name summed).
 *
 * Reads a loaded struct db_run; writes to a caller-owned FILE through
 * reports/svg.h. No state.
 */
#ifndef REPORTS_TIMELINEPLOT_H
#define REPORTS_TIMELINEPLOT_H

#include <stdio.h>

#include "db/runs.h"

void report_intervals_svg(const struct db_run *run, FILE *fp);

#endif
