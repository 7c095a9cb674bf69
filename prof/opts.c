/*
 * opts: the one option parser of prof, and the options block of every
 * verb's help, both read from the verb's table (prof/verb.h). The parser
 * builds glibc getopt's arrays from the table, shared groups spliced in,
 * so that every verb takes the same GNU syntax (--name=value, unique
 * prefixes of long names, options after operands unless the verb takes
 * a command) and refuses a bad word with the same messages.
 */
#include <assert.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/verb.h"

/* More than any verb takes (run: 19 with the shared groups). */
#define OPTS_MAX 64
#define GROUPS_MAX 8

/* Where the help of an option starts, and the width it keeps within. */
#define HELP_COL 24
#define HELP_WIDTH 79

/* A verb's options with the shared groups spliced in, in table order. */
struct flat {
	const struct opt *o[OPTS_MAX];
	size_t n;
	const struct opt_group *groups[GROUPS_MAX];
	size_t ngroups;
};

static void flatten(const struct opt *t, struct flat *f)
{
	for (; t->kind != OPT_END; t++) {
		if (t->kind == OPT_INCLUDE) {
			assert(f->ngroups < GROUPS_MAX);
			f->groups[f->ngroups++] = t->group;
			flatten(t->group->opts, f);
		} else if (t->kind != OPT_GROUP) {
			assert(f->n < OPTS_MAX);
			f->o[f->n++] = t;
		}
	}
}

bool opts_include(const struct cmd *c, const struct opt_group *g)
{
	struct flat f = { .n = 0 };
	flatten(c->verb->opts, &f);
	for (size_t i = 0; i < f.ngroups; i++)
		if (f.groups[i] == g)
			return true;
	return false;
}

