/*
 * procmaps: the address space of every process of a run, rebuilt from
 * the ring buffer's side-band records, so that an address a sample or a
 * page fault names can be turned into (mapping, file offset).
 *
 * Each process (pid) has a current address space: a sorted array of
 * non-overlapping mappings. The records drive it:
 *   - MMAP/MMAP2 insert a mapping; whatever it overlaps is cut away, as
 *     mmap(MAP_FIXED) and mprotect() do to the kernel's own VMAs (both
 *     emit a record for the new range; munmap emits none, so a range that
 *     was unmapped stays until something replaces it);
 *   - FORK of a new process (pid != ppid) gives the child a copy of its
 *     parent's current space (fork copies the address space; the kernel
 *     emits no MMAP records for what is inherited);
 *   - COMM with PERF_RECORD_MISC_COMM_EXEC starts an empty space for that
 *     pid (exec replaces the address space; the new image's mappings
 *     follow as MMAP2 records).
 * Thread creations (FORK with pid == ppid) share the space and change
 * nothing. Every space has a number (its generation, from 1) that is
 * never reused within a proc_maps, so page sets can tell the spaces of one
 * pid before and after an exec apart.
 *
 * Paths are interned: every map_entry's path points into the proc_maps
 * and stays valid, with the same pointer for the same text, until
 * proc_maps_free(), so callers may key tables on the pointer.
 *
 * Functions return 0 or a negative errno (-ENOMEM); lookups return NULL
 * when nothing matches, which is an answer, not an error. Owned by its
 * creator; not thread-safe.
 */
#ifndef COLLECTORS_PROCMAPS_H
#define COLLECTORS_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collectors/threads.h"

/* What a mapping holds, from its path as the kernel names it. */
enum map_kind {
	MAP_KIND_FILE,		/* a file on disk ("/usr/lib/.../libc.so.6") */
	MAP_KIND_ANON,		/* anonymous: "//anon", "[anon:...]", memfd,
				 * /dev/zero, SysV shared memory */
	MAP_KIND_HEAP,		/* "[heap]" (brk) */
	MAP_KIND_STACK,		/* "[stack]" (the main thread's) */
	MAP_KIND_SPECIAL,	/* other kernel-provided "[...]": [vdso], [vvar] */
};

struct map_entry {
	uint64_t start, len;	/* runtime addresses [start, start + len) */
	uint64_t pgoff;		/* file offset of start, in bytes (for
				 * anonymous mappings the kernel puts the
				 * page index there; it means nothing) */
	uint32_t prot;		/* PROT_READ | PROT_WRITE | PROT_EXEC */
	uint32_t flags;		/* MAP_SHARED / MAP_PRIVATE ... */
	enum map_kind kind;
	const char *path;	/* interned; see above */
	uint32_t space;		/* generation of the space holding it */
};

struct proc_maps;

/* NULL and errno on failure. */
struct proc_maps *proc_maps_new(void);
void proc_maps_free(struct proc_maps *pm);

/* The kind a path names (see enum map_kind). */
enum map_kind map_kind_of(const char *path);

/*
 * Apply one decoded record (MMAP, MMAP2, FORK, COMM; other types are
 * ignored). 0 or -ENOMEM.
 */
int proc_maps_feed(struct proc_maps *pm, const struct perf_rec *rec);

/*
 * The same steps by hand. insert copies e (its path is interned; e->kind
 * and e->space are recomputed). fork gives pid a copy of ppid's space (an
 * empty one when ppid is unknown); exec gives pid an empty space.
 */
int proc_maps_insert(struct proc_maps *pm, uint32_t pid, const struct map_entry *e);
int proc_maps_fork(struct proc_maps *pm, uint32_t pid, uint32_t ppid);
int proc_maps_exec(struct proc_maps *pm, uint32_t pid);

/*
 * Read /proc/PID/maps (under proc_root, e.g. "/proc"; NULL means
 * "/proc") into pid's space: what a process already had when it was
 * attached to. With exec_only, only executable mappings. 0, or a negative
 * errno with *cause ("cannot read '/proc/12/maps': no such file ...").
 */
int proc_maps_load_proc(struct proc_maps *pm, uint32_t pid, const char *proc_root,
			bool exec_only, char **cause);

/*
 * The same from text in the /proc/PID/maps form read from fp to its end
 * (fp is left open); name stands for its path in causes. Lines that do
 * not parse are skipped.
 */
int proc_maps_load_file(struct proc_maps *pm, uint32_t pid, FILE *fp,
			const char *name, bool exec_only, char **cause);

/*
 * The mapping of pid's current space that holds addr, and addr's file
 * offset there (addr - start + pgoff; for anonymous mappings the offset
 * from start), or NULL. offset may be NULL. O(log n).
 */
const struct map_entry *proc_maps_lookup(const struct proc_maps *pm, uint32_t pid,
					 uint64_t addr, uint64_t *offset);

/* pid's current mappings in address order; 0 when pid is unknown. */
size_t proc_maps_entries(const struct proc_maps *pm, uint32_t pid,
			 const struct map_entry **out);

/* The generation of pid's current space, 0 when pid is unknown. */
uint32_t proc_maps_space(const struct proc_maps *pm, uint32_t pid);

/* How many spaces were created, and the pid that owned space gen. */
uint32_t proc_maps_nspaces(const struct proc_maps *pm);
uint32_t proc_maps_space_pid(const struct proc_maps *pm, uint32_t gen);

/* Intern a path: the stable pointer for this text. NULL on ENOMEM. */
const char *proc_maps_intern(struct proc_maps *pm, const char *path);

#endif
