/*
 * runutil: the database, the completeness verdict, and the one-time
 * "not supported" warning, shared by the verbs that launch workloads.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/errtext.h"
#include "prof/run/run.h"
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
	char *cause = NULL;
	if (collect_fill_host(run, &cause))
		print_cause("warning: ", cause);
	free(cause);
}

void run_machine_begin(struct run_machine *m, const char *sysfs_root)
{
	memset(m, 0, sizeof(*m));
	m->have_env = runenv_read(&m->env, sysfs_root, "/") == 0;
	m->have_before = sys_snap_read(&m->before, "/proc") == 0;
}

void run_machine_end(struct run_machine *m, struct db_run *run)
{
	char *cause = NULL;
	if (run && m->have_env && collect_fill_env(run, &m->env, &cause))
		print_cause("warning: ", cause);
	free(cause);
	if (run && m->have_before && sys_snap_read(&m->after, "/proc") == 0)
		collect_fill_system(run, &m->before, &m->after);
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
	else if (f->marker && db_get_str(run, SET_FRAME_NOTE))
		warning_msg("--frames: no marker was kept (above): no frames stored");
	else if (f->marker)
		warning_msg("--frames: the workload marked no frame "
			"(prof_frame() from include/prof_marker.h, or use "
			"--frame-regex): no frames stored");
}
