/*
 * profile: self and total shares of a sampled run by symbol, module,
 * thread or name, the hottest call paths, and folded stacks; see
 * profile.h.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reports/demangle.h"
#include "reports/profile.h"
#include "reports/runs.h"
#include "reports/rows.h"

int profile_unknown_parse(const char *word, enum profile_unknown *out)
{
	if (!strcmp(word, "address"))
		*out = PROFILE_UNKNOWN_ADDRESS;
	else if (!strcmp(word, "section"))
		*out = PROFILE_UNKNOWN_SECTION;
	else
		return -EINVAL;
	return 0;
}

int profile_by_parse(const char *word, enum profile_by *out)
{
	static const char *const names[] = { "symbol", "module", "thread", "name",
					     "line" };
	for (int i = 0; i < 5; i++) {
		if (!strcmp(word, names[i])) {
			*out = (enum profile_by)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *profile_by_name(enum profile_by by)
{
	switch (by) {
	case PROFILE_BY_MODULE: return "module";
	case PROFILE_BY_THREAD: return "thread";
	case PROFILE_BY_NAME: return "name";
	case PROFILE_BY_LINE: return "line";
	default: return "symbol";
	}
}

const char *profile_module_short(const char *path)
{
	if (!path)
		return "?";
	if (path[0] == '[')
		return path;
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* ---- the view --------------------------------------------------------- */

/* Code without a symbol, at one place: an address, or a whole section. */
struct place {
	uint32_t symbol;	/* id of its module's unknown symbol */
	uint64_t offset;	/* the address; a section's start */
	const char *section;	/* NULL: by address */
};

/*
 * What the reports show of a profile, worked out once per report: the
 * names as shown, the row each frame belongs to by symbol, and how far
 * each call chain goes.
 */
struct view {
	const struct db_profile *p;	/* with the names as shown */
	const struct db_symbol *raw;	/* the stored names */
	size_t nplaces;
	struct place *places;		/* by symbol, keys nsymbols... */
	size_t *frame_key;		/* frame id - 1 -> its key by symbol */
	uint32_t *up;			/* node id - 1 -> the caller node shown;
					 * 0 at the outermost frame and where
					 * the chain was cut */
	bool *cut;			/* node id - 1 -> a caller was cut */
	/* By line: the distinct (module, file, line) places of frames, each
	 * by one frame that has it; frames without one keep their key by
	 * symbol, after these. */
	size_t nlines;
	uint32_t *line_frame;		/* line key -> a frame id with it */
	size_t *line_key;		/* frame id - 1 -> its key by line */
	char **line_func;		/* line key -> function as shown, or NULL */
	bool inlines;			/* paths show inlined functions */
	bool mangled;			/* names as stored */
};

static uint32_t frame_symbol(const struct db_profile *p, uint32_t frame)
{
	return p->frames[frame - 1].symbol;
}

static uint32_t node_module(const struct db_profile *p, uint32_t node)
{
	return p->symbols[frame_symbol(p, p->stacks[node - 1].frame) - 1].module;
}

static bool module_unmapped(const struct db_profile *p, uint32_t module)
{
	return !strcmp(p->modules[module - 1], DB_MODULE_UNMAPPED);
}

/* The section of sections holding offset, or NULL. */
static const struct profile_section *section_of(const struct profile_sections *ss,
						uint64_t offset)
{
	size_t lo = 0, hi = ss->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ss->v[mid].start <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || offset >= ss->v[lo - 1].end)
		return NULL;
	return &ss->v[lo - 1];
}

struct frame_place {
	struct place pl;
	size_t frame;
};

static int frame_place_cmp(const void *pa, const void *pb)
{
	const struct place *a = &((const struct frame_place *)pa)->pl;
	const struct place *b = &((const struct frame_place *)pb)->pl;
	if (a->symbol != b->symbol)
		return a->symbol < b->symbol ? -1 : 1;
	if (!a->section != !b->section)
		return a->section ? 1 : -1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return 0;
}

/* Frames of unknown symbols become places: one per address, or per
 * section where the option and the module's sections allow. */
static int view_places(struct view *v, const struct profile_opts *o)
{
	const struct db_profile *p = v->p;
	struct frame_place *fp = malloc((p->nframes ? p->nframes : 1) * sizeof(*fp));
	if (!fp)
		return -ENOMEM;
	size_t n = 0;
	for (size_t f = 0; f < p->nframes; f++) {
		uint32_t sym = p->frames[f].symbol;
		v->frame_key[f] = sym - 1;
		if (p->symbols[sym - 1].name)
			continue;
		struct place pl = { sym, p->frames[f].offset, NULL };
		uint32_t mod = p->symbols[sym - 1].module;
		if (o->unknown == PROFILE_UNKNOWN_SECTION && o->sections) {
			const struct profile_section *sec =
				section_of(&o->sections[mod - 1], pl.offset);
			if (sec) {
				pl.offset = sec->start;
				pl.section = sec->name;
			}
		}
		fp[n++] = (struct frame_place){ pl, f };
	}
	qsort(fp, n, sizeof(*fp), frame_place_cmp);
	v->places = malloc((n ? n : 1) * sizeof(*v->places));
	if (!v->places) {
		free(fp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!v->nplaces || frame_place_cmp(&fp[i], &fp[i - 1]))
			v->places[v->nplaces++] = fp[i].pl;
		v->frame_key[fp[i].frame] = p->nsymbols + v->nplaces - 1;
	}
	free(fp);
	return 0;
}

/* Where each call chain ends: at its outermost frame, or below the first
 * caller in no mapping. Callers come before their callees in the tree
 * (db/ stores them so), so one pass in id order sees each parent first. */
