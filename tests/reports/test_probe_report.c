/*
 * Tests for reports/probe: the grades on recorded counter values (the
 * 0.8-1.25 bounds, multiplexed, never ran, not supported, not run), the
 * knee finder on recorded latency curves, and the report of a probe in
 * every format against golden files under tests/fixtures/reports/probe/
 * (PROF_UPDATE_GOLDEN=1 rewrites them; read the diff before committing).
 *
 * The curves: four measured on the 2-CPU AMD EPYC VM these tests were
 * written on (L1d 32 KiB, L2 1 MiB, an L3 of "32 MiB" per sysfs that the
 * host shares with other guests), one with huge pages throughout whose
 * chase reached memory latency from 24 MiB, one on small pages from
 * 6 MiB, with a TLB step after it, one with sizes disturbed by a load of
 * 19, one whose L3 was contested, and one where the L3 left to it was too
 * small to show; and shapes
 * of bare-metal parts (a
 * 512 KiB L2 and 16 MiB L3; a 48 KiB L1d and 2 MiB L2), a noisy point, a
 * flat curve, and one too short to reach memory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "reports/probe.h"
#include "test_util.h"

#define K(x) ((uint64_t)(x) << 10)
#define M(x) ((uint64_t)(x) << 20)

/* The 29 sizes of a default curve, 16 KiB .. 256 MiB. */
static const uint64_t sizes[] = {
	K(16), K(24), K(32), K(48), K(64), K(96), K(128), K(192), K(256),
	K(384), K(512), K(768), M(1), K(1536), M(2), M(3), M(4), M(6), M(8),
	M(12), M(16), M(24), M(32), M(48), M(64), M(96), M(128), M(192), M(256),
};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* `prof probe` on the VM, huge pages throughout. */
static const double vm_huge[NSIZES] = {
	1.08, 1.08, 1.12, 3.80, 3.81, 3.80, 3.80, 3.80, 3.80, 4.32, 5.26, 6.17,
	8.63, 11.54, 12.61, 13.96, 14.71, 15.62, 15.95, 18.97, 33.04, 107.77,
	135.84, 136.95, 138.03, 139.02, 145.38, 147.87, 151.46,
};

/* The same VM, small pages: memory latency from 6 MiB, then page walks
 * past the second-level TLB's reach (12 MiB) add the rest. */
static const double vm_small[NSIZES] = {
	1.08, 1.08, 1.11, 3.80, 3.78, 3.80, 3.80, 3.80, 3.80, 4.35, 4.89, 6.91,
	7.44, 11.25, 12.48, 13.98, 15.23, 87.00, 89.57, 139.92, 136.83, 140.62,
	142.30, 151.19, 151.65, 148.32, 162.50, 154.79, 149.41,
};

/* The VM at a load average of 19: sizes disturbed at 3 MiB and at
 * 48-64 MiB (batches all slow while other guests ran). */
static const double vm_loaded[NSIZES] = {
	1.08, 1.08, 1.14, 3.80, 3.81, 3.80, 3.80, 3.80, 3.80, 4.33, 4.71, 5.60,
	7.85, 11.47, 12.83, 84.09, 14.85, 16.39, 135.61, 140.19, 131.42, 150.16,
	149.93, 995.60, 472.89, 147.14, 157.44, 162.11, 166.12,
};

/* The VM under load, its L3 contested: no flat level between 1.5 and
 * 4 MiB, memory latency from 6 MiB. */
static const double vm_contested[NSIZES] = {
	1.08, 1.08, 1.12, 3.80, 3.81, 3.80, 3.80, 3.80, 3.80, 4.53, 5.01, 6.46,
	8.65, 11.47, 13.22, 22.75, 26.36, 66.61, 126.73, 138.80, 135.24, 143.18,
	146.13, 149.06, 147.28, 148.85, 154.78, 156.31, 170.37,
};

