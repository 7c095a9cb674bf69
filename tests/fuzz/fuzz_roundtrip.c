/*
 * fuzz_roundtrip: whatever a workload names itself goes in, and comes
 * out as valid output. The input is fields separated by NUL bytes: the
 * command and two arguments, a tag, three thread names, two module paths,
 * three symbols, a source file, a function and its inlined callees. A
 * field that starts with 0x01 and two bytes n is its rest repeated n * 64
 * times (to 4 MiB), so the lengths past every limit are reached from short
 * inputs. They are stored as prof stores a sampled run (db_sample_* and
 * db_sample_store_run, which cut what is past the limits and note it),
 * and then:
 *   - the run reads back: report, runs and html exit 0, whatever was in it;
 *   - JSON is one JSON value (wellformed.h, RFC 8259: what json.loads
 *     reads); the SVG and the HTML page are well-formed XML;
 *   - table, CSV, Markdown and folded text is valid UTF-8 with no escape
 *     sequence in it; folded stacks are one "frames count" a line, and
 *     their counts add up to the samples stored.
 */
#include <errno.h>
#include <fcntl.h>

#include "db/db.h"
#include "db/runs.h"
#include "db/samples.h"
#include "db/tags.h"
#include "fuzz.h"
#include "prof/cli.h"
#include "prof/verb.h"
#include "wellformed.h"

enum {
	F_COMMAND, F_ARG1, F_ARG2, F_TAG, F_THREAD0, F_THREAD1, F_THREAD2,
	F_MODULE0, F_MODULE1, F_SYM0, F_SYM1, F_SYM2, F_SRC_FILE, F_FUNCTION,
	F_INLINES, F_N
};

#define NSAMPLES 7

static char rt_db[4200], out_path[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(rt_db, sizeof(rt_db), "%s/rt.db", fz_scratch());
	snprintf(out_path, sizeof(out_path), "%s/rt.out", fz_scratch());
	return 0;
}

/* The fields of the input, each malloc'd (a missing one is ""). */
static void split(const uint8_t *data, size_t size, char *f[F_N])
{
	size_t o = 0;
	for (int i = 0; i < F_N; i++) {
		size_t len = 0;
		while (o + len < size && data[o + len])
			len++;
		const uint8_t *s = data + o;
		size_t times = 1;
		if (len >= 3 && s[0] == 0x01) {
			times = ((size_t)s[1] << 8 | s[2]) * 64;
			s += 3;
			len -= 3;
			if (!len || !times || len * times > (4u << 20))
				times = 1;
		}
		f[i] = malloc(len * times + 1);
		FZ_CHECK(f[i]);
		for (size_t t = 0; t < times; t++)
			memcpy(f[i] + t * len, s, len);
		f[i][len * times] = '\0';
		o += (size_t)(s - (data + o)) + len;
		if (o < size)
			o++;	/* the NUL */
	}
}

static struct db_sample_event events[1] = {
	{ .name = "cpu-clock", .attr_type = 1, .attr_config = 0, .freq = 1000,
	  .call_graph = "fp", .stack_bytes = 0, .samples = NSAMPLES,
	  .weight = NSAMPLES * 1000 },
};

static void must(int rc, char *cause)
{
	if (rc) {
		fprintf(stderr, "fuzz: storing failed: %s\n", cause ? cause : "?");
		abort();
	}
}

static void store(char *f[F_N])
{
	struct db *db = NULL;
	char *cause = NULL;
	must(db_open(&db, rt_db, &cause), cause);
	struct db_sample_writer *w;
	must(db_sample_writer_new(db, &w, &cause), cause);
	must(db_sample_put_module(w, 1, f[F_MODULE0], NULL, &cause), cause);
	must(db_sample_put_module(w, 2, f[F_MODULE1], "00ff", &cause), cause);
	for (uint32_t i = 0; i < 3; i++) {
		must(db_sample_put_symbol(w, i + 1, i ? 2 : 1, f[F_SYM0 + i], &cause), cause);
		must(db_sample_put_frame(w, i + 1, i + 1, 0x10 * i, &cause), cause);
		must(db_sample_put_stack(w, i + 1, i, i + 1, &cause), cause);
	}
	struct db_frame_src src = { f[F_SRC_FILE], 42, f[F_FUNCTION],
				    *f[F_INLINES] ? f[F_INLINES] : NULL };
	must(db_sample_put_frame_src(w, 3, &src, &cause), cause);
	for (uint64_t i = 0; i < NSAMPLES; i++) {
		struct db_sample s = { 100, (int32_t)(100 + i % 3), 1, 10 + i, 0, 1000,
				       (uint32_t)(1 + i % 3) };
		must(db_sample_put(w, &s, &cause), cause);
	}

	struct db_run r;
	memset(&r, 0, sizeof(r));
	r.kind = strdup("record");
	r.started = strdup("2026-12-02T18:00:00Z");
	r.argc = 3;
	r.argv = calloc(4, sizeof(char *));
	FZ_CHECK(r.argv);
	for (int i = 0; i < 3; i++)
		r.argv[i] = strdup(f[F_COMMAND + i]);
	FZ_CHECK(asprintf(&r.command, "%s %s %s", f[F_COMMAND], f[F_ARG1], f[F_ARG2]) > 0);
	r.host.hostname = strdup("fuzz");
	r.host.kernel = strdup("6.18");
	r.host.cpu_model = strdup("cpu");
	r.host.online_cpus = 2;
	if (*f[F_TAG]) {
		r.nsettings = 1;
		r.settings = calloc(1, sizeof(*r.settings));
		FZ_CHECK(r.settings);
		r.settings[0].key = strdup(DB_RUN_TAG_KEY);
		r.settings[0].value = strdup(f[F_TAG]);
	}
	r.nevents = 1;
	r.events = calloc(1, sizeof(*r.events));
	FZ_CHECK(r.events);
	r.events[0].name = strdup("cpu-clock");
	r.events[0].supported = true;
	r.nthreads = 3;
	r.threads = calloc(3, sizeof(*r.threads));
	FZ_CHECK(r.threads);
	for (int i = 0; i < 3; i++) {
		r.threads[i].tid = 100 + i;
		r.threads[i].pid = 100;
		r.threads[i].name = strdup(f[F_THREAD0 + i]);
		r.threads[i].is_main = i == 0;
		r.threads[i].counts = calloc(1, sizeof(struct db_count));
		FZ_CHECK(r.threads[i].counts);
		r.threads[i].counts[0].present = true;
		r.threads[i].counts[0].value = 1000000 * (uint64_t)(i + 1);
		r.threads[i].counts[0].enabled = r.threads[i].counts[0].running = 1000;
	}
	must(db_sample_store_run(w, &r, events, 1, &cause), cause);
	db_sample_writer_free(w);
	db_run_release(&r);
	db_close(db);
}

