/*
 * abplan: what `prof ab` will do, as read from its options and from a
 * --plan file: the arms (the first is the baseline), per-arm and global
 * settings, the order scheme, rounds, warm-ups, scores and gate. Parsing
 * only; no run starts here, so every mistake is found before the first
 * run (a usage error, exit 2).
 *
 * Plan files hold one `key = value` a line, `#` comments, and `[arm NAME]`
 * sections whose keys (command, pin, cwd, sleep, prepare, cleanup,
 * env.VAR) apply to that arm; keys before any section are the
 * experiment's (rounds, warmup,
 * order, seed, settle, gate, events, score, per, keep-going,
 * allow-generic, no-shell, frames, frame-regex, frame-symbol, budget,
 * and pin, cwd, sleep, prepare, cleanup, env.VAR for every arm).
 * prepare and cleanup are shell commands run before and after each of
 * the arm's runs, not counted (prof/run/runner.h). Caller-owned; not
 * thread-safe.
 *
 * A score is NAME=REGEX, a number read from each run's output (the last
 * match, or with a trailing :p99, :p50, :mean, :max or :matches an
 * aggregate over every match, named NAME:p99 and so on), or frame:p99,
 * frame:p50 or frame:long, read from the frames each run stored
 * (named frame_p99_ms, frame_p50_ms, long_frames), which need a frame
 * method (frames, frame-regex or frame-symbol). A score's regex is
 * checked by prof/abregex.h and compiled here; prof/run/abscore.h reads
 * scores from runs.
 */
#ifndef PROF_ABPLAN_H
#define PROF_ABPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collectors/frames.h"
#include "db/runs.h"
#include "prof/abregex.h"
#include "prof/run/run.h"
#include "reports/abstat.h"

struct ab_setting {
	char *key;		/* pin, cwd, sleep, prepare, cleanup, env.VAR */
	char *value;
};

struct ab_arm {
	char *name;
	char *command;
	char **argv;			/* command split into words */
	int argc;
	char *shell_argv[4];		/* sh -c command (ab_plan_exec_argv) */
	struct ab_setting *settings;
	size_t nsettings;
};

enum ab_order { ORDER_ABBA, ORDER_ALTERNATE, ORDER_RANDOM };

struct ab_plan {
	struct ab_arm *arms;
	size_t narms;
	struct ab_setting *all;		/* settings for every arm */
	size_t nall;
	int rounds;			/* default 6 */
	int warmup;			/* default 1 */
	enum ab_order order;		/* default abba */
	uint64_t seed;
	bool seed_given;
	double settle_s;
	double gate_pct;		/* NAN: not given */
	const char *events;		/* default "cache" (borrowed or owned) */
	char *events_owned;
	struct ab_score *scores;
	size_t nscores;
	char **per;			/* score names for per-unit costs */
	size_t nper;
	bool keep_going;
	bool allow_generic;		/* --allow-generic for the events */
	bool aa;
	bool working_set;		/* --working-set on every run */
	bool no_shell;			/* -N: exec the split words; else sh -c */
	/* Frame boundaries for every run, as prof run finds them. */
	bool frames;			/* prof_frame() markers */
	char *frame_regex;		/* a frame per matching stdout line */
	char *frame_symbol;		/* MODULE:SYMBOL, a frame per call */
	double budget_ms;		/* a longer frame is long (FRAME_BUDGET_MS) */
	/* --window START:END: every run counted inside it alone
	 * (prof/run/collect_window.c); window NULL: the whole run */
	char *window;			/* as given, once checked */
	struct window_spec win;		/* what it says */
	double timeout_s;		/* --timeout: end each run then; 0: none */
};

void ab_plan_init(struct ab_plan *p);
void ab_plan_release(struct ab_plan *p);

