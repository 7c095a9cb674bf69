/*
 * collect_counters: the run's own collector, whose fill turns what the
 * counters counted into the stored run: where it ran (the host), the
 * events with their totals, one row per thread with its counts, and
 * whether the run is complete (the audit: every task's counts arrived,
 * the ring buffers lost nothing, the scheduler's own clocks agree with
 * the task-clock counted). Every other collector hangs off the counters'
 * ring buffers. A collector (prof/run/collector.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/counters.h"
#include "collectors/host.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

/* ---- where it ran ---- */

int collect_fill_host(struct db_run *run, char **cause)
{
	struct host_facts hf;
	host_facts_read(&hf);
	run->host.hostname = hf.hostname;
	run->host.kernel = hf.kernel;
	run->host.cpu_model = hf.cpu_model;
	run->host.online_cpus = hf.online_cpus;
	run->paranoid = hf.paranoid;
	char cwd[4096];
	bool oom = !hf.hostname || !hf.kernel || !hf.cpu_model;
	if (!run->cwd && getcwd(cwd, sizeof(cwd)))
		run->cwd = fill_strdup(cwd, &oom);
	run->prof_version = fill_strdup(PROF_VERSION, &oom);
	return oom ? fill_oom(cause, "host") : 0;
}

/* ---- the events and their totals ---- */

static void fill_event(struct db_event *e, const struct event_desc *ev,
		       const struct counter_status *st,
		       const struct thread_count *tot, bool *oom)
{
	e->name = fill_strdup(ev->name, oom);
	/* NULL where libpfm4 refused the name (no mission map). */
	e->canonical = fill_strdup(ev->canonical, oom);
	if (ev->mission) {
		e->mission_family = fill_strdup(ev->family->label, oom);
		e->mission_event = fill_strdup(ev->mission->perf_name, oom);
		e->mission_note = fill_strdup(ev->mission->summary, oom);
	}
	e->supported = st->supported;
	e->reason = fill_strdup(st->reason, oom);
	e->group = st->group;
	e->user_only = st->user_only;
	e->attr_type = ev->attr.type;
	e->attr_config = ev->attr.config;
	e->attr_config1 = ev->attr.config1;
	e->attr_config2 = ev->attr.config2;
	e->exclude_user = ev->attr.exclude_user;
	e->exclude_kernel = ev->attr.exclude_kernel || st->user_only;
	e->exclude_hv = ev->attr.exclude_hv || st->user_only;
	if (st->supported && tot && tot->present) {
		e->total.present = true;
		e->total.value = tot->value;
		e->total.enabled = tot->enabled;
		e->total.running = tot->running;
	}
}

static int fill_events(struct db_run *run, const struct counters *cs,
		       const struct event_desc *evs, size_t nev, char **cause)
{
	run->events = calloc(nev ? nev : 1, sizeof(*run->events));
	if (!run->events)
		return fill_oom(cause, "events");
	run->nevents = nev;
	bool oom = false;
	for (size_t i = 0; i < nev; i++)
		fill_event(&run->events[i], &evs[i], counters_status(cs, i),
			   counters_total(cs, i), &oom);
	return oom ? fill_oom(cause, "events") : 0;
}

/* ---- one row per thread ---- */

static bool fill_thread(struct db_thread *t, const struct thread_row *r,
			const struct db_run *run)
{
	size_t nev = run->nevents;
	t->tid = r->tid;
	t->pid = r->pid;
	t->name = strdup(r->name);
	/* Attached, every thread is a target; the main one is the process's
	 * own (tid == pid). */
	t->is_main = r->is_target && r->tid == r->pid;
	t->start_ns = (int64_t)r->start_ns;
	t->end_ns = (int64_t)r->end_ns;
	t->counts = calloc(nev ? nev : 1, sizeof(*t->counts));
	if (!t->name || !t->counts)
		return false;
	for (size_t e = 0; e < nev; e++) {
		t->counts[e].present = r->counts[e].present && run->events[e].supported;
		t->counts[e].value = r->counts[e].value;
		t->counts[e].enabled = r->counts[e].enabled;
		t->counts[e].running = r->counts[e].running;
	}
	return true;
}

