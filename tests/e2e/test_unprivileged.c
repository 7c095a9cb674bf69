/*
 * End-to-end tests of prof run by an unprivileged user at
 * perf_event_paranoid 2, where the kernel lets a user count user space
 * only: the scheduler's events (context-switches, cpu-migrations) would
 * count nothing and must say "not countable here", not print 0; and a
 * task that execs a set-user-ID program leaves its counters at the exec,
 * so the run must say it is incomplete. As root the tests drop to
 * nobody (65534); as a user they run as that user. Skipped, saying why,
 * where paranoid is not 2 or nobody cannot reach the build.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "test_util.h"

#define NOBODY 65534


/* A folder anyone may write, so that the unprivileged user's prof can
 * create its database there. */
static int setup(void **state)
{
	struct tu_db *d = tu_db_new("u.db");
	chmod(d->dir, 0777);
	*state = d;
	return 0;
}

static int paranoid(void)
{
	int v = -100;
	FILE *fp = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (fp) {
		if (fscanf(fp, "%d", &v) != 1)
			v = -100;
		fclose(fp);
	}
	return v;
}

/* tu_run, dropping root to nobody in the child first. */
static struct tu_proc run_unprivileged(char *const argv[])
{
	struct tu_run_opts o = { 0 };
	if (geteuid() == 0) {
		o.as_uid = NOBODY;
		o.as_gid = NOBODY;
	}
	return tu_run_ex(argv, NULL, &o);
}

/* Skips unless prof runs here as a user limited to user space. */
static void need_user_only(struct tu_db *f)
{
	if (paranoid() != 2) {
		fprintf(stderr, "skipping: perf_event_paranoid is %d, not 2\n", paranoid());
		skip();
	}
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock", "--",
			 "/bin/true", NULL };
	struct tu_proc p = run_unprivileged(argv);
	if (p.status == 127 || p.status == 126) {
		fprintf(stderr, "skipping: prof cannot run as an unprivileged user "
			"here (%d): %s\n", p.status, p.err);
		tu_proc_release(&p);
		skip();
	}
	if (p.status != 0)
		fail_msg("prof run as a user failed (%d): %s", p.status, p.err);
	tu_proc_release(&p);
}

static void test_unprivileged__scheduler_events_are_not_countable(void **state)
{
	struct tu_db *f = *state;
	need_user_only(f);
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-e",
			 "task-clock,context-switches,cpu-migrations,page-faults",
			 "--format", "json", "--", "/bin/sh", "-c",
			 "sleep 0.02; sleep 0.02", NULL };
	struct tu_proc p = run_unprivileged(argv);
	if (p.status != 0)
		fail_msg("prof run exited %d: %s", p.status, p.err);
	/* Stored and reported: not supported, why, and no value. JSON on
	 * stderr comes alone (no warning before it). */
	assert_true(p.err[0] == '{');
	assert_non_null(strstr(p.err, "not countable here"));
	assert_non_null(strstr(p.err, "\"context-switches\": null"));
	assert_non_null(strstr(p.err, "\"cpu-migrations\": null"));
	assert_null(strstr(p.err, "\"context-switches\": 0"));
	/* What a user may count is still counted. */
	assert_null(strstr(p.err, "\"page-faults\": null"));
	assert_null(strstr(p.err, "\"page-faults\": 0,"));
	tu_proc_release(&p);
	/* The table's footer says it, once, with its hint under -v; -q
	 * says nothing. */
	char *tab[] = { PROF_BIN, "-v", f->dbarg, "run", "-e", "task-clock,context-switches",
			"--", "/bin/true", NULL };
	p = run_unprivileged(tab);
	assert_int_equal(p.status, 0);
	const char *hint = "hint: as root: sysctl -w kernel.perf_event_paranoid=1";
	const char *first = strstr(p.err, hint);
	assert_non_null(first);
	assert_null(strstr(first + 1, hint));
	tu_proc_release(&p);
	/* without -v, in a few words that point at it */
	char *brief[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock,context-switches",
			  "--", "/bin/true", NULL };
	p = run_unprivileged(brief);
	assert_int_equal(p.status, 0);
	first = strstr(p.err, "not counted here (not zero): context-switches (");
	assert_non_null(first);
	assert_null(strstr(first + 1, "not counted here"));
	assert_non_null(strstr(p.err, "'prof -v'"));
	tu_proc_release(&p);
	char *quiet[] = { PROF_BIN, f->dbarg, "run", "-q", "-e",
			  "task-clock,context-switches", "--", "/bin/true", NULL };
	p = run_unprivileged(quiet);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.err, "");
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->dbarg, "report", "last", NULL };
	p = run_unprivileged(rep);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "not countable here"));
	tu_proc_release(&p);
}

