/* prof events: list what this machine can encode, or show one attr. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events.h"
#include "prof/verb.h"

struct list_state {
	FILE *fp;
	enum out_format fmt;
	struct jw *w;
	size_t n;
	const char *last_pmu;
	bool show_umasks;	/* a pattern was given: list unit masks too */
};

static int print_one(const struct event_info *info, void *arg)
{
	struct list_state *s = arg;
	FILE *fp = s->fp;
	s->n++;
	if (s->fmt == OUT_JSON) {
		jw_obj_begin(s->w);
		jw_key(s->w, "name");
		jw_str(s->w, info->name);
		jw_key(s->w, "pmu");
		jw_str(s->w, info->pmu);
		jw_key(s->w, "hardware");
		jw_bool(s->w, info->hardware);
		jw_key(s->w, "description");
		jw_str(s->w, info->desc);
		jw_key(s->w, "umasks");
		jw_str(s->w, info->umasks);
		jw_key(s->w, "needs_umask");
		jw_bool(s->w, info->needs_umask);
		jw_obj_end(s->w);
		return 0;
	}
	if (!s->last_pmu || strcmp(s->last_pmu, info->pmu)) {
		fprintf(fp, "%s%s:\n", s->last_pmu ? "\n" : "",
		       !strcmp(info->pmu, "perf") ? "generic (perf-style names)"
		       : !strcmp(info->pmu, "prof") ? "mission counters (prof's "
						      "names; --mission)"
		       : info->pmu);
		s->last_pmu = info->pmu;
	}
	if (info->desc) {
		int w = (int)strlen(info->name) < 44 ? 44 : (int)strlen(info->name) + 1;
		fprintf(fp, "  %-*s %.70s\n", w, info->name, info->desc);
		if (info->umasks && (s->show_umasks || info->needs_umask))
			fprintf(fp, "  %-*s %s %s\n", w, "",
			       info->needs_umask ? "needs one of:" : "unit masks:",
			       info->umasks);
	} else {
		fprintf(fp, "  %s%s\n", info->name, info->hardware ? "" : "  (software)");
	}
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

/* Print text indented by `indent` columns, wrapped before column 79. */
static void print_wrapped(const char *text, int indent, FILE *fp)
{
	int col = indent;
	const char *p = text;
	while (*p) {
		size_t w = strcspn(p, " ");
		if (col > indent && col + 1 + (int)w > 78) {
			fprintf(fp, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', fp);
			col++;
		}
		fprintf(fp, "%.*s", (int)w, p);
		col += (int)w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', fp);
}

/*
 * --mission: the map's table for the family libpfm4 detects (or is forced
 * to), each counter with its event, encoding, meaning and source; on a
 * family without one, perf's generic stand-ins.
 */
static int print_mission(enum out_format fmt, FILE *fp)
{
	const char *pmu = NULL, *pdesc = NULL;
	const struct mission_family *fam = events_mission_family(&pmu, &pdesc);
	const struct mission_family *shown = fam ? fam : mission_generic();
	struct jw w;
	if (fmt == OUT_JSON) {
		jw_init(&w, fp, 2);
		jw_obj_begin(&w);
		jw_key(&w, "family");
		jw_str(&w, fam ? fam->label : NULL);
		jw_key(&w, "pmu");
		jw_str(&w, strcmp(pmu, "none") ? pmu : NULL);
		jw_key(&w, "pmu_description");
		jw_str(&w, pdesc);
		jw_key(&w, "counters");
		jw_arr_begin(&w);
	} else if (fam) {
		fprintf(fp, "mission counters on %s (libpfm4 PMU %s)\n", fam->label, pmu);
	} else {
		char head[512];
		snprintf(head, sizeof(head), "libpfm4 detected %s%s%s%s, which has "
			 "no mission map: these counters are perf's generic events, "
			 "and llc-misses, itlb-misses and l1i-misses need "
			 "--allow-generic",
			 strcmp(pmu, "none") ? pmu : "no core PMU",
			 pdesc ? " (" : "", pdesc ? pdesc : "", pdesc ? ")" : "");
		print_wrapped(head, 0, fp);
	}
	for (int i = 0; i < MISSION_COUNT; i++) {
		const struct mission_event *me = &shown->events[i];
		char event[512];
		if (fam)
			snprintf(event, sizeof(event), "%s::%s", pmu, me->event);
		else
			snprintf(event, sizeof(event), "%s", me->event);
		struct event_desc ev;
		char *cause = NULL;
		int rc = event_resolve(me->name, EVENT_ALLOW_GENERIC, &ev, &cause);
		if (fmt == OUT_JSON) {
			jw_obj_begin(&w);
			jw_key(&w, "name");
			jw_str(&w, me->name);
			jw_key(&w, "event");
			jw_str(&w, event);
			jw_key(&w, "perf_name");
			jw_str(&w, me->perf_name);
			jw_key(&w, "type");
			if (rc)
				jw_null(&w);
			else
				jw_uint(&w, ev.attr.type);
			jw_key(&w, "config");
			if (rc) {
				jw_null(&w);
			} else {
				char hex[32];
				snprintf(hex, sizeof(hex), "%#llx",
					 (unsigned long long)ev.attr.config);
				jw_str(&w, hex);
			}
			jw_key(&w, "summary");
			jw_str(&w, me->summary);
			jw_key(&w, "counts");
			jw_str(&w, me->counts);
			jw_key(&w, "source");
			jw_str(&w, me->source);
			jw_key(&w, "needs_allow_generic");
			jw_bool(&w, me->needs_consent);
			jw_obj_end(&w);
		} else {
			fprintf(fp, "\n%s\n", me->name);
			fprintf(fp, "  event     %s\n", event);
			fprintf(fp, "  perf      %s\n", me->perf_name);
			if (rc) {
				/* Forcing a PMU leaves libpfm4 without its
				 * perf-style names, so the generic events do
				 * not encode then. */
				fprintf(fp, "  encoding  none: %.*s%s\n",
				       (int)strcspn(cause ? cause : "?", "\n"),
				       cause ? cause : "?",
				       getenv("LIBPFM_FORCE_PMU") ? " (under "
				       "LIBPFM_FORCE_PMU)" : "");
			} else {
				fprintf(fp, "  encoding  type %u (%s), config %#llx",
				       ev.attr.type, event_type_name(ev.attr.type),
				       (unsigned long long)ev.attr.config);
				if (ev.attr.config1)
					fprintf(fp, ", config1 %#llx",
					       (unsigned long long)ev.attr.config1);
				fputc('\n', fp);
			}
			fprintf(fp, "  counts    ");
			char what[1024];
			snprintf(what, sizeof(what), "%s: %s%s", me->summary,
				 me->counts, me->needs_consent
				 ? " (only with --allow-generic)" : "");
			print_wrapped(what, 12, fp);
			fprintf(fp, "  source    ");
			print_wrapped(me->source, 12, fp);
		}
		free(cause);
		if (!rc)
			event_desc_release(&ev);
	}
	if (fmt == OUT_JSON) {
		jw_arr_end(&w);
		jw_obj_end(&w);
		jw_end(&w);
	}
	return EXIT_OK;
}

struct events_args {
	const char *attr;	/* --attr NAME */
	bool mission;
	bool allow_generic;
};

static int cmd_events(struct verb_ctx *vc)
{
	const struct events_args *a = vc->args;
	const char *pattern = vc->argc ? vc->argv[0] : NULL;
	char buf[64];
	if (a->mission && (a->attr || pattern))
		return usage_error(vc->name, "--mission lists the map; it takes "
				   "no %s", a->attr ? "--attr" : "pattern");

	char *cause = NULL;
	int rc = events_init(&cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	FILE *fp = verb_out(vc);
	if (!fp)
		return EXIT_FAIL;
	if (a->mission)
		return print_mission(vc->fmt, fp);
	if (a->attr) {
		struct event_desc ev;
		rc = event_resolve(a->attr, a->allow_generic ? EVENT_ALLOW_GENERIC : 0,
				   &ev, &cause);
		if (rc)
			return fail_cause(cause, exit_code_for(rc));
		print_attr(&ev, fp);
		event_desc_release(&ev);
		return EXIT_OK;
	}
	struct jw w;
	struct list_state s = { fp, vc->fmt, &w, 0, NULL, pattern != NULL };
	if (vc->fmt == OUT_JSON) {
		jw_init(&w, fp, 2);
		jw_obj_begin(&w);
		jw_key(&w, "events");
		jw_arr_begin(&w);
	}
	events_foreach(pattern, print_one, &s);
	if (vc->fmt == OUT_JSON) {
		jw_arr_end(&w);
		jw_obj_end(&w);
		jw_end(&w);
	} else if (s.n == 0) {
		fprintf(fp, "no event matches '%s'\n",
			pattern ? cli_echo(pattern, buf, sizeof(buf)) : "");
	}
	return EXIT_OK;
}

static const struct opt events_opts[] = {
	OPT_STRING(0, "attr", struct events_args, attr, "NAME",
		   "print the perf_event_attr of NAME"),
	OPT_BOOL(0, "mission", struct events_args, mission,
		 "print the mission map of this processor"),
	OPT_BOOL(0, "allow-generic", struct events_args, allow_generic,
		 "with --attr: let perf's generic cache events stand\n"
		 "in for a mission counter the map lacks"),
	OPT_INCLUDE(opt_output),
	OPT_END(),
};

const struct verb verb_events = {
	.fn = cmd_events,
	.opts = events_opts,
	.args_size = sizeof(struct events_args),
	.max_operands = 1,
	.help =
"usage: prof events [PATTERN] [--format table|json] [-o FILE]\n"
"       prof events --attr NAME [--allow-generic]\n"
"       prof events --mission [--format table|json]\n"
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
"\n",
	.help_tail =
"Examples:\n"
"  prof events miss\n"
"  prof events --mission\n"
"  prof events --attr llc-misses\n"
"  LIBPFM_FORCE_PMU=skl prof events --attr l1i-misses\n",
};
