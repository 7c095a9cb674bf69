/*
 * prof report: reprint a stored run per thread, per thread name, or total;
 * for a sampled run (prof record), where its samples fell by symbol,
 * module, thread or name, its hottest call paths, or folded stacks.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/runs.h"
#include "db/samples.h"
#include "db/sleep.h"
#include "prof/cli.h"
#include "prof/sections.h"
#include "prof/verb.h"
#include "reports/profile.h"
#include "reports/runs.h"
#include "reports/sleep.h"

/* Which report a run gets, from --by, --stacks and --format. */
struct report_args {
	const char *by;		/* as given, or NULL */
	bool stacks;
	const char *event;
	long limit;
	enum out_format fmt;
	bool mangled;
	enum profile_unknown unknown;
	bool no_inline;
};

/* A sampled run's report; -1 when it is not one (the caller goes on). */
static int report_sampled(struct verb_ctx *vc, struct db *db, const struct db_run *run,
			  const struct report_args *ra)
{
	struct db_profile prof;
	char *cause = NULL;
	char buf[64];
	bool wants_samples = ra->stacks || ra->fmt == OUT_FOLDED ||
			     (ra->by && (!strcmp(ra->by, "symbol") ||
					 !strcmp(ra->by, "module") ||
					 !strcmp(ra->by, "line")));
	int rc = db_profile_load(db, run->id, &prof, &cause);
	if (rc == -ENODATA && !wants_samples) {
		free(cause);
		return -1;
	}
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	if (ra->by && !strcmp(ra->by, "total") && !ra->stacks && ra->fmt != OUT_FOLDED) {
		db_profile_release(&prof);
		return -1;	/* the run's counts */
	}
	struct profile_opts po = { .by = PROFILE_BY_SYMBOL, .stacks = ra->stacks,
				   .event = -1, .limit = (size_t)ra->limit, .fmt = ra->fmt,
				   .mangled = ra->mangled, .unknown = ra->unknown,
				   .no_inline = ra->no_inline };
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
	FILE *fp = verb_out(vc);
	if (fp)
		report_profile(run, &prof, &po, fp);
	run_sections_release(&secs);
	db_profile_release(&prof);
	return fp ? EXIT_OK : EXIT_FAIL;
}

static int cmd_report(struct verb_ctx *vc)
{
	struct report_args *ra = vc->args;
	enum report_by by = BY_THREAD;
	long id = 0;
	ra->fmt = vc->fmt;
	if (ra->by)
		report_by_parse(ra->by, &by);	/* else symbol or module */
	if (vc->argc && cli_parse_run_id(vc->name, vc->argv[0], &id))
		return EXIT_USAGE;

	struct db *db = verb_db(vc);
	if (!db)
		return EXIT_FAIL;
	struct db_run run;
	struct db_sleep sleep;
	memset(&sleep, 0, sizeof(sleep));
	char *cause = NULL;
	int rc = db_run_load(db, id, &run, &cause);
	/* A `prof sleep` run has its own report: its cells, not threads. */
	bool is_sleep = !rc && run.kind && !strcmp(run.kind, "sleep");
	if (is_sleep && (rc = db_sleep_load(db, run.id, &sleep, &cause)))
		db_run_release(&run);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	rc = report_sampled(vc, db, &run, ra);
	if (rc >= 0) {
		db_run_release(&run);
		return rc;
	}
	FILE *fp = verb_out(vc);
	if (fp && is_sleep)
		report_sleep(&run, &sleep, ra->fmt, fp);
	else if (fp)
		report_run(&run, by, ra->fmt, fp);
	db_sleep_release(&sleep);
	db_run_release(&run);
	return fp ? EXIT_OK : EXIT_FAIL;
}

static int parse_by(struct verb_ctx *vc, const char *arg, void *field)
{
	enum report_by by;
	enum profile_by pby;
	char buf[64];
	if (report_by_parse(arg, &by) && profile_by_parse(arg, &pby))
		return usage_error(vc->name, "bad --by '%s': expected thread, name, "
				   "total, symbol, module or line",
				   cli_echo(arg, buf, sizeof(buf)));
	*(const char **)field = arg;
	return 0;
}

