/*
 * prof report: reprint a stored run per thread, per thread name, or total;
 * for a sampled run (prof record), where its samples fell by symbol,
 * module, thread or name, its hottest call paths, or folded stacks; a
 * `prof sleep` or `prof probe` run as that verb printed it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/probe.h"
#include "db/runs.h"
#include "db/samples.h"
#include "db/sleep.h"
#include "prof/cli.h"
#include "common/pkglib.h"
#include "prof/runutil.h"
#include "prof/sections.h"
#include "prof/verb.h"
#include "reports/export.h"
#include "reports/flame.h"
#include "reports/probe.h"
#include "reports/profile.h"
#include "reports/runs.h"
#include "reports/sleep.h"
#include "reports/frames.h"
#include "reports/framesplot.h"
#include "reports/timeline.h"
#include "reports/timelineplot.h"
#include "reports/sysenv.h"

/* Which report a run gets, from --by, --stacks and --format. */
struct report_args {
	const char *by;		/* as given, or NULL */
	bool stacks;
	const char *event;
	enum out_format fmt;
	bool mangled;
	enum profile_unknown unknown;
	bool icicle;
	bool intervals;		/* --intervals */
	bool system;		/* --system: the machine's deltas */
	bool env;		/* --env: the machine's settings */
	bool tree;		/* --tree: the processes under their parents */
	bool no_inline;
	bool frames;		/* --frames */
};

/* The index of the sampled event called name, or -1 after saying which
 * events the run sampled. */
static int sampled_event(const struct db_run *run, const struct db_profile *prof,
			 const char *name)
{
	char buf[64];
	for (size_t e = 0; e < prof->nevents; e++)
		if (!strcmp(prof->events[e].name, name))
			return (int)e;
	fprintf(stderr, "error: run %lld sampled no event '%s'\n"
		"hint: it sampled:", (long long)run->id, cli_echo(name, buf, sizeof(buf)));
	for (size_t e = 0; e < prof->nevents; e++)
		fprintf(stderr, " %s", prof->events[e].name);
	fputc('\n', stderr);
	return -1;
}

/* A sampled run's report; -1 when it is not one (the caller goes on). */
static int report_sampled(struct verb_ctx *vc, struct db *db, const struct db_run *run,
			  const struct report_args *ra)
{
	const struct rows_view *view = &vc->view;
	struct db_profile prof;
	char *cause = NULL;
	char buf[64];
	bool wants_samples = ra->stacks || ra->fmt == OUT_FOLDED ||
			     (ra->by && (!strcmp(ra->by, "symbol") ||
					 !strcmp(ra->by, "module") ||
					 !strcmp(ra->by, "line")));
	int rc = db_profile_load(db, run->id, &prof, &cause);
	if (rc == -ENODATA && !wants_samples) {
		free(cause);
		return -1;
	}
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	bool counts = ra->tree || (ra->by && (!strcmp(ra->by, "total") ||
					      !strcmp(ra->by, "process")));
	if (counts && !ra->stacks && ra->fmt != OUT_FOLDED && ra->fmt != OUT_SVG) {
		db_profile_release(&prof);
		return -1;	/* the run's counts */
	}
	struct profile_opts po = { .by = PROFILE_BY_SYMBOL, .stacks = ra->stacks,
				   .event = -1, .limit = view->limit, .sort = view->sort,
				   .fmt = ra->fmt,
				   .mangled = ra->mangled, .unknown = ra->unknown,
				   .no_inline = ra->no_inline };
	if (ra->by && profile_by_parse(ra->by, &po.by)) {
		db_profile_release(&prof);
		return usage_error("report", "--by %s does not go with --stacks or "
				   "--format folded", cli_echo(ra->by, buf, sizeof(buf)));
	}
	if (profile_sort_check(po.by, po.stacks, po.sort, &cause)) {
		db_profile_release(&prof);
		return verb_usage_cause(vc, cause);
	}
	if (ra->event && (po.event = sampled_event(run, &prof, ra->event)) < 0) {
		db_profile_release(&prof);
		return EXIT_USAGE;
	}
	struct run_sections secs;
	memset(&secs, 0, sizeof(secs));
	if (ra->unknown == PROFILE_UNKNOWN_SECTION) {
		if (run_sections_load(&prof, &secs))
			warning_msg("out of memory reading the modules' sections: code "
				    "without a symbol stays by address");
		else
			po.sections = secs.mods;
		if (secs.changed)
			warning_msg("%zu module%s changed since run %lld was recorded: "
				    "%s code without a symbol stays by address",
				    secs.changed, secs.changed == 1 ? "" : "s",
				    (long long)run->id, secs.changed == 1 ? "its" : "their");
	}
	FILE *fp = verb_out(vc);
	if (fp && ra->fmt == OUT_SVG)
		report_flame(run, &prof, &po, ra->icicle, fp);
	else if (fp)
		report_profile(run, &prof, &po, fp);
	run_sections_release(&secs);
	db_profile_release(&prof);
	return fp ? EXIT_OK : EXIT_FAIL;
}

