/*
 * mission: one table per processor family, each naming the event behind
 * every mission counter and where that choice comes from.
 *
 * Sources, cited per entry:
 * - perf's per-model event tables in the Linux tree,
 *   tools/perf/pmu-events/arch/x86/<model>/<topic>.json, which carry the
 *   EventCode and UMask of every event (AMD's and Intel's own lists);
 * - Intel SDM vol. 3B, "Pre-defined architectural performance events"
 *   (LLC misses 2EH/41H, branch misses retired C5H/00H, instructions
 *   retired C0H/00H, unhalted core cycles 3CH/00H);
 * - the kernel's generic cache tables (arch/x86/events/{amd,intel}/core.c),
 *   where they agree, and commit ebe176981c14 ("perf/x86/amd/core: Fix
 *   Family 17h+ instruction cache events"), which found PMCx081 counting
 *   wrongly on every Zen and moved L1-icache-load-misses to PMCx060
 *   unit mask 0x10.
 *
 * tests/fixtures/mission/perf-tables.txt holds the EventCode and UMask each
 * entry must encode to, and the tests check them under LIBPFM_FORCE_PMU.
 *
 * Families libpfm4 4.13 (Debian 12) does not know are raw families: their
 * entries carry the PERF_TYPE_RAW config perf's tables give (EventCode and
 * UMask, or the arm64 PMUv3 event number from
 * tools/perf/pmu-events/arch/arm64/common-and-microarch.json), and
 * mission_family_for_cpu finds them from the CPU's identity as perf's
 * mapfile.csv does: Zen 5 (family 1Ah), Alder Lake and Raptor Lake with a
 * table per core type (Golden Cove on cpu_core, Gracemont on cpu_atom),
 * Alder Lake-N, and the Arm cores Neoverse N1, V1, N2/V2, Cortex-A57/A72
 * and A76. perf-tables.txt has a [cpuid:NAME] section for each, which
 * test_mission compares with the configs and test_cpuid with what events.c
 * encodes. Zen 1 is left out because libpfm4's Zen 1 table lacks PMCx043,
 * the only per-thread view of L3 misses there. docs/mission.md lists what
 * is mapped and what is not, and test_mission checks it against this map.
 */
#include <string.h>

#include "collectors/mission.h"

const char *const mission_names[MISSION_COUNT + 1] = {
	"llc-misses", "itlb-misses", "l1i-misses", "branch-misses", "cycles",
	"instructions", NULL,
};

/* Intel: the events and their meaning are the same on Skylake and Ice
 * Lake, client and server; only the tables they are listed in differ. */
#define INTEL_LLC(src) {						\
	"llc-misses", "LONGEST_LAT_CACHE:MISS", "LONGEST_LAT_CACHE.MISS",	\
	"L3 misses of this thread's requests",				\
	"cacheable requests this thread sent that missed the L3: data and "	\
	"code reads, RFOs, L1 and L2 hardware prefetches; L3 prefetches "	\
	"and uncacheable requests are not counted",			\
	src "/cache.json; Intel SDM architectural event 2EH/41H", false, 0 }
#define INTEL_ITLB(src) {						\
	"itlb-misses", "ITLB_MISSES:WALK_COMPLETED",			\
	"ITLB_MISSES.WALK_COMPLETED",					\
	"instruction TLB misses that walked the page table",		\
	"code fetches that missed every TLB level and completed a page walk, "	\
	"any page size",							\
	src "/virtual-memory.json", false, 0 }
#define INTEL_L1I(src) {						\
	"l1i-misses", "ICACHE_64B:IFTAG_MISS", "ICACHE_64B.IFTAG_MISS",	\
	"L1 instruction-cache misses",					\
	"instruction fetch tag lookups that missed the L1 instruction cache, "	\
	"one per 64-byte line; fetches down a mispredicted path count too",	\
	src "/frontend.json", false, 0 }
#define INTEL_BRANCH(src) {						\
	"branch-misses", "BR_MISP_RETIRED:ALL_BRANCHES",		\
	"BR_MISP_RETIRED.ALL_BRANCHES", "mispredicted branches, retired",	\
	"retired branch instructions that were mispredicted, all kinds",	\
	src "/pipeline.json; Intel SDM architectural event C5H/00H", false, 0 }
#define INTEL_CYCLES(ev, src) {						\
	"cycles", ev, "CPU_CLK_UNHALTED.THREAD_P",			\
	"core cycles while the thread runs",				\
	"core clock cycles while this thread is not halted, at the running "	\
	"frequency",							\
	src "/pipeline.json; Intel SDM architectural event 3CH/00H", false, 0 }
#define INTEL_INSTRUCTIONS(src) {					\
	"instructions", "INST_RETIRED:ANY_P", "INST_RETIRED.ANY_P",	\
	"instructions retired", "instructions this thread retired",	\
	src "/pipeline.json; Intel SDM architectural event C0H/00H", false, 0 }

