/* topo (reports): the machine's cache domains, for people and for JSON. */
#include <stdlib.h>
#include <string.h>

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

static void write_sets(FILE *fp, const char *title, const struct db_cpuset *v,
		       size_t n, const char *prefix)
{
	if (!n)
		return;
	fprintf(fp, " %s:", title);
	size_t col = strlen(title) + 2;
	for (size_t i = 0; i < n; i++) {
		char item[96];
		if (prefix)
			snprintf(item, sizeof(item), " %s%d %s", prefix, v[i].number, v[i].cpus);
		else
			snprintf(item, sizeof(item), " %s", v[i].cpus);
		if (col + strlen(item) > 78) {
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

static void write_json(const struct db_topology *t, FILE *fp)
{
	struct jw w;
	jw_init(&w, fp, 2);
	jw_obj_begin(&w);
	jw_key(&w, "root");
	jw_str(&w, t->root);
	jw_key(&w, "online");
	jw_cpu_list(&w, t->online);
	jw_key(&w, "caches");
	jw_arr_begin(&w);
	for (size_t i = 0; i < t->ncaches; i++) {
		const struct db_cache *c = &t->caches[i];
		jw_obj_begin(&w);
		jw_key(&w, "level");
		jw_int(&w, c->level);
		jw_key(&w, "type");
		jw_str(&w, c->type);
		jw_key(&w, "size_bytes");
		jw_uint(&w, c->size_bytes);
		jw_key(&w, "cpus");
		jw_cpu_list(&w, c->cpus);
		jw_key(&w, "index");
		jw_uint(&w, c->index);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "llc_level");
	jw_int(&w, t->llc_level);
	jw_key(&w, "largest_llc");
	if (t->largest_llc >= 0 && (size_t)t->largest_llc < t->ncaches) {
		const struct db_cache *c = &t->caches[t->largest_llc];
		jw_obj_begin(&w);
		jw_key(&w, "level");
		jw_int(&w, c->level);
		jw_key(&w, "size_bytes");
		jw_uint(&w, c->size_bytes);
		jw_key(&w, "cpus");
		jw_cpu_list(&w, c->cpus);
		jw_key(&w, "index");
		jw_uint(&w, c->index);
		jw_obj_end(&w);
	} else {
		jw_null(&w);
	}
	jw_key(&w, "largest_llc_reason");
	jw_str(&w, t->largest_reason);
	jw_key(&w, "llc_asymmetric");
	jw_bool(&w, t->llc_asymmetric);
	const char *names[] = { "clusters", "smt", "packages" };
	const struct db_cpuset *sets[] = { t->clusters, t->smt, t->packages };
	size_t ns[] = { t->nclusters, t->nsmt, t->npackages };
	for (int k = 0; k < 3; k++) {
		jw_key(&w, names[k]);
		jw_arr_begin(&w);
		for (size_t i = 0; i < ns[k]; i++)
			jw_cpu_list(&w, sets[k][i].cpus);
		jw_arr_end(&w);
	}
	jw_key(&w, "cluster_source");
	jw_str(&w, t->cluster_source);
	jw_key(&w, "nodes");
	jw_arr_begin(&w);
	for (size_t i = 0; i < t->nnodes; i++) {
		jw_obj_begin(&w);
		jw_key(&w, "node");
		jw_int(&w, t->nodes[i].number);
		jw_key(&w, "cpus");
		jw_cpu_list(&w, t->nodes[i].cpus);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "notes");
	jw_arr_begin(&w);
	for (const char *p = t->notes; p && *p;) {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len);
		jw_str(&w, line);
		free(line);
		p += len;
		if (*p)
			p++;
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_end(&w);
}

void report_topo(const struct db_topology *t, enum out_format fmt, FILE *fp)
{
	if (fmt == OUT_JSON) {
		write_json(t, fp);
		return;
	}
	fprintf(fp, " online CPUs: %s (%zu)\n\n", t->online ? t->online : "?",
		cpu_list_count(t->online));
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
		const char *kind = c->level == t->llc_level &&
				   strcmp(c->type, "Instruction") ? "llc"
				   : c->level == 2 && strcmp(c->type, "Instruction") ? "l2"
				   : NULL;
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
	fputc('\n', fp);
	if (t->largest_llc >= 0 && (size_t)t->largest_llc < t->ncaches) {
		const struct db_cache *c = &t->caches[t->largest_llc];
		char sz[32];
		fmt_bytes(sz, sizeof(sz), (double)c->size_bytes);
		fprintf(fp, " largest-llc: llc:%zu, the %s L%d shared by CPUs %s\n",
			c->index, sz, c->level, c->cpus);
	} else {
		fprintf(fp, " largest-llc: none\n");
	}
	if (t->largest_reason)
		fprintf(fp, "   why: %s\n", t->largest_reason);
	size_t nllc = 0;
	for (size_t i = 0; i < t->ncaches; i++)
		nllc += t->caches[i].level == t->llc_level &&
			strcmp(t->caches[i].type, "Instruction");
	if (t->llc_level && nllc == 1) {
		fprintf(fp, " one last-level domain: every CPU shares it, so domain "
			"choice cannot matter here\n");
	} else if (t->llc_level && nllc > 1) {
		if (t->llc_asymmetric)
			fprintf(fp, " last-level domains differ in size (asymmetric): "
				"the domain a run lands on can matter\n");
		else
			fprintf(fp, " last-level domains are all the same size: choosing "
				"one cannot change the cache a run gets, only how many "
				"cores it has\n");
	}
	fputc('\n', fp);
	write_sets(fp, t->cluster_source && !strcmp(t->cluster_source, "sysfs")
		   ? "clusters (cluster_cpus_list)" : "clusters (CPUs sharing an L2)",
		   t->clusters, t->nclusters, NULL);
	write_sets(fp, "SMT siblings", t->smt, t->nsmt, NULL);
	write_sets(fp, "packages", t->packages, t->npackages, NULL);
	write_sets(fp, "NUMA nodes", t->nodes, t->nnodes, "node");
	for (const char *p = t->notes; p && *p;) {
		size_t len = strcspn(p, "\n");
		fprintf(fp, " note: %.*s\n", (int)len, p);
		p += len;
		if (*p)
			p++;
	}
}
