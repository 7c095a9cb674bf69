/*
 * counters: the DESIGN recipe for per-thread counts: one dummy event with
 * a ring buffer per target task, every counting event inherited and
 * redirected into it, drained while the workload runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collectors/counters.h"
#include "collectors/percpu.h"
#include "collectors/pmuplan.h"
#include "collectors/pmus.h"
#include "collectors/ringread.h"
#include "collectors/ringwake.h"
#include "common/cause.h"
#include "common/errtext.h"

/* Every event writing into a buffer shares this trailer layout. */
#define SAMPLE_ID_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
			PERF_SAMPLE_IDENTIFIER)
#define READ_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED | \
		     PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID)

/* An unpublished record must be this old before it is taken (records
 * are written within microseconds; a VM's stolen time can stretch that). */
#define SETTLE_NS 20000000ull

struct target {
	pid_t pid, tid;
	int dummy_fd;
	void *base;
	size_t map_len;
	int *fds;		/* per event; -1 when not opened */
	int *leaders;		/* per hardware group: leader fd on this task */
	int *sfds;		/* per sampler; -1 when not opened */
	int *rfds;		/* the read_counters siblings, per event */
	struct ring_reader rr;	/* where this buffer is read up to */
};

/* A sampler's id on one target, and the record layout its samples use. */
struct sample_layout {
	uint64_t id;
	struct perf_rec_layout lay;
};

/* A sibling of a read_counters sampler: which event its values are. */
struct read_id {
	uint64_t id;
	int event_idx;		/* -1: the sampler itself */
};

struct counters {
	struct counters_opts o;
	/* The hints for each refusal, kept by (errno, hardware): the
	 * default set's six hardware events refused on a machine without a
	 * PMU read sysfs's PMUs six times over for the same hint. */
	struct hint_memo { int err; bool hw; char *text; } *hints;
	size_t nhints;
	struct read_id *rids;
	size_t nrids;
	/* What is opened: the events themselves, or where the plan splits
	 * them over core PMUs (hybrid), one per part, part_event[k] its
	 * event. st, the targets' fds and the thread table's ids are per
	 * part; totals and what the API returns per event. */
	const struct event_desc *ev;
	struct event_desc *ev_own;	/* ev when it is a copy */
	size_t nev;
	size_t *part_event;		/* NULL when not split */
	struct counter_status *est;	/* per event, when split */
	long *pmu_part;		/* [(pmu + 1) * nevents + e]: e's part on a CPU
				   of that PMU (pmu -1: none), or -1 */
	long *cpu_part;		/* on_switch's scratch: one per event */
	struct counter_status *st;
	struct counter_status *sst;	/* per sampler */
	struct sample_layout *slays;
	size_t nslays;
	bool decided;
	int ngroups;
	struct target *targets;
	size_t ntargets;
	struct thread_table *tt;
	size_t names_pending;	/* young tasks whose name is still asked */
	struct thread_count *totals;
	struct perf_rec_layout lay;
	size_t page_size, data_size;
	uint8_t *scratch;
	uint64_t records;
	uint64_t undecodable;
	bool finished;
	struct percpu *pc;	/* the per-CPU path, or NULL */
	int sideband_fd;	/* its side-band event on the first target */
	uint64_t sideband_id;
	char *path_note;	/* why the per-CPU path was not taken */
	bool pc_side;		/* the side-band comes in pc's buffers */
	bool pc_samplers;	/* and so do the samplers' samples */
	long *pc_sidx;		/* per sampler: its index in pc, or -1 */
	int side_rc;		/* the first error feeding them */
	/* Told of a filled buffer by signal, not by sleeping on its fds
	 * (ringwake.h), from the first target on; wake_all false: not so on
	 * this path, or some fd refused, and the buffers' fds are polled. */
	struct ringwake wake;
	bool wake_all;
	uint64_t *vals;		/* on_counts' scratch, one per event */
	struct thread_count *none;	/* no deltas: a switch-in */
	bool *have;
};

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid,
			       int cpu, int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int counters_paranoid(void)
{
	int v = -100;
	FILE *fp = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (fp) {
		if (fscanf(fp, "%d", &v) != 1)
			v = -100;
		fclose(fp);
	}
	return v;
}

char *counters_open_hints(int err, bool hardware)
{
	char *s = NULL;
	switch (err) {
	case EACCES:
	case EPERM:
		if (asprintf(&s, "hint: kernel.perf_event_paranoid is %d here; "
			     "counting another process's kernel time needs it at 1 or "
			     "less, user-space counting of your own processes at 2 "
			     "or less\n"
			     "hint: as root: sysctl -w kernel.perf_event_paranoid=1 "
			     "(or run prof as root, or with CAP_PERFMON)",
			     counters_paranoid()) < 0)
			s = NULL;
		break;
	case EMFILE:
	case ENFILE:
		if (asprintf(&s, "hint: too many open files: raise the limit with "
			     "'ulimit -n' (each event needs one descriptor per task)") < 0)
			s = NULL;
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
	case EINVAL:
		/* Named for what sysfs has: none when a core PMU is there. */
		if (hardware)
			s = pmus_open_hint(NULL);
		break;
	case ESRCH:
		if (asprintf(&s, "hint: the task exited before its counters "
			     "could be opened") < 0)
			s = NULL;
		break;
	default:
		break;
	}
	return s;
}

/* counters_open_hints, asked once per (err, hardware) of a session: a
 * copy the caller frees, or NULL. */
static char *hints_of(struct counters *c, int err, bool hardware)
{
	for (size_t i = 0; i < c->nhints; i++)
		if (c->hints[i].err == err && c->hints[i].hw == hardware)
			return c->hints[i].text ? strdup(c->hints[i].text) : NULL;
	char *h = counters_open_hints(err, hardware);
	struct hint_memo *m = realloc(c->hints, (c->nhints + 1) * sizeof(*m));
	if (!m)
		return h;	/* asked again next time */
	c->hints = m;
	char *keep = h ? strdup(h) : NULL;
	if (h && !keep)
		return h;
	m[c->nhints++] = (struct hint_memo){ err, hardware, keep };
	return h;
}

/*
 * Where the plan splits the events over core PMUs: one event_desc per
 * part (its attr the part's), which event each is, and each event's part
 * per PMU for the per-CPU path. false when memory runs out.
 */
