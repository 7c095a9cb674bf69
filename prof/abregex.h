/*
 * abregex: whether a score's regex (prof ab --score, prof pressure
 * --score) is safe to hand to regcomp and to run over a workload's
 * output. glibc's matcher copies what a repetition repeats, so some short
 * patterns compile to gigabytes or match for minutes; those, patterns that
 * can match the empty string and back-references are refused with the
 * reason, before regcomp sees them. Checking only: nothing is compiled
 * or matched here. No state; thread-safe.
 */
#ifndef PROF_ABREGEX_H
#define PROF_ABREGEX_H

/*
 * Bounds on a score's regex, checked before regcomp (see abregex.c for the
 * measurements): its length, the count of one repetition, and the atoms
 * its repetitions expand to. Repetitions of repetitions, back-references
 * and patterns that can match the empty string are refused outright.
 */
#define AB_SCORE_PATTERN_MAX 256
#define AB_SCORE_REPEAT_MAX 255
#define AB_SCORE_SIZE_MAX 1000

/*
 * 0 when the extended regex re is within the bounds above; -EINVAL with
 * *why (malloc'd, the caller's) saying what it breaks, or -ENOMEM with
 * no *why. why may be NULL.
 */
int ab_regex_check(const char *re, char **why);

#endif
