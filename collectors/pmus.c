/*
 * pmus: the PMUs of /sys/bus/event_source/devices and which of them are
 * core PMUs; see pmus.h.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/pmus.h"
#include "common/cause.h"
#include "common/errtext.h"
#include "common/sysfile.h"

#define DEVICES "sys/bus/event_source/devices"

/* Headers older than Linux 5.13 lack it. */
#ifndef PERF_PMU_TYPE_SHIFT
#define PERF_PMU_TYPE_SHIFT 32
#define PERF_HW_EVENT_MASK 0xffffffff
#endif

/* The PMUs that are never core PMUs, by name or by name prefix. */
static const char *const not_core[] = {
	"software", "tracepoint", "breakpoint", "kprobe", "uprobe", "msr",
	"power",
};
static const char *const not_core_prefix[] = {
	"uncore_", "power_", "cstate_", "amd_df", "amd_l3", "amd_iommu",
	"amd_umc", "arm_cmn", "arm_dsu", "arm_spe", "intel_pt", "intel_bts",
};
/* Named core PMUs (x86); arm's are named by prefix. */
static const char *const core_names[] = {
	"cpu", "cpu_core", "cpu_atom", "cpu_lowpower",
};
static const char *const core_prefix[] = { "armv7_", "armv8_" };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

bool pmu_is_core(const char *name, bool has_cpus_file, bool has_cycles)
{
	for (size_t i = 0; i < N(not_core); i++)
		if (!strcmp(name, not_core[i]))
			return false;
	for (size_t i = 0; i < N(not_core_prefix); i++)
		if (has_prefix(name, not_core_prefix[i]))
			return false;
	for (size_t i = 0; i < N(core_names); i++)
		if (!strcmp(name, core_names[i]))
			return true;
	for (size_t i = 0; i < N(core_prefix); i++)
		if (has_prefix(name, core_prefix[i]))
			return true;
	return has_cpus_file && has_cycles;
}

uint64_t pmu_hw_config(uint32_t pmu_type, uint64_t config)
{
	return (config & (uint64_t)PERF_HW_EVENT_MASK) |
	       ((uint64_t)pmu_type << PERF_PMU_TYPE_SHIFT);
}

bool pmus_extended_type(const struct pmu_list *l)
{
	if (!l || !l->ncore)
		return true;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = pmu_hw_config(l->pmus[0].type, PERF_COUNT_HW_CPU_CYCLES);
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	return errno != ENOENT && errno != EOPNOTSUPP && errno != EINVAL;
}

/* The first line of dir/name without its newline, malloc'd, or NULL. */
static char *read_line(const char *dir, const char *name)
{
	char path[4096];
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return NULL;
	return sysfile_line_dup(path);
}

static bool exists(const char *dir, const char *name)
{
	char path[4096];
	struct stat sb;
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	return stat(path, &sb) == 0;
}

static int cap_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pmu_cap *)a)->name,
		      ((const struct pmu_cap *)b)->name);
}

/* caps/ of the PMU at dir into p: 0 or -ENOMEM (no caps/ is none). */
static int read_caps(struct pmu *p, const char *dir)
{
	char cdir[4096];
	if (snprintf(cdir, sizeof(cdir), "%s/caps", dir) >= (int)sizeof(cdir))
		return 0;
	DIR *d = opendir(cdir);
	if (!d)
		return 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *v = read_line(cdir, de->d_name);
		if (!v)
			continue;
		struct pmu_cap *c = realloc(p->caps, (p->ncaps + 1) * sizeof(*c));
		char *name = strdup(de->d_name);
		if (!c || !name) {
			if (c)
				p->caps = c;
			free(name);
			free(v);
			rc = -ENOMEM;
			break;
		}
		p->caps = c;
		c[p->ncaps++] = (struct pmu_cap){ name, v };
	}
	closedir(d);
	if (p->ncaps > 1)
		qsort(p->caps, p->ncaps, sizeof(*p->caps), cap_cmp);
	return rc;
}

static void pmu_release(struct pmu *p)
{
	free(p->name);
	for (size_t i = 0; i < p->ncaps; i++) {
		free(p->caps[i].name);
		free(p->caps[i].value);
	}
	free(p->caps);
}

