/*
 * abstat (reports): the analysis half of an A/B experiment: the metrics a
 * run yields, which runs count, each arm's summary per metric and, against
 * the baseline, the paired statistics and verdict. No printing; ab.c turns
 * the struct ab_analysis built here into tables. See abstat.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "reports/abstat.h"

enum msrc { M_WALL, M_CPU, M_CORES, M_USER, M_SYS, M_EVENT, M_PKI, M_PER_CPU_MS, M_IPC, M_SCORE,
	    M_PER, M_PER_RATE, M_MACHINE, M_MACHINE_SUM };

/* Where a metric's value comes from in a run. */
struct msource {
	enum msrc kind;
	char *key;		/* event or score name */
	const struct ab_machine_key *machine;	/* M_MACHINE */
};

static double event_of(const struct db_exp_run *r, const char *name, bool *supported)
{
	for (size_t i = 0; i < r->nevents; i++) {
		if (!strcmp(r->ev_names[i], name)) {
			if (supported)
				*supported = r->ev_supported[i];
			return r->ev_values[i];
		}
	}
	if (supported)
		*supported = false;
	return NAN;
}

static double score_of(const struct db_exp_run *r, const char *name)
{
	for (size_t i = 0; i < r->nscores; i++)
		if (!strcmp(r->scores[i].name, name))
			return r->scores[i].found ? r->scores[i].value : NAN;
	return NAN;
}

/*
 * A machine delta of the run: NAN when the run has none stored (it
 * predates them), 0 when the counter did not move (only moved ones are
 * stored). With sum, the total over names "PREFIX*SUFFIX" (key holds
 * "PREFIX|SUFFIX").
 */
const struct ab_machine_key ab_machine_keys[] = {
	{ "vmstat.pgfault", "system.vmstat.pgfault", "count", false },
	{ "vmstat.pgmajfault", "system.vmstat.pgmajfault", "count", false },
	{ "vmstat.numa_pages_migrated", "system.vmstat.numa_pages_migrated", "count",
	  false },
	{ "vmstat.pgmigrate_success", "system.vmstat.pgmigrate_success", "count", false },
	{ "stat.ctxt", "system.stat.ctxt", "count", false },
	{ "stat.processes", "system.stat.processes", "count", false },
	{ "stat.cpu.user_ms", "system.stat.cpu.user_ms", "ms", false },
	{ "stat.cpu.system_ms", "system.stat.cpu.system_ms", "ms", false },
	{ "stat.cpu.irq_ms", "system.stat.cpu.irq_ms", "ms", false },
	{ "stat.cpu.softirq_ms", "system.stat.cpu.softirq_ms", "ms", false },
	{ "stat.cpu.steal_ms", "system.stat.cpu.steal_ms", "ms", false },
	{ "interrupts.total", "system.interrupts.total", "count", false },
	{ "schedstat.|.wait_ns", "system.schedstat.wait_ns", "ns", true },
};
const size_t ab_nmachine_keys = sizeof(ab_machine_keys) / sizeof(ab_machine_keys[0]);

double ab_machine_value(const struct db_sysval *v, size_t n, const struct ab_machine_key *k)
{
	if (!n)
		return NAN;
	const char *bar = k->sum ? strchr(k->key, '|') : NULL;
	if (!bar) {
		int64_t d;
		db_sysval_get(v, n, k->key, &d);
		return (double)d;
	}
	size_t plen = (size_t)(bar - k->key), slen = strlen(bar + 1);
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = v[i].name;
		size_t len = strlen(name);
		if (len > plen + slen && !strncmp(name, k->key, plen) &&
		    !strcmp(name + len - slen, bar + 1))
			sum += (double)v[i].delta;
	}
	return sum;
}

/*
 * A run's CPU time and the span it was spent in. Counted with --window
 * (prof/collect_window.c), the window's: the run cgroup's user and system
 * time between its edges over the window's length (cut where the command
 * ended inside it), as its counters are; a window of frames, its
 * task-clock (window_cpu_s). A run that should have had a
 * window and has none, or whose window CPU time was not read, has no
 * value: the whole run's would be compared as the window's.
 */
struct run_time {
	double user_s, sys_s, cpu_s, span_s;
	bool whole;		/* its counters are the whole run's: no window */
};

static double kv_num(const struct db_exp_run *r, struct db_setting_f64 key)
{
	const char *v = db_exp_run_setting(r, key);
	char *end;
	double d = v ? strtod(v, &end) : NAN;
	return v && end != v ? d : NAN;
}

static struct run_time run_time_of(const struct db_exp_run *r)
{
	const char *w = db_exp_run_setting(r, SET_WINDOW);
	struct run_time t = { r->user_s, r->sys_s, r->user_s + r->sys_s, r->wall_s, true };
	if (!w)
		return t;
	t.whole = false;
	t.user_s = kv_num(r, SET_WINDOW_USER_S);
	t.sys_s = kv_num(r, SET_WINDOW_SYS_S);
	t.span_s = kv_num(r, SET_WINDOW_END_S) - kv_num(r, SET_WINDOW_START_S);
	/* A window of frames knows its CPU time from task-clock alone
	 * (prof/collect_frames.c): no user and system apart. */
	t.cpu_s = isnan(t.user_s) ? kv_num(r, SET_WINDOW_CPU_S) : t.user_s + t.sys_s;
	return t;
}

static double value_of(const struct db_exp_run *r, const struct msource *m)
{
	struct run_time t = run_time_of(r);
	double cpu = t.cpu_s;
	/* "not reached" or "not kept": nothing of it is the window's */
	if (!t.whole && !(t.span_s > 0) && m->kind != M_WALL)
		return NAN;
	switch (m->kind) {
	case M_WALL:
		return r->wall_s;
	case M_CPU:
		return cpu;
	case M_CORES:
		return t.span_s > 0 ? cpu / t.span_s : NAN;
	case M_USER:
		return t.user_s;
	case M_SYS:
		return t.sys_s;
	case M_EVENT:
		return event_of(r, m->key, NULL);
	case M_PKI: {
		double ins = event_of(r, "instructions", NULL);
		double v = event_of(r, m->key, NULL);
		return ins > 0 ? 1000.0 * v / ins : NAN;
	}
	case M_PER_CPU_MS: {
		double v = event_of(r, m->key, NULL);
		return cpu > 0 ? v / (cpu * 1000.0) : NAN;
	}
	case M_IPC: {
		double ins = event_of(r, "instructions", NULL);
		double cyc = event_of(r, "cycles", NULL);
		return cyc > 0 ? ins / cyc : NAN;
	}
	case M_SCORE:
		return score_of(r, m->key);
	case M_PER: {
		double s = score_of(r, m->key);
		return s > 0 ? 1000.0 * cpu / s : NAN;
	}
	case M_PER_RATE: {
		/* units done = rate x the run's wall time */
		double s = score_of(r, m->key) * r->wall_s;
		return s > 0 ? 1000.0 * cpu / s : NAN;
	}
	case M_MACHINE:
		return ab_machine_value(r->system, r->nsystem, m->machine);
	case M_MACHINE_SUM:
		return ab_machine_value(r->system, r->nsystem, m->machine);
	}
	return NAN;
}

static bool ends_with(const char *s, size_t n, const char *tail)
{
	size_t k = strlen(tail);
	return n >= k && !strncasecmp(s + n - k, tail, k);
}

static const char *const agg_words[AB_AGG_N] = {
	[AB_AGG_LAST] = "", [AB_AGG_P99] = ":p99", [AB_AGG_P50] = ":p50",
	[AB_AGG_MEAN] = ":mean", [AB_AGG_MAX] = ":max", [AB_AGG_MATCHES] = ":matches",
};

const char *ab_score_agg_word(enum ab_score_agg agg)
{
	return agg < AB_AGG_N ? agg_words[agg] : "";
}

/* The word of words[] that spec[0..n) ends with, after something: its
 * index, or -1. */
