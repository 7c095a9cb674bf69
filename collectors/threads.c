/*
 * threads: the ring-buffer record decoder and the per-thread table fed by
 * it. See threads.h for the rules that open and close rows.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/threads.h"
#include "common/utf8.h"

/* ---- decoding ---- */

struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v = 0;
	if (c->end - c->p < 8) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

/* Two u32 packed in one u64 slot, low address first. */
static void take_u32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	uint64_t v = take_u64(c);
	uint32_t w[2];
	memcpy(w, &v, 8);
	*a = w[0];
	*b = w[1];
}

static const uint8_t *take_bytes(struct cursor *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	const uint8_t *q = c->p;
	c->p += n;
	return q;
}

size_t perf_sample_id_size(uint64_t st)
{
	size_t n = 0;
	if (st & PERF_SAMPLE_TID)
		n += 8;
	if (st & PERF_SAMPLE_TIME)
		n += 8;
	if (st & PERF_SAMPLE_ID)
		n += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (st & PERF_SAMPLE_CPU)
		n += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

static void decode_sample_id(const uint8_t *rec_end, size_t body_len,
			     uint64_t st, struct perf_sample_id *sid)
{
	size_t n = perf_sample_id_size(st);
	memset(sid, 0, sizeof(*sid));
	if (n == 0 || n > body_len)
		return;
	struct cursor c = { rec_end - n, rec_end, false };
	uint32_t res;
	if (st & PERF_SAMPLE_TID)
		take_u32x2(&c, &sid->pid, &sid->tid);
	if (st & PERF_SAMPLE_TIME)
		sid->time = take_u64(&c);
	if (st & PERF_SAMPLE_ID)
		sid->id = take_u64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		(void)take_u64(&c);
	if (st & PERF_SAMPLE_CPU)
		take_u32x2(&c, &sid->cpu, &res);
	if (st & PERF_SAMPLE_IDENTIFIER)
		sid->id = take_u64(&c);
	sid->valid = !c.bad;
}

/* A NUL-terminated string inside [p, end), or NULL. */
static const char *bounded_string(const uint8_t *p, const uint8_t *end)
{
	if (p >= end || !memchr(p, '\0', (size_t)(end - p)))
		return NULL;
	return (const char *)p;
}

static int decode_read(struct cursor *c, uint64_t rf, struct perf_rec *out)
{
	take_u32x2(c, &out->u.read.pid, &out->u.read.tid);
	if (rf & PERF_FORMAT_GROUP) {
		uint64_t nr = take_u64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			out->u.read.enabled = take_u64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			out->u.read.running = take_u64(c);
		if (nr > PERF_REC_MAX_READ)
			return -EINVAL;
		out->u.read.nr = (size_t)nr;
		for (uint64_t i = 0; i < nr; i++) {
			out->u.read.value[i] = take_u64(c);
			out->u.read.id[i] = (rf & PERF_FORMAT_ID) ? take_u64(c) : 0;
			if (rf & PERF_FORMAT_LOST)
				(void)take_u64(c);
		}
	} else {
		out->u.read.nr = 1;
		out->u.read.value[0] = take_u64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			out->u.read.enabled = take_u64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			out->u.read.running = take_u64(c);
		out->u.read.id[0] = (rf & PERF_FORMAT_ID) ? take_u64(c) : 0;
		if (rf & PERF_FORMAT_LOST)
			(void)take_u64(c);
	}
	return c->bad ? -EINVAL : 0;
}

static int decode_sample(struct cursor *c, const struct perf_rec_layout *lay,
			 const struct perf_rec_layout *(*layout_for_id)(uint64_t, void *),
			 void *arg, struct perf_rec *out)
{
	uint64_t st = lay->sample_type;
	memset(&out->u.sample, 0, sizeof(out->u.sample));
	if (st & PERF_SAMPLE_IDENTIFIER) {
		out->u.sample.identifier = take_u64(c);
		if (layout_for_id) {
			const struct perf_rec_layout *l =
				layout_for_id(out->u.sample.identifier, arg);
			if (l) {
				lay = l;
				st = l->sample_type;
			}
		}
	}
	if (st & (PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_RAW))
		return -EOPNOTSUPP;
	uint32_t res;
	if (st & PERF_SAMPLE_IP)
		out->u.sample.ip = take_u64(c);
	if (st & PERF_SAMPLE_TID)
		take_u32x2(c, &out->u.sample.pid, &out->u.sample.tid);
	if (st & PERF_SAMPLE_TIME)
		out->u.sample.time = take_u64(c);
	if (st & PERF_SAMPLE_ADDR)
		out->u.sample.addr = take_u64(c);
	if (st & PERF_SAMPLE_ID)
		out->u.sample.id = take_u64(c);
	if (st & PERF_SAMPLE_STREAM_ID)
		out->u.sample.stream_id = take_u64(c);
	if (st & PERF_SAMPLE_CPU)
		take_u32x2(c, &out->u.sample.cpu, &res);
	if (st & PERF_SAMPLE_PERIOD)
		out->u.sample.period = take_u64(c);
	if (st & PERF_SAMPLE_READ) {
		/* A sample's read_format body has no pid/tid: skip it by hand. */
		uint64_t rf = lay->read_format;
		if (rf & PERF_FORMAT_GROUP) {
			uint64_t nr = take_u64(c);
			size_t per = 8 + ((rf & PERF_FORMAT_ID) ? 8 : 0) +
				     ((rf & PERF_FORMAT_LOST) ? 8 : 0);
			if (nr > PERF_REC_MAX_READ)
				return -EINVAL;
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				out->u.sample.read_enabled = take_u64(c);
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				out->u.sample.read_running = take_u64(c);
			out->u.sample.read_nr = nr;
			out->u.sample.read_stride = (unsigned)(per / 8);
			out->u.sample.read_has_id = (rf & PERF_FORMAT_ID) != 0;
			out->u.sample.read_vals = (const uint64_t *)take_bytes(c, nr * per);
		} else {
			/* value, then the times, then the id: no stride fits
			 * it, so only the value is kept. */
			size_t n = 8 + ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
				   ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0) +
				   ((rf & PERF_FORMAT_ID) ? 8 : 0) +
				   ((rf & PERF_FORMAT_LOST) ? 8 : 0);
			out->u.sample.read_nr = 1;
			out->u.sample.read_stride = 1;
			out->u.sample.read_vals = (const uint64_t *)take_bytes(c, n);
		}
		if (!out->u.sample.read_vals)
			out->u.sample.read_nr = 0;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = take_u64(c);
		if (nr > 4096)
			return -EINVAL;
		out->u.sample.nr_callchain = nr;
		out->u.sample.callchain = (const uint64_t *)take_bytes(c, nr * 8);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		out->u.sample.abi = take_u64(c);
		if (out->u.sample.abi) {
			uint64_t n = (uint64_t)__builtin_popcountll(lay->regs_user_mask);
			out->u.sample.regs = (const uint64_t *)take_bytes(c, n * 8);
			out->u.sample.nregs = (uint32_t)n;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size = take_u64(c);
		out->u.sample.stack_size = size;
		if (size) {
			out->u.sample.stack = take_bytes(c, size);
			out->u.sample.stack_dyn_size = take_u64(c);
			if (out->u.sample.stack_dyn_size > size)
				out->u.sample.stack_dyn_size = size;
		}
	}
	if (st & PERF_SAMPLE_WEIGHT)
		(void)take_u64(c);
	if (st & PERF_SAMPLE_DATA_SRC)
		(void)take_u64(c);
	if (st & PERF_SAMPLE_TRANSACTION)
		(void)take_u64(c);
	if (st & PERF_SAMPLE_REGS_INTR) {
		out->u.sample.intr_abi = take_u64(c);
		if (out->u.sample.intr_abi) {
			uint64_t n = (uint64_t)__builtin_popcountll(lay->regs_intr_mask);
			out->u.sample.intr_regs = (const uint64_t *)take_bytes(c, n * 8);
			out->u.sample.nintr = out->u.sample.intr_regs ? (uint32_t)n : 0;
		}
	}
	out->sid.valid = true;
	out->sid.pid = out->u.sample.pid;
	out->sid.tid = out->u.sample.tid;
	out->sid.time = out->u.sample.time;
	out->sid.cpu = out->u.sample.cpu;
	out->sid.id = (st & PERF_SAMPLE_IDENTIFIER) ? out->u.sample.identifier
						     : out->u.sample.id;
	return c->bad ? -EINVAL : 0;
}

/* The header of the record at buf, whole within len bytes. */
static bool rec_header(const void *buf, size_t len, struct perf_event_header *h)
{
	if (len < sizeof(*h))
		return false;
	memcpy(h, buf, sizeof(*h));
	return h->size >= sizeof(*h) && h->size <= len;
}

/* Every member of perf_rec's union lies in its first bytes but a READ's
 * arrays past their start. */
#define PERF_REC_UNION_ZEROED 256
#define REC_MEMBER_SIZE(m) sizeof(((struct perf_rec *)0)->u.m)
_Static_assert(REC_MEMBER_SIZE(comm) <= PERF_REC_UNION_ZEROED &&
	       REC_MEMBER_SIZE(task) <= PERF_REC_UNION_ZEROED &&
	       REC_MEMBER_SIZE(lost) <= PERF_REC_UNION_ZEROED &&
	       REC_MEMBER_SIZE(sw) <= PERF_REC_UNION_ZEROED &&
	       REC_MEMBER_SIZE(mmap) <= PERF_REC_UNION_ZEROED &&
	       REC_MEMBER_SIZE(sample) <= PERF_REC_UNION_ZEROED &&
	       offsetof(struct perf_rec, u.read.value) - offsetof(struct perf_rec, u) <=
	       PERF_REC_UNION_ZEROED && PERF_REC_UNION_ZEROED <= REC_MEMBER_SIZE(read),
	       "perf_rec_decode zeroes every member but a READ's arrays");

int perf_rec_decode(const void *buf, size_t len, const struct perf_rec_layout *lay,
		    const struct perf_rec_layout *(*layout_for_id)(uint64_t id, void *arg),
		    void *arg, struct perf_rec *out)
{
	struct perf_event_header h;
	/* All but the tail of a READ's value and id arrays, which
	 * decode_read fills up to nr: zeroing them took half the decode. */
	memset(out, 0, offsetof(struct perf_rec, u) + PERF_REC_UNION_ZEROED);
	if (!rec_header(buf, len, &h))
		return -EINVAL;
	out->type = h.type;
	out->misc = h.misc;
	out->size = h.size;

	const uint8_t *body = (const uint8_t *)buf + sizeof(h);
	const uint8_t *end = (const uint8_t *)buf + h.size;
	size_t body_len = (size_t)(end - body);
	struct cursor c = { body, end, false };

	if (h.type == PERF_RECORD_SAMPLE)
		return decode_sample(&c, lay, layout_for_id, arg, out);

	decode_sample_id(end, body_len, lay->sample_type, &out->sid);
	size_t tsz = perf_sample_id_size(lay->sample_type);
	const uint8_t *fields_end = body_len >= tsz ? end - tsz : end;
	c.end = fields_end;

	switch (h.type) {
	case PERF_RECORD_COMM:
		take_u32x2(&c, &out->u.comm.pid, &out->u.comm.tid);
		out->u.comm.comm = bounded_string(c.p, fields_end);
		if (!out->u.comm.comm)
			return -EINVAL;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		take_u32x2(&c, &out->u.task.pid, &out->u.task.ppid);
		take_u32x2(&c, &out->u.task.tid, &out->u.task.ptid);
		out->u.task.time = take_u64(&c);
		break;
	case PERF_RECORD_READ:
		return decode_read(&c, lay->read_format, out);
	case PERF_RECORD_LOST:
		out->u.lost.id = take_u64(&c);
		out->u.lost.lost = take_u64(&c);
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		take_u32x2(&c, &out->u.sw.next_prev_pid, &out->u.sw.next_prev_tid);
		break;
	case PERF_RECORD_SWITCH:
		out->u.sw.next_prev_pid = out->u.sw.next_prev_tid = 0;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		take_u32x2(&c, &out->u.mmap.pid, &out->u.mmap.tid);
		out->u.mmap.addr = take_u64(&c);
		out->u.mmap.len = take_u64(&c);
		out->u.mmap.pgoff = take_u64(&c);
		if (h.type == PERF_RECORD_MMAP2) {
			const uint8_t *u = take_bytes(&c, 24);
			if (!u)
				return -EINVAL;
			if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				out->u.mmap.has_build_id = true;
				out->u.mmap.build_id_size = u[0] > 20 ? 20 : u[0];
				memcpy(out->u.mmap.build_id, u + 4, 20);
			} else {
				memcpy(&out->u.mmap.maj, u, 4);
				memcpy(&out->u.mmap.min, u + 4, 4);
				memcpy(&out->u.mmap.ino, u + 8, 8);
				memcpy(&out->u.mmap.ino_generation, u + 16, 8);
			}
			take_u32x2(&c, &out->u.mmap.prot, &out->u.mmap.flags);
		} else {
			out->u.mmap.prot = 0;
		}
		if (c.bad)
			return -EINVAL;
		out->u.mmap.filename = bounded_string(c.p, fields_end);
		if (!out->u.mmap.filename)
			return -EINVAL;
		break;
	default:
		break;
	}
	return c.bad ? -EINVAL : 0;
}

