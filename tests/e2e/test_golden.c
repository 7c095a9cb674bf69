/*
 * Golden outputs of every verb: the built prof runs on a fixture database
 * (tests/fixture_db.h), on the fake sysfs trees and under a forced PMU,
 * once per variant and --format, and what it prints must match the file
 * under tests/fixtures/golden/ byte for byte. These pin down today's
 * output so that a refactor of the verbs changes no byte by accident,
 * and an intended change shows as a diff of these files in review.
 *
 * A golden file holds the verb's stdout; when the verb also wrote to
 * stderr or exited non-zero (a refused format, a usage error), a trailer
 * follows with both (see tests/fixtures/golden/README.md). Every case
 * runs with its working directory in a temporary folder holding the
 * database (fixture.db), pressure.db (a pressure experiment),
 * scenes.db (six experiments of the same arms) and hybrid.db (a run on
 * two core PMUs), all also from
 * tests/fixture_db.h, a copy of tests/fixtures/db/v1.db, and a link to
 * the sysfs trees, so no machine-specific path reaches the output.
 *
 * PROF_UPDATE_GOLDEN=1 rewrites the files (and removes those no case
 * writes any more): read the diff before committing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <limits.h>
#include <string.h>

#include "fixture_db.h"
#include "test_util.h"

#define GOLDEN_DIR FIXTURES_DIR "/golden"

/* The --format words, each with the extension of its golden file. */
enum { F_TABLE = 1, F_JSON = 2, F_CSV = 4, F_MD = 8, F_FOLDED = 16, F_SVG = 32 };
static const struct { const char *word, *ext; } formats[] = {
	{ "table", "txt" }, { "json", "json" }, { "csv", "csv" },
	{ "markdown", "md" }, { "folded", "folded" }, { "svg", "svg" },
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))
/* The four formats shared/DESIGN.md promises for every verb. */
#define F_TEXT (F_TABLE | F_JSON | F_CSV | F_MD)

#define ZEN4 "LIBPFM_FORCE_PMU=amd64_fam19h_zen4"

/*
 * One line per variant: the golden name (verb/variant), which formats to
 * run it in (one golden each, `--format WORD` appended; 0: as written,
 * into NAME.txt), prof's arguments after `--db fixture.db` (split on
 * spaces), and an environment entry. Runs 1-6 of fixture.db are counted,
 * incomplete, attach, working set, record, sleep; experiments 1-3 are
 * the A/A, the A/B and the three-arm one; run 35 is a probe, run 36 a
 * build's process tree, run 37 a game with intervals and frames.
 * pressure.db holds one pressure experiment of made-up values, scenes.db
 * six experiments of `base` against `new` (made up too), hybrid.db one
 * run of a hybrid CPU counted per core PMU (made up: no such CPU here).
 */
