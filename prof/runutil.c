/*
 * runutil: the database, the completeness audit, and the one-time
 * "not supported" warning, shared by the verbs that launch workloads.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/errtext.h"
#include "prof/convert.h"
#include "prof/runutil.h"
#include "reports/frames.h"
#include "reports/runs.h"
#include "reports/sysenv.h"
#include "reports/timeline.h"

int run_state_store(struct verb_ctx *vc, struct db_run *run, char **cause)
{
	struct db *db = verb_db(vc);
	if (!db) {
		/* Said in full before the run: its first line again. */
		const char *why = vc->db_cause ? vc->db_cause : "the database could not be opened";
		*cause = strndup(why, strcspn(why, "\n"));
		return EXIT_FAIL;
	}
	if (db_run_store(db, run, cause) != 0) {
		run->id = 0;
		return EXIT_FAIL;
	}
	return 0;
}

void run_state_not_stored(const char *cause, const char *out)
{
	print_cause("error: ", cause ? cause : "the database refused the run");
	if (out) {
		char buf[64];
		fprintf(stderr, "hint: the run was not stored; the report in '%s' is "
			"all that is left of it\n", cli_echo(out, buf, sizeof(buf)));
	} else {
		fprintf(stderr, "hint: the counts above were not stored; they are all "
			"that is left of this run (-o FILE keeps a copy)\n");
	}
}

bool run_state_print(struct verb_ctx *vc, const struct db_run *run,
		     enum report_by by, enum out_format fmt, bool unstored)
{
	FILE *fp = verb_out(vc);
	bool ok = false;
	if (fp) {
		report_run(run, by, fmt, fp);
		report_timeline(run, fmt, fp);
		report_frames_summary(run, fmt, fp);
		ok = verb_out_close(vc) == 0;
	}
	if (!ok && vc->out_path && unstored)
		report_run(run, by, fmt, stderr);
	return ok;
}

void run_state_now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./=:,+@%", *s))
			return true;
	return false;
}

char *run_state_command_line(char *const *argv, int argc)
{
	size_t len = 0;
	char *out = NULL;
	FILE *fp = open_memstream(&out, &len);
	for (int i = 0; i < argc; i++) {
		if (i)
			fputc(' ', fp);
		if (!needs_quotes(argv[i])) {
			fputs(argv[i], fp);
			continue;
		}
		fputc('\'', fp);
		for (const char *p = argv[i]; *p; p++) {
			if (*p == '\'')
				fputs("'\\''", fp);
			else
				fputc(*p, fp);
		}
		fputc('\'', fp);
	}
	fclose(fp);
	return out;
}