static int parse_unknown(struct verb_ctx *vc, const char *arg, void *field)
{
	char buf[64];
	if (profile_unknown_parse(arg, field))
		return usage_error(vc->name, "bad --unknown '%s': expected address or "
				   "section", cli_echo(arg, buf, sizeof(buf)));
	return 0;
}

static const struct opt report_opts[] = {
	OPT_CALLBACK(0, "by", struct report_args, by, "MODE", parse_by,
		     "thread, name or total; for a sampled run also\n"
		     "symbol (its default), module, or line (source\n"
		     "file and line from the debug info)"),
	OPT_BOOL(0, "stacks", struct report_args, stacks,
		 "the hottest call paths of a sampled run"),
	OPT_STRING(0, "event", struct report_args, event, "NAME",
		   "only this sampled event"),
	OPT_LONG(0, "limit", struct report_args, limit, "N", 0, INT_MAX,
		 "a number of rows (0: all)",
		 "rows or call paths per event (default: all)"),
	OPT_BOOL(0, "no-demangle", struct report_args, mangled,
		 "C++ and Rust symbols as the binary names them\n"
		 "(_ZN6detail4sprpEyy), not demangled (detail::sprp(\n"
		 "unsigned long long, unsigned long long))"),
	OPT_BOOL(0, "no-inline", struct report_args, no_inline,
		 "call paths and folded stacks without the inlined\n"
		 "functions the debug info names at a frame"),
	OPT_CALLBACK(0, "unknown", struct report_args, unknown, "section", parse_unknown,
		     "group code without a symbol by the ELF section\n"
		     "that holds it ('libfoo.so:.text'), read from the\n"
		     "module's file if it is still the one recorded;\n"
		     "--unknown address (the default): by address"),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

const struct verb verb_report = {
	.fn = cmd_report,
	.opts = report_opts,
	.args_size = sizeof(struct report_args),
	.max_operands = 1,
	.help =
"usage: prof report [RUN|last] [--by thread|name|total|symbol|module|line]\n"
"                   [--stacks] [--event NAME] [--limit N] [--no-demangle]\n"
"                   [--unknown address|section] [--no-inline]\n"
"                   [--format table|json|csv|markdown|folded] [-o FILE]\n"
"                   [--db PATH]\n"
"\n"
"Reprint a stored run from the database (default: the newest), exactly as\n"
"'prof run' printed it, or grouped differently: --by name sums the threads\n"
"that share a name (five workers called the same become one row with a\n"
"thread count); --by total keeps only the totals.\n"
"\n"
"For a sampled run ('prof record'), the default is where the samples fell:\n"
"--by symbol (the default) or module, with self and total shares of each\n"
"event; --by thread or name, each thread's share; --by total, the run's\n"
"counts; --by line, by source file and line where the debug info (the\n"
"binary's, or its debug file's) says, naming the innermost function there,\n"
"an inlined one where the compiler inlined it. --stacks lists the hottest\n"
"call paths; --format folded writes one 'main;work;hot 123' line per call\n"
"path (samples of the first event, or --event), for flame-graph tools.\n"
"--by symbol, module and line need a sampled run. Code that no symbol\n"
"covers (a stripped library's static functions) is shown by address, as\n"
"'libfoo.so+0x1a2b' (the address nm, objdump and addr2line use), one row\n"
"per address. Call chains end at a caller in no known mapping, which a\n"
"frame-pointer walk finds in code built without frame pointers; the\n"
"report says how many did.\n"
"\n",
	.help_tail =
"Examples:\n"
"  prof report last --by name\n"
"  prof report 12 --format csv -o run12.csv\n"
"  prof report last --by module\n"
"  prof report last --by line --limit 20\n"
"  prof report last --stacks --limit 10\n"
"  prof report last --format folded | flamegraph.pl > hot.svg\n",
};
