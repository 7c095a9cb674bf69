/*
 * topology: reads CPU and cache topology from a sysfs tree below a root
 * and de-duplicates the domains that sysfs repeats once per CPU. Pin modes
 * are resolved in topo_pin.c, CPU lists parsed in cpumask.c. See
 * topology.h for the rules and the ownership.
 */
#include "collectors/topology.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/topo_internal.h"
#include "common/errtext.h"

/* sysfs files here are short; a cpu list of 8192 scattered CPUs fits. */
#define MAX_FILE_BYTES (1 << 20)

/* ---- sizes and types ---- */

const char *cache_type_name(enum cache_type type)
{
	switch (type) {
	case CACHE_TYPE_DATA:
		return "Data";
	case CACHE_TYPE_INSTRUCTION:
		return "Instruction";
	case CACHE_TYPE_UNIFIED:
		return "Unified";
	default:
		return "Unknown";
	}
}

int cache_size_parse(const char *s, uint64_t *bytes, char **cause)
{
	char eb[TOPO_ECHO_MAX + 8];
	const char *p = s;
	uint64_t v = 0, unit = 1;
	bool big = false;

	if (*p < '0' || *p > '9') {
		topo_cause_give(cause, topo_msg("invalid size '%s': expected a number of bytes, or one with K, M or G",
					  topo_echo(s, eb, sizeof(eb))));
		return -EINVAL;
	}
	for (; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			big = true;
	switch (*p) {
	case 'K':
		unit = UINT64_C(1) << 10;
		p++;
		break;
	case 'M':
		unit = UINT64_C(1) << 20;
		p++;
		break;
	case 'G':
		unit = UINT64_C(1) << 30;
		p++;
		break;
	}
	if (*p == '\n')
		p++;
	if (*p != '\0') {
		topo_cause_give(cause, topo_msg("invalid size '%s': expected a number of bytes, or one with K, M or G",
					  topo_echo(s, eb, sizeof(eb))));
		return -EINVAL;
	}
	if (big || __builtin_mul_overflow(v, unit, &v)) {
		topo_cause_give(cause, topo_msg("invalid size '%s': too large", topo_echo(s, eb, sizeof(eb))));
		return -ERANGE;
	}
	*bytes = v;
	return 0;
}

int cache_size_format(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "GiB", "MiB", "KiB" };
	for (int i = 0; i < 3; i++) {
		uint64_t u = UINT64_C(1) << (10 * (3 - i));
		if (bytes && bytes % u == 0)
			return snprintf(buf, len, "%llu %s",
					(unsigned long long)(bytes / u), units[i]);
	}
	return snprintf(buf, len, "%llu B", (unsigned long long)bytes);
}

/* "L3", "L1d", "L1i": the short name lscpu and people use. */
void topo_level_name(int level, enum cache_type type, char *buf, size_t len)
{
	snprintf(buf, len, "L%d%s", level,
		 type == CACHE_TYPE_DATA ? "d" : type == CACHE_TYPE_INSTRUCTION ? "i" : "");
}

/* ---- reading files ---- */

/* read_text's code for a path that is no regular file. */
#define ENOTREG ESPIPE

/* Reads a whole small file into a malloc'd NUL-terminated *out. Returns 0
 * or a negative errno: -EFBIG when it is implausibly large, -EINVAL when
 * it holds a NUL byte, -ENOTREG when it is a FIFO, a device or a socket
 * (sysfs attributes are regular files; O_NONBLOCK keeps the open of a
 * FIFO from waiting for a writer that never comes). */
