/*
 * Unit tests of collectors/frames: frames between boundaries, and a
 * thread's deltas taken at its last sample before each boundary; the
 * marker lines' gate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

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
	frames_tick(f, 7, 50, &v, &have, false);
	v = 105;	/* 100 within frame 0 */
	frames_tick(f, 7, 150, &v, &have, false);
	v = 106;	/* 1 within frame 1 */
	frames_tick(f, 7, 250, &v, &have, false);
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

/* The per-CPU path's values are a thread's totals as of each call, and
 * a multiplexed group's share comes late, at the earlier end of its
 * slice: 100 by 100 ns, a switch-in at 300 (still 100), then the share
 * of 50 for the slice that ended at 200 (totals 150), then 100 more by
 * 400. Frames [150, 350) and [350, 450) get 50 and 100: the share where
 * it was counted, and the switch-in's stale totals not taken for 300's. */
static void test_frames__late_share_lands_at_its_time(void **state)
{
	(void)state;
	struct frames *f = frames_new(1);
	assert_non_null(f);
	frames_totals_as_called(f);
	frames_mark(f, FRAME_MARKER, 150);
	frames_mark(f, FRAME_MARKER, 350);
	frames_mark(f, FRAME_MARKER, 450);
	bool have = true;
	uint64_t v = 100;
	frames_tick(f, 7, 100, &v, &have, false);
	frames_tick(f, 7, 300, &v, &have, false);
	v = 150;
	frames_tick(f, 7, 200, &v, &have, false);
	v = 250;
	frames_tick(f, 7, 400, &v, &have, false);
	uint64_t out;
	assert_true(frames_delta(f, FRAME_MARKER, 0, 0, 0, &out));
	assert_int_equal(out, 50);
	assert_true(frames_delta(f, FRAME_MARKER, 1, 0, 0, &out));
	assert_int_equal(out, 100);
	frames_free(f);
}

/* A busy thread ticked at 0, 100 and 200 ns of a steady loop (10 counts a
 * ns), frames at 50 and 150: from a tick the thread ran on, so the edges
 * get their share by time; after a switch it did not, and the edge takes
 * the switch's value. */
static void test_frames__edges_between_ticks_shared_by_time(void **state)
{
	(void)state;
	struct frames *f = frames_new(1);
	assert_non_null(f);
	frames_mark(f, FRAME_MARKER, 50);
	frames_mark(f, FRAME_MARKER, 150);
	frames_mark(f, FRAME_MARKER, 350);
	bool have = true;
	uint64_t v = 0, out;
	frames_tick(f, 3, 0, &v, &have, true);
	v = 1000;
	frames_tick(f, 3, 100, &v, &have, true);
	v = 2000;	/* switched out here: asleep until 300 */
	frames_tick(f, 3, 200, &v, &have, false);
	v = 2500;
	frames_tick(f, 3, 400, &v, &have, false);
	assert_true(frames_delta(f, FRAME_MARKER, 0, 0, 0, &out));
	assert_int_equal(out, 1000);	/* 500 at 50, 1500 at 150 */
	assert_true(frames_delta(f, FRAME_MARKER, 1, 0, 0, &out));
	assert_int_equal(out, 500);	/* 2000 at 350: no share of 2500 */
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
	frames_tick(f, 1, 15, v, have, false);
	uint64_t out;
	assert_true(frames_delta(f, FRAME_REGEX, 0, 0, 0, &out));
	assert_int_equal(out, 3);
	assert_false(frames_delta(f, FRAME_REGEX, 0, 0, 1, &out));
	frames_free(f);
}

/* The marker lines of a run that began at 1000 ns, read at 5000 ns. */
static void test_frames__gate_keeps_what_the_database_reads(void **state)
{
	(void)state;
	struct frame_gate g;
	frame_gate_init(&g, 1000);
	static const struct {
		const char *line;
		bool kept;
	} in[] = {
		{ "F 1", false },			/* before the run */
		{ "F 2000", true },
		{ "F -5", false },			/* strtoull: 2^64-5 */
		{ "F 9223372036854775808", false },	/* past INT64_MAX */
		{ "F 99999999999999999999999", false },
		{ "F 1500", false },			/* earlier than 2000 */
		{ "F 2000", true },			/* the same time: kept */
		{ "F 6000", false },			/* later than its arrival */
		{ "F 3000x", false },
		{ "F ", false },
		{ "F  3000", false },
		{ "frame 3", false },
		{ "", false },
		{ "B 3000 physics", false },		/* a zone: not counted */
		{ "E 3000 physics", false },
		{ "F 5000", true },
	};
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		uint64_t t = 0;
		assert_int_equal(frame_gate_line(&g, in[i].line, 5000, &t), in[i].kept);
		if (in[i].kept)
			assert_int_equal(t, strtoull(in[i].line + 2, NULL, 10));
	}
	assert_int_equal(g.kept, 3);
	assert_int_equal(g.dropped[FRAME_DROP_BEFORE], 1);
	assert_int_equal(g.dropped[FRAME_DROP_RANGE], 3);
	assert_int_equal(g.dropped[FRAME_DROP_BACKWARDS], 1);
	assert_int_equal(g.dropped[FRAME_DROP_FUTURE], 1);
	assert_int_equal(g.dropped[FRAME_DROP_UNREADABLE], 5);
	assert_int_equal(frame_gate_dropped(&g), 11);
	char *note = frame_gate_note(&g);
	assert_string_equal(note, "11 frame markers dropped of 14: 5 not 'F <ns>', "
			    "3 negative or past 2^63-1 ns, 1 before the run began, "
			    "1 later than their arrival, 1 earlier than the marker "
			    "before");
	free(note);
	frame_gate_init(&g, 0);
	assert_null(frame_gate_note(&g));	/* nothing dropped, no note */
	uint64_t t;
	assert_true(frame_gate_line(&g, "F 9223372036854775807", UINT64_MAX, &t));
	assert_int_equal(t, INT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames__deltas_between_boundaries),
		cmocka_unit_test(test_frames__late_share_lands_at_its_time),
		cmocka_unit_test(test_frames__edges_between_ticks_shared_by_time),
		cmocka_unit_test(test_frames__an_event_never_read_has_no_delta),
		cmocka_unit_test(test_frames__gate_keeps_what_the_database_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
