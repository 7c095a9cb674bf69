/*
 * threads: decode perf ring-buffer records and keep one row per thread.
 *
 * The counters module redirects every event of a run into one ring buffer
 * per target task. This module turns the records found there into rows:
 * PERF_RECORD_FORK starts a row (named after its parent), COMM renames it
 * (the last name wins), EXIT stamps its end, and READ carries the thread's
 * own final value of one event (inherit_stat makes the kernel write one per
 * event for every inherited thread that exits). LOST is summed.
 *
 * Thread ids are reused on busy machines, so a row is keyed by tid only
 * while it is live: a READ for an event the current row already holds, or
 * a FORK or COMM after the row's EXIT, opens a new row for the same tid.
 *
 * The decoder is a pure function over bytes, so recorded ring-buffer bytes
 * can be replayed in tests. The table is owned by its creator; not
 * thread-safe.
 */
#ifndef COLLECTORS_THREADS_H
#define COLLECTORS_THREADS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How records in one buffer are laid out: the events' sample_type and
 * read_format, which must agree for every event writing into it. */
struct perf_rec_layout {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t regs_user_mask;	/* PERF_SAMPLE_REGS_USER registers */
	uint64_t regs_intr_mask;	/* PERF_SAMPLE_REGS_INTR registers */
};

/* The sample_id trailer (sample_id_all) of non-sample records. */
struct perf_sample_id {
	bool valid;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t id;
};

#define PERF_REC_MAX_READ 64

struct perf_rec {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	struct perf_sample_id sid;
	union {
		struct { uint32_t pid, tid; const char *comm; } comm;
		struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } task;
		struct {
			uint32_t pid, tid;
			uint64_t enabled, running;
			size_t nr;
			uint64_t value[PERF_REC_MAX_READ];
			uint64_t id[PERF_REC_MAX_READ];
		} read;
		struct { uint64_t id, lost; } lost;
		/* PERF_RECORD_SWITCH_CPU_WIDE: the task switched to (an out
		 * record) or from (an in record); 0 for a plain SWITCH */
		struct { uint32_t next_prev_pid, next_prev_tid; } sw;
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t prot, flags;
			bool has_build_id;
			uint8_t build_id_size;
			uint8_t build_id[20];
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			const char *filename;
		} mmap;	/* MMAP and MMAP2 */
		struct {
			uint64_t identifier, ip, addr, id, stream_id, period;
			uint32_t pid, tid, cpu;
			uint64_t time;
			uint64_t nr_callchain;
			const uint64_t *callchain;
			uint64_t abi;
			const uint64_t *regs;	/* nregs words */
			uint32_t nregs;		/* popcount(regs_user_mask) */
			uint64_t stack_size, stack_dyn_size;
			const uint8_t *stack;
			/* PERF_SAMPLE_REGS_INTR: the registers where the
			 * sample was taken (kernel ones in the kernel) */
			uint64_t intr_abi;
			const uint64_t *intr_regs;	/* nintr words */
			uint32_t nintr;		/* popcount(regs_intr_mask) */
			/* PERF_SAMPLE_READ: read_nr values, each at
			 * read_vals[i * read_stride] with its id (when
			 * PERF_FORMAT_ID) in the word after it. */
			uint64_t read_nr;
			const uint64_t *read_vals;
			unsigned read_stride;
			bool read_has_id;
			/* PERF_FORMAT_TOTAL_TIME_ENABLED / _RUNNING of a
			 * group read (0 when not asked for) */
			uint64_t read_enabled, read_running;
		} sample;
	} u;
};

/*
 * Decode one record of len bytes (len >= header.size). For samples whose
 * layout differs per event, layout_for_id (may be NULL) maps the sample's
 * PERF_SAMPLE_IDENTIFIER to that event's layout. Pointers in *out point
 * into buf. Returns 0, or -EINVAL for a record that is too short for what
 * its layout says it holds (never reads past len).
 */
