/*
 * profile: the reports of a sampled run (prof record, prof report on a
 * sampled run): where the samples fell, grouped by symbol, module,
 * thread or thread name, with self and total shares per event; the
 * hottest call paths; and folded stacks for flame-graph tools.
 *
 * Shares are of the event's weight (the sum of the samples' periods, as
 * perf report computes its percentages); `samples` counts samples. Self
 * is where a sample's leaf frame is; total is every sample whose stack
 * passes through the group at least once (recursion counts once).
 *
 * Reads struct db_run and struct db_profile as db/ loads them; writes to
 * a caller-owned FILE. No shared state.
 */
#ifndef REPORTS_PROFILE_H
#define REPORTS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "db/runs.h"
#include "db/samples.h"
#include "reports/output.h"

enum profile_by {
	PROFILE_BY_SYMBOL,
	PROFILE_BY_MODULE,
	PROFILE_BY_THREAD,
	PROFILE_BY_NAME,
};

/* "symbol", "module", "thread", "name": 0 or -EINVAL. */
int profile_by_parse(const char *word, enum profile_by *out);
const char *profile_by_name(enum profile_by by);

struct profile_opts {
	enum profile_by by;
	bool stacks;		/* the hottest call paths instead of rows */
	int event;		/* index into p->events; -1: every event
				 * (folded: the first) */
	size_t limit;		/* rows or paths per event; 0: all */
	enum out_format fmt;	/* table, json, csv, markdown, folded */
	bool mangled;		/* symbols as stored; else C++ and Rust
				 * names demangled (reports/demangle) */
};

/*
 * Write the report. JSON follows shared/DESIGN.md: `event` and `rows`
 * (`{module, symbol, samples, self_pct}` plus total_samples and
 * total_pct, hottest first) for the first event shown, and `events`, the
 * same for every event shown. Folded: one line per distinct call path,
 * outermost frame first, "main;work;hot 123" (sample counts).
 */
void report_profile(const struct db_run *run, const struct db_profile *p,
		    const struct profile_opts *o, FILE *fp);

/* The display name of a module path: its file name ("libc.so.6"), or the
 * path itself for "[...]" names. Borrowed from path. */
const char *profile_module_short(const char *path);

#endif
