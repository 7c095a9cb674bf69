/*
 * Tests for collectors/recorder: decoded records in, interned modules,
 * symbols, frames, call-stack nodes and samples out. Frame-pointer chains
 * are made by hand (kernel markers, a kernel leaf, return addresses); a
 * DWARF sample is the register set and stack captured from
 * tests/helpers/record/unwind_target.c (built here without frame
 * pointers), fed as the kernel would deliver it, with the program's own
 * mappings as MMAP2 records. Also: address spaces across fork and exec,
 * samples of unknown events, lost records, and the bounded queue of the
 * threaded mode dropping and counting what does not fit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/mman.h>

#include "collectors/recorder.h"
#include "test_util.h"
#include "text_segment.h"
#include "unwind_capture.h"

/* ---- a sink that keeps everything ------------------------------------- */

struct got {
	char *modules[64];
	uint32_t nmodules;
	uint32_t sym_module[256];
	char *sym_name[256];
	uint32_t nsymbols;
	uint32_t frame_symbol[1024];
	uint64_t frame_offset[1024];
	uint32_t nframes;
	uint32_t stack_parent[1024], stack_frame[1024];
	uint32_t nstacks;
	struct recorder_sample samples[256];
	uint32_t nsamples;
	int idles;
	int fail_samples;	/* return this from sample() */
};

static int on_module(void *arg, uint32_t id, const char *path, const char *bid)
{
	struct got *g = arg;
	(void)bid;
	assert_int_equal(id, g->nmodules + 1);
	g->modules[g->nmodules++] = strdup(path);
	return 0;
}

static int on_symbol(void *arg, uint32_t id, uint32_t module, const char *name)
{
	struct got *g = arg;
	assert_int_equal(id, g->nsymbols + 1);
	assert_true(module >= 1 && module <= g->nmodules);
	g->sym_module[g->nsymbols] = module;
	g->sym_name[g->nsymbols++] = name ? strdup(name) : NULL;
	return 0;
}

static int on_frame(void *arg, uint32_t id, uint32_t symbol, uint64_t offset)
{
	struct got *g = arg;
	assert_int_equal(id, g->nframes + 1);
	assert_true(symbol >= 1 && symbol <= g->nsymbols);
	g->frame_symbol[g->nframes] = symbol;
	g->frame_offset[g->nframes++] = offset;
	return 0;
}

static int on_stack(void *arg, uint32_t id, uint32_t parent, uint32_t frame)
{
	struct got *g = arg;
	assert_int_equal(id, g->nstacks + 1);
	assert_true(parent < id);
	assert_true(frame >= 1 && frame <= g->nframes);
	g->stack_parent[g->nstacks] = parent;
	g->stack_frame[g->nstacks++] = frame;
	return 0;
}

static int on_sample(void *arg, const struct recorder_sample *s)
{
	struct got *g = arg;
	if (g->fail_samples)
		return g->fail_samples;
	assert_true(s->stack >= 1 && s->stack <= g->nstacks);
	if (g->nsamples < 256)
		g->samples[g->nsamples++] = *s;
	return 0;
}

static int on_idle(void *arg)
{
	struct got *g = arg;
	g->idles++;
	return 0;
}

static void got_release(struct got *g)
{
	for (uint32_t i = 0; i < g->nmodules; i++)
		free(g->modules[i]);
	for (uint32_t i = 0; i < g->nsymbols; i++)
		free(g->sym_name[i]);
	memset(g, 0, sizeof(*g));
}

/* The symbol name of frame id f ("[unknown]" for none). */
static const char *frame_name(const struct got *g, uint32_t f)
{
	const char *n = g->sym_name[g->frame_symbol[f - 1] - 1];
	return n ? n : "[unknown]";
}

static const char *frame_module(const struct got *g, uint32_t f)
{
	return g->modules[g->sym_module[g->frame_symbol[f - 1] - 1] - 1];
}

/* A stack as "leaf<caller<...". */
static void stack_text(const struct got *g, uint32_t node, char *buf, size_t n)
{
	buf[0] = '\0';
	size_t len = 0;
	for (; node; node = g->stack_parent[node - 1]) {
		int w = snprintf(buf + len, n - len, "%s%s", len ? "<" : "",
				 frame_name(g, g->stack_frame[node - 1]));
		if (w < 0 || (size_t)w >= n - len)
			break;
		len += (size_t)w;
	}
}

static struct recorder *mk_with(struct got *g, enum call_graph cg, bool sync,
				size_t queue_bytes, const char *kallsyms, bool no_kernel)
{
	memset(g, 0, sizeof(*g));
	struct recorder_opts o = {
		.call_graph = cg, .nevents = 2, .queue_bytes = queue_bytes,
		.kallsyms = kallsyms, .perf_map_dir = "/nonexistent",
		.synchronous = sync, .no_kernel = no_kernel,
		.sink = { on_module, on_symbol, on_frame, on_stack, on_sample,
			  on_idle, g, NULL },
	};
	struct recorder *r = recorder_new(&o);
	assert_non_null(r);
	assert_int_equal(recorder_map_id(r, 100, 0), 0);
	assert_int_equal(recorder_map_id(r, 200, 1), 0);
	return r;
}

