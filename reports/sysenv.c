/*
 * sysenv: the machine's deltas and settings of a run; see sysenv.h.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/runs.h"
#include "common/utf8.h"
#include "reports/sysenv.h"

struct rows *report_system_map(const struct db_run *run)
{
	if (!run->nsystem)
		return NULL;
	struct col *c = calloc(run->nsystem, sizeof(*c));
	if (!c)
		xalloc_die();
	for (size_t i = 0; i < run->nsystem; i++)
		c[i] = (struct col){ .key = run->system[i].name, .kind = COL_INT };
	struct rows *r = rows_new(NULL, c, run->nsystem, ROWS_OBJECT);
	free(c);
	size_t row = rows_add(r);
	for (size_t i = 0; i < run->nsystem; i++)
		rows_int(r, row, i, run->system[i].delta);
	return r;
}

struct rows *report_kv_map(const struct db_kv *kv, size_t n)
{
	if (!n)
		return NULL;
	struct col *c = calloc(n, sizeof(*c));
	if (!c)
		xalloc_die();
	for (size_t i = 0; i < n; i++)
		c[i] = (struct col){ .key = kv[i].key };
	struct rows *r = rows_new(NULL, c, n, ROWS_OBJECT);
	free(c);
	size_t row = rows_add(r);
	for (size_t i = 0; i < n; i++)
		rows_str(r, row, i, kv[i].value);
	return r;
}

struct rows *report_env_map(const struct db_run *run)
{
	return report_kv_map(run->env, run->nenv);
}

static bool sys_get(const struct db_run *run, const char *name, int64_t *v)
{
	return db_sysval_get(run->system, run->nsystem, name, v);
}

/* The total of an event the workload counted, or false. */
static bool event_total(const struct db_run *run, const char *name, double *v)
{
	for (size_t e = 0; e < run->nevents; e++) {
		if (strcmp(run->events[e].name, name) || !run->events[e].supported)
			continue;
		enum db_count_state st = db_count_scaled(&run->events[e].total, v);
		return st == COUNT_OK || st == COUNT_SCALED;
	}
	return false;
}

/* Whether cpu is in a CPU list as db/ stores them ("0-5,12-17"). */
static bool in_list(const char *list, int cpu)
{
	for (const char *p = list; p && *p;) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (cpu >= lo && cpu <= hi)
			return true;
		p = *end == ',' ? end + 1 : NULL;
	}
	return false;
}

/* Sum of "interrupts.cpuN" over the CPUs in list (NULL or "": all). */
static int64_t interrupts_on(const struct db_run *run, const char *list, bool *any)
{
	bool all = !list || !*list;
	int64_t sum = 0;
	*any = false;
	for (size_t i = 0; i < run->nsystem; i++) {
		const char *n = run->system[i].name;
		if (strncmp(n, "interrupts.cpu", 14))
			continue;
		*any = true;
		if (all || in_list(list, atoi(n + 14)))
			sum += run->system[i].delta;
	}
	return sum;
}

enum { S_METRIC, S_SOURCE, S_DELTA, S_WORKLOAD, S_N };

static const struct col high_cols[S_N] = {
	[S_METRIC] = { .key = "metric", .title = "the machine's" },
	[S_SOURCE] = { .key = "source" },
	[S_DELTA] = { .key = "delta", .kind = COL_COUNT },
	[S_WORKLOAD] = { .key = "workload", .title = "the workload's",
			 .kind = COL_COUNT, .none = "" },
};

static void high(struct rows *r, const char *metric, const char *source,
		 int64_t delta, bool has_own, double own)
{
	size_t row = rows_add(r);
	rows_str(r, row, S_METRIC, metric);
	rows_str(r, row, S_SOURCE, source);
	rows_int(r, row, S_DELTA, delta);
	if (has_own)
		rows_num(r, row, S_WORKLOAD, own);
	else
		rows_null(r, row, S_WORKLOAD);
}

