/*
 * ringread: hand-built rings in the states the kernel leaves them in when
 * several CPUs write at once: a head that stopped while records kept
 * coming, a record torn by two writers, a record still being written,
 * and stale bytes of the previous lap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/ringread.h"

#define RING 4096u
#define OUR_ID 42u
#define REC 64u	/* a FORK record: header, 24 bytes, 32-byte trailer */
#define MS 1000000ull

static const struct perf_rec_layout lay = {
	.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
		       PERF_SAMPLE_IDENTIFIER,
	.read_format = 0,
};

struct ring {
	uint8_t data[RING];
	uint8_t scratch[65536];
};

static bool ours(uint64_t id, void *arg)
{
	(void)arg;
	return id == OUR_ID;
}

/* Write a FORK record for tid at byte pos (wrapping), with time t. */
static void put_fork(struct ring *r, uint64_t pos, uint32_t tid, uint64_t t,
		     uint64_t id)
{
	uint8_t b[REC];
	memset(b, 0, sizeof(b));
	struct perf_event_header h = { PERF_RECORD_FORK, 0, REC };
	memcpy(b, &h, 8);
	uint32_t ids[4] = { tid, 1, tid, 1 };
	memcpy(b + 8, ids, 16);
	memcpy(b + 24, &t, 8);
	uint32_t pt[2] = { tid, tid };
	memcpy(b + 32, pt, 8);		/* trailer: pid, tid */
	memcpy(b + 40, &t, 8);		/* time */
	uint32_t cpu[2] = { 1, 0 };
	memcpy(b + 48, cpu, 8);		/* cpu, res */
	memcpy(b + 56, &id, 8);		/* identifier */
	for (size_t i = 0; i < REC; i++)
		r->data[(pos + i) % RING] = b[i];
}

static struct ring_view view(struct ring *r, uint64_t head, uint64_t now)
{
	struct ring_view v = {
		.data = r->data, .size = RING, .head = head, .now_ns = now,
		.settle_ns = 20 * MS, .lay = &lay, .known_id = ours,
		.scratch = r->scratch, .scratch_size = sizeof(r->scratch),
	};
	return v;
}

/* One drain: take everything ring_next gives; return how many, tids in
 * order. The drain begins where the reader stands, as counters' does. */
static size_t take_all(struct ring_reader *rr, const struct ring_view *view,
		       uint32_t *tids, size_t max)
{
	size_t n = 0;
	const void *rec;
	size_t len;
	struct ring_view w = *view;
	const struct ring_view *v = &w;
	w.tail = rr->pos;
	while (ring_next(rr, v, &rec, &len)) {
		if (n > 4 * RING / REC)
			fail_msg("ring_next took %zu records from a %u-byte ring",
				 n, RING);
		assert_int_equal(len, REC);
		uint32_t tid;
		memcpy(&tid, (const uint8_t *)rec + 16, 4);
		if (n < max)
			tids[n] = tid;
		n++;
	}
	return n;
}

static void test_ringread__published_records(void **state)
{
	(void)state;
	struct ring *r = calloc(1, sizeof(*r));
	for (uint32_t i = 0; i < 5; i++)
		put_fork(r, i * REC, 100 + i, (1000 + i) * MS, OUR_ID);
	struct ring_reader rr = { 0 };
	struct ring_view v = view(r, 5 * REC, 1005 * MS);
	uint32_t tids[8];
	assert_int_equal(take_all(&rr, &v, tids, 8), 5);
	assert_int_equal(tids[4], 104);
	assert_int_equal(rr.pos, 5 * REC);
	assert_int_equal(rr.past_head, 0);
	assert_int_equal(rr.torn_runs, 0);
	free(r);
}

/* The kernel's head stopped after two records; three more were written. */
static void test_ringread__records_past_a_stalled_head(void **state)
{
	(void)state;
	struct ring *r = calloc(1, sizeof(*r));
	for (uint32_t i = 0; i < 5; i++)
		put_fork(r, i * REC, 100 + i, (1000 + i) * MS, OUR_ID);
	struct ring_reader rr = { 0 };
	struct ring_view v = view(r, 2 * REC, 2000 * MS);
	uint32_t tids[8];
	assert_int_equal(take_all(&rr, &v, tids, 8), 5);
	assert_int_equal(tids[2], 102);
	assert_int_equal(rr.past_head, 3);
	assert_int_equal(rr.pos, 5 * REC);
	/* nothing more until something is written */
	assert_int_equal(take_all(&rr, &v, tids, 8), 0);
	put_fork(r, 5 * REC, 105, 1900 * MS, OUR_ID);
	assert_int_equal(take_all(&rr, &v, tids, 8), 1);
	assert_int_equal(rr.past_head, 4);
	free(r);
}

