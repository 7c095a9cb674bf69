/*
 * Tests for collectors/threads: the ring-buffer record decoder, the
 * per-thread table, and a replay of recorded ring-buffer bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "collectors/threads.h"
#include "test_util.h"

#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	    PERF_SAMPLE_IDENTIFIER)
#define RF (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | \
	    PERF_FORMAT_ID)

static const struct perf_rec_layout lay = { ST, RF, 0, 0 };

/* A record under construction: header, body, then the sample_id trailer. */
struct rb {
	uint8_t buf[512];
	size_t len;
};

static void rb_begin(struct rb *r, uint32_t type, uint16_t misc)
{
	memset(r, 0, sizeof(*r));
	struct perf_event_header h = { type, misc, 0 };
	memcpy(r->buf, &h, sizeof(h));
	r->len = sizeof(h);
}

static void rb_u64(struct rb *r, uint64_t v)
{
	memcpy(r->buf + r->len, &v, 8);
	r->len += 8;
}

static void rb_u32x2(struct rb *r, uint32_t a, uint32_t b)
{
	memcpy(r->buf + r->len, &a, 4);
	memcpy(r->buf + r->len + 4, &b, 4);
	r->len += 8;
}

static void rb_str(struct rb *r, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + 7) & ~(size_t)7;
	memset(r->buf + r->len, 0, padded);
	memcpy(r->buf + r->len, s, n);
	r->len += padded;
}

/* The trailer for ST: pid/tid, time, cpu/res, identifier. */
static void rb_end(struct rb *r, uint32_t pid, uint32_t tid, uint64_t time,
		   uint64_t id)
{
	rb_u32x2(r, pid, tid);
	rb_u64(r, time);
	rb_u32x2(r, 1, 0);
	rb_u64(r, id);
	uint16_t size = (uint16_t)r->len;
	memcpy(r->buf + 6, &size, 2);
}

static void mk_fork(struct rb *r, uint32_t pid, uint32_t ppid, uint32_t tid,
		    uint32_t ptid, uint64_t time)
{
	rb_begin(r, PERF_RECORD_FORK, 0);
	rb_u32x2(r, pid, ppid);
	rb_u32x2(r, tid, ptid);
	rb_u64(r, time);
	rb_end(r, pid, tid, time, 77);
}

static void mk_comm(struct rb *r, uint32_t pid, uint32_t tid, const char *name)
{
	rb_begin(r, PERF_RECORD_COMM, 0);
	rb_u32x2(r, pid, tid);
	rb_str(r, name);
	rb_end(r, pid, tid, 5, 77);
}

static void mk_read(struct rb *r, uint32_t pid, uint32_t tid, uint64_t value,
		    uint64_t en, uint64_t run, uint64_t id)
{
	rb_begin(r, PERF_RECORD_READ, 0);
	rb_u32x2(r, pid, tid);
	rb_u64(r, value);
	rb_u64(r, en);
	rb_u64(r, run);
	rb_u64(r, id);
	rb_end(r, pid, tid, 9, id);
}

static void feed(struct thread_table *tt, struct rb *r, int origin)
{
	struct perf_rec rec;
	assert_int_equal(perf_rec_decode(r->buf, r->len, &lay, NULL, NULL, &rec), 0);
	assert_int_equal(thread_table_feed(tt, &rec, origin), 0);
}

