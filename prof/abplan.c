/* abplan: parse `prof ab` options and plan files into an ab_plan. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/order.h"
#include "common/errtext.h"
#include "db/experiments.h"
#include "prof/abplan.h"
#include "prof/words.h"
#include "reports/abstat.h"
#include "reports/frames.h"

void ab_plan_init(struct ab_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->rounds = 6;
	p->warmup = 1;
	p->order = ORDER_ABBA;
	p->gate_pct = NAN;
	p->events = "cache";
	p->seed = 0x5eed;
	p->budget_ms = FRAME_BUDGET_MS;
}

static void settings_free(struct ab_setting *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
}

void ab_plan_release(struct ab_plan *p)
{
	for (size_t i = 0; i < p->narms; i++) {
		free(p->arms[i].name);
		free(p->arms[i].command);
		words_free(p->arms[i].argv);
		settings_free(p->arms[i].settings, p->arms[i].nsettings);
	}
	free(p->arms);
	settings_free(p->all, p->nall);
	for (size_t i = 0; i < p->nscores; i++) {
		free(p->scores[i].name);
		free(p->scores[i].pattern);
		if (p->scores[i].compiled)
			regfree(&p->scores[i].re);
	}
	free(p->scores);
	for (size_t i = 0; i < p->nper; i++)
		free(p->per[i]);
	free(p->per);
	free(p->events_owned);
	free(p->frame_regex);
	free(p->frame_symbol);
	free(p->window);
	memset(p, 0, sizeof(*p));
}

static bool good_name(const char *s, size_t n)
{
	if (n == 0 || n > 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_-+", s[i]))
			return false;
	return true;
}

static struct ab_arm *find_arm(struct ab_plan *p, const char *name, size_t n)
{
	for (size_t i = 0; i < p->narms; i++)
		if (strlen(p->arms[i].name) == n && !strncmp(p->arms[i].name, name, n))
			return &p->arms[i];
	return NULL;
}

static struct ab_arm *new_arm(struct ab_plan *p, const char *name, size_t n,
			      char **cause)
{
	char shown[64];
	snprintf(shown, sizeof(shown), "%.*s", (int)(n > 40 ? 40 : n), name);
	if (!good_name(name, n))
		return cause_set(cause, EINVAL,
				 "bad arm name '%s': use letters, digits, '-', '_' "
				 "or '+' (at most 40)", shown), NULL;
	if (find_arm(p, name, n))
		return cause_set(cause, EINVAL, "arm '%s' is given twice", shown), NULL;
	/* What is stored must read back: the loader takes no more. */
	if (p->narms == DB_EXP_ARMS_MAX)
		return cause_set(cause, EINVAL, "arm '%s' is one too many: an "
				 "experiment has at most %d arms", shown,
				 DB_EXP_ARMS_MAX), NULL;
	struct ab_arm *v = realloc(p->arms, (p->narms + 1) * sizeof(*v));
	if (!v)
		abort();
	p->arms = v;
	struct ab_arm *a = &v[p->narms++];
	memset(a, 0, sizeof(*a));
	a->name = strndup(name, n);
	return a;
}

static int arm_command(struct ab_arm *a, const char *cmd, char **cause)
{
	char **argv;
	int argc;
	int rc = words_split(cmd, &argv, &argc, cause);
	if (rc)
		return rc;
	free(a->command);
	words_free(a->argv);
	a->command = strdup(cmd);
	a->argv = argv;
	a->argc = argc;
	return 0;
}

int ab_plan_add_arm(struct ab_plan *p, const char *spec, char **cause)
{
	const char *eq = strchr(spec, '=');
	if (!eq)
		return cause_set(cause, EINVAL,
				 "bad --arm '%.40s': expected NAME=COMMAND", spec);
	const char *cmd = eq + 1;
	while (isspace((unsigned char)*cmd))
		cmd++;
	char name[48];
	snprintf(name, sizeof(name), "%.*s", (int)(eq - spec > 40 ? 40 : eq - spec), spec);
	if (!*cmd)
		return cause_set(cause, EINVAL,
				 "arm '%s' has no command: --arm %s=COMMAND", name, name);
	/* Check the command splits before the arm exists, so a refused
	 * --arm leaves nothing behind. */
	char **argv;
	int argc;
	int rc = words_split(cmd, &argv, &argc, cause);
	if (rc)
		return rc;
	words_free(argv);
	struct ab_arm *a = new_arm(p, spec, (size_t)(eq - spec), cause);
	if (!a)
		return -EINVAL;
	return arm_command(a, cmd, cause);
}

