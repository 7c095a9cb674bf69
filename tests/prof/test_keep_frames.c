/*
 * Tests for the frames a window keeps (prof/run/collector.h's
 * window_keep_frames and window_keep_frame_range), without a workload:
 * frames of no length, as two stdout lines read together make, on a
 * window's edges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "db/runs.h"
#include "prof/run/run.h"

#define MS 1000000ll

/* Frames from marks at these ms (frame i from mark i to mark i+1), and
 * a count for each frame whose value is its index. */
static void make_frames(struct db_run *run, const int64_t *mark_ms, size_t nmarks)
{
	memset(run, 0, sizeof(*run));
	size_t n = nmarks - 1;
	run->frames = calloc(n, sizeof(*run->frames));
	run->frame_counts = calloc(n, sizeof(*run->frame_counts));
	assert_non_null(run->frames);
	assert_non_null(run->frame_counts);
	for (size_t i = 0; i < n; i++) {
		run->frames[i] = (struct db_frame_span){
			.t_ns = mark_ms[i] * MS, .dur_ns = (mark_ms[i + 1] - mark_ms[i]) * MS,
		};
		run->frame_counts[i] = (struct db_frame_count){
			.name = "render", .value = (int64_t)i, .frame = (uint32_t)i,
		};
	}
	run->nframes = run->nframe_counts = n;
}

static void drop_frames(struct db_run *run)
{
	free(run->frames);
	free(run->frame_counts);
}

/* The frames kept, as the indexes they had (their counts' values), and
 * each count pointing at its own frame. */
static void expect_kept(const struct db_run *run, size_t first, size_t last)
{
	assert_int_equal(run->nframes, last - first + 1);
	assert_int_equal(run->nframe_counts, last - first + 1);
	for (size_t k = 0; k < run->nframe_counts; k++) {
		assert_int_equal(run->frame_counts[k].frame, k);
		assert_int_equal(run->frame_counts[k].value, (int64_t)(first + k));
	}
}

/*
 * frame:2:4 (indexes 1 to 3) of marks 0 5 5 10 15 20 20 25: frames 1
 * (5 to 5) and 5 (20 to 20) are of no length, on the window's two edges.
 * A window by times [5, 20] would keep them too: five frames, not three
 * (the flake of test_window's frames_n_to_m, 21 of 20, in a slow guest).
 */
static void test_range_keeps_its_frames_alone(void **state)
{
	(void)state;
	const int64_t marks[] = { 0, 5, 5, 10, 15, 20, 20, 25 };
	struct db_run run;
	make_frames(&run, marks, 8);
	window_keep_frame_range(&run, 1, 3);
	expect_kept(&run, 1, 3);
	assert_int_equal(run.frames[0].t_ns, 5 * MS);
	assert_int_equal(run.frames[0].dur_ns, 0);
	assert_int_equal(run.frames[2].t_ns + run.frames[2].dur_ns, 15 * MS);
	drop_frames(&run);

	make_frames(&run, marks, 8);
	window_keep_frame_range(&run, 2, 4);
	expect_kept(&run, 2, 4);
	drop_frames(&run);
}

/* A range past the last frame ends with it; one before the first keeps
 * none. */
static void test_range_at_the_ends(void **state)
{
	(void)state;
	const int64_t marks[] = { 0, 5, 10, 15 };
	struct db_run run;
	make_frames(&run, marks, 4);
	window_keep_frame_range(&run, 1, 99);
	expect_kept(&run, 1, 2);
	drop_frames(&run);

	make_frames(&run, marks, 4);
	window_keep_frame_range(&run, 5, 9);
	assert_int_equal(run.nframes, 0);
	assert_int_equal(run.nframe_counts, 0);
	drop_frames(&run);
}

/*
 * A window of seconds [5, 20] ms: a frame of no length at its start is
 * inside it, one at its end belongs to the time after; frames that cross
 * an edge are out.
 */
static void test_seconds_window_edges(void **state)
{
	(void)state;
	const int64_t marks[] = { 0, 5, 5, 10, 20, 20, 25 };
	struct db_run run;
	make_frames(&run, marks, 7);
	window_keep_frames(&run, 5 * MS, 20 * MS);
	expect_kept(&run, 1, 3);
	drop_frames(&run);

	make_frames(&run, marks, 7);
	window_keep_frames(&run, 6 * MS, 19 * MS);
	assert_int_equal(run.nframes, 0);
	drop_frames(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range_keeps_its_frames_alone),
		cmocka_unit_test(test_range_at_the_ends),
		cmocka_unit_test(test_seconds_window_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
