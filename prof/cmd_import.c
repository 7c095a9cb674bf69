/*
 * prof import: merge databases from other machines into this one
 * (db/import.h), so their runs and experiments are listed, reported and
 * compared here, each with its own host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/import.h"
#include "prof/verb.h"

struct import_args {
	int unused;
};

static int cmd_import(struct verb_ctx *vc)
{
	if (vc->argc < 1)
		return usage_error(vc->name, "give the databases to import: prof import "
				   "OTHER.db [MORE.db...]");
	struct db *db = verb_db(vc);
	if (!db)
		return EXIT_FAIL;
	int exit_code = EXIT_OK;
	for (int i = 0; i < vc->argc; i++) {
		struct db_import_stats st;
		char *cause = NULL;
		int rc = db_import(db, vc->argv[i], &st, &cause);
		if (rc) {
			print_cause("error: ", cause ? cause : "the import failed");
			fprintf(stderr, "hint: nothing of it was added\n");
			free(cause);
			exit_code = rc == -EINVAL || rc == -ENOENT ? EXIT_FAIL : exit_code_for(rc);
			continue;
		}
		char buf[96];
		if (!vc->launch.quiet)
			fprintf(stdout, "imported '%s': %zu run%s (%zu already here), "
				"%zu experiment%s (%zu already here), %zu new host%s "
				"(%zu known)\n", cli_echo(vc->argv[i], buf, sizeof(buf)),
				st.runs_new, st.runs_new == 1 ? "" : "s", st.runs_known,
				st.experiments_new, st.experiments_new == 1 ? "" : "s",
				st.experiments_known, st.hosts_new,
				st.hosts_new == 1 ? "" : "s", st.hosts_known);
	}
	return exit_code;
}

static const struct opt import_opts[] = {
	OPT_INCLUDE(opt_quiet),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

static const char import_help[] =
"usage: prof import [options] OTHER.db [MORE.db...]\n"
"\n"
"Merge prof databases made on other machines (or by other people) into\n"
"this one: every run, thread, counter, module, sample, setting and\n"
"experiment, each with its host's facts, under new ids. Then 'prof runs'\n"
"lists them with their host, and 'prof summary --by host' reads the\n"
"experiments of each machine apart.\n"
"\n";

static const char import_tail[] =
"What is here already is not added again: a host is the same when its\n"
"hostname, kernel, CPU model and CPU count are; a run when its host, kind,\n"
"start time, pid and command are; an experiment when its host, kind and\n"
"start time are. Importing a file twice adds nothing. A file from an older\n"
"prof is read through a copy brought up to this schema (the file itself is\n"
"not changed). Each file goes in whole, in one transaction, or not at all,\n"
"with an error, and prof exits 1.\n"
"\n"
"Runs from different hosts are never paired as if interleaved: an\n"
"experiment's runs all come from the machine that ran it.\n"
"\n"
"Examples:\n"
"  prof import ~/from-5900x/prof.db ~/from-9950x3d/prof.db\n"
"  prof summary --by host 1-40\n";

VERB(import, import_args, .max_operands = VERB_ANY_OPERANDS);