/* An unpublished record younger than the settle time waits. */
static void test_ringread__fresh_records_wait(void **state)
{
	(void)state;
	struct ring *r = calloc(1, sizeof(*r));
	put_fork(r, 0, 100, 1000 * MS, OUR_ID);
	put_fork(r, REC, 101, 1995 * MS, OUR_ID);
	struct ring_reader rr = { 0 };
	struct ring_view v = view(r, REC, 2000 * MS);
	uint32_t tids[4];
	assert_int_equal(take_all(&rr, &v, tids, 4), 1);
	assert_int_equal(rr.pos, REC);
	v.now_ns = 2100 * MS;
	assert_int_equal(take_all(&rr, &v, tids, 4), 1);
	assert_int_equal(tids[0], 101);
	free(r);
}

/* Past the head lie the previous lap's records: older, never taken. */
static void test_ringread__stale_lap_is_not_taken(void **state)
{
	(void)state;
	struct ring *r = calloc(1, sizeof(*r));
	for (uint32_t i = 0; i < RING / REC; i++)
		put_fork(r, i * REC, 100 + i, (1000 + i) * MS, OUR_ID);
	/* the second lap wrote three records over the first */
	for (uint32_t i = 0; i < 3; i++)
		put_fork(r, RING + i * REC, 500 + i, (5000 + i) * MS, OUR_ID);
	struct ring_reader rr = { .pos = RING };
	struct ring_view v = view(r, RING + 3 * REC, 6000 * MS);
	uint32_t tids[8];
	assert_int_equal(take_all(&rr, &v, tids, 8), 3);
	assert_int_equal(tids[2], 502);
	assert_int_equal(rr.past_head, 0);
	assert_int_equal(rr.torn_runs, 0);
	assert_int_equal(rr.pos, RING + 3 * REC);
	free(r);
}

/* At the end of a run: only a record of this lap that is still settling
 * is worth waiting for; an empty spot or the last lap's bytes are not. */
static void test_ringread__settling_is_this_laps_records_only(void **state)
{
	(void)state;
	struct ring *r = calloc(1, sizeof(*r));
	struct ring_reader rr = { 0 };
	struct ring_view v = view(r, 0, 1000 * MS);
	assert_false(ring_settling(&rr, &v));		/* never written */
	/* a whole lap, then three records over it, all taken */
	for (uint32_t i = 0; i < RING / REC; i++)
		put_fork(r, i * REC, 100 + i, (1000 + i) * MS, OUR_ID);
	for (uint32_t i = 0; i < 3; i++)
		put_fork(r, RING + i * REC, 500 + i, (5000 + i) * MS, OUR_ID);
	rr.pos = RING;
	v = view(r, RING + 3 * REC, 6000 * MS);
	uint32_t tids[8];
	assert_int_equal(take_all(&rr, &v, tids, 8), 3);
	v.tail = rr.pos;
	assert_false(ring_settling(&rr, &v));		/* stale bytes follow */
	/* one more written past the head, 5 ms ago: wait for it */
	put_fork(r, RING + 3 * REC, 503, 5995 * MS, OUR_ID);
	v.now_ns = 6000 * MS;
	assert_int_equal(take_all(&rr, &v, tids, 8), 0);
	assert_true(ring_settling(&rr, &v));
	v.now_ns = 6100 * MS;				/* settled: taken */
	assert_int_equal(take_all(&rr, &v, tids, 8), 1);
	assert_int_equal(tids[0], 503);
	v.tail = rr.pos;
	assert_false(ring_settling(&rr, &v));
	/* a torn spot before a settling record: still worth the wait */
	memset(r->data + (RING + 4 * REC) % RING, 0xee, 24);
	put_fork(r, RING + 4 * REC + 24, 504, 6095 * MS, OUR_ID);
	assert_true(ring_settling(&rr, &v));
	free(r);
}

/* Two writers tore a record: skip it, count it, read on. */
static void test_ringread__torn_record_is_skipped_and_counted(void **state)
{
	(void)state;
	struct ring *r = calloc(1, sizeof(*r));
	put_fork(r, 0, 100, 1000 * MS, OUR_ID);
	memset(r->data + REC, 0xa5, REC);	/* garbage where a record was */
	put_fork(r, 2 * REC, 102, 1002 * MS, OUR_ID);
	put_fork(r, 3 * REC, 103, 1003 * MS, OUR_ID);
	struct ring_reader rr = { 0 };
	struct ring_view v = view(r, REC, 2000 * MS);	/* head stalled too */
	uint32_t tids[8];
	assert_int_equal(take_all(&rr, &v, tids, 8), 3);
	assert_int_equal(tids[1], 102);
	assert_int_equal(rr.torn_bytes, REC);
	assert_int_equal(rr.torn_runs, 1);
	free(r);
}