static int tail_word(const char *spec, size_t n, const char *const *words,
		     size_t nwords)
{
	for (size_t i = 0; i < nwords; i++) {
		size_t k = strlen(words[i]);
		if (k && n > k + 1 && !strncmp(spec + n - k, words[i], k))
			return (int)i;
	}
	return -1;
}

void ab_score_flags_of(const char *spec, size_t *end, struct ab_score_flags *f)
{
	static const char *const words[] = { ":higher", ":lower", ":rate", ":count" };
	size_t n = strlen(spec);
	memset(f, 0, sizeof(*f));
	for (;;) {
		int w = tail_word(spec, n, words, 4);
		if (w >= 0) {
			n -= strlen(words[w]);
			f->higher_is_better |= w == 0;
			f->rate |= w == 2;
			f->count |= w == 3;
			continue;
		}
		w = tail_word(spec, n, agg_words, AB_AGG_N);
		if (w < 0)
			break;
		n -= strlen(agg_words[w]);
		/* read from the end: the first word written is the one kept */
		f->agg = (enum ab_score_agg)w;
		f->naggs++;
	}
	if (end)
		*end = n;
}

bool ab_score_is_rate(const char *name, const struct ab_score_flags *f)
{
	if (f && f->agg == AB_AGG_MATCHES)
		return false;
	if (f && (f->rate || f->count))
		return f->rate;
	size_t n = strlen(name);
	/* "fps:mean" is a rate as "fps" is */
	int w = tail_word(name, n, agg_words, AB_AGG_N);
	if (w >= 0)
		n -= strlen(agg_words[w]);
	return ends_with(name, n, "ps") || ends_with(name, n, "per_s") ||
	       ends_with(name, n, "per_sec") || ends_with(name, n, "per_second") ||
	       ends_with(name, n, "_hz") || (n == 2 && !strncasecmp(name, "hz", 2));
}

/* Ended by the experiment's --timeout: where it was asked to end, so its
 * status (SIGTERM's) is no failure. */
static bool ended_by_timeout(const struct db_exp_run *r)
{
	return db_exp_run_setting(r, SET_TIMED_OUT) != NULL;
}

bool ab_run_counts(const struct db_exp_run *r)
{
	return !r->warmup && (r->exit_status == 0 || ended_by_timeout(r)) &&
	       !r->interrupted;
}

/* Append a formatted warning to a list that an analysis owns; one that
 * cannot be formatted is dropped, as a warning is not worth failing for. */
