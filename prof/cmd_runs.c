/* prof runs: list the stored runs, newest last. */
#include <stdio.h>
#include <stdlib.h>

#include "db/runs.h"
#include "prof/verb.h"
#include "reports/runs.h"

static int cmd_runs(struct verb_ctx *vc)
{
	char *cause = NULL;
	if (report_runs_list_sort_check(vc->view.sort, &cause))
		return verb_usage_cause(vc, cause);
	struct db *db = verb_db(vc);
	if (!db)
		return EXIT_FAIL;
	struct db_run_summary *list;
	size_t n;
	if (db_runs_list(db, &list, &n, &cause))
		return fail_cause(cause, EXIT_FAIL);
	FILE *fp = verb_out(vc);
	if (fp)
		report_runs_list(list, n, &vc->view, vc->fmt, fp);
	db_runs_list_free(list, n);
	return fp ? EXIT_OK : EXIT_FAIL;
}

static const struct opt runs_opts[] = {
	OPT_INCLUDE(opt_rows),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

const struct verb verb_runs = {
	.fn = cmd_runs,
	.opts = runs_opts,
	.help =
"usage: prof runs [--sort KEY] [--limit N]\n"
"                 [--format table|json|csv|markdown] [-o FILE] [--db PATH]\n"
"\n"
"List the runs stored in the database, newest last: id, kind, start time\n"
"(UTC), exit status, wall time, thread count, host and command.\n"
"\n",
	.help_tail =
"Examples:\n"
"  prof runs --format json\n"
"  prof runs --sort run_id --limit 10     # the ten newest\n"
"  prof runs --sort wall_s                # the longest first\n",
	.max_operands = 0,
};
