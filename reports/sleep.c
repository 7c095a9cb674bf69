/* sleep (reports): the timer benchmark as a table, Markdown, CSV or JSON. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/errtext.h"
#include "reports/rows.h"
#include "reports/sleep.h"
#include "reports/sleepplot.h"

static double us(int64_t ns)
{
	return (double)ns / 1000.0;
}

/* Whole microseconds print without a fraction, others with one decimal. */
static void fmt_us(char *buf, size_t len, int64_t ns)
{
	if (ns % 1000 == 0)
		snprintf(buf, len, "%lld", (long long)(ns / 1000));
	else
		snprintf(buf, len, "%.1f", us(ns));
}

void report_sleep_mode(const struct db_sleep_cell *c, char *buf, size_t len)
{
	if (c->margin_ns >= 0) {
		char m[32];
		fmt_us(m, sizeof(m), c->margin_ns);
		snprintf(buf, len, "%s:%s", c->mode, m);
	} else {
		snprintf(buf, len, "%s", c->mode);
	}
}

static bool same_mode(const struct db_sleep_cell *a, const struct db_sleep_cell *b)
{
	return !strcmp(a->mode, b->mode) && a->margin_ns == b->margin_ns;
}

/* Distinct modes and durations, counted in the order they ran. */
static void count_axes(const struct db_sleep *s, size_t *nmodes, size_t *ndur)
{
	*nmodes = *ndur = 0;
	for (size_t i = 0; i < s->ncells; i++) {
		bool seen_m = false, seen_d = false;
		for (size_t j = 0; j < i; j++) {
			seen_m = seen_m || same_mode(&s->cells[j], &s->cells[i]);
			seen_d = seen_d || s->cells[j].target_us == s->cells[i].target_us;
		}
		*nmodes += !seen_m;
		*ndur += !seen_d;
	}
}

/* Is this the first cell with its target? (durations in the order run) */
static bool first_of_target(const struct db_sleep *s, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (s->cells[j].target_us == s->cells[i].target_us)
			return false;
	return true;
}

static const struct db_sleep_cell *cheapest_of(const struct db_sleep *s,
					       uint32_t target_us)
{
	for (size_t i = 0; i < s->ncells; i++)
		if (s->cells[i].target_us == target_us && s->cells[i].cheapest)
			return &s->cells[i];
	return NULL;
}

/* ------------------------------------------------------------ rows */

enum {
	R_MODE, R_MARGIN, R_TARGET, R_CALLS, R_P50, R_P90, R_P99, R_P999, R_MAX,
	R_MIN, R_MEAN, R_EARLY, R_LT3, R_LT10, R_LT25, R_LT50, R_GE50, R_CPU_PCT,
	R_CPU_US, R_USER_US, R_SYS_US, R_VCSW, R_IVCSW, R_MISSED, R_WALL, R_CHEAPEST, R_N
};

#define OVERSHOOT(k, t) { .key = k, .title = t, .kind = COL_REAL, .decimals = 1, \
			  .group = "overshoot_us" }
#define BUCKET(k) { .key = k, .kind = COL_COUNT, .group = "buckets" }

/* One (mode, duration) cell: the keys of shared/DESIGN.md and more. */
static const struct col result_cols[R_N] = {
	[R_MODE] = { .key = "mode" },
	[R_MARGIN] = { .key = "margin_us", .kind = COL_REAL, .flags = COL_MACHINES },
	[R_TARGET] = { .key = "target_us", .title = "target", .kind = COL_INT },
	[R_CALLS] = { .key = "calls", .kind = COL_COUNT },
	[R_P50] = OVERSHOOT("p50", "p50"),
	[R_P90] = OVERSHOOT("p90", "p90"),
	[R_P99] = OVERSHOOT("p99", "p99"),
	[R_P999] = OVERSHOOT("p999", "p99.9"),
	[R_MAX] = OVERSHOOT("max", "max"),
	[R_MIN] = { .key = "min", .kind = COL_REAL, .group = "overshoot_us",
		    .flags = COL_MACHINES },
	[R_MEAN] = { .key = "mean", .kind = COL_REAL, .group = "overshoot_us",
		     .flags = COL_MACHINES },
	[R_EARLY] = { .key = "early", .kind = COL_COUNT },
	[R_LT3] = BUCKET("lt3"),
	[R_LT10] = BUCKET("lt10"),
	[R_LT25] = BUCKET("lt25"),
	[R_LT50] = BUCKET("lt50"),
	[R_GE50] = BUCKET("ge50"),
	[R_CPU_PCT] = { .key = "cpu_pct", .title = "cpu%", .kind = COL_PCT,
			.decimals = 1 },
	[R_CPU_US] = { .key = "cpu_us_per_call", .title = "cpu us", .kind = COL_REAL,
		       .decimals = 2 },
	[R_USER_US] = { .key = "user_us_per_call", .title = "usr us", .kind = COL_REAL,
			.decimals = 2 },
	[R_SYS_US] = { .key = "sys_us_per_call", .title = "sys us", .kind = COL_REAL,
		       .decimals = 2 },
	[R_VCSW] = { .key = "vcsw_per_call", .title = "vcsw", .kind = COL_REAL,
		     .decimals = 2 },
	[R_IVCSW] = { .key = "ivcsw_per_call", .title = "ivcsw", .kind = COL_REAL,
		      .decimals = 3 },
	[R_MISSED] = { .key = "missed", .kind = COL_COUNT, .flags = COL_MACHINES },
	[R_WALL] = { .key = "wall_s", .kind = COL_REAL, .flags = COL_MACHINES },
	[R_CHEAPEST] = { .key = "cheapest", .kind = COL_BOOL, .flags = COL_MACHINES },
};