static void view_chains(struct view *v)
{
	const struct db_profile *p = v->p;
	for (size_t i = 0; i < p->nstacks; i++) {
		uint32_t parent = p->stacks[i].parent;
		v->up[i] = parent;
		v->cut[i] = false;
		if (!parent)
			continue;
		if (module_unmapped(p, node_module(p, parent))) {
			v->up[i] = 0;
			v->cut[i] = true;
		} else if (parent - 1 < i) {
			v->cut[i] = v->cut[parent - 1];
		} else {
			/* Out of order: walk this one's callers. */
			for (uint32_t n = parent; n && !v->cut[i]; n = p->stacks[n - 1].parent)
				v->cut[i] = module_unmapped(p, node_module(p, n));
		}
	}
}

static uint32_t frame_module(const struct db_profile *p, uint32_t frame)
{
	return p->symbols[frame_symbol(p, frame) - 1].module;
}

static int frame_line_cmp(const void *pa, const void *pb, void *arg)
{
	const struct db_profile *p = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct db_frame *x = &p->frames[a - 1], *y = &p->frames[b - 1];
	uint32_t ma = frame_module(p, a), mb = frame_module(p, b);
	if (ma != mb)
		return ma < mb ? -1 : 1;
	int c = strcmp(x->src_file, y->src_file);
	if (c)
		return c;
	if (x->src_line != y->src_line)
		return x->src_line < y->src_line ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Group the frames by source line (by line reports only). */
static int view_lines(struct view *v, const struct profile_opts *o)
{
	const struct db_profile *p = v->p;
	size_t nf = p->nframes ? p->nframes : 1;
	uint32_t *with = malloc(nf * sizeof(*with));
	v->line_frame = malloc(nf * sizeof(*v->line_frame));
	v->line_key = malloc(nf * sizeof(*v->line_key));
	v->line_func = calloc(nf, sizeof(*v->line_func));
	if (!with || !v->line_frame || !v->line_key || !v->line_func) {
		free(with);
		return -ENOMEM;
	}
	size_t n = 0;
	for (uint32_t f = 1; f <= p->nframes; f++)
		if (p->frames[f - 1].src_file && p->frames[f - 1].src_line)
			with[n++] = f;
	qsort_r(with, n, sizeof(*with), frame_line_cmp, (void *)p);
	/* Frames without a line: their symbol's key, after the lines. */
	for (size_t f = 0; f < p->nframes; f++)
		v->line_key[f] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct db_frame *a = &p->frames[with[i] - 1];
		const struct db_frame *b = i ? &p->frames[with[i - 1] - 1] : NULL;
		if (!b || frame_module(p, with[i]) != frame_module(p, with[i - 1]) ||
		    strcmp(a->src_file, b->src_file) || a->src_line != b->src_line) {
			v->line_frame[v->nlines] = with[i];
			const char *fn = a->src_function;
			char *d = fn && !o->mangled ? demangle_name(fn) : NULL;
			v->line_func[v->nlines] = d ? d : fn ? strdup(fn) : NULL;
			v->nlines++;
		}
		v->line_key[with[i] - 1] = v->nlines - 1;
	}
	for (size_t f = 0; f < p->nframes; f++)
		if (v->line_key[f] == SIZE_MAX)
			v->line_key[f] = v->nlines + v->frame_key[f];
	free(with);
	return 0;
}

static void view_release(struct view *v)
{
	for (size_t i = 0; v->line_func && i < v->nlines; i++)
		free(v->line_func[i]);
	free(v->line_func);
	free(v->line_frame);
	free(v->line_key);
	free(v->places);
	free(v->frame_key);
	free(v->up);
	free(v->cut);
}

/* 0, or -ENOMEM. p carries the names as shown; raw the stored ones. */
static int view_init(struct view *v, const struct db_profile *p,
		     const struct db_symbol *raw, const struct profile_opts *o)
{
	memset(v, 0, sizeof(*v));
	v->p = p;
	v->raw = raw;
	v->inlines = !o->no_inline;
	v->mangled = o->mangled;
	v->frame_key = malloc((p->nframes ? p->nframes : 1) * sizeof(*v->frame_key));
	v->up = malloc((p->nstacks ? p->nstacks : 1) * sizeof(*v->up));
	v->cut = malloc((p->nstacks ? p->nstacks : 1) * sizeof(*v->cut));
	if (!v->frame_key || !v->up || !v->cut || view_places(v, o) ||
	    (o->by == PROFILE_BY_LINE && view_lines(v, o))) {
		view_release(v);
		return -ENOMEM;
	}
	view_chains(v);
	return 0;
}

/* The module id of key k by symbol. */
static uint32_t key_symbol(const struct view *v, size_t k)
{
	return k < v->p->nsymbols ? (uint32_t)k + 1 : v->places[k - v->p->nsymbols].symbol;
}

/*
 * The text of key k by symbol: the symbol's name, or where its code is:
 * "libfoo.so+0x1a2b", "libfoo.so:.text", or the bare address in no
 * mapping. Borrowed, or written into buf.
 */
static const char *key_text(const struct view *v, size_t k, char *buf, size_t n)
{
	const struct db_profile *p = v->p;
	if (k < p->nsymbols)
		return p->symbols[k].name && *p->symbols[k].name ? p->symbols[k].name
								 : "[unknown]";
	const struct place *pl = &v->places[k - p->nsymbols];
	uint32_t mod = p->symbols[pl->symbol - 1].module;
	const char *m = profile_module_short(p->modules[mod - 1]);
	if (module_unmapped(p, mod))
		snprintf(buf, n, "0x%llx", (unsigned long long)pl->offset);
	else if (pl->section)
		snprintf(buf, n, "%s:%s", m, pl->section);
	else
		snprintf(buf, n, "%s+0x%llx", m, (unsigned long long)pl->offset);
	return buf;
}

/* ---- grouping ------------------------------------------------------- */

struct agg {
	uint64_t self_w, self_n, tot_w, tot_n;
	uint32_t stamp;
};

