/*
 * End-to-end tests of `prof report --format perfetto|speedscope|
 * perf-script|pprof`: the built prof records the bundled demo (prof-demo: named
 * threads doing known amounts of work) into a temporary database, counts
 * it once with -I 50 and once plainly, and exports each run. The
 * exports must be produced, read back as their readers require
 * (tests/export_check.h) and agree on how many samples there are; a run
 * without samples is refused by speedscope and perf-script (exit 2, one
 * line, no -o file); an interval run gives Perfetto counters. A sampled
 * C++ run (tests/helpers/record/hot_cxx.cpp, where g++ is installed) is
 * exported with its functions demangled in all three. Where python3 is
 * installed its json module must read the JSON exports too. The pprof
 * export is gunzipped and decoded by protoc (the format's own tool)
 * against reports/pprof/profile.proto, where protoc is installed: as
 * many samples as perf script's, the render thread and compute there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "export_check.h"
#include "fuzz/wellformed.h"
#include "json_tree.h"
#include "test_util.h"

#define RECORDED "1"	/* prof record of the demo */
#define INTERVALS "2"	/* prof run -I 50 of the demo */
#define COUNTED "3"	/* prof run of the demo */

struct fx {
	struct tu_db *db;
	bool ready;		/* the three runs are stored */
	char *why;		/* else why not */
};

static struct fx F;

static struct tu_proc prof(char *const *args)
{
	char *argv[32] = { PROF_BIN, F.db->dbarg };
	size_t n = 2;
	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return tu_run(argv, NULL);
}

static int setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof(F));
	F.db = tu_db_new("x.db");
	/* The probe's run goes elsewhere: the runs here are 1, 2 and 3. */
	char *probe;
	if (asprintf(&probe, "--db=%s/probe.db", F.db->dir) < 0)
		return -1;
	bool allowed = tu_perf_allowed(probe);
	free(probe);
	if (!allowed) {
		F.why = strdup("perf_event_open is not allowed here");
		return 0;
	}
	char *demo;
	if (asprintf(&demo, "%s/bin/prof-demo", BUILD_DIR) < 0)
		return -1;
	char *const runs[][10] = {
		{ "record", "-q", "--", demo, "0.5", NULL },
		{ "run", "-q", "-I", "50", "--", demo, "0.5", NULL },
		{ "run", "-q", "--", demo, "0.5", NULL },
	};
	F.ready = true;
	for (size_t i = 0; i < 3 && F.ready; i++) {
		struct tu_proc p = prof(runs[i]);
		if (p.status != 0) {
			F.ready = false;
			if (asprintf(&F.why, "prof %s exited %d: %s", runs[i][0], p.status,
				     p.err) < 0)
				F.why = NULL;
		}
		tu_proc_release(&p);
	}
	free(demo);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_db_free(F.db);
	free(F.why);
	return 0;
}

static void need_runs(void)
{
	if (!F.ready) {
		fprintf(stderr, "skip: %s\n", F.why ? F.why : "the runs were not stored");
		skip();
	}
}

/* prof report RUN --format FMT -o FILE: the file's text (the caller
 * frees it), after checking that prof said nothing and exited 0. */
static char *export(const char *run, const char *fmt)
{
	char *path;
	assert_true(asprintf(&path, "%s/%s.%s.out", F.db->dir, run, fmt) > 0);
	char *args[] = { "report", (char *)run, "--format", (char *)fmt, "-o", path, NULL };
	struct tu_proc p = prof(args);
	if (p.status != 0)
		fail_msg("prof report %s --format %s exited %d: %s", run, fmt, p.status, p.err);
	assert_string_equal(p.out, "");
	tu_proc_release(&p);
	char *text = tu_slurp(path);
	assert_non_null(text);
	free(path);
	return text;
}

/* Where python3 is installed, its json module must read text too. */
static void python_reads(const char *text, const char *name)
{
	if (system("command -v python3 >/dev/null 2>&1") != 0)
		return;
	char *path, *cmd;
	assert_true(asprintf(&path, "%s/%s.json", F.db->dir, name) > 0);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	assert_true(asprintf(&cmd, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))'"
			     " '%s'", path) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(path);
}

