/*
 * sleep_shared: the parts of the sleep module that both prof and the
 * interposer library compile: mode names and parsing, the interposer's
 * settings, the nearest-rank percentile, and the overshoot histogram's
 * bucket bounds. Only libc, no
 * state, so libprof-sleep.so can carry a copy of it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/sleep.h"
#include "common/order.h"

static const char *const mode_names[SLEEP_MODE_COUNT] = {
	[SLEEP_MODE_NANOSLEEP] = "nanosleep",
	[SLEEP_MODE_SLACK1] = "slack1",
	[SLEEP_MODE_CLOCK_ABS] = "clock-abs",
	[SLEEP_MODE_TIMERFD] = "timerfd",
	[SLEEP_MODE_CONDVAR] = "condvar",
	[SLEEP_MODE_YIELD] = "yield",
	[SLEEP_MODE_SPIN] = "spin",
	[SLEEP_MODE_HYBRID] = "hybrid",
	[SLEEP_MODE_PASSTHROUGH] = "passthrough",
};

static void set_cause(char **cause, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_cause(char **cause, const char *fmt, ...)
{
	va_list ap;
	if (!cause)
		return;
	va_start(ap, fmt);
	if (vasprintf(cause, fmt, ap) < 0)
		*cause = NULL;
	va_end(ap);
}

const char *sleep_mode_name(enum sleep_mode mode)
{
	if ((unsigned)mode >= SLEEP_MODE_COUNT)
		return "unknown";
	return mode_names[mode];
}

void sleep_mode_format(const struct sleep_mode_spec *spec, char *buf,
		       size_t len)
{
	if (!len)
		return;
	if (spec->mode == SLEEP_MODE_HYBRID && spec->margin_ns >= 0) {
		/* whole microseconds print without a fraction */
		if (spec->margin_ns % 1000 == 0)
			snprintf(buf, len, "hybrid:%lld",
				 (long long)(spec->margin_ns / 1000));
		else
			snprintf(buf, len, "hybrid:%.1f",
				 (double)spec->margin_ns / 1000.0);
	} else {
		snprintf(buf, len, "%s", sleep_mode_name(spec->mode));
	}
}

bool sleep_mode_is_bench(enum sleep_mode mode)
{
	return (unsigned)mode < SLEEP_BENCH_NMODES;
}

bool sleep_mode_is_preload(enum sleep_mode mode)
{
	switch (mode) {
	case SLEEP_MODE_TIMERFD:
	case SLEEP_MODE_PASSTHROUGH:
	case SLEEP_MODE_SLACK1:
	case SLEEP_MODE_YIELD:
	case SLEEP_MODE_SPIN:
	case SLEEP_MODE_HYBRID:
		return true;
	default:
		return false;
	}
}

const char *sleep_cv_strategy(enum sleep_mode mode)
{
	return mode == SLEEP_MODE_PASSTHROUGH ? "the real function"
	       : "timer slack 1 ns";
}

/*
 * An unsigned decimal integer with nothing around it: no sign, no blanks,
 * no suffix. 0, -EINVAL (not a number) or -ERANGE (past max).
 */
static int parse_uint(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > max)
			return -ERANGE;
	}
	*out = v;
	return 0;
}

static int mode_parse_n(const char *word, size_t len,
			struct sleep_mode_spec *out, char **cause)
{
	const char *colon = memchr(word, ':', len);
	size_t name_len = colon ? (size_t)(colon - word) : len;

	for (int m = 0; m < SLEEP_MODE_COUNT; m++) {
		if (strlen(mode_names[m]) != name_len ||
		    memcmp(mode_names[m], word, name_len) != 0)
			continue;
		out->mode = (enum sleep_mode)m;
		out->margin_ns = -1;
		if (!colon)
			return 0;
		if (m != SLEEP_MODE_HYBRID) {
			set_cause(cause, "mode '%.*s' takes no argument\n"
				  "hint: only hybrid takes one, as in "
				  "'hybrid:5' (a margin in us)",
				  (int)(len > 40 ? 40 : len), word);
			return -EINVAL;
		}
		size_t alen = len - name_len - 1;
		uint64_t us;
		int err = parse_uint(colon + 1, alen, SLEEP_MARGIN_MAX_US, &us);
		if (err) {
			set_cause(cause, "bad hybrid margin '%.*s': %s\n"
				  "hint: give whole microseconds from 0 to %u, "
				  "as in 'hybrid:5', or plain 'hybrid' to "
				  "calibrate one",
				  (int)(alen > 40 ? 40 : alen), colon + 1,
				  err == -ERANGE ? "too large" :
				  "not a whole number of microseconds",
				  SLEEP_MARGIN_MAX_US);
			return -EINVAL;
		}
		out->margin_ns = (int64_t)us * 1000;
		return 0;
	}
	set_cause(cause, "unknown sleep mode '%.*s'\n"
		  "hint: modes are nanosleep, slack1, clock-abs, timerfd, "
		  "condvar, yield, spin, hybrid[:MARGIN_US], passthrough",
		  (int)(len > 40 ? 40 : len), word);
	return -EINVAL;
}