/* A run over time: its frames or its intervals, in text or as a picture. */
struct series_view {
	const char *flag;
	void (*text)(const struct db_run *run, enum out_format fmt, FILE *fp);
	void (*svg)(const struct db_run *run, FILE *fp);
};

static const struct series_view frames_view = {
	"--frames", report_frames, report_frames_svg,
};
static const struct series_view intervals_view = {
	"--intervals", report_intervals, report_intervals_svg,
};

/* Print the view unless rc already says why not. */
static int report_series(struct verb_ctx *vc, const struct db_run *run, int rc,
			 const struct series_view *v)
{
	struct report_args *ra = vc->args;
	if (rc == EXIT_OK && ra->fmt == OUT_FOLDED) {
		rc = usage_error(vc->name, "%s goes with --format table, json, csv, "
				 "markdown or svg", v->flag);
	} else if (rc == EXIT_OK) {
		FILE *fp = verb_out(vc);
		if (fp && ra->fmt == OUT_SVG)
			v->svg(run, fp);
		else if (fp)
			v->text(run, ra->fmt, fp);
		else
			rc = EXIT_FAIL;
	}
	return rc;
}

/* --frames: the run's frames (prof run --frames), or why there are none. */
static int report_frames_of(struct verb_ctx *vc, const struct db_run *run)
{
	int rc = EXIT_OK;
	if (!run->nframes) {
		const char *re = db_get_str(run, SET_FRAME_REGEX);
		char buf[64];
		/* Asked of a run that has none, as samples of a counted run:
		 * a usage error (README's exit status). */
		const char *note = db_get_str(run, SET_FRAME_NOTE);
		if (re)
			error_msg("run %lld has no frames: --frame-regex '%s' "
				  "matched no line of its output", (long long)run->id,
				  cli_echo(re, buf, sizeof(buf)));
		else if (note)
			error_msg("run %lld has no frames: %s", (long long)run->id, note);
		else
			error_msg("run %lld has no frames: it was not run with "
				  "--frames or --frame-regex, or marked none",
				  (long long)run->id);
		rc = EXIT_USAGE;
	}
	return report_series(vc, run, rc, &frames_view);
}

/* --intervals: the run's intervals (prof run -I), or why there are none. */
static int report_timeline_of(struct verb_ctx *vc, const struct db_run *run)
{
	int rc = EXIT_OK;
	if (!run->nintervals) {
		error_msg("run %lld has no intervals: it was not run with -I MS",
			  (long long)run->id);
		rc = EXIT_USAGE;
	}
	return report_series(vc, run, rc, &intervals_view);
}

/*
 * pprof's encoder, libprof-pprof.so (reports/pprof.h), loaded for that
 * format alone. EXIT_OK with *handle and xo->pprof set, or an exit code
 * with the error said.
 */
static int load_pprof(struct verb_ctx *vc, struct export_opts *xo, void **handle)
{
	if (!vc->out_path && isatty(STDOUT_FILENO))
		return usage_error(vc->name, "--format pprof writes a gzipped binary "
				   "file, not for a terminal: give -o FILE (say "
				   "prof.pb.gz) or send it down a pipe");
	char looked[2 * PATH_MAX + 300];
	char *path = pkglib_find(PPROF_LIB, "PROF_PPROF_LIB", looked, sizeof(looked));
	if (!path)
		return error_msg("the pprof encoder %s is missing: looked in %s\n"
				 "hint: build it (cmake --build) or install prof "
				 "(cmake --install)", PPROF_LIB, looked);
	*handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	void *fn = *handle ? dlsym(*handle, PPROF_WRITE_SYMBOL) : NULL;
	if (!fn) {
		int rc = error_msg("cannot load the pprof encoder '%s': %s\n"
				   "hint: it needs libprotobuf-c and zlib (Debian: "
				   "apt-get install libprotobuf-c1 zlib1g)", path, dlerror());
		if (*handle)
			dlclose(*handle);
		*handle = NULL;
		free(path);
		return rc;
	}
	free(path);
	*(void **)&xo->pprof = fn;
	return EXIT_OK;
}

