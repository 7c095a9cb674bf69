/*
 * unwind: DWARF unwinding of a sample's copied registers and stack with
 * libunwind's remote interface; see unwind.h.
 */
#include <asm/perf_regs.h>
#include <elf.h>
#include <errno.h>
#include <libunwind.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/unwind.h"
#include "common/dynlib.h"

/* Exported by libunwind-x86_64 and libunwind-aarch64 but declared in no
 * public header; perf declares it the same way. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

/* libunwind for this architecture, loaded when the first unwinder is made
 * (prof record): nothing else in prof needs it. Its names are macros of
 * the architecture's (unw_step is _Ux86_64_step), and so are these. */
static struct {
	DYNLIB_FN(UNW_OBJ(dwarf_search_unwind_table));
	DYNLIB_FN(unw_create_addr_space);
	DYNLIB_FN(unw_set_caching_policy);
	DYNLIB_FN(unw_destroy_addr_space);
	DYNLIB_FN(unw_flush_cache);
	DYNLIB_FN(unw_init_remote);
	DYNLIB_FN(unw_get_reg);
	DYNLIB_FN(unw_step);
} uw;
static const struct dynlib_sym uw_syms[] = {
	DYNLIB_SYM(uw, UNW_OBJ(dwarf_search_unwind_table)),
	DYNLIB_SYM(uw, unw_create_addr_space),
	DYNLIB_SYM(uw, unw_set_caching_policy),
	DYNLIB_SYM(uw, unw_destroy_addr_space),
	DYNLIB_SYM(uw, unw_flush_cache),
	DYNLIB_SYM(uw, unw_init_remote),
	DYNLIB_SYM(uw, unw_get_reg),
	DYNLIB_SYM(uw, unw_step),
};
static struct dynlib libunwind = DYNLIB_INIT("libunwind-" DYNLIB_XSTR(UNW_TARGET) ".so.8",
					     uw_syms);

/* DW_EH_PE encodings .eh_frame_hdr uses. */
#define PE_OMIT 0xff
#define PE_FORMAT_MASK 0x0f
#define PE_DATAREL_SDATA4 0x3b

/* What the unwinder learned about one ELF file, once. */
struct mod_info {
	const struct elf_file *ef;
	bool ok;		/* has a usable binary-search table */
	uint64_t hdr_vaddr;	/* .eh_frame_hdr */
	uint64_t table_vaddr;	/* its (initial location, fde) pairs */
	uint64_t fde_count;
	uint64_t lo, hi;	/* extent of the PT_LOAD segments (vaddr) */
};

/* A module met during one walk, at its load bias. */
struct active {
	const struct mod_info *mi;
	uint64_t bias;		/* runtime address = vaddr + bias */
};

#define MAX_ACTIVE 16

struct walk {
	struct unwinder *u;
	const struct unwind_sample *s;
	uint64_t sp;
	struct active act[MAX_ACTIVE];
	size_t nact;
	bool no_info, mem_fail;
};

struct unwinder {
	struct symbolizer *sym;
	unw_addr_space_t as;
	struct mod_info **mods;	/* each its own allocation: walks keep
				 * pointers while the array grows */
	size_t nmods;
	struct unwind_stats stats;
};

/*
 * The register map, the one thing of the walk that differs by
 * architecture: libunwind's register numbers to perf's (unwind.h has the
 * mask and perf's numbers of the ip and sp).
 */
#if defined(__x86_64__)
static int perf_reg_of(unw_regnum_t r)
{
	switch (r) {
	case UNW_X86_64_RAX: return PERF_REG_X86_AX;
	case UNW_X86_64_RDX: return PERF_REG_X86_DX;
	case UNW_X86_64_RCX: return PERF_REG_X86_CX;
	case UNW_X86_64_RBX: return PERF_REG_X86_BX;
	case UNW_X86_64_RSI: return PERF_REG_X86_SI;
	case UNW_X86_64_RDI: return PERF_REG_X86_DI;
	case UNW_X86_64_RBP: return PERF_REG_X86_BP;
	case UNW_X86_64_RSP: return PERF_REG_X86_SP;
	case UNW_X86_64_RIP: return PERF_REG_X86_IP;
	default:
		if (r >= UNW_X86_64_R8 && r <= UNW_X86_64_R15)
			return PERF_REG_X86_R8 + (r - UNW_X86_64_R8);
		return -1;
	}
}

