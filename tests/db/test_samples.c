/*
 * Tests for db/samples: a sampled run written while it goes on (temp
 * tables, batched) and stored with its run in one transaction; loading
 * it back grouped by (event, thread, stack); samples matched to thread
 * rows when tids are reused; and the faults: a locked database, a full
 * disk, a prof killed before the end, a counted run asked for samples,
 * damaged rows. Stored whole or not at all, every time.
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
#include "db/samples.h"
#include "test_util.h"

/* A run with threads: tid 100 (main, from 0), tid 101 started at 1000
 * and ended at 2000, and tid 101 again (reused) from 5000. */
static void make_run(struct db_run *r)
{
	tu_run_init(r, "record", "2026-11-30T05:37:51Z", "./hot", "vm", "cpu", 2);
	r->nevents = 1;
	r->events = calloc(1, sizeof(*r->events));
	r->events[0].name = strdup("task-clock");
	r->events[0].supported = true;
	r->nthreads = 3;
	r->threads = calloc(3, sizeof(*r->threads));
	static const int32_t tids[] = { 100, 101, 101 };
	static const int64_t start[] = { 0, 1000, 5000 };
	static const char *const names[] = { "hot", "worker", "again" };
	for (size_t i = 0; i < 3; i++) {
		r->threads[i].tid = tids[i];
		r->threads[i].pid = 100;
		r->threads[i].name = strdup(names[i]);
		r->threads[i].is_main = i == 0;
		r->threads[i].start_ns = start[i];
		r->threads[i].counts = calloc(1, sizeof(struct db_count));
	}
}

static struct db_sample_event events[2] = {
	{ .name = "cpu-clock", .attr_type = 1, .attr_config = 0, .freq = 1000,
	  .call_graph = "dwarf", .stack_bytes = 8192, .samples = 5, .weight = 5000,
	  .lost = 3, .dropped = 1 },
	{ .name = "page-faults", .attr_type = 1, .attr_config = 2, .period = 1,
	  .call_graph = "dwarf", .stack_bytes = 8192, .samples = 1, .weight = 1 },
};

/* Two modules, the tree main -> work -> hot and main -> [unknown]. */
static void put_tree(struct db_sample_writer *w)
{
	assert_int_equal(db_sample_put_module(w, 1, "/bin/hot", "abcd", NULL), 0);
	assert_int_equal(db_sample_put_module(w, 2, "/lib/libhot.so", NULL, NULL), 0);
	assert_int_equal(db_sample_put_symbol(w, 1, 1, "main", NULL), 0);
	assert_int_equal(db_sample_put_symbol(w, 2, 2, "work", NULL), 0);
	assert_int_equal(db_sample_put_symbol(w, 3, 2, "hot", NULL), 0);
	assert_int_equal(db_sample_put_symbol(w, 4, 2, NULL, NULL), 0);
	assert_int_equal(db_sample_put_frame(w, 1, 1, 0x10, NULL), 0);
	assert_int_equal(db_sample_put_frame(w, 2, 2, 0x20, NULL), 0);
	assert_int_equal(db_sample_put_frame(w, 3, 3, 0x4, NULL), 0);
	assert_int_equal(db_sample_put_frame(w, 4, 4, 0x1234, NULL), 0);
	/* Source lines where the debug info gave them: all three fields,
	 * a function alone (no line table), none for the unknown code. */
	struct db_frame_src hot = { "/src/hot.c", 42, "hot_inner", "hot_mid\nhot_inner" };
	struct db_frame_src work = { NULL, 0, "work", NULL };
	assert_int_equal(db_sample_put_frame_src(w, 3, &hot, NULL), 0);
	assert_int_equal(db_sample_put_frame_src(w, 2, &work, NULL), 0);
	assert_int_equal(db_sample_put_stack(w, 1, 0, 1, NULL), 0);
	assert_int_equal(db_sample_put_stack(w, 2, 1, 2, NULL), 0);
	assert_int_equal(db_sample_put_stack(w, 3, 2, 3, NULL), 0);
	assert_int_equal(db_sample_put_stack(w, 4, 1, 4, NULL), 0);
}

static void put_samples(struct db_sample_writer *w)
{
	/* tid, time, event, weight, stack */
	static const struct { int32_t tid; uint64_t time; uint32_t ev, w, st; } s[] = {
		{ 100, 10, 0, 1000, 3 }, { 100, 20, 0, 1000, 3 },
		{ 101, 1500, 0, 1000, 3 },	/* the first 101 */
		{ 101, 6000, 0, 1000, 4 },	/* the second 101 */
		{ 101, 7000, 0, 1000, 4 },
		{ 100, 30, 1, 1, 2 },
	};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		struct db_sample x = { 100, s[i].tid, 1, s[i].time, s[i].ev, s[i].w,
				       s[i].st };
		assert_int_equal(db_sample_put(w, &x, NULL), 0);
	}
}

