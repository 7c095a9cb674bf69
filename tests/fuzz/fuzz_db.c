/*
 * fuzz_db: a database written by someone else: rows with NULLs where prof
 * writes none, giant strings, negative and huge numbers, text where
 * numbers belong, tables dropped or recreated without their constraints,
 * a schema version from the future. The input is SQL, one statement a
 * line, run against a fresh database that prof created (so the seeds are
 * INSERTs from a real one, then the damage); then every verb that reads a
 * database runs on it in-process, as `prof runs`, `report`, `modules`,
 * `compare` and `explain` would: each must end with exit code 0, 1 or 2
 * and nothing worse.
 *
 * The statements are SQLite's own business, so this harness talks to
 * SQLite directly (the one place outside db/ that does) and fences them
 * in: no ATTACH or VACUUM INTO (nothing is written outside the scratch
 * directory), strings and blobs of at most 1 MiB, a bounded number of
 * steps per statement, and no statement that could build an unbounded
 * view for prof to read (recursive CTEs, randomblob and friends).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <strings.h>

#include "db/db.h"
#include "fuzz.h"
#include "prof/cli.h"
#include "prof/verb.h"

static char fuzz_db_path[4200];
static uint8_t *template_db;
static size_t template_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char tpath[4200];
	snprintf(tpath, sizeof(tpath), "%s/template.db", fz_scratch());
	snprintf(fuzz_db_path, sizeof(fuzz_db_path), "%s/fuzz.db", fz_scratch());
	struct db *db = NULL;
	char *cause = NULL;
	if (db_open(&db, tpath, &cause)) {
		fprintf(stderr, "fuzz: %s\n", cause ? cause : "cannot open");
		abort();
	}
	db_close(db);
	FILE *fp = fopen(tpath, "rb");
	FZ_CHECK(fp);
	FZ_CHECK(fseek(fp, 0, SEEK_END) == 0);
	template_len = (size_t)ftell(fp);
	rewind(fp);
	template_db = malloc(template_len);
	FZ_CHECK(template_db && fread(template_db, 1, template_len, fp) == template_len);
	fclose(fp);
	fz_unlink_db(tpath);
	return 0;
}

/* A word of the line, case-insensitively, with no identifier around it. */
static bool has_word(const char *line, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = line; *p; p++) {
		if (strncasecmp(p, word, n))
			continue;
		bool before = p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
		if (!before && !after)
			return true;
	}
	return false;
}

static bool fenced_out(const char *line)
{
	static const char *const words[] = {
		"attach", "detach", "vacuum", "with", "recursive", "randomblob",
		"zeroblob", "printf", "format", "load_extension",
		"temp_store_directory", "data_store_directory",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (has_word(line, words[i]))
			return true;
	return false;
}

static int steps_left(void *arg)
{
	return --*(int *)arg < 0;	/* non-zero interrupts the statement */
}

static void apply_sql(char *text)
{
	sqlite3 *h = NULL;
	if (sqlite3_open_v2(fuzz_db_path, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		sqlite3_close(h);
		return;
	}
	sqlite3_limit(h, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(h, SQLITE_LIMIT_LENGTH, 1 << 20);
	sqlite3_limit(h, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
	int budget = 0;
	sqlite3_progress_handler(h, 1000, steps_left, &budget);
	/* One transaction (a statement that fails undoes itself alone): a
	 * commit per line made this the slowest part. */
	sqlite3_exec(h, "PRAGMA synchronous = OFF; BEGIN", NULL, NULL, NULL);
	char *rest = text, *line;
	int n = 0;
	while ((line = fz_field(&rest)) && n++ < 1000) {
		if (fenced_out(line))
			continue;
		budget = 10000;		/* 10 M virtual machine steps */
		sqlite3_exec(h, line, NULL, NULL, NULL);
	}
	sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(h);
}

/* Run one verb as prof would, its output going nowhere. */
static void verb(const char *words)
{
	char buf[512], *argv[32];
	int argc = 0;
	snprintf(buf, sizeof(buf), "%s", words);
	for (char *w = strtok(buf, " "); w && argc < 30; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc++] = "--db";
	argv[argc++] = fuzz_db_path;
	argv[argc] = NULL;
	struct prof_ctx ctx = { .db_path = NULL, .argv0 = "prof" };
	const struct cmd *c = cmd_find(argv[0], NULL);
	FZ_CHECK(c);
	fz_quiet_begin();
	int rc = verb_main(c, argc, argv, &ctx);
	fz_quiet_end();
	if (rc != EXIT_OK && rc != EXIT_FAIL && rc != EXIT_USAGE) {
		fprintf(stderr, "fuzz: 'prof %s' exited %d\n", words, rc);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256 * 1024)
		return 0;
	fz_unlink_db(fuzz_db_path);
	int fd = open(fuzz_db_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	FZ_CHECK(fd >= 0);
	FZ_CHECK(write(fd, template_db, template_len) == (ssize_t)template_len);
	close(fd);

	char *text = fz_str(data, size);
	apply_sql(text);
	free(text);

	verb("runs");
	verb("runs --format json");
	verb("report");
	verb("report 1 --by name --format csv");
	verb("report 2 --format json");
	verb("report 2 --by module --format markdown");
	verb("report 2 --stacks --limit 5");
	verb("report 2 --format folded");
	verb("report 4 --format json");
	verb("report 9 --by total");
	verb("modules 3 --format json");
	verb("modules last");
	verb("compare");
	verb("compare last --format json");
	verb("compare 1 3 --format markdown");
	verb("explain last");
	verb("explain 1 3 --format json");
	return 0;
}
