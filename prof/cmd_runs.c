/* prof runs: list the stored runs, newest last. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/runs.h"
#include "prof/cli.h"
#include "prof/commands.h"
#include "prof/runutil.h"
#include "reports/runs.h"

const char cmd_runs_help[] =
"usage: prof runs [--format table|json|csv|markdown] [-o FILE] [--db PATH]\n"
"\n"
"List the runs stored in the database, newest last: id, kind, start time\n"
"(UTC), exit status, wall time, thread count, host and command.\n"
"\n"
"Example:\n"
"  prof runs --format json\n";

int cmd_runs(int argc, char **argv, struct prof_ctx *ctx)
{
	enum { O_FORMAT = 256, O_DB };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, O_DB },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum out_format fmt = OUT_TABLE;
	const char *out = NULL, *dbopt = NULL;
	char buf[64];
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_FORMAT:
			if (cli_parse_format("runs", optarg, &fmt, OUT_ALL_TEXT))
				return EXIT_USAGE;
			break;
		case 'o':
			out = optarg;
			break;
		case O_DB:
			dbopt = optarg;
			break;
		case 'h':
			cli_print_verb_help("runs");
			return EXIT_OK;
		default:
			return cli_option_error("runs", c, argv);
		}
	}
	if (optind < argc)
		return usage_error("runs", "unexpected argument '%s'",
				   cli_echo(argv[optind], buf, sizeof(buf)));

	struct db *db;
	char *cause = NULL;
	if (!(db = verb_open_db(ctx, dbopt)))
		return EXIT_FAIL;
	struct db_run_summary *list;
	size_t n;
	int rc = db_runs_list(db, &list, &n, &cause);
	db_close(db);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		return EXIT_FAIL;
	}
	FILE *fp = cli_open_output(out, stdout);
	if (!fp) {
		db_runs_list_free(list, n);
		return EXIT_FAIL;
	}
	report_runs_list(list, n, fmt, fp);
	db_runs_list_free(list, n);
	return cli_close_output(fp, out);
}
