/* pressplan: steps, the domain and the CPUs of `prof pressure`. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collectors/pirate.h"
#include "common/cause.h"
#include "common/xalloc.h"
#include "prof/pressplan.h"

/* A decimal number "12" or "1.5" at s (no sign, no exponent): its end,
 * or NULL. */
static const char *scan_number(const char *s, double *out)
{
	const char *p = s;
	while (isdigit((unsigned char)*p))
		p++;
	if (p == s)
		return NULL;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	char buf[64];
	if ((size_t)(p - s) >= sizeof(buf))
		return NULL;
	memcpy(buf, s, (size_t)(p - s));
	buf[p - s] = '\0';
	*out = strtod(buf, NULL);
	return p;
}

/* A fraction "a/b", a percentage "p%", or a size "4M", "1.5MiB", "4096". */
static int parse_step(const char *w, uint64_t domain, uint64_t *out, char **cause)
{
	double a, b, bytes;
	const char *end = scan_number(w, &a);
	if (!end)
		goto bad;
	if (*end == '/') {
		const char *e2 = scan_number(end + 1, &b);
		if (!e2 || *e2 || !(b > 0))
			goto bad;
		bytes = (double)domain * a / b;
	} else if (!strcmp(end, "%")) {
		bytes = (double)domain * a / 100.0;
	} else {
		static const struct { const char *s; double m; } units[] = {
			{ "", 1 }, { "B", 1 },
			{ "K", 1024 }, { "KB", 1024 }, { "KiB", 1024 },
			{ "M", 1048576 }, { "MB", 1048576 }, { "MiB", 1048576 },
			{ "G", 1073741824 }, { "GB", 1073741824 }, { "GiB", 1073741824 },
		};
		size_t i = 0;
		for (; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcasecmp(end, units[i].s))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			goto bad;
		bytes = a * units[i].m;
	}
	if (!isfinite(bytes) || bytes > (double)domain + 0.5) {
		char d[32];
		cache_size_format(domain, d, sizeof(d));
		return cause_set(cause, ERANGE, "step '%.40s' is more than the %s cache "
				 "domain: the co-runner's memory is bounded by the domain",
				 w, d);
	}
	*out = (uint64_t)bytes / CHASE_LINE * CHASE_LINE;
	if (bytes > 0 && *out == 0)
		return cause_set(cause, EINVAL, "step '%.40s' is less than a cache line "
				 "(%d bytes): a whole domain is 1/1 or 100%%", w, CHASE_LINE);
	return 0;
bad:
	return cause_set(cause, EINVAL, "bad step '%.40s': expected a fraction of the "
			 "domain (1/8), a percentage (25%%) or a size (4M, 512K)", w);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int press_steps_parse(const char *spec, uint64_t domain_bytes,
		      struct press_steps *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	char *copy = strdup(spec);
	if (!copy)
		xalloc_die();
	int rc = 0;
	/* Every word between commas counts: "4M,,8M" is a mistake. */
	for (char *w = copy, *next; w && !rc; w = next) {
		next = strchr(w, ',');
		if (next)
			*next++ = '\0';
		while (isspace((unsigned char)*w))
			w++;
		size_t l = strlen(w);
		while (l && isspace((unsigned char)w[l - 1]))
			w[--l] = '\0';
		uint64_t v = 0;
		if ((rc = parse_step(w, domain_bytes, &v, cause)))
			break;
		bool dup = false;
		for (size_t i = 0; i < out->n; i++)
			dup = dup || out->bytes[i] == v;
		if (dup)
			continue;
		if (out->n == PRESS_STEPS_MAX) {
			rc = cause_set(cause, ERANGE, "more than %d steps", PRESS_STEPS_MAX);
			break;
		}
		out->bytes[out->n++] = v;
	}
	free(copy);
	if (rc)
		return rc;
	qsort(out->bytes, out->n, sizeof(uint64_t), cmp_u64);
	if (out->n == 0 || out->bytes[out->n - 1] == 0)
		return cause_set(cause, ERANGE, "--steps '%.40s' takes nothing away: give "
				 "at least one step above 0", spec);
	return 0;
}

void press_steps_default(uint64_t domain_bytes, struct press_steps *out)
{
	static const int num[] = { 0, 1, 1, 1, 3 }, den[] = { 1, 8, 4, 2, 4 };
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < 5; i++)
		out->bytes[out->n++] = domain_bytes / (uint64_t)den[i] * (uint64_t)num[i]
				       / CHASE_LINE * CHASE_LINE;
}