#define PERF_X86 "tools/perf/pmu-events/arch/x86/"

static const char *const skylake_pmus[] = { "skl", "skx", "clx", NULL };
static const struct mission_event skylake[MISSION_COUNT] = {
	INTEL_LLC(PERF_X86 "{skylake,skylakex,cascadelakex}"),
	INTEL_ITLB(PERF_X86 "{skylake,skylakex,cascadelakex}"),
	INTEL_L1I(PERF_X86 "{skylake,skylakex,cascadelakex}"),
	INTEL_BRANCH(PERF_X86 "{skylake,skylakex,cascadelakex}"),
	/* libpfm4 lists THREAD_P under this alias on Skylake */
	INTEL_CYCLES("CPU_CLK_THREAD_UNHALTED:THREAD_P",
		     PERF_X86 "{skylake,skylakex,cascadelakex}"),
	INTEL_INSTRUCTIONS(PERF_X86 "{skylake,skylakex,cascadelakex}"),
};

static const char *const icelake_pmus[] = { "icl", "icx", NULL };
static const struct mission_event icelake[MISSION_COUNT] = {
	INTEL_LLC(PERF_X86 "{icelake,icelakex}"),
	INTEL_ITLB(PERF_X86 "{icelake,icelakex}"),
	INTEL_L1I(PERF_X86 "{icelake,icelakex}"),
	INTEL_BRANCH(PERF_X86 "{icelake,icelakex}"),
	INTEL_CYCLES("CPU_CLK_UNHALTED:THREAD_P", PERF_X86 "{icelake,icelakex}"),
	INTEL_INSTRUCTIONS(PERF_X86 "{icelake,icelakex}"),
};

/* Golden Cove: the ITLB events moved to 11H, and there is no count of L1I
 * misses any more (ICACHE_DATA and ICACHE_TAG count stall cycles), so the
 * L2's count of code requests stands in, as in the kernel's own table. */
static const char *const sapphirerapids_pmus[] = { "spr", NULL };
static const struct mission_event sapphirerapids[MISSION_COUNT] = {
	INTEL_LLC(PERF_X86 "sapphirerapids"),
	INTEL_ITLB(PERF_X86 "sapphirerapids"),
	{ "l1i-misses", "L2_RQSTS:ALL_CODE_RD", "L2_RQSTS.ALL_CODE_RD",
	  "L1 instruction-cache misses, as the L2 sees them",
	  "code read requests that reached the L2: L1 instruction-cache misses, "
	  "demand and prefetch (this core has no count of L1I misses itself)",
	  PERF_X86 "sapphirerapids/cache.json; the kernel's spr_hw_cache_event_ids "
	  "uses the same event (0xe424) for L1-icache-load-misses", false, 0 },
	INTEL_BRANCH(PERF_X86 "sapphirerapids"),
	INTEL_CYCLES("CPU_CLK_UNHALTED:THREAD_P", PERF_X86 "sapphirerapids"),
	INTEL_INSTRUCTIONS(PERF_X86 "sapphirerapids"),
};

/* AMD: the L3's own PMU counts per CCX, not per thread, so the per-thread
 * view of L3 misses is the data-cache fills whose data came from beyond
 * this core's L3 (another CCX's cache, DRAM, IO). Instruction fetches and
 * L2 prefetches that miss the L3 do not fill the data cache and are not in
 * it. */
#define ZEN_L1I(src) {							\
	"l1i-misses", "REQUESTS_TO_L2_GROUP1:CACHEABLE_IC_READ",		\
	"l2_request_g1.cacheable_ic_read",				\
	"L1 instruction-cache misses, as the L2 sees them",		\
	"instruction-cache reads that reached the L2: L1I misses, demand and "	\
	"prefetch; fetches served by the op cache never look in the L1I",	\
	src "/cache.json; kernel commit ebe176981c14 replaced PMCx081 with "	\
	"this event for every Zen", false, 0 }
#define ZEN_BRANCH(src) {						\
	"branch-misses", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",	\
	"ex_ret_brn_misp", "mispredicted branches, retired",		\
	"retired branch instructions that were mispredicted, including far "	\
	"transfers, exceptions and interrupts", src, false, 0 }
#define ZEN_CYCLES(src) {						\
	"cycles", "CYCLES_NOT_IN_HALT", "ls_not_halted_cyc",		\
	"core cycles while the thread runs",				\
	"core clock cycles while this thread is not halted", src, false, 0 }
#define ZEN_INSTRUCTIONS(src) {						\
	"instructions", "RETIRED_INSTRUCTIONS", "ex_ret_instr",		\
	"instructions retired", "instructions this thread retired", src, false, 0 }

#define ZEN_ITLB_COUNTS							\
	"instruction fetches that missed both the L1 and the L2 ITLB and "	\
	"asked for a page walk, every page size"

/* Zen 2 has demand fills by source only, and reports a fill from another
 * CCX on the same die together with the hits in its own L3. */
