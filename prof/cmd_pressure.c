/*
 * prof pressure: is this workload cache-bound? Take cache away and see.
 * The workload runs pinned to one CPU of a cache domain while a co-runner
 * thread of prof, pinned to another CPU of the domain, walks a buffer of
 * k bytes of it (collectors/pirate.h), for each step k; each step's runs
 * are paired, round by round, with runs beside a control co-runner that
 * walks a buffer inside its own L2 (the same walk, costing the workload
 * the same CPU and memory interference, but no shared cache). With
 * --method cat, resctrl gives the workload fewer L3 ways instead
 * (collectors/resctrl.h). With --method sim there is no co-runner: each
 * run is simulated under valgrind (prof/run/runsim.h) with a last level of
 * one step's size, the largest the control, so LL misses against LL size
 * answer the question where no PMU or shared cache can (a VM's L3 is
 * shared with other guests). Every run is stored as it ends, in an
 * experiment of kind "pressure"; the report is computed from the database
 * (reports/pressure.h), so `prof compare` reprints it.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/host.h"
#include "collectors/pirate.h"
#include "collectors/resctrl.h"
#include "common/errtext.h"
#include "common/xalloc.h"
#include "db/experiments.h"
#include "prof/abplan.h"
#include "prof/experiment.h"
#include "prof/planopts.h"
#include "prof/pressplan.h"
#include "prof/progress.h"
#include "prof/run/run.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "prof/words.h"
#include "reports/pressure.h"

struct press_args {
	struct ab_plan plan;		/* --arm, --score, -e, --order, --seed */
	int rounds, warmup;
	double gate;			/* NAN: chosen by the analysis */
	const char *steps, *domain, *cpus, *method, *metric;
	const char *sysfs, *resctrl;
	bool show_output;
};

static void press_args_init(void *args)
{
	struct press_args *a = args;
	ab_plan_init(&a->plan);
	a->rounds = 0;		/* 8, or 2 with --method sim */
	a->warmup = -1;		/* 1, or 0 with --method sim */
	a->gate = NAN;
	a->method = "pirate";
}

static void press_args_release(void *args)
{
	ab_plan_release(&((struct press_args *)args)->plan);
}

/* One workload: an --arm, or the command after the options. */
struct workload {
	const char *name;
	const char *command;
	char **argv;
	int argc;
};

/* One run slot of a round: a workload beside a control or a step. */
struct slot {
	size_t workload;
	bool control;
	uint64_t taken;			/* bytes taken (0: control, A/A) */
	uint64_t corunner_bytes;	/* what the co-runner walks */
	unsigned ways;			/* cat: the workload's ways */
	uint64_t ll_bytes;		/* sim: the last level simulated */
	double alone_ns, mem_ns;	/* the co-runner alone at that size */
	char name[96];			/* the experiment's arm name */
};

/* Everything one `prof pressure` holds while it runs. */
struct press {
	struct verb_ctx *vc;
	struct press_args *o;
	bool cat;
	bool sim;			/* --method sim */
	struct run_sim *sims;		/* sim: one per slot */
	uint64_t sim_top;		/* sim: the control's last level */
	struct workload *w;
	size_t nw;
	char *cmd_name;			/* a name for the operand command */
	char *cmd_line;
	struct topo topo;
	bool have_topo;
	struct press_cpus cpus;
	struct press_steps steps;
	uint64_t control_bytes, hit_bytes;
	double hit_ns;
	struct slot *slots;
	size_t nslots;
	struct event_desc *evs;
	size_t nev;
	struct pin_plan pin;
	bool have_pin;
	struct pirate pirate;
	struct resctrl rc;
	bool have_rc;
	struct resctrl_group group;
	bool in_group;
	cpu_set_t old_affinity;
	bool affinity_moved;
	struct db *db;
	int64_t exp_id;
};

/* A name for the command after the options: its file name, cleaned. */
static char *name_of_command(const char *argv0)
{
	const char *b = strrchr(argv0, '/');
	b = b ? b + 1 : argv0;
	char buf[41];
	size_t n = 0;
	for (; *b && n < sizeof(buf) - 1; b++)
		buf[n++] = isalnum((unsigned char)*b) || strchr("_-+", *b) ? *b : '_';
	buf[n] = '\0';
	return strdup(n ? buf : "workload");
}

static int check_args(struct press *ps)
{
	struct verb_ctx *vc = ps->vc;
	struct press_args *o = ps->o;
	struct ab_plan *p = &o->plan;
	if (vc->argc && p->narms)
		return usage_error(vc->name, "give the command after the options, or "
				   "--arm NAME=COMMAND, not both");
	if (!vc->argc && !p->narms)
		return usage_error(vc->name, "no command: 'prof pressure [OPTIONS] -- "
				   "COMMAND' or --arm NAME=COMMAND");
	if (strcmp(o->method, "pirate") && strcmp(o->method, "cat") &&
	    strcmp(o->method, "sim")) {
		char buf[64];
		return usage_error(vc->name, "unknown --method '%s': expected pirate "
				   "(a co-runner takes the cache), cat (resctrl gives "
				   "the workload fewer ways) or sim (valgrind simulates "
				   "each last-level size)",
				   cli_echo(o->method, buf, sizeof(buf)));
	}
	ps->cat = !strcmp(o->method, "cat");
	ps->sim = !strcmp(o->method, "sim");
	/* Simulated counts repeat: two rounds show that they do, and no
	 * warm-up warms anything. */
	if (!o->rounds)
		o->rounds = ps->sim ? 2 : 8;
	if (o->warmup < 0)
		o->warmup = ps->sim ? 0 : 1;
	if (ps->sim && (o->domain || o->cpus || o->resctrl))
		return usage_error(vc->name, "--method sim takes no cache from this "
				   "machine: --domain, --cpus and --resctrl do not apply");
	if (ps->sim && (p->working_set || ab_plan_has_frames(p)))
		return usage_error(vc->name, "--method sim counts each run's totals: "
				   "frames count the real machine (and would count "
				   "valgrind)");
	if (ps->cat && o->cpus && strchr(o->cpus, ','))
		return usage_error(vc->name, "--method cat runs no co-runner: --cpus "
				   "takes the workload's CPU alone");
	char *cause = NULL;
	if (ab_plan_check_scores(p, &cause))
		return verb_usage_cause(vc, cause);
	/* A symbol the module lacks stops here, not at the first run. */
	int rc = p->frame_symbol ? collect_frames_check_symbol(p->frame_symbol, &cause) : 0;
	if (rc)
		return rc == -EINVAL ? verb_usage_cause(vc, cause)
				     : fail_cause(cause, EXIT_FAIL);
	if (!o->metric && p->nscores)
		o->metric = p->scores[0].name;
	if (!o->metric)
		o->metric = ps->sim ? "llc-misses" : "cpu_s";
	if (vc->argc) {
		ps->nw = 1;
		ps->w = calloc(1, sizeof(*ps->w));
		ps->cmd_name = name_of_command(vc->argv[0]);
		ps->cmd_line = run_state_command_line(vc->argv, vc->argc);
		ps->w[0] = (struct workload){ ps->cmd_name, ps->cmd_line, vc->argv, vc->argc };
	} else {
		ps->nw = p->narms;
		ps->w = calloc(p->narms, sizeof(*ps->w));
		for (size_t a = 0; a < p->narms; a++)
			ps->w[a] = (struct workload){ p->arms[a].name, p->arms[a].command,
						      p->arms[a].argv, p->arms[a].argc };
	}
	if (!ps->w)
		xalloc_die();
	return 0;
}

