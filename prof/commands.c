/* commands: the one table of verbs, as perf and git keep it, and the
 * help verb that lists it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "prof/commands.h"

static const char help_help[] =
"usage: prof help [VERB]\n"
"\n"
"Print the list of verbs, or one verb's options with an example.\n"
"'prof help VERB' and 'prof VERB --help' print the same text.\n"
"\n"
"Example:\n"
"  prof help run\n";

const struct cmd commands[] = {
	{ "run", cmd_run, "count events per thread for a command or a process",
	  cmd_run_help },
	{ "record", cmd_record, "sample a command with call stacks",
	  cmd_record_help },
	{ "runs", cmd_runs, "list the stored runs", cmd_runs_help },
	{ "report", cmd_report, "reprint a stored run per thread, name or total",
	  cmd_report_help },
	{ "ab", cmd_ab, "interleaved A/B runs with paired statistics", cmd_ab_help },
	{ "compare", cmd_compare, "reprint an experiment, or compare two runs",
	  cmd_compare_help },
	{ "explain", cmd_explain, "footprint, codegen or cache-domain effect?",
	  cmd_explain_help },
	{ "topo", cmd_topo, "show cache domains and what a pin would pick",
	  cmd_topo_help },
	{ "sleep", cmd_sleep, "measure how well short sleeps keep time, per mode",
	  cmd_sleep_help },
	{ "events", cmd_events, "list the events this machine can encode",
	  cmd_events_help },
	{ "modules", cmd_modules, "list a run's code modules, largest first",
	  cmd_modules_help },
	{ "help", cmd_help, "print help for a verb", help_help },
	{ NULL, NULL, NULL, NULL },
};

static const char main_usage[] =
"usage: prof [--db PATH] [-v] <verb> [options]\n"
"\n"
"prof counts hardware and software events per thread for a command, stores\n"
"every run in one SQLite file, and reports on it: per-thread tables, A/B\n"
"experiments with honest statistics, and working-set attribution.\n"
"\n"
"Global options:\n"
"  --db PATH     the database (default: $PROF_DB, else ./prof.db)\n"
"  -v            say more on stderr (repeat for more)\n"
"  --version     print the version\n"
"\n"
"Environment:\n"
"  PROF_DB          the database, when --db is not given\n"
"  PROF_DB_TIMEOUT  seconds to wait for another writer's lock on the\n"
"                   database (default 10)\n"
"\n"
"Verbs:\n";

void cmd_print_usage(FILE *fp)
{
	fputs(main_usage, fp);
	for (const struct cmd *c = commands; c->name; c++)
		fprintf(fp, "  %-9s %s\n", c->name, c->summary);
	fputs("\nRun 'prof help VERB' or 'prof VERB --help' for a verb's options "
	      "and an example.\n", fp);
}

int cmd_help(int argc, char **argv, struct prof_ctx *ctx)
{
	(void)ctx;
	if (argc < 2) {
		cmd_print_usage(stdout);
		return EXIT_OK;
	}
	char *cause = NULL;
	const struct cmd *c = cmd_find(argv[1], &cause);
	if (!c) {
		print_cause("error: ", cause);
		free(cause);
		return EXIT_USAGE;
	}
	cmd_print_help(c, stdout);
	return EXIT_OK;
}
