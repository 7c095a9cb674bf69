/* zerocount: hardware counters that read 0 beside a moving one; see zerocount.h. */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "reports/output.h"
#include "reports/zerocount.h"

/* Event names, as perf, libpfm4 and the PMUs' own tables spell them. */
static const char *const instructions[] = {
	"instructions", "inst_retired", "instruction_retired",
	"retired_instructions", "inst_retired.any", "inst_retired.any_p",
};
static const char *const cycles[] = {
	"cycles", "cpu-cycles", "cpu_cycles", "ref-cycles", "cycles_not_in_halt",
	"unhalted_core_cycles", "cpu_clk_unhalted", "cpu_clk_unhalted.thread",
	"cpu_clk_unhalted.thread_p",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Whether name (its PMU prefix "pmu::" or "pmu/" and any ":u" modifier
 * left out) is one of list. */
static bool named(const char *name, const char *const *list, size_t n)
{
	if (!name)
		return false;
	const char *p = strstr(name, "::");
	if (p)
		name = p + 2;
	size_t len = strcspn(name, ":");
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && !strncasecmp(name, list[i], len))
			return true;
	return false;
}

int event_ref_kind(const struct db_event *e)
{
	if (e->attr_type == PERF_TYPE_HARDWARE) {
		/* The upper 32 bits may name a core PMU (hybrid). */
		uint64_t id = e->attr_config & 0xffffffffull;
		if (id == PERF_COUNT_HW_INSTRUCTIONS)
			return 1;
		if (id == PERF_COUNT_HW_CPU_CYCLES || id == PERF_COUNT_HW_REF_CPU_CYCLES)
			return 2;
		return 0;
	}
	if (named(e->name, instructions, N(instructions)) ||
	    named(e->canonical, instructions, N(instructions)))
		return 1;
	if (named(e->name, cycles, N(cycles)) || named(e->canonical, cycles, N(cycles)))
		return 2;
	return 0;
}

static bool hardware(const struct db_event *e)
{
	return e->supported && e->group > 0 && e->attr_type != PERF_TYPE_SOFTWARE &&
	       e->attr_type != PERF_TYPE_TRACEPOINT &&
	       e->attr_type != PERF_TYPE_BREAKPOINT;
}

/* The total of e as counted (scaled), or -1 when it was not counted. */
static double counted(const struct db_event *e)
{
	double v;
	enum db_count_state st = db_count_scaled(&e->total, &v);
	if (st != COUNT_OK && st != COUNT_SCALED)
		return -1;
	return v;
}

void run_counted_zero(const struct db_run *run, struct counted_zero *z)
{
	memset(z, 0, sizeof(*z));
	z->zero = calloc(run->nevents + 1, sizeof(*z->zero));
	if (!z->zero)
		xalloc_die();
	for (int kind = 1; kind <= 2 && !z->ref; kind++)
		for (size_t e = 0; e < run->nevents && !z->ref; e++) {
			const struct db_event *ev = &run->events[e];
			double v = hardware(ev) ? counted(ev) : -1;
			if (v > 0 && event_ref_kind(ev) == kind) {
				z->ref = ev->name;
				z->ref_value = v;
			}
		}
	for (size_t e = 0; z->ref && e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		if (hardware(ev) && counted(ev) == 0) {
			z->zero[e] = true;
			z->n++;
		}
	}
}

void counted_zero_release(struct counted_zero *z)
{
	if (!z)
		return;
	free(z->zero);
	memset(z, 0, sizeof(*z));
}

char *counted_zero_text(const struct db_run *run, const struct counted_zero *z,
			const char *item)
{
	if (!z->n)
		return NULL;
	char num[64];
	fmt_count(num, sizeof(num), z->ref_value, 0);
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	if (!fp)
		xalloc_die();
	fprintf(fp, "counted 0 while %s counted %s: this PMU may not implement %s:",
		z->ref, num, z->n == 1 ? "it" : "them");
	for (size_t e = 0, k = 0; e < run->nevents; e++)
		if (z->zero[e])
			fprintf(fp, "%s%s", k++ ? ", " : item ? item : " ",
				run->events[e].name);
	if (fclose(fp))
		xalloc_die();
	return text;
}

char *counted_zero_note(const struct counted_zero *z)
{
	char *s;
	if (asprintf(&s, "counted 0 while %s counted %.0f: this PMU may not "
		     "implement it", z->ref ? z->ref : "?", z->ref_value) < 0)
		xalloc_die();
	return s;
}
