/*
 * prof summary: several experiments that share arms (one per scene)
 * read together: per scene the effect and verdict, across scenes the
 * count, the geometric mean effect with scenes as the unit, and a sign
 * test; Markdown fit for a pull request.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/experiments.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/summary.h"

#define SUMMARY_METRICS_MAX 32

struct summary_args {
	const char *arm;
	double gate;
	const char *metric[SUMMARY_METRICS_MAX];
	size_t nmetric;
};

static void summary_init(void *args)
{
	((struct summary_args *)args)->gate = NAN;
}

static int parse_metric(struct verb_ctx *vc, const char *arg, void *field)
{
	struct summary_args *a = (struct summary_args *)((char *)field -
						 offsetof(struct summary_args, metric));
	if (a->nmetric == SUMMARY_METRICS_MAX)
		return usage_error(vc->name, "more than %d --metric", SUMMARY_METRICS_MAX);
	a->metric[a->nmetric++] = arg;
	return 0;
}

static int cmd_summary(struct verb_ctx *vc)
{
	const struct summary_args *a = vc->args;
	int64_t *ids = NULL;
	size_t n = 0;
	char buf[64];
	if (!vc->argc)
		return usage_error(vc->name, "give the experiments: prof summary 3 4 5, "
				   "a list 3,5,7-14, or last");
	for (int i = 0; i < vc->argc; i++) {
		if (!strcmp(vc->argv[i], "last")) {	/* 0: the last one */
			int64_t *v = realloc(ids, (n + 1) * sizeof(*v));
			if (!v)
				abort();
			ids = v;
			ids[n++] = 0;
		} else if (!cli_parse_id_list(vc->argv[i], &ids, &n)) {
			free(ids);
			return usage_error(vc->name, "bad experiment '%s': expected an id, "
					   "a list such as 3,5,7-14, or last",
					   cli_echo(vc->argv[i], buf, sizeof(buf)));
		}
	}
	struct db *db = verb_db(vc);
	if (!db) {
		free(ids);
		return EXIT_FAIL;
	}
	struct db_experiment *e = calloc(n, sizeof(*e)), *aa = calloc(n, sizeof(*aa));
	bool *have_aa = calloc(n, sizeof(bool));
	struct ab_analysis *an = calloc(n, sizeof(*an));
	if (!e || !aa || !have_aa || !an)
		abort();
	size_t loaded = 0, analysed = 0;
	int rc = EXIT_OK;
	char *cause = NULL;
	for (; loaded < n; loaded++) {
		int r = db_experiment_load(db, ids[loaded], &e[loaded], &cause);
		if (r) {
			rc = fail_cause(cause, exit_code_for(r));
			goto out;
		}
		/* A scene is one piece of evidence: the same experiment twice
		 * (3,3 or 3 and last) would count its verdict twice. */
		for (size_t k = 0; k < loaded; k++)
			if (e[k].id == e[loaded].id) {
				loaded++;
				rc = usage_error(vc->name, "experiment %lld is given more than "
						 "once; each scene counts once, so give each "
						 "experiment once", (long long)e[k].id);
				goto out;
			}
	}
	for (; analysed < n; analysed++) {
		struct ab_gate_rule g = ab_gate_for(db, &e[analysed], NAN, &aa[analysed],
						    &have_aa[analysed]);
		if (ab_analyze(&e[analysed], &g, &an[analysed], &cause)) {
			rc = fail_cause(cause, EXIT_FAIL);
			goto out;
		}
		if (an[analysed].nerrors) {
			for (size_t k = 0; k < an[analysed].nerrors; k++)
				fprintf(stderr, "error: experiment %lld: %s\n",
					(long long)e[analysed].id, an[analysed].errors[k]);
			analysed++;
			rc = EXIT_FAIL;
			goto out;
		}
	}
	struct summary s;
	if (summary_build(an, n, a->arm, a->gate, &s, &cause)) {
		rc = fail_cause(cause, EXIT_USAGE);
		goto out;
	}
	for (size_t i = 0; i < a->nmetric; i++) {
		bool found = false;
		for (size_t m = 0; m < s.nmetrics; m++)
			found = found || !strcmp(s.metrics[m].name, a->metric[i]);
		if (!found) {
			rc = usage_error(vc->name, "--metric '%s' is not a metric of every "
					 "experiment", cli_echo(a->metric[i], buf, sizeof(buf)));
			summary_release(&s);
			goto out;
		}
	}
	FILE *fp = verb_out(vc);
	if (fp)
		summary_render(&s, a->nmetric ? a->metric : NULL, a->nmetric, vc->fmt, fp);
	else
		rc = EXIT_FAIL;
	summary_release(&s);
out:
	for (size_t i = 0; i < analysed; i++)
		ab_analysis_release(&an[i]);
	for (size_t i = 0; i < n; i++)
		if (have_aa[i])
			db_experiment_release(&aa[i]);
	for (size_t i = 0; i < loaded; i++)
		db_experiment_release(&e[i]);
	free(an);
	free(have_aa);
	free(aa);
	free(e);
	free(ids);
	return rc;
}

static const struct opt summary_opts[] = {
	OPT_STRING(0, "arm", struct summary_args, arm, "NAME",
		   "the arm to compare with the baseline (default: each\n"
		   "experiment's second arm, by the first one's name)"),
	OPT_CALLBACK(0, "metric", struct summary_args, metric, "NAME", parse_metric,
		     "show this metric per scene (repeatable; default\n"
		     "wall_s and every score)"),
	OPT_DOUBLE(0, "gate", struct summary_args, gate, "PCT", 0, 1000, "a percentage",
		   "the gate of the verdict across scenes (default 1%;\n"
		   "each scene keeps its own)"),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

static const char summary_help[] =
"usage: prof summary EXPERIMENT... [--arm NAME] [--metric NAME]... [--gate PCT]\n"
"                    [--format FMT] [-o FILE]\n"
"\n"
"Read several 'prof ab' experiments that share their arms (one per scene,\n"
"benchmark or input) together. Per scene: the arm's effect against the\n"
"baseline and the verdict that experiment reached. Across scenes, per\n"
"metric: how many scenes were better, worse, equivalent or inconclusive\n"
"('12 of 12 scenes better'), the geometric mean effect with a 95% CI that\n"
"treats each scene as one unit (Student's t on the per-scene mean\n"
"log-ratios), and a two-sided sign test on the directions of the effects;\n"
"better or worse across scenes needs that CI to exclude 0, the effect to\n"
"clear the gate and the sign test's p below 0.05, so 6 scenes at least.\n"
"--format markdown writes it for a pull request. EXPERIMENT is an id, a\n"
"list such as 3,5,7-14, or last.\n"
"\n";

static const char summary_tail[] =
"Examples:\n"
"  prof summary 3-14 --format markdown\n"
"  prof summary 3 5 8 --arm llvm --metric fps\n"
"  prof summary 3,5,8 last\n";

VERB(summary, summary_args, .init = summary_init, .max_operands = VERB_ANY_OPERANDS);
