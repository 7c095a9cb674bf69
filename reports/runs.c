/*
 * runs: per-thread, per-name and total reports of a stored run, and the
 * list of runs.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xalloc.h"
#include "common/utf8.h"
#include "reports/modules.h"
#include "reports/rows.h"
#include "reports/corepmus.h"
#include "reports/runs.h"
#include "reports/scaling.h"
#include "reports/sysenv.h"
#include "reports/sleep.h"
#include "reports/zerocount.h"

const char *report_run_verb(const struct db_run *run)
{
	/* An experiment's run says so: "prof ab 15" would read as an
	 * experiment's number. */
	static const char *const own[][2] = {
		{ "record", "record" }, { "sleep", "sleep" }, { "probe", "probe" },
		{ "ab", "ab run" }, { "pressure", "pressure run" },
	};
	for (size_t i = 0; run->kind && i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(run->kind, own[i][0]))
			return own[i][1];
	return "run";
}

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
	else if (!strcmp(word, "process"))
		*out = BY_PROCESS;
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

#define NONE ((size_t)-1)

/* Whether rows are processes (a list or a tree). */
static bool by_process(enum report_by by)
{
	return by == BY_PROCESS || by == BY_TREE;
}

/* A row of the report: one thread, or the sum of threads sharing a name
 * or a process. */
struct rrow {
	const char *name;
	int32_t tid;		/* 0 for a group */
	int32_t pid, ppid;	/* its process and that one's parent; 0 unknown */
	bool is_main;
	size_t nthreads;
	double *value;		/* per event; NAN when absent */
	enum db_count_state *state;
	double *running_pct;	/* lowest running share among the summed */
};

static void rrow_init(struct rrow *r, size_t nev)
{
	memset(r, 0, sizeof(*r));
	/* One block: value, running_pct, then state. */
	double *block = malloc(nev * (2 * sizeof(double) + sizeof(*r->state)) + 1);
	if (!block)
		xalloc_die();
	r->value = block;
	r->running_pct = block + nev;
	r->state = (enum db_count_state *)(block + 2 * nev);
	for (size_t e = 0; e < nev; e++) {
		r->value[e] = NAN;
		r->state[e] = COUNT_ABSENT;
		r->running_pct[e] = 100.0;
	}
}

static void rrow_release(struct rrow *r)
{
	free(r->value);
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

/* Thread t's own row, as build_rows makes it for BY_THREAD. */
static void thread_rrow(const struct db_run *run, size_t t, struct rrow *r)
{
	const struct db_thread *th = &run->threads[t];
	rrow_init(r, run->nevents);
	r->name = th->name ? th->name : "";
	r->tid = th->tid;
	r->pid = th->pid;
	r->ppid = th->ppid;
	r->is_main = th->is_main;
	r->nthreads = 1;
	for (size_t e = 0; e < run->nevents; e++)
		rrow_add(r, e, &th->counts[e]);
}

/* Threads sorted so that each row's are together, a row's in their
 * order: by name (BY_NAME), or by process (pid > 0; a thread of no known
 * process is a process of its own), else each alone. */
struct group_by {
	const struct db_run *run;
	enum report_by by;
};

static bool same_row(const struct group_by *g, size_t a, size_t b)
{
	const struct db_thread *x = &g->run->threads[a], *y = &g->run->threads[b];
	if (g->by == BY_NAME)
		return !strcmp(x->name ? x->name : "", y->name ? y->name : "");
	return by_process(g->by) && x->pid > 0 && x->pid == y->pid;
}

static int group_cmp(const void *pa, const void *pb, void *arg)
{
	const struct group_by *g = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct db_thread *x = &g->run->threads[a], *y = &g->run->threads[b];
	int c = 0;
	if (g->by == BY_NAME)
		c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
	else if (by_process(g->by))
		c = (x->pid > y->pid) - (x->pid < y->pid);
	return c ? c : (a > b) - (a < b);
}

/*
 * The report's rows: one per thread, name or process, in the order of
 * each one's first thread, or the run's total. Threads are sorted into
 * their rows, not searched for among the rows so far: that took over a
 * minute for 300,000 threads of as many names.
 */
static size_t build_rows(const struct db_run *run, enum report_by by,
			 struct rrow **out)
{
	size_t nev = run->nevents;
	struct rrow *rows = NULL;
	size_t n = 0;

	if (by == BY_TOTAL) {
		rows = calloc(1, sizeof(*rows));
		if (!rows)
			xalloc_die();
		rrow_init(&rows[0], nev);
		rows[0].name = "total";
		rows[0].nthreads = run->nthreads;
		for (size_t e = 0; e < nev; e++)
			rrow_add(&rows[0], e, &run->events[e].total);
		*out = rows;
		return 1;
	}
	size_t nt = run->nthreads ? run->nthreads : 1;
	rows = calloc(nt, sizeof(*rows));
	size_t *order = malloc(nt * sizeof(*order));
	size_t *group = malloc(nt * sizeof(*group));	/* per thread */
	size_t *row_of = malloc(nt * sizeof(*row_of));	/* per group */
	if (!rows || !order || !group || !row_of)
		xalloc_die();
	struct group_by g = { run, by };
	for (size_t t = 0; t < run->nthreads; t++)
		order[t] = t;
	qsort_r(order, run->nthreads, sizeof(*order), group_cmp, &g);
	for (size_t j = 0, k = 0; j < run->nthreads; j++) {
		if (j && !same_row(&g, order[j - 1], order[j]))
			k++;
		group[order[j]] = k;
		row_of[k] = NONE;
	}
	for (size_t t = 0; t < run->nthreads; t++) {
		const struct db_thread *th = &run->threads[t];
		const char *name = th->name ? th->name : "";
		struct rrow *r = row_of[group[t]] == NONE ? NULL : &rows[row_of[group[t]]];
		if (r && by_process(by) && (th->is_main || th->tid == th->pid)) {
			r->name = name;	/* the process is named for its main thread */
			r->is_main = true;
		}
		if (r && by_process(by) && !r->ppid)
			r->ppid = th->ppid;
		if (!r) {
			row_of[group[t]] = n;
			r = &rows[n++];
			rrow_init(r, nev);
			r->name = name;
			r->tid = th->tid;
			r->pid = th->pid;
			r->ppid = th->ppid;
			r->is_main = th->is_main;
		}
		r->nthreads++;
		for (size_t e = 0; e < nev; e++)
			rrow_add(r, e, &th->counts[e]);
	}
	free(order);
	free(group);
	free(row_of);
	*out = rows;
	return n;
}

static void free_rows(struct rrow *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rrow_release(&rows[i]);
	free(rows);
}

/* Text for one cell, and its raw value for CSV; zero: the event counted 0
 * while the run's instructions or cycles moved (zerocount.h). */
static void cell_text(const struct db_event *ev, const struct rrow *r, size_t e,
		      bool zero, char *text, size_t tn, char *raw, size_t rn)
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
	if (zero && v == 0) {
		snprintf(text, tn, "counted 0");
		fmt_raw(raw, rn, 0);
		return;
	}
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
	bool attached = run->kind && !strcmp(run->kind, "attach");
	if (attached)	/* it was not ours to end: no exit status */
		snprintf(status, sizeof(status), "attached to %d", (int)run->pid);
	else if (run->term_signal)
		snprintf(status, sizeof(status), "killed by signal %d (status %d)",
			 run->term_signal, run->exit_status);
	else
		snprintf(status, sizeof(status), "exit %d", run->exit_status);
	/* A run the database did not take has no number (its id is 0). */
	char id[32] = "(not stored)";
	if (run->id > 0)
		snprintf(id, sizeof(id), "%lld", (long long)run->id);
	if (fmt == OUT_MARKDOWN)
		fprintf(fp, "**prof %s %s**: ", report_run_verb(run), id);
	else
		fprintf(fp, "%sprof %s %s: ", lead, report_run_verb(run), id);
	command_field(fp, run->command, fmt);
	const char *tmo = db_get_flag(run, SET_TIMED_OUT) ? db_get_text(run, SET_TIMEOUT_S)
							   : NULL;
	fprintf(fp, " %s%s", status, run->interrupted ? ", interrupted" : "");
	if (tmo)
		fprintf(fp, ", timed out after %s s", tmo);
	fprintf(fp, "\n\n");
	fprintf(fp, "%swall %.3f s, user %.3f s, sys %.3f s; %zu thread%s",
		lead, run->wall_s, run->user_s, run->sys_s, run->nthreads,
		run->nthreads == 1 ? "" : "s");
	if (by == BY_NAME)
		fprintf(fp, " under %zu name%s", nrows, nrows == 1 ? "" : "s");
	if (by_process(by))
		fprintf(fp, " in %zu process%s", nrows, nrows == 1 ? "" : "es");
	fprintf(fp, "; %s, %d CPUs\n", run->host.hostname ? run->host.hostname : "?",
		run->host.online_cpus);
	if (run->pin.mode && strcmp(run->pin.mode, "none")) {
		fprintf(fp, "%spin %s: %s", lead, run->pin.mode,
			run->pin.status ? run->pin.status : "?");
		if (run->pin.cpus)
			fprintf(fp, ", CPUs %s", run->pin.cpus);
		fputc('\n', fp);
	}
	/* How each thread's counts were had (runs since the per-CPU path). */
	const char *path = db_get_str(run, SET_COUNT_PATH);
	const char *note = db_get_str(run, SET_COUNT_PATH_NOTE);
	if (path && !strcmp(path, "percpu"))
		fprintf(fp, "%sper thread: counted per CPU, given to each thread at "
			"its switches\n", lead);
	else if (path)
		fprintf(fp, "%sper thread: counted per task, each thread's values "
			"sent at its exit\n", lead);
	if (path && note)
		fprintf(fp, "%s(not per CPU: %.*s)\n", lead,
			(int)utf8_cut(note, strlen(note), 200), note);
	/* Multiplexed per CPU: the per-thread values are shares by time
	 * (the setting names the events; too long a line for here). */
	if (db_get_str(run, SET_PERCPU_MUX_ESTIMATE))
		fprintf(fp, "%s(the hardware events took turns on the PMU: each "
			"thread's values of them are estimates, shared out by its "
			"time on the CPU)\n", lead);
	/* Simulated hardware counters: the model they come from. */
	const char *src = db_get_str(run, SET_COUNTER_SOURCE);
	const char *model = db_get_str(run, SET_SIM_MODEL);
	if (src && !strcmp(src, "simulated")) {
		fprintf(fp, "%shardware counters: simulated, a model (compare with other "
			"simulated runs)\n", lead);
		if (model) {
			fprintf(fp, "%s  ", lead);
			term_field(fp, model);
			fputc('\n', fp);
		}
	}
	report_run_notes(run, lead, fp);
	fputc('\n', fp);
}

