/*
 * modules: code modules from MMAP2 records, ELF sizes, and the touched
 * working set from page-fault samples. See modules.h for the rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/modules.h"
#include "common/errtext.h"

/* ---- page sets: 64-page chunks, one bitmap word each ---- */

struct page_set {
	uint64_t *keys;		/* chunk key + 1; 0 marks an empty slot */
	uint64_t *bits;
	size_t cap, used;
	uint64_t pages;		/* distinct pages held */
};

/* Tags (space generations) take the top 24 bits of a chunk key; pages
 * below 2^46 fit under them (a 57-bit address space of 4 KiB pages). */
#define PS_TAG_SHIFT 40

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static void ps_release(struct page_set *ps)
{
	free(ps->keys);
	free(ps->bits);
	memset(ps, 0, sizeof(*ps));
}

static size_t ps_slot(const uint64_t *keys, size_t cap, uint64_t stored)
{
	size_t i = (size_t)mix64(stored) & (cap - 1);
	while (keys[i] && keys[i] != stored)
		i = (i + 1) & (cap - 1);
	return i;
}

static int ps_grow(struct page_set *ps)
{
	size_t ncap = ps->cap ? ps->cap * 2 : 64;
	uint64_t *nk = calloc(ncap, sizeof(uint64_t));
	uint64_t *nb = calloc(ncap, sizeof(uint64_t));
	if (!nk || !nb) {
		free(nk);
		free(nb);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ps->cap; i++) {
		if (!ps->keys[i])
			continue;
		size_t s = ps_slot(nk, ncap, ps->keys[i]);
		nk[s] = ps->keys[i];
		nb[s] = ps->bits[i];
	}
	free(ps->keys);
	free(ps->bits);
	ps->keys = nk;
	ps->bits = nb;
	ps->cap = ncap;
	return 0;
}

/*
 * Add pages [first, first + n) under tag. Returns how many were new, or
 * -ENOMEM.
 */
static int64_t ps_add_range(struct page_set *ps, uint32_t tag, uint64_t first,
			    uint64_t n)
{
	int64_t added = 0;
	uint64_t p = first, end = first + n;
	while (p < end) {
		uint64_t chunk = p >> 6;
		unsigned lo = (unsigned)(p & 63);
		uint64_t span = 64 - lo;
		if (span > end - p)
			span = end - p;
		uint64_t mask = (span == 64 ? ~0ull : ((1ull << span) - 1)) << lo;
		uint64_t stored = (((uint64_t)(tag & 0xffffff) << PS_TAG_SHIFT) |
				   (chunk & ((1ull << PS_TAG_SHIFT) - 1))) + 1;
		if ((ps->used + 1) * 2 > ps->cap && ps_grow(ps))
			return -ENOMEM;
		size_t s = ps_slot(ps->keys, ps->cap, stored);
		if (!ps->keys[s]) {
			ps->keys[s] = stored;
			ps->bits[s] = 0;
			ps->used++;
		}
		uint64_t fresh = mask & ~ps->bits[s];
		ps->bits[s] |= mask;
		added += __builtin_popcountll(fresh);
		p += span;
	}
	ps->pages += (uint64_t)added;
	return added;
}

/* Move the pages of mask in src's slot s, chunk `chunk`, to dst. */
static int64_t ps_move_slot(struct page_set *src, struct page_set *dst,
			    uint32_t tag, size_t s, uint64_t chunk, uint64_t mask)
{
	int64_t moved = 0;
	uint64_t bits = src->bits[s] & mask;
	while (bits) {
		unsigned b = (unsigned)__builtin_ctzll(bits);
		bits &= bits - 1;
		if (ps_add_range(dst, tag, (chunk << 6) + b, 1) < 0)
			return -ENOMEM;
		src->bits[s] &= ~(1ull << b);
		src->pages--;
		moved++;
	}
	return moved;
}

/*
 * Move pages [first, first + n) under tag from src to dst (those src
 * holds). Returns how many moved, or -ENOMEM. A range wider than src's
 * table is done by walking the table, not the range: a JIT's executable
 * reservation can span terabytes, and the fuzzer's 2^52-page one took
 * minutes a chunk at a time.
 */
