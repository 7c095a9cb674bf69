/*
 * topology: the machine's CPU and cache topology as sysfs describes it
 * (topology.c), and the resolution of a pin mode (`largest-llc`,
 * `llc:N`, ...) to a set of CPUs (topo_pin.c). The CPU sets themselves,
 * struct cpumask and the cpu list form, are collectors/cpumask.h,
 * included here.
 *
 * Everything is read below a root directory (default "/"), so tests point
 * it at fake trees under tests/fixtures/sysfs/. The files read are
 *   <root>/sys/devices/system/cpu/online
 *   <root>/sys/devices/system/cpu/cpuN/cache/indexK/{level,type,size,
 *                                                   shared_cpu_list,id}
 *   <root>/sys/devices/system/cpu/cpuN/topology/{core_cpus_list,
 *       cluster_cpus_list,package_cpus_list} (or the older names
 *       thread_siblings_list and core_siblings_list)
 *   <root>/sys/devices/system/node/nodeN/cpulist
 * and only those of online CPUs (the kernel removes an offline CPU's cache
 * and topology directories).
 *
 * The rule that shapes this module: malformed topology yields no domain
 * rather than a partial one, because pinning to a wrong domain is worse
 * than not pinning. A cache level with any malformed or inconsistent entry
 * is left out whole, with a cause; the other levels still stand.
 *
 * CPU numbers and indexes are kept apart: an `int cpu` is always a CPU
 * number as the kernel names it (cpuN); a `size_t` is always an index into
 * one of the arrays below (`llc:N` and `l2:N` use such an index).
 *
 * Ownership: struct topo and struct topo_pin are caller-owned storage
 * (topo_read()/topo_release(), topo_pin_resolve()/topo_pin_release()); the
 * strings and arrays inside belong to them. Every `char **cause` is set to
 * a malloc'd lowercase message on failure (the caller frees it) and left
 * untouched on success; it may be NULL.
 *
 * Thread-safety: no global state; a struct topo that is no longer written
 * may be read from several threads at once.
 */
#ifndef COLLECTORS_TOPOLOGY_H
#define COLLECTORS_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/cpumask.h"

/* Cache levels run from 1 to TOPO_MAX_CACHE_LEVEL. */
#define TOPO_MAX_CACHE_LEVEL 7

enum cache_type {
	CACHE_TYPE_UNKNOWN = 0,
	CACHE_TYPE_DATA,
	CACHE_TYPE_INSTRUCTION,
	CACHE_TYPE_UNIFIED,
};

/* "Data", "Instruction", "Unified" (sysfs spelling), or "Unknown". */
const char *cache_type_name(enum cache_type type);

/*
 * Parses a sysfs cache size ("32768K", "1M", "96M", "1G", "512" bytes; one
 * trailing newline allowed) into bytes. Returns 0, -EINVAL for junk (a
 * sign, an unknown suffix, no digits), or -ERANGE when it overflows 64
 * bits.
 */
int cache_size_parse(const char *s, uint64_t *bytes, char **cause);

/*
 * Writes a size for people: "32 MiB", "1280 KiB", "512 B" (exact: the
 * largest unit that divides it). Returns what snprintf returns.
 */
int cache_size_format(uint64_t bytes, char *buf, size_t len);

/* One distinct cache domain: a cache and the CPUs that share it. */
struct cache_domain {
	int level;		/* 1, 2, 3, ... */
	enum cache_type type;
	uint64_t size_bytes;
	struct cpumask cpus;	/* shared_cpu_list as sysfs gives it */
	long id;		/* sysfs id, or -1 where the file is absent */
	size_t index;		/* its number among the domains of the same
				   level and type, in CPU order */
};

/* A NUMA node: its number (nodeN) and its CPUs, maybe none. */
struct topo_node {
	int node;
	struct cpumask cpus;
};

enum topo_cluster_source {
	TOPO_CLUSTER_NONE = 0,	/* clusters unknown (see cluster_cause) */
	TOPO_CLUSTER_SYSFS,	/* from topology/cluster_cpus_list */
	TOPO_CLUSTER_L2,	/* from the L2 cache domains */
};

/*
 * What topo_read() found. Every list of CPU sets is distinct and ordered
 * by first CPU. A `*_cause` is NULL when that part is intact, otherwise it
 * says why the part is empty or was left out.
 */
struct topo {
	char *root;			/* the root read, as given */
	struct cpumask online;		/* cpu/online */

	/* Every distinct cache domain of every usable level, ordered by
	 * level, then type (Data, Instruction, Unified), then first CPU. */
	struct cache_domain *caches;
	size_t n_caches;
	/* Why a level is left out (NULL: intact or absent); index = level. */
	char *level_cause[TOPO_MAX_CACHE_LEVEL + 1];
	/* Why every level is left out (an entry whose level cannot be read,
	 * an unreadable cache directory), else NULL. A machine that reports
	 * no caches has n_caches 0 and no cause. */
	char *cache_cause;

