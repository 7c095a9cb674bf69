/*
 * cpuid: the processor's identity as perf's pmu-events tables key their
 * per-model files (tools/perf/pmu-events/arch/{x86,arm64}/mapfile.csv):
 * on x86 the vendor, family and model /proc/cpuinfo gives; on arm64 the
 * MIDR_EL1 the kernel exports per CPU, whose implementer and part number
 * name the core. It also says whether the kernel split the core PMU of a
 * hybrid part in two (cpu_core and cpu_atom), and reads a PMU's type.
 *
 * The mission map (collectors/mission.h) matches the identity against the
 * families libpfm4 4.13 cannot name; events.c asks for it only when
 * libpfm4 detects no PMU the map covers.
 *
 * Everything is read below a root directory ("/" for this machine), so the
 * tests point it at trees under tests/fixtures/cpuid/. The files read are
 *   <root>/proc/cpuinfo
 *   <root>/sys/devices/system/cpu/cpuN/regs/identification/midr_el1
 *   <root>/sys/bus/event_source/devices/{cpu_core,cpu_atom,PMU}/type
 *
 * Functions return 0 or a negative errno. Thread-safe. The live
 * machine's identity (root NULL or "/") is read once a process and kept:
 * a `prof run` asked for it once per hardware event it resolved, and
 * /proc/cpuinfo is some 100 lines a CPU (the kernel makes it anew at
 * each read). A tree under another root is read at each call.
 */
#ifndef COLLECTORS_CPUID_H
#define COLLECTORS_CPUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cpuid_arch {
	CPUID_NONE,
	CPUID_X86,
	CPUID_ARM64,
};

struct cpuid {
	enum cpuid_arch arch;
	/* x86: "GenuineIntel", "AuthenticAMD"; "" on arm64 */
	char vendor[16];
	unsigned family, model;		/* x86: "cpu family", "model" */
	/* arm64: MIDR_EL1 of the lowest-numbered CPU that exports one, and
	 * its implementer (bits 31:24, 0x41 for Arm) and part number (bits
	 * 15:4, 0xd0c for Neoverse N1); variant and revision are ignored, as
	 * perf's mapfile ignores them. */
	uint64_t midr;
	unsigned implementer, part;
	/* Both cpu_core and cpu_atom PMUs exist: one core PMU per core type
	 * (Intel's hybrid parts, Alder Lake on). */
	bool hybrid;
	/* The first processor's "model name" (x86) or "Model" (some Arm
	 * kernels), as /proc/cpuinfo gives it; "" where it has none. */
	char model_name[128];
};

/*
 * Read the identity below root (NULL: "/"). 0; -ENOENT when neither
 * /proc/cpuinfo names an x86 vendor nor any CPU exports MIDR_EL1 (nor
 * /proc/cpuinfo an arm64 "CPU implementer" and "CPU part"); -EINVAL when a
 * value there does not parse.
 */
int cpuid_read(const char *root, struct cpuid *id);

/* perf's mapfile key: "GenuineIntel-6-97", "AuthenticAMD-26-44",
 * "0x00000000410fd0c0" (variant and revision cleared), or "unknown".
 * Returns what snprintf returns. */
int cpuid_format(const struct cpuid *id, char *buf, size_t size);

/* The perf_event_attr.type of sysfs PMU `pmu` ("cpu_atom"): > 0, or
 * -ENOENT when there is no such PMU below root (NULL: "/"). */
int cpuid_pmu_type(const char *root, const char *pmu);

#endif
