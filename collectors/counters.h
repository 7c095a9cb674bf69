/*
 * counters: open a run's events on a task, drain their ring buffer while
 * the workload runs, and settle per-thread values at the end.
 *
 * The recipe (shared/DESIGN.md, verified on this kernel): per target task,
 * one non-inherited software dummy event owns a ring buffer; every counting
 * event is opened on the same task with cpu=-1, inherit=1, inherit_stat=1
 * and its output redirected there with PERF_EVENT_IOC_SET_OUTPUT. Each
 * inherited thread that exits then writes one PERF_RECORD_READ per event
 * with its own values, so per-thread counts cost what perf stat costs and
 * do not grow with the CPU count. On 6.18 a group read's record shrinks as
 * siblings detach at exit (measured: nr=3, 2, 1 for a three-event group),
 * so every event is read on its own (no PERF_FORMAT_GROUP) and is given its
 * own SET_OUTPUT.
 *
 * Hardware events are opened as groups, scheduled together; an event that
 * does not fit the current group starts a new one. Software events are
 * opened alone (they never multiplex). An event the kernel refuses is
 * marked not supported with the reason, and the others go on.
 *
 * Owned by the caller (counters_new/counters_free). Not thread-safe.
 */
#ifndef COLLECTORS_COUNTERS_H
#define COLLECTORS_COUNTERS_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collectors/events.h"
#include "collectors/pmuplan.h"
#include "collectors/stall.h"
#include "collectors/threads.h"

enum counters_flags {
	/* Counting starts when the task execs (a launched child). */
	COUNTERS_ENABLE_ON_EXEC = 1 << 0,
	/* The side-band event also reports data mappings (attr.mmap_data):
	 * heap, anonymous memory, file-backed data, as MMAP2 records. More
	 * records, so only for a working-set run. */
	COUNTERS_MMAP_DATA = 1 << 1,
	/* Ask the kernel to put the build id into MMAP2 records
	 * (attr.build_id, Linux 5.12+). A kernel that refuses the bit gets
	 * the event again without it; the record then carries the inode. */
	COUNTERS_BUILD_ID = 1 << 2,
	/* Count per CPU in the cgroup open as cgroup_fd, each switch's
	 * difference given to the thread that ran (percpu.h), the side-band
	 * records (COMM, FORK/EXIT, MMAP2) and the samplers' samples in the
	 * same per-CPU buffers (on the task where a sampler reads counters
	 * or the raw records are dumped). Where the kernel refuses it (no right to count per CPU),
	 * the run falls back to the per-task recipe and counters_path_note
	 * says why. Launched workloads only: the first target must be the
	 * cgroup's first task, not yet exec'd. */
	COUNTERS_PERCPU = 1 << 3,
};

/* How a run's per-thread counts were collected. */
enum counters_path {
	/* Inherited per-task counters; each thread's own values arrive in a
	 * PERF_RECORD_READ at its exit (inherit_stat). */
	COUNTERS_PATH_TASK,
	/* Per-CPU counters in the run's cgroup, attributed at switches. */
	COUNTERS_PATH_PERCPU,
};

/*
 * A sampling event opened beside the counting ones: inherited and
 * redirected into the same buffer. attr carries the event (type, config),
 * sample_period or sample_freq (with freq set), and the sample_type bits
 * the caller needs beyond the ones every record carries (TID, TIME, CPU
 * and IDENTIFIER are always added): e.g. PERF_SAMPLE_ADDR for page-fault
 * addresses, PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_REGS_USER with
 * sample_regs_user, PERF_SAMPLE_STACK_USER with sample_stack_user.
 */
struct sampler_desc {
	const char *name;
	struct perf_event_attr attr;
	bool hardware;
	/* Also read the run's counting events at each sample: each
	 * supported software event opens again as a sibling of this sampler
	 * (inherited like it), and every sample carries the group's values
	 * (PERF_SAMPLE_READ, PERF_FORMAT_GROUP | ID). Since Linux 6.12 these
	 * are the sampled thread's own values (docs/intervals.md); an older
	 * kernel refuses inherit with PERF_SAMPLE_READ, and the sampler is
	 * then not supported. Map a value's id with counters_read_index. */
	bool read_counters;
};

