/*
 * Tests for collectors/topology: the cpu list and size parsers, reading
 * the fake sysfs trees under tests/fixtures/sysfs/ (described in their
 * README.md), pin resolution, and a comparison of the live machine with
 * lscpu -C.
 *
 * Expected values come from the fixture definitions (make_trees.py, which
 * models the named parts from their published cache sizes) and from hand
 * calculation; the live check takes lscpu from util-linux as reference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "collectors/topology.h"
#include "test_util.h"

/* ---- helpers ---- */

static void assert_mask(const struct cpumask *m, const char *want)
{
	char *s = cpumask_format(m);
	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

static void assert_contains(const char *haystack, const char *needle)
{
	assert_non_null(haystack);
	if (!strstr(haystack, needle))
		fail_msg("'%s' does not contain '%s'", haystack, needle);
}

static char *fixture(const char *machine)
{
	char *p;
	if (asprintf(&p, "%s/sysfs/%s", FIXTURES_DIR, machine) < 0)
		abort();
	return p;
}

static void load(struct topo *t, const char *machine)
{
	char *root = fixture(machine), *cause = NULL;
	int rc = topo_read(t, root, &cause);
	if (rc != 0)
		fail_msg("topo_read(%s) = %d: %s", machine, rc, cause ? cause : "(no cause)");
	free(root);
}

/* A copy of a fixture in a temporary directory, to break: its files are
 * symbolic links to the fixture's (cheap on slow disks), which put() and
 * rm() replace rather than write through. */
static char *copy_fixture(const char *machine)
{
	char *dir = NULL, *src = fixture(machine), *cmd;
	/* Memory is much faster than this VM's disk for the few thousand
	 * small files these copies make (7 s against 0.6 s here), so use
	 * /dev/shm unless the caller chose a TMPDIR. */
	if (!getenv("TMPDIR") && access("/dev/shm", W_OK) == 0) {
		dir = strdup("/dev/shm/prof-test-XXXXXX");
		if (!dir || !mkdtemp(dir)) {
			free(dir);
			dir = NULL;
		}
	}
	if (!dir)
		dir = tu_tmpdir();
	if (asprintf(&cmd, "cp -rs '%s/sys' '%s/'", src, dir) < 0)
		abort();
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(src);
	return dir;
}

static void put(const char *root, const char *rel, const char *text)
{
	char *path;
	if (asprintf(&path, "%s/sys/devices/system/%s", root, rel) < 0)
		abort();
	unlink(path);
	FILE *f = fopen(path, "w");
	if (!f)
		fail_msg("cannot write %s", path);
	fputs(text, f);
	fclose(f);
	free(path);
}

static void rm(const char *root, const char *rel)
{
	char *path;
	if (asprintf(&path, "%s/sys/devices/system/%s", root, rel) < 0)
		abort();
	tu_rmrf(path);
	free(path);
}

/* Resolves mode and checks the result: on success the CPUs and the
 * sentence, on failure that the cause holds `text`. */
static void check_pin(const struct topo *t, const char *mode, int want_rc,
		      const char *want_cpus, const char *text)
{
	struct topo_pin pin;
	char *cause = NULL;
	int rc = topo_pin_resolve(t, mode, &pin, &cause);
	if (rc != want_rc)
		fail_msg("pin '%s': rc %d, want %d (%s)", mode, rc, want_rc,
			 cause ? cause : pin.desc ? pin.desc : "");
	if (rc == 0) {
		assert_null(cause);
		assert_mask(&pin.cpus, want_cpus);
		assert_string_equal(pin.desc, text);
	} else {
		assert_contains(cause, text);
		assert_true(cpumask_empty(&pin.cpus));
		assert_null(pin.desc);
	}
	free(cause);
	topo_pin_release(&pin);
}

/* ---- cpu lists ---- */

static void test_topology__cpulist_parses_kernel_forms(void **state)
{
	(void)state;
	struct cpumask m;
	assert_int_equal(cpumask_parse(&m, "0-5,12-17", NULL), 0);
	assert_int_equal(cpumask_count(&m), 12);
	assert_true(cpumask_has(&m, 0) && cpumask_has(&m, 5) && cpumask_has(&m, 12) &&
		    cpumask_has(&m, 17));
	assert_false(cpumask_has(&m, 6) || cpumask_has(&m, 11) || cpumask_has(&m, 18));
	assert_mask(&m, "0-5,12-17");

	assert_int_equal(cpumask_parse(&m, "3", NULL), 0);
	assert_int_equal(cpumask_count(&m), 1);
	assert_int_equal(cpumask_first(&m), 3);
	assert_mask(&m, "3");

	assert_int_equal(cpumask_parse(&m, "0-3,8-11\n", NULL), 0);
	assert_int_equal(cpumask_count(&m), 8);
	assert_mask(&m, "0-3,8-11");

	assert_int_equal(cpumask_parse(&m, "", NULL), 0);
	assert_true(cpumask_empty(&m));
	assert_int_equal(cpumask_count(&m), 0);
	assert_int_equal(cpumask_first(&m), -1);
	assert_mask(&m, "");
	assert_int_equal(cpumask_parse(&m, "\n", NULL), 0);
	assert_true(cpumask_empty(&m));

	/* single CPUs and touching ranges come back compact */
	assert_int_equal(cpumask_parse(&m, "0,2,4", NULL), 0);
	assert_mask(&m, "0,2,4");
	assert_int_equal(cpumask_parse(&m, "0-1,2-3,5", NULL), 0);
	assert_mask(&m, "0-3,5");
	assert_int_equal(cpumask_parse(&m, "7,1-2", NULL), 0);
	assert_mask(&m, "1-2,7");

	/* the highest CPU number accepted is CPUMASK_MAX - 1 = 8191 */
	assert_int_equal(cpumask_parse(&m, "8191", NULL), 0);
	assert_int_equal(cpumask_first(&m), 8191);
	assert_int_equal(cpumask_parse(&m, "0-8191", NULL), 0);
	assert_int_equal(cpumask_count(&m), 8192);
	assert_mask(&m, "0-8191");
}

static void test_topology__cpulist_rejects_junk(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int rc;
		const char *why;
	} bad[] = {
		{ "3-1", -EINVAL, "range 3-1 runs backwards" },
		{ "a", -EINVAL, "expected a cpu number at offset 0" },
		{ "1,,2", -EINVAL, "at offset 2" },
		{ "0-", -EINVAL, "at offset 2" },
		{ "1,", -EINVAL, "expected ','" },
		{ ",1", -EINVAL, "at offset 0" },
		{ "-1", -EINVAL, "at offset 0" },
		{ "+1", -EINVAL, "at offset 0" },
		{ " 1", -EINVAL, "at offset 0" },
		{ "1 ", -EINVAL, "at offset 1" },
		{ "1\n\n", -EINVAL, "at offset 1" },
		{ "0-7:2", -EINVAL, "at offset 3" },
		{ "0x3", -EINVAL, "at offset 1" },
		{ "8192", -ERANGE, "cpu numbers stop at 8191" },
		{ "0-8192", -ERANGE, "cpu numbers stop at 8191" },
		{ "99999999999999999999999999", -ERANGE, "stop at 8191" },
		{ "4294967296", -ERANGE, "stop at 8191" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cpumask m;
		char *cause = NULL;
		cpumask_set(&m, 5);
		int rc = cpumask_parse(&m, bad[i].text, &cause);
		if (rc != bad[i].rc)
			fail_msg("'%s': rc %d, want %d", bad[i].text, rc, bad[i].rc);
		assert_contains(cause, bad[i].why);
		assert_contains(cause, "invalid cpu list '");
		assert_true(cpumask_empty(&m));
		free(cause);
	}
	/* a cause of NULL is allowed */
	struct cpumask m;
	assert_int_equal(cpumask_parse(&m, "x", NULL), -EINVAL);
	/* a long input is echoed cut short */
	char *cause = NULL;
	char longbad[200];
	memset(longbad, '1', sizeof(longbad) - 2);
	longbad[sizeof(longbad) - 2] = 'z';
	longbad[sizeof(longbad) - 1] = '\0';
	assert_int_equal(cpumask_parse(&m, longbad, &cause), -ERANGE);
	assert_contains(cause, "...'");
	assert_true(strlen(cause) < 120);
	free(cause);
}

static void test_topology__cpumask_helpers(void **state)
{
	(void)state;
	struct cpumask a, b, c;
	/* across word boundaries: 63|64 and 127|128 */
	assert_int_equal(cpumask_parse(&a, "1,63-64,127-128,8191", NULL), 0);
	int want[] = { 1, 63, 64, 127, 128, 8191 };
	size_t k = 0;
	for (int cpu = cpumask_first(&a); cpu >= 0; cpu = cpumask_next(&a, cpu))
		assert_int_equal(cpu, want[k++]);
	assert_int_equal(k, 6);
	assert_int_equal(cpumask_next(&a, 8191), -1);

	cpumask_clear(&b);
	assert_int_equal(cpumask_set(&b, 64), 0);
	assert_int_equal(cpumask_set(&b, 65), 0);
	assert_int_equal(cpumask_set(&b, 8192), -ERANGE);
	assert_int_equal(cpumask_set(&b, -1), -ERANGE);
	assert_false(cpumask_has(&b, -1));
	assert_false(cpumask_has(&b, 8192));
	assert_true(cpumask_intersects(&a, &b));
	cpumask_and(&c, &a, &b);
	assert_mask(&c, "64");
	cpumask_andnot(&c, &a, &b);
	assert_mask(&c, "1,63,127-128,8191");
	cpumask_and(&a, &a, &b);	/* dst may alias */
	assert_mask(&a, "64");
	assert_false(cpumask_equal(&a, &b));
	cpumask_set(&a, 65);
	assert_true(cpumask_equal(&a, &b));
}

/* ---- sizes ---- */

static void test_topology__size_parses_sysfs_forms(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		uint64_t bytes;
	} good[] = {
		/* hand calculation: K = 2^10, M = 2^20, G = 2^30 */
		{ "32768K", 33554432 },
		{ "32768K\n", 33554432 },
		{ "1M", 1048576 },
		{ "96M", 100663296 },
		{ "512", 512 },
		{ "1G", 1073741824 },
		{ "0", 0 },
		{ "18446744073709551615", UINT64_MAX },
		{ "16777215G", UINT64_C(16777215) << 30 },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = 7;
		char *cause = NULL;
		int rc = cache_size_parse(good[i].text, &v, &cause);
		if (rc != 0)
			fail_msg("'%s': %s", good[i].text, cause);
		assert_int_equal(v, good[i].bytes);
		assert_null(cause);
	}
}

