/*
 * words: split a command line into words the way a POSIX shell splits
 * them, without running a shell: whitespace separates words, '...' keeps
 * everything literally, "..." keeps everything but lets \" \\ \$ \` be
 * escaped, and a backslash outside quotes escapes the next character.
 * Nothing is expanded ($VAR, globs, ~ stay as written), so
 * `--arm fast='./emu --scene 3'` runs exactly that, and a shell runs only
 * when the command is `sh -c '...'`.
 */
#ifndef PROF_WORDS_H
#define PROF_WORDS_H

/*
 * Split s into a NULL-terminated, malloc'd argv (free with words_free).
 * Returns 0, or -EINVAL with *cause for an unterminated quote or a
 * trailing backslash, or for no words at all.
 */
int words_split(const char *s, char ***argv, int *argc, char **cause);
void words_free(char **argv);

#endif