static bool split_events(struct counters *c, const struct pmu_plan *plan)
{
	size_t n = plan->nattrs, nev = c->o.nevents;
	c->ev_own = calloc(n ? n : 1, sizeof(*c->ev_own));
	c->part_event = calloc(n ? n : 1, sizeof(*c->part_event));
	c->est = calloc(nev ? nev : 1, sizeof(*c->est));
	c->pmu_part = malloc((plan->npmus + 1) * (nev ? nev : 1) * sizeof(long));
	c->cpu_part = calloc(nev ? nev : 1, sizeof(long));
	if (!c->ev_own || !c->part_event || !c->est || !c->pmu_part || !c->cpu_part)
		return false;
	for (size_t i = 0; i < (plan->npmus + 1) * nev; i++)
		c->pmu_part[i] = -1;
	for (size_t k = 0; k < n; k++) {
		const struct plan_attr *pa = &plan->attrs[k];
		c->ev_own[k] = c->o.events[pa->event];	/* borrows its strings */
		c->ev_own[k].attr = pa->attr;
		c->part_event[k] = pa->event;
		/* A part of no PMU serves every CPU. */
		for (size_t m = 0; m <= plan->npmus; m++)
			if (pa->pmu < 0 || (size_t)pa->pmu + 1 == m)
				c->pmu_part[m * nev + pa->event] = (long)k;
	}
	c->ev = c->ev_own;
	c->nev = n;
	return thread_table_set_parts(c->tt, n, c->part_event) == 0;
}

