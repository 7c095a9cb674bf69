/*
 * sleepmode: `--sleep-mode MODE[,threshold=US][,max-spinners=K]` for the
 * verbs that launch workloads: check the words before anything runs,
 * find the interposer (libprof-sleep.so, beside prof, then where it is
 * installed), preload it into the workload with its settings and a memfd
 * for its report, and read that report after the workload exits. The
 * runner drives it as a collector (collect_sleep, prof/run/collector.h),
 * whose fill stores the report. A statically linked workload cannot take
 * a preload: it runs anyway, with a warning, and the run says the mode
 * was not applied. Not thread-safe.
 */
#ifndef PROF_SLEEPMODE_H
#define PROF_SLEEPMODE_H

#ifndef PROF_RUN_H
#error "include prof/run/run.h, the run engine's one public header"
#endif

#include <stdbool.h>

#include "collectors/sleep.h"
#include "db/sleep.h"

struct sleep_plan {
	char *spec;			/* as given */
	char *mode_word, *threshold_word, *spinners_word;
	struct sleep_preload_config cfg;
	char *lib;			/* the interposer's path */
	char *preload;			/* a link to lib for LD_PRELOAD, or NULL */
	char *link_dir;			/* the private directory holding it */
	bool preloadable;		/* false: a static workload */
	char *why_not;			/* when not preloadable */
	int fd;				/* the report memfd of the current run */
	/* Set by the collector before sleep_plan_collect: the programs the
	 * workload exec'd that never loaded the interposer, as a clause
	 * ("'x' (pid 7) never loaded the interposer: statically linked"),
	 * or NULL; the status then says the mode was only partly applied. */
	char *unreached;
	char *env[8];			/* "K=V", NULL-terminated */
};

/* Parse the spec. -EINVAL with *cause naming the bad word (exit 2). */
int sleep_plan_parse(struct sleep_plan *sp, const char *spec, char **cause);

/*
 * Find the interposer beside prof (/proc/self/exe's directory), then in
 * PROF_PKGLIBDIR, or at $PROF_SLEEP_LIB when set. -ENOENT with *cause
 * saying where it looked (exit 1 before starting the workload). LD_PRELOAD
 * cannot carry a path with a space or a colon, so such an interposer is
 * preloaded through a link in a private directory under $TMPDIR (else
 * /tmp), which sleep_plan_release removes; -errno with *cause when that
 * cannot be made.
 */
int sleep_plan_locate(struct sleep_plan *sp, char **cause);

/* Note whether the command (argv[0]) can take a preload; warns if not. */
void sleep_plan_check(struct sleep_plan *sp, const char *cmd);

/*
 * For one run: create the report memfd and the environment entries
 * (sp->env), appending to any LD_PRELOAD already set. 0 or -errno.
 */
int sleep_plan_arm(struct sleep_plan *sp, char **cause);

/*
 * After the run: read the report, say whether the mode was applied (a
 * warning when it was not for a reason the user may not know), and
 * return the stored shape; closes the memfd. NULL when no report was
 * armed, or out of memory.
 */
struct db_sleep_usage *sleep_plan_collect(struct sleep_plan *sp);

void sleep_plan_release(struct sleep_plan *sp);

#endif
