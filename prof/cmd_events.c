/* prof events: list what this machine can encode, or show one attr. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events.h"
#include "collectors/mission.h"
#include "collectors/pmus.h"
#include "prof/verb.h"
#include "reports/events.h"

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
		.raw_family = fam && fam->raw ? fam->name : NULL,
		.counters = rc, .ncounters = MISSION_COUNT,
	};
	report_mission(&m, fmt, fp);
	for (int i = 0; i < MISSION_COUNT; i++) {
		free(causes[i]);
		if (rc[i].encoded)
			event_desc_release(&ev[i]);
	}
}

struct events_args {
	const char *attr;	/* --attr NAME */
	bool mission;
	bool allow_generic;
	bool pmus;
	const char *sysfs;	/* --sysfs ROOT, for --pmus */
};

/* --pmus: the kernel's PMUs from sysfs (libpfm4 is not asked). */
static int print_pmus(struct verb_ctx *vc, const char *root)
{
	struct pmu_list l;
	char *cause = NULL;
	int rc = pmus_read(&l, root, &cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	struct report_pmu *rp = calloc(l.n + 1, sizeof(*rp));
	char **cpus = calloc(l.n + 1, sizeof(*cpus));
	int ret = EXIT_FAIL;
	if (!rp || !cpus) {
		error_msg("out of memory");
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		const struct pmu *p = &l.pmus[i];
		if (p->has_cpus && !(cpus[i] = cpumask_format(&p->cpus))) {
			error_msg("out of memory");
			goto out;
		}
		rp[i] = (struct report_pmu){
			.name = p->name, .type = p->type, .core = p->core,
			.cpus = cpus[i], .pmu_name = pmu_cap(p, "pmu_name"),
		};
	}
	FILE *fp = verb_out(vc);
	if (fp) {
		report_pmus(rp, l.n, vc->fmt, fp);
		ret = EXIT_OK;
	}
out:
	for (size_t i = 0; cpus && i < l.n; i++)
		free(cpus[i]);
	free(cpus);
	free(rp);
	pmus_release(&l);
	return ret;
}

static int cmd_events(struct verb_ctx *vc)
{
	const struct events_args *a = vc->args;
	const char *pattern = vc->argc ? vc->argv[0] : NULL;
	char buf[64];
	if (a->sysfs && !a->pmus)
		return usage_error(vc->name, "--sysfs goes with --pmus");
	if (a->pmus && (a->mission || a->attr || pattern || vc->view.sort ||
			vc->view.limit))
		return usage_error(vc->name, "--pmus lists the kernel's PMUs; it "
				   "takes no %s", a->mission ? "--mission" : a->attr
				   ? "--attr" : pattern ? "pattern" : vc->view.sort
				   ? "--sort" : "--limit");
	if (a->pmus)
		return print_pmus(vc, a->sysfs ? a->sysfs : "/");
	if (a->mission && (a->attr || pattern))
		return usage_error(vc->name, "--mission lists the map; it takes "
				   "no %s", a->attr ? "--attr" : "pattern");
	if (a->attr && pattern)
		return usage_error(vc->name, "--attr shows the one event it names; "
				   "it takes no pattern");
	if ((a->mission || a->attr) && (vc->view.sort || vc->view.limit))
		return usage_error(vc->name, "--%s goes with the list of events, "
				   "not with %s", vc->view.sort ? "sort" : "limit",
				   a->mission ? "--mission" : "--attr");

	char *cause = NULL;
	int rc = events_init(&cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	struct report_event_list *list = NULL;
	if (!a->mission && !a->attr) {
		list = report_event_list_new(pattern != NULL);
		events_foreach(pattern, add_one, list);
		if (report_event_list_sort_check(list, vc->view.sort, &cause)) {
			report_event_list_free(list);
			return verb_usage_cause(vc, cause);
		}
		report_event_list_view(list, &vc->view);
	}
	FILE *fp = verb_out(vc);
	if (!fp) {
		report_event_list_free(list);
		return EXIT_FAIL;
	}
	if (a->mission) {
		print_mission(vc->fmt, fp);
		return EXIT_OK;
	}
	if (a->attr) {
		struct event_desc ev;
		rc = event_resolve(a->attr, a->allow_generic ? EVENT_ALLOW_GENERIC : 0,
				   &ev, &cause);
		if (rc)
			return fail_cause(cause, exit_code_for(rc));
		struct report_event_attr ra = {
			.name = ev.name, .canonical = ev.canonical,
			.mission_event = ev.mission ? ev.mission->perf_name : NULL,
			.mission_family = ev.mission ? ev.family->label : NULL,
			.mission_summary = ev.mission ? ev.mission->summary : NULL,
			.hardware = ev.hardware, .attr = &ev.attr,
		};
		report_event_attr(&ra, event_type_name(ev.attr.type), vc->fmt, fp);
		event_desc_release(&ev);
		return EXIT_OK;
	}
	report_events(list, pattern ? cli_echo(pattern, buf, sizeof(buf)) : NULL,
		      vc->fmt, fp);
	report_event_list_free(list);
	return EXIT_OK;
}

static const struct opt events_opts[] = {
	OPT_STRING(0, "attr", struct events_args, attr, "NAME",
		   "print the perf_event_attr of NAME"),
	OPT_BOOL(0, "mission", struct events_args, mission,
		 "print the mission map of this processor"),
	OPT_BOOL(0, "pmus", struct events_args, pmus,
		 "list the kernel's PMUs and which count core events"),
	OPT_STRING(0, "sysfs", struct events_args, sysfs, "ROOT",
		   "with --pmus: read ROOT/sys instead of /sys"),
	OPT_BOOL(0, "allow-generic", struct events_args, allow_generic,
		 "with --attr: let perf's generic cache events stand\n"
		 "in for a mission counter the map lacks"),
	OPT_INCLUDE(opt_rows),
	OPT_INCLUDE(opt_output),
	OPT_END(),
};

static const char events_help[] =
"usage: prof events [PATTERN] [--sort KEY] [--limit N]\n"
"                   [--format table|json|csv|markdown] [-o FILE]\n"
"       prof events --attr NAME [--allow-generic] [-o FILE]\n"
"       prof events --mission [--format table|json|csv|markdown] [-o FILE]\n"
"       prof events --pmus [--sysfs ROOT] [--format table|json|csv|markdown]\n"
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
"--pmus lists the kernel's PMUs from /sys/bus/event_source/devices: each\n"
"one's type (perf_event_attr.type), its CPUs and caps/pmu_name, and which\n"
"are core PMUs, those that count the CPU's own events: cpu on x86,\n"
"cpu_core and cpu_atom on Intel hybrid (one per kind of core, each on its\n"
"own CPUs), armv8_* on arm64. None means a hardware event cannot count.\n"
"\n"
"LIBPFM_FORCE_PMU=PMU (e.g. skl, amd64_fam19h_zen4) makes libpfm4 act as\n"
"if this were that processor, to see another family's encodings.\n"
"\n";

static const char events_tail[] =
"Examples:\n"
"  prof events miss\n"
"  prof events --mission\n"
"  prof events --attr llc-misses\n"
"  prof events --pmus\n"
"  LIBPFM_FORCE_PMU=skl prof events --attr l1i-misses\n";

VERB(events, events_args, .max_operands = 1);