static void warnings_addv(char ***list, size_t *n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void warnings_addv(char ***list, size_t *n, const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		return;
	char **v = realloc(*list, (*n + 1) * sizeof(char *));
	if (!v)
		xalloc_die();
	*list = v;
	v[(*n)++] = s;
}

static void warn(struct ab_analysis *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct ab_analysis *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	warnings_addv(&a->warnings, &a->nwarnings, fmt, ap);
	va_end(ap);
}

static bool is_miss_event(const char *name)
{
	return strcasestr(name, "miss") != NULL;
}

/* The score definitions kept in the experiment's settings: "NAME=RE[:higher]". */
static void add_metric(struct ab_metric **ms, struct msource **src, size_t *n,
		       const char *name, enum msrc kind, const char *key,
		       bool higher, bool supported, const char *unit)
{
	*ms = realloc(*ms, (*n + 1) * sizeof(**ms));
	*src = realloc(*src, (*n + 1) * sizeof(**src));
	if (!*ms || !*src)
		xalloc_die();
	struct ab_metric *m = &(*ms)[*n];
	memset(m, 0, sizeof(*m));
	m->name = strdup(name);
	m->higher_is_better = higher;
	m->supported = supported;
	m->unit = strdup(unit);
	m->aa_sd_pct = m->aa_gate_pct = NAN;
	(*src)[*n].kind = kind;
	(*src)[*n].key = key ? strdup(key) : NULL;
	(*src)[*n].machine = NULL;
	(*n)++;
}

/* Whether event `name` is one the experiment simulated (its setting
 * "simulated": the names, comma-separated). */
static bool simulated(const struct db_experiment *e, const char *name)
{
	const char *list = db_kv_get(e->settings, e->nsettings, "simulated");
	size_t len = strlen(name);
	for (const char *p = list; p && *p;) {
		size_t w = strcspn(p, ",");
		if (w == len && !strncmp(p, name, len))
			return true;
		p += w + (p[w] == ',');
	}
	return false;
}

/* The flags of score `name` as the experiment stored it; false if none. */
static bool score_flags(const struct db_experiment *e, const char *name,
			struct ab_score_flags *f)
{
	size_t len = strlen(name);
	for (size_t i = 0; i < e->nsettings; i++) {
		const char *v = e->settings[i].value;
		if (strcmp(e->settings[i].key, "score") || !v)
			continue;
		if (!strncmp(v, name, len) && v[len] == '=') {
			ab_score_flags_of(v, NULL, f);
			return true;
		}
	}
	memset(f, 0, sizeof(*f));
	return false;
}

/*
 * CPU ms per unit: "per" is COUNT (a score that counts units) or
 * UNIT=RATE (units = rate x wall time). A bare rate is refused: CPU ms
 * divided by frames per second is not CPU per frame. Refusals go to
 * *refused (a line each) for the caller to warn about.
 */
static void add_per(const struct db_experiment *e, const char *per,
		    struct ab_metric **ms, struct msource **src, size_t *n,
		    char **refused)
{
	const char *eq = strchr(per, '=');
	const char *score = eq ? eq + 1 : per;
	struct ab_score_flags f;
	bool known = score_flags(e, score, &f);
	bool rate = ab_score_is_rate(score, known ? &f : NULL);
	char name[160];
	if (!eq && rate) {
		char *s = NULL;
		if (asprintf(&s, "%s%s'--per %s' left out: %s is a rate (per second), and "
			     "CPU time divided by a rate is no cost per unit; --per "
			     "UNIT=%s counts units as %s x the run's wall time",
			     *refused ? *refused : "", *refused ? "\n" : "", per, per,
			     per, per) >= 0) {
			free(*refused);
			*refused = s;
		}
		return;
	}
	snprintf(name, sizeof(name), "cpu_ms_per_%.*s", eq ? (int)(eq - per) : 120, per);
	add_metric(ms, src, n, name, eq && rate ? M_PER_RATE : M_PER, score, false,
		   true, "ms");
}

/*
 * The machine's deltas worth comparing between arms: those `prof report
 * --system` shows first (reports/sysenv.c), each "system.NAME", lower
 * is better (a change that makes the machine fault, switch or wait more
 * is a cost even when the workload's own time hides it). A name joins
 * the list when it moved in some run; runs without deltas stored give
 * no value, so old experiments show none of these.
 */
static void add_machine(const struct db_experiment *e, struct ab_metric **ms,
			struct msource **src, size_t *n)
{
	for (size_t w = 0; w < ab_nmachine_keys; w++) {
		const struct ab_machine_key *k = &ab_machine_keys[w];
		bool moved = false;
		for (size_t i = 0; i < e->nruns && !moved; i++) {
			double v = ab_machine_value(e->runs[i].system, e->runs[i].nsystem, k);
			moved = isfinite(v) && v != 0;
		}
		if (!moved)
			continue;
		add_metric(ms, src, n, k->name, k->sum ? M_MACHINE_SUM : M_MACHINE,
			   k->key, false, true, k->unit);
		(*src)[*n - 1].machine = k;
	}
}

static size_t build_metrics(const struct db_experiment *e, struct ab_metric **ms,
			    struct msource **src, char **refused)
{
	size_t n = 0;
	*ms = NULL;
	*src = NULL;
	add_metric(ms, src, &n, "wall_s", M_WALL, NULL, false, true, "s");
	add_metric(ms, src, &n, "cpu_s", M_CPU, NULL, false, true, "s");
	add_metric(ms, src, &n, "cores", M_CORES, NULL, false, true, "cores");
	/* From wait4, as cpu_s is their sum: a change in system time alone
	 * (the FreeBSD icache note's 0.75%) hides inside cpu_s. A window of
	 * frames has its CPU time from task-clock alone: no split to show. */
	const char *win = db_kv_get(e->settings, e->nsettings, "window");
	if (!win || strncmp(win, "frame:", 6)) {
		add_metric(ms, src, &n, "user_s", M_USER, NULL, false, true, "s");
		add_metric(ms, src, &n, "sys_s", M_SYS, NULL, false, true, "s");
	}
	/* Events, in the order of the first run that has them. */
	const struct db_exp_run *first = NULL;
	for (size_t i = 0; i < e->nruns && !first; i++)
		if (e->runs[i].nevents)
			first = &e->runs[i];
	bool have_ins = false, have_cyc = false;
	for (size_t k = 0; first && k < first->nevents; k++) {
		bool sup = false;
		for (size_t i = 0; i < e->nruns; i++) {
			bool s;
			event_of(&e->runs[i], first->ev_names[k], &s);
			sup = sup || s;
		}
		bool time = !strcmp(first->ev_names[k], "task-clock") ||
			    !strcmp(first->ev_names[k], "cpu-clock");
		add_metric(ms, src, &n, first->ev_names[k], M_EVENT, first->ev_names[k],
			   false, sup, time ? "ns" : "count");
		(*ms)[n - 1].deterministic = simulated(e, first->ev_names[k]);
		if (!strcmp(first->ev_names[k], "instructions") && sup)
			have_ins = true;
		if (!strcmp(first->ev_names[k], "cycles") && sup)
			have_cyc = true;
	}
	/* Misses per thousand instructions where instructions counted, else
	 * per CPU millisecond; IPC where cycles counted too. */
	for (size_t k = 0; first && k < first->nevents; k++) {
		if (!is_miss_event(first->ev_names[k]))
			continue;
		char name[128];
		snprintf(name, sizeof(name), "%s.%s", first->ev_names[k],
			 have_ins ? "pki" : "per_cpu_ms");
		bool sup;
		event_of(first, first->ev_names[k], &sup);
		add_metric(ms, src, &n, name, have_ins ? M_PKI : M_PER_CPU_MS,
			   first->ev_names[k], false, sup,
			   have_ins ? "per kinst" : "per CPU ms");
		(*ms)[n - 1].deterministic = have_ins && simulated(e, first->ev_names[k]) &&
					     simulated(e, "instructions");
	}
	if (have_ins && have_cyc) {
		add_metric(ms, src, &n, "ipc", M_IPC, NULL, true, true, "inst/cycle");
		(*ms)[n - 1].deterministic = simulated(e, "instructions") &&
					     simulated(e, "cycles");
	}
	for (size_t i = 0; i < e->nsettings; i++) {
		if (strcmp(e->settings[i].key, "score") || !e->settings[i].value)
			continue;
		const char *v = e->settings[i].value;
		const char *eq = strchr(v, '=');
		if (!eq)
			continue;
		char *name = strndup(v, (size_t)(eq - v));
		struct ab_score_flags f;
		ab_score_flags_of(v, NULL, &f);
		/* frame scores are stored as NAME=frame:WHAT (prof/abplan.c) */
		const char *unit = !strcmp(eq + 1, "frame:long") ? "frames"
				   : !strncmp(eq + 1, "frame:", 6) ? "ms"
				   : f.agg == AB_AGG_MATCHES ? "matches" : "";
		add_metric(ms, src, &n, name, M_SCORE, name, f.higher_is_better, true, unit);
		free(name);
	}
	for (size_t i = 0; i < e->nsettings; i++) {
		if (strcmp(e->settings[i].key, "per") || !e->settings[i].value)
			continue;
		add_per(e, e->settings[i].value, ms, src, &n, refused);
	}
	add_machine(e, ms, src, &n);
	return n;
}

static void free_sources(struct msource *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(src[i].key);
	free(src);
}

/*
 * The runs of an experiment by arm and round, so that the run of arm a
 * in round r is found without a scan of every run: comparing each of N
 * arms against the baseline scanned all N x rounds runs per look-up, and
 * the analysis grew with the square of the arm count (issue 27).
 */
struct run_key {
	size_t arm;
	int round;
	size_t i;		/* into e->runs */
};

struct run_index {
	const struct db_experiment *e;
	struct run_key *k;	/* the counted-round runs, by arm, round, i */
	size_t *start;		/* per arm: its first key; narms + 1 */
};

static int run_key_cmp(const void *pa, const void *pb)
{
	const struct run_key *a = pa, *b = pb;
	if (a->arm != b->arm)
		return a->arm < b->arm ? -1 : 1;
	if (a->round != b->round)
		return a->round < b->round ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static void run_index_init(struct run_index *ix, const struct db_experiment *e)
{
	ix->e = e;
	ix->k = calloc(e->nruns + 1, sizeof(*ix->k));
	ix->start = calloc(e->narms + 1, sizeof(*ix->start));
	if (!ix->k || !ix->start)
		xalloc_die();
	size_t n = 0;
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *x = &e->runs[i];
		if (x->warmup || x->arm < 0 || (size_t)x->arm >= e->narms)
			continue;
		ix->k[n++] = (struct run_key){ (size_t)x->arm, x->round, i };
	}
	qsort(ix->k, n, sizeof(*ix->k), run_key_cmp);
	for (size_t a = 0, j = 0; a <= e->narms; a++) {
		while (j < n && ix->k[j].arm < a)
			j++;
		ix->start[a] = j;
	}
}

static void run_index_release(struct run_index *ix)
{
	free(ix->k);
	free(ix->start);
}

/* The run of arm a in round r (the first stored, as a scan finds it), or
 * NULL. */
static const struct db_exp_run *run_at(const struct run_index *ix, size_t a, int r)
{
	if (a >= ix->e->narms)
		return NULL;
	size_t lo = ix->start[a], hi = ix->start[a + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->k[mid].round < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->start[a + 1] && ix->k[lo].round == r)
		return &ix->e->runs[ix->k[lo].i];
	return NULL;
}

/* The next round of arm a's keys from key j on: the first run of that
 * round (through *x and *r), and the key past it. */
static size_t next_round(const struct run_index *ix, size_t a, size_t j,
			 const struct db_exp_run **x, int *r)
{
	*x = &ix->e->runs[ix->k[j].i];
	*r = ix->k[j].round;
	while (j < ix->start[a + 1] && ix->k[j].round == *r)
		j++;
	return j;
}

/* Paired values of arm a against the baseline for metric m, round by
 * round: a walk of the two arms' runs. */
static size_t pairs(const struct run_index *ix, const struct msource *m,
		    size_t a, double *base, double *arm, unsigned *bs,
		    unsigned *as, double *rx)
{
	const struct db_experiment *e = ix->e;
	size_t n = 0;
	if (a >= e->narms)
		return 0;
	size_t i = ix->start[0], j = ix->start[a];
	while (i < ix->start[1] && j < ix->start[a + 1]) {
		const struct db_exp_run *x, *y;
		int rb = ix->k[i].round, ra = ix->k[j].round;
		if (rb < ra) {
			i = next_round(ix, 0, i, &x, &rb);
			continue;
		}
		if (ra < rb) {
			j = next_round(ix, a, j, &y, &ra);
			continue;
		}
		i = next_round(ix, 0, i, &x, &rb);
		j = next_round(ix, a, j, &y, &ra);
		if (rb < 0 || rb >= e->rounds || !ab_run_counts(x) || !ab_run_counts(y))
			continue;
		double vb = value_of(x, m), va = value_of(y, m);
		if (!isfinite(vb) || !isfinite(va))
			continue;
		base[n] = vb;
		arm[n] = va;
		bs[n] = (unsigned)x->position;
		as[n] = (unsigned)y->position;
		rx[n] = rb;
		n++;
	}
	return n;
}

/* The paired values pairs() fills, cap of each. */
struct pair_buf {
	double *b, *x, *rx;
	unsigned *bs, *xs;
};

static void pair_buf_init(struct pair_buf *p, size_t cap)
{
	p->b = calloc(cap, sizeof(double));
	p->x = calloc(cap, sizeof(double));
	p->rx = calloc(cap, sizeof(double));
	p->bs = calloc(cap, sizeof(unsigned));
	p->xs = calloc(cap, sizeof(unsigned));
	if (!p->b || !p->x || !p->rx || !p->bs || !p->xs)
		xalloc_die();
}

static void pair_buf_release(struct pair_buf *p)
{
	free(p->b);
	free(p->x);
	free(p->rx);
	free(p->bs);
	free(p->xs);
}

static void aa_gate(const struct db_experiment *aa, const struct msource *m,
		    double *gate)
{
	struct run_index ix;
	struct pair_buf p;
	run_index_init(&ix, aa);
	pair_buf_init(&p, aa->nruns + 1);
	size_t n = aa->narms >= 2 ? pairs(&ix, m, 1, p.b, p.x, p.bs, p.xs, p.rx) : 0;
	double g;
	if (n >= 2 && stats_aa_gate(p.b, p.x, n, &g, NULL) == 0 && isfinite(g))
		*gate = g;
	pair_buf_release(&p);
	run_index_release(&ix);
}

void ab_compare(const double *base, const double *arm, size_t n,
		const unsigned *base_slot, const unsigned *arm_slot,
		const double *round_x, double gate_pct, bool higher_is_better,
		struct ab_comparison *out)
{
	ab_compare_eq(base, arm, n, base_slot, arm_slot, round_x, gate_pct, gate_pct,
		      higher_is_better, out);
}

/* Position, trend and verdict of paired rounds whose out->p is made. */
static void judge_pairs(const double *base, const double *arm, size_t n,
			const unsigned *base_slot, const unsigned *arm_slot,
			const double *round_x, double gate_pct, double equiv_pct,
			bool higher_is_better, struct ab_comparison *out)
{
	if (base_slot && arm_slot)
		stats_position_effect(base, arm, base_slot, arm_slot, n, &out->pos, NULL);
	stats_baseline_trend(base, round_x, n, &out->trend, NULL);
	stats_judge_eq(&out->p, base_slot && arm_slot ? &out->pos : NULL, &out->trend,
		       gate_pct, fmin(equiv_pct, gate_pct), higher_is_better, &out->j);
}

/*
 * The field notes' "without the third old run the arms are level": the
 * verdict again with each paired round left out, the same way it was
 * reached (log-ratios, or differences where a value is 0).
 */
static void leave_one_out(const double *base, const double *arm, size_t n,
			  const unsigned *base_slot, const unsigned *arm_slot,
			  const double *round_x, double gate_pct, double equiv_pct,
			  bool higher_is_better, struct ab_comparison *out)
{
	out->loo_round = -1;
	/* With one round fewer the test must still be able to reach its
	 * verdict (the sign-flip p's floor below STATS_ALPHA): else every
	 * removal "changes" it, which says how few rounds there are, not
	 * that one carries it. */
	size_t least = stats_rounds_for_alpha(STATS_ALPHA) + 1;
	if (n < AB_LOO_MIN || n < least || n > AB_LOO_MAX)
		return;
	double b[AB_LOO_MAX], x[AB_LOO_MAX], rx[AB_LOO_MAX];
	unsigned bs[AB_LOO_MAX], xs[AB_LOO_MAX];
	bool slots = base_slot && arm_slot;
	out->loo_checked = true;
	for (size_t r = 0; r < n; r++) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (i == r)
				continue;
			b[k] = base[i];
			x[k] = arm[i];
			rx[k] = round_x ? round_x[i] : (double)i;
			if (slots) {
				bs[k] = base_slot[i];
				xs[k] = arm_slot[i];
			}
			k++;
		}
		struct ab_comparison c;
		memset(&c, 0, sizeof(c));
		int rc = out->p.by_difference ? stats_paired_diff(b, x, k, &c.p, NULL)
			 : stats_paired_logratio(b, x, k, &c.p, NULL);
		if (rc)
			continue;
		judge_pairs(b, x, k, slots ? bs : NULL, slots ? xs : NULL, rx, gate_pct,
			    equiv_pct, higher_is_better, &c);
		if (c.j.verdict == out->j.verdict)
			continue;
		if (!out->loo_changed++) {
			out->loo_round = (int)(round_x ? round_x[r] : (double)r);
			out->loo_verdict = c.j.verdict;
		}
	}
}

