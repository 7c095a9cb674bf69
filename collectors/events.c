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
#include <sys/stat.h>

#include "collectors/cpuid.h"
#include "collectors/events.h"
#include "common/dynlib.h"
#include "common/sysfile.h"
#include "common/xalloc.h"

/* libpfm4, loaded by events_init: the verbs that read no event name
 * (report, runs, compare, --help) never load it, nor relocate the 40,000
 * pointers of its event tables. */
static struct {
	DYNLIB_FN(pfm_initialize);
	DYNLIB_FN(pfm_strerror);
	DYNLIB_FN(pfm_get_pmu_info);
	DYNLIB_FN(pfm_get_event_info);
	DYNLIB_FN(pfm_get_event_attr_info);
	DYNLIB_FN(pfm_get_os_event_encoding);
	DYNLIB_FN(pfm_find_event);
	DYNLIB_FN(pfm_get_event_next);
} pf;
static const struct dynlib_sym pf_syms[] = {
	DYNLIB_SYM(pf, pfm_initialize),
	DYNLIB_SYM(pf, pfm_strerror),
	DYNLIB_SYM(pf, pfm_get_pmu_info),
	DYNLIB_SYM(pf, pfm_get_event_info),
	DYNLIB_SYM(pf, pfm_get_event_attr_info),
	DYNLIB_SYM(pf, pfm_get_os_event_encoding),
	DYNLIB_SYM(pf, pfm_find_event),
	DYNLIB_SYM(pf, pfm_get_event_next),
};
static struct dynlib libpfm = DYNLIB_INIT("libpfm.so.4", pf_syms);

const char *const events_cache_set[] = {
	"llc-misses", "itlb-misses", "l1i-misses", "branch-misses",
	"instructions", "cycles",
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

/* 0 not tried, 1 ready, -1 libpfm4 failed, -2 LIBPFM_FORCE_PMU names a
 * PMU libpfm4 does not know. */
static int pfm_state;


/* Whether libpfm4 has a PMU named exactly the first len bytes of name
 * active: LIBPFM_FORCE_PMU activates the one it names, whatever the CPU. */
static bool pmu_present(const char *name, size_t len)
{
	pfm_pmu_t pmu;
	pfm_for_all_pmus(pmu) {
		pfm_pmu_info_t pinfo;
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pf.pfm_get_pmu_info(pmu, &pinfo) == PFM_SUCCESS && pinfo.is_present &&
		    strlen(pinfo.name) == len && !strncmp(pinfo.name, name, len))
			return true;
	}
	return false;
}

/* "LIBPFM_FORCE_PMU names 'x'..." with up to three close core PMU names
 * this libpfm4 knows. */
static char *forced_pmu_cause(const char *forced, size_t len)
{
	const char *best[3] = { NULL, NULL, NULL };
	int dist[3] = { 0, 0, 0 };
	char want[64];
	snprintf(want, sizeof(want), "%.*s", (int)(len < 40 ? len : 40), forced);
	pfm_pmu_t pmu;
	pfm_for_all_pmus(pmu) {
		pfm_pmu_info_t pinfo;
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pf.pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS ||
		    pinfo.type != PFM_PMU_TYPE_CORE)
			continue;
		int d = event_edit_distance(want, pinfo.name);
		if (d > 12)
			continue;
		for (int i = 0; i < 3; i++) {
			if (best[i] && dist[i] <= d)
				continue;
			for (int j = 2; j > i; j--) {
				best[j] = best[j - 1];
				dist[j] = dist[j - 1];
			}
			best[i] = pinfo.name;
			dist[i] = d;
			break;
		}
	}
	char *msg = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&msg, &sz);
	if (!fp)
		return NULL;
	fprintf(fp, "LIBPFM_FORCE_PMU names '%s%s', a PMU this libpfm4 does not "
		"know", want, len > 40 ? "..." : "");
	for (int i = 0; i < 3 && best[i]; i++)
		fprintf(fp, "\nhint: did you mean '%s'?", best[i]);
	fprintf(fp, "\nhint: unset LIBPFM_FORCE_PMU to use the PMU libpfm4 "
		"detects on this processor");
	fclose(fp);
	return msg;
}

