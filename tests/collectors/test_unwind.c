/*
 * Tests for collectors/unwind (and the symbolizer it shares): a register
 * set and stack captured at test time from tests/helpers/record/
 * unwind_target.c, built here with -fomit-frame-pointer so that only
 * DWARF unwind tables can find the callers, unwound frame by frame
 * against the return addresses the program itself recorded
 * (__builtin_return_address(0) in each level: the ground truth). Copies
 * of the binary with its symbols stripped, its .eh_frame_hdr table
 * overrun, or its .eh_frame garbled show what a damaged module does:
 * [unknown] frames, and a walk that stops cleanly. Needs cc and objcopy;
 * without them the cases skip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>

#include "collectors/elf.h"
#include "collectors/symbolize.h"
#include "collectors/unwind.h"
#include "test_util.h"
#include "unwind_capture.h"

struct fix {
	char *dir;
	bool ok;
	char prog[512], stripped[512];
	struct capture cap;
	uint8_t *stack;
	struct code_map maps[16];
	char *paths[16];
	size_t nmaps;
	const char *redirect_from, *redirect_to;	/* map a path elsewhere */
};

static struct fix F;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	int rc = system(cmd);
	free(cmd);
	return rc;
}

/* Executable mappings of the helper's /proc/self/maps copy. */
static void load_maps(const char *path)
{
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	char line[1024];
	while (fgets(line, sizeof(line), fp) && F.nmaps < 16) {
		unsigned long long a, b, off;
		char perms[8], name[600] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %599s", &a, &b, perms, &off,
			   name) < 4 || perms[2] != 'x')
			continue;
		F.paths[F.nmaps] = strdup(name);
		F.maps[F.nmaps] = (struct code_map){ a, b - a, off, F.paths[F.nmaps] };
		F.nmaps++;
	}
	fclose(fp);
}

static int setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof(F));
	F.dir = tu_tmpdir();
	snprintf(F.prog, sizeof(F.prog), "%s/unwind_target", F.dir);
	snprintf(F.stripped, sizeof(F.stripped), "%s/unwind_target.stripped", F.dir);
	if (sh("command -v cc >/dev/null && command -v objcopy >/dev/null && "
	       "cc -O1 -g -fomit-frame-pointer -fasynchronous-unwind-tables "
	       "-Wl,--build-id=sha1 -o '%s' '%s/../helpers/record/unwind_target.c' && "
	       "objcopy --strip-all '%s' '%s' && '%s' '%s/cap.bin' '%s/maps.txt'",
	       F.prog, FIXTURES_DIR, F.prog, F.stripped, F.prog, F.dir, F.dir) != 0)
		return 0;
	char path[600];
	snprintf(path, sizeof(path), "%s/cap.bin", F.dir);
	FILE *fp = fopen(path, "rb");
	/* A stack size beyond the helper's copy: it was built for another
	 * architecture than this test's (a cross build whose cc is not the
	 * target's). */
	if (!fp || fread(&F.cap, sizeof(F.cap), 1, fp) != 1 ||
	    F.cap.stack_size > CAPTURE_STACK_BYTES)
		return -1;
	F.stack = malloc(F.cap.stack_size ? F.cap.stack_size : 1);
	if (fread(F.stack, 1, F.cap.stack_size, fp) != F.cap.stack_size)
		return -1;
	fclose(fp);
	snprintf(path, sizeof(path), "%s/maps.txt", F.dir);
	load_maps(path);
	F.ok = F.nmaps >= 2;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < F.nmaps; i++)
		free(F.paths[i]);
	free(F.stack);
	tu_rmrf(F.dir);
	free(F.dir);
	return 0;
}

#define NEED_FIXTURE() do { \
	if (!F.ok) { \
		fprintf(stderr, "skip: cc or objcopy missing, or the helper failed\n"); \
		skip(); \
	} \
} while (0)

/* find_map for the captured process, with one path swapped for a copy. */
static const struct code_map *find_map(void *arg, uint64_t addr)
{
	static struct code_map m;
	(void)arg;
	for (size_t i = 0; i < F.nmaps; i++) {
		if (addr - F.maps[i].start < F.maps[i].len) {
			m = F.maps[i];
			if (F.redirect_from && !strcmp(m.path, F.redirect_from))
				m.path = F.redirect_to;
			return &m;
		}
	}
	return NULL;
}

static size_t unwind(struct symbolizer *s, uint64_t *ips, size_t max,
		     enum unwind_stop *stop, size_t stack_size)
{
	struct unwinder *u = unwinder_new(s);
	assert_non_null(u);
	struct unwind_sample smp = {
		.regs_mask = F.cap.mask, .regs = F.cap.regs, .stack = F.stack,
		.stack_size = stack_size, .find_map = find_map,
	};
	size_t n = unwinder_unwind(u, &smp, ips, max, stop);
	assert_int_equal(unwinder_stats(u)->samples, 1);
	assert_int_equal(unwinder_stats(u)->frames, n);
	unwinder_free(u);
	return n;
}

