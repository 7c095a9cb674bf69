/*
 * sleep_default_run: time the default `prof sleep` run (8 modes x 7
 * durations x 20,000 calls) through the collector API alone, until the
 * verb exists. Prints one line per cell to stderr as it goes, then the
 * header facts, the cheapest mode per duration and the total wall time.
 * Not part of the build:
 *
 *   cc -D_GNU_SOURCE -O2 -I. bench/sleep_default_run.c \
 *      build/collectors/libprof_collectors.a -lpthread -o /tmp/sleep_run
 *   /tmp/sleep_run [-m MODES] [-d DURATIONS] [-n CALLS] [-t THREADS]
 *                  [-l LOAD] [-p]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/sleep.h"

static int progress(void *arg, size_t done, size_t total,
		    const struct sleep_cell *c)
{
	char m[32];
	(void)arg;
	sleep_mode_format(&c->mode, m, sizeof(m));
	fprintf(stderr, "[%zu/%zu] %-11s %3u us  p50 %6.1f p90 %6.1f "
		"p99 %7.1f p999 %7.1f max %8.1f  lt3 %5llu lt10 %5llu "
		"lt25 %5llu lt50 %5llu ge50 %5llu  cpu %5.1f%% %6.2f us/call "
		"vcsw %.2f ivcsw %.2f  %.2f s\n", done, total, m, c->target_us,
		c->over.p50_ns / 1e3, c->over.p90_ns / 1e3,
		c->over.p99_ns / 1e3, c->over.p999_ns / 1e3,
		c->over.max_ns / 1e3,
		(unsigned long long)c->over.buckets[SLEEP_BUCKET_LT3],
		(unsigned long long)c->over.buckets[SLEEP_BUCKET_LT10],
		(unsigned long long)c->over.buckets[SLEEP_BUCKET_LT25],
		(unsigned long long)c->over.buckets[SLEEP_BUCKET_LT50],
		(unsigned long long)c->over.buckets[SLEEP_BUCKET_GE50],
		c->cpu_pct, c->cpu_us_per_call, c->vcsw_per_call,
		c->ivcsw_per_call, c->wall_s);
	return 0;
}

int main(int argc, char **argv)
{
	struct sleep_bench_opts o;
	struct sleep_mode_spec *modes = NULL;
	uint32_t *durs = NULL;
	struct sleep_bench b;
	struct timespec t0, t1;
	char *cause = NULL;

	sleep_bench_opts_init(&o);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		int err = 0;
		if (strcmp(arg, "-p") == 0) {
			o.pattern = SLEEP_PERIODIC;
			continue;
		}
		if (!val) {
			fprintf(stderr, "error: '%s' needs a value\n", arg);
			return 2;
		}
		i++;
		if (strcmp(arg, "-m") == 0) {
			err = sleep_modes_parse(val, &modes, &o.nmodes, &cause);
			o.modes = modes;
		} else if (strcmp(arg, "-d") == 0) {
			err = sleep_durations_parse(val, &durs, &o.ndurations,
						    &cause);
			o.durations_us = durs;
		} else if (strcmp(arg, "-n") == 0) {
			o.calls = (uint32_t)atoi(val);
		} else if (strcmp(arg, "-t") == 0) {
			o.threads = (uint32_t)atoi(val);
		} else if (strcmp(arg, "-l") == 0) {
			o.load = (uint32_t)atoi(val);
		} else {
			fprintf(stderr, "error: unknown option '%s'\n", arg);
			return 2;
		}
		if (err) {
			fprintf(stderr, "error: %s\n", cause);
			return 2;
		}
	}
	o.progress = progress;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (sleep_bench_run(&o, &b, &cause)) {
		fprintf(stderr, "error: %s\n", cause);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("slack %llu ns, %s, clocksource %s, %u thread(s), load %u, "
	       "%s\n", (unsigned long long)b.header.timer_slack_ns,
	       b.header.sched_policy_name, b.header.clocksource,
	       b.header.threads, b.header.load,
	       sleep_pattern_name(b.header.pattern));
	if (b.header.hybrid_margin_ns >= 0)
		printf("hybrid margin %.1f us (%s; timerfd p99.9 %.1f us)\n",
		       b.header.hybrid_margin_ns / 1e3,
		       b.header.hybrid_calibrated ? "calibrated" : "given",
		       b.header.calibration_p999_ns / 1e3);
	const uint32_t *d = o.durations_us;
	size_t nd = o.ndurations;
	static const uint32_t defaults[] = { 10, 20, 30, 40, 50, 60, 70 };
	if (!d) {
		d = defaults;
		nd = 7;
	}
	for (size_t i = 0; i < nd; i++) {
		const struct sleep_cell *c =
			sleep_bench_cheapest(&b, d[i], SLEEP_CHEAP_P99_US);
		char m[32] = "none";
		if (c)
			sleep_mode_format(&c->mode, m, sizeof(m));
		printf("cheapest with p99 < 10 us at %u us: %s\n", d[i], m);
	}
	printf("total wall %.1f s\n", (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	sleep_bench_release(&b);
	free(modes);
	free(durs);
	return 0;
}
