/*
 * runstate: the small facts a run records about itself (when it started,
 * its command line as a shell would need it), the echo of user input in
 * the engine's messages, the monotonic clock the runs are timed with, and
 * the warning about the events this machine refused.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prof/run/run.h"
#include "prof/run/internal.h"

void run_state_now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./=:,+@%", *s))
			return true;
	return false;
}

char *run_state_command_line(char *const *argv, int argc)
{
	size_t len = 0;
	char *out = NULL;
	FILE *fp = open_memstream(&out, &len);
	for (int i = 0; i < argc; i++) {
		if (i)
			fputc(' ', fp);
		if (!needs_quotes(argv[i])) {
			fputs(argv[i], fp);
			continue;
		}
		fputc('\'', fp);
		for (const char *p = argv[i]; *p; p++) {
			if (*p == '\'')
				fputs("'\\''", fp);
			else
				fputc(*p, fp);
		}
		fputc('\'', fp);
	}
	fclose(fp);
	return out;
}

const char *run_echo(const char *s, char *buf, size_t bufsz)
{
	if (!s)
		return "(null)";
	size_t len = strlen(s);
	if (len + 1 <= bufsz && len <= 40)
		return s;
	size_t keep = bufsz > 44 ? 40 : bufsz - 4;
	snprintf(buf, bufsz, "%.*s...", (int)keep, s);
	return buf;
}

double mono_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t mono_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The events refused, one warning per distinct reason listing them all;
 * a reason's later lines (its hints) follow as they are. */
void report_unsupported(const struct counters *cs, const struct event_desc *evs,
			size_t nev)
{
	bool *done = calloc(nev ? nev : 1, sizeof(bool));
	for (size_t i = 0; i < nev; i++) {
		const struct counter_status *si = counters_status(cs, i);
		if (si->supported || done[i])
			continue;
		const char *ri = si->reason ? si->reason : "refused";
		size_t li = strcspn(ri, "\n");
		size_t len = 0;
		char *names = NULL;
		FILE *fp = open_memstream(&names, &len);
		if (!fp)
			break;
		fputs(evs[i].name, fp);
		done[i] = true;
		for (size_t j = i + 1; j < nev; j++) {
			const struct counter_status *sj = counters_status(cs, j);
			if (sj->supported || done[j])
				continue;
			const char *rj = sj->reason ? sj->reason : "refused";
			if (strcspn(rj, "\n") == li && !strncmp(ri, rj, li)) {
				fprintf(fp, ", %s", evs[j].name);
				done[j] = true;
			}
		}
		if (fclose(fp) == 0)
			run_warn("not supported here, reported as missing: %s (%.*s)",
				 names, (int)li, ri);
		free(names);
		if (ri[li] == '\n')
			run_info("%s", ri + li + 1);
	}
	free(done);
}
