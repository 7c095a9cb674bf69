/*
 * modules: `prof modules` and the working-set summary of a run's report.
 */
#include <stdlib.h>
#include <string.h>

#include "reports/modules.h"

uint64_t report_code_footprint(const struct db_run *run)
{
	uint64_t t = 0;
	for (size_t i = 0; i < run->nmodules; i++)
		t += run->modules[i].exec_bytes;
	return t;
}

uint64_t report_ws_window(const struct db_run *run)
{
	const char *s = db_run_get(run, "ws_window_bytes");
	unsigned long long v = s ? strtoull(s, NULL, 10) : 0;
	return v ? (uint64_t)v : 65536;
}

static const struct db_ws *ws_kind(const struct db_run *run, const char *kind)
{
	for (size_t i = 0; i < run->nws; i++)
		if (run->ws[i].kind && !strcmp(run->ws[i].kind, kind))
			return &run->ws[i];
	return NULL;
}

/* The data kinds, in the order the footer names them. */
static const char *const data_kinds[] = { "heap", "stack", "anon", "file", "other" };
#define NDATA (sizeof(data_kinds) / sizeof(data_kinds[0]))

static uint64_t touched_data(const struct db_run *run, bool lower)
{
	uint64_t t = 0;
	for (size_t i = 0; i < run->nws; i++)
		if (run->ws[i].kind && strcmp(run->ws[i].kind, "code"))
			t += lower ? run->ws[i].faulted_bytes : run->ws[i].touched_bytes;
	return t;
}

/* A module's order: exec_bytes down, then path. */
static int mod_cmp(const void *pa, const void *pb)
{
	const struct db_module *a = *(const struct db_module *const *)pa;
	const struct db_module *b = *(const struct db_module *const *)pb;
	if (a->exec_bytes != b->exec_bytes)
		return a->exec_bytes > b->exec_bytes ? -1 : 1;
	return strcmp(a->path ? a->path : "", b->path ? b->path : "");
}

static const struct db_module **sorted(const struct db_run *run)
{
	const struct db_module **v = calloc(run->nmodules + 1, sizeof(*v));
	if (!v)
		abort();
	for (size_t i = 0; i < run->nmodules; i++)
		v[i] = &run->modules[i];
	qsort(v, run->nmodules, sizeof(*v), mod_cmp);
	return v;
}

static void jw_opt(struct jw *w, const char *key, bool has, uint64_t v)
{
	jw_key(w, key);
	if (has)
		jw_uint(w, v);
	else
		jw_null(w);
}

void report_working_set_json(const struct db_run *run, struct jw *w)
{
	jw_key(w, "working_set");
	if (!run->nws) {
		jw_null(w);
		return;
	}
	const struct db_ws *code = ws_kind(run, "code");
	jw_obj_begin(w);
	jw_key(w, "code_footprint_bytes");
	jw_uint(w, report_code_footprint(run));
	jw_key(w, "touched_code_bytes");
	jw_uint(w, code ? code->touched_bytes : 0);
	jw_key(w, "touched_data_bytes");
	jw_uint(w, touched_data(run, false));
	jw_key(w, "window_bytes");
	jw_uint(w, report_ws_window(run));
	jw_key(w, "kinds");
	jw_obj_begin(w);
	for (size_t i = 0; i < run->nws; i++) {
		jw_key(w, run->ws[i].kind);
		jw_obj_begin(w);
		jw_key(w, "touched_bytes");
		jw_uint(w, run->ws[i].touched_bytes);
		jw_key(w, "faulted_bytes");
		jw_uint(w, run->ws[i].faulted_bytes);
		jw_key(w, "faults");
		jw_uint(w, run->ws[i].faults);
		jw_obj_end(w);
	}
	jw_obj_end(w);
	jw_obj_end(w);
}

