/*
 * settings: the one table of a run's settings (the run_settings rows),
 * each key with its stored name, its value type and what it means, and
 * typed accessors over struct db_run's key/value list (db/runs.h).
 *
 * Each key is a constant SET_<NAME> of a type that names its value type
 * (struct db_setting_u64, ...), so a misspelt key or a value of the wrong
 * type is a compile error. The stored names and the stored text are what
 * prof wrote before the table: old databases read as they did. The value
 * type carries the text's format:
 *
 *   str    the text as given
 *   flag   "1" when set; absent otherwise
 *   yesno  "yes" or "no"
 *   u64    "%llu"; i64 "%lld"
 *   f64g   "%g"; f64_0 "%.0f"; f64_4 "%.4f"; f64_6 "%.6f"
 *
 * Keys built at run time (frames_<source>) and keys read back from a
 * database go through db_run_set_dynamic / db_run_get_dynamic (runs.h).
 * docs/schema.md's run settings table (between its markers) lists the
 * same keys (tests/db/test_settings.c checks both ways). Not thread-safe:
 * the setters change the run.
 */
#ifndef DB_SETTINGS_H
#define DB_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "db/tags.h"

struct db_run;
struct db_kv;

/* X(NAME, "stored name", type, "meaning"), in the order of the doc. */
#define DB_SETTINGS(X) \
	/* what was asked */ \
	X(EVENTS, "events", str, "the events asked for, as written") \
	X(TAG, DB_RUN_TAG_KEY, str, "the name prof run --tag gave the run") \
	X(WORKING_SET, "working_set", flag, "a --working-set run") \
	X(REPEAT, "repeat", str, "the run's place in a prof run -r series: 2/5") \
	X(PIN_DESC, "pin_desc", str, "the CPU pin, in words") \
	X(MMAP_PAGES, "mmap_pages", u64, "ring buffer pages asked for") \
	X(TIMEOUT_S, "timeout_s", f64g, "--timeout, seconds, as given") \
	X(TIMED_OUT, "timed_out", flag, "the --timeout limit ended the run") \
	X(PREPARE, "prepare", str, "the --prepare command") \
	X(CLEANUP, "cleanup", str, "the --cleanup command") \
	X(CLEANUP_STATUS, "cleanup_status", i64, \
	  "the cleanup's exit status when not 0; -1: it could not run") \
	X(SLEEP_MODE, "sleep_mode", str, "--sleep-mode, as given") \
	/* how it was counted */ \
	X(COUNT_PATH, "count_path", str, "how the counters were read") \
	X(SAMPLE_PATH, "sample_path", str, "how the samplers were read") \
	X(COUNT_PATH_NOTE, "count_path_note", str, "why the count path is what it is") \
	X(COUNTED_PER_PMU, "counted_per_pmu", str, \
	  "the core PMUs each hardware event was counted on apart, by type") \
	X(COMPLETE, "complete", yesno, "whether the run was found complete") \
	X(INCOMPLETE, "incomplete", str, "why not, one reason a line") \
	X(RING_PAST_HEAD, "ring_past_head", u64, \
	  "ring records taken past a head the kernel left behind") \
	X(RING_TORN_BYTES, "ring_torn_bytes", u64, "ring bytes skipped as unreadable (torn)") \
	X(RING_NAMES_FROM_PROC, "ring_names_from_proc", u64, \
	  "thread names read from /proc, not the ring") \
	X(PERCPU_UNATTRIBUTED_NS, "percpu_unattributed_ns", u64, \
	  "per-CPU time no thread could be given") \
	X(PERCPU_REAPED_BY_STACK, "percpu_reaped_by_stack", u64, \
	  "reaped tasks' samples named by their kernel stack") \
	X(PERCPU_MUX_ESTIMATE, "percpu_mux_estimate", str, \
	  "hardware events multiplexed per CPU: per thread, shared by time") \
	X(PERCPU_MUX_SPLIT, "percpu_mux_split", u64, \
	  "multiplexed hardware samples shared over the slices they spanned") \
	X(PERCPU_MUX_UNSPLIT, "percpu_mux_unsplit", u64, \
	  "... and those given whole to one thread, the slices not kept") \
	X(PERCPU_STALLS, "percpu_stalls", u64, \
	  "context switches the CPU stood still in (1 ms or more)") \
	X(PERCPU_STALL_NS, "percpu_stall_ns", u64, "the time it stood still in them") \
	X(PERCPU_STALL_MAX_NS, "percpu_stall_max_ns", u64, "the longest of them") \
	X(INTERVAL_MS, "interval_ms", u64, "prof run -I, milliseconds") \
	X(WS_WINDOW_BYTES, "ws_window_bytes", u64, \
	  "the fault-around window of a --working-set run") \
	/* --simulate */ \
	X(COUNTER_SOURCE, "counter_source", str, "simulated: counts from callgrind") \
	X(SIM_MODEL, "sim.model", str, "the simulated cache model") \
	X(SIM_CYCLES, "sim.cycles", str, "what the simulated cycles count") \
	X(SIM_THREADS, "sim.threads", u64, "valgrind threads seen") \
	/* --window */ \
	X(WINDOW, "window", str, \
	  "the window kept, or not reached, or not kept (out of memory)") \
	X(WINDOW_ASKED, "window_asked", str, "the window asked for, when not reached") \
	X(WINDOW_START_S, "window_start_s", f64_6, \
	  "the window's start, seconds after the launch") \
	X(WINDOW_END_S, "window_end_s", f64_6, "the window's end, seconds after the launch") \
	X(WINDOW_CPU_S, "window_cpu_s", f64_6, "the window's CPU time (task-clock)") \
	X(WINDOW_USER_S, "window_user_s", f64_6, "the window's user time (cgroup)") \
	X(WINDOW_SYS_S, "window_sys_s", f64_6, "the window's system time (cgroup)") \
	X(WINDOW_SAMPLES_LEFT_OUT, "window_samples_left_out", u64, \
	  "samples outside a frame window") \
	/* frames */ \
	X(FRAME_SOURCE, "frame_source", str, "marker, regex or symbol") \
	X(FRAME_REGEX, "frame_regex", str, "--frame-regex") \
	X(FRAME_SYMBOL, "frame_symbol", str, \
	  "--frame-symbol: the module's full path, :, the symbol") \
	X(FRAME_BUDGET_MS, "frame_budget_ms", f64g, "a frame's budget, milliseconds") \
	X(FRAME_REGEX_BURSTS, "frame_regex_bursts", u64, "bursts of lines the regex left out") \
	X(FRAME_REGEX_NOTE, "frame_regex_note", str, "what the regex left out") \
	X(FRAME_MARKERS_DROPPED, "frame_markers_dropped", u64, \
	  "markers dropped as they arrived") \
	X(FRAME_NOTE, "frame_note", str, "how many markers were dropped for each reason") \
	X(FRAME_TIME_FROM, "frame_time_from", str, \
	  "regex group: frame lengths the workload printed") \
	/* prof record */ \
	X(SAMPLED_EVENTS, "sampled_events", str, "the events sampled") \
	X(CALL_GRAPH, "call_graph", str, "the call graph, as --call-graph names it") \
	X(FREQ, "freq", i64, "samples a second asked for") \
	X(PERIOD, "period", i64, "events a sample asked for") \
	X(T0_NS, "t0_ns", u64, "the launch, CLOCK_MONOTONIC nanoseconds") \
	X(STACK_BYTES, "stack_bytes", i64, "user stack bytes a dwarf sample copies") \
	X(UNWIND_STOPS_EARLY, "unwind_stops_early", u64, "dwarf unwinds that stopped early") \
	/* prof screen */ \
	X(SCREEN_SCENE, "screen.scene", str, "the scene") \
	X(SCREEN_WINDOW_S, "screen.window_s", f64g, "the scene's seconds") \
	X(SCREEN_VERDICT, "screen.verdict", str, "the scene's verdict") \
	X(SCREEN_WHY, "screen.why", str, "why that verdict") \
	/* prof pressure: the co-runner */ \
	X(CORUNNER_CPU, "corunner.cpu", i64, "the co-runner's CPU") \
	X(CORUNNER_BYTES, "corunner.bytes", u64, "the co-runner's buffer") \
	X(CORUNNER_LINES, "corunner.lines", u64, "cache lines it touched") \
	X(CORUNNER_PASSES, "corunner.passes", u64, "passes over its buffer") \
	X(CORUNNER_NS_PER_LINE, "corunner.ns_per_line", f64_4, "its nanoseconds a line") \
	X(CORUNNER_DUTY, "corunner.duty", f64_4, "the share of the run it ran") \
	X(CORUNNER_HELD_BYTES, "corunner.held_bytes", f64_0, "the cache bytes it held")

