/*
 * End-to-end tests of what a workload may name itself: arguments past the
 * database's limits, a JIT symbol of 2 MiB or with a line break in it,
 * programs whose names are cut inside a character by the kernel or hold
 * escape sequences and HTML. Whatever prof stores it reads back (with a
 * note of what it cut), and every output stays what its format promises:
 * JSON that json.loads reads, one folded stack a line, CSV and Markdown
 * with no escape sequence or markup from the workload.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/stat.h>

#include "common/utf8.h"
#include "test_util.h"

struct fx {
	char *dir, *dbarg;
};

static struct fx F;

static int setup(void **state)
{
	(void)state;
	F.dir = tu_tmpdir();
	if (asprintf(&F.dbarg, "--db=%s/h.db", F.dir) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(F.dir);
	free(F.dir);
	free(F.dbarg);
	return 0;
}

static struct tu_proc prof_env(char *const *args, char *const *env)
{
	size_t n = 0;
	while (args[n])
		n++;
	char **argv = calloc(n + 3, sizeof(*argv));
	argv[0] = PROF_BIN;
	argv[1] = F.dbarg;
	memcpy(argv + 2, args, n * sizeof(*argv));
	struct tu_proc p = tu_run(argv, env);
	free(argv);
	return p;
}

static struct tu_proc prof(char *const *args)
{
	return prof_env(args, NULL);
}

static void need_perf_events(void)
{
	char *a[] = { "run", "-q", "-e", "task-clock", "--", "/bin/true", NULL };
	struct tu_proc p = prof(a);
	bool ok = p.status == 0;
	if (!ok)
		fprintf(stderr, "skip: perf_event_open is not allowed here: %s\n", p.err);
	tu_proc_release(&p);
	if (!ok)
		skip();
}

/* Whether python3's json.loads reads text: true, false, or skip() when
 * there is no python3. */
static bool json_loads(const char *text)
{
	if (system("command -v python3 >/dev/null 2>&1") != 0) {
		fprintf(stderr, "skip: no python3 to read the JSON back\n");
		skip();
	}
	char path[] = "/tmp/prof-test-json-XXXXXX";
	int fd = mkstemp(path);
	size_t len = strlen(text);
	assert_true(fd >= 0 && write(fd, text, len) == (ssize_t)len);
	close(fd);
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; "
		 "json.load(open(sys.argv[1], encoding=\"utf-8\"))' %s", path);
	int rc = system(cmd);
	unlink(path);
	return rc == 0;
}

/* No HTML tag of the workload's survives into Markdown: each "<b>" is
 * backslashed, or inside a code span (an odd count of backticks before
 * it on its line), where Markdown shows it as text. */
static void no_markup(const char *md)
{
	for (const char *tag = strstr(md, "<b>"); tag; tag = strstr(tag + 1, "<b>")) {
		const char *line = tag;
		while (line > md && line[-1] != '\n')
			line--;
		size_t ticks = 0;
		for (const char *c = line; c < tag; c++)
			ticks += *c == '`';
		assert_true(tag[-1] == '\\' || ticks % 2 == 1);
	}
}

/* Every format of one verb's output for the newest run: each valid. */
static void outputs_stay_valid(const char *verb)
{
	static const char *const fmts[] = { "table", "json", "csv", "markdown" };
	for (size_t f = 0; f < 4; f++) {
		char *a[] = { (char *)verb, "--format", (char *)fmts[f], NULL, NULL };
		if (strcmp(verb, "runs"))
			a[3] = "last";	/* the newest run's report */
		struct tu_proc p = prof(a);
		if (p.status)
			fprintf(stderr, "%s --format %s: %s\n", verb, fmts[f], p.err);
		assert_int_equal(p.status, 0);
		assert_true(utf8_valid(p.out, strlen(p.out)));
		assert_null(strchr(p.out, '\x1b'));
		assert_null(strchr(p.out, '\x07'));
		if (f == 1)
			assert_true(json_loads(p.out));
		if (f == 3)
			no_markup(p.out);
		tu_proc_release(&p);
	}
}

/*
 * Twelve arguments of 100 KB each: 1.2 MB, within Linux's limit and past
 * the 1 MiB the loader reads. The run is stored, says what was cut, and
 * reads back; before, `prof runs` then failed for the whole database.
 */
