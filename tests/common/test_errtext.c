/* Tests for common/errtext: an errno's text as messages print it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/errtext.h"

static void test_errtext__lowercase_whichever_sign(void **state)
{
	(void)state;
	char buf[ERR_TEXT_MAX];
	assert_string_equal(err_text(ENOENT, buf, sizeof(buf)),
			    "no such file or directory");
	assert_string_equal(err_text(-EACCES, buf, sizeof(buf)), "permission denied");
	assert_string_equal(ERR_TEXT(-ENOSPC), "no space left on device");
	/* An acronym keeps its capitals. */
	assert_string_equal(ERR_TEXT(EDOTDOT), "RFS specific error");
}

static void test_errtext__keeps_errno_and_fits_the_buffer(void **state)
{
	(void)state;
	char small[8];
	errno = EINTR;
	assert_string_equal(err_text(ENOENT, small, sizeof(small)), "no such");
	assert_int_equal(errno, EINTR);
	/* Two in one call each keep their own text. */
	char both[128];
	snprintf(both, sizeof(both), "%s / %s", ERR_TEXT(EPERM), ERR_TEXT(EIO));
	assert_string_equal(both, "operation not permitted / input/output error");
}

/*
 * Every errno text a message prints is err_text's, lowercase: a bare
 * strerror() call anywhere in the sources would print "No such file or
 * directory" mid-sentence (22 were left when issue 13 was closed).
 * strerror_r and libpfm4's pfm_strerror are other functions and pass.
 */
static void test_errtext__no_bare_strerror_in_the_sources(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && grep -n '[^A-Za-z0-9_]strerror(' prof/*.c collectors/*.c "
		 "reports/*.c db/*.c common/*.c | grep -v '^common/errtext.c:'", SOURCE_DIR);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char found[4096];
	size_t n = fread(found, 1, sizeof(found) - 1, p);
	found[n] = '\0';
	pclose(p);
	if (n)
		fail_msg("strerror() where ERR_TEXT() belongs:\n%s", found);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errtext__lowercase_whichever_sign),
		cmocka_unit_test(test_errtext__keeps_errno_and_fits_the_buffer),
		cmocka_unit_test(test_errtext__no_bare_strerror_in_the_sources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