/* prof WORDS... -o out_path --db rt_db in-process: its exit code, and
 * what it wrote in *out (malloc'd). */
static int verb(const char *words, char **out)
{
	char buf[512], *argv[32];
	int argc = 0;
	snprintf(buf, sizeof(buf), "%s", words);
	for (char *w = strtok(buf, " "); w && argc < 26; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc++] = "-o";
	argv[argc++] = out_path;
	argv[argc++] = "--db";
	argv[argc++] = rt_db;
	argv[argc] = NULL;
	struct prof_ctx ctx = { .db_path = NULL, .argv0 = "prof" };
	const struct cmd *c = cmd_find(argv[0], NULL);
	FZ_CHECK(c);
	unlink(out_path);
	fz_quiet_begin();
	int rc = verb_main(c, argc, argv, &ctx);
	fz_quiet_end();
	FILE *fp = fopen(out_path, "rb");
	*out = NULL;
	size_t len = 0;
	if (fp) {
		FZ_CHECK(fseek(fp, 0, SEEK_END) == 0);
		len = (size_t)ftell(fp);
		rewind(fp);
		*out = malloc(len + 1);
		FZ_CHECK(*out && fread(*out, 1, len, fp) == len);
		(*out)[len] = '\0';
		fclose(fp);
	}
	if (rc != EXIT_OK) {
		fprintf(stderr, "fuzz: 'prof %s' exited %d on a run prof stored\n", words, rc);
		abort();
	}
	FZ_CHECK(*out);
	FZ_CHECK(strlen(*out) == len);	/* no NUL in any output */
	return rc;
}

static void text_ok(const char *words)
{
	char *out;
	verb(words, &out);
	size_t len = strlen(out);
	if (!utf8_valid(out, len)) {
		fprintf(stderr, "fuzz: 'prof %s' wrote invalid UTF-8\n", words);
		abort();
	}
	FZ_CHECK(!strchr(out, '\x1b'));
	free(out);
}

static void json_ok(const char *words)
{
	char *out;
	verb(words, &out);
	const char *why = wf_json(out, strlen(out));
	if (why) {
		fprintf(stderr, "fuzz: 'prof %s' wrote bad JSON: %s\n", words, why);
		abort();
	}
	free(out);
}

static void xml_ok(const char *words)
{
	char *out;
	verb(words, &out);
	const char *why = wf_xml(out, strlen(out));
	if (why) {
		fprintf(stderr, "fuzz: 'prof %s' wrote bad XML: %s\n", words, why);
		abort();
	}
	free(out);
}

static void folded_ok(void)
{
	char *out;
	verb("report 1 --format folded", &out);
	FZ_CHECK(utf8_valid(out, strlen(out)));
	unsigned long long total = 0;
	for (char *l = out; *l;) {
		char *e = strchr(l, '\n');
		FZ_CHECK(e);	/* every line ends */
		*e = '\0';
		char *sp = strrchr(l, ' ');
		FZ_CHECK(sp && sp > l);
		char *end;
		total += strtoull(sp + 1, &end, 10);
		FZ_CHECK(*end == '\0' && end > sp + 1);
		FZ_CHECK(!strchr(l, '\x1b'));
		l = e + 1;
	}
	FZ_CHECK(total == NSAMPLES);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64 * 1024)
		return 0;
	char *f[F_N];
	split(data, size, f);
	fz_unlink_db(rt_db);
	store(f);
	for (int i = 0; i < F_N; i++)
		free(f[i]);

	text_ok("report 1");
	text_ok("report 1 --format csv");
	text_ok("report 1 --format markdown");
	text_ok("report 1 --by symbol --stacks");
	json_ok("report 1 --format json");
	json_ok("report 1 --by module --format json");
	json_ok("runs --format json");
	text_ok("runs");
	text_ok("runs --format csv");
	folded_ok();
	xml_ok("report 1 --format svg");
	xml_ok("html 1");
	return 0;
}
