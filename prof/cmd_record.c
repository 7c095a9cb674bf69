/*
 * prof record: sample a launched command with call stacks, per thread,
 * through the same inherited events and ring buffer as prof run; unwind
 * and symbolize on a worker thread while it runs; store the run (its
 * counts too) with its samples; print where the time went on stderr.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/counters.h"
#include "collectors/events.h"
#include "collectors/jitdump.h"
#include "collectors/recorder.h"
#include "collectors/srcline.h"
#include "collectors/unwind.h"
#include "common/cause.h"
#include "common/errtext.h"
#include "db/samples.h"
#include "prof/progress.h"
#include "prof/run/run.h"
#include "prof/runutil.h"
#include "prof/verb.h"
#include "reports/flame.h"
#include "reports/profile.h"
#include "reports/runs.h"

struct record_args {
	const char *events;
	long freq, period;	/* 0: not given */
	enum call_graph cg;
	long stack_bytes;
	long limit;
	bool mangled;
	bool icicle;
	bool allow_incomplete;
	bool allow_generic;
	const char *dump;
	const char *debug_dir;
	bool debuginfod;
	bool no_kernel;
	enum sym_lines lines;
	int interval_ms;	/* -I; 0: off */
	bool simulate;		/* --simulate: each function's costs in the model */
	const char *cache;	/* --cache SPEC for --simulate, or NULL */
};

static void record_init(void *args)
{
	struct record_args *a = args;
	a->cg = CALL_GRAPH_FP;
	a->stack_bytes = UNWIND_STACK_DEFAULT;
	a->limit = 10;
	a->lines = SYM_LINES_OWN;
}

/* --lines none|own|all. */
static int parse_lines(struct verb_ctx *vc, const char *word, void *field)
{
	struct record_args *a = vc->args;
	char buf[64];
	(void)field;
	if (!strcmp(word, "none"))
		a->lines = SYM_LINES_NONE;
	else if (!strcmp(word, "own"))
		a->lines = SYM_LINES_OWN;
	else if (!strcmp(word, "all"))
		a->lines = SYM_LINES_ALL;
	else
		return usage_error(vc->name, "bad --lines '%s': expected none, own or all",
				   cli_echo(word, buf, sizeof(buf)));
	return 0;
}

/* "none", "fp", "dwarf" or "dwarf,BYTES". */
static int parse_call_graph(struct verb_ctx *vc, const char *word, void *field)
{
	struct record_args *a = vc->args;
	(void)field;
	char buf[64];
	const char *comma = strchr(word, ',');
	size_t len = comma ? (size_t)(comma - word) : strlen(word);
	if (len == 4 && !strncmp(word, "none", 4) && !comma)
		a->cg = CALL_GRAPH_NONE;
	else if (len == 2 && !strncmp(word, "fp", 2) && !comma)
		a->cg = CALL_GRAPH_FP;
	else if (len == 5 && !strncmp(word, "dwarf", 5))
		a->cg = CALL_GRAPH_DWARF;
	else
		return usage_error(vc->name, "bad --call-graph '%s': expected none, fp, "
				   "dwarf or dwarf,STACK_BYTES",
				   cli_echo(word, buf, sizeof(buf)));
	if (!comma)
		return 0;
	long v;
	if (!cli_parse_long(comma + 1, 1, LONG_MAX, &v) || v % 8 || v > UNWIND_STACK_MAX)
		return usage_error(vc->name, "bad stack size '%s': expected a multiple "
				   "of 8 from 8 to %u bytes (the kernel's limit for "
				   "one sample), e.g. dwarf,16384",
				   cli_echo(comma + 1, buf, sizeof(buf)), UNWIND_STACK_MAX);
	a->stack_bytes = v;
	return 0;
}

/* What the table cannot check alone: --freq against --period and the
 * kernel's limit. */
