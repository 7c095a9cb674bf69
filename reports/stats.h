/*
 * stats: the statistics of `prof ab`, an interleaved A/B experiment. Pure
 * arithmetic on arrays of doubles: no I/O, no SQL, no allocation that
 * outlives a call.
 *
 * An experiment runs the baseline and each arm once per round, in an order
 * that alternates between rounds. For one metric, round r gives a baseline
 * value A_r and an arm value B_r (both > 0: times, counts, scores). The
 * comparison works on the paired log-ratios d_r = ln(B_r / A_r):
 *   - effect       delta% = 100 * (exp(mean d) - 1), a geometric-mean ratio;
 *   - 95% / 90% CI Student's t on the d_r, mean d +- t * sd/sqrt(n), mapped
 *                  through 100 * (exp(x) - 1), so it is asymmetric in %;
 *   - p-value      the two-sided sign-flip permutation test on the d_r
 *                  (exact up to STATS_SIGNFLIP_EXACT_MAX rounds, seeded
 *                  Monte Carlo beyond), with the smallest p the design can
 *                  reach, so that "p = 0.125 at 4 rounds" is not read as
 *                  "no change";
 *   - verdict      better / worse / equivalent / inconclusive against a
 *                  noise gate of +-gate% that the caller supplies (see
 *                  stats_judge for the rules and stats_aa_gate for a gate
 *                  measured in an A/A experiment).
 * Two design checks go with it: the position effect (does the second slot
 * of a round read higher than the first, whichever arm ran there?) and the
 * baseline's drift across rounds; stats_judge flags either when it is large
 * next to the effect.
 *
 * Units: every "_pct" value is a percentage (1.5 means 1.5%); every "log"
 * value is a natural-log ratio. Rounds in cause strings are numbered from 1,
 * in the order of the caller's arrays.
 *
 * Errors: functions returning int give 0 or a negative errno (-EINVAL for
 * bad input, -ENOMEM) and, when `cause` is not NULL, set *cause to a
 * malloc'd lowercase message for the user (caller frees; left NULL on
 * success and on -ENOMEM). A value that is not defined for the data (the sd
 * of one value, the CI of one round) is NaN and comes with a flag that says
 * so; the JSON writer prints NaN as null. No result is NaN because of a
 * zero, negative or non-finite input: those are refused with a cause.
 *
 * Ownership: callers own every array; nothing here keeps a pointer except
 * stats_summary.values, which borrows the caller's array. All functions
 * are thread-safe (no global state; the Monte Carlo generator is seeded
 * per call).
 */
#ifndef REPORTS_STATS_H
#define REPORTS_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* ---- One set of values (one metric of one arm) ---- */

struct stats_summary {
	size_t n;
	double mean;
	double median;	/* mean of the middle two when n is even */
	double sd;	/* sample sd (n - 1); NaN when n < 2 */
	double se;	/* sd / sqrt(n); NaN when n < 2 */
	double min, max;
	const double *values;	/* borrowed: the caller's array, in its order */
};

/* Summarize v[0..n-1]. -EINVAL when n == 0 or a value is not finite;
 * -ENOMEM. Values may be zero or negative here. */
int stats_summarize(const double *v, size_t n, struct stats_summary *out);

/* ---- Student's t ---- */

/* The p-quantile of Student's t with df degrees of freedom (df > 0, not
 * necessarily an integer; 0 < p < 1): the t with P(T <= t) = p. NaN for
 * arguments outside those ranges. Relative error below 1e-9 for df up to
 * 1e5 (incomplete-beta CDF solved by safeguarded Newton), and below 1e-12
 * beyond (Cornish-Fisher expansion to 1/df^4). */
double stats_t_quantile(double p, double df);

/* P(T <= t) for Student's t with df > 0 degrees of freedom. */
double stats_t_cdf(double t, double df);

/* ---- Sign-flip permutation test ---- */

/* Up to this many values the sign-flip test enumerates all 2^n sign
 * assignments; beyond it, it draws STATS_SIGNFLIP_DRAWS random ones. */
#define STATS_SIGNFLIP_EXACT_MAX 20
#define STATS_SIGNFLIP_DRAWS 100000
/* Sums of |d| closer than this fraction of sum |d_i| count as ties. */
#define STATS_SIGNFLIP_TIE_REL 1e-9

