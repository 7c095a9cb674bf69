/*
 * summary (reports): `prof summary`, several experiments that share arms
 * (one per scene, say) read together. Per experiment: one arm against
 * the baseline on each metric, as ab_analyze judged it (its own gates).
 * Across them, per metric: how many scenes came out better, worse,
 * equivalent or inconclusive ("12 of 12 scenes better"); the geometric
 * mean effect with a 95% CI that treats each scene as one unit
 * (Student's t on the per-scene mean log-ratios, so a scene with many
 * rounds weighs no more than one with few); and a two-sided sign test
 * on the directions of the per-scene effects. The verdict across scenes
 * follows prof ab's rules with the sign test's p: better or worse needs
 * the CI to exclude 0, the effect to clear the gate and p < 0.05, which
 * takes 6 scenes or more.
 *
 * Caller-owned structs; the analyses are borrowed and must outlive the
 * summary. Not thread-safe.
 */
#ifndef REPORTS_SUMMARY_H
#define REPORTS_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "reports/abstat.h"
#include "reports/output.h"

struct summary_metric {
	char *name;
	char *unit;
	bool higher_is_better;
	size_t *midx;		/* per experiment: its index in that analysis */
	size_t nscenes;		/* experiments with a computable comparison */
	size_t n_better, n_worse, n_equivalent, n_inconclusive;
	bool computable;	/* nscenes >= 1 */
	struct stats_paired across;	/* over scenes; p_value is the sign test's */
	double sign_p, sign_p_min;
	size_t n_up, n_down;	/* scenes whose effect rose, fell */
	struct stats_judgement j;
};

struct summary {
	const struct ab_analysis *an;	/* borrowed, nexp of them */
	size_t nexp;
	size_t *arm;		/* per experiment: the compared arm's index */
	char *arm_name, *baseline_name;
	double gate_pct;
	char *gate_source;
	size_t nmetrics;
	struct summary_metric *metrics;
};

/*
 * Build the summary of an[0..n-1] for arm `arm` (NULL: the second arm of
 * the first experiment) against each experiment's baseline. The
 * experiments must all have an arm of that name and the same baseline
 * name; metrics are those every experiment has. gate_pct NAN: 1%.
 * 0, or -EINVAL with *cause (caller frees).
 */
int summary_build(const struct ab_analysis *an, size_t n, const char *arm,
		  double gate_pct, struct summary *out, char **cause);
void summary_release(struct summary *s);

/*
 * Write it: the table across scenes, then one table per scene for each
 * metric named in detail[0..ndetail-1] (NULL: wall_s and every score).
 */
void summary_render(const struct summary *s, const char *const *detail,
		    size_t ndetail, enum out_format fmt, FILE *fp);

#endif
