/*
 * abregex: the checks a score's regex passes before regcomp (abregex.h).
 * The pattern is read once, left to right, keeping for each open group
 * how large its expansion is, whether it can match the empty string and
 * whether it repeats a repetition.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cause.h"
#include "prof/abregex.h"

/*
 * What a score's pattern may be, checked before regcomp sees it. glibc
 * builds the automaton of a repetition by copying what it repeats, so a
 * repetition of a repetition multiplies: `b` followed by 20 `+` took
 * 0.7 GB and 1.9 s to compile here, each further `+` doubling both (24:
 * 12.5 GB); `b++?+?+?...` compiles small and then matches for minutes.
 * A pattern that can match the empty string finds a match at every byte
 * of the output. None of these is a useful score, so they are refused
 * with the reason; what is left compiles to a size bounded by
 * AB_SCORE_SIZE_MAX.
 */
struct rx_piece {
	size_t size;		/* copies of atoms after expansion */
	bool nullable;		/* can match the empty string */
	bool repeats;		/* holds a repetition of more than one */
};

struct rx_group {
	struct rx_piece alts;	/* the alternatives closed so far */
	struct rx_piece cur;	/* the alternative being read */
	bool any_alt;		/* a `|` was seen */
};

struct rx_check {
	struct rx_group stack[AB_SCORE_PATTERN_MAX + 1];
	int depth;
	struct rx_piece atom;	/* the last atom, not yet added to cur */
	bool have_atom;
	bool atom_repeated;	/* a repetition was applied to it */
	bool atom_is_anchor;
	char *why;
};

static void rx_group_init(struct rx_group *g)
{
	memset(g, 0, sizeof(*g));
	g->cur.nullable = true;
}

/* Add the pending atom to the alternative being read. */
static void rx_flush(struct rx_check *c)
{
	if (!c->have_atom)
		return;
	struct rx_piece *cur = &c->stack[c->depth].cur;
	cur->size += c->atom.size;
	cur->nullable = cur->nullable && c->atom.nullable;
	cur->repeats = cur->repeats || c->atom.repeats;
	c->have_atom = false;
}

/* Close the alternative being read into the group's alternatives. */
static void rx_close_alt(struct rx_group *g)
{
	if (!g->any_alt) {
		g->alts = g->cur;
	} else {
		g->alts.size += g->cur.size;
		g->alts.nullable = g->alts.nullable || g->cur.nullable;
		g->alts.repeats = g->alts.repeats || g->cur.repeats;
	}
	g->any_alt = true;
	memset(&g->cur, 0, sizeof(g->cur));
	g->cur.nullable = true;
}

static void rx_atom(struct rx_check *c, size_t size, bool nullable, bool anchor)
{
	rx_flush(c);
	c->atom = (struct rx_piece){ size, nullable, false };
	c->have_atom = true;
	c->atom_repeated = false;
	c->atom_is_anchor = anchor;
}

/* A repetition of the pending atom, lo to hi times (hi SIZE_MAX: no end). */
static int rx_repeat(struct rx_check *c, const char *op, int oplen, size_t lo,
		     size_t hi)
{
	if (oplen > 16)
		oplen = 16;
	if (!c->have_atom || c->atom_is_anchor)
		return cause_set(&c->why, EINVAL, "'%.*s' repeats nothing", oplen, op);
	if (c->atom_repeated)
		return cause_set(&c->why, EINVAL,
				 "'%.*s' repeats a repetition: stacked repetitions "
				 "make the matcher's size grow exponentially (and POSIX "
				 "regexes have no lazy or possessive forms)", oplen, op);
	if (hi > 1 && c->atom.repeats)
		return cause_set(&c->why, EINVAL,
				 "'%.*s' repeats a group that holds a repetition: "
				 "nested repetitions make the matcher's size grow "
				 "exponentially", oplen, op);
	if (lo > AB_SCORE_REPEAT_MAX || (hi != SIZE_MAX && hi > AB_SCORE_REPEAT_MAX))
		return cause_set(&c->why, EINVAL,
				 "'%.*s' repeats more than %d times", oplen, op,
				 AB_SCORE_REPEAT_MAX);
	/* glibc copies the atom max(lo, hi) times, lo + 1 when unbounded. */
	size_t copies = hi == SIZE_MAX ? lo + 1 : hi;
	c->atom.size *= copies ? copies : 1;
	c->atom.nullable = c->atom.nullable || lo == 0;
	c->atom.repeats = c->atom.repeats || hi > 1;
	c->atom_repeated = true;
	return 0;
}

/* The end of a bracket expression that starts at s ('['), or NULL. */
static const char *rx_bracket_end(const char *s)
{
	const char *p = s + 1;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p; p++) {
		if (*p == ']')
			return p;
		if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			char kind = p[1];
			const char *q = p + 2;
			while (*q && !(q[0] == kind && q[1] == ']'))
				q++;
			if (!*q)
				return NULL;
			p = q + 1;
		}
	}
	return NULL;
}

