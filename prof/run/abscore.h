/*
 * abscore: a score, the number a `prof ab` or `prof pressure` run is
 * judged by besides its counters: what it is (a regex over the run's
 * output, or a statistic of the frames the run stored), how an experiment
 * stores it, and the engine that reads it from a finished run. The regex
 * search runs in a forked child held to a CPU and memory budget, so a
 * pattern glibc's matcher handles badly cannot hang or exhaust prof; the
 * caller's process is not changed (no signal disposition, no limit).
 * Scores are parsed by prof/abplan.h and checked by prof/abregex.h. No
 * state is kept; as ab_score_find forks, call it (and ab_score_measure)
 * from prof's main thread, with no other thread holding a lock the child
 * could need.
 */
#ifndef PROF_ABSCORE_H
#define PROF_ABSCORE_H

#ifndef PROF_RUN_H
#error "include prof/run/run.h, the run engine's one public header"
#endif

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "db/runs.h"
#include "reports/abstat.h"

enum ab_score_kind {
	AB_SCORE_REGEX,		/* NAME=REGEX[:AGG]: from the run's output */
	AB_SCORE_FRAME_P99,	/* frame:p99: from the run's frames, in ms */
	AB_SCORE_FRAME_P50,	/* frame:p50 */
	AB_SCORE_FRAME_LONG,	/* frame:long: frames over the budget */
};

struct ab_score {
	char *name;			/* NAME, NAME:p99, frame_p99_ms, ... */
	char *pattern;			/* the regex; "frame:p99" for a frame score */
	enum ab_score_kind kind;
	enum ab_score_agg agg;		/* a regex's aggregate over its matches */
	bool higher_is_better;
	bool rate, count;		/* declared :rate or :count */
	regex_t re;
	bool compiled;
};

/*
 * The score as an experiment stores it: "NAME=REGEX[:AGG][:higher]
 * [:rate|:count]" (NAME with its aggregator: "ns:p99=([0-9]+) ns:p99"),
 * or "frame_p99_ms=frame:p99". malloc'd.
 */
char *ab_score_spec(const struct ab_score *s);

/*
 * Bounds on the search: the last AB_SCORE_TEXT_MAX bytes of the output,
 * whole lines only, are searched line by line from the last one back, so
 * a match never spans lines (the regex is compiled with REG_NEWLINE: `^`
 * and `$` are line ends, `.` is no newline) and no attempt reads past its
 * line. The search runs in a child process held to AB_SCORE_CPU_S seconds
 * of CPU and AB_SCORE_MEM_MB more memory: a pattern the matcher handles
 * badly (its automaton can grow exponentially with the text) costs that
 * much at most.
 */
#define AB_SCORE_TEXT_MAX (1u << 20)
#define AB_SCORE_CPU_S 2
#define AB_SCORE_MEM_MB 256

/*
 * Score s of a regex in text: the last match that reads as a number (its
 * first capture group, else the whole match), or s->agg over every such
 * match in the searched text (:matches counts every match, number or
 * not): 0 with *value; -ENOENT when there is none; -ETIME or -ENOMEM when
 * the search ran out of its CPU time or memory; another negative errno
 * when it could not start.
 */
int ab_score_find(const struct ab_score *s, const char *text, double *value);

/*
 * agg of v[0..n), n > 0 (v is sorted in place): the nearest-rank
 * percentile (the ceil(p/100 * n)-th smallest, as prof report --frames
 * takes p99), the mean, the largest, or n for :matches; the last value
 * for AB_AGG_LAST.
 */
double ab_score_aggregate(enum ab_score_agg agg, double *v, size_t n);

/*
 * Score s of one run: a frame score from the run's stored frames (-ENOENT
 * when it has none); a regex's from out, then err when out has no match
 * (ab_score_find). A :matches score that matches neither is 0.
 */
int ab_score_measure(const struct ab_score *s, const char *out, const char *err,
		     const struct db_run *run, double *value);

#endif
