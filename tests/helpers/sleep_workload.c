/*
 * sleep_workload: a workload for the sleep interposer's tests. Each
 * subcommand sleeps in one particular way and prints what it saw as
 * key=value lines; the test runs it with LD_PRELOAD=libprof-sleep.so and
 * compares those lines and the interposer's report with what should be.
 *
 *   loop N US              nanosleep(US) N times
 *   usleep N US            usleep(US) N times
 *   threads T N US         T threads "sleeper-I", each nanosleep(US) N times
 *   abs N US               clock_nanosleep TIMER_ABSTIME to now+US, N times
 *                          on MONOTONIC then N times on REALTIME; prints
 *                          early=<wakes before the deadline>
 *   eintr SLEEP_US ALARM_US restart|norestart nanosleep|clock|abs
 *                          a SIGALRM handler (with or without SA_RESTART)
 *                          fires ALARM_US into a SLEEP_US sleep; prints
 *                          ret=, err=, errno_after=, rem_ns=, handled=
 *   errno US               errno=EDOM, then nanosleep and clock_nanosleep
 *                          of US; prints errno_after= (should stay EDOM)
 *   other N US             clock_nanosleep on CLOCK_BOOTTIME, N times
 *   fork N US              parent and child each nanosleep(US) N times
 *   exec N US              nanosleep(US) N times, then exec itself to do
 *                          it again as "loop N US"
 *   churn T N US           T threads one after another, N sleeps each;
 *                          prints fds_before= and fds_after= (open fds)
 *   nofds N US             takes every descriptor its (lowered) limit
 *                          allows, then nanosleep(US) N times; prints
 *                          exhausted=1 when the last dup failed EMFILE
 *   bench N US             nanosleep(US) N times; prints wall_s=
 *   overhead N             prints ns per call of a rejected nanosleep
 *                          (EINVAL) and of a past absolute deadline
 *
 * Condvar timed waits; KIND is how the wait is made: timed (the default
 * condvar, CLOCK_REALTIME), timed-mono (pthread_condattr_setclock
 * MONOTONIC), clock-mono and clock-real (pthread_cond_clockwait):
 *   cvwait KIND N US       N waits of US on a condvar nobody signals,
 *                          holding an error-checking mutex; prints
 *                          timedout=, woken=, early= (ETIMEDOUT before
 *                          the deadline), held= (the mutex still ours
 *                          after the wait), slack_before=, slack_after=
 *   cvsignal KIND TIMEOUT_US SIGNAL_US
 *                          waits up to TIMEOUT_US for a flag that another
 *                          thread sets and signals SIGNAL_US in; prints
 *                          ret=, flag=, held=, signal_ms=, woke_ms=
 *   cvmix N US             N nanosleeps of US, then N cvwait timed-mono
 *   cvbad                  waits the real functions refuse: clockwait on
 *                          CLOCK_BOOTTIME, tv_nsec of 1e9 and of -1;
 *                          prints each return
 *   cvold N US             N waits through pthread_cond_timedwait@
 *                          GLIBC_2.2.5, the old condvar (x86_64 only;
 *                          prints skipped=1 elsewhere)
 *   cvcancel US            a thread waiting US on a condvar is cancelled
 *                          5 ms in; prints canceled=1 and the timer
 *                          slack its own cleanup handler saw
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

static void on_alarm(int sig)
{
	(void)sig;
	handled++;
}

static long long now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static struct timespec ts_of(long long ns)
{
	struct timespec ts = { ns / 1000000000ll, ns % 1000000000ll };
	return ts;
}

static int sleep_n(long n, long us)
{
	struct timespec ts = ts_of(us * 1000);
	for (long i = 0; i < n; i++)
		if (nanosleep(&ts, NULL) != 0)
			return 1;
	return 0;
}

struct targ {
	int index;
	long n, us;
};

static void *thread_main(void *p)
{
	struct targ *a = p;
	char name[16];
	snprintf(name, sizeof(name), "sleeper-%d", a->index);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	sleep_n(a->n, a->us);
	return NULL;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

/* No descriptor left, as a workload that leaks them would have. */
static int cmd_nofds(long n, long us)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 256) {
		rl.rlim_cur = 256;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	while (dup(2) >= 0)
		;
	printf("exhausted=%d\n", errno == EMFILE);
	fflush(stdout);
	return sleep_n(n, us);
}

