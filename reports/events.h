/*
 * events (reports): `prof events`, the events this machine can encode,
 * and `prof events --mission`, the mission map of its processor family,
 * in every format. prof/ asks the collectors for the events and the map
 * and hands them over as the plain structs below (reports/ includes no
 * collector's header); strings are borrowed for the length of the call,
 * except those a report_event_list copies.
 *
 * JSON: {"events": [{name, pmu, hardware, description, umasks,
 * needs_umask}]} and {family, pmu, pmu_description, counters: [{name,
 * event, perf_name, type, config, summary, counts, source,
 * needs_allow_generic}]}; CSV has the same keys, one line per event or
 * counter. Not thread-safe; no shared state.
 */
#ifndef REPORTS_EVENTS_H
#define REPORTS_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <stdio.h>

#include "reports/output.h"

struct report_event {
	const char *name;	/* PMU-qualified */
	const char *pmu;	/* "prof" for mission names, "perf" generic */
	const char *desc;	/* may be NULL */
	bool hardware;
	const char *umasks;	/* comma-separated, defaults marked '*'; NULL */
	bool needs_umask;
};

/* The events found, in the order found (copied). People see an event's
 * unit masks where it needs one of them, or all with show_umasks (a
 * pattern was given). Never NULL. */
struct report_event_list;
struct report_event_list *report_event_list_new(bool show_umasks);
void report_event_list_add(struct report_event_list *l,
			   const struct report_event *e);
void report_event_list_free(struct report_event_list *l);	/* NULL is fine */

/* Order and cut the list as v says (rows_view_apply), before writing it;
 * the listing for people names a PMU again wherever the order changes
 * it. The check: whether sort names a column (rows_sort_check). */
struct rows_view;
void report_event_list_view(struct report_event_list *l, const struct rows_view *v);
int report_event_list_sort_check(const struct report_event_list *l,
				 const char *sort, char **cause);

/* The list, for people grouped by PMU; pattern names what matched
 * nothing when the list is empty. */
void report_events(const struct report_event_list *l, const char *pattern,
		   enum out_format fmt, FILE *fp);

struct report_mission_counter {
	const char *name;	/* "llc-misses" */
	const char *event;	/* as libpfm4 takes it, PMU-qualified */
	const char *perf_name;
	bool encoded;		/* false: cause says why not */
	const char *cause;
	uint32_t type;
	const char *type_name;	/* "raw", "hardware", ... */
	uint64_t config, config1;
	const char *summary, *counts, *source;
	bool needs_consent;	/* only with --allow-generic */
};

struct report_mission {
	const char *family;	/* NULL: the family has no map */
	const char *pmu;	/* the PMU libpfm4 detected, NULL for none */
	const char *pmu_desc;
	bool forced;		/* LIBPFM_FORCE_PMU is set */
	/* A raw family's short name ("zen5"): found from the CPU's identity,
	 * its events raw codes from perf's tables, not libpfm4's; NULL for a
	 * libpfm4 family. */
	const char *raw_family;
	const struct report_mission_counter *counters;
	size_t ncounters;
};

void report_mission(const struct report_mission *m, enum out_format fmt,
		    FILE *fp);

/*
 * prof events --pmus: the kernel's PMUs as sysfs lists them, core PMUs
 * first. JSON: {"core_pmus": N, "pmus": [{name, type, core, cpus,
 * pmu_name}]}, cpus a list of ints or null where the PMU serves every
 * CPU; CSV the same keys, one line per PMU. People read a line that says
 * what the core PMUs mean for counting, then the table.
 */
struct report_pmu {
	const char *name;
	uint32_t type;		/* perf_event_attr.type */
	bool core;		/* counts the CPU's own events */
	const char *cpus;	/* CPU list; NULL: every CPU */
	const char *pmu_name;	/* caps/pmu_name, or NULL */
};

void report_pmus(const struct report_pmu *pmus, size_t n, enum out_format fmt,
		 FILE *fp);

/*
 * prof events --attr: how one event is encoded, field by field, its type
 * named type_name (event_type_name). People read it as lines of 'field
 * value' (table) or a two-column table (markdown); JSON is one object,
 * CSV one header and one line. Config words are hex strings (a 64-bit
 * mask is no JSON number).
 */
struct report_event_attr {
	const char *name;	/* as asked */
	const char *canonical;	/* as encoded */
	/* A mission counter: the event the map chose, the family whose
	 * table chose it, and what it counts; all NULL otherwise. */
	const char *mission_event, *mission_family, *mission_summary;
	bool hardware;		/* needs a PMU counter */
	const struct perf_event_attr *attr;
};

void report_event_attr(const struct report_event_attr *ev, const char *type_name,
		       enum out_format fmt, FILE *fp);

#endif
