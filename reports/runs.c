/*
 * runs: per-thread, per-name and total reports of a stored run, and the
 * list of runs.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/modules.h"
#include "reports/rows.h"
#include "reports/runs.h"
#include "reports/sleep.h"

int report_by_parse(const char *word, enum report_by *out)
{
	if (!word)
		return -EINVAL;
	if (!strcmp(word, "thread"))
		*out = BY_THREAD;
	else if (!strcmp(word, "name"))
		*out = BY_NAME;
	else if (!strcmp(word, "total"))
		*out = BY_TOTAL;
	else
		return -EINVAL;
	return 0;
}

bool event_is_time(const struct db_event *e)
{
	return e->attr_type == PERF_TYPE_SOFTWARE &&
	       (e->attr_config == PERF_COUNT_SW_TASK_CLOCK ||
		e->attr_config == PERF_COUNT_SW_CPU_CLOCK);
}

/* A row of the report: one thread, or the sum of threads sharing a name. */
struct rrow {
	const char *name;
	int32_t tid;		/* 0 for a group */
	bool is_main;
	size_t nthreads;
	double *value;		/* per event; NAN when absent */
	enum db_count_state *state;
	double *running_pct;	/* lowest running share among the summed */
};

static void rrow_init(struct rrow *r, size_t nev)
{
	memset(r, 0, sizeof(*r));
	r->value = malloc(nev * sizeof(double) + 1);
	r->state = malloc(nev * sizeof(*r->state) + 1);
	r->running_pct = malloc(nev * sizeof(double) + 1);
	if (!r->value || !r->state || !r->running_pct)
		abort();
	for (size_t e = 0; e < nev; e++) {
		r->value[e] = NAN;
		r->state[e] = COUNT_ABSENT;
		r->running_pct[e] = 100.0;
	}
}

static void rrow_release(struct rrow *r)
{
	free(r->value);
	free(r->state);
	free(r->running_pct);
}

/* Add one count into a row, keeping the worst state seen. */
static void rrow_add(struct rrow *r, size_t e, const struct db_count *c)
{
	double v;
	enum db_count_state s = db_count_scaled(c, &v);
	if (s == COUNT_ABSENT)
		return;
	if (s == COUNT_NOT_COUNTED) {
		if (r->state[e] == COUNT_ABSENT)
			r->state[e] = COUNT_NOT_COUNTED;
		return;
	}
	if (isnan(r->value[e]))
		r->value[e] = 0;
	r->value[e] += v;
	if (s == COUNT_SCALED || r->state[e] != COUNT_SCALED)
		r->state[e] = s;
	if (s == COUNT_SCALED && c->enabled) {
		double pct = 100.0 * (double)c->running / (double)c->enabled;
		if (pct < r->running_pct[e])
			r->running_pct[e] = pct;
	}
}

static size_t build_rows(const struct db_run *run, enum report_by by,
			 struct rrow **out)
{
	size_t nev = run->nevents;
	struct rrow *rows = NULL;
	size_t n = 0;

	if (by == BY_TOTAL) {
		rows = calloc(1, sizeof(*rows));
		if (!rows)
			abort();
		rrow_init(&rows[0], nev);
		rows[0].name = "total";
		rows[0].nthreads = run->nthreads;
		for (size_t e = 0; e < nev; e++)
			rrow_add(&rows[0], e, &run->events[e].total);
		*out = rows;
		return 1;
	}
	rows = calloc(run->nthreads ? run->nthreads : 1, sizeof(*rows));
	if (!rows)
		abort();
	for (size_t t = 0; t < run->nthreads; t++) {
		const struct db_thread *th = &run->threads[t];
		const char *name = th->name ? th->name : "";
		struct rrow *r = NULL;
		if (by == BY_NAME) {
			for (size_t i = 0; i < n; i++)
				if (!strcmp(rows[i].name, name))
					r = &rows[i];
		}
		if (!r) {
			r = &rows[n++];
			rrow_init(r, nev);
			r->name = name;
			r->tid = th->tid;
			r->is_main = th->is_main;
		}
		r->nthreads++;
		for (size_t e = 0; e < nev; e++)
			rrow_add(r, e, &th->counts[e]);
	}
	*out = rows;
	return n;
}