static void set_margin(struct rows *r, size_t row, size_t col, int64_t margin_ns)
{
	if (margin_ns >= 0)
		rows_num(r, row, col, us(margin_ns));
	else
		rows_null(r, row, col);
}

static struct rows *result_rows(const struct db_sleep *s)
{
	struct rows *r = rows_new("results", result_cols, R_N, 0);
	for (size_t i = 0; i < s->ncells; i++) {
		const struct db_sleep_cell *c = &s->cells[i];
		size_t row = rows_add(r);
		char mode[48];
		report_sleep_mode(c, mode, sizeof(mode));
		rows_str(r, row, R_MODE, c->mode);
		rows_text(r, row, R_MODE, "%s", mode);
		set_margin(r, row, R_MARGIN, c->margin_ns);
		rows_uint(r, row, R_TARGET, c->target_us);
		rows_uint(r, row, R_CALLS, c->calls);
		const int64_t pv[] = { c->p50_ns, c->p90_ns, c->p99_ns, c->p999_ns,
				       c->max_ns, c->min_ns };
		for (size_t k = 0; k < sizeof(pv) / sizeof(pv[0]); k++)
			rows_num(r, row, R_P50 + k, us(pv[k]));
		rows_num(r, row, R_MEAN, c->mean_ns / 1000.0);
		rows_uint(r, row, R_EARLY, c->early);
		for (int b = 0; b < DB_SLEEP_NBUCKETS; b++)
			rows_uint(r, row, R_LT3 + (size_t)b, c->buckets[b]);
		rows_num(r, row, R_CPU_PCT, c->cpu_pct);
		rows_num(r, row, R_CPU_US, c->cpu_us_per_call);
		rows_num(r, row, R_USER_US, c->user_us_per_call);
		rows_num(r, row, R_SYS_US, c->sys_us_per_call);
		rows_num(r, row, R_VCSW, c->vcsw_per_call);
		rows_num(r, row, R_IVCSW, c->ivcsw_per_call);
		rows_uint(r, row, R_MISSED, c->missed);
		rows_num(r, row, R_WALL, c->wall_s);
		rows_bool(r, row, R_CHEAPEST, c->cheapest);
	}
	return r;
}

/* The cheapest mode for each duration, in the order the durations ran. */
#define CHEAPEST_COLS(K) \
	K(X_TARGET, "target_us", INT) K(X_MODE, "mode", TEXT) \
	K(X_MARGIN, "margin_us", REAL) K(X_P99, "p99_us", REAL) \
	K(X_CPU_US, "cpu_us_per_call", REAL)
ROWS_KEYS(cheapest_cols, X_N, CHEAPEST_COLS);

static struct rows *cheapest_rows(const struct db_sleep *s)
{
	struct rows *r = rows_new("cheapest", cheapest_cols, X_N, 0);
	for (size_t i = 0; i < s->ncells; i++) {
		if (!first_of_target(s, i))
			continue;
		const struct db_sleep_cell *c = cheapest_of(s, s->cells[i].target_us);
		size_t row = rows_add(r);
		rows_uint(r, row, X_TARGET, s->cells[i].target_us);
		rows_str(r, row, X_MODE, c ? c->mode : NULL);
		set_margin(r, row, X_MARGIN, c ? c->margin_ns : -1);
		rows_num(r, row, X_P99, c ? us(c->p99_ns) : NAN);
		rows_num(r, row, X_CPU_US, c ? c->cpu_us_per_call : NAN);
	}
	return r;
}

