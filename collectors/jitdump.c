/*
 * jitdump: read perf's jitdump files as they grow, and name an address
 * at a time by the code loaded there last before it; see jitdump.h.
 * Every field is copied out with memcpy (records need not be aligned)
 * and every size checked against the bytes in hand before use.
 */
#include "collectors/jitdump.h"
#include "common/cause.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER_SIZE 40		/* struct jitheader of version 1 */
#define HEADER_MAX 4096
#define PREFIX_SIZE 16		/* id, total_size, timestamp */
#define LOAD_FIXED 56		/* prefix, pid, tid, vma, addr, size, index */
#define MOVE_SIZE 64		/* prefix, pid, tid, vma, old, new, size, index */
/* perf refuses no size, but a record of code larger than this is not a
 * JIT's: it is a damaged file, and waiting for it would never end. */
#define RECORD_MAX (256u << 20)

struct jitdump {
	char *path;
	uint64_t file_off;	/* file bytes taken into buf */
	unsigned char *buf;	/* bytes not parsed yet */
	size_t len, cap;
	bool header_done;
	int broken;		/* the error that stopped reading, or 0 */
	char *broken_cause;
	struct jit_code *codes;	/* in the file's order */
	size_t n, ncap;
	size_t *by_addr;	/* indices sorted by (addr, order) */
	size_t sorted_n;	/* codes covered by by_addr */
	uint64_t max_size;	/* the largest code, to bound look-ups */
	struct jitdump_stats st;
};

struct jitdump *jitdump_new(const char *path)
{
	struct jitdump *jd = calloc(1, sizeof(*jd));
	if (!jd)
		return NULL;
	jd->path = strdup(path ? path : "");
	if (!jd->path) {
		free(jd);
		errno = ENOMEM;
		return NULL;
	}
	return jd;
}

void jitdump_free(struct jitdump *jd)
{
	if (!jd)
		return;
	for (size_t i = 0; i < jd->n; i++)
		free((char *)jd->codes[i].name);
	free(jd->codes);
	free(jd->by_addr);
	free(jd->buf);
	free(jd->broken_cause);
	free(jd->path);
	free(jd);
}

const char *jitdump_path(const struct jitdump *jd)
{
	return jd->path;
}

size_t jitdump_count(const struct jitdump *jd)
{
	return jd->n;
}

const struct jit_code *jitdump_at(const struct jitdump *jd, size_t i)
{
	return &jd->codes[i];
}

const struct jitdump_stats *jitdump_stats(const struct jitdump *jd)
{
	return &jd->st;
}

