/*
 * sysdelta: what the whole machine did during a run, as the difference
 * of two snapshots of its own counters: /proc/vmstat (page faults,
 * migrations, reclaim...), /proc/stat (each CPU's user, system, irq,
 * softirq and steal time, context switches, forks), /proc/interrupts
 * (interrupts per CPU, all sources together) and /proc/schedstat (each
 * CPU's running and waiting time and timeslices, where the kernel keeps
 * schedstats). A file the machine lacks adds nothing.
 *
 * Values are named by their source: "vmstat.pgfault", "stat.cpu1.steal_ms",
 * "stat.cpu.user_ms" (all CPUs), "stat.ctxt", "interrupts.cpu0",
 * "interrupts.total", "schedstat.cpu0.wait_ns". /proc/stat's clock ticks
 * are turned into milliseconds.
 *
 * A snapshot is owned by its caller (sys_snap_release). Not thread-safe.
 */
#ifndef COLLECTORS_SYSDELTA_H
#define COLLECTORS_SYSDELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sys_val {
	char *name;
	int64_t v;
};

struct sys_snap {
	struct sys_val *vals;
	size_t n, cap;
};

/*
 * Snapshot every source below procfs_root ("/proc" normally). 0, or
 * -ENOMEM; a source that cannot be read is left out.
 */
int sys_snap_read(struct sys_snap *s, const char *procfs_root);
void sys_snap_release(struct sys_snap *s);

/* The parsers behind it, one per source, each adding to s: 0, -ENOMEM,
 * or -EINVAL when the text is not what the kernel writes. */
int sys_parse_vmstat(FILE *fp, struct sys_snap *s);
int sys_parse_stat(FILE *fp, long ticks_per_s, struct sys_snap *s);
int sys_parse_interrupts(FILE *fp, struct sys_snap *s);
int sys_parse_schedstat(FILE *fp, struct sys_snap *s);

/* The value called name, or false. */
bool sys_snap_get(const struct sys_snap *s, const char *name, int64_t *v);

/*
 * after - before for every name in after whose value changed (a name new
 * in after counts from 0), in after's order: *out is calloc'd (n entries,
 * names copied; free with sys_deltas_free). 0 or -ENOMEM.
 */
int sys_snap_delta(const struct sys_snap *before, const struct sys_snap *after,
		   struct sys_val **out, size_t *n);
void sys_deltas_free(struct sys_val *d, size_t n);

#endif