static const char *const zen2_pmus[] = { "amd64_fam17h_zen2", NULL };
static const struct mission_event zen2[MISSION_COUNT] = {
	{ "llc-misses",
	  "DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM:"
	  "LS_MABRESP_RMT_CACHE:LS_MABRESP_RMT_DRAM",
	  "ls_refills_from_sys.{ls_mabresp_lcl_dram,ls_mabresp_rmt_cache,"
	  "ls_mabresp_rmt_dram}",
	  "per-thread view of L3 misses (demand data only)",
	  "demand data-cache fills from DRAM or IO, this die's or another's, "
	  "and from another CCX's cache on another die; Zen 2 counts a fill "
	  "from another CCX on this die with its own L3 hits, so those are left "
	  "out, as are prefetches and instruction fetches",
	  PERF_X86 "amdzen2/memory.json", false, 0 },
	{ "itlb-misses", "L1_ITLB_MISS_L2_ITLB_MISS:IF1G:IF2M:IF4K",
	  "bp_l1_tlb_miss_l2_tlb_miss.{if4k,if2m,if1g}",
	  "instruction TLB misses that walked the page table", ZEN_ITLB_COUNTS,
	  PERF_X86 "amdzen2/cache.json", false, 0 },
	ZEN_L1I(PERF_X86 "amdzen2"),
	ZEN_BRANCH(PERF_X86 "amdzen2/core.json"),
	ZEN_CYCLES(PERF_X86 "amdzen2/memory.json"),
	ZEN_INSTRUCTIONS(PERF_X86 "amdzen2/core.json"),
};

static const char *const zen3_pmus[] = { "amd64_fam19h_zen3", NULL };
static const struct mission_event zen3[MISSION_COUNT] = {
	{ "llc-misses",
	  "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL:MEM_IO_LCL:"
	  "EXT_CACHE_RMT:MEM_IO_RMT",
	  "ls_any_fills_from_sys.{ext_cache_local,mem_io_local,"
	  "ext_cache_remote,mem_io_remote}",
	  "per-thread view of L3 misses",
	  "data-cache fills, demand and prefetch, whose data came from beyond "
	  "this core's L3: another CCX's cache, DRAM or IO, in this node or "
	  "another; instruction fetches and L2 prefetches are not counted",
	  PERF_X86 "amdzen3/memory.json", false, 0 },
	{ "itlb-misses", "L1_ITLB_MISS_L2_ITLB_MISS:COALESCED4K:IF1G:IF2M:IF4K",
	  "bp_l1_tlb_miss_l2_tlb_miss.{if4k,if2m,if1g,coalesced_4k}",
	  "instruction TLB misses that walked the page table", ZEN_ITLB_COUNTS,
	  PERF_X86 "amdzen3/cache.json", false, 0 },
	ZEN_L1I(PERF_X86 "amdzen3"),
	ZEN_BRANCH(PERF_X86 "amdzen3/core.json"),
	ZEN_CYCLES(PERF_X86 "amdzen3/memory.json"),
	ZEN_INSTRUCTIONS(PERF_X86 "amdzen3/core.json"),
};

static const char *const zen4_pmus[] = { "amd64_fam19h_zen4", NULL };
static const struct mission_event zen4[MISSION_COUNT] = {
	{ "llc-misses",
	  "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:"
	  "FAR_CACHE_NEAR_FAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR",
	  "ls_any_fills_from_sys.{near_cache,dram_io_near,far_cache,"
	  "dram_io_far,alternate_memories}",
	  "per-thread view of L3 misses",
	  "data-cache fills, demand and prefetch, whose data came from beyond "
	  "this core's L3: another CCX's cache, DRAM, IO or extension memory, "
	  "in this NUMA node or another; instruction fetches and L2 prefetches "
	  "are not counted",
	  PERF_X86 "amdzen4/cache.json (recommended.json builds its "
	  "l1_data_cache_fills_* metrics from the same event)", false, 0 },
	{ "itlb-misses", "L1_ITLB_MISS_L2_ITLB_MISS:COALESCED4K:IF1G:IF2M:IF4K",
	  "bp_l1_tlb_miss_l2_tlb_miss.all",
	  "instruction TLB misses that walked the page table", ZEN_ITLB_COUNTS,
	  PERF_X86 "amdzen4/memory.json (recommended.json: l2_itlb_misses)",
	  false, 0 },
	ZEN_L1I(PERF_X86 "amdzen4"),
	ZEN_BRANCH(PERF_X86 "amdzen4/branch.json"),
	ZEN_CYCLES(PERF_X86 "amdzen4/core.json"),
	ZEN_INSTRUCTIONS(PERF_X86 "amdzen4/core.json"),
};

#define GENERIC_SOURCE \
	"perf's generic events (include/uapi/linux/perf_event.h); the " \
	"kernel's table for the running CPU decides the event"

