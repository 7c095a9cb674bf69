/*
 * stats: summaries, Student's t, the sign-flip test and the verdicts of
 * `prof ab`. See stats.h for the definitions; this file says how they are
 * computed where that is not obvious.
 */
#include "common/cause.h"
#include "common/order.h"
#include "reports/stats.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */

/* Median of v[0..n-1], n >= 1; -ENOMEM. */
static int median_of(const double *v, size_t n, double *out)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof(*s));
	*out = median_sort(s, n);
	free(s);
	return 0;
}

/* Mean and sample sd by two passes (the second pass removes the rounding
 * of the first); sd is NaN when n < 2. */
static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double sum = 0, ss = 0, corr = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	double m = sum / (double)n;
	for (size_t i = 0; i < n; i++) {
		double e = v[i] - m;
		ss += e * e;
		corr += e;
	}
	m += corr / (double)n;
	*mean = m;
	if (n < 2) {
		*sd = NAN;
		return;
	}
	ss -= corr * corr / (double)n;
	*sd = ss > 0 ? sqrt(ss / (double)(n - 1)) : 0;
}

static int sign_of(double x)
{
	return (x > 0) - (x < 0);
}

/* ---- summary ---- */

int stats_summarize(const double *v, size_t n, struct stats_summary *out)
{
	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return -EINVAL;

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->values = v;
	out->min = out->max = v[0];
	for (size_t i = 1; i < n; i++) {
		if (v[i] < out->min)
			out->min = v[i];
		if (v[i] > out->max)
			out->max = v[i];
	}
	mean_sd(v, n, &out->mean, &out->sd);
	/* The compensated mean of equal values can land one ulp outside
	 * them; keep it inside [min, max]. */
	if (out->mean < out->min)
		out->mean = out->min;
	if (out->mean > out->max)
		out->mean = out->max;
	out->se = n < 2 ? NAN : out->sd / sqrt((double)n);
	return median_of(v, n, &out->median);
}

/* ---- Student's t ---- */

/*
 * The continued fraction for the regularized incomplete beta function
 * I_x(a, b) (Abramowitz & Stegun 26.5.8), evaluated by the modified Lentz
 * method (Thompson & Barnett 1986). It converges quickly for
 * x < (a + 1) / (a + b + 2); the caller uses I_x(a,b) = 1 - I_{1-x}(b,a)
 * otherwise. lx = ln x and ly = ln(1 - x) come from the caller so that
 * neither loses digits when x is near 0 or 1.
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-16;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 100000; m++) {
		double fm = m, num, del;

		/* even step: m (b - m) x / ((a + 2m - 1)(a + 2m)) */
		num = fm * (b - fm) * x / ((a + 2 * fm - 1) * (a + 2 * fm));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		/* odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
		num = -(a + fm) * (a + b + fm) * x /
		      ((a + 2 * fm) * (a + 2 * fm + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

static double log_beta(double a, double b)
{
	int sg;

	/* lgamma_r: lgamma writes the global signgam, which is not
	 * thread-safe. */
	return lgamma_r(a, &sg) + lgamma_r(b, &sg) - lgamma_r(a + b, &sg);
}

/* I_x(a, b) given x, ln x and ln(1 - x). */
static double ibeta(double a, double b, double x, double lx, double ly)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(a * lx + b * ly - log_beta(a, b));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, -expm1(lx)) / b;
}

/* P(T > t) for t >= 0: (1/2) I_x(df/2, 1/2) with x = df / (df + t^2). */
static double t_upper(double t, double df)
{
	if (t <= 0)
		return 0.5;
	double u = t / sqrt(df), r = u * u;	/* t^2 / df, no early overflow */
	if (isinf(r))
		return 0;
	double lx = -log1p(r);			/* ln(df / (df + t^2)) */
	double ly = log(r) - log1p(r);		/* ln(t^2 / (df + t^2)) */
	return 0.5 * ibeta(df / 2, 0.5, exp(lx), lx, ly);
}

static double t_pdf(double t, double df)
{
	return exp(-(df + 1) / 2 * log1p(t * t / df) -
		   log_beta(df / 2, 0.5)) / sqrt(df);
}

double stats_t_cdf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	return t >= 0 ? 1 - t_upper(t, df) : t_upper(-t, df);
}

/* The standard normal upper quantile: z with P(Z > z) = q, 0 < q <= 1/2,
 * by safeguarded Newton on erfc. */
static double z_upper(double q)
{
	double lo = 0, hi = 40, z = 1.5;

	for (int i = 0; i < 200; i++) {
		double f = 0.5 * erfc(z / M_SQRT2) - q;	/* decreasing in z */
		if (f > 0)
			lo = z;
		else
			hi = z;
		double pdf = exp(-z * z / 2) / sqrt(2 * M_PI);
		double next = z + f / pdf;
		if (!(next > lo && next < hi))
			next = (lo + hi) / 2;
		if (fabs(next - z) <= 1e-15 * next) {
			z = next;
			break;
		}
		z = next;
	}
	return z;
}