static void free_rows(struct rrow *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rrow_release(&rows[i]);
	free(rows);
}

/* Text for one cell, and its raw value for CSV. */
static void cell_text(const struct db_event *ev, const struct rrow *r, size_t e,
		      char *text, size_t tn, char *raw, size_t rn)
{
	raw[0] = '\0';
	switch (r->state[e]) {
	case COUNT_ABSENT:
		snprintf(text, tn, "-");
		return;
	case COUNT_NOT_COUNTED:
		snprintf(text, tn, "not counted");
		return;
	default:
		break;
	}
	double v = r->value[e];
	bool time = event_is_time(ev);
	char num[64];
	fmt_count(num, sizeof(num), time ? v / 1e6 : v, time ? 2 : 0);
	if (r->state[e] == COUNT_SCALED)
		snprintf(text, tn, "%s (%.0f%%)", num, r->running_pct[e]);
	else
		snprintf(text, tn, "%s", num);
	fmt_raw(raw, rn, round(v));
}

static void column_title(const struct db_event *e, char *buf, size_t n)
{
	if (event_is_time(e))
		snprintf(buf, n, ">%s (ms)", e->name);
	else
		snprintf(buf, n, ">%s", e->name);
}

static void write_header(const struct db_run *run, size_t nrows,
			 enum report_by by, enum out_format fmt, FILE *fp)
{
	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	char status[64];
	if (run->term_signal)
		snprintf(status, sizeof(status), "killed by signal %d (status %d)",
			 run->term_signal, run->exit_status);
	else
		snprintf(status, sizeof(status), "exit %d", run->exit_status);
	/* A run the database did not take has no number (its id is 0). */
	char id[32] = "(not stored)";
	if (run->id > 0)
		snprintf(id, sizeof(id), "%lld", (long long)run->id);
	if (fmt == OUT_MARKDOWN)
		fprintf(fp, "**prof run %s**: `", id);
	else
		fprintf(fp, "%sprof run %s: '", lead, id);
	md_field(fp, run->command);
	fprintf(fp, "%s %s%s\n\n", fmt == OUT_MARKDOWN ? "`" : "'", status,
		run->interrupted ? ", interrupted" : "");
	fprintf(fp, "%swall %.3f s, user %.3f s, sys %.3f s; %zu thread%s",
		lead, run->wall_s, run->user_s, run->sys_s, run->nthreads,
		run->nthreads == 1 ? "" : "s");
	if (by == BY_NAME)
		fprintf(fp, " under %zu name%s", nrows, nrows == 1 ? "" : "s");
	fprintf(fp, "; %s, %d CPUs\n", run->host.hostname ? run->host.hostname : "?",
		run->host.online_cpus);
	if (run->pin.mode && strcmp(run->pin.mode, "none")) {
		fprintf(fp, "%spin %s: %s", lead, run->pin.mode,
			run->pin.status ? run->pin.status : "?");
		if (run->pin.cpus)
			fprintf(fp, ", CPUs %s", run->pin.cpus);
		fputc('\n', fp);
	}
	fputc('\n', fp);
}