#define PIN_COLS(K) \
	K(P_MODE, "mode", TEXT) K(P_STATUS, "status", TEXT) \
	K(P_CPUS, "cpus", CPUS)
ROWS_KEYS(pin_cols, P_N, PIN_COLS);

#define HYBRID_COLS(K) \
	K(H_MARGIN, "margin_us", REAL) K(H_CALIBRATED, "calibrated", BOOL) \
	K(H_P999, "calibration_p999_us", REAL) K(H_GUARD, "guard_us", REAL)
ROWS_KEYS(hybrid_cols, H_N, HYBRID_COLS);

#define SLEEP_COLS(K) \
	K(S_RUN_ID, "run_id", INT) K(S_KIND, "kind", TEXT) \
	K(S_STARTED, "started", TEXT) K(S_INTERRUPTED, "interrupted", BOOL) \
	K(S_WALL, "wall_s", REAL) \
	K(S_HOSTNAME, "hostname", TEXT) K(S_SLACK, "timer_slack_ns", NS) \
	K(S_POLICY, "sched_policy", TEXT) K(S_CLOCKSOURCE, "clocksource", TEXT) \
	K(S_GOVERNOR, "governor", TEXT) K(S_MIN_KHZ, "min_khz", TEXT) \
	K(S_MAX_KHZ, "max_khz", TEXT) \
	K(S_PATTERN, "pattern", TEXT) K(S_CALLS, "calls", COUNT) \
	K(S_THREADS, "threads", COUNT) K(S_LOAD, "load", COUNT) \
	K(S_PIN, "pin", NEST) K(S_HYBRID, "hybrid", NEST) \
	K(S_RESULTS, "results", NEST) K(S_CHEAP_P99, "cheapest_p99_us", REAL) \
	K(S_CHEAPEST, "cheapest", NEST)
ROWS_KEYS(sleep_cols, S_N, SLEEP_COLS);

/* The benchmark as one record: the JSON document. */
static struct rows *sleep_record(const struct db_run *run, const struct db_sleep *s)
{
	struct rows *r = rows_new(NULL, sleep_cols, S_N, 0);
	size_t row = rows_add(r);
	if (run->id > 0)
		rows_int(r, row, S_RUN_ID, run->id);
	else
		rows_null(r, row, S_RUN_ID);	/* not stored */
	rows_str(r, row, S_KIND, "sleep");
	rows_str(r, row, S_STARTED, run->started);
	rows_bool(r, row, S_INTERRUPTED, run->interrupted);
	rows_num(r, row, S_WALL, run->wall_s);
	rows_str(r, row, S_HOSTNAME, run->host.hostname);
	rows_uint(r, row, S_SLACK, s->timer_slack_ns);
	rows_str(r, row, S_POLICY, s->sched_policy);
	rows_str(r, row, S_CLOCKSOURCE, s->clocksource[0] ? s->clocksource : NULL);
	/* The frequency governor and its bounds (null: no cpufreq here, or
	 * a run stored before prof kept them). */
	rows_str(r, row, S_GOVERNOR, db_kv_get(run->env, run->nenv, "governor"));
	rows_str(r, row, S_MIN_KHZ, db_kv_get(run->env, run->nenv, "min_khz"));
	rows_str(r, row, S_MAX_KHZ, db_kv_get(run->env, run->nenv, "max_khz"));
	rows_str(r, row, S_PATTERN, s->pattern);
	rows_uint(r, row, S_CALLS, s->calls);
	rows_uint(r, row, S_THREADS, s->threads);
	rows_uint(r, row, S_LOAD, s->load);

	struct rows *pin = rows_new(NULL, pin_cols, P_N, ROWS_OBJECT);
	size_t p = rows_add(pin);
	rows_str(pin, p, P_MODE, run->pin.mode ? run->pin.mode : "none");
	rows_str(pin, p, P_STATUS, run->pin.status);
	rows_str(pin, p, P_CPUS, run->pin.cpus ? run->pin.cpus : "");
	rows_nest(r, row, S_PIN, pin);

