/*
 * fuzz_elf: an ELF file someone else built (prof record and prof modules
 * open every binary a workload maps). The input is the file's bytes,
 * read through elf_file_open_mem(); whatever opens is then asked for
 * everything prof asks of it: sizes, sections, the build id, address
 * conversions and the symbol table with lookups.
 */
#include <elf.h>
#include <errno.h>

#include "collectors/elf.h"
#include "fuzz.h"

static void poke_symbols(const struct elf_file *ef)
{
	struct elf_symtab *st = NULL;
	char *cause = NULL;
	int err = elf_symtab_load(ef, &st, &cause);
	if (err) {
		FZ_CHECK(err < 0 && cause && !st);
		free(cause);
		return;
	}
	FZ_CHECK(!cause);
	size_t n = elf_symtab_count(st);
	uint64_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		const struct elf_sym *s = elf_symtab_at(st, i);
		FZ_CHECK(s->size > 0 && s->name && s->name[0]);
		FZ_CHECK(i == 0 || s->addr > prev);	/* sorted, one per address */
		prev = s->addr;
		uint64_t off = 0;
		const struct elf_sym *hit = elf_symtab_lookup(st, s->addr, &off);
		FZ_CHECK(hit == s && off == 0);	/* it starts last there */
		elf_symtab_lookup(st, s->addr + s->size - 1, NULL);
		elf_symtab_lookup(st, s->addr - 1, NULL);
	}
	elf_symtab_lookup(st, 0, NULL);
	elf_symtab_lookup(st, UINT64_MAX, NULL);
	elf_symtab_free(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_file *ef = NULL;
	char *cause = NULL;
	int err = elf_file_open_mem(data, size, "input", &ef, &cause);
	if (err) {
		FZ_CHECK(err < 0 && cause && !ef);
		free(cause);
		return 0;
	}
	FZ_CHECK(!cause);

	struct elf_sizes sz;
	elf_file_sizes(ef, &sz);
	const struct elf_section *secs;
	size_t n = elf_file_sections(ef, &secs);
	for (size_t i = 0; i < n; i++) {
		FZ_CHECK(secs[i].name && secs[i].index == i);
		FZ_CHECK(elf_file_section_by_name(ef, secs[i].name));
		if (secs[i].type != SHT_NOBITS && secs[i].type != SHT_NULL)
			FZ_CHECK(elf_file_bytes(ef, secs[i].offset, secs[i].size));
	}
	elf_file_exec_sections(ef, &secs);

	char hex[ELF_BUILD_ID_HEX_SIZE];
	err = elf_file_build_id(ef, hex, sizeof(hex), &cause);
	FZ_CHECK(err == 0 || err == -ENOENT || err == -EINVAL);
	FZ_CHECK(err != -EINVAL || cause);
	if (err == 0)
		FZ_CHECK(strlen(hex) >= 2 && strlen(hex) % 2 == 0);
	free(cause);
	cause = NULL;

	const char *link;
	uint32_t crc;
	err = elf_file_debuglink(ef, &link, &crc, &cause);
	FZ_CHECK(err == 0 || err == -ENOENT || err == -EINVAL);
	FZ_CHECK(err != -EINVAL || cause);
	if (err == 0)
		FZ_CHECK(link[0] && elf_file_bytes(ef, 0, 1));
	free(cause);
	cause = NULL;
	(void)elf_file_has_symtab(ef);

	const struct elf_segment *segs;
	size_t ns = elf_file_segments(ef, &segs);
	for (size_t i = 0; i < ns; i++) {
		uint64_t v, o;
		if (elf_file_offset_to_vaddr(ef, segs[i].offset, &v) == 0 &&
		    elf_file_vaddr_to_offset(ef, v, &o) == 0)
			(void)o;
		elf_file_map_to_vaddr(ef, segs[i].vaddr + 7, segs[i].vaddr & ~4095ull,
				      segs[i].offset & ~4095ull, &v);
	}

	poke_symbols(ef);
	elf_file_close(ef);
	return 0;
}
