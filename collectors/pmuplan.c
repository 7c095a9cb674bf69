/*
 * pmuplan: the attrs to open per core PMU for a run's events, and the PMU
 * of each CPU; see pmuplan.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/mission.h"
#include "collectors/pmuplan.h"
#include "common/cause.h"
#include "common/errtext.h"

void pmu_plan_release(struct pmu_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->npmus; i++)
		free(p->pmus[i].name);
	for (size_t i = 0; p->notes && i < p->nevents; i++)
		free(p->notes[i]);
	free(p->pmus);
	free(p->notes);
	free(p->attrs);
	memset(p, 0, sizeof(*p));
}

bool pmu_plan_split(const struct pmu_plan *p)
{
	return p && p->npmus > 1;
}

int pmu_plan_cpu_pmu(const struct pmu_plan *p, int cpu)
{
	for (size_t i = 0; pmu_plan_split(p) && i < p->npmus; i++)
		if (!p->pmus[i].has_cpus || cpumask_has(&p->pmus[i].cpus, cpu))
			return (int)i;
	return -1;
}

bool pmu_plan_on_cpu(const struct pmu_plan *p, size_t i, int cpu)
{
	if (i >= p->nattrs)
		return false;
	int pmu = p->attrs[i].pmu;
	if (pmu < 0)
		return true;
	const struct plan_pmu *pp = &p->pmus[pmu];
	return !pp->has_cpus || cpumask_has(&pp->cpus, cpu);
}

const char *pmu_plan_pmu_name(const struct pmu_plan *p, size_t i)
{
	return i < p->nattrs && p->attrs[i].pmu >= 0 ? p->pmus[p->attrs[i].pmu].name
						     : NULL;
}

static bool add_attr(struct pmu_plan *p, size_t *cap, size_t event, int pmu,
		     const struct perf_event_attr *attr)
{
	if (p->nattrs == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct plan_attr *a = realloc(p->attrs, ncap * sizeof(*a));
		if (!a)
			return false;
		p->attrs = a;
		*cap = ncap;
	}
	p->attrs[p->nattrs++] = (struct plan_attr){ event, pmu, *attr };
	return true;
}

/* The core PMU of the lowest-numbered CPU: the CPU cpuid reads the
 * identity of, the one libpfm4 detects, and on x86 hybrid the cpu_core
 * PMU, whose type is PERF_TYPE_RAW. */
static int lowest_cpu_pmu(const struct pmu_plan *p)
{
	int best = 0, best_cpu = -1;
	for (size_t i = 0; i < p->npmus; i++) {
		int first = p->pmus[i].has_cpus ? cpumask_first(&p->pmus[i].cpus) : 0;
		if (first >= 0 && (best_cpu < 0 || first < best_cpu)) {
			best = (int)i;
			best_cpu = first;
		}
	}
	return best;
}

static int pmu_by_name(const struct pmu_plan *p, const char *name)
{
	for (size_t i = 0; name && i < p->npmus; i++)
		if (!strcmp(p->pmus[i].name, name))
			return (int)i;
	return -1;
}

static int pmu_by_type(const struct pmu_plan *p, uint32_t type)
{
	for (size_t i = 0; i < p->npmus; i++)
		if (p->pmus[i].type == type)
			return (int)i;
	return -1;
}

/*
 * The mission family of each core PMU for a raw mission event: true when
 * the map has a table made for each (its sysfs_pmu names that PMU), as for
 * Alder Lake's cpu_core and cpu_atom. An arm64 family is keyed by the one
 * MIDR the identity read, so it says nothing about the other cluster.
 */
static bool family_per_pmu(const struct pmu_plan *p, const struct cpuid *id,
			   const struct mission_family **fams)
{
	for (size_t i = 0; i < p->npmus; i++) {
		fams[i] = mission_family_for_cpu(id, p->pmus[i].name);
		if (!fams[i] || !fams[i]->raw || !fams[i]->sysfs_pmu ||
		    strcmp(fams[i]->sysfs_pmu, p->pmus[i].name))
			return false;
	}
	return true;
}

/* "'name' counts on PMU only (cpus L): why; time on the others' CPUs is
 * not counted". NULL when memory runs out. */
static char *one_pmu_note(const struct pmu_plan *p, const char *name, int home,
			  const char *why)
{
	const struct plan_pmu *h = &p->pmus[home];
	char *cpus = h->has_cpus ? cpumask_format(&h->cpus) : NULL;
	char *others = NULL, *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&others, &len);
	if (!fp) {
		free(cpus);
		return NULL;
	}
	int k = 0;
	for (size_t i = 0; i < p->npmus; i++)
		if ((int)i != home)
			fprintf(fp, "%s%s", k++ ? ", " : "", p->pmus[i].name);
	fclose(fp);
	if (asprintf(&s, "'%.40s' counts on %s only (cpus %s): %s; time on %s "
		     "is not counted", name, h->name, cpus ? cpus : "all", why,
		     others ? others : "the others") < 0)
		s = NULL;
	free(cpus);
	free(others);
	return s;
}

