/*
 * test_util: small helpers shared by the cmocka tests: capture what a
 * writer prints, make a temporary directory (alone or with a database path
 * in it), build the start of a stored run, run a command and collect its
 * output and status, and read what a VM's host took from a run (its
 * steal, a QEMU guest's witness). Header-only so each test stays one
 * executable.
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
#include <signal.h>
#include <time.h>
#include <termios.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/runs.h"

/*
 * Run fn in a child held to limit_mb more address space than it starts
 * with and cpu_s seconds of CPU, without a core file, so that a test of
 * bounded memory or time fails instead of taking the machine down. A
 * fault kills the child (not cmocka's handler, which would run the other
 * tests in it). Under AddressSanitizer, whose shadow and quarantine do
 * not fit an address-space bound (a child hung in a futex when it ran
 * out), only the time is bounded, three times as long: the plain build
 * checks the memory. Returns 0 when fn returned 0, its exit status when
 * not, -SIGNAL when the child was killed (out of time or memory), -1000
 * when it could not be run.
 */
static inline int tu_in_child(int (*fn)(void), unsigned limit_mb, unsigned cpu_s)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1000;
	if (pid == 0) {
		static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE };
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		unsigned long pages = 0;
		FILE *fp = fopen("/proc/self/statm", "r");
		if (fp && fscanf(fp, "%lu", &pages) != 1)
			pages = 0;
		if (fp)
			fclose(fp);
#ifdef __SANITIZE_ADDRESS__
		pages = 0;
		cpu_s *= 3;
#endif
		struct rlimit rl;
		if (pages) {
			rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) +
						    ((rlim_t)limit_mb << 20);
			setrlimit(RLIMIT_AS, &rl);
		}
		rl.rlim_cur = cpu_s;
		rl.rlim_max = cpu_s + 1;
		setrlimit(RLIMIT_CPU, &rl);
		rl.rlim_cur = rl.rlim_max = 0;
		setrlimit(RLIMIT_CORE, &rl);
		_exit(fn() ? 1 : 0);
	}
	int st = 0;
	if (waitpid(pid, &st, 0) != pid)
		return -1000;
	return WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
}

/* tu_in_child, failing the cmocka test unless fn ran and returned 0. */
#define tu_assert_in_child(fn, limit_mb, cpu_s) do { \
	int tu_rc_ = tu_in_child((fn), (limit_mb), (cpu_s)); \
	if (tu_rc_ < 0 && tu_rc_ > -1000) \
		fail_msg("the child was killed by signal %d (out of time or " \
			 "memory)", -tu_rc_); \
	assert_int_equal(tu_rc_, 0); \
} while (0)

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

/*
 * A temporary directory with a database path in it: the state of most db
 * and end-to-end tests. The database itself is made by whoever opens it
 * first. Use as cmocka state with tu_db_setup/tu_db_teardown, or with
 * tu_db_new(NAME) where the file name matters.
 */
struct tu_db {
	char *dir;
	char *path;	/* dir/NAME */
	char *dbarg;	/* "--db=PATH", for prof's argv */
};

static inline struct tu_db *tu_db_new(const char *name)
{
	struct tu_db *d = calloc(1, sizeof(*d));
	if (!d)
		abort();
	d->dir = tu_tmpdir();
	if (asprintf(&d->path, "%s/%s", d->dir, name) < 0 ||
	    asprintf(&d->dbarg, "--db=%s", d->path) < 0)
		abort();
	return d;
}

/* Removes the directory and everything in it; accepts NULL. */
static inline void tu_db_free(struct tu_db *d)
{
	if (!d)
		return;
	tu_rmrf(d->dir);
	free(d->dir);
	free(d->path);
	free(d->dbarg);
	free(d);
}

static inline int tu_db_setup(void **state)
{
	*state = tu_db_new("t.db");
	return 0;
}

static inline int tu_db_teardown(void **state)
{
	tu_db_free(*state);
	return 0;
}

/*
 * The start of a run to store: kind, start time, command with argv
 * { command } (argc 1; room for two more words), on host `hostname`
 * (kernel 6.18, cpu_model, ncpus online). r needs no initialisation;
 * the test fills in what it checks, and db_run_release() frees it all.
 */