uint64_t perf_rec_time(const void *buf, size_t len, const struct perf_rec_layout *lay,
		       const struct perf_rec_layout *(*layout_for_id)(uint64_t id, void *arg),
		       void *arg)
{
	struct perf_event_header h;
	if (!rec_header(buf, len, &h))
		return 0;
	if (h.type == PERF_RECORD_SAMPLE) {
		struct perf_rec r;
		return perf_rec_decode(buf, len, lay, layout_for_id, arg, &r) == 0 &&
		       r.sid.valid ? r.sid.time : 0;
	}
	struct perf_sample_id sid;
	decode_sample_id((const uint8_t *)buf + h.size, h.size - sizeof(h),
			 lay->sample_type, &sid);
	return sid.valid ? sid.time : 0;
}

/* ---- the table ---- */

struct id_map {
	uint64_t id;
	size_t idx;
};

struct thread_table {
	size_t nevents;
	struct thread_row *rows;
	size_t nrows, cap;
	/* open addressing: tid -> row index + 1 of the latest row; 0 empty */
	int32_t *keys;
	size_t *vals;
	size_t hcap, hused;
	struct id_map *ids;
	size_t nids;
	uint64_t lost;
	uint64_t anomalies;
	size_t name_scan;	/* rows before it: past check_names' window */
	bool by_switch;		/* counts arrive per switch, not as READs */
	size_t nparts;		/* events split over core PMUs: their parts */
	size_t *part_event;	/* per part, its event */
};

