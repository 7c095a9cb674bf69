/*
 * sleep_report: prof's side of the sleep interposer. It creates the memfd
 * the interposer reports into, reads it back after the workload exits,
 * turns the overshoot histograms into percentiles, and tells whether an
 * executable can take LD_PRELOAD at all (a static one cannot).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/sleep.h"
#include "common/cause.h"
#include "common/errtext.h"
#include "common/order.h"

/* ------------------------------------------------------------ memfd */

int sleep_shm_create(char **cause)
{
	int fd = memfd_create("prof-sleep", MFD_ALLOW_SEALING);
	int err;
	if (fd < 0) {
		err = -errno;
		cause_set(cause, 0, "cannot create the sleep report memfd: %s",
			  ERR_TEXT(errno));
		return err;
	}
	if (ftruncate(fd, sizeof(struct sleep_shm)) < 0) {
		err = -errno;
		cause_set(cause, 0, "cannot size the sleep report memfd to %zu "
			  "bytes: %s", sizeof(struct sleep_shm),
			  ERR_TEXT(errno));
		goto out_close;
	}
	/* a workload that truncated it would make every reader fault */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
	    < 0) {
		err = -errno;
		cause_set(cause, 0, "cannot seal the sleep report memfd: %s",
			  ERR_TEXT(errno));
		goto out_close;
	}
	struct sleep_shm *shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
				     MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED) {
		err = -errno;
		cause_set(cause, 0, "cannot map the sleep report memfd: %s",
			  ERR_TEXT(errno));
		goto out_close;
	}
	shm->magic = SLEEP_SHM_MAGIC;
	shm->version = SLEEP_SHM_VERSION;
	shm->size = (uint32_t)sizeof(struct sleep_shm);
	shm->nslots = SLEEP_SHM_SLOTS;
	shm->mode = -1;
	shm->margin_ns = -1;
	munmap(shm, sizeof(*shm));
	return fd;
out_close:
	close(fd);
	return err;
}

/* ------------------------------------------------------------ stats */

/*
 * Counts added up to at most UINT64_MAX. The histogram lives in memory the
 * workload can write, so its counts may be anything; sums that stop at the
 * top keep the percentiles in order however large they are.
 */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	uint64_t s;
	return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

/*
 * The nearest-rank bucket's midpoint, clamped to the exact maximum (the
 * overflow bucket's value is the maximum itself). n is the histogram's
 * add_sat() total.
 */
static uint64_t hist_rank_value(const uint64_t *hist, uint64_t n, unsigned q,
				uint64_t max_ns)
{
	uint64_t rank = nearest_rank(n, q), cum = 0;
	for (unsigned b = 0; b < SLEEP_OVER_BUCKETS; b++) {
		cum = add_sat(cum, hist[b]);
		if (cum < rank)
			continue;
		if (b == SLEEP_OVER_BUCKETS - 1)
			return max_ns;
		uint64_t lo, hi;
		sleep_hist_bounds(b, &lo, &hi);
		uint64_t mid = lo + (hi - lo - 1) / 2;
		return mid < max_ns ? mid : max_ns;
	}
	return max_ns;
}

void sleep_hist_percentiles(const uint64_t *hist, uint64_t max_ns,
			    uint64_t sum_ns, struct sleep_hist_stats *out)
{
	uint64_t n = 0;
	memset(out, 0, sizeof(*out));
	for (unsigned b = 0; b < SLEEP_OVER_BUCKETS; b++)
		n = add_sat(n, hist[b]);
	if (!n)
		return;
	out->n = n;
	out->p50_ns = hist_rank_value(hist, n, 500, max_ns);
	out->p90_ns = hist_rank_value(hist, n, 900, max_ns);
	out->p99_ns = hist_rank_value(hist, n, 990, max_ns);
	out->p999_ns = hist_rank_value(hist, n, 999, max_ns);
	out->max_ns = max_ns;
	out->mean_ns = (double)sum_ns / (double)n;
}

/* ------------------------------------------------------------ reading */