int sleep_mode_parse(const char *word, struct sleep_mode_spec *out,
		     char **cause)
{
	if (!word) {
		set_cause(cause, "no sleep mode given");
		return -EINVAL;
	}
	return mode_parse_n(word, strlen(word), out, cause);
}

/* Count a comma list's items; an empty item is an error naming the list. */
static int count_items(const char *list, const char *what, size_t *n,
		       char **cause)
{
	size_t items = 1;
	const char *p = list;
	if (!*list) {
		set_cause(cause, "empty list of %s", what);
		return -EINVAL;
	}
	for (; *p; p++) {
		if (*p != ',')
			continue;
		if (p == list || p[1] == ',' || p[1] == '\0') {
			set_cause(cause, "empty item in the list of %s '%.60s'",
				  what, list);
			return -EINVAL;
		}
		items++;
	}
	*n = items;
	return 0;
}

int sleep_modes_parse(const char *list, struct sleep_mode_spec **out,
		      size_t *n, char **cause)
{
	size_t items;
	*out = NULL;
	*n = 0;
	if (!list) {
		set_cause(cause, "no sleep modes given");
		return -EINVAL;
	}
	int err = count_items(list, "modes", &items, cause);
	if (err)
		return err;
	struct sleep_mode_spec *v = calloc(items, sizeof(*v));
	if (!v) {
		set_cause(cause, "cannot allocate %zu modes: out of memory",
			  items);
		return -ENOMEM;
	}
	const char *p = list;
	for (size_t i = 0; i < items; i++) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		err = mode_parse_n(p, len, &v[i], cause);
		if (!err && !sleep_mode_is_bench(v[i].mode)) {
			set_cause(cause, "mode '%.*s' cannot be benchmarked\n"
				  "hint: passthrough is an interposer mode; "
				  "benchmark nanosleep instead",
				  (int)(len > 40 ? 40 : len), p);
			err = -EINVAL;
		}
		if (err) {
			free(v);
			return err;
		}
		p = end ? end + 1 : p + len;
	}
	*out = v;
	*n = items;
	return 0;
}

int sleep_durations_parse(const char *list, uint32_t **out, size_t *n,
			  char **cause)
{
	size_t items;
	*out = NULL;
	*n = 0;
	if (!list) {
		set_cause(cause, "no durations given");
		return -EINVAL;
	}
	int err = count_items(list, "durations", &items, cause);
	if (err)
		return err;
	uint32_t *v = calloc(items, sizeof(*v));
	if (!v) {
		set_cause(cause, "cannot allocate %zu durations: out of "
			  "memory", items);
		return -ENOMEM;
	}
	const char *p = list;
	for (size_t i = 0; i < items; i++) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		uint64_t us = 0;
		err = parse_uint(p, len, SLEEP_DURATION_MAX_US, &us);
		if (!err && us == 0)
			err = -ERANGE;
		if (err) {
			set_cause(cause, "bad duration '%.*s': %s\n"
				  "hint: durations are whole microseconds "
				  "from 1 to %u, as in '10,20,30'",
				  (int)(len > 40 ? 40 : len), p,
				  err == -ERANGE ? "out of range" :
				  "not a whole number of microseconds",
				  SLEEP_DURATION_MAX_US);
			free(v);
			return -EINVAL;
		}
		v[i] = (uint32_t)us;
		p = end ? end + 1 : p + len;
	}
	*out = v;
	*n = items;
	return 0;
}

const char *sleep_pattern_name(enum sleep_pattern p)
{
	return p == SLEEP_PERIODIC ? "periodic" : "oneshot";
}