static void test_threads__decodes_each_record_type(void **state)
{
	(void)state;
	struct rb r;
	struct perf_rec rec;

	mk_comm(&r, 10, 11, "worker-1");
	assert_int_equal(perf_rec_decode(r.buf, r.len, &lay, NULL, NULL, &rec), 0);
	assert_int_equal(rec.type, PERF_RECORD_COMM);
	assert_int_equal(rec.u.comm.tid, 11);
	assert_string_equal(rec.u.comm.comm, "worker-1");
	assert_true(rec.sid.valid);
	assert_int_equal(rec.sid.id, 77);
	assert_int_equal(rec.sid.cpu, 1);

	mk_fork(&r, 10, 10, 12, 11, 1234);
	assert_int_equal(perf_rec_decode(r.buf, r.len, &lay, NULL, NULL, &rec), 0);
	assert_int_equal(rec.u.task.tid, 12);
	assert_int_equal(rec.u.task.ptid, 11);
	assert_int_equal(rec.u.task.time, 1234);

	mk_read(&r, 10, 12, 500, 1000, 800, 42);
	assert_int_equal(perf_rec_decode(r.buf, r.len, &lay, NULL, NULL, &rec), 0);
	assert_int_equal(rec.u.read.nr, 1);
	assert_int_equal(rec.u.read.value[0], 500);
	assert_int_equal(rec.u.read.enabled, 1000);
	assert_int_equal(rec.u.read.running, 800);
	assert_int_equal(rec.u.read.id[0], 42);

	rb_begin(&r, PERF_RECORD_LOST, 0);
	rb_u64(&r, 42);
	rb_u64(&r, 17);
	rb_end(&r, 0, 0, 0, 42);
	assert_int_equal(perf_rec_decode(r.buf, r.len, &lay, NULL, NULL, &rec), 0);
	assert_int_equal(rec.u.lost.lost, 17);

	rb_begin(&r, PERF_RECORD_MMAP2, 0);
	rb_u32x2(&r, 10, 10);
	rb_u64(&r, 0x400000);
	rb_u64(&r, 0x2000);
	rb_u64(&r, 0x1000);
	rb_u32x2(&r, 8, 1);	/* maj, min */
	rb_u64(&r, 99);		/* ino */
	rb_u64(&r, 3);		/* ino_generation */
	rb_u32x2(&r, 5, 2);	/* prot, flags */
	rb_str(&r, "/usr/bin/true");
	rb_end(&r, 10, 10, 3, 77);
	assert_int_equal(perf_rec_decode(r.buf, r.len, &lay, NULL, NULL, &rec), 0);
	assert_int_equal(rec.u.mmap.addr, 0x400000);
	assert_int_equal(rec.u.mmap.len, 0x2000);
	assert_int_equal(rec.u.mmap.pgoff, 0x1000);
	assert_int_equal(rec.u.mmap.ino, 99);
	assert_int_equal(rec.u.mmap.prot, 5);
	assert_string_equal(rec.u.mmap.filename, "/usr/bin/true");
}

static void test_threads__group_read_format(void **state)
{
	(void)state;
	struct perf_rec_layout g = { ST, RF | PERF_FORMAT_GROUP, 0, 0 };
	struct rb r;
	struct perf_rec rec;
	rb_begin(&r, PERF_RECORD_READ, 0);
	rb_u32x2(&r, 1, 2);
	rb_u64(&r, 2);		/* nr */
	rb_u64(&r, 100);	/* enabled */
	rb_u64(&r, 50);		/* running */
	rb_u64(&r, 7);
	rb_u64(&r, 1001);
	rb_u64(&r, 9);
	rb_u64(&r, 1002);
	rb_end(&r, 1, 2, 0, 1001);
	assert_int_equal(perf_rec_decode(r.buf, r.len, &g, NULL, NULL, &rec), 0);
	assert_int_equal(rec.u.read.nr, 2);
	assert_int_equal(rec.u.read.value[1], 9);
	assert_int_equal(rec.u.read.id[1], 1002);
	assert_int_equal(rec.u.read.running, 50);
}

/*
 * The per-CPU switch sample (collectors/percpu.c): identifier, tid, time,
 * cpu, a group read, then the interrupted registers (PERF_SAMPLE_REGS_INTR:
 * abi and the stack pointer). A sample without registers (abi 0) is
 * shorter; one cut inside the registers is refused.
 */
