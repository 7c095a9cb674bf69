/*
 * Complete or say so: prof run on workloads whose task count is known by
 * construction, many times each. Every run must either hold exactly that
 * many tasks and call itself complete, or call itself incomplete with a
 * reason; a run that says complete with tasks missing is the failure this
 * file exists for (docs/completeness.md).
 *
 * PROF_STRESS_RUNS sets the repetitions per workload (default 4, which
 * ctest uses; `PROF_STRESS_RUNS=50 ctest -R completeness` is the long
 * stress run, documented in the README).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

static int setup(void **state)
{
	*state = tu_db_new("stress.db");
	return 0;
}

static int runs(void)
{
	const char *s = getenv("PROF_STRESS_RUNS");
	int n = s ? atoi(s) : 4;
	return n > 0 ? n : 4;
}

/*
 * PROF_OWN_TIME=strict: only the own-time case, each worker within 2% of
 * its own time plus only what was measured to be taken away: the
 * steal, what a QEMU guest's host kept its CPU from running
 * (tu_host_taken_ns) and the stalls the run's own records show inside
 * switches; not the 5 ms for a stall none shows. For a machine that does
 * not stand still inside a switch but for its host: .ci/run's one-vCPU
 * guests (scripts/kernels --smp 1), not two vCPUs that one QEMU thread
 * runs in turn (the allowance below says why). A one-vCPU guest stands
 * still too while its host is busy: beside two host spinners, a row on
 * 6.12 came out 3.36 ms (+2.32%) over with no stall in its records.
 */
static bool strict_own_time(void)
{
	const char *s = getenv("PROF_OWN_TIME");
	return s && !strcmp(s, "strict");
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

struct tally {
	int complete, incomplete;
};

/* A thread's "pid" or "ppid" after its "tid" in the run's JSON; 0: null. */
static long key_after(const char *obj, const char *key, const char *what)
{
	const char *k = strstr(obj, key);
	if (!k)
		fail_msg("%s: no %s after %.60s", what, key, obj);
	k += strlen(key);
	return strncmp(k, "null", 4) ? atol(k) : 0;
}

/*
 * Every task of a complete run knows its process and that process's
 * parent, and the parents close the tree: the first process was started
 * by prof, every other by one of the run's processes, and all threads of
 * a process name the same parent.
 */
static void check_parents(const char *json, const char *what)
{
	size_t n = count(json, "\"tid\": ");
	long *pid = calloc(n + 1, sizeof(long)), *ppid = calloc(n + 1, sizeof(long));
	const char *p = json;
	for (size_t i = 0; i < n; i++) {
		p = strstr(p, "\"tid\": ");
		pid[i] = key_after(p, "\"pid\": ", what);
		ppid[i] = key_after(p, "\"ppid\": ", what);
		if (!pid[i] || !ppid[i])
			fail_msg("%s: task %zu of a complete run has pid %ld, ppid %ld",
				 what, i, pid[i], ppid[i]);
		p++;
	}
	if (n && ppid[0] == pid[0])
		fail_msg("%s: the first process %ld is its own parent", what, pid[0]);
	for (size_t i = 0; i < n; i++) {
		bool known = pid[i] == pid[0];
		for (size_t j = 0; j < n; j++) {
			if (pid[j] == pid[i] && ppid[j] != ppid[i])
				fail_msg("%s: process %ld has parents %ld and %ld", what,
					 pid[i], ppid[i], ppid[j]);
			known = known || pid[j] == ppid[i];
		}
		if (!known)
			fail_msg("%s: process %ld's parent %ld is not in the run", what,
				 pid[i], ppid[i]);
	}
	free(pid);
	free(ppid);
}

/*
 * Run argv (after "prof run ... --") once and check the verdict against
 * the expected task count. must_be_incomplete: the workload leaves a task
 * running, which prof must report.
 */
static void one_run(struct tu_db *f, char **cmd, size_t expected,
		    bool must_be_incomplete, struct tally *t)
{
	char *argv[32] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock",
			   "--allow-incomplete", "--format", "json", "-o", "/dev/stdout",
			   "--" };
	size_t n = 12;
	for (size_t i = 0; cmd[i] && n < 31; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status != 0)
		fail_msg("prof run %s exited %d:\n%s", cmd[0], p.status, p.err);
	size_t tasks = count(p.out, "\"tid\": ");
	bool complete = strstr(p.out, "\"complete\": true") != NULL;
	bool incomplete = strstr(p.out, "\"complete\": false") != NULL;
	assert_true(complete != incomplete);
	if (complete) {
		if (tasks != expected || must_be_incomplete)
			fail_msg("%s: called complete with %zu of %zu tasks", cmd[0],
				 tasks, expected);
		check_parents(p.out, cmd[0]);
		t->complete++;
	} else {
		/* incomplete must say why */
		const char *r = strstr(p.out, "\"reasons\": [");
		assert_non_null(r);
		assert_true(r[strlen("\"reasons\": [")] != ']');
		/* Counted per CPU, nothing is shared between CPUs and every
		 * task's last slice is named: a tree that only ends is
		 * complete there (issue 23), on every kernel. */
		if (!must_be_incomplete && strstr(p.out, "\"count_path\": \"percpu\""))
			fail_msg("%s: incomplete though counted per CPU:\n%.600s", cmd[0], r);
		t->incomplete++;
	}
	tu_proc_release(&p);
}

