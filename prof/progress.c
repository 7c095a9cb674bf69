/*
 * progress: the progress line of the long verbs and their clock; see
 * progress.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "prof/progress.h"

/* Carriage return, then erase to the end of the line. */
#define ERASE_LINE "\r\033[K"

void progress_line_init(struct progress_line *p, FILE *fp)
{
	p->fp = fp;
	p->tty = isatty(fileno(fp));
	p->drawn = false;
}

void progress_line_show(struct progress_line *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (p->tty)
		fputs(ERASE_LINE, p->fp);
	vfprintf(p->fp, fmt, ap);
	if (!p->tty)
		fputc('\n', p->fp);
	va_end(ap);
	fflush(p->fp);
	p->drawn = true;
}

void progress_line_clear(struct progress_line *p)
{
	if (p->tty)
		fputs(ERASE_LINE, p->fp);
}

double mono_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t mono_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
