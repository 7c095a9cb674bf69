/*
 * verb: running a verb (parse by its table, check the shared groups,
 * call it, close what it opened), the shared option groups, and finding
 * a verb by unique prefix (as tmux does).
 */
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cause.h"
#include "db/db.h"
#include "prof/run/run.h"
#include "prof/verb.h"
#include "reports/runs.h"

/* ---- the output group ------------------------------------------------------ */

static int parse_format(struct verb_ctx *vc, const char *arg, void *field)
{
	return cli_parse_format(vc->name, arg, field, vc->cmd->formats) ? EXIT_USAGE : 0;
}

/* "table (default), json, csv, markdown": the row's words, in order,
 * on lines that keep within the help's column (55 characters). */
static const char *format_help(const struct cmd *c, char *buf, size_t len)
{
	size_t n = 0, line = 0;
	buf[0] = '\0';
	for (int f = 0; f < OUT_FORMAT_COUNT && n < len; f++) {
		if (!(c->formats & (1u << f)))
			continue;
		char word[64];
		snprintf(word, sizeof(word), "%s%s", output_format_name((enum out_format)f),
			 f == OUT_TABLE ? " (default)" : "");
		/* The word and the comma after it must fit. */
		bool wrap = n && n - line + 2 + strlen(word) + 1 > 55;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", !n ? "" : wrap ? ",\n" : ", ",
				      word);
		if (wrap)
			line = n - strlen(word);
	}
	return buf;
}

static const char *output_help(const struct cmd *c, char *buf, size_t len)
{
	snprintf(buf, len, "write the report to FILE instead of %s",
		 c->out == CMD_OUT_STDERR ? "stderr" : "stdout");
	return buf;
}

static const struct opt output_opts[] = {
	{ .kind = OPT_CALLBACK, .long_name = "format", .argh = "FMT",
	  .base = OPT_IN_CTX, .off = offsetof(struct verb_ctx, fmt),
	  .fn = parse_format, .help_fn = format_help },
	{ .kind = OPT_STRING, .short_name = 'o', .long_name = "output",
	  .argh = "FILE", .base = OPT_IN_CTX,
	  .off = offsetof(struct verb_ctx, out_path), .help_fn = output_help },
	OPT_END(),
};

const struct opt_group opt_output = { "output", output_opts, NULL, false };

/* ---- the database option ----------------------------------------------------- */

static int database_check(struct verb_ctx *vc)
{
	char buf[64];
	vc->db_path = cli_db_path(vc->global, vc->db_opt);
	if (!*vc->db_path)
		return usage_error(vc->name, "empty database path: give --db PATH, or "
				   "leave it out for ./prof.db");
	if (vc->out_path && cli_output_is_db(vc->out_path, vc->db_path))
		return usage_error(vc->name, "-o '%s' is the database: the report "
				   "would overwrite every stored run",
				   cli_echo(vc->out_path, buf, sizeof(buf)));
	return 0;
}

static const struct opt database_opts[] = {
	{ .kind = OPT_STRING, .long_name = "db", .argh = "PATH",
	  .help = "database (default: $PROF_DB, else ./prof.db)",
	  .base = OPT_IN_CTX, .off = offsetof(struct verb_ctx, db_opt) },
	OPT_END(),
};

const struct opt_group opt_database = { "database", database_opts, database_check,
					false };

/* ---- the rows group: --sort and --limit ------------------------------------ */

static int parse_sort(struct verb_ctx *vc, const char *arg, void *field)
{
	if (!*arg)
		return usage_error(vc->name, "bad --sort '': expected a column's key, "
				   "e.g. --sort name or --sort name:desc");
	*(const char **)field = arg;
	return 0;
}

static int parse_limit(struct verb_ctx *vc, const char *arg, void *field)
{
	long n;
	char buf[64];
	if (!cli_parse_long(arg, 0, INT_MAX, &n))
		return usage_error(vc->name, "bad --limit '%s': expected a number of "
				   "rows (0: all)", cli_echo(arg, buf, sizeof(buf)));
	*(size_t *)field = (size_t)n;
	return 0;
}

