/*
 * abplan: parse `prof ab` (and `prof pressure`) options and plan files
 * into an ab_plan (abplan.h). Parsing only: a score's regex is checked by
 * abregex.c and compiled here; reading scores from runs is abscore.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/errtext.h"
#include "common/xalloc.h"
#include "db/experiments.h"
#include "prof/abplan.h"
#include "prof/words.h"
#include "reports/abstat.h"

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
		xalloc_die();
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
		xalloc_die();
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
		xalloc_die();
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
	int rc = ab_regex_check(s->pattern, &why);
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


int ab_plan_add_per(struct ab_plan *p, const char *name, char **cause)
{
	const char *eq = strchr(name, '=');
	if (eq && (!good_name(name, (size_t)(eq - name)) || !eq[1]))
		return cause_set(cause, EINVAL, "bad --per '%.40s': expected COUNT or "
				 "UNIT=RATE (e.g. frame=fps)", name);
	char **v = realloc(p->per, (p->nper + 1) * sizeof(*v));
	if (!v)
		xalloc_die();
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
