/*
 * collect_system: what the whole machine did while the run ran, from
 * two snapshots of its own counters (collectors/sysdelta): one when the
 * counters are open and the workload waits before its exec (or the
 * attach begins), one when it has ended. Neighbours show up here: steal
 * time from a VM's host, page faults and migrations of other processes,
 * interrupts on the workload's CPUs. A collector (prof/run/collector.h)
 * whose fill keeps the counters that moved.
 */
#include <errno.h>
#include <stdlib.h>

#include "collectors/sysdelta.h"
#include "common/errtext.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

struct system_state {
	struct sys_snap before, after;
	bool have_before, have_after;
};

static void system_opened(void *self, struct collect_ctx *cx)
{
	struct system_state *st = self;
	(void)cx;
	st->have_before = sys_snap_read(&st->before, "/proc") == 0;
}

static void system_finish(void *self, struct collect_ctx *cx)
{
	struct system_state *st = self;
	(void)cx;
	st->have_after = st->have_before && sys_snap_read(&st->after, "/proc") == 0;
}

/* The deltas as run->system: 0 or -ENOMEM. */
static int keep_deltas(struct db_run *run, const struct sys_snap *before,
		       const struct sys_snap *after)
{
	struct sys_val *d;
	size_t n;
	if (sys_snap_delta(before, after, &d, &n))
		return -ENOMEM;
	run->system = calloc(n ? n : 1, sizeof(*run->system));
	if (!run->system) {
		sys_deltas_free(d, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		run->system[i].name = d[i].name;	/* taken over */
		run->system[i].delta = d[i].v;
	}
	run->nsystem = n;
	free(d);
	return 0;
}

void collect_fill_system(struct db_run *run, const struct sys_snap *before,
			 const struct sys_snap *after)
{
	if (keep_deltas(run, before, after))
		run_warn("cannot keep the machine's deltas: %s", ERR_TEXT(ENOMEM));
}

static int system_fill(void *self, struct collect_ctx *cx, struct db_run *run,
		       char **cause)
{
	struct system_state *st = self;
	(void)cx;
	(void)cause;	/* the run does without them: a warning */
	if (st->have_after)
		collect_fill_system(run, &st->before, &st->after);
	return 0;
}

static void system_release(void *self)
{
	struct system_state *st = self;
	sys_snap_release(&st->before);
	sys_snap_release(&st->after);
}

const struct collector_ops collect_system = {
	.name = "system",
	.size = sizeof(struct system_state),
	.opened = system_opened,
	.finish = system_finish,
	.fill = system_fill,
	.release = system_release,
};
