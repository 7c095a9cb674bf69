/*
 * srcline: source lines and inlined functions of addresses through
 * libdw; see srcline.h.
 */
#include "collectors/srcline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/dynlib.h"

/* libdw, loaded at the first file opened for its lines (a report --by
 * line, a record's line look-ups): nothing else in prof needs it. */
static struct {
	DYNLIB_FN(dwarf_begin);
	DYNLIB_FN(dwarf_end);
	DYNLIB_FN(dwarf_attr_integrate);
	DYNLIB_FN(dwarf_formstring);
	DYNLIB_FN(dwarf_child);
	DYNLIB_FN(dwarf_tag);
	DYNLIB_FN(dwarf_haspc);
	DYNLIB_FN(dwarf_siblingof);
	DYNLIB_FN(dwarf_addrdie);
	DYNLIB_FN(dwarf_getsrc_die);
	DYNLIB_FN(dwarf_linesrc);
	DYNLIB_FN(dwarf_lineno);
} dwfn;
static const struct dynlib_sym dw_syms[] = {
	DYNLIB_SYM(dwfn, dwarf_begin),
	DYNLIB_SYM(dwfn, dwarf_end),
	DYNLIB_SYM(dwfn, dwarf_attr_integrate),
	DYNLIB_SYM(dwfn, dwarf_formstring),
	DYNLIB_SYM(dwfn, dwarf_child),
	DYNLIB_SYM(dwfn, dwarf_tag),
	DYNLIB_SYM(dwfn, dwarf_haspc),
	DYNLIB_SYM(dwfn, dwarf_siblingof),
	DYNLIB_SYM(dwfn, dwarf_addrdie),
	DYNLIB_SYM(dwfn, dwarf_getsrc_die),
	DYNLIB_SYM(dwfn, dwarf_linesrc),
	DYNLIB_SYM(dwfn, dwarf_lineno),
};
static struct dynlib libdw = DYNLIB_INIT("libdw.so.1", dw_syms);

/* File and function names are libdw's: they live as long as dw. */
struct srcline {
	int fd;
	Dwarf *dw;
};

int srcline_load(char **cause)
{
	return dynlib_load(&libdw, cause);
}

struct srcline *srcline_open(const char *path)
{
	if (dynlib_load(&libdw, NULL)) {
		errno = ELIBACC;
		return NULL;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	Dwarf *dw = dwfn.dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		close(fd);
		errno = ENODATA;
		return NULL;
	}
	struct srcline *sl = calloc(1, sizeof(*sl));
	if (!sl) {
		dwfn.dwarf_end(dw);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	sl->fd = fd;
	sl->dw = dw;
	return sl;
}

void srcline_free(struct srcline *sl)
{
	if (!sl)
		return;
	dwfn.dwarf_end(sl->dw);
	close(sl->fd);
	free(sl);
}

/* A scope's name, through its abstract origin (an inlined instance has
 * none of its own): the linkage name where there is one, so that reports
 * demangle it as they do symbols. */
static const char *scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = NULL;
	if (dwfn.dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwfn.dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		name = dwfn.dwarf_formstring(&attr);
	if (!name && dwfn.dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwfn.dwarf_formstring(&attr);
	return name;
}

/*
 * Search parent's children for the scope holding pc, and go on inside it.
 * C++ puts out-of-line definitions under namespaces and classes, which
 * have no address ranges of their own: look inside them, and go on with
 * their siblings when pc is not there. True when a scope was found.
 */
static bool find_scope(Dwarf_Die *parent, Dwarf_Addr pc, struct src_loc *out, int depth)
{
	Dwarf_Die child;
	if (depth > 64 || dwfn.dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwfn.dwarf_tag(&child);
		switch (tag) {
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
			if (find_scope(&child, pc, out, depth + 1))
				return true;
			continue;
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
			break;
		default:
			continue;
		}
		if (dwfn.dwarf_haspc(&child, pc) <= 0)
			continue;
		if (tag != DW_TAG_lexical_block) {
			const char *name = scope_name(&child);
			if (name)
				out->function = name;
			if (tag == DW_TAG_inlined_subroutine) {
				if (out->inlined < SRC_INLINE_MAX)
					out->inlines[out->inlined] = name ? name : "?";
				out->inlined++;
			} else {
				out->inlined = 0;
			}
		}
		find_scope(&child, pc, out, depth + 1);
		return true;
	} while (dwfn.dwarf_siblingof(&child, &child) == 0);
	return false;
}

int srcline_lookup(struct srcline *sl, uint64_t vaddr, struct src_loc *out)
{
	memset(out, 0, sizeof(*out));
	Dwarf_Die cu;
	if (!dwfn.dwarf_addrdie(sl->dw, (Dwarf_Addr)vaddr, &cu))
		return -ENOENT;
	Dwarf_Line *line = dwfn.dwarf_getsrc_die(&cu, (Dwarf_Addr)vaddr);
	if (line) {
		int lineno = 0;
		out->file = dwfn.dwarf_linesrc(line, NULL, NULL);
		if (dwfn.dwarf_lineno(line, &lineno) == 0 && lineno > 0)
			out->line = (uint32_t)lineno;
	}
	/* Down the scope tree to the innermost function holding vaddr; the
	 * inlined instances passed on the way count how deep it is. A walk
	 * of its own: dwarf_getscopes() took 175 us an address on prof's
	 * own binary here. */
	find_scope(&cu, (Dwarf_Addr)vaddr, out, 0);
	return 0;
}
