/*
 * topo_pin: resolves a pin mode (none, largest-llc, llc:N, l2:N, node:N,
 * cpus:LIST) to a set of online CPUs against a topology already read.
 * Reads nothing. See topology.h for the modes and their errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/topology.h"
#include "collectors/topo_internal.h"

void topo_pin_release(struct topo_pin *pin)
{
	if (!pin)
		return;
	free(pin->desc);
	memset(pin, 0, sizeof(*pin));
}

#define VALID_MODES "none, largest-llc, llc:N, l2:N, node:N, cpus:LIST"

/* Parses N in "llc:N": 0, -EINVAL (no number), -ERANGE (too large). */
static int parse_index(const char *mode, const char *s, size_t *out, char **cause)
{
	char eb[TOPO_ECHO_MAX + 8];
	size_t v = 0;
	bool big = false;
	const char *p = s;
	if (*p < '0' || *p > '9') {
		topo_cause_give(cause, topo_msg("invalid pin mode '%s': expected a number after the colon",
					  topo_echo(mode, eb, sizeof(eb))));
		return -EINVAL;
	}
	for (; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (size_t)(*p - '0'), &v))
			big = true;
	if (*p) {
		topo_cause_give(cause, topo_msg("invalid pin mode '%s': expected a number after the colon",
					  topo_echo(mode, eb, sizeof(eb))));
		return -EINVAL;
	}
	if (big) {
		topo_cause_give(cause, topo_msg("pin mode '%s' is out of range", topo_echo(mode, eb, sizeof(eb))));
		return -ERANGE;
	}
	*out = v;
	return 0;
}

/* "CPU 3" or "the 12 CPUs" */
static void cpus_phrase(const struct cpumask *m, char *buf, size_t len)
{
	size_t n = cpumask_count(m);
	if (n == 1)
		snprintf(buf, len, "CPU %d", cpumask_first(m));
	else
		snprintf(buf, len, "the %zu CPUs", n);
}

/* Appends "; offline CPU 3 left out" to pin->desc where that applies. */
static int add_offline_note(struct topo_pin *pin)
{
	if (cpumask_empty(&pin->offline))
		return 0;
	char *list = cpumask_format(&pin->offline);
	char *s = list ? topo_msg("%s; offline CPU%s %s left out", pin->desc,
				 cpumask_count(&pin->offline) > 1 ? "s" : "", list)
		       : NULL;
	free(list);
	if (!s)
		return -ENOMEM;
	free(pin->desc);
	pin->desc = s;
	return 0;
}

/* Takes the CPUs of `want` that are online; -ENXIO when none is. */
static int take_online(const struct topo *t, const struct cpumask *want,
		       struct topo_pin *pin, const char *what, char **cause)
{
	cpumask_and(&pin->cpus, want, &t->online);
	cpumask_andnot(&pin->offline, want, &t->online);
	if (!cpumask_empty(&pin->cpus))
		return 0;
	char *list = cpumask_format(want);
	char *online = cpumask_format(&t->online);
	topo_cause_give(cause, topo_msg("no online cpu in %s: cpus %s are offline (online: %s)", what,
				  list ? list : "?", online ? online : "?"));
	free(list);
	free(online);
	return -ENXIO;
}

/* Pins to a cache domain. */
static int pin_domain(const struct topo *t, const struct cache_domain *d,
		      const char *mode, bool largest, struct topo_pin *pin, char **cause)
{
	char ln[16], sz[32], who[48], what[96];
	topo_level_name(d->level, d->type, ln, sizeof(ln));
	cache_size_format(d->size_bytes, sz, sizeof(sz));
	if (largest)
		snprintf(what, sizeof(what), "the largest %s", ln);
	else
		snprintf(what, sizeof(what), "%s domain %zu", ln, d->index);
	int rc = take_online(t, &d->cpus, pin, what, cause);
	if (rc < 0)
		return rc;
	pin->level = d->level;
	pin->type = d->type;
	pin->size_bytes = d->size_bytes;
	cpus_phrase(&pin->cpus, who, sizeof(who));
	bool one = cpumask_count(&pin->cpus) == 1;
	if (largest)
		pin->desc = topo_msg("pinned to %s %s %s (%s)", who,
				    one ? "of" : "sharing", what, sz);
	else
		pin->desc = topo_msg("pinned to %s %s %s (%s; %s)", who,
				    one ? "of" : "sharing", what, sz, mode);
	return pin->desc ? 0 : -ENOMEM;
}

