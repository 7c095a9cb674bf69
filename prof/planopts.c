/*
 * planopts: the --arm, --score, --frame-regex... callbacks that prof ab
 * and prof pressure share, so the two verbs refuse a value alike.
 */
#include "prof/planopts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "prof/abplan.h"

typedef int plan_parser(struct ab_plan *p, const char *arg, char **cause);

static int plan_option(struct verb_ctx *vc, plan_parser *fn, const char *arg,
		       void *plan)
{
	char *cause = NULL;
	int rc = fn(plan, arg, &cause);
	return rc ? verb_usage_cause(vc, cause) : 0;
}

#define PLAN_OPTION(name, fn)                                               \
	int name(struct verb_ctx *vc, const char *arg, void *plan)          \
	{                                                                   \
		return plan_option(vc, fn, arg, plan);                      \
	}

static int set_frame_regex(struct ab_plan *p, const char *arg, char **cause)
{
	return ab_plan_set_frames(p, "frame-regex", arg, cause);
}

static int set_frame_symbol(struct ab_plan *p, const char *arg, char **cause)
{
	return ab_plan_set_frames(p, "frame-symbol", arg, cause);
}

/* --prepare CMD and --cleanup CMD: every arm's setting, as --set
 * prepare=CMD gives it (an arm's own --set ARM.prepare wins). */
static int set_every(struct ab_plan *p, const char *key, const char *cmd,
		     char **cause)
{
	size_t n = strlen(key) + strlen(cmd) + 2;
	char *spec = malloc(n);
	if (!spec)
		xalloc_die();
	snprintf(spec, n, "%s=%s", key, cmd);
	int rc = ab_plan_set(p, spec, cause);
	free(spec);
	return rc;
}

static int set_prepare(struct ab_plan *p, const char *arg, char **cause)
{
	return set_every(p, "prepare", arg, cause);
}

static int set_cleanup(struct ab_plan *p, const char *arg, char **cause)
{
	return set_every(p, "cleanup", arg, cause);
}

PLAN_OPTION(plan_opt_arm, ab_plan_add_arm)
PLAN_OPTION(plan_opt_prepare, set_prepare)
PLAN_OPTION(plan_opt_cleanup, set_cleanup)
PLAN_OPTION(plan_opt_set, ab_plan_set)
PLAN_OPTION(plan_opt_plan, ab_plan_read)
PLAN_OPTION(plan_opt_order, ab_plan_set_order)
PLAN_OPTION(plan_opt_score, ab_plan_add_score)
PLAN_OPTION(plan_opt_per, ab_plan_add_per)
PLAN_OPTION(plan_opt_frame_regex, set_frame_regex)
PLAN_OPTION(plan_opt_frame_symbol, set_frame_symbol)
PLAN_OPTION(plan_opt_window, ab_plan_set_window)
