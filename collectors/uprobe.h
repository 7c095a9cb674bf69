/*
 * uprobe: a function entry as a perf event (prof run --frame-symbol
 * MODULE:SYMBOL), through the kernel's uprobe PMU
 * (/sys/bus/event_source/devices/uprobe): the event's type is that PMU's,
 * config1 points at the module's path and config2 is the file offset of
 * the probed instruction (perf_event_open(2), "kprobe and uprobe"). No
 * tracefs is needed.
 *
 * The file offset of a symbol is its vaddr less its PT_LOAD segment's
 * vaddr plus that segment's file offset (collectors/elf.h), the same for
 * a PIE, a fixed-address executable or a shared library.
 *
 * Found here (Linux 6.18): a uprobe PMU event cannot be inherited. The
 * kernel initialises an inherited copy at each clone by reading config1
 * (the path) again, as a pointer into the cloning task's memory, where
 * prof's pointer means nothing: clone3() fails with EFAULT and the
 * workload cannot start a thread. So the probe is opened once per CPU for
 * every task (pid -1), each CPU with its own ring buffer, and the samples
 * are kept for the workload's pid only (uprobe_rings_*). That needs
 * CAP_PERFMON (or root), as any CPU-wide event does.
 *
 * Causes are malloc'd, the caller's to free. The functions keep no state;
 * a struct uprobe_rings is its owner's, not thread-safe.
 */
#ifndef COLLECTORS_UPROBE_H
#define COLLECTORS_UPROBE_H

#include <linux/perf_event.h>
#include <stdint.h>

/*
 * The uprobe PMU's type, read from ROOT/bus/event_source/devices/uprobe/
 * type (root NULL: /sys). The type (> 0), or a negative errno and *cause.
 */
int uprobe_pmu_type(const char *sysfs_root, char **cause);

/*
 * The file offset of function symbol sym in the ELF file at path. 0, or
 * -ENOENT with a cause that lists up to three of the closest function
 * names in the file ("no function 'x' in 'path'" and a "hint:" line), or
 * another negative errno with a cause (an unreadable or malformed file).
 */
int uprobe_symbol_offset(const char *path, const char *sym, uint64_t *offset,
			 char **cause);

/*
 * Fill a for a probe at offset in path (borrowed: it must outlive the
 * perf_event_open call) that samples every entry (no return probe) with
 * its pid, tid and CLOCK_MONOTONIC time.
 */
void uprobe_attr(struct perf_event_attr *a, int type, const char *path,
		 uint64_t offset);

struct uprobe_rings;

/*
 * Open a (from uprobe_attr) on every online CPU for every task, each with
 * a ring buffer of pages data pages (a power of two). 0, or a negative
 * errno and *cause. The probe is live on return.
 */
int uprobe_rings_open(const struct perf_event_attr *a, size_t pages,
		      struct uprobe_rings **out, char **cause);
/* Call fn for every sample of process pid that the buffers hold now. */
void uprobe_rings_drain(struct uprobe_rings *r, int32_t pid,
			void (*fn)(uint64_t t_ns, void *arg), void *arg);
/* Samples the kernel could not write (a buffer was full). */
uint64_t uprobe_rings_lost(const struct uprobe_rings *r);
void uprobe_rings_close(struct uprobe_rings *r);	/* NULL is fine */

#endif
