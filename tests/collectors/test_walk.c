/*
 * Tests for collectors/walk: a data walk is one random cycle through every
 * line (each line once a pass, the order fixed by the seed), chases
 * beside a host share its lines without touching its cycle, sizes that
 * cannot make a cycle are refused, and the generated code runs: a jump
 * chain returns after its pass, and the branch loop counts the bytes
 * whose low bit is set, about half of random ones. Nothing here depends
 * on timing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/walk.h"

/* Step one line at a time through a pass: every line once, then home. */
static void test_walk__one_cycle_through_every_line(void **state)
{
	(void)state;
	struct walk *w = walk_new(64 * 1000 + 63, 7);
	assert_non_null(w);
	assert_int_equal(walk_lines(w), 1000);
	assert_int_equal(walk_bytes(w), 64 * 1000);
	assert_int_equal(walk_line_at(w), 0);
	char *seen = calloc(1000, 1);
	for (size_t i = 0; i < 1000; i++) {
		size_t at = walk_line_at(w);
		assert_true(at < 1000);
		if (seen[at])
			fail_msg("line %zu visited twice, at step %zu", at, i);
		seen[at] = 1;
		walk_run(w, 1);
	}
	assert_int_equal(walk_line_at(w), 0);
	free(seen);
	assert_true(walk_huge_bytes(w) <= walk_bytes(w));
	walk_free(w);
}

/* The seed fixes the order; another seed gives another. */
static void test_walk__seed_fixes_the_order(void **state)
{
	(void)state;
	struct walk *a = walk_new(64 * 4096, 1), *b = walk_new(64 * 4096, 1),
		    *c = walk_new(64 * 4096, 2);
	size_t same_ab = 0, same_ac = 0;
	for (int i = 0; i < 100; i++) {
		walk_run(a, 1);
		walk_run(b, 1);
		walk_run(c, 1);
		same_ab += walk_line_at(a) == walk_line_at(b);
		same_ac += walk_line_at(a) == walk_line_at(c);
	}
	assert_int_equal(same_ab, 100);
	assert_true(same_ac < 5);
	/* Not a sequential sweep: a prefetcher must not guess the next line. */
	size_t neighbours = 0, prev = walk_line_at(a);
	for (int i = 0; i < 1000; i++) {
		walk_run(a, 1);
		size_t at = walk_line_at(a);
		neighbours += at == prev + 1 || at + 1 == prev;
		prev = at;
	}
	assert_true(neighbours < 20);
	walk_free(a);
	walk_free(b);
	walk_free(c);
}

/* Chases beside a host share its lines: each its own single cycle over
 * its prefix, the host's cycle untouched by them; ones that do not fit
 * are refused. */
static void test_walk__beside_shares_the_lines(void **state)
{
	(void)state;
	struct walk *host = walk_new(64 * 1000, 7);
	assert_non_null(host);
	struct walk *b[WALK_SLOTS];
	for (unsigned k = 1; k < WALK_SLOTS; k++) {
		b[k] = walk_new_beside(host, 64 * (1000 - 100 * k), k, 7 + k);
		assert_non_null(b[k]);
		assert_int_equal(walk_lines(b[k]), 1000 - 100 * k);
		assert_true(walk_huge_bytes(b[k]) <= walk_bytes(b[k]));
	}
	struct walk *all[WALK_SLOTS];
	all[0] = host;
	for (unsigned k = 1; k < WALK_SLOTS; k++)
		all[k] = b[k];
	for (unsigned k = 0; k < WALK_SLOTS; k++) {
		size_t n = walk_lines(all[k]);
		char *seen = calloc(n, 1);
		for (size_t i = 0; i < n; i++) {
			size_t at = walk_line_at(all[k]);
			assert_true(at < n);
			if (seen[at])
				fail_msg("slot %u: line %zu visited twice", k, at);
			seen[at] = 1;
			walk_run(all[k], 1);
		}
		assert_int_equal(walk_line_at(all[k]), 0);
		free(seen);
	}
	errno = 0;
	assert_null(walk_new_beside(host, 64 * 1001, 1, 1));
	assert_int_equal(errno, EINVAL);
	assert_null(walk_new_beside(host, 64 * 10, 0, 1));
	assert_null(walk_new_beside(host, 64 * 10, WALK_SLOTS, 1));
	assert_null(walk_new_beside(NULL, 64 * 10, 1, 1));
	for (unsigned k = 1; k < WALK_SLOTS; k++)
		walk_free(b[k]);
	walk_free(host);
}

