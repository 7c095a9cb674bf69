/* cause: filling a char **cause (common/cause.h). */
#include <stdarg.h>
#include <stdio.h>

#include "common/cause.h"

int cause_set(char **cause, int err, const char *fmt, ...)
{
	if (cause) {
		va_list ap;
		va_start(ap, fmt);
		if (vasprintf(cause, fmt, ap) < 0)
			*cause = NULL;
		va_end(ap);
	}
	return err < 0 ? err : -err;
}