static const struct opt rows_opts[] = {
	{ .kind = OPT_CALLBACK, .long_name = "sort", .argh = "KEY",
	  .base = OPT_IN_CTX, .off = offsetof(struct verb_ctx, view.sort),
	  .fn = parse_sort,
	  .help = "order the rows by the column KEY (as JSON and CSV\n"
		  "name it): numbers largest first, text A to Z;\n"
		  "KEY:asc or KEY:desc to choose" },
	{ .kind = OPT_CALLBACK, .long_name = "limit", .argh = "N",
	  .base = OPT_IN_CTX, .off = offsetof(struct verb_ctx, view.limit),
	  .fn = parse_limit,
	  .help = "the first N rows (0: all, the default); table and\n"
		  "Markdown say how many were left out, JSON and CSV\n"
		  "hold the first N" },
	OPT_END(),
};

const struct opt_group opt_rows = { "rows", rows_opts, NULL, false };

/* ---- the launch group ---------------------------------------------------------- */

static int cache_affinity_on(struct verb_ctx *vc, const char *arg, void *field)
{
	(void)vc;
	(void)arg;
	*(int *)field = affinity_flag_add(*(int *)field, AFFINITY_ON);
	return 0;
}

static int cache_affinity_off(struct verb_ctx *vc, const char *arg, void *field)
{
	(void)vc;
	(void)arg;
	*(int *)field = affinity_flag_add(*(int *)field, AFFINITY_OFF);
	return 0;
}

int parse_metric_pick(struct verb_ctx *vc, const char *arg, void *field)
{
	struct metric_pick *p = field;
	if (p->n == METRIC_PICK_MAX)
		return usage_error(vc->name, "more than %d --metric", METRIC_PICK_MAX);
	p->name[p->n++] = arg;
	return 0;
}

static int parse_mmap_pages(struct verb_ctx *vc, const char *arg, void *field)
{
	long *pages = field;
	char buf[64];
	if (!cli_parse_long(arg, 1, 1 << 20, pages) || (*pages & (*pages - 1)))
		return usage_error(vc->name, "bad --mmap-pages '%s': expected a power "
				   "of 2", cli_echo(arg, buf, sizeof(buf)));
	return 0;
}

static int launch_check(struct verb_ctx *vc)
{
	const struct launch_args *l = &vc->launch;
	if (l->pid && vc->argc)
		return usage_error(vc->name, "give either -p PID or a command, not both");
	if (!l->pid && !vc->argc)
		return usage_error(vc->name, "no command to %s: 'prof %s -- COMMAND' "
				   "or 'prof %s -p PID'", vc->name, vc->name, vc->name);
	if (l->duration > 0 && !l->pid)
		return usage_error(vc->name, "--duration goes with -p PID; a launched "
				   "command runs until it exits");
	if (l->timeout > 0 && l->pid)
		return usage_error(vc->name, "--timeout applies to a launched command; "
				   "an attached process is left running: use --duration");
	if (l->window && l->pid)
		return usage_error(vc->name, "--window counts seconds after a launch; "
				   "with -p PID the count starts at the attach: use "
				   "--duration");
	if (l->window) {
		char *why = NULL;
		if (window_parse(l->window, &vc->launch.win, &why)) {
			int rc = usage_error(vc->name, "%s", why ? why : "bad --window");
			free(why);
			return rc;
		}
	}
	if (l->pid && (l->pin || l->affinity == AFFINITY_ON ||
		       l->affinity == AFFINITY_BOTH))
		return usage_error(vc->name, "--pin and --cache-affinity apply to a "
				   "launched command: prof pins it before exec; an "
				   "attached process keeps its own affinity");
	return 0;
}