	struct rows *hybrid = rows_new(NULL, hybrid_cols, H_N, ROWS_OBJECT);
	if (s->hybrid_margin_ns >= 0) {
		size_t h = rows_add(hybrid);
		rows_num(hybrid, h, H_MARGIN, us(s->hybrid_margin_ns));
		rows_bool(hybrid, h, H_CALIBRATED, s->hybrid_calibrated);
		rows_num(hybrid, h, H_P999, s->hybrid_calibrated
			 ? us(s->calibration_p999_ns) : NAN);
		rows_num(hybrid, h, H_GUARD, s->hybrid_calibrated
			 ? us(s->calibration_guard_ns) : NAN);
	}
	rows_nest(r, row, S_HYBRID, hybrid);
	rows_nest(r, row, S_RESULTS, result_rows(s));
	rows_num(r, row, S_CHEAP_P99, s->cheap_p99_us);
	rows_nest(r, row, S_CHEAPEST, cheapest_rows(s));
	return r;
}

/* ------------------------------------------------------------ table */

static void write_header(const struct db_run *run, const struct db_sleep *s,
			 const char *lead, bool md, FILE *fp)
{
	size_t nmodes, ndur;
	count_axes(s, &nmodes, &ndur);
	char calls[32];
	fmt_count(calls, sizeof(calls), (double)s->calls, 0);
	if (md)
		fprintf(fp, "**prof sleep");
	else
		fprintf(fp, "%sprof sleep", lead);
	if (run->id > 0)
		fprintf(fp, " (run %lld)", (long long)run->id);
	fprintf(fp, "%s %zu mode%s x %zu duration%s, %s call%s per %scell on %u "
		"thread%s, %s, ", md ? ":**" : ":", nmodes, nmodes == 1 ? "" : "s",
		ndur, ndur == 1 ? "" : "s", calls, s->calls == 1 ? "" : "s",
		s->threads == 1 ? "" : "thread per ", s->threads,
		s->threads == 1 ? "" : "s", s->pattern);
	if (s->load)
		fprintf(fp, "%u busy load thread%s", s->load, s->load == 1 ? "" : "s");
	else
		fprintf(fp, "no load");
	fprintf(fp, "; %.1f s%s\n", run->wall_s,
		run->interrupted ? ", interrupted before the end" : "");
	if (md)
		fputc('\n', fp);

	char slack[32];
	fmt_us(slack, sizeof(slack), (int64_t)s->timer_slack_ns);
	fprintf(fp, "%stimer slack %s us, %s, clocksource %s; ", lead, slack,
		s->sched_policy, s->clocksource[0] ? s->clocksource : "unknown");
	/* Idle wake-ups lengthen with a powersave governor's low clocks (the
	 * field notes: 16 us at idle against 10 us under performance). */
	const char *gov = db_kv_get(run->env, run->nenv, "governor");
	const char *lo = db_kv_get(run->env, run->nenv, "min_khz");
	const char *hi = db_kv_get(run->env, run->nenv, "max_khz");
	if (gov)
		fprintf(fp, "governor %s%s%s%s%s%s; ", gov, lo || hi ? " (" : "",
			lo ? lo : "?", lo || hi ? "-" : "", hi ? hi : "?",
			lo || hi ? " kHz)" : "");
	else if (run->nenv)
		fprintf(fp, "no frequency governor; ");
	if (!run->pin.mode || !strcmp(run->pin.mode, "none"))
		fprintf(fp, "not pinned");
	else
		fprintf(fp, "pin %s: %s", run->pin.mode,
			run->pin.status ? run->pin.status : "?");
	if (run->pin.cpus)
		fprintf(fp, ", CPUs %s", run->pin.cpus);
	fputc('\n', fp);
	if (md)
		fputc('\n', fp);

	if (s->hybrid_margin_ns >= 0) {
		char m[32], p[32], g[32];
		fmt_us(m, sizeof(m), s->hybrid_margin_ns);
		fprintf(fp, "%shybrid margin %s us", lead, m);
		if (s->hybrid_calibrated) {
			fmt_us(p, sizeof(p), s->calibration_p999_ns);
			fmt_us(g, sizeof(g), s->calibration_guard_ns);
			fprintf(fp, ", calibrated: timerfd p99.9 overshoot %s us + "
				"%s us guard", p, g);
		} else {
			fprintf(fp, ", as given");
		}
		fputc('\n', fp);
		if (md)
			fputc('\n', fp);
	}
	fprintf(fp, "%starget and overshoot beyond it in us; lt3 .. ge50 count "
		"calls by overshoot:\n%sunder 3, 10, 25, 50 us, and 50 us or more; "
		"cpu%% of wall time; cpu us (usr us + sys us, its user and\n%s"
		"system time), vcsw and ivcsw (voluntary and involuntary context\n%s"
		"switches) per call\n\n", lead, lead, lead, lead);
}