static int read_text(const char *path, char **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	size_t cap = 256, len = 0;
	char *buf = NULL;
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -ENOTREG;
		goto out_close;
	}
	buf = malloc(cap);
	if (!buf) {
		rc = -ENOMEM;
		goto out_close;
	}
	for (;;) {
		if (cap - len < 2) {
			if (cap >= MAX_FILE_BYTES) {
				rc = -EFBIG;
				goto out_free;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				rc = -ENOMEM;
				goto out_free;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {	/* a NUL inside is no sysfs text */
		rc = -EINVAL;
		goto out_free;
	}
	*out = buf;
	close(fd);
	return 0;

out_free:
	free(buf);
out_close:
	close(fd);
	return rc;
}

static char *read_error(const char *path, int rc)
{
	char eb[128];
	if (rc == -EINVAL)
		return topo_msg("cannot read '%s': it holds a NUL byte", path);
	if (rc == -ENOTREG)
		return topo_msg("cannot read '%s': not a regular file", path);
	return topo_msg("cannot read '%s': %s", path, err_text(-rc, eb, sizeof(eb)));
}

/* Where the tree lives: root without trailing slashes ("" for "/"). */
struct reader {
	char *prefix;
};

static char *path_new(const struct reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static char *path_new(const struct reader *r, const char *fmt, ...)
{
	va_list ap;
	char *tail, *s;
	va_start(ap, fmt);
	if (vasprintf(&tail, fmt, ap) < 0)
		tail = NULL;
	va_end(ap);
	if (!tail)
		return NULL;
	if (asprintf(&s, "%s/sys/devices/system/%s", r->prefix, tail) < 0)
		s = NULL;
	free(tail);
	return s;
}

/* Reads and parses a cpu list file. On failure *msg says why (or stays
 * NULL on allocation failure). */
static int read_cpulist(const char *path, struct cpumask *m, char **msg)
{
	char *text = NULL, *why = NULL;
	int rc = read_text(path, &text);
	if (rc < 0) {
		*msg = read_error(path, rc);
		return rc;
	}
	rc = cpumask_parse(m, text, &why);
	if (rc < 0)
		*msg = topo_msg("cannot use '%s': %s", path, why ? why : "out of memory");
	free(why);
	free(text);
	return rc;
}

/* Reads a decimal number file ("3\n"): 0, or -EINVAL. */
static int read_number(const char *path, long max, long *out, char **msg)
{
	char *text = NULL, eb[TOPO_ECHO_MAX + 8];
	int rc = read_text(path, &text);
	if (rc < 0) {
		*msg = read_error(path, rc);
		return rc;
	}
	const char *p = text;
	long v = 0;
	bool ok = *p >= '0' && *p <= '9';
	for (; ok && *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > max)
			ok = false;
	}
	if (*p == '\n')
		p++;
	if (!ok || *p != '\0') {
		*msg = topo_msg("cannot use '%s': expected a number from 0 to %ld, found '%s'",
			       path, max, topo_echo(text, eb, sizeof(eb)));
		free(text);
		return -EINVAL;
	}
	*out = v;
	free(text);
	return 0;
}

/* The numbers N of directory entries named <stem>N, sorted. */
static int list_numbered(const char *dir, const char *stem, long **out, size_t *n)
{
	DIR *d = opendir(dir);
	size_t stem_len = strlen(stem), cap = 0;
	long *v = NULL;
	struct dirent *e;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		const char *p = e->d_name;
		long num = 0;
		if (strncmp(p, stem, stem_len) != 0)
			continue;
		p += stem_len;
		if (*p < '0' || *p > '9')
			continue;
		for (; *p >= '0' && *p <= '9' && num < 1000000; p++)
			num = num * 10 + (*p - '0');
		if (*p)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			long *nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[(*n)++] = num;
	}
	closedir(d);
	for (size_t i = 1; i < *n; i++)	/* few entries: insertion sort */
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			long tmp = v[j];
			v[j] = v[j - 1];
			v[j - 1] = tmp;
		}
	*out = v;
	return 0;
}

/* ---- groups of CPUs (SMT siblings, clusters, packages) ---- */

struct mask_list {
	struct cpumask *v;
	size_t n, cap;
	struct cpumask covered;	/* union of v: finds overlaps in one pass */
};

static int mask_list_push(struct mask_list *l, const struct cpumask *m)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct cpumask *nv = realloc(l->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = *m;
	for (size_t w = 0; w < CPUMASK_MAX / 64; w++)
		l->covered.bits[w] |= m->bits[w];
	return 0;
}

