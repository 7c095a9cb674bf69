/*
 * Tests for reports/export: a run and a profile built by hand, written
 * as Perfetto's trace JSON, a speedscope file and perf script's text,
 * each read back and held to what its readers require: the trace-event
 * format's keys and types (every event a phase, a track and a numeric
 * time; slices a length; tracks named after the threads), speedscope's
 * file-format schema (frames that every stack index reaches, as many
 * weights as samples, endValue >= startValue), and the lines that
 * stackcollapse-perf.pl and the Firefox Profiler parse; a pprof profile
 * gunzipped and decoded with the code protoc-c makes of profile.proto.
 * Also which runs
 * each format refuses, and names that would break a line or a string.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"

#include "export_check.h"
#include "fuzz/wellformed.h"
#include "json_tree.h"
#include "reports/export.h"
#include "test_util.h"

/*
 * Modules: 1 /bin/hot, 2 /lib/libhot.so, 3 [unknown] (no mapping), 4 the
 * kernel. Symbols (module): 1 main (1), 2 work (2), 3 hot (2), 4 none (2),
 * 5 none (3), 6 _ZN6detail4sprpEyy (1), 7 clear_page (4); frame i is
 * symbol i. Stack nodes (parent, frame):
 *   1 (0, main)  2 (1, work)  3 (2, hot)  4 (1, libhot.so+0x999)
 *   5 (0, [unknown])  6 (5, sprp): its chain ends below the caller in no
 *   mapping, so sprp alone  7 (3, clear_page): main;work;hot;clear_page.
 * Threads: 0 hot (tid 100, main), 1 worker (101), 2 child (tid 200 of
 * process 200). Samples, ns after T0 (the launch, setting t0_ns):
 *   1000 hot cpu-clock node 3; 2000 worker cpu-clock node 6;
 *   3000 hot page-faults node 4; 4000 child cpu-clock node 7;
 *   5000 (no thread) cpu-clock node 1; 6500 hot cpu-clock node 3 (2 ms).
 * Frames: 0-16 ms and 16-33 ms, the hot threads' task-clock 5 and 7;
 * intervals: hot at 0 ms (task-clock 123, page-faults 4), worker at
 * 50 ms (page-faults 2, task-clock not read).
 */
#define T0 1000000000ull
#define FR(sym, off) { .symbol = (sym), .offset = (off) }

static char *names[] = { "main", "work", "hot", NULL, NULL, "_ZN6detail4sprpEyy",
			 "clear_page" };
static char *mods[] = { "/bin/hot", "/lib/libhot.so", "[unknown]", "[kernel.kallsyms]" };
static char *bids[] = { NULL, NULL, NULL, NULL };
static struct db_symbol syms[] = { { 1, NULL }, { 2, NULL }, { 2, NULL }, { 2, NULL },
				   { 3, NULL }, { 1, NULL }, { 4, NULL } };
static struct db_frame dframes[] = { FR(1, 0), FR(2, 0x10), FR(3, 4), FR(4, 0x999),
				    FR(5, 0xdeadbeef), FR(6, 8), FR(7, 0x20) };
static struct db_stack_node stacks[] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 1, 4 },
					 { 0, 5 }, { 5, 6 }, { 3, 7 } };
static struct db_sample_row samples[] = {
	{ 0, 0, 0, 3, T0 + 1000, 1000000 }, { 1, 1, 0, 6, T0 + 2000, 1000000 },
	{ 0, 0, 1, 4, T0 + 3000, 1 }, { 2, 1, 0, 7, T0 + 4000, 1000000 },
	{ -1, 0, 0, 1, T0 + 5000, 1000000 }, { 0, 0, 0, 3, T0 + 6500, 2000000 },
};
static struct db_sample_event sevents[] = {
	{ .name = "cpu-clock", .attr_type = 1, .attr_config = 0, .freq = 1000,
	  .call_graph = "fp" },
	{ .name = "page-faults", .attr_type = 1, .attr_config = 2, .period = 1,
	  .call_graph = "fp" },
};