static void row_from_slot(struct sleep_thread_report *r,
			  const struct sleep_shm_slot *s)
{
	memset(r, 0, sizeof(*r));
	r->tid = s->tid;
	r->pid = s->pid;
	memcpy(r->name, s->name, SLEEP_NAME_LEN);
	r->name[SLEEP_NAME_LEN - 1] = '\0';
	r->served = s->served;
	r->passed = s->passed;
	r->eintr = s->eintr;
	r->early = s->early;
	r->throttled = s->throttled;
	r->fallback = s->fallback;
	r->fallback_errno = s->fallback_errno;
	r->fallback_over_sum_ns = s->fallback_over_sum_ns;
	r->fallback_over_max_ns = s->fallback_over_max_ns;
	r->over_sum_ns = s->over_sum_ns;
	r->over_max_ns = s->over_max_ns;
	memcpy(r->req_hist, s->req_hist, sizeof(r->req_hist));
	memcpy(r->over_hist, s->over_hist, sizeof(r->over_hist));
	r->cv_served = s->cv_served;
	r->cv_passed = s->cv_passed;
	r->cv_woken = s->cv_woken;
	r->cv_timedout = s->cv_timedout;
	r->cv_early = s->cv_early;
	r->cv_over_sum_ns = s->cv_over_sum_ns;
	r->cv_over_max_ns = s->cv_over_max_ns;
	memcpy(r->cv_over_hist, s->cv_over_hist, sizeof(r->cv_over_hist));
}

static void row_merge(struct sleep_thread_report *into,
		      const struct sleep_thread_report *r)
{
	into->served += r->served;
	into->passed += r->passed;
	into->eintr += r->eintr;
	into->early += r->early;
	into->throttled += r->throttled;
	into->fallback += r->fallback;
	if (r->fallback_errno)
		into->fallback_errno = r->fallback_errno;
	into->fallback_over_sum_ns += r->fallback_over_sum_ns;
	if (r->fallback_over_max_ns > into->fallback_over_max_ns)
		into->fallback_over_max_ns = r->fallback_over_max_ns;
	into->over_sum_ns += r->over_sum_ns;
	if (r->over_max_ns > into->over_max_ns)
		into->over_max_ns = r->over_max_ns;
	for (unsigned b = 0; b < SLEEP_REQ_BUCKETS; b++)
		into->req_hist[b] += r->req_hist[b];
	for (unsigned b = 0; b < SLEEP_OVER_BUCKETS; b++)
		into->over_hist[b] += r->over_hist[b];
	into->cv_served += r->cv_served;
	into->cv_passed += r->cv_passed;
	into->cv_woken += r->cv_woken;
	into->cv_timedout += r->cv_timedout;
	into->cv_early += r->cv_early;
	into->cv_over_sum_ns += r->cv_over_sum_ns;
	if (r->cv_over_max_ns > into->cv_over_max_ns)
		into->cv_over_max_ns = r->cv_over_max_ns;
	for (unsigned b = 0; b < SLEEP_OVER_BUCKETS; b++)
		into->cv_over_hist[b] += r->cv_over_hist[b];
}

static void row_percentiles(struct sleep_thread_report *r)
{
	sleep_hist_percentiles(r->over_hist, r->over_max_ns, r->over_sum_ns,
			       &r->over);
	sleep_hist_percentiles(r->cv_over_hist, r->cv_over_max_ns,
			       r->cv_over_sum_ns, &r->cv_over);
}

