/*
 * Tests for collectors/jitdump: a jitdump written by tests/helpers/jitgen
 * (tests/fixtures/jit/jitgen.json says what it holds: jit_alpha, then
 * jit_beta over it at the same address) named at each time as it was;
 * records built here for what jitgen does not write (moves, debug info,
 * TSC times); a file read as it grows, a record at a time and a byte at
 * a time; and every malformed header or record refused with a cause,
 * what came before kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "collectors/jitdump.h"
#include "test_util.h"

#define FIXTURE FIXTURES_DIR "/jit/jitgen.dump"
#define ADDR 0x7fa7b314e000ull
#define T_ALPHA 12060584938651ull
#define T_BETA 12060604319055ull

/* ---- a writer for hand-made files ------------------------------------- */

struct img {
	unsigned char b[4096];
	size_t n;
};

static void put(struct img *im, const void *p, size_t n)
{
	assert_true(im->n + n <= sizeof(im->b));
	memcpy(im->b + im->n, p, n);
	im->n += n;
}

static void put32(struct img *im, uint32_t v) { put(im, &v, 4); }
static void put64(struct img *im, uint64_t v) { put(im, &v, 8); }

static void header(struct img *im, uint64_t flags)
{
	put32(im, JITDUMP_MAGIC);
	put32(im, 1);
	put32(im, 40);
	put32(im, 62);
	put32(im, 0);
	put32(im, 7);
	put64(im, 1);
	put64(im, flags);
}

static void load(struct img *im, uint64_t time, uint64_t addr, uint64_t size,
		 uint64_t index, const char *name)
{
	size_t nl = strlen(name) + 1;
	put32(im, JIT_CODE_LOAD);
	put32(im, (uint32_t)(56 + nl + size));
	put64(im, time);
	put32(im, 7);
	put32(im, 7);
	put64(im, addr);
	put64(im, addr);
	put64(im, size);
	put64(im, index);
	put(im, name, nl);
	for (uint64_t i = 0; i < size; i++)
		put(im, "\xc3", 1);
}

static void move(struct img *im, uint64_t time, uint64_t from, uint64_t to,
		 uint64_t size, uint64_t index)
{
	put32(im, JIT_CODE_MOVE);
	put32(im, 64);
	put64(im, time);
	put32(im, 7);
	put32(im, 7);
	put64(im, to);
	put64(im, from);
	put64(im, to);
	put64(im, size);
	put64(im, index);
}

/* A record of another type (debug info), skipped by its size. */
static void other(struct img *im, uint32_t id, uint32_t size)
{
	put32(im, id);
	put32(im, size);
	put64(im, 5);
	for (uint32_t i = 16; i < size; i++)
		put(im, "", 1);
}

static const char *name_at(struct jitdump *jd, uint64_t addr, uint64_t time)
{
	const struct jit_code *c = jitdump_lookup(jd, addr, time, NULL);
	return c ? c->name : NULL;
}

/* ---- cases ------------------------------------------------------------- */

static void test_jitdump__jitgen_file_named_by_time(void **state)
{
	(void)state;
	struct jitdump *jd = jitdump_new(FIXTURE);
	char *cause = NULL;
	assert_int_equal(jitdump_refresh(jd, &cause), 0);
	assert_null(cause);
	assert_int_equal(jitdump_count(jd), 2);
	const struct jitdump_stats *st = jitdump_stats(jd);
	assert_int_equal(st->loads, 2);
	assert_true(st->closed);
	assert_false(st->arch_time);
	assert_int_equal(st->code_bytes, 31);
	assert_int_equal(st->first_time, T_ALPHA);
	assert_int_equal(st->last_time, T_BETA);
	/* Before any load: nothing; then alpha; from beta's time on, beta,
	 * at every byte of it and not past its end. */
	assert_null(name_at(jd, ADDR, T_ALPHA - 1));
	assert_string_equal(name_at(jd, ADDR, T_ALPHA), "jit_alpha");
	assert_string_equal(name_at(jd, ADDR + 14, T_BETA - 1), "jit_alpha");
	assert_null(name_at(jd, ADDR + 15, T_BETA - 1));
	uint64_t off = 0;
	const struct jit_code *c = jitdump_lookup(jd, ADDR + 15, T_BETA, &off);
	assert_string_equal(c->name, "jit_beta");
	assert_int_equal(off, 15);
	assert_int_equal(c->generation, 2);
	assert_int_equal(jitdump_lookup(jd, ADDR, T_ALPHA, NULL)->generation, 1);
	assert_null(name_at(jd, ADDR + 16, UINT64_MAX));
	assert_null(name_at(jd, ADDR - 1, UINT64_MAX));
	/* One region, written twice. */
	assert_int_equal(jitdump_index(jd), 0);
	assert_int_equal(st->rewrites, 1);
	assert_int_equal(st->max_generation, 2);
	/* Nothing more to read: still 0, still two. */
	assert_int_equal(jitdump_refresh(jd, NULL), 0);
	assert_int_equal(jitdump_count(jd), 2);
	jitdump_free(jd);
}