static struct db_profile prof;
static struct db_run run;
static struct db_thread threads[3];
static struct db_event cevents[2] = { { .name = "task-clock" }, { .name = "page-faults" } };
static struct db_kv settings[] = { { "t0_ns", "1000000000" } };
static struct db_frame_span spans[] = { { 0, 16000000 }, { 16000000, 17000000 } };
static struct db_frame_count fcounts[] = { { "hot", 5, 0, 0 }, { "hot", 7, 1, 0 } };
static int64_t iv0[] = { 123, 4 }, iv1[] = { -1, 2 };
static struct db_interval ivs[] = { { 0, 100, "hot", iv0 }, { 50, 101, "worker", iv1 } };

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < 7; i++)
		syms[i].name = names[i];
	prof = (struct db_profile){
		.run_id = 9, .nevents = 2, .events = sevents,
		.nmodules = 4, .modules = mods, .build_ids = bids,
		.nsymbols = 7, .symbols = syms, .nframes = 7, .frames = dframes,
		.nstacks = 7, .stacks = stacks, .nsamples = 6, .samples = samples,
	};
	threads[0] = (struct db_thread){ .tid = 100, .pid = 100, .name = "hot",
					 .is_main = true };
	threads[1] = (struct db_thread){ .tid = 101, .pid = 100, .name = "worker" };
	threads[2] = (struct db_thread){ .tid = 200, .pid = 200, .ppid = 100,
					 .name = "child" };
	run = (struct db_run){ .id = 9, .kind = "record", .command = "./hot --fast",
			       .started = "2025-01-02T03:04:05Z", .pid = 100, .wall_s = 0.5,
			       .host = { .hostname = "box", .kernel = "6.18.0",
					 .cpu_model = "Some CPU", .online_cpus = 2 },
			       .nsettings = 1, .settings = settings,
			       .nevents = 2, .events = cevents,
			       .nthreads = 3, .threads = threads,
			       .nframes = 2, .frames = spans,
			       .nframe_counts = 2, .frame_counts = fcounts,
			       .nintervals = 2, .intervals = ivs };
	return 0;
}

static char *export(enum out_format f, const struct db_profile *p, int event, bool mangled)
{
	struct export_opts o = { .mangled = mangled, .event = event };
	assert_int_equal(export_check(f, &run, p, &o, NULL), 0);
	struct tu_buf b;
	assert_int_equal(export_write(f, &run, p, &o, tu_buf_open(&b), NULL), 0);
	return (char *)tu_buf_close(&b);
}

/* Parse a JSON export, well-formed as json.loads wants it first. */
static void parse(const char *text, struct jt *out)
{
	const char *why = wf_json(text, strlen(text));
	if (why)
		fail_msg("not well-formed JSON (%s):\n%s", why, text);
	assert_true(jt_parse(text, out));
}

/* ---- perfetto ---- */

/* The events of phase ph, in order, into v (at most cap); their number. */
static size_t events_of(const struct jt *evs, const char *ph, const struct jt **v, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < evs->n; i++) {
		const struct jt *p = jt_get_type(&evs->items[i], "ph", JT_STR);
		if (p && !strcmp(p->str, ph) && n < cap)
			v[n++] = &evs->items[i];
	}
	return n;
}

/* The name a metadata event of kind what gives (pid, tid), or NULL. */
static const char *meta_name(const struct jt *evs, const char *what, int pid, int tid)
{
	for (size_t i = 0; i < evs->n; i++) {
		const struct jt *e = &evs->items[i];
		const struct jt *ph = jt_get_type(e, "ph", JT_STR);
		const struct jt *name = jt_get_type(e, "name", JT_STR);
		if (!ph || strcmp(ph->str, "M") || !name || strcmp(name->str, what) ||
		    jt_get(e, "pid")->num != pid || jt_get(e, "tid")->num != tid)
			continue;
		const struct jt *a = jt_get_type(jt_get(e, "args"), "name", JT_STR);
		return a ? a->str : NULL;
	}
	return NULL;
}

