/* prof compare: reprint a stored experiment, or compare two runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/experiments.h"
#include "db/runs.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/ab.h"
#include "reports/pressure.h"

struct compare_args {
	double gate;		/* --gate, NAN when not given */
};

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
	char *cause = NULL;
	int rc = db_experiment_load(db, id, &e, &cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	if (!strcmp(e.kind, DB_EXP_KIND_PRESSURE)) {
		rc = compare_pressure(vc, &e);
		db_experiment_release(&e);
		return rc;
	}
	struct ab_gate_rule gate = ab_gate_for(db, &e, args->gate, &aa, &have_aa);
	struct ab_analysis an;
	if (ab_analyze(&e, &gate, &an, &cause)) {
		rc = fail_cause(cause, EXIT_FAIL);
	} else {
		FILE *fp = verb_out(vc);
		if (fp)
			ab_render(&an, vc->fmt, fp);
		rc = fp ? EXIT_OK : EXIT_FAIL;
		ab_analysis_release(&an);
	}
	if (have_aa)
		db_experiment_release(&aa);
	db_experiment_release(&e);
	return rc;
}

static int cmd_compare(struct verb_ctx *vc)
{
	if (vc->argc > 2)
		return usage_error(vc->name, "give an experiment, or two runs");
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
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

const struct verb verb_compare = {
	.fn = cmd_compare,
	.opts = compare_opts,
	.args_size = sizeof(struct compare_args),
	.init = compare_init,
	.max_operands = VERB_ANY_OPERANDS,
	.help =
"usage: prof compare [EXPERIMENT|last] [--gate PCT] [--format FMT] [-o FILE]\n"
"       prof compare RUN RUN [--format FMT]\n"
"       prof compare            (lists the stored experiments)\n"
"\n"
"Re-render a stored 'prof ab' or 'prof pressure' experiment from the\n"
"database alone: the same statistics, verdicts and tables the verb printed\n"
"(with --gate, judged against another gate). With two run ids, compare\n"
"two single runs side by side with their differences in percent: one run\n"
"each gives no noise estimate, so no verdict.\n"
"\n",
	.help_tail =
"Examples:\n"
"  prof compare last --format markdown\n"
"  prof compare 12 14\n",
};
