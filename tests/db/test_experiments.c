/*
 * Tests for db/experiments: an experiment stored run by run and loaded
 * back is what went in (arms, settings, the place of every run, its
 * counts and scores); the newest is found, an absent one is refused; the
 * list and the A/A lookup see what `prof ab` and `prof compare` need; a
 * pressure experiment keeps its kind and each run's co-runner settings,
 * and is found by its command for `prof explain`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/db.h"
#include "db/experiments.h"
#include "db/runs.h"
#include "test_util.h"

/* Where each run of the stored experiment went: one warm-up round, then
 * rounds 0 (a, b) and 1 (b, a); the last run failed (exit 3) and the one
 * before printed no fps. */
static const struct {
	int arm, round, pos;
	bool warm;
	int exit_status;
	bool fps_found;
} plan[] = {
	{ 0, 0, 0, true, 0, true },   { 1, 0, 1, true, 0, true },
	{ 0, 0, 0, false, 0, true },  { 1, 0, 1, false, 0, true },
	{ 1, 1, 0, false, 0, false }, { 0, 1, 1, false, 3, true },
};
#define NPLAN (sizeof(plan) / sizeof(plan[0]))

static struct db_host host = { 0, "vm", "6.18", "AMD EPYC", 2 };

/* Run i: task-clock counted for half the time it was enabled (so loaded
 * scaled: 2 * value), cycles refused. */
static void make_run(struct db_run *r, size_t i)
{
	tu_run_init(r, "ab", "2026-12-01T08:00:00Z",
		    plan[i].arm ? "./emu --fast" : "./emu", "vm", "AMD EPYC", 2);
	r->exit_status = plan[i].exit_status;
	r->wall_s = 1.0 + 0.25 * (double)i;
	r->user_s = 0.5 + 0.125 * (double)i;
	r->sys_s = 0.0625;
	r->nevents = 2;
	r->events = calloc(2, sizeof(*r->events));
	r->events[0].name = strdup("task-clock");
	r->events[0].supported = true;
	r->events[0].total = (struct db_count){ 1000 + i, 200, 100, true };
	r->events[1].name = strdup("cycles");
	r->events[1].supported = false;
	r->events[1].reason = strdup("no hardware PMU");
}

static double fps_of(size_t i)
{
	return plan[i].arm ? 60.5 : 30.25;
}

/* Store the experiment; run ids into ids[NPLAN]. Returns its id. */
static int64_t store(struct db *db, bool aa, double gate, int64_t *ids)
{
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	e.order = "abba";
	e.seed = 42;
	e.rounds = 2;
	e.warmup = 1;
	e.settle_s = 0.25;
	e.gate_pct = gate;
	e.aa = aa;
	e.keep_going = true;
	struct db_kv settings[] = { { "score", "fps=FPS ([0-9.]+):higher" },
				    { "events", "task-clock,cycles" } };
	e.settings = settings;
	e.nsettings = 2;
	char *argv_a[] = { "./emu", NULL }, *argv_b[] = { "./emu", "--fast", NULL };
	struct db_kv pin = { "pin", "cpus:1" };
	struct db_arm arms[] = { { "a", "./emu", argv_a, 1, &pin, 1 },
				 { "b", "./emu --fast", argv_b, 2, NULL, 0 } };
	e.arms = arms;
	e.narms = 2;
	char *cause = NULL;
	if (db_experiment_create(db, &e, &host, &cause))
		fail_msg("create: %s", cause);
	assert_true(e.id > 0);
	for (size_t i = 0; i < NPLAN; i++) {
		struct db_run r;
		make_run(&r, i);
		struct db_score sc[] = { { "fps", fps_of(i), plan[i].fps_found },
					 { "latency", 1.5, true } };
		if (db_experiment_add_run(db, e.id, &r, plan[i].arm, plan[i].round,
					  plan[i].pos, plan[i].warm, sc, 2, &cause))
			fail_msg("run %zu: %s", i, cause);
		ids[i] = r.id;
		db_run_release(&r);
	}
	return e.id;
}