/* The metric must be one the runs will have. */
static int check_metric(struct press *ps)
{
	const char *m = ps->o->metric;
	if (!strcmp(m, "cpu_s") || !strcmp(m, "wall_s"))
		return 0;
	for (size_t i = 0; i < ps->o->plan.nscores; i++)
		if (!strcmp(ps->o->plan.scores[i].name, m))
			return 0;
	for (size_t i = 0; i < ps->nev; i++)
		if (!strcmp(ps->evs[i].name, m))
			return 0;
	for (size_t i = 0; ps->sim && i < SIM_NEVENTS; i++)
		if (!strcmp(sim_event_names[i], m))
			return 0;
	char buf[64];
	return usage_error(ps->vc->name, "unknown --metric '%s': expected cpu_s, wall_s, "
			   "a --score name or an event of -e%s",
			   cli_echo(m, buf, sizeof(buf)), ps->sim ? " (with --method "
			   "sim also llc-misses, l1i-misses, l1d-misses, "
			   "branch-misses, instructions or cycles)" : "");
}

/* The CPUs prof may run on, so a cpuset or taskset is respected. */
static bool allowed_cpus(struct cpumask *out)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	cpumask_clear(out);
	for (int c = 0; c < CPU_SETSIZE && c < CPUMASK_MAX; c++)
		if (CPU_ISSET(c, &set))
			cpumask_set(out, c);
	return true;
}

/* Topology, CPUs and steps: every refusal before anything runs. */
static int plan_machine(struct press *ps)
{
	struct press_args *o = ps->o;
	char *cause = NULL;
	int rc = topo_read(&ps->topo, o->sysfs, &cause);
	if (rc) {
		error_msg("cannot read the topology: %s", cause ? cause : ERR_TEXT(-rc));
		free(cause);
		return EXIT_FAIL;
	}
	ps->have_topo = true;
	struct cpumask allowed;
	bool have_allowed = !o->sysfs && allowed_cpus(&allowed);
	rc = press_pick(&ps->topo, o->domain, o->cpus, have_allowed ? &allowed : NULL,
			!ps->cat, &ps->cpus, &cause);
	if (rc) {
		int code = rc == -ENODEV || rc == -ENODATA ? EXIT_FAIL : EXIT_USAGE;
		if (code == EXIT_USAGE)
			return verb_usage_cause(ps->vc, cause);
		error_msg("cannot take cache away here: %s", cause);
		free(cause);
		hint_msg("'prof topo' shows the cache domains and their CPUs");
		return code;
	}
	uint64_t dom = ps->cpus.domain->size_bytes;
	if (o->steps) {
		if ((rc = press_steps_parse(o->steps, dom, &ps->steps, &cause)))
			return verb_usage_cause(ps->vc, cause);
	} else {
		press_steps_default(dom, &ps->steps);
	}
	ps->control_bytes = press_control_bytes(ps->cpus.corunner_l2_bytes);
	ps->hit_bytes = press_hit_bytes(ps->cpus.corunner_l2_bytes, dom);
	if (!ps->cat && ps->cpus.l2_shared)
		warning_msg("CPUs %d and %d share an L2: the control co-runner takes L2 "
			    "from the workload too", ps->cpus.workload_cpu,
			    ps->cpus.corunner_cpu);
	if (!ps->cat && ps->cpus.smt_unknown)
		warning_msg("the topology names no SMT siblings: CPU %d is taken not to "
			    "share a core with CPU %d", ps->cpus.corunner_cpu,
			    ps->cpus.workload_cpu);
	return 0;
}

/*
 * --method sim: the last-level sizes to simulate. --steps are sizes, the
 * largest the control's; by default this machine's largest last-level
 * cache and 1/2, 1/4 and 1/8 of it (32 MiB where sysfs says none). A
 * step takes the control's size less its own; step 0 is a second
 * control, as for the other methods.
 */
static int plan_sim(struct press *ps)
{
	struct press_args *o = ps->o;
	char *cause = NULL;
	struct press_steps sizes;
	if (o->steps) {
		if (strpbrk(o->steps, "/%"))
			return usage_error(ps->vc->name, "with --method sim, --steps are "
					   "last-level sizes (e.g. 1M,2M,4M,8M): the "
					   "largest is the control's");
		int rc = press_steps_parse(o->steps, (uint64_t)1 << 40, &sizes, &cause);
		if (rc)
			return verb_usage_cause(ps->vc, cause);
	} else {
		uint64_t llc = (uint64_t)32 << 20;
		if (topo_read(&ps->topo, o->sysfs, NULL) == 0) {
			ps->have_topo = true;
			const struct cache_domain *d = ps->topo.largest_llc ? ps->topo.largest_llc
						       : ps->topo.n_llc ? &ps->topo.llc[0] : NULL;
			if (d && d->size_bytes >= (1u << 20))
				llc = d->size_bytes;
		}
		sizes = (struct press_steps){ { llc / 8, llc / 4, llc / 2, llc }, 4 };
	}
	/* 0 is no size; the sizes come sorted, the largest last. */
	size_t k = 0;
	for (size_t i = 0; i < sizes.n; i++)
		if (sizes.bytes[i])
			sizes.bytes[k++] = sizes.bytes[i];
	if (k < 2)
		return usage_error(ps->vc->name, "--method sim needs two sizes or more in "
				   "--steps: the largest is the control's, each other "
				   "a step");
	uint64_t top = sizes.bytes[k - 1];
	ps->steps.n = 0;
	ps->steps.bytes[ps->steps.n++] = 0;
	for (size_t i = k - 1; i-- > 0;)
		ps->steps.bytes[ps->steps.n++] = top - sizes.bytes[i];
	ps->sim_top = top;
	return 0;
}

