/*
 * schema: every migration, oldest first. Never edit a migration that has
 * shipped; add the next one. docs/schema.md documents the tables.
 */
#include "db/schema.h"

/* One row per (run, thread, event), scaled, for the sqlite3 shell: made by
 * v1, and made again by v21 over the view that replaced its table. */
#define THREAD_COUNTS_VIEW \
	"CREATE VIEW thread_counts AS" \
	"  SELECT t.run_id AS run_id, t.tid AS tid, t.name AS thread," \
	"         t.is_main AS is_main, e.name AS event, c.value AS raw_value," \
	"         c.time_enabled AS time_enabled, c.time_running AS time_running," \
	"         CASE WHEN c.time_running = 0 THEN NULL" \
	"              WHEN c.time_running < c.time_enabled" \
	"                THEN c.value * 1.0 * c.time_enabled / c.time_running" \
	"              ELSE c.value END AS value," \
	"         CASE WHEN c.time_enabled = 0 THEN NULL" \
	"              ELSE 100.0 * c.time_running / c.time_enabled END AS running_pct" \
	"  FROM counts c" \
	"  JOIN threads t ON t.id = c.thread_id" \
	"  JOIN events e ON e.run_id = t.run_id AND e.idx = c.event_idx;"

static const char *const migrations[] = {
	/* v1: hosts, runs, events, threads and per-thread counts. */
	"CREATE TABLE hosts ("
	"  id INTEGER PRIMARY KEY,"
	"  hostname TEXT NOT NULL,"
	"  kernel TEXT NOT NULL,"
	"  cpu_model TEXT NOT NULL,"
	"  online_cpus INTEGER NOT NULL,"
	"  first_seen TEXT NOT NULL,"
	"  UNIQUE (hostname, kernel, cpu_model, online_cpus)"
	");"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  host_id INTEGER NOT NULL REFERENCES hosts(id),"
	"  kind TEXT NOT NULL DEFAULT 'run',"
	"  started TEXT NOT NULL,"
	"  command TEXT NOT NULL,"
	"  argv BLOB,"
	"  cwd TEXT,"
	"  pid INTEGER,"
	"  exit_status INTEGER,"
	"  term_signal INTEGER NOT NULL DEFAULT 0,"
	"  interrupted INTEGER NOT NULL DEFAULT 0,"
	"  wall_s REAL,"
	"  user_s REAL,"
	"  sys_s REAL,"
	"  lost_records INTEGER NOT NULL DEFAULT 0,"
	"  paranoid INTEGER,"
	"  prof_version TEXT,"
	"  pin_mode TEXT,"
	"  pin_status TEXT,"
	"  pin_cpus TEXT,"
	"  pin_level INTEGER,"
	"  pin_cache_type TEXT,"
	"  pin_size_bytes INTEGER,"
	"  note TEXT"
	");"
	"CREATE TABLE run_settings ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  key TEXT NOT NULL,"
	"  value TEXT,"
	"  PRIMARY KEY (run_id, key)"
	") WITHOUT ROWID;"
	"CREATE TABLE events ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  canonical TEXT,"
	"  supported INTEGER NOT NULL,"
	"  reason TEXT,"
	"  grp INTEGER NOT NULL DEFAULT 0,"
	"  user_only INTEGER NOT NULL DEFAULT 0,"
	"  attr_type INTEGER,"
	"  attr_config INTEGER,"
	"  attr_config1 INTEGER,"
	"  attr_config2 INTEGER,"
	"  exclude_user INTEGER,"
	"  exclude_kernel INTEGER,"
	"  exclude_hv INTEGER,"
	"  value INTEGER,"
	"  time_enabled INTEGER,"
	"  time_running INTEGER,"
	"  PRIMARY KEY (run_id, idx)"
	") WITHOUT ROWID;"
	"CREATE TABLE threads ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  tid INTEGER NOT NULL,"
	"  pid INTEGER,"
	"  name TEXT,"
	"  is_main INTEGER NOT NULL DEFAULT 0,"
	"  start_ns INTEGER,"
	"  end_ns INTEGER"
	");"
	"CREATE INDEX threads_by_run ON threads(run_id, seq);"
	"CREATE TABLE counts ("
	"  thread_id INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,"
	"  event_idx INTEGER NOT NULL,"
	"  value INTEGER NOT NULL,"
	"  time_enabled INTEGER NOT NULL,"
	"  time_running INTEGER NOT NULL,"
	"  PRIMARY KEY (thread_id, event_idx)"
	") WITHOUT ROWID;"
	THREAD_COUNTS_VIEW,

	/* v2: each host's topology, stored once: cache domains, clusters,
	 * SMT siblings, packages and NUMA nodes, as rows of one table. */
	"CREATE TABLE host_topology ("
	"  host_id INTEGER NOT NULL REFERENCES hosts(id) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL,"		/* cache, cluster, smt, package, node, info */
	"  idx INTEGER NOT NULL,"
	"  level INTEGER,"
	"  type TEXT,"
	"  size_bytes INTEGER,"
	"  cpus TEXT,"
	"  number INTEGER,"
	"  text TEXT,"
	"  PRIMARY KEY (host_id, kind, idx)"
	") WITHOUT ROWID;",

	/* v3: A/B experiments: arms, settings, and each run's place. */
	"CREATE TABLE experiments ("
	"  id INTEGER PRIMARY KEY,"
	"  host_id INTEGER REFERENCES hosts(id),"
	"  started TEXT NOT NULL,"
	"  finished TEXT,"
	"  status TEXT NOT NULL DEFAULT 'running',"
	"  note TEXT,"
	"  order_scheme TEXT NOT NULL,"
	"  seed INTEGER,"
	"  rounds INTEGER NOT NULL,"
	"  warmup INTEGER NOT NULL,"
	"  settle_s REAL NOT NULL DEFAULT 0,"
	"  gate_pct REAL,"
	"  aa INTEGER NOT NULL DEFAULT 0,"
	"  keep_going INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE TABLE experiment_settings ("
	"  experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  key TEXT NOT NULL,"
	"  value TEXT,"
	"  PRIMARY KEY (experiment_id, seq)"
	") WITHOUT ROWID;"
	"CREATE TABLE arms ("
	"  experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  command TEXT NOT NULL,"
	"  argv BLOB,"
	"  PRIMARY KEY (experiment_id, idx)"
	") WITHOUT ROWID;"
	"CREATE TABLE arm_settings ("
	"  experiment_id INTEGER NOT NULL,"
	"  arm_idx INTEGER NOT NULL,"
	"  key TEXT NOT NULL,"
	"  value TEXT,"
	"  PRIMARY KEY (experiment_id, arm_idx, key),"
	"  FOREIGN KEY (experiment_id, arm_idx) REFERENCES arms(experiment_id, idx)"
	"    ON DELETE CASCADE"
	") WITHOUT ROWID;"
	"CREATE TABLE experiment_runs ("
	"  experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
	"  run_id INTEGER NOT NULL UNIQUE REFERENCES runs(id) ON DELETE CASCADE,"
	"  arm_idx INTEGER NOT NULL,"
	"  round INTEGER NOT NULL,"
	"  position INTEGER NOT NULL,"
	"  warmup INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (experiment_id, run_id)"
	") WITHOUT ROWID;"
	"CREATE TABLE run_scores ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  value REAL,"
	"  found INTEGER NOT NULL,"
	"  PRIMARY KEY (run_id, name)"
	") WITHOUT ROWID;",

	/* v4: a run's code modules and, for --working-set, touched memory. */
	"CREATE TABLE modules ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  path TEXT NOT NULL,"
	"  kind TEXT NOT NULL CHECK (kind IN ('file', 'anon')),"
	"  build_id TEXT,"
	"  exec_bytes INTEGER NOT NULL,"
	"  text_bytes INTEGER,"
	"  exec_section_bytes INTEGER,"
	"  touched_bytes INTEGER,"
	"  faulted_bytes INTEGER,"
	"  faults INTEGER,"
	"  touched_replayed INTEGER,"
	"  nprocs INTEGER NOT NULL DEFAULT 1,"
	"  error TEXT,"
	"  PRIMARY KEY (run_id, idx)"
	") WITHOUT ROWID;"
	"CREATE TABLE working_set ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  kind TEXT NOT NULL,"
	"  touched_bytes INTEGER NOT NULL,"
	"  faulted_bytes INTEGER NOT NULL,"
	"  faults INTEGER NOT NULL,"
	"  PRIMARY KEY (run_id, kind)"
	") WITHOUT ROWID;",

	/* v5: `prof sleep` runs: the facts behind the numbers, one row per
	 * run, and one row per (mode, duration) cell. */
	"CREATE TABLE sleep_runs ("
	"  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
	"  timer_slack_ns INTEGER NOT NULL,"
	"  sched_policy TEXT NOT NULL,"
	"  clocksource TEXT NOT NULL,"
	"  pattern TEXT NOT NULL,"
	"  calls INTEGER NOT NULL,"
	"  threads INTEGER NOT NULL,"
	"  load_threads INTEGER NOT NULL,"
	"  hybrid_margin_ns INTEGER,"
	"  hybrid_calibrated INTEGER NOT NULL DEFAULT 0,"
	"  calibration_p999_ns INTEGER,"
	"  calibration_guard_ns INTEGER,"
	"  cheap_p99_us REAL NOT NULL"
	");"
	"CREATE TABLE sleep_cells ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  mode TEXT NOT NULL,"
	"  margin_ns INTEGER,"
	"  target_us INTEGER NOT NULL,"
	"  calls INTEGER NOT NULL,"
	"  p50_ns INTEGER NOT NULL,"
	"  p90_ns INTEGER NOT NULL,"
	"  p99_ns INTEGER NOT NULL,"
	"  p999_ns INTEGER NOT NULL,"
	"  max_ns INTEGER NOT NULL,"
	"  min_ns INTEGER NOT NULL,"
	"  mean_ns REAL NOT NULL,"
	"  early INTEGER NOT NULL,"
	"  lt3 INTEGER NOT NULL,"
	"  lt10 INTEGER NOT NULL,"
	"  lt25 INTEGER NOT NULL,"
	"  lt50 INTEGER NOT NULL,"
	"  ge50 INTEGER NOT NULL,"
	"  missed INTEGER NOT NULL DEFAULT 0,"
	"  wall_s REAL NOT NULL,"
	"  cpu_s REAL NOT NULL,"
	"  cpu_pct REAL NOT NULL,"
	"  cpu_us_per_call REAL NOT NULL,"
	"  vcsw_per_call REAL NOT NULL,"
	"  ivcsw_per_call REAL NOT NULL,"
	"  cheapest INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (run_id, idx)"
	") WITHOUT ROWID;",

	/* v6: what the sleep interposer saw in a --sleep-mode run. */
	"CREATE TABLE sleep_usage ("
	"  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
	"  mode TEXT NOT NULL,"
	"  threshold_us INTEGER NOT NULL,"
	"  max_spinners INTEGER NOT NULL,"
	"  status TEXT NOT NULL,"
	"  processes INTEGER NOT NULL,"
	"  error TEXT"
	");"
	"CREATE TABLE sleep_threads ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  tid INTEGER NOT NULL,"
	"  pid INTEGER NOT NULL,"
	"  name TEXT,"
	"  served INTEGER NOT NULL,"
	"  passed INTEGER NOT NULL,"
	"  eintr INTEGER NOT NULL,"
	"  early INTEGER NOT NULL,"
	"  throttled INTEGER NOT NULL,"
	"  p50_ns INTEGER, p90_ns INTEGER, p99_ns INTEGER, p999_ns INTEGER,"
	"  max_ns INTEGER, mean_ns REAL,"
	"  req_hist TEXT,"
	"  PRIMARY KEY (run_id, seq)"
	") WITHOUT ROWID;",

	/* v7: sampled runs (prof record): the sampled events, the call-stack
	 * tree (modules, symbols, frames, nodes) and the samples. */
	"CREATE TABLE sample_events ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  attr_type INTEGER,"
	"  attr_config INTEGER,"
	"  period INTEGER,"
	"  freq INTEGER,"
	"  call_graph TEXT NOT NULL,"
	"  stack_bytes INTEGER,"
	"  samples INTEGER NOT NULL,"
	"  weight INTEGER NOT NULL,"
	"  lost INTEGER NOT NULL DEFAULT 0,"
	"  dropped INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (run_id, idx)"
	") WITHOUT ROWID;"
	"CREATE TABLE sample_modules ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL,"
	"  path TEXT NOT NULL,"
	"  build_id TEXT,"
	"  PRIMARY KEY (run_id, id)"
	") WITHOUT ROWID;"
	"CREATE TABLE sample_symbols ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL,"
	"  module_id INTEGER NOT NULL,"
	"  name TEXT,"
	"  PRIMARY KEY (run_id, id)"
	") WITHOUT ROWID;"
	"CREATE TABLE sample_frames ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL,"
	"  symbol_id INTEGER NOT NULL,"
	"  offset INTEGER NOT NULL,"
	"  PRIMARY KEY (run_id, id)"
	") WITHOUT ROWID;"
	"CREATE TABLE sample_stacks ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  id INTEGER NOT NULL,"
	"  parent_id INTEGER NOT NULL,"
	"  frame_id INTEGER NOT NULL,"
	"  PRIMARY KEY (run_id, id)"
	") WITHOUT ROWID;"
	"CREATE TABLE samples ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  thread_id INTEGER,"
	"  time INTEGER NOT NULL,"
	"  cpu INTEGER,"
	"  event_idx INTEGER NOT NULL,"
	"  weight INTEGER NOT NULL,"
	"  stack_id INTEGER NOT NULL,"
	"  PRIMARY KEY (run_id, seq)"
	") WITHOUT ROWID;"
	/* Each frame with its module and symbol, for the sqlite3 shell. */
	"CREATE VIEW sample_frame_names AS"
	"  SELECT f.run_id AS run_id, f.id AS frame_id, m.path AS module,"
	"         coalesce(y.name, '[unknown]') AS symbol, f.offset AS offset"
	"  FROM sample_frames f"
	"  JOIN sample_symbols y ON y.run_id = f.run_id AND y.id = f.symbol_id"
	"  JOIN sample_modules m ON m.run_id = f.run_id AND m.id = y.module_id;",

	/* v8: what stood behind a mission counter (llc-misses, ...): the
	 * family whose mission map chose the event, the event as perf's table
	 * names it, and what it counted. NULL for every other event and for
	 * runs stored before. */
	"ALTER TABLE events ADD COLUMN mission_family TEXT;"
	"ALTER TABLE events ADD COLUMN mission_event TEXT;"
	"ALTER TABLE events ADD COLUMN mission_note TEXT;",

	/* v9: each thread's process's parent (threads.pid is the process),
	 * so a process tree can be rebuilt. NULL where unknown and for runs
	 * stored before. */
	"ALTER TABLE threads ADD COLUMN ppid INTEGER;",

	/* v10: `prof probe` runs: the cache sizes sysfs gave for the CPU it
	 * ran on, its latency curve, and the counted benchmarks. */
	"CREATE TABLE probe_runs ("
	"  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
	"  cpu INTEGER,"
	"  l1d_bytes INTEGER,"
	"  l1i_bytes INTEGER,"
	"  l2_bytes INTEGER,"
	"  llc_bytes INTEGER,"
	"  llc_level INTEGER,"
	"  ms_per_size REAL NOT NULL,"
	"  seed INTEGER NOT NULL,"
	"  family TEXT"
	");"
	"CREATE TABLE probe_latency ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  bytes INTEGER NOT NULL,"
	"  ns REAL NOT NULL,"
	"  steps INTEGER NOT NULL,"
	"  huge_bytes INTEGER NOT NULL,"
	"  PRIMARY KEY (run_id, idx)"
	") WITHOUT ROWID;"
	"CREATE TABLE probe_counters ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  event TEXT,"
	"  bench TEXT NOT NULL,"
	"  ran INTEGER NOT NULL,"
	"  expected REAL NOT NULL,"
	"  value INTEGER,"
	"  time_enabled INTEGER,"
	"  time_running INTEGER,"
	"  grade TEXT NOT NULL,"
	"  reason TEXT,"
	"  PRIMARY KEY (run_id, idx)"
	") WITHOUT ROWID;",

	/* v11: prof run -I: each thread's counter deltas per interval of
	 * wall time, one row per (interval, thread, event read). */
	"CREATE TABLE intervals ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  t_ms INTEGER NOT NULL,"
	"  tid INTEGER NOT NULL,"
	"  name TEXT,"
	"  event_idx INTEGER NOT NULL,"
	"  value INTEGER NOT NULL,"
	"  PRIMARY KEY (run_id, seq, event_idx)"
	") WITHOUT ROWID;",

	/* v12: what the whole machine did during a run: the change of each
	 * of its own counters (/proc/vmstat, /proc/stat, /proc/interrupts,
	 * /proc/schedstat) that moved, by source-qualified name. */
	"CREATE TABLE run_system ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  delta INTEGER NOT NULL,"
	"  PRIMARY KEY (run_id, idx),"
	"  UNIQUE (run_id, name)"
	") WITHOUT ROWID;",

	/* v13: the machine's settings at the start of a run (governor, THP,
	 * SMT, mitigations, ...), so two runs can be told apart by them. */
	"CREATE TABLE run_env ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  key TEXT NOT NULL,"
	"  value TEXT NOT NULL,"
	"  PRIMARY KEY (run_id, idx)"
	") WITHOUT ROWID;",

	/* v14: where a sampled frame is in the source, from the module's
	 * DWARF when prof record found some: the file and line, and one a
	 * line the innermost function there (an inlined one where the
	 * compiler inlined it), then the inlined functions, outermost
	 * first. NULL where unknown, and for runs stored before. */
	"ALTER TABLE sample_frames ADD COLUMN src_file TEXT;"
	"ALTER TABLE sample_frames ADD COLUMN src_line INTEGER;"
	"ALTER TABLE sample_frames ADD COLUMN src_functions TEXT;",

	/* v15: frames (prof run --frame-regex, prof_frame() markers) and
	 * each thread name's counter deltas per frame. */
	"CREATE TABLE frames ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  t_ns INTEGER NOT NULL,"
	"  dur_ns INTEGER NOT NULL,"
	"  PRIMARY KEY (run_id, idx)"
	") WITHOUT ROWID;"
	"CREATE TABLE frame_counts ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  frame_idx INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  event_idx INTEGER NOT NULL,"
	"  value INTEGER NOT NULL,"
	"  PRIMARY KEY (run_id, frame_idx, name, event_idx)"
	") WITHOUT ROWID;",

	/* v16: the sleep interposer's fallbacks (calls a timerfd could not
	 * serve, waited by clock_nanosleep instead: how many, the last
	 * errno, their own overshoot), and whether max_spinners was the
	 * default cap and of how many CPUs. Runs stored before read 0 and
	 * NULL: their interposer did not count fallbacks. */
	"ALTER TABLE sleep_threads ADD COLUMN fallback INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE sleep_threads ADD COLUMN fallback_errno INTEGER;"
	"ALTER TABLE sleep_threads ADD COLUMN fallback_max_ns INTEGER;"
	"ALTER TABLE sleep_threads ADD COLUMN fallback_mean_ns REAL;"
	"ALTER TABLE sleep_usage ADD COLUMN spinners_default INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE sleep_usage ADD COLUMN ncpus INTEGER;"
	/* and prof sleep's CPU per call split into user and system time */
	"ALTER TABLE sleep_cells ADD COLUMN user_us_per_call REAL;"
	"ALTER TABLE sleep_cells ADD COLUMN sys_us_per_call REAL;",

	/* v17: an experiment's kind: `ab` (prof ab), or `pressure` (prof
	 * pressure: its arms are the steps and controls of a cache-pressure
	 * curve, and each run's co-runner is in its run_settings). */
	"ALTER TABLE experiments ADD COLUMN kind TEXT NOT NULL DEFAULT 'ab';",

	/* v18: the condvar timed waits the sleep interposer saw
	 * (pthread_cond_timedwait, pthread_cond_clockwait), counted apart
	 * from the sleeps: how short ones were served, and per thread the
	 * served and passed waits, how the served ones returned, and the
	 * overshoot of those that timed out. Runs stored before read NULL
	 * and 0: their interposer left condvar waits alone. */
	"ALTER TABLE sleep_usage ADD COLUMN cv_served_by TEXT;"
	"ALTER TABLE sleep_threads ADD COLUMN cv_served INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE sleep_threads ADD COLUMN cv_passed INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE sleep_threads ADD COLUMN cv_woken INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE sleep_threads ADD COLUMN cv_timedout INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE sleep_threads ADD COLUMN cv_early INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE sleep_threads ADD COLUMN cv_p50_ns INTEGER;"
	"ALTER TABLE sleep_threads ADD COLUMN cv_p90_ns INTEGER;"
	"ALTER TABLE sleep_threads ADD COLUMN cv_p99_ns INTEGER;"
	"ALTER TABLE sleep_threads ADD COLUMN cv_p999_ns INTEGER;"
	"ALTER TABLE sleep_threads ADD COLUMN cv_max_ns INTEGER;"
	"ALTER TABLE sleep_threads ADD COLUMN cv_mean_ns REAL;",

	/* v19: `prof probe` repeats each size: probe_latency.ns is then the
	 * median of the repetitions, and their spread is kept here, one row
	 * per repeated size. Probes stored before have no rows (one
	 * measurement a size). */
	"CREATE TABLE probe_spread ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  reps INTEGER NOT NULL,"
	"  ns_min REAL NOT NULL,"
	"  ns_q1 REAL NOT NULL,"
	"  ns_q3 REAL NOT NULL,"
	"  ns_max REAL NOT NULL,"
	"  PRIMARY KEY (run_id, idx)"
	") WITHOUT ROWID;",

	/* v20: a run on more than one core PMU (Intel hybrid, arm
	 * big.LITTLE) counted each hardware event on each: a thread's count
	 * of the event per core PMU, beside its total in counts. Only such
	 * runs have rows; the run setting counted_per_pmu names the PMUs. */
	"CREATE TABLE pmu_counts ("
	"  thread_id INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,"
	"  pmu TEXT NOT NULL,"
	"  event_idx INTEGER NOT NULL,"
	"  value INTEGER NOT NULL,"
	"  time_enabled INTEGER NOT NULL,"
	"  time_running INTEGER NOT NULL,"
	"  PRIMARY KEY (thread_id, pmu, event_idx)"
	") WITHOUT ROWID;",

	/* v21: a thread's counts go in its own row, as the JSON array
	 * threads.counts: element i is event i's [value, time_enabled,
	 * time_running], null where none arrived. A run of 5,000 threads
	 * and 4 events is 5,000 rows to write, not 25,000. The view counts
	 * gives the rows of the table it replaces; thread_counts reads it.
	 * Each thread's array is as long as its run's events (an index the
	 * run has no event for was not loaded, and is dropped). */
	"DROP VIEW thread_counts;"
	"ALTER TABLE threads ADD COLUMN counts TEXT;"
	"UPDATE threads SET counts = ("
	"  SELECT json_group_array(json(CASE WHEN c.thread_id IS NULL THEN 'null'"
	"         ELSE json_array(c.value, c.time_enabled, c.time_running) END))"
	"  FROM (SELECT e.idx FROM events e WHERE e.run_id = threads.run_id"
	"        ORDER BY e.idx) ev"
	"  LEFT JOIN counts c ON c.thread_id = threads.id AND c.event_idx = ev.idx);"
	"DROP TABLE counts;"
	"CREATE VIEW counts AS"
	"  SELECT t.id AS thread_id, j.key AS event_idx,"
	"         json_extract(j.value, '$[0]') AS value,"
	"         json_extract(j.value, '$[1]') AS time_enabled,"
	"         json_extract(j.value, '$[2]') AS time_running"
	"  FROM threads t, json_each(t.counts) j"
	"  WHERE j.type <> 'null';"
	THREAD_COUNTS_VIEW,
};

size_t schema_migration_count(void)
{
	return sizeof(migrations) / sizeof(migrations[0]);
}

const char *schema_migration(int v)
{
	if (v < 0 || (size_t)v >= schema_migration_count())
		return "";
	return migrations[v];
}