static const struct golden_case {
	const char *name;
	unsigned formats;
	const char *args;
	const char *env;
} cases[] = {
	{ "help/prof", 0, "help", NULL },
	{ "help/run", 0, "help run", NULL },
	{ "help/record", 0, "help record", NULL },
	{ "help/runs", 0, "help runs", NULL },
	{ "help/report", 0, "help report", NULL },
	{ "help/ab", 0, "help ab", NULL },
	{ "help/pressure", 0, "help pressure", NULL },
	{ "help/screen", 0, "help screen", NULL },
	{ "help/compare", 0, "help compare", NULL },
	{ "help/summary", 0, "help summary", NULL },
	{ "help/import", 0, "help import", NULL },
	{ "help/explain", 0, "help explain", NULL },
	{ "help/topo", 0, "help topo", NULL },
	{ "help/sleep", 0, "help sleep", NULL },
	{ "help/probe", 0, "help probe", NULL },
	{ "help/events", 0, "help events", NULL },
	{ "help/modules", 0, "help modules", NULL },
	{ "help/help", 0, "help help", NULL },
	{ "help/html", 0, "help html", NULL },
	{ "help/report-dash-help", 0, "report --help", NULL },
	{ "help/unknown-verb", 0, "frobnicate", NULL },
	{ "help/ambiguous-verb", 0, "r", NULL },

	/* Launching verbs: only what they refuse before launching anything;
	 * their reports are the ones report and compare print below. */
	{ "run/refuses-folded", 0, "run --format folded -- true", NULL },
	{ "ab/refuses-folded", 0, "ab --format folded --arm a=true --arm b=true", NULL },
	{ "sleep/refuses-folded", 0, "sleep --format folded", NULL },

	{ "runs/list", F_TEXT, "runs", NULL },
	{ "runs/v1-migrated", F_TEXT, "runs --db v1.db", NULL },
	{ "runs/sort-limit", F_TEXT, "runs --sort wall_s --limit 3", NULL },
	{ "runs/all", F_TABLE | F_CSV, "runs --all", NULL },
	{ "runs/filtered", F_TABLE | F_JSON,
	  "runs --kind run,record --since 2026-11-30T06:00", NULL },
	{ "runs/arm", F_TABLE, "runs --tag sim --sort wall_s", NULL },
	{ "runs/bad-kind", F_TABLE, "runs --kind rn", NULL },

	{ "report/counted-by-thread", F_TEXT | F_FOLDED | F_SVG, "report 1", NULL },
	/* -v: the machine's notes (mission map, refusals, hints) in full */
	{ "report/counted-by-thread-verbose", F_TABLE | F_MD, "-v report 1", NULL },
	{ "report/counted-by-name", F_TEXT, "report 1 --by name", NULL },
	{ "report/counted-by-total", F_TEXT, "report 1 --by total", NULL },
	{ "report/counted-sort-limit", F_TEXT, "report 1 --sort task-clock --limit 2",
	  NULL },
	{ "report/counted-bad-sort", F_TABLE, "report 1 --sort bogus", NULL },
	{ "report/intervals-and-by", 0, "report 37 --intervals --by name", NULL },
	{ "report/frames-and-system", 0, "report 37 --frames --system", NULL },
	{ "report/event-of-counts", 0, "report 1 --event task-clock", NULL },
	{ "report/counted-by-symbol", F_TABLE, "report 1 --by symbol", NULL },
	{ "report/counted-stacks", F_TABLE, "report 1 --stacks", NULL },
	{ "report/incomplete", F_TEXT, "report 2", NULL },
	{ "report/attach", F_TEXT, "report 3", NULL },
	{ "report/working-set", F_TEXT, "report 4", NULL },
	{ "report/record-by-symbol", F_TEXT | F_FOLDED | F_SVG, "report 5", NULL },
	{ "report/record-icicle", F_SVG, "report 5 --icicle", NULL },
	{ "report/record-by-module", F_TEXT | F_FOLDED, "report 5 --by module", NULL },
	{ "report/record-by-thread", F_TEXT | F_FOLDED, "report 5 --by thread", NULL },
	{ "report/record-by-name", F_TEXT, "report 5 --by name", NULL },
	{ "report/record-by-total", F_TEXT | F_FOLDED, "report 5 --by total", NULL },
	{ "report/record-stacks", F_TEXT | F_FOLDED, "report 5 --stacks", NULL },
	{ "report/record-stacks-limit", F_TEXT, "report 5 --stacks --limit 2", NULL },
	{ "report/record-no-demangle", F_TABLE | F_JSON | F_FOLDED, "report 5 --no-demangle",
	  NULL },
	{ "report/record-page-faults", F_TEXT | F_FOLDED | F_SVG,
	  "report 5 --event page-faults",
	  NULL },
	{ "report/record-module-limit", F_TEXT,
	  "report 5 --by module --event cpu-clock --limit 2", NULL },
	{ "report/record-no-such-event", F_TABLE, "report 5 --event cycles", NULL },
	{ "report/sleep", F_TEXT | F_SVG, "report 6", NULL },
	{ "report/probe", F_TEXT | F_SVG, "report 35", NULL },
	{ "report/process", F_TEXT, "report 36 --by process", NULL },
	{ "report/process-sort-limit", F_TABLE | F_JSON,
	  "report 36 --by process --sort threads --limit 2", NULL },
	{ "report/tree", F_TEXT, "report 36 --tree", NULL },
	{ "report/tree-sort", F_TABLE | F_CSV, "report 36 --tree --sort page-faults",
	  NULL },
	{ "report/tree-limit", F_TABLE, "report 36 --tree --limit 2", NULL },
	{ "report/tree-by-name", F_TABLE, "report 36 --tree --by name", NULL },
	{ "report/counted-by-process", F_TABLE | F_JSON, "report 1 --by process", NULL },
	{ "report/frames", F_TEXT | F_SVG, "report 37 --frames", NULL },
	{ "report/intervals", F_TABLE | F_JSON | F_SVG, "report 37 --intervals", NULL },
	{ "report/last", F_TABLE, "report last", NULL },
	{ "report/no-such-run", F_TABLE, "report 99", NULL },
	{ "report/v1-migrated", F_TEXT, "report 1 --db v1.db", NULL },
	{ "report/hybrid", F_TEXT, "report 1 --db hybrid.db", NULL },

	{ "modules/working-set", F_TEXT, "modules 4", NULL },
	{ "modules/none-recorded", F_TEXT, "modules 1", NULL },
	{ "modules/experiment-run", F_TABLE, "modules 15", NULL },
	{ "modules/sort-limit", F_TABLE | F_JSON, "modules 4 --sort text_bytes:asc --limit 2",
	  NULL },

	{ "compare/list", F_TEXT | F_SVG, "compare", NULL },
	{ "compare/aa", F_TEXT | F_SVG, "compare 1", NULL },
	{ "compare/ab", F_TEXT | F_SVG, "compare 2", NULL },
	{ "compare/ab-gate", F_TABLE | F_JSON | F_SVG, "compare 2 --gate 5", NULL },
	{ "compare/ab-metric", F_TABLE | F_JSON, "compare 2 --gate 5 --metric branch-misses.pki "
	  "--metric wall_s", NULL },
	{ "compare/bad-metric", F_TABLE, "compare 2 --metric no-such", NULL },
	{ "compare/three-arms", F_TEXT | F_SVG, "compare 3", NULL },
	{ "compare/by-name", F_TEXT, "compare 2 --by name", NULL },
	{ "compare/two-runs", F_TEXT | F_SVG, "compare 1 4", NULL },
	{ "compare/no-such-experiment", F_TABLE, "compare 9", NULL },
	{ "compare/pressure", F_TEXT | F_SVG, "compare 1 --db pressure.db", NULL },

	{ "summary/scenes", F_TEXT, "summary 1-6 --db scenes.db", NULL },
	{ "summary/metric-arm", F_TABLE | F_JSON,
	  "summary 1 2 3 --arm new --metric fps --metric LLC-load-misses --db scenes.db",
	  NULL },
	{ "summary/arms-differ", F_TABLE, "summary 1 2", NULL },
	{ "summary/list", F_TABLE, "summary 1,2-3 --arm new --db scenes.db", NULL },
	{ "summary/bad-list", F_TABLE, "summary 1,,3 --db scenes.db", NULL },

	{ "html/counted", 0, "html 1", NULL },
	{ "html/sleep", 0, "html 6", NULL },
	{ "html/probe", 0, "html 35", NULL },
	{ "html/frames-intervals", 0, "html 37", NULL },
	{ "html/experiment", 0, "html --experiment 2", NULL },
	{ "html/run-and-experiment", 0, "html 1 --experiment 2", NULL },
	{ "html/pressure", 0, "html --experiment 1 --db pressure.db", NULL },
	{ "html/no-such-run", 0, "html 99", NULL },
	{ "html/no-such-experiment", 0, "html --experiment 9", NULL },

	{ "explain/ab", F_TEXT, "explain 2", NULL },
	{ "explain/three-arms", F_TABLE | F_JSON,
	  "explain 3 --arm icx --baseline clang", NULL },
	{ "explain/two-runs", F_TEXT, "explain 1 4", NULL },
	{ "explain/record-and-run", F_TEXT, "explain 5 1", NULL },

	{ "topo/asym-x3d", F_TEXT, "topo --sysfs sysfs/asym-x3d", NULL },
	{ "topo/sym-2ccd", F_TABLE | F_JSON, "topo --sysfs sysfs/sym-2ccd", NULL },
	{ "topo/hybrid", F_TABLE | F_JSON, "topo --sysfs sysfs/hybrid", NULL },
	{ "topo/no-l3", F_TABLE | F_JSON, "topo --sysfs sysfs/no-l3", NULL },
	{ "topo/two-socket", F_TABLE | F_JSON, "topo --sysfs sysfs/two-socket", NULL },
	{ "topo/malformed", F_TEXT, "topo --sysfs sysfs/malformed", NULL },
	{ "topo/offline-cpu", F_TABLE | F_JSON, "topo --sysfs sysfs/offline-cpu", NULL },
	{ "topo/no-l2", F_TABLE | F_JSON, "topo --sysfs sysfs/no-l2", NULL },

	{ "events/zen4-miss", F_TEXT, "events miss", ZEN4 },
	{ "events/zen4-no-match", F_TABLE, "events nosuchevent", ZEN4 },
	{ "events/zen4-attr", F_TEXT,
	  "events --attr amd64_fam19h_zen4::RETIRED_INSTRUCTIONS", ZEN4 },
	{ "events/zen4-attr-user", 0, "events --attr RETIRED_INSTRUCTIONS:u", ZEN4 },
	{ "events/skl-itlb", F_TABLE | F_JSON, "events itlb", "LIBPFM_FORCE_PMU=skl" },
	{ "events/zen4-mission", F_TEXT, "events --mission", ZEN4 },
	{ "events/spr-mission", F_TABLE, "events --mission", "LIBPFM_FORCE_PMU=spr" },
	/* a raw family: libpfm4 names no PMU of the map, the CPU's identity
	 * (a Zen 5's cpuinfo) finds it */
	{ "events/zen5-mission", F_TABLE | F_JSON, "events --mission",
	  "LIBPFM_FORCE_PMU=perf PROF_CPUID_ROOT=" FIXTURES_DIR "/cpuid/zen5" },
	{ "events/zen1-mission", F_TEXT, "events --mission",
	  "LIBPFM_FORCE_PMU=amd64_fam17h_zen1" },
	{ "events/zen4-attr-llc", 0, "events --attr llc-misses", ZEN4 },
	{ "events/attr-and-pattern", 0, "events miss --attr llc-misses", ZEN4 },
	{ "events/skl-attr-l1i", 0, "events --attr l1i-misses:u",
	  "LIBPFM_FORCE_PMU=skl" },
	{ "events/zen1-attr-llc", 0, "events --attr llc-misses",
	  "LIBPFM_FORCE_PMU=amd64_fam17h_zen1" },
	{ "events/unknown-pmu", 0, "events miss", "LIBPFM_FORCE_PMU=skylake" },
	/* The kernel's PMUs, from the fake trees of tests/fixtures/sysfs-pmu. */
	{ "events/pmus-hybrid", F_TEXT, "events --pmus --sysfs sysfs-pmu/intel-hybrid",
	  NULL },
	{ "events/pmus-big-little", F_TABLE | F_JSON,
	  "events --pmus --sysfs sysfs-pmu/arm64-big-little", NULL },
	{ "events/pmus-none", F_TABLE | F_JSON, "events --pmus --sysfs sysfs-pmu/no-pmu",
	  NULL },
	{ "events/pmus-bad-root", 0, "events --pmus --sysfs sysfs-pmu/no-such-case",
	  NULL },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* One run of prof: a case in one format (fmt < 0: as written). */
struct golden_run {
	const struct golden_case *c;
	int fmt;
	char name[160];		/* verb/variant.ext, under GOLDEN_DIR */
};

static char *workdir, *startdir;

static int setup_group(void **state)
{
	(void)state;
	startdir = getcwd(NULL, 0);
	workdir = tu_tmpdir();
	char *db, *cmd;
	if (asprintf(&db, "%s/fixture.db", workdir) < 0)
		return -1;
	fixture_db_build(db);
	free(db);
	if (asprintf(&db, "%s/pressure.db", workdir) < 0)
		return -1;
	fixture_pressure_db_build(db);
	free(db);
	if (asprintf(&db, "%s/scenes.db", workdir) < 0)
		return -1;
	fixture_scenes_db_build(db);
	free(db);
	if (asprintf(&db, "%s/hybrid.db", workdir) < 0)
		return -1;
	fixture_hybrid_db_build(db);
	free(db);
	if (asprintf(&cmd, "cp '%s/db/v1.db' '%s/v1.db' && ln -s '%s/sysfs' '%s/sysfs'"
		     " && ln -s '%s/sysfs-pmu' '%s/sysfs-pmu'",
		     FIXTURES_DIR, workdir, FIXTURES_DIR, workdir, FIXTURES_DIR,
		     workdir) < 0)
		return -1;
	int rc = system(cmd);
	free(cmd);
	if (rc != 0 || chdir(workdir) != 0)
		return -1;
	return 0;
}

static int teardown_group(void **state)
{
	(void)state;
	if (startdir && chdir(startdir) != 0)
		fprintf(stderr, "warning: cannot go back to %s\n", startdir);
	tu_rmrf(workdir);
	free(workdir);
	free(startdir);
	return 0;
}

static bool updating(void)
{
	const char *u = getenv("PROF_UPDATE_GOLDEN");
	return u && *u == '1';
}

/* The bytes a golden file holds: stdout, then stderr and the exit
 * status when there was either. */
static char *golden_text(const struct tu_proc *p)
{
	char *s;
	if (p->status == 0 && !*p->err)
		return strdup(p->out);
	size_t n = strlen(p->out);
	const char *nl = n && p->out[n - 1] != '\n' ? "\n" : "";
	const char *enl = *p->err && p->err[strlen(p->err) - 1] != '\n' ? "\n" : "";
	if (asprintf(&s, "%s%s== stderr ==\n%s%s== exit %d ==\n", p->out, nl, p->err,
		     enl, p->status) < 0)
		abort();
	return s;
}

static void write_file(const char *path, const char *text)
{
	char *dir = strdup(path);
	*strrchr(dir, '/') = '\0';
	mkdir(dir, 0755);
	free(dir);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* Print a unified diff of want (a file) against got. */
static void show_diff(const char *want_path, const char *got)
{
	char tmp[] = "/tmp/prof-golden-got-XXXXXX";
	int fd = mkstemp(tmp);
	if (fd < 0)
		return;
	size_t n = strlen(got);
	if (write(fd, got, n) != (ssize_t)n)
		fprintf(stderr, "warning: short write to %s\n", tmp);
	close(fd);
	char *cmd;
	if (asprintf(&cmd, "diff -u --label 'golden %s' --label 'prof now' '%s' '%s' >&2",
		     want_path, want_path, tmp) >= 0) {
		if (system(cmd) == -1)
			fprintf(stderr, "cannot run diff\n");
		free(cmd);
	}
	unlink(tmp);
}

static void test_golden__case(void **state)
{
	const struct golden_run *g = *state;
	char *argv[32];
	size_t n = 0;
	argv[n++] = PROF_BIN;
	argv[n++] = "--db";
	argv[n++] = "fixture.db";
	char *words = strdup(g->c->args), *save = NULL;
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		assert_true(n < 28);
		argv[n++] = w;
	}
	if (g->fmt >= 0) {
		argv[n++] = "--format";
		argv[n++] = (char *)formats[g->fmt].word;
	}
	argv[n] = NULL;
	/* env: one or more NAME=VALUE, a space apart */
	char *envs = g->c->env ? strdup(g->c->env) : NULL, *env[4] = { NULL };
	size_t ne = 0;
	for (char *e = envs ? strtok(envs, " ") : NULL; e && ne < 3; e = strtok(NULL, " "))
		env[ne++] = e;
	struct tu_proc p = tu_run(argv, g->c->env ? env : NULL);
	free(envs);
	free(words);
	char *got = golden_text(&p);
	tu_proc_release(&p);

	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, g->name);
	if (updating())
		write_file(path, got);
	char *want = tu_slurp(path);
	if (!want) {
		free(got);
		fail_msg("no golden file %s (run with PROF_UPDATE_GOLDEN=1)", path);
	}
	/* Made under a forced PMU this libpfm4 does not have (an x86 one
	 * in an arm64 build): nothing here to compare it with. */
	static const char unknown_pmu[] = "a PMU this libpfm4 does not know";
	if (g->c->env && strstr(got, unknown_pmu) && !strstr(want, unknown_pmu)) {
		fprintf(stderr, "skip: %s: %s here\n", g->c->env, unknown_pmu);
		free(want);
		free(got);
		skip();
	}
	if (strcmp(want, got)) {
		show_diff(path, got);
		free(want);
		free(got);
		fail_msg("prof's output differs from %s (diff above; if the change is "
			 "meant, rerun with PROF_UPDATE_GOLDEN=1 and review the diff)",
			 path);
	}
	free(want);
	free(got);
}