/* Beyond this df the t quantile comes from the Cornish-Fisher expansion
 * around the normal quantile; below it, from the incomplete beta, whose
 * log-gamma terms lose digits as df grows (lgamma(5e4) ~ 5e5, so ~1e-10). */
#define T_DF_ASYMPTOTIC 1e5

double stats_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0) || isinf(df))
		return NAN;
	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -stats_t_quantile(1 - p, df);

	double q = 1 - p;	/* upper tail, exact for p >= 0.5 (Sterbenz) */

	if (df > T_DF_ASYMPTOTIC) {
		/* Abramowitz & Stegun 26.7.5: t = z + g1/df + g2/df^2 +
		 * g3/df^3 + g4/df^4; the next term is below 1e-18 here. */
		double z = z_upper(q), z2 = z * z;
		double g1 = (z2 + 1) * z / 4;
		double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
		double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
		double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 -
			     945) * z / 92160;
		return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df;
	}

	/* Bracket [lo, hi] with t_upper(lo) >= q >= t_upper(hi), then Newton
	 * steps, falling back to bisection when a step leaves the bracket. */
	double lo = 0, hi = 1;
	while (t_upper(hi, df) > q) {
		lo = hi;
		hi *= 2;
		if (hi > 1e300)
			return INFINITY;
	}
	double t = (lo + hi) / 2;
	for (int i = 0; i < 400; i++) {
		double f = t_upper(t, df) - q;	/* decreasing in t */
		if (f > 0)
			lo = t;
		else if (f < 0)
			hi = t;
		else
			break;
		double next = t + f / t_pdf(t, df);
		if (!(next > lo && next < hi))
			next = lo + (hi - lo) / 2;
		if (fabs(next - t) <= 1e-15 * next || hi - lo <= 1e-15 * hi) {
			t = next;
			break;
		}
		t = next;
	}
	return t;
}

/* ---- sign-flip test ---- */

/* splitmix64 (Steele, Lea & Flood 2014): small, fast, and good enough to
 * pick random signs; the state lives in the caller. */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#define SIGNFLIP_SEED 0x70726f6620616255ULL	/* "prof abU" */
#define HALF_MAX (1u << ((STATS_SIGNFLIP_EXACT_MAX + 1) / 2))

/* All 2^k signed sums of v[0..k-1], k <= (EXACT_MAX + 1) / 2, each summed
 * directly (not by updating a neighbour) so rounding stays at k ulps. */
static void all_sums(const double *v, size_t k, double *sums)
{
	for (uint32_t mask = 0; mask < (1u << k); mask++) {
		double s = 0;
		for (size_t i = 0; i < k; i++)
			s += (mask >> i) & 1 ? -v[i] : v[i];
		sums[mask] = s;
	}
}

