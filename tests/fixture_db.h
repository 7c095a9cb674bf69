/*
 * fixture_db: the runs and experiments the report tests render, built
 * through db/ with fixed values, so every byte a report prints from them
 * is the same on every machine and at every time. fixture_counted_run()
 * is one run in memory (reports/ tests render it directly);
 * fixture_db_build() writes a whole database of one run of each kind
 * prof stores (tests/e2e/test_golden.c runs the built prof on it);
 * fixture_pressure_db_build() one of a pressure experiment whose values
 * are made up, to draw it, and fixture_scenes_db_build() one of six
 * made-up experiments of the same arms, for `prof summary`. What they hold is listed in
 * tests/fixtures/golden/README.md.
 *
 * Header-only, like test_util.h, so each test stays one executable. The
 * builders abort on a failure of db/: a fixture that cannot be written
 * is a broken test, not a skip.
 */
#ifndef TESTS_FIXTURE_DB_H
#define TESTS_FIXTURE_DB_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/experiments.h"
#include "db/probe.h"
#include "db/runs.h"
#include "db/samples.h"
#include "db/sleep.h"

static inline char *fx_s(const char *s)
{
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}

static inline void fx_check(int rc, char *cause, const char *what)
{
	if (!rc)
		return;
	fprintf(stderr, "fixture_db: %s: %d: %s\n", what, rc, cause ? cause : "?");
	abort();
}

static inline void fx_add_event(struct db_run *r, size_t i, const char *name, bool sup,
				int group, uint32_t type, uint64_t config)
{
	struct db_event *e = &r->events[i];
	e->name = fx_s(name);
	e->canonical = fx_s(name);
	e->supported = sup;
	e->group = group;
	e->attr_type = type;
	e->attr_config = config;
	if (!sup)
		e->reason = fx_s("the kernel refused it: No such file or directory\n"
				 "hint: no hardware PMU is visible");
}

/* A mission counter: what the mission map chose for it on the host. */
static inline void fx_mission(struct db_run *r, size_t i, const char *canonical,
			      uint64_t config, const char *event, const char *note)
{
	struct db_event *e = &r->events[i];
	free(e->canonical);
	e->canonical = fx_s(canonical);
	e->attr_type = 4;	/* PERF_TYPE_RAW */
	e->attr_config = config;
	e->mission_family = fx_s("AMD Zen 3");
	e->mission_event = fx_s(event);
	e->mission_note = fx_s(note);
}

/* The machine every fixture run was "measured" on. */
static inline void fx_host(struct db_run *r)
{
	r->host.hostname = fx_s("box");
	r->host.cpu_model = fx_s("AMD Ryzen 9 5900X");
	r->host.kernel = fx_s("6.18");
	r->host.online_cpus = 24;
}

/*
 * A counted run of three threads of process 100 (whose parent is 99):
 * cycles and instructions multiplexed in group 1 (they ran half the
 * time); branch-misses in group 2 never ran; LLC-load-misses refused.
 * The hardware cases this VM cannot produce.
 * cycles, instructions and branch-misses are mission counters, the events
 * the mission map names on the host's Zen 3; LLC-load-misses is perf's
 * generic event, named as such.
 */
static inline void fixture_counted_run(struct db_run *r)
{
	memset(r, 0, sizeof(*r));
	r->id = 7;
	r->kind = fx_s("run");
	r->started = fx_s("2026-11-30T05:37:51Z");
	r->command = fx_s("./emu --scene 3");
	r->exit_status = 0;
	r->wall_s = 2.5;
	r->user_s = 4.25;
	r->sys_s = 0.125;
	fx_host(r);
	r->pin.mode = fx_s("largest-llc");
	r->pin.status = fx_s("applied");
	r->pin.cpus = fx_s("0-5,12-17");
	r->pin.level = 3;
	r->pin.size_bytes = 32u << 20;
	r->nevents = 5;
	r->events = calloc(5, sizeof(*r->events));
	fx_add_event(r, 0, "task-clock", true, 0, 1, 1);
	fx_add_event(r, 1, "cycles", true, 1, 0, 0);
	fx_add_event(r, 2, "instructions", true, 1, 0, 1);
	fx_add_event(r, 3, "branch-misses", true, 2, 0, 5);
	fx_add_event(r, 4, "LLC-load-misses", false, 0, 3, 0x10002);
	fx_mission(r, 1, "amd64_fam19h_zen3::CYCLES_NOT_IN_HALT", 0x76,
		   "ls_not_halted_cyc", "core cycles while the thread runs");
	fx_mission(r, 2, "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS", 0xc0,
		   "ex_ret_instr", "instructions retired");
	fx_mission(r, 3, "amd64_fam19h_zen3::RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",
		   0xc3, "ex_ret_brn_misp", "mispredicted branches, retired");
	static const char *names[] = { "emu", "render", "audio" };
	static const uint64_t tc[] = { 500000000, 3500000000, 250000000 };
	r->nthreads = 3;
	r->threads = calloc(3, sizeof(*r->threads));
	for (size_t t = 0; t < 3; t++) {
		struct db_thread *th = &r->threads[t];
		th->tid = (int32_t)(100 + t);
		th->pid = 100;
		th->ppid = 99;	/* the prof that launched it */
		th->name = fx_s(names[t]);
		th->is_main = t == 0;
		th->counts = calloc(5, sizeof(*th->counts));
		th->counts[0] = (struct db_count){ tc[t], tc[t], tc[t], true };
		/* Ran half of the time enabled: scaled by 2. */
		th->counts[1] = (struct db_count){ 1000000 * (t + 1), tc[t], tc[t] / 2, true };
		th->counts[2] = (struct db_count){ 2000000 * (t + 1), tc[t], tc[t] / 2, true };
		th->counts[3] = (struct db_count){ 0, tc[t], 0, true };
		for (int e = 0; e < 4; e++) {
			struct db_count *tot = &r->events[e].total;
			tot->present = true;
			tot->value += th->counts[e].value;
			tot->enabled += th->counts[e].enabled;
			tot->running += th->counts[e].running;
		}
	}
}

/* ---- the fixture database ---- */

/* A run's frame: kind, start, command (argv split on spaces), times. */
static inline void fx_run_init(struct db_run *r, const char *kind, const char *started,
			       const char *command, double wall_s, double user_s,
			       double sys_s)
{
	memset(r, 0, sizeof(*r));
	r->kind = fx_s(kind);
	r->started = fx_s(started);
	r->command = fx_s(command);
	r->argv = calloc(16, sizeof(char *));
	char *copy = fx_s(command), *save = NULL;
	for (char *w = strtok_r(copy, " ", &save); w && r->argc < 15;
	     w = strtok_r(NULL, " ", &save))
		r->argv[r->argc++] = fx_s(w);
	free(copy);
	r->cwd = fx_s("/home/dev/emu");
	r->wall_s = wall_s;
	r->user_s = user_s;
	r->sys_s = sys_s;
	fx_host(r);
	r->pin.mode = fx_s("none");
	r->pin.status = fx_s("not requested");
}

static inline void fx_events(struct db_run *r, size_t n)
{
	r->nevents = n;
	r->events = calloc(n, sizeof(*r->events));
}

static inline void fx_threads(struct db_run *r, size_t n)
{
	r->nthreads = n;
	r->threads = calloc(n, sizeof(*r->threads));
	for (size_t t = 0; t < n; t++)
		r->threads[t].counts = calloc(r->nevents + 1, sizeof(struct db_count));
}

static inline void fx_thread(struct db_run *r, size_t t, int32_t tid, int32_t pid,
			     const char *name)
{
	struct db_thread *th = &r->threads[t];
	th->tid = tid;
	th->pid = pid;
	th->name = fx_s(name);
	th->is_main = tid == pid;
}

/* Set thread t's count of event e (not multiplexed) and add it to the total. */
static inline void fx_count(struct db_run *r, size_t t, size_t e, uint64_t v)
{
	r->threads[t].counts[e] = (struct db_count){ v, 1000000, 1000000, true };
	struct db_count *tot = &r->events[e].total;
	tot->present = true;
	tot->value += v;
	tot->enabled += 1000000;
	tot->running += 1000000;
}

/* Run 1: the counted run above, with two threads sharing a name (for
 * --by name), stored as complete. */
