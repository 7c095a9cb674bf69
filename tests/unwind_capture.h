/*
 * unwind_capture: the file tests/helpers/record/unwind_target.c writes and
 * the unwinder's tests (collectors/test_unwind, collectors/test_recorder)
 * read: the user registers a perf sample with PERF_SAMPLE_REGS_USER would
 * carry (perf's mask for --call-graph dwarf, in perf's order), the
 * return addresses the program knows for certain, its functions' starts
 * and the size of the stack copy that follows. The helper and the tests
 * are built for the same architecture, so the layout is the compiler's.
 */
#ifndef TESTS_UNWIND_CAPTURE_H
#define TESTS_UNWIND_CAPTURE_H

#include <stdint.h>

#if defined(__x86_64__)
#define CAPTURE_REGS_MASK 0xff0fffULL	/* AX..SS, R8..R15 */
#define CAPTURE_NREGS 20
#define CAPTURE_IP 8			/* IP's place among them */
#elif defined(__aarch64__)
#define CAPTURE_REGS_MASK 0x1ffffffffULL	/* X0..X28, X29, LR, SP, PC */
#define CAPTURE_NREGS 33
#define CAPTURE_IP 32
#else
#error "unwind_capture: no register layout for this architecture"
#endif

#define CAPTURE_STACK_BYTES 8192

struct capture {
	uint64_t mask;
	uint64_t regs[CAPTURE_NREGS];
	uint64_t ret[3];	/* level3's, level2's, level1's return address */
	uint64_t fn[4];		/* &level3, &level2, &level1, &main */
	uint64_t stack_size;
};

#endif