int events_init(char **cause)
{
	if (pfm_state == 1)
		return 0;
	if (pfm_state == 0) {
		if (dynlib_load(&libpfm, cause)) {
			if (cause && *cause) {
				char *c = *cause;
				if (asprintf(cause, "%s\nhint: prof encodes events with "
					     "libpfm4 (Debian and Ubuntu: apt-get install "
					     "libpfm4)", c) < 0)
					*cause = NULL;
				free(c);
			}
			return -EIO;
		}
		int rc = pf.pfm_initialize();
		if (rc != PFM_SUCCESS) {
			pfm_state = -1;
			if (cause && asprintf(cause, "cannot initialise libpfm4: %s",
					      pf.pfm_strerror(rc)) < 0)
				*cause = NULL;
			return -EIO;
		}
		/* libpfm4 takes the name up to a comma and, when it knows
		 * none such, quietly activates nothing at all. */
		const char *forced = getenv("LIBPFM_FORCE_PMU");
		size_t len = forced ? strcspn(forced, ",") : 0;
		pfm_state = len && !pmu_present(forced, len) ? -2 : 1;
	}
	if (pfm_state == -1) {
		if (cause)
			*cause = xstrdup("cannot initialise libpfm4");
		return -EIO;
	}
	if (pfm_state == -2) {
		const char *forced = getenv("LIBPFM_FORCE_PMU");
		if (cause)
			*cause = forced_pmu_cause(forced ? forced : "",
						  forced ? strcspn(forced, ",") : 0);
		return -EINVAL;
	}
	return 0;
}

const struct mission_family *events_mission_family(const char **pmu,
						   const char **desc)
{
	const char *first = NULL, *first_desc = NULL;
	const struct mission_family *fam = NULL;
	if (events_init(NULL) == 0) {
		pfm_pmu_t p;
		pfm_for_all_pmus(p) {
			pfm_pmu_info_t pinfo;
			memset(&pinfo, 0, sizeof(pinfo));
			pinfo.size = sizeof(pinfo);
			if (pf.pfm_get_pmu_info(p, &pinfo) != PFM_SUCCESS ||
			    !pinfo.is_present || pinfo.type != PFM_PMU_TYPE_CORE)
				continue;
			fam = mission_family_for_pmu(pinfo.name);
			/* ix86arch (the architectural events) is present on
			 * every Intel CPU next to the model's own PMU. */
			if (fam || !first || !strcmp(first, "ix86arch")) {
				first = pinfo.name;
				first_desc = pinfo.desc;
			}
			if (fam)
				break;
		}
	}
	/* No PMU of the map: the CPU's identity may name a family libpfm4
	 * cannot (a raw family), unless LIBPFM_FORCE_PMU made libpfm4 act
	 * as some other core PMU. Forced to "perf", it acts as none.
	 * PROF_CPUID_ROOT reads the identity below another root, as perf's
	 * PERF_CPUID pretends another CPU; the tests use it. */
	const char *forced = getenv("LIBPFM_FORCE_PMU");
	if (!fam && (!forced || !*forced || !first)) {
		struct cpuid id;
		if (cpuid_read(getenv("PROF_CPUID_ROOT"), &id) == 0)
			fam = mission_family_for_cpu(&id, NULL);
		if (fam) {
			first = id.hybrid && fam->sysfs_pmu ? fam->sysfs_pmu
							    : "cpu";
			first_desc = NULL;
		}
	}
	if (pmu)
		*pmu = first ? first : "none";
	if (desc)
		*desc = first_desc;
	return fam;
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

/* Whether libpfm4 event idx takes an :h modifier (its PMU knows the
 * hypervisor level). */
static bool has_hv_modifier(int idx)
{
	pfm_event_info_t einfo;
	memset(&einfo, 0, sizeof(einfo));
	einfo.size = sizeof(einfo);
	if (pf.pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS)
		return false;
	for (int a = 0; a < einfo.nattrs; a++) {
		pfm_event_attr_info_t ainfo;
		memset(&ainfo, 0, sizeof(ainfo));
		ainfo.size = sizeof(ainfo);
		if (pf.pfm_get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ainfo) ==
		    PFM_SUCCESS && ainfo.type == PFM_ATTR_MOD_BOOL && ainfo.name &&
		    !strcmp(ainfo.name, "h"))
			return true;
	}
	return false;
}

