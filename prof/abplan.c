/* abplan: parse `prof ab` options and plan files into an ab_plan. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/abplan.h"
#include "prof/words.h"

static int failf(char **cause, const char *fmt, const char *a, const char *b)
{
	if (cause && asprintf(cause, fmt, a, b) < 0)
		*cause = NULL;
	return -EINVAL;
}

void ab_plan_init(struct ab_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->rounds = 6;
	p->warmup = 1;
	p->order = ORDER_ABBA;
	p->gate_pct = NAN;
	p->events = "cache";
	p->seed = 0x5eed;
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
		return failf(cause, "bad arm name '%s': use letters, digits, '-', '_' "
			     "or '+' (at most 40)%s", shown, ""), NULL;
	if (find_arm(p, name, n))
		return failf(cause, "arm '%s' is given twice%s", shown, ""), NULL;
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
		return failf(cause, "bad --arm '%.40s': expected NAME=COMMAND%s", spec, "");
	const char *cmd = eq + 1;
	while (isspace((unsigned char)*cmd))
		cmd++;
	char name[48];
	snprintf(name, sizeof(name), "%.*s", (int)(eq - spec > 40 ? 40 : eq - spec), spec);
	if (!*cmd)
		return failf(cause, "arm '%s' has no command: --arm %s=COMMAND", name, name);
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
	return !strcmp(key, "pin") || !strcmp(key, "cwd") || !strcmp(key, "sleep");
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
		return failf(cause, "unknown setting '%s': expected pin, cwd, sleep or "
			     "env.VAR%s", k, "");
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
		return failf(cause, "bad --set '%.40s': expected [ARM.]KEY=VALUE%s", spec, "");
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
			return failf(cause, "--set names arm '%s', which is not one of "
				     "the arms (give --arm %s=COMMAND first)", arm, arm);
		}
		key = dot + 1;
		klen = (size_t)(eq - key);
	}
	return set_one(p, a, key, klen, eq + 1, cause);
}

/*
 * An upper bound on the size of the tree glibc's regcomp() builds for an
 * extended regex. It copies what a '+' repeats once more and what an
 * interval {n,m} repeats up to max(n, m) times, so stacked or nested
 * repetitions multiply: the 190-byte pattern the fuzzer found, a run of
 * 82 '+', made regcomp() use 4 GB and fail, and 30 of them already ask for
 * 2^30 nodes. Bracket expressions, escapes and '*' or '?' count one each.
 * Time grows faster than the tree where the copies can match empty text
 * (regcomp's epsilon closures), so the bound is low: measured here,
 * (x*){1,1000} (2,000 nodes) compiles in 0.2 s, (x*){1,3000} in 1.8 s and
 * ((x*){1,100}){1,100} in 74 s. Scores that pick a number out of a line
 * cost tens.
 */
#define REGEX_COST_MAX 2000.0

static double regex_cost_seq(const char **pp, int depth);

static double regex_cost_atom(const char **pp, int depth)
{
	const char *p = *pp;
	double c = 1;
	if (*p == '\\') {
		p += p[1] ? 2 : 1;
	} else if (*p == '[') {
		p++;
		if (*p == '^')
			p++;
		if (*p == ']')
			p++;
		while (*p && *p != ']') {
			if (*p == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
				char close = p[1];
				const char *e = p + 2;
				while (*e && !(e[0] == close && e[1] == ']'))
					e++;
				p = *e ? e + 2 : e;
			} else {
				p++;
			}
		}
		if (*p)
			p++;
	} else if (*p == '(' && depth < 1000) {
		p++;
		c = regex_cost_seq(&p, depth + 1) + 1;
		if (*p == ')')
			p++;
	} else {
		p++;
	}
	*pp = p;
	return c;
}

/* {n}, {n,}, {n,m} or {,m}: the larger bound (n for {n,}), or -1 when p
 * is no interval. */
static double regex_interval(const char **pp)
{
	const char *p = *pp + 1;
	double n = 0, m = -1;
	if ((*p < '0' || *p > '9') && *p != ',')
		return -1;
	while (*p >= '0' && *p <= '9')
		n = n * 10 + (*p++ - '0');
	if (*p == ',') {
		p++;
		if (*p >= '0' && *p <= '9')
			for (m = 0; *p >= '0' && *p <= '9';)
				m = m * 10 + (*p++ - '0');
	}
	if (*p != '}')
		return -1;
	*pp = p + 1;
	return m > n ? m : n;
}

