/*
 * frames: frame times and counters per frame; see frames.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "common/frame_budget.h"
#include "common/order.h"
#include "reports/frames.h"
#include "reports/rows.h"
#include "reports/timeline.h"

static int64_t *sorted_durs(const struct db_run *run)
{
	int64_t *d = malloc((run->nframes ? run->nframes : 1) * sizeof(*d));
	if (!d)
		xalloc_die();
	for (size_t i = 0; i < run->nframes; i++)
		d[i] = run->frames[i].dur_ns;
	qsort(d, run->nframes, sizeof(*d), order_i64);
	return d;
}

double frames_pct_ms(const struct db_run *run, double p)
{
	if (!run->nframes)
		return NAN;
	int64_t *d = sorted_durs(run);
	/* p in percent, the rank in per mille: p50, p90, p99, max. */
	unsigned q = p <= 0 ? 0 : p >= 100 ? 1000 : (unsigned)(p * 10 + 0.5);
	double v = (double)d[nearest_rank(run->nframes, q) - 1] / 1e6;
	free(d);
	return v;
}

double frames_budget_ms(const struct db_run *run)
{
	const char *b = db_get_text(run, SET_FRAME_BUDGET_MS);
	return b ? atof(b) : FRAME_BUDGET_MS;
}

size_t frames_long(const struct db_run *run)
{
	double b = frames_budget_ms(run);
	size_t n = 0;
	for (size_t i = 0; i < run->nframes; i++)
		n += (double)run->frames[i].dur_ns / 1e6 > b;
	return n;
}

size_t frames_names(const struct db_run *run, const char ***out)
{
	const char **names = calloc(run->nframe_counts ? run->nframe_counts : 1,
				    sizeof(*names));
	if (!names)
		xalloc_die();
	size_t n = 0;
	for (size_t i = 0; i < run->nframe_counts; i++) {
		const char *nm = run->frame_counts[i].name;
		size_t k = 0;
		while (k < n && strcmp(names[k], nm))
			k++;
		if (k == n)
			names[n++] = nm;
	}
	*out = names;
	return n;
}

bool frames_per_frame(const struct db_run *run, const char *name, size_t e,
		      double *v)
{
	bool any = false;
	for (size_t i = 0; i < run->nframes; i++)
		v[i] = 0;
	for (size_t i = 0; i < run->nframe_counts; i++) {
		const struct db_frame_count *c = &run->frame_counts[i];
		if (c->event != e || strcmp(c->name, name) || c->frame >= run->nframes)
			continue;
		v[c->frame] += (double)c->value;
		any = true;
	}
	return any;
}

static double mean_per_frame(const struct db_run *run, const char *name, size_t e,
			     bool *any)
{
	double *v = malloc((run->nframes ? run->nframes : 1) * sizeof(*v));
	if (!v)
		xalloc_die();
	*any = frames_per_frame(run, name, e, v);
	double s = 0;
	for (size_t i = 0; i < run->nframes; i++)
		s += v[i];
	free(v);
	return run->nframes ? s / (double)run->nframes : NAN;
}

/* The frames slower than the slowest 5%'s threshold: slow[i]. */
static size_t mark_slow(const struct db_run *run, bool *slow, double *min_ms)
{
	size_t n = run->nframes, k = (n * 5 + 99) / 100;
	int64_t *d = sorted_durs(run);
	int64_t cut = d[n - k];
	free(d);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		slow[i] = run->frames[i].dur_ns >= cut && m < k;
		m += slow[i];
	}
	*min_ms = (double)cut / 1e6;
	return m;
}

