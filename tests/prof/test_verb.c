/*
 * Tests for prof/verb and prof/opts: the option parser driven by a
 * verb's table (values, bad values, unknown options, operands, the shared
 * groups and their checks), the options block of the help, and that
 * every row of the command table agrees with its verb's table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <getopt.h>
#include <string.h>

#include "prof/run/run.h"
#include "prof/verb.h"
#include "test_util.h"

struct toy_args {
	bool flag;
	const char *name;
	long count;
	double ratio;
	int clicks;
};

static int toy_click(struct verb_ctx *vc, const char *arg, void *field)
{
	if (arg && !strcmp(arg, "bad"))
		return usage_error(vc->name, "bad click");
	*(int *)field += arg ? atoi(arg) : 1;
	return 0;
}

static void toy_init(void *args)
{
	((struct toy_args *)args)->count = 7;
}

static int toy_fn(struct verb_ctx *vc)
{
	(void)vc;
	return EXIT_OK;
}

static const struct opt toy_opts[] = {
	OPT_BOOL('f', "flag", struct toy_args, flag, "a flag"),
	OPT_STRING('n', "name", struct toy_args, name, "NAME", "a name,\nwith a second line"),
	OPT_LONG(0, "count", struct toy_args, count, "N", 1, 10, NULL, "a count"),
	OPT_DOUBLE(0, "ratio", struct toy_args, ratio, "R", 0, 1, "a ratio from 0 to 1",
		   "a ratio"),
	OPT_CALLBACK(0, "click", struct toy_args, clicks, NULL, toy_click, "click once"),
	OPT_CALLBACK(0, "clicks-with-a-long-name", struct toy_args, clicks, "HOW_MANY",
		     toy_click, "click that many times"),
	OPT_CALLBACK(0, "click-for-a-good-long-while", struct toy_args, clicks, "HOW_MANY",
		     toy_click, "click that many times, with a help too long to\nfollow"),
	OPT_CALLBACK(0, "quietly-click-a-while", struct toy_args, clicks, "N", toy_click,
		     NULL),
	OPT_GROUP("Shared:"),
	OPT_INCLUDE(opt_output),
	OPT_INCLUDE(opt_database),
	OPT_END(),
};

static const struct verb toy_verb = {
	.fn = toy_fn, .opts = toy_opts, .help = "usage: prof toy\n\n",
	.help_tail = "Example:\n  prof toy\n", .args_size = sizeof(struct toy_args),
	.init = toy_init, .max_operands = 1,
};

static const struct cmd toy_cmd = {
	"toy", &toy_verb, "a toy", (1u << OUT_TABLE) | (1u << OUT_JSON), CMD_DB_READ,
	CMD_OUT_STDOUT,
};

static const struct opt launcher_opts[] = {
	OPT_INCLUDE(opt_launch),
	OPT_END(),
};

static const struct verb launcher_verb = {
	.fn = toy_fn, .opts = launcher_opts, .help = "usage: prof launcher\n\n",
	.max_operands = VERB_ANY_OPERANDS,
};

static const struct cmd launcher_cmd = {
	"launcher", &launcher_verb, "a launcher", 0, CMD_DB_NONE, CMD_OUT_STDERR,
};

/* A parse as verb_main sets it up, with what it printed on stderr. */
struct parsed {
	struct verb_ctx vc;
	struct toy_args args;
	int rc;
	char *err;
	char *words;		/* argv points into it */
	char *argv[32];
};

static void parsed_release(struct parsed *p)
{
	free(p->err);
	free(p->words);
}

