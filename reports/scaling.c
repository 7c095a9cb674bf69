/* scaling: a run's multiplexed events (see scaling.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "reports/scaling.h"

/* The share of c's enabled time it ran, or 100 when it does not count
 * (nothing arrived, or never enabled). */
static double share(const struct db_count *c)
{
	if (!c->present || !c->enabled || c->running >= c->enabled)
		return 100.0;
	return 100.0 * (double)c->running / (double)c->enabled;
}

size_t run_scaled_events(const struct db_run *run, struct scaled_event **out)
{
	*out = NULL;
	size_t n = 0;
	for (size_t e = 0; e < run->nevents; e++) {
		const struct db_event *ev = &run->events[e];
		if (!ev->supported)
			continue;
		double pct = share(&ev->total);
		for (size_t t = 0; t < run->nthreads; t++) {
			double s = share(&run->threads[t].counts[e]);
			if (s < pct)
				pct = s;
		}
		if (pct >= 100.0)
			continue;
		struct scaled_event *v = realloc(*out, (n + 1) * sizeof(*v));
		if (!v)
			xalloc_die();
		*out = v;
		v[n++] = (struct scaled_event){ ev->name, e, pct };
	}
	return n;
}

char *run_scaled_text(const struct db_run *run, enum scaled_which which)
{
	struct scaled_event *s;
	size_t n = run_scaled_events(run, &s);
	char *text = NULL;
	size_t len = 0, listed = 0;
	FILE *fp = open_memstream(&text, &len);
	if (!fp)
		xalloc_die();
	for (size_t i = 0; i < n; i++) {
		bool never = s[i].running_pct <= 0;
		if (!(which & (never ? SCALED_NEVER : SCALED_PART)))
			continue;
		fprintf(fp, "%s%s", listed++ ? ", " : "", s[i].name);
		if (which == SCALED_NEVER)
			continue;
		if (never)
			fputs(" (never counted)", fp);
		/* Not "100%" for a group that missed a sliver of its time. */
		else if (s[i].running_pct >= 99.5)
			fprintf(fp, " (counted %.2f%% of the time)", s[i].running_pct);
		else
			fprintf(fp, " (counted %.0f%% of the time)", s[i].running_pct);
	}
	fclose(fp);
	free(s);
	if (!listed) {
		free(text);
		return NULL;
	}
	return text;
}