static int cmp_mask_first(const void *a, const void *b)
{
	int fa = cpumask_first(a), fb = cpumask_first(b);
	return (fa > fb) - (fa < fb);
}

/*
 * Adds the group `m` that `cpu` reported, unless an equal one is there.
 * A group that does not hold its own CPU, or overlaps another without
 * being equal to it, is inconsistent: returns -EINVAL with *msg set.
 */
static int merge_group(struct mask_list *l, const struct cpumask *m, int cpu,
		       const char *path, char **msg)
{
	struct cpumask both;
	if (!cpumask_has(m, cpu)) {
		*msg = topo_msg("cannot use '%s': it does not list cpu %d itself", path, cpu);
		return -EINVAL;
	}
	cpumask_and(&both, m, &l->covered);
	int shared = cpumask_first(&both);
	if (shared < 0)
		return mask_list_push(l, m);
	/* groups are disjoint, so one holds `shared` */
	size_t i = 0;
	while (!cpumask_has(&l->v[i], shared))
		i++;
	if (cpumask_equal(&l->v[i], m))
		return 0;
	char *a = cpumask_format(m), *b = cpumask_format(&l->v[i]);
	*msg = topo_msg("cannot use '%s': it lists cpus %s, which overlap another cpu's %s",
		       path, a ? a : "?", b ? b : "?");
	free(a);
	free(b);
	return -EINVAL;
}

/*
 * Reads cpuN/topology/<name> (or <fallback>) for every online CPU into
 * distinct groups ordered by first CPU. Returns 0, -ENOENT with *absent
 * set when the first online CPU has neither file, or a negative errno with
 * *msg saying why.
 */
static int read_groups(const struct reader *r, const struct cpumask *online,
		       const char *name, const char *fallback,
		       struct cpumask **out, size_t *n, bool *absent, char **msg)
{
	struct mask_list l = { 0 };
	int rc = 0;

	*absent = false;
	for (int cpu = cpumask_first(online); cpu >= 0; cpu = cpumask_next(online, cpu)) {
		struct cpumask m;
		char *path = path_new(r, "cpu/cpu%d/topology/%s", cpu, name);
		if (!path) {
			rc = -ENOMEM;
			goto out_free;
		}
		if (fallback && access(path, F_OK) != 0 && errno == ENOENT) {
			char *alt = path_new(r, "cpu/cpu%d/topology/%s", cpu, fallback);
			if (!alt) {
				free(path);
				rc = -ENOMEM;
				goto out_free;
			}
			if (access(alt, F_OK) == 0) {
				free(path);
				path = alt;
			} else {
				free(alt);
			}
		}
		if (cpu == cpumask_first(online) && access(path, F_OK) != 0 && errno == ENOENT) {
			*absent = true;
			*msg = read_error(path, -ENOENT);
			free(path);
			rc = -ENOENT;
			goto out_free;
		}
		rc = read_cpulist(path, &m, msg);
		if (rc == 0)
			rc = merge_group(&l, &m, cpu, path, msg);
		free(path);
		if (rc < 0)
			goto out_free;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_mask_first);
	*out = l.v;
	*n = l.n;
	return 0;

out_free:
	free(l.v);
	*out = NULL;
	*n = 0;
	return rc;
}

/* ---- caches ---- */

struct cache_reading {
	struct cache_domain *v;
	size_t n, cap;
	int max_level;
	/* union of the domains of each level and type read so far */
	struct cpumask covered[TOPO_MAX_CACHE_LEVEL + 1][CACHE_TYPE_UNIFIED + 1];
};

