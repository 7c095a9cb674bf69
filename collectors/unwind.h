/*
 * unwind: the user call stack of one sample, from the registers and the
 * top of the user stack the kernel copied into it (PERF_SAMPLE_REGS_USER
 * and PERF_SAMPLE_STACK_USER), with libunwind's remote interface, as perf
 * does for --call-graph dwarf.
 *
 * libunwind asks for three things, answered here without touching the
 * sampled process (which may be gone):
 *   - registers: from the sample's copy (perf's register order for the
 *     architecture, x86-64 or arm64);
 *   - memory: inside [sp, sp + stack size) from the stack copy; elsewhere
 *     from the ELF file mapped at that address (unwind tables, code), read
 *     through collectors/elf; anything else is refused, which ends the
 *     walk;
 *   - unwind info for an ip: the .eh_frame_hdr binary-search table of the
 *     module holding it, handed to libunwind's
 *     dwarf_search_unwind_table (_Ux86_64_, _Uaarch64_).
 * A module whose file is unreadable, has no .eh_frame_hdr, or whose table
 * is damaged gives no unwind info: the walk stops cleanly at that frame
 * (what was found so far is kept). Every read is bounds-checked, so no
 * stack or file content can make the unwinder read outside its copies.
 *
 * Ownership: the unwinder borrows the symbolizer (for its open ELF files)
 * for its lifetime, and the sample only during unwinder_unwind(). Not
 * thread-safe: one unwinder per thread.
 */
#ifndef COLLECTORS_UNWIND_H
#define COLLECTORS_UNWIND_H

#include <asm/perf_regs.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/symbolize.h"

/*
 * The user registers a sample carries for the unwinder (the
 * sample_regs_user mask, as perf's PERF_REGS_MASK for --call-graph dwarf)
 * and the perf register numbers of the ip and sp among them:
 *   x86-64: AX..SS and R8..R15, without the segment registers DS, ES, FS,
 *           GS (arch/x86/include/uapi/asm/perf_regs.h);
 *   arm64:  X0..X28, X29 (fp), LR, SP and PC, perf numbers 0..32
 *           (arch/arm64/include/uapi/asm/perf_regs.h).
 */
#if defined(__x86_64__)
#define UNWIND_REGS_MASK 0xff0fffULL
#define UNWIND_REG_IP PERF_REG_X86_IP
#define UNWIND_REG_SP PERF_REG_X86_SP
#elif defined(__aarch64__)
#define UNWIND_REGS_MASK ((1ULL << PERF_REG_ARM64_MAX) - 1)
#define UNWIND_REG_IP PERF_REG_ARM64_PC
#define UNWIND_REG_SP PERF_REG_ARM64_SP
#else
#error "collectors/unwind: no perf register map for this architecture"
#endif

/* The default size of the user stack copy, as perf's (8 KiB), and the
 * largest the kernel accepts in one sample (a u16 record size, rounded
 * down to 8). */
#define UNWIND_STACK_DEFAULT 8192u
#define UNWIND_STACK_MAX 65528u

struct unwind_sample {
	uint64_t regs_mask;	/* which perf registers regs holds, in order */
	const uint64_t *regs;
	const uint8_t *stack;	/* the copy, starting at the sampled sp */
	size_t stack_size;	/* bytes valid (the kernel's dyn_size) */
	/* The executable mapping of the sampled process holding addr, or
	 * NULL. */
	const struct code_map *(*find_map)(void *arg, uint64_t addr);
	void *find_arg;
};

/* Why a walk ended. */
enum unwind_stop {
	UNWIND_STOP_END,	/* libunwind reached the outermost frame */
	UNWIND_STOP_NO_INFO,	/* a frame without usable unwind info */
	UNWIND_STOP_MEMORY,	/* it needed memory outside the copies */
	UNWIND_STOP_LIMIT,	/* max frames reached */
	UNWIND_STOP_ERROR,	/* any other libunwind error, or no registers */
	UNWIND_STOP_COUNT
};

struct unwind_stats {
	uint64_t samples, frames;
	uint64_t stops[UNWIND_STOP_COUNT];
};

struct unwinder;

/* Loads libunwind, once: 0, or -ELIBACC with *cause (the caller's) naming
 * the library and why it would not load. */
int unwinder_load(char **cause);

/* NULL and errno on failure: ENOMEM, or libunwind refusing; ELIBACC when
 * libunwind cannot be loaded (it is, at the first call). */
struct unwinder *unwinder_new(struct symbolizer *s);
void unwinder_free(struct unwinder *u);

/*
 * Walk one sample: ips[0] is the sampled ip, then each caller's return
 * address, outermost last, at most max. Returns how many were written (0
 * when the registers hold no ip); *stop (may be NULL) says why it ended.
 */
size_t unwinder_unwind(struct unwinder *u, const struct unwind_sample *s,
		       uint64_t *ips, size_t max, enum unwind_stop *stop);

/*
 * Forget the unwind rules libunwind cached by ip: call it before walking
 * a sample of another process than the last, or after the process's
 * mappings changed (an ip may then hold other code).
 */
void unwinder_flush(struct unwinder *u);

const struct unwind_stats *unwinder_stats(const struct unwinder *u);

#endif