/* The VM when the other guests left this one about 2 MiB of L3: the rise
 * from L2 latency runs straight on to memory's. */
static const double vm_no_l3[NSIZES] = {
	1.08, 1.08, 1.13, 3.80, 3.81, 3.80, 3.80, 3.80, 3.80, 4.32, 4.97, 5.94,
	8.40, 11.66, 15.47, 120.45, 121.92, 129.36, 133.98, 142.94, 137.91,
	148.53, 153.21, 154.45, 152.64, 158.50, 159.48, 177.87, 157.60,
};

/* A bare-metal shape: L1d 32 KiB, L2 512 KiB, L3 16 MiB. */
static const double metal_512k[NSIZES] = {
	1.2, 1.2, 1.2, 3.5, 3.5, 3.5, 3.5, 3.5, 3.6, 3.9, 4.2, 9.0, 10.0, 10.5,
	10.6, 10.8, 11.0, 11.2, 11.4, 12.0, 14.0, 45.0, 70.0, 80.0, 82.0, 83.0,
	84.0, 85.0, 85.0,
};

/* L1d 48 KiB, L2 2 MiB, L3 32 MiB; one disturbed batch at 192 KiB. */
static const double metal_48k[NSIZES] = {
	1.1, 1.1, 1.1, 1.15, 3.9, 3.9, 3.9, 9.5, 3.9, 3.9, 4.0, 4.0, 4.1, 4.2,
	4.6, 14.0, 15.0, 15.0, 15.5, 16.0, 17.0, 19.0, 24.0, 60.0, 95.0, 100.0,
	101.0, 102.0, 103.0,
};

static void curve(struct db_probe *p, const double *ns, size_t n)
{
	p->points = calloc(n, sizeof(*p->points));
	p->npoints = n;
	for (size_t i = 0; i < n; i++)
		p->points[i] = (struct db_probe_point){ .bytes = sizes[i], .ns = ns[i],
							.steps = 100000,
							.huge_bytes = sizes[i] };
}

static void caches(struct db_probe *p, uint64_t l1d, uint64_t l2, uint64_t llc)
{
	p->l1d_bytes = l1d;
	p->l1i_bytes = K(32);
	p->l2_bytes = l2;
	p->llc_bytes = llc;
	p->llc_level = 3;
}

static void release(struct db_probe *p)
{
	db_probe_release(p);
}

/* ---- grades ---- */

static struct db_probe_counter counted(double expected, uint64_t value,
				       uint64_t enabled, uint64_t running)
{
	return (struct db_probe_counter){
		.ran = true, .expected = expected, .opened = true,
		.value = value, .enabled = enabled, .running = running,
	};
}

