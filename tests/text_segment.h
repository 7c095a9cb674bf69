/*
 * text_segment: where a program built by a test keeps its code, for tests
 * that make up the mapping a process would have of it. The linker's
 * layout differs by architecture: x86-64's ld puts the text on a page of
 * its own at 0x1000, arm64's at 0 with the ELF header. Header-only.
 */
#ifndef TESTS_TEXT_SEGMENT_H
#define TESTS_TEXT_SEGMENT_H

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>

#include "collectors/elf.h"

/*
 * The page-rounded file extent of path's executable PT_LOAD, whose vaddr
 * is its file offset (gcc's PIE layout): map [page, page + len) of the
 * file at BASE + page and a vaddr runs at BASE + vaddr. False if there is
 * no such segment.
 */
static inline bool ts_text_segment(const char *path, uint64_t *page, uint64_t *len)
{
	struct elf_file *ef;
	if (elf_file_open(path, &ef, NULL) != 0)
		return false;
	const struct elf_segment *segs;
	size_t nseg = elf_file_segments(ef, &segs);
	bool found = false;
	for (size_t i = 0; i < nseg && !found; i++) {
		if (segs[i].type != PT_LOAD || !(segs[i].flags & PF_X) ||
		    segs[i].vaddr != segs[i].offset)
			continue;
		*page = segs[i].offset & ~0xfffull;
		*len = ((segs[i].offset + segs[i].filesz + 0xfff) & ~0xfffull) - *page;
		found = true;
	}
	elf_file_close(ef);
	return found;
}

#endif
