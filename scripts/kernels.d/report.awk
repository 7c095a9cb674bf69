# Reads one guest's console log as scripts/kernels writes it (each line
# "[SECONDS] TEXT", SECONDS on the host's clock since QEMU started) and
# prints, for each test scripts/kernels.d/init ran: PASS, FAIL, SKIP or
# TIMEOUT, its time, cmocka's summary lines and each case with its time
# (and, for a skipped case, the reason the test printed). Writes to
# sumfile two lines: "ok" or "failed", and the kernel's one-line summary.
#
# Variables: kernel (the series), qemu_rc (QEMU's exit status, 124 when
# timeout stopped it), took (seconds the guest ran), sumfile, want (the
# tests asked for, space-separated: one that never began counts as failed).
function stamp_of(line) {
	return substr(line, 2, index(line, "]") - 2) + 0
}
function guest_info() {
	if (info_done || boot < 0)
		return
	info_done = 1
	printf "kernels:   guest: %s CPUs, perf_event_paranoid %s, kptr_restrict %s, " \
	       "cgroup2 %s, /proc/PID/schedstat %s, tracefs %s\n",
	       info["cpus"], info["perf_event_paranoid"], info["kptr_restrict"],
	       info["cgroup2"], info["schedstat"] == "missing" ? "missing" : "present",
	       info["tracefs"]
	printf "kernels:   guest PMUs: %s\n", info["pmus"]
	if ("prof-demo" in info)
		printf "kernels:   prof run -- prof-demo: %s\n", info["prof-demo"]
}
function case_line(status, name,    t) {
	t = (name in case_start) ? now - case_start[name] : 0
	line = sprintf("             %-7s %6.1f s  %s", status, t, name)
	if (status == "skipped" && reason != "")
		line = line "  (" reason ")"
	cases = cases line "\n"
	reason = ""
	incase = ""
	inerr = 0
}
BEGIN {
	boot = -1
	npass = nfail = nskip = 0
	done = 0
}
{
	now = stamp_of($0)
	text = substr($0, index($0, "]") + 2)
	# a marker can follow what the firmware left without a newline
	if ((i = index(text, "prof-kernels: ")) > 1)
		text = substr(text, i)
}
text ~ /^prof-kernels: info / {
	split(text, w, " ")
	key = w[3]
	val = substr(text, length("prof-kernels: info " key " ") + 1)
	info[key] = val
	if (key == "kernel" && boot < 0) {
		boot = now
		printf "kernels: %s: guest kernel %s, at a shell %.1f s after QEMU started\n",
		       kernel, val, now
	}
	next
}
text ~ /^prof-kernels: begin / {
	guest_info()
	test = substr(text, length("prof-kernels: begin ") + 1)
	began[test] = 1
	test_start = now
	summary = cases = reason = incase = ""
	insummary = 0
	passed = skipped = failed_cases = 0
	next
}
text ~ /^prof-kernels: end / {
	split(text, w, " ")
	rc = w[4]; sub(/^rc=/, "", rc)
	secs = w[5]; sub(/^secs=/, "", secs)
	to = w[6]; sub(/^timeout=/, "", to)
	if (to == 1) {
		status = "TIMEOUT"; nfail++
	} else if (rc != 0) {
		status = "FAIL"; nfail++
	} else if (passed == 0 && skipped > 0) {
		status = "SKIP"; nskip++
	} else {
		status = "PASS"; npass++
	}
	if (incase != "") {
		# the test died (abort, signal, timeout) in the middle of a case
		for (i = (ntail > 6 ? ntail - 6 : 0); i < ntail; i++)
			cases = cases "                       " tail_line[i % 6] "\n"
		case_line(to == 1 ? "TIMEOUT" : "died", incase)
	}
	extra = (status == "PASS" || status == "SKIP") ? "" : sprintf("  (exit status %d)", rc)
	printf "kernels:   %-7s %-24s %6.1f s%s\n", status, test, now - test_start, extra
	printf "%s", summary
	printf "%s", cases
	ended[test] = 1
	test = ""
	next
}
text == "prof-kernels: done" {
	done = 1
	next
}
test != "" {
	if (text ~ /^\[ RUN      \] /) {
		incase = substr(text, 14)
		case_start[incase] = now
		ntail = 0
	} else if (text ~ /^\[==========\] [0-9]+ test\(s\) run\./) {
		insummary = 1
	} else if (insummary && text ~ /^\[  (PASSED  |FAILED  |SKIPPED )\] [0-9]+ test\(s\)/) {
		summary = summary "             " text "\n"
		n = text; sub(/^\[[^]]*\] /, "", n); n += 0
		if (text ~ /PASSED/) passed = n
		else if (text ~ /SKIPPED/) skipped = n
		else failed_cases = n
	} else if (!insummary && text ~ /^\[       OK \] /) {
		case_line("ok", substr(text, 14))
	} else if (!insummary && text ~ /^\[  FAILED  \] /) {
		case_line("FAILED", substr(text, 14))
	} else if (!insummary && text ~ /^\[  SKIPPED \] /) {
		case_line("skipped", substr(text, 14))
	} else if (incase != "" && reason == "" && tolower(text) ~ /^skip(ping)?: /) {
		reason = text
		sub(/^[^:]*: /, "", reason)
	} else if (incase != "" && text ~ /^ERROR: /) {
		# cmocka's fail_msg() prints its message on a line of its own
		# before the ERROR line, which then carries only "Failure!"
		cases = cases "                       " text "\n"
	} else if (incase != "" && text ~ /^\[  ERROR   \] /) {
		# why a case failed: the message, to the LINE line, and where;
		# the case's name follows on the FAILED line
		cases = cases "                       " text "\n"
		inerr = text !~ /\[   LINE   \]/
		nerr = 0
	} else if (incase != "" && text ~ /^\[   LINE   \] /) {
		cases = cases "                       " text "\n"
		inerr = 0
	} else if (inerr && nerr++ < 8) {
		cases = cases "                       " text "\n"
	} else if (incase != "") {
		# what the case printed last, shown if it never finishes
		tail_line[ntail++ % 6] = text
	}
}
END {
	guest_info()
	if (test != "") {
		printf "kernels:   %-7s %-24s (the guest stopped while it ran)\n", "FAIL", test
		if (incase != "") {
			for (i = (ntail > 6 ? ntail - 6 : 0); i < ntail; i++)
				cases = cases "                       " tail_line[i % 6] "\n"
			case_line("stopped", incase)
		}
		printf "%s", cases
		nfail++
	}
	nt = split(want, w, " ")
	missing = 0
	for (i = 1; i <= nt; i++)
		if (!(w[i] in began))
			missing++
	if (boot < 0)
		why = "the guest never reached /init"
	else if (!done && qemu_rc == 124)
		why = "the guest ran past --timeout"
	else if (!done)
		why = "the guest stopped before the end (QEMU exit status " qemu_rc ")"
	else
		why = ""
	ok = (nfail == 0 && missing == 0 && why == "")
	line = sprintf("%s (%s): %d passed, %d failed, %d skipped%s in %s s%s",
		       kernel, info["kernel"] != "" ? info["kernel"] : "no kernel",
		       npass, nfail, nskip,
		       missing ? sprintf(", %d not run", missing) : "", took,
		       why != "" ? "; " why : "")
	print (ok ? "ok" : "failed") > sumfile
	print line > sumfile
}
