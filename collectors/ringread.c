/*
 * ringread: records out of a ring buffer written by several CPUs at once;
 * see ringread.h for why the published head is not enough.
 */
#include <string.h>

#include "collectors/ringread.h"

/* Highest record type prof accepts unpublished (PERF_RECORD_AUX_OUTPUT_HW_ID). */
#define MAX_RECORD_TYPE 21
/* Records of different CPUs reach the buffer slightly out of time order. */
#define TIME_SKEW_NS 1000000ull
/* How far past an unreadable spot to look for the next record. */
#define RESYNC_SPAN 65536u

enum verdict { REC_OK, REC_FRESH, REC_BAD };

static void peek(const struct ring_view *v, uint64_t pos, void *out, size_t n)
{
	size_t off = (size_t)(pos & (v->size - 1));
	size_t first = v->size - off < n ? v->size - off : n;
	memcpy(out, v->data + off, first);
	if (first < n)
		memcpy((uint8_t *)out + first, v->data, n - first);
}

/* The record's bytes, contiguous: in place or copied into the scratch. */
static const void *bytes_at(const struct ring_view *v, uint64_t pos, size_t n)
{
	size_t off = (size_t)(pos & (v->size - 1));
	if (off + n <= v->size)
		return v->data + off;
	peek(v, pos, v->scratch, n);
	return v->scratch;
}

/*
 * Is there a whole, settled record at pos that prof's events wrote in
 * this lap of the buffer? Used where data_head does not vouch for it.
 */
static enum verdict judge(const struct ring_reader *r, const struct ring_view *v,
			  uint64_t pos, const void **rec, size_t *len, uint64_t *t)
{
	struct perf_event_header h;
	peek(v, pos, &h, sizeof(h));
	if (h.type == 0 || h.type > MAX_RECORD_TYPE || h.size % 8 ||
	    h.size < sizeof(h) + perf_sample_id_size(v->lay->sample_type) ||
	    h.size > v->scratch_size || h.size > v->size / 2)
		return REC_BAD;
	/* Beyond tail + size lie this drain's own first bytes: records
	 * written within the time skew of each other would otherwise be
	 * taken again, lap after lap. */
	if (pos + h.size > v->tail + v->size)
		return REC_BAD;
	const void *p = bytes_at(v, pos, h.size);
	struct perf_rec d;
	if (perf_rec_decode(p, h.size, v->lay, v->layout_for_id, v->arg, &d) ||
	    !d.sid.valid || d.sid.time == 0 || !v->known_id(d.sid.id, v->arg))
		return REC_BAD;
	if (r->last_time && d.sid.time + TIME_SKEW_NS < r->last_time)
		return REC_BAD;		/* stale: an earlier lap's bytes */
	if (d.sid.time > v->now_ns || v->now_ns - d.sid.time < v->settle_ns)
		return REC_FRESH;
	*rec = p;
	*len = h.size;
	*t = d.sid.time;
	return REC_OK;
}

static bool header_is_zero(const struct ring_view *v, uint64_t pos)
{
	uint64_t w;
	peek(v, pos, &w, sizeof(w));
	return w == 0;
}

static void took(struct ring_reader *r, size_t len, uint64_t t)
{
	r->pos += len;
	if (t > r->last_time)
		r->last_time = t;
}

/*
 * The bytes at r->pos are no record: find the next settled one within
 * RESYNC_SPAN and take it, counting what was skipped.
 */
static int resync(struct ring_reader *r, const struct ring_view *v,
		  const void **rec, size_t *len)
{
	size_t span = RESYNC_SPAN < v->size / 2 ? RESYNC_SPAN : v->size / 2;
	for (uint64_t q = r->pos + 8; q < r->pos + span; q += 8) {
		uint64_t t = 0;
		enum verdict vd = judge(r, v, q, rec, len, &t);
		if (vd == REC_FRESH)
			return 0;	/* wait until it settles, then decide */
		if (vd == REC_OK) {
			r->torn_bytes += q - r->pos;
			r->torn_runs++;
			r->pos = q;
			took(r, *len, t);
			return 1;
		}
	}
	return 0;
}

int ring_next(struct ring_reader *r, const struct ring_view *v,
	      const void **rec, size_t *len)
{
	if (r->pos < v->head) {
		/* Published: data_head vouches that the bytes are written. */
		struct perf_event_header h;
		peek(v, r->pos, &h, sizeof(h));
		if (h.size >= sizeof(h) && h.size % 8 == 0 &&
		    h.size <= v->head - r->pos && h.size <= v->scratch_size) {
			*rec = bytes_at(v, r->pos, h.size);
			*len = h.size;
			took(r, h.size, perf_rec_time(*rec, h.size, v->lay,
						      v->layout_for_id, v->arg));
			return 1;
		}
		/* Torn by two writers: look for the next whole record. */
		if (resync(r, v, rec, len))
			return 1;
		/* Nothing readable up to the head: skip to it, counted. */
		r->torn_bytes += v->head - r->pos;
		r->torn_runs++;
		r->pos = v->head;
		return 0;
	}
	if (header_is_zero(v, r->pos))
		return 0;	/* nothing written here yet */
	uint64_t t = 0;
	switch (judge(r, v, r->pos, rec, len, &t)) {
	case REC_OK:
		r->past_head++;
		took(r, *len, t);
		return 1;
	case REC_FRESH:
		return 0;
	case REC_BAD:
		break;
	}
	if (resync(r, v, rec, len)) {
		r->past_head++;
		return 1;
	}
	return 0;
}

bool ring_settling(const struct ring_reader *r, const struct ring_view *v)
{
	if (header_is_zero(v, r->pos))
		return false;
	size_t span = RESYNC_SPAN < v->size / 2 ? RESYNC_SPAN : v->size / 2;
	const void *rec;
	size_t len;
	uint64_t t;
	/* Where resync would look: a torn spot before a settling record. */
	for (uint64_t q = r->pos; q < r->pos + span; q += 8)
		if (judge(r, v, q, &rec, &len, &t) != REC_BAD)
			return true;
	return false;
}