struct thread_table *thread_table_new(size_t nevents)
{
	struct thread_table *tt = calloc(1, sizeof(*tt));
	if (!tt)
		return NULL;
	tt->nevents = nevents;
	tt->hcap = 1024;
	tt->keys = calloc(tt->hcap, sizeof(int32_t));
	tt->vals = calloc(tt->hcap, sizeof(size_t));
	if (!tt->keys || !tt->vals) {
		thread_table_free(tt);
		errno = ENOMEM;
		return NULL;
	}
	return tt;
}

void thread_table_free(struct thread_table *tt)
{
	if (!tt)
		return;
	for (size_t i = 0; i < tt->nrows; i++) {
		free(tt->rows[i].counts);
		free(tt->rows[i].parts);
	}
	free(tt->part_event);
	free(tt->rows);
	free(tt->keys);
	free(tt->vals);
	free(tt->ids);
	free(tt);
}

int thread_table_set_parts(struct thread_table *tt, size_t nparts,
			   const size_t *part_event)
{
	for (size_t k = 0; k < nparts; k++)
		if (part_event[k] >= tt->nevents)
			return -EINVAL;
	size_t *pe = malloc((nparts ? nparts : 1) * sizeof(*pe));
	if (!pe)
		return -ENOMEM;
	memcpy(pe, part_event, nparts * sizeof(*pe));
	free(tt->part_event);
	tt->part_event = pe;
	tt->nparts = nparts;
	return 0;
}

