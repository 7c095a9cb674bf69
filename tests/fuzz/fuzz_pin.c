/*
 * fuzz_pin: a --pin spec (none, largest-llc, llc:N, l2:N, node:N,
 * cpus:LIST) and the PROF_CACHE_AFFINITY value, as a user or a harness
 * writes them. The input is the spec; it is resolved against every
 * fixture machine under tests/fixtures/sysfs (read once) and against no
 * topology at all, and also tried as the environment value. A pin that
 * resolves lands on online CPUs of that machine; a refusal says why.
 */
#include <dirent.h>
#include <errno.h>

#include "collectors/topology.h"
#include "fuzz.h"
#include "prof/run/run.h"

#define MAX_MACHINES 16

static struct topo machines[MAX_MACHINES];
static size_t nmachines;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	DIR *d = opendir(FIXTURES_DIR "/sysfs");
	struct dirent *e;
	while (d && (e = readdir(d)) && nmachines < MAX_MACHINES) {
		char root[4096];
		if (e->d_name[0] == '.')
			continue;
		snprintf(root, sizeof(root), "%s/sysfs/%s", FIXTURES_DIR, e->d_name);
		if (topo_read(&machines[nmachines], root, NULL) == 0)
			nmachines++;
	}
	if (d)
		closedir(d);
	if (nmachines == 0) {
		fprintf(stderr, "fuzz: no fixture machine under %s/sysfs\n",
			FIXTURES_DIR);
		abort();
	}
	return 0;
}

static void resolve(const struct topo *t, const char *mode)
{
	struct topo_pin pin;
	char *cause = NULL;
	int err = topo_pin_resolve(t, mode, &pin, &cause);
	if (err) {
		FZ_CHECK(err < 0 && cause);
		FZ_CHECK(pin.desc == NULL && cpumask_empty(&pin.cpus));
		free(cause);
		return;
	}
	FZ_CHECK(!cause && pin.desc);
	if (pin.mode != TOPO_PIN_NONE) {
		FZ_CHECK(t && !cpumask_empty(&pin.cpus));
		struct cpumask off;
		cpumask_andnot(&off, &pin.cpus, &t->online);
		FZ_CHECK(cpumask_empty(&off));
	}
	topo_pin_release(&pin);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = fz_str(data, size);
	for (size_t i = 0; i < nmachines; i++)
		resolve(&machines[i], spec);
	resolve(NULL, spec);

	char *warning = NULL, *cause = NULL;
	const char *mode = pin_choose_mode(NULL, AFFINITY_UNSET, spec, &warning, &cause);
	FZ_CHECK(mode && (!strcmp(mode, "none") || !strcmp(mode, "largest-llc")));
	free(warning);
	FZ_CHECK(pin_choose_mode(spec, AFFINITY_UNSET, "1", NULL, NULL) == spec);
	/* A flag that asks for another mode than the spec is refused. */
	mode = pin_choose_mode(spec, AFFINITY_OFF, NULL, NULL, &cause);
	FZ_CHECK(mode || cause);
	free(cause);
	free(spec);
	return 0;
}
