/* prof modules: the code modules of a stored run, largest first. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/runs.h"
#include "prof/cli.h"
#include "prof/commands.h"
#include "prof/runutil.h"
#include "reports/modules.h"

const char cmd_modules_help[] =
"usage: prof modules [RUN|last] [--format table|json|csv|markdown] [-o FILE]\n"
"                    [--db PATH]\n"
"\n"
"List the code modules of a stored run (default: the newest), largest\n"
"first: every executable file the workload mapped (the program, its\n"
"shared libraries), with the bytes it mapped executable, the sizes of its\n"
".text and of all its executable sections (read from the ELF file after\n"
"the run; '-' with a note when the file is gone, changed or unreadable),\n"
"how many processes mapped it and its build id. Anonymous executable\n"
"memory (JIT or recompiled code) is summed as [anon:exec], or named by\n"
"the /tmp/perf-PID.map its process wrote. The code footprint is the sum.\n"
"\n"
"For a run made with 'prof run --working-set', a touched column gives the\n"
"code each module faulted in: an upper bound, since file-backed pages\n"
"fault in 64 KiB windows (fault-around).\n"
"\n"
"Examples:\n"
"  prof modules\n"
"  prof modules 12 --format json\n";

int cmd_modules(int argc, char **argv, struct prof_ctx *ctx)
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
			if (cli_parse_format("modules", optarg, &fmt, OUT_ALL_TEXT))
				return EXIT_USAGE;
			break;
		case 'o':
			out = optarg;
			break;
		case O_DB:
			dbopt = optarg;
			break;
		case 'h':
			cli_print_verb_help("modules");
			return EXIT_OK;
		default:
			return cli_option_error("modules", c, argv);
		}
	}
	long id = 0;
	if (optind < argc && cli_parse_run_id("modules", argv[optind++], &id))
		return EXIT_USAGE;
	if (optind < argc)
		return usage_error("modules", "unexpected argument '%s'",
				   cli_echo(argv[optind], buf, sizeof(buf)));

	struct db *db;
	char *cause = NULL;
	if (!(db = verb_open_db(ctx, dbopt)))
		return EXIT_FAIL;
	struct db_run run;
	int rc = db_run_load(db, id, &run, &cause);
	db_close(db);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		return rc == -ENOENT ? EXIT_USAGE : EXIT_FAIL;
	}
	FILE *fp = cli_open_output(out, stdout);
	if (!fp) {
		db_run_release(&run);
		return EXIT_FAIL;
	}
	report_modules(&run, fmt, fp);
	db_run_release(&run);
	return cli_close_output(fp, out);
}