static const struct mission_event generic[MISSION_COUNT] = {
	{ "llc-misses", "perf::LLC-load-misses", "LLC-load-misses",
	  "perf's generic last-level-cache read misses",
	  "whatever the kernel's generic table maps LLC read misses to on this "
	  "CPU; on AMD family 17h and later there is no entry and the kernel "
	  "refuses it", GENERIC_SOURCE, true, 0 },
	{ "itlb-misses", "perf::iTLB-load-misses", "iTLB-load-misses",
	  "perf's generic instruction TLB misses",
	  "whatever the kernel's generic table maps iTLB read misses to on this "
	  "CPU", GENERIC_SOURCE, true, 0 },
	{ "l1i-misses", "perf::L1-icache-load-misses", "L1-icache-load-misses",
	  "perf's generic L1 instruction-cache misses",
	  "whatever the kernel's generic table maps L1I read misses to on this "
	  "CPU; on AMD family 17h and later, a kernel without commit "
	  "ebe176981c14 counts PMCx081, which counts wrongly there",
	  GENERIC_SOURCE, true, 0 },
	{ "branch-misses", "perf::branch-misses", "branch-misses",
	  "mispredicted branches", "the kernel's branch-miss event for this CPU",
	  GENERIC_SOURCE, false, 0 },
	{ "cycles", "perf::cycles", "cycles", "core cycles",
	  "the kernel's cycle event for this CPU", GENERIC_SOURCE, false, 0 },
	{ "instructions", "perf::instructions", "instructions",
	  "instructions retired",
	  "the kernel's retired-instruction event for this CPU", GENERIC_SOURCE,
	  false, 0 },
};

static const struct mission_family families[] = {
	{ "Intel Skylake", skylake_pmus, skylake, false, NULL, NULL },
	{ "Intel Ice Lake", icelake_pmus, icelake, false, NULL, NULL },
	{ "Intel Sapphire Rapids", sapphirerapids_pmus, sapphirerapids, false,
	  NULL, NULL },
	{ "AMD Zen 2", zen2_pmus, zen2, false, NULL, NULL },
	{ "AMD Zen 3", zen3_pmus, zen3, false, NULL, NULL },
	{ "AMD Zen 4", zen4_pmus, zen4, false, NULL, NULL },
};

/*
 * Raw families. The config is what the kernel's format files
 * (/sys/bus/event_source/devices/cpu/format) make of perf's EventCode and
 * UMask: Intel event in bits 7:0, unit mask in 15:8; AMD the same with
 * event bits 11:8 in 35:32; Arm the PMUv3 event number itself.
 */
#define INTEL_RAW(code, umask) ((uint64_t)(umask) << 8 | (uint64_t)(code))
#define AMD_RAW(code, umask)						\
	((uint64_t)((code) & 0xff) | (uint64_t)(umask) << 8 |		\
	 (uint64_t)((code) >> 8) << 32)
#define ARM_RAW(code) ((uint64_t)(code))
#define RAW(name, ev, perf, summary, counts, src, config)		\
	{ name, ev, perf, summary, counts, src, false, config }

#define PERF_ARM "tools/perf/pmu-events/arch/arm64/"
#define ARM_CODES "; code from " PERF_ARM "common-and-microarch.json"

/* Golden Cove and Raptor Cove, the P-cores (cpu_core): Sapphire Rapids'
 * core, with its events; perf lists them under Unit cpu_core. */
static const struct mission_event adl_glc[MISSION_COUNT] = {
	RAW("llc-misses", "r412e", "LONGEST_LAT_CACHE.MISS",
	    "L3 misses of this thread's requests",
	    "cacheable requests this thread sent that missed the L3: data and "
	    "code reads, RFOs, L1 and L2 hardware prefetches; counted only while "
	    "the thread runs on a P-core",
	    PERF_X86 "alderlake/cache.json (Unit cpu_core); Intel SDM "
	    "architectural event 2EH/41H", INTEL_RAW(0x2e, 0x41)),
	RAW("itlb-misses", "re11", "ITLB_MISSES.WALK_COMPLETED",
	    "instruction TLB misses that walked the page table",
	    "code fetches that missed every TLB level and completed a page walk, "
	    "any page size",
	    PERF_X86 "alderlake/virtual-memory.json (Unit cpu_core)",
	    INTEL_RAW(0x11, 0x0e)),
	RAW("l1i-misses", "re424", "L2_RQSTS.ALL_CODE_RD",
	    "L1 instruction-cache misses, as the L2 sees them",
	    "code read requests that reached the L2: L1 instruction-cache misses, "
	    "demand and prefetch (this core has no count of L1I misses itself)",
	    PERF_X86 "alderlake/cache.json (Unit cpu_core), as on Sapphire "
	    "Rapids", INTEL_RAW(0x24, 0xe4)),
	RAW("branch-misses", "rc5", "BR_MISP_RETIRED.ALL_BRANCHES",
	    "mispredicted branches, retired",
	    "retired branch instructions that were mispredicted, all kinds",
	    PERF_X86 "alderlake/pipeline.json; Intel SDM architectural event "
	    "C5H/00H", INTEL_RAW(0xc5, 0x00)),
	RAW("cycles", "r3c", "CPU_CLK_UNHALTED.THREAD_P",
	    "core cycles while the thread runs",
	    "core clock cycles while this thread is not halted, at the running "
	    "frequency",
	    PERF_X86 "alderlake/pipeline.json; Intel SDM architectural event "
	    "3CH/00H", INTEL_RAW(0x3c, 0x00)),
	RAW("instructions", "rc0", "INST_RETIRED.ANY_P", "instructions retired",
	    "instructions this thread retired",
	    PERF_X86 "alderlake/pipeline.json; Intel SDM architectural event "
	    "C0H/00H", INTEL_RAW(0xc0, 0x00)),
};

