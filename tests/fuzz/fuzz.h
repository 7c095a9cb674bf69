/*
 * fuzz: what the fuzz targets share. Each tests/fuzz/fuzz_<name>.c defines
 * LLVMFuzzerTestOneInput() (and may define LLVMFuzzerInitialize()) and is
 * built twice: with clang's libFuzzer when PROF_FUZZ is on, and in every
 * normal build against replay.c, which runs the seed corpus and the saved
 * regressions through it as a ctest. Header-only; a target includes it once.
 *
 * A target checks the parser's contract where it can (a refusal comes
 * with a cause, what was accepted reads back the same) and aborts when it
 * is broken, so a wrong answer is a finding as much as a crash is.
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A broken contract: say which and abort, so the fuzzer keeps the input. */
#define FZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz: %s:%d: check failed: %s\n", __FILE__, \
			__LINE__, #cond); \
		abort(); \
	} \
} while (0)

/* The input as a string: a malloc'd copy with a NUL after it (an embedded
 * NUL ends the text early, as it would for any C reader). */
static inline char *fz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Take the next '\n'-separated field of *s (NULL at the end). */
static inline char *fz_field(char **s)
{
	if (!*s)
		return NULL;
	char *f = *s, *nl = strchr(f, '\n');
	if (nl) {
		*nl = '\0';
		*s = nl + 1;
	} else {
		*s = NULL;
	}
	return f;
}

static inline int fz_rm_one(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Remove a tree (depth first; errors ignored). */
static inline void fz_rmrf(const char *path)
{
	nftw(path, fz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Remove an SQLite file and what SQLite may keep beside it: the rollback
 * journal, or an older file's WAL and its index. */
static inline void fz_unlink_db(const char *path)
{
	static const char *const sides[] = { "-journal", "-wal", "-shm" };
	char side[4300];
	unlink(path);
	for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
		snprintf(side, sizeof(side), "%s%s", path, sides[i]);
		unlink(side);
	}
}

static char fz_scratch_path[4096] __attribute__((unused));

static inline void fz_scratch_remove(void)
{
	if (fz_scratch_path[0])
		fz_rmrf(fz_scratch_path);
}

/*
 * A directory of this process's own, made on first use and removed at
 * exit, for targets whose parser reads files: under $TMPDIR when set,
 * else in /dev/shm where there is one (writing a few hundred small files
 * per input is 16 times faster there than on this machine's disk), else
 * in /tmp.
 */
static inline const char *fz_scratch(void)
{
	if (!fz_scratch_path[0]) {
		const char *base = getenv("TMPDIR");
		if (!base || !*base)
			base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
		snprintf(fz_scratch_path, sizeof(fz_scratch_path),
			 "%s/prof-fuzz-XXXXXX", base);
		if (!mkdtemp(fz_scratch_path)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(fz_scratch_remove);
	}
	return fz_scratch_path;
}

/*
 * Code that prints (prof's verbs) prints into /dev/null between
 * fz_quiet_begin() and fz_quiet_end(): thousands of inputs a second would
 * bury the fuzzer's own output. The sanitizers write to fd 2 directly, so
 * their reports still show.
 */
static FILE *fz_saved_out __attribute__((unused));
static FILE *fz_saved_err __attribute__((unused));
static FILE *fz_null __attribute__((unused));

static inline void fz_quiet_begin(void)
{
	if (!fz_null && !(fz_null = fopen("/dev/null", "w")))
		abort();
	fz_saved_out = stdout;
	fz_saved_err = stderr;
	stdout = fz_null;
	stderr = fz_null;
}

static inline void fz_quiet_end(void)
{
	fflush(fz_null);
	stdout = fz_saved_out;
	stderr = fz_saved_err;
}

#endif
