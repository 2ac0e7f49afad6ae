# The two commands of the README, and the builds behind them.
#   make render   installs what is missing, builds, renders the default scene
#   make test     installs what is missing, builds, runs the test suite
#   make test-asan  the suite under AddressSanitizer and UBSan
#   make fuzz       every loader under libFuzzer, FUZZ_SECONDS in all (clang)
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SCENE ?= cornell
FUZZ_SECONDS ?= 210
FUZZERS ?= pbrt ply obj gltf gltf_camera image cli
OUT ?= pathwave.png

.PHONY: all deps build render test test-asan fuzz bench clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

render: build
	$(BUILD)/pathwave render $(SCENE) -o $(OUT)

test: build
	cd $(BUILD) && ctest --output-on-failure -j 1

test-asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPW_SANITIZE=ON >/dev/null
	@cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j 1

# Each loader's fuzz target, seeded from tests/corpus/NAME (scripts/fuzz.sh).
# A crash, sanitizer report, leak or hang fails the run.
fuzz: deps
	@CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPW_NO_CUDA=ON >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target $(addprefix fuzz_,$(FUZZERS))
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZERS)

bench: build
	$(BUILD)/pathwave bench toy

clean:
	rm -rf $(BUILD) build-asan build-fuzz
