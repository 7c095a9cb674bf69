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

#include "common/xalloc.h"
#include "db/experiments.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/output.h"
#include "reports/summary.h"

struct summary_args {
	const char *arm;
	double gate;
	struct metric_pick metric;
	bool by_host;		/* --by host: each machine's scenes apart */
};

static int parse_by(struct verb_ctx *vc, const char *arg, void *field)
{
	char buf[64];
	if (strcmp(arg, "host") && strcmp(arg, "experiment"))
		return usage_error(vc->name, "bad --by '%s': expected host (each "
				   "machine's experiments apart) or experiment (all "
				   "together, the default)", cli_echo(arg, buf, sizeof(buf)));
	*(bool *)field = !strcmp(arg, "host");
	return 0;
}

/*
 * --by host: the experiments of each host read together, apart from the
 * others' (a scene measured on a 5900X is no evidence about a 9950X3D),
 * each host under its name, in the order the experiments were given.
 */
/* One JSON string (a name from another machine: escaped as jw escapes). */
static void json_str(FILE *fp, const char *s)
{
	struct jw w;
	jw_init(&w, fp, 0);
	jw_str(&w, s);
}

static int render_by_host(struct verb_ctx *vc, const struct db_experiment *e,
			  const struct ab_analysis *an, size_t n, FILE *fp)
{
	const struct summary_args *a = vc->args;
	struct ab_analysis *sub = calloc(n, sizeof(*sub));
	bool *done = calloc(n, sizeof(*done));
	if (!sub || !done)
		xalloc_die();
	int rc = EXIT_OK;
	bool json = vc->fmt == OUT_JSON;
	if (json)
		fprintf(fp, "{\n  \"by_host\": [\n");
	size_t groups = 0;
	for (size_t i = 0; i < n && rc == EXIT_OK; i++) {
		if (done[i])
			continue;
		size_t k = 0;
		for (size_t j = i; j < n; j++)
			if (!done[j] && e[j].host_id == e[i].host_id) {
				sub[k++] = an[j];
				done[j] = true;
			}
		struct summary s;
		char *cause = NULL;
		if (summary_build(sub, k, a->arm, a->gate, &s, &cause)) {
			char buf[80];
			snprintf(buf, sizeof(buf), "error: host %s: ",
				 e[i].hostname ? e[i].hostname : "?");
			print_cause(buf, cause);
			free(cause);
			rc = EXIT_USAGE;
			break;
		}
		const char *h = e[i].hostname ? e[i].hostname : "?";
		const char *cpu = e[i].cpu_model ? e[i].cpu_model : "?";
		if (json) {
			fprintf(fp, "%s    {\"host\": ", groups ? ",\n" : "");
			json_str(fp, h);
			fprintf(fp, ", \"cpu_model\": ");
			json_str(fp, cpu);
			fprintf(fp, ", \"online_cpus\": %d, \"experiments\": %zu,\n"
				"     \"summary\": ", e[i].online_cpus, k);
		} else {
			fprintf(fp, "%s%shost ", groups ? "\n" : "",
				vc->fmt == OUT_MARKDOWN ? "### " : "== ");
			term_field(fp, h);
			fprintf(fp, " (");
			term_field(fp, cpu);
			fprintf(fp, ", %d CPUs): %zu experiment%s\n\n", e[i].online_cpus, k,
				k == 1 ? "" : "s");
		}
		summary_render(&s, a->metric.n ? a->metric.name : NULL, a->metric.n, vc->fmt, fp);
		if (json)
			fprintf(fp, "    }");
		summary_release(&s);
		groups++;
	}
	if (json)
		fprintf(fp, "\n  ]\n}\n");
	free(sub);
	free(done);
	return rc;
}

static void summary_init(void *args)
{
	((struct summary_args *)args)->gate = NAN;
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
				xalloc_die();
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
		xalloc_die();
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
	if (a->by_host) {
		if (vc->fmt == OUT_CSV) {
			rc = usage_error(vc->name, "--by host writes a table, markdown or "
					 "json: one summary per host");
			goto out;
		}
		FILE *hp = verb_out(vc);
		rc = hp ? render_by_host(vc, e, an, n, hp) : EXIT_FAIL;
		goto out;
	}
	struct summary s;
	if (summary_build(an, n, a->arm, a->gate, &s, &cause)) {
		rc = fail_cause(cause, EXIT_USAGE);
		goto out;
	}
	for (size_t i = 0; i < a->metric.n; i++) {
		bool found = false;
		for (size_t m = 0; m < s.nmetrics; m++)
			found = found || !strcmp(s.metrics[m].name, a->metric.name[i]);
		if (!found) {
			rc = usage_error(vc->name, "--metric '%s' is not a metric of every "
					 "experiment", cli_echo(a->metric.name[i], buf, sizeof(buf)));
			summary_release(&s);
			goto out;
		}
	}
	FILE *fp = verb_out(vc);
	if (fp)
		summary_render(&s, a->metric.n ? a->metric.name : NULL, a->metric.n, vc->fmt, fp);
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
	OPT_CALLBACK(0, "metric", struct summary_args, metric, "NAME", parse_metric_pick,
		     "show this metric per scene (repeatable; default\n"
		     "wall_s and every score)"),
	OPT_CALLBACK(0, "by", struct summary_args, by_host, "WHAT", parse_by,
		     "host: read each machine's experiments apart, one\n"
		     "summary per host (after 'prof import'); experiment:\n"
		     "all together (default)"),
	OPT_DOUBLE(0, "gate", struct summary_args, gate, "PCT", 0, 1000, "a percentage",
		   "the gate of the verdict across scenes (default 1%;\n"
		   "each scene keeps its own)"),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

static const char summary_help[] =
"usage: prof summary EXPERIMENT... [--arm NAME] [--metric NAME]... [--gate PCT]\n"
"                    [--by host] [--format FMT] [-o FILE]\n"
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
"list such as 3,5,7-14, or last (the newest experiment).\n"
"\n";

static const char summary_tail[] =
"Examples:\n"
"  prof summary 3-14 --format markdown\n"
"  prof summary 3 5 8 --arm llvm --metric fps\n"
"  prof summary 3,5,8 last\n"
"  prof import other.db && prof summary --by host 1-40\n";

VERB(summary, summary_args, .init = summary_init, .max_operands = VERB_ANY_OPERANDS);