static struct recorder *mk(struct got *g, enum call_graph cg, bool sync,
			   size_t queue_bytes)
{
	return mk_with(g, cg, sync, queue_bytes, "", false);
}

/* ---- records ------------------------------------------------------------ */

static void feed_mmap(struct recorder *r, uint32_t pid, uint64_t start, uint64_t len,
		      uint64_t pgoff, const char *path, uint32_t prot)
{
	struct perf_rec rec;
	memset(&rec, 0, sizeof(rec));
	rec.type = PERF_RECORD_MMAP2;
	rec.u.mmap.pid = rec.u.mmap.tid = pid;
	rec.u.mmap.addr = start;
	rec.u.mmap.len = len;
	rec.u.mmap.pgoff = pgoff;
	rec.u.mmap.prot = prot;
	rec.u.mmap.filename = path;
	recorder_on_record(&rec, 0, r);
}

static void feed_fp(struct recorder *r, uint32_t pid, uint64_t id, uint16_t misc,
		    uint64_t ip, const uint64_t *chain, size_t n, uint64_t period)
{
	struct perf_rec rec;
	memset(&rec, 0, sizeof(rec));
	rec.type = PERF_RECORD_SAMPLE;
	rec.misc = misc;
	rec.u.sample.identifier = id;
	rec.u.sample.ip = ip;
	rec.u.sample.pid = pid;
	rec.u.sample.tid = pid + 1;
	rec.u.sample.cpu = 1;
	rec.u.sample.time = 1000 + ip;
	rec.u.sample.period = period;
	rec.u.sample.nr_callchain = n;
	rec.u.sample.callchain = chain;
	recorder_on_record(&rec, 0, r);
}

/* A program with three functions, built here; their vaddrs from nm. */
static char *dir;
static char prog[512];
static uint64_t va_a, va_b, va_main;
static uint64_t text_page, text_len;	/* its text (text_segment.h) */
static bool have_cc;

static uint64_t nm_addr(const char *name)
{
	char *cmd;
	if (asprintf(&cmd, "nm '%s' | awk '$3 == \"%s\" { print $1 }'", prog, name) < 0)
		abort();
	FILE *p = popen(cmd, "r");
	free(cmd);
	unsigned long long a = 0;
	if (fscanf(p, "%llx", &a) != 1)
		a = 0;
	pclose(p);
	return a;
}

