/*
 * Tests for reports/profile: self and total shares by symbol, module,
 * thread and name, the hottest call paths and folded stacks, on a
 * profile built by hand whose expected numbers are worked out in the
 * comments (recursion counted once in totals; code without a symbol by
 * address or section; call chains cut at a caller in no mapping), and
 * the JSON keys shared/DESIGN.md promises.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "reports/profile.h"
#include "test_util.h"

/*
 * Modules: 1 /bin/hot, 2 /lib/libhot.so. Symbols (module): 1 main (1),
 * 2 work (2), 3 hot (2), 4 [unknown] (2), 5 helper (1); frame i is symbol
 * i. Stack nodes (parent, frame):
 *   1 (0, main)  2 (1, work)  3 (2, hot)  4 (1, unknown)  5 (1, helper)
 *   6 (5, main): main -> helper -> main, a recursion.
 * Event 0 (cpu-clock, weight 1000 per sample):
 *   thread 0: node 3 x60, node 4 x10, node 5 x20; thread 1: node 6 x10.
 * Event 1 (page-faults, weight 1): thread 0: node 2 x5.
 * So for event 0 (100 samples):
 *   hot self 60 total 60; helper self 20 total 30; main self 10 total
 *   100 (once per sample, though node 6 holds it twice); the code of no
 *   symbol in libhot.so, at 0x999, 10/10; work 0/60.
 *   libhot.so self 70 total 70; /bin/hot self 30 total 100.
 *   thread 0 (tid 100 "hot"): 90; thread 1 (tid 101 "worker"): 10.
 */
/* A frame by its symbol and offset (its source line unknown). */
#define FR(sym, off) { .symbol = (sym), .offset = (off) }

static char *names[] = { "main", "work", "hot", NULL, "helper" };
static char *mods[] = { "/bin/hot", "/lib/libhot.so" };
static char *bids[] = { NULL, NULL };
static struct db_symbol syms[] = { { 1, NULL }, { 2, NULL }, { 2, NULL },
				   { 2, NULL }, { 1, NULL } };
static struct db_frame frames[] = { FR(1, 0), FR(2, 0x10), FR(3, 4), FR(4, 0x999),
				    FR(5, 8) };
static struct db_stack_node stacks[] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 1, 4 },
					 { 1, 5 }, { 5, 1 } };
static struct db_stack_count counts[] = {
	{ 0, 0, 3, 60, 60000 }, { 0, 0, 4, 10, 10000 }, { 0, 0, 5, 20, 20000 },
	{ 0, 1, 6, 10, 10000 }, { 1, 0, 2, 5, 5 },
};
static struct db_sample_event events[] = {
	{ .name = "cpu-clock", .attr_type = 1, .attr_config = 0, .freq = 1000,
	  .call_graph = "dwarf", .stack_bytes = 8192 },
	{ .name = "page-faults", .attr_type = 1, .attr_config = 2, .period = 1,
	  .call_graph = "dwarf", .stack_bytes = 8192, .lost = 2 },
};

static struct db_profile prof;
static struct db_run run;
static struct db_thread threads[2];

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < 5; i++)
		syms[i].name = names[i];
	prof = (struct db_profile){
		.run_id = 9, .nevents = 2, .events = events,
		.nmodules = 2, .modules = mods, .build_ids = bids,
		.nsymbols = 5, .symbols = syms, .nframes = 5, .frames = frames,
		.nstacks = 6, .stacks = stacks, .ncounts = 5, .counts = counts,
	};
	threads[0] = (struct db_thread){ .tid = 100, .pid = 100, .name = "hot",
					 .is_main = true };
	threads[1] = (struct db_thread){ .tid = 101, .pid = 100, .name = "worker" };
	run = (struct db_run){ .id = 9, .kind = "record", .command = "./hot",
			       .wall_s = 0.5, .nthreads = 2, .threads = threads };
	return 0;
}

static char *render(enum profile_by by, bool stacks_, int event, size_t limit,
		    enum out_format fmt)
{
	struct profile_opts o = { .by = by, .stacks = stacks_, .event = event,
				  .limit = limit, .fmt = fmt };
	struct tu_buf b;
	report_profile(&run, &prof, &o, tu_buf_open(&b));
	return (char *)tu_buf_close(&b);
}

