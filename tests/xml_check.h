/*
 * xml_check: what the picture tests ask of SVG and HTML text: that
 * xmllint (libxml2-utils) finds it well-formed, and how often a piece
 * of markup occurs in it (series, axes). Header-only, like test_util.h.
 */
#ifndef TESTS_XML_CHECK_H
#define TESTS_XML_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether xmllint is on PATH: the tests that need it skip without it. */
static inline bool xc_have_xmllint(void)
{
	return system("command -v xmllint >/dev/null 2>&1") == 0;
}

/*
 * xmllint --noout on text (as XML, or with html as HTML, where it still
 * reports unclosed and mismatched tags): 0 when it is well-formed, else
 * xmllint's status, with its complaints on stderr.
 */
static inline int xc_lint(const char *text, bool html)
{
	char path[] = "/tmp/prof-test-xml-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	size_t n = strlen(text);
	bool ok = write(fd, text, n) == (ssize_t)n;
	close(fd);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "xmllint --noout --nonet %s '%s'",
		 html ? "--html" : "", path);
	int rc = ok ? system(cmd) : -1;
	unlink(path);
	return rc;
}

/* Occurrences of needle in hay (not overlapping). */
static inline size_t xc_count(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(needle);
	for (const char *p = hay; len && (p = strstr(p, needle)); p += len)
		n++;
	return n;
}

#endif