struct counters_opts {
	const struct event_desc *events;	/* borrowed for the session */
	size_t nevents;
	/* The attrs per core PMU for events[] (collectors/pmuplan.h),
	 * borrowed for the session; NULL, or a plan that splits nothing,
	 * opens each event as resolved. Where it splits (hybrid,
	 * big.LITTLE): per task, each part is opened (a group holds one
	 * PMU's parts) and an event's value is its parts combined (the
	 * thread rows' parts[] keep each); per CPU, each CPU opens its own
	 * PMU's part. Statuses, totals and rows stay per event. */
	const struct pmu_plan *plan;
	const struct sampler_desc *samplers;	/* borrowed; may be NULL */
	size_t nsamplers;
	size_t mmap_pages;	/* data pages per buffer (power of 2); 0: 256 */
	unsigned flags;
	/* Called with every raw record drained, before decoding (may be
	 * NULL): lets a caller save ring-buffer bytes for tests. */
	void (*record_hook)(const void *rec, size_t len, void *arg);
	void *hook_arg;
	/* Called with every decoded record after the thread table has seen
	 * it (MMAP2 and SAMPLE records are what callers want), with the index
	 * of the target whose buffer it came from. Pointers inside rec are
	 * valid only during the call: copy what must outlive it. */
	void (*on_record)(const struct perf_rec *rec, int origin, void *arg);
	void *rec_arg;
	int cgroup_fd;		/* with COUNTERS_PERCPU: the run's cgroup */
	/* The per-CPU path: also read every tick_ns of a task's time on a
	 * CPU (0: at switches only), and hand each thread's running totals
	 * at every switch and tick to on_counts (may be NULL): vals[e]
	 * where have[e], time CLOCK_MONOTONIC ns; running: a tick, the
	 * thread runs on until its next call. For -I and --frames. */
	uint64_t percpu_tick_ns;
	void (*on_counts)(int32_t tid, uint64_t time, const uint64_t *vals,
			  const bool *have, bool running, void *arg);
	void *counts_arg;
};

struct counter_status {
	bool supported;
	int err;		/* errno of the refusal, 0 when supported */
	char *reason;		/* why not supported, or a note; may be NULL */
	int group;		/* hardware group (1..), 0 for software events */
	bool user_only;		/* fell back to exclude_kernel (paranoid) */
};

struct counters;

struct counters *counters_new(const struct counters_opts *opts);
void counters_free(struct counters *c);

/*
 * Open the events on task tid (of process pid). The first call decides
 * which events are supported and how hardware events are grouped; later
 * calls (attaching more threads) open only those. Returns 0 when at least
 * one event is counting; -errno with *cause (and "hint:" lines) when none
 * could be opened or the ring buffer could not be set up.
 */
int counters_open_task(struct counters *c, pid_t pid, pid_t tid,
		       const char *name, char **cause);

const struct counter_status *counters_status(const struct counters *c,
					     size_t event_idx);

/*
 * Status of sampler i (supported, reason) and its kernel ids, to tell its
 * samples apart (PERF_SAMPLE_IDENTIFIER): one per target, or on the
 * per-CPU path one per CPU; 0 past the last.
 */
const struct counter_status *counters_sampler_status(const struct counters *c,
						     size_t i);
uint64_t counters_sampler_id(const struct counters *c, size_t target, size_t i);
/* The layout sampler i's samples follow, or NULL when it is not opened. */
const struct perf_rec_layout *counters_sampler_layout(const struct counters *c,
						      size_t i);

/*
 * The event index of a value a read_counters sampler's sample carries,
 * by its kernel id: -1 for the sampler itself, -2 for an unknown id.
 */
int counters_read_index(const struct counters *c, uint64_t id);

/*
 * Spread a read_counters sample's values over vals[] by event index
 * (nev of them), marking have[] for those it carried; the rest are left
 * unmarked (clears have[] first).
 */
