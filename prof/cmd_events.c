/* prof events: list what this machine can encode, or show one attr. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events.h"
#include "prof/cli.h"
#include "prof/commands.h"
#include "reports/events.h"

const char cmd_events_help[] =
"usage: prof events [PATTERN] [--format table|json|csv|markdown] [-o FILE]\n"
"       prof events --attr NAME [--allow-generic] [-o FILE]\n"
"       prof events --mission [--format table|json|csv|markdown] [-o FILE]\n"
"\n"
"List the events this machine can encode (names containing PATTERN, case\n"
"insensitive): first prof's mission counters, then the perf-style generic\n"
"names, then the processor's own PMU events as libpfm4 knows them.\n"
"Encoding is not counting: whether the kernel lets an event count (a VM\n"
"often has no PMU) shows only when a run opens it, and 'prof run' says so.\n"
"\n"
"The mission counters llc-misses, itlb-misses, l1i-misses, branch-misses,\n"
"cycles and instructions keep their names on every machine; the event\n"
"behind each comes from a map, one table per processor family, taken from\n"
"perf's per-model event tables and the vendor's manuals. --mission prints\n"
"the table of the family libpfm4 detects here: each counter's event, its\n"
"encoding, what it counts (and leaves out, where it is a proxy) and its\n"
"source. On a family without a table, cycles, instructions and\n"
"branch-misses are perf's generic events, and the three cache counters\n"
"are refused unless --allow-generic lets perf's generic cache events\n"
"stand in. perf::cycles names perf's generic event everywhere.\n"
"\n"
"--attr NAME prints the perf_event_attr prof would open for NAME (type,\n"
"config, config1, config2, exclude bits), in the key=value form of\n"
"'perf stat -vv', to check an encoding against perf.\n"
"\n"
"LIBPFM_FORCE_PMU=PMU (e.g. skl, amd64_fam19h_zen4) makes libpfm4 act as\n"
"if this were that processor, to see another family's encodings.\n"
"\n"
"Examples:\n"
"  prof events miss\n"
"  prof events --mission\n"
"  prof events --attr llc-misses\n"
"  LIBPFM_FORCE_PMU=skl prof events --attr l1i-misses\n";

/* Copy each event into the report's list. */
static int add_one(const struct event_info *info, void *arg)
{
	const struct report_event e = {
		.name = info->name, .pmu = info->pmu, .desc = info->desc,
		.hardware = info->hardware, .umasks = info->umasks,
		.needs_umask = info->needs_umask,
	};
	report_event_list_add(arg, &e);
	return 0;
}

static void print_attr(const struct event_desc *ev, FILE *fp)
{
	const struct perf_event_attr *a = &ev->attr;
	fprintf(fp, "event          %s\n", ev->name);
	fprintf(fp, "encoded as     %s\n", ev->canonical);
	if (ev->mission)
		fprintf(fp, "mission        %s on %s: %s\n", ev->mission->perf_name,
			ev->family->label, ev->mission->summary);
	fprintf(fp, "type           %u (%s)\n", a->type, event_type_name(a->type));
	fprintf(fp, "size           %u\n", a->size);
	fprintf(fp, "config         %#llx\n", (unsigned long long)a->config);
	fprintf(fp, "config1        %#llx\n", (unsigned long long)a->config1);
	fprintf(fp, "config2        %#llx\n", (unsigned long long)a->config2);
	fprintf(fp, "exclude_user   %u\n", a->exclude_user);
	fprintf(fp, "exclude_kernel %u\n", a->exclude_kernel);
	fprintf(fp, "exclude_hv     %u\n", a->exclude_hv);
	fprintf(fp, "exclude_guest  %u\n", a->exclude_guest);
	fprintf(fp, "exclude_host   %u\n", a->exclude_host);
	fprintf(fp, "precise_ip     %u\n", a->precise_ip);
	fprintf(fp, "hardware       %s\n", ev->hardware ? "yes (needs a PMU counter)"
							 : "no (software event)");
}

/*
 * --mission: the map's table for the family libpfm4 detects (or is forced
 * to), each counter with its event, encoding, meaning and source; on a
 * family without one, perf's generic stand-ins.
 */
