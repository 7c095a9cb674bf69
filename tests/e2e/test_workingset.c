/*
 * End-to-end tests of code modules and `prof run --working-set`: the
 * built prof against a temporary database, on this machine's real
 * perf_event_open path (the page-faults software event works with or
 * without a PMU). The workload is tests/helpers/ws_touch, whose code and
 * data footprints are known by construction.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "db/db.h"
#include "test_util.h"

/* The helper program these tests run. */
#define HELPER HELPERS_DIR "/ws_touch"

static void need_perf(struct tu_db *f)
{
	if (!tu_perf_allowed(f->dbarg))
		skip();
}

/* The number after "key": in s, or -1 (and -2 for null). */
static int64_t json_num(const char *s, const char *key)
{
	char k[128];
	snprintf(k, sizeof(k), "\"%s\": ", key);
	const char *p = s ? strstr(s, k) : NULL;
	if (!p)
		return -1;
	p += strlen(k);
	if (!strncmp(p, "null", 4))
		return -2;
	return strtoll(p, NULL, 10);
}

/* The module object of `prof modules --format json` whose path is path
 * (points at its "path" key), or NULL. */
static const char *module_entry(const char *json, const char *path)
{
	char k[1200];
	snprintf(k, sizeof(k), "\"path\": \"%s\"", path);
	return strstr(json, k);
}

static struct tu_proc modules_json(struct tu_db *f)
{
	char *argv[] = { PROF_BIN, f->dbarg, "modules", "last", "--format", "json", NULL };
	return tu_run(argv, NULL);
}

