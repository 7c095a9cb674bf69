/*
 * symbolize: the addresses of a sampled process as (module, symbol,
 * offset), for prof record.
 *
 * An address is resolved through the mapping that holds it (a struct
 * code_map, from the process's address space as the ring buffer's MMAP2
 * records rebuilt it):
 *   - a file mapping: the ELF file's .symtab and .dynsym (collectors/elf),
 *     at the address's ELF virtual address; a file without .symtab (a
 *     stripped one) gets its separate debug file's symbols too, found by
 *     build id, debug link or debuginfod (collectors/debuginfo), once;
 *     and with lines, the source line and innermost (inlined) function
 *     from the DWARF of the file or of its debug file (collectors/srcline);
 *   - anonymous executable memory, or an address in no known mapping: the
 *     process's jitdump (collectors/jitdump: jit-PID.dump, registered when
 *     the JIT maps it), where code loads carry times, so the code that was
 *     at the address when the sample was taken names it; else its JIT
 *     map, /tmp/perf-PID.map, without times (the last name written at an
 *     address wins); each re-read when it has grown since a miss, and
 *     the module is the file's own path;
 *   - kernel addresses: /proc/kallsyms where it shows addresses (root, or
 *     kptr_restrict 0), as module "[kernel.kallsyms]";
 * and where nothing matches, the symbol is NULL (reports print
 * "[unknown]") and the offset says where: the ELF virtual address in a
 * file, the offset from the mapping's start in anonymous or kernel-made
 * mappings ([vdso]), the address itself in "[unknown]".
 *
 * Each ELF file is opened once and kept (its mapping, symbols and build
 * id) until symbolizer_free(); a file that cannot be read is remembered
 * with its error, so it is tried once. The unwinder reads the same open
 * files (symbolizer_elf).
 *
 * Ownership: every string returned (module paths, symbol names) is owned
 * by the symbolizer and stays valid, at a stable address, until
 * symbolizer_free(); callers may key tables on the pointers. Not
 * thread-safe: one symbolizer per thread (prof record's worker owns one).
 */
#ifndef COLLECTORS_SYMBOLIZE_H
#define COLLECTORS_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/debuginfo.h"
#include "collectors/elf.h"

/* One executable mapping of a process, as a sample's address needs it. */
struct code_map {
	uint64_t start, len;	/* runtime addresses [start, start + len) */
	uint64_t pgoff;		/* file offset of start */
	const char *path;	/* as the kernel named it: a file, "//anon",
				 * "[vdso]", "/memfd:..." */
};

/* Module names for addresses outside any file. */
#define SYM_MODULE_KERNEL "[kernel.kallsyms]"
#define SYM_MODULE_UNKNOWN "[unknown]"

struct sym_frame {
	const char *module;	/* owned by the symbolizer; never NULL */
	const char *symbol;	/* owned by the symbolizer; NULL: unknown */
	uint64_t offset;	/* into the symbol, else see above */
	uint32_t jit_generation;	/* from a jitdump: which code at that
					 * address (1, 2, ...); else 0 */
	/* From the file's DWARF (its own, or its debug file's), when the
	 * symbolizer was asked for lines: the source line, and the
	 * innermost function there, an inlined one where the compiler
	 * inlined it. Owned by the symbolizer; NULL or 0 where unknown. */
	const char *src_file;
	uint32_t src_line;
	const char *src_function;
	/* The inlined functions at the address, outermost first, one a
	 * line ("mid\nleaf"); NULL where none. */
	const char *src_inlines;
};

/*
 * Which modules' source lines to look up. Opening a distribution's debug
 * file is costly (libc6-dbg's compressed DWARF: 130-150 ms here, once
 * per run, for libc alone), so by default only DWARF that is the user's
 * own is read: in the module itself, or in a debug file found beside it
 * or under the caller's debug root.
 */
enum sym_lines {
	SYM_LINES_NONE,
	SYM_LINES_OWN,		/* not from /usr/lib/debug nor debuginfod */
	SYM_LINES_ALL,
};

struct symbolizer_opts {
	const char *perf_map_dir;	/* where perf-PID.map files are; NULL: /tmp */
	const char *kallsyms;		/* NULL: /proc/kallsyms; "": none */
	const char *debug_dir;		/* debug root before /usr/lib/debug, or NULL */
	bool debuginfod;		/* may ask DEBUGINFOD_URLS' servers */
	enum sym_lines lines;		/* source lines from DWARF (srcline) */
};