static int64_t ps_move_range(struct page_set *src, struct page_set *dst,
			     uint32_t tag, uint64_t first, uint64_t n)
{
	int64_t moved = 0;
	uint64_t p = first, end = first + n;
	if (n / 64 > src->cap) {
		const uint64_t cmask = (1ull << PS_TAG_SHIFT) - 1;
		for (size_t s = 0; s < src->cap; s++) {
			uint64_t key = src->keys[s];
			if (!key || (key - 1) >> PS_TAG_SHIFT != (tag & 0xffffff))
				continue;
			/* The chunk as stored (the table keeps its low 40
			 * bits); ranges of real address spaces lie below. */
			uint64_t chunk = (key - 1) & cmask;
			uint64_t lo = chunk << 6, hi = lo + 64;
			if (hi <= first || lo >= end)
				continue;
			unsigned a = lo < first ? (unsigned)(first - lo) : 0;
			unsigned b = hi > end ? (unsigned)(end - lo) : 64;
			uint64_t mask = (b == 64 ? ~0ull : (1ull << b) - 1) &
					~((1ull << a) - 1);
			int64_t k = ps_move_slot(src, dst, tag, s, chunk, mask);
			if (k < 0)
				return k;
			moved += k;
		}
		return moved;
	}
	while (p < end && src->cap) {
		uint64_t chunk = p >> 6;
		unsigned lo = (unsigned)(p & 63);
		uint64_t span = 64 - lo;
		if (span > end - p)
			span = end - p;
		uint64_t mask = (span == 64 ? ~0ull : ((1ull << span) - 1)) << lo;
		uint64_t stored = (((uint64_t)(tag & 0xffffff) << PS_TAG_SHIFT) |
				   (chunk & ((1ull << PS_TAG_SHIFT) - 1))) + 1;
		size_t s = ps_slot(src->keys, src->cap, stored);
		if (src->keys[s]) {
			int64_t k = ps_move_slot(src, dst, tag, s, chunk, mask);
			if (k < 0)
				return k;
			moved += k;
		}
		p += span;
	}
	return moved;
}

/* ---- interval sets: sorted, disjoint [a, b) ---- */

struct interval {
	uint64_t a, b;
};

struct ivset {
	struct interval *v;
	size_t n, cap;
};

static int iv_add(struct ivset *s, uint64_t a, uint64_t b)
{
	if (b <= a)
		return 0;
	/* First interval that ends at or after a (touching ones merge). */
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].b < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t k = lo;
	while (k < s->n && s->v[k].a <= b) {
		if (s->v[k].a < a)
			a = s->v[k].a;
		if (s->v[k].b > b)
			b = s->v[k].b;
		k++;
	}
	if (k == lo) {
		if (s->n == s->cap) {
			size_t ncap = s->cap ? s->cap * 2 : 4;
			struct interval *p = realloc(s->v, ncap * sizeof(*p));
			if (!p)
				return -ENOMEM;
			s->v = p;
			s->cap = ncap;
		}
		memmove(&s->v[lo + 1], &s->v[lo], (s->n - lo) * sizeof(*s->v));
		s->n++;
	} else if (k > lo + 1) {
		memmove(&s->v[lo + 1], &s->v[k], (s->n - k) * sizeof(*s->v));
		s->n -= k - lo - 1;
	}
	s->v[lo].a = a;
	s->v[lo].b = b;
	return 0;
}

static uint64_t iv_total(const struct ivset *s)
{
	uint64_t t = 0;
	for (size_t i = 0; i < s->n; i++)
		t += s->v[i].b - s->v[i].a;
	return t;
}

