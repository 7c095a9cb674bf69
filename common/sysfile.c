#include "common/sysfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sysfile_line(const char *path, char *buf, size_t n)
{
	buf[0] = '\0';
	FILE *fp = fopen(path, "re");
	if (!fp)
		return -errno;
	int rc = 0;
	if (!fgets(buf, (int)(n > 0x7fffffff ? 0x7fffffff : n), fp)) {
		rc = SYSFILE_NO_LINE;
		buf[0] = '\0';
	}
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
	return rc;
}

char *sysfile_line_dup(const char *path)
{
	char buf[4096];
	int rc = sysfile_line(path, buf, sizeof(buf));
	if (rc != 0) {
		errno = rc < 0 ? -rc : ENODATA;
		return NULL;
	}
	return strdup(buf);
}
