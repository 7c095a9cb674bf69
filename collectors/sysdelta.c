/*
 * sysdelta: snapshots of the machine's own counters; see sysdelta.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/sysdelta.h"

static int add(struct sys_snap *s, const char *name, int64_t v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct sys_val *p = realloc(s->vals, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->vals = p;
		s->cap = cap;
	}
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	s->vals[s->n++] = (struct sys_val){ copy, v };
	return 0;
}

void sys_snap_release(struct sys_snap *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->vals[i].name);
	free(s->vals);
	memset(s, 0, sizeof(*s));
}

bool sys_snap_get(const struct sys_snap *s, const char *name, int64_t *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->vals[i].name, name)) {
			*v = s->vals[i].v;
			return true;
		}
	return false;
}

/* "pgfault 123456": one counter a line. */
int sys_parse_vmstat(FILE *fp, struct sys_snap *s)
{
	char line[256], key[128], name[160];
	long long v;
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%127s %lld", key, &v) != 2)
			return -EINVAL;
		snprintf(name, sizeof(name), "vmstat.%s", key);
		rc = add(s, name, v);
	}
	return rc;
}

/*
 * "cpu  user nice system idle iowait irq softirq steal ..." for all CPUs
 * and each, in clock ticks; "ctxt N", "processes N", "intr N ...".
 */
int sys_parse_stat(FILE *fp, long ticks_per_s, struct sys_snap *s)
{
	static const struct { int field; const char *name; } kept[] = {
		{ 0, "user_ms" }, { 2, "system_ms" }, { 3, "idle_ms" },
		{ 4, "iowait_ms" }, { 5, "irq_ms" }, { 6, "softirq_ms" },
		{ 7, "steal_ms" },
	};
	char line[4096], key[64], name[160];
	int rc = 0;
	if (ticks_per_s <= 0)
		return -EINVAL;
	while (!rc && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%63s", key) != 1)
			continue;
		if (!strncmp(key, "cpu", 3)) {
			unsigned long long f[8] = { 0 };
			int got = sscanf(line + strlen(key), "%llu %llu %llu %llu %llu "
					 "%llu %llu %llu", &f[0], &f[1], &f[2], &f[3],
					 &f[4], &f[5], &f[6], &f[7]);
			if (got < 4)
				return -EINVAL;
			for (size_t i = 0; !rc && i < sizeof(kept) / sizeof(kept[0]); i++) {
				snprintf(name, sizeof(name), "stat.%s.%s", key, kept[i].name);
				rc = add(s, name, (int64_t)(f[kept[i].field] * 1000ull /
							   (unsigned long long)ticks_per_s));
			}
		} else if (!strcmp(key, "ctxt") || !strcmp(key, "processes") ||
			   !strcmp(key, "intr")) {
			long long v;
			if (sscanf(line + strlen(key), "%lld", &v) != 1)
				return -EINVAL;
			snprintf(name, sizeof(name), "stat.%s", key);
			rc = add(s, name, v);
		}
	}
	return rc;
}

/*
 * A header of CPU names, then one line per source: "NAME: c0 c1 ... desc".
 * Lines with fewer counts than CPUs (ERR, MIS) count once in the total.
 */
