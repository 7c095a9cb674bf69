/*
 * symbolize: addresses to (module, symbol, offset) through ELF symbol
 * tables, perf JIT maps and kallsyms, each file read once; see
 * symbolize.h.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "collectors/jitdump.h"
#include "collectors/srcline.h"
#include "collectors/symbolize.h"

/* An ELF file, opened on first use. */
struct sym_module {
	char *path;
	struct elf_file *ef;		/* NULL: unreadable, see error */
	struct elf_symtab *st;		/* NULL until loaded, or unreadable */
	bool symtab_tried;
	bool has_symtab;
	struct debuginfo_result debug;	/* searched when there is no .symtab,
					 * or no DWARF for lines */
	bool debug_searched;
	struct srcline *src;		/* NULL until opened, or none */
	bool src_tried;
	char *error;
	char build_id[ELF_BUILD_ID_HEX_SIZE];
	uint64_t lookups, unknown;
};

/* A process's JIT map. */
struct perf_map {
	uint32_t pid;
	char *path;			/* "/tmp/perf-PID.map" */
	struct elf_symtab *st;		/* NULL when absent */
	off_t size;			/* the file's size when read; -1 absent */
};

/* A process's jitdump, as its JIT mapped it. */
struct jit_proc {
	uint32_t pid;
	struct jitdump *jd;
	const char *module;		/* the dump's path, interned */
	off_t size;			/* the file's size when last read */
	uint64_t read_at;		/* CLOCK_MONOTONIC ns of that read */
};

/* Open addressing over interned strings (and modules by path). */
struct strtab {
	char **keys;
	void **vals;
	size_t cap, n;
};

struct symbolizer {
	struct symbolizer_opts o;
	char *perf_map_dir;
	char *kallsyms_path;
	struct strtab strings;		/* interned text -> itself */
	struct strtab modules;		/* path -> struct sym_module */
	struct debuginfo *debug;
	struct perf_map *maps;
	size_t nmaps;
	struct jit_proc *jits;
	size_t njits;
	struct ksym *ksyms;
	size_t nksyms;
	char *knames;
	bool kallsyms_tried;
	enum sym_kernel_state kstate;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

/* The slot of key: where it is, or where it would go. */
static size_t strtab_slot(const struct strtab *t, const char *key)
{
	size_t mask = t->cap - 1;
	size_t i = (size_t)str_hash(key) & mask;
	while (t->keys[i] && strcmp(t->keys[i], key))
		i = (i + 1) & mask;
	return i;
}

static void *strtab_get(const struct strtab *t, const char *key)
{
	if (!t->cap)
		return NULL;
	size_t i = strtab_slot(t, key);
	return t->keys[i] ? t->vals[i] : NULL;
}

/* Insert key (owned by the table from now on) with val. */
static int strtab_put(struct strtab *t, char *key, void *val)
{
	if ((t->n + 1) * 2 > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		char **nk = calloc(ncap, sizeof(*nk));
		void **nv = calloc(ncap, sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return -ENOMEM;
		}
		struct strtab nt = { nk, nv, ncap, 0 };
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->keys[i])
				continue;
			size_t j = strtab_slot(&nt, t->keys[i]);
			nk[j] = t->keys[i];
			nv[j] = t->vals[i];
		}
		free(t->keys);
		free(t->vals);
		nt.n = t->n;
		*t = nt;
	}
	size_t i = strtab_slot(t, key);
	t->keys[i] = key;
	t->vals[i] = val;
	t->n++;
	return 0;
}

struct symbolizer *symbolizer_new(const struct symbolizer_opts *opts)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (opts)
		s->o = *opts;
	s->perf_map_dir = strdup(s->o.perf_map_dir ? s->o.perf_map_dir : "/tmp");
	s->kallsyms_path = strdup(s->o.kallsyms ? s->o.kallsyms : "/proc/kallsyms");
	struct debuginfo_opts dopts = { s->o.debug_dir, s->o.debuginfod };
	s->debug = debuginfo_new(&dopts);
	if (!s->perf_map_dir || !s->kallsyms_path || !s->debug) {
		symbolizer_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

static void module_free(struct sym_module *m)
{
	if (!m)
		return;
	elf_symtab_free(m->st);
	srcline_free(m->src);
	debuginfo_result_release(&m->debug);
	elf_file_close(m->ef);
	free(m->error);
	free(m->path);
	free(m);
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->modules.cap; i++) {
		free(s->modules.keys[i]);
		module_free(s->modules.vals[i]);
	}
	free(s->modules.keys);
	free(s->modules.vals);
	for (size_t i = 0; i < s->strings.cap; i++)
		free(s->strings.keys[i]);
	free(s->strings.keys);
	free(s->strings.vals);
	for (size_t i = 0; i < s->nmaps; i++) {
		free(s->maps[i].path);
		elf_symtab_free(s->maps[i].st);
	}
	free(s->maps);
	for (size_t i = 0; i < s->njits; i++)
		jitdump_free(s->jits[i].jd);
	free(s->jits);
	free(s->ksyms);
	free(s->knames);
	free(s->perf_map_dir);
	free(s->kallsyms_path);
	debuginfo_free(s->debug);
	free(s);
}