/*
 * Two-sided sign-flip p-value of d[0..n-1] around 0: the fraction of sign
 * assignments s_i = +-1 whose |sum s_i d_i| is at least the observed
 * |sum d_i| (the same as comparing |mean|), ties within
 * STATS_SIGNFLIP_TIE_REL * sum |d_i| counting as at least. Exact for
 * n <= STATS_SIGNFLIP_EXACT_MAX, so the result is k / 2^n with the observed
 * assignment and its mirror always counted (p >= 2 / 2^n; p = 1 when the
 * observed sum is 0). Beyond, a Monte Carlo estimate
 * (1 + hits) / (1 + STATS_SIGNFLIP_DRAWS) from a generator with a fixed
 * seed, so the same data always give the same p, never below
 * 1 / (1 + STATS_SIGNFLIP_DRAWS). A zero d_i is kept (flipping it changes
 * nothing). n == 0 gives 1. d must be finite.
 */
double stats_signflip_p(const double *d, size_t n);

/* The smallest p stats_signflip_p can return for n values (n >= 1):
 * 2 / 2^n while exact (0.125 at n = 4, 0.03125 at n = 6; 1 at n = 1), then
 * 1 / (1 + STATS_SIGNFLIP_DRAWS). */
double stats_signflip_p_min(size_t n);

/* ---- Paired comparison of an arm against the baseline ---- */

/* d[r] = ln(arm[r] / base[r]) for r < n. -EINVAL (cause names the round,
 * 1-based, and the value) when a value is zero, negative or not finite. */
int stats_log_ratios(const double *base, const double *arm, size_t n,
		     double *d, char **cause);

struct stats_paired {
	size_t n;		/* paired rounds */
	double mean_d;		/* mean of d_r */
	double median_d;
	double sd_d;		/* sample sd of d_r (n - 1); NaN when n < 2 */
	double se_d;		/* sd_d / sqrt(n); NaN when n < 2 */
	double delta_pct;	/* 100 * (exp(mean_d) - 1) */
	double delta_pct_median;	/* 100 * (exp(median_d) - 1) */
	bool signs_agree;	/* mean_d and median_d have the same sign
				 * (-, 0 or +) */

	/* The CIs need n >= 2. When !ci_computable every field below up to
	 * ci90_hi_pct is NaN. With all d_r equal (sd 0) the CIs collapse to
	 * the point delta_pct and the half-widths are 0. */
	bool ci_computable;
	double t_mult95;	/* t quantile 0.975, df n - 1 (4.303 at n = 3) */
	double half_width95;	/* t_mult95 * se_d, log space */
	double ci95_lo_pct, ci95_hi_pct;
	double t_mult90;	/* t quantile 0.95, df n - 1 */
	double half_width90;	/* log space */
	double ci90_lo_pct, ci90_hi_pct;

	double p_value;		/* stats_signflip_p of the d_r */
	double p_min;		/* stats_signflip_p_min(n) */
	bool p_exact;		/* n <= STATS_SIGNFLIP_EXACT_MAX */

	/* Rounds by the sign of d_r, i.e. arm above, below or equal to the
	 * baseline; stats_judge turns these into "favour" counts. */
	size_t n_arm_higher, n_arm_lower, n_equal;

	/* stats_paired_diff: d_r is the difference arm - base over scale
	 * (the baseline's mean, or where that is 0 the mean of both arms:
	 * scale_pooled), not a log-ratio; the percentages are 100 d. */
	bool by_difference, scale_pooled;
	double scale;
};

/* Compare arm[r] against base[r], r < n (n >= 1). -EINVAL with a cause for
 * n == 0 or a value that is zero, negative or not finite; -ENOMEM. */
int stats_paired_logratio(const double *base, const double *arm, size_t n,
			  struct stats_paired *out, char **cause);

/*
 * For counts that are sometimes 0 (long frames, migrations, major faults),
 * where a log-ratio cannot be taken: compare the paired differences
 * arm[r] - base[r] relative to the baseline's mean (the mean of both arms
 * where the baseline's is 0), with the same t CI and sign-flip p. Values
 * must be finite and >= 0 (-EINVAL with a cause). All zero: no change.
 */
int stats_paired_diff(const double *base, const double *arm, size_t n,
		      struct stats_paired *out, char **cause);

/* ---- Design checks ---- */