static int setup(void **state)
{
	(void)state;
	dir = tu_tmpdir();
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	char *cmd;
	if (asprintf(&cmd, "cd '%s' && printf '%%s\\n' "
		     "'__attribute__((noinline)) int fa(int x) { return x * 3 + 1; }' "
		     "'__attribute__((noinline)) int fb(int x) { return fa(x) + fa(x + 1); }' "
		     "'int main(int c, char **v) { (void)v; return fb(c); }' > p.c && "
		     "cc -O1 -o prog p.c", dir) < 0)
		abort();
	have_cc = system(cmd) == 0;
	free(cmd);
	if (have_cc) {
		va_a = nm_addr("fa");
		va_b = nm_addr("fb");
		va_main = nm_addr("main");
		have_cc = va_a && va_b && va_main &&
			  ts_text_segment(prog, &text_page, &text_len);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(dir);
	free(dir);
	return 0;
}

/* Runtime = vaddr + BASE for the text segment mapped at BASE + its vaddr
 * from its file offset (gcc's PIE layout: vaddr == offset). x86-64's ld
 * puts the text at 0x1000 on a page of its own, arm64's at 0 with the ELF
 * header: the segment is read from the program. */
#define BASE 0x555500000000ull
#define RT(va) (BASE + (va))

static void test_recorder__fp_chains_become_stacks(void **state)
{
	(void)state;
	if (!have_cc)
		skip();
	struct got g;
	struct recorder *r = mk(&g, CALL_GRAPH_FP, true, 0);
	feed_mmap(r, 10, BASE + text_page, text_len, text_page, prog, PROT_READ | PROT_EXEC);
	/* A data mapping is not a code mapping: ignored. */
	feed_mmap(r, 10, BASE + 0x4000, 0x1000, 0x3000, prog, PROT_READ | PROT_WRITE);
	const uint64_t U = (uint64_t)PERF_CONTEXT_USER;
	/* fa's first byte sampled, called from fb (return address = the byte
	 * after the call, somewhere inside fb), called from main. Return
	 * addresses one past a function's end would name the next function
	 * without the one-byte step back; fb + 1 stands in for "inside". */
	uint64_t chain1[] = { U, RT(va_a), RT(va_b) + 1, RT(va_main) + 1 };
	feed_fp(r, 10, 100, PERF_RECORD_MISC_USER, RT(va_a), chain1, 4, 1000);
	feed_fp(r, 10, 100, PERF_RECORD_MISC_USER, RT(va_a), chain1, 4, 1000);
	/* The same path sampled by the second event. */
	feed_fp(r, 10, 200, PERF_RECORD_MISC_USER, RT(va_a), chain1, 4, 7);
	/* A kernel leaf: the sample's ip is the kernel's, the chain holds
	 * only the user part (exclude_callchain_kernel). */
	uint64_t chain2[] = { U, RT(va_b) + 4, RT(va_main) + 1 };
	feed_fp(r, 10, 100, PERF_RECORD_MISC_KERNEL, 0xffffffff81000000ull, chain2, 3,
		1000);
	/* An id no sampler has. */
	feed_fp(r, 10, 999, PERF_RECORD_MISC_USER, RT(va_a), chain1, 4, 1);
	assert_int_equal(recorder_finish(r, NULL), 0);

	assert_int_equal(g.nsamples, 4);
	assert_int_equal(g.samples[0].stack, g.samples[1].stack);
	assert_int_equal(g.samples[0].stack, g.samples[2].stack);
	assert_int_equal(g.samples[0].event, 0);
	assert_int_equal(g.samples[2].event, 1);
	assert_int_equal(g.samples[2].weight, 7);
	assert_int_equal(g.samples[0].pid, 10);
	assert_int_equal(g.samples[0].tid, 11);
	char buf[256];
	stack_text(&g, g.samples[0].stack, buf, sizeof(buf));
	assert_string_equal(buf, "fa<fb<main");
	stack_text(&g, g.samples[3].stack, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]<fb<main");
	/* Shared callers share nodes: fb<main is one node for both. */
	uint32_t n0 = g.stack_parent[g.samples[0].stack - 1];
	uint32_t n3 = g.stack_parent[g.samples[3].stack - 1];
	assert_int_equal(g.stack_parent[n0 - 1], g.stack_parent[n3 - 1]);
	assert_int_equal(g.nstacks, 5);	/* main, fb, fa, fb', kernel */
	/* Offsets: the leaf at its own address; callers one byte back. */
	uint32_t leaf = g.stack_frame[g.samples[0].stack - 1];
	assert_int_equal(g.frame_offset[leaf - 1], 0);
	uint32_t caller = g.stack_frame[n0 - 1];
	assert_string_equal(frame_name(&g, caller), "fb");
	assert_int_equal(g.frame_offset[caller - 1], 0);
	assert_string_equal(frame_module(&g, caller), prog);
	uint32_t kleaf = g.stack_frame[g.samples[3].stack - 1];
	assert_string_equal(frame_module(&g, kleaf), "[kernel.kallsyms]");

	struct recorder_stats st;
	recorder_stats(r, &st);
	assert_int_equal(st.samples, 4);
	assert_int_equal(st.unknown_id, 1);
	assert_int_equal(st.event_samples[0], 3);
	assert_int_equal(st.event_samples[1], 1);
	assert_int_equal(st.modules, 2);
	assert_int_equal(g.idles, 1);
	recorder_free(r);
	got_release(&g);
}

/*
 * A whole chain as the kernel writes it without exclude_callchain_kernel:
 * PERF_CONTEXT_KERNEL, the kernel frames (the sampled ip first), then
 * PERF_CONTEXT_USER and the user frames. Every kernel frame is kept,
 * named from kallsyms (kernel callers one byte back, as user ones);
 * --no-kernel drops them, and the sample lands on its user frames.
 */
static void test_recorder__kernel_chains_kept_whole(void **state)
{
	(void)state;
	if (!have_cc)
		skip();
	char ks[600];
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	FILE *f = fopen(ks, "w");
	fputs("ffffffff81000000 T entry_SYSCALL_64\n"
	      "ffffffff81000100 T do_syscall_64\n"
	      "ffffffff81000200 t ksys_write\n"
	      "ffffffff81000300 T vfs_write\n"
	      "ffffffff81000400 D some_data\n", f);
	fclose(f);
	const uint64_t K = (uint64_t)PERF_CONTEXT_KERNEL, U = (uint64_t)PERF_CONTEXT_USER;
	/* vfs_write's first byte sampled; callers' return addresses one past
	 * a call that ends its function (ksys_write's call at its end: one
	 * byte back stays in it). */
	uint64_t chain[] = { K, 0xffffffff81000300ull, 0xffffffff81000300ull,
			     0xffffffff81000150ull, 0xffffffff81000010ull,
			     U, RT(va_b) + 4, RT(va_main) + 1 };
	for (int nk = 0; nk < 2; nk++) {
		struct got g;
		struct recorder *r = mk_with(&g, CALL_GRAPH_FP, true, 0, ks, nk);
		feed_mmap(r, 10, BASE + text_page, text_len, text_page, prog,
			  PROT_READ | PROT_EXEC);
		feed_fp(r, 10, 100, PERF_RECORD_MISC_KERNEL, 0xffffffff81000300ull, chain,
			8, 1000);
		/* A kernel thread: kernel frames alone. */
		uint64_t kthread[] = { K, 0xffffffff81000110ull, 0xffffffff81000010ull };
		feed_fp(r, 10, 100, PERF_RECORD_MISC_KERNEL, 0xffffffff81000110ull, kthread,
			3, 1000);
		assert_int_equal(recorder_finish(r, NULL), 0);
		assert_int_equal(g.nsamples, 2);
		char buf[256];
		stack_text(&g, g.samples[0].stack, buf, sizeof(buf));
		struct recorder_stats st;
		recorder_stats(r, &st);
		if (!nk) {
			assert_string_equal(buf, "vfs_write<ksys_write<do_syscall_64<"
					    "entry_SYSCALL_64<fb<main");
			uint32_t leaf = g.stack_frame[g.samples[0].stack - 1];
			assert_string_equal(frame_module(&g, leaf), "[kernel.kallsyms]");
			assert_int_equal(g.frame_offset[leaf - 1], 0);
			stack_text(&g, g.samples[1].stack, buf, sizeof(buf));
			assert_string_equal(buf, "do_syscall_64<entry_SYSCALL_64");
			assert_int_equal(st.kernel_frames, 6);
		} else {
			assert_string_equal(buf, "fb<main");
			/* Nothing but the kernel to land on: its leaf. */
			stack_text(&g, g.samples[1].stack, buf, sizeof(buf));
			assert_string_equal(buf, "do_syscall_64");
			assert_int_equal(st.kernel_frames, 0);
		}
		assert_int_equal(symbolizer_kernel_state(recorder_symbolizer(r)),
				 SYM_KERNEL_NAMED);
		recorder_free(r);
		got_release(&g);
	}
}

static void test_recorder__fork_copies_and_exec_clears_the_space(void **state)
{
	(void)state;
	if (!have_cc)
		skip();
	struct got g;
	struct recorder *r = mk(&g, CALL_GRAPH_NONE, true, 0);
	feed_mmap(r, 10, BASE + text_page, text_len, text_page, prog, PROT_READ | PROT_EXEC);
	struct perf_rec rec;
	memset(&rec, 0, sizeof(rec));
	rec.type = PERF_RECORD_FORK;
	rec.u.task.pid = 20;
	rec.u.task.ppid = 10;
	rec.u.task.tid = 20;
	rec.u.task.ptid = 10;
	recorder_on_record(&rec, 0, r);
	/* The child runs fa through the copy of its parent's space. */
	feed_fp(r, 20, 100, PERF_RECORD_MISC_USER, RT(va_a) + 3, NULL, 0, 1);
	/* The child execs: its old mappings are gone. */
	memset(&rec, 0, sizeof(rec));
	rec.type = PERF_RECORD_COMM;
	rec.misc = PERF_RECORD_MISC_COMM_EXEC;
	rec.u.comm.pid = rec.u.comm.tid = 20;
	rec.u.comm.comm = "other";
	recorder_on_record(&rec, 0, r);
	feed_fp(r, 20, 100, PERF_RECORD_MISC_USER, RT(va_a) + 3, NULL, 0, 1);
	/* The parent keeps its own. */
	feed_fp(r, 10, 100, PERF_RECORD_MISC_USER, RT(va_a) + 3, NULL, 0, 1);
	assert_int_equal(recorder_finish(r, NULL), 0);
	assert_int_equal(g.nsamples, 3);
	char buf[256];
	stack_text(&g, g.samples[0].stack, buf, sizeof(buf));
	assert_string_equal(buf, "fa");
	stack_text(&g, g.samples[1].stack, buf, sizeof(buf));
	assert_string_equal(buf, "[unknown]");
	uint32_t f = g.stack_frame[g.samples[1].stack - 1];
	assert_string_equal(frame_module(&g, f), "[unknown]");
	assert_int_equal(g.frame_offset[f - 1], RT(va_a) + 3);
	assert_int_equal(g.samples[2].stack, g.samples[0].stack);
	/* Symbolized once per distinct place: fa+3 in the file, and the
	 * unknown address of process 20. */
	struct recorder_stats st;
	recorder_stats(r, &st);
	assert_int_equal(st.distinct_addrs, 2);
	recorder_free(r);
	got_release(&g);
}

static void test_recorder__lost_and_sink_errors(void **state)
{
	(void)state;
	struct got g;
	struct recorder *r = mk(&g, CALL_GRAPH_NONE, true, 0);
	struct perf_rec rec;
	memset(&rec, 0, sizeof(rec));
	rec.type = PERF_RECORD_LOST;
	rec.u.lost.id = 200;
	rec.u.lost.lost = 17;
	recorder_on_record(&rec, 0, r);
	g.fail_samples = -ENOSPC;
	feed_fp(r, 10, 100, PERF_RECORD_MISC_USER, 0x1234, NULL, 0, 1);
	feed_fp(r, 10, 100, PERF_RECORD_MISC_USER, 0x1238, NULL, 0, 1);
	char *cause = NULL;
	assert_int_equal(recorder_finish(r, &cause), -ENOSPC);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "samples"));
	free(cause);
	struct recorder_stats st;
	recorder_stats(r, &st);
	assert_int_equal(st.lost, 17);
	assert_int_equal(st.event_lost[1], 17);
	assert_int_equal(st.samples, 0);
	recorder_free(r);
	got_release(&g);
}

