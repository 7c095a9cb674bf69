/*
 * schema: the migrations, in order. Migration v takes a file from
 * user_version v to v + 1; docs/schema.md describes the result. Private to
 * db/.
 */
#ifndef DB_SCHEMA_H
#define DB_SCHEMA_H

#include <stddef.h>

size_t schema_migration_count(void);
const char *schema_migration(int v);

#endif