static void test_experiments__stored_and_reloaded_equal(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	int64_t ids[NPLAN];
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	int64_t id = store(db, false, 2.5, ids);
	assert_int_equal(db_experiment_finish(db, id, "stopped", "a run failed", NULL), 0);

	struct db_experiment e;
	if (db_experiment_load(db, id, &e, &cause))
		fail_msg("load: %s", cause);
	assert_int_equal(e.id, id);
	assert_string_equal(e.hostname, "vm");
	assert_string_equal(e.cpu_model, "AMD EPYC");
	assert_int_equal(strlen(e.started), strlen("2026-12-01T08:00:00Z"));
	assert_non_null(e.finished);
	assert_string_equal(e.status, "stopped");
	assert_string_equal(e.note, "a run failed");
	assert_string_equal(e.order, "abba");
	assert_int_equal(e.seed, 42);
	assert_int_equal(e.rounds, 2);
	assert_int_equal(e.warmup, 1);
	assert_true(e.settle_s == 0.25);
	assert_true(e.gate_pct == 2.5);
	assert_false(e.aa);
	assert_true(e.keep_going);
	/* The two given, then who made it (a live process: this one). */
	assert_int_equal(e.nsettings, 2 + 5);
	assert_string_equal(e.settings[0].key, "score");
	assert_string_equal(e.settings[0].value, "fps=FPS ([0-9.]+):higher");
	assert_string_equal(e.settings[1].key, "events");
	assert_string_equal(e.settings[1].value, "task-clock,cycles");
	char pid[24];
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	assert_string_equal(db_kv_get(e.settings, e.nsettings, "owner.pid"), pid);
	assert_non_null(db_kv_get(e.settings, e.nsettings, "owner.start"));
	assert_non_null(db_kv_get(e.settings, e.nsettings, "owner.boot"));

	assert_int_equal(e.narms, 2);
	assert_string_equal(e.arms[0].name, "a");
	assert_string_equal(e.arms[0].command, "./emu");
	assert_int_equal(e.arms[0].argc, 1);
	assert_string_equal(e.arms[0].argv[0], "./emu");
	assert_null(e.arms[0].argv[1]);
	assert_int_equal(e.arms[0].nsettings, 1);
	assert_string_equal(e.arms[0].settings[0].key, "pin");
	assert_string_equal(e.arms[0].settings[0].value, "cpus:1");
	assert_string_equal(e.arms[1].name, "b");
	assert_string_equal(e.arms[1].command, "./emu --fast");
	assert_int_equal(e.arms[1].argc, 2);
	assert_string_equal(e.arms[1].argv[1], "--fast");
	assert_int_equal(e.arms[1].nsettings, 0);

	/* Every run, in the order it ran, where it ran, with what it counted. */
	assert_int_equal(e.nruns, NPLAN);
	for (size_t i = 0; i < NPLAN; i++) {
		const struct db_exp_run *x = &e.runs[i];
		assert_int_equal(x->run_id, ids[i]);
		assert_int_equal(x->arm, plan[i].arm);
		assert_int_equal(x->round, plan[i].round);
		assert_int_equal(x->position, plan[i].pos);
		assert_int_equal(x->warmup, plan[i].warm);
		assert_int_equal(x->exit_status, plan[i].exit_status);
		assert_false(x->interrupted);
		assert_true(x->wall_s == 1.0 + 0.25 * (double)i);
		assert_true(x->user_s == 0.5 + 0.125 * (double)i);
		assert_true(x->sys_s == 0.0625);
		assert_int_equal(x->nevents, 2);
		assert_string_equal(x->ev_names[0], "task-clock");
		assert_true(x->ev_supported[0]);
		/* running 100 of 200 enabled: scaled to twice the count */
		assert_true(x->ev_values[0] == 2.0 * (double)(1000 + i));
		assert_string_equal(x->ev_names[1], "cycles");
		assert_false(x->ev_supported[1]);
		assert_true(isnan(x->ev_values[1]));
		/* Scores come back by name. */
		assert_int_equal(x->nscores, 2);
		assert_string_equal(x->scores[0].name, "fps");
		assert_int_equal(x->scores[0].found, plan[i].fps_found);
		if (plan[i].fps_found)
			assert_true(x->scores[0].value == fps_of(i));
		assert_string_equal(x->scores[1].name, "latency");
		assert_true(x->scores[1].value == 1.5);
	}
	db_experiment_release(&e);
	db_close(db);
}

static void test_experiments__newest_absent_and_no_gate(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	int64_t ids[NPLAN];
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	struct db_experiment e;
	/* None stored: the newest is absent, and the cause says how to fix it. */
	assert_int_equal(db_experiment_load(db, 0, &e, &cause), -ENOENT);
	assert_non_null(strstr(cause, "no experiments stored"));
	free(cause);
	cause = NULL;
	int64_t first = store(db, false, 2.5, ids);
	int64_t second = store(db, false, NAN, ids);
	assert_true(second > first);
	assert_int_equal(db_experiment_load(db, 0, &e, NULL), 0);
	assert_int_equal(e.id, second);
	assert_string_equal(e.status, "running");
	assert_null(e.finished);
	assert_true(isnan(e.gate_pct));	/* no --gate stays no --gate */
	db_experiment_release(&e);
	assert_int_equal(db_experiment_load(db, second + 1, &e, &cause), -ENOENT);
	assert_non_null(strstr(cause, "no experiment"));
	free(cause);
	db_close(db);
}