struct counters *counters_new(const struct counters_opts *opts)
{
	struct counters *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->o = *opts;
	c->wake.fd = -1;
	c->ev = opts->events;
	c->nev = opts->nevents;
	size_t pages = opts->mmap_pages ? opts->mmap_pages : 256;
	if (pages & (pages - 1)) {
		free(c);
		errno = EINVAL;
		return NULL;
	}
	c->page_size = (size_t)sysconf(_SC_PAGESIZE);
	c->data_size = pages * c->page_size;
	c->tt = thread_table_new(opts->nevents);
	if (c->tt && pmu_plan_split(opts->plan) && !split_events(c, opts->plan)) {
		counters_free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->st = calloc(c->nev ? c->nev : 1, sizeof(*c->st));
	c->sst = calloc(opts->nsamplers ? opts->nsamplers : 1, sizeof(*c->sst));
	c->totals = calloc(opts->nevents ? opts->nevents : 1, sizeof(*c->totals));
	c->scratch = malloc(65536);
	if (!c->st || !c->sst || !c->totals || !c->tt || !c->scratch) {
		counters_free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->lay.sample_type = SAMPLE_ID_TYPE;
	c->lay.read_format = READ_FORMAT;
	c->sideband_fd = -1;
	if (opts->on_counts) {
		c->vals = calloc(opts->nevents ? opts->nevents : 1, sizeof(*c->vals));
		c->have = calloc(opts->nevents ? opts->nevents : 1, sizeof(*c->have));
		c->none = calloc(opts->nevents ? opts->nevents : 1, sizeof(*c->none));
		if (!c->vals || !c->have || !c->none) {
			counters_free(c);
			errno = ENOMEM;
			return NULL;
		}
	}
	return c;
}

static void target_close(struct target *t, size_t nevents, size_t nsamplers)
{
	for (size_t i = 0; t->fds && i < nevents; i++)
		if (t->fds[i] >= 0)
			close(t->fds[i]);
	for (size_t i = 0; t->sfds && i < nsamplers; i++)
		if (t->sfds[i] >= 0)
			close(t->sfds[i]);
	for (size_t i = 0; t->rfds && i < nevents; i++)
		if (t->rfds[i] >= 0)
			close(t->rfds[i]);
	free(t->sfds);
	free(t->rfds);
	t->sfds = NULL;
	t->rfds = NULL;
	if (t->base)
		munmap(t->base, t->map_len);
	if (t->dummy_fd >= 0)
		close(t->dummy_fd);
	free(t->fds);
	free(t->leaders);
	t->fds = NULL;
	t->leaders = NULL;
	t->base = NULL;
	t->dummy_fd = -1;
}

void counters_free(struct counters *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ntargets; i++)
		target_close(&c->targets[i], c->nev, c->o.nsamplers);
	for (size_t i = 0; c->st && i < c->nev; i++)
		free(c->st[i].reason);
	for (size_t i = 0; c->sst && i < c->o.nsamplers; i++)
		free(c->sst[i].reason);
	for (size_t i = 0; i < c->nhints; i++)
		free(c->hints[i].text);
	free(c->hints);
	free(c->sst);
	free(c->slays);
	free(c->rids);
	free(c->targets);
	free(c->st);
	for (size_t i = 0; c->est && i < c->o.nevents; i++)
		free(c->est[i].reason);
	free(c->est);
	free(c->ev_own);
	free(c->part_event);
	free(c->pmu_part);
	free(c->cpu_part);
	free(c->totals);
	free(c->scratch);
	thread_table_free(c->tt);
	percpu_free(c->pc);
	if (c->sideband_fd >= 0)
		close(c->sideband_fd);
	ringwake_stop(&c->wake);	/* after every fd that could signal */
	free(c->path_note);
	free(c->pc_sidx);
	free(c->vals);
	free(c->have);
	free(c->none);
	free(c);
}

static void fill_common(struct counters *c, struct perf_event_attr *a)
{
	a->size = sizeof(*a);
	a->sample_id_all = 1;
	a->sample_type = SAMPLE_ID_TYPE;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	(void)c;
}

/* The event that carries the side-band records: COMM, FORK/EXIT, MMAP2
 * (and data mappings, build ids where asked). */
static void want_sideband(const struct counters *c, struct perf_event_attr *a)
{
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->mmap_data = (c->o.flags & COUNTERS_MMAP_DATA) != 0;
	a->build_id = (c->o.flags & COUNTERS_BUILD_ID) != 0;
}

/* Open a on task tid (cpu -1); a kernel older than 5.12 does not know
 * the build_id bit, so it is asked again without. fd or -1 with errno. */
static int open_task_event(struct perf_event_attr *a, pid_t tid, int group_fd)
{
	int fd = sys_perf_event_open(a, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && a->build_id) {
		a->build_id = 0;
		fd = sys_perf_event_open(a, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

static int open_dummy(struct counters *c, struct target *t, char **cause)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	fill_common(c, &a);
	/* Wake the poller when a quarter of the buffer has filled. */
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(c->data_size / 4);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = sys_perf_event_open(&a, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		char *h = hints_of(c, err, false);
		if (cause && asprintf(cause, "cannot open perf events on task %d: %s%s%s",
				      (int)t->tid, ERR_TEXT(err), h ? "\n" : "",
				      h ? h : "") < 0)
			*cause = NULL;
		free(h);
		return -err;
	}
	t->dummy_fd = fd;
	t->map_len = c->page_size + c->data_size;
	t->base = mmap(NULL, t->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (t->base == MAP_FAILED) {
		int err = errno;
		t->base = NULL;
		if (cause && asprintf(cause, "cannot map the %zu KiB ring buffer: %s\n"
				      "hint: lower --mmap-pages, or raise "
				      "kernel.perf_event_mlock_kb",
				      c->data_size / 1024, ERR_TEXT(err)) < 0)
			*cause = NULL;
		return -err;
	}
	return 0;
}

static bool is_permission(int err)
{
	return err == EACCES || err == EPERM;
}

/*
 * Open event i on target t, with group_fd (or -1). On a permission
 * refusal for an event that would count kernel time, retry user-only, as
 * perf does, and say so.
 */
static int open_event(struct counters *c, struct target *t, size_t i,
		      int group_fd, bool sideband, bool *user_only)
{
	struct perf_event_attr a = c->ev[i].attr;
	fill_common(c, &a);
	a.inherit = 1;
	a.inherit_stat = 1;
	a.read_format = READ_FORMAT;
	if ((c->o.flags & COUNTERS_ENABLE_ON_EXEC) && group_fd < 0) {
		a.disabled = 1;
		a.enable_on_exec = 1;
	}
	if (sideband)
		want_sideband(c, &a);
	if (*user_only) {
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
	}
	int fd = open_task_event(&a, t->tid, group_fd);
	if (fd < 0 && is_permission(errno) && !a.exclude_kernel) {
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		fd = sys_perf_event_open(&a, t->tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			*user_only = true;
	}
	return fd < 0 ? -errno : fd;
}

static void set_reason(struct counters *c, struct counter_status *s, int err,
		       bool hardware)
{
	free(s->reason);
	s->reason = NULL;
	char *h = hints_of(c, err, hardware);
	const char *what = "the kernel refused it";
	if (is_permission(err))
		what = "permission denied";
	if (asprintf(&s->reason, "%s: %s%s%s", what, ERR_TEXT(err),
		     h ? "\n" : "", h ? h : "") < 0)
		s->reason = NULL;
	free(h);
}

/*
 * Software events that only ever fire in the kernel: a context switch or
 * a migration is the scheduler's doing, never user code, so with
 * exclude_kernel (the only way an unprivileged user may count at
 * perf_event_paranoid 2) they open fine and count 0 whatever the
 * workload does.
 */
static bool kernel_only(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		a->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

static void not_countable(struct counter_status *s)
{
	s->supported = false;
	s->err = EACCES;
	s->user_only = false;
	free(s->reason);
	if (asprintf(&s->reason, "not countable here: it happens only in the "
		     "kernel, and at perf_event_paranoid %d this user may count "
		     "user space only\n"
		     "hint: as root: sysctl -w kernel.perf_event_paranoid=1 "
		     "(or run prof as root, or with CAP_PERFMON)",
		     counters_paranoid()) < 0)
		s->reason = NULL;
}

/* The core PMU part k counts on (its index in the plan), or -1. */
static int part_pmu(const struct counters *c, size_t k)
{
	return c->part_event ? c->o.plan->attrs[k].pmu : -1;
}

/* The event part k is of. */
static size_t event_of(const struct counters *c, size_t k)
{
	return c->part_event ? c->part_event[k] : k;
}

/* The first part of event e (e itself when nothing is split), or nev. */
static size_t first_part(const struct counters *c, size_t e)
{
	for (size_t k = 0; c->part_event && k < c->nev; k++)
		if (c->part_event[k] == e)
			return k;
	return c->part_event ? c->nev : e;
}

/* Decide support and grouping on the first target. A group holds one
 * PMU's events: the kernel refuses a cpu_core event in a cpu_atom group. */
static int open_first(struct counters *c, struct target *t)
{
	bool sideband_done = false;
	int leader = -1, leader_pmu = -1;
	int opened = 0;

	/* Software events first: the first one carries the side-band
	 * records (COMM, FORK/EXIT, MMAP2), since it never multiplexes. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < c->nev; i++) {
			struct counter_status *s = &c->st[i];
			bool hw = c->ev[i].hardware;
			if ((pass == 0) == hw)
				continue;
			if (c->ev[i].refused) {
				s->supported = false;
				s->err = EOPNOTSUPP;
				free(s->reason);
				s->reason = strdup(c->ev[i].refused);
				continue;
			}
			int fd;
			if (!hw) {
				fd = open_event(c, t, i, -1, !sideband_done, &s->user_only);
				s->group = 0;
			} else if (leader < 0 || leader_pmu != part_pmu(c, i)) {
				fd = open_event(c, t, i, -1, !sideband_done, &s->user_only);
				if (fd >= 0) {
					leader = fd;
					leader_pmu = part_pmu(c, i);
					s->group = ++c->ngroups;
				}
			} else {
				fd = open_event(c, t, i, leader, false, &s->user_only);
				if (fd >= 0) {
					s->group = c->ngroups;
				} else if (fd == -EINVAL || fd == -ENOSPC) {
					/* Does not fit: lead a new group. */
					fd = open_event(c, t, i, -1, !sideband_done,
							&s->user_only);
					if (fd >= 0) {
						leader = fd;
						leader_pmu = part_pmu(c, i);
						s->group = ++c->ngroups;
					}
				}
			}
			if (fd < 0) {
				s->supported = false;
				s->err = -fd;
				set_reason(c, s, -fd, hw);
				continue;
			}
			if (s->group && s->group != 0) {
				int *p = realloc(t->leaders, (size_t)c->ngroups * sizeof(int));
				if (!p) {
					close(fd);
					return -ENOMEM;
				}
				t->leaders = p;
				if (fd == leader)
					t->leaders[c->ngroups - 1] = fd;
			}
			if (s->user_only && kernel_only(&c->ev[i].attr)) {
				/* It would count nothing: say so, not zero. */
				close(fd);
				not_countable(s);
				continue;
			}
			t->fds[i] = fd;
			s->supported = true;
			s->err = 0;
			if (s->user_only && !s->reason &&
			    asprintf(&s->reason, "counted in user space only "
				     "(perf_event_paranoid is %d)",
				     counters_paranoid()) < 0)
				s->reason = NULL;
			sideband_done = true;
			opened++;
		}
	}
	c->decided = true;
	return opened;
}

/* Later targets open exactly what the first one could, in its groups. */
static int open_again(struct counters *c, struct target *t, char **cause)
{
	bool sideband_done = false;
	if (c->ngroups) {
		t->leaders = malloc((size_t)c->ngroups * sizeof(int));
		if (!t->leaders)
			return -ENOMEM;
		for (int g = 0; g < c->ngroups; g++)
			t->leaders[g] = -1;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < c->nev; i++) {
			struct counter_status *s = &c->st[i];
			bool hw = c->ev[i].hardware;
			if ((pass == 0) == hw || !s->supported)
				continue;
			int group_fd = s->group ? t->leaders[s->group - 1] : -1;
			bool uo = s->user_only;
			int fd = open_event(c, t, i, group_fd,
					    !sideband_done && group_fd < 0, &uo);
			if (fd < 0) {
				char *h = hints_of(c, -fd, hw);
				if (cause && asprintf(cause, "cannot open '%s' on task %d: %s%s%s",
						      c->ev[i].name, (int)t->tid,
						      ERR_TEXT(-fd), h ? "\n" : "",
						      h ? h : "") < 0)
					*cause = NULL;
				free(h);
				return fd;
			}
			if (s->group && group_fd < 0)
				t->leaders[s->group - 1] = fd;
			t->fds[i] = fd;
			if (group_fd < 0)
				sideband_done = true;
		}
	}
	return 0;
}

static int add_read_id(struct counters *c, uint64_t id, int event_idx)
{
	struct read_id *p = realloc(c->rids, (c->nrids + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->rids = p;
	p[c->nrids].id = id;
	p[c->nrids].event_idx = event_idx;
	c->nrids++;
	return 0;
}

/*
 * The run's software events again, as siblings of a read_counters
 * sampler (leader): inherited like it, enabled with it. Hardware events
 * stay out (they would move the group onto the PMU, where a software
 * timer cannot lead it); an event the kernel refuses here is left out
 * of the samples, and the others go on.
 */
static int open_siblings(struct counters *c, struct target *t, int leader,
			 uint64_t leader_id, char **cause)
{
	(void)cause;
	if (!t->rfds) {
		t->rfds = malloc((c->nev ? c->nev : 1) * sizeof(int));
		if (!t->rfds)
			return -ENOMEM;
		for (size_t i = 0; i < c->nev; i++)
			t->rfds[i] = -1;
	}
	int rc = add_read_id(c, leader_id, -1);
	for (size_t i = 0; i < c->nev && !rc; i++) {
		if (!c->st[i].supported || c->ev[i].hardware)
			continue;
		struct perf_event_attr a = c->ev[i].attr;
		fill_common(c, &a);
		a.inherit = 1;
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
		if (c->st[i].user_only) {
			a.exclude_kernel = 1;
			a.exclude_hv = 1;
		}
		int fd = sys_perf_event_open(&a, t->tid, -1, leader, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			continue;
		uint64_t id = 0;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) {
			close(fd);
			continue;
		}
		t->rfds[i] = fd;
		rc = add_read_id(c, id, (int)event_of(c, i));
	}
	return rc;
}

int counters_read_index(const struct counters *c, uint64_t id)
{
	for (size_t i = 0; i < c->nrids; i++)
		if (c->rids[i].id == id)
			return c->rids[i].event_idx;
	return -2;
}

void counters_read_values(const struct counters *c, const struct perf_rec *rec,
			  uint64_t *vals, bool *have, size_t nev)
{
	const uint64_t *v = rec->u.sample.read_vals;
	unsigned stride = rec->u.sample.read_stride;

	memset(have, 0, nev * sizeof(*have));
	for (uint64_t i = 1; i < rec->u.sample.read_nr; i++) {
		int e = counters_read_index(c, v[i * stride + 1]);
		if (e >= 0 && (size_t)e < nev) {
			vals[e] = v[i * stride];
			have[e] = true;
		}
	}
}

/*
 * Open every sampler on target t. The first target decides support (a
 * refusal marks the sampler not supported); later targets open the
 * supported ones or fail.
 */
static int open_samplers(struct counters *c, struct target *t, bool first,
			 char **cause)
{
	if (!c->o.nsamplers || c->pc_samplers)
		return 0;
	t->sfds = malloc(c->o.nsamplers * sizeof(int));
	if (!t->sfds)
		return -ENOMEM;
	for (size_t i = 0; i < c->o.nsamplers; i++) {
		t->sfds[i] = -1;
		struct counter_status *s = &c->sst[i];
		if (!first && !s->supported)
			continue;
		struct perf_event_attr a = c->o.samplers[i].attr;
		uint64_t extra = a.sample_type;
		fill_common(c, &a);
		a.sample_type = SAMPLE_ID_TYPE | extra;
		a.inherit = 1;
		if (c->o.samplers[i].read_counters) {
			a.sample_type |= PERF_SAMPLE_READ;
			a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
		}
		if (c->o.flags & COUNTERS_ENABLE_ON_EXEC) {
			a.disabled = 1;
			a.enable_on_exec = 1;
		}
		if (s->user_only) {
			a.exclude_kernel = 1;
			a.exclude_hv = 1;
		}
		int fd = sys_perf_event_open(&a, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && is_permission(errno) && !a.exclude_kernel) {
			a.exclude_kernel = 1;
			a.exclude_hv = 1;
			fd = sys_perf_event_open(&a, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd >= 0)
				s->user_only = true;
		}
		if (fd < 0) {
			int err = errno;
			if (first) {
				s->supported = false;
				s->err = err;
				set_reason(c, s, err, c->o.samplers[i].hardware);
				continue;
			}
			if (cause && asprintf(cause, "cannot open sampler '%s' on task %d: %s",
					      c->o.samplers[i].name, (int)t->tid,
					      ERR_TEXT(err)) < 0)
				*cause = NULL;
			return -err;
		}
		if (first)
			s->supported = true;
		t->sfds[i] = fd;
		uint64_t id = 0;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, t->dummy_fd) != 0 ||
		    ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) {
			int err = errno;
			if (cause && asprintf(cause, "cannot redirect sampler '%s' into "
					      "the ring buffer: %s",
					      c->o.samplers[i].name, ERR_TEXT(err)) < 0)
				*cause = NULL;
			return -err;
		}
		if (c->o.samplers[i].read_counters) {
			int rc = open_siblings(c, t, fd, id, cause);
			if (rc)
				return rc;
		}
		struct sample_layout *p = realloc(c->slays, (c->nslays + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		c->slays = p;
		p[c->nslays].id = id;
		p[c->nslays].lay.sample_type = a.sample_type;
		p[c->nslays].lay.read_format = a.read_format;
		p[c->nslays].lay.regs_user_mask = a.sample_regs_user;
		c->nslays++;
	}
	return 0;
}

static const struct perf_rec_layout *layout_for_id(uint64_t id, void *arg)
{
	const struct counters *c = arg;
	for (size_t i = 0; i < c->nslays; i++)
		if (c->slays[i].id == id)
			return &c->slays[i].lay;
	return NULL;
}

/*
 * The per-CPU path's side-band on the first target: an inherited dummy
 * event that carries COMM, FORK/EXIT and MMAP2 records into the task's
 * buffer and counts nothing.
 */
static int open_sideband(struct counters *c, struct target *t, char **cause)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	fill_common(c, &a);
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	want_sideband(c, &a);
	if (c->o.flags & COUNTERS_ENABLE_ON_EXEC) {
		a.disabled = 1;
		a.enable_on_exec = 1;
	}
	int fd = open_task_event(&a, t->tid, -1);
	if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, t->dummy_fd) != 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &c->sideband_id) != 0) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return cause_set(cause, err, "cannot follow task %d's threads: %s",
				 (int)t->tid, ERR_TEXT(err));
	}
	c->sideband_fd = fd;
	return 0;
}