/*
 * Position effect: how much a run reads higher one slot later in its round,
 * whatever the arm. base_slot[r] and arm_slot[r] are the 0-based positions
 * of the two runs in round r (for two arms: 0 and 1). With
 * x_r = arm_slot[r] - base_slot[r], the least-squares fit
 * d_r = beta + gamma * x_r separates the arm effect (beta) from the slot
 * effect (gamma), so it is not fooled by an unbalanced order (an odd number
 * of alternating rounds). In a balanced two-arm design gamma is simply the
 * mean of ln(second / first) over rounds.
 */
struct stats_position {
	bool computable;	/* false when x_r is the same in every round:
				 * order and arm are then confounded */
	double log_effect;	/* gamma: ln(later slot / earlier), per slot */
	double pct;		/* 100 * (exp(gamma) - 1); NaN if !computable */
	size_t n_base_first;	/* rounds where the baseline ran first */
	size_t n_arm_first;
};

/* -EINVAL with a cause for n == 0, a value that is zero, negative or not
 * finite, or a round whose two runs share a slot; -ENOMEM. */
int stats_position_effect(const double *base, const double *arm,
			  const unsigned *base_slot, const unsigned *arm_slot,
			  size_t n, struct stats_position *out, char **cause);

/*
 * Baseline trend: the least-squares slope of ln(base[r]) against the round
 * number x_r (round_x[r], or r when round_x is NULL, so that dropped
 * rounds keep their place).
 */
struct stats_trend {
	bool computable;	/* false when n < 2 or all x_r are equal */
	double slope_log;	/* per round, log space */
	double pct_per_round;	/* 100 * (exp(slope_log) - 1) */
	double pct_span;	/* 100 * (exp(slope_log * (x_max - x_min)) - 1):
				 * the drift from the first round to the last */
};

/* -EINVAL with a cause for n == 0, or a value that is zero, negative or
 * not finite (base) or not finite (round_x). */
int stats_baseline_trend(const double *base, const double *round_x,
			 size_t n, struct stats_trend *out, char **cause);

/* ---- Noise gate and verdicts ---- */

/*
 * The gate measured by an A/A experiment, where both "arms" ran the same
 * thing: twice the sample standard deviation (n - 1) of the per-round
 * effects delta%_r = 100 * (exp(d_r) - 1), d_r = ln(a2[r] / a1[r]). That is
 * the spread of single-round differences when nothing changed; an effect
 * inside it is not called. n >= 2; -EINVAL with a cause otherwise or for a
 * value that is zero, negative or not finite; -ENOMEM.
 */
int stats_aa_gate(const double *a1, const double *a2, size_t n,
		  double *gate_pct, char **cause);

enum stats_verdict {
	VERDICT_BETTER,
	VERDICT_WORSE,
	VERDICT_EQUIVALENT,
	VERDICT_INCONCLUSIVE,
};

/* "better", "worse", "equivalent", "inconclusive"; NULL for other values. */
const char *stats_verdict_name(enum stats_verdict v);

/*
 * Is one arm steadier than the other? The field notes: "pinning cuts
 * run-to-run spread sharply, +-0.297 to +-0.015". For paired rounds,
 * the ratio of the arm's sd to the baseline's (of the logs where every
 * value is above 0, else of the values), with a 95% CI by inverting the
 * Pitman-Morgan test: sd(arm) = c sd(base) exactly when arm - c base and
 * arm + c base are uncorrelated, tested by t on n - 2 degrees of freedom;
 * p is that test at c = 1. Steadier when the CI lies below 1, noisier
 * above, else can't tell. Needs n >= 4 and a spread in both arms.
 */
enum stats_spread_verdict { SPREAD_CANT_TELL, SPREAD_STEADIER, SPREAD_NOISIER };
struct stats_spread {
	bool computable;
	size_t n;
	bool on_logs;
	double ratio, ci95_lo, ci95_hi, p_value;
	enum stats_spread_verdict verdict;
};
int stats_spread_ratio(const double *base, const double *arm, size_t n,
		       struct stats_spread *out);
/* "steadier", "noisier", "can't tell". */
const char *stats_spread_name(enum stats_spread_verdict v);

/* stats_judgement.rounds_needed is "cannot say" beyond this many rounds. */
#define STATS_ROUNDS_MAX 1000000L

