/*
 * events: event names to perf_event_attr, through libpfm4.
 *
 * A name is resolved the way perf resolves it: perf-style generic names
 * ("LLC-load-misses", "cycles", "task-clock"), the processor's own PMU
 * names ("RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",
 * "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS") and the :u / :k modifiers all
 * go through pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT). Encoding an
 * event says nothing about whether this machine can count it: only the
 * kernel decides that, when the counters module opens it.
 *
 * The caller owns every struct event_desc and releases it. libpfm4 is
 * initialised once per process (the one global this module keeps); the
 * functions are not thread-safe until events_init() has returned.
 */
#ifndef COLLECTORS_EVENTS_H
#define COLLECTORS_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

struct event_desc {
	char *name;		/* as the user wrote it: the report's key */
	char *canonical;	/* libpfm4's fully qualified form */
	struct perf_event_attr attr;
	bool hardware;		/* needs a PMU counter (not a software event) */
};

/* The named set "cache": the six hardware and four software events. */
extern const char *const events_cache_set[];

/* Initialise libpfm4 once. 0 or -EIO with *cause filled. */
int events_init(char **cause);

/*
 * Resolve one name. 0 on success. -ENOENT for an unknown name, with
 * *cause = "unknown event 'NAME'" followed by up to three "hint:" lines
 * naming close names; -EINVAL for a bad modifier.
 */
int event_resolve(const char *name, struct event_desc *out, char **cause);
void event_desc_release(struct event_desc *ev);

/*
 * Resolve a comma-separated list; "cache" expands to the default set.
 * Duplicates are refused (-EINVAL). *out is a malloc'd array of *n.
 */
int event_list_parse(const char *spec, struct event_desc **out, size_t *n,
		     char **cause);
void event_list_free(struct event_desc *evs, size_t n);

/*
 * Up to max names close to `name` (edit distance), best first, from the
 * perf-style names and the detected PMUs' event names. Returns how many
 * were written; each out[i] is malloc'd.
 */
size_t event_suggest(const char *name, char **out, size_t max);

struct event_info {
	const char *name;	/* the name to type, PMU-qualified */
	const char *short_name;	/* without the "pmu::" prefix */
	const char *pmu;	/* "perf" for generic names, else the PMU */
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
 * pattern (case-insensitive; NULL for all): first the perf-style generic
 * names, then each detected PMU's own events. Stops early when fn returns
 * non-zero and returns that value.
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
