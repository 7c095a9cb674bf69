/*
 * Tests for collectors/elf: sizes, build ids, symbols and address mapping
 * checked against binutils (size -A, readelf, nm) on programs built here
 * with cc at test time, and refusal of malformed files written by patching
 * a real binary. Needs cc, size, nm and readelf (build-essential); without
 * them the cases that need them skip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <gnu/libc-version.h>
#include <limits.h>

#include "collectors/elf.h"
#include "test_util.h"

/* ---- helpers ------------------------------------------------------------ */

struct fix {
	char *dir;
	bool have_tools;	/* cc, size, nm, readelf */
	bool have_elf32;	/* as --32 and ld -m elf_i386 worked */
	char prog[512];		/* PIE, -O0, symbols and a sha1 build id */
	char prog_stripped[512];
	char prog_nopie[512];
	char lib[512];		/* -shared -fPIC */
	char lib_stripped[512];
	char prog_bid8[512];	/* --build-id=0x0123456789abcdef */
	char prog_nobid[512];	/* --build-id=none */
	char s32[512];		/* ELFCLASS32 i386, _start = nop; ret */
};

static char *capture(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run a shell command and return its stdout (malloc'd), or NULL. */
static char *capture(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	char *out = tu_slurp_fd(fileno(p));
	if (pclose(p) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

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

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static unsigned char *read_bytes(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	unsigned char *b = malloc((size_t)st.st_size + 1);
	assert_non_null(b);
	assert_int_equal(pread(fd, b, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void write_bytes(const char *path, const void *b, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, len), (ssize_t)len);
	close(fd);
}

/* Address and size of a symbol from nm (size 0 when nm prints none). */
static bool nm_lookup(const char *path, bool dynamic, const char *name,
		      uint64_t *addr, uint64_t *size)
{
	char *out = capture("nm %s--defined-only -S '%s' 2>/dev/null",
			    dynamic ? "-D " : "", path);
	bool found = false;
	if (!out)
		return false;
	for (char *line = strtok(out, "\n"); line && !found; line = strtok(NULL, "\n")) {
		char *tok[4], *sp = NULL;
		int n = 0;
		for (char *t = strtok_r(line, " ", &sp); t && n < 4;
		     t = strtok_r(NULL, " ", &sp))
			tok[n++] = t;
		if (n < 3)
			continue;
		const char *nm_name = tok[n - 1];
		size_t len = strcspn(nm_name, "@");	/* drop @@GLIBC_x */
		if (strlen(name) != len || strncmp(nm_name, name, len) != 0)
			continue;
		*addr = strtoull(tok[0], NULL, 16);
		*size = n == 4 ? strtoull(tok[1], NULL, 16) : 0;
		found = true;
	}
	free(out);
	return found;
}

static bool build(struct fix *f)
{
	static const char prog_c[] =
		"__attribute__((noinline)) int known_alpha(int x) { return x * 3 + 1; }\n"
		"__attribute__((noinline)) int known_beta(int x)\n"
		"{ int s = 0; for (int i = 0; i < x; i++) s += known_alpha(i); return s; }\n"
		"static __attribute__((noinline)) int known_local(int x) { return known_beta(x) - 2; }\n"
		/* a function with no .size, followed by one with a size */
		"__asm__(\".pushsection .text\\n.globl asm_nosize\\n.type asm_nosize,%function\\n\"\n"
		"        \"asm_nosize:\\n nop\\n nop\\n nop\\n nop\\n ret\\n\"\n"
		"        \".globl asm_sized\\n.type asm_sized,%function\\n\"\n"
		"        \"asm_sized:\\n ret\\n.size asm_sized,.-asm_sized\\n.popsection\\n\");\n"
		"static int pick_impl(void) { return 7; }\n"
		"static void *resolve_pick(void) { return (void *)pick_impl; }\n"
		"int pick(void) __attribute__((ifunc(\"resolve_pick\")));\n"
		"int main(int argc, char **argv)\n"
		"{ (void)argv; return known_local(argc) + pick() > 1000; }\n";
	static const char lib_c[] =
		"__attribute__((noinline)) int lib_gamma(int x) { return x ^ 0x5a; }\n"
		"__attribute__((noinline)) int lib_delta(int x) { return lib_gamma(x) + 1; }\n"
		"static int lib_pick_impl(void) { return 3; }\n"
		"static void *lib_resolve(void) { return (void *)lib_pick_impl; }\n"
		"int lib_pick(void) __attribute__((ifunc(\"lib_resolve\")));\n";
	static const char s32_s[] =
		".text\n.globl _start\n.type _start,@function\n"
		"_start:\n nop\n ret\n.size _start,.-_start\n";
	char path[600];
	const char *d = f->dir;

	snprintf(path, sizeof(path), "%s/prog.c", d);
	write_text(path, prog_c);
	snprintf(path, sizeof(path), "%s/lib.c", d);
	write_text(path, lib_c);
	snprintf(path, sizeof(path), "%s/small.c", d);
	write_text(path, "int main(void) { return 0; }\n");
	snprintf(f->prog, sizeof(f->prog), "%s/prog", d);
	snprintf(f->prog_stripped, sizeof(f->prog), "%s/prog_stripped", d);
	snprintf(f->prog_nopie, sizeof(f->prog), "%s/prog_nopie", d);
	snprintf(f->lib, sizeof(f->prog), "%s/lib.so", d);
	snprintf(f->lib_stripped, sizeof(f->prog), "%s/lib_stripped.so", d);
	snprintf(f->prog_bid8, sizeof(f->prog), "%s/prog_bid8", d);
	snprintf(f->prog_nobid, sizeof(f->prog), "%s/prog_nobid", d);
	snprintf(f->s32, sizeof(f->prog), "%s/s32", d);

	if (sh("cd '%s' && cc -O0 -fPIE -pie -Wl,--build-id=sha1 -o prog prog.c && "
	       "cc -O0 -fPIE -pie -s -o prog_stripped prog.c && "
	       "cc -O0 -fno-pie -no-pie -o prog_nopie prog.c && "
	       "cc -O0 -shared -fPIC -Wl,--build-id=sha1 -o lib.so lib.c && "
	       "cc -O0 -shared -fPIC -s -o lib_stripped.so lib.c && "
	       "cc -Wl,--build-id=0x0123456789abcdef -o prog_bid8 small.c && "
	       "cc -Wl,--build-id=none -o prog_nobid small.c", d) != 0)
		return false;
	snprintf(path, sizeof(path), "%s/s32.s", d);
	write_text(path, s32_s);
	f->have_elf32 = sh("cd '%s' && as --32 -o s32.o s32.s 2>/dev/null && "
			   "ld -m elf_i386 --build-id=sha1 -o s32 s32.o 2>/dev/null",
			   d) == 0;
	return true;
}

static int group_setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	f->dir = tu_tmpdir();
	f->have_tools = sh("command -v cc && command -v size && command -v nm && "
			   "command -v readelf") == 0 && build(f);
	*state = f;
	return 0;
}

static int group_teardown(void **state)
{
	struct fix *f = *state;
	tu_rmrf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

#define NEED_TOOLS(f) do { \
	if (!(f)->have_tools) { \
		fprintf(stderr, "skip: cc, size, nm or readelf missing, or cc failed\n"); \
		skip(); \
	} \
} while (0)

static struct elf_file *open_ok(const char *path)
{
	struct elf_file *ef = NULL;
	char *cause = NULL;
	int err = elf_file_open(path, &ef, &cause);
	if (err)
		fprintf(stderr, "open %s: %d %s\n", path, err, cause ? cause : "");
	assert_int_equal(err, 0);
	assert_null(cause);
	return ef;
}

static struct elf_symtab *load_ok(const struct elf_file *ef)
{
	struct elf_symtab *st = NULL;
	char *cause = NULL;
	int err = elf_symtab_load(ef, &st, &cause);
	if (err)
		fprintf(stderr, "symtab: %d %s\n", err, cause ? cause : "");
	assert_int_equal(err, 0);
	assert_non_null(st);
	return st;
}

/* The path of the mapping holding addr, its start and its file offset, as
 * /proc/self/maps says. */
static bool find_mapping(uint64_t addr, char *path, size_t size,
			 uint64_t *start, uint64_t *pgoff)
{
	char *maps = tu_slurp("/proc/self/maps");
	bool found = false;
	assert_non_null(maps);
	for (char *line = strtok(maps, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long lo, hi, off;
		int at = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &off, &at) < 3 || !at)
			continue;
		if (addr >= lo && addr < hi) {
			snprintf(path, size, "%s", line + at);
			*start = lo;
			*pgoff = off;
			found = true;
			break;
		}
	}
	free(maps);
	return found;
}

/* The path of libc.so.6 as mapped into this process. */
static bool libc_path(char *path, size_t size)
{
	uint64_t start, pgoff;
	return find_mapping((uint64_t)(uintptr_t)&gnu_get_libc_version, path, size,
			    &start, &pgoff) && strstr(path, "libc.so");
}

/* ---- sizes ---------------------------------------------------------------- */

/*
 * Compare the executable sections with binutils: readelf -SW says which
 * sections carry the A and X flags, size -A gives their sizes and
 * addresses (decimal), and .text's size.
 */
static void check_sizes(const char *path, bool expect_init_fini)
{
	struct elf_file *ef = open_ok(path);
	struct elf_sizes sz;
	const struct elf_section *ex;
	size_t nex = elf_file_exec_sections(ef, &ex);
	elf_file_sizes(ef, &sz);

	char *sizes = capture("size -A '%s'", path);
	char *secs = capture("readelf -SW '%s'", path);
	assert_non_null(sizes);
	assert_non_null(secs);

	size_t n_ax = 0;
	uint64_t sum_ax = 0, text_size = 0;
	bool text_seen = false;
	char *save = NULL;
	for (char *line = strtok_r(secs, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *rb = strchr(line, ']');
		if (!strstr(line, "[") || !rb)
			continue;
		char *tok[12];
		int n = 0;
		char *s2 = NULL;
		for (char *t = strtok_r(rb + 1, " ", &s2); t && n < 12;
		     t = strtok_r(NULL, " ", &s2))
			tok[n++] = t;
		/* name type addr off size es [flags] lk inf al */
		if (n != 10 || !strchr(tok[6], 'A') || !strchr(tok[6], 'X'))
			continue;
		/* size -A for the same section */
		char *sa = strdup(sizes), *s3 = NULL;
		unsigned long long ssize = 0, saddr = 0;
		bool in_size = false;
		for (char *l = strtok_r(sa, "\n", &s3); l; l = strtok_r(NULL, "\n", &s3)) {
			char nm[256];
			if (sscanf(l, "%255s %llu %llu", nm, &ssize, &saddr) == 3 &&
			    strcmp(nm, tok[0]) == 0) {
				in_size = true;
				break;
			}
		}
		free(sa);
		assert_true(in_size);
		bool ours = false;
		for (size_t i = 0; i < nex; i++) {
			if (strcmp(ex[i].name, tok[0]) != 0)
				continue;
			assert_int_equal(ex[i].size, ssize);
			assert_int_equal(ex[i].addr, saddr);
			ours = true;
		}
		assert_true(ours);
		n_ax++;
		sum_ax += ssize;
		if (strcmp(tok[0], ".text") == 0) {
			text_size = ssize;
			text_seen = true;
		}
	}
	assert_true(n_ax > 0);
	assert_int_equal(nex, n_ax);
	assert_int_equal(sz.nexec, n_ax);
	assert_int_equal(sz.exec_bytes, sum_ax);
	assert_true(sz.has_sections);
	assert_true(sz.has_text == text_seen);
	assert_int_equal(sz.text_bytes, text_size);
	assert_true(sz.exec_bytes >= sz.text_bytes);
	if (expect_init_fini) {
		/* gcc with glibc links .init and .fini around .text */
		assert_non_null(elf_file_section_by_name(ef, ".init"));
		assert_non_null(elf_file_section_by_name(ef, ".fini"));
		assert_true(sz.exec_bytes > sz.text_bytes);
	}
	free(sizes);
	free(secs);
	elf_file_close(ef);
}

static void test_elf__sizes_match_size_and_readelf(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	check_sizes(f->prog, true);
	check_sizes(f->prog_stripped, true);
	check_sizes(f->prog_nopie, true);
	check_sizes(f->lib, true);

	char self[PATH_MAX], libc[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	check_sizes(self, true);
	if (libc_path(libc, sizeof(libc)))
		check_sizes(libc, false);	/* libc has __libc_freeres_fn too */
}

static void test_elf__info_and_sections(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	struct elf_file *ef = open_ok(f->prog);
	const struct elf_info *in = elf_file_info(ef);
	assert_int_equal(in->bits, 64);
	assert_int_equal(in->type, ET_DYN);	/* a PIE */
	assert_string_equal(elf_file_path(ef), f->prog);
	const struct elf_section *secs;
	size_t n = elf_file_sections(ef, &secs);
	assert_true(n > 10);
	assert_int_equal(secs[0].type, SHT_NULL);
	const struct elf_section *text = elf_file_section_by_name(ef, ".text");
	assert_non_null(text);
	assert_int_equal(text->type, SHT_PROGBITS);
	assert_ptr_equal(&secs[text->index], text);
	assert_null(elf_file_section_by_name(ef, ".no-such-section"));
	elf_file_close(ef);

	ef = open_ok(f->prog_nopie);
	assert_int_equal(elf_file_info(ef)->type, ET_EXEC);
	elf_file_close(ef);
}

/* An image in memory reads as the same file does; nothing is unmapped. */
static void test_elf__open_mem_reads_as_the_file(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	FILE *fp = fopen(f->prog, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	long len = ftell(fp);
	assert_true(len > 0);
	rewind(fp);
	unsigned char *buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
	fclose(fp);

	struct elf_file *a = open_ok(f->prog), *b = NULL;
	char *cause = NULL;
	assert_int_equal(elf_file_open_mem(buf, (size_t)len, "image", &b, &cause), 0);
	assert_null(cause);
	assert_string_equal(elf_file_path(b), "image");
	assert_memory_equal(elf_file_info(a), elf_file_info(b), sizeof(struct elf_info));
	const struct elf_section *sa, *sb;
	size_t na = elf_file_sections(a, &sa), nb = elf_file_sections(b, &sb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_string_equal(sa[i].name, sb[i].name);
		assert_int_equal(sa[i].offset, sb[i].offset);
		assert_int_equal(sa[i].size, sb[i].size);
	}
	char ha[ELF_BUILD_ID_HEX_SIZE], hb[ELF_BUILD_ID_HEX_SIZE];
	assert_int_equal(elf_file_build_id(a, ha, sizeof(ha), NULL), 0);
	assert_int_equal(elf_file_build_id(b, hb, sizeof(hb), NULL), 0);
	assert_string_equal(ha, hb);
	elf_file_close(a);
	elf_file_close(b);
	/* The caller's bytes are still there to read after the close. */
	assert_memory_equal(buf, ELFMAG, SELFMAG);

	/* Empty and non-ELF images are refused as the files are. */
	assert_int_equal(elf_file_open_mem(buf, 0, "empty", &b, &cause), -ENOEXEC);
	assert_non_null(strstr(cause, "'empty': empty file"));
	free(cause);
	assert_null(b);
	assert_int_equal(elf_file_open_mem("#!/bin/sh\n", 10, "script", &b, &cause),
			 -ENOEXEC);
	assert_non_null(strstr(cause, "not an ELF file"));
	free(cause);
	free(buf);
}

/* ---- build ids ------------------------------------------------------------ */

/* Our build id is readelf -n's, or both say there is none. */
static void check_build_id(const char *path, bool must_have)
{
	struct elf_file *ef = open_ok(path);
	char hex[ELF_BUILD_ID_HEX_SIZE], *cause = NULL;
	int err = elf_file_build_id(ef, hex, sizeof(hex), &cause);
	assert_null(cause);
	char *out = capture("readelf -n '%s'", path);
	assert_non_null(out);
	char *b = strstr(out, "Build ID: ");
	if (must_have)
		assert_non_null(b);
	if (b) {
		b += strlen("Build ID: ");
		b[strcspn(b, " \n")] = '\0';
		assert_int_equal(err, 0);
		assert_string_equal(hex, b);
	} else {
		assert_int_equal(err, -ENOENT);
	}
	free(out);
	elf_file_close(ef);
}

static void test_elf__build_id_matches_readelf(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	check_build_id(f->prog, true);
	check_build_id(f->lib, true);
	check_build_id(f->prog_nobid, false);
	/* Debian's /bin/ls and libc put .note.gnu.property in an 8-aligned
	 * PT_NOTE before the build id: the case a 4-byte note walk gets wrong */
	if (access("/bin/ls", R_OK) == 0)
		check_build_id("/bin/ls", false);
	char libc[PATH_MAX];
	if (libc_path(libc, sizeof(libc)))
		check_build_id(libc, false);
}

static void test_elf__build_id_given_none_and_small_buffer(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	char hex[ELF_BUILD_ID_HEX_SIZE], *cause = NULL;

	/* ld --build-id=0x0123456789abcdef stores exactly those 8 bytes */
	struct elf_file *ef = open_ok(f->prog_bid8);
	assert_int_equal(elf_file_build_id(ef, hex, sizeof(hex), &cause), 0);
	assert_string_equal(hex, "0123456789abcdef");
	assert_int_equal(elf_file_build_id(ef, hex, 16, &cause), -ENOSPC);
	assert_int_equal(elf_file_build_id(ef, hex, 17, &cause), 0);
	elf_file_close(ef);

	ef = open_ok(f->prog_nobid);
	assert_int_equal(elf_file_build_id(ef, hex, sizeof(hex), &cause), -ENOENT);
	assert_null(cause);
	elf_file_close(ef);
}

/* ---- symbols ------------------------------------------------------------- */

static void check_known(const struct elf_symtab *st, const char *path,
			bool dynamic, const char *name)
{
	uint64_t addr, size, off = 99;
	assert_true(nm_lookup(path, dynamic, name, &addr, &size));
	assert_true(size > 1);
	const struct elf_sym *s = elf_symtab_lookup(st, addr, &off);
	assert_non_null(s);
	assert_string_equal(s->name, name);
	assert_int_equal(off, 0);
	assert_int_equal(s->addr, addr);
	assert_int_equal(s->size, size);
	s = elf_symtab_lookup(st, addr + size - 1, &off);
	assert_non_null(s);
	assert_string_equal(s->name, name);
	assert_int_equal(off, size - 1);
}

static void test_elf__symbols_match_nm(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	struct elf_file *ef = open_ok(f->prog);
	struct elf_symtab *st = load_ok(ef);
	check_known(st, f->prog, false, "known_alpha");
	check_known(st, f->prog, false, "known_beta");
	check_known(st, f->prog, false, "known_local");	/* static: .symtab only */
	check_known(st, f->prog, false, "main");
	/* sorted, one per address */
	for (size_t i = 1; i < elf_symtab_count(st); i++)
		assert_true(elf_symtab_at(st, i - 1)->addr < elf_symtab_at(st, i)->addr);
	uint64_t off;
	assert_null(elf_symtab_lookup(st, 0, &off));
	assert_null(elf_symtab_lookup(st, UINT64_MAX, &off));
	elf_symtab_free(st);
	elf_file_close(ef);

	ef = open_ok(f->prog_nopie);
	st = load_ok(ef);
	check_known(st, f->prog_nopie, false, "known_beta");
	elf_symtab_free(st);
	elf_file_close(ef);

	/* the shared object has both tables; lib_delta is in both */
	ef = open_ok(f->lib);
	st = load_ok(ef);
	check_known(st, f->lib, false, "lib_gamma");
	check_known(st, f->lib, true, "lib_delta");
	elf_symtab_free(st);
	elf_file_close(ef);
}

static void test_elf__stripped_files_fall_back_to_dynsym(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	uint64_t addr, size, off;

	/* -s removes .symtab; a PIE exports no functions in .dynsym, so
	 * known_alpha's address (the same code as in prog) names nothing */
	assert_true(nm_lookup(f->prog, false, "known_alpha", &addr, &size));
	struct elf_file *ef = open_ok(f->prog_stripped);
	assert_null(elf_file_section_by_name(ef, ".symtab"));
	struct elf_symtab *st = load_ok(ef);
	assert_null(elf_symtab_lookup(st, addr, &off));
	elf_symtab_free(st);
	elf_file_close(ef);

	ef = open_ok(f->lib_stripped);
	assert_null(elf_file_section_by_name(ef, ".symtab"));
	assert_non_null(elf_file_section_by_name(ef, ".dynsym"));
	st = load_ok(ef);
	check_known(st, f->lib_stripped, true, "lib_gamma");
	check_known(st, f->lib_stripped, true, "lib_delta");
	/* the ifunc is kept: only .dynsym names its resolver's address */
	assert_true(nm_lookup(f->lib_stripped, true, "lib_pick", &addr, &size));
	const struct elf_sym *s = elf_symtab_lookup(st, addr, &off);
	assert_non_null(s);
	assert_string_equal(s->name, "lib_pick");
	elf_symtab_free(st);
	elf_file_close(ef);
}

static void test_elf__ifunc_and_its_resolver(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	uint64_t a_pick, a_res, size, off;
	/* pick (STT_GNU_IFUNC) and resolve_pick (STT_FUNC) share an address;
	 * the code there is the resolver, so its name wins */
	assert_true(nm_lookup(f->prog, false, "pick", &a_pick, &size));
	assert_true(nm_lookup(f->prog, false, "resolve_pick", &a_res, &size));
	assert_int_equal(a_pick, a_res);
	struct elf_file *ef = open_ok(f->prog);
	struct elf_symtab *st = load_ok(ef);
	const struct elf_sym *s = elf_symtab_lookup(st, a_pick, &off);
	assert_non_null(s);
	assert_string_equal(s->name, "resolve_pick");
	elf_symtab_free(st);
	elf_file_close(ef);
}

static void test_elf__zero_size_symbol_reaches_the_next(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	uint64_t a0, a1, size, off;
	/* asm_nosize has no .size; asm_sized follows it (4 nops and a ret) */
	assert_true(nm_lookup(f->prog, false, "asm_nosize", &a0, &size));
	assert_int_equal(size, 0);
	assert_true(nm_lookup(f->prog, false, "asm_sized", &a1, &size));
	assert_true(a1 > a0);
	struct elf_file *ef = open_ok(f->prog);
	struct elf_symtab *st = load_ok(ef);
	const struct elf_sym *s = elf_symtab_lookup(st, a0, &off);
	assert_non_null(s);
	assert_string_equal(s->name, "asm_nosize");
	assert_int_equal(s->size, a1 - a0);
	s = elf_symtab_lookup(st, a1 - 1, &off);
	assert_string_equal(s->name, "asm_nosize");
	assert_int_equal(off, a1 - a0 - 1);
	s = elf_symtab_lookup(st, a1, &off);
	assert_string_equal(s->name, "asm_sized");
	assert_int_equal(off, 0);
	elf_symtab_free(st);
	elf_file_close(ef);
}

/*
 * Among aliases of one address, the name perf reports (its
 * choose_best_symbol): a local over a weak one, then the longest name
 * (libc's __memmove_avx512_unaligned_erms over __memcpy_..., which share
 * their code), the byte order last.
 */
static void test_elf__aliases_named_as_perf_names_them(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	static const char src[] =
		"__asm__(\".pushsection .text\\n\"\n"
		"        \".globl aaa\\n.globl bbbb\\n.type aaa,@function\\n\"\n"
		"        \".type bbbb,@function\\naaa:\\nbbbb:\\n nop\\n ret\\n\"\n"
		"        \".size aaa,.-aaa\\n.size bbbb,.-bbbb\\n\"\n"
		"        \".weak a_weak_long\\n.type a_weak_long,@function\\n\"\n"
		"        \".type b_loc,@function\\na_weak_long:\\nb_loc:\\n ret\\n\"\n"
		"        \".size a_weak_long,.-a_weak_long\\n.size b_loc,.-b_loc\\n\"\n"
		"        \".popsection\\n\");\n"
		"int main(void) { return 0; }\n";
	char path[700];
	snprintf(path, sizeof(path), "%s/aliases.c", f->dir);
	write_text(path, src);
	assert_int_equal(sh("cd '%s' && cc -O0 -o aliases aliases.c", f->dir), 0);
	snprintf(path, sizeof(path), "%s/aliases", f->dir);
	uint64_t a, b, size, off;
	assert_true(nm_lookup(path, false, "aaa", &a, &size));
	assert_true(nm_lookup(path, false, "b_loc", &b, &size));
	struct elf_file *ef = open_ok(path);
	struct elf_symtab *st = load_ok(ef);
	assert_string_equal(elf_symtab_lookup(st, a, &off)->name, "bbbb");
	assert_string_equal(elf_symtab_lookup(st, b, &off)->name, "b_loc");
	elf_symtab_free(st);
	elf_file_close(ef);
}

/*
 * Every defined FUNC or IFUNC symbol readelf lists in libc's .dynsym is
 * found at its own address (as itself or an alias at that address).
 */
static void test_elf__every_libc_function_resolves(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	char libc[PATH_MAX];
	if (!libc_path(libc, sizeof(libc))) {
		fprintf(stderr, "skip: libc.so not found in /proc/self/maps\n");
		skip();
	}
	struct elf_file *ef = open_ok(libc);
	struct elf_symtab *st = load_ok(ef);
	char *out = capture("readelf -sW --dyn-syms '%s'", libc);
	assert_non_null(out);
	size_t checked = 0;
	char *save = NULL;
	for (char *line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tok[8];
		int n = 0;
		char *s2 = NULL;
		for (char *t = strtok_r(line, " ", &s2); t && n < 8;
		     t = strtok_r(NULL, " ", &s2))
			tok[n++] = t;
		/* Num: Value Size Type Bind Vis Ndx Name */
		if (n < 8 || strcmp(tok[6], "UND") == 0 ||
		    (strcmp(tok[3], "FUNC") != 0 && strcmp(tok[3], "IFUNC") != 0))
			continue;
		uint64_t addr = strtoull(tok[1], NULL, 16), off = 1;
		const struct elf_sym *s = elf_symtab_lookup(st, addr, &off);
		if (!s)
			fprintf(stderr, "libc: %s at %#llx not found\n", tok[7],
				(unsigned long long)addr);
		assert_non_null(s);
		assert_int_equal(s->addr, addr);
		assert_int_equal(off, 0);
		checked++;
	}
	assert_true(checked > 1000);	/* glibc 2.36 exports about 2,900 */
	free(out);
	elf_symtab_free(st);
	elf_file_close(ef);
}

/* ---- file offsets and runtime addresses ----------------------------------- */

/* Check offset <-> vaddr at both ends and the middle of every PT_LOAD that
 * readelf -lW lists, and that offsets outside them map to nothing. */
static void check_loads(const char *path)
{
	struct elf_file *ef = open_ok(path);
	char *out = capture("readelf -lW '%s'", path);
	assert_non_null(out);
	size_t loads = 0;
	uint64_t covered_end = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long off, va, pa, fsz, msz, v, o;
		if (sscanf(line, " LOAD %llx %llx %llx %llx %llx", &off, &va, &pa,
			   &fsz, &msz) != 5 || fsz == 0)
			continue;
		loads++;
		uint64_t vaddr, offset;
		unsigned long long probes[] = { off, off + fsz / 2, off + fsz - 1 };
		for (size_t i = 0; i < 3; i++) {
			assert_int_equal(elf_file_offset_to_vaddr(ef, probes[i], &vaddr), 0);
			v = va + (probes[i] - off);
			assert_int_equal(vaddr, v);
			assert_int_equal(elf_file_vaddr_to_offset(ef, v, &offset), 0);
			o = probes[i];
			assert_int_equal(offset, o);
		}
		if (off + fsz > covered_end)
			covered_end = off + fsz;
	}
	assert_true(loads >= 2);
	uint64_t vaddr;
	assert_int_equal(elf_file_offset_to_vaddr(ef, covered_end, &vaddr), -ENOENT);
	assert_int_equal(elf_file_offset_to_vaddr(ef, UINT64_MAX, &vaddr), -ENOENT);
	free(out);
	elf_file_close(ef);
}

static void test_elf__offsets_map_through_program_headers(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	check_loads(f->prog);
	check_loads(f->prog_nopie);
	check_loads(f->lib);

	/* A mapping of lib.so's code as the loader would make it: the
	 * segment holding lib_delta, mapped from its page-rounded offset at
	 * some base. Its runtime address maps back to nm's vaddr. */
	uint64_t addr, size, offset, vaddr;
	assert_true(nm_lookup(f->lib, true, "lib_delta", &addr, &size));
	struct elf_file *ef = open_ok(f->lib);
	assert_int_equal(elf_file_vaddr_to_offset(ef, addr, &offset), 0);
	uint64_t pgoff = offset & ~(uint64_t)0xfff, base = 0x7f1234560000ull;
	uint64_t map_start = base + pgoff;
	assert_int_equal(elf_file_map_to_vaddr(ef, map_start + (offset - pgoff),
					       map_start, pgoff, &vaddr), 0);
	assert_int_equal(vaddr, addr);
	assert_int_equal(elf_file_map_to_vaddr(ef, map_start - 1, map_start, pgoff,
					       &vaddr), -ERANGE);
	elf_file_close(ef);
}

static __attribute__((noinline)) int elf_test_marker(int x)
{
	return x * 7 + 3;
}

/* Symbolize live addresses the way prof record will: /proc/self/maps gives
 * the mapping, the mapping gives a file offset, the ELF gives the vaddr. */
static void symbolize_live(uint64_t addr, const char *want)
{
	char path[PATH_MAX];
	uint64_t start, pgoff, vaddr, off = 1;
	assert_true(find_mapping(addr, path, sizeof(path), &start, &pgoff));
	struct elf_file *ef = open_ok(path);
	assert_int_equal(elf_file_map_to_vaddr(ef, addr, start, pgoff, &vaddr), 0);
	struct elf_symtab *st = load_ok(ef);
	const struct elf_sym *s = elf_symtab_lookup(st, vaddr, &off);
	assert_non_null(s);
	assert_string_equal(s->name, want);
	assert_int_equal(off, 0);
	elf_symtab_free(st);
	elf_file_close(ef);
}

static void test_elf__symbolizes_live_addresses(void **state)
{
	(void)state;
	volatile int keep = elf_test_marker(1);
	(void)keep;
	symbolize_live((uint64_t)(uintptr_t)&elf_test_marker, "elf_test_marker");
	/* libc is a shared object mapped at a random base (in a non-PIE
	 * test binary the function's address would be a PLT slot instead) */
	char libc[PATH_MAX];
	if (libc_path(libc, sizeof(libc)))
		symbolize_live((uint64_t)(uintptr_t)&gnu_get_libc_version,
			       "gnu_get_libc_version");
	else
		fprintf(stderr, "note: gnu_get_libc_version is not in libc's mapping\n");
}

static void test_elf__reads_elfclass32(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	if (!f->have_elf32) {
		fprintf(stderr, "skip: as --32 or ld -m elf_i386 unavailable\n");
		skip();
	}
	struct elf_file *ef = open_ok(f->s32);
	assert_int_equal(elf_file_info(ef)->bits, 32);
	assert_int_equal(elf_file_info(ef)->machine, EM_386);
	struct elf_sizes sz;
	elf_file_sizes(ef, &sz);
	/* _start is nop (0x90) and ret (0xc3): 2 bytes, the only code */
	assert_int_equal(sz.text_bytes, 2);
	assert_int_equal(sz.exec_bytes, 2);
	assert_int_equal(sz.nexec, 1);
	struct elf_symtab *st = load_ok(ef);
	assert_int_equal(elf_symtab_count(st), 1);
	uint64_t off;
	const struct elf_sym *s = elf_symtab_lookup(st, elf_file_info(ef)->entry + 1, &off);
	assert_non_null(s);
	assert_string_equal(s->name, "_start");
	assert_int_equal(s->size, 2);
	assert_int_equal(off, 1);
	elf_symtab_free(st);
	elf_file_close(ef);
	check_build_id(f->s32, true);
	check_loads(f->s32);
}

/* ---- malformed files --------------------------------------------------- */

/* Open must fail with err and a cause naming the file and containing what. */
static void expect_open_error(const char *path, int err, const char *what)
{
	struct elf_file *ef = (struct elf_file *)1;
	char *cause = NULL;
	int got = elf_file_open(path, &ef, &cause);
	if (got != err || !cause || !strstr(cause, what))
		fprintf(stderr, "%s: got %d '%s', want %d '%s'\n", path, got,
			cause ? cause : "(null)", err, what);
	assert_int_equal(got, err);
	assert_null(ef);
	assert_non_null(cause);
	assert_non_null(strstr(cause, what));
	assert_non_null(strstr(cause, path));
	free(cause);
}

static void test_elf__not_elf_empty_directory_missing(void **state)
{
	struct fix *f = *state;
	char path[600];

	snprintf(path, sizeof(path), "%s/text", f->dir);
	write_text(path, "#!/bin/sh\necho hello\n");
	expect_open_error(path, -ENOEXEC, "not an ELF file");
	snprintf(path, sizeof(path), "%s/empty", f->dir);
	write_text(path, "");
	expect_open_error(path, -ENOEXEC, "empty file");
	expect_open_error(f->dir, -EISDIR, "is a directory");
	snprintf(path, sizeof(path), "%s/no-such-file", f->dir);
	expect_open_error(path, -ENOENT, "no such file or directory");
	expect_open_error("/dev/null", -EINVAL, "not a regular file");
}

/* Patch helpers over a copy of prog's bytes. */
struct img {
	unsigned char *b;
	size_t len;
	Elf64_Ehdr eh;
};

static void img_load(struct img *im, const char *path)
{
	im->b = read_bytes(path, &im->len);
	memcpy(&im->eh, im->b, sizeof(im->eh));
}

static Elf64_Shdr img_shdr(const struct img *im, size_t i)
{
	Elf64_Shdr s;
	memcpy(&s, im->b + im->eh.e_shoff + i * sizeof(s), sizeof(s));
	return s;
}

static void img_put_shdr(struct img *im, size_t i, const Elf64_Shdr *s)
{
	memcpy(im->b + im->eh.e_shoff + i * sizeof(*s), s, sizeof(*s));
}

static size_t img_find(const struct img *im, const char *name)
{
	Elf64_Shdr ss = img_shdr(im, im->eh.e_shstrndx);
	for (size_t i = 0; i < im->eh.e_shnum; i++) {
		Elf64_Shdr s = img_shdr(im, i);
		if (strcmp((const char *)im->b + ss.sh_offset + s.sh_name, name) == 0)
			return i;
	}
	fail_msg("no section %s", name);
	return 0;
}

static void test_elf__truncated_files_are_refused(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	struct img im;
	char path[600];
	img_load(&im, f->prog);
	snprintf(path, sizeof(path), "%s/cut", f->dir);

	/* ld puts the section header table last, so any cut loses part of
	 * it: every shorter file must be refused */
	assert_int_equal(im.eh.e_shoff + (uint64_t)im.eh.e_shnum * im.eh.e_shentsize,
			 im.len);
	Elf64_Shdr shstr = img_shdr(&im, im.eh.e_shstrndx);
	Elf64_Shdr strtab = img_shdr(&im, img_find(&im, ".strtab"));
	struct {
		size_t len;
		int err;
		const char *what;
	} cuts[] = {
		{ 3, -ENOEXEC, "not an ELF file" },
		{ 4, -EINVAL, "truncated inside the ELF header" },
		{ 40, -EINVAL, "truncated inside the ELF header" },
		{ 63, -EINVAL, "truncated inside the ELF header" },
		{ 64, -EINVAL, "section header table" },
		{ strtab.sh_offset + 5, -EINVAL, "section header table" },
		{ shstr.sh_offset + 3, -EINVAL, "section header table" },
		{ im.eh.e_shoff + 1, -EINVAL, "section header table" },
		{ im.eh.e_shoff + 5 * sizeof(Elf64_Shdr) + 7, -EINVAL, "section header table" },
		{ im.len - 1, -EINVAL, "section header table" },
	};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		write_bytes(path, im.b, cuts[i].len);
		expect_open_error(path, cuts[i].err, cuts[i].what);
	}
	/* and every 1/64th of the way */
	for (size_t k = 1; k < 64; k++) {
		struct elf_file *ef = NULL;
		char *cause = NULL;
		write_bytes(path, im.b, im.len * k / 64);
		assert_true(elf_file_open(path, &ef, &cause) < 0);
		assert_null(ef);
		assert_non_null(cause);
		free(cause);
	}
	free(im.b);
}

struct patch_case {
	const char *label;
	int err;
	const char *what;
};

static void test_elf__patched_headers_are_refused(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	struct img im;
	char path[600];
	img_load(&im, f->prog);
	snprintf(path, sizeof(path), "%s/patched", f->dir);
	size_t text = img_find(&im, ".text"), shnum = im.eh.e_shnum;
	Elf64_Phdr ph;

	for (int c = 0; c < 11; c++) {
		struct img p = { malloc(im.len), im.len, im.eh };
		Elf64_Ehdr *eh = &p.eh;
		Elf64_Shdr s;
		const char *what = NULL;
		int err = -EINVAL;
		memcpy(p.b, im.b, im.len);
		switch (c) {
		case 0:		/* section header table beyond EOF */
			eh->e_shoff = im.len + 4096;
			what = "section header table";
			break;
		case 1:		/* e_shnum huge */
			eh->e_shnum = 0xfeff;
			what = "65279 entries";
			break;
		case 2:		/* extended numbering: the count in section 0 */
			eh->e_shnum = 0;
			s = img_shdr(&p, 0);
			s.sh_size = 1ull << 40;
			img_put_shdr(&p, 0, &s);
			what = "1099511627776 entries";
			break;
		case 3:		/* sh_name out of range */
			s = img_shdr(&p, 1);
			s.sh_name = 0x7fffffff;
			img_put_shdr(&p, 1, &s);
			what = "section 1 has name offset 2147483647 beyond";
			break;
		case 4: {	/* the last name loses its terminator */
			Elf64_Shdr ss = img_shdr(&p, eh->e_shstrndx);
			p.b[ss.sh_offset + ss.sh_size - 1] = 'X';
			what = "section name table does not end with a NUL";
			break;
		}
		case 5:		/* e_shstrndx out of range */
			eh->e_shstrndx = (uint16_t)(shnum + 5);
			what = "section name table index";
			break;
		case 6:		/* .text's data beyond EOF */
			s = img_shdr(&p, text);
			s.sh_offset = im.len * 2;
			img_put_shdr(&p, text, &s);
			what = "section '.text'";
			break;
		case 7:		/* section headers too small to hold a header */
			eh->e_shentsize = 10;
			what = "section header size 10";
			break;
		case 8:		/* program headers beyond EOF */
			eh->e_phoff = im.len - 8;
			what = "program header table";
			break;
		case 9:		/* a PT_LOAD whose bytes run past EOF */
			for (size_t i = 0; i < eh->e_phnum; i++) {
				memcpy(&ph, p.b + eh->e_phoff + i * sizeof(ph), sizeof(ph));
				if (ph.p_type != PT_LOAD)
					continue;
				ph.p_filesz = im.len;
				ph.p_offset = 4096;
				memcpy(p.b + eh->e_phoff + i * sizeof(ph), &ph, sizeof(ph));
				break;
			}
			what = "loadable segment";
			break;
		case 10:	/* big-endian */
			p.b[EI_DATA] = ELFDATA2MSB;
			memcpy(eh, p.b, sizeof(*eh));
			err = -ENOTSUP;
			what = "big-endian ELF files are not supported";
			break;
		}
		memcpy(p.b, eh, sizeof(*eh));
		write_bytes(path, p.b, p.len);
		expect_open_error(path, err, what);
		free(p.b);
	}

	/* A PT_LOAD with no file bytes, at an offset past EOF (the data
	 * segment of an arm64 debug file from objcopy --only-keep-debug):
	 * nothing to read there, so the file opens. */
	for (size_t i = 0; i < im.eh.e_phnum; i++) {
		memcpy(&ph, im.b + im.eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD)
			continue;
		struct img p = { malloc(im.len), im.len, im.eh };
		memcpy(p.b, im.b, im.len);
		ph.p_filesz = 0;
		ph.p_offset = im.len + 0x10000;
		memcpy(p.b + im.eh.e_phoff + i * sizeof(ph), &ph, sizeof(ph));
		write_bytes(path, p.b, p.len);
		struct elf_file *ef;
		char *cause = NULL;
		assert_int_equal(elf_file_open(path, &ef, &cause), 0);
		assert_null(cause);
		elf_file_close(ef);
		free(p.b);
		break;
	}

	/* an unknown class */
	im.b[EI_CLASS] = 7;
	write_bytes(path, im.b, im.len);
	expect_open_error(path, -ENOTSUP, "unsupported ELF class 7");
	free(im.b);
}

/* Files that open but whose symbol tables or notes are broken. */
static void expect_symtab_error(const char *path, const char *what)
{
	struct elf_file *ef = open_ok(path);
	struct elf_symtab *st = (struct elf_symtab *)1;
	char *cause = NULL;
	assert_int_equal(elf_symtab_load(ef, &st, &cause), -EINVAL);
	assert_null(st);
	assert_non_null(cause);
	if (!strstr(cause, what))
		fprintf(stderr, "cause '%s' lacks '%s'\n", cause, what);
	assert_non_null(strstr(cause, what));
	assert_non_null(strstr(cause, path));
	free(cause);
	elf_file_close(ef);
}

static void test_elf__broken_symbols_and_notes_are_refused(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	struct img im;
	char path[600];
	img_load(&im, f->prog);
	snprintf(path, sizeof(path), "%s/broken", f->dir);
	size_t sym = img_find(&im, ".symtab"), str = img_find(&im, ".strtab");
	Elf64_Shdr s0 = img_shdr(&im, sym), t0 = img_shdr(&im, str), s;

	/* .symtab links to no string table */
	s = s0;
	s.sh_link = 0;
	img_put_shdr(&im, sym, &s);
	write_bytes(path, im.b, im.len);
	expect_symtab_error(path, "links to string table 0");
	img_put_shdr(&im, sym, &s0);

	/* entries of the wrong size */
	s = s0;
	s.sh_entsize = 7;
	img_put_shdr(&im, sym, &s);
	write_bytes(path, im.b, im.len);
	expect_symtab_error(path, "entries of 7 bytes");
	img_put_shdr(&im, sym, &s0);

	/* a string table cut to one byte: names point outside it */
	s = t0;
	s.sh_size = 1;
	img_put_shdr(&im, str, &s);
	write_bytes(path, im.b, im.len);
	expect_symtab_error(path, "has a name outside its string table");
	img_put_shdr(&im, str, &t0);

	/* a string table whose last name lost its terminator */
	im.b[t0.sh_offset + t0.sh_size - 1] = 'X';
	write_bytes(path, im.b, im.len);
	expect_symtab_error(path, "string table '.strtab' does not end with a NUL");
	im.b[t0.sh_offset + t0.sh_size - 1] = '\0';

	/* a build id note whose descriptor runs past its segment */
	Elf64_Shdr bid = img_shdr(&im, img_find(&im, ".note.gnu.build-id"));
	uint32_t descsz = 0x10000;
	memcpy(im.b + bid.sh_offset + 4, &descsz, 4);
	write_bytes(path, im.b, im.len);
	struct elf_file *ef = open_ok(path);
	char hex[ELF_BUILD_ID_HEX_SIZE], *cause = NULL;
	assert_int_equal(elf_file_build_id(ef, hex, sizeof(hex), &cause), -EINVAL);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "a note runs past the end"));
	free(cause);
	elf_file_close(ef);
	free(im.b);
}

/*
 * Random damage to prog's headers: whatever open accepts, every other call
 * must survive (ASan and UBSan builds catch what a plain one would not).
 * Fixed seed, so a failure repeats; PROF_ELF_FUZZ_ITERS runs longer.
 */
static void test_elf__random_damage_never_crashes(void **state)
{
	struct fix *f = *state;
	NEED_TOOLS(f);
	struct img im;
	char path[600];
	img_load(&im, f->prog);
	snprintf(path, sizeof(path), "%s/fuzz", f->dir);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned char *b = malloc(im.len);
	size_t opened = 0, refused = 0;
	/* where damage matters: the ELF and program headers, the section
	 * headers, the symbols and the build id note */
	Elf64_Shdr sym = img_shdr(&im, img_find(&im, ".symtab"));
	Elf64_Shdr note = img_shdr(&im, img_find(&im, ".note.gnu.build-id"));
	size_t regions[4][2] = {
		{ 0, im.eh.e_phoff + im.eh.e_phnum * sizeof(Elf64_Phdr) },
		{ im.eh.e_shoff, im.len },
		{ sym.sh_offset, sym.sh_offset + sym.sh_size },
		{ note.sh_offset, note.sh_offset + note.sh_size },
	};
	size_t iters = getenv("PROF_ELF_FUZZ_ITERS") ?
		strtoul(getenv("PROF_ELF_FUZZ_ITERS"), NULL, 10) : 400;
	size_t symtabs = 0, build_ids = 0;

	for (size_t it = 0; it < iters; it++) {
		memcpy(b, im.b, im.len);
		int nflips = 1 + (int)(it % 6);
		for (int k = 0; k < nflips; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			size_t (*r)[2] = &regions[x & 3];
			size_t at = (*r)[0] + (size_t)((x >> 8) % ((*r)[1] - (*r)[0]));
			if ((x >> 40) & 1) {
				b[at] = (unsigned char)(x >> 48);
			} else if (at + 8 <= im.len) {
				uint64_t v = x * 0x2545f4914f6cdd1dull;
				memcpy(b + at, &v, 8);
			}
		}
		write_bytes(path, b, im.len);
		struct elf_file *ef = NULL;
		char *cause = NULL;
		if (elf_file_open(path, &ef, &cause) < 0) {
			assert_non_null(cause);
			free(cause);
			refused++;
			continue;
		}
		opened++;
		struct elf_sizes sz;
		elf_file_sizes(ef, &sz);
		char hex[ELF_BUILD_ID_HEX_SIZE];
		int bid = elf_file_build_id(ef, hex, sizeof(hex), &cause);
		if (bid == -EINVAL)
			free(cause);
		build_ids += bid == 0;
		struct elf_symtab *st = NULL;
		if (elf_symtab_load(ef, &st, &cause) == 0) {
			symtabs++;
			for (int k = 0; k < 64; k++) {
				uint64_t off, v;
				elf_symtab_lookup(st, x + (uint64_t)k * 977, &off);
				elf_file_offset_to_vaddr(ef, (uint64_t)k * 4099, &v);
			}
			elf_symtab_free(st);
		} else {
			free(cause);
		}
		elf_file_close(ef);
	}
	fprintf(stderr, "note: %zu damaged files opened (%zu with symbols, "
		"%zu with a build id), %zu refused\n",
		opened, symtabs, build_ids, refused);
	/* both outcomes happen, or the damage misses what it aims at */
	assert_true(opened > iters / 10);
	assert_true(refused > iters / 10);
	assert_true(symtabs > iters / 20);
	free(b);
	free(im.b);
}

/* ---- perf maps ------------------------------------------------------------ */

static struct elf_symtab *map_from(const char *text, size_t len, size_t *junk)
{
	FILE *fp = fmemopen((void *)text, len, "r");
	struct elf_symtab *st = NULL;
	char *cause = NULL;
	assert_non_null(fp);
	assert_int_equal(elf_symtab_load_perf_map_file(fp, &st, junk, &cause), 0);
	assert_null(cause);
	fclose(fp);
	return st;
}

static void expect_sym(const struct elf_symtab *st, uint64_t addr,
		       const char *name, uint64_t want_off)
{
	uint64_t off = 12345;
	const struct elf_sym *s = elf_symtab_lookup(st, addr, &off);
	if (!name) {
		assert_null(s);
		return;
	}
	assert_non_null(s);
	assert_string_equal(s->name, name);
	assert_int_equal(off, want_off);
}

static void test_elf__perf_map_good_and_junk_lines(void **state)
{
	(void)state;
	/* Hand-written: 13 good lines (2 share a START, so 12 symbols) and
	 * 11 junk ones, one of them with a NUL inside. */
	static const char text[] =
		"1000 10 jit_alpha\n"
		"0x2000 0x20 jit beta with spaces\n"
		"3000 0 zero_size\n"
		"3100 8 after_zero\n"
		"4000 10 old\n"
		"4000 20 new\n"
		"5000 100 outer\n"
		"5010 10 inner\n"
		"6000 4 crlf\r\n"
		"7000\t4\ttabbed\n"
		"ABCDEF0 1 Upper\n"
		"\n"
		"garbage\n"
		"1000\n"
		"1000 10\n"
		"1000 10   \n"
		"xyz 10 bad_start\n"
		"1000 zz bad_size\n"
		"ffffffffffffffff 2 wraps\n"
		"10000000000000000 1 seventeen_digits\n"
		"1000 10 nul\0inside\n"
		"0x 10 empty_hex\n"
		"fffffffffffffff0 10 top\n"
		"8000 8 no_newline_at_end";
	size_t junk = 0;
	struct elf_symtab *st = map_from(text, sizeof(text) - 1, &junk);

	assert_int_equal(junk, 11);
	assert_int_equal(elf_symtab_count(st), 12);
	expect_sym(st, 0xfff, NULL, 0);
	expect_sym(st, 0x1000, "jit_alpha", 0);
	expect_sym(st, 0x100f, "jit_alpha", 0xf);
	expect_sym(st, 0x1010, NULL, 0);		/* the gap after it */
	expect_sym(st, 0x201f, "jit beta with spaces", 0x1f);
	/* size 0 reaches the next symbol */
	expect_sym(st, 0x30ff, "zero_size", 0xff);
	expect_sym(st, 0x3100, "after_zero", 0);
	/* the later line at 0x4000 wins, with its own size */
	expect_sym(st, 0x401f, "new", 0x1f);
	/* nested: the inner one inside, the outer one around it */
	expect_sym(st, 0x5015, "inner", 5);
	expect_sym(st, 0x5020, "outer", 0x20);
	expect_sym(st, 0x5004, "outer", 4);
	expect_sym(st, 0x5100, NULL, 0);
	expect_sym(st, 0x6003, "crlf", 3);
	expect_sym(st, 0x7002, "tabbed", 2);
	expect_sym(st, 0xabcdef0, "Upper", 0);
	expect_sym(st, 0xffffffffffffffffull, "top", 0xf);
	expect_sym(st, 0x8007, "no_newline_at_end", 7);
	elf_symtab_free(st);

	/* an empty map */
	st = map_from("", 0, &junk);
	assert_int_equal(junk, 0);
	assert_int_equal(elf_symtab_count(st), 0);
	expect_sym(st, 0x1000, NULL, 0);
	elf_symtab_free(st);
}

static void test_elf__perf_map_by_path(void **state)
{
	struct fix *f = *state;
	char path[600];
	size_t junk = 99;
	struct elf_symtab *st = NULL;
	char *cause = NULL;

	snprintf(path, sizeof(path), "%s/perf-4242.map", f->dir);
	write_text(path, "7f0000001000 40 LazyCompile:~main /app/x.js:1\nbad line\n");
	assert_int_equal(elf_symtab_load_perf_map(path, &st, &junk, &cause), 0);
	assert_int_equal(junk, 1);
	expect_sym(st, 0x7f000000103full, "LazyCompile:~main /app/x.js:1", 0x3f);
	elf_symtab_free(st);

	snprintf(path, sizeof(path), "%s/perf-0.map", f->dir);
	assert_int_equal(elf_symtab_load_perf_map(path, &st, &junk, &cause), -ENOENT);
	assert_null(st);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "no such file"));
	assert_non_null(strstr(cause, "perf-0.map"));
	free(cause);
}

