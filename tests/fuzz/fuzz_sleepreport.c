/*
 * fuzz_sleepreport: the sleep interposer's report, a memfd that every
 * process of the workload maps writable, so a workload can scribble
 * anything into it before prof reads it back. The input is a list of
 * patches over a freshly created report (sleep_shm_create), each a
 * little-endian u32 offset, a u16 length and that many bytes; the patched
 * report then goes through sleep_plan_collect(), as after `prof run
 * --sleep-mode`. Rows must come back sorted by tid, their names
 * terminated, their percentiles ordered.
 */
#include <errno.h>
#include <sys/mman.h>

#include "collectors/sleep.h"
#include "db/sleep.h"
#include "fuzz.h"
#include "prof/run/run.h"

static int report_fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char *cause = NULL;
	report_fd = sleep_shm_create(&cause);
	if (report_fd < 0) {
		fprintf(stderr, "fuzz: %s\n", cause ? cause : "no memfd");
		abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const size_t n = sizeof(struct sleep_shm);
	uint8_t *shm = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED,
			    report_fd, 0);
	FZ_CHECK(shm != MAP_FAILED);
	/* A fresh report, as prof leaves it for the workload. */
	memset(shm, 0, n);
	struct sleep_shm *h = (struct sleep_shm *)shm;
	h->magic = SLEEP_SHM_MAGIC;
	h->version = SLEEP_SHM_VERSION;
	h->size = (uint32_t)n;
	h->nslots = SLEEP_SHM_SLOTS;
	h->mode = -1;
	h->margin_ns = -1;
	while (size >= 6) {
		uint32_t off;
		uint16_t len;
		memcpy(&off, data, 4);
		memcpy(&len, data + 4, 2);
		data += 6;
		size -= 6;
		if (len > size)
			len = (uint16_t)size;
		off %= (uint32_t)n;
		memcpy(shm + off, data, len <= n - off ? len : n - off);
		data += len;
		size -= len;
	}
	munmap(shm, n);

	struct sleep_plan sp;
	FZ_CHECK(sleep_plan_parse(&sp, "timerfd", NULL) == 0);
	sp.preloadable = true;
	sp.fd = dup(report_fd);
	FZ_CHECK(sp.fd >= 0);
	fz_quiet_begin();
	struct db_sleep_usage *u = sleep_plan_collect(&sp);
	fz_quiet_end();
	FZ_CHECK(u && u->mode && u->status);
	for (size_t i = 0; i < u->nthreads; i++) {
		const struct db_sleep_thread *t = &u->threads[i];
		FZ_CHECK(!t->name || strlen(t->name) < SLEEP_NAME_LEN);
		FZ_CHECK(t->p50_ns <= t->p90_ns && t->p90_ns <= t->p99_ns &&
			 t->p99_ns <= t->p999_ns && t->p999_ns <= t->max_ns);
		if (i && t->tid)
			FZ_CHECK(t->tid >= u->threads[i - 1].tid);
	}
	db_sleep_usage_free(u);
	sleep_plan_release(&sp);
	return 0;
}