static void write_footer(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	const char *item = fmt == OUT_MARKDOWN ? "- " : "   ";
	/* What stood behind each mission counter, as the run stored it,
	 * under the family whose mission map chose it. */
	const char *family = NULL;
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		if (!ev->mission_event)
			continue;
		const char *f = ev->mission_family ? ev->mission_family : "?";
		if (!family || strcmp(family, f))
			fprintf(fp, "\n%smission counters on %s:\n", lead, f);
		family = f;
		fprintf(fp, "%s%s = %s (%s)\n", item, ev->name, ev->mission_event,
			ev->mission_note ? ev->mission_note : "?");
	}
	/* One line per distinct refusal, naming every event it hit. */
	bool *done = calloc(run->nevents + 1, sizeof(bool));
	bool any = false;
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		if (ev->supported || done[e])
			continue;
		if (!any)
			fprintf(fp, "\n%snot supported on this machine (not counted, not zero):\n",
				lead);
		any = true;
		const char *r = ev->reason ? ev->reason : "refused";
		size_t len = strcspn(r, "\n");
		fprintf(fp, "%s%s", item, ev->name);
		for (size_t k = e + 1; k < run->nevents; k++) {
			const struct db_event *o = &run->events[k];
			const char *ro = o->reason ? o->reason : "refused";
			if (o->supported || done[k] || strcspn(ro, "\n") != len ||
			    strncmp(r, ro, len))
				continue;
			done[k] = true;
			fprintf(fp, ", %s", o->name);
		}
		fprintf(fp, ": %.*s\n", (int)len, r);
	}
	free(done);
	/* Hints shared by the unsupported events, each printed once. */
	const char *printed[8];
	size_t np = 0;
	for (size_t e = 0; e < run->nevents && np < 8; e++) {
		const struct db_event *ev = &run->events[e];
		if (ev->supported || !ev->reason)
			continue;
		const char *h = strchr(ev->reason, '\n');
		if (!h)
			continue;
		h++;
		bool seen = false;
		for (size_t i = 0; i < np; i++)
			seen = seen || !strcmp(printed[i], h);
		if (seen)
			continue;
		printed[np++] = h;
		fprintf(fp, "%s%s\n", lead, h);
	}

	int maxg = 0;
	for (size_t e = 0; e < run->nevents; e++)
		if (run->events[e].supported && run->events[e].group > maxg)
			maxg = run->events[e].group;
	for (int g = 1; g <= maxg; g++) {
		fprintf(fp, "%s%scounted together (group %d):", g == 1 ? "\n" : "",
			lead, g);
		for (size_t e = 0; e < run->nevents; e++)
			if (run->events[e].supported && run->events[e].group == g)
				fprintf(fp, " %s", run->events[e].name);
		fputc('\n', fp);
	}
	bool scaled = false;
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_count *c = &run->events[e].total;
		scaled = scaled || (c->present && c->running && c->running < c->enabled);
		if (run->events[e].user_only)
			fprintf(fp, "%s%s: %s\n", lead, run->events[e].name,
				run->events[e].reason ? run->events[e].reason
						      : "user space only");
	}
	if (scaled)
		fprintf(fp, "%s(N%%): multiplexed; the value is scaled by time "
			"enabled / time running, and N%% is the share of time it ran\n",
			lead);
	size_t alive = 0;
	for (size_t t = 0; run->kind && !strcmp(run->kind, "attach") && t < run->nthreads; t++) {
		bool counted = false;
		for (size_t e = 0; e < run->nevents; e++)
			counted = counted || run->threads[t].counts[e].present;
		alive += !counted;
	}
	if (alive)
		fprintf(fp, "%snote: %zu thread%s created during the attach %s still "
			"running when it ended; the kernel reports an inherited thread's "
			"own counts only when it exits, so %s counts are in the row of "
			"the thread that created %s (the totals are whole)\n", lead,
			alive, alive == 1 ? "" : "s", alive == 1 ? "was" : "were",
			alive == 1 ? "its" : "their", alive == 1 ? "it" : "them");
	const char *why = NULL;
	if (db_run_complete(run, &why) == 0) {
		fprintf(fp, "%swarning: this run is incomplete:\n", lead);
		for (const char *p = why; *p;) {
			size_t n = strcspn(p, "\n");
			fprintf(fp, "%s  - %.*s\n", lead, (int)n, p);
			p += n;
			if (*p)
				p++;
		}
	} else if (run->lost_records) {
		fprintf(fp, "%swarning: %llu ring-buffer records were lost: the threads "
			"they described have no row of their own and their counts are "
			"in the main thread's row; the totals are whole (raise "
			"--mmap-pages)\n", lead, (unsigned long long)run->lost_records);
	}
}