static bool claimed(const struct golden_run *runs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(runs[i].name, name))
			return true;
	return false;
}

/* Golden files that no case writes: a renamed or dropped case. Removed
 * when updating, else a failure. */
static void test_golden__no_stale_files(void **state)
{
	const struct golden_run *runs = *state;
	size_t nruns = 0;
	while (runs[nruns].c)
		nruns++;
	DIR *top = opendir(GOLDEN_DIR);
	assert_non_null(top);
	size_t stale = 0;
	struct dirent *d;
	while ((d = readdir(top))) {
		char *sub;
		struct stat sb;
		assert_true(asprintf(&sub, "%s/%s", GOLDEN_DIR, d->d_name) > 0);
		if (d->d_name[0] == '.' || stat(sub, &sb) || !S_ISDIR(sb.st_mode)) {
			free(sub);
			continue;
		}
		DIR *dir = opendir(sub);
		assert_non_null(dir);
		struct dirent *f;
		while ((f = readdir(dir))) {
			if (f->d_name[0] == '.')
				continue;
			char name[PATH_MAX];
			snprintf(name, sizeof(name), "%s/%s", d->d_name, f->d_name);
			if (claimed(runs, nruns, name))
				continue;
			char *path;
			assert_true(asprintf(&path, "%s/%s", sub, f->d_name) > 0);
			if (updating()) {
				fprintf(stderr, "removing %s: no case writes it\n", path);
				unlink(path);
			} else {
				fprintf(stderr, "stale golden file %s: no case writes it\n", path);
				stale++;
			}
			free(path);
		}
		closedir(dir);
		free(sub);
	}
	closedir(top);
	if (stale)
		fail_msg("%zu golden files belong to no case (PROF_UPDATE_GOLDEN=1 "
			 "removes them)", stale);
}

