/*
 * simcache: callgrind's command line, the geometry it simulates, and its
 * profiles' totals; see simcache.h.
 */
#include "collectors/simcache.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "collectors/topology.h"
#include "common/cause.h"
#include "common/errtext.h"
#include "common/sysfile.h"

const char *const sim_event_names[SIM_NEVENTS] = {
	"instructions", "l1i-misses", "l1d-misses", "llc-misses", "branch-misses",
	"cycles",
};

const char *const sim_event_sources[SIM_NEVENTS] = {
	"Ir", "I1mr", "D1mr + D1mw", "ILmr + DLmr + DLmw", "Bcm + Bim",
	"estimated: L1 hits + 5 x LL hits + 35 x LL misses",
};

static const char *const level_names[SIM_NLEVELS] = { "I1", "D1", "LL" };
static const char *const spec_names[SIM_NLEVELS] = { "L1I", "L1D", "LL" };

/* A small sysfs file's first line, or NULL. */
static char *read_line(const char *root, const char *idx, const char *name)
{
	char *path;
	if (asprintf(&path, "%s/sys/devices/system/cpu/cpu0/cache/%s/%s",
		     root, idx, name) < 0)
		return NULL;
	char *s = sysfile_line_dup(path);
	free(path);
	return s;
}

static unsigned read_uint(const char *root, const char *idx, const char *name)
{
	char *s = read_line(root, idx, name);
	unsigned long v = s ? strtoul(s, NULL, 10) : 0;
	free(s);
	return v > 0 && v < 1u << 20 ? (unsigned)v : 0;
}