/* --window: which part of the run the counts are. */
static void window_line(const struct db_run *run, const char *lead, FILE *fp)
{
	const char *win = db_get_str(run, SET_WINDOW);
	if (win && !strcmp(win, "not reached"))
		fprintf(fp, "%swindow %s: not reached (the command ended first): "
			"the counts are the whole run's\n", lead,
			db_get_str(run, SET_WINDOW_ASKED) ? db_get_str(run, SET_WINDOW_ASKED)
							  : "?");
	else if (win && db_get_text(run, SET_WINDOW_END_S)) {
		double a = atof(db_get_text(run, SET_WINDOW_START_S) ?
				db_get_text(run, SET_WINDOW_START_S) : "0");
		double b = atof(db_get_text(run, SET_WINDOW_END_S));
		unsigned f0, f1;
		if (sscanf(win, "frame:%u:%u", &f0, &f1) == 2)
			fprintf(fp, "%swindow: frames %u to %u, %.4g to %.4g s after the "
				"launch", lead, f0, f1, a, b);
		else
			fprintf(fp, "%swindow: %.3g to %.3g s after the launch", lead, a, b);
		const char *u = db_get_text(run, SET_WINDOW_USER_S);
		const char *s = db_get_text(run, SET_WINDOW_SYS_S);
		const char *c = db_get_text(run, SET_WINDOW_CPU_S);
		if (u && s)
			fprintf(fp, " (CPU %.3f s user, %.3f s sys)", atof(u), atof(s));
		else if (c)
			fprintf(fp, " (CPU %.3f s, task-clock)", atof(c));
		fprintf(fp, ":\n%s  counts, frames and samples are only what ran inside it\n",
			lead);
	} else if (win) {
		fprintf(fp, "%swindow: %.*s\n", lead, (int)utf8_cut(win, strlen(win), 80), win);
	}
}

void report_run_notes(const struct db_run *run, const char *lead, FILE *fp)
{
	for (const char *n = run->note; n && *n;) {
		size_t len = strcspn(n, "\n");
		char *line = strndup(n, len);
		fprintf(fp, "%snote: ", lead);
		term_field(fp, line ? line : "?");
		fputc('\n', fp);
		free(line);
		n += len + (n[len] == '\n');
	}
	window_line(run, lead, fp);
}

/*
 * The first line of an event's refusal with "for 'NAME' " taken out where
 * NAME is the event's own, so refusals that differ only by the name they
 * quote print as one line; the caller frees it, NULL on no memory.
 */
static char *refusal_key(const struct db_event *ev)
{
	const char *r = ev->reason ? ev->reason : "refused";
	size_t len = strcspn(r, "\n");
	char *quoted = NULL;
	if (asprintf(&quoted, "for '%s' ", ev->name) < 0)
		return NULL;
	char *key = strndup(r, len);
	char *at = key ? strstr(key, quoted) : NULL;
	if (at)
		memmove(at, at + strlen(quoted), strlen(at + strlen(quoted)) + 1);
	free(quoted);
	return key;
}

static void write_footer_text(const struct db_run *run, enum out_format fmt, FILE *fp);

/* What follows the run's table: its notes, working set and sleeps. */
static void write_footer_all(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	write_footer_text(run, fmt, fp);
	report_working_set_footer(run, fmt, fp);
	if (run->sleep_usage)
		report_sleep_usage(run->sleep_usage, fmt, fp);
}

/* ... on a terminal with no line past 80 columns (out_wrap). */
static void write_footer(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	if (fmt != OUT_TABLE) {
		write_footer_all(run, fmt, fp);
		return;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem)
		xalloc_die();
	write_footer_all(run, fmt, mem);
	if (fclose(mem))
		xalloc_die();
	out_wrap(fp, text);
	free(text);
}

/* The mission map and the refused events in full (prof -v, and every
 * caller that did not ask for brevity). */
static void write_machine_notes_full(const struct db_run *run, const char *lead,
				     const char *item, char **keys, FILE *fp)
{
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
	/* One line per distinct refusal, naming every event it hit; a
	 * refusal that quotes its own event's name ("no mission map for
	 * 'llc-misses'") is the same refusal for every event it names. */
	bool any = false;
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		if (ev->supported || !keys[e])
			continue;
		if (!any)
			fprintf(fp, "\n%snot supported on this machine (not counted, not zero):\n",
				lead);
		any = true;
		fprintf(fp, "%s%s", item, ev->name);
		for (size_t k = e + 1; k < run->nevents; k++)
			if (keys[k] && !strcmp(keys[e], keys[k]))
				fprintf(fp, ", %s", run->events[k].name);
		fprintf(fp, ": %s\n", keys[e]);
		for (size_t k = e + 1; k < run->nevents; k++)
			if (keys[k] && !strcmp(keys[e], keys[k])) {
				free(keys[k]);
				keys[k] = NULL;
			}
		free(keys[e]);
		keys[e] = NULL;
	}
}

/* The same in a few words: the machine's facts, which stay the same from
 * run to run, said at length only with prof -v (issue 29: a VM printed
 * 12 lines of them after every run). */
static void write_machine_notes_brief(const struct db_run *run, const char *lead,
				      char **keys, FILE *fp)
{
	const char *family = NULL;
	bool counted = false, any = false;
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		if (ev->mission_event && ev->supported) {
			counted = true;
			family = ev->mission_family ? ev->mission_family : "?";
		}
	}
	if (counted)
		fprintf(fp, "\n%smission counters: %s's map", lead, family);
	for (size_t e = 0; e < run->nevents; e++) {
		if (run->events[e].supported || !keys[e])
			continue;
		if (any)
			fputs("; ", fp);
		else if (counted)
			fputs("; not counted here (not zero): ", fp);
		else
			fprintf(fp, "\n%snot counted here (not zero): ", lead);
		any = true;
		fputs(run->events[e].name, fp);
		for (size_t k = e + 1; k < run->nevents; k++) {
			if (!keys[k] || strcmp(keys[e], keys[k]))
				continue;
			fprintf(fp, ", %s", run->events[k].name);
			free(keys[k]);
			keys[k] = NULL;
		}
		fprintf(fp, " (%s)", keys[e]);
		free(keys[e]);
		keys[e] = NULL;
	}
	if (counted || any)
		fputs(". 'prof -v' and 'prof events --mission' say more\n", fp);
}

/* Full machine notes, or brief ones (report_run_notes_brief). */
static bool notes_brief;

void report_run_notes_brief(bool brief)
{
	notes_brief = brief;
}

