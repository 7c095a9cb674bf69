/* prof topo: the machine's cache domains and what a pin would pick. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/topology.h"
#include "prof/cli.h"
#include "prof/commands.h"
#include "prof/pin.h"
#include "reports/topo.h"

const char cmd_topo_help[] =
"usage: prof topo [--sysfs ROOT] [--format table|json|csv|markdown] [-o FILE]\n"
"\n"
"Show the CPU and cache topology as sysfs describes it: every distinct\n"
"cache domain (level, type, size, CPUs), numbered in CPU order as\n"
"'prof run --pin llc:N' and 'l2:N' take them; which domain largest-llc\n"
"would pick and why; whether the last-level domains differ in size (on a\n"
"part where one die carries more L3, the domain a run lands on matters;\n"
"on a symmetric part it cannot); L2 clusters, SMT siblings, packages and\n"
"NUMA nodes. A part of the tree that is malformed is left out, with a\n"
"note: pinning to a wrong domain is worse than not pinning.\n"
"\n"
"  --sysfs ROOT   read ROOT/sys/devices/system/... instead of /\n"
"\n"
"Examples:\n"
"  prof topo\n"
"  prof topo --format json | jq .largest_llc\n";

int cmd_topo(int argc, char **argv, struct prof_ctx *ctx)
{
	(void)ctx;
	enum { O_FORMAT = 256, O_SYSFS };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "sysfs", required_argument, NULL, O_SYSFS },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum out_format fmt = OUT_TABLE;
	const char *root = "/", *out = NULL;
	char buf[64];
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_FORMAT:
			if (cli_parse_format("topo", optarg, &fmt, OUT_ALL_TEXT))
				return EXIT_USAGE;
			break;
		case O_SYSFS:
			root = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			cli_print_verb_help("topo");
			return EXIT_OK;
		default:
			return cli_option_error("topo", c, argv);
		}
	}
	if (optind < argc)
		return usage_error("topo", "unexpected argument '%s'",
				   cli_echo(argv[optind], buf, sizeof(buf)));
	struct topo t;
	char *cause = NULL;
	if (topo_read(&t, root, &cause)) {
		print_cause("error: ", cause);
		free(cause);
		return EXIT_FAIL;
	}
	struct db_topology *d = topo_to_db(&t);
	topo_release(&t);
	if (!d)
		return error_msg("out of memory");
	FILE *fp = cli_open_output(out, stdout);
	if (!fp) {
		db_topology_release(d);
		free(d);
		return EXIT_FAIL;
	}
	report_topo(d, fmt, fp);
	db_topology_release(d);
	free(d);
	return cli_close_output(fp, out);
}