static void test_probe_report__grades(void **state)
{
	(void)state;
	struct db_probe_counter c = counted(1000, 1000, 5, 5);
	assert_int_equal(probe_grade_of(&c), PROBE_GRADE_PLAUSIBLE);
	c.value = 800;		/* the bounds are in */
	assert_int_equal(probe_grade_of(&c), PROBE_GRADE_PLAUSIBLE);
	c.value = 1250;
	assert_int_equal(probe_grade_of(&c), PROBE_GRADE_PLAUSIBLE);
	c.value = 799;
	assert_int_equal(probe_grade_of(&c), PROBE_GRADE_IMPLAUSIBLE);
	c.value = 1251;
	assert_int_equal(probe_grade_of(&c), PROBE_GRADE_IMPLAUSIBLE);
	c.value = 0;		/* an event that counts nothing here */
	assert_int_equal(probe_grade_of(&c), PROBE_GRADE_IMPLAUSIBLE);
	assert_true(probe_measured(&c) == 0);

	/* Ran half of the time: scaled, and no grade of the counter. */
	c = counted(1000, 500, 10, 5);
	assert_int_equal(probe_grade_of(&c), PROBE_GRADE_MULTIPLEXED);
	assert_true(fabs(probe_measured(&c) - 1000) < 1e-9);
	c = counted(1000, 0, 10, 0);	/* never ran */
	assert_int_equal(probe_grade_of(&c), PROBE_GRADE_MULTIPLEXED);
	assert_true(isnan(probe_measured(&c)));

	c = (struct db_probe_counter){ .ran = true, .expected = 1000 };
	assert_int_equal(probe_grade_of(&c), PROBE_GRADE_NOT_SUPPORTED);
	assert_true(isnan(probe_measured(&c)));
	c.ran = false;
	assert_int_equal(probe_grade_of(&c), PROBE_GRADE_NOT_SUPPORTED);
	c = counted(0, 12, 5, 5);
	c.ran = false;		/* the counter opened, the benchmark did not run */
	assert_int_equal(probe_grade_of(&c), PROBE_GRADE_NOT_RUN);

	assert_string_equal(probe_grade_name(PROBE_GRADE_PLAUSIBLE), "plausible");
	assert_string_equal(probe_grade_name(PROBE_GRADE_IMPLAUSIBLE), "implausible");
	assert_string_equal(probe_grade_name(PROBE_GRADE_NOT_SUPPORTED), "not supported");
	assert_string_equal(probe_grade_name(PROBE_GRADE_MULTIPLEXED), "multiplexed");
	assert_string_equal(probe_grade_name(PROBE_GRADE_NOT_RUN), "not run");
}

/* ---- knees ---- */

static void test_probe_report__vm_huge_pages(void **state)
{
	(void)state;
	struct db_probe p = { .cpu = 1 };
	curve(&p, vm_huge, NSIZES);
	caches(&p, K(32), M(1), M(32));
	struct probe_verdict v;
	probe_verdict(&p, &v);
	assert_int_equal(v.nknees, 3);
	assert_int_equal(v.knees[0].bytes, K(32));
	assert_int_equal(v.knees[0].next_bytes, K(48));
	assert_int_equal(v.knees[1].bytes, K(768));
	assert_int_equal(v.knees[2].bytes, M(16));
	assert_int_equal(v.knees[2].next_bytes, M(24));
	assert_ptr_equal(v.l1d, &v.knees[0]);
	assert_ptr_equal(v.l2, &v.knees[1]);
	assert_true(v.reaches_memory);
	assert_ptr_equal(v.last, &v.knees[2]);
	/* Half of the 32 MiB is not there for this guest: that differs. */
	assert_int_equal(v.last_agrees, 0);
	release(&p);
}

static void test_probe_report__vm_small_pages_memory_from_6m(void **state)
{
	(void)state;
	struct db_probe p = { .cpu = 1 };
	curve(&p, vm_small, NSIZES);
	caches(&p, K(32), M(1), M(32));
	struct probe_verdict v;
	probe_verdict(&p, &v);
	/* The rise out of the L2 pauses at 768 KiB-1 MiB, and memory's at
	 * 6-8 MiB (page walks past the TLB's reach): a knee at each step.
	 * The L2 takes the one nearest its size. */
	assert_int_equal(v.nknees, 5);
	assert_int_equal(v.knees[0].bytes, K(32));
	assert_ptr_equal(v.l1d, &v.knees[0]);
	assert_int_equal(v.knees[1].bytes, K(512));
	assert_int_equal(v.knees[2].bytes, M(1));
	assert_ptr_equal(v.l2, &v.knees[2]);
	assert_int_equal(v.knees[3].bytes, M(4));
	assert_int_equal(v.knees[4].bytes, M(8));
	/* Memory latency from 6 MiB, not from the TLB's step at 12 MiB. */
	assert_ptr_equal(v.last, &v.knees[3]);
	assert_int_equal(v.last->next_bytes, M(6));
	assert_int_equal(v.last_agrees, 0);
	release(&p);
}

