/*
 * repeat: the spread of N runs of one command; see repeat.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/abstat.h"
#include "reports/repeat.h"
#include "reports/rows.h"
#include "reports/runs.h"
#include "reports/stats.h"

void repeat_set_init(struct repeat_set *s, const char *command, size_t asked)
{
	memset(s, 0, sizeof(*s));
	s->command = strdup(command ? command : "");
	s->asked = asked;
	if (!s->command)
		xalloc_die();
}

static struct repeat_metric *metric(struct repeat_set *s, const char *name)
{
	for (size_t i = 0; i < s->nm; i++)
		if (!strcmp(s->m[i].name, name))
			return &s->m[i];
	struct repeat_metric *p = realloc(s->m, (s->nm + 1) * sizeof(*p));
	if (!p)
		xalloc_die();
	s->m = p;
	p = &s->m[s->nm++];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name);
	if (!p->name)
		xalloc_die();
	return p;
}

/* Pad every metric to the runs so far: NAN where a run had none. */
static void pad_values(struct repeat_set *s)
{
	for (size_t i = 0; i < s->nm; i++) {
		struct repeat_metric *m = &s->m[i];
		if (m->len >= s->nruns)
			continue;
		double *p = realloc(m->values, s->nruns * sizeof(*p));
		if (!p)
			xalloc_die();
		m->values = p;
		while (m->len < s->nruns)
			m->values[m->len++] = NAN;
	}
}

/* Run s->nruns's value of metric name. */
static void add_value(struct repeat_set *s, const char *name, bool ns, double v)
{
	struct repeat_metric *m = metric(s, name);
	pad_values(s);
	m->values[s->nruns - 1] = v;
	m->n++;
	m->ns = ns;
}

void repeat_set_add(struct repeat_set *s, const struct db_run *run)
{
	int64_t *ids = realloc(s->run_ids, (s->nruns + 1) * sizeof(*ids));
	if (!ids)
		xalloc_die();
	s->run_ids = ids;
	s->run_ids[s->nruns++] = run->id;
	const char *prep = db_get_str(run, SET_PREPARE), *clean = db_get_str(run, SET_CLEANUP);
	if (prep && !s->prepare && !(s->prepare = strdup(prep)))
		xalloc_die();
	if (clean && !s->cleanup && !(s->cleanup = strdup(clean)))
		xalloc_die();
	if (db_get_flag(run, SET_TIMED_OUT))
		s->ntimed_out++;
	if (run->interrupted)
		s->ninterrupted++;
	add_value(s, "wall_s", false, run->wall_s);
	add_value(s, "user_s", false, run->user_s);
	add_value(s, "sys_s", false, run->sys_s);
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		double v;
		enum db_count_state st = db_count_scaled(&ev->total, &v);
		/* A count that is not there is not a zero: the metric is
		 * listed with no value (n 0), so a refused event shows as
		 * refused rather than vanishing. */
		metric(s, ev->name)->ns = event_is_time(ev);
		if (!ev->supported || (st != COUNT_OK && st != COUNT_SCALED))
			continue;
		add_value(s, ev->name, event_is_time(ev), v);
	}
	for (size_t k = 0; k < ab_nmachine_keys; k++) {
		double v = ab_machine_value(run->system, run->nsystem, &ab_machine_keys[k]);
		if (!isfinite(v))
			continue;
		add_value(s, ab_machine_keys[k].name, false, v);
		metric(s, ab_machine_keys[k].name)->machine = true;
	}
	pad_values(s);
}

/* A machine's delta that moved in no run says nothing: left out. */
static bool shown(const struct repeat_metric *m)
{
	if (!m->machine)
		return true;
	for (size_t i = 0; i < m->len; i++)
		if (isfinite(m->values[i]) && m->values[i] != 0)
			return true;
	return false;
}

