/* probe (reports): grades, knees, and a probe run in every format. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "common/order.h"
#include "reports/probe.h"
#include "reports/probeplot.h"
#include "reports/rows.h"

/* ---- grades --------------------------------------------------------------- */

const char *probe_grade_name(enum probe_grade g)
{
	switch (g) {
	case PROBE_GRADE_PLAUSIBLE:
		return "plausible";
	case PROBE_GRADE_IMPLAUSIBLE:
		return "implausible";
	case PROBE_GRADE_NOT_SUPPORTED:
		return "not supported";
	case PROBE_GRADE_MULTIPLEXED:
		return "multiplexed";
	case PROBE_GRADE_NOT_RUN:
		return "not run";
	}
	return "?";
}

double probe_measured(const struct db_probe_counter *c)
{
	if (!c->opened || !c->running)
		return NAN;
	if (c->running < c->enabled)
		return (double)c->value * (double)c->enabled / (double)c->running;
	return (double)c->value;
}

enum probe_grade probe_grade_of(const struct db_probe_counter *c)
{
	if (!c->opened)
		return PROBE_GRADE_NOT_SUPPORTED;
	if (!c->ran || c->expected <= 0)
		return PROBE_GRADE_NOT_RUN;
	/* Scaled or never counted: an estimate, which cannot grade the
	 * counter either way. */
	if (!c->running || c->running < c->enabled)
		return PROBE_GRADE_MULTIPLEXED;
	double ratio = (double)c->value / c->expected;
	return ratio >= PROBE_PLAUSIBLE_LO && ratio <= PROBE_PLAUSIBLE_HI
	       ? PROBE_GRADE_PLAUSIBLE : PROBE_GRADE_IMPLAUSIBLE;
}

/* ---- knees ---------------------------------------------------------------- */

/* The median ns of pts[from..to). */
static double median_ns(const struct db_probe_point *pts, size_t from, size_t to)
{
	size_t n = to - from;
	double *v = malloc(n * sizeof(*v));
	if (!v)
		xalloc_die();
	for (size_t i = 0; i < n; i++)
		v[i] = pts[from + i].ns;
	double m = median_sort(v, n);
	free(v);
	return m;
}

/* The spread the knee rule reads: the interquartile range, or the
 * median alone for a size measured once. */
static double q1_of(const struct db_probe_point *q)
{
	return q->reps > 1 ? q->ns_q1 : q->ns;
}

static double q3_of(const struct db_probe_point *q)
{
	return q->reps > 1 ? q->ns_q3 : q->ns;
}

/* The rise from the plateau's last size below to the level above stands
 * clear of both sizes' spreads. Sizes measured once have none to judge
 * by: their rise stands (what prof did before it repeated sizes). */
static bool clear_of_noise(const struct db_probe_point *below,
			   const struct db_probe_point *above)
{
	if (below->reps <= 1 || above->reps <= 1)
		return true;
	return q1_of(above) >= PROBE_KNEE_CLEAR * q3_of(below);
}

size_t probe_knees_noise(const struct db_probe_point *pts, size_t n,
			 struct probe_knee *out, size_t cap,
			 struct probe_knee *noise, size_t ncap, size_t *nnoise)
{
	size_t k = 0, start = 0, i = 1;
	if (nnoise)
		*nnoise = 0;
	while (i < n && k < cap) {
		double base = median_ns(pts, start, i);
		double lim = base * PROBE_KNEE_RISE;
		/* On the plateau, or off it with one of the next two sizes
		 * back on it: latency does not fall as a chase grows, so that
		 * was a size disturbed from outside, not a level. */
		if (pts[i].ns <= lim || (i + 1 < n && pts[i + 1].ns <= lim) ||
		    (i + 2 < n && pts[i + 2].ns <= lim)) {
			i++;
			continue;
		}
		/* Follow the rise until it flattens. */
		size_t j = i;
		while (j + 1 < n && pts[j + 1].ns > PROBE_KNEE_FLAT * pts[j].ns)
			j++;
		double above = pts[j].ns;
		double mid = sqrt(base * above);
		size_t at = i - 1;
		for (size_t m = i; m < j && pts[m].ns <= mid; m++)
			at = m;
		struct probe_knee kn = {
			.bytes = pts[at].bytes, .next_bytes = pts[at + 1].bytes,
			.ns_below = base, .ns_above = above,
			.q3_below = q3_of(&pts[i - 1]), .q1_above = q1_of(&pts[j]),
		};
		/* A rise the spread does not carry is no knee, but the
		 * curve has still moved: what follows is judged from there. */
		if (clear_of_noise(&pts[i - 1], &pts[j]))
			out[k++] = kn;
		else if (nnoise && *nnoise < ncap)
			noise[(*nnoise)++] = kn;
		start = j;
		i = j + 1;
	}
	return k;
}

