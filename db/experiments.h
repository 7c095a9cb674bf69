/*
 * experiments: the stored shape of `prof ab`: an experiment (its arms,
 * settings, order scheme, seed, gate) and, for every run it made, which
 * arm, round and position it was, whether it was a warm-up, and the scores
 * parsed from its output. Each run is an ordinary stored run too, so any
 * table `prof ab` prints can be recomputed from the database alone.
 *
 * An experiment has a kind: "ab" (prof ab) or "pressure" (prof pressure,
 * whose arms are the steps of a cache-pressure curve; see
 * reports/pressure.h for the settings it keeps). Loading a run of an
 * experiment brings its run settings along (a pressure run's co-runner).
 *
 * A run is added in one transaction together with its link and scores,
 * so an interrupted experiment keeps every finished run whole.
 * Caller-owned structs; not thread-safe.
 */
#ifndef DB_EXPERIMENTS_H
#define DB_EXPERIMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "db/runs.h"

/* The bounds of `prof ab` (its --rounds and --warmup, and how many arms
 * it takes), which a stored experiment is checked against when it is
 * loaded; db_experiment_create refuses more arms, so what is stored
 * reads back. 4,096 arms: far above any real comparison; the analysis
 * is linear in them (prof compare of 4,000 arms: 63 MB for the table,
 * 360 MB for its 58 MB of JSON; issue 27). */
#define DB_EXP_ROUNDS_MAX 100000
#define DB_EXP_WARMUP_MAX 1000
#define DB_EXP_ARMS_MAX 4096

struct db_arm {
	char *name;
	char *command;		/* as given */
	char **argv;		/* split, NULL-terminated */
	int argc;
	struct db_kv *settings;	/* pin, cwd, sleep, env.VAR */
	size_t nsettings;
};

struct db_score {
	char *name;
	double value;
	bool found;		/* false: the output did not contain it */
};

/* One run of an experiment, with what the analysis needs of it. */
struct db_exp_run {
	int64_t run_id;
	int arm;		/* index into arms */
	int round;		/* 0-based; warm-ups have their own rounds */
	int position;		/* slot within the round, 0-based */
	bool warmup;
	int exit_status;
	bool interrupted;
	double wall_s, user_s, sys_s;
	size_t nevents;
	char **ev_names;
	bool *ev_supported;
	double *ev_values;	/* scaled totals; NAN when not counted */
	size_t nscores;
	struct db_score *scores;
	char *pin_mode, *pin_status, *pin_cpus;
	int pin_level;
	uint64_t pin_size_bytes;
	/* The machine's counters that moved during the run (run_system, as
	 * db_run's system); 0 for runs stored before prof kept them. */
	size_t nsystem;
	struct db_sysval *system;
	struct db_kv *settings;	/* the run's settings, by key */
	size_t nsettings;
};

/* The kinds of experiment. */
#define DB_EXP_KIND_AB "ab"
#define DB_EXP_KIND_PRESSURE "pressure"

struct db_experiment {
	int64_t id;
	char *kind;		/* DB_EXP_KIND_*; NULL when creating: "ab" */
	int64_t host_id;
	char *hostname, *cpu_model;
	int online_cpus;	/* the host's; 0 where unknown */
	char *started, *finished;
	char *status;		/* running, complete, interrupted, stopped */
	char *note;		/* why it stopped, when it did */
	char *order;		/* abba, alternate, random */
	uint64_t seed;
	int rounds, warmup;
	double settle_s;
	double gate_pct;	/* as given with --gate; NAN when not */
	bool aa;
	bool keep_going;
	struct db_kv *settings;	/* score.NAME, per, events, ... */
	size_t nsettings;
	struct db_arm *arms;
	size_t narms;
	struct db_exp_run *runs;	/* in the order they ran */
	size_t nruns;
};

/* Create the experiment (its arms and settings); sets exp->id. More than
 * DB_EXP_ARMS_MAX arms: -E2BIG, and nothing is stored. */
int db_experiment_create(struct db *db, struct db_experiment *exp,
			 const struct db_host *host, char **cause);

/*
 * Store one run of experiment exp_id with its place and scores, in one
 * transaction. Sets run->id.
 */
int db_experiment_add_run(struct db *db, int64_t exp_id, struct db_run *run,
			  int arm, int round, int position, bool warmup,
			  const struct db_score *scores, size_t nscores,
			  char **cause);

/* Mark it complete, interrupted or stopped (note says why). */
int db_experiment_finish(struct db *db, int64_t exp_id, const char *status,
			 const char *note, char **cause);

/* Load experiment id (<= 0: the newest); -ENOENT when absent. */
int db_experiment_load(struct db *db, int64_t id, struct db_experiment *out,
		       char **cause);
void db_experiment_release(struct db_experiment *exp);

/*
 * The newest complete A/A experiment on host_id whose arm command is
 * `command`: its id, or 0 when there is none.
 */
int64_t db_experiment_latest_aa(struct db *db, int64_t host_id,
				const char *command, char **cause);

/*
 * The newest complete experiment of `kind` on host_id with an arm whose
 * command is `command`: its id, 0 when there is none, or a negative errno.
 */
int64_t db_experiment_latest_of(struct db *db, int64_t host_id, const char *kind,
				const char *command, char **cause);

/* A run setting of an experiment run (key: one of db/settings.h's), or
 * NULL. */
const char *db_exp_run_setting_id(const struct db_exp_run *r, enum db_setting_id id);
#define db_exp_run_setting(r, key) db_exp_run_setting_id((r), (key).id)

struct db_experiment_summary {
	int64_t id;
	char *kind;
	char *started, *status;
	bool aa;
	int rounds;
	size_t narms, nruns;
	char *arms;		/* "fast, slow" */
};
int db_experiments_list(struct db *db, struct db_experiment_summary **out,
			size_t *n, char **cause);
void db_experiments_list_free(struct db_experiment_summary *v, size_t n);

#endif
