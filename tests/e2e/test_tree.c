/*
 * Process trees on a real one: prof run counts `forktree fork 3 2` (a
 * root, three children, three grandchildren each: 13 processes of one
 * thread), then `prof report --by process` lists each process once and
 * `--tree` puts each under its parent, in every format. Software events
 * only, so it runs without a PMU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "test_util.h"

static int setup(void **state)
{
	*state = tu_db_new("tree.db");
	return 0;
}

static int teardown(void **state)
{
	tu_db_free(*state);
	return 0;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* prof --db=... ARGS (space-separated); exits 0; its stdout. */
static char *prof_out(const struct tu_db *f, const char *args)
{
	char *argv[24] = { PROF_BIN, f->dbarg };
	size_t n = 2;
	char *words = strdup(args), *save = NULL;
	for (char *w = strtok_r(words, " ", &save); w && n < 23;
	     w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
	struct tu_proc p = tu_run(argv, NULL);
	free(words);
	if (p.status != 0)
		fail_msg("prof %s exited %d: %s", args, p.status, p.err);
	free(p.err);
	return p.out;
}

/* Count the tree once; a run that calls itself incomplete (a task that
 * sent no exit record on a loaded machine) is tried again. */
static void record_tree(const struct tu_db *f)
{
	char *run;
	if (asprintf(&run, "run -q -e task-clock --allow-incomplete --format json -o /dev/stdout -- "
		     "%s/forktree fork 3 2", HELPERS_DIR) < 0)
		abort();
	for (int i = 0; i < 3; i++) {
		char *out = prof_out(f, run);
		bool complete = strstr(out, "\"complete\": true") != NULL;
		free(out);
		if (complete) {
			free(run);
			return;
		}
	}
	free(run);
	fail_msg("three runs of forktree fork 3 2 were all incomplete");
}

static void test_tree__fork_tree(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	record_tree(f);

	/* One row per process: 13, each of one thread. */
	char *t = prof_out(f, "report last --by process");
	assert_non_null(strstr(t, "13 threads in 13 processes"));
	assert_int_equal(count(t, " 1 thread"), 0);	/* the column, not text */
	free(t);
	char *csv = prof_out(f, "report last --by process --format csv");
	assert_int_equal(count(csv, "\n"), 1 + 13);
	assert_non_null(strstr(csv, "run_id,threads,name,event,value,status,"
			       "running_pct,pid,ppid\n"));
	free(csv);

	/* The tree: the root, 3 children, 9 grandchildren, each child
	 * leading 3 grandchildren. */
	t = prof_out(f, "report last --tree");
	assert_int_equal(count(t, "(1 thread)"), 13);
	assert_int_equal(count(t, "\n ├─ ") + count(t, "\n └─ "), 3);
	assert_int_equal(count(t, "\n │  ├─ ") + count(t, "\n │  └─ ") +
			 count(t, "\n    ├─ ") + count(t, "\n    └─ "), 9);
	assert_int_equal(count(t, "└─ "), 1 + 3);
	free(t);
	csv = prof_out(f, "report last --tree --format csv");
	assert_int_equal(count(csv, ",0\n"), 1);
	assert_int_equal(count(csv, ",1\n"), 3);
	assert_int_equal(count(csv, ",2\n"), 9);
	free(csv);
	char *json = prof_out(f, "report last --tree --format json");
	/* every process has a children list; the leaves' are empty */
	assert_int_equal(count(json, "\"children\": ["), 13);
	assert_int_equal(count(json, "\"children\": []"), 9);
	free(json);
	char *md = prof_out(f, "report last --tree --format markdown");
	assert_int_equal(count(md, "| ├─ ") + count(md, "| └─ "), 3);
	free(md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree__fork_tree),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