static double regex_cost_seq(const char **pp, int depth)
{
	const char *p = *pp;
	double total = 0;
	while (*p && !(*p == ')' && depth > 0)) {
		if (*p == '|') {
			p++;
			continue;
		}
		double a = regex_cost_atom(&p, depth);
		for (;;) {
			double k;
			if (*p == '*' || *p == '?') {
				p++;
				a += 1;
			} else if (*p == '+') {
				p++;
				a = 2 * a + 1;
			} else if (*p == '{' && (k = regex_interval(&p)) >= 0) {
				a = a * (k > 1 ? k : 1) + 1;
			} else {
				break;
			}
			if (a > REGEX_COST_MAX)
				a = REGEX_COST_MAX + 1;	/* and stay finite */
		}
		total += a;
		if (total > REGEX_COST_MAX)
			total = REGEX_COST_MAX + 1;
	}
	*pp = p;
	return total;
}

int ab_plan_add_score(struct ab_plan *p, const char *spec, char **cause)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec)
		return failf(cause, "bad --score '%.40s': expected NAME=REGEX[:higher]%s",
			     spec, "");
	if (!good_name(spec, (size_t)(eq - spec)))
		return failf(cause, "bad score name in '%.40s'%s", spec, "");
	struct ab_score *v = realloc(p->scores, (p->nscores + 1) * sizeof(*v));
	if (!v)
		abort();
	p->scores = v;
	struct ab_score *s = &v[p->nscores];
	memset(s, 0, sizeof(*s));
	s->name = strndup(spec, (size_t)(eq - spec));
	const char *re = eq + 1;
	size_t len = strlen(re);
	if (len > 7 && !strcmp(re + len - 7, ":higher")) {
		s->higher_is_better = true;
		len -= 7;
	} else if (len > 6 && !strcmp(re + len - 6, ":lower")) {
		len -= 6;
	}
	s->pattern = strndup(re, len);
	for (size_t i = 0; i < p->nscores; i++) {
		if (!strcmp(p->scores[i].name, s->name)) {
			int r = failf(cause, "score '%s' is given twice%s", s->name, "");
			free(s->name);
			free(s->pattern);
			return r;
		}
	}
	const char *walk = s->pattern;
	if (regex_cost_seq(&walk, 0) > REGEX_COST_MAX) {
		int r = failf(cause, "the regex of score '%s' is too large once "
			      "expanded%s\nhint: '+' and {n,m} copy what they "
			      "repeat, so stacked or nested ones multiply; repeat "
			      "once, as in ([0-9.]+)", s->name, "");
		free(s->name);
		free(s->pattern);
		return r;
	}
	int rc = regcomp(&s->re, s->pattern, REG_EXTENDED);
	if (rc) {
		char err[128];
		regerror(rc, &s->re, err, sizeof(err));
		int r = failf(cause, "the regex of score '%s' does not compile: %s",
			      s->name, err);
		free(s->name);
		free(s->pattern);
		return r;
	}
	s->compiled = true;
	p->nscores++;
	return 0;
}

