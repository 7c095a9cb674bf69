/*
 * End-to-end tests of the pictures (--format svg): the built prof draws
 * from the fixture database (tests/fixture_db.h), and each picture must
 * be well-formed XML (xmllint) with the structure its verb promises:
 * axes, one series per arm, the marks. A pressure experiment's curves
 * are drawn from pressure.db (made-up values, tests/fixture_db.h). Every
 * golden .svg file is linted too, so a picture cannot be updated into
 * something a browser refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <string.h>

#include "fixture_db.h"
#include "test_util.h"
#include "xml_check.h"

static char *workdir, *dbpath, *pressdb;

static int setup_group(void **state)
{
	(void)state;
	workdir = tu_tmpdir();
	if (asprintf(&dbpath, "%s/fixture.db", workdir) < 0)
		return -1;
	fixture_db_build(dbpath);
	if (asprintf(&pressdb, "%s/pressure.db", workdir) < 0)
		return -1;
	fixture_pressure_db_build(pressdb);
	return 0;
}

static int teardown_group(void **state)
{
	(void)state;
	tu_rmrf(workdir);
	free(workdir);
	free(dbpath);
	free(pressdb);
	return 0;
}

/* prof --db fixture.db ARGS... (NULL-terminated); its stdout. */
static char *prof_out(int want_status, ...)
{
	char *argv[24];
	size_t n = 0;
	argv[n++] = PROF_BIN;
	argv[n++] = "--db";
	argv[n++] = dbpath;
	va_list ap;
	va_start(ap, want_status);
	for (char *a; (a = va_arg(ap, char *)) && n < 23;)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status != want_status)
		fail_msg("prof exited %d, not %d: %s", p.status, want_status, p.err);
	free(p.err);
	return p.out;
}

static void lint(const char *svg)
{
	if (!xc_have_xmllint())
		return;	/* the structure is still checked */
	assert_int_equal(xc_lint(svg, false), 0);
}

static size_t series_named(const char *svg, const char *name)
{
	char needle[128];
	snprintf(needle, sizeof(needle), "<g class=\"series\" data-name=\"%s\"", name);
	return xc_count(svg, needle);
}

/* Experiment 2, base against sim: per metric drawn, a rounds panel with
 * both arms and an effect panel with sim alone. */
static void test_pictures__ab_has_one_series_per_arm(void **state)
{
	(void)state;
	char *svg = prof_out(0, "compare", "2", "--format", "svg", NULL);
	lint(svg);
	size_t metrics = xc_count(svg, " is better)</text>");
	assert_true(metrics >= 3);
	assert_int_equal(xc_count(svg, "<g class=\"plot\""), 2 * metrics);
	assert_int_equal(xc_count(svg, "<g class=\"axis x\""), 2 * metrics);
	assert_int_equal(xc_count(svg, "<g class=\"axis y\""), 2 * metrics);
	assert_int_equal(series_named(svg, "base"), metrics);
	assert_int_equal(series_named(svg, "sim"), 2 * metrics);
	assert_int_equal(xc_count(svg, "<g class=\"gate\">"), metrics);
	/* units on the axes; a refused counter is named, not drawn */
	assert_non_null(strstr(svg, ">wall_s (s)</text>"));
	assert_non_null(strstr(svg, ">delta vs baseline (%)</text>"));
	assert_non_null(strstr(svg, "not drawn (not counted on this machine"));
	assert_non_null(strstr(svg, "L1-icache-load-misses"));
	free(svg);
}

static void test_pictures__three_arms(void **state)
{
	(void)state;
	char *svg = prof_out(0, "compare", "3", "--format", "svg", NULL);
	lint(svg);
	size_t metrics = xc_count(svg, " is better)</text>");
	assert_true(metrics >= 3);
	assert_int_equal(xc_count(svg, "<g class=\"series\""), 3 * metrics + 2 * metrics);
	free(svg);
}

static void test_pictures__svg_needs_one_experiment(void **state)
{
	(void)state;
	char *out = prof_out(2, "compare", "1", "4", "--format", "svg", NULL);
	assert_string_equal(out, "");
	free(out);
}

/* Run 6: three modes at two durations; a CDF per duration on a log axis
 * with a series per mode and p50/p99 marked, CPU per call beside it. */
