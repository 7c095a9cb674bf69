/*
 * kwrites: a kernel-heavy workload for prof record's kernel call chains:
 * N small writes (64 bytes each, N from argv[1], default 200,000) to an
 * unlinked file in $TMPDIR or /tmp, rewinding every 1,024 so the file
 * stays small. Most of its time is in the kernel, several frames deep
 * (the syscall entry, the VFS, the file system).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof(path), "%s/kwrites-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("kwrites: mkstemp");
		return 1;
	}
	unlink(path);
	char buf[64] = { 0 };
	for (long i = 0; i < n; i++) {
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("kwrites: write");
			return 1;
		}
		if ((i & 1023) == 1023 && lseek(fd, 0, SEEK_SET) < 0) {
			perror("kwrites: lseek");
			return 1;
		}
	}
	close(fd);
	return 0;
}