void counters_read_values(const struct counters *c, const struct perf_rec *rec,
			  uint64_t *vals, bool *have, size_t nev);

/* The path the counts took (decided by the first counters_open_task). */
enum counters_path counters_path(const struct counters *c);
/* "percpu" or "task", as stored with the run. */
const char *counters_path_name(enum counters_path path);
/* Before the first counters_open_task: count per task after all, since
 * why (copied) kept the per-CPU path from being set up. */
void counters_forgo_percpu(struct counters *c, const char *why);
/* Why COUNTERS_PERCPU was asked for but not taken, or NULL. */
const char *counters_path_note(const struct counters *c);
/* Where the samplers' samples came: per CPU with the switches, or in the
 * task buffers. */
enum counters_path counters_sample_path(const struct counters *c);

/* The file descriptors to poll for POLLIN: one that reads when any
 * buffer has passed its watermark (ringwake.h), or where that could not
 * be set up, the buffers' own (one per target, and one per CPU on the
 * per-CPU path). Call counters_drain after each poll. */
size_t counters_pollfds(const struct counters *c, struct pollfd *out, size_t max);

/*
 * Drain every buffer into the thread table. 0 or -errno. Then each young
 * task with no COMM record yet has its name read from /proc
 * (thread_table_check_names).
 */
int counters_drain(struct counters *c);
/* Some young task has not named itself yet: drain again soon (10 ms),
 * not at the usual pace, to see its name while it still runs. */
bool counters_names_pending(const struct counters *c);

/*
 * Final drain, read each event's total on every target, and derive each
 * target's own share. Call once, after the workload has exited or the
 * attach has ended.
 */
int counters_finish(struct counters *c, char **cause);

/* Totals over all threads (valid after counters_finish). */
const struct thread_count *counters_total(const struct counters *c,
					  size_t event_idx);
const struct thread_table *counters_threads(const struct counters *c);

/* How the ring buffers were read: the evidence of a complete run. */
struct counters_health {
	uint64_t records;	/* records taken */
	uint64_t undecodable;	/* taken but not decodable */
	uint64_t past_head;	/* taken past a head the kernel left behind */
	uint64_t torn_bytes;	/* skipped as unreadable (torn) */
	uint64_t torn_runs;
	/* threads named from /proc: their COMM record never arrived
	 * (thread_table_check_names) */
	uint64_t names_from_proc;
	/* the per-CPU path: switches whose task could not be named, and the
	 * task-clock (ns) they held; records its buffers lost */
	uint64_t unattributed, unattributed_ns, percpu_lost;
	uint64_t reaped_by_stack;	/* reaped tasks' samples named by their kernel stack */
	uint64_t switches;	/* the workload's context switches it saw */
	/* the per-CPU path: switches the CPU stood still in (stall.h) */
	struct stall_tally stalls;
	/* the per-CPU path: multiplexed hardware groups' samples shared
	 * over the slices that ran meanwhile, and those given whole to one
	 * thread for want of the slices (percpu_health) */
	uint64_t mux_split, mux_unsplit;
};
void counters_health(const struct counters *c, struct counters_health *h);

/* The kernel id of event_idx on target (0 when not opened). */
uint64_t counters_event_id(const struct counters *c, size_t target,
			   size_t event_idx);

/* The layout every record in the buffers follows (for replaying them). */
const struct perf_rec_layout *counters_layout(const struct counters *c);

/* A sentence of hints for a failed perf_event_open errno (may be NULL). */
char *counters_open_hints(int err, bool hardware);

/* True when the live task's real and effective user or group ids differ
 * (it exec'd a set-user-ID or set-group-ID program); false when they
 * match or the task is gone. */
bool task_gained_privileges(pid_t pid, pid_t tid);

/* Mark tid's row as one whose privileges changed at exec. */
void counters_mark_privileged(struct counters *c, pid_t tid);

/* /proc/sys/kernel/perf_event_paranoid, or -100 when unreadable. */
int counters_paranoid(void);

#endif