static void write_json(const struct db_run *run, const struct rrow *rows,
		       size_t nrows, enum report_by by, FILE *fp)
{
	struct jw w;
	jw_init(&w, fp, 2);
	jw_obj_begin(&w);
	jw_key(&w, "run_id");
	if (run->id > 0)
		jw_int(&w, run->id);
	else
		jw_null(&w);	/* not stored */
	jw_key(&w, "kind");
	jw_str(&w, run->kind);
	jw_key(&w, "started");
	jw_str(&w, run->started);
	jw_key(&w, "command");
	jw_str(&w, run->command);
	jw_key(&w, "exit_status");
	jw_int(&w, run->exit_status);
	jw_key(&w, "signal");
	jw_int(&w, run->term_signal);
	jw_key(&w, "interrupted");
	jw_bool(&w, run->interrupted);
	jw_key(&w, "wall_s");
	jw_num(&w, run->wall_s);
	jw_key(&w, "user_s");
	jw_num(&w, run->user_s);
	jw_key(&w, "sys_s");
	jw_num(&w, run->sys_s);
	jw_key(&w, "lost_records");
	jw_uint(&w, run->lost_records);
	const char *why = NULL;
	int complete = db_run_complete(run, &why);
	jw_key(&w, "complete");
	if (complete < 0)
		jw_null(&w);
	else
		jw_bool(&w, complete == 1);
	jw_key(&w, "reasons");
	jw_arr_begin(&w);
	for (const char *p = why; p && *p;) {
		size_t n = strcspn(p, "\n");
		char *one = strndup(p, n);
		jw_str(&w, one);
		free(one);
		p += n;
		if (*p)
			p++;
	}
	jw_arr_end(&w);
	jw_key(&w, "host");
	jw_obj_begin(&w);
	jw_key(&w, "hostname");
	jw_str(&w, run->host.hostname);
	jw_key(&w, "cpu_model");
	jw_str(&w, run->host.cpu_model);
	jw_key(&w, "kernel");
	jw_str(&w, run->host.kernel);
	jw_key(&w, "online_cpus");
	jw_int(&w, run->host.online_cpus);
	jw_obj_end(&w);
	jw_key(&w, "pin");
	jw_obj_begin(&w);
	jw_key(&w, "mode");
	jw_str(&w, run->pin.mode ? run->pin.mode : "none");
	jw_key(&w, "status");
	jw_str(&w, run->pin.status ? run->pin.status : "applied");
	jw_key(&w, "cpus");
	jw_cpu_list(&w, run->pin.cpus);
	if (run->pin.level) {
		jw_key(&w, "level");
		jw_int(&w, run->pin.level);
		jw_key(&w, "size_bytes");
		jw_uint(&w, run->pin.size_bytes);
	}
	jw_obj_end(&w);

	jw_key(&w, "events");
	jw_arr_begin(&w);
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		jw_obj_begin(&w);
		jw_key(&w, "name");
		jw_str(&w, ev->name);
		jw_key(&w, "supported");
		jw_bool(&w, ev->supported);
		jw_key(&w, "group");
		jw_int(&w, ev->group);
		if (!ev->supported || ev->user_only) {
			jw_key(&w, "reason");
			jw_str(&w, ev->reason);
		}
		if (ev->mission_event) {
			jw_key(&w, "mission");
			jw_obj_begin(&w);
			jw_key(&w, "family");
			jw_str(&w, ev->mission_family);
			jw_key(&w, "event");
			jw_str(&w, ev->mission_event);
			jw_key(&w, "note");
			jw_str(&w, ev->mission_note);
			jw_obj_end(&w);
		}
		jw_key(&w, "unit");
		jw_str(&w, event_is_time(ev) ? "ns" : "count");
		jw_obj_end(&w);
	}
	jw_arr_end(&w);

	/* threads: always one entry per thread, as the contract says. */
	struct rrow *trows = NULL;
	size_t nt = by == BY_THREAD ? nrows : build_rows(run, BY_THREAD, &trows);
	const struct rrow *tr = by == BY_THREAD ? rows : trows;
	jw_key(&w, "threads");
	jw_arr_begin(&w);
	for (size_t i = 0; i < nt; i++) {
		jw_obj_begin(&w);
		jw_key(&w, "tid");
		jw_int(&w, tr[i].tid);
		jw_key(&w, "name");
		jw_str(&w, tr[i].name);
		jw_key(&w, "main");
		jw_bool(&w, tr[i].is_main);
		jw_key(&w, "counts");
		jw_obj_begin(&w);
		for (size_t e = 0; e < run->nevents; e++) {
			jw_key(&w, run->events[e].name);
			if (!run->events[e].supported || isnan(tr[i].value[e]))
				jw_null(&w);
			else
				jw_num(&w, round(tr[i].value[e]));
		}
		jw_obj_end(&w);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	if (trows)
		free_rows(trows, nt);

	if (by == BY_NAME) {
		jw_key(&w, "names");
		jw_arr_begin(&w);
		for (size_t i = 0; i < nrows; i++) {
			jw_obj_begin(&w);
			jw_key(&w, "name");
			jw_str(&w, rows[i].name);
			jw_key(&w, "threads");
			jw_uint(&w, rows[i].nthreads);
			jw_key(&w, "counts");
			jw_obj_begin(&w);
			for (size_t e = 0; e < run->nevents; e++) {
				jw_key(&w, run->events[e].name);
				if (!run->events[e].supported || isnan(rows[i].value[e]))
					jw_null(&w);
				else
					jw_num(&w, round(rows[i].value[e]));
			}
			jw_obj_end(&w);
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
	}

	jw_key(&w, "totals");
	jw_obj_begin(&w);
	for (size_t e = 0; e < run->nevents; e++) {
		double v;
		jw_key(&w, run->events[e].name);
		enum db_count_state s = db_count_scaled(&run->events[e].total, &v);
		if (!run->events[e].supported || s == COUNT_ABSENT ||
		    s == COUNT_NOT_COUNTED)
			jw_null(&w);
		else
			jw_num(&w, round(v));
	}
	jw_obj_end(&w);
	jw_key(&w, "running_pct");
	jw_obj_begin(&w);
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_count *c = &run->events[e].total;
		jw_key(&w, run->events[e].name);
		if (!run->events[e].supported || !c->present || !c->enabled)
			jw_null(&w);
		else
			jw_num(&w, round(1000.0 * (double)c->running / (double)c->enabled) / 10.0);
	}
	jw_obj_end(&w);
	report_working_set_json(run, &w);
	jw_key(&w, "sleep");
	if (run->sleep_usage)
		report_sleep_usage_json(run->sleep_usage, &w);
	else
		jw_null(&w);
	if (run->nsettings) {
		jw_key(&w, "settings");
		jw_obj_begin(&w);
		for (size_t i = 0; i < run->nsettings; i++) {
			jw_key(&w, run->settings[i].key);
			jw_str(&w, run->settings[i].value);
		}
		jw_obj_end(&w);
	}
	jw_obj_end(&w);
	jw_end(&w);
}