static void test_topology__size_rejects_junk(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int rc;
	} bad[] = {
		{ "", -EINVAL },	{ "K", -EINVAL },	{ "-1", -EINVAL },
		{ "-1K", -EINVAL },	{ "+1", -EINVAL },	{ "1.5M", -EINVAL },
		{ "1T", -EINVAL },	{ "1KB", -EINVAL },	{ " 1K", -EINVAL },
		{ "1K ", -EINVAL },	{ "1k", -EINVAL },	{ "1K\n\n", -EINVAL },
		{ "8192Q", -EINVAL },	{ "0x10", -EINVAL },
		/* 2^64 and more */
		{ "18446744073709551616", -ERANGE },
		{ "99999999999999999999999", -ERANGE },
		{ "18014398509481984K", -ERANGE },
		{ "17179869184G", -ERANGE },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 7;
		char *cause = NULL;
		int rc = cache_size_parse(bad[i].text, &v, &cause);
		if (rc != bad[i].rc)
			fail_msg("'%s': rc %d, want %d", bad[i].text, rc, bad[i].rc);
		assert_int_equal(v, 7);
		assert_contains(cause, "invalid size '");
		free(cause);
	}
}

static void test_topology__size_formats_exactly(void **state)
{
	(void)state;
	char b[32];
	cache_size_format(33554432, b, sizeof(b));
	assert_string_equal(b, "32 MiB");
	cache_size_format(1310720, b, sizeof(b));	/* 1280K */
	assert_string_equal(b, "1280 KiB");
	cache_size_format(512, b, sizeof(b));
	assert_string_equal(b, "512 B");
	cache_size_format(1073741824, b, sizeof(b));
	assert_string_equal(b, "1 GiB");
	cache_size_format(1536, b, sizeof(b));
	assert_string_equal(b, "1536 B");
	cache_size_format(0, b, sizeof(b));
	assert_string_equal(b, "0 B");
	assert_string_equal(cache_type_name(CACHE_TYPE_DATA), "Data");
	assert_string_equal(cache_type_name(CACHE_TYPE_INSTRUCTION), "Instruction");
	assert_string_equal(cache_type_name(CACHE_TYPE_UNIFIED), "Unified");
}

/* ---- fixtures ---- */

