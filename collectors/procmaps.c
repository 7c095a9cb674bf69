/*
 * procmaps: per-process address spaces rebuilt from MMAP2, FORK and COMM
 * records. See procmaps.h for the rules.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "collectors/procmaps.h"
#include "common/errtext.h"

struct space {
	uint32_t pid;
	struct map_entry *v;
	size_t n, cap;
};

struct proc_maps {
	/* interned paths: open addressing, NULL marks an empty slot */
	char **strs;
	size_t scap, sused;
	/* spaces by generation - 1 */
	struct space *spaces;
	size_t nspaces, spcap;
	/* pid -> current generation: open addressing on pid + 1 */
	uint32_t *pkeys;
	uint32_t *pgens;
	size_t pcap, pused;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

struct proc_maps *proc_maps_new(void)
{
	struct proc_maps *pm = calloc(1, sizeof(*pm));
	if (!pm)
		return NULL;
	pm->scap = 64;
	pm->pcap = 64;
	pm->strs = calloc(pm->scap, sizeof(char *));
	pm->pkeys = calloc(pm->pcap, sizeof(uint32_t));
	pm->pgens = calloc(pm->pcap, sizeof(uint32_t));
	if (!pm->strs || !pm->pkeys || !pm->pgens) {
		proc_maps_free(pm);
		errno = ENOMEM;
		return NULL;
	}
	return pm;
}

void proc_maps_free(struct proc_maps *pm)
{
	if (!pm)
		return;
	for (size_t i = 0; pm->strs && i < pm->scap; i++)
		free(pm->strs[i]);
	free(pm->strs);
	for (size_t i = 0; i < pm->nspaces; i++)
		free(pm->spaces[i].v);
	free(pm->spaces);
	free(pm->pkeys);
	free(pm->pgens);
	free(pm);
}

static size_t str_slot(char **strs, size_t cap, const char *s, uint64_t h)
{
	size_t i = (size_t)h & (cap - 1);
	while (strs[i] && strcmp(strs[i], s))
		i = (i + 1) & (cap - 1);
	return i;
}

const char *proc_maps_intern(struct proc_maps *pm, const char *path)
{
	uint64_t h = hash_str(path);
	size_t i = str_slot(pm->strs, pm->scap, path, h);
	if (pm->strs[i])
		return pm->strs[i];
	if ((pm->sused + 1) * 2 > pm->scap) {
		size_t ncap = pm->scap * 2;
		char **ns = calloc(ncap, sizeof(char *));
		if (!ns)
			return NULL;
		for (size_t k = 0; k < pm->scap; k++) {
			if (!pm->strs[k])
				continue;
			ns[str_slot(ns, ncap, pm->strs[k], hash_str(pm->strs[k]))] = pm->strs[k];
		}
		free(pm->strs);
		pm->strs = ns;
		pm->scap = ncap;
		i = str_slot(pm->strs, pm->scap, path, h);
	}
	char *copy = strdup(path);
	if (!copy)
		return NULL;
	pm->strs[i] = copy;
	pm->sused++;
	return copy;
}

enum map_kind map_kind_of(const char *path)
{
	if (!path || !*path || !strcmp(path, "//anon") ||
	    !strncmp(path, "[anon:", 6) || !strncmp(path, "[anon_shmem:", 12) ||
	    !strncmp(path, "/memfd:", 7) || !strncmp(path, "/dev/zero", 9) ||
	    !strncmp(path, "/SYSV", 5) || !strncmp(path, "/anon_hugepage", 14))
		return MAP_KIND_ANON;
	if (!strcmp(path, "[heap]"))
		return MAP_KIND_HEAP;
	if (!strcmp(path, "[stack]") || !strncmp(path, "[stack:", 7))
		return MAP_KIND_STACK;
	if (path[0] == '[')
		return MAP_KIND_SPECIAL;
	return MAP_KIND_FILE;
}

/* ---- pid -> generation ---- */

static size_t pid_slot(const uint32_t *keys, size_t cap, uint32_t pid)
{
	size_t i = (size_t)((pid * 2654435761u) & (cap - 1));
	while (keys[i] && keys[i] != pid + 1)
		i = (i + 1) & (cap - 1);
	return i;
}

uint32_t proc_maps_space(const struct proc_maps *pm, uint32_t pid)
{
	size_t i = pid_slot(pm->pkeys, pm->pcap, pid);
	return pm->pkeys[i] ? pm->pgens[i] : 0;
}