/* Why a raw event is one PMU's only. */
static const char *one_pmu_reason(const struct event_desc *ev)
{
	if (ev->mission && ev->family && ev->family->raw)
		return "the mission map has no table for each core type here";
	return "a raw event is one PMU's encoding";
}

/* Event e's parts on a split machine. false when memory runs out. */
static bool plan_event(struct pmu_plan *p, size_t *cap, size_t e,
		       const struct event_desc *ev, const struct cpuid *id,
		       unsigned flags)
{
	struct perf_event_attr a = ev->attr;
	uint32_t type = ev->attr.type;
	if (ev->refused || !ev->hardware)
		return add_attr(p, cap, e, -1, &a);
	bool generic = type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE;
	if (generic && (flags & PMU_PLAN_NO_EXTENDED)) {
		if (asprintf(&p->notes[e], "'%.40s' counts on one core PMU only, "
			     "the one the kernel picks: this kernel takes no PMU "
			     "type in attr.config (arm64 before Linux 6.6)",
			     ev->name) < 0) {
			p->notes[e] = NULL;
			return false;
		}
		return add_attr(p, cap, e, -1, &a);
	}
	if (generic) {
		for (size_t i = 0; i < p->npmus; i++) {
			a.config = pmu_hw_config(p->pmus[i].type, ev->attr.config);
			if (!add_attr(p, cap, e, (int)i, &a))
				return false;
		}
		return true;
	}
	int home = pmu_by_type(p, type);
	if (type == PERF_TYPE_RAW) {
		const struct mission_family **fams = calloc(p->npmus, sizeof(*fams));
		if (!fams)
			return false;
		bool each = ev->mission && ev->family && ev->family->raw &&
			    family_per_pmu(p, id, fams);
		int idx = ev->mission ? mission_index(ev->mission->name) : -1;
		bool ok = true;
		for (size_t i = 0; each && ok && i < p->npmus; i++) {
			a.type = p->pmus[i].type;
			a.config = fams[i]->events[idx].raw;
			ok = add_attr(p, cap, e, (int)i, &a);
		}
		free(fams);
		if (each)
			return ok;
		home = ev->family && ev->family->sysfs_pmu
		       ? pmu_by_name(p, ev->family->sysfs_pmu) : -1;
		if (home < 0)
			home = lowest_cpu_pmu(p);
	} else if (home < 0) {
		/* Another PMU's own event (uncore, msr): not a core's. */
		return add_attr(p, cap, e, -1, &a);
	}
	a.type = p->pmus[home].type;
	p->notes[e] = one_pmu_note(p, ev->name, home, one_pmu_reason(ev));
	return p->notes[e] && add_attr(p, cap, e, home, &a);
}

static bool copy_pmus(struct pmu_plan *p, const struct pmu_list *pmus)
{
	p->pmus = calloc(pmus->ncore, sizeof(*p->pmus));
	if (!p->pmus)
		return false;
	for (size_t i = 0; i < pmus->ncore; i++) {
		const struct pmu *src = &pmus->pmus[i];
		p->pmus[i].name = strdup(src->name);
		if (!p->pmus[i].name)
			return false;
		p->npmus = i + 1;
		p->pmus[i].type = src->type;
		p->pmus[i].has_cpus = src->has_cpus;
		p->pmus[i].cpus = src->cpus;
	}
	return true;
}

int pmu_plan_init(struct pmu_plan *p, const struct event_desc *evs, size_t n,
		  const struct pmu_list *pmus, const struct cpuid *id,
		  unsigned flags, char **cause)
{
	memset(p, 0, sizeof(*p));
	size_t cap = 0;
	bool ok = (p->notes = calloc(n ? n : 1, sizeof(*p->notes))) != NULL;
	p->nevents = n;
	bool split = pmus && pmus->ncore > 1;
	if (ok && split)
		ok = copy_pmus(p, pmus);
	for (size_t e = 0; ok && e < n; e++)
		ok = split ? plan_event(p, &cap, e, &evs[e], id, flags)
			   : add_attr(p, &cap, e, -1, &evs[e].attr);
	if (!ok) {
		pmu_plan_release(p);
		return cause_set(cause, ENOMEM, "cannot plan the events per PMU: %s",
				 ERR_TEXT(ENOMEM));
	}
	return 0;
}
