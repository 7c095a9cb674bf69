/*
 * fault_workload: workloads for the fault tests, each showing prof one
 * fault it must survive.
 *
 *   tree DIR DEPTH [ignore]  a chain of DEPTH+1 processes (each the child of
 *                            the one before); process N writes its pid to
 *                            DIR/pid-N once it runs, then waits up to 60 s.
 *                            With "ignore" every one of them ignores
 *                            SIGINT, SIGTERM and SIGHUP.
 *   mark DIR                 write its pid to DIR/pid-0 and exit
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

static int write_pid(const char *dir, int level)
{
	char tmp[4096], path[4096];
	snprintf(tmp, sizeof(tmp), "%s/.pid-%d", dir, level);
	snprintf(path, sizeof(path), "%s/pid-%d", dir, level);
	FILE *fp = fopen(tmp, "w");
	if (!fp)
		return -1;
	fprintf(fp, "%d\n", (int)getpid());
	if (fclose(fp) != 0)
		return -1;
	return rename(tmp, path);	/* the test never sees half a number */
}

static int tree(const char *dir, int depth, int ignore)
{
	if (ignore) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
	}
	int level = 0;
	while (level < depth) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fault_workload: fork");
			return 1;
		}
		if (pid > 0)
			break;
		level++;
	}
	if (write_pid(dir, level) != 0) {
		perror("fault_workload: pid file");
		return 1;
	}
	/* Long enough for any test, short enough that a leak ends. */
	struct timespec left = { 60, 0 };
	while (nanosleep(&left, &left) != 0 && errno == EINTR)
		;
	return 0;
}

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
	if (argc >= 4 && !strcmp(argv[1], "tree"))
		return tree(argv[2], atoi(argv[3]), argc > 4 && !strcmp(argv[4], "ignore"));
	if (argc == 3 && !strcmp(argv[1], "mark"))
		return write_pid(argv[2], 0) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "fill"))
		return fill(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "fsize"))
		return fsize();
	fprintf(stderr, "usage: fault_workload tree DIR DEPTH [ignore] | mark DIR | fill PATH "
		"| fsize\n");
	return 2;
}