size_t probe_knees(const struct db_probe_point *pts, size_t n,
		   struct probe_knee *out, size_t cap)
{
	return probe_knees_noise(pts, n, out, cap, NULL, 0, NULL);
}

/* a within PROBE_KNEE_FACTOR of b, either way. */
static bool near(uint64_t a, uint64_t b)
{
	return a && b && (double)a <= PROBE_KNEE_FACTOR * (double)b &&
	       (double)b <= PROBE_KNEE_FACTOR * (double)a;
}

/* The knee closest to size (in log terms) within the factor, or NULL. */
static const struct probe_knee *knee_near(const struct probe_verdict *v,
					  uint64_t size)
{
	const struct probe_knee *best = NULL;
	double best_d = 0;
	for (size_t i = 0; i < v->nknees; i++) {
		if (!near(v->knees[i].bytes, size))
			continue;
		double d = fabs(log((double)v->knees[i].bytes / (double)size));
		if (!best || d < best_d) {
			best = &v->knees[i];
			best_d = d;
		}
	}
	return best;
}

void probe_verdict(const struct db_probe *p, struct probe_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->last_agrees = -1;
	v->memory_ns = NAN;
	v->nknees = probe_knees_noise(p->points, p->npoints, v->knees,
				      PROBE_MAX_KNEES, v->noise, PROBE_MAX_KNEES,
				      &v->nnoise);
	v->l1d = knee_near(v, p->l1d_bytes);
	v->l2 = knee_near(v, p->l2_bytes);
	if (!p->npoints)
		return;
	uint64_t top = p->points[p->npoints - 1].bytes;
	v->reaches_memory = !p->llc_bytes || top >= 2 * p->llc_bytes;
	if (!v->reaches_memory)
		return;
	v->memory_ns = p->points[p->npoints - 1].ns;
	/* Memory is several times slower than any cache level, while a TLB
	 * that runs out past the last level adds less than that: the knee
	 * into memory is the first one that lands within 2x of it. */
	/* Judged against the top size's lower quartile, so that a top
	 * slowed in some of its repetitions moves no knee. */
	double top_ns = q1_of(&p->points[p->npoints - 1]);
	for (size_t i = 0; i < v->nknees && !v->last; i++)
		if (v->knees[i].ns_above * 2 >= top_ns)
			v->last = &v->knees[i];
	/* Past the memory knee, latency can go on climbing without a knee
	 * of its own (on the VM, page walks took it from 165 ns at 256 MiB
	 * to 270-310 ns at 1 GiB), leaving every knee short of half of the
	 * top. Then the knee into memory is the last one that at least
	 * doubled latency, as no TLB step does. */
	for (size_t i = v->nknees; i-- > 0 && !v->last;)
		if (v->knees[i].ns_above >= 2 * v->knees[i].ns_below)
			v->last = &v->knees[i];
	/* Strictly above half: on a grid of two sizes a doubling, a knee a
	 * whole doubling short means half of the last level is not there. */
	if (v->last && p->llc_bytes)
		v->last_agrees = near(v->last->bytes, p->llc_bytes) &&
				 2 * v->last->bytes > p->llc_bytes;
}

/* ---- rows ----------------------------------------------------------------- */

static const char *level_name(int level)
{
	static const char *const names[] = { "L?", "L1", "L2", "L3", "L4", "L5",
					     "L6", "L7" };
	return level >= 1 && level <= 7 ? names[level] : "last level";
}

const char *probe_knee_role(const struct probe_verdict *v,
			    const struct probe_knee *k)
{
	if (k == v->l1d)
		return "L1d";
	if (k == v->l2)
		return "L2";
	if (k == v->last)
		return "memory";
	return NULL;
}

enum {
	L_BYTES, L_NS, L_SPREAD, L_STEPS, L_HUGE, L_REPS, L_MIN, L_Q1, L_Q3,
	L_MAX, L_BAR, L_N
};