static void write_footer_text(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	const char *item = fmt == OUT_MARKDOWN ? "- " : "   ";
	char **keys = calloc(run->nevents + 1, sizeof(char *));
	if (!keys)
		xalloc_die();
	for (size_t e = 0; e < run->nevents; e++)
		if (!run->events[e].supported)
			keys[e] = refusal_key(&run->events[e]);
	if (notes_brief)
		write_machine_notes_brief(run, lead, keys, fp);
	else
		write_machine_notes_full(run, lead, item, keys, fp);
	free(keys);
	/* Hardware counters that read 0 beside a moving one: not a plain 0. */
	struct counted_zero z;
	run_counted_zero(run, &z);
	char *names_at = NULL;
	if (asprintf(&names_at, "\n%s", item) < 0)
		xalloc_die();
	char *zero = counted_zero_text(run, &z, names_at);
	free(names_at);
	if (zero)
		fprintf(fp, "\n%s%s\n", lead, zero);
	free(zero);
	counted_zero_release(&z);
	/* Hints shared by the unsupported events, each printed once (with
	 * the notes in full). */
	const char *printed[8];
	size_t np = 0;
	for (size_t e = 0; e < run->nevents && np < 8 && !notes_brief; e++) {
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
		for (const char *l = h; *l;) {	/* each hint line indented */
			size_t n = strcspn(l, "\n");
			fprintf(fp, "%s%.*s\n", lead, (int)n, l);
			l += n + (l[n] == '\n');
		}
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
	/* Which values are estimates, in words. */
	char *part = run_scaled_text(run, SCALED_PART);
	char *never = run_scaled_text(run, SCALED_NEVER);
	if (part)
		fprintf(fp, "%sscaled, so estimates, not counts: %s\n", lead, part);
	if (never)
		fprintf(fp, "%snever counted (the group never got the PMU's counters): "
			"%s\n", lead, never);
	free(part);
	free(never);
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

/* ---- rows ---- */

/* An object with one key per event (counts, totals, running shares). */
static struct rows *event_map(const struct db_run *run)
{
	struct col *cols = calloc(run->nevents + 1, sizeof(*cols));
	if (!cols)
		xalloc_die();
	for (size_t e = 0; e < run->nevents; e++)
		cols[e] = (struct col){ .key = run->events[e].name, .kind = COL_COUNT };
	struct rows *r = rows_new(NULL, cols, run->nevents, ROWS_OBJECT);
	free(cols);
	rows_add(r);
	return r;
}

/* A row's counts by event: null where not supported or not counted. */
static struct rows *counts_of(const struct db_run *run, const struct rrow *row)
{
	struct rows *r = event_map(run);
	for (size_t e = 0; e < run->nevents; e++) {
		if (!run->events[e].supported || isnan(row->value[e]))
			rows_null(r, 0, e);
		else
			rows_num(r, 0, e, round(row->value[e]));
	}
	return r;
}

enum {
	C_TID, C_NAME, C_THREADS, C_PID, C_PPID, C_MAIN, C_COUNTS, C_CHILDREN,
	C_EVENTS
};

/* A process id, or null where it is not known. */
static void rows_pid(struct rows *r, size_t row, size_t col, int32_t pid)
{
	if (pid > 0)
		rows_int(r, row, col, pid);
	else
		rows_null(r, row, col);
}

/*
 * Column c's value of row x into column dst of r: what --sort orders by
 * (people's text aside). count_rows fills its rows with it, and a sort
 * of many rows fills a set of that one column alone.
 */
static void put_value(struct rows *r, size_t row, size_t dst, size_t c,
		      const struct db_run *run, const struct rrow *x)
{
	switch (c) {
	case C_TID:
		rows_int(r, row, dst, x->tid);
		break;
	case C_NAME:
		rows_str(r, row, dst, x->name);
		break;
	case C_THREADS:
		rows_uint(r, row, dst, x->nthreads);
		break;
	case C_PID:
		rows_pid(r, row, dst, x->pid);
		break;
	case C_PPID:
		rows_pid(r, row, dst, x->ppid);
		break;
	case C_MAIN:
		rows_bool(r, row, dst, x->is_main);
		break;
	case C_COUNTS:
	case C_CHILDREN:
		break;
	default:
		/* The value too, so that --sort can order by it. */
		if (run->events[c - C_EVENTS].supported && !isnan(x->value[c - C_EVENTS]))
			rows_num(r, row, dst, round(x->value[c - C_EVENTS]));
		break;
	}
}

/* A process for people: "1234 make (3 threads)", after its tree lead. */
static void process_text(struct rows *r, size_t row, const struct rrow *x,
			 const char *lead)
{
	char pid[16] = "?";
	if (x->pid > 0)
		snprintf(pid, sizeof(pid), "%d", (int)x->pid);
	rows_text(r, row, C_NAME, "%s%s %s (%zu thread%s)", lead ? lead : "", pid,
		  x->name, x->nthreads, x->nthreads == 1 ? "" : "s");
}

/* People read a process list as pid, ppid, name, threads, then counts. */
static void process_order(struct rows *r, const struct col *cols, size_t ncols)
{
	size_t *order = malloc(ncols * sizeof(*order));
	if (!order)
		xalloc_die();
	size_t n = 0;
	static const size_t lead[] = { C_PID, C_PPID, C_NAME, C_THREADS };
	for (size_t i = 0; i < 4; i++)
		if (!(cols[lead[i]].flags & COL_NO_PEOPLE))
			order[n++] = lead[i];
	for (size_t c = C_EVENTS; c < ncols; c++)
		if (!(cols[c].flags & COL_NO_PEOPLE))
			order[n++] = c;
	rows_people_order(r, order, n);
	free(order);
}

/*
 * The counts table: a thread (tid, name, main), a thread name (name,
 * threads), a process (pid, ppid, name, threads) or the run's total.
 * JSON nests the counts in an object keyed by event; people read one
 * column per supported event instead, with the scaling and the
 * not-counted in the cell. lead: each row's tree lead, for a tree
 * (NULL otherwise), where people read the process in one column. nest:
 * JSON's counts are wanted (a set per row; people's table leaves them).
 */
static struct rows *count_rows(const struct db_run *run, const struct rrow *rows,
			       size_t nrows, enum report_by by, char *const *lead,
			       bool nest)
{
	bool proc = by_process(by);
	size_t ncols = C_EVENTS + run->nevents;
	struct col *cols = calloc(ncols, sizeof(*cols));
	char **titles = calloc(run->nevents + 1, sizeof(*titles));
	if (!cols || !titles)
		xalloc_die();
	cols[C_TID] = (struct col){ .key = "tid", .kind = COL_INT };
	cols[C_NAME] = (struct col){ .key = "name" };
	cols[C_THREADS] = (struct col){ .key = "threads", .kind = COL_INT };
	cols[C_PID] = (struct col){ .key = "pid", .kind = COL_INT, .flags = COL_MACHINES };
	cols[C_PPID] = (struct col){ .key = "ppid", .kind = COL_INT, .flags = COL_MACHINES };
	cols[C_MAIN] = (struct col){ .key = "main", .kind = COL_BOOL,
				     .flags = COL_MACHINES };
	cols[C_COUNTS] = (struct col){ .key = "counts", .kind = COL_NEST };
	cols[C_CHILDREN] = (struct col){ .key = "children", .kind = COL_NEST };
	if (by == BY_TOTAL)
		cols[C_NAME].title = "";
	if (by == BY_TREE)
		cols[C_NAME].title = "process";
	const bool show[] = {
		[C_TID] = by == BY_THREAD, [C_NAME] = true,
		[C_THREADS] = by == BY_NAME || proc,
	};
	/* Hidden everywhere, so that --sort does not offer them either. */
	for (size_t c = C_TID; c <= C_THREADS; c++)
		if (!show[c])
			cols[c].flags = COL_NO_PEOPLE | COL_NO_JSON | COL_NO_CSV;
	if (by != BY_THREAD)
		cols[C_MAIN].flags |= COL_NO_JSON | COL_NO_CSV;
	if (by != BY_THREAD && !proc) {
		cols[C_PID].flags |= COL_NO_JSON | COL_NO_CSV;
		cols[C_PPID].flags |= COL_NO_JSON | COL_NO_CSV;
	}
	/* A process list shows its ids; a tree says them in its one column. */
	if (by == BY_PROCESS) {
		cols[C_PID].flags = 0;
		cols[C_PPID].flags = 0;
	}
	if (by == BY_TREE)
		cols[C_THREADS].flags = COL_MACHINES;
	for (size_t e = 0; e < run->nevents; e++) {
		char tbuf[160];
		column_title(&run->events[e], tbuf, sizeof(tbuf));
		titles[e] = strdup(tbuf + 1);	/* past the '>' */
		cols[C_EVENTS + e] = (struct col){
			.key = run->events[e].name, .title = titles[e],
			.kind = COL_COUNT, .align = COL_RIGHT,
			/* refused events are named in the footer instead */
			.flags = run->events[e].supported ? COL_PEOPLE
				 : COL_PEOPLE | COL_NO_PEOPLE,
		};
	}
	struct rows *r = rows_new(by == BY_NAME ? "names" : proc ? "processes"
				  : "threads", cols, ncols, 0);
	if (proc)
		process_order(r, cols, ncols);
	for (size_t e = 0; e < run->nevents; e++)
		free(titles[e]);
	free(titles);
	free(cols);

	struct counted_zero z;
	run_counted_zero(run, &z);
	char text[96], raw[64];
	for (size_t i = 0; i <= nrows; i++) {
		/* The last row, for people, is the run's total. */
		bool total = i == nrows;
		if (total && by == BY_TOTAL)
			break;
		struct rrow tot;
		/* rows is NULL for a run with no threads: no &rows[nrows] then. */
		const struct rrow *x = total ? NULL : &rows[i];
		size_t row;
		if (total) {
			rrow_init(&tot, run->nevents);
			for (size_t e = 0; e < run->nevents; e++)
				rrow_add(&tot, e, &run->events[e].total);
			x = &tot;
			row = rows_add_total(r);
			rows_text(r, row, C_NAME, "total");
			if (by == BY_NAME || proc)
				rows_text(r, row, C_THREADS, "%zu", run->nthreads);
		} else {
			row = rows_add(r);
			for (size_t c = C_TID; c <= C_MAIN; c++)
				put_value(r, row, c, c, run, x);
			if (x->is_main && by == BY_THREAD)
				rows_text(r, row, C_NAME, "%s (main)", x->name);
			if (by == BY_TOTAL)
				rows_text(r, row, C_NAME, "total");
			if (by == BY_TREE)
				process_text(r, row, x, lead ? lead[i] : NULL);
			if (nest)
				rows_nest(r, row, C_COUNTS, counts_of(run, x));
		}
		for (size_t e = 0; e < run->nevents; e++) {
			cell_text(&run->events[e], x, e, z.zero[e], text, sizeof(text),
				  raw, sizeof(raw));
			if (!total)
				put_value(r, row, C_EVENTS + e, C_EVENTS + e, run, x);
			rows_text(r, row, C_EVENTS + e, "%s", text);
		}
		if (total)
			rrow_release(&tot);
	}
	counted_zero_release(&z);
	return r;
}

/* ---- process trees ---- */

/*
 * Processes depth first, each under its parent: the parent is the row
 * whose pid is the process's ppid; a process whose parent is not in the
 * run is a root. Siblings keep the order they were given in (--sort's).
 */
struct ptree {
	size_t n;
	size_t *row;		/* per position: the process's row */
	size_t *up;		/* per position: its parent's position, or NONE */
	int *depth;
	char **lead;		/* per position: what people read before it */
	/* The positions under each position, in order, from below_start[i]
	 * to below_start[i + 1]; slot n holds the roots. */
	size_t *below_start, *below;
};

/* A process's pid, and its row: parents are looked up in these, sorted. */
struct pid_row {
	int32_t pid;
	size_t row;
};

static int pid_row_cmp(const void *pa, const void *pb)
{
	const struct pid_row *a = pa, *b = pb;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

/* The first row other than i whose pid is row i's ppid, or NONE. */
static size_t parent_row(const struct rrow *rows, const struct pid_row *by_pid,
			 size_t n, size_t i)
{
	int32_t ppid = rows[i].ppid;
	if (ppid <= 0)
		return NONE;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by_pid[mid].pid < ppid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && by_pid[lo].pid == ppid; lo++)
		if (by_pid[lo].row != i)
			return by_pid[lo].row;
	return NONE;
}

struct tree_walk {
	struct ptree *t;
	const size_t *kid_start, *kid;	/* each row's children, sibling order */
	bool *seen;
};

/*
 * The levels a tree draws and nests: a process deeper is drawn after its
 * ancestor's lead at this depth and "… ", and JSON lists it among that
 * ancestor's children (its ppid still says whose it is; CSV's depth is
 * its own). A chain of 20,000 processes drew 1.2 GB of leads, and its
 * JSON nested past what the writer keeps (JW_MAX_DEPTH, two per level
 * after the document's three), which made it invalid.
 */
#define TREE_DEPTH_MAX 12

/* A process being visited: its position, and its children to go. */
struct tree_frame {
	size_t at;
	int depth;
	char *child_prefix;
	size_t *kids, nk, next;
};

/* Give row the next position, under position up, and push its frame. */
static void tree_enter(struct tree_walk *w, struct tree_frame *stack, size_t *top,
		       size_t row, size_t up, int depth, const char *prefix, bool last)
{
	struct ptree *t = w->t;
	size_t at = t->n++;
	t->row[at] = row;
	t->up[at] = up;
	t->depth[at] = depth;
	struct tree_frame *f = &stack[(*top)++];
	bool deep = depth > TREE_DEPTH_MAX;
	if (asprintf(&t->lead[at], "%s%s", prefix, !depth ? "" : deep ? "… "
		     : last ? "└─ " : "├─ ") < 0 ||
	    asprintf(&f->child_prefix, "%s%s", prefix, !depth || deep ? "" : last ? "   "
		     : "│  ") < 0)
		xalloc_die();
	w->seen[row] = true;
	size_t from = w->kid_start[row], to = w->kid_start[row + 1];
	f->at = at;
	f->depth = depth;
	f->kids = malloc((to - from + 1) * sizeof(*f->kids));
	f->nk = f->next = 0;
	if (!f->kids)
		xalloc_die();
	for (size_t i = from; i < to; i++)
		if (!w->seen[w->kid[i]])
			f->kids[f->nk++] = w->kid[i];
}

/* Row and everything under it, depth first, on a stack of its own: a
 * chain of 300,000 processes is as deep, past what a C stack holds. */
static void tree_visit(struct tree_walk *w, size_t row, struct tree_frame *stack)
{
	size_t top = 0;
	tree_enter(w, stack, &top, row, NONE, 0, "", true);
	while (top) {
		struct tree_frame *f = &stack[top - 1];
		if (f->next < f->nk) {
			size_t k = f->kids[f->next++];
			tree_enter(w, stack, &top, k, f->at, f->depth + 1, f->child_prefix,
				   f->next == f->nk);
			continue;
		}
		free(f->kids);
		free(f->child_prefix);
		top--;
	}
}

/*
 * The tree of rows[0..n), siblings in the order sorted gives. Each
 * row's parent is looked up by pid, and its children listed once: a
 * scan of every row for each was quadratic in the processes.
 */
static void tree_build(struct ptree *t, const struct rrow *rows, size_t n,
		       const size_t *sorted)
{
	memset(t, 0, sizeof(*t));
	size_t m = n ? n : 1;
	t->row = malloc(m * sizeof(*t->row));
	t->up = malloc(m * sizeof(*t->up));
	t->depth = malloc(m * sizeof(*t->depth));
	t->lead = calloc(m, sizeof(*t->lead));
	size_t *parent = malloc(m * sizeof(*parent));
	bool *seen = calloc(m, sizeof(*seen));
	struct pid_row *by_pid = malloc(m * sizeof(*by_pid));
	size_t *kid_start = calloc(m + 1, sizeof(*kid_start));
	size_t *kid = malloc(m * sizeof(*kid));
	if (!t->row || !t->up || !t->depth || !t->lead || !parent || !seen ||
	    !by_pid || !kid_start || !kid)
		xalloc_die();
	for (size_t i = 0; i < n; i++)
		by_pid[i] = (struct pid_row){ rows[i].pid, i };
	qsort(by_pid, n, sizeof(*by_pid), pid_row_cmp);
	for (size_t i = 0; i < n; i++) {
		parent[i] = parent_row(rows, by_pid, n, i);
		if (parent[i] != NONE)
			kid_start[parent[i] + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		kid_start[i + 1] += kid_start[i];
	/* Each parent's children in sibling order: a cursor per parent. */
	size_t *fill = malloc((m + 1) * sizeof(*fill));
	if (!fill)
		xalloc_die();
	memcpy(fill, kid_start, m * sizeof(*fill));
	for (size_t i = 0; i < n; i++)
		if (parent[sorted[i]] != NONE)
			kid[fill[parent[sorted[i]]]++] = sorted[i];
	struct tree_walk w = { t, kid_start, kid, seen };
	struct tree_frame *stack = malloc(m * sizeof(*stack));
	if (!stack)
		xalloc_die();
	for (size_t i = 0; i < n; i++)
		if (parent[sorted[i]] == NONE)
			tree_visit(&w, sorted[i], stack);
	/* Parents in a loop (a reused pid): the first one met is a root. */
	for (size_t i = 0; i < n; i++)
		if (!seen[sorted[i]])
			tree_visit(&w, sorted[i], stack);
	free(stack);
	/* Where JSON nests each position: under its parent, or past
	 * TREE_DEPTH_MAX under the ancestor at that depth (positions are
	 * depth first, so a parent's slot is known before its children's). */
	size_t *nest = malloc((t->n + 1) * sizeof(*nest));
	t->below_start = calloc(t->n + 2, sizeof(*t->below_start));
	t->below = malloc((t->n + 1) * sizeof(*t->below));
	if (!nest || !t->below_start || !t->below)
		xalloc_die();
	for (size_t i = 0; i < t->n; i++) {
		size_t up = t->up[i];
		nest[i] = up == NONE ? t->n : t->depth[i] <= TREE_DEPTH_MAX + 1 ? up
			  : nest[up];
		t->below_start[nest[i] + 1]++;
	}
	for (size_t i = 0; i <= t->n; i++)
		t->below_start[i + 1] += t->below_start[i];
	memcpy(fill, t->below_start, (t->n + 1) * sizeof(*fill));
	for (size_t i = 0; i < t->n; i++)
		t->below[fill[nest[i]]++] = i;
	free(nest);
	free(fill);
	free(parent);
	free(seen);
	free(by_pid);
	free(kid_start);
	free(kid);
}

static void tree_release(struct ptree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->lead[i]);
	free(t->lead);
	free(t->row);
	free(t->up);
	free(t->depth);
	free(t->below_start);
	free(t->below);
}

/* A level of a tree for JSON: the processes under position up (NONE:
 * the roots) of t, whose rows are in tree order (position = index). */
struct tree_at {
	const struct db_run *run;
	const struct rrow *rows;
	const struct ptree *t;
	size_t up;
};

/* JSON: a level's processes, each with its `children`, written as the
 * writer reaches them: a level's set at a time, not the whole tree's
 * (a set per process). */
static void tree_json(struct jw *w, const void *arg)
{
	const struct tree_at *at = arg;
	const struct ptree *t = at->t;
	size_t slot = at->up == NONE ? t->n : at->up;
	const size_t *pos = t->below + t->below_start[slot];
	size_t k = t->below_start[slot + 1] - t->below_start[slot];
	struct rrow *level = calloc(k + 1, sizeof(*level));
	struct tree_at *below = calloc(k + 1, sizeof(*below));
	if (!level || !below)
		xalloc_die();
	for (size_t i = 0; i < k; i++)
		level[i] = at->rows[pos[i]];
	struct rows *r = count_rows(at->run, level, k, BY_TREE, NULL, true);
	for (size_t i = 0; i < k; i++) {
		below[i] = (struct tree_at){ at->run, at->rows, t, pos[i] };
		rows_hook(r, i, C_CHILDREN, tree_json, &below[i]);
	}
	rows_json(r, w);
	rows_free(r);
	free(below);
	free(level);
}

/*
 * The rows a report lists: report rows built already (rows), or the
 * run's threads (rows NULL), each thread's row built only while its
 * part of the list is written, pick naming which threads in which order
 * (NULL: all, in the run's order). A run of 300,000 threads held every
 * row of its JSON at once (3 GB); a part at a time it holds one part.
 */
struct rsrc {
	const struct db_run *run;
	const struct rrow *rows;
	const size_t *pick;
	size_t n;
	enum report_by by;	/* what the rows are, for JSON's list */
};

/* Rows written a part at a time: 1,024 keep the parts' cost small
 * beside the run's own (a part's set is a few hundred KB). */
#define RSRC_PART 1024

/* Rows [i, i + k) of s: s->rows' own, or built into buf (k of them). */
static const struct rrow *rsrc_get(const struct rsrc *s, size_t i, size_t k,
				   struct rrow *buf)
{
	if (s->rows)
		return s->rows + i;
	for (size_t j = 0; j < k; j++)
		thread_rrow(s->run, s->pick ? s->pick[i + j] : i + j, &buf[j]);
	return buf;
}

static void rsrc_put(const struct rsrc *s, size_t k, struct rrow *buf)
{
	for (size_t j = 0; !s->rows && j < k; j++)
		rrow_release(&buf[j]);
}

/* JSON's `threads` (or `names`, `processes`): the source's rows, a
 * part at a time. */
static void list_json(struct jw *w, const void *arg)
{
	const struct rsrc *s = arg;
	struct rrow *buf = calloc(RSRC_PART, sizeof(*buf));
	if (!buf)
		xalloc_die();
	jw_arr_begin(w);
	for (size_t i = 0; i < s->n; i += RSRC_PART) {
		size_t k = s->n - i < RSRC_PART ? s->n - i : RSRC_PART;
		const struct rrow *x = rsrc_get(s, i, k, buf);
		struct rows *part = count_rows(s->run, x, k, s->by, NULL, true);
		rows_json_items(part, w);
		rows_free(part);
		rsrc_put(s, k, buf);
	}
	jw_arr_end(w);
	free(buf);
}

#define MISSION_COLS(K) \
	K(M_FAMILY, "family", TEXT) K(M_EVENT, "event", TEXT) \
	K(M_NOTE, "note", TEXT)
ROWS_KEYS(mission_cols, M_N, MISSION_COLS);

/* An event as the run opened it; reason only where it was refused or
 * counted user space only, mission only for a mission counter. */
#define EVENT_COLS(K) \
	K(E_NAME, "name", TEXT) K(E_SUPPORTED, "supported", BOOL) \
	K(E_GROUP, "group", INT) K(E_REASON, "reason", TEXT) \
	K(E_MISSION, "mission", NEST) K(E_UNIT, "unit", TEXT) \
	K(E_IMPLEMENTED, "implemented", BOOL) K(E_NOTE, "note", TEXT)
ROWS_KEYS(event_cols, E_N, EVENT_COLS);

static struct rows *event_rows(const struct db_run *run)
{
	struct rows *r = rows_new("events", event_cols, E_N, 0);
	struct counted_zero z;
	run_counted_zero(run, &z);
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		size_t row = rows_add(r);
		rows_str(r, row, E_NAME, ev->name);
		rows_bool(r, row, E_SUPPORTED, ev->supported);
		rows_int(r, row, E_GROUP, ev->group);
		if (!ev->supported || ev->user_only)
			rows_str(r, row, E_REASON, ev->reason);
		if (ev->mission_event) {
			struct rows *m = rows_new(NULL, mission_cols, M_N, ROWS_OBJECT);
			size_t k = rows_add(m);
			rows_str(m, k, M_FAMILY, ev->mission_family);
			rows_str(m, k, M_EVENT, ev->mission_event);
			rows_str(m, k, M_NOTE, ev->mission_note);
			rows_nest(r, row, E_MISSION, m);
		}
		rows_str(r, row, E_UNIT, event_is_time(ev) ? "ns" : "count");
		/* Only where it read 0 beside a moving counter: false. */
		if (z.zero[e]) {
			char *note = counted_zero_note(&z);
			rows_bool(r, row, E_IMPLEMENTED, false);
			rows_str(r, row, E_NOTE, note);
			free(note);
		}
	}
	counted_zero_release(&z);
	return r;
}

#define HOST_COLS(K) \
	K(H_HOSTNAME, "hostname", TEXT) K(H_CPU_MODEL, "cpu_model", TEXT) \
	K(H_KERNEL, "kernel", TEXT) K(H_CPUS, "online_cpus", INT)
ROWS_KEYS(host_cols, H_N, HOST_COLS);

#define PIN_COLS(K) \
	K(P_MODE, "mode", TEXT) K(P_STATUS, "status", TEXT) \
	K(P_CPUS, "cpus", CPUS) K(P_LEVEL, "level", INT) \
	K(P_SIZE, "size_bytes", BYTES)
ROWS_KEYS(pin_cols, P_N, PIN_COLS);

static void sleep_json(struct jw *w, const void *arg)
{
	report_sleep_usage_json(arg, w);
}

void report_complete_cells(const struct db_run *run, struct rows *r, size_t row,
			   size_t complete_col, size_t reasons_col)
{
	const char *why = NULL;
	int complete = db_run_complete(run, &why);
	if (complete < 0)
		rows_null(r, row, complete_col);
	else
		rows_bool(r, row, complete_col, complete == 1);
	static const struct col line_col = { .key = "reason" };
	struct rows *reasons = rows_new(NULL, &line_col, 1, ROWS_VALUES);
	for (const char *p = why; p && *p;) {
		size_t n = strcspn(p, "\n");
		char *one = strndup(p, n);
		if (!one)
			xalloc_die();
		rows_str(reasons, rows_add(reasons), 0, one);
		free(one);
		p += n;
		if (*p)
			p++;
	}
	rows_nest(r, row, reasons_col, reasons);
}

/* The run as one record: the JSON document of shared/DESIGN.md. */
#define RUN_COLS(K) \
	K(R_RUN_ID, "run_id", INT) K(R_KIND, "kind", TEXT) \
	K(R_STARTED, "started", TEXT) K(R_COMMAND, "command", TEXT) \
	K(R_EXIT, "exit_status", INT) K(R_SIGNAL, "signal", INT) \
	K(R_INTERRUPTED, "interrupted", BOOL) K(R_TIMED_OUT, "timed_out", BOOL) \
	K(R_WALL, "wall_s", REAL) K(R_USER, "user_s", REAL) K(R_SYS, "sys_s", REAL) \
	K(R_LOST, "lost_records", COUNT) K(R_COMPLETE, "complete", BOOL) \
	K(R_REASONS, "reasons", NEST) K(R_NOTE, "note", TEXT) \
	K(R_HOST, "host", NEST) K(R_PIN, "pin", NEST) K(R_EVENTS, "events", NEST) \
	K(R_THREADS, "threads", NEST) K(R_NAMES, "names", NEST) \
	K(R_PROCESSES, "processes", NEST) K(R_TOTALS, "totals", NEST) \
	K(R_RUNNING, "running_pct", NEST) \
	K(R_WS, "working_set", NEST) K(R_SLEEP, "sleep", NEST) \
	K(R_SETTINGS, "settings", NEST) K(R_SYSTEM, "system", NEST) \
	K(R_ENV, "env", NEST) K(R_CORE_PMUS, "core_pmus", NEST)
ROWS_KEYS(run_cols, R_N, RUN_COLS);

static void write_json(const struct db_run *run, const struct rrow *rows,
		       size_t nrows, enum report_by by, const struct ptree *tree,
		       const struct rsrc *threads, FILE *fp)
{
	struct rows *r = rows_new(NULL, run_cols, R_N, 0);
	size_t row = rows_add(r);
	if (run->id > 0)
		rows_int(r, row, R_RUN_ID, run->id);
	else
		rows_null(r, row, R_RUN_ID);	/* not stored */
	rows_str(r, row, R_KIND, run->kind);
	rows_str(r, row, R_STARTED, run->started);
	rows_str(r, row, R_COMMAND, run->command);
	/* An attached process was not prof's to end: it has no exit status
	 * here (the table says "attached to PID"), not a made-up 0. */
	if (run->kind && !strcmp(run->kind, "attach")) {
		rows_null(r, row, R_EXIT);
		rows_null(r, row, R_SIGNAL);
	} else {
		rows_int(r, row, R_EXIT, run->exit_status);
		rows_int(r, row, R_SIGNAL, run->term_signal);
	}
	rows_bool(r, row, R_INTERRUPTED, run->interrupted);
	if (run->note)
		rows_str(r, row, R_NOTE, run->note);
	/* Only a run launched with --timeout has the key. */
	if (db_get_text(run, SET_TIMEOUT_S))
		rows_bool(r, row, R_TIMED_OUT, db_get_flag(run, SET_TIMED_OUT));
	rows_num(r, row, R_WALL, run->wall_s);
	rows_num(r, row, R_USER, run->user_s);
	rows_num(r, row, R_SYS, run->sys_s);
	rows_uint(r, row, R_LOST, run->lost_records);
	report_complete_cells(run, r, row, R_COMPLETE, R_REASONS);

	struct rows *host = rows_new(NULL, host_cols, H_N, ROWS_OBJECT);
	size_t h = rows_add(host);
	rows_str(host, h, H_HOSTNAME, run->host.hostname);
	rows_str(host, h, H_CPU_MODEL, run->host.cpu_model);
	rows_str(host, h, H_KERNEL, run->host.kernel);
	rows_int(host, h, H_CPUS, run->host.online_cpus);
	rows_nest(r, row, R_HOST, host);

	struct rows *pin = rows_new(NULL, pin_cols, P_N, ROWS_OBJECT);
	size_t p = rows_add(pin);
	rows_str(pin, p, P_MODE, run->pin.mode ? run->pin.mode : "none");
	rows_str(pin, p, P_STATUS, run->pin.status ? run->pin.status : "applied");
	rows_str(pin, p, P_CPUS, run->pin.cpus ? run->pin.cpus : "");
	if (run->pin.level) {
		rows_int(pin, p, P_LEVEL, run->pin.level);
		rows_uint(pin, p, P_SIZE, run->pin.size_bytes);
	}
	rows_nest(r, row, R_PIN, pin);
	rows_nest(r, row, R_EVENTS, event_rows(run));

	/* threads: always one entry per thread, as the contract says (those
	 * the view keeps, when the rows are threads). */
	rows_hook(r, row, R_THREADS, list_json, threads);
	struct rsrc shown = { run, rows, NULL, nrows, by };
	struct tree_at roots = { run, rows, tree, NONE };
	if (by == BY_NAME)
		rows_hook(r, row, R_NAMES, list_json, &shown);
	if (by == BY_PROCESS)
		rows_hook(r, row, R_PROCESSES, list_json, &shown);
	if (by == BY_TREE)
		rows_hook(r, row, R_PROCESSES, tree_json, &roots);

	struct rows *totals = event_map(run), *running = event_map(run);
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_count *c = &run->events[e].total;
		double v;
		enum db_count_state st = db_count_scaled(c, &v);
		if (!run->events[e].supported || st == COUNT_ABSENT ||
		    st == COUNT_NOT_COUNTED)
			rows_null(totals, 0, e);
		else
			rows_num(totals, 0, e, round(v));
		if (!run->events[e].supported || !c->present || !c->enabled)
			rows_null(running, 0, e);
		else
			rows_num(running, 0, e, round(1000.0 * (double)c->running /
						      (double)c->enabled) / 10.0);
	}
	rows_nest(r, row, R_TOTALS, totals);
	rows_nest(r, row, R_RUNNING, running);
	rows_nest(r, row, R_WS, report_working_set_rows(run));
	if (run->sleep_usage)
		rows_hook(r, row, R_SLEEP, sleep_json, run->sleep_usage);
	else
		rows_null(r, row, R_SLEEP);
	if (run->nsettings)
		rows_nest(r, row, R_SETTINGS,
			  report_kv_map(run->settings, run->nsettings));
	/* Only runs that have them: older runs' documents stay as they were. */
	if (run->nsystem)
		rows_nest(r, row, R_SYSTEM, report_system_map(run));
	if (run->nenv)
		rows_nest(r, row, R_ENV, report_env_map(run));
	/* Only runs counted per core PMU (hybrid) have the key. */
	if (run->ncore_pmus > 1)
		rows_nest(r, row, R_CORE_PMUS, report_core_pmu_rows(run));
	rows_write_data(r, OUT_JSON, fp);
}

/* pid and ppid came later: last, so that older readers' columns stay. */
enum {
	V_RUN_ID, V_TID, V_NAME, V_EVENT, V_VALUE, V_STATUS, V_RUNNING, V_PID,
	V_PPID, V_DEPTH, V_N
};

/* The lines of rows[0..n), depth[i] each one's depth in a tree (NULL:
 * no tree). */
static void csv_long_part(struct rows *r, const struct db_run *run,
			  const struct rrow *rows, size_t nrows, enum report_by by,
			  const int *depth, const struct counted_zero *cz)
{
	bool proc = by_process(by), ids = by == BY_THREAD || proc;
	for (size_t i = 0; i < nrows; i++) {
		for (size_t e = 0; e < run->nevents; e++) {
			const struct db_event *ev = &run->events[e];
			enum db_count_state st = rows[i].state[e];
			const char *status = "counted";
			if (!ev->supported)
				status = "not supported";
			else if (st == COUNT_NOT_COUNTED)
				status = "not counted";
			else if (st == COUNT_ABSENT)
				status = "absent";
			else if (st == COUNT_SCALED)
				status = "scaled";
			if (cz->zero[e] && rows[i].value[e] == 0)
				status = "counted 0: may not be implemented";
			size_t row = rows_add(r);
			if (run->id > 0)
				rows_int(r, row, V_RUN_ID, run->id);
			if (by == BY_NAME || proc)
				rows_uint(r, row, V_TID, rows[i].nthreads);
			else if (by == BY_THREAD)
				rows_int(r, row, V_TID, rows[i].tid);
			if (ids) {
				rows_pid(r, row, V_PID, rows[i].pid);
				rows_pid(r, row, V_PPID, rows[i].ppid);
			}
			if (depth)
				rows_int(r, row, V_DEPTH, depth[i]);
			rows_str(r, row, V_NAME, rows[i].name);
			rows_str(r, row, V_EVENT, ev->name);
			bool counted = ev->supported && !isnan(rows[i].value[e]);
			if (counted)
				rows_num(r, row, V_VALUE, round(rows[i].value[e]));
			rows_str(r, row, V_STATUS, status);
			/* Not counted: enabled, never on the PMU, so it ran 0% of
			 * the time, as the JSON's running_pct says. */
			if (counted)
				rows_num(r, row, V_RUNNING,
					 round(10.0 * rows[i].running_pct[e]) / 10.0);
			else if (ev->supported && st == COUNT_NOT_COUNTED)
				rows_num(r, row, V_RUNNING, 0);
		}
	}
}

/*
 * CSV is long form: one line per (row, event), the value raw, its status
 * and the share of time it ran (100 where it was not multiplexed; empty
 * where nothing was counted).
 */
static void write_csv_long(const struct rsrc *src, enum report_by by,
			   const struct ptree *tree, FILE *fp)
{
	const struct db_run *run = src->run;
	bool proc = by_process(by), ids = by == BY_THREAD || proc;
	const struct col cols[V_N] = {
		[V_RUN_ID] = { .key = "run_id", .kind = COL_INT },
		[V_TID] = { .key = by == BY_NAME || proc ? "threads" : "tid",
			    .kind = COL_INT },
		[V_NAME] = { .key = "name" },
		[V_EVENT] = { .key = "event" },
		[V_VALUE] = { .key = "value", .kind = COL_COUNT },
		[V_STATUS] = { .key = "status" },
		[V_RUNNING] = { .key = "running_pct", .kind = COL_PCT, .decimals = 1 },
		[V_PID] = { .key = "pid", .kind = COL_INT, .flags = ids ? 0 : COL_NO_CSV },
		[V_PPID] = { .key = "ppid", .kind = COL_INT, .flags = ids ? 0 : COL_NO_CSV },
		/* a tree's rows, depth first: 0 for a root */
		[V_DEPTH] = { .key = "depth", .kind = COL_INT,
			      .flags = by == BY_TREE ? 0 : COL_NO_CSV },
	};
	struct rows *head = rows_new(NULL, cols, V_N, 0);
	rows_csv_header(head, fp);
	rows_free(head);
	struct counted_zero z;
	run_counted_zero(run, &z);
	struct rrow *buf = calloc(RSRC_PART, sizeof(*buf));
	if (!buf)
		xalloc_die();
	/* A part of the rows at a time: a line per row and event held whole
	 * was 2.6 GB for 300,000 threads of 6 events. */
	for (size_t at = 0; at < src->n; at += RSRC_PART) {
		size_t k = src->n - at < RSRC_PART ? src->n - at : RSRC_PART;
		const struct rrow *rows = rsrc_get(src, at, k, buf);
		struct rows *r = rows_new(NULL, cols, V_N, 0);
		csv_long_part(r, run, rows, k, by, tree ? tree->depth + at : NULL, &z);
		rows_csv_body(r, fp);
		rows_free(r);
		rsrc_put(src, k, buf);
	}
	free(buf);
	counted_zero_release(&z);
}

int report_run_sort_check(const struct db_run *run, enum report_by by,
			  const char *sort, char **cause)
{
	struct rows *t = count_rows(run, NULL, 0, by, NULL, false);
	int rc = rows_sort_check(t, sort, cause);
	rows_free(t);
	return rc;
}

void report_run(const struct db_run *run, enum report_by by,
		enum out_format fmt, FILE *fp)
{
	report_run_view(run, by, NULL, fmt, fp);
}

/* The rows of a tree in its order, and people's table of them. */
static struct rows *tree_rows(const struct db_run *run, struct rrow *shown,
			      size_t *nshown, struct ptree *tree)
{
	size_t *sorted = malloc((*nshown + 1) * sizeof(*sorted));
	struct rrow *copy = malloc((*nshown + 1) * sizeof(*copy));
	if (!sorted || !copy)
		xalloc_die();
	for (size_t i = 0; i < *nshown; i++)
		sorted[i] = i;
	memcpy(copy, shown, *nshown * sizeof(*copy));
	tree_build(tree, copy, *nshown, sorted);
	for (size_t i = 0; i < tree->n; i++)
		shown[i] = copy[tree->row[i]];
	*nshown = tree->n;
	free(copy);
	free(sorted);
	return count_rows(run, shown, *nshown, BY_TREE, tree->lead, false);
}

/*
 * The rows view keeps, in its order, into *pick: indexes into rows[0..n)
 * or, with rows NULL, into the run's threads; returns how many, and how
 * many it left out in *more. A sort reads one column of values, so that
 * no report row is built for a row that is cut (--limit 5 of a run of
 * 300,000 threads built all 300,000, 1 GB).
 */
static size_t view_pick(const struct db_run *run, const struct rrow *rows, size_t n,
			enum report_by by, const struct rows_view *view,
			size_t **pick, size_t *more)
{
	size_t limit = view && view->limit && view->limit < n ? view->limit : n;
	*pick = malloc((n ? n : 1) * sizeof(**pick));
	if (!*pick)
		xalloc_die();
	*more = n - limit;
	struct rows *spec = count_rows(run, NULL, 0, by, NULL, false);
	struct rows *keys = view ? rows_key_set(spec, view->sort) : NULL;
	size_t col = view ? rows_key_col(spec, view->sort) : (size_t)-1;
	rows_free(spec);
	if (!keys) {
		for (size_t i = 0; i < limit; i++)
			(*pick)[i] = i;
		return limit;
	}
	for (size_t i = 0; i < n; i++) {
		size_t row = rows_add(keys);
		struct rrow own;
		if (!rows)
			thread_rrow(run, i, &own);
		put_value(keys, row, 0, col, run, rows ? &rows[i] : &own);
		if (!rows)
			rrow_release(&own);
	}
	*more = rows_view_apply(keys, 0, view, "", "");
	size_t kept = rows_count(keys);
	for (size_t i = 0; i < kept; i++)
		(*pick)[i] = rows_origin(keys, i);
	rows_free(keys);
	return kept;
}

void report_run_view(const struct db_run *run, enum report_by by,
		     const struct rows_view *view, enum out_format fmt, FILE *fp)
{
	/* A thread's row is its own: built from the run as it is written,
	 * not all of them first (300,000 threads took 3 GB as JSON). */
	bool threads = by == BY_THREAD;
	struct rrow *rows = NULL;
	size_t nrows = threads ? run->nthreads : build_rows(run, by, &rows);
	/* The rows as the view orders and cuts them, the same in every
	 * format: people's table, and the order JSON and CSV list. A tree
	 * takes the sort alone, for the order of each one's children. */
	struct rows_view sort_only = { view ? view->sort : NULL, 0 };
	size_t *pick, more;
	size_t npick = view_pick(run, rows, nrows, by, by == BY_TREE ? &sort_only : view,
				 &pick, &more);
	struct rrow *shown = NULL;
	size_t nshown = npick;
	if (!threads || (fmt != OUT_JSON && fmt != OUT_CSV)) {
		shown = calloc(nshown ? nshown : 1, sizeof(*shown));
		if (!shown)
			xalloc_die();
		for (size_t i = 0; i < nshown; i++) {
			if (threads)
				thread_rrow(run, pick[i], &shown[i]);
			else
				shown[i] = rows[pick[i]];
		}
	}
	struct ptree tree;
	struct rows *t = NULL;
	if (by == BY_TREE)
		t = tree_rows(run, shown, &nshown, &tree);
	/* JSON's threads and CSV's lines: the picked threads themselves, or
	 * the shown rows; JSON of other rows lists every thread as well. */
	struct rsrc src = { run, shown, threads ? pick : NULL, nshown, by };
	struct rsrc all = { run, NULL, NULL, run->nthreads, BY_THREAD };
	if (fmt == OUT_JSON)
		write_json(run, shown, nshown, by, by == BY_TREE ? &tree : NULL,
			   threads ? &src : &all, fp);
	else if (fmt == OUT_CSV)
		write_csv_long(&src, by, by == BY_TREE ? &tree : NULL, fp);
	if (fmt != OUT_JSON && fmt != OUT_CSV) {
		/* Table and Markdown: one column per supported event. */
		if (!t)
			t = count_rows(run, shown, nshown, by, NULL, false);
		rows_note_more(t, more, by == BY_NAME ? "name" : by_process(by)
			       ? "process" : "thread", by == BY_NAME ? "names"
			       : by_process(by) ? "processes" : "threads");
		size_t nsup = 0;
		for (size_t e = 0; e < run->nevents; e++)
			nsup += run->events[e].supported;
		write_header(run, nrows, by, fmt, fp);
		if (nsup)
			rows_write(t, fmt, fp, 1);
		else
			fprintf(fp, " no event could be counted\n");
		if (by == BY_THREAD)
			report_core_pmus(run, fmt, fp);
		write_footer(run, fmt, fp);
		if (fmt == OUT_TABLE)
			fputc('\n', fp);
	}
	if (by == BY_TREE)
		tree_release(&tree);
	rows_free(t);
	if (threads && shown)
		free_rows(shown, npick);
	else
		free(shown);
	free(pick);
	if (rows)
		free_rows(rows, nrows);
}

enum {
	L_RUN_ID, L_KIND, L_STARTED, L_COMMAND, L_EXIT, L_INTERRUPTED, L_WALL,
	L_THREADS, L_HOST, L_EXPERIMENT, L_ARM, L_TAG, L_N
};

/* A stored run: the JSON keys of shared/DESIGN.md and more. People read
 * the exit status with a * when the run was interrupted. */
static const struct col list_cols[L_N] = {
	[L_RUN_ID] = { .key = "run_id", .title = "run", .kind = COL_INT },
	[L_KIND] = { .key = "kind" },
	[L_STARTED] = { .key = "started" },
	[L_COMMAND] = { .key = "command" },
	[L_EXIT] = { .key = "exit_status", .title = "exit", .kind = COL_INT,
		     .none = "-" },
	[L_INTERRUPTED] = { .key = "interrupted", .kind = COL_BOOL,
			    .flags = COL_MACHINES },
	[L_WALL] = { .key = "wall_s", .title = "wall s", .kind = COL_REAL,
		     .decimals = 3 },
	[L_THREADS] = { .key = "threads", .kind = COL_INT },
	[L_HOST] = { .key = "host" },
	[L_EXPERIMENT] = { .key = "experiment_id", .title = "exp", .kind = COL_INT },
	[L_ARM] = { .key = "arm" },
	[L_TAG] = { .key = "tag" },
};

/* People see the experiment and arm columns only when an ab run is
 * listed, the tag only when a tagged one is. */
static struct rows *list_rows(bool ab, bool tagged)
{
	/* The command last: it is the long one. */
	size_t people[12], n = 0;
	static const size_t head[] = {
		L_RUN_ID, L_KIND, L_STARTED, L_EXIT, L_WALL, L_THREADS, L_HOST,
	};
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		people[n++] = head[i];
	if (ab) {
		people[n++] = L_EXPERIMENT;
		people[n++] = L_ARM;
	}
	if (tagged)
		people[n++] = L_TAG;
	people[n++] = L_COMMAND;
	static const size_t csv[] = {
		L_RUN_ID, L_KIND, L_STARTED, L_EXIT, L_INTERRUPTED, L_WALL,
		L_THREADS, L_HOST, L_COMMAND, L_EXPERIMENT, L_ARM, L_TAG,
	};
	struct rows *r = rows_new("runs", list_cols, L_N, 0);
	rows_people_order(r, people, n);
	rows_csv_order(r, csv, sizeof(csv) / sizeof(csv[0]));
	return r;
}

int report_runs_list_sort_check(const char *sort, char **cause)
{
	struct rows *r = list_rows(true, true);
	int rc = rows_sort_check(r, sort, cause);
	rows_free(r);
	return rc;
}

int report_time_parse(const char *iso, time_t *out)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *p = iso ? strptime(iso, "%Y-%m-%d", &tm) : NULL;
	if (!p)
		return -EINVAL;
	if (*p == 'T' || *p == ' ') {
		const char *q = strptime(p + 1, "%H:%M", &tm);
		if (!q)
			return -EINVAL;
		p = q;
		if (*p == ':' && !(p = strptime(p + 1, "%S", &tm)))
			return -EINVAL;
	}
	if (*p == 'Z')
		p++;
	if (*p)
		return -EINVAL;
	*out = timegm(&tm);
	return 0;
}