/* Gracemont, the E-cores (cpu_atom, and the only cores of Alder Lake-N):
 * the ITLB walks are 85H as on older Atoms, and it counts L1I misses. */
#define GRT(table, unit) {						\
	RAW("llc-misses", "r412e", "LONGEST_LAT_CACHE.MISS",		\
	    "L3 misses of this core's requests",				\
	    "cacheable memory requests this core sent that missed the L3",	\
	    PERF_X86 table "/cache.json" unit "; Intel SDM architectural "	\
	    "event 2EH/41H", INTEL_RAW(0x2e, 0x41)),			\
	RAW("itlb-misses", "re85", "ITLB_MISSES.WALK_COMPLETED",	\
	    "instruction TLB misses that walked the page table",		\
	    "code fetches whose translation missed every TLB level and whose "	\
	    "page walk completed, any page size, faulting walks included",	\
	    PERF_X86 table "/virtual-memory.json" unit,			\
	    INTEL_RAW(0x85, 0x0e)),					\
	RAW("l1i-misses", "r280", "ICACHE.MISSES",			\
	    "L1 instruction-cache misses",					\
	    "instruction-cache lookups that missed, one per new line or "	\
	    "byte chunk fetched; fetches down a mispredicted path count too",	\
	    PERF_X86 table "/frontend.json" unit, INTEL_RAW(0x80, 0x02)),	\
	RAW("branch-misses", "rc5", "BR_MISP_RETIRED.ALL_BRANCHES",	\
	    "mispredicted branches, retired",				\
	    "retired branch instructions that were mispredicted, all kinds",	\
	    PERF_X86 table "/pipeline.json; Intel SDM architectural event "	\
	    "C5H/00H", INTEL_RAW(0xc5, 0x00)),				\
	RAW("cycles", "r3c", "CPU_CLK_UNHALTED.CORE_P",			\
	    "core cycles while the thread runs",				\
	    "core clock cycles while this thread is not halted, at the "	\
	    "running frequency",						\
	    PERF_X86 table "/pipeline.json; Intel SDM architectural event "	\
	    "3CH/00H", INTEL_RAW(0x3c, 0x00)),				\
	RAW("instructions", "rc0", "INST_RETIRED.ANY_P",		\
	    "instructions retired", "instructions this thread retired",	\
	    PERF_X86 table "/pipeline.json; Intel SDM architectural event "	\
	    "C0H/00H", INTEL_RAW(0xc0, 0x00)),				\
}
static const struct mission_event adl_grt[MISSION_COUNT] =
	GRT("alderlake", " (Unit cpu_atom)");
static const struct mission_event adln_grt[MISSION_COUNT] =
	GRT("alderlaken", "");

/* Zen 5: the events and unit masks of Zen 4, read again in amdzen5. */
static const struct mission_event zen5[MISSION_COUNT] = {
	RAW("llc-misses", "rdc44",
	    "ls_any_fills_from_sys.{near_cache,dram_io_near,far_cache,"
	    "dram_io_far,alternate_memories}",
	    "per-thread view of L3 misses",
	    "data-cache fills, demand and prefetch, whose data came from beyond "
	    "this core's L3: another CCX's cache, DRAM, IO or extension memory, "
	    "in this NUMA node or another; instruction fetches and L2 prefetches "
	    "are not counted",
	    PERF_X86 "amdzen5/load-store.json", AMD_RAW(0x44, 0xdc)),
	RAW("itlb-misses", "rf85", "bp_l1_tlb_miss_l2_tlb_miss.all",
	    "instruction TLB misses that walked the page table", ZEN_ITLB_COUNTS,
	    PERF_X86 "amdzen5/branch-prediction.json (recommended.json: "
	    "l2_itlb_misses_pti)", AMD_RAW(0x85, 0x0f)),
	RAW("l1i-misses", "r1060", "l2_request_g1.cacheable_ic_read",
	    "L1 instruction-cache misses, as the L2 sees them",
	    "instruction-cache reads that reached the L2: L1I misses, demand and "
	    "prefetch; fetches served by the op cache never look in the L1I",
	    PERF_X86 "amdzen5/l2-cache.json (recommended.json: "
	    "l2_cache_accesses_from_l1_ic_misses_pti); kernel commit "
	    "ebe176981c14 chose this event for every Zen", AMD_RAW(0x60, 0x10)),
	RAW("branch-misses", "rc3", "ex_ret_brn_misp",
	    "mispredicted branches, retired",
	    "retired branch instructions that were mispredicted, including far "
	    "transfers, exceptions and interrupts",
	    PERF_X86 "amdzen5/execution.json (recommended.json: "
	    "branch_misprediction_rate)", AMD_RAW(0xc3, 0x00)),
	RAW("cycles", "r76", "ls_not_halted_cyc",
	    "core cycles while the thread runs",
	    "core clock cycles while this thread is not halted",
	    PERF_X86 "amdzen5/load-store.json", AMD_RAW(0x76, 0x00)),
	RAW("instructions", "rc0", "ex_ret_instr", "instructions retired",
	    "instructions this thread retired",
	    PERF_X86 "amdzen5/execution.json", AMD_RAW(0xc0, 0x00)),
};