static void reason(FILE *fp, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void reason(FILE *fp, size_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if ((*n)++)
		fputc('\n', fp);
	vfprintf(fp, fmt, ap);
	va_end(ap);
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

bool run_state_audit(struct db_run *run, const struct counters *cs,
		     bool launched, int64_t root_own_ns, int64_t uncounted_ns,
		     int64_t stolen_ns)
{
	const struct thread_table *tt = counters_threads(cs);
	bool *supported = calloc(run->nevents ? run->nevents : 1, sizeof(bool));
	if (!supported)
		abort();
	for (size_t e = 0; e < run->nevents; e++)
		supported[e] = run->events[e].supported;
	struct thread_audit a;
	thread_table_audit(tt, supported, &a);
	free(supported);
	struct counters_health h;
	counters_health(cs, &h);

	char *text = NULL;
	size_t len = 0, n = 0;
	FILE *fp = open_memstream(&text, &len);
	if (!fp)
		abort();
	const char *root = run->nthreads && run->threads[0].name ? run->threads[0].name : "main";
	if (a.no_counts)
		reason(fp, &n, "%zu of %zu tasks exited without their counts "
		       "arriving; their counts are in %s's row", a.no_counts,
		       a.tasks, root);
	if (a.partial)
		reason(fp, &n, "%zu %s only some of their counts", a.partial,
		       plural(a.partial, "task has", "tasks have"));
	if (a.no_start)
		reason(fp, &n, "%zu %s no start record (its FORK was not "
		       "received): tasks may be missing altogether", a.no_start,
		       plural(a.no_start, "task has", "tasks have"));
	if (a.live && launched)
		reason(fp, &n, "%zu %s still running when the command ended "
		       "(daemons or orphans): %s counts so far are in %s "
		       "creator's row", a.live, plural(a.live, "task was", "tasks were"),
		       plural(a.live, "its", "their"), plural(a.live, "its", "their"));
	if (a.privileged)
		reason(fp, &n, "%zu %s (%s) exec'd a set-user-ID or set-group-ID "
		       "program: the kernel stops counting a task whose privileges "
		       "change at exec, so %s counts end there (not countable here)",
		       a.privileged, plural(a.privileged, "task", "tasks"),
		       a.privileged_name, plural(a.privileged, "its", "their"));
	if (run->lost_records)
		reason(fp, &n, "the kernel lost %llu ring-buffer records (buffer "
		       "full): raise --mmap-pages", (unsigned long long)run->lost_records);
	if (h.torn_runs)
		reason(fp, &n, "%llu bytes of ring-buffer records were unreadable "
		       "in %llu %s (two CPUs wrote over each other)",
		       (unsigned long long)h.torn_bytes, (unsigned long long)h.torn_runs,
		       plural(h.torn_runs, "place", "places"));
	if (h.undecodable)
		reason(fp, &n, "%llu ring-buffer records could not be decoded",
		       (unsigned long long)h.undecodable);
	if (h.percpu_lost)
		reason(fp, &n, "the kernel lost %llu records of the per-CPU "
		       "buffers (buffer full): some switches' counts went to the "
		       "wrong thread; raise --mmap-pages",
		       (unsigned long long)h.percpu_lost);
	/* Counted per CPU, a hardware group the kernel multiplexes off the
	 * PMU takes no switch samples meanwhile and moves at the mux timer,
	 * not at switches: its counts land on whichever thread switches next
	 * (measured: -51% and +34% for two threads of a uniform loop in the
	 * arm64 guest), while the totals stay scaled right (-0.18%). */
	for (size_t e = 0; counters_path(cs) == COUNTERS_PATH_PERCPU && e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		if (!ev->supported || ev->group == 0 || !ev->total.present ||
		    !ev->total.enabled || ev->total.running * 1000 >= ev->total.enabled * 999)
			continue;
		reason(fp, &n, "the hardware events took turns on the PMU (%s counted "
		       "%.0f%% of the time): counted per CPU, their per-thread values "
		       "are not each thread's own (the totals are scaled right): "
		       "count fewer hardware events at once, or per task "
		       "(PROF_COUNT_PATH=task)", ev->name,
		       100.0 * (double)ev->total.running / (double)ev->total.enabled);
		break;
	}
	/* A task reaped before its last switch, whose switch-in was not
	 * seen either: what it did then is in no row. Microseconds, as a
	 * rule; more than a millisecond or 0.1% of the whole is a loss. */
	long tc = db_run_event_by_attr(run, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	if (h.unattributed) {
		uint64_t total = tc >= 0 ? run->events[tc].total.value : 0;
		if (h.unattributed_ns > 1000000 && h.unattributed_ns * 1000 > total)
			reason(fp, &n, "%.1f ms of task-clock in %llu switches belong "
			       "to tasks that were reaped before their last switch "
			       "could be named", h.unattributed_ns / 1e6,
			       (unsigned long long)h.unattributed);
	}
	/* An independent witness: the scheduler's own account of the root
	 * task against the task-clock its row was left with. A VM's host
	 * that stole the CPU from the task counts in its task-clock (wall
	 * time on the CPU) but not in the scheduler's clock of a kernel with
	 * steal accounting: what the host stole meanwhile is allowed. About
	 * 1 run in 100 of make -j2 of 240 shells was flagged here without
	 * it (make's row 104-199 ms against the scheduler's 40-60), each
	 * the run of its batch with the most steal (150-300 ms, 38 ms on
	 * average). */
	if (root_own_ns >= 0 && run->nthreads && tc >= 0) {
		const struct db_count *c = &run->threads[0].counts[tc];
		int64_t row = c->present ? (int64_t)c->value : 0;
		int64_t slack = 50000000 + root_own_ns / 4 + (stolen_ns > 0 ? stolen_ns : 0);
		if (row > root_own_ns + slack)
			reason(fp, &n, "%s's row holds %.1f ms of task-clock but the "
			       "scheduler counted %.1f ms of its own: about %.1f ms "
			       "belong to tasks with no row", root, row / 1e6,
			       root_own_ns / 1e6, (row - root_own_ns) / 1e6);
	}
	/* The other direction, for the whole tree: wait4's account of the
	 * command and the children it waited for, against all the
	 * task-clock counted. The gap is the time a task ran with no
	 * counter on it: the launch itself, before the counters count
	 * (measured per run, uncounted_ns: 0.6 ms here, up to 26 ms under
	 * QEMU), and each task's exit runs on after its counters are closed
	 * (14 us a thread in a 3,000-thread churn here), hence the
	 * allowance per task. Each context switch of a task adds its own
	 * gap, the scheduler's time around the switch that no counter sees
	 * (about 5 us quiet, 16 us a switch on this VM under load: 20,000
	 * short nanosleeps of one thread, 314 ms against 644 ms), hence an
	 * allowance per switch too, where context-switches was counted or
	 * the per-CPU path saw them (its switch samples): with -e task-clock
	 * alone, 3 threads of 300 short sleeps each were flagged 1 run in
	 * 10 (a 12.7 ms gap over 900 switches). */
	double switches = (double)h.switches;
	long sw = db_run_event_by_attr(run, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	if (sw >= 0 && run->events[sw].total.present)
		switches = (double)run->events[sw].total.value;
	if (launched && tc >= 0 && run->events[tc].total.present) {
		const struct db_event *ev = &run->events[tc];
		double waited = (run->user_s + run->sys_s) * 1e9;
		double counted = (double)ev->total.value;
		if (waited > counted + 5e6 + (double)uncounted_ns + waited / 5 +
			     50e3 * (double)run->nthreads + 25e3 * switches)
			reason(fp, &n, "the kernel's account of the command's CPU time "
			       "(wait4: %.1f ms) exceeds the task-clock counted "
			       "(%.1f ms): %.1f ms ran with no counter on it", waited / 1e6,
			       counted / 1e6, (waited - counted) / 1e6);
	}
	fclose(fp);
	char num[32];
	snprintf(num, sizeof(num), "%llu", (unsigned long long)h.past_head);
	db_run_set(run, "ring_past_head", num);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)h.torn_bytes);
	db_run_set(run, "ring_torn_bytes", num);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)h.names_from_proc);
	db_run_set(run, "ring_names_from_proc", num);
	if (h.unattributed) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)h.unattributed_ns);
		db_run_set(run, "percpu_unattributed_ns", num);
	}
	if (h.reaped_by_stack) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)h.reaped_by_stack);
		db_run_set(run, "percpu_reaped_by_stack", num);
	}
	/* The names are right; what it says is that the ring lost records
	 * without a trace, which the checks above look for otherwise. */
	if (h.names_from_proc)
		note_msg("%llu %s named from /proc: %s COMM record never arrived "
			 "(another CPU's record took its place in the ring buffer)",
			 (unsigned long long)h.names_from_proc,
			 plural(h.names_from_proc, "thread was", "threads were"),
			 plural(h.names_from_proc, "its", "their"));
	db_run_set(run, "complete", n ? "no" : "yes");
	if (n)
		db_run_set(run, "incomplete", text);
	free(text);
	return n == 0;
}

