/*
 * srcline: the source line of a code address and the function it is in
 * by the debug info, the innermost inlined function where the compiler
 * inlined one, through elfutils' libdw (DWARF 2 to 5, split units, the
 * compressed sections distributions ship). prof's own ELF reader names
 * symbols; DWARF's line programs and scope trees are libdw's to read.
 *
 * A struct srcline wraps one ELF file that has .debug_info: a program
 * built with -g, or the separate debug file of a stripped one
 * (collectors/debuginfo finds it). Addresses are that file's vaddrs (as
 * for elf_symtab_lookup()).
 *
 * Ownership: strings returned are libdw's, owned by the srcline, and live
 * until srcline_free().
 * Not thread-safe: one per thread.
 */
#ifndef COLLECTORS_SRCLINE_H
#define COLLECTORS_SRCLINE_H

#include <stdint.h>

#define SRC_INLINE_MAX 16

struct src_loc {
	const char *file;	/* as the line table names it; NULL: none */
	uint32_t line;		/* 0: none */
	const char *function;	/* the innermost function holding the
				 * address, inlined or not, by its DWARF
				 * name (linkage name where it has one);
				 * NULL: no scope found */
	uint32_t inlined;	/* how many inlined calls deep that is */
	/* The inlined functions themselves, outermost first (the caller's
	 * own function is not one); the first SRC_INLINE_MAX of them. */
	const char *inlines[SRC_INLINE_MAX];
};

struct srcline;

/* Loads libdw, once: 0, or -ELIBACC with *cause (the caller's) naming the
 * library and why it would not load. */
int srcline_load(char **cause);

/*
 * Open the file at path for its debug info. NULL and errno: ENOENT,
 * EACCES ... from the file system; ENODATA when it has no DWARF (a
 * stripped file); ELIBACC when libdw.so.1 cannot be loaded (it is, at
 * the first call); ENOMEM.
 */
struct srcline *srcline_open(const char *path);
void srcline_free(struct srcline *sl);

/* The source location of vaddr. 0 with *out set (fields NULL or 0 where
 * the debug info does not say); -ENOENT when no unit covers vaddr. */
int srcline_lookup(struct srcline *sl, uint64_t vaddr, struct src_loc *out);

#endif