#define LAUNCH(m) .base = OPT_IN_CTX, .off = offsetof(struct verb_ctx, launch.m)

/* Also for verbs that launch without the rest of the group (ab, sleep). */
static const struct opt cache_affinity_opts[] = {
	{ .kind = OPT_CALLBACK, .long_name = "cache-affinity", LAUNCH(affinity),
	  .fn = cache_affinity_on, .help = "same as --pin largest-llc" },
	{ .kind = OPT_CALLBACK, .long_name = "no-cache-affinity", LAUNCH(affinity),
	  .fn = cache_affinity_off,
	  .help = "same as --pin none; both flags win over\n"
		  "PROF_CACHE_AFFINITY=1|0 in the environment; with\n"
		  "--pin, or with each other, they must agree" },
	OPT_END(),
};

const struct opt_group opt_cache_affinity = { "cache-affinity", cache_affinity_opts,
					      NULL, false };

static const struct opt quiet_opts[] = {
	{ .kind = OPT_BOOL, .short_name = 'q', .long_name = "quiet", LAUNCH(quiet),
	  .help = "print nothing but errors: no progress, warnings\n"
		  "or report (-o FILE still writes it); what was\n"
		  "measured is stored all the same" },
	OPT_END(),
};

const struct opt_group opt_quiet = { "quiet", quiet_opts, NULL, false };

static const struct opt launch_opts[] = {
	{ .kind = OPT_LONG, .short_name = 'p', .long_name = "pid", .argh = "PID",
	  LAUNCH(pid), .min = 1, .max = INT_MAX, .expect = "a process id",
	  .help = "attach to a running process (its threads and the\n"
		  "processes it starts from then on) instead of\n"
		  "launching a command" },
	{ .kind = OPT_DOUBLE, .long_name = "duration", .argh = "SECS",
	  LAUNCH(duration), .dmin = 0.001, .dmax = 31536000,
	  .expect = "seconds, e.g. 10 or 0.5",
	  .help = "with -p: stop after SECS (default: until it exits\n"
		  "or Ctrl-C)" },
	{ .kind = OPT_DOUBLE, .long_name = "timeout", .argh = "SECS",
	  LAUNCH(timeout), .dmin = 0.001, .dmax = 31536000,
	  .expect = "seconds, e.g. 10 or 0.5",
	  .help = "end a launched command that runs longer than SECS:\n"
		  "SIGTERM to every process of it, SIGKILL 2 s later;\n"
		  "the run is stored and marked timed out" },
	{ .kind = OPT_STRING, .long_name = "window", .argh = "START:END",
	  LAUNCH(window),
	  .help = "count only from START to END seconds after the\n"
		  "launch (e.g. 40:70): each thread's counts, the\n"
		  "CPU time and the frames; the command runs on\n"
		  "(--timeout ends it). Needs counting per CPU.\n"
		  "frame:N:M counts from the start of frame N to the\n"
		  "end of frame M (from 1; with --frames, --frame-regex\n"
		  "or --frame-symbol)" },
	OPT_INCLUDE(opt_quiet),
	{ .kind = OPT_STRING, .long_name = "pin", .argh = "MODE", LAUNCH(pin),
	  .help = "run on chosen CPUs: none, largest-llc (the biggest\n"
		  "shared last-level cache), llc:N, l2:N (the Nth\n"
		  "domain in CPU order, as 'prof topo' numbers them),\n"
		  "node:N, cpus:LIST (e.g. cpus:0-5,12-17)" },
	OPT_INCLUDE(opt_cache_affinity),
	{ .kind = OPT_STRING, .long_name = "sysfs", .argh = "ROOT", LAUNCH(sysfs),
	  .help = "read the topology below ROOT instead of /" },
	{ .kind = OPT_CALLBACK, .long_name = "mmap-pages", .argh = "N",
	  LAUNCH(mmap_pages), .fn = parse_mmap_pages,
	  .help = "buffer pages, a power of 2 (256; per CPU 1-2 MiB)" },
	OPT_END(),
};

