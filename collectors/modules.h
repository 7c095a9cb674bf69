/*
 * modules: the code a run executed from (its code modules) and, for a
 * working-set run, the memory it touched.
 *
 * Fed with the run's decoded ring-buffer records (modules_on_record is a
 * counters_opts.on_record callback), it keeps every process's address
 * space (collectors/procmaps) and:
 *   - turns every executable mapping into a module: one per file path
 *     (all processes together), with the kernel's build id when the
 *     MMAP2 record carries one (COUNTERS_BUILD_ID) and the mapped
 *     executable bytes (the union of the file ranges mapped executable).
 *     Anonymous executable mappings (JIT and recompiled code) are summed
 *     per run as "[anon:exec]", except those of a process that wrote a
 *     perf map (/tmp/perf-PID.map), which become a module named by that
 *     map. Kernel-provided code ([vdso]) is a module of its own;
 *   - with working_set, counts page-fault samples (the page-faults
 *     software event, period 1, PERF_SAMPLE_ADDR, whose kernel ids are
 *     given with modules_add_fault_id): every fault is looked up in its
 *     process's space and adds its page to a page set: per module for
 *     code (by file page, so processes running one binary share it), per
 *     kind of memory for data (heap, [stack], anonymous, file-backed,
 *     and "other" for addresses in no known mapping).
 * modules_finish() then reads each module's ELF file (collectors/elf) for
 * the sizes of .text and of all executable sections, and its build id
 * when the kernel gave none. A file that is gone, replaced (its build id
 * differs from the kernel's) or malformed gets an error for that module;
 * its sizes from the records stay.
 *
 * Touched memory. Anonymous memory faults in one page at a time (unless
 * transparent huge pages map 2 MiB at one fault, which plain mmap and
 * malloc memory does not get by default), so its distinct faulting pages
 * are what was touched. File-backed memory is mapped more coarsely: a
 * read fault also maps the fault-around window around it (64 KiB), and
 * Linux 6.18 maps a whole large page-cache folio at one fault where it
 * fits (measured here: a freshly linked helper ran 64 pages of code with
 * 3 faults); pages so mapped never fault. So for code:
 *   - faulted_bytes counts the faulting pages alone: a lower bound;
 *   - touched_bytes counts the pages those faults mapped: modules_finish()
 *     replays each mapping's faults, in their order, in a mapping of the
 *     same file range at an address congruent modulo 2 MiB (so windows,
 *     folios and page-table edges fall alike) and reads which pages the
 *     kernel mapped (/proc/self/pagemap). That is an upper bound on the
 *     code run (what was not mapped was not run), as long as the page
 *     cache held the file the same way. Where the file cannot be read
 *     (gone, replaced, no_elf) it is the estimate of one fault-around
 *     window per fault, as do_fault_around() computes it
 *     (touched_replayed false).
 * File-backed data (WS_FILE) keeps the window estimate.
 *
 * Page sets hold 64-page chunks as one bitmap word each, in a hash table:
 * 1 GiB of fresh memory (262,144 pages) costs 4,096 chunks, about 128 KiB.
 *
 * Ownership: a struct modules owns everything it returns (module_info
 * strings, the proc_maps); pointers stay valid until modules_free().
 * Errors: 0 or a negative errno, with *cause where given. Not thread-safe.
 */
#ifndef COLLECTORS_MODULES_H
#define COLLECTORS_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/elf.h"
#include "collectors/procmaps.h"
#include "collectors/threads.h"

/* The fault-around window the upper bound uses (mm/memory.c's default
 * fault_around_bytes; /sys/kernel/debug/fault_around_bytes where debugfs
 * is mounted). */
#define MODULES_FAULT_AROUND_BYTES 65536u

struct modules_opts {
	bool working_set;	/* count page-fault samples */
	bool no_elf;		/* leave ELF sizes unknown (replays of records
				 * from another machine) */
	const char *perf_map_dir; /* where perf-PID.map files are; NULL: /tmp */
	uint64_t page_size;	/* 0: the machine's */
	uint64_t fault_around_bytes; /* 0: MODULES_FAULT_AROUND_BYTES */
};