void ab_compare_eq(const double *base, const double *arm, size_t n,
		   const unsigned *base_slot, const unsigned *arm_slot,
		   const double *round_x, double gate_pct, double equiv_pct,
		   bool higher_is_better, struct ab_comparison *out)
{
	char *why = NULL;
	memset(out, 0, sizeof(*out));
	if (n == 0) {
		out->why = strdup("no round has both arms");
		return;
	}
	if (stats_paired_logratio(base, arm, n, &out->p, &why) != 0) {
		/* A value of 0 somewhere: compare the differences instead. */
		char *why2 = NULL;
		if (stats_paired_diff(base, arm, n, &out->p, &why2) != 0) {
			free(why2);
			out->why = why ? why : strdup("cannot compare");
			return;
		}
		free(why);
	}
	out->computable = true;
	judge_pairs(base, arm, n, base_slot, arm_slot, round_x, gate_pct, equiv_pct,
		    higher_is_better, out);
	stats_spread_ratio(base, arm, n, &out->spread);
	leave_one_out(base, arm, n, base_slot, arm_slot, round_x, gate_pct, equiv_pct,
		      higher_is_better, out);
}

void ab_comparison_release(struct ab_comparison *c)
{
	if (!c)
		return;
	free(c->why);
	c->why = NULL;
}

/*
 * The share of the machine's CPU time that other work took during run r:
 * the busy time /proc/stat counted on every CPU (user, system, irq,
 * softirq, steal) less the run's own user and system time, over the
 * wall time times the CPUs. NAN where the run has no /proc/stat deltas,
 * the CPU count is unknown or the run is too short to tell. prof's own
 * work around the run (a few ms) counts as other work.
 */
double ab_run_others_share(const struct db_exp_run *r, int online_cpus)
{
	static const char *const times[] = { "stat.cpu.user_ms", "stat.cpu.system_ms",
		"stat.cpu.irq_ms", "stat.cpu.softirq_ms", "stat.cpu.steal_ms" };
	/* /proc/stat counts in clock ticks (4 to 10 ms): a run shorter
	 * than AB_OTHERS_MIN_WALL_S is too short to tell. */
	if (!r->nsystem || online_cpus <= 0 || !(r->wall_s >= AB_OTHERS_MIN_WALL_S))
		return NAN;
	double busy = 0;
	bool any = false;
	for (size_t t = 0; t < sizeof(times) / sizeof(times[0]); t++) {
		int64_t ms = 0;
		any = db_sysval_get(r->system, r->nsystem, times[t], &ms) || any;
		busy += (double)ms / 1000.0;
	}
	if (!any)
		return NAN;
	double other = busy - (r->user_s + r->sys_s);
	return other > 0 ? other / (r->wall_s * online_cpus) : 0;
}

/* The busy check over the counted runs: the median share, and how many
 * runs passed AB_OTHERS_MAX. */
static void busy_check(struct ab_analysis *out)
{
	const struct db_experiment *e = out->exp;
	double *v = calloc(e->nruns + 1, sizeof(double));
	if (!v)
		xalloc_die();
	size_t n = 0;
	for (size_t i = 0; i < e->nruns; i++) {
		if (!ab_run_counts(&e->runs[i]))
			continue;
		double sh = ab_run_others_share(&e->runs[i], e->online_cpus);
		if (!isfinite(sh))
			continue;
		v[n++] = sh;
		out->busy_runs += sh > AB_OTHERS_MAX;
	}
	struct stats_summary sum;
	out->others_median = n && stats_summarize(v, n, &sum) == 0 ? sum.median : NAN;
	out->busy_of = n;
	free(v);
	out->busy = out->others_median > AB_OTHERS_MAX;
	if (out->busy)
		warn(out, "other work took %.0f%% of the machine's CPU time (median "
		     "over the runs, from /proc/stat; above %.0f%% in %zu of %zu runs): "
		     "it competes for the CPUs and caches the arms use, so no verdict "
		     "is given; run it when the machine is quieter", 100 * out->others_median,
		     100 * AB_OTHERS_MAX, out->busy_runs, n);
	else if (out->busy_runs)
		warn(out, "other work took more than %.0f%% of the machine's CPU time in "
		     "%zu of %zu runs (median %.0f%%, from /proc/stat): those rounds "
		     "are noisier", 100 * AB_OTHERS_MAX, out->busy_runs, n,
		     100 * out->others_median);
}

