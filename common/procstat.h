/*
 * procstat: the fields prof reads from /proc/PID/stat (and a thread's
 * /proc/PID/task/TID/stat): state, parent, process group, CPU times and
 * start time. One parser for the line, whose second field (the name in
 * parentheses) may hold spaces and parentheses: the fields after it are
 * counted from its last ')'. Returns 0 or a negative errno; no state,
 * thread-safe.
 */
#ifndef COMMON_PROCSTAT_H
#define COMMON_PROCSTAT_H

#include <stddef.h>
#include <sys/types.h>

struct proc_stat {
	char state;			/* field 3: R, S, Z, ... */
	int ppid;			/* field 4 */
	int pgrp;			/* field 5 */
	unsigned long long utime;	/* field 14, clock ticks */
	unsigned long long stime;	/* field 15, clock ticks */
	unsigned long long starttime;	/* field 22, clock ticks after boot */
};

/* One stat line as the kernel writes it: 0, or -EINVAL where it is not. */
int proc_stat_parse(const char *line, struct proc_stat *ps);

/*
 * Read and parse /proc/<pid>/stat (pid as text, as a /proc directory
 * entry names it), or, with tid, /proc/<pid>/task/<tid>/stat. 0, -errno
 * where the file cannot be read (-ENOENT: no such process), or -EINVAL.
 */
int proc_stat_read(const char *pid, const char *tid, struct proc_stat *ps);

/* The same for a pid_t (tid 0: the process's own file). */
int proc_stat_read_pid(pid_t pid, pid_t tid, struct proc_stat *ps);

#endif
