/*
 * dynlib: a shared library opened at its first use; see dynlib.h.
 */
#include "common/dynlib.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static char *reason(const struct dynlib *lib, const char *what)
{
	char *s = NULL;
	if (asprintf(&s, "cannot load %s: %s", lib->soname,
		     what && *what ? what : "no reason given") < 0)
		return NULL;
	return s;
}

static void load(struct dynlib *lib)
{
	/* RTLD_NODELETE: the functions stay valid for the life of the
	 * process, whatever else closes the handle. */
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!h) {
		lib->why = reason(lib, dlerror());
		lib->state = -1;
		return;
	}
	for (size_t i = 0; i < lib->nsyms; i++) {
		dlerror();
		void *p = dlsym(h, lib->syms[i].name);
		if (!p) {
			char what[160];
			snprintf(what, sizeof(what), "it has no %s", lib->syms[i].name);
			lib->why = reason(lib, what);
			lib->state = -1;
			for (size_t j = 0; j < i; j++)
				*lib->syms[j].slot = NULL;
			return;
		}
		*lib->syms[i].slot = p;
	}
	lib->state = 1;
}

int dynlib_load(struct dynlib *lib, char **cause)
{
	pthread_mutex_lock(&lock);
	if (!lib->state)
		load(lib);
	int ok = lib->state > 0;
	if (!ok && cause)
		*cause = lib->why ? strdup(lib->why) : NULL;
	pthread_mutex_unlock(&lock);
	return ok ? 0 : -ELIBACC;
}
