/*
 * Tests for prof/cli: the helpers every verb shares. The point in time
 * --since takes (a span before now, or a UTC date and time), and the one
 * errno-to-exit-code table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof/cli.h"

/* 2026-11-30T17:00:00Z */
#define NOW ((time_t)1796058000)

static time_t when(const char *s)
{
	time_t t = 0;
	if (!cli_parse_when(s, NOW, &t))
		fail_msg("'%s' was refused", s);
	return t;
}

static void test_cli__when_is_a_span_before_now(void **state)
{
	(void)state;
	assert_int_equal(when("90s"), NOW - 90);
	assert_int_equal(when("45m"), NOW - 45 * 60);
	assert_int_equal(when("2h"), NOW - 2 * 3600);
	assert_int_equal(when("3d"), NOW - 3 * 86400);
	assert_int_equal(when("1w"), NOW - 604800);
	assert_int_equal(when("0h"), NOW);
}

static void test_cli__when_is_a_utc_time(void **state)
{
	(void)state;
	assert_int_equal(when("2026-11-30T17:00:00Z"), NOW);
	assert_int_equal(when("2026-11-30T17:00:00"), NOW);
	assert_int_equal(when("2026-11-30 17:00"), NOW);
	assert_int_equal(when("2026-11-30T16:59"), NOW - 60);
	assert_int_equal(when("2026-11-30"), NOW - 17 * 3600);
}

static void test_cli__when_refuses_junk(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", "h", "2", "2y", "-2h", "2 h", "2hh", "yesterday", "2026-13-01",
		"2026-11-30T25:00", "2026-11-30X", "2026-11-30T17:00:00+01:00",
		"99999999999999999999d",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		time_t t;
		if (cli_parse_when(bad[i], NOW, &t))
			fail_msg("'%s' was taken", bad[i]);
	}
}

/* README.md's "Exit status" table, row by row. */
static void test_cli__id_lists(void **state)
{
	(void)state;
	int64_t *ids = NULL;
	size_t n = 0;
	assert_true(cli_parse_id_list("3,5,7-9", &ids, &n));
	assert_int_equal(n, 5);
	assert_true(ids[0] == 3 && ids[1] == 5 && ids[2] == 7 && ids[4] == 9);
	assert_true(cli_parse_id_list("12", &ids, &n));	/* appended */
	assert_int_equal(n, 6);
	assert_true(ids[5] == 12);
	/* Not a list: refused, and what was there is kept. */
	static const char *const bad[] = {
		"", "0", "-3", "3-", "9-7", "3,", ",3", "3,,5", "a", "3 5", "1-100001",
		"99999999999999999999",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (cli_parse_id_list(bad[i], &ids, &n))
			fail_msg("'%s' read as a list", bad[i]);
		assert_int_equal(n, 6);
	}
	assert_true(cli_parse_id_list("1-100000", &ids, &n));
	assert_int_equal(n, 100006);
	free(ids);
}

static void test_cli__one_table_of_exit_codes(void **state)
{
	(void)state;
	static const int usage[] = { ENOENT, EINVAL, ERANGE, ENXIO, EOPNOTSUPP, ENODATA };
	for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
		assert_int_equal(exit_code_for(usage[i]), EXIT_USAGE);
		assert_int_equal(exit_code_for(-usage[i]), EXIT_USAGE);
	}
	static const int fail[] = { EIO, ENOMEM, EBUSY, ENOSPC, EACCES, EPERM, ENOEXEC };
	for (size_t i = 0; i < sizeof(fail) / sizeof(fail[0]); i++)
		assert_int_equal(exit_code_for(-fail[i]), EXIT_FAIL);
	assert_int_equal(exit_code_for_launch(-ENOENT), 127);
	assert_int_equal(exit_code_for_launch(-EACCES), 127);
	assert_int_equal(exit_code_for_launch(-ENOEXEC), 127);
	assert_int_equal(exit_code_for_launch(-EINVAL), EXIT_FAIL);
	assert_int_equal(exit_code_for_launch(-ENXIO), EXIT_FAIL);
	assert_int_equal(EXIT_NOT_RUN, 127);
	assert_int_equal(EXIT_SIGNAL + 2, 130);
}

