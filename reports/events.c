/* events (reports): the encodable events and the mission map. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/events.h"
#include "reports/rows.h"

enum { V_NAME, V_PMU, V_HARDWARE, V_DESC, V_UMASKS, V_NEEDS, V_N };

static const struct col event_cols[V_N] = {
	[V_NAME] = { .key = "name", .title = "event" },
	[V_PMU] = { .key = "pmu", .title = "PMU" },
	[V_HARDWARE] = { .key = "hardware", .kind = COL_BOOL },
	[V_DESC] = { .key = "description" },
	[V_UMASKS] = { .key = "umasks", .title = "unit masks" },
	[V_NEEDS] = { .key = "needs_umask", .title = "needs one", .kind = COL_BOOL },
};

/* The rows hold the copies; ev keeps what the terminal listing reads. */
struct report_event_list {
	bool show_umasks;
	struct rows *rows;
	struct report_event *ev;
	size_t n, cap;
};

static char *dup_or_null(const char *s)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		xalloc_die();
	return d;
}

struct report_event_list *report_event_list_new(bool show_umasks)
{
	static const size_t people[] = { V_NAME, V_PMU, V_DESC, V_UMASKS };
	struct report_event_list *l = calloc(1, sizeof(*l));
	if (!l)
		xalloc_die();
	l->show_umasks = show_umasks;
	l->rows = rows_new("events", event_cols, V_N, 0);
	rows_people_order(l->rows, people, sizeof(people) / sizeof(people[0]));
	return l;
}

void report_event_list_add(struct report_event_list *l, const struct report_event *e)
{
	size_t row = rows_add(l->rows);
	rows_str(l->rows, row, V_NAME, e->name);
	rows_str(l->rows, row, V_PMU, e->pmu);
	rows_bool(l->rows, row, V_HARDWARE, e->hardware);
	rows_str(l->rows, row, V_DESC, e->desc);
	rows_str(l->rows, row, V_UMASKS, e->umasks);
	rows_bool(l->rows, row, V_NEEDS, e->needs_umask);
	if (e->umasks && e->needs_umask)
		rows_text(l->rows, row, V_UMASKS, "needs one of: %s", e->umasks);
	else if (!l->show_umasks)
		rows_text(l->rows, row, V_UMASKS, "%s", "");
	if (!e->desc && !e->hardware)
		rows_text(l->rows, row, V_DESC, "(software)");
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->ev = realloc(l->ev, l->cap * sizeof(*l->ev));
		if (!l->ev)
			xalloc_die();
	}
	struct report_event *c = &l->ev[l->n++];
	c->name = dup_or_null(e->name);
	c->pmu = dup_or_null(e->pmu);
	c->desc = dup_or_null(e->desc);
	c->umasks = dup_or_null(e->umasks);
	c->hardware = e->hardware;
	c->needs_umask = e->needs_umask;
}

void report_event_list_free(struct report_event_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free((char *)l->ev[i].name);
		free((char *)l->ev[i].pmu);
		free((char *)l->ev[i].desc);
		free((char *)l->ev[i].umasks);
	}
	free(l->ev);
	rows_free(l->rows);
	free(l);
}

static const char *pmu_heading(const char *pmu)
{
	if (!strcmp(pmu, "perf"))
		return "generic (perf-style names)";
	if (!strcmp(pmu, "prof"))
		return "mission counters (prof's names; --mission)";
	return pmu;
}

/* The terminal's listing: a heading per PMU, descriptions cut at 70
 * characters, unit masks under the event. */
static void write_listing(const struct report_event_list *l, bool show_umasks, FILE *fp)
{
	const char *last = NULL;
	for (size_t row = 0; row < rows_count(l->rows); row++) {
		const struct report_event *e = &l->ev[rows_origin(l->rows, row)];
		if (!last || strcmp(last, e->pmu)) {
			fprintf(fp, "%s%s:\n", last ? "\n" : "", pmu_heading(e->pmu));
			last = e->pmu;
		}
		if (e->desc) {
			int w = (int)strlen(e->name) < 44 ? 44 : (int)strlen(e->name) + 1;
			fprintf(fp, "  %-*s %.70s\n", w, e->name, e->desc);
			if (e->umasks && (show_umasks || e->needs_umask))
				fprintf(fp, "  %-*s %s %s\n", w, "",
					e->needs_umask ? "needs one of:" : "unit masks:",
					e->umasks);
		} else {
			fprintf(fp, "  %s%s\n", e->name, e->hardware ? "" : "  (software)");
		}
	}
	rows_write_more(l->rows, OUT_TABLE, fp, 0);
}

