/*
 * tags (db): runs named by a tag. `prof run --tag NAME` stores the tag as
 * the run's setting "tag" (one tag a run), so no schema change is needed
 * and `prof runs` can filter by it the same way; `prof compare --set
 * A=TAG` finds the runs here. Caller-owned results; not thread-safe.
 */
#ifndef DB_TAGS_H
#define DB_TAGS_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

/* The setting key a run's tag is stored under. */
#define DB_RUN_TAG_KEY "tag"

/*
 * The ids of the runs tagged `tag`, oldest first, in *ids (malloc'd; the
 * caller frees it, NULL when none) and *n. 0, or a negative errno with
 * *cause.
 */
int db_runs_tagged(struct db *db, const char *tag, int64_t **ids, size_t *n,
		   char **cause);

#endif