const struct opt_group opt_launch = { "launch", launch_opts, launch_check, true };

#define FRAME(m) .base = OPT_IN_CTX, .off = offsetof(struct verb_ctx, frame.m)

static int frames_check(struct verb_ctx *vc)
{
	struct frame_args *f = &vc->frame;
	if (vc->launch.pid && frame_args_any(f))
		return usage_error(vc->name, "--frames, --frame-regex and "
				   "--frame-symbol apply to a launched command: "
				   "they read its output and markers from its start");
	if (f->regex) {
		regex_t re;
		char buf[64];
		if (regcomp(&re, f->regex, REG_EXTENDED | REG_NOSUB))
			return usage_error(vc->name, "bad --frame-regex '%s': not an "
					   "extended regular expression",
					   cli_echo(f->regex, buf, sizeof(buf)));
		regfree(&re);
	}
	/* The raw word: the launch group may be checked after this one. */
	if (vc->launch.window && !strncmp(vc->launch.window, "frame:", 6) &&
	    !frame_args_any(f))
		return usage_error(vc->name, "--window %s counts frames: give --frames, "
				   "--frame-regex or --frame-symbol to say where each "
				   "begins", cli_echo(vc->launch.window, (char[64]){ 0 }, 64));
	if (!f->budget_ms)
		f->budget_ms = FRAME_BUDGET_MS;
	return 0;
}

static const struct opt frames_opts[] = {
	{ .kind = OPT_BOOL, .long_name = "frames", FRAME(marker),
	  .help = "store frames the workload marks with prof_frame()\n"
		  "(include/prof_marker.h; prof names a pipe in\n"
		  "$PROF_MARKER_FD) and every thread's counters per\n"
		  "frame; 'prof report --frames' shows frame times and\n"
		  "the slow frames against the rest ('prof run' prints\n"
		  "them too; docs/frames.md). Software events per\n"
		  "frame only" },
	{ .kind = OPT_STRING, .long_name = "frame-regex", .argh = "RE", FRAME(regex),
	  .help = "as --frames, a frame for each line of the workload's\n"
		  "stdout that matches the extended regular expression\n"
		  "RE, timestamped when prof reads it (its stdout then\n"
		  "passes through prof, unchanged); with a group, as\n"
		  "'took ([0-9.]+) ms', the frame's time is the group's\n"
		  "number of milliseconds" },
	{ .kind = OPT_STRING, .long_name = "frame-symbol", .argh = "MODULE:SYMBOL",
	  FRAME(symbol),
	  .help = "as --frames, a frame for each call of the function\n"
		  "SYMBOL in MODULE (a path, or a command in PATH),\n"
		  "through a uprobe: an unmodified program can be\n"
		  "measured (docs/frames.md)" },
	{ .kind = OPT_DOUBLE, .long_name = "budget", .argh = "MS", FRAME(budget_ms),
	  .dmin = 0.001, .dmax = 1e6, .expect = "a number of milliseconds",
	  .help = "with --frames: a frame longer than MS is long\n"
		  "(default 16.7)" },
	OPT_END(),
};

const struct opt_group opt_frames = { "frames", frames_opts, frames_check, false };

/* ---- running a verb ------------------------------------------------------------- */

int verb_usage_cause(const struct verb_ctx *vc, char *cause)
{
	print_cause("error: ", cause);
	free(cause);
	fprintf(stderr, "hint: run 'prof %s --help' for its options\n", vc->name);
	return EXIT_USAGE;
}