static void report(const char *what, const struct tally *t)
{
	fprintf(stderr, "%s: %d complete, %d marked incomplete\n", what,
		t->complete, t->incomplete);
}

static char *helper(const char *name)
{
	char *p;
	if (asprintf(&p, "%s/%s", HELPERS_DIR, name) < 0)
		abort();
	return p;
}

static void tree(void **state, const char *mode, const char *w, const char *d,
		 size_t expected)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *bin = helper("forktree");
	char *cmd[] = { bin, (char *)mode, (char *)w, (char *)d, "2000", NULL };
	struct tally t = { 0, 0 };
	for (int i = 0; i < runs(); i++)
		one_run(f, cmd, expected, false, &t);
	char what[64];
	snprintf(what, sizeof(what), "forktree %s %s %s", mode, w, d);
	report(what, &t);
	free(bin);
}

/*
 * Issue 23: each worker's task-clock against the CPU time the scheduler
 * charged that worker over its whole life, its exit included
 * (tests/helpers/selftime: 1, 2 and 3 units of work). On every path a
 * run either gives each worker its own count, complete and within 5% plus
 * 5 ms of its own time (plus what a VM's host stole meanwhile), or calls itself
 * incomplete with a reason; as root (CI, the QEMU guests) the default
 * path counts per CPU unless the run says why not.
 */