enum db_setting_type {
	DB_SETTING_str, DB_SETTING_flag, DB_SETTING_yesno, DB_SETTING_u64,
	DB_SETTING_i64, DB_SETTING_f64g, DB_SETTING_f64_0, DB_SETTING_f64_4,
	DB_SETTING_f64_6,
};

enum db_setting_id {
#define DB_SETTING_ID(id, name, type, doc) DB_SET_##id,
	DB_SETTINGS(DB_SETTING_ID)
#undef DB_SETTING_ID
	DB_NSETTINGS
};

struct db_setting_info {
	const char *name;	/* as stored */
	enum db_setting_type type;
	const char *doc;
};

/* Indexed by enum db_setting_id. */
extern const struct db_setting_info db_settings[DB_NSETTINGS];

/* The key types: one a value type (the four floats share one). */
struct db_setting_str { enum db_setting_id id; };
struct db_setting_flag { enum db_setting_id id; };
struct db_setting_yesno { enum db_setting_id id; };
struct db_setting_u64 { enum db_setting_id id; };
struct db_setting_i64 { enum db_setting_id id; };
struct db_setting_f64 { enum db_setting_id id; };

#define DB_SETTING_KEY_str db_setting_str
#define DB_SETTING_KEY_flag db_setting_flag
#define DB_SETTING_KEY_yesno db_setting_yesno
#define DB_SETTING_KEY_u64 db_setting_u64
#define DB_SETTING_KEY_i64 db_setting_i64
#define DB_SETTING_KEY_f64g db_setting_f64
#define DB_SETTING_KEY_f64_0 db_setting_f64
#define DB_SETTING_KEY_f64_4 db_setting_f64
#define DB_SETTING_KEY_f64_6 db_setting_f64

