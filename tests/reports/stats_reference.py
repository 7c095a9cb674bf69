#!/usr/bin/env python3
"""Reference values for tests/reports/test_stats.c.

Computed independently of reports/stats.c: Student's t quantiles by two
methods that share no code with it (mpmath's incomplete beta at 40 digits,
and the exact finite series of Abramowitz & Stegun 26.7.3/26.7.4 for
integer df), sign-flip p-values by brute-force enumeration over every sign
assignment (exact integers where the data allow), everything else with the
statistics and math modules. Run it with python3 (needs mpmath) and compare
its output with the constants in the test; the test cites the section.
"""
import itertools
import math
import statistics
from fractions import Fraction

import mpmath as mp

mp.mp.dps = 40


def t_quantile_mp(p, df):
    """Upper-tail root of 1/2 I_{df/(df+t^2)}(df/2, 1/2) = 1 - p, bisection."""
    p, df = mp.mpf(p), mp.mpf(df)
    q = 1 - p

    def upper(t):
        return mp.betainc(df / 2, mp.mpf(1) / 2, 0, df / (df + t * t),
                          regularized=True) / 2

    lo, hi = mp.mpf(0), mp.mpf(1)
    while upper(hi) > q:
        lo, hi = hi, hi * 2
    for _ in range(140):
        mid = (lo + hi) / 2
        if upper(mid) > q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def t_cdf_series(t, df):
    """A&S 26.7.3 (odd df) and 26.7.4 (even df): exact for integer df."""
    t = mp.mpf(t)
    th = mp.atan(t / mp.sqrt(df))
    s, c = mp.sin(th), mp.cos(th)
    if df % 2 == 1:
        acc, term = mp.mpf(0), c
        if df > 1:
            acc = term
            for k in range(3, df - 1, 2):   # coefficients 2/3, 2*4/(3*5)...
                term = term * (k - 1) / k * c * c
                acc += term
        a = 2 / mp.pi * (th + s * acc)
    else:
        acc, term = mp.mpf(1), mp.mpf(1)
        for k in range(2, df - 1, 2):       # 1/2, 1*3/(2*4)...
            term = term * (k - 1) / k * c * c
            acc += term
        a = s * acc
    return (1 + a) / 2