static int cmd_abs(long n, long us)
{
	static const clockid_t clocks[] = { CLOCK_MONOTONIC, CLOCK_REALTIME };
	long early = 0, fails = 0;
	for (int c = 0; c < 2; c++) {
		for (long i = 0; i < n; i++) {
			long long deadline = now_ns(clocks[c]) + us * 1000;
			struct timespec ts = ts_of(deadline);
			if (clock_nanosleep(clocks[c], TIMER_ABSTIME, &ts, NULL))
				fails++;
			if (now_ns(clocks[c]) < deadline)
				early++;
		}
	}
	printf("early=%ld\nfails=%ld\n", early, fails);
	return early || fails;
}

static int cmd_eintr(long sleep_us, long alarm_us, const char *restart,
		     const char *how)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = strcmp(restart, "restart") == 0 ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { .it_value = { alarm_us / 1000000,
					      alarm_us % 1000000 } };
	struct timespec req = ts_of(sleep_us * 1000), rem = { -1, -1 };
	int ret, err;
	setitimer(ITIMER_REAL, &it, NULL);
	errno = 0;
	if (strcmp(how, "clock") == 0) {
		ret = clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &rem);
	} else if (strcmp(how, "abs") == 0) {
		struct timespec dl = ts_of(now_ns(CLOCK_MONOTONIC) +
					   sleep_us * 1000);
		ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl,
				      &rem);
	} else {
		ret = nanosleep(&req, &rem);
	}
	err = errno;
	printf("ret=%d\nerr=%s\nerrno_after=%d\nrem_ns=%lld\nhandled=%d\n",
	       ret, ret == -1 ? strerrorname_np(err) :
	       ret > 0 ? strerrorname_np(ret) : "none", err,
	       rem.tv_sec < 0 ? -1ll :
	       rem.tv_sec * 1000000000ll + rem.tv_nsec, (int)handled);
	return 0;
}

static int cmd_errno(long us)
{
	struct timespec ts = ts_of(us * 1000);
	errno = EDOM;
	int r1 = nanosleep(&ts, NULL);
	int e1 = errno;
	errno = EDOM;
	int r2 = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	int e2 = errno;
	printf("ret=%d,%d\nerrno_after=%s,%s\n", r1, r2, strerrorname_np(e1),
	       strerrorname_np(e2));
	return 0;
}

static int cmd_overhead(long n)
{
	struct timespec bad = { 0, -1 };
	struct timespec past = { 1, 0 };
	long long t0 = now_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < n; i++)
		nanosleep(&bad, NULL);
	long long t1 = now_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < n; i++)
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &past, NULL);
	long long t2 = now_ns(CLOCK_MONOTONIC);
	printf("einval_ns=%.1f\npast_abs_ns=%.1f\n", (double)(t1 - t0) / n,
	       (double)(t2 - t1) / n);
	return 0;
}

/* ------------------------------------------------------------ condvars */

struct cvx {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int clockwait;
	clockid_t clk;		/* of the deadline */
	int flag;
	long long signal_at;	/* CLOCK_MONOTONIC ns */
	long signal_us;
};