static void test_recorder__threaded_queue_drops_what_does_not_fit(void **state)
{
	(void)state;
	struct got g;
	/* Room for a handful of records: with the worker not yet started,
	 * the rest is dropped and counted, never blocked on. */
	struct recorder *r = mk(&g, CALL_GRAPH_NONE, false, 4096);
	for (int i = 0; i < 200; i++)
		feed_fp(r, 10, 100, PERF_RECORD_MISC_USER, 0x1000 + (uint64_t)i, NULL, 0, 1);
	struct recorder_stats st;
	recorder_stats(r, &st);
	assert_true(st.dropped > 0);
	uint64_t dropped = st.dropped;
	assert_int_equal(recorder_start(r, NULL), 0);
	assert_int_equal(recorder_finish(r, NULL), 0);
	recorder_stats(r, &st);
	assert_int_equal(st.samples + st.dropped, 200);
	assert_int_equal(st.dropped, dropped);
	assert_int_equal(st.event_dropped[0], dropped);
	assert_int_equal(g.nsamples, st.samples);
	assert_true(st.max_queue_bytes <= 4096);
	assert_true(g.idles >= 1);
	recorder_free(r);
	got_release(&g);

	/* Samples of another sampler on the same buffer (prof record -I,
	 * --frames) take no room in the queue and are not "dropped". */
	r = mk(&g, CALL_GRAPH_NONE, false, 4096);
	for (int i = 0; i < 200; i++)
		feed_fp(r, 10, 999, PERF_RECORD_MISC_USER, 0x1000, NULL, 0, 1);
	feed_fp(r, 10, 100, PERF_RECORD_MISC_USER, 0x1000, NULL, 0, 1);
	assert_int_equal(recorder_start(r, NULL), 0);
	assert_int_equal(recorder_finish(r, NULL), 0);
	recorder_stats(r, &st);
	assert_int_equal(st.unknown_id, 200);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.samples, 1);
	recorder_free(r);
	got_release(&g);

	/* A started worker keeps up with a steady feed. */
	r = mk(&g, CALL_GRAPH_NONE, false, 0);
	assert_int_equal(recorder_start(r, NULL), 0);
	for (int i = 0; i < 200; i++)
		feed_fp(r, 10, 100, PERF_RECORD_MISC_USER, 0x1000 + (uint64_t)(i % 7),
			NULL, 0, 1);
	assert_int_equal(recorder_finish(r, NULL), 0);
	recorder_stats(r, &st);
	assert_int_equal(st.samples, 200);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.frames, 7);
	recorder_free(r);
	got_release(&g);
}