static const struct col latency_cols[L_N] = {
	[L_BYTES] = { .key = "bytes", .title = "size", .kind = COL_BYTES },
	[L_NS] = { .key = "ns", .title = "ns/step", .kind = COL_REAL, .decimals = 2 },
	/* People read the interquartile range, the spread the knees are
	 * judged by; machines get every number. */
	[L_SPREAD] = { .key = "spread", .title = "q1-q3", .flags = COL_PEOPLE },
	[L_STEPS] = { .key = "steps", .kind = COL_INT, .flags = COL_MACHINES },
	[L_HUGE] = { .key = "huge_bytes", .kind = COL_INT, .flags = COL_MACHINES },
	[L_REPS] = { .key = "reps", .kind = COL_INT, .flags = COL_MACHINES },
	[L_MIN] = { .key = "ns_min", .kind = COL_REAL, .decimals = 2,
		    .flags = COL_MACHINES },
	[L_Q1] = { .key = "ns_q1", .kind = COL_REAL, .decimals = 2,
		   .flags = COL_MACHINES },
	[L_Q3] = { .key = "ns_q3", .kind = COL_REAL, .decimals = 2,
		   .flags = COL_MACHINES },
	[L_MAX] = { .key = "ns_max", .kind = COL_REAL, .decimals = 2,
		    .flags = COL_MACHINES },
	[L_BAR] = { .key = "bar", .title = "", .align = COL_LEFT,
		    .flags = COL_PEOPLE },
};

/* A bar for people: one '#' per quarter octave above the fastest size. */
static void bar(char *buf, size_t len, double ns, double fastest)
{
	size_t n = 1;
	if (fastest > 0 && ns > fastest)
		n += (size_t)lround(4 * log2(ns / fastest));
	if (n > 48)
		n = 48;
	if (n >= len)
		n = len - 1;
	memset(buf, '#', n);
	buf[n] = '\0';
}

/* Some size of p was measured more than once: it has a spread to show. */
static bool repeated(const struct db_probe *p)
{
	for (size_t i = 0; i < p->npoints; i++)
		if (p->points[i].reps > 1)
			return true;
	return false;
}

static struct rows *latency_rows(const struct db_probe *p)
{
	struct rows *r = rows_new("latency", latency_cols, L_N, ROWS_FLAT);
	double fastest = 0;
	for (size_t i = 0; i < p->npoints; i++)
		if (!fastest || p->points[i].ns < fastest)
			fastest = p->points[i].ns;
	for (size_t i = 0; i < p->npoints; i++) {
		const struct db_probe_point *q = &p->points[i];
		size_t row = rows_add(r);
		rows_uint(r, row, L_BYTES, q->bytes);
		rows_num(r, row, L_NS, q->ns);
		rows_uint(r, row, L_STEPS, q->steps);
		rows_uint(r, row, L_HUGE, q->huge_bytes);
		rows_uint(r, row, L_REPS, q->reps > 1 ? q->reps : 1);
		if (q->reps > 1) {
			rows_num(r, row, L_MIN, q->ns_min);
			rows_num(r, row, L_Q1, q->ns_q1);
			rows_num(r, row, L_Q3, q->ns_q3);
			rows_num(r, row, L_MAX, q->ns_max);
			rows_text(r, row, L_SPREAD, "%.2f-%.2f", q->ns_q1, q->ns_q3);
		} else {
			for (size_t c = L_MIN; c <= L_MAX; c++)
				rows_null(r, row, c);
			rows_str(r, row, L_SPREAD, "-");
		}
		char b[64];
		bar(b, sizeof(b), q->ns, fastest);
		rows_str(r, row, L_BAR, b);
	}
	/* A probe of sizes measured once (stored before prof repeated them,
	 * or --reps 1) reads as it always did. */
	if (!repeated(p)) {
		static const size_t plain[] = { L_BYTES, L_NS, L_BAR };
		rows_people_order(r, plain, 3);
	}
	return r;
}

enum {
	C_NAME, C_EXPECTED, C_MEASURED, C_RATIO, C_GRADE, C_EVENT, C_VALUE,
	C_ENABLED, C_RUNNING, C_RUNNING_PCT, C_BENCH, C_REASON, C_N
};

