/*
 * prof screen: run each candidate scene briefly and say which are
 * CPU-limited (and can show a cache effect) and which are paced (keep up
 * and sleep). Each scene is a stored run of kind "screen" with its
 * verdict among its settings; reports/screen.h judges.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/events.h"
#include "common/errtext.h"
#include "db/runs.h"
#include "prof/run/run.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/screen.h"

#define SCREEN_SCENES_MAX 256

struct screen_args {
	double seconds;
	const char *events;
	double busy_pct;
	double paced_pct;
};

static void screen_init(void *args)
{
	struct screen_args *a = args;
	a->seconds = 10;
	a->events = "task-clock,context-switches";
	a->busy_pct = SCREEN_BUSY_PCT;
	a->paced_pct = SCREEN_PACED_PCT;
}

/* The CPUs prof (and so the scene) may run on. */
static unsigned cpus_allowed(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	return (unsigned)CPU_COUNT(&set);
}

/* "NAME=COMMAND": the name (owned) and where the command starts; NULL
 * after a usage error. */
static char *scene_name(struct verb_ctx *vc, const char *op, const char **cmd)
{
	const char *eq = strchr(op, '=');
	char buf[64];
	if (!eq || eq == op || !eq[1]) {
		usage_error(vc->name, "bad scene '%s': expected NAME=COMMAND",
			    cli_echo(op, buf, sizeof(buf)));
		return NULL;
	}
	for (const char *p = op; p < eq; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("-_.+:", *p))) {
			usage_error(vc->name, "bad scene name in '%s': use letters, digits, "
				    "'-', '_', '.', '+' or ':'", cli_echo(op, buf, sizeof(buf)));
			return NULL;
		}
	}
	*cmd = eq + 1;
	return strndup(op, (size_t)(eq - op));
}

/* One scene: run, judge, store. 0, or an exit code with the error said. */
static int screen_one(struct verb_ctx *vc, const char *name, const char *cmd,
		      const struct event_desc *evs, size_t nev,
		      const struct screen_bounds *b, struct screen_result *res,
		      char **names_keep)
{
	const struct screen_args *a = vc->args;
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
	int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct runner_opts ro = {
		.argv = argv, .argc = 3, .timeout_s = a->seconds,
		.evs = evs, .nev = nev, .out_fd = null_fd, .quiet = true,
		.kind = "screen", .frame = vc->frame,
	};
	struct db_run run;
	char *cause = NULL;
	int rc = runner_run(&ro, &run, &cause);
	if (null_fd >= 0)
		close(null_fd);
	if (rc) {
		char msg[96];
		snprintf(msg, sizeof(msg), "scene %s: ", name);
		print_cause(msg, cause);
		free(cause);
		return exit_code_for_launch(rc);
	}
	db_set_str(&run, SET_EVENTS, a->events);
	db_set_str(&run, SET_SCREEN_SCENE, name);
	db_set_f64(&run, SET_SCREEN_WINDOW_S, a->seconds);
	/* Judged once to store its verdict, and again after the store, so
	 * that the result names the stored run's id. */
	screen_judge(&run, name, a->seconds, b, res);
	db_set_str(&run, SET_SCREEN_VERDICT, screen_verdict_name(res->verdict));
	db_set_str(&run, SET_SCREEN_WHY, res->why);
	char *store_cause = NULL;
	if (run_state_store(vc, &run, &store_cause)) {
		print_cause("warning: ", store_cause ? store_cause : "the run was not stored");
		fprintf(stderr, "hint: scene %s is judged below, but not stored\n", name);
	}
	free(store_cause);
	screen_judge(&run, name, a->seconds, b, res);
	/* The result borrows the busiest thread's name: keep a copy. */
	*names_keep = res->busiest_name ? strdup(res->busiest_name) : NULL;
	res->busiest_name = *names_keep;
	db_run_release(&run);
	return 0;
}

