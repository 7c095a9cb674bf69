/*
 * host: facts about the machine a run happened on: host name, kernel,
 * CPU model, online CPUs, perf_event_paranoid. Read fresh on each call;
 * the caller owns the struct (host_facts_release). Thread-safe.
 */
#ifndef COLLECTORS_HOST_H
#define COLLECTORS_HOST_H

struct host_facts {
	char *hostname;
	char *kernel;		/* "6.18.44 #1 SMP PREEMPT_DYNAMIC" */
	char *cpu_model;	/* /proc/cpuinfo "model name", or the arch */
	int online_cpus;
	int paranoid;		/* -100 when unreadable */
};

void host_facts_read(struct host_facts *out);
void host_facts_release(struct host_facts *h);

#endif