/* --method cat: the resctrl tree, our group, and the ways of each step. */
static int plan_cat(struct press *ps)
{
	char *cause = NULL;
	const char *root = ps->o->resctrl ? ps->o->resctrl : RESCTRL_ROOT;
	int rc = resctrl_read(&ps->rc, root, &cause);
	if (rc) {
		error_msg("--method cat: %s", cause ? cause : ERR_TEXT(-rc));
		free(cause);
		hint_msg("without cache allocation, the default --method pirate takes "
			 "the cache with a co-runner");
		return EXIT_FAIL;
	}
	ps->have_rc = true;
	long id = ps->cpus.domain->id;
	if (id < 0 || !resctrl_domain(&ps->rc, id)) {
		error_msg("--method cat: the L%d of CPU %d has %s in resctrl's schemata",
			  ps->cpus.domain->level, ps->cpus.workload_cpu,
			  id < 0 ? "no cache id in sysfs, so no line" : "no line");
		return EXIT_FAIL;
	}
	return 0;
}

/* Ways left to the workload when `taken` bytes of the domain go. */
static unsigned ways_for(const struct press *ps, uint64_t taken)
{
	double per = (double)ps->cpus.domain->size_bytes / ps->rc.ways;
	unsigned take = (unsigned)llround((double)taken / per);
	unsigned left = take >= ps->rc.ways ? 0 : ps->rc.ways - take;
	return left < ps->rc.min_bits ? ps->rc.min_bits : left;
}

static void add_slot(struct press *ps, size_t w, bool control, uint64_t taken)
{
	struct slot *s = &ps->slots[ps->nslots++];
	memset(s, 0, sizeof(*s));
	s->workload = w;
	s->control = control;
	s->taken = taken;
	s->corunner_bytes = control || taken == 0 ? ps->control_bytes : taken;
	s->alone_ns = s->mem_ns = NAN;
	if (ps->cat) {
		s->ways = ways_for(ps, taken);
		s->corunner_bytes = 0;
		s->taken = (uint64_t)((double)ps->cpus.domain->size_bytes *
				      (ps->rc.ways - s->ways) / ps->rc.ways);
	}
	char label[32];
	press_step_label(taken, label, sizeof(label));
	snprintf(s->name, sizeof(s->name), "%s@%s", ps->w[w].name,
		 control ? "control" : label);
	if (ps->sim) {
		s->corunner_bytes = 0;
		s->ll_bytes = ps->sim_top - taken;
		press_step_label(s->ll_bytes, label, sizeof(label));
		if (!control)
			snprintf(s->name, sizeof(s->name), "%s@LL=%s", ps->w[w].name, label);
	}
}

static void plan_slots(struct press *ps)
{
	ps->slots = calloc(ps->nw * (ps->steps.n + 1), sizeof(*ps->slots));
	if (!ps->slots)
		xalloc_die();
	for (size_t w = 0; w < ps->nw; w++) {
		add_slot(ps, w, true, 0);
		for (size_t i = 0; i < ps->steps.n; i++)
			add_slot(ps, w, false, ps->steps.bytes[i]);
	}
}

/* The co-runner alone at each size it will walk: hit and miss times. */
static int calibrate(struct press *ps)
{
	char *cause = NULL;
	size_t most = ps->hit_bytes > ps->control_bytes ? ps->hit_bytes : ps->control_bytes;
	for (size_t i = 0; i < ps->steps.n; i++)
		if (ps->steps.bytes[i] > most)
			most = ps->steps.bytes[i];
	int rc = pirate_start(&ps->pirate, ps->cpus.corunner_cpu, most, &cause);
	if (rc) {
		error_msg("%s", cause ? cause : ERR_TEXT(-rc));
		free(cause);
		return EXIT_FAIL;
	}
	double mem;
	size_t lines = 1u << 18;
	rc = pirate_calibrate(&ps->pirate, ps->hit_bytes, lines, &ps->hit_ns, &mem, &cause);
	for (size_t s = 0; s < ps->nslots && !rc; s++) {
		struct slot *sl = &ps->slots[s];
		/* The same size measured once serves every workload. */
		for (size_t k = 0; k < s; k++) {
			if (ps->slots[k].corunner_bytes == sl->corunner_bytes) {
				sl->alone_ns = ps->slots[k].alone_ns;
				sl->mem_ns = ps->slots[k].mem_ns;
				break;
			}
		}
		if (!isnan(sl->alone_ns))
			continue;
		size_t n = sl->corunner_bytes / CHASE_LINE;
		rc = pirate_calibrate(&ps->pirate, sl->corunner_bytes, n > lines ? n : lines,
				      &sl->alone_ns, &sl->mem_ns, &cause);
	}
	if (rc) {
		error_msg("%s", cause ? cause : ERR_TEXT(-rc));
		free(cause);
		return EXIT_FAIL;
	}
	return 0;
}

/* prof's own thread sits on the co-runner's CPU, off the workload's. */
static void move_off_workload(struct press *ps)
{
	if (ps->cat || sched_getaffinity(0, sizeof(ps->old_affinity), &ps->old_affinity))
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(ps->cpus.corunner_cpu, &set);
	ps->affinity_moved = !sched_setaffinity(0, sizeof(set), &set);
}

