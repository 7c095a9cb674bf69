/* sleepmode: preload the sleep interposer into a workload, read its report. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/errtext.h"
#include "common/pkglib.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

static void env_free(struct sleep_plan *sp)
{
	for (size_t i = 0; i < sizeof(sp->env) / sizeof(sp->env[0]); i++) {
		free(sp->env[i]);
		sp->env[i] = NULL;
	}
}

void sleep_plan_release(struct sleep_plan *sp)
{
	if (!sp)
		return;
	free(sp->spec);
	free(sp->mode_word);
	free(sp->threshold_word);
	free(sp->spinners_word);
	if (sp->preload)
		unlink(sp->preload);
	if (sp->link_dir)
		rmdir(sp->link_dir);
	free(sp->preload);
	free(sp->link_dir);
	free(sp->lib);
	free(sp->why_not);
	free(sp->unreached);
	if (sp->fd >= 0)
		close(sp->fd);
	env_free(sp);
	memset(sp, 0, sizeof(*sp));
	sp->fd = -1;
}

int sleep_plan_parse(struct sleep_plan *sp, const char *spec, char **cause)
{
	memset(sp, 0, sizeof(*sp));
	sp->fd = -1;
	sp->spec = strdup(spec);
	char *copy = strdup(spec), *save = NULL;
	int rc = 0;
	char shown[64];
	for (char *tok = strtok_r(copy, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!sp->mode_word && !strchr(tok, '=')) {
			sp->mode_word = strdup(tok);
		} else if (!strncmp(tok, "threshold=", 10)) {
			free(sp->threshold_word);
			sp->threshold_word = strdup(tok + 10);
		} else if (!strncmp(tok, "max-spinners=", 13)) {
			free(sp->spinners_word);
			sp->spinners_word = strdup(tok + 13);
		} else {
			snprintf(shown, sizeof(shown), "%.40s", tok);
			cause_set(cause, 0, "bad --sleep-mode part '%s': expected "
				  "MODE[,threshold=US][,max-spinners=K]", shown);
			rc = -EINVAL;
		}
	}
	free(copy);
	if (!rc && !sp->mode_word) {
		cause_set(cause, 0, "--sleep-mode needs a mode: passthrough, "
			  "slack1, timerfd, yield, spin or hybrid[:MARGIN_US]");
		rc = -EINVAL;
	}
	if (!rc)
		rc = sleep_preload_config_parse(sp->mode_word, sp->threshold_word,
						sp->spinners_word, &sp->cfg, cause);
	return rc;
}

/*
 * ld.so splits LD_PRELOAD at spaces and colons, with no way to escape
 * them: an interposer whose path holds either is preloaded through a link
 * named without them, in a directory of its own.
 */
static int preload_link(struct sleep_plan *sp, char **cause)
{
	if (!strpbrk(sp->lib, " :") || sp->preload)
		return 0;
	const char *base = getenv("TMPDIR");
	if (!base || *base != '/' || strpbrk(base, " :"))
		base = "/tmp";
	char *target = realpath(sp->lib, NULL), *dir = NULL, *link = NULL;
	int rc = 0;
	if (!target || asprintf(&dir, "%s/prof-sleep-XXXXXX", base) < 0) {
		dir = NULL;
		rc = -errno;
		goto out_free;
	}
	if (!mkdtemp(dir)) {
		rc = -errno;
		free(dir);
		dir = NULL;
		goto out_free;
	}
	/* as reachable as the library itself, for a workload that changes
	 * user; only its owner can change what it holds */
	if (chmod(dir, 0755) != 0 ||
	    asprintf(&link, "%s/%s", dir, SLEEP_PRELOAD_LIB) < 0 ||
	    symlink(target, link) != 0) {
		rc = -errno;
		free(link);
		link = NULL;
		rmdir(dir);
		goto out_free;
	}
	sp->preload = link;
	sp->link_dir = dir;
	free(target);
	return 0;

out_free:
	cause_set(cause, 0, "cannot preload the sleep interposer '%.200s': "
		  "LD_PRELOAD cannot carry a path with a space or a "
		  "colon, and no link to it could be made in %s: %s\n"
		  "hint: install prof where its path has neither, or "
		  "set PROF_SLEEP_LIB to a copy of %s there", sp->lib,
		  base, ERR_TEXT(-rc), SLEEP_PRELOAD_LIB);
	free(dir);
	free(target);
	return rc ? rc : -ENOMEM;
}

