/*
 * prof sleep: how well short sleeps keep time on this machine, per mode
 * and duration. The benchmark itself is collectors/sleep (sleep_bench_run);
 * this verb parses the options, pins prof itself when asked, shows
 * progress on stderr, turns the engine's structs into the stored shape
 * (db/sleep.h), stores them as a run of kind "sleep" and prints them with
 * reports/sleep.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collectors/sleep.h"
#include "common/errtext.h"
#include "db/sleep.h"
#include "prof/progress.h"
#include "prof/run/run.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/sleep.h"

/*
 * Seconds of overhead per call to expect before any cell has run: the
 * default run measured 114-120 s for 44.8 s of requested sleep over
 * 1,120,000 calls, about 64 us a call on top of the target.
 */
#define FIRST_GUESS_OVERHEAD_S 64e-6

struct sleep_args {
	const char *modes, *durations, *pin, *sysfs;
	long calls, threads, load;
	enum sleep_pattern pattern;
	bool no_store;
};

/* --------------------------------------------------------- progress */

struct progress {
	struct progress_line line;
	double t0;
	const struct sleep_bench *bench;	/* being filled */
	uint32_t calls;				/* per thread per cell */
	const uint32_t *durations;
	size_t ndurations, total;
	double slept_s;				/* sum of targets done */
	double cells_s;				/* sum of their wall times */
	uint64_t calls_done;
	bool said_margin;
};

static void fmt_time(char *buf, size_t len, double s)
{
	if (s < 60)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 3600)
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
	else
		snprintf(buf, len, "%ldh%02ldm", (long)(s / 3600),
			 (long)(s / 60) % 60);
}

/*
 * Seconds left: the targets of the cells still to run, plus the overhead
 * per call the cells so far took beyond their targets (the first guess
 * before any cell ran). Calibration time is left out: it happens once.
 */
static double time_left(const struct progress *p, size_t done)
{
	double overhead = FIRST_GUESS_OVERHEAD_S;
	if (p->calls_done) {
		overhead = (p->cells_s - p->slept_s) / (double)p->calls_done;
		if (overhead < 0)
			overhead = 0;
	}
	double left = 0;
	for (size_t i = done; i < p->total; i++)
		left += (double)p->calls *
			((double)p->durations[i % p->ndurations] / 1e6 + overhead);
	return left;
}

static void say_margin(struct progress *p)
{
	/* sleep_bench_run fills the header before it runs the first cell. */
	const struct sleep_bench_header *h = &p->bench->header;
	p->said_margin = true;
	if (h->hybrid_margin_ns < 0 || !h->hybrid_calibrated)
		return;
	if (p->line.drawn)
		progress_line_clear(&p->line);
	fprintf(p->line.fp, "prof: hybrid margin %.1f us, calibrated: timerfd p99.9 "
		"overshoot %.1f us + %.1f us guard\n", h->hybrid_margin_ns / 1e3,
		h->calibration_p999_ns / 1e3, h->calibration_guard_ns / 1e3);
}

static int on_cell(void *arg, size_t done, size_t total,
		   const struct sleep_cell *c)
{
	struct progress *p = arg;
	if (!p->said_margin)
		say_margin(p);
	p->slept_s += (double)p->calls * c->target_us / 1e6;
	p->calls_done += p->calls;
	p->cells_s += c->wall_s;
	char mode[32], left[32];
	sleep_mode_format(&c->mode, mode, sizeof(mode));
	fmt_time(left, sizeof(left), time_left(p, done));
	progress_line_show(&p->line, "prof: cell %zu of %zu: %s %u us, p50 %.1f "
			   "p99 %.1f us, %.2f cpu us/call; %s%s left", done, total,
			   mode, c->target_us, c->over.p50_ns / 1e3,
			   c->over.p99_ns / 1e3, c->cpu_us_per_call,
			   done < total ? "about " : "",
			   done < total ? left : "nothing");
	/* Stop early on a signal; after the last cell there is nothing to
	 * stop, and the run is whole. */
	return done < total && runner_stop_asked(NULL);
}

/* -------------------------------------------------------- the store */

