# OpenBench-style build: `make EXE=<path>` puts a release binary at <path>.
# `make pgo EXE=<path>` builds a profile-guided one instead: the same search, faster.
EXE ?= searchlight

# Environment RUSTFLAGS replace those of .cargo/config.toml, so the PGO builds repeat its
# x86-64-v2 level themselves.
ARCH_FLAGS := $(if $(filter x86_64,$(shell uname -m)),-C target-cpu=x86-64-v2,)
PGO_DIR := $(abspath target/pgo)
PGO_GEN := $(PGO_DIR)/gen/release/searchlight
# rustup's llvm-tools component ships llvm-profdata matching the compiler's LLVM.
LLVM_PROFDATA ?= $(firstword $(wildcard $(shell rustc --print sysroot)/lib/rustlib/*/bin/llvm-profdata))

.PHONY: all pgo test bench clean
all:
	cargo build --release
	cp target/release/searchlight $(EXE)

# The profile is what `bench` runs with each evaluator: the search's hot paths.
pgo:
	@test -n "$(LLVM_PROFDATA)" || { echo "llvm-profdata not found: rustup component add llvm-tools"; exit 1; }
	rm -rf $(PGO_DIR)/data
	RUSTFLAGS="$(ARCH_FLAGS) -C profile-generate=$(PGO_DIR)/data" cargo build --release --target-dir $(PGO_DIR)/gen
	$(PGO_GEN) bench 13 > /dev/null
	$(PGO_GEN) bench 12 --eval classical > /dev/null
	$(PGO_GEN) bench 12 --eval material > /dev/null
	$(LLVM_PROFDATA) merge -o $(PGO_DIR)/merged.profdata $(PGO_DIR)/data
	RUSTFLAGS="$(ARCH_FLAGS) -C profile-use=$(PGO_DIR)/merged.profdata -C llvm-args=-pgo-warn-missing-function=false" cargo build --release --target-dir $(PGO_DIR)/use
	cp $(PGO_DIR)/use/release/searchlight $(EXE)

test:
	cargo test

bench: all
	$(abspath $(EXE)) bench

clean:
	cargo clean