/* Index of the first element of sorted a[0..n-1] that is >= x. */
static size_t lower_bound(const double *a, size_t n, double x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the first element of sorted a[0..n-1] that is > x. */
static size_t upper_bound(const double *a, size_t n, double x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

double stats_signflip_p(const double *d, size_t n)
{
	double obs = 0, scale = 0;

	if (n == 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		obs += d[i];
		scale += fabs(d[i]);
	}
	/* An assignment counts when |S| >= thr. */
	double thr = fabs(obs) - STATS_SIGNFLIP_TIE_REL * scale;
	if (thr <= 0)
		return 1;

	if (n <= STATS_SIGNFLIP_EXACT_MAX) {
		/*
		 * Meet in the middle: every total is L + R, L a signed sum of
		 * the first half and R of the second. With R sorted, the R
		 * giving |L + R| >= thr are those >= thr - L or <= -thr - L:
		 * two binary searches per L instead of 2^n sums.
		 */
		double left[HALF_MAX], right[HALF_MAX];
		size_t k = n / 2, nl = (size_t)1 << k, nr = (size_t)1 << (n - k);
		uint64_t count = 0;

		all_sums(d, k, left);
		all_sums(d + k, n - k, right);
		qsort(right, nr, sizeof(*right), order_double);
		for (size_t i = 0; i < nl; i++) {
			count += nr - lower_bound(right, nr, thr - left[i]);
			count += upper_bound(right, nr, -thr - left[i]);
		}
		return ldexp((double)count, -(int)n);
	}

	/* Random signs are unpredictable branches; flipping the sign bit of
	 * the double instead took n = 100 from 62 ms to 17 ms on the 2-core
	 * VM (n = 1000: 175 ms). */
	uint64_t state = SIGNFLIP_SEED, hits = 0;
	for (long draw = 0; draw < STATS_SIGNFLIP_DRAWS; draw++) {
		double s = 0;
		uint64_t bits = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t u;
			double x;
			if (i % 64 == 0)
				bits = splitmix64(&state);
			memcpy(&u, &d[i], sizeof(u));
			u ^= (bits & 1) << 63;
			memcpy(&x, &u, sizeof(x));
			s += x;
			bits >>= 1;
		}
		if (fabs(s) >= thr)
			hits++;
	}
	return (double)(hits + 1) / (double)(STATS_SIGNFLIP_DRAWS + 1);
}

double stats_signflip_p_min(size_t n)
{
	if (n <= 1)
		return 1;
	if (n <= STATS_SIGNFLIP_EXACT_MAX)
		return ldexp(1, 1 - (int)n);
	return 1.0 / (STATS_SIGNFLIP_DRAWS + 1);
}

/* ---- paired comparison ---- */

/* Refuse what a logarithm cannot take, naming the round (1-based). */
static int check_positive(double v, size_t r, const char *who, char **cause)
{
	if (!isfinite(v)) {
		cause_set(cause, 0, "cannot compare round %zu: the %s value is "
			  "not a finite number (%g)", r + 1, who, v);
		return -EINVAL;
	}
	if (v <= 0) {
		cause_set(cause, 0, "cannot compare round %zu: the %s value is "
			  "%.9g, and a log-ratio needs values above 0",
			  r + 1, who, v);
		return -EINVAL;
	}
	return 0;
}

int stats_log_ratios(const double *base, const double *arm, size_t n,
		     double *d, char **cause)
{
	for (size_t r = 0; r < n; r++) {
		int err = check_positive(base[r], r, "baseline", cause);
		if (!err)
			err = check_positive(arm[r], r, "arm", cause);
		if (err)
			return err;
		double ratio = arm[r] / base[r];
		/* The ratio can overflow or underflow for extreme pairs; the
		 * difference of logs cannot. */
		d[r] = isnormal(ratio) ? log(ratio) : log(arm[r]) - log(base[r]);
	}
	return 0;
}

/* 100 * (exp(x) - 1), without losing digits near 0. */
static double pct_of_log(double x)
{
	return 100 * expm1(x);
}

/* 100 * x: a relative difference (stats_paired_diff) as a percentage. */
static double pct_of_rel(double x)
{
	return 100 * x;
}

/* The paired statistics of the per-round values d[0..n-1] (log-ratios, or
 * relative differences), pct turning a d into a percentage. */
static int fill_paired(const double *d, size_t n, double (*pct)(double),
		       struct stats_paired *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	mean_sd(d, n, &out->mean_d, &out->sd_d);
	int err = median_of(d, n, &out->median_d);
	if (err)
		return err;
	out->delta_pct = pct(out->mean_d);
	out->delta_pct_median = pct(out->median_d);
	out->signs_agree = sign_of(out->mean_d) == sign_of(out->median_d);

	for (size_t r = 0; r < n; r++) {
		if (d[r] > 0)
			out->n_arm_higher++;
		else if (d[r] < 0)
			out->n_arm_lower++;
		else
			out->n_equal++;
	}

	out->ci_computable = n >= 2;
	if (out->ci_computable) {
		double df = (double)(n - 1), m = out->mean_d;
		out->se_d = out->sd_d / sqrt((double)n);
		out->t_mult95 = stats_t_quantile(0.975, df);
		out->half_width95 = out->t_mult95 * out->se_d;
		out->ci95_lo_pct = pct(m - out->half_width95);
		out->ci95_hi_pct = pct(m + out->half_width95);
		out->t_mult90 = stats_t_quantile(0.95, df);
		out->half_width90 = out->t_mult90 * out->se_d;
		out->ci90_lo_pct = pct(m - out->half_width90);
		out->ci90_hi_pct = pct(m + out->half_width90);
	} else {
		out->se_d = NAN;
		out->t_mult95 = out->half_width95 = NAN;
		out->ci95_lo_pct = out->ci95_hi_pct = NAN;
		out->t_mult90 = out->half_width90 = NAN;
		out->ci90_lo_pct = out->ci90_hi_pct = NAN;
	}

	out->p_value = stats_signflip_p(d, n);
	out->p_min = stats_signflip_p_min(n);
	out->p_exact = n <= STATS_SIGNFLIP_EXACT_MAX;
	return 0;
}

int stats_paired_logratio(const double *base, const double *arm, size_t n,
			  struct stats_paired *out, char **cause)
{
	double *d;
	int err;

	if (cause)
		*cause = NULL;
	if (n == 0) {
		cause_set(cause, 0, "cannot compare: no paired rounds");
		return -EINVAL;
	}
	d = malloc(n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	err = stats_log_ratios(base, arm, n, d, cause);
	if (!err)
		err = fill_paired(d, n, pct_of_log, out);
	free(d);
	return err;
}

int stats_paired_diff(const double *base, const double *arm, size_t n,
		      struct stats_paired *out, char **cause)
{
	if (cause)
		*cause = NULL;
	if (n == 0) {
		cause_set(cause, 0, "cannot compare: no paired rounds");
		return -EINVAL;
	}
	double mb = 0, ma = 0;
	for (size_t r = 0; r < n; r++) {
		if (!(base[r] >= 0) || !(arm[r] >= 0) || isinf(base[r]) || isinf(arm[r])) {
			cause_set(cause, 0, "cannot compare round %zu: a value is negative "
				  "or not finite", r + 1);
			return -EINVAL;
		}
		mb += base[r] / (double)n;
		ma += arm[r] / (double)n;
	}
	/* The scale: the baseline's mean; where that is 0, the mean of both
	 * arms (so 0 against 42 reads +200%, the most a change can show). */
	double scale = mb > 0 ? mb : (ma + mb) / 2;
	double *d = malloc(n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (size_t r = 0; r < n; r++)
		d[r] = scale > 0 ? (arm[r] - base[r]) / scale : 0;
	int err = fill_paired(d, n, pct_of_rel, out);
	free(d);
	if (!err) {
		out->by_difference = true;
		out->scale = scale;
		out->scale_pooled = !(mb > 0);
	}
	return err;
}

/* ---- design checks ---- */

/* Least-squares slope of y on x; false when x has no spread. */
static bool ls_slope(const double *x, const double *y, size_t n, double *slope)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0;

	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	if (!(sxx > 0))
		return false;
	*slope = sxy / sxx;
	return true;
}

int stats_position_effect(const double *base, const double *arm,
			  const unsigned *base_slot, const unsigned *arm_slot,
			  size_t n, struct stats_position *out, char **cause)
{
	double *d, *x;
	int err;

	if (cause)
		*cause = NULL;
	if (n == 0) {
		cause_set(cause, 0, "cannot estimate the position effect: no "
			  "paired rounds");
		return -EINVAL;
	}
	for (size_t r = 0; r < n; r++) {
		if (base_slot[r] == arm_slot[r]) {
			cause_set(cause, 0, "cannot estimate the position effect: "
				  "in round %zu both runs are in slot %u",
				  r + 1, base_slot[r]);
			return -EINVAL;
		}
	}
	d = malloc(2 * n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	x = d + n;
	err = stats_log_ratios(base, arm, n, d, cause);
	if (err)
		goto out_free;

	memset(out, 0, sizeof(*out));
	for (size_t r = 0; r < n; r++) {
		x[r] = (double)arm_slot[r] - (double)base_slot[r];
		if (base_slot[r] < arm_slot[r])
			out->n_base_first++;
		else
			out->n_arm_first++;
	}
	out->computable = ls_slope(x, d, n, &out->log_effect);
	if (out->computable) {
		out->pct = pct_of_log(out->log_effect);
	} else {
		out->log_effect = NAN;
		out->pct = NAN;
	}
out_free:
	free(d);
	return err;
}

int stats_baseline_trend(const double *base, const double *round_x,
			 size_t n, struct stats_trend *out, char **cause)
{
	double *y, *x;
	int err = 0;

	if (cause)
		*cause = NULL;
	if (n == 0) {
		cause_set(cause, 0, "cannot estimate the baseline trend: no rounds");
		return -EINVAL;
	}
	y = malloc(2 * n * sizeof(*y));
	if (!y)
		return -ENOMEM;
	x = y + n;
	for (size_t r = 0; r < n; r++) {
		err = check_positive(base[r], r, "baseline", cause);
		if (err)
			goto out_free;
		x[r] = round_x ? round_x[r] : (double)r;
		if (!isfinite(x[r])) {
			cause_set(cause, 0, "cannot estimate the baseline trend: "
				  "round %zu has no finite round number", r + 1);
			err = -EINVAL;
			goto out_free;
		}
		y[r] = log(base[r]);
	}

	memset(out, 0, sizeof(*out));
	out->computable = n >= 2 && ls_slope(x, y, n, &out->slope_log);
	if (out->computable) {
		double xmin = x[0], xmax = x[0];
		for (size_t r = 1; r < n; r++) {
			xmin = x[r] < xmin ? x[r] : xmin;
			xmax = x[r] > xmax ? x[r] : xmax;
		}
		out->pct_per_round = pct_of_log(out->slope_log);
		out->pct_span = pct_of_log(out->slope_log * (xmax - xmin));
	} else {
		out->slope_log = out->pct_per_round = out->pct_span = NAN;
	}
out_free:
	free(y);
	return err;
}

/* ---- gate and verdicts ---- */

int stats_aa_gate(const double *a1, const double *a2, size_t n,
		  double *gate_pct, char **cause)
{
	double *d, mean, sd;
	int err;

	if (cause)
		*cause = NULL;
	if (n < 2) {
		cause_set(cause, 0, "cannot derive a gate from an a/a experiment "
			  "of %zu round%s: it needs at least 2", n,
			  n == 1 ? "" : "s");
		return -EINVAL;
	}
	d = malloc(n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	err = stats_log_ratios(a1, a2, n, d, NULL);
	if (!err) {
		for (size_t r = 0; r < n; r++)
			d[r] = pct_of_log(d[r]);
	} else if (err == -EINVAL) {
		/* Values that are sometimes 0: their noise as the per-round
		 * difference relative to the scale stats_paired_diff uses. */
		struct stats_paired p;
		err = stats_paired_diff(a1, a2, n, &p, cause);
		for (size_t r = 0; !err && r < n; r++)
			d[r] = p.scale > 0 ? 100 * (a2[r] - a1[r]) / p.scale : 0;
	}
	if (!err) {
		mean_sd(d, n, &mean, &sd);
		*gate_pct = 2 * sd;
	}
	free(d);
	return err;
}

/* ---- spread ---- */

/* The sample correlation of y - c x and y + c x, from the moments. */
static double pm_corr(double vx, double vy, double cxy, double c)
{
	double vu = vy - 2 * c * cxy + c * c * vx, vv = vy + 2 * c * cxy + c * c * vx;
	if (!(vu > 0) || !(vv > 0))
		return 0;
	return (vy - c * c * vx) / sqrt(vu * vv);
}

/* The c > 0 where pm_corr falls to r0 (it falls from 1 to -1 as c
 * grows), by bisection on log c around c0. */
static double pm_solve(double vx, double vy, double cxy, double c0, double r0)
{
	double lo = log(c0) - 30, hi = log(c0) + 30;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (pm_corr(vx, vy, cxy, exp(mid)) > r0)
			lo = mid;
		else
			hi = mid;
	}
	return exp((lo + hi) / 2);
}

int stats_spread_ratio(const double *base, const double *arm, size_t n,
		       struct stats_spread *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->ratio = out->ci95_lo = out->ci95_hi = out->p_value = NAN;
	if (n < 4)
		return -EINVAL;
	bool logs = true;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(base[i]) || !isfinite(arm[i]))
			return -EINVAL;
		logs = logs && base[i] > 0 && arm[i] > 0;
	}
	double mx = 0, my = 0;
	for (size_t i = 0; i < n; i++) {
		mx += logs ? log(base[i]) : base[i];
		my += logs ? log(arm[i]) : arm[i];
	}
	mx /= (double)n;
	my /= (double)n;
	double vx = 0, vy = 0, cxy = 0;
	for (size_t i = 0; i < n; i++) {
		double dx = (logs ? log(base[i]) : base[i]) - mx;
		double dy = (logs ? log(arm[i]) : arm[i]) - my;
		vx += dx * dx;
		vy += dy * dy;
		cxy += dx * dy;
	}
	vx /= (double)(n - 1);
	vy /= (double)(n - 1);
	cxy /= (double)(n - 1);
	/* A spread of 0 in an arm (every value equal) has no ratio to test,
	 * nor do arms that move in perfect step. */
	bool spread_x = sqrt(vx) > 1e-12 * fmax(fabs(mx), 1e-300);
	bool spread_y = sqrt(vy) > 1e-12 * fmax(fabs(my), 1e-300);
	double rxy2 = spread_x && spread_y ? cxy * cxy / (vx * vy) : 1;
	if (!spread_x || !spread_y || rxy2 > 1 - 1e-12)
		return -EINVAL;
	double df = (double)(n - 2);
	double tq = stats_t_quantile(0.975, df);
	double r0 = sqrt(tq * tq / (df + tq * tq));
	double ratio = sqrt(vy / vx);
	out->on_logs = logs;
	out->ratio = ratio;
	out->ci95_lo = pm_solve(vx, vy, cxy, ratio, r0);
	out->ci95_hi = pm_solve(vx, vy, cxy, ratio, -r0);
	double r1 = pm_corr(vx, vy, cxy, 1.0);
	double t = r1 * sqrt(df) / sqrt(fmax(1 - r1 * r1, 1e-300));
	out->p_value = fmin(1.0, 2 * (1 - stats_t_cdf(fabs(t), df)));
	out->verdict = out->ci95_hi < 1 ? SPREAD_STEADIER : out->ci95_lo > 1 ? SPREAD_NOISIER
		       : SPREAD_CANT_TELL;
	out->computable = true;
	return 0;
}

const char *stats_spread_name(enum stats_spread_verdict v)
{
	return v == SPREAD_STEADIER ? "steadier" : v == SPREAD_NOISIER ? "noisier"
	       : "can't tell";
}

const char *stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case VERDICT_BETTER:
		return "better";
	case VERDICT_WORSE:
		return "worse";
	case VERDICT_EQUIVALENT:
		return "equivalent";
	case VERDICT_INCONCLUSIVE:
		return "inconclusive";
	}
	return NULL;
}