static bool known_key(const char *key)
{
	if (!strncmp(key, "env.", 4))
		return key[4] != '\0' && !strchr(key + 4, '=');
	return !strcmp(key, "pin") || !strcmp(key, "cwd") || !strcmp(key, "sleep") ||
	       !strcmp(key, "prepare") || !strcmp(key, "cleanup");
}

static void push_setting(struct ab_setting **v, size_t *n, const char *key,
			 size_t klen, const char *value)
{
	for (size_t i = 0; i < *n; i++) {
		if (strlen((*v)[i].key) == klen && !strncmp((*v)[i].key, key, klen)) {
			free((*v)[i].value);
			(*v)[i].value = strdup(value);
			return;
		}
	}
	struct ab_setting *q = realloc(*v, (*n + 1) * sizeof(*q));
	if (!q)
		abort();
	*v = q;
	q[*n].key = strndup(key, klen);
	q[*n].value = strdup(value);
	(*n)++;
}

/* KEY=VALUE for one arm (a) or all (a NULL). */
static int set_one(struct ab_plan *p, struct ab_arm *a, const char *key,
		   size_t klen, const char *value, char **cause)
{
	char k[128];
	snprintf(k, sizeof(k), "%.*s", (int)(klen < 120 ? klen : 120), key);
	if (!known_key(k))
		return cause_set(cause, EINVAL,
				 "unknown setting '%s': expected pin, cwd, sleep, "
				 "prepare, cleanup or env.VAR", k);
	if (a)
		push_setting(&a->settings, &a->nsettings, key, klen, value);
	else
		push_setting(&p->all, &p->nall, key, klen, value);
	return 0;
}

int ab_plan_set(struct ab_plan *p, const char *spec, char **cause)
{
	const char *eq = strchr(spec, '=');
	if (!eq)
		return cause_set(cause, EINVAL,
				 "bad --set '%.40s': expected [ARM.]KEY=VALUE", spec);
	const char *key = spec;
	size_t klen = (size_t)(eq - spec);
	struct ab_arm *a = NULL;
	/* ARM.KEY unless the part before the dot is itself "env". */
	const char *dot = memchr(spec, '.', klen);
	if (dot && !(dot - spec == 3 && !strncmp(spec, "env", 3))) {
		a = find_arm(p, spec, (size_t)(dot - spec));
		if (!a) {
			char arm[64];
			snprintf(arm, sizeof(arm), "%.*s", (int)(dot - spec > 40 ? 40 : dot - spec),
				 spec);
			return cause_set(cause, EINVAL,
					 "--set names arm '%s', which is not one of "
					 "the arms (give --arm %s=COMMAND first)", arm, arm);
		}
		key = dot + 1;
		klen = (size_t)(eq - key);
	}
	return set_one(p, a, key, klen, eq + 1, cause);
}

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

static int rx_check_pattern(const char *re, char **why)
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

/* The frame scores: what --score says, the metric's name, its kind. */
static const struct {
	const char *word, *name;
	enum ab_score_kind kind;
} frame_scores[] = {
	{ "p99", "frame_p99_ms", AB_SCORE_FRAME_P99 },
	{ "p50", "frame_p50_ms", AB_SCORE_FRAME_P50 },
	{ "long", "long_frames", AB_SCORE_FRAME_LONG },
};
#define NFRAME_SCORES (sizeof(frame_scores) / sizeof(frame_scores[0]))

static struct ab_score *new_score(struct ab_plan *p)
{
	struct ab_score *v = realloc(p->scores, (p->nscores + 1) * sizeof(*v));
	if (!v)
		abort();
	p->scores = v;
	memset(&v[p->nscores], 0, sizeof(*v));
	return &v[p->nscores];
}

static bool score_taken(const struct ab_plan *p, const char *name)
{
	for (size_t i = 0; i < p->nscores; i++)
		if (!strcmp(p->scores[i].name, name))
			return true;
	return false;
}

