/*
 * cause: how prof says why something failed. A function that knows what
 * the user needs to hear fills a `char **cause` (as tmux does) and the
 * verb prints it (print_cause, fail_cause in prof/cli.h); the caller owns
 * and frees the string. cause_set() is the one way every folder fills
 * one (sleep_shared.c, built into the preload library, keeps to libc).
 * Thread-safe.
 */
#ifndef COMMON_CAUSE_H
#define COMMON_CAUSE_H

/*
 * When cause is not NULL, set *cause to the message fmt formats (NULL if
 * memory runs out). Returns -err, so that `return cause_set(cause,
 * EINVAL, ...)` says why and fails at once; err 0 returns 0.
 */
int cause_set(char **cause, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