/* SET_EVENTS, SET_T0_NS, ...: the keys. */
#define DB_SETTING_DECL(id, name, type, doc) \
	extern const struct DB_SETTING_KEY_##type SET_##id;
DB_SETTINGS(DB_SETTING_DECL)
#undef DB_SETTING_DECL

/*
 * The setters: 0, or -ENOMEM as db_run_set_dynamic (the setting is not
 * kept and the run is marked unstorable). Each replaces the key's value.
 * db_set_str stores value NULL as a NULL value.
 */
int db_set_str(struct db_run *run, struct db_setting_str key, const char *value);
int db_set_flag(struct db_run *run, struct db_setting_flag key);
int db_set_yesno(struct db_run *run, struct db_setting_yesno key, bool yes);
int db_set_u64(struct db_run *run, struct db_setting_u64 key, uint64_t v);
int db_set_i64(struct db_run *run, struct db_setting_i64 key, int64_t v);
/* In the key's own format (%g, %.0f, %.4f or %.6f). */
int db_set_f64(struct db_run *run, struct db_setting_f64 key, double v);

/* Store text as given under a key of any type: for a fixture that
 * writes what some older prof stored. Prof's own writers use the typed
 * setters. 0 or -ENOMEM, as they. */
int db_setting_set_text_id(struct db_run *run, enum db_setting_id id, const char *text);
#define db_set_text(run, key, text) db_setting_set_text_id((run), (key).id, (text))

/* The stored text of a str key, or NULL. */
const char *db_get_str(const struct db_run *run, struct db_setting_str key);
/* Whether a flag is set. */
bool db_get_flag(const struct db_run *run, struct db_setting_flag key);
/* A number key's value: false (and *v 0) when absent or not a number. */
bool db_get_u64(const struct db_run *run, struct db_setting_u64 key, uint64_t *v);
bool db_get_f64(const struct db_run *run, struct db_setting_f64 key, double *v);

/* The stored text of any key, or NULL: for a report that shows it as
 * stored. A string literal is no key (it has no .id): a compile error. */
const char *db_setting_text_id(const struct db_run *run, enum db_setting_id id);
#define db_get_text(run, key) db_setting_text_id((run), (key).id)
/* The same over a plain list of run settings (struct db_exp_run's). */
#define db_kv_setting(kv, n, key) db_kv_get((kv), (n), db_settings[(key).id].name)

#endif
