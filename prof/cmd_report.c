/*
 * prof report: reprint a stored run per thread, per thread name, or total;
 * for a sampled run (prof record), where its samples fell by symbol,
 * module, thread or name, its hottest call paths, or folded stacks.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/runs.h"
#include "db/samples.h"
#include "db/sleep.h"
#include "prof/cli.h"
#include "prof/commands.h"
#include "prof/runutil.h"
#include "prof/sections.h"
#include "reports/profile.h"
#include "reports/runs.h"
#include "reports/sleep.h"

const char cmd_report_help[] =
"usage: prof report [RUN|last] [--by thread|name|total|symbol|module]\n"
"                   [--stacks] [--event NAME] [--limit N] [--no-demangle]\n"
"                   [--unknown address|section]\n"
"                   [--format table|json|csv|markdown|folded] [-o FILE] [--db PATH]\n"
"\n"
"Reprint a stored run from the database (default: the newest), exactly as\n"
"'prof run' printed it, or grouped differently: --by name sums the threads\n"
"that share a name (five workers called the same become one row with a\n"
"thread count); --by total keeps only the totals.\n"
"\n"
"For a sampled run ('prof record'), the default is where the samples fell:\n"
"--by symbol (the default) or module, with self and total shares of each\n"
"event; --by thread or name, each thread's share; --by total, the run's\n"
"counts. --stacks lists the hottest call paths; --format folded writes\n"
"one 'main;work;hot 123' line per call path (samples of the first event,\n"
"or --event), for flame-graph tools. --by symbol and module need a\n"
"sampled run. Code that no symbol covers (a stripped library's static\n"
"functions) is shown by address, as 'libfoo.so+0x1a2b' (the address nm,\n"
"objdump and addr2line use), one row per address. Call chains end at a\n"
"caller in no known mapping, which a frame-pointer walk finds in code\n"
"built without frame pointers; the report says how many did.\n"
"\n"
"Options:\n"
"      --event NAME      only this sampled event\n"
"      --limit N         rows or call paths per event (default: all)\n"
"      --no-demangle     C++ and Rust symbols as the binary names them\n"
"                        (_ZN6detail4sprpEyy), not demangled (detail::sprp(\n"
"                        unsigned long long, unsigned long long))\n"
"      --unknown section group code without a symbol by the ELF section\n"
"                        that holds it ('libfoo.so:.text'), read from the\n"
"                        module's file if it is still the one recorded;\n"
"                        --unknown address (the default): by address\n"
"\n"
"Examples:\n"
"  prof report last --by name\n"
"  prof report 12 --format csv -o run12.csv\n"
"  prof report last --by module\n"
"  prof report last --stacks --limit 10\n"
"  prof report last --format folded | flamegraph.pl > hot.svg\n";

/* "last", or a positive run id. */
int cli_parse_run_id(const char *verb, const char *word, long *id)
{
	char buf[64];
	if (!strcmp(word, "last")) {
		*id = 0;
		return 0;
	}
	if (!cli_parse_long(word, 1, LONG_MAX, id))
		return usage_error(verb, "bad run '%s': expected a run id or 'last'",
				   cli_echo(word, buf, sizeof(buf)));
	return 0;
}

/* Which report a run gets, from --by, --stacks and --format. */
struct report_args {
	const char *by;		/* as given, or NULL */
	bool stacks;
	const char *event;
	long limit;
	enum out_format fmt;
	bool mangled;
	enum profile_unknown unknown;
};

/* A sampled run's report; -1 when it is not one (the caller goes on). */
static int report_sampled(struct db *db, const struct db_run *run,
			  const struct report_args *ra, const char *out)
{
	struct db_profile prof;
	char *cause = NULL;
	char buf[64];
	bool wants_samples = ra->stacks || ra->fmt == OUT_FOLDED ||
			     (ra->by && (!strcmp(ra->by, "symbol") ||
					 !strcmp(ra->by, "module")));
	int rc = db_profile_load(db, run->id, &prof, &cause);
	if (rc == -ENODATA && !wants_samples) {
		free(cause);
		return -1;
	}
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		return rc == -ENODATA ? EXIT_USAGE : EXIT_FAIL;
	}
	if (ra->by && !strcmp(ra->by, "total") && !ra->stacks && ra->fmt != OUT_FOLDED) {
		db_profile_release(&prof);
		return -1;	/* the run's counts */
	}
	struct profile_opts po = { .by = PROFILE_BY_SYMBOL, .stacks = ra->stacks,
				   .event = -1, .limit = (size_t)ra->limit, .fmt = ra->fmt,
				   .mangled = ra->mangled, .unknown = ra->unknown };
	if (ra->by && profile_by_parse(ra->by, &po.by)) {
		db_profile_release(&prof);
		return usage_error("report", "--by %s does not go with --stacks or "
				   "--format folded", cli_echo(ra->by, buf, sizeof(buf)));
	}
	if (ra->event) {
		for (size_t e = 0; e < prof.nevents && po.event < 0; e++)
			if (!strcmp(prof.events[e].name, ra->event))
				po.event = (int)e;
		if (po.event < 0) {
			fprintf(stderr, "error: run %lld sampled no event '%s'\n"
				"hint: it sampled:", (long long)run->id,
				cli_echo(ra->event, buf, sizeof(buf)));
			for (size_t e = 0; e < prof.nevents; e++)
				fprintf(stderr, " %s", prof.events[e].name);
			fputc('\n', stderr);
			db_profile_release(&prof);
			return EXIT_USAGE;
		}
	}
	struct run_sections secs;
	memset(&secs, 0, sizeof(secs));
	if (ra->unknown == PROFILE_UNKNOWN_SECTION) {
		if (run_sections_load(&prof, &secs))
			warning_msg("out of memory reading the modules' sections: code "
				    "without a symbol stays by address");
		else
			po.sections = secs.mods;
		if (secs.changed)
			warning_msg("%zu module%s changed since run %lld was recorded: "
				    "%s code without a symbol stays by address",
				    secs.changed, secs.changed == 1 ? "" : "s",
				    (long long)run->id, secs.changed == 1 ? "its" : "their");
	}
	FILE *fp = cli_open_output(out, stdout);
	if (!fp) {
		run_sections_release(&secs);
		db_profile_release(&prof);
		return EXIT_FAIL;
	}
	report_profile(run, &prof, &po, fp);
	run_sections_release(&secs);
	db_profile_release(&prof);
	return cli_close_output(fp, out);
}