/* Arm's PMUv3 common events, as perf's per-core files list them. */
#define ARM_ITLB(dir, file)						\
	RAW("itlb-misses", "r35", "ITLB_WALK",				\
	    "instruction TLB misses that walked the page table",		\
	    "instruction fetches that missed the L1 and L2 TLBs and walked the "	\
	    "translation tables, any page size; walks for TLB maintenance are "	\
	    "not counted", PERF_ARM dir "/" file ARM_CODES, ARM_RAW(0x35))
#define ARM_L1I(dir, file)						\
	RAW("l1i-misses", "r1", "L1I_CACHE_REFILL",			\
	    "L1 instruction-cache misses",					\
	    "L1 instruction-cache line refills caused by instruction fetches, "	\
	    "one per line; fetches down a mispredicted path count too",	\
	    PERF_ARM dir "/" file ARM_CODES, ARM_RAW(0x01))
#define ARM_BRANCH(dir, file)						\
	RAW("branch-misses", "r22", "BR_MIS_PRED_RETIRED",		\
	    "mispredicted branches, retired",				\
	    "retired branches that were mispredicted and flushed the pipeline",	\
	    PERF_ARM dir "/" file ARM_CODES, ARM_RAW(0x22))
#define ARM_CYCLES(dir, file)						\
	RAW("cycles", "r11", "CPU_CYCLES",				\
	    "core cycles while the thread runs",				\
	    "core clock cycles (not timer cycles) while this thread runs",	\
	    PERF_ARM dir "/" file ARM_CODES, ARM_RAW(0x11))
#define ARM_INSTRUCTIONS(dir, file)					\
	RAW("instructions", "r8", "INST_RETIRED", "instructions retired",	\
	    "instructions this thread executed architecturally",		\
	    PERF_ARM dir "/" file ARM_CODES, ARM_RAW(0x08))

/* The system-level cache of a CMN mesh is the last level the core sees,
 * but only when firmware says so (CPUECTLR.EXTLLC): otherwise N1 and V1
 * count nothing here. */
#define NEOVERSE_LLC_COUNTS						\
	"reads returned from outside the core cluster that missed the "	\
	"system-level cache: data and instruction, demand and prefetch; "	\
	"counted only when firmware set CPUECTLR.EXTLLC, else the count "	\
	"stays zero; writes are not counted"

static const struct mission_event neoverse_n1[MISSION_COUNT] = {
	RAW("llc-misses", "r37", "LL_CACHE_MISS_RD",
	    "last-level cache read misses", NEOVERSE_LLC_COUNTS,
	    PERF_ARM "arm/neoverse-n1/ll_cache.json" ARM_CODES, ARM_RAW(0x37)),
	ARM_ITLB("arm/neoverse-n1", "tlb.json"),
	ARM_L1I("arm/neoverse-n1", "l1i_cache.json"),
	ARM_BRANCH("arm/neoverse-n1", "retired.json"),
	ARM_CYCLES("arm/neoverse-n1", "general.json"),
	ARM_INSTRUCTIONS("arm/neoverse-n1", "retired.json"),
};

static const struct mission_event neoverse_v1[MISSION_COUNT] = {
	RAW("llc-misses", "r37", "LL_CACHE_MISS_RD",
	    "last-level cache read misses", NEOVERSE_LLC_COUNTS,
	    PERF_ARM "arm/neoverse-v1/ll_cache.json" ARM_CODES, ARM_RAW(0x37)),
	ARM_ITLB("arm/neoverse-v1", "tlb.json"),
	ARM_L1I("arm/neoverse-v1", "l1i_cache.json"),
	ARM_BRANCH("arm/neoverse-v1", "retired.json"),
	ARM_CYCLES("arm/neoverse-v1", "general.json"),
	ARM_INSTRUCTIONS("arm/neoverse-v1", "retired.json"),
};

