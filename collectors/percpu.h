/*
 * percpu: per-thread counts from per-CPU counters, attributed at context
 * switches. The collection path for kernels that send no
 * PERF_RECORD_READ when an inherited counter's thread exits (Debian 12's
 * 6.1 and 6.12, measured under QEMU: docs/kernels.md), and the default
 * wherever prof may count per CPU, since it needs no inherit_stat and no
 * ring buffer written from several CPUs.
 *
 * On every online CPU, one group per scheduling unit (the software
 * events together, each hardware group apart), each led by a software
 * context-switch sampler (period 1, PERF_SAMPLE_READ of the whole group)
 * and scoped to the run's cgroup (PERF_FLAG_PID_CGROUP), so the counters
 * count only while one of the workload's tasks runs there. Every switch
 * away from such a task writes a sample with the group's values; the
 * difference from the previous sample on that CPU is what the task that
 * ran in between did. A task already reaped when it last switches out
 * samples with tid -1: the CPU's last switch-in record (context_switch
 * records) names it, or else the kernel stack the sample was taken on,
 * learnt while the task was named. Given side-band bits (comm, task, mmap), each CPU's
 * software leader also carries the side-band records of the tasks that
 * run there, so that FORK, COMM and EXIT come in time order with the
 * switches, and samplers (percpu_add_sampler: prof record's, the working
 * set's page faults) write there too. Each CPU's buffer is written by
 * that CPU alone.
 *
 * With more hardware events than counters the kernel rotates the
 * hardware groups on and off the PMU at its mux timer, not at switches,
 * and a group off the PMU takes no switch samples: its next sample
 * covers several slices of the workload. Each CPU keeps the slices the
 * software group (always on) saw since every hardware group last
 * sampled, and such a sample is shared over them by their lengths
 * (percpu_share): an estimate, as perf's scaling is (percpu_health says
 * how many were, and how many could not be).
 *
 * Needs the right to count per CPU (CAP_PERFMON, root, or
 * perf_event_paranoid <= 0) and a cgroup; percpu_open says which is
 * missing, and the caller falls back to another path.
 *
 * Owned by the caller (percpu_open/percpu_free). Not thread-safe.
 */
#ifndef COLLECTORS_PERCPU_H
#define COLLECTORS_PERCPU_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/events.h"
#include "collectors/pmuplan.h"
#include "collectors/stall.h"
#include "collectors/threads.h"

struct percpu;

/*
 * Open events[] on every online CPU, scoped to the cgroup whose directory
 * is open as cgroup_fd, with pages data pages (a power of two) per CPU's
 * buffer; counting starts at once (the workload must not run yet).
 * err[i] receives 0 for an event that counts, or the errno of its
 * refusal on the first CPU (those are left out everywhere); skip[i] true
 * leaves event i out without trying it. group[i] receives the hardware
 * group (1..) or 0. tick_ns > 0 also reads the software group every
 * tick_ns of a workload task's time on a CPU (a cpu-clock sampler in the
 * group, and in each hardware group), so a thread that runs long without
 * a switch is still seen between (-I and --frames). side, when not NULL, holds the side-band
 * bits to ask (comm, comm_exec, task, mmap, mmap2, mmap_data, build_id;
 * a kernel that does not know build_id is asked again without). Returns
 * NULL with errno and *cause when the path cannot be used at all (no
 * right to count per CPU, no event at all). plan (may be NULL; borrowed
 * for the session), where it splits the events over core PMUs (hybrid),
 * says which attr each CPU opens for an event: its own PMU's part, as
 * perf does per CPU; a CPU that no part of an event serves does not count
 * it. The groups are decided on the first CPU: where another core type
 * cannot hold them alike, the path fails there and the caller counts
 * per task.
 */
struct percpu *percpu_open(const struct event_desc *events, size_t nevents,
			   const struct pmu_plan *plan,
			   const bool *skip, int cgroup_fd, size_t pages,
			   uint64_t tick_ns, const struct perf_event_attr *side,
			   int *err, int *group, char **cause);
void percpu_free(struct percpu *p);

/*
 * Also sample attr (the event, its period or frequency, the sample_type
 * bits wanted beyond IDENTIFIER, TID, TIME and CPU, which are added) on
 * every CPU in the run's cgroup, not inherited, each CPU's samples
 * written into that CPU's buffer and handed to the side-band function in
 * time order with the switches and the side-band records (a reaped task's
 * sample named by the CPU's last switch-in). Samples at once: call it
 * before the workload runs. A refusal for want of the right to see the
 * kernel is retried user-only (*user_only then true). 0, or the negative
 * errno of the first CPU's refusal (the sampler is then left out), or of
 * a later CPU's with *cause.
 */