/* {N}, {N,}, {,M}, {N,M} at s; its length, or 0 when it is none of these. */
static size_t rx_interval(const char *s, size_t *lo, size_t *hi)
{
	const char *p = s + 1;
	size_t a = 0, b;
	bool have_a = false, comma = false, have_b = false;
	for (; isdigit((unsigned char)*p); p++, have_a = true)
		a = a > 100000 ? a : a * 10 + (size_t)(*p - '0');
	b = a;
	if (*p == ',') {
		comma = true;
		b = 0;
		for (p++; isdigit((unsigned char)*p); p++, have_b = true)
			b = b > 100000 ? b : b * 10 + (size_t)(*p - '0');
	}
	if (*p != '}' || (!have_a && !have_b) || (have_b && b < a))
		return 0;
	*lo = a;
	*hi = comma && !have_b ? SIZE_MAX : b;
	return (size_t)(p + 1 - s);
}

int ab_regex_check(const char *re, char **why)
{
	struct rx_check *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	rx_group_init(&c->stack[0]);
	int rc = 0;
	size_t len = strlen(re);
	if (len > AB_SCORE_PATTERN_MAX) {
		rc = cause_set(&c->why, EINVAL, "it is %zu bytes long, more than %d", len,
			       AB_SCORE_PATTERN_MAX);
		goto out;
	}
	for (const char *s = re; *s && !rc; ) {
		size_t lo, hi, n;
		switch (*s) {
		case '\\':
			if (!s[1])
				goto out;	/* regcomp says "trailing backslash" */
			if (s[1] >= '1' && s[1] <= '9')
				rc = cause_set(&c->why, EINVAL,
					       "'\\%c' is a back-reference, which can "
					       "make matching take exponential time", s[1]);
			else if (strchr("bB<>`'", s[1]))
				rx_atom(c, 1, true, true);
			else
				rx_atom(c, 1, false, false);
			s += 2;
			break;
		case '[': {
			const char *e = rx_bracket_end(s);
			if (!e)
				goto out;	/* regcomp says "unmatched [" */
			rx_atom(c, 1, false, false);
			s = e + 1;
			break;
		}
		case '(':
			rx_flush(c);
			c->depth++;
			rx_group_init(&c->stack[c->depth]);
			s++;
			break;
		case ')': {
			if (c->depth == 0) {
				rx_atom(c, 1, false, false);	/* a literal ')' */
				s++;
				break;
			}
			rx_flush(c);
			rx_close_alt(&c->stack[c->depth]);
			struct rx_piece g = c->stack[c->depth].alts;
			c->depth--;
			rx_atom(c, g.size ? g.size : 1, g.nullable, false);
			c->atom.repeats = g.repeats;
			s++;
			break;
		}
		case '|':
			rx_flush(c);
			rx_close_alt(&c->stack[c->depth]);
			s++;
			break;
		case '^':
		case '$':
			rx_atom(c, 1, true, true);
			s++;
			break;
		case '*':
			rc = rx_repeat(c, s, 1, 0, SIZE_MAX);
			s++;
			break;
		case '+':
			rc = rx_repeat(c, s, 1, 1, SIZE_MAX);
			s++;
			break;
		case '?':
			rc = rx_repeat(c, s, 1, 0, 1);
			s++;
			break;
		case '{':
			n = rx_interval(s, &lo, &hi);
			if (!n) {
				rc = cause_set(&c->why, EINVAL,
					       "'%.12s' is not a repetition {N}, {N,} or "
					       "{N,M}", s);
				break;
			}
			rc = rx_repeat(c, s, (int)n, lo, hi);
			s += n;
			break;
		default:
			rx_atom(c, 1, false, false);
			s++;
			break;
		}
		if (!rc && c->have_atom) {
			size_t total = c->atom.size;
			for (int d = 0; d <= c->depth; d++)
				total += c->stack[d].alts.size + c->stack[d].cur.size;
			if (total > AB_SCORE_SIZE_MAX)
				rc = cause_set(&c->why, EINVAL,
					       "its repetitions expand it to more than "
					       "%d pieces", AB_SCORE_SIZE_MAX);
		}
	}
	if (rc || c->depth > 0)
		goto out;	/* regcomp says "unmatched (" */
	rx_flush(c);
	rx_close_alt(&c->stack[0]);
	if (c->stack[0].alts.nullable)
		rc = cause_set(&c->why, EINVAL, "it can match the empty string, so it matches "
			       "everywhere and reads no number");
out:
	if (rc && why)
		*why = c->why;
	else
		free(c->why);
	free(c);
	return rc;
}
