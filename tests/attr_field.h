/*
 * attr_field: one field of a perf_event_attr by the name the attr
 * goldens use (tests/fixtures/attr/), for the tests that check attrs
 * against them (test_events, test_pmuplan). *known false: no such key.
 */
#ifndef TESTS_ATTR_FIELD_H
#define TESTS_ATTR_FIELD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t attr_field(const struct perf_event_attr *a,
				  const char *key, bool *known)
{
	*known = true;
	if (!strcmp(key, "type")) return a->type;
	if (!strcmp(key, "config")) return a->config;
	if (!strcmp(key, "config1")) return a->config1;
	if (!strcmp(key, "config2")) return a->config2;
	if (!strcmp(key, "exclude_user")) return a->exclude_user;
	if (!strcmp(key, "exclude_kernel")) return a->exclude_kernel;
	if (!strcmp(key, "exclude_hv")) return a->exclude_hv;
	if (!strcmp(key, "exclude_guest")) return a->exclude_guest;
	*known = false;
	return 0;
}

#endif