int perf_rec_decode(const void *buf, size_t len, const struct perf_rec_layout *lay,
		    const struct perf_rec_layout *(*layout_for_id)(uint64_t id, void *arg),
		    void *arg, struct perf_rec *out);

/*
 * A record's time (its sample_id trailer's, or a sample's own), read
 * without decoding the rest of it; 0 where it has none or it cannot be
 * read. What a reader that only orders records needs.
 */
uint64_t perf_rec_time(const void *buf, size_t len, const struct perf_rec_layout *lay,
		       const struct perf_rec_layout *(*layout_for_id)(uint64_t id, void *arg),
		       void *arg);

/* The byte size of the sample_id trailer for a sample_type. */
size_t perf_sample_id_size(uint64_t sample_type);

/* One value of one event for one thread. */
struct thread_count {
	uint64_t value, enabled, running;
	bool present;		/* a value arrived for this event */
};

struct thread_row {
	int32_t pid, tid;
	char name[16];
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC, 0 when unknown */
	bool exited;
	bool is_target;		/* a task the events were opened on */
	bool forked;		/* its FORK record arrived */
	bool named;		/* a COMM record arrived */
	bool name_from_proc;	/* named by thread_table_check_names, and no
				 * COMM record has confirmed it (yet) */
	bool privileged;	/* its privileges changed at exec: the kernel
				 * stopped counting it there */
	int origin;		/* index of the target whose buffer fed it */
	struct thread_count *counts;	/* nevents entries */
	/* Where events are split over core PMUs (thread_table_set_parts):
	 * nparts entries, each event's count on one PMU; else NULL. */
	struct thread_count *parts;
};

struct thread_table;

/* A table for nevents events; NULL and errno on failure. */
struct thread_table *thread_table_new(size_t nevents);
void thread_table_free(struct thread_table *tt);

/*
 * Split the events over core PMUs (a hybrid part: collectors/pmuplan.h):
 * part k of nparts counts event part_event[k] on one PMU. Rows then carry
 * parts[] as well, and an event's count in counts[] is its parts
 * combined: the values summed, enabled the longest part's (each part is
 * enabled all the while the task is), running summed (each runs only on
 * its PMU's CPUs), at most enabled. Call before any row exists. 0,
 * -ENOMEM, or -EINVAL for a part_event past the events.
 */
int thread_table_set_parts(struct thread_table *tt, size_t nparts,
			   const size_t *part_event);

/* Map a kernel event id (PERF_EVENT_IOC_ID) to an event index, or where
 * the events are split, to a part index. */
int thread_table_map_id(struct thread_table *tt, uint64_t id, size_t event_idx);

/* Mark tid's latest row: its privileges changed at exec. 0, or -ENOENT
 * when no row has that tid. */
int thread_table_mark_privileged(struct thread_table *tt, int32_t tid);

/* True when id was mapped with thread_table_map_id. */
bool thread_table_knows_id(const struct thread_table *tt, uint64_t id);

/*
 * Declare a target task (the launched child, or a thread attached with
 * -p): its row is flagged, and origin is the index used in feed().
 */
int thread_table_add_target(struct thread_table *tt, int32_t pid, int32_t tid,
			    const char *name, int origin);

/*
 * Apply one decoded record that arrived in target `origin`'s buffer.
 * Returns 0, or -ENOMEM. Records of other types are ignored.
 */
int thread_table_feed(struct thread_table *tt, const struct perf_rec *rec,
		      int origin);

/*
 * Give a target its own values: totals[] is what read() returned for each
 * event opened on it (the task plus every inherited thread that exited);
 * the target's own share is that minus the READ records that arrived
 * through its buffer. totals[i].present false leaves event i absent.
 * Where the events are split, totals[] has one entry per part.
 */
void thread_table_settle_target(struct thread_table *tt, int origin,
				const struct thread_count *totals);