/* The line of a table that contains needle. */
static char *line_with(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	if (!p)
		return NULL;
	const char *s = p;
	while (s > text && s[-1] != '\n')
		s--;
	return strndup(s, strcspn(s, "\n"));
}

static void expect_line(const char *text, const char *needle, const char *const *words)
{
	char *l = line_with(text, needle);
	if (!l)
		fail_msg("no line with '%s' in:\n%s", needle, text);
	for (size_t i = 0; words[i]; i++)
		if (!strstr(l, words[i]))
			fail_msg("line '%s' lacks '%s'", l, words[i]);
	free(l);
}

static void test_profile__by_symbol_self_and_total(void **state)
{
	(void)state;
	char *t = render(PROFILE_BY_SYMBOL, false, 0, 0, OUT_TABLE);
	expect_line(t, " hot", (const char *const[]){ "60.00%", "60.00%", "60", "libhot.so", NULL });
	expect_line(t, "helper", (const char *const[]){ "20.00%", "30.00%", NULL });
	expect_line(t, "main", (const char *const[]){ "10.00%", "100.00%", NULL });
	expect_line(t, "libhot.so+0x999", (const char *const[]){ "10.00%", "libhot.so", NULL });
	assert_null(strstr(t, "[unknown]"));
	assert_null(strstr(t, "call chains"));
	expect_line(t, "work", (const char *const[]){ "0.00%", "60.00%", NULL });
	/* Hottest first. */
	assert_true(strstr(t, " hot") < strstr(t, "helper"));
	assert_true(strstr(t, "helper") < strstr(t, "work"));
	/* The header names the run and the sampling. */
	assert_non_null(strstr(t, "prof record 9: './hot'"));
	assert_non_null(strstr(t, "cpu-clock: 100 samples at 1000 Hz (0.000 s), call graph dwarf"));
	assert_non_null(strstr(t, "page-faults: 5 samples every 1"));
	assert_non_null(strstr(t, "2 lost by the kernel"));
	free(t);
}

static void test_profile__by_module_thread_and_name(void **state)
{
	(void)state;
	char *t = render(PROFILE_BY_MODULE, false, 0, 0, OUT_TABLE);
	expect_line(t, "libhot.so", (const char *const[]){ "70.00%", "70.00%", "70", NULL });
	expect_line(t, " hot\n", (const char *const[]){ "30.00%", "100.00%", NULL });
	free(t);
	t = render(PROFILE_BY_THREAD, false, 0, 0, OUT_TABLE);
	expect_line(t, "worker", (const char *const[]){ "10.00%", "101", NULL });
	expect_line(t, "100  hot", (const char *const[]){ "90.00%", NULL });
	free(t);
	t = render(PROFILE_BY_NAME, false, 0, 0, OUT_CSV);
	assert_non_null(strstr(t, "event,thread,threads,samples,self_pct,"));
	assert_non_null(strstr(t, "\ncpu-clock,hot,1,90,90,90,90\n"));
	assert_non_null(strstr(t, "\ncpu-clock,worker,1,10,10,10,10\n"));
	free(t);
}

static void test_profile__json_contract(void **state)
{
	(void)state;
	char *j = render(PROFILE_BY_SYMBOL, false, -1, 0, OUT_JSON);
	assert_non_null(strstr(j, "\"event\": \"cpu-clock\""));
	/* rows: {module, symbol, samples, self_pct}, hottest first. */
	const char *rows = strstr(j, "\"rows\"");
	assert_non_null(rows);
	const char *first = strstr(rows, "{");
	assert_non_null(strstr(first, "\"module\": \"/lib/libhot.so\", \"symbol\": \"hot\", "
			       "\"samples\": 60, \"self_pct\": 60"));
	assert_non_null(strstr(j, "\"symbol\": \"libhot.so+0x999\", \"samples\": 10,"));
	assert_non_null(strstr(j, "\"offset\": \"0x999\""));
	assert_non_null(strstr(j, "\"chains_cut\": 0"));
	assert_non_null(strstr(j, "\"total_pct\": 100"));
	/* Every event under events. */
	assert_non_null(strstr(j, "\"event\": \"page-faults\""));
	assert_non_null(strstr(j, "\"lost\": 2"));
	free(j);
	/* By module, symbol is null. */
	j = render(PROFILE_BY_MODULE, false, 1, 0, OUT_JSON);
	assert_non_null(strstr(j, "\"event\": \"page-faults\""));
	assert_non_null(strstr(j, "\"module\": \"/lib/libhot.so\", \"symbol\": null, "
			       "\"samples\": 5, \"self_pct\": 100"));
	assert_null(strstr(j, "cpu-clock"));
	free(j);
}

