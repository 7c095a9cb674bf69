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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errtext__lowercase_whichever_sign),
		cmocka_unit_test(test_errtext__keeps_errno_and_fits_the_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
