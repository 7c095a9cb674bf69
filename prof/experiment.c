/*
 * experiment: the rounds of `prof ab` and `prof pressure` (experiment.h),
 * and the helpers both verbs build their slots and experiment rows from.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "prof/cli.h"
#include "prof/experiment.h"
#include "prof/run/run.h"

static bool stop_asked(void)
{
	return runner_interrupted() || runner_late_signal(NULL);
}

static void set_interrupted(struct exp_end *end)
{
	end->status = "interrupted";
	end->note = strdup("interrupted (Ctrl-C or SIGTERM); the finished rounds "
			   "are kept");
	end->code = runner_stop_exit_code();
}

static void show_progress(struct progress_line *line, const struct exp_design *d,
			  const char *name, bool warm, int round, size_t done,
			  size_t total, double t0)
{
	double el = mono_now_s() - t0;
	char eta[48] = "";
	if (done)
		snprintf(eta, sizeof(eta), ", ~%.0fs left",
			 el / (double)done * (double)(total - done));
	progress_line_show(line, "prof %s: %s %d of %d, %s%s (run %zu of %zu), "
			   "%.0fs elapsed%s", d->verb, warm ? "warm-up" : "round",
			   round + 1, warm ? d->warmup : d->rounds, d->slot_word, name,
			   done + 1, total, el, eta);
}

static void settle(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

int experiment_run(const struct exp_design *d, const struct exp_hooks *h, void *arg,
		   struct exp_end *end)
{
	struct ab_plan order_plan = *d->plan;	/* ab_plan_order reads narms */
	order_plan.narms = d->nslots;
	size_t *order = xcalloc(d->nslots, sizeof(size_t));	/* before any run */
	struct progress_line line;
	progress_line_init(&line, cli_talk());
	size_t total = (size_t)(d->warmup + d->rounds) * d->nslots, done = 0;
	double t0 = mono_now_s();
	bool stop = false;
	if (d->check_first && stop_asked()) {
		set_interrupted(end);
		stop = true;
	}
	for (int r = -d->warmup; r < d->rounds && !stop; r++) {
		bool warm = r < 0;
		int rr = warm ? r + d->warmup : r;
		ab_plan_order(&order_plan, rr, order);
		bool round_failed = false;
		for (size_t pos = 0; pos < d->nslots && !stop; pos++) {
			size_t s = order[pos];
			show_progress(&line, d, h->slot_name(arg, s), warm, rr, done, total,
				      t0);
			struct exp_slot es = { s, pos, rr, warm, done > 0, &line };
			enum exp_slot_result res = h->run_slot(arg, &es, end);
			done++;
			if (res == EXP_SLOT_STOP) {
				stop = true;
				break;
			}
			round_failed = round_failed || res != EXP_SLOT_RAN;
			if (res == EXP_SLOT_NOT_RUN)
				continue;
			if (stop_asked()) {
				set_interrupted(end);
				stop = true;
			}
			if (!stop && d->settle_s > 0)
				settle(d->settle_s);
		}
		if (round_failed && !d->keep_going && !stop) {
			stop = true;
			end->status = "stopped";
			if (asprintf(&end->note, "stopped after %s %d: a run failed (use "
				     "--keep-going to run on)", warm ? "warm-up" : "round",
				     rr + 1) < 0)
				end->note = NULL;
			end->code = EXIT_FAIL;
		}
	}
	progress_line_clear(&line);
	free(order);
	return end->code;
}

char *experiment_slurp(int fd, size_t max, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	if (end < 0)
		end = 0;
	off_t start = (size_t)end > max ? end - (off_t)max : 0;
	size_t n = (size_t)(end - start);
	char *buf = malloc(n + 1);
	if (!buf) {
		if (len)
			*len = 0;
		errno = ENOMEM;
		return NULL;
	}
	ssize_t got = n ? pread(fd, buf, n, start) : 0;
	buf[got > 0 ? got : 0] = '\0';
	for (ssize_t i = 0; i < got; i++)
		if (!buf[i])
			buf[i] = ' ';
	if (len)
		*len = got > 0 ? (size_t)got : 0;
	return buf;
}

struct db_score *experiment_scores(const struct ab_plan *p, const char *out,
				   const char *err, const struct db_run *run, int **rcs)
{
	struct db_score *sc = calloc(p->nscores + 1, sizeof(*sc));
	int *rc = calloc(p->nscores + 1, sizeof(*rc));
	if (!sc || !rc) {
		free(sc);
		free(rc);
		if (rcs)
			*rcs = NULL;
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < p->nscores; i++) {
		sc[i].name = p->scores[i].name;
		rc[i] = ab_score_measure(&p->scores[i], out ? out : "", err ? err : "",
					 run, &sc[i].value);
		sc[i].found = rc[i] == 0;
	}
	if (rcs)
		*rcs = rc;
	else
		free(rc);
	return sc;
}

void experiment_kv_add(struct db_kv **v, size_t *n, const char *key, char *value)
{
	struct db_kv *p = xrealloc(*v, (*n + 1) * sizeof(*p));	/* before any run */
	*v = p;
	p[*n].key = xstrdup(key);
	p[*n].value = value;
	(*n)++;
}

void experiment_kv_scores(struct db_kv **v, size_t *n, const struct ab_plan *p,
			  char *budget)
{
	for (size_t i = 0; i < p->nscores; i++)
		experiment_kv_add(v, n, "score", ab_score_spec(&p->scores[i]));
	if (p->frames)
		experiment_kv_add(v, n, "frames", strdup("markers"));
	if (p->frame_regex)
		experiment_kv_add(v, n, "frame-regex", strdup(p->frame_regex));
	if (p->frame_symbol)
		experiment_kv_add(v, n, "frame-symbol", strdup(p->frame_symbol));
	if (ab_plan_has_frames(p))
		experiment_kv_add(v, n, "budget_ms", budget);
	else
		free(budget);
}

const char *experiment_order_word(enum ab_order order)
{
	return order == ORDER_ABBA ? "abba" : order == ORDER_ALTERNATE ? "alternate"
	       : "random";
}