static inline int64_t fx_store_counted(struct db *db)
{
	struct db_run r;
	char *cause = NULL;
	fixture_counted_run(&r);
	r.id = 0;
	free(r.threads[2].name);
	r.threads[2].name = fx_s("render");
	r.argc = 3;
	r.argv = calloc(4, sizeof(char *));
	r.argv[0] = fx_s("./emu");
	r.argv[1] = fx_s("--scene");
	r.argv[2] = fx_s("3");
	r.cwd = fx_s("/home/dev/emu");
	db_set_str(&r, SET_EVENTS, "task-clock,cycles,instructions,branch-misses,"
		   "LLC-load-misses");
	db_set_yesno(&r, SET_COMPLETE, true);
	fx_check(db_run_store(db, &r, &cause), cause, "counted run");
	int64_t id = r.id;
	db_run_release(&r);
	return id;
}

/* Run 2: killed by a signal, found incomplete (two reasons), with the
 * sleep interposer's report of a --sleep-mode run. */
static inline int64_t fx_store_incomplete(struct db *db)
{
	struct db_run r;
	char *cause = NULL;
	fx_run_init(&r, "run", "2026-11-30T06:10:00Z", "./game --frames 600",
		    1.75, 0.8125, 0.0625);
	r.exit_status = 137;
	r.term_signal = 9;
	r.pid = 300;
	fx_events(&r, 3);
	fx_add_event(&r, 0, "task-clock", true, 0, 1, 1);
	fx_add_event(&r, 1, "page-faults", true, 0, 1, 2);
	fx_add_event(&r, 2, "context-switches", true, 0, 1, 3);
	fx_threads(&r, 2);
	fx_thread(&r, 0, 300, 300, "game");
	fx_thread(&r, 1, 301, 300, "loader");
	fx_count(&r, 0, 0, 612500000);
	fx_count(&r, 0, 1, 20480);
	fx_count(&r, 0, 2, 1201);
	fx_count(&r, 1, 0, 27500000);
	fx_count(&r, 1, 1, 4096);
	fx_count(&r, 1, 2, 33);
	db_set_str(&r, SET_EVENTS, "task-clock,page-faults,context-switches");
	db_set_str(&r, SET_SLEEP_MODE, "timerfd");
	db_set_yesno(&r, SET_COMPLETE, false);
	db_set_str(&r, SET_INCOMPLETE,
		   "3 of 5 tasks sent no exit record: their counts are in their "
		   "parent's row\n"
		   "the kernel's account of the command's CPU time (wait4: 875.0 ms) "
		   "exceeds the task-clock counted (640.0 ms): 235.0 ms ran with no "
		   "counter on it");
	struct db_sleep_usage *u = calloc(1, sizeof(*u));
	u->mode = fx_s("timerfd");
	u->threshold_us = 2000;
	u->status = fx_s("applied");
	u->processes = 1;
	u->nthreads = 2;
	u->threads = calloc(2, sizeof(*u->threads));
	u->threads[0] = (struct db_sleep_thread){
		.tid = 300, .pid = 300, .name = fx_s("game"), .served = 598, .passed = 2,
		.p50_ns = 4100, .p90_ns = 6200, .p99_ns = 9800, .p999_ns = 15300,
		.max_ns = 41000, .mean_ns = 4450.5, .req_hist = fx_s("11:598 13:2"),
	};
	u->threads[1] = (struct db_sleep_thread){
		.tid = 301, .pid = 300, .name = fx_s("loader"), .passed = 3, .eintr = 1,
		.req_hist = fx_s("14:3"),
	};
	r.sleep_usage = u;
	fx_check(db_run_store(db, &r, &cause), cause, "incomplete run");
	int64_t id = r.id;
	db_run_release(&r);
	return id;
}

/* Run 3: an attach, interrupted by Ctrl-C, with a thread created during
 * the attach and still running at its end, and lost ring-buffer records. */
static inline int64_t fx_store_attach(struct db *db)
{
	struct db_run r;
	char *cause = NULL;
	fx_run_init(&r, "attach", "2026-11-30T06:20:00Z", "./emu --scene 3", 10.5, 3.25, 0.5);
	/* An attach launches nothing: its command is /proc/PID/cmdline's,
	 * and it has no argv. */
	for (int i = 0; i < r.argc; i++) {
		free(r.argv[i]);
		r.argv[i] = NULL;
	}
	r.argc = 0;
	r.pid = 4242;
	r.interrupted = true;
	r.lost_records = 12;
	fx_events(&r, 3);
	fx_add_event(&r, 0, "task-clock", true, 0, 1, 1);
	fx_add_event(&r, 1, "context-switches", true, 0, 1, 3);
	fx_add_event(&r, 2, "cycles", false, 0, 0, 0);
	fx_threads(&r, 3);
	fx_thread(&r, 0, 4242, 4242, "server");
	fx_thread(&r, 1, 4243, 4242, "worker");
	fx_thread(&r, 2, 4250, 4242, "worker");
	for (size_t t = 0; t < 3; t++)
		r.threads[t].ppid = 1;	/* a daemon: init's child */
	fx_count(&r, 0, 0, 2250000000);
	fx_count(&r, 0, 1, 5120);
	fx_count(&r, 1, 0, 1500000000);
	fx_count(&r, 1, 1, 880);
	/* Thread 4250 never exited: its counts are in the totals only. */
	r.events[0].total.value += 125000000;
	r.events[1].total.value += 64;
	db_set_str(&r, SET_EVENTS, "task-clock,context-switches,cycles");
	db_set_yesno(&r, SET_COMPLETE, true);
	fx_check(db_run_store(db, &r, &cause), cause, "attach run");
	int64_t id = r.id;
	db_run_release(&r);
	return id;
}

/* Run 4: a --working-set run with its code modules (one whose file was
 * gone when prof read it, anonymous code, a JIT's perf map). */
static inline int64_t fx_store_working_set(struct db *db)
{
	struct db_run r;
	char *cause = NULL;
	fx_run_init(&r, "run", "2026-11-30T06:30:00Z", "./game --level 3",
		    0.5, 0.4375, 0.03125);
	r.pid = 500;
	fx_events(&r, 2);
	fx_add_event(&r, 0, "task-clock", true, 0, 1, 1);
	fx_add_event(&r, 1, "page-faults", true, 0, 1, 2);
	fx_threads(&r, 1);
	fx_thread(&r, 0, 500, 500, "game");
	fx_count(&r, 0, 0, 468750000);
	fx_count(&r, 0, 1, 18432);
	r.nmodules = 5;
	r.modules = calloc(5, sizeof(*r.modules));
	r.modules[0] = (struct db_module){
		.path = fx_s("/home/dev/game/game"), .kind = fx_s("file"),
		.build_id = fx_s("5d1f0c2b7e9a44c3b2a1908f6e5d4c3b2a190817"),
		.exec_bytes = 3145728, .nprocs = 1, .has_text = true,
		.has_exec_sections = true, .has_touched = true, .text_bytes = 3011264,
		.exec_section_bytes = 3020800, .touched_bytes = 1048576,
		.faulted_bytes = 131072, .faults = 32, .touched_replayed = true,
	};
	r.modules[1] = (struct db_module){
		.path = fx_s("/usr/lib/libc.so.6"), .kind = fx_s("file"),
		.build_id = fx_s("93ac61ec5a8eb1396f9fbd350e3169a558528a40"),
		.exec_bytes = 1400832, .nprocs = 1, .has_text = true,
		.has_exec_sections = true, .has_touched = true, .text_bytes = 1392301,
		.exec_section_bytes = 1396969, .touched_bytes = 393216,
		.faulted_bytes = 49152, .faults = 12, .touched_replayed = true,
	};
	r.modules[2] = (struct db_module){
		.path = fx_s("/tmp/perf-500.map"), .kind = fx_s("anon"),
		.exec_bytes = 262144, .nprocs = 1, .has_touched = true,
		.touched_bytes = 196608, .faulted_bytes = 196608, .faults = 48,
	};
	r.modules[3] = (struct db_module){
		.path = fx_s("[anon:exec]"), .kind = fx_s("anon"), .exec_bytes = 65536,
		.nprocs = 1, .has_touched = true, .touched_bytes = 65536,
		.faulted_bytes = 65536, .faults = 16,
	};
	r.modules[4] = (struct db_module){
		.path = fx_s("/tmp/plugin.so"), .kind = fx_s("file"), .exec_bytes = 8192,
		.nprocs = 1, .has_touched = true, .touched_bytes = 4096,
		.faulted_bytes = 4096, .faults = 1,
		.error = fx_s("cannot open '/tmp/plugin.so': no such file or directory"),
	};
	static const char *const kinds[] = { "code", "heap", "stack", "anon", "file", "other" };
	static const uint64_t touched[] = { 1708032, 3 << 20, 16384, 48 << 20, 262144, 8192 };
	static const uint64_t faulted[] = { 446464, 3 << 20, 16384, 48 << 20, 65536, 8192 };
	r.nws = 6;
	r.ws = calloc(6, sizeof(*r.ws));
	for (size_t i = 0; i < 6; i++) {
		r.ws[i].kind = fx_s(kinds[i]);
		r.ws[i].touched_bytes = touched[i];
		r.ws[i].faulted_bytes = faulted[i];
		r.ws[i].faults = 20 + i;
	}
	db_set_str(&r, SET_EVENTS, "task-clock,page-faults");
	db_set_flag(&r, SET_WORKING_SET);
	db_set_u64(&r, SET_WS_WINDOW_BYTES, 65536);
	db_set_yesno(&r, SET_COMPLETE, true);
	fx_check(db_run_store(db, &r, &cause), cause, "working-set run");
	int64_t id = r.id;
	db_run_release(&r);
	return id;
}