/* cpu0's caches: L1 instruction and data, the highest unified level. */
static void from_sysfs(struct sim_geometry *g, const char *root)
{
	int ll_level = 0;
	for (int i = 0; i < 16; i++) {
		char idx[16];
		snprintf(idx, sizeof(idx), "index%d", i);
		char *type = read_line(root, idx, "type");
		if (!type)
			break;
		unsigned level = read_uint(root, idx, "level");
		char *size_s = read_line(root, idx, "size");
		uint64_t size = 0;
		if (!size_s || cache_size_parse(size_s, &size, NULL))
			size = 0;
		free(size_s);
		int which = -1;
		if (level == 1 && !strcmp(type, "Instruction"))
			which = SIM_I1;
		else if (level == 1 && !strcmp(type, "Data"))
			which = SIM_D1;
		else if (!strcmp(type, "Unified") && (int)level > ll_level) {
			which = SIM_LL;
			ll_level = (int)level;
		}
		free(type);
		if (which < 0 || !size)
			continue;
		struct sim_cache *c = &g->c[which];
		c->size = size;
		unsigned ways = read_uint(root, idx, "ways_of_associativity");
		unsigned line = read_uint(root, idx, "coherency_line_size");
		if (ways)
			c->assoc = ways;
		if (line)
			c->line = line;
		c->from = "sysfs";
	}
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int sim_cache_fit(struct sim_cache *c)
{
	if (!c->line || !is_pow2(c->line) || !c->size || c->size % c->line || !c->assoc)
		return -EINVAL;
	uint64_t lines = c->size / c->line;
	if (lines % c->assoc == 0 && is_pow2(lines / c->assoc))
		return 0;
	/* lines = odd x 2^m: the ways that work are odd x 2^j, j <= m */
	uint64_t odd = lines;
	while (!(odd & 1))
		odd >>= 1;
	uint64_t best = 0;
	for (uint64_t w = odd; w <= lines && w <= 1u << 16; w <<= 1) {
		uint64_t dw = w > c->assoc ? w - c->assoc : c->assoc - w;
		uint64_t db = best > c->assoc ? best - c->assoc : c->assoc - best;
		if (!best || dw < db || (dw == db && w > best))
			best = w;
	}
	if (!best)
		return -EINVAL;
	c->sysfs_assoc = c->assoc;
	c->assoc = (unsigned)best;
	return 0;
}

/* "32K:8:64", "96M", "48K:12": into c (ways and line kept when left out). */
static int parse_level(const char *v, struct sim_cache *c, char **cause)
{
	char *s = strdup(v);
	if (!s)
		return -ENOMEM;
	char *ways = strchr(s, ':'), *line = NULL;
	if (ways) {
		*ways++ = '\0';
		line = strchr(ways, ':');
		if (line)
			*line++ = '\0';
	}
	uint64_t size;
	int rc = 0;
	if (cache_size_parse(s, &size, NULL) || !size) {
		rc = cause_set(cause, EINVAL, "bad cache size '%s': expected bytes or "
			       "K, M, G (32K, 96M)", s);
		goto out;
	}
	unsigned long w = c->assoc, l = c->line;
	char *end;
	if (ways) {
		errno = 0;
		w = strtoul(ways, &end, 10);
		if (errno || end == ways || *end || !w || w > 65536) {
			rc = cause_set(cause, EINVAL, "bad ways '%s': expected 1 to 65536", ways);
			goto out;
		}
	}
	if (line) {
		errno = 0;
		l = strtoul(line, &end, 10);
		if (errno || end == line || *end || l < 16 || l > 4096 || !is_pow2(l)) {
			rc = cause_set(cause, EINVAL, "bad line size '%s': expected a power "
				       "of two from 16 to 4096", line);
			goto out;
		}
	}
	c->size = size;
	c->assoc = (unsigned)w;
	c->line = (unsigned)l;
	c->from = "--cache";
out:
	free(s);
	return rc;
}

static int parse_spec(struct sim_geometry *g, const char *spec, char **cause)
{
	char *copy = strdup(spec), *save = NULL;
	if (!copy)
		return -ENOMEM;
	int rc = 0;
	bool any = false;
	for (char *tok = strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int which = -1;
		if (eq) {
			*eq = '\0';
			for (int i = 0; i < SIM_NLEVELS; i++)
				if (!strcasecmp(tok, spec_names[i]))
					which = i;
		}
		if (which < 0) {
			rc = cause_set(cause, EINVAL, "bad --cache '%s': expected LEVEL=SIZE"
				       "[:WAYS[:LINE]] with LEVEL L1I, L1D or LL, as "
				       "L1I=32K:8:64,LL=96M:16:64", spec);
			break;
		}
		char *why = NULL;
		rc = parse_level(eq + 1, &g->c[which], &why);
		if (rc) {
			cause_set(cause, -rc, "bad --cache %s: %s", spec_names[which],
				  why ? why : ERR_TEXT(-rc));
			free(why);
		}
		any = true;
	}
	if (!rc && !any)
		rc = cause_set(cause, EINVAL, "bad --cache '': expected LEVEL=SIZE[:WAYS[:LINE]]");
	free(copy);
	return rc;
}

int sim_geometry_read(struct sim_geometry *g, const char *root, const char *spec,
		      char **cause)
{
	memset(g, 0, sizeof(*g));
	/* valgrind's own defaults, where sysfs says nothing */
	g->c[SIM_I1] = (struct sim_cache){ 32768, 8, 64, 0, "default" };
	g->c[SIM_D1] = (struct sim_cache){ 32768, 8, 64, 0, "default" };
	g->c[SIM_LL] = (struct sim_cache){ 8u << 20, 16, 64, 0, "default" };
	from_sysfs(g, root ? root : "");
	if (spec) {
		int rc = parse_spec(g, spec, cause);
		if (rc)
			return rc;
	}
	for (int i = 0; i < SIM_NLEVELS; i++) {
		struct sim_cache *c = &g->c[i];
		if (sim_cache_fit(c))
			return cause_set(cause, EINVAL, "cannot simulate %s of %llu bytes, "
					 "%u-way, %u-byte lines: the size must be a "
					 "multiple of the line", level_names[i],
					 (unsigned long long)c->size, c->assoc, c->line);
	}
	return 0;
}

char *sim_geometry_text(const struct sim_geometry *g)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	if (!fp)
		return NULL;
	bool one_line = g->c[0].line == g->c[1].line && g->c[1].line == g->c[2].line;
	for (int i = 0; i < SIM_NLEVELS; i++) {
		const struct sim_cache *c = &g->c[i];
		char size[32];
		cache_size_format(c->size, size, sizeof(size));
		fprintf(fp, "%s%s %s %u-way", i ? ", " : "", level_names[i], size, c->assoc);
		if (!one_line)
			fprintf(fp, " %u B lines", c->line);
		if (c->sysfs_assoc)
			fprintf(fp, " (%u-way asked: valgrind needs a power-of-two set "
				"count)", c->sysfs_assoc);
		if (strcmp(c->from, "sysfs"))
			fprintf(fp, " (%s)", c->from);
	}
	if (one_line)
		fprintf(fp, "; %u B lines", g->c[0].line);
	if (fclose(fp)) {
		free(out);
		return NULL;
	}
	return out;
}