static bool size_text(const char *path, uint64_t *text)
{
	char cmd[1200];
	snprintf(cmd, sizeof(cmd), "size -A '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	if (!p)
		return false;
	char *out = tu_slurp_fd(fileno(p));
	bool ok = pclose(p) == 0;
	char *t = out ? strstr(out, "\n.text ") : NULL;
	ok = ok && t && sscanf(t + 7, "%" SCNu64, text) == 1;
	free(out);
	return ok;
}

/* touched_data_bytes of a --working-set run of ws_touch --code --mib N. */
static int64_t touched_data(struct tu_db *f, char *mib)
{
	char *argv[] = { PROF_BIN, f->dbarg, "run", "--working-set", "-e", "task-clock",
			 "--format", "json", "--", HELPER, "--code", "--mib", mib, NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	int64_t v = json_num(strstr(p.err, "\"working_set\": {"), "touched_data_bytes");
	tu_proc_release(&p);
	return v;
}

/*
 * ws_touch --code --mib 32: 256 KiB of its own code run (64 functions, a
 * page each) and exactly 32 MiB of fresh anonymous memory written.
 * Touched data is at least 32 MiB, and 32 MiB more than a run with
 * --mib 0 (within 1 MiB: the rest is libc and the loader, the same in
 * both runs; measured: 0.5 MiB); touched code is nonzero,
 * at most the code footprint, and for ws_touch at least its 64 pages:
 * they all ran, so the kernel mapped them all, and touched code is the
 * pages the faults mapped (replayed after the run); .text as size -A
 * says.
 */
static void test_workingset__known_code_and_data(void **state)
{
	struct tu_db *f = *state;
	need_perf(f);
	int64_t base = touched_data(f, "0");
	char *argv[] = { PROF_BIN, f->dbarg, "run", "--working-set", "-e",
			 "task-clock,page-faults", "--format", "json", "--",
			 HELPER, "--code", "--mib", "32", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "ws_touch: done"));
	const char *ws = strstr(p.err, "\"working_set\": {");
	assert_non_null(ws);
	int64_t mib32 = 32 << 20;
	int64_t data = json_num(ws, "touched_data_bytes");
	int64_t code = json_num(ws, "touched_code_bytes");
	int64_t foot = json_num(ws, "code_footprint_bytes");
	assert_true(base > 0);
	assert_true(data >= mib32);
	/* The helpers are never built with sanitizers (tests/CMakeLists.txt),
	 * so an ASan build of prof sees the same workload. */
	assert_true(data - base >= mib32 - (64 << 10));
	assert_true(data - base < mib32 + (1 << 20));
	const char *anon = strstr(ws, "\"anon\": {");
	assert_non_null(anon);
	assert_true(json_num(anon, "touched_bytes") >= mib32);
	assert_true(code > 0);
	assert_true(code <= foot);
	/* Every fault was sampled: the page-faults count is the sum, but
	 * for what the launch faults between its release and its exec,
	 * which per-CPU counting counts and the sampler (from the exec on)
	 * does not: 2 here. */
	const char *tot = strstr(p.err, "\"totals\"");
	int64_t faults = json_num(tot, "page-faults");
	assert_true(faults >= (mib32 >> 12));
	int64_t sum = 0;
	static const char *const kinds[] = { "code", "heap", "stack", "anon", "file", "other" };
	for (size_t k = 0; k < 6; k++) {
		char key[32];
		snprintf(key, sizeof(key), "\"%s\": {", kinds[k]);
		sum += json_num(strstr(ws, key), "faults");
	}
	if (sum > faults || faults - sum > 16)
		fail_msg("%lld faults sampled, %lld counted", (long long)sum,
			 (long long)faults);
	tu_proc_release(&p);

	struct tu_proc q = modules_json(f);
	assert_int_equal(q.status, 0);
	const char *h = module_entry(q.out, HELPER);
	assert_non_null(h);
	int64_t exec = json_num(h, "exec_bytes");
	int64_t touched = json_num(h, "touched_bytes");
	assert_true(exec >= 64 * 4096);
	assert_true(touched >= 64 * 4096);
	assert_true(touched <= exec);
	assert_non_null(strstr(h, "\"touched_replayed\": true"));
	assert_true(json_num(h, "faulted_bytes") > 0);
	assert_true(json_num(h, "faulted_bytes") <= touched);
	uint64_t want;
	if (size_text(HELPER, &want))
		assert_int_equal(json_num(h, "text_bytes"), (int64_t)want);
	else
		fprintf(stderr, "note: size (binutils) is missing; .text not compared\n");
	/* Largest first. */
	int64_t prev = INT64_MAX;
	size_t n = 0;
	for (const char *s = strstr(q.out, "\"modules\": ["); (s = strstr(s, "\"exec_bytes\": ")); s++) {
		int64_t v = strtoll(s + 14, NULL, 10);
		assert_true(v <= prev);
		prev = v;
		n++;
	}
	assert_true(n >= 4);	/* ws_touch, libc, ld.so, [vdso] */
	tu_proc_release(&q);

	/* The table footer of the same run. */
	char *a3[] = { PROF_BIN, f->dbarg, "report", "last", NULL };
	struct tu_proc r = tu_run(a3, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "working set: code footprint "));
	assert_non_null(strstr(r.out, "touched code "));
	assert_non_null(strstr(r.out, " MiB (heap "));
	assert_non_null(strstr(r.out, "maps a 64 KiB window (fault-around)"));
	tu_proc_release(&r);
}

/*
 * A plain run (no --working-set) of a program that maps nothing
 * executable beyond libc: its modules are listed, with ELF sizes, and
 * touched is null; the per-thread table has no working-set footer.
 */