static int set_pid_space(struct proc_maps *pm, uint32_t pid, uint32_t gen)
{
	if ((pm->pused + 1) * 2 > pm->pcap) {
		size_t ncap = pm->pcap * 2;
		uint32_t *nk = calloc(ncap, sizeof(uint32_t));
		uint32_t *ng = calloc(ncap, sizeof(uint32_t));
		if (!nk || !ng) {
			free(nk);
			free(ng);
			return -ENOMEM;
		}
		for (size_t k = 0; k < pm->pcap; k++) {
			if (!pm->pkeys[k])
				continue;
			size_t s = pid_slot(nk, ncap, pm->pkeys[k] - 1);
			nk[s] = pm->pkeys[k];
			ng[s] = pm->pgens[k];
		}
		free(pm->pkeys);
		free(pm->pgens);
		pm->pkeys = nk;
		pm->pgens = ng;
		pm->pcap = ncap;
	}
	size_t i = pid_slot(pm->pkeys, pm->pcap, pid);
	if (!pm->pkeys[i]) {
		pm->pkeys[i] = pid + 1;
		pm->pused++;
	}
	pm->pgens[i] = gen;
	return 0;
}

/* ---- spaces ---- */

static struct space *space_of(const struct proc_maps *pm, uint32_t pid)
{
	uint32_t g = proc_maps_space(pm, pid);
	return g ? &pm->spaces[g - 1] : NULL;
}

/* A new empty space for pid (its old one, if any, is dropped). */
static struct space *new_space(struct proc_maps *pm, uint32_t pid)
{
	if (pm->nspaces == pm->spcap) {
		size_t ncap = pm->spcap ? pm->spcap * 2 : 16;
		struct space *p = realloc(pm->spaces, ncap * sizeof(*p));
		if (!p)
			return NULL;
		pm->spaces = p;
		pm->spcap = ncap;
	}
	if (pm->nspaces >= UINT32_MAX - 1)
		return NULL;
	struct space *old = space_of(pm, pid);
	uint32_t gen = (uint32_t)pm->nspaces + 1;
	if (set_pid_space(pm, pid, gen))
		return NULL;
	if (old) {
		/* Unreachable from now on: its entries go, its number stays. */
		free(old->v);
		old->v = NULL;
		old->n = old->cap = 0;
	}
	struct space *s = &pm->spaces[pm->nspaces++];
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	return s;
}

static int reserve(struct space *s, size_t extra)
{
	if (s->n + extra <= s->cap)
		return 0;
	size_t ncap = s->cap ? s->cap * 2 : 32;
	while (ncap < s->n + extra)
		ncap *= 2;
	struct map_entry *p = realloc(s->v, ncap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->v = p;
	s->cap = ncap;
	return 0;
}

/* Index of the first entry whose end is above addr. */
static size_t first_ending_after(const struct space *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].start + s->v[mid].len <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int space_insert(struct space *s, const struct map_entry *e)
{
	uint64_t a = e->start, b = e->start + e->len;
	if (e->len == 0 || b < a)
		return 0;	/* empty or wrapping: nothing to map */
	if (reserve(s, 2))
		return -ENOMEM;
	size_t lo = first_ending_after(s, a);
	size_t hi = lo;
	while (hi < s->n && s->v[hi].start < b)
		hi++;
	/* [lo, hi) overlap [a, b): keep what sticks out on either side. */
	struct map_entry left, right;
	bool has_left = false, has_right = false;
	if (lo < hi && s->v[lo].start < a) {
		left = s->v[lo];
		left.len = a - left.start;
		has_left = true;
	}
	if (lo < hi) {
		const struct map_entry *last = &s->v[hi - 1];
		uint64_t end = last->start + last->len;
		if (end > b) {
			right = *last;
			right.pgoff += b - last->start;
			right.start = b;
			right.len = end - b;
			has_right = true;
		}
	}
	size_t nnew = 1 + has_left + has_right;
	size_t removed = hi - lo;
	memmove(&s->v[lo + nnew], &s->v[hi], (s->n - hi) * sizeof(*s->v));
	s->n = s->n - removed + nnew;
	size_t k = lo;
	if (has_left)
		s->v[k++] = left;
	s->v[k++] = *e;
	if (has_right)
		s->v[k] = right;
	return 0;
}

int proc_maps_insert(struct proc_maps *pm, uint32_t pid, const struct map_entry *e)
{
	struct space *s = space_of(pm, pid);
	if (!s && !(s = new_space(pm, pid)))
		return -ENOMEM;
	struct map_entry m = *e;
	m.path = proc_maps_intern(pm, e->path ? e->path : "//anon");
	if (!m.path)
		return -ENOMEM;
	m.kind = map_kind_of(m.path);
	m.space = proc_maps_space(pm, pid);
	return space_insert(s, &m);
}

int proc_maps_fork(struct proc_maps *pm, uint32_t pid, uint32_t ppid)
{
	uint32_t pg = proc_maps_space(pm, ppid);
	struct space *c = new_space(pm, pid);
	if (!c)
		return -ENOMEM;
	/* new_space may have moved the array: find the parent again. */
	if (pg) {
		const struct space *p = &pm->spaces[pg - 1];
		if (p->n) {
			c->v = malloc(p->n * sizeof(*c->v));
			if (!c->v)
				return -ENOMEM;
			memcpy(c->v, p->v, p->n * sizeof(*c->v));
			c->n = c->cap = p->n;
			uint32_t gen = proc_maps_space(pm, pid);
			for (size_t i = 0; i < c->n; i++)
				c->v[i].space = gen;
		}
	}
	return 0;
}

int proc_maps_exec(struct proc_maps *pm, uint32_t pid)
{
	return new_space(pm, pid) ? 0 : -ENOMEM;
}

int proc_maps_feed(struct proc_maps *pm, const struct perf_rec *rec)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct map_entry e = {
			.start = rec->u.mmap.addr,
			.len = rec->u.mmap.len,
			.pgoff = rec->u.mmap.pgoff,
			.prot = rec->u.mmap.prot,
			.flags = rec->u.mmap.flags,
			.path = rec->u.mmap.filename,
		};
		/* MMAP (without 2) has no prot: only its data bit. */
		if (rec->type == PERF_RECORD_MMAP)
			e.prot = (rec->misc & PERF_RECORD_MISC_MMAP_DATA)
				 ? PROT_READ : PROT_READ | PROT_EXEC;
		return proc_maps_insert(pm, rec->u.mmap.pid, &e);
	}
	case PERF_RECORD_FORK:
		if (rec->u.task.pid != rec->u.task.ppid)
			return proc_maps_fork(pm, rec->u.task.pid, rec->u.task.ppid);
		return 0;
	case PERF_RECORD_COMM:
		if (rec->misc & PERF_RECORD_MISC_COMM_EXEC)
			return proc_maps_exec(pm, rec->u.comm.pid);
		return 0;
	default:
		return 0;
	}
}