static void test_hostile__long_arguments_read_back(void **state)
{
	(void)state;
	need_perf_events();
	char *args[20] = { "run", "-q", "-e", "task-clock", "--", "/bin/true" };
	size_t n = 6;
	char *big[12];
	for (size_t i = 0; i < 12; i++) {
		big[i] = malloc(100001);
		memset(big[i], 'a' + (int)i, 100000);
		big[i][100000] = '\0';
		args[n++] = big[i];
	}
	args[n] = NULL;
	struct tu_proc p = prof(args);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	for (size_t i = 0; i < 12; i++)
		free(big[i]);

	char *runs[] = { "runs", NULL };
	p = prof(runs);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *rep[] = { "report", "last", NULL };
	p = prof(rep);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "prof cut "));
	tu_proc_release(&p);
	outputs_stay_valid("report");
}

/*
 * Programs named so the kernel's 15-byte name cuts a euro in two, and
 * with an escape sequence and HTML in the name: every format of the
 * per-thread report stays valid UTF-8, escapes nothing raw, and the JSON
 * reads back in python.
 */
static void test_hostile__program_names_stay_valid(void **state)
{
	(void)state;
	need_perf_events();
	char *cut, *evil, *script;
	/* "w" and five euros: 16 bytes, cut at 15 inside the fifth */
	assert_true(asprintf(&cut, "%s/w\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
			     "\xe2\x82\xac\xe2\x82\xac", F.dir) > 0);
	assert_true(asprintf(&evil, "%s/\x1b]0;t\x07<b>x\xff", F.dir) > 0);
	assert_int_equal(symlink("/bin/true", cut), 0);
	assert_int_equal(symlink("/bin/true", evil), 0);
	assert_true(asprintf(&script, "\"$1\"; \"$2\"") > 0);
	char *a[] = { "run", "-q", "-e", "task-clock", "--", "/bin/sh", "-c", script,
		      "sh", cut, evil, NULL };
	struct tu_proc p = prof(a);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	outputs_stay_valid("report");
	outputs_stay_valid("runs");
	free(cut);
	free(evil);
	free(script);
}

/* jitgen (tests/helpers) announcing its code under name in a jitdump,
 * pad bytes of 'x' added: the newest run's folded stacks. */
static char *jit_folded(const char *name, const char *pad)
{
	char jitgen[600], ename[4200], epad[64];
	snprintf(jitgen, sizeof(jitgen), "%s/tests/helpers/jitgen", BUILD_DIR);
	snprintf(ename, sizeof(ename), "JITGEN_NAME=%s", name);
	snprintf(epad, sizeof(epad), "JITGEN_PAD=%s", pad);
	char *env[] = { ename, epad, NULL };
	char *rec[] = { "record", "-q", "-e", "cpu-clock", "-F", "2000", "--", jitgen,
			F.dir, "dump", "0.3", NULL };
	struct tu_proc p = prof_env(rec, env);
	if (p.status == 77) {
		fprintf(stderr, "skip: jitgen writes x86-64 code only\n");
		tu_proc_release(&p);
		skip();
	}
	if (p.status)
		fprintf(stderr, "record: %s\n", p.err);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *fo[] = { "report", "last", "--format", "folded", NULL };
	p = prof(fo);
	assert_int_equal(p.status, 0);
	char *out = p.out;
	p.out = NULL;
	tu_proc_release(&p);
	return out;
}

/* Sum of the counts of the folded lines, and whether each line is a stack
 * and one count. */
static unsigned long long folded_total(const char *fo, size_t *bad)
{
	unsigned long long total = 0;
	*bad = 0;
	for (const char *l = fo; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		const char *sp = memrchr(l, ' ', len);
		char *end;
		unsigned long long v = sp ? strtoull(sp + 1, &end, 10) : 0;
		if (!sp || end != l + len || sp == l)
			(*bad)++;
		total += v;
		l += len + (e != NULL);
	}
	return total;
}

/*
 * A JIT symbol "evil\nevil 1999998" once added a line of its own to the
 * folded stacks (prof's flame graph gave "evil" 99.97% of a 529-sample
 * run); one of 2 MiB was recorded and then made the run unreadable.
 */
static void test_hostile__jit_symbols_cannot_break_stacks(void **state)
{
	(void)state;
	need_perf_events();
	char *fo = jit_folded("evil\nevil 1999998", "0");
	size_t bad;
	unsigned long long total = folded_total(fo, &bad);
	assert_int_equal(bad, 0);
	assert_true(total < 100000);
	assert_null(strstr(fo, "\nevil 1999998"));
	free(fo);

	fo = jit_folded("jit_huge_", "2097152");
	assert_true(utf8_valid(fo, strlen(fo)));
	free(fo);
	char *rep[] = { "report", "last", NULL };
	struct tu_proc p = prof(rep);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "prof cut "));
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile__long_arguments_read_back),
		cmocka_unit_test(test_hostile__program_names_stay_valid),
		cmocka_unit_test(test_hostile__jit_symbols_cannot_break_stacks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