/* frame:WORD. The frames themselves come from the run (ab_score_measure). */
static int add_frame_score(struct ab_plan *p, const char *spec, char **cause)
{
	const char *word = spec + strlen("frame:");
	size_t k = 0;
	while (k < NFRAME_SCORES && strcmp(frame_scores[k].word, word))
		k++;
	if (k == NFRAME_SCORES)
		return cause_set(cause, EINVAL, "unknown frame score '%.40s': expected "
				 "frame:p99, frame:p50 or frame:long", spec);
	if (score_taken(p, frame_scores[k].name))
		return cause_set(cause, EINVAL, "score '%s' is given twice", spec);
	struct ab_score *s = new_score(p);
	s->name = strdup(frame_scores[k].name);
	s->pattern = strdup(spec);
	s->kind = frame_scores[k].kind;
	p->nscores++;
	return 0;
}

int ab_plan_add_score(struct ab_plan *p, const char *spec, char **cause)
{
	const char *eq = strchr(spec, '=');
	if (!eq && !strncmp(spec, "frame:", 6))
		return add_frame_score(p, spec, cause);
	if (!eq || eq == spec)
		return cause_set(cause, EINVAL,
				 "bad --score '%.40s': expected NAME=REGEX[:AGG][:higher] "
				 "or frame:p99, frame:p50, frame:long", spec);
	if (!good_name(spec, (size_t)(eq - spec)))
		return cause_set(cause, EINVAL, "bad score name in '%.40s'", spec);
	const char *re = eq + 1;
	size_t len;
	struct ab_score_flags f;
	ab_score_flags_of(re, &len, &f);
	char name[64];
	snprintf(name, sizeof(name), "%.*s%s", (int)(eq - spec), spec,
		 ab_score_agg_word(f.agg));
	if (f.naggs > 1)
		return cause_set(cause, EINVAL, "score '%.*s' has %u aggregators: give "
				 "one of :p99, :p50, :mean, :max, :matches", (int)(eq - spec),
				 spec, f.naggs);
	if (score_taken(p, name))
		return cause_set(cause, EINVAL, "score '%s' is given twice", name);
	struct ab_score *s = new_score(p);
	s->name = strdup(name);
	s->agg = f.agg;
	s->higher_is_better = f.higher_is_better;
	s->rate = f.rate;
	s->count = f.count;
	s->pattern = strndup(re, len);
	char *why = NULL;
	int rc = rx_check_pattern(s->pattern, &why);
	if (rc) {
		char shown[48];
		snprintf(shown, sizeof(shown), "%.40s%s", s->pattern,
			 strlen(s->pattern) > 40 ? "..." : "");
		cause_set(cause, 0, "the regex '%s' of score '%s' is refused: "
			  "%s\nhint: match the number and the words "
			  "around it, e.g. '([0-9.]+) fps'", shown, s->name,
			  why ? why : "out of memory");
		free(why);
		free(s->name);
		free(s->pattern);
		return -EINVAL;
	}
	rc = regcomp(&s->re, s->pattern, REG_EXTENDED | REG_NEWLINE);
	if (rc) {
		char err[128];
		regerror(rc, &s->re, err, sizeof(err));
		int r = cause_set(cause, EINVAL, "the regex of score '%s' does not compile: %s",
				  s->name, err);
		free(s->name);
		free(s->pattern);
		return r;
	}
	s->compiled = true;
	p->nscores++;
	return 0;
}

char *ab_score_spec(const struct ab_score *s)
{
	char *spec;
	if (s->kind != AB_SCORE_REGEX) {
		if (asprintf(&spec, "%s=%s", s->name, s->pattern) < 0)
			abort();
		return spec;
	}
	if (asprintf(&spec, "%s=%s%s%s%s", s->name, s->pattern, ab_score_agg_word(s->agg),
		     s->higher_is_better ? ":higher" : "",
		     s->rate ? ":rate" : s->count ? ":count" : "") < 0)
		abort();
	return spec;
}

int ab_plan_add_per(struct ab_plan *p, const char *name, char **cause)
{
	const char *eq = strchr(name, '=');
	if (eq && (!good_name(name, (size_t)(eq - name)) || !eq[1]))
		return cause_set(cause, EINVAL, "bad --per '%.40s': expected COUNT or "
				 "UNIT=RATE (e.g. frame=fps)", name);
	char **v = realloc(p->per, (p->nper + 1) * sizeof(*v));
	if (!v)
		abort();
	p->per = v;
	v[p->nper++] = strdup(name);
	return 0;
}