static void write_csv_long(const struct db_run *run, const struct rrow *rows,
			   size_t nrows, enum report_by by, FILE *fp)
{
	fprintf(fp, "run_id,%s,name,event,value,status,running_pct\n",
		by == BY_NAME ? "threads" : "tid");
	for (size_t i = 0; i < nrows; i++) {
		for (size_t e = 0; e < run->nevents; e++) {
			const struct db_event *ev = &run->events[e];
			char raw[64] = "";
			const char *status = "counted";
			if (!ev->supported)
				status = "not supported";
			else if (rows[i].state[e] == COUNT_NOT_COUNTED)
				status = "not counted";
			else if (rows[i].state[e] == COUNT_ABSENT)
				status = "absent";
			else if (rows[i].state[e] == COUNT_SCALED)
				status = "scaled";
			if (ev->supported && !isnan(rows[i].value[e]))
				fmt_raw(raw, sizeof(raw), round(rows[i].value[e]));
			if (run->id > 0)
				fprintf(fp, "%lld", (long long)run->id);
			fputc(',', fp);
			if (by == BY_NAME)
				fprintf(fp, "%zu,", rows[i].nthreads);
			else if (by == BY_TOTAL)
				fprintf(fp, ",");
			else
				fprintf(fp, "%d,", rows[i].tid);
			csv_field(fp, rows[i].name);
			fputc(',', fp);
			csv_field(fp, ev->name);
			fprintf(fp, ",%s,%s,", raw, status);
			if (rows[i].state[e] == COUNT_SCALED)
				fprintf(fp, "%.1f", rows[i].running_pct[e]);
			fputc('\n', fp);
		}
	}
}