static void own_times(struct tu_db *f, const char *path, int *percpu_complete)
{
	char *bin = helper("selftime"), *out;
	if (asprintf(&out, "%s/selftime.json", f->dir) < 0)
		abort();
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock,page-faults",
			 "--allow-incomplete", "--format", "json", "-o", out, "--",
			 bin, "30", NULL };
	char env[64];
	snprintf(env, sizeof(env), "PROF_COUNT_PATH=%s", path);
	char *envp[] = { env, NULL };
	struct tu_taken t0 = tu_taken_now();
	struct tu_proc p = tu_run(argv, envp);
	/* And in a QEMU guest, what its host took from it meanwhile: a
	 * guest's steal shows only what a hypervisor tells it of, and TCG
	 * tells nothing. */
	long long host = tu_host_taken_since(t0.host);
	/* What the machine had stolen meanwhile is allowed on top (6.18
	 * here: +18% on one worker of a loaded run). Nothing where either
	 * read failed or the sum went back: once here the bound came out
	 * 2.6 ms short of the 9.5 ms it allows, which only a negative
	 * "stolen" can do, and failed a run 7 ms over. */
	long long stolen = tu_stolen_since(t0.steal) + host;
	if (host > 0)
		fprintf(stderr, "selftime (%s): the host kept the guest's CPU from "
			"running for %.2f ms of the run\n", path, host / 1e6);
	if (p.status != 0)
		fail_msg("prof run selftime exited %d:\n%s", p.status, p.err);
	char *json = tu_slurp(out);
	assert_non_null(json);
	bool done = strstr(json, "\"complete\": true") != NULL;
	if (!done) {
		assert_non_null(strstr(json, "\"reasons\": [\n"));
		fprintf(stderr, "selftime (%s): incomplete, as it says\n", path);
		/* Every worker without its counts, on the per-task path: the
		 * kernel sends none at exit (6.1, 6.12), and the run says
		 * what would give the rows. */
		if (!strcmp(path, "task") && strstr(json, "3 of 3 tasks exited without"))
			assert_non_null(strstr(json, "this kernel sends no thread's counts"));
	}
	if (!strcmp(path, "auto") && geteuid() == 0 &&
	    !strstr(json, "\"count_path\": \"percpu\""))
		assert_non_null(strstr(json, "\"count_path_note\": "));
	int workers = 0;
	for (char *l = strtok(p.out, "\n"); done && l; l = strtok(NULL, "\n")) {
		long tid;
		long long ns;
		long long proc_ns;
		if (sscanf(l, "selftime process %lld", &proc_ns) == 1) {
			/* The run's total against the process's own: where a
			 * worker's row is over its own clock, this says whether
			 * the time is the workload's (its exit path, after the
			 * clock was read) or some other task's. */
			const char *tot = strstr(json, "\"totals\"");
			tot = tot ? strstr(tot, "\"task-clock\": ") : NULL;
			if (tot)
				fprintf(stderr, "selftime (%s): total task-clock %.2f ms, "
					"the process's own %.2f ms\n", path,
					atoll(tot + strlen("\"task-clock\": ")) / 1e6,
					proc_ns / 1e6);
			continue;
		}
		if (sscanf(l, "selftime %ld %lld", &tid, &ns) != 2)
			continue;
		char key[48];
		snprintf(key, sizeof(key), "\"tid\": %ld,", tid);
		const char *th = strstr(json, key);
		if (!th)
			fail_msg("selftime (%s): worker %ld has no row", path, tid);
		const char *tc = strstr(th, "\"task-clock\": ");
		assert_non_null(tc);
		long long v = atoll(tc + strlen("\"task-clock\": "));
		double off = ns > 0 ? (double)(v - ns) / (double)ns : 1;
		fprintf(stderr, "selftime (%s): worker %ld task-clock %.2f ms, its own "
			"%.2f ms (%+.2f%%)\n", path, tid, v / 1e6, ns / 1e6, off * 100);
		/* The witness is the worker's whole life: against the clock
		 * it read when its work was done, its exit (2 to 8 ms now and
		 * then in a QEMU guest) put a worker 2.1-4.8% over in 5 of 25
		 * runs on 6.1. Against its whole life: in a one-vCPU guest
		 * 150 of 150 rows within 2% (6.1 and 6.12, the worst +1.04%);
		 * with two vCPUs, which one QEMU thread runs in turn, the
		 * one not running stands still with its clock going, and
		 * where that lands inside a context switch the time moves
		 * to a neighbour's row (docs/kernels.md): 4 of 75 rows on
		 * 6.12 were 2.1-2.8% off on a quiet host, 4-8 ms. The run
		 * tallies what its records show of such stalls
		 * (percpu_stall_ns); a stall before a switch's sample shows
		 * in none, hence 5 ms beside the 2%, and the host's steal. */
		/* Settings are strings in the JSON: "percpu_stall_ns": "N". */
		const char *st = strstr(json, "\"percpu_stall_ns\": \"");
		long long stall = st ? atoll(st + strlen("\"percpu_stall_ns\": \"")) : 0;
		if (stall)
			fprintf(stderr, "selftime (%s): the CPU stood still %.2f ms "
				"inside switches\n", path, stall / 1e6);
		long long allowed = ns / 50 + stolen + stall +
				    (strict_own_time() ? 0 : 5000000);
		if (llabs(v - ns) > allowed)
			fail_msg("selftime (%s): worker %ld counted %lld ns against its "
				 "own %lld ns (%+.2f%%; allowed %lld ns: 2%%, %lld stolen, "
				 "%lld stalled%s)", path, tid, v, ns, off * 100, allowed,
				 stolen, stall, strict_own_time() ? ", strict" : ", 5 ms");
		workers++;
	}
	if (done)
		assert_int_equal(workers, 3);
	/* The per-CPU path works on every kernel: its runs give each worker
	 * its row (an incomplete one says why, above). */
	if (done && strstr(json, "\"count_path\": \"percpu\""))
		(*percpu_complete)++;
	free(json);
	free(out);
	free(bin);
	tu_proc_release(&p);
}