struct grouping {
	const struct db_run *run;
	const struct view *v;
	const struct db_profile *p;	/* v's */
	enum profile_by by;
	size_t nkeys;
	const char **names;	/* by name: the distinct thread names */
	size_t *name_threads;	/* threads under each name */
	size_t *thread_name;	/* thread index -> name key */
	struct agg *agg;
	uint64_t total_w, total_n;
	uint64_t cut_w, cut_n;		/* samples whose chains were cut */
};

/* The group a stack node's frame belongs to (symbol or module). */
static size_t frame_key(const struct grouping *g, uint32_t node)
{
	if (g->by == PROFILE_BY_MODULE)
		return node_module(g->p, node) - 1;
	if (g->by == PROFILE_BY_LINE)
		return g->v->line_key[g->p->stacks[node - 1].frame - 1];
	return g->v->frame_key[g->p->stacks[node - 1].frame - 1];
}

/* The group of a whole sample count (thread or name). */
static size_t count_key(const struct grouping *g, const struct db_stack_count *c)
{
	size_t unknown = g->nkeys - 1;
	if (c->thread < 0 || (size_t)c->thread >= g->run->nthreads)
		return unknown;
	if (g->by == PROFILE_BY_THREAD)
		return (size_t)c->thread;
	return g->thread_name[c->thread];
}

static void grouping_init(struct grouping *g, const struct db_run *run,
			  const struct view *v, enum profile_by by)
{
	const struct db_profile *p = v->p;
	memset(g, 0, sizeof(*g));
	g->run = run;
	g->v = v;
	g->p = p;
	g->by = by;
	switch (by) {
	case PROFILE_BY_SYMBOL:
		g->nkeys = p->nsymbols + v->nplaces;
		break;
	case PROFILE_BY_MODULE:
		g->nkeys = p->nmodules;
		break;
	case PROFILE_BY_LINE:
		g->nkeys = v->nlines + p->nsymbols + v->nplaces;
		break;
	case PROFILE_BY_THREAD:
		g->nkeys = run->nthreads + 1;	/* + unknown */
		break;
	case PROFILE_BY_NAME:
		g->names = calloc(run->nthreads + 1, sizeof(char *));
		g->name_threads = calloc(run->nthreads + 1, sizeof(size_t));
		g->thread_name = calloc(run->nthreads + 1, sizeof(size_t));
		for (size_t t = 0; t < run->nthreads; t++) {
			const char *n = run->threads[t].name ? run->threads[t].name : "?";
			size_t k = 0;
			while (k < g->nkeys && strcmp(g->names[k], n))
				k++;
			if (k == g->nkeys)
				g->names[g->nkeys++] = n;
			g->thread_name[t] = k;
			g->name_threads[k]++;
		}
		g->names[g->nkeys++] = "[unknown thread]";
		break;
	}
	g->agg = calloc(g->nkeys ? g->nkeys : 1, sizeof(*g->agg));
}

static void grouping_release(struct grouping *g)
{
	free(g->agg);
	free(g->names);
	free(g->name_threads);
	free(g->thread_name);
}

static void grouping_fill(struct grouping *g, uint32_t event)
{
	const struct db_profile *p = g->p;
	memset(g->agg, 0, (g->nkeys ? g->nkeys : 1) * sizeof(*g->agg));
	g->total_w = g->total_n = g->cut_w = g->cut_n = 0;
	uint32_t stamp = 0;
	for (size_t i = 0; i < p->ncounts; i++) {
		const struct db_stack_count *c = &p->counts[i];
		if (c->event != event)
			continue;
		g->total_w += c->weight;
		g->total_n += c->samples;
		if (g->v->cut[c->stack - 1]) {
			g->cut_w += c->weight;
			g->cut_n += c->samples;
		}
		if (g->by == PROFILE_BY_THREAD || g->by == PROFILE_BY_NAME) {
			struct agg *a = &g->agg[count_key(g, c)];
			a->self_w += c->weight;
			a->self_n += c->samples;
			a->tot_w += c->weight;
			a->tot_n += c->samples;
			continue;
		}
		stamp++;
		struct agg *leaf = &g->agg[frame_key(g, c->stack)];
		leaf->self_w += c->weight;
		leaf->self_n += c->samples;
		for (uint32_t n = c->stack; n; n = g->v->up[n - 1]) {
			struct agg *a = &g->agg[frame_key(g, n)];
			if (a->stamp == stamp)
				continue;
			a->stamp = stamp;
			a->tot_w += c->weight;
			a->tot_n += c->samples;
		}
	}
}

/* Row order: self weight, then total, then key. */
static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct grouping *g = arg;
	const struct agg *a = &g->agg[*(const size_t *)pa];
	const struct agg *b = &g->agg[*(const size_t *)pb];
	if (a->self_w != b->self_w)
		return a->self_w > b->self_w ? -1 : 1;
	if (a->tot_w != b->tot_w)
		return a->tot_w > b->tot_w ? -1 : 1;
	return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* Keys with samples, hottest first. */