int run_incomplete_exit(const struct db_run *run, bool allow, int exit_code)
{
	const char *why = NULL;
	if (db_run_complete(run, &why) != 0)
		return exit_code;
	size_t n = strcspn(why, "\n");
	char which[48] = "this run";
	if (run->id > 0)
		snprintf(which, sizeof(which), "run %lld", (long long)run->id);
	fprintf(allow ? cli_talk() : stderr, "%s: %s is incomplete: %.*s%s\n",
		allow ? "warning" : "error", which, (int)n, why,
		!why[n] ? "" : run->id > 0 ? " (and more: 'prof report' lists every reason)"
		: " (and more)");
	if (allow)
		return exit_code;
	fprintf(stderr, "hint: --allow-incomplete keeps the command's exit status\n");
	return exit_code == EXIT_OK ? EXIT_FAIL : exit_code;
}

void report_unsupported(const struct counters *cs, const struct event_desc *evs,
			size_t nev)
{
	/* One line per distinct reason, listing the events it refused. */
	bool *done = calloc(nev ? nev : 1, sizeof(bool));
	FILE *fp = cli_talk();
	for (size_t i = 0; i < nev; i++) {
		const struct counter_status *si = counters_status(cs, i);
		if (si->supported || done[i])
			continue;
		const char *ri = si->reason ? si->reason : "refused";
		size_t li = strcspn(ri, "\n");
		fprintf(fp, "warning: not supported here, reported as missing: %s",
			evs[i].name);
		done[i] = true;
		for (size_t j = i + 1; j < nev; j++) {
			const struct counter_status *sj = counters_status(cs, j);
			if (sj->supported || done[j])
				continue;
			const char *rj = sj->reason ? sj->reason : "refused";
			if (strcspn(rj, "\n") == li && !strncmp(ri, rj, li)) {
				fprintf(fp, ", %s", evs[j].name);
				done[j] = true;
			}
		}
		fprintf(fp, " (%.*s)\n", (int)li, ri);
		if (ri[li] == '\n')
			fprintf(fp, "%s\n", ri + li + 1);
	}
	free(done);
}

