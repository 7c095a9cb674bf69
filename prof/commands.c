/*
 * commands: the one table of verbs, as git's cmd_struct and perf's
 * builtins keep it: each row names the verb's file's `struct verb` and
 * says what the verb needs, so that the frame (prof/verb.c) reads its
 * options, opens its database and its output the same way for all.
 * Adding a verb: prof/cmd_<verb>.c, its declaration and its row here.
 */
#include <stddef.h>

#include "prof/verb.h"

extern const struct verb verb_run;
extern const struct verb verb_record;
extern const struct verb verb_runs;
extern const struct verb verb_report;
extern const struct verb verb_ab;
extern const struct verb verb_pressure;
extern const struct verb verb_screen;
extern const struct verb verb_compare;
extern const struct verb verb_summary;
extern const struct verb verb_import;
extern const struct verb verb_explain;
extern const struct verb verb_topo;
extern const struct verb verb_sleep;
extern const struct verb verb_probe;
extern const struct verb verb_events;
extern const struct verb verb_modules;
extern const struct verb verb_html;
extern const struct verb verb_help;

/* The --format words a verb writes. */
#define F(fmt) (1u << OUT_##fmt)
#define TEXT OUT_ALL_TEXT	/* table, json, csv, markdown */

const struct cmd commands[] = {
	{ "run", &verb_run, "count events per thread for a command or a process",
	  TEXT, CMD_DB_TRY, CMD_OUT_STDERR },
	{ "record", &verb_record, "sample a command with call stacks",
	  TEXT | F(FOLDED) | F(SVG), CMD_DB_WRITE, CMD_OUT_STDERR },
	{ "runs", &verb_runs, "list the stored runs",
	  TEXT, CMD_DB_READ, CMD_OUT_STDOUT },
	{ "report", &verb_report, "reprint a stored run per thread, name or total",
	  TEXT | F(FOLDED) | F(SVG) | F(PERFETTO) | F(SPEEDSCOPE) | F(PERF_SCRIPT) |
	  F(PPROF),
	  CMD_DB_READ, CMD_OUT_STDOUT },
	{ "ab", &verb_ab, "interleaved A/B runs with paired statistics",
	  TEXT | F(SVG), CMD_DB_WRITE, CMD_OUT_STDERR },
	{ "pressure", &verb_pressure, "is it cache-bound? take cache away and measure",
	  TEXT | F(SVG), CMD_DB_WRITE, CMD_OUT_STDERR },
	{ "screen", &verb_screen, "which scenes are CPU-limited, which only keep up?",
	  TEXT, CMD_DB_TRY, CMD_OUT_STDERR },
	{ "compare", &verb_compare, "reprint an experiment, or compare two runs",
	  TEXT | F(SVG), CMD_DB_READ, CMD_OUT_STDOUT },
	{ "summary", &verb_summary, "read experiments that share arms across scenes",
	  TEXT, CMD_DB_READ, CMD_OUT_STDOUT },
	{ "import", &verb_import, "merge databases from other machines into this one",
	  0, CMD_DB_WRITE, CMD_OUT_STDOUT },
	{ "explain", &verb_explain, "footprint, codegen, cache-domain or capacity?",
	  TEXT, CMD_DB_READ, CMD_OUT_STDOUT },
	{ "topo", &verb_topo, "show cache domains and what a pin would pick",
	  TEXT, CMD_DB_NONE, CMD_OUT_STDOUT },
	{ "sleep", &verb_sleep, "measure how well short sleeps keep time, per mode",
	  TEXT | F(SVG), CMD_DB_WRITE, CMD_OUT_STDOUT },
	{ "probe", &verb_probe, "can this machine's counters and caches be trusted?",
	  TEXT | F(SVG), CMD_DB_WRITE, CMD_OUT_STDOUT },
	{ "events", &verb_events, "list the events this machine can encode",
	  TEXT, CMD_DB_NONE, CMD_OUT_STDOUT },
	{ "modules", &verb_modules, "list a run's code modules, largest first",
	  TEXT, CMD_DB_READ, CMD_OUT_STDOUT },
	{ "html", &verb_html, "one self-contained page of a run or an experiment",
	  0, CMD_DB_READ, CMD_OUT_STDOUT },
	{ "help", &verb_help, "print help for a verb", 0, CMD_DB_NONE, CMD_OUT_STDOUT },
	{ NULL, NULL, NULL, 0, CMD_DB_NONE, CMD_OUT_STDOUT },
};
