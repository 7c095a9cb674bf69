// hot_cxx: a C++ workload for the demangling tests of prof record. Its
// time goes to four functions whose mangled names exercise the parts of
// the Itanium ABI that reports must undo: a function template in nested
// namespaces, two overloads that differ only by parameter type, a member
// of a class template, and a lambda. Each is a dependent floating-point
// chain, kept out of line, so each owns its samples; the shares are
// about 40/20/20/20 by design. Built by tests/e2e/test_record.c.
//
// usage: hot_cxx STEPS_IN_MILLIONS
#include <cstdio>
#include <cstdlib>

namespace geo {
namespace detail {

template <typename T>
__attribute__((noinline)) T accumulate(T x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * static_cast<T>(1.0000001) + static_cast<T>(1e-9);
	return x;
}

} // namespace detail

__attribute__((noinline)) double scale(double x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 0.9999999 + 1e-9;
	return x;
}

__attribute__((noinline)) float scale(float x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 0.9999999f + 1e-9f;
	return x;
}

template <typename T>
struct Box {
	T v;
	__attribute__((noinline)) T grow(long n) const
	{
		T x = v;
		for (long i = 0; i < n; i++)
			x = x * static_cast<T>(1.00000001) + static_cast<T>(1e-10);
		return x;
	}
};

} // namespace geo

template <typename F>
__attribute__((noinline)) double run_with(F f, long n)
{
	return f(n);
}

int main(int argc, char **argv)
{
	long steps = (argc > 1 ? atol(argv[1]) : 100) * 1000000L;
	double base = argc;
	auto spin = [base](long n) __attribute__((noinline)) {
		double x = base;
		for (long i = 0; i < n; i++)
			x = x * 1.00000002 + 1e-9;
		return x;
	};
	double r = geo::detail::accumulate<double>(base, steps * 2 / 5);
	r += geo::scale(base, steps / 5);
	r += geo::scale(static_cast<float>(base), steps / 5);
	r += geo::Box<double>{base}.grow(steps / 10);
	r += run_with(spin, steps / 10);
	printf("%g\n", r);
	return 0;
}
