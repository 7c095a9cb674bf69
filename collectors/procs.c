/*
 * procs: process births and their parents; see procs.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/procs.h"
#include "common/procstat.h"

struct birth {
	int32_t pid, ppid;
	uint64_t time;
};

/* Births in arrival order; a run's processes number in the thousands at
 * most (a make -j build), and each thread looks its own up once. */
struct procs {
	struct birth *v;
	size_t n, cap;
};

struct procs *procs_new(void)
{
	return calloc(1, sizeof(struct procs));
}

void procs_free(struct procs *p)
{
	if (!p)
		return;
	free(p->v);
	free(p);
}

int procs_add(struct procs *p, int32_t pid, int32_t ppid, uint64_t time)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct birth *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = (struct birth){ pid, ppid, time };
	return 0;
}

int procs_feed(struct procs *p, const struct perf_rec *rec)
{
	if (rec->type != PERF_RECORD_FORK || rec->u.task.pid != rec->u.task.tid)
		return 0;
	return procs_add(p, (int32_t)rec->u.task.pid, (int32_t)rec->u.task.ppid,
			 rec->u.task.time);
}

int32_t procs_parent(const struct procs *p, int32_t pid, uint64_t time)
{
	const struct birth *best = NULL, *first = NULL;
	for (size_t i = 0; i < p->n; i++) {
		const struct birth *b = &p->v[i];
		if (b->pid != pid)
			continue;
		if (!first || b->time < first->time)
			first = b;
		if (time && b->time <= time && (!best || b->time >= best->time))
			best = b;
	}
	best = best ? best : first;
	return best ? best->ppid : 0;
}

int32_t procs_read_parent(pid_t pid)
{
	struct proc_stat ps;
	if (proc_stat_read_pid(pid, 0, &ps) || ps.ppid < 0)
		return 0;
	return ps.ppid;
}
