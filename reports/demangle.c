/*
 * demangle: C++ and Rust symbol names made readable through libiberty;
 * see demangle.h.
 */
#include <stddef.h>

#include <libiberty/demangle.h>

#include "reports/demangle.h"

char *demangle_name(const char *name)
{
	/* Every C++ and Rust scheme starts so; anything else (most names
	 * of a C program) costs one comparison, not a parse. */
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	/* No style bits: cplus_demangle tries Rust first, then C++. The
	 * order matters, as a legacy Rust name is a valid C++ name too. */
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}