/*
 * A run whose events were split over core PMUs (hybrid, big.LITTLE): the
 * PMUs, and each thread's parts as its counts per PMU (a part on no PMU,
 * a software event's, is the total alone). Nothing on other machines.
 */
static bool fill_core_pmus(struct db_run *run, const struct pmu_plan *plan)
{
	if (!pmu_plan_split(plan))
		return true;
	run->core_pmus = calloc(plan->npmus, sizeof(*run->core_pmus));
	if (!run->core_pmus)
		return false;
	size_t len = 0;
	for (size_t p = 0; p < plan->npmus; p++) {
		if (!(run->core_pmus[p] = strdup(plan->pmus[p].name)))
			return false;
		run->ncore_pmus = p + 1;
		len += strlen(plan->pmus[p].name) + 1;
	}
	char *list = calloc(len ? len : 1, 1);
	if (!list)
		return false;
	for (size_t p = 0; p < plan->npmus; p++) {
		if (p)
			strcat(list, ",");
		strcat(list, plan->pmus[p].name);
	}
	db_set_str(run, SET_COUNTED_PER_PMU, list);
	free(list);
	return true;
}

static bool fill_thread_pmus(struct db_thread *t, const struct thread_row *r,
			     const struct db_run *run, const struct pmu_plan *plan)
{
	if (!run->ncore_pmus || !r->parts)
		return true;
	size_t nev = run->nevents;
	t->pmu_counts = calloc(run->ncore_pmus * (nev ? nev : 1), sizeof(*t->pmu_counts));
	if (!t->pmu_counts)
		return false;
	for (size_t k = 0; k < plan->nattrs; k++) {
		const struct plan_attr *pa = &plan->attrs[k];
		if (pa->pmu < 0 || !r->parts[k].present || !run->events[pa->event].supported)
			continue;
		struct db_count *c = &t->pmu_counts[(size_t)pa->pmu * nev + pa->event];
		c->present = true;
		c->value = r->parts[k].value;
		c->enabled = r->parts[k].enabled;
		c->running = r->parts[k].running;
	}
	return true;
}

/* A target whose name never arrived in a COMM record (an exec that kept
 * the old name) is named after the command. */
static bool name_the_unnamed(struct db_run *run)
{
	for (size_t i = 0; i < run->nthreads; i++) {
		struct db_thread *t = &run->threads[i];
		if (t->name && *t->name)
			continue;
		free(t->name);
		const char *base = run->argv && run->argc ? strrchr(run->argv[0], '/') : NULL;
		base = base ? base + 1 : (run->argv && run->argc ? run->argv[0] : "?");
		if (!(t->name = strndup(base, 15)))
			return false;
	}
	return true;
}

