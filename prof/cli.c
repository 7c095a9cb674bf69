/*
 * cli: shared argv helpers: usage errors with hints, output files, the
 * database path, and verb lookup by unique prefix (as tmux does).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/errtext.h"
#include "common/xalloc.h"
#include "db/db.h"
#include "db/experiments.h"
#include "prof/cli.h"
#include "prof/run/run.h"
#include "reports/runs.h"

int verbose;

/* The last message was an error: a hint after it goes with it. */
static bool after_error;

static ssize_t drop_write(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	(void)buf;
	return (ssize_t)size;
}

FILE *cli_talk(void)
{
	static FILE *hushed;
	after_error = false;	/* a hint after this belongs to the remark */
	if (verbose >= 0)
		return stderr;
	if (!hushed) {
		cookie_io_functions_t io = { .write = drop_write };
		hushed = fopencookie(NULL, "w", io);
	}
	return hushed ? hushed : stderr;
}

static void vmsg_to(FILE *fp, const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, fp);
	vfprintf(fp, fmt, ap);
	fputc('\n', fp);
}

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	after_error = true;
	vmsg_to(stderr, prefix, fmt, ap);
}

int usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
	if (verb)
		fprintf(stderr, "hint: run 'prof %s --help' for its options\n", verb);
	else
		fprintf(stderr, "hint: run 'prof --help' for the list of verbs\n");
	return EXIT_USAGE;
}

int error_msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
	return EXIT_FAIL;
}

/* One place says each kind of message: the engine's print sink, which
 * the verbs' own warning_msg, note_msg and hint_msg call too. */
static void run_print_to_cli(enum run_print_level level, const char *fmt,
			     va_list ap)
{
	switch (level) {
	case RUN_PRINT_WARN:
		after_error = false;
		vmsg_to(cli_talk(), "warning: ", fmt, ap);
		break;
	case RUN_PRINT_NOTE:
		after_error = false;
		vmsg_to(cli_talk(), "note: ", fmt, ap);
		break;
	case RUN_PRINT_HINT:
		vmsg_to(after_error ? stderr : cli_talk(), "hint: ", fmt, ap);
		break;
	case RUN_PRINT_INFO:
		vmsg_to(cli_talk(), "", fmt, ap);
		break;
	}
}

#define CLI_PRINT(level)			\
	do {					\
		va_list ap;			\
		va_start(ap, fmt);		\
		run_print_to_cli(level, fmt, ap);	\
		va_end(ap);			\
	} while (0)

void warning_msg(const char *fmt, ...)
{
	CLI_PRINT(RUN_PRINT_WARN);
}

void note_msg(const char *fmt, ...)
{
	CLI_PRINT(RUN_PRINT_NOTE);
}

void hint_msg(const char *fmt, ...)
{
	CLI_PRINT(RUN_PRINT_HINT);
}

void cli_install_run_print(void)
{
	run_set_print(run_print_to_cli);
}

void print_cause(const char *prefix, const char *cause)
{
	/* A warning's cause is a remark; anything else completes an error. */
	after_error = strncmp(prefix, "warning", 7) != 0;
	FILE *fp = after_error ? stderr : cli_talk();
	if (!cause || !*cause) {
		fprintf(fp, "%sunknown failure\n", prefix);
		return;
	}
	/* The first line takes the prefix; later lines carry their own. */
	const char *nl = strchr(cause, '\n');
	if (!nl) {
		fprintf(fp, "%s%s\n", prefix, cause);
		return;
	}
	fprintf(fp, "%s%.*s\n", prefix, (int)(nl - cause), cause);
	fprintf(fp, "%s", nl + 1);
	if (nl[1] && cause[strlen(cause) - 1] != '\n')
		fputc('\n', fp);
}

int fail_cause(char *cause, int code)
{
	print_cause("error: ", cause);
	free(cause);
	return code;
}

/* errno -> exit code, for what the user asked for and for a launch. */
static const struct {
	int err;
	int code;		/* exit_code_for */
	int launch_code;	/* exit_code_for_launch */
} exit_codes[] = {
	{ ENOENT, EXIT_USAGE, EXIT_NOT_RUN },	/* no such run, event, command */
	{ EACCES, EXIT_FAIL, EXIT_NOT_RUN },	/* the command is not executable */
	{ ENOEXEC, EXIT_FAIL, EXIT_NOT_RUN },	/* nor a program the kernel runs */
	{ EINVAL, EXIT_USAGE, EXIT_FAIL },	/* a word prof does not take */
	{ ERANGE, EXIT_USAGE, EXIT_FAIL },	/* a number out of its range */
	{ ENXIO, EXIT_USAGE, EXIT_FAIL },	/* CPUs named that are not online */
	{ EOPNOTSUPP, EXIT_USAGE, EXIT_FAIL },	/* an event not encoded here */
	{ ENODATA, EXIT_USAGE, EXIT_FAIL },	/* samples of a counted run */
};

