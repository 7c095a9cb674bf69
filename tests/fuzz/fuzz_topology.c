/*
 * fuzz_topology: a sysfs tree as a machine (or a container, or a broken
 * kernel) presents it. The input is a list of files, one "PATH=VALUE" a
 * line, PATH below sys/devices/system/ (cpu/online,
 * cpu/cpu0/cache/index3/size, node/node0/cpulist ...) and VALUE the file's
 * bytes with \n for a newline and \\ for a backslash. The target writes
 * the tree into a scratch directory, reads it with topo_read(), and
 * resolves every kind of pin against what it got; whatever the files
 * say, a domain must hold online CPUs and a pin must land on them.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "collectors/topology.h"
#include "fuzz.h"

/* Only plain relative names: no "..", no absolute path, no oddities. */
static bool safe_path(const char *p)
{
	if (!*p || *p == '/' || strstr(p, "..") || strstr(p, "//") ||
	    strlen(p) > 200)
		return false;
	for (const char *c = p; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' ||
		      *c == '.' || *c == '/'))
			return false;
	return p[strlen(p) - 1] != '/';
}

static void write_one(const char *base, const char *rel, const char *value)
{
	char path[8192];
	snprintf(path, sizeof(path), "%s/%s", base, rel);
	/* Make the parents; a file already in the way just fails. */
	for (char *q = path + strlen(base) + 1; (q = strchr(q, '/')); q++) {
		*q = '\0';
		mkdir(path, 0755);
		*q = '/';
	}
	char buf[4096];
	size_t n = 0;
	for (const char *v = value; *v && n < sizeof(buf); v++) {
		if (*v == '\\' && v[1] == 'n') {
			buf[n++] = '\n';
			v++;
		} else if (*v == '\\' && v[1] == '\\') {
			buf[n++] = '\\';
			v++;
		} else {
			buf[n++] = *v;
		}
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	if (write(fd, buf, n) < 0)
		(void)0;	/* the reader sees a short file: fine */
	close(fd);
}

static void check_pin(const struct topo *t, const char *mode)
{
	struct topo_pin pin;
	char *cause = NULL;
	int err = topo_pin_resolve(t, mode, &pin, &cause);
	if (err) {
		FZ_CHECK(err < 0 && cause);
		free(cause);
		topo_pin_release(&pin);
		return;
	}
	FZ_CHECK(pin.desc);
	if (pin.mode != TOPO_PIN_NONE) {
		struct cpumask off;
		cpumask_andnot(&off, &pin.cpus, &t->online);
		FZ_CHECK(!cpumask_empty(&pin.cpus) && cpumask_empty(&off));
	}
	topo_pin_release(&pin);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 16384)
		return 0;	/* a tree of a few hundred files at most */
	char root[4200], sysdir[4300];
	snprintf(root, sizeof(root), "%s/root", fz_scratch());
	snprintf(sysdir, sizeof(sysdir), "%s/sys/devices/system", root);
	fz_rmrf(root);
	mkdir(root, 0755);
	char tmp[4300];
	snprintf(tmp, sizeof(tmp), "%s/sys", root);
	mkdir(tmp, 0755);
	snprintf(tmp, sizeof(tmp), "%s/sys/devices", root);
	mkdir(tmp, 0755);
	mkdir(sysdir, 0755);

	char *text = fz_str(data, size), *rest = text, *line;
	size_t files = 0;
	while ((line = fz_field(&rest)) && files < 1000) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		if (!safe_path(line))
			continue;
		write_one(sysdir, line, eq + 1);
		files++;
	}
	free(text);

	struct topo t;
	char *cause = NULL;
	int err = topo_read(&t, root, &cause);
	if (err) {
		FZ_CHECK(err < 0 && cause);
		free(cause);
		topo_release(&t);
		check_pin(NULL, "none");
		return 0;
	}
	FZ_CHECK(!cause);
	for (size_t i = 0; i < t.n_caches; i++) {
		const struct cache_domain *d = &t.caches[i];
		FZ_CHECK(d->level >= 1 && d->level <= TOPO_MAX_CACHE_LEVEL);
		FZ_CHECK(i == 0 || d->level >= t.caches[i - 1].level);
	}
	FZ_CHECK(t.largest_llc || t.largest_llc_reason);
	static const char *const modes[] = {
		"none", "largest-llc", "llc:0", "llc:1", "l2:0", "l2:3",
		"node:0", "node:1", "cpus:0", "cpus:0-3,8", "cpus:1-8191",
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		check_pin(&t, modes[i]);
	topo_release(&t);
	return 0;
}