/* The file as the JIT writes it: read while it grows, a piece at a time,
 * a record cut anywhere waiting for the rest. */
static void test_jitdump__read_as_it_grows(void **state)
{
	(void)state;
	char *bytes = tu_slurp(FIXTURE);
	assert_non_null(bytes);
	size_t len = 218;
	char *dir = tu_tmpdir();
	char path[600];
	snprintf(path, sizeof(path), "%s/jit-22678.dump", dir);
	struct jitdump *jd = jitdump_new(path);
	assert_int_equal(jitdump_refresh(jd, NULL), -ENOENT);
	FILE *f = fopen(path, "w");
	/* The header is 40 bytes, each load 81, the close 16. */
	size_t cuts[] = { 3, 40, 41, 100, 121, 150, 201, 202, 218 };
	size_t at = 0, want[] = { 0, 0, 0, 0, 1, 1, 1, 2, 2 };
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		fwrite(bytes + at, 1, cuts[i] - at, f);
		fflush(f);
		at = cuts[i];
		assert_int_equal(jitdump_refresh(jd, NULL), 0);
		assert_int_equal(jitdump_count(jd), want[i]);
	}
	fclose(f);
	assert_true(jitdump_stats(jd)->closed);
	jitdump_free(jd);

	/* A byte at a time through jitdump_feed. */
	jd = jitdump_new("bytes");
	for (size_t i = 0; i < len; i++)
		assert_int_equal(jitdump_feed(jd, bytes + i, 1, NULL), 0);
	assert_int_equal(jitdump_count(jd), 2);
	assert_string_equal(name_at(jd, ADDR, T_BETA), "jit_beta");
	jitdump_free(jd);
	tu_rmrf(dir);
	free(dir);
	free(bytes);
}

/* Moves carry the moved code's name; other records are skipped; several
 * codes at once are told apart; generations count per address. */
static void test_jitdump__moves_skips_and_generations(void **state)
{
	(void)state;
	struct img im = { .n = 0 };
	header(&im, 0);
	load(&im, 100, 0x1000, 0x40, 1, "f_one");
	load(&im, 110, 0x1040, 0x40, 2, "f_two");
	other(&im, JIT_CODE_DEBUG_INFO, 48);
	other(&im, JIT_CODE_UNWINDING_INFO, 40);
	other(&im, 99, 16);
	move(&im, 120, 0x1000, 0x2000, 0x40, 1);
	load(&im, 130, 0x1000, 0x20, 3, "f_three");
	move(&im, 140, 0x9000, 0x3000, 0x10, 77);	/* of no known code */
	struct jitdump *jd = jitdump_new("hand");
	char *cause = NULL;
	assert_int_equal(jitdump_feed(jd, im.b, im.n, &cause), 0);
	assert_null(cause);
	const struct jitdump_stats *st = jitdump_stats(jd);
	assert_int_equal(st->loads, 3);
	assert_int_equal(st->moves, 2);
	assert_int_equal(st->skipped, 3);
	assert_string_equal(name_at(jd, 0x1010, 105), "f_one");
	assert_string_equal(name_at(jd, 0x1050, 115), "f_two");
	assert_null(name_at(jd, 0x2000, 115));
	assert_string_equal(name_at(jd, 0x2000, 125), "f_one");
	/* f_one's old place still holds its bytes until f_three replaces
	 * them: a JIT that moves code says so by writing over it. */
	assert_string_equal(name_at(jd, 0x1010, 125), "f_one");
	assert_string_equal(name_at(jd, 0x1010, 135), "f_three");
	assert_int_equal(jitdump_lookup(jd, 0x1010, 135, NULL)->generation, 2);
	assert_string_equal(name_at(jd, 0x1030, 135), "f_one");
	assert_string_equal(name_at(jd, 0x3008, 145), "jit_code_77");
	jitdump_free(jd);
}