/* A call pushes its return address: every caller's sp is above its
 * callee's. */
#define LEAF_MAY_KEEP_SP false
#elif defined(__aarch64__)
static int perf_reg_of(unw_regnum_t r)
{
	/* libunwind numbers X0..X30 (X30 the link register), SP and PC as
	 * perf does, 0..32; its PSTATE and vector registers perf has not. */
	if (r >= UNW_AARCH64_X0 && r <= UNW_AARCH64_X30)
		return PERF_REG_ARM64_X0 + (r - UNW_AARCH64_X0);
	if (r == UNW_AARCH64_SP)
		return PERF_REG_ARM64_SP;
	if (r == UNW_AARCH64_PC)
		return PERF_REG_ARM64_PC;
	return -1;
}

/* A call leaves its return address in the link register, and a leaf
 * function need not touch the stack: the step out of the sampled frame
 * may find the caller at the same sp. */
#define LEAF_MAY_KEEP_SP true
#endif

/* The value of perf register reg in the sample, or false if absent. */
static bool sample_reg(const struct unwind_sample *s, int reg, uint64_t *out)
{
	if (reg < 0 || reg >= 64 || !(s->regs_mask & (1ULL << reg)) || !s->regs)
		return false;
	uint64_t below = s->regs_mask & ((1ULL << reg) - 1);
	*out = s->regs[__builtin_popcountll(below)];
	return true;
}

/* ---- module unwind info ---------------------------------------------- */

static bool read_bytes(const struct elf_file *ef, uint64_t vaddr, void *dst, size_t n)
{
	uint64_t off;
	if (elf_file_vaddr_to_offset(ef, vaddr, &off))
		return false;
	const void *p = elf_file_bytes(ef, off, n);
	if (!p)
		return false;
	memcpy(dst, p, n);
	return true;
}

/* Size of a fixed-size DW_EH_PE value, 0 for those we do not take. */
static size_t pe_size(uint8_t enc)
{
	switch (enc & PE_FORMAT_MASK) {
	case 0x00: return 8;	/* absptr */
	case 0x02: case 0x0a: return 2;
	case 0x03: case 0x0b: return 4;
	case 0x04: case 0x0c: return 8;
	default: return 0;
	}
}

static void mod_info_fill(struct mod_info *mi)
{
	const struct elf_file *ef = mi->ef;
	const struct elf_segment *segs;
	size_t nseg = elf_file_segments(ef, &segs);
	uint64_t hdr = 0, hdr_size = 0;
	bool have = false;
	mi->lo = UINT64_MAX;
	mi->hi = 0;
	for (size_t i = 0; i < nseg; i++) {
		if (segs[i].type == PT_LOAD) {
			if (segs[i].vaddr < mi->lo)
				mi->lo = segs[i].vaddr;
			if (segs[i].vaddr + segs[i].memsz > mi->hi)
				mi->hi = segs[i].vaddr + segs[i].memsz;
		} else if (segs[i].type == PT_GNU_EH_FRAME) {
			hdr = segs[i].vaddr;
			hdr_size = segs[i].filesz;
			have = true;
		}
	}
	if (!have) {
		const struct elf_section *sec = elf_file_section_by_name(ef, ".eh_frame_hdr");
		if (sec && sec->addr) {
			hdr = sec->addr;
			hdr_size = sec->size;
			have = true;
		}
	}
	if (!have || hdr_size < 4 || mi->lo >= mi->hi)
		return;
	uint8_t h[4];
	if (!read_bytes(ef, hdr, h, 4) || h[0] != 1 || h[3] != PE_DATAREL_SDATA4 ||
	    h[2] == PE_OMIT)
		return;
	size_t eptr = pe_size(h[1]), ncnt = pe_size(h[2]);
	if (!eptr || !ncnt || 4 + eptr + ncnt > hdr_size)
		return;
	uint64_t count = 0;
	uint8_t cb[8] = { 0 };
	if (!read_bytes(ef, hdr + 4 + eptr, cb, ncnt))
		return;
	memcpy(&count, cb, ncnt);	/* little-endian: the low bytes */
	if ((h[2] & 0x08) && ncnt < 8 && (cb[ncnt - 1] & 0x80))
		return;			/* a negative signed count */
	uint64_t table = hdr + 4 + eptr + ncnt;
	uint64_t room = hdr_size - (4 + eptr + ncnt);
	if (count == 0 || count > room / 8)
		return;			/* damaged: the table overruns */
	uint8_t probe[8];
	if (!read_bytes(ef, table + (count - 1) * 8, probe, 8))
		return;
	mi->hdr_vaddr = hdr;
	mi->table_vaddr = table;
	mi->fde_count = count;
	mi->ok = true;
}

