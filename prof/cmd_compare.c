/* prof compare: reprint a stored experiment, or compare two runs. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "db/experiments.h"
#include "db/runs.h"
#include "db/tags.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/ab.h"
#include "reports/pressure.h"

struct compare_args {
	double gate;		/* --gate, NAN when not given */
	const char *set[3];	/* --set NAME=SPEC, as given; a third is refused */
	size_t nset;
	bool by_name;		/* --by name */
	struct metric_pick metric;	/* --metric NAME... */
};

static int parse_set(struct verb_ctx *vc, const char *arg, void *field)
{
	struct compare_args *a = (struct compare_args *)((char *)field -
						 offsetof(struct compare_args, set));
	char buf[64];
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return usage_error(vc->name, "bad --set '%s': expected NAME=TAG or "
				   "NAME=RUNS (e.g. A=before, B=12-15)",
				   cli_echo(arg, buf, sizeof(buf)));
	if (a->nset == 2)
		return usage_error(vc->name, "--set given a third time: compare two "
				   "sets, the first being the baseline");
	a->set[a->nset++] = arg;
	return 0;
}

/* One --set: its runs loaded into *runs (caller releases each). */
static int load_set(struct verb_ctx *vc, struct db *db, const char *arg,
		    struct ab_set *set, struct db_run **runs)
{
	const char *eq = strchr(arg, '=');
	const char *spec = eq + 1;
	char *cause = NULL, buf[64];
	int64_t *ids = NULL;
	size_t n = 0;
	set->name = strndup(arg, (size_t)(eq - arg));
	/* runs:LIST, tag:NAME, or bare: a list if it reads as one (a tag
	 * cannot: prof run --tag refuses those), else a tag */
	const char *tag = NULL;
	if (!strncmp(spec, "runs:", 5)) {
		if (!cli_parse_id_list(spec + 5, &ids, &n))
			return usage_error(vc->name, "bad --set '%s': runs: takes a list "
					   "such as 3,5,7-9", cli_echo(arg, buf, sizeof(buf)));
	} else if (!strncmp(spec, "tag:", 4)) {
		tag = spec + 4;
	} else if (!cli_parse_id_list(spec, &ids, &n)) {
		tag = spec;
	}
	if (tag) {
		if (db_runs_tagged(db, tag, &ids, &n, &cause))
			return fail_cause(cause, EXIT_FAIL);
		if (!n) {
			error_msg("--set %s: no run is tagged '%s'", set->name,
				  cli_echo(tag, buf, sizeof(buf)));
			fprintf(stderr, "hint: tag runs with 'prof run --tag %s -- COMMAND'\n",
				cli_echo(tag, buf, sizeof(buf)));
			return EXIT_USAGE;	/* a thing named that does not exist */
		}
		if (asprintf(&set->spec, "tag '%s'", tag) < 0)
			xalloc_die();
	} else {
		if (asprintf(&set->spec, "runs %s", !strncmp(spec, "runs:", 5) ? spec + 5
			     : spec) < 0)
			xalloc_die();
	}
	*runs = calloc(n, sizeof(**runs));
	for (size_t i = 0; i < n; i++) {
		int rc = db_run_load(db, ids[i], &(*runs)[i], &cause);
		if (rc) {
			for (size_t k = 0; k < i; k++)
				db_run_release(&(*runs)[k]);
			free(ids);
			return fail_cause(cause, exit_code_for(rc));
		}
		set->nruns++;
	}
	set->runs = *runs;
	free(ids);
	return 0;
}

/* --set A=... --set B=...: two sets collected apart, unpaired. */
static int compare_sets(struct verb_ctx *vc, struct db *db)
{
	const struct compare_args *args = vc->args;
	struct ab_set set[2];
	struct db_run *runs[2] = { NULL, NULL };
	memset(set, 0, sizeof(set));
	int rc = EXIT_OK;
	for (int k = 0; k < 2 && rc == EXIT_OK; k++)
		rc = load_set(vc, db, args->set[k], &set[k], &runs[k]);
	if (rc == EXIT_OK) {
		struct ab_sets an;
		char *cause = NULL;
		if (ab_sets_analyze(&set[0], &set[1], args->gate, &an, &cause)) {
			rc = fail_cause(cause, EXIT_FAIL);
		} else {
			FILE *fp = verb_out(vc);
			if (fp)
				ab_render_sets(&an, vc->fmt, fp);
			rc = fp ? EXIT_OK : EXIT_FAIL;
			ab_sets_release(&an);
		}
	}
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < set[k].nruns; i++)
			db_run_release(&runs[k][i]);
		free(runs[k]);
		free(set[k].name);
		free(set[k].spec);
	}
	return rc;
}