int sleep_plan_locate(struct sleep_plan *sp, char **cause)
{
	char looked[2 * PATH_MAX + 300];
	const char *forced = getenv("PROF_SLEEP_LIB");
	sp->lib = pkglib_find(SLEEP_PRELOAD_LIB, "PROF_SLEEP_LIB", looked, sizeof(looked));
	if (sp->lib)
		return preload_link(sp, cause);
	if (forced && *forced)
		return cause_set(cause, ENOENT, "the sleep interposer is not at %s", looked);
	return cause_set(cause, ENOENT, "the sleep interposer %s is missing: looked "
			 "in %s\nhint: build it (cmake --build) or install prof "
			 "(cmake --install)", SLEEP_PRELOAD_LIB, looked);
}

void sleep_plan_check(struct sleep_plan *sp, const char *cmd)
{
	enum sleep_exe_kind kind, interp = SLEEP_EXE_DYNAMIC;
	char *cause = NULL;
	sp->preloadable = true;
	if (sleep_exe_kind(cmd, &kind, &interp, &cause)) {
		free(cause);
		return;	/* the launch reports a missing command itself */
	}
	if (kind == SLEEP_EXE_SCRIPT)
		kind = interp;
	if (kind == SLEEP_EXE_STATIC || kind == SLEEP_EXE_STATIC_PIE) {
		sp->preloadable = false;
		cause_set(&sp->why_not, 0, "'%.60s' is statically linked: a preload "
			  "cannot reach its sleeps", cmd);
		run_warn("--sleep-mode %s: %s; it runs with its own sleeps, and "
			 "the run says the mode was not applied", sp->spec,
			 sp->why_not ? sp->why_not : "static");
	}
}

int sleep_plan_arm(struct sleep_plan *sp, char **cause)
{
	env_free(sp);
	if (sp->fd >= 0)
		close(sp->fd);
	sp->fd = sleep_shm_create(cause);
	if (sp->fd < 0)
		return sp->fd;
	const char *old = getenv("LD_PRELOAD");
	size_t k = 0;
	const char *lib = sp->preload ? sp->preload : sp->lib;
	if (asprintf(&sp->env[k++], "LD_PRELOAD=%s%s%s", lib,
		     old && *old ? " " : "", old ? old : "") < 0)
		return -ENOMEM;
	if (asprintf(&sp->env[k++], "%s=%d", SLEEP_ENV_SHM_FD, sp->fd) < 0 ||
	    asprintf(&sp->env[k++], "%s=%s", SLEEP_ENV_MODE, sp->mode_word) < 0)
		return -ENOMEM;
	if (sp->threshold_word &&
	    asprintf(&sp->env[k++], "%s=%s", SLEEP_ENV_THRESHOLD, sp->threshold_word) < 0)
		return -ENOMEM;
	if (sp->spinners_word &&
	    asprintf(&sp->env[k++], "%s=%s", SLEEP_ENV_MAX_SPINNERS, sp->spinners_word) < 0)
		return -ENOMEM;
	sp->env[k] = NULL;
	return 0;
}

/* "k:count" pairs of the non-empty requested-duration buckets, or NULL
 * out of memory. */
static char *req_hist_text(const uint64_t *h)
{
	size_t len = 0;
	char *s = NULL;
	FILE *fp = open_memstream(&s, &len);
	if (!fp)
		return NULL;
	bool first = true;
	for (unsigned b = 0; b < SLEEP_REQ_BUCKETS; b++) {
		if (!h[b])
			continue;
		fprintf(fp, "%s%u:%llu", first ? "" : " ", b, (unsigned long long)h[b]);
		first = false;
	}
	if (fclose(fp)) {
		free(s);
		return NULL;
	}
	return s;
}

