/*
 * fuzz_callgrind: a callgrind profile, as prof run/ab/record --simulate
 * read valgrind's output (collectors/simcache): the totals reader and
 * the per-function reader (name compression, calls= lines). A refusal
 * comes with a cause and hands nothing out; what is accepted has every
 * function named, and a profile both readers accept has functions whose
 * self costs are counted from the same events.
 */
#include <sys/mman.h>

#include "collectors/simcache.h"
#include <errno.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("callgrind", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct sim_thread t;
	char *cause = NULL;
	int rc = sim_profile_read(path, &t, &cause);
	FZ_CHECK(rc <= 0);
	FZ_CHECK(!rc || rc == -ENODATA || cause);
	free(cause);
	cause = NULL;
	struct sim_fn *f = NULL;
	size_t n = 0;
	int frc = sim_profile_functions(path, &f, &n, &cause);
	if (frc) {
		FZ_CHECK(frc < 0 && cause && !f && !n);
		free(cause);
	} else {
		FZ_CHECK(!cause);
		for (size_t i = 0; i < n; i++)
			FZ_CHECK(f[i].object && f[i].name);
		/* The totals reader accepts what the function reader does. */
		FZ_CHECK(rc == 0);
	}
	sim_fns_free(f, n);
	close(fd);
	return 0;
}