static int count(struct db *db, const char *table)
{
	char sql[128], *s = NULL;
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	assert_int_equal(db_query_text(db, sql, &s, NULL), 0);
	int n = atoi(s);
	free(s);
	return n;
}

static const struct db_stack_count *find_count(const struct db_profile *p,
					       uint32_t ev, int32_t th, uint32_t st)
{
	for (size_t i = 0; i < p->ncounts; i++)
		if (p->counts[i].event == ev && p->counts[i].thread == th &&
		    p->counts[i].stack == st)
			return &p->counts[i];
	return NULL;
}

static void test_samples__store_and_load_round_trip(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct db_sample_writer *w;
	assert_int_equal(db_sample_writer_new(db, &w, NULL), 0);
	put_tree(w);
	put_samples(w);
	assert_int_equal(db_sample_flush(w, NULL), 0);
	assert_int_equal(db_sample_count(w), 6);
	/* Nothing is in the database proper before the run is stored. */
	assert_int_equal(count(db, "main.samples"), 0);
	assert_int_equal(count(db, "runs"), 0);
	struct db_run r;
	make_run(&r);
	char *cause = NULL;
	assert_int_equal(db_sample_store_run(w, &r, events, 2, &cause), 0);
	assert_int_equal(r.id, 1);
	assert_int_equal(count(db, "main.samples"), 6);

	struct db_profile p;
	assert_int_equal(db_profile_load(db, r.id, &p, &cause), 0);
	assert_int_equal(p.nevents, 2);
	assert_string_equal(p.events[0].name, "cpu-clock");
	assert_int_equal(p.events[0].freq, 1000);
	assert_int_equal(p.events[0].period, 0);
	assert_int_equal(p.events[1].period, 1);
	assert_string_equal(p.events[0].call_graph, "dwarf");
	assert_int_equal(p.events[0].stack_bytes, 8192);
	assert_int_equal(p.events[0].lost, 3);
	assert_int_equal(p.events[0].dropped, 1);
	assert_int_equal(p.nmodules, 2);
	assert_string_equal(p.modules[1], "/lib/libhot.so");
	assert_string_equal(p.build_ids[0], "abcd");
	assert_null(p.build_ids[1]);
	assert_int_equal(p.nsymbols, 4);
	assert_null(p.symbols[3].name);
	assert_int_equal(p.symbols[2].module, 2);
	assert_int_equal(p.nframes, 4);
	assert_int_equal(p.frames[3].offset, 0x1234);
	assert_string_equal(p.frames[2].src_file, "/src/hot.c");
	assert_int_equal(p.frames[2].src_line, 42);
	assert_string_equal(p.frames[2].src_function, "hot_inner");
	assert_string_equal(p.frames[2].src_inlines, "hot_mid\nhot_inner");
	assert_null(p.frames[1].src_inlines);
	assert_null(p.frames[1].src_file);
	assert_int_equal(p.frames[1].src_line, 0);
	assert_string_equal(p.frames[1].src_function, "work");
	assert_null(p.frames[3].src_file);
	assert_null(p.frames[3].src_function);
	assert_null(p.frames[0].src_file);
	assert_int_equal(p.nstacks, 4);
	assert_int_equal(p.stacks[2].parent, 2);
	assert_int_equal(p.stacks[2].frame, 3);
	/* Grouped by (event, thread, stack); threads by their seq: tid 101
	 * at 1500 is thread 1, tid 101 at 6000 and 7000 is thread 2. */
	assert_int_equal(p.ncounts, 4);
	const struct db_stack_count *c = find_count(&p, 0, 0, 3);
	assert_non_null(c);
	assert_int_equal(c->samples, 2);
	assert_int_equal(c->weight, 2000);
	c = find_count(&p, 0, 1, 3);
	assert_non_null(c);
	assert_int_equal(c->samples, 1);
	c = find_count(&p, 0, 2, 4);
	assert_non_null(c);
	assert_int_equal(c->samples, 2);
	c = find_count(&p, 1, 0, 2);
	assert_non_null(c);
	assert_int_equal(c->weight, 1);
	/* Each sample, oldest first, with the same threads. */
	assert_int_equal(p.nsamples, 0);
	assert_int_equal(db_profile_load_samples(db, &p, &cause), 0);
	assert_int_equal(p.nsamples, 6);
	static const struct { int32_t th; uint64_t time; uint32_t ev, st; } want[] = {
		{ 0, 10, 0, 3 }, { 0, 20, 0, 3 }, { 0, 30, 1, 2 },
		{ 1, 1500, 0, 3 }, { 2, 6000, 0, 4 }, { 2, 7000, 0, 4 },
	};
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(p.samples[i].thread, want[i].th);
		assert_int_equal(p.samples[i].time, want[i].time);
		assert_int_equal(p.samples[i].event, want[i].ev);
		assert_int_equal(p.samples[i].stack, want[i].st);
		assert_int_equal(p.samples[i].cpu, 1);
		assert_int_equal(p.samples[i].weight, want[i].ev ? 1 : 1000);
	}
	db_profile_release(&p);

	/* The shell's view names every frame. */
	char *v = NULL;
	assert_int_equal(db_query_text(db, "SELECT module || ':' || symbol FROM "
				       "sample_frame_names WHERE frame_id = 4", &v, NULL), 0);
	assert_string_equal(v, "/lib/libhot.so:[unknown]");
	free(v);

	/* The temp tables were emptied: a second run starts clean. */
	put_tree(w);
	struct db_sample x = { 100, 100, 0, 1, 0, 1000, 1 };
	assert_int_equal(db_sample_put(w, &x, NULL), 0);
	struct db_run r2;
	make_run(&r2);
	assert_int_equal(db_sample_store_run(w, &r2, events, 1, NULL), 0);
	assert_int_equal(db_profile_load(db, r2.id, &p, NULL), 0);
	assert_int_equal(p.ncounts, 1);
	assert_int_equal(p.nmodules, 2);
	db_profile_release(&p);
	/* Deleting a run takes its samples along. */
	assert_int_equal(db_exec(db, "DELETE FROM runs WHERE id = 1", NULL), 0);
	assert_int_equal(count(db, "main.samples"), 1);
	assert_int_equal(count(db, "sample_stacks"), 4);

	db_run_release(&r);
	db_run_release(&r2);
	db_sample_writer_free(w);
	db_close(db);
}