/* Disturbed sizes, one alone and two together, make no knee. */
static void test_probe_report__vm_loaded_noise_is_no_knee(void **state)
{
	(void)state;
	struct db_probe p = { .cpu = 1 };
	curve(&p, vm_loaded, NSIZES);
	caches(&p, K(32), M(1), M(32));
	struct probe_verdict v;
	probe_verdict(&p, &v);
	assert_int_equal(v.nknees, 3);
	assert_int_equal(v.knees[0].bytes, K(32));
	assert_int_equal(v.knees[1].bytes, K(768));
	assert_int_equal(v.knees[2].bytes, M(6));
	assert_ptr_equal(v.last, &v.knees[2]);
	assert_int_equal(v.last->next_bytes, M(8));
	release(&p);
}

/* A contested L3 still shows as a level of its own before memory. */
static void test_probe_report__vm_contested_l3(void **state)
{
	(void)state;
	struct db_probe p = { .cpu = 1 };
	curve(&p, vm_contested, NSIZES);
	caches(&p, K(32), M(1), M(32));
	struct probe_verdict v;
	probe_verdict(&p, &v);
	assert_int_equal(v.nknees, 4);
	assert_int_equal(v.knees[1].bytes, K(768));
	assert_ptr_equal(v.l2, &v.knees[1]);
	assert_int_equal(v.knees[2].bytes, M(2));
	assert_int_equal(v.knees[3].bytes, M(4));
	assert_ptr_equal(v.last, &v.knees[3]);
	assert_int_equal(v.last->next_bytes, M(6));
	release(&p);
}

/* No L3 level shows: the L2's knee is memory's, and the report says so. */
static void test_probe_report__vm_straight_to_memory(void **state)
{
	(void)state;
	struct db_run run = { .id = 3 };
	struct db_probe p = { .cpu = 1 };
	curve(&p, vm_no_l3, NSIZES);
	caches(&p, K(32), M(1), M(32));
	struct probe_verdict v;
	probe_verdict(&p, &v);
	assert_int_equal(v.nknees, 2);
	assert_int_equal(v.knees[1].bytes, M(2));
	assert_ptr_equal(v.l2, &v.knees[1]);
	assert_ptr_equal(v.last, &v.knees[1]);
	assert_int_equal(v.last_agrees, 0);
	struct tu_buf b;
	report_probe(&run, &p, OUT_TABLE, tu_buf_open(&b));
	tu_buf_close(&b);
	if (!strstr(b.data, "   L2 1 MiB (sysfs): knee at 2 MiB, straight to memory "
		    "(3.8 -> 120.5 ns)\n"))
		fail_msg("%s", b.data);
	assert_non_null(strstr(b.data, "gets about 2 MiB of the 32 MiB L3"));
	free(b.data);
	release(&p);
}

static void test_probe_report__bare_metal_agrees(void **state)
{
	(void)state;
	struct db_probe p = { .cpu = 0 };
	curve(&p, metal_512k, NSIZES);
	caches(&p, K(32), K(512), M(16));
	struct probe_verdict v;
	probe_verdict(&p, &v);
	assert_int_equal(v.nknees, 3);
	assert_int_equal(v.knees[0].bytes, K(32));
	assert_int_equal(v.knees[1].bytes, K(512));
	assert_int_equal(v.knees[2].bytes, M(16));
	assert_ptr_equal(v.l1d, &v.knees[0]);
	assert_ptr_equal(v.l2, &v.knees[1]);
	assert_ptr_equal(v.last, &v.knees[2]);
	assert_int_equal(v.last_agrees, 1);
	release(&p);

	/* A 48 KiB L1d and 2 MiB L2; the lone slow batch at 192 KiB is no
	 * knee. */
	memset(&p, 0, sizeof(p));
	curve(&p, metal_48k, NSIZES);
	caches(&p, K(48), M(2), M(32));
	probe_verdict(&p, &v);
	assert_int_equal(v.nknees, 3);
	assert_int_equal(v.knees[0].bytes, K(48));
	assert_int_equal(v.knees[1].bytes, M(2));
	assert_int_equal(v.knees[2].bytes, M(32));
	assert_ptr_equal(v.l1d, &v.knees[0]);
	assert_ptr_equal(v.l2, &v.knees[1]);
	assert_int_equal(v.last_agrees, 1);
	/* The same curve against a 512 KiB L2 finds no knee for it. */
	p.l2_bytes = K(512);
	probe_verdict(&p, &v);
	assert_null(v.l2);
	release(&p);
}

