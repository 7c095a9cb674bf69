/*
 * prof probe: a short calibration of this machine. It pins prof to one
 * CPU, times a random pointer chase from 16 KiB up (collectors/probe: the
 * latency curve, which needs no counters), runs one benchmark per mission
 * counter whose count is known by construction with that counter open,
 * and compares the curve's knees with the caches sysfs lists for the CPU
 * (reports/probe). The run is stored (kind "probe") and printed.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collectors/probe.h"
#include "collectors/topology.h"
#include "common/errtext.h"
#include "db/probe.h"
#include "prof/run/run.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/probe.h"

/* The default seed: any fixed number, so two probes walk the same orders. */
#define PROBE_SEED 0x70726f6265ull

struct probe_args {
	long cpu;		/* -1: the CPU prof starts on */
	uint64_t min, max;	/* 0: the defaults */
	long ms;
	long reps;
	long seed;
	const char *sysfs;
	bool no_counters;
	bool allow_generic;
	bool no_store;
};

static void probe_init(void *args)
{
	struct probe_args *a = args;
	a->cpu = -1;
	a->ms = 30;
	a->reps = PROBE_REPS;
	a->seed = -1;
}

static int parse_size(struct verb_ctx *vc, const char *arg, void *field)
{
	uint64_t b;
	char *cause = NULL;
	char buf[64];
	if (cache_size_parse(arg, &b, &cause) || b < 2 * 64 || b > ((uint64_t)16 << 30)) {
		free(cause);
		return usage_error(vc->name, "bad size '%s': expected 128 to 16G, "
				   "as 16K, 1M or 1G", cli_echo(arg, buf, sizeof(buf)));
	}
	*(uint64_t *)field = b;
	return 0;
}

/* ---- sysfs: the caches of one CPU ---- */

static void sizes_of_cpu(const struct topo *t, int cpu, struct db_probe *p)
{
	for (size_t i = 0; i < t->n_caches; i++) {
		const struct cache_domain *d = &t->caches[i];
		if (!cpumask_has(&d->cpus, cpu))
			continue;
		if (d->level == 1 && d->type == CACHE_TYPE_DATA)
			p->l1d_bytes = d->size_bytes;
		else if (d->level == 1 && d->type == CACHE_TYPE_INSTRUCTION)
			p->l1i_bytes = d->size_bytes;
		else if (d->level == 2 && d->type != CACHE_TYPE_INSTRUCTION)
			p->l2_bytes = d->size_bytes;
	}
	for (size_t i = 0; i < t->n_llc; i++)
		if (cpumask_has(&t->llc[i].cpus, cpu)) {
			p->llc_bytes = t->llc[i].size_bytes;
			p->llc_level = t->llc_level;
		}
}

/* ---- progress ---- */

struct progress {
	bool tty;
	bool drew;
};

static int on_size(void *arg, size_t done, size_t total, const struct probe_point *q)
{
	struct progress *pr = arg;
	if (!pr->tty)
		return 0;
	char b[32];
	fmt_bytes(b, sizeof(b), (double)q->bytes);
	fprintf(cli_talk(), "\r\033[Kprof: %zu of %zu: %s, %.2f ns a step", done,
		total, b, q->ns);
	fflush(cli_talk());
	pr->drew = true;
	return 0;
}

/* ---- the stored shape ---- */

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* The runs row: host, command as typed, the CPU it was pinned to. */
static void fill_run(struct db_run *run, const struct verb_ctx *vc, int cpu,
		     const char *started)
{
	run_state_self(run, "probe", vc->full_argc, vc->full_argv, started);
	char cpus[32];
	snprintf(cpus, sizeof(cpus), "%d", cpu);
	if (asprintf(&run->pin.mode, "cpus:%d", cpu) < 0)
		run->pin.mode = NULL;
	run->pin.status = strdup("applied");
	run->pin.cpus = strdup(cpus);
}