static int exit_code_row(int err, bool launch)
{
	if (err < 0)
		err = -err;
	for (size_t i = 0; i < sizeof(exit_codes) / sizeof(exit_codes[0]); i++)
		if (exit_codes[i].err == err)
			return launch ? exit_codes[i].launch_code : exit_codes[i].code;
	return EXIT_FAIL;
}

int exit_code_for(int err)
{
	return exit_code_row(err, false);
}

int exit_code_for_launch(int err)
{
	return exit_code_row(err, true);
}

const char *cli_db_path(const struct prof_ctx *ctx, const char *verb_opt)
{
	const char *p = "prof.db";
	const char *env = getenv("PROF_DB");
	if (verb_opt)
		p = verb_opt;
	else if (ctx && ctx->db_path)
		p = ctx->db_path;
	else if (env && *env)
		p = env;
	return p;
}

int cli_db_wait_ms(void)
{
	const char *env = getenv("PROF_DB_TIMEOUT");
	double s;
	if (!env || !*env)
		return DB_BUSY_MS_DEFAULT;
	if (!cli_parse_double(env, 0, 86400, &s)) {
		char buf[64];
		warning_msg("ignoring PROF_DB_TIMEOUT='%s': expected seconds, e.g. 30 "
			    "or 0.5; waiting %d s", cli_echo(env, buf, sizeof(buf)),
			    DB_BUSY_MS_DEFAULT / 1000);
		return DB_BUSY_MS_DEFAULT;
	}
	return (int)(s * 1000 + 0.5);
}

/* path made absolute through its directory's real path (the file itself
 * need not exist; a link to the file is followed when it does). */
static char *canonical(const char *path)
{
	char *full = realpath(path, NULL);
	if (full)
		return full;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path))
			  : strdup(".");
	char *rdir = dir ? realpath(dir, NULL) : NULL;
	char *out = NULL;
	if (rdir && asprintf(&out, "%s/%s", rdir, slash ? slash + 1 : path) < 0)
		out = NULL;
	free(dir);
	free(rdir);
	return out;
}

bool cli_output_is_db(const char *out, const char *db)
{
	if (!out || !db || !*db)
		return false;
	char *o = canonical(out);
	bool same = false;
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
	for (size_t i = 0; o && !same && i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		char *cand = NULL;
		if (asprintf(&cand, "%s%s", db, sfx[i]) < 0)
			break;
		char *c = canonical(cand);
		same = c && !strcmp(c, o);
		free(c);
		free(cand);
	}
	free(o);
	return same;
}

int cli_parse_format(const char *verb, const char *word, enum out_format *out,
		     unsigned allowed)
{
	char buf[64];
	if (output_format_parse(word, out) == 0 && (allowed & (1u << *out)))
		return 0;
	char list[256] = "";
	for (int f = 0; f < OUT_FORMAT_COUNT; f++) {
		if (!(allowed & (1u << f)))
			continue;
		if (*list)
			strcat(list, ", ");
		strcat(list, output_format_name((enum out_format)f));
	}
	fprintf(stderr, "error: unknown format '%s'\n", cli_echo(word, buf, sizeof(buf)));
	fprintf(stderr, "hint: 'prof %s' writes %s\n", verb, list);
	return -1;
}

/*
 * An -o file is written beside its name ("DIR/.NAME.XXXXXX") and renamed
 * over it once every byte is written, so a full disk or a killed prof
 * leaves the file that was there, never half a report. The new file
 * takes the old one's mode and owner; where the rename would break
 * something that cannot be carried over (a hard link, an owner or group
 * prof cannot give away), the file is written in place instead, as
 * editors do (vim's backupcopy=auto). One at a time.
 */
static struct {
	FILE *fp;
	char *tmp;	/* NULL: fp is the named file itself */
} out_file;

/* "DIR/.NAME.XXXXXX" for path, or NULL when memory runs out. */
static char *temp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	int dlen = slash ? (int)(slash - path + 1) : 0;
	char *t;
	if (asprintf(&t, "%.*s.%s.XXXXXX", dlen, path, slash ? slash + 1 : path) < 0)
		return NULL;
	return t;
}