/* A published record whose size cannot be right is skipped, counted. */
static void test_ringread__torn_published_record(void **state)
{
	(void)state;
	struct ring *r = calloc(1, sizeof(*r));
	put_fork(r, 0, 100, 1000 * MS, OUR_ID);
	struct perf_event_header bad = { PERF_RECORD_FORK, 0, 4000 };
	memcpy(r->data + REC, &bad, sizeof(bad));
	put_fork(r, 2 * REC, 102, 1002 * MS, OUR_ID);
	struct ring_reader rr = { 0 };
	struct ring_view v = view(r, 3 * REC, 2000 * MS);
	uint32_t tids[8];
	assert_int_equal(take_all(&rr, &v, tids, 8), 2);
	assert_int_equal(tids[1], 102);
	assert_int_equal(rr.torn_bytes, REC);
	assert_int_equal(rr.pos, 3 * REC);
	free(r);
}

/* Records of events that are not the run's are not taken past the head. */
static void test_ringread__foreign_ids_are_refused(void **state)
{
	(void)state;
	struct ring *r = calloc(1, sizeof(*r));
	put_fork(r, 0, 100, 1000 * MS, 7);
	struct ring_reader rr = { 0 };
	struct ring_view v = view(r, 0, 2000 * MS);
	uint32_t tids[2];
	assert_int_equal(take_all(&rr, &v, tids, 2), 0);
	assert_int_equal(rr.pos, 0);
	free(r);
}

/* A record that wraps the end of the ring, published and not. */
static void test_ringread__wrapped_records(void **state)
{
	(void)state;
	struct ring *r = calloc(1, sizeof(*r));
	uint64_t start = RING - REC / 2;
	put_fork(r, start, 100, 1000 * MS, OUR_ID);
	put_fork(r, start + REC, 101, 1001 * MS, OUR_ID);
	put_fork(r, start + 2 * REC, 102, 1002 * MS, OUR_ID);
	struct ring_reader rr = { .pos = start };
	struct ring_view v = view(r, start + REC, 2000 * MS);
	uint32_t tids[4];
	assert_int_equal(take_all(&rr, &v, tids, 4), 3);
	assert_int_equal(tids[0], 100);
	assert_int_equal(tids[2], 102);
	assert_int_equal(rr.past_head, 2);
	free(r);
}

/*
 * A head that never moved, and a whole lap of records written within the
 * time skew of each other past it: one drain takes the lap once and stops
 * where it began plus the ring's size. Found by fuzz_ringread (tests/fuzz/
 * regressions/ringread/): the bytes after a full lap are the drain's own
 * first records, not stale enough to refuse, and the reader went round
 * and round taking them again.
 */
static void test_ringread__one_lap_per_drain(void **state)
{
	(void)state;
	struct ring *r = calloc(1, sizeof(*r));
	for (uint32_t i = 0; i < RING / REC; i++)
		put_fork(r, i * REC, 100 + i, 1000 * MS + i, OUR_ID);
	struct ring_reader rr = { 0 };
	struct ring_view v = view(r, 0, 2000 * MS);
	uint32_t tids[RING / REC];
	assert_int_equal(take_all(&rr, &v, tids, RING / REC), RING / REC);
	assert_int_equal(tids[RING / REC - 1], 100 + RING / REC - 1);
	assert_int_equal(rr.pos, RING);
	assert_int_equal(rr.past_head, RING / REC);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ringread__published_records),
		cmocka_unit_test(test_ringread__records_past_a_stalled_head),
		cmocka_unit_test(test_ringread__fresh_records_wait),
		cmocka_unit_test(test_ringread__stale_lap_is_not_taken),
		cmocka_unit_test(test_ringread__settling_is_this_laps_records_only),
		cmocka_unit_test(test_ringread__torn_record_is_skipped_and_counted),
		cmocka_unit_test(test_ringread__torn_published_record),
		cmocka_unit_test(test_ringread__foreign_ids_are_refused),
		cmocka_unit_test(test_ringread__wrapped_records),
		cmocka_unit_test(test_ringread__one_lap_per_drain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