static void to_db_counter(const struct probe_result *r, struct db_probe_counter *c)
{
	memset(c, 0, sizeof(*c));
	c->name = strdup(r->name);
	c->event = r->count.event ? strdup(r->count.event) : NULL;
	c->bench = r->bench ? strdup(r->bench) : NULL;
	c->ran = r->ran;
	c->expected = r->expected;
	c->opened = r->count.opened;
	c->value = r->count.value;
	c->enabled = r->count.enabled;
	c->running = r->count.running;
	c->grade = strdup(probe_grade_name(probe_grade_of(c)));
	/* The counter's refusal says the most; else why the bench did not run. */
	const char *why = r->count.reason ? r->count.reason : r->error;
	c->reason = why ? strdup(why) : NULL;
}

/* ---- the verb ---- */

/* The curve's top: 256 MiB, or 4x a larger last level (up to 1 GiB), so
 * that its end is memory latency on any machine. */
static uint64_t default_max(uint64_t llc)
{
	uint64_t max = PROBE_MAX_BYTES;
	while (max < 4 * llc && max < ((uint64_t)1 << 30))
		max *= 2;
	return max;
}

/* Whether cpu is online and in prof's affinity mask. */
static bool may_run_on(int cpu)
{
	size_t n = CPUMASK_MAX;
	cpu_set_t *set = CPU_ALLOC(n);
	size_t size = CPU_ALLOC_SIZE(n);
	if (!set)
		return false;
	bool ok = sched_getaffinity(0, size, set) == 0 &&
		  CPU_ISSET_S((size_t)cpu, size, set);
	CPU_FREE(set);
	return ok;
}

static int pin_self(int cpu)
{
	cpu_set_t *set = CPU_ALLOC((size_t)cpu + 1);
	size_t size = CPU_ALLOC_SIZE((size_t)cpu + 1);
	if (!set)
		return -ENOMEM;
	CPU_ZERO_S(size, set);
	CPU_SET_S((size_t)cpu, size, set);
	int rc = sched_setaffinity(0, size, set) ? -errno : 0;
	CPU_FREE(set);
	return rc;
}

/* One probe: what its steps share. */
struct probe_job {
	const struct probe_args *a;
	struct topo t;
	bool have_topo;
	struct db_probe p;
	struct run_machine mach;
	struct db *db;			/* NULL: --no-store */
	uint64_t min, max;		/* the curve's sizes */
	size_t nsizes;
	struct probe_point *pts;	/* the sizes measured */
	size_t npts;
	struct probe_result res[PROBE_NBENCH];
	bool benched;			/* res holds the benchmarks' results */
	char started[32];
	struct timespec t0, t1;
	struct rusage ru0, ru1;
};

/* Which CPU, and the curve's sizes: 0, or EXIT_USAGE said. */
static int probe_plan(struct verb_ctx *vc, struct probe_job *j)
{
	const struct probe_args *a = j->a;
	struct db_probe *p = &j->p;
	int cpu = a->cpu >= 0 ? (int)a->cpu : sched_getcpu();
	if (cpu < 0)
		cpu = 0;
	if (!may_run_on(cpu))
		return usage_error(vc->name, "CPU %d is not one prof may run on "
				   "(offline, or outside its affinity)", cpu);
	/* A tree from --sysfs describes another machine: its first CPU
	 * stands in for one it does not list. */
	if (j->have_topo)
		sizes_of_cpu(&j->t, cpumask_has(&j->t.online, cpu) ? cpu
			     : cpumask_first(&j->t.online), p);
	p->cpu = cpu;
	p->ms_per_size = (double)a->ms;
	p->seed = a->seed >= 0 ? (uint64_t)a->seed : PROBE_SEED;
	j->min = a->min ? a->min : PROBE_MIN_BYTES;
	j->max = a->max ? a->max : default_max(p->llc_bytes);
	j->nsizes = probe_curve_sizes(j->min, j->max, NULL, 0);
	if (!j->nsizes)
		return usage_error(vc->name, "no size of the curve lies between --min "
				   "and --max (sizes are powers of two and 1.5x them)");
	return 0;
}

/*
 * Pinned to the CPU, the latency curve, then the counted benchmarks,
 * timed. From the curve on a Ctrl-C or SIGTERM stops the probe within one
 * batch of the chase: the sizes measured before are stored, marked
 * interrupted, and prof exits 128 + the signal; a second one is only
 * noted, so that the store is not cut short. 0, or the exit code said.
 */