static void parse(const struct cmd *c, struct parsed *p, const char *line)
{
	char *copy = strdup(line), *save = NULL;
	int argc = 0;
	memset(p, 0, sizeof(*p));
	char **argv = p->argv;
	for (char *w = strtok_r(copy, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	p->vc = (struct verb_ctx){ .cmd = c, .name = c->name, .fmt = OUT_TABLE,
				   .launch = { .affinity = AFFINITY_UNSET } };
	p->vc.args = &p->args;
	if (c->verb->init)
		c->verb->init(&p->args);
	unsetenv("PROF_DB");

	fflush(stderr);
	FILE *tmp = tmpfile();
	int saved = dup(2);
	dup2(fileno(tmp), 2);
	p->rc = opts_parse(&p->vc, argc, argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	p->err = tu_slurp_fd(fileno(tmp));
	fclose(tmp);
	p->words = copy;
}

static void test_verb__values_land_where_the_table_says(void **state)
{
	(void)state;
	struct parsed p;
	parse(&toy_cmd, &p, "toy -f --name=x --count 3 --ratio 0.5 --click --click "
	      "--format json -o out.txt --db my.db last");
	assert_int_equal(p.rc, 0);
	assert_true(p.args.flag);
	assert_string_equal(p.args.name, "x");
	assert_int_equal(p.args.count, 3);
	assert_true(p.args.ratio == 0.5);
	assert_int_equal(p.args.clicks, 2);
	assert_int_equal(p.vc.fmt, OUT_JSON);
	assert_string_equal(p.vc.out_path, "out.txt");
	assert_string_equal(p.vc.db_path, "my.db");
	assert_int_equal(p.vc.argc, 1);
	assert_string_equal(p.vc.argv[0], "last");
	parsed_release(&p);

	/* Defaults from init stay; a unique prefix of a long name is taken;
	 * options may follow the operand. */
	parse(&toy_cmd, &p, "toy 12 --na y");
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.args.count, 7);
	assert_string_equal(p.args.name, "y");
	assert_string_equal(p.vc.argv[0], "12");
	assert_string_equal(p.vc.db_path, "prof.db");
	parsed_release(&p);
}

static void test_verb__bad_words_are_usage_errors(void **state)
{
	(void)state;
	static const struct {
		const char *line, *err;
	} cases[] = {
		{ "toy --count 11", "error: bad --count '11': expected a whole number "
				    "from 1 to 10\nhint: run 'prof toy --help' for its options\n" },
		{ "toy --ratio 2", "error: bad --ratio '2': expected a ratio from 0 to 1\n" },
		{ "toy --format csv", "error: unknown format 'csv'\n"
				      "hint: 'prof toy' writes table, json\n" },
		{ "toy --click=bad", "error: option '--click=bad' takes no value\n" },
		{ "toy --clicks-with-a-long-name bad", "error: bad click\n" },
		{ "toy --colour", "error: unknown option '--colour'\n" },
		{ "toy -z", "error: unknown option '-z'\n" },
		{ "toy -n", "error: option '-n' needs a value\n" },
		{ "toy --name", "error: option '--name' needs a value\n" },
		{ "toy a b", "error: unexpected argument 'b'\n" },
		{ "toy --db=", "error: empty database path" },
		{ "toy --db x.db -o x.db", "error: -o 'x.db' is the database" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct parsed p;
		parse(&toy_cmd, &p, cases[i].line);
		if (p.rc != EXIT_USAGE || !strstr(p.err, cases[i].err))
			fail_msg("%s: rc %d, stderr:\n%s", cases[i].line, p.rc, p.err);
		parsed_release(&p);
	}
}

static void test_verb__help_is_printed_from_the_table(void **state)
{
	(void)state;
	struct tu_buf b;
	cmd_print_help(&toy_cmd, tu_buf_open(&b));
	assert_string_equal(tu_buf_close(&b),
		"usage: prof toy\n"
		"\n"
		"Options:\n"
		"  -f, --flag            a flag\n"
		"  -n, --name NAME       a name,\n"
		"                        with a second line\n"
		"      --count N         a count\n"
		"      --ratio R         a ratio\n"
		"      --click           click once\n"
		"      --clicks-with-a-long-name HOW_MANY  click that many times\n"
		"      --click-for-a-good-long-while HOW_MANY\n"
		"                        click that many times, with a help too long to\n"
		"                        follow\n"
		"\n"
		"Shared:\n"
		"      --format FMT      table (default), json\n"
		"  -o, --output FILE     write the report to FILE instead of stdout\n"
		"      --db PATH         database (default: $PROF_DB, else ./prof.db)\n"
		"\n"
		"Example:\n"
		"  prof toy\n");
	free(b.data);
}

static void test_verb__launch_group_is_checked_once(void **state)
{
	(void)state;
	struct parsed p;
	/* Options stop at the command: its own options are its own. */
	parse(&launcher_cmd, &p, "launcher -q --pin llc:0 --mmap-pages 64 ls -l --pid 3");
	assert_int_equal(p.rc, 0);
	assert_true(p.vc.launch.quiet);
	assert_string_equal(p.vc.launch.pin, "llc:0");
	assert_int_equal(p.vc.launch.mmap_pages, 64);
	assert_int_equal(p.vc.argc, 4);
	assert_string_equal(p.vc.argv[0], "ls");
	parsed_release(&p);

	parse(&launcher_cmd, &p, "launcher --cache-affinity --no-cache-affinity true");
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.vc.launch.affinity, AFFINITY_BOTH);
	parsed_release(&p);

	static const struct {
		const char *line, *err;
	} cases[] = {
		{ "launcher -p 12 true", "give either -p PID or a command, not both" },
		{ "launcher", "no command to launcher: 'prof launcher -- COMMAND' or "
			      "'prof launcher -p PID'" },
		{ "launcher --duration 3 true", "--duration goes with -p PID" },
		{ "launcher -p 12 --pin none", "--pin and --cache-affinity apply to a launched command" },
		{ "launcher -p 12 --cache-affinity", "--pin and --cache-affinity apply to a launched command" },
		{ "launcher -p 0", "bad --pid '0': expected a process id" },
		{ "launcher --duration 0 -p 1", "bad --duration '0': expected seconds" },
		{ "launcher --mmap-pages 3 true", "bad --mmap-pages '3': expected a power of 2" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse(&launcher_cmd, &p, cases[i].line);
		if (p.rc != EXIT_USAGE || !strstr(p.err, cases[i].err))
			fail_msg("%s: rc %d, stderr:\n%s", cases[i].line, p.rc, p.err);
		parsed_release(&p);
	}
}

/*
 * Every row agrees with its verb's table: --format and -o where the row
 * names formats, --db where it uses the database; and every line of every
 * help fits in 79 columns.
 */
static void test_verb__rows_match_their_tables(void **state)
{
	(void)state;
	for (const struct cmd *c = commands; c->name; c++) {
		if ((c->formats != 0) != opts_include(c, &opt_output))
			fail_msg("%s: formats in its row and --format in its table disagree",
				 c->name);
		if ((c->db != CMD_DB_NONE) != opts_include(c, &opt_database))
			fail_msg("%s: the database in its row and --db in its table disagree",
				 c->name);
		struct tu_buf b;
		cmd_print_help(c, tu_buf_open(&b));
		const char *text = tu_buf_close(&b);
		int line = 1;
		for (const char *p = text; *p; line++) {
			size_t len = strcspn(p, "\n");
			if (len > 79)
				fail_msg("%s: help line %d has %zu columns", c->name, line, len);
			if (len && p[len - 1] == ' ')
				fail_msg("%s: help line %d ends in a space", c->name, line);
			p += len + (p[len] != '\0');
		}
		free(b.data);
	}
}

/* verb_main on the real rows: what the frame opens, and what it leaves. */
static int run_verb(const char *line)
{
	char *argv[32];
	char *copy = strdup(line), *save = NULL;
	int argc = 0;
	for (char *w = strtok_r(copy, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	const struct cmd *c = cmd_find(argv[0], NULL);
	assert_non_null(c);
	struct prof_ctx global = { NULL, "prof" };
	int rc = verb_main(c, argc, argv, &global);
	free(copy);
	return rc;
}

static void test_verb__frame_opens_output_and_database_as_rows_say(void **state)
{
	(void)state;
	char *dir = tu_tmpdir(), *line, *out, *db;
	if (asprintf(&out, "%s/attr.txt", dir) < 0 || asprintf(&db, "%s/none.db", dir) < 0)
		abort();

	/* events writes to -o FILE (it printed to stdout only before). */
	if (asprintf(&line, "events --attr task-clock -o %s", out) < 0)
		abort();
	assert_int_equal(run_verb(line), EXIT_OK);
	char *text = tu_slurp(out);
	assert_non_null(text);
	assert_non_null(strstr(text, "event           task-clock\n"));
	free(text);
	free(line);

	/* A verb that reads the database never creates it, nor the report
	 * file when there is nothing to report. */
	unlink(out);
	if (asprintf(&line, "runs --db %s -o %s", db, out) < 0)
		abort();
	assert_int_equal(run_verb(line), EXIT_FAIL);
	assert_int_equal(access(db, F_OK), -1);
	assert_int_equal(access(out, F_OK), -1);
	free(line);

	tu_rmrf(dir);
	free(dir);
	free(out);
	free(db);
}

static void test_verb__errno_maps_to_one_exit_code(void **state)
{
	(void)state;
	assert_int_equal(exit_code_for(-ENOENT), EXIT_USAGE);
	assert_int_equal(exit_code_for(ENOENT), EXIT_USAGE);
	assert_int_equal(exit_code_for(-EINVAL), EXIT_USAGE);
	assert_int_equal(exit_code_for(-EOPNOTSUPP), EXIT_USAGE);
	assert_int_equal(exit_code_for(-ENODATA), EXIT_USAGE);
	assert_int_equal(exit_code_for(-EIO), EXIT_FAIL);
	assert_int_equal(exit_code_for(-ENOMEM), EXIT_FAIL);
	assert_int_equal(exit_code_for(-EBUSY), EXIT_FAIL);
	assert_int_equal(exit_code_for_launch(-ENOENT), 127);
	assert_int_equal(exit_code_for_launch(-EACCES), 127);
	assert_int_equal(exit_code_for_launch(-ENOEXEC), 127);
	assert_int_equal(exit_code_for_launch(-EINVAL), EXIT_FAIL);
	assert_int_equal(exit_code_for_launch(-EPERM), EXIT_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verb__values_land_where_the_table_says),
		cmocka_unit_test(test_verb__bad_words_are_usage_errors),
		cmocka_unit_test(test_verb__help_is_printed_from_the_table),
		cmocka_unit_test(test_verb__launch_group_is_checked_once),
		cmocka_unit_test(test_verb__rows_match_their_tables),
		cmocka_unit_test(test_verb__frame_opens_output_and_database_as_rows_say),
		cmocka_unit_test(test_verb__errno_maps_to_one_exit_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
