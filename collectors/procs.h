/*
 * procs: which process started which, so that the threads of a run can
 * be grouped into its process tree.
 *
 * A process is born once with a parent: the kernel's PERF_RECORD_FORK of
 * a new process (one whose tid is its pid) names the process that forked
 * it (ppid is the forking task's process, for fork, vfork, clone and
 * posix_spawn alike); a thread's FORK names its own process and adds
 * nothing. The processes prof did not see start (the launched command,
 * forked by prof; an attached process) are added by hand, their parent
 * read from /proc. A parent is the one at birth: a process reparented
 * later (its parent exited) keeps it.
 *
 * Process ids are reused on busy machines, so each birth keeps its time
 * and a look-up names the time of the thread asked about.
 *
 * Owned by its creator (procs_new/procs_free). Not thread-safe.
 */
#ifndef COLLECTORS_PROCS_H
#define COLLECTORS_PROCS_H

#include <stdint.h>
#include <sys/types.h>

#include "collectors/threads.h"

struct procs;

/* NULL and errno on failure. */
struct procs *procs_new(void);
void procs_free(struct procs *p);

/* Process pid was born at time (CLOCK_MONOTONIC ns; 0: before the run)
 * with parent ppid. 0 or -ENOMEM. */
int procs_add(struct procs *p, int32_t pid, int32_t ppid, uint64_t time);

/* A decoded record: the FORK of a new process adds it. 0 or -ENOMEM. */
int procs_feed(struct procs *p, const struct perf_rec *rec);

/*
 * The parent of process pid as seen by a thread that started at time
 * (0: unknown): the parent of the latest birth of pid not after time,
 * else of its earliest. 0 when no birth of pid is known.
 */
int32_t procs_parent(const struct procs *p, int32_t pid, uint64_t time);

/* The parent of a live process, from /proc/PID/stat; 0 when unreadable. */
int32_t procs_read_parent(pid_t pid);

#endif