static const struct col counter_cols[C_N] = {
	[C_NAME] = { .key = "name", .title = "counter" },
	[C_EXPECTED] = { .key = "expected", .kind = COL_COUNT },
	[C_MEASURED] = { .key = "measured", .kind = COL_COUNT, .none = "-" },
	[C_RATIO] = { .key = "ratio", .kind = COL_REAL, .decimals = 2, .none = "-" },
	[C_GRADE] = { .key = "grade" },
	[C_EVENT] = { .key = "event", .flags = COL_MACHINES },
	[C_VALUE] = { .key = "value", .kind = COL_INT, .flags = COL_MACHINES },
	[C_ENABLED] = { .key = "time_enabled", .kind = COL_INT, .flags = COL_MACHINES },
	[C_RUNNING] = { .key = "time_running", .kind = COL_INT, .flags = COL_MACHINES },
	/* 100 unless multiplexed: then measured is the scaled value. */
	[C_RUNNING_PCT] = { .key = "running_pct", .kind = COL_PCT, .decimals = 1,
			    .flags = COL_MACHINES },
	[C_BENCH] = { .key = "bench", .title = "benchmark" },
	[C_REASON] = { .key = "reason", .flags = COL_MACHINES },
};

static struct rows *counter_rows(const struct db_probe *p)
{
	struct rows *r = rows_new("counters", counter_cols, C_N, 0);
	for (size_t i = 0; i < p->ncounters; i++) {
		const struct db_probe_counter *c = &p->counters[i];
		size_t row = rows_add(r);
		rows_str(r, row, C_NAME, c->name);
		if (c->ran)
			rows_num(r, row, C_EXPECTED, c->expected);
		else
			rows_null(r, row, C_EXPECTED);
		double m = probe_measured(c);
		rows_num(r, row, C_MEASURED, m);
		rows_num(r, row, C_RATIO, c->ran && c->expected > 0 ? m / c->expected
								     : NAN);
		rows_str(r, row, C_GRADE, c->grade);
		rows_str(r, row, C_EVENT, c->event);
		if (c->opened) {
			rows_uint(r, row, C_VALUE, c->value);
			rows_uint(r, row, C_ENABLED, c->enabled);
			rows_uint(r, row, C_RUNNING, c->running);
			rows_num(r, row, C_RUNNING_PCT, c->enabled
				 ? round(1000.0 * (double)c->running /
					 (double)c->enabled) / 10.0 : NAN);
		} else {
			rows_null(r, row, C_RUNNING_PCT);
			rows_null(r, row, C_VALUE);
			rows_null(r, row, C_ENABLED);
			rows_null(r, row, C_RUNNING);
		}
		rows_str(r, row, C_BENCH, c->bench);
		rows_str(r, row, C_REASON, c->reason);
	}
	return r;
}

enum { K_BYTES, K_NEXT, K_BELOW, K_ABOVE, K_ROLE, K_N };

static const struct col knee_cols[K_N] = {
	[K_BYTES] = { .key = "bytes", .kind = COL_BYTES },
	[K_NEXT] = { .key = "next_bytes", .kind = COL_BYTES },
	[K_BELOW] = { .key = "ns_below", .kind = COL_REAL, .decimals = 2 },
	[K_ABOVE] = { .key = "ns_above", .kind = COL_REAL, .decimals = 2 },
	[K_ROLE] = { .key = "matches" },
};

static struct rows *knee_rows(const struct probe_verdict *v)
{
	struct rows *r = rows_new("knees", knee_cols, K_N, ROWS_FLAT);
	for (size_t i = 0; i < v->nknees; i++) {
		const struct probe_knee *k = &v->knees[i];
		size_t row = rows_add(r);
		rows_uint(r, row, K_BYTES, k->bytes);
		rows_uint(r, row, K_NEXT, k->next_bytes);
		rows_num(r, row, K_BELOW, k->ns_below);
		rows_num(r, row, K_ABOVE, k->ns_above);
		rows_str(r, row, K_ROLE, probe_knee_role(v, k));
	}
	return r;
}

#define NOISE_COLS(K) \
	K(N_BYTES, "bytes", INT) K(N_NEXT, "next_bytes", INT) \
	K(N_BELOW, "ns_below", REAL) K(N_ABOVE, "ns_above", REAL) \
	K(N_Q3, "q3_below", REAL) K(N_Q1, "q1_above", REAL)
ROWS_KEYS(noise_cols, N_N, NOISE_COLS);