static void test_profile__folded_and_stacks(void **state)
{
	(void)state;
	char *f = render(PROFILE_BY_SYMBOL, false, -1, 0, OUT_FOLDED);
	/* Outermost first, sorted, code of no symbol by address. */
	assert_string_equal(f, "main;helper 20\n"
			       "main;helper;main 10\n"
			       "main;libhot.so+0x999 10\n"
			       "main;work;hot 60\n");
	free(f);
	f = render(PROFILE_BY_SYMBOL, false, 1, 0, OUT_FOLDED);
	assert_string_equal(f, "main;work 5\n");
	free(f);
	char *t = render(PROFILE_BY_SYMBOL, true, 0, 2, OUT_TABLE);
	expect_line(t, "main -> work -> hot", (const char *const[]){ "60.00%", "60", NULL });
	expect_line(t, "main -> helper\n", (const char *const[]){ "20.00%", NULL });
	/* The limit keeps the two hottest. */
	assert_null(strstr(t, "main -> helper -> main"));
	free(t);
	char *j = render(PROFILE_BY_SYMBOL, true, 0, 1, OUT_JSON);
	assert_non_null(strstr(j, "\"stacks\""));
	assert_non_null(strstr(j, "{\"path\": \"main -> work -> hot\", \"samples\": 60, "
			       "\"pct\": 60}"));
	free(j);
}

/*
 * Kernel frames in folded stacks carry "_[k]", as stackcollapse-perf.pl
 * --kernel writes them (flame-graph tools colour them apart); user
 * frames and the " -> " paths of tables do not. Stacks: main -> write ->
 * do_syscall_64 -> vfs_write (x3), -> a kernel address of no symbol
 * (x1), and main -> write (x2).
 */
static void test_profile__folded_marks_kernel_frames(void **state)
{
	(void)state;
	static char *kmods[] = { "/bin/w", "[kernel.kallsyms]" };
	static char *kbids[] = { NULL, NULL };
	static struct db_symbol ksyms[] = { { 1, "main" }, { 1, "write" },
					    { 2, "do_syscall_64" }, { 2, "vfs_write" },
					    { 2, NULL } };
	static struct db_frame kframes[] = { FR(1, 0), FR(2, 4), FR(3, 0x20), FR(4, 0),
					     FR(5, 0xffffffff81234567ull) };
	static struct db_stack_node kstacks[] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 4 },
						  { 3, 5 } };
	static struct db_stack_count kcounts[] = { { 0, 0, 4, 3, 3000 }, { 0, 0, 5, 1, 1000 },
						   { 0, 0, 2, 2, 2000 } };
	struct db_profile kp = {
		.run_id = 9, .nevents = 1, .events = events,
		.nmodules = 2, .modules = kmods, .build_ids = kbids,
		.nsymbols = 5, .symbols = ksyms, .nframes = 5, .frames = kframes,
		.nstacks = 5, .stacks = kstacks, .ncounts = 3, .counts = kcounts,
	};
	struct profile_opts o = { .by = PROFILE_BY_SYMBOL, .event = -1, .fmt = OUT_FOLDED };
	struct tu_buf b;
	report_profile(&run, &kp, &o, tu_buf_open(&b));
	char *f = (char *)tu_buf_close(&b);
	assert_string_equal(f, "main;write 2\n"
			       "main;write;do_syscall_64_[k];[kernel.kallsyms]+0xffffffff81234567_[k] 1\n"
			       "main;write;do_syscall_64_[k];vfs_write_[k] 3\n");
	free(f);
	o = (struct profile_opts){ .by = PROFILE_BY_SYMBOL, .stacks = true, .event = -1,
				   .fmt = OUT_TABLE };
	report_profile(&run, &kp, &o, tu_buf_open(&b));
	char *t = (char *)tu_buf_close(&b);
	assert_non_null(strstr(t, "main -> write -> do_syscall_64 -> vfs_write"));
	assert_null(strstr(t, "_[k]"));
	free(t);
}

