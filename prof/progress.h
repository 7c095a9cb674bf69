/*
 * progress: the one progress line a long verb (ab, sleep) keeps on
 * stderr; the monotonic clock it measures elapsed time with is the run
 * engine's (mono_now_s, prof/run/run.h). On a
 * terminal each update replaces the line in place; anywhere else (a log,
 * a pipe) each update is a line of its own, so nothing is lost and no
 * escape codes reach a file. Caller-owned struct; not thread-safe.
 */
#ifndef PROF_PROGRESS_H
#define PROF_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "prof/run/run.h"

struct progress_line {
	FILE *fp;
	bool tty;	/* fp is a terminal: updates overwrite */
	bool drawn;	/* an update was printed */
};

/* Write to fp (stderr for the verbs); tty from isatty(fileno(fp)). */
void progress_line_init(struct progress_line *p, FILE *fp);

/* Replace the line (terminal) or print one more (elsewhere); flushes. */
void progress_line_show(struct progress_line *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Erase the line on a terminal, before other output; nothing elsewhere. */
void progress_line_clear(struct progress_line *p);

#endif
