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
 * Families libpfm4 4.13 (Debian 12) does not know are left out, since their
 * names could not be encoded or checked here: Alder Lake's two core types
 * (adl_glc, adl_grt), Zen 5 (amd64_fam1ah_zen5), the Arm Neoverse cores
 * (arm_n1, arm_v1: built into libpfm4 on Arm only). Zen 1 is left out
 * because libpfm4's Zen 1 table lacks PMCx043, the only per-thread view of
 * L3 misses there. docs/mission.md lists both, and test_mission checks it
 * against this map.
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
	src "/cache.json; Intel SDM architectural event 2EH/41H", false }
#define INTEL_ITLB(src) {						\
	"itlb-misses", "ITLB_MISSES:WALK_COMPLETED",			\
	"ITLB_MISSES.WALK_COMPLETED",					\
	"instruction TLB misses that walked the page table",		\
	"code fetches that missed every TLB level and completed a page walk, "	\
	"any page size",							\
	src "/virtual-memory.json", false }
#define INTEL_L1I(src) {						\
	"l1i-misses", "ICACHE_64B:IFTAG_MISS", "ICACHE_64B.IFTAG_MISS",	\
	"L1 instruction-cache misses",					\
	"instruction fetch tag lookups that missed the L1 instruction cache, "	\
	"one per 64-byte line; fetches down a mispredicted path count too",	\
	src "/frontend.json", false }
#define INTEL_BRANCH(src) {						\
	"branch-misses", "BR_MISP_RETIRED:ALL_BRANCHES",		\
	"BR_MISP_RETIRED.ALL_BRANCHES", "mispredicted branches, retired",	\
	"retired branch instructions that were mispredicted, all kinds",	\
	src "/pipeline.json; Intel SDM architectural event C5H/00H", false }
#define INTEL_CYCLES(ev, src) {						\
	"cycles", ev, "CPU_CLK_UNHALTED.THREAD_P",			\
	"core cycles while the thread runs",				\
	"core clock cycles while this thread is not halted, at the running "	\
	"frequency",							\
	src "/pipeline.json; Intel SDM architectural event 3CH/00H", false }
#define INTEL_INSTRUCTIONS(src) {					\
	"instructions", "INST_RETIRED:ANY_P", "INST_RETIRED.ANY_P",	\
	"instructions retired", "instructions this thread retired",	\
	src "/pipeline.json; Intel SDM architectural event C0H/00H", false }

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
	  "uses the same event (0xe424) for L1-icache-load-misses", false },
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
	"this event for every Zen", false }
#define ZEN_BRANCH(src) {						\
	"branch-misses", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",	\
	"ex_ret_brn_misp", "mispredicted branches, retired",		\
	"retired branch instructions that were mispredicted, including far "	\
	"transfers, exceptions and interrupts", src, false }
#define ZEN_CYCLES(src) {						\
	"cycles", "CYCLES_NOT_IN_HALT", "ls_not_halted_cyc",		\
	"core cycles while the thread runs",				\
	"core clock cycles while this thread is not halted", src, false }
#define ZEN_INSTRUCTIONS(src) {						\
	"instructions", "RETIRED_INSTRUCTIONS", "ex_ret_instr",		\
	"instructions retired", "instructions this thread retired", src, false }

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
	  PERF_X86 "amdzen2/memory.json", false },
	{ "itlb-misses", "L1_ITLB_MISS_L2_ITLB_MISS:IF1G:IF2M:IF4K",
	  "bp_l1_tlb_miss_l2_tlb_miss.{if4k,if2m,if1g}",
	  "instruction TLB misses that walked the page table", ZEN_ITLB_COUNTS,
	  PERF_X86 "amdzen2/cache.json", false },
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
	  PERF_X86 "amdzen3/memory.json", false },
	{ "itlb-misses", "L1_ITLB_MISS_L2_ITLB_MISS:COALESCED4K:IF1G:IF2M:IF4K",
	  "bp_l1_tlb_miss_l2_tlb_miss.{if4k,if2m,if1g,coalesced_4k}",
	  "instruction TLB misses that walked the page table", ZEN_ITLB_COUNTS,
	  PERF_X86 "amdzen3/cache.json", false },
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
	  "l1_data_cache_fills_* metrics from the same event)", false },
	{ "itlb-misses", "L1_ITLB_MISS_L2_ITLB_MISS:COALESCED4K:IF1G:IF2M:IF4K",
	  "bp_l1_tlb_miss_l2_tlb_miss.all",
	  "instruction TLB misses that walked the page table", ZEN_ITLB_COUNTS,
	  PERF_X86 "amdzen4/memory.json (recommended.json: l2_itlb_misses)",
	  false },
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
	  "refuses it", GENERIC_SOURCE, true },
	{ "itlb-misses", "perf::iTLB-load-misses", "iTLB-load-misses",
	  "perf's generic instruction TLB misses",
	  "whatever the kernel's generic table maps iTLB read misses to on this "
	  "CPU", GENERIC_SOURCE, true },
	{ "l1i-misses", "perf::L1-icache-load-misses", "L1-icache-load-misses",
	  "perf's generic L1 instruction-cache misses",
	  "whatever the kernel's generic table maps L1I read misses to on this "
	  "CPU; on AMD family 17h and later, a kernel without commit "
	  "ebe176981c14 counts PMCx081, which counts wrongly there",
	  GENERIC_SOURCE, true },
	{ "branch-misses", "perf::branch-misses", "branch-misses",
	  "mispredicted branches", "the kernel's branch-miss event for this CPU",
	  GENERIC_SOURCE, false },
	{ "cycles", "perf::cycles", "cycles", "core cycles",
	  "the kernel's cycle event for this CPU", GENERIC_SOURCE, false },
	{ "instructions", "perf::instructions", "instructions",
	  "instructions retired",
	  "the kernel's retired-instruction event for this CPU", GENERIC_SOURCE,
	  false },
};

static const struct mission_family families[] = {
	{ "Intel Skylake", skylake_pmus, skylake },
	{ "Intel Ice Lake", icelake_pmus, icelake },
	{ "Intel Sapphire Rapids", sapphirerapids_pmus, sapphirerapids },
	{ "AMD Zen 2", zen2_pmus, zen2 },
	{ "AMD Zen 3", zen3_pmus, zen3 },
	{ "AMD Zen 4", zen4_pmus, zen4 },
};

static const struct mission_family generic_family = {
	"generic (perf)", NULL, generic,
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

const struct mission_family *mission_generic(void)
{
	return &generic_family;
}

const struct mission_family *mission_family_at(size_t i)
{
	return i < sizeof(families) / sizeof(families[0]) ? &families[i] : NULL;
}

const struct mission_event *mission_event_of(const struct mission_family *f,
					     const char *name)
{
	int i = mission_index(name);
	return f && i >= 0 ? &f->events[i] : NULL;
}