int ab_plan_set_order(struct ab_plan *p, const char *word, char **cause)
{
	if (!strcmp(word, "abba"))
		p->order = ORDER_ABBA;
	else if (!strcmp(word, "alternate"))
		p->order = ORDER_ALTERNATE;
	else if (!strcmp(word, "random"))
		p->order = ORDER_RANDOM;
	else
		return cause_set(cause, EINVAL,
				 "unknown order '%.40s': expected abba, alternate "
				 "or random", word);
	return 0;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static bool parse_int(const char *v, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (errno || !*v || *end || x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

static bool parse_num(const char *v, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno || !*v || *end || !isfinite(x) || x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

static bool parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes"))
		*out = true;
	else if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no"))
		*out = false;
	else
		return false;
	return true;
}

int ab_plan_set_frames(struct ab_plan *p, const char *key, const char *value,
		       char **cause)
{
	if (!strcmp(key, "frames")) {
		if (!parse_bool(value, &p->frames))
			return cause_set(cause, EINVAL, "bad frames '%.40s': expected "
					 "yes or no", value);
	} else if (!strcmp(key, "frame-regex")) {
		regex_t re;
		if (!*value || regcomp(&re, value, REG_EXTENDED | REG_NOSUB))
			return cause_set(cause, EINVAL, "bad --frame-regex '%.40s': not "
					 "an extended regular expression", value);
		regfree(&re);
		free(p->frame_regex);
		p->frame_regex = strdup(value);
	} else if (!strcmp(key, "frame-symbol")) {
		const char *colon = strrchr(value, ':');
		if (!colon || colon == value || !colon[1])
			return cause_set(cause, EINVAL, "bad --frame-symbol '%.40s': "
					 "expected MODULE:SYMBOL", value);
		free(p->frame_symbol);
		p->frame_symbol = strdup(value);
	} else if (!strcmp(key, "budget")) {
		if (!parse_num(value, 0.001, 1e6, &p->budget_ms))
			return cause_set(cause, EINVAL, "bad --budget '%.40s': expected "
					 "milliseconds, e.g. 16.7", value);
	} else {
		return cause_set(cause, EINVAL, "unknown frame setting '%.40s'", key);
	}
	return 0;
}

struct frame_args ab_plan_frames(const struct ab_plan *p)
{
	return (struct frame_args){
		.marker = p->frames, .regex = p->frame_regex,
		.symbol = p->frame_symbol, .budget_ms = p->budget_ms,
	};
}

int ab_plan_set_window(struct ab_plan *p, const char *spec, char **cause)
{
	struct window_spec ws;
	int rc = window_parse(spec, &ws, cause);
	if (rc)
		return rc;
	char *w = strdup(spec);
	if (!w)
		return cause_set(cause, ENOMEM, "--window: out of memory");
	free(p->window);
	p->window = w;
	p->win = ws;
	return 0;
}

bool ab_plan_has_frames(const struct ab_plan *p)
{
	struct frame_args f = ab_plan_frames(p);
	return frame_args_any(&f);
}

int ab_plan_check_scores(const struct ab_plan *p, char **cause)
{
	for (size_t i = 0; i < p->nscores; i++)
		if (p->scores[i].kind != AB_SCORE_REGEX && !ab_plan_has_frames(p))
			return cause_set(cause, EINVAL, "--score %s needs --frame-regex, "
					 "--frame-symbol or --frames: they say where "
					 "each run's frames begin", p->scores[i].pattern);
	return 0;
}

/* A plan key before any [arm] section. */
static int plan_global(struct ab_plan *p, const char *k, const char *v,
		       char **cause)
{
	long n;
	double d;
	if (!strcmp(k, "rounds")) {
		if (!parse_int(v, 1, DB_EXP_ROUNDS_MAX, &n))
			return cause_set(cause, EINVAL, "bad rounds '%s'", v);
		p->rounds = (int)n;
	} else if (!strcmp(k, "warmup")) {
		if (!parse_int(v, 0, DB_EXP_WARMUP_MAX, &n))
			return cause_set(cause, EINVAL, "bad warmup '%s'", v);
		p->warmup = (int)n;
	} else if (!strcmp(k, "order")) {
		return ab_plan_set_order(p, v, cause);
	} else if (!strcmp(k, "seed")) {
		if (!parse_int(v, 0, 0x7fffffffffffffffL, &n))
			return cause_set(cause, EINVAL, "bad seed '%s'", v);
		p->seed = (uint64_t)n;
		p->seed_given = true;
	} else if (!strcmp(k, "settle")) {
		if (!parse_num(v, 0, 3600, &d))
			return cause_set(cause, EINVAL, "bad settle '%s'", v);
		p->settle_s = d;
	} else if (!strcmp(k, "gate")) {
		if (!parse_num(v, 0, 1000, &d))
			return cause_set(cause, EINVAL, "bad gate '%s'", v);
		p->gate_pct = d;
	} else if (!strcmp(k, "events")) {
		free(p->events_owned);
		p->events_owned = strdup(v);
		p->events = p->events_owned;
	} else if (!strcmp(k, "score")) {
		return ab_plan_add_score(p, v, cause);
	} else if (!strcmp(k, "per")) {
		return ab_plan_add_per(p, v, cause);
	} else if (!strcmp(k, "frames") || !strcmp(k, "frame-regex") ||
		   !strcmp(k, "frame-symbol") || !strcmp(k, "budget")) {
		return ab_plan_set_frames(p, k, v, cause);
	} else if (!strcmp(k, "window")) {
		return ab_plan_set_window(p, v, cause);
	} else if (!strcmp(k, "timeout")) {
		if (!parse_num(v, 0.001, 31536000, &d))
			return cause_set(cause, EINVAL, "bad timeout '%s'", v);
		p->timeout_s = d;
	} else if (!strcmp(k, "working-set")) {
		p->working_set = !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes");
	} else if (!strcmp(k, "no-shell")) {
		p->no_shell = !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes");
	} else if (!strcmp(k, "keep-going")) {
		p->keep_going = !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes");
	} else if (!strcmp(k, "allow-generic")) {
		p->allow_generic = !strcmp(v, "1") || !strcmp(v, "true") ||
				   !strcmp(v, "yes");
	} else {
		return set_one(p, NULL, k, strlen(k), v, cause);
	}
	return 0;
}

/* Open a plan for reading: a regular file of at most AB_PLAN_MAX_BYTES.
 * O_NONBLOCK keeps the open of a FIFO that nobody writes from waiting. */
static FILE *plan_open(const char *path, int *err, const char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	*why = NULL;
	if (fd < 0 || fstat(fd, &st) != 0) {
		*err = errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = EINVAL;
		*why = "not a regular file";
		goto out_close;
	}
	if (st.st_size > AB_PLAN_MAX_BYTES) {
		*err = EFBIG;
		*why = "larger than " AB_PLAN_MAX_TEXT ", which no plan needs";
		goto out_close;
	}
	FILE *fp = fdopen(fd, "r");
	if (fp)
		return fp;
	*err = errno;
out_close:
	if (fd >= 0)
		close(fd);
	return NULL;
}

int ab_plan_read(struct ab_plan *p, const char *path, char **cause)
{
	int e;
	const char *why;
	FILE *fp = plan_open(path, &e, &why);
	if (!fp) {
		cause_set(cause, 0, "cannot read plan '%.60s': %s", path,
			  why ? why : ERR_TEXT(e));
		return -e;
	}
	int rc = ab_plan_read_file(p, fp, path, cause);
	fclose(fp);
	return rc;
}

int ab_plan_read_file(struct ab_plan *p, FILE *fp, const char *path, char **cause)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, rc = 0;
	struct ab_arm *arm = NULL;
	off_t total = 0;
	while (!rc && (len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		total += len;
		char *inner = NULL;
		size_t used = (size_t)len;
		if (used && line[used - 1] == '\n')
			used--;
		/* A line is taken whole or refused, so no part of it can be
		 * read as a line of its own. */
		const char *bad = used > AB_PLAN_LINE_MAX ? "the line is longer than "
				  AB_PLAN_LINE_MAX_TEXT " bytes"
				  : strlen(line) < used ? "the line holds a NUL byte"
				  /* a file that grew after it was opened */
				  : total > AB_PLAN_MAX_BYTES ? "the plan is larger than "
				  AB_PLAN_MAX_TEXT : NULL;
		if (bad) {
			rc = cause_set(&inner, EINVAL, "%s", bad);
			goto next;
		}
		char *s = trim(line);
		if (!*s || *s == '#')
			goto next;
		if (*s == '[') {
			size_t n = strlen(s);
			if (s[n - 1] != ']' || strncmp(s, "[arm ", 5)) {
				rc = cause_set(&inner, EINVAL,
					       "bad section '%s': expected [arm NAME]", s);
			} else {
				s[n - 1] = '\0';
				char *name = trim(s + 5);
				arm = new_arm(p, name, strlen(name), &inner);
				if (!arm)
					rc = -EINVAL;
			}
		} else {
			char *eq = strchr(s, '=');
			if (!eq) {
				rc = cause_set(&inner, EINVAL,
					       "expected 'key = value', got '%.40s'", s);
			} else {
				*eq = '\0';
				char *k = trim(s), *v = trim(eq + 1);
				if (arm && !strcmp(k, "command"))
					rc = arm_command(arm, v, &inner);
				else if (arm)
					rc = set_one(p, arm, k, strlen(k), v, &inner);
				else
					rc = plan_global(p, k, v, &inner);
			}
		}
next:
		if (rc)
			cause_set(cause, 0, "%.60s:%d: %s", path, lineno,
				  inner ? inner : "bad line");
		free(inner);
	}
	free(line);
	return rc;
}

int ab_plan_check(struct ab_plan *p, char **cause)
{
	size_t need = p->aa ? 1 : 2;
	if (p->narms < need) {
		cause_set(cause, 0, "%s: give %s", p->narms ? "only one arm"
			  : "no arms", p->aa ? "--aa --arm NAME=COMMAND"
			  : "two or more --arm NAME=COMMAND (the first is "
			  "the baseline), or --aa with one");
		return -EINVAL;
	}
	if (p->aa && p->narms != 1)
		return cause_set(cause, EINVAL,
				 "--aa runs one command against itself: give one "
				 "--arm, not %s", "several");
	for (size_t i = 0; i < p->narms; i++)
		if (!p->arms[i].argv)
			return cause_set(cause, EINVAL,
					 "arm '%s' has no command", p->arms[i].name);
	for (size_t i = 0; i < p->nper; i++) {
		const char *eq = strchr(p->per[i], '=');
		const char *name = eq ? eq + 1 : p->per[i];
		const struct ab_score *sc = NULL;
		for (size_t k = 0; k < p->nscores; k++)
			if (!strcmp(p->scores[k].name, name))
				sc = &p->scores[k];
		if (!sc)
			return cause_set(cause, EINVAL,
					 "--per %s names no score: add --score %s=REGEX",
					 p->per[i], name);
		struct ab_score_flags f = { sc->higher_is_better, sc->rate, sc->count,
					    sc->agg, sc->agg != AB_AGG_LAST };
		if (!eq && ab_score_is_rate(sc->name, &f))
			return cause_set(cause, EINVAL,
					 "--per %s: '%s' is a rate (per second), and CPU "
					 "time divided by a rate is no cost per unit\n"
					 "hint: --per UNIT=%s (e.g. frame=%s) counts units as "
					 "%s x the run's wall time; or score a count "
					 "(--score frames=REGEX) and give --per frames; a "
					 "score that only looks like a rate can say :count",
					 p->per[i], name, name, name, name);
	}
	if (window_by_frames(&p->win) && !ab_plan_has_frames(p))
		return cause_set(cause, EINVAL, "--window %s counts frames: give "
				 "--frames, --frame-regex or --frame-symbol to say "
				 "where each begins", p->window);
	return ab_plan_check_scores(p, cause);
}

char **ab_plan_exec_argv(const struct ab_plan *p, size_t a, int *argc)
{
	struct ab_arm *arm = &p->arms[a];
	if (p->no_shell) {
		*argc = arm->argc;
		return arm->argv;
	}
	arm->shell_argv[0] = (char *)"/bin/sh";
	arm->shell_argv[1] = (char *)"-c";
	arm->shell_argv[2] = arm->command;
	arm->shell_argv[3] = NULL;
	*argc = 3;
	return arm->shell_argv;
}

const char *ab_plan_get(const struct ab_plan *p, size_t a, const char *key)
{
	if (a < p->narms)
		for (size_t i = 0; i < p->arms[a].nsettings; i++)
			if (!strcmp(p->arms[a].settings[i].key, key))
				return p->arms[a].settings[i].value;
	for (size_t i = 0; i < p->nall; i++)
		if (!strcmp(p->all[i].key, key))
			return p->all[i].value;
	return NULL;
}

/* splitmix64: a small, well-mixed generator for the random order. */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void ab_plan_order(const struct ab_plan *p, int r, size_t *out)
{
	size_t n = p->narms;
	for (size_t i = 0; i < n; i++)
		out[i] = i;
	if (p->order == ORDER_ABBA && (r & 1)) {
		for (size_t i = 0; i < n; i++)
			out[i] = n - 1 - i;
	} else if (p->order == ORDER_RANDOM) {
		uint64_t state = p->seed ^ ((uint64_t)(r + 1) * 0x632be59bd9b4e019ull);
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = (size_t)(splitmix64(&state) % (i + 1));
			size_t t = out[i];
			out[i] = out[j];
			out[j] = t;
		}
	}
}

/* What a search gathers: the last number, or every number and match. */
struct score_acc {
	bool all;		/* every line, not only the last that has one */
	bool keep;		/* keep every number (for an aggregate) */
	double last;
	bool have_last;		/* a number was read */
	double *v;
	size_t n, cap;
	size_t matches;
	bool oom;
};

static void acc_add(struct score_acc *a, double v)
{
	a->last = v;
	a->have_last = true;
	if (!a->keep)
		return;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		double *p = realloc(a->v, cap * sizeof(*p));
		if (!p) {
			a->oom = true;
			return;
		}
		a->v = p;
		a->cap = cap;
	}
	a->v[a->n++] = v;
}

/* Every match of s in the line [ls, e) of text (e just past its '\n',
 * if it has one) into acc; those that read as a number with their value. */
static int search_line(const struct ab_score *s, const char *text, size_t ls,
		       size_t e, struct score_acc *acc)
{
	for (size_t p = ls; p < e; ) {
		regmatch_t m[2];
		m[0].rm_so = (regoff_t)p;
		m[0].rm_eo = (regoff_t)e;
		/* REG_STARTEND: glibc reads only [p, e), where a plain regexec
		 * would first measure the whole rest of the text, each time. */
		int r = regexec(&s->re, text, 2, m, REG_STARTEND);
		if (r == REG_ESPACE)
			return -ENOMEM;
		if (r)
			break;
		acc->matches++;
		regmatch_t g = m[1].rm_so >= 0 ? m[1] : m[0];
		char buf[64];
		size_t len = (size_t)(g.rm_eo - g.rm_so);
		if (len < sizeof(buf)) {
			memcpy(buf, text + g.rm_so, len);
			buf[len] = '\0';
			char *end;
			double v = strtod(buf, &end);
			if (end != buf && isfinite(v))
				acc_add(acc, v);
		}
		/* An empty match (the checks refuse such patterns, but a
		 * zero-width assertion may slip through): step on. */
		p = m[0].rm_eo > m[0].rm_so ? (size_t)m[0].rm_eo : (size_t)m[0].rm_so + 1;
	}
	return acc->oom ? -ENOMEM : 0;
}

double ab_score_aggregate(enum ab_score_agg agg, double *v, size_t n)
{
	double pct = agg == AB_AGG_P99 ? 99 : 50, sum = 0, max = v[0];
	switch (agg) {
	case AB_AGG_P99:
	case AB_AGG_P50: {
		qsort(v, n, sizeof(*v), order_double);
		size_t k = (size_t)ceil(pct / 100.0 * (double)n);
		return v[(k ? k : 1) - 1];
	}
	case AB_AGG_MEAN:
		for (size_t i = 0; i < n; i++)
			sum += v[i];
		return sum / (double)n;
	case AB_AGG_MAX:
		for (size_t i = 1; i < n; i++)
			max = v[i] > max ? v[i] : max;
		return max;
	case AB_AGG_MATCHES:
		return (double)n;
	default:
		return v[n - 1];
	}
}

/*
 * The search itself, within the budget: for the last match, lines from
 * the last one back until one has a number; for an aggregate, every line.
 */
static int search_text(const struct ab_score *s, const char *text, double *value)
{
	size_t len = strlen(text);
	size_t start = len > AB_SCORE_TEXT_MAX ? len - AB_SCORE_TEXT_MAX : 0;
	/* Whole lines only: a cut line could show half a number. */
	if (start > 0 && text[start - 1] != '\n') {
		const char *nl = memchr(text + start, '\n', len - start);
		start = nl ? (size_t)(nl - text) + 1 : len;
	}
	struct score_acc acc = {
		.all = s->agg != AB_AGG_LAST,
		.keep = s->agg != AB_AGG_LAST && s->agg != AB_AGG_MATCHES,
	};
	int rc = 0;
	for (size_t e = len; e > start && !rc; ) {
		size_t body = text[e - 1] == '\n' ? e - 1 : e;
		const char *nl = body > start ? memrchr(text + start, '\n', body - start)
			       : NULL;
		size_t ls = nl ? (size_t)(nl - text) + 1 : start;
		rc = search_line(s, text, ls, e, &acc);
		if (!rc && !acc.all && acc.have_last)
			break;
		e = ls;
	}
	if (!rc && s->agg == AB_AGG_MATCHES)
		*value = (double)acc.matches;
	else if (!rc && s->agg == AB_AGG_LAST && acc.have_last)
		*value = acc.last;
	else if (!rc && acc.n)
		*value = ab_score_aggregate(s->agg, acc.v, acc.n);
	if (!rc && !(s->agg == AB_AGG_MATCHES ? acc.matches : acc.have_last))
		rc = -ENOENT;
	free(acc.v);
	return rc;
}

struct score_reply {
	int rc;
	double value;
};

/* In the searching child: the limits, and no core file when one is hit. */
static void limit_child(void)
{
	struct rlimit rl = { 0, 0 };
	setrlimit(RLIMIT_CORE, &rl);
	rl.rlim_cur = AB_SCORE_CPU_S;
	rl.rlim_max = AB_SCORE_CPU_S + 1;
	setrlimit(RLIMIT_CPU, &rl);
	signal(SIGXCPU, SIG_DFL);
	unsigned long pages = 0;
	FILE *fp = fopen("/proc/self/statm", "r");
	if (fp) {
		if (fscanf(fp, "%lu", &pages) != 1)
			pages = 0;
		fclose(fp);
	}
	if (pages) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) +
					    ((rlim_t)AB_SCORE_MEM_MB << 20);
		setrlimit(RLIMIT_AS, &rl);
	}
}