int pin_plan_for_launch(struct pin_plan *plan, const char *pin_opt,
			int affinity, const char *sysfs)
{
	char *warn = NULL, *cause = NULL;
	const char *mode = pin_choose_mode(pin_opt, affinity,
					   getenv("PROF_CACHE_AFFINITY"), &warn, &cause);
	if (!mode) {
		print_cause("error: ", cause);
		free(cause);
		return EXIT_USAGE;
	}
	if (warn) {
		warning_msg("%s", warn);
		free(warn);
		warn = NULL;
	}
	int rc = pin_plan_make(plan, mode, sysfs, &warn, &cause);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		return exit_code_for(rc);
	}
	if (warn) {
		warning_msg("%s", warn);
		free(warn);
	}
	return 0;
}

void pin_note_attach(long pid, int affinity)
{
	const char *env = getenv("PROF_CACHE_AFFINITY");
	char *warn = NULL;
	const char *mode = pin_choose_mode(NULL, affinity, env, &warn, NULL);
	free(warn);
	if (!mode || !strcmp(mode, "none"))
		return;
	note_msg("not pinning process %ld: PROF_CACHE_AFFINITY=%.20s asks "
		"for %s, but prof pins only a command it launches, before exec, so "
		"that every thread inherits the pin; an attached process keeps the "
		"affinity it has (taskset -a -p changes it)", pid, env, mode);
}

int ab_report_by_name(struct db *db, const struct db_experiment *e,
		      const struct ab_gate_rule *gate, enum out_format fmt, FILE *fp)
{
	struct db_run *runs = calloc(e->nruns + 1, sizeof(*runs));
	char *cause = NULL;
	int rc = EXIT_OK;
	size_t loaded = 0;
	if (!runs)
		return error_msg("out of memory");
	for (; loaded < e->nruns; loaded++) {
		if (db_run_load(db, e->runs[loaded].run_id, &runs[loaded], &cause)) {
			rc = fail_cause(cause, EXIT_FAIL);
			goto out;
		}
	}
	struct ab_by_name g;
	if (ab_by_name_analyze(e, runs, gate, &g, &cause)) {
		rc = fail_cause(cause, EXIT_FAIL);
		goto out;
	}
	ab_render_by_name(&g, fmt, fp);
	ab_by_name_release(&g);
out:
	for (size_t i = 0; i < loaded; i++)
		db_run_release(&runs[i]);
	free(runs);
	return rc;
}

int ab_parse_by(struct verb_ctx *vc, const char *arg, void *field)
{
	char buf[64];
	if (!strcmp(arg, "arm"))
		*(bool *)field = false;
	else if (!strcmp(arg, "name"))
		*(bool *)field = true;
	else
		return usage_error(vc->name, "bad --by '%s': expected arm (the default) "
				   "or name (per thread name)", cli_echo(arg, buf, sizeof(buf)));
	return 0;
}

struct ab_gate_rule ab_gate_for(struct db *db, const struct db_experiment *e,
				double given_pct, struct db_experiment *aa,
				bool *have_aa)
{
	struct ab_gate_rule g = { isnan(given_pct) ? e->gate_pct : given_pct, NULL, 1.0 };
	*have_aa = false;
	if (e->aa || !isnan(g.given_pct) || !e->narms)
		return g;
	int64_t id = db_experiment_latest_aa(db, e->host_id, e->arms[0].command, NULL);
	if (id <= 0 || id >= e->id)
		return g;
	char *cause = NULL;
	if (db_experiment_load(db, id, aa, &cause) == 0) {
		*have_aa = true;
		g.aa = aa;
	} else {
		/* The gate falls back to the default, and says why. */
		warning_msg("the A/A experiment %lld cannot set the gate, so it is "
			    "the default: %s", (long long)id, cause ? cause : "?");
	}
	free(cause);
	return g;
}

