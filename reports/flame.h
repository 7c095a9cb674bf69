/*
 * flame (reports): a sampled run's flame graph as one SVG, for `prof
 * record --format svg`, `prof report RUN --format svg` and `prof html`.
 * Frames are boxes as wide as their share of the samples, callers below
 * their callees (an icicle, when asked: callers above). Opened in a
 * browser it is interactive with nothing fetched: a click zooms into a
 * frame, "Reset zoom" goes back, "Search" highlights the frames whose
 * name matches a regular expression and says what share they hold.
 * Names are <text> and a <title> per frame, so the browser's own find
 * works too.
 *
 * The stacks come from reports/profile's folded output (the same paths,
 * names and grouping `--format folded` writes), so this file reads the
 * run through that one interface; flame_svg draws any folded text.
 * Kernel frames (the "_[k]" mark of folded stacks) are blue, code
 * without a symbol ("lib.so+0x1a2b") grey, the rest warm. Writes to a
 * caller-owned FILE; no state.
 */
#ifndef REPORTS_FLAME_H
#define REPORTS_FLAME_H

#include <stdbool.h>
#include <stdio.h>

#include "db/runs.h"
#include "db/samples.h"
#include "reports/profile.h"

struct flame_opts {
	bool icicle;		/* callers on top */
	const char *title;	/* NULL: "Flame graph" */
	const char *subtitle;	/* NULL: none */
	const char *unit;	/* what a count is; NULL: "samples" */
};

/*
 * Draw the folded stacks in text ("main;work;hot 123" lines; other lines
 * are skipped). 0, or -ENOMEM.
 */
int flame_svg(const char *folded, const struct flame_opts *fo, FILE *fp);

/* The flame graph of a sampled run: o's event (-1: the first), symbols
 * as o says. 0, or -ENOMEM. */
int report_flame(const struct db_run *run, const struct db_profile *p,
		 const struct profile_opts *o, bool icicle, FILE *fp);

#endif
