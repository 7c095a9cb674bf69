/*
 * prof explain: is a difference between two runs, or two arms of a stored
 * experiment, a working-set effect, a code-generation effect, a
 * cache-domain effect, or something this machine cannot tell?
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/experiments.h"
#include "db/runs.h"
#include "db/samples.h"
#include "prof/cli.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/ab.h"
#include "reports/explain.h"
#include "reports/pressure.h"

#define MAXMODS 8

/* The counted runs of one arm, loaded whole (modules, working set). */
static int load_arm(struct db *db, const struct db_experiment *e, size_t arm,
		    struct db_run **out, size_t *n, char **cause)
{
	*out = calloc(e->nruns + 1, sizeof(**out));
	*n = 0;
	for (size_t i = 0; i < e->nruns; i++) {
		const struct db_exp_run *r = &e->runs[i];
		if ((size_t)r->arm != arm || r->warmup || r->exit_status || r->interrupted)
			continue;
		int rc = db_run_load(db, r->run_id, &(*out)[*n], cause);
		if (rc)
			return rc;
		(*n)++;
	}
	return 0;
}

static void free_runs(struct db_run *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		db_run_release(&v[i]);
	free(v);
}

static long arm_index(const struct db_experiment *e, const char *name)
{
	for (size_t a = 0; a < e->narms; a++)
		if (!strcmp(e->arms[a].name, name))
			return (long)a;
	return -1;
}

/* The curve of a pressure analysis whose workload runs `command`. */
static long curve_of_command(const struct press_analysis *pa, const char *command)
{
	const struct db_experiment *e = pa->exp;
	for (size_t c = 0; c < pa->ncurves; c++)
		if (!strcmp(e->arms[pa->curves[c].control_arm].command, command))
			return (long)c;
	return -1;
}

/*
 * Capacity evidence for a command: the newest complete pressure
 * experiment of it on this host, analysed into *pa (release it when
 * *have). Quiet when there is none; an error loading one is a warning,
 * since the other rules still stand.
 */
static void capacity_of_command(struct db *db, int64_t host_id, const char *command,
				double gate, struct db_experiment *pe,
				struct press_analysis *pa, bool *have,
				struct explain_capacity *cap)
{
	char *cause = NULL;
	int64_t id = db_experiment_latest_of(db, host_id, DB_EXP_KIND_PRESSURE,
					     command, &cause);
	if (id <= 0) {
		if (id < 0)
			warning_msg("cannot look for a pressure experiment: %s",
				    cause ? cause : "?");
		free(cause);
		return;
	}
	if (db_experiment_load(db, id, pe, &cause)) {
		warning_msg("cannot load pressure experiment %lld: %s", (long long)id,
			    cause ? cause : "?");
		free(cause);
		return;
	}
	if (press_analyze(pe, gate, pa, &cause)) {
		warning_msg("%s", cause ? cause : "?");
		free(cause);
		db_experiment_release(pe);
		return;
	}
	long c = curve_of_command(pa, command);
	if (c < 0) {
		press_analysis_release(pa);
		db_experiment_release(pe);
		return;
	}
	*have = true;
	explain_capacity_from(pa, (size_t)c, false, cap);
}

struct explain_args {
	const char *arm, *baseline;	/* --arm, --baseline, or NULL */
	double gate;			/* --gate, NAN when not given */
};

static void explain_init(void *args)
{
	((struct explain_args *)args)->gate = NAN;
}

/* What one explanation loads and builds; released in one place. */
struct explain_job {
	struct explain_input in;
	struct explain_module mods[2][MAXMODS];
	struct db_run *runs[2];
	size_t nruns[2];
	char labels[2][64];
	struct db_experiment e, aa;
	bool have_exp, have_aa;
	struct ab_analysis an;
	bool have_an;
	/* Capacity evidence: this experiment's own curves when it is a
	 * pressure experiment, else the newest one of the same command. */
	struct db_experiment pe;
	struct press_analysis pa;
	bool have_pa, have_pe;
	struct explain_capacity cap;
	/* Where a side was sampled (prof record), where its samples fall. */
	struct db_profile prof[2];
	bool have_prof[2];
	struct explain_share shares[2][MAXMODS];
};