static int cmp_tid(const void *a, const void *b)
{
	const struct sleep_thread_report *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

int sleep_report_read(int fd, struct sleep_report *out, char **cause)
{
	struct stat st;
	const struct sleep_shm *shm;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (fstat(fd, &st) < 0) {
		err = -errno;
		cause_set(cause, 0, "cannot read the sleep report (fd %d): %s",
			  fd, ERR_TEXT(errno));
		return err;
	}
	if ((size_t)st.st_size < sizeof(struct sleep_shm)) {
		cause_set(cause, 0, "the sleep report is %lld bytes, not the %zu "
			  "expected", (long long)st.st_size,
			  sizeof(struct sleep_shm));
		return -EINVAL;
	}
	shm = mmap(NULL, sizeof(*shm), PROT_READ, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED) {
		err = -errno;
		cause_set(cause, 0, "cannot map the sleep report: %s",
			  ERR_TEXT(errno));
		return err;
	}
	if (shm->magic != SLEEP_SHM_MAGIC || shm->version != SLEEP_SHM_VERSION
	    || shm->size != sizeof(struct sleep_shm)
	    || shm->nslots != SLEEP_SHM_SLOTS) {
		cause_set(cause, 0, "the sleep report memfd does not hold a "
			  "version %u report (magic %#llx, version %u)",
			  SLEEP_SHM_VERSION, (unsigned long long)shm->magic,
			  shm->version);
		err = -EINVAL;
		goto out_unmap;
	}
	out->processes = __atomic_load_n(&shm->processes, __ATOMIC_ACQUIRE);
	out->config_set = __atomic_load_n(&shm->config_set, __ATOMIC_ACQUIRE)
			  != 0;
	if (out->config_set) {
		out->config.mode.mode = (enum sleep_mode)shm->mode;
		out->config.mode.margin_ns = shm->margin_ns;
		out->config.threshold_ns = shm->threshold_ns;
		out->config.max_spinners = shm->max_spinners;
		out->config.spinners_default = shm->spinners_default != 0;
		out->ncpus = shm->ncpus;
		out->hybrid_calibrated = shm->hybrid_calibrated != 0;
	}
	memcpy(out->error, shm->error, sizeof(out->error));
	out->error[sizeof(out->error) - 1] = '\0';

	uint32_t used = __atomic_load_n(&shm->next_slot, __ATOMIC_ACQUIRE);
	if (used > SLEEP_SHM_SLOTS)
		used = SLEEP_SHM_SLOTS;
	out->threads = calloc((size_t)used + 1, sizeof(*out->threads));
	if (!out->threads) {
		cause_set(cause, 0, "cannot allocate %u sleep report rows: out "
			  "of memory", used + 1);
		err = -ENOMEM;
		goto out_unmap;
	}
	for (uint32_t i = 0; i < used; i++) {
		const struct sleep_shm_slot *s = &shm->slots[i];
		/* a slot claimed but not yet named, or one a dying thread
		 * never filled in, has tid 0: nothing to report */
		if (s->tid <= 0)
			continue;
		row_from_slot(&out->threads[out->nthreads++], s);
	}
	qsort(out->threads, out->nthreads, sizeof(*out->threads), cmp_tid);
	/* merge rows of one tid (a thread that claimed twice) */
	size_t w = 0;
	for (size_t i = 0; i < out->nthreads; i++) {
		if (w && out->threads[w - 1].tid == out->threads[i].tid &&
		    out->threads[w - 1].pid == out->threads[i].pid) {
			row_merge(&out->threads[w - 1], &out->threads[i]);
			continue;
		}
		if (w != i)
			out->threads[w] = out->threads[i];
		w++;
	}
	out->nthreads = w;
	const struct sleep_shm_slot *o = &shm->others;
	if (o->served || o->passed || o->cv_served || o->cv_passed) {
		struct sleep_thread_report *r = &out->threads[out->nthreads++];
		row_from_slot(r, o);
		r->tid = 0;
		snprintf(r->name, sizeof(r->name), "others");
	}
	snprintf(out->total.name, sizeof(out->total.name), "total");
	for (size_t i = 0; i < out->nthreads; i++) {
		struct sleep_thread_report *r = &out->threads[i];
		row_percentiles(r);
		row_merge(&out->total, r);
	}
	row_percentiles(&out->total);
out_unmap:
	munmap((void *)shm, sizeof(*shm));
	if (err)
		sleep_report_release(out);
	return err;
}

void sleep_report_release(struct sleep_report *r)
{
	if (!r)
		return;
	free(r->threads);
	r->threads = NULL;
	r->nthreads = 0;
}

/* ------------------------------------------------------------ ELF */

/* Find an executable on $PATH as execvp does; malloc'd path or NULL. */
static char *path_lookup(const char *name)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t len = end ? (size_t)(end - path) : strlen(path);
		char *cand;
		if (asprintf(&cand, "%.*s%s%s", (int)len, path,
			     len ? "/" : "", name) < 0)
			return NULL;
		if (access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!end)
			break;
		path = end + 1;
	}
	return NULL;
}