/* prof report RUN --format pprof -o FILE, gunzipped and decoded by
 * protoc against reports/pprof/profile.proto: its text (the caller
 * frees it). Skips where protoc is not installed. */
static char *pprof_decoded(const char *run)
{
	char *path, *dec, *cmd;
	assert_true(asprintf(&path, "%s/%s.pb.gz", F.db->dir, run) > 0);
	assert_true(asprintf(&dec, "%s/%s.pb.txt", F.db->dir, run) > 0);
	char *args[] = { "report", (char *)run, "--format", "pprof", "-o", path, NULL };
	struct tu_proc p = prof(args);
	if (p.status != 0)
		fail_msg("prof report --format pprof exited %d: %s", p.status, p.err);
	assert_string_equal(p.out, "");
	assert_string_equal(p.err, "");
	tu_proc_release(&p);
	if (system("command -v protoc >/dev/null 2>&1") != 0) {
		fprintf(stderr, "skip: protoc is not installed (protobuf-compiler)\n");
		free(path);
		free(dec);
		skip();
	}
	assert_true(asprintf(&cmd, "gzip -dc '%s' | protoc --decode=perftools.profiles.Profile "
			     "-I '%s/reports/pprof' profile.proto > '%s'", path, SOURCE_DIR,
			     dec) > 0);
	assert_int_equal(system(cmd), 0);
	char *t = tu_slurp(dec);
	assert_non_null(t);
	free(cmd);
	free(dec);
	free(path);
	return t;
}

/* Whether the demo's render thread is among a's items: by the member
 * key (a speedscope profile's name, a counter's), or with key NULL by
 * the name a thread_name event gives. */
static bool has_render(const struct jt *a, const char *key)
{
	for (size_t i = 0; i < a->n; i++) {
		const struct jt *v = key ? jt_get_type(&a->items[i], key, JT_STR) : NULL;
		if (v && strstr(v->str, "render"))
			return true;
		const struct jt *args = jt_get_type(&a->items[i], "args", JT_OBJ);
		const struct jt *name = key ? NULL : jt_get_type(args, "name", JT_STR);
		if (name && !strcmp(name->str, "render"))
			return true;
	}
	return false;
}

static size_t count_ph(const struct jt *evs, const char *ph)
{
	size_t n = 0;
	for (size_t i = 0; i < evs->n; i++) {
		const struct jt *p = jt_get_type(&evs->items[i], "ph", JT_STR);
		n += p && !strcmp(p->str, ph);
	}
	return n;
}

static void test_exports__a_recorded_run_in_all_three(void **state)
{
	(void)state;
	need_runs();
	struct jt doc;
	/* Perfetto: a track per thread, an instant per sample. */
	char *t = export(RECORDED, "perfetto");
	assert_null(wf_json(t, strlen(t)));
	assert_true(jt_parse(t, &doc));
	check_trace_events(&doc);
	const struct jt *evs = jt_get(&doc, "traceEvents");
	assert_true(has_render(evs, NULL));
	size_t instants = count_ph(evs, "i");
	assert_true(instants > 0);
	assert_true(count_ph(evs, "M") >= 7);	/* the process and its 7 threads */
	python_reads(t, "perfetto");
	jt_release(&doc);
	free(t);

	/* speedscope: a profile per thread; as many samples in all. */
	t = export(RECORDED, "speedscope");
	assert_null(wf_json(t, strlen(t)));
	assert_true(jt_parse(t, &doc));
	check_speedscope(&doc);
	const struct jt *profiles = jt_get(&doc, "profiles");
	assert_true(has_render(profiles, "name"));
	size_t nsamples = 0;
	for (size_t i = 0; i < profiles->n; i++)
		nsamples += jt_get(&profiles->items[i], "samples")->n;
	assert_int_equal(nsamples, instants);
	python_reads(t, "speedscope");
	jt_release(&doc);
	free(t);

	/* perf script: the same samples, each as perf prints one. */
	t = export(RECORDED, "perf-script");
	assert_int_equal(check_perf_script(t), instants);
	assert_non_null(strstr(t, "\nrender "));
	assert_non_null(strstr(t, " compute+0x"));
	free(t);

	/* Without -o, to stdout alike. */
	char *args[] = { "report", RECORDED, "--format", "perf-script", NULL };
	struct tu_proc p = prof(args);
	assert_int_equal(p.status, 0);
	assert_true(check_perf_script(p.out) > 0);
	tu_proc_release(&p);
}