	/* The last-level domains: those of the highest level reported, of
	 * type Unified (Data where there is no Unified one). They point into
	 * caches. llc_level is that level (0 when there are no caches). */
	int llc_level;
	const struct cache_domain *llc;
	size_t n_llc;
	/* Why the last level is unusable (malformed or unreadable), else
	 * NULL; a machine that reports no caches has n_llc 0, no cause. */
	char *llc_cause;
	bool llc_asymmetric;		/* last-level domains differ in size */
	/* The biggest last-level domain shared by more than one online CPU,
	 * ties going to the first in CPU order; NULL with a reason (always
	 * set then) when the machine has none or its last level is
	 * unusable. */
	const struct cache_domain *largest_llc;
	char *largest_llc_reason;

	struct cpumask *smt;		/* SMT siblings (core_cpus_list) */
	size_t n_smt;
	char *smt_cause;
	struct cpumask *clusters;	/* CPUs sharing an L2 */
	size_t n_clusters;
	enum topo_cluster_source cluster_source;
	char *cluster_cause;
	struct cpumask *packages;	/* package_cpus_list */
	size_t n_packages;
	char *package_cause;
	struct topo_node *nodes;	/* ordered by node number; none when
					   the kernel has no node directory */
	size_t n_nodes;
	char *node_cause;
};

/*
 * Reads the topology below `root` (NULL means "/") into t, which needs no
 * initialisation. Returns 0 when cpu/online was read: the parts that are
 * malformed or absent are then empty with their cause set. Returns -ENOENT
 * (or the errno of the failing read) when the tree is missing, -EINVAL
 * when cpu/online is malformed, -ENOMEM; the cause names the path. On
 * failure t holds nothing to release, though topo_release() is harmless.
 */
int topo_read(struct topo *t, const char *root, char **cause);

/* topo_read() of the live machine, root "/": the same code path. */
int topo_read_live(struct topo *t, char **cause);

/* Frees what t holds and zeroes it; accepts a zeroed t. */
void topo_release(struct topo *t);

/*
 * The domains of one level and type, as a slice of t->caches: returns the
 * first (NULL when none) and sets *n. `llc:N` is t->llc[N]; `l2:N` is the
 * Nth of topo_domains(t, 2, CACHE_TYPE_UNIFIED, &n) (Data where there is
 * no Unified L2).
 */
const struct cache_domain *topo_domains(const struct topo *t, int level,
					enum cache_type type, size_t *n);

enum topo_pin_mode {
	TOPO_PIN_NONE = 0,
	TOPO_PIN_LARGEST_LLC,
	TOPO_PIN_LLC,
	TOPO_PIN_L2,
	TOPO_PIN_NODE,
	TOPO_PIN_CPUS,
};

/* A resolved pin. */
struct topo_pin {
	enum topo_pin_mode mode;
	struct cpumask cpus;	/* online CPUs to pin to; empty for none */
	struct cpumask offline;	/* CPUs of the domain or list left out */
	/* The cache domain used: level 0, type unknown and size 0 for none,
	   node: and cpus:. */
	int level;
	enum cache_type type;
	uint64_t size_bytes;
	/* For people: "pinned to the 12 CPUs sharing the largest L3
	   (32 MiB)", "pinned to CPU 0 (cpus:0)", "not pinned (none)". */
	char *desc;
};

/*
 * Resolves a pin mode, one of
 *   none | largest-llc | llc:N | l2:N | node:N | cpus:LIST
 * (N a domain index in CPU order for llc: and l2:, a node number for
 * node:), against t, leaving offline CPUs out. Reads nothing and makes no
 * system calls. t may be NULL, meaning the topology could not be read:
 * usage errors are still reported, `none` still succeeds.
 *
 * Returns 0 with *pin filled, or one of these (cause says which and why;
 * *pin is then zeroed, so topo_pin_release() is harmless):
 *   -EINVAL  usage: an unknown mode (the cause lists the valid ones) or a
 *            malformed number or cpus: list
 *   -ERANGE  usage: an index or node out of range (the cause gives the
 *            valid range), or a CPU number at or above CPUMASK_MAX
 *   -ENODATA the topology that the mode needs is unreadable or malformed
 *            (t NULL, or the level unusable); for largest-llc the caller
 *            may warn and run unpinned, for the others it is an error
 *   -ENOENT  largest-llc only: the machine reports no shared last-level
 *            cache (the cause says why); the caller may run unpinned
 *   -ENXIO   the pin leaves no online CPU
 *   -ENOMEM
 */
int topo_pin_resolve(const struct topo *t, const char *mode,
		     struct topo_pin *pin, char **cause);

/* Frees what pin holds and zeroes it; accepts a zeroed pin. */
void topo_pin_release(struct topo_pin *pin);

#endif
