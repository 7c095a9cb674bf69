/*
 * experiment: the run loop that `prof ab` and `prof pressure` share. A
 * design (slots, rounds, warm-ups, the order of --order and --seed) is run
 * round by round: warm-up rounds first, then the counted ones, each slot
 * once a round in the order ab_plan_order gives. The verb runs and stores
 * one slot at a time through its hooks; the loop keeps the progress line,
 * settles between runs, stops after a round in which a run failed (unless
 * keep_going), and stops after the current run on Ctrl-C, SIGTERM, SIGHUP
 * or SIGQUIT, which the caller holds (runner_hold_signals) from before the
 * experiment's row is made.
 *
 * What it prints: the progress line on cli_talk(), "prof VERB: warm-up|
 * round N of M, SLOT (run K of TOTAL), Ts elapsed, ~Ts left", cleared
 * before the hooks print and at the end; nothing else. How the experiment
 * ended (status, note, exit code) comes back in struct exp_end for the
 * caller to print and store (db_experiment_finish).
 *
 * Also here, the pieces both verbs' slots and experiment rows are made
 * of: a captured output's tail, a run's scores, growable settings.
 *
 * Not thread-safe: one experiment at a time, on prof's main thread (the
 * stop flag is process-wide).
 */
#ifndef PROF_EXPERIMENT_H
#define PROF_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "db/experiments.h"
#include "db/runs.h"
#include "prof/abplan.h"
#include "prof/progress.h"

struct exp_design {
	const char *verb;		/* "ab", "pressure": the progress line's */
	const char *slot_word;		/* before a slot's name there: "arm " or "" */
	const struct ab_plan *plan;	/* its order and seed; narms is not read */
	size_t nslots;			/* the slots one round runs */
	int rounds, warmup;
	double settle_s;		/* idle time after each run that was made */
	bool keep_going;		/* go on after a round in which a run failed */
	bool check_first;		/* a signal before the first run stops it */
};

/* The slot to run now. */
struct exp_slot {
	size_t slot;			/* which: 0 to nslots - 1 */
	size_t pos;			/* its place in the round */
	int round;			/* 0-based, among warm-ups or counted rounds */
	bool warm;			/* a warm-up: stored, not counted */
	bool quiet;			/* not the experiment's first run */
	struct progress_line *line;	/* clear it before printing */
};

/* How an experiment ended; the caller's, status "complete" and the rest
 * zeroed before experiment_run. */
struct exp_end {
	const char *status;		/* "complete", "stopped", "interrupted" */
	char *note;			/* why it stopped (malloc'd), or NULL */
	int code;			/* the exit code; 0 while it goes on */
};

enum exp_slot_result {
	EXP_SLOT_RAN,			/* made and stored */
	EXP_SLOT_FAILED,		/* made, stored, failed: its round fails */
	EXP_SLOT_NOT_RUN,		/* failed before it was made: the same,
					 * and no settling after it */
	EXP_SLOT_STOP,			/* stop now: the hook filled *end */
};

struct exp_hooks {
	/* The slot's name for the progress line (borrowed). */
	const char *(*slot_name)(void *arg, size_t slot);
	/* Run slot s and store its run; say on s->line's stream what went
	 * wrong. */
	enum exp_slot_result (*run_slot)(void *arg, const struct exp_slot *s,
					 struct exp_end *end);
};

/*
 * Run the design through the hooks (arg is theirs). Returns end->code:
 * 0 when every round ran; EXIT_FAIL after a round with a failed run
 * (status "stopped", a note naming the round); the signal's exit status
 * (runner_stop_exit_code) when one stopped it (status "interrupted");
 * or what a hook put in *end.
 */
int experiment_run(const struct exp_design *d, const struct exp_hooks *h, void *arg,
		   struct exp_end *end);

/*
 * The last max bytes of what fd captured (read from its end, whatever its
 * offset), NUL-terminated, with any NUL inside as a space: a NUL would
 * hide what follows from a score's regex. *len gets the length; len may
 * be NULL. malloc'd; NULL (errno ENOMEM, *len 0) when out of memory: the
 * run it followed has run, so the caller goes on without its text.
 */
char *experiment_slurp(int fd, size_t max, size_t *len);

/*
 * Every score of p read from one run (ab_score_measure with out and err):
 * an array of p->nscores, names borrowed from p, found where it was read.
 * When rcs is not NULL, *rcs gets each score's result (0 or -errno), an
 * array of as many. Both malloc'd; NULL (and *rcs NULL, errno ENOMEM)
 * when out of memory: the caller stores the run without its scores. out
 * and err may be NULL (read as empty).
 */
struct db_score *experiment_scores(const struct ab_plan *p, const char *out,
				   const char *err, const struct db_run *run, int **rcs);

/* Append key (copied) = value (taken over) to a growable settings
 * array, as db_experiment_release frees it. Built before any run: out
 * of memory ends prof (common/xalloc.h). */
void experiment_kv_add(struct db_kv **v, size_t *n, const char *key, char *value);

/*
 * The settings of p's scores and frames, in the order both verbs store
 * them: one "score" for each, then frames, frame-regex, frame-symbol and,
 * with any of these, budget_ms (budget, taken over; freed when unused).
 */
void experiment_kv_scores(struct db_kv **v, size_t *n, const struct ab_plan *p,
			  char *budget);

/* "abba", "alternate" or "random", as an experiment stores its order. */
const char *experiment_order_word(enum ab_order order);

#endif
