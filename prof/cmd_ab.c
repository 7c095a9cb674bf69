/*
 * prof ab: interleaved A/B runs with paired statistics and a noise gate.
 * Every run is stored as it finishes; the table at the end is computed
 * from the database, so `prof compare` reprints exactly the same numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collectors/host.h"
#include "common/errtext.h"
#include "common/xalloc.h"
#include "db/experiments.h"
#include "prof/abplan.h"
#include "prof/experiment.h"
#include "prof/planopts.h"
#include "prof/progress.h"
#include "prof/run/run.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/ab.h"
#include "reports/scaling.h"

struct ab_args {
	struct ab_plan plan;
	bool show_output;
	bool no_multiplex;
	bool by_name;		/* --by name */
	bool simulate;		/* --simulate: counters from callgrind */
	const char *cache;	/* --cache SPEC for --simulate, or NULL */
	struct metric_pick metric;	/* --metric NAME... */
};

static void ab_args_init(void *args)
{
	ab_plan_init(&((struct ab_args *)args)->plan);
}

static void ab_args_release(void *args)
{
	ab_plan_release(&((struct ab_args *)args)->plan);
}

static int parse_seed(struct verb_ctx *vc, const char *arg, void *plan)
{
	struct ab_plan *p = plan;
	long n;
	char buf[64];
	if (!cli_parse_long(arg, 0, LONG_MAX, &n))
		return usage_error(vc->name, "bad --seed '%s': expected a whole number "
				   "from 0", cli_echo(arg, buf, sizeof(buf)));
	p->seed = (uint64_t)n;
	p->seed_given = true;
	return 0;
}

/* The A/A design: the one arm's command twice, as two arms. */
static void make_aa(struct ab_plan *p)
{
	char *spec;
	if (asprintf(&spec, "%s-2=%s", p->arms[0].name, p->arms[0].command) < 0)
		xalloc_die();
	ab_plan_add_arm(p, spec, NULL);
	free(spec);
	for (size_t i = 0; i < p->arms[0].nsettings; i++) {
		char *s;
		if (asprintf(&s, "%s.%s=%s", p->arms[1].name, p->arms[0].settings[i].key,
			     p->arms[0].settings[i].value) >= 0) {
			ab_plan_set(p, s, NULL);
			free(s);
		}
	}
}

/* The length of the UTF-8 sequence at s (up to end), or 0 when it is
 * not one: a terminal shows those as text, anything else as garbage. */
static size_t utf8_len(const unsigned char *s, const unsigned char *end)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3
		 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (!n || (size_t)(end - s) < n)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * The last lines of a failed run's stderr, as text: printable bytes and
 * UTF-8 as they are, any other byte as \xNN, so a workload that wrote
 * binary (compressed data, say) cannot garble the terminal. Mostly binary
 * output is only measured, not shown.
 */
static void print_tail(const char *text, size_t len, int lines)
{
	const unsigned char *s = (const unsigned char *)text, *end = s + len;
	size_t odd = 0;
	FILE *fp = cli_talk();
	for (const unsigned char *q = s; q < end; q++) {
		size_t u = *q >= 0x80 ? utf8_len(q, end) : 0;
		if (u)
			q += u - 1;
		else if ((*q < 0x20 && *q != '\n' && *q != '\t') || *q >= 0x7f)
			odd++;
	}
	if (!len) {
		fprintf(fp, "  | (nothing on stderr)\n");
		return;
	}
	if (odd * 10 > len) {
		fprintf(fp, "  | (%zu bytes on stderr, mostly binary: not shown)\n", len);
		return;
	}
	const unsigned char *p = end;
	int seen = 0;
	while (p > s && seen <= lines) {
		p--;
		if (*p == '\n' && p != end - 1)
			seen++;
	}
	if (*p == '\n')
		p++;
	while (p < end) {
		fputs("  | ", fp);
		for (; p < end && *p != '\n'; p++) {
			size_t u = *p >= 0x80 ? utf8_len(p, end) : 0;
			if (u) {
				fwrite(p, 1, u, fp);
				p += u - 1;
			} else if (*p == '\t' || (*p >= 0x20 && *p < 0x7f)) {
				fputc(*p, fp);
			} else {
				fprintf(fp, "\\x%02x", *p);
			}
		}
		fputc('\n', fp);
		if (p < end)
			p++;
	}
}

struct arm_env {
	char **env;
	struct pin_plan plan;
	const char *pin_chosen;		/* the mode, when no --set gave one */
	const char *cwd;
	struct sleep_plan *sleep;	/* --set ARM.sleep=MODE, or NULL */
};

/* The arm's own pin (--set ARM.pin=...), not every arm's. */
static const char *own_pin(const struct ab_plan *p, size_t a)
{
	for (size_t i = 0; i < p->arms[a].nsettings; i++)
		if (!strcmp(p->arms[a].settings[i].key, "pin"))
			return p->arms[a].settings[i].value;
	return NULL;
}

/*
 * The pin mode of arm a: its own --set ARM.pin wins (so a harness can
 * keep the control arm unpinned); else --set pin=, --cache-affinity /
 * --no-cache-affinity and PROF_CACHE_AFFINITY, as for prof run. NULL
 * after printing a usage error.
 */
static const char *arm_pin_mode(struct verb_ctx *vc, const struct ab_plan *p,
				size_t a, bool *warned)
{
	const char *own = own_pin(p, a);
	if (own)
		return own;
	char *warn = NULL, *cause = NULL;
	const char *mode = pin_choose_mode(ab_plan_get(p, a, "pin"), vc->launch.affinity,
					   getenv("PROF_CACHE_AFFINITY"), &warn, &cause);
	if (!mode) {
		verb_usage_cause(vc, cause);
		free(warn);
		return NULL;
	}
	if (warn && !*warned)
		warning_msg("%s", warn);
	*warned = *warned || warn;
	free(warn);
	return mode;
}