static const struct mod_info *mod_info_get(struct unwinder *u, const struct elf_file *ef)
{
	for (size_t i = 0; i < u->nmods; i++)
		if (u->mods[i]->ef == ef)
			return u->mods[i];
	struct mod_info **p = realloc(u->mods, (u->nmods + 1) * sizeof(*p));
	if (!p)
		return NULL;
	u->mods = p;
	struct mod_info *mi = calloc(1, sizeof(*mi));
	if (!mi)
		return NULL;
	p[u->nmods++] = mi;
	mi->ef = ef;
	mod_info_fill(mi);
	return mi;
}

/* The module of the mapping holding addr, made active for this walk. */
static const struct active *activate(struct walk *w, uint64_t addr)
{
	const struct code_map *m = w->s->find_map ? w->s->find_map(w->s->find_arg, addr)
						  : NULL;
	if (!m || sym_path_is_anon(m->path))
		return NULL;
	const struct elf_file *ef = symbolizer_elf(w->u->sym, m->path, NULL);
	if (!ef)
		return NULL;
	const struct mod_info *mi = mod_info_get(w->u, ef);
	if (!mi)
		return NULL;
	uint64_t vaddr;
	if (elf_file_map_to_vaddr(ef, addr, m->start, m->pgoff, &vaddr))
		return NULL;
	uint64_t bias = addr - vaddr;
	for (size_t i = 0; i < w->nact; i++)
		if (w->act[i].mi == mi && w->act[i].bias == bias)
			return &w->act[i];
	size_t slot = w->nact < MAX_ACTIVE ? w->nact++ : MAX_ACTIVE - 1;
	w->act[slot].mi = mi;
	w->act[slot].bias = bias;
	return &w->act[slot];
}

