/*
 * scripts/kernels refuses what it cannot run with one line and exit 2,
 * before it installs, downloads or boots anything: a vCPU count out of
 * range (--smp), a kernel series it does not know, an option it does not
 * take.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "test_util.h"

#define SCRIPT SOURCE_DIR "/scripts/kernels"

/* The script with args: exit 2, the error line wanted, nothing on stdout. */
static void refused(char *const args[], const char *want)
{
	char *argv[8] = { "/bin/bash", SCRIPT };
	size_t n = 2;
	for (size_t i = 0; args[i] && n < 7; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status != 2 || !strstr(p.err, want))
		fail_msg("scripts/kernels exited %d, said:\n%s", p.status, p.err);
	assert_non_null(strstr(p.err, "hint: scripts/kernels --help"));
	assert_string_equal(p.out, "");
	tu_proc_release(&p);
}

static void test_kernels_script__bad_smp(void **state)
{
	(void)state;
	refused((char *[]){ "--smp", "9", NULL },
		"error: --smp takes 1 to 8 vCPUs, not '9'\n");
	refused((char *[]){ "--smp=two", NULL },
		"error: --smp takes 1 to 8 vCPUs, not 'two'\n");
}

static void test_kernels_script__bad_kernel_and_option(void **state)
{
	(void)state;
	refused((char *[]){ "--kernel", "5.10", NULL },
		"error: --kernel takes 6.1, 6.12 or all, not '5.10'\n");
	refused((char *[]){ "--no-such", NULL }, "error: unknown option '--no-such'\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernels_script__bad_smp),
		cmocka_unit_test(test_kernels_script__bad_kernel_and_option),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
