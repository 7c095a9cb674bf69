/*
 * percpu: per-CPU counters scoped to the run's cgroup, with each switch's
 * difference given to the thread that ran; see percpu.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collectors/cpumask.h"
#include "collectors/percpu.h"
#include "common/cause.h"
#include "common/errtext.h"
#include "common/sysfile.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_READ)

/*
 * A reaped task's samples name no task (the kernel has detached its pid).
 * What still tells it apart is its kernel stack: each task has its own
 * while it lives, aligned to its size (16 KiB on x86-64 and arm64,
 * more with KASAN: a 16 KiB chunk is still one task's), and a switch
 * sample is taken on it (the kernel fills the sample's registers where
 * the switch happens, stack pointer included: perf_arch_fetch_caller_regs).
 * So every sample asks for the interrupted stack pointer
 * (PERF_SAMPLE_REGS_INTR, perf's register numbering in
 * arch/<arch>/include/uapi/asm/perf_regs.h); the chunk it points into is
 * learnt with the task's tid at every sample that is named (by its own
 * tid, or by the CPU's switch-in record once the task is reaped), and
 * names a reaped task's samples where no switch-in does. A stack goes to
 * a new task only after its task is gone, and every task's first sample
 * is named (it was switched in alive), so that sample teaches the
 * stack's new owner.
 * A kernel that refuses the registers (lockdown) gets the samplers
 * without them: a reaped task is then named by the switch records alone.
 */
#if defined(__x86_64__)
#define SP_REG 7		/* PERF_REG_X86_SP */
#elif defined(__aarch64__)
#define SP_REG 31		/* PERF_REG_ARM64_SP */
#endif
#ifdef SP_REG
#define SAMPLE_REGS (1ULL << SP_REG)
#define SAMPLE_REGS_TYPE PERF_SAMPLE_REGS_INTR
#else
#define SAMPLE_REGS 0ULL
#define SAMPLE_REGS_TYPE 0ULL
#endif
#define KSTACK_CHUNK 16384ull
#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | \
		     PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

/* One scheduling unit on one CPU: a switch sampler and its siblings. */
struct unit {
	int leader;
	int tick;		/* the group's tick sampler, or -1 */
	uint64_t tick_id;
	uint64_t leader_id;
	int *fds;		/* per member of the group's layout */
	uint64_t *ids;
	uint64_t *last;		/* each member's value at the last switch */
	uint64_t last_en, last_run;
};

/*
 * A slice of the workload on one CPU as the software group saw it: from
 * start to end on the CPU's cgroup clock (a group's time enabled, which
 * runs only while one of the workload's tasks is on the CPU, the same
 * clock for every group there), ended at time by a switch or, running,
 * a tick of (pid, tid). What a multiplexed hardware group counted is
 * shared out over them.
 */
struct slice {
	uint64_t start, end, time;
	int32_t pid, tid;
	bool running;
};

/* A CPU keeps at most this many slices: a hardware group samples at
 * least once a mux interval (perf_event_mux_interval_ms) unless it never
 * gets on the PMU, and then the oldest are dropped. */
#define SLICES_MAX 65536

struct cpu {
	int cpu;		/* the kernel's CPU number */
	struct unit *u;		/* ngroups of them */
	void *base;
	size_t map_len;
	uint64_t tail;		/* data_tail: what was copied out */
	/* What was copied out and not yet taken: each drain copies all the
	 * kernel has written and frees it at once, then takes the records
	 * older than its bound (counters.c holds the newest 40 ms back for
	 * the side-band), so the buffer need not hold those 40 ms. */
	uint8_t *q;
	size_t qoff, qlen, qcap;	/* the next record at q + qoff */
	int32_t cur_pid, cur_tid;	/* the last task switched in; tid <= 0:
					   not known */
	bool cur_named;		/* cur came from a switch record's own tid */
	int32_t dying, dying_pid;	/* cur, sampled reaped at this switch */
	struct stall_watch stall;	/* this CPU's switches' own records */
	uint64_t next;		/* the time of the next record to take */
	bool has_next;
	int *sfds;		/* per sampler (percpu_add_sampler) */
	uint64_t *sids;		/* their kernel ids */
	/* The slices since the hardware group that sampled longest ago
	 * last sampled, oldest first (kept only with hardware groups); the
	 * cgroup clock up to which some were not kept. */
	struct slice *sl;
	size_t nsl, capsl;
	uint64_t sl_lost;
};

/* Which events each group holds, the same on every CPU. */
struct layout {
	size_t n;
	size_t *ev;
};

struct percpu {
	const char *step;	/* what was being opened when it failed */
	const struct pmu_plan *plan;	/* borrowed; NULL: attrs as resolved */
	uint64_t tick_ns;	/* the software group's tick, or 0 */
	size_t nev;
	struct layout *groups;	/* 0: the software events; 1..: hardware */
	size_t ngroups;
	struct cpu *cpus;
	size_t ncpus;
	struct perf_rec_layout lay;
	size_t page_size, data_size;
	struct thread_count *deltas;
	long task_clock;	/* event index of task-clock, or -1 */
	struct percpu_health h;
	struct perf_event_attr side;	/* the side-band bits, if has_side */
	bool has_side;
	int cgroup_fd;		/* borrowed, for the samplers added later */
	struct perf_rec_layout *slay;	/* per sampler: its samples' layout */
	size_t nsamplers;
	const struct cpu *peeking;	/* the CPU whose record is decoded */
	/* Reaped tasks preempted before their last switch: the next
	 * switch-in that names no task is one of them (only when it is
	 * the one: with two, neither is guessed). */
	struct { int32_t pid, tid; } *pending;
	size_t npending, cap_pending;
	/* Each kernel stack chunk's last named task (open addressing, key
	 * 0 free): what names a reaped task's samples on any CPU. */
	struct kstack { uint64_t key; int32_t pid, tid; } *kstacks;
	size_t nkstacks, cap_kstacks;
	struct slice *parts;	/* a split's shares, and their lengths */
	uint64_t *lens;
	size_t cap_parts;
	struct thread_count *share;
	uint64_t sample_type;	/* the switch samplers': SAMPLE_TYPE, with
				   PERF_SAMPLE_REGS_INTR where allowed */
	bool opened;		/* a leader has opened: sample_type stands */
};