/* Two runs: each is a side; capacity from the newest pressure
 * experiment of either's command. Returns the exit code. */
static int explain_two_runs(struct db *db, const long ids[2], double gate,
			    struct explain_job *j)
{
	char *cause = NULL;
	for (int s = 0; s < 2; s++) {
		j->runs[s] = calloc(1, sizeof(struct db_run));
		int lrc = db_run_load(db, ids[s], j->runs[s], &cause);
		if (lrc)
			return fail_cause(cause, exit_code_for(lrc));
		j->nruns[s] = 1;
		snprintf(j->labels[s], sizeof(j->labels[s]), "run %lld",
			 (long long)j->runs[s]->id);
	}
	explain_input_from_runs(j->runs[0], j->runs[1], &j->in);
	for (int s = 1; s >= 0 && !j->have_pa; s--)
		capacity_of_command(db, j->runs[s]->host.id, j->runs[s]->command, gate,
				    &j->pe, &j->pa, &j->have_pe, &j->cap);
	j->have_pa = j->have_pe;
	return EXIT_OK;
}

/*
 * A pressure experiment: its curves are the capacity evidence, and by
 * default the first workload's largest step is compared against its
 * control (or, with --arm, the curve that arm is on). Returns the exit
 * code.
 */
static int pressure_arms(const struct explain_args *a, struct explain_job *j,
			 long *arm, long *base)
{
	char *cause = NULL;
	if (press_analyze(&j->e, a->gate, &j->pa, &cause))
		return fail_cause(cause, EXIT_FAIL);
	j->have_pa = true;
	const struct press_curve *c = &j->pa.curves[0];
	*base = (long)c->control_arm;
	*arm = c->nsteps ? (long)c->steps[c->nsteps - 1].arm : -1;
	size_t ci = 0;
	long named = a->arm ? arm_index(&j->e, a->arm) : -1;
	for (size_t k = 0; named >= 0 && k < j->pa.ncurves; k++)
		for (size_t i = 0; i < j->pa.curves[k].nsteps; i++)
			if ((long)j->pa.curves[k].steps[i].arm == named ||
			    (long)j->pa.curves[k].control_arm == named) {
				ci = k;
				*base = (long)j->pa.curves[k].control_arm;
			}
	explain_capacity_from(&j->pa, ci, true, &j->cap);
	return EXIT_OK;
}

/* --arm and --baseline by name, two different arms. Returns the exit
 * code. */
static int named_arms(struct verb_ctx *vc, const struct explain_args *a,
		      const struct db_experiment *e, long *arm, long *base)
{
	char buf[64];
	if (a->arm && (*arm = arm_index(e, a->arm)) < 0)
		return usage_error(vc->name, "experiment %lld has no arm '%s'",
				   (long long)e->id, cli_echo(a->arm, buf, sizeof(buf)));
	if (a->baseline && (*base = arm_index(e, a->baseline)) < 0)
		return usage_error(vc->name, "experiment %lld has no arm '%s'",
				   (long long)e->id, cli_echo(a->baseline, buf, sizeof(buf)));
	if (*arm < 0 || *arm == *base)
		return usage_error(vc->name, "pick two different arms of experiment "
				   "%lld", (long long)e->id);
	return EXIT_OK;
}

/* The analysis compares against arm 0: make the baseline arm 0 by
 * swapping the arms' indexes in the loaded copy of the runs. */
static void baseline_first(struct db_experiment *e, long *arm, long base)
{
	if (base == 0)
		return;
	for (size_t i = 0; i < e->nruns; i++) {
		if (e->runs[i].arm == base)
			e->runs[i].arm = 0;
		else if (e->runs[i].arm == 0)
			e->runs[i].arm = (int)base;
	}
	struct db_arm t = e->arms[0];
	e->arms[0] = e->arms[base];
	e->arms[base] = t;
	if (*arm == 0)
		*arm = base;
}

/* An experiment: two of its arms are the sides, analysed as prof ab
 * does. Returns the exit code. */
