/*
 * errtext: the text of an errno as prof's messages print it, lowercase
 * like the rest of a message ("cannot open 'x': no such file or
 * directory"), for every folder: collectors/, db/, reports/ and prof/
 * all reach it (common/ depends on nothing but libc).
 *
 * Thread-safe (strerror_r into the caller's buffer); errno is kept.
 */
#ifndef COMMON_ERRTEXT_H
#define COMMON_ERRTEXT_H

#include <stddef.h>

/* Long enough for every message glibc has. */
#define ERR_TEXT_MAX 128

/*
 * strerror(err) (err of either sign) in buf, its first letter lowercased
 * unless the word is an acronym ("RPC struct is bad" stays); returns buf.
 */
const char *err_text(int err, char *buf, size_t n);

/* The same in a buffer that lives to the end of the enclosing block, to
 * stand where strerror() stood: printf("%s", ERR_TEXT(errno)). */
#define ERR_TEXT(err) err_text((err), (char[ERR_TEXT_MAX]){ 0 }, ERR_TEXT_MAX)

#endif