/* The significance level a better or worse verdict needs (p < alpha), and
 * the power the rounds estimate aims for. */
#define STATS_ALPHA 0.05
#define STATS_POWER 0.80

/* The fewest rounds whose sign-flip test can reach p < alpha (2 / 2^n <
 * alpha: 6 at alpha 0.05). */
size_t stats_rounds_for_alpha(double alpha);

/* Which verdict a rounds estimate aims at. */
enum stats_aim {
	STATS_AIM_NONE,		/* none: no estimate */
	STATS_AIM_DIFFERENCE,	/* better or worse */
	STATS_AIM_EQUIVALENCE,	/* equivalent */
};

struct stats_judgement {
	enum stats_verdict verdict;
	double gate_pct;
	double equiv_pct;	/* the equivalence bound, <= gate_pct */
	enum stats_aim aim;	/* what rounds_needed aims at */
	bool higher_is_better;
	bool ci95_excludes_zero;
	bool clears_gate;	/* |delta_pct| > gate_pct */
	bool ci90_within_gate;	/* -gate <= ci90_lo_pct, ci90_hi_pct <= gate */
	/* Rounds where the arm was better than the baseline, worse, or
	 * equal, in the metric's direction. */
	size_t n_favour_arm, n_favour_base, n_ties;
	/* Total rounds (not extra rounds) that would likely settle an
	 * inconclusive verdict; 0 when the verdict is not inconclusive; -1
	 * when it cannot be said (n < 2, an effect sitting on the gate, or
	 * more than STATS_ROUNDS_MAX). */
	long rounds_needed;
	bool position_large;	/* see stats_judge */
	bool trend_large;
	/* The p-value rule: alpha used, whether this design can reach
	 * p < alpha at all (p_min < alpha), and whether p is below it. */
	double alpha;
	bool p_reachable;
	bool p_below_alpha;
	/* The CI and the gate would call it better or worse, but p is not
	 * below alpha (often because n is too small for the sign-flip test
	 * to get there: p_reachable false). The verdict is inconclusive. */
	bool held_by_p;
};

/*
 * Judge a comparison against the gate +-gate_pct (gate_pct >= 0, finite;
 * else -EINVAL). Lower is better unless higher_is_better (scores).
 *   better / worse  the 95% CI excludes 0, |delta_pct| > gate_pct, and the
 *                   sign-flip p is below STATS_ALPHA; the sign of delta
 *                   and the direction say which. A design that cannot
 *                   reach p < alpha (5 rounds or fewer: p_min = 2 / 2^n
 *                   >= 0.0625) never calls better or worse;
 *   equivalent      the 90% CI lies inside [-gate_pct, +gate_pct], ends
 *                   included;
 *   inconclusive    otherwise, and always when the CI is not computable
 *                   (n < 2).
 * The two decisive rules cannot both hold, since delta lies inside its own
 * 90% CI.
 *
 * rounds_needed, for inconclusive, comes from the observed effect and
 * spread (mean_d, sd_d), by the usual power calculation with t in place
 * of z: the smallest m > n at which a study of m rounds would settle it
 * with probability STATS_POWER if mean_d and sd_d held.
 *   - The effect clears the gate: the rounds at which a two-sided t test
 *     at STATS_ALPHA detects it, sqrt(m) |mean_d| / sd_d >= t(0.975, m-1)
 *     + t(POWER, m-1), and at least stats_rounds_for_alpha() so that the
 *     sign-flip p can get below alpha.
 *   - The effect is inside the gate: the rounds at which the 90% CI fits
 *     inside it, sqrt(m) margin / sd_d >= t(0.95, m-1) + t(POWER, m-1),
 *     margin being the distance in log space from mean_d to the nearer
 *     end of the gate; -1 when there is no margin (gate 0, or the effect
 *     on the gate's end).
 * With sd_d = 0 the first case needs only the rounds for alpha. The old
 * rule (the 95% CI narrower than the gate) asked a large, noisy effect to
 * be measured to the gate's precision: context switches at -41.7%
 * [-66.2, +0.6] were promised ~10509 rounds, and 12 settled them.
 *
 * position and trend may be NULL. position_large: |pos->pct| > |delta|/2
 * and > gate_pct. trend_large: |trend->pct_span| (the drift over the whole
 * experiment, about pct_per_round * (n - 1)) > |delta|/2 and > gate_pct.
 * Either means the design, not the arm, may explain the effect; they do not
 * change the verdict.
 */
