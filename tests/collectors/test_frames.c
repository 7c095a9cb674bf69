/*
 * Unit tests of collectors/frames: frames between boundaries, and a
 * thread's deltas taken at its last sample before each boundary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "collectors/frames.h"

static void test_frames__deltas_between_boundaries(void **state)
{
	(void)state;
	struct frames *f = frames_new(1);
	assert_non_null(f);
	/* Out of order on purpose: they are sorted. */
	assert_int_equal(frames_mark(f, FRAME_MARKER, 200), 0);
	assert_int_equal(frames_mark(f, FRAME_MARKER, 100), 0);
	assert_int_equal(frames_mark(f, FRAME_MARKER, 300), 0);
	assert_int_equal(frames_count(f, FRAME_MARKER), 2);
	assert_int_equal(frames_count(f, FRAME_REGEX), 0);
	bool have = true;
	uint64_t v;
	v = 5;		/* before the first boundary: not a frame's */
	frames_tick(f, 7, 50, &v, &have);
	v = 105;	/* 100 within frame 0 */
	frames_tick(f, 7, 150, &v, &have);
	v = 106;	/* 1 within frame 1 */
	frames_tick(f, 7, 250, &v, &have);
	uint64_t a, d, out;
	frames_span(f, FRAME_MARKER, 1, &a, &d);
	assert_int_equal(a, 200);
	assert_int_equal(d, 100);
	assert_int_equal(frames_nthreads(f), 1);
	assert_int_equal(frames_thread_tid(f, 0), 7);
	assert_true(frames_delta(f, FRAME_MARKER, 0, 0, 0, &out));
	assert_int_equal(out, 100);
	assert_true(frames_delta(f, FRAME_MARKER, 1, 0, 0, &out));
	assert_int_equal(out, 1);
	frames_free(f);
}

static void test_frames__an_event_never_read_has_no_delta(void **state)
{
	(void)state;
	struct frames *f = frames_new(2);
	frames_mark(f, FRAME_REGEX, 10);
	frames_mark(f, FRAME_REGEX, 20);
	uint64_t v[2] = { 3, 0 };
	bool have[2] = { true, false };
	frames_tick(f, 1, 15, v, have);
	uint64_t out;
	assert_true(frames_delta(f, FRAME_REGEX, 0, 0, 0, &out));
	assert_int_equal(out, 3);
	assert_false(frames_delta(f, FRAME_REGEX, 0, 0, 1, &out));
	frames_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames__deltas_between_boundaries),
		cmocka_unit_test(test_frames__an_event_never_read_has_no_delta),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
