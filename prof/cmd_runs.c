/* prof runs: list the stored runs, newest last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/runs.h"
#include "prof/verb.h"
#include "reports/runs.h"

struct runs_args {
	const char *kinds;	/* --kind */
	time_t since;		/* --since; 0: any time */
	const char *tag;	/* --tag */
	bool all;
};

static int cmd_runs(struct verb_ctx *vc)
{
	const struct runs_args *a = vc->args;
	char *cause = NULL;
	if (report_runs_list_sort_check(vc->view.sort, &cause))
		return verb_usage_cause(vc, cause);
	struct db *db = verb_db(vc);
	if (!db)
		return EXIT_FAIL;
	struct db_run_summary *list;
	size_t n;
	int rc = db_runs_list(db, &list, &n, &cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	const struct runs_filter f = { a->kinds, a->since, a->tag, a->all };
	if (report_runs_filter_check(list, n, &f, &cause)) {
		db_runs_list_free(list, n);
		return verb_usage_cause(vc, cause);
	}
	FILE *fp = verb_out(vc);
	if (fp)
		report_runs_list(list, n, &f, &vc->view, vc->fmt, fp);
	db_runs_list_free(list, n);
	return fp ? EXIT_OK : EXIT_FAIL;
}

static int parse_since(struct verb_ctx *vc, const char *arg, void *field)
{
	char buf[64];
	if (!cli_parse_when(arg, time(NULL), field))
		return usage_error(vc->name, "bad --since '%s': expected a time before "
				   "now (2h, 3d: s, m, h, d or w) or a UTC date and "
				   "time (2026-11-30, 2026-11-30T14:05)",
				   cli_echo(arg, buf, sizeof(buf)));
	return 0;
}

static int parse_kind(struct verb_ctx *vc, const char *arg, void *field)
{
	char buf[64];
	if (!*arg || arg[strlen(arg) - 1] == ',' || *arg == ',' || strstr(arg, ",,"))
		return usage_error(vc->name, "bad --kind '%s': expected run, attach, "
				   "record, ab or sleep (several with commas)",
				   cli_echo(arg, buf, sizeof(buf)));
	*(const char **)field = arg;
	return 0;
}

static const struct opt runs_opts[] = {
	OPT_CALLBACK(0, "kind", struct runs_args, kinds, "KIND", parse_kind,
		     "only runs of these kinds: run, attach (-p PID),\n"
		     "record, ab or sleep; several with commas"),
	OPT_CALLBACK(0, "since", struct runs_args, since, "WHEN", parse_since,
		     "only runs started since WHEN: 2h, 3d (s, m, h, d,\n"
		     "w before now), or a UTC date and time\n"
		     "(2026-11-30, 2026-11-30T14:05)"),
	OPT_STRING(0, "tag", struct runs_args, tag, "NAME",
		   "only the runs tagged NAME ('prof run --tag NAME')\n"
		   "and those of 'prof ab' arms named NAME"),
	OPT_BOOL(0, "all", struct runs_args, all,
		 "the runs of 'prof ab' experiments too"),
	OPT_INCLUDE(opt_rows),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

static const char runs_help[] =
"usage: prof runs [--kind KIND] [--since WHEN] [--tag NAME] [--all]\n"
"                 [--sort KEY] [--limit N]\n"
"                 [--format table|json|csv|markdown] [-o FILE] [--db PATH]\n"
"\n"
"List the runs stored in the database, newest last: id, kind, start time\n"
"(UTC), exit status, wall time, thread count, host and command. --limit N\n"
"keeps the newest N (with --sort, the first N in its order). 'last', where\n"
"a verb takes a run (report, html, explain, modules), is the newest run\n"
"this list shows.\n"
"\n"
"The runs 'prof ab' and 'prof pressure' made for their experiments are\n"
"left out (the table says how many; JSON's hidden_ab_runs): 'prof compare'\n"
"shows them as experiments. --all, --kind ab or --tag NAME lists them,\n"
"with the experiment and the arm each ran in. --tag NAME matches the tag\n"
"a run was stored with ('prof run --tag', shown in a tag column) or the\n"
"name of the ab arm it ran in.\n"
"\n";

static const char runs_tail[] =
"Examples:\n"
"  prof runs --format json\n"
"  prof runs --kind record --since 3d\n"
"  prof runs --tag base                   # tagged base, or ab arms named base\n"
"  prof runs --limit 10                   # the ten newest\n"
"  prof runs --sort wall_s                # the longest first\n";

VERB(runs, runs_args, .max_operands = 0);