static void test_probe_report__flat_short_and_empty(void **state)
{
	(void)state;
	double flat[NSIZES];
	for (size_t i = 0; i < NSIZES; i++)
		flat[i] = 2.0 + (double)(i % 3) * 0.1;
	struct db_probe p = { .cpu = 0 };
	curve(&p, flat, NSIZES);
	caches(&p, K(32), M(1), M(32));
	struct probe_verdict v;
	probe_verdict(&p, &v);
	assert_int_equal(v.nknees, 0);
	assert_null(v.l1d);
	assert_null(v.last);
	assert_true(v.reaches_memory);
	release(&p);

	/* Up to 1 MiB only: the L1d knee, but nothing about memory. */
	memset(&p, 0, sizeof(p));
	curve(&p, vm_huge, 13);
	caches(&p, K(32), M(1), M(32));
	probe_verdict(&p, &v);
	assert_ptr_equal(v.l1d, &v.knees[0]);
	assert_false(v.reaches_memory);
	assert_null(v.last);
	assert_int_equal(v.last_agrees, -1);
	release(&p);

	/* No sysfs sizes: knees, nothing to agree with; the top is taken
	 * for memory. */
	memset(&p, 0, sizeof(p));
	curve(&p, vm_huge, NSIZES);
	probe_verdict(&p, &v);
	assert_int_equal(v.nknees, 3);
	assert_null(v.l1d);
	assert_null(v.l2);
	assert_true(v.reaches_memory);
	assert_non_null(v.last);
	assert_int_equal(v.last_agrees, -1);
	release(&p);

	memset(&p, 0, sizeof(p));
	probe_verdict(&p, &v);
	assert_int_equal(v.nknees, 0);
	struct probe_knee k[4];
	struct db_probe_point one = { .bytes = K(16), .ns = 1.0, .steps = 1 };
	assert_int_equal(probe_knees(&one, 1, k, 4), 0);
	assert_int_equal(probe_knees(NULL, 0, k, 4), 0);
}

/* ---- the spread ---- */

/* Five repetitions of every size, their middle half within frac of the
 * median either way. */
static void spread(struct db_probe *p, double frac)
{
	for (size_t i = 0; i < p->npoints; i++) {
		struct db_probe_point *q = &p->points[i];
		q->reps = 5;
		q->ns_q1 = q->ns * (1 - frac);
		q->ns_q3 = q->ns * (1 + frac);
		q->ns_min = q->ns * (1 - 2 * frac);
		q->ns_max = q->ns * (1 + 2 * frac);
	}
}

/* The VM's curve with huge pages, but the last size slow: its median
 * 1.45x the memory plateau, while its fastest quarter is on it. */
static void slow_last(struct db_probe *p)
{
	curve(p, vm_huge, NSIZES);
	caches(p, K(32), M(1), M(32));
	spread(p, 0.03);
	struct db_probe_point *q = &p->points[NSIZES - 1];
	q->ns = 215.0;
	q->ns_q1 = 150.0;
	q->ns_q3 = 280.0;
	q->ns_min = 146.0;
	q->ns_max = 420.0;
}

/* A single slow last size over a flat memory plateau is no knee: the
 * level above does not clear the spread, and the report says so. */
