/*
 * runsim: a simulated launch prepared, and its profiles put on the run's
 * threads; see runsim.h.
 */
#include "prof/run/internal.h"
#include "prof/run/run.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errtext.h"

int run_sim_prepare(struct run_sim *s, char *const *argv, const char *spec,
		    const char *sysfs_root, char **cause)
{
	memset(s, 0, sizeof(*s));
	s->valgrind = sim_valgrind_find();
	if (!s->valgrind) {
		if (cause)
			*cause = strdup("--simulate runs the workload under valgrind, which "
					"is not in $PATH\nhint: apt-get install valgrind "
					"(scripts/install-deps installs it)");
		return -ENOENT;
	}
	int rc = sim_geometry_read(&s->geom, sysfs_root, spec, cause);
	if (rc) {
		run_sim_release(s);
		return rc;
	}
	char tmpl[] = "/tmp/prof-sim-XXXXXX";
	if (!mkdtemp(tmpl)) {
		rc = -errno;
		if (cause && asprintf(cause, "cannot make a directory for valgrind's "
				      "profiles: %s", ERR_TEXT(-rc)) < 0)
			*cause = NULL;
		run_sim_release(s);
		return rc;
	}
	s->dir = strdup(tmpl);
	s->argv = s->dir ? sim_argv(&s->geom, s->valgrind, s->dir, argv) : NULL;
	if (!s->argv) {
		if (s->dir)
			rmdir(s->dir);
		else
			rmdir(tmpl);
		free(s->dir);
		s->dir = NULL;
		run_sim_release(s);
		return -ENOMEM;
	}
	while (s->argv[s->argc])
		s->argc++;
	return 0;
}

/* Empty the scratch directory (valgrind's profiles and logs). */
static void dir_clean(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p;
		if (asprintf(&p, "%s/%s", dir, e->d_name) >= 0) {
			unlink(p);
			free(p);
		}
	}
	closedir(d);
}

/* The tasks of pid in the run. */
static size_t tasks_of(const struct db_run *run, int32_t pid)
{
	size_t n = 0;
	for (size_t t = 0; t < run->nthreads; t++)
		n += run->threads[t].pid == pid;
	return n;
}

static size_t profiles_of(const struct sim_thread *st, size_t n, int32_t pid)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += st[i].pid == pid;
	return k;
}

/*
 * The index of pid's k-th task (1: the first to start), or -1. callgrind
 * numbers a process's threads by valgrind's slot, and a slot freed by a
 * thread that exited is given to the next one created: then one profile
 * holds several threads' counts, and the process has fewer profiles than
 * tasks. Only where the two numbers agree do the k-th profile and the
 * k-th task go together; otherwise only the first (the main thread,
 * always slot 1) is known.
 */
static long task_of(const struct db_run *run, int32_t pid, unsigned k, bool whole)
{
	if (k != 1 && !whole)
		return -1;
	/* Tasks of a process in start order: its main one first, then by
	 * start time (the runner stores them in the order they started). */
	unsigned seen = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t t = 0; t < run->nthreads; t++) {
			const struct db_thread *th = &run->threads[t];
			if (th->pid != pid || (pass == 0) != (th->tid == pid))
				continue;
			if (++seen == k)
				return (long)t;
		}
	return -1;
}

/* The user's command back in place of valgrind's. */
static void command_restore(struct db_run *run, char *const *argv, int argc)
{
	char *cmd = run_state_command_line(argv, argc);
	char **v = calloc((size_t)argc + 1, sizeof(*v));
	if (!cmd || !v) {
		free(cmd);
		free(v);
		return;
	}
	for (int i = 0; i < argc; i++)
		v[i] = strdup(argv[i]);
	for (int i = 0; i < run->argc; i++)
		free(run->argv[i]);
	free(run->argv);
	free(run->command);
	run->command = cmd;
	run->argv = v;
	run->argc = argc;
}

static void note_add(struct db_run *run, const char *line)
{
	char *n;
	if (asprintf(&n, "%s%s%s", run->note ? run->note : "", run->note ? "\n" : "",
		     line) < 0)
		return;
	free(run->note);
	run->note = n;
}

/*
 * The code modules of a simulated run are what valgrind's process
 * mapped: the program's own files (valgrind maps them itself), and its
 * own tool, preloads and translation cache, which would be counted as
 * the workload's footprint (the 2.4 GiB of [anon:exec] translations
 * beside codefoot_large's 32 MiB). Those go; a JIT's code under
 * valgrind is anonymous too, and goes with them, which the note says.
 */
static void drop_valgrinds_modules(struct db_run *run)
{
	size_t k = 0, gone = 0;
	for (size_t i = 0; i < run->nmodules; i++) {
		struct db_module *m = &run->modules[i];
		const char *p = m->path ? m->path : "";
		if (strstr(p, "/valgrind/") || !strcmp(p, "[anon:exec]")) {
			free(m->path);
			free(m->kind);
			free(m->build_id);
			free(m->error);
			gone++;
			continue;
		}
		run->modules[k++] = *m;
	}
	run->nmodules = k;
	if (gone)
		note_add(run, "simulated: valgrind's own code (its tool, preloads and "
			 "[anon:exec] translations, where a JIT's code would be too) is "
			 "left out of the code modules");
}

void run_sim_fns_free(struct run_sim_fns *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++)
		sim_fns_free(f[i].fn, f[i].n);
	free(f);
}

