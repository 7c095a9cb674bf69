/*
 * cli: the helpers every verb shares: usage errors, output files, the
 * database path, parsing numbers and run ids, and the exit codes of
 * shared/DESIGN.md (0 success, 1 operational failure, 2 usage error)
 * with the one errno-to-exit-code table. The verb table, the option
 * parser and the shared option groups are prof/verb.h.
 *
 * Only prof/ prints to the terminal or picks an exit code; the helpers here
 * are the one place that does so for errors. Not thread-safe (the verbosity
 * level is the one global).
 */
#ifndef PROF_CLI_H
#define PROF_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "reports/output.h"

/*
 * 127: the command to launch cannot be found or run, as a shell says;
 * EXIT_SIGNAL + N: signal N stopped prof (or killed the workload).
 */
enum {
	EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_NOT_RUN = 127,
	EXIT_SIGNAL = 128,
};

struct prof_ctx {
	const char *db_path;	/* from --db before the verb, or NULL */
	const char *argv0;	/* how prof was invoked, to find its helpers */
};

/* The verbosity level: -v adds one; -1 hushes prof's remarks (cli_talk). */
extern int verbose;

/*
 * Where prof's remarks go: warnings, notes, progress, and the hints that
 * follow a warning. stderr, or nowhere once verbose is below 0: under -q,
 * and while a document (JSON, CSV, Markdown, folded stacks, SVG) is bound
 * for a stderr that is no terminal, which then holds that document and
 * errors alone. Errors, and the hints that follow them, always go to
 * stderr.
 */
FILE *cli_talk(void);

/*
 * Print "error: <msg>" then "hint: run 'prof VERB --help'" and return
 * EXIT_USAGE, so a verb can `return usage_error(...)`.
 */
int usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "error: <msg>" on stderr; returns EXIT_FAIL. */
int error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "hint: <msg>": on stderr after an error, else where cli_talk() says. */
void hint_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "note: <msg>" where cli_talk() says. */
void note_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Send the run engine's warnings, notes and hints (prof/run/run.h's
 * run_set_print) where warning_msg, note_msg and hint_msg print theirs,
 * and its remarks where cli_talk says; verb_main does this for every verb.
 */
void cli_install_run_print(void);

/* Print a cause string (possibly several lines, "hint:" lines included). */
void print_cause(const char *prefix, const char *cause);

/* print_cause("error: ", cause), free it, and return code. */
int fail_cause(char *cause, int code);

/*
 * The exit code for a failure that a callee reported as errno err (either
 * sign): the one table, which README.md's "Exit status" shows. A thing
 * the user named that does not exist (a run, an experiment, an event), a
 * word prof does not take or a number out of its range, CPUs named that
 * are not online, an event this processor cannot encode, or samples
 * asked of a run that has none is a usage error (2); anything else is an
 * operational failure (1).
 */
int exit_code_for(int err);

struct db;
struct db_experiment;
/* Load experiment id into *e; a failure is printed and its exit code
 * returned, 0 when *e is loaded (release it). */
int cli_load_experiment(struct db *db, long id, struct db_experiment *e);

/*
 * The same for the failure to start a command prof was to launch:
 * EXIT_NOT_RUN when it cannot be found or run (ENOENT, EACCES, ENOEXEC),
 * as a shell says, else 1.
 */
int exit_code_for_launch(int err);

/*
 * The database path: --db PATH given to the verb, else the global --db,
 * else $PROF_DB, else ./prof.db.
 */
const char *cli_db_path(const struct prof_ctx *ctx, const char *verb_opt);

/*
 * How long to wait on a database another process is writing, in ms:
 * $PROF_DB_TIMEOUT seconds, else db/'s default (10 s). A bad value is
 * warned about and the default used.
 */
int cli_db_wait_ms(void);

/* True when out names the database db or one of its -wal, -shm or
 * -journal files, through links and relative paths. */
bool cli_output_is_db(const char *out, const char *db);

/* Parse --format; on a bad word print the usage error and return -1. */
int cli_parse_format(const char *verb, const char *word, enum out_format *out,
		     unsigned allowed);

/*
 * Open the report destination: FILE for -o, else fallback (stdout or
 * stderr). Returns NULL after printing an error.
 */
FILE *cli_open_output(const char *path, FILE *fallback);

/*
 * Close what cli_open_output returned, and check that the bytes really
 * reached their destination (a full disk shows up here). Returns 0 or
 * EXIT_FAIL after printing an error.
 */
int cli_close_output(FILE *fp, const char *path);

/* Parse a non-negative integer or a decimal; return false on junk. */
bool cli_parse_long(const char *s, long min, long max, long *out);
bool cli_parse_double(const char *s, double min, double max, double *out);
/*
 * A list of positive ids, "3,5,7-9" (ranges inclusive, at most 100,000
 * ids each), appended to *ids (malloc'd, grown; the caller frees it).
 * False, with *n as it was, when s is not such a list.
 */
bool cli_parse_id_list(const char *s, int64_t **ids, size_t *n);

/*
 * A point in time: "2h" (that long before now: s, m, h, d or w), or a
 * UTC date and time as runs store it, "2026-11-30", "2026-11-30T14:05",
 * "2026-11-30 14:05:09Z". False on junk.
 */
bool cli_parse_when(const char *s, time_t now, time_t *out);

/* "last" (0) or a positive run id; a usage error otherwise. */
int cli_parse_run_id(const char *verb, const char *word, long *id);

/* Shorten user input for messages: at most 40 bytes, then "...". */
const char *cli_echo(const char *s, char *buf, size_t bufsz);

#endif
