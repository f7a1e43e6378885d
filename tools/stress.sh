#!/usr/bin/env bash
# `make stress`: every test that boots QEMU, RUNS times in a row, with both cores kept busy by
# other processes meanwhile (as on a shared CI machine), to show that no QEMU test is flaky.
# Prints each run's result and, at the end, each test's failures out of RUNS; exits 1 if any
# test failed once. cargo's selections come from the demo kernel's STRESS_TESTS, separated by `|`.
#
# Usage: tools/stress.sh RUNS LOG_DIR 'SELECTION|SELECTION...'
set -euo pipefail

runs=$1
logs=$2
IFS='|' read -ra selections <<<"$3"
mkdir -p "$logs"

load=()
stop_load() { ((${#load[@]})) && kill "${load[@]}" 2>/dev/null || true; }
trap stop_load EXIT
cores=$(nproc)
for ((c = 0; c < cores; c++)); do
	sh -c 'while :; do :; done' &
	load+=($!)
done
printf 'stress: %d runs of the QEMU tests, with %d busy loops beside them\n' "$runs" "$cores" >&2

# Build the tests first, without the load's noise in the timings that matter.
for selection in "${selections[@]}"; do
	# shellcheck disable=SC2086
	cargo test --locked --no-run $selection >/dev/null 2>&1
done

start=$SECONDS
for ((i = 1; i <= runs; i++)); do
	log=$logs/run-$i.log
	: >"$log"
	for selection in "${selections[@]}"; do
		before=$(grep -c '^test .* \.\.\. FAILED$' "$log" || true)
		status=0
		# shellcheck disable=SC2086
		cargo test --locked --no-fail-fast $selection >>"$log" 2>&1 || status=$?
		after=$(grep -c '^test .* \.\.\. FAILED$' "$log" || true)
		# cargo failing with no test failing: the build or a test binary itself broke.
		if ((status != 0 && after == before)); then
			echo "test cargo test $selection ... FAILED" >>"$log"
		fi
	done
	passed=$(grep -c '^test .* \.\.\. ok$' "$log" || true)
	failed=$(grep -c '^test .* \.\.\. FAILED$' "$log" || true)
	printf 'run %2d/%d: %d passed, %d failed (%ds so far)\n' "$i" "$runs" "$passed" "$failed" $((SECONDS - start))
done

echo "failures per test over $runs runs:"
cat "$logs"/run-*.log | sed -n 's/^test \(.*\) \.\.\. FAILED$/\1/p' | sort | uniq -c | sed 's/^/  /'
total=$(cat "$logs"/run-*.log | grep -c '^test .* \.\.\. ok$' || true)
bad=$(cat "$logs"/run-*.log | grep -c '^test .* \.\.\. FAILED$' || true)
echo "stress: $runs runs, $total test runs passed, $bad failed; logs in $logs"
((bad == 0))