char **sim_argv(const struct sim_geometry *g, const char *valgrind, const char *dir,
		char *const *argv)
{
	size_t n = 0;
	while (argv[n])
		n++;
	char **v = calloc(n + 16, sizeof(*v));
	if (!v)
		return NULL;
	size_t k = 0;
	bool ok = true;
#define ADD(...) do { if (asprintf(&v[k++], __VA_ARGS__) < 0) { v[--k] = NULL; ok = false; } } while (0)
	ADD("%s", valgrind);
	ADD("--tool=callgrind");
	ADD("--cache-sim=yes");
	ADD("--branch-sim=yes");
	ADD("--separate-threads=yes");
	ADD("--trace-children=yes");
	/* JIT code written and run from anonymous memory */
	ADD("--smc-check=all-non-file");
	ADD("--callgrind-out-file=%s/cg.%%p", dir);
	ADD("--log-file=%s/vg.%%p.log", dir);
	for (int i = 0; i < SIM_NLEVELS; i++)
		ADD("--%s=%llu,%u,%u", i == SIM_I1 ? "I1" : i == SIM_D1 ? "D1" : "LL",
		    (unsigned long long)g->c[i].size, g->c[i].assoc, g->c[i].line);
	ADD("--");
	for (size_t i = 0; i < n; i++)
		ADD("%s", argv[i]);
#undef ADD
	if (!ok) {
		sim_argv_free(v);
		return NULL;
	}
	return v;
}

void sim_argv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

char *sim_valgrind_find(void)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *copy = strdup(path), *save = NULL;
	char *found = NULL;
	for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		char *p;
		if (asprintf(&p, "%s/valgrind", *d ? d : ".") < 0)
			break;
		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

/* The values of one line of numbers after its key, into v (at most n). */
static size_t numbers(const char *s, uint64_t *v, size_t n)
{
	size_t k = 0;
	while (k < n) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s < '0' || *s > '9')
			break;
		char *end;
		v[k++] = strtoull(s, &end, 10);
		s = end;
	}
	return k;
}

#define CG_MAX_EVENTS 32
#define CG_WANT 13

/* The callgrind events the model's counters are made of, in this order. */
static const char *const cg_want[CG_WANT] = { "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw",
					      "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi",
					      "Bim" };

/* Where each of cg_want is among the profile's "events:" names. */
static int events_at(char *const *names, size_t nnames, const char *path,
		     size_t at[CG_WANT], char **cause)
{
	for (size_t w = 0; w < CG_WANT; w++) {
		size_t i = 0;
		while (i < nnames && strcmp(names[i], cg_want[w]))
			i++;
		if (i == nnames)
			return cause_set(cause, EINVAL, "'%s' has no %s event: callgrind "
					 "was not run with --cache-sim=yes --branch-sim=yes",
					 path, cg_want[w]);
		at[w] = i;
	}
	return 0;
}

