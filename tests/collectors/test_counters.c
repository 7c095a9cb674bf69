/*
 * Tests for collectors/counters where a plan splits the events over core
 * PMUs (collectors/pmuplan.h). This machine has no hybrid CPU, nor any
 * PMU: the plan here is made by hand, two parts of task-clock standing in
 * for a hardware event's two core PMUs ("fake_big", "fake_little"). Both
 * count the whole time, so each thread's event is about twice a part: the
 * test checks the plumbing (a fd per part, each thread's READ per part,
 * the parts summed into the event, the target settled per part), not
 * what a hybrid part counts. Per CPU (as root, with a cgroup), each made-up
 * PMU serves one CPU, so a thread pinned to CPU 0 counts on the first
 * part only and one pinned to CPU 1 on the second.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collectors/cgroup.h"
#include "collectors/counters.h"
#include "collectors/pmuplan.h"

/* Spins until clk has moved ms: CLOCK_MONOTONIC for wall time, the
 * thread's own clock for CPU time whatever else runs beside it. */
static void spin_on(clockid_t clk, long ms)
{
	struct timespec t0, t;
	clock_gettime(clk, &t0);
	do
		clock_gettime(clk, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void spin_ms(long ms)
{
	spin_on(CLOCK_MONOTONIC, ms);
}

/* Lets the child go, drains until it has exited, and finishes: the
 * child's wait status. */
static int release_and_finish(struct counters *c, pid_t pid, int go)
{
	char *cause = NULL;
	assert_int_equal(write(go, "g", 1), 1);
	close(go);
	int status;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		counters_drain(c);
		spin_ms(5);
	}
	if (counters_finish(c, &cause))
		fail_msg("finish: %s", cause);
	return status;
}

static void *worker(void *arg)
{
	(void)arg;
	spin_ms(30);
	return NULL;
}

/* The child: waits for the go, runs a thread that spins, spins itself. */
static pid_t start_child(int *go)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char b;
		close(fds[1]);
		if (read(fds[0], &b, 1) != 1)
			_exit(1);
		pthread_t th;
		if (pthread_create(&th, NULL, worker, NULL))
			_exit(2);
		pthread_join(th, NULL);
		spin_ms(10);
		_exit(0);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

/* A plan with event 0 in two parts, one per made-up core PMU. */
static void two_part_plan(struct pmu_plan *p, const struct event_desc *ev)
{
	memset(p, 0, sizeof(*p));
	p->npmus = 2;
	p->pmus = calloc(2, sizeof(*p->pmus));
	p->nattrs = 2;
	p->attrs = calloc(2, sizeof(*p->attrs));
	p->nevents = 1;
	p->notes = calloc(1, sizeof(*p->notes));
	assert_true(p->pmus && p->attrs && p->notes);
	p->pmus[0].name = strdup("fake_big");
	p->pmus[1].name = strdup("fake_little");
	for (int k = 0; k < 2; k++)
		p->attrs[k] = (struct plan_attr){ 0, k, ev->attr };
}

static void test_counters__split_parts_sum_per_thread(void **state)
{
	(void)state;
	struct event_desc ev;
	char *cause = NULL;
	if (event_resolve("task-clock", 0, &ev, &cause))
		fail_msg("task-clock: %s", cause);
	struct pmu_plan plan;
	two_part_plan(&plan, &ev);
	struct counters_opts o = { .events = &ev, .nevents = 1, .plan = &plan,
				   .mmap_pages = 16 };
	struct counters *c = counters_new(&o);
	assert_non_null(c);
	int go;
	pid_t pid = start_child(&go);
	int rc = counters_open_task(c, pid, pid, "child", &cause);
	if (rc) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (rc == -EACCES || rc == -EPERM || rc == -ENOSYS) {
			print_message("skip: cannot count here: %s\n", cause);
			skip();
		}
		fail_msg("open: %s", cause);
	}
	assert_true(counters_status(c, 0)->supported);
	assert_null(counters_status(c, 1));
	release_and_finish(c, pid, go);

	const struct thread_table *tt = counters_threads(c);
	assert_int_equal(thread_table_count(tt), 2);
	for (size_t i = 0; i < 2; i++) {
		const struct thread_row *r = thread_table_row(tt, i);
		assert_non_null(r->parts);
		assert_true(r->parts[0].present && r->parts[1].present);
		assert_true(r->counts[0].present);
		assert_int_equal(r->counts[0].value, r->parts[0].value + r->parts[1].value);
		/* Two task-clocks of one thread: close, never equal by chance
		 * of arithmetic; each part well above nothing. */
		double a = (double)r->parts[0].value, b = (double)r->parts[1].value;
		assert_true(a > 1e6 && b > 1e6);
		assert_true(a / b > 0.8 && a / b < 1.25);
	}
	/* the worker thread spun 30 ms of wall time (less on the CPU where
	 * the machine is shared): each part holds its time */
	const struct thread_row *w = thread_table_row(tt, 1);
	assert_true(w->parts[0].value > 5000000 && w->parts[1].value > 5000000);
	const struct thread_count *tot = counters_total(c, 0);
	assert_true(tot->present);
	uint64_t rows = thread_table_row(tt, 0)->counts[0].value + w->counts[0].value;
	assert_int_equal(tot->value, rows);
	assert_true(tot->running <= tot->enabled);
	counters_free(c);
	pmu_plan_release(&plan);
	event_desc_release(&ev);
}

