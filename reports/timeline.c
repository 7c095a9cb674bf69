/*
 * timeline: intervals as rows, and the compact timeline; see timeline.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "common/order.h"
#include "reports/rows.h"
#include "reports/timeline.h"

bool timeline_is_time(const struct db_event *e)
{
	return strstr(e->name, "clock") != NULL;
}

bool timeline_read_event(const struct db_run *run, size_t e)
{
	for (size_t i = 0; i < run->nintervals; i++)
		if (run->intervals[i].values[e] >= 0)
			return true;
	return false;
}

enum { IC_T_MS, IC_TID, IC_NAME, IC_FIRST_EVENT };

static struct rows *interval_rows(const struct db_run *run)
{
	size_t ncols = IC_FIRST_EVENT + run->nevents;
	struct col *cols = calloc(ncols, sizeof(*cols));
	if (!cols)
		xalloc_die();
	cols[IC_T_MS] = (struct col){ .key = "t_ms", .kind = COL_INT };
	cols[IC_TID] = (struct col){ .key = "tid", .kind = COL_INT };
	cols[IC_NAME] = (struct col){ .key = "name" };
	/* People read a clock event in ms, and its title says so (machines
	 * keep the kernel's ns under the event's name). */
	char (*titles)[96] = calloc(run->nevents ? run->nevents : 1, sizeof(*titles));
	if (!titles)
		xalloc_die();
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		bool ms = timeline_is_time(ev);
		if (ms)
			snprintf(titles[e], sizeof(titles[e]), "%s (ms)", ev->name);
		cols[IC_FIRST_EVENT + e] = (struct col){
			.key = ev->name, .title = ms ? titles[e] : NULL,
			.kind = ms ? COL_NS : COL_COUNT, .unit = ms ? "ms" : NULL,
			.decimals = 2, .group = "values", .flags = COL_FLAT_GROUP,
		};
		if (!timeline_read_event(run, e))
			cols[IC_FIRST_EVENT + e].flags |= COL_NO_PEOPLE | COL_NO_CSV;
	}
	struct rows *r = rows_new("intervals", cols, ncols, ROWS_FLAT);
	free(cols);
	free(titles);
	for (size_t i = 0; i < run->nintervals; i++) {
		const struct db_interval *iv = &run->intervals[i];
		size_t row = rows_add(r);
		rows_int(r, row, IC_T_MS, iv->t_ms);
		rows_int(r, row, IC_TID, iv->tid);
		rows_str(r, row, IC_NAME, iv->name);
		for (size_t e = 0; e < run->nevents; e++)
			if (iv->values[e] >= 0)
				rows_int(r, row, IC_FIRST_EVENT + e, iv->values[e]);
	}
	return r;
}

#define DOC_COLS(K) \
	K(D_RUN_ID, "run_id", INT) K(D_INTERVAL_MS, "interval_ms", INT) \
	K(D_INTERVALS, "intervals", NEST)
ROWS_KEYS(doc_cols, D_N, DOC_COLS);

void report_intervals(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	struct rows *r = interval_rows(run);
	if (fmt == OUT_JSON) {
		struct rows *doc = rows_new(NULL, doc_cols, D_N, 0);
		size_t row = rows_add(doc);
		rows_int(doc, row, D_RUN_ID, run->id);
		const char *ms = db_get_text(run, SET_INTERVAL_MS);
		if (ms)
			rows_int(doc, row, D_INTERVAL_MS, atoll(ms));
		else
			rows_null(doc, row, D_INTERVAL_MS);
		rows_nest(doc, row, D_INTERVALS, r);
		rows_write_data(doc, OUT_JSON, fp);
		return;
	}
	rows_write(r, fmt, fp, 0);
	rows_free(r);
}

/* ---- the compact timeline ---- */

#define TL_WIDTH 60
static const char levels[] = " .:-=+*#%@";

const char *timeline_name(const struct db_interval *iv)
{
	return iv->name ? iv->name : "?";
}

size_t timeline_names(const struct db_run *run, const char ***out)
{
	const char **names = calloc(run->nintervals ? run->nintervals : 1, sizeof(*names));
	if (!names)
		xalloc_die();
	size_t n = 0;
	for (size_t i = 0; i < run->nintervals; i++) {
		const char *nm = timeline_name(&run->intervals[i]);
		size_t k = 0;
		while (k < n && strcmp(names[k], nm))
			k++;
		if (k == n)
			names[n++] = nm;
	}
	*out = names;
	return n;
}

enum { TL_NAME, TL_EVENT, TL_N_IV, TL_MIN, TL_MEDIAN, TL_MAX, TL_LINE, TL_N };

/* One interval's bin and the sum of a name's values in it. */
struct bin {
	int64_t b, sum;
};

