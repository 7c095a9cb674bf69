/*
 * elf: prof's own reader of ELF files, for the sizes of a code module
 * (working-set attribution) and for symbolizing samples (prof record).
 * It reads little-endian ELFCLASS64 and ELFCLASS32 files (x86-64, aarch64,
 * i386, arm ...) with nothing but <elf.h>; big-endian files are refused as
 * unsupported.
 *
 * elf_file_open() maps the file read-only and checks every header against
 * the file's size: the ELF header, the program and section header tables,
 * the section name table and the extent of every section and loadable
 * segment. A malformed or truncated file is refused there with a negative
 * errno and a cause; the later calls bounds-check what they read (notes,
 * symbols, strings) the same way. Opening touches the headers only, never
 * the whole file.
 *
 * Ownership: a struct elf_file owns its mapping (an image opened with
 * elf_file_open_mem() stays the caller's); sections, segments and
 * their names are borrowed from it and live until elf_file_close(). A
 * struct elf_symtab owns copies of its names and outlives the file it was
 * loaded from. Causes are malloc'd; the caller frees them.
 *
 * Thread-safety: none of these functions changes an open file or a loaded
 * table, so any number of threads may read one concurrently. If another
 * process truncates a file while it is mapped, reading it raises SIGBUS;
 * builds replace files by rename, which leaves the mapping intact.
 *
 * Addresses: "vaddr" is the ELF file's own virtual address space (what nm
 * and readelf print). A sample's runtime address becomes a vaddr through
 * its mapping: file offset = addr - map_start + pgoff (as in
 * /proc/PID/maps or PERF_RECORD_MMAP2), then elf_file_offset_to_vaddr().
 * elf_file_map_to_vaddr() does both steps. Relocatable objects (.o) have
 * no load addresses; their symbol values are section-relative.
 */
#ifndef COLLECTORS_ELF_H
#define COLLECTORS_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest build id accepted, in bytes (sha1 ids are 20); its hex form
 * needs twice this plus a NUL. */
#define ELF_BUILD_ID_MAX 64
#define ELF_BUILD_ID_HEX_SIZE (2 * ELF_BUILD_ID_MAX + 1)

struct elf_file;

struct elf_info {
	unsigned bits;		/* 32 or 64 (ELFCLASS32 / ELFCLASS64) */
	uint16_t type;		/* ET_EXEC, ET_DYN (PIE or shared object), ... */
	uint16_t machine;	/* EM_X86_64, EM_AARCH64, ... */
	uint64_t entry;		/* e_entry, a vaddr */
	uint64_t file_size;	/* bytes */
};

struct elf_section {
	const char *name;	/* borrowed from the mapping; "" when unnamed */
	uint32_t index;		/* in the section header table */
	uint32_t type;		/* SHT_* */
	uint64_t flags;		/* SHF_* */
	uint64_t addr;		/* sh_addr, a vaddr (0 for unallocated ones) */
	uint64_t offset;	/* sh_offset in the file */
	uint64_t size;		/* sh_size, bytes */
	uint32_t link, info;
	uint64_t addralign;
	uint64_t entsize;
};

struct elf_segment {
	uint32_t type;		/* PT_* */
	uint32_t flags;		/* PF_R | PF_W | PF_X */
	uint64_t offset;	/* p_offset in the file */
	uint64_t vaddr;
	uint64_t filesz, memsz;
	uint64_t align;
};

/* The sizes `prof modules` reports for a code module. */
struct elf_sizes {
	bool has_sections;	/* false when the section headers were stripped */
	bool has_text;		/* a section named .text exists */
	uint64_t text_bytes;	/* size of .text, 0 without one */
	uint64_t exec_bytes;	/* sum over SHF_ALLOC|SHF_EXECINSTR sections */
	size_t nexec;		/* how many such sections */
};

/*
 * Map and check the ELF file at path. 0 and *out set, or a negative errno
 * and *cause (when cause is not NULL): -ENOENT, -EACCES, -EISDIR ... from
 * the file system; -ENOEXEC for an empty or non-ELF file; -ENOTSUP for a
 * big-endian or unknown class; -EINVAL for a malformed or truncated one.
 */
int elf_file_open(const char *path, struct elf_file **out, char **cause);
/*
 * The same checks over an ELF image already in memory (a copy of the
 * vdso, a file read some other way): len bytes at buf, borrowed, which
 * must stay valid and unchanged until elf_file_close(). name stands for
 * the path in causes and in elf_file_path(). Errors as for
 * elf_file_open(), less the file system's.
 */
int elf_file_open_mem(const void *buf, size_t len, const char *name,
		      struct elf_file **out, char **cause);
/* Unmap (when it mapped the file itself) and free; accepts NULL. */
void elf_file_close(struct elf_file *ef);

const char *elf_file_path(const struct elf_file *ef);
const struct elf_info *elf_file_info(const struct elf_file *ef);

/* All section headers in file order (index 0 is the null section), and the
 * executable ones (SHF_ALLOC|SHF_EXECINSTR: .init, .plt, .text, .fini ...)
 * in file order. Both return the count and point *out at the array. */
size_t elf_file_sections(const struct elf_file *ef, const struct elf_section **out);
size_t elf_file_exec_sections(const struct elf_file *ef,
			      const struct elf_section **out);
/* The first section with this name, or NULL. */
const struct elf_section *elf_file_section_by_name(const struct elf_file *ef,
						   const char *name);
void elf_file_sizes(const struct elf_file *ef, struct elf_sizes *out);

/*
 * The file's bytes [offset, offset + len), borrowed from the mapping (valid
 * until elf_file_close()), or NULL when that range is not inside the file.
 * For readers of section contents this module does not parse itself (the
 * unwinder reads .eh_frame_hdr and .eh_frame through it).
 */
