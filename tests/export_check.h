/*
 * export_check: what the readers of prof's exports require of them
 * (reports/export.h), as cmocka assertions, for the unit tests of the
 * writers and the end-to-end tests of prof report: Chrome's trace-event
 * format for --format perfetto, speedscope's file-format schema for
 * --format speedscope, and the lines stackcollapse-perf.pl and the
 * Firefox Profiler parse for --format perf-script. Include after
 * cmocka.h and json_tree.h.
 */
#ifndef TESTS_EXPORT_CHECK_H
#define TESTS_EXPORT_CHECK_H

#include <regex.h>
#include <stdbool.h>
#include <string.h>

#include "json_tree.h"

/* What the trace-event format asks of every event. */
static inline void check_trace_events(const struct jt *doc)
{
	assert_non_null(jt_get_type(doc, "displayTimeUnit", JT_STR));
	const struct jt *evs = jt_get_type(doc, "traceEvents", JT_ARR);
	assert_non_null(evs);
	for (size_t i = 0; i < evs->n; i++) {
		const struct jt *e = &evs->items[i];
		assert_int_equal(e->type, JT_OBJ);
		assert_non_null(jt_get_type(e, "name", JT_STR));
		const struct jt *ph = jt_get_type(e, "ph", JT_STR);
		assert_non_null(ph);
		assert_non_null(strchr("MXCi", ph->str[0]));
		assert_int_equal(strlen(ph->str), 1);
		assert_non_null(jt_get_type(e, "pid", JT_NUM));
		assert_non_null(jt_get_type(e, "tid", JT_NUM));
		const struct jt *ts = jt_get_type(e, "ts", JT_NUM);
		assert_non_null(ts);
		assert_true(ts->num >= 0);
		if (ph->str[0] == 'X') {
			const struct jt *dur = jt_get_type(e, "dur", JT_NUM);
			assert_non_null(dur);
			assert_true(dur->num >= 0);
		}
		if (ph->str[0] == 'C' || ph->str[0] == 'M')
			assert_non_null(jt_get_type(e, "args", JT_OBJ));
		if (ph->str[0] == 'i')
			assert_string_equal(jt_get_type(e, "s", JT_STR)->str, "t");
	}
}

/* What speedscope's file-format schema asks of a file. */
static inline void check_speedscope(const struct jt *doc)
{
	const struct jt *schema = jt_get_type(doc, "$schema", JT_STR);
	assert_non_null(schema);
	assert_string_equal(schema->str, "https://www.speedscope.app/file-format-schema.json");
	const struct jt *frames = jt_get_type(jt_get_type(doc, "shared", JT_OBJ), "frames",
					      JT_ARR);
	assert_non_null(frames);
	for (size_t i = 0; i < frames->n; i++)
		assert_non_null(jt_get_type(&frames->items[i], "name", JT_STR));
	const struct jt *profiles = jt_get_type(doc, "profiles", JT_ARR);
	assert_non_null(profiles);
	for (size_t i = 0; i < profiles->n; i++) {
		const struct jt *p = &profiles->items[i];
		assert_string_equal(jt_get_type(p, "type", JT_STR)->str, "sampled");
		assert_non_null(jt_get_type(p, "name", JT_STR));
		const char *unit = jt_get_type(p, "unit", JT_STR)->str;
		assert_true(!strcmp(unit, "none") || !strcmp(unit, "nanoseconds") ||
			    !strcmp(unit, "microseconds") || !strcmp(unit, "milliseconds") ||
			    !strcmp(unit, "seconds") || !strcmp(unit, "bytes"));
		const struct jt *a = jt_get_type(p, "startValue", JT_NUM);
		const struct jt *z = jt_get_type(p, "endValue", JT_NUM);
		assert_non_null(a);
		assert_non_null(z);
		assert_true(z->num >= a->num);
		const struct jt *s = jt_get_type(p, "samples", JT_ARR);
		const struct jt *w = jt_get_type(p, "weights", JT_ARR);
		assert_non_null(s);
		assert_non_null(w);
		assert_int_equal(s->n, w->n);
		double sum = 0;
		for (size_t k = 0; k < s->n; k++) {
			assert_int_equal(s->items[k].type, JT_ARR);
			assert_true(s->items[k].n > 0);
			for (size_t f = 0; f < s->items[k].n; f++) {
				const struct jt *ix = &s->items[k].items[f];
				assert_int_equal(ix->type, JT_NUM);
				assert_true(ix->num >= 0 && ix->num < (double)frames->n &&
					    ix->num == (double)(size_t)ix->num);
			}
			assert_int_equal(w->items[k].type, JT_NUM);
			sum += w->items[k].num;
		}
		assert_true(z->num - a->num == sum);
	}
	const struct jt *active = jt_get_type(doc, "activeProfileIndex", JT_NUM);
	assert_true(!active || active->num < (double)profiles->n);
}

/*
 * What stackcollapse-perf.pl reads: a sample's first line starts with a
 * non-blank name and holds "pid/tid", the time, and "period event:" at
 * its end (in its Perl "^(\S.+?)\s+(\d+)\/?(\d+)*\s+", the pid and its
 * slash optional, and ":\s*(\d+)*\s+(\S+):\s*$"); a frame line is
 * "^\s*(\w+)\s*(.+) \((\S*)\)". These are those rules in POSIX ERE, with
 * the layout perf script -F comm,pid,tid,time,period,event,ip,sym,symoff,
 * dso prints. Checks every line of a perf script text; returns the
 * number of samples.
 */
static inline size_t check_perf_script(const char *text)
{
	static const char header_re[] =
		"^[^[:space:]].* +[0-9]+/[0-9]+ +[0-9]+\\.[0-9]{6}: +[0-9]+ [^[:space:]]+: $";
	static const char frame_re[] = "^\t *[0-9a-f]+ .+ \\([^[:space:]]*\\)$";
	regex_t hre, fre;
	assert_int_equal(regcomp(&hre, header_re, REG_EXTENDED | REG_NOSUB), 0);
	assert_int_equal(regcomp(&fre, frame_re, REG_EXTENDED | REG_NOSUB), 0);
	/* The Firefox Profiler knows the format by its header's first line. */
	assert_int_equal(strncmp(text, "# ========\n", 11), 0);
	size_t nsamples = 0, nframes = 0;
	bool in_sample = false;
	const char *p = text;
	while (*p) {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len);
		if (!in_sample && line[0] == '#') {
			/* a comment: skipped by both readers */
		} else if (!in_sample) {
			if (regexec(&hre, line, 0, NULL, 0))
				fail_msg("not a sample's first line: '%s'", line);
			in_sample = true;
			nsamples++;
			nframes = 0;
		} else if (!*line) {
			assert_true(nframes > 0);
			in_sample = false;
		} else {
			if (regexec(&fre, line, 0, NULL, 0))
				fail_msg("not a frame line: '%s'", line);
			nframes++;
		}
		free(line);
		p += len;
		assert_int_equal(*p, '\n');	/* every line ends */
		p++;
	}
	assert_false(in_sample);	/* the last sample ends with a blank line */
	regfree(&hre);
	regfree(&fre);
	return nsamples;
}

#endif