static void test_samples__counted_run_and_missing_run(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct db_run r;
	make_run(&r);
	free(r.kind);
	r.kind = strdup("run");
	assert_int_equal(db_run_store(db, &r, NULL), 0);
	struct db_profile p;
	char *cause = NULL;
	assert_int_equal(db_profile_load(db, r.id, &p, &cause), -ENODATA);
	assert_non_null(strstr(cause, "counted, not sampled"));
	assert_non_null(strstr(cause, "prof record"));
	free(cause);
	cause = NULL;
	assert_int_equal(db_profile_load(db, 77, &p, &cause), -ENOENT);
	assert_non_null(strstr(cause, "no run 77"));
	free(cause);
	db_run_release(&r);
	db_close(db);
}

static void test_samples__batches_and_other_writers(void **state)
{
	struct tu_db *f = *state;
	struct db *db, *other;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	assert_int_equal(db_open(&other, f->path, NULL), 0);
	db_set_busy_timeout(other, 100);
	struct db_sample_writer *w;
	assert_int_equal(db_sample_writer_new(db, &w, NULL), 0);
	put_tree(w);
	/* Past several batch boundaries (4096 rows each). */
	for (uint32_t i = 0; i < 10000; i++) {
		struct db_sample x = { 100, 100, 0, i, 0, 1000, 1 + i % 4 };
		assert_int_equal(db_sample_put(w, &x, NULL), 0);
		if (i == 5000) {
			/* Mid-batch, another prof stores a run: the recording
			 * holds no lock on the database. */
			struct db_run o;
			make_run(&o);
			assert_int_equal(db_run_store(other, &o, NULL), 0);
			db_run_release(&o);
		}
	}
	struct db_run r;
	make_run(&r);
	assert_int_equal(db_sample_store_run(w, &r, events, 1, NULL), 0);
	assert_int_equal(r.id, 2);
	char *v = NULL;
	assert_int_equal(db_query_text(other, "SELECT count(*) || ',' || sum(weight) "
				       "FROM samples WHERE run_id = 2", &v, NULL), 0);
	assert_string_equal(v, "10000,10000000");
	free(v);
	db_run_release(&r);
	db_sample_writer_free(w);
	db_close(other);
	db_close(db);
}

