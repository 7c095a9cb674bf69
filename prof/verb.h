/*
 * verb: the frame every `prof VERB` runs in. A verb is one file,
 * prof/cmd_<verb>.c, that exports a `struct verb`: its function, its
 * option table and its help. Its row in the command table (commands.c)
 * says what it needs: which --format words it writes, whether it reads or
 * writes the database, and where its results go.
 *
 * verb_main() parses the verb's options from its table (the one option
 * parser: opts.c), checks the shared groups once (the output group, the
 * database option, the launch group), and calls the verb with a struct
 * verb_ctx. The database and the report's output are opened through the
 * context, when the verb first asks (so that a usage error still comes
 * before a missing database), and closed after the verb returns. The
 * options block of `prof VERB --help` is printed from the same table.
 *
 * The option tables are static and const: a value's place is an offset,
 * into the verb's own argument struct (OPT_IN_ARGS, allocated and set up
 * by the frame) or into the context (OPT_IN_CTX, the shared groups).
 * Not thread-safe: getopt keeps its state in globals.
 */
#ifndef PROF_VERB_H
#define PROF_VERB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "collectors/frames.h"
#include "prof/cli.h"
#include "prof/run/run.h"
#include "reports/output.h"
#include "reports/rows.h"

struct db;
struct verb_ctx;

/* ---- option tables ------------------------------------------------------ */

enum opt_kind {
	OPT_END,
	OPT_GROUP,	/* a heading in the help; no option */
	OPT_BOOL,	/* bool: set to true */
	OPT_STRING,	/* const char *: the value as given */
	OPT_LONG,	/* long in [min, max] */
	OPT_INT,	/* int in [min, max] */
	OPT_DOUBLE,	/* double in [dmin, dmax] */
	OPT_CALLBACK,	/* fn parses the value (NULL for a flag) */
	OPT_INCLUDE,	/* the options of a shared group, here */
};

enum opt_base { OPT_IN_ARGS, OPT_IN_CTX };

/*
 * A callback's value parser: store what arg says in *field (arg is NULL
 * for an option that takes none). 0, or EXIT_USAGE after printing the
 * usage error (usage_error, usage_cause).
 */
typedef int opt_parse_fn(struct verb_ctx *vc, const char *arg, void *field);

/* The help of an option whose text depends on the verb's row. */
struct cmd;
typedef const char *opt_help_fn(const struct cmd *c, char *buf, size_t len);

struct opt_group;

struct opt {
	enum opt_kind kind;
	char short_name;		/* 0: none */
	const char *long_name;		/* NULL: none */
	const char *argh;		/* the value's name in help; NULL: no value */
	const char *help;		/* lines split by '\n'; NULL: not listed */
	enum opt_base base;
	size_t off;			/* where the value goes */
	long min, max;			/* OPT_LONG, OPT_INT */
	double dmin, dmax;		/* OPT_DOUBLE */
	const char *expect;		/* a bad value: "expected <expect>" */
	opt_parse_fn *fn;		/* OPT_CALLBACK */
	opt_help_fn *help_fn;		/* overrides help */
	const struct opt_group *group;	/* OPT_INCLUDE */
};

/*
 * A group of options that several verbs share. check runs once after the
 * options are read, for a verb whose table includes the group: 0, or
 * EXIT_USAGE after printing the usage error. command: the verb's operands
 * are a command to launch, so options stop at the first operand.
 */
struct opt_group {
	const char *name;
	const struct opt *opts;
	int (*check)(struct verb_ctx *vc);
	bool command;
};

/* Checks at compile time that T's member m has type ty. */
#define OPT_FIELD_(T, m, ty) \
	(offsetof(T, m) + 0 * sizeof(_Generic(((T *)0)->m, ty: 1)))

#define OPT_GROUP(heading) { .kind = OPT_GROUP, .help = (heading) }
#define OPT_BOOL(s, l, T, m, h) \
	{ .kind = OPT_BOOL, .short_name = (s), .long_name = (l), .help = (h), \
	  .off = OPT_FIELD_(T, m, bool) }
#define OPT_STRING(s, l, T, m, a, h) \
	{ .kind = OPT_STRING, .short_name = (s), .long_name = (l), .argh = (a), \
	  .help = (h), .off = OPT_FIELD_(T, m, const char *) }
#define OPT_LONG(s, l, T, m, a, lo, hi, exp, h) \
	{ .kind = OPT_LONG, .short_name = (s), .long_name = (l), .argh = (a), \
	  .help = (h), .off = OPT_FIELD_(T, m, long), .min = (lo), .max = (hi), \
	  .expect = (exp) }