/* Event ev's count in r from its parts (thread_table_set_parts). */
static void combine_parts(const struct thread_table *tt, struct thread_row *r,
			  size_t ev)
{
	struct thread_count sum = { 0, 0, 0, false };
	for (size_t k = 0; k < tt->nparts; k++) {
		const struct thread_count *c = &r->parts[k];
		if (tt->part_event[k] != ev || !c->present)
			continue;
		sum.value += c->value;
		sum.running += c->running;
		if (c->enabled > sum.enabled)
			sum.enabled = c->enabled;
		sum.present = true;
	}
	if (sum.running > sum.enabled)
		sum.running = sum.enabled;
	r->counts[ev] = sum;
}

int thread_table_map_id(struct thread_table *tt, uint64_t id, size_t event_idx)
{
	struct id_map *p = realloc(tt->ids, (tt->nids + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	tt->ids = p;
	tt->ids[tt->nids].id = id;
	tt->ids[tt->nids].idx = event_idx;
	tt->nids++;
	return 0;
}

static long event_for_id(const struct thread_table *tt, uint64_t id)
{
	for (size_t i = 0; i < tt->nids; i++)
		if (tt->ids[i].id == id)
			return (long)tt->ids[i].idx;
	return -1;
}

bool thread_table_knows_id(const struct thread_table *tt, uint64_t id)
{
	return event_for_id(tt, id) >= 0;
}

/* Hash slots hold tid + 1 so that 0 marks an empty slot. */
static size_t slot_of(const struct thread_table *tt, int32_t tid)
{
	uint32_t h = (uint32_t)tid * 2654435761u;
	size_t mask = tt->hcap - 1;
	size_t i = h & mask;
	while (tt->keys[i] && tt->keys[i] != tid + 1)
		i = (i + 1) & mask;
	return i;
}

static struct thread_row *latest(struct thread_table *tt, int32_t tid)
{
	size_t s = slot_of(tt, tid);
	return tt->keys[s] ? &tt->rows[tt->vals[s]] : NULL;
}

static int grow_hash(struct thread_table *tt)
{
	size_t ncap = tt->hcap * 2;
	int32_t *ok = tt->keys;
	size_t *ov = tt->vals;
	size_t ocap = tt->hcap;
	tt->keys = calloc(ncap, sizeof(int32_t));
	tt->vals = calloc(ncap, sizeof(size_t));
	if (!tt->keys || !tt->vals) {
		free(tt->keys);
		free(tt->vals);
		tt->keys = ok;
		tt->vals = ov;
		return -ENOMEM;
	}
	tt->hcap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		if (!ok[i])
			continue;
		size_t s = slot_of(tt, ok[i] - 1);
		tt->keys[s] = ok[i];
		tt->vals[s] = ov[i];
	}
	free(ok);
	free(ov);
	return 0;
}

static struct thread_row *new_row(struct thread_table *tt, int32_t pid,
				  int32_t tid, int origin)
{
	if (tt->nrows == tt->cap) {
		size_t ncap = tt->cap ? tt->cap * 2 : 64;
		struct thread_row *p = realloc(tt->rows, ncap * sizeof(*p));
		if (!p)
			return NULL;
		tt->rows = p;
		tt->cap = ncap;
	}
	if ((tt->hused + 1) * 2 > tt->hcap && grow_hash(tt))
		return NULL;
	struct thread_row *r = &tt->rows[tt->nrows];
	memset(r, 0, sizeof(*r));
	r->counts = calloc(tt->nevents ? tt->nevents : 1, sizeof(*r->counts));
	if (!r->counts)
		return NULL;
	if (tt->nparts && !(r->parts = calloc(tt->nparts, sizeof(*r->parts)))) {
		free(r->counts);
		return NULL;
	}
	r->pid = pid;
	r->tid = tid;
	r->origin = origin;
	size_t s = slot_of(tt, tid);
	if (!tt->keys[s]) {
		tt->keys[s] = tid + 1;
		tt->hused++;
	}
	tt->vals[s] = tt->nrows;
	tt->nrows++;
	return r;
}

int thread_table_add_target(struct thread_table *tt, int32_t pid, int32_t tid,
			    const char *name, int origin)
{
	struct thread_row *r = new_row(tt, pid, tid, origin);
	if (!r)
		return -ENOMEM;
	r->is_target = true;
	if (name)
		snprintf(r->name, sizeof(r->name), "%s", name);
	return 0;
}
/* A thread's name as the kernel gave it, less a character its 15-byte
 * cut left in two. */
static void set_name(char dst[16], const char *src)
{
	size_t len = strnlen(src, 15);
	len = utf8_trim_cut(src, len);
	memcpy(dst, src, len);
	dst[len] = '\0';
}


int thread_table_feed(struct thread_table *tt, const struct perf_rec *rec,
		      int origin)
{
	struct thread_row *r;

	switch (rec->type) {
	case PERF_RECORD_FORK: {
		int32_t tid = (int32_t)rec->u.task.tid;
		/* A fork of a new process copies its parent's name too. */
		struct thread_row *parent = latest(tt, (int32_t)rec->u.task.ptid);
		char pname[16] = "";
		if (parent)
			memcpy(pname, parent->name, sizeof(pname));
		r = latest(tt, tid);
		/* A FORK always starts a thread; an older row for the same tid
		 * belongs to a thread that is gone (tids are reused). */
		if (!r || !r->is_target || r->exited || r->end_ns) {
			r = new_row(tt, (int32_t)rec->u.task.pid, tid, origin);
			if (!r)
				return -ENOMEM;
		}
		memcpy(r->name, pname, sizeof(r->name));
		r->start_ns = rec->u.task.time;
		r->forked = true;
		break;
	}
	case PERF_RECORD_COMM: {
		int32_t tid = (int32_t)rec->u.comm.tid;
		r = latest(tt, tid);
		if (!r || r->exited || r->end_ns) {
			r = new_row(tt, (int32_t)rec->u.comm.pid, tid, origin);
			if (!r)
				return -ENOMEM;
		}
		set_name(r->name, rec->u.comm.comm);
		r->named = true;
		r->name_from_proc = false;
		break;
	}
	case PERF_RECORD_EXIT:
		r = latest(tt, (int32_t)rec->u.task.tid);
		if (r)
			r->end_ns = rec->u.task.time;
		break;
	case PERF_RECORD_READ:
		for (size_t k = 0; k < rec->u.read.nr; k++) {
			long ev = event_for_id(tt, rec->u.read.id[k]);
			if (ev < 0)
				continue;
			/* Split: ev is a part, and the event its parts'. */
			long part = tt->nparts ? ev : -1;
			if (part >= 0)
				ev = (long)tt->part_event[part];
			int32_t tid = (int32_t)rec->u.read.tid;
			r = latest(tt, tid);
			/* Targets get no READ of their own (their events are
			 * not inherited), so a READ naming one is a new thread. */
			bool had = r && (part >= 0 ? r->parts[part].present
						   : r->counts[ev].present);
			if (!r || had || r->is_target) {
				r = new_row(tt, (int32_t)rec->u.read.pid, tid, origin);
				if (!r)
					return -ENOMEM;
			}
			struct thread_count *c = part >= 0 ? &r->parts[part]
							   : &r->counts[ev];
			c->value = rec->u.read.value[k];
			c->enabled = rec->u.read.enabled;
			c->running = rec->u.read.running;
			c->present = true;
			if (part >= 0)
				combine_parts(tt, r, (size_t)ev);
			r->exited = true;
		}
		break;
	case PERF_RECORD_LOST:
		tt->lost += rec->u.lost.lost;
		break;
	default:
		break;
	}
	return 0;
}

static void add_to(struct thread_count *c, const struct thread_count *d)
{
	c->value += d->value;
	c->enabled += d->enabled;
	c->running += d->running;
	c->present = true;
}

int thread_table_add_counts(struct thread_table *tt, int32_t pid, int32_t tid,
			    uint64_t time, const struct thread_count *deltas,
			    const struct thread_row **row)
{
	return thread_table_add_part_counts(tt, pid, tid, time, deltas, NULL, row);
}

int thread_table_add_part_counts(struct thread_table *tt, int32_t pid,
				 int32_t tid, uint64_t time,
				 const struct thread_count *deltas,
				 const long *part, const struct thread_row **row)
{
	tt->by_switch = true;
	struct thread_row *r = latest(tt, tid);
	if (r && r->start_ns > time) {
		/* An earlier thread of the same tid: its row is older. */
		struct thread_row *older = NULL;
		for (size_t i = (size_t)(r - tt->rows); i-- > 0 && !older;)
			if (tt->rows[i].tid == tid && tt->rows[i].start_ns <= time)
				older = &tt->rows[i];
		r = older ? older : r;
	}
	if (!r) {
		r = new_row(tt, pid, tid, 0);
		if (!r)
			return -ENOMEM;
	}
	for (size_t e = 0; e < tt->nevents; e++) {
		if (!deltas[e].present)
			continue;
		add_to(&r->counts[e], &deltas[e]);
		if (part && part[e] >= 0 && (size_t)part[e] < tt->nparts)
			add_to(&r->parts[part[e]], &deltas[e]);
	}
	if (row)
		*row = r;
	return 0;
}

/* Slot k of r: a part where the events are split, else an event. */
static struct thread_count *slot(const struct thread_table *tt,
				 const struct thread_row *r, size_t k)
{
	return tt->nparts ? &r->parts[k] : &r->counts[k];
}

void thread_table_settle_target(struct thread_table *tt, int origin,
				const struct thread_count *totals)
{
	struct thread_row *target = NULL;
	for (size_t i = 0; i < tt->nrows; i++)
		if (tt->rows[i].is_target && tt->rows[i].origin == origin)
			target = &tt->rows[i];
	if (!target)
		return;
	size_t n = tt->nparts ? tt->nparts : tt->nevents;
	for (size_t e = 0; e < n; e++) {
		if (!totals[e].present)
			continue;
		uint64_t v = 0, en = 0, ru = 0;
		for (size_t i = 0; i < tt->nrows; i++) {
			const struct thread_row *r = &tt->rows[i];
			const struct thread_count *rc = slot(tt, r, e);
			if (r == target || r->origin != origin || !rc->present)
				continue;
			v += rc->value;
			en += rc->enabled;
			ru += rc->running;
		}
		struct thread_count *c = slot(tt, target, e);
		c->present = true;
		if (v > totals[e].value || en > totals[e].enabled ||
		    ru > totals[e].running) {
			tt->anomalies++;
		}
		c->value = totals[e].value > v ? totals[e].value - v : 0;
		c->enabled = totals[e].enabled > en ? totals[e].enabled - en : 0;
		c->running = totals[e].running > ru ? totals[e].running - ru : 0;
		if (tt->nparts)
			combine_parts(tt, target, tt->part_event[e]);
	}
}

void thread_table_audit(const struct thread_table *tt, const bool *supported,
			struct thread_audit *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < tt->nrows; i++) {
		const struct thread_row *r = &tt->rows[i];
		if (r->privileged && !out->privileged++)
			memcpy(out->privileged_name, r->name, sizeof(r->name));
		if (r->is_target)
			continue;
		out->tasks++;
		size_t due = 0, got = 0;
		for (size_t e = 0; e < tt->nevents; e++) {
			if (!supported[e])
				continue;
			due++;
			got += r->counts[e].present;
		}
		if (!r->forked)
			out->no_start++;

		if (tt->by_switch && got && !r->end_ns && !r->exited) {
			out->live++;	/* counted, but it never exited */
		} else if (got == 0 && due > 0) {
			if (r->end_ns)
				out->no_counts++;
			else
				out->live++;
		} else if (got < due) {
			out->partial++;
		}
	}
}