/* The model's counters from one line of callgrind's values (an event it
 * leaves out at the end of a line is 0); cycles estimated as
 * iai-callgrind does: L1 hits + 5 x LL hits + 35 x LL misses. */
static void sim_values(const uint64_t *vals, size_t nvals, const size_t at[CG_WANT],
		       uint64_t v[SIM_NEVENTS])
{
	uint64_t get[CG_WANT];
	for (size_t w = 0; w < CG_WANT; w++)
		get[w] = at[w] < nvals ? vals[at[w]] : 0;
	uint64_t l1m = get[3] + get[4] + get[5], llm = get[6] + get[7] + get[8];
	uint64_t access = get[0] + get[1] + get[2];
	v[SIM_INSTRUCTIONS] = get[0];
	v[SIM_L1I_MISSES] = get[3];
	v[SIM_L1D_MISSES] = get[4] + get[5];
	v[SIM_LLC_MISSES] = llm;
	v[SIM_BRANCH_MISSES] = get[10] + get[12];
	v[SIM_CYCLES] = (access - l1m) + 5 * (l1m - llm) + 35 * llm;
}

int sim_profile_read(const char *path, struct sim_thread *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	FILE *fp = fopen(path, "r");
	if (!fp)
		return cause_set(cause, errno, "cannot read '%s': %s", path, ERR_TEXT(errno));
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	char *names[CG_MAX_EVENTS] = { 0 };
	size_t nnames = 0;
	uint64_t vals[CG_MAX_EVENTS];
	size_t nvals = 0;
	bool summary = false, any = false, callgrind = false;
	while ((len = getline(&line, &cap, fp)) > 0) {
		any = true;
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "# callgrind format", 18) ||
		    !strncmp(line, "creator: callgrind", 18))
			callgrind = true;
		else if (!strncmp(line, "pid: ", 5))
			out->pid = (int32_t)strtol(line + 5, NULL, 10);
		else if (!strncmp(line, "cmd: ", 5)) {
			/* "cmd:  /path/prog args": the program's base name */
			char *c = line + 5;
			c += strspn(c, " ");
			size_t w = strcspn(c, " ");
			c[w] = '\0';
			const char *base = strrchr(c, '/') ? strrchr(c, '/') + 1 : c;
			snprintf(out->comm, sizeof(out->comm), "%.15s", base);
		} else if (!strncmp(line, "thread: ", 8))
			out->thread = (unsigned)strtoul(line + 8, NULL, 10);
		else if (!strncmp(line, "events: ", 8) && !nnames) {
			char *save = NULL;
			for (char *t = strtok_r(line + 8, " ", &save); t && nnames < CG_MAX_EVENTS;
			     t = strtok_r(NULL, " ", &save))
				names[nnames++] = strdup(t);
		} else if (!strncmp(line, "summary: ", 9)) {
			nvals = numbers(line + 9, vals, CG_MAX_EVENTS);
			summary = true;
		} else if (!strncmp(line, "totals: ", 8) && !summary) {
			nvals = numbers(line + 8, vals, CG_MAX_EVENTS);
		}
	}
	free(line);
	fclose(fp);
	int rc = 0;
	if (!any) {
		rc = -ENODATA;
		goto out;
	}
	if (!callgrind || !nnames) {
		rc = cause_set(cause, EINVAL, "'%s' is not a callgrind profile (no "
			       "format line or no events line)", path);
		goto out;
	}
	size_t at[CG_WANT];
	if ((rc = events_at(names, nnames, path, at, cause)))
		goto out;
	sim_values(vals, nvals, at, out->v);
out:
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	return rc;
}