/* ---- a DWARF sample from a real capture ---------------------------------- */

static void test_recorder__dwarf_sample_unwinds_on_the_worker(void **state)
{
	(void)state;
	char *cmd;
	if (asprintf(&cmd, "command -v cc >/dev/null && cc -O1 -g -fomit-frame-pointer "
		     "-o '%s/ut' '%s/../helpers/record/unwind_target.c' && "
		     "'%s/ut' '%s/cap.bin' '%s/maps.txt'", dir, FIXTURES_DIR, dir, dir,
		     dir) < 0)
		abort();
	int rc = system(cmd);
	free(cmd);
	if (rc != 0)
		skip();
	char path[600];
	snprintf(path, sizeof(path), "%s/cap.bin", dir);
	FILE *fp = fopen(path, "rb");
	struct capture cap;
	assert_int_equal(fread(&cap, sizeof(cap), 1, fp), 1);
	uint8_t *stack = malloc(cap.stack_size);
	assert_int_equal(fread(stack, 1, cap.stack_size, fp), cap.stack_size);
	fclose(fp);

	struct got g;
	struct recorder *r = mk(&g, CALL_GRAPH_DWARF, false, 0);
	assert_int_equal(recorder_start(r, NULL), 0);
	snprintf(path, sizeof(path), "%s/maps.txt", dir);
	fp = fopen(path, "r");
	char line[1024];
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long a, b, off;
		char perms[8], name[600] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %599s", &a, &b, perms, &off,
			   name) >= 4 && perms[2] == 'x')
			feed_mmap(r, 33, a, b - a, off, name, PROT_READ | PROT_EXEC);
	}
	fclose(fp);
	struct perf_rec rec;
	memset(&rec, 0, sizeof(rec));
	rec.type = PERF_RECORD_SAMPLE;
	rec.misc = PERF_RECORD_MISC_USER;
	rec.u.sample.identifier = 100;
	rec.u.sample.ip = cap.regs[CAPTURE_IP];
	rec.u.sample.pid = rec.u.sample.tid = 33;
	rec.u.sample.period = 250000;
	rec.u.sample.abi = PERF_SAMPLE_REGS_ABI_64;
	rec.u.sample.regs = cap.regs;
	rec.u.sample.nregs = CAPTURE_NREGS;
	rec.u.sample.stack = stack;
	rec.u.sample.stack_size = 8192;
	rec.u.sample.stack_dyn_size = cap.stack_size;
	recorder_on_record(&rec, 0, r);
	/* The record's bytes go away as soon as the callback returns (the
	 * ring buffer is reused): the queue must hold its own copy. */
	memset(stack, 0xa5, cap.stack_size);
	memset(cap.regs, 0, sizeof(cap.regs));
	assert_int_equal(recorder_finish(r, NULL), 0);
	free(stack);
	assert_int_equal(g.nsamples, 1);
	char buf[512];
	stack_text(&g, g.samples[0].stack, buf, sizeof(buf));
	assert_non_null(strstr(buf, "level3<level2<level1<main<"));
	assert_non_null(strstr(buf, "<_start"));
	struct recorder_stats st;
	recorder_stats(r, &st);
	assert_int_equal(st.unwind.samples, 1);
	assert_int_equal(st.unwind.stops[UNWIND_STOP_END], 1);
	recorder_free(r);
	got_release(&g);
}

