/*
 * fuzz_perfmap: a JIT's /tmp/perf-PID.map, which any process may write
 * (prof record reads it for anonymous executable memory). The input is
 * the file's text; every symbol of the table must be found again at its
 * start, and the junk count must stay within the number of lines.
 */
#include "collectors/elf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *fp = fmemopen((void *)data, size, "r");
	if (!fp)
		return 0;	/* fmemopen refuses size 0 */
	struct elf_symtab *st = NULL;
	size_t junk = 0;
	char *cause = NULL;
	int err = elf_symtab_load_perf_map_file(fp, &st, &junk, &cause);
	fclose(fp);
	if (err) {
		FZ_CHECK(err < 0 && cause && !st);
		free(cause);
		return 0;
	}
	FZ_CHECK(!cause);
	size_t lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	size_t n = elf_symtab_count(st);
	FZ_CHECK(junk <= lines && n <= lines);
	uint64_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		const struct elf_sym *s = elf_symtab_at(st, i);
		FZ_CHECK(s->size > 0 && s->name && s->name[0]);
		FZ_CHECK(i == 0 || s->addr > prev);
		prev = s->addr;
		uint64_t off = 1;
		FZ_CHECK(elf_symtab_lookup(st, s->addr, &off) == s && off == 0);
		elf_symtab_lookup(st, s->addr + s->size - 1, NULL);
		elf_symtab_lookup(st, s->addr + s->size, NULL);
	}
	elf_symtab_free(st);
	return 0;
}