static const struct mission_event neoverse_n2_v2[MISSION_COUNT] = {
	RAW("llc-misses", "r37", "LL_CACHE_MISS_RD",
	    "last-level cache read misses",
	    "reads returned from outside the core cluster that missed the "
	    "system-level cache when firmware set CPUECTLR.EXTLLC, else reads "
	    "that missed the cluster's L3: data and instruction, demand and "
	    "prefetch; writes are not counted",
	    PERF_ARM "arm/neoverse-n2-v2/ll_cache.json" ARM_CODES, ARM_RAW(0x37)),
	ARM_ITLB("arm/neoverse-n2-v2", "tlb.json"),
	ARM_L1I("arm/neoverse-n2-v2", "l1i_cache.json"),
	ARM_BRANCH("arm/neoverse-n2-v2", "retired.json"),
	ARM_CYCLES("arm/neoverse-n2-v2", "general.json"),
	ARM_INSTRUCTIONS("arm/neoverse-n2-v2", "retired.json"),
};

static const struct mission_event cortex_a76[MISSION_COUNT] = {
	RAW("llc-misses", "r37", "LL_CACHE_MISS_RD",
	    "last-level cache read misses",
	    "reads that missed the last cache level the cluster reports (its "
	    "L3 where there is one, or a system cache the interconnect "
	    "signals): data and instruction, demand and prefetch; writes are "
	    "not counted",
	    PERF_ARM "arm/cortex-a76/cache.json" ARM_CODES, ARM_RAW(0x37)),
	ARM_ITLB("arm/cortex-a76", "cache.json"),
	ARM_L1I("arm/cortex-a76", "cache.json"),
	ARM_BRANCH("arm/cortex-a76", "instruction.json"),
	ARM_CYCLES("arm/cortex-a76", "bus.json"),
	ARM_INSTRUCTIONS("arm/cortex-a76", "instruction.json"),
};

/* Cortex-A57 and A72 (ARMv8.0) list neither LL_CACHE_MISS_RD,
 * ITLB_WALK nor BR_MIS_PRED_RETIRED: the cluster's L2 refills, the L1
 * ITLB refills and the speculative mispredicts stand in, and say so. */
static const struct mission_event cortex_a57_a72[MISSION_COUNT] = {
	RAW("llc-misses", "r17", "L2D_CACHE_REFILL",
	    "L2 refills, the cluster's last level",
	    "L2 refills from outside the cluster: data and instruction, demand "
	    "and prefetch, reads and writes; a system cache beyond the cluster "
	    "is not seen, so its hits count here too",
	    PERF_ARM "arm/cortex-a57-a72/cache.json" ARM_CODES, ARM_RAW(0x17)),
	RAW("itlb-misses", "r2", "L1I_TLB_REFILL",
	    "L1 instruction TLB refills (no count of walks on this core)",
	    "refills of the L1 instruction TLB, whether the L2 TLB held the "
	    "translation or a page walk fetched it",
	    PERF_ARM "arm/cortex-a57-a72/cache.json" ARM_CODES, ARM_RAW(0x02)),
	ARM_L1I("arm/cortex-a57-a72", "cache.json"),
	RAW("branch-misses", "r10", "BR_MIS_PRED",
	    "mispredicted branches, speculatively executed",
	    "branches mispredicted or not predicted, including those on a wrong "
	    "path that never retire (this core has no retired count)",
	    PERF_ARM "arm/cortex-a57-a72/branch.json" ARM_CODES, ARM_RAW(0x10)),
	ARM_CYCLES("arm/cortex-a57-a72", "bus.json"),
	ARM_INSTRUCTIONS("arm/cortex-a57-a72", "instruction.json"),
};

enum raw_family {
	RAW_ZEN5, RAW_ADL_GLC, RAW_ADL_GRT, RAW_ADLN_GRT, RAW_NEOVERSE_N1,
	RAW_NEOVERSE_V1, RAW_NEOVERSE_N2_V2, RAW_CORTEX_A57_A72,
	RAW_CORTEX_A76, RAW_COUNT,
};