static void test_export__perfetto_follows_the_trace_event_format(void **state)
{
	(void)state;
	char *t = export(OUT_PERFETTO, &prof, -1, false);
	struct jt doc;
	parse(t, &doc);
	check_trace_events(&doc);
	const struct jt *evs = jt_get(&doc, "traceEvents");
	/* One track per thread, under its process; one for the sample
	 * whose thread prof could not tell. */
	assert_string_equal(meta_name(evs, "process_name", 100, 100), "hot");
	assert_string_equal(meta_name(evs, "process_name", 200, 200), "child");
	assert_string_equal(meta_name(evs, "thread_name", 100, 100), "hot");
	assert_string_equal(meta_name(evs, "thread_name", 100, 101), "worker");
	assert_string_equal(meta_name(evs, "thread_name", 200, 200), "child");
	assert_string_equal(meta_name(evs, "thread_name", 100, 0), "[unknown thread]");
	/* Frames: slices on the main thread, in microseconds. */
	const struct jt *v[16];
	assert_int_equal(events_of(evs, "X", v, 16), 2);
	assert_string_equal(jt_get(v[1], "name")->str, "frame 2");
	assert_true(jt_get(v[1], "ts")->num == 16000);
	assert_true(jt_get(v[1], "dur")->num == 17000);
	assert_true(jt_get(v[1], "tid")->num == 100);
	assert_true(jt_get(jt_get(v[1], "args"), "hot task-clock")->num == 7);
	/* Intervals: a counter per thread, an event not read left out. */
	assert_int_equal(events_of(evs, "C", v, 16), 2);
	assert_string_equal(jt_get(v[0], "name")->str, "hot 100");
	assert_true(jt_get(jt_get(v[0], "args"), "task-clock")->num == 123);
	assert_true(jt_get(jt_get(v[0], "args"), "page-faults")->num == 4);
	assert_true(jt_get(v[1], "ts")->num == 50000);
	assert_null(jt_get(jt_get(v[1], "args"), "task-clock"));
	assert_true(jt_get(jt_get(v[1], "args"), "page-faults")->num == 2);
	/* Samples: instants on their threads, named by their leaf frame,
	 * timed from the launch. */
	assert_int_equal(events_of(evs, "i", v, 16), 6);
	static const char *const leaf[] = {
		"hot", "detail::sprp(unsigned long long, unsigned long long)",
		"libhot.so+0x999", "clear_page", "main", "hot",
	};
	static const int tid[] = { 100, 101, 100, 200, 0, 100 };
	static const double ts[] = { 1, 2, 3, 4, 5, 6.5 };
	for (size_t i = 0; i < 6; i++) {
		assert_string_equal(jt_get(v[i], "name")->str, leaf[i]);
		assert_true(jt_get(v[i], "tid")->num == tid[i]);
		assert_true(jt_get(v[i], "ts")->num == ts[i]);
	}
	assert_string_equal(jt_get(jt_get(v[2], "args"), "event")->str, "page-faults");
	/* The run's header. */
	const struct jt *od = jt_get_type(&doc, "otherData", JT_OBJ);
	assert_true(jt_get_type(od, "run_id", JT_NUM)->num == 9);
	assert_string_equal(jt_get_type(od, "command", JT_STR)->str, "./hot --fast");
	assert_string_equal(jt_get_type(od, "host", JT_STR)->str, "box");
	assert_string_equal(jt_get_type(od, "kernel", JT_STR)->str, "6.18.0");
	assert_string_equal(jt_get_type(od, "events", JT_STR)->str, "task-clock,page-faults");
	jt_release(&doc);
	free(t);

	/* --event: one event's samples; --no-demangle: names as stored. */
	t = export(OUT_PERFETTO, &prof, 0, true);
	parse(t, &doc);
	assert_int_equal(events_of(jt_get(&doc, "traceEvents"), "i", v, 16), 5);
	assert_string_equal(jt_get(v[1], "name")->str, "_ZN6detail4sprpEyy");
	jt_release(&doc);
	free(t);
}