const struct map_entry *proc_maps_lookup(const struct proc_maps *pm, uint32_t pid,
					 uint64_t addr, uint64_t *offset)
{
	const struct space *s = space_of(pm, pid);
	if (!s)
		return NULL;
	size_t i = first_ending_after(s, addr);
	if (i == s->n || s->v[i].start > addr)
		return NULL;
	const struct map_entry *e = &s->v[i];
	if (offset)
		*offset = e->kind == MAP_KIND_FILE ? addr - e->start + e->pgoff
						   : addr - e->start;
	return e;
}

size_t proc_maps_entries(const struct proc_maps *pm, uint32_t pid,
			 const struct map_entry **out)
{
	const struct space *s = space_of(pm, pid);
	*out = s ? s->v : NULL;
	return s ? s->n : 0;
}

uint32_t proc_maps_nspaces(const struct proc_maps *pm)
{
	return (uint32_t)pm->nspaces;
}

uint32_t proc_maps_space_pid(const struct proc_maps *pm, uint32_t gen)
{
	return gen && gen <= pm->nspaces ? pm->spaces[gen - 1].pid : 0;
}

/* One line of /proc/PID/maps: "start-end perms offset dev inode   path". */
static bool parse_maps_line(char *line, struct map_entry *e, const char **path)
{
	uint64_t start, end, off;
	char perms[8];
	int n = 0;
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s%n",
		   &start, &end, perms, &off, &n) != 4 || n == 0 || end < start ||
	    strlen(perms) != 4)	/* "r-xp": anything else is not a maps line */
		return false;
	char *p = line + n;
	while (*p == ' ' || *p == '\t')
		p++;
	p[strcspn(p, "\n")] = '\0';
	memset(e, 0, sizeof(*e));
	e->start = start;
	e->len = end - start;
	e->pgoff = off;
	e->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	e->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	*path = *p ? p : "//anon";
	return true;
}

int proc_maps_load_file(struct proc_maps *pm, uint32_t pid, FILE *fp,
			const char *name, bool exec_only, char **cause)
{
	int rc = 0;
	if (!space_of(pm, pid) && !new_space(pm, pid))
		rc = -ENOMEM;
	char *line = NULL;
	size_t cap = 0;
	while (!rc && getline(&line, &cap, fp) > 0) {
		struct map_entry e;
		const char *p;
		if (!parse_maps_line(line, &e, &p))
			continue;
		if (exec_only && !(e.prot & PROT_EXEC))
			continue;
		e.path = p;
		rc = proc_maps_insert(pm, pid, &e);
	}
	free(line);
	if (rc && cause && asprintf(cause, "cannot read '%.256s': out of memory",
				    name) < 0)
		*cause = NULL;
	return rc;
}

int proc_maps_load_proc(struct proc_maps *pm, uint32_t pid, const char *proc_root,
			bool exec_only, char **cause)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%u/maps", proc_root ? proc_root : "/proc", pid);
	FILE *fp = fopen(path, "re");
	if (!fp) {
		int err = errno;
		if (cause && asprintf(cause, "cannot read '%s': %s", path, ERR_TEXT(err)) < 0)
			*cause = NULL;
		return -err;
	}
	int rc = proc_maps_load_file(pm, pid, fp, path, exec_only, cause);
	fclose(fp);
	return rc;
}