/*
 * One PMU directory into p: 1 when read, 0 when it is no PMU (no
 * readable type), -ENOMEM.
 */
static int read_pmu(struct pmu *p, const char *devices, const char *name)
{
	char dir[4096];
	memset(p, 0, sizeof(*p));
	if (snprintf(dir, sizeof(dir), "%s/%s", devices, name) >= (int)sizeof(dir))
		return 0;
	char *type = read_line(dir, "type");
	char *end = NULL;
	errno = 0;
	unsigned long t = type ? strtoul(type, &end, 10) : 0;
	bool ok = type && end != type && !*end && !errno && t <= UINT32_MAX &&
		  type[0] != '-';
	free(type);
	if (!ok)
		return 0;
	p->type = (uint32_t)t;
	p->name = strdup(name);
	if (!p->name)
		return -ENOMEM;
	/* A malformed CPU list leaves the PMU without one, not unread. */
	char *cpus = read_line(dir, "cpus");
	bool has_cpus_file = cpus != NULL;
	if (!cpus)
		cpus = read_line(dir, "cpumask");
	if (cpus && cpumask_parse(&p->cpus, cpus, NULL) == 0)
		p->has_cpus = true;
	free(cpus);
	bool cycles = exists(dir, "events/cpu_cycles") ||
		      exists(dir, "events/cpu-cycles") || exists(dir, "events/cycles");
	p->core = pmu_is_core(name, has_cpus_file, cycles);
	if (read_caps(p, dir)) {
		pmu_release(p);
		return -ENOMEM;
	}
	return 1;
}

static int pmu_cmp(const void *a, const void *b)
{
	const struct pmu *x = a, *y = b;
	if (x->core != y->core)
		return x->core ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int read_list(struct pmu_list *l, const char *root, char **cause)
{
	memset(l, 0, sizeof(*l));
	char devices[4096];
	if (!root || !*root)
		root = "/";
	size_t rl = strlen(root);
	if (snprintf(devices, sizeof(devices), "%s%s" DEVICES, root,
		     root[rl - 1] == '/' ? "" : "/") >= (int)sizeof(devices))
		return cause_set(cause, ENAMETOOLONG, "cannot read '%.200s': %s",
				 root, ERR_TEXT(ENAMETOOLONG));
	DIR *d = opendir(devices);
	if (!d) {
		int err = errno;
		return cause_set(cause, err, "cannot read '%.200s': %s", devices,
				 ERR_TEXT(err));
	}
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		struct pmu p;
		int got = read_pmu(&p, devices, de->d_name);
		if (got < 0) {
			rc = got;
			break;
		}
		if (!got)
			continue;
		struct pmu *v = realloc(l->pmus, (l->n + 1) * sizeof(*v));
		if (!v) {
			pmu_release(&p);
			rc = -ENOMEM;
			break;
		}
		l->pmus = v;
		l->pmus[l->n++] = p;
	}
	closedir(d);
	if (rc) {
		pmus_release(l);
		return cause_set(cause, -rc, "cannot read '%.200s': %s", devices,
				 ERR_TEXT(rc));
	}
	if (l->n > 1)
		qsort(l->pmus, l->n, sizeof(*l->pmus), pmu_cmp);
	for (size_t i = 0; i < l->n; i++)
		l->ncore += l->pmus[i].core;
	return 0;
}

/* A deep copy of src into dst: 0, or -ENOMEM with dst empty. Every
 * array is zeroed before it is filled, so pmus_release frees whatever a
 * failure leaves. */
static int copy_list(struct pmu_list *dst, const struct pmu_list *src)
{
	memset(dst, 0, sizeof(*dst));
	if (!src->n)
		return 0;
	dst->pmus = calloc(src->n, sizeof(*dst->pmus));
	if (!dst->pmus)
		return -ENOMEM;
	dst->n = src->n;
	dst->ncore = src->ncore;
	bool ok = true;
	for (size_t i = 0; ok && i < src->n; i++) {
		const struct pmu *s = &src->pmus[i];
		struct pmu *d = &dst->pmus[i];
		*d = *s;
		d->name = strdup(s->name);
		d->caps = s->ncaps ? calloc(s->ncaps, sizeof(*d->caps)) : NULL;
		d->ncaps = d->caps ? s->ncaps : 0;
		ok = d->name && d->ncaps == s->ncaps;
		for (size_t k = 0; ok && k < s->ncaps; k++) {
			d->caps[k].name = strdup(s->caps[k].name);
			d->caps[k].value = strdup(s->caps[k].value);
			ok = d->caps[k].name && d->caps[k].value;
		}
	}
	if (!ok) {
		pmus_release(dst);
		return -ENOMEM;
	}
	return 0;
}