const void *elf_file_bytes(const struct elf_file *ef, uint64_t offset,
			   uint64_t len);

/* Program headers in file order. */
size_t elf_file_segments(const struct elf_file *ef, const struct elf_segment **out);

/*
 * The GNU build id (NT_GNU_BUILD_ID), from the PT_NOTE segments or, when
 * they hold none, the SHT_NOTE sections, as lowercase hex into hex[size]
 * (size >= ELF_BUILD_ID_HEX_SIZE always suffices). 0 on success; -ENOENT
 * when the file has none; -EINVAL with *cause for a malformed note;
 * -ENOSPC when hex is too small.
 */
int elf_file_build_id(const struct elf_file *ef, char *hex, size_t size,
		      char **cause);

/*
 * The .gnu_debuglink of the file: the name of its separate debug file
 * (borrowed from the mapping) and the CRC-32 of that file's bytes, as
 * objcopy --add-gnu-debuglink writes them. 0; -ENOENT when the file has
 * none; -EINVAL with *cause when the section holds no NUL-terminated
 * name followed by its CRC.
 */
int elf_file_debuglink(const struct elf_file *ef, const char **name,
		       uint32_t *crc, char **cause);

/* True when the file has a full symbol table (.symtab), not only the
 * dynamic one that stripping leaves. */
bool elf_file_has_symtab(const struct elf_file *ef);

/*
 * File offset to vaddr through the PT_LOAD segment whose file bytes hold
 * it: vaddr = offset - p_offset + p_vaddr. 0, or -ENOENT when no loadable
 * segment holds that offset (for instance the page-rounded head of a
 * mapping, before its segment starts).
 */
int elf_file_offset_to_vaddr(const struct elf_file *ef, uint64_t offset,
			     uint64_t *vaddr);
/* The inverse, for a vaddr inside some PT_LOAD's file bytes. 0 or -ENOENT. */
int elf_file_vaddr_to_offset(const struct elf_file *ef, uint64_t vaddr,
			     uint64_t *offset);
/*
 * A runtime address inside a mapping of this file that starts at map_start
 * with file offset pgoff, to a vaddr. 0; -ERANGE when addr < map_start;
 * -ENOENT as for elf_file_offset_to_vaddr().
 */
int elf_file_map_to_vaddr(const struct elf_file *ef, uint64_t addr,
			  uint64_t map_start, uint64_t pgoff, uint64_t *vaddr);

/*
 * A symbol table sorted by address, for symbolizing. One entry per
 * address; each covers [addr, addr + size).
 */
struct elf_sym {
	uint64_t addr;
	uint64_t size;		/* > 0; see elf_symtab_load() for size-0 symbols */
	const char *name;	/* owned by the table */
};

struct elf_symtab;

/*
 * Load the function symbols of .symtab and .dynsym (both when both exist;
 * either alone otherwise), de-duplicated by address. STT_FUNC and
 * STT_GNU_IFUNC symbols that are defined and named are kept. Where several
 * share an address, one is kept, preferring a sized one, then STT_FUNC
 * over an ifunc, then global over local over weak, then the fewest leading
 * underscores (malloc over __libc_malloc), then the longest name, then
 * the name's byte order: perf's choice, so both name aliases alike.
 * A symbol of size 0 covers up to the next symbol, but not beyond the end
 * of its section; with neither bound it covers its own address alone.
 * A file with no symbols gives an empty table. 0, or a negative errno
 * (-EINVAL for a malformed table, -ENOMEM) with *cause.
 */
int elf_symtab_load(const struct elf_file *ef, struct elf_symtab **out,
		    char **cause);

/*
 * The same over two files: a runtime file and its separate debug file
 * (objcopy --only-keep-debug keeps the addresses, so both tables speak
 * the runtime file's vaddrs). Symbols of both are merged as one table,
 * ranked as above; debug may be NULL.
 */
int elf_symtab_load_with_debug(const struct elf_file *ef,
			       const struct elf_file *debug,
			       struct elf_symtab **out, char **cause);

/*
 * Parse a JIT symbol map as perf documents for /tmp/perf-PID.map: one
 * "START SIZE name" per line, START and SIZE hex (a 0x prefix is allowed),
 * the name the rest of the line. Lines that do not parse (blank, missing
 * fields, bad hex, an empty name, START + SIZE past 2^64) are skipped and
 * counted in *junk (when junk is not NULL). Where several lines share a
 * START, the last one wins, as a JIT that reuses memory writes it later.
 * A SIZE of 0 is read as in elf_symtab_load(), with no section bound.
 * The _file variant reads fp to its end and leaves it open.
 */
int elf_symtab_load_perf_map(const char *path, struct elf_symtab **out,
			     size_t *junk, char **cause);
int elf_symtab_load_perf_map_file(FILE *fp, struct elf_symtab **out,
				  size_t *junk, char **cause);

void elf_symtab_free(struct elf_symtab *st);

size_t elf_symtab_count(const struct elf_symtab *st);
/* The i-th symbol in address order; i < elf_symtab_count(). */
const struct elf_sym *elf_symtab_at(const struct elf_symtab *st, size_t i);

/*
 * The symbol covering addr (a vaddr for ELF tables, a runtime address for
 * perf maps) and addr's offset into it (offset may be NULL), or NULL when
 * none does; that is an answer, not an error, and errno is left alone.
 * A binary search, O(log n), no allocation. Where symbols overlap, the one
 * that starts last among those covering addr wins (the inner one of two
 * nested functions).
 */
const struct elf_sym *elf_symtab_lookup(const struct elf_symtab *st,
					uint64_t addr, uint64_t *offset);

#endif