/* The rises that were no knee for the spread around them. */
static struct rows *noise_rows(const struct probe_verdict *v)
{
	struct rows *r = rows_new(NULL, noise_cols, N_N, ROWS_FLAT);
	for (size_t i = 0; i < v->nnoise; i++) {
		const struct probe_knee *k = &v->noise[i];
		size_t row = rows_add(r);
		rows_uint(r, row, N_BYTES, k->bytes);
		rows_uint(r, row, N_NEXT, k->next_bytes);
		rows_num(r, row, N_BELOW, k->ns_below);
		rows_num(r, row, N_ABOVE, k->ns_above);
		rows_num(r, row, N_Q3, k->q3_below);
		rows_num(r, row, N_Q1, k->q1_above);
	}
	return r;
}

#define SYSFS_COLS(K) \
	K(S_L1D, "l1d_bytes", INT) K(S_L1I, "l1i_bytes", INT) \
	K(S_L2, "l2_bytes", INT) K(S_LLC, "llc_bytes", INT) \
	K(S_LLC_LEVEL, "llc_level", INT)
ROWS_KEYS(sysfs_cols, S_N, SYSFS_COLS);

static void size_or_null(struct rows *r, size_t row, size_t col, uint64_t v)
{
	if (v)
		rows_uint(r, row, col, v);
	else
		rows_null(r, row, col);
}

#define LAST_COLS(K) \
	K(M_KNEE, "knee_bytes", INT) K(M_FROM, "memory_from_bytes", INT) \
	K(M_NS, "memory_ns", REAL) K(M_SYSFS, "sysfs_bytes", INT) \
	K(M_AGREES, "agrees", BOOL)
ROWS_KEYS(last_cols, M_N, LAST_COLS);

static struct rows *last_rows(const struct db_probe *p, const struct probe_verdict *v)
{
	struct rows *r = rows_new(NULL, last_cols, M_N, ROWS_OBJECT);
	if (!v->reaches_memory)
		return r;
	size_t row = rows_add(r);
	if (v->last) {
		rows_uint(r, row, M_KNEE, v->last->bytes);
		rows_uint(r, row, M_FROM, v->last->next_bytes);
	} else {
		rows_null(r, row, M_KNEE);
		rows_null(r, row, M_FROM);
	}
	rows_num(r, row, M_NS, v->memory_ns);
	size_or_null(r, row, M_SYSFS, p->llc_bytes);
	if (v->last_agrees >= 0)
		rows_bool(r, row, M_AGREES, v->last_agrees);
	else
		rows_null(r, row, M_AGREES);
	return r;
}

#define PROBE_COLS(K) \
	K(P_RUN_ID, "run_id", INT) K(P_KIND, "kind", TEXT) \
	K(P_STARTED, "started", TEXT) K(P_WALL, "wall_s", REAL) \
	K(P_HOSTNAME, "hostname", TEXT) K(P_CPU, "cpu", INT) \
	K(P_FAMILY, "family", TEXT) \
	K(P_MS, "ms_per_size", REAL) K(P_SEED, "seed", INT) \
	K(P_SYSFS, "sysfs", NEST) K(P_LATENCY, "latency", NEST) \
	K(P_KNEES, "knees", NEST) K(P_NOISE, "no_knee", NEST) \
	K(P_LAST, "last_level", NEST) \
	K(P_COUNTERS, "counters", NEST)
ROWS_KEYS(probe_cols, P_N, PROBE_COLS);

