/*
 * modules: `prof modules` and the working-set summary of a run's report.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/modules.h"
#include "reports/rows.h"
#include "reports/runs.h"

uint64_t report_code_footprint(const struct db_run *run)
{
	uint64_t t = 0;
	for (size_t i = 0; i < run->nmodules; i++)
		t += run->modules[i].exec_bytes;
	return t;
}

uint64_t report_ws_window(const struct db_run *run)
{
	const char *s = db_get_text(run, SET_WS_WINDOW_BYTES);
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
		xalloc_die();
	for (size_t i = 0; i < run->nmodules; i++)
		v[i] = &run->modules[i];
	qsort(v, run->nmodules, sizeof(*v), mod_cmp);
	return v;
}

#define WS_KIND_COLS(K) \
	K(W_BYTES, "touched_bytes", BYTES) \
	K(W_FAULTED, "faulted_bytes", BYTES) K(W_FAULTS, "faults", COUNT)
ROWS_KEYS(ws_kind_cols, W_N, WS_KIND_COLS);

#define WS_COLS(K) \
	K(WS_FOOTPRINT, "code_footprint_bytes", BYTES) \
	K(WS_CODE, "touched_code_bytes", BYTES) \
	K(WS_DATA, "touched_data_bytes", BYTES) K(WS_WINDOW, "window_bytes", BYTES) \
	K(WS_KINDS, "kinds", NEST)
ROWS_KEYS(ws_cols, WS_N, WS_COLS);

/* The working set as one object (no rows without one: JSON null); its
 * kinds map each kind of memory to what was touched of it. */
struct rows *report_working_set_rows(const struct db_run *run)
{
	struct rows *r = rows_new("working_set", ws_cols, WS_N, ROWS_OBJECT);
	if (!run->nws)
		return r;
	const struct db_ws *code = ws_kind(run, "code");
	size_t row = rows_add(r);
	rows_uint(r, row, WS_FOOTPRINT, report_code_footprint(run));
	rows_uint(r, row, WS_CODE, code ? code->touched_bytes : 0);
	rows_uint(r, row, WS_DATA, touched_data(run, false));
	rows_uint(r, row, WS_WINDOW, report_ws_window(run));
	struct col *kc = calloc(run->nws, sizeof(*kc));
	if (!kc)
		xalloc_die();
	for (size_t i = 0; i < run->nws; i++)
		kc[i] = (struct col){ .key = run->ws[i].kind, .kind = COL_NEST };
	struct rows *kinds = rows_new(NULL, kc, run->nws, ROWS_OBJECT);
	free(kc);
	size_t k = rows_add(kinds);
	for (size_t i = 0; i < run->nws; i++) {
		struct rows *one = rows_new(NULL, ws_kind_cols, W_N, ROWS_OBJECT);
		size_t o = rows_add(one);
		rows_uint(one, o, W_BYTES, run->ws[i].touched_bytes);
		rows_uint(one, o, W_FAULTED, run->ws[i].faulted_bytes);
		rows_uint(one, o, W_FAULTS, run->ws[i].faults);
		rows_nest(kinds, k, i, one);
	}
	rows_nest(r, row, WS_KINDS, kinds);
	return r;
}

void report_working_set_json(const struct db_run *run, struct jw *w)
{
	struct rows *r = report_working_set_rows(run);
	jw_key(w, "working_set");
	rows_json(r, w);
	rows_free(r);
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
	/* Anonymous memory counts one page a fault; a transparent huge
	 * page maps 2 MiB (512 pages) in one fault. Under "madvise" only
	 * what a program marked is so backed: not said, as nearly every
	 * machine has it and few programs mark memory. */
	const char *thp = db_kv_get(run->env, run->nenv, "thp");
	if (thp && !strcmp(thp, "always"))
		fprintf(fp, "%snote: transparent huge pages were 'always': one fault "
			"can map 2 MiB of anonymous memory, so touched heap, stack "
			"and anon are a lower bound "
			"(/sys/kernel/mm/transparent_hugepage/enabled)\n", lead);
	if (run->lost_records)
		fprintf(fp, "%snote: records were lost, so touched memory is "
			"undercounted (raise --mmap-pages)\n", lead);
}

