/*
 * sections: the executable ELF sections of a sampled run's modules, read
 * from the files as they are now, for reports that group code without a
 * symbol by section (prof report --unknown section).
 *
 * A module is read only when its file is there and, where the run stored
 * a build id, has that build id still; anything else (a rebuilt file, a
 * kernel or anonymous module, stripped section headers) gets no sections,
 * so its code stays by address. Owned by the caller; not thread-safe.
 */
#ifndef PROF_SECTIONS_H
#define PROF_SECTIONS_H

#include <stddef.h>

#include "db/samples.h"
#include "reports/profile.h"

struct run_sections {
	size_t n;			/* p->nmodules */
	struct profile_sections *mods;	/* per module (index: id - 1) */
	struct profile_section *all;	/* what mods point into */
	char *names;			/* the section names, NUL-separated */
	size_t changed;			/* modules whose build id changed */
};

/*
 * Read the sections of p's modules. 0, or -ENOMEM (then out is empty but
 * may be released). A file that cannot be read is not an error.
 */
int run_sections_load(const struct db_profile *p, struct run_sections *out);
void run_sections_release(struct run_sections *rs);

#endif