static void test_probe_report__slow_last_point_is_no_knee(void **state)
{
	(void)state;
	struct db_run run = { .id = 4 };
	struct db_probe p = { .cpu = 1 };
	slow_last(&p);
	struct probe_verdict v;
	probe_verdict(&p, &v);
	assert_int_equal(v.nknees, 3);
	assert_int_equal(v.knees[2].bytes, M(16));
	assert_ptr_equal(v.last, &v.knees[2]);
	assert_int_equal(v.nnoise, 1);
	assert_int_equal(v.noise[0].bytes, M(192));
	assert_true(v.noise[0].q1_above == 150.0);
	assert_true(fabs(v.noise[0].q3_below - 147.87 * 1.03) < 1e-9);
	struct tu_buf b;
	report_probe(&run, &p, OUT_TABLE, tu_buf_open(&b));
	tu_buf_close(&b);
	if (!strstr(b.data, "no knee at 192 MiB beyond the noise"))
		fail_msg("%s", b.data);
	assert_non_null(strstr(b.data, "gets about 16 MiB of the 32 MiB L3"));
	assert_null(strstr(b.data, "stays off memory latency"));
	free(b.data);
	release(&p);

	/* The same medians measured once: no spread to judge by, and the
	 * rise stands as it did before prof repeated sizes (the verdicts
	 * that contradicted each other). */
	memset(&p, 0, sizeof(p));
	slow_last(&p);
	for (size_t i = 0; i < NSIZES; i++)
		p.points[i].reps = 1;
	probe_verdict(&p, &v);
	assert_int_equal(v.nknees, 4);
	assert_int_equal(v.knees[3].bytes, M(192));
	assert_int_equal(v.nnoise, 0);
	release(&p);
}

/* A clean step stands clear of a tight spread, at the end of the curve
 * too; a wide spread on either side takes the same step away. */
static void test_probe_report__clean_step_is_a_knee(void **state)
{
	(void)state;
	static const double step[8] = { 10, 10.1, 10, 10.2, 100, 101, 100, 102 };
	struct db_probe p = { .cpu = 0 };
	curve(&p, step, 8);
	spread(&p, 0.02);
	struct probe_knee k[4], noise[4];
	size_t nn;
	assert_int_equal(probe_knees_noise(p.points, 8, k, 4, noise, 4, &nn), 1);
	assert_int_equal(nn, 0);
	assert_int_equal(k[0].bytes, sizes[3]);
	assert_int_equal(k[0].next_bytes, sizes[4]);
	/* The step as the last size alone. */
	assert_int_equal(probe_knees_noise(p.points, 5, k, 4, noise, 4, &nn), 1);
	assert_int_equal(k[0].bytes, sizes[3]);
	assert_int_equal(nn, 0);
	/* Sizes that scatter over a factor of ten: the same medians are no
	 * knee. */
	for (size_t i = 0; i < 8; i++) {
		p.points[i].ns_min = p.points[i].ns_q1 = 9;
		p.points[i].ns_q3 = p.points[i].ns_max = 110;
	}
	assert_int_equal(probe_knees_noise(p.points, 8, k, 4, noise, 4, &nn), 0);
	assert_int_equal(nn, 1);
	assert_int_equal(noise[0].bytes, sizes[3]);
	/* The rule's bound: the level above (where the rise flattened, the
	 * first size past the step) with q1 = 1.25 x the q3 below is clear. */
	spread(&p, 0.0);
	p.points[3].ns_q3 = p.points[3].ns_max = 80;
	p.points[4].ns_min = p.points[4].ns_q1 = 100;
	assert_int_equal(probe_knees_noise(p.points, 8, k, 4, noise, 4, &nn), 1);
	p.points[4].ns_min = p.points[4].ns_q1 = 99.9;
	assert_int_equal(probe_knees_noise(p.points, 8, k, 4, noise, 4, &nn), 0);
	release(&p);
}

/* ---- the report ---- */

static char *xs(const char *s)
{
	return strdup(s);
}

