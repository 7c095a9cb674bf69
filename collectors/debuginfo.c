/*
 * debuginfo: the separate debug file of a stripped ELF file, by build id,
 * by .gnu_debuglink, then (when allowed) from debuginfod; see
 * debuginfo.h. The two local searches are a handful of stat() and open()
 * calls per file, done once per module by the symbolizer; debuginfod
 * goes through elfutils' client, the one gdb, perf and systemd use, so
 * its cache, its environment variables and its server protocol are the
 * ones users already know. The client is loaded (dlopen) on the first
 * lookup that may ask a server: it brings libcurl, gnutls, krb5, ldap
 * and some 30 libraries more, which every other prof command, and every
 * record without --debuginfod, would load at start-up for nothing
 * (issue 30).
 */
#include "collectors/debuginfo.h"
#include "common/dynlib.h"
#include "common/errtext.h"

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The client library's calls; debuginfod.h gives their types. */
static struct {
	DYNLIB_FN(debuginfod_begin);
	DYNLIB_FN(debuginfod_find_debuginfo);
	DYNLIB_FN(debuginfod_end);
} dbgd;
static const struct dynlib_sym dbgd_syms[] = {
	DYNLIB_SYM(dbgd, debuginfod_begin),
	DYNLIB_SYM(dbgd, debuginfod_find_debuginfo),
	DYNLIB_SYM(dbgd, debuginfod_end),
};
static struct dynlib libdebuginfod = DYNLIB_INIT(DEBUGINFO_CLIENT_SONAME, dbgd_syms);

struct debuginfo {
	struct debuginfo_opts o;
	char *roots[2];		/* the caller's root, then the default */
	size_t nroots;
	debuginfod_client *client;
	bool client_failed;
	struct debuginfo_stats st;
};

const char *debuginfo_via_name(enum debuginfo_via via)
{
	switch (via) {
	case DEBUGINFO_BUILD_ID:
		return "build-id";
	case DEBUGINFO_DEBUGLINK:
		return "debuglink";
	case DEBUGINFO_DEBUGINFOD:
		return "debuginfod";
	default:
		return "none";
	}
}

struct debuginfo *debuginfo_new(const struct debuginfo_opts *opts)
{
	struct debuginfo *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	if (opts)
		d->o = *opts;
	if (d->o.root && d->o.root[0] && strcmp(d->o.root, DEBUGINFO_ROOT_DEFAULT))
		d->roots[d->nroots++] = strdup(d->o.root);
	d->roots[d->nroots++] = strdup(DEBUGINFO_ROOT_DEFAULT);
	for (size_t i = 0; i < d->nroots; i++) {
		if (!d->roots[i]) {
			debuginfo_free(d);
			errno = ENOMEM;
			return NULL;
		}
	}
	d->o.root = NULL;
	return d;
}

void debuginfo_free(struct debuginfo *d)
{
	if (!d)
		return;
	/* The library stays loaded (RTLD_NODELETE): libcurl, which it
	 * starts, keeps global state that is not unloaded safely, and a
	 * leak checker would take that state for leaks once unmapped. */
	if (d->client)
		dbgd.debuginfod_end(d->client);
	for (size_t i = 0; i < d->nroots; i++)
		free(d->roots[i]);
	free(d);
}

const struct debuginfo_stats *debuginfo_stats(const struct debuginfo *d)
{
	return &d->st;
}

void debuginfo_result_release(struct debuginfo_result *r)
{
	elf_file_close(r->ef);
	free(r->path);
	free(r->note);
	memset(r, 0, sizeof(*r));
}

uint32_t debuginfo_crc32(uint32_t crc, const void *buf, size_t len)
{
	static uint32_t table[256];
	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	const unsigned char *p = buf;
	crc = ~crc;
	for (size_t i = 0; i < len; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

bool debuginfo_debuginfod_allowed(const struct debuginfo *d, const char **why)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!d->o.debuginfod) {
		*why = "network lookups are off";
		return false;
	}
	if (!urls || !urls[0]) {
		*why = "DEBUGINFOD_URLS is not set";
		return false;
	}
	*why = NULL;
	return true;
}

/* Two paths that name one file (a debug link naming the file itself). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * Open path as the debug file of ef: it must be a readable ELF file of
 * the same build (build ids equal, or, when either lacks one, the debug
 * link's CRC). true with *out open; false when it is absent or not ours.
 */
static bool try_candidate(struct debuginfo *d, const struct elf_file *ef,
			  const char *build_id, const char *path,
			  const uint32_t *crc, struct elf_file **out)
{
	struct stat sb;
	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    same_file(path, elf_file_path(ef)))
		return false;
	struct elf_file *cand = NULL;
	if (elf_file_open(path, &cand, NULL) != 0)
		return false;
	char bid[ELF_BUILD_ID_HEX_SIZE];
	bool have_bid = elf_file_build_id(cand, bid, sizeof(bid), NULL) == 0;
	bool ok;
	if (build_id && have_bid) {
		ok = strcmp(build_id, bid) == 0;
	} else if (crc) {
		uint64_t size = elf_file_info(cand)->file_size;
		const void *bytes = elf_file_bytes(cand, 0, size);
		ok = bytes && debuginfo_crc32(0, bytes, (size_t)size) == *crc;
	} else {
		ok = false;	/* found by build id, yet it has none */
	}
	if (!ok) {
		d->st.mismatched++;
		elf_file_close(cand);
		return false;
	}
	*out = cand;
	return true;
}

