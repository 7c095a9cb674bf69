/* sleep (reports): the timer benchmark as a table, Markdown, CSV or JSON. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "reports/sleep.h"

/* The JSON keys of the buckets, in enum db_sleep_bucket order. */
static const char *const bucket_keys[DB_SLEEP_NBUCKETS] = {
	"lt3", "lt10", "lt25", "lt50", "ge50"
};

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

/* ------------------------------------------------------------- JSON */

static void json_cpus(struct jw *w, const char *list)
{
	jw_arr_begin_flat(w);
	const char *p = list;
	while (p && *p) {
		char *end;
		long a = strtol(p, &end, 10);
		if (end == p)
			break;
		long b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
		}
		for (long c = a; c <= b && c - a < 65536; c++)
			jw_int(w, c);
		if (*end != ',')
			break;
		p = end + 1;
	}
	jw_arr_end(w);
}

static void json_margin(struct jw *w, int64_t margin_ns)
{
	if (margin_ns >= 0)
		jw_num(w, us(margin_ns));
	else
		jw_null(w);
}

static void write_json(const struct db_run *run, const struct db_sleep *s,
		       FILE *fp)
{
	struct jw w;
	jw_init(&w, fp, 2);
	jw_obj_begin(&w);
	jw_key(&w, "run_id");
	if (run->id > 0)
		jw_int(&w, run->id);
	else
		jw_null(&w);
	jw_key(&w, "kind");
	jw_str(&w, "sleep");
	jw_key(&w, "started");
	jw_str(&w, run->started);
	jw_key(&w, "interrupted");
	jw_bool(&w, run->interrupted);
	jw_key(&w, "wall_s");
	jw_num(&w, run->wall_s);
	jw_key(&w, "hostname");
	jw_str(&w, run->host.hostname);
	jw_key(&w, "timer_slack_ns");
	jw_uint(&w, s->timer_slack_ns);
	jw_key(&w, "sched_policy");
	jw_str(&w, s->sched_policy);
	jw_key(&w, "clocksource");
	jw_str(&w, s->clocksource[0] ? s->clocksource : NULL);
	jw_key(&w, "pattern");
	jw_str(&w, s->pattern);
	jw_key(&w, "calls");
	jw_uint(&w, s->calls);
	jw_key(&w, "threads");
	jw_uint(&w, s->threads);
	jw_key(&w, "load");
	jw_uint(&w, s->load);
	jw_key(&w, "pin");
	jw_obj_begin(&w);
	jw_key(&w, "mode");
	jw_str(&w, run->pin.mode ? run->pin.mode : "none");
	jw_key(&w, "status");
	jw_str(&w, run->pin.status);
	jw_key(&w, "cpus");
	json_cpus(&w, run->pin.cpus);
	jw_obj_end(&w);
	jw_key(&w, "hybrid");
	if (s->hybrid_margin_ns >= 0) {
		jw_obj_begin(&w);
		jw_key(&w, "margin_us");
		jw_num(&w, us(s->hybrid_margin_ns));
		jw_key(&w, "calibrated");
		jw_bool(&w, s->hybrid_calibrated);
		jw_key(&w, "calibration_p999_us");
		if (s->hybrid_calibrated)
			jw_num(&w, us(s->calibration_p999_ns));
		else
			jw_null(&w);
		jw_key(&w, "guard_us");
		if (s->hybrid_calibrated)
			jw_num(&w, us(s->calibration_guard_ns));
		else
			jw_null(&w);
		jw_obj_end(&w);
	} else {
		jw_null(&w);
	}

	jw_key(&w, "results");
	jw_arr_begin(&w);
	for (size_t i = 0; i < s->ncells; i++) {
		const struct db_sleep_cell *c = &s->cells[i];
		jw_obj_begin(&w);
		jw_key(&w, "mode");
		jw_str(&w, c->mode);
		jw_key(&w, "margin_us");
		json_margin(&w, c->margin_ns);
		jw_key(&w, "target_us");
		jw_uint(&w, c->target_us);
		jw_key(&w, "calls");
		jw_uint(&w, c->calls);
		jw_key(&w, "overshoot_us");
		jw_obj_begin(&w);
		const char *pk[] = { "p50", "p90", "p99", "p999", "max", "min" };
		const int64_t pv[] = { c->p50_ns, c->p90_ns, c->p99_ns, c->p999_ns,
				       c->max_ns, c->min_ns };
		for (size_t k = 0; k < sizeof(pk) / sizeof(pk[0]); k++) {
			jw_key(&w, pk[k]);
			jw_num(&w, us(pv[k]));
		}
		jw_key(&w, "mean");
		jw_num(&w, c->mean_ns / 1000.0);
		jw_obj_end(&w);
		jw_key(&w, "early");
		jw_uint(&w, c->early);
		jw_key(&w, "buckets");
		jw_obj_begin(&w);
		for (int b = 0; b < DB_SLEEP_NBUCKETS; b++) {
			jw_key(&w, bucket_keys[b]);
			jw_uint(&w, c->buckets[b]);
		}
		jw_obj_end(&w);
		jw_key(&w, "cpu_pct");
		jw_num(&w, c->cpu_pct);
		jw_key(&w, "cpu_us_per_call");
		jw_num(&w, c->cpu_us_per_call);
		jw_key(&w, "vcsw_per_call");
		jw_num(&w, c->vcsw_per_call);
		jw_key(&w, "ivcsw_per_call");
		jw_num(&w, c->ivcsw_per_call);
		jw_key(&w, "missed");
		jw_uint(&w, c->missed);
		jw_key(&w, "wall_s");
		jw_num(&w, c->wall_s);
		jw_key(&w, "cheapest");
		jw_bool(&w, c->cheapest);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);

	jw_key(&w, "cheapest_p99_us");
	jw_num(&w, s->cheap_p99_us);
	jw_key(&w, "cheapest");
	jw_arr_begin(&w);
	for (size_t i = 0; i < s->ncells; i++) {
		if (!first_of_target(s, i))
			continue;
		const struct db_sleep_cell *c = cheapest_of(s, s->cells[i].target_us);
		jw_obj_begin(&w);
		jw_key(&w, "target_us");
		jw_uint(&w, s->cells[i].target_us);
		jw_key(&w, "mode");
		jw_str(&w, c ? c->mode : NULL);
		jw_key(&w, "margin_us");
		json_margin(&w, c ? c->margin_ns : -1);
		jw_key(&w, "p99_us");
		if (c)
			jw_num(&w, us(c->p99_ns));
		else
			jw_null(&w);
		jw_key(&w, "cpu_us_per_call");
		if (c)
			jw_num(&w, c->cpu_us_per_call);
		else
			jw_null(&w);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_end(&w);
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
		"cpu%% of wall time; cpu us, vcsw and ivcsw\n%s(voluntary and "
		"involuntary context switches) per call\n\n", lead, lead, lead);
}