static void test_export__perfetto_of_a_counted_run(void **state)
{
	(void)state;
	/* Intervals alone: counters, no instants, no samples' thread. */
	struct db_run r = run;
	r.nframes = 0;
	r.nframe_counts = 0;
	struct export_opts o = { .event = -1 };
	assert_int_equal(export_check(OUT_PERFETTO, &r, NULL, &o, NULL), 0);
	struct tu_buf b;
	assert_int_equal(export_write(OUT_PERFETTO, &r, NULL, &o, tu_buf_open(&b), NULL), 0);
	char *t = (char *)tu_buf_close(&b);
	struct jt doc;
	parse(t, &doc);
	check_trace_events(&doc);
	const struct jt *v[8];
	const struct jt *evs = jt_get(&doc, "traceEvents");
	assert_int_equal(events_of(evs, "C", v, 8), 2);
	assert_int_equal(events_of(evs, "X", v, 8), 0);
	assert_int_equal(events_of(evs, "i", v, 8), 0);
	assert_null(meta_name(evs, "thread_name", 100, 0));
	assert_null(jt_get_type(jt_get(&doc, "otherData"), "sampled_events", JT_STR));
	jt_release(&doc);
	free(t);
}

/* ---- speedscope ---- */

/* The frame names of one speedscope sample, outermost first, joined by
 * ';' into buf. */
static const char *stack_text(const struct jt *frames, const struct jt *stack, char *buf,
			      size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < stack->n; i++) {
		size_t at = strlen(buf);
		snprintf(buf + at, n - at, "%s%s", i ? ";" : "",
			 jt_get(&frames->items[(size_t)stack->items[i].num], "name")->str);
	}
	return buf;
}

static void test_export__speedscope_follows_its_schema(void **state)
{
	(void)state;
	char *t = export(OUT_SPEEDSCOPE, &prof, -1, false);
	struct jt doc;
	parse(t, &doc);
	check_speedscope(&doc);
	const struct jt *frames = jt_get(jt_get(&doc, "shared"), "frames");
	const struct jt *profiles = jt_get(&doc, "profiles");
	/* A profile per thread and event, threads in the run's order. */
	assert_int_equal(profiles->n, 5);
	static const char *const pname[] = {
		"[unknown thread]: cpu-clock", "hot (tid 100): cpu-clock",
		"hot (tid 100): page-faults", "worker (tid 101): cpu-clock",
		"child (tid 200): cpu-clock",
	};
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(jt_get(&profiles->items[i], "name")->str, pname[i]);
	/* Stacks outermost first, weights the periods, in time order. */
	const struct jt *hot = &profiles->items[1];
	char buf[512];
	const struct jt *s = jt_get(hot, "samples"), *w = jt_get(hot, "weights");
	assert_int_equal(s->n, 2);
	assert_string_equal(stack_text(frames, &s->items[0], buf, sizeof(buf)), "main;work;hot");
	assert_true(w->items[0].num == 1000000 && w->items[1].num == 2000000);
	assert_string_equal(jt_get(hot, "unit")->str, "nanoseconds");
	assert_true(jt_get(hot, "endValue")->num == 3000000);
	assert_string_equal(jt_get(&profiles->items[2], "unit")->str, "none");
	s = jt_get(&profiles->items[2], "samples");
	assert_string_equal(stack_text(frames, &s->items[0], buf, sizeof(buf)),
			    "main;libhot.so+0x999");
	/* The chain ends below a caller in no mapping. */
	s = jt_get(&profiles->items[3], "samples");
	assert_string_equal(stack_text(frames, &s->items[0], buf, sizeof(buf)),
			    "detail::sprp(unsigned long long, unsigned long long)");
	s = jt_get(&profiles->items[4], "samples");
	assert_string_equal(stack_text(frames, &s->items[0], buf, sizeof(buf)),
			    "main;work;hot;clear_page");
	/* One frame per function: hot appears once, the cut caller never. */
	size_t nhot = 0;
	for (size_t i = 0; i < frames->n; i++) {
		const char *name = jt_get(&frames->items[i], "name")->str;
		nhot += !strcmp(name, "hot");
		assert_null(strstr(name, "deadbeef"));
	}
	assert_int_equal(nhot, 1);
	/* The busiest profile is the one shown first. */
	assert_true(jt_get(&doc, "activeProfileIndex")->num == 1);
	jt_release(&doc);
	free(t);

	t = export(OUT_SPEEDSCOPE, &prof, 1, false);
	parse(t, &doc);
	check_speedscope(&doc);
	assert_int_equal(jt_get(&doc, "profiles")->n, 1);
	jt_release(&doc);
	free(t);
}

