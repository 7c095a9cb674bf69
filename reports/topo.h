/*
 * topo (reports): `prof topo` as a readable picture (levels, domains with
 * sizes and CPU lists, which domain largest-llc picks and why, clusters,
 * SMT, nodes) or as JSON with the keys of shared/DESIGN.md. Reads the
 * stored shape of a topology; writes to a caller-owned FILE.
 */
#ifndef REPORTS_TOPO_H
#define REPORTS_TOPO_H

#include <stdio.h>

#include "db/topology.h"
#include "reports/output.h"

void report_topo(const struct db_topology *t, enum out_format fmt, FILE *fp);

#endif