static int index_range_error(const char *mode, const char *kind, size_t n,
			     const char *what, char **cause);

/*
 * l2:N on a machine that reports no L2 at all (some hypervisors give
 * their guests L1 and L3 only): the Nth last-level domain stands in, and
 * the description says so, rather than refusing a pin the user can only
 * get by knowing the machine's gap.
 */
static int pin_l2_as_llc(const struct topo *t, size_t idx, const char *mode,
			 struct topo_pin *pin, char **cause)
{
	if (idx >= t->n_llc)
		return index_range_error(mode, "l2", t->n_llc, "last-level cache "
					 "domains standing in for the missing L2", cause);
	int rc = pin_domain(t, &t->llc[idx], mode, false, pin, cause);
	if (rc < 0)
		return rc;
	char ln[16];
	topo_level_name(t->llc[idx].level, t->llc[idx].type, ln, sizeof(ln));
	char *s = topo_msg("%s; the machine reports no L2 cache, so its %s domain "
			   "stands in", pin->desc, ln);
	if (!s)
		return -ENOMEM;
	free(pin->desc);
	pin->desc = s;
	return 0;
}

/* "llc:0 to llc:1" for the cause of an index out of range. */
static int index_range_error(const char *mode, const char *kind, size_t n,
			     const char *what, char **cause)
{
	char eb[TOPO_ECHO_MAX + 8];
	topo_echo(mode, eb, sizeof(eb));
	if (n == 0)
		topo_cause_give(cause, topo_msg("pin mode '%s' is out of range: the machine reports no %s",
					  eb, what));
	else if (n == 1)
		topo_cause_give(cause, topo_msg("pin mode '%s' is out of range: the machine has "
					  "one %.*s (%s:0)", eb, (int)strlen(what) - 1,
					  what, kind));
	else
		topo_cause_give(cause, topo_msg("pin mode '%s' is out of range: the machine has %zu %s (%s:0 to %s:%zu)",
					  eb, n, what, kind, kind, n - 1));
	return -ERANGE;
}

int topo_pin_resolve(const struct topo *t, const char *mode,
		     struct topo_pin *pin, char **cause)
{
	char eb[TOPO_ECHO_MAX + 8], who[48];
	struct cpumask want;
	size_t idx = 0, n;
	int rc = 0;

	memset(pin, 0, sizeof(*pin));
	if (!mode)
		mode = "";

	/* Usage first: a bad mode is a bad mode whatever the machine. */
	if (strcmp(mode, "none") == 0) {
		pin->mode = TOPO_PIN_NONE;
	} else if (strcmp(mode, "largest-llc") == 0) {
		pin->mode = TOPO_PIN_LARGEST_LLC;
	} else if (strncmp(mode, "llc:", 4) == 0) {
		pin->mode = TOPO_PIN_LLC;
		rc = parse_index(mode, mode + 4, &idx, cause);
	} else if (strncmp(mode, "l2:", 3) == 0) {
		pin->mode = TOPO_PIN_L2;
		rc = parse_index(mode, mode + 3, &idx, cause);
	} else if (strncmp(mode, "node:", 5) == 0) {
		pin->mode = TOPO_PIN_NODE;
		rc = parse_index(mode, mode + 5, &idx, cause);
	} else if (strncmp(mode, "cpus:", 5) == 0) {
		char *why = NULL;
		pin->mode = TOPO_PIN_CPUS;
		rc = cpumask_parse(&want, mode + 5, &why);
		if (rc == 0 && cpumask_empty(&want)) {
			why = topo_msg("cpus: needs a cpu list such as 0-3");
			rc = -EINVAL;
		}
		if (rc < 0) {
			topo_cause_give(cause, topo_msg("invalid pin mode '%s': %s", topo_echo(mode, eb, sizeof(eb)),
						  why ? why : "out of memory"));
			free(why);
		}
	} else {
		topo_cause_give(cause, topo_msg("unknown pin mode '%s'; valid modes: " VALID_MODES,
					  topo_echo(mode, eb, sizeof(eb))));
		rc = -EINVAL;
	}
	if (rc < 0)
		goto out_fail;

	if (pin->mode == TOPO_PIN_NONE) {
		pin->desc = strdup("not pinned (none)");
		rc = pin->desc ? 0 : -ENOMEM;
		goto out_done;
	}
	if (!t) {
		topo_cause_give(cause, topo_msg("cannot pin '%s': the cpu topology could not be read",
					  topo_echo(mode, eb, sizeof(eb))));
		rc = -ENODATA;
		goto out_fail;
	}

