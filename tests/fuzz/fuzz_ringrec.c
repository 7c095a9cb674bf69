/*
 * fuzz_ringrec: ring-buffer records, which the kernel writes but a
 * workload shapes (its thread names, the paths it maps, its stack bytes
 * and registers that a DWARF unwind walks), and which two CPUs writing at
 * once can tear. The input is a ring dump as `prof run --record-dump`
 * writes it (collectors/threads.h: header, events, samplers, then the raw
 * records), so the recordings under tests/fixtures/ring are the seeds.
 * Every record is decoded and handed to each consumer prof has: the
 * thread table, the code modules and working set, and a synchronous
 * recorder (unwinding and symbolizing). The recorder's sink checks that
 * every id is announced before it is used.
 */
#include <errno.h>

#include "collectors/modules.h"
#include "collectors/recorder.h"
#include "collectors/threads.h"
#include "fuzz.h"

#define MAX_EVENTS 64
#define MAX_SAMPLERS 8

struct dump {
	struct ring_dump_header h;
	uint64_t sampler_id[MAX_SAMPLERS];
	struct perf_rec_layout lay[MAX_SAMPLERS];
};

static const struct perf_rec_layout *layout_of(uint64_t id, void *arg)
{
	const struct dump *d = arg;
	for (uint32_t i = 0; i < d->h.nsamplers; i++)
		if (d->sampler_id[i] == id)
			return &d->lay[i];
	return NULL;
}

/* The sink: ids dense from 1, each announced before it is referred to. */
struct seen {
	uint32_t modules, symbols, frames, stacks;
	uint64_t samples;
};

static int on_module(void *arg, uint32_t id, const char *path, const char *bid)
{
	struct seen *s = arg;
	(void)bid;
	FZ_CHECK(id == s->modules + 1 && path);
	s->modules++;
	return 0;
}

static int on_symbol(void *arg, uint32_t id, uint32_t module, const char *name)
{
	struct seen *s = arg;
	(void)name;
	FZ_CHECK(id == s->symbols + 1 && module >= 1 && module <= s->modules);
	s->symbols++;
	return 0;
}

static int on_frame(void *arg, uint32_t id, uint32_t symbol, uint64_t offset)
{
	struct seen *s = arg;
	(void)offset;
	FZ_CHECK(id == s->frames + 1 && symbol >= 1 && symbol <= s->symbols);
	s->frames++;
	return 0;
}

static int on_stack(void *arg, uint32_t id, uint32_t parent, uint32_t frame)
{
	struct seen *s = arg;
	FZ_CHECK(id == s->stacks + 1 && parent < id);
	FZ_CHECK(frame >= 1 && frame <= s->frames);
	s->stacks++;
	return 0;
}