static int cache_type_parse(const char *text, enum cache_type *type)
{
	static const struct {
		const char *name;
		enum cache_type type;
	} names[] = {
		{ "Data\n", CACHE_TYPE_DATA },
		{ "Instruction\n", CACHE_TYPE_INSTRUCTION },
		{ "Unified\n", CACHE_TYPE_UNIFIED },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len = strlen(names[i].name);
		/* with its newline, or without */
		if (strcmp(text, names[i].name) == 0 ||
		    (strncmp(text, names[i].name, len - 1) == 0 && text[len - 1] == '\0')) {
			*type = names[i].type;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * Reads one cpuN/cache/indexK entry into *d. Returns 0; -EINVAL with
 * *level_bad when the level itself is unreadable (every level is suspect);
 * another negative errno with *msg when the entry is malformed (d->level
 * is then valid and that level is suspect).
 */
static int read_cache_entry(const struct reader *r, int cpu, long idx,
			    struct cache_domain *d, bool *level_bad, char **msg)
{
	char *path = NULL, *text = NULL, *why = NULL, eb[TOPO_ECHO_MAX + 8];
	long v;
	int rc;

	*level_bad = false;
	memset(d, 0, sizeof(*d));
#define ENTRY_PATH(file)                                                         \
	do {                                                                     \
		free(path);                                                      \
		path = path_new(r, "cpu/cpu%d/cache/index%ld/%s", cpu, idx, file); \
		if (!path)                                                       \
			return -ENOMEM;                                          \
	} while (0)

	ENTRY_PATH("level");
	rc = read_number(path, TOPO_MAX_CACHE_LEVEL, &v, msg);
	if (rc == 0 && v < 1) {
		*msg = topo_msg("cannot use '%s': level 0 is no cache level", path);
		rc = -EINVAL;
	}
	if (rc < 0) {
		*level_bad = true;
		goto out;
	}
	d->level = (int)v;

	ENTRY_PATH("type");
	rc = read_text(path, &text);
	if (rc < 0) {
		*msg = read_error(path, rc);
		goto out;
	}
	rc = cache_type_parse(text, &d->type);
	if (rc < 0) {
		*msg = topo_msg("cannot use '%s': unknown cache type '%s'", path,
			       topo_echo(text, eb, sizeof(eb)));
		goto out;
	}
	free(text);
	text = NULL;

	ENTRY_PATH("size");
	rc = read_text(path, &text);
	if (rc < 0) {
		*msg = read_error(path, rc);
		goto out;
	}
	rc = cache_size_parse(text, &d->size_bytes, &why);
	if (rc < 0) {
		*msg = topo_msg("cannot use '%s': %s", path, why ? why : "out of memory");
		goto out;
	}
	if (d->size_bytes == 0) {
		*msg = topo_msg("cannot use '%s': the cache size is zero", path);
		rc = -EINVAL;
		goto out;
	}

	ENTRY_PATH("shared_cpu_list");
	rc = read_cpulist(path, &d->cpus, msg);
	if (rc < 0)
		goto out;
	if (!cpumask_has(&d->cpus, cpu)) {
		*msg = topo_msg("cannot use '%s': it does not list cpu %d itself", path, cpu);
		rc = -EINVAL;
		goto out;
	}

	ENTRY_PATH("id");
	d->id = -1;
	if (access(path, F_OK) == 0 || errno != ENOENT) {
		rc = read_number(path, 0x7fffffffL, &v, msg);
		if (rc < 0)
			goto out;
		d->id = v;
	}
	rc = 0;
out:
#undef ENTRY_PATH
	free(why);
	free(text);
	free(path);
	return rc;
}

/*
 * Adds an entry unless the same domain is there. An entry that overlaps a
 * domain of its level and type without matching it (other CPUs, another
 * size or id) makes the level inconsistent: -EINVAL with *clash set to
 * that domain.
 */
static int merge_cache(struct cache_reading *cr, const struct cache_domain *e,
		       const struct cache_domain **clash)
{
	struct cpumask *covered = &cr->covered[e->level][e->type], both;
	cpumask_and(&both, &e->cpus, covered);
	int shared = cpumask_first(&both);
	if (shared >= 0) {
		/* the domains of one level and type are disjoint, so exactly
		 * one holds `shared` */
		for (size_t i = 0; i < cr->n; i++) {
			const struct cache_domain *d = &cr->v[i];
			if (d->level != e->level || d->type != e->type ||
			    !cpumask_has(&d->cpus, shared))
				continue;
			if (cpumask_equal(&d->cpus, &e->cpus) &&
			    d->size_bytes == e->size_bytes && d->id == e->id)
				return 0;
			*clash = d;
			return -EINVAL;
		}
	}
	if (cr->n == cr->cap) {
		size_t cap = cr->cap ? cr->cap * 2 : 16;
		struct cache_domain *nv = realloc(cr->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		cr->v = nv;
		cr->cap = cap;
	}
	cr->v[cr->n++] = *e;
	for (size_t w = 0; w < CPUMASK_MAX / 64; w++)
		covered->bits[w] |= e->cpus.bits[w];
	return 0;
}

/* Explains why entry e (cpuN/cache/indexK) clashes with domain d. */
static char *clash_message(const struct reader *r, const struct cache_domain *d,
			   const struct cache_domain *e, int cpu, long idx)
{
	char ln[16], sa[32], sb[32], *m;
	char *path = path_new(r, "cpu/cpu%d/cache/index%ld", cpu, idx);
	char *a = cpumask_format(&e->cpus), *b = cpumask_format(&d->cpus);

	topo_level_name(e->level, e->type, ln, sizeof(ln));
	if (!path || !a || !b)
		m = NULL;
	else if (!cpumask_equal(&d->cpus, &e->cpus))
		m = topo_msg("'%s' (%s) lists cpus %s, which overlap another %s's cpus %s",
			    path, ln, a, ln, b);
	else if (d->size_bytes != e->size_bytes) {
		cache_size_format(e->size_bytes, sa, sizeof(sa));
		cache_size_format(d->size_bytes, sb, sizeof(sb));
		m = topo_msg("'%s' (%s) gives cpus %s a size of %s, another cpu's entry %s",
			    path, ln, a, sa, sb);
	} else {
		m = topo_msg("'%s' (%s) gives cpus %s the id %ld, another cpu's entry %ld",
			    path, ln, a, e->id, d->id);
	}
	free(path);
	free(a);
	free(b);
	return m;
}

static int cmp_domain(const void *pa, const void *pb)
{
	const struct cache_domain *a = pa, *b = pb;
	if (a->level != b->level)
		return a->level < b->level ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	return cmp_mask_first(&a->cpus, &b->cpus);
}

/*
 * Reads every online CPU's cache entries into t->caches. Returns 0 or
 * -ENOMEM; malformed input lands in t->level_cause / t->cache_cause.
 */
static int read_caches(const struct reader *r, struct topo *t)
{
	struct cache_reading *cr = calloc(1, sizeof(*cr));
	int rc = 0;

	if (!cr)	/* 32 KiB of masks: not for the stack */
		return -ENOMEM;

	for (int cpu = cpumask_first(&t->online); cpu >= 0;
	     cpu = cpumask_next(&t->online, cpu)) {
		long *idx = NULL;
		size_t n_idx = 0;
		char *dir = path_new(r, "cpu/cpu%d/cache", cpu);
		if (!dir) {
			rc = -ENOMEM;
			goto out_free;
		}
		rc = list_numbered(dir, "index", &idx, &n_idx);
		if (rc == -ENOENT) {	/* this CPU reports no caches */
			free(dir);
			rc = 0;
			continue;
		}
		if (rc < 0) {	/* unreadable: no level can be trusted */
			if (rc != -ENOMEM) {
				t->cache_cause = read_error(dir, rc);
				rc = t->cache_cause ? 0 : -ENOMEM;
			}
			free(dir);
			goto out_free;
		}
		free(dir);
		for (size_t k = 0; k < n_idx; k++) {
			struct cache_domain e;
			bool level_bad;
			char *msg = NULL;
			rc = read_cache_entry(r, cpu, idx[k], &e, &level_bad, &msg);
			if (rc == -ENOMEM) {
				free(msg);
				free(idx);
				goto out_free;
			}
			if (level_bad) {
				t->cache_cause = msg;
				free(idx);
				rc = 0;
				goto out_free;
			}
			if (e.level > cr->max_level)
				cr->max_level = e.level;
			if (t->level_cause[e.level]) {	/* already left out */
				free(msg);
				continue;
			}
			if (rc == 0) {
				const struct cache_domain *clash = NULL;
				rc = merge_cache(cr, &e, &clash);
				if (rc == -ENOMEM) {
					free(idx);
					goto out_free;
				}
				if (rc < 0)
					msg = clash_message(r, clash, &e, cpu, idx[k]);
			}
			if (rc < 0) {
				t->level_cause[e.level] = msg ? msg : topo_msg("out of memory");
				rc = 0;
			}
		}
		free(idx);
	}

	/* Keep only the intact levels, in level, type, first-CPU order. */
	size_t kept = 0;
	for (size_t i = 0; i < cr->n; i++)
		if (!t->level_cause[cr->v[i].level])
			cr->v[kept++] = cr->v[i];
	cr->n = kept;
	if (cr->n)
		qsort(cr->v, cr->n, sizeof(*cr->v), cmp_domain);
	for (size_t i = 0; i < cr->n; i++) {
		bool same = i > 0 && cr->v[i - 1].level == cr->v[i].level &&
			    cr->v[i - 1].type == cr->v[i].type;
		cr->v[i].index = same ? cr->v[i - 1].index + 1 : 0;
	}
	t->caches = cr->v;
	t->n_caches = cr->n;
	t->llc_level = cr->max_level;
	free(cr);
	return 0;

out_free:
	free(cr->v);
	free(cr);
	for (int l = 0; l <= TOPO_MAX_CACHE_LEVEL; l++) {
		free(t->level_cause[l]);
		t->level_cause[l] = NULL;
	}
	return rc;
}

const struct cache_domain *topo_domains(const struct topo *t, int level,
					enum cache_type type, size_t *n)
{
	const struct cache_domain *first = NULL;
	*n = 0;
	for (size_t i = 0; i < t->n_caches; i++) {
		if (t->caches[i].level != level || t->caches[i].type != type)
			continue;
		if (!first)
			first = &t->caches[i];
		(*n)++;
	}
	return first;
}

/* The L2 domains pins and clusters use: Unified, else Data. */
const struct cache_domain *topo_l2_domains(const struct topo *t, size_t *n)
{
	const struct cache_domain *d = topo_domains(t, 2, CACHE_TYPE_UNIFIED, n);
	if (!*n)
		d = topo_domains(t, 2, CACHE_TYPE_DATA, n);
	return d;
}

/* Fills the llc fields from the caches read. Returns 0 or -ENOMEM. */
static int find_llc(const struct reader *r, struct topo *t)
{
	char ln[16], sz[32];

	if (t->cache_cause) {
		t->llc_level = 0;
		t->llc_cause = topo_msg("the caches are unusable: %s", t->cache_cause);
		t->largest_llc_reason = t->llc_cause ? strdup(t->llc_cause) : NULL;
		goto out;
	}
	if (t->llc_level == 0) {
		int cpu = cpumask_first(&t->online);
		char *dir = path_new(r, "cpu/cpu%d/cache", cpu);
		t->largest_llc_reason = topo_msg("the machine reports no caches (no '%s')",
						dir ? dir : "cache");
		free(dir);
		goto out;
	}
	topo_level_name(t->llc_level, CACHE_TYPE_UNIFIED, ln, sizeof(ln));
	if (t->level_cause[t->llc_level]) {
		t->llc_cause = topo_msg("the last-level cache (%s) is unusable: %s", ln,
				       t->level_cause[t->llc_level]);
		t->largest_llc_reason = t->llc_cause ? strdup(t->llc_cause) : NULL;
		goto out;
	}
	t->llc = topo_domains(t, t->llc_level, CACHE_TYPE_UNIFIED, &t->n_llc);
	if (!t->n_llc)
		t->llc = topo_domains(t, t->llc_level, CACHE_TYPE_DATA, &t->n_llc);
	if (!t->n_llc) {
		t->largest_llc_reason = topo_msg("the last cache level (%s) holds only instruction caches", ln);
		goto out;
	}
	topo_level_name(t->llc_level, t->llc->type, ln, sizeof(ln));
	for (size_t i = 0; i < t->n_llc; i++) {
		const struct cache_domain *d = &t->llc[i];
		struct cpumask on;
		if (d->size_bytes != t->llc[0].size_bytes)
			t->llc_asymmetric = true;
		cpumask_and(&on, &d->cpus, &t->online);
		if (cpumask_count(&on) < 2)
			continue;
		if (!t->largest_llc || d->size_bytes > t->largest_llc->size_bytes)
			t->largest_llc = d;
	}
	if (!t->largest_llc) {
		cache_size_format(t->llc[0].size_bytes, sz, sizeof(sz));
		if (t->llc_level < 3)
			t->largest_llc_reason = topo_msg(
				"no last-level cache is shared by more than one online cpu: "
				"the machine reports no level-3 cache, and each of its %zu %s caches (%s) serves one cpu",
				t->n_llc, ln, sz);
		else
			t->largest_llc_reason = topo_msg(
				"no last-level cache is shared by more than one online cpu: "
				"each of its %zu %s caches (%s) serves one cpu",
				t->n_llc, ln, sz);
	}
out:
	/* every way out names the largest domain or says why there is none */
	return t->largest_llc || t->largest_llc_reason ? 0 : -ENOMEM;
}

/* ---- nodes ---- */

static int read_nodes(const struct reader *r, struct topo *t)
{
	long *nums = NULL;
	size_t n = 0;
	char *dir = path_new(r, "node");
	int rc;

	if (!dir)
		return -ENOMEM;
	rc = list_numbered(dir, "node", &nums, &n);
	if (rc == -ENOENT) {	/* a kernel without NUMA support */
		free(dir);
		return 0;
	}
	if (rc < 0) {
		if (rc != -ENOMEM)
			t->node_cause = read_error(dir, rc);
		free(dir);
		return rc == -ENOMEM ? rc : 0;
	}
	free(dir);
	if (!n)
		return 0;
	t->nodes = calloc(n, sizeof(*t->nodes));
	if (!t->nodes) {
		free(nums);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		char *path = path_new(r, "node/node%ld/cpulist", nums[i]);
		char *msg = NULL;
		if (!path) {
			rc = -ENOMEM;
			goto out_drop;
		}
		t->nodes[i].node = (int)nums[i];
		rc = read_cpulist(path, &t->nodes[i].cpus, &msg);
		for (size_t j = 0; rc == 0 && j < i; j++)
			if (cpumask_intersects(&t->nodes[j].cpus, &t->nodes[i].cpus)) {
				msg = topo_msg("cannot use '%s': it shares cpus with node%d", path,
					      t->nodes[j].node);
				rc = -EINVAL;
			}
		free(path);
		if (rc < 0) {
			t->node_cause = msg;
			if (!msg)
				rc = -ENOMEM;
			goto out_drop;
		}
	}
	t->n_nodes = n;
	free(nums);
	return 0;

out_drop:
	free(nums);
	free(t->nodes);
	t->nodes = NULL;
	return rc == -ENOMEM ? rc : 0;
}

/* ---- the whole topology ---- */

void topo_release(struct topo *t)
{
	if (!t)
		return;
	free(t->root);
	free(t->caches);
	for (int l = 0; l <= TOPO_MAX_CACHE_LEVEL; l++)
		free(t->level_cause[l]);
	free(t->cache_cause);
	free(t->llc_cause);
	free(t->largest_llc_reason);
	free(t->smt);
	free(t->smt_cause);
	free(t->clusters);
	free(t->cluster_cause);
	free(t->packages);
	free(t->package_cause);
	free(t->nodes);
	free(t->node_cause);
	memset(t, 0, sizeof(*t));
}

/* Reads one kind of CPU group; malformed input only sets *cause. */
static int read_group_part(const struct reader *r, struct topo *t, const char *name,
			   const char *fallback, struct cpumask **out, size_t *n,
			   bool *absent, char **cause)
{
	char *msg = NULL;
	int rc = read_groups(r, &t->online, name, fallback, out, n, absent, &msg);
	if (rc == -ENOMEM || (rc < 0 && !msg)) {
		free(msg);
		return -ENOMEM;
	}
	*cause = msg;
	return 0;
}

/* Without cluster_cpus_list, the CPUs sharing an L2 are the L2 domains.
 * Returns 0 or -ENOMEM. */
static int clusters_from_l2(struct topo *t)
{
	size_t n;
	const struct cache_domain *d = topo_l2_domains(t, &n);

	free(t->cluster_cause);
	t->cluster_cause = NULL;
	if (t->level_cause[2] || t->cache_cause) {
		t->cluster_cause = topo_msg("no cluster_cpus_list, and the L2 is unusable: %s",
					   t->cache_cause ? t->cache_cause : t->level_cause[2]);
		return t->cluster_cause ? 0 : -ENOMEM;
	}
	if (!n) {
		t->cluster_cause = topo_msg("no cluster_cpus_list, and no L2 cache");
		return t->cluster_cause ? 0 : -ENOMEM;
	}
	t->clusters = malloc(n * sizeof(*t->clusters));
	if (!t->clusters)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		t->clusters[i] = d[i].cpus;
	t->n_clusters = n;
	t->cluster_source = TOPO_CLUSTER_L2;
	return 0;
}

int topo_read(struct topo *t, const char *root, char **cause)
{
	struct reader r = { 0 };
	char *path = NULL, *msg = NULL;
	bool absent;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!root)
		root = "/";
	t->root = strdup(root);
	r.prefix = strdup(root);
	if (!t->root || !r.prefix) {
		rc = -ENOMEM;
		goto out_fail;
	}
	for (size_t len = strlen(r.prefix); len > 0 && r.prefix[len - 1] == '/'; len--)
		r.prefix[len - 1] = '\0';

	path = path_new(&r, "cpu/online");
	if (!path) {
		rc = -ENOMEM;
		goto out_fail;
	}
	rc = read_cpulist(path, &t->online, &msg);
	if (rc == 0 && cpumask_empty(&t->online)) {
		msg = topo_msg("cannot use '%s': it lists no cpu", path);
		rc = -EINVAL;
	}
	if (rc < 0) {
		if (rc == -ERANGE || rc == -EFBIG || rc == -ENOTREG)
			rc = -EINVAL;
		if (!msg)
			rc = -ENOMEM;
		topo_cause_give(cause, msg);
		msg = NULL;
		goto out_fail;
	}

	rc = read_caches(&r, t);
	if (rc == 0)
		rc = find_llc(&r, t);
	if (rc == 0)
		rc = read_group_part(&r, t, "core_cpus_list", "thread_siblings_list",
				     &t->smt, &t->n_smt, &absent, &t->smt_cause);
	if (rc == 0)
		rc = read_group_part(&r, t, "package_cpus_list", "core_siblings_list",
				     &t->packages, &t->n_packages, &absent, &t->package_cause);
	if (rc == 0)
		rc = read_group_part(&r, t, "cluster_cpus_list", NULL, &t->clusters,
				     &t->n_clusters, &absent, &t->cluster_cause);
	if (rc == 0 && !t->cluster_cause)
		t->cluster_source = TOPO_CLUSTER_SYSFS;
	else if (rc == 0 && absent)
		rc = clusters_from_l2(t);
	if (rc == 0)
		rc = read_nodes(&r, t);
	if (rc < 0) {
		topo_cause_give(cause, topo_msg("out of memory reading the cpu topology"));
		goto out_fail;
	}
	free(path);
	free(r.prefix);
	return 0;

out_fail:
	free(path);
	free(r.prefix);
	topo_release(t);
	return rc;
}

int topo_read_live(struct topo *t, char **cause)
{
	return topo_read(t, "/", cause);
}