/*
 * Run 5: a sampled run (prof record) of four threads, two named alike,
 * with two sampled events, a recursive path, a kernel frame, a frame of
 * unknown symbol, a C++ symbol, a call chain through an address in no
 * mapping, and samples of a thread with no row.
 */
static inline int64_t fx_store_record(struct db *db)
{
	char *cause = NULL;
	struct db_sample_writer *w;
	fx_check(db_sample_writer_new(db, &w, &cause), cause, "sample writer");
	static const char *const mods[] = {
		"/home/dev/emu/emu", "/usr/lib/libc.so.6", "[kernel.kallsyms]",
		"[unknown]",
	};
	static const char *const builds[] = {
		"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c", NULL, NULL, NULL,
	};
	for (uint32_t i = 0; i < 4; i++)
		fx_check(db_sample_put_module(w, i + 1, mods[i], builds[i], &cause), cause,
			 "module");
	/* symbol id: module, name (NULL: unknown) */
	static const struct { uint32_t mod; const char *name; } syms[] = {
		{ 1, "main" }, { 1, "run_frame" }, { 1, "render" },
		{ 1, "_ZN5audio3mixEPfj" },	/* audio::mix(float*, unsigned int) */
		{ 2, "memcpy" }, { 2, NULL }, { 3, "clear_page_erms" }, { 4, NULL },
	};
	for (uint32_t i = 0; i < 8; i++)
		fx_check(db_sample_put_symbol(w, i + 1, syms[i].mod, syms[i].name, &cause),
			 cause, "symbol");
	/* frame id: symbol, offset */
	static const struct { uint32_t sym; uint64_t off; } frames[] = {
		{ 1, 0x4a }, { 2, 0x91 }, { 3, 0x1c0 }, { 3, 0x2f4 }, { 4, 0x33 },
		{ 5, 0x12 }, { 6, 0x29d40 }, { 7, 0x9 }, { 8, 0x7ffc3a00 },
	};
	for (uint32_t i = 0; i < 9; i++)
		fx_check(db_sample_put_frame(w, i + 1, frames[i].sym, frames[i].off, &cause),
			 cause, "frame");
	/* stack node id: parent, frame. main -> run_frame -> render ->
	 * render (recursion) -> memcpy -> clear_page_erms [k]; run_frame ->
	 * audio::mix; main -> libc [unknown]; an address in no mapping ->
	 * render (a frame-pointer walk gone astray). */
	static const struct { uint32_t parent, frame; } nodes[] = {
		{ 0, 1 },	/* 1 main */
		{ 1, 2 },	/* 2 main;run_frame */
		{ 2, 3 },	/* 3 ...;render */
		{ 3, 4 },	/* 4 ...;render;render */
		{ 4, 6 },	/* 5 ...;render;render;memcpy */
		{ 5, 8 },	/* 6 ...;memcpy;clear_page_erms */
		{ 3, 6 },	/* 7 ...;render;memcpy */
		{ 2, 5 },	/* 8 main;run_frame;audio::mix */
		{ 1, 7 },	/* 9 main;[unknown] */
		{ 0, 9 },	/* 10 0x7ffc3a00 */
		{ 10, 3 },	/* 11 0x7ffc3a00;render */
	};
	for (uint32_t i = 0; i < 11; i++)
		fx_check(db_sample_put_stack(w, i + 1, nodes[i].parent, nodes[i].frame,
					     &cause), cause, "stack");
	/* tid, event, stack, samples; cpu-clock's period varies per sample. */
	static const struct { int32_t tid; uint32_t ev, stack, n; } put[] = {
		{ 700, 0, 2, 3 }, { 700, 0, 9, 2 },
		{ 701, 0, 3, 9 }, { 701, 0, 4, 4 }, { 701, 0, 5, 6 }, { 701, 0, 7, 5 },
		{ 702, 0, 5, 7 }, { 702, 0, 7, 2 },
		{ 703, 0, 8, 8 },
		{ 799, 0, 8, 1 },	/* a thread with no row */
		{ 701, 1, 6, 3 }, { 702, 1, 6, 2 }, { 700, 1, 1, 1 }, { 703, 1, 11, 1 },
	};
	uint64_t t = 2000000, nsamples[2] = { 0, 0 }, weights[2] = { 0, 0 };
	for (size_t i = 0; i < sizeof(put) / sizeof(put[0]); i++) {
		for (uint32_t k = 0; k < put[i].n; k++) {
			uint64_t weight = put[i].ev ? 1 : 1000000 + 1000 * ((i + k) % 3);
			struct db_sample s = { 700, put[i].tid, (uint32_t)(k % 2), t,
					       put[i].ev, weight, put[i].stack };
			t += 1000;
			nsamples[put[i].ev]++;
			weights[put[i].ev] += weight;
			fx_check(db_sample_put(w, &s, &cause), cause, "sample");
		}
	}
	struct db_run r;
	fx_run_init(&r, "record", "2026-11-30T06:40:00Z", "./emu --scene 3 --frames 60",
		    0.0625, 0.05, 0.0078125);
	r.pid = 700;
	fx_events(&r, 2);
	fx_add_event(&r, 0, "task-clock", true, 0, 1, 1);
	fx_add_event(&r, 1, "cycles", false, 0, 0, 0);
	fx_threads(&r, 4);
	fx_thread(&r, 0, 700, 700, "emu");
	fx_thread(&r, 1, 701, 700, "render");
	fx_thread(&r, 2, 702, 700, "render");
	fx_thread(&r, 3, 703, 700, "audio");
	for (size_t i = 0; i < 4; i++) {
		r.threads[i].start_ns = 1000000 + 1000 * (int64_t)i;
		fx_count(&r, i, 0, 5000000 * (i + 1));
	}
	db_set_str(&r, SET_EVENTS, "task-clock,cycles");
	db_set_str(&r, SET_SAMPLED_EVENTS, "cpu-clock,page-faults");
	db_set_str(&r, SET_CALL_GRAPH, "dwarf");
	db_set_i64(&r, SET_FREQ, 999);
	db_set_yesno(&r, SET_COMPLETE, true);
	struct db_sample_event ev[2] = {
		{ .name = "cpu-clock", .attr_type = 1, .attr_config = 0, .freq = 999,
		  .call_graph = "dwarf", .stack_bytes = 8192, .samples = nsamples[0],
		  .weight = weights[0], .lost = 2, .dropped = 1 },
		{ .name = "page-faults", .attr_type = 1, .attr_config = 2, .period = 1,
		  .call_graph = "dwarf", .stack_bytes = 8192, .samples = nsamples[1],
		  .weight = weights[1] },
	};
	fx_check(db_sample_store_run(w, &r, ev, 2, &cause), cause, "record run");
	int64_t id = r.id;
	db_run_release(&r);
	db_sample_writer_free(w);
	return id;
}