static inline void tu_run_init(struct db_run *r, const char *kind,
			       const char *started, const char *command,
			       const char *hostname, const char *cpu_model,
			       int ncpus)
{
	memset(r, 0, sizeof(*r));
	r->kind = strdup(kind);
	r->started = strdup(started);
	r->command = strdup(command);
	r->argv = calloc(4, sizeof(char *));
	if (!r->argv)
		abort();
	r->argv[0] = strdup(command);
	r->argc = 1;
	r->host.hostname = strdup(hostname);
	r->host.kernel = strdup("6.18");
	r->host.cpu_model = strdup(cpu_model);
	r->host.online_cpus = ncpus;
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

/*
 * Whether needle is in hay as prose: a terminal report breaks a long
 * note at 80 columns (reports/output.h out_wrap), so every line break
 * with the spaces after it reads as one space in both.
 */
static inline bool tu_has_prose(const char *hay, const char *needle)
{
	char *f[2];
	const char *src[2] = { hay, needle };
	for (int k = 0; k < 2; k++) {
		f[k] = malloc(strlen(src[k]) + 1);
		if (!f[k])
			abort();
		char *o = f[k];
		for (const char *s = src[k]; *s;) {
			if (*s == '\n' || (*s == ' ' && (o == f[k] || o[-1] == ' '))) {
				if (o == f[k] || o[-1] != ' ')
					*o++ = ' ';
				s++;
				continue;
			}
			*o++ = *s++;
		}
		*o = '\0';
	}
	bool found = strstr(f[0], f[1]) != NULL;
	free(f[0]);
	free(f[1]);
	return found;
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
		/* What the caller's shell may have set must not change what a
		 * test expects; a test that wants one gives it in env. */
		static const char *const prof_env[] = {
			"PROF_DB", "PROF_DB_TIMEOUT", "PROF_CACHE_AFFINITY",
			"PROF_SLEEP_LIB", "LIBPFM_FORCE_PMU",
		};
		for (size_t i = 0; i < sizeof(prof_env) / sizeof(prof_env[0]); i++)
			unsetenv(prof_env[i]);
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

/*
 * The machine's steal time so far (ns, all CPUs), from /proc/stat; -1
 * where it cannot be read. A hypervisor's steal counts in task-clock but
 * not in the scheduler's clock of a kernel with PARAVIRT_TIME_ACCOUNTING,
 * so a test that holds task-clock to a CPU time allows what was stolen
 * meanwhile on top.
 */
static inline long long tu_steal_ns(void)
{
	FILE *fp = fopen("/proc/stat", "re");
	unsigned long long v[8] = { 0 };
	if (!fp)
		return -1;
	int n = fscanf(fp, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		       &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(fp);
	if (n != 8)
		return -1;
	return (long long)(v[7] * (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK)));
}

/* What tu_steal_ns added since s0 (0 where either read failed or the sum
 * went back). */
static inline long long tu_stolen_since(long long s0)
{
	long long s1 = tu_steal_ns();
	return s0 >= 0 && s1 > s0 ? s1 - s0 : 0;
}

/* CLOCK_MONOTONIC in seconds: for a test's deadlines and waits. */
static inline double tu_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * What the host has so far kept this guest's CPU from running, in ns:
 * scripts/kernels answers a line written to PROF_HOST_WITNESS (the
 * guest's second serial port) with its QEMU thread's run-queue wait plus
 * the host's steal. -1 where there is no witness or it did not answer
 * within 2 s.
 */
static inline long long tu_host_taken_ns(void)
{
	const char *dev = getenv("PROF_HOST_WITNESS");
	if (!dev || !*dev)
		return -1;
	int fd = open(dev, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct termios t;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	tcflush(fd, TCIFLUSH);
	char buf[64];
	size_t n = 0;
	long long v = -1;
	if (write(fd, "?\n", 2) == 2) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		while (n < sizeof(buf) - 1 && !memchr(buf, '\n', n) &&
		       poll(&pfd, 1, 2000) > 0) {
			ssize_t r = read(fd, buf + n, sizeof(buf) - 1 - n);
			if (r <= 0)
				break;
			n += (size_t)r;
		}
		buf[n] = '\0';
		if (memchr(buf, '\n', n))
			v = strtoll(buf, NULL, 10);
	}
	close(fd);
	return v;
}

/*
 * What kept a test's workload from running while its clocks went on,
 * since tu_taken_now: the machine's steal and, in a QEMU guest, what its
 * host took (ns). task-clock counts both, a thread's CPU time neither.
 */
struct tu_taken {
	long long steal, host;
};

static inline struct tu_taken tu_taken_now(void)
{
	return (struct tu_taken){ tu_steal_ns(), tu_host_taken_ns() };
}

/* What tu_host_taken_ns added since h0 (0 where either read failed). */
static inline long long tu_host_taken_since(long long h0)
{
	long long h1 = tu_host_taken_ns();
	return h0 >= 0 && h1 > h0 ? h1 - h0 : 0;
}

static inline long long tu_taken_since(struct tu_taken t0)
{
	return tu_host_taken_since(t0.host) + tu_stolen_since(t0.steal);
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