/*
 * Add what thread tid (of process pid) did up to time (CLOCK_MONOTONIC
 * ns) to its row: deltas[e] for each event e that is present. The row is
 * tid's latest one that had started by then (tids are reused); a tid with
 * no row yet gets one, with no start record (the audit counts it). For
 * counts that arrive per switch (percpu.h) rather than as READ records:
 * from the first call on, the audit takes a row with counts but no EXIT
 * for a task still running at the end. *row (may be NULL) is the row the
 * counts went to, its counts now the thread's running totals. 0 or
 * -ENOMEM.
 */
int thread_table_add_counts(struct thread_table *tt, int32_t pid, int32_t tid,
			    uint64_t time, const struct thread_count *deltas,
			    const struct thread_row **row);

/*
 * The same, where the events are split: part[e] is the part that
 * deltas[e] was counted by (the PMU of the CPU it ran on), or -1 for an
 * event that is not split; its delta goes to that part as well.
 */
int thread_table_add_part_counts(struct thread_table *tt, int32_t pid,
				 int32_t tid, uint64_t time,
				 const struct thread_count *deltas,
				 const long *part, const struct thread_row **row);

/*
 * What the records say of the tasks that are not targets, to tell a
 * complete run from one whose buffer missed records. supported[e] says
 * which events were counted (a READ is due for each).
 */
struct thread_audit {
	size_t tasks;		/* rows that are not targets */
	size_t no_start;	/* no FORK record: its start was not seen */
	size_t no_counts;	/* its EXIT arrived but no READ: no counts */
	size_t partial;		/* READs for some counted events, not all */
	size_t live;		/* neither EXIT nor READ: running at the end */
	size_t privileged;	/* exec'd a set-user-ID or set-group-ID program */
	char privileged_name[16];	/* the first such task's name */
};
void thread_table_audit(const struct thread_table *tt, const bool *supported,
			struct thread_audit *out);

/*
 * Two CPUs that reserve the same bytes of the ring leave one record where
 * two were written, without a trace when both are the same size: two new
 * threads that name themselves at once (two 6-letter names, say) lose one
 * COMM record, and that thread keeps its creator's name. So, for each
 * task that a FORK started within the last window_ns before now_ns, that
 * has had no COMM record and still runs, ask read_comm for its name as
 * it is now (/proc); one that differs is taken and marked name_from_proc.
 * Call after each drain; rows are scanned from the oldest still in the
 * window. read_comm returns false when the task is gone. Returns how many
 * tasks are still to be asked at the next call: a caller that drains
 * again soon catches the name of a task that lives only briefly.
 */
typedef bool (*thread_comm_fn)(int32_t pid, int32_t tid, char name[16], void *arg);
size_t thread_table_check_names(struct thread_table *tt, uint64_t now_ns,
				uint64_t window_ns, thread_comm_fn read_comm, void *arg);
/* Rows named by thread_table_check_names whose COMM record never came. */
size_t thread_table_names_from_proc(const struct thread_table *tt);

size_t thread_table_count(const struct thread_table *tt);
const struct thread_row *thread_table_row(const struct thread_table *tt, size_t i);
uint64_t thread_table_lost(const struct thread_table *tt);
/* Values that went negative when a target's share was derived. */
uint64_t thread_table_anomalies(const struct thread_table *tt);

/*
 * The file `prof run --record-dump` writes, for replaying a run's records
 * in tests: this header, nevents event entries, nsamplers sampler entries
 * (the first target's kernel id and the layout of each sampler's samples),
 * then the raw records in the order they were drained. Dumps written
 * before samplers existed have nsamplers 0.
 */
#define RING_DUMP_MAGIC "PROFRNG1"

struct ring_dump_header {
	char magic[8];
	uint64_t sample_type;
	uint64_t read_format;
	uint32_t nevents;
	uint32_t nsamplers;
};

struct ring_dump_event {
	uint64_t id;
	char name[56];
};

struct ring_dump_sampler {
	uint64_t id;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t regs_user_mask;
	char name[32];
};

#endif
