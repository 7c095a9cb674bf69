/*
 * pkglib: the library files prof carries; see pkglib.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/pkglib.h"

static char *found(const char *path)
{
	return access(path, R_OK) == 0 ? strdup(path) : NULL;
}

char *pkglib_find(const char *file, const char *env, char *looked, size_t n)
{
	const char *forced = env ? getenv(env) : NULL;
	char self[PATH_MAX], beside[PATH_MAX + 64] = "", installed[PATH_MAX];
	char *path;
	if (forced && *forced) {
		if ((path = found(forced)))
			return path;
		if (looked)
			snprintf(looked, n, "%s='%.200s'", env, forced);
		errno = ENOENT;
		return NULL;
	}
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len > 0) {
		self[len] = '\0';
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = '\0';
		snprintf(beside, sizeof(beside), "%s/%s", self, file);
		if ((path = found(beside)))
			return path;
	}
	snprintf(installed, sizeof(installed), "%s/%s", PROF_PKGLIBDIR, file);
	if ((path = found(installed)))
		return path;
	if (looked)
		snprintf(looked, n, "%s and %s", *beside ? beside : "(prof's directory)",
			 installed);
	errno = ENOENT;
	return NULL;
}