/* ---- perf script ---- */

static void test_export__perf_script_reads_as_perf_writes_it(void **state)
{
	(void)state;
	char *t = export(OUT_PERF_SCRIPT, &prof, -1, false);
	assert_int_equal(check_perf_script(t), 6);
	assert_non_null(strstr(t, "# hostname : box\n"));
	assert_non_null(strstr(t, "# os release : 6.18.0\n"));
	assert_non_null(strstr(t, "# event : name = cpu-clock, sample_freq = 1000"));
	/* perf's columns: comm, pid/tid, secs.usecs (the samples' clock),
	 * the period, the event; frames leaf first, the address 0 where a
	 * symbol names the frame, the module's offset where none does. */
	assert_non_null(strstr(t,
		"hot   100/100       1.000001:    1000000 cpu-clock: \n"
		"\t               0 hot+0x4 (/lib/libhot.so)\n"
		"\t               0 work+0x10 (/lib/libhot.so)\n"
		"\t               0 main+0x0 (/bin/hot)\n\n"));
	assert_non_null(strstr(t,
		"hot   100/100       1.000003:          1 page-faults: \n"
		"\t             999 [unknown] (/lib/libhot.so)\n"
		"\t               0 main+0x0 (/bin/hot)\n\n"));
	assert_non_null(strstr(t,
		"worker   100/101       1.000002:    1000000 cpu-clock: \n"
		"\t               0 detail::sprp(unsigned long long, unsigned long long)+0x8"
		" (/bin/hot)\n\n"));
	assert_non_null(strstr(t, "\t               0 clear_page+0x20 ([kernel.kallsyms])\n"
			       "\t               0 hot+0x4 (/lib/libhot.so)\n"));
	assert_non_null(strstr(t, "[unknown]     0/0         1.000005:"));
	/* Oldest first. */
	assert_true(strstr(t, "1.000002:") < strstr(t, "1.000003:"));
	free(t);

	t = export(OUT_PERF_SCRIPT, &prof, 1, true);
	assert_int_equal(check_perf_script(t), 1);
	free(t);
}

/* ---- pprof ---- */

static pprof_write_fn *pprof_encoder(void)
{
	static void *h;
	if (!h)
		h = dlopen(BUILD_DIR "/bin/" PPROF_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fail_msg("cannot load the encoder: %s", dlerror());
	pprof_write_fn *fn;
	*(void **)&fn = dlsym(h, PPROF_WRITE_SYMBOL);
	assert_non_null(fn);
	return fn;
}

/* The export as pprof, gunzipped and decoded. */
static Perftools__Profiles__Profile *pprof_of(int event)
{
	struct export_opts o = { .event = event, .pprof = pprof_encoder() };
	assert_int_equal(export_check(OUT_PPROF, &run, &prof, &o, NULL), 0);
	struct tu_buf b;
	char *cause = NULL;
	int rc = export_write(OUT_PPROF, &run, &prof, &o, tu_buf_open(&b), &cause);
	tu_buf_close(&b);
	uint8_t *z = (uint8_t *)b.data;
	size_t zlen = b.len;
	if (rc)
		fail_msg("export_write: %d %s", rc, cause ? cause : "");
	assert_true(zlen > 18 && z[0] == 0x1f && z[1] == 0x8b);	/* gzip's magic */
	z_stream zs = { .next_in = z, .avail_in = (uInt)zlen };
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	size_t cap = 1 << 20;
	uint8_t *raw = malloc(cap);
	zs.next_out = raw;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	size_t len = cap - zs.avail_out;
	inflateEnd(&zs);
	Perftools__Profiles__Profile *pr = perftools__profiles__profile__unpack(NULL, len, raw);
	assert_non_null(pr);
	free(raw);
	free(z);
	return pr;
}

static const char *pstr(const Perftools__Profiles__Profile *pr, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < pr->n_string_table);
	return pr->string_table[i];
}