void press_step_label(uint64_t bytes, char *buf, size_t len)
{
	if (bytes == 0) {
		snprintf(buf, len, "0");
	} else if (bytes >= (1u << 20)) {
		double m = (double)bytes / 1048576.0;
		if (m == floor(m))
			snprintf(buf, len, "%.0fMiB", m);
		else
			snprintf(buf, len, "%.4gMiB", m);
	} else if (bytes >= 1024) {
		snprintf(buf, len, "%.4gKiB", (double)bytes / 1024.0);
	} else {
		snprintf(buf, len, "%lluB", (unsigned long long)bytes);
	}
}

/* The SMT set of cpu, or NULL when the topology has none for it. */
static const struct cpumask *smt_of(const struct topo *t, int cpu)
{
	for (size_t i = 0; i < t->n_smt; i++)
		if (cpumask_has(&t->smt[i], cpu))
			return &t->smt[i];
	return NULL;
}

/* The L2 (unified, else data) domain of cpu, or NULL. */
static const struct cache_domain *l2_of(const struct topo *t, int cpu)
{
	size_t n;
	const struct cache_domain *d = topo_domains(t, 2, CACHE_TYPE_UNIFIED, &n);
	if (!d)
		d = topo_domains(t, 2, CACHE_TYPE_DATA, &n);
	for (size_t i = 0; d && i < n; i++)
		if (cpumask_has(&d[i].cpus, cpu))
			return &d[i];
	return NULL;
}

static int pick_domain(const struct topo *t, const char *spec,
		       const struct cache_domain **out, char **cause)
{
	if (!spec || !strcmp(spec, "largest-llc")) {
		if (t->largest_llc) {
			*out = t->largest_llc;
			return 0;
		}
		if (t->llc_cause)
			return cause_set(cause, ENODATA, "%s", t->llc_cause);
		return cause_set(cause, ENODEV, "no cache domain to take capacity "
				 "from: %s", t->largest_llc_reason ? t->largest_llc_reason
				 : "the machine reports no shared last-level cache");
	}
	if (strncmp(spec, "llc:", 4))
		return cause_set(cause, EINVAL, "bad --domain '%.40s': expected "
				 "largest-llc or llc:N", spec);
	char *end;
	errno = 0;
	long n = strtol(spec + 4, &end, 10);
	if (errno || end == spec + 4 || *end || n < 0 || !isdigit((unsigned char)spec[4]))
		return cause_set(cause, EINVAL, "bad --domain '%.40s': expected "
				 "largest-llc or llc:N", spec);
	if (t->llc_cause)
		return cause_set(cause, ENODATA, "%s", t->llc_cause);
	if ((size_t)n >= t->n_llc)
		return cause_set(cause, ERANGE, "--domain %s: the machine has %zu "
				 "last-level domain%s (llc:0 to llc:%zu)", spec, t->n_llc,
				 t->n_llc == 1 ? "" : "s", t->n_llc ? t->n_llc - 1 : 0);
	*out = &t->llc[n];
	return 0;
}

/* "W" or "W,P": CPU numbers. */
static int parse_cpus(const char *spec, bool want_two, int *w, int *p, char **cause)
{
	char *end;
	errno = 0;
	long a = strtol(spec, &end, 10), b = -1;
	if (errno || end == spec || a < 0 || a >= CPUMASK_MAX ||
	    !isdigit((unsigned char)*spec))
		goto bad;
	if (*end == ',') {
		const char *q = end + 1;
		b = strtol(q, &end, 10);
		if (errno || end == q || b < 0 || b >= CPUMASK_MAX ||
		    !isdigit((unsigned char)*q))
			goto bad;
	}
	if (*end || (want_two && b < 0) || (!want_two && b >= 0))
		goto bad;
	if (a == b)
		return cause_set(cause, EINVAL, "--cpus %.40s: the workload and the "
				 "co-runner need two different CPUs", spec);
	*w = (int)a;
	*p = (int)b;
	return 0;
bad:
	return cause_set(cause, EINVAL, "bad --cpus '%.40s': expected %s", spec,
			 want_two ? "W,P (the workload's CPU, the co-runner's)"
			 : "W (the workload's CPU)");
}

/* How good a co-runner CPU c is beside the workload's w: -1 never (a
 * sibling), 0 shares w's L2, 1 has an L2 of its own. */
static int corunner_rank(const struct topo *t, int w, int c)
{
	const struct cpumask *smt = smt_of(t, w);
	if (smt && cpumask_has(smt, c))
		return -1;
	const struct cache_domain *l2 = l2_of(t, w);
	if (l2 && cpumask_has(&l2->cpus, c))
		/* Without SMT facts, a CPU sharing the L2 may be a sibling. */
		return t->n_smt ? 0 : -1;
	return 1;
}