static struct rows *highlights(const struct db_run *run)
{
	static const struct { const char *metric, *source, *event; } plain[] = {
		{ "page faults", "vmstat.pgfault", "page-faults" },
		{ "major page faults", "vmstat.pgmajfault", "major-faults" },
		{ "pages migrated (NUMA)", "vmstat.numa_pages_migrated", NULL },
		{ "pages migrated", "vmstat.pgmigrate_success", NULL },
		{ "context switches", "stat.ctxt", "context-switches" },
		{ "processes forked", "stat.processes", NULL },
		{ "user time (ms)", "stat.cpu.user_ms", NULL },
		{ "system time (ms)", "stat.cpu.system_ms", NULL },
		{ "irq time (ms)", "stat.cpu.irq_ms", NULL },
		{ "softirq time (ms)", "stat.cpu.softirq_ms", NULL },
		{ "steal time (ms)", "stat.cpu.steal_ms", NULL },
		{ "idle time (ms)", "stat.cpu.idle_ms", NULL },
		{ "iowait time (ms)", "stat.cpu.iowait_ms", NULL },
	};
	struct rows *r = rows_new("highlights", high_cols, S_N, 0);
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		int64_t v;
		bool has = sys_get(run, plain[i].source, &v);
		/* Always the faults, switches and steal; the rest when they moved. */
		if (!has && i != 0 && i != 4 && i != 10)
			continue;
		double own = 0;
		bool has_own = plain[i].event && event_total(run, plain[i].event, &own);
		high(r, plain[i].metric, plain[i].source, v, has_own, own);
	}
	bool any;
	int64_t on = interrupts_on(run, run->pin.cpus, &any);
	if (any) {
		int64_t all;
		sys_get(run, "interrupts.total", &all);
		if (run->pin.mode && strcmp(run->pin.mode, "none") &&
		    run->pin.cpus && *run->pin.cpus) {
			char src[96];
			snprintf(src, sizeof(src), "interrupts.cpu{%s}", run->pin.cpus);
			high(r, "interrupts on the workload's CPUs", src, on, false, 0);
		}
		high(r, "interrupts", "interrupts.total", all, false, 0);
	}
	int64_t wait = 0;
	bool has_wait = false;
	for (size_t i = 0; i < run->nsystem; i++) {
		const char *n = run->system[i].name;
		size_t len = strlen(n);
		if (!strncmp(n, "schedstat.", 10) && len > 8 &&
		    !strcmp(n + len - 8, ".wait_ns")) {
			wait += run->system[i].delta;
			has_wait = true;
		}
	}
	if (has_wait)
		high(r, "time runnable, waiting for a CPU (ns)", "schedstat.cpu*.wait_ns",
		     wait, false, 0);
	return r;
}

#define SYSTEM_DOC_COLS(K) \
	K(J_RUN, "run_id", INT) K(J_HIGH, "highlights", NEST) K(J_SYS, "system", NEST)

void report_system(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	struct rows *h = highlights(run);
	if (fmt == OUT_JSON) {
		ROWS_KEYS(cols, J_N, SYSTEM_DOC_COLS);
		struct rows *doc = rows_new(NULL, cols, J_N, 0);
		size_t row = rows_add(doc);
		rows_int(doc, row, J_RUN, run->id);
		rows_nest(doc, row, J_HIGH, h);
		rows_nest(doc, row, J_SYS, report_system_map(run));
		rows_write_data(doc, OUT_JSON, fp);
		return;
	}
	if (fmt == OUT_CSV) {
		rows_write(h, fmt, fp, 0);
		rows_free(h);
		return;
	}
	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	fprintf(fp, "%sprof %s %lld: what the whole machine did meanwhile "
		"(wall %.3f s, %d CPUs)\n\n", lead, report_run_verb(run),
		(long long)run->id, run->wall_s,
		run->host.online_cpus);
	if (!run->nsystem) {
		fprintf(fp, "%sno deltas stored (the run predates them, or /proc "
			"could not be read)\n", lead);
		rows_free(h);
		return;
	}
	rows_write(h, fmt, fp, fmt == OUT_MARKDOWN ? 0 : 1);
	fprintf(fp, "\n%s%zu counters moved; --format json lists them all\n", lead,
		run->nsystem);
	rows_free(h);
}

