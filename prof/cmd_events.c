/* prof events: list what this machine can encode, or show one attr. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/events.h"
#include "prof/cli.h"
#include "prof/commands.h"

const char cmd_events_help[] =
"usage: prof events [PATTERN] [--format table|json]\n"
"       prof events --attr NAME [--allow-generic]\n"
"\n"
"List the events this machine can encode (names containing PATTERN, case\n"
"insensitive): first prof's mission counters, then the perf-style generic\n"
"names, then the processor's own PMU events as libpfm4 knows them.\n"
"Encoding is not counting: whether the kernel lets an event count (a VM\n"
"often has no PMU) shows only when a run opens it, and 'prof run' says so.\n"
"\n"
"The mission counters llc-misses, itlb-misses, l1i-misses, branch-misses,\n"
"cycles and instructions keep their names on every machine; the event\n"
"behind each comes from a map, one table per processor family, taken from\n"
"perf's per-model event tables and the vendor's manuals; --attr shows it.\n"
"On a family without a table, cycles, instructions and branch-misses are\n"
"perf's generic events, and the three cache counters are refused unless\n"
"--allow-generic lets perf's generic cache events stand in. perf::cycles\n"
"names perf's generic event everywhere.\n"
"\n"
"--attr NAME prints the perf_event_attr prof would open for NAME (type,\n"
"config, config1, config2, exclude bits), in the key=value form of\n"
"'perf stat -vv', to check an encoding against perf.\n"
"\n"
"LIBPFM_FORCE_PMU=PMU (e.g. skl, amd64_fam19h_zen4) makes libpfm4 act as\n"
"if this were that processor, to see another family's encodings.\n"
"\n"
"Examples:\n"
"  prof events miss\n"
"  prof events --attr llc-misses\n"
"  LIBPFM_FORCE_PMU=skl prof events --attr l1i-misses\n";

struct list_state {
	enum out_format fmt;
	struct jw *w;
	size_t n;
	const char *last_pmu;
	bool show_umasks;	/* a pattern was given: list unit masks too */
};

static int print_one(const struct event_info *info, void *arg)
{
	struct list_state *s = arg;
	s->n++;
	if (s->fmt == OUT_JSON) {
		jw_obj_begin(s->w);
		jw_key(s->w, "name");
		jw_str(s->w, info->name);
		jw_key(s->w, "pmu");
		jw_str(s->w, info->pmu);
		jw_key(s->w, "hardware");
		jw_bool(s->w, info->hardware);
		jw_key(s->w, "description");
		jw_str(s->w, info->desc);
		jw_key(s->w, "umasks");
		jw_str(s->w, info->umasks);
		jw_key(s->w, "needs_umask");
		jw_bool(s->w, info->needs_umask);
		jw_obj_end(s->w);
		return 0;
	}
	if (!s->last_pmu || strcmp(s->last_pmu, info->pmu)) {
		printf("%s%s:\n", s->last_pmu ? "\n" : "",
		       !strcmp(info->pmu, "perf") ? "generic (perf-style names)"
		       : !strcmp(info->pmu, "prof") ? "mission counters (prof's "
						      "names)"
		       : info->pmu);
		s->last_pmu = info->pmu;
	}
	if (info->desc) {
		int w = (int)strlen(info->name) < 44 ? 44 : (int)strlen(info->name) + 1;
		printf("  %-*s %.70s\n", w, info->name, info->desc);
		if (info->umasks && (s->show_umasks || info->needs_umask))
			printf("  %-*s %s %s\n", w, "",
			       info->needs_umask ? "needs one of:" : "unit masks:",
			       info->umasks);
	} else {
		printf("  %s%s\n", info->name, info->hardware ? "" : "  (software)");
	}
	return 0;
}

static void print_attr(const struct event_desc *ev)
{
	const struct perf_event_attr *a = &ev->attr;
	printf("event          %s\n", ev->name);
	printf("encoded as     %s\n", ev->canonical);
	if (ev->mission)
		printf("mission        %s on %s: %s\n", ev->mission->perf_name,
		       ev->family->label, ev->mission->summary);
	printf("type           %u (%s)\n", a->type, event_type_name(a->type));
	printf("size           %u\n", a->size);
	printf("config         %#llx\n", (unsigned long long)a->config);
	printf("config1        %#llx\n", (unsigned long long)a->config1);
	printf("config2        %#llx\n", (unsigned long long)a->config2);
	printf("exclude_user   %u\n", a->exclude_user);
	printf("exclude_kernel %u\n", a->exclude_kernel);
	printf("exclude_hv     %u\n", a->exclude_hv);
	printf("exclude_guest  %u\n", a->exclude_guest);
	printf("exclude_host   %u\n", a->exclude_host);
	printf("precise_ip     %u\n", a->precise_ip);
	printf("hardware       %s\n", ev->hardware ? "yes (needs a PMU counter)"
						    : "no (software event)");
}

int cmd_events(int argc, char **argv, struct prof_ctx *ctx)
{
	(void)ctx;
	enum { O_FORMAT = 256, O_ATTR, O_GENERIC };
	static const struct option opts[] = {
		{ "format", required_argument, NULL, O_FORMAT },
		{ "attr", required_argument, NULL, O_ATTR },
		{ "allow-generic", no_argument, NULL, O_GENERIC },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum out_format fmt = OUT_TABLE;
	const char *attr = NULL;
	enum event_flags flags = 0;
	char buf[64];
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case O_FORMAT:
			if (cli_parse_format("events", optarg, &fmt,
					     (1u << OUT_TABLE) | (1u << OUT_JSON)))
				return EXIT_USAGE;
			break;
		case O_ATTR:
			attr = optarg;
			break;
		case O_GENERIC:
			flags |= EVENT_ALLOW_GENERIC;
			break;
		case 'h':
			cli_print_verb_help("events");
			return EXIT_OK;
		default:
			return cli_option_error("events", c, argv);
		}
	}
	const char *pattern = optind < argc ? argv[optind++] : NULL;
	if (optind < argc)
		return usage_error("events", "unexpected argument '%s'",
				   cli_echo(argv[optind], buf, sizeof(buf)));

	char *cause = NULL;
	int rc = events_init(&cause);
	if (rc) {
		print_cause("error: ", cause);
		free(cause);
		return rc == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	if (attr) {
		struct event_desc ev;
		rc = event_resolve(attr, flags, &ev, &cause);
		if (rc) {
			print_cause("error: ", cause);
			free(cause);
			return rc == -ENOENT || rc == -EINVAL || rc == -EOPNOTSUPP
			       ? EXIT_USAGE : EXIT_FAIL;
		}
		print_attr(&ev);
		event_desc_release(&ev);
		return EXIT_OK;
	}
	struct jw w;
	struct list_state s = { fmt, &w, 0, NULL, pattern != NULL };
	if (fmt == OUT_JSON) {
		jw_init(&w, stdout, 2);
		jw_obj_begin(&w);
		jw_key(&w, "events");
		jw_arr_begin(&w);
	}
	events_foreach(pattern, print_one, &s);
	if (fmt == OUT_JSON) {
		jw_arr_end(&w);
		jw_obj_end(&w);
		jw_end(&w);
	} else if (s.n == 0) {
		printf("no event matches '%s'\n", pattern ? cli_echo(pattern, buf, sizeof(buf)) : "");
	}
	return EXIT_OK;
}