enum {
	M_PATH, M_EXEC, M_TEXT, M_TOUCHED, M_KIND, M_BUILD_ID, M_SECTIONS,
	M_FAULTED, M_FAULTS, M_REPLAYED, M_PROCS, M_ERROR, M_RUN_ID, M_N
};

/* A code module: the JSON keys of shared/DESIGN.md first; the CSV line
 * also names the run. Sizes nobody knows are null ("-" for people). */
static const struct col module_cols[M_N] = {
	[M_PATH] = { .key = "path", .title = "module" },
	[M_EXEC] = { .key = "exec_bytes", .title = "exec", .kind = COL_BYTES },
	[M_TEXT] = { .key = "text_bytes", .title = ".text", .kind = COL_BYTES,
		     .none = "-" },
	[M_TOUCHED] = { .key = "touched_bytes", .title = "touched",
			.kind = COL_BYTES, .none = "-" },
	[M_KIND] = { .key = "kind" },
	[M_BUILD_ID] = { .key = "build_id", .title = "build id" },
	[M_SECTIONS] = { .key = "exec_section_bytes", .title = "exec sections",
			 .kind = COL_BYTES, .none = "-" },
	[M_FAULTED] = { .key = "faulted_bytes", .kind = COL_BYTES,
			.flags = COL_MACHINES },
	[M_FAULTS] = { .key = "faults", .kind = COL_COUNT, .flags = COL_MACHINES },
	[M_REPLAYED] = { .key = "touched_replayed", .kind = COL_BOOL,
			 .flags = COL_MACHINES },
	[M_PROCS] = { .key = "processes", .title = "procs", .kind = COL_INT },
	[M_ERROR] = { .key = "error", .flags = COL_MACHINES },
	[M_RUN_ID] = { .key = "run_id", .kind = COL_INT,
		       .flags = COL_NO_PEOPLE | COL_NO_JSON },
};

static void opt_bytes(struct rows *r, size_t row, size_t col, bool has, uint64_t v)
{
	if (has)
		rows_uint(r, row, col, v);
	else
		rows_null(r, row, col);
}

/* The modules' columns: touched only for a working-set run. */
static struct rows *module_set(bool ws)
{
	static const size_t csv[] = {
		M_RUN_ID, M_PATH, M_KIND, M_BUILD_ID, M_EXEC, M_TEXT, M_SECTIONS,
		M_TOUCHED, M_FAULTED, M_FAULTS, M_REPLAYED, M_PROCS, M_ERROR,
	};
	static const size_t people[] = {
		M_PATH, M_KIND, M_EXEC, M_TEXT, M_SECTIONS, M_TOUCHED, M_PROCS,
		M_BUILD_ID,
	};
	static const size_t people_no_ws[] = {
		M_PATH, M_KIND, M_EXEC, M_TEXT, M_SECTIONS, M_PROCS, M_BUILD_ID,
	};
	struct rows *r = rows_new("modules", module_cols, M_N, 0);
	rows_csv_order(r, csv, sizeof(csv) / sizeof(csv[0]));
	if (ws)
		rows_people_order(r, people, sizeof(people) / sizeof(people[0]));
	else
		rows_people_order(r, people_no_ws,
				  sizeof(people_no_ws) / sizeof(people_no_ws[0]));
	return r;
}