static void test_threads__sample_with_interrupted_registers(void **state)
{
	(void)state;
	struct perf_rec_layout pl = {
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_CPU | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_INTR,
		PERF_FORMAT_GROUP | PERF_FORMAT_ID, 0, 1ull << 7 };
	struct rb r;
	struct perf_rec rec;
	rb_begin(&r, PERF_RECORD_SAMPLE, 0);
	rb_u64(&r, 55);			/* identifier */
	rb_u32x2(&r, 10, 11);		/* pid, tid */
	rb_u64(&r, 1234);		/* time */
	rb_u32x2(&r, 1, 0);		/* cpu, res */
	rb_u64(&r, 1);			/* nr */
	rb_u64(&r, 900);		/* value */
	rb_u64(&r, 55);			/* id */
	rb_u64(&r, 2);			/* abi: 64-bit */
	rb_u64(&r, 0xffffc90001234f00ull);	/* sp */
	uint16_t size = (uint16_t)r.len;
	memcpy(r.buf + 6, &size, 2);
	assert_int_equal(perf_rec_decode(r.buf, r.len, &pl, NULL, NULL, &rec), 0);
	assert_int_equal(rec.u.sample.tid, 11);
	assert_int_equal(rec.u.sample.read_nr, 1);
	assert_int_equal(rec.u.sample.read_vals[0], 900);
	assert_int_equal(rec.u.sample.intr_abi, 2);
	assert_int_equal(rec.u.sample.nintr, 1);
	assert_true(rec.u.sample.intr_regs[0] == 0xffffc90001234f00ull);
	assert_int_not_equal(perf_rec_decode(r.buf, r.len - 4, &pl, NULL, NULL, &rec), 0);

	/* abi 0: no registers follow */
	r.len -= 16;
	rb_u64(&r, 0);
	size = (uint16_t)r.len;
	memcpy(r.buf + 6, &size, 2);
	assert_int_equal(perf_rec_decode(r.buf, r.len, &pl, NULL, NULL, &rec), 0);
	assert_int_equal(rec.u.sample.intr_abi, 0);
	assert_int_equal(rec.u.sample.nintr, 0);
	assert_null(rec.u.sample.intr_regs);
}

static void test_threads__truncated_records_are_refused(void **state)
{
	(void)state;
	struct rb r;
	struct perf_rec rec;
	mk_read(&r, 10, 12, 500, 1000, 800, 42);
	/* Every cut short of the full record fails cleanly. */
	for (size_t cut = 0; cut < r.len; cut++)
		assert_int_not_equal(perf_rec_decode(r.buf, cut, &lay, NULL, NULL, &rec), 0);
	/* A header claiming less than the body needs. */
	uint16_t small = 24;
	memcpy(r.buf + 6, &small, 2);
	assert_int_not_equal(perf_rec_decode(r.buf, r.len, &lay, NULL, NULL, &rec), 0);
	/* A COMM whose name is not NUL-terminated inside the record. */
	mk_comm(&r, 1, 1, "abcdefg");
	memset(r.buf + 16, 'x', 8);
	assert_int_not_equal(perf_rec_decode(r.buf, r.len, &lay, NULL, NULL, &rec), 0);
}

/*
 * perf_rec_time reads a record's time alone: the trailer's for a side-band
 * record or a READ, a sample's own TIME; 0 for one it cannot read. And a
 * record decoded over a READ keeps none of the READ's fields.
 */