static void test_topology__sym_2ccd_dedups_and_numbers(void **state)
{
	(void)state;
	struct topo t;
	size_t n;
	const struct cache_domain *d;
	load(&t, "sym-2ccd");
	assert_mask(&t.online, "0-23");
	/* 24 CPUs report 4 entries each (96); distinct: 12 L1d, 12 L1i,
	 * 12 L2 (one per core, shared by an SMT pair) and 2 L3 */
	assert_int_equal(t.n_caches, 38);
	assert_null(t.cache_cause);
	for (int l = 0; l <= TOPO_MAX_CACHE_LEVEL; l++)
		assert_null(t.level_cause[l]);

	d = topo_domains(&t, 1, CACHE_TYPE_DATA, &n);
	assert_int_equal(n, 12);
	assert_ptr_equal(d, &t.caches[0]);
	assert_int_equal(d[0].size_bytes, 32768);
	assert_mask(&d[0].cpus, "0,12");
	assert_int_equal(d[0].index, 0);
	assert_int_equal(d[0].id, 0);
	assert_mask(&d[6].cpus, "6,18");
	assert_int_equal(d[6].index, 6);
	assert_int_equal(d[6].id, 8);	/* core ids skip 6-7 on this part */
	d = topo_domains(&t, 1, CACHE_TYPE_INSTRUCTION, &n);
	assert_int_equal(n, 12);
	assert_int_equal(d[0].index, 0);
	d = topo_domains(&t, 2, CACHE_TYPE_UNIFIED, &n);
	assert_int_equal(n, 12);
	assert_int_equal(d[11].size_bytes, 524288);
	assert_mask(&d[11].cpus, "11,23");
	assert_int_equal(d[11].index, 11);
	d = topo_domains(&t, 2, CACHE_TYPE_DATA, &n);
	assert_null(d);
	assert_int_equal(n, 0);

	assert_int_equal(t.llc_level, 3);
	assert_int_equal(t.n_llc, 2);
	assert_null(t.llc_cause);
	assert_int_equal(t.llc[0].size_bytes, 32 << 20);
	assert_mask(&t.llc[0].cpus, "0-5,12-17");
	assert_int_equal(t.llc[0].id, 0);
	assert_int_equal(t.llc[0].index, 0);
	assert_mask(&t.llc[1].cpus, "6-11,18-23");
	assert_int_equal(t.llc[1].id, 1);
	assert_int_equal(t.llc[1].index, 1);
	assert_false(t.llc_asymmetric);
	/* a tie of two 32 MiB L3s goes to the first in CPU order */
	assert_ptr_equal(t.largest_llc, &t.llc[0]);
	assert_null(t.largest_llc_reason);

	assert_int_equal(t.n_smt, 12);
	assert_mask(&t.smt[0], "0,12");
	assert_mask(&t.smt[11], "11,23");
	assert_int_equal(t.cluster_source, TOPO_CLUSTER_SYSFS);
	assert_int_equal(t.n_clusters, 12);
	assert_int_equal(t.n_packages, 1);
	assert_mask(&t.packages[0], "0-23");
	assert_int_equal(t.n_nodes, 1);
	assert_int_equal(t.nodes[0].node, 0);
	assert_mask(&t.nodes[0].cpus, "0-23");
	assert_null(t.smt_cause);
	assert_null(t.cluster_cause);
	assert_null(t.package_cause);
	assert_null(t.node_cause);
	assert_string_equal(t.root, FIXTURES_DIR "/sysfs/sym-2ccd");
	topo_release(&t);
	topo_release(&t);	/* harmless twice */
}

static void test_topology__asym_x3d_largest_is_the_96m_ccd(void **state)
{
	(void)state;
	struct topo t;
	load(&t, "asym-x3d");
	assert_int_equal(t.n_caches, 16 * 3 + 2);
	assert_int_equal(t.n_llc, 2);
	assert_true(t.llc_asymmetric);
	assert_int_equal(t.llc[0].size_bytes, 96 << 20);
	assert_int_equal(t.llc[1].size_bytes, 32 << 20);
	assert_ptr_equal(t.largest_llc, &t.llc[0]);
	assert_mask(&t.largest_llc->cpus, "0-7,16-23");
	check_pin(&t, "largest-llc", 0, "0-7,16-23",
		  "pinned to the 16 CPUs sharing the largest L3 (96 MiB)");
	check_pin(&t, "llc:1", 0, "8-15,24-31",
		  "pinned to the 16 CPUs sharing L3 domain 1 (32 MiB; llc:1)");
	check_pin(&t, "llc:2", -ERANGE, NULL, "llc:0 to llc:1");
	topo_release(&t);
}

static void test_topology__largest_llc_prefers_size_over_order(void **state)
{
	(void)state;
	/* A bigger domain second in CPU order still wins: grow package 1's
	 * L3 (CPUs 4-7,12-15) in the two-socket tree to 30 MiB. */
	struct topo t;
	char *root = copy_fixture("two-socket"), *cause = NULL;
	for (int cpu = 0; cpu < 16; cpu++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "cpu/cpu%d/cache/index3/size", cpu);
		if ((cpu % 8) >= 4)
			put(root, rel, "30720K\n");
	}
	assert_int_equal(topo_read(&t, root, &cause), 0);
	assert_true(t.llc_asymmetric);
	assert_ptr_equal(t.largest_llc, &t.llc[1]);
	check_pin(&t, "largest-llc", 0, "4-7,12-15",
		  "pinned to the 8 CPUs sharing the largest L3 (30 MiB)");
	topo_release(&t);
	tu_rmrf(root);
	free(root);
}

static void test_topology__hybrid_clusters_and_smt(void **state)
{
	(void)state;
	struct topo t;
	size_t n;
	const struct cache_domain *d;
	load(&t, "hybrid");
	/* L1d: 8 P-core (48K) + 8 E-core (32K) */
	d = topo_domains(&t, 1, CACHE_TYPE_DATA, &n);
	assert_int_equal(n, 16);
	assert_int_equal(d[7].size_bytes, 48 << 10);
	assert_mask(&d[7].cpus, "14-15");
	assert_int_equal(d[8].size_bytes, 32 << 10);
	assert_mask(&d[8].cpus, "16");
	d = topo_domains(&t, 1, CACHE_TYPE_INSTRUCTION, &n);
	assert_int_equal(n, 16);
	assert_int_equal(d[15].size_bytes, 64 << 10);
	/* L2: 8 P-core 1280K + 2 E-core clusters of 2 MiB */
	d = topo_domains(&t, 2, CACHE_TYPE_UNIFIED, &n);
	assert_int_equal(n, 10);
	assert_int_equal(d[0].size_bytes, 1280 << 10);
	assert_mask(&d[8].cpus, "16-19");
	assert_mask(&d[9].cpus, "20-23");
	assert_int_equal(d[9].size_bytes, 2 << 20);

	assert_int_equal(t.cluster_source, TOPO_CLUSTER_SYSFS);
	assert_int_equal(t.n_clusters, 10);
	assert_mask(&t.clusters[0], "0-1");
	assert_mask(&t.clusters[8], "16-19");
	assert_mask(&t.clusters[9], "20-23");
	/* SMT: 8 P-core pairs, 8 E-cores alone */
	assert_int_equal(t.n_smt, 16);
	assert_mask(&t.smt[7], "14-15");
	assert_mask(&t.smt[8], "16");

	assert_int_equal(t.n_llc, 1);
	assert_false(t.llc_asymmetric);
	check_pin(&t, "largest-llc", 0, "0-23",
		  "pinned to the 24 CPUs sharing the largest L3 (30 MiB)");
	check_pin(&t, "l2:8", 0, "16-19",
		  "pinned to the 4 CPUs sharing L2 domain 8 (2 MiB; l2:8)");
	check_pin(&t, "l2:3", 0, "6-7",
		  "pinned to the 2 CPUs sharing L2 domain 3 (1280 KiB; l2:3)");
	check_pin(&t, "l2:10", -ERANGE, NULL, "the machine has 10 L2 cache domains (l2:0 to l2:9)");
	topo_release(&t);
}