static int probe_measure(struct probe_job *j)
{
	const struct probe_args *a = j->a;
	struct db_probe *p = &j->p;
	char *cause = NULL;
	int rc = pin_self(p->cpu);
	if (rc)
		return error_msg("cannot pin prof to CPU %d: %s", p->cpu, ERR_TEXT(-rc));
	if (events_init(NULL) == 0) {
		const struct mission_family *f = events_mission_family(NULL, NULL);
		p->family = f ? strdup(f->label) : NULL;
	}
	run_state_now_iso(j->started, sizeof(j->started));
	run_machine_begin(&j->mach, a->sysfs);
	clock_gettime(CLOCK_MONOTONIC, &j->t0);
	getrusage(RUSAGE_SELF, &j->ru0);
	fprintf(cli_talk(), "prof: probing CPU %d: %zu sizes, %ld ms each in %ld "
		"repetition%s%s\n", p->cpu, j->nsizes, a->ms, a->reps,
		a->reps == 1 ? "" : "s",
		a->no_counters ? "" : ", then the counted benchmarks");
	struct progress pr = { .tty = isatty(STDERR_FILENO) };
	struct probe_curve_opts co = {
		.min_bytes = j->min, .max_bytes = j->max, .ms_per_size = (double)a->ms,
		.reps = (unsigned)a->reps, .seed = p->seed, .progress = on_size, .arg = &pr,
		.stop = runner_stop_asked,
	};
	runner_hold_signals();
	rc = probe_curve(&co, &j->pts, &j->npts, &cause);
	if (pr.drew)
		fputs("\r\033[K", cli_talk());
	if (rc && rc != -ECANCELED)
		return fail_cause(cause, EXIT_FAIL);
	if (!a->no_counters && !runner_stop_asked(NULL)) {
		struct probe_bench_opts bo = {
			.llc_bytes = p->llc_bytes, .l1i_bytes = p->l1i_bytes,
			.flags = a->allow_generic ? EVENT_ALLOW_GENERIC : 0,
			.seed = p->seed, .stop = runner_stop_asked,
		};
		probe_benches(&bo, j->res);
		j->benched = true;
	}
	clock_gettime(CLOCK_MONOTONIC, &j->t1);
	getrusage(RUSAGE_SELF, &j->ru1);
	return 0;
}

/* The curve's points and, where it ran whole, the benchmarks' counters,
 * as stored: 0, or the exit code said. */
static int probe_keep(struct probe_job *j)
{
	struct db_probe *p = &j->p;
	p->points = calloc(j->npts + 1, sizeof(*p->points));
	p->counters = calloc(PROBE_NBENCH, sizeof(*p->counters));
	if (!p->points || !p->counters)
		return error_msg("out of memory");
	for (size_t i = 0; i < j->npts; i++) {
		const struct probe_point *q = &j->pts[i];
		p->points[i] = (struct db_probe_point){
			.bytes = q->bytes, .ns = q->ns, .steps = q->steps,
			.huge_bytes = q->huge_bytes, .ns_min = q->ns_min,
			.ns_q1 = q->ns_q1, .ns_q3 = q->ns_q3, .ns_max = q->ns_max,
			.reps = q->reps,
		};
	}
	p->npoints = j->npts;
	for (int i = 0; j->benched && j->npts == j->nsizes && i < PROBE_NBENCH; i++)
		to_db_counter(&j->res[i], &p->counters[p->ncounters++]);
	return 0;
}

/* The probe as a run of prof itself: its times, the topology, the
 * machine's settings and deltas. */
static void probe_run(struct verb_ctx *vc, struct probe_job *j, struct db_run *run,
		      bool signalled)
{
	fill_run(run, vc, j->p.cpu, j->started);
	run->wall_s = (double)(j->t1.tv_sec - j->t0.tv_sec) +
		      (double)(j->t1.tv_nsec - j->t0.tv_nsec) / 1e9;
	run->user_s = tv_s(j->ru1.ru_utime) - tv_s(j->ru0.ru_utime);
	run->sys_s = tv_s(j->ru1.ru_stime) - tv_s(j->ru0.ru_stime);
	run->interrupted = signalled;
	if (j->have_topo)
		run->topology = topo_to_db(&j->t);
	run_machine_end(&j->mach, run);
}

