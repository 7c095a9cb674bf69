/*
 * topo_internal: what cpumask.c, topology.c and topo_pin.c share and
 * nobody else uses: the message helpers (topo_msg.c), the short name of a
 * cache level and the L2 domains. Not a public header: include
 * collectors/topology.h.
 */
#ifndef COLLECTORS_TOPO_INTERNAL_H
#define COLLECTORS_TOPO_INTERNAL_H

#include <stddef.h>

#include "collectors/topology.h"

/* How much of a user's or a file's text a message echoes. */
#define TOPO_ECHO_MAX 48

/* A malloc'd message, or NULL when out of memory. */
char *topo_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Hands msg (which may be NULL) to *cause, or frees it. */
void topo_cause_give(char **cause, char *msg);

/* Copies text for echoing in a message: no trailing newline, control
 * characters shown as '?', cut at TOPO_ECHO_MAX with "...". */
const char *topo_echo(const char *s, char *buf, size_t len);

/* "L3", "L1d", "L1i": the short name lscpu and people use. */
void topo_level_name(int level, enum cache_type type, char *buf, size_t len);

/* The L2 domains pins and clusters use: Unified, else Data. */
const struct cache_domain *topo_l2_domains(const struct topo *t, size_t *n);

#endif