/*
 * By line: the shared profile with source lines on some frames. hot at
 * /src/lib.c:12 inside the inlined ns::hot() (stored mangled), work at
 * /src/lib.c:5, main at /src/main.c:3; helper and the unknown code have
 * none and keep their rows by symbol. Self and total as by symbol, as
 * each of these frames is alone on its line.
 */
static void test_profile__by_line(void **state)
{
	(void)state;
	struct db_frame lframes[5];
	memcpy(lframes, frames, sizeof(lframes));
	lframes[2].src_file = "/src/lib.c";
	lframes[2].src_line = 12;
	lframes[2].src_function = "_ZN2ns3hotEv";
	lframes[1].src_file = "/src/lib.c";
	lframes[1].src_line = 5;
	lframes[0].src_file = "/src/main.c";
	lframes[0].src_line = 3;
	lframes[0].src_function = "main";
	struct db_profile lp = prof;
	lp.frames = lframes;
	struct profile_opts o = { .by = PROFILE_BY_LINE, .event = 0, .fmt = OUT_TABLE };
	struct tu_buf b;
	report_profile(&run, &lp, &o, tu_buf_open(&b));
	char *t = (char *)tu_buf_close(&b);
	expect_line(t, "lib.c:12", (const char *const[]){ "60.00%", "ns::hot()",
							  "libhot.so", NULL });
	expect_line(t, "main.c:3", (const char *const[]){ "10.00%", "100.00%", "main",
							  NULL });
	/* No function stored: the frame's symbol names the line. */
	expect_line(t, "lib.c:5", (const char *const[]){ "0.00%", "60.00%", "work", NULL });
	expect_line(t, "helper", (const char *const[]){ "20.00%", "30.00%", "?", NULL });
	expect_line(t, "libhot.so+0x999", (const char *const[]){ "10.00%", "?", NULL });
	free(t);
	o.fmt = OUT_JSON;
	report_profile(&run, &lp, &o, tu_buf_open(&b));
	char *j = (char *)tu_buf_close(&b);
	assert_non_null(strstr(j, "\"by\": \"line\""));
	assert_non_null(strstr(j, "{\"module\": \"/lib/libhot.so\", \"symbol\": "
			       "\"ns::hot()\", \"samples\": 60, \"self_pct\": 60, "
			       "\"total_samples\": 60, \"total_pct\": 60, \"file\": "
			       "\"/src/lib.c\", \"line\": 12}"));
	assert_non_null(strstr(j, "\"symbol\": \"helper\", \"samples\": 20, "
			       "\"self_pct\": 20, \"total_samples\": 30, "
			       "\"total_pct\": 30, \"file\": null, \"line\": null}"));
	free(j);
	/* --no-demangle: the function as stored. */
	o = (struct profile_opts){ .by = PROFILE_BY_LINE, .event = 0, .fmt = OUT_TABLE,
				   .mangled = true };
	report_profile(&run, &lp, &o, tu_buf_open(&b));
	t = (char *)tu_buf_close(&b);
	expect_line(t, "lib.c:12", (const char *const[]){ "_ZN2ns3hotEv", NULL });
	free(t);
	/* A run recorded without lines: every row by symbol. */
	o.mangled = false;
	report_profile(&run, &prof, &o, tu_buf_open(&b));
	t = (char *)tu_buf_close(&b);
	expect_line(t, " hot ", (const char *const[]){ "60.00%", "?", NULL });
	free(t);
	enum profile_by by;
	assert_int_equal(profile_by_parse("line", &by), 0);
	assert_int_equal(by, PROFILE_BY_LINE);
	assert_string_equal(profile_by_name(PROFILE_BY_LINE), "line");
}

/*
 * Inlined functions in paths: hot's frame holds ns::step() and leaf()
 * (stored mangled, outermost first), which follow it in call paths
 * marked "(inlined)", and in folded stacks as frames of their own;
 * --no-inline leaves them out; --no-demangle shows them as stored.
 */
