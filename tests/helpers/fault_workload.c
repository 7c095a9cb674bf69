/*
 * fault_workload: workloads for the fault tests, each showing prof one
 * fault it must survive.
 *
 *   fill PATH                write zeros to PATH until the file system
 *                            refuses (a full disk), then exit 0
 *   fsize                    lower the parent's (prof's) file size limit
 *                            to 0, so its next write to a file fails, as
 *                            on a full disk, then exit 0
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int fill(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror("fault_workload: open");
		return 1;
	}
	static char zeros[65536];
	long long total = 0;
	ssize_t n;
	while ((n = write(fd, zeros, sizeof(zeros))) > 0)
		total += n;
	fprintf(stderr, "fault_workload: filled %lld bytes: %s\n", total,
		n < 0 ? strerror(errno) : "short write");
	close(fd);
	return 0;
}

static int fsize(void)
{
	struct rlimit old, lim;
	pid_t parent = getppid();
	if (prlimit(parent, RLIMIT_FSIZE, NULL, &old) != 0) {
		perror("fault_workload: prlimit");
		return 1;
	}
	lim.rlim_cur = 0;
	lim.rlim_max = old.rlim_max;
	if (prlimit(parent, RLIMIT_FSIZE, &lim, NULL) != 0) {
		perror("fault_workload: prlimit");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "fill"))
		return fill(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "fsize"))
		return fsize();
	fprintf(stderr, "usage: fault_workload fill PATH | fsize\n");
	return 2;
}