/*
 * Each CPU's buffer, unless --mmap-pages says: 8 MiB shared by the CPUs,
 * 1 to 2 MiB each. One CPU's buffer takes every switch and side-band
 * record of the tasks that run there; each drain copies it out whole
 * (collectors/percpu.c), so it holds what comes between two drains, not
 * the 40 ms the side-band is held back for. Measured on 2 CPUs: with
 * 512 KiB buffers, quiet and beside 4 spinners and a 6-job build (load
 * 5.7), a pipe ping-pong of 200,000 rounds (80,000 switches a second a
 * CPU) and the 5,000-thread churn lost no record, but beside the test
 * suite (ctest -j2) a ping-pong of 50,000 lost 1,537 (2 MiB: none).
 * Before the copy, 2 MiB buffers lost 44,000-66,000 records of that
 * ping-pong and the churn on loaded CPUs lost 26,000 of 1 MiB ones.
 * Every page is the kernel's to allocate and zero at the mmap: the 8 MiB
 * a CPU mapped before took 3.7 ms of a 13 ms `prof run -- true`.
 */
static size_t percpu_pages(const struct counters *c)
{
	if (c->o.mmap_pages)
		return c->o.mmap_pages;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	size_t per = (8u << 20) / (size_t)(n > 0 ? n : 1);
	if (per > (2u << 20))
		per = 2u << 20;
	size_t pages = 1;
	while (pages * 2 * c->page_size <= per || pages * c->page_size < (1u << 20))
		pages *= 2;
	return pages;
}

