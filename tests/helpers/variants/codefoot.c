/*
 * codefoot: a workload whose executable code footprint is set at build
 * time, for the working-set tests: FOOT_MB MiB of straight-line code (a
 * NOP sled ending in ret) in .text, executed PASSES times, so every page
 * of it is touched. Built twice by CMake (codefoot_small, codefoot_large)
 * to give two arms that differ only in code footprint.
 * usage: codefoot [PASSES]   (default 20)
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef FOOT_MB
#define FOOT_MB 2
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

#if defined(__x86_64__)
__asm__(".text\n"
	".globl codefoot_sled\n"
	".type codefoot_sled, @function\n"
	"codefoot_sled:\n"
	"  .fill " STR(FOOT_MB) " * 1048576, 1, 0x90\n"
	"  ret\n"
	".size codefoot_sled, . - codefoot_sled\n");
void codefoot_sled(void);
#else
/* Elsewhere a smaller stand-in: the footprint tests skip on other arches. */
static void codefoot_sled(void) {}
#endif

int main(int argc, char **argv)
{
	int passes = argc > 1 ? atoi(argv[1]) : 20;
	for (int i = 0; i < passes; i++)
		codefoot_sled();
	printf("codefoot: %d MiB of code, %d passes\n", FOOT_MB, passes);
	return 0;
}
