/* prof compare: reprint a stored experiment, or compare two runs. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/experiments.h"
#include "db/runs.h"
#include "prof/cli.h"
#include "prof/commands.h"
#include "prof/runutil.h"
#include "reports/ab.h"

const char cmd_compare_help[] =
"usage: prof compare [EXPERIMENT|last] [--gate PCT] [--format FMT] [-o FILE]\n"
"       prof compare RUN RUN [--format FMT]\n"
"       prof compare            (lists the stored experiments)\n"
"\n"
"Re-render a stored 'prof ab' experiment from the database alone: the same\n"
"statistics, verdicts and tables 'prof ab' printed (with --gate, judged\n"
"against another gate). With two run ids, compare two single runs side by\n"
"side with their differences in percent: one run each gives no noise\n"
"estimate, so no verdict.\n"
"\n"
"Examples:\n"
"  prof compare last --format markdown\n"
"  prof compare 12 14\n";

int cmd_compare(int argc, char **argv, struct prof_ctx *ctx)
{
	enum { O_FORMAT = 256, O_DB, O_GATE };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, O_DB },
		{ "gate", required_argument, NULL, O_GATE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum out_format fmt = OUT_TABLE;
	const char *out = NULL, *dbopt = NULL;
	double gate_given = NAN;
	char buf[64];
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_FORMAT:
			if (cli_parse_format("compare", optarg, &fmt, OUT_ALL_TEXT))
				return EXIT_USAGE;
			break;
		case 'o':
			out = optarg;
			break;
		case O_DB:
			dbopt = optarg;
			break;
		case O_GATE:
			if (!cli_parse_double(optarg, 0, 1000, &gate_given))
				return usage_error("compare", "bad --gate '%s'",
						   cli_echo(optarg, buf, sizeof(buf)));
			break;
		case 'h':
			cli_print_verb_help("compare");
			return EXIT_OK;
		default:
			return cli_option_error("compare", c, argv);
		}
	}
	int nargs = argc - optind;
	if (nargs > 2)
		return usage_error("compare", "give an experiment, or two runs");
	long ids[2] = { 0, 0 };
	for (int i = 0; i < nargs; i++)
		if (cli_parse_run_id("compare", argv[optind + i], &ids[i]))
			return EXIT_USAGE;

	struct db *db;
	char *cause = NULL;
	if (!(db = verb_open_db(ctx, dbopt)))
		return EXIT_FAIL;
	FILE *fp = NULL;
	int rc = EXIT_OK;
	if (nargs == 0) {
		struct db_experiment_summary *v;
		size_t n;
		if (db_experiments_list(db, &v, &n, &cause)) {
			print_cause("error: ", cause);
			rc = EXIT_FAIL;
		} else if ((fp = cli_open_output(out, stdout))) {
			ab_render_list(v, n, fmt, fp);
			db_experiments_list_free(v, n);
			rc = cli_close_output(fp, out);
		} else {
			db_experiments_list_free(v, n);
			rc = EXIT_FAIL;
		}
	} else if (nargs == 2) {
		struct db_run a, b;
		int lrc;
		if ((lrc = db_run_load(db, ids[0], &a, &cause))) {
			print_cause("error: ", cause);
			rc = lrc == -ENOENT ? EXIT_USAGE : EXIT_FAIL;
		} else if ((lrc = db_run_load(db, ids[1], &b, &cause))) {
			print_cause("error: ", cause);
			db_run_release(&a);
			rc = lrc == -ENOENT ? EXIT_USAGE : EXIT_FAIL;
		} else {
			if (a.host.cpu_model && b.host.cpu_model &&
			    strcmp(a.host.cpu_model, b.host.cpu_model))
				warning_msg("runs from different machines: %s and %s",
					    a.host.cpu_model, b.host.cpu_model);
			if ((fp = cli_open_output(out, stdout))) {
				ab_render_runs(&a, &b, fmt, fp);
				rc = cli_close_output(fp, out);
			} else {
				rc = EXIT_FAIL;
			}
			db_run_release(&a);
			db_run_release(&b);
		}
	} else {
		struct db_experiment e, aa;
		bool have_aa = false;
		int lrc = db_experiment_load(db, ids[0], &e, &cause);
		if (lrc) {
			print_cause("error: ", cause);
			rc = lrc == -ENOENT ? EXIT_USAGE : EXIT_FAIL;
		} else {
			struct ab_gate_rule gate = ab_gate_for(db, &e, gate_given, &aa,
							       &have_aa);
			struct ab_analysis an;
			if (ab_analyze(&e, &gate, &an, &cause)) {
				print_cause("error: ", cause);
				rc = EXIT_FAIL;
			} else {
				if ((fp = cli_open_output(out, stdout))) {
					ab_render(&an, fmt, fp);
					rc = cli_close_output(fp, out);
				} else {
					rc = EXIT_FAIL;
				}
				ab_analysis_release(&an);
			}
			if (have_aa)
				db_experiment_release(&aa);
			db_experiment_release(&e);
		}
	}
	free(cause);
	db_close(db);
	return rc;
}
