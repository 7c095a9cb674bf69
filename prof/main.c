/*
 * prof: a per-thread hardware performance-counter profiler. This file reads
 * the global options and hands argv to one verb from the table; the verbs
 * live in cmd_<verb>.c, one file each.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/cli.h"
#include "prof/commands.h"

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

static void print_main_usage(FILE *fp)
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
		print_main_usage(stdout);
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

int main(int argc, char **argv)
{
	struct prof_ctx ctx = { .db_path = NULL, .argv0 = argv[0] };
	int i = 1;

	/* Past a file size limit (ulimit -f) a write fails with EFBIG, which
	 * prof reports like a full disk, instead of killing prof with the
	 * counts unprinted. Workloads get the default back (prof/launch.c). */
	signal(SIGXFSZ, SIG_IGN);

	while (i < argc && argv[i][0] == '-') {
		const char *a = argv[i];
		if (!strcmp(a, "--db") && i + 1 < argc) {
			ctx.db_path = argv[i + 1];
			i += 2;
		} else if (!strcmp(a, "--db")) {
			fprintf(stderr, "error: option '--db' needs a value\n");
			fprintf(stderr, "hint: run 'prof --help' for the global options\n");
			return EXIT_USAGE;
		} else if (!strncmp(a, "--db=", 5)) {
			ctx.db_path = a + 5;
			i++;
		} else if (!strcmp(a, "-v")) {
			verbose++;
			i++;
		} else if (!strcmp(a, "--version")) {
			printf("prof %s\n", PROF_VERSION);
			return cli_close_output(stdout, NULL);
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_main_usage(stdout);
			return cli_close_output(stdout, NULL);
		} else {
			char buf[64];
			fprintf(stderr, "error: unknown option '%s'\n",
				cli_echo(a, buf, sizeof(buf)));
			fprintf(stderr, "hint: run 'prof --help' for the global options\n");
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		print_main_usage(stderr);
		return EXIT_USAGE;
	}

	char *cause = NULL;
	const struct cmd *c = cmd_find(argv[i], &cause);
	if (!c) {
		print_cause("error: ", cause);
		free(cause);
		return EXIT_USAGE;
	}
	/*
	 * `prof VERB --help` prints the same text as `prof help VERB`; each
	 * verb also takes --help anywhere among its own options.
	 */
	if (i + 1 < argc && (!strcmp(argv[i + 1], "--help") ||
			     !strcmp(argv[i + 1], "-h"))) {
		cmd_print_help(c, stdout);
		return cli_close_output(stdout, NULL);
	}
	int rc = c->fn(argc - i, argv + i, &ctx);
	/* Before exiting 0, check that stdout really took what we wrote. */
	int crc = cli_close_output(stdout, NULL);
	return rc == EXIT_OK ? crc : rc;
}
