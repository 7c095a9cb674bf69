/*
 * collect_env: the machine's settings at the start of the run (governor,
 * turbo, SMT, THP, paranoid, isolation, load, mitigations: see
 * collectors/runenv.h), read when the counters are open and before the
 * workload starts, so that `prof compare` and `prof explain` can say
 * when two runs ran on a differently set machine. sys/ is read below
 * --sysfs ROOT when given (runner_opts.sysfs_root), so tests can fake
 * it. A collector (prof/run/collector.h) whose fill copies the list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/runenv.h"
#include "common/errtext.h"
#include "prof/run/internal.h"
#include "prof/run/run.h"

struct env_state {
	struct runenv env;
	bool have;
};

static void env_opened(void *self, struct collect_ctx *cx)
{
	struct env_state *st = self;
	st->have = runenv_read(&st->env, cx->o->sysfs_root, "/") == 0;
	if (!st->have)
		run_warn("cannot read the machine's settings: %s", ERR_TEXT(ENOMEM));
}

int collect_fill_env(struct db_run *run, const struct runenv *env, char **cause)
{
	run->env = calloc(env->n ? env->n : 1, sizeof(*run->env));
	if (!run->env)
		return fill_oom(cause, "machine settings");
	bool oom = false;
	for (size_t i = 0; i < env->n; i++) {
		run->env[i].key = fill_strdup(env->kv[i].key, &oom);
		run->env[i].value = fill_strdup(env->kv[i].value, &oom);
	}
	run->nenv = env->n;
	return oom ? fill_oom(cause, "machine settings") : 0;
}

static int env_fill(void *self, struct collect_ctx *cx, struct db_run *run,
		    char **cause)
{
	struct env_state *st = self;
	(void)cx;
	return st->have ? collect_fill_env(run, &st->env, cause) : 0;
}

static void env_release(void *self)
{
	struct env_state *st = self;
	runenv_release(&st->env);
}

const struct collector_ops collect_env = {
	.name = "env",
	.size = sizeof(struct env_state),
	.opened = env_opened,
	.fill = env_fill,
	.release = env_release,
};
