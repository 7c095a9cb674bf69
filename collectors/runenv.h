/*
 * runenv: the settings of the machine that change how a run performs,
 * read at its start: kernel and command line, CPU model and microcode,
 * each CPU's frequency governor and limits, turbo/boost, SMT, transparent
 * huge pages, perf_event_paranoid, isolated CPUs, the load average,
 * automatic NUMA balancing and the CPU vulnerabilities' mitigations.
 *
 * Read below two roots, so that tests can point them at fixture trees:
 * sysfs_root holds sys/ (as `prof topo --sysfs ROOT`), procfs_root holds
 * proc/ (both "/" normally). A setting the machine does not have (no
 * cpufreq in a VM, no NUMA balancing) is left out, so two runs differ in
 * it only when one machine has it and the other not.
 *
 * Keys, in this order: kernel, cmdline, cpu_model, microcode, governor,
 * min_khz, max_khz, boost, smt, thp, thp_defrag, perf_event_paranoid,
 * core_pmus, isolated, nohz_full, loadavg, numa_balancing, then
 * mitigation.<name> for each vulnerability. Per-CPU settings read as one
 * value when every CPU agrees, else "cpu0=a cpu1=b ...". core_pmus names
 * the PMUs that count the CPU's own events ("cpu_core (type 4, cpus
 * 0-15), cpu_atom (type 10, cpus 16-23)", see pmus.h), or "none".
 *
 * The list is owned by its caller (runenv_release). Not thread-safe.
 */
#ifndef COLLECTORS_RUNENV_H
#define COLLECTORS_RUNENV_H

#include <stddef.h>

struct runenv_kv {
	char *key, *value;
};

struct runenv {
	struct runenv_kv *kv;
	size_t n;
};

/* 0, or -ENOMEM. */
int runenv_read(struct runenv *e, const char *sysfs_root, const char *procfs_root);
void runenv_release(struct runenv *e);
/* The value of key, or NULL. */
const char *runenv_get(const struct runenv *e, const char *key);

#endif
