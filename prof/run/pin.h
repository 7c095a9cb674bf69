/*
 * pin: choosing and applying a run's CPU pin. The mode comes from --pin,
 * from --cache-affinity / --no-cache-affinity (which mean largest-llc and
 * none, and must agree with a --pin given with them), or from
 * PROF_CACHE_AFFINITY=1|0; the flags win over the environment in both
 * directions, so an A/B harness can force a control arm off. The pin itself is applied by the launcher with
 * sched_setaffinity(0, ...) before exec, so every thread inherits it.
 *
 * A topology that cannot be read skips a largest-llc pin with a warning
 * (pinning to a wrong domain is worse than not pinning) and is an error
 * for an explicit llc:N, l2:N, node:N or cpus: pin. Not thread-safe.
 */
#ifndef PROF_PIN_H
#define PROF_PIN_H

#ifndef PROF_RUN_H
#error "include prof/run/run.h, the run engine's one public header"
#endif

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collectors/topology.h"
#include "db/topology.h"

/* What --cache-affinity and --no-cache-affinity said: neither, one, or
 * both (AFFINITY_BOTH, which pin_choose_mode refuses). */
enum affinity_flag { AFFINITY_UNSET = -1, AFFINITY_OFF = 0, AFFINITY_ON = 1,
		     AFFINITY_BOTH = 2 };

/* The affinity flags after one more of them (AFFINITY_ON or _OFF). */
int affinity_flag_add(int have, int flag);

/*
 * The mode to use: --pin or the affinity flag (--cache-affinity is
 * largest-llc, --no-cache-affinity none) if given, else the environment
 * (1/true/yes/on: largest-llc; 0/false/no/off or unset: none). An
 * environment value that is none of those is ignored with a warning
 * (*warning, malloc'd). --pin and a flag, or the two flags, that ask for
 * different modes are refused: NULL with *cause (a usage error), so no
 * pin asked for is dropped unsaid. Returns a static string or pin_opt.
 */
const char *pin_choose_mode(const char *pin_opt, int affinity_flag,
			    const char *env, char **warning, char **cause);

struct pin_plan {
	char *mode;		/* as chosen */
	bool apply;		/* false: run unpinned */
	cpu_set_t *set;		/* CPU_ALLOC'd when apply */
	size_t setsize;
	char *desc;		/* "pinned to the 12 CPUs sharing ..." */
	char *status;		/* "applied" (once it was) or "skipped: why" */
	char *cpus;		/* the CPUs asked for, compact form */
	int level;
	char *cache_type;
	uint64_t size_bytes;
	/* The machine's, for the run record. Left unread where nothing is
	 * pinned (mode "none"): a host's topology is stored once, with its
	 * first run, and a many-core machine's is thousands of sysfs files;
	 * pin_plan_topology reads it then, when the store asks. */
	struct db_topology *topology;
	char *sysfs_root;	/* where it is read (NULL: "/") */
};

/*
 * Resolve mode against the topology under sysfs_root (NULL: "/"). 0 when
 * the run may go on (pinned or skipped: then *warning says why); else,
 * with *cause, for a pin that must stop the run: -EINVAL, -ERANGE or
 * -ENXIO when mode does not fit this machine (a bad word, an index out of
 * range, no online CPU left: usage errors), -EIO when the topology it
 * needs could not be read or is malformed, -ENOMEM. exit_code_for() maps
 * them.
 */
int pin_plan_make(struct pin_plan *p, const char *mode, const char *sysfs_root,
		  char **warning, char **cause);
void pin_plan_release(struct pin_plan *p);

/*
 * The topology pin_plan_make left unread, read now below the plan's
 * sysfs root, as db_run's topology_fn (arg: the struct pin_plan). NULL
 * where it cannot be read (nothing is stored for the host then).
 */
struct db_topology *pin_plan_topology(void *plan);

/* The CPU list a task may run on (/proc/PID/status Cpus_allowed_list). */
char *pin_read_back(pid_t pid);

/* The stored shape of a topology (malloc'd; NULL on allocation failure). */
struct db_topology *topo_to_db(const struct topo *t);

#endif