/* The summary of the runs that had m: false when none had. */
static bool summarize(const struct repeat_metric *m, struct stats_summary *sum)
{
	if (!m->n)
		return false;
	double *v = malloc(m->n * sizeof(*v));
	if (!v)
		xalloc_die();
	size_t k = 0;
	for (size_t i = 0; i < m->len; i++)
		if (isfinite(m->values[i]))
			v[k++] = m->values[i];
	bool ok = k && !stats_summarize(v, k, sum);
	free(v);
	return ok;
}

void repeat_set_release(struct repeat_set *s)
{
	for (size_t i = 0; i < s->nm; i++) {
		free(s->m[i].name);
		free(s->m[i].values);
	}
	free(s->m);
	free(s->run_ids);
	free(s->command);
	free(s->prepare);
	free(s->cleanup);
	memset(s, 0, sizeof(*s));
}

enum { M_NAME, M_N, M_MEAN, M_SD, M_SD_PCT, M_MIN, M_MAX, M_NCOLS };

static const struct col metric_cols[M_NCOLS] = {
	[M_NAME] = { .key = "metric" },
	[M_N] = { .key = "n", .kind = COL_INT },
	[M_MEAN] = { .key = "mean", .kind = COL_REAL, .decimals = 3 },
	[M_SD] = { .key = "sd", .title = "+- sd", .kind = COL_REAL, .decimals = 3,
		   .none = "-" },
	[M_SD_PCT] = { .key = "sd_pct", .title = "+- %", .kind = COL_PCT,
		       .decimals = 2, .none = "-" },
	[M_MIN] = { .key = "min", .kind = COL_REAL, .decimals = 3 },
	[M_MAX] = { .key = "max", .kind = COL_REAL, .decimals = 3 },
};

/* A count reads as one: no decimals. */
static void count_cell(struct rows *r, size_t row, size_t col, double v)
{
	if (isfinite(v))
		rows_text(r, row, col, "%.0f", v);
}

/*
 * People read time events in ms (as the run's own table shows them),
 * machines keep the kernel's nanoseconds. nrun columns of each run's
 * value follow the metric's name (0: none); their keys and titles are
 * in keys[] (the caller's, kept until the rows are written).
 */
static struct rows *metric_rows(const struct repeat_set *s, bool people, size_t nrun,
				struct col *cols, char (*keys)[2][32])
{
	size_t nc = M_NCOLS + nrun;
	cols[0] = metric_cols[M_NAME];
	for (size_t k = 0; k < nrun; k++) {
		snprintf(keys[k][0], sizeof(keys[k][0]), "run_%zu", k + 1);
		if (s->run_ids[k] > 0)
			snprintf(keys[k][1], sizeof(keys[k][1]), "#%lld",
				 (long long)s->run_ids[k]);
		else
			snprintf(keys[k][1], sizeof(keys[k][1]), "run %zu", k + 1);
		cols[1 + k] = (struct col){ .key = keys[k][0], .title = keys[k][1],
					    .kind = COL_REAL, .decimals = 3, .none = "-" };
	}
	for (size_t c = M_N; c < M_NCOLS; c++)
		cols[nrun + c] = metric_cols[c];
	struct rows *r = rows_new("metrics", cols, nc, 0);
#define MC(c) (nrun + (c))
	for (size_t i = 0; i < s->nm; i++) {
		const struct repeat_metric *m = &s->m[i];
		if (!shown(m))
			continue;
		size_t row = rows_add(r);
		rows_str(r, row, 0, m->name);
		if (people && m->ns)
			rows_text(r, row, 0, "%s (ms)", m->name);
		else if (people && m->machine)
			rows_text(r, row, 0, "%s (whole machine)", m->name);
		double k = people && m->ns ? 1e-6 : 1.0;
		bool count = people && !m->ns && !strstr(m->name, "_s") &&
			     !strstr(m->name, "_ms");
		for (size_t j = 0; j < nrun; j++) {
			double v = j < m->len ? m->values[j] : NAN;
			rows_num(r, row, 1 + j, v * k);
			if (count)
				count_cell(r, row, 1 + j, v);
		}
		struct stats_summary sum;
		if (!summarize(m, &sum)) {
			/* Not counted in any run (refused, or never ran). */
			rows_int(r, row, MC(M_N), 0);
			for (size_t c = M_MEAN; c < M_NCOLS; c++)
				rows_null(r, row, MC(c));
			if (people)
				rows_text(r, row, MC(M_MEAN), "not counted");
			continue;
		}
		rows_int(r, row, MC(M_N), (int64_t)sum.n);
		rows_num(r, row, MC(M_MEAN), sum.mean * k);
		rows_num(r, row, MC(M_SD), sum.sd * k);	/* NaN (one run): null */
		if (sum.mean != 0 && isfinite(sum.sd))
			rows_num(r, row, MC(M_SD_PCT), 100.0 * sum.sd / fabs(sum.mean));
		else
			rows_null(r, row, MC(M_SD_PCT));
		rows_num(r, row, MC(M_MIN), sum.min * k);
		rows_num(r, row, MC(M_MAX), sum.max * k);
		if (count) {
			count_cell(r, row, MC(M_MEAN), sum.mean);
			if (isfinite(sum.sd))
				count_cell(r, row, MC(M_SD), sum.sd);
			count_cell(r, row, MC(M_MIN), sum.min);
			count_cell(r, row, MC(M_MAX), sum.max);
		}
	}
#undef MC
	return r;
}

