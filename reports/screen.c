/*
 * screen: each candidate scene's busy shares and verdict; see screen.h.
 */
#include "reports/screen.h"

#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/rows.h"
#include "reports/stats.h"

const char *screen_verdict_name(enum screen_verdict v)
{
	switch (v) {
	case SCREEN_PACED:
		return "paced";
	case SCREEN_CPU_LIMITED:
		return "cpu-limited";
	case SCREEN_IN_BETWEEN:
		return "in-between";
	default:
		return "no-data";
	}
}

/* The run's task-clock event (by its attr, whatever it was called), or -1. */
static long task_clock_idx(const struct db_run *run)
{
	return db_run_event_by_attr(run, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
}

/* The median frame time in ms; NaN without frames. */
static double frame_median_ms(const struct db_run *run)
{
	if (!run->nframes)
		return NAN;
	double *v = malloc(run->nframes * sizeof(*v));
	if (!v)
		return NAN;
	for (size_t i = 0; i < run->nframes; i++)
		v[i] = (double)run->frames[i].dur_ns / 1e6;
	struct stats_summary s;
	double m = stats_summarize(v, run->nframes, &s) ? NAN : s.median;
	free(v);
	return m;
}

static void judge(const struct screen_bounds *b, struct screen_result *o)
{
	const char *who = o->busiest_name && o->busiest_name[0] ? o->busiest_name : "a thread";
	if (isnan(o->busiest_pct)) {
		o->verdict = SCREEN_NO_DATA;
		snprintf(o->why, sizeof(o->why), "task-clock did not count");
		return;
	}
	if (o->budget_ms > 0 && !isnan(o->frame_p50_ms) &&
	    fabs(o->frame_p50_ms - o->budget_ms) <= SCREEN_BUDGET_TOL * o->budget_ms) {
		o->verdict = SCREEN_PACED;
		snprintf(o->why, sizeof(o->why), "frames at their budget (median %.2f ms "
			 "of %.2f, %.1f fps); %s %.0f%% busy", o->frame_p50_ms,
			 o->budget_ms, 1000.0 / o->frame_p50_ms, who, o->busiest_pct);
		return;
	}
	if (o->busiest_pct >= b->busy_pct) {
		o->verdict = SCREEN_CPU_LIMITED;
		snprintf(o->why, sizeof(o->why), "%s %.0f%% busy", who, o->busiest_pct);
		return;
	}
	if (o->ncpus && o->cpus_busy >= 0.9 * o->ncpus) {
		o->verdict = SCREEN_CPU_LIMITED;
		snprintf(o->why, sizeof(o->why), "%.1f of %u CPUs busy", o->cpus_busy, o->ncpus);
		return;
	}
	if (o->busiest_pct < b->paced_pct) {
		o->verdict = SCREEN_PACED;
		snprintf(o->why, sizeof(o->why), "every thread under %.0f%% (busiest %s "
			 "%.0f%%)", b->paced_pct, who, o->busiest_pct);
		return;
	}
	o->verdict = SCREEN_IN_BETWEEN;
	snprintf(o->why, sizeof(o->why), "busiest %s %.0f%%: between %.0f%% and %.0f%%",
		 who, o->busiest_pct, b->paced_pct, b->busy_pct);
}

void screen_judge(const struct db_run *run, const char *scene, double window_s,
		  const struct screen_bounds *b, struct screen_result *out)
{
	memset(out, 0, sizeof(*out));
	out->scene = scene;
	out->run_id = run->id;
	out->wall_s = run->wall_s;
	out->exit_status = run->exit_status;
	out->ended_early = window_s > 0 && run->wall_s < 0.9 * window_s;
	out->nthreads = run->nthreads;
	out->ncpus = b->ncpus;
	out->budget_ms = b->budget_ms;
	out->nframes = run->nframes;
	out->frame_p50_ms = frame_median_ms(run);
	out->busiest_pct = NAN;
	long e = task_clock_idx(run);
	double wall_ns = run->wall_s * 1e9;
	if (e >= 0 && wall_ns > 0) {
		double best = -1, sum = 0;
		for (size_t t = 0; t < run->nthreads; t++) {
			const struct db_count *c = &run->threads[t].counts[e];
			if (!c->present)
				continue;
			double pct = (double)c->value / wall_ns * 100.0;
			sum += pct;
			if (pct >= b->paced_pct)
				out->over_paced++;
			if (pct > best) {
				best = pct;
				out->busiest_tid = run->threads[t].tid;
				out->busiest_name = run->threads[t].name;
			}
		}
		if (best >= 0) {
			out->busiest_pct = best;
			out->cpus_busy = sum / 100.0;
		}
	}
	judge(b, out);
}

enum {
	C_SCENE, C_RUN, C_WALL, C_EARLY, C_EXIT, C_THREADS, C_TID, C_NAME, C_BUSY,
	C_OVER, C_CPUS, C_FRAMES, C_P50, C_VERDICT, C_WHY, C_N
};

static const struct col cols[C_N] = {
	[C_SCENE] = { .key = "scene" },
	[C_RUN] = { .key = "run_id", .title = "run", .kind = COL_INT },
	[C_WALL] = { .key = "wall_s", .title = "wall s", .kind = COL_REAL, .decimals = 1 },
	[C_EARLY] = { .key = "ended_early", .kind = COL_BOOL, .flags = COL_MACHINES },
	[C_EXIT] = { .key = "exit_status", .kind = COL_INT, .flags = COL_MACHINES },
	[C_THREADS] = { .key = "threads", .kind = COL_COUNT },
	[C_TID] = { .key = "busiest_tid", .kind = COL_INT, .flags = COL_MACHINES },
	[C_NAME] = { .key = "busiest", .title = "busiest thread", .none = "-" },
	[C_BUSY] = { .key = "busiest_pct", .title = "busy", .kind = COL_PCT, .none = "-" },
	[C_OVER] = { .key = "threads_over_paced", .title = "over paced", .kind = COL_COUNT },
	[C_CPUS] = { .key = "cpus_busy", .title = "CPUs busy", .kind = COL_REAL,
		     .decimals = 2, .none = "-" },
	[C_FRAMES] = { .key = "frames", .kind = COL_COUNT, .flags = COL_MACHINES },
	[C_P50] = { .key = "frame_p50_ms", .title = "frame p50 ms", .kind = COL_REAL,
		    .decimals = 2, .none = "-" },
	[C_VERDICT] = { .key = "verdict" },
	[C_WHY] = { .key = "why" },
};

static struct rows *scene_rows(const struct screen_result *r, size_t n, bool frames)
{
	struct rows *t = rows_new("scenes", cols, C_N, 0);
	for (size_t i = 0; i < n; i++) {
		const struct screen_result *s = &r[i];
		size_t row = rows_add(t);
		rows_str(t, row, C_SCENE, s->scene);
		rows_int(t, row, C_RUN, s->run_id);
		rows_num(t, row, C_WALL, s->wall_s);
		rows_bool(t, row, C_EARLY, s->ended_early);
		rows_int(t, row, C_EXIT, s->exit_status);
		rows_uint(t, row, C_THREADS, s->nthreads);
		if (s->busiest_tid)
			rows_int(t, row, C_TID, s->busiest_tid);
		else
			rows_null(t, row, C_TID);
		rows_str(t, row, C_NAME, s->busiest_tid ? s->busiest_name : NULL);
		rows_num(t, row, C_BUSY, s->busiest_pct);
		rows_uint(t, row, C_OVER, s->over_paced);
		if (isnan(s->busiest_pct))
			rows_null(t, row, C_CPUS);
		else
			rows_num(t, row, C_CPUS, s->cpus_busy);
		rows_uint(t, row, C_FRAMES, s->nframes);
		rows_num(t, row, C_P50, s->frame_p50_ms);
		rows_str(t, row, C_VERDICT, screen_verdict_name(s->verdict));
		rows_str(t, row, C_WHY, s->why);
	}
	size_t order[C_N], k = 0;
	for (size_t c = 0; c < C_N; c++)
		if (!(cols[c].flags & COL_NO_PEOPLE) && c != C_WHY && (frames || c != C_P50))
			order[k++] = c;
	rows_people_order(t, order, k);
	return t;
}

enum { D_WINDOW, D_BUSY, D_PACED, D_BUDGET, D_NCPUS, D_SCENES, D_N };
static const struct col doc_cols[D_N] = {
	[D_WINDOW] = { .key = "window_s", .kind = COL_REAL, .decimals = 3 },
	[D_BUSY] = { .key = "busy_pct", .kind = COL_PCT, .decimals = 1 },
	[D_PACED] = { .key = "paced_pct", .kind = COL_PCT, .decimals = 1 },
	[D_BUDGET] = { .key = "budget_ms", .kind = COL_REAL, .decimals = 3 },
	[D_NCPUS] = { .key = "cpus", .kind = COL_INT },
	[D_SCENES] = { .key = "scenes", .kind = COL_NEST },
};

void report_screen(const struct screen_result *r, size_t n,
		   const struct screen_bounds *b, double window_s,
		   enum out_format f, FILE *fp)
{
	bool frames = b->budget_ms > 0;
	struct rows *t = scene_rows(r, n, frames);
	if (f == OUT_JSON) {
		struct rows *doc = rows_new(NULL, doc_cols, D_N, 0);
		size_t row = rows_add(doc);
		rows_num(doc, row, D_WINDOW, window_s);
		rows_num(doc, row, D_BUSY, b->busy_pct);
		rows_num(doc, row, D_PACED, b->paced_pct);
		if (frames)
			rows_num(doc, row, D_BUDGET, b->budget_ms);
		else
			rows_null(doc, row, D_BUDGET);
		if (b->ncpus)
			rows_int(doc, row, D_NCPUS, b->ncpus);
		else
			rows_null(doc, row, D_NCPUS);
		rows_nest(doc, row, D_SCENES, t);
		rows_write_data(doc, OUT_JSON, fp);
		return;
	}
	if (f == OUT_CSV) {
		rows_write_data(t, OUT_CSV, fp);
		return;
	}
	fprintf(fp, "screen: %zu scene%s, %.1f s each; busy = a thread's task-clock "
		"over the wall time (100%% = one core)\n", n, n == 1 ? "" : "s", window_s);
	rows_write(t, f, fp, 0);
	fprintf(fp, "\n");
	for (size_t i = 0; i < n; i++) {
		const struct screen_result *s = &r[i];
		fprintf(fp, "%s%s: %s: %s", f == OUT_MARKDOWN ? "- " : "  ", s->scene,
			screen_verdict_name(s->verdict), s->why);
		if (s->ended_early)
			fprintf(fp, " (it exited after %.1f s, status %d: judged over its life)",
				s->wall_s, s->exit_status);
		fprintf(fp, "\n");
	}
	fprintf(fp, "%scpu-limited scenes can show a cache effect; paced ones keep up and "
		"mostly sleep, so a working-set change moves only how long they sleep\n",
		f == OUT_MARKDOWN ? "\n" : "");
	rows_free(t);
}