static void test_completeness__workers_get_their_own_cpu_time(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	int percpu = 0;
	for (int i = 0; i < runs(); i++)
		own_times(f, "auto", &percpu);
	/* As root, where a cgroup can be made, most runs are per CPU and
	 * complete (4 of 4 here and on 6.1 and 6.12 under QEMU). */
	if (geteuid() == 0 && access("/sys/fs/cgroup", W_OK) == 0 && runs() > 1)
		assert_true(percpu > 0);
	own_times(f, "task", &percpu);
}

/* The numbers a perf stat -x, line or selfcount prints, in order. */
static size_t numbers(const char *text, long long *v, size_t max)
{
	size_t n = 0;
	for (const char *l = text; l && *l && n < max; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (!strncmp(l, "selfcount ", 10))
			v[n++] = atoll(l + 10);
		else if (*l >= '0' && *l <= '9' && strstr(l, ",page-faults"))
			v[n++] = atoll(l);
	}
	return n;
}

/* One run of cmd (alone or under prof): its numbers into v[0..max). */
static size_t counted_faults(char **cmd, long long *v, size_t max)
{
	struct tu_proc p = tu_run(cmd, NULL);
	if (p.status != 0)
		fail_msg("%s exited %d:\n%s", cmd[0], p.status, p.err);
	size_t n = numbers(p.out, v, max);
	n += numbers(p.err, v + n, max - n);
	tu_proc_release(&p);
	return n;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

/*
 * Issue 23: a workload that reads its own inherited counters (selfcount,
 * and perf stat around it where perf is installed) reads the same under
 * prof run as alone. With inherit_stat on prof's per-task counters the
 * kernel's context swaps paired unrelated counters: selfcount read
 * 150,448 and 5,710,083 page faults instead of 32,024, perf stat
 * 2,050,341 and 32,621,020 instead of 32,080 (6.18, PROF_COUNT_PATH=task).
 * Counted per CPU, prof leaves the workload's contexts alone.
 *
 * The medians of three interleaved runs each are compared: Debian's 6.1
 * kernel itself now and then loses part of an inherited counter's count
 * with no profiler at all (under QEMU with the host busy, 6 of 150 runs
 * of selfcount alone read 31,544 to 31,975 of its 32,023, and 6 of 150
 * under prof run; docs/kernels.md), so one run against one can differ by
 * 1.5% whoever is right, while prof's old fault was wrong in every run.
 */
#define SELFCOUNT_RUNS 3
static void test_completeness__workload_counters_read_the_same(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *bin = helper("selfcount");
	bool perf = access("/usr/bin/perf", X_OK) == 0 &&
		    system("/usr/bin/perf stat -e page-faults true >/dev/null 2>&1") == 0;
	char *alone[] = { "/usr/bin/perf", "stat", "-x,", "-e", "page-faults", "--", bin, NULL };
	char **cmd = perf ? alone : alone + 6;
	size_t want = perf ? 2 : 1;
	/* Complete or not (docs/kernels.md: a reaped task's last switch
	 * can go unnamed under QEMU), the workload's counters must match. */
	char *argv[16] = { PROF_BIN, f->dbarg, "run", "-q", "--allow-incomplete", "--" };
	size_t n = 6;
	for (size_t i = 0; cmd[i]; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	long long va[2][SELFCOUNT_RUNS], vp[2][SELFCOUNT_RUNS];
	for (size_t r = 0; r < SELFCOUNT_RUNS; r++) {
		long long a[2] = { 0, 0 }, p[2] = { 0, 0 };
		assert_int_equal(counted_faults(cmd, a, want), want);
		assert_int_equal(counted_faults(argv, p, want), want);
		for (size_t i = 0; i < want; i++) {
			va[i][r] = a[i];
			vp[i][r] = p[i];
			fprintf(stderr, "%s: %lld alone, %lld under prof run\n",
				i ? "perf stat" : "selfcount", a[i], p[i]);
		}
	}
	for (size_t i = 0; i < want; i++) {
		qsort(va[i], SELFCOUNT_RUNS, sizeof(va[i][0]), cmp_ll);
		qsort(vp[i], SELFCOUNT_RUNS, sizeof(vp[i][0]), cmp_ll);
		long long ma = va[i][SELFCOUNT_RUNS / 2], mp = vp[i][SELFCOUNT_RUNS / 2];
		if (llabs(mp - ma) > ma / 100)
			fail_msg("%s read a median of %lld page faults under prof run, "
				 "%lld alone", i ? "perf stat" : "selfcount", mp, ma);
	}
	free(bin);
}

/* 1 + 6 + 36 + 216 = 259 processes. */
static void test_completeness__fork_tree(void **state)
{
	tree(state, "fork", "6", "3", 259);
}

static void test_completeness__vfork_tree(void **state)
{
	tree(state, "vfork", "6", "3", 259);
}

static void test_completeness__posix_spawn_tree(void **state)
{
	tree(state, "spawn", "6", "3", 259);
}

/* Threads inside child processes: the root starts 20 processes, each
 * of which starts 20 threads: 1 + 20 + 400 tasks. */
static void test_completeness__threads_in_children(void **state)
{
	tree(state, "thread", "20", "2", 421);
}

/*
 * prof record of the thread tree: its samples and side-band records come
 * through the per-CPU buffers with the switches (each written by one
 * CPU), so where it counts per CPU a record keeps every task and calls
 * itself complete, as run does; on the per-task path it must say why not.
 */
static void test_completeness__record_keeps_every_task(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *bin = helper("forktree");
	struct tally t = { 0, 0 };
	for (int i = 0; i < runs(); i++) {
		struct tu_proc p = tu_run((char *[]){ PROF_BIN, f->dbarg, "record", "-q",
			"--allow-incomplete", "-F", "4000", "--", bin, "thread", "20", "2",
			"2000", NULL }, NULL);
		if (p.status != 0)
			fail_msg("prof record exited %d:\n%s", p.status, p.err);
		tu_proc_release(&p);
		p = tu_run((char *[]){ PROF_BIN, f->dbarg, "report", "last", "--by", "total",
			"--format", "json", NULL }, NULL);
		assert_int_equal(p.status, 0);
		bool percpu = strstr(p.out, "\"count_path\": \"percpu\"") != NULL;
		if (percpu)
			assert_non_null(strstr(p.out, "\"sample_path\": \"percpu\""));
		if (strstr(p.out, "\"complete\": true")) {
			if (count(p.out, "\"tid\": ") != 421)
				fail_msg("record called complete with %zu of 421 tasks",
					 count(p.out, "\"tid\": "));
			t.complete++;
		} else {
			assert_non_null(strstr(p.out, "\"complete\": false"));
			if (percpu)
				fail_msg("record incomplete though sampled per CPU:\n%.800s",
					 p.out);
			t.incomplete++;
		}
		tu_proc_release(&p);
	}
	report("prof record of forktree thread 20 2", &t);
	free(bin);
}

/* make -j2 over a generated Makefile of 240 shell targets: 241 tasks
 * (make and 240 shells, each shell's loop runs in the shell itself). */
static void test_completeness__make_tree(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	if (system("command -v make >/dev/null 2>&1") != 0)
		skip();
	char *mk;
	if (asprintf(&mk, "%s/Makefile", f->dir) < 0)
		abort();
	FILE *fp = fopen(mk, "w");
	assert_non_null(fp);
	fprintf(fp, "all:");
	for (int i = 0; i < 240; i++)
		fprintf(fp, " t%d", i);
	fprintf(fp, "\n");
	for (int i = 0; i < 240; i++)
		fprintf(fp, "t%d:\n\t@sh -c 'i=0; while [ $$i -lt 50 ]; do i=$$((i+1)); done'\n", i);
	fclose(fp);
	char *cmd[] = { "/usr/bin/make", "-s", "-j2", "-f", mk, NULL };
	if (access(cmd[0], X_OK) != 0)
		cmd[0] = "/bin/make";
	struct tally t = { 0, 0 };
	for (int i = 0; i < runs(); i++)
		one_run(f, cmd, 241, false, &t);
	report("make -j2 (240 targets)", &t);
	free(mk);
}

/* Nested shells and a pipeline: sh, sh, and three pipeline stages. */
static void test_completeness__nested_shells_and_pipes(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *cmd[] = { "/bin/sh", "-c",
			"/bin/sh -c 'echo a | /bin/cat | /bin/cat >/dev/null; true'; true",
			NULL };
	struct tally t = { 0, 0 };
	for (int i = 0; i < runs(); i++)
		one_run(f, cmd, 5, false, &t);
	report("nested sh -c and a pipeline", &t);
}

/*
 * The fastest switcher: two threads handing a byte over pipes, about
 * 100,000 switches in a fraction of a second. Each drain copies a CPU's
 * buffer out whole (collectors/percpu.c); before, a buffer had to hold
 * the 40 ms the side-band is held back for, and 2 MiB buffers lost
 * 44,000-66,000 records of a 200,000-round ping-pong (perf bench sched
 * pipe). With the default (2 MiB on 2 CPUs, 1 MiB from 8 on) the run
 * must keep every record: complete, two threads, their switches all
 * there. (512 KiB kept them all on a quiet machine, but lost 1,537 of
 * them beside the rest of the suite.)
 */
static void test_completeness__fast_switcher_loses_nothing(void **state)
{
#ifdef __SANITIZE_ADDRESS__
	/* How fast prof reads is what this measures: under AddressSanitizer
	 * its reader is several times slower than the native ping-pong it
	 * reads (CI: 40,403 records lost of 2 MiB buffers). The plain build
	 * judges it; the sanitizers check the same code paths elsewhere. */
	skip();
#endif
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *bin = helper("pingpong"), *out;
	if (asprintf(&out, "%s/pingpong.json", f->dir) < 0)
		abort();
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock,context-switches",
			 "--format", "json", "-o", out, "--", bin, "50000", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status != 0)
		fail_msg("prof run pingpong exited %d:\n%s", p.status, p.err);
	char *json = tu_slurp(out);
	assert_non_null(json);
	if (!strstr(json, "\"complete\": true"))
		fail_msg("pingpong: incomplete:\n%s", strstr(json, "\"reasons\"") ?
			 strstr(json, "\"reasons\"") : json);
	assert_int_equal(count(json, "\"tid\": "), 2);
	const char *tot = strstr(json, "\"totals\"");
	assert_non_null(tot);
	const char *cs = strstr(tot, "\"context-switches\": ");
	assert_non_null(cs);
	long long sw = atoll(cs + strlen("\"context-switches\": "));
	fprintf(stderr, "pingpong: %lld switches\n", sw);
	/* each blocks at each of its 50,000 reads but where the other
	 * thread's write came first (both on one CPU: fewer) */
	assert_true(sw >= 50000);
	free(json);
	free(out);
	free(bin);
	tu_proc_release(&p);
}

/* A child that outlives the command must make the run incomplete. */
static void test_completeness__daemon_is_reported(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *cmd[] = { "/bin/sh", "-c", "/bin/sleep 0.3 & exit 0", NULL };
	struct tally t = { 0, 0 };
	one_run(f, cmd, 2, true, &t);
	assert_int_equal(t.incomplete, 1);
	/* and without --allow-incomplete prof exits 1, saying why */
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock", "--",
			 "/bin/sh", "-c", "/bin/sleep 0.3 & exit 0", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 1);
	assert_non_null(strstr(p.err, "is incomplete: 1 task was still running"));
	assert_non_null(strstr(p.err, "hint: "));
	tu_proc_release(&p);
	struct timespec ts = { 0, 400000000 };
	nanosleep(&ts, NULL);	/* let the sleeps end before the next test */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_completeness__workers_get_their_own_cpu_time,
						setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_completeness__workload_counters_read_the_same,
						setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_completeness__fork_tree, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_completeness__vfork_tree, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_completeness__posix_spawn_tree, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_completeness__threads_in_children, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_completeness__make_tree, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_completeness__record_keeps_every_task,
						setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_completeness__nested_shells_and_pipes, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_completeness__fast_switcher_loses_nothing,
						setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_completeness__daemon_is_reported, setup, tu_db_teardown),
	};
	if (strict_own_time())
		cmocka_set_test_filter("test_completeness__workers_get_their_own_cpu_time");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