#define REPEAT_DOC_COLS(K) \
	K(J_COMMAND, "command", TEXT) K(J_PREPARE, "prepare", TEXT) \
	K(J_CLEANUP, "cleanup", TEXT) K(J_REPEAT, "repeat", INT) \
	K(J_RAN, "ran", INT) K(J_TIMED_OUT, "timed_out", INT) \
	K(J_INTERRUPTED, "interrupted", INT) \
	K(J_RUNS, "runs", NEST) K(J_METRICS, "metrics", NEST)

static void write_json(const struct repeat_set *s, FILE *fp)
{
	ROWS_KEYS(doc_cols, J_N, REPEAT_DOC_COLS);
	static const struct col id_col = { .key = "run_id", .kind = COL_INT };
	struct rows *doc = rows_new(NULL, doc_cols, J_N, 0);
	size_t row = rows_add(doc);
	rows_str(doc, row, J_COMMAND, s->command);
	if (s->prepare)
		rows_str(doc, row, J_PREPARE, s->prepare);
	if (s->cleanup)
		rows_str(doc, row, J_CLEANUP, s->cleanup);
	rows_int(doc, row, J_REPEAT, (int64_t)s->asked);
	rows_int(doc, row, J_RAN, (int64_t)s->nruns);
	rows_int(doc, row, J_TIMED_OUT, (int64_t)s->ntimed_out);
	rows_int(doc, row, J_INTERRUPTED, (int64_t)s->ninterrupted);
	struct rows *ids = rows_new(NULL, &id_col, 1, ROWS_VALUES | ROWS_FLAT);
	for (size_t i = 0; i < s->nruns; i++) {
		size_t k = rows_add(ids);
		if (s->run_ids[i] > 0)
			rows_int(ids, k, 0, s->run_ids[i]);
		else
			rows_null(ids, k, 0);
	}
	rows_nest(doc, row, J_RUNS, ids);

	/* metrics: a map from the metric's name to its summary. */
	struct col *mc = calloc(s->nm ? s->nm : 1, sizeof(*mc));
	if (!mc)
		xalloc_die();
	size_t k = 0;
	for (size_t i = 0; i < s->nm; i++)
		if (shown(&s->m[i]))
			mc[k++] = (struct col){ .key = s->m[i].name, .kind = COL_NEST };
	struct rows *map = rows_new(NULL, mc, k, ROWS_OBJECT);
	free(mc);
	/* The summary without its name (the key says it), and each run's. */
	struct col oc[M_NCOLS - M_N + 1];
	memcpy(oc, metric_cols + M_N, (M_NCOLS - M_N) * sizeof(*oc));
	oc[M_NCOLS - M_N] = (struct col){ .key = "values", .kind = COL_NEST };
	static const struct col val_col = { .key = "value", .kind = COL_REAL };
	size_t mrow = rows_add(map);
	for (size_t i = 0, j = 0; i < s->nm; i++) {
		const struct repeat_metric *m = &s->m[i];
		if (!shown(m))
			continue;
		struct stats_summary sum;
		struct rows *obj = rows_new(NULL, oc, M_NCOLS - M_N + 1,
					    ROWS_OBJECT | ROWS_FLAT);
		size_t o = rows_add(obj);
		struct rows *vals = rows_new(NULL, &val_col, 1, ROWS_VALUES | ROWS_FLAT);
		for (size_t r = 0; r < s->nruns; r++)
			rows_num(vals, rows_add(vals), 0, r < m->len ? m->values[r] : NAN);
		rows_nest(obj, o, M_NCOLS - M_N, vals);
		if (!summarize(m, &sum)) {
			/* Counted in no run: n 0 and no values. */
			rows_int(obj, o, 0, 0);
			for (size_t c = M_MEAN; c < M_NCOLS; c++)
				rows_null(obj, o, c - M_N);
			rows_nest(map, mrow, j++, obj);
			continue;
		}
		rows_int(obj, o, M_N - M_N, (int64_t)sum.n);
		rows_num(obj, o, M_MEAN - M_N, sum.mean);
		rows_num(obj, o, M_SD - M_N, sum.sd);
		if (sum.mean != 0 && isfinite(sum.sd))
			rows_num(obj, o, M_SD_PCT - M_N, 100.0 * sum.sd / fabs(sum.mean));
		else
			rows_null(obj, o, M_SD_PCT - M_N);
		rows_num(obj, o, M_MIN - M_N, sum.min);
		rows_num(obj, o, M_MAX - M_N, sum.max);
		rows_nest(map, mrow, j++, obj);
	}
	rows_nest(doc, row, J_METRICS, map);
	rows_write_data(doc, OUT_JSON, fp);
}