/* --arm NAME=COMMAND. -EINVAL with *cause on a bad or duplicate arm. */
int ab_plan_add_arm(struct ab_plan *p, const char *spec, char **cause);
/* --set [ARM.]KEY=VALUE. -EINVAL for an unknown arm or key. */
int ab_plan_set(struct ab_plan *p, const char *spec, char **cause);
/*
 * --score NAME=REGEX[:AGG][:higher][:rate|:count], or frame:p99|p50|long.
 * Only trailing words from those lists are read as such, so a regex may
 * hold ':' anywhere else ('lat=time: ([0-9]+)'); one that must end in
 * ":max" itself can write "[:]max". -EINVAL with the reason in *cause
 * for a regex that does not compile or that prof/abregex.h refuses, two
 * aggregators, an unknown frame score, or a name given twice.
 */
int ab_plan_add_score(struct ab_plan *p, const char *spec, char **cause);
/*
 * A frame setting, from an option or a plan file: key "frames" (value
 * 1/true/yes or 0/false/no), "frame-regex" (an extended regex),
 * "frame-symbol" (MODULE:SYMBOL) or "budget" (milliseconds). -EINVAL
 * with *cause for a bad value or key.
 */
int ab_plan_set_frames(struct ab_plan *p, const char *key, const char *value,
		       char **cause);
/*
 * --window START:END (or "window = START:END" in a plan): seconds after
 * each launch, as prof run takes them. -EINVAL with *cause when it is not
 * START:END with 0 <= START < END.
 */
int ab_plan_set_window(struct ab_plan *p, const char *spec, char **cause);
/* Whether runs are to find frames (any of the frame settings). */
bool ab_plan_has_frames(const struct ab_plan *p);
/* The plan's frame settings as the runner takes them (borrowed). */
struct frame_args ab_plan_frames(const struct ab_plan *p);
/* Every frame score has a frame method to read from: 0, or -EINVAL
 * with *cause naming the score and the options. */
int ab_plan_check_scores(const struct ab_plan *p, char **cause);
/* --per COUNT or --per UNIT=RATE: COUNT a score that counts units (CPU
 * ms per unit = CPU ms / COUNT); RATE a score per second (units = RATE x
 * wall time). Checked in ab_plan_check, which refuses a bare rate. */
int ab_plan_add_per(struct ab_plan *p, const char *name, char **cause);
/* --order abba|alternate|random */
int ab_plan_set_order(struct ab_plan *p, const char *word, char **cause);
/* The longest plan-file line, newline not counted, and the largest plan. */
#define AB_PLAN_LINE_MAX 4095
#define AB_PLAN_LINE_MAX_TEXT "4095"
#define AB_PLAN_MAX_BYTES (1 << 20)
#define AB_PLAN_MAX_TEXT "1 MiB"

/* Read a plan file. -EINVAL with *cause naming the file and line; a line
 * longer than AB_PLAN_LINE_MAX or holding a NUL byte is refused. A path
 * that is no regular file (a device, a FIFO, a directory) is -EINVAL and
 * one larger than AB_PLAN_MAX_BYTES -EFBIG, before anything is read. */
int ab_plan_read(struct ab_plan *p, const char *path, char **cause);
/* The same from fp, read to its end and left open; path names it in causes. */
int ab_plan_read_file(struct ab_plan *p, FILE *fp, const char *path, char **cause);
/* After everything is read: at least two arms (one with --aa), every arm
 * has a command, every --per names a score, every frame score has a
 * frame method (ab_plan_check_scores). */
int ab_plan_check(struct ab_plan *p, char **cause);

/*
 * What arm a runs: "/bin/sh", "-c", COMMAND (the default, as hyperfine
 * does, so redirections and pipes in COMMAND work), or with no_shell its
 * words as split. NULL-terminated; *argc set. Borrowed from the plan.
 */
char **ab_plan_exec_argv(const struct ab_plan *p, size_t a, int *argc);

/* The setting of arm a for key: the arm's own, else every arm's, else NULL. */
const char *ab_plan_get(const struct ab_plan *p, size_t a, const char *key);

/*
 * The order of arms in round r (0-based): abba reverses every other round,
 * alternate keeps it, random draws a permutation from the seed. out has
 * narms entries.
 */
void ab_plan_order(const struct ab_plan *p, int r, size_t *out);

#endif