FILE *cli_open_output(const char *path, FILE *fallback)
{
	if (!path || !strcmp(path, "-"))
		return fallback;
	char buf[64];
	struct stat st;
	/* A device, a pipe or a link is written as it is (renaming over
	 * /dev/null would replace it); a file, or no file yet, through a
	 * temporary one. */
	bool exists = lstat(path, &st) == 0;
	bool plain = !exists ? errno == ENOENT
		     : S_ISREG(st.st_mode) && st.st_nlink == 1;
	char *tmp = plain ? temp_name(path) : NULL;
	FILE *fp = NULL;
	if (tmp) {
		int fd = mkstemp(tmp);
		if (fd >= 0) {
			mode_t um = umask(0);
			umask(um);
			mode_t mode = exists ? st.st_mode & 07777 : 0666 & ~um;
			/* chown first: it clears set-user-ID bits */
			if ((exists && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
			     fchown(fd, st.st_uid, st.st_gid) != 0) ||
			    fchmod(fd, mode) != 0 || !(fp = fdopen(fd, "w"))) {
				close(fd);
				unlink(tmp);
			}
		}
		if (!fp) {
			free(tmp);
			tmp = NULL;
		}
	}
	if (!fp)
		fp = fopen(path, "w");
	if (!fp) {
		error_msg("cannot open '%s' for writing: %s",
			  cli_echo(path, buf, sizeof(buf)), ERR_TEXT(errno));
		return NULL;
	}
	out_file.fp = fp;
	out_file.tmp = tmp;
	return fp;
}

int cli_close_output(FILE *fp, const char *path)
{
	static bool stdout_said;	/* main closes stdout once more */
	if (!fp)
		return EXIT_OK;
	int bad = fflush(fp) != 0 || ferror(fp);
	int err = errno;
	if (fp != stdout && fp != stderr) {
		if (fclose(fp) != 0 && !bad) {
			bad = 1;
			err = errno;
		}
	}
	bool via_tmp = fp == out_file.fp && out_file.tmp;
	if (via_tmp) {
		if (!bad && rename(out_file.tmp, path) != 0) {
			bad = 1;
			err = errno;
		}
		if (bad)
			unlink(out_file.tmp);
		free(out_file.tmp);
	}
	if (fp == out_file.fp)
		memset(&out_file, 0, sizeof(out_file));
	if (bad && fp == stdout && stdout_said)
		return EXIT_FAIL;
	if (bad) {
		char buf[64];
		stdout_said = stdout_said || fp == stdout;
		return error_msg("cannot write %s%s%s: %s%s", path ? "'" : "the output",
				 path ? cli_echo(path, buf, sizeof(buf)) : "",
				 path ? "'" : "", ERR_TEXT(err),
				 via_tmp ? " (what was there is left as it was)" : "");
	}
	return EXIT_OK;
}

bool cli_parse_long(const char *s, long min, long max, long *out)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool cli_parse_id_list(const char *s, int64_t **ids, size_t *n)
{
	size_t n0 = *n;
	if (!*s || strspn(s, "0123456789,-") != strlen(s))
		return false;
	for (const char *p = s; *p;) {
		char *end;
		errno = 0;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p || lo <= 0 || errno)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || errno || hi < lo || hi - lo >= 100000)
				goto bad;
		}
		for (long id = lo; id <= hi; id++) {
			int64_t *v = realloc(*ids, (*n + 1) * sizeof(*v));
			if (!v)
				xalloc_die();
			*ids = v;
			v[(*n)++] = id;
		}
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	return true;
bad:
	*n = n0;
	return false;
}

bool cli_parse_double(const char *s, double min, double max, double *out)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool cli_parse_when(const char *s, time_t now, time_t *out)
{
	static const struct { char unit; long secs; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 604800 },
	};
	size_t len = s ? strlen(s) : 0;
	for (size_t u = 0; len > 1 && u < sizeof(units) / sizeof(units[0]); u++) {
		if (s[len - 1] != units[u].unit)
			continue;
		char num[24];
		long n;
		if (len > sizeof(num) || s[0] < '0' || s[0] > '9')
			return false;
		memcpy(num, s, len - 1);
		num[len - 1] = '\0';
		if (!cli_parse_long(num, 0, LONG_MAX / units[u].secs, &n) ||
		    (time_t)(n * units[u].secs) > now)
			return false;
		*out = now - (time_t)(n * units[u].secs);
		return true;
	}
	return s && report_time_parse(s, out) == 0;
}

int cli_parse_run_id(const char *verb, const char *word, long *id)
{
	char buf[64];
	if (!strcmp(word, "last")) {
		*id = 0;
		return 0;
	}
	if (!cli_parse_long(word, 1, LONG_MAX, id))
		return usage_error(verb, "bad run '%s': expected a run id or 'last'",
				   cli_echo(word, buf, sizeof(buf)));
	return 0;
}

const char *cli_echo(const char *s, char *buf, size_t bufsz)
{
	return run_echo(s, buf, bufsz);
}

int cli_load_experiment(struct db *db, long id, struct db_experiment *e)
{
	char *cause = NULL;
	int rc = db_experiment_load(db, id, e, &cause);
	return rc ? fail_cause(cause, exit_code_for(rc)) : 0;
}
