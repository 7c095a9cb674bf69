/*
 * runs: the stored shape of a run and its storage. A run is a command (or
 * an attached process) with its host, its settings, the events asked for
 * and whether each was supported, one row per thread and one count per
 * (thread, event). These plain structs are what reports/ reads.
 *
 * A run also lists its code modules and, when it measured one, its
 * touched working set by kind of memory; the changes of the machine's
 * own counters over it, and the machine's settings at its start.
 *
 * db_run_store writes a run in one transaction, so a prof killed halfway
 * leaves no half run. Loading fills a caller-owned struct db_run that
 * db_run_release frees. Not thread-safe.
 */
#ifndef DB_RUNS_H
#define DB_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "db/settings.h"
#include "db/topology.h"

struct db_host {
	int64_t id;
	char *hostname;
	char *kernel;
	char *cpu_model;
	int online_cpus;
};

/* One count: raw kernel value and its multiplexing times. */
struct db_count {
	uint64_t value, enabled, running;
	bool present;		/* false: nothing arrived for this event */
};

enum db_count_state { COUNT_OK, COUNT_SCALED, COUNT_NOT_COUNTED, COUNT_ABSENT };

struct db_event {
	char *name;		/* as the user wrote it: the report key */
	char *canonical;
	bool supported;
	char *reason;		/* why not supported, or a note */
	int group;		/* hardware group (1..); 0: software, alone */
	bool user_only;
	uint32_t attr_type;
	uint64_t attr_config, attr_config1, attr_config2;
	bool exclude_user, exclude_kernel, exclude_hv;
	struct db_count total;
	/* A mission counter (llc-misses, ...): the family whose mission map
	 * chose the event ("AMD Zen 4", or "generic (perf)" for perf's
	 * stand-in), the event as perf's table names it, and what it stood
	 * for. All NULL for any other event. */
	char *mission_family;
	char *mission_event;
	char *mission_note;
};

struct db_thread {
	int32_t tid;
	int32_t pid;		/* its process (the kernel's tgid) */
	int32_t ppid;		/* that process's parent; 0: unknown */
	char *name;
	bool is_main;
	int64_t start_ns, end_ns;	/* CLOCK_MONOTONIC; 0 unknown */
	struct db_count *counts;	/* one per event */
	/* A run on more than one core PMU (db_run.ncore_pmus): the event's
	 * count on each, [pmu * nevents + event]; a software event is not
	 * per PMU and has none. NULL otherwise. counts[] is the total. */
	struct db_count *pmu_counts;
};

struct db_pin {
	char *mode;		/* as asked: "none", "largest-llc", "cpus:0-3" */
	char *status;		/* "applied" or "skipped: <reason>" */
	char *cpus;		/* CPU list in force, e.g. "0-5,12-17" */
	int level;		/* cache level of the domain, 0 when none */
	char *cache_type;	/* "Unified", ... or NULL */
	uint64_t size_bytes;	/* domain size, 0 when none */
};

/*
 * One code module of a run (see collectors/modules.h). Optional numbers
 * carry a has_ flag: false stores and loads as NULL.
 */
struct db_module {
	char *path;
	char *kind;		/* "file" or "anon" */
	char *build_id;		/* lowercase hex, NULL when unknown */
	uint64_t exec_bytes;	/* mapped executable bytes */
	uint32_t nprocs;	/* processes that mapped it */
	bool has_text, has_exec_sections, has_touched;
	uint64_t text_bytes;
	uint64_t exec_section_bytes;
	uint64_t touched_bytes;	/* pages the faults mapped: an upper bound */
	uint64_t faulted_bytes;	/* the faulting pages: a lower bound */
	uint64_t faults;
	bool touched_replayed;	/* touched_bytes from replaying the faults
				 * (else one fault-around window per fault) */
	char *error;		/* why the file's sizes are unknown, or NULL */
};

/* Touched memory of one kind: "code", "heap", "stack", "anon", "file",
 * "other" (a --working-set run has one row per kind). */
struct db_ws {
	char *kind;
	uint64_t touched_bytes, faulted_bytes, faults;
};

/* prof run -I: one thread's counter deltas over one interval of wall
 * time (its start t_ms after the workload started). */
struct db_interval {
	int64_t t_ms;
	int32_t tid;
	char *name;
	int64_t *values;	/* one per event of the run; -1: not read */
};

/* prof run --frame-regex, prof_frame(): one frame, its start after the
 * workload started and its length (setting "frame_source"). */
struct db_frame_span {
	int64_t t_ns, dur_ns;
};

/* A thread name's counter delta over one frame (the sum over the
 * threads of that name). A run of a million frames has millions of
 * these: 24 bytes each, the name borrowed from the run's frame_names. */
struct db_frame_count {
	const char *name;	/* one of the run's frame_names */
	int64_t value;
	uint32_t frame;		/* index into frames */
	uint32_t event;		/* index into events */
};

struct db_kv {
	char *key, *value;
};

/* A change of one of the machine's own counters over a run. */
struct db_sysval {
	char *name;		/* "vmstat.pgfault", "stat.cpu1.steal_ms", ... */
	int64_t delta;
};

/* The value of key among kv[0..n-1], or NULL. */
const char *db_kv_get(const struct db_kv *kv, size_t n, const char *key);
/* The delta of the counter name among v[0..n-1]: false (and *delta 0)
 * when it is not there (prof keeps only the counters that moved). */