int sys_parse_interrupts(FILE *fp, struct sys_snap *s)
{
	char line[8192];
	if (!fgets(line, sizeof(line), fp))
		return -EINVAL;
	size_t ncpu = 0;
	int cpu_ids[1024];
	for (char *p = line; ncpu < 1024 && (p = strstr(p, "CPU")); p += 3)
		cpu_ids[ncpu++] = atoi(p + 3);
	if (!ncpu)
		return -EINVAL;
	uint64_t *per = calloc(2 * ncpu, sizeof(*per)), *one = per + ncpu;
	if (!per)
		return -ENOMEM;
	uint64_t total = 0;
	while (fgets(line, sizeof(line), fp)) {
		char *p = strchr(line, ':');
		if (!p)
			continue;
		p++;
		size_t got = 0;
		uint64_t sum = 0;
		for (; got < ncpu; got++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;	/* a short line, or the description */
			one[got] = v;
			sum += v;
			p = end;
		}
		/* A short line (ERR, MIS) is one count for the machine. */
		for (size_t c = 0; got == ncpu && c < ncpu; c++)
			per[c] += one[c];
		total += sum;
	}
	int rc = 0;
	char name[64];
	for (size_t c = 0; !rc && c < ncpu; c++) {
		snprintf(name, sizeof(name), "interrupts.cpu%d", cpu_ids[c]);
		rc = add(s, name, (int64_t)per[c]);
	}
	if (!rc)
		rc = add(s, "interrupts.total", (int64_t)total);
	free(per);
	return rc;
}

/*
 * "cpuN yld_count legacy sched_count sched_goidle ttwu_count ttwu_local
 * rq_cpu_time run_delay pcount" (schedstat version 15 and later); domain
 * lines are left alone.
 */
int sys_parse_schedstat(FILE *fp, struct sys_snap *s)
{
	char line[1024], key[32], name[96];
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), fp)) {
		unsigned long long f[9];
		if (sscanf(line, "%31s", key) != 1 || strncmp(key, "cpu", 3) ||
		    !key[3])
			continue;
		if (sscanf(line + strlen(key), "%llu %llu %llu %llu %llu %llu %llu "
			   "%llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5],
			   &f[6], &f[7], &f[8]) != 9)
			return -EINVAL;
		snprintf(name, sizeof(name), "schedstat.%s.run_ns", key);
		rc = add(s, name, (int64_t)f[6]);
		snprintf(name, sizeof(name), "schedstat.%s.wait_ns", key);
		if (!rc)
			rc = add(s, name, (int64_t)f[7]);
		snprintf(name, sizeof(name), "schedstat.%s.timeslices", key);
		if (!rc)
			rc = add(s, name, (int64_t)f[8]);
	}
	return rc;
}

int sys_snap_read(struct sys_snap *s, const char *procfs_root)
{
	static const char *const files[] = { "vmstat", "stat", "interrupts", "schedstat" };
	long hz = sysconf(_SC_CLK_TCK);
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", procfs_root, files[i]);
		FILE *fp = fopen(path, "re");
		if (!fp)
			continue;
		size_t before = s->n;
		int rc = i == 0 ? sys_parse_vmstat(fp, s)
			 : i == 1 ? sys_parse_stat(fp, hz, s)
			 : i == 2 ? sys_parse_interrupts(fp, s)
			 : sys_parse_schedstat(fp, s);
		fclose(fp);
		if (rc == -ENOMEM)
			return rc;
		if (rc) {	/* not the kernel's text: leave the source out */
			for (size_t k = before; k < s->n; k++)
				free(s->vals[k].name);
			s->n = before;
		}
	}
	return 0;
}

int sys_snap_delta(const struct sys_snap *before, const struct sys_snap *after,
		   struct sys_val **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	struct sys_val *d = calloc(after->n ? after->n : 1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	size_t k = 0, hint = 0;
	for (size_t i = 0; i < after->n; i++) {
		const struct sys_val *a = &after->vals[i];
		int64_t b = 0;
		/* Both come in the same order: look where the last one was. */
		if (hint < before->n && !strcmp(before->vals[hint].name, a->name))
			b = before->vals[hint++].v;
		else
			sys_snap_get(before, a->name, &b);
		if (a->v == b)
			continue;
		d[k].name = strdup(a->name);
		if (!d[k].name) {
			sys_deltas_free(d, k);
			return -ENOMEM;
		}
		d[k++].v = a->v - b;
	}
	*out = d;
	*n = k;
	return 0;
}

void sys_deltas_free(struct sys_val *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++)
		free(d[i].name);
	free(d);
}