void frames_slowest(const struct db_run *run, struct frames_slow *out)
{
	memset(out, 0, sizeof(*out));
	if (run->nframes < 2)
		return;
	bool *slow = calloc(run->nframes, sizeof(*slow));
	double *v = malloc(run->nframes * sizeof(*v));
	if (!slow || !v)
		xalloc_die();
	out->nslow = mark_slow(run, slow, &out->min_ms);
	const char **names;
	size_t nn = frames_names(run, &names);
	double best = -1;
	for (size_t k = 0; k < nn; k++)
		for (size_t e = 0; e < run->nevents; e++) {
			if (timeline_is_time(&run->events[e]) ||
			    !frames_per_frame(run, names[k], e, v))
				continue;
			double s = 0, r = 0;
			for (size_t i = 0; i < run->nframes; i++)
				*(slow[i] ? &s : &r) += v[i];
			s /= (double)out->nslow;
			r /= (double)(run->nframes - out->nslow);
			/* The largest ratio, smoothed by one count so that a
			 * counter of a few against none does not win. */
			double score = (s + 1) / (r + 1);
			if (s > r && score > best) {
				best = score;
				out->name = names[k];
				out->event = e;
				out->slow_mean = s;
				out->rest_mean = r;
			}
		}
	free(names);
	free(slow);
	free(v);
}

static char *slow_sentence(const struct db_run *run, const struct frames_slow *s)
{
	char *t = NULL;
	int rc;
	if (!s->nslow)
		return NULL;
	if (!s->name)
		rc = asprintf(&t, "the slowest 5%% of frames (%zu, %.2f ms and longer): "
			      "no counter per frame is higher than in the other frames",
			      s->nslow, s->min_ms);
	else if (s->rest_mean > 0)
		rc = asprintf(&t, "the slowest 5%% of frames (%zu, %.2f ms and longer): "
			      "%.1fx the %s per frame of the other frames (%.1f "
			      "against %.1f), %s thread", s->nslow, s->min_ms,
			      s->slow_mean / s->rest_mean, run->events[s->event].name,
			      s->slow_mean, s->rest_mean, s->name);
	else
		rc = asprintf(&t, "the slowest 5%% of frames (%zu, %.2f ms and longer): "
			      "%.1f %s per frame, none in the other frames, %s thread",
			      s->nslow, s->min_ms, s->slow_mean,
			      run->events[s->event].name, s->name);
	return rc < 0 ? NULL : t;
}

/* ---- rows ---- */

enum { BN_NAME, BN_CPU, BN_FIRST_EVENT };

static struct rows *by_name_rows(const struct db_run *run)
{
	size_t ncols = BN_FIRST_EVENT + run->nevents;
	struct col *cols = calloc(ncols, sizeof(*cols));
	if (!cols)
		xalloc_die();
	cols[BN_NAME] = (struct col){ .key = "name" };
	cols[BN_CPU] = (struct col){ .key = "cpu_ms_per_frame", .title = "cpu ms/frame",
				     .kind = COL_REAL, .decimals = 3, .none = "-" };
	const char **names;
	size_t nn = frames_names(run, &names);
	/* Each name's mean per frame of each event, once: an event is shown
	 * where some name has it. */
	size_t nev = run->nevents, cells = (nn ? nn : 1) * (nev ? nev : 1);
	bool *shown = calloc(nev ? nev : 1, sizeof(*shown));
	bool *any = calloc(cells, sizeof(*any));
	double *mean = calloc(cells, sizeof(*mean));
	if (!shown || !any || !mean)
		xalloc_die();
	for (size_t k = 0; k < nn; k++)
		for (size_t e = 0; e < nev; e++) {
			mean[k * nev + e] = mean_per_frame(run, names[k], e, &any[k * nev + e]);
			shown[e] |= any[k * nev + e];
		}
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		bool tm = timeline_is_time(ev);
		cols[BN_FIRST_EVENT + e] = (struct col){
			.key = ev->name, .kind = tm ? COL_NS : COL_REAL,
			.unit = tm ? "ms" : NULL, .decimals = tm ? 3 : 1,
			.group = "counters", .flags = COL_FLAT_GROUP,
		};
		if (!shown[e] || tm)
			cols[BN_FIRST_EVENT + e].flags |= COL_NO_PEOPLE;
		if (!shown[e])
			cols[BN_FIRST_EVENT + e].flags |= COL_NO_CSV | COL_NO_JSON;
	}
	struct rows *r = rows_new("by_name", cols, ncols, ROWS_FLAT);
	free(cols);
	for (size_t k = 0; k < nn; k++) {
		size_t row = rows_add(r);
		rows_str(r, row, BN_NAME, names[k]);
		rows_null(r, row, BN_CPU);
		for (size_t e = 0; e < run->nevents; e++) {
			double m = mean[k * nev + e];
			if (!shown[e])
				continue;
			if (!any[k * nev + e]) {
				rows_null(r, row, BN_FIRST_EVENT + e);
				continue;
			}
			rows_num(r, row, BN_FIRST_EVENT + e, m);
			if (!strcmp(run->events[e].name, "task-clock"))
				rows_num(r, row, BN_CPU, m / 1e6);
		}
	}
	free(shown);
	free(any);
	free(mean);
	free(names);
	return r;
}

