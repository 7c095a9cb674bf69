/* tags (db): the runs a tag names (see tags.h). */
#include <errno.h>
#include <stdlib.h>

#include "db/internal.h"
#include "db/tags.h"

int db_runs_tagged(struct db *db, const char *tag, int64_t **ids, size_t *n,
		   char **cause)
{
	sqlite3_stmt *st;
	*ids = NULL;
	*n = 0;
	int rc = db_prepare(db, &st, "SELECT run_id FROM run_settings WHERE key = '"
			    DB_RUN_TAG_KEY "' AND value = ?1 ORDER BY run_id", cause);
	if (rc)
		return rc;
	db_bind_text(st, 1, tag);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t *v = realloc(*ids, (*n + 1) * sizeof(**ids));
		if (!v) {
			sqlite3_finalize(st);
			free(*ids);
			*ids = NULL;
			*n = 0;
			return -ENOMEM;
		}
		*ids = v;
		v[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (s != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return db_fail(db, s, "cannot read the tagged runs", cause);
	}
	return 0;
}