static int record_check(struct verb_ctx *vc, struct record_args *a)
{
	if (a->freq && a->period)
		return usage_error(vc->name, "give either --freq or --period, not both");
	if (!a->freq && !a->period)
		a->freq = 1000;
	if (a->freq) {
		long max = recorder_max_sample_rate();
		if (max > 0 && a->freq > max) {
			fprintf(stderr, "error: bad --freq '%ld': above the kernel's "
				"limit of %ld samples per second "
				"(/proc/sys/kernel/perf_event_max_sample_rate)\n"
				"hint: use --freq %ld or less, or --period; as root, "
				"raise the limit with sysctl -w "
				"kernel.perf_event_max_sample_rate=%ld\n",
				a->freq, max, max, a->freq);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* ---- choosing what to sample and count ---------------------------- */

/*
 * The sampled events: -e, each of which must be samplable here (exit 1
 * naming it otherwise), or cycles where it is, else cpu-clock.
 */
static int choose_samplers(const struct record_args *a, const struct sample_plan *plan,
			   struct event_desc **evs, size_t *nev,
			   struct sampler_desc **sds)
{
	char *cause = NULL;
	enum event_flags flags = a->allow_generic ? EVENT_ALLOW_GENERIC : 0;
	int rc = event_list_parse(a->events ? a->events : "cycles", flags, evs, nev,
				  &cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	*sds = calloc(*nev, sizeof(**sds));
	for (size_t i = 0; i < *nev; i++) {
		recorder_sampler_desc(&(*evs)[i], plan, &(*sds)[i]);
		rc = recorder_probe((*evs)[i].name, &(*sds)[i].attr, (*evs)[i].hardware,
				    &cause);
		if (!rc)
			continue;
		if (a->events) {
			print_cause("error: ", cause);
			free(cause);
			return EXIT_FAIL;
		}
		/* The default: say why cycles is not used. */
		char *why = cause ? strndup(cause, strcspn(cause, "\n")) : NULL;
		free(cause);
		cause = NULL;
		event_list_free(*evs, *nev);
		free(*sds);
		rc = event_list_parse("cpu-clock", 0, evs, nev, &cause);
		if (rc) {
			free(why);
			print_cause("error: ", cause);
			free(cause);
			return EXIT_FAIL;
		}
		*sds = calloc(*nev, sizeof(**sds));
		recorder_sampler_desc(&(*evs)[0], plan, &(*sds)[0]);
		fprintf(cli_talk(), "prof: sampling cpu-clock (%s)\n",
			why ? why : "cycles cannot be sampled here");
		free(why);
		rc = recorder_probe("cpu-clock", &(*sds)[0].attr, false, &cause);
		if (rc) {
			print_cause("error: ", cause);
			free(cause);
			return EXIT_FAIL;
		}
		return 0;
	}
	if (!a->events)
		fprintf(cli_talk(), "prof: sampling cycles\n");
	return 0;
}

/* The counted events: the sampled ones and task-clock. */
static int counted_events(const struct event_desc *sev, size_t ns,
			  enum event_flags flags, struct event_desc **evs,
			  size_t *nev, char **spec_out)
{
	size_t len = 0;
	char *spec = NULL;
	FILE *fp = open_memstream(&spec, &len);
	bool have_tc = false;
	for (size_t i = 0; i < ns; i++) {
		fprintf(fp, "%s%s", i ? "," : "", sev[i].name);
		have_tc = have_tc || !strcmp(sev[i].name, "task-clock");
	}
	if (!have_tc)
		fprintf(fp, "%stask-clock", ns ? "," : "");
	fclose(fp);
	char *cause = NULL;
	int rc = event_list_parse(spec, flags, evs, nev, &cause);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		free(spec);
		return EXIT_FAIL;
	}
	*spec_out = spec;
	return 0;
}

/* ---- debug files ----------------------------------------------------------- */

#define DEBUG_NOTES_MAX 5

struct debug_notes {
	size_t found, missing;
	bool debuginfod_skipped;
};

/* -v: where each debug file came from. */
static int note_found(void *arg, const struct sym_module_info *mi)
{
	struct debug_notes *dn = arg;
	if (!mi->debug_path || !mi->lookups)
		return 0;
	dn->found++;
	if (verbose > 0)
		fprintf(cli_talk(), "prof: symbols of '%s' from its debug file '%s' (%s)\n",
			mi->path, mi->debug_path, debuginfo_via_name(mi->via));
	return 0;
}

/* A stripped module with unnamed addresses and no debug file: say what
 * was looked for, so the user can put the file there. */
static int note_missing(void *arg, const struct sym_module_info *mi)
{
	struct debug_notes *dn = arg;
	if (mi->has_symtab || mi->debug_path || !mi->unknown || !mi->debug_note)
		return 0;
	if (dn->missing++ == 0)
		fprintf(cli_talk(), "prof: stripped modules with unnamed code, and no debug file:\n");
	if (dn->missing <= DEBUG_NOTES_MAX)
		fprintf(cli_talk(), "  '%s' (%llu of %llu addresses unnamed): %s\n", mi->path,
			(unsigned long long)mi->unknown,
			(unsigned long long)mi->lookups, mi->debug_note);
	if (strstr(mi->debug_note, "debuginfod not asked"))
		dn->debuginfod_skipped = true;
	return 0;
}

/*
 * After the run: name the modules whose code stayed unnamed for want of
 * a debug file, and how to supply one; lookups skipped (debuginfod
 * without DEBUGINFOD_URLS or --debuginfod) are said, never silent.
 */
static void print_debug_notes(struct recorder *rec, const struct record_args *a)
{
	struct symbolizer *sym = recorder_symbolizer(rec);
	struct debug_notes dn = { 0 };
	symbolizer_for_each_module(sym, note_found, &dn);
	symbolizer_for_each_module(sym, note_missing, &dn);
	if (dn.missing > DEBUG_NOTES_MAX)
		fprintf(cli_talk(), "  and %zu more\n", dn.missing - DEBUG_NOTES_MAX);
	if (!dn.missing)
		return;
	hint_msg("install their debug packages (libc6-dbg, *-dbgsym), or point "
		 "--debug-dir at a tree holding .build-id/xx/rest.debug%s",
		 dn.debuginfod_skipped
		 ? (a->debuginfod ? "; set DEBUGINFOD_URLS for --debuginfod"
				  : "; with DEBUGINFOD_URLS set, --debuginfod asks its servers")
		 : "");
}

/*
 * Say when kernel frames are missing or unnamed for a reason the user
 * may not know: the kernel refused kernel samples (perf_event_paranoid),
 * or kallsyms hides its addresses (kptr_restrict).
 */
static void print_kernel_notes(struct recorder *rec, const struct recorder_stats *st,
			       const struct record_args *a, bool user_only)
{
	if (user_only && !a->no_kernel) {
		fprintf(cli_talk(), "prof: kernel frames were not recorded: at "
			"perf_event_paranoid %d this user may sample user code only\n",
			counters_paranoid());
		hint_msg("as root: sysctl -w kernel.perf_event_paranoid=1, or run prof "
			 "with CAP_PERFMON; --no-kernel says you want none");
	}
	if (st->kernel_frames &&
	    symbolizer_kernel_state(recorder_symbolizer(rec)) != SYM_KERNEL_NAMED) {
		int kr = sym_kptr_restrict();
		fprintf(cli_talk(), "prof: %llu kernel frames are not named: /proc/kallsyms "
			"shows no addresses to this user", (unsigned long long)st->kernel_frames);
		if (kr > 0)
			fprintf(cli_talk(), " (kernel.kptr_restrict is %d)", kr);
		fputc('\n', cli_talk());
		hint_msg("as root: sysctl -w kernel.kptr_restrict=0, or run prof as root; "
			 "--no-kernel drops kernel frames");
	}
}

/* What each jitdump held: how much code, how often a region was
 * rewritten (each time a new generation of code at one address), how
 * fast the JIT emitted; and when its times could not be set against the
 * samples'. */
static int note_jitdump(void *arg, uint32_t pid, const char *path,
			const struct jitdump_stats *st)
{
	(void)arg;
	double span = st->last_time > st->first_time
		      ? (double)(st->last_time - st->first_time) / 1e9 : 0;
	fprintf(cli_talk(), "prof: jitdump '%s' of pid %u: %llu code loads, %llu moves, "
		"%llu rewrites (up to generation %u), %llu bytes of code", path, pid,
		(unsigned long long)st->loads, (unsigned long long)st->moves,
		(unsigned long long)st->rewrites, st->max_generation,
		(unsigned long long)st->code_bytes);
	if (span > 0 && !st->arch_time)
		fprintf(cli_talk(), " in %.3f s (%.0f bytes/s)", span,
			(double)st->code_bytes / span);
	fputc('\n', cli_talk());
	if (st->arch_time)
		fprintf(cli_talk(), "prof: jitdump '%s' counts time in TSC ticks: its code is "
			"named by the last load at each address, whatever the sample's "
			"time\n", path);
	return 0;
}

/* ---- the verb ------------------------------------------------------------ */

/*
 * The samples of a frame window (the run's window_start_s and
 * window_end_s, set by the frames collector once it knew the frames):
 * those outside it are left out, and the events' counts lowered by them.
 * A window not reached keeps them all, as it keeps the counts. 0, or
 * -errno with *cause.
 */
static int frame_window_samples(struct sample_sink *sk, struct db_run *run,
				uint64_t t0, struct db_sample_event *evs, size_t nev,
				char **cause)
{
	const char *a = db_get_text(run, SET_WINDOW_START_S);
	const char *b = db_get_text(run, SET_WINDOW_END_S);
	const char *w = db_get_str(run, SET_WINDOW);
	if (!a || !b || !w || !strncmp(w, "not ", 4))
		return 0;
	uint64_t *n = calloc(nev + 1, sizeof(*n)), *wt = calloc(nev + 1, sizeof(*wt));
	if (!n || !wt) {
		free(n);
		free(wt);
		return cause_set(cause, ENOMEM, "out of memory");
	}
	int rc = db_sample_keep_between(sk->w, t0 + (uint64_t)(atof(a) * 1e9),
					t0 + (uint64_t)(atof(b) * 1e9), nev, n, wt, cause);
	uint64_t out = 0;
	for (size_t e = 0; !rc && e < nev; e++) {
		evs[e].samples = evs[e].samples > n[e] ? evs[e].samples - n[e] : 0;
		evs[e].weight = evs[e].weight > wt[e] ? evs[e].weight - wt[e] : 0;
		out += n[e];
	}
	if (!rc)
		db_set_u64(run, SET_WINDOW_SAMPLES_LEFT_OUT, out);
	free(n);
	free(wt);
	return rc;
}

/*
 * The stored run's hottest symbols (of sample event `event`, -1: each),
 * or its flame graph with --format svg, where the report goes: 0, or -1
 * when it could not be written. A profile that cannot be read back is
 * said and is no failure: the run is stored.
 */
static int print_profile(struct verb_ctx *vc, struct db *db, const struct db_run *run,
			 const struct record_args *a, int event)
{
	struct db_profile prof;
	char *cause = NULL;
	if (db_profile_load(db, run->id, &prof, &cause)) {
		print_cause("error: ", cause);
		free(cause);
		return 0;	/* stored all the same: only the print is missing */
	}
	FILE *fp = verb_out(vc);
	if (fp) {
		struct profile_opts po = {
			.by = PROFILE_BY_SYMBOL, .event = event,
			.limit = (size_t)a->limit, .fmt = vc->fmt, .mangled = a->mangled,
		};
		if (vc->fmt == OUT_SVG)
			report_flame(run, &prof, &po, a->icicle, fp);
		else
			report_profile(run, &prof, &po, fp);
	}
	int rc = !fp || verb_out_close(vc) ? -1 : 0;
	db_profile_release(&prof);
	return rc;
}

/* ---- --simulate: each function's costs in valgrind's model ------------- */

/* Ids for the writer: one module per object, one symbol (and its frame
 * and one-frame stack, all of that id) per (object, function). */
struct sim_ids {
	char **obj;
	size_t nobj;
	struct { uint32_t obj; const char *name; } *sym;
	size_t nsym;
};

static uint32_t sim_obj_id(struct sim_ids *ix, struct db_sample_writer *w,
			   const char *obj, int *rc, char **cause)
{
	for (size_t i = 0; i < ix->nobj; i++)
		if (!strcmp(ix->obj[i], obj))
			return (uint32_t)i + 1;
	char **v = realloc(ix->obj, (ix->nobj + 1) * sizeof(*v));
	if (!v || !(v[ix->nobj] = strdup(obj))) {
		if (v)
			ix->obj = v;
		*rc = -ENOMEM;
		return 0;
	}
	ix->obj = v;
	uint32_t id = (uint32_t)++ix->nobj;
	*rc = db_sample_put_module(w, id, obj, NULL, cause);
	return id;
}

static uint32_t sim_sym_id(struct sim_ids *ix, struct db_sample_writer *w,
			   uint32_t obj, const char *name, int *rc, char **cause)
{
	for (size_t i = ix->nsym; i-- > 0;)
		if (ix->sym[i].obj == obj && !strcmp(ix->sym[i].name, name))
			return (uint32_t)i + 1;
	void *v = realloc(ix->sym, (ix->nsym + 1) * sizeof(*ix->sym));
	if (!v) {
		*rc = -ENOMEM;
		return 0;
	}
	ix->sym = v;
	ix->sym[ix->nsym].obj = obj;
	ix->sym[ix->nsym].name = name;	/* borrowed from the functions */
	uint32_t id = (uint32_t)++ix->nsym;
	*rc = db_sample_put_symbol(w, id, obj, name, cause);
	if (!*rc)
		*rc = db_sample_put_frame(w, id, id, 0, cause);
	if (!*rc)
		*rc = db_sample_put_stack(w, id, 0, id, cause);
	return id;
}

/*
 * Each function's self costs as samples of the model's events, weighed
 * by the cost: a thread's row where valgrind's thread is known to be it,
 * none where several threads shared its slot (their costs then count in
 * the by-symbol views, on no thread). 0 or -errno with *cause.
 */
static int sim_put_samples(struct db_sample_writer *w, const struct db_run *run,
			   const struct run_sim_fns *fns, size_t nfns, uint64_t time,
			   uint64_t totals[SIM_NEVENTS], uint64_t counts[SIM_NEVENTS],
			   char **cause)
{
	struct sim_ids ix = { 0 };
	int rc = 0;
	for (size_t k = 0; k < nfns && !rc; k++) {
		const struct run_sim_fns *f = &fns[k];
		int32_t tid = f->thread >= 0 ? run->threads[f->thread].tid : -1;
		for (size_t i = 0; i < f->n && !rc; i++) {
			uint32_t ob = sim_obj_id(&ix, w, f->fn[i].object, &rc, cause);
			uint32_t sym = rc ? 0 : sim_sym_id(&ix, w, ob, f->fn[i].name, &rc, cause);
			for (uint32_t e = 0; e < SIM_NEVENTS && !rc; e++) {
				if (!f->fn[i].v[e])
					continue;
				struct db_sample s = { .pid = f->pid, .tid = tid, .time = time,
						       .event = e, .weight = f->fn[i].v[e],
						       .stack = sym };
				rc = db_sample_put(w, &s, cause);
				totals[e] += f->fn[i].v[e];
				counts[e]++;
			}
		}
	}
	if (rc == -ENOMEM && cause && !*cause)
		*cause = strdup("out of memory");
	for (size_t i = 0; i < ix.nobj; i++)
		free(ix.obj[i]);
	free(ix.obj);
	free(ix.sym);
	return rc;
}

/*
 * prof record --simulate: the command under callgrind as prof run
 * --simulate runs it (prof/run/runsim.h), its threads' simulated counts
 * stored like any run's, and each function's self cost of every
 * simulated event stored as samples weighed by that cost, so that
 * prof report --by symbol -e llc-misses says where the model's misses
 * fall. No stacks: callgrind's costs are per function, not per path.
 */
static int record_simulated(struct verb_ctx *vc, const struct record_args *a)
{
	const struct launch_args *l = &vc->launch;
	char *cause = NULL;
	struct run_sim sim;
	int rc = run_sim_prepare(&sim, vc->argv, a->cache, l->sysfs, &cause);
	if (rc)
		return fail_cause(cause, rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL);
	struct event_desc *cev = NULL;
	size_t ncev = 0;
	int exit_code = EXIT_OK;
	rc = event_list_parse(RUN_SIM_EVENTS, 0, &cev, &ncev,
			      &cause);
	if (rc) {
		exit_code = fail_cause(cause, exit_code_for(rc));
		goto out_sim;
	}
	struct db *db = verb_db(vc);
	struct db_sample_writer *w = NULL;
	if (!db || db_sample_writer_new(db, &w, &cause)) {
		if (cause)
			print_cause("error: ", cause);
		free(cause);
		fprintf(stderr, "hint: prof record keeps its samples in the database: "
			"nothing was run\n");
		exit_code = EXIT_FAIL;
		goto out_events;
	}
	struct runner_opts opts = {
		.argv = sim.argv, .argc = sim.argc, .timeout_s = l->timeout,
		.sysfs_root = l->sysfs, .evs = cev, .nev = ncev, .out_fd = -1,
		.kind = "record",
	};
	runner_hold_signals();
	db_set_busy_stop(db, runner_late_signal, NULL);
	struct db_run run;
	struct run_sim_fns *fns = NULL;
	size_t nfns = 0;
	rc = runner_run(&opts, &run, &cause);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		exit_code = exit_code_for_launch(rc);
		goto out_writer;
	}
	if ((rc = run_sim_fill(&sim, &run, vc->argv, vc->argc, &fns, &nfns, &cause))) {
		print_cause("error: ", cause);
		free(cause);
		fprintf(stderr, "hint: the run was not stored\n");
		db_run_release(&run);
		exit_code = EXIT_FAIL;
		goto out_writer;
	}
	uint64_t totals[SIM_NEVENTS] = { 0 }, counts[SIM_NEVENTS] = { 0 };
	/* After every thread's start: each sample finds its thread's row. */
	uint64_t now = (uint64_t)(mono_now_s() * 1e9);
	rc = sim_put_samples(w, &run, fns, nfns, now, totals, counts, &cause);
	struct db_sample_event evs[SIM_NEVENTS];
	for (size_t e = 0; e < SIM_NEVENTS; e++)
		evs[e] = (struct db_sample_event){
			.name = (char *)sim_event_names[e], .attr_type = SIM_ATTR_TYPE,
			.attr_config = e, .call_graph = (char *)"none",
			.samples = counts[e], .weight = totals[e],
		};
	db_set_str(&run, SET_EVENTS, RUN_SIM_EVENTS);
	db_set_str(&run, SET_SAMPLED_EVENTS, "simulated");
	db_set_str(&run, SET_CALL_GRAPH, "none");
	char *note = NULL;
	if (asprintf(&note, "%s%ssimulated: a sample is one function's own cost of "
		     "one event in the model, weighed by it (no call stacks)",
		     run.note ? run.note : "", run.note ? "\n" : "") >= 0) {
		free(run.note);
		run.note = note;
	}
	if (!rc)
		rc = db_sample_store_run(w, &run, evs, SIM_NEVENTS, &cause);
	if (rc) {
		run.id = 0;
		bool in_file = run_state_print(vc, &run, BY_THREAD, vc->fmt, true) &&
			       vc->out_path;
		run_state_not_stored(cause, in_file ? vc->out_path : NULL);
		free(cause);
		cause = NULL;
		exit_code = EXIT_FAIL;
	} else if ((!l->quiet || vc->out_path) &&
		   print_profile(vc, db, &run, a, SIM_LLC_MISSES)) {
		exit_code = EXIT_FAIL;
	}
	if (exit_code == EXIT_OK)
		exit_code = run.exit_status;
	exit_code = run_incomplete_exit(&run, a->allow_incomplete, exit_code);
	db_run_release(&run);
out_writer:
	run_sim_fns_free(fns, nfns);
	db_sample_writer_free(w);
	{
		int late = runner_release_signals();
		if (late)
			exit_code = EXIT_SIGNAL + late;
	}
out_events:
	event_list_free(cev, ncev);
out_sim:
	run_sim_release(&sim);
	return exit_code;
}

/* --simulate: what it does not go with, else the simulated record.
 * Returns the exit code. */
static int record_simulate_checked(struct verb_ctx *vc, const struct record_args *a)
{
	const struct launch_args *l = &vc->launch;
	const char *no = l->pid ? "-p (it runs under valgrind from its start)"
			 : a->events ? "-e (it records the model's six events)"
			 : a->freq || a->period ? "--freq and --period (the model's "
			   "costs are exact per function, not sampled)"
			 : a->interval_ms || frame_args_any(&vc->frame) ||
			   l->window ? "-I, frames and --window (they count the real "
			   "machine, and would count valgrind)"
			 : a->dump ? "--record-dump (no ring buffer is read)" : NULL;
	if (no)
		return usage_error(vc->name, "--simulate does not go with %s", no);
	return record_simulated(vc, a);
}

/* One sampled run: what prof record's steps share. */
struct record_job {
	const struct record_args *a;
	long mmap_pages;
	struct sample_plan plan;
	struct event_desc *sev, *cev;	/* sampled, counted */
	size_t nsev, ncev;
	struct sampler_desc *sds;
	char *counted_spec;
	struct pin_plan pin;
	struct db *db;
	struct sample_sink sk;
	struct recorder *rec;
	FILE *dump;			/* --record-dump, or NULL */
	struct record_coll oc;
};

/* What to sample and count, and the pin (a launched command only: a bad
 * one is a usage error), all before anything starts. The exit code. */
static int record_choose(struct verb_ctx *vc, struct record_job *j)
{
	const struct record_args *a = j->a;
	const struct launch_args *l = &vc->launch;
	j->plan = (struct sample_plan){
		.period = (uint64_t)a->period, .freq = (uint64_t)a->freq,
		.call_graph = a->cg, .stack_bytes = (uint32_t)a->stack_bytes,
		.no_kernel = a->no_kernel,
	};
	int exit_code = choose_samplers(a, &j->plan, &j->sev, &j->nsev, &j->sds);
	if (exit_code)
		return exit_code;
	exit_code = counted_events(j->sev, j->nsev,
				   a->allow_generic ? EVENT_ALLOW_GENERIC : 0, &j->cev,
				   &j->ncev, &j->counted_spec);
	if (exit_code)
		return exit_code;
	if (l->pid)
		pin_note_attach(l->pid, l->affinity);
	if (!l->pid)
		return pin_plan_for_launch(&j->pin, l->pin, l->affinity, l->sysfs);
	return EXIT_OK;
}

/*
 * Where the samples go: the database (opened first: a failure stops
 * before the command starts), the sink into it, the recorder, and the
 * record dump. The exit code.
 */
static int record_open(struct record_job *j, struct verb_ctx *vc)
{
	const struct record_args *a = j->a;
	char *cause = NULL;
	if (!(j->db = verb_db(vc))) {
		fprintf(stderr, "hint: prof record keeps its samples in the database: "
			"nothing was run; use --db PATH to write elsewhere\n");
		return EXIT_FAIL;
	}
	if (sample_sink_init(&j->sk, j->db, j->nsev, &cause))
		return fail_cause(cause, EXIT_FAIL);
	struct recorder_opts ro = {
		.call_graph = a->cg, .nevents = j->nsev, .sink = sample_sink_ops(&j->sk),
		.lines = a->lines,
		.debug_dir = a->debug_dir, .debuginfod = a->debuginfod,
		.no_kernel = a->no_kernel,
	};
	char *why = NULL;
	if (unwinder_load(&why)) {
		int rc = error_msg("cannot set up the recorder: %s", why ? why : "no libunwind");
		hint_msg("prof record unwinds with libunwind (Debian and Ubuntu: "
			 "apt-get install libunwind8)");
		free(why);
		return rc;
	}
	if (a->lines != SYM_LINES_NONE && srcline_load(&why)) {
		warning_msg("%s: source lines are not looked up (--by line shows '?')",
			    why ? why : "no libdw");
		hint_msg("prof reads lines with elfutils' libdw (Debian and Ubuntu: "
			 "apt-get install libdw1)");
		free(why);
		why = NULL;
	}
	if (!(j->rec = recorder_new(&ro)))
		return error_msg("cannot set up the recorder: %s", ERR_TEXT(errno));
	if (a->dump && !(j->dump = fopen(a->dump, "wb"))) {
		char buf[64];
		return error_msg("cannot open '%s' for writing: %s",
				 cli_echo(a->dump, buf, sizeof(buf)), ERR_TEXT(errno));
	}
	j->oc = (struct record_coll){ .rec = j->rec, .sev = j->sev, .sds = j->sds,
				      .nsev = j->nsev };
	return EXIT_OK;
}

/* Run it with the recorder as its collector: 0, or the exit code said
 * (nothing stored then). */
static int record_run(struct verb_ctx *vc, struct record_job *j, struct db_run *run)
{
	const struct launch_args *l = &vc->launch;
	const struct record_args *a = j->a;
	char *cause = NULL;
	struct runner_opts opts = {
		.argv = l->pid ? NULL : vc->argv, .argc = l->pid ? 0 : vc->argc,
		.attach_pid = (pid_t)l->pid, .duration_s = l->duration,
		.timeout_s = l->timeout,
		.sysfs_root = l->sysfs,
		.evs = j->cev, .nev = j->ncev, .plan = l->pid ? NULL : &j->pin, .out_fd = -1,
		.mmap_pages = (size_t)j->mmap_pages, .kind = "record",
		.record_dump = j->dump,
		.interval_ms = (unsigned)a->interval_ms,
		.window = l->win,
		.frame = vc->frame,
		.collector = &collect_record, .collector_arg = &j->oc,
	};
	/* As for prof run: a signal while storing stops a wait on a lock,
	 * and prof exits 128+N after printing. */
	runner_hold_signals();
	db_set_busy_stop(j->db, runner_late_signal, NULL);
	int rc = runner_run(&opts, run, &cause);
	if (j->dump && fclose(j->dump) != 0 && !rc)
		warning_msg("the record dump '%s' is incomplete", a->dump);
	j->dump = NULL;
	if (rc)
		return fail_cause(cause, l->pid ? EXIT_FAIL : exit_code_for_launch(rc));
	if (j->oc.err) {
		/* The workload ran unsampled: nothing worth storing. */
		print_cause("error: ", j->oc.cause ? j->oc.cause : ERR_TEXT(j->oc.err));
		fprintf(stderr, "hint: nothing of this run was stored\n");
		db_run_release(run);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* How the run was sampled, as its settings; and what was lost. */
static void record_settings(const struct record_job *j, struct db_run *run,
			    const struct recorder_stats *st)
{
	const struct record_args *a = j->a;
	const char *sampled = a->events ? a->events : j->sev[0].name;
	db_set_str(run, SET_EVENTS, j->counted_spec);
	db_set_str(run, SET_SAMPLED_EVENTS, sampled);
	db_set_str(run, SET_CALL_GRAPH, call_graph_name(a->cg));
	db_set_i64(run, a->freq ? SET_FREQ : SET_PERIOD, a->freq ? a->freq : a->period);
	/* 1 or more (--mmap-pages, or 256 or 1024): %llu writes what %ld
	 * did. */
	db_set_u64(run, SET_MMAP_PAGES, (uint64_t)j->mmap_pages);
	/* The launch on the samples' clock (CLOCK_MONOTONIC): the exports
	 * time samples from it, as frames and intervals are. */
	if (j->oc.t0_ns)
		db_set_u64(run, SET_T0_NS, j->oc.t0_ns);
	if (a->cg == CALL_GRAPH_DWARF) {
		db_set_i64(run, SET_STACK_BYTES, a->stack_bytes);
		uint64_t stops = 0;
		for (int i = UNWIND_STOP_NO_INFO; i < UNWIND_STOP_COUNT; i++)
			stops += st->unwind.stops[i];
		db_set_u64(run, SET_UNWIND_STOPS_EARLY, stops);
	}
	if (st->lost || st->dropped) {
		warning_msg("%llu samples lost by the kernel (ring buffer full), %llu "
			    "dropped by prof (unwinding fell behind)",
			    (unsigned long long)st->lost, (unsigned long long)st->dropped);
		hint_msg("raise --mmap-pages, or lower --freq");
	}
}

/*
 * The samples are lost with the database, but the run's counts are in
 * hand: they go where the report would (-o FILE keeps them, as for prof
 * run), then why. A flame graph or folded stacks are nothing without the
 * samples: the counts go to stderr as a table, and FILE is left as it
 * was.
 */
static void record_not_stored(struct verb_ctx *vc, struct db_run *run, const char *why)
{
	run->id = 0;
	bool flame = vc->fmt == OUT_FOLDED || vc->fmt == OUT_SVG;
	bool in_file = false;
	if (flame)
		report_run(run, BY_THREAD, OUT_TABLE, stderr);
	else
		in_file = run_state_print(vc, run, BY_THREAD, vc->fmt, true) && vc->out_path;
	run_state_not_stored(why, in_file ? vc->out_path : NULL);
	if (flame && vc->out_path) {
		char buf[64];
		fprintf(stderr, "hint: its samples are lost, and '%s' was not "
			"written: a %s needs them\n",
			cli_echo(vc->out_path, buf, sizeof(buf)),
			vc->fmt == OUT_SVG ? "flame graph" : "folded stack list");
	} else {
		fprintf(stderr, "hint: its samples are lost\n");
	}
}

/*
 * The run with its samples into the database, the profile printed, and
 * the exit code: the workload's, unless something failed. frc: what the
 * recorder's finish said.
 */
static int record_store(struct verb_ctx *vc, struct record_job *j, struct db_run *run,
			const struct recorder_stats *st, int exit_code)
{
	const struct record_args *a = j->a;
	const struct launch_args *l = &vc->launch;
	char *cause = NULL;
	int frc = j->oc.finish_rc;
	/* Out of memory here, the samples are lost as when they cannot be
	 * stored: the counts are printed, and why. */
	struct db_sample_event *evs = record_sample_events(&j->oc, &j->plan, &j->sk, st);
	int store_rc = evs ? 0 : cause_set(&cause, ENOMEM, "cannot keep the "
					   "sampled events: out of memory");
	record_settings(j, run, st);
	/* --window frame:N:M: the frames' edges are known now; the samples
	 * outside them are left out, as those outside START:END were as
	 * they came. */
	if (!frc && !store_rc && window_by_frames(&l->win))
		store_rc = frame_window_samples(&j->sk, run, j->oc.t0_ns, evs, j->nsev,
						&cause);
	if (!frc && !store_rc)
		store_rc = db_sample_store_run(j->sk.w, run, evs, j->nsev, &cause);
	if (frc || store_rc)
		record_not_stored(vc, run, frc ? (j->sk.cause ? j->sk.cause
						  : j->oc.finish_cause) : cause);
	free(cause);
	if (!frc && !store_rc && (!l->quiet || vc->out_path) &&
	    print_profile(vc, j->db, run, a, -1))
		exit_code = EXIT_FAIL;
	if (exit_code == EXIT_OK)
		exit_code = run->exit_status;
	run_frames_warn(run, &vc->frame);
	exit_code = run_incomplete_exit(run, a->allow_incomplete, exit_code);
	if (frc || store_rc)
		exit_code = EXIT_FAIL;
	free(evs);
	return exit_code;
}

static int cmd_record(struct verb_ctx *vc)
{
	struct record_args *a = vc->args;
	const struct launch_args *l = &vc->launch;
	if (a->cache && !a->simulate)
		return usage_error(vc->name, "--cache sets the caches --simulate "
				   "simulates: give --simulate too");
	if (a->simulate)
		return record_simulate_checked(vc, a);
	int rc = record_check(vc, a);
	if (rc)
		return rc;
	char *cause = NULL;
	if (!l->pid) {
		char *path = launch_resolve(vc->argv[0], &cause);
		if (!path)
			return fail_cause(cause, EXIT_NOT_RUN);
		free(path);
	}
	struct record_job job, *j = &job;
	memset(j, 0, sizeof(*j));
	j->a = a;
	j->mmap_pages = l->mmap_pages ? l->mmap_pages
			: a->cg == CALL_GRAPH_DWARF ? 1024 : 256;
	int exit_code = record_choose(vc, j);
	if (!exit_code)
		exit_code = record_open(j, vc);
	struct db_run run;
	if (!exit_code && !(exit_code = record_run(vc, j, &run))) {
		struct recorder_stats st;
		recorder_stats(j->rec, &st);
		if (!l->quiet) {
			print_kernel_notes(j->rec, &st, a, j->oc.user_only);
			print_debug_notes(j->rec, a);
			symbolizer_for_each_jitdump(recorder_symbolizer(j->rec), note_jitdump,
						    NULL);
		}
		exit_code = record_store(vc, j, &run, &st, exit_code);
		db_run_release(&run);
	}
	if (j->dump)
		fclose(j->dump);
	free(j->oc.cause);
	free(j->oc.finish_cause);
	recorder_free(j->rec);
	int late = runner_release_signals();
	if (late)
		exit_code = EXIT_SIGNAL + late;
	sample_sink_release(&j->sk);
	pin_plan_release(&j->pin);
	event_list_free(j->sev, j->nsev);
	event_list_free(j->cev, j->ncev);
	free(j->sds);
	free(j->counted_spec);
	return exit_code;
}

static const char record_help[] =
"usage: prof record [options] [--] COMMAND [ARGS...]\n"
"       prof record [options] -p PID [--duration SECONDS]\n"
"\n"
"Sample COMMAND and every thread and process it starts, with call\n"
"stacks, store the samples (and the run's per-thread counts) in the\n"
"database, and print the hottest symbols on stderr (COMMAND's own output\n"
"is left alone). prof exits with COMMAND's status. Stacks are unwound\n"
"and symbolized while the command runs; no raw stack bytes are kept.\n"
"--format svg writes a flame graph instead (--icicle: callers on top),\n"
"which a browser opens with a click to zoom and a search.\n"
"\n";

static const char record_tail[] =
"Every sampled event is counted too, with task-clock, so 'prof report\n"
"RUN --by total' shows the run's counts. Samples the kernel lost (a full\n"
"ring buffer) and samples prof could not unwind in time are counted and\n"
"reported, never hidden. A prof killed before the end stores nothing.\n"
"Ctrl-C and SIGTERM end the workload as for 'prof run'. If the database\n"
"cannot take the run (locked, full disk), its counts are printed (to\n"
"FILE with -o, except for svg, which needs the samples), the samples\n"
"are lost, and prof exits 1.\n"
"\n"
"Examples:\n"
"  prof record -- ./build/bin/prof-demo\n"
"  prof record -e cpu-clock -F 4000 --call-graph dwarf -- ./server --bench\n"
"  prof report last --by module\n"
"  prof report last --format folded > out.folded   # for flamegraph.pl\n"
"  prof record --format svg -o flame.svg -- ./server --bench\n";

static const struct opt record_opts[] = {
	OPT_INCLUDE(opt_launch),
	OPT_STRING('e', "events", struct record_args, events, "LIST",
		   "events to sample, comma-separated, each tagged in\n"
		   "the report (default: cycles where the machine can\n"
		   "sample it, else cpu-clock; prof says which)"),
	OPT_LONG('F', "freq", struct record_args, freq, "HZ", 1, LONG_MAX,
		 "samples per second, e.g. 1000",
		 "samples per second per thread (default 1000; at\n"
		 "most kernel.perf_event_max_sample_rate)"),
	OPT_LONG('c', "period", struct record_args, period, "N", 1, LONG_MAX,
		 "a count of events of at least 1, e.g. 100000",
		 "one sample every N events instead of a frequency"),
	OPT_CALLBACK(0, "call-graph", struct record_args, cg, "MODE", parse_call_graph,
		     "none, fp (the kernel's frame-pointer chain; the\n"
		     "default), or dwarf[,STACK_BYTES] (copy the user\n"
		     "registers and the top STACK_BYTES of the stack,\n"
		     "default 8192, a multiple of 8 up to 65528, and\n"
		     "unwind with the binaries' .eh_frame: works without\n"
		     "frame pointers; --mmap-pages then defaults to 1024)"),
	OPT_LONG(0, "limit", struct record_args, limit, "N", 0, INT_MAX,
		 "a number of rows (0: all)", "rows in the printed report (default 10)"),
	OPT_BOOL(0, "no-demangle", struct record_args, mangled,
		 "print C++ and Rust symbols as the binary names them"),
	OPT_BOOL(0, "icicle", struct record_args, icicle,
		 "with --format svg: callers on top"),
	OPT_BOOL(0, "no-kernel", struct record_args, no_kernel,
		 "leave the kernel's frames out of call stacks (a\n"
		 "sample taken in the kernel lands on the user frame\n"
		 "that entered it)"),
	OPT_CALLBACK(0, "lines", struct record_args, lines, "WHICH", parse_lines,
		     "source lines for 'prof report --by line' from\n"
		     "the debug info of: own (the default: DWARF in a\n"
		     "module, or in a debug file beside it or under\n"
		     "--debug-dir), all (also /usr/lib/debug's and\n"
		     "debuginfod's: libc6-dbg's costs some 140 ms a\n"
		     "run), none"),
	OPT_STRING(0, "debug-dir", struct record_args, debug_dir, "DIR",
		   "a tree of separate debug files, searched before\n"
		   "/usr/lib/debug: DIR/.build-id/xx/rest.debug, and\n"
		   "DIR/PATH/NAME for a file PATH/FILE whose debug link\n"
		   "names NAME (for stripped files)"),
	OPT_BOOL(0, "debuginfod", struct record_args, debuginfod,
		 "fetch missing debug files from the servers of\n"
		 "DEBUGINFOD_URLS (elfutils' client and cache; off\n"
		 "by default: prof asks no server unless told)"),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_BOOL(0, "allow-incomplete", struct record_args, allow_incomplete,
		 "exit with COMMAND's status even when the run is\n"
		 "incomplete (tasks or records missing: 'prof help\n"
		 "run' says how prof checks)"),
	OPT_BOOL(0, "allow-generic", struct record_args, allow_generic,
		 "as for 'prof run'"),
	OPT_INT('I', "interval", struct record_args, interval_ms, "MS", 10, 3600000,
		"a number of milliseconds, 10 or more",
		"also store every thread's counter deltas per\n"
		"interval of MS milliseconds, as prof run -I does;\n"
		"'prof report --intervals' lists them"),
	OPT_INCLUDE(opt_frames),
	OPT_BOOL(0, "simulate", struct record_args, simulate,
		 "no PMU? run the command under valgrind's cache and\n"
		 "branch model (as prof run --simulate) and store each\n"
		 "function's own cost of every simulated event as\n"
		 "samples: 'prof report RUN --by symbol -e llc-misses'\n"
		 "says where the model's misses fall (no stacks)"),
	OPT_STRING(0, "cache", struct record_args, cache, "SPEC",
		   "with --simulate, the caches to simulate (as prof\n"
		   "run --cache)"),
	OPT_STRING(0, "record-dump", struct record_args, dump, "FILE",
		   "save the raw ring-buffer records (for tests)"),
	OPT_END(),
};

VERB(record, record_args, .init = record_init, .max_operands = VERB_ANY_OPERANDS);