static size_t kstack_slot(const struct kstack *t, size_t cap, uint64_t key)
{
	size_t i = (size_t)((key / KSTACK_CHUNK) * 0x9e3779b97f4a7c15ull) & (cap - 1);
	while (t[i].key && t[i].key != key)
		i = (i + 1) & (cap - 1);
	return i;
}

/* The chunk key's task is (pid, tid) now. */
static void kstack_learn(struct percpu *p, uint64_t key, int32_t pid, int32_t tid)
{
	if (2 * (p->nkstacks + 1) > p->cap_kstacks) {
		size_t cap = p->cap_kstacks ? p->cap_kstacks * 2 : 256;
		struct kstack *t = calloc(cap, sizeof(*t));
		if (!t)
			return;	/* its reaped slices go by the switch records */
		for (size_t i = 0; i < p->cap_kstacks; i++)
			if (p->kstacks[i].key)
				t[kstack_slot(t, cap, p->kstacks[i].key)] = p->kstacks[i];
		free(p->kstacks);
		p->kstacks = t;
		p->cap_kstacks = cap;
	}
	struct kstack *e = &p->kstacks[kstack_slot(p->kstacks, p->cap_kstacks, key)];
	if (!e->key)
		p->nkstacks++;
	e->key = key;
	e->pid = pid;
	e->tid = tid;
}

/* The task last seen on chunk key, or tid 0. */
static int32_t kstack_find(const struct percpu *p, uint64_t key, int32_t *pid)
{
	if (!p->cap_kstacks)
		return 0;
	const struct kstack *e = &p->kstacks[kstack_slot(p->kstacks, p->cap_kstacks, key)];
	*pid = e->pid;
	return e->key ? e->tid : 0;
}

/* The kernel stack chunk a sample was taken on, or 0 (taken in user
 * mode, or no registers). */
static uint64_t kstack_of(const struct perf_rec *r)
{
	if (!r->u.sample.intr_abi || r->u.sample.nintr != 1)
		return 0;
	uint64_t sp = r->u.sample.intr_regs[0];
	return sp >> 63 ? sp & ~(KSTACK_CHUNK - 1) : 0;	/* kernel half */
}

static void dying_push(struct percpu *p, int32_t pid, int32_t tid)
{
	if (p->npending == p->cap_pending) {
		size_t cap = p->cap_pending ? p->cap_pending * 2 : 8;
		void *q = realloc(p->pending, cap * sizeof(*p->pending));
		if (!q)
			return;	/* its last switch goes unnamed */
		p->pending = q;
		p->cap_pending = cap;
	}
	p->pending[p->npending].pid = pid;
	p->pending[p->npending].tid = tid;
	p->npending++;
}

/* The one pending reaped task, taken; with none or several, tid 0 (and
 * several are all forgotten: which one runs cannot be told). */
static void dying_pop(struct percpu *p, int32_t *pid, int32_t *tid)
{
	*pid = *tid = 0;
	if (p->npending == 1) {
		*pid = p->pending[0].pid;
		*tid = p->pending[0].tid;
	}
	p->npending = 0;
}

