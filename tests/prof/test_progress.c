/* Tests for prof/progress: the progress line of ab and sleep, and its
 * clock. Written to a memory stream, so what a log and what a terminal
 * get can both be read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prof/progress.h"

/* Run f on a progress line over a memory stream; return what it wrote. */
static char *capture(bool tty, void (*f)(struct progress_line *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	struct progress_line p;
	progress_line_init(&p, fp);
	assert_false(p.tty);	/* a memory stream is no terminal */
	assert_false(p.drawn);
	p.tty = tty;
	f(&p);
	fclose(fp);
	return buf;
}

static void two_updates_then_clear(struct progress_line *p)
{
	progress_line_show(p, "cell %d of %d", 1, 2);
	assert_true(p->drawn);
	progress_line_show(p, "cell %d of %d", 2, 2);
	progress_line_clear(p);
}

static void test_progress__a_log_gets_one_line_per_update(void **state)
{
	(void)state;
	char *s = capture(false, two_updates_then_clear);
	/* No escape codes in a file, and clearing writes nothing. */
	assert_string_equal(s, "cell 1 of 2\ncell 2 of 2\n");
	free(s);
}

static void test_progress__a_terminal_line_is_replaced(void **state)
{
	(void)state;
	char *s = capture(true, two_updates_then_clear);
	assert_string_equal(s, "\r\033[Kcell 1 of 2\r\033[Kcell 2 of 2\r\033[K");
	free(s);
}

static void test_progress__clock_is_monotonic_seconds(void **state)
{
	(void)state;
	double t0 = mono_now_s();
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	double t1 = mono_now_s();
	/* At least the 20 ms slept; no upper bound: a loaded machine may
	 * add any delay. */
	assert_true(t1 - t0 >= 0.020);
	/* CLOCK_MONOTONIC, not the wall clock (which reads about 1.7e9). */
	struct timespec m;
	clock_gettime(CLOCK_MONOTONIC, &m);
	assert_true((double)m.tv_sec >= t1 - 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress__a_log_gets_one_line_per_update),
		cmocka_unit_test(test_progress__a_terminal_line_is_replaced),
		cmocka_unit_test(test_progress__clock_is_monotonic_seconds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
