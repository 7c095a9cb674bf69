/*
 * Tests for common/sysfile: the first line of a small file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sysfile.h"

static char *file_with(const char *text, size_t len)
{
	char *path = strdup("/tmp/prof-sysfile-XXXXXX");
	assert_non_null(path);
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

static void test_sysfile__first_line_without_newline(void **state)
{
	(void)state;
	char *path = file_with("0-7\nsecond\n", 11);
	char buf[16];
	assert_int_equal(sysfile_line(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-7");
	char *s = sysfile_line_dup(path);
	assert_non_null(s);
	assert_string_equal(s, "0-7");
	free(s);
	unlink(path);
	free(path);
}

static void test_sysfile__no_trailing_newline_and_cut_lines(void **state)
{
	(void)state;
	char *path = file_with("0x410fd0c0", 10);
	char buf[5];
	assert_int_equal(sysfile_line(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x41");
	char whole[32];
	assert_int_equal(sysfile_line(path, whole, sizeof(whole)), 0);
	assert_string_equal(whole, "0x410fd0c0");
	unlink(path);
	free(path);
}

static void test_sysfile__missing_and_empty_files_say_so(void **state)
{
	(void)state;
	char buf[16] = "stale";
	assert_int_equal(sysfile_line("/nonexistent/prof/type", buf, sizeof(buf)), -ENOENT);
	assert_string_equal(buf, "");
	errno = 0;
	assert_null(sysfile_line_dup("/nonexistent/prof/type"));
	assert_int_equal(errno, ENOENT);
	char *path = file_with("", 0);
	strcpy(buf, "stale");
	assert_int_equal(sysfile_line(path, buf, sizeof(buf)), SYSFILE_NO_LINE);
	assert_string_equal(buf, "");
	errno = 0;
	assert_null(sysfile_line_dup(path));
	assert_int_equal(errno, ENODATA);
	unlink(path);
	free(path);
	/* a directory opens but does not read */
	strcpy(buf, "stale");
	assert_int_equal(sysfile_line("/", buf, sizeof(buf)), SYSFILE_NO_LINE);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfile__first_line_without_newline),
		cmocka_unit_test(test_sysfile__no_trailing_newline_and_cut_lines),
		cmocka_unit_test(test_sysfile__missing_and_empty_files_say_so),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
