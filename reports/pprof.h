/*
 * pprof: a profile in pprof's shape (profile.proto, reports/pprof/) as
 * plain C structs, between reports/export.c, which fills one from a
 * stored sampled run, and the encoder libprof-pprof.so (reports/pprof/
 * pprof_write.c), which writes it as pprof reads it: the protocol buffer
 * encoded by libprotobuf-c, gzipped by zlib. The encoder is a library of
 * its own that prof loads (dlopen) only for `prof report --format pprof`,
 * so no other verb pays for loading libprotobuf-c and zlib at start-up.
 *
 * References between the arrays are an index + 1, 0 meaning none, as
 * pprof's ids are. Everything is borrowed for the one call; the encoder
 * keeps nothing and has no shared state.
 */
#ifndef REPORTS_PPROF_H
#define REPORTS_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Raised when the structs below change: the encoder refuses a profile
 * of another version (a libprof-pprof.so from another build). */
#define PPROF_ABI 1
/* The encoder's one exported function, of type pprof_write_fn. */
#define PPROF_WRITE_SYMBOL "prof_pprof_write"
/* Its file, beside prof or in its package library directory. */
#define PPROF_LIB "libprof-pprof.so"

struct pprof_value_type {
	const char *type;	/* e.g. "cpu-clock", "samples" */
	const char *unit;	/* e.g. "nanoseconds", "count" */
};

struct pprof_mapping {
	const char *file;
	const char *build_id;	/* hex; NULL: unknown */
};

struct pprof_function {
	const char *name;	/* as people read it */
	const char *system_name;	/* as the linker knows it; NULL: name */
	const char *file;	/* source file; NULL: unknown */
};

struct pprof_location {
	uint32_t mapping;	/* index + 1; 0: in no mapping */
	uint32_t function;	/* index + 1 */
	int64_t line;		/* 0: unknown */
};

struct pprof_label {
	const char *key;
	const char *str;	/* NULL: a number label, num */
	int64_t num;
};

struct pprof_sample {
	const uint32_t *locations;	/* index + 1 each, the leaf first */
	size_t nlocations;
	const int64_t *values;		/* one per value type */
	const struct pprof_label *labels;
	size_t nlabels;
};

struct pprof_profile {
	int abi;			/* PPROF_ABI */
	const struct pprof_value_type *value_types;
	size_t nvalue_types;
	size_t default_type;		/* index into value_types */
	const struct pprof_mapping *mappings;
	size_t nmappings;
	const struct pprof_function *functions;
	size_t nfunctions;
	const struct pprof_location *locations;
	size_t nlocations;
	const struct pprof_sample *samples;
	size_t nsamples;
	int64_t time_nanos;		/* the run's start, ns since the epoch; 0:
					   unknown */
	int64_t duration_nanos;
	struct pprof_value_type period_type;	/* type NULL: none */
	int64_t period;
	const char *const *comments;
	size_t ncomments;
};

/*
 * Write p to fp as a gzipped profile.proto message. 0, or a negative
 * errno with *cause (-EINVAL: another ABI; -ENOMEM; -EIO: fp refused
 * the bytes).
 */
typedef int pprof_write_fn(const struct pprof_profile *p, FILE *fp, char **cause);

#endif