/* Nesting through several levels and partial overlaps, checked against a
 * linear scan for the innermost (latest-starting) symbol covering each
 * address. */
static void test_elf__lookup_agrees_with_linear_scan(void **state)
{
	(void)state;
	static const char text[] =
		"100 100 a\n"	/* [100, 200) */
		"110 20 b\n"	/* [110, 130) inside a */
		"118 4 c\n"	/* [118, 11c) inside b */
		"140 80 d\n"	/* [140, 1c0) inside a */
		"1a0 100 e\n"	/* [1a0, 2a0) overlaps a's and d's end */
		"300 0 f\n"	/* size 0: reaches g */
		"400 10 g\n";
	size_t junk;
	struct elf_symtab *st = map_from(text, sizeof(text) - 1, &junk);
	static const struct { uint64_t s, e; const char *n; } iv[] = {
		{ 0x100, 0x200, "a" }, { 0x110, 0x130, "b" }, { 0x118, 0x11c, "c" },
		{ 0x140, 0x1c0, "d" }, { 0x1a0, 0x2a0, "e" }, { 0x300, 0x301, "f" },
		{ 0x400, 0x410, "g" },
	};
	assert_int_equal(junk, 0);
	for (uint64_t a = 0xf0; a < 0x420; a++) {
		const char *want = NULL;
		uint64_t start = 0;
		for (size_t i = 0; i < sizeof(iv) / sizeof(iv[0]); i++) {
			uint64_t end = strcmp(iv[i].n, "f") == 0 ? 0x400 : iv[i].e;
			if (a >= iv[i].s && a < end && (!want || iv[i].s >= start)) {
				want = iv[i].n;
				start = iv[i].s;
			}
		}
		expect_sym(st, a, want, want ? a - start : 0);
	}
	elf_symtab_free(st);
}

