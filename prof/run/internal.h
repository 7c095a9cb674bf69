/*
 * internal: what the files of the run engine (prof/run/) share among
 * themselves and nothing outside it reads: the short names of the print
 * sink's levels (run.h's run_print), and the runner's one-time warning
 * about events this machine refused. Not thread-safe, as run.h.
 */
#ifndef PROF_RUN_INTERNAL_H
#define PROF_RUN_INTERNAL_H

#include <stddef.h>

#include "collectors/counters.h"
#include "collectors/events.h"
#include "prof/run/run.h"

void run_print(enum run_print_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define run_warn(...) run_print(RUN_PRINT_WARN, __VA_ARGS__)
#define run_note(...) run_print(RUN_PRINT_NOTE, __VA_ARGS__)
#define run_hint(...) run_print(RUN_PRINT_HINT, __VA_ARGS__)
#define run_info(...) run_print(RUN_PRINT_INFO, __VA_ARGS__)

/*
 * A cause string (possibly several lines, the later ones "hint:" lines
 * with their own prefix) as a warning: the first line takes the
 * warning's prefix. NULL or empty: "unknown failure".
 */
void run_warn_cause(const char *cause);

/* Say once, as warnings, which events the kernel refused and why. */
void report_unsupported(const struct counters *cs, const struct event_desc *evs,
			size_t nev);

#endif
