/*
 * settings: the table of run settings and its typed accessors (see
 * settings.h). Each setter formats the value as prof stored that key
 * before the table, so old databases and the goldens read the same.
 */
#include "db/settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "db/runs.h"

const struct db_setting_info db_settings[DB_NSETTINGS] = {
#define DB_SETTING_ROW(id, name, type, doc) \
	[DB_SET_##id] = { name, DB_SETTING_##type, doc },
	DB_SETTINGS(DB_SETTING_ROW)
#undef DB_SETTING_ROW
};

#define DB_SETTING_DEF(id, name, type, doc) \
	const struct DB_SETTING_KEY_##type SET_##id = { DB_SET_##id };
DB_SETTINGS(DB_SETTING_DEF)
#undef DB_SETTING_DEF

static int set_text(struct db_run *run, enum db_setting_id id, const char *value)
{
	return db_run_set_dynamic(run, db_settings[id].name, value);
}

int db_setting_set_text_id(struct db_run *run, enum db_setting_id id, const char *text)
{
	return set_text(run, id, text);
}

int db_set_str(struct db_run *run, struct db_setting_str key, const char *value)
{
	return set_text(run, key.id, value);
}

int db_set_flag(struct db_run *run, struct db_setting_flag key)
{
	return set_text(run, key.id, "1");
}

int db_set_yesno(struct db_run *run, struct db_setting_yesno key, bool yes)
{
	return set_text(run, key.id, yes ? "yes" : "no");
}

int db_set_u64(struct db_run *run, struct db_setting_u64 key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return set_text(run, key.id, buf);
}

int db_set_i64(struct db_run *run, struct db_setting_i64 key, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	return set_text(run, key.id, buf);
}

int db_set_f64(struct db_run *run, struct db_setting_f64 key, double v)
{
	/* Room for any double in %.6f (309 digits and the fraction). */
	char buf[400];
	switch (db_settings[key.id].type) {
	case DB_SETTING_f64_0:
		snprintf(buf, sizeof(buf), "%.0f", v);
		break;
	case DB_SETTING_f64_4:
		snprintf(buf, sizeof(buf), "%.4f", v);
		break;
	case DB_SETTING_f64_6:
		snprintf(buf, sizeof(buf), "%.6f", v);
		break;
	default:
		snprintf(buf, sizeof(buf), "%g", v);
		break;
	}
	return set_text(run, key.id, buf);
}

const char *db_setting_text_id(const struct db_run *run, enum db_setting_id id)
{
	return db_run_get_dynamic(run, db_settings[id].name);
}

const char *db_get_str(const struct db_run *run, struct db_setting_str key)
{
	return db_setting_text_id(run, key.id);
}

bool db_get_flag(const struct db_run *run, struct db_setting_flag key)
{
	return db_setting_text_id(run, key.id) != NULL;
}

bool db_get_u64(const struct db_run *run, struct db_setting_u64 key, uint64_t *v)
{
	const char *s = db_setting_text_id(run, key.id);
	char *end;
	*v = 0;
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (*end || errno)
		return false;
	*v = n;
	return true;
}

bool db_get_f64(const struct db_run *run, struct db_setting_f64 key, double *v)
{
	const char *s = db_setting_text_id(run, key.id);
	char *end;
	*v = 0;
	if (!s || !*s)
		return false;
	double d = strtod(s, &end);
	if (*end)
		return false;
	*v = d;
	return true;
}