static void fill(const struct topo *t, struct press_cpus *out, int w, int c)
{
	out->workload_cpu = w;
	out->corunner_cpu = c;
	out->smt_unknown = t->n_smt == 0;
	if (c < 0)
		return;
	const struct cache_domain *l2 = l2_of(t, c);
	out->corunner_l2_bytes = l2 ? l2->size_bytes : 0;
	out->l2_shared = l2 && cpumask_has(&l2->cpus, w);
}

int press_pick(const struct topo *t, const char *domain_spec, const char *cpus_spec,
	       const struct cpumask *allowed, bool need_corunner,
	       struct press_cpus *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	out->corunner_cpu = -1;
	const struct cache_domain *d = NULL;
	int rc = pick_domain(t, domain_spec, &d, cause);
	if (rc)
		return rc;
	out->domain = d;
	struct cpumask usable;
	cpumask_and(&usable, &d->cpus, &t->online);
	if (allowed)
		cpumask_and(&usable, &usable, allowed);
	char size[32];
	cache_size_format(d->size_bytes, size, sizeof(size));
	char *dcpus = cpumask_format(&d->cpus);
	if (!dcpus)
		xalloc_die();

	if (cpus_spec) {
		int w = -1, c = -1;
		if ((rc = parse_cpus(cpus_spec, need_corunner, &w, &c, cause)))
			goto out;
		const int cpu[2] = { w, c };
		for (int i = 0; i < (need_corunner ? 2 : 1); i++) {
			if (!cpumask_has(&usable, cpu[i])) {
				rc = cause_set(cause, ENODEV, "--cpus %.40s: CPU %d is not "
					       "a usable CPU of the %s L%d (CPUs %s)%s",
					       cpus_spec, cpu[i], size, d->level, dcpus,
					       allowed ? ", online and allowed to prof" : "");
				goto out;
			}
		}
		if (need_corunner && corunner_rank(t, w, c) < 0) {
			rc = cause_set(cause, ENODEV, "--cpus %.40s: CPU %d %s CPU %d: the "
				       "co-runner would share its core's L1 and L2",
				       cpus_spec, c, t->n_smt ? "is an SMT sibling of"
				       : "shares an L2 (maybe a core) with", w);
			goto out;
		}
		fill(t, out, w, need_corunner ? c : -1);
		goto out;
	}

	int w = cpumask_first(&usable);
	if (w < 0) {
		rc = cause_set(cause, ENODEV, "the %s L%d (CPUs %s) has no CPU prof may "
			       "run on", size, d->level, dcpus);
		goto out;
	}
	if (!need_corunner) {
		fill(t, out, w, -1);
		goto out;
	}
	/* The workload on the first usable CPU; the co-runner on the best
	 * other one, the last of equals. */
	int best = -1, best_rank = -1;
	size_t others = 0;
	for (int c = cpumask_next(&usable, w); c >= 0; c = cpumask_next(&usable, c)) {
		others++;
		int r = corunner_rank(t, w, c);
		if (r >= best_rank && r >= 0) {
			best = c;
			best_rank = r;
		}
	}
	if (others == 0) {
		rc = cause_set(cause, ENODEV, "the %s L%d (CPUs %s) has no second usable "
			       "CPU for the co-runner: prof pressure needs two CPUs that "
			       "share the cache%s", size, d->level, dcpus,
			       allowed ? " (online and allowed to prof)" : "");
		goto out;
	}
	if (best < 0) {
		const struct cpumask *smt = smt_of(t, w);
		const struct cache_domain *l2 = l2_of(t, w);
		char *sib = smt ? cpumask_format(smt) : l2 ? cpumask_format(&l2->cpus)
			    : NULL;
		rc = cause_set(cause, ENODEV, "the %s L%d (CPUs %s) has no second CPU "
			       "that is not an SMT sibling of CPU %d (%s %s): a sibling "
			       "shares the core's L1 and L2", size, d->level, dcpus, w,
			       t->n_smt ? "siblings" : "L2 shared by",
			       sib ? sib : "?");
		free(sib);
		goto out;
	}
	fill(t, out, w, best);
out:
	free(dcpus);
	return rc;
}

uint64_t press_control_bytes(uint64_t l2_bytes)
{
	uint64_t b = l2_bytes ? l2_bytes / 2 : 256 * 1024;
	if (b < 16 * 1024)
		b = 16 * 1024;
	return b / 4096 * 4096;
}

uint64_t press_hit_bytes(uint64_t l2_bytes, uint64_t domain_bytes)
{
	uint64_t b = l2_bytes ? 2 * l2_bytes : 1u << 20;
	if (domain_bytes && b > domain_bytes / 4)
		b = domain_bytes / 4;
	if (b < 2 * CHASE_LINE)
		b = 2 * CHASE_LINE;
	return b / CHASE_LINE * CHASE_LINE;
}
