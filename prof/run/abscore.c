/*
 * abscore: how a score is stored and read from a finished run
 * (abscore.h). A regex score is searched for in a forked child under
 * rlimits and sends its answer back through a pipe; a frame score is
 * computed from the run's stored frames (reports/frames.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/order.h"
#include "common/xalloc.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"
#include "reports/abstat.h"
#include "reports/frames.h"

char *ab_score_spec(const struct ab_score *s)
{
	char *spec;
	if (s->kind != AB_SCORE_REGEX) {
		if (asprintf(&spec, "%s=%s", s->name, s->pattern) < 0)
			xalloc_die();
		return spec;
	}
	if (asprintf(&spec, "%s=%s%s%s%s", s->name, s->pattern, ab_score_agg_word(s->agg),
		     s->higher_is_better ? ":higher" : "",
		     s->rate ? ":rate" : s->count ? ":count" : "") < 0)
		xalloc_die();
	return spec;
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
	double sum = 0, max = v[0];
	switch (agg) {
	case AB_AGG_P99:
	case AB_AGG_P50:
		qsort(v, n, sizeof(*v), order_double);
		return v[nearest_rank(n, agg == AB_AGG_P99 ? 990 : 500) - 1];
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