static int explain_experiment(struct verb_ctx *vc, struct db *db, long id,
			      struct explain_job *j)
{
	const struct explain_args *a = vc->args;
	char *cause = NULL;
	int lrc = db_experiment_load(db, id, &j->e, &cause);
	if (lrc)
		return fail_cause(cause, exit_code_for(lrc));
	j->have_exp = true;
	long arm = j->e.narms > 1 ? 1 : -1, base = 0;
	int rc;
	if (!strcmp(j->e.kind, DB_EXP_KIND_PRESSURE) &&
	    (rc = pressure_arms(a, j, &arm, &base)))
		return rc;
	if ((rc = named_arms(vc, a, &j->e, &arm, &base)))
		return rc;
	baseline_first(&j->e, &arm, base);
	struct ab_gate_rule gate = ab_gate_for(db, &j->e, a->gate, &j->aa, &j->have_aa);
	if (ab_analyze(&j->e, &gate, &j->an, &cause))
		return fail_cause(cause, EXIT_FAIL);
	j->have_an = true;
	explain_input_from_ab(&j->an, (size_t)arm, &j->in);
	for (int s = 0; s < 2 && !j->have_pa; s++)
		capacity_of_command(db, j->e.host_id, j->e.arms[s ? 0 : arm].command,
				    a->gate, &j->pe, &j->pa, &j->have_pe, &j->cap);
	j->have_pa = j->have_pa || j->have_pe;
	size_t arms[2] = { 0, (size_t)arm };
	for (int s = 0; s < 2; s++) {
		if (load_arm(db, &j->e, arms[s], &j->runs[s], &j->nruns[s], &cause))
			return fail_cause(cause, EXIT_FAIL);
		snprintf(j->labels[s], sizeof(j->labels[s]), "%s", j->e.arms[arms[s]].name);
	}
	return EXIT_OK;
}

/* Each sampled side's profile. A counted run has no samples; anything
 * else is an error the user must hear of. Returns the exit code. */
static int explain_profiles(struct db *db, struct explain_job *j)
{
	for (int s = 0; s < 2; s++) {
		if (!j->nruns[s])
			continue;
		char *pc = NULL;
		int prc = db_profile_load(db, j->runs[s][0].id, &j->prof[s], &pc);
		if (prc == 0) {
			j->have_prof[s] = true;
			explain_side_add_profile(&j->in.side[s], &j->runs[s][0], &j->prof[s],
						 j->shares[s], MAXMODS);
		} else if (prc != -ENODATA) {
			return fail_cause(pc, EXIT_FAIL);
		}
		free(pc);
	}
	return EXIT_OK;
}

static void explain_job_release(struct explain_job *j)
{
	for (int s = 0; s < 2; s++)
		if (j->have_prof[s])
			db_profile_release(&j->prof[s]);
	explain_input_release(&j->in);
	if (j->have_an)
		ab_analysis_release(&j->an);
	if (j->have_pa)
		press_analysis_release(&j->pa);
	if (j->have_pe)
		db_experiment_release(&j->pe);
	if (j->have_aa)
		db_experiment_release(&j->aa);
	if (j->have_exp)
		db_experiment_release(&j->e);
	for (int s = 0; s < 2; s++)
		if (j->runs[s])
			free_runs(j->runs[s], j->nruns[s]);
}

