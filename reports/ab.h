/*
 * ab (reports): the tables of an A/B experiment: per metric, each arm's
 * summary and, against the baseline, delta% with its 95% CI, p and the
 * verdict; also two single runs side by side and the list of stored
 * experiments. The analysis itself (which runs count, how rounds pair,
 * the statistics) is reports/abstat.h, included here so a verb needs only
 * this header. Caller-owned structs; not thread-safe.
 */
#ifndef REPORTS_AB_H
#define REPORTS_AB_H

#include <stdio.h>

#include "db/experiments.h"
#include "db/runs.h"
#include "reports/abstat.h"
#include "reports/output.h"

/* Tables per metric (terminal), one table (Markdown), CSV, JSON. */
void ab_render(const struct ab_analysis *a, enum out_format fmt, FILE *fp);

/* True when the analysis holds errors (an arm with no counted run): the
 * caller exits 1. Formats without room for them in their output (CSV,
 * SVG) get them said on stderr here; the others carry them already. */
bool ab_errors_said(const struct ab_analysis *a, enum out_format fmt);

/* Two single runs side by side with delta%: no statistics. */
void ab_render_runs(const struct db_run *a, const struct db_run *b,
		    enum out_format fmt, FILE *fp);

/* The experiment per thread name (--by name): per counter, each name's
 * arms with their own CI and verdict. */
void ab_render_by_name(const struct ab_by_name *g, enum out_format fmt, FILE *fp);

/* Two sets of runs collected apart, unpaired (prof compare --set). */
void ab_render_sets(const struct ab_sets *s, enum out_format fmt, FILE *fp);

/* The experiments stored, for `prof compare` with no argument. */
void ab_render_list(const struct db_experiment_summary *v, size_t n,
		    enum out_format fmt, FILE *fp);

#endif
