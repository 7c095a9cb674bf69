/*
 * resctrl: read the L3 allocation a resctrl mount offers, and run a group
 * of our own with fewer ways. See resctrl.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/resctrl.h"
#include "common/cause.h"
#include "common/errtext.h"

/* A small file's text, trailing whitespace cut; NULL with errno. */
static char *read_small(const char *path)
{
	FILE *fp = fopen(path, "re");
	if (!fp)
		return NULL;
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	int bad = ferror(fp);
	fclose(fp);
	if (bad) {
		errno = EIO;
		return NULL;
	}
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return strdup(buf);
}

static bool parse_hex(const char *s, uint64_t *out)
{
	if (!*s || strlen(s) > 16)
		return false;
	uint64_t v = 0;
	for (const char *p = s; *p; p++) {
		if (!isxdigit((unsigned char)*p))
			return false;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)*p) ? *p - '0'
					: tolower((unsigned char)*p) - 'a' + 10);
	}
	*out = v;
	return true;
}

static bool parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || !isdigit((unsigned char)*s) || v > max)
		return false;
	*out = (unsigned)v;
	return true;
}

/* root/rel, malloc'd; NULL with errno ENOMEM when memory runs out. */
static char *path_of(const char *root, const char *rel)
{
	char *p;
	if (asprintf(&p, "%s/%s", root, rel) < 0) {
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

/* The cause for a path that could not be made. */
static int no_path(char **cause, const char *root, const char *rel)
{
	return cause_set(cause, ENOMEM, "cannot name '%s/%s': out of memory", root, rel);
}

/* A file under root read as hex or a number. */
static int read_field(const char *root, const char *rel, bool hex, uint64_t *hv,
		      unsigned *uv, bool optional, char **cause)
{
	char *path = path_of(root, rel);
	if (!path)
		return no_path(cause, root, rel);
	char *text = read_small(path);
	int rc = 0;
	if (!text) {
		if (!(optional && errno == ENOENT))
			rc = cause_set(cause, errno, "cannot read '%s': %s", path,
				       ERR_TEXT(errno));
	} else if (hex ? !parse_hex(text, hv) : !parse_uint(text, 4096, uv)) {
		rc = cause_set(cause, EINVAL, "'%s' reads '%.40s', not %s", path, text,
			       hex ? "a hex mask" : "a number");
	}
	free(text);
	free(path);
	return rc;
}

int resctrl_parse_line(const char *line, char *name, size_t namelen,
		       struct resctrl_domain **out, size_t *n, char **cause)
{
	*out = NULL;
	*n = 0;
	while (isspace((unsigned char)*line))
		line++;
	const char *colon = strchr(line, ':');
	if (!colon || colon == line || (size_t)(colon - line) >= namelen)
		return cause_set(cause, EINVAL, "schemata line '%.60s' has no resource "
				 "name", line);
	snprintf(name, namelen, "%.*s", (int)(colon - line), line);
	struct resctrl_domain *v = NULL;
	size_t k = 0;
	for (const char *p = colon + 1; *p;) {
		size_t len = strcspn(p, ";");
		char item[64];
		if (len == 0 || len >= sizeof(item))
			goto bad;
		memcpy(item, p, len);
		item[len] = '\0';
		char *eq = strchr(item, '=');
		if (!eq)
			goto bad;
		*eq = '\0';
		unsigned id;
		uint64_t mask;
		char *s = item;
		while (isspace((unsigned char)*s))
			s++;
		if (!parse_uint(s, 1u << 20, &id) || !parse_hex(eq + 1, &mask))
			goto bad;
		struct resctrl_domain *q = realloc(v, (k + 1) * sizeof(*q));
		if (!q) {
			free(v);
			return cause_set(cause, ENOMEM, "cannot read schemata line "
					 "'%.60s': out of memory", line);
		}
		v = q;
		v[k].id = (long)id;
		v[k].mask = mask;
		k++;
		p += len;
		if (*p == ';')
			p++;
	}
	if (!k)
		goto bad;
	*out = v;
	*n = k;
	return 0;
bad:
	free(v);
	return cause_set(cause, EINVAL, "schemata line '%.60s' is not "
			 "NAME:ID=MASK;ID=MASK...", line);
}

/* The default group's L3 (or L3CODE) line. */
static int read_schemata(struct resctrl *r, char **cause)
{
	char *path = path_of(r->root, "schemata");
	if (!path)
		return no_path(cause, r->root, "schemata");
	char *text = read_small(path);
	int rc = 0;
	if (!text) {
		rc = cause_set(cause, errno, "cannot read '%s': %s", path, ERR_TEXT(errno));
		goto out;
	}
	const char *want = r->cdp ? "L3CODE" : "L3";
	bool found = false;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && !rc;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[32];
		struct resctrl_domain *d;
		size_t n;
		char *lc = NULL;
		int prc = resctrl_parse_line(line, name, sizeof(name), &d, &n, &lc);
		if (prc == -ENOMEM) {
			free(lc);
			rc = cause_set(cause, ENOMEM, "cannot read '%s': out of memory", path);
			continue;
		}
		if (prc) {
			/* Lines of other resources may have other forms (MB). */
			const char *s = line;
			while (isspace((unsigned char)*s))
				s++;
			if (!strncmp(s, want, strlen(want)) && s[strlen(want)] == ':')
				rc = cause_set(cause, EINVAL, "'%s': %s", path, lc);
			free(lc);
			continue;
		}
		if (strcmp(name, want) || found) {
			free(d);
			continue;
		}
		r->domains = d;
		r->ndomains = n;
		found = true;
	}
	if (!rc && !found)
		rc = cause_set(cause, EOPNOTSUPP, "'%s' has no %s line", path, want);
out:
	free(text);
	free(path);
	return rc;
}

int resctrl_read(struct resctrl *r, const char *root, char **cause)
{
	memset(r, 0, sizeof(*r));
	r->root = strdup(root ? root : RESCTRL_ROOT);
	if (!r->root)
		return cause_set(cause, ENOMEM, "cannot read resctrl: out of memory");
	struct stat st;
	char *sch = path_of(r->root, "schemata");
	int rc = 0;
	if (!sch) {
		rc = no_path(cause, r->root, "schemata");
		goto fail;
	}
	if (stat(sch, &st)) {
		rc = cause_set(cause, ENOENT, "no resctrl file system at '%s' (no "
			       "schemata): the kernel or the CPU has no cache allocation, "
			       "or it is not mounted", r->root);
		free(sch);
		goto fail;
	}
	free(sch);
	char *l3 = path_of(r->root, "info/L3"), *code = path_of(r->root, "info/L3CODE");
	if (!l3 || !code) {
		free(l3);
		free(code);
		rc = no_path(cause, r->root, "info/L3");
		goto fail;
	}
	bool have_l3 = !stat(l3, &st), have_code = !stat(code, &st);
	free(l3);
	free(code);
	if (!have_l3 && !have_code) {
		rc = cause_set(cause, EOPNOTSUPP, "resctrl at '%s' offers no L3 "
			       "allocation (no info/L3)", r->root);
		goto fail;
	}
	r->cdp = !have_l3;
	const char *dir = r->cdp ? "info/L3CODE" : "info/L3";
	char rel[64];
	snprintf(rel, sizeof(rel), "%s/cbm_mask", dir);
	if ((rc = read_field(r->root, rel, true, &r->cbm_mask, NULL, false, cause)))
		goto fail;
	snprintf(rel, sizeof(rel), "%s/min_cbm_bits", dir);
	if ((rc = read_field(r->root, rel, false, NULL, &r->min_bits, false, cause)))
		goto fail;
	snprintf(rel, sizeof(rel), "%s/num_closids", dir);
	if ((rc = read_field(r->root, rel, false, NULL, &r->num_closids, false, cause)))
		goto fail;
	snprintf(rel, sizeof(rel), "%s/shareable_bits", dir);
	if ((rc = read_field(r->root, rel, true, &r->shareable, NULL, true, cause)))
		goto fail;
	r->ways = (unsigned)__builtin_popcountll(r->cbm_mask);
	/* The kernel's masks are contiguous from bit 0. */
	if (!r->ways || r->cbm_mask != (r->ways == 64 ? ~0ull : (1ull << r->ways) - 1)) {
		rc = cause_set(cause, EINVAL, "'%s/%s/cbm_mask' is %llx, not a run of ways "
			       "from bit 0", r->root, dir, (unsigned long long)r->cbm_mask);
		goto fail;
	}
	if (r->min_bits < 1)
		r->min_bits = 1;
	if ((rc = read_schemata(r, cause)))
		goto fail;
	return 0;
fail:
	resctrl_release(r);
	return rc;
}

void resctrl_release(struct resctrl *r)
{
	free(r->root);
	free(r->domains);
	memset(r, 0, sizeof(*r));
}

int resctrl_mask(const struct resctrl *r, unsigned ways, uint64_t *mask, char **cause)
{
	if (ways < r->min_bits || ways > r->ways)
		return cause_set(cause, ERANGE, "%u ways is outside what the L3 allows "
				 "(%u to %u)", ways, r->min_bits, r->ways);
	*mask = ways == 64 ? ~0ull : (1ull << ways) - 1;
	return 0;
}

const struct resctrl_domain *resctrl_domain(const struct resctrl *r, long id)
{
	for (size_t i = 0; i < r->ndomains; i++)
		if (r->domains[i].id == id)
			return &r->domains[i];
	return NULL;
}

/* Write text to a file of the tree; O_CREAT serves fixture trees, where
 * no kernel made the file (on resctrl it always exists). */
static int write_text(const char *path, const char *text, char **cause)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return cause_set(cause, errno, "cannot open '%s': %s", path,
				 ERR_TEXT(errno));
	size_t len = strlen(text);
	ssize_t w = write(fd, text, len);
	int e = w < 0 ? errno : (size_t)w != len ? EIO : 0;
	if (close(fd) && !e)
		e = errno;
	if (e)
		/* The kernel says why in info/last_cmd_status; the errno
		 * (EINVAL for a mask it refuses) is what we have here. */
		return cause_set(cause, e, "cannot write '%.60s' to '%s': %s", text, path,
				 ERR_TEXT(e));
	return 0;
}

