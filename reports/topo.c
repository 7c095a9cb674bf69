/* topo (reports): the machine's cache domains, for people and for JSON. */
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/rows.h"
#include "reports/topo.h"

static const char *short_type(const char *type)
{
	if (!type)
		return "";
	if (!strcmp(type, "Data"))
		return "d";
	if (!strcmp(type, "Instruction"))
		return "i";
	return "";
}

/* A line of CPU sets, wrapped at 78 columns for a terminal; in Markdown
 * a list item on one line. */
static void write_sets(FILE *fp, const char *title, const struct db_cpuset *v,
		       size_t n, const char *prefix, bool md)
{
	if (!n)
		return;
	fprintf(fp, "%s%s:", md ? "- " : " ", title);
	size_t col = strlen(title) + 2;
	for (size_t i = 0; i < n; i++) {
		char item[96];
		if (prefix)
			snprintf(item, sizeof(item), " %s%d %s", prefix, v[i].number, v[i].cpus);
		else
			snprintf(item, sizeof(item), " %s", v[i].cpus);
		if (!md && col + strlen(item) > 78) {
			fputs("\n   ", fp);
			col = 3;
		}
		fputs(item, fp);
		col += strlen(item);
		if (!prefix && i + 1 < n) {
			fputc(';', fp);
			col++;
		}
	}
	fputc('\n', fp);
}

/* The pin name of a cache domain ("llc:1", "l2:3"), or NULL. */
static const char *pin_kind(const struct db_topology *t, const struct db_cache *c)
{
	if (!strcmp(c->type, "Instruction"))
		return NULL;
	if (c->level == t->llc_level)
		return "llc";
	return c->level == 2 ? "l2" : NULL;
}

enum { K_LEVEL, K_TYPE, K_SIZE, K_CPUS, K_INDEX, K_NCPUS, K_PIN, K_LARGEST, K_N };

/* A cache domain: the JSON keys of shared/DESIGN.md, then what people
 * and CSV also get (how many CPUs, the name --pin takes, largest-llc). */
static const struct col cache_cols[K_N] = {
	[K_LEVEL] = { .key = "level", .title = "cache", .kind = COL_INT,
		      .align = COL_LEFT },
	[K_TYPE] = { .key = "type", .kind = COL_TEXT, .flags = COL_NO_PEOPLE },
	[K_SIZE] = { .key = "size_bytes", .title = "size", .kind = COL_BYTES },
	[K_CPUS] = { .key = "cpus", .title = "CPUs", .kind = COL_CPUS },
	[K_INDEX] = { .key = "index", .kind = COL_INT, .flags = COL_NO_PEOPLE },
	[K_NCPUS] = { .key = "ncpus", .title = "#CPUs", .kind = COL_INT,
		      .flags = COL_NO_JSON },
	[K_PIN] = { .key = "pin", .kind = COL_TEXT, .flags = COL_NO_JSON },
	[K_LARGEST] = { .key = "largest_llc", .title = "largest-llc",
			.kind = COL_BOOL, .flags = COL_NO_JSON },
};

static void cache_row(struct rows *r, const struct db_topology *t, size_t i,
		      bool full)
{
	const struct db_cache *c = &t->caches[i];
	size_t row = rows_add(r);
	rows_int(r, row, K_LEVEL, c->level);
	rows_text(r, row, K_LEVEL, "L%d%s", c->level, short_type(c->type));
	if (full)
		rows_str(r, row, K_TYPE, c->type);
	rows_uint(r, row, K_SIZE, c->size_bytes);
	rows_str(r, row, K_CPUS, c->cpus);
	rows_uint(r, row, K_INDEX, c->index);
	if (!full)
		return;
	rows_uint(r, row, K_NCPUS, cpu_list_count(c->cpus));
	const char *kind = pin_kind(t, c);
	if (kind) {
		char pin[32];
		snprintf(pin, sizeof(pin), "%s:%zu", kind, c->index);
		rows_str(r, row, K_PIN, pin);
	}
	bool largest = t->largest_llc == (long)i;
	rows_bool(r, row, K_LARGEST, largest);
	rows_text(r, row, K_LARGEST, "%s", largest ? "yes" : "");
}

static struct rows *caches_rows(const struct db_topology *t)
{
	struct rows *r = rows_new("caches", cache_cols, K_N, 0);
	for (size_t i = 0; i < t->ncaches; i++)
		cache_row(r, t, i, true);
	return r;
}

/* A list of CPU lists, or of lines of text, as bare JSON values. */
static struct rows *value_rows(enum col_kind kind, const struct db_cpuset *v,
			       size_t n, const char *lines)
{
	const struct col col = { .key = "value", .kind = kind };
	struct rows *r = rows_new(NULL, &col, 1, ROWS_VALUES);
	for (size_t i = 0; i < n; i++)
		rows_str(r, rows_add(r), 0, v[i].cpus);
	for (const char *p = lines; p && *p;) {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len);
		if (!line)
			xalloc_die();
		rows_str(r, rows_add(r), 0, line);
		free(line);
		p += len + (p[len] != '\0');
	}
	return r;
}