bool jitdump_path_is_dump(const char *path, uint32_t *pid)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	unsigned long v;
	int end = 0;
	if (strncmp(base, "jit-", 4) || base[4] < '0' || base[4] > '9' ||
	    sscanf(base + 4, "%lu%n", &v, &end) != 1 || strcmp(base + 4 + end, ".dump") ||
	    v > UINT32_MAX)
		return false;
	if (pid)
		*pid = (uint32_t)v;
	return true;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static int add_code(struct jitdump *jd, uint64_t addr, uint64_t size, uint64_t time,
		    uint64_t index, const char *name, size_t name_len)
{
	if (jd->n == jd->ncap) {
		size_t cap = jd->ncap ? jd->ncap * 2 : 64;
		struct jit_code *c = realloc(jd->codes, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		jd->codes = c;
		jd->ncap = cap;
	}
	char *copy = strndup(name, name_len);
	if (!copy)
		return -ENOMEM;
	jd->codes[jd->n++] = (struct jit_code){ addr, size, time, index, 1, copy };
	if (size > jd->max_size)
		jd->max_size = size;
	return 0;
}

/* The header at the front of buf; 1 when taken, 0 when more bytes are
 * needed, or a negative errno. */
static int parse_header(struct jitdump *jd, char **cause)
{
	if (jd->len < HEADER_SIZE)
		return 0;
	uint32_t magic = rd32(jd->buf);
	if (magic == __builtin_bswap32(JITDUMP_MAGIC))
		return cause_set(cause, -ENOTSUP,
				 "cannot read jitdump '%s': written with the other byte order",
				 jd->path);
	if (magic != JITDUMP_MAGIC)
		return cause_set(cause, -EINVAL, "cannot read jitdump '%s': not a jitdump file",
				 jd->path);
	uint32_t version = rd32(jd->buf + 4), total = rd32(jd->buf + 8);
	if (version < 1 || total < HEADER_SIZE || total > HEADER_MAX)
		return cause_set(cause, -EINVAL,
				 "cannot read jitdump '%s': header of version %u and %u bytes",
				 jd->path, version, total);
	if (jd->len < total)
		return 0;
	jd->st.arch_time = (rd64(jd->buf + 32) & JITDUMP_FLAGS_ARCH_TIMESTAMP) != 0;
	jd->header_done = true;
	return (int)total;
}

/* The name of the latest code with this index, for a move. */
static const char *name_of_index(const struct jitdump *jd, uint64_t index)
{
	for (size_t i = jd->n; i-- > 0;)
		if (jd->codes[i].index == index)
			return jd->codes[i].name;
	return NULL;
}

/* One whole record at p (size bytes); 0 or a negative errno. */
static int parse_record(struct jitdump *jd, const unsigned char *p, uint32_t size,
			char **cause)
{
	uint32_t id = rd32(p);
	uint64_t time = rd64(p + 8);
	switch (id) {
	case JIT_CODE_LOAD: {
		if (size <= LOAD_FIXED)
			return cause_set(cause, -EINVAL,
					 "cannot read jitdump '%s': a code load of %u bytes",
					 jd->path, size);
		uint64_t addr = rd64(p + 32), len = rd64(p + 40), index = rd64(p + 48);
		const char *name = (const char *)p + LOAD_FIXED;
		const char *nul = memchr(name, '\0', size - LOAD_FIXED);
		if (!nul)
			return cause_set(cause, -EINVAL,
					 "cannot read jitdump '%s': a code load's name has no end",
					 jd->path);
		if (!len || len - 1 > UINT64_MAX - addr) {
			jd->st.skipped++;	/* no code, or past 2^64 */
			return 0;
		}
		jd->st.loads++;
		jd->st.code_bytes += len;
		if (jd->st.loads == 1 || time < jd->st.first_time)
			jd->st.first_time = time;
		if (time > jd->st.last_time)
			jd->st.last_time = time;
		return add_code(jd, addr, len, time, index, name, (size_t)(nul - name));
	}
	case JIT_CODE_MOVE: {
		if (size < MOVE_SIZE)
			return cause_set(cause, -EINVAL,
					 "cannot read jitdump '%s': a code move of %u bytes",
					 jd->path, size);
		uint64_t to = rd64(p + 40), len = rd64(p + 48), index = rd64(p + 56);
		if (!len || len - 1 > UINT64_MAX - to) {
			jd->st.skipped++;
			return 0;
		}
		char made[64];
		const char *name = name_of_index(jd, index);
		if (!name) {
			snprintf(made, sizeof(made), "jit_code_%llu", (unsigned long long)index);
			name = made;
		}
		jd->st.moves++;
		return add_code(jd, to, len, time, index, name, strlen(name));
	}
	case JIT_CODE_CLOSE:
		jd->st.closed = true;
		return 0;
	default:
		jd->st.skipped++;
		return 0;
	}
}

/* Parse what buf holds; keep an incomplete record for later. */
static int parse(struct jitdump *jd, char **cause)
{
	size_t at = 0;
	int err = 0;
	if (!jd->header_done) {
		int got = parse_header(jd, cause);
		if (got <= 0)
			return got;
		at = (size_t)got;
	}
	while (jd->len - at >= PREFIX_SIZE) {
		const unsigned char *p = jd->buf + at;
		uint32_t size = rd32(p + 4);
		if (size < PREFIX_SIZE || size > RECORD_MAX) {
			err = cause_set(cause, -EINVAL,
					"cannot read jitdump '%s': a record of %u bytes at offset %llu",
					jd->path, size,
					(unsigned long long)(jd->file_off - jd->len + at));
			break;
		}
		if (jd->len - at < size)
			break;
		err = parse_record(jd, p, size, cause);
		if (err)
			break;
		at += size;
	}
	if (at) {
		memmove(jd->buf, jd->buf + at, jd->len - at);
		jd->len -= at;
	}
	return err;
}

static int stop(struct jitdump *jd, int err, char **cause)
{
	if (err == -EINVAL || err == -ENOTSUP) {
		jd->broken = err;
		free(jd->broken_cause);
		jd->broken_cause = cause && *cause ? strdup(*cause) : NULL;
	}
	return err;
}

static int take(struct jitdump *jd, const void *bytes, size_t len)
{
	if (!len)
		return 0;
	if (jd->cap - jd->len < len) {
		size_t cap = jd->cap ? jd->cap : 65536;
		while (cap - jd->len < len)
			cap *= 2;
		unsigned char *b = realloc(jd->buf, cap);
		if (!b)
			return -ENOMEM;
		jd->buf = b;
		jd->cap = cap;
	}
	memcpy(jd->buf + jd->len, bytes, len);
	jd->len += len;
	jd->file_off += len;
	return 0;
}

static int refused(const struct jitdump *jd, char **cause)
{
	if (cause)
		*cause = jd->broken_cause ? strdup(jd->broken_cause) : NULL;
	return jd->broken;
}

int jitdump_feed(struct jitdump *jd, const void *buf, size_t len, char **cause)
{
	if (cause)
		*cause = NULL;
	if (jd->broken)
		return refused(jd, cause);
	if (take(jd, buf, len))
		return -ENOMEM;
	return stop(jd, parse(jd, cause), cause);
}

int jitdump_refresh(struct jitdump *jd, char **cause)
{
	if (cause)
		*cause = NULL;
	if (jd->broken)
		return refused(jd, cause);
	int fd = open(jd->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unsigned char chunk[65536];
	int err = 0;
	for (;;) {
		ssize_t got = pread(fd, chunk, sizeof(chunk), (off_t)jd->file_off);
		if (got < 0) {
			err = -errno;
			break;
		}
		if (got == 0)
			break;
		err = take(jd, chunk, (size_t)got);
		if (!err)
			err = parse(jd, cause);
		if (err)
			break;
	}
	close(fd);
	return stop(jd, err, cause);
}

/* ---- look-ups ----------------------------------------------------------- */

static int by_addr_cmp(const void *pa, const void *pb, void *arg)
{
	const struct jitdump *jd = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	uint64_t x = jd->codes[a].addr, y = jd->codes[b].addr;
	if (x != y)
		return x < y ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Sort the index again after new records, and number each address's
 * generations in load order. */
static int reindex(struct jitdump *jd)
{
	size_t *idx = realloc(jd->by_addr, (jd->n ? jd->n : 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	jd->by_addr = idx;
	for (size_t i = 0; i < jd->n; i++)
		idx[i] = i;
	qsort_r(idx, jd->n, sizeof(*idx), by_addr_cmp, jd);
	jd->st.rewrites = 0;
	jd->st.max_generation = 0;
	for (size_t i = 0; i < jd->n; i++) {
		struct jit_code *c = &jd->codes[idx[i]];
		c->generation = i && jd->codes[idx[i - 1]].addr == c->addr
				? jd->codes[idx[i - 1]].generation + 1 : 1;
		jd->st.rewrites += c->generation > 1;
		if (c->generation > jd->st.max_generation)
			jd->st.max_generation = c->generation;
	}
	jd->sorted_n = jd->n;
	return 0;
}

int jitdump_index(struct jitdump *jd)
{
	return jd->sorted_n == jd->n && jd->by_addr ? 0 : reindex(jd);
}

const struct jit_code *jitdump_lookup(struct jitdump *jd, uint64_t addr,
				      uint64_t time, uint64_t *offset)
{
	if (jd->sorted_n != jd->n && reindex(jd))
		return NULL;
	size_t lo = 0, hi = jd->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (jd->codes[jd->by_addr[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Candidates start at most max_size before addr. */
	const struct jit_code *best = NULL;
	size_t best_i = 0;
	for (size_t k = lo; k-- > 0;) {
		size_t i = jd->by_addr[k];
		const struct jit_code *c = &jd->codes[i];
		if (addr - c->addr >= jd->max_size)
			break;
		if (addr - c->addr >= c->size)
			continue;
		if (!jd->st.arch_time && c->time > time)
			continue;
		if (!best || c->time > best->time ||
		    (c->time == best->time && i > best_i)) {
			best = c;
			best_i = i;
		}
	}
	if (best && offset)
		*offset = addr - best->addr;
	return best;
}