static int fill_threads(struct db_run *run, const struct thread_table *tt,
			const struct pmu_plan *plan, char **cause)
{
	if (!fill_core_pmus(run, plan))
		return fill_oom(cause, "core PMUs");
	size_t n = thread_table_count(tt);
	run->threads = calloc(n ? n : 1, sizeof(*run->threads));
	if (!run->threads)
		return fill_oom(cause, "threads");
	run->nthreads = 0;
	/* Targets (the launched process, attached threads) first. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct thread_row *r = thread_table_row(tt, i);
			if (r->is_target != (pass == 0))
				continue;
			struct db_thread *t = &run->threads[run->nthreads++];
			if (!fill_thread(t, r, run) ||
			    !fill_thread_pmus(t, r, run, plan))
				return fill_oom(cause, "threads");
		}
	}
	return name_the_unnamed(run) ? 0 : fill_oom(cause, "threads");
}

/* ---- the audit: is the run complete? ---- */

/* What the audit reads besides the run. */
struct audit {
	struct db_run *run;
	const struct counters *cs;
	bool launched;
	int64_t root_own_ns, uncounted_ns, stolen_ns;
	struct thread_audit tasks;
	struct counters_health h;
	const char *root;	/* the first row's name */
	long tc;		/* task-clock's index, or -1 */
	FILE *fp;		/* the reasons, one a line */
	size_t n;		/* how many */
};

static void reason(struct audit *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void reason(struct audit *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (a->n++)
		fputc('\n', a->fp);
	vfprintf(a->fp, fmt, ap);
	va_end(ap);
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Tasks whose counts, start or end did not arrive whole. */
static void audit_tasks(struct audit *a)
{
	const struct thread_audit *t = &a->tasks;
	if (t->no_counts)
		reason(a, "%zu of %zu tasks exited without their counts "
		       "arriving; their counts are in %s's row", t->no_counts,
		       t->tasks, a->root);
	/* None of the exited tasks' counts came: the kernel's doing, not a
	 * lost record's. Say what would give the rows (docs/kernels.md). */
	if (t->no_counts && t->no_counts == t->tasks - t->live && !t->partial &&
	    counters_path(a->cs) == COUNTERS_PATH_TASK)
		reason(a, "this kernel sends no thread's counts at its exit (Linux "
		       "5.13 and later, until commit c418d8b4d7a4; docs/kernels.md); "
		       "counted per CPU, which needs root, CAP_PERFMON or "
		       "perf_event_paranoid <= 0 and a cgroup prof may make, each "
		       "thread gets its row");
	if (t->partial)
		reason(a, "%zu %s only some of their counts", t->partial,
		       plural(t->partial, "task has", "tasks have"));
	if (t->no_start)
		reason(a, "%zu %s no start record (its FORK was not "
		       "received): tasks may be missing altogether", t->no_start,
		       plural(t->no_start, "task has", "tasks have"));
	if (t->live && a->launched)
		reason(a, "%zu %s still running when the command ended "
		       "(daemons or orphans): %s counts so far are in %s "
		       "creator's row", t->live, plural(t->live, "task was", "tasks were"),
		       plural(t->live, "its", "their"), plural(t->live, "its", "their"));
	if (t->privileged)
		reason(a, "%zu %s (%s) exec'd a set-user-ID or set-group-ID "
		       "program: the kernel stops counting a task whose privileges "
		       "change at exec, so %s counts end there (not countable here)",
		       t->privileged, plural(t->privileged, "task", "tasks"),
		       t->privileged_name, plural(t->privileged, "its", "their"));
}

/* Records the ring buffers lost or could not read. */
static void audit_rings(struct audit *a)
{
	const struct counters_health *h = &a->h;
	if (a->run->lost_records)
		reason(a, "the kernel lost %llu ring-buffer records (buffer "
		       "full): raise --mmap-pages", (unsigned long long)a->run->lost_records);
	if (h->torn_runs)
		reason(a, "%llu bytes of ring-buffer records were unreadable "
		       "in %llu %s (two CPUs wrote over each other)",
		       (unsigned long long)h->torn_bytes, (unsigned long long)h->torn_runs,
		       plural(h->torn_runs, "place", "places"));
	if (h->undecodable)
		reason(a, "%llu ring-buffer records could not be decoded",
		       (unsigned long long)h->undecodable);
	if (h->percpu_lost)
		reason(a, "the kernel lost %llu records of the per-CPU "
		       "buffers (buffer full): some switches' counts went to the "
		       "wrong thread; raise --mmap-pages",
		       (unsigned long long)h->percpu_lost);
}

/* Whether event e is a hardware event that took turns on the PMU. */
static bool took_turns(const struct db_event *ev)
{
	return ev->supported && ev->group != 0 && ev->total.present &&
	       ev->total.enabled && ev->total.running * 1000 < ev->total.enabled * 999;
}

/* "cycles (70%), instructions:u (70%)": the events that took turns, with
 * the share of the time each counted; NULL when none did (or no memory). */
static char *turns_text(const struct db_run *run)
{
	char *text = NULL;
	size_t len = 0, n = 0;
	FILE *fp = open_memstream(&text, &len);
	if (!fp)
		return NULL;
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		if (took_turns(ev))
			fprintf(fp, "%s%s (%.0f%%)", n++ ? ", " : "", ev->name,
				100.0 * (double)ev->total.running / (double)ev->total.enabled);
	}
	if (fclose(fp) || !n) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * Counted per CPU, a hardware group the kernel multiplexes off the PMU
 * takes no switch samples meanwhile and moves at the mux timer, not at
 * switches: its sample covers the slices of every thread that ran on
 * the CPU since its last, and percpu.c shares it over them by their
 * lengths. That is an estimate, the steady rate perf's scaling assumes:
 * measured in the arm64 guest, three threads' instructions:u under 10
 * events on 7 counters within 0.16% (docs/arm64.md), where giving it
 * all to the sample's thread was off by -51% and +34%. So the run is
 * complete and says so in a note (the setting percpu_mux_estimate);
 * where a sample could not be shared (the CPU's slices not kept), the
 * old way stands, and the run is incomplete. Then there is the switch
 * time no row holds: a task reaped before its last switch, whose
 * switch-in was not seen either, took what it did then into no row.
 * Microseconds, as a rule; more than a millisecond or 0.1% of the whole
 * is a loss.
 */
static void audit_percpu(struct audit *a)
{
	struct db_run *run = a->run;
	char *turns = counters_path(a->cs) == COUNTERS_PATH_PERCPU ? turns_text(run) : NULL;
	if (turns && a->h.mux_unsplit)
		reason(a, "the hardware events took turns on the PMU (%s): counted "
		       "per CPU, %llu of their samples could not be shared over the "
		       "threads that ran meanwhile (the CPU's slices were not kept: "
		       "no memory, or a group long off the PMU) and went whole to one "
		       "thread, so their per-thread values are not each thread's own "
		       "(the totals are scaled right): count fewer hardware events at "
		       "once, or per task (PROF_COUNT_PATH=task)", turns,
		       (unsigned long long)a->h.mux_unsplit);
	else if (turns) {
		char *note = NULL;
		if (asprintf(&note, "the hardware events took turns on the PMU (%s): "
			     "their totals are scaled by time enabled / time running, "
			     "and each thread's values of them are estimates: what a "
			     "group counted while several threads ran on a CPU is shared "
			     "out by each one's time there, as if the rate were steady",
			     turns) >= 0) {
			db_set_str(run, SET_PERCPU_MUX_ESTIMATE, note);
			run_note("%s", note);
			free(note);
		}
	}
	free(turns);
	if (a->h.unattributed) {
		uint64_t total = a->tc >= 0 ? run->events[a->tc].total.value : 0;
		if (a->h.unattributed_ns > 1000000 && a->h.unattributed_ns * 1000 > total)
			reason(a, "%.1f ms of task-clock in %llu switches belong "
			       "to tasks that were reaped before their last switch "
			       "could be named", a->h.unattributed_ns / 1e6,
			       (unsigned long long)a->h.unattributed);
	}
}

/*
 * An independent witness: the scheduler's own account of the root task
 * against the task-clock its row was left with. A VM's host that stole
 * the CPU from the task counts in its task-clock (wall time on the CPU)
 * but not in the scheduler's clock of a kernel with steal accounting:
 * what the host stole meanwhile is allowed. About 1 run in 100 of make
 * -j2 of 240 shells was flagged here without it (make's row 104-199 ms
 * against the scheduler's 40-60), each the run of its batch with the most
 * steal (150-300 ms, 38 ms on average).
 */
static void audit_root_clock(struct audit *a)
{
	const struct db_run *run = a->run;
	if (a->root_own_ns < 0 || !run->nthreads || a->tc < 0)
		return;
	const struct db_count *c = &run->threads[0].counts[a->tc];
	int64_t row = c->present ? (int64_t)c->value : 0;
	int64_t slack = 50000000 + a->root_own_ns / 4 + (a->stolen_ns > 0 ? a->stolen_ns : 0);
	if (row > a->root_own_ns + slack)
		reason(a, "%s's row holds %.1f ms of task-clock but the "
		       "scheduler counted %.1f ms of its own: about %.1f ms "
		       "belong to tasks with no row", a->root, row / 1e6,
		       a->root_own_ns / 1e6, (row - a->root_own_ns) / 1e6);
}

/*
 * The other direction, for the whole tree: wait4's account of the
 * command and the children it waited for, against all the task-clock
 * counted. The gap is the time a task ran with no counter on it: the
 * launch itself, before the counters count (measured per run,
 * uncounted_ns: 0.6 ms here, up to 26 ms under QEMU), and each task's
 * exit runs on after its counters are closed (14 us a thread in a
 * 3,000-thread churn here), hence the allowance per task. Each context
 * switch of a task adds its own gap, the scheduler's time around the
 * switch that no counter sees (about 5 us quiet, 16 us a switch on this
 * VM under load: 20,000 short nanosleeps of one thread, 314 ms against
 * 644 ms), hence an allowance per switch too, where context-switches was
 * counted or the per-CPU path saw them (its switch samples): with -e
 * task-clock alone, 3 threads of 300 short sleeps each were flagged 1
 * run in 10 (a 12.7 ms gap over 900 switches).
 */
static void audit_tree_clock(struct audit *a)
{
	const struct db_run *run = a->run;
	double switches = (double)a->h.switches;
	long sw = db_run_event_by_attr(run, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	if (sw >= 0 && run->events[sw].total.present)
		switches = (double)run->events[sw].total.value;
	if (!a->launched || a->tc < 0 || !run->events[a->tc].total.present)
		return;
	const struct db_event *ev = &run->events[a->tc];
	double waited = (run->user_s + run->sys_s) * 1e9;
	double counted = (double)ev->total.value;
	if (waited > counted + 5e6 + (double)a->uncounted_ns + waited / 5 +
		     50e3 * (double)run->nthreads + 25e3 * switches)
		reason(a, "the kernel's account of the command's CPU time "
		       "(wait4: %.1f ms) exceeds the task-clock counted "
		       "(%.1f ms): %.1f ms ran with no counter on it", waited / 1e6,
		       counted / 1e6, (waited - counted) / 1e6);
}

/* The ring buffers' evidence, as settings, whether complete or not. */
static void keep_ring_evidence(struct db_run *run, const struct counters_health *h)
{
	db_set_u64(run, SET_RING_PAST_HEAD, h->past_head);
	db_set_u64(run, SET_RING_TORN_BYTES, h->torn_bytes);
	db_set_u64(run, SET_RING_NAMES_FROM_PROC, h->names_from_proc);
	if (h->unattributed)
		db_set_u64(run, SET_PERCPU_UNATTRIBUTED_NS, h->unattributed_ns);
	if (h->reaped_by_stack)
		db_set_u64(run, SET_PERCPU_REAPED_BY_STACK, h->reaped_by_stack);
	if (h->mux_split)
		db_set_u64(run, SET_PERCPU_MUX_SPLIT, h->mux_split);
	if (h->mux_unsplit)
		db_set_u64(run, SET_PERCPU_MUX_UNSPLIT, h->mux_unsplit);
	if (h->stalls.n) {
		db_set_u64(run, SET_PERCPU_STALLS, h->stalls.n);
		db_set_u64(run, SET_PERCPU_STALL_NS, h->stalls.ns);
		db_set_u64(run, SET_PERCPU_STALL_MAX_NS, h->stalls.max_ns);
		/* Not incomplete: every count is in some row, but the
		 * rows of the threads either side of such a switch may
		 * each be off by that much (docs/kernels.md). */
		run_note("the CPU stood still for %.1f ms inside %llu of the "
			 "workload's context switches (the longest %.1f ms), as a "
			 "VM does when its host takes the CPU away: up to that much "
			 "CPU time may be in a neighbouring thread's row",
			 h->stalls.ns / 1e6, (unsigned long long)h->stalls.n,
			 h->stalls.max_ns / 1e6);
	}
	/* The names are right; what it says is that the ring lost records
	 * without a trace, which the checks above look for otherwise. */
	if (h->names_from_proc)
		run_note("%llu %s named from /proc: %s COMM record never arrived "
			 "(another CPU's record took its place in the ring buffer)",
			 (unsigned long long)h->names_from_proc,
			 plural(h->names_from_proc, "thread was", "threads were"),
			 plural(h->names_from_proc, "its", "their"));
}

/*
 * Decide whether the run is complete and say why not: the settings
 * "complete" ("yes"/"no") and "incomplete" (one reason a line), and the
 * ring-buffer evidence.
 */
static int audit_run(struct db_run *run, const struct collect_ctx *cx, char **cause)
{
	struct audit a = {
		.run = run, .cs = cx->cs, .launched = cx->launched,
		.root_own_ns = cx->root_own_ns, .uncounted_ns = cx->uncounted_ns,
		.stolen_ns = cx->stolen_ns,
	};
	bool *supported = calloc(run->nevents ? run->nevents : 1, sizeof(bool));
	if (!supported)
		return fill_oom(cause, "completeness");
	for (size_t e = 0; e < run->nevents; e++)
		supported[e] = run->events[e].supported;
	thread_table_audit(counters_threads(cx->cs), supported, &a.tasks);
	free(supported);
	counters_health(cx->cs, &a.h);
	char *text = NULL;
	size_t len = 0;
	if (!(a.fp = open_memstream(&text, &len)))
		return fill_oom(cause, "completeness");
	a.root = run->nthreads && run->threads[0].name ? run->threads[0].name : "main";
	a.tc = db_run_event_by_attr(run, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	audit_tasks(&a);
	audit_rings(&a);
	audit_percpu(&a);
	audit_root_clock(&a);
	audit_tree_clock(&a);
	if (fclose(a.fp) || !text) {
		free(text);
		return fill_oom(cause, "completeness");
	}
	keep_ring_evidence(run, &a.h);
	db_set_yesno(run, SET_COMPLETE, !a.n);
	if (a.n)
		db_set_str(run, SET_INCOMPLETE, text);
	free(text);
	return 0;
}

/* ---- the collector ---- */

static int counters_fill(void *self, struct collect_ctx *cx, struct db_run *run,
			 char **cause)
{
	const struct runner_opts *o = cx->o;
	int rc;
	(void)self;
	if ((rc = collect_fill_host(run, cause)))
		return rc;
	if (!run->pin.mode) {
		bool oom = false;
		run->pin.mode = fill_strdup("none", &oom);
		run->pin.status = fill_strdup("not requested", &oom);
		if (oom)
			return fill_oom(cause, "pin");
	}
	run->lost_records = thread_table_lost(counters_threads(cx->cs));
	if ((rc = fill_events(run, cx->cs, o->evs, o->nev, cause)) ||
	    (rc = fill_threads(run, counters_threads(cx->cs), cx->co->plan, cause)))
		return rc;
	db_set_str(run, SET_COUNT_PATH, counters_path_name(counters_path(cx->cs)));
	if (cx->co->nsamplers)
		db_set_str(run, SET_SAMPLE_PATH,
			   counters_path_name(counters_sample_path(cx->cs)));
	if (counters_path_note(cx->cs))
		db_set_str(run, SET_COUNT_PATH_NOTE, counters_path_note(cx->cs));
	return audit_run(run, cx, cause);
}

const struct collector_ops collect_counters = {
	.name = "counters",
	.fill = counters_fill,
};
