/*
 * elf: a bounds-checked ELF reader built on <elf.h> alone. The file is
 * mapped read-only and every header is copied out with memcpy (offsets in
 * a malformed file need not be aligned) and normalized to 64-bit structs,
 * so the rest of the code has one shape to handle for both classes.
 * Every range is checked as "offset <= file size && length <= file size -
 * offset", which cannot overflow.
 */
#include "collectors/elf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/errtext.h"

/* How much of a path or name goes into a message. */
#define MSG_CAP 256

struct elf_file {
	char *path;
	const unsigned char *map;
	size_t size;
	bool borrowed;		/* map is the caller's (elf_file_open_mem) */
	struct elf_info info;
	struct elf_section *sections;
	size_t nsections;
	struct elf_section *exec;
	size_t nexec;
	struct elf_segment *segments;
	size_t nsegments;
};

struct elf_symtab {
	struct elf_sym *syms;
	/* cover[i]: the nearest earlier symbol still covering syms[i].addr,
	 * or NO_COVER; lets a lookup step out of nested symbols exactly. */
	uint32_t *cover;
	size_t n;
	char *names;
};

#define NO_COVER UINT32_MAX

static bool range_ok(uint64_t fsize, uint64_t off, uint64_t len)
{
	return off <= fsize && len <= fsize - off;
}

/* ---- opening --------------------------------------------------------- */

/* The ELF header, normalized. */
struct ehdr {
	uint16_t type, machine;
	uint64_t entry, phoff, shoff;
	uint16_t phentsize, phnum, shentsize, shnum, shstrndx;
};

static void read_ehdr(const struct elf_file *ef, struct ehdr *h)
{
	if (ef->info.bits == 64) {
		Elf64_Ehdr e;
		memcpy(&e, ef->map, sizeof(e));
		*h = (struct ehdr){ e.e_type, e.e_machine, e.e_entry, e.e_phoff,
				    e.e_shoff, e.e_phentsize, e.e_phnum,
				    e.e_shentsize, e.e_shnum, e.e_shstrndx };
	} else {
		Elf32_Ehdr e;
		memcpy(&e, ef->map, sizeof(e));
		*h = (struct ehdr){ e.e_type, e.e_machine, e.e_entry, e.e_phoff,
				    e.e_shoff, e.e_phentsize, e.e_phnum,
				    e.e_shentsize, e.e_shnum, e.e_shstrndx };
	}
}

/* Section header at a checked offset. */
static void read_shdr(const struct elf_file *ef, uint64_t off,
		      struct elf_section *s)
{
	if (ef->info.bits == 64) {
		Elf64_Shdr h;
		memcpy(&h, ef->map + off, sizeof(h));
		*s = (struct elf_section){ "", 0, h.sh_type, h.sh_flags,
					   h.sh_addr, h.sh_offset, h.sh_size,
					   h.sh_link, h.sh_info, h.sh_addralign,
					   h.sh_entsize };
		s->index = h.sh_name;	/* parked here until names resolve */
	} else {
		Elf32_Shdr h;
		memcpy(&h, ef->map + off, sizeof(h));
		*s = (struct elf_section){ "", 0, h.sh_type, h.sh_flags,
					   h.sh_addr, h.sh_offset, h.sh_size,
					   h.sh_link, h.sh_info, h.sh_addralign,
					   h.sh_entsize };
		s->index = h.sh_name;
	}
}

static void read_phdr(const struct elf_file *ef, uint64_t off,
		      struct elf_segment *p)
{
	if (ef->info.bits == 64) {
		Elf64_Phdr h;
		memcpy(&h, ef->map + off, sizeof(h));
		*p = (struct elf_segment){ h.p_type, h.p_flags, h.p_offset,
					   h.p_vaddr, h.p_filesz, h.p_memsz,
					   h.p_align };
	} else {
		Elf32_Phdr h;
		memcpy(&h, ef->map + off, sizeof(h));
		*p = (struct elf_segment){ h.p_type, h.p_flags, h.p_offset,
					   h.p_vaddr, h.p_filesz, h.p_memsz,
					   h.p_align };
	}
}