int thread_table_mark_privileged(struct thread_table *tt, int32_t tid)
{
	struct thread_row *r = latest(tt, tid);
	if (!r)
		return -ENOENT;
	r->privileged = true;
	return 0;
}

size_t thread_table_check_names(struct thread_table *tt, uint64_t now_ns,
				uint64_t window_ns, thread_comm_fn read_comm, void *arg)
{
	bool front = true;	/* every row before i is past the window */
	size_t pending = 0;
	for (size_t i = tt->name_scan; i < tt->nrows; i++) {
		struct thread_row *r = &tt->rows[i];
		bool done = r->is_target || !r->forked || r->named ||
			    r->name_from_proc || r->exited || r->end_ns ||
			    (now_ns > r->start_ns && now_ns - r->start_ns > window_ns);
		char name[16];
		if (!done && read_comm(r->pid, r->tid, name, arg) &&
		    strncmp(name, r->name, sizeof(name))) {
			name[sizeof(name) - 1] = '\0';
			set_name(r->name, name);
			r->name_from_proc = true;
			done = true;
		}
		if (front && done)
			tt->name_scan = i + 1;
		else
			front = false;
		pending += !done;
	}
	return pending;
}

size_t thread_table_names_from_proc(const struct thread_table *tt)
{
	size_t n = 0;
	for (size_t i = 0; i < tt->nrows; i++)
		n += tt->rows[i].name_from_proc;
	return n;
}

size_t thread_table_count(const struct thread_table *tt)
{
	return tt->nrows;
}

const struct thread_row *thread_table_row(const struct thread_table *tt, size_t i)
{
	return i < tt->nrows ? &tt->rows[i] : NULL;
}

uint64_t thread_table_lost(const struct thread_table *tt)
{
	return tt->lost;
}

uint64_t thread_table_anomalies(const struct thread_table *tt)
{
	return tt->anomalies;
}
