#!/usr/bin/env bash
# `make fuzz`: coverage-guided fuzzing (cargo-fuzz, libFuzzer, on the stable toolchain without a
# sanitizer, with debug assertions so that overflows panic) of every parser of untrusted input,
# each target for a time budget, with a corpus in the cache seeded from real inputs the suite
# already has: console logs, .cmd files, .configs, KTAP, rustdoc pages, Rust sources, series
# files and cover letters, and ELF objects with DWARF. Prints one line per target
# (executions, coverage, corpus, crashes) and exits 1 if any target crashed, naming the input.
#
# Usage: fuzz/run.sh SECONDS CACHE
set -euo pipefail

seconds=$1
cache=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$cache/fuzz
cargo_fuzz_version=0.13.2
targets=(console_log cmd_file config ktap html rust_source series elf_dwarf symbolize)

say() { printf 'fuzz: %s\n' "$*" >&2; }

if ! cargo fuzz --version 2>/dev/null | grep -q "$cargo_fuzz_version"; then
	say "installing cargo-fuzz $cargo_fuzz_version"
	cargo install --locked cargo-fuzz --version "$cargo_fuzz_version"
fi

fuzz=(cargo fuzz)
opts=(-s none -a --fuzz-dir "$here" --target-dir "$work/target")
say "building ${#targets[@]} targets"
"${fuzz[@]}" build "${opts[@]}" >&2

# Seeds: up to COUNT files under the given paths matching NAME (a find -name pattern), under
# 256 KiB each.
seed() {
	local corpus=$1 name=$2 count=$3
	shift 3
	local f
	{ find "$@" -type f -name "$name" -size -256k 2>/dev/null || true; } | sort | head -n "$count" |
		while read -r f; do cp -n "$f" "$corpus/$(printf '%s' "$f" | sha1sum | cut -c1-16)" || true; done
}
trees=("$cache"/linux-*)
objtrees=()
for t in "${trees[@]}"; do [[ -d $t/objtree ]] && objtrees+=("$t/objtree"); done

seed_target() {
	local target=$1 corpus=$2
	case $target in
	console_log)
		seed "$corpus" '*.log' 60 "$root/tools/oops" "$root/tools/kunit" "$root/kallsyms-check" "$root/tools/symbolizer" "${trees[@]/%//demo}"
		;;
	cmd_file)
		for o in "${objtrees[@]}"; do seed "$corpus" '.*.cmd' 40 "$o/rust" "$o/init" "$o/samples"; done
		;;
	config)
		for o in "${objtrees[@]}"; do cp -n "$o/.config" "$corpus/$(basename "$(dirname "$o")").config" || true; done
		seed "$corpus" '*.config' 20 "$root/demo-kernel"
		;;
	ktap)
		seed "$corpus" '*.log' 20 "$root/tools/kunit" "$root/docs-site/src/doctests"
		seed "$corpus" 'console.log' 10 "${trees[@]/%//docs}"
		;;
	html)
		for t in "${trees[@]}"; do seed "$corpus" '*.html' 40 "$t/docs/site/kernel/sync"; done
		;;
	rust_source)
		for t in "${trees[@]}"; do seed "$corpus" '*.rs' 40 "$t/srctree/rust/kernel/sync" "$t/srctree/samples/rust"; done
		seed "$corpus" '*.rs' 20 "$root/demo-kernel/modules"
		;;
	series)
		seed "$corpus" 'series' 10 "$root/demo-kernel"
		seed "$corpus" '0000-cover-letter.patch' 10 "$root/demo-kernel/upstream"
		;;
	elf_dwarf)
		for o in "${objtrees[@]}"; do seed "$corpus" '*.o' 20 "$o/lib" "$o/rust"; done
		;;
	symbolize)
		# A small object's symbols and DWARF, then a console log with an oops.
		local elf log i=0
		for o in "${objtrees[@]}"; do
			for elf in "$o/lib/ctype.o" "$o/lib/string.o" "$o/rust/ffi.o"; do
				for log in "$root"/tools/oops/tests/fixtures/*.log; do
					[[ -f $elf && -f $log ]] || continue
					i=$((i + 1))
					{ perl -e 'print pack("V", -s $ARGV[0])' "$elf"; cat "$elf" "$log"; } >"$corpus/seed-$i"
				done
			done
		done
		;;
	esac
}

failed=0
printf '%-12s %8s %12s %8s %8s %s\n' target seconds executions coverage corpus crashes
for target in "${targets[@]}"; do
	corpus=$work/corpus/$target
	artifacts=$work/artifacts/$target
	mkdir -p "$corpus" "$artifacts"
	[[ -n $(ls -A "$corpus") ]] || seed_target "$target" "$corpus"
	log=$work/$target.log
	status=0
	"${fuzz[@]}" run "${opts[@]}" "$target" "$corpus" -- \
		-max_total_time="$seconds" -max_len=262144 -timeout=20 -rss_limit_mb=2048 \
		-artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 || status=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	crashes=$(grep -c '^artifact_prefix=\|Test unit written to' "$log" || true)
	printf '%-12s %8s %12s %8s %8s %s\n' "$target" "$seconds" "${runs:-?}" "${cov:-?}" \
		"$(ls "$corpus" | wc -l)" "$crashes"
	if ((status != 0)); then
		failed=1
		say "$target failed (exit $status); its log: $log"
		grep -E 'panicked|Test unit written to|ERROR' "$log" | head -5 >&2 || true
	fi
done
exit $failed