static int on_sample(void *arg, const struct recorder_sample *smp)
{
	struct seen *s = arg;
	FZ_CHECK(smp->stack >= 1 && smp->stack <= s->stacks);
	s->samples++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dump d;
	size_t off = sizeof(d.h);
	if (size < off)
		return 0;
	memcpy(&d.h, data, sizeof(d.h));
	if (d.h.nevents > MAX_EVENTS || d.h.nsamplers > MAX_SAMPLERS)
		return 0;
	if ((size - off) / sizeof(struct ring_dump_event) < d.h.nevents)
		return 0;

	struct thread_table *tt = thread_table_new(d.h.nevents);
	FZ_CHECK(tt);
	for (uint32_t i = 0; i < d.h.nevents; i++) {
		struct ring_dump_event e;
		memcpy(&e, data + off, sizeof(e));
		off += sizeof(e);
		FZ_CHECK(thread_table_map_id(tt, e.id, i) == 0);
	}
	if ((size - off) / sizeof(struct ring_dump_sampler) < d.h.nsamplers) {
		thread_table_free(tt);
		return 0;
	}

	struct modules_opts mo = { .working_set = true, .no_elf = true,
				   .perf_map_dir = "/nonexistent", .page_size = 4096 };
	struct modules *mods = modules_new(&mo);
	FZ_CHECK(mods);
	enum call_graph cg = CALL_GRAPH_NONE;
	struct ring_dump_sampler sd[MAX_SAMPLERS];
	for (uint32_t i = 0; i < d.h.nsamplers; i++) {
		memcpy(&sd[i], data + off, sizeof(sd[i]));
		off += sizeof(sd[i]);
		d.sampler_id[i] = sd[i].id;
		d.lay[i] = (struct perf_rec_layout){ sd[i].sample_type,
						     sd[i].read_format,
						     sd[i].regs_user_mask, 0 };
		if (sd[i].sample_type & PERF_SAMPLE_ADDR)
			FZ_CHECK(modules_add_fault_id(mods, sd[i].id) == 0);
		if (sd[i].sample_type & PERF_SAMPLE_STACK_USER)
			cg = CALL_GRAPH_DWARF;
		else if ((sd[i].sample_type & PERF_SAMPLE_CALLCHAIN) &&
			 cg == CALL_GRAPH_NONE)
			cg = CALL_GRAPH_FP;
	}

	struct seen seen = { 0 };
	struct recorder_opts ro = {
		.call_graph = cg, .nevents = d.h.nsamplers,
		.sink = { on_module, on_symbol, on_frame, on_stack, on_sample,
			  NULL, &seen, NULL },
		.perf_map_dir = "/nonexistent", .kallsyms = "", .synchronous = true,
	};
	struct recorder *rec = recorder_new(&ro);
	FZ_CHECK(rec);
	for (uint32_t i = 0; i < d.h.nsamplers; i++)
		FZ_CHECK(recorder_map_id(rec, sd[i].id, i) == 0);

	FZ_CHECK(thread_table_add_target(tt, 1, 1, "target", 0) == 0);
	struct perf_rec_layout base = { d.h.sample_type, d.h.read_format, 0, 0 };
	size_t records = 0, undecodable = 0;
	while (size - off >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > size - off)
			break;
		/* The ring hands out records 8-byte aligned; so does this. */
		uint64_t buf[65536 / 8];
		memcpy(buf, data + off, h.size);
		off += h.size;
		struct perf_rec r;
		if (perf_rec_decode(buf, h.size, &base, layout_of, &d, &r)) {
			undecodable++;
			continue;
		}
		records++;
		FZ_CHECK(r.type == h.type && r.size == h.size);
		FZ_CHECK(thread_table_feed(tt, &r, 0) == 0);
		FZ_CHECK(modules_feed(mods, &r) == 0);
		recorder_on_record(&r, 0, rec);
	}

	/* The end of a run: the target's share, the audit, the lists. */
	struct thread_count totals[MAX_EVENTS];
	bool supported[MAX_EVENTS];
	for (uint32_t i = 0; i < d.h.nevents; i++) {
		totals[i] = (struct thread_count){ UINT64_MAX / 2, 1000, 1000, true };
		supported[i] = true;
	}
	thread_table_settle_target(tt, 0, totals);
	struct thread_audit audit;
	thread_table_audit(tt, supported, &audit);
	FZ_CHECK(audit.tasks <= thread_table_count(tt));
	for (size_t i = 0; i < thread_table_count(tt); i++)
		FZ_CHECK(strnlen(thread_table_row(tt, i)->name, 16) < 16);

	char *cause = NULL;
	FZ_CHECK(modules_finish(mods, &cause) == 0 && !cause);
	for (size_t i = 0; i < modules_count(mods); i++)
		FZ_CHECK(modules_at(mods, i)->path);
	FZ_CHECK(recorder_finish(rec, &cause) == 0 && !cause);
	struct recorder_stats st;
	recorder_stats(rec, &st);
	FZ_CHECK(st.records == records && st.samples == seen.samples);
	(void)undecodable;

	recorder_free(rec);
	modules_free(mods);
	thread_table_free(tt);
	return 0;
}