size_t stats_rounds_for_alpha(double alpha)
{
	size_t n = 1;

	while (n < 64 && !(stats_signflip_p_min(n) < alpha))
		n++;
	return n;
}

/* t(0.975 or 0.95, m-1) + t(POWER, m-1): how many standard errors the
 * effect (or the margin) must span at m rounds. */
static double power_mult(long m, double level)
{
	double df = (double)(m - 1);

	return stats_t_quantile(level, df) + stats_t_quantile(STATS_POWER, df);
}

/* Does m rounds give signal / (sd / sqrt m) >= power_mult? Easier as m
 * grows: sqrt(m) grows and both t quantiles shrink. */
static bool enough_at(long m, double signal, double sd, double level)
{
	return sqrt((double)m) * signal / sd >= power_mult(m, level);
}

/* The smallest m >= lo with enough_at, by doubling then bisection; -1
 * beyond STATS_ROUNDS_MAX. */
static long smallest_enough(long lo, double signal, double sd, double level)
{
	if (enough_at(lo, signal, sd, level))
		return lo;
	long bad = lo, hi = lo;

	do {
		bad = hi;
		if (hi >= STATS_ROUNDS_MAX)
			return -1;
		hi = hi * 2 > STATS_ROUNDS_MAX ? STATS_ROUNDS_MAX : hi * 2;
	} while (!enough_at(hi, signal, sd, level));
	while (hi - bad > 1) {	/* enough at hi, not at bad */
		long mid = bad + (hi - bad) / 2;
		if (enough_at(mid, signal, sd, level))
			hi = mid;
		else
			bad = mid;
	}
	return hi;
}