static void test_topology__no_l3_has_no_shared_llc(void **state)
{
	(void)state;
	struct topo t;
	load(&t, "no-l3");
	assert_int_equal(t.n_caches, 24);
	assert_int_equal(t.llc_level, 2);
	assert_int_equal(t.n_llc, 8);
	assert_null(t.llc_cause);
	assert_false(t.llc_asymmetric);
	assert_null(t.largest_llc);
	assert_string_equal(t.largest_llc_reason,
			    "no last-level cache is shared by more than one online cpu: "
			    "the machine reports no level-3 cache, and each of its 8 L2 "
			    "caches (1 MiB) serves one cpu");
	assert_int_equal(t.caches[0].id, -1);	/* no id files */
	/* no cluster_cpus_list: clusters are the (private) L2 domains */
	assert_int_equal(t.cluster_source, TOPO_CLUSTER_L2);
	assert_null(t.cluster_cause);
	assert_int_equal(t.n_clusters, 8);
	assert_mask(&t.clusters[7], "7");
	assert_int_equal(t.n_smt, 8);

	check_pin(&t, "largest-llc", -ENOENT, NULL, "no level-3 cache");
	/* the last level here is L2, so llc:N and l2:N agree */
	check_pin(&t, "llc:3", 0, "3", "pinned to CPU 3 of L2 domain 3 (1 MiB; llc:3)");
	check_pin(&t, "l2:3", 0, "3", "pinned to CPU 3 of L2 domain 3 (1 MiB; l2:3)");
	topo_release(&t);
}

static void test_topology__two_socket_old_names_and_nodes(void **state)
{
	(void)state;
	struct topo t;
	load(&t, "two-socket");
	/* thread_siblings_list and core_siblings_list stand in */
	assert_int_equal(t.n_smt, 8);
	assert_mask(&t.smt[0], "0,8");
	assert_mask(&t.smt[7], "7,15");
	assert_int_equal(t.n_packages, 2);
	assert_mask(&t.packages[0], "0-3,8-11");
	assert_mask(&t.packages[1], "4-7,12-15");
	assert_int_equal(t.cluster_source, TOPO_CLUSTER_L2);
	assert_int_equal(t.n_clusters, 8);
	assert_mask(&t.clusters[1], "1,9");

	assert_int_equal(t.n_nodes, 2);
	assert_int_equal(t.nodes[1].node, 1);
	assert_mask(&t.nodes[1].cpus, "4-7,12-15");

	assert_int_equal(t.n_llc, 2);
	assert_false(t.llc_asymmetric);
	assert_ptr_equal(t.largest_llc, &t.llc[0]);	/* tie: first wins */
	check_pin(&t, "largest-llc", 0, "0-3,8-11",
		  "pinned to the 8 CPUs sharing the largest L3 (22 MiB)");
	check_pin(&t, "node:1", 0, "4-7,12-15", "pinned to the 8 CPUs of NUMA node 1 (node:1)");
	check_pin(&t, "node:0", 0, "0-3,8-11", "pinned to the 8 CPUs of NUMA node 0 (node:0)");
	check_pin(&t, "node:2", -ERANGE, NULL, "the numa nodes are 0, 1");
	topo_release(&t);
}

static void test_topology__malformed_l3_leaves_l1_l2(void **state)
{
	(void)state;
	struct topo t;
	size_t n;
	load(&t, "malformed");
	/* L1d, L1i, L2 of 4 private cores survive; L3 is left out whole */
	assert_int_equal(t.n_caches, 12);
	assert_non_null(topo_domains(&t, 2, CACHE_TYPE_UNIFIED, &n));
	assert_int_equal(n, 4);
	assert_null(topo_domains(&t, 3, CACHE_TYPE_UNIFIED, &n));
	assert_int_equal(n, 0);
	assert_null(t.level_cause[1]);
	assert_null(t.level_cause[2]);
	/* cpu0 is read first, so its bad list is what the cause names */
	assert_contains(t.level_cause[3], "/cpu/cpu0/cache/index3/shared_cpu_list");
	assert_contains(t.level_cause[3], "invalid cpu list '0-3x'");
	assert_int_equal(t.llc_level, 3);
	assert_int_equal(t.n_llc, 0);
	assert_null(t.largest_llc);
	assert_contains(t.llc_cause, "the last-level cache (L3) is unusable: cannot use '");
	assert_contains(t.largest_llc_reason, "(L3) is unusable");

	check_pin(&t, "largest-llc", -ENODATA, NULL, "(L3) is unusable");
	check_pin(&t, "llc:0", -ENODATA, NULL, "0-3x");
	check_pin(&t, "l2:0", 0, "0", "pinned to CPU 0 of L2 domain 0 (512 KiB; l2:0)");
	check_pin(&t, "cpus:1-2", 0, "1-2", "pinned to CPUs 1-2 (cpus:1-2)");
	topo_release(&t);
}

/* Breaks one file of a copy of `machine` and reads it. */
static void read_broken(struct topo *t, const char *machine, const char *rel,
			const char *text)
{
	char *root = copy_fixture(machine), *cause = NULL;
	if (text)
		put(root, rel, text);
	else
		rm(root, rel);
	int rc = topo_read(t, root, &cause);
	if (rc != 0)
		fail_msg("topo_read = %d: %s", rc, cause);
	tu_rmrf(root);
	free(root);
}