/* A thread that spins 30 ms of its own CPU time on the CPU given (of
 * wall time, on a busy 2-CPU machine it had less than the 10 ms the test
 * looks for, once in six). */
static void *pinned(void *arg)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET((int)(intptr_t)arg, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return (void *)1;
	spin_on(CLOCK_THREAD_CPUTIME_ID, 30);
	return NULL;
}

/* The child of the per-CPU case: moves itself into the cgroup (procs),
 * says so, waits for the go, runs a thread on CPU 0 then one on CPU 1. */
static pid_t start_pinned_child(int procs, int *go)
{
	int gp[2], rp[2];
	assert_int_equal(pipe(gp), 0);
	assert_int_equal(pipe(rp), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char b = 'r';
		close(gp[1]);
		close(rp[0]);
		if (write(procs, "0", 1) != 1 || write(rp[1], &b, 1) != 1 ||
		    read(gp[0], &b, 1) != 1)
			_exit(1);
		for (intptr_t cpu = 0; cpu < 2; cpu++) {
			pthread_t th;
			void *ret = NULL;
			if (pthread_create(&th, NULL, pinned, (void *)cpu) ||
			    pthread_join(th, &ret) || ret)
				_exit(2);
		}
		_exit(0);
	}
	close(gp[0]);
	close(rp[1]);
	char b;
	assert_int_equal(read(rp[0], &b, 1), 1);
	close(rp[0]);
	*go = gp[1];
	return pid;
}

static void test_counters__split_parts_per_cpu(void **state)
{
	(void)state;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		print_message("skip: needs two online CPUs\n");
		skip();
	}
	struct run_cgroup cg = { .fd = -1 };
	char *cause = NULL;
	if (run_cgroup_create(&cg, &cause)) {
		print_message("skip: no cgroup of our own: %s\n", cause);
		free(cause);
		skip();
	}
	int procs = run_cgroup_procs(&cg, &cause);
	assert_true(procs >= 0);
	struct event_desc ev;
	assert_int_equal(event_resolve("task-clock", 0, &ev, &cause), 0);
	struct pmu_plan plan;
	two_part_plan(&plan, &ev);
	for (int p = 0; p < 2; p++) {
		plan.pmus[p].has_cpus = true;
		cpumask_set(&plan.pmus[p].cpus, p);
	}
	struct counters_opts o = { .events = &ev, .nevents = 1, .plan = &plan,
				   .mmap_pages = 16, .flags = COUNTERS_PERCPU,
				   .cgroup_fd = cg.fd };
	struct counters *c = counters_new(&o);
	assert_non_null(c);
	int go;
	pid_t pid = start_pinned_child(procs, &go);
	close(procs);
	int rc = counters_open_task(c, pid, pid, "child", &cause);
	if (rc || counters_path(c) != COUNTERS_PATH_PERCPU) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		print_message("skip: not counted per CPU here: %s\n",
			      rc ? cause : counters_path_note(c));
		counters_free(c);
		run_cgroup_remove(&cg);
		skip();
	}
	int status = release_and_finish(c, pid, go);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	const struct thread_table *tt = counters_threads(c);
	int pinned_seen = 0;
	for (size_t i = 0; i < thread_table_count(tt); i++) {
		const struct thread_row *r = thread_table_row(tt, i);
		if (!r->counts[0].present || r->tid == pid)
			continue;
		/* every switch's delta went to its CPU's part as well */
		uint64_t a = r->parts[0].present ? r->parts[0].value : 0;
		uint64_t b = r->parts[1].present ? r->parts[1].value : 0;
		assert_int_equal(r->counts[0].value, a + b);
		/* a thread pinned to one CPU: (nearly) all on its part,
		 * what ran before the pin aside */
		if (a > 10000000 || b > 10000000) {
			assert_true(a < b / 10 || b < a / 10);
			pinned_seen++;
		}
	}
	assert_int_equal(pinned_seen, 2);
	counters_free(c);
	run_cgroup_remove(&cg);
	pmu_plan_release(&plan);
	event_desc_release(&ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counters__split_parts_sum_per_thread),
		cmocka_unit_test(test_counters__split_parts_per_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