/* "--name", or "-c" for an option without a long name. */
static const char *opt_name(const struct opt *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

static int bad_value(const struct verb_ctx *vc, const struct opt *o, const char *arg)
{
	char name[64], buf[64];
	opt_name(o, name, sizeof(name));
	const char *echo = cli_echo(arg, buf, sizeof(buf));
	if (o->expect)
		return usage_error(vc->name, "bad %s '%s': expected %s", name, echo,
				   o->expect);
	if (o->kind == OPT_LONG || o->kind == OPT_INT)
		return usage_error(vc->name, "bad %s '%s': expected a whole number "
				   "from %ld to %ld", name, echo, o->min, o->max);
	return usage_error(vc->name, "bad %s '%s'", name, echo);
}

/*
 * The usage error for a word the parser did not take (optstring starting
 * ':', after any '+', and opterr 0): c ':' is an option given without its
 * value ("option '--format' needs a value"), anything else an unknown
 * option or a value given to a flag.
 */
static int option_error(const char *verb, int c, char *const argv[])
{
	char buf[64];
	const char *word = optind > 0 ? argv[optind - 1] : "";
	if (c == ':' && strncmp(word, "--", 2))
		return usage_error(verb, "option '-%c' needs a value", optopt);
	if (c == ':')
		return usage_error(verb, "option '%s' needs a value",
				   cli_echo(word, buf, sizeof(buf)));
	/* optopt names an unknown short option, or the long option in word
	 * that was given a value it does not take; 0 for an unknown long
	 * option. A short option may sit inside "-qz", which word need not
	 * be yet. */
	if (optopt && strncmp(word, "--", 2))
		return usage_error(verb, "unknown option '-%c'", optopt);
	if (optopt)
		return usage_error(verb, "option '%s' takes no value",
				   cli_echo(word, buf, sizeof(buf)));
	return usage_error(verb, "unknown option '%s'", cli_echo(word, buf, sizeof(buf)));
}

static int opt_set(struct verb_ctx *vc, const struct opt *o, const char *arg)
{
	char *base = o->base == OPT_IN_CTX ? (char *)vc : (char *)vc->args;
	void *field = base + o->off;
	switch (o->kind) {
	case OPT_BOOL:
		*(bool *)field = true;
		return 0;
	case OPT_STRING:
		*(const char **)field = arg;
		return 0;
	case OPT_LONG:
		return cli_parse_long(arg, o->min, o->max, field) ? 0
		       : bad_value(vc, o, arg);
	case OPT_INT: {
		long v;
		if (!cli_parse_long(arg, o->min, o->max, &v))
			return bad_value(vc, o, arg);
		*(int *)field = (int)v;
		return 0;
	}
	case OPT_DOUBLE:
		return cli_parse_double(arg, o->dmin, o->dmax, field) ? 0
		       : bad_value(vc, o, arg);
	case OPT_CALLBACK:
		return o->fn(vc, arg, field);
	default:
		assert(!"not an option");
		return EXIT_USAGE;
	}
}

int opts_parse(struct verb_ctx *vc, int argc, char **argv)
{
	struct flat f = { .n = 0 };
	flatten(vc->cmd->verb->opts, &f);
	bool command = false;
	for (size_t i = 0; i < f.ngroups; i++)
		command = command || f.groups[i]->command;

	/* getopt's arrays: a long option answers with its short name
	 * where it has one, else with 256 + its index. */
	struct option lo[OPTS_MAX + 2];
	char shorts[2 * OPTS_MAX + 4];
	size_t nl = 0, ns = 0;
	if (command)
		shorts[ns++] = '+';
	shorts[ns++] = ':';
	for (size_t i = 0; i < f.n; i++) {
		const struct opt *o = f.o[i];
		if (o->long_name)
			lo[nl++] = (struct option){ o->long_name,
						    o->argh ? required_argument : no_argument,
						    NULL, o->short_name ? o->short_name
									: 256 + (int)i };
		if (o->short_name) {
			shorts[ns++] = o->short_name;
			if (o->argh)
				shorts[ns++] = ':';
		}
	}
	lo[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[nl] = (struct option){ NULL, 0, NULL, 0 };
	shorts[ns++] = 'h';
	shorts[ns] = '\0';

	int c, rc;
	/* 0, not 1: glibc then reads the optstring's '+' afresh, which a
	 * second parse in one process (the tests) needs. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == 'h') {
			cmd_print_help(vc->cmd, stdout);
			return -1;
		}
		const struct opt *o = NULL;
		if (c >= 256 && (size_t)(c - 256) < f.n)
			o = f.o[c - 256];
		for (size_t i = 0; !o && c != ':' && c != '?' && i < f.n; i++)
			if (f.o[i]->short_name == c)
				o = f.o[i];
		if (!o)
			return option_error(vc->name, c, argv);
		if ((rc = opt_set(vc, o, optarg)))
			return rc;
	}
	vc->argc = argc - optind;
	vc->argv = argv + optind;
	int max = vc->cmd->verb->max_operands;
	if (max != VERB_ANY_OPERANDS && vc->argc > max) {
		char buf[64];
		return usage_error(vc->name, "unexpected argument '%s'",
				   cli_echo(vc->argv[max], buf, sizeof(buf)));
	}
	for (size_t i = 0; i < f.ngroups; i++)
		if (f.groups[i]->check && (rc = f.groups[i]->check(vc)))
			return rc;
	return 0;
}

/* ---- help ---------------------------------------------------------------- */

struct help_state {
	const struct cmd *cmd;
	FILE *fp;
	bool printed;		/* anything yet: headings after it get a blank line */
};

static void print_heading(struct help_state *h, const char *heading)
{
	if (h->printed)
		fputc('\n', h->fp);
	fprintf(h->fp, "%s\n", heading);
	h->printed = true;
}

/*
 * "  -e, --events LIST", then the help at HELP_COL, a line at a time. A
 * spec that reaches HELP_COL is followed by two spaces and the help when
 * that is one line and fits, else the help starts on the next line.
 */
static void print_option(struct help_state *h, const struct opt *o)
{
	char spec[128], buf[256];
	const char *help = o->help_fn ? o->help_fn(h->cmd, buf, sizeof(buf)) : o->help;
	int n;
	if (!h->printed)
		print_heading(h, "Options:");
	if (o->short_name && o->long_name)
		n = snprintf(spec, sizeof(spec), "  -%c, --%s", o->short_name, o->long_name);
	else if (o->long_name)
		n = snprintf(spec, sizeof(spec), "      --%s", o->long_name);
	else
		n = snprintf(spec, sizeof(spec), "  -%c", o->short_name);
	if (o->argh)
		snprintf(spec + n, sizeof(spec) - (size_t)n, " %s", o->argh);
	n = (int)strlen(spec);
	fputs(spec, h->fp);
	size_t first = strcspn(help, "\n");
	if (n < HELP_COL)
		fprintf(h->fp, "%*s", HELP_COL - n, "");
	else if (!help[first] && n + 2 + (int)first <= HELP_WIDTH)
		fputs("  ", h->fp);
	else
		fprintf(h->fp, "\n%*s", HELP_COL, "");
	for (const char *p = help;;) {
		size_t len = strcspn(p, "\n");
		fprintf(h->fp, "%.*s\n", (int)len, p);
		p += len;
		if (!*p || !p[1])
			break;
		p++;
		fprintf(h->fp, "%*s", HELP_COL, "");
	}
}

static void print_table(struct help_state *h, const struct opt *t)
{
	for (; t->kind != OPT_END; t++) {
		if (t->kind == OPT_GROUP)
			print_heading(h, t->help);
		else if (t->kind == OPT_INCLUDE)
			print_table(h, t->group->opts);
		else if (t->help || t->help_fn)
			print_option(h, t);
	}
}

void cmd_print_help(const struct cmd *c, FILE *fp)
{
	const struct verb *v = c->verb;
	fputs(v->help, fp);
	struct help_state h = { c, fp, false };
	print_table(&h, v->opts);
	if (v->help_tail) {
		if (h.printed)
			fputc('\n', fp);
		fputs(v->help_tail, fp);
	}
}
