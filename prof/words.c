/* words: POSIX-shell-like word splitting with no expansion. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cause.h"
#include "prof/words.h"

void words_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

static int fail(char **cause, const char *s, const char *why)
{
	return cause_set(cause, EINVAL, "cannot split the command '%.40s%s': %s", s,
			 strlen(s) > 40 ? "..." : "", why);
}

int words_split(const char *s, char ***argv, int *argc, char **cause)
{
	size_t n = strlen(s);
	char *word = malloc(n + 1);
	char **v = calloc(n / 2 + 2, sizeof(char *));
	int c = 0;
	if (!word || !v) {
		free(word);
		free(v);
		return -ENOMEM;
	}
	const char *p = s;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		size_t w = 0;
		bool quoted = false;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
			if (*p == '\'') {
				const char *q = strchr(p + 1, '\'');
				if (!q)
					goto unterminated;
				memcpy(word + w, p + 1, (size_t)(q - p - 1));
				w += (size_t)(q - p - 1);
				p = q + 1;
				quoted = true;
			} else if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1]))
						p++;
					word[w++] = *p++;
				}
				if (*p != '"')
					goto unterminated;
				p++;
				quoted = true;
			} else if (*p == '\\') {
				if (!p[1]) {
					free(word);
					words_free(v);
					return fail(cause, s, "it ends with a backslash");
				}
				word[w++] = p[1];
				p += 2;
			} else {
				word[w++] = *p++;
			}
		}
		if (w || quoted) {
			v[c] = strndup(word, w);
			if (!v[c]) {
				free(word);
				words_free(v);
				return -ENOMEM;
			}
			c++;
		}
	}
	free(word);
	if (c == 0) {
		free(v);
		return fail(cause, s, "it names no program");
	}
	v[c] = NULL;
	*argv = v;
	*argc = c;
	return 0;
unterminated:
	free(word);
	words_free(v);
	return fail(cause, s, "a quote is not closed");
}