/* (max - min) / median of a summary's values, in percent; NAN without. */
static double spread_pct(const struct stats_summary *s)
{
	if (!s->n || !(s->median > 0))
		return NAN;
	return 100 * (s->max - s->min) / s->median;
}

int ab_compare_deterministic(const double *base, size_t nb, const double *arm,
			     size_t na, double equiv_pct, bool higher_is_better,
			     struct ab_comparison *cp)
{
	struct stats_summary sb, sa;
	if (!nb || !na || stats_summarize(base, nb, &sb) || stats_summarize(arm, na, &sa))
		return -EINVAL;
	double pb = spread_pct(&sb), pa = spread_pct(&sa);
	if (isnan(pb) || isnan(pa))
		return -EINVAL;	/* a median of 0: nothing to take a ratio of */
	double spread = pb > pa ? pb : pa;
	double d = 100 * (sa.median / sb.median - 1);
	free(cp->why);
	cp->why = NULL;
	cp->computable = true;
	cp->deterministic = true;
	cp->spread_pct = spread;
	cp->p.n = nb < na ? nb : na;
	cp->p.delta_pct = cp->p.delta_pct_median = d;
	cp->p.signs_agree = true;
	cp->p.ci_computable = true;
	cp->p.ci95_lo_pct = cp->p.ci90_lo_pct = d - 2 * spread;
	cp->p.ci95_hi_pct = cp->p.ci90_hi_pct = d + 2 * spread;
	cp->p.p_value = NAN;
	cp->loo_checked = false;
	cp->loo_changed = 0;
	cp->j.trend_large = false;
	cp->j.position_large = false;
	cp->j.rounds_needed = 0;
	cp->j.aim = STATS_AIM_NONE;
	/* Nothing is noise here: a difference past the runs' own spread is
	 * the model's, and one inside the equivalence bound (the smallest
	 * change that matters, 1% by default) is too small to call. */
	bool up = d > 0;
	double bound = equiv_pct > 2 * spread ? equiv_pct : 2 * spread;
	cp->j.verdict = fabs(d) <= bound ? VERDICT_EQUIVALENT
			: up == higher_is_better ? VERDICT_BETTER : VERDICT_WORSE;
	cp->j.higher_is_better = higher_is_better;
	cp->j.equiv_pct = equiv_pct;
	return 0;
}

/* A simulated metric of arm a against the baseline's (ab_metric.
 * deterministic): left as the paired path judged it where a median is 0
 * or no value came. */
static void judge_deterministic(const struct ab_analysis *out, size_t a, size_t m,
				struct ab_comparison *cp)
{
	const struct ab_cell *cb = &out->cells[m], *ca = &out->cells[a * out->nmetrics + m];
	const struct ab_metric *met = &out->metrics[m];
	ab_compare_deterministic(cb->values, cb->n, ca->values, ca->n, met->equiv_pct,
				 met->higher_is_better, cp);
}

/* Arm a against the baseline on metric m, with the design warnings. */
static void compare_arm(struct ab_analysis *out, const struct run_index *ix,
			const struct msource *src, size_t a, size_t m)
{
	const struct db_experiment *e = out->exp;
	const struct ab_metric *met = &out->metrics[m];
	struct ab_comparison *cp = &out->cmp[(a - 1) * out->nmetrics + m];
	if (!met->supported) {
		cp->arm = a;
		cp->metric = m;
		cp->why = strdup("not supported on this machine");
		return;
	}
	struct pair_buf p;
	pair_buf_init(&p, ix->start[a + 1] - ix->start[a] + 1);
	size_t n = pairs(ix, src, a, p.b, p.x, p.bs, p.xs, p.rx);
	ab_compare_eq(p.b, p.x, n, p.bs, p.xs, p.rx, met->gate_pct, met->equiv_pct,
		      met->higher_is_better, cp);
	cp->arm = a;
	cp->metric = m;
	if (met->deterministic)
		judge_deterministic(out, a, m, cp);
	/* A busy machine: the numbers stand, the verdict is withheld. */
	if (cp->computable && out->busy && !e->aa && !cp->deterministic) {
		cp->was_verdict = cp->j.verdict;
		cp->withheld = cp->j.verdict != VERDICT_INCONCLUSIVE;
		cp->j.verdict = VERDICT_INCONCLUSIVE;
		cp->j.rounds_needed = -1;
		cp->j.aim = STATS_AIM_NONE;
		cp->busy = true;
	}
	if (cp->computable && cp->loo_changed && !cp->busy &&
	    cp->j.verdict != VERDICT_INCONCLUSIVE)
		warn(out, "%s, %s: without round %d the verdict would be %s, not %s "
		     "(%zu of %zu rounds, each left out, change it): one round "
		     "carries it", met->name, e->arms[a].name, cp->loo_round + 1,
		     stats_verdict_name(cp->loo_verdict), stats_verdict_name(cp->j.verdict),
		     cp->loo_changed, cp->p.n);
	if (cp->computable && cp->j.position_large)
		warn(out, "%s, %s: the slot in the round moves it by %+.1f%%, "
		     "large next to the effect (%+.1f%%): order matters here",
		     met->name, e->arms[a].name, cp->pos.pct, cp->p.delta_pct);
	if (cp->computable && !cp->p.signs_agree)
		warn(out, "%s, %s: the mean says %+.2f%% and the median %+.2f%%: they "
		     "disagree in sign, so a few rounds carry the mean; read the "
		     "effect with care", met->name, e->arms[a].name, cp->p.delta_pct,
		     cp->p.delta_pct_median);
	if (cp->computable && cp->j.trend_large)
		warn(out, "%s: the baseline drifted %+.1f%% from the first "
		     "round to the last, large next to the effect (%+.1f%%)",
		     met->name, cp->trend.pct_span, cp->p.delta_pct);
	pair_buf_release(&p);
}