static void test_topology__each_l3_fault_alone_drops_l3(void **state)
{
	(void)state;
	static const struct {
		const char *rel, *text, *why;
	} faults[] = {
		{ "cpu/cpu2/cache/index3/size", "8192Q\n", "invalid size '8192Q'" },
		{ "cpu/cpu2/cache/index3/shared_cpu_list", "2-0\n", "range 2-0 runs backwards" },
		{ "cpu/cpu1/cache/index3/size", "0K\n", "the cache size is zero" },
		{ "cpu/cpu1/cache/index3/size", NULL, "cpu1/cache/index3/size': no such file" },
		{ "cpu/cpu1/cache/index3/shared_cpu_list", NULL, "shared_cpu_list': no such file" },
		{ "cpu/cpu1/cache/index3/type", "Weird\n", "unknown cache type 'Weird'" },
		{ "cpu/cpu1/cache/index3/id", "x\n", "expected a number" },
		{ "cpu/cpu1/cache/index3/shared_cpu_list", "\n", "does not list cpu 1 itself" },
		/* consistent alone, inconsistent with the other CPUs' entries */
		{ "cpu/cpu1/cache/index3/size", "4096K\n", "a size of 4 MiB, another cpu's entry 8 MiB" },
		{ "cpu/cpu1/cache/index3/shared_cpu_list", "1-3\n", "lists cpus 1-3, which overlap another L3's cpus 0-3" },
		{ "cpu/cpu1/cache/index3/id", "7\n", "the id 7, another cpu's entry 0" },
	};
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		struct topo t;
		read_broken(&t, "offline-cpu", faults[i].rel, faults[i].text);
		if (!t.level_cause[3] || !strstr(t.level_cause[3], faults[i].why))
			fail_msg("%s: cause '%s', want '%s'", faults[i].rel,
				 t.level_cause[3] ? t.level_cause[3] : "(none)", faults[i].why);
		assert_int_equal(t.n_llc, 0);
		assert_int_equal(t.n_caches, 9);	/* 3 online CPUs x L1d, L1i, L2 */
		check_pin(&t, "largest-llc", -ENODATA, NULL, faults[i].why);
		topo_release(&t);
	}
}

static void test_topology__unreadable_level_drops_every_cache(void **state)
{
	(void)state;
	struct topo t;
	/* the level of an entry is what places it: without it, the entry
	 * could be the last level, so no level can be trusted */
	read_broken(&t, "offline-cpu", "cpu/cpu2/cache/index0/level", "one\n");
	assert_int_equal(t.n_caches, 0);
	assert_int_equal(t.n_llc, 0);
	assert_contains(t.cache_cause, "cpu2/cache/index0/level': expected a number from 0 to 7, found 'one'");
	assert_contains(t.llc_cause, "the caches are unusable");
	assert_int_equal(t.cluster_source, TOPO_CLUSTER_SYSFS);	/* not from caches */
	check_pin(&t, "largest-llc", -ENODATA, NULL, "the caches are unusable");
	check_pin(&t, "l2:0", -ENODATA, NULL, "the L2 cache is unusable");
	check_pin(&t, "cpus:0", 0, "0", "pinned to CPU 0 (cpus:0)");
	topo_release(&t);

	/* a cache directory that cannot be listed says nothing either */
	char *root = copy_fixture("offline-cpu");
	rm(root, "cpu/cpu1/cache");
	put(root, "cpu/cpu1/cache", "not a directory\n");
	assert_int_equal(topo_read(&t, root, NULL), 0);
	assert_int_equal(t.n_caches, 0);
	assert_contains(t.cache_cause, "cpu1/cache': not a directory");
	check_pin(&t, "llc:0", -ENODATA, NULL, "the caches are unusable: cannot read '");
	topo_release(&t);
	tu_rmrf(root);
	free(root);

	read_broken(&t, "offline-cpu", "cpu/cpu0/cache/index3/level", "0\n");
	assert_contains(t.cache_cause, "level 0 is no cache level");
	topo_release(&t);
	read_broken(&t, "no-l3", "cpu/cpu5/cache/index1/level", "8\n");
	assert_contains(t.cache_cause, "expected a number from 0 to 7, found '8'");
	assert_int_equal(t.cluster_source, TOPO_CLUSTER_NONE);
	assert_contains(t.cluster_cause, "no cluster_cpus_list, and the L2 is unusable");
	topo_release(&t);
}

/*
 * Issue 15: a guest whose hypervisor reports no L2 (only L1 and an L3)
 * refused every l2:N. The last-level domain stands in, and the pin says
 * so; an index past the last-level domains is still out of range. On a
 * machine whose L2 is the last level (no-l3) nothing changes.
 */
static void test_topology__l2_pin_falls_back_to_the_llc(void **state)
{
	(void)state;
	struct topo t;
	load(&t, "no-l2");
	size_t n;
	assert_null(topo_domains(&t, 2, CACHE_TYPE_UNIFIED, &n));
	assert_int_equal(n, 0);
	assert_int_equal(t.n_llc, 1);
	check_pin(&t, "l2:0", 0, "0-3",
		  "pinned to the 4 CPUs sharing L3 domain 0 (16 MiB; l2:0); the machine "
		  "reports no L2 cache, so its L3 domain stands in");
	check_pin(&t, "l2:1", -ERANGE, NULL, "l2:1");
	topo_release(&t);
	load(&t, "no-l3");
	check_pin(&t, "l2:3", 0, "3", "pinned to CPU 3 of L2 domain 3 (1 MiB; l2:3)");
	topo_release(&t);
}

static void test_topology__offline_cpu_is_left_out(void **state)
{
	(void)state;
	struct topo t;
	load(&t, "offline-cpu");
	assert_mask(&t.online, "0-2");
	/* cpu3 has no cache directory: only 3 private L2s */
	assert_int_equal(t.n_caches, 10);
	assert_int_equal(t.n_llc, 1);
	assert_mask(&t.llc[0].cpus, "0-3");	/* as sysfs lists it */
	assert_ptr_equal(t.largest_llc, &t.llc[0]);
	assert_int_equal(t.n_smt, 3);
	assert_mask(&t.nodes[0].cpus, "0-3");

	struct topo_pin pin;
	char *cause = NULL;
	assert_int_equal(topo_pin_resolve(&t, "largest-llc", &pin, &cause), 0);
	assert_mask(&pin.cpus, "0-2");
	assert_mask(&pin.offline, "3");
	assert_int_equal(pin.mode, TOPO_PIN_LARGEST_LLC);
	assert_int_equal(pin.level, 3);
	assert_int_equal(pin.type, CACHE_TYPE_UNIFIED);
	assert_int_equal(pin.size_bytes, 8 << 20);
	assert_string_equal(pin.desc, "pinned to the 3 CPUs sharing the largest L3 (8 MiB); "
				      "offline CPU 3 left out");
	topo_pin_release(&pin);

	check_pin(&t, "node:0", 0, "0-2",
		  "pinned to the 3 CPUs of NUMA node 0 (node:0); offline CPU 3 left out");
	check_pin(&t, "cpus:2-3", 0, "2", "pinned to CPU 2 (cpus:2-3); offline CPU 3 left out");
	check_pin(&t, "cpus:0-5", 0, "0-2",
		  "pinned to CPUs 0-2 (cpus:0-5); offline CPUs 3-5 left out");
	check_pin(&t, "cpus:3", -ENXIO, NULL, "no online cpu in cpus:3: cpus 3 are offline (online: 0-2)");
	check_pin(&t, "l2:3", -ERANGE, NULL, "the machine has 3 L2 cache domains (l2:0 to l2:2)");
	topo_release(&t);

	/* an L3 left with one online CPU is not shared */
	char *root = copy_fixture("offline-cpu");
	put(root, "cpu/online", "0\n");
	assert_int_equal(topo_read(&t, root, &cause), 0);
	assert_null(t.largest_llc);
	assert_contains(t.largest_llc_reason, "each of its 1 L3 caches (8 MiB) serves one cpu");
	check_pin(&t, "llc:0", 0, "0",
		  "pinned to CPU 0 of L3 domain 0 (8 MiB; llc:0); offline CPUs 1-3 left out");
	topo_release(&t);
	tu_rmrf(root);
	free(root);
}

