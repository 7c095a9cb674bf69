/*
 * runenv: the machine's settings at the start of a run; see runenv.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cpumask.h"
#include "collectors/pmus.h"
#include "collectors/runenv.h"
#include "common/sysfile.h"

struct reader {
	struct runenv *e;
	const char *sys, *proc;	/* the roots */
	int rc;			/* -ENOMEM once out of memory */
};

static void put(struct reader *r, const char *key, const char *value)
{
	if (r->rc || !value)
		return;
	struct runenv_kv *p = realloc(r->e->kv, (r->e->n + 1) * sizeof(*p));
	if (!p) {
		r->rc = -ENOMEM;
		return;
	}
	r->e->kv = p;
	p[r->e->n].key = strdup(key);
	p[r->e->n].value = strdup(value);
	if (!p[r->e->n].key || !p[r->e->n].value) {
		free(p[r->e->n].key);
		free(p[r->e->n].value);
		r->rc = -ENOMEM;
		return;
	}
	r->e->n++;
}

/* The first line of root/path, without its newline, or false. */
static bool read_line(const char *root, const char *path, char *buf, size_t n)
{
	char full[4096];
	snprintf(full, sizeof(full), "%s/%s", root, path);
	return sysfile_line(full, buf, n) == 0;
}

static void put_file(struct reader *r, const char *key, const char *root,
		     const char *path)
{
	char buf[4096];
	if (read_line(root, path, buf, sizeof(buf)))
		put(r, key, buf);
}

/* "always [madvise] never": the word in brackets. */
static void put_choice(struct reader *r, const char *key, const char *path)
{
	char buf[512];
	if (!read_line(r->sys, path, buf, sizeof(buf)))
		return;
	char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;
	if (a && b) {
		*b = '\0';
		put(r, key, a + 1);
	} else {
		put(r, key, buf);
	}
}

/* The distinct values of each /proc/cpuinfo field fields[i], joined by
 * ", ", as keys[i]: one pass over the file (a big machine's is hundreds
 * of KiB). */
#define CPUINFO_FIELDS 2
static void put_cpuinfo(struct reader *r, const char *const keys[CPUINFO_FIELDS],
			const char *const fields[CPUINFO_FIELDS])
{
	char path[4096], line[1024], out[CPUINFO_FIELDS][1024] = { "" };
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", r->proc);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		for (size_t i = 0; i < CPUINFO_FIELDS; i++) {
			size_t flen = strlen(fields[i]);
			if (strncmp(line, fields[i], flen) ||
			    (line[flen] != '\t' && line[flen] != ' ' && line[flen] != ':'))
				continue;
			char *v = strchr(line, ':');
			if (!v)
				break;
			v += 1 + strspn(v + 1, " \t");
			v[strcspn(v, "\n")] = '\0';
			if (strstr(out[i], v))
				break;
			size_t used = strlen(out[i]);
			snprintf(out[i] + used, sizeof(out[i]) - used, "%s%s",
				 used ? ", " : "", v);
			break;
		}
	}
	fclose(fp);
	for (size_t i = 0; i < CPUINFO_FIELDS; i++)
		if (*out[i])
			put(r, keys[i], out[i]);
}

/*
 * One cpufreq file of every online CPU: one value when all agree, else
 * "cpu0=a cpu1=b". Nothing when no CPU has it.
 */
static void put_per_cpu(struct reader *r, const char *key, const char *file)
{
	char buf[256];
	if (!read_line(r->sys, "sys/devices/system/cpu/online", buf, sizeof(buf)))
		return;
	struct cpumask m;
	if (cpumask_parse(&m, buf, NULL))
		return;
	char all[4096] = "", first[256] = "";
	bool same = true, any = false;
	size_t used = 0;
	for (int cpu = cpumask_first(&m); cpu >= 0; cpu = cpumask_next(&m, cpu)) {
		char path[256], v[256];
		snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%d/cpufreq/%s",
			 cpu, file);
		if (!read_line(r->sys, path, v, sizeof(v)))
			snprintf(v, sizeof(v), "?");
		if (!any)
			snprintf(first, sizeof(first), "%s", v);
		same = same && !strcmp(first, v);
		any = any || strcmp(v, "?");
		if (used < sizeof(all))
			used += (size_t)snprintf(all + used, sizeof(all) - used, "%scpu%d=%s",
						 used ? " " : "", cpu, v);
	}
	if (any)
		put(r, key, same ? first : all);
}