/* Inputs the fuzzer found (tests/fuzz/regressions/elf/): each opens, and
 * what is wrong in it is refused with a cause, nothing read out of bounds. */
static void test_elf__fuzz_regressions(void **state)
{
	(void)state;
	struct elf_file *ef = NULL;
	struct elf_symtab *st = NULL;
	char *cause = NULL;

	/* .symtab's sh_link names a SHT_NULL section, whose offset and size
	 * opening does not check: it was read as the string table. */
	ef = open_ok(REGRESSIONS_DIR "/elf/symtab-links-null-section");
	assert_int_equal(elf_symtab_load(ef, &st, &cause), -EINVAL);
	assert_null(st);
	assert_non_null(strstr(cause, "links to string table"));
	assert_non_null(strstr(cause, "which is not in the file"));
	free(cause);
	elf_file_close(ef);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf__sizes_match_size_and_readelf),
		cmocka_unit_test(test_elf__info_and_sections),
		cmocka_unit_test(test_elf__open_mem_reads_as_the_file),
		cmocka_unit_test(test_elf__build_id_matches_readelf),
		cmocka_unit_test(test_elf__build_id_given_none_and_small_buffer),
		cmocka_unit_test(test_elf__symbols_match_nm),
		cmocka_unit_test(test_elf__stripped_files_fall_back_to_dynsym),
		cmocka_unit_test(test_elf__ifunc_and_its_resolver),
		cmocka_unit_test(test_elf__zero_size_symbol_reaches_the_next),
		cmocka_unit_test(test_elf__aliases_named_as_perf_names_them),
		cmocka_unit_test(test_elf__every_libc_function_resolves),
		cmocka_unit_test(test_elf__offsets_map_through_program_headers),
		cmocka_unit_test(test_elf__symbolizes_live_addresses),
		cmocka_unit_test(test_elf__reads_elfclass32),
		cmocka_unit_test(test_elf__not_elf_empty_directory_missing),
		cmocka_unit_test(test_elf__truncated_files_are_refused),
		cmocka_unit_test(test_elf__patched_headers_are_refused),
		cmocka_unit_test(test_elf__broken_symbols_and_notes_are_refused),
		cmocka_unit_test(test_elf__random_damage_never_crashes),
		cmocka_unit_test(test_elf__perf_map_good_and_junk_lines),
		cmocka_unit_test(test_elf__perf_map_by_path),
		cmocka_unit_test(test_elf__lookup_agrees_with_linear_scan),
		cmocka_unit_test(test_elf__fuzz_regressions),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