int pmus_read(struct pmu_list *l, const char *root, char **cause)
{
	if (root && *root && strcmp(root, "/"))
		return read_list(l, root, cause);
	/* This machine's: read once a process (a run asked three times:
	 * the PMU plan, a refusal's hint, the environment), each caller
	 * given its own copy. A failed read is not kept. */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct pmu_list live;
	static bool have;
	pthread_mutex_lock(&lock);
	int rc = 0;
	if (!have) {
		rc = read_list(&live, "/", cause);
		have = rc == 0;
	}
	if (!rc) {
		rc = copy_list(l, &live);
		if (rc)
			rc = cause_set(cause, ENOMEM, "cannot read the PMUs: %s",
				       ERR_TEXT(ENOMEM));
	} else {
		memset(l, 0, sizeof(*l));
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

void pmus_release(struct pmu_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		pmu_release(&l->pmus[i]);
	free(l->pmus);
	memset(l, 0, sizeof(*l));
}

const struct pmu *pmus_find(const struct pmu_list *l, const char *name)
{
	for (size_t i = 0; l && name && i < l->n; i++)
		if (!strcmp(l->pmus[i].name, name))
			return &l->pmus[i];
	return NULL;
}

const char *pmu_cap(const struct pmu *p, const char *name)
{
	for (size_t i = 0; p && name && i < p->ncaps; i++)
		if (!strcmp(p->caps[i].name, name))
			return p->caps[i].value;
	return NULL;
}

/* Appends fmt's text to *s (its length *len); false when memory runs out. */
__attribute__((format(printf, 3, 4)))
static bool append(char **s, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *more = NULL;
	int n = vasprintf(&more, fmt, ap);
	va_end(ap);
	if (n < 0)
		return false;
	char *grown = realloc(*s, *len + (size_t)n + 1);
	if (!grown) {
		free(more);
		return false;
	}
	memcpy(grown + *len, more, (size_t)n + 1);
	*len += (size_t)n;
	*s = grown;
	free(more);
	return true;
}

char *pmus_describe(const struct pmu_list *l)
{
	char *s = NULL;
	size_t len = 0;
	bool ok = true;
	if (!l->ncore) {
		ok = append(&s, &len, "no core PMU in /" DEVICES);
		for (size_t i = 0; ok && i < l->n; i++)
			ok = append(&s, &len, "%s%s", i ? ", " : " (only ",
				    l->pmus[i].name);
		if (ok && l->n)
			ok = append(&s, &len, ")");
	}
	for (size_t i = 0; ok && i < l->ncore; i++) {
		const struct pmu *p = &l->pmus[i];
		char *cpus = p->has_cpus ? cpumask_format(&p->cpus) : NULL;
		if (p->has_cpus && !cpus) {
			ok = false;
			break;
		}
		ok = append(&s, &len, "%s%s (type %u, %s%s)", i ? ", " : "", p->name,
			    (unsigned)p->type, cpus ? "cpus " : "all cpus",
			    cpus ? cpus : "");
		free(cpus);
	}
	if (!ok) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

char *pmus_open_hint(const char *root)
{
	struct pmu_list l;
	/* An unreadable directory is as good as an empty one here. */
	pmus_read(&l, root, NULL);
	if (l.ncore) {
		pmus_release(&l);
		return NULL;
	}
	char *what = pmus_describe(&l);
	char *s = NULL;
	if (what && asprintf(&s, "hint: %s: this looks like a VM without counter "
			     "passthrough; software events still work", what) < 0)
		s = NULL;
	free(what);
	pmus_release(&l);
	return s;
}
