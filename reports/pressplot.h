/*
 * pressplot (reports): the picture of a `prof pressure` experiment, for
 * `prof pressure --format svg`, `prof compare` of a stored one and its
 * `prof html` page. One panel per workload: the metric's change against
 * the control (delta%, paired round by round) with its 95% CI at each
 * step, against the cache the step took (what the co-runner walked; with
 * --method cat, the ways withheld), in KiB or MiB; the domain's size as a
 * dashed line; the workload's gate as a grey band around 0; where the
 * co-runner held clearly less than it walked, what it held, joined to
 * the step; the curve's verdict in the panel's title and its sentence
 * under it.
 *
 * Reads a struct press_analysis (reports/pressure.h); writes to a
 * caller-owned FILE through reports/svg.h. No state.
 */
#ifndef REPORTS_PRESSPLOT_H
#define REPORTS_PRESSPLOT_H

#include <stdio.h>

#include "reports/pressure.h"

void press_render_svg(const struct press_analysis *a, FILE *fp);

#endif
