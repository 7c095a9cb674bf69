/* errtext: strerror as prof's lowercase messages want it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/errtext.h"

const char *err_text(int err, char *buf, size_t n)
{
	int saved = errno;
	char tmp[ERR_TEXT_MAX];
	if (!n)
		return "";
	/* GNU strerror_r: returns a string, in tmp or static. */
	snprintf(buf, n, "%s", strerror_r(err < 0 ? -err : err, tmp, sizeof(tmp)));
	if (buf[0] >= 'A' && buf[0] <= 'Z' && !(buf[1] >= 'A' && buf[1] <= 'Z'))
		buf[0] = (char)(buf[0] - 'A' + 'a');
	errno = saved;
	return buf;
}