/* Run 6: a `prof sleep` benchmark, three modes at two durations. */
static inline int64_t fx_store_sleep(struct db *db)
{
	struct db_run r;
	char *cause = NULL;
	fx_run_init(&r, "sleep", "2026-11-30T06:50:00Z",
		    "prof sleep --modes timerfd,hybrid,spin --durations 20,50 --calls 1000",
		    0.4375, 0.25, 0.0625);
	free(r.pin.mode);
	free(r.pin.status);
	r.pin.mode = fx_s("cpus:1");
	r.pin.status = fx_s("applied");
	r.pin.cpus = fx_s("1");
	struct db_sleep s;
	memset(&s, 0, sizeof(s));
	s.timer_slack_ns = 50000;
	snprintf(s.sched_policy, sizeof(s.sched_policy), "SCHED_OTHER");
	snprintf(s.clocksource, sizeof(s.clocksource), "tsc");
	snprintf(s.pattern, sizeof(s.pattern), "oneshot");
	s.calls = 1000;
	s.threads = 1;
	s.hybrid_margin_ns = 12300;
	s.hybrid_calibrated = true;
	s.calibration_p999_ns = 10300;
	s.calibration_guard_ns = 2000;
	s.cheap_p99_us = 10.0;
	s.ncells = 6;
	s.cells = calloc(6, sizeof(*s.cells));
	static const char *const modes[] = { "timerfd", "hybrid", "spin" };
	/* per mode: p50, p99 and max overshoot in ns, CPU % */
	static const int64_t p50[] = { 52000, 900, 80 };
	static const int64_t p99[] = { 61000, 3100, 240 };
	static const int64_t mx[] = { 140000, 25000, 9000 };
	static const double cpu[] = { 2.5, 41.0, 100.0 };
	for (size_t i = 0; i < 6; i++) {
		struct db_sleep_cell *c = &s.cells[i];
		size_t m = i / 2;
		snprintf(c->mode, sizeof(c->mode), "%s", modes[m]);
		c->margin_ns = m == 1 ? 12300 : -1;
		c->target_us = i % 2 ? 50 : 20;
		c->calls = 1000;
		c->p50_ns = p50[m] + (int64_t)(i % 2) * 100;
		c->p90_ns = (p50[m] + p99[m]) / 2;
		c->p99_ns = p99[m];
		c->p999_ns = p99[m] + 1000;
		c->max_ns = mx[m];
		c->min_ns = m == 2 ? 10 : 700;
		c->mean_ns = (double)p50[m] * 1.0625;
		c->early = m == 2 ? 0 : 1;
		uint64_t under3 = m == 0 ? 0 : m == 1 ? 900 : 1000;
		c->buckets[DB_SLEEP_LT3] = under3;
		c->buckets[DB_SLEEP_LT10] = m == 1 ? 95 : 0;
		c->buckets[DB_SLEEP_LT25] = m == 1 ? 5 : 0;
		c->buckets[DB_SLEEP_LT50] = 0;
		c->buckets[DB_SLEEP_GE50] = m == 0 ? 1000 : 0;
		c->wall_s = (double)c->target_us * 1e-3 + 0.002;
		c->cpu_pct = cpu[m];
		c->cpu_s = c->wall_s * cpu[m] / 100.0;
		c->cpu_us_per_call = c->cpu_s * 1e6 / 1000.0;
		c->user_us_per_call = c->cpu_us_per_call / 4;
		c->sys_us_per_call = c->cpu_us_per_call - c->user_us_per_call;
		c->vcsw_per_call = m == 2 ? 0.0 : 1.0;
		c->ivcsw_per_call = m == 2 ? 0.015625 : 0.0;
		c->cheapest = m == 1;
	}
	fx_check(db_sleep_store(db, &r, &s, &cause), cause, "sleep run");
	int64_t id = r.id;
	db_sleep_release(&s);
	db_run_release(&r);
	return id;
}

/*
 * A `prof probe` run on CPU 2 of a machine with 32 KiB L1d, 512 KiB L2
 * and a 32 MiB L3: a latency curve with a knee at each (the last where
 * memory latency starts, at 24 MiB) and two graded counters, one of them
 * refused. Stored after the experiments, so that their runs keep their
 * ids.
 */
static inline int64_t fx_store_probe(struct db *db)
{
	struct db_run r;
	char *cause = NULL;
	fx_run_init(&r, "probe", "2026-12-01T12:00:00Z", "prof probe --cpu 2",
		    4.5, 4.25, 0.125);
	free(r.pin.mode);
	free(r.pin.status);
	r.pin.mode = fx_s("cpus:2");
	r.pin.status = fx_s("applied");
	r.pin.cpus = fx_s("2");
	struct db_probe p;
	memset(&p, 0, sizeof(p));
	p.cpu = 2;
	p.l1d_bytes = p.l1i_bytes = 32 << 10;
	p.l2_bytes = 512 << 10;
	p.llc_bytes = 32 << 20;
	p.llc_level = 3;
	p.ms_per_size = 30;
	p.seed = 1;
	p.family = fx_s("AMD Zen 3");
	/* 16 KiB to 128 MiB, two sizes per doubling */
	static const double ns[] = {
		1.125, 1.125, 1.25, 3.75, 3.875, 3.875, 4.0, 4.0, 4.125, 4.25, 4.5,
		9.5, 10.0, 10.0, 10.5, 10.5, 11.0, 11.0, 11.5, 12.0, 12.5, 30.0,
		70.0, 95.0, 100.0, 102.0, 104.0,
	};
	p.npoints = sizeof(ns) / sizeof(ns[0]);
	p.points = calloc(p.npoints, sizeof(*p.points));
	for (size_t i = 0; i < p.npoints; i++) {
		uint64_t b = (uint64_t)(i % 2 ? 24 : 16) << (10 + i / 2);
		p.points[i] = (struct db_probe_point){
			.bytes = b, .ns = ns[i], .steps = 1000000 + 1000 * i,
			.huge_bytes = b >= (2 << 20) ? b : 0,
		};
	}
	p.ncounters = 2;
	p.counters = calloc(2, sizeof(*p.counters));
	p.counters[0] = (struct db_probe_counter){
		.name = fx_s("llc-misses"), .bench = fx_s("a chase over 8x the last level"),
		.ran = true, .expected = 4194304, .grade = fx_s("not supported"),
		.reason = fx_s("the kernel refused it: No such file or directory"),
	};
	p.counters[1] = (struct db_probe_counter){
		.name = fx_s("branch-misses"), .event = fx_s("ex_ret_brn_misp"),
		.bench = fx_s("a branch on random bits"), .ran = true,
		.expected = 500000, .opened = true, .value = 512345, .enabled = 2000000,
		.running = 2000000, .grade = fx_s("plausible"),
	};
	fx_check(db_probe_store(db, &r, &p, &cause), cause, "probe run");
	int64_t id = r.id;
	db_probe_release(&p);
	db_run_release(&r);
	return id;
}

/*
 * A counted build: make (whose parent, prof, is outside the run) with a
 * shell that ran cc1, another cc1, and a two-threaded ld; the process
 * tree of `prof report --by process` and `--tree`. Stored last.
 */
static inline int64_t fx_store_build(struct db *db)
{
	struct db_run r;
	char *cause = NULL;
	fx_run_init(&r, "run", "2026-12-01T12:10:00Z", "make -j3", 1.25, 1.5, 0.25);
	r.pid = 900;
	fx_events(&r, 2);
	fx_add_event(&r, 0, "task-clock", true, 0, 1, 1);
	fx_add_event(&r, 1, "page-faults", true, 0, 1, 2);
	static const struct { int32_t tid, pid, ppid; const char *name;
			      uint64_t ms, faults; } th[] = {
		{ 900, 900, 899, "make", 25, 800 },
		{ 901, 901, 900, "sh", 5, 300 },
		{ 902, 902, 901, "cc1", 700, 24000 },
		{ 903, 903, 900, "ld", 350, 9000 },
		{ 904, 903, 900, "ld:worker", 150, 1000 },
		{ 905, 905, 900, "cc1", 500, 16000 },
	};
	fx_threads(&r, 6);
	for (size_t t = 0; t < 6; t++) {
		fx_thread(&r, t, th[t].tid, th[t].pid, th[t].name);
		r.threads[t].ppid = th[t].ppid;
		fx_count(&r, t, 0, th[t].ms * 1000000);
		fx_count(&r, t, 1, th[t].faults);
	}
	db_set_str(&r, SET_EVENTS, "task-clock,page-faults");
	db_set_yesno(&r, SET_COMPLETE, true);
	fx_check(db_run_store(db, &r, &cause), cause, "build run");
	int64_t id = r.id;
	db_run_release(&r);
	return id;
}

