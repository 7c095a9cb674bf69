/* prof modules: the code modules of a stored run, largest first. */
#include <stdio.h>
#include <stdlib.h>

#include "db/runs.h"
#include "prof/verb.h"
#include "reports/modules.h"

static int cmd_modules(struct verb_ctx *vc)
{
	long id = 0;
	if (vc->argc && cli_parse_run_id(vc->name, vc->argv[0], &id))
		return EXIT_USAGE;
	struct db *db = verb_db(vc);
	if (!db)
		return EXIT_FAIL;
	struct db_run run;
	char *cause = NULL;
	int rc = db_run_load(db, id, &run, &cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	if (report_modules_sort_check(&run, vc->view.sort, &cause)) {
		db_run_release(&run);
		return verb_usage_cause(vc, cause);
	}
	FILE *fp = verb_out(vc);
	if (fp)
		report_modules_view(&run, &vc->view, vc->fmt, fp);
	db_run_release(&run);
	return fp ? EXIT_OK : EXIT_FAIL;
}

static const struct opt modules_opts[] = {
	OPT_INCLUDE(opt_rows),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

const struct verb verb_modules = {
	.fn = cmd_modules,
	.opts = modules_opts,
	.help =
"usage: prof modules [RUN|last] [--sort KEY] [--limit N]\n"
"                    [--format table|json|csv|markdown] [-o FILE] [--db PATH]\n"
"\n"
"List the code modules of a stored run (default, or last: the newest run\n"
"'prof runs' lists), largest first: every executable file the workload\n"
"mapped (the program, its shared libraries), with the bytes it mapped\n"
"executable, the sizes of its .text and of all its executable sections\n"
"(read from the ELF file after the run; '-' with a note when the file is\n"
"gone, changed or unreadable), how many processes mapped it and its build\n"
"id. Anonymous executable memory (JIT or recompiled code) is summed as\n"
"[anon:exec], or named by the /tmp/perf-PID.map its process wrote. The\n"
"code footprint is the sum.\n"
"\n"
"For a run made with 'prof run --working-set', a touched column gives the\n"
"code each module faulted in: an upper bound, since file-backed pages\n"
"fault in 64 KiB windows (fault-around).\n"
"\n",
	.help_tail =
"Examples:\n"
"  prof modules\n"
"  prof modules 12 --format json\n"
"  prof modules last --sort text_bytes --limit 5\n",
	.max_operands = 1,
};