/*
 * Encode without the bookkeeping: 0 or a PFM_ERR_* code. The default
 * privilege levels include the hypervisor so that an unmodified name gets
 * the exclude bits perf gives it (perf stat -vv shows no exclude_hv for
 * LLC-load-misses; cycles:u gets exclude_kernel and exclude_hv).
 *
 * Where the PMU libpfm4 detected has no hypervisor level (its events take
 * no :h: Intel's here, against AMD's), libpfm4 leaves exclude_hv clear
 * whatever the modifiers, so cycles:u opened one attr on an Intel machine
 * and another on an AMD one. As perf does, :u or :k excludes the
 * hypervisor too, on every machine.
 */
static int encode(const char *name, struct perf_event_attr *attr, char **fstr)
{
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	memset(attr, 0, sizeof(*attr));
	arg.size = sizeof(arg);
	arg.attr = attr;
	arg.fstr = fstr;
	int rc = pf.pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3 | PFM_PLMH,
					      PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc == PFM_SUCCESS && (attr->exclude_user || attr->exclude_kernel) &&
	    !attr->exclude_hv && !has_hv_modifier(arg.idx))
		attr->exclude_hv = 1;
	return rc;
}

/* The unit masks of libpfm4 event idx, as event_info describes them. */
static char *umasks_of(int idx, bool *needs)
{
	pfm_event_info_t einfo;
	memset(&einfo, 0, sizeof(einfo));
	einfo.size = sizeof(einfo);
	*needs = false;
	if (pf.pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS)
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
		if (pf.pfm_get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ainfo) !=
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
	int idx = pf.pfm_find_event(base);
	if (idx < 0) {
		errno = ENOENT;
		return NULL;
	}
	char *s = umasks_of(idx, needs);
	if (!s)
		errno = ENOENT;
	return s;
}

/* "llc-misses" at most 40 characters of a name, for messages. */
static const char *shown_name(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%.40s%s", name, strlen(name) > 40 ? "..." : "");
	return buf;
}

/*
 * A raw family's entry: PERF_TYPE_RAW with the entry's config. The
 * modifiers go through libpfm4 on perf::cycles, whose encoding this
 * path always has, so that ":u" and the rest set what they set for every
 * other name and a bad one is refused the same way.
 */
static int resolve_raw(const char *name, const char *pmu,
		       const struct mission_family *fam,
		       const struct mission_event *me, const char *mods,
		       struct event_desc *out, char **cause)
{
	char probe[256], shown[64];
	snprintf(probe, sizeof(probe), "perf::cycles%.200s", mods);
	char *fstr = NULL;
	struct perf_event_attr attr;
	int prc = encode(probe, &attr, &fstr);
	free(fstr);
	if (prc != PFM_SUCCESS) {
		if (cause && asprintf(cause, "cannot encode '%s' as %s%.40s: %s",
				      shown_name(name, shown, sizeof(shown)),
				      me->event, mods, pf.pfm_strerror(prc)) < 0)
			*cause = NULL;
		return -EINVAL;
	}
	attr.type = PERF_TYPE_RAW;
	attr.config = me->raw;
	attr.config1 = 0;
	attr.config2 = 0;
	attr.size = sizeof(attr);
	out->canonical = xasprintf("%s::%s%.200s", pmu, me->event, mods);
	out->name = xstrdup(name);
	out->attr = attr;
	out->hardware = true;
	out->mission = me;
	out->family = fam;
	return 0;
}