static int by_pid_thread(const void *a, const void *b)
{
	const struct sim_thread *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

int sim_profiles_read(const char *dir, struct sim_thread **out, size_t *n,
		      char **version, char **cause)
{
	*out = NULL;
	*n = 0;
	if (version)
		*version = NULL;
	DIR *d = opendir(dir);
	if (!d)
		return cause_set(cause, errno, "cannot read '%s': %s", dir, ERR_TEXT(errno));
	size_t cap = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d)) && !rc) {
		if (strncmp(e->d_name, "cg.", 3))
			continue;
		char *path;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
			rc = -ENOMEM;
			break;
		}
		struct sim_thread t;
		int r = sim_profile_read(path, &t, cause);
		if (!r && version && !*version) {
			FILE *fp = fopen(path, "r");
			char buf[128];
			while (fp && fgets(buf, sizeof(buf), fp))
				if (!strncmp(buf, "creator: callgrind-", 19)) {
					*version = strndup(buf + 19, strcspn(buf + 19, "\n"));
					break;
				}
			if (fp)
				fclose(fp);
		}
		free(path);
		snprintf(t.file, sizeof(t.file), "%.63s", e->d_name);
		if (r == -ENODATA)
			continue;
		if (r) {
			rc = r;
			break;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			struct sim_thread *m = realloc(*out, cap * sizeof(**out));
			if (!m) {
				rc = -ENOMEM;
				break;
			}
			*out = m;
		}
		(*out)[(*n)++] = t;
	}
	closedir(d);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
		return rc;
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), by_pid_thread);
	return 0;
}

/* callgrind's name compression: "(id) name" defines id, "(id)" uses it;
 * a name without "(" is itself. One table per kind (objects, functions). */
struct names {
	char **v;
	size_t n;
};

static const char *name_of(struct names *t, const char *s)
{
	if (*s != '(')
		return s;
	char *end;
	unsigned long id = strtoul(s + 1, &end, 10);
	if (*end != ')' || id > 1u << 24)
		return s;
	const char *name = end[1] == ' ' ? end + 2 : NULL;
	if (id >= t->n) {
		char **v = realloc(t->v, (id + 1) * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + t->n, 0, (id + 1 - t->n) * sizeof(*v));
		t->v = v;
		t->n = id + 1;
	}
	/* The first definition stands: names handed out stay valid. */
	if (name && !t->v[id] && !(t->v[id] = strdup(name)))
		return NULL;
	return t->v[id] ? t->v[id] : "???";
}

/* The current object or function: a copy, as a name that is not
 * compressed lives in the line buffer that the next line overwrites.
 * false on ENOMEM. */
static bool set_name(char **cur, struct names *t, const char *s)
{
	const char *n = name_of(t, s);
	char *c = n ? strdup(n) : NULL;
	if (!c)
		return false;
	free(*cur);
	*cur = c;
	return true;
}

static void names_free(struct names *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
}

void sim_fns_free(struct sim_fn *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++) {
		free(f[i].object);
		free(f[i].name);
	}
	free(f);
}

/* The function (object, name) in *fns, added when new; NULL on ENOMEM. */
static struct sim_fn *fn_slot(struct sim_fn **fns, size_t *n, size_t *cap,
			      const char *object, const char *name)
{
	/* Profiles run from one function's lines to the next: the last one
	 * found is nearly always the one wanted. */
	for (size_t i = *n; i-- > 0;)
		if (!strcmp((*fns)[i].name, name) && !strcmp((*fns)[i].object, object))
			return &(*fns)[i];
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct sim_fn *m = realloc(*fns, c * sizeof(*m));
		if (!m)
			return NULL;
		*fns = m;
		*cap = c;
	}
	struct sim_fn *f = &(*fns)[*n];
	memset(f, 0, sizeof(*f));
	f->object = strdup(object);
	f->name = strdup(name);
	if (!f->object || !f->name) {
		free(f->object);
		free(f->name);
		return NULL;
	}
	(*n)++;
	return f;
}

