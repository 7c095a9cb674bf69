/*
 * mission_fixture: reads tests/fixtures/mission/perf-tables.txt, the
 * EventCode and UMask perf's per-model tables give for each mission
 * counter of each libpfm4 PMU and raw family (the file says its format and
 * sources), and turns them into the perf_event_attr.config they must
 * encode to.
 *
 * Header-only, like test_util.h. The reader aborts on a malformed line: a
 * broken fixture is a broken test, not a skip.
 */
#ifndef TESTS_MISSION_FIXTURE_H
#define TESTS_MISSION_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/mission.h"

struct mf_entry {
	char name[32];		/* mission name */
	unsigned code, umask;	/* as perf's table gives them */
	char file[64];		/* the table's file */
	char perf_name[256];
};

struct mf_section {
	char pmu[64];
	bool amd;		/* layout amd */
	bool arm;		/* layout arm (else intel) */
	char table[64];
	struct mf_entry entries[MISSION_COUNT];
	size_t n;
};

struct mf_fixture {
	struct mf_section sections[32];
	size_t n;
};

/* The config perf_event_open needs for (code, umask) in this layout: AMD
 * keeps EventSelect[11:8] in config bits 35:32. */
static inline uint64_t mf_config(const struct mf_section *s,
				 const struct mf_entry *e)
{
	if (s->arm)
		return e->code;		/* the PMUv3 event number */
	uint64_t c = (uint64_t)(e->code & 0xff) | (uint64_t)e->umask << 8;
	if (s->amd)
		c |= (uint64_t)((e->code >> 8) & 0xf) << 32;
	return c;
}

static inline void mf_fail(const char *path, int line, const char *why)
{
	fprintf(stderr, "%s:%d: %s\n", path, line, why);
	abort();
}

static inline void mf_read(struct mf_fixture *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	FILE *fp = fopen(path, "r");
	if (!fp)
		mf_fail(path, 0, "cannot open");
	char line[512];
	int no = 0;
	struct mf_section *cur = NULL;
	while (fgets(line, sizeof(line), fp)) {
		no++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (line[0] == '[') {
			if (f->n == sizeof(f->sections) / sizeof(f->sections[0]))
				mf_fail(path, no, "too many sections");
			cur = &f->sections[f->n++];
			if (sscanf(line, "[%63[^]]]", cur->pmu) != 1)
				mf_fail(path, no, "bad section");
			continue;
		}
		if (!cur)
			mf_fail(path, no, "line before any section");
		char word[64];
		if (sscanf(line, "layout %63s", word) == 1) {
			if (strcmp(word, "amd") && strcmp(word, "intel") &&
			    strcmp(word, "arm"))
				mf_fail(path, no, "layout is amd, intel or arm");
			cur->amd = !strcmp(word, "amd");
			cur->arm = !strcmp(word, "arm");
			continue;
		}
		if (sscanf(line, "table %63s", cur->table) == 1)
			continue;
		if (cur->n == MISSION_COUNT)
			mf_fail(path, no, "more entries than mission counters");
		struct mf_entry *e = &cur->entries[cur->n];
		if (sscanf(line, "%31s %x %x %63s %255s", e->name, &e->code,
			   &e->umask, e->file, e->perf_name) != 5)
			mf_fail(path, no, "expected NAME CODE UMASK FILE PERF-EVENT");
		if (mission_index(e->name) < 0)
			mf_fail(path, no, "no such mission counter");
		unsigned max = cur->amd ? 0xfffu : cur->arm ? 0xffffu : 0xffu;
		if (e->umask > 0xff || e->code > max || (cur->arm && e->umask))
			mf_fail(path, no, "code or umask out of range");
		cur->n++;
	}
	fclose(fp);
}

static inline const struct mf_section *mf_find(const struct mf_fixture *f,
					       const char *pmu)
{
	for (size_t i = 0; pmu && i < f->n; i++)
		if (!strcmp(f->sections[i].pmu, pmu))
			return &f->sections[i];
	return NULL;
}

static inline const struct mf_entry *mf_entry(const struct mf_section *s,
					      const char *name)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (!strcmp(s->entries[i].name, name))
			return &s->entries[i];
	return NULL;
}

#endif