/*
 * Every sampler on every CPU (percpu_add_sampler): a refusal on the
 * first CPU marks it not supported, as the first target does on the
 * per-task path; a later CPU's fails the path.
 */
static int open_percpu_samplers(struct counters *c, char **cause)
{
	if (!c->o.nsamplers)
		return 0;
	c->pc_sidx = malloc(c->o.nsamplers * sizeof(*c->pc_sidx));
	if (!c->pc_sidx)
		return -ENOMEM;
	long added = 0;
	for (size_t i = 0; i < c->o.nsamplers; i++) {
		c->pc_sidx[i] = -1;
		struct counter_status *s = &c->sst[i];
		char *why = NULL;
		int rc = percpu_add_sampler(c->pc, &c->o.samplers[i].attr,
					    &s->user_only, &why);
		if (rc && why) {
			if (cause && asprintf(cause, "sampler '%s': %s",
					      c->o.samplers[i].name, why) < 0)
				*cause = NULL;
			free(why);
			return rc;
		}
		free(s->reason);
		s->reason = NULL;
		s->supported = rc == 0;
		s->err = -rc;
		if (rc == -ENOMEM)
			return rc;
		if (rc)
			set_reason(c, s, -rc, c->o.samplers[i].hardware);
		else
			c->pc_sidx[i] = added++;
	}
	c->pc_samplers = true;
	return 0;
}

/*
 * Decide support and grouping per CPU (COUNTERS_PERCPU) on the first
 * target: 1 when the path is taken, 0 when it is refused (path_note says
 * why; the per-task recipe follows), -errno when the side-band fails.
 */
static int open_percpu(struct counters *c, struct target *t, char **cause)
{
	size_t n = c->o.nevents ? c->o.nevents : 1;
	bool *skip = calloc(n, sizeof(*skip));
	int *err = calloc(n, sizeof(*err)), *group = calloc(n, sizeof(*group));
	if (!skip || !err || !group) {
		free(skip);
		free(err);
		free(group);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->o.nevents; i++)
		skip[i] = c->o.events[i].refused != NULL;
	char *why = NULL;
	/* The side-band records and the samples come with the switches,
	 * each CPU's from that CPU alone: a buffer written from several
	 * CPUs tears on big trees (docs/completeness.md). A read_counters
	 * sampler reads inherited siblings, so it and the side-band (in
	 * order with the samples whose mappings it names) stay on the task,
	 * as they do where the raw records are dumped (one buffer). */
	struct perf_event_attr side;
	memset(&side, 0, sizeof(side));
	want_sideband(c, &side);
	bool own_side = !c->o.record_hook;
	for (size_t i = 0; i < c->o.nsamplers; i++)
		own_side = own_side && !c->o.samplers[i].read_counters;
	c->pc = percpu_open(c->o.events, c->o.nevents, c->o.plan, skip, c->o.cgroup_fd,
			    percpu_pages(c), c->o.percpu_tick_ns,
			    own_side ? &side : NULL, err, group, &why);
	int opened = 0;
	/* Each CPU counts an event on its own PMU's part: every part of
	 * the event shares what the first CPUs said of it. */
	for (size_t k = 0; c->pc && k < c->nev; k++) {
		size_t i = event_of(c, k);
		struct counter_status *s = &c->st[k];
		free(s->reason);
		s->reason = NULL;
		s->user_only = false;
		s->group = group[i];
		if (skip[i]) {
			s->supported = false;
			s->err = EOPNOTSUPP;
			s->reason = strdup(c->o.events[i].refused);
		} else if (err[i]) {
			s->supported = false;
			s->err = err[i];
			set_reason(c, s, err[i], c->o.events[i].hardware);
		} else {
			s->supported = true;
			s->err = 0;
			opened++;
		}
		if (s->group > c->ngroups)
			c->ngroups = s->group;
	}
	free(skip);
	free(err);
	free(group);
	if (c->pc && !opened) {
		percpu_free(c->pc);
		c->pc = NULL;
		why = strdup("no event could be counted per CPU");
	}
	if (!c->pc) {
		c->ngroups = 0;
		free(c->path_note);
		c->path_note = why;
		return 0;
	}
	int rc = own_side ? open_percpu_samplers(c, cause) : open_sideband(c, t, cause);
	if (rc) {
		percpu_free(c->pc);
		c->pc = NULL;
		return rc;
	}
	c->pc_side = own_side;
	c->decided = true;
	return 1;
}

static void on_switch(int32_t pid, int32_t tid, uint64_t time, int cpu,
		      const struct thread_count *deltas, bool running, void *arg)
{
	struct counters *c = arg;
	const struct thread_row *r = NULL;
	size_t nevents = c->o.nevents;
	if (!deltas) {		/* switched in: nothing counted, the row as it is */
		if (!c->o.on_counts || !c->vals)
			return;
		memset(c->none, 0, nevents * sizeof(*c->none));
		deltas = c->none;
	}
	/* Split: what this CPU counted is its PMU's part of each event. */
	const long *part = NULL;
	if (c->part_event) {
		int pmu = pmu_plan_cpu_pmu(c->o.plan, cpu);
		memcpy(c->cpu_part, c->pmu_part + (size_t)(pmu + 1) * nevents,
		       nevents * sizeof(*c->cpu_part));
		part = c->cpu_part;
	}
	if (thread_table_add_part_counts(c->tt, pid, tid, time, deltas, part, &r)) {
		c->undecodable++;	/* no memory for its row: said as lost */
		return;
	}
	if (!c->o.on_counts || !r || !c->vals)
		return;
	/* Each thread's totals; have: what this switch or tick read (its
	 * group's events), the others carry their last value. */
	for (size_t e = 0; e < nevents; e++) {
		c->vals[e] = r->counts[e].value;
		c->have[e] = r->counts[e].present &&
			     (deltas == c->none || deltas[e].present);
	}
	c->o.on_counts(tid, time, c->vals, c->have, running, c->o.counts_arg);
}