static char *fmt_num(double v)
{
	char *s;
	if (asprintf(&s, "%.17g", v) < 0)
		xalloc_die();
	return s;
}

static char *fmt_u64(uint64_t v)
{
	char *s;
	if (asprintf(&s, "%llu", (unsigned long long)v) < 0)
		xalloc_die();
	return s;
}

/* The experiment's --prepare or --cleanup (every workload's), or NULL. */
static const char *plan_step(const struct ab_plan *p, const char *key)
{
	for (size_t i = 0; i < p->nall; i++)
		if (!strcmp(p->all[i].key, key))
			return p->all[i].value;
	return NULL;
}

/* Slot s as the experiment stores it: an arm with its settings. */
static void exp_arm(const struct press *ps, size_t s, struct db_arm *d)
{
	const struct slot *sl = &ps->slots[s];
	const struct workload *w = &ps->w[sl->workload];
	struct db_kv **v = &d->settings;
	size_t *n = &d->nsettings;
	d->name = strdup(sl->name);
	d->command = strdup(w->command);
	d->argc = w->argc;
	d->argv = calloc((size_t)w->argc + 1, sizeof(char *));
	for (int i = 0; i < w->argc; i++)
		d->argv[i] = strdup(w->argv[i]);
	char pin[32];
	snprintf(pin, sizeof(pin), "cpus:%d", ps->cpus.workload_cpu);
	if (!ps->sim)
		experiment_kv_add(v, n, "pin", strdup(pin));
	experiment_kv_add(v, n, "pressure.workload", strdup(w->name));
	experiment_kv_add(v, n, "pressure.role", strdup(sl->control ? "control" : "step"));
	experiment_kv_add(v, n, "pressure.taken_bytes", fmt_u64(sl->taken));
	if (ps->sim) {
		experiment_kv_add(v, n, "pressure.ll_bytes", fmt_u64(sl->ll_bytes));
	} else if (ps->cat) {
		experiment_kv_add(v, n, "pressure.ways", fmt_u64(sl->ways));
		experiment_kv_add(v, n, "pressure.ways_total", fmt_u64(ps->rc.ways));
	} else {
		experiment_kv_add(v, n, "pressure.corunner_bytes", fmt_u64(sl->corunner_bytes));
		experiment_kv_add(v, n, "pressure.alone_ns", fmt_num(sl->alone_ns));
		experiment_kv_add(v, n, "pressure.mem_ns", fmt_num(sl->mem_ns));
	}
}

/* The experiment's own settings (see reports/pressure.h). */
static void exp_settings(const struct press *ps, struct db_experiment *exp)
{
	const struct press_args *o = ps->o;
	struct db_kv **v = &exp->settings;
	size_t *n = &exp->nsettings;
	const struct cache_domain *d = ps->cpus.domain;
	struct cache_domain sim_domain;
	if (ps->sim) {
		/* The domain is the simulated last level at its largest. */
		memset(&sim_domain, 0, sizeof(sim_domain));
		sim_domain.size_bytes = ps->sim_top;
		d = &sim_domain;
	}
	experiment_kv_add(v, n, "method", strdup(o->method));
	/* The simulation's events, judged as deterministic by reports/abstat
	 * (prof explain, prof compare), as prof ab --simulate keeps them. */
	if (ps->sim)
		experiment_kv_add(v, n, "simulated", run_sim_event_list());
	experiment_kv_add(v, n, "metric", strdup(o->metric));
	experiment_kv_add(v, n, "events", strdup(o->plan.events));
	const char *step_cmd;
	if ((step_cmd = plan_step(&o->plan, "prepare")))
		experiment_kv_add(v, n, "prepare", strdup(step_cmd));
	if ((step_cmd = plan_step(&o->plan, "cleanup")))
		experiment_kv_add(v, n, "cleanup", strdup(step_cmd));
	experiment_kv_scores(v, n, &o->plan, fmt_num(o->plan.budget_ms));
	experiment_kv_add(v, n, "domain.level", fmt_u64((uint64_t)d->level));
	experiment_kv_add(v, n, "domain.bytes", fmt_u64(d->size_bytes));
	char *cpus = ps->sim ? NULL : cpumask_format(&d->cpus);
	experiment_kv_add(v, n, "domain.cpus", cpus ? cpus : strdup(""));
	if (!ps->sim)
		experiment_kv_add(v, n, "workload_cpu", fmt_u64((uint64_t)ps->cpus.workload_cpu));
	if (!ps->cat && !ps->sim) {
		experiment_kv_add(v, n, "corunner_cpu", fmt_u64((uint64_t)ps->cpus.corunner_cpu));
		experiment_kv_add(v, n, "control_bytes", fmt_u64(ps->control_bytes));
		experiment_kv_add(v, n, "hit_ns", fmt_num(ps->hit_ns));
	}
}

/* The experiment's row, arms and settings (see reports/pressure.h). */
static int create_experiment(struct press *ps, struct host_facts *hf)
{
	struct press_args *o = ps->o;
	struct db_experiment exp;
	memset(&exp, 0, sizeof(exp));
	exp.kind = strdup(DB_EXP_KIND_PRESSURE);
	exp.order = strdup(experiment_order_word(o->plan.order));
	exp.seed = o->plan.seed;
	exp.rounds = o->rounds;
	exp.warmup = o->warmup;
	exp.gate_pct = o->gate;
	exp.narms = ps->nslots;
	exp.arms = calloc(ps->nslots, sizeof(*exp.arms));
	if (!exp.arms)
		xalloc_die();
	for (size_t s = 0; s < ps->nslots; s++)
		exp_arm(ps, s, &exp.arms[s]);
	exp_settings(ps, &exp);
	struct db_host host = { 0, hf->hostname, hf->kernel, hf->cpu_model, hf->online_cpus };
	char *cause = NULL;
	int rc = db_experiment_create(ps->db, &exp, &host, &cause);
	ps->exp_id = exp.id;
	db_experiment_release(&exp);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		return EXIT_FAIL;
	}
	return 0;
}