void report_working_set_footer(const struct db_run *run, enum out_format fmt,
			       FILE *fp)
{
	if (!run->nws || (fmt != OUT_TABLE && fmt != OUT_MARKDOWN))
		return;
	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	char a[32], b[32], c[32];
	const struct db_ws *code = ws_kind(run, "code");
	fmt_bytes(a, sizeof(a), (double)report_code_footprint(run));
	fmt_bytes(b, sizeof(b), code ? (double)code->touched_bytes : 0);
	fmt_bytes(c, sizeof(c), (double)touched_data(run, false));
	fprintf(fp, "\n%sworking set: code footprint %s in %zu module%s; "
		"touched code %s; touched data %s (", lead, a, run->nmodules,
		run->nmodules == 1 ? "" : "s", b, c);
	for (size_t k = 0; k < NDATA; k++) {
		const struct db_ws *ws = ws_kind(run, data_kinds[k]);
		fmt_bytes(a, sizeof(a), ws ? (double)ws->touched_bytes : 0);
		fprintf(fp, "%s%s %s", k ? ", " : "", data_kinds[k], a);
	}
	fprintf(fp, ")\n");
	const struct db_ws *file = ws_kind(run, "file");
	fmt_bytes(a, sizeof(a), (double)report_ws_window(run));
	fmt_bytes(b, sizeof(b), code ? (double)code->faulted_bytes : 0);
	fmt_bytes(c, sizeof(c), file ? (double)file->faulted_bytes : 0);
	fprintf(fp, "%snote: a file-backed fault maps a %s window (fault-around), or "
		"a whole large page-cache folio, at once: touched code is the pages "
		"the faults mapped (an upper bound at that grain), touched file "
		"data counts %s windows; the faulting pages alone, a lower bound: "
		"code %s, file %s\n", lead, a, a, b, c);
	if (run->lost_records)
		fprintf(fp, "%snote: records were lost, so touched memory is "
			"undercounted (raise --mmap-pages)\n", lead);
}

static void bytes_cell(struct rtable *t, size_t r, size_t col, bool has, uint64_t v)
{
	char text[32], raw[32];
	if (!has) {
		rtable_set2(t, r, col, "-", "");
		return;
	}
	fmt_bytes(text, sizeof(text), (double)v);
	snprintf(raw, sizeof(raw), "%llu", (unsigned long long)v);
	rtable_set2(t, r, col, text, raw);
}

