/*
 * prof html: one self-contained page of a stored run or experiment, with
 * the tables its verbs print and its pictures, fit to attach to a pull
 * request or a bug. A counting run gets its threads by thread and by
 * name; a sampled run its hottest symbols, call paths and flame graph;
 * either, when it has them, its frames and intervals as pictures and
 * tables; a sleep benchmark or a probe its table and picture; an experiment its
 * tables and picture, analysed as 'prof compare' does (a pressure
 * experiment as prof pressure: its curves and steps).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/experiments.h"
#include "db/probe.h"
#include "db/runs.h"
#include "db/samples.h"
#include "db/sleep.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/ab.h"
#include "reports/flame.h"
#include "reports/frames.h"
#include "reports/framesplot.h"
#include "reports/html.h"
#include "reports/pressure.h"
#include "reports/probe.h"
#include "reports/profile.h"
#include "reports/runs.h"
#include "reports/sleep.h"
#include "reports/timeline.h"
#include "reports/timelineplot.h"

struct html_args {
	const char *experiment;	/* --experiment, or NULL */
	bool icicle;
};

/* Text a report writes, in memory: open, render, take. */
struct capture {
	char *text;
	size_t len;
	FILE *fp;
};

static FILE *cap_open(struct capture *c)
{
	c->text = NULL;
	c->len = 0;
	c->fp = open_memstream(&c->text, &c->len);
	if (!c->fp) {
		fprintf(stderr, "error: out of memory\n");
		exit(EXIT_FAIL);
	}
	return c->fp;
}

/* Write what was captured as a table (pre) or a picture, and free it. */
static void cap_put(struct capture *c, FILE *out, bool picture)
{
	fclose(c->fp);
	if (picture)
		html_picture(out, c->text);
	else
		html_pre(out, c->text);
	free(c->text);
}

static void page_counted(FILE *fp, const struct db_run *run)
{
	struct capture c;
	html_section(fp, "per thread");
	report_run(run, BY_THREAD, OUT_TABLE, cap_open(&c));
	cap_put(&c, fp, false);
	html_section(fp, "per thread name");
	report_run(run, BY_NAME, OUT_TABLE, cap_open(&c));
	cap_put(&c, fp, false);
}

/* A run's frames (--frames) and intervals (-I), where it has them. */
static void page_frames_intervals(FILE *fp, const struct db_run *run)
{
	struct capture c;
	if (run->nframes) {
		html_section(fp, "frame times and counters per frame");
		report_frames_svg(run, cap_open(&c));
		cap_put(&c, fp, true);
		html_section(fp, "frames");
		report_frames(run, OUT_TABLE, cap_open(&c));
		cap_put(&c, fp, false);
	}
	if (run->nintervals) {
		html_section(fp, "counters over time");
		report_intervals_svg(run, cap_open(&c));
		cap_put(&c, fp, true);
		html_section(fp, "timeline");
		report_timeline(run, OUT_TABLE, cap_open(&c));
		cap_put(&c, fp, false);
	}
}

static void page_sampled(FILE *fp, const struct db_run *run,
			 const struct db_profile *p, bool icicle)
{
	struct capture c;
	struct profile_opts po = { .by = PROFILE_BY_SYMBOL, .event = -1, .limit = 30,
				   .fmt = OUT_TABLE };
	html_section(fp, icicle ? "icicle graph" : "flame graph");
	html_note(fp, "click a frame to zoom, 'Reset zoom' to go back, 'Search' to "
		  "highlight frames by name");
	for (size_t e = 0; e < p->nevents; e++) {
		po.event = (int)e;
		report_flame(run, p, &po, icicle, cap_open(&c));
		cap_put(&c, fp, true);
	}
	po.event = -1;
	html_section(fp, "hottest symbols");
	report_profile(run, p, &po, cap_open(&c));
	cap_put(&c, fp, false);
	html_section(fp, "hottest call paths");
	po.stacks = true;
	po.limit = 10;
	report_profile(run, p, &po, cap_open(&c));
	cap_put(&c, fp, false);
	html_section(fp, "counts per thread");
	report_run(run, BY_THREAD, OUT_TABLE, cap_open(&c));
	cap_put(&c, fp, false);
}

