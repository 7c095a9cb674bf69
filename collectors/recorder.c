/*
 * recorder: sampling events, and samples to call stacks on a worker
 * thread while the run goes on; see recorder.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/jitdump.h"
#include "collectors/procmaps.h"
#include "collectors/recorder.h"
#include "collectors/symbolize.h"
#include "common/errtext.h"

#define DEFAULT_QUEUE_BYTES (64u << 20)
#define DEFAULT_MAX_FRAMES 127
#define MAX_FRAMES_CAP 1024

const char *call_graph_name(enum call_graph cg)
{
	switch (cg) {
	case CALL_GRAPH_FP: return "fp";
	case CALL_GRAPH_DWARF: return "dwarf";
	default: return "none";
	}
}

/* ---- sampling events ------------------------------------------------- */

void recorder_sampler_desc(const struct event_desc *ev, const struct sample_plan *plan,
			   struct sampler_desc *out)
{
	memset(out, 0, sizeof(*out));
	out->name = ev->name;
	out->hardware = ev->hardware;
	struct perf_event_attr *a = &out->attr;
	*a = ev->attr;
	a->size = sizeof(*a);
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	if (plan->freq) {
		a->freq = 1;
		a->sample_freq = plan->freq;
	} else {
		a->freq = 0;
		a->sample_period = plan->period;
	}
	switch (plan->call_graph) {
	case CALL_GRAPH_FP:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_kernel = plan->no_kernel;
		break;
	case CALL_GRAPH_DWARF:
		/* The kernel's part of the chain from the kernel (as perf
		 * does), the user's from the registers and stack copy. */
		if (!plan->no_kernel) {
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
			a->exclude_callchain_user = 1;
		}
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = UNWIND_REGS_MASK;
		a->sample_stack_user = plan->stack_bytes ? plan->stack_bytes
							 : UNWIND_STACK_DEFAULT;
		break;
	default:
		break;
	}
}

int recorder_probe(const char *name, const struct perf_event_attr *attr,
		   bool hardware, char **cause)
{
	struct perf_event_attr a = *attr;
	a.size = sizeof(a);
	a.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !a.exclude_kernel) {
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	int err = errno;
	char *h = counters_open_hints(err, hardware);
	if (cause && asprintf(cause, "cannot sample '%s' on this machine: %s%s%s\n"
			      "hint: sample a software event instead: -e cpu-clock",
			      name, ERR_TEXT(err), h ? "\n" : "", h ? h : "") < 0)
		*cause = NULL;
	free(h);
	return -err;
}

long recorder_max_sample_rate(void)
{
	long v = -1;
	FILE *fp = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	if (fp) {
		if (fscanf(fp, "%ld", &v) != 1)
			v = -1;
		fclose(fp);
	}
	return v;
}

/* ---- a map of (u64, u64) -> u32 ---------------------------------------- */

struct pairmap {
	uint64_t *k1, *k2;
	uint32_t *v;		/* 0: empty slot */
	size_t cap, n;
};

static size_t pair_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return (size_t)h;
}

static uint32_t pairmap_get(const struct pairmap *m, uint64_t a, uint64_t b)
{
	if (!m->cap)
		return 0;
	size_t mask = m->cap - 1;
	for (size_t i = pair_hash(a, b) & mask; m->v[i]; i = (i + 1) & mask)
		if (m->k1[i] == a && m->k2[i] == b)
			return m->v[i];
	return 0;
}

static int pairmap_put(struct pairmap *m, uint64_t a, uint64_t b, uint32_t v)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 1024;
		struct pairmap nm = { calloc(ncap, 8), calloc(ncap, 8),
				      calloc(ncap, 4), ncap, 0 };
		if (!nm.k1 || !nm.k2 || !nm.v) {
			free(nm.k1);
			free(nm.k2);
			free(nm.v);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->v[i])
				pairmap_put(&nm, m->k1[i], m->k2[i], m->v[i]);
		free(m->k1);
		free(m->k2);
		free(m->v);
		*m = nm;
	}
	size_t mask = m->cap - 1;
	size_t i = pair_hash(a, b) & mask;
	while (m->v[i])
		i = (i + 1) & mask;
	m->k1[i] = a;
	m->k2[i] = b;
	m->v[i] = v;
	m->n++;
	return 0;
}

