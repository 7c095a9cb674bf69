/* host: hostname, kernel, CPU model and online CPUs of this machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "collectors/counters.h"
#include "collectors/host.h"

static char *cpu_model(const char *fallback)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[512];
	char *model = NULL;
	while (fp && fgets(line, sizeof(line), fp)) {
		/* x86 says "model name", some Arm kernels "Model" or nothing. */
		if (strncmp(line, "model name", 10) && strncmp(line, "Model\t", 6))
			continue;
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		char *v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		model = strdup(v);
		break;
	}
	if (fp)
		fclose(fp);
	return model ? model : strdup(fallback);
}

void host_facts_read(struct host_facts *out)
{
	struct utsname u;
	memset(out, 0, sizeof(*out));
	if (uname(&u) == 0) {
		out->hostname = strdup(u.nodename);
		if (asprintf(&out->kernel, "%s %s", u.release, u.version) < 0)
			out->kernel = NULL;
		out->cpu_model = cpu_model(u.machine);
	} else {
		out->hostname = strdup("?");
		out->kernel = strdup("?");
		out->cpu_model = cpu_model("?");
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	out->online_cpus = n > 0 ? (int)n : 0;
	out->paranoid = counters_paranoid();
}

void host_facts_release(struct host_facts *h)
{
	if (!h)
		return;
	free(h->hostname);
	free(h->kernel);
	free(h->cpu_model);
	memset(h, 0, sizeof(*h));
}