static void test_topology__groups_and_nodes_faults(void **state)
{
	(void)state;
	struct topo t;
	read_broken(&t, "offline-cpu", "cpu/cpu1/topology/core_cpus_list", "1-2\n");
	assert_int_equal(t.n_smt, 0);
	/* cpu1 is read first; cpu2's honest list is the one that clashes */
	assert_contains(t.smt_cause, "cpu2/topology/core_cpus_list': it lists cpus 2, which overlap another cpu's 1-2");
	assert_int_equal(t.n_caches, 10);	/* caches are not touched */
	assert_int_equal(t.n_packages, 1);
	topo_release(&t);

	read_broken(&t, "offline-cpu", "cpu/cpu1/topology/package_cpus_list", "0,2\n");
	assert_int_equal(t.n_packages, 0);
	assert_contains(t.package_cause, "cpu1/topology/package_cpus_list': it does not list cpu 1 itself");
	assert_int_equal(t.n_smt, 3);
	topo_release(&t);

	read_broken(&t, "offline-cpu", "cpu/cpu1/topology/cluster_cpus_list", NULL);
	assert_int_equal(t.n_clusters, 0);
	assert_int_equal(t.cluster_source, TOPO_CLUSTER_NONE);
	assert_contains(t.cluster_cause, "cpu1/topology/cluster_cpus_list': no such file");
	topo_release(&t);

	read_broken(&t, "two-socket", "node/node1/cpulist", "4-7,12-15,0\n");
	assert_int_equal(t.n_nodes, 0);
	assert_contains(t.node_cause, "node1/cpulist': it shares cpus with node0");
	check_pin(&t, "node:0", -ENODATA, NULL, "the numa nodes are unusable");
	topo_release(&t);

	read_broken(&t, "two-socket", "node/node1/cpulist", "a\n");
	assert_contains(t.node_cause, "invalid cpu list 'a'");
	topo_release(&t);

	/* a kernel without NUMA has no node directory: no nodes, no fault */
	read_broken(&t, "two-socket", "node", NULL);
	assert_int_equal(t.n_nodes, 0);
	assert_null(t.node_cause);
	check_pin(&t, "node:0", -ERANGE, NULL, "the machine reports no numa nodes");
	topo_release(&t);
}

static void test_topology__no_caches_at_all(void **state)
{
	(void)state;
	struct topo t;
	char *root = copy_fixture("no-l3"), *cause = NULL;
	for (int cpu = 0; cpu < 8; cpu++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "cpu/cpu%d/cache", cpu);
		rm(root, rel);
	}
	assert_int_equal(topo_read(&t, root, &cause), 0);
	assert_int_equal(t.n_caches, 0);
	assert_int_equal(t.llc_level, 0);
	assert_null(t.cache_cause);
	assert_null(t.llc_cause);
	assert_contains(t.largest_llc_reason, "the machine reports no caches (no '");
	assert_contains(t.largest_llc_reason, "/cpu/cpu0/cache')");
	assert_int_equal(t.cluster_source, TOPO_CLUSTER_NONE);
	assert_string_equal(t.cluster_cause, "no cluster_cpus_list, and no L2 cache");
	check_pin(&t, "largest-llc", -ENOENT, NULL, "reports no caches");
	check_pin(&t, "llc:0", -ERANGE, NULL, "the machine reports no last-level cache domains");
	check_pin(&t, "l2:0", -ERANGE, NULL, "the machine reports no L2 cache domains");
	topo_release(&t);
	tu_rmrf(root);
	free(root);
}

static void test_topology__missing_or_bad_tree_is_an_error(void **state)
{
	(void)state;
	struct topo t;
	char *cause = NULL;
	assert_int_equal(topo_read(&t, "/nonexistent/prof-topo", &cause), -ENOENT);
	assert_string_equal(cause, "cannot read '/nonexistent/prof-topo/sys/devices/system/cpu/online': "
				   "no such file or directory");
	free(cause);
	topo_release(&t);	/* harmless after a failure */

	/* a trailing slash on the root changes nothing */
	char *root = fixture("sym-2ccd"), *slash;
	if (asprintf(&slash, "%s//", root) < 0)
		abort();
	assert_int_equal(topo_read(&t, slash, NULL), 0);
	assert_int_equal(t.n_caches, 38);
	assert_string_equal(t.root, slash);
	topo_release(&t);
	free(slash);
	free(root);

	static const char *const bad_online[] = { "0-\n", "\n", "9000\n" };
	for (size_t i = 0; i < 3; i++) {
		root = copy_fixture("no-l3");
		put(root, "cpu/online", bad_online[i]);
		cause = NULL;
		assert_int_equal(topo_read(&t, root, &cause), -EINVAL);
		assert_contains(cause, "/sys/devices/system/cpu/online'");
		free(cause);
		tu_rmrf(root);
		free(root);
	}
}

/* sysfs holds regular files only: a FIFO, a device or a socket in the tree
 * is refused at once, never waited on (a FIFO nobody writes used to hang
 * the open forever). */