/* Set the slot's co-runner (or ways) going, before its run. */
static int arm_slot(struct press *ps, const struct slot *sl, char **cause)
{
	if (ps->cat) {
		uint64_t mask;
		int rc = resctrl_mask(&ps->rc, sl->ways, &mask, cause);
		return rc ? rc : resctrl_group_set(&ps->rc, &ps->group,
						   ps->cpus.domain->id, mask, cause);
	}
	/* Two passes: the co-runner then holds what it can of its buffer. */
	return pirate_walk(&ps->pirate, sl->corunner_bytes, 2, 1.0, cause);
}

/* What the co-runner did during the run, as run settings. */
static void note_corunner(struct press *ps, const struct slot *sl,
			  const struct pirate_stats *st, struct db_run *run)
{
	if (ps->cat || ps->sim) {
		/* Whole bytes (below 2^53): %.0f writes what %llu did. */
		db_set_f64(run, SET_CORUNNER_HELD_BYTES, (double)sl->taken);
		return;
	}
	db_set_i64(run, SET_CORUNNER_CPU, ps->cpus.corunner_cpu);
	db_set_u64(run, SET_CORUNNER_BYTES, st->bytes);
	db_set_u64(run, SET_CORUNNER_LINES, st->lines);
	db_set_u64(run, SET_CORUNNER_PASSES, st->passes);
	if (isfinite(st->ns_per_line))
		db_set_f64(run, SET_CORUNNER_NS_PER_LINE, st->ns_per_line);
	if (run->wall_s > 0)
		db_set_f64(run, SET_CORUNNER_DUTY, (double)st->ns / 1e9 / run->wall_s);
	double held = sl->control || sl->taken == 0 ? NAN
		      : pirate_held_bytes((double)sl->taken, st->ns_per_line, ps->hit_ns,
					  sl->mem_ns);
	if (isfinite(held)) {
		db_set_f64(run, SET_CORUNNER_HELD_BYTES, held);
	}
}

static bool stop_asked(void)
{
	return runner_interrupted() || runner_late_signal(NULL);
}

/*
 * The co-runner's part of a run, as a collector of the runner's steps
 * (prof/run/collector.h): it takes its share of the cache in prepare, after
 * the run's --prepare command (prof/run/runner.h), and its window is the
 * run's, from the counters' opening to their reading; so neither the
 * prepare nor the cleanup command is in what it reports, and neither
 * runs against a warmed pirate's cache but the prepare's own.
 */
struct corunner_step {
	struct press *ps;
	const struct slot *sl;
	struct pirate_stats st;
	bool arm_failed;	/* arm_slot refused: its cause is the error */
};

static int corunner_prepare(void *self, struct collect_ctx *cx, char **cause)
{
	(void)cx;
	struct corunner_step *c = self;
	int rc = arm_slot(c->ps, c->sl, cause);
	c->arm_failed = rc != 0;
	return rc > 0 ? -rc : rc;
}

static void corunner_opened(void *self, struct collect_ctx *cx)
{
	(void)cx;
	struct corunner_step *c = self;
	if (!c->ps->cat)
		pirate_window_open(&c->ps->pirate);
}

static void corunner_finish(void *self, struct collect_ctx *cx)
{
	(void)cx;
	struct corunner_step *c = self;
	if (!c->ps->cat) {
		pirate_window_read(&c->ps->pirate, &c->st);
		pirate_pause(&c->ps->pirate);
	}
}

static const struct collector_ops corunner_ops = {
	.name = "corunner",
	.prepare = corunner_prepare,
	.opened = corunner_opened,
	.finish = corunner_finish,
};

/* One run of one slot: co-runner up, run, co-runner paused, stored. */
static int run_slot(struct press *ps, const struct exp_slot *es, bool *failed)
{
	struct press_args *o = ps->o;
	size_t s = es->slot;
	int round = es->round;
	bool warm = es->warm;
	const struct slot *sl = &ps->slots[s];
	const struct workload *w = &ps->w[sl->workload];
	char *cause = NULL;
	int rc;
	/* The workload's output is kept aside, for scores and --show-output. */
	char tmpl[] = "/tmp/prof-pressure-out-XXXXXX";
	int ofd = mkstemp(tmpl);
	if (ofd >= 0)
		unlink(tmpl);
	struct corunner_step cstep = { .ps = ps, .sl = sl };
	struct runner_opts ro = {
		.argv = w->argv, .argc = w->argc, .evs = ps->evs, .nev = ps->nev,
		.plan = &ps->pin, .out_fd = ofd, .quiet = es->quiet, .kind = "pressure",
		.frame = ab_plan_frames(&o->plan),
		.prepare = plan_step(&o->plan, "prepare"),
		.cleanup = plan_step(&o->plan, "cleanup"),
		.collector = &corunner_ops, .collector_arg = &cstep,
	};
	if (ps->sim) {
		/* Under valgrind with this slot's last level; no co-runner. */
		ro.argv = ps->sims[s].argv;
		ro.argc = ps->sims[s].argc;
		ro.plan = NULL;
		ro.collector = NULL;
		ro.collector_arg = NULL;
	}
	struct db_run run;
	rc = runner_run(&ro, &run, &cause);
	if (!rc && ps->sim &&
	    (rc = run_sim_fill(&ps->sims[s], &run, w->argv, w->argc, NULL, NULL,
				  &cause)))
		db_run_release(&run);
	const struct pirate_stats st = cstep.st;
	/* A run that failed before its end left the co-runner walking. */
	if (rc && !ps->cat && !ps->sim)
		pirate_pause(&ps->pirate);
	if (rc || run.interrupted || run.exit_status || o->show_output)
		progress_line_clear(es->line);
	if (rc) {
		if (cstep.arm_failed) {
			error_msg("%s", cause ? cause : ERR_TEXT(-rc));
		} else {
			fprintf(stderr, "error: workload '%s': ", w->name);
			print_cause("", cause);
		}
		free(cause);
		if (ofd >= 0)
			close(ofd);
		return EXIT_FAIL;
	}
	char *text = ofd >= 0 ? experiment_slurp(ofd, AB_SCORE_TEXT_MAX, NULL) : strdup("");
	if (ofd >= 0)
		close(ofd);
	if (o->show_output && text && *text)
		fputs(text, cli_talk());
	struct db_score *sc = experiment_scores(&o->plan, text, NULL, &run, NULL);
	size_t nsc = sc ? o->plan.nscores : 0;	/* out of memory: stored without */
	if (!sc && o->plan.nscores)
		warning_msg("out of memory: the scores of this run were not read");
	note_corunner(ps, sl, &st, &run);
	rc = db_experiment_add_run(ps->db, ps->exp_id, &run, (int)s, round,
				   (int)es->pos, warm, sc, nsc, &cause);
	if (!run.interrupted && run.exit_status != 0) {
		warning_msg("run %lld (%s, %s %d) exited with status %d; "
			"stored, left out of the statistics", (long long)run.id, sl->name,
			warm ? "warm-up" : "round", round + 1, run.exit_status);
		*failed = true;
	}
	for (size_t i = 0; i < nsc && run.exit_status == 0 && !run.interrupted; i++) {
		if (sc[i].found)
			continue;
		progress_line_clear(es->line);
		warning_msg("run %lld (%s) %s '%s'; left out of that "
			"metric", (long long)run.id, sl->name,
			o->plan.scores[i].kind == AB_SCORE_REGEX ? "printed no"
			: "has too few frames for", sc[i].name);
	}
	free(sc);
	free(text);
	db_run_release(&run);
	if (rc) {
		progress_line_clear(es->line);
		print_cause("error: ", cause);
		free(cause);
		return EXIT_FAIL;
	}
	return 0;
}