static void test_experiments__list_and_latest_aa(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	int64_t ids[NPLAN];
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	int64_t ab = store(db, false, NAN, ids);
	int64_t aa_running = store(db, true, NAN, ids);
	int64_t host_id = 0;
	struct db_experiment e;
	assert_int_equal(db_experiment_load(db, ab, &e, NULL), 0);
	host_id = e.host_id;
	db_experiment_release(&e);
	/* Only a complete A/A experiment measures a gate. */
	assert_int_equal(db_experiment_latest_aa(db, host_id, "./emu", NULL), 0);
	assert_int_equal(db_experiment_finish(db, ab, "complete", NULL, NULL), 0);
	assert_int_equal(db_experiment_finish(db, aa_running, "complete", NULL, NULL), 0);
	assert_int_equal(db_experiment_latest_aa(db, host_id, "./emu", NULL), aa_running);
	assert_int_equal(db_experiment_latest_aa(db, host_id, "./other", NULL), 0);
	assert_int_equal(db_experiment_latest_aa(db, host_id + 1, "./emu", NULL), 0);

	struct db_experiment_summary *v;
	size_t n;
	assert_int_equal(db_experiments_list(db, &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].id, ab);
	assert_false(v[0].aa);
	assert_int_equal(v[1].id, aa_running);
	assert_true(v[1].aa);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(v[i].status, "complete");
		assert_int_equal(v[i].rounds, 2);
		assert_int_equal(v[i].narms, 2);
		assert_int_equal(v[i].nruns, NPLAN);
		assert_string_equal(v[i].arms, "a, b");
	}
	db_experiments_list_free(v, n);
	db_close(db);
}

/* A pressure experiment of command cmd: one arm, one run with the
 * co-runner's settings. */
static int64_t store_pressure(struct db *db, const char *cmd, int64_t *run_id)
{
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	e.kind = DB_EXP_KIND_PRESSURE;
	e.order = "abba";
	e.rounds = 1;
	e.gate_pct = NAN;
	char *argv[] = { (char *)cmd, NULL };
	struct db_kv as[] = { { "pressure.role", "control" },
			      { "pressure.workload", "emu" } };
	struct db_arm arm = { "emu@control", (char *)cmd, argv, 1, as, 2 };
	e.arms = &arm;
	e.narms = 1;
	char *cause = NULL;
	if (db_experiment_create(db, &e, &host, &cause))
		fail_msg("create: %s", cause);
	struct db_run r;
	tu_run_init(&r, "pressure", "2026-12-01T08:00:00Z", cmd, "vm", "AMD EPYC", 2);
	db_set_text(&r, SET_CORUNNER_NS_PER_LINE, "4.25");
	db_set_f64(&r, SET_CORUNNER_HELD_BYTES, 1048576);
	if (db_experiment_add_run(db, e.id, &r, 0, 0, 0, false, NULL, 0, &cause))
		fail_msg("run: %s", cause);
	*run_id = r.id;
	db_run_release(&r);
	return e.id;
}

static void test_experiments__pressure_kind_and_run_settings(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	int64_t ids[NPLAN], run_id;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	int64_t ab = store(db, false, NAN, ids);
	int64_t p = store_pressure(db, "./emu", &run_id);
	struct db_experiment e;
	assert_int_equal(db_experiment_load(db, ab, &e, NULL), 0);
	assert_string_equal(e.kind, "ab");	/* what prof ab leaves unset */
	int64_t host_id = e.host_id;
	db_experiment_release(&e);
	assert_int_equal(db_experiment_load(db, p, &e, NULL), 0);
	assert_string_equal(e.kind, "pressure");
	assert_int_equal(e.nruns, 1);
	assert_int_equal(e.runs[0].run_id, run_id);
	assert_string_equal(db_exp_run_setting(&e.runs[0], SET_CORUNNER_NS_PER_LINE), "4.25");
	assert_string_equal(db_exp_run_setting(&e.runs[0], SET_CORUNNER_HELD_BYTES),
			    "1048576");
	assert_null(db_exp_run_setting(&e.runs[0], SET_CORUNNER_PASSES));
	db_experiment_release(&e);

	/* Found by command and kind once complete; an ab experiment of the
	 * same command is not a pressure one. */
	assert_int_equal(db_experiment_latest_of(db, host_id, "pressure", "./emu", NULL), 0);
	assert_int_equal(db_experiment_finish(db, p, "complete", NULL, NULL), 0);
	assert_int_equal(db_experiment_finish(db, ab, "complete", NULL, NULL), 0);
	assert_int_equal(db_experiment_latest_of(db, host_id, "pressure", "./emu", NULL), p);
	assert_int_equal(db_experiment_latest_of(db, host_id, "pressure", "./other",
						 NULL), 0);
	assert_int_equal(db_experiment_latest_of(db, host_id, "ab", "./emu --fast", NULL),
			 ab);
	struct db_experiment_summary *v;
	size_t n;
	assert_int_equal(db_experiments_list(db, &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].kind, "ab");
	assert_string_equal(v[1].kind, "pressure");
	db_experiments_list_free(v, n);
	db_close(db);
}