static void test_profile__inlined_functions_in_paths(void **state)
{
	(void)state;
	struct db_frame iframes[5];
	memcpy(iframes, frames, sizeof(iframes));
	iframes[2].src_file = "/src/lib.c";
	iframes[2].src_line = 12;
	iframes[2].src_function = "leaf";
	iframes[2].src_inlines = "_ZN2ns4stepEv\nleaf";
	struct db_profile ip = prof;
	ip.frames = iframes;
	struct profile_opts o = { .by = PROFILE_BY_SYMBOL, .stacks = true, .event = 0,
				  .limit = 1, .fmt = OUT_TABLE };
	struct tu_buf b;
	report_profile(&run, &ip, &o, tu_buf_open(&b));
	char *t = (char *)tu_buf_close(&b);
	expect_line(t, "main -> work -> hot -> ns::step() (inlined) -> leaf (inlined)\n",
		    (const char *const[]){ "60.00%", NULL });
	free(t);
	o = (struct profile_opts){ .by = PROFILE_BY_SYMBOL, .event = 0, .fmt = OUT_FOLDED };
	report_profile(&run, &ip, &o, tu_buf_open(&b));
	char *f = (char *)tu_buf_close(&b);
	assert_non_null(strstr(f, "\nmain;work;hot;ns::step();leaf 60\n"));
	free(f);
	o.mangled = true;
	report_profile(&run, &ip, &o, tu_buf_open(&b));
	f = (char *)tu_buf_close(&b);
	assert_non_null(strstr(f, "\nmain;work;hot;_ZN2ns4stepEv;leaf 60\n"));
	free(f);
	o.mangled = false;
	o.no_inline = true;
	report_profile(&run, &ip, &o, tu_buf_open(&b));
	f = (char *)tu_buf_close(&b);
	assert_non_null(strstr(f, "\nmain;work;hot 60\n"));
	assert_null(strstr(f, "leaf"));
	free(f);
	/* Rows by symbol are not moved: self stays with hot. */
	o = (struct profile_opts){ .by = PROFILE_BY_SYMBOL, .event = 0, .fmt = OUT_TABLE };
	report_profile(&run, &ip, &o, tu_buf_open(&b));
	t = (char *)tu_buf_close(&b);
	expect_line(t, " hot", (const char *const[]){ "60.00%", NULL });
	assert_null(strstr(t, "leaf"));
	free(t);
}

/* Symbols are demangled in rows, paths and folded stacks, and shown as
 * stored with mangled set. */
static void test_profile__demangled_unless_asked(void **state)
{
	(void)state;
	syms[4].name = "_ZN6detail6helperERKSt6vectorIiSaIiEE";
	const char *shown = "detail::helper(std::vector<int, std::allocator<int> > const&)";
	char *t = render(PROFILE_BY_SYMBOL, false, 0, 0, OUT_TABLE);
	expect_line(t, shown, (const char *const[]){ "20.00%", "30.00%", NULL });
	assert_null(strstr(t, "_ZN6detail"));
	free(t);
	char *f = render(PROFILE_BY_SYMBOL, false, 0, 0, OUT_FOLDED);
	assert_non_null(strstr(f, "main;detail::helper(std::vector<int, std::allocator<int> >"
			       " const&);main 10\n"));
	free(f);
	char *j = render(PROFILE_BY_SYMBOL, true, 0, 0, OUT_JSON);
	assert_non_null(strstr(j, "\"symbol\": \"detail::helper(std::vector<int, "
			       "std::allocator<int> > const&)\", \"samples\": 20,"));
	/* JSON keeps the stored name beside the shown one. */
	assert_non_null(strstr(j, "\"mangled\": \"_ZN6detail6helperERKSt6vectorIiSaIiEE\""));
	assert_non_null(strstr(j, "\"path\": \"main -> detail::helper(std::vector<int, "));
	free(j);
	struct profile_opts o = { .by = PROFILE_BY_SYMBOL, .event = 0, .fmt = OUT_CSV,
				  .mangled = true };
	struct tu_buf b;
	report_profile(&run, &prof, &o, tu_buf_open(&b));
	char *c = (char *)tu_buf_close(&b);
	assert_non_null(strstr(c, ",_ZN6detail6helperERKSt6vectorIiSaIiEE,20,"));
	assert_null(strstr(c, "detail::helper"));
	free(c);
	syms[4].name = names[4];
}

