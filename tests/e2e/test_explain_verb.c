/*
 * End-to-end tests of `prof explain`: findings from fixture databases
 * built here through db/ (stored experiments whose runs reproduce each
 * case our users measured, with the hardware counters a real PMU would
 * give), and the working-set case on this machine: one workload built at
 * 2 and 32 MiB of code, run as two arms of prof ab --working-set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "db/experiments.h"
#include "db/runs.h"
#include "test_util.h"

#define MiB (1024.0 * 1024.0)

static int setup(void **state)
{
	*state = tu_db_new("x.db");
	return 0;
}

static void expect(const char *out, const char *needle)
{
	if (!strstr(out, needle))
		fail_msg("expected %s in:\n%s", needle, out);
}

/* One side of a fixture: per-run values (a tiny deterministic jitter is
 * added per round so the statistics have a spread to work with). */
struct side_def {
	const char *name;
	double wall_s;
	double llc, itlb, l1i, branch;	/* misses per run */
	double instructions;
	double footprint;		/* code footprint, bytes */
	bool hw;			/* hardware counters supported */
	int pin_level;
	double pin_bytes;
	const char *cpu_model;
};

static const char *const ev_names[] = {
	"LLC-load-misses", "iTLB-load-misses", "L1-icache-load-misses",
	"branch-misses", "instructions", "cycles", "task-clock",
};

static void make_run(struct db_run *r, const struct side_def *s, int round)
{
	double j = 1.0 + 0.002 * ((round * 7 + (s->name[0] & 3)) % 5 - 2);
	tu_run_init(r, "ab", "2026-11-30T06:00:00Z", s->name, "fixture",
		    s->cpu_model ? s->cpu_model : "AMD Ryzen 9 5900X", 24);
	r->wall_s = s->wall_s * j;
	r->user_s = r->wall_s * 0.99;
	r->sys_s = r->wall_s * 0.01;
	r->pin.mode = strdup(s->pin_level ? "llc:0" : "none");
	r->pin.status = strdup(s->pin_level ? "applied" : "not requested");
	r->pin.level = s->pin_level;
	r->pin.size_bytes = (uint64_t)s->pin_bytes;
	r->pin.cpus = strdup(s->pin_level ? "0-5,12-17" : "0-23");
	double v[] = { s->llc, s->itlb, s->l1i, s->branch, s->instructions,
		       s->instructions * 0.8, r->wall_s * 1e9 };
	r->nevents = 7;
	r->events = calloc(7, sizeof(*r->events));
	for (size_t e = 0; e < 7; e++) {
		struct db_event *ev = &r->events[e];
		ev->name = strdup(ev_names[e]);
		bool hw = e < 6;
		ev->supported = hw ? s->hw : true;
		if (!ev->supported) {
			ev->reason = strdup("the kernel refused it: No such file or directory");
			continue;
		}
		uint64_t x = (uint64_t)(v[e] * (e == 6 ? 1.0 : j));
		ev->total = (struct db_count){ x, 1000, 1000, true };
	}
	r->nmodules = 1;
	r->modules = calloc(1, sizeof(*r->modules));
	r->modules[0].path = strdup("/opt/emu/module.so");
	r->modules[0].kind = strdup("file");
	r->modules[0].exec_bytes = (uint64_t)s->footprint;
	r->modules[0].nprocs = 1;
}