const char *symbolizer_intern(struct symbolizer *s, const char *str)
{
	const char *have = strtab_get(&s->strings, str);
	if (have)
		return have;
	char *copy = strdup(str);
	if (!copy || strtab_put(&s->strings, copy, copy)) {
		free(copy);
		return NULL;
	}
	return copy;
}

bool sym_path_is_anon(const char *path)
{
	return !path || path[0] != '/' || !strncmp(path, "//anon", 6) ||
	       !strncmp(path, "/memfd:", 7) || !strncmp(path, "/dev/zero", 9) ||
	       !strncmp(path, "/SYSV", 5) || !strncmp(path, "/anon_hugepage", 14);
}

static struct sym_module *module_get(struct symbolizer *s, const char *path)
{
	struct sym_module *m = strtab_get(&s->modules, path);
	if (m)
		return m;
	m = calloc(1, sizeof(*m));
	char *key = strdup(path);
	if (!m || !key || !(m->path = strdup(path))) {
		free(m);
		free(key);
		return NULL;
	}
	if (elf_file_open(path, &m->ef, &m->error) != 0) {
		m->ef = NULL;
		if (!m->error)
			m->error = strdup("cannot read the file");
	} else if (elf_file_build_id(m->ef, m->build_id, sizeof(m->build_id), NULL)) {
		m->build_id[0] = '\0';
	}
	if (strtab_put(&s->modules, key, m)) {
		free(key);
		module_free(m);
		return NULL;
	}
	return m;
}

const struct elf_file *symbolizer_elf(struct symbolizer *s, const char *path,
				      const char **error)
{
	struct sym_module *m = module_get(s, path);
	if (error)
		*error = m ? m->error : "out of memory";
	return m ? m->ef : NULL;
}

const char *symbolizer_build_id(struct symbolizer *s, const char *path)
{
	struct sym_module *m = module_get(s, path);
	return m && m->build_id[0] ? m->build_id : NULL;
}

/*
 * The module's symbols, loaded at its first look-up: its own tables, and
 * where it has no .symtab those of its debug file too (a stripped
 * library's .dynsym names only what it exports; perf names
 * __memmove_avx512_unaligned_erms in libc from libc6-dbg's .symtab).
 */
static void module_find_debug(struct symbolizer *s, struct sym_module *m)
{
	if (m->debug_searched)
		return;
	m->debug_searched = true;
	debuginfo_find(s->debug, m->ef, m->build_id[0] ? m->build_id : NULL, &m->debug);
}

static bool has_dwarf(const struct elf_file *ef)
{
	const struct elf_section *d = ef ? elf_file_section_by_name(ef, ".debug_info") : NULL;
	return d && d->type != SHT_NOBITS && d->size;
}

/* The module's DWARF, opened at its first line look-up: the file's own,
 * else its debug file's (searched now if the symbols did not need it),
 * where the options allow (enum sym_lines). */
static struct srcline *module_srcline(struct symbolizer *s, struct sym_module *m)
{
	if (m->src_tried || !m->ef)
		return m->src;
	m->src_tried = true;
	if (has_dwarf(m->ef)) {
		m->src = srcline_open(m->path);
		return m->src;
	}
	module_find_debug(s, m);
	if (!has_dwarf(m->debug.ef))
		return NULL;
	bool system = m->debug.via == DEBUGINFO_DEBUGINFOD ||
		      !strncmp(m->debug.path, DEBUGINFO_ROOT_DEFAULT "/",
			       strlen(DEBUGINFO_ROOT_DEFAULT) + 1);
	if (s->o.lines == SYM_LINES_ALL || !system)
		m->src = srcline_open(m->debug.path);
	return m->src;
}