void report_repeat(const struct repeat_set *s, enum out_format fmt, FILE *fp)
{
	if (fmt == OUT_JSON) {
		write_json(s, fp);
		return;
	}
	/* Each run's column: every run in CSV, up to REPEAT_TABLE_RUNS for
	 * people. */
	size_t nrun = fmt == OUT_CSV || s->nruns <= REPEAT_TABLE_RUNS ? s->nruns : 0;
	struct col *cols = calloc(M_NCOLS + nrun, sizeof(*cols));
	char (*keys)[2][32] = calloc(nrun + 1, sizeof(*keys));
	if (!cols || !keys)
		xalloc_die();
	struct rows *r = metric_rows(s, fmt != OUT_CSV, nrun, cols, keys);
	if (fmt == OUT_CSV) {
		rows_write(r, fmt, fp, 0);
		rows_free(r);
		free(cols);
		free(keys);
		return;
	}
	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	fprintf(fp, "%sprof run -r %zu: '%s': %zu run%s", lead, s->asked,
		s->command, s->nruns, s->nruns == 1 ? "" : "s");
	if (s->nruns) {
		fprintf(fp, " (");
		for (size_t i = 0; i < s->nruns; i++) {
			if (s->run_ids[i] > 0)
				fprintf(fp, "%s%lld", i ? " " : "", (long long)s->run_ids[i]);
			else
				fprintf(fp, "%snot stored", i ? " " : "");
		}
		fprintf(fp, ")");
	}
	if (s->ntimed_out)
		fprintf(fp, ", %zu timed out", s->ntimed_out);
	if (s->ninterrupted)
		fprintf(fp, ", %zu interrupted", s->ninterrupted);
	fprintf(fp, "\n");
	if (s->prepare)
		fprintf(fp, "%sprepare: '%s'\n", lead, s->prepare);
	if (s->cleanup)
		fprintf(fp, "%scleanup: '%s'\n", lead, s->cleanup);
	if (!nrun && s->nruns)
		fprintf(fp, "%seach run's values: --format csv or json\n", lead);
	fprintf(fp, "\n");
	rows_write(r, fmt, fp, fmt == OUT_MARKDOWN ? 0 : 1);
	rows_free(r);
	free(cols);
	free(keys);
}