enum counters_path counters_path(const struct counters *c)
{
	return c->pc ? COUNTERS_PATH_PERCPU : COUNTERS_PATH_TASK;
}

const char *counters_path_name(enum counters_path path)
{
	return path == COUNTERS_PATH_PERCPU ? "percpu" : "task";
}

void counters_forgo_percpu(struct counters *c, const char *why)
{
	c->o.flags &= ~(unsigned)COUNTERS_PERCPU;
	free(c->path_note);
	c->path_note = why ? strdup(why) : NULL;
}

enum counters_path counters_sample_path(const struct counters *c)
{
	return c->pc_samplers ? COUNTERS_PATH_PERCPU : COUNTERS_PATH_TASK;
}

const char *counters_path_note(const struct counters *c)
{
	return c->path_note;
}

/*
 * Where the events are split, each event's status from its parts':
 * supported when any part is, the refusal of a part that is not said in
 * the reason ("not counted on cpu_atom: ..."), and the plan's note of an
 * event that counts on fewer PMUs than there are. false when memory runs
 * out.
 */
static bool combine_statuses(struct counters *c)
{
	const struct pmu_plan *plan = c->o.plan;
	bool ok = true;
	for (size_t e = 0; c->part_event && e < c->o.nevents; e++) {
		struct counter_status *es = &c->est[e];
		free(es->reason);
		memset(es, 0, sizeof(*es));
		char *text = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&text, &len);
		if (!fp)
			return false;
		const char *sep = "";
		for (size_t k = 0; k < c->nev; k++) {
			const struct counter_status *s = &c->st[k];
			if (c->part_event[k] != e)
				continue;
			const char *pmu = pmu_plan_pmu_name(plan, k);
			if (s->supported && !es->supported) {
				es->supported = true;
				es->err = 0;
				es->group = s->group;
			} else if (!s->supported && !es->supported && !es->err) {
				es->err = s->err;
			}
			es->user_only = es->user_only || s->user_only;
			if (s->reason && (!s->supported || !*sep)) {
				fprintf(fp, "%s%s%s%s%s", sep, !s->supported && pmu ?
					"not counted on " : "", !s->supported && pmu ?
					pmu : "", !s->supported && pmu ? ": " : "",
					s->reason);
				sep = "\n";
			}
		}
		if (plan->notes[e])
			fprintf(fp, "%s%s", sep, plan->notes[e]);
		if (fclose(fp) || !text) {
			free(text);
			ok = false;
			continue;
		}
		if (*text)
			es->reason = text;
		else
			free(text);
	}
	return ok;
}

/*
 * Set every event of t that writes into its buffer to signal c->wake
 * when the buffer fills (ringwake.h). Only on the per-task path without
 * samplers: a sampling event with O_ASYNC is signalled at every sample
 * (__perf_event_overflow), and the per-CPU path's leaders sample every
 * switch (the 5,000-thread churn took 0.62 s so armed, 0.37 s polled),
 * so those keep their fds polled. The per-CPU path's own buffers have
 * no inherited writers to kick a poller at each exit.
 */
static bool arm_target(struct counters *c, const struct target *t)
{
	int rc = ringwake_arm(&c->wake, t->dummy_fd);
	for (size_t i = 0; !rc && i < c->nev; i++)
		if (t->fds[i] >= 0)
			rc = ringwake_arm(&c->wake, t->fds[i]);
	return rc == 0;
}