/*
 * --format perfetto, speedscope, perf-script or pprof: the run for
 * another tool. A run that holds nothing the format exports is refused
 * in one line, before -o FILE is touched.
 */
static int report_export(struct verb_ctx *vc, struct db *db, const struct db_run *run)
{
	struct report_args *ra = vc->args;
	struct export_opts xo = { .mangled = ra->mangled, .event = -1 };
	struct db_profile prof;
	char *cause = NULL;
	int rc = db_profile_load(db, run->id, &prof, &cause);
	bool sampled = rc != -ENODATA;
	if (!sampled) {
		free(cause);
		cause = NULL;
		rc = 0;
	} else if (!rc) {
		rc = db_profile_load_samples(db, &prof, &cause);
	}
	if (rc) {
		if (sampled)
			db_profile_release(&prof);
		return fail_cause(cause, exit_code_for(rc));
	}
	if (ra->event && !sampled)
		rc = usage_error(vc->name, "--event picks samples, and run %lld was "
				 "counted, not sampled", (long long)run->id);
	else if (ra->event && (xo.event = sampled_event(run, &prof, ra->event)) < 0)
		rc = EXIT_USAGE;
	int xrc = rc ? 0 : export_check(ra->fmt, run, sampled ? &prof : NULL, &xo, &cause);
	if (xrc == -ENODATA) {
		error_msg("%s", cause ? cause : "nothing to export");
		rc = EXIT_USAGE;
	} else if (xrc) {
		rc = error_msg("out of memory reading run %lld", (long long)run->id);
	}
	free(cause);
	cause = NULL;
	void *encoder = NULL;
	if (!rc && ra->fmt == OUT_PPROF)
		rc = load_pprof(vc, &xo, &encoder);
	FILE *fp = rc ? NULL : verb_out(vc);
	if (!rc && !fp)
		rc = EXIT_FAIL;
	if (fp && (xrc = export_write(ra->fmt, run, sampled ? &prof : NULL, &xo, fp,
				      &cause))) {
		if (cause)
			rc = error_msg("cannot write run %lld as %s: %s", (long long)run->id,
				       output_format_name(ra->fmt), cause);
		else
			rc = error_msg("out of memory writing run %lld as %s",
				       (long long)run->id, output_format_name(ra->fmt));
	}
	free(cause);
	if (encoder)
		dlclose(encoder);
	if (sampled)
		db_profile_release(&prof);
	return rc;
}

/* The report of one stored run, as the options ask. */
static int report_stored(struct verb_ctx *vc, struct db *db, struct stored_run *sr,
			 enum report_by by)
{
	struct report_args *ra = vc->args;
	struct db_run *run = &sr->run;
	char *cause = NULL;
	if (ra->frames)
		return report_frames_of(vc, run);
	if (ra->intervals)
		return report_timeline_of(vc, run);
	if (export_format(ra->fmt))
		return report_export(vc, db, run);
	/* A picture needs samples, a sleep benchmark or a probe's curve: a
	 * counting run has none to draw (before report_sampled, whose
	 * refusal would name samples alone). */
	if (ra->fmt == OUT_SVG && !sr->is_sleep && !sr->is_probe) {
		int rc = report_sampled(vc, db, run, ra);
		if (rc < 0)
			rc = usage_error(vc->name, "--format svg draws a sampled run "
					 "(prof record), a sleep benchmark or a probe; "
					 "run %lld is none of them", (long long)run->id);
		return rc;
	}
	int rc = ra->fmt == OUT_SVG || ra->system || ra->env ? -1 :
		 report_sampled(vc, db, run, ra);
	if (rc >= 0)
		return rc;
	/* A report of counts from here on: what picks samples has nothing
	 * to pick, and is refused rather than ignored. */
	if (ra->event || ra->stacks)
		return usage_error(vc->name, "%s picks samples, and this report of "
				   "run %lld is of counts (a counted run, or --by "
				   "total, process or --tree)", ra->event ? "--event"
				   : "--stacks", (long long)run->id);
	if (sr->is_sleep && (vc->view.sort || vc->view.limit))
		return usage_error(vc->name, "run %lld is a sleep benchmark: its "
				   "report takes no --%s", (long long)run->id,
				   vc->view.sort ? "sort" : "limit");
	if (!sr->is_sleep && report_run_sort_check(run, by, vc->view.sort, &cause))
		return verb_usage_cause(vc, cause);
	FILE *fp = verb_out(vc);
	if (fp && ra->system)
		report_system(run, ra->fmt, fp);
	else if (fp && ra->env)
		report_env(run, ra->fmt, fp);
	else if (fp && sr->is_sleep)
		report_sleep(run, &sr->sleep, ra->fmt, fp);
	else if (fp && sr->is_probe)
		report_probe(run, &sr->probe, ra->fmt, fp);
	else if (fp)
		report_run_view(run, by, &vc->view, ra->fmt, fp);
	return fp ? EXIT_OK : EXIT_FAIL;
}