static void test_workingset__plain_run_lists_modules(void **state)
{
	struct tu_db *f = *state;
	need_perf(f);
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock", "--", "/bin/true", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.err, "working set"));
	tu_proc_release(&p);
	struct tu_proc q = modules_json(f);
	assert_int_equal(q.status, 0);
	assert_non_null(strstr(q.out, "\"working_set\": null"));
	const char *libc = strstr(q.out, "/libc.so.6\"");
	assert_non_null(libc);
	assert_true(json_num(libc, "text_bytes") > 100000);
	assert_int_equal(json_num(libc, "touched_bytes"), -2);
	assert_non_null(strstr(libc, "\"kind\": \"file\""));
	/* The kernel gave the build id: 40 hex digits. */
	const char *bid = strstr(libc, "\"build_id\": \"");
	assert_non_null(bid);
	assert_int_equal(strspn(bid + 13, "0123456789abcdef"), 40);
	tu_proc_release(&q);

	char *a2[] = { PROF_BIN, f->dbarg, "modules", NULL };
	struct tu_proc r = tu_run(a2, NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "code modules, code footprint"));
	assert_non_null(strstr(r.out, "libc.so.6"));
	assert_non_null(strstr(r.out, "touched code needs a working-set run"));
	tu_proc_release(&r);
}

/*
 * A module whose file is gone by the time prof reads it: a copy of
 * ws_touch that the shell removes right after running it. Its exec bytes
 * come from the run's records; its ELF sizes are null, with the reason.
 */
static void test_workingset__deleted_module_keeps_record_sizes(void **state)
{
	struct tu_db *f = *state;
	need_perf(f);
	char *script;
	assert_true(asprintf(&script, "cp '%s' '%s/gone' && '%s/gone' --code && rm '%s/gone'",
			     HELPER, f->dir, f->dir, f->dir) > 0);
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock", "--",
			 "/bin/sh", "-c", script, NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	struct tu_proc q = modules_json(f);
	char gone[600];
	snprintf(gone, sizeof(gone), "%s/gone", f->dir);
	const char *g = module_entry(q.out, gone);
	assert_non_null(g);
	assert_true(json_num(g, "exec_bytes") >= 64 * 4096);
	assert_int_equal(json_num(g, "text_bytes"), -2);
	assert_int_equal(json_num(g, "exec_section_bytes"), -2);
	const char *err = strstr(g, "\"error\": \"");
	assert_non_null(err);
	assert_true(strstr(err, "no such file") < strstr(err, "\n"));
	/* cp, rm and sh were modules too, each in its own process. */
	assert_non_null(strstr(q.out, "/cp\""));
	assert_non_null(strstr(q.out, "/rm\""));
	tu_proc_release(&q);

	char *a2[] = { PROF_BIN, f->dbarg, "modules", NULL };
	struct tu_proc r = tu_run(a2, NULL);
	assert_non_null(strstr(r.out, "/gone *"));
	assert_non_null(strstr(r.out, "sizes from the ELF file are unavailable"));
	tu_proc_release(&r);
	free(script);
}

/*
 * JIT code: ws_touch --jit makes 64 KiB of anonymous memory executable and
 * runs all 16 pages; with --perf-map it describes them in
 * /tmp/perf-PID.map (16 symbols of 4 KiB), which names the module.
 */