static bool found(struct debuginfo *d, struct debuginfo_result *out,
		  enum debuginfo_via via, char *path, struct elf_file *ef)
{
	out->via = via;
	out->path = path;
	out->ef = ef;
	d->st.found[via]++;
	return true;
}

static bool by_build_id(struct debuginfo *d, const struct elf_file *ef,
			const char *build_id, struct debuginfo_result *out)
{
	if (!build_id || strlen(build_id) < 4)
		return false;
	for (size_t i = 0; i < d->nroots; i++) {
		char *path;
		if (asprintf(&path, "%s/.build-id/%.2s/%s.debug", d->roots[i], build_id,
			     build_id + 2) < 0)
			return false;
		struct elf_file *dbg;
		if (try_candidate(d, ef, build_id, path, NULL, &dbg))
			return found(d, out, DEBUGINFO_BUILD_ID, path, dbg);
		free(path);
	}
	return false;
}

/* A debug link's name is a file name; anything that could leave the
 * directories searched is ignored. */
static bool link_name_ok(const char *name)
{
	return name[0] && strlen(name) < 256 && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

static bool by_debuglink(struct debuginfo *d, const struct elf_file *ef,
			 const char *build_id, struct debuginfo_result *out,
			 const char **link)
{
	const char *name;
	uint32_t crc;
	*link = NULL;
	if (elf_file_debuglink(ef, &name, &crc, NULL) != 0 || !link_name_ok(name))
		return false;
	*link = name;
	const char *file = elf_file_path(ef);
	const char *slash = strrchr(file, '/');
	int dirlen = slash ? (int)(slash - file) : 1;
	const char *dir = slash ? file : ".";
	for (size_t i = 0; i < 2 + d->nroots; i++) {
		char *path;
		int rc = i == 0 ? asprintf(&path, "%.*s/%s", dirlen, dir, name)
		       : i == 1 ? asprintf(&path, "%.*s/.debug/%s", dirlen, dir, name)
				: asprintf(&path, "%s%s%.*s/%s", d->roots[i - 2],
					   dir[0] == '/' ? "" : "/", dirlen, dir, name);
		if (rc < 0)
			return false;
		struct elf_file *dbg;
		if (try_candidate(d, ef, build_id, path, &crc, &dbg))
			return found(d, out, DEBUGINFO_DEBUGLINK, path, dbg);
		free(path);
	}
	return false;
}

/* debuginfod; *skipped says why it was not asked. */
static bool by_debuginfod(struct debuginfo *d, const struct elf_file *ef,
			  const char *build_id, struct debuginfo_result *out,
			  const char **skipped, int *err)
{
	*err = 0;
	if (!debuginfo_debuginfod_allowed(d, skipped))
		return false;
	if (!build_id) {
		*skipped = "the file has no build id";
		return false;
	}
	bool loaded = dynlib_load(&libdebuginfod, NULL) == 0;
	if (!d->client && !d->client_failed) {
		if (loaded)
			d->client = dbgd.debuginfod_begin();
		d->client_failed = !d->client;
	}
	if (!d->client) {
		*skipped = loaded ? "its client library could not start"
				  : "its client library (" DEBUGINFO_CLIENT_SONAME
				    ") could not be loaded";
		return false;
	}
	char *path = NULL;
	d->st.debuginfod_queries++;
	int fd = dbgd.debuginfod_find_debuginfo(d->client, (const unsigned char *)build_id, 0, &path);
	if (fd < 0) {
		*err = -fd;
		free(path);
		return false;
	}
	close(fd);
	struct elf_file *dbg;
	if (path && try_candidate(d, ef, build_id, path, NULL, &dbg))
		return found(d, out, DEBUGINFO_DEBUGINFOD, path, dbg);
	free(path);
	*err = EINVAL;
	return false;
}

void debuginfo_find(struct debuginfo *d, const struct elf_file *ef,
		    const char *build_id, struct debuginfo_result *out)
{
	memset(out, 0, sizeof(*out));
	d->st.searched++;
	if (build_id && !build_id[0])
		build_id = NULL;
	const char *link = NULL, *skipped = NULL;
	int err = 0;
	if (by_build_id(d, ef, build_id, out) ||
	    by_debuglink(d, ef, build_id, out, &link) ||
	    by_debuginfod(d, ef, build_id, out, &skipped, &err))
		return;

	/* Say what was tried, so a user can put the file where it is looked
	 * for. */
	size_t len = 0;
	FILE *fp = open_memstream(&out->note, &len);
	if (!fp)
		return;
	if (build_id) {
		for (size_t i = 0; i < d->nroots; i++)
			fprintf(fp, "%s %s/.build-id/%.2s/%s.debug", i ? " nor" : "no",
				d->roots[i], build_id, build_id + 2);
	} else {
		fprintf(fp, "no build id");
	}
	if (link) {
		fprintf(fp, ", no debug link '%s' beside it, in .debug/ or under ", link);
		for (size_t i = 0; i < d->nroots; i++)
			fprintf(fp, "%s%s", i ? " or " : "", d->roots[i]);
	} else
		fprintf(fp, ", no debug link");
	if (skipped)
		fprintf(fp, "; debuginfod not asked: %s", skipped);
	else if (err == ENOENT)
		fprintf(fp, "; debuginfod: not found");
	else if (err) {
		char eb[128];
		fprintf(fp, "; debuginfod: %s", err_text(err, eb, sizeof(eb)));
	}
	fclose(fp);
}