static void test_threads__record_time_alone(void **state)
{
	(void)state;
	struct rb r;
	mk_fork(&r, 10, 10, 12, 11, 1234);
	assert_int_equal(perf_rec_time(r.buf, r.len, &lay, NULL, NULL), 1234);
	mk_read(&r, 10, 12, 500, 1000, 800, 42);
	assert_int_equal(perf_rec_time(r.buf, r.len, &lay, NULL, NULL), 9);
	assert_int_equal(perf_rec_time(r.buf, r.len - 1, &lay, NULL, NULL), 0);
	assert_int_equal(perf_rec_time(r.buf, 4, &lay, NULL, NULL), 0);
	/* No trailer in the layout: no time. */
	const struct perf_rec_layout bare = { 0, RF, 0, 0 };
	assert_int_equal(perf_rec_time(r.buf, r.len, &bare, NULL, NULL), 0);

	struct perf_rec_layout sl = { PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
				      PERF_SAMPLE_TIME, 0, 0, 0 };
	rb_begin(&r, PERF_RECORD_SAMPLE, 0);
	rb_u64(&r, 55);
	rb_u32x2(&r, 10, 11);
	rb_u64(&r, 4321);
	uint16_t size = (uint16_t)r.len;
	memcpy(r.buf + 6, &size, 2);
	assert_int_equal(perf_rec_time(r.buf, r.len, &sl, NULL, NULL), 4321);

	struct perf_rec rec;
	mk_read(&r, 10, 12, 500, 1000, 800, 42);
	assert_int_equal(perf_rec_decode(r.buf, r.len, &lay, NULL, NULL, &rec), 0);
	rb_begin(&r, PERF_RECORD_MMAP2, 0);
	rb_u32x2(&r, 10, 12);
	rb_u64(&r, 0x1000);
	rb_u64(&r, 0x2000);
	rb_u64(&r, 0);
	rb_u32x2(&r, 8, 1);	/* maj, min */
	rb_u64(&r, 99);		/* ino */
	rb_u64(&r, 3);		/* ino_generation */
	rb_u32x2(&r, 5, 2);	/* prot, flags */
	rb_str(&r, "/bin/x");
	rb_end(&r, 10, 12, 7, 77);
	assert_int_equal(perf_rec_decode(r.buf, r.len, &lay, NULL, NULL, &rec), 0);
	assert_false(rec.u.mmap.has_build_id);
	assert_int_equal(rec.u.mmap.build_id_size, 0);
	for (size_t i = 0; i < sizeof(rec.u.mmap.build_id); i++)
		assert_int_equal(rec.u.mmap.build_id[i], 0);
	assert_int_equal(rec.u.mmap.ino, 99);
	assert_string_equal(rec.u.mmap.filename, "/bin/x");
}

static void test_threads__rows_follow_fork_comm_read(void **state)
{
	(void)state;
	struct thread_table *tt = thread_table_new(2);
	assert_non_null(tt);
	assert_int_equal(thread_table_map_id(tt, 42, 0), 0);
	assert_int_equal(thread_table_map_id(tt, 43, 1), 0);
	assert_int_equal(thread_table_add_target(tt, 10, 10, NULL, 0), 0);

	struct rb r;
	mk_comm(&r, 10, 10, "game");
	feed(tt, &r, 0);
	mk_fork(&r, 10, 10, 11, 10, 100);
	feed(tt, &r, 0);	/* named after its parent: "game" */
	mk_fork(&r, 10, 10, 12, 10, 110);
	feed(tt, &r, 0);
	mk_comm(&r, 10, 12, "render");
	feed(tt, &r, 0);
	mk_comm(&r, 10, 12, "render-2");	/* the last name wins */
	feed(tt, &r, 0);
	mk_read(&r, 10, 11, 5, 50, 50, 42);
	feed(tt, &r, 0);
	mk_read(&r, 10, 11, 6, 50, 25, 43);
	feed(tt, &r, 0);
	mk_read(&r, 10, 12, 7, 60, 60, 42);
	feed(tt, &r, 0);

	assert_int_equal(thread_table_count(tt), 3);
	const struct thread_row *t0 = thread_table_row(tt, 0);
	const struct thread_row *t1 = thread_table_row(tt, 1);
	const struct thread_row *t2 = thread_table_row(tt, 2);
	assert_true(t0->is_target);
	assert_string_equal(t0->name, "game");
	assert_int_equal(t1->tid, 11);
	assert_string_equal(t1->name, "game");
	assert_int_equal(t1->start_ns, 100);
	assert_int_equal(t1->counts[0].value, 5);
	assert_int_equal(t1->counts[1].value, 6);
	assert_int_equal(t1->counts[1].running, 25);
	assert_string_equal(t2->name, "render-2");
	assert_true(t2->counts[0].present);
	assert_false(t2->counts[1].present);

	/* The target's own share is its total minus the exited threads. */
	struct thread_count totals[2] = {
		{ 100, 500, 500, true }, { 20, 300, 200, true },
	};
	thread_table_settle_target(tt, 0, totals);
	assert_int_equal(t0->counts[0].value, 100 - 5 - 7);
	assert_int_equal(t0->counts[0].enabled, 500 - 50 - 60);
	assert_int_equal(t0->counts[1].value, 20 - 6);
	assert_int_equal(t0->counts[1].running, 200 - 25);
	assert_int_equal(thread_table_anomalies(tt), 0);
	thread_table_free(tt);
}