static void test_samples__locked_or_full_database_stores_nothing(void **state)
{
	struct tu_db *f = *state;
	struct db *db, *lock;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	assert_int_equal(db_open(&lock, f->path, NULL), 0);
	db_set_busy_timeout(db, 50);
	struct db_sample_writer *w;
	assert_int_equal(db_sample_writer_new(db, &w, NULL), 0);
	put_tree(w);
	put_samples(w);
	assert_int_equal(db_exec(lock, "BEGIN IMMEDIATE", NULL), 0);
	struct db_run r;
	make_run(&r);
	char *cause = NULL;
	assert_int_equal(db_sample_store_run(w, &r, events, 2, &cause), -EBUSY);
	assert_non_null(strstr(cause, "locked by another writer"));
	free(cause);
	cause = NULL;
	assert_int_equal(r.id, 0);
	assert_int_equal(db_exec(lock, "ROLLBACK", NULL), 0);
	assert_int_equal(count(db, "runs"), 0);
	assert_int_equal(count(db, "main.samples"), 0);
	/* The samples were kept: once the lock is gone, the run stores. */
	assert_int_equal(db_sample_store_run(w, &r, events, 2, NULL), 0);
	assert_int_equal(count(db, "main.samples"), 6);

	/* A full disk: cap the file where it is, store a big recording. */
	for (uint32_t i = 0; i < 20000; i++) {
		struct db_sample x = { 100, 100, 0, i, 0, 1000 + i, 1 };
		if (i == 0)
			put_tree(w);
		assert_int_equal(db_sample_put(w, &x, NULL), 0);
	}
	char *pages = NULL, *ignored = NULL;
	assert_int_equal(db_query_text(db, "PRAGMA page_count", &pages, NULL), 0);
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %d", atoi(pages) + 2);
	free(pages);
	assert_int_equal(db_query_text(db, sql, &ignored, NULL), 0);
	free(ignored);
	struct db_run big;
	make_run(&big);
	assert_int_equal(db_sample_store_run(w, &big, events, 2, &cause), -ENOSPC);
	free(cause);
	assert_int_equal(big.id, 0);
	assert_int_equal(count(db, "runs"), 1);
	assert_int_equal(count(db, "main.samples"), 6);
	db_run_release(&r);
	db_run_release(&big);
	db_sample_writer_free(w);
	db_close(lock);
	db_close(db);
}

static void test_samples__killed_recorder_leaves_nothing(void **state)
{
	struct tu_db *f = *state;
	pid_t pid = fork();
	if (pid == 0) {
		struct db *db;
		struct db_sample_writer *w;
		if (db_open(&db, f->path, NULL) || db_sample_writer_new(db, &w, NULL))
			_exit(2);
		put_tree(w);
		put_samples(w);
		db_sample_flush(w, NULL);
		put_samples(w);		/* a batch still open */
		raise(SIGKILL);
		_exit(3);
	}
	int st;
	waitpid(pid, &st, 0);
	assert_true(WIFSIGNALED(st));
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	assert_int_equal(count(db, "runs"), 0);
	assert_int_equal(count(db, "main.samples"), 0);
	assert_int_equal(count(db, "sample_stacks"), 0);
	/* And this connection's temp tables start empty. */
	struct db_sample_writer *w;
	assert_int_equal(db_sample_writer_new(db, &w, NULL), 0);
	assert_int_equal(count(db, "temp.rec_samples"), 0);
	db_sample_writer_free(w);
	db_close(db);
}

static void test_samples__damaged_rows_are_refused(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct db_sample_writer *w;
	assert_int_equal(db_sample_writer_new(db, &w, NULL), 0);
	put_tree(w);
	put_samples(w);
	struct db_run r;
	make_run(&r);
	assert_int_equal(db_sample_store_run(w, &r, events, 2, NULL), 0);
	/* A stack node pointing at a frame that is gone. */
	assert_int_equal(db_exec(db, "DELETE FROM sample_frames WHERE id = 4", NULL), 0);
	struct db_profile p;
	char *cause = NULL;
	assert_int_equal(db_profile_load(db, r.id, &p, &cause), -EIO);
	assert_non_null(strstr(cause, "damaged"));
	free(cause);
	assert_int_equal(p.nstacks, 0);
	/* A sample of an event the run did not sample: its samples are
	 * refused, and the profile keeps none. */
	assert_int_equal(db_exec(db, "INSERT INTO sample_frames (run_id, id, symbol_id,"
				 " offset) VALUES (1, 4, 4, 4660)", NULL), 0);
	assert_int_equal(db_profile_load(db, r.id, &p, NULL), 0);
	assert_int_equal(db_exec(db, "UPDATE samples SET event_idx = 7 WHERE seq = 1",
				 NULL), 0);
	cause = NULL;
	assert_int_equal(db_profile_load_samples(db, &p, &cause), -EIO);
	assert_non_null(strstr(cause, "damaged"));
	free(cause);
	assert_int_equal(p.nsamples, 0);
	assert_null(p.samples);
	db_profile_release(&p);
	db_run_release(&r);
	db_sample_writer_free(w);
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_samples__store_and_load_round_trip,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_samples__counted_run_and_missing_run,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_samples__batches_and_other_writers,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_samples__locked_or_full_database_stores_nothing,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_samples__killed_recorder_leaves_nothing,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_samples__damaged_rows_are_refused,
						tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
