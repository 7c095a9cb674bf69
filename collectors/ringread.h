/*
 * ringread: take records out of a perf ring buffer that several CPUs
 * write into at once, without trusting the published head alone.
 *
 * prof redirects every inherited per-task event of a run into one buffer
 * (the DESIGN recipe). The kernel's ring buffer is made for one writer
 * CPU at a time: its reservation (local_cmpxchg) and its nesting counter
 * are not atomic across CPUs. When two CPUs write at once the nesting
 * count can leak, and from then on the kernel keeps writing whole records
 * but never again advances data_head, so a reader that trusts data_head
 * alone silently sees nothing more (docs/completeness.md has the
 * measurements). Two CPUs can also reserve the same bytes, which tears a
 * record.
 *
 * This reader takes what data_head publishes, and past it any record that
 * is complete and settled: a known type and size, a sample_id trailer
 * whose id is one of the run's events, written at least settle_ns ago and
 * no older than the records already taken (stale bytes of the previous lap
 * are older by a whole lap), and ending within one lap of where the drain
 * began. Where the bytes at the read position are not
 * a record but newer records follow, it skips to them and counts the
 * skipped bytes as torn. What it took past the head and what it skipped
 * are counted, so the run can say so.
 *
 * Pure over bytes (tests feed it hand-built rings); the caller owns the
 * state; not thread-safe.
 */
#ifndef COLLECTORS_RINGREAD_H
#define COLLECTORS_RINGREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/threads.h"

struct ring_reader {
	uint64_t pos;		/* next byte to read: the data_tail to write */
	uint64_t last_time;	/* newest record time taken (ns) */
	uint64_t past_head;	/* records taken beyond a published head */
	uint64_t torn_bytes;	/* bytes skipped as unreadable */
	uint64_t torn_runs;	/* how many times bytes were skipped */
};

struct ring_view {
	const uint8_t *data;	/* the data pages */
	size_t size;		/* their size, a power of two */
	uint64_t head;		/* data_head as read (acquire) */
	/* Where this drain began (the reader's pos, the data_tail the
	 * kernel last saw): the kernel writes nothing at or beyond
	 * tail + size, so the bytes there are ones already taken. */
	uint64_t tail;
	uint64_t now_ns;	/* the records' clock (CLOCK_MONOTONIC) now */
	uint64_t settle_ns;	/* how old an unpublished record must be */
	const struct perf_rec_layout *lay;
	/* Layout of a sampler's samples by id, or NULL (as perf_rec_decode). */
	const struct perf_rec_layout *(*layout_for_id)(uint64_t id, void *arg);
	/* True when id belongs to one of the run's events or samplers. */
	bool (*known_id)(uint64_t id, void *arg);
	void *arg;
	uint8_t *scratch;	/* for records that wrap: at least 64 KiB */
	size_t scratch_size;
};

/*
 * The next record: 1 with *rec and *len set (rec points into the ring or the
 * scratch, valid until the next call) and r->pos advanced past it; 0 when
 * there is nothing more to take now.
 */
int ring_next(struct ring_reader *r, const struct ring_view *v,
	      const void **rec, size_t *len);

/*
 * After ring_next gave 0: is a record of this lap still settling at or
 * just past r->pos (written, not yet settle_ns old), so that a drain
 * once it has settled would take more? False for an empty spot and for
 * an earlier lap's stale bytes, which a buffer keeps once it has wrapped:
 * those are no reason to wait.
 */
bool ring_settling(const struct ring_reader *r, const struct ring_view *v);

#endif
