/*
 * prof: a per-thread hardware performance-counter profiler. This file reads
 * the global options and hands argv to one verb from the table; the verbs
 * live in cmd_<verb>.c, one file each.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/cli.h"
#include "prof/verb.h"

int main(int argc, char **argv)
{
	struct prof_ctx ctx = { .db_path = NULL, .argv0 = argv[0] };
	int i = 1;

	/* Past a file size limit (ulimit -f) a write fails with EFBIG, which
	 * prof reports like a full disk, instead of killing prof with the
	 * counts unprinted. Workloads get the default back (prof/run/launch.c). */
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
		} else if (a[1] == 'v' && strspn(a + 1, "v") == strlen(a + 1)) {
			verbose += (int)strlen(a + 1);	/* -v, -vv, -vvv */
			i++;
		} else if (!strcmp(a, "--version")) {
			printf("prof %s\n", PROF_VERSION);
			return cli_close_output(stdout, NULL);
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			prof_print_usage(stdout);
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
		prof_print_usage(stderr);
		return EXIT_USAGE;
	}

	char *cause = NULL;
	const struct cmd *c = cmd_find(argv[i], &cause);
	if (!c) {
		print_cause("error: ", cause);
		free(cause);
		return EXIT_USAGE;
	}
	int rc = verb_main(c, argc - i, argv + i, &ctx);
	/* Before exiting 0, check that stdout really took what we wrote. */
	int crc = cli_close_output(stdout, NULL);
	return rc == EXIT_OK ? crc : rc;
}