/* TSC timestamps cannot be set against the samples' clock: the latest
 * code at an address names it, whatever the time. */
static void test_jitdump__arch_timestamps_ignore_time(void **state)
{
	(void)state;
	struct img im = { .n = 0 };
	header(&im, JITDUMP_FLAGS_ARCH_TIMESTAMP);
	load(&im, 5000000, 0x1000, 0x10, 1, "early");
	load(&im, 9000000, 0x1000, 0x10, 2, "late");
	struct jitdump *jd = jitdump_new("tsc");
	assert_int_equal(jitdump_feed(jd, im.b, im.n, NULL), 0);
	assert_true(jitdump_stats(jd)->arch_time);
	assert_string_equal(name_at(jd, 0x1000, 1), "late");
	jitdump_free(jd);
}

/* Malformed input: refused with a cause naming the file, what came
 * before kept, and nothing read after. */
static void test_jitdump__malformed(void **state)
{
	(void)state;
	char *cause = NULL;

	/* Not a jitdump; the other byte order; a header too small. */
	struct img im = { .n = 0 };
	put(&im, "ELF\x7f and the rest of it, forty bytes long...", 44);
	struct jitdump *jd = jitdump_new("junk");
	assert_int_equal(jitdump_feed(jd, im.b, im.n, &cause), -EINVAL);
	assert_non_null(strstr(cause, "'junk': not a jitdump file"));
	free(cause);
	/* Refused for good: more bytes change nothing. */
	assert_int_equal(jitdump_feed(jd, im.b, im.n, &cause), -EINVAL);
	assert_non_null(cause);
	free(cause);
	jitdump_free(jd);

	im.n = 0;
	header(&im, 0);
	uint32_t swapped = __builtin_bswap32(JITDUMP_MAGIC);
	memcpy(im.b, &swapped, 4);
	jd = jitdump_new("swapped");
	assert_int_equal(jitdump_feed(jd, im.b, im.n, &cause), -ENOTSUP);
	assert_non_null(strstr(cause, "other byte order"));
	free(cause);
	jitdump_free(jd);

	im.n = 0;
	header(&im, 0);
	uint32_t small = 12;
	memcpy(im.b + 8, &small, 4);
	jd = jitdump_new("small");
	assert_int_equal(jitdump_feed(jd, im.b, im.n, &cause), -EINVAL);
	assert_non_null(strstr(cause, "header"));
	free(cause);
	jitdump_free(jd);

	/* A good load, then records whose sizes cannot be. */
	uint32_t bad_sizes[] = { 0, 8, 56, 0x7fffffff };
	for (size_t i = 0; i < 4; i++) {
		im.n = 0;
		header(&im, 0);
		load(&im, 10, 0x1000, 8, 1, "kept");
		size_t at = im.n;
		load(&im, 20, 0x2000, 8, 2, "bad");
		memcpy(im.b + at + 4, &bad_sizes[i], 4);
		jd = jitdump_new("bad");
		assert_int_equal(jitdump_feed(jd, im.b, im.n, &cause), -EINVAL);
		assert_non_null(strstr(cause, "'bad'"));
		free(cause);
		assert_int_equal(jitdump_count(jd), 1);
		assert_string_equal(name_at(jd, 0x1000, 10), "kept");
		jitdump_free(jd);
	}
	/* A name with no end inside its record. */
	im.n = 0;
	header(&im, 0);
	load(&im, 10, 0x1000, 0, 1, "abc");
	im.n--;				/* drop the NUL ... */
	uint32_t sz = 56 + 3;
	memcpy(im.b + 40 + 4, &sz, 4);	/* ... and say so */
	jd = jitdump_new("noname");
	assert_int_equal(jitdump_feed(jd, im.b, im.n, &cause), -EINVAL);
	assert_non_null(strstr(cause, "no end"));
	free(cause);
	jitdump_free(jd);
	/* Code of no size, or running past 2^64: skipped, not refused. */
	im.n = 0;
	header(&im, 0);
	load(&im, 10, 0x1000, 0, 1, "empty");
	load(&im, 10, UINT64_MAX - 4, 8, 2, "wraps");
	jd = jitdump_new("odd");
	assert_int_equal(jitdump_feed(jd, im.b, im.n, NULL), 0);
	assert_int_equal(jitdump_count(jd), 0);
	assert_int_equal(jitdump_stats(jd)->skipped, 2);
	jitdump_free(jd);
}