/* Symbolize frame i as a report does: callers at their call instruction. */
static void sym(struct symbolizer *s, const uint64_t *ips, size_t i,
		struct sym_frame *out)
{
	uint64_t a = i ? ips[i] - 1 : ips[i];
	symbolizer_lookup(s, 1, find_map(NULL, a), a, false, out);
}

/* The captured value of perf register reg (UNWIND_REG_IP, ...). */
static uint64_t cap_reg(int reg)
{
	assert_true(F.cap.mask & (1ULL << reg));
	return F.cap.regs[__builtin_popcountll(F.cap.mask & ((1ULL << reg) - 1))];
}

/* ---- cases ------------------------------------------------------------ */

static void test_unwind__frames_match_return_addresses(void **state)
{
	(void)state;
	NEED_FIXTURE();
	struct symbolizer *s = symbolizer_new(NULL);
	uint64_t ips[64];
	enum unwind_stop stop;
	size_t n = unwind(s, ips, 64, &stop, F.cap.stack_size);
	/* level3, level2, level1, main, then libc's start code and _start. */
	assert_true(n >= 5);
	assert_int_equal(stop, UNWIND_STOP_END);
	assert_int_equal(ips[0], cap_reg(UNWIND_REG_IP));
	assert_int_equal(ips[1], F.cap.ret[0]);
	assert_int_equal(ips[2], F.cap.ret[1]);
	assert_int_equal(ips[3], F.cap.ret[2]);

	static const char *const names[] = { "level3", "level2", "level1", "main" };
	for (size_t i = 0; i < 4; i++) {
		struct sym_frame f;
		sym(s, ips, i, &f);
		assert_string_equal(f.module, F.prog);
		assert_non_null(f.symbol);
		assert_string_equal(f.symbol, names[i]);
		/* The offset is from the function's own start, which the
		 * program printed (&level3 ...). */
		uint64_t a = i ? ips[i] - 1 : ips[i];
		assert_int_equal(f.offset, a - F.cap.fn[i]);
	}
	struct sym_frame f;
	sym(s, ips, 4, &f);
	assert_non_null(strstr(f.module, "libc"));
	/* The outermost frame is the binary's own _start. */
	sym(s, ips, n - 1, &f);
	assert_string_equal(f.module, F.prog);
	assert_non_null(f.symbol);
	assert_string_equal(f.symbol, "_start");
	symbolizer_free(s);
}

static void test_unwind__stripped_module_gives_unknown_frames(void **state)
{
	(void)state;
	NEED_FIXTURE();
	F.redirect_from = F.prog;
	F.redirect_to = F.stripped;
	struct symbolizer *s = symbolizer_new(NULL);
	uint64_t ips[64];
	enum unwind_stop stop;
	size_t n = unwind(s, ips, 64, &stop, F.cap.stack_size);
	/* strip keeps .eh_frame: the same walk, without names. */
	assert_true(n >= 5);
	assert_int_equal(stop, UNWIND_STOP_END);
	assert_int_equal(ips[1], F.cap.ret[0]);
	assert_int_equal(ips[3], F.cap.ret[2]);
	const struct code_map *m = find_map(NULL, ips[0]);
	uint64_t bias = m->start - m->pgoff;	/* PIE: vaddr == file offset here */
	for (size_t i = 0; i < 4; i++) {
		struct sym_frame f;
		sym(s, ips, i, &f);
		assert_string_equal(f.module, F.stripped);
		assert_null(f.symbol);
		uint64_t a = i ? ips[i] - 1 : ips[i];
		assert_int_equal(f.offset, a - bias);
	}
	symbolizer_free(s);
	F.redirect_from = F.redirect_to = NULL;
}

/* A copy of the program with bytes of section `name` changed by fn. */
static void patch_copy(const char *name, const char *copy,
		       void (*fn)(uint8_t *sec, size_t size, unsigned seed),
		       unsigned seed)
{
	size_t len;
	char *text;
	int fd = open(F.prog, O_RDONLY);
	assert_true(fd >= 0);
	struct stat sb;
	fstat(fd, &sb);
	len = (size_t)sb.st_size;
	text = malloc(len);
	assert_int_equal(pread(fd, text, len, 0), (ssize_t)len);
	close(fd);
	struct elf_file *ef;
	assert_int_equal(elf_file_open(F.prog, &ef, NULL), 0);
	const struct elf_section *sec = elf_file_section_by_name(ef, name);
	assert_non_null(sec);
	fn((uint8_t *)text + sec->offset, sec->size, seed);
	elf_file_close(ef);
	fd = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	free(text);
}

/* fde_count (udata4 after the 4-byte header and the sdata4 eh_frame_ptr)
 * far beyond what the section holds. */
static void overrun_count(uint8_t *sec, size_t size, unsigned seed)
{
	(void)seed;
	assert_true(size >= 12);
	uint32_t big = 0x10000000u;
	memcpy(sec + 8, &big, 4);
}