/* Store it (unless --no-store), then report it: the exit code, from
 * exit_code so far. */
static int probe_store_and_report(struct verb_ctx *vc, struct probe_job *j,
				  struct db_run *run, int exit_code)
{
	char *cause = NULL;
	if (j->db) {
		if (db_probe_store(j->db, run, &j->p, &cause)) {
			print_cause("error: ", cause);
			fprintf(stderr, "hint: the report below is all that is left of "
				"this probe; save it with -o FILE next time\n");
			free(cause);
			if (exit_code == EXIT_OK)
				exit_code = EXIT_FAIL;
		} else {
			fprintf(cli_talk(), "prof: stored as run %lld; 'prof report %lld' "
				"prints it again\n", (long long)run->id, (long long)run->id);
		}
	}
	FILE *fp = verb_out(vc);
	if (fp) {
		report_probe(run, &j->p, vc->fmt, fp);
		if (verb_out_close(vc) && exit_code == EXIT_OK)
			exit_code = EXIT_FAIL;
	} else if (exit_code == EXIT_OK) {
		exit_code = EXIT_FAIL;
	}
	return exit_code;
}

static int cmd_probe(struct verb_ctx *vc)
{
	struct probe_job job, *j = &job;
	memset(j, 0, sizeof(*j));
	j->a = vc->args;
	char *cause = NULL;
	j->have_topo = topo_read(&j->t, j->a->sysfs ? j->a->sysfs : "/", &cause) == 0;
	if (!j->have_topo) {
		warning_msg("cannot read the cache topology: %s; the curve is "
			    "shown without sysfs's sizes to compare", cause);
		free(cause);
	}
	int exit_code = probe_plan(vc, j);
	if (exit_code) {
		if (j->have_topo)
			topo_release(&j->t);
		return exit_code;
	}
	/* Open the database before measuring, not after. */
	if (!j->a->no_store && !(j->db = verb_db(vc))) {
		fprintf(stderr, "hint: --no-store runs the probe without storing it\n");
		exit_code = EXIT_FAIL;
		goto out;
	}
	if ((exit_code = probe_measure(j)))
		goto out;
	bool signalled = runner_stop_asked(NULL);
	if (signalled) {
		exit_code = runner_stop_exit_code();
		fprintf(cli_talk(), "prof: interrupted after %zu of %zu sizes%s\n",
			j->npts, j->nsizes, j->benched ? ", before the counted "
			"benchmarks ended" : "");
		if (!j->npts)
			goto out;
	}
	int rc = probe_keep(j);
	if (rc) {
		exit_code = rc;
		goto out;
	}
	struct db_run run;
	probe_run(vc, j, &run, signalled);
	exit_code = probe_store_and_report(vc, j, &run, exit_code);
	db_run_release(&run);
out:
	run_machine_end(&j->mach, NULL);
	runner_release_signals();
	for (int i = 0; i < PROBE_NBENCH; i++)
		probe_result_release(&j->res[i]);
	free(j->pts);
	db_probe_release(&j->p);
	if (j->have_topo)
		topo_release(&j->t);
	return exit_code;
}

