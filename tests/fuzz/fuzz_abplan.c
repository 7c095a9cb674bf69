/*
 * fuzz_abplan: what `prof ab` reads before it runs anything: --arm,
 * --set, --score, --per and --order words, and a --plan file. The input
 * is text; lines that start with one of those options followed by a space
 * (or "--aa" alone) are given as that option, in order, and every other
 * line goes into a plan file read through ab_plan_read_file(). A plan that
 * passes ab_plan_check() then yields its round orders (each a permutation
 * of the arms), its settings, and each score's value found in the input
 * (a frame score's in a run without frames: none).
 */
#include <errno.h>

#include "fuzz.h"
#include "prof/abplan.h"
#include "prof/words.h"

static int option(struct ab_plan *p, const char *line, char **cause)
{
	static const struct {
		const char *flag;
		int (*fn)(struct ab_plan *, const char *, char **);
	} opts[] = {
		{ "--arm ", ab_plan_add_arm }, { "--set ", ab_plan_set },
		{ "--score ", ab_plan_add_score }, { "--per ", ab_plan_add_per },
		{ "--order ", ab_plan_set_order },
	};
	if (!strcmp(line, "--aa")) {
		p->aa = true;
		return 0;
	}
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strncmp(line, opts[i].flag, strlen(opts[i].flag)))
			return opts[i].fn(p, line + strlen(opts[i].flag), cause);
	return 1;	/* not an option: a plan line */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;	/* plans and command lines are short */
	char *text = fz_str(data, size), *rest = text, *line;
	char *plan = malloc(size + 1);
	size_t plen = 0;
	struct ab_plan p;
	ab_plan_init(&p);
	FZ_CHECK(plan);
	while ((line = fz_field(&rest))) {
		char *cause = NULL;
		int rc = option(&p, line, &cause);
		if (rc == 1) {
			size_t n = strlen(line);
			memcpy(plan + plen, line, n);
			plen += n;
			plan[plen++] = '\n';
		} else if (rc) {
			FZ_CHECK(rc < 0 && cause);
		}
		free(cause);
	}
	if (plen) {
		FILE *fp = fmemopen(plan, plen, "r");
		FZ_CHECK(fp);
		char *cause = NULL;
		int rc = ab_plan_read_file(&p, fp, "plan", &cause);
		fclose(fp);
		FZ_CHECK(rc == 0 ? !cause : rc < 0 && cause != NULL);
		free(cause);
	}

	char *cause = NULL;
	if (ab_plan_check(&p, &cause) == 0) {
		FZ_CHECK(!cause && p.narms >= 1);
		size_t *order = calloc(p.narms, sizeof(*order));
		bool *seen = calloc(p.narms, sizeof(*seen));
		FZ_CHECK(order && seen);
		for (int r = 0; r < 4; r++) {
			ab_plan_order(&p, r, order);
			memset(seen, 0, p.narms * sizeof(*seen));
			for (size_t i = 0; i < p.narms; i++) {
				FZ_CHECK(order[i] < p.narms && !seen[order[i]]);
				seen[order[i]] = true;
			}
		}
		for (size_t a = 0; a < p.narms; a++) {
			FZ_CHECK(p.arms[a].argv && p.arms[a].argc >= 1);
			FZ_CHECK(p.arms[a].argv[p.arms[a].argc] == NULL);
			ab_plan_get(&p, a, "pin");
			ab_plan_get(&p, a, "env.X");
		}
		free(order);
		free(seen);
	} else {
		FZ_CHECK(cause);
	}
	free(cause);
	struct db_run none;	/* a run without frames */
	memset(&none, 0, sizeof(none));
	for (size_t i = 0; i < p.nscores; i++) {
		double v;
		if (ab_score_measure(&p.scores[i], text, NULL, &none, &v) == 0)
			FZ_CHECK(v == v);	/* a number, not NaN */
	}

	/* The arm command splitter on its own, over the whole input. */
	char **argv = NULL;
	int argc = 0;
	cause = NULL;
	if (words_split(text, &argv, &argc, &cause) == 0) {
		FZ_CHECK(argc >= 1 && argv[argc] == NULL);
		words_free(argv);
	} else {
		FZ_CHECK(cause);
	}
	free(cause);
	ab_plan_release(&p);
	free(plan);
	free(text);
	return 0;
}