static int cmd_explain(struct verb_ctx *vc)
{
	const struct explain_args *a = vc->args;
	int nargs = vc->argc;
	if (nargs < 1 || nargs > 2)
		return usage_error(vc->name, "give two runs, or one experiment");
	long ids[2] = { 0, 0 };
	for (int i = 0; i < nargs; i++)
		if (cli_parse_run_id(vc->name, vc->argv[i], &ids[i]))
			return EXIT_USAGE;
	if (nargs == 2 && (a->arm || a->baseline))
		return usage_error(vc->name, "--arm and --baseline go with an experiment");
	struct db *db = verb_db(vc);
	if (!db)
		return EXIT_FAIL;
	struct explain_job job, *j = &job;
	memset(j, 0, sizeof(*j));
	int rc = nargs == 2 ? explain_two_runs(db, ids, a->gate, j)
		 : explain_experiment(vc, db, ids[0], j);
	for (int s = 0; !rc && s < 2; s++)
		explain_side_from_runs(j->runs[s], j->nruns[s], j->labels[s], &j->in.side[s],
				       j->mods[s], MAXMODS);
	if (!rc && j->have_pa)
		j->in.capacity = &j->cap;
	if (!rc)
		rc = explain_profiles(db, j);
	if (rc)
		goto out;
	struct explain_input *in = &j->in;
	if (in->side[0].cpu_model && in->side[1].cpu_model &&
	    strcmp(in->side[0].cpu_model, in->side[1].cpu_model))
		warning_msg("comparing runs from different machines: %s and %s",
			    in->side[0].cpu_model, in->side[1].cpu_model);
	if (j->nruns[0] && j->nruns[1])
		run_env_warn(j->runs[0], j->runs[1]);
	struct explain_finding *f;
	size_t nf = explain_findings(in, &f);
	FILE *fp = verb_out(vc);
	if (fp)
		explain_render(in, f, nf, vc->fmt, fp);
	rc = fp ? EXIT_OK : EXIT_FAIL;
	explain_findings_free(f, nf);
out:
	explain_job_release(j);
	return rc;
}

static const struct opt explain_opts[] = {
	OPT_STRING(0, "arm", struct explain_args, arm, "NAME",
		   "the experiment's arm to explain (default: its second)"),
	OPT_STRING(0, "baseline", struct explain_args, baseline, "NAME",
		   "the arm to hold it against (default: the baseline)"),
	OPT_DOUBLE(0, "gate", struct explain_args, gate, "PCT", 0, 1000,
		   "a percentage", "the noise gate in percent that 'beyond noise'\n"
		   "uses (default: as 'prof ab' judged it)"),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

static const char explain_help[] =
"usage: prof explain RUN RUN [--format table|json|csv|markdown] [-o FILE]\n"
"       prof explain EXPERIMENT [--arm B --baseline A] [--gate PCT] ...\n"
"\n"
"Put two sides next to each other (two stored runs, or two arms of a\n"
"stored 'prof ab' experiment: by default its second arm against the\n"
"baseline; of a 'prof pressure' experiment, its largest step against its\n"
"control) and say what the numbers show: misses per thousand\n"
"instructions (or per CPU ms where instructions were not counted), IPC,\n"
"the code footprint and touched code (run with --working-set to measure\n"
"it), the largest modules, and the cache domain each side ran in. Then\n"
"findings, each naming the rule that fired and its numbers:\n"
"  footprint     code footprint or touched code moved 10% or more, and\n"
"                iTLB, L1i or LLC misses moved the same way beyond noise,\n"
"                while branch misses stayed within noise\n"
"  codegen       branch misses (or instructions) moved beyond noise while\n"
"                the footprint misses did not, or moved the other way\n"
"  cache-domain  the sides ran in domains of different size, and time and\n"
"                LLC misses moved beyond noise in favour of the larger\n"
"  no-domain-effect  the same-size null, stated exactly\n"
"  cannot-tell   a counter a rule needs is not supported here: named, with\n"
"                what the supported evidence does show\n""  capacity      a 'prof pressure' experiment of the workload (this one,\n"
"                or the newest of the same command on this host) found it\n"
"                cache-sensitive; no-capacity-effect when it found no cost;\n"
"                this needs no counter, so a VM gets an answer too\n"
"'Beyond noise' is a better/worse verdict of 'prof ab' (95% CI excludes 0\n"
"and the effect clears the gate). Two single runs have no noise estimate:\n"
"nothing is claimed from them.\n"
"\n";

static const char explain_tail[] =
"Examples:\n"
"  prof ab --arm llvm='./emu --backend llvm' --arm sim='./emu --backend sim' \\\n"
"          -e cache --set pin=largest-llc && prof explain last --format markdown\n"
"  prof explain 12 14\n";

VERB(explain, explain_args, .init = explain_init, .max_operands = VERB_ANY_OPERANDS);