int counters_open_task(struct counters *c, pid_t pid, pid_t tid,
		       const char *name, char **cause)
{
	struct target *nt = realloc(c->targets, (c->ntargets + 1) * sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	c->targets = nt;
	struct target *t = &c->targets[c->ntargets];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->dummy_fd = -1;
	t->fds = malloc((c->nev ? c->nev : 1) * sizeof(int));
	if (!t->fds)
		return -ENOMEM;
	for (size_t i = 0; i < c->nev; i++)
		t->fds[i] = -1;

	int rc = open_dummy(c, t, cause);
	if (rc) {
		target_close(t, c->nev, c->o.nsamplers);
		return rc;
	}
	bool first = !c->decided;
	if (!c->decided && (c->o.flags & COUNTERS_PERCPU)) {
		rc = open_percpu(c, t, cause);
		if (rc < 0) {
			target_close(t, c->nev, c->o.nsamplers);
			return rc;
		}
	} else if (c->pc) {
		/* One cgroup, one first task: nothing to attach later. */
		target_close(t, c->nev, c->o.nsamplers);
		return cause_set(cause, EINVAL, "the per-CPU path counts one "
				 "launched workload");
	}
	if (!c->decided) {
		rc = open_first(c, t);
		if (rc < 0) {
			target_close(t, c->nev, c->o.nsamplers);
			return rc;
		}
		if (rc == 0) {
			/* Nothing counts: say why, with the first refusal's hints. */
			int err = c->nev ? c->st[0].err : EINVAL;
			bool all_hw = true;
			for (size_t i = 0; i < c->nev; i++)
				all_hw = all_hw && c->ev[i].hardware;
			char *h = hints_of(c, err, all_hw);
			if (cause && asprintf(cause, "none of the %zu events could be "
					      "opened (first refusal: %s)%s%s%s",
					      c->o.nevents, ERR_TEXT(err),
					      h ? "\n" : "", h ? h : "",
					      all_hw ? "\nhint: try software events, e.g. "
					      "-e task-clock,context-switches,page-faults" : "") < 0)
				*cause = NULL;
			free(h);
			target_close(t, c->nev, c->o.nsamplers);
			c->decided = false;
			return -(err ? err : EINVAL);
		}
	} else if (!c->pc) {
		rc = open_again(c, t, cause);
		if (rc) {
			target_close(t, c->nev, c->o.nsamplers);
			return rc;
		}
	}

	for (size_t i = 0; i < c->nev; i++) {
		if (t->fds[i] < 0)
			continue;
		if (ioctl(t->fds[i], PERF_EVENT_IOC_SET_OUTPUT, t->dummy_fd) != 0) {
			int err = errno;
			if (cause && asprintf(cause, "cannot redirect '%s' into the ring "
					      "buffer: %s", c->ev[i].name,
					      ERR_TEXT(err)) < 0)
				*cause = NULL;
			target_close(t, c->nev, c->o.nsamplers);
			return -err;
		}
		uint64_t id = 0;
		if (ioctl(t->fds[i], PERF_EVENT_IOC_ID, &id) != 0 ||
		    thread_table_map_id(c->tt, id, i) != 0) {
			int err = errno ? errno : ENOMEM;
			if (cause && asprintf(cause, "cannot read the id of '%s': %s",
					      c->ev[i].name, ERR_TEXT(err)) < 0)
				*cause = NULL;
			target_close(t, c->nev, c->o.nsamplers);
			return -err;
		}
	}
	rc = open_samplers(c, t, first, cause);
	if (rc) {
		target_close(t, c->nev, c->o.nsamplers);
		return rc;
	}
	if (first && !combine_statuses(c)) {
		target_close(t, c->nev, c->o.nsamplers);
		return -ENOMEM;
	}
	rc = thread_table_add_target(c->tt, pid, tid, name, (int)c->ntargets);
	if (rc) {
		target_close(t, c->nev, c->o.nsamplers);
		return rc;
	}
	if (!c->pc && !c->o.nsamplers) {
		/* Where an fd refused, those armed may still signal: the
		 * watch stays on, unpolled, until counters_free. */
		if (!c->ntargets)
			c->wake_all = ringwake_start(&c->wake) == 0;
		if (c->wake_all)
			c->wake_all = arm_target(c, t);
	}
	c->ntargets++;
	return 0;
}

const struct counter_status *counters_status(const struct counters *c,
					     size_t event_idx)
{
	if (event_idx >= c->o.nevents)
		return NULL;
	return c->part_event ? &c->est[event_idx] : &c->st[event_idx];
}

size_t counters_pollfds(const struct counters *c, struct pollfd *out, size_t max)
{
	size_t n = 0;
	if (c->wake_all && c->ntargets && max) {
		out[0].fd = c->wake.fd;
		out[0].events = POLLIN;
		out[0].revents = 0;
		return 1;
	}
	for (size_t i = 0; i < c->ntargets && n < max; i++) {
		out[n].fd = c->targets[i].dummy_fd;
		out[n].events = POLLIN;
		out[n].revents = 0;
		n++;
	}
	if (c->pc)
		n += percpu_pollfds(c->pc, out + n, max - n);
	return n;
}

static bool known_id(uint64_t id, void *arg)
{
	const struct counters *c = arg;
	return thread_table_knows_id(c->tt, id) || layout_for_id(id, arg) != NULL ||
	       (c->sideband_id && id == c->sideband_id);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A task that execs a set-user-ID or set-group-ID program leaves its
 * counters at the exec (the kernel calls perf_event_exit_task when the
 * new image is not dumpable by its user): an EXIT record arrives while
 * the task runs on, uncounted, with real and effective ids that differ.
 * Best effort: a task that is gone by the time its record is read cannot
 * be asked; the run's wait4 account is the check that catches those.
 */
bool task_gained_privileges(pid_t pid, pid_t tid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return false;
	char line[256];
	bool changed = false;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long real, eff;
		if ((sscanf(line, "Uid: %lu %lu", &real, &eff) == 2 ||
		     sscanf(line, "Gid: %lu %lu", &real, &eff) == 2) && real != eff)
			changed = true;
	}
	fclose(fp);
	return changed;
}

void counters_mark_privileged(struct counters *c, pid_t tid)
{
	thread_table_mark_privileged(c->tt, (int32_t)tid);
}

/* One decoded side-band or sample record, from whichever buffer. */
static int feed_record(struct counters *c, const struct perf_rec *r, int origin)
{
	int rc = thread_table_feed(c->tt, r, origin);
	/* After an exec the task leads its process (other threads are
	 * gone): a thread's own exit is not one. */
	if (r->type == PERF_RECORD_EXIT && r->u.task.pid == r->u.task.tid &&
	    task_gained_privileges((pid_t)r->u.task.pid, (pid_t)r->u.task.tid))
		thread_table_mark_privileged(c->tt, (int32_t)r->u.task.tid);
	if (c->o.on_record)
		c->o.on_record(r, origin, c->o.rec_arg);
	return rc;
}

/* A side-band record from a per-CPU buffer: the first target's. */
static void on_side(const struct perf_rec *r, void *arg)
{
	struct counters *c = arg;
	int rc = feed_record(c, r, 0);
	if (rc && !c->side_rc)
		c->side_rc = rc;
	c->records++;
}

/* The view of t's buffer that a drain reads now. */
static struct ring_view target_view(struct counters *c, const struct target *t)
{
	struct perf_event_mmap_page *mp = t->base;
	struct ring_view v = {
		.data = (const uint8_t *)t->base + c->page_size,
		.size = c->data_size,
		.head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE),
		.tail = t->rr.pos,
		.now_ns = monotonic_ns(),
		.settle_ns = SETTLE_NS,
		.lay = &c->lay, .layout_for_id = layout_for_id,
		.known_id = known_id, .arg = c,
		.scratch = c->scratch, .scratch_size = 65536,
	};
	return v;
}

static bool target_settling(struct counters *c, const struct target *t)
{
	struct ring_view v = target_view(c, t);
	return ring_settling(&t->rr, &v);
}

static int drain_target(struct counters *c, struct target *t, int origin)
{
	struct perf_event_mmap_page *mp = t->base;
	struct ring_view v = target_view(c, t);
	int rc = 0;
	const void *rec;
	size_t len;
	while (ring_next(&t->rr, &v, &rec, &len)) {
		if (c->o.record_hook)
			c->o.record_hook(rec, len, c->o.hook_arg);
		struct perf_rec r;
		if (perf_rec_decode(rec, len, &c->lay, layout_for_id, c, &r) == 0) {
			int frc = feed_record(c, &r, origin);
			if (frc && !rc)
				rc = frc;
		} else {
			c->undecodable++;
		}
		c->records++;
	}
	__atomic_store_n(&mp->data_tail, t->rr.pos, __ATOMIC_RELEASE);
	return rc;
}

/* How long after its FORK a task that has sent no COMM record has its
 * name read from /proc at each drain: threads name themselves as they
 * start. */
#define NAME_WINDOW_NS 1000000000ull

/* A task's name now, from /proc; false when it is gone. */
static bool proc_comm(int32_t pid, int32_t tid, char name[16], void *arg)
{
	(void)arg;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return false;
	bool ok = fgets(name, 16, fp) != NULL;
	fclose(fp);
	if (ok)
		name[strcspn(name, "\n")] = '\0';
	return ok;
}

int counters_drain(struct counters *c)
{
	/* A switch is given to its thread's row once every side-band record
	 * written before it has been taken (a FORK that reuses a tid). */
	uint64_t until = monotonic_ns() - 2 * SETTLE_NS;
	int rc = 0;
	ringwake_clear(&c->wake);	/* before: a fill from now on wakes again */
	for (size_t i = 0; i < c->ntargets; i++) {
		int r = drain_target(c, &c->targets[i], (int)i);
		if (r && !rc)
			rc = r;
	}
	if (c->pc)
		percpu_drain(c->pc, until, on_switch, c->pc_side ? on_side : NULL, c);
	if (c->side_rc && !rc)
		rc = c->side_rc;
	c->side_rc = 0;
	c->names_pending = thread_table_check_names(c->tt, monotonic_ns(),
						    NAME_WINDOW_NS, proc_comm, NULL);
	return rc;
}