static int elf_kind(int fd, const char *path, enum sleep_exe_kind *kind,
		    char **cause)
{
	unsigned char ident[EI_NIDENT];
	uint64_t phoff;
	unsigned phnum, phentsize;
	bool interp = false, dynamic = false;

	if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0) {
		cause_set(cause, 0, "'%s' is not an ELF executable", path);
		return -ENOEXEC;
	}
	bool is64 = ident[EI_CLASS] == ELFCLASS64;
	if ((!is64 && ident[EI_CLASS] != ELFCLASS32) ||
	    ident[EI_DATA] != ELFDATA2LSB) {
		cause_set(cause, 0, "'%s' is an ELF file of a class or byte order "
			  "this prof cannot read", path);
		return -ENOEXEC;
	}
	if (is64) {
		Elf64_Ehdr eh;
		if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
			goto truncated;
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phentsize = eh.e_phentsize;
		if (phnum && phentsize < sizeof(Elf64_Phdr))
			goto truncated;
	} else {
		Elf32_Ehdr eh;
		if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
			goto truncated;
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phentsize = eh.e_phentsize;
		if (phnum && phentsize < sizeof(Elf32_Phdr))
			goto truncated;
	}
	for (unsigned i = 0; i < phnum; i++) {
		uint32_t type;
		off_t at = (off_t)(phoff + (uint64_t)i * phentsize);
		/* p_type is the first word of both classes */
		if (pread(fd, &type, sizeof(type), at) != (ssize_t)sizeof(type))
			goto truncated;
		if (type == PT_INTERP)
			interp = true;
		else if (type == PT_DYNAMIC)
			dynamic = true;
	}
	*kind = interp ? SLEEP_EXE_DYNAMIC :
		dynamic ? SLEEP_EXE_STATIC_PIE : SLEEP_EXE_STATIC;
	return 0;
truncated:
	cause_set(cause, 0, "'%s' is a truncated or malformed ELF file", path);
	return -ENOEXEC;
}

static int exe_kind_at(const char *path, enum sleep_exe_kind *kind,
		       enum sleep_exe_kind *interp_kind, int depth,
		       char **cause)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;
	if (fd < 0) {
		err = -errno;
		cause_set(cause, 0, "cannot open '%s': %s", path, ERR_TEXT(errno));
		return err;
	}
	char head[256];
	ssize_t n = pread(fd, head, sizeof(head) - 1, 0);
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		close(fd);
		*kind = SLEEP_EXE_SCRIPT;
		if (!interp_kind)
			return 0;
		if (depth > 0) {
			/* the kernel runs one level of #! only as a script's
			 * interpreter: a script cannot interpret a script */
			cause_set(cause, 0, "'%s' is a script used as an "
				  "interpreter", path);
			return -ENOEXEC;
		}
		head[n] = '\0';
		char *p = head + 2, *end;
		while (*p == ' ' || *p == '\t')
			p++;
		end = p;
		while (*end && *end != ' ' && *end != '\t' && *end != '\n')
			end++;
		*end = '\0';
		if (!*p) {
			cause_set(cause, 0, "'%s' names no interpreter after #!",
				  path);
			return -ENOEXEC;
		}
		enum sleep_exe_kind ik;
		err = exe_kind_at(p, &ik, NULL, depth + 1, cause);
		if (err)
			return err;
		*interp_kind = ik;
		return 0;
	}
	err = elf_kind(fd, path, kind, cause);
	close(fd);
	return err;
}

int sleep_exe_kind(const char *path, enum sleep_exe_kind *kind,
		   enum sleep_exe_kind *interp_kind, char **cause)
{
	char *found = NULL;
	int err;
	if (!path || !*path) {
		cause_set(cause, 0, "no executable given");
		return -EINVAL;
	}
	if (!strchr(path, '/')) {
		found = path_lookup(path);
		if (!found) {
			cause_set(cause, 0, "cannot find '%.100s' on $PATH", path);
			return -ENOENT;
		}
		path = found;
	}
	err = exe_kind_at(path, kind, interp_kind, 0, cause);
	free(found);
	return err;
}