static void bench_to_db(const struct sleep_bench *b, struct db_sleep *s)
{
	const struct sleep_bench_header *h = &b->header;
	memset(s, 0, sizeof(*s));
	s->timer_slack_ns = h->timer_slack_ns;
	snprintf(s->sched_policy, sizeof(s->sched_policy), "%s",
		 h->sched_policy_name);
	snprintf(s->clocksource, sizeof(s->clocksource), "%s", h->clocksource);
	snprintf(s->pattern, sizeof(s->pattern), "%s",
		 sleep_pattern_name(h->pattern));
	s->calls = h->calls;
	s->threads = h->threads;
	s->load = h->load;
	s->hybrid_margin_ns = h->hybrid_margin_ns;
	s->hybrid_calibrated = h->hybrid_calibrated;
	s->calibration_p999_ns = h->calibration_p999_ns;
	s->calibration_guard_ns = h->calibration_guard_ns;
	s->cheap_p99_us = SLEEP_CHEAP_P99_US;
	s->cells = calloc(b->ncells ? b->ncells : 1, sizeof(*s->cells));
	if (!s->cells)
		return;
	s->ncells = b->ncells;
	for (size_t i = 0; i < b->ncells; i++) {
		const struct sleep_cell *c = &b->cells[i];
		struct db_sleep_cell *d = &s->cells[i];
		snprintf(d->mode, sizeof(d->mode), "%s",
			 sleep_mode_name(c->mode.mode));
		d->margin_ns = c->mode.mode == SLEEP_MODE_HYBRID
			       ? c->mode.margin_ns : -1;
		d->target_us = c->target_us;
		d->calls = c->calls;
		d->p50_ns = c->over.p50_ns;
		d->p90_ns = c->over.p90_ns;
		d->p99_ns = c->over.p99_ns;
		d->p999_ns = c->over.p999_ns;
		d->max_ns = c->over.max_ns;
		d->min_ns = c->over.min_ns;
		d->mean_ns = c->over.mean_ns;
		d->early = c->over.early;
		static const enum sleep_bucket from[DB_SLEEP_NBUCKETS] = {
			[DB_SLEEP_LT3] = SLEEP_BUCKET_LT3,
			[DB_SLEEP_LT10] = SLEEP_BUCKET_LT10,
			[DB_SLEEP_LT25] = SLEEP_BUCKET_LT25,
			[DB_SLEEP_LT50] = SLEEP_BUCKET_LT50,
			[DB_SLEEP_GE50] = SLEEP_BUCKET_GE50,
		};
		for (int k = 0; k < DB_SLEEP_NBUCKETS; k++)
			d->buckets[k] = c->over.buckets[from[k]];
		d->missed = c->missed;
		d->wall_s = c->wall_s;
		d->cpu_s = c->cpu_s;
		d->cpu_pct = c->cpu_pct;
		d->cpu_us_per_call = c->cpu_us_per_call;
		d->user_us_per_call = c->user_us_per_call;
		d->sys_us_per_call = c->sys_us_per_call;
		d->vcsw_per_call = c->vcsw_per_call;
		d->ivcsw_per_call = c->ivcsw_per_call;
		d->cheapest = sleep_bench_cheapest(b, c->target_us,
						   SLEEP_CHEAP_P99_US) == c;
	}
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* The runs row: host, command, times, pin (ownership moves from plan). */
static void fill_run(struct db_run *run, int argc, char **argv,
		     struct pin_plan *plan, char *pin_cpus, const char *started)
{
	run_state_self(run, "sleep", argc, argv, started);
	run->pin.mode = plan->mode;
	plan->mode = NULL;
	run->pin.status = plan->apply ? strdup("applied") : plan->status;
	if (!plan->apply)
		plan->status = NULL;
	run->pin.cpus = pin_cpus;
	run->pin.level = plan->level;
	run->pin.cache_type = plan->cache_type;
	plan->cache_type = NULL;
	run->pin.size_bytes = plan->size_bytes;
	run->topology = plan->topology;
	plan->topology = NULL;
	if (!run->topology) {
		run->topology_fn = pin_plan_topology;
		run->topology_arg = plan;
	}
	if (plan->desc)
		db_set_str(run, SET_PIN_DESC, plan->desc);
}

/* ---------------------------------------------------------- options */

static void sleep_init(void *args)
{
	struct sleep_args *a = args;
	a->calls = 20000;
	a->threads = 1;
	a->pattern = SLEEP_ONESHOT;
}

static int parse_pattern(struct verb_ctx *vc, const char *arg, void *field)
{
	char *cause = NULL;
	if (sleep_pattern_parse(arg, field, &cause))
		return verb_usage_cause(vc, cause);
	return 0;
}

/* ------------------------------------------------------------- verb */

/* One benchmark: what its steps share. */
struct sleep_job {
	const struct sleep_args *a;
	struct sleep_bench_opts o;
	struct sleep_mode_spec *modes;
	uint32_t *durs;
	struct run_machine mach;
	struct db *db;			/* NULL: --no-store */
	FILE *fp;			/* the report's */
	struct pin_plan plan;
	char *pin_cpus;			/* the pin read back */
	struct sleep_bench bench;
	char started[32];
	struct rusage ru0, ru1;
	double wall;
	bool signalled;
};

/* The modes, durations and load asked for: 0, or EXIT_USAGE said. */
static int sleep_options(struct verb_ctx *vc, struct sleep_job *j)
{
	static const uint32_t default_durations[] = { 10, 20, 30, 40, 50, 60, 70 };
	const struct sleep_args *a = j->a;
	struct sleep_bench_opts *o = &j->o;
	char *cause = NULL;
	sleep_bench_opts_init(o);
	if (a->modes && sleep_modes_parse(a->modes, &j->modes, &o->nmodes, &cause))
		return verb_usage_cause(vc, cause);
	o->modes = j->modes;
	if (a->durations &&
	    sleep_durations_parse(a->durations, &j->durs, &o->ndurations, &cause))
		return verb_usage_cause(vc, cause);
	o->durations_us = j->durs ? j->durs : default_durations;
	if (!j->durs)
		o->ndurations = sizeof(default_durations) / sizeof(default_durations[0]);
	o->calls = (uint32_t)a->calls;
	o->threads = (uint32_t)a->threads;
	o->load = (uint32_t)a->load;
	o->pattern = a->pattern;
	return 0;
}

/*
 * The pin is settled first: a bad one is a usage error. --pin, the
 * affinity flags and PROF_CACHE_AFFINITY as for prof run. Then the
 * database is opened (before two minutes of measuring, not after) and the
 * report's output, and prof pins itself: every benchmark thread is
 * created after this, so inherits it. 0, or the exit code said.
 */
static int sleep_setup(struct verb_ctx *vc, struct sleep_job *j)
{
	int exit_code = pin_plan_for_launch(&j->plan, j->a->pin, vc->launch.affinity,
					    j->a->sysfs);
	if (exit_code)
		return exit_code;
	if (!j->a->no_store && !(j->db = verb_db(vc))) {
		fprintf(stderr, "hint: --no-store runs the benchmark without "
			"storing it\n");
		return EXIT_FAIL;
	}
	if (!(j->fp = verb_out(vc)))
		return EXIT_FAIL;
	const struct pin_plan *plan = &j->plan;
	if (plan->apply) {
		if (sched_setaffinity(0, plan->setsize, plan->set) != 0)
			return error_msg("cannot pin prof to CPUs %s (%s): %s", plan->cpus,
					 plan->mode, ERR_TEXT(errno));
		fprintf(cli_talk(), "prof: %s\n", plan->desc);
	}
	j->pin_cpus = pin_read_back(getpid());
	return 0;
}

/*
 * Every cell, timed, with a progress line. From its start a Ctrl-C or
 * SIGTERM ends the cell under way within one call (a cell of 20,000
 * calls of 100 ms runs 33 minutes) and drops it; the cells finished
 * before are stored and printed. Any signal after the first is only
 * noted, so the store cannot be cut short. The handler may wake a
 * sleeping thread early: only in a cell that is dropped anyway. The exit
 * code so far (128+N when a signal stopped it); *measured says whether
 * the cells it finished are to be kept.
 */
static int sleep_measure(struct sleep_job *j, bool *measured)
{
	struct sleep_bench_opts *o = &j->o;
	char *cause = NULL;
	struct progress pr = {
		.bench = &j->bench,
		.calls = o->calls, .durations = o->durations_us,
		.ndurations = o->ndurations,
		.total = (o->nmodes ? o->nmodes : SLEEP_BENCH_NMODES) * o->ndurations,
	};
	progress_line_init(&pr.line, cli_talk());
	o->progress = on_cell;
	o->progress_arg = &pr;
	char left[32];
	run_state_now_iso(j->started, sizeof(j->started));
	pr.t0 = mono_now_s();
	fmt_time(left, sizeof(left), time_left(&pr, 0));
	fprintf(cli_talk(), "prof: %zu cells of %u call%s on %u thread%s, about %s\n",
		pr.total, o->calls, o->calls == 1 ? "" : "s", o->threads,
		o->threads == 1 ? "" : "s", left);
	run_machine_begin(&j->mach, j->a->sysfs);
	getrusage(RUSAGE_SELF, &j->ru0);
	runner_hold_signals();
	o->stop = runner_stop_asked;
	int rc = sleep_bench_run(o, &j->bench, &cause);
	j->signalled = runner_stop_asked(NULL);
	getrusage(RUSAGE_SELF, &j->ru1);
	j->wall = mono_now_s() - pr.t0;
	if (pr.line.drawn)
		progress_line_clear(&pr.line);
	if (rc == 0 && j->bench.ncells == pr.total)
		j->signalled = false;	/* after the last cell: nothing lost */
	if (rc == -ECANCELED || (rc == 0 && j->signalled)) {
		fprintf(cli_talk(), "prof: interrupted after %zu of %zu cells (%.1f s)\n",
			j->bench.ncells, pr.total, j->wall);
		free(cause);
	} else if (rc) {
		return fail_cause(cause, exit_code_for(rc));
	} else {
		fprintf(cli_talk(), "prof: %zu cells in %.1f s\n", j->bench.ncells, j->wall);
	}
	*measured = true;
	return j->signalled ? runner_stop_exit_code() : EXIT_OK;
}

/* Store the cells (unless --no-store), then report them: the exit code,
 * from exit_code so far. */
static int sleep_store_and_report(struct verb_ctx *vc, struct sleep_job *j,
				  int exit_code)
{
	struct db_run run;
	struct db_sleep s;
	char *cause = NULL;
	fill_run(&run, vc->full_argc, vc->full_argv, &j->plan, j->pin_cpus, j->started);
	j->pin_cpus = NULL;
	run.wall_s = j->wall;
	run.user_s = tv_s(j->ru1.ru_utime) - tv_s(j->ru0.ru_utime);
	run.sys_s = tv_s(j->ru1.ru_stime) - tv_s(j->ru0.ru_stime);
	run.interrupted = j->signalled;
	run.exit_status = exit_code;
	run_machine_end(&j->mach, &run);
	bench_to_db(&j->bench, &s);
	if (!s.cells) {
		exit_code = error_msg("out of memory");
	} else if (j->db) {
		if (db_sleep_store(j->db, &run, &s, &cause)) {
			print_cause("error: ", cause);
			fprintf(stderr, "hint: the report below is all that is "
				"left of this run; save it with -o FILE next time\n");
			free(cause);
			if (exit_code == EXIT_OK)
				exit_code = EXIT_FAIL;
		} else {
			fprintf(cli_talk(), "prof: stored as run %lld; 'prof report "
				"%lld' prints it again\n", (long long)run.id,
				(long long)run.id);
		}
	}
	if (s.cells) {
		report_sleep(&run, &s, vc->fmt, j->fp);
		if (verb_out_close(vc) && exit_code == EXIT_OK)
			exit_code = EXIT_FAIL;
	}
	db_sleep_release(&s);
	db_run_release(&run);
	return exit_code;
}

static int cmd_sleep(struct verb_ctx *vc)
{
	struct sleep_job job, *j = &job;
	memset(j, 0, sizeof(*j));
	j->a = vc->args;
	int exit_code = sleep_options(vc, j);
	if (exit_code) {
		free(j->modes);
		return exit_code;
	}
	bool measured = false;
	if (!(exit_code = sleep_setup(vc, j)))
		exit_code = sleep_measure(j, &measured);
	if (measured && j->bench.ncells)
		exit_code = sleep_store_and_report(vc, j, exit_code);
	run_machine_end(&j->mach, NULL);
	runner_release_signals();
	sleep_bench_release(&j->bench);
	free(j->pin_cpus);
	pin_plan_release(&j->plan);
	free(j->modes);
	free(j->durs);
	return exit_code;
}

static const char sleep_help[] =
"usage: prof sleep [--modes LIST] [--durations LIST] [--calls N]\n"
"                  [--threads N] [--pattern oneshot|periodic] [--load N]\n"
"                  [--pin MODE | --cache-affinity | --no-cache-affinity]\n"
"                  [--format table|json|csv|markdown] [-o FILE]\n"
"                  [--db PATH] [--no-store]\n"
"\n"
"Measure how far past their target short sleeps wake, per mode and\n"
"duration, and what each mode costs in CPU: for every (mode, duration)\n"
"cell, N calls on each sleeping thread, overshoot percentiles (p50, p90,\n"
"p99, p99.9, max) in us, early wakes, how many calls overshot by under 3,\n"
"10, 25, 50 us and by 50 us or more, CPU as a share of wall time and per\n"
"call, and context switches per call. The header says what shaped the\n"
"numbers: timer slack, scheduling policy, clocksource, pin and load. A last\n"
"line names, for each duration, the cheapest mode whose p99 overshoot is\n"
"under 10 us. The run is stored (kind sleep); 'prof report RUN' reprints\n"
"it. Progress goes to stderr; Ctrl-C or SIGTERM stops at once, drops the\n"
"cell under way, keeps the cells finished before (the run is marked\n"
"interrupted) and exits 128 + the signal (130, 143); a second one is only\n"
"noted, so that nothing stored is lost.\n"
"\n"
"Modes:\n"
"  nanosleep   nanosleep with the default timer slack (50 us)\n"
"  slack1      nanosleep after PR_SET_TIMERSLACK of 1 ns\n"
"  clock-abs   clock_nanosleep on an absolute CLOCK_MONOTONIC deadline\n"
"  timerfd     a timerfd per thread, re-armed for each call\n"
"  condvar     pthread_cond_timedwait on CLOCK_MONOTONIC, never signalled\n"
"  yield       sched_yield until the deadline\n"
"  spin        busy-wait until the deadline\n"
"  hybrid[:US] timerfd to US before the deadline, then spin; without US\n"
"              the margin is calibrated first (timerfd p99.9 + 2 us, at\n"
"              most 100 us) and printed\n"
"\n";

static const char sleep_tail[] =
"The defaults (8 modes x 7 durations x 20,000 calls) take about two\n"
"minutes.\n"
"\n"
"Examples:\n"
"  prof sleep\n"
"  prof sleep --modes timerfd,hybrid:5,spin --durations 20,50 --threads 4\n"
"  prof sleep --modes clock-abs --pattern periodic --durations 100 --format json\n"
"  prof sleep --format svg -o sleep.svg   # overshoot CDFs and CPU per call\n"
"  # condvar waits of 1 ms as the sleep interposer serves them:\n"
"  prof run --sleep-mode slack1,threshold=2000 -- \\\n"
"      prof sleep --no-store --modes condvar --durations 1000\n";

static const struct opt sleep_opts[] = {
	OPT_STRING(0, "modes", struct sleep_args, modes, "LIST",
		   "comma-separated modes (default: all eight)"),
	OPT_STRING(0, "durations", struct sleep_args, durations, "LIST",
		   "targets in us, 1..100000 (default 10,20,30,40,50,60,70)"),
	OPT_LONG(0, "calls", struct sleep_args, calls, "N", 1, SLEEP_CALLS_MAX, NULL,
		 "calls per thread per cell (default 20000)"),
	OPT_LONG(0, "threads", struct sleep_args, threads, "N", 1, SLEEP_THREADS_MAX,
		 NULL, "threads sleeping at once (default 1)"),
	OPT_CALLBACK(0, "pattern", struct sleep_args, pattern, "P", parse_pattern,
		     "oneshot: each call sleeps the duration from now\n"
		     "(default); periodic: absolute deadlines a duration\n"
		     "apart, as a frame loop sleeps"),
	OPT_LONG(0, "load", struct sleep_args, load, "N", 0, SLEEP_LOAD_MAX, NULL,
		 "busy threads spinning in the background (default 0)"),
	OPT_STRING(0, "pin", struct sleep_args, pin, "MODE",
		   "pin prof (and so every benchmark thread) first: none,\n"
		   "largest-llc, llc:N, l2:N, node:N, cpus:LIST"),
	OPT_INCLUDE(opt_cache_affinity),
	OPT_STRING(0, "sysfs", struct sleep_args, sysfs, "ROOT",
		   "read the topology for --pin below ROOT instead of /"),
	OPT_BOOL(0, "no-store", struct sleep_args, no_store, "do not store the run"),
	OPT_INCLUDE(opt_quiet),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

VERB(sleep, sleep_args, .init = sleep_init, .max_operands = 0);
