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

/* File and function names are libdw's: they live as long as dw. */
struct srcline {
	int fd;
	Dwarf *dw;
};

struct srcline *srcline_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		close(fd);
		errno = ENODATA;
		return NULL;
	}
	struct srcline *sl = calloc(1, sizeof(*sl));
	if (!sl) {
		dwarf_end(dw);
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
	dwarf_end(sl->dw);
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
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		name = dwarf_formstring(&attr);
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
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
	if (depth > 64 || dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
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
		if (dwarf_haspc(&child, pc) <= 0)
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
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

int srcline_lookup(struct srcline *sl, uint64_t vaddr, struct src_loc *out)
{
	memset(out, 0, sizeof(*out));
	Dwarf_Die cu;
	if (!dwarf_addrdie(sl->dw, (Dwarf_Addr)vaddr, &cu))
		return -ENOENT;
	Dwarf_Line *line = dwarf_getsrc_die(&cu, (Dwarf_Addr)vaddr);
	if (line) {
		int lineno = 0;
		out->file = dwarf_linesrc(line, NULL, NULL);
		if (dwarf_lineno(line, &lineno) == 0 && lineno > 0)
			out->line = (uint32_t)lineno;
	}
	/* Down the scope tree to the innermost function holding vaddr; the
	 * inlined instances passed on the way count how deep it is. A walk
	 * of its own: dwarf_getscopes() took 175 us an address on prof's
	 * own binary here. */
	find_scope(&cu, (Dwarf_Addr)vaddr, out, 0);
	return 0;
}
