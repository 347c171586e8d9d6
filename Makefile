# OpenBench-style build: `make EXE=<path>` puts a release binary at <path>.
EXE ?= searchlight

.PHONY: all test bench clean
all:
	cargo build --release
	cp target/release/searchlight $(EXE)

test:
	cargo test

bench: all
	$(abspath $(EXE)) bench

clean:
	cargo clean
