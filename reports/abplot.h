/*
 * abplot (reports): the picture of an A/B experiment, for `prof ab` and
 * `prof compare --format svg`. One row of two panels per metric: on the
 * left every counted round's value per arm, the rounds joined arm to arm
 * by a grey line (the pairing the statistics use) and each arm's median
 * as a bar; on the right each arm's effect against the baseline, delta%
 * with its 95% CI, over the metric's noise gate drawn as a band. Metrics
 * this machine could not count are named, not drawn.
 *
 * Reads a struct ab_analysis (reports/abstat.h); writes to a caller-owned
 * FILE through reports/svg.h. No state.
 */
#ifndef REPORTS_ABPLOT_H
#define REPORTS_ABPLOT_H

#include <stdio.h>

#include "reports/abstat.h"

void ab_render_svg(const struct ab_analysis *a, FILE *fp);

#endif