int run_sim_fill(struct run_sim *s, struct db_run *run, char *const *argv, int argc,
		 struct run_sim_fns **fns, size_t *nfns, char **cause)
{
	if (fns) {
		*fns = NULL;
		*nfns = 0;
	}
	command_restore(run, argv, argc);
	struct sim_thread *st = NULL;
	size_t n = 0;
	char *version = NULL, *why = NULL;
	int rc = sim_profiles_read(s->dir, &st, &n, &version, &why);
	if (!rc && !n) {
		char *fail = sim_log_failure(s->dir);
		if (cause && asprintf(cause, "valgrind did not simulate the workload: %s",
				      fail ? fail : "it wrote no profile (its message above "
				      "says why)") < 0)
			*cause = NULL;
		free(fail);
		rc = -EIO;
		goto out;
	}
	if (rc) {
		if (cause && asprintf(cause, "cannot read valgrind's profiles: %s",
				      why ? why : ERR_TEXT(-rc)) < 0)
			*cause = NULL;
		rc = -EIO;
		goto out;
	}
	size_t base = run->nevents, nev = base + SIM_NEVENTS;
	struct db_event *evs = realloc(run->events, nev * sizeof(*evs));
	if (!evs) {
		rc = -ENOMEM;
		goto out;
	}
	run->events = evs;
	/* The model, named under every table's mission counters. */
	char *geom = sim_geometry_text(&s->geom);
	char *model = NULL;
	if (asprintf(&model, "valgrind %s callgrind: %s", version ? version : "?",
		     geom ? geom : "?") < 0)
		model = NULL;
	free(geom);
	char *family = NULL;
	if (asprintf(&family, "a simulation, valgrind %s callgrind", version ? version : "?") < 0)
		family = NULL;
	for (size_t i = 0; i < SIM_NEVENTS; i++) {
		struct db_event *e = &evs[base + i];
		memset(e, 0, sizeof(*e));
		e->name = strdup(sim_event_names[i]);
		if (asprintf(&e->canonical, "callgrind:%s", sim_event_sources[i]) < 0)
			e->canonical = NULL;
		e->supported = true;
		e->attr_type = SIM_ATTR_TYPE;
		e->attr_config = i;
		e->mission_family = family ? strdup(family) : NULL;
		e->mission_event = strdup(sim_event_sources[i]);
		e->mission_note = strdup(i == SIM_CYCLES ? "an estimate from the model's counts"
						       : "the model's count, not a PMU's");
		e->total = (struct db_count){ 0, 1, 1, true };
	}
	for (size_t t = 0; t < run->nthreads; t++) {
		struct db_count *c = realloc(run->threads[t].counts, nev * sizeof(*c));
		if (!c) {
			rc = -ENOMEM;
			goto out;
		}
		memset(c + base, 0, SIM_NEVENTS * sizeof(*c));
		run->threads[t].counts = c;
	}
	run->nevents = nev;
	size_t unmatched = 0;
	if (fns && !(*fns = calloc(n, sizeof(**fns)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		bool whole = profiles_of(st, n, st[k].pid) == tasks_of(run, st[k].pid);
		long t = task_of(run, st[k].pid, st[k].thread, whole);
		if (fns) {
			struct run_sim_fns *f = &(*fns)[(*nfns)++];
			f->thread = t;
			f->pid = st[k].pid;
			char *p = NULL;
			if (asprintf(&p, "%s/%s", s->dir, st[k].file) < 0) {
				rc = -ENOMEM;
				goto out;
			}
			rc = sim_profile_functions(p, &f->fn, &f->n, &why);
			free(p);
			if (rc) {
				if (cause && asprintf(cause, "cannot read valgrind's "
						      "profiles: %s", why ? why :
						      ERR_TEXT(-rc)) < 0)
					*cause = NULL;
				rc = -EIO;
				goto out;
			}
		}
		for (size_t i = 0; i < SIM_NEVENTS; i++)
			evs[base + i].total.value += st[k].v[i];
		if (t < 0) {
			unmatched++;
			continue;
		}
		for (size_t i = 0; i < SIM_NEVENTS; i++)
			run->threads[t].counts[base + i] = (struct db_count){ st[k].v[i], 1, 1, true };
		/* valgrind's tool names the tasks it runs ("callgrind-amd64"):
		 * a thread the program did not name is its program's */
		char *nm = run->threads[t].name;
		if (st[k].comm[0] && (!nm || !strncmp(nm, "callgrind-", 10))) {
			free(run->threads[t].name);
			run->threads[t].name = strdup(st[k].comm);
		}
	}
	if (unmatched) {
		char line[160];
		snprintf(line, sizeof(line), "simulated counts of %zu of %zu valgrind threads "
			 "are in the totals only: threads that ran one after another "
			 "share one", unmatched, n);
		note_add(run, line);
	}
	db_set_str(run, SET_COUNTER_SOURCE, "simulated");
	drop_valgrinds_modules(run);
	if (model)
		db_set_str(run, SET_SIM_MODEL, model);
	db_set_str(run, SET_SIM_CYCLES, sim_event_sources[SIM_CYCLES]);
	db_set_u64(run, SET_SIM_THREADS, n);
	free(model);
	free(family);
out:
	if (rc && fns) {
		run_sim_fns_free(*fns, *nfns);
		*fns = NULL;
		*nfns = 0;
	}
	dir_clean(s->dir);
	free(st);
	free(version);
	free(why);
	return rc;
}

const char *run_sim_events(const char *asked)
{
	return !strcmp(asked, "cache") ? RUN_SIM_EVENTS : asked;
}

char *run_sim_event_list(void)
{
	char list[256] = "";
	for (size_t i = 0; i < SIM_NEVENTS; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? "," : "", sim_event_names[i]);
	return strdup(list);
}

void run_sim_release(struct run_sim *s)
{
	if (s->dir) {
		dir_clean(s->dir);
		rmdir(s->dir);
	}
	sim_argv_free(s->argv);
	free(s->valgrind);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}