int sleep_pattern_parse(const char *word, enum sleep_pattern *out,
			char **cause)
{
	if (word && strcmp(word, "oneshot") == 0) {
		*out = SLEEP_ONESHOT;
		return 0;
	}
	if (word && strcmp(word, "periodic") == 0) {
		*out = SLEEP_PERIODIC;
		return 0;
	}
	set_cause(cause, "unknown sleep pattern '%.40s'\n"
		  "hint: patterns are oneshot and periodic",
		  word ? word : "");
	return -EINVAL;
}

int sleep_preload_config_parse(const char *mode, const char *threshold_us,
			       const char *max_spinners,
			       struct sleep_preload_config *out, char **cause)
{
	struct sleep_preload_config c = {
		.mode = { SLEEP_MODE_TIMERFD, -1 },
		.threshold_ns = (uint64_t)SLEEP_THRESHOLD_DEFAULT_US * 1000,
		.max_spinners = 0,
		.spinners_default = true,
	};
	int err;

	if (mode) {
		err = sleep_mode_parse(mode, &c.mode, cause);
		if (err)
			return err;
		if (!sleep_mode_is_preload(c.mode.mode)) {
			set_cause(cause, "mode '%.40s' cannot serve a "
				  "workload's sleeps\n"
				  "hint: interposer modes are timerfd, "
				  "passthrough, slack1, yield, spin, "
				  "hybrid[:MARGIN_US]", mode);
			return -EINVAL;
		}
	}
	if (threshold_us) {
		uint64_t us = 0;
		err = parse_uint(threshold_us, strlen(threshold_us),
				 SLEEP_THRESHOLD_MAX_US, &us);
		if (err == -ERANGE || (!err && us == 0)) {
			set_cause(cause, "sleep threshold '%.40s' us is out "
				  "of range\n"
				  "hint: the threshold is 1 to %u us (one "
				  "second); longer sleeps gain nothing from "
				  "a precise mode", threshold_us,
				  SLEEP_THRESHOLD_MAX_US);
			return -EINVAL;
		}
		if (err) {
			set_cause(cause, "bad sleep threshold '%.40s': not a "
				  "whole number of microseconds\n"
				  "hint: as in %s=1000", threshold_us,
				  SLEEP_ENV_THRESHOLD);
			return -EINVAL;
		}
		c.threshold_ns = us * 1000;
	}
	if (max_spinners) {
		uint64_t k = 0;
		err = parse_uint(max_spinners, strlen(max_spinners),
				 SLEEP_MAX_SPINNERS_MAX, &k);
		if (err) {
			set_cause(cause, "bad max-spinners '%.40s': %s\n"
				  "hint: give 1 to %u threads, 0 for no cap, or "
				  "leave it unset for a quarter of the CPUs",
				  max_spinners,
				  err == -EINVAL ? "not a whole number" :
				  "out of range", SLEEP_MAX_SPINNERS_MAX);
			return -EINVAL;
		}
		c.max_spinners = (uint32_t)k;
		c.spinners_default = false;
	}
	*out = c;
	return 0;
}

int64_t sleep_percentile(const int64_t *sorted, size_t n, unsigned q)
{
	return sorted[nearest_rank(n, q) - 1];
}

int64_t sleep_hybrid_margin(int64_t p999_ns)
{
	int64_t m = (p999_ns > 0 ? p999_ns : 0) + SLEEP_HYBRID_GUARD_NS;
	return m < SLEEP_HYBRID_MARGIN_CAP_NS ? m : SLEEP_HYBRID_MARGIN_CAP_NS;
}

void sleep_hist_bounds(unsigned b, uint64_t *lo, uint64_t *hi)
{
	const unsigned sub = 1u << SLEEP_HIST_SUB_BITS;
	if (b < 2 * sub) {
		*lo = b;
		*hi = (uint64_t)b + 1;
		return;
	}
	if (b >= SLEEP_OVER_BUCKETS - 1) {
		*lo = 1ull << SLEEP_HIST_MAX_EXP;
		*hi = UINT64_MAX;
		return;
	}
	unsigned shift = (b >> SLEEP_HIST_SUB_BITS) - 1;
	uint64_t m = b - (shift << SLEEP_HIST_SUB_BITS);
	*lo = m << shift;
	*hi = (m + 1) << shift;
}
