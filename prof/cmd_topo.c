/* prof topo: the machine's cache domains and what a pin would pick. */
#include <stdio.h>
#include <stdlib.h>

#include "collectors/topology.h"
#include "prof/run/run.h"
#include "prof/verb.h"
#include "reports/topo.h"

struct topo_args {
	const char *sysfs;
};

static int cmd_topo(struct verb_ctx *vc)
{
	const struct topo_args *a = vc->args;
	struct topo t;
	char *cause = NULL;
	if (topo_read(&t, a->sysfs ? a->sysfs : "/", &cause))
		return fail_cause(cause, EXIT_FAIL);
	struct db_topology *d = topo_to_db(&t);
	topo_release(&t);
	if (!d)
		return error_msg("out of memory");
	FILE *fp = verb_out(vc);
	if (fp)
		report_topo(d, vc->fmt, fp);
	db_topology_release(d);
	free(d);
	return fp ? EXIT_OK : EXIT_FAIL;
}

static const struct opt topo_opts[] = {
	OPT_STRING(0, "sysfs", struct topo_args, sysfs, "ROOT",
		   "read ROOT/sys/devices/system/... instead of /"),
	OPT_INCLUDE(opt_output),
	OPT_END(),
};

static const char topo_help[] =
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
"\n";

static const char topo_tail[] =
"Examples:\n"
"  prof topo\n"
"  prof topo --format json | jq .largest_llc\n";

VERB(topo, topo_args, .max_operands = 0);