static const char *slot_name(void *arg, size_t s)
{
	return ((struct press *)arg)->slots[s].name;
}

static enum exp_slot_result press_slot(void *arg, const struct exp_slot *es,
				       struct exp_end *end)
{
	bool failed = false;
	if (run_slot(arg, es, &failed)) {
		end->status = "stopped";
		end->note = strdup("a run could not be made or stored");
		end->code = EXIT_FAIL;
		return EXP_SLOT_STOP;
	}
	return failed ? EXP_SLOT_FAILED : EXP_SLOT_RAN;
}

/* The rounds: every slot once a round, in the order of --order (a Ctrl-C
 * before the first run stops them too: setting up took a while). */
static int run_rounds(struct press *ps, struct exp_end *end)
{
	static const struct exp_hooks hooks = { slot_name, press_slot };
	struct exp_design d = {
		.verb = "pressure", .slot_word = "", .plan = &ps->o->plan,
		.nslots = ps->nslots, .rounds = ps->o->rounds,
		.warmup = ps->o->warmup, .keep_going = ps->o->plan.keep_going,
		.check_first = true,
	};
	return experiment_run(&d, &hooks, ps, end);
}

/* Undo what was set up: the co-runner, the group, prof's own affinity. */
static void tear_down(struct press *ps)
{
	pirate_stop(&ps->pirate);
	if (ps->in_group) {
		char *cause = NULL;
		if (resctrl_group_leave(&ps->rc, (pid_t)gettid(), &cause)) {
			warning_msg("%s", cause);
			free(cause);
			cause = NULL;
		}
		ps->in_group = false;
	}
	if (ps->group.made) {
		char *cause = NULL;
		if (resctrl_group_remove(&ps->group, &cause)) {
			warning_msg("%s", cause);
			free(cause);
		}
	}
	if (ps->affinity_moved) {
		sched_setaffinity(0, sizeof(ps->old_affinity), &ps->old_affinity);
		ps->affinity_moved = false;
	}
}

/* The report, from the database alone. */
static int report(struct press *ps)
{
	struct db_experiment e;
	char *cause = NULL;
	if (db_experiment_load(ps->db, ps->exp_id, &e, &cause)) {
		print_cause("error: ", cause);
		free(cause);
		return EXIT_FAIL;
	}
	struct press_analysis an;
	int code = 0;
	if (press_analyze(&e, ps->o->gate, &an, &cause)) {
		print_cause("error: ", cause);
		free(cause);
		code = EXIT_FAIL;
	} else {
		FILE *fp = verb_out(ps->vc);
		if (fp) {
			if (ps->vc->fmt == OUT_TABLE)
				fputc('\n', fp);
			press_render(&an, ps->vc->fmt, fp);
		}
		if (!fp || verb_out_close(ps->vc))
			code = EXIT_FAIL;
		press_analysis_release(&an);
	}
	db_experiment_release(&e);
	return code;
}

/* --method sim: each slot's command under valgrind, its last level the
 * slot's size (16-way, 64-byte lines; valgrind's rule on set counts may
 * change the ways, and the run's sim.model says so). */
static int prepare_sim(struct press *ps)
{
	ps->sims = calloc(ps->nslots, sizeof(*ps->sims));
	if (!ps->sims)
		xalloc_die();
	for (size_t s = 0; s < ps->nslots; s++) {
		const struct slot *sl = &ps->slots[s];
		char spec[64], *cause = NULL;
		snprintf(spec, sizeof(spec), "LL=%lluK:16:64",
			 (unsigned long long)(sl->ll_bytes >> 10));
		int rc = run_sim_prepare(&ps->sims[s], ps->w[sl->workload].argv, spec,
					 ps->o->sysfs, &cause);
		if (rc) {
			print_cause("error: ", cause);
			free(cause);
			return rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
		}
	}
	return 0;
}

/* Set up what the runs need once the plan stands; 0 or an exit code. */
static int prepare(struct press *ps)
{
	char *cause = NULL, *warn = NULL;
	char mode[32];
	if (ps->sim)
		goto workloads;	/* a simulation is pinned to no CPU */
	snprintf(mode, sizeof(mode), "cpus:%d", ps->cpus.workload_cpu);
	int rc = pin_plan_make(&ps->pin, mode, ps->o->sysfs, &warn, &cause);
	if (rc) {
		error_msg("cannot pin the workload: %s", cause ? cause : ERR_TEXT(-rc));
		free(cause);
		return EXIT_FAIL;
	}
	ps->have_pin = true;
	if (warn) {
		warning_msg("%s", warn);
		free(warn);
	}
workloads:
	for (size_t w = 0; w < ps->nw; w++) {
		char *path = launch_resolve(ps->w[w].argv[0], &cause);
		if (!path) {
			fprintf(stderr, "error: workload '%s': ", ps->w[w].name);
			print_cause("", cause);
			free(cause);
			return EXIT_NOT_RUN;
		}
		free(path);
	}
	if (!(ps->db = verb_db(ps->vc))) {
		fprintf(stderr, "hint: prof pressure stores every run; nothing was run\n");
		return EXIT_FAIL;
	}
	return 0;
}