enum { D_RUN_ID, D_SOURCE, D_FRAMES, D_P50, D_P90, D_P99, D_MAX, D_BUDGET,
       D_LONG, D_BY_NAME, D_SLOW_N, D_SLOW_MS, D_SLOW_NAME, D_SLOW_EVENT,
       D_SLOW_MEAN, D_REST_MEAN, D_SLOW_TEXT, D_DROPPED, D_NOTE, D_N };
static const struct col doc_cols[D_N] = {
	[D_RUN_ID] = { .key = "run_id", .kind = COL_INT },
	[D_SOURCE] = { .key = "source" },
	[D_FRAMES] = { .key = "frames", .kind = COL_INT },
	[D_P50] = { .key = "p50", .kind = COL_REAL, .decimals = 3, .group = "frame_ms",
		    .flags = COL_FLAT_GROUP },
	[D_P90] = { .key = "p90", .kind = COL_REAL, .decimals = 3, .group = "frame_ms",
		    .flags = COL_FLAT_GROUP },
	[D_P99] = { .key = "p99", .kind = COL_REAL, .decimals = 3, .group = "frame_ms",
		    .flags = COL_FLAT_GROUP },
	[D_MAX] = { .key = "max", .kind = COL_REAL, .decimals = 3, .group = "frame_ms",
		    .flags = COL_FLAT_GROUP },
	[D_BUDGET] = { .key = "budget_ms", .kind = COL_REAL, .decimals = 3 },
	[D_LONG] = { .key = "long_frames", .kind = COL_INT },
	[D_BY_NAME] = { .key = "by_name", .kind = COL_NEST },
	[D_SLOW_N] = { .key = "frames", .kind = COL_INT, .group = "slow" },
	[D_SLOW_MS] = { .key = "min_ms", .kind = COL_REAL, .decimals = 3, .group = "slow" },
	[D_SLOW_NAME] = { .key = "name", .group = "slow" },
	[D_SLOW_EVENT] = { .key = "event", .group = "slow" },
	[D_SLOW_MEAN] = { .key = "per_frame", .kind = COL_REAL, .decimals = 3,
			  .group = "slow" },
	[D_REST_MEAN] = { .key = "rest_per_frame", .kind = COL_REAL, .decimals = 3,
			  .group = "slow" },
	[D_SLOW_TEXT] = { .key = "text", .group = "slow" },
	[D_DROPPED] = { .key = "markers_dropped", .kind = COL_INT },
	[D_NOTE] = { .key = "note" },
};

/* The markers prof dropped as they arrived (prof/collect_frames.c). */
static int64_t markers_dropped(const struct db_run *run)
{
	const char *n = db_get_text(run, SET_FRAME_MARKERS_DROPPED);
	return n ? atoll(n) : 0;
}

/* What the run noted of its frames: the markers dropped, the regex's
 * lines (malloc'd, or NULL). */