static struct rows *probe_record(const struct db_run *run, const struct db_probe *p,
				 const struct probe_verdict *v)
{
	struct rows *r = rows_new(NULL, probe_cols, P_N, 0);
	size_t row = rows_add(r);
	if (run->id > 0)
		rows_int(r, row, P_RUN_ID, run->id);
	else
		rows_null(r, row, P_RUN_ID);	/* not stored */
	rows_str(r, row, P_KIND, "probe");
	rows_str(r, row, P_STARTED, run->started);
	rows_num(r, row, P_WALL, run->wall_s);
	rows_str(r, row, P_HOSTNAME, run->host.hostname);
	if (p->cpu >= 0)
		rows_int(r, row, P_CPU, p->cpu);
	else
		rows_null(r, row, P_CPU);
	rows_str(r, row, P_FAMILY, p->family);
	rows_num(r, row, P_MS, p->ms_per_size);
	rows_uint(r, row, P_SEED, p->seed);

	struct rows *s = rows_new(NULL, sysfs_cols, S_N, ROWS_OBJECT);
	size_t srow = rows_add(s);
	size_or_null(s, srow, S_L1D, p->l1d_bytes);
	size_or_null(s, srow, S_L1I, p->l1i_bytes);
	size_or_null(s, srow, S_L2, p->l2_bytes);
	size_or_null(s, srow, S_LLC, p->llc_bytes);
	if (p->llc_level > 0)
		rows_int(s, srow, S_LLC_LEVEL, p->llc_level);
	else
		rows_null(s, srow, S_LLC_LEVEL);
	rows_nest(r, row, P_SYSFS, s);
	rows_nest(r, row, P_LATENCY, latency_rows(p));
	rows_nest(r, row, P_KNEES, knee_rows(v));
	rows_nest(r, row, P_NOISE, noise_rows(v));
	rows_nest(r, row, P_LAST, last_rows(p, v));
	rows_nest(r, row, P_COUNTERS, counter_rows(p));
	return r;
}

/* ---- people ---------------------------------------------------------------- */

static void size_text(char *buf, size_t len, uint64_t b)
{
	fmt_bytes(buf, len, (double)b);
}

static void write_header(const struct db_run *run, const struct db_probe *p,
			 const char *lead, bool md, FILE *fp)
{
	char lo[32] = "", hi[32] = "";
	if (p->npoints) {
		size_text(lo, sizeof(lo), p->points[0].bytes);
		size_text(hi, sizeof(hi), p->points[p->npoints - 1].bytes);
	}
	fprintf(fp, "%sprof probe", md ? "**" : lead);
	if (run->id > 0)
		fprintf(fp, " (run %lld)", (long long)run->id);
	fprintf(fp, ":%s ", md ? "**" : "");
	if (p->cpu >= 0)
		fprintf(fp, "CPU %d, ", p->cpu);
	fprintf(fp, "%zu size%s from %s to %s, %.0f ms each; %.1f s%s\n\n",
		p->npoints, p->npoints == 1 ? "" : "s", lo, hi, p->ms_per_size,
		run->wall_s, run->interrupted ? ", interrupted before the end" : "");
	uint64_t huge = 0, all = 0;
	for (size_t i = 0; i < p->npoints; i++) {
		huge += p->points[i].huge_bytes;
		all += p->points[i].bytes;
	}
	unsigned reps = 1;
	for (size_t i = 0; i < p->npoints; i++)
		if (p->points[i].reps > reps)
			reps = p->points[i].reps;
	if (reps > 1)
		fprintf(fp, "%slatency of a random pointer chase, one 64-byte line a "
			"step: each size the median of %u repetitions, each its "
			"fastest batch, interleaved across the sizes; q1-q3: their "
			"middle half", lead, reps);
	else
		fprintf(fp, "%slatency of a random pointer chase, one 64-byte line a "
			"step (the fastest batch of each size)", lead);
	if (all && huge < all)
		fprintf(fp, "; %.0f%% of it on huge pages: beyond the TLB's reach "
			"small pages add a page walk to each step",
			100.0 * (double)huge / (double)all);
	fprintf(fp, ":\n%s", md ? "\n" : "");
}

/* "L1d 32 KiB (sysfs): agrees, knee at 32 KiB" and the like. */
static void write_level(const char *lead, const char *what, uint64_t sysfs,
			const struct probe_knee *k, FILE *fp)
{
	char s[32], kb[32];
	if (!sysfs) {
		fprintf(fp, "%s  %s: sysfs gives no size\n", lead, what);
		return;
	}
	size_text(s, sizeof(s), sysfs);
	if (k) {
		size_text(kb, sizeof(kb), k->bytes);
		fprintf(fp, "%s  %s %s (sysfs): knee at %s (%.1f -> %.1f ns), agrees\n",
			lead, what, s, kb, k->ns_below, k->ns_above);
	} else {
		fprintf(fp, "%s  %s %s (sysfs): no knee within a factor of two\n",
			lead, what, s);
	}
}

