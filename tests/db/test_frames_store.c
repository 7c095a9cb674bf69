/*
 * Tests for db/frames.c and db/timeline.c: a run's frames, frame counts
 * and intervals store and read back, and what the loader would refuse
 * is refused before a row is written (issue 27: a frame of negative
 * length was stored, and then no report could read the run at all).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "db/db.h"
#include "db/runs.h"
#include "test_util.h"

/* A run of one event with n frames, each with a count, and 2 intervals. */
static void make_run(struct db_run *r, size_t n)
{
	tu_run_init(r, "run", "2026-12-02T18:00:00Z", "./game", "vm", "AMD EPYC", 2);
	r->nevents = 1;
	r->events = calloc(1, sizeof(*r->events));
	r->events[0].name = strdup("task-clock");
	r->events[0].supported = true;
	r->nframes = n;
	r->frames = calloc(n, sizeof(*r->frames));
	r->nframe_counts = n;
	r->nframe_names = 1;
	r->frame_names = calloc(1, sizeof(*r->frame_names));
	r->frame_names[0] = strdup("render");
	r->frame_counts = calloc(n, sizeof(*r->frame_counts));
	for (size_t i = 0; i < n; i++) {
		r->frames[i] = (struct db_frame_span){ (int64_t)i * 5000000, 5000000 };
		r->frame_counts[i] = (struct db_frame_count){
			.frame = (uint32_t)i, .name = r->frame_names[0], .value = 42,
		};
	}
	r->nintervals = 2;
	r->intervals = calloc(2, sizeof(*r->intervals));
	for (size_t i = 0; i < 2; i++) {
		r->intervals[i].t_ms = (int64_t)i * 10;
		r->intervals[i].tid = 7;
		r->intervals[i].name = strdup("render");
		r->intervals[i].values = malloc(sizeof(int64_t));
		r->intervals[i].values[0] = 1000;
	}
	db_set_str(r, SET_FRAME_SOURCE, "marker");
	db_set_u64(r, SET_INTERVAL_MS, 10);
}

static int count_runs(struct db *db)
{
	char *s = NULL;
	assert_int_equal(db_query_text(db, "SELECT count(*) FROM runs", &s, NULL), 0);
	int n = atoi(s);
	free(s);
	return n;
}

static void test_frames_store__round_trip(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct db_run r, back;
	make_run(&r, 3);
	char *cause = NULL;
	assert_int_equal(db_run_store(db, &r, &cause), 0);
	assert_int_equal(db_run_load(db, r.id, &back, &cause), 0);
	assert_int_equal(back.nframes, 3);
	assert_int_equal(back.frames[2].t_ns, 10000000);
	assert_int_equal(back.nframe_counts, 3);
	assert_int_equal(back.frame_counts[1].value, 42);
	/* A million-frame run loads millions of counts (issue 27: prof html
	 * of one took 326 MB): 24 bytes each, one copy of each name. */
	assert_int_equal(sizeof(struct db_frame_count), 24);
	assert_string_equal(back.frame_counts[2].name, "render");
	assert_ptr_equal(back.frame_counts[0].name, back.frame_counts[2].name);
	assert_int_equal(back.nframe_names, 1);
	assert_int_equal(back.nintervals, 2);
	db_run_release(&back);
	db_run_release(&r);
	db_close(db);
}

/* Rows go 64 to a statement and the rest one by one (db_insert_rows):
 * 150 frames, their counts and 130 intervals (every fifth not read)
 * come back each in its place. */
static void test_frames_store__many_rows_round_trip(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct db_run r, back;
	make_run(&r, 150);
	for (size_t i = 0; i < 150; i++)
		r.frame_counts[i].value = 3 * i + 1;
	for (size_t i = 0; i < r.nintervals; i++) {
		free(r.intervals[i].name);
		free(r.intervals[i].values);
	}
	free(r.intervals);
	r.nintervals = 130;
	r.intervals = calloc(130, sizeof(*r.intervals));
	for (size_t i = 0; i < 130; i++) {
		r.intervals[i].t_ms = (int64_t)i * 10;
		r.intervals[i].tid = 7 + (int)(i % 2);
		r.intervals[i].name = strdup(i % 2 ? "audio" : "render");
		r.intervals[i].values = malloc(sizeof(int64_t));
		r.intervals[i].values[0] = i % 5 == 4 ? -1 : (int64_t)(1000 + i);
	}
	char *cause = NULL;
	assert_int_equal(db_run_store(db, &r, &cause), 0);
	assert_int_equal(db_run_load(db, r.id, &back, &cause), 0);
	assert_int_equal(back.nframes, 150);
	assert_int_equal(back.nframe_counts, 150);
	for (size_t i = 0; i < 150; i++) {
		assert_int_equal(back.frames[i].t_ns, (int64_t)i * 5000000);
		assert_int_equal(back.frame_counts[i].frame, i);
		assert_int_equal(back.frame_counts[i].value, 3 * i + 1);
	}
	char *v = NULL;
	assert_int_equal(db_query_text(db, "SELECT count(*) || ' ' || sum(value) FROM intervals",
				       &v, NULL), 0);
	/* 104 read: 1000 x 104 plus the indices not = 4 (mod 5) */
	long long sum = 0, n = 0;
	for (size_t i = 0; i < 130; i++)
		if (i % 5 != 4) {
			sum += 1000 + (long long)i;
			n++;
		}
	char want[64];
	snprintf(want, sizeof(want), "%lld %lld", n, sum);
	assert_non_null(v);
	assert_string_equal(v, want);
	free(v);
	assert_int_equal(db_query_text(db, "SELECT name FROM intervals WHERE seq = 127",
				       &v, NULL), 0);
	assert_non_null(v);
	assert_string_equal(v, "audio");
	free(v);
	db_run_release(&back);
	db_run_release(&r);
	db_close(db);
}

/* Each thing the loader refuses, handed to the writer: refused there,
 * with a cause, and no part of the run stored. */
static void test_frames_store__what_cannot_be_read_is_not_stored(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	static const char *const why[] = {
		"frame 1 starts or lasts less than 0 ns",
		"frame 2 starts or lasts less than 0 ns",
		"frame count 0 names no frame or event of the run",
		"frame count 1 names no frame or event of the run",
		"frame count 2 is negative",
		"interval 1 starts before the workload",
	};
	for (size_t k = 0; k < sizeof(why) / sizeof(why[0]); k++) {
		struct db_run r;
		make_run(&r, 3);
		switch (k) {
		case 0: r.frames[1].dur_ns = -8; break;	/* "F -5" after "F 1" */
		case 1: r.frames[2].t_ns = INT64_MIN; break;
		case 2: r.frame_counts[0].frame = 3; break;
		case 3: r.frame_counts[1].event = 1; break;
		case 4: r.frame_counts[2].value = -1; break;
		case 5: r.intervals[1].t_ms = -1; break;
		}
		char *cause = NULL;
		assert_int_equal(db_run_store(db, &r, &cause), -EINVAL);
		assert_non_null(cause);
		assert_non_null(strstr(cause, why[k]));
		assert_non_null(strstr(cause, "which could not be read back"));
		assert_null(strchr(cause, '\n'));	/* one line */
		free(cause);
		assert_int_equal(count_runs(db), 0);
		db_run_release(&r);
	}
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_frames_store__many_rows_round_trip,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_frames_store__round_trip,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_frames_store__what_cannot_be_read_is_not_stored,
						tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
