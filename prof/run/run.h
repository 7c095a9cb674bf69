/*
 * run: the run engine, prof/run/. It runs a workload and counts it, start
 * to finish (launch or attach, pin, the collectors' steps, the
 * completeness audit), hands back a struct db_run ready to store, and
 * reads the score an experiment judges a run by. Verbs (prof/cmd_*.c)
 * drive it; it knows nothing of argv, the verb table or exit codes, and
 * it prints nothing itself: every warning, note and hint goes through the
 * print function its caller installs (run_set_print), as libbpf's
 * libbpf_set_print does.
 *
 * This is the module's one public header; include it, not its parts.
 * The parts are the interface of the engine's pieces, kept in files of
 * their own because verbs hold their structs by value (runner_opts,
 * launch_opts, pin_plan, sleep_plan, ab_score, run_sim, record_coll):
 *   runner.h          one counted run (runner_run), its options and result
 *   collector.h       the steps every collector goes through (collect_*.c)
 *   collect_record.h  prof record's collector, which the verb owns
 *   launch.h          fork, settle and exec a workload; its process tree
 *   pin.h             choosing and applying a run's CPU pin
 *   sleepmode.h       --sleep-mode: the sleep interposer, preloaded
 *   abscore.h         the score of a run, read from its output or frames
 *   runsim.h          a run whose counters callgrind simulates
 * prof/run/internal.h is private to the engine.
 *
 * Ownership: each part says who owns what; a returned char * is the
 * caller's to free. Not thread-safe: the runner installs signal
 * handlers, and the print function is one process-wide setting (set it
 * once, before the first run).
 */
#ifndef PROF_RUN_H
#define PROF_RUN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What a message of the engine is. The text handed to the print function
 * has no prefix and no final newline: the function adds them.
 *   WARN  something went wrong that the run survives ("warning: ")
 *   NOTE  something the user may want to know ("note: ")
 *   HINT  how to fix what the warning before it said ("hint: ")
 *   INFO  a remark that carries its own prefix, such as "prof: " and the
 *         hint lines of a cause (printed as it is)
 */
enum run_print_level {
	RUN_PRINT_WARN,
	RUN_PRINT_NOTE,
	RUN_PRINT_HINT,
	RUN_PRINT_INFO,
};

typedef void (*run_print_fn)(enum run_print_level level, const char *fmt,
			     va_list ap);

/*
 * Install fn as where the engine's messages go; NULL (the default): they
 * go nowhere. Returns the function installed before.
 */
run_print_fn run_set_print(run_print_fn fn);

/* Now as ISO 8601 UTC, "2026-11-30T05:37:51Z". */
void run_state_now_iso(char *buf, size_t n);

/* argv quoted as a shell would need it, for display (malloc'd). */
char *run_state_command_line(char *const *argv, int argc);

/* User input shortened for messages: at most 40 bytes, then "...";
 * s itself when it fits, else buf. */
const char *run_echo(const char *s, char *buf, size_t bufsz);

/* Seconds on CLOCK_MONOTONIC: subtract two for an elapsed time. */
double mono_now_s(void);
/* The same clock in nanoseconds, the unit of perf's sample times. */
uint64_t mono_now_ns(void);

#include "prof/run/collector.h"
#include "prof/run/launch.h"
#include "prof/run/pin.h"
#include "prof/run/sleepmode.h"
#include "prof/run/runner.h"
#include "prof/run/collect_record.h"
#include "prof/run/abscore.h"
#include "prof/run/runsim.h"

#endif