/* The modules, largest first; for people a totals line. */
static struct rows *module_rows(const struct db_run *run,
				const struct db_module *const *v, bool ws)
{
	struct rows *r = module_set(ws);
	uint64_t touched = 0;
	for (size_t i = 0; i < run->nmodules; i++) {
		const struct db_module *m = v[i];
		size_t row = rows_add(r);
		rows_str(r, row, M_PATH, m->path);
		rows_text(r, row, M_PATH, "%s%s", m->path ? m->path : "?",
			  m->error ? " *" : "");
		rows_uint(r, row, M_EXEC, m->exec_bytes);
		opt_bytes(r, row, M_TEXT, m->has_text, m->text_bytes);
		opt_bytes(r, row, M_TOUCHED, m->has_touched, m->touched_bytes);
		rows_str(r, row, M_KIND, m->kind);
		rows_str(r, row, M_BUILD_ID, m->build_id);
		/* 12 hex digits tell builds apart; machines get them all. */
		rows_text(r, row, M_BUILD_ID, "%.12s", m->build_id ? m->build_id : "-");
		opt_bytes(r, row, M_SECTIONS, m->has_exec_sections,
			  m->exec_section_bytes);
		opt_bytes(r, row, M_FAULTED, m->has_touched, m->faulted_bytes);
		opt_bytes(r, row, M_FAULTS, m->has_touched, m->faults);
		if (m->has_touched)
			rows_bool(r, row, M_REPLAYED, m->touched_replayed);
		else
			rows_null(r, row, M_REPLAYED);
		rows_uint(r, row, M_PROCS, m->nprocs);
		rows_str(r, row, M_ERROR, m->error);
		rows_int(r, row, M_RUN_ID, run->id);
		touched += m->has_touched ? m->touched_bytes : 0;
	}
	size_t row = rows_add_total(r);
	rows_text(r, row, M_PATH, "total");
	rows_uint(r, row, M_EXEC, report_code_footprint(run));
	if (ws)
		rows_uint(r, row, M_TOUCHED, touched);
	return r;
}

#define MODULES_DOC_COLS(K) \
	K(D_RUN_ID, "run_id", INT) K(D_COMMAND, "command", TEXT) \
	K(D_FOOTPRINT, "code_footprint_bytes", BYTES) \
	K(D_WS, "working_set", NEST) K(D_MODULES, "modules", NEST)
ROWS_KEYS(modules_doc_cols, D_N, MODULES_DOC_COLS);

int report_modules_sort_check(const struct db_run *run, const char *sort,
			      char **cause)
{
	struct rows *r = module_set(run->nws > 0);
	int rc = rows_sort_check(r, sort, cause);
	rows_free(r);
	return rc;
}

void report_modules(const struct db_run *run, enum out_format fmt, FILE *fp)
{
	report_modules_view(run, NULL, fmt, fp);
}

void report_modules_view(const struct db_run *run, const struct rows_view *view,
			 enum out_format fmt, FILE *fp)
{
	const struct db_module **v = sorted(run);
	bool ws = run->nws > 0;
	struct rows *mods = module_rows(run, v, ws);
	rows_view_apply(mods, 0, view, "module", "modules");
	if (fmt == OUT_JSON) {
		struct rows *doc = rows_new(NULL, modules_doc_cols, D_N, 0);
		size_t row = rows_add(doc);
		rows_int(doc, row, D_RUN_ID, run->id);
		rows_str(doc, row, D_COMMAND, run->command);
		rows_uint(doc, row, D_FOOTPRINT, report_code_footprint(run));
		rows_nest(doc, row, D_WS, report_working_set_rows(run));
		rows_nest(doc, row, D_MODULES, mods);
		rows_write_data(doc, OUT_JSON, fp);
		free(v);
		return;
	}
	if (fmt == OUT_CSV) {
		rows_write(mods, fmt, fp, 0);
		rows_free(mods);
		free(v);
		return;
	}

	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	char a[32];
	fmt_bytes(a, sizeof(a), (double)report_code_footprint(run));
	if (fmt == OUT_MARKDOWN)
		fprintf(fp, "**prof %s %lld**: ", report_run_verb(run), (long long)run->id);
	else
		fprintf(fp, " prof %s %lld: ", report_run_verb(run), (long long)run->id);
	command_field(fp, run->command, fmt);
	fprintf(fp, ": %zu code module%s, code footprint %s\n\n", run->nmodules,
		run->nmodules == 1 ? "" : "s", a);
	if (!run->nmodules) {
		fprintf(fp, "%sno code modules were recorded for this run (runs "
			"stored before prof tracked modules have none)\n", lead);
		rows_free(mods);
		free(v);
		return;
	}
	rows_write(mods, fmt, fp, 1);
	rows_free(mods);

	bool any_error = false;
	for (size_t i = 0; i < run->nmodules; i++)
		any_error = any_error || v[i]->error;
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
