/*
 * Tests for prof/pin: the flag-versus-environment rule in every
 * combination, and pin plans made against the fixture sysfs trees.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "prof/run/run.h"
#include "test_util.h"

static void test_pin__flags_win_over_environment_and_agree_with_pin(void **state)
{
	(void)state;
	char *w = NULL;
	/* The four combinations of flag and environment. */
	assert_string_equal(pin_choose_mode(NULL, AFFINITY_ON, "0", &w, NULL), "largest-llc");
	assert_string_equal(pin_choose_mode(NULL, AFFINITY_ON, "1", &w, NULL), "largest-llc");
	assert_string_equal(pin_choose_mode(NULL, AFFINITY_OFF, "1", &w, NULL), "none");
	assert_string_equal(pin_choose_mode(NULL, AFFINITY_OFF, "0", &w, NULL), "none");
	/* No flag: the environment decides. */
	assert_string_equal(pin_choose_mode(NULL, AFFINITY_UNSET, "1", &w, NULL), "largest-llc");
	assert_string_equal(pin_choose_mode(NULL, AFFINITY_UNSET, "true", &w, NULL), "largest-llc");
	assert_string_equal(pin_choose_mode(NULL, AFFINITY_UNSET, "0", &w, NULL), "none");
	assert_string_equal(pin_choose_mode(NULL, AFFINITY_UNSET, NULL, &w, NULL), "none");
	assert_null(w);
	/* --pin beats the environment too. */
	assert_string_equal(pin_choose_mode("cpus:0", AFFINITY_UNSET, "1", &w, NULL), "cpus:0");
	/* A flag may come with a --pin that agrees with it ... */
	assert_string_equal(pin_choose_mode("none", AFFINITY_OFF, "1", &w, NULL), "none");
	assert_string_equal(pin_choose_mode("largest-llc", AFFINITY_ON, NULL, &w, NULL),
			    "largest-llc");
	assert_null(w);
	/* ... but a --pin that says otherwise is refused, not dropped */
	char *cause = NULL;
	assert_null(pin_choose_mode("cpus:0", AFFINITY_OFF, NULL, &w, &cause));
	assert_non_null(cause);
	assert_non_null(strstr(cause, "--pin cpus:0 and --no-cache-affinity ask for "
				      "different pins\nhint: --no-cache-affinity means "
				      "--pin none"));
	free(cause);
	cause = NULL;
	assert_null(pin_choose_mode("llc:1", AFFINITY_ON, "0", &w, &cause));
	assert_non_null(strstr(cause, "--pin llc:1 and --cache-affinity"));
	free(cause);
	/* and so are both flags */
	int flags = affinity_flag_add(AFFINITY_UNSET, AFFINITY_ON);
	assert_int_equal(affinity_flag_add(flags, AFFINITY_ON), AFFINITY_ON);
	flags = affinity_flag_add(flags, AFFINITY_OFF);
	assert_int_equal(flags, AFFINITY_BOTH);
	assert_int_equal(affinity_flag_add(flags, AFFINITY_ON), AFFINITY_BOTH);
	cause = NULL;
	assert_null(pin_choose_mode(NULL, flags, NULL, &w, &cause));
	assert_non_null(strstr(cause, "--cache-affinity and --no-cache-affinity"));
	free(cause);
	assert_null(w);
	/* A value that is neither: not pinned, with a warning. */
	assert_string_equal(pin_choose_mode(NULL, AFFINITY_UNSET, "maybe", &w, NULL), "none");
	assert_non_null(w);
	assert_non_null(strstr(w, "PROF_CACHE_AFFINITY='maybe'"));
	free(w);
}

static char *tree(const char *name)
{
	char *p;
	if (asprintf(&p, "%s/sysfs/%s", FIXTURES_DIR, name) < 0)
		abort();
	return p;
}

static void test_pin__largest_llc_on_a_symmetric_part(void **state)
{
	(void)state;
	char *root = tree("sym-2ccd");
	struct pin_plan p;
	char *w = NULL, *cause = NULL;
	assert_int_equal(pin_plan_make(&p, "largest-llc", root, &w, &cause), 0);
	assert_true(p.apply);
	assert_null(w);
	assert_string_equal(p.cpus, "0-5,12-17");
	assert_int_equal(p.level, 3);
	assert_int_equal(p.size_bytes, 32u << 20);
	assert_string_equal(p.desc, "pinned to the 12 CPUs sharing the largest L3 (32 MiB)");
	assert_int_equal(CPU_COUNT_S(p.setsize, p.set), 12);
	assert_true(CPU_ISSET_S(17, p.setsize, p.set));
	assert_false(CPU_ISSET_S(6, p.setsize, p.set));
	/* The topology comes along for the run record. */
	assert_non_null(p.topology);
	assert_false(p.topology->llc_asymmetric);
	pin_plan_release(&p);
	free(root);
}

