/*
 * planopts: the option callbacks of the verbs that fill a struct ab_plan
 * (prof ab, prof pressure). Each hands its value to the plan's own parser
 * (prof/abplan.h), which says what is wrong in a cause; a refusal is a
 * usage error. The field an OPT_CALLBACK names is the struct ab_plan.
 * Their option tables stay the verbs' own: the help texts differ.
 */
#ifndef PROF_PLANOPTS_H
#define PROF_PLANOPTS_H

#include "prof/verb.h"

opt_parse_fn plan_opt_arm;		/* --arm NAME=COMMAND */
opt_parse_fn plan_opt_set;		/* --set [ARM.]KEY=VAL */
opt_parse_fn plan_opt_prepare;		/* --prepare CMD: --set prepare=CMD */
opt_parse_fn plan_opt_cleanup;		/* --cleanup CMD: --set cleanup=CMD */
opt_parse_fn plan_opt_plan;		/* --plan FILE */
opt_parse_fn plan_opt_order;		/* --order ORDER */
opt_parse_fn plan_opt_score;		/* --score SPEC */
opt_parse_fn plan_opt_per;		/* --per COUNT|UNIT=RATE */
opt_parse_fn plan_opt_frame_regex;	/* --frame-regex RE */
opt_parse_fn plan_opt_frame_symbol;	/* --frame-symbol MODULE:SYMBOL */
opt_parse_fn plan_opt_window;		/* --window START:END */

#endif