/* See stats.h: the rounds an inconclusive comparison would likely need. */
static long rounds_to_settle(const struct stats_paired *p, double gate,
			     double equiv, size_t n_alpha, enum stats_aim *aim)
{
	long lo = (long)p->n + 1;
	double mean = p->mean_d, sd = p->sd_d;

	*aim = STATS_AIM_NONE;
	if (fabs(pct_of_log(mean)) > gate) {
		*aim = STATS_AIM_DIFFERENCE;
		/* Detect it: the p-value rule needs n_alpha rounds at least. */
		if (lo < (long)n_alpha)
			lo = (long)n_alpha;
		if (!(sd > 0))
			return lo;
		if (mean == 0)
			return -1;
		return smallest_enough(lo, fabs(mean), sd, 0.975);
	}
	/* Show it inside the equivalence bound: the margin to its nearer
	 * end. An effect between that bound and the noise gate can be
	 * neither (more rounds do not move it): no estimate. */
	double up = log1p(equiv / 100);
	double down = equiv < 100 ? log1p(-equiv / 100) : -INFINITY;
	double margin = fmin(up - mean, mean - down);
	if (!(margin > 0) || !(sd > 0))
		return -1;
	*aim = STATS_AIM_EQUIVALENCE;
	return smallest_enough(lo, margin, sd, 0.95);
}

