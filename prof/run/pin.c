/*
 * pin: the flag-versus-environment rule, the resolution of a pin mode to
 * CPUs, and the conversion of a topology to its stored shape.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cause.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

int affinity_flag_add(int have, int flag)
{
	return have == AFFINITY_UNSET || have == flag ? flag : AFFINITY_BOTH;
}

const char *pin_choose_mode(const char *pin_opt, int affinity_flag,
			    const char *env, char **warning, char **cause)
{
	if (affinity_flag == AFFINITY_BOTH) {
		cause_set(cause, 0, "--cache-affinity and --no-cache-affinity "
			  "ask for different pins\nhint: give one of "
			  "them");
		return NULL;
	}
	if (affinity_flag != AFFINITY_UNSET) {
		const char *mode = affinity_flag == AFFINITY_ON ? "largest-llc" : "none";
		if (pin_opt && strcmp(pin_opt, mode)) {
			cause_set(cause, 0, "--pin %.40s and %s ask for "
				  "different pins\nhint: %s means --pin "
				  "%s; give one of them", pin_opt,
				  affinity_flag == AFFINITY_ON ? "--cache-affinity"
				  : "--no-cache-affinity",
				  affinity_flag == AFFINITY_ON ? "--cache-affinity"
				  : "--no-cache-affinity", mode);
			return NULL;
		}
		return mode;
	}
	if (pin_opt)
		return pin_opt;
	if (!env || !*env)
		return "none";
	static const char *const on[] = { "1", "true", "yes", "on" };
	static const char *const off[] = { "0", "false", "no", "off" };
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(env, on[i]))
			return "largest-llc";
		if (!strcasecmp(env, off[i]))
			return "none";
	}
	cause_set(warning, 0, "PROF_CACHE_AFFINITY='%.20s' is neither 1 nor 0; "
		  "not pinning", env);
	return "none";
}

static char *sdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static char *join_causes(const struct topo *t)
{
	size_t len = 0;
	char *out = NULL;
	FILE *fp = open_memstream(&out, &len);
	const char *parts[] = { t->cache_cause, t->llc_cause, t->smt_cause,
				t->cluster_cause, t->package_cause, t->node_cause };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i])
			fprintf(fp, "%s\n", parts[i]);
	/* A level's cause is often the last level's, said again: once. */
	for (int l = 0; l <= TOPO_MAX_CACHE_LEVEL; l++)
		if (t->level_cause[l] &&
		    !(t->llc_cause && strstr(t->llc_cause, t->level_cause[l])))
			fprintf(fp, "%s\n", t->level_cause[l]);
	fclose(fp);
	if (out && !*out) {
		free(out);
		return NULL;
	}
	return out;
}

static struct db_cpuset *sets_of(const struct cpumask *m, size_t n)
{
	struct db_cpuset *v = calloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++) {
		v[i].number = (int)i;
		v[i].cpus = cpumask_format(&m[i]);
	}
	return v;
}

/*
 * The online CPUs of m, as text; the offline ones it names go into
 * *gone. A stale shared_cpu_list or node cpulist can still name an
 * offline CPU (the kernel removes only that CPU's own directories), and
 * 'prof topo' must not show it in the largest LLC or its node.
 */
static char *online_part(const struct topo *t, const struct cpumask *m,
			 struct cpumask *gone)
{
	struct cpumask on, off;
	cpumask_and(&on, m, &t->online);
	cpumask_andnot(&off, m, &t->online);
	for (int c = cpumask_first(&off); c >= 0; c = cpumask_next(&off, c))
		cpumask_set(gone, c);
	return cpumask_format(&on);
}

/* "offline CPU 3 left out of the domains and nodes that list it" */
static char *offline_note(const struct cpumask *gone, char *notes)
{
	if (cpumask_empty(gone))
		return notes;
	char *list = cpumask_format(gone);
	char *s = NULL;
	if (list && asprintf(&s, "%s%soffline CPU%s %s left out of the cache domains "
			     "and nodes that still list %s", notes ? notes : "",
			     notes && *notes && notes[strlen(notes) - 1] != '\n' ? "\n" : "",
			     cpumask_count(gone) > 1 ? "s" : "", list,
			     cpumask_count(gone) > 1 ? "them" : "it") < 0)
		s = NULL;
	free(list);
	if (!s)
		return notes;
	free(notes);
	return s;
}