static void test_topology__special_files_are_refused_not_waited_on(void **state)
{
	(void)state;
	alarm(30);	/* a hang fails the test instead of stalling it */
	static const char *const rels[] = { "cpu/online",
					    "cpu/cpu1/cache/index3/size" };
	for (size_t i = 0; i < 2; i++) {
		for (int dev = 0; dev < 2; dev++) {
			char *root = copy_fixture("offline-cpu"), *path, *cause = NULL;
			if (asprintf(&path, "%s/sys/devices/system/%s", root, rels[i]) < 0)
				abort();
			assert_int_equal(unlink(path), 0);
			if (dev)
				assert_int_equal(symlink("/dev/zero", path), 0);
			else
				assert_int_equal(mkfifo(path, 0600), 0);
			struct topo t;
			int rc = topo_read(&t, root, &cause);
			if (i == 0) {
				/* without the online cpus there is no topology */
				assert_int_equal(rc, -EINVAL);
				assert_contains(cause, "online': not a regular file");
			} else {
				/* one bad cache file drops that level, as a bad
				 * value does */
				assert_int_equal(rc, 0);
				assert_contains(t.level_cause[3], "size': not a regular file");
				assert_int_equal(t.n_llc, 0);
				assert_int_equal(t.n_caches, 9);
			}
			free(cause);
			topo_release(&t);
			tu_rmrf(root);
			free(root);
			free(path);
		}
	}
	alarm(0);
}

/* ---- pin modes ---- */

static void test_topology__pin_every_mode(void **state)
{
	(void)state;
	struct topo t;
	load(&t, "sym-2ccd");
	check_pin(&t, "none", 0, "", "not pinned (none)");
	check_pin(&t, "largest-llc", 0, "0-5,12-17",
		  "pinned to the 12 CPUs sharing the largest L3 (32 MiB)");
	check_pin(&t, "llc:0", 0, "0-5,12-17",
		  "pinned to the 12 CPUs sharing L3 domain 0 (32 MiB; llc:0)");
	check_pin(&t, "llc:1", 0, "6-11,18-23",
		  "pinned to the 12 CPUs sharing L3 domain 1 (32 MiB; llc:1)");
	check_pin(&t, "l2:0", 0, "0,12", "pinned to the 2 CPUs sharing L2 domain 0 (512 KiB; l2:0)");
	check_pin(&t, "l2:11", 0, "11,23",
		  "pinned to the 2 CPUs sharing L2 domain 11 (512 KiB; l2:11)");
	check_pin(&t, "node:0", 0, "0-23", "pinned to the 24 CPUs of NUMA node 0 (node:0)");
	check_pin(&t, "cpus:0", 0, "0", "pinned to CPU 0 (cpus:0)");
	check_pin(&t, "cpus:0-3,8", 0, "0-3,8", "pinned to CPUs 0-3,8 (cpus:0-3,8)");

	struct topo_pin pin;
	assert_int_equal(topo_pin_resolve(&t, "l2:2", &pin, NULL), 0);
	assert_int_equal(pin.mode, TOPO_PIN_L2);
	assert_int_equal(pin.level, 2);
	assert_int_equal(pin.type, CACHE_TYPE_UNIFIED);
	assert_int_equal(pin.size_bytes, 512 << 10);
	assert_true(cpumask_empty(&pin.offline));
	topo_pin_release(&pin);
	assert_int_equal(topo_pin_resolve(&t, "cpus:4", &pin, NULL), 0);
	assert_int_equal(pin.mode, TOPO_PIN_CPUS);
	assert_int_equal(pin.level, 0);
	assert_int_equal(pin.type, CACHE_TYPE_UNKNOWN);
	assert_int_equal(pin.size_bytes, 0);
	topo_pin_release(&pin);
	assert_int_equal(topo_pin_resolve(&t, "node:0", &pin, NULL), 0);
	assert_int_equal(pin.mode, TOPO_PIN_NODE);
	assert_int_equal(pin.level, 0);
	topo_pin_release(&pin);
	assert_int_equal(topo_pin_resolve(&t, "none", &pin, NULL), 0);
	assert_int_equal(pin.mode, TOPO_PIN_NONE);
	assert_true(cpumask_empty(&pin.cpus));
	topo_pin_release(&pin);
	topo_release(&t);
}

static void test_topology__pin_usage_errors(void **state)
{
	(void)state;
	struct topo t;
	load(&t, "sym-2ccd");
	const char *modes = "valid modes: none, largest-llc, llc:N, l2:N, node:N, cpus:LIST";
	check_pin(&t, "fastest", -EINVAL, NULL, "unknown pin mode 'fastest'; ");
	check_pin(&t, "fastest", -EINVAL, NULL, modes);
	check_pin(&t, "", -EINVAL, NULL, modes);
	check_pin(&t, "Largest-LLC", -EINVAL, NULL, modes);
	check_pin(&t, "llc", -EINVAL, NULL, modes);
	check_pin(&t, "l3:0", -EINVAL, NULL, modes);
	check_pin(&t, "llc:", -EINVAL, NULL, "invalid pin mode 'llc:': expected a number");
	check_pin(&t, "llc:x", -EINVAL, NULL, "expected a number");
	check_pin(&t, "llc:-1", -EINVAL, NULL, "expected a number");
	check_pin(&t, "llc:1x", -EINVAL, NULL, "expected a number");
	check_pin(&t, "llc: 1", -EINVAL, NULL, "expected a number");
	check_pin(&t, "node:", -EINVAL, NULL, "expected a number");
	check_pin(&t, "llc:2", -ERANGE, NULL,
		  "pin mode 'llc:2' is out of range: the machine has 2 last-level cache domains (llc:0 to llc:1)");
	check_pin(&t, "llc:99999999999999999999999", -ERANGE, NULL, "out of range");
	check_pin(&t, "l2:12", -ERANGE, NULL, "(l2:0 to l2:11)");
	check_pin(&t, "node:1", -ERANGE, NULL,
		  "pin mode 'node:1' is out of range: the numa nodes are 0");
	check_pin(&t, "cpus:", -EINVAL, NULL, "cpus: needs a cpu list such as 0-3");
	check_pin(&t, "cpus:3-1", -EINVAL, NULL, "invalid pin mode 'cpus:3-1': invalid cpu list '3-1'");
	check_pin(&t, "cpus:a", -EINVAL, NULL, "invalid cpu list 'a'");
	check_pin(&t, "cpus:1,,2", -EINVAL, NULL, "invalid cpu list '1,,2'");
	check_pin(&t, "cpus:9000", -ERANGE, NULL, "cpu numbers stop at 8191");
	/* valid, but naming only CPUs that do not exist here */
	check_pin(&t, "cpus:100-101", -ENXIO, NULL, "no online cpu in cpus:100-101");
	topo_release(&t);
}