/*
 * A stripped library and a frame-pointer walk through it. Modules: 1
 * /bin/app, 2 /lib/libz.so, 3 [unknown] (no mapping). Symbols: 1 main
 * (1), 2 none (2), 3 none (3), 4 deflate (2). Frames: 1 main, 2 libz
 * 0x1130, 3 libz 0x1134, 4 libz 0x2200, 5 0x7ffd1234 in no mapping, 6
 * deflate. Nodes: 1 main; 2 main;deflate; 3 ...;0x1130; 4 ...;0x1134;
 * 5 the unmapped address, outermost; 6 5;0x2200; 7 5;0x1130.
 * Samples (weight 1): node 3 x40, 4 x30, 6 x20, 7 x5, 5 x5. So by
 * address: libz.so+0x1130 45 (40 + 5 whose chain was cut), +0x1134 30,
 * +0x2200 20, 0x7ffd1234 5 (a leaf in no mapping is kept); deflate and
 * main total 70; 25 samples' chains cut. With libz's .text at
 * [0x1000, 0x2000): libz.so:.text 75, and 0x2200, in no section, 20.
 */
static char *z_mods[] = { "/bin/app", "/lib/libz.so", "[unknown]" };
static char *z_bids[] = { NULL, NULL, NULL };
static struct db_symbol z_syms[] = { { 1, "main" }, { 2, NULL }, { 3, NULL },
				     { 2, "deflate" } };
static struct db_frame z_frames[] = { FR(1, 0x10), FR(2, 0x1130), FR(2, 0x1134),
				      FR(2, 0x2200), FR(3, 0x7ffd1234), FR(4, 0x5) };
static struct db_stack_node z_stacks[] = { { 0, 1 }, { 1, 6 }, { 2, 2 }, { 2, 3 },
					   { 0, 5 }, { 5, 4 }, { 5, 2 } };
static struct db_stack_count z_counts[] = {
	{ 0, 0, 3, 40, 40 }, { 0, 0, 4, 30, 30 }, { 0, 0, 6, 20, 20 },
	{ 0, 0, 7, 5, 5 }, { 0, 0, 5, 5, 5 },
};
static struct db_sample_event z_events[] = {
	{ .name = "cpu-clock", .attr_type = 1, .attr_config = 0, .freq = 1000,
	  .call_graph = "fp" },
};

static char *render_z(enum profile_by by, enum out_format fmt, enum profile_unknown unk,
		      const struct profile_sections *secs)
{
	struct db_profile z = {
		.run_id = 9, .nevents = 1, .events = z_events,
		.nmodules = 3, .modules = z_mods, .build_ids = z_bids,
		.nsymbols = 4, .symbols = z_syms, .nframes = 6, .frames = z_frames,
		.nstacks = 7, .stacks = z_stacks, .ncounts = 5, .counts = z_counts,
	};
	struct profile_opts o = { .by = by, .event = -1, .fmt = fmt, .unknown = unk,
				  .sections = secs };
	struct tu_buf b;
	report_profile(&run, &z, &o, tu_buf_open(&b));
	return (char *)tu_buf_close(&b);
}

static void test_profile__unknown_code_by_address(void **state)
{
	(void)state;
	char *t = render_z(PROFILE_BY_SYMBOL, OUT_TABLE, PROFILE_UNKNOWN_ADDRESS, NULL);
	expect_line(t, "libz.so+0x1130", (const char *const[]){ "45.00%", "45.00%", "45",
								  NULL });
	expect_line(t, "libz.so+0x1134", (const char *const[]){ "30.00%", NULL });
	expect_line(t, "libz.so+0x2200", (const char *const[]){ "20.00%", "20.00%", NULL });
	expect_line(t, " 0x7ffd1234", (const char *const[]){ "5.00%", "[unknown]", NULL });
	expect_line(t, "deflate", (const char *const[]){ "0.00%", "70.00%", NULL });
	expect_line(t, " main", (const char *const[]){ "0.00%", "70.00%", NULL });
	/* The cut chains are counted and explained, with the way out. */
	assert_non_null(strstr(t, "call chains of 25 samples (25.00%) end at a caller in "
			       "no known mapping"));
	assert_non_null(strstr(t, "--call-graph dwarf"));
	free(t);
	/* By module the unmapped junk carries no total: only its leaf. */
	t = render_z(PROFILE_BY_MODULE, OUT_TABLE, PROFILE_UNKNOWN_ADDRESS, NULL);
	expect_line(t, "libz.so", (const char *const[]){ "95.00%", "95.00%", NULL });
	expect_line(t, "[unknown]", (const char *const[]){ "5.00%", "5.00%", NULL });
	expect_line(t, " app", (const char *const[]){ "0.00%", "70.00%", NULL });
	free(t);
	char *f = render_z(PROFILE_BY_SYMBOL, OUT_FOLDED, PROFILE_UNKNOWN_ADDRESS, NULL);
	assert_string_equal(f, "0x7ffd1234 5\n"
			       "libz.so+0x1130 5\n"
			       "libz.so+0x2200 20\n"
			       "main;deflate;libz.so+0x1130 40\n"
			       "main;deflate;libz.so+0x1134 30\n");
	free(f);
	char *j = render_z(PROFILE_BY_SYMBOL, OUT_JSON, PROFILE_UNKNOWN_ADDRESS, NULL);
	assert_non_null(strstr(j, "{\"module\": \"/lib/libz.so\", \"symbol\": "
			       "\"libz.so+0x1130\", \"samples\": 45,"));
	assert_non_null(strstr(j, "\"offset\": \"0x1130\"}"));
	assert_non_null(strstr(j, "\"chains_cut\": 25"));
	free(j);
}

