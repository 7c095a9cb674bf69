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
 * Symbols are shown demangled (reports/demangle) unless asked otherwise.
 * Code that no symbol covers is shown by place, never as one bucket per
 * module: by address, "libfoo.so+0x1a2b" (the ELF virtual address that
 * nm, objdump and addr2line use; the offset from the mapping's start in
 * anonymous memory), or, when asked and the caller supplies the
 * modules' sections, by ELF section, "libfoo.so:.text".
 *
 * A call chain ends at the first caller whose address lay in no mapping
 * (module DB_MODULE_UNMAPPED): such an address is what a frame-pointer
 * walk reads through code built without frame pointers, and so is
 * everything beyond it. Reports count the samples whose chains were cut
 * and say so; the leaf frame is always kept.
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
	PROFILE_BY_LINE,	/* source file and line, where the debug info
				 * gave one; else by symbol */
};

/* "symbol", "module", "thread", "name", "line": 0 or -EINVAL. */
int profile_by_parse(const char *word, enum profile_by *out);
const char *profile_by_name(enum profile_by by);

enum profile_unknown {
	PROFILE_UNKNOWN_ADDRESS,	/* one row per address */
	PROFILE_UNKNOWN_SECTION,	/* one row per ELF section */
};

/* "address", "section": 0 or -EINVAL. */
int profile_unknown_parse(const char *word, enum profile_unknown *out);

/* An executable ELF section of a module, for PROFILE_UNKNOWN_SECTION. */
struct profile_section {
	const char *name;	/* ".text"; borrowed */
	uint64_t start, end;	/* ELF virtual addresses [start, end) */
};

/* The sections of one module, sorted by start and not overlapping; n 0
 * where they are not known (then its code stays by address). */
struct profile_sections {
	size_t n;
	const struct profile_section *v;
};

struct profile_opts {
	enum profile_by by;
	bool stacks;		/* the hottest call paths instead of rows */
	int event;		/* index into p->events; -1: every event
				 * (folded: the first) */
	size_t limit;		/* rows or paths per event; 0: all (table
				 * and Markdown say how many were left out) */
	const char *sort;	/* a column's key (rows_view): orders the
				 * paths with stacks, else the rows; NULL:
				 * hottest first */
	enum out_format fmt;	/* table, json, csv, markdown, folded */
	bool mangled;		/* symbols as stored; else C++ and Rust
				 * names demangled (reports/demangle) */
	enum profile_unknown unknown;	/* how code without a symbol groups */
	bool no_inline;		/* paths without the inlined functions the
				 * debug info names at a frame */
	const struct profile_sections *sections; /* per module (index: its id
				 * - 1), for PROFILE_UNKNOWN_SECTION; NULL:
				 * none known */
};

/*
 * Write the report. JSON follows shared/DESIGN.md: `event` and `rows`
 * (`{module, symbol, samples, self_pct}` plus total_samples and
 * total_pct, hottest first; `mangled` where the symbol was demangled,
 * `offset` ("0x1a2b") or `section` on rows of code without a symbol) for
 * the first event shown, and `events`, the same for every event shown,
 * (by line, rows also carry `file` and `line`, null where the debug info
 * gave none, and `symbol` is the innermost function there: an inlined
 * one where the compiler inlined it),
 * each with `chains_cut`. Folded: one line per distinct call path,
 * outermost frame first, "main;work;hot 123" (sample counts). In paths
 * and folded stacks, a frame where the compiler inlined functions is
 * followed by them, outermost first ("work -> step (inlined)"; folded
 * "work;step"), unless no_inline.
 */
void report_profile(const struct db_run *run, const struct db_profile *p,
		    const struct profile_opts *o, FILE *fp);

/* Whether sort names a column of the rows (or, with stacks, of the call
 * paths) grouped by by: 0, or -EINVAL with a cause (rows_sort_check). */
int profile_sort_check(enum profile_by by, bool stacks, const char *sort,
		       char **cause);

/* The display name of a module path: its file name ("libc.so.6"), or the
 * path itself for "[...]" names. Borrowed from path. */
const char *profile_module_short(const char *path);

#endif
