/*
 * runsim: a run whose hardware counters are simulated (prof run
 * --simulate; collectors/simcache.h). The workload is launched under
 * callgrind by the runner like any command; this module prepares that
 * command (valgrind found, the geometry read, a scratch directory for
 * the profiles) and, after the run, puts each profile's counters on its
 * thread of the stored run as the events instructions, l1i-misses,
 * l1d-misses, llc-misses, branch-misses and cycles (estimated), stored
 * with the settings counter_source = simulated, sim.model (the geometry
 * and valgrind's version) and sim.cycles (the estimate's formula). The
 * run's software events (task-clock, ...) count valgrind's own threads:
 * what the simulation cost. Not thread-safe.
 */
#ifndef PROF_RUNSIM_H
#define PROF_RUNSIM_H

#ifndef PROF_RUN_H
#error "include prof/run/run.h, the run engine's one public header"
#endif

#include "collectors/simcache.h"
#include "db/runs.h"

struct run_sim {
	char *valgrind;		/* its path */
	char *dir;		/* the scratch directory, removed by release */
	struct sim_geometry geom;
	char **argv;		/* the command under callgrind */
	int argc;
};

/*
 * Ready a simulated launch of argv: 0, or -ENOENT (no valgrind: *cause
 * says how to get it), -EINVAL (a bad --cache spec), another -errno,
 * with *cause. sysfs_root: where the geometry is read (NULL: /).
 */
int run_sim_prepare(struct run_sim *s, char *const *argv, const char *spec,
		    const char *sysfs_root, char **cause);

/* One simulated thread's functions (prof record --simulate). */
struct run_sim_fns {
	long thread;		/* index into the run's threads; -1 where its
				   counts are in the totals only (a valgrind
				   slot that several threads used) */
	int32_t pid;
	struct sim_fn *fn;	/* their self costs (collectors/simcache.h) */
	size_t n;
};

/*
 * After the runner's run: the simulated counters on its threads, the
 * command put back to the user's (argv, argc), the profiles removed
 * (ready for the next run of a series). With fns, also each profile's
 * functions, read before (*fns malloc'd, *nfns; run_sim_fns_free). 0;
 * -EIO with *cause when valgrind ran no profile (it could not run the
 * workload: its own reason), or when the profiles cannot be read; the
 * run is then not to be stored as if counted.
 */
int run_sim_fill(struct run_sim *s, struct db_run *run, char *const *argv, int argc,
		 struct run_sim_fns **fns, size_t *nfns, char **cause);
void run_sim_fns_free(struct run_sim_fns *f, size_t n);

void run_sim_release(struct run_sim *s);

/* The events counted beside a simulation (what valgrind itself costs):
 * the default of every verb's --simulate, in place of -e cache. */
#define RUN_SIM_EVENTS "task-clock,context-switches,page-faults"

/* The -e list a simulated run counts: RUN_SIM_EVENTS for the default
 * "cache", else what was asked (borrowed). */
const char *run_sim_events(const char *asked);

/* The simulated events' names, comma-separated (malloc'd), as an
 * experiment's setting "simulated" keeps them for reports/abstat. */
char *run_sim_event_list(void);

#endif