static void write_modules_json(const struct db_run *run,
			       const struct db_module *const *v, FILE *fp)
{
	struct jw w;
	jw_init(&w, fp, 2);
	jw_obj_begin(&w);
	jw_key(&w, "run_id");
	jw_int(&w, run->id);
	jw_key(&w, "command");
	jw_str(&w, run->command);
	jw_key(&w, "code_footprint_bytes");
	jw_uint(&w, report_code_footprint(run));
	report_working_set_json(run, &w);
	jw_key(&w, "modules");
	jw_arr_begin(&w);
	for (size_t i = 0; i < run->nmodules; i++) {
		const struct db_module *m = v[i];
		jw_obj_begin(&w);
		jw_key(&w, "path");
		jw_str(&w, m->path);
		jw_key(&w, "exec_bytes");
		jw_uint(&w, m->exec_bytes);
		jw_opt(&w, "text_bytes", m->has_text, m->text_bytes);
		jw_opt(&w, "touched_bytes", m->has_touched, m->touched_bytes);
		jw_key(&w, "kind");
		jw_str(&w, m->kind);
		jw_key(&w, "build_id");
		jw_str(&w, m->build_id);
		jw_opt(&w, "exec_section_bytes", m->has_exec_sections,
		       m->exec_section_bytes);
		jw_opt(&w, "faulted_bytes", m->has_touched, m->faulted_bytes);
		jw_opt(&w, "faults", m->has_touched, m->faults);
		jw_key(&w, "touched_replayed");
		if (m->has_touched)
			jw_bool(&w, m->touched_replayed);
		else
			jw_null(&w);
		jw_key(&w, "processes");
		jw_uint(&w, m->nprocs);
		jw_key(&w, "error");
		jw_str(&w, m->error);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_end(&w);
}

static void csv_opt(FILE *fp, bool has, uint64_t v)
{
	if (has)
		fprintf(fp, "%llu", (unsigned long long)v);
	fputc(',', fp);
}

static void write_modules_csv(const struct db_run *run,
			      const struct db_module *const *v, FILE *fp)
{
	fprintf(fp, "run_id,path,kind,build_id,exec_bytes,text_bytes,"
		"exec_section_bytes,touched_bytes,faulted_bytes,faults,touched_replayed,"
		"processes,error\n");
	for (size_t i = 0; i < run->nmodules; i++) {
		const struct db_module *m = v[i];
		fprintf(fp, "%lld,", (long long)run->id);
		csv_field(fp, m->path);
		fputc(',', fp);
		csv_field(fp, m->kind);
		fputc(',', fp);
		csv_field(fp, m->build_id ? m->build_id : "");
		fprintf(fp, ",%llu,", (unsigned long long)m->exec_bytes);
		csv_opt(fp, m->has_text, m->text_bytes);
		csv_opt(fp, m->has_exec_sections, m->exec_section_bytes);
		csv_opt(fp, m->has_touched, m->touched_bytes);
		csv_opt(fp, m->has_touched, m->faulted_bytes);
		csv_opt(fp, m->has_touched, m->faults);
		csv_opt(fp, m->has_touched, m->touched_replayed);
		fprintf(fp, "%u,", m->nprocs);
		csv_field(fp, m->error ? m->error : "");
		fputc('\n', fp);
	}
}

void report_modules(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	const struct db_module **v = sorted(run);
	if (fmt == OUT_JSON) {
		write_modules_json(run, v, fp);
		free(v);
		return;
	}
	if (fmt == OUT_CSV) {
		write_modules_csv(run, v, fp);
		free(v);
		return;
	}

	bool ws = run->nws > 0;
	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	char a[32];
	fmt_bytes(a, sizeof(a), (double)report_code_footprint(run));
	if (fmt == OUT_MARKDOWN)
		fprintf(fp, "**prof run %lld**: `", (long long)run->id);
	else
		fprintf(fp, " prof run %lld: '", (long long)run->id);
	md_field(fp, run->command ? run->command : "");
	fprintf(fp, "%s: %zu code module%s, code footprint %s\n\n",
		fmt == OUT_MARKDOWN ? "`" : "'", run->nmodules,
		run->nmodules == 1 ? "" : "s", a);
	if (!run->nmodules) {
		fprintf(fp, "%sno code modules were recorded for this run (runs "
			"stored before prof tracked modules have none)\n", lead);
		free(v);
		return;
	}

	static const char *const titles_ws[] = {
		"module", "kind", ">exec", ">.text", ">exec sections", ">touched",
		">procs", "build id",
	};
	static const char *const titles[] = {
		"module", "kind", ">exec", ">.text", ">exec sections", ">procs",
		"build id",
	};
	size_t ncols = ws ? 8 : 7;
	struct rtable t;
	rtable_init(&t, ncols, ws ? titles_ws : titles);
	uint64_t touched = 0;
	bool any_error = false;
	for (size_t i = 0; i < run->nmodules; i++) {
		const struct db_module *m = v[i];
		size_t r = rtable_add_row(&t), col = 0;
		rtable_set(&t, r, col++, "%s%s", m->path ? m->path : "?",
			   m->error ? " *" : "");
		rtable_set(&t, r, col++, "%s", m->kind ? m->kind : "");
		bytes_cell(&t, r, col++, true, m->exec_bytes);
		bytes_cell(&t, r, col++, m->has_text, m->text_bytes);
		bytes_cell(&t, r, col++, m->has_exec_sections, m->exec_section_bytes);
		if (ws) {
			bytes_cell(&t, r, col++, m->has_touched, m->touched_bytes);
			touched += m->has_touched ? m->touched_bytes : 0;
		}
		rtable_set(&t, r, col++, "%u", m->nprocs);
		/* 12 hex digits tell builds apart; the JSON has them all. */
		rtable_set(&t, r, col++, "%.12s", m->build_id ? m->build_id : "-");
		any_error = any_error || m->error;
	}
	size_t r = rtable_add_row(&t);
	rtable_rule(&t, r);
	rtable_set(&t, r, 0, "total");
	bytes_cell(&t, r, 2, true, report_code_footprint(run));
	if (ws)
		bytes_cell(&t, r, 5, true, touched);
	rtable_write(&t, fmt, fp, 1);
	rtable_release(&t);

	if (any_error) {
		fprintf(fp, "\n%s* sizes from the ELF file are unavailable "
			"(exec is from the run's own records):\n", lead);
		for (size_t i = 0; i < run->nmodules; i++)
			if (v[i]->error)
				fprintf(fp, "%s%s%s\n", lead,
					fmt == OUT_MARKDOWN ? "- " : "  ", v[i]->error);
	}
	if (ws) {
		fmt_bytes(a, sizeof(a), (double)report_ws_window(run));
		fprintf(fp, "\n%stouched: the code pages the run's faults mapped, "
			"an upper bound (a file-backed fault maps a %s fault-around "
			"window or a whole page-cache folio at once)\n", lead, a);
	} else {
		fprintf(fp, "\n%stouched code needs a working-set run: "
			"'prof run --working-set -- CMD'\n", lead);
	}
	if (fmt == OUT_TABLE)
		fputc('\n', fp);
	free(v);
}