/*
 * What is stored reads back: DB_EXP_ARMS_MAX arms store and load; one
 * more is refused when creating, and nothing is left behind. prof ab
 * stored any number and the loader refused past 4,096 (issue 27).
 */
static void test_experiments__most_arms_store_and_read_back(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	assert_int_equal(db_open(&db, f->path, NULL), 0);
	size_t n = DB_EXP_ARMS_MAX + 1;
	struct db_arm *arms = calloc(n, sizeof(*arms));
	char (*names)[16] = calloc(n, sizeof(*names));
	assert_non_null(arms);
	assert_non_null(names);
	char *argv[] = { "true", NULL };
	for (size_t a = 0; a < n; a++) {
		snprintf(names[a], sizeof(names[a]), "a%zu", a);
		arms[a] = (struct db_arm){ names[a], "true", argv, 1, NULL, 0 };
	}
	struct db_experiment e;
	memset(&e, 0, sizeof(e));
	e.order = "alternate";
	e.rounds = 1;
	e.gate_pct = NAN;
	e.arms = arms;
	e.narms = n;
	char *cause = NULL;
	assert_int_equal(db_experiment_create(db, &e, &host, &cause), -E2BIG);
	assert_non_null(strstr(cause, "at most 4096"));
	free(cause);
	cause = NULL;
	assert_int_equal(e.id, 0);
	struct db_experiment back;
	assert_int_equal(db_experiment_load(db, 0, &back, NULL), -ENOENT);

	e.narms = DB_EXP_ARMS_MAX;
	if (db_experiment_create(db, &e, &host, &cause))
		fail_msg("create: %s", cause);
	if (db_experiment_load(db, e.id, &back, &cause))
		fail_msg("load: %s", cause);
	assert_int_equal(back.narms, DB_EXP_ARMS_MAX);
	assert_string_equal(back.arms[DB_EXP_ARMS_MAX - 1].name, "a4095");
	db_experiment_release(&back);
	free(names);
	free(arms);
	db_close(db);
}

/*
 * Issue 25: an experiment whose prof was killed stayed "running" for
 * ever. A child makes one and ends without finishing it: read back, it
 * is stopped, with its runs counted, even from a read-only open; the
 * next writable open marks it so in the file. One whose prof is alive
 * (this process's) stays running.
 */
static void test_experiments__killed_owner_reads_stopped(void **state)
{
	struct tu_db *f = *state;
	struct db *db;
	char *cause = NULL;
	int64_t ids[NPLAN];
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (db_open(&db, f->path, NULL))
			_exit(1);
		store(db, false, NAN, ids);
		db_close(db);
		_exit(0);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	assert_int_equal(db_open_readonly(&db, f->path, &cause), 0);
	struct db_experiment e;
	assert_int_equal(db_experiment_load(db, 1, &e, &cause), 0);
	assert_string_equal(e.status, "stopped");
	assert_null(e.finished);	/* not written: a read-only open */
	char want[128];
	snprintf(want, sizeof(want), "prof ended without finishing it (killed, or "
		 "its machine restarted): %zu runs stored", NPLAN);
	assert_string_equal(e.note, want);
	db_experiment_release(&e);
	struct db_experiment_summary *ls;
	size_t n;
	assert_int_equal(db_experiments_list(db, &ls, &n, &cause), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ls[0].status, "stopped");
	db_experiments_list_free(ls, n);
	db_close(db);

	/* A writable open marks it; this process's own stays running. */
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	int64_t mine = store(db, false, NAN, ids);
	db_close(db);
	assert_int_equal(db_open(&db, f->path, &cause), 0);
	assert_int_equal(db_experiment_load(db, 1, &e, &cause), 0);
	assert_string_equal(e.status, "stopped");
	assert_non_null(e.finished);
	assert_string_equal(e.note, want);
	db_experiment_release(&e);
	assert_int_equal(db_experiment_load(db, mine, &e, &cause), 0);
	assert_string_equal(e.status, "running");
	assert_null(e.note);
	db_experiment_release(&e);
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_experiments__stored_and_reloaded_equal,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_experiments__newest_absent_and_no_gate,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_experiments__list_and_latest_aa,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_experiments__pressure_kind_and_run_settings,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_experiments__most_arms_store_and_read_back,
						tu_db_setup, tu_db_teardown),
		cmocka_unit_test_setup_teardown(test_experiments__killed_owner_reads_stopped,
						tu_db_setup, tu_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
