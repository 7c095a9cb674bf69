/*
 * events: resolve event names to perf_event_attr with libpfm4, list what
 * this machine can encode, and suggest close names for typos.
 */
#include <linux/perf_event.h>	/* before libpfm4's copy of the same */
#include <ctype.h>
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events.h"

const char *const events_cache_set[] = {
	"LLC-load-misses", "iTLB-load-misses", "L1-icache-load-misses",
	"branch-misses", "instructions", "cycles",
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	NULL,
};

/*
 * The perf-style generic names libpfm4 encodes through its "perf" PMU.
 * Listed here because libpfm4 enumerates them under their long
 * PERF_COUNT_* names, and these are the names people type.
 */
static const char *const generic_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branch-instructions", "branches", "branch-misses", "bus-cycles",
	"stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
	"L1-dcache-loads", "L1-dcache-load-misses", "L1-dcache-stores",
	"L1-dcache-store-misses", "L1-dcache-prefetches",
	"L1-icache-loads", "L1-icache-load-misses",
	"LLC-loads", "LLC-load-misses", "LLC-stores", "LLC-store-misses",
	"LLC-prefetches",
	"dTLB-loads", "dTLB-load-misses", "dTLB-stores", "dTLB-store-misses",
	"iTLB-loads", "iTLB-load-misses",
	"branch-loads", "branch-load-misses",
	"node-loads", "node-load-misses", "node-stores", "node-store-misses",
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults",
	NULL,
};

static int pfm_state;	/* 0 not tried, 1 ready, -1 failed */

int events_init(char **cause)
{
	if (pfm_state == 1)
		return 0;
	int rc = pfm_initialize();
	if (rc != PFM_SUCCESS) {
		pfm_state = -1;
		if (cause && asprintf(cause, "cannot initialise libpfm4: %s",
				      pfm_strerror(rc)) < 0)
			*cause = NULL;
		return -EIO;
	}
	pfm_state = 1;
	return 0;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}

static bool type_is_hardware(unsigned type)
{
	return type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT &&
	       type != PERF_TYPE_BREAKPOINT;
}

const char *event_type_name(unsigned type)
{
	switch (type) {
	case PERF_TYPE_HARDWARE: return "hardware";
	case PERF_TYPE_SOFTWARE: return "software";
	case PERF_TYPE_TRACEPOINT: return "tracepoint";
	case PERF_TYPE_HW_CACHE: return "hw-cache";
	case PERF_TYPE_RAW: return "raw";
	case PERF_TYPE_BREAKPOINT: return "breakpoint";
	default: return "pmu";
	}
}

/*
 * Encode without the bookkeeping: 0 or a PFM_ERR_* code. The default
 * privilege levels include the hypervisor so that an unmodified name gets
 * the exclude bits perf gives it (perf stat -vv shows no exclude_hv for
 * LLC-load-misses; cycles:u gets exclude_kernel and exclude_hv).
 */
static int encode(const char *name, struct perf_event_attr *attr, char **fstr)
{
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	memset(attr, 0, sizeof(*attr));
	arg.size = sizeof(arg);
	arg.attr = attr;
	arg.fstr = fstr;
	return pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3 | PFM_PLMH,
					 PFM_OS_PERF_EVENT_EXT, &arg);
}

/* The unit masks of libpfm4 event idx, as event_info describes them. */
static char *umasks_of(int idx, bool *needs)
{
	pfm_event_info_t einfo;
	memset(&einfo, 0, sizeof(einfo));
	einfo.size = sizeof(einfo);
	*needs = false;
	if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS)
		return NULL;
	char *list = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&list, &len);
	if (!fp)
		return NULL;
	int n = 0, dfl = 0;
	for (int a = 0; a < einfo.nattrs; a++) {
		pfm_event_attr_info_t ainfo;
		memset(&ainfo, 0, sizeof(ainfo));
		ainfo.size = sizeof(ainfo);
		if (pfm_get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ainfo) !=
		    PFM_SUCCESS || ainfo.type != PFM_ATTR_UMASK)
			continue;
		fprintf(fp, "%s%s%s", n ? "," : "", ainfo.name, ainfo.is_dfl ? "*" : "");
		n++;
		dfl += ainfo.is_dfl != 0;
	}
	fclose(fp);
	if (!n) {
		free(list);
		return NULL;
	}
	*needs = dfl == 0;
	return list;
}