static int bin_cmp(const void *pa, const void *pb)
{
	const struct bin *a = pa, *b = pb;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* a + b, both 0 or more, held at INT64_MAX (the database's largest). */
static int64_t add_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* floor(c * n / w) without overflow, for c <= w. */
static uint64_t col_start(uint64_t c, uint64_t n, uint64_t w)
{
	return c * (n / w) + c * (n % w) / w;
}

/*
 * One line: name's threads summed per interval, for event e. The bins
 * between the first and last one with a value count (as intervals of 0),
 * but only the bins with a value are held: the work and memory go with
 * the interval rows, not with the time they span (issue 27: one row at
 * 115 days made a 3.1 GB array).
 */
static void timeline_row(const struct db_run *run, struct rows *r, const char *name,
			 size_t e, int64_t step_ms)
{
	struct bin *bins = malloc((run->nintervals ? run->nintervals : 1) * sizeof(*bins));
	if (!bins)
		xalloc_die();
	size_t m = 0;
	for (size_t i = 0; i < run->nintervals; i++) {
		const struct db_interval *iv = &run->intervals[i];
		if (strcmp(timeline_name(iv), name) || iv->values[e] < 0 || iv->t_ms < 0)
			continue;
		bins[m++] = (struct bin){ iv->t_ms / step_ms, iv->values[e] };
	}
	if (!m)
		goto out;
	qsort(bins, m, sizeof(*bins), bin_cmp);
	size_t u = 0;	/* the threads of a bin summed */
	for (size_t i = 0; i < m; i++) {
		if (u && bins[u - 1].b == bins[i].b)
			bins[u - 1].sum = add_sat(bins[u - 1].sum, bins[i].sum);
		else
			bins[u++] = bins[i];
	}
	m = u;
	int64_t lo = bins[0].b;
	uint64_t n = (uint64_t)(bins[m - 1].b - lo) + 1, empty = n - m;
	int64_t *sorted = malloc(m * sizeof(*sorted));
	if (!sorted)
		xalloc_die();
	for (size_t i = 0; i < m; i++)
		sorted[i] = bins[i].sum;
	qsort(sorted, m, sizeof(*sorted), order_i64);
	int64_t max = sorted[m - 1];
	/* The empty bins are the smallest values (0): before every sum. */
	int64_t min = empty ? 0 : sorted[0];
	int64_t median = n / 2 < empty ? 0 : sorted[n / 2 - empty];
	/* One character per interval, or per run of them when there are
	 * more than TL_WIDTH (their largest). */
	char line[TL_WIDTH + 1];
	uint64_t width = n < TL_WIDTH ? n : TL_WIDTH;
	size_t k = 0;
	for (uint64_t c = 0; c < width; c++) {
		uint64_t z = col_start(c + 1, n, width);
		int64_t v = 0;
		for (; k < m && (uint64_t)(bins[k].b - lo) < z; k++)
			v = bins[k].sum > v ? bins[k].sum : v;
		size_t lvl = max > 0 ? (size_t)((double)v / (double)max * 9.0 + 0.5) : 0;
		if (v > 0 && lvl == 0)
			lvl = 1;
		line[c] = levels[lvl];
	}
	line[width] = '\0';
	size_t row = rows_add(r);
	rows_str(r, row, TL_NAME, name);
	rows_str(r, row, TL_EVENT, run->events[e].name);
	rows_uint(r, row, TL_N_IV, n);
	double div = timeline_is_time(&run->events[e]) ? 1e6 : 1.0;
	rows_num(r, row, TL_MIN, (double)min / div);
	rows_num(r, row, TL_MEDIAN, (double)median / div);
	rows_num(r, row, TL_MAX, (double)max / div);
	rows_text(r, row, TL_LINE, "|%s|", line);
	free(sorted);
out:
	free(bins);
}

void report_timeline(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	const char *ms = db_get_text(run, SET_INTERVAL_MS);
	if (!run->nintervals || !ms || atoll(ms) <= 0 ||
	    (fmt != OUT_TABLE && fmt != OUT_MARKDOWN))
		return;
	int64_t step = atoll(ms);
	static const struct col cols[TL_N] = {
		[TL_NAME] = { .key = "name" },
		[TL_EVENT] = { .key = "event" },
		[TL_N_IV] = { .key = "intervals", .kind = COL_COUNT },
		[TL_MIN] = { .key = "min", .kind = COL_REAL, .decimals = 2 },
		[TL_MEDIAN] = { .key = "median", .kind = COL_REAL, .decimals = 2 },
		[TL_MAX] = { .key = "max", .kind = COL_REAL, .decimals = 2 },
		[TL_LINE] = { .key = "timeline", .align = COL_LEFT },
	};
	struct rows *r = rows_new("timeline", cols, TL_N, 0);
	const char **names;
	size_t nn = timeline_names(run, &names);
	for (size_t k = 0; k < nn; k++)
		for (size_t e = 0; e < run->nevents; e++)
			timeline_row(run, r, names[k], e, step);
	fprintf(fp, "\n%s, every %lld ms (per thread name, threads "
		"summed; clock events in ms):\n",
		fmt == OUT_MARKDOWN ? "### Timeline" : "Timeline",
		(long long)step);
	rows_write(r, fmt, fp, 2);
	free(names);
	rows_free(r);
}