/*
 * Events split over two core PMUs (a hybrid part): event 0 has parts 0
 * (cpu_core) and 1 (cpu_atom), event 1 (a software event) part 2 alone.
 * The values are made up. Each part's READ fills its part; the event is
 * the parts summed, enabled the longest, running summed; a second READ of
 * the same part, not of the other, is a new thread; the target's own
 * share is settled per part.
 */
static void test_threads__split_events_sum_their_parts(void **state)
{
	(void)state;
	struct thread_table *tt = thread_table_new(2);
	assert_non_null(tt);
	const size_t part_event[3] = { 0, 0, 1 };
	assert_int_equal(thread_table_set_parts(tt, 3, part_event), 0);
	const size_t bad[1] = { 2 };
	assert_int_equal(thread_table_set_parts(tt, 1, bad), -EINVAL);
	assert_int_equal(thread_table_map_id(tt, 42, 0), 0);
	assert_int_equal(thread_table_map_id(tt, 43, 1), 0);
	assert_int_equal(thread_table_map_id(tt, 44, 2), 0);
	assert_int_equal(thread_table_add_target(tt, 10, 10, "main", 0), 0);
	struct rb r;
	mk_fork(&r, 10, 10, 11, 10, 100);
	feed(tt, &r, 0);
	mk_read(&r, 10, 11, 600, 100, 60, 42);	/* 60 ns of 100 on cpu_core */
	feed(tt, &r, 0);
	mk_read(&r, 10, 11, 300, 100, 40, 43);	/* 40 on cpu_atom */
	feed(tt, &r, 0);
	mk_read(&r, 10, 11, 100, 100, 100, 44);
	feed(tt, &r, 0);
	assert_int_equal(thread_table_count(tt), 2);
	const struct thread_row *t1 = thread_table_row(tt, 1);
	assert_non_null(t1->parts);
	assert_int_equal(t1->parts[0].value, 600);
	assert_int_equal(t1->parts[1].value, 300);
	assert_int_equal(t1->counts[0].value, 900);
	assert_int_equal(t1->counts[0].enabled, 100);
	assert_int_equal(t1->counts[0].running, 100);
	assert_int_equal(t1->counts[1].value, 100);
	/* tid 11 again: its part 0 is taken, so a new row. */
	mk_read(&r, 10, 11, 5, 10, 10, 42);
	feed(tt, &r, 0);
	assert_int_equal(thread_table_count(tt), 3);
	const struct thread_row *t2 = thread_table_row(tt, 2);
	assert_int_equal(t2->counts[0].value, 5);
	assert_false(t2->parts[1].present);

	/* The target: part totals minus the threads' parts. */
	struct thread_count totals[3] = {
		{ 1000, 300, 200, true }, { 400, 300, 100, true }, { 400, 300, 300, true },
	};
	thread_table_settle_target(tt, 0, totals);
	const struct thread_row *t0 = thread_table_row(tt, 0);
	assert_int_equal(t0->parts[0].value, 1000 - 600 - 5);
	assert_int_equal(t0->parts[1].value, 400 - 300);
	assert_int_equal(t0->counts[0].value, 395 + 100);
	assert_int_equal(t0->counts[0].enabled, 300 - 100);	/* the longest part */
	assert_int_equal(t0->counts[1].value, 300);

	/* Per switch: the delta goes to the event and the part it ran on. */
	struct thread_count d[2] = { { 7, 3, 3, true }, { 3, 3, 3, true } };
	const long part[2] = { 1, -1 };
	const struct thread_row *row = NULL;
	assert_int_equal(thread_table_add_part_counts(tt, 10, 12, 500, d, part, &row), 0);
	assert_int_equal(row->counts[0].value, 7);
	assert_int_equal(row->parts[1].value, 7);
	assert_false(row->parts[0].present);
	assert_int_equal(row->counts[1].value, 3);
	thread_table_free(tt);
}

