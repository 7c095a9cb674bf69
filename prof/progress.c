/*
 * progress: the progress line of the long verbs; see progress.h.
 */
#include <stdarg.h>
#include <stdio.h>
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