void report_run(const struct db_run *run, enum report_by by,
		enum out_format fmt, FILE *fp)
{
	struct rrow *rows = NULL;
	size_t nrows = build_rows(run, by, &rows);

	if (fmt == OUT_JSON) {
		write_json(run, rows, nrows, by, fp);
		free_rows(rows, nrows);
		return;
	}
	if (fmt == OUT_CSV) {
		write_csv_long(run, rows, nrows, by, fp);
		free_rows(rows, nrows);
		return;
	}

	/* Table and Markdown: one column per supported event. */
	size_t nsup = 0;
	for (size_t e = 0; e < run->nevents; e++)
		nsup += run->events[e].supported;
	size_t lead = by == BY_TOTAL ? 1 : 2;
	size_t ncols = lead + nsup;
	char **titles = calloc(ncols, sizeof(char *));
	char tbuf[160];
	if (by == BY_THREAD) {
		titles[0] = strdup(">tid");
		titles[1] = strdup("name");
	} else if (by == BY_NAME) {
		titles[0] = strdup("name");
		titles[1] = strdup(">threads");
	} else {
		titles[0] = strdup("");
	}
	size_t col = lead;
	for (size_t e = 0; e < run->nevents; e++) {
		if (!run->events[e].supported)
			continue;
		column_title(&run->events[e], tbuf, sizeof(tbuf));
		titles[col++] = strdup(tbuf);
	}
	struct rtable t;
	rtable_init(&t, ncols, (const char *const *)titles);
	char text[96], raw[64];
	for (size_t i = 0; i < nrows; i++) {
		size_t r = rtable_add_row(&t);
		if (by == BY_THREAD) {
			rtable_set(&t, r, 0, "%d", rows[i].tid);
			rtable_set(&t, r, 1, "%s%s", rows[i].name,
				   rows[i].is_main ? " (main)" : "");
		} else if (by == BY_NAME) {
			rtable_set(&t, r, 0, "%s", rows[i].name);
			rtable_set(&t, r, 1, "%zu", rows[i].nthreads);
		} else {
			rtable_set(&t, r, 0, "total");
		}
		col = lead;
		for (size_t e = 0; e < run->nevents; e++) {
			if (!run->events[e].supported)
				continue;
			cell_text(&run->events[e], &rows[i], e, text, sizeof(text),
				  raw, sizeof(raw));
			rtable_set2(&t, r, col++, text, raw);
		}
	}
	if (by != BY_TOTAL) {
		struct rrow tot;
		rrow_init(&tot, run->nevents);
		for (size_t e = 0; e < run->nevents; e++)
			rrow_add(&tot, e, &run->events[e].total);
		size_t r = rtable_add_row(&t);
		rtable_rule(&t, r);
		rtable_set(&t, r, 0, by == BY_THREAD ? "" : "total");
		rtable_set(&t, r, 1, by == BY_THREAD ? "total" : "%zu", run->nthreads);
		col = lead;
		for (size_t e = 0; e < run->nevents; e++) {
			if (!run->events[e].supported)
				continue;
			cell_text(&run->events[e], &tot, e, text, sizeof(text), raw,
				  sizeof(raw));
			rtable_set2(&t, r, col++, text, raw);
		}
		rrow_release(&tot);
	}