int cmd_report(int argc, char **argv, struct prof_ctx *ctx)
{
	enum { O_FORMAT = 256, O_DB, O_BY, O_STACKS, O_EVENT, O_LIMIT, O_NODEMANGLE,
	       O_UNKNOWN };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, O_DB },
		{ "by", required_argument, NULL, O_BY },
		{ "stacks", no_argument, NULL, O_STACKS },
		{ "event", required_argument, NULL, O_EVENT },
		{ "limit", required_argument, NULL, O_LIMIT },
		{ "no-demangle", no_argument, NULL, O_NODEMANGLE },
		{ "unknown", required_argument, NULL, O_UNKNOWN },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_args ra = { .fmt = OUT_TABLE };
	enum report_by by = BY_THREAD;
	enum profile_by pby;
	const char *out = NULL, *dbopt = NULL;
	char buf[64];
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_FORMAT:
			if (cli_parse_format("report", optarg, &ra.fmt,
					     OUT_ALL_TEXT | (1u << OUT_FOLDED)))
				return EXIT_USAGE;
			break;
		case O_BY:
			if (report_by_parse(optarg, &by) && profile_by_parse(optarg, &pby))
				return usage_error("report", "bad --by '%s': expected "
						   "thread, name, total, symbol or module",
						   cli_echo(optarg, buf, sizeof(buf)));
			ra.by = optarg;
			break;
		case O_STACKS:
			ra.stacks = true;
			break;
		case O_EVENT:
			ra.event = optarg;
			break;
		case O_LIMIT:
			if (!cli_parse_long(optarg, 0, INT_MAX, &ra.limit))
				return usage_error("report", "bad --limit '%s': expected a "
						   "number of rows (0: all)",
						   cli_echo(optarg, buf, sizeof(buf)));
			break;
		case O_NODEMANGLE:
			ra.mangled = true;
			break;
		case O_UNKNOWN:
			if (profile_unknown_parse(optarg, &ra.unknown))
				return usage_error("report", "bad --unknown '%s': expected "
						   "address or section",
						   cli_echo(optarg, buf, sizeof(buf)));
			break;
		case 'o':
			out = optarg;
			break;
		case O_DB:
			dbopt = optarg;
			break;
		case 'h':
			cli_print_verb_help("report");
			return EXIT_OK;
		default:
			return cli_option_error("report", c, argv);
		}
	}
	long id = 0;
	if (optind < argc && cli_parse_run_id("report", argv[optind++], &id))
		return EXIT_USAGE;
	if (optind < argc)
		return usage_error("report", "unexpected argument '%s'",
				   cli_echo(argv[optind], buf, sizeof(buf)));

	struct db *db;
	char *cause = NULL;
	if (!(db = verb_open_db(ctx, dbopt)))
		return EXIT_FAIL;
	struct db_run run;
	struct db_sleep sleep;
	memset(&sleep, 0, sizeof(sleep));
	int rc = db_run_load(db, id, &run, &cause);
	/* A `prof sleep` run has its own report: its cells, not threads. */
	bool is_sleep = !rc && run.kind && !strcmp(run.kind, "sleep");
	if (is_sleep && (rc = db_sleep_load(db, run.id, &sleep, &cause)))
		db_run_release(&run);
	if (rc) {
		db_close(db);
		print_cause("error: ", cause);
		free(cause);
		return rc == -ENOENT ? EXIT_USAGE : EXIT_FAIL;
	}
	rc = report_sampled(db, &run, &ra, out);
	db_close(db);
	if (rc >= 0) {
		db_run_release(&run);
		return rc;
	}
	FILE *fp = cli_open_output(out, stdout);
	if (!fp) {
		db_sleep_release(&sleep);
		db_run_release(&run);
		return EXIT_FAIL;
	}
	if (is_sleep)
		report_sleep(&run, &sleep, ra.fmt, fp);
	else
		report_run(&run, by, ra.fmt, fp);
	db_sleep_release(&sleep);
	db_run_release(&run);
	return cli_close_output(fp, out);
}
