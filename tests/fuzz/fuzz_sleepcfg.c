/*
 * fuzz_sleepcfg: the sleep interposer's settings, which it reads from a
 * workload's environment (PROF_SLEEP_MODE, PROF_SLEEP_THRESHOLD_US,
 * PROF_SLEEP_MAX_SPINNERS) and prof from --sleep-mode, and the mode and
 * duration lists of `prof sleep`. The input's first three lines are the
 * three variables (a missing line: unset); the first line is also tried
 * as a --sleep-mode spec and as each list. What parses must be in range
 * and print back to a word that parses the same.
 */
#include <errno.h>

#include "collectors/sleep.h"
#include "fuzz.h"
#include "prof/run/run.h"

static void check_mode(const struct sleep_mode_spec *m)
{
	char word[64];
	struct sleep_mode_spec again;
	FZ_CHECK((unsigned)m->mode < SLEEP_MODE_COUNT);
	FZ_CHECK(m->margin_ns <= (int64_t)SLEEP_MARGIN_MAX_US * 1000);
	sleep_mode_format(m, word, sizeof(word));
	FZ_CHECK(sleep_mode_parse(word, &again, NULL) == 0);
	FZ_CHECK(again.mode == m->mode && again.margin_ns == m->margin_ns);
}

static void check_config(const struct sleep_preload_config *c)
{
	check_mode(&c->mode);
	FZ_CHECK(sleep_mode_is_preload(c->mode.mode));
	FZ_CHECK(c->threshold_ns >= 1000 &&
		 c->threshold_ns <= (uint64_t)SLEEP_THRESHOLD_MAX_US * 1000);
	FZ_CHECK(c->max_spinners <= SLEEP_MAX_SPINNERS_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_str(data, size), *rest = text;
	char *mode = fz_field(&rest), *threshold = fz_field(&rest);
	char *spinners = fz_field(&rest);
	struct sleep_preload_config c;
	char *cause = NULL;

	int err = sleep_preload_config_parse(mode, threshold, spinners, &c, &cause);
	if (err) {
		FZ_CHECK(err == -EINVAL && cause);
		free(cause);
	} else {
		FZ_CHECK(!cause);
		check_config(&c);
	}

	struct sleep_plan sp;
	cause = NULL;
	err = sleep_plan_parse(&sp, mode, &cause);
	if (err) {
		FZ_CHECK(err < 0 && cause);
		free(cause);
	} else {
		FZ_CHECK(!cause);
		check_config(&sp.cfg);
	}
	sleep_plan_release(&sp);

	struct sleep_mode_spec one, *modes = NULL;
	size_t n = 0;
	cause = NULL;
	if (sleep_mode_parse(mode, &one, &cause) == 0)
		check_mode(&one);
	free(cause);
	cause = NULL;
	if (sleep_modes_parse(mode, &modes, &n, &cause) == 0) {
		FZ_CHECK(n >= 1 && !cause);
		for (size_t i = 0; i < n; i++) {
			check_mode(&modes[i]);
			FZ_CHECK(sleep_mode_is_bench(modes[i].mode));
		}
	} else {
		FZ_CHECK(cause && !modes);
	}
	free(modes);
	free(cause);

	uint32_t *us = NULL;
	cause = NULL;
	if (sleep_durations_parse(mode, &us, &n, &cause) == 0) {
		for (size_t i = 0; i < n; i++)
			FZ_CHECK(us[i] >= 1 && us[i] <= SLEEP_DURATION_MAX_US);
	} else {
		FZ_CHECK(cause && !us);
	}
	free(us);
	free(cause);
	enum sleep_pattern pat;
	cause = NULL;
	if (sleep_pattern_parse(mode, &pat, &cause))
		FZ_CHECK(cause);
	free(cause);
	free(text);
	return 0;
}