static void test_topology__pin_without_topology(void **state)
{
	(void)state;
	/* topo_read failed: usage errors still show, none still works */
	check_pin(NULL, "none", 0, "", "not pinned (none)");
	check_pin(NULL, "largest-llc", -ENODATA, NULL,
		  "cannot pin 'largest-llc': the cpu topology could not be read");
	check_pin(NULL, "llc:0", -ENODATA, NULL, "could not be read");
	check_pin(NULL, "l2:0", -ENODATA, NULL, "could not be read");
	check_pin(NULL, "node:0", -ENODATA, NULL, "could not be read");
	check_pin(NULL, "cpus:0", -ENODATA, NULL, "could not be read");
	check_pin(NULL, "bogus", -EINVAL, NULL, "unknown pin mode 'bogus'");
	check_pin(NULL, "cpus:3-1", -EINVAL, NULL, "runs backwards");
	check_pin(NULL, "llc:z", -EINVAL, NULL, "expected a number");
	struct topo_pin pin;
	assert_int_equal(topo_pin_resolve(NULL, NULL, &pin, NULL), -EINVAL);
	topo_pin_release(&pin);
}

/* ---- the live machine against lscpu ---- */

static char *find_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path ? path : "/usr/bin:/bin"), *save = NULL, *found = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p;
		if (asprintf(&p, "%s/%s", dir, prog) < 0)
			abort();
		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

static enum cache_type type_from_lscpu(const char *s)
{
	if (strcmp(s, "Data") == 0)
		return CACHE_TYPE_DATA;
	if (strcmp(s, "Instruction") == 0)
		return CACHE_TYPE_INSTRUCTION;
	if (strcmp(s, "Unified") == 0)
		return CACHE_TYPE_UNIFIED;
	return CACHE_TYPE_UNKNOWN;
}

static void test_topology__live_machine_agrees_with_lscpu(void **state)
{
	(void)state;
	struct topo t;
	char *cause = NULL;
	int rc = topo_read_live(&t, &cause);
	if (rc != 0)
		fail_msg("topo_read_live = %d: %s", rc, cause);
	/* every cache level readable and consistent on a sane machine */
	assert_null(t.cache_cause);
	for (int l = 0; l <= TOPO_MAX_CACHE_LEVEL; l++)
		if (t.level_cause[l])
			fail_msg("L%d: %s", l, t.level_cause[l]);
	/* an independent count of online CPUs */
	assert_int_equal(cpumask_count(&t.online), (size_t)sysconf(_SC_NPROCESSORS_ONLN));

	char *lscpu = find_in_path("lscpu");
	if (!lscpu) {
		topo_release(&t);
		print_message("lscpu not found: skipping the comparison\n");
		skip();
	}
	char *argv[] = { lscpu, "--caches=NAME,ONE-SIZE,ALL-SIZE,TYPE,LEVEL", "--bytes", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	if (p.status != 0) {
		print_message("lscpu --caches failed (%d: %s): skipping\n", p.status, p.err);
		tu_proc_release(&p);
		free(lscpu);
		topo_release(&t);
		skip();
	}
	/* Rows: "L1d 32768 65536 Data 1"; the first line is the header. */
	size_t rows = 0;
	char *save = NULL;
	char *line = strtok_r(p.out, "\n", &save);
	assert_non_null(line);
	assert_contains(line, "ONE-SIZE");
	while ((line = strtok_r(NULL, "\n", &save))) {
		char name[32], type_s[32];
		unsigned long long one, all;
		int level;
		if (sscanf(line, "%31s %llu %llu %31s %d", name, &one, &all, type_s, &level) != 5)
			fail_msg("cannot read lscpu row '%s'", line);
		enum cache_type type = type_from_lscpu(type_s);
		assert_int_not_equal(type, CACHE_TYPE_UNKNOWN);
		size_t n;
		const struct cache_domain *d = topo_domains(&t, level, type, &n);
		if (!n)
			fail_msg("lscpu reports %s, prof found no L%d %s domain", name, level, type_s);
		uint64_t sum = 0;
		bool same = true, one_seen = false;
		for (size_t i = 0; i < n; i++) {
			sum += d[i].size_bytes;
			same = same && d[i].size_bytes == d[0].size_bytes;
			one_seen = one_seen || d[i].size_bytes == one;
		}
		print_message("%s: lscpu one %llu all %llu; prof %zu domains of %llu, %llu in all\n",
			      name, one, all, n, (unsigned long long)d[0].size_bytes,
			      (unsigned long long)sum);
		/* ONE-SIZE is one domain's size; ALL-SIZE sums the distinct
		 * domains, so ALL/ONE is their count where sizes agree */
		assert_true(one_seen);
		assert_int_equal(all, sum);
		if (same) {
			assert_int_equal(one, d[0].size_bytes);
			assert_int_equal(all % one, 0);
			assert_int_equal(all / one, n);
		}
		rows++;
	}
	/* and prof found no (level, type) that lscpu does not list */
	size_t groups = 0;
	for (size_t i = 0; i < t.n_caches; i++)
		if (t.caches[i].index == 0)
			groups++;
	assert_int_equal(rows, groups);
	tu_proc_release(&p);
	free(lscpu);
	topo_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topology__cpulist_parses_kernel_forms),
		cmocka_unit_test(test_topology__cpulist_rejects_junk),
		cmocka_unit_test(test_topology__cpumask_helpers),
		cmocka_unit_test(test_topology__size_parses_sysfs_forms),
		cmocka_unit_test(test_topology__size_rejects_junk),
		cmocka_unit_test(test_topology__size_formats_exactly),
		cmocka_unit_test(test_topology__sym_2ccd_dedups_and_numbers),
		cmocka_unit_test(test_topology__asym_x3d_largest_is_the_96m_ccd),
		cmocka_unit_test(test_topology__largest_llc_prefers_size_over_order),
		cmocka_unit_test(test_topology__hybrid_clusters_and_smt),
		cmocka_unit_test(test_topology__no_l3_has_no_shared_llc),
		cmocka_unit_test(test_topology__two_socket_old_names_and_nodes),
		cmocka_unit_test(test_topology__malformed_l3_leaves_l1_l2),
		cmocka_unit_test(test_topology__each_l3_fault_alone_drops_l3),
		cmocka_unit_test(test_topology__unreadable_level_drops_every_cache),
		cmocka_unit_test(test_topology__offline_cpu_is_left_out),
		cmocka_unit_test(test_topology__l2_pin_falls_back_to_the_llc),
		cmocka_unit_test(test_topology__groups_and_nodes_faults),
		cmocka_unit_test(test_topology__no_caches_at_all),
		cmocka_unit_test(test_topology__missing_or_bad_tree_is_an_error),
		cmocka_unit_test(test_topology__special_files_are_refused_not_waited_on),
		cmocka_unit_test(test_topology__pin_every_mode),
		cmocka_unit_test(test_topology__pin_usage_errors),
		cmocka_unit_test(test_topology__pin_without_topology),
		cmocka_unit_test(test_topology__live_machine_agrees_with_lscpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