static char *frames_note(const struct db_run *run)
{
	const char *a = db_get_str(run, SET_FRAME_NOTE);
	const char *b = db_get_str(run, SET_FRAME_REGEX_NOTE);
	char *s;
	if (!a && !b)
		return NULL;
	if (asprintf(&s, "%s%s%s", a ? a : "", a && b ? "; " : "", b ? b : "") < 0)
		xalloc_die();
	return s;
}

static void json_doc(const struct db_run *run, FILE *fp)
{
	struct rows *doc = rows_new(NULL, doc_cols, D_N, 0);
	size_t row = rows_add(doc);
	rows_int(doc, row, D_RUN_ID, run->id);
	rows_str(doc, row, D_SOURCE, db_get_str(run, SET_FRAME_SOURCE));
	rows_int(doc, row, D_FRAMES, (int64_t)run->nframes);
	rows_num(doc, row, D_P50, frames_pct_ms(run, 50));
	rows_num(doc, row, D_P90, frames_pct_ms(run, 90));
	rows_num(doc, row, D_P99, frames_pct_ms(run, 99));
	rows_num(doc, row, D_MAX, frames_pct_ms(run, 100));
	rows_num(doc, row, D_BUDGET, frames_budget_ms(run));
	rows_int(doc, row, D_LONG, (int64_t)frames_long(run));
	rows_nest(doc, row, D_BY_NAME, by_name_rows(run));
	struct frames_slow s;
	frames_slowest(run, &s);
	char *text = slow_sentence(run, &s);
	rows_int(doc, row, D_SLOW_N, (int64_t)s.nslow);
	rows_num(doc, row, D_SLOW_MS, s.min_ms);
	rows_str(doc, row, D_SLOW_NAME, s.name);
	rows_str(doc, row, D_SLOW_EVENT, s.name ? run->events[s.event].name : NULL);
	if (s.name) {
		rows_num(doc, row, D_SLOW_MEAN, s.slow_mean);
		rows_num(doc, row, D_REST_MEAN, s.rest_mean);
	} else {
		rows_null(doc, row, D_SLOW_MEAN);
		rows_null(doc, row, D_REST_MEAN);
	}
	rows_str(doc, row, D_SLOW_TEXT, text);
	free(text);
	rows_int(doc, row, D_DROPPED, markers_dropped(run));
	char *note = frames_note(run);
	rows_str(doc, row, D_NOTE, note);
	free(note);
	rows_write_data(doc, OUT_JSON, fp);
}

static void people_lines(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	const char *src = db_get_str(run, SET_FRAME_SOURCE);
	const char *li = fmt == OUT_MARKDOWN ? "- " : "";
	const char *from = db_get_str(run, SET_FRAME_TIME_FROM);
	fprintf(fp, "%sframes: %zu (%s%s), frame time p50 %.2f ms, p90 %.2f ms, "
		"p99 %.2f ms, max %.2f ms; %zu longer than %g ms\n", li,
		run->nframes, src ? src : "?",
		from && !strcmp(from, "regex group") ? ", times from its group" : "",
		frames_pct_ms(run, 50),
		frames_pct_ms(run, 90), frames_pct_ms(run, 99),
		frames_pct_ms(run, 100), frames_long(run), frames_budget_ms(run));
	struct frames_slow s;
	frames_slowest(run, &s);
	char *text = slow_sentence(run, &s);
	if (text)
		fprintf(fp, "%s%s\n", li, text);
	free(text);
	char *note = frames_note(run);
	if (note)
		fprintf(fp, "%snote: %s\n", li, note);
	free(note);
	if (fmt == OUT_MARKDOWN)
		fputc('\n', fp);
}

void report_frames(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	if (fmt == OUT_JSON) {
		json_doc(run, fp);
		return;
	}
	struct rows *r = by_name_rows(run);
	if (fmt != OUT_CSV)
		people_lines(run, fmt, fp);
	rows_write(r, fmt, fp, 0);
	rows_free(r);
}

void report_frames_summary(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	if (!run->nframes || (fmt != OUT_TABLE && fmt != OUT_MARKDOWN))
		return;
	fputc('\n', fp);
	report_frames(run, fmt, fp);
}
