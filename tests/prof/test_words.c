/* Tests for prof/words: shell-like splitting without expansion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prof/words.h"

static void check(const char *s, int n, const char *const *want)
{
	char **v;
	int c;
	char *cause = NULL;
	if (words_split(s, &v, &c, &cause))
		fail_msg("%s: %s", s, cause);
	assert_int_equal(c, n);
	for (int i = 0; i < n; i++)
		assert_string_equal(v[i], want[i]);
	assert_null(v[n]);
	words_free(v);
}

static void test_words__splits_like_a_shell(void **state)
{
	(void)state;
	check("./emu --scene 3", 3, (const char *[]){ "./emu", "--scene", "3" });
	check("  a\t b  ", 2, (const char *[]){ "a", "b" });
	check("sh -c 'sleep 0.1; echo \"$X\"'", 3,
	      (const char *[]){ "sh", "-c", "sleep 0.1; echo \"$X\"" });
	check("echo \"a \\\"b\\\" \\$c\"", 2, (const char *[]){ "echo", "a \"b\" $c" });
	check("a\\ b c", 2, (const char *[]){ "a b", "c" });
	check("x'y'\"z\"", 1, (const char *[]){ "xyz" });
	check("'' e", 2, (const char *[]){ "", "e" });
	/* Nothing is expanded. */
	check("ls $HOME ~ *.c", 4, (const char *[]){ "ls", "$HOME", "~", "*.c" });
}

static void test_words__bad_input_is_refused(void **state)
{
	(void)state;
	const char *bad[] = { "echo 'oops", "echo \"oops", "trailing\\", "", "   " };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char **v;
		int c;
		char *cause = NULL;
		assert_int_equal(words_split(bad[i], &v, &c, &cause), -EINVAL);
		assert_non_null(cause);
		assert_non_null(strstr(cause, "cannot split the command"));
		free(cause);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words__splits_like_a_shell),
		cmocka_unit_test(test_words__bad_input_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