static int cmd_report(struct verb_ctx *vc)
{
	struct report_args *ra = vc->args;
	enum report_by by = BY_THREAD;
	long id = 0;
	char buf[64];
	ra->fmt = vc->fmt;
	if (ra->by)
		report_by_parse(ra->by, &by);	/* else symbol or module */
	if (vc->argc && cli_parse_run_id(vc->name, vc->argv[0], &id))
		return EXIT_USAGE;
	/* An export is of the whole run, for another tool to cut. */
	if (export_format(ra->fmt)) {
		const char *other = ra->by ? "--by" : ra->tree ? "--tree"
				    : ra->stacks ? "--stacks" : vc->view.sort ? "--sort"
				    : vc->view.limit ? "--limit" : ra->system ? "--system"
				    : ra->env ? "--env" : ra->frames ? "--frames"
				    : ra->intervals ? "--intervals" : ra->icicle ? "--icicle"
				    : ra->unknown == PROFILE_UNKNOWN_SECTION ? "--unknown section"
				    : NULL;
		if (other)
			return usage_error(vc->name, "--format %s exports the whole run: "
					   "it does not go with %s",
					   output_format_name(ra->fmt), other);
	}
	/* --system, --env, --frames and --intervals each print a report of
	 * their own, which no other choice of rows changes: one given with
	 * another, or with --by, --tree, --stacks, --event, --sort or
	 * --limit, is refused rather than ignored. */
	const char *own[] = {
		ra->system ? "--system" : NULL, ra->env ? "--env" : NULL,
		ra->frames ? "--frames" : NULL, ra->intervals ? "--intervals" : NULL,
	};
	const char *first = NULL, *second = NULL;
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		if (own[i] && !first)
			first = own[i];
		else if (own[i] && !second)
			second = own[i];
	}
	if (first) {
		bool series = ra->frames || ra->intervals;
		const char *other = second ? second : ra->by ? "--by" : ra->tree ? "--tree"
				    : ra->stacks ? "--stacks" : ra->event ? "--event"
				    : vc->view.sort ? "--sort" : vc->view.limit ? "--limit"
				    : !series && ra->fmt == OUT_FOLDED ? "--format folded"
				    : NULL;
		if (other)
			return usage_error(vc->name, "%s is a report of its own: "
					   "it does not go with %s", first, other);
	}
	/* A tree is of processes, whole, in a text format. */
	if (ra->tree && ra->by && by != BY_PROCESS)
		return usage_error(vc->name, "--tree draws processes: it goes with "
				   "--by process or alone, not --by %s",
				   cli_echo(ra->by, buf, sizeof(buf)));
	if (ra->tree && (vc->view.limit || ra->stacks))
		return usage_error(vc->name, "--tree shows every process; it does "
				   "not go with --%s", ra->stacks ? "stacks" : "limit");
	if (ra->tree && (ra->fmt == OUT_FOLDED || ra->fmt == OUT_SVG))
		return usage_error(vc->name, "--tree writes table, json, csv or "
				   "markdown, not --format %s", output_format_name(ra->fmt));
	if (ra->tree)
		by = BY_TREE;
	/* Folded stacks feed a flame graph: every path, in no order. */
	if (ra->fmt == OUT_FOLDED && (vc->view.sort || vc->view.limit))
		return usage_error(vc->name, "--%s goes with a list of rows; "
				   "--format folded writes every call path",
				   vc->view.sort ? "sort" : "limit");

	struct db *db = verb_db(vc);
	if (!db)
		return EXIT_FAIL;
	struct stored_run sr;
	char *cause = NULL;
	int rc = stored_run_load(db, id, &sr, &cause);
	if (rc)
		return fail_cause(cause, exit_code_for(rc));
	rc = report_stored(vc, db, &sr, by);
	stored_run_release(&sr);
	return rc;
}

