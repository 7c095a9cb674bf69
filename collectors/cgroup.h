/*
 * cgroup: a cgroup of prof's own for one run, so that per-CPU counters
 * count the workload's tasks and nothing else (PERF_FLAG_PID_CGROUP).
 *
 * perf_event counts by the hierarchy its controller is bound to: cgroup
 * v2's (where perf_event is implicit) or, on a hybrid v1 machine, a v1
 * hierarchy mounted with the perf_event option. The run's cgroup is made
 * beneath prof's own cgroup there ("prof.PID.N"), so the workload keeps
 * every limit prof's ancestors set (the new cgroup enables no
 * controllers). Removing it moves any task still in it back to the
 * parent first. A cgroup left behind by a prof that was killed is empty
 * once its workload has ended (the parent-death signal ends the
 * workload's first process; prof's own subreaper role does not outlive
 * it), and the next run removes it (run_cgroup_sweep).
 *
 * Paths read are /proc/self/mountinfo and /proc/self/cgroup under
 * proc_root ("/proc" in use, a fixture tree in tests). Owned by the
 * caller; not thread-safe.
 */
#ifndef COLLECTORS_CGROUP_H
#define COLLECTORS_CGROUP_H

#include <sys/types.h>

struct run_cgroup {
	char *path;		/* the run's cgroup directory, or NULL */
	char *parent;		/* prof's own cgroup directory */
	int fd;			/* O_DIRECTORY fd of path, or -1 */
};

/*
 * Where prof's own cgroup lies in the hierarchy perf_event counts by: the
 * directory (malloc'd into *dir), from proc_root's self/mountinfo and
 * self/cgroup. 0, or -ENOENT with *cause when no such hierarchy is
 * mounted.
 */
int run_cgroup_locate(const char *proc_root, char **dir, char **cause);

/*
 * Make a new cgroup for one run beneath prof's own. 0, or -errno with
 * *cause (no hierarchy, a read-only one, no permission).
 */
int run_cgroup_create(struct run_cgroup *cg, char **cause);

/*
 * The run's cgroup.procs, opened for writing (close-on-exec): a process
 * that writes "0" into it moves itself in. fd, or -errno with *cause.
 */
int run_cgroup_procs(const struct run_cgroup *cg, char **cause);

/*
 * Close and remove the run's cgroup, moving what still runs in it back to
 * the parent first. Accepts an unused or already removed one. 0 or
 * -errno (the directory stays when a task could not be moved).
 */
int run_cgroup_remove(struct run_cgroup *cg);

/*
 * Remove the empty cgroups beside prof's own cgroup's children that a
 * prof killed before its cleanup left behind ("prof.PID.N" of a PID that
 * no longer runs). Returns how many were removed.
 */
int run_cgroup_sweep(const char *parent);

#endif