static const struct elf_symtab *module_symtab(struct symbolizer *s,
					      struct sym_module *m)
{
	if (!m->symtab_tried && m->ef) {
		m->symtab_tried = true;
		m->has_symtab = elf_file_has_symtab(m->ef);
		if (!m->has_symtab)
			module_find_debug(s, m);
		char *cause = NULL;
		if (elf_symtab_load_with_debug(m->ef, m->debug.ef, &m->st, &cause) != 0) {
			m->st = NULL;
			if (!m->error)
				m->error = cause;
			else
				free(cause);
		}
	}
	return m->st;
}

/* ---- JIT maps ------------------------------------------------------- */

static struct perf_map *perf_map_get(struct symbolizer *s, uint32_t pid)
{
	for (size_t i = 0; i < s->nmaps; i++)
		if (s->maps[i].pid == pid)
			return &s->maps[i];
	struct perf_map *p = realloc(s->maps, (s->nmaps + 1) * sizeof(*p));
	if (!p)
		return NULL;
	s->maps = p;
	struct perf_map *pm = &p[s->nmaps];
	memset(pm, 0, sizeof(*pm));
	pm->pid = pid;
	pm->size = -1;
	if (asprintf(&pm->path, "%s/perf-%u.map", s->perf_map_dir, pid) < 0)
		return NULL;
	s->nmaps++;
	return pm;
}

/* (Re-)read the map when the file is new or has grown since. */
static void perf_map_refresh(struct perf_map *pm)
{
	struct stat sb;
	if (stat(pm->path, &sb) != 0 || sb.st_size == pm->size)
		return;
	struct elf_symtab *st = NULL;
	if (elf_symtab_load_perf_map(pm->path, &st, NULL, NULL) != 0)
		return;
	elf_symtab_free(pm->st);
	pm->st = st;
	pm->size = sb.st_size;
}

static bool perf_map_lookup(struct symbolizer *s, uint32_t pid, uint64_t addr,
			    struct sym_frame *out)
{
	struct perf_map *pm = perf_map_get(s, pid);
	if (!pm)
		return false;
	const struct elf_sym *y = pm->st ? elf_symtab_lookup(pm->st, addr, &out->offset)
					 : NULL;
	if (!y) {
		perf_map_refresh(pm);
		y = pm->st ? elf_symtab_lookup(pm->st, addr, &out->offset) : NULL;
	}
	if (!y)
		return false;
	out->module = pm->path;
	out->symbol = y->name;
	return true;
}

/* ---- jitdumps -------------------------------------------------------- */

static struct jit_proc *jit_proc_of(const struct symbolizer *s, uint32_t pid)
{
	for (size_t i = s->njits; i-- > 0;)
		if (s->jits[i].pid == pid)
			return &s->jits[i];
	return NULL;
}

int symbolizer_add_jitdump(struct symbolizer *s, uint32_t pid, const char *path)
{
	struct jit_proc *jp = jit_proc_of(s, pid);
	if (jp && !strcmp(jitdump_path(jp->jd), path))
		return 0;
	const char *module = symbolizer_intern(s, path);
	struct jitdump *jd = module ? jitdump_new(path) : NULL;
	if (!jd)
		return -ENOMEM;
	if (jp) {
		/* The process started another dump (an exec'd JIT): the new
		 * one speaks for it from now on. */
		jitdump_free(jp->jd);
		*jp = (struct jit_proc){ pid, jd, module, -1, 0 };
		return 0;
	}
	struct jit_proc *v = realloc(s->jits, (s->njits + 1) * sizeof(*v));
	if (!v) {
		jitdump_free(jd);
		return -ENOMEM;
	}
	s->jits = v;
	s->jits[s->njits++] = (struct jit_proc){ pid, jd, module, -1, 0 };
	return 0;
}