int report_event_list_sort_check(const struct report_event_list *l,
				 const char *sort, char **cause)
{
	return rows_sort_check(l->rows, sort, cause);
}

void report_event_list_view(struct report_event_list *l, const struct rows_view *v)
{
	rows_view_apply(l->rows, 0, v, "event", "events");
}

void report_events(const struct report_event_list *l, const char *pattern,
		   enum out_format fmt, FILE *fp)
{
	if (fmt == OUT_JSON || fmt == OUT_CSV) {
		rows_write(l->rows, fmt, fp, 0);
		return;
	}
	if (!l->n) {
		fprintf(fp, "no event matches '");
		(fmt == OUT_MARKDOWN ? md_field : term_field)(fp, pattern ? pattern : "");
		fprintf(fp, "'\n");
		return;
	}
	if (fmt == OUT_TABLE)
		write_listing(l, l->show_umasks, fp);
	else
		rows_write(l->rows, OUT_MARKDOWN, fp, 0);
}

/* ---- the mission map ---- */

enum {
	M_NAME, M_EVENT, M_PERF, M_TYPE, M_CONFIG, M_ENCODING, M_SUMMARY,
	M_COUNTS, M_SOURCE, M_CONSENT, M_N
};

static const struct col counter_cols[M_N] = {
	[M_NAME] = { .key = "name", .title = "counter" },
	[M_EVENT] = { .key = "event" },
	[M_PERF] = { .key = "perf_name", .title = "perf" },
	[M_TYPE] = { .key = "type", .kind = COL_INT, .flags = COL_MACHINES },
	[M_CONFIG] = { .key = "config", .flags = COL_MACHINES },
	[M_ENCODING] = { .key = "encoding", .flags = COL_PEOPLE },
	[M_SUMMARY] = { .key = "summary", .flags = COL_MACHINES },
	[M_COUNTS] = { .key = "counts" },
	[M_SOURCE] = { .key = "source" },
	[M_CONSENT] = { .key = "needs_allow_generic", .kind = COL_BOOL,
			.flags = COL_MACHINES },
};

static struct rows *counter_rows(const struct report_mission *m)
{
	struct rows *r = rows_new("counters", counter_cols, M_N, 0);
	for (size_t i = 0; i < m->ncounters; i++) {
		const struct report_mission_counter *c = &m->counters[i];
		size_t row = rows_add(r);
		rows_str(r, row, M_NAME, c->name);
		rows_str(r, row, M_EVENT, c->event);
		rows_str(r, row, M_PERF, c->perf_name);
		if (c->encoded) {
			char hex[32];
			snprintf(hex, sizeof(hex), "%#llx", (unsigned long long)c->config);
			rows_uint(r, row, M_TYPE, c->type);
			rows_str(r, row, M_CONFIG, hex);
			rows_text(r, row, M_ENCODING, "type %u (%s), config %s", c->type,
				  c->type_name, hex);
		} else {
			rows_null(r, row, M_TYPE);
			rows_null(r, row, M_CONFIG);
			const char *cause = c->cause ? c->cause : "?";
			rows_text(r, row, M_ENCODING, "none: %.*s",
				  (int)strcspn(cause, "\n"), cause);
		}
		rows_str(r, row, M_SUMMARY, c->summary);
		rows_str(r, row, M_COUNTS, c->counts);
		rows_text(r, row, M_COUNTS, "%s: %s%s", c->summary, c->counts,
			  c->needs_consent ? " (only with --allow-generic)" : "");
		rows_str(r, row, M_SOURCE, c->source);
		rows_bool(r, row, M_CONSENT, c->needs_consent);
	}
	return r;
}