static void test_pictures__sleep_has_a_cdf_per_duration(void **state)
{
	(void)state;
	char *svg = prof_out(0, "report", "6", "--format", "svg", NULL);
	lint(svg);
	assert_int_equal(xc_count(svg, "<g class=\"plot\""), 4);
	assert_int_equal(xc_count(svg, "<g class=\"axis x\" data-scale=\"log\">"), 2);
	assert_non_null(strstr(svg, ">20 us sleeps: overshoot CDF</text>"));
	assert_non_null(strstr(svg, ">50 us sleeps: overshoot CDF</text>"));
	/* each mode twice per duration: its CDF and its CPU bar */
	assert_int_equal(series_named(svg, "timerfd"), 4);
	assert_int_equal(series_named(svg, "hybrid:12.3"), 4);
	assert_int_equal(series_named(svg, "spin"), 4);
	assert_non_null(strstr(svg, ">overshoot beyond the target (us)</text>"));
	assert_non_null(strstr(svg, ">CPU per call (us)</text>"));
	assert_non_null(strstr(svg, ">p99 61</text>"));	/* timerfd's p99, 61 us */
	assert_non_null(strstr(svg, ">p50 0.9</text>"));	/* hybrid's p50 at 20 us */
	assert_int_equal(xc_count(svg, ">p99</text>"), 2);
	free(svg);
}

/* Run 35, a probe: latency against size on two log axes, sysfs's three
 * caches as labelled dashed lines, and the three knees marked. */
static void test_pictures__probe_marks_caches_and_knees(void **state)
{
	(void)state;
	char *svg = prof_out(0, "report", "35", "--format", "svg", NULL);
	lint(svg);
	assert_int_equal(xc_count(svg, "<g class=\"plot\""), 1);
	assert_int_equal(xc_count(svg, "<g class=\"axis x\" data-scale=\"log\">"), 1);
	assert_int_equal(xc_count(svg, "<g class=\"axis y\" data-scale=\"log\">"), 1);
	assert_non_null(strstr(svg, ">working-set size (bytes)</text>"));
	assert_non_null(strstr(svg, ">latency (ns per access)</text>"));
	assert_int_equal(xc_count(svg, "<line class=\"mark\""), 3);
	assert_non_null(strstr(svg, ">L1d 32 KiB</text>"));
	assert_non_null(strstr(svg, ">L2 512 KiB</text>"));
	assert_non_null(strstr(svg, ">LLC 32 MiB</text>"));
	assert_int_equal(series_named(svg, "ns per step"), 1);
	assert_int_equal(series_named(svg, "knees"), 1);
	assert_non_null(strstr(svg, ">knee 32 KiB (L1d)</text>"));
	assert_non_null(strstr(svg, ">knee 512 KiB (L2)</text>"));
	assert_non_null(strstr(svg, ">knee 24 MiB (memory)</text>"));
	free(svg);
	/* the page of the run holds the same picture */
	char *page = prof_out(0, "html", "35", NULL);
	assert_non_null(strstr(page, ">LLC 32 MiB</text>"));
	assert_non_null(strstr(page, "knees (where ns/step rises"));
	free(page);
}

/* Run 5: a flame graph of its first event, an icicle on request, and
 * the samples of the folded output, frame for frame. */
static void test_pictures__flame_graph_of_a_sampled_run(void **state)
{
	(void)state;
	char *svg = prof_out(0, "report", "5", "--format", "svg", NULL);
	char *folded = prof_out(0, "report", "5", "--format", "folded", NULL);
	lint(svg);
	unsigned long long total = 0;
	for (char *l = folded; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		char *sp = strrchr(l, ' ');
		assert_non_null(sp);
		total += strtoull(sp + 1, NULL, 10);
		l = nl ? nl + 1 : NULL;
	}
	char needle[64];
	snprintf(needle, sizeof(needle), "data-total=\"%llu\"", total);
	assert_true(total > 0);
	assert_non_null(strstr(svg, needle));
	assert_non_null(strstr(svg, "Flame graph of run 5: cpu-clock"));
	assert_non_null(strstr(svg, "<g class=\"flame\""));
	assert_true(xc_count(svg, "<g class=\"f\"") >= 5);
	assert_non_null(strstr(svg, "<script type=\"text/ecmascript\">"));
	/* nothing fetched: the one URL is the SVG namespace */
	assert_int_equal(xc_count(svg, "http"), 1);
	free(svg);
	svg = prof_out(0, "report", "5", "--format", "svg", "--icicle", NULL);
	assert_non_null(strstr(svg, "<g class=\"flame icicle\""));
	free(svg);
	free(folded);
}

