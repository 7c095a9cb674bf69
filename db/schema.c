/*
 * schema: every migration, oldest first. Never edit a migration that has
 * shipped; add the next one. docs/schema.md documents the tables.
 */
#include "db/schema.h"

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
	/* One row per (run, thread, event), scaled, for the sqlite3 shell. */
	"CREATE VIEW thread_counts AS"
	"  SELECT t.run_id AS run_id, t.tid AS tid, t.name AS thread,"
	"         t.is_main AS is_main, e.name AS event, c.value AS raw_value,"
	"         c.time_enabled AS time_enabled, c.time_running AS time_running,"
	"         CASE WHEN c.time_running = 0 THEN NULL"
	"              WHEN c.time_running < c.time_enabled"
	"                THEN c.value * 1.0 * c.time_enabled / c.time_running"
	"              ELSE c.value END AS value,"
	"         CASE WHEN c.time_enabled = 0 THEN NULL"
	"              ELSE 100.0 * c.time_running / c.time_enabled END AS running_pct"
	"  FROM counts c"
	"  JOIN threads t ON t.id = c.thread_id"
	"  JOIN events e ON e.run_id = t.run_id AND e.idx = c.event_idx;",

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
