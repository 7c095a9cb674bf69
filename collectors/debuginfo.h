/*
 * debuginfo: finding the separate debug file of a stripped ELF file, where
 * its full symbol table (.symtab) went when the distribution stripped it
 * (libc6-dbg, *-dbgsym packages, objcopy --only-keep-debug).
 *
 * Places are tried in the order gdb and perf use, the first match wins:
 *   1. by build id: ROOT/.build-id/xx/rest.debug, where xx is the first
 *      byte of the build id in hex and rest the others;
 *   2. by .gnu_debuglink NAME, for a file DIR/FILE: DIR/NAME,
 *      DIR/.debug/NAME, ROOT/DIR/NAME;
 *   3. by build id from the debuginfod servers of DEBUGINFOD_URLS, through
 *      elfutils' client library (which keeps its own cache) - and only
 *      when the caller allows the network (prof record --debuginfod).
 * ROOT is the caller's debug root, if any, then /usr/lib/debug. A candidate is
 * taken only when it is an ELF file that matches: the same build id when
 * both files have one, else the CRC-32 the debug link records. A file
 * that does not match is passed over, and the result's note says so.
 *
 * Ownership: a struct debuginfo holds the options and, once used, the
 * debuginfod client; the results it hands out are the caller's. Not
 * thread-safe: one per thread (the symbolizer owns one).
 */
#ifndef COLLECTORS_DEBUGINFO_H
#define COLLECTORS_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/elf.h"

#define DEBUGINFO_ROOT_DEFAULT "/usr/lib/debug"
/* elfutils' debuginfod client, loaded on the first lookup that may ask. */
#define DEBUGINFO_CLIENT_SONAME "libdebuginfod.so.1"

struct debuginfo_opts {
	const char *root;	/* a debug tree searched before /usr/lib/debug */
	bool debuginfod;	/* may ask the servers of DEBUGINFOD_URLS */
};

enum debuginfo_via {
	DEBUGINFO_NONE,
	DEBUGINFO_BUILD_ID,	/* ROOT/.build-id/xx/rest.debug */
	DEBUGINFO_DEBUGLINK,	/* the file's .gnu_debuglink */
	DEBUGINFO_DEBUGINFOD,	/* a debuginfod server, or its cache */
};

/* "none", "build-id", "debuglink", "debuginfod". */
const char *debuginfo_via_name(enum debuginfo_via via);

struct debuginfo_result {
	enum debuginfo_via via;
	char *path;		/* the debug file; NULL when none was found */
	struct elf_file *ef;	/* it, open; NULL when none */
	/* When none was found: what was tried and what was skipped (as
	 * "debuginfod not asked: DEBUGINFOD_URLS is not set"); when one was
	 * found, NULL. */
	char *note;
};

struct debuginfo_stats {
	uint64_t searched;		/* files looked up */
	uint64_t found[4];		/* by enum debuginfo_via */
	uint64_t debuginfod_queries;	/* calls into the client library */
	uint64_t mismatched;		/* candidates refused: another build */
};

struct debuginfo;

/* NULL and errno on failure. */
struct debuginfo *debuginfo_new(const struct debuginfo_opts *opts);
void debuginfo_free(struct debuginfo *d);

/*
 * The debug file of ef (a runtime ELF file; build_id its build id in hex,
 * or NULL). Never fails: out->via is DEBUGINFO_NONE when nothing was
 * found, with out->note saying why (NULL only on ENOMEM). Release out
 * with debuginfo_result_release().
 */
void debuginfo_find(struct debuginfo *d, const struct elf_file *ef,
		    const char *build_id, struct debuginfo_result *out);
void debuginfo_result_release(struct debuginfo_result *r);

const struct debuginfo_stats *debuginfo_stats(const struct debuginfo *d);

/* Whether a lookup for this build id would go to debuginfod, and if not,
 * why not (a static string). */
bool debuginfo_debuginfod_allowed(const struct debuginfo *d, const char **why);

/* The CRC-32 of .gnu_debuglink (zlib's), continued from crc (0 to start). */
uint32_t debuginfo_crc32(uint32_t crc, const void *buf, size_t len);

#endif