static size_t sorted_rows(const struct grouping *g, size_t **out)
{
	size_t *rows = malloc((g->nkeys ? g->nkeys : 1) * sizeof(*rows));
	size_t n = 0;
	for (size_t k = 0; k < g->nkeys; k++)
		if (g->agg[k].tot_n)
			rows[n++] = k;
	qsort_r(rows, n, sizeof(*rows), row_cmp, (void *)g);
	*out = rows;
	return n;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *key_module(const struct grouping *g, size_t k)
{
	if (g->by == PROFILE_BY_MODULE)
		return g->p->modules[k];
	if (g->by == PROFILE_BY_LINE && k < g->v->nlines)
		return g->p->modules[frame_module(g->p, g->v->line_frame[k]) - 1];
	if (g->by == PROFILE_BY_LINE)
		k -= g->v->nlines;
	return g->p->modules[g->p->symbols[key_symbol(g->v, k) - 1].module - 1];
}

/* ---- call paths -------------------------------------------------------- */

/* Kernel code: the module prof record names the kernel's frames by, or
 * a vmlinux (stackcollapse-perf --kernel marks the same). */
static bool module_is_kernel(const char *path)
{
	size_t n = strlen(path);
	return !strcmp(path, DB_MODULE_KERNEL) ||
	       (n >= 7 && !strcmp(path + n - 7, "vmlinux"));
}

/* A frame's label in a path, onto fp: its row's text by symbol, and with
 * kmark a kernel frame's "_[k]" (the folded format of flame-graph
 * tools). The folded format splits on ';' and on lines: folded_field
 * writes neither. */
static void frame_label(const struct view *v, uint32_t node, bool kmark, FILE *fp)
{
	char buf[600];
	size_t k = v->frame_key[v->p->stacks[node - 1].frame - 1];
	folded_field(fp, key_text(v, k, buf, sizeof(buf)));
	if (kmark && module_is_kernel(v->p->modules[node_module(v->p, node) - 1]))
		fputs("_[k]", fp);
}

/* The inlined functions at a node's frame, after it, outermost first:
 * "; step" in folded stacks, " -> step (inlined)" in paths; each name on
 * one line, as folded_field writes it. */
static void inline_labels(const struct view *v, uint32_t node, const char *sep,
			  bool folded, FILE *fp)
{
	const char *in = v->p->frames[v->p->stacks[node - 1].frame - 1].src_inlines;
	if (!v->inlines || !in)
		return;
	while (*in) {
		size_t len = strcspn(in, "\n");
		char *name = strndup(in, len);
		char *d = name && !v->mangled ? demangle_name(name) : NULL;
		fputs(sep, fp);
		folded_field(fp, d && *d ? d : name && *name ? name : "?");
		if (!folded)
			fputs(" (inlined)", fp);
		free(d);
		free(name);
		in += len + (in[len] == '\n');
	}
}

struct path {
	char *text;
	uint64_t weight, samples;
};

/* The path of a stack node, outermost first, joined by sep; folded
 * (sep ";") marks kernel frames. */
static char *path_text(const struct view *v, uint32_t node, const char *sep)
{
	bool kmark = !strcmp(sep, ";");
	size_t depth = 0;
	for (uint32_t n = node; n; n = v->up[n - 1])
		depth++;
	uint32_t *chain = malloc((depth ? depth : 1) * sizeof(*chain));
	size_t i = depth;
	for (uint32_t n = node; n; n = v->up[n - 1])
		chain[--i] = n;
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	for (i = 0; i < depth; i++) {
		if (i)
			fputs(sep, fp);
		frame_label(v, chain[i], kmark, fp);
		inline_labels(v, chain[i], sep, kmark, fp);
	}
	fclose(fp);
	free(chain);
	return out;
}

static int path_by_text(const void *a, const void *b)
{
	return strcmp(((const struct path *)a)->text, ((const struct path *)b)->text);
}

static int path_by_weight(const void *pa, const void *pb)
{
	const struct path *a = pa, *b = pb;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* Distinct paths of one event, merged, sorted by text. */
static size_t collect_paths(const struct view *vw, uint32_t event, const char *sep,
			    struct path **out)
{
	const struct db_profile *p = vw->p;
	struct path *v = calloc(p->ncounts ? p->ncounts : 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < p->ncounts; i++) {
		const struct db_stack_count *c = &p->counts[i];
		if (c->event != event)
			continue;
		v[n].text = path_text(vw, c->stack, sep);
		v[n].weight = c->weight;
		v[n].samples = c->samples;
		n++;
	}
	qsort(v, n, sizeof(*v), path_by_text);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(v[m - 1].text, v[i].text)) {
			v[m - 1].weight += v[i].weight;
			v[m - 1].samples += v[i].samples;
			free(v[i].text);
			continue;
		}
		v[m++] = v[i];
	}
	*out = v;
	return m;
}

