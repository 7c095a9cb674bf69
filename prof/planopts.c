/*
 * planopts: the --arm, --score, --frame-regex... callbacks that prof ab
 * and prof pressure share, so the two verbs refuse a value alike.
 */
#include "prof/planopts.h"

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

PLAN_OPTION(plan_opt_arm, ab_plan_add_arm)
PLAN_OPTION(plan_opt_set, ab_plan_set)
PLAN_OPTION(plan_opt_plan, ab_plan_read)
PLAN_OPTION(plan_opt_order, ab_plan_set_order)
PLAN_OPTION(plan_opt_score, ab_plan_add_score)
PLAN_OPTION(plan_opt_per, ab_plan_add_per)
PLAN_OPTION(plan_opt_frame_regex, set_frame_regex)
PLAN_OPTION(plan_opt_frame_symbol, set_frame_symbol)