/* Everything one `prof ab` holds while it runs. */
struct ab_run {
	struct verb_ctx *vc;
	struct ab_args *o;
	struct ab_plan *p;
	struct event_desc *evs;
	size_t nev;
	struct arm_env *ae;		/* one per arm */
	struct run_sim *sims;		/* --simulate: one per arm, else NULL */
	struct db *db;
	struct db_experiment exp;	/* the experiment's row, once made */
	bool regex_scores;		/* a --score reads the output */
};

static void ab_run_release(struct ab_run *ar)
{
	for (size_t a = 0; ar->ae && a < ar->p->narms; a++) {
		struct arm_env *e = &ar->ae[a];
		pin_plan_release(&e->plan);
		if (e->sleep) {
			sleep_plan_release(e->sleep);
			free(e->sleep);
		}
		for (char **v = e->env; v && *v; v++)
			free(*v);
		free(e->env);
	}
	free(ar->ae);
	for (size_t a = 0; ar->sims && a < ar->p->narms; a++)
		run_sim_release(&ar->sims[a]);
	free(ar->sims);
	db_experiment_release(&ar->exp);
	event_list_free(ar->evs, ar->nev);
}

/* The usage errors that need no more than the options; 0 or the code. */
static int ab_check_args(struct verb_ctx *vc, struct ab_args *o)
{
	char *cause = NULL;
	int rc;
	if (vc->argc) {
		char buf[64];
		return usage_error(vc->name, "unexpected argument '%s': commands go in "
				   "--arm NAME=COMMAND",
				   cli_echo(vc->argv[0], buf, sizeof(buf)));
	}
	if ((rc = ab_plan_check(&o->plan, &cause)))
		return verb_usage_cause(vc, cause);
	if (o->cache && !o->simulate)
		return usage_error(vc->name, "--cache sets the caches --simulate "
				   "simulates: give --simulate too");
	const char *sym = o->plan.frame_symbol;
	/* A symbol the module lacks stops here, not at the first run. */
	if (sym && (rc = collect_frames_check_symbol(sym, &cause)))
		return rc == -EINVAL ? verb_usage_cause(vc, cause)
				     : fail_cause(cause, EXIT_FAIL);
	return 0;
}