/* Run 37's frames: frame time per frame against the budget, its four
 * long frames marked; then one panel per counter, a series per name. */
static void test_pictures__frames(void **state)
{
	(void)state;
	char *svg = prof_out(0, "report", "37", "--frames", "--format", "svg", NULL);
	lint(svg);
	assert_int_equal(xc_count(svg, "<g class=\"plot\""), 3);
	assert_int_equal(xc_count(svg, "<g class=\"axis x\""), 3);
	assert_non_null(strstr(svg, ">frame time (ms)</text>"));
	assert_non_null(strstr(svg, ">frame (index)</text>"));
	assert_non_null(strstr(svg, ">budget 16.7 ms</text>"));
	assert_int_equal(xc_count(svg, "<line class=\"mark\""), 1);
	assert_int_equal(series_named(svg, "frame time"), 1);
	assert_int_equal(series_named(svg, "over budget (4)"), 1);
	assert_non_null(strstr(svg, ">task-clock (ms per frame)</text>"));
	assert_non_null(strstr(svg, ">page-faults (per frame)</text>"));
	assert_int_equal(series_named(svg, "game"), 2);
	assert_int_equal(series_named(svg, "render"), 2);
	free(svg);
}

/* Run 37's intervals: one panel per event read, a series per name. */
static void test_pictures__intervals(void **state)
{
	(void)state;
	char *svg = prof_out(0, "report", "37", "--intervals", "--format", "svg",
			     NULL);
	lint(svg);
	assert_int_equal(xc_count(svg, "<g class=\"plot\""), 2);
	assert_non_null(strstr(svg, ">time since start (ms)</text>"));
	assert_non_null(strstr(svg, ">task-clock (ms per interval)</text>"));
	assert_non_null(strstr(svg, ">page-faults (per interval)</text>"));
	assert_int_equal(series_named(svg, "game"), 2);
	assert_int_equal(series_named(svg, "render"), 2);
	free(svg);
	/* the run's page holds both pictures and both tables */
	char *page = prof_out(0, "html", "37", NULL);
	lint(page);
	assert_int_equal(xc_count(page, "<svg "), 2);
	assert_non_null(strstr(page, "<h2>frames</h2>"));
	assert_non_null(strstr(page, "<h2>timeline</h2>"));
	free(page);
	/* a run without frames or intervals says so (asked of a run that
	 * has none: a usage error), draws nothing */
	char *out = prof_out(2, "report", "1", "--frames", "--format", "svg", NULL);
	assert_string_equal(out, "");
	free(out);
	out = prof_out(2, "report", "1", "--intervals", "--format", "svg", NULL);
	assert_string_equal(out, "");
	free(out);
}

/*
 * The pressure experiment: a panel per workload with its verdict in the
 * title, delta% and a CI bar at each of the five steps, the gate as a
 * band, the 32 MiB L3 marked, the x axis in MiB; what big's co-runner
 * held apart from what it walked (small's held it all). The same bytes
 * each time, and the same numbers as the table.
 */
static void test_pictures__pressure_curve_per_workload(void **state)
{
	(void)state;
	char *svg = prof_out(0, "compare", "1", "--db", pressdb, "--format", "svg", NULL);
	lint(svg);
	assert_int_equal(xc_count(svg, "<g class=\"plot\""), 2);
	assert_non_null(strstr(svg, ">prof pressure, experiment 1: big: cache-sensitive; "
			       "small: not-cache-sensitive</text>"));
	assert_non_null(strstr(svg, ">big: cache-sensitive (gate ±2.0%, floor)</text>"));
	assert_non_null(strstr(svg, ">small: not-cache-sensitive (gate ±2.0%, floor)"
			       "</text>"));
	assert_int_equal(xc_count(svg, ">cache taken (the co-runner&#39;s buffer) (MiB)"
				  "</text>"), 2);
	assert_int_equal(xc_count(svg, ">CPU time vs the control (%)</text>"), 2);
	assert_int_equal(xc_count(svg, "<g class=\"gate\">"), 2);
	assert_int_equal(xc_count(svg, ">gate ±2.0%</text>"), 2);
	assert_int_equal(xc_count(svg, ">L3 32 MiB</text>"), 2);
	assert_int_equal(series_named(svg, "delta vs control"), 2);
	assert_int_equal(series_named(svg, "held by the co-runner"), 1);
	assert_int_equal(xc_count(svg, "<g class=\"ci\">"), 10);
	assert_non_null(strstr(svg, ">30</text>"));	/* a tick, in MiB */
	/* the table's numbers and sentences */
	char *table = prof_out(0, "compare", "1", "--db", pressdb, NULL);
	static const char *const steps[] = { "+36.1", "+122.1", "+162.0" };
	for (size_t i = 0; i < 3; i++) {
		char want[64];
		snprintf(want, sizeof(want), ">%s%% worse</text>", steps[i]);
		assert_non_null(strstr(svg, want));
		snprintf(want, sizeof(want), "  %s  [", steps[i]);
		assert_non_null(strstr(table, want));
	}
	assert_non_null(strstr(svg, ">not cache-sensitive within ±2.0% CPU time down "
			       "to 8.0 MiB left of 32 MiB</text>"));
	assert_non_null(strstr(table, "not cache-sensitive within ±2.0% CPU time down "
			       "to 8.0 MiB left of 32 MiB"));
	char *again = prof_out(0, "compare", "1", "--db", pressdb, "--format", "svg",
			       NULL);
	assert_string_equal(svg, again);
	free(again);
	free(table);
	free(svg);
}