/* What the verdict rule reads of a comparison, paired or unpaired: the
 * two structs name these fields alike, so JUDGE_IN_OF reads either. */
struct judge_in {
	double delta_pct, ci95_lo_pct, ci95_hi_pct, ci90_lo_pct, ci90_hi_pct;
	double p_value, p_min;
	bool ci_computable;
};

#define JUDGE_IN_OF(s) { \
	.delta_pct = (s)->delta_pct, .ci95_lo_pct = (s)->ci95_lo_pct, \
	.ci95_hi_pct = (s)->ci95_hi_pct, .ci90_lo_pct = (s)->ci90_lo_pct, \
	.ci90_hi_pct = (s)->ci90_hi_pct, .p_value = (s)->p_value, \
	.p_min = (s)->p_min, .ci_computable = (s)->ci_computable }

/* The verdict rule both kinds of comparison share (stats.h). Fills out
 * from zero; true when the comparison had a CI and is inconclusive, so
 * the caller estimates rounds_needed by its own design. */
static bool judge_ci(const struct judge_in *in, double gate_pct, double equiv_pct,
		     bool higher_is_better, struct stats_judgement *out)
{
	memset(out, 0, sizeof(*out));
	out->gate_pct = gate_pct;
	out->equiv_pct = equiv_pct;
	out->higher_is_better = higher_is_better;
	out->clears_gate = fabs(in->delta_pct) > gate_pct;
	out->alpha = STATS_ALPHA;
	out->p_reachable = in->p_min < STATS_ALPHA;
	out->p_below_alpha = in->p_value < STATS_ALPHA;
	if (!in->ci_computable) {
		out->verdict = VERDICT_INCONCLUSIVE;
		out->rounds_needed = -1;
		return false;
	}
	out->ci95_excludes_zero = in->ci95_lo_pct > 0 || in->ci95_hi_pct < 0;
	out->ci90_within_gate = in->ci90_lo_pct >= -equiv_pct &&
				in->ci90_hi_pct <= equiv_pct;
	bool decisive = out->ci95_excludes_zero && out->clears_gate;
	if (decisive && out->p_below_alpha) {
		bool up = in->delta_pct > 0;
		out->verdict = up == higher_is_better ? VERDICT_BETTER : VERDICT_WORSE;
		return false;
	}
	if (out->ci90_within_gate) {
		out->verdict = VERDICT_EQUIVALENT;
		return false;
	}
	out->verdict = VERDICT_INCONCLUSIVE;
	out->held_by_p = decisive;
	return true;
}

int stats_judge(const struct stats_paired *p,
		const struct stats_position *position,
		const struct stats_trend *trend, double gate_pct,
		bool higher_is_better, struct stats_judgement *out)
{
	return stats_judge_eq(p, position, trend, gate_pct, gate_pct,
			      higher_is_better, out);
}

int stats_judge_eq(const struct stats_paired *p,
		   const struct stats_position *position,
		   const struct stats_trend *trend, double gate_pct,
		   double equiv_pct, bool higher_is_better,
		   struct stats_judgement *out)
{
	if (!(gate_pct >= 0) || isinf(gate_pct) || !(equiv_pct >= 0) ||
	    equiv_pct > gate_pct)
		return -EINVAL;

	const struct judge_in in = JUDGE_IN_OF(p);
	bool unsettled = judge_ci(&in, gate_pct, equiv_pct, higher_is_better, out);
	out->n_favour_arm = higher_is_better ? p->n_arm_higher : p->n_arm_lower;
	out->n_favour_base = higher_is_better ? p->n_arm_lower : p->n_arm_higher;
	out->n_ties = p->n_equal;

