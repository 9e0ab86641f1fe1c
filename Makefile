# Short commands for Locus; CMake does the building (see README.md).
#   make demo     place a small dataset over 8 nodes and show where it lives
#   make check    all tests, the same under ASan+UBSan (the applications'
#                 examples aside), and a fuzz smoke run
#   make bench    the benchmarks of bench/ (minutes)
#   make repro    the papers' figures, into docs/results (minutes)
#   make install  library, headers, CLI and pkg-config file (PREFIX=/usr/local)

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
PREFIX     ?= /usr/local
FUZZ_TIME  ?= 5
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
MAKEFLAGS  += --no-print-directory

.PHONY: all deps build demo check test test-asan fuzz-build fuzz-smoke fuzz bench repro install format clean

all: build

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo $(BUILD)/locus

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DLOCUS_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -LE app

fuzz-build: deps
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DLOCUS_FUZZ=ON -DLOCUS_TESTS=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS)

# Each parser's fuzzer for FUZZ_TIME seconds from its seed corpus.
fuzz-smoke: fuzz-build
	@scripts/fuzz $(FUZZ_BUILD) $(FUZZ_TIME) $(JOBS)

# A longer run: make fuzz FUZZ_TIME=3600
fuzz: fuzz-smoke

check: test test-asan fuzz-smoke
	@echo "check: all tests passed (plain, ASan+UBSan) and fuzzers ran clean"

# Benchmarks (bench/): each prints its figures against baselines and bounds.
bench: build
	@for b in $(BUILD)/bench_*; do echo "== $$b"; $$b || exit 1; done

# The papers' experiments (bench/repro_*): tables on stdout, charts into
# docs/results.
repro: build
	@mkdir -p docs/results
	@for r in $(BUILD)/repro_*; do echo "== $$r"; $$r --out docs/results || exit 1; done
	@echo "== $(BUILD)/repro_gtp --rate 2 fig4 fig5"
	@$(BUILD)/repro_gtp --out docs/results --rate 2 fig4 fig5

install: build
	@cmake --install $(BUILD)

# Rewrites every C file with .clang-format.
format:
	@git ls-files '*.c' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