struct db_topology *topo_to_db(const struct topo *t)
{
	struct cpumask gone;
	cpumask_clear(&gone);
	struct db_topology *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->root = sdup(t->root);
	d->online = cpumask_format(&t->online);
	d->ncaches = t->n_caches;
	d->caches = calloc(t->n_caches ? t->n_caches : 1, sizeof(*d->caches));
	d->largest_llc = -1;
	for (size_t i = 0; i < t->n_caches; i++) {
		const struct cache_domain *c = &t->caches[i];
		d->caches[i].level = c->level;
		d->caches[i].type = sdup(cache_type_name(c->type));
		d->caches[i].size_bytes = c->size_bytes;
		d->caches[i].cpus = online_part(t, &c->cpus, &gone);
		d->caches[i].index = c->index;
		d->caches[i].id = c->id;
		if (t->largest_llc == c)
			d->largest_llc = (long)i;
	}
	d->llc_level = t->llc_level;
	d->llc_asymmetric = t->llc_asymmetric;
	d->largest_reason = sdup(t->largest_llc_reason);
	d->notes = join_causes(t);
	d->cluster_source = sdup(t->cluster_source == TOPO_CLUSTER_SYSFS ? "sysfs"
				 : t->cluster_source == TOPO_CLUSTER_L2 ? "l2" : NULL);
	d->clusters = sets_of(t->clusters, t->n_clusters);
	d->nclusters = t->n_clusters;
	d->smt = sets_of(t->smt, t->n_smt);
	d->nsmt = t->n_smt;
	d->packages = sets_of(t->packages, t->n_packages);
	d->npackages = t->n_packages;
	d->nnodes = t->n_nodes;
	d->nodes = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*d->nodes));
	for (size_t i = 0; d->nodes && i < t->n_nodes; i++) {
		d->nodes[i].number = t->nodes[i].node;
		d->nodes[i].cpus = online_part(t, &t->nodes[i].cpus, &gone);
	}
	d->notes = offline_note(&gone, d->notes);
	return d;
}

int pin_plan_make(struct pin_plan *p, const char *mode, const char *sysfs_root,
		  char **warning, char **cause)
{
	memset(p, 0, sizeof(*p));
	p->mode = strdup(mode);
	p->sysfs_root = sysfs_root ? strdup(sysfs_root) : NULL;
	if (!strcmp(mode, "none")) {
		p->status = strdup("not requested");
		return 0;	/* the topology: pin_plan_topology, if asked */
	}
	struct topo t;
	char *tcause = NULL;
	int trc = topo_read(&t, sysfs_root ? sysfs_root : "/", &tcause);
	if (trc == 0)
		p->topology = topo_to_db(&t);

	struct topo_pin pin;
	char *pcause = NULL;
	int rc = topo_pin_resolve(trc == 0 ? &t : NULL, mode, &pin, &pcause);
	bool largest = !strcmp(mode, "largest-llc");
	if (rc == 0) {
		p->apply = true;
		p->desc = strdup(pin.desc);
		p->cpus = cpumask_format(&pin.cpus);
		p->level = pin.level;
		p->cache_type = pin.level ? strdup(cache_type_name(pin.type)) : NULL;
		p->size_bytes = pin.size_bytes;
		int maxcpu = 0;
		for (int c = cpumask_first(&pin.cpus); c >= 0; c = cpumask_next(&pin.cpus, c))
			maxcpu = c;
		p->set = CPU_ALLOC((size_t)maxcpu + 1);
		p->setsize = CPU_ALLOC_SIZE((size_t)maxcpu + 1);
		CPU_ZERO_S(p->setsize, p->set);
		for (int c = cpumask_first(&pin.cpus); c >= 0; c = cpumask_next(&pin.cpus, c))
			CPU_SET_S((size_t)c, p->setsize, p->set);
		topo_pin_release(&pin);
	} else if (largest && (rc == -ENODATA || rc == -ENOENT)) {
		/* Malformed or absent: no pin rather than a wrong one. */
		const char *why = pcause ? pcause : (tcause ? tcause : "no topology");
		cause_set(&p->status, 0, "skipped: %s", why);
		cause_set(warning, 0, "not pinning (largest-llc): %s", why);
		rc = 0;
	} else {
		if (rc == -ENODATA && tcause) {
			cause_set(cause, 0, "%s\nhint: the topology could not be read: %s",
				  pcause ? pcause : "cannot pin", tcause);
		} else if (cause) {
			*cause = pcause;
			pcause = NULL;
		}
		/* The machine's topology is unreadable or malformed: nothing
		 * the user typed is wrong, so a failure (exit 1, as 'prof
		 * topo' on the same tree), not a usage error. */
		if (rc == -ENODATA)
			rc = -EIO;
	}
	free(pcause);
	free(tcause);
	if (trc == 0)
		topo_release(&t);
	return rc;
}

struct db_topology *pin_plan_topology(void *plan)
{
	const struct pin_plan *p = plan;
	struct topo t;
	if (topo_read(&t, p->sysfs_root ? p->sysfs_root : "/", NULL))
		return NULL;
	struct db_topology *d = topo_to_db(&t);
	topo_release(&t);
	return d;
}

void pin_plan_release(struct pin_plan *p)
{
	free(p->mode);
	free(p->sysfs_root);
	if (p->set)
		CPU_FREE(p->set);
	free(p->desc);
	free(p->status);
	free(p->cpus);
	free(p->cache_type);
	if (p->topology) {
		db_topology_release(p->topology);
		free(p->topology);
	}
	memset(p, 0, sizeof(*p));
}

char *pin_read_back(pid_t pid)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return NULL;
	char *out = NULL;
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "Cpus_allowed_list:", 18))
			continue;
		char *v = line + 18;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		out = strdup(v);
		break;
	}
	fclose(fp);
	return out;
}
