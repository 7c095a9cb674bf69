/*
 * Tests for reports/demangle: C++ names as c++filt prints them (binutils
 * 2.40 here gave every expected string below), Rust legacy and v0 names
 * without their hashes and disambiguators, and names that are not
 * mangled, or are malformed, left alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "reports/demangle.h"

static void expect(const char *mangled, const char *want)
{
	char *got = demangle_name(mangled);
	if (!want) {
		if (got)
			fail_msg("'%s' demangled to '%s'; expected it left alone", mangled,
				 got);
		return;
	}
	if (!got)
		fail_msg("'%s' was not demangled; expected '%s'", mangled, want);
	assert_string_equal(got, want);
	free(got);
}

static void test_demangle__cxx(void **state)
{
	(void)state;
	/* The two names of the issue. */
	expect("_Z14bitmap_set_bitP11bitmap_headi", "bitmap_set_bit(bitmap_head*, int)");
	expect("_ZN6detailL4sprpEyy",
	       "detail::sprp(unsigned long long, unsigned long long)");
	/* Overloads differ by their parameters. */
	expect("_ZN3geo4areaEi", "geo::area(int)");
	expect("_ZN3geo4areaEdd", "geo::area(double, double)");
	/* Templates, const members, operators, lambdas. */
	expect("_ZNK3geo6detail3BoxIfE5widthEv", "geo::detail::Box<float>::width() const");
	expect("_ZN3geo6detail3sumIiLi3EEET_RAT0__KS2_",
	       "int geo::detail::sum<int, 3>(int const (&) [3])");
	expect("_ZN3geo5ShapepLERKS0_", "geo::Shape::operator+=(geo::Shape const&)");
	expect("_ZZ7run_alliENKUliE_clEi",
	       "run_all(int)::{lambda(int)#1}::operator()(int) const");
	/* GCC's clones keep their suffix. */
	expect("_Z9main_spinl.constprop.0", "main_spin(long) [clone .constprop.0]");
}

static void test_demangle__rust(void **state)
{
	(void)state;
	/* Legacy: the trailing hash is dropped, the $..$ escapes decoded. */
	expect("_ZN3std2rt10lang_start17h1234567890abcdefE", "std::rt::lang_start");
	expect("_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$"
	       "..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0f1b2c3d4e5f6789E",
	       "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>");
	/* v0, without the crates' disambiguators. */
	expect("_RNvCs1234_7mycrate4main", "mycrate::main");
	expect("_RNvMsr_NtCs3ssYzQotkvD_3std4pathNtB5_7PathBuf3newCs15kBYyAo9fc_7mycrate",
	       "<std::path::PathBuf>::new");
	expect("_RINvNtCs9ltgdHTiPiY_4core3ptr13drop_in_placeNtNtCsbmNqQUJIY6D_5alloc"
	       "6string6StringEB3_", "core::ptr::drop_in_place::<alloc::string::String>");
}

static void test_demangle__other_names_unchanged(void **state)
{
	(void)state;
	expect("main", NULL);
	expect("main_spin.constprop.0", NULL);
	expect("_start", NULL);
	expect("__libc_start_main", NULL);
	expect("_ZL", NULL);		/* malformed */
	expect("_Z", NULL);
	expect("_R", NULL);
	expect("_RNvC", NULL);
	expect("", NULL);
	assert_null(demangle_name(NULL));
}

/* A name nested past the demangler's recursion limit (as a hostile or
 * broken binary may carry) is refused, not a stack overflow. */
static void test_demangle__deep_nesting_refused(void **state)
{
	(void)state;
	size_t depth = 200000;
	char *name = malloc(depth + 8);
	assert_non_null(name);
	memcpy(name, "_Z1f", 4);
	memset(name + 4, 'P', depth);
	memcpy(name + 4 + depth, "i", 2);
	assert_null(demangle_name(name));
	free(name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demangle__cxx),
		cmocka_unit_test(test_demangle__rust),
		cmocka_unit_test(test_demangle__other_names_unchanged),
		cmocka_unit_test(test_demangle__deep_nesting_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
