/*
 * fuzz_jitdump: a JIT's jit-PID.dump, which any process may write (prof
 * record reads it for the code of the process that mapped it). The input
 * is the file's bytes, fed whole and then again split in two; both must
 * agree, every load's address at its time must be named (by it, or by
 * code that replaced it no earlier), and
 * a refusal must come with a cause.
 */
#include <errno.h>

#include "collectors/jitdump.h"
#include "fuzz.h"

static struct jitdump *feed(const uint8_t *data, size_t size, size_t split, int *err)
{
	struct jitdump *jd = jitdump_new("input");
	if (!jd)
		return NULL;
	char *cause = NULL;
	*err = jitdump_feed(jd, data, split, &cause);
	FZ_CHECK(*err == 0 || *err == -EINVAL || *err == -ENOTSUP);
	FZ_CHECK(!*err == !cause);
	free(cause);
	cause = NULL;
	if (!*err && split < size) {
		*err = jitdump_feed(jd, data + split, size - split, &cause);
		FZ_CHECK(!*err == !cause);
		free(cause);
	}
	return jd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int err1, err2;
	struct jitdump *a = feed(data, size, size, &err1);
	struct jitdump *b = feed(data, size, size / 2, &err2);
	if (!a || !b) {
		jitdump_free(a);
		jitdump_free(b);
		return 0;
	}
	FZ_CHECK(err1 == err2);
	FZ_CHECK(jitdump_count(a) == jitdump_count(b));
	size_t n = jitdump_count(a);
	for (size_t i = 0; i < n; i++) {
		const struct jit_code *c = jitdump_at(a, i);
		FZ_CHECK(c->size > 0 && c->name && c->addr + (c->size - 1) >= c->addr);
		/* Found again, or code that covers it and won over it: loaded
		 * at the same time or later in the file, or, with TSC times,
		 * at any time. */
		uint64_t off = 1;
		const struct jit_code *hit = jitdump_lookup(a, c->addr, c->time, &off);
		FZ_CHECK(hit && hit->generation >= 1);
		FZ_CHECK(off == c->addr - hit->addr && off < hit->size);
		FZ_CHECK(hit == c || jitdump_stats(a)->arch_time || hit->time >= c->time);
		FZ_CHECK(jitdump_stats(a)->arch_time || hit->time <= c->time);
		jitdump_lookup(a, c->addr + c->size - 1, UINT64_MAX, NULL);
		jitdump_lookup(a, c->addr - 1, 0, NULL);
	}
	jitdump_free(a);
	jitdump_free(b);
	return 0;
}
