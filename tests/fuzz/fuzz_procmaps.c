/*
 * fuzz_procmaps: /proc/PID/maps text, read when prof attaches to a
 * running process (-p). The input is the file's text, loaded into one
 * process's space, with every mapping then looked up at both ends; the
 * space must stay sorted and free of overlaps whatever the lines say.
 */
#include "collectors/procmaps.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_maps *pm = proc_maps_new();
	FZ_CHECK(pm);
	for (int exec_only = 0; exec_only < 2; exec_only++) {
		FILE *fp = fmemopen((void *)data, size, "r");
		if (!fp)
			break;
		uint32_t pid = 100 + (uint32_t)exec_only;
		char *cause = NULL;
		int err = proc_maps_load_file(pm, pid, fp, "maps", exec_only, &cause);
		fclose(fp);
		FZ_CHECK(err == 0 && !cause);	/* junk is skipped, never fatal */
		const struct map_entry *v;
		size_t n = proc_maps_entries(pm, pid, &v);
		for (size_t i = 0; i < n; i++) {
			FZ_CHECK(v[i].len > 0 && v[i].path);
			FZ_CHECK(v[i].start + v[i].len - 1 >= v[i].start);
			FZ_CHECK(i == 0 || v[i].start >= v[i - 1].start + v[i - 1].len);
			if (exec_only)
				FZ_CHECK(v[i].prot & 4 /* PROT_EXEC */);
			uint64_t off;
			FZ_CHECK(proc_maps_lookup(pm, pid, v[i].start, &off) == &v[i]);
			FZ_CHECK(proc_maps_lookup(pm, pid, v[i].start + v[i].len - 1,
						  NULL) == &v[i]);
		}
	}
	/* A child forked from it and exec'd gets a copy, then nothing. */
	FZ_CHECK(proc_maps_fork(pm, 200, 100) == 0);
	const struct map_entry *a, *b;
	FZ_CHECK(proc_maps_entries(pm, 200, &a) == proc_maps_entries(pm, 100, &b));
	FZ_CHECK(proc_maps_exec(pm, 200) == 0);
	FZ_CHECK(proc_maps_entries(pm, 200, &a) == 0);
	proc_maps_free(pm);
	return 0;
}
