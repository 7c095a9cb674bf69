/*
 * End-to-end tests of the manual pages and the bash completion (issue
 * 29): the build writes prof.1 and a prof-VERB.1 for every verb `prof
 * help` lists, each holding its verb's help word for word, and man
 * renders them; the completion script completes verbs and a verb's own
 * options from prof's help.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

static void test_manpages__one_page_per_verb_with_its_help(void **state)
{
	(void)state;
	char *argv[] = { PROF_BIN, "help", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	const char *v = strstr(p.out, "Verbs:\n");
	assert_non_null(v);
	size_t pages = 0;
	for (const char *line = strchr(v, '\n') + 1; *line && *line != '\n';
	     line = strchr(line, '\n') + 1) {
		char verb[32];
		if (sscanf(line, " %31s", verb) != 1)
			break;
		char *path;
		assert_true(asprintf(&path, "%s/man/prof-%s.1", BUILD_DIR, verb) > 0);
		char *page = tu_slurp(path);
		if (!page)
			fail_msg("no manual page %s", path);
		char th[64];
		snprintf(th, sizeof(th), ".TH PROF-%s 1", verb);
		for (char *c = th + 8; *c && *c != ' '; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
		assert_non_null(strstr(page, th));
		/* the verb's help's first line of prose is in it */
		char *hargv[] = { PROF_BIN, "help", verb, NULL };
		struct tu_proc h = tu_run(hargv, NULL);
		const char *prose = strstr(h.out, "\n\n");
		assert_non_null(prose);
		char first[80];
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(prose + 2, "\n"), prose + 2);
		if (!strstr(page, first))
			fail_msg("%s lacks '%s'", path, first);
		tu_proc_release(&h);
		free(page);
		free(path);
		pages++;
		if (!strchr(line, '\n'))
			break;
	}
	assert_true(pages >= 15);
	tu_proc_release(&p);
}

static void test_manpages__man_renders_them(void **state)
{
	(void)state;
	if (access("/usr/bin/man", X_OK)) {
		fprintf(stderr, "skip: man is not installed\n");
		skip();
	}
	char *page;
	assert_true(asprintf(&page, "%s/man/prof-run.1", BUILD_DIR) > 0);
	char *argv[] = { "/usr/bin/man", "-l", page, NULL };
	char *env[] = { "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80", NULL };
	struct tu_proc p = tu_run(argv, env);
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "prof-run - count events per thread"));
	assert_non_null(strstr(p.out, "--simulate"));
	tu_proc_release(&p);
	free(page);
}

static void test_manpages__completion_of_verbs_and_options(void **state)
{
	(void)state;
	char *script;
	assert_true(asprintf(&script,
		"source '%s/share/prof.bash-completion'; "
		"COMP_WORDS=('%s' ru); COMP_CWORD=1; _prof; echo \"${COMPREPLY[*]}\"; "
		"COMP_WORDS=('%s' --db x.db screen --bu); COMP_CWORD=4; _prof; "
		"echo \"${COMPREPLY[*]}\"", SOURCE_DIR, PROF_BIN, PROF_BIN) > 0);
	char *argv[] = { "/bin/bash", "--norc", "-c", script, NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, "run runs\n--budget --busy\n");
	tu_proc_release(&p);
	free(script);
}

/* The same in fish (where installed): complete -C as the shell asks. */
static void test_manpages__fish_completes_verbs_and_options(void **state)
{
	(void)state;
	if (access("/usr/bin/fish", X_OK) != 0) {
		fprintf(stderr, "skip: fish is not installed\n");
		skip();
	}
	char *script;
	assert_true(asprintf(&script,
		"source '%s/share/prof.fish'; complete -C'%s ru'; "
		"complete -C'%s --db x.db screen --bu'", SOURCE_DIR, PROF_BIN,
		PROF_BIN) > 0);
	char *argv[] = { "/usr/bin/fish", "--no-config", "-c", script, NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, "run\nruns\n--budget\n--busy\n");
	tu_proc_release(&p);
	free(script);
}

/* zsh (where installed): the script parses, and the lists it offers are
 * prof's verbs and a verb's options. */
static void test_manpages__zsh_lists_verbs_and_options(void **state)
{
	(void)state;
	if (access("/usr/bin/zsh", X_OK) != 0) {
		fprintf(stderr, "skip: zsh is not installed\n");
		skip();
	}
	char *script;
	assert_true(asprintf(&script,
		"source '%s/share/prof.zsh-completion' && "
		"_prof_verbs '%s' | grep '^ru'; _prof_options '%s' screen | grep -- --bu",
		SOURCE_DIR, PROF_BIN, PROF_BIN) > 0);
	char *argv[] = { "/usr/bin/zsh", "-f", "-c", script, NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, "run\nruns\n--budget\n--busy\n");
	assert_string_equal(p.err, "");
	tu_proc_release(&p);
	free(script);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manpages__one_page_per_verb_with_its_help),
		cmocka_unit_test(test_manpages__man_renders_them),
		cmocka_unit_test(test_manpages__completion_of_verbs_and_options),
		cmocka_unit_test(test_manpages__fish_completes_verbs_and_options),
		cmocka_unit_test(test_manpages__zsh_lists_verbs_and_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