/* One thread's row of the interposer's report, as stored. */
static bool usage_thread(struct db_sleep_thread *d, const struct sleep_thread_report *t)
{
	d->tid = t->tid;
	d->pid = t->pid;
	d->name = strndup(t->name, SLEEP_NAME_LEN);
	d->served = t->served;
	d->passed = t->passed;
	d->eintr = t->eintr;
	d->early = t->early;
	d->throttled = t->throttled;
	d->fallback = t->fallback;
	d->fallback_errno = (int)t->fallback_errno;
	d->fallback_max_ns = t->fallback_over_max_ns;
	d->fallback_mean_ns = t->fallback ? (double)t->fallback_over_sum_ns /
			      (double)t->fallback : 0;
	d->p50_ns = t->over.p50_ns;
	d->p90_ns = t->over.p90_ns;
	d->p99_ns = t->over.p99_ns;
	d->p999_ns = t->over.p999_ns;
	d->max_ns = t->over.max_ns;
	d->mean_ns = t->over.mean_ns;
	d->req_hist = req_hist_text(t->req_hist);
	d->cv_served = t->cv_served;
	d->cv_passed = t->cv_passed;
	d->cv_woken = t->cv_woken;
	d->cv_timedout = t->cv_timedout;
	d->cv_early = t->cv_early;
	d->cv_p50_ns = t->cv_over.p50_ns;
	d->cv_p90_ns = t->cv_over.p90_ns;
	d->cv_p99_ns = t->cv_over.p99_ns;
	d->cv_p999_ns = t->cv_over.p999_ns;
	d->cv_max_ns = t->cv_over.max_ns;
	d->cv_mean_ns = t->cv_over.mean_ns;
	return d->name && d->req_hist;
}

/*
 * What the sleep interposer saw, as stored: rep as read after the run,
 * or NULL when it could not be read (the settings asked for then stand
 * in for the ones applied). status is taken ("applied" or "not applied:
 * why"). NULL when out of memory.
 */
static struct db_sleep_usage *usage_of(const struct sleep_report *rep,
				       const struct sleep_preload_config *asked,
				       char *status)
{
	struct db_sleep_usage *u = calloc(1, sizeof(*u));
	if (!u || !status) {
		free(u);
		free(status);
		return NULL;
	}
	const struct sleep_preload_config *cfg = rep && rep->config_set ? &rep->config
						 : asked;
	char mode[48];
	bool oom = false;
	sleep_mode_format(&cfg->mode, mode, sizeof(mode));
	u->mode = fill_strdup(mode, &oom);
	u->threshold_us = cfg->threshold_ns / 1000;
	u->max_spinners = cfg->max_spinners;
	u->spinners_default = cfg->spinners_default;
	u->status = status;
	u->cv_served_by = fill_strdup(sleep_cv_strategy(cfg->mode.mode), &oom);
	if (rep) {
		u->ncpus = rep->ncpus;
		u->processes = rep->processes;
		if (rep->error[0])
			u->error = fill_strdup(rep->error, &oom);
		u->threads = calloc(rep->nthreads + 1, sizeof(*u->threads));
		oom |= !u->threads;
		for (size_t i = 0; u->threads && i < rep->nthreads; i++)
			oom |= !usage_thread(&u->threads[u->nthreads++], &rep->threads[i]);
	}
	if (oom) {
		db_sleep_usage_free(u);
		return NULL;
	}
	return u;
}