/* A sample's frames, leaf first, as "a;b;c", and its thread label. */
static void pprof_sample_text(const Perftools__Profiles__Profile *pr,
			      const Perftools__Profiles__Sample *s, char *buf, size_t n)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < s->n_location_id; k++) {
		assert_true(s->location_id[k] >= 1 && s->location_id[k] <= pr->n_location);
		const Perftools__Profiles__Location *l = pr->location[s->location_id[k] - 1];
		assert_int_equal(l->id, s->location_id[k]);
		assert_int_equal(l->n_line, 1);
		uint64_t f = l->line[0]->function_id;
		assert_true(f >= 1 && f <= pr->n_function);
		assert_true(l->mapping_id <= pr->n_mapping);
		at += (size_t)snprintf(buf + at, n - at, "%s%s", k ? ";" : "",
				       pstr(pr, pr->function[f - 1]->name));
	}
	for (size_t k = 0; k < s->n_label; k++)
		if (!strcmp(pstr(pr, s->label[k]->key), "thread"))
			snprintf(buf + at, n - at, " @%s", pstr(pr, s->label[k]->str));
}

/* The sample whose text is want: its values. */
static const int64_t *pprof_find(const Perftools__Profiles__Profile *pr, const char *want)
{
	char buf[512];
	for (size_t i = 0; i < pr->n_sample; i++) {
		assert_int_equal(pr->sample[i]->n_value, pr->n_sample_type);
		pprof_sample_text(pr, pr->sample[i], buf, sizeof(buf));
		if (!strcmp(buf, want))
			return pr->sample[i]->value;
	}
	fail_msg("no pprof sample '%s'", want);
	return NULL;
}