static void set_num(struct rtable *t, size_t row, size_t col, double v,
		    int decimals)
{
	char text[48], raw[48];
	fmt_count(text, sizeof(text), v, decimals);
	fmt_raw(raw, sizeof(raw), v);
	rtable_set2(t, row, col, text, raw);
}

static void fill_table(const struct db_sleep *s, struct rtable *t)
{
	static const char *const titles[] = {
		"mode", ">target", ">calls", ">p50", ">p90", ">p99", ">p99.9",
		">max", ">early", ">lt3", ">lt10", ">lt25", ">lt50", ">ge50",
		">cpu%", ">cpu us", ">vcsw", ">ivcsw",
	};
	rtable_init(t, sizeof(titles) / sizeof(titles[0]), titles);
	for (size_t i = 0; i < s->ncells; i++) {
		const struct db_sleep_cell *c = &s->cells[i];
		size_t r = rtable_add_row(t), k = 0;
		char mode[48];
		report_sleep_mode(c, mode, sizeof(mode));
		rtable_set(t, r, k++, "%s", mode);
		rtable_set(t, r, k++, "%u", c->target_us);
		set_num(t, r, k++, (double)c->calls, 0);
		const int64_t pv[] = { c->p50_ns, c->p90_ns, c->p99_ns, c->p999_ns,
				       c->max_ns };
		for (size_t p = 0; p < sizeof(pv) / sizeof(pv[0]); p++)
			set_num(t, r, k++, us(pv[p]), 1);
		set_num(t, r, k++, (double)c->early, 0);
		for (int b = 0; b < DB_SLEEP_NBUCKETS; b++)
			set_num(t, r, k++, (double)c->buckets[b], 0);
		set_num(t, r, k++, c->cpu_pct, 1);
		set_num(t, r, k++, c->cpu_us_per_call, 2);
		set_num(t, r, k++, c->vcsw_per_call, 2);
		set_num(t, r, k++, c->ivcsw_per_call, 3);
	}
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
	if (fmt == OUT_JSON) {
		write_json(run, s, fp);
		return;
	}
	struct rtable t;
	fill_table(s, &t);
	if (fmt == OUT_CSV) {
		rtable_write(&t, fmt, fp, 0);
		rtable_release(&t);
		return;
	}
	bool md = fmt == OUT_MARKDOWN;
	const char *lead = md ? "" : " ";
	write_header(run, s, lead, md, fp);
	rtable_write(&t, fmt, fp, 1);
	rtable_release(&t);
	fputc('\n', fp);
	write_cheapest(s, lead, fp);
}

