/*
 * simcache: simulated counters, for machines without a PMU (issue 28).
 * The workload runs under valgrind's callgrind with its cache and branch
 * simulators, one profile per thread (--separate-threads) and per process
 * (--trace-children); this module builds that command line, reads the
 * cache geometry to simulate (sysfs by default, or a spec), and reads the
 * profiles' totals back. The counts are a model: an inclusive LL, LRU
 * replacement, no prefetchers, no TLB, one thread at a time. They answer
 * comparisons (A against B, a cache size against another), and are the
 * same every run of the same program.
 *
 * Per thread, from callgrind's events (Ir Dr Dw I1mr D1mr D1mw ILmr DLmr
 * DLmw Bc Bcm Bi Bim):
 *   instructions   Ir
 *   l1i-misses     I1mr
 *   l1d-misses     D1mr + D1mw
 *   llc-misses     ILmr + DLmr + DLmw
 *   branch-misses  Bcm + Bim (conditional and indirect mispredicts)
 *   cycles         an estimate, as iai-callgrind gives it: L1 hits + 5 x
 *                  LL hits + 35 x LL misses, where L1 hits = Ir + Dr + Dw
 *                  - (I1mr + D1mr + D1mw) and LL hits = that L1 miss sum
 *                  - the llc-misses
 * Never prints; no allocation shared between calls; not thread-safe.
 */
#ifndef COLLECTORS_SIMCACHE_H
#define COLLECTORS_SIMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A simulated event's attr type in a stored run: no perf type. */
#define SIM_ATTR_TYPE 0xfffffff0u

enum sim_level { SIM_I1, SIM_D1, SIM_LL, SIM_NLEVELS };

struct sim_cache {
	uint64_t size;		/* bytes */
	unsigned assoc;		/* ways */
	unsigned line;		/* bytes */
	unsigned sysfs_assoc;	/* the ways asked for, when valgrind's rule
				   (a power-of-two set count) changed them */
	const char *from;	/* "sysfs", "--cache", or "default" */
};

struct sim_geometry {
	struct sim_cache c[SIM_NLEVELS];
};

/* The simulated counters, in this order (events of a simulated run). */
enum sim_event {
	SIM_INSTRUCTIONS, SIM_L1I_MISSES, SIM_L1D_MISSES, SIM_LLC_MISSES,
	SIM_BRANCH_MISSES, SIM_CYCLES, SIM_NEVENTS
};
extern const char *const sim_event_names[SIM_NEVENTS];
/* What each is in callgrind's terms ("Ir", "D1mr + D1mw", ...). */
extern const char *const sim_event_sources[SIM_NEVENTS];

/*
 * The geometry to simulate: cpu0's L1 instruction and data caches and
 * its highest unified level, from sysfs under root (NULL: /), each level
 * sysfs lacks at valgrind's defaults (32 KiB 8-way, 8 MiB 16-way for
 * LL, 64-byte lines); then spec, when not NULL, overrides levels:
 * "L1I=32K:8:64,L1D=48K:12:64,LL=96M:16:64" (any of the three, ways and
 * line optional: "LL=96M" keeps the ways and line of the level it
 * replaces). Each level is then made valgrind-valid (sim_cache_fit).
 * 0, or -EINVAL with *cause for a bad spec.
 */
int sim_geometry_read(struct sim_geometry *g, const char *root, const char *spec,
		      char **cause);

/*
 * valgrind needs size / (ways x line) to be a power of two: a 36 MiB
 * 12-way cache has 49,152 sets. The size and line are kept (capacity is
 * the question) and the ways become the nearest that give a power-of-two
 * set count (18 there: 32,768 sets), sysfs_assoc keeping what was asked.
 * -EINVAL when no such count exists (a size that is no multiple of the
 * line).
 */
int sim_cache_fit(struct sim_cache *c);

/* "I1 32 KiB 8-way, D1 48 KiB 12-way, LL 36 MiB 18-way (12-way asked:
 * valgrind needs a power-of-two set count), 64 B lines" (malloc'd). */
char *sim_geometry_text(const struct sim_geometry *g);

/*
 * The command that runs argv under callgrind, its profiles and log under
 * dir (dir/cg.PID-TT, dir/vg.PID.log). NULL-terminated, malloc'd (free
 * with sim_argv_free); NULL on no memory.
 */
char **sim_argv(const struct sim_geometry *g, const char *valgrind, const char *dir,
		char *const *argv);
void sim_argv_free(char **v);

/* valgrind's path in $PATH (malloc'd), or NULL. */
char *sim_valgrind_find(void);

/* One simulated thread: its process, its number in that process
 * (callgrind's thread: 1 is the first), and its counters. */
struct sim_thread {
	int32_t pid;
	unsigned thread;
	char comm[16];		/* its program's name, from "cmd:", as the
				   kernel would cut it; "" when unknown */
	uint64_t v[SIM_NEVENTS];
	char file[64];		/* its profile's name in the directory read */
};

/*
 * One callgrind profile's totals (its "summary:" or "totals:" line read
 * against its "events:" line). 0; -ENODATA for an empty file (a process
 * that exec'd before its first dump); -EINVAL with *cause for one that
 * is not a callgrind profile or lacks an event.
 */
int sim_profile_read(const char *path, struct sim_thread *out, char **cause);

/*
 * Every profile under dir, ordered by process then thread. 0, with
 * *out (malloc'd) and *n; -errno with *cause. *version gets the
 * creator's version ("3.19.0", malloc'd) when some profile names it.
 */
int sim_profiles_read(const char *dir, struct sim_thread **out, size_t *n,
		      char **version, char **cause);

/*
 * One function of a profile and its self cost: what its own lines did,
 * not the functions it called (callgrind's "calls=" lines and the
 * inclusive cost after each are left out), summed over the profile.
 * object is callgrind's "ob=" (a path, or "???"), name its "fn=" (a
 * symbol, or an address where the object has none).
 */
struct sim_fn {
	char *object;
	char *name;
	uint64_t v[SIM_NEVENTS];
};

/*
 * The functions of the profile at path with a cost, in the order they
 * first appear: 0 with *out (malloc'd, sim_fns_free) and *n; -EINVAL
 * with *cause for a file that is not a callgrind profile with the
 * cache and branch events; another -errno with *cause.
 */
int sim_profile_functions(const char *path, struct sim_fn **out, size_t *n,
			  char **cause);
void sim_fns_free(struct sim_fn *f, size_t n);

/*
 * What valgrind said when it could not run the workload, from dir's
 * logs: the first line of a fatal message (an unrecognised instruction,
 * a refused executable), malloc'd; NULL when it said none.
 */
char *sim_log_failure(const char *dir);

#endif
