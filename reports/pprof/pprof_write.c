/*
 * pprof_write: libprof-pprof.so, the encoder of `prof report --format
 * pprof` (reports/pprof.h). Turns a struct pprof_profile into
 * profile.proto's messages (the C that protoc-c generates from
 * reports/pprof/profile.proto), packs them with libprotobuf-c and
 * writes them gzipped with zlib, as pprof and the tools that read its
 * files (go tool pprof, Speedscope, Grafana Pyroscope) expect.
 *
 * Strings go into the profile's one string table, each once (a hash
 * from string to its index). Depends on libc, libprotobuf-c and zlib
 * only; prints nothing; no shared state.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "reports/pprof.h"

/* The profile's string table and a hash of it. */
struct strtab {
	char **s;		/* borrowed strings; s[0] is "" */
	size_t n, cap;
	size_t *slot;		/* index + 1 into s, per hash slot; 0: empty */
	size_t nslot;
	bool oom;
};

static int fail(char **cause, int err, const char *fmt, ...)
{
	if (cause) {
		va_list ap;
		va_start(ap, fmt);
		if (vasprintf(cause, fmt, ap) < 0)
			*cause = NULL;
		va_end(ap);
	}
	return -err;
}

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool strtab_grow(struct strtab *t)
{
	size_t nslot = t->nslot ? 2 * t->nslot : 1024;
	size_t *slot = calloc(nslot, sizeof(*slot));
	if (!slot)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = hash(t->s[i]) & (nslot - 1);
		while (slot[k])
			k = (k + 1) & (nslot - 1);
		slot[k] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = nslot;
	return true;
}

/* A table holding "" at index 0, as the format wants. */
static bool strtab_init(struct strtab *t)
{
	t->s = malloc(256 * sizeof(*t->s));
	if (!t->s)
		return false;
	t->cap = 256;
	t->s[0] = "";
	t->n = 1;
	return strtab_grow(t);
}

/* The index of s in the table (NULL is ""), added where new. */
static int64_t str(struct strtab *t, const char *s)
{
	if (!s || !*s || t->oom)
		return 0;
	if (2 * (t->n + 1) > t->nslot && !strtab_grow(t)) {
		t->oom = true;
		return 0;
	}
	size_t k = hash(s) & (t->nslot - 1);
	for (; t->slot[k]; k = (k + 1) & (t->nslot - 1))
		if (!strcmp(t->s[t->slot[k] - 1], s))
			return (int64_t)t->slot[k] - 1;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		char **ns = realloc(t->s, cap * sizeof(*ns));
		if (!ns) {
			t->oom = true;
			return 0;
		}
		t->s = ns;
		t->cap = cap;
	}
	t->s[t->n] = (char *)s;
	t->slot[k] = ++t->n;
	return (int64_t)t->n - 1;
}

/* All of the messages, in arrays the profile points into. */
struct msgs {
	Perftools__Profiles__ValueType *vt, period_type, **vtp;
	Perftools__Profiles__Mapping *map, **mapp;
	Perftools__Profiles__Function *fn, **fnp;
	Perftools__Profiles__Location *loc, **locp;
	Perftools__Profiles__Line *line, **linep;
	Perftools__Profiles__Sample *smp, **smpp;
	Perftools__Profiles__Label *lab, **labp;
	uint64_t *locid;
	int64_t *val, *comment;
};

static void msgs_free(struct msgs *m)
{
	free(m->vt);
	free(m->vtp);
	free(m->map);
	free(m->mapp);
	free(m->fn);
	free(m->fnp);
	free(m->loc);
	free(m->locp);
	free(m->line);
	free(m->linep);
	free(m->smp);
	free(m->smpp);
	free(m->lab);
	free(m->labp);
	free(m->locid);
	free(m->val);
	free(m->comment);
}

#define ALLOC(ptr, n) ((ptr) = calloc((n) ? (n) : 1, sizeof(*(ptr))))

