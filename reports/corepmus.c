/*
 * corepmus: a hybrid run's counts per core PMU, per thread; see
 * corepmus.h.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/corepmus.h"

/* Whether any thread has a count of event e on some core PMU. */
static bool counted_per_pmu(const struct db_run *run, size_t e)
{
	if (!run->events[e].supported)
		return false;
	for (size_t t = 0; t < run->nthreads; t++)
		for (size_t p = 0; run->threads[t].pmu_counts && p < run->ncore_pmus; p++)
			if (run->threads[t].pmu_counts[p * run->nevents + e].present)
				return true;
	return false;
}

/* The event whose running time says where a thread ran: the first one
 * named for cycles, else the first counted per PMU; -1 when none is. */
static long share_event(const struct db_run *run)
{
	long first = -1;
	for (size_t e = 0; e < run->nevents; e++) {
		if (!counted_per_pmu(run, e))
			continue;
		if (strstr(run->events[e].name, "cycles"))
			return (long)e;
		if (first < 0)
			first = (long)e;
	}
	return first;
}

enum { C_TID, C_THREAD, C_PMU, C_TIME, C_FIXED };

struct rows *report_core_pmu_rows(const struct db_run *run)
{
	if (run->ncore_pmus < 2)
		return NULL;
	size_t *evs = xcalloc(run->nevents ? run->nevents : 1, sizeof(*evs));
	size_t nev = 0;
	for (size_t e = 0; e < run->nevents; e++)
		if (counted_per_pmu(run, e))
			evs[nev++] = e;
	struct col *cols = xcalloc(C_FIXED + nev, sizeof(*cols));
	cols[C_TID] = (struct col){ .key = "tid", .kind = COL_INT };
	cols[C_THREAD] = (struct col){ .key = "thread", .kind = COL_TEXT };
	cols[C_PMU] = (struct col){ .key = "pmu", .kind = COL_TEXT };
	cols[C_TIME] = (struct col){ .key = "time_pct", .title = "time %",
				     .kind = COL_PCT, .decimals = 1, .none = "-" };
	for (size_t i = 0; i < nev; i++)
		cols[C_FIXED + i] = (struct col){ .key = run->events[evs[i]].name,
						  .kind = COL_COUNT, .none = "-",
						  .group = "counts" };
	struct rows *r = rows_new("core_pmus", cols, C_FIXED + nev, 0);
	long se = share_event(run);
	for (size_t t = 0; t < run->nthreads; t++) {
		const struct db_thread *th = &run->threads[t];
		if (!th->pmu_counts)
			continue;
		uint64_t all = 0;
		for (size_t p = 0; se >= 0 && p < run->ncore_pmus; p++)
			all += th->pmu_counts[p * run->nevents + (size_t)se].running;
		for (size_t p = 0; p < run->ncore_pmus; p++) {
			const struct db_count *pc = th->pmu_counts + p * run->nevents;
			size_t row = rows_add(r);
			rows_int(r, row, C_TID, th->tid);
			rows_str(r, row, C_THREAD, th->name);
			rows_str(r, row, C_PMU, run->core_pmus[p]);
			if (se >= 0 && all && pc[se].present)
				rows_num(r, row, C_TIME, 100.0 * (double)pc[se].running /
					 (double)all);
			else
				rows_null(r, row, C_TIME);
			for (size_t i = 0; i < nev; i++) {
				if (pc[evs[i]].present)
					rows_uint(r, row, C_FIXED + i, pc[evs[i]].value);
				else
					rows_null(r, row, C_FIXED + i);
			}
		}
	}
	free(cols);
	free(evs);
	return r;
}

void report_core_pmus(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	struct rows *r = report_core_pmu_rows(run);
	if (!r)
		return;
	long se = share_event(run);
	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	fprintf(fp, "\n%sper core type (", lead);
	for (size_t p = 0; p < run->ncore_pmus; p++)
		fprintf(fp, "%s%s", p ? ", " : "", run->core_pmus[p]);
	fprintf(fp, "): each hardware event counted on each core PMU, raw; "
		"a thread's count above is their sum\n");
	if (se >= 0)
		fprintf(fp, "%stime %%: the share of the thread's %s running time "
			"on each\n", lead, run->events[se].name);
	fputc('\n', fp);
	rows_write(r, fmt, fp, 1);
	rows_free(r);
}
