/*
 * Tests for collectors/sysdelta: each /proc source parsed from a copy of
 * what the kernel wrote (tests/fixtures/proc/vm-2cpu, a 2-CPU VM with
 * ERR set to 7 and a schedstat v15 file, which this VM does not keep),
 * text that is not the kernel's refused, and the deltas of two
 * snapshots.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collectors/sysdelta.h"
#include "test_util.h"

#define PROC FIXTURES_DIR "/proc/vm-2cpu"

static FILE *open_fixture(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", PROC, name);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	return fp;
}

static int64_t get(const struct sys_snap *s, const char *name)
{
	int64_t v;
	if (!sys_snap_get(s, name, &v))
		fail_msg("no value named %s", name);
	return v;
}

static void test_sysdelta__vmstat(void **state)
{
	(void)state;
	struct sys_snap s = { 0 };
	FILE *fp = open_fixture("vmstat");
	assert_int_equal(sys_parse_vmstat(fp, &s), 0);
	fclose(fp);
	assert_int_equal(s.n, 40);
	assert_int_equal(get(&s, "vmstat.nr_free_pages"), 3271926);
	assert_int_equal(get(&s, "vmstat.nr_zone_inactive_anon"), 74386);
	sys_snap_release(&s);
}

static void test_sysdelta__stat(void **state)
{
	(void)state;
	struct sys_snap s = { 0 };
	FILE *fp = open_fixture("stat");
	assert_int_equal(sys_parse_stat(fp, 100, &s), 0);
	fclose(fp);
	/* Ticks at 100 Hz in milliseconds: "cpu1 ... steal 885". */
	assert_int_equal(get(&s, "stat.cpu1.steal_ms"), 8850);
	assert_int_equal(get(&s, "stat.cpu.user_ms"), 15089030);
	assert_int_equal(get(&s, "stat.cpu0.system_ms"), 3419230);
	assert_int_equal(get(&s, "stat.cpu1.softirq_ms"), 21920);
	assert_int_equal(get(&s, "stat.cpu0.irq_ms"), 0);
	/* idle and iowait too (vmstat's id and wa, which the notes quote) */
	assert_int_equal(get(&s, "stat.cpu.idle_ms"), 5843950);
	assert_int_equal(get(&s, "stat.cpu1.iowait_ms"), 25530);
	assert_int_equal(get(&s, "stat.ctxt"), 92710261);
	assert_int_equal(get(&s, "stat.processes"), 28509315);
	sys_snap_release(&s);
}

static void test_sysdelta__interrupts(void **state)
{
	(void)state;
	struct sys_snap s = { 0 };
	FILE *fp = open_fixture("interrupts");
	assert_int_equal(sys_parse_interrupts(fp, &s), 0);
	fclose(fp);
	/* Column sums by awk; ERR's 7 is the machine's, no CPU's. */
	assert_int_equal(get(&s, "interrupts.cpu0"), 10226389);
	assert_int_equal(get(&s, "interrupts.cpu1"), 11885733);
	assert_int_equal(get(&s, "interrupts.total"), 22112129);
	sys_snap_release(&s);
}

static void test_sysdelta__schedstat(void **state)
{
	(void)state;
	struct sys_snap s = { 0 };
	FILE *fp = open_fixture("schedstat");
	assert_int_equal(sys_parse_schedstat(fp, &s), 0);
	fclose(fp);
	assert_int_equal(s.n, 6);	/* domain lines left alone */
	assert_int_equal(get(&s, "schedstat.cpu1.run_ns"), 405164651092);
	assert_int_equal(get(&s, "schedstat.cpu1.wait_ns"), 61119406125);
	assert_int_equal(get(&s, "schedstat.cpu0.timeslices"), 1282958);
	sys_snap_release(&s);
}

static void test_sysdelta__not_the_kernels_text(void **state)
{
	(void)state;
	struct sys_snap s = { 0 };
	char bad[] = "pgfault lots\n";
	FILE *fp = fmemopen(bad, strlen(bad), "r");
	assert_int_equal(sys_parse_vmstat(fp, &s), -EINVAL);
	fclose(fp);
	char bad_stat[] = "cpu0 1 2\n";
	fp = fmemopen(bad_stat, strlen(bad_stat), "r");
	assert_int_equal(sys_parse_stat(fp, 100, &s), -EINVAL);
	fclose(fp);
	char no_header[] = "garbage\n";
	fp = fmemopen(no_header, strlen(no_header), "r");
	assert_int_equal(sys_parse_interrupts(fp, &s), -EINVAL);
	fclose(fp);
	sys_snap_release(&s);
}

/* A root with no /proc files: an empty snapshot, not an error. */
static void test_sysdelta__missing_sources(void **state)
{
	(void)state;
	struct sys_snap s;
	assert_int_equal(sys_snap_read(&s, "/nonexistent"), 0);
	assert_int_equal(s.n, 0);
	sys_snap_release(&s);
	assert_int_equal(sys_snap_read(&s, PROC), 0);
	assert_true(s.n > 40);
	int64_t v;
	assert_true(sys_snap_get(&s, "schedstat.cpu0.wait_ns", &v));
	sys_snap_release(&s);
}

static void test_sysdelta__delta(void **state)
{
	(void)state;
	char a[] = "pgfault 100\npgmajfault 3\nnr_free_pages 500\n";
	char b[] = "pgfault 175\npgmajfault 3\nnr_free_pages 450\nnew_one 9\n";
	struct sys_snap before = { 0 }, after = { 0 };
	FILE *fp = fmemopen(a, strlen(a), "r");
	assert_int_equal(sys_parse_vmstat(fp, &before), 0);
	fclose(fp);
	fp = fmemopen(b, strlen(b), "r");
	assert_int_equal(sys_parse_vmstat(fp, &after), 0);
	fclose(fp);
	struct sys_val *d;
	size_t n;
	assert_int_equal(sys_snap_delta(&before, &after, &d, &n), 0);
	assert_int_equal(n, 3);	/* pgmajfault did not move */
	assert_string_equal(d[0].name, "vmstat.pgfault");
	assert_int_equal(d[0].v, 75);
	assert_string_equal(d[1].name, "vmstat.nr_free_pages");
	assert_int_equal(d[1].v, -50);
	assert_string_equal(d[2].name, "vmstat.new_one");
	assert_int_equal(d[2].v, 9);
	sys_deltas_free(d, n);
	sys_snap_release(&before);
	sys_snap_release(&after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysdelta__vmstat),
		cmocka_unit_test(test_sysdelta__stat),
		cmocka_unit_test(test_sysdelta__interrupts),
		cmocka_unit_test(test_sysdelta__schedstat),
		cmocka_unit_test(test_sysdelta__not_the_kernels_text),
		cmocka_unit_test(test_sysdelta__missing_sources),
		cmocka_unit_test(test_sysdelta__delta),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
