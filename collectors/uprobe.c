/*
 * uprobe: a function entry as a perf event; see uprobe.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collectors/elf.h"
#include "collectors/events.h"
#include "collectors/uprobe.h"
#include "common/cause.h"
#include "common/errtext.h"

int uprobe_pmu_type(const char *sysfs_root, char **cause)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/uprobe/type",
		 sysfs_root ? sysfs_root : "/sys");
	FILE *fp = fopen(path, "re");
	if (!fp) {
		int err = errno;
		return cause_set(cause, err, "no uprobe PMU: cannot read '%s': %s",
				 path, ERR_TEXT(err));
	}
	int type = -1;
	int n = fscanf(fp, "%d", &type);
	fclose(fp);
	if (n != 1 || type <= 0)
		return cause_set(cause, EINVAL, "no uprobe PMU: '%s' holds no type",
				 path);
	return type;
}

#define NCLOSE 3

/* Keep the NCLOSE names closest to want, nearest first. */
static void keep_close(const char *want, const char *name, const char **best,
		       int *dist, size_t *n)
{
	int d = event_edit_distance(want, name);
	size_t pos = *n;
	while (pos > 0 && dist[pos - 1] > d)
		pos--;
	if (pos >= NCLOSE)
		return;
	if (*n < NCLOSE)
		(*n)++;
	memmove(&best[pos + 1], &best[pos], (*n - 1 - pos) * sizeof(*best));
	memmove(&dist[pos + 1], &dist[pos], (*n - 1 - pos) * sizeof(*dist));
	best[pos] = name;
	dist[pos] = d;
}

static int not_found(const struct elf_symtab *st, const char *path,
		     const char *sym, char **cause)
{
	const char *best[NCLOSE];
	int dist[NCLOSE];
	size_t n = 0;
	for (size_t i = 0; i < elf_symtab_count(st); i++)
		keep_close(sym, elf_symtab_at(st, i)->name, best, dist, &n);
	if (!cause)
		return -ENOENT;
	char hint[512] = "";
	size_t len = 0;
	for (size_t i = 0; i < n && len < sizeof(hint); i++)
		len += (size_t)snprintf(hint + len, sizeof(hint) - len, "%s%s",
					i ? ", " : "", best[i]);
	int rc;
	if (n)
		rc = asprintf(cause, "no function '%s' in '%s'\nhint: the closest "
			      "names there: %s", sym, path, hint);
	else
		rc = asprintf(cause, "no function '%s' in '%s'\nhint: it has no "
			      "function symbols (stripped?)", sym, path);
	if (rc < 0)
		*cause = NULL;
	return -ENOENT;
}

int uprobe_symbol_offset(const char *path, const char *sym, uint64_t *offset,
			 char **cause)
{
	struct elf_file *ef = NULL;
	int rc = elf_file_open(path, &ef, cause);
	if (rc)
		return rc;
	struct elf_symtab *st = NULL;
	rc = elf_symtab_load(ef, &st, cause);
	if (rc)
		goto out_close;
	const struct elf_sym *hit = NULL;
	for (size_t i = 0; i < elf_symtab_count(st) && !hit; i++)
		if (!strcmp(elf_symtab_at(st, i)->name, sym))
			hit = elf_symtab_at(st, i);
	if (!hit) {
		rc = not_found(st, path, sym, cause);
		goto out_free;
	}
	if (elf_file_vaddr_to_offset(ef, hit->addr, offset)) {
		rc = cause_set(cause, EINVAL, "function '%s' in '%s' is not in a "
			       "loadable segment", sym, path);
		goto out_free;
	}
out_free:
	elf_symtab_free(st);
out_close:
	elf_file_close(ef);
	return rc;
}

void uprobe_attr(struct perf_event_attr *a, int type, const char *path,
		 uint64_t offset)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = (uint32_t)type;
	a->config = 0;		/* bit 0 (retprobe) clear: the entry */
	a->config1 = (uint64_t)(uintptr_t)path;
	a->config2 = offset;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
}