struct db_sleep_usage *sleep_plan_collect(struct sleep_plan *sp)
{
	if (sp->fd < 0)
		return NULL;
	struct sleep_report rep;
	char *cause = NULL, *status = NULL;
	int rc = sleep_report_read(sp->fd, &rep, &cause);
	close(sp->fd);
	sp->fd = -1;
	if (rc) {
		if (asprintf(&status, "not applied: cannot read its report: %s",
			     cause ? cause : "?") < 0)
			status = NULL;
		run_warn("--sleep-mode: cannot read the interposer's report: %s",
			 cause ? cause : "?");
		free(cause);
		return usage_of(NULL, &sp->cfg, status);
	}
	if (!sp->preloadable) {
		if (asprintf(&status, "not applied: %s", sp->why_not ? sp->why_not
			     : "static executable") < 0)
			status = NULL;
	} else if (rep.processes == 0) {
		status = strdup("not applied: the interposer never loaded (a "
				"static or setuid program, or LD_PRELOAD dropped)");
		run_warn("--sleep-mode: the interposer never loaded in the "
			 "workload; its sleeps were its own");
	} else if (rep.error[0]) {
		if (asprintf(&status, "not applied: %s", rep.error) < 0)
			status = NULL;
	} else if (sp->unreached) {
		if (asprintf(&status, "partly applied: %s", sp->unreached) < 0)
			status = NULL;
		run_warn("--sleep-mode: %s; its sleeps were its own", sp->unreached);
	} else {
		status = strdup("applied");
	}
	struct db_sleep_usage *u = usage_of(&rep, &sp->cfg, status);
	sleep_report_release(&rep);
	return u;
}

/* ---- the collector ---- */

/*
 * Each program the workload execs (a PERF_RECORD_COMM with the exec
 * flag), the first executable it maps (the kernel maps the program
 * first), and whether the interposer was mapped into it before the run
 * ended: ld.so maps a preload before main, so a program without it never
 * had its sleeps served (statically linked, set-user-ID, or LD_PRELOAD
 * dropped from its environment), though the report says "applied"
 * whenever some other process of the workload loaded it.
 */
struct image {
	uint32_t pid;
	char *exe;		/* or NULL until its first exec mapping */
	bool reached;		/* the interposer was mapped into it */
};

#define UNREACHED_NAMED 3	/* named in the status; the rest counted */

struct sleep_state {
	struct sleep_plan *sp;
	struct db_sleep_usage *usage;
	struct image *img;	/* programs running now, by pid */
	size_t nimg, cap;
	struct image gone[UNREACHED_NAMED];	/* the first unreached ones */
	size_t ngone;		/* all unreached, named or not */
	bool oom;		/* the report was read, but not kept */
};

static struct image *image_of(struct sleep_state *st, uint32_t pid)
{
	for (size_t i = 0; i < st->nimg; i++)
		if (st->img[i].pid == pid)
			return &st->img[i];
	return NULL;
}

/* The program that ran as img is over (another exec, or the run's end). */
static void image_end(struct sleep_state *st, struct image *img)
{
	if (!img->reached && img->exe) {
		if (st->ngone < UNREACHED_NAMED) {
			st->gone[st->ngone] = *img;
			img->exe = NULL;
		}
		st->ngone++;
	}
	free(img->exe);
	*img = st->img[--st->nimg];
}

static bool is_interposer(const char *path)
{
	const char *base = strrchr(path, '/');
	return !strcmp(base ? base + 1 : path, SLEEP_PRELOAD_LIB);
}

static void sleep_drain(void *self, const struct perf_rec *rec, int origin)
{
	struct sleep_state *st = self;
	(void)origin;
	if (!st->sp)
		return;
	if (rec->type == PERF_RECORD_COMM &&
	    (rec->misc & PERF_RECORD_MISC_COMM_EXEC)) {
		struct image *old = image_of(st, rec->u.comm.pid);
		if (old)
			image_end(st, old);
		if (st->nimg == st->cap) {
			size_t cap = st->cap ? 2 * st->cap : 16;
			struct image *n = realloc(st->img, cap * sizeof(*n));
			if (!n)
				return;	/* out of memory: this one goes unchecked */
			st->img = n;
			st->cap = cap;
		}
		struct image *img = &st->img[st->nimg++];
		memset(img, 0, sizeof(*img));
		img->pid = rec->u.comm.pid;
		return;
	}
	if ((rec->type != PERF_RECORD_MMAP && rec->type != PERF_RECORD_MMAP2) ||
	    (rec->misc & PERF_RECORD_MISC_MMAP_DATA) || !rec->u.mmap.filename ||
	    rec->u.mmap.filename[0] != '/')
		return;
	struct image *img = image_of(st, rec->u.mmap.pid);
	if (!img)
		return;
	if (!img->exe)
		img->exe = strdup(rec->u.mmap.filename);
	if (is_interposer(rec->u.mmap.filename))
		img->reached = true;
}

