/* host: hostname, kernel, CPU model and online CPUs of this machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "collectors/counters.h"
#include "collectors/cpuid.h"
#include "collectors/host.h"

/* x86 says "model name", some Arm kernels "Model", others nothing. */
static char *cpu_model(const char *fallback)
{
	struct cpuid id;
	(void)cpuid_read(NULL, &id);	/* a name even where the rest is odd */
	return strdup(id.model_name[0] ? id.model_name : fallback);
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
