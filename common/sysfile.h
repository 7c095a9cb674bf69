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
 * to n - 1), without its newline. 0; -errno where the file cannot be
 * opened; -ENODATA where it is empty (buf is then ""), -EIO where the
 * read failed.
 */
int sysfile_line(const char *path, char *buf, size_t n);

/* The same, up to 4095 bytes, allocated (free it): NULL with errno set. */
char *sysfile_line_dup(const char *path);

#endif