int sim_profile_functions(const char *path, struct sim_fn **out, size_t *n,
			  char **cause)
{
	*out = NULL;
	*n = 0;
	FILE *fp = fopen(path, "r");
	if (!fp)
		return cause_set(cause, errno, "cannot read '%s': %s", path, ERR_TEXT(errno));
	struct names obs = { 0 }, fns = { 0 };
	char *names[CG_MAX_EVENTS] = { 0 };
	size_t nnames = 0, at[CG_WANT], cap = 0;
	char *ob = strdup("???"), *fn = NULL;
	bool have_at = false, skip_next = false, callgrind = false, oom = !ob;
	int rc = 0;
	char *line = NULL;
	size_t lcap = 0;
	while (!rc && !oom && getline(&line, &lcap, fp) > 0) {
		line[strcspn(line, "\n")] = '\0';
		char c = line[0];
		if (!strncmp(line, "# callgrind format", 18) ||
		    !strncmp(line, "creator: callgrind", 18)) {
			callgrind = true;
		} else if (!strncmp(line, "events: ", 8) && !nnames) {
			char *save = NULL;
			for (char *t = strtok_r(line + 8, " ", &save);
			     t && nnames < CG_MAX_EVENTS; t = strtok_r(NULL, " ", &save))
				names[nnames++] = strdup(t);
			rc = events_at(names, nnames, path, at, cause);
			have_at = !rc;
		} else if (!strncmp(line, "ob=", 3)) {
			oom = !set_name(&ob, &obs, line + 3);
		} else if (!strncmp(line, "cob=", 4)) {
			oom = !name_of(&obs, line + 4);	/* defines an id, changes nothing */
		} else if (!strncmp(line, "fn=", 3)) {
			oom = !set_name(&fn, &fns, line + 3);
		} else if (!strncmp(line, "cfn=", 4)) {
			oom = !name_of(&fns, line + 4);
		} else if (!strncmp(line, "calls=", 6)) {
			skip_next = true;	/* the call's inclusive cost follows */
		} else if (isdigit((unsigned char)c) || c == '+' || c == '-' || c == '*') {
			if (skip_next) {
				skip_next = false;
				continue;
			}
			if (!have_at || !fn)
				continue;
			/* the position first, then the costs */
			const char *s = line + strcspn(line, " \t");
			uint64_t vals[CG_MAX_EVENTS];
			size_t nv = numbers(s, vals, nnames);
			uint64_t v[SIM_NEVENTS];
			sim_values(vals, nv, at, v);
			struct sim_fn *f = fn_slot(out, n, &cap, ob, fn);
			if (!f) {
				rc = cause_set(cause, ENOMEM, "out of memory reading '%s'", path);
				break;
			}
			for (size_t i = 0; i < SIM_NEVENTS; i++)
				f->v[i] += v[i];
		}
	}
	if (oom && !rc)
		rc = cause_set(cause, ENOMEM, "out of memory reading '%s'", path);
	free(line);
	free(ob);
	free(fn);
	fclose(fp);
	if (!rc && (!have_at || !callgrind))
		rc = cause_set(cause, EINVAL, "'%s' is not a callgrind profile with the "
			       "cache and branch events", path);
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	names_free(&obs);
	names_free(&fns);
	if (rc) {
		sim_fns_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

char *sim_log_failure(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char *found = NULL;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (strncmp(e->d_name, "vg.", 3))
			continue;
		char *path;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			break;
		FILE *fp = fopen(path, "r");
		free(path);
		char *line = NULL;
		size_t cap = 0;
		while (fp && !found && getline(&line, &cap, fp) > 0) {
			line[strcspn(line, "\n")] = '\0';
			/* "valgrind: ..." is a fatal refusal; "==PID== ... unhandled
			 * instruction" and "Process terminating" say why it died */
			const char *m = strstr(line, "valgrind: ");
			if (m == line || strstr(line, "unhandled instruction") ||
			    strstr(line, "Process terminating with default action") ||
			    strstr(line, "Fatal error"))
				found = strdup(line);
		}
		free(line);
		if (fp)
			fclose(fp);
	}
	closedir(d);
	return found;
}