static void compare_init(void *args)
{
	((struct compare_args *)args)->gate = NAN;
}

/* No operand: the stored experiments. */
static int compare_list(struct verb_ctx *vc, struct db *db)
{
	struct db_experiment_summary *v;
	size_t n;
	char *cause = NULL;
	if (db_experiments_list(db, &v, &n, &cause))
		return fail_cause(cause, EXIT_FAIL);
	FILE *fp = verb_out(vc);
	if (fp)
		ab_render_list(v, n, vc->fmt, fp);
	db_experiments_list_free(v, n);
	return fp ? EXIT_OK : EXIT_FAIL;
}

/* Two runs side by side. */
static int compare_runs(struct verb_ctx *vc, struct db *db, const long ids[2])
{
	struct db_run a, b;
	char *cause = NULL;
	int rc = db_run_load(db, ids[0], &a, &cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	if ((rc = db_run_load(db, ids[1], &b, &cause))) {
		db_run_release(&a);
		return fail_cause(cause, exit_code_for(rc));
	}
	if (a.host.cpu_model && b.host.cpu_model &&
	    strcmp(a.host.cpu_model, b.host.cpu_model))
		warning_msg("runs from different machines: %s and %s",
			    a.host.cpu_model, b.host.cpu_model);
	run_env_warn(&a, &b);
	FILE *fp = verb_out(vc);
	if (fp)
		ab_render_runs(&a, &b, vc->fmt, fp);
	db_run_release(&a);
	db_run_release(&b);
	return fp ? EXIT_OK : EXIT_FAIL;
}

/* A pressure experiment: its curves, as prof pressure printed them. */
static int compare_pressure(struct verb_ctx *vc, const struct db_experiment *e)
{
	const struct compare_args *args = vc->args;
	struct press_analysis an;
	char *cause = NULL;
	if (press_analyze(e, args->gate, &an, &cause))
		return fail_cause(cause, EXIT_FAIL);
	FILE *fp = verb_out(vc);
	if (fp)
		press_render(&an, vc->fmt, fp);
	press_analysis_release(&an);
	return fp ? EXIT_OK : EXIT_FAIL;
}

/* One experiment, analysed again from the database alone. */
static int compare_experiment(struct verb_ctx *vc, struct db *db, long id)
{
	const struct compare_args *args = vc->args;
	struct db_experiment e, aa;
	bool have_aa = false;
	int rc = cli_load_experiment(db, id, &e);
	if (rc)
		return rc;
	if (!strcmp(e.kind, DB_EXP_KIND_PRESSURE)) {
		rc = compare_pressure(vc, &e);
		db_experiment_release(&e);
		return rc;
	}
	struct ab_gate_rule gate = ab_gate_for(db, &e, args->gate, &aa, &have_aa);
	run_exp_env_warn(db, &e);
	struct ab_analysis an;
	char *cause = NULL;
	if (args->by_name) {
		FILE *fp = verb_out(vc);
		rc = fp ? ab_report_by_name(db, &e, &gate, vc->fmt, fp) : EXIT_FAIL;
	} else if (ab_analyze(&e, &gate, &an, &cause)) {
		rc = fail_cause(cause, EXIT_FAIL);
	} else if (ab_analysis_keep(&an, args->metric.name, args->metric.n, &cause)) {
		rc = fail_cause(cause, EXIT_USAGE);
		ab_analysis_release(&an);
	} else {
		FILE *fp = verb_out(vc);
		if (fp)
			ab_render(&an, vc->fmt, fp);
		rc = fp && !ab_errors_said(&an, vc->fmt) ? EXIT_OK : EXIT_FAIL;
		ab_analysis_release(&an);
	}
	if (have_aa)
		db_experiment_release(&aa);
	db_experiment_release(&e);
	return rc;
}

static int cmd_compare(struct verb_ctx *vc)
{
	const struct compare_args *args = vc->args;
	if (args->nset) {
		if (args->nset != 2 || vc->argc)
			return usage_error(vc->name, "--set goes twice and alone: --set "
					   "A=TAG|RUNS --set B=TAG|RUNS");
		struct db *db = verb_db(vc);
		return db ? compare_sets(vc, db) : EXIT_FAIL;
	}
	if (vc->argc > 2)
		return usage_error(vc->name, "give an experiment, or two runs");
	if (vc->fmt == OUT_SVG && vc->argc != 1)
		return usage_error(vc->name, "--format svg draws one experiment: "
				   "give its id");
	long ids[2] = { 0, 0 };
	for (int i = 0; i < vc->argc; i++)
		if (cli_parse_run_id(vc->name, vc->argv[i], &ids[i]))
			return EXIT_USAGE;
	struct db *db = verb_db(vc);
	if (!db)
		return EXIT_FAIL;
	if (vc->argc == 0)
		return compare_list(vc, db);
	if (vc->argc == 2)
		return compare_runs(vc, db, ids);
	return compare_experiment(vc, db, ids[0]);
}

static const struct opt compare_opts[] = {
	OPT_DOUBLE(0, "gate", struct compare_args, gate, "PCT", 0, 1000,
		   "a percentage", "judge the experiment against this noise gate, in\n"
		   "percent (default: as 'prof ab' judged it)"),
	OPT_CALLBACK(0, "metric", struct compare_args, metric, "NAME", parse_metric_pick,
		     "judge and show only this metric, as the tables\n"
		     "name it (repeatable)"),
	OPT_CALLBACK(0, "by", struct compare_args, by_name, "arm|name", ab_parse_by,
		     "for an experiment: arm (default), or name: each\n"
		     "counter per thread name, with its own verdict"),
	OPT_CALLBACK(0, "set", struct compare_args, set, "NAME=TAG|RUNS", parse_set,
		     "a set of runs taken apart, given twice (the first\n"
		     "is the baseline): the runs 'prof run --tag TAG'\n"
		     "stored, or ids such as 3,5,7-9 (tag:X and runs:L\n"
		     "say which); compared unpaired"),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

static const char compare_help[] =
"usage: prof compare [EXPERIMENT|last] [--gate PCT] [--format FMT] [-o FILE]\n"
"       prof compare RUN RUN [--format FMT]\n"
"       prof compare --set A=TAG|RUNS --set B=TAG|RUNS [--gate PCT]\n"
"       prof compare            (lists the stored experiments)\n"
"\n"
"Re-render a stored 'prof ab' or 'prof pressure' experiment from the\n"
"database alone (last: the newest experiment): the same statistics,\n"
"verdicts and tables the verb printed (with --gate, judged against\n"
"another gate). With two run ids, compare two single runs side by side\n"
"with their differences in percent: one run each gives no noise estimate,\n"
"so no verdict.\n"
"\n"
"--format svg draws an experiment: per metric, every round's value per arm\n"
"(the paired rounds joined by a line) with the medians, and each arm's\n"
"effect with its 95% CI against the noise gate; a pressure experiment:\n"
"each workload's curve, as 'prof pressure --format svg' draws it.\n"
"\n"
"With --set twice, compare two sets of runs collected apart, for changes\n"
"that need a reboot between them (a kernel, a BIOS setting): per metric\n"
"Welch's t on log values for the CI, a permutation test for p, and the\n"
"verdict rules of 'prof ab'. The runs were not interleaved, so drift\n"
"between the sessions is part of the difference; the report says so.\n"
"\n";

static const char compare_tail[] =
"Examples:\n"
"  prof compare last --format markdown\n"
"  prof compare last --format svg -o ab.svg\n"
"  prof compare 12 14\n"
"  prof compare --set before=bios-a --set after=bios-b --format markdown\n";

VERB(compare, compare_args, .init = compare_init, .max_operands = VERB_ANY_OPERANDS);