static void page_sleep(FILE *fp, const struct db_run *run, const struct db_sleep *s)
{
	struct capture c;
	html_section(fp, "overshoot and CPU per mode");
	report_sleep(run, s, OUT_SVG, cap_open(&c));
	cap_put(&c, fp, true);
	html_section(fp, "results");
	report_sleep(run, s, OUT_TABLE, cap_open(&c));
	cap_put(&c, fp, false);
}

static void page_probe(FILE *fp, const struct db_run *run, const struct db_probe *p)
{
	struct capture c;
	html_section(fp, "latency against working-set size");
	report_probe(run, p, OUT_SVG, cap_open(&c));
	cap_put(&c, fp, true);
	html_section(fp, "results");
	report_probe(run, p, OUT_TABLE, cap_open(&c));
	cap_put(&c, fp, false);
}

static int html_run(struct verb_ctx *vc, struct db *db, long id)
{
	const struct html_args *a = vc->args;
	struct stored_run sr;
	char *cause = NULL;
	int rc = stored_run_load(db, id, &sr, &cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	struct db_run *run = &sr.run;
	struct db_profile prof;
	bool sampled = false;
	if (!sr.is_sleep && !sr.is_probe) {
		rc = db_profile_load(db, run->id, &prof, &cause);
		sampled = rc == 0;
		if (rc == -ENODATA) {
			free(cause);
			cause = NULL;
			rc = 0;
		}
	}
	if (rc) {
		stored_run_release(&sr);
		return fail_cause(cause, exit_code_for(rc));
	}
	FILE *fp = verb_out(vc);
	if (fp) {
		char title[64];
		snprintf(title, sizeof(title), "prof: run %lld (%s)", (long long)run->id,
			 sr.is_sleep ? "sleep benchmark" : sr.is_probe ? "probe"
			 : sampled ? "sampled" : "counted");
		html_begin(fp, title, run->command);
		if (sr.is_sleep)
			page_sleep(fp, run, &sr.sleep);
		else if (sr.is_probe)
			page_probe(fp, run, &sr.probe);
		else if (sampled)
			page_sampled(fp, run, &prof, a->icicle);
		else
			page_counted(fp, run);
		if (!sr.is_sleep && !sr.is_probe)
			page_frames_intervals(fp, run);
		html_end(fp);
	}
	if (sampled)
		db_profile_release(&prof);
	stored_run_release(&sr);
	return fp ? EXIT_OK : EXIT_FAIL;
}

/* A pressure experiment: its curves, then its tables, as prof pressure
 * printed them. */
static int html_pressure(struct verb_ctx *vc, const struct db_experiment *e)
{
	struct press_analysis an;
	char *cause = NULL;
	if (press_analyze(e, NAN, &an, &cause))
		return fail_cause(cause, EXIT_FAIL);
	FILE *fp = verb_out(vc);
	if (fp) {
		char title[64];
		struct capture c;
		snprintf(title, sizeof(title), "prof: experiment %lld (pressure)",
			 (long long)e->id);
		html_begin(fp, title, e->note);
		html_section(fp, "cache pressure curves");
		press_render(&an, OUT_SVG, cap_open(&c));
		cap_put(&c, fp, true);
		html_section(fp, "steps");
		press_render(&an, OUT_TABLE, cap_open(&c));
		cap_put(&c, fp, false);
		html_end(fp);
	}
	press_analysis_release(&an);
	return fp ? EXIT_OK : EXIT_FAIL;
}

static int html_experiment(struct verb_ctx *vc, struct db *db, long id)
{
	struct db_experiment e, aa;
	bool have_aa = false;
	int rc = cli_load_experiment(db, id, &e);
	if (rc)
		return rc;
	if (!strcmp(e.kind, DB_EXP_KIND_PRESSURE)) {
		rc = html_pressure(vc, &e);
		db_experiment_release(&e);
		return rc;
	}
	struct ab_gate_rule gate = ab_gate_for(db, &e, NAN, &aa, &have_aa);
	struct ab_analysis an;
	char *cause = NULL;
	if (ab_analyze(&e, &gate, &an, &cause)) {
		rc = fail_cause(cause, EXIT_FAIL);
	} else {
		FILE *fp = verb_out(vc);
		if (fp) {
			char title[64];
			struct capture c;
			snprintf(title, sizeof(title), "prof: experiment %lld",
				 (long long)e.id);
			html_begin(fp, title, e.note);
			html_section(fp, "rounds and effects");
			ab_render(&an, OUT_SVG, cap_open(&c));
			cap_put(&c, fp, true);
			html_section(fp, "statistics");
			ab_render(&an, OUT_TABLE, cap_open(&c));
			cap_put(&c, fp, false);
			html_end(fp);
		}
		rc = fp ? EXIT_OK : EXIT_FAIL;
		ab_analysis_release(&an);
	}
	if (have_aa)
		db_experiment_release(&aa);
	db_experiment_release(&e);
	return rc;
}

static int cmd_html(struct verb_ctx *vc)
{
	const struct html_args *a = vc->args;
	long id = 0;
	if (a->experiment && vc->argc)
		return usage_error(vc->name, "give a run or --experiment, not both");
	if (a->experiment && cli_parse_run_id(vc->name, a->experiment, &id))
		return EXIT_USAGE;
	if (vc->argc && cli_parse_run_id(vc->name, vc->argv[0], &id))
		return EXIT_USAGE;
	struct db *db = verb_db(vc);
	if (!db)
		return EXIT_FAIL;
	return a->experiment ? html_experiment(vc, db, id) : html_run(vc, db, id);
}

static const struct opt html_opts[] = {
	OPT_STRING(0, "experiment", struct html_args, experiment, "EXP",
		   "the page of an experiment (an id, or 'last')"),
	OPT_BOOL(0, "icicle", struct html_args, icicle,
		 "draw a sampled run's stacks with callers on top"),
	{ .kind = OPT_STRING, .short_name = 'o', .long_name = "output",
	  .argh = "FILE", .help = "write the page to FILE instead of stdout",
	  .base = OPT_IN_CTX, .off = offsetof(struct verb_ctx, out_path) },
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

static const char html_help[] =
"usage: prof html [RUN|last] [--icicle] [-o FILE] [--db PATH]\n"
"       prof html --experiment EXP|last [-o FILE] [--db PATH]\n"
"\n"
"Write one self-contained HTML page of a stored run (default, or last:\n"
"the newest run 'prof runs' lists) or experiment (last: the newest\n"
"experiment): the tables its verbs print and its pictures. A counting\n"
"run: its threads, by thread and by name. A sampled run: a flame graph\n"
"per event (click to zoom, search by name), the hottest symbols and call\n"
"paths, its counts. Either, when it has them: its frames (each frame's\n"
"time against the budget, counters per frame) and its intervals (each\n"
"thread name's counters over time). A sleep benchmark: its overshoot\n"
"distributions and table. A probe: its latency curve against sysfs's\n"
"caches, and table. An experiment: every round per arm, the effects\n"
"against the gate, and its statistics as 'prof compare' prints them; a\n"
"pressure experiment: each workload's curve against the cache taken, and\n"
"its steps. The page fetches nothing (no script, style sheet or font from\n"
"the network), so it can be attached to a pull request or a bug as it is.\n"
"\n";

static const char html_tail[] =
"Examples:\n"
"  prof html last -o run.html\n"
"  prof html --experiment last -o ab.html\n";

VERB(html, html_args, .max_operands = 1);
