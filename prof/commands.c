/* commands: the one table of verbs, as perf and git keep it. */
#include <stddef.h>

#include "prof/commands.h"

static const char help_help[] =
"usage: prof help [VERB]\n"
"\n"
"Print the list of verbs, or one verb's options with an example.\n"
"'prof help VERB' and 'prof VERB --help' print the same text.\n"
"\n"
"Example:\n"
"  prof help run\n";

const struct cmd commands[] = {
	{ "help", cmd_help, "print help for a verb", help_help },
	{ NULL, NULL, NULL, NULL },
};