/*
 * A counted game run with intervals (-I 100) and frames (prof_frame()
 * markers): threads game and render, task-clock and page-faults, ten
 * 100 ms intervals each, and 24 frames of about 16 ms of which four run
 * past the 16.7 ms budget, three far past it (the render thread faulting
 * in new textures).
 * The pictures of `prof report --frames/--intervals --format svg`.
 */
static inline int64_t fx_store_frames(struct db *db)
{
	struct db_run r;
	char *cause = NULL;
	fx_run_init(&r, "run", "2026-12-01T12:20:00Z", "./game --level 2 --frames 24",
		    1.0, 0.75, 0.0625);
	r.pid = 1000;
	fx_events(&r, 2);
	fx_add_event(&r, 0, "task-clock", true, 0, 1, 1);
	fx_add_event(&r, 1, "page-faults", true, 0, 1, 2);
	fx_threads(&r, 2);
	fx_thread(&r, 0, 1000, 1000, "game");
	fx_thread(&r, 1, 1001, 1000, "render");
	/* per 100 ms interval: ms of CPU and faults, game then render */
	static const int64_t ms[2][10] = {
		{ 40, 35, 30, 30, 32, 30, 45, 30, 30, 28 },
		{ 20, 45, 50, 48, 52, 50, 85, 50, 49, 51 },
	};
	static const int64_t pf[2][10] = {
		{ 900, 40, 12, 10, 14, 10, 60, 10, 12, 8 },
		{ 300, 120, 30, 28, 35, 30, 640, 32, 30, 26 },
	};
	r.nintervals = 20;
	r.intervals = calloc(20, sizeof(*r.intervals));
	for (size_t t = 0; t < 2; t++) {
		int64_t sum_ms = 0, sum_pf = 0;
		for (size_t i = 0; i < 10; i++) {
			struct db_interval *iv = &r.intervals[t * 10 + i];
			iv->t_ms = (int64_t)i * 100;
			iv->tid = r.threads[t].tid;
			iv->name = fx_s(r.threads[t].name);
			iv->values = calloc(2, sizeof(*iv->values));
			iv->values[0] = ms[t][i] * 1000000;
			iv->values[1] = pf[t][i];
			sum_ms += ms[t][i];
			sum_pf += pf[t][i];
		}
		fx_count(&r, t, 0, (uint64_t)sum_ms * 1000000);
		fx_count(&r, t, 1, (uint64_t)sum_pf);
	}
	/* 24 frames from 100 ms on; frames 6, 14 and 15 run long, 2 barely */
	static const double dur_ms[24] = {
		16.5, 16.25, 16.75, 16.5, 16.0, 16.5, 31.0, 16.25, 16.5, 16.5, 16.0,
		16.25, 16.5, 16.5, 24.5, 19.0, 16.5, 16.25, 16.0, 16.5, 16.5, 16.25,
		16.5, 16.0,
	};
	r.nframes = 24;
	r.frames = calloc(24, sizeof(*r.frames));
	r.nframe_counts = 24 * 2 * 2;
	r.frame_counts = calloc(r.nframe_counts, sizeof(*r.frame_counts));
	int64_t t_ns = 100000000;
	size_t k = 0;
	r.nframe_names = 2;
	r.frame_names = calloc(2, sizeof(*r.frame_names));
	for (size_t t = 0; t < 2; t++)
		r.frame_names[t] = fx_s(r.threads[t].name);
	for (uint32_t f = 0; f < 24; f++) {
		int64_t d = (int64_t)(dur_ms[f] * 1e6);
		r.frames[f] = (struct db_frame_span){ t_ns, d };
		t_ns += d;
		bool slow = dur_ms[f] > 16.75;
		for (size_t t = 0; t < 2; t++) {
			const char *nm = r.frame_names[t];
			int64_t cpu = (t ? 9000000 : 5000000) + (int64_t)(f % 3) * 250000;
			int64_t faults = (t ? 3 : 1) + (slow && t ? 60 + f : 0);
			r.frame_counts[k++] = (struct db_frame_count){
				.frame = f, .name = nm, .event = 0,
				.value = slow ? cpu * 2 : cpu };
			r.frame_counts[k++] = (struct db_frame_count){
				.frame = f, .name = nm, .event = 1, .value = faults };
		}
	}
	db_set_str(&r, SET_EVENTS, "task-clock,page-faults");
	db_set_u64(&r, SET_INTERVAL_MS, 100);
	db_run_set_dynamic(&r, "frames_marker", "24");
	db_run_set_dynamic(&r, "frames_regex", "0");
	db_set_str(&r, SET_FRAME_SOURCE, "marker");
	db_set_f64(&r, SET_FRAME_BUDGET_MS, 16.7);
	db_set_yesno(&r, SET_COMPLETE, true);
	fx_check(db_run_store(db, &r, &cause), cause, "frames run");
	int64_t id = r.id;
	db_run_release(&r);
	return id;
}

/* ---- experiments ---- */

/* What one arm of an experiment measures, before the per-round jitter. */
struct fx_side {
	const char *command;
	double wall_s, cpu_s;
	double llc, itlb, branch, instructions;	/* per run */
	double footprint;	/* code bytes of the one module */
	const char *pin;	/* NULL: not pinned */
	double fps;
};

static const char *const fx_exp_events[] = {
	"LLC-load-misses", "iTLB-load-misses", "L1-icache-load-misses",
	"branch-misses", "instructions", "cycles", "task-clock",
};

/* A deterministic spread of at most ±1.6% that differs irregularly with
 * the round, the arm and what is measured (k), so that no metric has the
 * same value, or the same ratio between arms, in every round. */
static inline double fx_jitter(int round, int arm, int k)
{
	static const int8_t spread[17] = { 3, -2, 0, 4, -4, 1, -1, 2, -3, 0, 3, -1,
					   -2, 4, 1, -3, 2 };
	return 1.0 + 0.004 * spread[(round * 7 + arm * 11 + k * 5) % 17];
}

/* One run of an experiment, with one thread that did all the work. */
static inline void fx_exp_run(struct db_run *r, const struct fx_side *s, int arm,
			      int round, int exit_status, const char *started)
{
	double jw = fx_jitter(round, arm, 0), jc = fx_jitter(round, arm, 1);
	double cpu_s = s->cpu_s * jc;
	fx_run_init(r, "ab", started, s->command, s->wall_s * jw, cpu_s * 0.96875,
		    cpu_s * 0.03125);
	r->exit_status = exit_status;
	if (s->pin) {
		free(r->pin.mode);
		free(r->pin.status);
		r->pin.mode = fx_s(s->pin);
		r->pin.status = fx_s("applied");
		r->pin.cpus = fx_s("0-5,12-17");
		r->pin.level = 3;
		r->pin.size_bytes = 32u << 20;
	}
	fx_events(r, 7);
	fx_threads(r, 1);
	fx_thread(r, 0, 1000 + round * 10 + arm, 1000 + round * 10 + arm, "emu");
	double v[] = { s->llc, s->itlb, 0, s->branch, s->instructions,
		       s->instructions * 0.75, 0 };
	for (size_t e = 0; e < 7; e++) {
		bool sup = e != 2;	/* L1-icache-load-misses: refused */
		fx_add_event(r, e, fx_exp_events[e], sup, e < 6 ? 1 : 0, e < 6 ? 0 : 1,
			     e < 6 ? e : 1);
		if (!sup)
			continue;
		uint64_t x = e == 6 ? (uint64_t)(cpu_s * 1e9)
				    : (uint64_t)(v[e] * fx_jitter(round, arm, 2 + (int)e));
		/* The hardware group was multiplexed: it ran 3/4 of the time. */
		uint64_t enabled = 1000000, running = e < 6 ? 750000 : enabled;
		r->events[e].total = (struct db_count){ x * running / enabled, enabled,
							running, true };
		r->threads[0].counts[e] = r->events[e].total;
	}
	r->nmodules = 1;
	r->modules = calloc(1, sizeof(*r->modules));
	r->modules[0] = (struct db_module){
		.path = fx_s("/home/dev/emu/emu"), .kind = fx_s("file"),
		.exec_bytes = (uint64_t)s->footprint, .nprocs = 1,
	};
	db_set_yesno(r, SET_COMPLETE, true);
}