def t_quantile_series(p, df):
    lo, hi = mp.mpf(0), mp.mpf(1)
    while t_cdf_series(hi, df) < p:
        lo, hi = hi, hi * 2
    for _ in range(140):
        mid = (lo + hi) / 2
        if t_cdf_series(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def tq(p, df):
    a = t_quantile_mp(p, df)
    b = t_quantile_series(p, df)
    assert abs(a - b) < mp.mpf(10) ** -25 * a, (p, df, a, b)
    return float(a)


def section(name):
    print()
    print("==", name)


def signflip_bruteforce(d, tol_rel=1e-9):
    obs = abs(sum(d))
    scale = sum(abs(x) for x in d)
    count = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        if abs(sum(s * x for s, x in zip(signs, d))) >= obs - tol_rel * scale:
            count += 1
    return count, 2 ** len(d)


def signflip_exact_int(k):
    """Integer data: no tolerance needed, no rounding."""
    obs = abs(sum(k))
    count = sum(1 for signs in itertools.product((1, -1), repeat=len(k))
                if abs(sum(s * x for s, x in zip(signs, k))) >= obs)
    return Fraction(count, 2 ** len(k))


def paired(base, arm):
    d = [math.log(b / a) for a, b in zip(base, arm)]
    n = len(d)
    m = statistics.fmean(d)
    out = {"d": d, "mean_d": m, "median_d": statistics.median(d),
           "delta_pct": 100 * math.expm1(m),
           "delta_pct_median": 100 * math.expm1(statistics.median(d))}
    if n >= 2:
        sd = statistics.stdev(d)
        se = sd / math.sqrt(n)
        t95, t90 = tq(0.975, n - 1), tq(0.95, n - 1)
        out.update(sd_d=sd, se_d=se, t95=t95, t90=t90,
                   h95=t95 * se, h90=t90 * se,
                   ci95=(100 * math.expm1(m - t95 * se),
                         100 * math.expm1(m + t95 * se)),
                   ci90=(100 * math.expm1(m - t90 * se),
                         100 * math.expm1(m + t90 * se)))
    c, tot = signflip_bruteforce(d)
    out["p"] = (c, tot, c / tot)
    return out


def show(name, base, arm):
    r = paired(base, arm)
    print(name, "base", base, "arm", arm)
    for k, v in r.items():
        print("  %s = %r" % (k, v))
    return r


def rounds_for_alpha(alpha=0.05):
    """Fewest rounds whose exact sign-flip test can give p < alpha."""
    n = 1
    while Fraction(2, 2 ** n) >= Fraction(alpha).limit_denominator(1000):
        n += 1
    return n


def enough(m, signal, sd, level, power=0.80):
    """sqrt(m) * signal / sd >= t(level, m-1) + t(power, m-1)."""
    return (math.sqrt(m) * signal / sd
            >= tq(level, m - 1) + tq(power, m - 1))


def rounds_needed(n, mean, sd, gate, alpha=0.05):
    """Power calculation from the observed effect and spread; linear scan."""
    pct = lambda x: 100 * math.expm1(x)
    if abs(pct(mean)) > gate:
        m = max(n + 1, rounds_for_alpha(alpha))
        if sd == 0:
            return m
        while not enough(m, abs(mean), sd, 0.975):
            m += 1
        return m
    margin = min(math.log1p(gate / 100) - mean,
                 mean - (math.log1p(-gate / 100) if gate < 100 else -math.inf))
    if margin <= 0 or sd == 0:
        return -1
    m = n + 1
    while not enough(m, margin, sd, 0.95):
        m += 1
    return m


def main():
    section("t quantiles (mpmath betainc == A&S series to 1e-25)")
    for p in (0.975, 0.95):
        for df in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20, 30, 50, 100,
                   200, 500, 1000):
            print("  p=%s df=%d t=%.17g" % (p, df, tq(p, df)))
    print("  non-integer df 2.5, p=0.975: %.17g"
          % float(t_quantile_mp(0.975, 2.5)))
    print("  df=1e6 p=0.975: %.17g" % float(t_quantile_mp(0.975, 10**6)))

    section("summary")
    v = [3, 1, 4, 1, 5, 9, 2, 6]
    print("  v", v, "mean", statistics.fmean(v), "median",
          statistics.median(v), "sd", statistics.stdev(v), "se",
          statistics.stdev(v) / math.sqrt(len(v)))

    section("paired")
    show("n3", [100, 102, 98], [95, 97, 96])
    show("n2", [10, 10], [11, 12])
    show("n6", [10.0, 10.2, 9.9, 10.1, 10.0, 9.8],
         [9.6, 9.9, 9.4, 9.8, 9.7, 9.5])

    section("sign-flip ties (integer data scaled by 0.1)")
    for k in ([1, 1, -1, 1, 0], [1, 2, -3, 3], [0, 0, 5], [1, 2, 3, 4],
              [1, -1, 1, -1, 1, 1]):
        print("  d = 0.1 *", k, "p =", signflip_exact_int(k))
    d = [1.0, 1.0, 1e-6]
    print("  d =", d, "p = %d/%d" % signflip_bruteforce(d))

    section("sign-flip against brute force")
    for n in (7, 16):
        d = [0.01 + 0.05 * math.sin(1.7 * i) for i in range(n)]
        c, tot = signflip_bruteforce(d)
        obs = abs(sum(d))
        gap = min(abs(abs(sum(s * x for s, x in zip(sg, d))) - obs)
                  for sg in itertools.product((1, -1), repeat=n)
                  if abs(abs(sum(s * x for s, x in zip(sg, d))) - obs) > 0)
        print("  n=%d p=%d/%d=%.17g (closest other |S| is %.3g away)"
              % (n, c, tot, c / tot, gap))

    section("sign-flip Monte Carlo case: 24 values of +-0.01, 17 positive")
    # |sum| >= 10 * 0.01  <=>  K >= 17 or K <= 7 for K ~ Binomial(24, 1/2)
    p = sum(math.comb(24, k) for k in range(25) if k >= 17 or k <= 7) / 2**24
    print("  exact p = %.17g" % p)
    print("  Monte Carlo sd at 1e5 draws = %.3g"
          % math.sqrt(p * (1 - p) / 1e5))

    section("rounds needed")
    print("  rounds for alpha 0.05: %d" % rounds_for_alpha())
    # The context-switch case of issue 15: -41.7% [-66.2, +0.6] at n = 4.
    cs_mean = (math.log(1.006) + math.log(0.338)) / 2
    cs_sd = (math.log(1.006) - math.log(0.338)) / 2 / tq(0.975, 3) * 2
    for n, mean, sd, gate in ((3, 0.004, 0.02, 1.0), (4, 0.0, 0.05, 1.0),
                              (5, 0.0095, 0.001, 1.0),
                              (3, -0.0407248054570582, 0.017419525694926805,
                               1.0), (3, -0.0407248054570582,
                                      0.017419525694926805, 0.0),
                              (4, cs_mean, cs_sd, 1.0)):
        print("  n=%d mean=%.17g sd=%.17g gate=%g: needed %d"
              % (n, mean, sd, gate, rounds_needed(n, mean, sd, gate)))

    section("unpaired (Welch on logs, permutation p)")
    for x, y in (([0, 0.1, 0.2], [0.3, 0.5]),
                 ([math.log(v) for v in (10, 10.1, 9.9, 10.05)],
                  [math.log(v) for v in (11, 11.1, 10.9, 11.05)])):
        na, nb = len(x), len(y)
        va = statistics.stdev(x) ** 2 / na
        vb = statistics.stdev(y) ** 2 / nb
        se = math.sqrt(va + vb)
        df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
        m = statistics.fmean(y) - statistics.fmean(x)
        t = float(t_quantile_mp(0.975, df))
        v = x + y
        obs = abs(m)
        cnt = tot = 0
        for comb in itertools.combinations(range(na + nb), na):
            sa = sum(v[i] for i in comb)
            st = abs((sum(v) - sa) / nb - sa / na)
            tot += 1
            cnt += st >= obs - 1e-9
        print("  x=%r y=%r: delta%%=%.17g se=%.17g df=%.17g t=%.17g "
              "ci95=(%.17g, %.17g) p=%d/%d"
              % (x, y, 100 * math.expm1(m), se, df, t,
                 100 * math.expm1(m - t * se), 100 * math.expm1(m + t * se),
                 cnt, tot))

    section("a/a gate")
    a1, a2 = [100, 101, 99, 100], [101, 100, 100, 98]
    dp = [100 * (y / x - 1) for x, y in zip(a1, a2)]
    print("  delta%_r", dp, "gate", 2 * statistics.stdev(dp))

    section("design checks")
    print("  trend 1%%/round over 4 rounds: span %.17g"
          % (100 * (1.01 ** 4 - 1)))
    print("  trend 1%%/round over x 0..5: span %.17g"
          % (100 * (1.01 ** 5 - 1)))

    section("spread ratio (Pitman-Morgan, Pitman's closed form)")
    # The CI of the variance ratio L = var(arm) / var(base) in closed
    # form (Pitman 1939): F (K -+ sqrt(K^2 - 1)), F the sample ratio,
    # K = 1 + 2 (1 - r^2) t^2 / (n - 2), r the correlation of the two;
    # the sd ratio's bounds are their square roots. p at ratio 1: t of
    # the correlation of (arm - base, arm + base) on n - 2 df.
    base = [10.0, 12.0, 9.0, 11.0, 13.0, 8.0, 10.5, 11.5]
    arm = [10.1, 10.4, 10.0, 10.2, 10.6, 9.9, 10.3, 10.2]
    for name, b, a in (("steadier", base, arm), ("noisier", arm, base)):
        x = [mp.log(v) for v in b]
        y = [mp.log(v) for v in a]
        n = len(x)
        mx, my = sum(x) / n, sum(y) / n
        vx = sum((v - mx) ** 2 for v in x) / (n - 1)
        vy = sum((v - my) ** 2 for v in y) / (n - 1)
        cxy = sum((u - mx) * (v - my) for u, v in zip(x, y)) / (n - 1)
        r2 = cxy * cxy / (vx * vy)
        f = vy / vx
        t = mp.mpf(tq(0.975, n - 2))
        k = 1 + 2 * (1 - r2) * t * t / (n - 2)
        lo, hi = f * (k - mp.sqrt(k * k - 1)), f * (k + mp.sqrt(k * k - 1))
        u = [v - w for v, w in zip(y, x)]
        w = [v + z for v, z in zip(y, x)]
        mu, mw = sum(u) / n, sum(w) / n
        cuw = sum((p - mu) * (q - mw) for p, q in zip(u, w))
        ruw = cuw / mp.sqrt(sum((p - mu) ** 2 for p in u) * sum((q - mw) ** 2 for q in w))
        tt = ruw * mp.sqrt(n - 2) / mp.sqrt(1 - ruw * ruw)
        pv = 2 * (1 - t_cdf_series(abs(float(tt)), n - 2))
        print("  %s: ratio %.15g ci [%.15g, %.15g] p %.15g" % (
            name, float(mp.sqrt(f)), float(mp.sqrt(lo)), float(mp.sqrt(hi)), pv))


if __name__ == "__main__":
    main()