/* Read the section header table, resolve names and check extents. */
static int load_sections(struct elf_file *ef, const struct ehdr *h,
			 const char *path, char **cause)
{
	size_t shdr_size = ef->info.bits == 64 ? sizeof(Elf64_Shdr)
					       : sizeof(Elf32_Shdr);
	uint64_t fsize = ef->size;

	if (h->shoff == 0)
		return 0;	/* no section headers (stripped of them) */
	if (h->shentsize < shdr_size)
		return cause_set(cause, -EINVAL,
				 "cannot read ELF file '%.*s': section header size %u is smaller than %zu",
				 MSG_CAP, path, h->shentsize, shdr_size);

	/* e_shnum == 0 with a table means the count is in section 0's
	 * sh_size (and e_shstrndx == SHN_XINDEX puts the index in sh_link). */
	uint64_t shnum = h->shnum;
	uint64_t shstrndx = h->shstrndx;
	if (h->shnum == 0 || h->shstrndx == SHN_XINDEX) {
		struct elf_section s0;
		if (!range_ok(fsize, h->shoff, shdr_size))
			return cause_set(cause, -EINVAL,
					 "cannot read ELF file '%.*s': section header table at offset %llu is beyond the end of the file (%llu bytes)",
					 MSG_CAP, path, (unsigned long long)h->shoff,
					 (unsigned long long)fsize);
		read_shdr(ef, h->shoff, &s0);
		if (h->shnum == 0)
			shnum = s0.size;
		if (h->shstrndx == SHN_XINDEX)
			shstrndx = s0.link;
	}
	if (shnum == 0)
		return 0;
	if (h->shoff > fsize || shnum > (fsize - h->shoff) / h->shentsize)
		return cause_set(cause, -EINVAL,
				 "cannot read ELF file '%.*s': section header table (offset %llu, %llu entries of %u bytes) extends beyond the end of the file (%llu bytes)",
				 MSG_CAP, path, (unsigned long long)h->shoff,
				 (unsigned long long)shnum, h->shentsize,
				 (unsigned long long)fsize);

	ef->sections = calloc(shnum, sizeof(*ef->sections));
	if (!ef->sections)
		return cause_set(cause, -ENOMEM, "cannot read ELF file '%.*s': out of memory",
				 MSG_CAP, path);
	ef->nsections = shnum;
	for (uint64_t i = 0; i < shnum; i++)
		read_shdr(ef, h->shoff + i * h->shentsize, &ef->sections[i]);

	const char *strtab = NULL;
	uint64_t strsize = 0;
	if (shstrndx != SHN_UNDEF) {
		if (shstrndx >= shnum)
			return cause_set(cause, -EINVAL,
					 "cannot read ELF file '%.*s': section name table index %llu is out of range (%llu sections)",
					 MSG_CAP, path, (unsigned long long)shstrndx,
					 (unsigned long long)shnum);
		const struct elf_section *ss = &ef->sections[shstrndx];
		if (ss->type == SHT_NOBITS || !range_ok(fsize, ss->offset, ss->size))
			return cause_set(cause, -EINVAL,
					 "cannot read ELF file '%.*s': section name table (offset %llu, %llu bytes) extends beyond the end of the file (%llu bytes)",
					 MSG_CAP, path, (unsigned long long)ss->offset,
					 (unsigned long long)ss->size,
					 (unsigned long long)fsize);
		strtab = (const char *)ef->map + ss->offset;
		strsize = ss->size;
		/* The gABI ends every string table with a NUL, so each name
		 * that starts inside it is terminated inside it. */
		if (strsize > 0 && strtab[strsize - 1] != '\0')
			return cause_set(cause, -EINVAL,
					 "cannot read ELF file '%.*s': the section name table does not end with a NUL",
					 MSG_CAP, path);
	}

	size_t nexec = 0;
	for (uint64_t i = 0; i < shnum; i++) {
		struct elf_section *s = &ef->sections[i];
		uint32_t name = s->index;
		s->index = (uint32_t)i;
		if (strtab && !(name == 0 && strsize == 0)) {
			if (name >= strsize)
				return cause_set(cause, -EINVAL,
						 "cannot read ELF file '%.*s': section %llu has name offset %u beyond the section name table (%llu bytes)",
						 MSG_CAP, path, (unsigned long long)i,
						 name, (unsigned long long)strsize);
			s->name = strtab + name;
		}
		if (s->type != SHT_NULL && s->type != SHT_NOBITS &&
		    !range_ok(fsize, s->offset, s->size))
			return cause_set(cause, -EINVAL,
					 "cannot read ELF file '%.*s': section '%.*s' (offset %llu, %llu bytes) extends beyond the end of the file (%llu bytes)",
					 MSG_CAP, path, MSG_CAP, s->name,
					 (unsigned long long)s->offset,
					 (unsigned long long)s->size,
					 (unsigned long long)fsize);
		if ((s->flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
		    (SHF_ALLOC | SHF_EXECINSTR))
			nexec++;
	}

	if (nexec) {
		ef->exec = calloc(nexec, sizeof(*ef->exec));
		if (!ef->exec)
			return cause_set(cause, -ENOMEM, "cannot read ELF file '%.*s': out of memory",
					 MSG_CAP, path);
		for (size_t i = 0; i < ef->nsections; i++)
			if ((ef->sections[i].flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
			    (SHF_ALLOC | SHF_EXECINSTR))
				ef->exec[ef->nexec++] = ef->sections[i];
	}
	return 0;
}

static int load_segments(struct elf_file *ef, const struct ehdr *h,
			 const char *path, char **cause)
{
	size_t phdr_size = ef->info.bits == 64 ? sizeof(Elf64_Phdr)
					       : sizeof(Elf32_Phdr);
	uint64_t fsize = ef->size;
	uint64_t phnum = h->phnum;

	if (h->phoff == 0 || phnum == 0)
		return 0;
	/* PN_XNUM: the real count is in section 0's sh_info. */
	if (phnum == PN_XNUM && ef->nsections > 0)
		phnum = ef->sections[0].info;
	if (h->phentsize < phdr_size)
		return cause_set(cause, -EINVAL,
				 "cannot read ELF file '%.*s': program header size %u is smaller than %zu",
				 MSG_CAP, path, h->phentsize, phdr_size);
	if (h->phoff > fsize || phnum > (fsize - h->phoff) / h->phentsize)
		return cause_set(cause, -EINVAL,
				 "cannot read ELF file '%.*s': program header table (offset %llu, %llu entries of %u bytes) extends beyond the end of the file (%llu bytes)",
				 MSG_CAP, path, (unsigned long long)h->phoff,
				 (unsigned long long)phnum, h->phentsize,
				 (unsigned long long)fsize);
	ef->segments = calloc(phnum, sizeof(*ef->segments));
	if (!ef->segments)
		return cause_set(cause, -ENOMEM, "cannot read ELF file '%.*s': out of memory",
				 MSG_CAP, path);
	ef->nsegments = phnum;
	for (uint64_t i = 0; i < phnum; i++) {
		struct elf_segment *p = &ef->segments[i];
		read_phdr(ef, h->phoff + i * h->phentsize, p);
		/* A segment with no bytes in the file may say any offset:
		 * objcopy --only-keep-debug leaves the data segment's,
		 * past the end of the smaller debug file (measured on an
		 * arm64 build, whose 64 KiB alignment puts it at 0xfdc8 in
		 * a 6864-byte file). */
		if ((p->type == PT_LOAD || p->type == PT_NOTE) && p->filesz &&
		    !range_ok(fsize, p->offset, p->filesz))
			return cause_set(cause, -EINVAL,
					 "cannot read ELF file '%.*s': %s segment %llu (offset %llu, %llu bytes) extends beyond the end of the file (%llu bytes)",
					 MSG_CAP, path,
					 p->type == PT_LOAD ? "loadable" : "note",
					 (unsigned long long)i,
					 (unsigned long long)p->offset,
					 (unsigned long long)p->filesz,
					 (unsigned long long)fsize);
	}
	return 0;
}

/* Check the identification bytes and the header's own extent. */
static int check_ident(struct elf_file *ef, const char *path, char **cause)
{
	const unsigned char *id = ef->map;

	if (ef->size < SELFMAG || memcmp(id, ELFMAG, SELFMAG) != 0)
		return cause_set(cause, -ENOEXEC,
				 "cannot read ELF file '%.*s': not an ELF file",
				 MSG_CAP, path);
	if (ef->size < EI_NIDENT)
		return cause_set(cause, -EINVAL,
				 "cannot read ELF file '%.*s': truncated inside the ELF header (%zu bytes)",
				 MSG_CAP, path, ef->size);
	if (id[EI_CLASS] == ELFCLASS64)
		ef->info.bits = 64;
	else if (id[EI_CLASS] == ELFCLASS32)
		ef->info.bits = 32;
	else
		return cause_set(cause, -ENOTSUP,
				 "cannot read ELF file '%.*s': unsupported ELF class %u",
				 MSG_CAP, path, id[EI_CLASS]);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	return cause_set(cause, -ENOTSUP,
			 "cannot read ELF file '%.*s': prof reads ELF files on little-endian hosts only",
			 MSG_CAP, path);
#endif
	if (id[EI_DATA] != ELFDATA2LSB)
		return cause_set(cause, -ENOTSUP,
				 "cannot read ELF file '%.*s': %s ELF files are not supported",
				 MSG_CAP, path,
				 id[EI_DATA] == ELFDATA2MSB ? "big-endian" : "unknown byte order");
	size_t need = ef->info.bits == 64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (ef->size < need)
		return cause_set(cause, -EINVAL,
				 "cannot read ELF file '%.*s': truncated inside the ELF header (%zu of %zu bytes)",
				 MSG_CAP, path, ef->size, need);
	return 0;
}

/* Everything after the bytes are in place: the headers and the tables. */
static int parse_headers(struct elf_file *ef, const char *path, char **cause)
{
	struct ehdr h;
	int err = check_ident(ef, path, cause);
	if (err)
		return err;
	read_ehdr(ef, &h);
	ef->info.type = h.type;
	ef->info.machine = h.machine;
	ef->info.entry = h.entry;
	err = load_sections(ef, &h, path, cause);
	if (err)
		return err;
	return load_segments(ef, &h, path, cause);
}

int elf_file_open(const char *path, struct elf_file **out, char **cause)
{
	struct elf_file *ef;
	struct stat st;
	char eb[128];
	int fd, err;

	*out = NULL;
	if (cause)
		*cause = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		return cause_set(cause, err, "cannot open '%.*s': %s", MSG_CAP,
				 path, err_text(-err, eb, sizeof(eb)));
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return cause_set(cause, err, "cannot stat '%.*s': %s", MSG_CAP,
				 path, err_text(-err, eb, sizeof(eb)));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return cause_set(cause, -EISDIR,
				 "cannot read ELF file '%.*s': is a directory",
				 MSG_CAP, path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return cause_set(cause, -EINVAL,
				 "cannot read ELF file '%.*s': not a regular file",
				 MSG_CAP, path);
	}
	if (st.st_size == 0) {
		close(fd);
		return cause_set(cause, -ENOEXEC,
				 "cannot read ELF file '%.*s': empty file",
				 MSG_CAP, path);
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return cause_set(cause, -EFBIG,
				 "cannot read ELF file '%.*s': too large to map",
				 MSG_CAP, path);
	}

	ef = calloc(1, sizeof(*ef));
	if (!ef || !(ef->path = strdup(path))) {
		free(ef);
		close(fd);
		return cause_set(cause, -ENOMEM, "cannot read ELF file '%.*s': out of memory",
				 MSG_CAP, path);
	}
	ef->size = (size_t)st.st_size;
	ef->info.file_size = (uint64_t)st.st_size;
	void *map = mmap(NULL, ef->size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = -errno;
	close(fd);
	if (map == MAP_FAILED) {
		free(ef->path);
		free(ef);
		return cause_set(cause, err, "cannot map '%.*s': %s", MSG_CAP,
				 path, err_text(-err, eb, sizeof(eb)));
	}
	ef->map = map;

	err = parse_headers(ef, path, cause);
	if (err) {
		elf_file_close(ef);
		return err;
	}
	*out = ef;
	return 0;
}

int elf_file_open_mem(const void *buf, size_t len, const char *name,
		      struct elf_file **out, char **cause)
{
	struct elf_file *ef;
	int err;

	*out = NULL;
	if (cause)
		*cause = NULL;
	if (len == 0)
		return cause_set(cause, -ENOEXEC,
				 "cannot read ELF file '%.*s': empty file",
				 MSG_CAP, name);
	ef = calloc(1, sizeof(*ef));
	if (!ef || !(ef->path = strdup(name))) {
		free(ef);
		return cause_set(cause, -ENOMEM, "cannot read ELF file '%.*s': out of memory",
				 MSG_CAP, name);
	}
	ef->map = buf;
	ef->size = len;
	ef->borrowed = true;
	ef->info.file_size = len;
	err = parse_headers(ef, name, cause);
	if (err) {
		elf_file_close(ef);
		return err;
	}
	*out = ef;
	return 0;
}

void elf_file_close(struct elf_file *ef)
{
	if (!ef)
		return;
	if (ef->map && !ef->borrowed)
		munmap((void *)ef->map, ef->size);
	free(ef->sections);
	free(ef->exec);
	free(ef->segments);
	free(ef->path);
	free(ef);
}

const char *elf_file_path(const struct elf_file *ef)
{
	return ef->path;
}

const struct elf_info *elf_file_info(const struct elf_file *ef)
{
	return &ef->info;
}

size_t elf_file_sections(const struct elf_file *ef, const struct elf_section **out)
{
	*out = ef->sections;
	return ef->nsections;
}

size_t elf_file_exec_sections(const struct elf_file *ef,
			      const struct elf_section **out)
{
	*out = ef->exec;
	return ef->nexec;
}

const struct elf_section *elf_file_section_by_name(const struct elf_file *ef,
						   const char *name)
{
	for (size_t i = 0; i < ef->nsections; i++)
		if (strcmp(ef->sections[i].name, name) == 0)
			return &ef->sections[i];
	return NULL;
}

void elf_file_sizes(const struct elf_file *ef, struct elf_sizes *out)
{
	const struct elf_section *text = elf_file_section_by_name(ef, ".text");

	*out = (struct elf_sizes){ 0 };
	out->has_sections = ef->nsections > 0;
	out->has_text = text != NULL;
	out->text_bytes = text ? text->size : 0;
	out->nexec = ef->nexec;
	for (size_t i = 0; i < ef->nexec; i++)
		out->exec_bytes += ef->exec[i].size;
}

const void *elf_file_bytes(const struct elf_file *ef, uint64_t offset,
			   uint64_t len)
{
	if (!range_ok(ef->size, offset, len))
		return NULL;
	return ef->map + offset;
}

size_t elf_file_segments(const struct elf_file *ef, const struct elf_segment **out)
{
	*out = ef->segments;
	return ef->nsegments;
}

/* ---- build id ---------------------------------------------------------- */

/*
 * Search the notes in [off, off + len) (already checked against the file)
 * for NT_GNU_BUILD_ID. 1 and *desc and *dlen when found, 0 when not, -EINVAL
 * when a note runs past the end of its container.
 */
static int find_build_id(const struct elf_file *ef, uint64_t off, uint64_t len,
			 uint64_t align, const unsigned char **desc, uint32_t *dlen)
{
	/* Notes are 4-byte aligned except in 8-aligned containers
	 * (.note.gnu.property on x86-64 and aarch64). */
	uint64_t a = align == 8 ? 8 : 4;
	uint64_t pos = 0;

	while (len - pos >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr n;	/* the same three words in both classes */
		memcpy(&n, ef->map + off + pos, sizeof(n));
		uint64_t name_at = pos + sizeof(n);
		uint64_t desc_at = (name_at + n.n_namesz + a - 1) & ~(a - 1);
		uint64_t next = (desc_at + n.n_descsz + a - 1) & ~(a - 1);
		if (desc_at > len || n.n_descsz > len - desc_at)
			return -EINVAL;
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
		    memcmp(ef->map + off + name_at, "GNU", 4) == 0) {
			*desc = ef->map + off + desc_at;
			*dlen = n.n_descsz;
			return 1;
		}
		if (next >= len)
			break;
		pos = next;
	}
	return 0;
}

int elf_file_build_id(const struct elf_file *ef, char *hex, size_t size,
		      char **cause)
{
	const unsigned char *desc = NULL;
	uint32_t dlen = 0;
	int found = 0;

	if (cause)
		*cause = NULL;
	for (size_t i = 0; i < ef->nsegments && !found; i++) {
		const struct elf_segment *p = &ef->segments[i];
		if (p->type == PT_NOTE)
			found = find_build_id(ef, p->offset, p->filesz, p->align,
					      &desc, &dlen);
	}
	for (size_t i = 0; i < ef->nsections && !found; i++) {
		const struct elf_section *s = &ef->sections[i];
		if (s->type == SHT_NOTE)
			found = find_build_id(ef, s->offset, s->size, s->addralign,
					      &desc, &dlen);
	}
	if (found < 0)
		return cause_set(cause, -EINVAL,
				 "cannot read the build id of '%.*s': a note runs past the end of its segment or section",
				 MSG_CAP, ef->path);
	if (!found)
		return -ENOENT;
	if (dlen == 0 || dlen > ELF_BUILD_ID_MAX)
		return cause_set(cause, -EINVAL,
				 "cannot read the build id of '%.*s': its length %u is not between 1 and %d bytes",
				 MSG_CAP, ef->path, dlen, ELF_BUILD_ID_MAX);
	if (size < 2 * (size_t)dlen + 1)
		return -ENOSPC;
	for (uint32_t i = 0; i < dlen; i++) {
		static const char digits[] = "0123456789abcdef";
		hex[2 * i] = digits[desc[i] >> 4];
		hex[2 * i + 1] = digits[desc[i] & 15];
	}
	hex[2 * dlen] = '\0';
	return 0;
}

/* ---- separate debug files ------------------------------------------------ */

int elf_file_debuglink(const struct elf_file *ef, const char **name,
		       uint32_t *crc, char **cause)
{
	const struct elf_section *s = elf_file_section_by_name(ef, ".gnu_debuglink");

	if (cause)
		*cause = NULL;
	if (!s || s->type == SHT_NOBITS)
		return -ENOENT;
	/* Opening checked the extent of sections that hold bytes; a null
	 * section's fields mean nothing (libFuzzer found one named
	 * .gnu_debuglink whose offset pointed past the file), so it is
	 * refused as the symbol tables' links are. Then: name, NUL,
	 * padding to 4, CRC-32. */
	if (s->type == SHT_NULL || !range_ok(ef->size, s->offset, s->size))
		return cause_set(cause, -EINVAL,
				 "cannot read the debug link of '%.*s': its section is not in the file",
				 MSG_CAP, ef->path);
	const char *p = (const char *)ef->map + s->offset;
	const char *nul = memchr(p, '\0', s->size);
	uint64_t crc_at = nul ? ((uint64_t)(nul - p) + 4) & ~(uint64_t)3 : 0;
	if (!nul || nul == p || crc_at > s->size || s->size - crc_at < 4)
		return cause_set(cause, -EINVAL,
				 "cannot read the debug link of '%.*s': its section holds no name and CRC",
				 MSG_CAP, ef->path);
	uint32_t c;
	memcpy(&c, p + crc_at, sizeof(c));
	*name = p;
	*crc = c;
	return 0;
}

bool elf_file_has_symtab(const struct elf_file *ef)
{
	for (size_t i = 0; i < ef->nsections; i++)
		if (ef->sections[i].type == SHT_SYMTAB && ef->sections[i].size)
			return true;
	return false;
}

/* ---- addresses ------------------------------------------------------- */

int elf_file_offset_to_vaddr(const struct elf_file *ef, uint64_t offset,
			     uint64_t *vaddr)
{
	for (size_t i = 0; i < ef->nsegments; i++) {
		const struct elf_segment *p = &ef->segments[i];
		if (p->type == PT_LOAD && offset >= p->offset &&
		    offset - p->offset < p->filesz) {
			*vaddr = p->vaddr + (offset - p->offset);
			return 0;
		}
	}
	return -ENOENT;
}

int elf_file_vaddr_to_offset(const struct elf_file *ef, uint64_t vaddr,
			     uint64_t *offset)
{
	for (size_t i = 0; i < ef->nsegments; i++) {
		const struct elf_segment *p = &ef->segments[i];
		if (p->type == PT_LOAD && vaddr >= p->vaddr &&
		    vaddr - p->vaddr < p->filesz) {
			*offset = p->offset + (vaddr - p->vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

int elf_file_map_to_vaddr(const struct elf_file *ef, uint64_t addr,
			  uint64_t map_start, uint64_t pgoff, uint64_t *vaddr)
{
	if (addr < map_start)
		return -ERANGE;
	uint64_t rel = addr - map_start;
	if (rel > UINT64_MAX - pgoff)
		return -ENOENT;
	return elf_file_offset_to_vaddr(ef, pgoff + rel, vaddr);
}

/* ---- symbol tables ------------------------------------------------------ */

/* A symbol before de-duplication. */
struct cand {
	uint64_t addr;
	uint64_t size;
	uint64_t limit;		/* end of its section; UINT64_MAX if unknown */
	uint64_t rank;		/* smaller wins among symbols at one address */
	const char *name;	/* borrowed: the mapping or a read buffer */
};

struct cand_vec {
	struct cand *v;
	size_t n, cap;
};

static int cand_push(struct cand_vec *cv, const struct cand *c)
{
	if (cv->n == cv->cap) {
		size_t cap = cv->cap ? cv->cap * 2 : 256;
		struct cand *v = realloc(cv->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		cv->v = v;
		cv->cap = cap;
	}
	cv->v[cv->n++] = *c;
	return 0;
}

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	/* perf's last tie-break: the longest name (__memmove_avx512_... over
	 * __memcpy_avx512_..., which share their code in libc). */
	size_t la = strlen(a->name), lb = strlen(b->name);
	if (la != lb)
		return la > lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static bool covers(const struct elf_sym *s, uint64_t addr)
{
	return addr >= s->addr && addr - s->addr < s->size;
}

/*
 * Sort, keep the best symbol per address, give size-0 symbols their extent,
 * copy the names and build the cover links. Consumes nothing; the caller
 * frees cv.
 */
static int symtab_build(struct cand_vec *cv, struct elf_symtab **out)
{
	struct elf_symtab *st;
	size_t n = 0, names = 0;

	if (cv->n >= NO_COVER)
		return -EOVERFLOW;
	if (cv->n)
		qsort(cv->v, cv->n, sizeof(*cv->v), cand_cmp);
	for (size_t i = 0; i < cv->n; i++) {
		if (n && cv->v[n - 1].addr == cv->v[i].addr)
			continue;
		cv->v[n++] = cv->v[i];
	}

	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->n = n;
	if (n) {
		st->syms = calloc(n, sizeof(*st->syms));
		st->cover = calloc(n, sizeof(*st->cover));
		for (size_t i = 0; i < n; i++)
			names += strlen(cv->v[i].name) + 1;
		st->names = malloc(names);
		if (!st->syms || !st->cover || !st->names) {
			elf_symtab_free(st);
			return -ENOMEM;
		}
	}

	char *p = st->names;
	for (size_t i = 0; i < n; i++) {
		const struct cand *c = &cv->v[i];
		struct elf_sym *s = &st->syms[i];
		size_t len = strlen(c->name) + 1;

		memcpy(p, c->name, len);
		s->name = p;
		p += len;
		s->addr = c->addr;
		s->size = c->size;
		if (s->size == 0) {
			uint64_t end = c->limit;
			if (i + 1 < n && cv->v[i + 1].addr < end)
				end = cv->v[i + 1].addr;
			s->size = end != UINT64_MAX && end > c->addr ? end - c->addr : 1;
		}
	}

	/* cover[i]: walk the chain from i - 1; every symbol the chain skips
	 * ends at or before syms[i].addr, so it cannot cover anything later
	 * either (amortized O(n), like a nesting stack). */
	for (size_t i = 0; i < n; i++) {
		uint32_t j = i ? (uint32_t)(i - 1) : NO_COVER;
		while (j != NO_COVER && !covers(&st->syms[j], st->syms[i].addr))
			j = st->cover[j];
		st->cover[i] = j;
	}
	*out = st;
	return 0;
}

/* Normalized ELF symbol. */
struct esym {
	uint32_t name;
	unsigned char info;
	uint16_t shndx;
	uint64_t value, size;
};

static void read_sym(const struct elf_file *ef, uint64_t off, struct esym *s)
{
	if (ef->info.bits == 64) {
		Elf64_Sym y;
		memcpy(&y, ef->map + off, sizeof(y));
		*s = (struct esym){ y.st_name, y.st_info, y.st_shndx, y.st_value,
				    y.st_size };
	} else {
		Elf32_Sym y;
		memcpy(&y, ef->map + off, sizeof(y));
		*s = (struct esym){ y.st_name, y.st_info, y.st_shndx, y.st_value,
				    y.st_size };
	}
}

/* The rank of an ELF symbol among others at its address: see the header;
 * the order is perf's (choose_best_symbol), so both name shared code
 * alike. */
static uint64_t sym_rank(const struct esym *y, const char *name)
{
	unsigned type = ELF64_ST_TYPE(y->info), bind = ELF64_ST_BIND(y->info);
	uint64_t unders = 0;
	while (name[unders] == '_' && unders < 255)
		unders++;
	return (uint64_t)(y->size == 0) << 12 |
	       (uint64_t)(type != STT_FUNC) << 11 |
	       (uint64_t)(bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 2 : 1) << 8 |
	       unders;
}

static int add_symbols(const struct elf_file *ef, const struct elf_section *sec,
		       struct cand_vec *cv, char **cause)
{
	size_t entsize = ef->info.bits == 64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);

	if (sec->size == 0)
		return 0;
	if (sec->entsize != entsize)
		return cause_set(cause, -EINVAL,
				 "cannot read symbols of '%.*s': '%.*s' has entries of %llu bytes, not %zu",
				 MSG_CAP, ef->path, MSG_CAP, sec->name,
				 (unsigned long long)sec->entsize, entsize);
	/* Opening checked the extent of sections that hold bytes; a link to
	 * a null or NOBITS section, whose fields mean nothing, is refused. */
	if (sec->link == 0 || sec->link >= ef->nsections ||
	    ef->sections[sec->link].type == SHT_NOBITS ||
	    ef->sections[sec->link].type == SHT_NULL ||
	    !range_ok(ef->size, ef->sections[sec->link].offset,
		      ef->sections[sec->link].size))
		return cause_set(cause, -EINVAL,
				 "cannot read symbols of '%.*s': '%.*s' links to string table %u, which is not in the file",
				 MSG_CAP, ef->path, MSG_CAP, sec->name, sec->link);
	const struct elf_section *strsec = &ef->sections[sec->link];
	const char *strtab = (const char *)ef->map + strsec->offset;
	uint64_t strsize = strsec->size;
	uint64_t count = sec->size / entsize;

	/* A NUL at the end makes every name that starts inside terminated. */
	if (strsize == 0 || strtab[strsize - 1] != '\0')
		return cause_set(cause, -EINVAL,
				 "cannot read symbols of '%.*s': string table '%.*s' does not end with a NUL",
				 MSG_CAP, ef->path, MSG_CAP, strsec->name);

	for (uint64_t i = 1; i < count; i++) {
		struct esym y;
		read_sym(ef, sec->offset + i * entsize, &y);
		unsigned type = ELF64_ST_TYPE(y.info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (y.shndx == SHN_UNDEF || y.name == 0)
			continue;
		if (y.name >= strsize)
			return cause_set(cause, -EINVAL,
					 "cannot read symbols of '%.*s': symbol %llu in '%.*s' has a name outside its string table",
					 MSG_CAP, ef->path, (unsigned long long)i,
					 MSG_CAP, sec->name);
		const char *name = strtab + y.name;
		if (!*name)
			continue;

		struct cand c = { .addr = y.value, .size = y.size,
				  .limit = UINT64_MAX, .name = name };
		/* Thumb functions carry their mode in bit 0 of the address. */
		if (ef->info.machine == EM_ARM)
			c.addr &= ~(uint64_t)1;
		if (y.shndx < ef->nsections && y.shndx < SHN_LORESERVE) {
			const struct elf_section *s = &ef->sections[y.shndx];
			if ((s->flags & SHF_ALLOC) && s->addr <= c.addr &&
			    c.addr - s->addr < s->size)
				c.limit = s->addr + s->size;
		}
		c.rank = sym_rank(&y, name);
		if (cand_push(cv, &c) < 0)
			return cause_set(cause, -ENOMEM,
					 "cannot read symbols of '%.*s': out of memory",
					 MSG_CAP, ef->path);
	}
	return 0;
}

static int add_file_symbols(const struct elf_file *ef, struct cand_vec *cv,
			    char **cause)
{
	int err = 0;

	for (size_t i = 0; i < ef->nsections && !err; i++)
		if (ef->sections[i].type == SHT_SYMTAB ||
		    ef->sections[i].type == SHT_DYNSYM)
			err = add_symbols(ef, &ef->sections[i], cv, cause);
	return err;
}

int elf_symtab_load(const struct elf_file *ef, struct elf_symtab **out,
		    char **cause)
{
	return elf_symtab_load_with_debug(ef, NULL, out, cause);
}

int elf_symtab_load_with_debug(const struct elf_file *ef,
			       const struct elf_file *debug,
			       struct elf_symtab **out, char **cause)
{
	struct cand_vec cv = { 0 };
	char eb[128];
	int err;

	*out = NULL;
	if (cause)
		*cause = NULL;
	err = add_file_symbols(ef, &cv, cause);
	if (!err && debug)
		err = add_file_symbols(debug, &cv, cause);
	if (!err) {
		err = symtab_build(&cv, out);
		if (err)
			cause_set(cause, err, "cannot read symbols of '%.*s': %s",
				  MSG_CAP, ef->path, err_text(-err, eb, sizeof(eb)));
	}
	free(cv.v);
	return err;
}

/* ---- perf maps --------------------------------------------------------- */

/* Parse a hex number with an optional 0x; advances *p. false if none or
 * if it does not fit 64 bits. */
static bool parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
		digits++;
	}
	if (!digits)
		return false;
	*p = s;
	*out = v;
	return true;
}

/* One line, [s, end) without its newline, NUL-terminated in place at end.
 * 1 and *c filled for a symbol, 0 for junk. */
static int parse_map_line(char *s, char *end, struct cand *c)
{
	const char *p = s;
	uint64_t start, size;

	if (memchr(s, '\0', (size_t)(end - s)))
		return 0;
	if (!parse_hex(&p, end, &start) || p == end || (*p != ' ' && *p != '\t'))
		return 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!parse_hex(&p, end, &size) || p == end || (*p != ' ' && *p != '\t'))
		return 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (p == end)
		return 0;
	if (size && size - 1 > UINT64_MAX - start)
		return 0;	/* the last byte must fit below 2^64 */
	*end = '\0';
	*c = (struct cand){ .addr = start, .size = size, .limit = UINT64_MAX,
			    .name = p };
	return 1;
}

int elf_symtab_load_perf_map_file(FILE *fp, struct elf_symtab **out,
				  size_t *junk, char **cause)
{
	struct cand_vec cv = { 0 };
	char *buf = NULL;
	size_t len = 0, cap = 0, bad = 0;
	char eb[128];
	int err = 0;

	*out = NULL;
	if (cause)
		*cause = NULL;
	if (junk)
		*junk = 0;
	/* Read it whole: names point into the buffer until they are copied. */
	for (;;) {
		if (cap - len < 65536) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nb = realloc(buf, ncap);
			if (!nb) {
				err = cause_set(cause, -ENOMEM,
						"cannot read perf map: out of memory");
				goto out_free;
			}
			buf = nb;
			cap = ncap;
		}
		size_t got = fread(buf + len, 1, cap - len - 1, fp);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(fp)) {
		err = cause_set(cause, -EIO, "cannot read perf map: read error");
		goto out_free;
	}
	buf[len] = '\0';

	uint64_t seq = 0;
	for (char *line = buf; line < buf + len;) {
		char *nl = memchr(line, '\n', (size_t)(buf + len - line));
		char *end = nl ? nl : buf + len;
		struct cand c;
		if (parse_map_line(line, end, &c)) {
			/* Later lines win at one address. */
			c.rank = UINT64_MAX - seq++;
			if (cand_push(&cv, &c) < 0) {
				err = cause_set(cause, -ENOMEM,
						"cannot read perf map: out of memory");
				goto out_free;
			}
		} else {
			bad++;
		}
		line = end + 1;
	}
	err = symtab_build(&cv, out);
	if (err)
		cause_set(cause, err, "cannot read perf map: %s",
			  err_text(-err, eb, sizeof(eb)));
	if (junk)
		*junk = bad;
out_free:
	free(cv.v);
	free(buf);
	return err;
}

int elf_symtab_load_perf_map(const char *path, struct elf_symtab **out,
			     size_t *junk, char **cause)
{
	FILE *fp = fopen(path, "re");
	char eb[128];
	int err;

	*out = NULL;
	if (cause)
		*cause = NULL;
	if (!fp) {
		err = -errno;
		return cause_set(cause, err, "cannot open '%.*s': %s", MSG_CAP,
				 path, err_text(-err, eb, sizeof(eb)));
	}
	err = elf_symtab_load_perf_map_file(fp, out, junk, NULL);
	fclose(fp);
	if (err)
		return cause_set(cause, err, "cannot read perf map '%.*s': %s",
				 MSG_CAP, path, err_text(-err, eb, sizeof(eb)));
	return 0;
}

void elf_symtab_free(struct elf_symtab *st)
{
	if (!st)
		return;
	free(st->syms);
	free(st->cover);
	free(st->names);
	free(st);
}

size_t elf_symtab_count(const struct elf_symtab *st)
{
	return st->n;
}

const struct elf_sym *elf_symtab_at(const struct elf_symtab *st, size_t i)
{
	return &st->syms[i];
}

const struct elf_sym *elf_symtab_lookup(const struct elf_symtab *st,
					uint64_t addr, uint64_t *offset)
{
	size_t lo = 0, hi = st->n;

	/* The last symbol starting at or before addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	uint32_t i = (uint32_t)(lo - 1);
	while (i != NO_COVER && !covers(&st->syms[i], addr))
		i = st->cover[i];
	if (i == NO_COVER)
		return NULL;
	if (offset)
		*offset = addr - st->syms[i].addr;
	return &st->syms[i];
}