static inline void fx_set_times(struct db *db, int64_t id, const char *started,
				const char *finished)
{
	char sql[200], *cause = NULL;
	snprintf(sql, sizeof(sql), "UPDATE experiments SET started = '%s', finished = "
		 "'%s' WHERE id = %lld", started, finished, (long long)id);
	fx_check(db_exec(db, sql, &cause), cause, "experiment times");
}

static inline struct db_host fx_exp_host(void)
{
	return (struct db_host){ 0, "box", "6.18", "AMD Ryzen 9 5900X", 24 };
}

static inline void fx_arm(struct db_arm *a, const char *name, const char *command)
{
	memset(a, 0, sizeof(*a));
	a->name = (char *)name;
	a->command = (char *)command;
	a->argv = calloc(2, sizeof(char *));
	a->argv[0] = (char *)command;
	a->argc = 1;
}

/* Create experiment e on the fixture host (what: for a failure). */
static inline void fx_exp_create(struct db *db, struct db_experiment *e, const char *what)
{
	char *cause = NULL;
	struct db_host host = fx_exp_host();
	fx_check(db_experiment_create(db, e, &host, &cause), cause, what);
}

/* End experiment e with status (and why), fix its times so that goldens
 * stay byte-stable, and free the argv fx_arm gave each of its arms. */
static inline void fx_exp_end(struct db *db, struct db_experiment *e, const char *status,
			      const char *why, const char *started, const char *finished)
{
	char *cause = NULL;
	fx_check(db_experiment_finish(db, e->id, status, why, &cause), cause, "finish");
	fx_set_times(db, e->id, started, finished);
	for (size_t a = 0; a < e->narms; a++)
		free(e->arms[a].argv);
}

/* Store the rounds of an experiment; arm_of(round, pos) as the order
 * gave it. fail_round/fail_arm: one run that exited 1 (-1: none);
 * nofps_round: the baseline's run that printed no fps (-1: none). */
static inline void fx_exp_rounds(struct db *db, int64_t exp_id,
				 const struct fx_side *sides, size_t narms, int rounds,
				 int warmup, bool abba, int fail_round, int fail_arm,
				 int nofps_round, int *tick)
{
	char *cause = NULL;
	for (int rr = -warmup; rr < rounds; rr++) {
		bool warm = rr < 0;
		int round = warm ? rr + warmup : rr;
		for (size_t pos = 0; pos < narms; pos++) {
			size_t arm = abba && (rr & 1) ? narms - 1 - pos : pos;
			char started[32];
			snprintf(started, sizeof(started), "2026-12-01T%02d:%02d:%02dZ",
				 *tick / 3600, *tick / 60 % 60, *tick % 60);
			*tick += 7;
			int status = !warm && round == fail_round && (int)arm == fail_arm;
			struct db_run r;
			fx_exp_run(&r, &sides[arm], (int)arm, rr + warmup, status, started);
			struct db_score sc = { (char *)"fps",
					       sides[arm].fps * fx_jitter(rr + warmup, (int)arm, 9),
					       !(round == nofps_round && arm == 0 && !warm) };
			fx_check(db_experiment_add_run(db, exp_id, &r, (int)arm, round,
						       (int)pos, warm, &sc, 1, &cause),
				 cause, "experiment run");
			db_run_release(&r);
		}
	}
}

/* Experiment 1: the A/A experiment of the baseline command (its spread
 * sets experiment 2's gates). */
static inline void fx_store_aa(struct db *db, int *tick)
{
	static const struct fx_side emu = {
		"./emu --scene 3", 2.5, 4.375, 4e8, 1.5e8, 3e8, 9e10, 300 << 20, NULL, 60,
	};
	struct fx_side sides[2] = { emu, emu };
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	struct db_arm arms[2];
	fx_arm(&arms[0], "emu", emu.command);
	fx_arm(&arms[1], "emu-2", emu.command);
	e.order = (char *)"alternate";
	e.rounds = 4;
	e.gate_pct = NAN;
	e.aa = true;
	e.narms = 2;
	e.arms = arms;
	struct db_kv kv[] = { { (char *)"events", (char *)"cache" } };
	e.settings = kv;
	e.nsettings = 1;
	fx_exp_create(db, &e, "A/A experiment");
	fx_exp_rounds(db, e.id, sides, 2, 4, 0, false, -1, -1, -1, tick);
	fx_exp_end(db, &e, "complete", NULL, "2026-12-01T09:00:00Z", "2026-12-01T09:01:30Z");
}

/*
 * Experiment 2: the baseline against a smaller build pinned to the
 * largest LLC, ABBA with a warm-up, a score and a cost per unit, one run
 * that failed and one that printed no score; its gate comes from
 * experiment 1.
 */
static inline void fx_store_ab(struct db *db, int *tick)
{
	static const struct fx_side sides[2] = {
		{ "./emu --scene 3", 2.5, 4.375, 4e8, 1.5e8, 3e8, 9e10, 300 << 20, NULL, 60 },
		{ "./emu --scene 3 --backend sim", 2.0, 3.5, 2.5e8, 0.8e8, 2.8e8, 8.5e10,
		  120 << 20, "largest-llc", 75 },
	};
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	struct db_arm arms[2];
	fx_arm(&arms[0], "base", sides[0].command);
	fx_arm(&arms[1], "sim", sides[1].command);
	struct db_kv s0[] = { { (char *)"env.EMU_THREADS", (char *)"4" } };
	struct db_kv s1[] = { { (char *)"env.EMU_THREADS", (char *)"4" },
			      { (char *)"pin", (char *)"largest-llc" } };
	arms[0].settings = s0;
	arms[0].nsettings = 1;
	arms[1].settings = s1;
	arms[1].nsettings = 2;
	e.order = (char *)"abba";
	e.rounds = 6;
	e.warmup = 1;
	e.gate_pct = NAN;
	e.keep_going = true;
	e.narms = 2;
	e.arms = arms;
	struct db_kv kv[] = {
		{ (char *)"events", (char *)"cache" },
		{ (char *)"score", (char *)"fps=([0-9.]+) fps:higher" },
		{ (char *)"per", (char *)"frame=fps" },
	};
	e.settings = kv;
	e.nsettings = 3;
	fx_exp_create(db, &e, "A/B experiment");
	fx_exp_rounds(db, e.id, sides, 2, 6, 1, true, 3, 1, 4, tick);
	fx_exp_end(db, &e, "complete", NULL, "2026-12-01T10:00:00Z", "2026-12-01T10:03:30Z");
}

/* Experiment 3: three arms in alternate order, interrupted after two of
 * three rounds, with a gate given. */
static inline void fx_store_three_arms(struct db *db, int *tick)
{
	static const struct fx_side sides[3] = {
		{ "./emu-gcc --scene 3", 2.5, 4.375, 4e8, 1.5e8, 3e8, 9e10, 300 << 20, NULL, 60 },
		{ "./emu-clang --scene 3", 2.375, 4.125, 3.9e8, 1.4e8, 2.9e8, 8.8e10,
		  290 << 20, NULL, 62 },
		{ "./emu-icx --scene 3", 2.75, 4.75, 4.2e8, 1.6e8, 3.5e8, 9.5e10,
		  340 << 20, NULL, 55 },
	};
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	struct db_arm arms[3];
	fx_arm(&arms[0], "gcc", sides[0].command);
	fx_arm(&arms[1], "clang", sides[1].command);
	fx_arm(&arms[2], "icx", sides[2].command);
	e.order = (char *)"alternate";
	e.rounds = 3;
	e.gate_pct = 2.0;
	e.narms = 3;
	e.arms = arms;
	struct db_kv kv[] = { { (char *)"events", (char *)"cache" } };
	e.settings = kv;
	e.nsettings = 1;
	fx_exp_create(db, &e, "three-arm experiment");
	fx_exp_rounds(db, e.id, sides, 3, 2, 0, false, -1, -1, -1, tick);
	fx_exp_end(db, &e, "interrupted",
		   "interrupted (Ctrl-C or SIGTERM); the finished rounds are kept",
		   "2026-12-01T11:00:00Z", "2026-12-01T11:00:45Z");
}