static void test_threads__reused_tid_opens_a_new_row(void **state)
{
	(void)state;
	struct thread_table *tt = thread_table_new(1);
	thread_table_map_id(tt, 42, 0);
	thread_table_add_target(tt, 10, 10, "main", 0);
	struct rb r;
	mk_fork(&r, 10, 10, 11, 10, 1);
	feed(tt, &r, 0);
	mk_read(&r, 10, 11, 5, 1, 1, 42);
	feed(tt, &r, 0);
	/* tid 11 comes back as a new thread. */
	mk_fork(&r, 10, 10, 11, 10, 2);
	feed(tt, &r, 0);
	mk_comm(&r, 10, 11, "second");
	feed(tt, &r, 0);
	mk_read(&r, 10, 11, 8, 1, 1, 42);
	feed(tt, &r, 0);
	/* And once more without a FORK (its READ arrives alone). */
	mk_read(&r, 10, 11, 9, 1, 1, 42);
	feed(tt, &r, 0);

	assert_int_equal(thread_table_count(tt), 4);
	assert_int_equal(thread_table_row(tt, 1)->counts[0].value, 5);
	assert_string_equal(thread_table_row(tt, 1)->name, "main");
	assert_int_equal(thread_table_row(tt, 2)->counts[0].value, 8);
	assert_string_equal(thread_table_row(tt, 2)->name, "second");
	assert_int_equal(thread_table_row(tt, 3)->counts[0].value, 9);
	thread_table_free(tt);
}

/*
 * Counts per switch (the per-CPU path): each switch's deltas add up in
 * the row of the thread that ran, the row its tid had at that time when
 * the tid was reused, a tid no FORK announced gets a row of its own (the
 * audit then says its start was not seen), and a thread counted but
 * never exited is a live one.
 */
static void test_threads__counts_per_switch_go_to_the_row_of_their_time(void **state)
{
	(void)state;
	struct thread_table *tt = thread_table_new(2);
	thread_table_add_target(tt, 10, 10, "main", 0);
	struct rb r;
	mk_fork(&r, 10, 10, 11, 10, 100);
	feed(tt, &r, 0);
	struct thread_count d[2] = { { 5, 7, 7, true }, { 0, 0, 0, false } };
	const struct thread_row *row = NULL;
	assert_int_equal(thread_table_add_counts(tt, 10, 11, 150, d, &row), 0);
	assert_int_equal(thread_table_add_counts(tt, 10, 11, 180, d, &row), 0);
	assert_int_equal(row->counts[0].value, 10);	/* running totals */
	assert_false(row->counts[1].present);
	mk_fork(&r, 10, 10, 11, 10, 300);	/* tid 11 again, a new thread */
	feed(tt, &r, 0);
	d[0].value = 100;
	assert_int_equal(thread_table_add_counts(tt, 10, 11, 350, d, NULL), 0);
	/* a late switch of the first thread 11, drained after the FORK */
	d[0].value = 1;
	assert_int_equal(thread_table_add_counts(tt, 10, 11, 200, d, NULL), 0);
	assert_int_equal(thread_table_add_counts(tt, 10, 10, 400, d, NULL), 0);
	assert_int_equal(thread_table_add_counts(tt, 10, 12, 400, d, NULL), 0);

	assert_int_equal(thread_table_count(tt), 4);
	assert_int_equal(thread_table_row(tt, 0)->counts[0].value, 1);	/* main */
	assert_int_equal(thread_table_row(tt, 1)->counts[0].value, 11);
	assert_int_equal(thread_table_row(tt, 2)->counts[0].value, 100);
	assert_int_equal(thread_table_row(tt, 3)->tid, 12);
	bool supported[2] = { true, false };
	struct thread_audit a;
	thread_table_audit(tt, supported, &a);
	assert_int_equal(a.tasks, 3);
	assert_int_equal(a.no_start, 1);	/* tid 12 */
	assert_int_equal(a.live, 3);		/* none of them exited */
	thread_table_free(tt);
}

/* What /proc says of each task, for thread_table_check_names. */
struct fake_proc {
	int32_t tid[8];
	const char *name[8];	/* NULL: gone */
	int calls;
};

static bool fake_comm(int32_t pid, int32_t tid, char name[16], void *arg)
{
	(void)pid;
	struct fake_proc *fp = arg;
	fp->calls++;
	for (int i = 0; i < 8; i++)
		if (fp->tid[i] == tid && fp->name[i]) {
			snprintf(name, 16, "%s", fp->name[i]);
			return true;
		}
	return false;
}

