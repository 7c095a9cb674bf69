/*
 * dynlib: a shared library opened at its first use, for what only some
 * verbs need (libpfm4 to encode events, libdw for source lines,
 * libunwind for DWARF call stacks, elfutils' debuginfod client). Linked
 * at build time, each would be loaded, relocated and initialised by
 * every prof that starts, `prof --help` and `prof report` included: the
 * three first cost a start about 1 ms here (docs/cost.md).
 *
 * A library is described once, with its functions as members of one
 * struct whose types are taken from the library's own header:
 *
 *	static struct {
 *		DYNLIB_FN(dwarf_begin);
 *		DYNLIB_FN(dwarf_end);
 *	} dw;
 *	static const struct dynlib_sym dw_syms[] = {
 *		DYNLIB_SYM(dw, dwarf_begin), DYNLIB_SYM(dw, dwarf_end),
 *	};
 *	static struct dynlib libdw = DYNLIB_INIT("libdw.so.1", dw_syms);
 *
 * and called as dw.dwarf_begin(...) once dynlib_load(&libdw, ...) has
 * said 0. A name the header makes a macro of (libunwind's unw_step is
 * _Ux86_64_step) is looked up by what the macro expands to. Prints
 * nothing.
 */
#ifndef COMMON_DYNLIB_H
#define COMMON_DYNLIB_H

#include <stddef.h>

struct dynlib_sym {
	const char *name;
	void **slot;
};

struct dynlib {
	const char *soname;
	const struct dynlib_sym *syms;
	size_t nsyms;
	int state;		/* 0 not tried, 1 loaded, -1 failed */
	char *why;		/* why it failed, once it has */
};

#define DYNLIB_XSTR(x) DYNLIB_STR(x)
#define DYNLIB_STR(x) #x
/* A member named f, a pointer to a function of f's type. */
#define DYNLIB_FN(f) __typeof__(f) *f
#define DYNLIB_SYM(s, f) { DYNLIB_XSTR(f), (void **)&(s).f }
#define DYNLIB_INIT(soname, syms) \
	{ (soname), (syms), sizeof(syms) / sizeof((syms)[0]), 0, NULL }

/*
 * Opens lib->soname and fills every symbol's slot, the first time it is
 * called (thread-safe); later calls say the same. 0 when every symbol is
 * there; -ELIBACC when the library cannot be opened or lacks one, with
 * *cause (when cause is not NULL; the caller's) as "cannot load
 * libdw.so.1: <the loader's reason>". The library stays loaded.
 */
int dynlib_load(struct dynlib *lib, char **cause);

#endif