/* ---- six scenes of one A/B (their own database) ---- */

/*
 * MADE-UP VALUES, FOR RENDERING ONLY, like the pressure experiment below:
 * experiments 1-6 run `base` against `new` on scenes 1-6, six rounds in
 * alternate order. `new` has a third less code; it misses the LLC less
 * and runs faster in scenes 1-5, and scene 6 (little code) does not move.
 */
static inline void fx_store_scene(struct db *db, int scene, int *tick)
{
	char base_cmd[64], new_cmd[64];
	snprintf(base_cmd, sizeof(base_cmd), "./emu --scene %d", scene);
	snprintf(new_cmd, sizeof(new_cmd), "./emu --scene %d --backend new", scene);
	double gain = scene == 6 ? 1.0 : 1.0 - 0.015 * scene;	/* new's wall */
	double llc = scene == 6 ? 1.0 : 0.6;
	const struct fx_side sides[2] = {
		{ base_cmd, 2.0 + 0.1 * scene, 3.5, 4e8, 1.5e8, 3e8, 9e10, 300 << 20,
		  NULL, 60 },
		{ new_cmd, (2.0 + 0.1 * scene) * gain, 3.5 * (1.0 - 0.01 * scene),
		  4e8 * llc, 0.75e8 * (1.0 + 0.04 * scene), 3e8 * (1.0 - 0.005 * scene),
		  9e10 - 2e8 * scene, 200 << 20, NULL, 60 / gain },
	};
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	struct db_arm arms[2];
	fx_arm(&arms[0], "base", base_cmd);
	fx_arm(&arms[1], "new", new_cmd);
	e.order = (char *)"alternate";
	e.rounds = 6;
	e.gate_pct = NAN;
	e.narms = 2;
	e.arms = arms;
	struct db_kv kv[] = {
		{ (char *)"events", (char *)"cache" },
		{ (char *)"score", (char *)"fps=([0-9.]+) fps:higher" },
	};
	e.settings = kv;
	e.nsettings = 2;
	fx_exp_create(db, &e, "scene experiment");
	fx_exp_rounds(db, e.id, sides, 2, 6, 0, false, -1, -1, -1, tick);
	char from[32], to[32];
	snprintf(from, sizeof(from), "2026-12-02T%02d:00:00Z", 8 + scene);
	snprintf(to, sizeof(to), "2026-12-02T%02d:02:00Z", 8 + scene);
	fx_exp_end(db, &e, "complete", NULL, from, to);
}

/* ---- a pressure experiment (its own database) ---- */

/*
 * MADE-UP VALUES, FOR RENDERING ONLY: no machine measured these numbers.
 * They have the shape `prof pressure` gives (see tests/reports/
 * test_pressure.c for curves measured on the 2-CPU VM), on the fixture's
 * Ryzen 9 5900X: an L3 of 32 MiB over CPUs 0-5,12-17, the default steps
 * (0, 1/8, 1/4, 1/2 and 3/4 of it), six ABBA rounds. Two workloads:
 *  - "big", a 12 MiB pointer chase: CPU time climbs from 8 MiB taken,
 *    and its co-runner holds ever less of what it walks (its time per
 *    line nears a miss), so held is drawn apart from taken;
 *  - "small", a 64 KiB chase: flat, its co-runner holds all it walks.
 * Per round, each value is the arm's base times fx_jitter (±1.6%).
 */
#define FX_PRESS_STEPS 5
#define FX_PRESS_ARMS (FX_PRESS_STEPS + 1)	/* the control, then the steps */
#define FX_PRESS_HIT_NS 11.0	/* the co-runner's time per line on a hit */
#define FX_PRESS_MEM_NS 90.0	/* ... and on a miss */

struct fx_press_workload {
	const char *name, *command;
	double cpu_s[FX_PRESS_ARMS];	/* control, 0, 4, 8, 16, 24 MiB */
	double ns[FX_PRESS_ARMS];	/* the co-runner's ns per line */
	double spread;			/* of fx_jitter's: 1 all of it */
};

static const uint64_t fx_press_taken[FX_PRESS_ARMS] = {
	0, 0, 4u << 20, 8u << 20, 16u << 20, 24u << 20,
};

static inline void fx_press_kv(struct db_kv **v, size_t *n, const char *k,
			       const char *val)
{
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	if (!*v)
		abort();
	(*v)[*n].key = fx_s(k);
	(*v)[*n].value = fx_s(val);
	(*n)++;
}

static inline void fx_press_arm(struct db_arm *d, const struct fx_press_workload *w,
				size_t step)
{
	static const char *const label[FX_PRESS_ARMS] = {
		"control", "0", "4MiB", "8MiB", "16MiB", "24MiB",
	};
	char name[64], b[32];
	memset(d, 0, sizeof(*d));
	snprintf(name, sizeof(name), "%s@%s", w->name, label[step]);
	d->name = fx_s(name);
	d->command = fx_s(w->command);
	d->argv = calloc(2, sizeof(char *));
	d->argv[0] = fx_s(w->command);
	d->argc = 1;
	fx_press_kv(&d->settings, &d->nsettings, "pin", "cpus:2");
	fx_press_kv(&d->settings, &d->nsettings, "pressure.workload", w->name);
	fx_press_kv(&d->settings, &d->nsettings, "pressure.role",
		    step ? "step" : "control");
	snprintf(b, sizeof(b), "%llu", (unsigned long long)fx_press_taken[step]);
	fx_press_kv(&d->settings, &d->nsettings, "pressure.taken_bytes", b);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)(step > 1 ?
		 fx_press_taken[step] : 262144));
	fx_press_kv(&d->settings, &d->nsettings, "pressure.corunner_bytes", b);
	fx_press_kv(&d->settings, &d->nsettings, "pressure.alone_ns", "11");
	fx_press_kv(&d->settings, &d->nsettings, "pressure.mem_ns", "90");
}

/* One run of arm (w, step) in round r; its co-runner as run settings. */
static inline void fx_press_run(struct db_run *r, const struct fx_press_workload *w,
				size_t step, int arm, int round, const char *started)
{
	double cpu_s = w->cpu_s[step] * (1 + (fx_jitter(round, arm, 1) - 1) * w->spread);
	fx_run_init(r, "pressure", started, w->command, cpu_s * 1.03125,
		    cpu_s * 0.96875, cpu_s * 0.03125);
	free(r->pin.mode);
	free(r->pin.status);
	r->pin.mode = fx_s("cpus:2");
	r->pin.status = fx_s("applied");
	r->pin.cpus = fx_s("2");
	fx_events(r, 1);
	fx_threads(r, 1);
	fx_thread(r, 0, 2000 + round * 20 + arm, 2000 + round * 20 + arm, "chase");
	fx_add_event(r, 0, "task-clock", true, 0, 1, 1);
	fx_count(r, 0, 0, (uint64_t)(cpu_s * 1e9));
	double ns = w->ns[step] * fx_jitter(round, arm, 3);
	db_set_f64(r, SET_CORUNNER_NS_PER_LINE, ns);
	db_set_f64(r, SET_CORUNNER_DUTY, 0.98);
	if (step > 1) {
		/* pirate_held_bytes: what it walked, scaled by how far its
		 * time per line sits from a miss towards a hit */
		double f = (FX_PRESS_MEM_NS - ns) / (FX_PRESS_MEM_NS - FX_PRESS_HIT_NS);
		f = f > 1 ? 1 : f < 0 ? 0 : f;
		db_set_f64(r, SET_CORUNNER_HELD_BYTES, (double)fx_press_taken[step] * f);
	}
	db_set_yesno(r, SET_COMPLETE, true);
}

