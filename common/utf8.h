/*
 * utf8: text that came from a workload, read as UTF-8. Thread names,
 * commands, paths, JIT symbols and frame markers are bytes a program
 * chose; the kernel cuts a thread's name at 15 bytes wherever that falls.
 * Every writer of prof's outputs reads such text through utf8_next, so a
 * byte that starts no valid character comes out as U+FFFD and the output
 * stays valid UTF-8; every cut is made by utf8_cut, on a character's
 * boundary. Pure; thread-safe.
 */
#ifndef COMMON_UTF8_H
#define COMMON_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UTF8_REPLACEMENT 0xFFFDu	/* what a writer shows for UTF8_INVALID */
#define UTF8_INVALID 0x110000u		/* no code point: bytes that are none */

/*
 * The character at p, of n > 0 bytes left: its length (1 to 4) and, in
 * *cp, its code point. Bytes that do not form a well-formed character
 * (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF, no
 * sequence cut short) read as UTF8_INVALID, as long as the longest start
 * of a character they hold, and at least one byte: "worker-\xe2\x82", a
 * euro cut short, ends in one invalid piece of two bytes (the maximal
 * subpart of Unicode's chapter 3, as browsers count them).
 */
size_t utf8_next(const unsigned char *p, size_t n, uint32_t *cp);

/* utf8_next on NUL-terminated text (*p not NUL): the NUL ends it. */
size_t utf8_next_str(const unsigned char *p, uint32_t *cp);

/* The longest prefix of s[0..len) of at most max bytes that ends on a
 * character's boundary (len when len <= max). */
size_t utf8_cut(const char *s, size_t len, size_t max);

/* len less a character cut short at the end of s[0..len) (a name the
 * kernel cut at 15 bytes inside one): a cut made on a boundary. */
size_t utf8_trim_cut(const char *s, size_t len);

/* Whether s[0..len) is well-formed UTF-8. */
bool utf8_valid(const char *s, size_t len);

/* cp (at most U+10FFFF) as UTF-8 onto fp. */
void utf8_put(FILE *fp, uint32_t cp);

/* cp onto fp, UTF8_INVALID as UTF8_REPLACEMENT. */
void utf8_put_shown(FILE *fp, uint32_t cp);

/* A copy of s with every invalid piece replaced by U+FFFD: malloc'd, NULL when s is NULL or memory ran out. */
char *utf8_clean(const char *s);

#endif