/* A copy of spinner, set-user-ID root: only root can make one, on a file
 * system that honours the bit. NULL (and why, on stderr) otherwise. */
static char *setuid_spinner(struct tu_db *f)
{
	if (geteuid() != 0) {
		fprintf(stderr, "skipping: only root can make a set-user-ID program\n");
		return NULL;
	}
	char *path;
	if (asprintf(&path, "%s/suid_spinner", f->dir) < 0)
		abort();
	char *cmd;
	if (asprintf(&cmd, "cp '%s/tests/helpers/spinner' '%s' && chown 0:0 '%s' && "
		     "chmod 4755 '%s'", BUILD_DIR, path, path, path) < 0)
		abort();
	int rc = system(cmd);
	free(cmd);
	struct statvfs vfs;
	if (rc != 0 || statvfs(path, &vfs) != 0 || (vfs.f_flag & ST_NOSUID)) {
		fprintf(stderr, "skipping: no set-user-ID program in %s (nosuid?)\n", f->dir);
		free(path);
		return NULL;
	}
	return path;
}

static void test_unprivileged__setuid_exec_is_incomplete(void **state)
{
	struct tu_db *f = *state;
	need_user_only(f);
	char *suid = setuid_spinner(f);
	if (!suid)
		skip();
	/* The command itself: known before the run. */
	char *argv[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock", "--format",
			 "json", "--", suid, "0.1", NULL };
	struct tu_proc p = run_unprivileged(argv);
	if (p.status != 1)
		fail_msg("prof run exited %d: %s", p.status, p.err);
	/* The JSON document on stderr holds the reason; the warning a table
	 * run prints first stays out of it. */
	assert_null(strstr(p.err, "warning:"));
	assert_true(p.err[0] == '{');
	assert_non_null(strstr(p.err, "\"complete\": false"));
	assert_non_null(strstr(p.err, "exec'd a set-user-ID or set-group-ID program"));
	tu_proc_release(&p);
	char *table[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock", "-o", "/dev/null",
			  "--", suid, "0.1", NULL };
	p = run_unprivileged(table);
	assert_int_equal(p.status, 1);
	assert_non_null(strstr(p.err, "warning: "));
	assert_non_null(strstr(p.err, "is a set-user-ID or set-group-ID program"));
	tu_proc_release(&p);
	/* A descendant that runs long enough to be seen: by its EXIT record
	 * while it lives on, and by wait4's account against the counts. */
	char *cmd;
	if (asprintf(&cmd, "'%s' 0.3 >/dev/null; true", suid) < 0)
		abort();
	char *nested[] = { PROF_BIN, f->dbarg, "run", "-e", "task-clock",
			   "--allow-incomplete", "--format", "json", "--", "/bin/sh",
			   "-c", cmd, NULL };
	p = run_unprivileged(nested);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.err, "\"complete\": false"));
	assert_non_null(strstr(p.err, "ran with no counter on it"));
	tu_proc_release(&p);
	free(cmd);
	free(suid);
}

/*
 * prof record as a user limited to user space: its kernel frames cannot
 * be recorded, and prof says so rather than show chains without them
 * as if whole; --no-kernel (none wanted) silences it.
 */
static void test_unprivileged__record_says_kernel_frames_excluded(void **state)
{
	struct tu_db *f = *state;
	need_user_only(f);
	char *argv[] = { PROF_BIN, f->dbarg, "record", "-e", "cpu-clock", "--",
			 BUILD_DIR "/tests/helpers/kwrites", "20000", NULL };
	struct tu_proc p = run_unprivileged(argv);
	if (p.status != 0)
		fail_msg("prof record exited %d: %s", p.status, p.err);
	assert_non_null(strstr(p.err, "prof: kernel frames were not recorded: at "
			       "perf_event_paranoid 2"));
	assert_non_null(strstr(p.err, "hint: as root: sysctl -w kernel.perf_event_paranoid=1"));
	tu_proc_release(&p);
	char *fold[] = { PROF_BIN, f->dbarg, "report", "last", "--format", "folded", NULL };
	p = run_unprivileged(fold);
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.out, "_[k]"));
	tu_proc_release(&p);
	char *nk[] = { PROF_BIN, f->dbarg, "record", "--no-kernel", "-e", "cpu-clock", "--",
		       BUILD_DIR "/tests/helpers/kwrites", "20000", NULL };
	p = run_unprivileged(nk);
	assert_int_equal(p.status, 0);
	assert_null(strstr(p.err, "kernel frames"));
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unprivileged__scheduler_events_are_not_countable),
		cmocka_unit_test(test_unprivileged__setuid_exec_is_incomplete),
		cmocka_unit_test(test_unprivileged__record_says_kernel_frames_excluded),
	};
	return cmocka_run_group_tests(tests, setup, tu_db_teardown);
}