int ab_plan_add_per(struct ab_plan *p, const char *name, char **cause)
{
	(void)cause;
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
		return failf(cause, "unknown order '%.40s': expected abba, alternate "
			     "or random%s", word, "");
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

/* A plan key before any [arm] section. */
static int plan_global(struct ab_plan *p, const char *k, const char *v,
		       char **cause)
{
	long n;
	double d;
	if (!strcmp(k, "rounds")) {
		if (!parse_int(v, 1, 100000, &n))
			return failf(cause, "bad rounds '%s'%s", v, "");
		p->rounds = (int)n;
	} else if (!strcmp(k, "warmup")) {
		if (!parse_int(v, 0, 1000, &n))
			return failf(cause, "bad warmup '%s'%s", v, "");
		p->warmup = (int)n;
	} else if (!strcmp(k, "order")) {
		return ab_plan_set_order(p, v, cause);
	} else if (!strcmp(k, "seed")) {
		if (!parse_int(v, 0, 0x7fffffffffffffffL, &n))
			return failf(cause, "bad seed '%s'%s", v, "");
		p->seed = (uint64_t)n;
		p->seed_given = true;
	} else if (!strcmp(k, "settle")) {
		if (!parse_num(v, 0, 3600, &d))
			return failf(cause, "bad settle '%s'%s", v, "");
		p->settle_s = d;
	} else if (!strcmp(k, "gate")) {
		if (!parse_num(v, 0, 1000, &d))
			return failf(cause, "bad gate '%s'%s", v, "");
		p->gate_pct = d;
	} else if (!strcmp(k, "events")) {
		free(p->events_owned);
		p->events_owned = strdup(v);
		p->events = p->events_owned;
	} else if (!strcmp(k, "score")) {
		return ab_plan_add_score(p, v, cause);
	} else if (!strcmp(k, "per")) {
		return ab_plan_add_per(p, v, cause);
	} else if (!strcmp(k, "working-set")) {
		p->working_set = !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes");
	} else if (!strcmp(k, "keep-going")) {
		p->keep_going = !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes");
	} else {
		return set_one(p, NULL, k, strlen(k), v, cause);
	}
	return 0;
}

int ab_plan_read(struct ab_plan *p, const char *path, char **cause)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		int e = errno;
		if (cause && asprintf(cause, "cannot read plan '%.60s': %s", path,
				      strerror(e)) < 0)
			*cause = NULL;
		return -e;
	}
	int rc = ab_plan_read_file(p, fp, path, cause);
	fclose(fp);
	return rc;
}

int ab_plan_read_file(struct ab_plan *p, FILE *fp, const char *path, char **cause)
{
	char line[4096];
	int lineno = 0, rc = 0;
	struct ab_arm *arm = NULL;
	while (!rc && fgets(line, sizeof(line), fp)) {
		lineno++;
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		char *inner = NULL;
		if (*s == '[') {
			size_t n = strlen(s);
			if (s[n - 1] != ']' || strncmp(s, "[arm ", 5)) {
				rc = failf(&inner, "bad section '%s': expected [arm NAME]%s", s, "");
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
				rc = failf(&inner, "expected 'key = value', got '%.40s'%s", s, "");
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
		if (rc && cause && asprintf(cause, "%.60s:%d: %s", path, lineno,
					    inner ? inner : "bad line") < 0)
			*cause = NULL;
		free(inner);
	}
	return rc;
}

int ab_plan_check(struct ab_plan *p, char **cause)
{
	size_t need = p->aa ? 1 : 2;
	if (p->narms < need) {
		if (cause && asprintf(cause, "%s: give %s", p->narms ? "only one arm"
				      : "no arms", p->aa ? "--aa --arm NAME=COMMAND"
				      : "two or more --arm NAME=COMMAND (the first is "
				      "the baseline), or --aa with one") < 0)
			*cause = NULL;
		return -EINVAL;
	}
	if (p->aa && p->narms != 1)
		return failf(cause, "--aa runs one command against itself: give one "
			     "--arm, not %s%s", "several", "");
	for (size_t i = 0; i < p->narms; i++)
		if (!p->arms[i].argv)
			return failf(cause, "arm '%s' has no command%s", p->arms[i].name, "");
	for (size_t i = 0; i < p->nper; i++) {
		bool found = false;
		for (size_t k = 0; k < p->nscores; k++)
			found = found || !strcmp(p->scores[k].name, p->per[i]);
		if (!found)
			return failf(cause, "--per %s names no score: add --score %s=REGEX",
				     p->per[i], p->per[i]);
	}
	return 0;
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

int ab_score_find(const struct ab_score *s, const char *text, double *value)
{
	regmatch_t m[2];
	const char *p = text;
	bool found = false;
	double last = 0;
	while (*p && regexec(&s->re, p, 2, m, p == text ? 0 : REG_NOTBOL) == 0) {
		regmatch_t g = m[1].rm_so >= 0 ? m[1] : m[0];
		char buf[64];
		size_t len = (size_t)(g.rm_eo - g.rm_so);
		if (len < sizeof(buf)) {
			memcpy(buf, p + g.rm_so, len);
			buf[len] = '\0';
			char *end;
			double v = strtod(buf, &end);
			if (end != buf && isfinite(v)) {
				last = v;
				found = true;
			}
		}
		if (m[0].rm_eo == 0)
			p++;	/* an empty match: step on */
		else
			p += m[0].rm_eo;
	}
	if (!found)
		return -ENOENT;
	*value = last;
	return 0;
}