bool db_sysval_get(const struct db_sysval *v, size_t n, const char *name,
		   int64_t *delta);

struct db_sleep_usage;	/* db/sleep.h: what the sleep interposer saw */

struct db_run {
	int64_t id;
	char *kind;		/* "run", "attach", "sleep", "record" */
	char *started;		/* ISO 8601, UTC */
	char *command;		/* for display */
	char **argv;		/* argc entries, NULL-terminated */
	int argc;
	char *cwd;
	int32_t pid;
	int exit_status;	/* as prof exits: code or 128+signal */
	int term_signal;
	bool interrupted;
	double wall_s, user_s, sys_s;
	uint64_t lost_records;
	int paranoid;
	char *prof_version;
	char *note;
	struct db_host host;
	struct db_pin pin;
	size_t nsettings;
	struct db_kv *settings;
	bool settings_lost;	/* a setter ran out of memory: not stored */
	size_t nevents;
	struct db_event *events;
	size_t nthreads;
	struct db_thread *threads;
	/* The core PMUs each hardware event was counted on apart, by type
	 * ("cpu_core", "cpu_atom"), where there were more than one (setting
	 * counted_per_pmu, table pmu_counts); else 0. Owned. */
	size_t ncore_pmus;
	char **core_pmus;
	/* The host's topology, stored once per host with the first run that
	 * carries it (may be NULL; not filled by db_run_load). Owned. */
	struct db_topology *topology;
	/* Or, where topology is NULL, what makes it: called by the store
	 * (in its transaction) only when the host has none stored yet; what
	 * it returns becomes topology. NULL: none. */
	struct db_topology *(*topology_fn)(void *arg);
	void *topology_arg;
	/* With --sleep-mode: the interposer's settings and per-thread
	 * report (NULL otherwise). Owned; stored and loaded with the run. */
	struct db_sleep_usage *sleep_usage;
	size_t nmodules;	/* largest first, as stored */
	struct db_module *modules;
	size_t nws;		/* 0: not a working-set run */
	struct db_ws *ws;
	/* prof run -I: by thread, then time (setting "interval_ms"). */
	size_t nintervals;
	struct db_interval *intervals;
	/* What the whole machine did meanwhile: the counters that moved
	 * (collectors/sysdelta.h names them); 0 for runs stored before. */
	size_t nsystem;
	struct db_sysval *system;
	/* The machine's settings at the start (collectors/runenv.h's keys,
	 * in its order); 0 for runs stored before. */
	size_t nenv;
	struct db_kv *env;
	/* Frames, in order, and their counts by frame, name and event. */
	size_t nframes;
	struct db_frame_span *frames;
	size_t nframe_counts;
	struct db_frame_count *frame_counts;
	/* The thread names the frame counts point to, owned (a name may
	 * be here more than once). */
	size_t nframe_names;
	char **frame_names;
};

struct db_run_summary {
	int64_t id;
	char *kind;
	char *started;
	char *command;
	int exit_status;
	bool interrupted;
	double wall_s;
	size_t nthreads;
	char *hostname;
	int64_t experiment_id;	/* the `prof ab` experiment it ran in; 0: none */
	char *arm;		/* and the name of its arm; NULL: none */
	char *tag;		/* prof run --tag; NULL: none */
};

/* The id of the host with these facts, creating its row when new. */
int64_t db_host_id(struct db *db, const struct db_host *host, char **cause);

/* Store run (its id is set on success) in one transaction. */
int db_run_store(struct db *db, struct db_run *run, char **cause);

/* Load run id (id <= 0: the newest). -ENOENT with a cause when absent. */
int db_run_load(struct db *db, int64_t id, struct db_run *out, char **cause);
void db_run_release(struct db_run *run);

/* Newest last. */
int db_runs_list(struct db *db, struct db_run_summary **out, size_t *n,
		 char **cause);
void db_runs_list_free(struct db_run_summary *list, size_t n);

/*
 * Set a setting (copies both strings); replaces an existing key. 0, or
 * -ENOMEM: the setting is not kept, and the run remembers it so that
 * db_run_store refuses it (saying so) rather than store it without.
 *
 * Settings with a fixed name go through db/settings.h's typed table
 * (db_set_u64(run, SET_T0_NS, v), ...). These two are for the keys that
 * table cannot hold: names built at run time (frames_<source>, one per
 * frame source) and the rows a database hands back on load, whatever
 * their names.
 */
int db_run_set_dynamic(struct db_run *run, const char *key, const char *value);
const char *db_run_get_dynamic(const struct db_run *run, const char *key);
/* The first supported event of the run with this perf_event_attr type
 * and config, whatever it was called (task-clock, context-switches), or
 * -1. */
long db_run_event_by_attr(const struct db_run *run, uint32_t type, uint64_t config);
/*
 * Whether the run was found complete: 1 yes, 0 no (*reasons, borrowed,
 * one reason a line), -1 unknown (stored before prof checked).
 */
int db_run_complete(const struct db_run *run, const char **reasons);

/* The value a report shows: scaled by enabled/running when multiplexed.
 * Returns the state; *out is set for OK and SCALED. */
enum db_count_state db_count_scaled(const struct db_count *c, double *out);

#endif