	switch (pin->mode) {
	case TOPO_PIN_LARGEST_LLC:
		if (t->llc_cause) {
			topo_cause_give(cause, strdup(t->llc_cause));
			rc = -ENODATA;
		} else if (!t->largest_llc) {
			topo_cause_give(cause, strdup(t->largest_llc_reason ? t->largest_llc_reason
								       : "no shared last-level cache"));
			rc = -ENOENT;
		} else {
			rc = pin_domain(t, t->largest_llc, mode, true, pin, cause);
		}
		break;
	case TOPO_PIN_LLC:
		if (t->llc_cause) {
			topo_cause_give(cause, strdup(t->llc_cause));
			rc = -ENODATA;
		} else if (idx >= t->n_llc) {
			rc = index_range_error(mode, "llc", t->n_llc, "last-level cache domains", cause);
		} else {
			rc = pin_domain(t, &t->llc[idx], mode, false, pin, cause);
		}
		break;
	case TOPO_PIN_L2: {
		const struct cache_domain *d = topo_l2_domains(t, &n);
		if (t->cache_cause || t->level_cause[2]) {
			topo_cause_give(cause, topo_msg("the L2 cache is unusable: %s",
						  t->cache_cause ? t->cache_cause : t->level_cause[2]));
			rc = -ENODATA;
		} else if (n == 0 && t->n_llc && !t->llc_cause && t->llc_level > 2) {
			rc = pin_l2_as_llc(t, idx, mode, pin, cause);
		} else if (idx >= n) {
			rc = index_range_error(mode, "l2", n, "L2 cache domains", cause);
		} else {
			rc = pin_domain(t, &d[idx], mode, false, pin, cause);
		}
		break;
	}
	case TOPO_PIN_NODE: {
		const struct topo_node *node = NULL;
		if (t->node_cause) {
			topo_cause_give(cause, topo_msg("the numa nodes are unusable: %s", t->node_cause));
			rc = -ENODATA;
			break;
		}
		for (size_t i = 0; i < t->n_nodes; i++)
			if ((size_t)t->nodes[i].node == idx)
				node = &t->nodes[i];
		if (!node) {
			char list[256] = "";
			size_t len = 0;
			for (size_t i = 0; i < t->n_nodes && len + 16 < sizeof(list); i++)
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d",
							i ? ", " : "", t->nodes[i].node);
			if (t->n_nodes)
				topo_cause_give(cause, topo_msg("pin mode '%s' is out of range: the numa nodes are %s",
							  topo_echo(mode, eb, sizeof(eb)), list));
			else
				topo_cause_give(cause, topo_msg("pin mode '%s' is out of range: the machine reports no numa nodes",
							  topo_echo(mode, eb, sizeof(eb))));
			rc = -ERANGE;
			break;
		}
		char what[48];
		snprintf(what, sizeof(what), "numa node %d", node->node);
		rc = take_online(t, &node->cpus, pin, what, cause);
		if (rc < 0)
			break;
		cpus_phrase(&pin->cpus, who, sizeof(who));
		pin->desc = topo_msg("pinned to %s of NUMA node %d (%s)", who, node->node, mode);
		rc = pin->desc ? 0 : -ENOMEM;
		break;
	}
	case TOPO_PIN_CPUS: {
		char *asked = cpumask_format(&want);
		char *list = NULL;
		if (!asked) {
			rc = -ENOMEM;
			break;
		}
		char what[64];
		snprintf(what, sizeof(what), "cpus:%.40s%s", asked, strlen(asked) > 40 ? "..." : "");
		rc = take_online(t, &want, pin, what, cause);
		if (rc == 0) {
			list = cpumask_format(&pin->cpus);
			size_t cnt = cpumask_count(&pin->cpus);
			pin->desc = list ? topo_msg("pinned to CPU%s %s (cpus:%s)", cnt > 1 ? "s" : "",
						   list, asked)
					 : NULL;
			rc = pin->desc ? 0 : -ENOMEM;
		}
		free(list);
		free(asked);
		break;
	}
	default:
		rc = -EINVAL;
		break;
	}
	if (rc == 0)
		rc = add_offline_note(pin);
out_done:
	if (rc == 0)
		return 0;
out_fail:
	topo_pin_release(pin);
	return rc;
}