enum module_kind {
	MODULE_FILE,		/* an executable file mapping */
	MODULE_ANON,		/* JIT code, a perf map, or [vdso] */
};

struct module_info {
	const char *path;	/* "/usr/lib/.../libc.so.6", "[anon:exec]",
				 * "/tmp/perf-123.map", "[vdso]" */
	enum module_kind kind;
	char build_id[ELF_BUILD_ID_HEX_SIZE];	/* lowercase hex, "" unknown */
	bool build_id_from_kernel;
	uint64_t exec_bytes;	/* mapped executable bytes */
	uint32_t nprocs;	/* processes that mapped it */
	/* From the ELF file. For a perf map, text_bytes is the bytes its
	 * symbols cover. Each is valid only when its has_ flag is set. */
	bool has_text;		/* the file was read and has a .text */
	uint64_t text_bytes;
	bool has_exec_sections;
	uint64_t exec_section_bytes;	/* all SHF_ALLOC|SHF_EXECINSTR sections */
	const char *error;	/* why a file's sizes are unknown, or NULL */
	/* Working set (zero without one). */
	uint64_t touched_bytes;	/* mapped by the faults (see above) */
	bool touched_replayed;	/* replayed; else the window estimate */
	uint64_t faulted_bytes;	/* the faulting pages: a lower bound */
	uint64_t faults;	/* samples that landed in it */
};

enum ws_kind {
	WS_CODE,		/* executable mappings (the modules) */
	WS_HEAP,		/* [heap] */
	WS_STACK,		/* [stack]: the main thread's; thread stacks
				 * are anonymous mmaps and count as anon */
	WS_ANON,		/* other anonymous memory */
	WS_FILE,		/* file-backed data (.data, .rodata, mmapped files) */
	WS_OTHER,		/* in no known mapping, or a kernel [vvar] */
	WS_NKINDS
};

struct ws_total {
	uint64_t touched_bytes, faulted_bytes, faults;
};

struct working_set {
	bool enabled;
	uint64_t page_size, window_bytes;
	struct ws_total kind[WS_NKINDS];
	uint64_t samples;	/* fault samples seen */
};

struct modules;

/* NULL and errno on failure. */
struct modules *modules_new(const struct modules_opts *opts);
void modules_free(struct modules *m);

/* "code", "heap", "stack", "anon", "file", "other". */
const char *ws_kind_name(enum ws_kind k);

/* A kernel id (counters_sampler_id) whose samples are page faults. */
int modules_add_fault_id(struct modules *m, uint64_t id);

/*
 * Apply one decoded record: MMAP/MMAP2, FORK and COMM go to the address
 * spaces; a SAMPLE with a fault id counts its page. 0 or -ENOMEM.
 */
int modules_feed(struct modules *m, const struct perf_rec *rec);

/* counters_opts.on_record adapter: arg is the struct modules; an error
 * is kept and returned by modules_finish(). */
void modules_on_record(const struct perf_rec *rec, int origin, void *arg);

/*
 * Seed pid's space from /proc/PID/maps (an attached process's existing
 * mappings; executable ones only unless working_set). 0 or -errno with
 * *cause.
 */
int modules_seed_proc(struct modules *m, uint32_t pid, char **cause);

/*
 * Build the module list: ELF sizes and build ids, perf maps, largest
 * (exec_bytes) first. Call once, after the last record. Returns 0, or the
 * first error feeding met (-ENOMEM) with *cause; a module whose file
 * cannot be read is not an error (see module_info.error).
 */
int modules_finish(struct modules *m, char **cause);

/* Valid after modules_finish(). */
size_t modules_count(const struct modules *m);
const struct module_info *modules_at(const struct modules *m, size_t i);
/* The code footprint: the sum of exec_bytes. */
uint64_t modules_footprint(const struct modules *m);
const struct working_set *modules_working_set(const struct modules *m);

#endif
