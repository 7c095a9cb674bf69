/*
 * fuzz_cpulist: the two sysfs value forms prof parses, a cpu list
 * ("0-5,12-17") and a cache size ("32768K"), and --pin cpus:LIST shares
 * the first. The input is tried as both. A list that parses must read
 * back the same from its compact form; a refusal comes with a cause and
 * leaves the mask empty.
 */
#include <errno.h>

#include "collectors/topology.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_str(data, size);
	struct cpumask m, again;
	char *cause = NULL;
	int err = cpumask_parse(&m, s, &cause);
	if (err) {
		FZ_CHECK((err == -EINVAL || err == -ERANGE) && cause);
		FZ_CHECK(cpumask_empty(&m));
		free(cause);
	} else {
		FZ_CHECK(!cause);
		char *text = cpumask_format(&m);
		FZ_CHECK(text);
		FZ_CHECK(cpumask_parse(&again, text, NULL) == 0);
		FZ_CHECK(cpumask_equal(&m, &again));
		size_t n = 0;
		for (int cpu = cpumask_first(&m); cpu >= 0; cpu = cpumask_next(&m, cpu))
			n++;
		FZ_CHECK(n == cpumask_count(&m));
		free(text);
	}

	uint64_t bytes = 0;
	cause = NULL;
	err = cache_size_parse(s, &bytes, &cause);
	if (err) {
		FZ_CHECK((err == -EINVAL || err == -ERANGE) && cause);
		free(cause);
	} else {
		char buf[64];
		FZ_CHECK(!cause);
		FZ_CHECK(cache_size_format(bytes, buf, sizeof(buf)) > 0);
	}
	free(s);
	return 0;
}