/*
 * A sampled C++ run: each export names its functions demangled, as the
 * reports do (pprof keeps the linker's name as system_name too) (run 4, recorded here: runs 1-3 are setup's).
 */
static void test_exports__a_cxx_run_in_all_four(void **state)
{
	(void)state;
	need_runs();
	char *bin, *cmd;
	assert_true(asprintf(&bin, "%s/hot_cxx", F.db->dir) > 0);
	assert_true(asprintf(&cmd, "command -v g++ >/dev/null && g++ -O2 -g -o '%s' "
			     "'%s/../helpers/record/hot_cxx.cpp'", bin, FIXTURES_DIR) > 0);
	int built = system(cmd);
	free(cmd);
	if (built != 0) {
		free(bin);
		fprintf(stderr, "skip: g++ is missing or hot_cxx.cpp did not build\n");
		skip();
	}
	char *rec[] = { "record", "-q", "--", bin, "100", NULL };
	struct tu_proc p = prof(rec);
	if (p.status != 0)
		fail_msg("prof record hot_cxx exited %d: %s", p.status, p.err);
	tu_proc_release(&p);
	free(bin);
	struct jt doc;
	char *t = export("4", "perfetto");
	assert_null(wf_json(t, strlen(t)));
	assert_true(jt_parse(t, &doc));
	check_trace_events(&doc);
	/* as c++filt prints them: a template's return type first */
	assert_non_null(strstr(t, "\"name\": \"double geo::detail::accumulate<double>"
			       "(double, long)\""));
	python_reads(t, "perfetto");
	jt_release(&doc);
	free(t);
	t = export("4", "speedscope");
	assert_null(wf_json(t, strlen(t)));
	assert_true(jt_parse(t, &doc));
	check_speedscope(&doc);
	assert_non_null(strstr(t, "\"name\": \"geo::scale(float, long)\""));
	python_reads(t, "speedscope");
	jt_release(&doc);
	free(t);
	t = export("4", "perf-script");
	assert_true(check_perf_script(t) > 0);
	assert_non_null(strstr(t, " geo::scale(double, long)+0x"));
	assert_non_null(strstr(t, " geo::Box<double>::grow(long) const"));
	free(t);
	/* pprof: the demangled name to read, the linker's beside it */
	t = pprof_decoded("4");
	assert_non_null(strstr(t, "string_table: \"geo::scale(double, long)\"\n"));
	assert_non_null(strstr(t, "string_table: \"_ZN3geo5scaleEdl\"\n"));
	free(t);
}

/*
 * pprof: protoc decodes it, and its samples (the "cpu-clock samples"
 * value of each, summed) are as many as perf script prints.
 */
static void test_exports__a_recorded_run_as_pprof(void **state)
{
	(void)state;
	need_runs();
	char *t = pprof_decoded(RECORDED);
	assert_non_null(strstr(t, "string_table: \"cpu-clock samples\"\n"));
	assert_non_null(strstr(t, "string_table: \"render\"\n"));
	assert_non_null(strstr(t, "string_table: \"compute\"\n"));
	/* each sample: its cpu-clock weight, then its count */
	long long samples = 0, nsample = 0;
	for (const char *s = strstr(t, "\nsample {"); s; s = strstr(s + 1, "\nsample {")) {
		const char *v = strstr(s, "value: ");
		assert_non_null(v);
		v = strstr(v + 1, "value: ");
		assert_non_null(v);
		samples += atoll(v + strlen("value: "));
		nsample++;
	}
	assert_true(nsample > 0);
	char *ps = export(RECORDED, "perf-script");
	assert_int_equal(samples, check_perf_script(ps));
	free(ps);
	free(t);
}