static inline void fx_store_pressure(struct db *db)
{
	static const struct fx_press_workload wl[2] = {
		{ "big", "./chase 12288 20",
		  { 0.920, 0.920, 0.951, 1.262, 2.046, 2.391 },
		  { 11.2, 11.1, 12.0, 20.5, 38.0, 61.0 }, 1 },
		{ "small", "./chase 64 100",
		  { 0.392, 0.393, 0.391, 0.394, 0.392, 0.393 },
		  { 11.2, 11.1, 11.0, 11.0, 11.1, 11.0 }, 0.5 },
	};
	char *cause = NULL;
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	e.kind = (char *)DB_EXP_KIND_PRESSURE;
	e.order = (char *)"abba";
	e.rounds = 6;
	e.gate_pct = NAN;
	e.narms = 2 * FX_PRESS_ARMS;
	e.arms = calloc(e.narms, sizeof(*e.arms));
	for (size_t a = 0; a < e.narms; a++)
		fx_press_arm(&e.arms[a], &wl[a / FX_PRESS_ARMS], a % FX_PRESS_ARMS);
	static const char *const kv[][2] = {
		{ "method", "pirate" }, { "metric", "cpu_s" }, { "events", "cache" },
		{ "domain.level", "3" }, { "domain.bytes", "33554432" },
		{ "domain.cpus", "0-5,12-17" }, { "workload_cpu", "2" },
		{ "corunner_cpu", "3" }, { "control_bytes", "262144" },
		{ "hit_ns", "11" },
	};
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		fx_press_kv(&e.settings, &e.nsettings, kv[i][0], kv[i][1]);
	fx_exp_create(db, &e, "pressure experiment");
	int tick = 13 * 3600;
	for (int round = 0; round < e.rounds; round++) {
		for (size_t pos = 0; pos < e.narms; pos++) {
			size_t arm = round & 1 ? e.narms - 1 - pos : pos;
			char started[32];
			snprintf(started, sizeof(started), "2026-12-01T%02d:%02d:%02dZ",
				 tick / 3600, tick / 60 % 60, tick % 60);
			tick += 3;
			struct db_run r;
			fx_press_run(&r, &wl[arm / FX_PRESS_ARMS], arm % FX_PRESS_ARMS,
				     (int)arm, round, started);
			fx_check(db_experiment_add_run(db, e.id, &r, (int)arm, round,
						       (int)pos, false, NULL, 0, &cause),
				 cause, "pressure run");
			db_run_release(&r);
		}
	}
	fx_check(db_experiment_finish(db, e.id, "complete", NULL, &cause), cause, "finish");
	fx_set_times(db, e.id, "2026-12-01T13:00:00Z", "2026-12-01T13:03:36Z");
	e.kind = NULL;
	e.order = NULL;
	db_experiment_release(&e);
}

/*
 * Write a database at path (which must not exist yet) holding only the
 * made-up pressure experiment above: experiment 1, runs 1-72.
 */
static inline void fixture_pressure_db_build(const char *path)
{
	struct db *db;
	char *cause = NULL;
	fx_check(db_open(&db, path, &cause), cause, path);
	fx_store_pressure(db);
	db_close(db);
}

/*
 * Write a database at path (which must not exist yet) holding only the
 * six made-up scene experiments above: experiments 1-6, runs 1-72.
 */
static inline void fixture_scenes_db_build(const char *path)
{
	struct db *db;
	char *cause = NULL;
	fx_check(db_open(&db, path, &cause), cause, path);
	int tick = 0;
	for (int scene = 1; scene <= 6; scene++)
		fx_store_scene(db, scene, &tick);
	db_close(db);
}

/*
 * A run on a hybrid part (Core i7-13700K: cpu_core, cpu_atom), made up,
 * as this VM has no such CPU: cycles and instructions counted on each
 * core PMU apart, each thread's count the sum of its parts (enabled the
 * longest part's, running the parts' summed), task-clock once. "build"
 * ran 3/4 of its time on the P-cores, "worker" only on the E-cores, "io"
 * half and half.
 */
static inline void fx_hybrid_part(struct db_run *r, size_t t, size_t pmu,
				  size_t e, uint64_t v, uint64_t en, uint64_t run)
{
	struct db_thread *th = &r->threads[t];
	th->pmu_counts[pmu * r->nevents + e] = (struct db_count){ v, en, run, true };
	struct db_count *c = &th->counts[e];
	c->value += v;
	c->enabled = en > c->enabled ? en : c->enabled;
	c->running += run;
	c->present = true;
}

static inline int64_t fx_store_hybrid(struct db *db)
{
	struct db_run r;
	char *cause = NULL;
	fx_run_init(&r, "run", "2026-12-01T08:00:00Z", "make -j3", 1.5, 2.5, 0.25);
	free(r.host.cpu_model);
	r.host.cpu_model = fx_s("13th Gen Intel(R) Core(TM) i7-13700K");
	fx_events(&r, 3);
	fx_add_event(&r, 0, "task-clock", true, 0, 1, 1);
	fx_add_event(&r, 1, "cycles", true, 1, 0, 0);
	fx_add_event(&r, 2, "instructions", true, 1, 0, 1);
	fx_threads(&r, 3);
	fx_thread(&r, 0, 500, 500, "build");
	fx_thread(&r, 1, 501, 500, "worker");
	fx_thread(&r, 2, 502, 500, "io");
	r.ncore_pmus = 2;
	r.core_pmus = calloc(2, sizeof(char *));
	r.core_pmus[0] = fx_s("cpu_core");
	r.core_pmus[1] = fx_s("cpu_atom");
	/* time on each (ns): P-cores, E-cores */
	static const uint64_t on[3][2] = {
		{ 750000000, 250000000 }, { 0, 1200000000 }, { 100000000, 100000000 },
	};
	for (size_t t = 0; t < 3; t++) {
		r.threads[t].pmu_counts = calloc(2 * r.nevents, sizeof(struct db_count));
		uint64_t all = on[t][0] + on[t][1];
		r.threads[t].counts[0] = (struct db_count){ all, all, all, true };
		for (size_t p = 0; p < 2; p++) {
			/* 5 GHz and 4 instructions a cycle on a P-core, 3.4 GHz
			 * and 2 on an E-core; the part that never ran counted 0 */
			uint64_t cyc = on[t][p] * (p ? 34 : 50) / 10;
			fx_hybrid_part(&r, t, p, 1, cyc, all, on[t][p]);
			fx_hybrid_part(&r, t, p, 2, cyc * (p ? 2 : 4), all, on[t][p]);
		}
		for (size_t e = 0; e < 3; e++) {
			struct db_count *tot = &r.events[e].total;
			tot->present = true;
			tot->value += r.threads[t].counts[e].value;
			tot->enabled += r.threads[t].counts[e].enabled;
			tot->running += r.threads[t].counts[e].running;
		}
	}
	db_set_str(&r, SET_EVENTS, "task-clock,cycles,instructions");
	db_set_str(&r, SET_COUNT_PATH, "task");
	db_set_str(&r, SET_COUNTED_PER_PMU, "cpu_core,cpu_atom");
	db_set_yesno(&r, SET_COMPLETE, true);
	fx_check(db_run_store(db, &r, &cause), cause, "hybrid run");
	int64_t id = r.id;
	db_run_release(&r);
	return id;
}

/* Write a database at path (which must not exist yet) holding the
 * made-up hybrid run above alone: run 1. */
static inline void fixture_hybrid_db_build(const char *path)
{
	struct db *db;
	char *cause = NULL;
	fx_check(db_open(&db, path, &cause), cause, path);
	fx_store_hybrid(db);
	db_close(db);
}

/*
 * Write the fixture database at path (which must not exist yet). Runs
 * 1-6 are: counted, incomplete, attach, working set, record, sleep;
 * experiments 1-3 (A/A, A/B, three arms) follow with their runs (7-34);
 * then run 35, a probe, run 36, a build's process tree, and run 37, a
 * game with intervals and frames.
 */
static inline void fixture_db_build(const char *path)
{
	struct db *db;
	char *cause = NULL;
	fx_check(db_open(&db, path, &cause), cause, path);
	fx_store_counted(db);
	fx_store_incomplete(db);
	fx_store_attach(db);
	fx_store_working_set(db);
	fx_store_record(db);
	fx_store_sleep(db);
	int tick = 9 * 3600;	/* each experiment's runs start at its hour */
	fx_store_aa(db, &tick);
	tick = 10 * 3600;
	fx_store_ab(db, &tick);
	tick = 11 * 3600;
	fx_store_three_arms(db, &tick);
	fx_store_probe(db);
	fx_store_build(db);
	fx_store_frames(db);
	db_close(db);
}

#endif