int stats_judge(const struct stats_paired *p,
		const struct stats_position *position,
		const struct stats_trend *trend, double gate_pct,
		bool higher_is_better, struct stats_judgement *out);

/*
 * stats_judge with an equivalence bound apart from the noise gate:
 * better / worse need |delta_pct| > gate_pct as above, equivalent needs
 * the 90% CI inside [-equiv_pct, +equiv_pct] (0 <= equiv_pct <= gate_pct,
 * else -EINVAL). A noise gate wider than the smallest change that
 * matters (equiv_pct) so never calls a change of that size equivalent:
 * an effect between the two is inconclusive, and rounds_needed is -1
 * with aim STATS_AIM_NONE, as more rounds cannot settle it. stats_judge
 * is this with equiv_pct = gate_pct.
 */
int stats_judge_eq(const struct stats_paired *p,
		   const struct stats_position *position,
		   const struct stats_trend *trend, double gate_pct,
		   double equiv_pct, bool higher_is_better,
		   struct stats_judgement *out);

/* ---- Sign test ---- */

/*
 * Two-sided sign test: of n_up + n_down non-tied units, n_up went one way.
 * p = min(1, 2 P(X <= min(n_up, n_down))) for X ~ Binomial(n, 1/2),
 * exact; 1 when n = 0. *p_min (may be NULL) gets the smallest p n units
 * can give, 2 / 2^n (1 for n = 0 and 1).
 */
double stats_sign_test(size_t n_up, size_t n_down, double *p_min);

/* ---- Unpaired comparison: two sets of runs collected separately ---- */

/* Up to this many ways to split the pooled values the permutation test
 * enumerates them all; beyond, STATS_PERM_DRAWS seeded random splits. */
#define STATS_PERM_EXACT_MAX 200000
#define STATS_PERM_DRAWS 100000

/*
 * Set A (a[0..na-1]) against set B (b[0..nb-1]), values > 0 and finite,
 * with no pairing: runs collected at different times (before and after a
 * reboot, a BIOS setting, a kernel). On the logs x = ln a, y = ln b:
 *   effect    delta% = 100 (exp(mean y - mean x) - 1), the ratio of the
 *             geometric means; delta_pct_median from the medians;
 *   CI        Welch's t: se = sqrt(sx^2/na + sy^2/nb), Welch-Satterthwaite
 *             df, mean y - mean x +- t se (95% and 90%); needs na, nb >= 2;
 *   p-value   the two-sided permutation test of |mean y - mean x| over the
 *             splits of the pooled logs into groups of na and nb (exact up
 *             to STATS_PERM_EXACT_MAX splits, seeded Monte Carlo beyond),
 *             with the smallest p the design can reach (2 / C(na+nb, na)
 *             when na == nb, else 1 / C: 0.1 for 3 and 3, 0.029 for 4 and
 *             4).
 * -EINVAL with a cause for an empty set or a value that is zero,
 * negative or not finite; -ENOMEM.
 */
struct stats_unpaired {
	size_t na, nb;
	double mean_a, mean_b;		/* of the logs */
	double sd_a, sd_b;		/* of the logs; NaN when n < 2 */
	double delta_pct, delta_pct_median;
	bool signs_agree;		/* mean and median differences */
	bool ci_computable;		/* na >= 2 and nb >= 2 */
	double se, df;
	double ci95_lo_pct, ci95_hi_pct, ci90_lo_pct, ci90_hi_pct;
	double t_mult95;
	double p_value, p_min;
	bool p_exact;
};

int stats_unpaired_log(const double *a, size_t na, const double *b, size_t nb,
		       struct stats_unpaired *out, char **cause);

/*
 * The verdict of an unpaired comparison, by stats_judge's rules (the
 * 95% CI excludes 0, the effect clears the gate and p < STATS_ALPHA;
 * the 90% CI inside the gate). rounds_needed is the runs per set that
 * would likely settle it (at least the 4 each that let p reach below
 * alpha), from the observed effect and the pooled spread.
 */
int stats_judge_unpaired(const struct stats_unpaired *u, double gate_pct,
			 bool higher_is_better, struct stats_judgement *out);

#endif
