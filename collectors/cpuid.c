/*
 * cpuid: reads the processor's identity (x86 vendor, family and model;
 * arm64 MIDR_EL1) and the hybrid core PMUs from a root directory, for the
 * mission map's families that libpfm4 cannot name.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectors/cpuid.h"
#include "common/sysfile.h"

/* root + rel, root "" or NULL meaning "/". */
static void path_of(char *buf, size_t size, const char *root, const char *rel)
{
	if (!root || !*root)
		root = "/";
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	snprintf(buf, size, "%.*s%s%s", (int)n, root,
		 root[n - 1] == '/' ? "" : "/", rel);
}

/* The value of "key : value" when line's key is exactly key, else NULL. */
static const char *cpuinfo_value(const char *line, const char *key)
{
	size_t klen = strlen(key);
	if (strncmp(line, key, klen))
		return NULL;
	const char *p = line + klen;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool parse_uint(const char *s, int base, unsigned long long max,
		       unsigned long long *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (errno || end == s || *end || v > max)
		return false;
	*out = v;
	return true;
}

/*
 * The first processor's block of /proc/cpuinfo: x86 vendor_id, cpu family,
 * model and model name, or arm64 CPU implementer and CPU part (and the
 * "Model" some Arm kernels print after the last processor). 0, -ENOENT
 * without the file, -EINVAL when a value does not parse.
 */
static int read_cpuinfo(const char *root, struct cpuid *id, bool *arm_found)
{
	char path[4200], line[512];
	path_of(path, sizeof(path), root, "proc/cpuinfo");
	FILE *fp = fopen(path, "re");
	if (!fp)
		return -ENOENT;
	bool have_fam = false, have_model = false, have_impl = false,
	     have_part = false;
	int rc = 0;
	unsigned long long v;
	bool past_first = false;
	while (fgets(line, sizeof(line), fp)) {
		const char *val;
		if (line[0] == '\n' && (id->vendor[0] || have_impl)) {
			if (id->vendor[0])
				break;		/* end of the first processor */
			past_first = true;	/* Arm's "Model" comes last */
			continue;
		}
		line[strcspn(line, "\n")] = '\0';
		if (past_first) {
			if (!id->model_name[0] && (val = cpuinfo_value(line, "Model")))
				snprintf(id->model_name, sizeof(id->model_name), "%s", val);
		} else if ((val = cpuinfo_value(line, "vendor_id"))) {
			snprintf(id->vendor, sizeof(id->vendor), "%s", val);
		} else if ((val = cpuinfo_value(line, "cpu family"))) {
			if (!parse_uint(val, 10, 0xffff, &v))
				rc = -EINVAL;
			id->family = (unsigned)v;
			have_fam = true;
		} else if ((val = cpuinfo_value(line, "model"))) {
			if (!parse_uint(val, 10, 0xffff, &v))
				rc = -EINVAL;
			id->model = (unsigned)v;
			have_model = true;
		} else if ((val = cpuinfo_value(line, "model name")) ||
			   (val = cpuinfo_value(line, "Model"))) {
			if (!id->model_name[0])
				snprintf(id->model_name, sizeof(id->model_name), "%s", val);
		} else if ((val = cpuinfo_value(line, "CPU implementer"))) {
			if (!parse_uint(val, 0, 0xff, &v))
				rc = -EINVAL;
			id->implementer = (unsigned)v;
			have_impl = true;
		} else if ((val = cpuinfo_value(line, "CPU part"))) {
			if (!parse_uint(val, 0, 0xfff, &v))
				rc = -EINVAL;
			id->part = (unsigned)v;
			have_part = true;
		}
	}
	fclose(fp);
	if (rc)
		return rc;
	if (id->vendor[0]) {
		if (!have_fam || !have_model)
			return -EINVAL;
		id->arch = CPUID_X86;
	}
	*arm_found = have_impl && have_part;
	return 0;
}

/* MIDR_EL1 of the lowest-numbered CPU that exports it. */
static int read_midr(const char *root, uint64_t *midr)
{
	char dir[4200];
	path_of(dir, sizeof(dir), root, "sys/devices/system/cpu");
	DIR *d = opendir(dir);
	if (!d)
		return -ENOENT;
	long best = -1;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		if (strncmp(de->d_name, "cpu", 3) || !de->d_name[3])
			continue;
		long n = strtol(de->d_name + 3, &end, 10);
		if (*end || n < 0)
			continue;
		char path[4400];
		snprintf(path, sizeof(path), "%.4200s/cpu%ld/regs/identification/"
			 "midr_el1", dir, n);
		struct stat sb;
		if (stat(path, &sb) == 0 && (best < 0 || n < best))
			best = n;
	}
	closedir(d);
	if (best < 0)
		return -ENOENT;
	char path[4400], buf[64];
	snprintf(path, sizeof(path), "%.4200s/cpu%ld/regs/identification/"
		 "midr_el1", dir, best);
	int rc = sysfile_line(path, buf, sizeof(buf));
	if (rc < 0)
		return -ENOENT;	/* it would not open */
	unsigned long long v;
	if (rc != 0 || !parse_uint(buf, 16, UINT64_MAX, &v))
		return -EINVAL;
	*midr = v;
	return 0;
}