#define TOPO_COLS(K) \
	K(T_ROOT, "root", TEXT) K(T_ONLINE, "online", CPUS) \
	K(T_CACHES, "caches", NEST) K(T_LLC_LEVEL, "llc_level", INT) \
	K(T_LARGEST, "largest_llc", NEST) K(T_REASON, "largest_llc_reason", TEXT) \
	K(T_ASYM, "llc_asymmetric", BOOL) \
	K(T_CLUSTERS, "clusters", NEST) K(T_SMT, "smt", NEST) \
	K(T_PACKAGES, "packages", NEST) K(T_CLUSTER_SOURCE, "cluster_source", TEXT) \
	K(T_NODES, "nodes", NEST) K(T_NOTES, "notes", NEST)
ROWS_KEYS(topo_cols, T_N, TOPO_COLS);

#define NODE_COLS(K) \
	K(N_NODE, "node", INT) K(N_CPUS, "cpus", CPUS)
ROWS_KEYS(node_cols, N_N, NODE_COLS);

/* The whole topology as one record: the JSON document of `prof topo`. */
static struct rows *topo_record(const struct db_topology *t)
{
	struct rows *r = rows_new(NULL, topo_cols, T_N, 0);
	size_t row = rows_add(r);
	rows_str(r, row, T_ROOT, t->root);
	rows_str(r, row, T_ONLINE, t->online ? t->online : "");
	rows_nest(r, row, T_CACHES, caches_rows(t));
	rows_int(r, row, T_LLC_LEVEL, t->llc_level);
	/* largest_llc: {level, size_bytes, cpus, index} or null */
	struct rows *largest = rows_new(NULL, cache_cols, K_N, ROWS_OBJECT);
	if (t->largest_llc >= 0 && (size_t)t->largest_llc < t->ncaches)
		cache_row(largest, t, (size_t)t->largest_llc, false);
	rows_nest(r, row, T_LARGEST, largest);
	rows_str(r, row, T_REASON, t->largest_reason);
	rows_bool(r, row, T_ASYM, t->llc_asymmetric);
	rows_nest(r, row, T_CLUSTERS, value_rows(COL_CPUS, t->clusters, t->nclusters, NULL));
	rows_nest(r, row, T_SMT, value_rows(COL_CPUS, t->smt, t->nsmt, NULL));
	rows_nest(r, row, T_PACKAGES, value_rows(COL_CPUS, t->packages, t->npackages, NULL));
	rows_str(r, row, T_CLUSTER_SOURCE, t->cluster_source);
	struct rows *nodes = rows_new(NULL, node_cols, N_N, 0);
	for (size_t i = 0; i < t->nnodes; i++) {
		size_t n = rows_add(nodes);
		rows_int(nodes, n, N_NODE, t->nodes[i].number);
		rows_str(nodes, n, N_CPUS, t->nodes[i].cpus);
	}
	rows_nest(r, row, T_NODES, nodes);
	rows_nest(r, row, T_NOTES, value_rows(COL_TEXT, NULL, 0, t->notes));
	return r;
}

/* The caches as the terminal shows them: levels no pin names summed up,
 * pin-able domains one per line. */
static void write_caches_text(const struct db_topology *t, FILE *fp)
{
	if (t->ncaches)
		fprintf(fp, " caches (N as in --pin llc:N and l2:N, in CPU order):\n");
	else
		fprintf(fp, " no cache domains reported\n");
	for (size_t i = 0; i < t->ncaches;) {
		const struct db_cache *c = &t->caches[i];
		size_t j = i;
		while (j < t->ncaches && t->caches[j].level == c->level &&
		       !strcmp(t->caches[j].type, c->type))
			j++;
		char size[32];
		fmt_bytes(size, sizeof(size), (double)c->size_bytes);
		bool same = true;
		for (size_t k = i; k < j; k++)
			same = same && t->caches[k].size_bytes == c->size_bytes;
		const char *kind = pin_kind(t, c);
		fprintf(fp, "   L%d%-2s %zu domain%s", c->level, short_type(c->type),
			j - i, j - i == 1 ? "" : "s");
		if (same)
			fprintf(fp, " of %s", size);
		if (!kind) {
			/* Levels no pin names: how many of each size, and how
			 * many CPUs share each, rather than every domain. */
			fputs(":", fp);
			for (size_t k = i; k < j; k++) {
				const struct db_cache *d = &t->caches[k];
				size_t nd = cpu_list_count(d->cpus);
				bool seen = false;
				for (size_t q = i; q < k; q++)
					seen = seen || (t->caches[q].size_bytes == d->size_bytes &&
							cpu_list_count(t->caches[q].cpus) == nd);
				if (seen)
					continue;
				size_t cnt = 0;
				for (size_t q = k; q < j; q++)
					cnt += t->caches[q].size_bytes == d->size_bytes &&
					       cpu_list_count(t->caches[q].cpus) == nd;
				char sz[32];
				fmt_bytes(sz, sizeof(sz), (double)d->size_bytes);
				fprintf(fp, "%s %zu x %s (%zu CPU%s each)", k == i ? "" : ",",
					cnt, sz, nd, nd == 1 ? "" : "s");
			}
			fputc('\n', fp);
		} else {
			fputc('\n', fp);
			for (size_t k = i; k < j; k++) {
				const struct db_cache *d = &t->caches[k];
				char sz[32];
				fmt_bytes(sz, sizeof(sz), (double)d->size_bytes);
				char label[24];
				snprintf(label, sizeof(label), "%s:%zu", kind, d->index);
				fprintf(fp, "       %-7s %9s  CPUs %s (%zu)%s\n", label, sz,
					d->cpus, cpu_list_count(d->cpus),
					t->largest_llc == (long)k ? "  <- largest-llc" : "");
			}
		}
		i = j;
	}
}

