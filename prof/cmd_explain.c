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

static int cmd_explain(struct verb_ctx *vc)
{
	const struct explain_args *a = vc->args;
	const char *arm_name = a->arm, *base_name = a->baseline;
	int nargs = vc->argc;
	char buf[64];
	if (nargs < 1 || nargs > 2)
		return usage_error(vc->name, "give two runs, or one experiment");
	long ids[2] = { 0, 0 };
	for (int i = 0; i < nargs; i++)
		if (cli_parse_run_id(vc->name, vc->argv[i], &ids[i]))
			return EXIT_USAGE;
	if (nargs == 2 && (arm_name || base_name))
		return usage_error(vc->name, "--arm and --baseline go with an experiment");

	struct db *db = verb_db(vc);
	char *cause = NULL;
	if (!db)
		return EXIT_FAIL;
	int rc = EXIT_OK;
	struct explain_input in;
	memset(&in, 0, sizeof(in));
	struct explain_module mods[2][MAXMODS];
	struct db_run *runs[2] = { NULL, NULL };
	size_t nruns[2] = { 0, 0 };
	struct db_experiment e, aa;
	bool have_exp = false, have_aa = false;
	struct ab_analysis an;
	bool have_an = false;
	char labels[2][64];
	/* Capacity evidence: this experiment's own curves when it is a
	 * pressure experiment, else the newest one of the same command. */
	struct db_experiment pe;
	struct press_analysis pa;
	bool have_pa = false, have_pe = false;
	struct explain_capacity cap;

	if (nargs == 2) {
		for (int s = 0; s < 2; s++) {
			runs[s] = calloc(1, sizeof(struct db_run));
			int lrc = db_run_load(db, ids[s], runs[s], &cause);
			if (lrc) {
				rc = fail_cause(cause, exit_code_for(lrc));
				cause = NULL;
				goto out;
			}
			nruns[s] = 1;
			snprintf(labels[s], sizeof(labels[s]), "run %lld",
				 (long long)runs[s]->id);
		}
		explain_input_from_runs(runs[0], runs[1], &in);
		for (int s = 1; s >= 0 && !have_pa; s--)
			capacity_of_command(db, runs[s]->host.id, runs[s]->command, a->gate,
					    &pe, &pa, &have_pe, &cap);
		have_pa = have_pe;
	} else {
		int lrc = db_experiment_load(db, ids[0], &e, &cause);
		if (lrc) {
			rc = fail_cause(cause, exit_code_for(lrc));
			cause = NULL;
			goto out;
		}
		have_exp = true;
		long arm = e.narms > 1 ? 1 : -1, base = 0;
		if (!strcmp(e.kind, DB_EXP_KIND_PRESSURE)) {
			if (press_analyze(&e, a->gate, &pa, &cause)) {
				rc = fail_cause(cause, EXIT_FAIL);
				cause = NULL;
				goto out;
			}
			have_pa = true;
			/* By default the first workload's largest step against
			 * its control; its curve is the capacity evidence. */
			const struct press_curve *c = &pa.curves[0];
			base = (long)c->control_arm;
			arm = c->nsteps ? (long)c->steps[c->nsteps - 1].arm : -1;
			size_t ci = 0;
			long named = arm_name ? arm_index(&e, arm_name) : -1;
			for (size_t k = 0; named >= 0 && k < pa.ncurves; k++)
				for (size_t i = 0; i < pa.curves[k].nsteps; i++)
					if ((long)pa.curves[k].steps[i].arm == named ||
					    (long)pa.curves[k].control_arm == named) {
						ci = k;
						base = (long)pa.curves[k].control_arm;
					}
			explain_capacity_from(&pa, ci, true, &cap);
		}
		if (arm_name && (arm = arm_index(&e, arm_name)) < 0) {
			rc = usage_error(vc->name, "experiment %lld has no arm '%s'",
					 (long long)e.id, cli_echo(arm_name, buf, sizeof(buf)));
			goto out;
		}
		if (base_name && (base = arm_index(&e, base_name)) < 0) {
			rc = usage_error(vc->name, "experiment %lld has no arm '%s'",
					 (long long)e.id, cli_echo(base_name, buf, sizeof(buf)));
			goto out;
		}
		if (arm < 0 || arm == base) {
			rc = usage_error(vc->name, "pick two different arms of experiment "
					 "%lld", (long long)e.id);
			goto out;
		}
		/* The analysis compares against arm 0: make the baseline
		 * arm 0 by swapping the arms' indexes in a copy of the runs. */
		if (base != 0) {
			for (size_t i = 0; i < e.nruns; i++) {
				if (e.runs[i].arm == base)
					e.runs[i].arm = 0;
				else if (e.runs[i].arm == 0)
					e.runs[i].arm = (int)base;
			}
			struct db_arm t = e.arms[0];
			e.arms[0] = e.arms[base];
			e.arms[base] = t;
			if (arm == 0)
				arm = base;
		}
		struct ab_gate_rule gate = ab_gate_for(db, &e, a->gate, &aa, &have_aa);
		if (ab_analyze(&e, &gate, &an, &cause)) {
			print_cause("error: ", cause);
			rc = EXIT_FAIL;
			goto out;
		}
		have_an = true;
		explain_input_from_ab(&an, (size_t)arm, &in);
		for (int s = 0; s < 2 && !have_pa; s++)
			capacity_of_command(db, e.host_id, e.arms[s ? 0 : arm].command,
					    a->gate, &pe, &pa, &have_pe, &cap);
		have_pa = have_pa || have_pe;
		size_t arms[2] = { 0, (size_t)arm };
		for (int s = 0; s < 2; s++) {
			if (load_arm(db, &e, arms[s], &runs[s], &nruns[s], &cause)) {
				print_cause("error: ", cause);
				rc = EXIT_FAIL;
				goto out;
			}
			snprintf(labels[s], sizeof(labels[s]), "%s", e.arms[arms[s]].name);
		}
	}
	for (int s = 0; s < 2; s++)
		explain_side_from_runs(runs[s], nruns[s], labels[s], &in.side[s],
				       mods[s], MAXMODS);
	if (have_pa)
		in.capacity = &cap;
	/* Where a side was sampled (prof record), where its samples fall. */
	struct db_profile prof[2];
	bool have_prof[2] = { false, false };
	struct explain_share shares[2][MAXMODS];
	for (int s = 0; s < 2; s++) {
		if (!nruns[s])
			continue;
		char *pc = NULL;
		int prc = db_profile_load(db, runs[s][0].id, &prof[s], &pc);
		if (prc == 0) {
			have_prof[s] = true;
			explain_side_add_profile(&in.side[s], &runs[s][0], &prof[s],
						 shares[s], MAXMODS);
		} else if (prc != -ENODATA) {
			/* A counted run has no samples; anything else is an
			 * error the user must hear of. */
			print_cause("error: ", pc);
			free(pc);
			rc = EXIT_FAIL;
			goto out_profiles;
		}
		free(pc);
	}
	if (in.side[0].cpu_model && in.side[1].cpu_model &&
	    strcmp(in.side[0].cpu_model, in.side[1].cpu_model))
		warning_msg("comparing runs from different machines: %s and %s",
			    in.side[0].cpu_model, in.side[1].cpu_model);
	if (nruns[0] && nruns[1])
		run_env_warn(runs[0], runs[1]);

	struct explain_finding *f;
	size_t nf = explain_findings(&in, &f);
	FILE *fp = verb_out(vc);
	if (fp)
		explain_render(&in, f, nf, vc->fmt, fp);
	rc = fp ? EXIT_OK : EXIT_FAIL;
	explain_findings_free(f, nf);
out_profiles:
	for (int s = 0; s < 2; s++)
		if (have_prof[s])
			db_profile_release(&prof[s]);
out:
	explain_input_release(&in);
	if (have_an)
		ab_analysis_release(&an);
	if (have_pa)
		press_analysis_release(&pa);
	if (have_pe)
		db_experiment_release(&pe);
	if (have_aa)
		db_experiment_release(&aa);
	if (have_exp)
		db_experiment_release(&e);
	for (int s = 0; s < 2; s++)
		if (runs[s])
			free_runs(runs[s], nruns[s]);
	free(cause);
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