/*
 * A mission name (base, before any ":modifier" in mods): the mission map's
 * event for this machine's family, or perf's generic stand-in where the
 * family has no table and that is allowed.
 */
static int resolve_mission(const char *name, int idx, const char *mods,
			   enum event_flags flags, struct event_desc *out,
			   char **cause)
{
	char shown[64];
	const char *pmu = NULL, *pdesc = NULL;
	const struct mission_family *fam = events_mission_family(&pmu, &pdesc);
	const struct mission_event *me;
	char full[512];
	if (fam && fam->raw) {
		me = &fam->events[idx];
		return resolve_raw(name, pmu, fam, me, mods, out, cause);
	} else if (fam) {
		me = &fam->events[idx];
		snprintf(full, sizeof(full), "%s::%s%s", pmu, me->event, mods);
	} else {
		fam = mission_generic();
		me = &fam->events[idx];
		if (me->needs_consent && !(flags & EVENT_ALLOW_GENERIC)) {
			if (cause && asprintf(cause,
				"no mission map for '%s' on this processor: libpfm4 "
				"detected %s%s%s%s\n"
				"hint: --allow-generic counts perf's generic "
				"stand-ins instead (LLC-load-misses and the like), "
				"whose meaning the kernel's table for this model "
				"decides\n"
				"hint: 'prof events --mission' shows the map; -e "
				"names any event 'prof events' lists",
				shown_name(name, shown, sizeof(shown)),
				strcmp(pmu, "none") ? pmu : "no core PMU",
				pdesc ? " (" : "", pdesc ? pdesc : "",
				pdesc ? ")" : "") < 0)
				*cause = NULL;
			return -EOPNOTSUPP;
		}
		snprintf(full, sizeof(full), "%s%s", me->event, mods);
	}
	char *fstr = NULL;
	struct perf_event_attr attr;
	int prc = encode(full, &attr, &fstr);
	if (prc != PFM_SUCCESS) {
		free(fstr);
		if (cause && asprintf(cause, "cannot encode '%s' as %s: %s",
				      shown_name(name, shown, sizeof(shown)), full,
				      pf.pfm_strerror(prc)) < 0)
			*cause = NULL;
		return -EINVAL;
	}
	attr.size = sizeof(attr);
	out->name = xstrdup(name);
	out->canonical = fstr ? fstr : xstrdup(full);
	out->attr = attr;
	out->hardware = type_is_hardware(attr.type);
	out->mission = me;
	out->family = fam;
	return 0;
}

/* SYS:NAME, both words of [A-Za-z0-9_]. */
static bool tracepoint_form(const char *name, size_t *syslen)
{
	static const char word[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_";
	size_t a = strspn(name, word);
	if (!a || name[a] != ':')
		return false;
	size_t b = strspn(name + a + 1, word);
	*syslen = a;
	return b && !name[a + 1 + b];
}

static long read_id(const char *root, const char *name, size_t syslen)
{
	char path[4400], dir[4096], sys[64], buf[32];
	snprintf(dir, sizeof(dir), "%.3000s/events", root);
	struct stat sb;
	if (stat(dir, &sb) != 0)
		return -ENODEV;
	if (syslen >= sizeof(sys) || strlen(name + syslen + 1) >= 128)
		return -ENOENT;
	memcpy(sys, name, syslen);
	sys[syslen] = '\0';
	snprintf(path, sizeof(path), "%s/%s/%.127s/id", dir, sys, name + syslen + 1);
	long id = sysfile_line(path, buf, sizeof(buf)) == 0 ? strtol(buf, NULL, 10) : -1;
	return id > 0 ? id : -ENOENT;
}

long event_tracepoint_id(const char *root, const char *name)
{
	size_t syslen;
	if (!tracepoint_form(name, &syslen))
		return -EINVAL;
	if (root)
		return read_id(root, name, syslen);
	long id = read_id("/sys/kernel/tracing", name, syslen);
	if (id == -ENODEV)
		id = read_id("/sys/kernel/debug/tracing", name, syslen);
	return id;
}

/* A tracepoint as a counting event: PERF_TYPE_TRACEPOINT, config = id. */
static void tracepoint_desc(const char *name, long id, struct event_desc *out)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = (uint64_t)id;
	out->name = xstrdup(name);
	char canon[128];
	snprintf(canon, sizeof(canon), "tracepoint:%s", name);
	out->canonical = xstrdup(canon);
	out->attr = attr;
	out->hardware = false;
}

