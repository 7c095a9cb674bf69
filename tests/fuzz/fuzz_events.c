/*
 * fuzz_events: event names and modifiers as -e takes them
 * ("cycles:u,LLC-load-misses", "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:k"),
 * through libpfm4 (which detects this machine's PMU, or the one
 * LIBPFM_FORCE_PMU names). The input is the -e list; it is also tried as
 * one name and for its unit masks (an unknown name gets suggestions).
 * What resolves has a name and an attr of the right size; what does not
 * comes with a cause.
 */
#include <errno.h>

#include "collectors/events.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 512)
		return 0;	/* an -e list, not a file */
	char *spec = fz_str(data, size);
	struct event_desc *evs = NULL;
	size_t n = 0;
	char *cause = NULL;
	int err = event_list_parse(spec, 0, &evs, &n, &cause);
	if (err) {
		FZ_CHECK(err < 0 && cause && !evs && n == 0);
		free(cause);
	} else {
		FZ_CHECK(!cause && n >= 1);
		for (size_t i = 0; i < n; i++) {
			/* A mission counter of the default set on a
			 * family without a map is kept, refused. */
			FZ_CHECK(evs[i].name && (evs[i].canonical || evs[i].refused));
			/* A refused one never reaches the kernel (and is
			 * all a machine with no PMU libpfm4 knows gets:
			 * an arm64 build under qemu-user). */
			FZ_CHECK(evs[i].refused ||
				 evs[i].attr.size == sizeof(evs[i].attr));
			event_type_name(evs[i].attr.type);
		}
		event_list_free(evs, n);
	}

	/* The whole text as one name, when the list was more than that (an
	 * unknown name costs a pass over every event for suggestions). */
	if (strchr(spec, ',')) {
		struct event_desc one;
		cause = NULL;
		err = event_resolve(spec, EVENT_ALLOW_GENERIC, &one, &cause);
		if (err)
			FZ_CHECK((err == -ENOENT || err == -EINVAL || err == -EIO ||
				  err == -EOPNOTSUPP) && cause);
		else
			FZ_CHECK(!cause && one.name && !strcmp(one.name, spec));
		free(cause);
		event_desc_release(&one);
	}
	bool needs = false;
	free(event_umasks(spec, &needs));
	free(spec);
	return 0;
}