/* -e, and what --simulate allows of it; 0 or the exit code. */
static int ab_parse_events(struct ab_run *ar)
{
	struct ab_plan *p = ar->p;
	char *cause = NULL;
	/* Simulated, the hardware counters are callgrind's: the software
	 * events count what valgrind itself cost (as prof run --simulate). */
	const char *events = ar->o->simulate ? run_sim_events(p->events) : p->events;
	int rc = event_list_parse(events, p->allow_generic ? EVENT_ALLOW_GENERIC : 0,
				  &ar->evs, &ar->nev, &cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	for (size_t i = 0; ar->o->simulate && i < ar->nev; i++)
		if (ar->evs[i].hardware)
			return usage_error(ar->vc->name, "with --simulate the hardware "
					   "counters are simulated: -e takes software "
					   "events only");
	if (ar->o->simulate && (p->window || p->working_set || ab_plan_has_frames(p)))
		return usage_error(ar->vc->name, "--simulate gives each run's totals: "
				   "--window, --working-set and frames count the real "
				   "machine (and would count valgrind)");
	return 0;
}

/* --simulate: each arm's command made ready for valgrind. */
static int ab_prepare_sims(struct ab_run *ar)
{
	if (!ar->o->simulate)
		return 0;
	ar->sims = calloc(ar->p->narms, sizeof(*ar->sims));
	for (size_t a = 0; ar->sims && a < ar->p->narms; a++) {
		int xargc;
		char *cause = NULL;
		char **xargv = ab_plan_exec_argv(ar->p, a, &xargc);
		int rc = run_sim_prepare(&ar->sims[a], xargv, ar->o->cache, NULL, &cause);
		if (rc)
			return fail_cause(cause, rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL);
	}
	return 0;
}

/* "error: arm 'NAME': CAUSE"; frees cause and returns code. */
static int arm_error(const struct ab_plan *p, size_t a, char *cause, int code)
{
	fprintf(stderr, "error: arm '%s': ", p->arms[a].name);
	print_cause("", cause);
	free(cause);
	return code;
}

/* The arm's env.VAR settings as VAR=VALUE, its own over every arm's;
 * NULL-terminated. */
static char **arm_env_vars(const struct ab_plan *p, size_t a)
{
	char **env = calloc(p->arms[a].nsettings + p->nall + 1, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < p->nall + p->arms[a].nsettings; i++) {
		const struct ab_setting *s = i < p->nall ? &p->all[i]
					     : &p->arms[a].settings[i - p->nall];
		if (strncmp(s->key, "env.", 4))
			continue;
		/* The arm's own value wins over the all-arms one. */
		const char *v = ab_plan_get(p, a, s->key);
		size_t n = strlen(s->key + 4);
		bool dup = false;
		for (size_t j = 0; j < k; j++)
			dup = dup || (!strncmp(env[j], s->key + 4, n) && env[j][n] == '=');
		if (!dup && asprintf(&env[k], "%s=%s", s->key + 4, v) >= 0)
			k++;
	}
	return env;
}

/* The arm's --set ARM.sleep=MODE (or every arm's), found and checked. */
static int arm_sleep(struct ab_run *ar, size_t a)
{
	struct ab_plan *p = ar->p;
	struct arm_env *e = &ar->ae[a];
	const char *sleep = ab_plan_get(p, a, "sleep");
	char *cause = NULL;
	if (!sleep)
		return 0;
	e->sleep = calloc(1, sizeof(*e->sleep));
	if (sleep_plan_parse(e->sleep, sleep, &cause))
		return arm_error(p, a, cause, EXIT_USAGE);
	if (sleep_plan_locate(e->sleep, &cause))
		return arm_error(p, a, cause, EXIT_FAIL);
	sleep_plan_check(e->sleep, p->arms[a].argv[0]);
	return 0;
}

/*
 * Everything arm a needs, checked before the first run: its command (with
 * the shell, sh says what it cannot find: 127, and its message in the
 * failed run's stderr tail), cwd, sleep mode, pin and environment. 0, or
 * the exit code after saying why.
 */
static int ab_prepare_arm(struct ab_run *ar, size_t a, bool *warned)
{
	struct ab_plan *p = ar->p;
	struct arm_env *e = &ar->ae[a];
	char *cause = NULL;
	char *path = launch_resolve(p->no_shell ? p->arms[a].argv[0] : "/bin/sh", &cause);
	if (!path)
		return arm_error(p, a, cause, EXIT_NOT_RUN);
	free(path);
	e->cwd = ab_plan_get(p, a, "cwd");
	struct stat sb;
	if (e->cwd && (stat(e->cwd, &sb) || !S_ISDIR(sb.st_mode))) {
		char buf[64];
		return usage_error("ab", "arm '%s': cwd '%s' is not a directory",
				   p->arms[a].name, cli_echo(e->cwd, buf, sizeof(buf)));
	}
	int code = arm_sleep(ar, a);
	if (code)
		return code;
	const char *mode = arm_pin_mode(ar->vc, p, a, warned);
	if (!mode)
		return EXIT_USAGE;
	if (!ab_plan_get(p, a, "pin") && strcmp(mode, "none"))
		e->pin_chosen = mode;
	char *warn = NULL;
	int rc = pin_plan_make(&e->plan, mode, NULL, &warn, &cause);
	if (rc)
		return arm_error(p, a, cause, exit_code_for(rc));
	if (warn) {
		warning_msg("arm '%s': %s", p->arms[a].name, warn);
		free(warn);
	}
	e->env = arm_env_vars(p, a);
	return 0;
}

/* Append key = value (both copied) to an arm's settings. */
static void arm_setting_add(struct db_arm *d, const char *key, const char *value)
{
	d->settings = realloc(d->settings, (d->nsettings + 1) * sizeof(*d->settings));
	d->settings[d->nsettings].key = strdup(key);
	d->settings[d->nsettings].value = strdup(value);
	d->nsettings++;
}

/* Arm a as the experiment stores it: its command, argv and settings. */
static void ab_exp_arm(struct ab_run *ar, size_t a)
{
	struct ab_plan *p = ar->p;
	struct db_arm *d = &ar->exp.arms[a];
	d->name = strdup(p->arms[a].name);
	d->command = strdup(p->arms[a].command);
	char **xargv = ab_plan_exec_argv(p, a, &d->argc);
	d->argv = calloc((size_t)d->argc + 1, sizeof(char *));
	for (int i = 0; i < d->argc; i++)
		d->argv[i] = strdup(xargv[i]);
	for (size_t i = 0; i < p->nall + p->arms[a].nsettings; i++) {
		const struct ab_setting *s = i < p->nall ? &p->all[i]
					     : &p->arms[a].settings[i - p->nall];
		bool seen = false;	/* keep one value per key */
		for (size_t j = 0; j < d->nsettings && !seen; j++)
			seen = !strcmp(d->settings[j].key, s->key);
		if (!seen)
			arm_setting_add(d, s->key, ab_plan_get(p, a, s->key));
	}
	/* A pin from --cache-affinity or the environment is the arm's
	 * setting too, so the report shows it. */
	if (ar->ae[a].pin_chosen)
		arm_setting_add(d, "pin", ar->ae[a].pin_chosen);
}

static char *fmt_g(double v)
{
	char *s;
	if (asprintf(&s, "%g", v) < 0)
		xalloc_die();
	return s;
}

/* The experiment's settings: events, every score and frame setting,
 * every --per, working-set, window, timeout, simulated and shell. */
static void ab_exp_settings(struct ab_run *ar)
{
	struct ab_plan *p = ar->p;
	struct db_kv **v = &ar->exp.settings;
	size_t *n = &ar->exp.nsettings;
	experiment_kv_add(v, n, "events", strdup(p->events));
	experiment_kv_scores(v, n, p, fmt_g(p->budget_ms));
	for (size_t i = 0; i < p->nper; i++)
		experiment_kv_add(v, n, "per", strdup(p->per[i]));
	if (p->working_set)
		experiment_kv_add(v, n, "working-set", strdup("1"));
	if (p->window)
		experiment_kv_add(v, n, "window", strdup(p->window));
	if (p->timeout_s > 0)
		experiment_kv_add(v, n, "timeout_s", fmt_g(p->timeout_s));
	/* Which metrics are the simulation's (reports/abstat.c judges them
	 * as deterministic): its events, by name. */
	char *simulated = ar->sims ? run_sim_event_list() : NULL;
	if (simulated)
		experiment_kv_add(v, n, "simulated", simulated);
	experiment_kv_add(v, n, "shell", strdup(p->no_shell ? "none" : "/bin/sh -c"));
}

/* The experiment row first, so every run can join it as it ends. From
 * here on signals are held: a Ctrl-C, also one between two runs, stops
 * after the current run and keeps the finished rounds. */
static int ab_create_experiment(struct ab_run *ar)
{
	struct ab_plan *p = ar->p;
	struct db_experiment *exp = &ar->exp;
	exp->order = strdup(experiment_order_word(p->order));
	exp->seed = p->seed;
	exp->rounds = p->rounds;
	exp->warmup = p->warmup;
	exp->settle_s = p->settle_s;
	exp->gate_pct = p->gate_pct;
	exp->aa = p->aa;
	exp->keep_going = p->keep_going;
	exp->narms = p->narms;
	exp->arms = calloc(p->narms, sizeof(*exp->arms));
	for (size_t a = 0; a < p->narms; a++)
		ab_exp_arm(ar, a);
	ab_exp_settings(ar);
	struct host_facts hf;
	host_facts_read(&hf);
	struct db_host host = { 0, hf.hostname, hf.kernel, hf.cpu_model, hf.online_cpus };
	runner_hold_signals();
	char *cause = NULL;
	int rc = db_experiment_create(ar->db, exp, &host, &cause);
	host_facts_release(&hf);
	return rc ? fail_cause(cause, EXIT_FAIL) : 0;
}

/* A slot's captured output: stdout and stderr apart (scores come from
 * either, a failure shows stderr's tail), and with a window and a regex
 * score the stdout lines that arrived inside it (stamped as they came). */
struct slot_files {
	int ofd, efd, wfd;
};

static int open_unlinked(char *tmpl)
{
	int fd = mkstemp(tmpl);
	if (fd >= 0)
		unlink(tmpl);
	return fd;
}

static void slot_files_open(struct slot_files *f, bool window_lines)
{
	char tmpl[] = "/tmp/prof-ab-out-XXXXXX";
	char etmpl[] = "/tmp/prof-ab-err-XXXXXX";
	char wtmpl[] = "/tmp/prof-ab-win-XXXXXX";
	f->ofd = open_unlinked(tmpl);
	f->efd = open_unlinked(etmpl);
	f->wfd = window_lines ? open_unlinked(wtmpl) : -1;
}

static void slot_files_close(struct slot_files *f)
{
	if (f->wfd >= 0)
		close(f->wfd);
	if (f->ofd >= 0)
		close(f->ofd);
	if (f->efd >= 0)
		close(f->efd);
}

/* What a slot's run wrote: --show-output echoes the last 4 MiB; scores
 * come from the last AB_SCORE_TEXT_MAX of it (ab_score_find). */
struct slot_text {
	char *out, *err, *win;		/* win: NULL without window lines */
	size_t olen, elen;
};

static void slot_text_read(struct slot_text *t, const struct slot_files *f)
{
	size_t max = 4 << 20;
	t->olen = t->elen = 0;
	t->out = f->ofd >= 0 ? experiment_slurp(f->ofd, max, &t->olen) : strdup("");
	t->err = f->efd >= 0 ? experiment_slurp(f->efd, max, &t->elen) : strdup("");
	t->win = f->wfd >= 0 ? experiment_slurp(f->wfd, max, NULL) : NULL;
}

static void slot_text_release(struct slot_text *t)
{
	free(t->out);
	free(t->err);
	free(t->win);
}

/* Run arm a once into *run. Simulated: callgrind's counters on the arm's
 * command; without its profiles the run is not stored (-EIO). */
static int ab_slot_run(struct ab_run *ar, const struct exp_slot *es,
		       const struct slot_files *f, struct db_run *run, char **cause)
{
	struct ab_plan *p = ar->p;
	size_t a = es->slot;
	struct arm_env *e = &ar->ae[a];
	int xargc;
	char **xargv = ab_plan_exec_argv(p, a, &xargc);
	struct runner_opts ro = {
		.argv = ar->sims ? ar->sims[a].argv : xargv,
		.argc = ar->sims ? ar->sims[a].argc : xargc,
		.evs = ar->evs, .nev = ar->nev, .plan = &e->plan,
		.env_set = e->env, .cwd = e->cwd, .out_fd = f->ofd,
		.stderr_fd = f->ofd >= 0 && f->efd > 0 ? f->efd : 0,
		.quiet = es->quiet, .kind = "ab", .sleep = e->sleep,
		.working_set = p->working_set,
		.frame = ab_plan_frames(p),
		.prepare = ab_plan_get(p, a, "prepare"),
		.cleanup = ab_plan_get(p, a, "cleanup"),
		.window = p->win,
		.window_lines_fd = f->wfd > 0 ? f->wfd : 0,
		.timeout_s = p->timeout_s,
	};
	int rc = runner_run(&ro, run, cause);
	if (!rc && ar->sims &&
	    (rc = run_sim_fill(&ar->sims[a], run, xargv, xargc, NULL, NULL, cause))) {
		db_run_release(run);
		rc = -EIO;
	}
	return rc;
}

/* A slot whose run did not happen: the progress line cleared, the cause
 * said for the arm (none for an interrupt), its output files closed. */
static enum exp_slot_result ab_slot_not_run(struct ab_run *ar, const struct exp_slot *es,
					    struct slot_files *f, int rc, char *cause,
					    struct exp_end *end)
{
	const char *arm = ar->p->arms[es->slot].name;
	progress_line_clear(es->line);
	if (rc != -EINTR) {
		fprintf(stderr, "error: arm '%s': ", arm);
		print_cause("", cause);
	}
	free(cause);
	slot_files_close(f);
	if (rc == -ECANCELED)
		/* Its prepare failed: this run is not measured, and it
		 * counts as a failed run (the round ends the experiment
		 * unless --keep-going). */
		return EXP_SLOT_NOT_RUN;
	if (rc == -EINTR) {
		end->status = "interrupted";
		end->note = strdup("interrupted (Ctrl-C or SIGTERM) during a prepare "
				   "command; the finished rounds are kept");
		end->code = runner_stop_exit_code();
		return EXP_SLOT_STOP;
	}
	end->status = "stopped";
	if (asprintf(&end->note, "arm %s could not be run", arm) < 0)
		end->note = NULL;
	end->code = EXIT_FAIL;
	return EXP_SLOT_STOP;
}

/* --no-multiplex: an estimate in one run would be compared as a count, so
 * the experiment stops before storing it. False when run was counted all
 * of the time. */
static bool ab_refuse_multiplexed(struct ab_run *ar, const struct exp_slot *es,
				  struct slot_files *f, struct db_run *run,
				  struct exp_end *end)
{
	const char *arm = ar->p->arms[es->slot].name;
	char *mux = ar->o->no_multiplex ? run_scaled_text(run, SCALED_ANY) : NULL;
	if (!mux)
		return false;
	progress_line_clear(es->line);
	fprintf(stderr, "error: arm '%s': run refused (--no-multiplex), not stored: "
		"not every event was counted all of the time: %s\n"
		"hint: count fewer hardware events at once (-e), so that each "
		"group fits the PMU's counters\n", arm, mux);
	free(mux);
	db_run_release(run);
	slot_files_close(f);
	end->status = "stopped";
	if (asprintf(&end->note, "arm %s was multiplexed (--no-multiplex)", arm) < 0)
		end->note = NULL;
	end->code = EXIT_FAIL;
	return true;
}

/* Why score i was not read from a finished run: no frames, no match, or
 * a search that ran out of its budget. */
static void warn_score(const struct ab_run *ar, const struct db_run *run, size_t a,
		       size_t i, int rc)
{
	const struct ab_plan *p = ar->p;
	const struct ab_score *s = &p->scores[i];
	if (rc == -ENOENT && s->kind != AB_SCORE_REGEX) {
		warning_msg("run %lld (arm %s) has no frames for '%s' (%s); left out "
			"of that metric", (long long)run->id, p->arms[a].name, s->name,
			p->frame_symbol ? "--frame-symbol: fewer than two calls"
			: p->frame_regex ? "--frame-regex matched fewer than two lines"
			: "--frames: fewer than two prof_frame() marks");
		return;
	}
	if (rc == -ENOENT) {
		warning_msg("run %lld (arm %s) printed no '%s' (regex %s); left out of "
			"that metric", (long long)run->id, p->arms[a].name, s->name,
			s->pattern);
		return;
	}
	char how[64];
	if (rc == -ETIME)
		snprintf(how, sizeof(how), "took more than %d s of CPU", AB_SCORE_CPU_S);
	else if (rc == -ENOMEM)
		snprintf(how, sizeof(how), "needed more than %d MiB", AB_SCORE_MEM_MB);
	else
		snprintf(how, sizeof(how), "failed: %s", ERR_TEXT(-rc));
	warning_msg("run %lld (arm %s): searching its output for '%s' (regex %s) %s; "
		"left out of that metric\nhint: a regex without '.*' that names the "
		"words around the number is quick to match", (long long)run->id,
		p->arms[a].name, s->name, s->pattern, how);
}

/* A made run, its scores read, stored; what it lacks said. */
static enum exp_slot_result ab_slot_store(struct ab_run *ar, const struct exp_slot *es,
					  struct db_run *run, const struct slot_text *t,
					  struct exp_end *end)
{
	struct ab_plan *p = ar->p;
	size_t a = es->slot;
	enum exp_slot_result res = EXP_SLOT_RAN;
	int *sc_rc;
	struct db_score *sc = experiment_scores(p, t->win ? t->win : t->out,
						t->win ? "" : t->err, run, &sc_rc);
	size_t nsc = sc ? p->nscores : 0;	/* out of memory: stored without */
	if (!sc && p->nscores)
		warning_msg("out of memory: the scores of this run were not read");
	char *cause = NULL;
	if (db_experiment_add_run(ar->db, ar->exp.id, run, (int)a, es->round,
				  (int)es->pos, es->warm, sc, nsc, &cause)) {
		progress_line_clear(es->line);
		print_cause("error: ", cause);
		free(cause);
		end->status = "stopped";
		end->note = strdup("the database refused a run");
		end->code = EXIT_FAIL;
		res = EXP_SLOT_STOP;
	}
	/* Ended by --timeout: where it was asked to end (reports/abstat.c
	 * counts it the same). */
	bool ended = run->exit_status == 0 || db_get_flag(run, SET_TIMED_OUT);
	if (!run->interrupted && !ended) {
		progress_line_clear(es->line);
		warning_msg("run %lld (arm %s, %s %d) exited with status %d; stored, "
			"left out of the statistics", (long long)run->id, p->arms[a].name,
			es->warm ? "warm-up" : "round", es->round + 1, run->exit_status);
		print_tail(t->err, t->elen, 5);
		if (res == EXP_SLOT_RAN)
			res = EXP_SLOT_FAILED;
	}
	for (size_t i = 0; i < nsc && !es->warm && ended; i++) {
		if (sc[i].found)
			continue;
		progress_line_clear(es->line);
		warn_score(ar, run, a, i, sc_rc[i]);
	}
	free(sc);
	free(sc_rc);
	return res;
}

/* One slot: arm es->slot run once, its output read, the run stored. */
static enum exp_slot_result ab_slot(void *arg, const struct exp_slot *es,
				    struct exp_end *end)
{
	struct ab_run *ar = arg;
	struct slot_files f;
	slot_files_open(&f, ar->p->window && ar->regex_scores);
	struct db_run run;
	char *cause = NULL;
	int rc = ab_slot_run(ar, es, &f, &run, &cause);
	if (rc)
		return ab_slot_not_run(ar, es, &f, rc, cause, end);
	if (ab_refuse_multiplexed(ar, es, &f, &run, end))
		return EXP_SLOT_STOP;
	struct slot_text t = { 0 };
	slot_text_read(&t, &f);
	slot_files_close(&f);
	if (ar->o->show_output && (t.olen || t.elen)) {
		progress_line_clear(es->line);
		fwrite(t.out, 1, t.olen, stderr);
		fwrite(t.err, 1, t.elen, stderr);
	}
	enum exp_slot_result res = ab_slot_store(ar, es, &run, &t, end);
	slot_text_release(&t);
	db_run_release(&run);
	return res;
}

static const char *arm_name(void *arg, size_t a)
{
	return ((struct ab_run *)arg)->p->arms[a].name;
}

/* The rounds: warm-ups, then every arm once a round in --order's order. */
static int ab_run_rounds(struct ab_run *ar, struct exp_end *end)
{
	static const struct exp_hooks hooks = { arm_name, ab_slot };
	struct ab_plan *p = ar->p;
	for (size_t i = 0; i < p->nscores; i++)
		ar->regex_scores = ar->regex_scores || p->scores[i].kind == AB_SCORE_REGEX;
	struct exp_design d = {
		.verb = "ab", .slot_word = "arm ", .plan = p, .nslots = p->narms,
		.rounds = p->rounds, .warmup = p->warmup, .settle_s = p->settle_s,
		.keep_going = p->keep_going,
	};
	return experiment_run(&d, &hooks, ar, end);
}

/* The report, from the database alone: 0, or EXIT_FAIL after saying why. */
static int ab_report(struct ab_run *ar)
{
	struct verb_ctx *vc = ar->vc;
	struct db_experiment stored, aa;
	bool have_aa = false;
	char *cause = NULL;
	if (db_experiment_load(ar->db, ar->exp.id, &stored, &cause))
		return fail_cause(cause, EXIT_FAIL);
	struct ab_gate_rule gate = ab_gate_for(ar->db, &stored, NAN, &aa, &have_aa);
	run_exp_env_warn(ar->db, &stored);
	struct ab_analysis an;
	int code = 0;
	if (ar->o->by_name) {
		FILE *fp = verb_out(vc);
		if (fp && vc->fmt == OUT_TABLE)
			fputc('\n', fp);
		if (!fp || ab_report_by_name(ar->db, &stored, &gate, vc->fmt, fp) ||
		    verb_out_close(vc))
			code = EXIT_FAIL;
	} else if (ab_analyze(&stored, &gate, &an, &cause) == 0) {
		/* The runs are stored: a name that is no metric leaves the
		 * whole experiment shown, not lost. */
		if (ab_analysis_keep(&an, ar->o->metric.name, ar->o->metric.n, &cause)) {
			warning_msg("%s; every metric is shown", cause ? cause : "?");
			free(cause);
			cause = NULL;
		}
		FILE *fp = verb_out(vc);
		if (fp) {
			if (vc->fmt == OUT_TABLE)
				fputc('\n', fp);
			ab_render(&an, vc->fmt, fp);
		}
		if (!fp || verb_out_close(vc) || ab_errors_said(&an, vc->fmt))
			code = EXIT_FAIL;
		ab_analysis_release(&an);
	} else {
		code = fail_cause(cause, EXIT_FAIL);
	}
	if (have_aa)
		db_experiment_release(&aa);
	db_experiment_release(&stored);
	return code;
}

static int cmd_ab(struct verb_ctx *vc)
{
	struct ab_args *o = vc->args;
	int exit_code = ab_check_args(vc, o);
	if (exit_code)
		return exit_code;
	struct ab_plan *p = &o->plan;
	if (p->aa)
		make_aa(p);
	struct ab_run ar = { .vc = vc, .o = o, .p = p };
	ar.ae = calloc(p->narms, sizeof(*ar.ae));
	if ((exit_code = ab_parse_events(&ar)) || (exit_code = ab_prepare_sims(&ar)))
		goto out;
	/* Everything an arm needs is checked before the first run. */
	bool env_warned = false;
	for (size_t a = 0; a < p->narms; a++)
		if ((exit_code = ab_prepare_arm(&ar, a, &env_warned)))
			goto out;
	if (!(ar.db = verb_db(vc))) {
		fprintf(stderr, "hint: prof ab stores every run; nothing was run\n");
		exit_code = EXIT_FAIL;
		goto out;
	}
	if ((exit_code = ab_create_experiment(&ar)))
		goto out;
	struct exp_end end = { .status = "complete" };
	exit_code = ab_run_rounds(&ar, &end);
	if (end.note)
		fprintf(cli_talk(), "prof ab: %s\n", end.note);
	db_experiment_finish(ar.db, ar.exp.id, end.status, end.note, NULL);
	free(end.note);
	if (ab_report(&ar))
		exit_code = EXIT_FAIL;
out:;
	int late = runner_release_signals();
	if (late && exit_code == EXIT_OK)
		exit_code = 128 + late;
	ab_run_release(&ar);
	return exit_code;
}

static const char ab_help[] =
"usage: prof ab --arm NAME=COMMAND --arm NAME=COMMAND [...] [options]\n"
"       prof ab --aa --arm NAME=COMMAND [options]\n"
"       prof ab --plan FILE [options]\n"
"\n"
"Run two or more commands (arms; the first is the baseline) in interleaved\n"
"rounds, count each run like 'prof run', and compare every metric against\n"
"the baseline with paired statistics: the per-round log-ratio\n"
"d = ln(arm / baseline), the effect 100*(exp(mean d) - 1) with its 95% CI\n"
"from Student's t (the t multiplier is printed: 4.30 at 3 rounds), the\n"
"exact sign-flip p-value and the smallest p the design can reach, and a\n"
"verdict against a noise gate: better / worse when the CI excludes 0, the\n"
"effect clears the gate and p is below 0.05 (which takes 6 rounds or more:\n"
"fewer never say better or worse), equivalent when the 90% CI lies inside\n"
"the gate, otherwise inconclusive with the rounds that would likely settle\n"
"it, estimated from the effect and spread seen so far. Each verdict is\n"
"said first in one line: 'b is 1.23x faster than a [1.18, 1.29] (wall_s,\n"
"6 rounds, p 0.031)', 'b: LLC-load-misses 0.60x a's [0.55, 0.66] (better,\n"
"...)', with the 95% CI of the ratio; --metric NAME keeps one metric\n"
"(repeatable).\n"
"\n";

static const char ab_tail[] =
"Runs that exit non-zero are stored with their status and left out of the\n"
"statistics (the last lines of their stderr are shown, as text); a score,\n"
"looked for in a run's stdout and then its stderr, missing from both leaves\n"
"that run out of that metric, with a warning, never as zero (a :matches\n"
"score that matches nowhere is 0). A frame score comes from the frames each\n"
"run stored, which 'prof report RUN --frames' shows. Ctrl-C stops\n"
"after the current run; the finished rounds are stored and reported.\n"
"\n"
"--prepare CMD runs before every run, warm-ups too, and --cleanup CMD\n"
"after it, as prof run's do: in the arm's working directory and\n"
"environment, unpinned, outside what is counted and timed (stdout\n"
"discarded, stderr prof's). --set ARM.prepare=CMD gives one arm its own.\n"
"A prepare that exits non-zero is a failed run, not measured and not\n"
"stored: one error line names it, and the experiment stops after that\n"
"round unless --keep-going. Both are the arms' settings, shown in the\n"
"report's header.\n"
"\n"
"Examples:\n"
"  prof ab --arm c='./emu --backend c' --arm llvm='./emu --backend llvm' \\\n"
"          --score fps='([0-9.]+) fps:higher' --per frame=fps --format markdown\n"
"  prof ab --aa --arm emu='./emu --scene 3' --rounds 8\n"
"  prof ab --prepare 'rm -rf obj' --arm j8='make -j8' --arm j16='make -j16'\n"
"  prof ab --arm a='./game' --arm b='./game --vsync' --score frame:p99 \\\n"
"          --frame-regex '^frame [0-9]+ took' --score 'ms=took ([0-9.]+) ms:p99'\n"
"  prof compare          # list stored experiments; prof compare N reprints\n";

static const struct opt ab_opts[] = {
	OPT_GROUP("Arms and settings:"),
	OPT_CALLBACK(0, "arm", struct ab_args, plan, "NAME=COMMAND", plan_opt_arm,
		     "an arm; COMMAND runs as /bin/sh -c 'COMMAND', so\n"
		     "redirections, pipes and variables work"),
	OPT_BOOL('N', "no-shell", struct ab_args, plan.no_shell,
		 "run each COMMAND without a shell: split into words\n"
		 "as a shell would, and exec'd directly"),
	OPT_CALLBACK(0, "set", struct ab_args, plan, "[ARM.]KEY=VAL", plan_opt_set,
		     "pin=MODE, cwd=DIR, env.VAR=VALUE, sleep=MODE (as\n"
		     "prof run --sleep-mode), prepare=CMD, cleanup=CMD,\n"
		     "for one arm or (without ARM.) for all"),
	OPT_CALLBACK(0, "prepare", struct ab_args, plan, "CMD", plan_opt_prepare,
		     "run CMD (/bin/sh -c) before every run, not counted\n"
		     "nor timed (--set prepare=CMD; ARM.prepare=CMD for\n"
		     "one arm wins)"),
	OPT_CALLBACK(0, "cleanup", struct ab_args, plan, "CMD", plan_opt_cleanup,
		     "run CMD after every run, not counted nor timed"),
	OPT_CALLBACK(0, "plan", struct ab_args, plan, "FILE", plan_opt_plan,
		     "read the same from a file: 'key = value' lines,\n"
		     "[arm NAME] sections with 'command = ...'"),
	OPT_INCLUDE(opt_cache_affinity),
	OPT_BOOL(0, "aa", struct ab_args, plan.aa,
		 "run one arm's command against itself: the A/A\n"
		 "experiment whose spread sets later gates"),
	OPT_GROUP("Design:"),
	OPT_INT(0, "rounds", struct ab_args, plan.rounds, "N", 1, DB_EXP_ROUNDS_MAX,
		"a count of 1 or more", "counted rounds (default 6)"),
	OPT_INT(0, "warmup", struct ab_args, plan.warmup, "N", 0, DB_EXP_WARMUP_MAX, NULL,
		"warm-up runs of each arm, stored, not counted (1)"),
	OPT_CALLBACK(0, "order", struct ab_args, plan, "ORDER", plan_opt_order,
		     "abba (default: AB BA AB ..., ABC CBA with three),\n"
		     "alternate (AB AB ...), random (from --seed)"),
	OPT_CALLBACK(0, "seed", struct ab_args, plan, "N", parse_seed,
		     "for --order random"),
	OPT_DOUBLE(0, "settle", struct ab_args, plan.settle_s, "SECONDS", 0, 3600, "seconds",
		   "idle time between runs (default 0)"),
	OPT_DOUBLE(0, "gate", struct ab_args, plan.gate_pct, "PCT", 0, 1000, "a percentage",
		   "the noise gate in percent (default: twice the sd\n"
		   "of the latest A/A experiment of the baseline\n"
		   "command on this host, else 1%)"),
	OPT_CALLBACK(0, "window", struct ab_args, plan, "START:END", plan_opt_window,
		     "count only from START to END seconds after each\n"
		     "launch, as prof run --window: counters, cpu_s,\n"
		     "user_s, sys_s, cores and frame scores are the\n"
		     "window's, wall_s and system.* the whole run's; a\n"
		     "--score REGEX reads the stdout lines that came in\n"
		     "it. Needs counting per CPU. frame:N:M: frames N to\n"
		     "M (with --frames, --frame-regex or --frame-symbol)"),
	OPT_DOUBLE(0, "timeout", struct ab_args, plan.timeout_s, "SECS", 0.001, 31536000,
		   "seconds, e.g. 75 or 0.5",
		   "end each run at SECS, as prof run --timeout does;\n"
		   "a run ended so counts (for programs that run until\n"
		   "closed: emulators, games)"),
	OPT_BOOL(0, "keep-going", struct ab_args, plan.keep_going,
		 "go on after a run fails (default: stop after the\n"
		 "round, saying why)"),
	OPT_GROUP("Metrics (wall_s, cpu_s and cores always; then the counters):"),
	OPT_STRING('e', "events", struct ab_args, plan.events, "LIST",
		   "as for prof run (default: cache)"),
	OPT_BOOL(0, "no-multiplex", struct ab_args, no_multiplex,
		 "stop at a run whose events were not all counted\n"
		 "all of the time (its values scaled estimates),\n"
		 "without storing it"),
	OPT_BOOL(0, "allow-generic", struct ab_args, plan.allow_generic, "as for prof run"),
	OPT_BOOL(0, "simulate", struct ab_args, simulate,
		 "no PMU? simulate the hardware counters under\n"
		 "valgrind, as prof run --simulate: the same counts\n"
		 "every round, so those metrics are judged from one\n"
		 "round (their spread between rounds is shown)"),
	OPT_STRING(0, "cache", struct ab_args, cache, "SPEC",
		   "with --simulate, the caches to simulate (as prof\n"
		   "run --cache)"),
	OPT_CALLBACK(0, "score", struct ab_args, plan, "NAME=REGEX[:AGG]|frame:WHAT",
		     plan_opt_score,
		     "a number parsed from the workload's output\n"
		     "(the first capture group of the last match); lower\n"
		     "is better unless :higher; :rate says it is per\n"
		     "second, :count that it is not. A POSIX extended regex,\n"
		     "matched line by line in the last 1 MiB of output;\n"
		     "one that can match empty text, repeats a\n"
		     "repetition ('a++', '(a+)*') or back-references is\n"
		     "refused. AGG takes every match instead: :p99 or :p50\n"
		     "(nearest rank), :mean, :max, or :matches (how many\n"
		     "matched), and names the score NAME:p99 and so on.\n"
		     "Only these words at the very end are read so; a ':'\n"
		     "elsewhere is the regex's ('[:]max' ends one in :max).\n"
		     "frame:p99, frame:p50 (ms) and frame:long (frames\n"
		     "over --budget) read each run's frames instead, as\n"
		     "frame_p99_ms, frame_p50_ms and long_frames"),
	OPT_CALLBACK(0, "per", struct ab_args, plan, "COUNT|UNIT=RATE", plan_opt_per,
		     "CPU ms per unit: COUNT a score that counts them\n"
		     "(frames); UNIT=RATE counts them as a rate score\n"
		     "times the run's wall time (frame=fps). A bare rate\n"
		     "is refused: CPU ms per fps is no cost per frame"),
	OPT_BOOL(0, "frames", struct ab_args, plan.frames,
		 "find each run's frames as prof run --frames does:\n"
		 "the workload's prof_frame() marks"),
	OPT_CALLBACK(0, "frame-regex", struct ab_args, plan, "RE", plan_opt_frame_regex,
		     "the same from each line of the workload's stdout\n"
		     "that matches RE (prof run --frame-regex)"),
	OPT_CALLBACK(0, "frame-symbol", struct ab_args, plan, "MODULE:SYMBOL",
		     plan_opt_frame_symbol,
		     "the same from each call of SYMBOL (prof run\n"
		     "--frame-symbol)"),
	OPT_DOUBLE(0, "budget", struct ab_args, plan.budget_ms, "MS", 0.001, 1e6,
		   "a number of milliseconds",
		   "a frame longer than MS is long (default 16.7)"),
	OPT_BOOL(0, "working-set", struct ab_args, plan.working_set,
		 "measure each run's touched code and data, as prof\n"
		 "run --working-set does (for prof explain)"),
	OPT_GROUP("Output:"),
	OPT_CALLBACK(0, "metric", struct ab_args, metric, "NAME", parse_metric_pick,
		     "judge and show only this metric, as the tables\n"
		     "name it (repeatable; all are stored)"),
	OPT_CALLBACK(0, "by", struct ab_args, by_name, "arm|name", ab_parse_by,
		     "arm (default), or name: each counter per thread\n"
		     "name, summed over the threads of that name, with\n"
		     "its own CI and verdict"),
	OPT_INCLUDE(opt_quiet),
	OPT_INCLUDE(opt_output),
	OPT_BOOL(0, "show-output", struct ab_args, show_output,
		 "echo each run's own output (it is captured to\n"
		 "parse scores)"),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

VERB(ab, ab_args,
     .init = ab_args_init,
     .release = ab_args_release,
     .max_operands = VERB_ANY_OPERANDS);
