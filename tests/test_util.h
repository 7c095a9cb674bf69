/*
 * test_util: small helpers shared by the cmocka tests: capture what a
 * writer prints, make a temporary directory, run a command and collect its
 * output and status. Header-only so each test stays one executable.
 */
#ifndef TESTS_TEST_UTIL_H
#define TESTS_TEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A FILE that writes into memory; call tu_buf_close() to get the text. */
struct tu_buf {
	char *data;
	size_t len;
	FILE *fp;
};

static inline FILE *tu_buf_open(struct tu_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->fp = open_memstream(&b->data, &b->len);
	return b->fp;
}

static inline const char *tu_buf_close(struct tu_buf *b)
{
	fclose(b->fp);
	b->fp = NULL;
	return b->data;
}

/* mkdtemp under $TMPDIR; returns a malloc'd path. */
static inline char *tu_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *path;
	if (asprintf(&path, "%s/prof-test-XXXXXX", base ? base : "/tmp") < 0)
		abort();
	if (!mkdtemp(path))
		abort();
	return path;
}

static inline void tu_rmrf(const char *path)
{
	char *cmd;
	if (asprintf(&cmd, "rm -rf '%s'", path) < 0)
		abort();
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", path);
	free(cmd);
}

struct tu_proc {
	int status;	/* exit code, or 128+signal */
	char *out;	/* stdout */
	char *err;	/* stderr */
};

static inline char *tu_slurp_fd(int fd)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	ssize_t n;
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 2) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
	}
	buf[len] = '\0';
	return buf;
}

static inline char *tu_slurp(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	char *s = tu_slurp_fd(fd);
	close(fd);
	return s;
}

/* How tu_run_ex runs a command; zeroed is as tu_run does. */
struct tu_run_opts {
	/* Kill the command with SIGALRM after this many seconds (status
	 * 128+14), so a test of something that used to hang fails rather
	 * than hangs; 0: no limit. */
	unsigned timeout_s;
	/* Run as this user and group (a root caller dropping its rights);
	 * 0: as the caller. */
	uid_t as_uid;
	gid_t as_gid;
	/* Called in the child just before exec (limits, say); NULL: none. */
	void (*before_exec)(void);
};

/*
 * Run argv (NULL-terminated) with optional extra environment "K=V"
 * entries, capturing stdout and stderr through temporary files (so large
 * outputs cannot deadlock a pipe).
 */
static inline struct tu_proc tu_run_ex(char *const argv[], char *const env[],
				       const struct tu_run_opts *o)
{
	struct tu_proc p = { 0 };
	char outp[] = "/tmp/prof-test-out-XXXXXX";
	char errp[] = "/tmp/prof-test-err-XXXXXX";
	int ofd = mkstemp(outp), efd = mkstemp(errp);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(ofd, 1);
		dup2(efd, 2);
		for (int i = 0; env && env[i]; i++)
			putenv(env[i]);
		if (o && o->timeout_s)
			alarm(o->timeout_s);	/* kept across exec */
		if (o && o->as_uid && (setgroups(0, NULL) != 0 ||
				       setgid(o->as_gid) != 0 || setuid(o->as_uid) != 0))
			_exit(126);
		if (o && o->before_exec)
			o->before_exec();
		execv(argv[0], argv);
		_exit(127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	p.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	lseek(ofd, 0, SEEK_SET);
	lseek(efd, 0, SEEK_SET);
	p.out = tu_slurp_fd(ofd);
	p.err = tu_slurp_fd(efd);
	close(ofd);
	close(efd);
	unlink(outp);
	unlink(errp);
	return p;
}

static inline struct tu_proc tu_run(char *const argv[], char *const env[])
{
	return tu_run_ex(argv, env, NULL);
}

static inline void tu_proc_release(struct tu_proc *p)
{
	free(p->out);
	free(p->err);
	p->out = p->err = NULL;
}

#ifdef PROF_BIN
/*
 * For end-to-end tests: skip when this machine does not let prof open
 * perf events at all (it says "cannot open perf events": paranoid, no
 * root). Any other failure of the probe is a failure of prof, not a
 * reason to skip. Returns false when the caller must skip().
 */
static inline bool tu_perf_allowed(const char *dbarg)
{
	char *argv[] = { PROF_BIN, (char *)dbarg, "run", "-q", "-e", "task-clock",
			 "--", "/bin/true", NULL };
	struct tu_proc p = tu_run(argv, NULL);
	bool denied = p.status != 0 && strstr(p.err, "cannot open perf events");
	bool failed = p.status != 0 && !denied;
	if (denied)
		fprintf(stderr, "skipping: perf_event_open is not allowed here: %s\n", p.err);
	if (failed)
		fprintf(stderr, "prof run -- /bin/true failed (%d):\n%s", p.status, p.err);
	tu_proc_release(&p);
	if (failed)
		abort();	/* not a skip: prof itself is broken */
	return !denied;
}
#endif

#endif
