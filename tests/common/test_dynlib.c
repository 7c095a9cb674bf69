/* Tests for common/dynlib: a library opened at its first use, its
 * functions through their own types, and a clear reason when it cannot
 * be. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dynlib.h"

static struct {
	DYNLIB_FN(cbrt);
	DYNLIB_FN(hypot);
} m;
static const struct dynlib_sym m_syms[] = {
	DYNLIB_SYM(m, cbrt),
	DYNLIB_SYM(m, hypot),
};

static void test_dynlib__loads_once_and_calls_through(void **state)
{
	(void)state;
	struct dynlib lib = DYNLIB_INIT("libm.so.6", m_syms);
	assert_int_equal(lib.nsyms, 2);
	char *cause = (char *)"untouched";
	assert_int_equal(dynlib_load(&lib, &cause), 0);
	assert_string_equal(cause, "untouched");
	assert_int_equal(lib.state, 1);
	assert_true(m.cbrt(27.0) > 2.999 && m.cbrt(27.0) < 3.001);
	assert_true(m.hypot(3.0, 4.0) > 4.999 && m.hypot(3.0, 4.0) < 5.001);
	/* A second call finds it loaded. */
	assert_int_equal(dynlib_load(&lib, NULL), 0);
}

static void test_dynlib__a_missing_library_named(void **state)
{
	(void)state;
	static void *slot;
	static const struct dynlib_sym syms[] = { { "nothing", &slot } };
	struct dynlib lib = DYNLIB_INIT("libprof-not-there.so.9", syms);
	char *cause = NULL;
	assert_int_equal(dynlib_load(&lib, &cause), -ELIBACC);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "cannot load libprof-not-there.so.9: "));
	free(cause);
	/* The failure is kept: the same reason, no second try. */
	assert_int_equal(dynlib_load(&lib, &cause), -ELIBACC);
	assert_non_null(strstr(cause, "libprof-not-there.so.9"));
	free(cause);
	assert_null(slot);
	free(lib.why);
}

static void test_dynlib__a_missing_symbol_named_and_nothing_half_set(void **state)
{
	(void)state;
	static void *a, *b;
	static const struct dynlib_sym syms[] = { { "cbrt", &a },
						   { "prof_no_such_function", &b } };
	struct dynlib lib = DYNLIB_INIT("libm.so.6", syms);
	char *cause = NULL;
	assert_int_equal(dynlib_load(&lib, &cause), -ELIBACC);
	assert_string_equal(cause, "cannot load libm.so.6: it has no prof_no_such_function");
	free(cause);
	assert_null(a);
	assert_null(b);
	free(lib.why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dynlib__loads_once_and_calls_through),
		cmocka_unit_test(test_dynlib__a_missing_library_named),
		cmocka_unit_test(test_dynlib__a_missing_symbol_named_and_nothing_half_set),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