static void write_cheapest(const struct db_sleep *s, const char *lead, FILE *fp)
{
	char lim[32];
	fmt_count(lim, sizeof(lim), s->cheap_p99_us, s->cheap_p99_us ==
		  (double)(long long)s->cheap_p99_us ? 0 : 1);
	fprintf(fp, "%scheapest with p99 overshoot under %s us:", lead, lim);
	bool first = true;
	for (size_t i = 0; i < s->ncells; i++) {
		if (!first_of_target(s, i))
			continue;
		const struct db_sleep_cell *c = cheapest_of(s, s->cells[i].target_us);
		char mode[48] = "none";
		if (c)
			report_sleep_mode(c, mode, sizeof(mode));
		fprintf(fp, "%s %u us %s", first ? "" : ",", s->cells[i].target_us,
			mode);
		first = false;
	}
	if (first)
		fprintf(fp, " no cells");
	fputc('\n', fp);
}

void report_sleep(const struct db_run *run, const struct db_sleep *s,
		  enum out_format fmt, FILE *fp)
{
	if (fmt == OUT_SVG) {
		report_sleep_svg(run, s, fp);
		return;
	}
	if (fmt == OUT_JSON || fmt == OUT_CSV) {
		rows_write_data(fmt == OUT_JSON ? sleep_record(run, s) : result_rows(s), fmt, fp);
		return;
	}
	struct rows *results = result_rows(s);
	bool md = fmt == OUT_MARKDOWN;
	const char *lead = md ? "" : " ";
	write_header(run, s, lead, md, fp);
	rows_write(results, fmt, fp, 1);
	rows_free(results);
	fputc('\n', fp);
	write_cheapest(s, lead, fp);
}

/* ---- the interposer's report of a --sleep-mode run ---- */

enum {
	T_TID, T_NAME, T_SERVED, T_PASSED, T_EINTR, T_EARLY, T_THROTTLED,
	T_FALLBACK, T_P50, T_P90, T_P99, T_P999, T_MAX, T_MEAN, T_REQ,
	T_FB_ERRNO, T_FB_MAX, T_FB_MEAN, T_CV, T_N
};

#define ACHIEVED(k, t, f) { .key = k, .title = t, .kind = COL_REAL, .decimals = 1, \
			    .group = "overshoot_us", .flags = (f) }

static const struct col thread_cols[T_N] = {
	[T_TID] = { .key = "tid", .kind = COL_INT },
	[T_NAME] = { .key = "name" },
	[T_SERVED] = { .key = "served", .kind = COL_INT },
	[T_PASSED] = { .key = "passed", .kind = COL_INT },
	[T_EINTR] = { .key = "eintr", .kind = COL_INT },
	[T_EARLY] = { .key = "early", .kind = COL_INT, .flags = COL_MACHINES },
	[T_THROTTLED] = { .key = "throttled", .kind = COL_INT, .flags = COL_MACHINES },
	[T_FALLBACK] = { .key = "fallback", .kind = COL_INT },
	[T_P50] = ACHIEVED("p50", "p50 us", COL_FLAT_GROUP),
	[T_P90] = ACHIEVED("p90", "p90 us", COL_MACHINES),
	[T_P99] = ACHIEVED("p99", "p99 us", 0),
	[T_P999] = ACHIEVED("p999", "p99.9 us", 0),
	[T_MAX] = ACHIEVED("max", "max us", 0),
	[T_MEAN] = ACHIEVED("mean", "mean us", COL_MACHINES),
	[T_REQ] = { .key = "requested_us_log2", .flags = COL_MACHINES },
	[T_FB_ERRNO] = { .key = "fallback_errno", .kind = COL_INT, .flags = COL_MACHINES },
	[T_FB_MAX] = { .key = "fallback_max_us", .kind = COL_REAL, .decimals = 1,
		       .flags = COL_MACHINES },
	[T_FB_MEAN] = { .key = "fallback_mean_us", .kind = COL_REAL, .decimals = 1,
			.flags = COL_MACHINES },
	[T_CV] = { .key = "condvar", .kind = COL_NEST },
};

/* A thread's condvar timed waits: its own table for people, an object
 * under "condvar" in each thread's JSON. */
enum {
	C_TID, C_NAME, C_SERVED, C_PASSED, C_WOKEN, C_TIMEDOUT, C_EARLY,
	C_P50, C_P90, C_P99, C_P999, C_MAX, C_MEAN, C_N
};

