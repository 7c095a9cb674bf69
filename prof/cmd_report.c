/* prof report: reprint a stored run per thread, per thread name, or total. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/runs.h"
#include "db/sleep.h"
#include "prof/cli.h"
#include "prof/commands.h"
#include "reports/runs.h"
#include "reports/sleep.h"

const char cmd_report_help[] =
"usage: prof report [RUN|last] [--by thread|name|total]\n"
"                   [--format table|json|csv|markdown] [-o FILE] [--db PATH]\n"
"\n"
"Reprint a stored run from the database (default: the newest), exactly as\n"
"'prof run' printed it, or grouped differently: --by name sums the threads\n"
"that share a name (five workers called the same become one row with a\n"
"thread count); --by total keeps only the totals.\n"
"\n"
"Examples:\n"
"  prof report last --by name\n"
"  prof report 12 --format csv -o run12.csv\n";

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

int cmd_report(int argc, char **argv, struct prof_ctx *ctx)
{
	enum { O_FORMAT = 256, O_DB, O_BY };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, O_DB },
		{ "by", required_argument, NULL, O_BY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum out_format fmt = OUT_TABLE;
	enum report_by by = BY_THREAD;
	const char *out = NULL, *dbopt = NULL;
	char buf[64];
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_FORMAT:
			if (cli_parse_format("report", optarg, &fmt, OUT_ALL_TEXT))
				return EXIT_USAGE;
			break;
		case O_BY:
			if (report_by_parse(optarg, &by))
				return usage_error("report", "bad --by '%s': expected "
						   "thread, name or total",
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
			return usage_error("report", "unknown option '%s'",
					   cli_echo(argv[optind - 1], buf, sizeof(buf)));
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
	if (db_open(&db, cli_db_path(ctx, dbopt), &cause)) {
		print_cause("error: ", cause);
		free(cause);
		return EXIT_FAIL;
	}
	struct db_run run;
	struct db_sleep sleep;
	memset(&sleep, 0, sizeof(sleep));
	int rc = db_run_load(db, id, &run, &cause);
	/* A `prof sleep` run has its own report: its cells, not threads. */
	bool is_sleep = !rc && run.kind && !strcmp(run.kind, "sleep");
	if (is_sleep && (rc = db_sleep_load(db, run.id, &sleep, &cause)))
		db_run_release(&run);
	db_close(db);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		return rc == -ENOENT ? EXIT_USAGE : EXIT_FAIL;
	}
	FILE *fp = cli_open_output(out, stdout);
	if (!fp) {
		db_sleep_release(&sleep);
		db_run_release(&run);
		return EXIT_FAIL;
	}
	if (is_sleep)
		report_sleep(&run, &sleep, fmt, fp);
	else
		report_run(&run, by, fmt, fp);
	db_sleep_release(&sleep);
	db_run_release(&run);
	return cli_close_output(fp, out);
}