int ab_score_find(const struct ab_score *s, const char *text, double *value)
{
	if (!s->compiled)
		return -EINVAL;	/* a frame score: ab_score_measure reads it */
	int fds[2];
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	if (pid == 0) {
		close(fds[0]);
		limit_child();
		struct score_reply r = { 0, 0 };
		r.rc = search_text(s, text, &r.value);
		ssize_t w = write(fds[1], &r, sizeof(r));
		_exit(w == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(fds[1]);
	struct score_reply r;
	size_t got = 0;
	while (got < sizeof(r)) {
		ssize_t n = read(fds[0], (char *)&r + got, sizeof(r) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got == sizeof(r)) {
		if (!r.rc)
			*value = r.value;
		return r.rc;
	}
	if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGXCPU || WTERMSIG(st) == SIGKILL))
		return -ETIME;
	return -ENOMEM;
}

int ab_score_measure(const struct ab_score *s, const char *out, const char *err,
		     const struct db_run *run, double *value)
{
	switch (s->kind) {
	case AB_SCORE_FRAME_P99:
	case AB_SCORE_FRAME_P50:
		if (!run->nframes)
			return -ENOENT;
		*value = frames_pct_ms(run, s->kind == AB_SCORE_FRAME_P99 ? 99 : 50);
		return 0;
	case AB_SCORE_FRAME_LONG:
		if (!run->nframes)
			return -ENOENT;
		*value = (double)frames_long(run);
		return 0;
	default:
		break;
	}
	int rc = ab_score_find(s, out, value);
	if (rc == -ENOENT && err && *err)
		rc = ab_score_find(s, err, value);
	if (rc == -ENOENT && s->agg == AB_AGG_MATCHES) {
		*value = 0;	/* no match is a count too */
		rc = 0;
	}
	return rc;
}
