/*
 * pkglib: where prof finds the libraries it loads or preloads (the sleep
 * interposer, the pprof encoder): the file named by an environment
 * variable where one is set, else beside the prof that runs (a build
 * tree), else in the package library directory (an installed prof).
 * Prints nothing; no shared state.
 */
#ifndef COMMON_PKGLIB_H
#define COMMON_PKGLIB_H

#include <stddef.h>

/*
 * The path of file (a malloc'd string, the caller's), or NULL where it is
 * not readable in any of those places; then errno is ENOENT and looked
 * (when not NULL) says where it looked, as "X and Y" (or the variable's
 * value alone, when env is set).
 */
char *pkglib_find(const char *file, const char *env, char *looked, size_t n);

#endif