static void test_export__pprof_decodes_as_profile_proto(void **state)
{
	(void)state;
	bids[1] = "0a1b2c";
	Perftools__Profiles__Profile *pr = pprof_of(-1);
	/* Each event's weight, then its sample count; the first the default. */
	assert_int_equal(pr->n_sample_type, 4);
	const char *vt[4][2] = { { "cpu-clock", "nanoseconds" }, { "cpu-clock samples", "count" },
				 { "page-faults", "count" }, { "page-faults samples", "count" } };
	for (int i = 0; i < 4; i++) {
		assert_string_equal(pstr(pr, pr->sample_type[i]->type), vt[i][0]);
		assert_string_equal(pstr(pr, pr->sample_type[i]->unit), vt[i][1]);
	}
	assert_string_equal(pstr(pr, pr->default_sample_type), "cpu-clock");
	assert_string_equal(pr->string_table[0], "");
	/* One sample per (thread, call chain), the leaf first: hot's two
	 * cpu-clock samples on main;work;hot are one of 3 ms. */
	assert_int_equal(pr->n_sample, 5);
	const int64_t *v = pprof_find(pr, "hot;work;main @hot");
	assert_true(v[0] == 3000000 && v[1] == 2 && v[2] == 0 && v[3] == 0);
	v = pprof_find(pr, "libhot.so+0x999;main @hot");
	assert_true(v[0] == 0 && v[1] == 0 && v[2] == 1 && v[3] == 1);
	/* the chain ends below a caller in no mapping; names demangled */
	v = pprof_find(pr, "detail::sprp(unsigned long long, unsigned long long) @worker");
	assert_true(v[0] == 1000000 && v[1] == 1);
	pprof_find(pr, "clear_page;hot;work;main @child");
	pprof_find(pr, "main @?");
	/* tid and pid labels */
	char buf[512];
	for (size_t i = 0; i < pr->n_sample; i++) {
		pprof_sample_text(pr, pr->sample[i], buf, sizeof(buf));
		if (strcmp(buf, "clear_page;hot;work;main @child"))
			continue;
		int64_t tid = 0, pid = 0;
		for (size_t k = 0; k < pr->sample[i]->n_label; k++) {
			const char *key = pstr(pr, pr->sample[i]->label[k]->key);
			if (!strcmp(key, "tid"))
				tid = pr->sample[i]->label[k]->num;
			if (!strcmp(key, "pid"))
				pid = pr->sample[i]->label[k]->num;
		}
		assert_true(tid == 200 && pid == 200);
	}
	/* Functions keep the linker's name; mappings their path and build id. */
	bool sprp = false;
	for (size_t i = 0; i < pr->n_function; i++) {
		assert_int_equal(pr->function[i]->id, i + 1);
		if (!strcmp(pstr(pr, pr->function[i]->system_name), "_ZN6detail4sprpEyy"))
			sprp = true;
	}
	assert_true(sprp);
	assert_int_equal(pr->n_mapping, 4);
	assert_string_equal(pstr(pr, pr->mapping[1]->filename), "/lib/libhot.so");
	assert_string_equal(pstr(pr, pr->mapping[1]->build_id), "0a1b2c");
	assert_int_equal(pr->mapping[0]->build_id, 0);
	/* The run: its start (2025-01-02T03:04:05Z), wall time and command. */
	assert_int_equal(pr->time_nanos, 1735787045LL * 1000000000LL);
	assert_int_equal(pr->duration_nanos, 500000000);
	assert_int_equal(pr->n_comment, 1);
	assert_string_equal(pstr(pr, pr->comment[0]), "prof record 9: ./hot --fast");
	perftools__profiles__profile__free_unpacked(pr, NULL);

	/* --event: that event's samples alone (its columns, the others 0). */
	pr = pprof_of(1);
	assert_int_equal(pr->n_sample, 1);
	v = pprof_find(pr, "libhot.so+0x999;main @hot");
	assert_true(v[2] == 1 && v[3] == 1);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	bids[1] = NULL;
}

static void test_export__pprof_refuses_what_it_cannot_write(void **state)
{
	(void)state;
	/* No encoder loaded: said, not crashed. */
	struct export_opts o = { .event = -1 };
	struct tu_buf b;
	char *cause = NULL;
	assert_int_equal(export_write(OUT_PPROF, &run, &prof, &o, tu_buf_open(&b), &cause),
			 -ENOSYS);
	free((char *)tu_buf_close(&b));
	assert_non_null(strstr(cause, "no pprof encoder"));
	free(cause);
	cause = NULL;
	/* An encoder of another build refuses the profile. */
	struct pprof_profile other = { .abi = PPROF_ABI + 1 };
	assert_int_equal(pprof_encoder()(&other, tu_buf_open(&b), &cause), -EINVAL);
	free((char *)tu_buf_close(&b));
	assert_non_null(strstr(cause, "another build of prof"));
	free(cause);
	/* A counted run has nothing for it. */
	struct db_run counted = run;
	assert_int_equal(export_check(OUT_PPROF, &counted, NULL, &o, &cause), -ENODATA);
	assert_non_null(strstr(cause, "--format pprof exports the samples of a sampled run"));
	free(cause);
}

/* ---- refusals and hostile names ---- */