size_t run_env_warn(const struct db_run *a, const struct db_run *b)
{
	char **lines;
	size_t n = report_env_diff(a, b, &lines);
	if (n)
		warning_msg("runs %lld and %lld ran on a machine set up differently; "
			    "their difference may come from it:", (long long)a->id,
			    (long long)b->id);
	for (size_t i = 0; i < n; i++) {
		fprintf(cli_talk(), "  %s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	return n;
}

/* The first run of arm a, a warm-up only when the arm has nothing else. */
static const struct db_exp_run *first_of_arm(const struct db_experiment *e, int a)
{
	const struct db_exp_run *warm = NULL;
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *r = &e->runs[i];
		if (r->arm != a)
			continue;
		if (!r->warmup)
			return r;
		if (!warm)
			warm = r;
	}
	return warm;
}

size_t run_exp_env_warn(struct db *db, const struct db_experiment *e)
{
	const struct db_exp_run *x = first_of_arm(e, 0);
	struct db_run base;
	size_t n = 0;
	if (!x || db_run_load(db, x->run_id, &base, NULL))
		return 0;
	for (size_t a = 1; a < e->narms; a++) {
		const struct db_exp_run *y = first_of_arm(e, (int)a);
		struct db_run other;
		if (!y || db_run_load(db, y->run_id, &other, NULL))
			continue;
		n += run_env_warn(&base, &other);
		db_run_release(&other);
	}
	db_run_release(&base);
	return n;
}

void run_state_self(struct db_run *run, const char *kind, int argc,
		    char *const *argv, const char *started)
{
	memset(run, 0, sizeof(*run));
	run->kind = strdup(kind);
	run->started = strdup(started);
	char **full = calloc((size_t)argc + 2, sizeof(char *));
	if (full) {
		full[0] = "prof";
		for (int i = 0; i < argc; i++)
			full[i + 1] = argv[i];
		run->command = run_state_command_line(full, argc + 1);
		/* argv as typed too (copies: the run frees them). */
		run->argv = calloc((size_t)argc + 2, sizeof(char *));
		for (int i = 0; run->argv && i < argc + 1; i++)
			run->argv[i] = strdup(full[i]);
		run->argc = run->argv ? argc + 1 : 0;
		free(full);
	}
	run->pid = (int32_t)getpid();
	convert_host(run);
}

void run_machine_begin(struct run_machine *m, const char *sysfs_root)
{
	memset(m, 0, sizeof(*m));
	m->have_env = runenv_read(&m->env, sysfs_root, "/") == 0;
	m->have_before = sys_snap_read(&m->before, "/proc") == 0;
}

void run_machine_end(struct run_machine *m, struct db_run *run)
{
	if (run && m->have_env)
		convert_env(run, &m->env);
	if (run && m->have_before && sys_snap_read(&m->after, "/proc") == 0 &&
	    convert_system(run, &m->before, &m->after))
		warning_msg("cannot keep the machine's deltas: %s", ERR_TEXT(ENOMEM));
	runenv_release(&m->env);
	sys_snap_release(&m->before);
	sys_snap_release(&m->after);
	memset(m, 0, sizeof(*m));
}

int stored_run_load(struct db *db, int64_t id, struct stored_run *s, char **cause)
{
	memset(s, 0, sizeof(*s));
	int rc = db_run_load(db, id, &s->run, cause);
	if (rc)
		return rc;
	s->is_sleep = s->run.kind && !strcmp(s->run.kind, "sleep");
	s->is_probe = s->run.kind && !strcmp(s->run.kind, "probe");
	if (s->is_sleep)
		rc = db_sleep_load(db, s->run.id, &s->sleep, cause);
	else if (s->is_probe)
		rc = db_probe_load(db, s->run.id, &s->probe, cause);
	if (rc)
		stored_run_release(s);
	return rc;
}

void stored_run_release(struct stored_run *s)
{
	db_sleep_release(&s->sleep);
	db_probe_release(&s->probe);
	db_run_release(&s->run);
	memset(s, 0, sizeof(*s));
}

void run_frames_warn(const struct db_run *run, const struct frame_args *f)
{
	const char *symbol = f->symbol, *regex = f->regex;
	char buf[64];
	if (run->nframes)
		return;
	if (symbol)
		warning_msg("--frame-symbol '%s': the function was "
			"called fewer than twice: no frames stored",
			cli_echo(symbol, buf, sizeof(buf)));
	else if (regex)
		warning_msg("--frame-regex '%s' matched no line of the "
			"workload's output: no frames stored",
			cli_echo(regex, buf, sizeof(buf)));
	else if (f->marker && db_run_get(run, "frame_note"))
		warning_msg("--frames: no marker was kept (above): no frames stored");
	else if (f->marker)
		warning_msg("--frames: the workload marked no frame "
			"(prof_frame() from include/prof_marker.h, or use "
			"--frame-regex): no frames stored");
}