static void golden(const char *file, const char *got)
{
	char *dir, *path;
	assert_true(asprintf(&dir, "%s/reports/probe", FIXTURES_DIR) > 0);
	assert_true(asprintf(&path, "%s/%s", dir, file) > 0);
	const char *upd = getenv("PROF_UPDATE_GOLDEN");
	if (upd && *upd == '1') {
		mkdir(dir, 0755);
		FILE *fp = fopen(path, "w");
		assert_non_null(fp);
		fputs(got, fp);
		fclose(fp);
	}
	char *want = tu_slurp(path);
	if (!want)
		fail_msg("no golden file %s (run with PROF_UPDATE_GOLDEN=1)", path);
	if (strcmp(want, got))
		fail_msg("%s differs from the golden file:\n--- got ---\n%s--- want ---\n%s",
			 path, got, want);
	free(want);
	free(dir);
	free(path);
}

/* The small-pages VM curve, and one counter of every grade. */
static void fixture(struct db_run *run, struct db_probe *p)
{
	memset(run, 0, sizeof(*run));
	run->id = 12;
	run->kind = xs("probe");
	run->started = xs("2026-11-30T17:28:25Z");
	run->wall_s = 2.5;
	run->host.hostname = xs("vm");
	memset(p, 0, sizeof(*p));
	p->cpu = 1;
	p->ms_per_size = 30;
	p->seed = 482956239461ull;
	p->family = xs("AMD Zen 4");
	curve(p, vm_small, NSIZES);
	for (size_t i = 0; i < 12; i++)
		p->points[NSIZES - 1 - i].huge_bytes = 0;
	caches(p, K(32), M(1), M(32));
	p->ncounters = 4;
	p->counters = calloc(4, sizeof(*p->counters));
	const char *names[] = { "llc-misses", "itlb-misses", "l1i-misses",
				"branch-misses" };
	const char *grades[] = { "implausible", "plausible", "multiplexed",
				 "not supported" };
	for (int i = 0; i < 4; i++) {
		struct db_probe_counter *c = &p->counters[i];
		c->name = xs(names[i]);
		c->bench = xs("a benchmark");
		c->event = xs("some_event");
		c->grade = xs(grades[i]);
		c->ran = true;
		c->expected = 1048576;
	}
	p->counters[0].opened = true;	/* the L2 prefetcher's extra misses */
	p->counters[0].value = 2000000;
	p->counters[0].enabled = p->counters[0].running = 150000000;
	p->counters[1].opened = true;
	p->counters[1].value = 1000000;
	p->counters[1].enabled = p->counters[1].running = 30000000;
	p->counters[2].opened = true;
	p->counters[2].value = 600000;
	p->counters[2].enabled = 10000000;
	p->counters[2].running = 6000000;
	p->counters[3].reason = xs("the kernel refused it: No such file or directory\n"
				   "hint: no hardware PMU is visible");
}

static char *render(const struct db_run *run, const struct db_probe *p,
		    enum out_format f)
{
	struct tu_buf b;
	report_probe(run, p, f, tu_buf_open(&b));
	tu_buf_close(&b);
	return b.data;
}

/* The terminal report's prose as one line a paragraph: a line broken at
 * 80 columns (a newline and the continuation's indent) read as a space,
 * so a phrase is found wherever the wrap fell. */
static char *unwrapped(char *s)
{
	char *o = s;
	for (const char *i = s; *i;) {
		if (*i == '\n' && i[1] == ' ') {
			size_t sp = strspn(i + 1, " ");
			if (i[1 + sp] && i[1 + sp] != '\n' && sp >= 3) {
				*o++ = ' ';
				i += 1 + sp;
				continue;
			}
		}
		*o++ = *i++;
	}
	*o = '\0';
	return s;
}