static void test_walk__too_small_is_refused(void **state)
{
	(void)state;
	errno = 0;
	assert_null(walk_new(0, 1));
	assert_int_equal(errno, EINVAL);
	assert_null(walk_new(127, 1));
	assert_int_equal(errno, EINVAL);
	struct walk *w = walk_new(128, 1);
	assert_non_null(w);
	walk_run(w, 3);
	assert_int_equal(walk_line_at(w), 1);
	walk_free(w);
	walk_free(NULL);
	assert_null(code_walk_new(1, WALK_LINE, 1));
	assert_null(code_walk_new(4, 32, 1));
	assert_null(code_walk_new(4, 96, 1));
	assert_null(branch_walk_new(0, 1));
	code_walk_free(NULL);
	branch_walk_free(NULL);
}

#if defined(__x86_64__)
/* Mappings of this process that are writable and executable at once. */
static int wx_mappings(void)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	assert_non_null(fp);
	char line[512];
	int n = 0;
	while (fgets(line, sizeof(line), fp)) {
		char perms[8];
		if (sscanf(line, "%*s %7s", perms) == 1 && perms[1] == 'w' &&
		    perms[2] == 'x')
			n++;
	}
	fclose(fp);
	return n;
}

/* A chain returns after each pass, at line and at page stride, and its
 * code is never writable and executable at once. */
static void test_walk__jump_chains_run_and_return(void **state)
{
	(void)state;
	const size_t strides[] = { WALK_LINE, WALK_PAGE };
	const size_t slots[] = { 2, 3, 2048 };
	for (size_t s = 0; s < 2; s++)
		for (size_t n = 0; n < 3; n++) {
			struct code_walk *cw = code_walk_new(slots[n], strides[s], 5);
			if (!cw)
				fail_msg("%zu slots at stride %zu: %s", slots[n],
					 strides[s], strerror(errno));
			assert_int_equal(code_walk_slots(cw), slots[n]);
			assert_int_equal(wx_mappings(), 0);
			assert_true(code_walk_run(cw, 3) > 0);
			code_walk_free(cw);
		}
}

/* The loop counts the set low bits: about half of random bytes, the same
 * every pass. */
static void test_walk__branch_loop_counts_half(void **state)
{
	(void)state;
	struct branch_walk *bw = branch_walk_new(65536, 9);
	assert_non_null(bw);
	assert_int_equal(wx_mappings(), 0);
	assert_int_equal(branch_walk_len(bw), 65536);
	assert_int_equal(branch_walk_taken(bw), 0);
	branch_walk_run(bw, 1);
	uint64_t taken = branch_walk_taken(bw);
	/* 65536 fair coins: 6 sigma is 768. */
	assert_true(taken > 32768 - 768 && taken < 32768 + 768);
	branch_walk_run(bw, 2);
	assert_int_equal(branch_walk_taken(bw), taken);
	branch_walk_free(bw);
	bw = branch_walk_new(1, 9);
	assert_non_null(bw);
	branch_walk_run(bw, 1);
	assert_true(branch_walk_taken(bw) <= 1);
	branch_walk_free(bw);
}
#else
static void test_walk__no_codegen_says_so(void **state)
{
	(void)state;
	errno = 0;
	assert_null(code_walk_new(16, WALK_LINE, 1));
	assert_int_equal(errno, ENOTSUP);
	assert_null(branch_walk_new(16, 1));
	assert_int_equal(errno, ENOTSUP);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk__one_cycle_through_every_line),
		cmocka_unit_test(test_walk__seed_fixes_the_order),
		cmocka_unit_test(test_walk__beside_shares_the_lines),
		cmocka_unit_test(test_walk__too_small_is_refused),
#if defined(__x86_64__)
		cmocka_unit_test(test_walk__jump_chains_run_and_return),
		cmocka_unit_test(test_walk__branch_loop_counts_half),
#else
		cmocka_unit_test(test_walk__no_codegen_says_so),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