static int msgs_alloc(struct msgs *m, const struct pprof_profile *p, size_t nlab,
		      size_t nlocid, size_t nval)
{
	if (!ALLOC(m->vt, p->nvalue_types) || !ALLOC(m->vtp, p->nvalue_types) ||
	    !ALLOC(m->map, p->nmappings) || !ALLOC(m->mapp, p->nmappings) ||
	    !ALLOC(m->fn, p->nfunctions) || !ALLOC(m->fnp, p->nfunctions) ||
	    !ALLOC(m->loc, p->nlocations) || !ALLOC(m->locp, p->nlocations) ||
	    !ALLOC(m->line, p->nlocations) || !ALLOC(m->linep, p->nlocations) ||
	    !ALLOC(m->smp, p->nsamples) || !ALLOC(m->smpp, p->nsamples) ||
	    !ALLOC(m->lab, nlab) || !ALLOC(m->labp, nlab) ||
	    !ALLOC(m->locid, nlocid) || !ALLOC(m->val, nval) ||
	    !ALLOC(m->comment, p->ncomments))
		return -ENOMEM;
	return 0;
}

static void fill_tables(struct msgs *m, const struct pprof_profile *p, struct strtab *t)
{
	for (size_t i = 0; i < p->nvalue_types; i++) {
		perftools__profiles__value_type__init(&m->vt[i]);
		m->vt[i].type = str(t, p->value_types[i].type);
		m->vt[i].unit = str(t, p->value_types[i].unit);
		m->vtp[i] = &m->vt[i];
	}
	for (size_t i = 0; i < p->nmappings; i++) {
		Perftools__Profiles__Mapping *mp = &m->map[i];
		perftools__profiles__mapping__init(mp);
		mp->id = i + 1;
		mp->filename = str(t, p->mappings[i].file);
		mp->build_id = str(t, p->mappings[i].build_id);
		mp->has_functions = true;
		m->mapp[i] = mp;
	}
	for (size_t i = 0; i < p->nfunctions; i++) {
		const struct pprof_function *f = &p->functions[i];
		perftools__profiles__function__init(&m->fn[i]);
		m->fn[i].id = i + 1;
		m->fn[i].name = str(t, f->name);
		m->fn[i].system_name = str(t, f->system_name ? f->system_name : f->name);
		m->fn[i].filename = str(t, f->file);
		m->fnp[i] = &m->fn[i];
	}
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct pprof_location *l = &p->locations[i];
		Perftools__Profiles__Location *lp = &m->loc[i];
		perftools__profiles__location__init(lp);
		perftools__profiles__line__init(&m->line[i]);
		lp->id = i + 1;
		lp->mapping_id = l->mapping;
		m->line[i].function_id = l->function;
		m->line[i].line = l->line;
		m->linep[i] = &m->line[i];
		lp->n_line = l->function ? 1 : 0;
		lp->line = &m->linep[i];
		m->locp[i] = lp;
	}
}

static void fill_samples(struct msgs *m, const struct pprof_profile *p, struct strtab *t)
{
	size_t nl = 0, ni = 0, nv = 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pprof_sample *s = &p->samples[i];
		Perftools__Profiles__Sample *sp = &m->smp[i];
		perftools__profiles__sample__init(sp);
		sp->n_location_id = s->nlocations;
		sp->location_id = m->locid + ni;
		for (size_t k = 0; k < s->nlocations; k++)
			m->locid[ni++] = s->locations[k];
		sp->n_value = p->nvalue_types;
		sp->value = m->val + nv;
		for (size_t k = 0; k < p->nvalue_types; k++)
			m->val[nv++] = s->values[k];
		sp->n_label = s->nlabels;
		sp->label = m->labp + nl;
		for (size_t k = 0; k < s->nlabels; k++, nl++) {
			Perftools__Profiles__Label *lp = &m->lab[nl];
			perftools__profiles__label__init(lp);
			lp->key = str(t, s->labels[k].key);
			if (s->labels[k].str)
				lp->str = str(t, s->labels[k].str);
			else
				lp->num = s->labels[k].num;
			m->labp[nl] = lp;
		}
		m->smpp[i] = sp;
	}
}

