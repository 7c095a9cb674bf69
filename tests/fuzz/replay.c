/*
 * replay: run files through a fuzz target without libFuzzer, so every
 * build (gcc included, and the sanitizer build) checks the seed corpus
 * and the saved regressions: `replay_<name> DIR|FILE...`. Files of a
 * directory go in name order. Exits 0 when every input went through; a
 * target that finds a broken contract aborts, as under the fuzzer.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A target without an initializer gets this one. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + len, 1, cap - len, fp)) > 0) {
		len += got;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	int bad = ferror(fp);
	fclose(fp);
	if (!buf || bad) {
		free(buf);
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		return -1;
	}
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	size_t files = 0;
	int failed = 0;
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			/* No regressions saved yet is not an error. */
			if (errno == ENOENT)
				continue;
			fprintf(stderr, "replay: cannot stat '%s': %s\n", argv[i],
				strerror(errno));
			failed = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			failed |= run_file(argv[i]) < 0;
			files++;
			continue;
		}
		struct dirent **ents;
		int n = scandir(argv[i], &ents, NULL, by_name);
		if (n < 0) {
			fprintf(stderr, "replay: cannot list '%s': %s\n", argv[i],
				strerror(errno));
			failed = 1;
			continue;
		}
		for (int k = 0; k < n; k++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], ents[k]->d_name);
			if (ents[k]->d_name[0] != '.' && stat(path, &st) == 0 &&
			    S_ISREG(st.st_mode)) {
				failed |= run_file(path) < 0;
				files++;
			}
			free(ents[k]);
		}
		free(ents);
	}
	printf("replay: %zu inputs\n", files);
	return failed;
}