/* Turbo: cpufreq's boost, or intel_pstate's no_turbo turned round. */
static void put_boost(struct reader *r)
{
	char buf[64];
	if (read_line(r->sys, "sys/devices/system/cpu/cpufreq/boost", buf, sizeof(buf)))
		put(r, "boost", !strcmp(buf, "1") ? "on" : "off");
	else if (read_line(r->sys, "sys/devices/system/cpu/intel_pstate/no_turbo",
			   buf, sizeof(buf)))
		put(r, "boost", !strcmp(buf, "1") ? "off" : "on");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each vulnerability's state, by name, in name order. */
static void put_mitigations(struct reader *r)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu/vulnerabilities", r->sys);
	DIR *d = opendir(dir);
	if (!d)
		return;
	char *names[128];
	size_t n = 0;
	struct dirent *de;
	while (n < 128 && (de = readdir(d)))
		if (de->d_name[0] != '.' && (names[n] = strdup(de->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char path[512], key[300];
		snprintf(path, sizeof(path), "sys/devices/system/cpu/vulnerabilities/%s",
			 names[i]);
		snprintf(key, sizeof(key), "mitigation.%s", names[i]);
		put_file(r, key, r->sys, path);
		free(names[i]);
	}
}

/* The core PMUs, "none" where sysfs lists PMUs but none of them is
 * one (a VM without a PMU); left out where it lists nothing. */
static void put_pmus(struct reader *r)
{
	struct pmu_list l;
	if (pmus_read(&l, r->sys, NULL))
		return;
	char *v = l.ncore ? pmus_describe(&l) : strdup("none");
	if (!v)
		r->rc = -ENOMEM;
	put(r, "core_pmus", v);
	free(v);
	pmus_release(&l);
}

int runenv_read(struct runenv *e, const char *sysfs_root, const char *procfs_root)
{
	memset(e, 0, sizeof(*e));
	struct reader r = { e, sysfs_root ? sysfs_root : "/",
			    procfs_root ? procfs_root : "/", 0 };
	char buf[256];
	put_file(&r, "kernel", r.proc, "proc/sys/kernel/osrelease");
	put_file(&r, "cmdline", r.proc, "proc/cmdline");
	static const char *const cpuinfo_keys[CPUINFO_FIELDS] = { "cpu_model", "microcode" };
	static const char *const cpuinfo_fields[CPUINFO_FIELDS] = { "model name", "microcode" };
	put_cpuinfo(&r, cpuinfo_keys, cpuinfo_fields);
	put_per_cpu(&r, "governor", "scaling_governor");
	put_per_cpu(&r, "min_khz", "scaling_min_freq");
	put_per_cpu(&r, "max_khz", "scaling_max_freq");
	put_boost(&r);
	put_file(&r, "smt", r.sys, "sys/devices/system/cpu/smt/control");
	put_choice(&r, "thp", "sys/kernel/mm/transparent_hugepage/enabled");
	put_choice(&r, "thp_defrag", "sys/kernel/mm/transparent_hugepage/defrag");
	put_file(&r, "perf_event_paranoid", r.proc, "proc/sys/kernel/perf_event_paranoid");
	put_pmus(&r);
	if (read_line(r.sys, "sys/devices/system/cpu/isolated", buf, sizeof(buf)))
		put(&r, "isolated", *buf ? buf : "none");
	if (read_line(r.sys, "sys/devices/system/cpu/nohz_full", buf, sizeof(buf)))
		put(&r, "nohz_full", *buf && strcmp(buf, "(null)") ? buf : "none");
	if (read_line(r.proc, "proc/loadavg", buf, sizeof(buf))) {
		double l1, l5, l15;
		if (sscanf(buf, "%lf %lf %lf", &l1, &l5, &l15) == 3) {
			snprintf(buf, sizeof(buf), "%.2f %.2f %.2f", l1, l5, l15);
			put(&r, "loadavg", buf);
		}
	}
	put_file(&r, "numa_balancing", r.proc, "proc/sys/kernel/numa_balancing");
	put_mitigations(&r);
	if (r.rc)
		runenv_release(e);
	return r.rc;
}

void runenv_release(struct runenv *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++) {
		free(e->kv[i].key);
		free(e->kv[i].value);
	}
	free(e->kv);
	memset(e, 0, sizeof(*e));
}

const char *runenv_get(const struct runenv *e, const char *key)
{
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->kv[i].key, key))
			return e->kv[i].value;
	return NULL;
}
