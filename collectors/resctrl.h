/*
 * resctrl: L3 cache allocation (Intel RDT CAT, AMD PQoS) through the
 * resctrl file system, for `prof pressure --method cat`: give a workload
 * fewer ways of the L3 instead of running a co-runner beside it.
 *
 * Everything is read and written below a root (default /sys/fs/resctrl),
 * so tests point it at fixture trees under tests/fixtures/resctrl/. The
 * files read are
 *   <root>/schemata                 the default group's "L3:0=ffff;1=ffff"
 *   <root>/info/L3/cbm_mask         every way, as a hex mask
 *   <root>/info/L3/min_cbm_bits     the fewest ways a mask may have
 *   <root>/info/L3/num_closids      how many groups the hardware has
 *   <root>/info/L3/shareable_bits   ways other agents may use (optional)
 * and with code/data prioritisation on, info/L3CODE and L3DATA instead
 * (then both lines are written). The workload's ways are set in a group of
 * its own, <root>/prof-pressure-<pid>/, which the kernel creates with its
 * own schemata and tasks files: writing a thread id to tasks moves that
 * thread in, and its children created later inherit the group. The
 * default group's schemata is never written, so nothing else on the
 * machine loses a way; removing the group (rmdir) moves its tasks back to
 * the default group and frees its ways. Groups left by a prof that was
 * killed are found by name and removed when their pid no longer runs.
 *
 * Errors: 0 or a negative errno (-ENOMEM when memory runs out) with
 * *cause set (malloc'd, lowercase; the caller frees it; may be NULL). Never prints. Caller-owned structs;
 * no global state.
 */
#ifndef COLLECTORS_RESCTRL_H
#define COLLECTORS_RESCTRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RESCTRL_ROOT "/sys/fs/resctrl"
#define RESCTRL_GROUP_PREFIX "prof-pressure-"

/* One L3 domain of the default group's schemata: its cache id and mask. */
struct resctrl_domain {
	long id;
	uint64_t mask;
};

struct resctrl {
	char *root;
	bool cdp;			/* L3CODE and L3DATA lines, not L3 */
	uint64_t cbm_mask;		/* every way */
	unsigned ways;			/* bits in cbm_mask */
	unsigned min_bits;		/* min_cbm_bits */
	unsigned num_closids;
	uint64_t shareable;		/* shareable_bits, 0 when absent */
	struct resctrl_domain *domains;	/* from the default schemata */
	size_t ndomains;
};

/*
 * Read what allocation the root offers. -ENOENT when resctrl is not
 * mounted there (no schemata), -EOPNOTSUPP when it is but has no L3
 * allocation (no info/L3 nor info/L3CODE: memory bandwidth only, say),
 * -EINVAL for a file that does not read as the kernel writes it; each
 * with a cause naming the path.
 */
int resctrl_read(struct resctrl *r, const char *root, char **cause);
void resctrl_release(struct resctrl *r);

/* Parse one schemata line "L3:0=ffff;1=7ff" (resource name kept in
 * *name, up to namelen) into domains (malloc'd). -EINVAL otherwise. */
int resctrl_parse_line(const char *line, char *name, size_t namelen,
		       struct resctrl_domain **out, size_t *n, char **cause);

/*
 * The mask for a workload given `ways` of r's ways: the lowest `ways`
 * contiguous bits of cbm_mask. -ERANGE when ways is below min_bits or
 * above the ways there are, with a cause.
 */
int resctrl_mask(const struct resctrl *r, unsigned ways, uint64_t *mask,
		 char **cause);

/* The L3 domain with cache id `id`, or NULL. */
const struct resctrl_domain *resctrl_domain(const struct resctrl *r, long id);

struct resctrl_group {
	char *path;		/* <root>/prof-pressure-<pid> */
	bool made;		/* we created it: remove it */
};

/*
 * Make this process's group (prof-pressure-<pid>), first removing groups
 * of that name whose pid no longer runs. -ENOSPC when the hardware has no
 * free group (num_closids), other -errno from mkdir; with a cause.
 */
int resctrl_group_make(const struct resctrl *r, pid_t pid,
		       struct resctrl_group *g, char **cause);

/* Write "L3:<id>=<mask>" (both L3CODE and L3DATA with CDP) to the group's
 * schemata. */
int resctrl_group_set(const struct resctrl *r, const struct resctrl_group *g,
		      long id, uint64_t mask, char **cause);

/* Move thread `tid` into the group (its children inherit it). */
int resctrl_group_add(const struct resctrl_group *g, pid_t tid, char **cause);

/* Move thread `tid` back to the default group. */
int resctrl_group_leave(const struct resctrl *r, pid_t tid, char **cause);

/*
 * Remove the group: its tasks go back to the default group, its ways are
 * free again. Accepts a group never made. Safe to call twice.
 */
int resctrl_group_remove(struct resctrl_group *g, char **cause);

/* Remove groups named prof-pressure-<pid> whose pid does not run;
 * returns how many were removed. */
int resctrl_sweep_stale(const char *root);

#endif