static void garble(uint8_t *sec, size_t size, unsigned seed)
{
	srand(seed);
	for (size_t i = 0; i < size / 4; i++)
		sec[(size_t)rand() % size] = (uint8_t)rand();
}

static void test_unwind__overrun_table_stops_at_first_frame(void **state)
{
	(void)state;
	NEED_FIXTURE();
	char copy[600];
	snprintf(copy, sizeof(copy), "%s/overrun", F.dir);
	patch_copy(".eh_frame_hdr", copy, overrun_count, 0);
	F.redirect_from = F.prog;
	F.redirect_to = copy;
	struct symbolizer *s = symbolizer_new(NULL);
	uint64_t ips[64];
	enum unwind_stop stop;
	size_t n = unwind(s, ips, 64, &stop, F.cap.stack_size);
	/* The table is refused: the sampled ip is all the unwind info
	 * gives. On arm64 libunwind then takes the link register for the
	 * return address, as for a leaf, and that guess is level2's, since
	 * level3 has called nothing when it captures its registers; there
	 * the walk stops for want of info one frame up. */
#if defined(__aarch64__)
	assert_int_equal(n, 2);
	assert_int_equal(ips[1], F.cap.ret[0]);
#else
	assert_int_equal(n, 1);
#endif
	assert_int_equal(ips[0], cap_reg(UNWIND_REG_IP));
	assert_int_equal(stop, UNWIND_STOP_NO_INFO);
	/* Its symbols are intact: the frame is still named. */
	struct sym_frame f;
	sym(s, ips, 0, &f);
	assert_string_equal(f.symbol, "level3");
	symbolizer_free(s);
	F.redirect_from = F.redirect_to = NULL;
}

static void test_unwind__garbled_eh_frame_never_crashes(void **state)
{
	(void)state;
	NEED_FIXTURE();
	char copy[600];
	snprintf(copy, sizeof(copy), "%s/garbled", F.dir);
	for (unsigned seed = 1; seed <= 40; seed++) {
		patch_copy(".eh_frame", copy, garble, seed);
		F.redirect_from = F.prog;
		F.redirect_to = copy;
		struct symbolizer *s = symbolizer_new(NULL);
		uint64_t ips[64];
		enum unwind_stop stop;
		size_t n = unwind(s, ips, 64, &stop, F.cap.stack_size);
		/* Whatever damaged CFI says, the walk ends inside its bound
		 * and starts at the sampled ip. */
		assert_true(n >= 1 && n <= 64);
		assert_int_equal(ips[0], cap_reg(UNWIND_REG_IP));
		symbolizer_free(s);
	}
	F.redirect_from = F.redirect_to = NULL;
}

static void test_unwind__short_stack_copy_stops_cleanly(void **state)
{
	(void)state;
	NEED_FIXTURE();
	struct symbolizer *s = symbolizer_new(NULL);
	uint64_t ips[64];
	enum unwind_stop stop;
	/* A copy that ends just below the slot where level3 saved its
	 * return address (0x298 bytes or so above its sp on x86-64: six
	 * pushes and a 0x268 frame at -O1; near the bottom of its frame on
	 * arm64, which saves the link register first). */
	size_t slot = 0;
	while (slot + 8 <= F.cap.stack_size &&
	       memcmp(F.stack + slot, &F.cap.ret[0], 8) != 0)
		slot += 8;
	assert_true(slot + 8 <= F.cap.stack_size);
	size_t n = unwind(s, ips, 64, &stop, slot);
	assert_int_equal(n, 1);
	assert_int_equal(stop, UNWIND_STOP_MEMORY);
	symbolizer_free(s);
}

static void test_unwind__frame_limit_and_no_registers(void **state)
{
	(void)state;
	NEED_FIXTURE();
	struct symbolizer *s = symbolizer_new(NULL);
	uint64_t ips[64];
	enum unwind_stop stop;
	size_t n = unwind(s, ips, 2, &stop, F.cap.stack_size);
	assert_int_equal(n, 2);
	assert_int_equal(stop, UNWIND_STOP_LIMIT);
	assert_int_equal(ips[1], F.cap.ret[0]);

	/* A sample of a kernel thread carries no user registers. */
	struct unwinder *u = unwinder_new(s);
	struct unwind_sample none = { .regs_mask = 0, .find_map = find_map };
	assert_int_equal(unwinder_unwind(u, &none, ips, 64, &stop), 0);
	assert_int_equal(stop, UNWIND_STOP_ERROR);
	unwinder_free(u);
	symbolizer_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unwind__frames_match_return_addresses),
		cmocka_unit_test(test_unwind__stripped_module_gives_unknown_frames),
		cmocka_unit_test(test_unwind__overrun_table_stops_at_first_frame),
		cmocka_unit_test(test_unwind__garbled_eh_frame_never_crashes),
		cmocka_unit_test(test_unwind__short_stack_copy_stops_cleanly),
		cmocka_unit_test(test_unwind__frame_limit_and_no_registers),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
