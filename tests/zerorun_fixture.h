/*
 * fixture_zero_run: a counted run as QEMU's arm64 PMU gives one (see
 * shared/DESIGN.md: every event opens, only cycles and instructions
 * count): two threads; task-clock and major-faults (software, the faults
 * 0 as they normally are); cycles and instructions in group 1, both
 * counted; branch-misses in group 1 and l1i-misses (the PMU's own event,
 * type 8, in group 2) opened, ran all the time, and read 0; llc-misses
 * in group 2 enabled but never run. Header-only, like fixture_db.h.
 */
#ifndef TESTS_ZERORUN_FIXTURE_H
#define TESTS_ZERORUN_FIXTURE_H

#include "fixture_db.h"

enum { ZR_TASK_CLOCK, ZR_MAJOR_FAULTS, ZR_CYCLES, ZR_INSTRUCTIONS,
       ZR_BRANCH_MISSES, ZR_L1I_MISSES, ZR_LLC_MISSES, ZR_NEVENTS };

static inline void fixture_zero_run(struct db_run *r)
{
	memset(r, 0, sizeof(*r));
	r->id = 9;
	r->kind = fx_s("run");
	r->started = fx_s("2026-12-01T09:00:00Z");
	r->command = fx_s("./loop 1000000");
	r->wall_s = 0.5;
	r->user_s = 0.5;
	r->sys_s = 0.0;
	r->host.hostname = fx_s("guest");
	r->host.cpu_model = fx_s("aarch64");
	r->host.kernel = fx_s("6.12");
	r->host.online_cpus = 1;
	r->pin.mode = fx_s("none");
	r->pin.status = fx_s("not requested");
	r->nevents = ZR_NEVENTS;
	r->events = calloc(ZR_NEVENTS, sizeof(*r->events));
	fx_add_event(r, ZR_TASK_CLOCK, "task-clock", true, 0, 1, 1);
	fx_add_event(r, ZR_MAJOR_FAULTS, "major-faults", true, 0, 1, 6);
	fx_add_event(r, ZR_CYCLES, "cycles", true, 1, 0, 0);
	fx_add_event(r, ZR_INSTRUCTIONS, "instructions", true, 1, 0, 1);
	fx_add_event(r, ZR_BRANCH_MISSES, "branch-misses", true, 1, 0, 5);
	fx_add_event(r, ZR_L1I_MISSES, "l1i-misses", true, 2, 8, 0x1);
	fx_add_event(r, ZR_LLC_MISSES, "llc-misses", true, 2, 8, 0x37);
	free(r->events[ZR_L1I_MISSES].canonical);
	r->events[ZR_L1I_MISSES].canonical = fx_s("arm_a57::L1I_CACHE_REFILL");
	free(r->events[ZR_LLC_MISSES].canonical);
	r->events[ZR_LLC_MISSES].canonical = fx_s("arm_a57::LL_CACHE_MISS_RD");
	static const char *names[] = { "loop", "worker" };
	static const uint64_t ns[] = { 100000000, 400000000 };
	r->nthreads = 2;
	r->threads = calloc(2, sizeof(*r->threads));
	for (size_t t = 0; t < 2; t++) {
		struct db_thread *th = &r->threads[t];
		th->tid = (int32_t)(500 + t);
		th->pid = 500;
		th->name = fx_s(names[t]);
		th->is_main = t == 0;
		th->counts = calloc(ZR_NEVENTS, sizeof(*th->counts));
		uint64_t n = ns[t];
		th->counts[ZR_TASK_CLOCK] = (struct db_count){ n, n, n, true };
		th->counts[ZR_MAJOR_FAULTS] = (struct db_count){ 0, n, n, true };
		/* -icount: cycles equal instructions, 8n+16 for the loop. */
		th->counts[ZR_CYCLES] = (struct db_count){ 8 * n / 100 + 16, n, n, true };
		th->counts[ZR_INSTRUCTIONS] = (struct db_count){ 8 * n / 100 + 16, n, n, true };
		th->counts[ZR_BRANCH_MISSES] = (struct db_count){ 0, n, n, true };
		th->counts[ZR_L1I_MISSES] = (struct db_count){ 0, n, n, true };
		th->counts[ZR_LLC_MISSES] = (struct db_count){ 0, n, 0, true };
		for (size_t e = 0; e < ZR_NEVENTS; e++) {
			struct db_count *tot = &r->events[e].total;
			tot->present = true;
			tot->value += th->counts[e].value;
			tot->enabled += th->counts[e].enabled;
			tot->running += th->counts[e].running;
		}
	}
}

#endif