static void pairmap_release(struct pairmap *m)
{
	free(m->k1);
	free(m->k2);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* ---- the queue -------------------------------------------------------- */

struct qrec {
	struct qrec *next;
	size_t bytes;
	uint32_t type;
	uint16_t misc;
	uint32_t pid, tid, cpu;
	uint64_t time;
	union {
		struct {
			uint64_t ip, period, abi;
			uint32_t event;		/* the sampler's index, known on arrival */
			uint32_t nchain, nregs, stack_size;
		} s;
		struct { uint64_t start, len, pgoff; uint32_t prot; } m;
		struct { uint32_t ppid; } f;
	} u;
	uint64_t data[];	/* chain, regs, stack; or the mapping's path */
};

/* ---- the recorder ------------------------------------------------------ */

struct recorder {
	struct recorder_opts o;
	size_t max_frames;
	/* sampler ids: read-only once the run starts */
	uint64_t *ids;
	uint32_t *id_event;
	size_t nids;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct qrec *head, *tail;
	size_t queued_bytes;
	bool done, started;
	pthread_t worker;

	/* worker state */
	struct symbolizer *sym;
	struct unwinder *unw;
	struct proc_maps *maps;		/* every process's address space */
	struct pairmap addr_frame;	/* (where, address) -> frame */
	struct pairmap modules;		/* (path pointer, 0) -> module */
	struct pairmap symbols;		/* (module, name pointer) -> symbol */
	struct pairmap frames;		/* (symbol, offset) -> frame */
	struct pairmap stacks;		/* (parent, frame) -> stack node */
	uint32_t nmodules, nsymbols, nframes, nstacks;
	uint64_t *ips;
	bool *kernel;
	uint32_t *fids;
	int error;
	char *error_cause;
	uint64_t maps_gen;		/* bumped by every address-space change */
	uint64_t unw_gen;		/* maps_gen when the unwinder last flushed */
	uint32_t unw_pid;		/* the process it last walked */

	struct recorder_stats st;
};

static void stats_alloc(struct recorder *r)
{
	size_t n = r->o.nevents ? r->o.nevents : 1;
	r->st.event_samples = calloc(n, sizeof(uint64_t));
	r->st.event_dropped = calloc(n, sizeof(uint64_t));
	r->st.event_lost = calloc(n, sizeof(uint64_t));
}

struct recorder *recorder_new(const struct recorder_opts *opts)
{
	struct recorder *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->o = *opts;
	if (!r->o.queue_bytes)
		r->o.queue_bytes = DEFAULT_QUEUE_BYTES;
	r->max_frames = opts->max_frames ? opts->max_frames : DEFAULT_MAX_FRAMES;
	if (r->max_frames > MAX_FRAMES_CAP)
		r->max_frames = MAX_FRAMES_CAP;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	struct symbolizer_opts so = { opts->perf_map_dir, opts->kallsyms,
				      opts->debug_dir, opts->debuginfod, opts->lines };
	r->sym = symbolizer_new(&so);
	r->unw = r->sym ? unwinder_new(r->sym) : NULL;
	r->maps = proc_maps_new();
	r->ips = malloc((r->max_frames + 1) * sizeof(*r->ips));
	r->kernel = malloc((r->max_frames + 1) * sizeof(*r->kernel));
	r->fids = malloc((r->max_frames + 1) * sizeof(*r->fids));
	stats_alloc(r);
	if (!r->sym || !r->unw || !r->maps || !r->ips || !r->kernel || !r->fids ||
	    !r->st.event_samples || !r->st.event_dropped || !r->st.event_lost) {
		recorder_free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

static void queue_free_all(struct recorder *r)
{
	struct qrec *q = r->head;
	while (q) {
		struct qrec *next = q->next;
		free(q);
		q = next;
	}
	r->head = r->tail = NULL;
	r->queued_bytes = 0;
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	if (r->started && !r->done) {
		char *cause = NULL;
		recorder_finish(r, &cause);
		free(cause);
	}
	queue_free_all(r);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	unwinder_free(r->unw);
	symbolizer_free(r->sym);
	proc_maps_free(r->maps);
	pairmap_release(&r->addr_frame);
	pairmap_release(&r->modules);
	pairmap_release(&r->symbols);
	pairmap_release(&r->frames);
	pairmap_release(&r->stacks);
	free(r->ids);
	free(r->id_event);
	free(r->ips);
	free(r->kernel);
	free(r->fids);
	free(r->error_cause);
	free(r->st.event_samples);
	free(r->st.event_dropped);
	free(r->st.event_lost);
	free(r);
}

int recorder_map_id(struct recorder *r, uint64_t id, uint32_t event)
{
	uint64_t *a = realloc(r->ids, (r->nids + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	r->ids = a;
	uint32_t *b = realloc(r->id_event, (r->nids + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	r->id_event = b;
	r->ids[r->nids] = id;
	r->id_event[r->nids] = event;
	r->nids++;
	return 0;
}

static bool event_of(const struct recorder *r, uint64_t id, uint32_t *event)
{
	for (size_t i = 0; i < r->nids; i++) {
		if (r->ids[i] == id) {
			*event = r->id_event[i];
			return *event < r->o.nevents || r->o.nevents == 0;
		}
	}
	return false;
}

/* ---- interning (worker) ------------------------------------------------ */

/* The mapping of pid holding addr, as the symbolizer and unwinder take it. */
static const struct code_map *code_map_of(const struct proc_maps *pm, uint32_t pid,
					  uint64_t addr, struct code_map *out)
{
	const struct map_entry *e = proc_maps_lookup(pm, pid, addr, NULL);
	if (!e)
		return NULL;
	*out = (struct code_map){ e->start, e->len, e->pgoff, e->path };
	return out;
}

static int fail(struct recorder *r, int rc, const char *what)
{
	if (!r->error) {
		r->error = rc;
		if (asprintf(&r->error_cause, "cannot store the %s: %s", what,
			     ERR_TEXT(-rc)) < 0)
			r->error_cause = NULL;
	}
	return rc;
}

static uint32_t module_id(struct recorder *r, const char *path)
{
	uint32_t id = pairmap_get(&r->modules, (uintptr_t)path, 0);
	if (id)
		return id;
	id = ++r->nmodules;
	if (pairmap_put(&r->modules, (uintptr_t)path, 0, id))
		return fail(r, -ENOMEM, "modules"), 0;
	const char *bid = path[0] == '/' && !sym_path_is_anon(path)
			  ? symbolizer_build_id(r->sym, path) : NULL;
	int rc = r->o.sink.module ? r->o.sink.module(r->o.sink.arg, id, path, bid) : 0;
	if (rc)
		return fail(r, rc, "modules"), 0;
	return id;
}

static uint32_t symbol_id(struct recorder *r, uint32_t module, const char *name)
{
	uint32_t id = pairmap_get(&r->symbols, module, (uintptr_t)name);
	if (id)
		return id;
	id = ++r->nsymbols;
	if (pairmap_put(&r->symbols, module, (uintptr_t)name, id))
		return fail(r, -ENOMEM, "symbols"), 0;
	int rc = r->o.sink.symbol ? r->o.sink.symbol(r->o.sink.arg, id, module, name) : 0;
	if (rc)
		return fail(r, rc, "symbols"), 0;
	return id;
}

/* The frame of addr in process pid, symbolized once per distinct place. */
static uint32_t frame_of(struct recorder *r, uint32_t pid, uint64_t addr, bool kernel,
			 uint64_t time)
{
	struct code_map cm;
	const struct code_map *m = kernel ? NULL : code_map_of(r->maps, pid, addr, &cm);
	/* Where an address means the same thing: a file's offset is the
	 * same in every process that maps it; anything else is per process. */
	uint64_t where, key;
	if (kernel) {
		where = 1;
		key = addr;
	} else if (m && !sym_path_is_anon(m->path)) {
		where = (uintptr_t)m->path;
		key = addr - m->start + m->pgoff;
	} else {
		where = ((uint64_t)pid << 2) | 2;
		key = addr;
	}
	/* A JIT that writes a jitdump reuses addresses for other code: its
	 * frames are looked up at the sample's time, never from the cache. */
	bool timed = where & 2 && symbolizer_has_jitdump(r->sym, pid);
	uint32_t id = timed ? 0 : pairmap_get(&r->addr_frame, where, key);
	if (id)
		return id;
	struct sym_frame f;
	symbolizer_lookup_at(r->sym, pid, m, addr, kernel, time, &f);
	uint32_t mod = module_id(r, f.module);
	const char *name = f.symbol ? symbolizer_intern(r->sym, f.symbol) : NULL;
	uint32_t sym = mod ? symbol_id(r, mod, name) : 0;
	if (!sym)
		return 0;
	id = pairmap_get(&r->frames, sym, f.offset);
	if (!id) {
		id = ++r->nframes;
		if (pairmap_put(&r->frames, sym, f.offset, id))
			return fail(r, -ENOMEM, "frames"), 0;
		int rc = r->o.sink.frame ? r->o.sink.frame(r->o.sink.arg, id, sym, f.offset)
					 : 0;
		if (!rc && r->o.sink.frame_src && (f.src_file || f.src_function))
			rc = r->o.sink.frame_src(r->o.sink.arg, id, f.src_file, f.src_line,
						 f.src_function, f.src_inlines);
		if (rc)
			return fail(r, rc, "frames"), 0;
	}
	if (timed)
		return id;
	if (pairmap_put(&r->addr_frame, where, key, id))
		return fail(r, -ENOMEM, "frames"), 0;
	r->st.distinct_addrs++;
	return id;
}

static uint32_t stack_node(struct recorder *r, uint32_t parent, uint32_t frame)
{
	uint32_t id = pairmap_get(&r->stacks, parent, frame);
	if (id)
		return id;
	id = ++r->nstacks;
	if (pairmap_put(&r->stacks, parent, frame, id))
		return fail(r, -ENOMEM, "call stacks"), 0;
	int rc = r->o.sink.stack ? r->o.sink.stack(r->o.sink.arg, id, parent, frame) : 0;
	if (rc)
		return fail(r, rc, "call stacks"), 0;
	return id;
}

/* ---- processing (worker) ------------------------------------------------ */

struct find_arg {
	const struct proc_maps *pm;
	uint32_t pid;
	struct code_map buf;
};

static const struct code_map *find_map_cb(void *arg, uint64_t addr)
{
	struct find_arg *fa = arg;
	return code_map_of(fa->pm, fa->pid, addr, &fa->buf);
}

static bool is_kernel_sample(const struct qrec *q)
{
	uint16_t mode = q->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	return mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL ||
	       (mode == PERF_RECORD_MISC_CPUMODE_UNKNOWN && (int64_t)q->u.s.ip < 0);
}

/*
 * The kernel's part of a sample's call chain into r->ips, leaf first:
 * the entries after PERF_CONTEXT_KERNEL, up to the next context marker
 * (perf's layout: kernel frames, then PERF_CONTEXT_USER and the user's).
 * Returns how many.
 */
static size_t kernel_frames(struct recorder *r, const struct qrec *q,
			    const uint64_t *chain)
{
	size_t n = 0;
	bool in_kernel = false;
	for (uint32_t i = 0; i < q->u.s.nchain && n < r->max_frames; i++) {
		uint64_t v = chain[i];
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			if (in_kernel)
				break;
			in_kernel = v == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (!in_kernel)
			continue;
		r->ips[n] = v;
		r->kernel[n++] = true;
	}
	return n;
}

static void process_sample(struct recorder *r, const struct qrec *q)
{
	uint32_t event = q->u.s.event;
	size_t max = r->max_frames;
	bool kip = is_kernel_sample(q);
	const uint64_t *chain = q->data;
	const uint64_t *regs = q->data + q->u.s.nchain;
	const uint8_t *stack = (const uint8_t *)(regs + q->u.s.nregs);
	size_t n = r->o.no_kernel ? 0 : kernel_frames(r, q, chain);
	if (kip && !n && !r->o.no_kernel) {
		/* No kernel chain (none asked, or the kernel gave none): its
		 * leaf is the sample's own ip. */
		r->ips[n] = q->u.s.ip;
		r->kernel[n++] = true;
	}
	r->st.kernel_frames += n;
	size_t first_user = n;
	if (r->o.call_graph == CALL_GRAPH_FP && q->u.s.nchain) {
		bool user = false;
		for (uint32_t i = 0; i < q->u.s.nchain && n < max; i++) {
			uint64_t v = chain[i];
			if (v >= (uint64_t)PERF_CONTEXT_MAX) {
				user = v == (uint64_t)PERF_CONTEXT_USER;
				continue;
			}
			if (!user)
				continue;
			r->ips[n] = v;
			r->kernel[n++] = false;
		}
	} else if (r->o.call_graph == CALL_GRAPH_DWARF && q->u.s.abi && q->u.s.nregs) {
		if (q->pid != r->unw_pid || r->maps_gen != r->unw_gen) {
			unwinder_flush(r->unw);
			r->unw_pid = q->pid;
			r->unw_gen = r->maps_gen;
		}
		struct find_arg fa = { .pm = r->maps, .pid = q->pid };
		struct unwind_sample us = {
			.regs_mask = UNWIND_REGS_MASK, .regs = regs,
			.stack = stack, .stack_size = q->u.s.stack_size,
			.find_map = find_map_cb, .find_arg = &fa,
		};
		size_t got = unwinder_unwind(r->unw, &us, r->ips + n, max - n, NULL);
		for (size_t i = 0; i < got; i++)
			r->kernel[n + i] = false;
		n += got;
	}
	if (n == first_user && !kip) {
		r->ips[n] = q->u.s.ip;
		r->kernel[n++] = false;
	}
	if (!n) {
		/* --no-kernel, and a kernel sample with no user frame (a
		 * kernel thread): it still counts, at the kernel. */
		r->ips[n] = q->u.s.ip;
		r->kernel[n++] = true;
	}
	/* Callers are return addresses: look them up at the call, one
	 * byte back, so a call that ends a function names that function. */
	for (size_t i = 0; i < n; i++) {
		uint64_t a = r->ips[i];
		if (a && (r->kernel[i] ? i > 0 : i > first_user))
			a--;
		r->fids[i] = frame_of(r, q->pid, a, r->kernel[i], q->time);
		if (!r->fids[i])
			return;
	}
	uint32_t node = 0;
	for (size_t i = n; i-- > 0;) {
		node = stack_node(r, node, r->fids[i]);
		if (!node)
			return;
	}
	struct recorder_sample s = {
		.pid = q->pid, .tid = q->tid, .cpu = q->cpu, .time = q->time,
		.event = event, .weight = q->u.s.period, .stack = node,
	};
	int rc = r->o.sink.sample ? r->o.sink.sample(r->o.sink.arg, &s) : 0;
	if (rc) {
		fail(r, rc, "samples");
		return;
	}
	r->st.samples++;
	if (event < r->o.nevents)
		r->st.event_samples[event]++;
}

static void process(struct recorder *r, const struct qrec *q)
{
	if (r->error)
		return;
	if (q->type != PERF_RECORD_SAMPLE)
		r->maps_gen++;
	switch (q->type) {
	case PERF_RECORD_SAMPLE:
		process_sample(r, q);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_FORK:
	case PERF_RECORD_COMM: {
		/* The side-band as collectors/procmaps takes it. */
		struct perf_rec rec;
		memset(&rec, 0, sizeof(rec));
		rec.type = q->type;
		rec.misc = q->misc;
		if (q->type == PERF_RECORD_FORK) {
			rec.u.task.pid = q->pid;
			rec.u.task.tid = q->tid;
			rec.u.task.ppid = q->u.f.ppid;
		} else if (q->type == PERF_RECORD_COMM) {
			rec.u.comm.pid = q->pid;
			rec.u.comm.tid = q->tid;
			rec.u.comm.comm = "";
		} else {
			rec.u.mmap.pid = q->pid;
			rec.u.mmap.tid = q->tid;
			rec.u.mmap.addr = q->u.m.start;
			rec.u.mmap.len = q->u.m.len;
			rec.u.mmap.pgoff = q->u.m.pgoff;
			rec.u.mmap.prot = q->u.m.prot;
			rec.u.mmap.filename = (const char *)q->data;
		}
		if (proc_maps_feed(r->maps, &rec))
			fail(r, -ENOMEM, "address spaces");
		/* A JIT maps its jitdump (executable, so that it is seen):
		 * from now on its code is named from there. */
		if ((q->type == PERF_RECORD_MMAP || q->type == PERF_RECORD_MMAP2) &&
		    jitdump_path_is_dump(rec.u.mmap.filename, NULL) &&
		    symbolizer_add_jitdump(r->sym, q->pid, rec.u.mmap.filename))
			fail(r, -ENOMEM, "jitdumps");
		break;
	}
	default:
		break;
	}
}

/* ---- the draining side -------------------------------------------------- */

static struct qrec *copy_record(struct recorder *r, const struct perf_rec *rec)
{
	size_t extra = 0;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE: {
		const __typeof__(rec->u.sample) *s = &rec->u.sample;
		/* Registers other than the unwinder's set (a recording
		 * replayed on another architecture) are not unwound. */
		uint32_t nregs = s->abi && s->regs && r->o.call_graph == CALL_GRAPH_DWARF &&
				 s->nregs == __builtin_popcountll(UNWIND_REGS_MASK)
				 ? s->nregs : 0;
		uint32_t nchain = r->o.call_graph != CALL_GRAPH_NONE && s->callchain
				  ? (uint32_t)s->nr_callchain : 0;
		uint64_t stack = nregs && s->stack ? s->stack_dyn_size : 0;
		extra = (nchain + nregs) * 8 + ((stack + 7) & ~7ull);
		struct qrec *q = malloc(sizeof(*q) + extra);
		if (!q)
			return NULL;
		memset(q, 0, sizeof(*q));
		q->u.s.ip = s->ip;
		q->u.s.period = s->period;
		q->u.s.abi = s->abi;
		q->u.s.nchain = nchain;
		q->u.s.nregs = nregs;
		q->u.s.stack_size = (uint32_t)stack;
		q->pid = s->pid;
		q->tid = s->tid;
		q->cpu = s->cpu;
		q->time = s->time;
		if (nchain)
			memcpy(q->data, s->callchain, nchain * 8);
		if (nregs)
			memcpy(q->data + nchain, s->regs, nregs * 8);
		if (stack)
			memcpy(q->data + nchain + nregs, s->stack, stack);
		q->bytes = sizeof(*q) + extra;
		return q;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		const char *name = rec->u.mmap.filename ? rec->u.mmap.filename : "";
		size_t len = strlen(name) + 1;
		struct qrec *q = malloc(sizeof(*q) + ((len + 7) & ~(size_t)7));
		if (!q)
			return NULL;
		memset(q, 0, sizeof(*q));
		q->pid = rec->u.mmap.pid;
		q->tid = rec->u.mmap.tid;
		q->u.m.start = rec->u.mmap.addr;
		q->u.m.len = rec->u.mmap.len;
		q->u.m.pgoff = rec->u.mmap.pgoff;
		q->u.m.prot = rec->type == PERF_RECORD_MMAP2 ? rec->u.mmap.prot
							     : PROT_READ | PROT_EXEC;
		memcpy(q->data, name, len);
		q->bytes = sizeof(*q) + len;
		return q;
	}
	case PERF_RECORD_FORK: {
		struct qrec *q = calloc(1, sizeof(*q));
		if (!q)
			return NULL;
		q->pid = rec->u.task.pid;
		q->tid = rec->u.task.tid;
		q->u.f.ppid = rec->u.task.ppid;
		q->bytes = sizeof(*q);
		return q;
	}
	case PERF_RECORD_COMM: {
		struct qrec *q = calloc(1, sizeof(*q));
		if (!q)
			return NULL;
		q->pid = rec->u.comm.pid;
		q->tid = rec->u.comm.tid;
		q->bytes = sizeof(*q);
		return q;
	}
	default:
		return NULL;
	}
}

/* Which records the worker needs. */
static bool wanted(const struct recorder *r, const struct perf_rec *rec)
{
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		return true;
	case PERF_RECORD_MMAP2:
		/* Executable mappings only (a working-set run also asks for
		 * data mappings). */
		return (rec->u.mmap.prot & PROT_EXEC) != 0;
	case PERF_RECORD_MMAP:
		return !(rec->misc & PERF_RECORD_MISC_MMAP_DATA);
	case PERF_RECORD_FORK:
		/* A new process (not a thread) copies its parent's space. */
		return rec->u.task.pid != rec->u.task.ppid;
	case PERF_RECORD_COMM:
		return (rec->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
	default:
		(void)r;
		return false;
	}
}

void recorder_on_record(const struct perf_rec *rec, int origin, void *arg)
{
	(void)origin;
	struct recorder *r = arg;
	r->st.records++;
	if (rec->type == PERF_RECORD_LOST) {
		uint32_t event;
		r->st.lost += rec->u.lost.lost;
		if (event_of(r, rec->u.lost.id, &event) && event < r->o.nevents)
			r->st.event_lost[event] += rec->u.lost.lost;
		return;
	}
	if (!wanted(r, rec))
		return;
	bool sample = rec->type == PERF_RECORD_SAMPLE;
	/* Another collector's sampler shares the ring buffer (prof record
	 * -I, --frames): its samples are neither queued nor dropped. */
	uint32_t ev = 0;
	if (sample && !event_of(r, rec->u.sample.identifier ? rec->u.sample.identifier
				: rec->u.sample.id, &ev)) {
		r->st.unknown_id++;
		return;
	}
	if (sample && !r->o.synchronous) {
		/* Cheap check before copying: is there room? */
		size_t need = rec->u.sample.stack_dyn_size + rec->u.sample.nr_callchain * 8 + 512;
		pthread_mutex_lock(&r->lock);
		bool room = r->queued_bytes + need <= r->o.queue_bytes;
		pthread_mutex_unlock(&r->lock);
		if (!room) {
			r->st.dropped++;
			if (ev < r->o.nevents)
				r->st.event_dropped[ev]++;
			return;
		}
	}
	struct qrec *q = copy_record(r, rec);
	if (!q) {
		/* Out of memory: counted; the worker's state is its own. */
		r->st.dropped++;
		return;
	}
	q->type = rec->type;
	q->misc = rec->misc;
	q->next = NULL;
	if (sample)
		q->u.s.event = ev;
	if (r->o.synchronous) {
		process(r, q);
		free(q);
		return;
	}
	pthread_mutex_lock(&r->lock);
	bool was_empty = !r->head;
	if (r->tail)
		r->tail->next = q;
	else
		r->head = q;
	r->tail = q;
	r->queued_bytes += q->bytes;
	if (r->queued_bytes > r->st.max_queue_bytes)
		r->st.max_queue_bytes = r->queued_bytes;
	if (was_empty)
		pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

static void *worker_main(void *arg)
{
	struct recorder *r = arg;
	bool idle_done = true;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		if (!r->head) {
			if (!idle_done) {
				pthread_mutex_unlock(&r->lock);
				if (!r->error && r->o.sink.idle) {
					int rc = r->o.sink.idle(r->o.sink.arg);
					if (rc)
						fail(r, rc, "samples");
				}
				pthread_mutex_lock(&r->lock);
				idle_done = true;
				continue;
			}
			if (r->done)
				break;
			pthread_cond_wait(&r->cond, &r->lock);
			continue;
		}
		/* Take the whole list: one lock round per batch. */
		struct qrec *q = r->head;
		r->head = r->tail = NULL;
		pthread_mutex_unlock(&r->lock);
		size_t freed = 0;
		while (q) {
			struct qrec *next = q->next;
			process(r, q);
			freed += q->bytes;
			free(q);
			q = next;
		}
		pthread_mutex_lock(&r->lock);
		r->queued_bytes -= freed;
		idle_done = false;
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int recorder_seed_proc(struct recorder *r, uint32_t pid, char **cause)
{
	r->maps_gen++;
	return proc_maps_load_proc(r->maps, pid, NULL, true, cause);
}

int recorder_start(struct recorder *r, char **cause)
{
	if (r->o.synchronous || r->started)
		return 0;
	/* Before the workload runs: kallsyms costs the kernel tens of ms. */
	symbolizer_load_kernel(r->sym);
	int rc = pthread_create(&r->worker, NULL, worker_main, r);
	if (rc) {
		if (cause && asprintf(cause, "cannot start the unwinding thread: %s",
				      ERR_TEXT(rc)) < 0)
			*cause = NULL;
		return -rc;
	}
	r->started = true;
	return 0;
}

int recorder_finish(struct recorder *r, char **cause)
{
	if (r->started && !r->done) {
		pthread_mutex_lock(&r->lock);
		r->done = true;
		pthread_cond_signal(&r->cond);
		pthread_mutex_unlock(&r->lock);
		pthread_join(r->worker, NULL);
	} else if (!r->started && !r->done) {
		r->done = true;
		if (!r->error && r->o.sink.idle) {
			int rc = r->o.sink.idle(r->o.sink.arg);
			if (rc)
				fail(r, rc, "samples");
		}
	}
	if (r->error && cause && !*cause && r->error_cause)
		*cause = strdup(r->error_cause);
	return r->error;
}

void recorder_stats(const struct recorder *r, struct recorder_stats *out)
{
	*out = r->st;
	out->modules = r->nmodules;
	out->symbols = r->nsymbols;
	out->frames = r->nframes;
	out->stacks = r->nstacks;
	out->unwind = *unwinder_stats(r->unw);
}

struct symbolizer *recorder_symbolizer(struct recorder *r)
{
	return r->sym;
}