/*
 * perf's software events by the names libpfm4 4.13 knows them, each with
 * what libpfm4 encodes it to (type, config, exclude_guest, and its fully
 * qualified form), resolved here so that a run counting only these does
 * not load and initialise libpfm4: 1.7 ms, 15% of such a `prof run -q --
 * true` on the 2-CPU AMD VM (2026-12-07). Under LIBPFM_FORCE_PMU libpfm4
 * decides, as before (it then knows no perf:: event). test_events checks
 * every entry against libpfm4's own encoding.
 */
static const struct software_name {
	const char *name, *pfm;
	uint64_t config;
} software_names[] = {
	{ "cpu-clock", "CPU_CLOCK", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", "TASK_CLOCK", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", "PAGE_FAULTS", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", "PAGE_FAULTS", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", "CONTEXT_SWITCHES", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", "CONTEXT_SWITCHES", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "CPU_MIGRATIONS", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", "CPU_MIGRATIONS", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", "PAGE_FAULTS_MIN", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", "PAGE_FAULTS_MAJ", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "cgroup-switches", "CGROUP_SWITCHES", 11 },	/* Linux 5.13 */
};

size_t events_software_names(const char **names, size_t max)
{
	size_t n = sizeof(software_names) / sizeof(software_names[0]);
	for (size_t i = 0; i < n && i < max; i++)
		names[i] = software_names[i].name;
	return n;
}

static bool resolve_software(const char *name, struct event_desc *out)
{
	if (getenv("LIBPFM_FORCE_PMU"))
		return false;
	for (size_t i = 0; i < sizeof(software_names) / sizeof(software_names[0]); i++) {
		const struct software_name *s = &software_names[i];
		if (strcmp(name, s->name))
			continue;
		out->attr.type = PERF_TYPE_SOFTWARE;
		out->attr.size = sizeof(out->attr);
		out->attr.config = s->config;
		out->attr.exclude_guest = 1;
		out->name = xstrdup(name);
		if (asprintf(&out->canonical, "perf::PERF_COUNT_SW_%s:u=1:k=1:excl=0:"
			     "mg=0:mh=1", s->pfm) < 0)
			out->canonical = xstrdup(name);
		return true;
	}
	return false;
}