/* The run kinds prof stores (docs/schema.md). */
static const char *const known_kinds[] = { "run", "attach", "record", "ab", "sleep" };
#define NKINDS (sizeof(known_kinds) / sizeof(known_kinds[0]))

/* Whether the comma-separated list holds word. */
static bool in_list(const char *list, const char *word)
{
	size_t len = strlen(word);
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (n == len && !strncmp(p, word, n))
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

/* An ab run: one that ran in an experiment, or (stored before the
 * link was kept) of kind ab. */
static bool is_ab(const struct db_run_summary *s)
{
	return s->experiment_id > 0 || (s->kind && !strcmp(s->kind, "ab"));
}

int report_runs_filter_check(const struct db_run_summary *runs, size_t n,
			     const struct runs_filter *f, char **cause)
{
	if (!f || !f->kinds)
		return 0;
	for (const char *p = f->kinds;;) {
		size_t len = strcspn(p, ",");
		bool ok = false;
		for (size_t k = 0; k < NKINDS && !ok; k++)
			ok = strlen(known_kinds[k]) == len && !strncmp(known_kinds[k], p, len);
		/* A kind a newer prof stored is fine too. */
		for (size_t i = 0; i < n && !ok; i++)
			ok = runs[i].kind && strlen(runs[i].kind) == len &&
			     !strncmp(runs[i].kind, p, len);
		if (!ok) {
			if (cause && asprintf(cause, "bad --kind '%.*s%s': expected run, "
					      "attach, record, ab or sleep (several with "
					      "commas)", len > 40 ? 40 : (int)len, p,
					      len > 40 ? "..." : "") < 0)
				*cause = NULL;
			return -EINVAL;
		}
		p += len;
		if (!*p)
			return 0;
		p++;
	}
}

/* Whether the filter shows run s, and whether it hid s only for being
 * an ab run. */
static bool shown(const struct db_run_summary *s, const struct runs_filter *f,
		  bool *hidden_ab)
{
	*hidden_ab = false;
	if (!f)
		return true;
	if (f->kinds && !(s->kind && in_list(f->kinds, s->kind)))
		return false;
	if (f->tag && !(s->arm && !strcmp(s->arm, f->tag)) &&
	    !(s->tag && !strcmp(s->tag, f->tag)))
		return false;
	time_t t;
	if (f->since && (report_time_parse(s->started, &t) || t < f->since))
		return false;
	/* Asking for ab runs by kind or arm shows them; else --all. */
	bool asked = f->all || f->tag || (f->kinds && in_list(f->kinds, "ab"));
	if (!asked && is_ab(s)) {
		*hidden_ab = true;
		return false;
	}
	return true;
}

#define LIST_DOC_COLS(K) \
	K(LD_RUNS, "runs", NEST) K(LD_HIDDEN, "hidden_ab_runs", COUNT)
ROWS_KEYS(list_doc_cols, LD_N, LIST_DOC_COLS);

void report_runs_list(const struct db_run_summary *runs, size_t n,
		      const struct runs_filter *filter, const struct rows_view *view,
		      enum out_format fmt, FILE *fp)
{
	size_t hidden = 0, *of = malloc((n + 1) * sizeof(*of));
	bool ab = false, tagged = false, *show = calloc(n + 1, sizeof(bool));
	if (!show || !of)
		xalloc_die();
	for (size_t i = 0; i < n; i++) {
		bool h;
		show[i] = shown(&runs[i], filter, &h);
		hidden += h;
		ab = ab || (show[i] && runs[i].experiment_id > 0);
		tagged = tagged || (show[i] && runs[i].tag);
	}
	/* --limit N without --sort keeps the newest N, newest last. */
	size_t nshow = 0, older = 0;
	for (size_t i = 0; i < n; i++)
		nshow += show[i];
	if (view && view->limit && !view->sort && view->limit < nshow)
		older = nshow - view->limit;
	struct rows *r = list_rows(ab, tagged);
	for (size_t i = 0, seen = 0; i < n; i++) {
		if (!show[i] || seen++ < older)
			continue;
		size_t row = rows_add(r);
		of[row] = i;
		rows_int(r, row, L_RUN_ID, runs[i].id);
		rows_str(r, row, L_KIND, runs[i].kind);
		rows_str(r, row, L_STARTED, runs[i].started);
		rows_str(r, row, L_COMMAND, runs[i].command);
		bool attached = runs[i].kind && !strcmp(runs[i].kind, "attach");
		if (attached)
			rows_null(r, row, L_EXIT);	/* not prof's to end */
		else
			rows_int(r, row, L_EXIT, runs[i].exit_status);
		if (runs[i].interrupted && attached)
			rows_text(r, row, L_EXIT, "-*");
		else if (runs[i].interrupted)
			rows_text(r, row, L_EXIT, "%d*", runs[i].exit_status);
		rows_bool(r, row, L_INTERRUPTED, runs[i].interrupted);
		rows_num(r, row, L_WALL, runs[i].wall_s);
		rows_uint(r, row, L_THREADS, runs[i].nthreads);
		rows_str(r, row, L_HOST, runs[i].hostname);
		if (runs[i].experiment_id > 0)
			rows_int(r, row, L_EXPERIMENT, runs[i].experiment_id);
		else
			rows_null(r, row, L_EXPERIMENT);
		rows_str(r, row, L_ARM, runs[i].arm);
		rows_str(r, row, L_TAG, runs[i].tag);
	}
	size_t listed = rows_count(r) + older;
	if (older)
		rows_note_more(r, older, "run before these", "runs before these");
	else
		rows_view_apply(r, 0, view, "run", "runs");
	bool any = false;
	for (size_t i = 0; i < rows_count(r); i++)
		any = any || runs[of[rows_origin(r, i)]].interrupted;
	free(show);
	free(of);
	if (fmt == OUT_JSON) {
		struct rows *doc = rows_new(NULL, list_doc_cols, LD_N, 0);
		size_t row = rows_add(doc);
		rows_nest(doc, row, LD_RUNS, r);
		rows_uint(doc, row, LD_HIDDEN, hidden);
		rows_write_data(doc, OUT_JSON, fp);
		return;
	}
	if (fmt == OUT_CSV) {
		rows_write(r, fmt, fp, 0);
		rows_free(r);
		return;
	}
	const char *lead = fmt == OUT_MARKDOWN ? "\n" : "";
	if (n == 0 && fmt == OUT_TABLE)
		fprintf(fp, "no runs stored yet; record one with 'prof run -- CMD'\n");
	else if (!listed && fmt == OUT_TABLE)
		fprintf(fp, "no stored run matches (%zu stored)\n", n);
	else
		rows_write(r, fmt, fp, 0);
	if (fmt == OUT_TABLE && any)
		fprintf(fp, "* interrupted (Ctrl-C or SIGTERM); what was counted is kept\n");
	if (hidden)
		fprintf(fp, "%s%zu run%s of experiments (ab, pressure) hidden "
			"(--all shows them)\n", lead, hidden, hidden == 1 ? "" : "s");
	rows_free(r);
}
