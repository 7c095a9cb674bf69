/*
 * xalloc: allocations that end the program when memory runs out, for the
 * code where stopping loses nothing (the policy is in xalloc.h).
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xalloc.h"

_Noreturn void xalloc_die(void)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;
	static const char msg[] = "fatal: out of memory\n";
	/* write(2), not stdio: printing must not need memory itself. */
	if (!atomic_flag_test_and_set(&said) && write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
		/* nothing more can be said */
	}
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		xalloc_die();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		xalloc_die();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		xalloc_die();
	return q;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		xalloc_die();
	return d;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);
	if (!d)
		xalloc_die();
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0)
		xalloc_die();
	return s;
}