/* Text indented by `indent` columns, wrapped before column 79. */
static void write_wrapped(FILE *fp, const char *text, int indent)
{
	int col = indent;
	const char *p = text;
	while (*p) {
		size_t w = strcspn(p, " ");
		if (col > indent && col + 1 + (int)w > 78) {
			fprintf(fp, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', fp);
			col++;
		}
		fprintf(fp, "%.*s", (int)w, p);
		col += (int)w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', fp);
}

static void write_counter(const struct report_mission *m,
			  const struct report_mission_counter *c, FILE *fp)
{
	fprintf(fp, "\n%s\n", c->name);
	fprintf(fp, "  event     %s\n", c->event);
	fprintf(fp, "  perf      %s\n", c->perf_name);
	if (!c->encoded) {
		/* Forcing a PMU leaves libpfm4 without its perf-style names,
		 * so the generic events do not encode then. */
		const char *cause = c->cause ? c->cause : "?";
		fprintf(fp, "  encoding  none: %.*s%s\n", (int)strcspn(cause, "\n"),
			cause, m->forced ? " (under LIBPFM_FORCE_PMU)" : "");
	} else {
		fprintf(fp, "  encoding  type %u (%s), config %#llx", c->type,
			c->type_name, (unsigned long long)c->config);
		if (c->config1)
			fprintf(fp, ", config1 %#llx", (unsigned long long)c->config1);
		fputc('\n', fp);
	}
	fprintf(fp, "  counts    ");
	char *what;
	if (asprintf(&what, "%s: %s%s", c->summary, c->counts, c->needs_consent
		     ? " (only with --allow-generic)" : "") < 0)
		xalloc_die();
	write_wrapped(fp, what, 12);
	free(what);
	fprintf(fp, "  source    ");
	write_wrapped(fp, c->source, 12);
}

#define MISSION_COLS(K) \
	K(F_FAMILY, "family", TEXT) K(F_PMU, "pmu", TEXT) \
	K(F_PMU_DESC, "pmu_description", TEXT) K(F_RAW_FAMILY, "raw_family", TEXT) \
	K(F_COUNTERS, "counters", NEST)
ROWS_KEYS(mission_cols, F_N, MISSION_COLS);

void report_mission(const struct report_mission *m, enum out_format fmt,
		    FILE *fp)
{
	struct rows *counters = counter_rows(m);
	if (fmt == OUT_JSON) {
		struct rows *doc = rows_new(NULL, mission_cols, F_N, 0);
		size_t row = rows_add(doc);
		rows_str(doc, row, F_FAMILY, m->family);
		rows_str(doc, row, F_PMU, m->pmu);
		rows_str(doc, row, F_PMU_DESC, m->pmu_desc);
		rows_str(doc, row, F_RAW_FAMILY, m->raw_family);
		rows_nest(doc, row, F_COUNTERS, counters);
		rows_write_data(doc, OUT_JSON, fp);
		return;
	}
	if (fmt == OUT_CSV) {
		rows_write_data(counters, OUT_CSV, fp);
		return;
	}
	bool md = fmt == OUT_MARKDOWN;
	char *head;
	if (m->family && m->raw_family) {
		if (asprintf(&head, md ? "**mission counters on %s** (found from the CPU's "
			     "identity as %s; raw codes from perf's tables, not libpfm4's)\n\n"
			     : "mission counters on %s (found from the CPU's identity as %s;\n"
			     "  raw codes from perf's tables, not libpfm4's)\n", m->family,
			     m->raw_family) < 0)
			xalloc_die();
		fputs(head, fp);
	} else if (m->family) {
		if (asprintf(&head, md ? "**mission counters on %s** (libpfm4 PMU %s)\n\n"
			     : "mission counters on %s (libpfm4 PMU %s)\n", m->family,
			     m->pmu ? m->pmu : "none") < 0)
			xalloc_die();
		fputs(head, fp);
	} else {
		if (asprintf(&head, "libpfm4 detected %s%s%s%s, which has no mission "
			     "map: these counters are perf's generic events, and "
			     "llc-misses, itlb-misses and l1i-misses need "
			     "--allow-generic", m->pmu ? m->pmu : "no core PMU",
			     m->pmu_desc ? " (" : "", m->pmu_desc ? m->pmu_desc : "",
			     m->pmu_desc ? ")" : "") < 0)
			xalloc_die();
		if (md)
			fprintf(fp, "%s\n\n", head);
		else
			write_wrapped(fp, head, 0);
	}
	free(head);
	if (md)
		rows_write(counters, OUT_MARKDOWN, fp, 0);
	else
		for (size_t i = 0; i < m->ncounters; i++)
			write_counter(m, &m->counters[i], fp);
	rows_free(counters);
}

#define PMU_COLS(K) \
	K(PM_NAME, "name", TEXT) K(PM_TYPE, "type", INT) K(PM_CORE, "core", BOOL) \
	K(PM_CPUS, "cpus", CPUS) K(PM_PMU_NAME, "pmu_name", TEXT)
ROWS_KEYS(pmu_cols, PM_N, PMU_COLS);

#define PMUS_DOC(K) K(PD_NCORE, "core_pmus", INT) K(PD_PMUS, "pmus", NEST)
ROWS_KEYS(pmus_doc, PD_N, PMUS_DOC);

void report_pmus(const struct report_pmu *pmus, size_t n, enum out_format fmt,
		 FILE *fp)
{
	struct rows *r = rows_new("pmus", pmu_cols, PM_N, 0);
	size_t ncore = 0;
	for (size_t i = 0; i < n; i++) {
		const struct report_pmu *p = &pmus[i];
		size_t row = rows_add(r);
		rows_str(r, row, PM_NAME, p->name);
		rows_uint(r, row, PM_TYPE, p->type);
		rows_bool(r, row, PM_CORE, p->core);
		if (p->cpus)
			rows_str(r, row, PM_CPUS, p->cpus);
		else
			rows_null(r, row, PM_CPUS);
		/* A core PMU without a list serves every CPU (x86's cpu). */
		rows_text(r, row, PM_CPUS, "%s", p->cpus ? p->cpus : p->core ? "all"
			  : "-");
		rows_str(r, row, PM_PMU_NAME, p->pmu_name);
		ncore += p->core;
	}
	if (fmt == OUT_JSON) {
		struct rows *doc = rows_new(NULL, pmus_doc, PD_N, 0);
		size_t row = rows_add(doc);
		rows_uint(doc, row, PD_NCORE, ncore);
		rows_nest(doc, row, PD_PMUS, r);
		rows_write_data(doc, OUT_JSON, fp);
		return;
	}
	if (fmt == OUT_CSV) {
		rows_write_data(r, OUT_CSV, fp);
		return;
	}
	const char *lead = fmt == OUT_MARKDOWN ? "" : " ";
	if (!ncore)
		fprintf(fp, "%sno core PMU: hardware events cannot be counted here, "
			"software events can\n\n", lead);
	for (size_t i = 0; ncore == 1 && i < n; i++)
		if (pmus[i].core)
			fprintf(fp, "%sone core PMU: %s counts the hardware events\n\n",
				lead, pmus[i].name);
	if (ncore > 1)
		fprintf(fp, "%s%zu core PMUs, one per kind of core: a hardware event "
			"counts\n%son one kind only, so it is opened once per core "
			"PMU\n\n", lead, ncore, lead);
	rows_write(r, fmt, fp, 1);
	rows_free(r);
}

enum {
	EA_EVENT, EA_ENCODED, EA_MISSION, EA_TYPE, EA_TYPE_NAME, EA_SIZE, EA_CONFIG,
	EA_CONFIG1, EA_CONFIG2, EA_EXCL_USER, EA_EXCL_KERNEL, EA_EXCL_HV,
	EA_EXCL_GUEST, EA_EXCL_HOST, EA_PRECISE, EA_HARDWARE, EA_N
};

static const struct col attr_cols[EA_N] = {
	[EA_EVENT] = { .key = "event" },
	[EA_ENCODED] = { .key = "encoded_as", .title = "encoded as" },
	[EA_MISSION] = { .key = "mission" },
	[EA_TYPE] = { .key = "type", .kind = COL_INT },
	[EA_TYPE_NAME] = { .key = "type_name", .title = "type name" },
	[EA_SIZE] = { .key = "size", .kind = COL_INT },
	[EA_CONFIG] = { .key = "config" },
	[EA_CONFIG1] = { .key = "config1" },
	[EA_CONFIG2] = { .key = "config2" },
	[EA_EXCL_USER] = { .key = "exclude_user", .kind = COL_BOOL },
	[EA_EXCL_KERNEL] = { .key = "exclude_kernel", .kind = COL_BOOL },
	[EA_EXCL_HV] = { .key = "exclude_hv", .kind = COL_BOOL },
	[EA_EXCL_GUEST] = { .key = "exclude_guest", .kind = COL_BOOL },
	[EA_EXCL_HOST] = { .key = "exclude_host", .kind = COL_BOOL },
	[EA_PRECISE] = { .key = "precise_ip", .kind = COL_INT },
	[EA_HARDWARE] = { .key = "hardware", .kind = COL_BOOL },
};

void report_event_attr(const struct report_event_attr *ev, const char *type_name,
		       enum out_format fmt, FILE *fp)
{
	const struct perf_event_attr *a = ev->attr;
	if (fmt != OUT_JSON && fmt != OUT_CSV) {
		/* People: one field a line, its value beside it. */
		static const struct col pair_cols[2] = {
			{ .key = "field" }, { .key = "value", .align = COL_LEFT },
		};
		struct rows *p = rows_new("attr", pair_cols, 2, 0);
		char v[EA_N][256];
		snprintf(v[EA_EVENT], sizeof(v[0]), "%s", ev->name);
		snprintf(v[EA_ENCODED], sizeof(v[0]), "%s", ev->canonical);
		if (ev->mission_event)
			snprintf(v[EA_MISSION], sizeof(v[0]), "%s on %s: %s",
				 ev->mission_event, ev->mission_family,
				 ev->mission_summary);
		else
			snprintf(v[EA_MISSION], sizeof(v[0]), "-");
		snprintf(v[EA_TYPE], sizeof(v[0]), "%u", a->type);
		snprintf(v[EA_TYPE_NAME], sizeof(v[0]), "%s", type_name);
		snprintf(v[EA_SIZE], sizeof(v[0]), "%u", a->size);
		snprintf(v[EA_CONFIG], sizeof(v[0]), "0x%llx", (unsigned long long)a->config);
		snprintf(v[EA_CONFIG1], sizeof(v[0]), "0x%llx", (unsigned long long)a->config1);
		snprintf(v[EA_CONFIG2], sizeof(v[0]), "0x%llx", (unsigned long long)a->config2);
		const unsigned flags[] = { a->exclude_user, a->exclude_kernel, a->exclude_hv,
					   a->exclude_guest, a->exclude_host };
		for (size_t k = 0; k < 5; k++)
			snprintf(v[EA_EXCL_USER + k], sizeof(v[0]), "%u", flags[k]);
		snprintf(v[EA_PRECISE], sizeof(v[0]), "%u", a->precise_ip);
		snprintf(v[EA_HARDWARE], sizeof(v[0]), "%s", ev->hardware ?
			 "yes (needs a PMU counter)" : "no (software event)");
		for (size_t c = 0; c < EA_N; c++) {
			if (c == EA_TYPE_NAME)
				continue;	/* beside the type */
			size_t k = rows_add(p);
			rows_str(p, k, 0, attr_cols[c].title ? attr_cols[c].title
						      : attr_cols[c].key);
			if (c == EA_TYPE)
				rows_text(p, k, 1, "%s (%s)", v[c], v[EA_TYPE_NAME]);
			else
				rows_str(p, k, 1, v[c]);
		}
		rows_write(p, fmt, fp, 0);
		rows_free(p);
		return;
	}
	struct rows *r = rows_new("attr", attr_cols, EA_N, ROWS_OBJECT);
	size_t row = rows_add(r);
	rows_str(r, row, EA_EVENT, ev->name);
	rows_str(r, row, EA_ENCODED, ev->canonical);
	if (ev->mission_event)
		rows_text(r, row, EA_MISSION, "%s on %s: %s", ev->mission_event,
			  ev->mission_family, ev->mission_summary);
	else
		rows_null(r, row, EA_MISSION);
	rows_int(r, row, EA_TYPE, a->type);
	rows_str(r, row, EA_TYPE_NAME, type_name);
	rows_int(r, row, EA_SIZE, a->size);
	const unsigned long long cfg[3] = { a->config, a->config1, a->config2 };
	for (size_t k = 0; k < 3; k++) {
		char hex[24];
		snprintf(hex, sizeof(hex), "0x%llx", cfg[k]);
		rows_str(r, row, EA_CONFIG + k, hex);
	}
	rows_bool(r, row, EA_EXCL_USER, a->exclude_user);
	rows_bool(r, row, EA_EXCL_KERNEL, a->exclude_kernel);
	rows_bool(r, row, EA_EXCL_HV, a->exclude_hv);
	rows_bool(r, row, EA_EXCL_GUEST, a->exclude_guest);
	rows_bool(r, row, EA_EXCL_HOST, a->exclude_host);
	rows_int(r, row, EA_PRECISE, a->precise_ip);
	rows_bool(r, row, EA_HARDWARE, ev->hardware);
	rows_write_data(r, fmt, fp);
}