static const struct opt probe_opts[] = {
	OPT_LONG(0, "cpu", struct probe_args, cpu, "N", 0, CPUMASK_MAX - 1, NULL,
		 "probe CPU N (default: the one prof starts on); its\n"
		 "caches are the ones the curve is compared with"),
	OPT_CALLBACK(0, "min", struct probe_args, min, "SIZE", parse_size,
		     "the curve's smallest size (default 16K)"),
	OPT_CALLBACK(0, "max", struct probe_args, max, "SIZE", parse_size,
		     "its largest (default 256M, or 4x a larger last\n"
		     "level, up to 1G): at least twice the last level, so\n"
		     "that its end is memory latency"),
	OPT_LONG(0, "ms", struct probe_args, ms, "MS", 1, 10000, NULL,
		 "time each size at least this long, its repetitions\n"
		 "together (default 30)"),
	OPT_LONG(0, "reps", struct probe_args, reps, "N", 1, 100, NULL,
		 "measure each size N times, interleaved with the\n"
		 "other sizes (default 5); 1: once, as before"),
	OPT_LONG(0, "seed", struct probe_args, seed, "N", 0, 0x7fffffffL, NULL,
		 "the walks' random order (default: a fixed one)"),
	OPT_BOOL(0, "no-counters", struct probe_args, no_counters,
		 "the latency curve only"),
	OPT_BOOL(0, "allow-generic", struct probe_args, allow_generic,
		 "as for prof run: on a processor the mission map lacks,\n"
		 "grade perf's generic cache events"),
	OPT_STRING(0, "sysfs", struct probe_args, sysfs, "ROOT",
		   "read the caches to compare with below ROOT, not /\n"
		   "(for tests: a tree of another machine)"),
	OPT_BOOL(0, "no-store", struct probe_args, no_store, "do not store the run"),
	OPT_INCLUDE(opt_quiet),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

static const char probe_help[] =
"usage: prof probe [--cpu N] [--min SIZE] [--max SIZE] [--ms MS] [--reps N]\n"
"                  [--no-counters] [--format table|json|csv|markdown|svg]\n"
"                  [-o FILE] [--db PATH] [--no-store]\n"
"\n"
"Say whether this machine's counters can be trusted, and where its caches\n"
"really end, before reading any cache conclusion from it.\n"
"\n"
"The latency curve: prof pins itself to one CPU and times a random pointer\n"
"chase (one 64-byte line a step, an order no prefetcher can guess) at sizes\n"
"from 16 KiB to 256 MiB, two per doubling. ns per step climbs where the\n"
"chase outgrows a cache level: those knees are compared with the L1d, L2\n"
"and last level that sysfs lists for the CPU ('prof topo'). It needs no\n"
"counters, so it works on a VM. There, the host's last-level cache is\n"
"shared with other guests: a chase may reach memory latency long before\n"
"the size sysfs reports, and prof says so.\n"
"\n"
"Each size is measured 5 times (--reps), round all the sizes before any is\n"
"measured again, so that a slow moment of the machine does not land on\n"
"one size alone; its latency is the median, and the middle half of the\n"
"repetitions (q1-q3) is its spread. A rise is called a knee only where\n"
"the level above clears that spread: its q1 at least 1.25x the q3 of the\n"
"last size below (between neighbouring sizes of one level, loaded VMs\n"
"gave up to 1.11). Where the medians rise but the spread does not carry\n"
"it, prof says the curve shows no knee there beyond its noise, and draws\n"
"no verdict from it.\n"
"\n"
"The counters: one benchmark per mission counter, whose count is known by\n"
"construction, runs with that counter open (user space, on its own):\n"
"  llc-misses     a chase over 8x the last level: one miss a step\n"
"  itlb-misses    jumps across 8,192 code pages: one miss a page\n"
"  l1i-misses     jumps across 4x the L1i, one per line: one miss a line\n"
"  branch-misses  a branch on random bits: half of them mispredicted\n"
"Each is graded: plausible (measured / expected within 0.8-1.25),\n"
"implausible (the event counts something else here), multiplexed (it was\n"
"not counted all of the time, so its value is an estimate), not\n"
"supported, or not run (prof generates the code walks on x86-64 only).\n"
"The probe takes about ten seconds; it is stored (kind probe) and\n"
"'prof report RUN' prints it again. Ctrl-C or SIGTERM stops it at once:\n"
"the sizes measured so far are stored, marked interrupted (the counted\n"
"benchmarks run only after a whole curve), and prof exits 128 + the\n"
"signal. CSV holds the latency curve; JSON holds everything: latency\n"
"({bytes, ns}), knees, last_level and counters ({name, expected,\n"
"measured, grade}), and each size's reps and spread (ns_min, ns_q1,\n"
"ns_q3, ns_max); no_knee lists the rises the spread did not carry. SVG\n"
"draws the curve on log axes, each size's q1-q3 as a bar, with sysfs's\n"
"L1d, L2 and last level as dashed lines and the knees marked.\n"
"\n";

static const char probe_tail[] =
"Examples:\n"
"  prof probe\n"
"  prof probe --cpu 8 --format json | jq '.counters[] | {name, grade}'\n"
"  prof probe --no-counters --max 64M --ms 10\n"
"  prof probe --no-counters --format svg -o latency.svg\n";

VERB(probe, probe_args, .init = probe_init, .max_operands = 0);
