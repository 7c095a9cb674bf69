/*
 * sysfile: the first line of a small file, as sysfs and procfs give one
 * value a file ("3", "0-7", "0x410fd0c0"). One reader for the collectors
 * that each had their own: open, one line, its newline dropped.
 * Thread-safe, no state.
 */
#ifndef COMMON_SYSFILE_H
#define COMMON_SYSFILE_H

#include <stddef.h>

/*
 * The first line of path into buf (n bytes, n > 0; a longer line is cut
 * to n - 1), without its newline: 0. SYSFILE_NO_LINE where the file
 * opened but gave no line (it is empty, or the read failed: buf is then
 * ""); -errno where it would not open. Callers tell "not there" (< 0)
 * from "there but unreadable" (> 0) by the sign alone.
 */
#define SYSFILE_NO_LINE 1

int sysfile_line(const char *path, char *buf, size_t n);

/*
 * The same, up to 4095 bytes, allocated (free it): NULL with errno set
 * (ENODATA where the file gave no line).
 */
char *sysfile_line_dup(const char *path);

#endif