static int remove_dir(const char *path, char **cause)
{
	if (!rmdir(path) || errno == ENOENT)
		return 0;
	if (errno == ENOTEMPTY || errno == EEXIST) {
		/* Only a fixture tree holds ordinary files: the kernel's
		 * groups go with one rmdir. */
		static const char *const files[] = { "schemata", "tasks" };
		for (size_t i = 0; i < 2; i++) {
			char *f = path_of(path, files[i]);
			if (f)
				unlink(f);
			free(f);
		}
		if (!rmdir(path))
			return 0;
	}
	return cause_set(cause, errno, "cannot remove the resctrl group '%s': %s", path,
			 ERR_TEXT(errno));
}

int resctrl_sweep_stale(const char *root)
{
	DIR *d = opendir(root);
	if (!d)
		return 0;
	int removed = 0;
	struct dirent *e;
	size_t plen = strlen(RESCTRL_GROUP_PREFIX);
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, RESCTRL_GROUP_PREFIX, plen))
			continue;
		unsigned pid;
		if (!parse_uint(e->d_name + plen, 1u << 30, &pid) || pid == 0)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char *path = path_of(root, e->d_name);
		if (path && !remove_dir(path, NULL))
			removed++;
		free(path);
	}
	closedir(d);
	return removed;
}