/* ---- the interposer's report of a --sleep-mode run ---- */

void report_sleep_usage(const struct db_sleep_usage *u, enum out_format fmt,
			FILE *fp)
{
	bool md = fmt == OUT_MARKDOWN;
	const char *lead = md ? "" : " ";
	fprintf(fp, "\n%ssleeps under %llu us served as %s", lead,
		(unsigned long long)u->threshold_us, u->mode ? u->mode : "?");
	if (u->max_spinners)
		fprintf(fp, ", at most %u spinning at once", u->max_spinners);
	fprintf(fp, ": %s", u->status ? u->status : "?");
	if (u->processes)
		fprintf(fp, " (%u process%s)", u->processes, u->processes == 1 ? "" : "es");
	fputs("\n", fp);
	if (u->error)
		fprintf(fp, "%sinterposer: %s\n", lead, u->error);
	if (!u->nthreads) {
		fprintf(fp, "%sno thread slept under the threshold\n", lead);
		return;
	}
	static const char *const titles[] = {
		">tid", "name", ">served", ">passed", ">eintr", ">p50 us", ">p99 us",
		">p99.9 us", ">max us",
	};
	struct rtable t;
	rtable_init(&t, 9, titles);
	char b[32];
	for (size_t i = 0; i < u->nthreads; i++) {
		const struct db_sleep_thread *x = &u->threads[i];
		size_t r = rtable_add_row(&t);
		if (x->tid)
			rtable_set(&t, r, 0, "%d", x->tid);
		rtable_set(&t, r, 1, "%s", x->name ? x->name : "");
		rtable_set(&t, r, 2, "%llu", (unsigned long long)x->served);
		rtable_set(&t, r, 3, "%llu", (unsigned long long)x->passed);
		rtable_set(&t, r, 4, "%llu", (unsigned long long)x->eintr);
		uint64_t v[4] = { x->p50_ns, x->p99_ns, x->p999_ns, x->max_ns };
		for (int k = 0; k < 4; k++) {
			if (x->served)
				snprintf(b, sizeof(b), "%.1f", (double)v[k] / 1000.0);
			else
				snprintf(b, sizeof(b), "-");
			rtable_set2(&t, r, 5 + k, b, NULL);
		}
	}
	rtable_write(&t, md ? OUT_MARKDOWN : OUT_TABLE, fp, 1);
	rtable_release(&t);
}

void report_sleep_usage_json(const struct db_sleep_usage *u, struct jw *w)
{
	jw_obj_begin(w);
	jw_key(w, "mode");
	jw_str(w, u->mode);
	jw_key(w, "threshold_us");
	jw_uint(w, u->threshold_us);
	jw_key(w, "max_spinners");
	if (u->max_spinners)
		jw_uint(w, u->max_spinners);
	else
		jw_null(w);
	jw_key(w, "status");
	jw_str(w, u->status);
	jw_key(w, "processes");
	jw_uint(w, u->processes);
	jw_key(w, "error");
	jw_str(w, u->error);
	jw_key(w, "threads");
	jw_arr_begin(w);
	for (size_t i = 0; i < u->nthreads; i++) {
		const struct db_sleep_thread *x = &u->threads[i];
		jw_obj_begin(w);
		jw_key(w, "tid");
		jw_int(w, x->tid);
		jw_key(w, "name");
		jw_str(w, x->name);
		jw_key(w, "served");
		jw_uint(w, x->served);
		jw_key(w, "passed");
		jw_uint(w, x->passed);
		jw_key(w, "eintr");
		jw_uint(w, x->eintr);
		jw_key(w, "early");
		jw_uint(w, x->early);
		jw_key(w, "throttled");
		jw_uint(w, x->throttled);
		jw_key(w, "overshoot_us");
		jw_obj_begin_flat(w);
		jw_key(w, "p50");
		jw_num(w, (double)x->p50_ns / 1000.0);
		jw_key(w, "p90");
		jw_num(w, (double)x->p90_ns / 1000.0);
		jw_key(w, "p99");
		jw_num(w, (double)x->p99_ns / 1000.0);
		jw_key(w, "p999");
		jw_num(w, (double)x->p999_ns / 1000.0);
		jw_key(w, "max");
		jw_num(w, (double)x->max_ns / 1000.0);
		jw_key(w, "mean");
		jw_num(w, x->mean_ns / 1000.0);
		jw_obj_end(w);
		jw_key(w, "requested_us_log2");
		jw_str(w, x->req_hist);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}
