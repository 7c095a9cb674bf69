/*
 * runutil: what every verb that launches a workload shares: the database
 * it stores into (opened early; if it fails the run still happens and its
 * report is printed), what an incomplete run does to the exit code (the
 * counters' fill judges it: prof/run/collect_counters.c), and saying once
 * which events this machine refused.
 */
#ifndef PROF_RUNUTIL_H
#define PROF_RUNUTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "collectors/counters.h"
#include "collectors/events.h"
#include "collectors/runenv.h"
#include "collectors/sysdelta.h"
#include "db/db.h"
#include "db/experiments.h"
#include "db/probe.h"
#include "db/runs.h"
#include "db/sleep.h"
#include "prof/cli.h"
#include "prof/run/run.h"
#include "prof/verb.h"
#include "reports/ab.h"
#include "reports/runs.h"

/*
 * Store a run into the verb's database (verb_db). 0 on success;
 * EXIT_FAIL with *cause (why it could not be stored, the database's open
 * failure included) otherwise, printing nothing: the caller prints the
 * report, then run_state_not_stored().
 */
int run_state_store(struct verb_ctx *vc, struct db_run *run, char **cause);

/*
 * Say, after the report, that the run was not stored and why. out: the
 * report's file (-o), or NULL when it went to stderr.
 */
void run_state_not_stored(const char *cause, const char *out);

/*
 * A launched or attached run's report as prof run prints it (its counts
 * by `by`, the intervals' timeline and the frames' summary, in fmt) on
 * the verb's output: -o FILE, else the verb's stream. When that cannot
 * be written and the run was not stored (unstored), on stderr as well,
 * the counts being all that is left. Returns true when the report
 * reached the verb's output; pass vc->out_path to run_state_not_stored
 * then.
 */
bool run_state_print(struct verb_ctx *vc, const struct db_run *run,
		     enum report_by by, enum out_format fmt, bool unstored);

/*
 * The exit code for a run whose report was printed: an incomplete run
 * says so on stderr (always, also under -q) and turns a 0 into 1, unless
 * allowed. Other codes are kept.
 */
int run_incomplete_exit(const struct db_run *run, bool allow, int exit_code);

/*
 * Warn, once per setting, where the machine was set up differently for
 * runs a and b (reports/sysenv.h: governor, THP, SMT, ...). Returns how
 * many settings differ.
 */
size_t run_env_warn(const struct db_run *a, const struct db_run *b);

/*
 * The same for an experiment: the first run of each arm (not a warm-up,
 * where it has one) against the baseline's, so `prof ab` and `prof
 * compare EXP` say when an arm ran on a machine set up differently.
 * Returns how many settings differ, all arms together; a run that cannot
 * be loaded is passed over (the report itself reads none of this).
 */
size_t run_exp_env_warn(struct db *db, const struct db_experiment *e);

/*
 * A stored run with what its kind keeps besides the common tables: a
 * sleep benchmark's cells (kind "sleep"), a probe's curve ("probe"), as
 * `prof report` and `prof html` show them. 0, or -errno with *cause;
 * nothing to release on failure.
 */
struct stored_run {
	struct db_run run;
	struct db_sleep sleep;	/* zeroed unless is_sleep */
	struct db_probe probe;	/* zeroed unless is_probe */
	bool is_sleep, is_probe;
};
int stored_run_load(struct db *db, int64_t id, struct stored_run *s, char **cause);
void stored_run_release(struct stored_run *s);

/* After the run: say when the asked frame method found no frames. */
void run_frames_warn(const struct db_run *run, const struct frame_args *f);

/* Now as ISO 8601 UTC, "2026-11-30T05:37:51Z". */
void run_state_now_iso(char *buf, size_t n);

/* argv quoted as a shell would need it, for display (malloc'd). */
char *run_state_command_line(char *const *argv, int argc);

/*
 * The runs row of a verb that measures in prof itself (prof sleep, prof
 * probe): kind and start, the command "prof VERB ARGS..." (argv[0] is the
 * verb, as struct verb_ctx's full_argv) and its argv, the working
 * directory, prof's pid, the host's facts and prof's version. run is
 * zeroed first.
 */
void run_state_self(struct db_run *run, const char *kind, int argc,
		    char *const *argv, const char *started);

/*
 * What the machine was set to and did around such a verb's own work, as
 * prof run keeps them (prof/run/collect_env.c, prof/run/collect_system.c): begin
 * reads the settings and a first snapshot of the machine's counters,
 * end a second one and puts both into run (run->env, run->system) and
 * releases m (run NULL: only releases; a second end does nothing). A
 * part that cannot be read is left out.
 */
struct run_machine {
	struct runenv env;
	struct sys_snap before, after;
	bool have_env, have_before;
};
void run_machine_begin(struct run_machine *m, const char *sysfs_root);
void run_machine_end(struct run_machine *m, struct db_run *run);

/* Say once, on stderr, which events the kernel refused and why. */
void report_unsupported(const struct counters *cs, const struct event_desc *evs,
			size_t nev);

/*
 * The pin plan of a launched run from --pin, the affinity flags and
 * PROF_CACHE_AFFINITY (pin_choose_mode), with its warnings printed. 0, or
 * the exit code after printing the error: EXIT_USAGE for flags that
 * disagree or a mode that does not fit, EXIT_FAIL for a topology that
 * cannot be read (pin_plan_make).
 */
int pin_plan_for_launch(struct pin_plan *plan, const char *pin_opt,
			int affinity, const char *sysfs);

/*
 * For an attach (-p PID): when PROF_CACHE_AFFINITY asks for a pin, say on
 * stderr that none is made and why (the flags and --pin are refused with
 * -p before this; see launch_check).
 */
void pin_note_attach(long pid, int affinity);

/*
 * An experiment's report per thread name (--by name): its runs loaded
 * with their threads, analysed by ab_by_name_analyze and written to fp.
 * EXIT_OK, or EXIT_FAIL after printing why.
 */
int ab_report_by_name(struct db *db, const struct db_experiment *e,
		      const struct ab_gate_rule *gate, enum out_format fmt, FILE *fp);

/* --by arm|name for prof ab and prof compare: true for name. */
int ab_parse_by(struct verb_ctx *vc, const char *arg, void *field);

/*
 * The noise gate for experiment e: given_pct (not NAN) or e's own --gate
 * wins; else the newest complete A/A experiment of e's baseline command on
 * e's host from before e, loaded into *aa (release it when *have_aa);
 * else 1%.
 */
struct ab_gate_rule ab_gate_for(struct db *db, const struct db_experiment *e,
				double given_pct, struct db_experiment *aa,
				bool *have_aa);

#endif
