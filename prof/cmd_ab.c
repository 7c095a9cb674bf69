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
#include "db/experiments.h"
#include "prof/abplan.h"
#include "prof/launch.h"
#include "prof/pin.h"
#include "prof/planopts.h"
#include "prof/progress.h"
#include "prof/runner.h"
#include "prof/runsim.h"
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
		abort();
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

static char *slurp_fd(int fd, size_t *got_len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	if (end < 0)
		end = 0;
	/* --show-output echoes the last 4 MiB; scores come from the last
	 * AB_SCORE_TEXT_MAX of it (ab_score_find). */
	off_t start = end > (4 << 20) ? end - (4 << 20) : 0;
	size_t n = (size_t)(end - start);
	char *buf = malloc(n + 1);
	if (!buf)
		abort();
	ssize_t got = pread(fd, buf, n, start);
	buf[got > 0 ? got : 0] = '\0';
	*got_len = got > 0 ? (size_t)got : 0;
	/* A NUL in the output would hide what follows from the regex. */
	for (ssize_t i = 0; i < got; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return buf;
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

/* A slot whose run did not happen: the progress line cleared, the cause
 * said for the arm (none for an interrupt), its output files closed. */
static void slot_not_run(struct progress_line *line, const char *arm, char *cause,
			 int ofd, int efd)
{
	progress_line_clear(line);
	if (arm) {
		fprintf(stderr, "error: arm '%s': ", arm);
		print_cause("", cause);
	}
	free(cause);
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0)
		close(efd);
}

static int cmd_ab(struct verb_ctx *vc)
{
	struct ab_args *o = vc->args;
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
	struct ab_plan *p = &o->plan;
	/* A symbol the module lacks stops here, not at the first run. */
	if (p->frame_symbol && (rc = collect_frames_check_symbol(p->frame_symbol, &cause)))
		return rc == -EINVAL ? verb_usage_cause(vc, cause)
				     : fail_cause(cause, EXIT_FAIL);
	if (p->aa)
		make_aa(p);

	struct event_desc *evs = NULL;
	size_t nev = 0;
	int exit_code = EXIT_OK;
	struct arm_env *ae = calloc(p->narms, sizeof(*ae));
	struct db *db = NULL;
	struct db_experiment exp;
	memset(&exp, 0, sizeof(exp));
	struct run_sim *sims = NULL;

	/* Simulated, the hardware counters are callgrind's: the software
	 * events count what valgrind itself cost (as prof run --simulate). */
	const char *events = o->simulate ? run_sim_events(p->events) : p->events;
	rc = event_list_parse(events, p->allow_generic ? EVENT_ALLOW_GENERIC : 0,
			      &evs, &nev, &cause);
	if (rc) {
		print_cause("error: ", cause);
		exit_code = exit_code_for(rc);
		goto out;
	}
	for (size_t i = 0; o->simulate && i < nev; i++)
		if (evs[i].hardware) {
			exit_code = usage_error(vc->name, "with --simulate the hardware "
						"counters are simulated: -e takes software "
						"events only");
			goto out;
		}
	if (o->simulate && (p->window || p->working_set || ab_plan_has_frames(p))) {
		exit_code = usage_error(vc->name, "--simulate gives each run's totals: "
					"--window, --working-set and frames count the real "
					"machine (and would count valgrind)");
		goto out;
	}
	sims = o->simulate ? calloc(p->narms, sizeof(*sims)) : NULL;
	for (size_t a = 0; sims && a < p->narms; a++) {
		int xargc;
		char **xargv = ab_plan_exec_argv(p, a, &xargc);
		rc = run_sim_prepare(&sims[a], xargv, o->cache, NULL, &cause);
		if (rc) {
			print_cause("error: ", cause);
			exit_code = rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
			goto out;
		}
	}
	/* Everything an arm needs is checked before the first run. */
	bool env_warned = false;
	for (size_t a = 0; a < p->narms; a++) {
		/* With the shell, sh says what it cannot find (127, and its
		 * message in the failed run's stderr tail). */
		char *path = launch_resolve(p->no_shell ? p->arms[a].argv[0] : "/bin/sh",
					    &cause);
		if (!path) {
			fprintf(stderr, "error: arm '%s': ", p->arms[a].name);
			print_cause("", cause);
			exit_code = EXIT_NOT_RUN;
			goto out;
		}
		free(path);
		ae[a].cwd = ab_plan_get(p, a, "cwd");
		struct stat sb;
		if (ae[a].cwd && (stat(ae[a].cwd, &sb) || !S_ISDIR(sb.st_mode))) {
			char buf[64];
			exit_code = usage_error("ab", "arm '%s': cwd '%s' is not a directory",
						p->arms[a].name, cli_echo(ae[a].cwd, buf, sizeof(buf)));
			goto out;
		}
		const char *sleep = ab_plan_get(p, a, "sleep");
		if (sleep) {
			ae[a].sleep = calloc(1, sizeof(*ae[a].sleep));
			rc = sleep_plan_parse(ae[a].sleep, sleep, &cause);
			if (rc) {
				fprintf(stderr, "error: arm '%s': ", p->arms[a].name);
				print_cause("", cause);
				exit_code = EXIT_USAGE;
				goto out;
			}
			rc = sleep_plan_locate(ae[a].sleep, &cause);
			if (rc) {
				fprintf(stderr, "error: arm '%s': ", p->arms[a].name);
				print_cause("", cause);
				exit_code = EXIT_FAIL;
				goto out;
			}
			sleep_plan_check(ae[a].sleep, p->arms[a].argv[0]);
		}
		const char *mode = arm_pin_mode(vc, p, a, &env_warned);
		if (!mode) {
			exit_code = EXIT_USAGE;
			goto out;
		}
		if (!ab_plan_get(p, a, "pin") && strcmp(mode, "none"))
			ae[a].pin_chosen = mode;
		char *warn = NULL;
		rc = pin_plan_make(&ae[a].plan, mode, NULL, &warn, &cause);
		if (rc) {
			fprintf(stderr, "error: arm '%s': ", p->arms[a].name);
			print_cause("", cause);
			exit_code = exit_code_for(rc);
			goto out;
		}
		if (warn) {
			warning_msg("arm '%s': %s", p->arms[a].name, warn);
			free(warn);
		}
		size_t ne = 0;
		for (size_t k = 0; k < p->arms[a].nsettings + p->nall; k++)
			ne++;
		ae[a].env = calloc(ne + 1, sizeof(char *));
		size_t k = 0;
		for (size_t i = 0; i < p->nall + p->arms[a].nsettings; i++) {
			const struct ab_setting *s = i < p->nall ? &p->all[i]
						     : &p->arms[a].settings[i - p->nall];
			if (strncmp(s->key, "env.", 4))
				continue;
			/* The arm's own value wins over the all-arms one. */
			const char *v = ab_plan_get(p, a, s->key);
			bool dup = false;
			for (size_t j = 0; j < k; j++)
				dup = dup || (!strncmp(ae[a].env[j], s->key + 4, strlen(s->key + 4)) &&
					      ae[a].env[j][strlen(s->key + 4)] == '=');
			if (!dup && asprintf(&ae[a].env[k], "%s=%s", s->key + 4, v) >= 0)
				k++;
		}
	}

	if (!(db = verb_db(vc))) {
		fprintf(stderr, "hint: prof ab stores every run; nothing was run\n");
		exit_code = EXIT_FAIL;
		goto out;
	}

	/* The experiment row first, so every run can join it as it ends. */
	exp.order = strdup(p->order == ORDER_ABBA ? "abba" : p->order == ORDER_ALTERNATE
			   ? "alternate" : "random");
	exp.seed = p->seed;
	exp.rounds = p->rounds;
	exp.warmup = p->warmup;
	exp.settle_s = p->settle_s;
	exp.gate_pct = p->gate_pct;
	exp.aa = p->aa;
	exp.keep_going = p->keep_going;
	exp.narms = p->narms;
	exp.arms = calloc(p->narms, sizeof(*exp.arms));
	for (size_t a = 0; a < p->narms; a++) {
		struct db_arm *d = &exp.arms[a];
		d->name = strdup(p->arms[a].name);
		d->command = strdup(p->arms[a].command);
		char **xargv = ab_plan_exec_argv(p, a, &d->argc);
		d->argv = calloc((size_t)d->argc + 1, sizeof(char *));
		for (int i = 0; i < d->argc; i++)
			d->argv[i] = strdup(xargv[i]);
		for (size_t i = 0; i < p->nall + p->arms[a].nsettings; i++) {
			const struct ab_setting *s = i < p->nall ? &p->all[i]
						     : &p->arms[a].settings[i - p->nall];
			d->settings = realloc(d->settings, (d->nsettings + 1) * sizeof(*d->settings));
			d->settings[d->nsettings].key = strdup(s->key);
			d->settings[d->nsettings].value = strdup(ab_plan_get(p, a, s->key));
			d->nsettings++;
			/* Keep one value per key. */
			for (size_t j = 0; j + 1 < d->nsettings; j++) {
				if (!strcmp(d->settings[j].key, s->key)) {
					d->nsettings--;
					free(d->settings[d->nsettings].key);
					free(d->settings[d->nsettings].value);
					break;
				}
			}
		}
		/* A pin from --cache-affinity or the environment is the arm's
		 * setting too, so the report shows it. */
		if (ae[a].pin_chosen) {
			d->settings = realloc(d->settings, (d->nsettings + 1) * sizeof(*d->settings));
			d->settings[d->nsettings].key = strdup("pin");
			d->settings[d->nsettings].value = strdup(ae[a].pin_chosen);
			d->nsettings++;
		}
	}
	/* Room for events, every score, 4 frame keys, every --per,
	 * working-set, window, timeout, simulated and shell: no option is
	 * dropped for want of it. */
	struct db_kv *kv = calloc(12 + p->nscores + p->nper, sizeof(*kv));
	char **specs = calloc(p->nscores + 1, sizeof(*specs));
	if (!kv || !specs)
		abort();
	size_t nkv = 0;
	kv[nkv++] = (struct db_kv){ "events", (char *)p->events };
	size_t nspecs = 0;
	for (size_t i = 0; i < p->nscores; i++) {
		specs[nspecs] = ab_score_spec(&p->scores[i]);
		kv[nkv++] = (struct db_kv){ "score", specs[nspecs++] };
	}
	char budget[32];
	snprintf(budget, sizeof(budget), "%g", p->budget_ms);
	if (p->frames)
		kv[nkv++] = (struct db_kv){ "frames", "markers" };
	if (p->frame_regex)
		kv[nkv++] = (struct db_kv){ "frame-regex", p->frame_regex };
	if (p->frame_symbol)
		kv[nkv++] = (struct db_kv){ "frame-symbol", p->frame_symbol };
	if (ab_plan_has_frames(p))
		kv[nkv++] = (struct db_kv){ "budget_ms", budget };
	for (size_t i = 0; i < p->nper; i++)
		kv[nkv++] = (struct db_kv){ "per", p->per[i] };
	if (p->working_set)
		kv[nkv++] = (struct db_kv){ "working-set", "1" };
	if (p->window)
		kv[nkv++] = (struct db_kv){ "window", p->window };
	char timeout[32];
	snprintf(timeout, sizeof(timeout), "%g", p->timeout_s);
	if (p->timeout_s > 0)
		kv[nkv++] = (struct db_kv){ "timeout_s", timeout };
	/* Which metrics are the simulation's (reports/abstat.c judges them
	 * as deterministic): its events, by name. */
	char *simulated = sims ? run_sim_event_list() : NULL;
	if (simulated)
		kv[nkv++] = (struct db_kv){ "simulated", simulated };
	kv[nkv++] = (struct db_kv){ "shell", p->no_shell ? "none" : "/bin/sh -c" };
	exp.settings = kv;
	exp.nsettings = nkv;
	struct host_facts hf;
	host_facts_read(&hf);
	struct db_host host = { 0, hf.hostname, hf.kernel, hf.cpu_model, hf.online_cpus };
	/* From here on a Ctrl-C, also one between two runs, stops after the
	 * current run and keeps the finished rounds. */
	runner_hold_signals();
	rc = db_experiment_create(db, &exp, &host, &cause);
	exp.settings = NULL;
	exp.nsettings = 0;
	for (size_t i = 0; i < nspecs; i++)
		free(specs[i]);
	free(specs);
	free(simulated);
	free(kv);
	if (rc) {
		host_facts_release(&hf);
		print_cause("error: ", cause);
		exit_code = EXIT_FAIL;
		goto out;
	}
	int64_t exp_id = exp.id;

	struct progress_line line;
	progress_line_init(&line, cli_talk());
	size_t total = (size_t)(p->warmup + p->rounds) * p->narms, done = 0;
	double t_start = mono_now_s();
	size_t *order = calloc(p->narms, sizeof(size_t));
	const char *stop_status = "complete";
	char *stop_note = NULL;
	bool stop = false;
	size_t failed = 0;
	bool regex_scores = false;
	for (size_t i = 0; i < p->nscores; i++)
		regex_scores = regex_scores || p->scores[i].kind == AB_SCORE_REGEX;
	for (int r = -p->warmup; r < p->rounds && !stop; r++) {
		bool warm = r < 0;
		int rr = warm ? r + p->warmup : r;
		ab_plan_order(p, warm ? rr : r, order);
		bool round_failed = false;
		for (size_t pos = 0; pos < p->narms && !stop; pos++) {
			size_t a = order[pos];
			double el = mono_now_s() - t_start;
			double left = done ? el / (double)done * (double)(total - done) : 0;
			char eta[48] = "";
			if (done)
				snprintf(eta, sizeof(eta), ", ~%.0fs left", left);
			progress_line_show(&line, "prof ab: %s %d of %d, arm %s (run %zu "
					   "of %zu), %.0fs elapsed%s",
					   warm ? "warm-up" : "round", rr + 1,
					   warm ? p->warmup : p->rounds, p->arms[a].name,
					   done + 1, total, el, eta);
			/* stdout and stderr apart: scores come from either, a
			 * failure shows stderr's tail. */
			char tmpl[] = "/tmp/prof-ab-out-XXXXXX";
			char etmpl[] = "/tmp/prof-ab-err-XXXXXX";
			int ofd = mkstemp(tmpl), efd = mkstemp(etmpl);
			if (ofd >= 0)
				unlink(tmpl);
			if (efd >= 0)
				unlink(etmpl);
			/* With a window, scores come from the stdout lines
			 * that arrived inside it (stamped as they came). */
			char wtmpl[] = "/tmp/prof-ab-win-XXXXXX";
			int wfd = p->window && regex_scores ? mkstemp(wtmpl) : -1;
			if (wfd >= 0)
				unlink(wtmpl);
			int xargc;
			char **xargv = ab_plan_exec_argv(p, a, &xargc);
			struct runner_opts ro = {
				.argv = sims ? sims[a].argv : xargv,
				.argc = sims ? sims[a].argc : xargc,
				.evs = evs, .nev = nev, .plan = &ae[a].plan,
				.env_set = ae[a].env, .cwd = ae[a].cwd, .out_fd = ofd,
				.stderr_fd = ofd >= 0 && efd > 0 ? efd : 0,
				.quiet = done > 0, .kind = "ab", .sleep = ae[a].sleep,
				.working_set = p->working_set,
				.frame = ab_plan_frames(p),
				.prepare = ab_plan_get(p, a, "prepare"),
				.cleanup = ab_plan_get(p, a, "cleanup"),
				.window = p->win,
				.window_lines_fd = wfd > 0 ? wfd : 0,
				.timeout_s = p->timeout_s,
			};
			struct db_run run;
			char *rcause = NULL;
			rc = runner_run(&ro, &run, &rcause);
			/* Simulated: callgrind's counters on the arm's command;
			 * without its profiles the run is not stored. */
			if (!rc && sims &&
			    (rc = run_sim_fill(&sims[a], &run, xargv, xargc, NULL, NULL, &rcause))) {
				db_run_release(&run);
				rc = -EIO;
			}
			if (rc && wfd >= 0)
				close(wfd);
			if (rc == -ECANCELED) {
				/* Its prepare failed: this run is not measured,
				 * and it counts as a failed run (the round ends
				 * the experiment unless --keep-going). */
				slot_not_run(&line, p->arms[a].name, rcause, ofd, efd);
				round_failed = true;
				failed++;
				done++;
				continue;
			}
			if (rc == -EINTR) {
				slot_not_run(&line, NULL, rcause, ofd, efd);
				stop = true;
				stop_status = "interrupted";
				stop_note = strdup("interrupted (Ctrl-C or SIGTERM) during a "
						   "prepare command; the finished rounds are kept");
				exit_code = runner_stop_exit_code();
				break;
			}
			if (rc) {
				slot_not_run(&line, p->arms[a].name, rcause, ofd, efd);
				stop = true;
				stop_status = "stopped";
				if (asprintf(&stop_note, "arm %s could not be run", p->arms[a].name) < 0)
					stop_note = NULL;
				exit_code = EXIT_FAIL;
				break;
			}
			char *mux = o->no_multiplex ? run_scaled_text(&run, SCALED_ANY)
						    : NULL;
			if (mux) {
				/* An estimate in one run would be compared as a
				 * count: the experiment stops before storing it. */
				progress_line_clear(&line);
				fprintf(stderr, "error: arm '%s': run refused "
					"(--no-multiplex), not stored: not every event "
					"was counted all of the time: %s\n"
					"hint: count fewer hardware events at once "
					"(-e), so that each group fits the PMU's "
					"counters\n", p->arms[a].name, mux);
				free(mux);
				db_run_release(&run);
				if (wfd >= 0)
					close(wfd);
				if (ofd >= 0)
					close(ofd);
				if (efd >= 0)
					close(efd);
				stop = true;
				stop_status = "stopped";
				if (asprintf(&stop_note, "arm %s was multiplexed "
					     "(--no-multiplex)", p->arms[a].name) < 0)
					stop_note = NULL;
				exit_code = EXIT_FAIL;
				break;
			}
			size_t tlen = 0, elen = 0, wlen = 0;
			char *text = ofd >= 0 ? slurp_fd(ofd, &tlen) : strdup("");
			char *etext = efd >= 0 ? slurp_fd(efd, &elen) : strdup("");
			char *wtext = wfd >= 0 ? slurp_fd(wfd, &wlen) : NULL;
			if (wfd >= 0)
				close(wfd);
			if (ofd >= 0)
				close(ofd);
			if (efd >= 0)
				close(efd);
			if (o->show_output && (tlen || elen)) {
				progress_line_clear(&line);
				fwrite(text, 1, tlen, stderr);
				fwrite(etext, 1, elen, stderr);
			}
			struct db_score *sc = calloc(p->nscores + 1, sizeof(*sc));
			int *sc_rc = calloc(p->nscores + 1, sizeof(*sc_rc));
			if (!sc || !sc_rc)
				abort();
			size_t nsc = 0;
			for (size_t i = 0; i < p->nscores; i++) {
				sc[nsc].name = p->scores[i].name;
				sc_rc[nsc] = ab_score_measure(&p->scores[i],
							      wtext ? wtext : text,
							      wtext ? "" : etext,
							      &run, &sc[nsc].value);
				sc[nsc].found = sc_rc[nsc] == 0;
				nsc++;
			}
			rc = db_experiment_add_run(db, exp_id, &run, (int)a, rr, (int)pos, warm,
						   sc, nsc, &cause);
			if (rc) {
				progress_line_clear(&line);
				print_cause("error: ", cause);
				free(cause);
				cause = NULL;
				stop = true;
				stop_status = "stopped";
				stop_note = strdup("the database refused a run");
				exit_code = EXIT_FAIL;
			}
			/* Ended by --timeout: where it was asked to end
			 * (reports/abstat.c counts it the same). */
			bool ended = run.exit_status == 0 || db_run_get(&run, "timed_out");
			if (!run.interrupted && !ended) {
				progress_line_clear(&line);
				warning_msg("run %lld (arm %s, %s %d) exited with "
					"status %d; stored, left out of the statistics",
					(long long)run.id, p->arms[a].name, warm ? "warm-up" : "round",
					rr + 1, run.exit_status);
				print_tail(etext, elen, 5);
				round_failed = true;
				failed++;
			}
			for (size_t i = 0; i < nsc && !warm && ended; i++) {
				if (sc[i].found)
					continue;
				progress_line_clear(&line);
				if (sc_rc[i] == -ENOENT && p->scores[i].kind != AB_SCORE_REGEX) {
					warning_msg("run %lld (arm %s) has no frames "
						"for '%s' (%s); left out of that metric",
						(long long)run.id, p->arms[a].name, sc[i].name,
						p->frame_symbol ? "--frame-symbol: fewer than two "
						"calls" : p->frame_regex ? "--frame-regex matched "
						"fewer than two lines" : "--frames: fewer than two "
						"prof_frame() marks");
				} else if (sc_rc[i] == -ENOENT) {
					warning_msg("run %lld (arm %s) printed no '%s' "
						"(regex %s); left out of that metric",
						(long long)run.id, p->arms[a].name, sc[i].name,
						p->scores[i].pattern);
				} else {
					char how[64];
					if (sc_rc[i] == -ETIME)
						snprintf(how, sizeof(how), "took more than %d s "
							 "of CPU", AB_SCORE_CPU_S);
					else if (sc_rc[i] == -ENOMEM)
						snprintf(how, sizeof(how), "needed more than %d "
							 "MiB", AB_SCORE_MEM_MB);
					else
						snprintf(how, sizeof(how), "failed: %s",
							 ERR_TEXT(-sc_rc[i]));
					warning_msg("run %lld (arm %s): searching its "
						"output for '%s' (regex %s) %s; left out of that "
						"metric\nhint: a regex without '.*' that names the "
						"words around the number is quick to match",
						(long long)run.id, p->arms[a].name, sc[i].name,
						p->scores[i].pattern, how);
				}
			}
			free(sc);
			free(sc_rc);
			free(text);
			free(etext);
			free(wtext);
			db_run_release(&run);
			done++;
			if (runner_interrupted() || runner_late_signal(NULL)) {
				stop = true;
				stop_status = "interrupted";
				stop_note = strdup("interrupted (Ctrl-C or SIGTERM); the finished "
						   "rounds are kept");
				exit_code = runner_stop_exit_code();
			}
			if (!stop && p->settle_s > 0) {
				struct timespec ts = { (time_t)p->settle_s,
					(long)((p->settle_s - (double)(time_t)p->settle_s) * 1e9) };
				nanosleep(&ts, NULL);
			}
		}
		if (round_failed && !p->keep_going && !stop) {
			stop = true;
			stop_status = "stopped";
			if (asprintf(&stop_note, "stopped after %s %d: a run failed (use "
				     "--keep-going to run on)", warm ? "warm-up" : "round",
				     rr + 1) < 0)
				stop_note = NULL;
			exit_code = EXIT_FAIL;
		}
	}
	progress_line_clear(&line);
	free(order);
	if (stop_note)
		fprintf(cli_talk(), "prof ab: %s\n", stop_note);
	db_experiment_finish(db, exp_id, stop_status, stop_note, NULL);
	free(stop_note);

	/* The report, from the database alone. */
	struct db_experiment stored, aa;
	bool have_aa = false;
	rc = db_experiment_load(db, exp_id, &stored, &cause);
	if (rc) {
		print_cause("error: ", cause);
		exit_code = EXIT_FAIL;
		host_facts_release(&hf);
		goto out;
	}
	struct ab_gate_rule gate = ab_gate_for(db, &stored, NAN, &aa, &have_aa);
	run_exp_env_warn(db, &stored);
	struct ab_analysis an;
	if (o->by_name) {
		FILE *fp = verb_out(vc);
		if (fp && vc->fmt == OUT_TABLE)
			fputc('\n', fp);
		if (!fp || ab_report_by_name(db, &stored, &gate, vc->fmt, fp) ||
		    verb_out_close(vc))
			exit_code = EXIT_FAIL;
	} else if (ab_analyze(&stored, &gate, &an, &cause) == 0) {
		/* The runs are stored: a name that is no metric leaves the
		 * whole experiment shown, not lost. */
		if (ab_analysis_keep(&an, o->metric.name, o->metric.n, &cause)) {
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
			exit_code = EXIT_FAIL;
		ab_analysis_release(&an);
	} else {
		print_cause("error: ", cause);
		exit_code = EXIT_FAIL;
	}
	if (have_aa)
		db_experiment_release(&aa);
	db_experiment_release(&stored);
	host_facts_release(&hf);
	(void)failed;
out:;
	int late = runner_release_signals();
	if (late && exit_code == EXIT_OK)
		exit_code = 128 + late;
	for (size_t a = 0; ae && a < p->narms; a++) {
		pin_plan_release(&ae[a].plan);
		if (ae[a].sleep) {
			sleep_plan_release(ae[a].sleep);
			free(ae[a].sleep);
		}
		for (char **e = ae[a].env; e && *e; e++)
			free(*e);
		free(ae[a].env);
	}
	free(ae);
	for (size_t a = 0; sims && a < p->narms; a++)
		run_sim_release(&sims[a]);
	free(sims);
	db_experiment_release(&exp);
	event_list_free(evs, nev);
	free(cause);
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