static void free_paths(struct path *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

/* ---- writers ---------------------------------------------------------- */

static bool event_is_time_sampled(const struct db_sample_event *e)
{
	return e->attr_type == PERF_TYPE_SOFTWARE &&
	       (e->attr_config == PERF_COUNT_SW_CPU_CLOCK ||
		e->attr_config == PERF_COUNT_SW_TASK_CLOCK);
}

static void event_line(const struct db_sample_event *e, uint64_t samples,
		       uint64_t weight, FILE *fp, const char *lead)
{
	char nb[64];
	fmt_count(nb, sizeof(nb), (double)samples, 0);
	fprintf(fp, "%s%s: %s sample%s", lead, e->name, nb, samples == 1 ? "" : "s");
	if (e->freq)
		fprintf(fp, " at %llu Hz", (unsigned long long)e->freq);
	else if (e->period)
		fprintf(fp, " every %llu", (unsigned long long)e->period);
	if (event_is_time_sampled(e))
		fprintf(fp, " (%.3f s)", (double)weight / 1e9);
	fprintf(fp, ", call graph %s", e->call_graph ? e->call_graph : "none");
	if (e->call_graph && !strcmp(e->call_graph, "dwarf"))
		fprintf(fp, " (%u-byte stacks)", e->stack_bytes);
	if (e->lost || e->dropped)
		fprintf(fp, "; %llu lost by the kernel, %llu dropped by prof",
			(unsigned long long)e->lost, (unsigned long long)e->dropped);
	fputc('\n', fp);
}

static void write_header(const struct db_run *run, const struct db_profile *p,
			 enum out_format fmt, FILE *fp)
{
	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	char status[64];
	if (run->term_signal)
		snprintf(status, sizeof(status), "killed by signal %d (status %d)",
			 run->term_signal, run->exit_status);
	else
		snprintf(status, sizeof(status), "exit %d", run->exit_status);
	if (fmt == OUT_MARKDOWN)
		fprintf(fp, "**prof record %lld**: ", (long long)run->id);
	else
		fprintf(fp, "%sprof record %lld: ", lead, (long long)run->id);
	command_field(fp, run->command, fmt);
	fprintf(fp, " %s%s\n\n", status, run->interrupted ? ", interrupted" : "");
	fprintf(fp, "%swall %.3f s, user %.3f s, sys %.3f s; %zu thread%s\n", lead,
		run->wall_s, run->user_s, run->sys_s, run->nthreads,
		run->nthreads == 1 ? "" : "s");
	for (size_t e = 0; e < p->nevents; e++) {
		uint64_t w = 0, n = 0;
		for (size_t i = 0; i < p->ncounts; i++) {
			if (p->counts[i].event == e) {
				w += p->counts[i].weight;
				n += p->counts[i].samples;
			}
		}
		event_line(&p->events[e], n, w, fp, lead);
	}
	report_run_notes(run, lead, fp);
	fputc('\n', fp);
}

enum {
	P_EVENT, P_MODULE, P_SYMBOL, P_TID, P_THREAD, P_THREADS, P_SAMPLES, P_SELF,
	P_TOTAL_SAMPLES, P_TOTAL, P_MANGLED, P_SECTION, P_OFFSET, P_FILE, P_LINE, P_N
};

/*
 * A row of a profile: what it groups by (module and symbol, a thread, or
 * a thread name), its samples and shares. JSON: the keys of
 * shared/DESIGN.md and more (a symbol's mangled name, or the section or
 * offset of an address without one); CSV also names the event.
 */
static const struct col profile_cols[P_N] = {
	[P_EVENT] = { .key = "event", .flags = COL_NO_PEOPLE | COL_NO_JSON },
	[P_MODULE] = { .key = "module" },
	[P_SYMBOL] = { .key = "symbol" },
	[P_TID] = { .key = "tid", .kind = COL_INT },
	[P_THREAD] = { .key = "thread" },
	[P_THREADS] = { .key = "threads", .kind = COL_INT },
	[P_SAMPLES] = { .key = "samples", .kind = COL_COUNT },
	[P_SELF] = { .key = "self_pct", .title = "self", .kind = COL_PCT },
	[P_TOTAL_SAMPLES] = { .key = "total_samples", .kind = COL_COUNT,
			      .flags = COL_MACHINES },
	[P_TOTAL] = { .key = "total_pct", .title = "total", .kind = COL_PCT },
	[P_MANGLED] = { .key = "mangled", .flags = COL_MACHINES },
	[P_SECTION] = { .key = "section", .flags = COL_MACHINES },
	[P_OFFSET] = { .key = "offset", .flags = COL_MACHINES },
	/* By line: the file in full for machines, "file.c:42" for people. */
	[P_FILE] = { .key = "file", .title = "line" },
	[P_LINE] = { .key = "line", .kind = COL_INT, .flags = COL_MACHINES },
};

static void set_pct(struct rows *r, size_t row, size_t col, uint64_t part,
		    uint64_t whole)
{
	double v = pct(part, whole);
	rows_num(r, row, col, v);
	rows_text(r, row, col, "%.2f%%", v);
}

static struct rows *profile_rows(enum profile_by by)
{
	static const size_t sym[] = { P_SELF, P_TOTAL, P_SAMPLES, P_MODULE, P_SYMBOL };
	static const size_t mod[] = { P_SELF, P_TOTAL, P_SAMPLES, P_MODULE };
	static const size_t thr[] = { P_SELF, P_SAMPLES, P_TID, P_THREAD };
	static const size_t name[] = { P_SELF, P_SAMPLES, P_THREADS, P_THREAD };
	static const size_t line[] = { P_SELF, P_TOTAL, P_SAMPLES, P_MODULE, P_SYMBOL,
				       P_FILE };
	struct col cols[P_N];
	memcpy(cols, profile_cols, sizeof(cols));
	if (by == PROFILE_BY_NAME)
		cols[P_THREAD].title = "name";
	/* CSV: the event, what the rows group by, the counts. */
	static const size_t sym_csv[] = {
		P_EVENT, P_MODULE, P_SYMBOL, P_SAMPLES, P_SELF, P_TOTAL_SAMPLES,
		P_TOTAL, P_MANGLED, P_SECTION, P_OFFSET,
	};
	static const size_t mod_csv[] = {
		P_EVENT, P_MODULE, P_SAMPLES, P_SELF, P_TOTAL_SAMPLES, P_TOTAL,
	};
	static const size_t thr_csv[] = {
		P_EVENT, P_TID, P_THREAD, P_SAMPLES, P_SELF, P_TOTAL_SAMPLES, P_TOTAL,
	};
	static const size_t name_csv[] = {
		P_EVENT, P_THREAD, P_THREADS, P_SAMPLES, P_SELF, P_TOTAL_SAMPLES, P_TOTAL,
	};
	static const size_t line_csv[] = {
		P_EVENT, P_MODULE, P_SYMBOL, P_FILE, P_LINE, P_SAMPLES, P_SELF,
		P_TOTAL_SAMPLES, P_TOTAL,
	};
#define ORDER(r, f, v) f(r, v, sizeof(v) / sizeof((v)[0]))
	struct rows *r = rows_new("rows", cols, P_N, ROWS_FLAT);
	switch (by) {
	case PROFILE_BY_SYMBOL:
		ORDER(r, rows_people_order, sym);
		ORDER(r, rows_csv_order, sym_csv);
		break;
	case PROFILE_BY_MODULE:
		ORDER(r, rows_people_order, mod);
		ORDER(r, rows_csv_order, mod_csv);
		break;
	case PROFILE_BY_THREAD:
		ORDER(r, rows_people_order, thr);
		ORDER(r, rows_csv_order, thr_csv);
		break;
	case PROFILE_BY_LINE:
		ORDER(r, rows_people_order, line);
		ORDER(r, rows_csv_order, line_csv);
		break;
	default:
		ORDER(r, rows_people_order, name);
		ORDER(r, rows_csv_order, name_csv);
		break;
	}
#undef ORDER
	return r;
}

/* What a row by line names: its module, function, file and line; a
 * frame without a line by its symbol (file and line null). */
static void add_line_key(struct rows *r, size_t row, const struct grouping *g, size_t k)
{
	const struct view *v = g->v;
	const char *mod = key_module(g, k);
	rows_str(r, row, P_MODULE, mod);
	rows_text(r, row, P_MODULE, "%s", profile_module_short(mod));
	char buf[600];
	if (k >= v->nlines) {
		rows_str(r, row, P_SYMBOL, key_text(v, k - v->nlines, buf, sizeof(buf)));
		rows_null(r, row, P_FILE);
		rows_text(r, row, P_FILE, "%s", "?");
		rows_null(r, row, P_LINE);
		return;
	}
	const struct db_frame *f = &g->p->frames[v->line_frame[k] - 1];
	const char *fn = v->line_func[k];
	if (!fn)
		fn = key_text(v, v->frame_key[v->line_frame[k] - 1], buf, sizeof(buf));
	rows_str(r, row, P_SYMBOL, fn);
	rows_str(r, row, P_FILE, f->src_file);
	const char *base = strrchr(f->src_file, '/');
	rows_text(r, row, P_FILE, "%s:%u", base ? base + 1 : f->src_file, f->src_line);
	rows_uint(r, row, P_LINE, f->src_line);
}

/* Append the rows of one event's grouping, hottest first. */
static void add_profile_rows(struct rows *r, const struct grouping *g,
			     const char *event, const size_t *rows, size_t n)
{
	const struct view *v = g->v;
	for (size_t i = 0; i < n; i++) {
		size_t k = rows[i];
		const struct agg *a = &g->agg[k];
		size_t row = rows_add(r);
		rows_str(r, row, P_EVENT, event);
		if (g->by == PROFILE_BY_LINE) {
			add_line_key(r, row, g, k);
		} else if (g->by == PROFILE_BY_SYMBOL || g->by == PROFILE_BY_MODULE) {
			const char *mod = key_module(g, k);
			rows_str(r, row, P_MODULE, mod);
			rows_text(r, row, P_MODULE, "%s", profile_module_short(mod));
			char buf[600];
			if (g->by == PROFILE_BY_SYMBOL)
				rows_str(r, row, P_SYMBOL, key_text(v, k, buf, sizeof(buf)));
			else
				rows_null(r, row, P_SYMBOL);
		} else if (g->by == PROFILE_BY_THREAD) {
			if (k < g->run->nthreads) {
				const struct db_thread *th = &g->run->threads[k];
				rows_int(r, row, P_TID, th->tid);
				rows_str(r, row, P_THREAD, th->name);
				if (!th->name)
					rows_text(r, row, P_THREAD, "?");
			} else {
				rows_null(r, row, P_TID);
				rows_null(r, row, P_THREAD);
				rows_text(r, row, P_THREAD, "[unknown thread]");
			}
		} else {
			rows_str(r, row, P_THREAD, g->names[k]);
			rows_uint(r, row, P_THREADS, k < g->nkeys - 1 ? g->name_threads[k] : 0);
			if (k >= g->nkeys - 1)
				rows_text(r, row, P_THREADS, "%s", "");
		}
		rows_uint(r, row, P_SAMPLES, a->self_n);
		set_pct(r, row, P_SELF, a->self_w, g->total_w);
		rows_uint(r, row, P_TOTAL_SAMPLES, a->tot_n);
		set_pct(r, row, P_TOTAL, a->tot_w, g->total_w);
		if (g->by == PROFILE_BY_SYMBOL && k < g->p->nsymbols &&
		    v->raw[k].name != g->p->symbols[k].name) {
			rows_str(r, row, P_MANGLED, v->raw[k].name);
		} else if (g->by == PROFILE_BY_SYMBOL && k >= g->p->nsymbols) {
			const struct place *pl = &v->places[k - g->p->nsymbols];
			if (pl->section) {
				rows_str(r, row, P_SECTION, pl->section);
			} else {
				char off[32];
				snprintf(off, sizeof(off), "0x%llx",
					 (unsigned long long)pl->offset);
				rows_str(r, row, P_OFFSET, off);
			}
		}
	}
}

enum { K_EVENT, K_PATH, K_SAMPLES, K_PCT, K_N };

/* A call path, root first: its samples and share of the event. */
static const struct col path_cols[K_N] = {
	[K_EVENT] = { .key = "event", .flags = COL_NO_PEOPLE | COL_NO_JSON },
	[K_PATH] = { .key = "path", .title = "call path" },
	[K_SAMPLES] = { .key = "samples", .kind = COL_COUNT },
	[K_PCT] = { .key = "pct", .title = "share", .kind = COL_PCT },
};

static struct rows *path_rows(void)
{
	static const size_t people[] = { K_PCT, K_SAMPLES, K_PATH };
	static const size_t csv[] = { K_EVENT, K_SAMPLES, K_PCT, K_PATH };
	struct rows *r = rows_new("stacks", path_cols, K_N, ROWS_FLAT);
	rows_people_order(r, people, sizeof(people) / sizeof(people[0]));
	rows_csv_order(r, csv, sizeof(csv) / sizeof(csv[0]));
	return r;
}

static void add_path_rows(struct rows *r, const char *event, const struct path *v,
			  size_t n, uint64_t total)
{
	for (size_t i = 0; i < n; i++) {
		size_t row = rows_add(r);
		rows_str(r, row, K_EVENT, event);
		rows_str(r, row, K_PATH, v[i].text);
		rows_uint(r, row, K_SAMPLES, v[i].samples);
		set_pct(r, row, K_PCT, v[i].weight, total);
	}
}

/* The paths of one event, hottest first. */
static size_t hottest_paths(const struct view *v, uint32_t event,
			    const char *sep, struct path **out)
{
	size_t n = collect_paths(v, event, sep, out);
	qsort(*out, n, sizeof(**out), path_by_weight);
	return n;
}

/*
 * How the user asked to see a list: --limit cuts the rows and the call
 * paths alike; --sort orders the list people read (the paths with
 * --stacks, else the rows), the other keeps its hottest-first order.
 */
static struct rows_view list_view(const struct profile_opts *o, bool paths)
{
	struct rows_view v = { NULL, o->limit };
	if (paths == o->stacks)
		v.sort = o->sort;
	return v;
}

/* Append one event's rows, hottest first, ordered and cut as asked. */
static void add_event_rows(struct rows *r, const struct grouping *g, uint32_t e,
			   const struct profile_opts *o)
{
	size_t first = rows_count(r), *rows;
	size_t n = sorted_rows(g, &rows);
	add_profile_rows(r, g, g->p->events[e].name, rows, n);
	free(rows);
	struct rows_view v = list_view(o, false);
	rows_view_apply(r, first, &v, "row", "rows");
}

static void add_event_paths(struct rows *r, const struct grouping *g, uint32_t e,
			    const struct profile_opts *o)
{
	size_t first = rows_count(r);
	struct path *v;
	size_t n = hottest_paths(g->v, e, " -> ", &v);
	add_path_rows(r, g->p->events[e].name, v, n, g->total_w);
	free_paths(v, n);
	struct rows_view lv = list_view(o, true);
	rows_view_apply(r, first, &lv, "call path", "call paths");
}

/* One event's grouping as a row set. */
static struct rows *event_rows(const struct grouping *g, uint32_t e,
			       const struct profile_opts *o)
{
	struct rows *r = profile_rows(o->by);
	add_event_rows(r, g, e, o);
	return r;
}

static struct rows *event_paths(const struct grouping *g, uint32_t e,
				const struct profile_opts *o)
{
	struct rows *r = path_rows();
	add_event_paths(r, g, e, o);
	return r;
}

int profile_sort_check(enum profile_by by, bool stacks, const char *sort,
		       char **cause)
{
	struct rows *r = stacks ? path_rows() : profile_rows(by);
	int rc = rows_sort_check(r, sort, cause);
	rows_free(r);
	return rc;
}

#define EVENT_COLS(K) \
	K(E_EVENT, "event", TEXT) \
	K(E_SAMPLES, "samples", COUNT) K(E_WEIGHT, "weight", COUNT) \
	K(E_PERIOD, "period", COUNT) K(E_FREQ, "freq", COUNT) \
	K(E_CALL_GRAPH, "call_graph", TEXT) \
	K(E_LOST, "lost", COUNT) K(E_DROPPED, "dropped", COUNT) \
	K(E_CUT, "chains_cut", COUNT) \
	K(E_ROWS, "rows", NEST) K(E_STACKS, "stacks", NEST)
ROWS_KEYS(event_cols, E_N, EVENT_COLS);

static void add_event(struct rows *r, const struct grouping *g, uint32_t e,
		      const struct profile_opts *o)
{
	const struct db_sample_event *ev = &g->p->events[e];
	size_t row = rows_add(r);
	rows_str(r, row, E_EVENT, ev->name);
	rows_uint(r, row, E_SAMPLES, g->total_n);
	rows_uint(r, row, E_WEIGHT, g->total_w);
	if (ev->period)
		rows_uint(r, row, E_PERIOD, ev->period);
	else
		rows_null(r, row, E_PERIOD);
	if (ev->freq)
		rows_uint(r, row, E_FREQ, ev->freq);
	else
		rows_null(r, row, E_FREQ);
	rows_str(r, row, E_CALL_GRAPH, ev->call_graph);
	rows_uint(r, row, E_LOST, ev->lost);
	rows_uint(r, row, E_DROPPED, ev->dropped);
	rows_uint(r, row, E_CUT, g->cut_n);
	rows_nest(r, row, E_ROWS, event_rows(g, e, o));
	if (o->stacks)
		rows_nest(r, row, E_STACKS, event_paths(g, e, o));
}

#define PROFILE_DOC_COLS(K) \
	K(D_RUN_ID, "run_id", INT) K(D_KIND, "kind", TEXT) \
	K(D_COMMAND, "command", TEXT) K(D_EXIT, "exit_status", INT) \
	K(D_WALL, "wall_s", REAL) K(D_TASKS, "tasks", INT) \
	K(D_COMPLETE, "complete", BOOL) K(D_REASONS, "reasons", NEST) \
	K(D_BY, "by", TEXT) K(D_EVENT, "event", TEXT) K(D_ROWS, "rows", NEST) \
	K(D_EVENTS, "events", NEST)
ROWS_KEYS(profile_doc_cols, D_N, PROFILE_DOC_COLS);

static void write_json(const struct db_run *run, const struct view *v,
		       const struct profile_opts *o, FILE *fp)
{
	const struct db_profile *p = v->p;
	struct rows *doc = rows_new(NULL, profile_doc_cols, D_N, 0);
	size_t row = rows_add(doc);
	rows_int(doc, row, D_RUN_ID, run->id);
	rows_str(doc, row, D_KIND, run->kind);
	rows_str(doc, row, D_COMMAND, run->command);
	rows_int(doc, row, D_EXIT, run->exit_status);
	rows_num(doc, row, D_WALL, run->wall_s);
	/* Whether the run kept every task, as every collecting verb says. */
	rows_uint(doc, row, D_TASKS, run->nthreads);
	report_complete_cells(run, doc, row, D_COMPLETE, D_REASONS);
	rows_str(doc, row, D_BY, profile_by_name(o->by));
	struct grouping g;
	grouping_init(&g, run, v, o->by);
	uint32_t first = o->event >= 0 ? (uint32_t)o->event : 0;
	/* The contract's top-level keys: the first event shown. */
	rows_str(doc, row, D_EVENT, p->nevents ? p->events[first].name : NULL);
	if (p->nevents) {
		grouping_fill(&g, first);
		rows_nest(doc, row, D_ROWS, event_rows(&g, first, o));
	} else {
		rows_nest(doc, row, D_ROWS, profile_rows(o->by));
	}
	struct rows *events = rows_new(NULL, event_cols, E_N, 0);
	for (uint32_t e = 0; e < p->nevents; e++) {
		if (o->event >= 0 && e != (uint32_t)o->event)
			continue;
		grouping_fill(&g, e);
		add_event(events, &g, e, o);
	}
	rows_nest(doc, row, D_EVENTS, events);
	rows_write_data(doc, OUT_JSON, fp);
	grouping_release(&g);
}

static void write_folded(const struct view *vw, const struct profile_opts *o, FILE *fp)
{
	if (!vw->p->nevents)
		return;
	uint32_t e = o->event >= 0 ? (uint32_t)o->event : 0;
	struct path *v;
	size_t n = collect_paths(vw, e, ";", &v);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%s %llu\n", v[i].text, (unsigned long long)v[i].samples);
	free_paths(v, n);
}

/* CSV: every event shown in one table, the event named on each line. */
static void write_csv(const struct db_run *run, const struct view *vw,
		      const struct profile_opts *o, FILE *fp)
{
	const struct db_profile *p = vw->p;
	struct grouping g;
	grouping_init(&g, run, vw, o->by);
	struct rows *r = o->stacks ? path_rows() : profile_rows(o->by);
	for (uint32_t e = 0; e < p->nevents; e++) {
		if (o->event >= 0 && e != (uint32_t)o->event)
			continue;
		grouping_fill(&g, e);
		if (o->stacks)
			add_event_paths(r, &g, e, o);
		else
			add_event_rows(r, &g, e, o);
	}
	rows_write_data(r, OUT_CSV, fp);
	grouping_release(&g);
}

/* Say how many samples' call chains were cut, and why that happens. */
static void write_cut_note(const struct grouping *g, const struct db_sample_event *e,
			   enum out_format fmt, FILE *fp)
{
	if (!g->cut_n)
		return;
	char nb[64];
	fmt_count(nb, sizeof(nb), (double)g->cut_n, 0);
	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	fprintf(fp, "%scall chains of %s sample%s (%.2f%%) end at a caller in no known "
		"mapping,\n%sas a frame-pointer walk through code built without frame "
		"pointers finds\n", lead, nb, g->cut_n == 1 ? "" : "s",
		pct(g->cut_w, g->total_w), lead);
	if (e->call_graph && !strcmp(e->call_graph, "fp"))
		fprintf(fp, "%s(--call-graph dwarf unwinds such code)\n", lead);
	fputc('\n', fp);
}

static void report_view(const struct db_run *run, const struct view *v,
			const struct profile_opts *o, FILE *fp)
{
	const struct db_profile *p = v->p;
	switch (o->fmt) {
	case OUT_JSON:
		write_json(run, v, o, fp);
		return;
	case OUT_FOLDED:
		write_folded(v, o, fp);
		return;
	case OUT_CSV:
		write_csv(run, v, o, fp);
		return;
	default:
		break;
	}
	write_header(run, p, o->fmt, fp);
	struct grouping g;
	grouping_init(&g, run, v, o->by);
	for (uint32_t e = 0; e < p->nevents; e++) {
		if (o->event >= 0 && e != (uint32_t)o->event)
			continue;
		grouping_fill(&g, e);
		if (p->nevents > 1 || o->stacks) {
			if (o->fmt == OUT_MARKDOWN)
				fprintf(fp, "**%s**%s\n\n", p->events[e].name,
					o->stacks ? ": hottest call paths" : "");
			else
				fprintf(fp, " %s%s\n", p->events[e].name,
					o->stacks ? ": hottest call paths" : "");
		}
		if (!g.total_n) {
			fprintf(fp, " no samples\n\n");
			continue;
		}
		struct rows *t = o->stacks ? event_paths(&g, e, o) : event_rows(&g, e, o);
		rows_write(t, o->fmt, fp, o->fmt == OUT_MARKDOWN ? 0 : 1);
		rows_free(t);
		fputc('\n', fp);
		if (o->stacks || o->by == PROFILE_BY_SYMBOL || o->by == PROFILE_BY_MODULE ||
		    o->by == PROFILE_BY_LINE)
			write_cut_note(&g, &p->events[e], o->fmt, fp);
	}
	grouping_release(&g);
}

/*
 * Symbols as reports show them: demangled (each distinct symbol once),
 * unless o->mangled. The names are the db_profile's own where nothing
 * changed, so a name that differs from the stored one was demangled.
 */
static struct db_symbol *shown_symbols(const struct db_profile *p,
				       const struct profile_opts *o)
{
	struct db_symbol *v = malloc((p->nsymbols ? p->nsymbols : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->nsymbols; i++) {
		v[i] = p->symbols[i];
		char *d = o->mangled ? NULL : demangle_name(v[i].name);
		if (d)
			v[i].name = d;
	}
	return v;
}

void report_profile(const struct db_run *run, const struct db_profile *p,
		    const struct profile_opts *o, FILE *fp)
{
	struct db_profile shown = *p;
	struct db_symbol *syms = shown_symbols(p, o);
	if (syms)
		shown.symbols = syms;
	struct view v;
	if (view_init(&v, &shown, p->symbols, o) == 0) {
		report_view(run, &v, o, fp);
		view_release(&v);
	} else {
		fprintf(fp, "prof: out of memory\n");
	}
	for (size_t i = 0; syms && i < p->nsymbols; i++)
		if (syms[i].name != p->symbols[i].name)
			free(syms[i].name);
	free(syms);
}