static const struct col cv_cols[C_N] = {
	[C_TID] = { .key = "tid", .kind = COL_INT, .flags = COL_PEOPLE },
	[C_NAME] = { .key = "name", .flags = COL_PEOPLE },
	[C_SERVED] = { .key = "served", .kind = COL_INT },
	[C_PASSED] = { .key = "passed", .kind = COL_INT },
	[C_WOKEN] = { .key = "woken", .kind = COL_INT },
	[C_TIMEDOUT] = { .key = "timed_out", .title = "timed out", .kind = COL_INT },
	[C_EARLY] = { .key = "early", .kind = COL_INT, .flags = COL_MACHINES },
	[C_P50] = ACHIEVED("p50", "p50 us", COL_FLAT_GROUP),
	[C_P90] = ACHIEVED("p90", "p90 us", COL_MACHINES),
	[C_P99] = ACHIEVED("p99", "p99 us", 0),
	[C_P999] = ACHIEVED("p999", "p99.9 us", 0),
	[C_MAX] = ACHIEVED("max", "max us", 0),
	[C_MEAN] = ACHIEVED("mean", "mean us", COL_MACHINES),
};

/* A thread's tid (blank where it is 0) and name. */
static void who_cells(struct rows *r, size_t row, size_t tid_col,
		      size_t name_col, const struct db_sleep_thread *x)
{
	rows_int(r, row, tid_col, x->tid);
	if (!x->tid)
		rows_text(r, row, tid_col, "%s", "");
	rows_str(r, row, name_col, x->name);
}

/* The achieved overshoot p50, p90, p99, p99.9 and max, in columns from
 * p50_col on, then the mean, all in us; people see "-" in each where
 * none is achieved. */
enum { ACHIEVED_N = 5 };

static void achieved_cells(struct rows *r, size_t row, size_t p50_col,
			   size_t mean_col, const uint64_t v[ACHIEVED_N],
			   double mean_ns, bool none)
{
	for (size_t k = 0; k < ACHIEVED_N; k++) {
		rows_num(r, row, p50_col + k, (double)v[k] / 1000.0);
		if (none)
			rows_text(r, row, p50_col + k, "-");
	}
	rows_num(r, row, mean_col, mean_ns / 1000.0);
	if (none)
		rows_text(r, row, mean_col, "-");
}

/* Fill one row of a cv_cols set; the overshoot is of the timed-out
 * waits, so people see "-" where none timed out. */
static void cv_row(struct rows *r, size_t row, const struct db_sleep_thread *x)
{
	who_cells(r, row, C_TID, C_NAME, x);
	rows_uint(r, row, C_SERVED, x->cv_served);
	rows_uint(r, row, C_PASSED, x->cv_passed);
	rows_uint(r, row, C_WOKEN, x->cv_woken);
	rows_uint(r, row, C_TIMEDOUT, x->cv_timedout);
	rows_uint(r, row, C_EARLY, x->cv_early);
	const uint64_t v[ACHIEVED_N] = { x->cv_p50_ns, x->cv_p90_ns,
					 x->cv_p99_ns, x->cv_p999_ns,
					 x->cv_max_ns };
	achieved_cells(r, row, C_P50, C_MEAN, v, x->cv_mean_ns,
		       !x->cv_timedout);
}

/* The thread's "condvar" object; null for a run stored before the
 * interposer took condvar waits (v18). */
static void cv_nest(struct rows *r, size_t row, const struct db_sleep_usage *u,
		    const struct db_sleep_thread *x)
{
	if (!u->cv_served_by) {
		rows_null(r, row, T_CV);
		return;
	}
	struct rows *c = rows_new(NULL, cv_cols, C_N, ROWS_OBJECT);
	cv_row(c, rows_add(c), x);
	rows_nest(r, row, T_CV, c);
}

/* Per thread: sleeps served and passed through, and the overshoot the
 * interposer achieved (people see "-" where it served none). */
