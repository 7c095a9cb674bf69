/*
 * fuzz_frames: the frame marker lines a workload writes to
 * $PROF_MARKER_FD ("F <ns>", "B <ns> <name>", "E <ns> <name>"), through
 * collectors/frames.h's gate as prof/run/collect_frames.c feeds it: each
 * line cut at 255 bytes, the run begun at START, every line arrived at
 * NOW (an optional first line "S START NOW"; else 10^9 and 10^18). What
 * the gate keeps must be what db_frames_load reads back: each marker
 * within the run, none before the one kept last, and every frame made of
 * them (collectors/frames) starting and lasting 0..INT64_MAX ns after the
 * first, as prof/run/collect_frames.c stores them. Every other line but a zone is
 * counted once, and a note says so exactly when one was dropped.
 */
#include <inttypes.h>

#include "collectors/frames.h"
#include "fuzz.h"

#define LINE_CAP 256	/* prof/run/collect_frames.c's mline */

/* "F " and digits alone: what a kept marker must look like. */
static uint64_t digits_of(const char *line)
{
	FZ_CHECK(line[0] == 'F' && line[1] == ' ' && line[2]);
	uint64_t v = 0;
	for (const char *p = line + 2; *p; p++) {
		FZ_CHECK(*p >= '0' && *p <= '9');
		FZ_CHECK(v <= (UINT64_MAX - 9) / 10);	/* the gate kept it: small */
		v = v * 10 + (uint64_t)(*p - '0');
	}
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_str(data, size), *rest = s, *line;
	uint64_t start = 1000000000ull, now = 1000000000000000000ull;
	if (rest[0] == 'S' && rest[1] == ' ') {
		unsigned long long a, b;
		if (sscanf(rest, "S %llu %llu", &a, &b) == 2) {
			start = a;
			now = b;
		}
		fz_field(&rest);
	}
	struct frame_gate g;
	frame_gate_init(&g, start);
	struct frames *f = frames_new(0);
	FZ_CHECK(f);
	uint64_t counted = 0, last = 0;
	bool any = false;
	while ((line = fz_field(&rest))) {
		char cut[LINE_CAP];
		snprintf(cut, sizeof(cut), "%s", line);
		uint64_t before = frame_gate_dropped(&g), t = 0;
		bool zone = (cut[0] == 'B' || cut[0] == 'E') && cut[1] == ' ';
		bool kept = frame_gate_line(&g, cut, now, &t);
		FZ_CHECK(!(kept && zone));
		counted += !zone;
		FZ_CHECK(frame_gate_dropped(&g) == before + (!kept && !zone));
		if (!kept)
			continue;
		FZ_CHECK(t == digits_of(cut));
		FZ_CHECK(t >= start && t <= now && t <= (uint64_t)INT64_MAX);
		FZ_CHECK(!any || t >= last);
		last = t;
		any = true;
		FZ_CHECK(frames_mark(f, FRAME_MARKER, t) == 0);
	}
	FZ_CHECK(g.kept + frame_gate_dropped(&g) == counted);
	char *note = frame_gate_note(&g);
	FZ_CHECK((note != NULL) == (frame_gate_dropped(&g) > 0));
	if (note) {
		char head[64];
		snprintf(head, sizeof(head), "%" PRIu64 " frame marker",
			 frame_gate_dropped(&g));
		FZ_CHECK(!strncmp(note, head, strlen(head)));
		FZ_CHECK(!strchr(note, '\n'));
	}
	free(note);

	/* The frames, as prof/run/collect_frames.c stores them and db/frames.c reads. */
	size_t n = frames_count(f, FRAME_MARKER);
	FZ_CHECK(n == (g.kept ? g.kept - 1 : 0));
	uint64_t t0 = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t a, d;
		frames_span(f, FRAME_MARKER, i, &a, &d);
		if (!i)
			t0 = a;
		FZ_CHECK(a >= t0 && a - t0 <= (uint64_t)INT64_MAX);
		FZ_CHECK(d <= (uint64_t)INT64_MAX);
	}
	frames_free(f);
	free(s);
	return 0;
}