static int parse_by(struct verb_ctx *vc, const char *arg, void *field)
{
	enum report_by by;
	enum profile_by pby;
	char buf[64];
	if (report_by_parse(arg, &by) && profile_by_parse(arg, &pby))
		return usage_error(vc->name, "bad --by '%s': expected thread, name, "
				   "process, total, symbol, module or line",
				   cli_echo(arg, buf, sizeof(buf)));
	*(const char **)field = arg;
	return 0;
}

static int parse_unknown(struct verb_ctx *vc, const char *arg, void *field)
{
	char buf[64];
	if (profile_unknown_parse(arg, field))
		return usage_error(vc->name, "bad --unknown '%s': expected address or "
				   "section", cli_echo(arg, buf, sizeof(buf)));
	return 0;
}

static const struct opt report_opts[] = {
	OPT_CALLBACK(0, "by", struct report_args, by, "MODE", parse_by,
		     "thread, name, process or total; for a sampled run\n"
		     "also symbol (its default), module, or line (source\n"
		     "file and line from the debug info)"),
	OPT_BOOL(0, "tree", struct report_args, tree,
		 "the processes under their parents (with --by\n"
		 "process, or alone)"),
	OPT_BOOL(0, "intervals", struct report_args, intervals,
		 "every thread's counter deltas per interval of a run\n"
		 "made with -I MS"),
	OPT_BOOL(0, "frames", struct report_args, frames,
		 "frame times and counters per frame of a run made\n"
		 "with --frames or --frame-regex"),
	OPT_BOOL(0, "stacks", struct report_args, stacks,
		 "the hottest call paths of a sampled run"),
	OPT_STRING(0, "event", struct report_args, event, "NAME",
		   "only this sampled event"),
	OPT_BOOL(0, "no-demangle", struct report_args, mangled,
		 "C++ and Rust symbols as the binary names them\n"
		 "(_ZN6detail4sprpEyy), not demangled (detail::sprp(\n"
		 "unsigned long long, unsigned long long))"),
	OPT_BOOL(0, "no-inline", struct report_args, no_inline,
		 "call paths and folded stacks without the inlined\n"
		 "functions the debug info names at a frame"),
	OPT_CALLBACK(0, "unknown", struct report_args, unknown, "section", parse_unknown,
		     "group code without a symbol by the ELF section\n"
		     "that holds it ('libfoo.so:.text'), read from the\n"
		     "module's file if it is still the one recorded;\n"
		     "--unknown address (the default): by address"),
	OPT_BOOL(0, "system", struct report_args, system,
		 "what the whole machine did during the run: page\n"
		 "faults, migrations, context switches, CPU time,\n"
		 "steal, interrupts on the workload's CPUs (the\n"
		 "deltas of /proc/vmstat, stat, interrupts, schedstat)"),
	OPT_BOOL(0, "env", struct report_args, env,
		 "the machine's settings at the run's start: kernel,\n"
		 "governor, boost, SMT, THP, paranoid, isolation,\n"
		 "load, NUMA balancing, mitigations"),
	OPT_INCLUDE(opt_rows),
	OPT_BOOL(0, "icicle", struct report_args, icicle,
		 "with --format svg: the flame graph with callers on top"),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

static const char report_help[] =
"usage: prof report [RUN|last]\n"
"                   [--by thread|name|process|total|symbol|module|line]\n"
"                   [--tree] [--stacks] [--event NAME] [--sort KEY] [--limit N]\n"
"                   [--no-demangle] [--no-inline] [--unknown address|section]\n"
"                   [--icicle] [--format table|json|csv|markdown|folded|svg]\n"
"                   [-o FILE]\n"
"                   [--db PATH]\n"
"       prof report [RUN|last] --system|--env [--format FMT] [-o FILE]\n"
"       prof report [RUN|last] --format perfetto|speedscope|perf-script|pprof\n"
"                   [--event NAME] [--no-demangle] [-o FILE]\n"
"\n"
"Reprint a stored run from the database (default, or last: the newest run\n"
"'prof runs' lists), exactly as 'prof run' printed it, or grouped\n"
"differently: --by name sums the threads that share a name (five workers\n"
"called the same become one row with a thread count); --by process sums\n"
"each process's threads (pid, ppid, its main thread's name, threads);\n"
"--tree draws the processes under their parents (JSON nests `children`,\n"
"CSV adds `depth`); --by total keeps only the totals. --sort orders the\n"
"threads by a column (an event's name, tid, name; threads with --by name\n"
"or process; pid, ppid) and --limit keeps the first N; the totals still\n"
"count them all. A tree is sorted among siblings and never cut.\n"
"\n"
"For a sampled run ('prof record'), the default is where the samples fell:\n"
"--by symbol (the default) or module, with self and total shares of each\n"
"event; --by thread or name, each thread's share; --by total, the run's\n"
"counts; --by line, by source file and line where the debug info (the\n"
"binary's, or its debug file's) says, naming the innermost function there,\n"
"an inlined one where the compiler inlined it. --stacks lists the hottest\n"
"call paths; --format folded writes one 'main;work;hot 123' line per call\n"
"path (samples of the first event, or --event), for flame-graph tools.\n"
"--sort and --limit order and cut each event's rows (its call paths with\n"
"--stacks). --by symbol, module and line need a sampled run. Code that no\n"
"symbol covers (a stripped library's static functions) is shown by\n"
"address, as 'libfoo.so+0x1a2b' (the address nm, objdump and addr2line\n"
"use), one row per address. Call chains end at a caller in no known\n"
"mapping, which a frame-pointer walk finds in code built without frame\n"
"pointers; the report says how many did.\n"
"\n"
"--format svg draws a sampled run as a flame graph (--icicle: callers on\n"
"top; a browser zooms on a click and searches), a 'prof sleep' run as\n"
"its overshoot distributions and CPU per call, and a 'prof probe' run as\n"
"its latency curve against the caches sysfs lists. With --frames it draws\n"
"each frame's time against the budget and the counters per frame per\n"
"thread name; with --intervals each thread name's counters over time.\n"
"\n"
"--format perfetto, speedscope, perf-script and pprof export the run for\n"
"other tools. perfetto writes the trace-event JSON that ui.perfetto.dev and\n"
"chrome://tracing open: a track per thread, frames as slices, intervals\n"
"(-I) as counters, samples as instants named by their leaf function, in\n"
"microseconds after the launch; it needs frames, intervals or samples.\n"
"speedscope writes speedscope's JSON file format, a sampled profile per\n"
"thread and event; perf-script the text 'perf script' prints for samples\n"
"with call chains, which stackcollapse-perf.pl and the Firefox Profiler\n"
"read (the address column holds no sampled address: prof keeps symbol and\n"
"offset); pprof the gzipped profile.proto that go tool pprof reads, each\n"
"event's weight and sample count as value types, a sample per thread and\n"
"call chain labelled with the thread's name, tid and pid (binary: give -o\n"
"FILE or a pipe). These three need a sampled run ('prof record'); --event\n"
"keeps one event's samples. A run without what a format needs is refused,\n"
"and nothing is written.\n"
"\n"
"--system shows what the whole machine did while the run ran (its own\n"
"counters' changes: the workload's page faults among the machine's,\n"
"steal time from a VM's host, interrupts on the workload's CPUs);\n"
"--env how the machine was set up at its start. 'prof compare' and\n"
"'prof explain' warn when two runs' setups differ.\n"
"\n";

static const char report_tail[] =
"Examples:\n"
"  prof report last --by name\n"
"  prof report last --sort task-clock --limit 20\n"
"  prof report 12 --format csv -o run12.csv\n"
"  prof report last --by module\n"
"  prof report last --by line --limit 20\n"
"  prof report last --stacks --limit 10\n"
"  prof report last --format folded | flamegraph.pl > hot.svg\n"
"  prof report last --format svg -o flame.svg\n"
"  prof report last --format perfetto -o trace.json\n"
"  prof report last --format perf-script | stackcollapse-perf.pl\n"
"  prof report last --format pprof -o prof.pb.gz\n"
"  prof report last --frames --format svg -o frames.svg\n"
"  prof report last --system\n"
"  prof report last --env --format json\n";

VERB(report, report_args, .max_operands = 1);