FILE *verb_out(struct verb_ctx *vc)
{
	if (!vc->out_tried) {
		vc->out_tried = true;
		/* -q without -o: the report goes nowhere, as the remarks do
		 * (run and record decide for themselves: a run they could not
		 * store prints its counts all the same). */
		if (vc->launch.quiet && !vc->out_path && !opts_include(vc->cmd, &opt_launch))
			vc->out = fopen("/dev/null", "w");
		if (!vc->out)
			vc->out = cli_open_output(vc->out_path, vc->cmd->out ==
						  CMD_OUT_STDERR ? stderr : stdout);
	}
	return vc->out;
}

int verb_out_close(struct verb_ctx *vc)
{
	FILE *fp = vc->out;
	vc->out = NULL;
	return fp ? cli_close_output(fp, vc->out_path) : EXIT_OK;
}

struct db *verb_db(struct verb_ctx *vc)
{
	if (vc->db_tried)
		return vc->db;
	vc->db_tried = true;
	char *cause = NULL;
	int rc;
	if (vc->cmd->db == CMD_DB_READ) {
		rc = db_open_readonly(&vc->db, vc->db_path, &cause);
		if (!rc)
			db_set_busy_timeout(vc->db, cli_db_wait_ms());
	} else {
		rc = db_open_wait(&vc->db, vc->db_path, cli_db_wait_ms(), &cause);
	}
	if (rc) {
		print_cause("error: ", cause);
		vc->db = NULL;
		vc->db_cause = cause;
	}
	return vc->db;
}

int verb_main(const struct cmd *c, int argc, char **argv,
	      const struct prof_ctx *global)
{
	const struct verb *v = c->verb;
	struct verb_ctx vc = {
		.cmd = c, .name = c->name, .full_argc = argc, .full_argv = argv,
		.fmt = OUT_TABLE, .global = global,
		.launch = { .affinity = AFFINITY_UNSET },
	};
	cli_install_run_print();
	if (v->args_size && !(vc.args = calloc(1, v->args_size)))
		return error_msg("out of memory");
	if (v->init)
		v->init(vc.args);
	int rc = opts_parse(&vc, argc, argv);
	/* -q, or a document bound for a stderr that is a file or a pipe:
	 * prof's remarks would end up in what a script reads, so they go
	 * nowhere (cli_talk). On a terminal a person reads both, and a long
	 * ab or pressure keeps its progress line. */
	if (rc == 0 && (vc.launch.quiet || (c->out == CMD_OUT_STDERR && !vc.out_path &&
					    vc.fmt != OUT_TABLE && !isatty(STDERR_FILENO))))
		verbose = -1;
	/* the machine's facts under a run's table: in full with -v */
	report_run_notes_brief(verbose < 1);
	if (rc == 0) {
		rc = v->fn(&vc);
		int crc = verb_out_close(&vc);
		if (rc == EXIT_OK)
			rc = crc;
	} else if (rc < 0) {
		rc = EXIT_OK;	/* --help */
	}
	db_close(vc.db);
	free(vc.db_cause);
	if (v->release)
		v->release(vc.args);
	free(vc.args);
	return rc;
}

const struct cmd *cmd_find(const char *name, char **cause)
{
	const struct cmd *hit = NULL;
	size_t len = strlen(name);
	int nhits = 0;
	char list[256] = "";
	char buf[64];

	for (const struct cmd *c = commands; c->name; c++) {
		if (!strcmp(c->name, name))
			return c;
		if (len && !strncmp(c->name, name, len)) {
			hit = c;
			nhits++;
			if (strlen(list) + strlen(c->name) + 3 < sizeof(list)) {
				if (*list)
					strcat(list, ", ");
				strcat(list, c->name);
			}
		}
	}
	if (nhits == 1)
		return hit;
	if (nhits > 1)
		cause_set(cause, 0, "ambiguous verb '%s': it could be %s\n"
			  "hint: type more of the verb", cli_echo(name, buf, sizeof(buf)),
			  list);
	else
		cause_set(cause, 0, "unknown verb '%s'\n"
			  "hint: run 'prof --help' for the list of verbs",
			  cli_echo(name, buf, sizeof(buf)));
	return NULL;
}