static void test_recorder__sampler_desc_and_rate(void **state)
{
	(void)state;
	struct event_desc ev;
	memset(&ev, 0, sizeof(ev));
	ev.name = "cpu-clock";
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	struct sample_plan p = { .freq = 999, .call_graph = CALL_GRAPH_DWARF };
	struct sampler_desc d;
	recorder_sampler_desc(&ev, &p, &d);
	assert_true(d.attr.freq);
	assert_int_equal(d.attr.sample_freq, 999);
	/* The kernel's part of the chain from the kernel, as perf asks. */
	assert_int_equal(d.attr.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			 PERF_SAMPLE_STACK_USER);
	assert_true(d.attr.exclude_callchain_user);
	assert_false(d.attr.exclude_callchain_kernel);
	assert_int_equal(d.attr.sample_regs_user, CAPTURE_REGS_MASK);
	assert_int_equal(d.attr.sample_stack_user, 8192);
	p.no_kernel = true;
	recorder_sampler_desc(&ev, &p, &d);
	assert_int_equal(d.attr.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	p = (struct sample_plan){ .period = 12345, .call_graph = CALL_GRAPH_FP,
				  .no_kernel = true };
	recorder_sampler_desc(&ev, &p, &d);
	assert_true(d.attr.exclude_callchain_kernel);
	p.no_kernel = false;
	recorder_sampler_desc(&ev, &p, &d);
	assert_false(d.attr.freq);
	assert_int_equal(d.attr.sample_period, 12345);
	assert_false(d.attr.exclude_callchain_kernel);
	assert_int_equal(d.attr.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CALLCHAIN);
	assert_true(recorder_max_sample_rate() > 0);
	assert_string_equal(call_graph_name(CALL_GRAPH_DWARF), "dwarf");
	/* The software clock can always be sampled (no PMU needed), where
	 * there is a perf_event_open at all. */
	char *cause = NULL;
	int rc = recorder_probe("cpu-clock", &d.attr, false, &cause);
	if (rc == -ENOSYS) {
		fprintf(stderr, "skip: perf_event_open is not implemented here "
			"(qemu-user does not emulate it)\n");
		free(cause);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_null(cause);
	/* A made-up software config is refused, named, with the hint. */
	struct perf_event_attr bad = d.attr;
	bad.config = 4242;
	assert_true(recorder_probe("bogus", &bad, false, &cause) < 0);
	assert_non_null(strstr(cause, "'bogus'"));
	assert_non_null(strstr(cause, "-e cpu-clock"));
	free(cause);
}

/* ---- recorded ring-buffer bytes ------------------------------------------- */

struct dump {
	struct ring_dump_header h;
	struct ring_dump_sampler sd[4];
	struct perf_rec_layout lay[4];
	uint8_t *bytes;		/* the records */
	size_t len;
};

static void dump_load(const char *name, struct dump *d)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/ring/%s", FIXTURES_DIR, name);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(&d->h, sizeof(d->h), 1, fp), 1);
	assert_memory_equal(d->h.magic, RING_DUMP_MAGIC, 8);
	for (uint32_t i = 0; i < d->h.nevents; i++) {
		struct ring_dump_event e;
		assert_int_equal(fread(&e, sizeof(e), 1, fp), 1);
	}
	assert_true(d->h.nsamplers >= 1 && d->h.nsamplers <= 4);
	for (uint32_t i = 0; i < d->h.nsamplers; i++) {
		assert_int_equal(fread(&d->sd[i], sizeof(d->sd[i]), 1, fp), 1);
		d->lay[i] = (struct perf_rec_layout){ d->sd[i].sample_type,
						      d->sd[i].read_format,
						      d->sd[i].regs_user_mask, 0 };
	}
	long at = ftell(fp);
	fseek(fp, 0, SEEK_END);
	d->len = (size_t)(ftell(fp) - at);
	fseek(fp, at, SEEK_SET);
	d->bytes = malloc(d->len);
	assert_int_equal(fread(d->bytes, 1, d->len, fp), d->len);
	fclose(fp);
}

static const struct perf_rec_layout *dump_layout(uint64_t id, void *arg)
{
	struct dump *d = arg;
	for (uint32_t i = 0; i < d->h.nsamplers; i++)
		if (d->sd[i].id == id)
			return &d->lay[i];
	return NULL;
}

static int dump_sampler(const struct dump *d, uint64_t id)
{
	for (uint32_t i = 0; i < d->h.nsamplers; i++)
		if (d->sd[i].id == id)
			return (int)i;
	return -1;
}

/*
 * Decode every record of a dump (checking what a sample of each call
 * graph must hold) and feed them to a synchronous recorder. counts[i]:
 * samples of sampler i.
 */
static void replay_with(struct dump *d, enum call_graph cg, const char *kallsyms,
			bool no_kernel, struct got *g, struct recorder_stats *st,
			uint64_t *counts, uint64_t *kept)
{
	struct recorder_opts o = {
		.call_graph = cg, .nevents = d->h.nsamplers, .kallsyms = kallsyms,
		.perf_map_dir = "/nonexistent", .synchronous = true,
		.no_kernel = no_kernel,
		.sink = { on_module, on_symbol, on_frame, on_stack, on_sample, on_idle, g,
			  NULL },
	};
	memset(g, 0, sizeof(*g));
	struct recorder *r = recorder_new(&o);
	for (uint32_t i = 0; i < d->h.nsamplers; i++)
		assert_int_equal(recorder_map_id(r, d->sd[i].id, i), 0);
	struct perf_rec_layout base = { d->h.sample_type, d->h.read_format, 0, 0 };
	size_t off = 0;
	while (off + sizeof(struct perf_event_header) <= d->len) {
		struct perf_event_header h;
		memcpy(&h, d->bytes + off, sizeof(h));
		assert_true(h.size >= sizeof(h) && off + h.size <= d->len);
		struct perf_rec rec;
		assert_int_equal(perf_rec_decode(d->bytes + off, h.size, &base, dump_layout,
						 d, &rec), 0);
		if (rec.type == PERF_RECORD_SAMPLE) {
			int si = dump_sampler(d, rec.u.sample.identifier);
			assert_true(si >= 0);
			counts[si]++;
			bool user = (rec.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
				    PERF_RECORD_MISC_USER;
			if (cg == CALL_GRAPH_FP && rec.u.sample.nr_callchain >= 2 &&
			    rec.u.sample.callchain[0] == (uint64_t)PERF_CONTEXT_KERNEL) {
				/* A kernel chain: the sampled ip first. */
				assert_false(user);
				assert_int_equal(rec.u.sample.callchain[1],
						 rec.u.sample.ip);
			} else if (cg == CALL_GRAPH_FP) {
				/* exclude_callchain_kernel, or a user sample:
				 * the user context marker, then the user
				 * frames, the first of them the sampled ip
				 * itself. */
				assert_true(rec.u.sample.nr_callchain >= 1);
				assert_int_equal(rec.u.sample.callchain[0],
						 (uint64_t)PERF_CONTEXT_USER);
				if (user) {
					assert_true(rec.u.sample.nr_callchain >= 2);
					assert_int_equal(rec.u.sample.callchain[1],
							 rec.u.sample.ip);
				}
			} else if (cg == CALL_GRAPH_DWARF) {
				/* The user registers in perf's x86-64 order (the
				 * fixtures were recorded there: IP is the 9th),
				 * then a 512-byte stack copy. */
				assert_int_equal(rec.u.sample.abi, PERF_SAMPLE_REGS_ABI_64);
				assert_int_equal(d->lay[si].regs_user_mask, 0xff0fffULL);
				assert_int_equal(rec.u.sample.nregs, 20);
				if (user)
					assert_int_equal(rec.u.sample.regs[8], rec.u.sample.ip);
				assert_int_equal(rec.u.sample.stack_size, 512);
				/* 0 where the kernel could not copy it. */
				assert_true(rec.u.sample.stack_dyn_size <= 512);
			}
		}
		recorder_on_record(&rec, 0, r);
		off += h.size;
	}
	assert_int_equal(off, d->len);
	assert_int_equal(recorder_finish(r, NULL), 0);
	recorder_stats(r, st);
	for (uint32_t i = 0; i < d->h.nsamplers; i++)
		kept[i] = st->event_samples[i];
	st->event_samples = st->event_dropped = st->event_lost = NULL;
	recorder_free(r);
}

static void replay(struct dump *d, enum call_graph cg, struct got *g,
		   struct recorder_stats *st, uint64_t *counts, uint64_t *kept)
{
	replay_with(d, cg, "", false, g, st, counts, kept);
}

static void test_recorder__replays_recorded_fp_bytes(void **state)
{
	(void)state;
	struct dump d;
	dump_load("record-fp.bin", &d);
	assert_int_equal(d.h.nsamplers, 1);
	assert_string_equal(d.sd[0].name, "cpu-clock");
	assert_true(d.lay[0].sample_type & PERF_SAMPLE_CALLCHAIN);
	struct got g;
	struct recorder_stats st;
	uint64_t counts[4] = { 0 }, kept[4] = { 0 };
	replay(&d, CALL_GRAPH_FP, &g, &st, counts, kept);
	/* record-fp.json: what prof stored from these bytes. */
	assert_int_equal(counts[0], 78);
	assert_int_equal(st.samples, 78);
	assert_int_equal(g.nsamples, 78);
	/* prof-demo has no frame pointers: its chains hold stray words,
	 * which make many distinct nodes but a fixed set of them. */
	assert_int_equal(st.stacks, 151);
	uint32_t distinct = 0;
	for (uint32_t i = 0; i < g.nsamples; i++) {
		bool seen = false;
		for (uint32_t j = 0; j < i && !seen; j++)
			seen = g.samples[j].stack == g.samples[i].stack;
		distinct += !seen;
	}
	assert_int_equal(distinct, 17);
	assert_int_equal(st.unknown_id, 0);
	got_release(&g);
	free(d.bytes);
}

static void test_recorder__replays_recorded_dwarf_bytes(void **state)
{
	(void)state;
	struct dump d;
	dump_load("record-dwarf.bin", &d);
	assert_int_equal(d.h.nsamplers, 2);
	assert_string_equal(d.sd[1].name, "page-faults");
	struct got g;
	struct recorder_stats st;
	uint64_t counts[4] = { 0 }, kept[4] = { 0 };
	replay(&d, CALL_GRAPH_DWARF, &g, &st, counts, kept);
	/* record-dwarf.json. The stacks themselves depend on the binaries
	 * of the build that captured it: only their presence is checked. */
	assert_int_equal(counts[0], 39);
	assert_int_equal(counts[1], 6);
	assert_int_equal(kept[0], 39);
	assert_int_equal(kept[1], 6);
	/* x86-64 registers: elsewhere the recorder keeps each sample at
	 * its ip and does not hand them to the unwinder. */
#if defined(__x86_64__)
	assert_int_equal(st.unwind.samples, 45);
#else
	assert_int_equal(st.unwind.samples, 0);
#endif
	assert_true(g.nstacks >= 1);
	for (uint32_t i = 0; i < g.nsamples; i++)
		assert_true(g.samples[i].stack >= 1);
	got_release(&g);
	free(d.bytes);
}

/* Kernel frames of a stack: how many, and whether they all sit at the
 * leaf side (no kernel frame called by user code). */
static uint32_t kernel_depth(const struct got *g, uint32_t node, bool *leaf_side)
{
	uint32_t k = 0;
	bool seen_user = false;
	*leaf_side = true;
	for (; node; node = g->stack_parent[node - 1]) {
		bool kern = !strcmp(frame_module(g, g->stack_frame[node - 1]),
				    "[kernel.kallsyms]");
		if (kern && seen_user)
			*leaf_side = false;
		seen_user |= !kern;
		k += kern;
	}
	return k;
}

/*
 * Recorded bytes of a kernel-heavy run (record-kernel.json: 100,000
 * small writes, chains with the kernel's part): every sample keeps its
 * whole kernel chain, leaf side, named from the kallsyms lines of that
 * boot; with no_kernel none is kept and every sample is still counted.
 */
static void test_recorder__replays_recorded_kernel_chains(void **state)
{
	(void)state;
	struct dump d;
	dump_load("record-kernel.bin", &d);
	assert_true(d.lay[0].sample_type & PERF_SAMPLE_CALLCHAIN);
	const char *ks = FIXTURES_DIR "/ring/record-kernel.kallsyms";
	for (int nk = 0; nk < 2; nk++) {
		struct got g;
		struct recorder_stats st;
		uint64_t counts[4] = { 0 }, kept[4] = { 0 };
		replay_with(&d, CALL_GRAPH_FP, ks, nk, &g, &st, counts, kept);
		assert_int_equal(counts[0], 153);
		assert_int_equal(st.samples, 153);
		uint32_t several = 0, max = 0, syscall_rooted = 0;
		for (uint32_t i = 0; i < g.nsamples; i++) {
			bool leaf_side;
			uint32_t k = kernel_depth(&g, g.samples[i].stack, &leaf_side);
			assert_true(leaf_side);
			several += k > 1;
			if (k > max)
				max = k;
			/* The outermost kernel frame of a write: the syscall
			 * entry. */
			uint32_t n = g.samples[i].stack, outer = 0;
			for (; n; n = g.stack_parent[n - 1])
				if (!strcmp(frame_module(&g, g.stack_frame[n - 1]),
					    "[kernel.kallsyms]"))
					outer = g.stack_frame[n - 1];
			if (outer && !strcmp(frame_name(&g, outer),
					     "entry_SYSCALL_64_after_hwframe"))
				syscall_rooted++;
		}
		for (uint32_t i = 0; i < g.nsymbols; i++)
			if (!strcmp(g.modules[g.sym_module[i] - 1], "[kernel.kallsyms]"))
				assert_non_null(g.sym_name[i]);
		fprintf(stderr, "  no_kernel %d: %u of %u samples with several kernel "
			"frames (deepest %u), %u rooted at the syscall entry\n", nk,
			several, g.nsamples, max, syscall_rooted);
		if (!nk) {
			assert_int_equal(several, 149);
			assert_true(max >= 8);
			assert_true(syscall_rooted >= 140);
			assert_true(st.kernel_frames > 149 * 2);
		} else {
			assert_int_equal(several, 0);
			assert_int_equal(st.kernel_frames, 0);
		}
		got_release(&g);
	}
	free(d.bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorder__fp_chains_become_stacks),
		cmocka_unit_test(test_recorder__kernel_chains_kept_whole),
		cmocka_unit_test(test_recorder__fork_copies_and_exec_clears_the_space),
		cmocka_unit_test(test_recorder__lost_and_sink_errors),
		cmocka_unit_test(test_recorder__threaded_queue_drops_what_does_not_fit),
		cmocka_unit_test(test_recorder__dwarf_sample_unwinds_on_the_worker),
		cmocka_unit_test(test_recorder__sampler_desc_and_rate),
		cmocka_unit_test(test_recorder__replays_recorded_fp_bytes),
		cmocka_unit_test(test_recorder__replays_recorded_dwarf_bytes),
		cmocka_unit_test(test_recorder__replays_recorded_kernel_chains),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