	double big = fabs(p->delta_pct) / 2;
	out->position_large = position && position->computable &&
			      fabs(position->pct) > big &&
			      fabs(position->pct) > gate_pct;
	out->trend_large = trend && trend->computable &&
			   fabs(trend->pct_span) > big &&
			   fabs(trend->pct_span) > gate_pct;
	size_t n_alpha = stats_rounds_for_alpha(STATS_ALPHA);
	if (unsettled)
		out->rounds_needed = rounds_to_settle(p, gate_pct, equiv_pct, n_alpha,
						      &out->aim);
	return 0;
}

/* ---- unpaired comparison ---- */

/* C(n, k), or a value above cap once it passes cap. */
static double choose_capped(size_t n, size_t k, double cap)
{
	double c = 1;

	if (k > n - k)
		k = n - k;
	for (size_t i = 1; i <= k; i++) {
		c = c * (double)(n - k + i) / (double)i;
		if (c > cap)
			return c;
	}
	return c;
}

/* |mean of the rest - mean of group A| for group A's sum. */
static double split_stat(double sum_a, double total, size_t na, size_t nb)
{
	return fabs((total - sum_a) / (double)nb - sum_a / (double)na);
}

/* The permutation p of the pooled logs v[0..n-1] (the first na are A). */
static double perm_p(const double *v, size_t na, size_t nb, bool *exact)
{
	size_t n = na + nb;
	double total = 0, sum_a = 0, scale = 0;

	for (size_t i = 0; i < n; i++) {
		total += v[i];
		scale += fabs(v[i]);
		if (i < na)
			sum_a += v[i];
	}
	double obs = split_stat(sum_a, total, na, nb);
	/* Ties within rounding count as at least as extreme. */
	double thr = obs - 1e-9 * (scale / (double)na + scale / (double)nb);
	double splits = choose_capped(n, na, STATS_PERM_EXACT_MAX);
	uint64_t hits = 0, all = 0;

	*exact = splits <= STATS_PERM_EXACT_MAX;
	if (*exact) {
		size_t idx[64];
		if (na > 64)
			*exact = false;
		for (size_t i = 0; *exact && i < na; i++)
			idx[i] = i;
		while (*exact) {
			double s = 0;
			for (size_t i = 0; i < na; i++)
				s += v[idx[i]];
			hits += split_stat(s, total, na, nb) >= thr;
			all++;
			/* the next combination in lexicographic order */
			size_t i = na;
			while (i > 0 && idx[i - 1] == n - na + i - 1)
				i--;
			if (i == 0)
				break;
			idx[i - 1]++;
			for (size_t j = i; j < na; j++)
				idx[j] = idx[j - 1] + 1;
		}
		if (*exact)
			return (double)hits / (double)all;
	}
	size_t *perm = malloc(n * sizeof(*perm));
	if (!perm)
		return NAN;
	uint64_t state = SIGNFLIP_SEED;
	for (long d = 0; d < STATS_PERM_DRAWS; d++) {
		for (size_t i = 0; i < n; i++)
			perm[i] = i;
		double s = 0;
		for (size_t i = 0; i < na; i++) {
			size_t j = i + (size_t)(splitmix64(&state) % (n - i));
			size_t t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
			s += v[perm[i]];
		}
		hits += split_stat(s, total, na, nb) >= thr;
	}
	free(perm);
	return (double)(hits + 1) / (double)(STATS_PERM_DRAWS + 1);
}

int stats_unpaired_log(const double *a, size_t na, const double *b, size_t nb,
		       struct stats_unpaired *out, char **cause)
{
	if (cause)
		*cause = NULL;
	if (!na || !nb) {
		cause_set(cause, 0, "cannot compare: set %s has no value", na ? "B" : "A");
		return -EINVAL;
	}
	double *v = malloc((na + nb) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	int err = 0;
	for (size_t i = 0; i < na + nb && !err; i++) {
		double x = i < na ? a[i] : b[i - na];
		if (!isfinite(x) || x <= 0) {
			cause_set(cause, 0, "cannot compare run %zu of set %s: its value is "
				  "%.9g, and a log needs a value above 0",
				  i < na ? i + 1 : i - na + 1, i < na ? "A" : "B", x);
			err = -EINVAL;
		}
		v[i] = log(x);
	}
	if (err)
		goto out_free;
	memset(out, 0, sizeof(*out));
	out->na = na;
	out->nb = nb;
	mean_sd(v, na, &out->mean_a, &out->sd_a);
	mean_sd(v + na, nb, &out->mean_b, &out->sd_b);
	double med_a, med_b, m = out->mean_b - out->mean_a;
	if ((err = median_of(v, na, &med_a)) || (err = median_of(v + na, nb, &med_b)))
		goto out_free;
	out->delta_pct = pct_of_log(m);
	out->delta_pct_median = pct_of_log(med_b - med_a);
	out->signs_agree = sign_of(m) == sign_of(med_b - med_a);
	out->ci_computable = na >= 2 && nb >= 2;
	if (out->ci_computable) {
		double va = out->sd_a * out->sd_a / (double)na;
		double vb = out->sd_b * out->sd_b / (double)nb;
		out->se = sqrt(va + vb);
		/* Welch-Satterthwaite; with no spread at all the CI is the
		 * point and df does not matter. */
		out->df = out->se > 0 ? (va + vb) * (va + vb) /
			  (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1))
			  : (double)(na + nb - 2);
		out->t_mult95 = stats_t_quantile(0.975, out->df);
		double t90 = stats_t_quantile(0.95, out->df);
		out->ci95_lo_pct = pct_of_log(m - out->t_mult95 * out->se);
		out->ci95_hi_pct = pct_of_log(m + out->t_mult95 * out->se);
		out->ci90_lo_pct = pct_of_log(m - t90 * out->se);
		out->ci90_hi_pct = pct_of_log(m + t90 * out->se);
	} else {
		out->se = out->df = out->t_mult95 = NAN;
		out->ci95_lo_pct = out->ci95_hi_pct = NAN;
		out->ci90_lo_pct = out->ci90_hi_pct = NAN;
	}
	out->p_value = perm_p(v, na, nb, &out->p_exact);
	double c = choose_capped(na + nb, na, 1e300);
	out->p_min = out->p_exact ? (na == nb ? 2 : 1) / c
		     : 1.0 / (STATS_PERM_DRAWS + 1);
	if (out->p_min > 1)
		out->p_min = 1;
out_free:
	free(v);
	return err;
}