#define ENV_COLS(K) K(E_KEY, "setting", TEXT) K(E_VALUE, "value", TEXT)
#define ENV_DOC_COLS(K) K(J_RUN, "run_id", INT) K(J_ENV, "env", NEST)

void report_env(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	ROWS_KEYS(cols, E_N, ENV_COLS);
	if (fmt == OUT_JSON) {
		ROWS_KEYS(dcols, J_N, ENV_DOC_COLS);
		struct rows *doc = rows_new(NULL, dcols, J_N, 0);
		size_t row = rows_add(doc);
		rows_int(doc, row, J_RUN, run->id);
		rows_nest(doc, row, J_ENV, report_env_map(run));
		rows_write_data(doc, OUT_JSON, fp);
		return;
	}
	struct rows *r = rows_new("env", cols, E_N, 0);
	for (size_t i = 0; i < run->nenv; i++) {
		size_t row = rows_add(r);
		rows_str(r, row, E_KEY, run->env[i].key);
		rows_str(r, row, E_VALUE, run->env[i].value);
	}
	if (fmt != OUT_CSV) {
		const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
		fprintf(fp, "%sprof %s %lld: the machine's settings at its start\n\n",
			lead, report_run_verb(run), (long long)run->id);
		if (!run->nenv)
			fprintf(fp, "%snone stored (the run predates them)\n", lead);
	}
	if (run->nenv || fmt == OUT_CSV)
		rows_write(r, fmt, fp, fmt == OUT_TABLE ? 1 : 0);
	rows_free(r);
}

static const char *env_get(const struct db_run *run, const char *key)
{
	return db_kv_get(run->env, run->nenv, key);
}

/* -1 idle (1-minute load under half the CPUs), 1 busy (a task per CPU or
 * more), 0 in between or unknown. */
static int load_state(const struct db_run *run)
{
	const char *l = env_get(run, "loadavg");
	int cpus = run->host.online_cpus;
	if (!l || cpus <= 0)
		return 0;
	double l1 = atof(l);
	return l1 < 0.5 * cpus ? -1 : l1 >= cpus ? 1 : 0;
}

static void add_line(char ***out, size_t *n, char *line)
{
	char **p = realloc(*out, (*n + 1) * sizeof(*p));
	if (!p || !line)
		xalloc_die();
	*out = p;
	p[(*n)++] = line;
}

size_t report_env_diff(const struct db_run *a, const struct db_run *b,
		       char ***out)
{
	size_t n = 0;
	*out = NULL;
	if (!a->nenv || !b->nenv)
		return 0;
	char *line;
	/* a's settings in a's order, then those only b has. */
	for (int side = 0; side < 2; side++) {
		const struct db_run *x = side ? b : a, *y = side ? a : b;
		for (size_t i = 0; i < x->nenv; i++) {
			const char *k = x->env[i].key;
			if (!strcmp(k, "loadavg"))
				continue;
			const char *vy = env_get(y, k);
			if (side && vy)
				continue;	/* seen from a's side */
			if (vy && !strcmp(vy, x->env[i].value))
				continue;
			const char *va = side ? vy : x->env[i].value;
			const char *vb = side ? x->env[i].value : vy;
			/* each value's first 60 bytes, cut between characters */
			const char *sa = va ? va : "not set", *sb = vb ? vb : "not set";
			int la = (int)utf8_cut(sa, strlen(sa), 60);
			int lb = (int)utf8_cut(sb, strlen(sb), 60);
			if (asprintf(&line, "%s: %s%.*s%s in run %lld, %s%.*s%s in run %lld",
				     k, va ? "'" : "", la, sa, va ? "'" : "",
				     (long long)a->id, vb ? "'" : "", lb, sb,
				     vb ? "'" : "", (long long)b->id) < 0)
				xalloc_die();
			add_line(out, &n, line);
		}
	}
	int la = load_state(a), lb = load_state(b);
	if (la && lb && la != lb) {
		if (asprintf(&line, "load at start: %s in run %lld, %s in run %lld",
			     env_get(a, "loadavg"), (long long)a->id,
			     env_get(b, "loadavg"), (long long)b->id) < 0)
			xalloc_die();
		add_line(out, &n, line);
	}
	return n;
}