static const struct mission_family raw_families[RAW_COUNT] = {
	[RAW_ZEN5] = { "AMD Zen 5", NULL, zen5, true, "zen5", NULL },
	[RAW_ADL_GLC] = { "Intel Alder Lake, Raptor Lake P-cores (Golden Cove)",
			  NULL, adl_glc, true, "adl-glc", "cpu_core" },
	[RAW_ADL_GRT] = { "Intel Alder Lake, Raptor Lake E-cores (Gracemont)",
			  NULL, adl_grt, true, "adl-grt", "cpu_atom" },
	[RAW_ADLN_GRT] = { "Intel Alder Lake-N (Gracemont)", NULL, adln_grt,
			   true, "adln-grt", NULL },
	[RAW_NEOVERSE_N1] = { "Arm Neoverse N1", NULL, neoverse_n1, true,
			      "neoverse-n1", NULL },
	[RAW_NEOVERSE_V1] = { "Arm Neoverse V1", NULL, neoverse_v1, true,
			      "neoverse-v1", NULL },
	[RAW_NEOVERSE_N2_V2] = { "Arm Neoverse N2, V2", NULL, neoverse_n2_v2,
				 true, "neoverse-n2-v2", NULL },
	[RAW_CORTEX_A57_A72] = { "Arm Cortex-A57, A72", NULL, cortex_a57_a72,
				 true, "cortex-a57-a72", NULL },
	[RAW_CORTEX_A76] = { "Arm Cortex-A76", NULL, cortex_a76, true,
			     "cortex-a76", NULL },
};

static const struct mission_family generic_family = {
	"generic (perf)", NULL, generic, false, NULL, NULL,
};

int mission_index(const char *name)
{
	for (int i = 0; name && i < MISSION_COUNT; i++)
		if (!strcmp(mission_names[i], name))
			return i;
	return -1;
}

const struct mission_family *mission_family_for_pmu(const char *pmu)
{
	for (size_t f = 0; pmu && f < sizeof(families) / sizeof(families[0]); f++)
		for (const char *const *p = families[f].pmus; *p; p++)
			if (!strcmp(*p, pmu))
				return &families[f];
	return NULL;
}

/* perf's x86/mapfile.csv: GenuineIntel-6-(97|9A|B7|BA|BF) is alderlake
 * (Alder Lake and Raptor Lake, hybrid), GenuineIntel-6-BE alderlaken,
 * AuthenticAMD-26-* amdzen5. */
static const struct mission_family *x86_family(const struct cpuid *id,
					       const char *pmu)
{
	bool core = pmu && !strcmp(pmu, "cpu_core");
	bool atom = pmu && !strcmp(pmu, "cpu_atom");
	if (pmu && !core && !atom && strcmp(pmu, "cpu"))
		return NULL;
	if (!strcmp(id->vendor, "AuthenticAMD") && id->family == 0x1a)
		return core || atom ? NULL : &raw_families[RAW_ZEN5];
	if (strcmp(id->vendor, "GenuineIntel") || id->family != 6)
		return NULL;
	switch (id->model) {
	case 0x97: case 0x9a: case 0xb7: case 0xba: case 0xbf:
		/* A part without E-cores has one PMU, "cpu", and P-cores. */
		if (core || atom)
			return !id->hybrid ? NULL :
			       &raw_families[atom ? RAW_ADL_GRT : RAW_ADL_GLC];
		return id->hybrid && pmu ? NULL : &raw_families[RAW_ADL_GLC];
	case 0xbe:
		return core || atom ? NULL : &raw_families[RAW_ADLN_GRT];
	default:
		return NULL;
	}
}

/* perf's arm64/mapfile.csv, implementer 0x41 (Arm): parts 0xd07 and 0xd08
 * are cortex-a57-a72, 0xd0b cortex-a76, 0xd0c neoverse-n1, 0xd40
 * neoverse-v1, 0xd49 and 0xd4f neoverse-n2-v2. */
static const struct mission_family *arm64_family(const struct cpuid *id)
{
	if (id->implementer != 0x41)
		return NULL;
	switch (id->part) {
	case 0xd07: case 0xd08: return &raw_families[RAW_CORTEX_A57_A72];
	case 0xd0b: return &raw_families[RAW_CORTEX_A76];
	case 0xd0c: return &raw_families[RAW_NEOVERSE_N1];
	case 0xd40: return &raw_families[RAW_NEOVERSE_V1];
	case 0xd49: case 0xd4f: return &raw_families[RAW_NEOVERSE_N2_V2];
	default: return NULL;
	}
}

const struct mission_family *mission_family_for_cpu(const struct cpuid *id,
						    const char *pmu)
{
	if (!id)
		return NULL;
	if (id->arch == CPUID_X86)
		return x86_family(id, pmu);
	/* arm64 core PMUs are armv8_pmuv3_0 (ACPI) or armv8_cortex_a72 and
	 * the like (device tree) */
	if (id->arch == CPUID_ARM64)
		return !pmu || !strcmp(pmu, "cpu") || !strncmp(pmu, "armv", 4)
		       ? arm64_family(id) : NULL;
	return NULL;
}

const struct mission_family *mission_generic(void)
{
	return &generic_family;
}

const struct mission_family *mission_family_at(size_t i)
{
	size_t n = sizeof(families) / sizeof(families[0]);
	if (i < n)
		return &families[i];
	return i - n < RAW_COUNT ? &raw_families[i - n] : NULL;
}

const struct mission_event *mission_event_of(const struct mission_family *f,
					     const char *name)
{
	int i = mission_index(name);
	return f && i >= 0 ? &f->events[i] : NULL;
}
