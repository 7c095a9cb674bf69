/*
 * exit_with: exit with a chosen status, or die of a chosen signal, after
 * optionally sleeping (for the e2e tests of exit codes and signals).
 * usage: exit_with CODE [SLEEP_MS]      exit_with -SIGNAL [SLEEP_MS]
 */
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int code = argc > 1 ? atoi(argv[1]) : 0;
	long ms = argc > 2 ? atol(argv[2]) : 0;
	if (ms > 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		while (nanosleep(&ts, &ts) != 0)
			;
	}
	if (code < 0) {
		signal(-code, SIG_DFL);
		raise(-code);
	}
	return code;
}
