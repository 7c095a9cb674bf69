/*
 * jitdump: perf's jitdump format (tools/perf/Documentation/
 * jitdump-specification.txt), the file a JIT writes as jit-PID.dump
 * (node --perf-prof, wasmtime --profile=jitdump, Java agents, and
 * recompilers that emit it): a header, then records, each with a time.
 * A JIT_CODE_LOAD record says that at that time, code named NAME was
 * placed at [ADDR, ADDR + SIZE); a JIT_CODE_MOVE that code moved. So a
 * sample is named by the code that was at its address when it was taken,
 * even where a JIT rewrites the same buffer (perf-PID.map has no times:
 * the last name written wins, whatever ran).
 *
 * The JIT appends records while it runs: jitdump_refresh() reads what
 * was added since the last call, and keeps a record that is not whole
 * yet for the next. Debug-info, unwinding-info and unknown records are
 * skipped by their size. A record whose size cannot be (smaller than its
 * fixed part, or running past a sane bound) stops the reading there with
 * a cause: what was read before stays.
 *
 * Times: CLOCK_MONOTONIC ns, the clock prof's samples carry. A file whose
 * header sets JITDUMP_FLAGS_ARCH_TIMESTAMP counts in TSC ticks instead;
 * its loads are then looked up without regard to time (the latest wins).
 *
 * Ownership: a struct jitdump owns its records and names; pointers into
 * it stay valid until jitdump_free() (not across refreshes for
 * jitdump_at()). Not thread-safe.
 */
#ifndef COLLECTORS_JITDUMP_H
#define COLLECTORS_JITDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JITDUMP_MAGIC 0x4A695444u	/* "JiTD" as a native u32 */
#define JITDUMP_FLAGS_ARCH_TIMESTAMP 1ull

enum {
	JIT_CODE_LOAD = 0,
	JIT_CODE_MOVE = 1,
	JIT_CODE_DEBUG_INFO = 2,
	JIT_CODE_CLOSE = 3,
	JIT_CODE_UNWINDING_INFO = 4,
};

/* One piece of code as it was loaded (or moved). */
struct jit_code {
	uint64_t addr, size;	/* runtime addresses [addr, addr + size) */
	uint64_t time;		/* when (the record's timestamp) */
	uint64_t index;		/* the JIT's code_index */
	uint32_t generation;	/* 1 for the first code at addr, 2 for the
				 * code that replaced it, ... */
	const char *name;	/* owned by the jitdump */
};

struct jitdump_stats {
	uint64_t loads, moves, skipped;	/* records read */
	uint64_t code_bytes;		/* emitted, summed over loads */
	uint64_t first_time, last_time;	/* of the loads */
	bool closed;			/* JIT_CODE_CLOSE seen */
	bool arch_time;			/* TSC timestamps */
	/* After jitdump_index(): codes placed where earlier code was (the
	 * same start address), and the most generations at one address. */
	uint64_t rewrites;
	uint32_t max_generation;
};

struct jitdump;

/*
 * A jitdump for the file at path, not read yet (a JIT maps the file
 * before it writes to it). NULL and errno on ENOMEM.
 */
struct jitdump *jitdump_new(const char *path);
void jitdump_free(struct jitdump *jd);
const char *jitdump_path(const struct jitdump *jd);

/*
 * Read what the file gained since the last call. 0 (nothing new is not
 * an error); -ENOENT when the file is not there (yet); -EINVAL with
 * *cause for a bad header or record (the records before it are kept,
 * and later calls read nothing more); -ENOTSUP for a byte-swapped file.
 */
int jitdump_refresh(struct jitdump *jd, char **cause);

/*
 * The same over bytes in memory: a whole file's image, or its next
 * bytes after what was fed before (tests, fuzzing). Returns as above.
 */
int jitdump_feed(struct jitdump *jd, const void *buf, size_t len, char **cause);

/*
 * The code covering addr at time: of the loads covering addr with a time
 * not after it, the latest; NULL when none (that is an answer, not an
 * error). *offset (may be NULL) is addr's offset into it.
 */
const struct jit_code *jitdump_lookup(struct jitdump *jd, uint64_t addr,
				      uint64_t time, uint64_t *offset);

/* Number the generations at each address and count the rewrites (a
 * look-up does it too). 0 or -ENOMEM. */
int jitdump_index(struct jitdump *jd);

size_t jitdump_count(const struct jitdump *jd);
/* The i-th load or move, in the file's order. */
const struct jit_code *jitdump_at(const struct jitdump *jd, size_t i);
const struct jitdump_stats *jitdump_stats(const struct jitdump *jd);

/* True when path's last component is jit-PID.dump for some PID (the
 * name perf looks for); *pid set when pid is not NULL. */
bool jitdump_path_is_dump(const char *path, uint32_t *pid);

#endif