/* Store an experiment of 6 ABBA rounds; returns its id. */
static int64_t store_experiment(struct tu_db *f, const struct side_def *a,
				const struct side_def *b)
{
	struct db *db;
	char *cause = NULL;
	if (db_open(&db, f->path, &cause))
		fail_msg("%s", cause);
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	e.order = (char *)"abba";
	e.rounds = 6;
	e.gate_pct = 1.0;
	e.narms = 2;
	struct db_arm arms[2];
	memset(arms, 0, sizeof(arms));
	char *argv0[2][2] = { { (char *)a->name, NULL }, { (char *)b->name, NULL } };
	arms[0] = (struct db_arm){ (char *)a->name, (char *)a->name, argv0[0], 1, NULL, 0 };
	arms[1] = (struct db_arm){ (char *)b->name, (char *)b->name, argv0[1], 1, NULL, 0 };
	e.arms = arms;
	struct db_host host = { 0, "fixture", "6.18", "AMD Ryzen 9 5900X", 24 };
	assert_int_equal(db_experiment_create(db, &e, &host, &cause), 0);
	for (int r = 0; r < 6; r++) {
		for (int pos = 0; pos < 2; pos++) {
			int arm = (r & 1) ? 1 - pos : pos;
			struct db_run run;
			make_run(&run, arm ? b : a, r);
			assert_int_equal(db_experiment_add_run(db, e.id, &run, arm, r, pos,
								false, NULL, 0, &cause), 0);
			db_run_release(&run);
		}
	}
	assert_int_equal(db_experiment_finish(db, e.id, "complete", NULL, NULL), 0);
	db_close(db);
	return e.id;
}

static struct tu_proc explain(struct tu_db *f, int64_t id, const char *fmt)
{
	char ids[32] = "last";
	if (id > 0)
		snprintf(ids, sizeof(ids), "%" PRId64, id);
	char *argv[] = { PROF_BIN, f->dbarg, "explain", ids, "--format", (char *)fmt, NULL };
	return tu_run(argv, NULL);
}

/* Plain LLVM against SIM: the module shrinks 404 -> 166 MB; LLC -40%,
 * iTLB -50%, L1i -24%, branch misses flat. */
static const struct side_def llvm = {
	"llvm", 25.27, 5e8, 2e8, 25e8, 4e8, 1e11, 404 * MiB, true, 0, 0, NULL,
};
static const struct side_def sim = {
	"sim", 19.22, 3e8, 1e8, 19e8, 4e8, 1e11, 166 * MiB, true, 0, 0, NULL,
};
/* C against plain LLVM: branch misses -56%, iTLB +22%. */
static const struct side_def cgen = {
	"c", 30.3, 5e8, 1.64e8, 25e8, 9.1e8, 1e11, 380 * MiB, true, 0, 0, NULL,
};

static void test_explain__footprint_and_codegen_from_stored_experiments(void **state)
{
	struct tu_db *f = *state;
	int64_t id = store_experiment(f, &llvm, &sim);
	struct tu_proc p = explain(f, id, "json");
	assert_int_equal(p.status, 0);
	expect(p.out, "\"kind\": \"footprint\"");
	expect(p.out, "LLC misses -40.0%");
	expect(p.out, "iTLB misses -50.0%");
	assert_null(strstr(p.out, "\"kind\": \"codegen\""));
	tu_proc_release(&p);

	id = store_experiment(f, &cgen, &llvm);
	p = explain(f, id, "json");
	assert_int_equal(p.status, 0);
	expect(p.out, "\"kind\": \"codegen\"");
	expect(p.out, "branch misses -56.0%");
	expect(p.out, "iTLB misses +22.0%");
	assert_null(strstr(p.out, "\"kind\": \"footprint\""));
	tu_proc_release(&p);

	/* Markdown, as a pull request wants it. */
	p = explain(f, id, "markdown");
	expect(p.out, "**prof explain**: experiment");
	expect(p.out, "- **codegen**: code-generation effect");
	tu_proc_release(&p);
}