static void test_profile__unknown_code_by_section(void **state)
{
	(void)state;
	static const struct profile_section libz[] = {
		{ ".init", 0x800, 0x900 }, { ".text", 0x1000, 0x2000 },
	};
	const struct profile_sections secs[] = { { 0, NULL }, { 2, libz }, { 0, NULL } };
	char *t = render_z(PROFILE_BY_SYMBOL, OUT_TABLE, PROFILE_UNKNOWN_SECTION, secs);
	expect_line(t, "libz.so:.text", (const char *const[]){ "75.00%", "75", NULL });
	/* An address in no section stays an address. */
	expect_line(t, "libz.so+0x2200", (const char *const[]){ "20.00%", NULL });
	assert_null(strstr(t, "+0x1130"));
	free(t);
	char *c = render_z(PROFILE_BY_SYMBOL, OUT_CSV, PROFILE_UNKNOWN_SECTION, secs);
	assert_non_null(strstr(c, "cpu-clock,/lib/libz.so,libz.so:.text,75,75,"));
	assert_non_null(strstr(c, ",.text,\n"));	/* the section column */
	free(c);
	char *j = render_z(PROFILE_BY_SYMBOL, OUT_JSON, PROFILE_UNKNOWN_SECTION, secs);
	assert_non_null(strstr(j, "\"symbol\": \"libz.so:.text\", \"samples\": 75,"));
	assert_non_null(strstr(j, "\"section\": \".text\"}"));
	free(j);
	/* Without the sections, section mode falls back to addresses. */
	t = render_z(PROFILE_BY_SYMBOL, OUT_TABLE, PROFILE_UNKNOWN_SECTION, NULL);
	expect_line(t, "libz.so+0x1130", (const char *const[]){ "45.00%", NULL });
	free(t);
	enum profile_unknown u;
	assert_int_equal(profile_unknown_parse("section", &u), 0);
	assert_int_equal(u, PROFILE_UNKNOWN_SECTION);
	assert_int_equal(profile_unknown_parse("address", &u), 0);
	assert_int_equal(u, PROFILE_UNKNOWN_ADDRESS);
	assert_int_equal(profile_unknown_parse("symbol", &u), -EINVAL);
}

static void test_profile__parse_and_short_names(void **state)
{
	(void)state;
	enum profile_by by;
	assert_int_equal(profile_by_parse("module", &by), 0);
	assert_int_equal(by, PROFILE_BY_MODULE);
	assert_int_equal(profile_by_parse("total", &by), -EINVAL);
	assert_string_equal(profile_module_short("/usr/lib/libc.so.6"), "libc.so.6");
	assert_string_equal(profile_module_short("[kernel.kallsyms]"), "[kernel.kallsyms]");
	assert_string_equal(profile_by_name(PROFILE_BY_NAME), "name");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile__by_symbol_self_and_total),
		cmocka_unit_test(test_profile__by_module_thread_and_name),
		cmocka_unit_test(test_profile__json_contract),
		cmocka_unit_test(test_profile__folded_and_stacks),
		cmocka_unit_test(test_profile__folded_marks_kernel_frames),
		cmocka_unit_test(test_profile__by_line),
		cmocka_unit_test(test_profile__inlined_functions_in_paths),
		cmocka_unit_test(test_profile__demangled_unless_asked),
		cmocka_unit_test(test_profile__unknown_code_by_address),
		cmocka_unit_test(test_profile__unknown_code_by_section),
		cmocka_unit_test(test_profile__parse_and_short_names),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