char *event_umasks(const char *name, bool *needs_umask)
{
	bool dummy;
	bool *needs = needs_umask ? needs_umask : &dummy;
	*needs = false;
	if (events_init(NULL)) {
		errno = EIO;
		return NULL;
	}
	/* libpfm4 finds an event by its name without modifiers. */
	char base[256];
	snprintf(base, sizeof(base), "%s", name);
	const char *sep = strstr(base, "::");
	char *colon = strchr(sep ? sep + 2 : base, ':');
	if (colon)
		*colon = '\0';
	int idx = pfm_find_event(base);
	if (idx < 0) {
		errno = ENOENT;
		return NULL;
	}
	char *s = umasks_of(idx, needs);
	if (!s)
		errno = ENOENT;
	return s;
}

int event_resolve(const char *name, struct event_desc *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	int rc = events_init(cause);
	if (rc)
		return rc;

	char *fstr = NULL;
	struct perf_event_attr attr;
	int prc = encode(name, &attr, &fstr);
	if (prc != PFM_SUCCESS) {
		free(fstr);
		char shown[64];
		snprintf(shown, sizeof(shown), "%.40s%s", name,
			 strlen(name) > 40 ? "..." : "");
		if (prc == PFM_ERR_NOTFOUND) {
			char *sugg[3];
			size_t ns = event_suggest(name, sugg, 3);
			size_t len = 0;
			char *msg = NULL;
			FILE *fp = open_memstream(&msg, &len);
			fprintf(fp, "unknown event '%s'", shown);
			for (size_t i = 0; i < ns; i++) {
				fprintf(fp, "\nhint: did you mean '%s'?", sugg[i]);
				free(sugg[i]);
			}
			fprintf(fp, "\nhint: 'prof events' lists the events this "
				"machine can encode");
			fclose(fp);
			if (cause)
				*cause = msg;
			else
				free(msg);
			return -ENOENT;
		}
		bool needs = false;
		char *um = prc == PFM_ERR_UMASK ? event_umasks(name, &needs) : NULL;
		if (cause && asprintf(cause, "cannot encode event '%s': %s%s%s%s",
				      shown, pfm_strerror(prc),
				      um ? "\nhint: its unit masks are " : "",
				      um ? um : "",
				      um ? " (name one as EVENT:UMASK; '*' marks "
					   "a default)" : "") < 0)
			*cause = NULL;
		free(um);
		return -EINVAL;
	}
	attr.size = sizeof(attr);
	out->name = xstrdup(name);
	out->canonical = fstr ? fstr : xstrdup(name);
	out->attr = attr;
	out->hardware = type_is_hardware(attr.type);
	return 0;
}

void event_desc_release(struct event_desc *ev)
{
	if (!ev)
		return;
	free(ev->name);
	free(ev->canonical);
	memset(ev, 0, sizeof(*ev));
}

void event_list_free(struct event_desc *evs, size_t n)
{
	for (size_t i = 0; evs && i < n; i++)
		event_desc_release(&evs[i]);
	free(evs);
}

static int add_event(struct event_desc **evs, size_t *n, size_t *cap,
		     const char *name, char **cause)
{
	for (size_t i = 0; i < *n; i++) {
		if (!strcmp((*evs)[i].name, name)) {
			if (cause && asprintf(cause, "event '%.40s' is listed twice",
					      name) < 0)
				*cause = NULL;
			return -EINVAL;
		}
	}
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		struct event_desc *p = realloc(*evs, *cap * sizeof(**evs));
		if (!p)
			return -ENOMEM;
		*evs = p;
	}
	int rc = event_resolve(name, &(*evs)[*n], cause);
	if (rc)
		return rc;
	(*n)++;
	return 0;
}

int event_list_parse(const char *spec, struct event_desc **out, size_t *n,
		     char **cause)
{
	struct event_desc *evs = NULL;
	size_t cnt = 0, cap = 0;
	int rc = 0;
	char *copy = xstrdup(spec ? spec : "cache");
	char *save = NULL;

	*out = NULL;
	*n = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		size_t len = strlen(tok);
		while (len && isspace((unsigned char)tok[len - 1]))
			tok[--len] = '\0';
		if (!*tok)
			continue;
		if (!strcmp(tok, "cache")) {
			for (size_t i = 0; events_cache_set[i] && !rc; i++)
				rc = add_event(&evs, &cnt, &cap, events_cache_set[i], cause);
		} else {
			rc = add_event(&evs, &cnt, &cap, tok, cause);
		}
		if (rc)
			break;
	}
	free(copy);
	if (!rc && cnt == 0) {
		if (cause && asprintf(cause, "no event named in '%.40s'",
				      spec ? spec : "") < 0)
			*cause = NULL;
		rc = -EINVAL;
	}
	if (rc) {
		event_list_free(evs, cnt);
		return rc;
	}
	*out = evs;
	*n = cnt;
	return 0;
}

