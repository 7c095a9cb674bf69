/*
 * forktree: start a known tree of processes, for the completeness tests.
 * usage: forktree MODE WIDTH DEPTH [WORK]
 * Each process starts WIDTH children that exec forktree again with
 * DEPTH-1 (MODE fork: fork then exec; vfork: vfork then exec; spawn:
 * posix_spawn; thread: WIDTH threads instead of processes at the last
 * level) and waits for them; every process then spins WORK iterations.
 * The tree holds sum(WIDTH^d, d = 0..DEPTH) tasks, which it prints on
 * stderr when the root finishes.
 */
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static long work = 20000;

static void spin(void)
{
	volatile long s = 0;
	for (long i = 0; i < work; i++)
		s += i;
}

static void *thread_body(void *arg)
{
	spin();
	return arg;
}

/* In a function of its own, so that vfork's shared stack clobbers none
 * of the caller's variables. */
static pid_t start_vfork(char **cargv)
{
	pid_t p = vfork();
	if (p == 0) {
		execv("/proc/self/exe", cargv);
		_exit(127);
	}
	return p;
}

static long tree_size(long width, long depth)
{
	long n = 1, level = 1;
	for (long d = 1; d <= depth; d++) {
		level *= width;
		n += level;
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: forktree fork|vfork|spawn|thread WIDTH DEPTH [WORK]\n");
		return 2;
	}
	int root = getenv("FORKTREE_ROOT") == NULL;
	setenv("FORKTREE_ROOT", "1", 1);
	const char *mode = argv[1];
	long width = atol(argv[2]), depth = atol(argv[3]);
	if (argc > 4)
		work = atol(argv[4]);
	char sdepth[32];
	snprintf(sdepth, sizeof(sdepth), "%ld", depth - 1);
	char *cargv[] = { argv[0], argv[1], argv[2], sdepth, argc > 4 ? argv[4] : NULL, NULL };
	int failed = 0;
	if (depth > 0 && !strcmp(mode, "thread") && depth == 1) {
		pthread_t *t = calloc((size_t)width, sizeof(*t));
		if (!t)
			return 1;
		for (long i = 0; i < width; i++)
			if (pthread_create(&t[i], NULL, thread_body, NULL) != 0)
				failed = 1;
		for (long i = 0; i < width && !failed; i++)
			pthread_join(t[i], NULL);
		free(t);
	} else if (depth > 0) {
		pid_t *kids = calloc((size_t)width, sizeof(pid_t));
		if (!kids)
			return 1;
		for (long i = 0; i < width; i++) {
			pid_t p;
			if (!strcmp(mode, "spawn")) {
				if (posix_spawn(&p, "/proc/self/exe", NULL, NULL, cargv, environ))
					p = -1;
			} else if (!strcmp(mode, "vfork")) {
				p = start_vfork(cargv);
			} else {
				p = fork();
				if (p == 0) {
					execv("/proc/self/exe", cargv);
					_exit(127);
				}
			}
			kids[i] = p;
			if (p < 0)
				failed = 1;
		}
		for (long i = 0; i < width; i++) {
			int st;
			if (kids[i] > 0 && (waitpid(kids[i], &st, 0) != kids[i] ||
					    !WIFEXITED(st) || WEXITSTATUS(st)))
				failed = 1;
		}
		free(kids);
	}
	spin();
	if (root) {
		unsetenv("FORKTREE_ROOT");
		fprintf(stderr, "forktree: %ld tasks\n", tree_size(width, depth));
	}
	return failed;
}
