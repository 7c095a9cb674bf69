/*
 * sections: the executable sections of a sampled run's modules, from the
 * ELF files; see sections.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/elf.h"
#include "collectors/symbolize.h"
#include "prof/sections.h"

struct growing {
	struct profile_section *v;
	size_t *name_at;	/* per section: its name's offset in names */
	size_t n, cap;
	char *names;
	size_t len, names_cap;
};

static int add_section(struct growing *g, const struct elf_section *s)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 32;
		struct profile_section *v = realloc(g->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		g->v = v;
		size_t *at = realloc(g->name_at, cap * sizeof(*at));
		if (!at)
			return -ENOMEM;
		g->name_at = at;
		g->cap = cap;
	}
	size_t nl = strlen(s->name) + 1;
	if (g->len + nl > g->names_cap) {
		size_t cap = g->names_cap ? 2 * g->names_cap : 512;
		while (cap < g->len + nl)
			cap *= 2;
		char *names = realloc(g->names, cap);
		if (!names)
			return -ENOMEM;
		g->names = names;
		g->names_cap = cap;
	}
	memcpy(g->names + g->len, s->name, nl);
	g->name_at[g->n] = g->len;
	g->len += nl;
	g->v[g->n++] = (struct profile_section){ NULL, s->addr, s->addr + s->size };
	return 0;
}

static int by_start(const void *pa, const void *pb)
{
	const struct profile_section *a = pa, *b = pb;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The file at path, if it is the one the run saw (same build id where
 * one was stored); NULL otherwise, *changed set when it was rebuilt. */
static struct elf_file *open_module(const char *path, const char *build_id,
				    bool *changed)
{
	*changed = false;
	if (path[0] != '/' || sym_path_is_anon(path))
		return NULL;
	struct elf_file *ef;
	if (elf_file_open(path, &ef, NULL))
		return NULL;
	char hex[ELF_BUILD_ID_HEX_SIZE];
	if (build_id && (elf_file_build_id(ef, hex, sizeof(hex), NULL) ||
			 strcmp(hex, build_id))) {
		*changed = true;
		elf_file_close(ef);
		return NULL;
	}
	return ef;
}

int run_sections_load(const struct db_profile *p, struct run_sections *out)
{
	memset(out, 0, sizeof(*out));
	out->mods = calloc(p->nmodules ? p->nmodules : 1, sizeof(*out->mods));
	size_t *first = calloc(p->nmodules ? p->nmodules : 1, sizeof(*first));
	struct growing g = { 0 };
	int rc = 0;
	if (!out->mods || !first) {
		rc = -ENOMEM;
		goto out_free;
	}
	out->n = p->nmodules;
	for (size_t m = 0; m < p->nmodules && !rc; m++) {
		first[m] = g.n;
		bool changed;
		struct elf_file *ef = open_module(p->modules[m],
						  p->build_ids ? p->build_ids[m] : NULL,
						  &changed);
		out->changed += changed;
		if (!ef)
			continue;
		const struct elf_section *secs;
		size_t ns = elf_file_exec_sections(ef, &secs);
		for (size_t i = 0; i < ns && !rc; i++)
			if (secs[i].size && secs[i].name[0])
				rc = add_section(&g, &secs[i]);
		elf_file_close(ef);
		out->mods[m].n = g.n - first[m];
	}
	if (rc)
		goto out_free;
	/* Pointers last: the arrays have stopped moving. */
	for (size_t i = 0; i < g.n; i++)
		g.v[i].name = g.names + g.name_at[i];
	for (size_t m = 0; m < p->nmodules; m++) {
		if (!out->mods[m].n)
			continue;
		out->mods[m].v = g.v + first[m];
		qsort(g.v + first[m], out->mods[m].n, sizeof(*g.v), by_start);
	}
	out->all = g.v;
	out->names = g.names;
	free(g.name_at);
	free(first);
	return 0;
out_free:
	free(g.v);
	free(g.name_at);
	free(g.names);
	free(first);
	free(out->mods);
	memset(out, 0, sizeof(*out));
	return rc;
}

void run_sections_release(struct run_sections *rs)
{
	if (!rs)
		return;
	free(rs->mods);
	free(rs->all);
	free(rs->names);
	memset(rs, 0, sizeof(*rs));
}