int percpu_add_sampler(struct percpu *p, const struct perf_event_attr *attr,
		       bool *user_only, char **cause);
/* Sampler i's id on the cpu-th CPU counted on (0 past the last) and the
 * layout of its samples (NULL past the last). */
uint64_t percpu_sampler_id(const struct percpu *p, size_t cpu, size_t i);
const struct perf_rec_layout *percpu_sampler_layout(const struct percpu *p, size_t i);

/*
 * What one thread did between two switches on CPU cpu (the kernel's
 * number): deltas[e] for the events of
 * one group (present set), the others not present. pid/tid are the
 * task's; time is the switch's (CLOCK_MONOTONIC ns). running: this was a
 * tick, and the thread runs on from it without a switch until its next
 * deltas come (a switch, false, leaves the CPU). deltas NULL (running
 * true): the thread was switched in, its values unchanged since.
 */
typedef void (*percpu_fn)(int32_t pid, int32_t tid, uint64_t time, int cpu,
			  const struct thread_count *deltas, bool running,
			  void *arg);

/* A side-band record (COMM, FORK, EXIT, MMAP...) or a sampler's sample,
 * in time order with the switches; NULL where percpu_open was given no
 * side-band bits. */
typedef void (*percpu_side_fn)(const struct perf_rec *r, void *arg);

/*
 * Take every record up to time until_ns (later ones stay for the next
 * call, so the caller can first read the side-band records that precede
 * them) and hand each switch's deltas to fn. 0 or -errno.
 */
int percpu_drain(struct percpu *p, uint64_t until_ns, percpu_fn fn,
		 percpu_side_fn side, void *arg);

/*
 * After the workload is over: take every record left, read each CPU's
 * groups once more (what ran after the last switch goes to the task that
 * CPU last switched to) and sum the CPUs into totals[nevents]. 0 or
 * -errno.
 */
int percpu_finish(struct percpu *p, percpu_fn fn, percpu_side_fn side, void *arg,
		  struct thread_count *totals);

/* The buffers' descriptors, to poll for POLLIN. */
size_t percpu_pollfds(const struct percpu *p, struct pollfd *out, size_t max);

struct percpu_health {
	size_t cpus;		/* CPUs counted on */
	uint64_t samples;	/* switch samples taken */
	/* the workload's context switches: the software group's samples at
	 * switches (not its -I / --frames ticks) */
	uint64_t switches;
	uint64_t lost;		/* records the kernel lost (buffer full) */
	uint64_t undecodable;
	uint64_t foreign;	/* samples that carried another event's id */
	/* Switches whose task could not be named (reaped, and its
	 * switch-in not seen): their deltas are in no thread's row. */
	uint64_t unattributed;
	/* ... and the task-clock (ns) they held, when it is counted */
	uint64_t unattributed_ns;
	/* Samples of reaped tasks named by the kernel stack they ran on */
	uint64_t reaped_by_stack;
	/* Hardware groups' samples over spans they were partly off the PMU
	 * for (multiplexed) in which several slices ran: split over the
	 * slices by their lengths (percpu_share), in mux_parts shares; and
	 * those that could not be, their slices not kept (out of memory, or
	 * more than a CPU keeps), given whole to the sample's thread. */
	uint64_t mux_split, mux_parts, mux_unsplit;
	uint64_t sampled;	/* the samplers' samples taken */
	/* Switches whose own records lay 1 ms or more apart: the CPU stood
	 * still inside them (collectors/stall.h) */
	struct stall_tally stalls;
};
void percpu_health(const struct percpu *p, struct percpu_health *h);

/*
 * Share i of one group's deltas d[n] (the events not present stay so)
 * split over nparts slices of lengths len[] in proportion to their
 * lengths: values, time enabled and time running alike, so each share's
 * scaled value is the same fraction of the group's. Rounded on the
 * running sums, so the shares add up to d exactly. A multiplexed group
 * counted the span only in part, so a share is an estimate that assumes
 * a steady rate over the span, as perf's scaling does. Pure.
 */
void percpu_share(const struct thread_count *d, size_t n, const uint64_t *len,
		  size_t nparts, size_t i, struct thread_count *out);

#endif