static void test_workingset__jit_code_and_perf_map(void **state)
{
	struct tu_db *f = *state;
	need_perf(f);
	char *a1[] = { PROF_BIN, f->dbarg, "run", "-q", "--working-set", "-e", "task-clock",
		       "--", HELPER, "--jit", NULL };
	struct tu_proc p = tu_run(a1, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	struct tu_proc q = modules_json(f);
	const char *a = module_entry(q.out, "[anon:exec]");
	assert_non_null(a);
	assert_int_equal(json_num(a, "exec_bytes"), 65536);
	assert_int_equal(json_num(a, "touched_bytes"), 65536);
	assert_non_null(strstr(a, "\"kind\": \"anon\""));
	tu_proc_release(&q);

	char *a2[] = { PROF_BIN, f->dbarg, "run", "-q", "--working-set", "-e", "task-clock",
		       "--", HELPER, "--jit", "--perf-map", NULL };
	p = tu_run(a2, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	q = modules_json(f);
	const char *m = strstr(q.out, "\"path\": \"/tmp/perf-");
	assert_non_null(m);
	char mapfile[64];
	assert_int_equal(sscanf(m + 9, "%63[^\"]", mapfile), 1);
	assert_int_equal(json_num(m, "exec_bytes"), 65536);
	assert_int_equal(json_num(m, "text_bytes"), 65536);
	assert_int_equal(json_num(m, "touched_bytes"), 65536);
	assert_null(module_entry(q.out, "[anon:exec]"));
	tu_proc_release(&q);
	unlink(mapfile);
}

/*
 * Attached with -p, the process's existing mappings come from
 * /proc/PID/maps (no MMAP2 record describes them): its program and libc
 * are modules, with ELF sizes, and the kernel's [vsyscall] page is left
 * out as in a launched run.
 */
static void test_workingset__attach_reads_existing_mappings(void **state)
{
	struct tu_db *f = *state;
	need_perf(f);
	char *sp;
	assert_true(asprintf(&sp, "%s/spinner", HELPERS_DIR) > 0);
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		execl(sp, sp, "3", "1", (char *)NULL);
		_exit(99);
	}
	close(pfd[1]);
	char ready[16] = "";
	assert_true(read(pfd[0], ready, sizeof(ready) - 1) > 0);
	char pidarg[32];
	snprintf(pidarg, sizeof(pidarg), "%d", (int)pid);
	char *a[] = { PROF_BIN, f->dbarg, "run", "-q", "--working-set", "-e", "task-clock",
		      "-p", pidarg, "--duration", "0.3", NULL };
	struct tu_proc p = tu_run(a, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	kill(pid, SIGKILL);
	int st;
	waitpid(pid, &st, 0);
	close(pfd[0]);
	struct tu_proc q = modules_json(f);
	const char *m = module_entry(q.out, sp);
	assert_non_null(m);
	assert_true(json_num(m, "exec_bytes") > 0);
	assert_true(json_num(m, "text_bytes") > 0);
	assert_non_null(strstr(q.out, "/libc.so.6\""));
	assert_null(strstr(q.out, "[vsyscall]"));
	assert_non_null(strstr(q.out, "\"working_set\": {"));
	tu_proc_release(&q);
	free(sp);
}

static void test_workingset__bad_runs_are_usage_errors(void **state)
{
	struct tu_db *f = *state;
	struct db *db;	/* an empty database: no run 999 in it */
	assert_int_equal(db_open(&db, f->dbarg + strlen("--db="), NULL), 0);
	db_close(db);
	char *a1[] = { PROF_BIN, f->dbarg, "modules", "999", NULL };
	struct tu_proc p = tu_run(a1, NULL);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "error: no run 999 in"));
	assert_non_null(strstr(p.err, "hint: 'prof runs' lists the stored runs"));
	tu_proc_release(&p);
	char *a2[] = { PROF_BIN, f->dbarg, "modules", "latest", NULL };
	p = tu_run(a2, NULL);
	assert_int_equal(p.status, 2);
	assert_non_null(strstr(p.err, "bad run 'latest'"));
	tu_proc_release(&p);
	char *a3[] = { PROF_BIN, f->dbarg, "modules", "--format", "svg", NULL };
	p = tu_run(a3, NULL);
	assert_int_equal(p.status, 2);
	tu_proc_release(&p);
	/* help and --help say the same. */
	char *a4[] = { PROF_BIN, "help", "modules", NULL };
	char *a5[] = { PROF_BIN, "modules", "--help", NULL };
	p = tu_run(a4, NULL);
	struct tu_proc q = tu_run(a5, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "usage: prof modules"));
	assert_string_equal(p.out, q.out);
	tu_proc_release(&p);
	tu_proc_release(&q);
	char *a6[] = { PROF_BIN, "run", "--help", NULL };
	p = tu_run(a6, NULL);
	assert_non_null(strstr(p.out, "--working-set"));
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_workingset__known_code_and_data, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_workingset__plain_run_lists_modules, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_workingset__deleted_module_keeps_record_sizes,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_workingset__jit_code_and_perf_map, tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_workingset__attach_reads_existing_mappings,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_workingset__bad_runs_are_usage_errors, tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