int main(void)
{
	/* One cmocka test per (case, format), named after its golden file. */
	size_t nruns = 0;
	for (size_t i = 0; i < NCASES; i++)
		nruns += cases[i].formats ? (size_t)__builtin_popcount(cases[i].formats) : 1;
	struct golden_run *runs = calloc(nruns + 1, sizeof(*runs));
	struct CMUnitTest *tests = calloc(nruns + 1, sizeof(*tests));
	char (*names)[192] = calloc(nruns + 1, sizeof(*names));
	size_t k = 0;
	for (size_t i = 0; i < NCASES; i++) {
		for (int f = cases[i].formats ? 0 : -1; f < (int)NFORMATS; f++) {
			if (f >= 0 && !(cases[i].formats & (1u << f)))
				continue;
			runs[k].c = &cases[i];
			runs[k].fmt = f;
			snprintf(runs[k].name, sizeof(runs[k].name), "%s.%s", cases[i].name,
				 f >= 0 ? formats[f].ext : "txt");
			snprintf(names[k], sizeof(names[k]), "test_golden__%s", runs[k].name);
			tests[k] = (struct CMUnitTest){ .name = names[k],
				.test_func = test_golden__case, .initial_state = &runs[k] };
			k++;
			if (f < 0)
				break;
		}
	}
	tests[k] = (struct CMUnitTest){ .name = "test_golden__no_stale_files",
		.test_func = test_golden__no_stale_files, .initial_state = runs };
	int rc = _cmocka_run_group_tests("test_golden", tests, k + 1, setup_group,
					 teardown_group);
	free(names);
	free(tests);
	free(runs);
	return rc;
}