/* The words of README.md's "Exit status" section, read whole. */
static char *readme_exit_status(void)
{
	FILE *fp = fopen(SOURCE_DIR "/README.md", "r");
	assert_non_null(fp);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof(text) - 1, fp);
	fclose(fp);
	text[n] = '\0';
	char *s = strstr(text, "\n## Exit status\n");
	assert_non_null(s);
	char *end = strstr(s + 1, "\n## ");
	if (end)
		*end = '\0';
	return s;
}

/* Whether errno `name` stands, as a whole word, between the words
 * from and to of text. */
static bool named_between(const char *text, const char *from, const char *to,
			  const char *name)
{
	const char *a = strstr(text, from);
	assert_non_null(a);
	const char *b = strstr(a, to);
	assert_non_null(b);
	size_t len = strlen(name);
	for (const char *p = a; p + len <= b; p++)
		if (!strncmp(p, name, len) && !isalnum((unsigned char)p[len]) &&
		    !isalnum((unsigned char)p[-1]))
			return true;
	return false;
}

/* README.md says which errnos are usage errors and which stop a launch
 * with 127: every errno the C library names is checked against both, so
 * the table in prof/cli.c and the README cannot drift apart. */
static void test_cli__readme_names_the_exit_codes(void **state)
{
	(void)state;
	const char *doc = readme_exit_status();
	assert_non_null(strstr(doc, "| 0 | success |"));
	assert_non_null(strstr(doc, "| 1 | an operational failure"));
	assert_non_null(strstr(doc, "| 2 | a usage error"));
	assert_non_null(strstr(doc, "| 127 | the command to launch"));
	size_t usage = 0, launch = 0;
	for (int e = 1; e < 134; e++) {
		const char *name = strerrorname_np(e);
		if (!name)
			continue;
		bool said_usage = named_between(doc, "picks the status:",
						"are usage errors (2)", name);
		bool said_launch = named_between(doc, "starting a command,", "give 127",
						 name);
		if (said_usage != (exit_code_for(e) == EXIT_USAGE))
			fail_msg("%s: exit_code_for gives %d, README %s it a usage error", name,
				 exit_code_for(e), said_usage ? "calls" : "does not call");
		if (said_launch != (exit_code_for_launch(-e) == EXIT_NOT_RUN))
			fail_msg("%s: exit_code_for_launch gives %d, README %s it 127", name,
				 exit_code_for_launch(-e), said_launch ? "says" : "does not say");
		usage += said_usage;
		launch += said_launch;
	}
	assert_int_equal(usage, 6);
	assert_int_equal(launch, 3);
}

/* Write "text" to path through cli_open_output as -o does. */
static void write_out(const char *path, const char *text)
{
	FILE *fp = cli_open_output(path, stdout);
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(cli_close_output(fp, path), 0);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

/*
 * -o over a file that is there keeps what the rename would lose: its
 * mode (a 0600 file stays 0600), its owner (root writing a user's file),
 * and its hard links (written in place, both names see the report).
 */
static void test_cli__output_keeps_mode_owner_and_links(void **state)
{
	(void)state;
	char dir[] = "/tmp/prof-cli-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[64], link2[64];
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	snprintf(link2, sizeof(link2), "%s/other.txt", dir);

	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(path, 0600), 0);
	bool root = geteuid() == 0;
	if (root)
		assert_int_equal(chown(path, 65534, 65534), 0);
	write_out(path, "one\n");
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	if (root) {
		assert_int_equal(st.st_uid, 65534);
		assert_int_equal(st.st_gid, 65534);
	}
	assert_string_equal(slurp(path), "one\n");

	assert_int_equal(link(path, link2), 0);
	write_out(path, "two\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_nlink, 2);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_string_equal(slurp(link2), "two\n");

	/* A new file gets the umask's mode, as before. */
	char fresh[64];
	snprintf(fresh, sizeof(fresh), "%s/new.txt", dir);
	mode_t um = umask(022);
	write_out(fresh, "three\n");
	umask(um);
	assert_int_equal(stat(fresh, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);

	unlink(fresh);
	unlink(link2);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli__when_is_a_span_before_now),
		cmocka_unit_test(test_cli__when_is_a_utc_time),
		cmocka_unit_test(test_cli__when_refuses_junk),
		cmocka_unit_test(test_cli__id_lists),
		cmocka_unit_test(test_cli__one_table_of_exit_codes),
		cmocka_unit_test(test_cli__readme_names_the_exit_codes),
		cmocka_unit_test(test_cli__output_keeps_mode_owner_and_links),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
