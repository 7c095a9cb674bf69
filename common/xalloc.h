/*
 * xalloc: the one way prof ends on a failed allocation, and the rule for
 * when it may.
 *
 * prof's out-of-memory policy:
 *
 *  - Library code (collectors/, db/, and the parts of prof/ that hold
 *    measured data) returns -ENOMEM, or NULL with errno set to ENOMEM,
 *    like any other failure, and its header says which. The caller says
 *    "error: ... out of memory" and keeps what it has: a run's counts are
 *    lost if the process stops after the workload has run, so nothing
 *    that holds measured data may end the program (the collectors, db/
 *    while storing, the run engine once the workload has started).
 *
 *  - Where stopping loses nothing, a failed allocation may end the
 *    program, but only through this family: a report (recomputed from the
 *    database, which it only reads), the parsing and planning a verb does
 *    before it launches anything. These print "fatal: out of memory" once
 *    to stderr and abort(), as a failed allocation did before there was a
 *    policy (the exit status is SIGABRT's, so a core can be had); nothing
 *    else in collectors/, db/, reports/ or prof/ calls abort(). This
 *    message is the one thing outside prof/ that prints: collectors/
 *    resolving event names before a run (events.c, probe.c) uses it too.
 *
 * docs/errors.md says the same for users. Thread-safe: the message is
 * written once even when two threads run out together.
 */
#ifndef COMMON_XALLOC_H
#define COMMON_XALLOC_H

#include <stddef.h>

/* Print "fatal: out of memory" (once) and abort(). For a check the
 * helpers below do not cover: `if (!a || !b) xalloc_die();`. */
_Noreturn void xalloc_die(void);

/* malloc, calloc, realloc, strdup, strndup, asprintf that never return
 * NULL (a size of 0 asks for 1 byte, so NULL is never a success). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
