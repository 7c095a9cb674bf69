/*
 * fuzz_ringread: the bytes of a ring buffer as ring_next() finds them
 * when several CPUs write at once: a head that stopped, torn records,
 * stale bytes of an earlier lap. The input is a 32-byte header (ring
 * size, read position, head, clock, settle time, the run's event id)
 * followed by the ring's data pages. One drain takes records until
 * ring_next() says there is nothing more; every record it hands out must
 * lie in the ring or the scratch, and the reader must stop within one lap
 * of where it started, as the kernel never writes further ahead of the
 * reader than that.
 */
#include <linux/perf_event.h>

#include "collectors/ringread.h"
#include "fuzz.h"

struct ctl {
	uint8_t size_log2;	/* ring of 2^(6 + size_log2 % 9) bytes */
	uint8_t layout;		/* which sample_id trailer (see below) */
	uint16_t pos_lo;	/* where reading starts, within the lap */
	uint32_t head_ahead;	/* head - pos, at most the ring's size */
	uint64_t now_ns;
	uint32_t settle_us;
	uint32_t laps;		/* laps already read: pos's high part */
	uint64_t known_id;
};

static const struct perf_rec_layout layouts[] = {
	/* counters' side-band layout */
	{ PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
	  PERF_SAMPLE_IDENTIFIER,
	  PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
	  PERF_FORMAT_ID, 0, 0 },
	{ PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER, 0, 0, 0 },
	{ PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
	  PERF_SAMPLE_STREAM_ID, PERF_FORMAT_GROUP | PERF_FORMAT_ID, 0, 0 },
	/* the per-CPU switch samplers' (collectors/percpu.c) */
	{ PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	  PERF_SAMPLE_CPU | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_INTR,
	  PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
	  PERF_FORMAT_TOTAL_TIME_RUNNING, 0, 1ull << 7 },
};

static bool is_known(uint64_t id, void *arg)
{
	return id == *(const uint64_t *)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl c;
	if (size < sizeof(c))
		return 0;
	memcpy(&c, data, sizeof(c));
	data += sizeof(c);
	size -= sizeof(c);

	size_t ring = (size_t)1 << (6 + c.size_log2 % 9);
	uint8_t *bytes = calloc(1, ring);
	uint8_t *scratch = malloc(65536);
	FZ_CHECK(bytes && scratch);
	memcpy(bytes, data, size < ring ? size : ring);

	struct ring_reader r = { 0 };
	r.pos = (uint64_t)c.laps * ring + c.pos_lo % ring;
	uint64_t start = r.pos;
	struct ring_view v = {
		.data = bytes, .size = ring,
		.head = start + c.head_ahead % (ring + 1), .tail = start,
		.now_ns = c.now_ns, .settle_ns = (uint64_t)c.settle_us * 1000,
		.lay = &layouts[c.layout % (sizeof(layouts) / sizeof(layouts[0]))],
		.known_id = is_known, .arg = &c.known_id,
		.scratch = scratch, .scratch_size = 65536,
	};
	const void *rec;
	size_t len;
	uint64_t sum = 0;
	uint64_t limit = (v.head > start + ring ? v.head : start + ring);
	while (ring_next(&r, &v, &rec, &len)) {
		const uint8_t *p = rec;
		FZ_CHECK(len >= sizeof(struct perf_event_header) && len <= 65536);
		FZ_CHECK((p >= bytes && p + len <= bytes + ring) ||
			 (p >= scratch && p + len <= scratch + 65536));
		for (size_t i = 0; i < len; i++)	/* every byte readable */
			sum += p[i];
		FZ_CHECK(r.pos <= limit);		/* within one lap */
	}
	FZ_CHECK(r.pos <= limit);
	(void)sum;
	free(bytes);
	free(scratch);
	return 0;
}
