/*
 * cgroup: the run's own cgroup, for counters scoped to the workload; see
 * cgroup.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/cgroup.h"
#include "common/cause.h"
#include "common/errtext.h"

/* Does a comma-separated option list hold word? */
static bool has_option(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, word, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/*
 * The mount of the hierarchy perf_event counts by: a v1 hierarchy with
 * the perf_event option wins (the controller is then not on v2's), else
 * the cgroup2 mount. *mnt and *root (the mount's root within the
 * hierarchy) are malloc'd; *v1 says which.
 */
static int find_mount(const char *proc_root, char **mnt, char **root, bool *v1)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/self/mountinfo", proc_root);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return -errno;
	char line[4096];
	*mnt = *root = NULL;
	*v1 = false;
	while (fgets(line, sizeof(line), fp)) {
		/* id parent maj:min root mountpoint opts [tags] - fstype src super */
		char r[1024], m[1024];
		if (sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) != 2)
			continue;
		const char *dash = strstr(line, " - ");
		if (!dash)
			continue;
		char fstype[64], super[1024] = "";
		if (sscanf(dash + 3, "%63s %*s %1023s", fstype, super) < 1)
			continue;
		bool is_v1 = !strcmp(fstype, "cgroup") && has_option(super, "perf_event");
		bool is_v2 = !strcmp(fstype, "cgroup2");
		if (!is_v1 && !(is_v2 && !*v1 && !*mnt))
			continue;
		free(*mnt);
		free(*root);
		*mnt = strdup(m);
		*root = strdup(r);
		*v1 = is_v1;
		if (!*mnt || !*root) {
			fclose(fp);
			return -ENOMEM;
		}
		if (is_v1)
			break;
	}
	fclose(fp);
	return *mnt ? 0 : -ENOENT;
}

/* prof's own cgroup path in that hierarchy, from self/cgroup. */
static char *own_path(const char *proc_root, bool v1)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/self/cgroup", proc_root);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return NULL;
	char line[4096], *out = NULL;
	while (!out && fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		bool match = v1 ? has_option(c1 + 1, "perf_event")
				: !strcmp(line, "0") && c1[1] == '\0';
		if (match)
			out = strdup(c2 + 1);
	}
	fclose(fp);
	return out;
}

int run_cgroup_locate(const char *proc_root, char **dir, char **cause)
{
	char *mnt = NULL, *root = NULL;
	bool v1 = false;
	*dir = NULL;
	int rc = find_mount(proc_root, &mnt, &root, &v1);
	if (rc) {
		free(mnt);
		free(root);
		return cause_set(cause, rc == -ENOMEM ? ENOMEM : ENOENT,
				 "no cgroup hierarchy counts perf events here "
				 "(no cgroup2 mount, no v1 perf_event mount)");
	}
	char *own = own_path(proc_root, v1);
	if (!own) {
		free(mnt);
		free(root);
		return cause_set(cause, ENOENT, "cannot tell prof's own cgroup "
				 "from %s/self/cgroup", proc_root);
	}
	/* The mount shows the hierarchy from its root on: take that part
	 * off prof's path ("/" mounts show everything). */
	const char *rel = own;
	size_t rl = strlen(root);
	if (strcmp(root, "/") && !strncmp(own, root, rl) &&
	    (own[rl] == '/' || own[rl] == '\0'))
		rel = own + rl;
	if (asprintf(dir, "%s%s%s", mnt, *rel == '/' || !*rel ? "" : "/",
		     !strcmp(rel, "/") ? "" : rel) < 0)
		*dir = NULL;
	free(own);
	free(mnt);
	free(root);
	return *dir ? 0 : -ENOMEM;
}

int run_cgroup_create(struct run_cgroup *cg, char **cause)
{
	static unsigned serial;
	cg->path = cg->parent = NULL;
	cg->fd = -1;
	int rc = run_cgroup_locate("/proc", &cg->parent, cause);
	if (rc)
		return rc;
	run_cgroup_sweep(cg->parent);
	if (asprintf(&cg->path, "%s/prof.%d.%u", cg->parent, (int)getpid(),
		     serial++) < 0) {
		cg->path = NULL;
		run_cgroup_remove(cg);
		return -ENOMEM;
	}
	if (mkdir(cg->path, 0755) != 0) {
		int err = errno;
		rc = cause_set(cause, err, "cannot make cgroup '%s': %s",
			       cg->path, ERR_TEXT(err));
		free(cg->path);
		cg->path = NULL;
		run_cgroup_remove(cg);
		return rc;
	}
	cg->fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->fd < 0) {
		int err = errno;
		rc = cause_set(cause, err, "cannot open cgroup '%s': %s",
			       cg->path, ERR_TEXT(err));
		run_cgroup_remove(cg);
		return rc;
	}
	return 0;
}

/* Write one pid into dir's cgroup.procs. */
static int move_pid(const char *dir, pid_t pid)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	int rc = write(fd, buf, (size_t)n) == n ? 0 : -errno;
	close(fd);
	return rc;
}

int run_cgroup_procs(const struct run_cgroup *cg, char **cause)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->path);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return cause_set(cause, errno, "cannot open '%s': %s", path,
				 ERR_TEXT(errno));
	return fd;
}

/* Move every process left in dir to parent; 0 when none is left. */
static int empty_into(const char *dir, const char *parent)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	int rc = 0;
	for (int pass = 0; pass < 4; pass++) {
		FILE *fp = fopen(path, "re");
		if (!fp)
			return -errno;
		int pid, moved = 0;
		while (fscanf(fp, "%d", &pid) == 1) {
			int m = move_pid(parent, pid);
			if (m && m != -ESRCH)
				rc = m;
			moved++;
		}
		fclose(fp);
		if (!moved)
			return 0;
	}
	return rc ? rc : -EBUSY;
}

int run_cgroup_remove(struct run_cgroup *cg)
{
	int rc = 0;
	if (cg->fd >= 0)
		close(cg->fd);
	cg->fd = -1;
	if (cg->path) {
		if (rmdir(cg->path) != 0 && errno != ENOENT) {
			if (cg->parent)
				empty_into(cg->path, cg->parent);
			if (rmdir(cg->path) != 0 && errno != ENOENT)
				rc = -errno;
		}
	}
	free(cg->path);
	free(cg->parent);
	cg->path = cg->parent = NULL;
	return rc;
}

int run_cgroup_sweep(const char *parent)
{
	DIR *d = opendir(parent);
	if (!d)
		return 0;
	int removed = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		int pid;
		unsigned n;
		char tail;
		if (sscanf(de->d_name, "prof.%d.%u%c", &pid, &n, &tail) != 2 ||
		    pid <= 0 || pid == getpid())
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue;	/* its prof still runs (or is not ours) */
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", parent, de->d_name);
		/* What a killed prof's workload left running goes back. */
		if (rmdir(path) != 0)
			empty_into(path, parent);
		if (rmdir(path) == 0 || errno == ENOENT)
			removed++;
	}
	closedir(d);
	return removed;
}
