/*
 * topo_msg: the messages of the topology modules (cpumask.c, topology.c,
 * topo_pin.c): a formatted cause and user or file text echoed safely.
 * See topo_internal.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/topo_internal.h"

char *topo_msg(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* Hands msg (which may be NULL) to *cause, or frees it. */
void topo_cause_give(char **cause, char *msg)
{
	if (cause)
		*cause = msg;
	else
		free(msg);
}

/* Copies text for echoing in a message: no trailing newline, control
 * characters shown as '?', cut at TOPO_ECHO_MAX with "...". */
const char *topo_echo(const char *s, char *buf, size_t len)
{
	size_t n = 0, i;
	for (i = 0; s[i] && n + 4 < len; i++) {
		if (i >= TOPO_ECHO_MAX)
			break;
		unsigned char c = (unsigned char)s[i];
		if (c == '\n' && s[i + 1] == '\0')
			break;
		buf[n++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (s[i] && !(s[i] == '\n' && s[i + 1] == '\0')) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}