/*
 * Case-insensitive edit distance weighted for typos, as git weighs its
 * "did you mean": inserting a character the user left out costs 1,
 * substituting 2, deleting one they typed extra 3. A dropped word
 * ("LLC-mises" for "LLC-load-misses") then stays close.
 */
static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64)
		la = 64;
	if (lb > 64)
		lb = 64;
	int row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;		/* insertions */
	for (size_t i = 1; i <= la; i++) {
		int prev = row[0];
		row[0] = (int)i * 3;		/* deletions */
		for (size_t j = 1; j <= lb; j++) {
			int cur = row[j];
			int same = tolower((unsigned char)a[i - 1]) ==
				   tolower((unsigned char)b[j - 1]);
			int best = prev + (same ? 0 : 2);
			if (row[j] + 3 < best)
				best = row[j] + 3;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

struct suggest_state {
	const char *want;
	char **best;
	int *dist;
	size_t max, n;
	int limit;
};

static int suggest_one(const struct event_info *info, void *arg)
{
	struct suggest_state *s = arg;
	/* A PMU event matches on its short name, which also resolves. */
	const char *cand = info->short_name ? info->short_name : info->name;
	int d = edit_distance(s->want, cand);
	if (d > s->limit)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (!strcasecmp(s->best[i], cand))
			return 0;
	size_t pos = s->n;
	while (pos > 0 && s->dist[pos - 1] > d)
		pos--;
	if (pos >= s->max)
		return 0;
	if (s->n == s->max) {
		free(s->best[s->max - 1]);
		s->n--;
	}
	memmove(&s->best[pos + 1], &s->best[pos], (s->n - pos) * sizeof(char *));
	memmove(&s->dist[pos + 1], &s->dist[pos], (s->n - pos) * sizeof(int));
	s->best[pos] = xstrdup(cand);
	s->dist[pos] = d;
	s->n++;
	return 0;
}

size_t event_suggest(const char *name, char **out, size_t max)
{
	if (max == 0 || events_init(NULL))
		return 0;
	int dist[16];
	if (max > 16)
		max = 16;
	/* Close: fewer weighted edits than the name has characters, and at
	 * most 12 (a long name should not match everything). */
	int limit = (int)strlen(name);
	if (limit > 12)
		limit = 12;
	if (limit < 2)
		limit = 2;
	struct suggest_state s = { name, out, dist, max, 0, limit };
	events_foreach(NULL, suggest_one, &s);
	return s.n;
}

static bool matches(const char *hay, const char *pattern)
{
	return !pattern || !*pattern || strcasestr(hay, pattern) != NULL;
}

int events_foreach(const char *pattern,
		   int (*fn)(const struct event_info *info, void *arg),
		   void *arg)
{
	if (events_init(NULL))
		return -EIO;

	for (size_t i = 0; generic_names[i]; i++) {
		struct perf_event_attr attr;
		char *fstr = NULL;
		if (encode(generic_names[i], &attr, &fstr) != PFM_SUCCESS) {
			free(fstr);
			continue;
		}
		free(fstr);
		if (!matches(generic_names[i], pattern))
			continue;
		struct event_info info = {
			.name = generic_names[i], .short_name = generic_names[i],
			.pmu = "perf", .desc = NULL,
			.hardware = type_is_hardware(attr.type),
		};
		int rc = fn(&info, arg);
		if (rc)
			return rc;
	}

	pfm_pmu_t pmu;
	pfm_for_all_pmus(pmu) {
		pfm_pmu_info_t pinfo;
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		/* The generic names above already cover libpfm4's perf PMUs. */
		if (!strcmp(pinfo.name, "perf") || !strcmp(pinfo.name, "perf_raw"))
			continue;
		for (int idx = pinfo.first_event; idx != -1;
		     idx = pfm_get_event_next(idx)) {
			pfm_event_info_t einfo;
			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) !=
			    PFM_SUCCESS)
				continue;
			char full[256];
			snprintf(full, sizeof(full), "%s::%s", pinfo.name, einfo.name);
			if (!matches(full, pattern))
				continue;
			bool needs = false;
			char *um = umasks_of(idx, &needs);
			struct event_info info = {
				.name = full, .pmu = pinfo.name, .desc = einfo.desc,
				.short_name = einfo.name,
				.hardware = true,
				.umasks = um, .needs_umask = needs,
			};
			int rc = fn(&info, arg);
			free(um);
			if (rc)
				return rc;
		}
	}
	return 0;
}