#define OPT_INT(s, l, T, m, a, lo, hi, exp, h) \
	{ .kind = OPT_INT, .short_name = (s), .long_name = (l), .argh = (a), \
	  .help = (h), .off = OPT_FIELD_(T, m, int), .min = (lo), .max = (hi), \
	  .expect = (exp) }
#define OPT_DOUBLE(s, l, T, m, a, lo, hi, exp, h) \
	{ .kind = OPT_DOUBLE, .short_name = (s), .long_name = (l), .argh = (a), \
	  .help = (h), .off = OPT_FIELD_(T, m, double), .dmin = (lo), .dmax = (hi), \
	  .expect = (exp) }
/* The field's type is the callback's to know: off is a plain offset. */
/*
 * --metric NAME, repeatable (ab, compare, summary): the metrics a verb
 * judges and shows, in the order given; the names are argv's.
 */
#define METRIC_PICK_MAX 32
struct metric_pick {
	const char *name[METRIC_PICK_MAX];
	size_t n;
};
opt_parse_fn parse_metric_pick;

#define OPT_CALLBACK(s, l, T, m, a, f, h) \
	{ .kind = OPT_CALLBACK, .short_name = (s), .long_name = (l), .argh = (a), \
	  .help = (h), .off = offsetof(T, m), .fn = (f) }
#define OPT_INCLUDE(g) { .kind = OPT_INCLUDE, .group = &(g) }
#define OPT_END() { .kind = OPT_END }

/* ---- the shared groups --------------------------------------------------- */

/* --format FMT (the words the verb's row allows) and -o FILE. */
extern const struct opt_group opt_output;
/* --db PATH. */
extern const struct opt_group opt_database;
/*
 * What a verb that lists rows takes: --sort KEY[:asc|:desc] and --limit
 * N, into vc->view. The key is checked against the report's columns by
 * the verb (report_*_sort_check), once they are known and before the
 * output is opened.
 */
extern const struct opt_group opt_rows;
/*
 * What a verb that launches a workload (or attaches to a process) takes:
 * -p PID, --duration, --timeout, --window, -q, --pin, --cache-affinity,
 * --no-cache-affinity, --sysfs, --mmap-pages. Its check: a command or -p
 * PID, not both; --duration only with -p, --timeout and --window only
 * without; no pin for an attached process.
 */
extern const struct opt_group opt_launch;
/*
 * --cache-affinity and --no-cache-affinity alone (into launch.affinity),
 * for verbs that launch work but take no command: ab, sleep. opt_launch
 * includes it.
 */
extern const struct opt_group opt_cache_affinity;
/*
 * -q, --quiet alone (into launch.quiet): nothing but errors, the report
 * to -o FILE or nowhere (verb_out; run and record, which take opt_launch,
 * print an unstored run's counts even so). opt_launch includes it; ab, sleep,
 * pressure and probe, which launch work but take no command, include it
 * themselves.
 */
extern const struct opt_group opt_quiet;
/*
 * How a verb that runs one workload finds its frames (run, record):
 * --frames, --frame-regex RE, --frame-symbol MODULE:SYMBOL, --budget MS,
 * into vc->frame. They read a launched command's output and markers
 * from its start: its check refuses them with -p PID, and a regex that
 * does not compile; the budget defaults to FRAME_BUDGET_MS.
 */
extern const struct opt_group opt_frames;

struct launch_args {
	long pid;		/* -p, 0: launch the command */
	double duration;	/* --duration with -p, 0: until it exits */
	double timeout;		/* --timeout for a launch, 0: none */
	bool quiet;		/* -q */
	const char *pin;	/* --pin, or NULL */
	int affinity;		/* enum affinity_flag */
	const char *sysfs;	/* --sysfs, or NULL */
	long mmap_pages;	/* --mmap-pages, 0: the verb's default */
	const char *window;	/* --window START:END|frame:N:M, or NULL */
	struct window_spec win;	/* what it says, once checked */
};

/* ---- verbs and their rows ------------------------------------------------ */

#define VERB_ANY_OPERANDS (-1)

struct verb {
	int (*fn)(struct verb_ctx *vc);
	const struct opt *opts;		/* OPT_END()-terminated */
	const char *help;		/* usage and what it does, up to a blank line */
	const char *help_tail;		/* after the options: notes, examples */
	size_t args_size;		/* the verb's own struct for OPT_IN_ARGS */
	void (*init)(void *args);	/* its defaults; NULL: all zero */
	void (*release)(void *args);	/* NULL: nothing to free */
	/* More operands than this are refused ("unexpected argument");
	 * VERB_ANY_OPERANDS leaves them to the verb. */
	int max_operands;
};

