/*
 * topology (db): the stored shape of a machine's CPU and cache topology,
 * kept once per host so later reports can say which domain a run was
 * pinned to. reports/topo renders the same struct for `prof topo`.
 *
 * CPU lists are kept in the kernel's compact text form ("0-5,12-17").
 * It is written, not yet read: the loader left with its last caller, and
 * comes back with the first report that shows a stored topology.
 * Caller-owned; db_topology_release frees. Not thread-safe.
 */
#ifndef DB_TOPOLOGY_H
#define DB_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

struct db_cache {
	int level;
	char *type;		/* "Data", "Instruction", "Unified" */
	uint64_t size_bytes;
	char *cpus;
	size_t index;		/* among domains of its level and type */
	long id;		/* sysfs id, -1 when absent */
};

struct db_cpuset {
	int number;		/* node number, or the set's index */
	char *cpus;
};

struct db_topology {
	char *root;		/* the sysfs root it was read from */
	char *online;
	struct db_cache *caches;
	size_t ncaches;
	int llc_level;
	long largest_llc;	/* index into caches, -1 when none */
	bool llc_asymmetric;
	char *largest_reason;	/* why largest_llc is what it is */
	char *notes;		/* causes of parts left out, one per line */
	char *cluster_source;	/* "sysfs", "l2" or NULL */
	struct db_cpuset *clusters, *smt, *packages, *nodes;
	size_t nclusters, nsmt, npackages, nnodes;
};

void db_topology_release(struct db_topology *t);

/* Whether host_id has a topology stored: 0 with *have, or an error. */
int db_topology_stored(struct db *db, int64_t host_id, bool *have, char **cause);

/*
 * Store t for host_id unless that host already has a topology stored.
 * Runs inside the caller's transaction when there is one.
 */
int db_topology_store(struct db *db, int64_t host_id,
		      const struct db_topology *t, char **cause);

#endif
