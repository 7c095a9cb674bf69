/* Tests for reports/events: the event list and the mission map in every
 * format, from plain structs (no libpfm4 needed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "reports/events.h"
#include "test_util.h"

static const struct report_event evs[] = {
	{ .name = "llc-misses", .pmu = "prof", .desc = "L3 misses", .hardware = true },
	{ .name = "cpu-clock", .pmu = "perf" },
	{ .name = "zen::IC_TAG", .pmu = "zen", .desc = "IC tags, hit|miss",
	  .hardware = true, .umasks = "IC_HIT,IC_MISS*" },
	{ .name = "zen::L1_DTLB_MISS", .pmu = "zen", .desc = "L1 DTLB misses",
	  .hardware = true, .umasks = "A,B", .needs_umask = true },
};

static char *render(bool pattern, enum out_format f, size_t n)
{
	struct report_event_list *l = report_event_list_new(pattern);
	for (size_t i = 0; i < n; i++)
		report_event_list_add(l, &evs[i]);
	struct tu_buf b;
	report_events(l, "nomatch", f, tu_buf_open(&b));
	tu_buf_close(&b);
	report_event_list_free(l);
	return b.data;
}

static void test_events_report__list_in_every_format(void **state)
{
	(void)state;
	char *s = render(false, OUT_TABLE, 4);
	assert_non_null(strstr(s, "mission counters (prof's names; --mission):\n"
			       "  llc-misses "));
	assert_non_null(strstr(s, "\ngeneric (perf-style names):\n"
			       "  cpu-clock  (software)\n"));
	/* Unit masks only where one is needed, without a pattern. */
	assert_null(strstr(s, "unit masks: IC_HIT"));
	assert_non_null(strstr(s, "needs one of: A,B\n"));
	free(s);
	s = render(true, OUT_MARKDOWN, 4);
	assert_non_null(strstr(s, "| event | PMU | description | unit masks |\n"));
	assert_non_null(strstr(s, "| zen::IC_TAG | zen | IC tags, hit\\|miss | IC_HIT,IC_MISS* |\n"));
	assert_non_null(strstr(s, "| zen::L1_DTLB_MISS | zen | L1 DTLB misses | needs one of: A,B |\n"));
	assert_non_null(strstr(s, "| cpu-clock | perf | (software) |  |\n"));
	free(s);
	s = render(false, OUT_CSV, 4);
	assert_string_equal(s,
		"name,pmu,hardware,description,umasks,needs_umask\n"
		"llc-misses,prof,true,L3 misses,,false\n"
		"cpu-clock,perf,false,,,false\n"
		"zen::IC_TAG,zen,true,\"IC tags, hit|miss\",\"IC_HIT,IC_MISS*\",false\n"
		"zen::L1_DTLB_MISS,zen,true,L1 DTLB misses,\"A,B\",true\n");
	free(s);
	s = render(false, OUT_JSON, 2);
	assert_non_null(strstr(s, "{\n  \"events\": [\n    {\n      \"name\": \"llc-misses\",\n"));
	assert_non_null(strstr(s, "\"description\": null,\n      \"umasks\": null,"));
	free(s);
	s = render(true, OUT_TABLE, 0);
	assert_string_equal(s, "no event matches 'nomatch'\n");
	free(s);
}

static void test_events_report__mission_map(void **state)
{
	(void)state;
	const struct report_mission_counter c[] = {
		{ .name = "llc-misses", .event = "zen::FILLS", .perf_name = "ls_fills",
		  .encoded = true, .type = 4, .type_name = "raw", .config = 0xdc44,
		  .summary = "L3 misses", .counts = "fills from beyond the L3",
		  .source = "cache.json" },
		{ .name = "branch-misses", .event = "perf::branch-misses",
		  .perf_name = "branch-misses", .cause = "event not found\nhint: x",
		  .summary = "mispredicts", .counts = "all", .source = "perf",
		  .needs_consent = true },
	};
	const struct report_mission m = { .family = "Zen", .pmu = "zen",
					  .counters = c, .ncounters = 2 };
	struct tu_buf b;
	report_mission(&m, OUT_CSV, tu_buf_open(&b));
	assert_string_equal(tu_buf_close(&b),
		"name,event,perf_name,type,config,summary,counts,source,needs_allow_generic\n"
		"llc-misses,zen::FILLS,ls_fills,4,0xdc44,L3 misses,fills from beyond the L3,"
		"cache.json,false\n"
		"branch-misses,perf::branch-misses,branch-misses,,,mispredicts,all,perf,true\n");
	free(b.data);
	report_mission(&m, OUT_MARKDOWN, tu_buf_open(&b));
	const char *s = tu_buf_close(&b);
	assert_non_null(strstr(s, "**mission counters on Zen** (libpfm4 PMU zen)\n\n"));
	assert_non_null(strstr(s, "| llc-misses | zen::FILLS | ls_fills | type 4 (raw), "
			       "config 0xdc44 | L3 misses: fills from beyond the L3 | "
			       "cache.json |\n"));
	assert_non_null(strstr(s, "| none: event not found | mispredicts: all (only with "
			       "--allow-generic) |"));
	free(b.data);
	report_mission(&m, OUT_TABLE, tu_buf_open(&b));
	s = tu_buf_close(&b);
	assert_non_null(strstr(s, "\nbranch-misses\n  event     perf::branch-misses\n"));
	assert_non_null(strstr(s, "  encoding  none: event not found\n"));
	free(b.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_report__list_in_every_format),
		cmocka_unit_test(test_events_report__mission_map),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