static void iv_release(struct ivset *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- the collector ---- */

/* A module while records arrive, and what modules_at() returns. */
/* A code fault, kept to replay it at the end: which mapping (of which
 * address space) it hit, and the file page. */
struct site {
	uint64_t seq;		/* arrival order */
	uint32_t space;
	uint64_t start, len, pgoff;	/* the mapping */
	uint64_t fpage;
};

/* Past this many code faults (48 bytes each: 12 MiB) a module keeps its
 * window estimate. */
#define MAX_SITES (1u << 18)

struct mod {
	struct module_info info;
	struct ivset exec;	/* file ranges mapped executable */
	struct ivset spaces;	/* generations that mapped it */
	struct page_set touched, faulted;	/* by file page */
	struct site *sites;
	size_t nsites, scap;
	bool sites_full;
	char *error;
};

/* Per address space: its anonymous executable memory. */
struct spc {
	struct ivset anon_exec;	/* address ranges */
	uint64_t touched_pages, faults;
};

struct modules {
	struct modules_opts o;
	unsigned page_shift;
	struct proc_maps *pm;
	struct mod **mods;
	size_t nmods, mcap;
	/* interned path pointer -> mod index + 1 */
	const char **mkeys;
	size_t *mvals;
	size_t mhcap;
	struct spc *spcs;	/* by generation - 1 */
	size_t nspcs;
	struct page_set anon_exec_pages;	/* tag: generation */
	struct page_set data[WS_NKINDS];	/* touched; tag: generation */
	struct page_set file_faulted;		/* WS_FILE's faulted pages */
	uint64_t *fault_ids;
	size_t nfault_ids;
	struct working_set ws;
	uint64_t footprint;
	int err;		/* first feeding error */
	bool finished;
};

const char *ws_kind_name(enum ws_kind k)
{
	static const char *const names[WS_NKINDS] = {
		"code", "heap", "stack", "anon", "file", "other",
	};
	return k < WS_NKINDS ? names[k] : "?";
}

struct modules *modules_new(const struct modules_opts *opts)
{
	struct modules *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->o = *opts;
	if (!m->o.page_size)
		m->o.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	if (!m->o.fault_around_bytes)
		m->o.fault_around_bytes = MODULES_FAULT_AROUND_BYTES;
	if (m->o.page_size & (m->o.page_size - 1) ||
	    m->o.fault_around_bytes & (m->o.fault_around_bytes - 1) ||
	    m->o.fault_around_bytes < m->o.page_size) {
		free(m);
		errno = EINVAL;
		return NULL;
	}
	m->page_shift = (unsigned)__builtin_ctzll(m->o.page_size);
	m->mhcap = 64;
	m->mkeys = calloc(m->mhcap, sizeof(*m->mkeys));
	m->mvals = calloc(m->mhcap, sizeof(*m->mvals));
	m->pm = proc_maps_new();
	if (!m->mkeys || !m->mvals || !m->pm) {
		modules_free(m);
		errno = ENOMEM;
		return NULL;
	}
	m->ws.enabled = m->o.working_set;
	m->ws.page_size = m->o.page_size;
	m->ws.window_bytes = m->o.fault_around_bytes;
	return m;
}

void modules_free(struct modules *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nmods; i++) {
		struct mod *d = m->mods[i];
		iv_release(&d->exec);
		iv_release(&d->spaces);
		ps_release(&d->touched);
		ps_release(&d->faulted);
		free(d->sites);
		free(d->error);
		free(d);
	}
	free(m->mods);
	free(m->mkeys);
	free(m->mvals);
	for (size_t i = 0; i < m->nspcs; i++)
		iv_release(&m->spcs[i].anon_exec);
	free(m->spcs);
	ps_release(&m->anon_exec_pages);
	for (int k = 0; k < WS_NKINDS; k++)
		ps_release(&m->data[k]);
	ps_release(&m->file_faulted);
	free(m->fault_ids);
	proc_maps_free(m->pm);
	free(m);
}