static void write_last(const struct db_probe *p, const struct probe_verdict *v,
		       const char *lead, FILE *fp)
{
	char llc[32] = "", kb[32], from[32], top[32];
	const char *lvl = level_name(p->llc_level);
	if (p->llc_bytes)
		size_text(llc, sizeof(llc), p->llc_bytes);
	if (!p->npoints)
		return;
	size_text(top, sizeof(top), p->points[p->npoints - 1].bytes);
	if (!v->reaches_memory) {
		fprintf(fp, "%s  last level: the curve stops at %s, short of twice the "
			"%s %s sysfs reports: it cannot tell where memory latency "
			"starts (--max %lluM)\n", lead, top, llc, lvl,
			(unsigned long long)(4 * p->llc_bytes >> 20));
		return;
	}
	if (!v->last) {
		fprintf(fp, "%s  last level: no knee into memory latency (%.0f ns at "
			"%s)\n", lead, v->memory_ns, top);
		return;
	}
	size_text(kb, sizeof(kb), v->last->bytes);
	size_text(from, sizeof(from), v->last->next_bytes);
	fprintf(fp, "%s  last level: memory latency (%.0f ns at %s) from %s; "
		"the last knee is at %s", lead, v->memory_ns, top, from, kb);
	if (!p->llc_bytes) {
		fputs(" (sysfs gives no last level)\n", fp);
		return;
	}
	fprintf(fp, "; sysfs: %s %s, %s\n", lvl, llc,
		v->last_agrees ? "agrees" : "DIFFERS");
	if (v->last_agrees)
		return;
	if (v->last->bytes < p->llc_bytes)
		fprintf(fp, "\n%sa chase on this CPU gets about %s of the %s %s that "
			"sysfs reports: the rest is not there for it (on a VM or a "
			"shared host, other guests and tenants use it). Read cache "
			"conclusions, and size working sets, against %s, not %s.\n",
			lead, kb, llc, lvl, kb, llc);
	else
		fprintf(fp, "\n%sthe chase stays off memory latency up to %s, past "
			"the %s %s that sysfs reports (a cache level sysfs does "
			"not list, or one shared with other cores).\n",
			lead, kb, llc, lvl);
}

static void write_knees(const struct db_probe *p, const struct probe_verdict *v,
			const char *lead, bool md, FILE *fp)
{
	fprintf(fp, "%sknees (where ns/step rises %.1fx over its plateau):", lead,
		PROBE_KNEE_RISE);
	if (!v->nknees)
		fputs(" none", fp);
	for (size_t i = 0; i < v->nknees; i++) {
		char b[32];
		size_text(b, sizeof(b), v->knees[i].bytes);
		fprintf(fp, "%s %s", i ? "," : "", b);
	}
	fprintf(fp, "\n%s", md ? "\n" : "");
	/* A rise of the medians that the spread does not carry, said as
	 * plainly as a knee. */
	for (size_t i = 0; i < v->nnoise; i++) {
		const struct probe_knee *k = &v->noise[i];
		char b[32], nb[32];
		size_text(b, sizeof(b), k->bytes);
		size_text(nb, sizeof(nb), k->next_bytes);
		fprintf(fp, "%s  no knee at %s beyond the noise: the median rises "
			"%.1f -> %.1f ns past it, but the level above (q1 %.1f ns) "
			"is not %.2fx the size below it (q3 %.1f ns)\n", lead, b,
			k->ns_below, k->ns_above, k->q1_above,
			PROBE_KNEE_CLEAR, k->q3_below);
	}
	write_level(lead, "L1d", p->l1d_bytes, v->l1d, fp);
	if (v->l2 && v->l2 == v->last && p->llc_level > 2) {
		/* One rise from L2 latency to memory's: the level between is
		 * too short to show. */
		char s2[32], kb[32];
		size_text(s2, sizeof(s2), p->l2_bytes);
		size_text(kb, sizeof(kb), v->l2->bytes);
		fprintf(fp, "%s  L2 %s (sysfs): knee at %s, straight to memory "
			"(%.1f -> %.1f ns)\n", lead, s2, kb,
			v->l2->ns_below, v->l2->ns_above);
	} else {
		write_level(lead, "L2", p->l2_bytes, v->l2, fp);
	}
	write_last(p, v, lead, fp);
}

