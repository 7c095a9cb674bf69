/*
 * hot_lib: the shared library hot_main loads with dlopen. Its time goes
 * to lib_spin, a static function (so a stripped copy of the library has
 * no name for it: [unknown]) called through the exported lib_work.
 * Built by tests/e2e/test_record.c without frame pointers.
 */
__attribute__((noinline)) static double lib_spin(double x, long n)
{
	/* A dependent chain: no vectorizing, the same cost per step as
	 * main_spin in hot_main.c. */
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}

__attribute__((noinline)) double lib_work(double x, long n)
{
	return lib_spin(x, n) * 0.5 + 0.25;
}