int resctrl_group_make(const struct resctrl *r, pid_t pid, struct resctrl_group *g,
		       char **cause)
{
	memset(g, 0, sizeof(*g));
	resctrl_sweep_stale(r->root);
	if (asprintf(&g->path, "%s/" RESCTRL_GROUP_PREFIX "%d", r->root, (int)pid) < 0) {
		g->path = NULL;
		return cause_set(cause, ENOMEM, "cannot make a resctrl group for "
				 "process %d: out of memory", (int)pid);
	}
	if (mkdir(g->path, 0755) && errno != EEXIST) {
		int e = errno;
		if (e == ENOSPC)
			cause_set(cause, ENOSPC, "cannot make resctrl group '%s': every one "
				  "of the %u groups the hardware has is in use", g->path,
				  r->num_closids);
		else
			cause_set(cause, e, "cannot make resctrl group '%s': %s", g->path,
				  ERR_TEXT(e));
		free(g->path);
		g->path = NULL;
		return -e;
	}
	g->made = true;
	return 0;
}

int resctrl_group_set(const struct resctrl *r, const struct resctrl_group *g,
		      long id, uint64_t mask, char **cause)
{
	char text[128];
	if (r->cdp)
		snprintf(text, sizeof(text), "L3CODE:%ld=%llx\nL3DATA:%ld=%llx\n", id,
			 (unsigned long long)mask, id, (unsigned long long)mask);
	else
		snprintf(text, sizeof(text), "L3:%ld=%llx\n", id, (unsigned long long)mask);
	char *path = path_of(g->path, "schemata");
	if (!path)
		return no_path(cause, g->path, "schemata");
	int rc = write_text(path, text, cause);
	free(path);
	return rc;
}

static int add_task(const char *dir, pid_t tid, char **cause)
{
	char text[32];
	snprintf(text, sizeof(text), "%d\n", (int)tid);
	char *path = path_of(dir, "tasks");
	if (!path)
		return no_path(cause, dir, "tasks");
	int rc = write_text(path, text, cause);
	free(path);
	return rc;
}

int resctrl_group_add(const struct resctrl_group *g, pid_t tid, char **cause)
{
	return add_task(g->path, tid, cause);
}

int resctrl_group_leave(const struct resctrl *r, pid_t tid, char **cause)
{
	return add_task(r->root, tid, cause);
}

int resctrl_group_remove(struct resctrl_group *g, char **cause)
{
	if (!g->made)
		return 0;
	int rc = remove_dir(g->path, cause);
	if (!rc) {
		g->made = false;
		free(g->path);
		g->path = NULL;
	}
	return rc;
}