int modules_add_fault_id(struct modules *m, uint64_t id)
{
	uint64_t *p = realloc(m->fault_ids, (m->nfault_ids + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	m->fault_ids = p;
	p[m->nfault_ids++] = id;
	return 0;
}

static size_t mod_slot(const struct modules *m, const char **keys, size_t cap,
		       const char *path)
{
	(void)m;
	size_t i = (size_t)mix64((uint64_t)(uintptr_t)path) & (cap - 1);
	while (keys[i] && keys[i] != path)
		i = (i + 1) & (cap - 1);
	return i;
}

/* The module for an interned path, created when new. */
static struct mod *mod_get(struct modules *m, const char *path, enum module_kind kind)
{
	size_t s = mod_slot(m, m->mkeys, m->mhcap, path);
	if (m->mkeys[s])
		return m->mods[m->mvals[s] - 1];
	if ((m->nmods + 1) * 2 > m->mhcap) {
		size_t ncap = m->mhcap * 2;
		const char **nk = calloc(ncap, sizeof(*nk));
		size_t *nv = calloc(ncap, sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return NULL;
		}
		for (size_t i = 0; i < m->mhcap; i++) {
			if (!m->mkeys[i])
				continue;
			size_t t = mod_slot(m, nk, ncap, m->mkeys[i]);
			nk[t] = m->mkeys[i];
			nv[t] = m->mvals[i];
		}
		free(m->mkeys);
		free(m->mvals);
		m->mkeys = nk;
		m->mvals = nv;
		m->mhcap = ncap;
		s = mod_slot(m, m->mkeys, m->mhcap, path);
	}
	if (m->nmods == m->mcap) {
		size_t ncap = m->mcap ? m->mcap * 2 : 16;
		struct mod **p = realloc(m->mods, ncap * sizeof(*p));
		if (!p)
			return NULL;
		m->mods = p;
		m->mcap = ncap;
	}
	struct mod *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->info.path = path;
	d->info.kind = kind;
	m->mods[m->nmods++] = d;
	m->mkeys[s] = path;
	m->mvals[s] = m->nmods;
	return d;
}

static struct spc *spc_get(struct modules *m, uint32_t gen)
{
	if (!gen)
		return NULL;
	if (gen > m->nspcs) {
		size_t n = m->nspcs ? m->nspcs : 16;
		while (n < gen)
			n *= 2;
		struct spc *p = realloc(m->spcs, n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + m->nspcs, 0, (n - m->nspcs) * sizeof(*p));
		m->spcs = p;
		m->nspcs = n;
	}
	return &m->spcs[gen - 1];
}

static bool is_anon_like(enum map_kind k)
{
	return k == MAP_KIND_ANON || k == MAP_KIND_HEAP || k == MAP_KIND_STACK;
}

static void hex_of(const uint8_t *b, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Note an executable mapping of pid's current space. */
static int note_exec(struct modules *m, uint32_t pid, const struct map_entry *e,
		     const struct perf_rec *rec)
{
	uint32_t gen = proc_maps_space(m->pm, pid);
	if (is_anon_like(e->kind)) {
		struct spc *s = spc_get(m, gen);
		if (!s)
			return -ENOMEM;
		if (m->o.working_set && e->kind == MAP_KIND_ANON) {
			/* A JIT writes its code as data, then makes it
			 * executable: the pages it faulted in writing are
			 * code now, and will not fault again to run. */
			uint64_t before = m->anon_exec_pages.pages;
			int64_t moved = ps_move_range(&m->data[WS_ANON],
						      &m->anon_exec_pages, gen,
						      e->start >> m->page_shift,
						      e->len >> m->page_shift);
			if (moved < 0)
				return -ENOMEM;
			uint64_t f = (uint64_t)moved;
			if (f > m->ws.kind[WS_ANON].faults)
				f = m->ws.kind[WS_ANON].faults;
			m->ws.kind[WS_ANON].faults -= f;
			s->faults += f;
			s->touched_pages += m->anon_exec_pages.pages - before;
		}
		return iv_add(&s->anon_exec, e->start, e->start + e->len);
	}
	struct mod *d = mod_get(m, e->path, e->kind == MAP_KIND_FILE ? MODULE_FILE
								     : MODULE_ANON);
	if (!d)
		return -ENOMEM;
	if (iv_add(&d->exec, e->pgoff, e->pgoff + e->len) ||
	    iv_add(&d->spaces, gen, (uint64_t)gen + 1))
		return -ENOMEM;
	if (rec && rec->type == PERF_RECORD_MMAP2 && rec->u.mmap.has_build_id &&
	    rec->u.mmap.build_id_size && !d->info.build_id[0]) {
		hex_of(rec->u.mmap.build_id, rec->u.mmap.build_id_size, d->info.build_id);
		d->info.build_id_from_kernel = true;
	}
	return 0;
}

static bool is_fault_id(const struct modules *m, uint64_t id)
{
	for (size_t i = 0; i < m->nfault_ids; i++)
		if (m->fault_ids[i] == id)
			return true;
	return false;
}

/*
 * The pages the kernel's fault-around maps for a fault at addr, as
 * [*first, *first + *n) relative to the mapping's start. Following
 * do_fault_around() in mm/memory.c: the window is fault_around_bytes,
 * aligned, within one page table; where the mapping starts inside the
 * window the window starts there instead, still that many pages long;
 * it ends at the mapping's end or the page table's.
 */
static void window_of(const struct modules *m, const struct map_entry *e,
		      uint64_t addr, uint64_t *first, uint64_t *n)
{
	uint64_t nr = m->o.fault_around_bytes >> m->page_shift;
	uint64_t ptrs = m->o.page_size / 8;	/* PTEs per page table */
	uint64_t pte_off = (addr >> m->page_shift) & (ptrs - 1);
	uint64_t map_off = (addr - e->start) >> m->page_shift;
	uint64_t map_pages = (e->len + m->o.page_size - 1) >> m->page_shift;
	uint64_t from = pte_off & ~(nr - 1);
	uint64_t map_start = pte_off - (map_off < pte_off ? map_off : pte_off);
	if (map_start > from)
		from = map_start;
	uint64_t to = from + nr;
	if (to > ptrs)
		to = ptrs;
	if (to > pte_off + map_pages - map_off)
		to = pte_off + map_pages - map_off;
	*first = map_off - (pte_off - from);
	*n = to - from;
}

static int add_site(struct modules *m, struct mod *d, const struct map_entry *e,
		    uint64_t fpage)
{
	if (d->sites_full || !m->o.working_set)
		return 0;
	if (d->nsites == d->scap) {
		if (d->scap >= MAX_SITES) {
			d->sites_full = true;
			return 0;
		}
		size_t ncap = d->scap ? d->scap * 2 : 64;
		struct site *p = realloc(d->sites, ncap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		d->sites = p;
		d->scap = ncap;
	}
	d->sites[d->nsites] = (struct site){
		.seq = d->nsites, .space = e->space, .start = e->start, .len = e->len,
		.pgoff = e->pgoff, .fpage = fpage,
	};
	d->nsites++;
	return 0;
}

static int count_fault(struct modules *m, uint32_t pid, uint64_t addr)
{
	m->ws.samples++;
	uint64_t off;
	const struct map_entry *e = proc_maps_lookup(m->pm, pid, addr, &off);
	uint32_t gen = proc_maps_space(m->pm, pid);
	uint64_t vpage = addr >> m->page_shift;
	if (!e) {
		m->ws.kind[WS_OTHER].faults++;
		return ps_add_range(&m->data[WS_OTHER], gen, vpage, 1) < 0 ? -ENOMEM : 0;
	}
	if (e->prot & PROT_EXEC) {
		if (is_anon_like(e->kind)) {
			struct spc *s = spc_get(m, e->space);
			if (!s)
				return -ENOMEM;
			int64_t added = ps_add_range(&m->anon_exec_pages, e->space, vpage, 1);
			if (added < 0)
				return -ENOMEM;
			s->touched_pages += (uint64_t)added;
			s->faults++;
			return 0;
		}
		struct mod *d = mod_get(m, e->path, e->kind == MAP_KIND_FILE
						   ? MODULE_FILE : MODULE_ANON);
		if (!d)
			return -ENOMEM;
		d->info.faults++;
		uint64_t fpage = off >> m->page_shift;
		if (ps_add_range(&d->faulted, 0, fpage, 1) < 0)
			return -ENOMEM;
		uint64_t first = 0, n = 1;
		if (e->kind == MAP_KIND_FILE) {
			window_of(m, e, addr, &first, &n);
			if (add_site(m, d, e, fpage))
				return -ENOMEM;
		} else {
			first = (addr - e->start) >> m->page_shift;
		}
		uint64_t base = e->pgoff >> m->page_shift;
		return ps_add_range(&d->touched, 0, base + first, n) < 0 ? -ENOMEM : 0;
	}
	enum ws_kind k;
	switch (e->kind) {
	case MAP_KIND_HEAP:
		k = WS_HEAP;
		break;
	case MAP_KIND_STACK:
		k = WS_STACK;
		break;
	case MAP_KIND_ANON:
		k = WS_ANON;
		break;
	case MAP_KIND_FILE:
		k = WS_FILE;
		break;
	default:
		k = WS_OTHER;
		break;
	}
	m->ws.kind[k].faults++;
	if (k != WS_FILE)
		return ps_add_range(&m->data[k], gen, vpage, 1) < 0 ? -ENOMEM : 0;
	if (ps_add_range(&m->file_faulted, gen, vpage, 1) < 0)
		return -ENOMEM;
	uint64_t first, n;
	window_of(m, e, addr, &first, &n);
	return ps_add_range(&m->data[k], gen, (e->start >> m->page_shift) + first, n) < 0
	       ? -ENOMEM : 0;
}

/*
 * The kernel names the brk area "[heap]" only from its first growth on:
 * the first brk arrives as "//anon" at the same start. When the name
 * comes, the pages already counted there move from anon to heap.
 */
static int heap_named(struct modules *m, uint32_t pid, uint64_t addr)
{
	const struct map_entry *old = proc_maps_lookup(m->pm, pid, addr, NULL);
	if (!old || old->kind != MAP_KIND_ANON || old->start != addr ||
	    (old->prot & PROT_EXEC))
		return 0;
	int64_t moved = ps_move_range(&m->data[WS_ANON], &m->data[WS_HEAP], old->space,
				      old->start >> m->page_shift,
				      old->len >> m->page_shift);
	if (moved < 0)
		return -ENOMEM;
	/* Faults follow their pages (one each: an approximation, since a
	 * page can fault twice, read then write). */
	uint64_t f = (uint64_t)moved;
	if (f > m->ws.kind[WS_ANON].faults)
		f = m->ws.kind[WS_ANON].faults;
	m->ws.kind[WS_ANON].faults -= f;
	m->ws.kind[WS_HEAP].faults += f;
	return 0;
}

int modules_feed(struct modules *m, const struct perf_rec *rec)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		if (m->o.working_set && map_kind_of(rec->u.mmap.filename) == MAP_KIND_HEAP) {
			int rc = heap_named(m, rec->u.mmap.pid, rec->u.mmap.addr);
			if (rc)
				return rc;
		}
		int rc = proc_maps_feed(m->pm, rec);
		if (rc)
			return rc;
		uint64_t off;
		const struct map_entry *e = proc_maps_lookup(m->pm, rec->u.mmap.pid,
							     rec->u.mmap.addr, &off);
		if (e && rec->u.mmap.len && (e->prot & PROT_EXEC))
			return note_exec(m, rec->u.mmap.pid, e, rec);
		return 0;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_COMM:
		return proc_maps_feed(m->pm, rec);
	case PERF_RECORD_SAMPLE:
		if (!m->o.working_set || !is_fault_id(m, rec->sid.id))
			return 0;
		return count_fault(m, rec->u.sample.pid, rec->u.sample.addr);
	default:
		return 0;
	}
}

void modules_on_record(const struct perf_rec *rec, int origin, void *arg)
{
	struct modules *m = arg;
	(void)origin;
	int rc = modules_feed(m, rec);
	if (rc && !m->err)
		m->err = rc;
}

int modules_seed_proc(struct modules *m, uint32_t pid, char **cause)
{
	int rc = proc_maps_load_proc(m->pm, pid, NULL, !m->o.working_set, cause);
	if (rc)
		return rc;
	const struct map_entry *v;
	size_t n = proc_maps_entries(m->pm, pid, &v);
	for (size_t i = 0; i < n; i++) {
		/* [vsyscall] is in every process and never in a record: a
		 * launched run would not list it either. */
		if (!(v[i].prot & PROT_EXEC) || !strcmp(v[i].path, "[vsyscall]"))
			continue;
		/* note_exec may grow tables, never the space itself. */
		rc = note_exec(m, pid, &v[i], NULL);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- finishing ---- */

static void set_error(struct mod *d, const char *fmt, const char *path, const char *more)
{
	free(d->error);
	if (asprintf(&d->error, fmt, path, more) < 0)
		d->error = NULL;
	d->info.error = d->error;
}

/*
 * Read a module's ELF sizes and build id. Returns true when the file on
 * disk is the one the run mapped (it opens as ELF, and its build id is
 * the kernel's where the kernel gave one), so it may be replayed.
 */
static bool read_elf(struct modules *m, struct mod *d)
{
	const char *path = d->info.path;
	size_t len = strlen(path);
	static const char deleted[] = " (deleted)";
	if (m->o.no_elf || d->info.kind != MODULE_FILE)
		return false;
	if (len > sizeof(deleted) - 1 &&
	    !strcmp(path + len - (sizeof(deleted) - 1), deleted)) {
		set_error(d, "'%s' was deleted while the run used it%s", path, "");
		return false;
	}
	struct elf_file *ef;
	char *cause = NULL;
	if (elf_file_open(path, &ef, &cause)) {
		set_error(d, "%s%s", cause ? cause : path, cause ? "" : ": unreadable");
		free(cause);
		return false;
	}
	char hex[ELF_BUILD_ID_HEX_SIZE];
	int brc = elf_file_build_id(ef, hex, sizeof(hex), NULL);
	if (d->info.build_id_from_kernel && brc == 0 && strcmp(hex, d->info.build_id)) {
		set_error(d, "'%s' changed since the run (its build id is %s now)",
			  path, hex);
		elf_file_close(ef);
		return false;
	}
	if (!d->info.build_id[0] && brc == 0)
		memcpy(d->info.build_id, hex, sizeof(hex));
	struct elf_sizes sz;
	elf_file_sizes(ef, &sz);
	elf_file_close(ef);
	if (!sz.has_sections) {
		set_error(d, "'%s' has no section headers (stripped)%s", path, "");
		return true;
	}
	d->info.has_text = sz.has_text;
	d->info.text_bytes = sz.text_bytes;
	d->info.has_exec_sections = true;
	d->info.exec_section_bytes = sz.exec_bytes;
	return true;
}

/* ---- replaying code faults ---- */

static int site_cmp(const void *pa, const void *pb)
{
	const struct site *a = pa, *b = pb;
	if (a->space != b->space)
		return a->space < b->space ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	if (a->pgoff != b->pgoff)
		return a->pgoff < b->pgoff ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool same_mapping(const struct site *a, const struct site *b)
{
	return a->space == b->space && a->start == b->start && a->len == b->len &&
	       a->pgoff == b->pgoff;
}

/*
 * Replay the faults of one mapping in a mapping of our own with the same
 * file range, at an address congruent to the original modulo the page
 * table's span (so fault-around windows and page-table edges fall alike),
 * touching the pages in the order they faulted; then read which pages
 * the kernel mapped (/proc/self/pagemap, bit 63: present) into out.
 */
static int replay_mapping(const struct modules *m, int fd, uint64_t fsize,
			  int pagemap, const struct site *g, size_t n,
			  struct page_set *out)
{
	uint64_t ps = m->o.page_size, span = (ps / 8) * ps;
	uint64_t len = g->len, pgoff = g->pgoff;
	/* Pages past the end of the file cannot be touched (SIGBUS), and
	 * the kernel maps none there. */
	uint64_t avail = fsize > pgoff ? ((fsize - pgoff + ps - 1) & ~(ps - 1)) : 0;
	if (len > avail)
		len = avail;
	if (!len)
		return 0;
	size_t resv = (size_t)(len + 2 * span);
	uint8_t *r = mmap(NULL, resv, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return -errno;
	uint64_t base = ((uint64_t)(uintptr_t)r + span - 1) & ~(span - 1);
	uint8_t *a = (uint8_t *)(uintptr_t)(base + (g->start & (span - 1)));
	int rc = 0;
	if (mmap(a, (size_t)len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd,
		 (off_t)pgoff) == MAP_FAILED) {
		rc = -errno;
		goto out_unmap;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t off = (g[i].fpage << m->page_shift) - pgoff;
		if ((g[i].fpage << m->page_shift) >= pgoff && off < len)
			(void)*(volatile const uint8_t *)(a + off);
	}
	size_t npages = (size_t)(len >> m->page_shift);
	uint64_t ents[512];
	for (size_t i = 0; i < npages && !rc; i += 512) {
		size_t k = npages - i < 512 ? npages - i : 512;
		off_t at = (off_t)((((uint64_t)(uintptr_t)a) >> m->page_shift) + i) * 8;
		if (pread(pagemap, ents, k * 8, at) != (ssize_t)(k * 8)) {
			rc = -EIO;
			break;
		}
		for (size_t j = 0; j < k; j++)
			if ((ents[j] >> 63) &&
			    ps_add_range(out, 0, (pgoff >> m->page_shift) + i + j, 1) < 0)
				rc = -ENOMEM;
	}
out_unmap:
	munmap(r, resv);
	return rc;
}

/*
 * The pages the kernel mapped for a module's code faults, found by
 * replaying them against the file as it is now (same build id): fault-
 * around windows and whole large folios alike, which the window estimate
 * cannot know. On success the module's touched set becomes that.
 */
static void replay_module(struct modules *m, struct mod *d, int pagemap)
{
	if (!d->nsites || d->sites_full || pagemap < 0)
		return;
	int fd = open(d->info.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	qsort(d->sites, d->nsites, sizeof(*d->sites), site_cmp);
	struct page_set got = { 0 };
	int rc = 0;
	for (size_t i = 0; i < d->nsites && !rc;) {
		size_t j = i + 1;
		while (j < d->nsites && same_mapping(&d->sites[i], &d->sites[j]))
			j++;
		rc = replay_mapping(m, fd, (uint64_t)st.st_size, pagemap, &d->sites[i],
				    j - i, &got);
		i = j;
	}
	close(fd);
	if (rc || !got.pages) {
		ps_release(&got);
		return;
	}
	ps_release(&d->touched);
	d->touched = got;
	d->info.touched_replayed = true;
}

/* Bytes the symbols of a perf map cover (their union). */
static uint64_t perf_map_cover(const struct elf_symtab *st)
{
	uint64_t total = 0, end = 0;
	for (size_t i = 0; i < elf_symtab_count(st); i++) {
		const struct elf_sym *s = elf_symtab_at(st, i);
		uint64_t a = s->addr, b = s->addr + s->size;
		if (b < a)
			b = UINT64_MAX;
		if (a < end)
			a = end;
		if (b > a)
			total += b - a;
		if (b > end)
			end = b;
	}
	return total;
}

/* Anonymous executable memory: per process with a perf map, else summed. */
static int finish_anon(struct modules *m)
{
	const char *dir = m->o.perf_map_dir ? m->o.perf_map_dir : "/tmp";
	uint32_t nsp = proc_maps_nspaces(m->pm);
	for (uint32_t g = 1; g <= nsp && g <= m->nspcs; g++) {
		struct spc *s = &m->spcs[g - 1];
		uint64_t bytes = iv_total(&s->anon_exec);
		if (!bytes && !s->touched_pages)
			continue;
		uint32_t pid = proc_maps_space_pid(m->pm, g);
		char path[4096];
		snprintf(path, sizeof(path), "%s/perf-%u.map", dir, pid);
		bool has_map = access(path, R_OK) == 0;
		const char *name = proc_maps_intern(m->pm, has_map ? path : "[anon:exec]");
		if (!name)
			return -ENOMEM;
		struct mod *d = mod_get(m, name, MODULE_ANON);
		if (!d || iv_add(&d->spaces, g, (uint64_t)g + 1))
			return -ENOMEM;
		d->info.exec_bytes += bytes;
		d->info.faults += s->faults;
		/* Anonymous pages have no fault-around: both bounds agree. */
		d->info.touched_bytes += s->touched_pages * m->o.page_size;
		d->info.faulted_bytes += s->touched_pages * m->o.page_size;
		if (has_map && !d->info.has_text && !d->error) {
			struct elf_symtab *st;
			char *cause = NULL;
			if (elf_symtab_load_perf_map(path, &st, NULL, &cause) == 0) {
				d->info.text_bytes = perf_map_cover(st);
				d->info.has_text = true;
				elf_symtab_free(st);
			} else {
				set_error(d, "%s%s", cause ? cause : path, "");
			}
			free(cause);
		}
	}
	return 0;
}

static int mod_cmp(const void *pa, const void *pb)
{
	const struct mod *a = *(const struct mod *const *)pa;
	const struct mod *b = *(const struct mod *const *)pb;
	if (a->info.exec_bytes != b->info.exec_bytes)
		return a->info.exec_bytes > b->info.exec_bytes ? -1 : 1;
	return strcmp(a->info.path, b->info.path);
}

int modules_finish(struct modules *m, char **cause)
{
	if (m->finished)
		return 0;
	m->finished = true;
	size_t nfile = m->nmods;
	int pagemap = m->o.working_set && !m->o.no_elf
		      ? open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC) : -1;
	for (size_t i = 0; i < nfile; i++) {
		struct mod *d = m->mods[i];
		d->info.exec_bytes = iv_total(&d->exec);
		d->info.nprocs = (uint32_t)iv_total(&d->spaces);
		if (read_elf(m, d))
			replay_module(m, d, pagemap);
		d->info.touched_bytes = d->touched.pages * m->o.page_size;
		d->info.faulted_bytes = d->faulted.pages * m->o.page_size;
	}
	if (pagemap >= 0)
		close(pagemap);
	int rc = finish_anon(m);
	if (rc && !m->err)
		m->err = rc;
	for (size_t i = nfile; i < m->nmods; i++)
		m->mods[i]->info.nprocs = (uint32_t)iv_total(&m->mods[i]->spaces);
	if (m->nmods)
		qsort(m->mods, m->nmods, sizeof(*m->mods), mod_cmp);
	for (size_t i = 0; i < m->nmods; i++)
		m->mvals[mod_slot(m, m->mkeys, m->mhcap, m->mods[i]->info.path)] = i + 1;

	m->footprint = 0;
	struct ws_total *code = &m->ws.kind[WS_CODE];
	memset(code, 0, sizeof(*code));
	for (size_t i = 0; i < m->nmods; i++) {
		const struct module_info *mi = &m->mods[i]->info;
		m->footprint += mi->exec_bytes;
		code->touched_bytes += mi->touched_bytes;
		code->faulted_bytes += mi->faulted_bytes;
		code->faults += mi->faults;
	}
	for (int k = WS_HEAP; k < WS_NKINDS; k++) {
		struct ws_total *t = &m->ws.kind[k];
		t->touched_bytes = m->data[k].pages * m->o.page_size;
		t->faulted_bytes = k == WS_FILE ? m->file_faulted.pages * m->o.page_size
						: t->touched_bytes;
	}
	if (m->err) {
		if (cause && asprintf(cause, "cannot track the run's code modules: %s",
				      ERR_TEXT(-m->err)) < 0)
			*cause = NULL;
		return m->err;
	}
	return 0;
}

size_t modules_count(const struct modules *m)
{
	return m->finished ? m->nmods : 0;
}

const struct module_info *modules_at(const struct modules *m, size_t i)
{
	return m->finished && i < m->nmods ? &m->mods[i]->info : NULL;
}

uint64_t modules_footprint(const struct modules *m)
{
	return m->footprint;
}

const struct working_set *modules_working_set(const struct modules *m)
{
	return &m->ws;
}