/* ---- libunwind's accessors ------------------------------------------- */

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct walk *w = arg;
	const struct active *a = activate(w, ip);
	if (!a || !a->mi->ok) {
		w->no_info = true;
		return -UNW_ENOINFO;
	}
	const struct code_map *m = w->s->find_map(w->s->find_arg, ip);
	unw_dyn_info_t di;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->start;
	di.end_ip = m->start + m->len;
	di.u.rti.segbase = a->mi->hdr_vaddr + a->bias;
	di.u.rti.table_data = a->mi->table_vaddr + a->bias;
	di.u.rti.table_len = a->mi->fde_count * 8 / sizeof(unw_word_t);
	int rc = uw.UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi,
							need_unwind_info, arg);
	if (rc < 0)
		w->no_info = true;
	return rc;
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees table-format info itself. */
	(void)as;
	(void)pi;
	(void)arg;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dilap, void *arg)
{
	(void)as;
	(void)dilap;
	(void)arg;
	return -UNW_ENOINFO;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp,
		      int write, void *arg)
{
	(void)as;
	struct walk *w = arg;
	if (write)
		return -UNW_EINVAL;
	const struct unwind_sample *s = w->s;
	if (addr >= w->sp && addr - w->sp <= s->stack_size &&
	    s->stack_size - (addr - w->sp) >= sizeof(*valp)) {
		memcpy(valp, s->stack + (addr - w->sp), sizeof(*valp));
		return 0;
	}
	for (size_t i = 0; i < w->nact; i++) {
		const struct active *a = &w->act[i];
		if (addr - a->bias >= a->mi->lo && addr - a->bias < a->mi->hi &&
		    read_bytes(a->mi->ef, addr - a->bias, valp, sizeof(*valp)))
			return 0;
	}
	const struct active *a = activate(w, addr);
	if (a && read_bytes(a->mi->ef, addr - a->bias, valp, sizeof(*valp)))
		return 0;
	w->mem_fail = true;
	return -UNW_EINVAL;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp,
		      int write, void *arg)
{
	(void)as;
	struct walk *w = arg;
	if (write)
		return -UNW_EREADONLYREG;
	uint64_t v;
	if (!sample_reg(w->s, perf_reg_of(regnum), &v))
		return -UNW_EBADREG;
	*valp = v;
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val,
			int write, void *arg)
{
	(void)as;
	(void)num;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EINVAL;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	(void)as;
	(void)cu;
	(void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *bufp,
			 size_t buf_len, unw_word_t *offp, void *arg)
{
	(void)as;
	(void)addr;
	(void)bufp;
	(void)buf_len;
	(void)offp;
	(void)arg;
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

/* ---- the walk -------------------------------------------------------- */

int unwinder_load(char **cause)
{
	return dynlib_load(&libunwind, cause);
}

struct unwinder *unwinder_new(struct symbolizer *s)
{
	struct unwinder *u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->sym = s;
	if (dynlib_load(&libunwind, NULL)) {
		free(u);
		errno = ELIBACC;
		return NULL;
	}
	u->as = uw.unw_create_addr_space(&accessors, 0);
	if (!u->as) {
		free(u);
		errno = ENOMEM;
		return NULL;
	}
	/* libunwind caches the unwind rules of each ip it has seen; one
	 * address space serves every process of a run, so the cache is
	 * flushed whenever the process or its mappings change
	 * (unwinder_flush). */
	uw.unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	uw.unw_destroy_addr_space(u->as);
	for (size_t i = 0; i < u->nmods; i++)
		free(u->mods[i]);
	free(u->mods);
	free(u);
}

void unwinder_flush(struct unwinder *u)
{
	uw.unw_flush_cache(u->as, 0, 0);
}

const struct unwind_stats *unwinder_stats(const struct unwinder *u)
{
	return &u->stats;
}

size_t unwinder_unwind(struct unwinder *u, const struct unwind_sample *s,
		       uint64_t *ips, size_t max, enum unwind_stop *stopp)
{
	enum unwind_stop stop = UNWIND_STOP_ERROR;
	size_t n = 0;
	struct walk w;
	memset(&w, 0, sizeof(w));
	w.u = u;
	w.s = s;
	u->stats.samples++;
	uint64_t ip;
	if (max == 0 || !sample_reg(s, UNWIND_REG_IP, &ip) ||
	    !sample_reg(s, UNWIND_REG_SP, &w.sp))
		goto out;
	unw_cursor_t c;
	if (uw.unw_init_remote(&c, u->as, &w) < 0) {
		ips[n++] = ip;
		goto out;
	}
	uint64_t prev_sp = 0;
	for (;;) {
		unw_word_t cip = 0, csp = 0;
		if (uw.unw_get_reg(&c, UNW_REG_IP, &cip) < 0 || cip == 0) {
			stop = n ? UNWIND_STOP_END : UNWIND_STOP_ERROR;
			break;
		}
		uw.unw_get_reg(&c, UNW_REG_SP, &csp);
		/* The stack grows down: a caller's sp is above its callee's
		 * (or, on arm64, the sampled leaf's). Anything else is a
		 * loop in damaged unwind info. */
		if (n && (csp < prev_sp ||
			  (csp == prev_sp && !(LEAF_MAY_KEEP_SP && n == 1)))) {
			stop = UNWIND_STOP_ERROR;
			break;
		}
		prev_sp = csp;
		ips[n++] = cip;
		if (n == max) {
			stop = UNWIND_STOP_LIMIT;
			break;
		}
		w.no_info = w.mem_fail = false;
		int r = uw.unw_step(&c);
		if (r > 0)
			continue;
		/* Without unwind info libunwind tries a frame-pointer guess
		 * and may report the end; it is a stop for want of info. */
		if (w.no_info)
			stop = UNWIND_STOP_NO_INFO;
		else if (r == 0)
			stop = UNWIND_STOP_END;
		else if (w.mem_fail)
			stop = UNWIND_STOP_MEMORY;
		else
			stop = UNWIND_STOP_ERROR;
		break;
	}
out:
	u->stats.frames += n;
	u->stats.stops[stop]++;
	if (stopp)
		*stopp = stop;
	return n;
}
