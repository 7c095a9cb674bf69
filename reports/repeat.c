/*
 * repeat: the spread of N runs of one command; see repeat.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
		abort();
}

static struct repeat_metric *metric(struct repeat_set *s, const char *name)
{
	for (size_t i = 0; i < s->nm; i++)
		if (!strcmp(s->m[i].name, name))
			return &s->m[i];
	struct repeat_metric *p = realloc(s->m, (s->nm + 1) * sizeof(*p));
	if (!p)
		abort();
	s->m = p;
	p = &s->m[s->nm++];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name);
	if (!p->name)
		abort();
	return p;
}

static void add_value(struct repeat_set *s, const char *name, bool ns, double v)
{
	struct repeat_metric *m = metric(s, name);
	double *p = realloc(m->values, (m->n + 1) * sizeof(*p));
	if (!p)
		abort();
	m->values = p;
	m->values[m->n++] = v;
	m->ns = ns;
}

void repeat_set_add(struct repeat_set *s, const struct db_run *run)
{
	int64_t *ids = realloc(s->run_ids, (s->nruns + 1) * sizeof(*ids));
	if (!ids)
		abort();
	s->run_ids = ids;
	s->run_ids[s->nruns++] = run->id;
	if (db_run_get(run, "timed_out"))
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
static void count_text(struct rows *r, size_t row, const struct stats_summary *sum)
{
	rows_text(r, row, M_MEAN, "%.0f", sum->mean);
	if (isfinite(sum->sd))
		rows_text(r, row, M_SD, "%.0f", sum->sd);
	rows_text(r, row, M_MIN, "%.0f", sum->min);
	rows_text(r, row, M_MAX, "%.0f", sum->max);
}

/* People read time events in ms (as the run's own table shows them),
 * machines keep the kernel's nanoseconds. */
static struct rows *metric_rows(const struct repeat_set *s, bool people)
{
	struct rows *r = rows_new("metrics", metric_cols, M_NCOLS, 0);
	for (size_t i = 0; i < s->nm; i++) {
		const struct repeat_metric *m = &s->m[i];
		struct stats_summary sum;
		if (!m->n) {
			/* Not counted in any run (refused, or never ran). */
			size_t row = rows_add(r);
			rows_str(r, row, M_NAME, m->name);
			rows_int(r, row, M_N, 0);
			for (size_t c = M_MEAN; c < M_NCOLS; c++)
				rows_null(r, row, c);
			if (people)
				rows_text(r, row, M_MEAN, "not counted");
			continue;
		}
		if (stats_summarize(m->values, m->n, &sum))
			continue;
		double k = people && m->ns ? 1e-6 : 1.0;
		size_t row = rows_add(r);
		rows_str(r, row, M_NAME, m->name);
		if (people && m->ns)
			rows_text(r, row, M_NAME, "%s (ms)", m->name);
		rows_int(r, row, M_N, (int64_t)sum.n);
		rows_num(r, row, M_MEAN, sum.mean * k);
		rows_num(r, row, M_SD, sum.sd * k);	/* NaN (one run): null */
		if (sum.mean != 0 && isfinite(sum.sd))
			rows_num(r, row, M_SD_PCT, 100.0 * sum.sd / fabs(sum.mean));
		else
			rows_null(r, row, M_SD_PCT);
		rows_num(r, row, M_MIN, sum.min * k);
		rows_num(r, row, M_MAX, sum.max * k);
		if (people && !m->ns && !strstr(m->name, "_s"))
			count_text(r, row, &sum);
	}
	return r;
}

#define REPEAT_DOC_COLS(K) \
	K(J_COMMAND, "command", TEXT) K(J_REPEAT, "repeat", INT) \
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
		abort();
	size_t k = 0;
	for (size_t i = 0; i < s->nm; i++)
		mc[k++] = (struct col){ .key = s->m[i].name, .kind = COL_NEST };
	struct rows *map = rows_new(NULL, mc, k, ROWS_OBJECT);
	free(mc);
	size_t mrow = rows_add(map);
	for (size_t i = 0, j = 0; i < s->nm; i++) {
		struct stats_summary sum;
		/* The summary without its name: the key says it. */
		struct rows *obj = rows_new(NULL, metric_cols + M_N, M_NCOLS - M_N,
					    ROWS_OBJECT | ROWS_FLAT);
		size_t o = rows_add(obj);
		if (!s->m[i].n || stats_summarize(s->m[i].values, s->m[i].n, &sum)) {
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
	struct rows *r = metric_rows(s, fmt != OUT_CSV);
	if (fmt == OUT_CSV) {
		rows_write(r, fmt, fp, 0);
		rows_free(r);
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
	fprintf(fp, "\n\n");
	rows_write(r, fmt, fp, fmt == OUT_MARKDOWN ? 0 : 1);
	rows_free(r);
}