bool counters_names_pending(const struct counters *c)
{
	return c->names_pending > 0;
}

/*
 * Split: add one target's values (per part) to the run's totals (per
 * event). An
 * event's parts combine as the thread table combines them: the values
 * summed, enabled the longest part's, running summed up to enabled.
 */
static void add_target_totals(struct counters *c, const struct thread_count *own)
{
	for (size_t e = 0; e < c->o.nevents; e++) {
		struct thread_count sum = { 0, 0, 0, false };
		for (size_t k = 0; k < c->nev; k++) {
			if (event_of(c, k) != e || !own[k].present)
				continue;
			sum.value += own[k].value;
			sum.running += own[k].running;
			if (own[k].enabled > sum.enabled)
				sum.enabled = own[k].enabled;
			sum.present = true;
		}
		if (!sum.present)
			continue;
		if (sum.running > sum.enabled)
			sum.running = sum.enabled;
		c->totals[e].value += sum.value;
		c->totals[e].enabled += sum.enabled;
		c->totals[e].running += sum.running;
		c->totals[e].present = true;
	}
}

int counters_finish(struct counters *c, char **cause)
{
	if (c->finished)
		return 0;
	int rc = counters_drain(c);
	/* Records written past a stalled head are taken once settled.
	 * Not waited for: a wrapped buffer's stale bytes (until 2026-12-06
	 * any non-zero word was, so every run that had streamed more than
	 * its buffer slept 25 ms at the end). */
	bool pending = false;
	for (size_t i = 0; i < c->ntargets && !pending; i++)
		pending = target_settling(c, &c->targets[i]);
	if (pending) {
		struct timespec pause = { 0, (long)SETTLE_NS + 5000000L };
		nanosleep(&pause, NULL);
		int rc2 = counters_drain(c);
		if (!rc)
			rc = rc2;
	}
	if (c->pc) {
		int prc = percpu_finish(c->pc, on_switch, c->pc_side ? on_side : NULL, c,
					 c->totals);
		if (prc && cause && !*cause)
			cause_set(cause, -prc, "cannot read the per-CPU counters at "
				  "the end: %s", ERR_TEXT(-prc));
		c->finished = true;
		return rc ? rc : prc;
	}
	struct thread_count *own = calloc(c->nev ? c->nev : 1, sizeof(*own));
	if (!own)
		return -ENOMEM;
	for (size_t ti = 0; ti < c->ntargets; ti++) {
		struct target *t = &c->targets[ti];
		memset(own, 0, c->nev * sizeof(*own));
		for (size_t i = 0; i < c->nev; i++) {
			if (t->fds[i] < 0)
				continue;
			uint64_t buf[4];
			ssize_t n = read(t->fds[i], buf, sizeof(buf));
			if (n != (ssize_t)sizeof(buf)) {
				if (cause && !*cause &&
				    asprintf(cause, "cannot read '%s' on task %d: %s",
					     c->ev[i].name, (int)t->tid,
					     n < 0 ? ERR_TEXT(errno) : "short read") < 0)
					*cause = NULL;
				rc = rc ? rc : -EIO;
				continue;
			}
			own[i].value = buf[0];
			own[i].enabled = buf[1];
			own[i].running = buf[2];
			own[i].present = true;
			if (!c->part_event) {
				c->totals[i].value += buf[0];
				c->totals[i].enabled += buf[1];
				c->totals[i].running += buf[2];
				c->totals[i].present = true;
			}
		}
		if (c->part_event)
			add_target_totals(c, own);
		thread_table_settle_target(c->tt, (int)ti, own);
	}
	free(own);
	c->finished = true;
	return rc;
}

const struct thread_count *counters_total(const struct counters *c,
					  size_t event_idx)
{
	return event_idx < c->o.nevents ? &c->totals[event_idx] : NULL;
}

const struct thread_table *counters_threads(const struct counters *c)
{
	return c->tt;
}

void counters_health(const struct counters *c, struct counters_health *h)
{
	memset(h, 0, sizeof(*h));
	h->records = c->records;
	h->undecodable = c->undecodable;
	h->names_from_proc = thread_table_names_from_proc(c->tt);
	if (c->pc) {
		struct percpu_health ph;
		percpu_health(c->pc, &ph);
		h->unattributed = ph.unattributed;
		h->unattributed_ns = ph.unattributed_ns;
		h->reaped_by_stack = ph.reaped_by_stack;
		h->switches = ph.switches;
		h->stalls = ph.stalls;
		h->mux_split = ph.mux_split;
		h->mux_unsplit = ph.mux_unsplit;
		h->percpu_lost = ph.lost;
		h->undecodable += ph.undecodable;
	}
	for (size_t i = 0; i < c->ntargets; i++) {
		h->past_head += c->targets[i].rr.past_head;
		h->torn_bytes += c->targets[i].rr.torn_bytes;
		h->torn_runs += c->targets[i].rr.torn_runs;
	}
}

uint64_t counters_event_id(const struct counters *c, size_t target,
			   size_t event_idx)
{
	/* Split: the event's first part (its first core PMU's). */
	size_t k = event_idx < c->o.nevents ? first_part(c, event_idx) : c->nev;
	if (target >= c->ntargets || k >= c->nev || c->targets[target].fds[k] < 0)
		return 0;
	uint64_t id = 0;
	if (ioctl(c->targets[target].fds[k], PERF_EVENT_IOC_ID, &id) != 0)
		return 0;
	return id;
}

const struct perf_rec_layout *counters_layout(const struct counters *c)
{
	return &c->lay;
}

const struct counter_status *counters_sampler_status(const struct counters *c,
						     size_t i)
{
	return i < c->o.nsamplers ? &c->sst[i] : NULL;
}

uint64_t counters_sampler_id(const struct counters *c, size_t target, size_t i)
{
	if (c->pc_samplers)
		return i < c->o.nsamplers && c->pc_sidx[i] >= 0 ?
		       percpu_sampler_id(c->pc, target, (size_t)c->pc_sidx[i]) : 0;
	if (target >= c->ntargets || i >= c->o.nsamplers ||
	    !c->targets[target].sfds || c->targets[target].sfds[i] < 0)
		return 0;
	uint64_t id = 0;
	if (ioctl(c->targets[target].sfds[i], PERF_EVENT_IOC_ID, &id) != 0)
		return 0;
	return id;
}

const struct perf_rec_layout *counters_sampler_layout(const struct counters *c,
						      size_t i)
{
	if (c->pc_samplers)
		return i < c->o.nsamplers && c->pc_sidx[i] >= 0 ?
		       percpu_sampler_layout(c->pc, (size_t)c->pc_sidx[i]) : NULL;
	uint64_t id = counters_sampler_id(c, 0, i);
	return id ? layout_for_id(id, (void *)c) : NULL;
}