/* Its page: the curves, then the steps as prof pressure printed them. */
static void test_pictures__pressure_page(void **state)
{
	(void)state;
	char *page = prof_out(0, "html", "--experiment", "1", "--db", pressdb, NULL);
	lint(page);
	assert_int_equal(xc_count(page, "<svg "), 1);
	assert_non_null(strstr(page, "<h2>cache pressure curves</h2>"));
	assert_non_null(strstr(page, ">big: cache-sensitive (gate ±2.0%, floor)</text>"));
	assert_non_null(strstr(page, "<h2>steps</h2>"));
	assert_non_null(strstr(page, " 0 (A/A) "));
	assert_null(strstr(page, "every round"));	/* not read as an A/B */
	free(page);
}

/* A counting run has nothing to draw: a clear refusal, nothing written. */
static void test_pictures__counting_run_has_no_picture(void **state)
{
	(void)state;
	char *out = prof_out(2, "report", "1", "--format", "svg", NULL);
	assert_string_equal(out, "");
	free(out);
}

/* Every golden picture is well-formed. */
static void test_pictures__golden_svgs_are_well_formed(void **state)
{
	(void)state;
	if (!xc_have_xmllint())
		skip();	/* scripts/install-deps installs libxml2-utils */
	const char *root = FIXTURES_DIR "/golden";
	DIR *top = opendir(root);
	assert_non_null(top);
	size_t n = 0;
	struct dirent *d;
	while ((d = readdir(top))) {
		if (d->d_name[0] == '.')
			continue;
		char sub[512];
		snprintf(sub, sizeof(sub), "%s/%s", root, d->d_name);
		DIR *dir = opendir(sub);
		if (!dir)
			continue;
		struct dirent *f;
		while ((f = readdir(dir))) {
			size_t len = strlen(f->d_name);
			if (len < 5 || strcmp(f->d_name + len - 4, ".svg"))
				continue;
			char path[1024];
			snprintf(path, sizeof(path), "%s/%s", sub, f->d_name);
			char *text = tu_slurp(path);
			assert_non_null(text);
			if (strstr(text, "<svg ")) {
				if (xc_lint(text, false))
					fail_msg("%s is not well-formed XML", path);
				n++;
			}
			free(text);
		}
		closedir(dir);
	}
	closedir(top);
	assert_true(n >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pictures__ab_has_one_series_per_arm),
		cmocka_unit_test(test_pictures__three_arms),
		cmocka_unit_test(test_pictures__svg_needs_one_experiment),
		cmocka_unit_test(test_pictures__sleep_has_a_cdf_per_duration),
		cmocka_unit_test(test_pictures__probe_marks_caches_and_knees),
		cmocka_unit_test(test_pictures__flame_graph_of_a_sampled_run),
		cmocka_unit_test(test_pictures__frames),
		cmocka_unit_test(test_pictures__intervals),
		cmocka_unit_test(test_pictures__pressure_curve_per_workload),
		cmocka_unit_test(test_pictures__pressure_page),
		cmocka_unit_test(test_pictures__counting_run_has_no_picture),
		cmocka_unit_test(test_pictures__golden_svgs_are_well_formed),
	};
	return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