static int cvx_init(struct cvx *x, const char *kind)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	memset(x, 0, sizeof(*x));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&x->mu, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_init(&ca);
	x->clk = CLOCK_REALTIME;
	if (strcmp(kind, "timed-mono") == 0) {
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		x->clk = CLOCK_MONOTONIC;
	} else if (strcmp(kind, "clock-mono") == 0) {
		x->clockwait = 1;
		x->clk = CLOCK_MONOTONIC;
	} else if (strcmp(kind, "clock-real") == 0) {
		x->clockwait = 1;
	} else if (strcmp(kind, "timed") != 0) {
		return -1;
	}
	pthread_cond_init(&x->cv, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

static int cvx_wait(struct cvx *x, long long deadline)
{
	struct timespec ts = ts_of(deadline);
	if (x->clockwait)
		return pthread_cond_clockwait(&x->cv, &x->mu, x->clk, &ts);
	return pthread_cond_timedwait(&x->cv, &x->mu, &ts);
}

static const char *err_name(int e)
{
	return e ? strerrorname_np(e) : "0";
}

/* The error-checking mutex is ours when locking it again says so. */
static int cvx_held(struct cvx *x)
{
	return pthread_mutex_lock(&x->mu) == EDEADLK;
}

static int cmd_cvwait(const char *kind, long n, long us)
{
	struct cvx x;
	long timedout = 0, woken = 0, early = 0, held = 0;
	if (cvx_init(&x, kind))
		return 2;
	int before = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	pthread_mutex_lock(&x.mu);
	for (long i = 0; i < n; i++) {
		long long deadline = now_ns(x.clk) + us * 1000;
		int r = cvx_wait(&x, deadline);
		if (r == ETIMEDOUT) {
			timedout++;
			if (now_ns(x.clk) < deadline)
				early++;
		} else if (r == 0) {
			woken++;
		}
		held += cvx_held(&x);
	}
	held = held == n && pthread_mutex_unlock(&x.mu) == 0 ? held : -1;
	printf("timedout=%ld\nwoken=%ld\nearly=%ld\nheld=%ld\n"
	       "slack_before=%d\nslack_after=%d\n", timedout, woken, early,
	       held, before, prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
	return 0;
}

static void *cv_signaller(void *p)
{
	struct cvx *x = p;
	struct timespec ts = ts_of(x->signal_us * 1000);
	nanosleep(&ts, NULL);
	pthread_mutex_lock(&x->mu);
	x->flag = 1;
	x->signal_at = now_ns(CLOCK_MONOTONIC);
	pthread_cond_signal(&x->cv);
	pthread_mutex_unlock(&x->mu);
	return NULL;
}

static int cmd_cvsignal(const char *kind, long timeout_us, long signal_us)
{
	struct cvx x;
	pthread_t th;
	int r = 0;
	if (cvx_init(&x, kind))
		return 2;
	x.signal_us = signal_us;
	pthread_mutex_lock(&x.mu);
	long long t0 = now_ns(CLOCK_MONOTONIC);
	long long deadline = now_ns(x.clk) + timeout_us * 1000;
	pthread_create(&th, NULL, cv_signaller, &x);
	/* a wake with the flag still clear is spurious: wait again */
	while (!x.flag && (r = cvx_wait(&x, deadline)) == 0)
		;
	long long woke = now_ns(CLOCK_MONOTONIC);
	int flag = x.flag, held = cvx_held(&x);
	pthread_mutex_unlock(&x.mu);
	pthread_join(th, NULL);
	printf("ret=%s\nflag=%d\nheld=%d\nsignal_ms=%.3f\nwoke_ms=%.3f\n",
	       err_name(r), flag, held, (double)(x.signal_at - t0) / 1e6,
	       (double)(woke - t0) / 1e6);
	return 0;
}

static int cmd_cvbad(void)
{
	struct cvx x;
	cvx_init(&x, "timed");
	pthread_mutex_lock(&x.mu);
	struct timespec ts = ts_of(now_ns(CLOCK_BOOTTIME) + 30000);
	int boot = pthread_cond_clockwait(&x.cv, &x.mu, CLOCK_BOOTTIME, &ts);
	ts = ts_of(now_ns(CLOCK_REALTIME) + 30000);
	ts.tv_nsec = 1000000000;
	int big = pthread_cond_timedwait(&x.cv, &x.mu, &ts);
	ts.tv_nsec = -1;
	int neg = pthread_cond_clockwait(&x.cv, &x.mu, CLOCK_REALTIME, &ts);
	printf("boottime=%s\nnsec_1e9=%s\nnsec_neg=%s\nheld=%d\n",
	       err_name(boot), err_name(big), err_name(neg), cvx_held(&x));
	pthread_mutex_unlock(&x.mu);
	return 0;
}

#if defined(__x86_64__)
/* The old condvar's entry point, which programs linked before glibc
 * 2.3.2 call: not the interposer's to take. */
extern int old_cond_timedwait(pthread_cond_t *, pthread_mutex_t *,
			      const struct timespec *);
__asm__(".symver old_cond_timedwait, pthread_cond_timedwait@GLIBC_2.2.5");
#endif

static int cmd_cvold(long n, long us)
{
#if defined(__x86_64__)
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	long timedout = 0;
	pthread_mutex_lock(&mu);
	for (long i = 0; i < n; i++) {
		struct timespec ts = ts_of(now_ns(CLOCK_REALTIME) + us * 1000);
		timedout += old_cond_timedwait(&cv, &mu, &ts) == ETIMEDOUT;
	}
	pthread_mutex_unlock(&mu);
	printf("timedout=%ld\n", timedout);
#else
	(void)n;
	(void)us;
	printf("skipped=1\n");
#endif
	return 0;
}

static struct cvx cancel_x;
static volatile int cancel_slack = -1;

static void cancel_cleanup(void *p)
{
	(void)p;
	cancel_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	pthread_mutex_unlock(&cancel_x.mu);
}

static void *cancel_main(void *p)
{
	long us = *(long *)p;
	pthread_mutex_lock(&cancel_x.mu);
	pthread_cleanup_push(cancel_cleanup, NULL);
	for (;;)
		cvx_wait(&cancel_x, now_ns(CLOCK_MONOTONIC) + us * 1000);
	pthread_cleanup_pop(1);
	return NULL;
}

static int cmd_cvcancel(long us)
{
	pthread_t th;
	void *res = NULL;
	cvx_init(&cancel_x, "timed-mono");
	int before = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	pthread_create(&th, NULL, cancel_main, &us);
	struct timespec ts = ts_of(5000000);
	nanosleep(&ts, NULL);
	pthread_cancel(th);
	pthread_join(th, &res);
	printf("canceled=%d\nslack_before=%d\nslack_in_cleanup=%d\n",
	       res == PTHREAD_CANCELED, before, cancel_slack);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		goto usage;
	const char *cmd = argv[1];
	long a = argc > 2 ? atol(argv[2]) : 0;
	long b = argc > 3 ? atol(argv[3]) : 0;
	long c = argc > 4 ? atol(argv[4]) : 0;

	if (strcmp(cmd, "loop") == 0 && argc == 4)
		return sleep_n(a, b);
	if (strcmp(cmd, "usleep") == 0 && argc == 4) {
		for (long i = 0; i < a; i++)
			if (usleep((useconds_t)b) != 0)
				return 1;
		return 0;
	}
	if ((strcmp(cmd, "threads") == 0 || strcmp(cmd, "churn") == 0) &&
	    argc == 5) {
		int churn = cmd[0] == 'c';
		int fds_before = count_fds();
		pthread_t th[64];
		struct targ args[64];
		if (a < 1 || a > 64)
			goto usage;
		for (int i = 0; i < a; i++) {
			args[i] = (struct targ){ i, b, c };
			pthread_create(&th[i], NULL, thread_main, &args[i]);
			if (churn)
				pthread_join(th[i], NULL);
		}
		if (!churn)
			for (int i = 0; i < a; i++)
				pthread_join(th[i], NULL);
		if (churn)
			printf("fds_before=%d\nfds_after=%d\n", fds_before,
			       count_fds());
		return 0;
	}
	if (strcmp(cmd, "abs") == 0 && argc == 4)
		return cmd_abs(a, b);
	if (strcmp(cmd, "nofds") == 0 && argc == 4)
		return cmd_nofds(a, b);
	if (strcmp(cmd, "eintr") == 0 && argc == 6)
		return cmd_eintr(a, b, argv[4], argv[5]);
	if (strcmp(cmd, "errno") == 0 && argc == 3)
		return cmd_errno(a);
	if (strcmp(cmd, "other") == 0 && argc == 4) {
		struct timespec ts = ts_of(b * 1000);
		for (long i = 0; i < a; i++)
			if (clock_nanosleep(CLOCK_BOOTTIME, 0, &ts, NULL))
				return 1;
		return 0;
	}
	if (strcmp(cmd, "fork") == 0 && argc == 4) {
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		int r = sleep_n(a, b);
		if (pid == 0)
			_exit(r);
		int st;
		waitpid(pid, &st, 0);
		return r || !WIFEXITED(st) || WEXITSTATUS(st);
	}
	if (strcmp(cmd, "exec") == 0 && argc == 4) {
		if (sleep_n(a, b))
			return 1;
		char *args[] = { argv[0], "loop", argv[2], argv[3], NULL };
		execv("/proc/self/exe", args);
		return 127;
	}
	if (strcmp(cmd, "bench") == 0 && argc == 4) {
		long long t0 = now_ns(CLOCK_MONOTONIC);
		int r = sleep_n(a, b);
		printf("wall_s=%.6f\n",
		       (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e9);
		return r;
	}
	if (strcmp(cmd, "overhead") == 0 && argc == 3)
		return cmd_overhead(a);
	if (strcmp(cmd, "cvwait") == 0 && argc == 5)
		return cmd_cvwait(argv[2], b, c);
	if (strcmp(cmd, "cvsignal") == 0 && argc == 5)
		return cmd_cvsignal(argv[2], b, c);
	if (strcmp(cmd, "cvmix") == 0 && argc == 4)
		return sleep_n(a, b) || cmd_cvwait("timed-mono", a, b);
	if (strcmp(cmd, "cvbad") == 0 && argc == 2)
		return cmd_cvbad();
	if (strcmp(cmd, "cvold") == 0 && argc == 4)
		return cmd_cvold(a, b);
	if (strcmp(cmd, "cvcancel") == 0 && argc == 3)
		return cmd_cvcancel(a);
usage:
	fprintf(stderr, "usage: sleep_workload loop|usleep|threads|abs|eintr|"
		"errno|other|fork|exec|churn|bench|overhead|cvwait|cvsignal|"
		"cvmix|cvbad|cvold|cvcancel ARGS\n");
	return 2;
}
