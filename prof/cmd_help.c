/* prof help: the list of verbs, or one verb's help. */
#include <stdio.h>
#include <stdlib.h>

#include "prof/verb.h"

static const char main_usage[] =
"usage: prof [--db PATH] [-v] <verb> [options]\n"
"\n"
"prof counts hardware and software events per thread for a command, stores\n"
"every run in one SQLite file, and reports on it: per-thread tables, A/B\n"
"experiments with honest statistics, and working-set attribution.\n"
"\n"
"Global options:\n"
"  --db PATH     the database (default: $PROF_DB, else ./prof.db)\n"
"  -v            say more: under a run's table the machine's mission map,\n"
"                the counters it refused and why in full (else in a few\n"
"                words); on stderr the time a run took to store, the debug\n"
"                file that named each module\n"
"  --version     print the version\n"
"\n"
"Environment:\n"
"  PROF_DB          the database, when --db is not given\n"
"  PROF_DB_TIMEOUT  seconds to wait for another writer's lock on the\n"
"                   database (default 10)\n"
"\n"
"Verbs:\n";

void prof_print_usage(FILE *fp)
{
	fputs(main_usage, fp);
	for (const struct cmd *c = commands; c->name; c++)
		fprintf(fp, "  %-9s %s\n", c->name, c->summary);
	fputs("\nRun 'prof help VERB' or 'prof VERB --help' for a verb's options "
	      "and an example.\n", fp);
}

static int cmd_help(struct verb_ctx *vc)
{
	if (vc->argc < 1) {
		prof_print_usage(stdout);
		return EXIT_OK;
	}
	char *cause = NULL;
	const struct cmd *c = cmd_find(vc->argv[0], &cause);
	if (!c) {
		print_cause("error: ", cause);
		free(cause);
		return EXIT_USAGE;
	}
	cmd_print_help(c, stdout);
	return EXIT_OK;
}

static const struct opt help_opts[] = {
	OPT_END(),
};

const struct verb verb_help = {
	.fn = cmd_help,
	.opts = help_opts,
	.help =
"usage: prof help [VERB]\n"
"\n"
"Print the list of verbs, or one verb's options with an example.\n"
"'prof help VERB' and 'prof VERB --help' print the same text.\n"
"\n",
	.help_tail =
"Example:\n"
"  prof help run\n",
	.max_operands = 1,
};