int event_resolve(const char *name, enum event_flags flags,
		  struct event_desc *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	if (!(flags & EVENT_VIA_LIBPFM) && resolve_software(name, out))
		return 0;
	int rc = events_init(cause);
	if (rc)
		return rc;

	char base[64];
	size_t blen = strcspn(name, ":");
	if (blen < sizeof(base)) {
		memcpy(base, name, blen);
		base[blen] = '\0';
		int idx = mission_index(base);
		if (idx >= 0)
			return resolve_mission(name, idx, name + blen, flags, out,
					       cause);
	}

	/* SYS:NAME is a tracepoint when tracefs has one by that name (an
	 * EVENT:UMASK of libpfm4 has none); else libpfm4 has a go at it. */
	long tp = event_tracepoint_id(NULL, name);
	if (tp > 0) {
		tracepoint_desc(name, tp, out);
		return 0;
	}
	char *fstr = NULL;
	struct perf_event_attr attr;
	int prc = encode(name, &attr, &fstr);
	if (prc != PFM_SUCCESS) {
		free(fstr);
		if (prc == PFM_ERR_NOTFOUND && tp == -ENODEV) {
			if (cause && asprintf(cause, "unknown event '%.40s', and no "
					      "tracefs is mounted to look for a "
					      "tracepoint of that name\nhint: as root, "
					      "'mount -t tracefs nodev /sys/kernel/tracing'",
					      name) < 0)
				*cause = NULL;
			return -ENOENT;
		}
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
				      shown, pf.pfm_strerror(prc),
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
	free(ev->refused);
	memset(ev, 0, sizeof(*ev));
}

void event_list_free(struct event_desc *evs, size_t n)
{
	for (size_t i = 0; evs && i < n; i++)
		event_desc_release(&evs[i]);
	free(evs);
}

static int add_event(struct event_desc **evs, size_t *n, size_t *cap,
		     const char *name, enum event_flags flags, char **cause)
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
	int rc = event_resolve(name, flags, &(*evs)[*n], cause);
	if (rc == -EOPNOTSUPP && (flags & EVENT_IN_DEFAULT_SET)) {
		/* The default set goes on without it, and says why. */
		struct event_desc *e = &(*evs)[*n];
		memset(e, 0, sizeof(*e));
		e->name = xstrdup(name);
		e->hardware = true;
		e->refused = cause && *cause ? *cause : xstrdup("no mission map here");
		if (cause)
			*cause = NULL;
		rc = 0;
	}
	if (rc)
		return rc;
	(*n)++;
	return 0;
}

int event_list_parse(const char *spec, enum event_flags flags,
		     struct event_desc **out, size_t *n, char **cause)
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
				rc = add_event(&evs, &cnt, &cap, events_cache_set[i],
					       flags | EVENT_IN_DEFAULT_SET, cause);
		} else {
			rc = add_event(&evs, &cnt, &cap, tok, flags, cause);
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
int event_edit_distance(const char *a, const char *b)
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
	int d = event_edit_distance(s->want, cand);
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

	const char *core = NULL;
	const struct mission_family *fam = events_mission_family(&core, NULL);
	for (int i = 0; i < MISSION_COUNT; i++) {
		if (!matches(mission_names[i], pattern))
			continue;
		const struct mission_event *me = fam ? &fam->events[i]
					       : &mission_generic()->events[i];
		char desc[512];
		if (fam)
			snprintf(desc, sizeof(desc), "%s", me->summary);
		else if (me->needs_consent)
			snprintf(desc, sizeof(desc), "needs --allow-generic: no "
				 "mission map for %s", core);
		else
			snprintf(desc, sizeof(desc), "perf's %s: no mission map for %s",
				 me->perf_name, core);
		struct event_info info = {
			.name = mission_names[i], .short_name = mission_names[i],
			.pmu = "prof", .desc = desc, .hardware = true,
		};
		int rc = fn(&info, arg);
		if (rc)
			return rc;
	}

	for (size_t i = 0; generic_names[i]; i++) {
		struct perf_event_attr attr;
		char *fstr = NULL;
		if (encode(generic_names[i], &attr, &fstr) != PFM_SUCCESS) {
			free(fstr);
			continue;
		}
		free(fstr);
		/* "cycles" is prof's mission name; perf's is perf::cycles */
		char qualified[64];
		const char *shown = generic_names[i];
		if (mission_index(shown) >= 0) {
			snprintf(qualified, sizeof(qualified), "perf::%s", shown);
			shown = qualified;
		}
		if (!matches(shown, pattern))
			continue;
		struct event_info info = {
			.name = shown, .short_name = shown,
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
		if (pf.pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		/* The generic names above already cover libpfm4's perf PMUs. */
		if (!strcmp(pinfo.name, "perf") || !strcmp(pinfo.name, "perf_raw"))
			continue;
		for (int idx = pinfo.first_event; idx != -1;
		     idx = pf.pfm_get_event_next(idx)) {
			pfm_event_info_t einfo;
			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pf.pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) !=
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
