/*
 * print: the run engine's one way out to a person. Every warning, note,
 * hint and remark of the engine goes through run_print, to the function
 * the caller installed with run_set_print (prof/ installs the one that
 * prints where its remarks go); with none installed the engine is silent.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "prof/run/internal.h"
#include "prof/run/run.h"

static run_print_fn print_fn;

run_print_fn run_set_print(run_print_fn fn)
{
	run_print_fn old = print_fn;
	print_fn = fn;
	return old;
}

void run_print(enum run_print_level level, const char *fmt, ...)
{
	if (!print_fn)
		return;
	va_list ap;
	va_start(ap, fmt);
	print_fn(level, fmt, ap);
	va_end(ap);
}

void run_warn_cause(const char *cause)
{
	if (!cause || !*cause) {
		run_warn("unknown failure");
		return;
	}
	/* The first line takes the prefix; later lines carry their own, and
	 * the sink ends the text with the one newline. */
	size_t len = strlen(cause);
	if (cause[len - 1] == '\n')
		len--;
	run_warn("%.*s", (int)len, cause);
}