/* Runs per set whose Welch test would detect the effect (or fit the 90%
 * CI inside the gate) 4 times in 5, if the effect and pooled sd held. */
static bool enough_unpaired(long m, double signal, double sd, double level)
{
	double df = 2.0 * (double)m - 2;

	return sqrt((double)m / 2) * signal / sd >=
	       stats_t_quantile(level, df) + stats_t_quantile(STATS_POWER, df);
}

static long runs_to_settle(const struct stats_unpaired *u, double gate)
{
	double sd = sqrt((u->sd_a * u->sd_a + u->sd_b * u->sd_b) / 2);
	double mean = u->mean_b - u->mean_a, signal, level;
	long lo = (long)(u->na > u->nb ? u->na : u->nb) + 1;

	if (fabs(pct_of_log(mean)) > gate) {
		/* 2 / C(2m, m) < alpha from 4 runs a set at 0.05 */
		long m_alpha = 2;
		while (2 / choose_capped(2 * (size_t)m_alpha, (size_t)m_alpha, 1e300) >=
		       STATS_ALPHA)
			m_alpha++;
		if (lo < m_alpha)
			lo = m_alpha;
		if (!(sd > 0))
			return lo;
		if (mean == 0)
			return -1;
		signal = fabs(mean);
		level = 0.975;
	} else {
		double up = log1p(gate / 100);
		double down = gate < 100 ? log1p(-gate / 100) : -INFINITY;
		signal = fmin(up - mean, mean - down);
		if (!(signal > 0) || !(sd > 0))
			return -1;
		level = 0.95;
	}
	for (long m = lo; m <= STATS_ROUNDS_MAX; m = m < 64 ? m + 1 : m + m / 16)
		if (enough_unpaired(m, signal, sd, level))
			return m;
	return -1;
}

int stats_judge_unpaired(const struct stats_unpaired *u, double gate_pct,
			 bool higher_is_better, struct stats_judgement *out)
{
	if (!(gate_pct >= 0) || isinf(gate_pct))
		return -EINVAL;
	const struct judge_in in = JUDGE_IN_OF(u);
	if (judge_ci(&in, gate_pct, gate_pct, higher_is_better, out)) {
		out->rounds_needed = runs_to_settle(u, gate_pct);
		out->aim = fabs(in.delta_pct) > gate_pct ? STATS_AIM_DIFFERENCE
			   : STATS_AIM_EQUIVALENCE;
		if (out->rounds_needed < 0)
			out->aim = STATS_AIM_NONE;
	}
	return 0;
}

/* ---- sign test ---- */

double stats_sign_test(size_t n_up, size_t n_down, double *p_min)
{
	size_t n = n_up + n_down, k = n_up < n_down ? n_up : n_down;
	double tail = 0;

	if (p_min)
		*p_min = n <= 1 ? 1 : fmin(1, ldexp(2, -(int)(n < 1074 ? n : 1074)));
	if (n == 0)
		return 1;
	/* P(X <= k) = sum C(n, i) / 2^n. Up to 1,000 scenes term by term
	 * from 2^-n (exact where the terms are: 0.6875 stays 0.6875); past
	 * that in logs, C(n, i) = 1 / ((n + 1) B(i + 1, n - i + 1)) through
	 * log_beta's thread-safe lgamma_r, so large n cannot overflow. */
	if (n <= 1000) {
		double t = ldexp(1, -(int)n);
		for (size_t i = 0; i <= k; i++) {
			tail += t;
			t = t * (double)(n - i) / (double)(i + 1);
		}
	} else {
		for (size_t i = 0; i <= k; i++)
			tail += exp(-log((double)n + 1) -
				    log_beta((double)i + 1, (double)(n - i) + 1) -
				    (double)n * M_LN2);
	}
	return fmin(1, 2 * tail);
}