static void test_export__runs_without_what_a_format_needs_are_refused(void **state)
{
	(void)state;
	struct export_opts all = { .event = -1 }, faults = { .event = 1 };
	char *cause = NULL;
	struct db_run counted = run;
	counted.nframes = 0;
	counted.nintervals = 0;
	counted.nsettings = 0;
	/* No samples: speedscope and perf script name the runs they take. */
	assert_int_equal(export_check(OUT_SPEEDSCOPE, &counted, NULL, &all, &cause), -ENODATA);
	assert_non_null(strstr(cause, "--format speedscope exports the samples of a sampled "
			       "run (prof record): run 9 was counted, not sampled"));
	assert_null(strchr(cause, '\n'));
	free(cause);
	assert_int_equal(export_check(OUT_PERF_SCRIPT, &counted, NULL, &all, &cause),
			 -ENODATA);
	assert_non_null(strstr(cause, "--format perf-script"));
	free(cause);
	/* Nothing over time: perfetto says what it would show. */
	assert_int_equal(export_check(OUT_PERFETTO, &counted, NULL, &all, &cause), -ENODATA);
	assert_non_null(strstr(cause, "frames (--frames, --frame-regex), intervals (-I MS) "
			       "or samples (prof record): run 9 has none of them"));
	free(cause);
	counted.nintervals = 2;
	assert_int_equal(export_check(OUT_PERFETTO, &counted, NULL, &all, NULL), 0);
	/* A sampled run whose samples are none, or none of the event. */
	struct db_profile empty = prof;
	empty.nsamples = 0;
	assert_int_equal(export_check(OUT_SPEEDSCOPE, &counted, &empty, &all, &cause),
			 -ENODATA);
	assert_non_null(strstr(cause, "run 9 holds none"));
	free(cause);
	struct db_profile cpu_only = prof;
	cpu_only.nsamples = 2;
	assert_int_equal(export_check(OUT_PERF_SCRIPT, &counted, &cpu_only, &faults, &cause),
			 -ENODATA);
	assert_non_null(strstr(cause, "holds none of that event"));
	free(cause);
	assert_int_equal(export_check(OUT_PERF_SCRIPT, &counted, &cpu_only, &all, NULL), 0);
	assert_true(export_format(OUT_PERF_SCRIPT) && !export_format(OUT_JSON) &&
		    !export_format(OUT_FOLDED));
}

static void test_export__names_cannot_break_a_line_or_a_string(void **state)
{
	(void)state;
	threads[0].name = "bad\nname \"q\"\x1b[2J";
	names[2] = "ho\tt\n(x)";
	syms[2].name = names[2];
	mods[1] = "/lib/lib\nhot.so";
	char *t = export(OUT_PERF_SCRIPT, &prof, -1, false);
	assert_int_equal(check_perf_script(t), 6);
	assert_null(strchr(t, '\x1b'));
	free(t);
	struct jt doc;
	t = export(OUT_PERFETTO, &prof, -1, false);
	parse(t, &doc);
	check_trace_events(&doc);
	assert_string_equal(meta_name(jt_get(&doc, "traceEvents"), "thread_name", 100, 100),
			    "bad\nname \"q\"\x1b[2J");
	jt_release(&doc);
	free(t);
	t = export(OUT_SPEEDSCOPE, &prof, -1, false);
	parse(t, &doc);
	check_speedscope(&doc);
	jt_release(&doc);
	free(t);
	threads[0].name = "hot";
	names[2] = "hot";
	syms[2].name = names[2];
	mods[1] = "/lib/libhot.so";
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_export__perfetto_follows_the_trace_event_format,
				       setup),
		cmocka_unit_test_setup(test_export__perfetto_of_a_counted_run, setup),
		cmocka_unit_test_setup(test_export__speedscope_follows_its_schema, setup),
		cmocka_unit_test_setup(test_export__perf_script_reads_as_perf_writes_it, setup),
		cmocka_unit_test_setup(test_export__pprof_decodes_as_profile_proto, setup),
		cmocka_unit_test_setup(test_export__pprof_refuses_what_it_cannot_write, setup),
		cmocka_unit_test_setup(test_export__runs_without_what_a_format_needs_are_refused,
				       setup),
		cmocka_unit_test_setup(test_export__names_cannot_break_a_line_or_a_string,
				       setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