static int sys_perf_event_open(struct perf_event_attr *attr, int pid, int cpu,
			       int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static void unit_close(struct unit *u, size_t n)
{
	for (size_t i = 0; u->fds && i < n; i++)
		if (u->fds[i] >= 0)
			close(u->fds[i]);
	if (u->leader >= 0)
		close(u->leader);
	if (u->tick >= 0)
		close(u->tick);
	free(u->fds);
	free(u->ids);
	free(u->last);
	memset(u, 0, sizeof(*u));
	u->leader = -1;
	u->tick = -1;
}

void percpu_free(struct percpu *p)
{
	if (!p)
		return;
	for (size_t c = 0; c < p->ncpus; c++) {
		struct cpu *cp = &p->cpus[c];
		for (size_t g = 0; cp->u && g <= p->nev; g++)
			unit_close(&cp->u[g], g < p->ngroups ? p->groups[g].n : 0);
		for (size_t i = 0; cp->sfds && i < p->nsamplers; i++)
			if (cp->sfds[i] >= 0)
				close(cp->sfds[i]);
		free(cp->sfds);
		free(cp->sids);
		free(cp->u);
		free(cp->q);
		free(cp->sl);
		if (cp->base)
			munmap(cp->base, cp->map_len);
	}
	for (size_t g = 0; g < p->ngroups; g++)
		free(p->groups[g].ev);
	free(p->groups);
	free(p->cpus);
	free(p->pending);
	free(p->kstacks);
	free(p->deltas);
	free(p->share);
	free(p->parts);
	free(p->lens);
	free(p->slay);
	free(p);
}

static void fill_common(const struct percpu *p, struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->read_format = READ_FORMAT;
	a->sample_type = p->sample_type;
	a->sample_regs_intr = p->sample_type & PERF_SAMPLE_REGS_INTR ? SAMPLE_REGS : 0;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

/* A group's leader on one CPU: the context-switch sampler. The software
 * group's leader also asks for the switch records. */
static int open_leader(struct percpu *p, int cgroup_fd, int cpu, bool switches)
{
	const struct perf_event_attr *side = p->has_side ? &p->side : NULL;
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	a.sample_period = 1;
	fill_common(p, &a);
	a.disabled = 1;
	a.context_switch = switches;
	if (switches) {
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)(p->data_size / 4);
	}
	if (switches && side) {
		a.comm = side->comm;
		a.comm_exec = side->comm_exec;
		a.task = side->task;
		a.mmap = side->mmap;
		a.mmap2 = side->mmap2;
		a.mmap_data = side->mmap_data;
		a.build_id = side->build_id;
	}
	int fd = sys_perf_event_open(&a, cgroup_fd, cpu, -1,
				     PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && a.build_id) {	/* before 5.12 */
		a.build_id = 0;
		fd = sys_perf_event_open(&a, cgroup_fd, cpu, -1,
					 PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0 && !p->opened && (a.sample_type & PERF_SAMPLE_REGS_INTR) &&
	    errno != EMFILE && errno != ENOENT) {
		/* the registers refused (lockdown): every sampler goes
		 * without, decided on the very first */
		p->sample_type &= ~(uint64_t)PERF_SAMPLE_REGS_INTR;
		p->lay.sample_type = p->sample_type;
		p->lay.regs_intr_mask = 0;
		return open_leader(p, cgroup_fd, cpu, switches);
	}
	if (fd >= 0)
		p->opened = true;
	return fd < 0 ? -errno : fd;
}

/*
 * The attr of event i on CPU cpu: as resolved, or where the plan splits
 * the events over core PMUs (hybrid), the part of that CPU's PMU; NULL
 * when no part serves that CPU (a raw event of the other core type).
 */
static const struct perf_event_attr *attr_on(const struct percpu *p,
					     const struct event_desc *ev,
					     size_t i, int cpu)
{
	if (!pmu_plan_split(p->plan))
		return &ev[i].attr;
	for (size_t k = 0; k < p->plan->nattrs; k++)
		if (p->plan->attrs[k].event == i && pmu_plan_on_cpu(p->plan, k, cpu))
			return &p->plan->attrs[k].attr;
	return NULL;
}

static int open_member(const struct percpu *p, const struct perf_event_attr *attr,
		       int cgroup_fd, int cpu, int leader)
{
	if (!attr)
		return -ENODEV;
	struct perf_event_attr a = *attr;
	fill_common(p, &a);
	a.sample_type = 0;
	a.sample_regs_intr = 0;
	a.sample_id_all = 0;
	a.sample_period = 0;
	a.freq = 0;
	a.inherit = 0;
	a.inherit_stat = 0;
	a.disabled = 0;
	a.enable_on_exec = 0;
	int fd = sys_perf_event_open(&a, cgroup_fd, cpu, leader,
				     PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Group g's tick: cpu-clock, sampling every tick_ns with the group's
 * values (any member's sample reads the whole group; in a hardware group
 * it counts only while the group is on the PMU). */
static int open_tick(struct percpu *p, struct cpu *cp, size_t g, int cgroup_fd)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = p->tick_ns;
	fill_common(p, &a);
	p->step = "the tick sampler";
	int fd = sys_perf_event_open(&a, cgroup_fd, cp->cpu, cp->u[g].leader,
				     PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	cp->u[g].tick = fd;
	return ioctl(fd, PERF_EVENT_IOC_ID, &cp->u[g].tick_id) ? -errno : 0;
}

static int unit_add(struct unit *u, size_t n, int fd)
{
	int *f = realloc(u->fds, (n + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	u->fds = f;
	uint64_t *ids = realloc(u->ids, (n + 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	u->ids = ids;
	uint64_t *l = realloc(u->last, (n + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	u->last = l;
	u->fds[n] = fd;
	u->last[n] = 0;
	u->ids[n] = 0;
	/* fd -1: not counted on this CPU (no part of its PMU); id 0 is
	 * no event's, so its samples carry nothing for it. */
	return fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ID, &u->ids[n]) ? -errno : 0;
}

static int layout_add(struct layout *l, size_t ev)
{
	size_t *p = realloc(l->ev, (l->n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	l->ev = p;
	l->ev[l->n++] = ev;
	return 0;
}

/* Open unit g's leader on one CPU (cp->u holds nev + 1 units). */
static int open_unit(struct percpu *p, struct cpu *cp, size_t g, int cgroup_fd)
{
	struct unit *u = &cp->u[g];
	p->step = "the context-switch sampler";
	int fd = open_leader(p, cgroup_fd, cp->cpu, g == 0);
	if (fd < 0)
		return fd;
	u->leader = fd;
	return ioctl(fd, PERF_EVENT_IOC_ID, &u->leader_id) ? -errno : 0;
}

/* A new group, on the first CPU. */
static int add_group(struct percpu *p, struct cpu *cp, int cgroup_fd)
{
	struct layout *gl = realloc(p->groups, (p->ngroups + 1) * sizeof(*gl));
	if (!gl)
		return -ENOMEM;
	p->groups = gl;
	memset(&gl[p->ngroups], 0, sizeof(*gl));
	p->ngroups++;
	return open_unit(p, cp, p->ngroups - 1, cgroup_fd);
}

/*
 * On the first CPU: decide what counts and how the hardware events are
 * grouped, as the per-task path does (a hardware event that does not fit
 * the current group leads a new one).
 */
static int decide(struct percpu *p, const struct event_desc *ev, const bool *skip,
		  int cgroup_fd, int *err, int *group)
{
	struct cpu *cp = &p->cpus[0];
	int rc = add_group(p, cp, cgroup_fd);
	if (rc)
		return rc;
	for (size_t i = 0; i < p->nev; i++) {
		err[i] = EOPNOTSUPP;
		group[i] = 0;
		if (skip[i] || ev[i].hardware)
			continue;
		int fd = open_member(p, attr_on(p, ev, i, cp->cpu), cgroup_fd,
				     cp->cpu, cp->u[0].leader);
		if (fd < 0) {
			err[i] = -fd;
			continue;
		}
		if ((rc = unit_add(&cp->u[0], p->groups[0].n, fd)) ||
		    (rc = layout_add(&p->groups[0], i)))
			return rc;
		err[i] = 0;
	}
	for (size_t i = 0; i < p->nev; i++) {
		if (skip[i] || !ev[i].hardware)
			continue;
		size_t g = p->ngroups - 1;
		if (g == 0) {
			if ((rc = add_group(p, cp, cgroup_fd)))
				return rc;
			g++;
		}
		int fd = open_member(p, attr_on(p, ev, i, cp->cpu), cgroup_fd,
				     cp->cpu, cp->u[g].leader);
		if ((fd == -EINVAL || fd == -ENOSPC) && p->groups[g].n) {
			if ((rc = add_group(p, cp, cgroup_fd)))
				return rc;
			g++;
			fd = open_member(p, attr_on(p, ev, i, cp->cpu), cgroup_fd,
						 cp->cpu, cp->u[g].leader);
		}
		if (fd < 0) {
			err[i] = -fd;
			continue;
		}
		if ((rc = unit_add(&cp->u[g], p->groups[g].n, fd)) ||
		    (rc = layout_add(&p->groups[g], i)))
			return rc;
		err[i] = 0;
		group[i] = (int)g;
	}
	/* A hardware group whose every event was refused leads nothing. */
	if (p->ngroups > 1 && p->groups[p->ngroups - 1].n == 0) {
		unit_close(&cp->u[p->ngroups - 1], 0);
		p->ngroups--;
	}
	for (size_t g = 0; p->tick_ns && g < p->ngroups; g++)
		if ((rc = open_tick(p, cp, g, cgroup_fd)))
			return rc;
	return 0;
}

/* Every other CPU: the same groups, or the path fails. */
static int replicate(struct percpu *p, const struct event_desc *ev,
		     struct cpu *cp, int cgroup_fd)
{
	int rc = 0;
	for (size_t g = 0; g < p->ngroups && !rc; g++) {
		const struct layout *l = &p->groups[g];
		rc = open_unit(p, cp, g, cgroup_fd);
		for (size_t k = 0; k < l->n && !rc; k++) {
			p->step = ev[l->ev[k]].name;
			const struct perf_event_attr *a = attr_on(p, ev, l->ev[k], cp->cpu);
			int fd = a ? open_member(p, a, cgroup_fd, cp->cpu,
						 cp->u[g].leader) : -1;
			rc = a && fd < 0 ? fd : unit_add(&cp->u[g], k, fd);
		}
		if (!rc && p->tick_ns)
			rc = open_tick(p, cp, g, cgroup_fd);
	}
	return rc;
}

static int map_buffer(struct percpu *p, struct cpu *cp)
{
	p->step = "the buffer";
	cp->map_len = p->page_size + p->data_size;
	cp->base = mmap(NULL, cp->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			cp->u[0].leader, 0);
	if (cp->base == MAP_FAILED) {
		cp->base = NULL;
		return -errno;
	}
	/* Every sampler of every group writes here: a group member's own
	 * samples (the ticks) go to its own buffer, which it has none of,
	 * unless sent here (until this, ticks were lost and a thread that
	 * ran without a switch was seen only at its next switch). */
	for (size_t g = 0; g < p->ngroups; g++) {
		if (g > 0 && ioctl(cp->u[g].leader, PERF_EVENT_IOC_SET_OUTPUT,
				   cp->u[0].leader))
			return -errno;
		if (cp->u[g].tick >= 0 &&
		    ioctl(cp->u[g].tick, PERF_EVENT_IOC_SET_OUTPUT, cp->u[0].leader))
			return -errno;
	}
	return 0;
}

static int online_cpus(struct cpumask *m)
{
	char buf[4096];
	int rc = sysfile_line("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (rc < 0)
		return rc;
	return rc == 0 && cpumask_parse(m, buf, NULL) == 0 && !cpumask_empty(m) ? 0 : -EINVAL;
}

struct percpu *percpu_open(const struct event_desc *events, size_t nevents,
			   const struct pmu_plan *plan,
			   const bool *skip, int cgroup_fd, size_t pages,
			   uint64_t tick_ns, const struct perf_event_attr *side,
			   int *err, int *group, char **cause)
{
	struct cpumask online;
	int rc = online_cpus(&online);
	if (rc) {
		cause_set(cause, -rc, "cannot read the online CPUs: %s", ERR_TEXT(-rc));
		errno = -rc;
		return NULL;
	}
	struct percpu *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->nev = nevents;
	p->plan = plan;
	p->tick_ns = tick_ns;
	p->cgroup_fd = cgroup_fd;
	if (side) {
		p->side = *side;
		p->has_side = true;
	}
	p->task_clock = -1;
	for (size_t i = 0; i < nevents; i++)
		if (p->task_clock < 0 && !skip[i] &&
		    events[i].attr.type == PERF_TYPE_SOFTWARE &&
		    events[i].attr.config == PERF_COUNT_SW_TASK_CLOCK)
			p->task_clock = (long)i;
	p->page_size = (size_t)sysconf(_SC_PAGESIZE);
	p->data_size = (pages ? pages : 256) * p->page_size;
	p->sample_type = SAMPLE_TYPE | SAMPLE_REGS_TYPE;
	p->lay.sample_type = p->sample_type;
	p->lay.regs_intr_mask = SAMPLE_REGS;
	p->lay.read_format = READ_FORMAT;
	p->deltas = calloc(nevents ? nevents : 1, sizeof(*p->deltas));
	p->share = calloc(nevents ? nevents : 1, sizeof(*p->share));
	p->cpus = calloc(cpumask_count(&online), sizeof(*p->cpus));
	if (!p->deltas || !p->share || !p->cpus) {
		rc = -ENOMEM;
		goto fail;
	}
	for (int c = cpumask_first(&online); c >= 0; c = cpumask_next(&online, c)) {
		struct cpu *cp = &p->cpus[p->ncpus++];
		cp->cpu = c;
		cp->u = calloc(nevents + 1, sizeof(*cp->u));
		if (!cp->u) {
			rc = -ENOMEM;
			goto fail;
		}
		for (size_t g = 0; g <= nevents; g++)
			cp->u[g].leader = cp->u[g].tick = -1;
		rc = p->ncpus == 1 ? decide(p, events, skip, cgroup_fd, err, group)
				   : replicate(p, events, cp, cgroup_fd);
		if (!rc)
			rc = map_buffer(p, cp);
		if (rc) {
			if (rc == -EACCES || rc == -EPERM)
				cause_set(cause, -rc, "counting per CPU is not allowed "
					  "here (perf_event_paranoid above 0 without "
					  "CAP_PERFMON)");
			else if (rc == -ENOENT && p->step && !strcmp(p->step,
						"the context-switch sampler"))
				/* Measured on Debian 12's 6.1 and 6.12 (not on
				 * 6.18): a new cgroup gets its perf_event state
				 * only once an ancestor's cgroup.subtree_control
				 * has been written, as systemd does at boot. */
				cause_set(cause, -rc, "the run's cgroup cannot count "
					  "perf events: no cgroup above it has had "
					  "cgroup.subtree_control written (this kernel "
					  "then gives new cgroups no perf_event state)\n"
					  "hint: as root, echo +pids > "
					  "/sys/fs/cgroup/cgroup.subtree_control (systemd "
					  "does so at boot)");
			else if (rc == -ENOMEM && !cp->base && p->ncpus)
				cause_set(cause, -rc, "cannot map a %zu KiB buffer "
					  "for CPU %d", p->data_size / 1024, c);
			else
				cause_set(cause, -rc, "cannot open %s on CPU %d in the "
					  "run's cgroup: %s", p->step ? p->step : "the events",
					  c, ERR_TEXT(-rc));
			goto fail;
		}
	}
	for (size_t c = 0; c < p->ncpus; c++)
		for (size_t g = 0; g < p->ngroups; g++)
			if (ioctl(p->cpus[c].u[g].leader, PERF_EVENT_IOC_ENABLE, 0)) {
				rc = -errno;
				cause_set(cause, -rc, "cannot start counting on CPU %d: %s",
					  p->cpus[c].cpu, ERR_TEXT(-rc));
				goto fail;
			}
	p->h.cpus = p->ncpus;
	return p;
fail:
	percpu_free(p);
	errno = -rc;
	return NULL;
}

/* The bits every sampler's records carry, the leaders' trailer layout. */
#define SAMPLER_ID_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

int percpu_add_sampler(struct percpu *p, const struct perf_event_attr *attr,
		       bool *user_only, char **cause)
{
	struct perf_event_attr a = *attr;
	a.size = sizeof(a);
	a.sample_type = (a.sample_type & ~(uint64_t)(PERF_SAMPLE_ID |
		PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_READ)) | SAMPLER_ID_TYPE;
	a.read_format = 0;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.inherit = 0;
	a.inherit_stat = 0;
	a.enable_on_exec = 0;
	a.disabled = 0;		/* the workload is not running yet */
	a.watermark = 0;
	a.wakeup_events = 0;
	*user_only = false;
	struct perf_rec_layout *l = realloc(p->slay, (p->nsamplers + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	p->slay = l;
	for (size_t c = 0; c < p->ncpus; c++) {
		struct cpu *cp = &p->cpus[c];
		int *f = realloc(cp->sfds, (p->nsamplers + 1) * sizeof(*f));
		if (f)
			cp->sfds = f;
		uint64_t *ids = realloc(cp->sids, (p->nsamplers + 1) * sizeof(*ids));
		if (ids)
			cp->sids = ids;
		if (!f || !ids)
			goto nomem;
		cp->sfds[p->nsamplers] = -1;
		cp->sids[p->nsamplers] = 0;
	}
	int rc = 0;
	for (size_t c = 0; c < p->ncpus && !rc; c++) {
		struct cpu *cp = &p->cpus[c];
		int fd = sys_perf_event_open(&a, p->cgroup_fd, cp->cpu, -1,
					     PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && c == 0 && (errno == EACCES || errno == EPERM) &&
		    !a.exclude_kernel) {
			a.exclude_kernel = 1;	/* as the per-task path retries */
			a.exclude_hv = 1;
			fd = sys_perf_event_open(&a, p->cgroup_fd, cp->cpu, -1,
						 PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
			*user_only = fd >= 0;
		}
		if (fd < 0) {
			rc = -errno;
			if (c > 0)
				cause_set(cause, -rc, "cannot open the sampler on CPU %d "
					  "in the run's cgroup: %s", cp->cpu, ERR_TEXT(-rc));
			break;
		}
		cp->sfds[p->nsamplers] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, cp->u[0].leader) ||
		    ioctl(fd, PERF_EVENT_IOC_ID, &cp->sids[p->nsamplers])) {
			rc = -errno;
			cause_set(cause, -rc, "cannot write the sampler into CPU %d's "
				  "buffer: %s", cp->cpu, ERR_TEXT(-rc));
		}
	}
	if (rc) {
		for (size_t c = 0; c < p->ncpus; c++)
			if (p->cpus[c].sfds[p->nsamplers] >= 0)
				close(p->cpus[c].sfds[p->nsamplers]);
		return rc;
	}
	p->slay[p->nsamplers].sample_type = a.sample_type;
	p->slay[p->nsamplers].read_format = 0;
	p->slay[p->nsamplers].regs_user_mask = a.sample_regs_user;
	p->nsamplers++;
	return 0;
nomem:
	return -ENOMEM;
}

uint64_t percpu_sampler_id(const struct percpu *p, size_t cpu, size_t i)
{
	return cpu < p->ncpus && i < p->nsamplers ? p->cpus[cpu].sids[i] : 0;
}

const struct perf_rec_layout *percpu_sampler_layout(const struct percpu *p, size_t i)
{
	return i < p->nsamplers ? &p->slay[i] : NULL;
}

/* a * b / c, rounded down, for b <= c (no overflow in the result). */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	if (!c)
		return 0;
#ifdef __SIZEOF_INT128__
	return (uint64_t)((unsigned __int128)a * b / c);
#else
	return (uint64_t)((long double)a * b / c);
#endif
}

/* The share of d[n] from before to upto of total (the running sums of
 * the parts' lengths). */
static void share_of(const struct thread_count *d, size_t n, uint64_t before,
		     uint64_t upto, uint64_t total, struct thread_count *out)
{
	for (size_t e = 0; e < n; e++) {
		out[e].present = d[e].present;
		if (!d[e].present || !total) {
			out[e].value = out[e].enabled = out[e].running = 0;
			continue;
		}
		out[e].value = mul_div(d[e].value, upto, total) -
			       mul_div(d[e].value, before, total);
		out[e].enabled = mul_div(d[e].enabled, upto, total) -
				 mul_div(d[e].enabled, before, total);
		out[e].running = mul_div(d[e].running, upto, total) -
				 mul_div(d[e].running, before, total);
	}
}

void percpu_share(const struct thread_count *d, size_t n, const uint64_t *len,
		  size_t nparts, size_t i, struct thread_count *out)
{
	uint64_t total = 0, before = 0;
	for (size_t k = 0; k < nparts; k++) {
		total += len[k];
		if (k < i)
			before += len[k];
	}
	share_of(d, n, before, i < nparts ? before + len[i] : total, total, out);
}

/* The oldest cgroup-clock time some hardware group of cp has not
 * sampled past: slices ending there or before are done with. */
static uint64_t slices_done(const struct percpu *p, const struct cpu *cp)
{
	uint64_t done = UINT64_MAX;
	for (size_t g = 1; g < p->ngroups; g++)
		if (cp->u[g].last_en < done)
			done = cp->u[g].last_en;
	return done;
}

/*
 * The software group's sample ended a slice of (pid, tid) from start to
 * end on cp's cgroup clock: keep it while a hardware group may have to
 * share its counts over it. Out of memory, or past SLICES_MAX, the oldest
 * go, and the spans over them are not split (mux_unsplit).
 */
static void slice_add(struct percpu *p, struct cpu *cp, uint64_t start,
		      uint64_t end, int32_t pid, int32_t tid, uint64_t time,
		      bool running)
{
	if (end <= start)
		return;
	if (tid <= 0) {
		pid = cp->cur_pid;
		tid = cp->cur_tid;
	}
	uint64_t done = slices_done(p, cp);
	size_t drop = 0;
	while (drop < cp->nsl && cp->sl[drop].end <= done)
		drop++;
	if (cp->nsl - drop >= SLICES_MAX)
		drop = cp->nsl / 2;
	if (cp->nsl == cp->capsl && !drop) {
		size_t cap = cp->capsl ? cp->capsl * 2 : 64;
		struct slice *sl = realloc(cp->sl, cap * sizeof(*sl));
		if (sl) {
			cp->sl = sl;
			cp->capsl = cap;
		} else {
			drop = cp->nsl;
		}
	}
	if (drop) {
		if (cp->sl[drop - 1].end > cp->sl_lost && cp->sl[drop - 1].end > done)
			cp->sl_lost = cp->sl[drop - 1].end;
		memmove(cp->sl, cp->sl + drop, (cp->nsl - drop) * sizeof(*cp->sl));
		cp->nsl -= drop;
	}
	if (cp->nsl == cp->capsl) {	/* no memory even for this one */
		cp->sl_lost = end;
		return;
	}
	cp->sl[cp->nsl++] = (struct slice){ start, end, time, pid, tid, running };
}

/* Room for n parts of a split. */
static bool parts_room(struct percpu *p, size_t n)
{
	if (n <= p->cap_parts)
		return true;
	size_t cap = p->cap_parts ? p->cap_parts : 16;
	while (cap < n)
		cap *= 2;
	struct slice *s = realloc(p->parts, cap * sizeof(*s));
	if (s)
		p->parts = s;
	uint64_t *l = realloc(p->lens, cap * sizeof(*l));
	if (l)
		p->lens = l;
	if (!s || !l)
		return false;
	p->cap_parts = cap;
	return true;
}

/*
 * A hardware group that was off the PMU for part of its span (from, to]
 * on cp's cgroup clock: share its deltas (p->deltas) over the slices that
 * ran there, each by its length, and give each share to the slice's
 * thread at the slice's end. Past the last slice seen (the software
 * group's sample of this same switch may come after this one) is the
 * sample's own thread's. false, nothing given: one slice only (the
 * thread it was is the sample's), or the slices were not kept.
 */
static bool mux_split(struct percpu *p, struct cpu *cp, uint64_t from,
		      uint64_t to, int32_t pid, int32_t tid, uint64_t time,
		      bool running, percpu_fn fn, void *arg)
{
	if (cp->sl_lost > from) {
		p->h.mux_unsplit++;
		return false;
	}
	size_t n = 0, k = 0;
	while (k < cp->nsl && cp->sl[k].end <= from)
		k++;
	uint64_t at = from;
	for (; k < cp->nsl && cp->sl[k].start < to; k++) {
		const struct slice *s = &cp->sl[k];
		uint64_t lo = s->start > at ? s->start : at;
		uint64_t hi = s->end < to ? s->end : to;
		if (hi <= lo)
			continue;
		if (!parts_room(p, n + 1)) {
			p->h.mux_unsplit++;
			return false;
		}
		p->parts[n] = *s;
		p->lens[n++] = hi - lo;
		at = hi;
	}
	if (to > at) {
		if (!parts_room(p, n + 1)) {
			p->h.mux_unsplit++;
			return false;
		}
		p->parts[n] = (struct slice){ at, to, time, pid, tid, running };
		if (tid <= 0) {
			p->parts[n].pid = cp->cur_pid;
			p->parts[n].tid = cp->cur_tid;
		}
		p->lens[n++] = to - at;
	}
	if (n < 2)
		return false;
	p->h.mux_split++;
	p->h.mux_parts += n;
	/* as percpu_share, the sums kept: a ping-pong puts hundreds of
	 * slices in one mux interval */
	uint64_t total = 0, before = 0;
	for (size_t i = 0; i < n; i++)
		total += p->lens[i];
	for (size_t i = 0; i < n; i++) {
		const struct slice *s = &p->parts[i];
		share_of(p->deltas, p->nev, before, before + p->lens[i], total, p->share);
		before += p->lens[i];
		if (s->tid <= 0) {
			p->h.unattributed++;
			continue;
		}
		fn(s->pid, s->tid, s->time, cp->cpu, p->share, s->running, arg);
	}
	return true;
}

/* Give what one unit counted since the last switch to (pid, tid); a
 * multiplexed hardware group's, over the slices that ran meanwhile. */
static void settle(struct percpu *p, struct cpu *cp, size_t g, int32_t pid,
		   int32_t tid, uint64_t time, const uint64_t *vals,
		   const uint64_t *ids, size_t stride, size_t nr, uint64_t en,
		   uint64_t run, bool running, percpu_fn fn, void *arg)
{
	struct unit *u = &cp->u[g];
	const struct layout *l = &p->groups[g];
	memset(p->deltas, 0, p->nev * sizeof(*p->deltas));
	uint64_t den = en - u->last_en, drun = run - u->last_run;
	uint64_t from = u->last_en;
	if (g == 0 && p->ngroups > 1)
		slice_add(p, cp, from, en, pid, tid, time, running);
	u->last_en = en;
	u->last_run = run;
	bool any = false;
	for (size_t k = 0; k < l->n; k++) {
		for (size_t j = 0; j < nr; j++) {
			if (ids[j * stride] != u->ids[k])
				continue;
			struct thread_count *d = &p->deltas[l->ev[k]];
			d->value = vals[j * stride] - u->last[k];
			d->enabled = den;
			d->running = drun;
			d->present = true;
			u->last[k] = vals[j * stride];
			any = true;
			break;
		}
	}
	if (!any)
		return;
	if (g > 0 && drun < den &&
	    mux_split(p, cp, from, en, pid, tid, time, running, fn, arg))
		return;

	if (tid <= 0) {
		pid = cp->cur_pid;
		tid = cp->cur_tid;
	}
	if (tid <= 0) {
		p->h.unattributed++;
		if (p->task_clock >= 0 && p->deltas[p->task_clock].present)
			p->h.unattributed_ns += p->deltas[p->task_clock].value;
		return;
	}
	fn(pid, tid, time, cp->cpu, p->deltas, running, arg);
}

static size_t unit_of(const struct percpu *p, const struct cpu *cp, uint64_t id)
{
	for (size_t g = 0; g < p->ngroups; g++)
		if (cp->u[g].leader_id == id)
			return g;
	return p->ngroups;
}

/* The sampler whose id on cp is id, or nsamplers. */
static size_t sampler_of(const struct percpu *p, const struct cpu *cp, uint64_t id)
{
	size_t i = 0;
	while (i < p->nsamplers && cp->sids[i] != id)
		i++;
	return i;
}

static const struct perf_rec_layout *sampler_layout(uint64_t id, void *arg)
{
	const struct percpu *p = arg;
	size_t i = p->peeking ? sampler_of(p, p->peeking, id) : p->nsamplers;
	return i < p->nsamplers ? &p->slay[i] : NULL;
}

/*
 * Copy what the kernel has written to cp's buffer since the last copy
 * onto cp's queue, and give the space back. 0, or -ENOMEM (the records
 * stay in the buffer for the next try).
 */
static int copy_out(struct percpu *p, struct cpu *cp)
{
	struct perf_event_mmap_page *mp = cp->base;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	size_t n = (size_t)(head - cp->tail);
	if (!n)
		return 0;
	if (cp->qoff && (cp->qoff == cp->qlen || cp->qlen + n > cp->qcap)) {
		/* what was taken makes room first */
		memmove(cp->q, cp->q + cp->qoff, cp->qlen - cp->qoff);
		cp->qlen -= cp->qoff;
		cp->qoff = 0;
	}
	if (cp->qlen + n > cp->qcap) {
		size_t cap = cp->qcap ? cp->qcap : 65536;
		while (cap < cp->qlen + n)
			cap *= 2;
		uint8_t *q = realloc(cp->q, cap);
		if (!q)
			return -ENOMEM;
		cp->q = q;
		cp->qcap = cap;
	}
	const uint8_t *data = (const uint8_t *)cp->base + p->page_size;
	size_t mask = p->data_size - 1, at = (size_t)(cp->tail & mask);
	size_t first = n < p->data_size - at ? n : p->data_size - at;
	memcpy(cp->q + cp->qlen, data + at, first);
	memcpy(cp->q + cp->qlen + first, data, n - first);
	cp->qlen += n;
	cp->tail = head;
	__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Decode the record at cp's read position (of what was copied out) into
 * r. Returns its size, 0 when there is none, or -size for one that does
 * not decode.
 */
static int peek(struct percpu *p, struct cpu *cp, struct perf_rec *r)
{
	size_t avail = cp->qlen - cp->qoff;
	struct perf_event_header h;
	if (avail < sizeof(h))
		return 0;
	const uint8_t *rec = cp->q + cp->qoff;
	memcpy(&h, rec, sizeof(h));
	if (h.size < sizeof(h) || h.size > avail)
		return 0;
	p->peeking = cp;
	if (perf_rec_decode(rec, h.size, &p->lay, sampler_layout, p, r) != 0)
		return -(int)h.size;
	return (int)h.size;
}

static uint64_t rec_time(const struct perf_rec *r)
{
	return r->type == PERF_RECORD_SAMPLE ? r->u.sample.time : r->sid.time;
}

/*
 * A sample that names no task: a reaped one, still running. The task the
 * last switch record named here is it; where the switch-in named no task
 * (it was reaped when it ran again), the kernel stack the sample was
 * taken on names it. Left at tid 0 when neither tells (settle then goes
 * by the switch records, a guess among the preempted reaped tasks).
 */
static void name_reaped(struct percpu *p, struct cpu *cp, const struct perf_rec *r,
			int32_t *pid, int32_t *tid)
{
	uint64_t ks = kstack_of(r);
	int32_t fpid = 0, ftid;
	if (cp->cur_tid > 0 && cp->cur_named) {
		*pid = cp->cur_pid;
		*tid = cp->cur_tid;
		if (ks)		/* its first reaped sample may be its first */
			kstack_learn(p, ks, *pid, *tid);
	} else if (ks && (ftid = kstack_find(p, ks, &fpid)) > 0) {
		*pid = fpid;
		*tid = ftid;
		p->h.reaped_by_stack++;
	} else {
		return;
	}
	cp->dying = *tid;
	cp->dying_pid = *pid;
}

/*
 * A sampler's sample: to side, in order with the switches. A reaped
 * task's sample names no task; the CPU's last switch-in does.
 */
static void take_sample(struct percpu *p, struct cpu *cp, const struct perf_rec *r,
			percpu_side_fn side, void *arg)
{
	p->h.sampled++;
	if (!side)
		return;
	if ((int32_t)r->u.sample.tid > 0 || cp->cur_tid <= 0) {
		side(r, arg);
		return;
	}
	struct perf_rec named = *r;
	named.u.sample.pid = (uint32_t)cp->cur_pid;
	named.u.sample.tid = (uint32_t)cp->cur_tid;
	side(&named, arg);
}

/* Take one decoded record of cp's. */
static void take(struct percpu *p, struct cpu *cp, const struct perf_rec *r,
		 percpu_fn fn, percpu_side_fn side, void *arg)
{
	switch (r->type) {
	case PERF_RECORD_LOST:
		p->h.lost += r->u.lost.lost;
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (r->misc & PERF_RECORD_MISC_SWITCH_OUT)
			stall_out(&cp->stall, &p->h.stalls, r->sid.time,
				  (int32_t)r->u.sw.next_prev_tid);
		else
			stall_in(&cp->stall, &p->h.stalls, r->sid.time, (int32_t)r->sid.tid);
		if (r->misc & PERF_RECORD_MISC_SWITCH_OUT) {
			/* A reaped task that was only preempted runs again
			 * (on whichever CPU): its switch-in will name no tid. */
			if (cp->dying > 0 && (r->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT))
				dying_push(p, cp->dying_pid, cp->dying);
			cp->dying = 0;
		} else {
			cp->cur_pid = (int32_t)r->sid.pid;
			cp->cur_tid = (int32_t)r->sid.tid;
			cp->cur_named = cp->cur_tid > 0;
			if (cp->cur_tid <= 0)
				dying_pop(p, &cp->cur_pid, &cp->cur_tid);
			/* It runs from here: no deltas, its values as they
			 * were, which frames take as where a run starts. */
			if (cp->cur_tid > 0)
				fn(cp->cur_pid, cp->cur_tid, r->sid.time, cp->cpu, NULL, true, arg);
		}
		break;
	case PERF_RECORD_SAMPLE: {
		if (p->nsamplers && sampler_of(p, cp, r->u.sample.identifier) <
				    p->nsamplers) {
			take_sample(p, cp, r, side, arg);
			break;
		}
		/* Only this CPU's leaders write here, but the sample's own
		 * id can be another event's: on 6.18 a task sampler of the
		 * same software event (--frames) fired in the same switch
		 * left its id in the sample (the kernel fills a sample's id
		 * once for every event of a software event's list). The read
		 * values carry each member's own id: the leader's comes
		 * first. */
		if (!r->u.sample.read_vals || !r->u.sample.read_has_id ||
		    !r->u.sample.read_nr) {
			p->h.undecodable++;
			break;
		}
		size_t g = unit_of(p, cp, r->u.sample.read_vals[1]);
		if (g == p->ngroups) {
			p->h.undecodable++;
			break;
		}
		if (r->u.sample.identifier != cp->u[g].leader_id)
			p->h.foreign++;
		p->h.samples++;
		if (r->u.sample.identifier != cp->u[g].tick_id)
			stall_sample(&cp->stall, r->u.sample.time);
		if (g == 0 && r->u.sample.identifier != cp->u[g].tick_id)
			p->h.switches++;
		int32_t pid = (int32_t)r->u.sample.pid, tid = (int32_t)r->u.sample.tid;
		uint64_t ks;
		if (tid <= 0)
			name_reaped(p, cp, r, &pid, &tid);
		else if ((ks = kstack_of(r)))
			kstack_learn(p, ks, pid, tid);
		settle(p, cp, g, pid, tid, r->u.sample.time,
		       r->u.sample.read_vals, r->u.sample.read_vals + 1,
		       r->u.sample.read_stride, r->u.sample.read_nr,
		       r->u.sample.read_enabled, r->u.sample.read_running,
		       r->u.sample.identifier == cp->u[g].tick_id, fn, arg);
		break;
	}
	default:
		if (side)
			side(r, arg);
		break;
	}
}

/*
 * Every CPU's records up to until, in time order across the CPUs: a
 * reaped task's switch-out on one CPU comes before its switch-in on
 * another.
 */
int percpu_drain(struct percpu *p, uint64_t until_ns, percpu_fn fn,
		 percpu_side_fn side, void *arg)
{
	struct perf_rec r;
	for (size_t c = 0; c < p->ncpus; c++) {
		struct cpu *cp = &p->cpus[c];
		/* Out of memory for the queue: the records stay in the
		 * kernel's buffer for the next drain, and where it fills
		 * meanwhile the kernel's LOST records say so. */
		(void)copy_out(p, cp);
		int n = peek(p, cp, &r);
		while (n < 0) {		/* not decodable: passed over */
			p->h.undecodable++;
			cp->qoff += (size_t)-n;
			n = peek(p, cp, &r);
		}
		cp->has_next = n > 0;
		cp->next = n > 0 && r.type != PERF_RECORD_LOST ? rec_time(&r) : 0;
	}
	for (;;) {
		struct cpu *best = NULL;
		for (size_t c = 0; c < p->ncpus; c++)
			if (p->cpus[c].has_next && p->cpus[c].next <= until_ns &&
			    (!best || p->cpus[c].next < best->next))
				best = &p->cpus[c];
		if (!best)
			break;
		int n = peek(p, best, &r);
		if (n > 0) {
			best->qoff += (size_t)n;
			take(p, best, &r, fn, side, arg);
		}
		n = peek(p, best, &r);
		while (n < 0) {
			p->h.undecodable++;
			best->qoff += (size_t)-n;
			n = peek(p, best, &r);
		}
		best->has_next = n > 0;
		best->next = n > 0 && r.type != PERF_RECORD_LOST ? rec_time(&r) : 0;
	}
	return 0;
}

int percpu_finish(struct percpu *p, percpu_fn fn, percpu_side_fn side, void *arg,
		  struct thread_count *totals)
{
	percpu_drain(p, UINT64_MAX, fn, side, arg);
	/* what ran after each CPU's last switch ends now, for -I and frames */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	int rc = 0;
	memset(totals, 0, p->nev * sizeof(*totals));
	for (size_t c = 0; c < p->ncpus; c++) {
		struct cpu *cp = &p->cpus[c];
		for (size_t g = 0; g < p->ngroups; g++) {
			struct unit *u = &cp->u[g];
			size_t n = p->groups[g].n;
			/* the leader, the members, the tick (last, when there
			 * is one): settle goes by the ids */
			size_t nr = n + 1 + (u->tick >= 0);
			uint64_t buf[3 + 2 * (PERF_REC_MAX_READ + 2)];
			ssize_t got = read(u->leader, buf, sizeof(buf));
			if (got < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] != nr ||
			    got < (ssize_t)((3 + 2 * nr) * sizeof(uint64_t))) {
				rc = rc ? rc : -EIO;
				continue;
			}
			/* values at buf[3 + 2k], ids after them; [0] the leader */
			settle(p, cp, g, 0, 0, now, buf + 5, buf + 6, 2, n,
			       buf[1], buf[2], false, fn, arg);
			for (size_t k = 0; k < n; k++) {
				struct thread_count *t = &totals[p->groups[g].ev[k]];
				t->value += u->last[k];
				t->enabled += u->last_en;
				t->running += u->last_run;
				t->present = true;
			}
		}
	}
	return rc;
}

size_t percpu_pollfds(const struct percpu *p, struct pollfd *out, size_t max)
{
	size_t n = 0;
	for (size_t c = 0; c < p->ncpus && n < max; c++) {
		out[n].fd = p->cpus[c].u[0].leader;
		out[n].events = POLLIN;
		out[n].revents = 0;
		n++;
	}
	return n;
}

void percpu_health(const struct percpu *p, struct percpu_health *h)
{
	*h = p->h;
}