static void test_threads__a_lost_comm_is_read_from_proc(void **state)
{
	(void)state;
	struct thread_table *tt = thread_table_new(1);
	thread_table_map_id(tt, 42, 0);
	thread_table_add_target(tt, 10, 10, "game", 0);
	struct fake_proc fp = {
		.tid = { 10, 11, 12, 13, 14, 15 },
		.name = { "game", "worker", "render", "game", "gone", "late" },
	};
	struct rb r;
	mk_fork(&r, 10, 10, 11, 10, 100);	/* its COMM "worker" was lost */
	feed(tt, &r, 0);
	mk_fork(&r, 10, 10, 12, 10, 110);
	feed(tt, &r, 0);
	mk_comm(&r, 10, 12, "render");		/* arrived: not asked */
	feed(tt, &r, 0);
	mk_fork(&r, 10, 10, 13, 10, 120);	/* has not named itself yet */
	feed(tt, &r, 0);
	mk_fork(&r, 10, 10, 14, 10, 130);
	feed(tt, &r, 0);
	mk_read(&r, 10, 14, 5, 1, 1, 42);	/* exited: not asked */
	feed(tt, &r, 0);

	/* 13 is still to be asked again. */
	assert_int_equal(thread_table_check_names(tt, 200, 1000, fake_comm, &fp), 1);
	assert_int_equal(fp.calls, 2);		/* 11 and 13 */
	assert_string_equal(thread_table_row(tt, 1)->name, "worker");
	assert_true(thread_table_row(tt, 1)->name_from_proc);
	assert_string_equal(thread_table_row(tt, 2)->name, "render");
	assert_false(thread_table_row(tt, 2)->name_from_proc);
	assert_string_equal(thread_table_row(tt, 3)->name, "game");
	assert_false(thread_table_row(tt, 3)->name_from_proc);
	assert_string_equal(thread_table_row(tt, 4)->name, "game");
	assert_int_equal(thread_table_names_from_proc(tt), 1);

	/* 13 names itself later, and that COMM is lost too: the next drain
	 * within the window asks 13 alone. */
	fp.name[3] = "late-name";
	assert_int_equal(thread_table_check_names(tt, 500, 1000, fake_comm, &fp), 0);
	assert_int_equal(fp.calls, 3);
	assert_string_equal(thread_table_row(tt, 3)->name, "late-name");
	assert_int_equal(thread_table_names_from_proc(tt), 2);

	/* 11's COMM turns up after all: it was late, not lost. */
	mk_comm(&r, 10, 11, "worker");
	feed(tt, &r, 0);
	assert_int_equal(thread_table_names_from_proc(tt), 1);

	/* Past the window a task is not asked any more. */
	mk_fork(&r, 10, 10, 15, 10, 700);
	feed(tt, &r, 0);
	assert_int_equal(thread_table_check_names(tt, 700 + 2000, 1000, fake_comm,
						  &fp), 0);
	assert_int_equal(fp.calls, 3);
	assert_string_equal(thread_table_row(tt, 5)->name, "game");
	thread_table_free(tt);
}

static void test_threads__lost_records_are_summed(void **state)
{
	(void)state;
	struct thread_table *tt = thread_table_new(1);
	struct rb r;
	for (int i = 0; i < 3; i++) {
		rb_begin(&r, PERF_RECORD_LOST, 0);
		rb_u64(&r, 1);
		rb_u64(&r, 10);
		rb_end(&r, 0, 0, 0, 1);
		feed(tt, &r, 0);
	}
	assert_int_equal(thread_table_lost(tt), 30);
	thread_table_free(tt);
}

/*
 * Replay the records `prof run --record-dump` saved from a real run of
 * prof-demo 0.05 with task-clock, context-switches, page-faults. The
 * expected values are what prof's own JSON report of that same run said
 * (tests/fixtures/ring/demo-3ev.json), so the decoder must reproduce them
 * from the bytes alone.
 */
