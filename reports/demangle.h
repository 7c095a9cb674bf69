/*
 * demangle: the readable form of a symbol name as compilers mangle it,
 * for the reports that print symbols: C++ under the Itanium ABI (GCC and
 * Clang: _Z...) and Rust, both its legacy scheme (_ZN...17h<hash>E) and
 * v0 (_R...). Plain C names, and anything else that is not a mangled
 * name, are left alone.
 *
 * The work is libiberty's cplus_demangle(), the demangler of c++filt,
 * gdb and perf, with DMGL_PARAMS | DMGL_ANSI: parameter types and
 * const/volatile, as c++filt prints C++ names. Without DMGL_VERBOSE Rust
 * names lose their hash (std::rt::lang_start, not ...::h1234abcd) and v0
 * names their crate disambiguators (mycrate::main, not mycrate[3c1c0]::
 * main), as perf and rustfilt print them: noise in a report.
 *
 * Why libiberty and not libstdc++'s __cxa_demangle: on the 388 C++
 * names of a test binary (namespaces, templates, overloads, lambdas, the
 * standard library) both gave exactly what c++filt prints, and
 * __cxa_demangle was somewhat faster (1.7-2.3 us a name against 2.2-3.3
 * us, 100,000 names, this 2-CPU VM); but it knows no Rust, and it would
 * bring the C++ runtime into a C program. A report demangles each
 * distinct symbol once, so even 10,000 symbols cost some 30 ms.
 *
 * Thread-safe: the demangler keeps no state between calls.
 */
#ifndef REPORTS_DEMANGLE_H
#define REPORTS_DEMANGLE_H

/*
 * The demangled form of name, malloc'd (the caller frees it), or NULL
 * when name is not a mangled name this knows, or is a malformed one, or
 * memory ran out: then print name as it is. A GCC clone suffix stays, as
 * c++filt prints it: _Z3fooi.constprop.0 is "foo(int) [clone
 * .constprop.0]".
 */
char *demangle_name(const char *name);

#endif