static int start_cat(struct press *ps)
{
	char *cause = NULL;
	int rc = resctrl_group_make(&ps->rc, getpid(), &ps->group, &cause);
	if (!rc)
		rc = resctrl_group_add(&ps->group, (pid_t)gettid(), &cause);
	if (rc) {
		error_msg("--method cat: %s", cause ? cause : ERR_TEXT(-rc));
		free(cause);
		return EXIT_FAIL;
	}
	ps->in_group = true;
	return 0;
}

static int cmd_pressure(struct verb_ctx *vc)
{
	struct press ps;
	memset(&ps, 0, sizeof(ps));
	ps.vc = vc;
	ps.o = vc->args;
	char *cause = NULL;
	int code = check_args(&ps);
	if (code)
		goto out;
	/* Simulated, the hardware counters are callgrind's: the software
	 * events count what valgrind itself cost (as prof run --simulate). */
	const char *events = ps.sim ? run_sim_events(ps.o->plan.events) : ps.o->plan.events;
	int rc = event_list_parse(events, ps.o->plan.allow_generic
				  ? EVENT_ALLOW_GENERIC : 0, &ps.evs, &ps.nev, &cause);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		code = exit_code_for(rc);
		goto out;
	}
	for (size_t i = 0; ps.sim && i < ps.nev; i++)
		if (ps.evs[i].hardware) {
			code = usage_error(vc->name, "with --method sim the hardware counters "
					   "are simulated: -e takes software events only");
			goto out;
		}
	if ((code = check_metric(&ps)) ||
	    (code = ps.sim ? plan_sim(&ps) : plan_machine(&ps)))
		goto out;
	if (ps.cat && (code = plan_cat(&ps)))
		goto out;
	plan_slots(&ps);
	if ((ps.sim && (code = prepare_sim(&ps))) || (code = prepare(&ps)))
		goto out;

	/* From here on a Ctrl-C stops after the current run, and what was
	 * set up is undone before prof exits. */
	runner_hold_signals();
	db_set_busy_stop(ps.db, runner_late_signal, NULL);
	if (ps.cat)
		code = start_cat(&ps);
	else if (!ps.sim)
		code = calibrate(&ps);
	struct host_facts hf;
	host_facts_read(&hf);
	if (!code && !stop_asked())
		code = create_experiment(&ps, &hf);
	host_facts_release(&hf);
	struct exp_end end = { .status = "complete" };
	if (!code && ps.exp_id) {
		if (!ps.sim)
			move_off_workload(&ps);
		code = run_rounds(&ps, &end);
	}
	tear_down(&ps);
	if (ps.exp_id) {
		if (end.note)
			fprintf(cli_talk(), "prof pressure: %s\n", end.note);
		db_experiment_finish(ps.db, ps.exp_id, end.status, end.note, NULL);
		free(end.note);
		int rcode = report(&ps);
		code = code ? code : rcode;
	} else if (!code && stop_asked()) {
		code = 130;
	}
	int late = runner_release_signals();
	if (!code && late)
		code = 128 + late;
	if (code == 130)	/* the signal that stopped it, as a shell says */
		code = runner_stop_exit_code();
out:
	tear_down(&ps);
	if (ps.have_pin)
		pin_plan_release(&ps.pin);
	if (ps.have_rc)
		resctrl_release(&ps.rc);
	if (ps.have_topo)
		topo_release(&ps.topo);
	event_list_free(ps.evs, ps.nev);
	for (size_t s = 0; ps.sims && s < ps.nslots; s++)
		run_sim_release(&ps.sims[s]);
	free(ps.sims);
	free(ps.slots);
	free(ps.w);
	free(ps.cmd_name);
	free(ps.cmd_line);
	return code;
}

/* The options that shape the curve; with a command, options stop at it. */
static const struct opt press_design_opts[] = {
	OPT_STRING(0, "steps", struct press_args, steps, "LIST",
		   "the cache to take away, each a fraction of the\n"
		   "domain (1/8), a percentage (25%) or a size (4M);\n"
		   "default 0,1/8,1/4,1/2,3/4 (0: a second control,\n"
		   "the experiment's own A/A)"),
	OPT_STRING(0, "method", struct press_args, method, "METHOD",
		   "pirate (default: a co-runner walks the cache it\n"
		   "takes), cat (resctrl gives the workload fewer\n"
		   "L3 ways; needs /sys/fs/resctrl with L3 allocation)\n"
		   "or sim (no PMU, no shared cache: each run under\n"
		   "valgrind with a simulated last level of each\n"
		   "--steps size, the largest the control; metric\n"
		   "llc-misses; 2 rounds, no warm-up)"),
	OPT_STRING(0, "domain", struct press_args, domain, "DOMAIN",
		   "largest-llc (default) or llc:N, as 'prof topo'\n"
		   "numbers them"),
	OPT_STRING(0, "cpus", struct press_args, cpus, "W,P",
		   "the workload's CPU and the co-runner's (default:\n"
		   "the first CPU of the domain, and one that is no\n"
		   "SMT sibling of it, with an L2 of its own if any)"),
	OPT_STRING(0, "metric", struct press_args, metric, "NAME",
		   "cpu_s (default: the workload's CPU time, which a\n"
		   "busy machine moves less than wall time), wall_s, a\n"
		   "--score (the first one is the default when given)\n"
		   "or an event of -e"),
	OPT_INT(0, "rounds", struct press_args, rounds, "N", 1, DB_EXP_ROUNDS_MAX,
		"a count of 1 or more", "counted rounds (default 8; sim 2)"),
	OPT_INT(0, "warmup", struct press_args, warmup, "N", 0, DB_EXP_WARMUP_MAX, NULL,
		"warm-up rounds, stored, not counted (default 1;\nsim 0)"),
	OPT_CALLBACK(0, "order", struct press_args, plan, "ORDER", plan_opt_order,
		     "abba (default: each round reverses the last),\n"
		     "alternate, random (from --seed)"),
	OPT_DOUBLE(0, "gate", struct press_args, gate, "PCT", 0, 1000, "a percentage",
		   "the noise gate in percent (default: twice the sd\n"
		   "of step 0 against the control, at least 2%)"),
	OPT_BOOL(0, "keep-going", struct press_args, plan.keep_going,
		 "go on after a run fails"),
	OPT_CALLBACK(0, "prepare", struct press_args, plan, "CMD", plan_opt_prepare,
		     "run CMD (/bin/sh -c) before every run, before the\n"
		     "co-runner takes its cache: not counted nor timed"),
	OPT_CALLBACK(0, "cleanup", struct press_args, plan, "CMD", plan_opt_cleanup,
		     "run CMD after every run, the co-runner paused"),
	OPT_STRING(0, "sysfs", struct press_args, sysfs, "ROOT",
		   "read the topology below ROOT instead of /"),
	OPT_STRING(0, "resctrl", struct press_args, resctrl, "ROOT",
		   "the resctrl mount for --method cat (default\n"
		   "/sys/fs/resctrl)"),
	OPT_END(),
};

