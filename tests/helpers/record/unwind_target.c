/*
 * unwind_target: a fixed call chain main -> level1 -> level2 -> level3,
 * built by tests/collectors/test_unwind.c with -fomit-frame-pointer. In
 * level3 it captures what a perf sample with PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER would hold at that instant (ip, sp and the
 * callee-saved registers in perf's order for x86-64 or arm64, the top
 * 8 KiB of its stack),
 * and what every level knows for certain of its own return address
 * (__builtin_return_address(0)), which is what an unwinder must find
 * frame by frame. It writes them to argv[1] and its own /proc/self/maps
 * to argv[2], then exits: the test unwinds after it has gone, as prof
 * record's worker does.
 *
 * Not built by CMake: the test compiles it with the flags it needs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../unwind_capture.h"

static struct capture cap;
static uint8_t stack_copy[CAPTURE_STACK_BYTES];
static const char *out_path, *maps_path;

/* The end of the [stack] mapping, so the copy never reads past it. */
static uint64_t stack_top(void)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t top = 0;
	while (fp && fgets(line, sizeof(line), fp)) {
		unsigned long long a, b;
		if (strstr(line, "[stack]") && sscanf(line, "%llx-%llx", &a, &b) == 2)
			top = b;
	}
	if (fp)
		fclose(fp);
	return top;
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "r"), *out = fopen(to, "w");
	char buf[4096];
	size_t n;
	while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

__attribute__((noinline, noclone)) static int level3(int x)
{
#if defined(__x86_64__)
	uint64_t ip, sp, bp, bx, r12, r13, r14, r15;
	cap.ret[0] = (uint64_t)__builtin_return_address(0);
	/* Memory operands, and the ip last into a register: no output can
	 * overwrite a register before it is read. */
	__asm__ volatile("mov %%rsp, %1\n\t"
			 "mov %%rbp, %2\n\t"
			 "mov %%rbx, %3\n\t"
			 "mov %%r12, %4\n\t"
			 "mov %%r13, %5\n\t"
			 "mov %%r14, %6\n\t"
			 "mov %%r15, %7\n\t"
			 "lea 0(%%rip), %0\n\t"
			 : "=r"(ip), "=m"(sp), "=m"(bp), "=m"(bx), "=m"(r12),
			   "=m"(r13), "=m"(r14), "=m"(r15));
	/* perf's order for mask 0xff0fff: AX BX CX DX SI DI BP SP IP FLAGS
	 * CS SS R8 R9 R10 R11 R12 R13 R14 R15. */
	cap.mask = CAPTURE_REGS_MASK;
	cap.regs[1] = bx;
	cap.regs[6] = bp;
	cap.regs[7] = sp;
	cap.regs[8] = ip;
	cap.regs[16] = r12;
	cap.regs[17] = r13;
	cap.regs[18] = r14;
	cap.regs[19] = r15;
#elif defined(__aarch64__)
	uint64_t ip, sp, saved[12];	/* x19..x28, x29, x30 */
	cap.ret[0] = (uint64_t)__builtin_return_address(0);
	/* The callee-saved registers stored before anything is written, sp
	 * and then the ip last into registers the stores did not use. */
	__asm__ volatile("stp x19, x20, [%2]\n\t"
			 "stp x21, x22, [%2, #16]\n\t"
			 "stp x23, x24, [%2, #32]\n\t"
			 "stp x25, x26, [%2, #48]\n\t"
			 "stp x27, x28, [%2, #64]\n\t"
			 "stp x29, x30, [%2, #80]\n\t"
			 "mov %1, sp\n\t"
			 "adr %0, .\n\t"
			 : "=&r"(ip), "=&r"(sp)
			 : "r"(saved)
			 : "memory");
	/* perf's order for mask (1 << 33) - 1: X0..X28, X29, LR, SP, PC. */
	cap.mask = CAPTURE_REGS_MASK;
	for (int i = 0; i < 12; i++)
		cap.regs[19 + i] = saved[i];
	cap.regs[31] = sp;
	cap.regs[32] = ip;
#else
#error "unwind_target: no register capture for this architecture"
#endif
	uint64_t top = stack_top();
	uint64_t n = top > sp && top - sp < CAPTURE_STACK_BYTES ? top - sp
						    : CAPTURE_STACK_BYTES;
	memcpy(stack_copy, (const void *)(uintptr_t)sp, n);
	cap.stack_size = n;
	FILE *fp = fopen(out_path, "wb");
	if (!fp || fwrite(&cap, sizeof(cap), 1, fp) != 1 ||
	    fwrite(stack_copy, 1, n, fp) != n || fclose(fp) != 0)
		exit(3);
	copy_file("/proc/self/maps", maps_path);
	return x + 1;
}

__attribute__((noinline, noclone)) static int level2(int x)
{
	volatile char pad[200];	/* a frame of its own: CFA is sp + 0xd8 or so */
	pad[0] = (char)x;
	cap.ret[1] = (uint64_t)__builtin_return_address(0);
	return level3(pad[0]) + 1;
}

__attribute__((noinline, noclone)) static int level1(int x)
{
	cap.ret[2] = (uint64_t)__builtin_return_address(0);
	return level2(x) * 2;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	out_path = argv[1];
	maps_path = argv[2];
	cap.fn[0] = (uint64_t)(uintptr_t)level3;
	cap.fn[1] = (uint64_t)(uintptr_t)level2;
	cap.fn[2] = (uint64_t)(uintptr_t)level1;
	cap.fn[3] = (uint64_t)(uintptr_t)main;
	return level1(argc) == 10 ? 0 : 1;
}