static bool pmu_exists(const char *root, const char *pmu)
{
	char rel[256], path[4200];
	struct stat sb;
	snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/%s", pmu);
	path_of(path, sizeof(path), root, rel);
	return stat(path, &sb) == 0;
}

static int read_identity(const char *root, struct cpuid *id)
{
	memset(id, 0, sizeof(*id));
	bool arm_cpuinfo = false;
	int rc = read_cpuinfo(root, id, &arm_cpuinfo);
	if (rc == -EINVAL)
		return rc;
	if (id->arch == CPUID_X86) {
		id->hybrid = pmu_exists(root, "cpu_core") &&
			     pmu_exists(root, "cpu_atom");
		return 0;
	}
	uint64_t midr;
	rc = read_midr(root, &midr);
	if (rc == -EINVAL)
		return rc;
	if (rc == 0) {
		id->midr = midr;
		id->implementer = (unsigned)((midr >> 24) & 0xff);
		id->part = (unsigned)((midr >> 4) & 0xfff);
	} else if (arm_cpuinfo) {
		/* MIDR as the mapfile writes it, architecture field 0xf */
		id->midr = (uint64_t)id->implementer << 24 | 0xfu << 16 |
			   (uint64_t)id->part << 4;
	} else {
		return -ENOENT;
	}
	id->arch = CPUID_ARM64;
	return 0;
}

int cpuid_read(const char *root, struct cpuid *id)
{
	if (root && *root && strcmp(root, "/"))
		return read_identity(root, id);
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static bool have;
	static int have_rc;
	static struct cpuid have_id;
	pthread_mutex_lock(&lock);
	if (!have) {
		have_rc = read_identity(NULL, &have_id);
		have = true;
	}
	*id = have_id;
	int rc = have_rc;
	pthread_mutex_unlock(&lock);
	return rc;
}

int cpuid_format(const struct cpuid *id, char *buf, size_t size)
{
	switch (id->arch) {
	case CPUID_X86:
		return snprintf(buf, size, "%s-%u-%X", id->vendor, id->family,
				id->model);
	case CPUID_ARM64:
		/* variant (23:20) and revision (3:0) cleared, as the mapfile */
		return snprintf(buf, size, "0x%016" PRIx64,
				id->midr & ~(uint64_t)0xf0000f);
	default:
		return snprintf(buf, size, "unknown");
	}
}

int cpuid_pmu_type(const char *root, const char *pmu)
{
	char rel[256], path[4200], buf[32];
	if (!pmu || !*pmu || strchr(pmu, '/'))
		return -ENOENT;
	snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/%.64s/type", pmu);
	path_of(path, sizeof(path), root, rel);
	int rc = sysfile_line(path, buf, sizeof(buf));
	if (rc < 0)
		return -ENOENT;	/* it would not open */
	unsigned long long v;
	if (rc != 0 || !parse_uint(buf, 10, 0x7fffffff, &v) || v == 0)
		return -EINVAL;
	return (int)v;
}