/* No encoder: a clear error, and no file. */
static void test_exports__pprof_without_its_encoder(void **state)
{
	(void)state;
	need_runs();
	char *path;
	assert_true(asprintf(&path, "%s/noenc.pb.gz", F.db->dir) > 0);
	char *argv[] = { PROF_BIN, F.db->dbarg, "report", RECORDED, "--format", "pprof",
			 "-o", path, NULL };
	char *env[] = { "PROF_PPROF_LIB=/nonexistent/libprof-pprof.so", NULL };
	struct tu_proc p = tu_run(argv, env);
	assert_int_equal(p.status, 1);
	assert_non_null(strstr(p.err, "error: the pprof encoder libprof-pprof.so is missing: "
			       "looked in PROF_PPROF_LIB='/nonexistent/libprof-pprof.so'\n"
			       "hint: build it"));
	assert_int_equal(access(path, F_OK), -1);
	tu_proc_release(&p);
	free(path);
}

/* prof report RUN --format FMT -o FILE must exit 2 with one line that
 * holds want, and leave no FILE. */
static void refused(const char *run, const char *fmt, const char *want)
{
	char *path;
	assert_true(asprintf(&path, "%s/refused.out", F.db->dir) > 0);
	char *args[] = { "report", (char *)run, "--format", (char *)fmt, "-o", path, NULL };
	struct tu_proc p = prof(args);
	assert_int_equal(p.status, 2);
	if (!strstr(p.err, want))
		fail_msg("'%s' lacks '%s'", p.err, want);
	assert_int_equal(strncmp(p.err, "error: ", 7), 0);
	assert_ptr_equal(strchr(p.err, '\n'), p.err + strlen(p.err) - 1);
	assert_int_equal(access(path, F_OK), -1);
	tu_proc_release(&p);
	free(path);
}

static void test_exports__a_run_without_samples_is_refused(void **state)
{
	(void)state;
	need_runs();
	refused(COUNTED, "speedscope", "--format speedscope exports the samples of a "
		"sampled run (prof record): run 3 was counted, not sampled");
	refused(COUNTED, "perf-script", "--format perf-script exports the samples of a "
		"sampled run (prof record): run 3 was counted, not sampled");
	refused(INTERVALS, "speedscope", "run 2 was counted, not sampled");
	refused(COUNTED, "pprof", "--format pprof exports the samples of a "
		"sampled run (prof record): run 3 was counted, not sampled");
	/* Nothing over time for Perfetto either. */
	refused(COUNTED, "perfetto", "run 3 has none of them");
}

static void test_exports__an_interval_run_has_counters(void **state)
{
	(void)state;
	need_runs();
	char *t = export(INTERVALS, "perfetto");
	struct jt doc;
	assert_true(jt_parse(t, &doc));
	check_trace_events(&doc);
	const struct jt *evs = jt_get(&doc, "traceEvents");
	assert_true(count_ph(evs, "C") > 0);
	assert_int_equal(count_ph(evs, "i"), 0);
	for (size_t i = 0; i < evs->n; i++) {
		const struct jt *ph = jt_get(&evs->items[i], "ph");
		if (strcmp(ph->str, "C"))
			continue;
		const struct jt *args = jt_get_type(&evs->items[i], "args", JT_OBJ);
		assert_true(args->n > 0);
		for (size_t k = 0; k < args->n; k++)
			assert_int_equal(args->items[k].type, JT_NUM);
	}
	assert_true(has_render(evs, "name"));
	jt_release(&doc);
	free(t);
}

static void test_exports__bad_words_are_refused(void **state)
{
	(void)state;
	char *args[] = { "report", "last", "--format", "perfetto2", NULL };
	struct tu_proc p = prof(args);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "error: unknown format 'perfetto2'"));
	assert_non_null(strstr(p.err, "perfetto, speedscope, perf-script"));
	tu_proc_release(&p);
	char *by[] = { "report", "last", "--format", "speedscope", "--by", "symbol", NULL };
	p = prof(by);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "--format speedscope exports the whole run: it does "
			       "not go with --by"));
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exports__a_recorded_run_in_all_three),
		cmocka_unit_test(test_exports__a_cxx_run_in_all_four),
		cmocka_unit_test(test_exports__a_recorded_run_as_pprof),
		cmocka_unit_test(test_exports__pprof_without_its_encoder),
		cmocka_unit_test(test_exports__a_run_without_samples_is_refused),
		cmocka_unit_test(test_exports__an_interval_run_has_counters),
		cmocka_unit_test(test_exports__bad_words_are_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
