# `make test`'s count of distinct tests, over cargo's logs (cargo-test-*.log) and the boots that
# the QEMU runner recorded (boots-*.log, one `EXE::TEST` line a boot). A test is its test
# binary's file name (`demo_kernel-HASH`, the same in every log of one build) and its name;
# one that is in more than one log ran against each demo kernel; one named in a boots log
# booted a kernel in QEMU itself (or through a tool it ran).
#
# Usage: awk -f tools/count_tests.awk LOGS... BOOTS...
FNR == 1 { file++; boots = FILENAME ~ /boots-[^\/]*\.log$/ }
boots { booted[$0] = 1; next }
/^ *Running .*\(.*\)$/ {
	bin = $NF
	gsub(/[()]/, "", bin)
	n = split(bin, parts, "/")
	bin = parts[n]
	next
}
/^ *Doc-tests / { bin = "doctests-" $2; next }
/^test .* \.\.\. (ok|FAILED|ignored)/ {
	name = substr($0, 6)
	sub(/ \.\.\. (ok|FAILED|ignored).*$/, "", name)
	key = bin "::" name
	if (last[key] != file) { logs[key]++; last[key] = file }
}
END {
	for (key in logs) {
		distinct++
		if (logs[key] > 1) each++
		if (key in booted) boot++
	}
	printf "distinct tests: %d, of which %d run against each demo kernel and %d boot a kernel in QEMU\n", distinct, each, boot
}