struct ring {
	int fd;
	void *base;		/* the header page, then the data pages */
};

struct uprobe_rings {
	struct ring *r;
	size_t n;
	size_t data_size, map_size;
	uint64_t lost;
};

int uprobe_rings_open(const struct perf_event_attr *attr, size_t pages,
		      struct uprobe_rings **out, char **cause)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	long page = sysconf(_SC_PAGESIZE);
	struct uprobe_rings *u = calloc(1, sizeof(*u));
	if (!u || ncpu < 1 || !(u->r = calloc((size_t)ncpu, sizeof(*u->r)))) {
		free(u);
		return cause_set(cause, ENOMEM, "out of memory");
	}
	u->data_size = pages * (size_t)page;
	u->map_size = u->data_size + (size_t)page;
	struct perf_event_attr a = *attr;
	a.wakeup_watermark = (uint32_t)(u->data_size / 4);
	int err = 0;
	for (long cpu = 0; cpu < ncpu; cpu++) {
		int fd = (int)syscall(SYS_perf_event_open, &a, -1, (int)cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno == ENODEV || errno == EINVAL)
				continue;	/* an offline CPU */
			err = errno;
			break;
		}
		void *base = mmap(NULL, u->map_size, PROT_READ | PROT_WRITE,
				  MAP_SHARED, fd, 0);
		if (base == MAP_FAILED) {
			err = errno;
			close(fd);
			break;
		}
		u->r[u->n++] = (struct ring){ .fd = fd, .base = base };
	}
	if (!err && !u->n)
		err = ENODEV;
	if (err) {
		uprobe_rings_close(u);
		return cause_set(cause, err, "cannot open the uprobe on every CPU: "
				 "%s%s", ERR_TEXT(err), err == EACCES || err == EPERM ?
				 "\nhint: a uprobe on every CPU needs root or "
				 "CAP_PERFMON" : "");
	}
	*out = u;
	return 0;
}

/* One CPU's buffer has one writer: head and tail suffice. */
static void drain_one(struct uprobe_rings *u, struct ring *r, int32_t pid,
		      void (*fn)(uint64_t t_ns, void *arg), void *arg)
{
	struct perf_event_mmap_page *mp = r->base;
	const uint8_t *data = (const uint8_t *)r->base + (u->map_size - u->data_size);
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	size_t mask = u->data_size - 1;
	while (tail + sizeof(struct perf_event_header) <= head) {
		uint8_t rec[64];
		struct perf_event_header h;
		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(tail + i) & mask];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		size_t len = h.size < sizeof(rec) ? h.size : sizeof(rec);
		for (size_t i = 0; i < len; i++)
			rec[i] = data[(tail + i) & mask];
		if (h.type == PERF_RECORD_SAMPLE && len >= sizeof(h) + 16) {
			uint32_t p;
			uint64_t t;
			memcpy(&p, rec + sizeof(h), sizeof(p));
			memcpy(&t, rec + sizeof(h) + 8, sizeof(t));
			if ((int32_t)p == pid)
				fn(t, arg);
		} else if (h.type == PERF_RECORD_LOST && len >= sizeof(h) + 16) {
			uint64_t n;
			memcpy(&n, rec + sizeof(h) + 8, sizeof(n));
			u->lost += n;
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

void uprobe_rings_drain(struct uprobe_rings *u, int32_t pid,
			void (*fn)(uint64_t t_ns, void *arg), void *arg)
{
	for (size_t i = 0; u && i < u->n; i++)
		drain_one(u, &u->r[i], pid, fn, arg);
}

uint64_t uprobe_rings_lost(const struct uprobe_rings *u)
{
	return u ? u->lost : 0;
}

void uprobe_rings_close(struct uprobe_rings *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++) {
		munmap(u->r[i].base, u->map_size);
		close(u->r[i].fd);
	}
	free(u->r);
	free(u);
}
