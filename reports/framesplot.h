/*
 * framesplot (reports): the picture of a run's frames, for `prof report
 * --frames --format svg` and its `prof html` page: each frame's time
 * against its index, the budget as a dashed line and the frames over it
 * marked; then one panel per counter, its value per frame for each
 * thread name. More frames than reports/buckets.h's BUCKETS_MAX are
 * drawn in that many spans (mean, least to largest), so the picture's
 * size does not grow with the frames.
 *
 * Reads a loaded struct db_run (reports/frames.h does the arithmetic);
 * writes to a caller-owned FILE through reports/svg.h. No state.
 */
#ifndef REPORTS_FRAMESPLOT_H
#define REPORTS_FRAMESPLOT_H

#include <stdio.h>

#include "db/runs.h"

void report_frames_svg(const struct db_run *run, FILE *fp);

#endif