static void test_probe_report__every_format(void **state)
{
	(void)state;
	struct db_run run;
	struct db_probe p;
	fixture(&run, &p);
	const struct { enum out_format f; const char *file; } cases[] = {
		{ OUT_TABLE, "vm.txt" }, { OUT_MARKDOWN, "vm.md" },
		{ OUT_CSV, "vm.csv" }, { OUT_JSON, "vm.json" },
	};
	for (size_t i = 0; i < 4; i++) {
		char *s = render(&run, &p, cases[i].f);
		golden(cases[i].file, s);
		free(s);
	}
	/* What the contract and a reader rely on. */
	char *s = render(&run, &p, OUT_JSON);
	assert_non_null(strstr(s, "\"latency\": [\n    {\"bytes\": 16384, \"ns\": 1.08,"));
	assert_non_null(strstr(s, "\"counters\": [\n    {\n      \"name\": \"llc-misses\",\n"
			       "      \"expected\": 1048576,\n      \"measured\": 2000000,\n"
			       "      \"ratio\": "));
	assert_non_null(strstr(s, "\"grade\": \"implausible\""));
	/* Scaled: 600,000 counted in 60% of the time. */
	assert_non_null(strstr(s, "\"measured\": 1000000,"));
	assert_non_null(strstr(s, "\"measured\": null,"));
	assert_non_null(strstr(s, "\"memory_from_bytes\": 6291456,"));
	assert_non_null(strstr(s, "\"agrees\": false"));
	free(s);
	s = unwrapped(render(&run, &p, OUT_TABLE));
	assert_non_null(strstr(s, "L3 32 MiB, DIFFERS"));
	assert_non_null(strstr(s, "gets about 4 MiB of the 32 MiB L3"));
	assert_non_null(strstr(s, "L1d 32 KiB (sysfs): knee at 32 KiB"));
	assert_non_null(strstr(s, "small pages add a page walk"));
	free(s);
	db_run_release(&run);
	release(&p);
}

/* The same probe with its sizes repeated and its last one slow: the
 * spread in every format, and the rise it does not carry. */
static void test_probe_report__repeated_sizes_every_format(void **state)
{
	(void)state;
	struct db_run run;
	struct db_probe p;
	fixture(&run, &p);
	spread(&p, 0.03);
	struct db_probe_point *q = &p.points[NSIZES - 1];
	q->ns = 230.0;
	q->ns_q1 = 150.0;
	q->ns_q3 = 280.0;
	q->ns_max = 420.0;
	const struct { enum out_format f; const char *file; } cases[] = {
		{ OUT_TABLE, "vm-reps.txt" }, { OUT_CSV, "vm-reps.csv" },
		{ OUT_JSON, "vm-reps.json" },
	};
	for (size_t i = 0; i < 3; i++) {
		char *s = render(&run, &p, cases[i].f);
		golden(cases[i].file, s);
		free(s);
	}
	char *s = render(&run, &p, OUT_JSON);
	assert_non_null(strstr(s, "\"no_knee\": [\n    {\"bytes\": 201326592,"));
	assert_non_null(strstr(s, "\"reps\": 5, \"ns_min\": "));
	free(s);
	s = unwrapped(render(&run, &p, OUT_TABLE));
	assert_non_null(strstr(s, "each size the median of 5"));
	assert_non_null(strstr(s, "no knee at 192 MiB beyond the noise"));
	free(s);
	db_run_release(&run);
	release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_report__grades),
		cmocka_unit_test(test_probe_report__vm_huge_pages),
		cmocka_unit_test(test_probe_report__vm_small_pages_memory_from_6m),
		cmocka_unit_test(test_probe_report__vm_loaded_noise_is_no_knee),
		cmocka_unit_test(test_probe_report__vm_contested_l3),
		cmocka_unit_test(test_probe_report__vm_straight_to_memory),
		cmocka_unit_test(test_probe_report__bare_metal_agrees),
		cmocka_unit_test(test_probe_report__flat_short_and_empty),
		cmocka_unit_test(test_probe_report__slow_last_point_is_no_knee),
		cmocka_unit_test(test_probe_report__clean_step_is_a_knee),
		cmocka_unit_test(test_probe_report__every_format),
		cmocka_unit_test(test_probe_report__repeated_sizes_every_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