/* buf as gzip onto fp. */
static int gzip_out(const uint8_t *buf, size_t n, FILE *fp, char **cause)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	/* 15 + 16: a window of 32 KiB, with a gzip header and trailer */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return fail(cause, ENOMEM, "cannot start zlib's compressor");
	uint8_t out[65536];
	int rc = 0, zr;
	z.next_in = (Bytef *)buf;
	do {
		size_t take = n > (1u << 30) ? (1u << 30) : n;
		z.avail_in = (uInt)take;
		n -= take;
		int flush = n ? Z_NO_FLUSH : Z_FINISH;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = deflate(&z, flush);
			size_t got = sizeof(out) - z.avail_out;
			if (got && fwrite(out, 1, got, fp) != got) {
				rc = fail(cause, EIO, "cannot write the profile: %s",
					  strerror(errno));
				goto out;
			}
		} while (z.avail_out == 0);
	} while (n);
	if (zr != Z_STREAM_END)
		rc = fail(cause, EIO, "zlib's compressor did not finish");
out:
	deflateEnd(&z);
	return rc;
}

__attribute__((visibility("default")))
int prof_pprof_write(const struct pprof_profile *p, FILE *fp, char **cause);

int prof_pprof_write(const struct pprof_profile *p, FILE *fp, char **cause)
{
	if (!p || p->abi != PPROF_ABI)
		return fail(cause, EINVAL, "%s is from another build of prof (its "
			    "profile version %d, this prof's %d)", PPROF_LIB,
			    PPROF_ABI, p ? p->abi : -1);
	size_t nlab = 0, nlocid = 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		nlab += p->samples[i].nlabels;
		nlocid += p->samples[i].nlocations;
	}
	struct msgs m;
	memset(&m, 0, sizeof(m));
	struct strtab t = { 0 };
	uint8_t *buf = NULL;
	int rc = msgs_alloc(&m, p, nlab, nlocid, p->nsamples * p->nvalue_types);
	if (rc || !strtab_init(&t)) {
		rc = fail(cause, ENOMEM, "out of memory encoding the profile");
		goto out;
	}
	Perftools__Profiles__Profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	fill_tables(&m, p, &t);
	fill_samples(&m, p, &t);
	pr.n_sample_type = p->nvalue_types;
	pr.sample_type = m.vtp;
	pr.n_sample = p->nsamples;
	pr.sample = m.smpp;
	pr.n_mapping = p->nmappings;
	pr.mapping = m.mapp;
	pr.n_location = p->nlocations;
	pr.location = m.locp;
	pr.n_function = p->nfunctions;
	pr.function = m.fnp;
	pr.time_nanos = p->time_nanos;
	pr.duration_nanos = p->duration_nanos;
	if (p->period_type.type) {
		perftools__profiles__value_type__init(&m.period_type);
		m.period_type.type = str(&t, p->period_type.type);
		m.period_type.unit = str(&t, p->period_type.unit);
		pr.period_type = &m.period_type;
		pr.period = p->period;
	}
	for (size_t i = 0; i < p->ncomments; i++)
		m.comment[i] = str(&t, p->comments[i]);
	pr.n_comment = p->ncomments;
	pr.comment = m.comment;
	if (p->default_type < p->nvalue_types)
		pr.default_sample_type = m.vt[p->default_type].type;
	if (t.oom) {
		rc = fail(cause, ENOMEM, "out of memory encoding the profile");
		goto out;
	}
	pr.n_string_table = t.n;
	pr.string_table = t.s;
	size_t len = perftools__profiles__profile__get_packed_size(&pr);
	buf = malloc(len ? len : 1);
	if (!buf) {
		rc = fail(cause, ENOMEM, "out of memory encoding the profile (%zu bytes)",
			  len);
		goto out;
	}
	perftools__profiles__profile__pack(&pr, buf);
	rc = gzip_out(buf, len, fp, cause);
out:
	free(buf);
	free(t.s);
	free(t.slot);
	msgs_free(&m);
	return rc;
}
