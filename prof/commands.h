/*
 * commands: the entry points and help texts of the verbs not yet moved
 * onto the option tables of prof/verb.h.
 */
#ifndef PROF_COMMANDS_H
#define PROF_COMMANDS_H

#include "prof/cli.h"

#define DECLARE_VERB(v) \
	int cmd_##v(int argc, char **argv, struct prof_ctx *ctx); \
	extern const char cmd_##v##_help[]


#endif