/* Fuzz regressions: inputs that once broke jitdump_feed. */
static void test_jitdump__fuzz_regressions(void **state)
{
	(void)state;
	/* empty: no bytes at all, fed to a fresh jitdump (a memmove of a
	 * NULL buffer: undefined behaviour). */
	struct jitdump *jd = jitdump_new("empty");
	assert_int_equal(jitdump_feed(jd, "", 0, NULL), 0);
	assert_int_equal(jitdump_count(jd), 0);
	jitdump_free(jd);
	char path[600];
	snprintf(path, sizeof(path), "%s/jitdump/empty", REGRESSIONS_DIR);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fgetc(f), EOF);
	fclose(f);

	/* overlap-tsc: TSC times, and loads that overlap at other starts:
	 * the latest load covering an address names it, even where an
	 * earlier one starts there (the fuzz check asked too much). */
	snprintf(path, sizeof(path), "%s/jitdump/overlap-tsc", REGRESSIONS_DIR);
	char *bytes = NULL;
	size_t len = 0;
	f = fopen(path, "rb");
	assert_non_null(f);
	FILE *m = open_memstream(&bytes, &len);
	int c;
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	jd = jitdump_new("overlap-tsc");
	jitdump_feed(jd, bytes, len, NULL);
	assert_true(jitdump_stats(jd)->arch_time);
	for (size_t i = 0; i < jitdump_count(jd); i++) {
		const struct jit_code *code = jitdump_at(jd, i);
		const struct jit_code *hit = jitdump_lookup(jd, code->addr, code->time, NULL);
		assert_non_null(hit);
		assert_true(code->addr - hit->addr < hit->size);
	}
	jitdump_free(jd);
	free(bytes);
}

static void test_jitdump__dump_names(void **state)
{
	(void)state;
	uint32_t pid = 0;
	assert_true(jitdump_path_is_dump("/home/u/.debug/jit/x/jit-1234.dump", &pid));
	assert_int_equal(pid, 1234);
	assert_true(jitdump_path_is_dump("jit-7.dump", NULL));
	const char *no[] = { "/tmp/jit-.dump", "/tmp/jit-12.dumpx", "/tmp/jit-12x.dump",
			     "/tmp/perf-12.map", "/tmp/jit--1.dump", "/tmp/jit-99999999999.dump",
			     "/tmp/xjit-1.dump", NULL };
	for (size_t i = 0; no[i]; i++)
		assert_false(jitdump_path_is_dump(no[i], NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jitdump__jitgen_file_named_by_time),
		cmocka_unit_test(test_jitdump__read_as_it_grows),
		cmocka_unit_test(test_jitdump__moves_skips_and_generations),
		cmocka_unit_test(test_jitdump__arch_timestamps_ignore_time),
		cmocka_unit_test(test_jitdump__malformed),
		cmocka_unit_test(test_jitdump__fuzz_regressions),
		cmocka_unit_test(test_jitdump__dump_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