/*
 * A verb's declaration, the same parts under the same names in every
 * cmd_NAME.c: cmd_NAME() runs it, NAME_opts[] are its options and fill a
 * struct ARGS, NAME_help[] and NAME_tail[] are the text above and below
 * them; what else it has (.init, .release, .max_operands) follows.
 */
#define VERB(name, args, ...)						\
	const struct verb verb_##name = {				\
		.fn = cmd_##name, .opts = name##_opts,			\
		.help = name##_help, .help_tail = name##_tail,		\
		.args_size = sizeof(struct args), __VA_ARGS__		\
	}

/* What a verb does with the database. */
enum cmd_db {
	CMD_DB_NONE,		/* takes no --db */
	CMD_DB_READ,		/* reads it; never creates or changes it */
	CMD_DB_WRITE,		/* stores into it, creating it */
	CMD_DB_TRY,		/* stores into it, but works on without it */
};

/* Where a verb's results go, without -o. */
enum cmd_out { CMD_OUT_STDOUT, CMD_OUT_STDERR };

struct cmd {
	const char *name;
	const struct verb *verb;
	const char *summary;
	unsigned formats;	/* the --format words (1u << OUT_*); 0: none */
	enum cmd_db db;
	enum cmd_out out;
};

/* The verb table, in the order `prof help` lists it; NULL-name-terminated. */
extern const struct cmd commands[];

/* Look a verb up by exact name or unique prefix. */
const struct cmd *cmd_find(const char *name, char **cause);

/* Print a verb's help: its text, and the options block from its table. */
void cmd_print_help(const struct cmd *c, FILE *fp);

/* prof's own usage, with the list of verbs (cmd_help.c). */
void prof_print_usage(FILE *fp);

/* ---- running a verb ------------------------------------------------------ */

struct verb_ctx {
	const struct cmd *cmd;
	const char *name;		/* the verb's full name, for messages */
	void *args;			/* the verb's own options */
	int argc;			/* the operands left after the options */
	char **argv;
	int full_argc;			/* the verb's argv as given, [0] its name */
	char **full_argv;
	enum out_format fmt;		/* --format; OUT_TABLE unless given */
	const char *out_path;		/* -o FILE, or NULL */
	const char *db_opt;		/* --db after the verb, or NULL */
	const char *db_path;		/* the database, resolved */
	struct launch_args launch;
	struct frame_args frame;	/* opt_frames */
	struct rows_view view;		/* --sort, --limit (opt_rows) */
	/* Owned by the frame; reach them with verb_out() and verb_db(). */
	const struct prof_ctx *global;
	FILE *out;
	bool out_tried;
	struct db *db;
	bool db_tried;
	char *db_cause;			/* why the database did not open */
};

/*
 * Run verb c on argv (argv[0] is the verb as typed): parse, check, call,
 * close. Returns the exit code.
 */
int verb_main(const struct cmd *c, int argc, char **argv,
	      const struct prof_ctx *global);

/*
 * Parse argv into vc by its verb's table (vc, and its args, set up as
 * verb_main does: defaults in place). 0 when
 * the verb should run; -1 after --help printed the help; EXIT_USAGE
 * after printing a usage error. opts.c.
 */
int opts_parse(struct verb_ctx *vc, int argc, char **argv);

/* Whether c's table includes group g. opts.c. */
bool opts_include(const struct cmd *c, const struct opt_group *g);

/*
 * The report's stream: -o FILE, opened on the first call, else stdout or
 * stderr as the row says. NULL after printing why FILE cannot be opened.
 */
FILE *verb_out(struct verb_ctx *vc);

/*
 * Close the report's stream now and check that it took every byte: 0, or
 * EXIT_FAIL after printing an error. The frame calls it after the verb
 * returns; a second call returns 0.
 */
int verb_out_close(struct verb_ctx *vc);

/*
 * The database, opened on the first call as the row says: read-only for
 * CMD_DB_READ (a missing file is an error, never created), else created
 * if need be, waiting on another writer's lock. NULL after printing why
 * (its cause is then in vc->db_cause, for CMD_DB_TRY to report again).
 */
struct db *verb_db(struct verb_ctx *vc);

/* Print "error: <cause>" (more lines of it as they are), then the hint
 * to the verb's --help; frees cause; returns EXIT_USAGE. */
int verb_usage_cause(const struct verb_ctx *vc, char *cause);

#endif
