/*
 * events: event names to perf_event_attr, through libpfm4.
 *
 * A name is resolved the way perf resolves it: perf-style generic names
 * ("LLC-load-misses", "task-clock"), the processor's own PMU names
 * ("RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",
 * "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS") and the :u / :k modifiers all
 * go through pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT). Encoding an
 * event says nothing about whether this machine can count it: only the
 * kernel decides that, when the counters module opens it.
 *
 * The six mission names (llc-misses, itlb-misses, l1i-misses,
 * branch-misses, cycles, instructions; see collectors/mission.h) come
 * first: each resolves to the event the mission map names for the family
 * libpfm4 detects. "cycles", "instructions" and "branch-misses" are also
 * perf's names; on a family with a table the map's event wins (it is the
 * one the kernel's generic table picks there, named concretely), and
 * "perf::cycles" still names perf's generic event. On a family without a
 * table, cycles, instructions and branch-misses are perf's generic events,
 * and the three cache counters are refused unless EVENT_ALLOW_GENERIC.
 *
 * LIBPFM_FORCE_PMU makes libpfm4 act as if that PMU were the processor's
 * (and drops its perf-style names); events_init refuses a name libpfm4
 * does not know.
 *
 * The caller owns every struct event_desc and releases it. libpfm4 is
 * initialised once per process (the one global this module keeps); the
 * functions are not thread-safe until events_init() has returned.
 * Resolving names comes before anything is measured, so running out of
 * memory here ends prof through common/xalloc.h.
 */
#ifndef COLLECTORS_EVENTS_H
#define COLLECTORS_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "collectors/mission.h"

enum event_flags {
	/* A mission name on a family without a table may stand for perf's
	 * generic event (--allow-generic). */
	EVENT_ALLOW_GENERIC = 1 << 0,
	/* Internal: resolving the "cache" set, where a mission counter with
	 * no map here is kept as refused (event_desc.refused), not an error. */
	EVENT_IN_DEFAULT_SET = 1 << 1,
	/* Through libpfm4 even for perf's software names, which prof
	 * otherwise resolves itself (test_events compares the two). */
	EVENT_VIA_LIBPFM = 1 << 2,
};

struct event_desc {
	char *name;		/* as the user wrote it: the report's key */
	char *canonical;	/* libpfm4's fully qualified form */
	struct perf_event_attr attr;
	bool hardware;		/* needs a PMU counter (not a software event) */
	/* Why it is not opened at all, or NULL: a mission counter of the
	 * default set on a processor the map lacks, reported as not
	 * supported with this reason rather than failing the run. */
	char *refused;
	/* For a mission name: the map's entry and the family whose table
	 * chose it (mission_generic() for perf's stand-in); NULL otherwise.
	 * Static, borrowed. */
	const struct mission_event *mission;
	const struct mission_family *family;
};

/* The named set "cache": the six mission counters (hardware) and four
 * software events. */
extern const char *const events_cache_set[];

/*
 * Load and initialise libpfm4 once. 0, -EIO with *cause filled when
 * libpfm.so.4 cannot be loaded or libpfm4 fails to initialise,
 * or -EINVAL when LIBPFM_FORCE_PMU names a PMU this libpfm4 does not know
 * (*cause names it, with hints).
 */
int events_init(char **cause);

/*
 * The mission family of this machine: the first core PMU libpfm4 detects
 * (or was forced to) that the mission map covers; else, unless
 * LIBPFM_FORCE_PMU names another core PMU, the raw family the CPU's
 * identity names (mission_family_for_cpu, read below $PROF_CPUID_ROOT or
 * "/"; *pmu is then its sysfs PMU, "cpu_core" on a hybrid part, else
 * "cpu", and *desc NULL); or NULL. *pmu and *desc, when not NULL, get that
 * PMU's name and libpfm4's description of it, or,
 * when no table covers it, those of the core PMU detected ("none" and NULL
 * when there is none). The strings are static.
 */
const struct mission_family *events_mission_family(const char **pmu,
						   const char **desc);

/*
 * A tracepoint "SYS:NAME" (sched:sched_switch): its id from tracefs below
 * root (NULL: /sys/kernel/tracing, then /sys/kernel/debug/tracing), the
 * file events/SYS/NAME/id. > 0, or -ENOENT when there is no such
 * tracepoint, -ENODEV when no tracefs is mounted there, -EINVAL when
 * name is not of that form. A tracepoint needs no PMU: the kernel counts
 * its hits per thread like a software event.
 */
long event_tracepoint_id(const char *root, const char *name);

/*
 * Resolve one name: a mission counter, a tracepoint (SYS:NAME, when
 * tracefs has it), or anything libpfm4 encodes. 0 on success. -ENOENT for an unknown name, with
 * *cause = "unknown event 'NAME'" followed by up to three "hint:" lines
 * naming close names; -EINVAL for a bad modifier; -EOPNOTSUPP for a
 * mission cache counter on a family the map lacks, without
 * EVENT_ALLOW_GENERIC (*cause names the family libpfm4 detected).
 */
int event_resolve(const char *name, enum event_flags flags,
		  struct event_desc *out, char **cause);
void event_desc_release(struct event_desc *ev);

/* The software event names event_resolve knows without libpfm4: up to max
 * of them into names; returns how many there are. */
size_t events_software_names(const char **names, size_t max);

/*
 * Resolve a comma-separated list; "cache" expands to the default set.
 * Duplicates are refused (-EINVAL); other failures as event_resolve.
 * *out is a malloc'd array of *n.
 */
int event_list_parse(const char *spec, enum event_flags flags,
		     struct event_desc **out, size_t *n, char **cause);
void event_list_free(struct event_desc *evs, size_t n);

/*
 * Up to max names close to `name` (edit distance), best first, from the
 * perf-style names and the detected PMUs' event names. Returns how many
 * were written; each out[i] is malloc'd.
 */
size_t event_suggest(const char *name, char **out, size_t max);

/*
 * The weighted edit distance event_suggest ranks names by (inserting a
 * character costs 1, substituting 2, deleting 3; case-insensitive; the
 * first 64 characters of each), for other "did you mean" lists.
 */
int event_edit_distance(const char *a, const char *b);

struct event_info {
	const char *name;	/* the name to type, PMU-qualified */
	const char *short_name;	/* without the "pmu::" prefix */
	const char *pmu;	/* "prof" for mission names, "perf" for
				   generic names, else the PMU */
	const char *desc;	/* libpfm4's description, may be NULL */
	bool hardware;
	/* The event's unit masks, comma-separated, the default ones marked
	 * with a trailing '*'; NULL when it has none. */
	const char *umasks;
	bool needs_umask;	/* has unit masks and none is a default: the
				   name alone does not encode */
};

/*
 * Call fn for every event this machine can encode whose name contains
 * pattern (case-insensitive; NULL for all): first the mission names (pmu
 * "prof"), then the perf-style generic names (those that are also mission
 * names qualified, "perf::cycles"), then each detected PMU's own events.
 * Stops early when fn returns non-zero and returns that value.
 */
int events_foreach(const char *pattern,
		   int (*fn)(const struct event_info *info, void *arg),
		   void *arg);

/*
 * The unit masks of the PMU event `name` (short or qualified), as in
 * struct event_info. NULL (errno ENOENT) when libpfm4 does not know the
 * name or it has none; the caller frees the string.
 */
char *event_umasks(const char *name, bool *needs_umask);

/* Name of a perf_event_attr type ("hardware", "software", "raw", ...). */
const char *event_type_name(unsigned type);

#endif