/* Which domain largest-llc picks, why, and whether the choice matters. */
static void write_largest(const struct db_topology *t, bool md, FILE *fp)
{
	const char *lead = md ? "- " : " ";
	if (t->largest_llc >= 0 && (size_t)t->largest_llc < t->ncaches) {
		const struct db_cache *c = &t->caches[t->largest_llc];
		char sz[32];
		fmt_bytes(sz, sizeof(sz), (double)c->size_bytes);
		fprintf(fp, "%slargest-llc: llc:%zu, the %s L%d shared by CPUs %s\n",
			lead, c->index, sz, c->level, c->cpus);
	} else {
		fprintf(fp, "%slargest-llc: none\n", lead);
	}
	if (t->largest_reason) {
		fprintf(fp, "%swhy: ", md ? "- " : "   ");
		(md ? md_field : term_field)(fp, t->largest_reason);
		fputc('\n', fp);
	}
	size_t nllc = 0;
	for (size_t i = 0; i < t->ncaches; i++)
		nllc += t->caches[i].level == t->llc_level &&
			strcmp(t->caches[i].type, "Instruction");
	if (t->llc_level && nllc == 1) {
		fprintf(fp, "%sone last-level domain: every CPU shares it, so domain "
			"choice cannot matter here\n", lead);
	} else if (t->llc_level && nllc > 1) {
		if (t->llc_asymmetric)
			fprintf(fp, "%slast-level domains differ in size (asymmetric): "
				"the domain a run lands on can matter\n", lead);
		else
			fprintf(fp, "%slast-level domains are all the same size: choosing "
				"one cannot change the cache a run gets, only how many "
				"cores it has\n", lead);
	}
}

void report_topo(const struct db_topology *t, enum out_format fmt, FILE *fp)
{
	bool md = fmt == OUT_MARKDOWN;
	if (fmt == OUT_JSON || fmt == OUT_CSV) {
		rows_write_data(fmt == OUT_JSON ? topo_record(t) : caches_rows(t), fmt, fp);
		return;
	}
	fprintf(fp, md ? "**prof topo**: online CPUs %s (%zu)\n\n"
		: " online CPUs: %s (%zu)\n\n", t->online ? t->online : "?",
		cpu_list_count(t->online));
	if (!md) {
		write_caches_text(t, fp);
	} else if (t->ncaches) {
		fprintf(fp, "caches, numbered as --pin llc:N and l2:N take them, in "
			"CPU order:\n\n");
		struct rows *caches = caches_rows(t);
		rows_write(caches, OUT_MARKDOWN, fp, 0);
		rows_free(caches);
	} else {
		fprintf(fp, "no cache domains reported\n");
	}
	fputc('\n', fp);
	write_largest(t, md, fp);
	fputc('\n', fp);
	write_sets(fp, t->cluster_source && !strcmp(t->cluster_source, "sysfs")
		   ? "clusters (cluster_cpus_list)" : "clusters (CPUs sharing an L2)",
		   t->clusters, t->nclusters, NULL, md);
	write_sets(fp, "SMT siblings", t->smt, t->nsmt, NULL, md);
	write_sets(fp, "packages", t->packages, t->npackages, NULL, md);
	write_sets(fp, "NUMA nodes", t->nodes, t->nnodes, "node", md);
	if (md && t->notes)
		fputc('\n', fp);
	for (const char *p = t->notes; p && *p;) {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len);
		if (!line)
			xalloc_die();
		fprintf(fp, md ? "- note: " : " note: ");
		(md ? md_field : term_field)(fp, line);
		fputc('\n', fp);
		free(line);
		p += len;
		if (*p)
			p++;
	}
}