static void test_threads__replays_recorded_ring_bytes(void **state)
{
	(void)state;
	char *path;
	assert_true(asprintf(&path, "%s/ring/demo-3ev.bin", FIXTURES_DIR) > 0);
	FILE *fp = fopen(path, "rb");
	free(path);
	assert_non_null(fp);
	struct ring_dump_header h;
	assert_int_equal(fread(&h, sizeof(h), 1, fp), 1);
	assert_memory_equal(h.magic, RING_DUMP_MAGIC, 8);
	assert_int_equal(h.nevents, 3);
	struct perf_rec_layout l = { h.sample_type, h.read_format, 0, 0 };
	struct thread_table *tt = thread_table_new(h.nevents);
	for (uint32_t i = 0; i < h.nevents; i++) {
		struct ring_dump_event e;
		assert_int_equal(fread(&e, sizeof(e), 1, fp), 1);
		thread_table_map_id(tt, e.id, i);
	}
	assert_int_equal(thread_table_add_target(tt, 16739, 16739, NULL, 0), 0);
	uint8_t buf[65536];
	size_t nrec = 0, nread = 0;
	struct perf_event_header hdr;
	while (fread(&hdr, sizeof(hdr), 1, fp) == 1) {
		memcpy(buf, &hdr, sizeof(hdr));
		assert_true(hdr.size >= sizeof(hdr));
		assert_int_equal(fread(buf + sizeof(hdr), hdr.size - sizeof(hdr), 1, fp), 1);
		struct perf_rec rec;
		assert_int_equal(perf_rec_decode(buf, hdr.size, &l, NULL, NULL, &rec), 0);
		assert_int_equal(thread_table_feed(tt, &rec, 0), 0);
		nrec++;
		nread += rec.type == PERF_RECORD_READ;
	}
	fclose(fp);
	/* Six threads exited, three events each. */
	assert_int_equal(nread, 18);
	assert_true(nrec > nread);
	assert_int_equal(thread_table_count(tt), 7);

	static const struct {
		int tid;
		const char *name;
		uint64_t v[3];
	} want[] = {
		{ 16740, "render", { 17578630, 70, 1 } },
		{ 16741, "worker", { 6393745, 80, 1 } },
		{ 16742, "worker", { 6232570, 24, 1 } },
		{ 16743, "worker", { 6864911, 58, 1 } },
		{ 16744, "audio", { 664267, 17, 3 } },
		{ 16745, "loader", { 4716005, 14, 822 } },
	};
	const struct thread_row *main_row = thread_table_row(tt, 0);
	assert_string_equal(main_row->name, "prof-demo");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct thread_row *r = thread_table_row(tt, i + 1);
		assert_int_equal(r->tid, want[i].tid);
		assert_string_equal(r->name, want[i].name);
		for (int e = 0; e < 3; e++)
			assert_int_equal(r->counts[e].value, want[i].v[e]);
		assert_true(r->end_ns >= r->start_ns);
	}
	/* The report's totals minus the exited threads give main's share:
	 * task-clock 46419751 total, 3969623 for main. */
	struct thread_count tot[3] = {
		{ 46419751, 46419751, 46419751, true },
		{ 283, 46419751, 46419751, true },
		{ 903, 46419751, 46419751, true },
	};
	thread_table_settle_target(tt, 0, tot);
	assert_int_equal(main_row->counts[0].value, 3969623);
	assert_int_equal(main_row->counts[1].value, 20);
	assert_int_equal(main_row->counts[2].value, 74);
	thread_table_free(tt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads__decodes_each_record_type),
		cmocka_unit_test(test_threads__group_read_format),
		cmocka_unit_test(test_threads__sample_with_interrupted_registers),
		cmocka_unit_test(test_threads__truncated_records_are_refused),
		cmocka_unit_test(test_threads__record_time_alone),
		cmocka_unit_test(test_threads__rows_follow_fork_comm_read),
		cmocka_unit_test(test_threads__reused_tid_opens_a_new_row),
		cmocka_unit_test(test_threads__counts_per_switch_go_to_the_row_of_their_time),
		cmocka_unit_test(test_threads__a_lost_comm_is_read_from_proc),
		cmocka_unit_test(test_threads__lost_records_are_summed),
		cmocka_unit_test(test_threads__split_events_sum_their_parts),
		cmocka_unit_test(test_threads__replays_recorded_ring_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