int ab_analyze(const struct db_experiment *e, const struct ab_gate_rule *gate,
	       struct ab_analysis *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	out->exp = e;
	out->narms = e->narms;
	if (e->narms < 1) {
		if (cause && asprintf(cause, "experiment %lld has no arms",
				      (long long)e->id) < 0)
			*cause = NULL;
		return -EINVAL;
	}
	struct msource *src;
	char *refused = NULL;
	out->nmetrics = build_metrics(e, &out->metrics, &src, &refused);
	for (char *line = refused, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		warn(out, "%s", line);
	}
	free(refused);
	out->cells = calloc(out->narms * out->nmetrics + 1, sizeof(*out->cells));
	out->cmp = calloc((out->narms > 1 ? out->narms - 1 : 1) * out->nmetrics + 1,
			  sizeof(*out->cmp));
	if (!out->cells || !out->cmp)
		xalloc_die();

	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *r = &e->runs[i];
		const char *arm = (size_t)r->arm < e->narms ? e->arms[r->arm].name : "?";
		if (r->warmup) {
			out->warmup_runs++;
		} else if (r->interrupted) {
			out->interrupted_runs++;
			warn(out, "run %lld (arm %s, round %d) was interrupted; left out",
			     (long long)r->run_id, arm, r->round + 1);
		} else if (r->exit_status != 0 && !ended_by_timeout(r)) {
			out->failed_runs++;
			warn(out, "run %lld (arm %s, round %d) exited with status %d; left "
			     "out of the statistics", (long long)r->run_id, arm,
			     r->round + 1, r->exit_status);
		} else {
			for (size_t k = 0; k < r->nscores; k++)
				if (!r->scores[k].found)
					warn(out, "run %lld (arm %s, round %d) printed no '%s'; "
					     "left out of that metric", (long long)r->run_id,
					     arm, r->round + 1, r->scores[k].name);
		}
	}
	/* Each arm's runs, counted once: what follows is linear in the runs
	 * (it scanned every run for each arm). */
	struct run_index ix;
	run_index_init(&ix, e);
	size_t *ran = calloc(e->narms + 1, sizeof(*ran));
	size_t *counted = calloc(e->narms + 1, sizeof(*counted));
	if (!ran || !counted)
		xalloc_die();
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *r = &e->runs[i];
		if (r->arm < 0 || (size_t)r->arm >= e->narms || r->warmup)
			continue;
		ran[r->arm]++;
		counted[r->arm] += ab_run_counts(r);
	}
	/* An arm none of whose runs counted cannot be compared: that is an
	 * error of the experiment, whatever --keep-going let it finish. */
	for (size_t a = 0; a < e->narms; a++) {
		if (counted[a] || (!ran[a] && !e->nruns))
			continue;
		char *s;
		if (asprintf(&s, "arm %s%s has no counted run (%s%zu run%s %s); nothing "
			     "is compared %s it", e->arms[a].name, a ? "" : " (baseline)",
			     ran[a] > 1 ? "all " : "", ran[a], ran[a] == 1 ? "" : "s",
			     ran[a] ? "failed or were interrupted" : "ran",
			     a ? "for" : "against") < 0)
			xalloc_die();
		char **v = realloc(out->errors, (out->nerrors + 1) * sizeof(*v));
		if (!v)
			xalloc_die();
		out->errors = v;
		v[out->nerrors++] = s;
	}
	busy_check(out);
	/* A round counts when every arm's run of it counted: the baseline's
	 * rounds are the only candidates. */
	for (size_t j = ix.start[0]; j < ix.start[1];) {
		const struct db_exp_run *x;
		int r;
		j = next_round(&ix, 0, j, &x, &r);
		bool all = r >= 0 && r < e->rounds && ab_run_counts(x);
		for (size_t a = 1; all && a < e->narms; a++) {
			const struct db_exp_run *y = run_at(&ix, a, r);
			all = y && ab_run_counts(y);
		}
		out->counted_rounds += all;
	}

	for (size_t m = 0; m < out->nmetrics; m++) {
		struct ab_metric *met = &out->metrics[m];
		met->gate_pct = gate ? gate->default_pct : 1.0;
		met->equiv_pct = met->gate_pct;
		met->gate_source = strdup("default");
		if (gate && !isnan(gate->given_pct)) {
			met->gate_pct = met->equiv_pct = gate->given_pct;
			free(met->gate_source);
			met->gate_source = strdup("--gate");
		} else if (gate && gate->aa) {
			double g = NAN;
			aa_gate(gate->aa, &src[m], &g);
			if (isfinite(g)) {
				/* The A/A noise sets what can be called better or
				 * worse; equivalence stays within the smallest
				 * change that matters (the default gate). */
				met->gate_pct = g;
				met->equiv_pct = fmin(g, met->equiv_pct);
				free(met->gate_source);
				if (asprintf(&met->gate_source, "A/A experiment %lld",
					     (long long)gate->aa->id) < 0)
					met->gate_source = NULL;
				if (met->supported && g > AB_GATE_WIDE_PCT)
					warn(out, "%s: the noise gate from A/A experiment %lld "
					     "is ±%.1f%%, wider than ±%g%%: a change smaller "
					     "than ±%.1f%% cannot be called better or worse on "
					     "this machine, and nothing is called equivalent "
					     "beyond ±%g%%; quieten the machine (prof pressure, "
					     "pinning) or measure with more rounds", met->name,
					     (long long)gate->aa->id, g, AB_GATE_WIDE_PCT, g,
					     met->equiv_pct);
			}
		}
		met->aa_sd_pct = met->aa_gate_pct = NAN;
		if (e->aa && met->supported) {
			aa_gate(e, &src[m], &met->aa_gate_pct);
			met->aa_sd_pct = met->aa_gate_pct / 2;
		}
		/* Each arm's cell holds its own counted runs: sized by what
		 * the arm ran, not by every run of the experiment (which
		 * made the cells grow with the square of the arm count). */
		for (size_t a = 0; a < out->narms; a++) {
			struct ab_cell *c = &out->cells[a * out->nmetrics + m];
			c->values = calloc(counted[a] + 1, sizeof(double));
			c->run_ids = calloc(counted[a] + 1, sizeof(int64_t));
			if (!c->values || !c->run_ids)
				xalloc_die();
		}
		for (size_t i = 0; i < e->nruns; i++) {
			const struct db_exp_run *r = &e->runs[i];
			if (r->arm < 0 || (size_t)r->arm >= e->narms || !ab_run_counts(r))
				continue;
			double v = value_of(r, &src[m]);
			if (!isfinite(v))
				continue;
			struct ab_cell *c = &out->cells[(size_t)r->arm * out->nmetrics + m];
			c->values[c->n] = v;
			c->run_ids[c->n] = r->run_id;
			c->n++;
		}
		for (size_t a = 0; a < out->narms; a++) {
			struct ab_cell *c = &out->cells[a * out->nmetrics + m];
			if (c->n)
				stats_summarize(c->values, c->n, &c->sum);
		}
		for (size_t a = 1; a < out->narms; a++)
			compare_arm(out, &ix, &src[m], a, m);
	}
	free(ran);
	free(counted);
	run_index_release(&ix);
	free_sources(src, out->nmetrics);
	return 0;
}