static void print_mission(enum out_format fmt, FILE *fp)
{
	const char *pmu = NULL, *pdesc = NULL;
	const struct mission_family *fam = events_mission_family(&pmu, &pdesc);
	const struct mission_family *shown = fam ? fam : mission_generic();
	struct report_mission_counter rc[MISSION_COUNT];
	char events[MISSION_COUNT][512];
	struct event_desc ev[MISSION_COUNT];
	char *causes[MISSION_COUNT];
	for (int i = 0; i < MISSION_COUNT; i++) {
		const struct mission_event *me = &shown->events[i];
		if (fam)
			snprintf(events[i], sizeof(events[i]), "%s::%s", pmu, me->event);
		else
			snprintf(events[i], sizeof(events[i]), "%s", me->event);
		causes[i] = NULL;
		bool ok = !event_resolve(me->name, EVENT_ALLOW_GENERIC, &ev[i],
					 &causes[i]);
		rc[i] = (struct report_mission_counter){
			.name = me->name, .event = events[i], .perf_name = me->perf_name,
			.encoded = ok, .cause = causes[i],
			.type = ok ? ev[i].attr.type : 0,
			.type_name = ok ? event_type_name(ev[i].attr.type) : NULL,
			.config = ok ? ev[i].attr.config : 0,
			.config1 = ok ? ev[i].attr.config1 : 0,
			.summary = me->summary, .counts = me->counts,
			.source = me->source, .needs_consent = me->needs_consent,
		};
	}
	const struct report_mission m = {
		.family = fam ? fam->label : NULL,
		.pmu = strcmp(pmu, "none") ? pmu : NULL, .pmu_desc = pdesc,
		.forced = getenv("LIBPFM_FORCE_PMU") != NULL,
		.counters = rc, .ncounters = MISSION_COUNT,
	};
	report_mission(&m, fmt, fp);
	for (int i = 0; i < MISSION_COUNT; i++) {
		free(causes[i]);
		if (rc[i].encoded)
			event_desc_release(&ev[i]);
	}
}

int cmd_events(int argc, char **argv, struct prof_ctx *ctx)
{
	(void)ctx;
	enum { O_FORMAT = 256, O_ATTR, O_MISSION, O_GENERIC };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "attr", required_argument, NULL, O_ATTR },
		{ "mission", no_argument, NULL, O_MISSION },
		{ "allow-generic", no_argument, NULL, O_GENERIC },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum out_format fmt = OUT_TABLE;
	const char *attr = NULL, *out = NULL;
	bool mission = false;
	enum event_flags flags = 0;
	char buf[64];
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case O_FORMAT:
			if (cli_parse_format("events", optarg, &fmt, OUT_ALL_TEXT))
				return EXIT_USAGE;
			break;
		case 'o':
			out = optarg;
			break;
		case O_ATTR:
			attr = optarg;
			break;
		case O_MISSION:
			mission = true;
			break;
		case O_GENERIC:
			flags |= EVENT_ALLOW_GENERIC;
			break;
		case 'h':
			cli_print_verb_help("events");
			return EXIT_OK;
		default:
			return cli_option_error("events", c, argv);
		}
	}
	const char *pattern = optind < argc ? argv[optind++] : NULL;
	if (optind < argc)
		return usage_error("events", "unexpected argument '%s'",
				   cli_echo(argv[optind], buf, sizeof(buf)));
	if (mission && (attr || pattern))
		return usage_error("events", "--mission lists the map; it takes "
				   "no %s", attr ? "--attr" : "pattern");

	char *cause = NULL;
	int rc = events_init(&cause);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	if (mission) {
		FILE *fp = cli_open_output(out, stdout);
		if (!fp)
			return EXIT_FAIL;
		print_mission(fmt, fp);
		return cli_close_output(fp, out);
	}
	if (attr) {
		struct event_desc ev;
		rc = event_resolve(attr, flags, &ev, &cause);
		if (rc) {
			print_cause("error: ", cause);
			free(cause);
			return rc == -ENOENT || rc == -EINVAL || rc == -EOPNOTSUPP
			       ? EXIT_USAGE : EXIT_FAIL;
		}
		FILE *fp = cli_open_output(out, stdout);
		if (fp)
			print_attr(&ev, fp);
		event_desc_release(&ev);
		return fp ? cli_close_output(fp, out) : EXIT_FAIL;
	}
	struct report_event_list *list = report_event_list_new(pattern != NULL);
	events_foreach(pattern, add_one, list);
	FILE *fp = cli_open_output(out, stdout);
	if (fp)
		report_events(list, pattern ? cli_echo(pattern, buf, sizeof(buf)) : NULL,
			      fmt, fp);
	report_event_list_free(list);
	return fp ? cli_close_output(fp, out) : EXIT_FAIL;
}