static const struct opt_group press_design = {
	"design", press_design_opts, NULL, true,
};

static const char pressure_help[] =
"usage: prof pressure [OPTIONS] [--] COMMAND [ARGS...]\n"
"       prof pressure --arm NAME=COMMAND [--arm NAME=COMMAND ...] [OPTIONS]\n"
"\n"
"Is this workload cache-bound? Take cache away and measure. The workload\n"
"runs pinned to one CPU of a cache domain; a co-runner thread on another\n"
"CPU of the same domain (never an SMT sibling) walks a random cycle over k\n"
"bytes, taking about k bytes of the shared cache, for each step k. Each\n"
"step's runs are paired, round by round, with runs beside a control\n"
"co-runner that walks half of its own L2: the same CPU and memory traffic\n"
"beside the workload, but no shared cache taken. So the change against the\n"
"control is what the lost capacity costs, on any machine, counters or not.\n"
"Rounds interleave every step with the control, after warm-up rounds; step\n"
"0 is a second control whose spread sets the noise gate; each step gets\n"
"the paired statistics and verdict of 'prof ab', and the curve a verdict:\n"
"cache-sensitive (the largest step costs beyond the gate),\n"
"not-cache-sensitive (no step costs beyond it) or inconclusive (with the\n"
"rounds that would likely settle it). The co-runner times its own walk:\n"
"when its time per line reaches the time of a miss it no longer holds its\n"
"buffer, and the table says how much of it it held.\n"
"\n"
"--format svg draws each workload's curve: the change against the control\n"
"with its 95% CI at each step, against the cache taken (in KiB or MiB), the\n"
"domain's size and the gate marked, the verdict in the title.\n"
"\n";

static const char pressure_tail[] =
"prof itself sleeps while a run runs, on the co-runner's CPU. The\n"
"co-runner's memory is its largest step, at most the domain's size; it\n"
"stops when each run ends. Every run is stored; 'prof compare' reprints\n"
"the experiment and 'prof explain' reads it as capacity evidence. Ctrl-C\n"
"stops after the current run and keeps the finished rounds.\n"
"\n"
"--prepare CMD runs before every run and --cleanup CMD after it, as prof\n"
"run's do (unpinned, outside what is counted and timed); the co-runner\n"
"takes its cache after the prepare and is paused for the cleanup. A\n"
"prepare that exits non-zero stops the experiment before that run, with\n"
"one error line naming it; the stored runs are kept.\n"
"\n"
"Examples:\n"
"  prof pressure -- ./emu --scene 3 --frames 600\n"
"  prof pressure --steps 2M,4M,8M --rounds 12 --format json -- ./emu\n"
"  prof pressure --format svg -o curve.svg -- ./emu\n"
"  prof pressure --prepare 'rm -rf obj' --rounds 4 -- make -j1\n"
"  prof pressure --method sim --steps 1M,2M,4M,8M -- ./emu --frames 60\n"
"  prof pressure --arm c='./emu --backend c' --arm llvm='./emu --backend llvm' \\\n"
"                --score fps='([0-9.]+) fps:higher'\n";

static const struct opt pressure_opts[] = {
	OPT_GROUP("Workloads:"),
	OPT_CALLBACK(0, "arm", struct press_args, plan, "NAME=COMMAND", plan_opt_arm,
		     "a workload, instead of the command after the\n"
		     "options; each gets its own curve"),
	OPT_GROUP("Design:"),
	OPT_INCLUDE(press_design),
	OPT_GROUP("Metrics:"),
	OPT_STRING('e', "events", struct press_args, plan.events, "LIST",
		   "as for prof run (default: cache)"),
	OPT_BOOL(0, "allow-generic", struct press_args, plan.allow_generic,
		 "as for prof run"),
	OPT_CALLBACK(0, "score", struct press_args, plan, "NAME=REGEX[:AGG]|frame:WHAT",
		     plan_opt_score, "a number parsed from the workload's output, or\n"
		     "frame:p99, frame:p50 or frame:long from its frames,\n"
		     "as for prof ab"),
	OPT_BOOL(0, "frames", struct press_args, plan.frames,
		 "find each run's frames from prof_frame() marks"),
	OPT_CALLBACK(0, "frame-regex", struct press_args, plan, "RE", plan_opt_frame_regex,
		     "the same from the workload's stdout lines that\n"
		     "match RE"),
	OPT_CALLBACK(0, "frame-symbol", struct press_args, plan, "MODULE:SYMBOL",
		     plan_opt_frame_symbol, "the same from the calls of SYMBOL"),
	OPT_DOUBLE(0, "budget", struct press_args, plan.budget_ms, "MS", 0.001, 1e6,
		   "a number of milliseconds",
		   "a frame longer than MS is long (default 16.7)"),
	OPT_GROUP("Output:"),
	OPT_INCLUDE(opt_quiet),
	OPT_INCLUDE(opt_output),
	OPT_BOOL(0, "show-output", struct press_args, show_output,
		 "echo each run's own output"),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

VERB(pressure, press_args,
     .init = press_args_init,
     .release = press_args_release,
     .max_operands = VERB_ANY_OPERANDS);
