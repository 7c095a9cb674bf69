/*
 * commands: every verb's entry point and help text. Each verb lives in
 * prof/cmd_<verb>.c and is registered once, in commands.c.
 */
#ifndef PROF_COMMANDS_H
#define PROF_COMMANDS_H

#include <stdio.h>

#include "prof/cli.h"

#define DECLARE_VERB(v) \
	int cmd_##v(int argc, char **argv, struct prof_ctx *ctx); \
	extern const char cmd_##v##_help[]

DECLARE_VERB(run);
DECLARE_VERB(record);
DECLARE_VERB(runs);
DECLARE_VERB(report);
DECLARE_VERB(events);
DECLARE_VERB(topo);
DECLARE_VERB(ab);
DECLARE_VERB(compare);
DECLARE_VERB(modules);
DECLARE_VERB(sleep);
DECLARE_VERB(explain);
int cmd_help(int argc, char **argv, struct prof_ctx *ctx);

/* prof's usage line, global options and the list of verbs, to fp. */
void cmd_print_usage(FILE *fp);

#endif
