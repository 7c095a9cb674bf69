/*
 * collect_procs: each thread's process and that process's parent, so a
 * run of a process tree (make -j, a shell pipeline, a server and its
 * workers) can be read as a tree and not as one flat list of threads. A
 * collector (prof/run/collector.h): the births come from the FORK records
 * (collectors/procs), the first process's parent from prof itself or,
 * attached, from /proc; its fill gives each stored thread its process's
 * parent (after the counters' fill made the threads): the parent at the
 * birth of the thread's process.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "collectors/procs.h"
#include "common/errtext.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

struct procs_state {
	struct procs *procs;
	bool full;		/* out of memory: stop adding, say so once */
};

static void procs_release(void *self)
{
	struct procs_state *st = self;
	procs_free(st->procs);
	st->procs = NULL;
}

static int procs_prepare(void *self, struct collect_ctx *cx, char **cause)
{
	struct procs_state *st = self;
	(void)cx;
	(void)cause;
	st->procs = procs_new();
	if (!st->procs) {
		run_warn("cannot track the run's processes: %s", ERR_TEXT(errno));
		return COLLECT_SKIP;
	}
	return 0;
}

/* The first process was born before the counters: prof forked it, or
 * /proc says who did. */
static void procs_opened(void *self, struct collect_ctx *cx)
{
	struct procs_state *st = self;
	int32_t parent = cx->launched ? (int32_t)getpid() : procs_read_parent(cx->pid);
	if (procs_add(st->procs, (int32_t)cx->pid, parent, 0))
		st->full = true;
}

static void procs_drain(void *self, const struct perf_rec *rec, int origin)
{
	struct procs_state *st = self;
	(void)origin;
	if (!st->full && procs_feed(st->procs, rec)) {
		run_warn("cannot track the run's processes: out of memory; "
			 "some threads will have no parent process");
		st->full = true;
	}
}

static int procs_fill(void *self, struct collect_ctx *cx, struct db_run *run,
		      char **cause)
{
	struct procs_state *st = self;
	(void)cx;
	(void)cause;
	for (size_t i = 0; i < run->nthreads; i++) {
		struct db_thread *t = &run->threads[i];
		t->ppid = procs_parent(st->procs, t->pid, (uint64_t)t->start_ns);
	}
	return 0;
}

const struct collector_ops collect_procs = {
	.name = "procs",
	.size = sizeof(struct procs_state),
	.prepare = procs_prepare,
	.opened = procs_opened,
	.drain = procs_drain,
	.fill = procs_fill,
	.release = procs_release,
};