static void write_counters(const struct db_probe *p, enum out_format fmt,
			   const char *lead, bool md, FILE *fp)
{
	if (!p->ncounters) {
		fprintf(fp, "\n%sno counters were graded (the latency curve only)\n",
			lead);
		return;
	}
	fprintf(fp, "\n%scounters%s%s, each counted alone around a benchmark whose "
		"count is known by construction (plausible: measured / expected "
		"within %.2g-%.3g):\n%s", lead, p->family ? " on " : "",
		p->family ? p->family : "", PROBE_PLAUSIBLE_LO,
		PROBE_PLAUSIBLE_HI, md ? "\n" : "");
	struct rows *c = counter_rows(p);
	/* In a terminal the benchmarks go under the table, where a long
	 * one wraps: as a column they took the table past 80 columns. */
	static const size_t narrow[] = { C_NAME, C_EXPECTED, C_MEASURED, C_RATIO,
					 C_GRADE };
	if (fmt == OUT_TABLE)
		rows_people_order(c, narrow, sizeof(narrow) / sizeof(narrow[0]));
	rows_write(c, fmt, fp, 1);
	rows_free(c);
	for (size_t i = 0; fmt == OUT_TABLE && i < p->ncounters; i++)
		if (p->counters[i].bench && *p->counters[i].bench)
			fprintf(fp, "%s%s  %s: %s\n", i ? "" : "\n benchmarks:\n", lead,
				p->counters[i].name, p->counters[i].bench);
	/* A scaled value says so in words, not only in its grade. */
	for (size_t i = 0; i < p->ncounters; i++) {
		const struct db_probe_counter *k = &p->counters[i];
		if (!k->opened || k->running >= k->enabled)
			continue;
		if (!k->running)
			fprintf(fp, "\n%s%s: never counted (the PMU's counters were "
				"all taken), so nothing to grade\n", lead, k->name);
		else
			fprintf(fp, "\n%s%s: counted %.0f%% of the time (multiplexed): "
				"the value shown is scaled by time enabled / time "
				"running, an estimate that grades nothing\n", lead, k->name,
				100.0 * (double)k->running / (double)k->enabled);
	}
	/* Each reason once, after the names it stands for (on a machine
	 * without a PMU, one reason stands for all four). */
	bool any = false;
	for (size_t i = 0; i < p->ncounters; i++) {
		const char *why = p->counters[i].reason;
		bool seen = false;
		for (size_t j = 0; j < i && why && !seen; j++)
			seen = p->counters[j].reason && !strcmp(p->counters[j].reason, why);
		if (!why || seen)
			continue;
		if (!any)
			fprintf(fp, "\n%snot supported or not run:\n%s", lead,
				md ? "\n" : "");
		any = true;
		fprintf(fp, "%s  %s", lead, p->counters[i].name);
		for (size_t j = i + 1; j < p->ncounters; j++)
			if (p->counters[j].reason && !strcmp(p->counters[j].reason, why))
				fprintf(fp, ", %s", p->counters[j].name);
		fputs(": ", fp);
		/* The reason's own hint lines keep their place under it. */
		for (const char *ch = why; *ch; ch++) {
			fputc(*ch, fp);
			if (*ch == '\n' && ch[1])
				fprintf(fp, "%s  ", lead);
		}
		fputc('\n', fp);
	}
}

void report_probe(const struct db_run *run, const struct db_probe *p,
		  enum out_format fmt, FILE *fp)
{
	if (fmt == OUT_SVG) {
		report_probe_svg(run, p, fp);
		return;
	}
	struct probe_verdict v;
	probe_verdict(p, &v);
	if (fmt == OUT_JSON || fmt == OUT_CSV) {
		rows_write_data(fmt == OUT_JSON ? probe_record(run, p, &v) : latency_rows(p),
				fmt, fp);
		return;
	}
	/* A terminal's lines are wrapped at 80 columns (the tables are
	 * left whole); Markdown's are the reader's to wrap. */
	char *text = NULL;
	size_t len = 0;
	FILE *out = fmt == OUT_TABLE ? open_memstream(&text, &len) : NULL;
	FILE *w = out ? out : fp;
	struct rows *lat = latency_rows(p);
	bool md = fmt == OUT_MARKDOWN;
	const char *lead = md ? "" : " ";
	write_header(run, p, lead, md, w);
	rows_write(lat, fmt, w, 1);
	rows_free(lat);
	fputc('\n', w);
	write_knees(p, &v, lead, md, w);
	write_counters(p, fmt, lead, md, w);
	if (out && fclose(out) == 0 && text)
		out_wrap(fp, text);
	free(text);
}