int ab_analysis_keep(struct ab_analysis *a, const char *const *names, size_t n,
		     char **cause)
{
	if (!n)
		return 0;
	bool *keep = calloc(a->nmetrics + 1, sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	size_t nkeep = 0;
	for (size_t i = 0; i < n; i++) {
		bool found = false;
		for (size_t m = 0; m < a->nmetrics; m++)
			if (!strcmp(a->metrics[m].name, names[i])) {
				nkeep += !keep[m];
				keep[m] = found = true;
			}
		if (!found) {
			free(keep);
			if (cause && asprintf(cause, "--metric '%s' is not a metric of "
					      "experiment %lld\nhint: 'prof compare %lld' "
					      "shows every metric by name", names[i],
					      (long long)a->exp->id, (long long)a->exp->id) < 0)
				*cause = NULL;
			return -EINVAL;
		}
	}
	size_t ncmp = a->narms > 1 ? a->narms - 1 : 0;
	struct ab_metric *met = calloc(nkeep, sizeof(*met));
	struct ab_cell *cells = calloc(a->narms * nkeep, sizeof(*cells));
	struct ab_comparison *cmp = calloc(ncmp * nkeep + 1, sizeof(*cmp));
	if (!met || !cells || !cmp) {
		free(keep);
		free(met);
		free(cells);
		free(cmp);
		return -ENOMEM;
	}
	for (size_t m = 0, k = 0; m < a->nmetrics; m++) {
		if (keep[m]) {
			met[k] = a->metrics[m];
			for (size_t arm = 0; arm < a->narms; arm++)
				cells[arm * nkeep + k] = a->cells[arm * a->nmetrics + m];
			for (size_t i = 0; i < ncmp; i++) {
				cmp[i * nkeep + k] = a->cmp[i * a->nmetrics + m];
				cmp[i * nkeep + k].metric = k;
			}
			k++;
			continue;
		}
		free(a->metrics[m].name);
		free(a->metrics[m].unit);
		free(a->metrics[m].gate_source);
		for (size_t arm = 0; arm < a->narms; arm++) {
			free(a->cells[arm * a->nmetrics + m].values);
			free(a->cells[arm * a->nmetrics + m].run_ids);
		}
		for (size_t i = 0; i < ncmp; i++)
			ab_comparison_release(&a->cmp[i * a->nmetrics + m]);
	}
	free(keep);
	free(a->metrics);
	free(a->cells);
	free(a->cmp);
	a->metrics = met;
	a->cells = cells;
	a->cmp = cmp;
	a->nmetrics = nkeep;
	return 0;
}

void ab_analysis_release(struct ab_analysis *a)
{
	if (!a)
		return;
	for (size_t m = 0; m < a->nmetrics; m++) {
		free(a->metrics[m].name);
		free(a->metrics[m].unit);
		free(a->metrics[m].gate_source);
	}
	free(a->metrics);
	for (size_t i = 0; i < a->narms * a->nmetrics; i++) {
		free(a->cells[i].values);
		free(a->cells[i].run_ids);
	}
	free(a->cells);
	size_t ncmp = (a->narms > 1 ? a->narms - 1 : 0) * a->nmetrics;
	for (size_t i = 0; i < ncmp; i++)
		ab_comparison_release(&a->cmp[i]);
	free(a->cmp);
	for (size_t i = 0; i < a->nwarnings; i++)
		free(a->warnings[i]);
	free(a->warnings);
	for (size_t i = 0; i < a->nerrors; i++)
		free(a->errors[i]);
	free(a->errors);
	memset(a, 0, sizeof(*a));
}

/* ---- two single runs ---- */

/* A run seen as an experiment run, so the same metric code reads it. */
static void as_exp_run(const struct db_run *r, struct db_exp_run *x)
{
	memset(x, 0, sizeof(*x));
	x->run_id = r->id;
	x->exit_status = r->exit_status;
	x->wall_s = r->wall_s;
	x->user_s = r->user_s;
	x->sys_s = r->sys_s;
	/* The machine's deltas, borrowed: compared as an experiment's are. */
	x->system = r->system;
	x->nsystem = r->nsystem;
	x->nevents = r->nevents;
	x->ev_names = calloc(r->nevents + 1, sizeof(char *));
	x->ev_supported = calloc(r->nevents + 1, sizeof(bool));
	x->ev_values = calloc(r->nevents + 1, sizeof(double));
	for (size_t i = 0; i < r->nevents; i++) {
		x->ev_names[i] = r->events[i].name;
		x->ev_supported[i] = r->events[i].supported;
		double v;
		enum db_count_state s = db_count_scaled(&r->events[i].total, &v);
		x->ev_values[i] = r->events[i].supported &&
				  (s == COUNT_OK || s == COUNT_SCALED) ? v : NAN;
	}
}

int ab_pair_of_runs(const struct db_run *ra, const struct db_run *rb,
		    struct ab_pair *out)
{
	struct db_exp_run x[2];
	as_exp_run(ra, &x[0]);
	as_exp_run(rb, &x[1]);
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	e.runs = x;
	e.nruns = 2;
	struct msource *src;
	char *refused = NULL;
	memset(out, 0, sizeof(*out));
	out->n = build_metrics(&e, &out->metrics, &src, &refused);
	free(refused);
	out->a = calloc(out->n + 1, sizeof(double));
	out->b = calloc(out->n + 1, sizeof(double));
	for (size_t m = 0; m < out->n; m++) {
		out->a[m] = value_of(&x[0], &src[m]);
		out->b[m] = value_of(&x[1], &src[m]);
	}
	free_sources(src, out->n);
	for (int i = 0; i < 2; i++) {
		free(x[i].ev_names);
		free(x[i].ev_supported);
		free(x[i].ev_values);
	}
	return 0;
}

void ab_pair_release(struct ab_pair *p)
{
	for (size_t m = 0; m < p->n; m++) {
		free(p->metrics[m].name);
		free(p->metrics[m].unit);
		free(p->metrics[m].gate_source);
	}
	free(p->metrics);
	free(p->a);
	free(p->b);
	memset(p, 0, sizeof(*p));
}

/* ---- two sets of runs, collected apart ---- */

static void sets_warn(struct ab_sets *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sets_warn(struct ab_sets *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	warnings_addv(&s->warnings, &s->nwarnings, fmt, ap);
	va_end(ap);
}

static void release_exp_run(struct db_exp_run *x)
{
	free(x->ev_names);
	free(x->ev_supported);
	free(x->ev_values);
}

int ab_sets_analyze(const struct ab_set *a, const struct ab_set *b,
		    double gate_pct, struct ab_sets *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	const struct ab_set *in[2] = { a, b };
	for (int k = 0; k < 2; k++) {
		if (!in[k]->nruns) {
			if (cause && asprintf(cause, "set %s (%s) has no runs", in[k]->name,
					      in[k]->spec) < 0)
				*cause = NULL;
			return -EINVAL;
		}
		out->set[k].name = strdup(in[k]->name);
		out->set[k].spec = strdup(in[k]->spec);
		out->set[k].runs = in[k]->runs;
		out->set[k].nruns = in[k]->nruns;
	}
	/* Every run as an experiment run (arm = its set), so the metric
	 * code of an experiment reads it. */
	size_t nall = a->nruns + b->nruns;
	struct db_exp_run *x = calloc(nall, sizeof(*x));
	if (!x)
		xalloc_die();
	for (size_t i = 0; i < nall; i++) {
		bool inb = i >= a->nruns;
		as_exp_run(inb ? &b->runs[i - a->nruns] : &a->runs[i], &x[i]);
		x[i].arm = inb;
	}
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	e.runs = x;
	e.nruns = nall;
	struct msource *src;
	char *refused = NULL;
	out->nmetrics = build_metrics(&e, &out->metrics, &src, &refused);
	free(refused);
	out->cells = calloc(2 * out->nmetrics + 1, sizeof(*out->cells));
	out->cmp = calloc(out->nmetrics + 1, sizeof(*out->cmp));
	if (!out->cells || !out->cmp)
		xalloc_die();
	for (size_t i = 0; i < nall; i++) {
		if (ab_run_counts(&x[i])) {
			out->counted[x[i].arm]++;
			continue;
		}
		sets_warn(out, "run %lld (set %s) %s; left out", (long long)x[i].run_id,
			  in[x[i].arm]->name, x[i].interrupted ? "was interrupted"
			  : "exited non-zero");
	}
	const char *cpu0 = a->runs[0].host.cpu_model;
	for (size_t i = 0; i < b->nruns; i++) {
		const char *c = b->runs[i].host.cpu_model;
		if (cpu0 && c && strcmp(cpu0, c)) {
			sets_warn(out, "the sets ran on different processors (%s, %s): the "
				  "difference is the machine's as much as the change's",
				  cpu0, c);
			break;
		}
	}
	for (size_t m = 0; m < out->nmetrics; m++) {
		struct ab_metric *met = &out->metrics[m];
		met->gate_pct = gate_pct;
		met->gate_source = strdup(isnan(gate_pct) ? "default" : "--gate");
		if (isnan(gate_pct))
			met->gate_pct = 1.0;
		met->equiv_pct = met->gate_pct;
		for (int k = 0; k < 2; k++) {
			struct ab_cell *c = &out->cells[(size_t)k * out->nmetrics + m];
			c->values = calloc(nall + 1, sizeof(double));
			c->run_ids = calloc(nall + 1, sizeof(int64_t));
			for (size_t i = 0; i < nall; i++) {
				if (x[i].arm != k || !ab_run_counts(&x[i]))
					continue;
				double v = value_of(&x[i], &src[m]);
				if (!isfinite(v))
					continue;
				c->values[c->n] = v;
				c->run_ids[c->n++] = x[i].run_id;
			}
			if (c->n)
				stats_summarize(c->values, c->n, &c->sum);
		}
		struct ab_set_cmp *cp = &out->cmp[m];
		const struct ab_cell *ca = &out->cells[m], *cb = &out->cells[out->nmetrics + m];
		char *why = NULL;
		if (!met->supported) {
			cp->why = strdup("not supported on this machine");
		} else if (stats_unpaired_log(ca->values, ca->n, cb->values, cb->n, &cp->u,
					      &why) == 0) {
			cp->computable = true;
			stats_judge_unpaired(&cp->u, met->gate_pct, met->higher_is_better,
					     &cp->j);
			if (!cp->u.signs_agree)
				sets_warn(out, "%s: the mean says %+.2f%% and the median "
					  "%+.2f%%: they disagree in sign, so a few runs "
					  "carry the mean; read the effect with care",
					  met->name, cp->u.delta_pct, cp->u.delta_pct_median);
		} else {
			cp->why = why ? why : strdup("cannot compare");
		}
	}
	free_sources(src, out->nmetrics);
	for (size_t i = 0; i < nall; i++)
		release_exp_run(&x[i]);
	free(x);
	return 0;
}

void ab_sets_release(struct ab_sets *s)
{
	if (!s)
		return;
	for (int k = 0; k < 2; k++) {
		free(s->set[k].name);
		free(s->set[k].spec);
	}
	for (size_t m = 0; m < s->nmetrics; m++) {
		free(s->metrics[m].name);
		free(s->metrics[m].unit);
		free(s->metrics[m].gate_source);
		free(s->cmp[m].why);
	}
	for (size_t i = 0; s->cells && i < 2 * s->nmetrics; i++) {
		free(s->cells[i].values);
		free(s->cells[i].run_ids);
	}
	free(s->metrics);
	free(s->cells);
	free(s->cmp);
	for (size_t i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	memset(s, 0, sizeof(*s));
}

/* ---- thread groups ---- */

bool ab_metric_per_thread(const struct ab_metric *m)
{
	static const char *const whole[] = { "wall_s", "cpu_s", "cores", "user_s",
					     "sys_s" };
	if (!strncmp(m->name, "system.", 7))
		return false;	/* the whole machine's */
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
		if (!strcmp(m->name, whole[i]))
			return false;
	return true;
}

/* Sum of event k over run r's threads named `name`; NAN when none is. */
static double name_sum(const struct db_run *r, size_t k, const char *name)
{
	double sum = 0;
	bool any = false;
	for (size_t t = 0; t < r->nthreads; t++) {
		const struct db_thread *th = &r->threads[t];
		if (!th->name || strcmp(th->name, name) || !th->counts)
			continue;
		double v;
		enum db_count_state st = db_count_scaled(&th->counts[k], &v);
		if (st == COUNT_OK || st == COUNT_SCALED) {
			sum += v;
			any = true;
		}
	}
	return any ? sum : NAN;
}

static size_t threads_named(const struct db_run *r, const char *name)
{
	size_t n = 0;
	for (size_t t = 0; t < r->nthreads; t++)
		n += r->threads[t].name && !strcmp(r->threads[t].name, name);
	return n;
}

struct name_weight {
	char *name;
	double weight;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int by_weight(const void *a, const void *b)
{
	const struct name_weight *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->name, y->name);
}

int ab_by_name_analyze(const struct db_experiment *e, const struct db_run *runs,
		       const struct ab_gate_rule *gate, struct ab_by_name *out,
		       char **cause)
{
	memset(out, 0, sizeof(*out));
	out->exp = e;
	/* The names, weighed by the baseline's first event (task-clock in
	 * the default list's software events, else what was counted). */
	/* Every name once, sorted, so that a thread's is found by a binary
	 * search: a scan of the names so far for each thread was quadratic
	 * in the names. The order below is the weights', whatever this one. */
	size_t nall = 0;
	for (size_t i = 0; i < e->nruns; i++)
		if (ab_run_counts(&e->runs[i]))
			nall += runs[i].nthreads;
	const char **all = malloc((nall + 1) * sizeof(*all));
	if (!all)
		xalloc_die();
	size_t nw = 0;
	for (size_t i = 0; i < e->nruns; i++) {
		if (!ab_run_counts(&e->runs[i]))
			continue;
		for (size_t t = 0; t < runs[i].nthreads; t++)
			if (runs[i].threads[t].name)
				all[nw++] = runs[i].threads[t].name;
	}
	qsort(all, nw, sizeof(*all), name_cmp);
	size_t nu = 0;
	for (size_t k = 0; k < nw; k++)
		if (!nu || strcmp(all[nu - 1], all[k]))
			all[nu++] = all[k];
	nw = nu;
	struct name_weight *w = calloc(nw + 1, sizeof(*w));
	if (!w)
		xalloc_die();
	for (size_t k = 0; k < nw; k++) {
		w[k].name = strdup(all[k]);
		if (!w[k].name)
			xalloc_die();
	}
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_run *r = &runs[i];
		if (!ab_run_counts(&e->runs[i]))
			continue;
		for (size_t t = 0; t < r->nthreads; t++) {
			const char *nm = r->threads[t].name;
			if (!nm)
				continue;
			const char **at = bsearch(&nm, all, nw, sizeof(*all), name_cmp);
			size_t k = (size_t)(at - all);
			for (size_t ev = 0; ev < r->nevents && e->runs[i].arm == 0; ev++) {
				double v;
				enum db_count_state st = r->threads[t].counts
					? db_count_scaled(&r->threads[t].counts[ev], &v)
					: COUNT_ABSENT;
				if (r->events[ev].supported && (st == COUNT_OK || st == COUNT_SCALED)) {
					w[k].weight += v;
					break;
				}
			}
		}
	}
	free(all);
	if (!nw) {
		free(w);
		if (cause && asprintf(cause, "experiment %lld has no thread names to "
				      "group by", (long long)e->id) < 0)
			*cause = NULL;
		return -EINVAL;
	}
	qsort(w, nw, sizeof(*w), by_weight);
	out->ngroups = nw > AB_BY_NAME_MAX ? AB_BY_NAME_MAX : nw;
	out->left_out = nw - out->ngroups;
	out->names = calloc(out->ngroups, sizeof(char *));
	out->threads_per_run = calloc(out->ngroups, sizeof(double));
	out->exps = calloc(out->ngroups, sizeof(*out->exps));
	out->an = calloc(out->ngroups, sizeof(*out->an));
	if (!out->names || !out->threads_per_run || !out->exps || !out->an)
		xalloc_die();
	/* One gate in every view: the A/A experiment's whole-run noise of
	 * each event, as the experiment's own report uses it (a thread
	 * name's share is no quieter than its run). */
	struct ab_gate_rule g = { gate ? gate->given_pct : NAN, gate ? gate->aa : NULL,
				  gate ? gate->default_pct : 1.0 };
	for (size_t k = 0; k < nw; k++) {
		if (k >= out->ngroups) {
			free(w[k].name);
			continue;
		}
		out->names[k] = w[k].name;
		struct db_experiment *x = &out->exps[k];
		*x = *e;
		x->settings = NULL;	/* no scores: they are whole-run */
		x->nsettings = 0;
		x->runs = calloc(e->nruns + 1, sizeof(*x->runs));
		if (!x->runs)
			xalloc_die();
		size_t counted = 0, nthreads = 0;
		for (size_t i = 0; i < e->nruns; i++) {
			struct db_exp_run *xr = &x->runs[i];
			*xr = e->runs[i];
			xr->nscores = 0;
			xr->scores = NULL;
			xr->ev_values = calloc(xr->nevents + 1, sizeof(double));
			if (!xr->ev_values)
				xalloc_die();
			const struct db_run *r = &runs[i];
			for (size_t ev = 0; ev < xr->nevents; ev++) {
				xr->ev_values[ev] = NAN;
				for (size_t q = 0; q < r->nevents; q++)
					if (!strcmp(r->events[q].name, xr->ev_names[ev]))
						xr->ev_values[ev] = name_sum(r, q, w[k].name);
			}
			if (ab_run_counts(xr)) {
				counted++;
				nthreads += threads_named(r, w[k].name);
			}
		}
		out->threads_per_run[k] = counted ? (double)nthreads / (double)counted : 0;
		ab_analyze(x, &g, &out->an[k], NULL);
	}
	free(w);
	return 0;
}

void ab_by_name_release(struct ab_by_name *g)
{
	if (!g)
		return;
	for (size_t k = 0; k < g->ngroups; k++) {
		ab_analysis_release(&g->an[k]);
		for (size_t i = 0; g->exps && i < g->exps[k].nruns; i++)
			free(g->exps[k].runs[i].ev_values);
		if (g->exps)
			free(g->exps[k].runs);
		free(g->names[k]);
	}
	free(g->names);
	free(g->threads_per_run);
	free(g->exps);
	free(g->an);
	memset(g, 0, sizeof(*g));
}