	write_header(run, nrows, by, fmt, fp);
	if (nsup)
		rtable_write(&t, fmt, fp, 1);
	else
		fprintf(fp, " no event could be counted\n");
	write_footer(run, fmt, fp);
	report_working_set_footer(run, fmt, fp);
	if (run->sleep_usage)
		report_sleep_usage(run->sleep_usage, fmt, fp);
	if (fmt == OUT_TABLE)
		fputc('\n', fp);

	rtable_release(&t);
	for (size_t c = 0; c < ncols; c++)
		free(titles[c]);
	free(titles);
	free_rows(rows, nrows);
}

enum {
	L_RUN_ID, L_KIND, L_STARTED, L_COMMAND, L_EXIT, L_INTERRUPTED, L_WALL,
	L_THREADS, L_HOST, L_N
};

/* A stored run: the JSON keys of shared/DESIGN.md and more. People read
 * the exit status with a * when the run was interrupted. */
static const struct col list_cols[L_N] = {
	[L_RUN_ID] = { .key = "run_id", .title = "run", .kind = COL_INT },
	[L_KIND] = { .key = "kind" },
	[L_STARTED] = { .key = "started" },
	[L_COMMAND] = { .key = "command" },
	[L_EXIT] = { .key = "exit_status", .title = "exit", .kind = COL_INT },
	[L_INTERRUPTED] = { .key = "interrupted", .kind = COL_BOOL,
			    .flags = COL_MACHINES },
	[L_WALL] = { .key = "wall_s", .title = "wall s", .kind = COL_REAL,
		     .decimals = 3 },
	[L_THREADS] = { .key = "threads", .kind = COL_INT },
	[L_HOST] = { .key = "host" },
};

void report_runs_list(const struct db_run_summary *runs, size_t n,
		      enum out_format fmt, FILE *fp)
{
	/* The command last: it is the long one. */
	static const size_t people[] = {
		L_RUN_ID, L_KIND, L_STARTED, L_EXIT, L_WALL, L_THREADS, L_HOST,
		L_COMMAND,
	};
	static const size_t csv[] = {
		L_RUN_ID, L_KIND, L_STARTED, L_EXIT, L_INTERRUPTED, L_WALL,
		L_THREADS, L_HOST, L_COMMAND,
	};
	struct rows *r = rows_new("runs", list_cols, L_N, 0);
	rows_people_order(r, people, sizeof(people) / sizeof(people[0]));
	rows_csv_order(r, csv, sizeof(csv) / sizeof(csv[0]));
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		size_t row = rows_add(r);
		rows_int(r, row, L_RUN_ID, runs[i].id);
		rows_str(r, row, L_KIND, runs[i].kind);
		rows_str(r, row, L_STARTED, runs[i].started);
		rows_str(r, row, L_COMMAND, runs[i].command);
		rows_int(r, row, L_EXIT, runs[i].exit_status);
		if (runs[i].interrupted)
			rows_text(r, row, L_EXIT, "%d*", runs[i].exit_status);
		rows_bool(r, row, L_INTERRUPTED, runs[i].interrupted);
		rows_num(r, row, L_WALL, runs[i].wall_s);
		rows_uint(r, row, L_THREADS, runs[i].nthreads);
		rows_str(r, row, L_HOST, runs[i].hostname);
		any = any || runs[i].interrupted;
	}
	if (n == 0 && fmt == OUT_TABLE)
		fprintf(fp, "no runs stored yet; record one with 'prof run -- CMD'\n");
	else
		rows_write(r, fmt, fp, 0);
	if (fmt == OUT_TABLE && any)
		fprintf(fp, "* interrupted (Ctrl-C or SIGTERM); what was counted is kept\n");
	rows_free(r);
}
