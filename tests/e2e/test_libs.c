/*
 * The libraries prof opens where a verb first needs them (common/dynlib):
 * libpfm4 to encode events, libunwind to record, libdw for source lines.
 * Each case puts a broken copy of them first on LD_LIBRARY_PATH (an
 * empty file the loader refuses), so a verb that loads one fails, or
 * warns, naming it, and a verb that needs none runs as ever: it would
 * not start at all if prof were linked with them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#if defined(__x86_64__)
#define UNWIND_SONAME "libunwind-x86_64.so.8"
#else
#define UNWIND_SONAME "libunwind-aarch64.so.8"
#endif

struct fx {
	struct tu_db *db;
	char *libs;		/* broken copies of all three */
	char *dw;		/* a broken libdw alone */
	char env_libs[4200], env_dw[4200];
};

static void broken(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->db = tu_db_new("t.db");
	f->libs = tu_tmpdir();
	f->dw = tu_tmpdir();
	broken(f->libs, "libpfm.so.4");
	broken(f->libs, "libdw.so.1");
	broken(f->libs, UNWIND_SONAME);
	broken(f->dw, "libdw.so.1");
	snprintf(f->env_libs, sizeof(f->env_libs), "LD_LIBRARY_PATH=%s", f->libs);
	snprintf(f->env_dw, sizeof(f->env_dw), "LD_LIBRARY_PATH=%s", f->dw);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	tu_rmrf(f->libs);
	tu_rmrf(f->dw);
	free(f->libs);
	free(f->dw);
	tu_db_free(f->db);
	free(f);
	return 0;
}

static char *file_bytes(const char *path, size_t *len)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return NULL;
	*len = (size_t)st.st_size;
	return tu_slurp(path);
}

/* prof run of an event libpfm4 encodes, without libpfm4: exit 1, the
 * library named with its package, and the database as it was. perf's
 * software events need no libpfm4 (events.c resolves their names): such
 * a run goes on and is stored. */
static void test_libs__run_without_libpfm_stores_nothing(void **state)
{
	struct fx *f = *state;
	if (!tu_perf_allowed(f->db->dbarg))
		skip();
	char *first[] = { PROF_BIN, f->db->dbarg, "run", "-q", "-e", "task-clock",
			  "--", "true", NULL };
	struct tu_proc p = tu_run(first, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *env[] = { f->env_libs, NULL };
	p = tu_run(first, env);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	size_t len0 = 0, len1 = 0;
	char *before = file_bytes(f->db->path, &len0);
	assert_non_null(before);

	/* instructions:u: a name of libpfm4's perf PMU, not a mission name */
	char *encoded[] = { PROF_BIN, f->db->dbarg, "run", "-q", "-e",
			    "task-clock,instructions:u", "--", "true", NULL };
	p = tu_run(encoded, env);
	assert_int_equal(p.status, 1);
	assert_non_null(strstr(p.err, "error: cannot load libpfm.so.4: "));
	assert_non_null(strstr(p.err, "apt-get install libpfm4"));
	tu_proc_release(&p);
	char *after = file_bytes(f->db->path, &len1);
	assert_non_null(after);
	assert_int_equal(len0, len1);
	assert_memory_equal(before, after, len0);
	free(before);
	free(after);
}

/* The verbs that read no event name start without any of the three. */
static void test_libs__reading_verbs_need_none(void **state)
{
	struct fx *f = *state;
	char *env[] = { f->env_libs, NULL };
	char *help[] = { PROF_BIN, "--help", NULL };
	struct tu_proc p = tu_run(help, env);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "usage"));
	tu_proc_release(&p);
	if (!tu_perf_allowed(f->db->dbarg))
		return;		/* no run stored to read back */
	char *runs[] = { PROF_BIN, f->db->dbarg, "runs", NULL };
	p = tu_run(runs, env);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->db->dbarg, "report", "last", NULL };
	p = tu_run(rep, env);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "task-clock"));
	tu_proc_release(&p);
}

/* prof record without libdw: a warning naming it, the run recorded, its
 * lines unknown. */
static void test_libs__record_without_libdw_warns_and_records(void **state)
{
	struct fx *f = *state;
	if (!tu_perf_allowed(f->db->dbarg))
		skip();
	char *env[] = { f->env_dw, NULL };
	char *rec[] = { PROF_BIN, f->db->dbarg, "record", "-e", "cpu-clock", "--",
			"true", NULL };
	struct tu_proc p = tu_run(rec, env);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.err, "warning: cannot load libdw.so.1: "));
	assert_non_null(strstr(p.err, "source lines are not looked up"));
	tu_proc_release(&p);
	char *rep[] = { PROF_BIN, f->db->dbarg, "report", "last", "--by", "total", NULL };
	p = tu_run(rep, NULL);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "prof record"));
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libs__run_without_libpfm_stores_nothing),
		cmocka_unit_test(test_libs__reading_verbs_need_none),
		cmocka_unit_test(test_libs__record_without_libdw_warns_and_records),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