struct symbolizer;

/* NULL and errno on failure. */
struct symbolizer *symbolizer_new(const struct symbolizer_opts *opts);
void symbolizer_free(struct symbolizer *s);

/* True when path names no file: "//anon", "[vdso]", "/memfd:...". */
bool sym_path_is_anon(const char *path);

/*
 * Resolve addr of process pid: kernel says it is a kernel address; m is
 * the mapping holding it (NULL when none does). Never fails: what cannot
 * be found comes back unknown, as described above.
 */
void symbolizer_lookup(struct symbolizer *s, uint32_t pid, const struct code_map *m,
		       uint64_t addr, bool kernel, struct sym_frame *out);
/* The same for a sample taken at time (CLOCK_MONOTONIC ns), which a
 * jitdump needs; symbolizer_lookup() asks for the code there now. */
void symbolizer_lookup_at(struct symbolizer *s, uint32_t pid, const struct code_map *m,
			  uint64_t addr, bool kernel, uint64_t time, struct sym_frame *out);

/*
 * Process pid mapped the jitdump at path (a file named jit-PID.dump): its
 * anonymous code is named from it from now on. Read at the first look-up
 * and again when it grows. 0 or -ENOMEM.
 */
int symbolizer_add_jitdump(struct symbolizer *s, uint32_t pid, const char *path);
/* True when pid has a jitdump: its anonymous code's names change over
 * time, so no cache may keep them by address alone. */
bool symbolizer_has_jitdump(const struct symbolizer *s, uint32_t pid);
/* Call fn for every jitdump registered; stops at a non-zero return. */
struct jitdump_stats;
int symbolizer_for_each_jitdump(struct symbolizer *s,
				int (*fn)(void *arg, uint32_t pid, const char *path,
					  const struct jitdump_stats *st),
				void *arg);

/* Read kallsyms now rather than at the first kernel address (it takes
 * the kernel tens of milliseconds to print). */
void symbolizer_load_kernel(struct symbolizer *s);

/* What kallsyms gave, once read. */
enum sym_kernel_state {
	SYM_KERNEL_NOT_READ,	/* no kernel address asked yet, nor loaded */
	SYM_KERNEL_NAMED,	/* addresses shown: kernel frames get names */
	SYM_KERNEL_HIDDEN,	/* every address 0: kptr_restrict hides them */
	SYM_KERNEL_UNREADABLE,	/* no file, or no symbol in it ("" is none) */
};
enum sym_kernel_state symbolizer_kernel_state(const struct symbolizer *s);
/* /proc/sys/kernel/kptr_restrict, or -1 when unreadable. */
int sym_kptr_restrict(void);

/*
 * The ELF file at path, opened once and kept, or NULL when it cannot be
 * read (then *error, if not NULL, says why; borrowed).
 */
const struct elf_file *symbolizer_elf(struct symbolizer *s, const char *path,
				      const char **error);

/* The build id of the file at path as lowercase hex, or NULL. Borrowed. */
const char *symbolizer_build_id(struct symbolizer *s, const char *path);

/* What the symbolizer knows of one ELF file it read. */
struct sym_module_info {
	const char *path;
	const char *build_id;		/* NULL when none */
	const char *error;		/* why it could not be read, or NULL */
	bool has_symtab;		/* its own .symtab: no debug file needed */
	enum debuginfo_via via;		/* where the debug file came from */
	const char *debug_path;		/* it, or NULL */
	const char *debug_note;		/* why none was found, or NULL */
	uint64_t lookups, unknown;	/* addresses asked, and left unnamed */
};

/* Call fn for every ELF file read so far, in no set order; stops at the
 * first non-zero return and returns it. */
int symbolizer_for_each_module(struct symbolizer *s,
			       int (*fn)(void *arg, const struct sym_module_info *),
			       void *arg);

const struct debuginfo_stats *symbolizer_debuginfo_stats(const struct symbolizer *s);

/* An interned copy of str: the same pointer for the same text. NULL on
 * ENOMEM. */
const char *symbolizer_intern(struct symbolizer *s, const char *str);

#endif