static void test_explain__cache_domains(void **state)
{
	struct tu_db *f = *state;
	/* The 5900X: two equal 32 MB L3 domains, pinning measures flat. */
	struct side_def a = llvm, b = llvm;
	a.name = "ccd0";
	b.name = "ccd1";
	a.pin_level = b.pin_level = 3;
	a.pin_bytes = b.pin_bytes = 32 * MiB;
	b.wall_s = a.wall_s * 1.014;
	int64_t id = store_experiment(f, &a, &b);
	struct tu_proc p = explain(f, id, "json");
	expect(p.out, "\"kind\": \"no-domain-effect\"");
	expect(p.out, "both sides ran in 32 MiB L3 domains: domain choice cannot matter "
		      "here; this says nothing about capacity");
	assert_null(strstr(p.out, "\"kind\": \"cache-domain\""));
	tu_proc_release(&p);

	/* The 9950X3D: 32 against 96 MB, faster with fewer LLC misses. */
	b.name = "x3d";
	b.pin_bytes = 96 * MiB;
	b.wall_s = a.wall_s * 0.8;
	b.llc = a.llc * 0.6;
	id = store_experiment(f, &a, &b);
	p = explain(f, id, "json");
	expect(p.out, "\"kind\": \"cache-domain\"");
	expect(p.out, "ccd0 ran in a 32 MiB L3 domain and x3d in 96 MiB");
	tu_proc_release(&p);
}

static void test_explain__missing_counters_claim_nothing(void **state)
{
	struct tu_db *f = *state;
	struct side_def a = llvm, b = sim;
	a.hw = b.hw = false;
	int64_t id = store_experiment(f, &a, &b);
	struct tu_proc p = explain(f, id, "json");
	assert_int_equal(p.status, 0);
	expect(p.out, "\"kind\": \"cannot-tell\"");
	expect(p.out, "LLC-load-misses, iTLB-load-misses, L1-icache-load-misses, "
		      "branch-misses are not supported on this machine");
	assert_null(strstr(p.out, "\"kind\": \"footprint\""));
	assert_null(strstr(p.out, "\"kind\": \"codegen\""));
	tu_proc_release(&p);
}

static void test_explain__two_runs_and_bad_input(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct side_def a = llvm, b = sim;
	b.cpu_model = "AMD Ryzen 9 9950X3D";
	struct db_run ra, rb;
	make_run(&ra, &a, 0);
	make_run(&rb, &b, 0);
	assert_int_equal(db_run_store(db, &ra, NULL), 0);
	assert_int_equal(db_run_store(db, &rb, NULL), 0);
	char ia[32], ib[32];
	snprintf(ia, sizeof(ia), "%" PRId64, ra.id);
	snprintf(ib, sizeof(ib), "%" PRId64, rb.id);
	db_run_release(&ra);
	db_run_release(&rb);
	db_close(db);
	char *argv[] = { PROF_BIN, f->dbarg, "explain", ia, ib, NULL };
	struct tu_proc p = tu_run(argv, NULL);
	assert_int_equal(p.status, 0);
	/* Different machines: named at the top. One run each: no claim. */
	expect(p.err, "different machines: AMD Ryzen 9 5900X and AMD Ryzen 9 9950X3D");
	expect(p.out, "warning: the sides ran on different machines");
	expect(p.out, "one run each, no noise estimate");
	assert_null(strstr(p.out, "[footprint]"));
	tu_proc_release(&p);

	char *bad[] = { PROF_BIN, f->dbarg, "explain", "999", NULL };
	p = tu_run(bad, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "no experiment 999");
	tu_proc_release(&p);
	char *bad2[] = { PROF_BIN, f->dbarg, "explain", ia, "998", NULL };
	p = tu_run(bad2, NULL);
	assert_int_equal(p.status, 2);
	expect(p.err, "no run 998");
	tu_proc_release(&p);
}

/* .text of a binary as size -A reports it. */
static bool size_text(const char *path, uint64_t *text)
{
	char *cmd;
	if (asprintf(&cmd, "size -A '%s' 2>/dev/null", path) < 0)
		return false;
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return false;
	char line[256];
	bool ok = false;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, ".text %" SCNu64, text) == 1)
			ok = true;
	pclose(p);
	return ok;
}

static double num_in(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	return p ? atof(p + strlen(key)) : NAN;
}