bool symbolizer_has_jitdump(const struct symbolizer *s, uint32_t pid)
{
	return jit_proc_of(s, pid) != NULL;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A JIT writes a code load before the code runs, so a read of the file
 * that began after a sample's time holds every load that can name it:
 * the file is read again (when it grew) only for samples taken after the
 * last read began. A code that is found could yet have been replaced
 * since, so a hit does not spare the read.
 */
static void jit_catch_up(struct jit_proc *jp, uint64_t time)
{
	if (time != UINT64_MAX && time < jp->read_at)
		return;
	uint64_t now = monotonic_ns();
	struct stat sb;
	if (stat(jitdump_path(jp->jd), &sb) != 0)
		return;
	jp->read_at = now;
	if (sb.st_size == jp->size)
		return;
	jp->size = sb.st_size;
	jitdump_refresh(jp->jd, NULL);
}

static bool jit_lookup(struct symbolizer *s, uint32_t pid, uint64_t addr, uint64_t time,
		       struct sym_frame *out)
{
	struct jit_proc *jp = jit_proc_of(s, pid);
	if (!jp)
		return false;
	jit_catch_up(jp, time);
	const struct jit_code *c = jitdump_lookup(jp->jd, addr, time, &out->offset);
	if (!c)
		return false;
	out->module = jp->module;
	out->symbol = c->name;
	out->jit_generation = c->generation;
	return true;
}

int symbolizer_for_each_jitdump(struct symbolizer *s,
				int (*fn)(void *arg, uint32_t pid, const char *path,
					  const struct jitdump_stats *st),
				void *arg)
{
	for (size_t i = 0; i < s->njits; i++) {
		jitdump_index(s->jits[i].jd);
		int rc = fn(arg, s->jits[i].pid, s->jits[i].module,
			    jitdump_stats(s->jits[i].jd));
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- kallsyms ------------------------------------------------------- */

/* Kernel text symbols, sorted; each reaches up to the next. */
struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset into kallsyms_names */
};

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/*
 * /proc/kallsyms' text symbols ("ADDR t name [module]"). All-zero
 * addresses (kptr_restrict) give an empty table. Read once; 120,000
 * lines take the kernel about 80 ms to print here, so callers load it
 * before the workload starts (symbolizer_load_kernel).
 */
static void kallsyms_load(struct symbolizer *s)
{
	s->kallsyms_tried = true;
	if (!s->kallsyms_path[0]) {
		s->kstate = SYM_KERNEL_UNREADABLE;
		return;
	}
	FILE *in = fopen(s->kallsyms_path, "r");
	if (!in) {
		s->kstate = SYM_KERNEL_UNREADABLE;
		return;
	}
	size_t cap = 0, names_cap = 0, names_len = 0, hidden = 0;
	char line[512];
	while (fgets(line, sizeof(line), in)) {
		char *end;
		unsigned long long a = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		if (a == 0) {
			hidden++;
			continue;
		}
		char type = (char)tolower((unsigned char)end[1]);
		if (type != 't' && type != 'w')
			continue;
		char *name = end + 3;
		size_t nl = strcspn(name, " \t\n");
		if (!nl)
			continue;
		if (s->nksyms == cap) {
			cap = cap ? cap * 2 : 4096;
			struct ksym *p = realloc(s->ksyms, cap * sizeof(*p));
			if (!p)
				break;
			s->ksyms = p;
		}
		if (names_len + nl + 1 > names_cap) {
			names_cap = names_cap ? names_cap * 2 : 65536;
			while (names_cap < names_len + nl + 1)
				names_cap *= 2;
			char *p = realloc(s->knames, names_cap);
			if (!p)
				break;
			s->knames = p;
		}
		memcpy(s->knames + names_len, name, nl);
		s->knames[names_len + nl] = '\0';
		s->ksyms[s->nksyms].addr = a;
		s->ksyms[s->nksyms].name = (uint32_t)names_len;
		s->nksyms++;
		names_len += nl + 1;
	}
	fclose(in);
	if (s->nksyms)
		qsort(s->ksyms, s->nksyms, sizeof(*s->ksyms), ksym_cmp);
	s->kstate = s->nksyms ? SYM_KERNEL_NAMED
		  : hidden ? SYM_KERNEL_HIDDEN : SYM_KERNEL_UNREADABLE;
}

enum sym_kernel_state symbolizer_kernel_state(const struct symbolizer *s)
{
	return s->kstate;
}

int sym_kptr_restrict(void)
{
	int v = -1;
	FILE *fp = fopen("/proc/sys/kernel/kptr_restrict", "r");
	if (fp) {
		if (fscanf(fp, "%d", &v) != 1)
			v = -1;
		fclose(fp);
	}
	return v;
}

void symbolizer_load_kernel(struct symbolizer *s)
{
	if (!s->kallsyms_tried)
		kallsyms_load(s);
}

/* The kernel symbol at or below addr (the last of equal addresses). */
static const struct ksym *ksym_lookup(const struct symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nksyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &s->ksyms[lo - 1] : NULL;
}

/* ---- lookups -------------------------------------------------------- */

/* The inline chain of loc as one interned string, a name a line. */
static const char *join_inlines(struct symbolizer *s, const struct src_loc *loc)
{
	size_t n = loc->inlined < SRC_INLINE_MAX ? loc->inlined : SRC_INLINE_MAX;
	if (!n)
		return NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	if (!fp)
		return NULL;
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%s%s", i ? "\n" : "", loc->inlines[i]);
	if (fclose(fp) != 0) {
		free(text);
		return NULL;
	}
	const char *joined = symbolizer_intern(s, text);
	free(text);
	return joined;
}

void symbolizer_lookup(struct symbolizer *s, uint32_t pid, const struct code_map *m,
		       uint64_t addr, bool kernel, struct sym_frame *out)
{
	symbolizer_lookup_at(s, pid, m, addr, kernel, UINT64_MAX, out);
}

void symbolizer_lookup_at(struct symbolizer *s, uint32_t pid, const struct code_map *m,
			  uint64_t addr, bool kernel, uint64_t time, struct sym_frame *out)
{
	out->symbol = NULL;
	out->offset = 0;
	out->jit_generation = 0;
	out->src_file = out->src_function = out->src_inlines = NULL;
	out->src_line = 0;
	if (kernel) {
		out->module = SYM_MODULE_KERNEL;
		if (!s->kallsyms_tried)
			kallsyms_load(s);
		const struct ksym *k = ksym_lookup(s, addr);
		if (k) {
			out->symbol = s->knames + k->name;
			out->offset = addr - k->addr;
		} else {
			out->offset = addr;
		}
		return;
	}
	if (!m || sym_path_is_anon(m->path)) {
		if (jit_lookup(s, pid, addr, time, out) || perf_map_lookup(s, pid, addr, out))
			return;
		if (!m) {
			out->module = SYM_MODULE_UNKNOWN;
			out->offset = addr;
			return;
		}
		out->module = symbolizer_intern(s, m->path);
		if (!out->module)
			out->module = SYM_MODULE_UNKNOWN;
		out->offset = addr - m->start;
		return;
	}
	struct sym_module *mod = module_get(s, m->path);
	if (!mod) {
		out->module = SYM_MODULE_UNKNOWN;
		out->offset = addr;
		return;
	}
	out->module = mod->path;
	uint64_t vaddr;
	if (!mod->ef || elf_file_map_to_vaddr(mod->ef, addr, m->start, m->pgoff, &vaddr)) {
		/* No file to read: the file offset is what is left to say. */
		out->offset = addr - m->start + m->pgoff;
		return;
	}
	const struct elf_symtab *st = module_symtab(s, mod);
	const struct elf_sym *y = st ? elf_symtab_lookup(st, vaddr, &out->offset) : NULL;
	mod->lookups++;
	if (y) {
		out->symbol = y->name;
	} else {
		out->offset = vaddr;
		mod->unknown++;
	}
	struct src_loc loc;
	struct srcline *src = s->o.lines != SYM_LINES_NONE ? module_srcline(s, mod) : NULL;
	if (src && srcline_lookup(src, vaddr, &loc) == 0) {
		out->src_file = loc.file ? symbolizer_intern(s, loc.file) : NULL;
		out->src_line = out->src_file ? loc.line : 0;
		out->src_function = loc.function ? symbolizer_intern(s, loc.function) : NULL;
		out->src_inlines = join_inlines(s, &loc);
	}
}

int symbolizer_for_each_module(struct symbolizer *s,
			       int (*fn)(void *arg, const struct sym_module_info *),
			       void *arg)
{
	for (size_t i = 0; i < s->modules.cap; i++) {
		const struct sym_module *m = s->modules.vals[i];
		if (!m)
			continue;
		struct sym_module_info mi = {
			.path = m->path,
			.build_id = m->build_id[0] ? m->build_id : NULL,
			.error = m->error, .has_symtab = m->has_symtab,
			.via = m->debug.via, .debug_path = m->debug.path,
			.debug_note = m->debug.note,
			.lookups = m->lookups, .unknown = m->unknown,
		};
		int rc = fn(arg, &mi);
		if (rc)
			return rc;
	}
	return 0;
}

const struct debuginfo_stats *symbolizer_debuginfo_stats(const struct symbolizer *s)
{
	return debuginfo_stats(s->debug);
}