/* "'x' (pid 7) never loaded the interposer: statically linked", for the
 * status, or NULL when every program the workload exec'd loaded it. */
static char *unreached_text(struct sleep_state *st)
{
	while (st->nimg)
		image_end(st, &st->img[st->nimg - 1]);
	if (!st->ngone)
		return NULL;
	char buf[512] = "";
	size_t len = 0;
	bool all_static = true;
	for (size_t i = 0; i < st->ngone && i < UNREACHED_NAMED; i++) {
		const struct image *g = &st->gone[i];
		enum sleep_exe_kind kind = SLEEP_EXE_DYNAMIC;
		char *cause = NULL;
		if (sleep_exe_kind(g->exe, &kind, NULL, &cause))
			kind = SLEEP_EXE_DYNAMIC;
		free(cause);
		all_static = all_static && (kind == SLEEP_EXE_STATIC ||
					    kind == SLEEP_EXE_STATIC_PIE);
		const char *base = strrchr(g->exe, '/');
		len += (size_t)snprintf(buf + len, len < sizeof(buf) ? sizeof(buf) - len : 0,
					"%s'%.60s' (pid %u)",
					!i ? "" : i + 1 == st->ngone ? " and " : ", ",
					base ? base + 1 : g->exe, g->pid);
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
	}
	char *text = NULL;
	size_t more = st->ngone > UNREACHED_NAMED ? st->ngone - UNREACHED_NAMED : 0;
	char tail[64] = "";
	if (more)
		snprintf(tail, sizeof(tail), " and %zu more program%s", more,
			 more == 1 ? "" : "s");
	if (asprintf(&text, "%s%s of the workload never loaded the interposer%s",
		     buf, tail, all_static && !more ? ": statically linked"
		     : all_static ? " (the named ones statically linked)"
		     : " (statically linked, set-user-ID, or LD_PRELOAD dropped)") < 0)
		text = NULL;
	return text;
}

/* A launched run with --sleep-mode: the workload gets the preload. */
static int sleep_prepare(void *self, struct collect_ctx *cx, char **cause)
{
	struct sleep_state *st = self;
	if (!cx->launched || !cx->o->sleep)
		return COLLECT_SKIP;
	st->sp = cx->o->sleep;
	int rc = sleep_plan_arm(st->sp, cause);
	if (rc)
		return rc;
	collect_add_env(cx, st->sp->env);
	return 0;
}

static void sleep_finish(void *self, struct collect_ctx *cx)
{
	struct sleep_state *st = self;
	(void)cx;
	free(st->sp->unreached);
	st->sp->unreached = unreached_text(st);
	bool armed = st->sp->fd >= 0;
	st->usage = sleep_plan_collect(st->sp);
	st->oom = armed && !st->usage;
}

static int sleep_fill(void *self, struct collect_ctx *cx, struct db_run *run,
		      char **cause)
{
	struct sleep_state *st = self;
	(void)cx;
	if (st->oom)
		return fill_oom(cause, "sleep mode's report");
	run->sleep_usage = st->usage;
	st->usage = NULL;
	if (run->sleep_usage)
		db_set_str(run, SET_SLEEP_MODE, st->sp->spec);
	return 0;
}

/* A run that ended early leaves its report unread: it goes now. */
static void sleep_release(void *self)
{
	struct sleep_state *st = self;
	db_sleep_usage_free(st->usage);
	for (size_t i = 0; i < st->nimg; i++)
		free(st->img[i].exe);
	free(st->img);
	for (size_t i = 0; i < st->ngone && i < UNREACHED_NAMED; i++)
		free(st->gone[i].exe);
	if (st->sp && st->sp->fd >= 0) {
		close(st->sp->fd);
		st->sp->fd = -1;
	}
}

const struct collector_ops collect_sleep = {
	.name = "sleep",
	.size = sizeof(struct sleep_state),
	.prepare = sleep_prepare,
	.drain = sleep_drain,
	.finish = sleep_finish,
	.fill = sleep_fill,
	.release = sleep_release,
};