/* The working-set case on this machine, end to end. */
static void test_explain__generated_footprints_on_this_machine(void **state)
{
	struct tu_db *f = *state;
#if !defined(__x86_64__)
	skip();
#endif
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *small = HELPERS_DIR "/codefoot_small", *large = HELPERS_DIR "/codefoot_large";
	char *as, *al;
	assert_true(asprintf(&as, "small=%s", small) > 0);
	assert_true(asprintf(&al, "large=%s", large) > 0);
	char *ab[] = { PROF_BIN, f->dbarg, "ab", "--arm", as, "--arm", al,
		       "--working-set", "--rounds", "3", "--warmup", "0", NULL };
	struct tu_proc p = tu_run(ab, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	free(as);
	free(al);
	p = explain(f, 0, "json");
	assert_int_equal(p.status, 0);
	/* Module sizes within 1% of size -A (exact, in fact). */
	uint64_t ts, tl;
	assert_true(size_text(small, &ts));
	assert_true(size_text(large, &tl));
	const char *ms = strstr(p.out, "codefoot_small\"");
	const char *ml = strstr(p.out, "codefoot_large\"");
	assert_non_null(ms);
	assert_non_null(ml);
	double ts_got = num_in(ms, "\"text_bytes\": "), tl_got = num_in(ml, "\"text_bytes\": ");
	assert_true(fabs(ts_got - (double)ts) <= 0.01 * (double)ts);
	assert_true(fabs(tl_got - (double)tl) <= 0.01 * (double)tl);
	/* Touched code clearly larger for the large build: 30 MiB more. */
	const char *sides = strstr(p.out, "\"sides\"");
	double tc0 = num_in(sides, "\"touched_code_bytes\": ");
	const char *second = strstr(strstr(sides, "\"touched_code_bytes\": ") + 1,
				    "\"touched_code_bytes\": ");
	double tc1 = num_in(second, "\"touched_code_bytes\": ");
	assert_true(tc1 - tc0 > 28 * MiB);
	/* No hardware counters here: it says it cannot judge miss rates. */
	if (strstr(p.out, "\"metric\": \"LLC-load-misses\", \"supported\": false")) {
		expect(p.out, "\"kind\": \"cannot-tell\"");
		expect(p.out, "are not supported on this machine");
		assert_null(strstr(p.out, "\"kind\": \"footprint\""));
	}
	tu_proc_release(&p);
}

/* A sampled run: explain shows where its samples fall, by module. */
static void test_explain__where_the_samples_fall(void **state)
{
	struct tu_db *f = *state;
	if (!tu_perf_allowed(f->dbarg))
		skip();
	char *churn = HELPERS_DIR "/churn";
	/* Run 1 is tu_perf_allowed's probe; the record is run 2. */
	char *rec[] = { PROF_BIN, f->dbarg, "record", "-q", "--call-graph", "none", "--",
			churn, "40", "8000000", NULL };
	struct tu_proc p = tu_run(rec, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *run[] = { PROF_BIN, f->dbarg, "run", "-q", "-e", "task-clock", "--", churn,
			"40", "8000000", NULL };
	p = tu_run(run, NULL);
	assert_int_equal(p.status, 0);
	tu_proc_release(&p);
	char *ex[] = { PROF_BIN, f->dbarg, "explain", "2", "3", "--format", "json", NULL };
	p = tu_run(ex, NULL);
	assert_int_equal(p.status, 0);
	expect(p.out, "\"sampled_event\": \"cpu-clock\"");
	const char *sh = strstr(p.out, "\"sample_shares\": [");
	assert_non_null(sh);
	/* The churn workers spin in the churn binary itself. */
	expect(sh, "/churn\", \"pct\": ");
	assert_true(num_in(strstr(sh, "/churn\""), "\"pct\": ") > 50);
	tu_proc_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_explain__footprint_and_codegen_from_stored_experiments, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_explain__cache_domains, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_explain__missing_counters_claim_nothing, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_explain__two_runs_and_bad_input, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_explain__generated_footprints_on_this_machine, setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_explain__where_the_samples_fall, setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