static struct rows *usage_threads(const struct db_sleep_usage *u)
{
	struct rows *r = rows_new("threads", thread_cols, T_N, 0);
	for (size_t i = 0; i < u->nthreads; i++) {
		const struct db_sleep_thread *x = &u->threads[i];
		size_t row = rows_add(r);
		who_cells(r, row, T_TID, T_NAME, x);
		rows_uint(r, row, T_SERVED, x->served);
		rows_uint(r, row, T_PASSED, x->passed);
		rows_uint(r, row, T_EINTR, x->eintr);
		rows_uint(r, row, T_EARLY, x->early);
		rows_uint(r, row, T_THROTTLED, x->throttled);
		rows_uint(r, row, T_FALLBACK, x->fallback);
		if (x->fallback) {
			rows_int(r, row, T_FB_ERRNO, x->fallback_errno);
			rows_num(r, row, T_FB_MAX, (double)x->fallback_max_ns / 1000.0);
			rows_num(r, row, T_FB_MEAN, x->fallback_mean_ns / 1000.0);
		} else {
			rows_null(r, row, T_FB_ERRNO);
			rows_null(r, row, T_FB_MAX);
			rows_null(r, row, T_FB_MEAN);
		}
		/* the mode's own overshoot: none when it served nothing */
		const uint64_t v[ACHIEVED_N] = { x->p50_ns, x->p90_ns,
						 x->p99_ns, x->p999_ns,
						 x->max_ns };
		achieved_cells(r, row, T_P50, T_MEAN, v, x->mean_ns,
			       x->served <= x->fallback);
		rows_str(r, row, T_REQ, x->req_hist);
		cv_nest(r, row, u, x);
	}
	return r;
}

#define USAGE_COLS(K) \
	K(U_MODE, "mode", TEXT) K(U_THRESHOLD, "threshold_us", INT) \
	K(U_MAX_SPINNERS, "max_spinners", INT) \
	K(U_STATUS, "status", TEXT) K(U_PROCESSES, "processes", INT) \
	K(U_ERROR, "error", TEXT) K(U_THREADS, "threads", NEST) \
	K(U_SPINNERS_DEFAULT, "max_spinners_default", BOOL) K(U_NCPUS, "ncpus", INT) \
	K(U_SERVED_BY_MODE, "served_by_mode", INT) \
	K(U_THROTTLED, "served_by_timerfd_throttled", INT) \
	K(U_FALLBACK, "served_by_clock_nanosleep", INT) \
	K(U_CV_SERVED_BY, "condvar_served_by", TEXT)
ROWS_KEYS(usage_cols, U_N, USAGE_COLS);

/* How the served calls were served, all threads together. */
struct usage_sum {
	uint64_t served, throttled, fallback;
	int fallback_errno;
};

static struct usage_sum usage_sum(const struct db_sleep_usage *u)
{
	struct usage_sum t = { 0 };
	for (size_t i = 0; i < u->nthreads; i++) {
		t.served += u->threads[i].served;
		t.throttled += u->threads[i].throttled;
		t.fallback += u->threads[i].fallback;
		if (u->threads[i].fallback_errno)
			t.fallback_errno = u->threads[i].fallback_errno;
	}
	return t;
}

static uint64_t by_mode(const struct usage_sum *t)
{
	uint64_t other = t->throttled + t->fallback;
	return t->served > other ? t->served - other : 0;
}

/* Only these modes spin, so only they have a spinner cap to state. */
static bool mode_spins(const char *mode)
{
	return mode && (!strncmp(mode, "spin", 4) || !strncmp(mode, "yield", 5) ||
			!strncmp(mode, "hybrid", 6));
}

/*
 * The cap, and where it came from. The Hookshot design exempts threads
 * in a serial chain from it; the interposer cannot see which peers wait
 * on a sleeper (see docs/sleep.md), so no thread is exempt.
 */
static void write_spinners(const struct db_sleep_usage *u, FILE *fp)
{
	if (!mode_spins(u->mode))
		return;
	if (!u->max_spinners) {
		fputs(", no cap on spinning threads", fp);
		return;
	}
	fprintf(fp, ", at most %u spinning at once", u->max_spinners);
	if (u->spinners_default && u->ncpus)
		fprintf(fp, " (default: a quarter of the workload's %u CPUs, at "
			"least 1; no serial-chain exemption)", u->ncpus);
	else if (u->spinners_default)
		fputs(" (default: a quarter of the workload's CPUs, at least 1; "
		      "no serial-chain exemption)", fp);
}

/* Never credit the mode with calls it did not serve. */
static void write_served_by(const struct db_sleep_usage *u, const char *lead,
			    FILE *fp)
{
	struct usage_sum t = usage_sum(u);
	if (!t.throttled && !t.fallback)
		return;
	fprintf(fp, "%sserved %llu: %llu by %s", lead,
		(unsigned long long)t.served, (unsigned long long)by_mode(&t),
		u->mode ? u->mode : "?");
	if (t.throttled)
		fprintf(fp, ", %llu by timerfd (max-spinners refused a spin)",
			(unsigned long long)t.throttled);
	if (t.fallback)
		fprintf(fp, ", %llu by clock_nanosleep (no timerfd: %s)",
			(unsigned long long)t.fallback,
			t.fallback_errno ? ERR_TEXT(t.fallback_errno) : "?");
	fputs("\n", fp);
	if (t.fallback)
		fprintf(fp, "%shint: fallbacks are not in the overshoot "
			"percentiles; descriptors exhausted? see ulimit -n\n", lead);
}

