/*
 * prof_marker.h: mark frames and zones for prof, from the program itself.
 *
 *   #include "prof_marker.h"
 *   ...
 *   prof_frame();                   once per presented frame
 *   prof_zone_begin("physics");     a named span inside a frame
 *   prof_zone_end("physics");
 *
 * When $PROF_MARKER_FD names a descriptor, each call writes one short
 * line to it: "F <ns>", "B <ns> <name>" or "E <ns> <name>", <ns> being
 * CLOCK_MONOTONIC in nanoseconds (the clock prof's perf records carry),
 * taken in the calling thread, so a frame's time does not depend on when
 * prof reads the line. prof's reader of these lines (issue 14: a pipe it
 * opens and names in the workload's environment) is still to come; the
 * format is fixed here. Not run under prof (no $PROF_MARKER_FD), each
 * call is one test of a static flag. A header only, C99 or later, no
 * dependency beyond POSIX; thread-safe (each line is one write(2), under
 * PIPE_BUF bytes, so lines from threads never interleave; but prof
 * drops a frame marker earlier than the one before it, so frames
 * marked from several threads must be marked in order). Zone names
 * longer than 63 bytes are cut.
 */
#ifndef PROF_MARKER_H
#define PROF_MARKER_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* -1: not yet looked; -2: not under prof; else the descriptor. */
static int prof_marker_fd_ = -1;

static inline int prof_marker_fd(void)
{
	if (prof_marker_fd_ == -1) {
		const char *s = getenv("PROF_MARKER_FD");
		int fd = s && *s ? atoi(s) : -2;
		prof_marker_fd_ = fd >= 0 ? fd : -2;
	}
	return prof_marker_fd_;
}

static inline void prof_marker_emit_(char kind, const char *name)
{
	int fd = prof_marker_fd();
	if (fd < 0)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	char line[128];
	int n = snprintf(line, sizeof(line), "%c %lld%s%.63s\n", kind,
			 (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec,
			 name ? " " : "", name ? name : "");
	if (n > 0 && write(fd, line, (size_t)n) < 0)
		prof_marker_fd_ = -2;	/* prof went away: stop trying */
}

static inline void prof_frame(void)
{
	prof_marker_emit_('F', NULL);
}

static inline void prof_zone_begin(const char *name)
{
	prof_marker_emit_('B', name);
}

static inline void prof_zone_end(const char *name)
{
	prof_marker_emit_('E', name);
}

#endif
