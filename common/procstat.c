/* procstat: see procstat.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/procstat.h"

int proc_stat_parse(const char *line, struct proc_stat *ps)
{
	/* pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime priority nice threads
	 * itrealvalue starttime ... */
	const char *p = strrchr(line, ')');
	memset(ps, 0, sizeof(*ps));
	if (!p || sscanf(p + 1, " %c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu"
			 " %*d %*d %*d %*d %*d %*d %llu", &ps->state, &ps->ppid,
			 &ps->pgrp, &ps->utime, &ps->stime, &ps->starttime) != 6)
		return -EINVAL;
	return 0;
}

int proc_stat_read(const char *pid, const char *tid, struct proc_stat *ps)
{
	char path[128], line[1024];
	if (tid)
		snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, line, sizeof(line) - 1);
	int err = errno;
	close(fd);
	if (n < 0)
		return -err;
	line[n] = '\0';
	return proc_stat_parse(line, ps);
}

int proc_stat_read_pid(pid_t pid, pid_t tid, struct proc_stat *ps)
{
	char p[24], t[24];
	snprintf(p, sizeof(p), "%d", (int)pid);
	snprintf(t, sizeof(t), "%d", (int)tid);
	return proc_stat_read(p, tid ? t : NULL, ps);
}
