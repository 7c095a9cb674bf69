/*
 * Tests for reports/ab's tables: two single runs side by side, as
 * `prof compare RUN RUN` prints them, in every format.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "fixture_db.h"
#include "reports/ab.h"
#include "test_util.h"

static void set_total(struct db_run *r, const char *event, uint64_t v)
{
	for (size_t e = 0; e < r->nevents; e++) {
		if (strcmp(r->events[e].name, event))
			continue;
		r->events[e].supported = true;
		r->events[e].total = (struct db_count){ .value = v, .enabled = 1000,
							.running = 1000, .present = true };
	}
}

static char *render(const struct db_run *a, const struct db_run *b,
		    enum out_format f)
{
	struct tu_buf buf;
	ab_render_runs(a, b, f, tu_buf_open(&buf));
	tu_buf_close(&buf);
	return buf.data;
}

/* Counts are whole numbers: 912 context switches, not "912.0". */
static void test_ab_report__two_runs_print_counts_whole(void **state)
{
	(void)state;
	struct db_run a, b;
	fixture_counted_run(&a);
	fixture_counted_run(&b);
	b.id = 8;
	set_total(&a, "cycles", 912);
	set_total(&b, "cycles", 1000);
	set_total(&a, "instructions", 10);
	set_total(&b, "instructions", 20);
	char *s = render(&a, &b, OUT_TABLE);
	assert_non_null(strstr(s, " cycles                         912          1,000    +9.6\n"));
	assert_non_null(strstr(s, " instructions                    10             20  +100.0\n"));
	/* Reals keep four significant digits. */
	assert_non_null(strstr(s, " ipc                        0.01096        0.02000   +82.4\n"));
	free(s);
	s = render(&a, &b, OUT_CSV);
	assert_true(strncmp(s, "run_a,run_b,metric,a,b,delta_pct\n", 33) == 0);
	assert_non_null(strstr(s, "\n7,8,cycles,912,1000,9.64912281\n"));
	assert_non_null(strstr(s, "\n7,8,LLC-load-misses,,,\n"));
	free(s);
	s = render(&a, &b, OUT_JSON);
	assert_non_null(strstr(s, "\"runs\": [7, 8],"));
	assert_non_null(strstr(s, "\"metric\": \"cycles\",\n      \"a\": 912,"));
	free(s);
	db_run_release(&a);
	db_run_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ab_report__two_runs_print_counts_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