/*
 * Condvar timed waits, apart from the sleeps: how the short ones were
 * served and per thread how they returned. Nothing when the workload
 * made none (or the run predates them).
 */
static void write_condvar(const struct db_sleep_usage *u, const char *lead,
			  bool md, FILE *fp)
{
	uint64_t served = 0, passed = 0;
	for (size_t i = 0; i < u->nthreads; i++) {
		served += u->threads[i].cv_served;
		passed += u->threads[i].cv_passed;
	}
	if (!u->cv_served_by || (!served && !passed))
		return;
	const char *mode = u->mode ? u->mode : "?";
	fprintf(fp, "\n%scondvar waits under %llu us: %llu served by %s under "
		"mode %s, %llu passed through\n", lead,
		(unsigned long long)u->threshold_us, (unsigned long long)served,
		u->cv_served_by, mode, (unsigned long long)passed);
	/* the modes that cannot serve a condvar wait as they serve a sleep */
	if (strcmp(mode, "slack1") && strcmp(mode, "passthrough"))
		fprintf(fp, "%s(a condvar waiter wakes only inside the real wait: "
			"%s in its place would lose signals; see docs/sleep.md)\n",
			lead, mode);
	struct rows *r = rows_new("condvar", cv_cols, C_N, 0);
	for (size_t i = 0; i < u->nthreads; i++) {
		const struct db_sleep_thread *x = &u->threads[i];
		if (x->cv_served || x->cv_passed)
			cv_row(r, rows_add(r), x);
	}
	rows_write(r, md ? OUT_MARKDOWN : OUT_TABLE, fp, 1);
	rows_free(r);
}

void report_sleep_usage(const struct db_sleep_usage *u, enum out_format fmt,
			FILE *fp)
{
	bool md = fmt == OUT_MARKDOWN;
	const char *lead = md ? "" : " ";
	struct usage_sum t = usage_sum(u);
	fprintf(fp, "\n%ssleeps under %llu us served as %s", lead,
		(unsigned long long)u->threshold_us, u->mode ? u->mode : "?");
	if (t.throttled || t.fallback)
		fprintf(fp, " for %llu of %llu calls", (unsigned long long)by_mode(&t),
			(unsigned long long)t.served);
	write_spinners(u, fp);
	fprintf(fp, ": %s", u->status ? u->status : "?");
	if (u->processes)
		fprintf(fp, " (%u process%s)", u->processes, u->processes == 1 ? "" : "es");
	fputs("\n", fp);
	if (u->error)
		fprintf(fp, "%sinterposer: %s\n", lead, u->error);
	write_served_by(u, lead, fp);
	if (!u->nthreads) {
		fprintf(fp, "%sno thread slept under the threshold\n", lead);
		return;
	}
	struct rows *rows = usage_threads(u);
	rows_write(rows, md ? OUT_MARKDOWN : OUT_TABLE, fp, 1);
	rows_free(rows);
	write_condvar(u, lead, md, fp);
}

void report_sleep_usage_json(const struct db_sleep_usage *u, struct jw *w)
{
	struct rows *r = rows_new(NULL, usage_cols, U_N, 0);
	size_t row = rows_add(r);
	rows_str(r, row, U_MODE, u->mode);
	rows_uint(r, row, U_THRESHOLD, u->threshold_us);
	if (u->max_spinners)
		rows_uint(r, row, U_MAX_SPINNERS, u->max_spinners);
	else
		rows_null(r, row, U_MAX_SPINNERS);
	rows_str(r, row, U_STATUS, u->status);
	rows_uint(r, row, U_PROCESSES, u->processes);
	rows_str(r, row, U_ERROR, u->error);
	rows_bool(r, row, U_SPINNERS_DEFAULT, u->spinners_default);
	if (u->ncpus)
		rows_uint(r, row, U_NCPUS, u->ncpus);
	else
		rows_null(r, row, U_NCPUS);
	struct usage_sum t = usage_sum(u);
	rows_uint(r, row, U_SERVED_BY_MODE, by_mode(&t));
	rows_uint(r, row, U_THROTTLED, t.throttled);
	rows_uint(r, row, U_FALLBACK, t.fallback);
	rows_str(r, row, U_CV_SERVED_BY, u->cv_served_by);
	rows_nest(r, row, U_THREADS, usage_threads(u));
	rows_json_row(r, 0, w);
	rows_free(r);
}