static int cmd_screen(struct verb_ctx *vc)
{
	const struct screen_args *a = vc->args;
	if (vc->argc < 1)
		return usage_error(vc->name, "no scene: give NAME=COMMAND, one or more");
	if ((size_t)vc->argc > SCREEN_SCENES_MAX)
		return usage_error(vc->name, "%d scenes: at most %d at once", vc->argc,
				   SCREEN_SCENES_MAX);
	if (a->paced_pct >= a->busy_pct)
		return usage_error(vc->name, "--paced %.0f is not under --busy %.0f",
				   a->paced_pct, a->busy_pct);
	size_t n = (size_t)vc->argc;
	char **names = calloc(n, sizeof(*names));
	const char **cmds = calloc(n, sizeof(*cmds));
	struct screen_result *res = calloc(n, sizeof(*res));
	char **keep = calloc(n, sizeof(*keep));
	int exit_code = EXIT_OK;
	struct event_desc *evs = NULL;
	size_t nev = 0;
	if (!names || !cmds || !res || !keep) {
		exit_code = error_msg("out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(names[i] = scene_name(vc, vc->argv[i], &cmds[i]))) {
			exit_code = EXIT_USAGE;
			goto out;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(names[i], names[j])) {
				exit_code = usage_error(vc->name, "scene '%s' is given twice",
							names[i]);
				goto out;
			}
	}
	/* task-clock is what the verdict reads: it is always counted. */
	char *list = NULL;
	bool has_tc = false;
	for (const char *p = a->events; p && (p = strstr(p, "task-clock")); p++)
		if ((p == a->events || p[-1] == ',') && (p[10] == 0 || p[10] == ','))
			has_tc = true;
	if (asprintf(&list, "%s%s", has_tc ? "" : "task-clock,", a->events) < 0) {
		exit_code = error_msg("out of memory");
		goto out;
	}
	char *cause = NULL;
	int rc = event_list_parse(list, 0, &evs, &nev, &cause);
	free(list);
	if (rc) {
		exit_code = fail_cause(cause, exit_code_for(rc));
		goto out;
	}
	struct screen_bounds b = {
		.busy_pct = a->busy_pct, .paced_pct = a->paced_pct,
		.budget_ms = frame_args_any(&vc->frame) ? vc->frame.budget_ms : 0,
		.ncpus = cpus_allowed(),
	};
	verb_db(vc);	/* said before the first scene when it cannot be opened */
	runner_hold_signals();
	size_t done = 0;
	for (size_t i = 0; i < n && !runner_interrupted(); i++) {
		if (!vc->launch.quiet)
			fprintf(stderr, "prof screen: scene %s (%zu of %zu), %.1f s\n",
				names[i], i + 1, n, a->seconds);
		rc = screen_one(vc, names[i], cmds[i], evs, nev, &b, &res[done], &keep[done]);
		if (rc) {
			if (exit_code == EXIT_OK)
				exit_code = rc;
			continue;
		}
		res[done].scene = names[i];
		done++;
	}
	int late = runner_release_signals();
	if (done && (!vc->launch.quiet || vc->out_path)) {
		FILE *fp = verb_out(vc);
		if (fp)
			report_screen(res, done, &b, a->seconds, vc->fmt, fp);
		if (!fp || verb_out_close(vc))
			exit_code = EXIT_FAIL;
	}
	if (runner_interrupted() && exit_code == EXIT_OK)
		exit_code = runner_stop_exit_code();
	if (late)
		exit_code = EXIT_SIGNAL + late;
out:
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	for (size_t i = 0; keep && i < n; i++)
		free(keep[i]);
	free(names);
	free(cmds);
	free(res);
	free(keep);
	event_list_free(evs, nev);
	return exit_code;
}

static const struct opt screen_opts[] = {
	OPT_DOUBLE(0, "seconds", struct screen_args, seconds, "S", 0.1, 86400,
		   "seconds, e.g. 10 or 2.5",
		   "how long each scene runs before it is ended\n"
		   "(SIGTERM, as --timeout does; default 10)"),
	OPT_STRING('e', "events", struct screen_args, events, "LIST",
		   "events to count besides task-clock, which the\n"
		   "verdict reads (default: task-clock,\n"
		   "context-switches)"),
	OPT_DOUBLE(0, "busy", struct screen_args, busy_pct, "PCT", 1, 100,
		   "a percentage of one core",
		   "a thread this busy (task-clock over wall) makes\n"
		   "the scene CPU-limited (default 90)"),
	OPT_DOUBLE(0, "paced", struct screen_args, paced_pct, "PCT", 0, 100,
		   "a percentage of one core",
		   "every thread under this: paced (default 60)"),
	OPT_INCLUDE(opt_frames),
	OPT_INCLUDE(opt_quiet),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

static const char screen_help[] =
"usage: prof screen [options] NAME=COMMAND [NAME=COMMAND...]\n"
"\n"
"Run each candidate scene for a few seconds and say which can show a\n"
"cache effect: a CPU-limited scene (a thread busy all the time) gets\n"
"faster when its working set fits; a paced one (every thread mostly\n"
"idle, or frames at their budget) keeps up with its guest and only\n"
"sleeps less. Screen before an A/B of hours. Each COMMAND runs through\n"
"/bin/sh -c, its output discarded, and is ended after --seconds.\n"
"\n";

static const char screen_tail[] =
"A thread's busy share is its task-clock over the scene's wall time:\n"
"100% is one core kept busy. The verdict per scene, first match wins:\n"
"  paced        with --frames or --frame-regex, the median frame within\n"
"               3% of --budget (it keeps up with its cap)\n"
"  cpu-limited  a thread at --busy or more, or the workload keeping 90%\n"
"               of the CPUs it may use busy\n"
"  paced        every thread under --paced\n"
"  in-between   the busiest thread between --paced and --busy\n"
"A scene that ends before --seconds is judged over its life, and said.\n"
"Each scene is stored as a run of kind screen, with the settings\n"
"screen.scene, screen.window_s, screen.verdict and screen.why; 'prof\n"
"report RUN' shows its threads. JSON has window_s, busy_pct, paced_pct,\n"
"budget_ms, cpus and scenes (scene, run_id, wall_s, ended_early,\n"
"exit_status, threads, busiest_tid, busiest, busiest_pct,\n"
"threads_over_paced, cpus_busy, frames, frame_p50_ms, verdict, why).\n"
"\n"
"Examples:\n"
"  prof screen --seconds 5 'intro=./emu --state intro.sav' \\\n"
"      'city=./emu --state city.sav'\n"
"  prof screen --frame-regex '^frame' --budget 16.7 'menu=./game --menu'\n";

VERB(screen, screen_args, .init = screen_init, .max_operands = VERB_ANY_OPERANDS);