static void test_pin__asymmetric_part_picks_the_big_die(void **state)
{
	(void)state;
	char *root = tree("asym-x3d");
	struct pin_plan p;
	assert_int_equal(pin_plan_make(&p, "largest-llc", root, NULL, NULL), 0);
	assert_string_equal(p.cpus, "0-7,16-23");
	assert_int_equal(p.size_bytes, 96u << 20);
	assert_true(p.topology->llc_asymmetric);
	pin_plan_release(&p);
	assert_int_equal(pin_plan_make(&p, "llc:1", root, NULL, NULL), 0);
	assert_string_equal(p.cpus, "8-15,24-31");
	assert_int_equal(p.size_bytes, 32u << 20);
	pin_plan_release(&p);
	free(root);
}

static void test_pin__unreadable_topology_skips_largest_but_fails_explicit(void **state)
{
	(void)state;
	const char *bad[] = { "malformed", "no-l3", "no-such-tree" };
	for (size_t i = 0; i < 3; i++) {
		char *root = tree(bad[i]);
		struct pin_plan p;
		char *w = NULL, *cause = NULL;
		assert_int_equal(pin_plan_make(&p, "largest-llc", root, &w, &cause), 0);
		assert_false(p.apply);
		assert_non_null(w);
		assert_non_null(strstr(w, "not pinning"));
		assert_non_null(p.status);
		assert_true(!strncmp(p.status, "skipped: ", 9));
		free(w);
		pin_plan_release(&p);
		free(root);
	}
	char *root = tree("malformed");
	struct pin_plan p;
	char *cause = NULL;
	/* Nothing the user typed is wrong: a failure, not a usage error. */
	assert_int_equal(pin_plan_make(&p, "llc:0", root, NULL, &cause), -EIO);
	assert_non_null(cause);
	free(cause);
	pin_plan_release(&p);
	free(root);
}

static void test_pin__bad_modes_are_usage_errors(void **state)
{
	(void)state;
	char *root = tree("sym-2ccd");
	struct pin_plan p;
	char *cause = NULL;
	assert_int_equal(pin_plan_make(&p, "fastest", root, NULL, &cause), -EINVAL);
	assert_non_null(strstr(cause, "valid modes"));
	free(cause);
	cause = NULL;
	pin_plan_release(&p);
	assert_int_equal(pin_plan_make(&p, "llc:2", root, NULL, &cause), -ERANGE);
	assert_non_null(strstr(cause, "llc:0 to llc:1"));
	free(cause);
	cause = NULL;
	pin_plan_release(&p);
	assert_int_equal(pin_plan_make(&p, "cpus:1,,2", root, NULL, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	pin_plan_release(&p);
	free(root);
	/* An offline CPU is left out; a pin to it alone leaves nothing. */
	root = tree("offline-cpu");
	assert_int_equal(pin_plan_make(&p, "cpus:2-3", root, NULL, &cause), 0);
	assert_string_equal(p.cpus, "2");
	pin_plan_release(&p);
	assert_int_equal(pin_plan_make(&p, "cpus:3", root, NULL, &cause), -ENXIO);
	free(cause);
	pin_plan_release(&p);
	free(root);
}

static void test_pin__none_is_not_requested(void **state)
{
	(void)state;
	struct pin_plan p;
	assert_int_equal(pin_plan_make(&p, "none", "/", NULL, NULL), 0);
	assert_false(p.apply);
	assert_string_equal(p.status, "not requested");
	pin_plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin__flags_win_over_environment_and_agree_with_pin),
		cmocka_unit_test(test_pin__largest_llc_on_a_symmetric_part),
		cmocka_unit_test(test_pin__asymmetric_part_picks_the_big_die),
		cmocka_unit_test(test_pin__unreadable_topology_skips_largest_but_fails_explicit),
		cmocka_unit_test(test_pin__bad_modes_are_usage_errors),
		cmocka_unit_test(test_pin__none_is_not_requested),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
