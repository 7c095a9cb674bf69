/*
 * import: another prof database merged into this one (prof import), so
 * runs from several machines, made by different people, are read, listed
 * and compared in one file. Every run, thread, counter, module, sample,
 * setting and experiment of the other file comes across with its host's
 * facts; ids are given anew past this file's own, and every reference
 * follows them. What this file already holds is not added again: a host
 * is the same when its hostname, kernel, CPU model and CPU count are; a
 * run when its host, kind, start time, pid and command are; an
 * experiment when its host, kind and start time are. So importing a file
 * twice adds nothing. The other file is read through a copy that is
 * brought up to this schema first (an older prof's file is migrated, the
 * original left as it was); all of it is added in one transaction, or
 * none of it.
 */
#ifndef DB_IMPORT_H
#define DB_IMPORT_H

#include <stddef.h>

struct db;

struct db_import_stats {
	size_t hosts_new, hosts_known;
	size_t runs_new, runs_known;
	size_t experiments_new, experiments_known;
};

/*
 * Merge the database at path into db. 0, with *st; -ENOENT (no such
 * file), -EINVAL (not a prof database, or the very file db is), or
 * another negative code, with *cause; nothing is added then.
 */
int db_import(struct db *db, const char *path, struct db_import_stats *st, char **cause);

#endif
